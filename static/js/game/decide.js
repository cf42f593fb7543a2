// The decision panel and dialogs, driven ONLY by legal_actions: what the engine does not
// offer is not shown. Each decision is a click or a tap; endeavours and taxation show the
// explain breakdown (rating term by term, odds) before the player commits.
import { el, fill, humanize, pct, ruleLink } from "./dom.js";
import { renderExplain, renderDrawOdds } from "./explain.js";
import { GrandDiplomacy } from "./grand.js";
import { breachWarning, diploEffect, helpFor, helpLine, voteMeaning } from "./politics.js";
import { renderOutcome } from "./result.js";

// Results that leave the defender untouched: nothing happens, the attacker's own base
// suffers (-1B), or the plot is exposed (EXP). See RESULT_TEXT in app/engine/rules.py.
const FAILURES = ["none", "-1B", "EXP"];
const WIZARD_ORDER = ["kind", "base", "target"];
// where an endeavour acts: carried from one endeavour to the next (`carriedPlace`)
const PLACE_FIELDS = ["base", "target"];
const SIMPLE_LABELS = {
  draw: "Draw an advisor",
  dismiss: "Dismiss the advisor",
  end_turn: "End my turn",
  decline: "Decline",
  pass: "Pass",
};

/** data-* attributes naming an action's fields (data-kind, data-area, data-talents …). */
function actionData(action) {
  const out = {};
  for (const [k, v] of Object.entries(action)) {
    if (k === "type" || v === null || v === undefined) continue;
    out[k.replace(/_([a-z])/g, (_, c) => c.toUpperCase())] = typeof v === "object" ? JSON.stringify(v) : String(v);
  }
  return out;
}

const key = (a) => JSON.stringify(a, Object.keys(a).sort());

/** The prompt's words, from what is really offered: the engine's generic "Your turn:
 * draw an advisor, tax, recruit or end your turn" is rebuilt so it never names a
 * choice that is not there (no draw once the years are spent). */
export function promptText(prompt, groups) {
  if (!prompt?.label) return "";
  if (!/^Your turn:/.test(prompt.label)) return prompt.label;
  const verbs = [];
  if (groups.draw) verbs.push("draw an advisor");
  if (groups.tax || groups.plunder) verbs.push("tax");
  if (groups.recruit) verbs.push("recruit");
  if (groups.remove_tie) verbs.push("give up a tie");
  if (groups.end_turn) verbs.push("end your turn");
  if (!verbs.length) return "Your turn.";
  const list = verbs.length > 1 ? `${verbs.slice(0, -1).join(", ")} or ${verbs[verbs.length - 1]}` : verbs[0];
  return `Your turn: ${list}.`;
}

/** What a result means to the defender (the engine's words are the attacker's). */
const DEFENDER_TEXT = {
  none: "nothing happens",
  "-1B": "their own base area loses a social level; yours is untouched",
  EXP: "their plot is exposed; yours is untouched",
  C: "your area is conquered (one C result)",
  "-1T": "your area loses a social level",
  "-1T+G": "your area loses a social level and they take plunder",
  G: "they carry off gold",
  U: "your area enters unrest",
  "-1TU": "your area loses a social level, enters unrest and checks for rebellion",
  T: "they gain a tie in your area",
  "T/C": "they gain a tie and take your area by diplomacy",
  X: "your tie is broken",
  $: "your area rises against you",
  M: "your emperor makes a mortality check at +2",
};
const same = (a, b) => key(a) === key(b);

/** The breakdown of a defense, in the defender's words: what it costs and why, their
 * rating after it, and what each result would do to *you*. */
function renderDefense(data, action) {
  const odds = data.odds && typeof data.odds === "object" ? data.odds : {};
  const fail = FAILURES.reduce((sum, code) => sum + (odds[code] || 0), 0);
  const extra = action.talents ?? 0;
  const cost = typeof data.cost === "number" ? data.cost : null;
  return el("div", { class: "defense-explain" },
    cost !== null ? el("p", { class: "explain-line" }, el("strong", {}, "It costs you: "),
      `${cost + extra} talent${cost + extra === 1 ? "" : "s"} — ${cost} to defend at all (1, plus the sea crossings from your court; `,
      ruleLink("13.11"), ")", extra ? ` and ${extra} extra, each lowering their rating by one` : "",
      ", and one of your unused years.") : null,
    typeof data.rating === "number" ? el("p", { class: "explain-line" }, el("strong", {}, "Their rating after your defense: "),
      `${data.rating} (`, ruleLink("13.21"), ").") : null,
    Object.keys(odds).length ? el("p", { class: "explain-line" }, el("strong", {}, "Chance their attack does you no harm: "), pct(fail)) : null,
    Object.keys(odds).length ? el("ul", { class: "odds defender-odds", "aria-label": "What could happen to you" },
      Object.entries(odds).sort((a, b) => b[1] - a[1]).map(([code, p]) =>
        el("li", {}, el("span", { class: "odds-pct" }, pct(p)), " ", DEFENDER_TEXT[code] || `their result: ${(data.results || {})[code] || code}`))) : null);
}

/** Results whose odds differ by less than this read the same ("100%"). */
const SAME_ODDS = 0.0005;

function sameOdds(a, b) {
  const codes = new Set([...Object.keys(a || {}), ...Object.keys(b || {})]);
  return [...codes].every((c) => Math.abs((a?.[c] || 0) - (b?.[c] || 0)) < SAME_ODDS);
}

/** Hide the defense amounts that change nothing (issue 26: five buttons that all said
 * "100% chance you are unharmed"), and say why they are gone. */
function hideUseless(dialog, loaded) {
  const all = loaded.filter((x) => x && x.odds).sort((a, b) => a.talents - b.talents);
  let kept = null;
  let stand = null;  // the amount a hidden one would have bought nothing over
  let safe = null;  // the cheapest amount that makes you safe, if any was hidden past it
  for (const x of all) {
    const sure = kept && kept.fail !== null && kept.fail >= 1 - SAME_ODDS;
    if (kept && (sure || sameOdds(kept.odds, x.odds))) {
      const b = dialog.querySelector(`button[data-action="defend"][data-talents="${x.talents}"]`);
      if (b) { b.hidden = true; stand = stand || kept; if (sure) safe = kept; }
      continue;
    }
    kept = x;
  }
  const group = dialog.querySelector(".choice-group");
  if (!stand || !group || dialog.querySelector(".hint.sure")) return;
  const n = (safe || stand).talents;
  const amount = n ? `adding ${n} talent${n === 1 ? "" : "s"}` : "with no talents added";
  group.after(el("p", { class: "hint sure", "data-sure": String(n) },
    safe ? `Defending ${amount}, their attack cannot harm you: more talents would be wasted, so they are not offered.`
      : "Amounts that would not change the odds are not offered."));
}

