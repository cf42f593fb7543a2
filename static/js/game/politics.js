// The politics of the table on the page (docs/rules.md 3, 20, 21): the one place that
// says in words what each diplomatic button does (with its § link), reads who leads,
// follows, fights, shelters or is cursed from the seat view, and turns the engine's
// explain of a move (its standing before and after) into a line of consequences.
//
// Nothing here decides a rule: the wars are the view's `politics.wars` (coalitions
// counted by the engine, 3.55), and every number of a consequence is the engine's.
import { el, humanize, pct, ruleLink } from "./dom.js";

/** One line per action, keyed "diplo:<move>" or "<type>" or "vote:<choice>": [text, rule].
 * A new action adds its line with addHelp (e.g. addHelp("diplo:offer", "…", "3.3")). */
export const ACTION_HELP = {
  "diplo:pass": ["Make no move now; the phase ends when every power has passed in a row", "3.2"],
  "diplo:declare_war": ["Declare war: you and that power (and the partners of either hegemon) may attack each other's areas. On a power at peace a die decides: below the game turns of peace it is war, above it costs 1 popularity. On a power your non-aggression or alliance binds, or its coalition, it is a breach", "3.21"],
  "diplo:propose_peace": ["Propose peace: if accepted, the war ends with a treaty dated now", "3.23"],
  "diplo:accept_peace": ["Accept peace: the war ends with a treaty dated now", "3.23"],
  "diplo:reject_peace": ["Reject peace: the war goes on", "3.23"],
  "diplo:claim_hegemony": ["Claim the hegemony: others may join your coalition; each junior partner is a victory point for you at the end", "3.51"],
  "diplo:relinquish_hegemony": ["Relinquish the hegemony: your coalition dissolves and you lose 1 popularity; your wars go on", "3.52"],
  "diplo:join": ["Ask to join that hegemon's coalition (only while at war with no one else and bound by no non-aggression or alliance): if it accepts you are at peace with it and share its wars", "3.53"],
  "diplo:accept_join": ["Accept the power as a junior partner: a victory point for you; it shares your wars", "3.53"],
  "diplo:reject_join": ["Refuse the power a place in your coalition", "3.53"],
  "diplo:leave": ["Leave your coalition, freely: you again make your own wars and peace", "3.54"],
  "diplo:ask_asylum": ["Ask for asylum: with it you may undertake diplomacy endeavours from your host's court", "21.2"],
  "diplo:accept_asylum": ["Grant asylum: the exile may then act by diplomacy from your court", "21.2"],
  "diplo:reject_asylum": ["Refuse asylum: the exile stays without a base", "21.2"],
  "diplo:revoke_asylum": ["Revoke asylum: your guest loses its base at your court", "21.2"],
  call_parley: ["Call a claim parley: every power not accursed votes; yes at least equal to no gives you a claim too", "20.42"],
  "vote:yes": ["Vote yes with all your votes", "20.5"],
  "vote:no": ["Vote no with all your votes", "20.5"],
  "vote:abstain": ["Abstain: your votes count for neither side", "20.5"],
  recruit: ["Recruit: the notable joins your discard pile and acts as an advisor of its type, adding its bonus", "6.6"],
};

export function addHelp(key, text, rule) { ACTION_HELP[key] = [text, rule]; }

export function helpKey(action) {
  if (!action) return "";
  if (action.type === "diplo") return `diplo:${action.move}`;
  if (action.type === "vote") return `vote:${action.choice}`;
  return action.type;
}

/** [text, rule] for an action, or null when none is written. */
export function helpFor(action) { return ACTION_HELP[helpKey(action)] || null; }

/** The line itself: the text and its § link. */
export function helpLine(action, attrs = {}) {
  const h = helpFor(action);
  if (!h) return null;
  return el("p", { class: "act-help", ...attrs }, h[0], " (", ruleLink(h[1]), ")");
}

// ---- who stands where, read from the view ----

const asSeat = (x) => (x === null || x === undefined ? null : Number(x));

/** Per seat: {hegemon, juniors, head (its hegemon when a junior), wars, peace [{seat, since}],
 * exiled, asylumAt, guests, accursed}. */
