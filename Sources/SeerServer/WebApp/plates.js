// Plates: read a plate (camera or photo) or type it → check and correct it → a preset or custom
// message → sent. Also the owner's onboarding and inbox.

import { call, canUse, keys, scanPhoto } from "./api.js";
import { cameraView } from "./camera.js";
import { h, put, toast, when } from "./dom.js";
import { photoFigure } from "./scan.js";
import { PRESETS, settings } from "./words.js";

/** Below this a character is shown as doubtful. */
const DOUBT = 0.6;

function tabs(current) {
  const items = [
    ["#/plates", "Message a car", "send"],
    ["#/plates/inbox", "Inbox", "inbox"],
    ["#/plates/join", "Register", "join"],
  ];
  return h(
    "nav",
    { class: "subnav", "aria-label": "Plates" },
    items.map(([href, label, key]) => h("a", { href, "aria-current": key === current ? "page" : undefined }, label)),
  );
}

function normalise(text) {
  return String(text || "")
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, "");
}

/** The check view: the reading, editable; the candidates as choices; doubtful characters marked. */
function checkView(main, reading, blob, report) {
  const input = h("input", { id: "plate-text", value: reading ? reading.text : "", autocomplete: "off", autocapitalize: "characters", spellcheck: "false", maxlength: 12, required: true });
  const country = h("input", { id: "plate-country", autocomplete: "off", autocapitalize: "characters", maxlength: 2, size: 3, placeholder: "GB" });
  const parts = [];
  if (reading) {
    const characters = reading.characters || [];
    if (characters.length) {
      parts.push(
        h(
          "p",
          { class: "plate-chars", "aria-label": "Characters read, doubtful ones marked" },
          characters.map((c) => {
            const doubtful = c.confidence < DOUBT;
            const percent = Math.round(c.confidence * 100);
            return h("span", { class: doubtful ? "char doubt" : "char", title: `${percent}% sure`, "aria-label": `${c.character}, ${percent}% sure${doubtful ? ", check it" : ""}` }, c.character);
          }),
        ),
      );
      if (characters.some((c) => c.confidence < DOUBT)) parts.push(h("p", { class: "hint" }, "Underlined characters are doubtful: check them against the plate."));
    }
    const candidates = (reading.candidates || []).filter((c) => c.text);
    if (candidates.length > 1) {
      parts.push(
        h(
          "fieldset",
          { class: "choices" },
          h("legend", {}, "Or choose another reading"),
          candidates.slice(0, 5).map((c, i) =>
            h(
              "label",
              {},
              h("input", { type: "radio", name: "candidate", value: c.text, checked: i === 0, onchange: () => (input.value = c.text) }),
              h("span", { class: "plate-text" }, c.text),
              h("span", { class: "score" }, `${Math.round(c.score * 100)}%`),
            ),
          ),
        ),
      );
    }
  }
  const owner = h("div", { "aria-live": "polite" });
  const form = h(
    "form",
    { class: "check" },
    h("label", { for: "plate-text" }, "Plate"),
    input,
    ...parts,
    h("label", { for: "plate-country" }, "Country (optional, two letters)"),
    country,
    h("button", { type: "submit" }, "Next: the message"),
    owner,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const plate = normalise(input.value);
    if (!plate) return toast("Type the plate first.", "error");
    const code = country.value.trim().toUpperCase() || undefined;
    try {
      const found = await call("POST", "/v1/plates/resolve", { access: "owner", body: code ? { plate, country: code } : { plate } });
      if (found.status === "resolved") return messageView(main, found.plate || plate, code);
      if (found.status === "ambiguous" && (found.candidates || []).length) {
        return put(
          owner,
          h("p", { role: "alert" }, "Several registered plates match. Which one is it?"),
          h("ul", { class: "chips" }, found.candidates.map((c) => h("li", {}, h("button", { type: "button", class: "chip plate-text", onclick: () => messageView(main, c, code) }, c)))),
        );
      }
      put(owner, h("p", { class: "error", role: "alert" }, "No owner of this plate uses the service. Check the characters, or the country."));
    } catch (error) {
      put(owner, h("p", { class: "error", role: "alert" }, error.message));
    }
  });
  put(main, h("h1", { tabindex: "-1" }, "Check the plate"), tabs("send"), form, blob && report ? photoFigure(blob, report) : null);
  main.querySelector("h1").focus();
}