/** Buttons that offer the same action with the same words keep their DOM node across a
 * redraw, so a redraw (a bot's move arriving) never swaps a button out from under the
 * pointer between press and release. */
function keepButtons(root, fresh) {
  const old = new Map();
  for (const b of root.querySelectorAll("button[data-key]")) old.set(`${b.dataset.key}|${b.textContent}`, b);
  for (const part of fresh) {
    if (!part) continue;
    for (const b of part.querySelectorAll("button[data-key]")) {
      const keep = old.get(`${b.dataset.key}|${b.textContent}`);
      if (keep && keep !== b && !keep.disabled && !b.disabled) b.replaceWith(keep);
    }
  }
}

/** "played by a bot for 14 decisions" — the result never hides a stand-in. */
export function standinNote(notes, seat) {
  const out = notes || {};
  const n = Number((out.standin || {})[seat] ?? (out.standin || {})[String(seat)] ?? 0);
  const d = Number((out.defaulted || {})[seat] ?? (out.defaulted || {})[String(seat)] ?? 0);
  const parts = [];
  if (n) parts.push(`played by a bot for ${n} decision${n === 1 ? "" : "s"}`);
  if (d) parts.push(`${d} decision${d === 1 ? "" : "s"} defaulted at a deadline`);
  return parts.length ? el("span", { class: "result-standin" }, ` (${parts.join("; ")})`) : null;
}

/** A bot seat's temperament, told once the game is over (result_notes.temperaments). */
export function temperamentNote(notes, seat) {
  const t = ((notes || {}).temperaments || {})[String(seat)];
  return t ? el("span", { class: "result-temperament" }, ` (temperament: ${t})`) : null;
}

export class Decisions {
  /**
   * @param {HTMLElement} root    the decision panel body
   * @param {HTMLDialogElement} dialog  the modal used for interrupts and votes
   * @param {object} ctx  {api, map, meta, send(action) -> Promise, names: {...}}
   */
  constructor(root, dialog, ctx) {
    this.root = root;
    this.dialog = dialog;
    this.ctx = ctx;
    this.signature = "";
    this.sel = {};
    this.explainKey = "";
    this.busy = false;
    this.grand = new GrandDiplomacy(ctx);
  }

  render(state) {
    this.state = state;
    const legal = state.legal_actions || [];
    const signature = JSON.stringify(legal);
    const changed = signature !== this.signature;
    const moved = state.version !== this.version;
    this.signature = signature;
    this.version = state.version;
    const groups = {};
    for (const a of legal) (groups[a.type] ||= []).push(a);
    this.groups = groups;
    if (changed) {
      this.sel = this.restoreSelection(signature);
      if (!Object.keys(this.sel).length) this.sel = this.carriedPlace(groups.endeavour || []);
      this.explainKey = "";
    }

    if (groups.defend || (groups.decline && state.view?.interrupt && !groups.endeavour)) {
      this.ctx.map.setPick(null);
      this.showDefense(groups.defend || [], groups.decline || []);
      fill(this.root, el("p", { class: "hint" }, "Your area is attacked: answer in the dialog."),
        el("button", { type: "button", class: "btn", onclick: () => this.showDefense(groups.defend || [], groups.decline || [], true) }, "Open the defense dialog"));
      return;
    }
    if (groups.vote) {
      this.ctx.map.setPick(null);
      this.showVote(groups.vote);
      fill(this.root, el("p", { class: "hint" }, "A parley is under way: cast your vote in the dialog."),
        el("button", { type: "button", class: "btn", onclick: () => this.showVote(groups.vote, true) }, "Open the vote"));
      return;
    }
    this.closeDialog();
    if (!legal.length) {
      this.ctx.map.setPick(null);
      const latest = this.ctx.recent ? this.ctx.recent(4) : [];
      fill(this.root, state.outcome ? this.outcome(state.outcome) : el("p", { class: "hint idle" }, this.waitingText()),
        latest.length ? el("div", { class: "latest" }, el("h3", {}, "Latest"), el("ol", { class: "log" }, latest)) : null);
      return;
    }
    if (!changed && !moved && this.root.childNodes.length && !this.dirty) return;
    this.dirty = false;
    const left = [];
    const sections = [];
    const prompt = (state.prompts || []).find((p) => p.seat === state.seat);
    const justNow = this.ctx.recent ? this.ctx.recent(2) : [];
    if (justNow.length) left.push(el("ol", { class: "log just-now", "aria-label": "Just now" }, justNow));
    const label = promptText(prompt, groups);
    if (label) left.push(el("p", { class: "prompt-label" }, label));
    left.push(this.hand());
    left.push(this.simpleButtons(legal));
    if (groups.endeavour) sections.push(this.wizard(groups.endeavour));
    if (groups.tax || groups.plunder) sections.push(this.taxation(groups.tax || [], groups.plunder || []));
    if (groups.recruit) sections.push(this.recruiting(groups.recruit));
    if (groups.waive_tie) sections.push(this.waiveTie(groups.waive_tie));
    if (groups.call_parley) sections.push(this.parleys(groups.call_parley));
    if (groups.remove_tie) sections.push(this.removeTies(groups.remove_tie));
    if (groups.diplo) sections.push(this.diplomacy(groups.diplo));
    sections.push(this.grand.section(state, groups)); // 20: offers, verdicts, readmission
    if (groups.choose_slot) sections.push(this.initiative(groups.choose_slot));
    const known = new Set(["call_parley", "remove_tie", "choose_slot", "draw", "petition", "dismiss", "end_turn", "decline", "pass", "endeavour", "tax", "plunder", "recruit", "waive_tie", "diplo", "defend", "vote",
      "offer", "cancel", "answer_offer", "verdict", "renounce", "readmission"]);
    const others = legal.filter((a) => !known.has(a.type));
    if (others.length) {
      sections.push(el("section", { class: "others" }, el("h3", {}, "Other choices"),
        el("div", { class: "choice-group" }, others.map((a) => this.otherChoice(a)))));
    }
    const rightItems = sections.filter(Boolean);
    // keyboard users keep their place: if the focus was in the panel, it stays in the panel
    const hadFocus = this.root.contains(document.activeElement) || document.activeElement === document.body;
    const focusField = document.activeElement?.dataset?.field;
    const fresh = [el("div", { class: "decide-left" }, left),
      rightItems.length ? el("div", { class: "decide-right" }, rightItems) : null];
    keepButtons(this.root, fresh);
    fill(this.root, fresh);
    if (hadFocus && this.focusedOnce) {
      let next = null;
      // the next step that asks something, else the commit button, else the first choice
      for (let step = focusField ? this.root.querySelector(`[data-field="${focusField}"]`)?.closest(".step")?.nextElementSibling : null;
        step && !next; step = step.nextElementSibling) {
        next = step.querySelector("button, select");
      }
      next = next || this.root.querySelector(".commit button.primary") || this.root.querySelector("button, select");
      if (next) next.focus({ preventScroll: true });
    }
    this.focusedOnce = true;
  }