export function standings(view) {
  const players = view?.players || [];
  const hegemons = (view?.hegemons || []).map(Number);
  const coalitions = view?.coalitions || {};
  const wars = view?.politics?.wars || [];
  const asylum = view?.politics?.asylum || {};
  const pairs = view?.relations || {};
  return players.map((p, seat) => {
    const juniors = (coalitions[seat] || coalitions[String(seat)] || []).map(Number);
    const headEntry = Object.entries(coalitions).find(([, js]) => js.map(Number).includes(seat));
    const peace = [];
    for (const [k, v] of Object.entries(pairs)) {
      const [a, b] = k.split("|").map(Number);
      if (v && v.status === "peace" && (a === seat || b === seat)) peace.push({ seat: a === seat ? b : a, since: v.since });
    }
    const at = asSeat(p.asylum ?? asylum[seat] ?? asylum[String(seat)]);
    return {
      seat,
      hegemon: hegemons.includes(seat),
      juniors,
      head: headEntry ? Number(headEntry[0]) : null,
      wars: wars.filter((w) => w.includes(seat)).map((w) => (w[0] === seat ? w[1] : w[0])),
      peace,
      exiled: Boolean(p.exiled),
      asylumAt: at,
      guests: players.map((q, s) => (asSeat(q.asylum ?? asylum[s]) === seat ? s : null)).filter((s) => s !== null),
      accursed: Boolean(p.accursed),
    };
  });
}

function badge(kind, text, title, rule) {
  return el("span", { class: `badge pol pol-${kind}`, "data-pol": kind, title },
    text, " ", ruleLink(rule));
}

/** The politics badges of one ruler card. */
export function rulerBadges(st, ctx) {
  if (!st) return null;
  const names = (seats) => seats.map((s) => ctx.powerNameOf(s)).join(", ");
  const out = [];
  if (st.hegemon) {
    out.push(badge("hegemon", st.juniors.length ? `Hegemon of ${names(st.juniors)}` : "Hegemon",
      `Leads a coalition; scores 1 victory point per junior partner at the end (26.1). Its partners share its wars (3.55).`, "3.5"));
  }
  if (st.head !== null) {
    out.push(badge("junior", `Junior partner of ${ctx.powerNameOf(st.head)}`,
      `Shares ${ctx.powerNameOf(st.head)}'s wars and makes no war or peace of its own; may leave freely (3.54).`, "3.55"));
  }
  if (st.wars.length) {
    out.push(badge("war", `At war with ${names(st.wars)}`,
      "At war: each may attack the other's areas (2.5). A hegemon's war is its partners' war too (3.55).", "3.21"));
  }
  if (st.peace.length) {
    out.push(badge("peace", `At peace with ${st.peace.map((x) => `${ctx.powerNameOf(x.seat)} (since turn ${x.since})`).join(", ")}`,
      "A treaty: neither may attack the other. Breaking it takes a die roll below the turns it has lasted (3.22).", "3.23"));
  }
  if (st.exiled) {
    out.push(badge("exile", "In exile",
      "Has lost every area: keeps its treasury, ties and claims, undertakes no endeavour and taxes nothing (21.1).", "21.1"));
  }
  if (st.asylumAt !== null) {
    out.push(badge("asylum", `Under asylum at ${ctx.powerNameOf(st.asylumAt)}`,
      `May undertake diplomacy endeavours, and only those, from ${ctx.powerNameOf(st.asylumAt)}'s court (21.2).`, "21.2"));
  }
  if (st.guests.length) {
    out.push(badge("host", `Shelters ${names(st.guests)}`,
      "Grants asylum: the exile acts by diplomacy from this court; the host may revoke it in a diplomatic phase (21.2).", "21.2"));
  }
  if (st.accursed) {
    out.push(badge("accursed", "Accursed",
      "Votes in no parley (20.4), calls none, and cannot contest a diplomatic conquest (12.32). An heirless death lifts the curse (22.14).", "20.4"));
  }
  return out.length ? el("div", { class: "pol-badges", "aria-label": "Politics" }, out) : null;
}

// ---- the consequences of a move, from explain ----

const setMinus = (a, b) => (a || []).filter((x) => !(b || []).includes(x));

/** The changes between two standings of one seat, in words. */
function changes(now, after, ctx, who, self) {
  if (!now || !after) return [];
  const out = [];
  const names = (seats) => seats.map((s) => ctx.powerNameOf(s)).join(", ");
  const newWars = setMinus(after.at_war_with, now.at_war_with);
  const endedWars = setMinus(now.at_war_with, after.at_war_with);
  if (newWars.length) out.push(`${who} at war with ${names(newWars)}`);
  if (endedWars.length) out.push(`${who} no longer at war with ${names(endedWars)}`);
  if (!now.hegemon && after.hegemon) out.push(`${who} hegemon`);
  if (now.hegemon && !after.hegemon) out.push(`${who} no longer hegemon`);
  if (now.coalition_head !== after.coalition_head) {
    out.push(after.coalition_head === self
      ? `${who} out of ${ctx.powerNameOf(now.coalition_head)}'s coalition`
      : `${who} in ${ctx.powerNameOf(after.coalition_head)}'s coalition`);
  }
  const gained = setMinus(after.juniors, now.juniors), lost = setMinus(now.juniors, after.juniors);
  if (gained.length) out.push(`${names(gained)} joins as junior partner`);
  if (lost.length) out.push(`${names(lost)} no longer junior partner`);
  if (now.asylum !== after.asylum) out.push(after.asylum === null ? `${who} without asylum` : `${who} sheltered at ${ctx.powerNameOf(after.asylum)}'s court`);
  const gone = setMinus(now.guests, after.guests);
  if (gone.length) out.push(`${names(gone)} loses asylum`);
  const guests = setMinus(after.guests, now.guests);
  if (guests.length) out.push(`${names(guests)} sheltered at ${who === "you" ? "your" : "its"} court`);
  if (after.popularity !== now.popularity) out.push(`popularity ${now.popularity} → ${after.popularity}`);
  if (after.vp !== now.vp) out.push(`victory points ${now.vp} → ${after.vp}`);
  return out;
}