function messageView(main, plate, country) {
  const custom = h("textarea", { id: "custom-text", maxlength: 140, rows: 3 });
  const form = h(
    "form",
    { class: "message" },
    h(
      "fieldset",
      {},
      h("legend", {}, "Message"),
      Object.entries(PRESETS).map(([id, text], i) => h("label", {}, h("input", { type: "radio", name: "preset", value: id, checked: i === 0 }), text)),
      h("label", {}, h("input", { type: "radio", name: "preset", value: "custom" }), "Write my own"),
    ),
    h("label", { for: "custom-text" }, "Your message (at most 140 characters)"),
    custom,
    h("button", { type: "submit" }, "Send"),
  );
  custom.addEventListener("input", () => {
    if (custom.value) form.querySelector('input[value="custom"]').checked = true;
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const chosen = form.querySelector('input[name="preset"]:checked').value;
    const body = chosen === "custom" ? { text: custom.value } : { preset: chosen };
    if (country) body.country = country;
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      const receipt = await call("POST", `/v1/plates/${encodeURIComponent(plate)}/messages`, { access: "owner", body });
      put(
        main,
        h("h1", { tabindex: "-1" }, "Sent"),
        tabs("send"),
        h("p", { class: "sent", role: "status" }, receipt.status === "delivered" ? "Your message was delivered to the owner of " : "Your message was sent to the owner of ", h("span", { class: "plate-text" }, plate), "."),
        h("p", { class: "hint" }, "The owner's name and address are never shown to you, nor yours to them."),
        h("a", { href: "#/plates", class: "button" }, "Message another car"),
      );
      main.querySelector("h1").focus();
    } catch (error) {
      button.disabled = false;
      const words = error.code === "notRegistered" || error.status === 404 ? "No owner of this plate uses the service." : error.message;
      toast(words, "error");
    }
  });
  put(main, h("h1", { tabindex: "-1" }, "Message"), tabs("send"), h("p", {}, "To the owner of ", h("span", { class: "plate-text" }, plate), country ? ` (${country})` : ""), form);
  main.querySelector("h1").focus();
}

function bestPlate(report) {
  const plates = (report.plates || []).filter((p) => p.text);
  return plates.length ? plates[0] : null;
}

export function platesScreen(main) {
  const outcome = h("div", { "aria-live": "polite" });
  const typed = h("input", { id: "manual-plate", autocomplete: "off", autocapitalize: "characters", spellcheck: "false", maxlength: 12 });
  const manual = h("form", { class: "manual" }, h("label", { for: "manual-plate" }, "Or enter the plate manually"), h("div", { class: "row" }, typed, h("button", { type: "submit", class: "secondary" }, "Enter")));
  manual.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!normalise(typed.value)) return toast("Type the plate first.", "error");
    checkView(main, { text: normalise(typed.value), characters: [], candidates: [] });
  });

  async function readPlate(blob) {
    const report = await scanPhoto(blob, { read: "plates" });
    return bestPlate(report) ? report : null;
  }

  const file = h("input", { type: "file", id: "plate-photo", accept: "image/*", class: "visually-hidden" });
  file.addEventListener("change", async () => {
    const chosen = file.files && file.files[0];
    file.value = "";
    if (!chosen) return;
    put(outcome, h("p", { role: "status" }, "Reading the plate…"));
    try {
      const report = await scanPhoto(chosen, { read: "plates" });
      const plate = bestPlate(report);
      if (plate) return checkView(main, plate, chosen, report);
      put(outcome, h("p", { class: "error", role: "alert" }, "No plate was read in this photo. Try another, or enter the plate manually."), photoFigure(chosen, report));
    } catch (error) {
      put(outcome, h("p", { class: "error", role: "alert" }, error.message));
    }
  });
  const cameraSlot = h("div", {});
  const cameraButton = h("button", { type: "button" }, "Read with the camera");
  cameraButton.addEventListener("click", () => {
    cameraButton.hidden = true;
    put(cameraSlot, cameraView({ read: readPlate, fps: 2, torch: () => settings().flash, label: "Camera view for reading plates", found: (report, blob) => checkView(main, bestPlate(report), blob, report) }));
  });

  const held = keys();
  put(
    main,
    h("h1", { tabindex: "-1" }, "Plates"),
    tabs("send"),
    h("p", { class: "hint" }, "Photograph a car's plate to leave its owner a message."),
    canUse("owner") ? null : h("p", { class: "error", role: "alert" }, "Sign in with a user key in Settings to send messages."),
    held.device || held.admin ? h("div", { class: "row" }, cameraButton, file, h("label", { for: "plate-photo", class: "button secondary" }, "Choose a photo")) : h("p", { class: "hint" }, "Reading a plate from a photo needs a device key as well."),
    cameraSlot,
    outcome,
    manual,
  );
}

