// The app's shell: the screens by address (#/scan, #/history/12, …), the tab bar, the demo sign-in.

import { adoptKeysFromFragment } from "./api.js";
import { stopCamera } from "./camera.js";
import { chargerScreen } from "./charger.js";
import { h, put, toast } from "./dom.js";
import { detailsScreen, historyScreen, homeScreen } from "./history.js";
import { inboxScreen, joinScreen, platesScreen } from "./plates.js";
import { scanScreen } from "./scan.js";
import { settingsScreen } from "./settings.js";

const TABS = [
  ["home", "Home"],
  ["scan", "Scan"],
  ["history", "History"],
  ["plates", "Plates"],
  ["charger", "Charger"],
  ["settings", "Settings"],
];

const SCREENS = {
  home: (main) => homeScreen(main),
  scan: (main) => scanScreen(main),
  history: (main, rest) => (rest[0] ? detailsScreen(main, rest[0]) : historyScreen(main)),
  plates: (main, rest) => (rest[0] === "inbox" ? inboxScreen(main) : rest[0] === "join" ? joinScreen(main) : platesScreen(main)),
  charger: (main) => chargerScreen(main),
  settings: (main) => settingsScreen(main),
};

function route() {
  stopCamera();
  if (adoptKeysFromFragment()) toast("Signed in with the keys from the link.", "ok");
  const [name, ...rest] = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean);
  const screen = Object.hasOwn(SCREENS, name) ? name : "home";
  for (const link of document.querySelectorAll("nav.tabs a")) {
    if (link.dataset.screen === screen) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  const main = document.getElementById("main");
  main.dataset.screen = screen;
  document.title = `${TABS.find(([k]) => k === screen)[1]} · Seer`;
  const done = SCREENS[screen](main, rest);
  Promise.resolve(done).finally(() => main.querySelector("h1")?.focus({ preventScroll: true }));
}

put(
  document.getElementById("tabs"),
  h("ul", {}, TABS.map(([key, label]) => h("li", {}, h("a", { href: `#/${key}`, "data-screen": key }, label)))),
);
window.addEventListener("hashchange", route);
route();
