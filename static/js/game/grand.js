// Grand diplomacy on the page (rules 20.1-20.45): the offer composer, the offer you
// must answer, the verdict of a parley, readmission, cancelling by consent and
// renouncing, and the agreements panel. Driven only by legal_actions: the composer reads the ranges of the offer
// template the server lists for each power, and sends a concrete offer inside them.
import { el, fill, humanize, ruleLink } from "./dom.js";

const TERM_TEXT = {
  peace: "Peace (the relation becomes peace now)",
  non_aggression: "Non-aggression: neither declares war on the other nor takes its areas",
  alliance: "Alliance: non-aggression, and each votes on the other's side in parleys",
};
const TERM_NAME = { peace: "peace", non_aggression: "non-aggression", alliance: "alliance" };
const EMPTY = () => ({ talents: 0, per_turn: 0, areas: [], claims: [], votes: false });

/** A bundle in words, from the offerer's side ("You give …; Han gives you …"). */
export function bundleText(offer, giverName, takerName, areaName) {
  const parts = [];
  for (const [who, whom, side] of [[giverName, takerName, offer.give], [takerName, giverName, offer.get]]) {
    const s = side || EMPTY();
    const bits = [];
    if (s.talents) bits.push(`${s.talents} talent${s.talents === 1 ? "" : "s"} now`);
    if (s.per_turn) bits.push(`a tribute of ${s.per_turn} talent${s.per_turn === 1 ? "" : "s"} each game turn`);
    if ((s.areas || []).length) bits.push(`the area${s.areas.length === 1 ? "" : "s"} ${s.areas.map(areaName).join(", ")}`);
    if ((s.claims || []).length) bits.push(`the claim${s.claims.length === 1 ? "" : "s"} to ${s.claims.map(areaName).join(", ")}`);
    if (s.votes) bits.push("its votes in parleys");
    if (bits.length) parts.push(`${who} give${who === "You" ? "" : "s"} ${whom === "You" ? "you" : whom} ${bits.join(", ")}`);
  }
  if ((offer.terms || []).length) parts.push(offer.terms.map((t) => TERM_NAME[t] || t).join(" and "));
  if (offer.turns) parts.push(`for ${offer.turns} game turn${offer.turns === 1 ? "" : "s"}`);
  return parts.length ? parts.join("; ") + "." : "Nothing yet: add an item.";
}

function lasting(offer) {
  return Boolean(offer.give.per_turn || offer.get.per_turn || offer.give.votes || offer.get.votes
    || offer.terms.includes("non_aggression") || offer.terms.includes("alliance"));
}

function isEmpty(offer) {
  const side = (s) => s.talents || s.per_turn || s.areas.length || s.claims.length || s.votes;
  return !side(offer.give) && !side(offer.get) && !offer.terms.length;
}

export class GrandDiplomacy {
  constructor(ctx) {
    this.ctx = ctx;
    this.dialog = null;
  }

  /** The decide panel's grand-diplomacy section for these legal actions, or null. */
  section(state, groups) {
    this.state = state;
    const parts = [];
    const offers = groups.offer || [];
    const answers = groups.answer_offer || [];
    if (groups.verdict) parts.push(this.verdict(groups.verdict));
    if (answers.length) parts.push(this.incoming(answers, offers));
    else if (offers.length) {
      parts.push(el("div", { class: "choice-group" },
        el("button", { type: "button", class: "btn", "data-control": "compose-offer",
          onclick: () => this.compose(offers) }, "Make an offer…")),
      el("p", { class: "hint" }, "Trade talents, tribute, areas, claims and votes, or sign peace, non-aggression or an alliance (",
        ruleLink("20.1"), "). What lasts is binding: a breach is judged by a parley (", ruleLink("20.44"), ")."));
    }
    if (groups.readmission) {
      parts.push(el("div", { class: "choice-group" }, groups.readmission.map((a) => this.button(a,
        "Call a parley on my readmission"))), el("p", { class: "hint" },
        "You are accursed. Once a round you may ask the parley to readmit you; you vote in it and a tie readmits (", ruleLink("20.45"), ")."));
    }
    if (groups.cancel) parts.push(this.cancelling(state, groups.cancel));
    if (groups.renounce) {
      parts.push(el("details", { class: "renounce" }, el("summary", {}, "Renounce an agreement (a breach)"),
        el("p", { class: "hint" }, "Renouncing ends the agreement and opens a parley on you: if it finds you guilty you are accursed (",
          ruleLink("20.3"), ", ", ruleLink("20.44"), ")."),
        el("div", { class: "choice-group" }, groups.renounce.map((a) => this.button(a,
          `Renounce #${a.agreement}${this.partnerOf(state, a.agreement) ? ` with ${this.partnerOf(state, a.agreement)}` : ""}: a breach`, "ghost")))));
    }
    const binding = this.bindingMe(state);
    if (binding.length && (offers.length || groups.diplo || groups.renounce || groups.cancel)) {
      const terms = binding.some((ag) => (ag.terms || []).some((t) => t === "non_aggression" || t === "alliance"));
      const allHegemons = (state.view?.hegemons || []).map(Number);
      const hegemons = allHegemons.includes(state.seat) ? [] : allHegemons;
      parts.push(el("div", { class: "binds-you", "data-control": "binds-you" }, el("strong", {}, "Binding on you: "),
        binding.map((ag) => this.agreementLine(state, ag)).reduce((acc, node, i) => (i ? [...acc, "; ", node] : [node]), []),
        terms && hegemons.length && groups.diplo ? el("span", { class: "hint", "data-control": "no-join" },
          " — while non-aggression binds you, you may not join a coalition: a junior partner shares its hegemon's wars (",
          ruleLink("3.53"), ")") : null));
    }
    if (!parts.length) return null;
    return el("section", { class: "grand", "aria-label": "Grand diplomacy" }, el("h3", {}, "Grand diplomacy"), parts);
  }

