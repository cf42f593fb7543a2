// The side panels: rulers (emperor, seven statures, treasury), my advisors (deck, odds),
// the Court market, the result-counter pool, relations, scores, and "waiting for".
import { el, fill, humanize, pct, ruleLink } from "./dom.js";
import { standings, rulerBadges } from "./politics.js";

export const STATURES = ["military", "administration", "diplomacy", "architecture", "arts", "philosophy", "intrigue"];

function stat(label, value, help) {
  return el("div", { class: "stat", title: help || null }, el("dt", {}, label), el("dd", {}, value ?? "–"));
}

/** A phase as the header says it: "turn" beside "Turn 2 … Round 1" read as a second turn (4.4). */
const PHASE_NAMES = { turn: "Player turns" };

const STATURE_HELP = {
  military: "Military: conquest, pillage, suppressing unrest, and defense",
  administration: "Administration: ruling, reform, census",
  diplomacy: "Diplomacy: ties, claims, tribute",
  architecture: "Architecture: fortifying and building",
  arts: "Arts: festivals, patronage, assimilation",
  philosophy: "Philosophy: science, conversion, purges",
  intrigue: "Intrigue: plots (coup, bribe, assassination), spies, purges",
};

/** The points a seat would score now: the final result once over, else the live score
 * (the player's `vp` field holds only the points banked during play, not the total). */
export function victoryPoints(state, seat, p) {
  const fromOutcome = state.outcome?.scores?.[seat] ?? state.outcome?.scores?.[String(seat)];
  const live = state.view?.score?.[seat] ?? state.view?.score?.[String(seat)];
  const total = (x) => (x && typeof x === "object" ? x.total : x);
  return total(fromOutcome) ?? total(live) ?? p.vp;
}

function statRow(label, value, cls = "") {
  return [el("dt", { class: cls }, label), el("dd", { class: cls }, value ?? "–")];
}

export function renderRulers(node, state, ctx) {
  const view = state.view || {};
  const players = view.players || [];
  const politics = standings(view);
  fill(node, players.map((p, seat) => {
    const emp = p.emperor || {};
    const mine = seat === state.seat;
    const prompted = (state.prompts || []).some((pr) => pr.seat === seat);
    const statures = emp.statures || {};
    return el("article", { class: `ruler${mine ? " mine" : ""}${view.active === seat ? " active" : ""}`,
      style: `--pc:${ctx.colour(p.power)}`, "aria-label": `${ctx.powerName(p.power)}${mine ? " (you)" : ""}` },
      el("header", {},
        el("span", { class: `swatch pat-${ctx.pattern(p.power)}${ctx.meta.powers?.[p.power]?.light ? " light" : ""}`, "aria-hidden": "true" }),
        el("h3", {}, ctx.powerName(p.power), mine ? el("small", {}, ctx.meta.replay ? " — hand shown" : " — you") : null),
        prompted ? el("span", { class: "badge waiting", title: "Has a decision to make" }, "deciding") : null,
        state.clock?.gone?.[String(seat)] && !mine
          ? el("span", { class: "badge gone", title: "No page of theirs is open on this game" }, `gone since ${new Date(state.clock.gone[String(seat)]).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}`)
          : (state.seats || []).some((x) => x.index === seat && x.user_id !== null && x.user_id !== undefined && !x.standin) && !mine
            ? el("span", { class: "badge here" }, "present") : null,
        (state.seats || []).some((x) => x.index === seat && x.standin)
          ? el("span", { class: "badge standin", title: "Its player is away (out of time, marked away, or handed over by the table): their standing orders and a bot decide until they are back" }, "bot standing in") : null,
        view.active === seat ? el("span", { class: "badge" }, "active") : null),
      rulerBadges(politics[seat], ctx),
      el("p", { class: "emperor" }, el("strong", {}, emp.name || ctx.rulerName(emp.ruler)),
        emp.age !== undefined ? ` · age ${emp.age}` : "",
        emp.reign_years !== undefined ? ` · ${emp.reign_years} years reigned` : ""),
      el("p", { class: "statures-head" }, "Emperor's statures (0–6): each endeavour adds one of them to its rating (",
        ruleLink("1.3"), ")"),
      el("ul", { class: "statures", "aria-label": "Statures" }, STATURES.map((s) => el("li", { title: STATURE_HELP[s] },
        el("span", { class: "st-name" }, humanize(s)),
        el("span", { class: "st-val" }, statures[s] ?? "–")))),
      el("dl", { class: "stats" },
        stat("Talents", p.talents, "Money: pays for endeavours, defenses and notables"),
        stat("Influence", p.influence, "Pays for petitions (another draw) and can recruit notables"),
        stat("Popularity", p.popularity, "Half of it counts as victory points at the end"),
        stat("Years left", p.years_left, "Each draw spends a year; an unused year lets you defend"),
        stat("To draw", p.draw_count, "Cards left in the advisor deck"),
        stat("Discarded", p.discard_count, "Cards in the discard pile"),
        stat("Fate cards", p.holdings_count, "Fate cards held, to play later"),
        stat("Victory points", victoryPoints(state, seat, p), "The score if the game ended now (26.1)")),
      p.notables && p.notables.length ? el("p", { class: "ruler-line" }, el("span", { class: "k" }, "Notables: "),
        p.notables.map((n) => ctx.cardName(n)).join(", ")) : null,
      p.innovations && p.innovations.length ? el("p", { class: "ruler-line" }, el("span", { class: "k" }, "Innovations: "),
        p.innovations.map((n) => ctx.cardName(n)).join(", ")) : null);
  }));
}