  /** The end screen (result.js): the ranking explained, column by column. */
  outcome(out) {
    return renderOutcome(out, this.ctx, this.state);
  }

  waitingText() {
    const prompts = this.state.prompts || [];
    if (this.state.status && this.state.status !== "running" && this.state.status !== "active") {
      return this.state.view?.over ? "The game is over." : `The game is ${this.state.status}.`;
    }
    if (!prompts.length) return "Nothing to decide right now.";
    const it = this.state.view?.interrupt;
    if (it && it.attacker === this.state.seat) {
      return `Your ${humanize(it.kind || "endeavour").toLowerCase()} against ${this.ctx.map.areaName(it.target)} waits for ${this.ctx.seatName(it.defender)} to defend or decline.`;
    }
    const names = prompts.map((p) => this.ctx.seatName(p.seat));
    return `Waiting for ${[...new Set(names)].join(", ")}.`;
  }

  hand() {
    const me = this.state.view?.me;
    if (!me || !me.hand) return null;
    const hand = Array.isArray(me.hand) ? me.hand : [me.hand];
    if (!hand.length) return null;
    return el("div", { class: "hand", "aria-label": "The advisor you drew" },
      hand.map((card) => this.ctx.cardFace(card)));
  }

  /** A button of "Other choices"; a holding card that would take a partner's area
   * says first which agreement it breaks (20.13, 20.43). */
  otherChoice(a) {
    const btn = this.button(a, this.describe(a));
    if (a.type !== "play" || !a.target) return btn;
    const warning = el("span", { class: "diplo-breach" });
    this.cachedExplain(a).then((data) => {
      const w = breachWarning(data, { ...this.ctx, seat: this.state.seat });
      if (w) { warning.replaceChildren(w); btn.classList.add("breaks-agreement"); }
    }).catch(() => {});
    return el("div", { class: "diplo-option" }, btn, warning);
  }

  describe(a) {
    if (SIMPLE_LABELS[a.type]) return SIMPLE_LABELS[a.type];
    const me = this.state.view?.me || {};
    if (a.type === "choose_slot") return `Take place ${Number(a.slot) + 1} in the order of play`;
    if (a.type === "play") {
      const card = [...(me.holdings || []), ...(me.deck_list || [])].find((c) => c && c.id === a.card);
      const spot = a.target || a.area;
      const where = spot ? ` on ${this.ctx.map.areaName(spot)}` : "";
      const against = a.power ? ` against ${this.ctx.powerName(a.power)}` : "";
      return `Play ${card ? this.ctx.cardName(card) : humanize(a.card)}${where}${against}`;
    }
    if (a.type === "call_parley") return `Call a parley over ${this.ctx.map.areaName(a.area)}`;
    if (a.type === "reduce_fort") return `Slight the fortifications of ${this.ctx.map.areaName(a.area)}`;
    if (a.type === "remove_tie") return `Remove your tie in ${this.ctx.map.areaName(a.area)}`;
    if (a.type === "accept_peace" || a.type === "reject_peace") return humanize(a.type);
    const rest = Object.entries(a).filter(([k]) => k !== "type")
      .map(([k, v]) => `${humanize(k)}: ${this.ctx.valueName(k, v)}`).join(", ");
    return `${humanize(a.type)}${rest ? ` (${rest})` : ""}`;
  }

  button(action, label, extra = {}) {
    return el("button", {
      type: "button", class: `btn act act-${action.type} ${extra.class || ""}`,
      "data-action": action.type, "data-key": key(action), dataset: actionData(action), onclick: () => this.send(action), ...extra.attrs,
    }, label);
  }

  simpleButtons(legal) {
    const me = this.state.view?.me || {};
    const items = [];
    for (const a of legal) {
      if (a.type === "petition") {
        const cost = me.petition_cost;
        items.push(el("div", { class: "petition" },
          this.button(a, `Petition${cost !== undefined ? ` (${cost} influence)` : ""}`, { class: "primary" }),
          null));
      } else if (SIMPLE_LABELS[a.type]) {
        items.push(this.button(a, SIMPLE_LABELS[a.type], { class: a.type === "draw" ? "primary" : "" }));
      }
    }
    const hand = me.hand ? (Array.isArray(me.hand) ? me.hand : [me.hand]) : [];
    if (!legal.some((a) => a.type === "petition") && hand.length && legal.some((a) => a.type === "dismiss")) {
      const mine = (this.state.view?.players || [])[this.state.seat] || {};
      const cost = me.petition_cost;
      const why = typeof cost === "number" && typeof mine.influence === "number" && mine.influence < cost
        ? `A petition costs ${cost} influence and you have ${mine.influence}`
        : "You cannot petition now";
      items.push(el("div", { class: "petition" },
        el("button", { type: "button", class: "btn", disabled: true, "data-action": "petition", "aria-describedby": "petition-why" },
          `Petition${cost !== undefined ? ` (${cost} influence)` : ""}`),
        el("span", { class: "why-not", id: "petition-why" }, `${why} (`, ruleLink("5.5"), ").")));
    }
    if (!items.length) return null;
    const showOdds = legal.some((a) => a.type === "draw" || a.type === "petition");
    const petition = legal.find((a) => a.type === "petition");
    let bust = null;
    if (petition) {
      bust = el("div", { class: "petition-odds", "aria-live": "polite" });
      this.cachedExplain(petition).then((data) => {
        if (typeof data?.bust_odds === "number") {
          fill(bust, el("p", { class: "explain-line" }, el("strong", {}, "If you petition: "),
            `${pct(data.bust_odds)} that the petition fails`,
            strikeCause(data.strike_types, this.ctx.meta.advisorNames || {}), "."));
        }
      }).catch(() => {});
    }
    return el("div", { class: "choice-group simple" }, items, bust,
      showOdds ? renderDrawOdds(me.draw_odds, this.ctx.meta.advisorNames || {}) : null);
  }

