// The end screen: the seats ranked by what decides the game (rules 26.2), a table of VP,
// victory level, standing and the tie-break, each column explained in one line with a
// link to its rule, and the solitaire rating said for what it measures. The words come
// from the server (GET /api/games/{id}/result, app/services/results.py); until they
// arrive the engine's ranking is shown as it is.
import { el, fill, ruleLink } from "./dom.js";
import { standinNote, temperamentNote } from "./decide.js";

const cache = new Map(); // game id -> the result table (a finished game's never changes)

async function load(gameId) {
  if (cache.has(gameId)) return cache.get(gameId);
  const response = await fetch(`/api/games/${gameId}/result`, { credentials: "same-origin",
    headers: { Accept: "application/json" } });
  if (!response.ok) throw new Error(`result ${response.status}`);
  const table = await response.json();
  cache.set(gameId, table);
  return table;
}

/** The end screen for `out` (the engine's outcome) in the decision panel. */
export function renderOutcome(out, ctx, state) {
  const node = el("div", { class: "outcome", "aria-live": "polite" });
  const gameId = state.game_id ?? ctx.meta?.game_id;
  const table = cache.get(gameId);
  if (table) return drawTable(node, table, ctx, state);
  drawPlain(node, out, ctx, state);
  if (state.status === "finished" && gameId !== undefined) {
    load(gameId).then((t) => { if (node.isConnected) drawTable(node, t, ctx, state); }).catch(() => {});
  }
  return node;
}

/** The engine's ranking alone (a replay's last step, or before the words arrive). */
function drawPlain(node, out, ctx, state) {
  const ranking = out.ranking || [];
  const scores = out.scores || {};
  return fill(node,
    el("h3", {}, out.winner !== undefined && out.winner !== null ? `${ctx.seatName(out.winner)} wins` : "The game is over"),
    ranking.length ? el("ol", {}, ranking.map((seat) => {
      const sc = scores[seat] ?? scores[String(seat)] ?? {};
      const total = sc.total ?? sc.vp ?? "?";
      return el("li", { "data-seat": String(seat) },
        `${ctx.seatName(seat)} — ${total} VP${sc.standing !== undefined ? `, standing ${sc.standing}` : ""}`,
        standinNote(state.result_notes, seat), temperamentNote(state.result_notes, seat));
    })) : null);
}

function columnHead(col) {
  return el("th", { scope: "col", title: col.text }, col.label);
}

function vpTitle(parts) {
  return Object.entries(parts || {}).map(([k, v]) => `${k} ${v}`).join(" · ");
}

/** A number as the server prints it: a true minus sign, a half point as ½. */
function points(n) {
  const v = Number(n);
  const whole = Math.trunc(v);
  const text = v === whole ? String(Math.abs(whole)) : `${Math.abs(whole) || ""}½`;
  return (v < 0 ? "−" : "") + text;
}

/** The victory level's cell: a level below zero says in words that it is added. */
function levelCell(r, label) {
  const negative = Number(r.level) < 0;
  return el("td", { class: `num level${negative ? " negative" : ""}`, "data-label": label, title: r.level_words },
    points(r.level),
    negative ? el("span", { class: "cell-note" }, `below zero: +${points(-Number(r.level))} VP`) : null);
}

/** The rating cell: the change and the rating after it, or why the seat is unrated. */
function ratingCell(r, label) {
  if (r.rating) {
    const change = r.rating.change;
    return el("td", { class: `num rating ${change > 0 ? "up" : change < 0 ? "down" : ""}`.trim(), "data-label": label,
      title: `Rating ${r.rating.before} before this game, ${r.rating.after} after` },
    change > 0 ? `+${change}` : change < 0 ? `−${-change}` : "±0",
    el("span", { class: "cell-note" }, `${r.rating.before} → ${r.rating.after}`));
  }
  if (r.unrated) {
    return el("td", { class: "rating unrated", "data-label": label, title: r.unrated }, "unrated",
      r.stood_in ? el("span", { class: "cell-note" }, "stand-in seat") : null);
  }
  return el("td", { class: "rating bot", "data-label": label }, "bot");
}

/** Under the power: a stand-in that played most of the seat, and what that did to ratings. */
function stoodInNote(r) {
  if (!r.stood_in) return null;
  const { standin, decisions } = r.stood_in;
  return el("span", { class: "result-standin stood-in" },
    ` A stand-in made ${standin} of its ${decisions} decisions: unrated for ${r.player || "its person"}, a bot's seat in the others' ratings.`);
}

function drawTable(node, t, ctx, state) {
  node.classList.add("result");
  const cols = Object.fromEntries(t.columns.map((c) => [c.key, c]));
  const mine = state.seat;
  const rated = Boolean(cols.rating);
  const rows = t.rows.map((r) => el("tr", { "data-seat": String(r.seat), class: r.seat === mine ? "me" : null },
    el("td", { class: "num place", "data-label": "#" }, String(r.place)),
    el("th", { scope: "row", class: "power" }, r.power, r.player ? el("span", { class: "who" }, ` (${r.player})`) : null,
      r.stood_in ? null : standinNote(state.result_notes, r.seat), temperamentNote(state.result_notes, r.seat),
      stoodInNote(r)),
    el("td", { class: "num vp", title: vpTitle(r.vp_parts), "data-label": cols.vp.label }, String(r.vp)),
    levelCell(r, cols.level.label),
    el("td", { class: "num standing", "data-label": cols.standing.label }, points(r.standing)),
    el("td", { class: `tiebreak${r.tiebreak ? "" : " none"}`, "data-label": cols.tiebreak.label }, r.tiebreak || "—"),
    rated ? ratingCell(r, cols.rating.label) : null,
    el("td", { class: "why hint", "data-label": "Why" }, r.why,
      Number(r.level) < 0 ? el("span", { class: "level-words" }, `: ${r.level_words.replace(/ \(standing [^)]*\)$/, "")}.`) : null)));
  const legend = el("dl", { class: "result-legend" }, t.columns.map((c) => [
    el("dt", {}, c.label), el("dd", {}, c.text, c.rule ? [" ", ruleLink(c.rule)] : null)]));
  const bands = t.solitaire ? t.rows.filter((r) => r.solitaire).map((r) =>
    `${r.power} ${r.gain > 0 ? "+" : ""}${r.gain} VP (${r.solitaire})`) : [];
  return fill(node,
    el("h3", {}, t.rows.length ? `${t.rows[0].power} wins` : "The game is over"),
    el("p", { class: "headline" }, t.headline, " ", ruleLink("26.2")),
    el("table", { class: "result-table" },
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "#"), el("th", { scope: "col" }, "Power"),
        columnHead(cols.vp), columnHead(cols.level), columnHead(cols.standing), columnHead(cols.tiebreak),
        rated ? columnHead(cols.rating) : null,
        el("th", { scope: "col" }, "Why this place"))),
      el("tbody", {}, rows)),
    t.rating_note ? el("p", { class: "rating-note" }, t.rating_note) : null,
    legend,
    bands.length ? el("p", { class: "solitaire hint" }, el("strong", {}, "Growth since the start: "),
      bands.join(" · "), ". ", t.solitaire.text, " ", ruleLink(t.solitaire.rule)) : null);
}
