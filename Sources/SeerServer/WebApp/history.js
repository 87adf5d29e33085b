// Home (statistics, recent scans), History (filters, search, suggestions) and one scan's details.

import { call, canUse } from "./api.js";
import { h, put, when } from "./dom.js";
import { reportCounterfeit, verdictCard } from "./scan.js";
import { PERIODS, settings, VERDICTS } from "./words.js";

function needKey(main, title) {
  put(main, h("h1", { tabindex: "-1" }, title), h("p", { class: "error", role: "alert" }, "Sign in with a device key in Settings to see the history."));
}

function failure(node, error) {
  put(node, h("p", { class: "error", role: "alert" }, error.message));
}

function query(params) {
  const clean = Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== "" && v !== "all-categories");
  return clean.length ? `?${new URLSearchParams(clean)}` : "";
}

/** One scan in a list: verdict, product, when; a link to its details. */
function scanItem(scan) {
  const verdict = VERDICTS[scan.verdict] ? scan.verdict : "unknown";
  return h(
    "li",
    {},
    h(
      "a",
      { href: `#/history/${scan.id}`, class: "scan-item" },
      h("span", { class: `badge ${verdict}` }, VERDICTS[verdict].label),
      h("span", { class: "scan-name" }, scan.productName || scan.payload || `Scan ${scan.id}`),
      h("span", { class: "scan-when" }, when(scan.time)),
    ),
  );
}

function counts(title, list, labels = {}) {
  const rows = list || [];
  const most = Math.max(1, ...rows.map((r) => r.count));
  return h(
    "section",
    { class: "card", "aria-label": title },
    h("h2", {}, title),
    rows.length
      ? h(
          "ul",
          { class: "counts" },
          rows.map((r) => {
            const label = labels[r.key] || r.key || "(none)";
            return h(
              "li",
              { "data-key": r.key },
              h("span", { class: "count-key" }, label),
              h("meter", { min: 0, max: most, value: r.count, "aria-label": `${label}: ${r.count}` }),
              h("span", { class: "count-value" }, String(r.count)),
            );
          }),
        )
      : h("p", { class: "empty" }, "Nothing yet."),
  );
}

export async function homeScreen(main) {
  if (!canUse("scanner")) return needKey(main, "Home");
  const period = settings().period;
  const body = h("div", {}, h("p", { role: "status" }, "Loading…"));
  put(main, h("h1", { tabindex: "-1" }, "Home"), h("p", { class: "hint" }, `Statistics: ${PERIODS[period].toLowerCase()} (change the period in Settings).`), body);
  try {
    const [stats, recent] = await Promise.all([call("GET", `/v1/stats${query({ period })}`, { access: "scanner" }), call("GET", "/v1/scans?limit=5", { access: "scanner" })]);
    const verdictLabels = Object.fromEntries(Object.entries(VERDICTS).map(([k, v]) => [k, v.label]));
    put(
      body,
      h(
        "section",
        { class: "totals", "aria-label": "Totals" },
        h("p", {}, h("span", { class: "big", id: "total-scans" }, String(stats.total)), " scans"),
        h("p", {}, h("span", { class: "big", id: "total-reported" }, String(stats.reported)), " reported"),
      ),
      counts("By verdict", stats.byVerdict, verdictLabels),
      counts("By category", stats.byCategory),
      counts("Per day", stats.perDay),
      h("section", { class: "card", "aria-label": "Recent scans" }, h("h2", {}, "Recent scans"), recent.scans.length ? h("ul", { class: "scans" }, recent.scans.map(scanItem)) : h("p", { class: "empty" }, "No scans yet.")),
    );
  } catch (error) {
    failure(body, error);
  }
}