  // ---- endeavour: kind -> base -> target -> talents, then the breakdown, then commit ----
  wizard(actions) {
    const box = el("section", { class: "wizard", "aria-label": "Choose an endeavour" },
      el("h3", {}, "Act with your advisor"));
    const place = this.sel.target ?? this.sel.base;
    if (place !== undefined && this.sel.kind === undefined && this.place && PLACE_FIELDS.some((f) => this.sel[f] === this.place[f])) {
      box.appendChild(el("p", { class: "hint carried", "data-area": String(place) },
        `You act again where you acted last, ${this.ctx.map.areaName(place)}: choose the endeavour (its steps let you change the area).`));
    }
    let candidates = actions;
    const fields = [...WIZARD_ORDER];
    for (const a of actions) for (const k of Object.keys(a)) {
      if (k !== "type" && k !== "talents" && !fields.includes(k)) fields.push(k);
    }
    fields.push("talents");
    this.fieldOrder = fields;
    let pickSet = null;
    for (const field of fields) {
      const values = [...new Map(candidates.filter((a) => field in a).map((a) => [JSON.stringify(a[field]), a[field]])).values()];
      if (!values.length) continue;
      const chosen = this.sel[field];
      const has = chosen !== undefined && values.some((v) => JSON.stringify(v) === JSON.stringify(chosen));
      if (!has && values.length === 1) this.sel[field] = values[0];
      const current = this.sel[field];
      const done = current !== undefined && values.some((v) => JSON.stringify(v) === JSON.stringify(current));
      const stepNode = this.step(field, values, done ? current : undefined);
      box.appendChild(stepNode);
      if (field === "talents" && candidates.length <= 16) {
        // each amount shows the rating it buys (the breakdown follows the choice)
        const sorted = [...candidates].sort((x, y) => x.talents - y.talents);
        const loads = sorted.map((a) => {
          const chip = stepNode.querySelector(`button[data-value="${a.talents}"]`);
          return this.cachedExplain(a).then((data) => {
            if (chip && typeof data?.rating === "number") chip.appendChild(el("span", { class: "chip-odds" }, ` → ${data.rating}`));
            return data;
          }).catch(() => null);
        });
        // Talents past the amount that already makes one result certain buy nothing:
        // they are not offered (the engine would take them, but no one should pay them).
        Promise.all(loads).then((all) => {
          const sure = all.findIndex((d) => d && d.odds && Object.values(d.odds).some((p) => p >= 1));
          if (sure < 0) return;
          const at = JSON.stringify(all[sure].odds);
          let hidden = 0;
          sorted.forEach((a, i) => {
            if (i <= sure || !all[i] || JSON.stringify(all[i].odds) !== at) return;
            const chip = stepNode.querySelector(`button[data-value="${a.talents}"]`);
            if (chip && !chip.classList.contains("on")) { chip.hidden = true; hidden += 1; }
          });
          if (hidden) {
            stepNode.appendChild(el("span", { class: "hint sure", "data-sure": String(sorted[sure].talents) },
              `With ${sorted[sure].talents} talent${sorted[sure].talents === 1 ? "" : "s"} the result is already certain: more would be wasted.`));
          }
        });
      }
      if (!done) {
        if (this.isAreaList(values)) pickSet = { field, ids: values };
        break;
      }
      candidates = candidates.filter((a) => JSON.stringify(a[field]) === JSON.stringify(current));
    }
    this.ctx.map.setPick(pickSet ? pickSet.ids : null, (id) => { this.sel[pickSet.field] = id; this.rerender(); });
    const full = candidates.length === 1 && fields.every((f) => !(f in candidates[0]) || this.sel[f] !== undefined);
    if (full) {
      const action = candidates[0];
      const explainBox = el("div", { class: "explain-box", "aria-live": "polite" }, el("p", { class: "hint" }, "Working out the odds…"));
      box.appendChild(explainBox);
      box.appendChild(el("div", { class: "commit" },
        this.button(action, `Commit: ${humanize(action.kind || "endeavour")}${action.talents !== undefined ? ` with ${action.talents} talent${action.talents === 1 ? "" : "s"}` : ""}`, { class: "primary" }),
        el("button", { type: "button", class: "btn ghost", onclick: () => { this.sel = {}; this.rerender(); } }, "Start over")));
      this.loadExplain(action, explainBox);
    }
    return box;
  }

  isAreaList(values) {
    return values.every((v) => typeof v === "string" && (this.ctx.meta.areas?.[v] || this.ctx.map.areaPaths?.has(v)));
  }

