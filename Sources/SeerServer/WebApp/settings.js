// Settings: capture mode, flash, the history's default period; signing in with API keys.

import { call, keys, setKeys, signOut } from "./api.js";
import { h, put, toast } from "./dom.js";
import { PERIODS, saveSettings, settings } from "./words.js";

function masked(key) {
  return key ? `${key.slice(0, 13)}…` : "not signed in";
}

/** Checks a key against a route its role may call; resolves to an error message or null. */
async function check(role, key) {
  const before = keys();
  setKeys({ [role]: key });
  try {
    if (role === "user") await call("POST", "/v1/plates/resolve", { access: "owner", body: { plate: "AB12CDE" } });
    else await call("GET", "/v1/searches/recent", { access: "scanner" });
    return null;
  } catch (error) {
    // Only 401 and 403 say the key is wrong (a plate nobody registered is no problem here).
    if (error.status === 401) return "This key is not known or was revoked.";
    if (error.status === 403) return `This is not a ${role} key.`;
    return null;
  } finally {
    setKeys(before);
  }
}

export function settingsScreen(main) {
  const current = settings();
  const held = keys();
  const form = h(
    "form",
    { class: "settings" },
    h(
      "fieldset",
      { class: "segmented" },
      h("legend", {}, "Capture mode"),
      h("label", {}, h("input", { type: "radio", name: "mode", value: "single", checked: current.mode === "single" }), "Single (show the verdict)"),
      h("label", {}, h("input", { type: "radio", name: "mode", value: "batch", checked: current.mode === "batch" }), "Batch (keep scanning)"),
    ),
    h("label", { class: "check-line" }, h("input", { type: "checkbox", id: "flash", checked: current.flash }), "Turn the torch on when the camera starts"),
    h("label", { for: "period" }, "History period by default"),
    h("select", { id: "period" }, Object.entries(PERIODS).map(([k, v]) => h("option", { value: k, selected: k === current.period }, v))),
    h("button", { type: "submit" }, "Save settings"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    saveSettings({ mode: form.querySelector('input[name="mode"]:checked').value, flash: form.querySelector("#flash").checked, period: form.querySelector("#period").value });
    toast("Settings saved.", "ok");
  });

  const field = (role, label) => [h("label", { for: `key-${role}` }, label), h("input", { id: `key-${role}`, type: "password", autocomplete: "current-password", spellcheck: "false", placeholder: masked(held[role]) })];
  const keyForm = h(
    "form",
    { class: "keys" },
    h("p", { class: "hint" }, "Keys are kept in this tab only and sent in a header, never in an address."),
    field("device", "Device key (scanning, history)"),
    field("user", "User key (plates, inbox)"),
    h("div", { class: "row" }, h("button", { type: "submit" }, "Sign in"), h("button", { type: "button", class: "secondary", id: "sign-out" }, "Sign out")),
  );
  keyForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const next = { ...keys() };
    for (const role of ["device", "user"]) {
      const value = keyForm.querySelector(`#key-${role}`).value.trim();
      if (!value) continue;
      const problem = await check(role, value);
      if (problem) return toast(`${role === "user" ? "User" : "Device"} key: ${problem}`, "error");
      next[role] = value;
    }
    setKeys(next);
    toast("Signed in.", "ok");
    settingsScreen(main);
  });
  keyForm.querySelector("#sign-out").addEventListener("click", () => {
    signOut();
    toast("Signed out.", "ok");
    settingsScreen(main);
  });

  put(
    main,
    h("h1", { tabindex: "-1" }, "Settings"),
    form,
    h("h2", {}, "Sign in"),
    h("p", { id: "signed-in" }, `Device: ${masked(held.device)} · User: ${masked(held.user)}${held.admin ? " · Admin key held" : ""}`),
    keyForm,
  );
}