export async function historyScreen(main) {
  if (!canUse("scanner")) return needKey(main, "History");
  const state = { result: "all", category: "all-categories", period: settings().period, search: "", page: 1 };
  const list = h("div", { class: "history-list", "aria-live": "polite" });
  const searchBox = h("input", { type: "search", id: "history-search", list: "search-suggestions", enterkeyhint: "search", maxlength: 200 });
  const suggestions = h("datalist", { id: "search-suggestions" });
  const recent = h("div", { class: "recent-searches" });
  const category = h("select", { id: "history-category" }, h("option", { value: "all-categories" }, "All categories"));
  const period = h("select", { id: "history-period" }, Object.entries(PERIODS).map(([k, v]) => h("option", { value: k, selected: k === state.period }, v)));

  const results = h(
    "fieldset",
    { class: "segmented" },
    h("legend", {}, "Result"),
    [
      ["all", "All"],
      ["success", "Success"],
      ["failed", "Failed"],
    ].map(([value, label]) =>
      h("label", {}, h("input", { type: "radio", name: "result", value, checked: value === state.result, onchange: () => ((state.result = value), load(true)) }), label),
    ),
  );

  async function loadRecent() {
    try {
      const answer = await call("GET", "/v1/searches/recent", { access: "scanner" });
      const items = (answer.searches || []).slice(0, 6);
      put(
        recent,
        items.length
          ? [h("span", { class: "hint", id: "recent-label" }, "Recent searches:"), h("ul", { class: "chips", "aria-labelledby": "recent-label" }, items.map((text) => h("li", {}, h("button", { type: "button", class: "chip", onclick: () => ((searchBox.value = text), (state.search = text), load(true)) }, text))))]
          : null,
      );
    } catch {
      recent.replaceChildren();
    }
  }

  let typing = 0;
  let asked = "";
  searchBox.addEventListener("input", () => {
    clearTimeout(typing);
    const text = searchBox.value.trim();
    if (!text) return suggestions.replaceChildren();
    typing = setTimeout(async () => {
      if (text === asked) return;
      asked = text;
      try {
        const answer = await call("GET", `/v1/suggest${query({ q: text })}`, { access: "scanner" });
        if (searchBox.value.trim() === text) put(suggestions, (answer.suggestions || []).map((word) => h("option", { value: word })));
      } catch {
        suggestions.replaceChildren();
      }
    }, 200);
  });

  const form = h(
    "form",
    { class: "filters", role: "search" },
    h("label", { for: "history-search" }, "Search"),
    h("div", { class: "row" }, searchBox, h("button", { type: "submit" }, "Search")),
    suggestions,
    recent,
    results,
    h("div", { class: "row" }, h("div", { class: "field" }, h("label", { for: "history-category" }, "Category"), category), h("div", { class: "field" }, h("label", { for: "history-period" }, "Period"), period)),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    state.search = searchBox.value.trim();
    load(true).then(loadRecent);
  });
  category.addEventListener("change", () => ((state.category = category.value), load(true)));
  period.addEventListener("change", () => ((state.period = period.value), load(true)));

  async function load(fresh) {
    if (fresh) state.page = 1;
    if (fresh) put(list, h("p", { role: "status" }, "Loading…"));
    try {
      const page = await call("GET", `/v1/scans${query({ result: state.result, category: state.category, period: state.period, search: state.search, page: state.page, limit: 20 })}`, { access: "scanner" });
      const items = page.scans.map(scanItem);
      let ul = list.querySelector("ul.scans");
      if (fresh || !ul) {
        ul = h("ul", { class: "scans" });
        put(list, h("p", { class: "hint", role: "status" }, state.search ? `Results for “${state.search}”` : "Newest first"), items.length ? ul : h("p", { class: "empty" }, "No scans match."));
      }
      ul.append(...items);
      list.querySelector("button.more")?.remove();
      if (page.hasMore) list.append(h("button", { type: "button", class: "secondary more", onclick: () => ((state.page += 1), load(false)) }, "Show more"));
    } catch (error) {
      failure(list, error);
    }
  }

  put(main, h("h1", { tabindex: "-1" }, "History"), form, list);
  try {
    const stats = await call("GET", "/v1/stats", { access: "scanner" });
    for (const c of stats.byCategory || []) if (c.key) category.append(h("option", { value: c.key }, c.key));
  } catch {
    // The categories stay at "all"; the list below says what went wrong.
  }
  loadRecent();
  load(true);
}

const FIELDS = [
  ["productName", "Product"],
  ["brand", "Brand"],
  ["category", "Category"],
  ["gtin", "GTIN"],
  ["serial", "Serial"],
  ["lot", "Lot"],
  ["expiry", "Expiry"],
  ["symbology", "Symbology"],
  ["format", "Format"],
  ["mode", "Mode"],
  ["batchID", "Batch"],
  ["device", "Device"],
  ["country", "Country"],
  ["latitude", "Latitude"],
  ["longitude", "Longitude"],
  ["sourceFile", "Photo"],
  ["notes", "Notes"],
];

export async function detailsScreen(main, id) {
  if (!canUse("scanner")) return needKey(main, "Scan details");
  const body = h("div", {}, h("p", { role: "status" }, "Loading…"));
  put(main, h("p", {}, h("a", { href: "#/history" }, "← History")), h("h1", { tabindex: "-1" }, `Scan ${id}`), body);
  try {
    const scan = await call("GET", `/v1/scans/${encodeURIComponent(id)}`, { access: "scanner" });
    put(
      body,
      verdictCard(scan),
      h(
        "dl",
        { class: "details" },
        h("dt", {}, "Scanned"),
        h("dd", {}, when(scan.time)),
        h("dt", {}, "Code"),
        h("dd", {}, h("span", { class: "payload" }, scan.payload ?? "")),
        FIELDS.filter(([key]) => scan[key] !== undefined && scan[key] !== null && scan[key] !== "").map(([key, label]) => [h("dt", {}, label), h("dd", {}, String(scan[key]))]),
      ),
      h(
        "section",
        { class: "card", "aria-label": "Counterfeit reports" },
        h("h2", {}, "Counterfeit reports"),
        (scan.reports || []).length ? h("ul", { class: "reports" }, scan.reports.map((r) => h("li", {}, when(r.reportedAt), r.reason ? ` — ${r.reason}` : ""))) : h("p", { class: "empty" }, "Not reported."),
      ),
      h("button", { type: "button", class: "danger", onclick: () => reportCounterfeit(scan.id, () => detailsScreen(main, id)) }, "Report counterfeit"),
    );
  } catch (error) {
    failure(body, error);
  }
}