  step(field, values, chosen) {
    const label = { kind: "Endeavour", base: "From (base)", target: "Target", talents: "Talents (→ rating)" }[field] || humanize(field);
    const group = el("div", { class: `step step-${field}`, role: "group", "aria-label": label },
      el("span", { class: "step-label" }, label));
    if (chosen !== undefined && values.length === 1) {
      group.appendChild(el("span", { class: "chosen" }, this.ctx.valueName(field, chosen)));
      return group;
    }
    const sorted = field === "talents" ? [...values].sort((a, b) => a - b) : values;
    const choose = (v) => {
      // a new choice at this step clears the later steps, except the place (base and
      // target), which the wizard keeps while it still fits
      const order = this.fieldOrder || [];
      for (const later of order.slice(order.indexOf(field) + 1)) {
        if (!PLACE_FIELDS.includes(later)) delete this.sel[later];
      }
      this.sel[field] = v;
      this.rerender();
    };
    if (sorted.length > 12 && field !== "talents") {
      // a long list (e.g. every area a diplomat can reach): a list box, sorted by name
      const named = sorted.map((v) => [v, this.ctx.valueName(field, v)]).sort((a, b) => a[1].localeCompare(b[1]));
      // the value someone suggests (the tutorial's coach) comes first, marked as such
      const tip = this.suggested && field in this.suggested ? JSON.stringify(this.suggested[field]) : null;
      const at = tip === null ? -1 : named.findIndex(([v]) => JSON.stringify(v) === tip);
      if (at >= 0) named.unshift([named[at][0], `${named.splice(at, 1)[0][1]} (suggested)`]);
      const select = el("select", { class: "step-select", "data-field": field, "aria-label": label,
        onchange: (e) => { const hit = named.find(([v]) => JSON.stringify(v) === e.target.value); if (hit) choose(hit[0]); } },
        el("option", { value: "" }, `Choose (${named.length})…`),
        named.map(([v, name]) => el("option", { value: JSON.stringify(v), selected: chosen !== undefined && JSON.stringify(v) === JSON.stringify(chosen) }, name)));
      group.appendChild(select);
      return group;
    }
    for (const v of sorted) {
      const isOn = chosen !== undefined && JSON.stringify(v) === JSON.stringify(chosen);
      group.appendChild(el("button", {
        type: "button", class: `chip${isOn ? " on" : ""}`, "aria-pressed": isOn ? "true" : "false",
        "data-field": field, "data-value": typeof v === "string" ? v : JSON.stringify(v),
        onclick: () => choose(v),
      }, this.ctx.valueName(field, v)));
    }
    return group;
  }

  /** explain, remembered until the legal actions change. */
  cachedExplain(action) {
    const sig = `${this.signature}@${this.version}`; // the odds move with the counter pool
    if (this.explainCacheSig !== sig) {
      this.explainCache = new Map();
      this.explainCacheSig = sig;
    }
    const k = key(action);
    if (this.positionSpent()) return Promise.reject(new Error("the position has changed"));
    if (!this.explainCache.has(k)) this.explainCache.set(k, this.ctx.api.explain(action));
    return this.explainCache.get(k);
  }

  /** A pointer passing over an option asks for its breakdown only if it stays a moment,
   * so a click does not race a breakdown of the position it is about to change. */
  hoverExplain(action, box) {
    clearTimeout(this.hoverTimer);
    const version = this.version;
    this.hoverTimer = setTimeout(() => {
      if (this.version === version) this.loadExplain(action, box);
    }, 150);
  }

  /** True while the shown position may already be gone: an action is on its way, or was
   * accepted and its new state has not arrived. The server would refuse a breakdown. */
  positionSpent() {
    return (this.busy && this.sentFrom === this.version) || this.spentVersion === this.version;
  }

  async loadExplain(action, box) {
    if (this.positionSpent()) return;
    const k = key(action);
    this.explainKey = k;
    try {
      const data = await this.cachedExplain(action);
      if (this.explainKey !== k) return;
      const empty = data && Array.isArray(data.terms) && !data.terms.length && !Object.keys(data.odds || {}).length
        && !data.draw_odds && data.rating === undefined;
      if (action.type === "defend" && !empty) {
        fill(box, renderDefense(data, action));
        return;
      }
      if (empty && action.type === "defend") {
        fill(box, el("p", { class: "hint" }, `Your defense subtracts your emperor's Military stature from their rating, and one more for each talent you add (`,
          ruleLink("13.21"), ")."));
        return;
      }
      fill(box, renderExplain(data, this.ctx.meta.advisorNames || {}));
      const commit = box.parentElement?.querySelector(".commit") || box;
      if (commit.scrollIntoView) commit.scrollIntoView({ block: "nearest" });
    } catch (err) {
      if (this.explainKey !== k) return;
      fill(box, el("p", { class: "hint" }, `No breakdown available: ${err.message}`));
    }
  }

  /** A half-built choice survives a reload: kept per game in the tab's session storage,
   * and restored only for the very same set of legal actions. */
  storageKey() { return `ig-choice-${this.ctx.meta.game_id}`; }

  saveSelection() {
    try {
      sessionStorage.setItem(this.storageKey(), JSON.stringify({ sig: this.signature, sel: this.sel }));
    } catch { /* storage may be off: the choice is then only kept on this page */ }
  }

  /** The place (base and target) of my last endeavour, when an endeavour open now has
   * it: the next endeavour starts there, so acting again on the same area is the kind
   * and the talents, not two more picks on the map. */
  carriedPlace(endeavours) {
    let place = this.place;
    if (!place) {
      try { place = JSON.parse(sessionStorage.getItem(this.placeKey()) || "null"); } catch { place = null; }
    }
    if (!place || typeof place !== "object") return {};
    const fits = endeavours.some((a) => PLACE_FIELDS.every((f) => !(f in a) || a[f] === place[f]));
    if (!fits) return {};
    const carried = {};
    for (const f of PLACE_FIELDS) if (place[f] !== undefined) carried[f] = place[f];
    return carried;
  }

  rememberPlace(action) {
    this.place = Object.fromEntries(PLACE_FIELDS.filter((f) => f in action).map((f) => [f, action[f]]));
    try { sessionStorage.setItem(this.placeKey(), JSON.stringify(this.place)); } catch { /* kept on this page only */ }
  }

  placeKey() { return `ig-place-${this.ctx.meta.game_id}`; }

  restoreSelection(signature) {
    try {
      const saved = JSON.parse(sessionStorage.getItem(this.storageKey()) || "null");
      if (saved && saved.sig === signature && saved.sel && typeof saved.sel === "object") return saved.sel;
    } catch { /* unreadable: start afresh */ }
    return {};
  }

  rerender() {
    this.saveSelection();
    this.dirty = true;
    this.render(this.state);
  }

