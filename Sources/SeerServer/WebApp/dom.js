// Building the page. Every piece of data becomes a text node: nothing here parses HTML.

const SVG = "http://www.w3.org/2000/svg";

function fill(node, attrs, children) {
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      node.addEventListener(name.slice(2), value);
    } else if (name === "value" || name === "checked" || name === "selected" || name === "disabled") {
      node[name] = value;
    } else {
      node.setAttribute(name, value === true ? "" : String(value));
    }
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** An HTML element: `h("p", {class: "x"}, "text", otherNode)`. Strings are always text. */
export function h(tag, attrs, ...children) {
  return fill(document.createElement(tag), attrs, children);
}

/** An SVG element, the same way. */
export function s(tag, attrs, ...children) {
  return fill(document.createElementNS(SVG, tag), attrs, children);
}

/** Replaces what `node` holds. */
export function put(node, ...children) {
  node.replaceChildren();
  return fill(node, {}, children);
}

let toastTimer = 0;

/** A short message read out by screen readers. */
export function toast(text, kind = "info") {
  const box = document.getElementById("toast");
  put(box, h("p", { class: `toast ${kind}` }, text));
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => box.replaceChildren(), 5000);
}

/** Asks a yes/no question in a modal dialog; resolves to the text typed (when `field` is given) or true, or null. */
export function confirmDialog({ title, text, field, yes, no = "Cancel" }) {
  return new Promise((resolve) => {
    const input = field ? h("textarea", { id: "dialog-field", maxlength: 500, rows: 3 }) : null;
    const dialog = h(
      "dialog",
      { "aria-labelledby": "dialog-title" },
      h("h2", { id: "dialog-title" }, title),
      text ? h("p", {}, text) : null,
      field ? [h("label", { for: "dialog-field" }, field), input] : null,
      h(
        "div",
        { class: "row" },
        h("button", { type: "button", class: "secondary", onclick: () => dialog.close("no") }, no),
        h("button", { type: "button", class: "danger", onclick: () => dialog.close("yes") }, yes),
      ),
    );
    dialog.addEventListener("close", () => {
      dialog.remove();
      if (dialog.returnValue !== "yes") resolve(null);
      else resolve(field ? input.value.trim() : true);
    });
    document.body.append(dialog);
    dialog.showModal();
    (input || dialog.querySelector("button.danger")).focus();
  });
}

/** A date and time from seconds since 1970, in the reader's locale. */
export function when(seconds) {
  if (typeof seconds !== "number") return "";
  return new Date(seconds * 1000).toLocaleString();
}