  partnerOf(state, id) {
    const ag = (state.view?.agreements || []).find((x) => x.id === id);
    return ag ? (ag.parties || []).filter((p) => p !== state.seat).map((p) => this.ctx.seatName(p)).join(", ") : "";
  }

  /** 20.3: offer the partner to end an agreement by consent (no breach, no parley). */
  cancelling(state, actions) {
    return el("div", { class: "cancel-agreements", "data-control": "cancel-agreements" },
      el("p", { class: "act-help" }, "Offer to cancel an agreement: if your partner accepts, it ends now with no breach and no parley; if it refuses, it stays in force. It is one of your moves in the diplomatic phase, your one offer in your own turn (",
        ruleLink("20.3"), ", ", ruleLink("20.14"), ")."),
      el("div", { class: "choice-group" }, actions.map((a) => this.button(a,
        `Offer ${this.partnerOf(state, a.agreement) || "your partner"} to cancel #${a.agreement}`))));
  }

  button(action, label, cls = "") {
    return el("button", { type: "button", class: `btn act act-${action.type} ${cls}`, "data-action": action.type,
      "data-key": JSON.stringify(action), onclick: () => this.ctx.send(action) }, label);
  }

  bindingMe(state) {
    const seat = state.seat;
    return (state.view?.agreements || []).filter((ag) => ag.status === "in_force" && (ag.parties || []).includes(seat));
  }

  agreementLine(state, ag) {
    const name = (s) => (s === state.seat ? "you" : this.ctx.seatName(s));
    const bits = [];
    for (const t of ag.terms || []) if (t !== "peace") bits.push(TERM_NAME[t] || t);
    for (const t of ag.tribute || []) bits.push(`${name(t.payer)} pay${t.payer === state.seat ? "" : "s"} ${name(t.payee)} ${t.amount} a game turn`);
    for (const v of ag.votes || []) if (!(ag.terms || []).includes("alliance")) bits.push(`${name(v.pledger)} vote${v.pledger === state.seat ? "" : "s"} for ${name(v.for)}`);
    return el("span", { class: "agreement-line", "data-agreement": String(ag.id) },
      `#${ag.id} with ${(ag.parties || []).filter((p) => p !== state.seat).map(name).join(", ")}: ${bits.join(", ") || "signed"}`,
      ag.expires ? ` (until the end of game turn ${ag.expires})` : "");
  }

  verdict(actions) {
    const v = this.state.view?.verdict || {};
    const area = this.ctx.areaName(v.area);
    return el("div", { class: "verdict" },
      el("p", { class: "lead" }, `The parley found ${area} belongs to ${this.ctx.seatName(v.to)}. Return it, or keep it and be accursed (`,
        ruleLink(v.rule || "20.41"), ", ", ruleLink("22.1"), ").",),
      el("div", { class: "choice-group" }, actions.map((a) => this.button(a,
        a.comply ? `Return ${area}` : `Keep ${area} and be accursed`, a.comply ? "primary" : "ghost"))));
  }