  // ---- taxation (16): area by area, rebellion odds before the click ----
  taxation(taxes, plunders) {
    const box = el("section", { class: "taxation", "aria-label": "Taxation" },
      el("h3", {}, "Taxation"), el("p", { class: "hint" }, "Choose an area, then how much to raise. The odds of rebellion show before you commit."));
    // The court is taxed without a check (16.17): raising all it yields risks nothing, so
    // it is one click, not three.
    const court = ((this.state.view?.players || [])[this.state.seat] || {}).court;
    const full = taxes.filter((a) => a.area === court).reduce((best, a) => (!best || a.amount > best.amount ? a : best), null);
    if (full) {
      box.appendChild(el("div", { class: "court-tax" }, this.button(full,
        `Tax the court, ${this.ctx.map.areaName(court)}, for ${full.amount} — no check`, { class: "primary", attrs: {
          "data-court-tax": String(full.amount),
          title: "Your taxes this turn are one segment: tax the other areas before you do anything else (16.14).",
        } })));
    }
    const byArea = new Map();
    for (const a of [...taxes, ...plunders]) {
      if (!byArea.has(a.area)) byArea.set(a.area, []);
      byArea.get(a.area).push(a);
    }
    const list = el("div", { class: "tax-areas" });
    for (const [area, acts] of byArea) {
      const on = this.sel.taxArea === area;
      list.appendChild(el("button", { type: "button", class: `chip${on ? " on" : ""}`, "aria-pressed": on ? "true" : "false",
        "data-area": area, onclick: () => { this.sel.taxArea = area; delete this.sel.taxAction; this.rerender(); } },
        this.ctx.map.areaName(area)));
      void acts;
    }
    box.appendChild(list);
    this.ctx.map.setPick([...byArea.keys()], (id) => { this.sel.taxArea = id; delete this.sel.taxAction; this.rerender(); });
    const area = this.sel.taxArea;
    if (area && byArea.has(area)) {
      const acts = byArea.get(area);
      const opts = el("div", { class: "step", role: "group", "aria-label": `Options for ${this.ctx.map.areaName(area)}` });
      for (const a of acts) {
        const on = this.sel.taxAction && same(this.sel.taxAction, a);
        const label = a.type === "plunder" ? "Plunder" : `Tax ${a.amount}`;
        const risk = el("span", { class: "chip-odds" });
        opts.appendChild(el("button", { type: "button", class: `chip${on ? " on" : ""}`, "aria-pressed": on ? "true" : "false",
          "data-tax": a.type === "plunder" ? "plunder" : String(a.amount),
          onclick: () => { this.sel.taxAction = a; this.rerender(); } }, label, risk));
        // every amount shows its odds of rebellion at once (16, 17.3)
        this.cachedExplain(a).then((data) => {
          const odds = data?.odds || {};
          if (typeof odds.rebellion === "number") {
            risk.textContent = data.check ? ` · ${pct(odds.rebellion)} rebellion` : " · no check";
          }
        }).catch(() => {});
      }
      box.appendChild(opts);
      if (this.sel.taxAction) {
        const a = this.sel.taxAction;
        const explainBox = el("div", { class: "explain-box", "aria-live": "polite" }, el("p", { class: "hint" }, "Working out the odds…"));
        box.appendChild(explainBox);
        box.appendChild(el("div", { class: "commit" }, this.button(a,
          a.type === "plunder" ? `Plunder ${this.ctx.map.areaName(a.area)}` : `Raise ${a.amount} from ${this.ctx.map.areaName(a.area)}`, { class: "primary" })));
        this.loadExplain(a, explainBox);
      }
    }
    return box;
  }

  recruiting(actions) {
    const row = this.state.view?.market?.row || [];
    const box = el("section", { class: "recruiting", "aria-label": "Recruit from the Court" }, el("h3", {}, "Recruit from the Court"));
    for (const a of actions) {
      const slot = row[a.slot] || {};
      const name = this.ctx.cardName(slot.card);
      const price = el("span", { class: "price" }, "");
      const btn = this.button(a, [`Recruit ${name} — `, price]);
      const base = this.ctx.notable(slot.card)?.cost;
      price.textContent = `${base !== undefined ? Number(base) + Number(a.slot) : "?"} ${a.pay}`;
      const effect = el("span", { class: "recruit-effect", "data-slot": String(a.slot), "data-pay": a.pay });
      this.cachedExplain(a).then((data) => {
        if (typeof data?.price !== "number") return;
        price.textContent = `${data.price} ${a.pay}${data.coins ? ` (you take the ${data.coins} talent${data.coins === 1 ? "" : "s"} lying on it)` : ""}`;
        effect.textContent = this.recruitEffect(data, a);
      }).catch(() => {});
      box.appendChild(btn);
      box.appendChild(effect);
    }
    box.appendChild(helpLine({ type: "recruit" }));
    box.appendChild(el("p", { class: "hint" }, "The price is the notable's cost plus one for each card before it in the row (",
      ruleLink("6.5"), ", ", ruleLink("6.6"), ")."));
    return box;
  }

  /** What a recruit buys, from explain: the advisor it acts as, the rating it starts
   * from, the share of that type in the deck, what is left to pay with (6.3-6.6). */
  recruitEffect(data, action) {
    const advisor = this.ctx.meta.advisorNames?.[data.acts_as] || humanize(data.acts_as);
    const me = (this.state.view?.players || [])[this.state.seat] || {};
    const left = typeof me[action.pay] === "number" ? me[action.pay] - data.price + (action.pay === "talents" ? (data.coins || 0) : 0) : null;
    const share = data.deck_share ? `; ${advisor}s in your deck ${pct(data.deck_share.before)} → ${pct(data.deck_share.after)}` : "";
    const stat = data.acts_as ? humanize(data.acts_as) : "";
    return `Acts as a ${advisor}: rating from ${data.rating_base} (${stat} ${data.stature} + bonus ${data.bonus})${share}`
      + (left !== null ? `; ${left} ${action.pay} left` : "") + ".";
  }

  parleys(actions) {
    return el("section", { class: "parleys", "aria-label": "Call a parley" }, el("h3", {}, "Call a claim parley"),
      el("p", { class: "hint" }, "A rival claims an area of yours where you have a tie: a parley lets everyone vote, each with "
        + "their emperor's Diplomacy; yes at least equal to no gives you a claim too (", ruleLink("18.32"), ", ", ruleLink("20.42"), ")."),
      helpLine(actions[0]),
      actions.map((a) => {
        const weights = el("span", { class: "diplo-effect parley-weights", "data-area": a.area });
        this.cachedExplain(a).then((data) => {
          if (!data?.weights) return;
          const list = Object.entries(data.weights).map(([s, w]) => `${this.ctx.powerNameOf(Number(s))} ${w}`).join(", ");
          const out = (this.state.view?.players || []).map((p, s) => (p.accursed ? this.ctx.powerNameOf(s) : null)).filter(Boolean);
          weights.textContent = `Votes: ${list} (yours ${data.mine} of ${data.total})${out.length ? `; ${out.join(", ")} accursed, no vote` : ""}.`;
        }).catch(() => {});
        return el("div", { class: "diplo-option" }, this.button(a, this.describe(a)), weights);
      }));
  }