export function renderMine(node, state, ctx) {
  const me = state.view?.me;
  if (!me) { fill(node, el("p", { class: "hint" }, "You are watching this game.")); return; }
  const player = (state.view.players || [])[me.seat ?? state.seat] || {};
  const deck = Array.isArray(me.deck_list) ? me.deck_list : [];
  const counts = new Map();
  for (const c of deck) { const n = ctx.cardName(c); counts.set(n, (counts.get(n) || 0) + 1); }
  const hand = me.hand ? (Array.isArray(me.hand) ? me.hand : [me.hand]) : [];
  fill(node,
    el("dl", { class: "treasury" },
      statRow("Draw pile", player.draw_count),
      statRow("Discard pile", player.discard_count ?? (me.discard || []).length),
      statRow("Petition cost", me.petition_cost),
      statRow("Strikes", me.strikes)),
    hand.length ? el("div", {}, el("h4", {}, "In hand"), el("div", { class: "hand" }, hand.map((c) => ctx.cardFace(c)))) : null,
    el("h4", {}, `My deck (${deck.length})`),
    el("ul", { class: "deck-list" }, [...counts].map(([name, n]) => el("li", {}, name, n > 1 ? el("span", { class: "count" }, ` ×${n}`) : null))),
    (me.discard || []).length ? el("p", { class: "hint" }, `Discarded: ${(me.discard || []).map((c) => ctx.cardName(c)).join(", ")}`) : null,
    (me.holdings || []).length ? [el("h4", {}, "Fate holdings"), el("ul", {}, me.holdings.map((h) => el("li", {}, ctx.cardName(h))))] : null);
}

export function renderMarket(node, state, ctx) {
  const market = state.view?.market || {};
  const row = market.row || [];
  const recruit = (state.legal_actions || []).filter((a) => a.type === "recruit");
  const deckCount = market.deck_count ?? state.view?.market_deck_count ?? market.market_deck_count ?? null;
  fill(node,
    (row.length ? el("ol", { class: "market" }, row.map((slot, i) => {
      const card = slot.card;
      const info = ctx.notable(card);
      const acts = recruit.filter((a) => a.slot === i);
      return el("li", { class: "market-card" },
        el("div", { class: "card-name" }, slot.name || ctx.cardName(card)),
        info ? el("div", { class: "card-meta" }, [info.type ? (ctx.meta.advisorNames?.[info.type] || humanize(info.type)) : null,
          info.bonus !== undefined ? `+${info.bonus}` : null, info.cost !== undefined ? `base cost ${info.cost}` : null].filter(Boolean).join(" · ")) : null,
        info?.ability ? el("div", { class: "card-ability" }, info.ability) : null,
        info?.note ? el("div", { class: "card-text" }, info.note) : null,
        slot.coins ? el("div", { class: "coins", title: "Talents lying on this card" }, `${slot.coins} ◉`) : null,
        acts.map((a) => el("button", { type: "button", class: "btn small act act-recruit", "data-slot": String(i), "data-pay": a.pay,
          onclick: () => ctx.send(a) }, `Recruit (${humanize(a.pay)})`)));
    })) : el("p", { class: "hint" }, "The Court is empty.")),
    deckCount !== null
      ? el("p", { class: "hint" }, `${deckCount} notables wait in the Court deck. A notable's price is its base cost plus its place in the row (the first is +0); every notable passed over gains a talent, which goes to whoever recruits it (`,
        ruleLink("6.5"), ", ", ruleLink("6.6"), ").") : null);
}