  incoming(answers, counters) {
    const off = this.state.view?.me?.offer;
    const from = off ? this.ctx.seatName(off.from) : "A power";
    if (off?.kind === "cancel") return this.incomingCancel(off, from, answers, counters);
    const text = off ? bundleText(off, from, "You", this.ctx.areaName) : "";
    return el("div", { class: "incoming-offer", "data-control": "incoming-offer" },
      el("p", { class: "lead" }, `${from} offers${off?.depth ? " (a counter-offer)" : ""}:`),
      el("p", { class: "offer-text" }, text),
      off && (off.turns || 0) ? el("p", { class: "hint" }, "What lasts is binding: breaking it opens a parley that may make you accursed (",
        ruleLink("20.3"), ").") : null,
      el("div", { class: "choice-group" },
        answers.map((a) => this.button(a, a.answer === "accept" ? "Accept and sign" : "Refuse", a.answer === "accept" ? "primary" : "ghost")),
        counters.length ? el("button", { type: "button", class: "btn", "data-control": "counter-offer",
          onclick: () => this.compose(counters, off) }, "Counter…") : null));
  }

  /** 20.3: the partner asks to cancel an agreement; accepting ends it with no breach. */
  incomingCancel(off, from, answers, counters) {
    const ag = (this.state.view?.agreements || []).find((x) => x.id === off.agreement);
    return el("div", { class: "incoming-offer incoming-cancel", "data-control": "incoming-cancel" },
      el("p", { class: "lead" }, `${from} asks you to cancel agreement #${off.agreement}:`),
      ag ? el("p", { class: "offer-text" }, this.agreementLine(this.state, ag)) : null,
      el("p", { class: "hint" }, "Accept and it ends now, by consent: no breach, no parley, and neither is bound by it any more. Refuse and it stays in force (",
        ruleLink("20.3"), ")."),
      el("div", { class: "choice-group" },
        answers.map((a) => this.button(a, a.answer === "accept" ? "Accept: cancel it" : "Refuse: keep it in force", a.answer === "accept" ? "primary" : "ghost")),
        counters.length ? el("button", { type: "button", class: "btn", "data-control": "counter-offer",
          onclick: () => this.compose(counters) }, "Counter with an offer…") : null));
  }

  // ---- the composer dialog -------------------------------------------------------
  ensureDialog() {
    if (!this.dialog) {
      this.dialog = el("dialog", { id: "offer-dialog", class: "dialog offer-dialog", "aria-labelledby": "offer-title" });
      document.body.appendChild(this.dialog);
    }
    return this.dialog;
  }

  compose(templates, answering = null) {
    this.templates = templates;
    const first = answering ? templates[0] : templates[0];
    this.pick(first.power, answering);
    const dlg = this.ensureDialog();
    if (!dlg.open) { if (dlg.showModal) dlg.showModal(); else dlg.setAttribute("open", ""); }
  }

  pick(power, answering = null) {
    const tpl = this.templates.find((t) => t.power === power) || this.templates[0];
    this.tpl = tpl;
    this.draft = { give: EMPTY(), get: EMPTY(), terms: [], turns: 0 };
    if (answering) { // a counter starts from the offer turned round
      this.draft.give = { ...EMPTY(), ...answering.get, areas: [...(answering.get.areas || [])], claims: [...(answering.get.claims || [])] };
      this.draft.get = { ...EMPTY(), ...answering.give, areas: [...(answering.give.areas || [])], claims: [...(answering.give.claims || [])] };
      this.draft.terms = (answering.terms || []).filter((t) => tpl.template.terms.includes(t));
      this.draft.turns = answering.turns || 0;
      for (const field of ["talents", "per_turn"]) { // one way: the net (issue 40)
        const net = (Number(this.draft.give[field]) || 0) - (Number(this.draft.get[field]) || 0);
        this.draft.give[field] = Math.max(0, net);
        this.draft.get[field] = Math.max(0, -net);
      }
      this.clamp();
    }
    this.drawDialog();
  }

  clamp() {
    const t = this.tpl.template;
    for (const side of ["give", "get"]) {
      const lim = t[side];
      const d = this.draft[side];
      d.talents = Math.max(0, Math.min(lim.talents, Number(d.talents) || 0));
      d.per_turn = Math.max(0, Math.min(lim.per_turn, Number(d.per_turn) || 0));
      d.areas = d.areas.filter((a) => lim.areas.includes(a));
      d.claims = d.claims.filter((a) => lim.claims.includes(a));
      d.votes = Boolean(d.votes && lim.votes);
    }
    const [lo, hi] = t.turns;
    if (lasting(this.draft)) this.draft.turns = Math.max(lo, Math.min(hi, this.draft.turns || lo));
    else this.draft.turns = 0;
  }

