// Scan: the camera or a photo → the verdict (single mode) or a running count (batch mode).

import { call, canUse, scanPhoto } from "./api.js";
import { cameraView } from "./camera.js";
import { confirmDialog, h, put, s, toast } from "./dom.js";
import { reason, settings, VERDICTS } from "./words.js";

/** The photo with every code and plate outlined from the corners Seer returned, and their text. */
export function photoFigure(blob, report) {
  const url = URL.createObjectURL(blob);
  const width = report.width || 1;
  const height = report.height || 1;
  const stroke = Math.max(2, Math.round(Math.min(width, height) / 150));
  const fontSize = Math.max(10, Math.round(Math.min(width, height) / 22));
  const overlay = s("svg", { viewBox: `0 0 ${width} ${height}`, preserveAspectRatio: "none", "aria-hidden": "true", class: "overlay" });
  const captions = [];
  const marks = [
    ...(report.symbols || []).map((symbol) => ({ kind: "code", corners: symbol.corners, text: symbol.text ?? "(binary data)", label: symbol.format })),
    ...(report.plates || []).map((plate) => ({ kind: "plate", corners: plate.corners, text: plate.text, label: "plate" })),
  ];
  marks.forEach((mark, index) => {
    const corners = Array.isArray(mark.corners) ? mark.corners.filter((p) => Array.isArray(p) && p.length === 2) : [];
    if (corners.length >= 3) {
      overlay.append(s("polygon", { points: corners.map(([x, y]) => `${x},${y}`).join(" "), class: `mark ${mark.kind}`, "stroke-width": stroke }));
      const top = corners.reduce((a, b) => (b[1] < a[1] ? b : a));
      overlay.append(s("text", { x: top[0], y: Math.max(fontSize, top[1] - stroke * 2), class: `mark-label ${mark.kind}`, "font-size": fontSize }, String(index + 1)));
    }
    captions.push(h("li", {}, h("span", { class: "tag" }, `${index + 1} · ${mark.label}`), " ", h("span", { class: "payload" }, mark.text)));
  });
  const image = h("img", { src: url, alt: marks.length ? `The photo, with ${marks.length} item(s) outlined` : "The photo" });
  image.addEventListener("load", () => setTimeout(() => URL.revokeObjectURL(url), 60000), { once: true });
  return h(
    "figure",
    { class: "photo" },
    h("div", { class: "frame" }, image, overlay),
    h("figcaption", {}, marks.length ? h("ol", { class: "marks" }, captions) : "Nothing was read in this photo."),
  );
}

/** A verdict: the word, what it means, the reasons in plain words, the product. */
export function verdictCard(v) {
  const verdict = VERDICTS[v.verdict] ? v.verdict : "unknown";
  const product = v.product || {};
  const name = product.name || v.productName;
  const brand = product.brand || v.brand;
  const category = product.category || v.category;
  return h(
    "section",
    { class: `verdict ${verdict}`, "aria-label": "Verdict" },
    h("p", { class: "verdict-word", "data-verdict": verdict }, VERDICTS[verdict].label),
    h("p", {}, VERDICTS[verdict].text),
    name || brand ? h("p", { class: "product" }, [name, brand].filter(Boolean).join(" · "), category ? ` (${category})` : "") : null,
    (v.reasons || []).length ? h("ul", { class: "reasons" }, (v.reasons || []).map((r) => h("li", {}, reason(r)))) : null,
  );
}

/** Asks for a reason and reports the scan's product as counterfeit. */
export async function reportCounterfeit(scanID, onDone) {
  const answer = await confirmDialog({
    title: "Report counterfeit?",
    text: "The brand will see that this product was reported as a counterfeit.",
    field: "What is wrong with it? (optional)",
    yes: "Report",
  });
  if (answer === null) return;
  try {
    await call("POST", `/v1/scans/${encodeURIComponent(scanID)}/report`, { access: "scanner", body: answer ? { reason: answer } : {} });
    toast("Reported as counterfeit. Thank you.", "ok");
    if (onDone) onDone();
  } catch (error) {
    toast(error.message, "error");
  }
}

