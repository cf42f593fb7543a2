// Small DOM helpers shared by the game page modules (no framework, no build step).

/** Create an element: el("button", {class: "x", onclick: f, "aria-label": "…"}, child, …). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    // through the CSSOM, which a Content-Security-Policy without 'unsafe-inline' allows
    else if (key === "style") node.style.cssText = String(value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") {
      node.addEventListener(key.slice(2), value);
    } else if (value === true) node.setAttribute(key, "");
    else node.setAttribute(key, String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else if (child instanceof Node) node.appendChild(child);
    else node.appendChild(document.createTextNode(String(child)));
  }
}

/** Replace the children of `node`. */
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

/** "Secret agent", "palace_coup" -> "Palace coup". */
export function humanize(value) {
  if (value === null || value === undefined) return "";
  const text = String(value).replace(/_/g, " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** 0.1234 -> "12.3%"; already a percent (>1) is shown as is. */
export function pct(p) {
  if (p === null || p === undefined || Number.isNaN(Number(p))) return "–";
  const value = Number(p) <= 1 ? Number(p) * 100 : Number(p);
  if (value === 0 || value === 100) return `${value}%`;
  return `${value < 10 ? value.toFixed(1) : value.toFixed(0)}%`;
}

export function signed(n) {
  const v = Number(n);
  return v > 0 ? `+${v}` : String(v);
}

/** Turn "…(10.36)…" or "r10.36" style rule references into links to the rulebook. */
export function ruleLink(rule) {
  return el("a", { class: "rule", href: `/rules#r${rule}`, target: "_blank", rel: "noopener",
    title: `Rule ${rule}` }, `§${rule}`);
}
