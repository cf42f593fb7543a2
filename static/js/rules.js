// The rulebook: a link to a rule number that has no paragraph of its own (a cross
// reference inside another rule, such as 22.23 inside 22.2) lands on the nearest rule
// that contains it — 22.23, then 22.2, then chapter 22 — and highlights it.
function target(hash) {
  const m = /^#r(\d+(?:\.\d+)?)/.exec(decodeURIComponent(hash || ""));
  if (!m) return null;
  let number = m[1];
  while (number) {
    const node = document.getElementById(`r${number}`);
    if (node) return node;
    if (!number.includes(".")) break;
    number = number.endsWith(".") ? number.slice(0, -1) : number.slice(0, -1).replace(/\.$/, "");
  }
  const chapter = m[1].split(".")[0];
  return document.getElementById(`r${chapter}`) || [...document.querySelectorAll("h2")]
    .find((h) => h.textContent.trim().startsWith(`${chapter}.`)) || null;
}

function show() {
  const node = target(window.location.hash);
  document.querySelectorAll(".rule-target").forEach((n) => n.classList.remove("rule-target"));
  if (!node) return;
  node.classList.add("rule-target");
  node.scrollIntoView({ block: "start" });
}

window.addEventListener("hashchange", show);
show();
