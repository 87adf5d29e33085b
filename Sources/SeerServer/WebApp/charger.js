// Charger: scan a charger's code or type its ID → its status and what to do.

import { call, canUse, keys, scanPhoto } from "./api.js";
import { cameraView } from "./camera.js";
import { h, put } from "./dom.js";
import { chargerCard } from "./scan.js";
import { settings } from "./words.js";

export function chargerScreen(main) {
  const outcome = h("div", { class: "outcome", "aria-live": "polite" });
  const id = h("input", { id: "charger-id", inputmode: "numeric", autocomplete: "off", maxlength: 40, required: true });
  const form = h("form", { class: "charger" }, h("label", { for: "charger-id" }, "Charger ID"), h("div", { class: "row" }, id, h("button", { type: "submit" }, "Look up")));

  function show(charger) {
    put(outcome, h("h2", { tabindex: "-1" }, "Charger"), chargerCard(charger));
    outcome.querySelector("h2").focus();
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const typed = id.value.trim();
    if (!typed) return;
    put(outcome, h("p", { role: "status" }, "Looking it up…"));
    try {
      show(await call("GET", `/v1/chargers/${encodeURIComponent(typed)}`, { access: "any" }));
    } catch (error) {
      put(outcome, h("p", { class: "error", role: "alert" }, error.message));
    }
  });

  async function read(blob) {
    const report = await scanPhoto(blob, { read: "codes" });
    const symbol = (report.symbols || []).find((s) => s.charger);
    return symbol ? symbol.charger : null;
  }

  const file = h("input", { type: "file", id: "charger-photo", accept: "image/*", class: "visually-hidden" });
  file.addEventListener("change", async () => {
    const chosen = file.files && file.files[0];
    file.value = "";
    if (!chosen) return;
    put(outcome, h("p", { role: "status" }, "Reading the photo…"));
    try {
      const charger = await read(chosen);
      if (charger) show(charger);
      else put(outcome, h("p", { class: "error", role: "alert" }, "No charger code was found in this photo. Type the ID instead."));
    } catch (error) {
      put(outcome, h("p", { class: "error", role: "alert" }, error.message));
    }
  });
  const cameraSlot = h("div", {});
  const cameraButton = h("button", { type: "button", class: "secondary" }, "Scan the charger's code");
  cameraButton.addEventListener("click", () => {
    cameraButton.hidden = true;
    put(cameraSlot, cameraView({ read, torch: () => settings().flash, label: "Camera view for charger codes", found: show }));
  });
  const held = keys();
  put(
    main,
    h("h1", { tabindex: "-1" }, "Charger"),
    h("p", { class: "hint" }, "Scan the code on the charger, or type the ID printed on it."),
    canUse("any") ? null : h("p", { class: "error", role: "alert" }, "Sign in with a key in Settings first."),
    form,
    held.device || held.admin ? h("div", { class: "row" }, cameraButton, file, h("label", { for: "charger-photo", class: "button secondary" }, "Choose a photo")) : null,
    cameraSlot,
    outcome,
  );
}