export async function inboxScreen(main) {
  const body = h("div", {}, h("p", { role: "status" }, "Loading…"));
  put(main, h("h1", { tabindex: "-1" }, "Inbox"), tabs("inbox"), body);
  if (!canUse("inbox")) return put(body, h("p", { class: "error", role: "alert" }, "The inbox needs a user key: sign in with one in Settings."));
  try {
    const answer = await call("GET", "/v1/inbox", { access: "inbox" });
    const messages = answer.messages || [];
    put(
      body,
      messages.length
        ? h("ul", { class: "inbox" }, messages.map((m) => h("li", {}, h("p", { class: "message-text" }, m.text), h("p", { class: "hint" }, when(m.sentAt)))))
        : h("p", { class: "empty" }, "No messages."),
    );
  } catch (error) {
    const words = error.code === "noRecipient" ? "This key has no plate yet: register first." : error.message;
    put(body, h("p", { class: "error", role: "alert" }, words));
  }
}

export function joinScreen(main) {
  const field = (id, label, attrs) => [h("label", { for: id }, label), h("input", { id, required: true, ...attrs })];
  const form = h(
    "form",
    { class: "join" },
    field("join-name", "Your name", { autocomplete: "name", maxlength: 100 }),
    field("join-email", "Email", { type: "email", autocomplete: "email", maxlength: 200 }),
    field("join-plate", "Your car's plate", { autocapitalize: "characters", autocomplete: "off", maxlength: 12 }),
    field("join-country", "Country of the plate (two letters)", { autocapitalize: "characters", maxlength: 2, value: "GB" }),
    h("button", { type: "submit" }, "Register"),
  );
  const outcome = h("div", { "aria-live": "polite" });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const value = (id) => form.querySelector(`#${id}`).value.trim();
    try {
      const receipt = await call("POST", "/v1/users", {
        access: "owner",
        body: { name: value("join-name"), email: value("join-email"), plate: value("join-plate"), country: value("join-country").toUpperCase() },
      });
      put(outcome, h("p", { class: "ok", role: "status" }, "Registered: messages for ", h("span", { class: "plate-text" }, receipt.plate), " now reach your inbox."));
      form.reset();
    } catch (error) {
      const words = error.code === "alreadyRegistered" ? "This key already belongs to a registered owner." : error.message;
      put(outcome, h("p", { class: "error", role: "alert" }, words));
    }
  });
  put(
    main,
    h("h1", { tabindex: "-1" }, "Register your car"),
    tabs("join"),
    h("p", { class: "hint" }, "People who see your car can then leave you a message; they never learn your name or email."),
    canUse("owner") ? null : h("p", { class: "error", role: "alert" }, "Sign in with a user key in Settings first."),
    form,
    outcome,
  );
}