  removeTies(actions) {
    // folded: a rare choice should not crowd the usual ones
    return el("details", { class: "remove-ties", "aria-label": "Give up a tie" }, el("summary", {}, "Give up a tie (rarely wise)"),
      el("p", { class: "hint" }, "A tie is a bond with an area's people. Your tie to your own area lowers its rebellion value by 2; "
        + "a tie in a rival's area is the first step to claiming it. You may give one up at any time in your turn, for good (",
      ruleLink("12.42"), ", ", ruleLink("12.43"), ")."),
      el("div", { class: "choice-group" }, actions.map((a) => this.button(a, this.describe(a)))));
  }

  waiveTie(actions) {
    return el("section", { class: "waive" }, el("h3", {}, "Ties before a rebellion check"),
      actions.map((a) => this.button(a, `${a.waive ? "Waive" : "Keep"} the tie in ${this.ctx.map.areaName(a.area)}`)));
  }

  initiative(actions) {
    const ini = this.state.view?.initiative || {};
    const rolls = Object.entries(ini.rolls || {}).map(([seat, r]) => `${this.ctx.seatName(Number(seat))} ${r}`).join(", ");
    const slots = (ini.slots || []).map((s, i) => (s === null || s === undefined ? null : `${i + 1}. ${this.ctx.seatName(s)}`)).filter(Boolean);
    return el("section", { class: "initiative" }, el("h3", {}, "Initiative"),
      rolls ? el("p", { class: "hint" }, `Initiative ratings: ${rolls}. The highest picks first.`) : null,
      slots.length ? el("p", { class: "hint" }, `Taken: ${slots.join("; ")}`) : null,
      el("div", { class: "choice-group" }, actions.map((a) => this.button(a, this.describe(a)))));
  }

  diplomacy(actions) {
    // grouped by move: each move said in a line with its rule, then one button per power,
    // each with what it would do, from the engine's explain (3, 21)
    const ctx = { ...this.ctx, seat: this.state.seat };
    const byMove = new Map();
    for (const a of actions) {
      if (!byMove.has(a.move)) byMove.set(a.move, []);
      byMove.get(a.move).push(a);
    }
    const groups = [...byMove].map(([move, acts]) => {
      const helpId = `diplo-help-${move}`;
      const line = helpLine(acts[0], { id: helpId });
      return el("div", { class: "diplo-move", "data-move": move },
        line,
        el("div", { class: "choice-group" }, acts.map((a) => {
          const effect = el("span", { class: "diplo-effect", "aria-live": "polite" });
          const h = helpFor(a);
          const btn = this.button(a, a.power ? `${humanize(a.move)}: ${this.ctx.powerName(a.power)}` : humanize(a.move),
            { attrs: { title: h ? `${h[0]} (${h[1]})` : null, "aria-describedby": line ? helpId : null } });
          const warning = el("span", { class: "diplo-breach" });
          this.cachedExplain(a).then((data) => {
            const text = diploEffect(data, ctx);
            if (text) effect.textContent = `→ ${text}`;
            const w = breachWarning(data, ctx); // 20.3: what it breaks, before you commit
            if (w) { warning.replaceChildren(w); btn.classList.add("breaks-agreement"); }
          }).catch(() => {});
          return el("div", { class: "diplo-option" }, btn, effect, warning);
        })));
    });
    return el("section", { class: "diplomacy" }, el("h3", {}, "Diplomacy"), groups);
  }

  // ---- dialogs: defense interrupt (13) and parley vote (20.4) ----
  openDialog(kind, title, body, force) {
    if (this.dialog.open && this.dialog.dataset.kind === kind && this.dialog.dataset.sig === this.signature && !force) return;
    this.dialog.dataset.kind = kind;
    this.dialog.dataset.sig = this.signature;
    fill(this.dialog, el("h2", { id: "dialog-title" }, title), body);
    this.dialog.setAttribute("aria-labelledby", "dialog-title");
    if (!this.dialog.open) {
      if (this.dialog.showModal) this.dialog.showModal(); else this.dialog.setAttribute("open", "");
    }
    const first = this.dialog.querySelector("button");
    if (first) first.focus();
  }

  closeDialog() {
    if (this.dialog.open) this.dialog.close();
  }

  myPrompt(kind) {
    return (this.state.prompts || []).find((p) => p.seat === this.state.seat && (!kind || p.kind === kind));
  }