  sideBox(side, title, lim) {
    const d = this.draft[side];
    // Talents and tribute go one way (issue 40): giving 6 and asking 2 is giving 4, so a
    // number on one side clears the other side's.
    const other = side === "give" ? "get" : "give";
    const number = (field, label, max) => el("label", { class: "offer-field" }, `${label} (0–${max}) `,
      el("input", { type: "number", min: "0", max: String(max), step: "1", value: String(d[field]), "data-field": `${side}.${field}`,
        oninput: (e) => {
          d[field] = Number(e.target.value) || 0;
          if (d[field] > 0 && this.draft[other][field]) {
            this.draft[other][field] = 0;
            const twin = this.dialog?.querySelector(`input[data-field="${other}.${field}"]`);
            if (twin) twin.value = "0";
          }
          this.changed();
        } }));
    const checks = (field, ids, label) => ids.length ? el("fieldset", { class: "offer-list" }, el("legend", {}, label),
      ids.map((id) => el("label", { class: "offer-check" }, el("input", { type: "checkbox", "data-field": `${side}.${field}`, value: id,
        checked: d[field].includes(id), onchange: (e) => {
          d[field] = e.target.checked ? [...d[field], id] : d[field].filter((x) => x !== id);
          this.changed();
        } }), " ", this.ctx.areaName(id)))) : null;
    return el("div", { class: `offer-side offer-${side}` }, el("h3", {}, title),
      number("talents", "Talents now", lim.talents),
      number("per_turn", "Tribute each game turn", lim.per_turn),
      checks("areas", lim.areas, "Areas"),
      checks("claims", lim.claims, "Claims"),
      lim.votes ? el("fieldset", { class: "offer-votes" }, el("legend", {}, "Votes"),
        el("label", { class: "offer-check" }, el("input", { type: "checkbox", "data-field": `${side}.votes`, checked: d.votes,
          onchange: (e) => { d.votes = e.target.checked; this.changed(); } }), " Votes in parleys (pledged for the duration)")) : null);
  }

  drawDialog() {
    const dlg = this.ensureDialog();
    const t = this.tpl.template;
    const other = this.ctx.powerName(this.tpl.power);
    const terms = t.terms.length ? el("fieldset", { class: "offer-list offer-terms" }, el("legend", {}, "Terms (both bound alike)"),
      t.terms.map((term) => el("label", { class: "offer-check" }, el("input", { type: "checkbox", "data-field": "terms", value: term,
        checked: this.draft.terms.includes(term), onchange: (e) => {
          this.draft.terms = e.target.checked ? [...this.draft.terms, term] : this.draft.terms.filter((x) => x !== term);
          this.changed();
        } }), " ", TERM_TEXT[term] || humanize(term)))) : null;
    const [lo, hi] = t.turns;
    this.previewNode = el("p", { class: "offer-preview", "data-control": "offer-preview", "aria-live": "polite" });
    this.turnsNode = el("label", { class: "offer-field" }, "Lasting items run for ",
      el("select", { "data-field": "turns", onchange: (e) => { this.draft.turns = Number(e.target.value); this.changed(); } },
        Array.from({ length: hi - lo + 1 }, (_, i) => lo + i).map((n) => el("option", { value: String(n), selected: n === this.draft.turns },
          `${n} game turn${n === 1 ? "" : "s"}`))), " (", ruleLink("20.12"), ")");
    this.sendNode = el("button", { type: "button", class: "btn primary", "data-control": "send-offer", onclick: () => this.send() }, "Send the offer");
    fill(dlg,
      el("h2", { id: "offer-title" }, "Make an offer"),
      this.templates.length > 1 ? el("label", { class: "offer-field" }, "To ",
        el("select", { "data-field": "power", onchange: (e) => this.pick(e.target.value) },
          this.templates.map((x) => el("option", { value: x.power, selected: x.power === this.tpl.power }, this.ctx.powerName(x.power)))))
        : el("p", {}, `To ${other}`),
      el("div", { class: "offer-sides" }, this.sideBox("give", "You give", t.give), this.sideBox("get", `${other} gives you`, t.get)),
      el("p", { class: "offer-hint" }, "Talents go one way: a number on one side clears the other's."),
      terms, this.turnsNode,
      el("h3", {}, "The bundle"), this.previewNode,
      el("div", { class: "choice-group offer-actions" }, this.sendNode,
        el("button", { type: "button", class: "btn ghost", "data-control": "cancel-offer", onclick: () => dlg.close() }, "Cancel")));
    this.changed();
  }

