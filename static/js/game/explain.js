// Rendering of GET /api/games/{id}/explain: the effectiveness rating term by term and the
// odds of each result / of the next draw / of rebellion, shown BEFORE the player commits.
//
// The engine answers e.g.
//   endeavour: {kind, rule, terms: [{term, value, rule}], rating, cost, cost_terms, odds: {code: p},
//               results: {code: "what it does"}}
//   tax:       {check, terms, rebellion_value, odds: {none, unrest, rebellion}, rule}
//   draw:      {draw_odds: {cards, by_type, burden, reshuffle}, strikes, cost, bust_odds, strike_odds}
// Known keys are laid out by hand; anything else is shown generically so nothing is lost.
import { el, humanize, pct, signed, ruleLink } from "./dom.js";
import { breachWarning } from "./politics.js";

const isOdds = (v) => v && typeof v === "object" && !Array.isArray(v)
  && Object.values(v).length > 0 && Object.values(v).every((x) => typeof x === "number" && x >= 0 && x <= 1);

function termsTable(terms, total, caption, totalLabel = "Rating") {
  if (!terms.length && (total === undefined || total === null)) return null;
  return el("table", { class: "terms" },
    caption ? el("caption", {}, caption) : null,
    el("tbody", {}, terms.map((t) => el("tr", {},
      el("th", { scope: "row" }, t.label || humanize(t.term || t.name || t.source || "")),
      el("td", { class: "num" }, typeof t.value === "number" ? signed(t.value) : String(t.value ?? "")),
      el("td", { class: "src" }, t.rule ? ruleLink(t.rule) : null)))),
    total !== undefined && total !== null ? el("tfoot", {}, el("tr", {},
      el("th", { scope: "row" }, totalLabel), el("td", { class: "num total" }, String(total)), el("td"))) : null);
}

export function oddsList(odds, caption, labels = {}, showCode = true) {
  const entries = Object.entries(odds).sort((a, b) => b[1] - a[1]);
  return el("div", { class: "odds" },
    caption ? el("h4", {}, caption) : null,
    el("ul", {}, entries.map(([k, p]) => el("li", {},
      el("span", { class: "odds-label" }, labels[k] ? (showCode ? [el("strong", {}, k), " ", labels[k]] : labels[k]) : humanize(k)),
      el("span", { class: "odds-bar", "aria-hidden": "true" }, el("span", { style: `width:${Math.round(p * 100)}%` })),
      el("span", { class: "odds-num" }, pct(p))))));
}

const TAX_OUTCOMES = { none: "Stays quiet", unrest: "Unrest", rebellion: "Rebellion" };
const SKIP = new Set(["type", "kind", "area", "terms", "rating", "total", "odds", "results", "cost_terms", "breaks", "breach_odds",
  "draw_odds", "rule", "check", "rebellion_value", "bust_odds", "strike_odds", "pile", "cost", "strikes"]);