  showDefense(defends, declines, force = false) {
    const it = this.state.view?.interrupt || {};
    const prompt = this.myPrompt("defend") || {};
    const attacker = it.horde_name ? `The ${it.horde_name}`
      : (it.attacker !== undefined && it.attacker !== null ? this.ctx.seatName(it.attacker) : "A rival");
    const area = this.ctx.map.areaName(it.target || it.area || prompt.area || "");
    const what = humanize(it.kind || it.endeavour || prompt.endeavour || "an endeavour");
    const explainBox = el("div", { class: "explain-box", "aria-live": "polite" },
      el("p", { class: "hint" }, "Point at a choice to see the odds."));
    const talents = [...defends].sort((a, b) => (a.talents ?? 0) - (b.talents ?? 0));
    const loads = [];
    const attackTerms = Array.isArray(it.terms) && it.terms.length
      ? renderExplain({ type: "endeavour", terms: it.terms, rating: it.rating }) : null;
    const body = el("div", { class: "dialog-body" },
      el("p", { class: "lead" }, `${attacker}: ${what} against ${area}.`),
      attackTerms ? el("details", { class: "attack-terms" }, el("summary", {}, `Their rating: ${it.rating}`), attackTerms)
        : (it.rating !== undefined ? el("p", {}, `Their rating: ${it.rating}.`) : null),
      talents.length ? el("p", {}, "Defend (your unused year is spent; your Military stature counts against them), adding talents if you wish, or decline.") : null,
      el("div", { class: "choice-group", role: "group", "aria-label": "Defense" },
        talents.map((a) => {
          const odds = el("span", { class: "chip-odds" }, "\u00a0");
          // each amount shows what it buys at once: their rating after it, and the
          // chance their endeavour comes to nothing (13.21)
          if (talents.length <= 16) {
            loads.push(this.cachedExplain(a).then((data) => {
              if (typeof data?.rating !== "number") return null;
              const o = data.odds && typeof data.odds === "object" ? data.odds : null;
              const fail = o ? FAILURES.reduce((sum, code) => sum + (o[code] || 0), 0) : null;
              const total = typeof data.cost === "number" ? data.cost + (a.talents ?? 0) : null;
              odds.textContent = `${total === null ? "" : `costs ${total} talent${total === 1 ? "" : "s"} `}→ their rating ${data.rating}${fail === null ? "" : ` · ${pct(fail)} chance you are unharmed`}`;
              return { talents: a.talents ?? 0, fail, odds: o };
            }).catch(() => null));
          }
          // the amount is what you add to the cost of defending at all (13.11): the
          // chip says what the whole defense costs once its odds are in
          return el("button", { type: "button", class: "btn act act-defend", "data-action": "defend",
            "data-talents": String(a.talents ?? ""),
            onclick: () => this.send(a), onmouseenter: () => this.hoverExplain(a, explainBox),
            onfocus: () => this.loadExplain(a, explainBox) },
          a.talents ? `Defend, adding ${a.talents} talent${a.talents === 1 ? "" : "s"}` : "Defend", odds);
        }),
        declines.map((a) => el("button", { type: "button", class: "btn ghost act act-decline", "data-action": "decline",
          onclick: () => this.send(a) }, "Decline to defend"))),
      explainBox);
    this.openDialog("defend", `Defend ${area}?`, body, force);
    // Only amounts that change the odds are offered: one whose odds are those of a
    // cheaper one, or any past the amount that already makes you safe, buys nothing.
    Promise.all(loads).then((all) => hideUseless(this.dialog, all));
  }

  showVote(votes, force = false) {
    const parley = this.state.view?.parley || {};
    const prompt = this.myPrompt("vote") || {};
    const weights = parley.weights || {};
    const mine = weights[this.state.seat] ?? weights[String(this.state.seat)];
    const body = el("div", { class: "dialog-body" },
      el("p", { class: "lead" }, prompt.label || `A parley: ${humanize(parley.question || "")}`),
      parley.caller !== undefined ? el("p", {}, `Called by ${this.ctx.seatName(parley.caller)}${parley.area ? ` over ${this.ctx.map.areaName(parley.area)}` : ""}. Yes wins on a majority or a tie of weighted votes.`) : null,
      Object.keys(weights).length ? el("ul", { class: "weights" }, Object.entries(weights).map(([seat, w]) =>
        el("li", {}, `${this.ctx.seatName(Number(seat))}: ${w} vote${Number(w) === 1 ? "" : "s"}`,
          (parley.voted || []).includes(Number(seat)) ? " — has voted" : ""))) : null,
      mine !== undefined ? el("p", { class: "hint" }, `Your vote weighs ${mine}. `,
        `${Object.values(weights).reduce((x, y) => x + Number(y), 0)} votes in all: each emperor's Diplomacy plus any notable's parley votes (`, ruleLink("20.4"), ").") : null,
      this.notVoting(parley),
      this.state.view?.me?.pledged_vote ? el("p", { class: "hint pledged", "data-control": "pledged" },
        `You pledged your votes: vote ${this.state.view.me.pledged_vote}, or break your agreement (`, ruleLink("20.11"), ").") : null,
      el("div", { role: "group", "aria-label": "Your vote" },
        votes.map((a) => el("div", { class: "vote-option" },
          el("button", { type: "button", class: `btn act act-vote${a.choice === "yes" ? " primary" : ""}`, "data-action": "vote",
            "data-choice": String(a.choice), onclick: () => this.send(a) }, this.ctx.valueName("choice", a.choice)),
          el("span", { class: "vote-effect", "data-choice": String(a.choice) }, voteMeaning(parley, a.choice, this.ctx)),
          helpLine(a)))));
    this.openDialog("vote", "Parley: cast your vote", body, force);
  }

  /** Who has no vote in this parley: the accursed (20.4). */
  notVoting(parley) {
    const eligible = (parley.eligible || []).map(Number);
    const players = this.state.view?.players || [];
    const out = players.map((p, s) => (eligible.length && !eligible.includes(s) ? this.ctx.powerNameOf(s) : null)).filter(Boolean);
    return out.length ? el("p", { class: "hint not-voting" }, `No vote: ${out.join(", ")} (accursed, `, ruleLink("20.4"), ").") : null;
  }

  async send(action) {
    if (this.busy) return;
    this.busy = true;
    const from = this.version;
    this.sentFrom = from;
    clearTimeout(this.hoverTimer);
    this.ctx.api.abortExplains();
    this.explainCacheSig = "";  // aborted answers must not be served from the cache
    this.explainKey = "";
    this.root.classList.add("busy");
    this.dialog.classList.add("busy");
    try {
      // Once accepted, the position it was sent from is gone even if its new state has
      // not arrived yet (the ack can beat the push): no breakdown is asked of it until
      // then. The push can also beat the ack: `this.version` may already be the new
      // position, which is not spent, and any choice begun on it is kept.
      // before the send: the push of its result may arrive before the answer does
      if (action.type === "endeavour") this.rememberPlace(action);
      if (await this.ctx.send(action)) this.spentVersion = from;
      if (this.version === from) {
        this.sel = {};
        this.saveSelection();
      }
    } finally {
      this.busy = false;
      this.root.classList.remove("busy");
      this.dialog.classList.remove("busy");
    }
  }
}

export { pct };

/** 5.6: what fails a petition: a burden, or an advisor of a type sent away this turn. */
function strikeCause(types, names) {
  if (!Array.isArray(types) || !types.length) return " (a burden)";
  const list = types.map((t) => names[t] || humanize(t)).join(" or ");
  const article = /^[aeiou]/i.test(list) ? "an" : "a";
  const those = types.length > 1 ? "those types" : "that type";
  return ` (a burden, or ${article} ${list}: you sent ${those} away this turn)`;
}