function chargerCard(c) {
  return h(
    "section",
    { class: "charger-card", "aria-label": "Charger" },
    h("p", { class: `charger-action ${c.action || ""}` }, c.message || c.action || "Unknown charger"),
    h(
      "dl",
      {},
      h("dt", {}, "Charger"),
      h("dd", {}, c.chargerID || "—"),
      h("dt", {}, "Status"),
      h("dd", {}, c.status || "—"),
      c.location ? [h("dt", {}, "Location"), h("dd", {}, c.location)] : null,
      c.serial ? [h("dt", {}, "Serial"), h("dd", {}, c.serial)] : null,
    ),
  );
}
export { chargerCard };

/** What a scan read: a verdict card per product code, a charger card per charger code. */
function results(report) {
  const symbols = report.symbols || [];
  if (!symbols.length) return [h("p", { class: "empty" }, "No code was found in this photo. Try again closer, with the code flat and in focus.")];
  return symbols.map((symbol) => {
    if (symbol.charger) return chargerCard(symbol.charger);
    const v = symbol.verification;
    if (!v) return h("p", {}, "A code was read but not verified: ", h("span", { class: "payload" }, symbol.text ?? "(binary data)"));
    return h(
      "div",
      { class: "result" },
      verdictCard(v),
      h("p", { class: "payload-line" }, "Code: ", h("span", { class: "payload" }, v.payload ?? symbol.text ?? "")),
      h(
        "div",
        { class: "row" },
        v.scanID ? h("a", { class: "button secondary", href: `#/history/${v.scanID}` }, "Details") : null,
        v.scanID ? h("button", { type: "button", class: "danger", onclick: () => reportCounterfeit(v.scanID) }, "Report counterfeit") : null,
      ),
    );
  });
}

export function scanScreen(main) {
  const mode = settings().mode;
  const outcome = h("div", { class: "outcome", "aria-live": "polite" });
  const counter = h("p", { class: "counter", role: "status" });
  let count = 0;
  const seen = new Map();

  function show(report, blob) {
    put(outcome, h("h2", { tabindex: "-1" }, "Result"), results(report), photoFigure(blob, report));
    outcome.querySelector("h2").focus({ preventScroll: false });
  }

  function tally(report) {
    for (const symbol of report.symbols || []) {
      count += 1;
      const verdict = symbol.verification ? symbol.verification.verdict : symbol.charger ? "charger" : "unverified";
      seen.set(verdict, (seen.get(verdict) || 0) + 1);
    }
    put(counter, `${count} scanned`, [...seen].map(([k, n]) => ` · ${n} ${(VERDICTS[k] || { label: k }).label.toLowerCase()}`));
  }

  async function read(blob) {
    const report = await scanPhoto(blob, { read: "codes", mode });
    return (report.symbols || []).length ? report : null;
  }

  const file = h("input", { type: "file", id: "scan-photo", accept: "image/*", class: "visually-hidden" });
  file.addEventListener("change", async () => {
    const chosen = file.files && file.files[0];
    file.value = "";
    if (!chosen) return;
    put(outcome, h("p", { role: "status" }, "Reading the photo…"));
    try {
      const report = await scanPhoto(chosen, { read: "codes", mode });
      if (mode === "batch") {
        tally(report);
        put(outcome, results(report), photoFigure(chosen, report));
      } else {
        show(report, chosen);
      }
    } catch (error) {
      put(outcome, h("p", { class: "error", role: "alert" }, error.message));
    }
  });

  const cameraSlot = h("div", {});
  const cameraButton = h("button", { type: "button" }, "Scan with the camera");
  cameraButton.addEventListener("click", () => {
    cameraButton.hidden = true;
    put(
      cameraSlot,
      cameraView({
        read,
        keepGoing: () => mode === "batch",
        torch: () => settings().flash,
        label: "Camera view for scanning codes",
        found: (report, blob) => (mode === "batch" ? (tally(report), put(outcome, results(report))) : show(report, blob)),
      }),
    );
  });

  put(
    main,
    h("h1", { tabindex: "-1" }, "Scan"),
    h("p", { class: "hint" }, mode === "batch" ? "Batch mode: every code read is saved; the camera keeps scanning." : "Point the camera at a product's code, or choose a photo."),
    canUse("scanner") ? null : h("p", { class: "error", role: "alert" }, "Sign in with a device key in Settings to scan."),
    h("div", { class: "row" }, cameraButton, file, h("label", { for: "scan-photo", class: "button secondary" }, "Choose a photo")),
    mode === "batch" ? counter : null,
    cameraSlot,
    outcome,
  );
}