/** A readable block for whatever explain returned. */
export function renderExplain(data, advisorNames = {}) {
  if (!data || typeof data !== "object") return el("p", {}, String(data ?? ""));
  const out = [];
  const terms = Array.isArray(data.terms) ? data.terms : (data.rating?.terms || []);
  const rating = typeof data.rating === "number" ? data.rating : (data.rating?.total ?? data.total);
  if (data.type === "tax" || data.type === "plunder" || "rebellion_value" in data) {
    out.push(el("p", { class: "explain-line" }, data.check
      ? ["A rebellion check follows", data.rule ? [" (", ruleLink(data.rule), ")"] : null, "."]
      : "No rebellion check: the area will stay quiet."));
    if (data.check) out.push(termsTable(terms, data.rebellion_value, "Rebellion check", "Modifier"));
    if (isOdds(data.odds)) out.push(oddsList(data.odds, "What the area does", TAX_OUTCOMES, false));
  } else {
    if (data.type === "endeavour" && data.kind) {
      out.push(el("p", { class: "explain-line explain-title" }, el("strong", {}, humanize(data.kind)),
        data.rule ? [" — rules ", ruleLink(data.rule)] : null));
    }
    out.push(termsTable(terms, rating, data.type === "endeavour" ? "Effectiveness rating" : (terms.length ? "Breakdown" : null)));
    if (Array.isArray(data.cost_terms) && data.cost_terms.length) {
      out.push(termsTable(data.cost_terms, data.cost, "Cost in talents", "Cost"));
    } else if (typeof data.cost === "number" && data.cost) {
      out.push(el("p", { class: "explain-line" }, el("strong", {}, "Cost: "), `${data.cost}`));
    }
    if (isOdds(data.odds)) {
      const labels = data.results && typeof data.results === "object" ? data.results : {};
      out.push(oddsList(data.odds, "Odds of each result (after the result counter)", labels));
    }
    if (data.draw_odds) out.push(renderDrawOdds(data.draw_odds, advisorNames));
    if (typeof data.bust_odds === "number") {
      out.push(el("p", { class: "explain-line" }, el("strong", {}, "Odds the petition fails: "), pct(data.bust_odds),
        typeof data.strike_odds === "number" ? ` (a strike: ${pct(data.strike_odds)})` : ""));
    }
    if (data.rule && !terms.length) out.push(el("p", { class: "explain-line" }, "Rule ", ruleLink(data.rule)));
  }
  if (data.if_defended && typeof data.if_defended === "object") {
    const d = data.if_defended;
    const who = typeof d.defender === "number" && renderExplain.seatName ? renderExplain.seatName(d.defender) : "the owner";
    out.push(el("details", { class: "if-defended" },
      el("summary", {}, `If ${who} defends: rating ${d.rating} before any talents they add`,
        d.defender_years !== undefined ? ` (they have ${d.defender_years} year${d.defender_years === 1 ? "" : "s"} left)` : ""),
      termsTable(d.terms_without_extra_talents || [], undefined, "Their defense"),
      isOdds(d.odds) ? oddsList(d.odds, "Odds if defended", data.results || {}) : null));
  }
  for (const [key, value] of Object.entries(data)) {
    if (SKIP.has(key) || key === "if_defended" || value === null || value === undefined) continue;
    if (isOdds(value)) out.push(oddsList(value, humanize(key)));
    else if (typeof value !== "object") out.push(el("p", { class: "explain-line" }, el("strong", {}, humanize(key)), ": ", String(value)));
  }
  if (Array.isArray(data.breaks) && data.breaks.length) { // 20.3: what it would break, first
    const names = { powerNameOf: (seat) => (renderExplain.seatName ? renderExplain.seatName(seat) : "your partner") };
    if (typeof data.breach_odds === "number") {
      out.unshift(el("p", { class: "explain-line" }, el("strong", {}, "Chance it takes the area and breaks your agreement: "), pct(data.breach_odds)));
    }
    out.unshift(breachWarning(data, names));
  }
  const shown = out.filter(Boolean);
  return el("div", { class: "explain" }, shown.length ? shown : el("p", { class: "hint" }, "Nothing to weigh: no counter is drawn for this."));
}

/** view.me.draw_odds -> "Odds of the next draw" (each advisor type and a burden). */
export function renderDrawOdds(odds, advisorNames = {}) {
  if (!odds || typeof odds !== "object") return null;
  const flat = {};
  const byType = odds.by_type && typeof odds.by_type === "object" ? odds.by_type : null;
  const source = byType || odds;
  for (const [k, v] of Object.entries(source)) {
    if (typeof v === "number" && v >= 0 && v <= 1 && k !== "cards") flat[advisorNames[k] || humanize(k)] = v;
  }
  if (byType && typeof odds.burden === "number") flat["A burden (a strike, 5.6)"] = odds.burden;
  if (!Object.keys(flat).length) return null;
  const note = [odds.cards !== undefined ? `${odds.cards} cards in the pile` : null,
    odds.reshuffle ? "the discard pile will be reshuffled" : null].filter(Boolean).join("; ");
  return el("div", { class: "draw-odds" }, oddsList(flat, "Odds of the next draw"),
    note ? el("p", { class: "hint" }, note) : null);
}