  changed() {
    this.clamp();
    const other = this.ctx.powerName(this.tpl.power);
    this.previewNode.textContent = bundleText(this.draft, "You", other, this.ctx.areaName);
    this.turnsNode.hidden = !lasting(this.draft);
    const sel = this.turnsNode.querySelector("select");
    if (sel && this.draft.turns) sel.value = String(this.draft.turns);
    this.sendNode.disabled = isEmpty(this.draft);
  }

  async send() {
    this.clamp();
    const action = { type: "offer", power: this.tpl.power, give: this.draft.give, get: this.draft.get,
      terms: this.draft.terms, turns: this.draft.turns };
    this.dialog.close();
    await this.ctx.send(action);
  }
}

/** The agreements panel: those in force (with who is bound to what, and until when),
 * then those that ended and why. Agreements are public once signed (20.3). */
export function renderAgreements(node, state, ctx) {
  if (!node) return;
  const list = state.view?.agreements || [];
  const name = (s) => (s === state.seat ? "you" : ctx.seatName(s));
  const row = (ag) => {
    const bits = [];
    for (const t of ag.terms || []) bits.push(TERM_NAME[t] || t);
    for (const t of ag.tribute || []) bits.push(`tribute: ${name(t.payer)} → ${name(t.payee)}, ${t.amount} a game turn`);
    for (const v of ag.votes || []) bits.push(`${name(v.pledger)} vote${v.pledger === state.seat ? "" : "s"} for ${name(v.for)}`);
    const ex = ag.exchange || {};
    const [a, b] = ag.parties || [];
    const swap = [];
    for (const [who, whom, s] of [[a, b, ex.give], [b, a, ex.get]]) {
      if (!s) continue;
      const items = [];
      if (s.talents) items.push(`${s.talents} talents`);
      if ((s.areas || []).length) items.push(s.areas.map(ctx.areaName).join(", "));
      if ((s.claims || []).length) items.push(`claim to ${s.claims.map(ctx.areaName).join(", ")}`);
      if (items.length) swap.push(`${name(who)} gave ${name(whom)} ${items.join(", ")}`);
    }
    const mine = (ag.parties || []).includes(state.seat);
    const ended = ag.status === "in_force" ? (ag.expires ? `in force until the end of game turn ${ag.expires}` : "in force")
      : ag.status === "broken" ? `broken by ${name(ag.breaker)} in game turn ${ag.ended} (${ag.why})`
        : ag.status === "fulfilled" ? "carried out"
          : ag.status === "cancelled" ? `cancelled by consent in game turn ${ag.ended}` : `${ag.status}${ag.ended ? ` in game turn ${ag.ended}` : ""}`;
    return el("li", { class: `agreement ag-${ag.status}${mine ? " mine" : ""}`, "data-agreement": String(ag.id), "data-status": ag.status },
      el("strong", {}, `#${ag.id} ${(ag.parties || []).map((s) => ctx.seatName(s)).join(" – ")}`),
      mine && ag.status === "in_force" ? el("span", { class: "badge binds" }, "binds you") : null,
      el("div", {}, [bits.join("; "), swap.join("; ")].filter(Boolean).join(" · ") || "—"),
      el("div", { class: "hint" }, `Signed in game turn ${ag.signed}; ${ended}.`));
  };
  const live = list.filter((ag) => ag.status === "in_force");
  const past = list.filter((ag) => ag.status !== "in_force");
  const accursed = (state.view?.players || []).map((p, s) => (p.accursed ? ctx.seatName(s) : null)).filter(Boolean);
  fill(node,
    live.length ? el("ul", { class: "agreements" }, live.map(row)) : el("p", { class: "hint" }, "No agreement in force."),
    past.length ? el("details", {}, el("summary", {}, `Past agreements (${past.length})`), el("ul", { class: "agreements" }, past.map(row))) : null,
    accursed.length ? el("p", { class: "accursed-line", "data-control": "accursed" }, el("strong", {}, "Accursed: "), accursed.join(", "),
      " (", ruleLink("22.1"), ")") : null,
    el("p", { class: "hint" }, "Agreements with lasting terms are binding; the server watches them and a breach opens a parley (",
      ruleLink("20.3"), ", ", ruleLink("20.44"), ")."));
}