export function renderCounters(node, state) {
  const c = state.view?.counters || {};
  const pool = c.pool || c.in_pool || c.counts || {};
  const out = c.out || c.drawn || {};
  const total = Object.values(pool).reduce((a, b) => a + Number(b), 0);
  const outKeys = Array.isArray(out) ? out.map(String) : Object.keys(out);
  const keys = [...new Set([...Object.keys(pool), ...outKeys])].sort((a, b) => Number(a) - Number(b));
  const outCount = (k) => Array.isArray(out) ? out.filter((v) => String(v) === k).length : Number(out[k] || 0);
  fill(node,
    el("table", { class: "pool" },
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Counter"), el("th", { scope: "col" }, "In pool"), el("th", { scope: "col" }, "Drawn"), el("th", { scope: "col" }, "Next draw"))),
      el("tbody", {}, keys.map((k) => el("tr", {},
        el("th", { scope: "row" }, Number(k) > 0 ? `+${k}` : k),
        el("td", {}, String(pool[k] ?? 0)),
        el("td", {}, String(outCount(k))),
        el("td", {}, total ? pct(Number(pool[k] || 0) / total) : "–"))))),
    el("p", { class: "hint" }, `${total} counters left; the pool is refilled when empty.`));
}

export function renderScores(node, state, ctx) {
  const score = state.view?.score || {};
  const players = state.view?.players || [];
  const rows = players.map((p, seat) => {
    const s = score[seat] ?? score[String(seat)] ?? {};
    const total = typeof s === "number" ? s : (s.total ?? s.vp ?? p.vp ?? 0);
    const level = typeof s === "object" ? Number(s.level ?? 0) : 0;
    const standing = typeof s === "object" && s.standing !== undefined ? s.standing : total - level;
    const parts = typeof s === "object"
      ? Object.entries(s).filter(([k]) => !["total", "level", "standing"].includes(k)) : [];
    return el("tr", { "data-seat": String(seat) }, el("th", { scope: "row" }, ctx.powerName(p.power)),
      el("td", { class: "num" }, String(total)),
      el("td", { class: "num", title: "This power's victory level (rules 26.2)" }, level ? String(level) : "0"),
      el("td", { class: "num standing" }, String(standing)),
      el("td", { class: "hint" }, parts.map(([k, v]) => `${humanize(k)} ${v}`).join(" · ")));
  });
  const head = el("thead", {}, el("tr", {},
    el("th", { scope: "col" }, "Power"), el("th", { scope: "col" }, "Points"),
    el("th", { scope: "col" }, "Level"),
    el("th", { scope: "col" }, "Standing"), el("th", { scope: "col" }, "")));
  fill(node, el("table", { class: "scores" }, head, el("tbody", {}, rows)),
    el("p", { class: "hint" }, "The highest standing (points less the power's victory level) wins ", ruleLink("26.2"), "."),
    overreachNote(state.view?.world?.overreach, players, ctx));
}

/** 4.9: in a scenario with overreach, who is overreaching now and what it costs. */
function overreachNote(o, players, ctx) {
  if (!o) return null;
  const terms = `a lead of ${o.from_lead} points or more makes the leader's most restless area check for rebellion at each round's end, +1 per ${o.per} points of lead`;
  if (o.seat === null || o.seat === undefined) {
    return el("p", { class: "hint overreach" }, "Overreach: ", terms, " ", ruleLink("4.9"), ".");
  }
  const who = ctx.powerName(players[o.seat]?.power);
  const where = o.area ? ctx.areaName(o.area) : "none of its areas";
  return el("p", { class: "hint overreach", "data-seat": String(o.seat) },
    el("strong", {}, `Overreach: ${who} leads by ${o.lead} points.`),
    ` At the round's end ${where} makes a rebellion check at +${o.bonus} (${terms}) `, ruleLink("4.9"), ".");
}

/** The Diplomacy panel: every relation that is not neutral, the coalitions, exile,
 * asylum and the accursed, each with its rule. */