/** A short line of what the move does, from GET /explain of a diplo action. */
export function diploEffect(data, ctx) {
  if (!data || data.type !== "diplo") return null;
  if (data.move === "pass") {
    return `${data.passes_in_a_row ?? 0} of ${data.players ?? "?"} powers have passed in a row`;
  }
  const mine = changes(data.now, data.after, ctx, "you", ctx.seat);
  const theirs = data.power !== null && data.power !== undefined
    ? changes(data.other_now, data.other_after, ctx, ctx.powerNameOf(data.power), data.power) : [];
  const parts = [...mine, ...theirs];
  let text = parts.length ? parts.join("; ") : "nothing changes in the relations";
  if (data.proposal) text = `If ${ctx.powerNameOf(data.power)} accepts: ${text}`;
  if (data.odds && data.treaty) text = treatyText(data, text);
  return text;
}

/** 3.22 in words: when the peace was made, what the die must show, and the odds. */
function treatyText(data, ifWar) {
  const o = data.odds;
  const n = data.treaty.lasted;
  const made = n <= 0 ? "made this game turn" : `made in game turn ${data.treaty.since}, ${n} game turn${n === 1 ? "" : "s"} ago`;
  if (data.cannot_succeed) {
    const cost = o.sacrilege > 0 ? `; ${pct(o.sacrilege)} of rolls cost you 1 popularity for the sacrilege` : "";
    return `Cannot succeed now: the peace was ${made}, and the die (1–6) must come under the game turns it has lasted, so the peace holds whatever the roll${cost}`;
  }
  return `The peace was ${made}: a die under ${n} finds a pretext, ${pct(o.war)} war; ${pct(o.sacrilege)} the peace holds and the sacrilege costs you 1 popularity; ${pct(o.holds)} it simply holds. If war: ${ifWar}`;
}

/** 20.3, 20.44: the agreements a move would break, named, with what follows (an
 * element with its § links), or null when it breaks none. */
export function breachWarning(data, ctx) {
  const list = data && Array.isArray(data.breaks) ? data.breaks : [];
  if (!list.length) return null;
  const partOne = (b) => {
    const who = ctx.powerNameOf(b.partner);
    const then = b.parley ? `${who} calls a parley at once, and if it finds you guilty you are accursed` : "no parley follows (one of you is accursed already)";
    return [`${b.text}. That is a breach: ${then}`];
  };
  const rules = [ruleLink("20.3")];
  if (list.some((b) => b.parley)) rules.push(", ", ruleLink("20.44"));
  return el("p", { class: "breach-warning", "data-control": "breach-warning", role: "note" },
    el("strong", {}, "Breaks your "), list.map(partOne).reduce((acc, x, i) => (i ? [...acc, "; and ", ...x] : [...x]), []),
    " (", rules, ").");
}

/** What a parley vote means for the voter, by question (20.41, 20.42, 20.5). */
export function voteMeaning(parley, choice, ctx) {
  const area = ctx.areaName(parley.area);
  const caller = ctx.powerNameOf(parley.caller);
  if (choice === "abstain") return "Your votes count for neither side.";
  if (parley.question === "claim") {
    return choice === "yes" ? `${caller} gains a claim to ${area} if yes is at least equal to no.` : `Helps refuse ${caller} a claim to ${area}.`;
  }
  const holder = parley.against !== null && parley.against !== undefined ? ctx.powerNameOf(parley.against) : "its conqueror";
  if (parley.question === "breach") { // 20.44: a tie finds the breaker guilty
    return choice === "yes" ? `${holder} is found guilty and accursed (a tie counts as guilty).` : `Helps acquit ${holder}.`;
  }
  if (parley.question === "readmit") { // 20.45
    return choice === "yes" ? `${caller} is readmitted if yes is at least equal to no.` : `Helps keep ${caller} accursed.`;
  }
  if (choice === "yes") { // 20.41 / 20.43: the holder must then return it or be accursed
    return `The parley rules ${area} is ${caller}'s: ${holder} must return it or be accursed (yes at least equal to no).`;
  }
  return `Helps ${holder} keep ${area}.`;
}

export { humanize };