export function renderRelations(node, state, ctx) {
  const view = state.view || {};
  const st = standings(view);
  const name = (s) => ctx.powerNameOf(s);
  const items = [];
  const effective = new Set((view.politics?.wars || []).map((w) => `${w[0]}|${w[1]}`));
  for (const [k, v] of Object.entries(view.relations || {})) {
    const status = typeof v === "string" ? v : v?.status;
    if (!status || status === "neutral") continue;
    const [a, b] = k.split(/[-:,|]/).map(Number);
    items.push(el("li", { class: `rel rel-${status}`, "data-pair": k }, `${name(a)} – ${name(b)}: ${humanize(status)}`,
      v?.since !== undefined ? ` (since turn ${v.since})` : "", " ", ruleLink(status === "war" ? "3.21" : "3.23")));
    effective.delete(k);
  }
  for (const k of effective) {  // wars that come from a coalition (3.55)
    const [a, b] = k.split("|").map(Number);
    items.push(el("li", { class: "rel rel-war via-coalition", "data-pair": k }, `${name(a)} – ${name(b)}: war, through a coalition `, ruleLink("3.55")));
  }
  for (const s of st) {
    if (s.hegemon) {
      items.push(el("li", { class: "rel rel-coalition" }, `${name(s.seat)} is hegemon`,
        s.juniors.length ? `, with ${s.juniors.map(name).join(", ")} as junior partner${s.juniors.length > 1 ? "s" : ""}` : ", with no partner yet", " ", ruleLink("3.5")));
    }
    if (s.exiled) {
      items.push(el("li", { class: "rel rel-exile" }, `${name(s.seat)} is in exile`,
        s.asylumAt !== null ? `, under asylum at ${name(s.asylumAt)}'s court` : ", without asylum", " ", ruleLink(s.asylumAt !== null ? "21.2" : "21.1")));
    }
    if (s.accursed) items.push(el("li", { class: "rel rel-accursed" }, `${name(s.seat)} is accursed: no vote in parleys `, ruleLink("20.4")));
  }
  fill(node, items.length ? el("ul", { class: "relations" }, items) : el("p", { class: "hint" }, "No treaties, wars or coalitions: every power is neutral to every other."));
}

export function renderStatus(node, state, ctx) {
  const v = state.view || {};
  const prompts = state.prompts || [];
  const waiting = [...new Set(prompts.map((p) => p.seat))];
  fill(node,
    el("span", { class: "turn" }, `Turn ${v.turn ?? "–"}`),
    v.year !== undefined ? el("span", { class: "year" }, ctx.year(v.year)) : null,
    v.round ? el("span", {}, `Round ${v.round}`) : null, // 0: the diplomatic phase, before round 1
    v.phase && !v.over ? el("span", { class: "phase" }, PHASE_NAMES[v.phase] || humanize(v.phase)) : null, // "Game over" says it
    state.pace === "none" && state.status === "active"
      ? el("span", { class: "no-clock", title: "No clock: nobody is hurried, and no seat goes to a stand-in for being slow" }, "no clock") : null,
    // the table voted to stop every clock (issue 40: the header did not say so)
    state.clock?.paused && state.status === "active"
      ? el("span", { class: "clocks-paused", "data-control": "clocks-paused",
        title: "The table voted to stop every clock: nobody's time runs, and moves may still be made" }, "clocks paused") : null,
    el("span", { class: "waiting-for", "aria-live": "polite" },
      v.over ? "Game over" : waiting.length
        ? ["Waiting for ", waiting.map((s, i) => [i ? ", " : "", el("strong", { class: s === state.seat ? "me" : "" }, s === state.seat ? "you" : ctx.seatName(s)),
          deadlineOf(prompts, s)])]
        : "—"));
}

function deadlineOf(prompts, seat) {
  const p = prompts.find((x) => x.seat === seat && x.deadline);
  if (!p) return null;
  const d = new Date(p.deadline);
  if (Number.isNaN(d.getTime())) return null;
  // the text is the time left, kept current each second by clock.js
  return el("time", { datetime: d.toISOString(), class: "deadline", "data-deadline": d.toISOString(),
    title: `Deadline: ${d.toLocaleString([], { dateStyle: "short", timeStyle: "short" })}` }, "");
}

/** My areas at a glance (for taxation and defense): population, social state, unrest, forts. */
export function renderMyAreas(node, state, ctx) {
  if (!node) return;
  const seat = state.seat;
  const areas = Object.entries(state.view?.areas || {}).filter(([, a]) => seat !== null && seat !== undefined && a.owner === seat);
  if (!areas.length) { fill(node, el("p", { class: "hint" }, seat === null || seat === undefined ? "You are watching this game." : "You hold no areas.")); return; }
  areas.sort((a, b) => ctx.areaName(a[0]).localeCompare(ctx.areaName(b[0])));
  fill(node, el("table", { class: "pool my-areas" },
    el("thead", {}, el("tr", {}, ["Area", "Pop.", "Social", "Unrest", "Fort"].map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, areas.map(([id, a]) => el("tr", {},
      el("th", { scope: "row" }, ctx.areaName(id)),
      el("td", {}, String(ctx.meta.areas?.[id]?.population ?? "–")),
      el("td", {}, a.social > 0 ? `+${a.social}` : String(a.social ?? "–")),
      el("td", {}, a.unrest ? "yes" : "–"),
      el("td", {}, a.fort ? String(a.fort) : "–"))))));
}
