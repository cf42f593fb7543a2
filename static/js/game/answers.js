// The answer to your offer (rules 20.14-20.15, issue 40): when the power you made an offer
// to refuses it (with its reason, which only the two of you see) or turns it round with a
// counter-offer, a notice in the page says so, not only a chronicle line that scrolls
// away. It reads the engine's events: {data: {from, to, answer, reason}}.
import { el, fill } from "./dom.js";

export class OfferAnswers {
  /**
   * @param {HTMLElement} node  the notice (#offer-answer)
   * @param {object} page       the game page: ctx (seatName), state (seat)
   */
  constructor(node, page) {
    this.node = node;
    this.page = page;
    this.since = null; // answers before the page opened are the chronicle's, not news
  }

  /** The page has caught up with the log up to `seq`: only later answers are news. */
  start(seq) {
    if (this.since === null) this.since = Number(seq) || 0;
  }

  see(events) {
    if (!this.node || this.since === null || !Array.isArray(events)) return;
    const seat = this.page.state?.seat;
    if (seat === null || seat === undefined) return;
    let answer = null;
    for (const e of events) {
      const d = e?.data || {};
      if (!(Number(e.seq) > this.since) || d.from !== seat || !d.answer) continue;
      this.since = Math.max(this.since, Number(e.seq));
      // the reason comes in its own line, just after the public "refuses"
      if (answer && answer.answer === d.answer && answer.to === d.to && !d.reason && answer.reason) continue;
      answer = d;
    }
    if (answer) this.show(answer);
  }

  show(answer) {
    const who = this.page.ctx.powerNameOf(answer.to);
    const text = answer.answer === "counter"
      ? `${who} turns your offer round: its counter-offer is under “Your decision”.`
      : answer.reason ? `${who} refuses your offer: ${answer.reason}` : `${who} refuses your offer.`;
    this.node.dataset.answer = answer.answer;
    fill(this.node, el("span", { class: "offer-answer-text" }, text),
      el("button", { type: "button", class: "btn ghost small", "data-control": "dismiss-answer",
        "aria-label": "Dismiss", onclick: () => { this.node.hidden = true; } }, "×"));
    this.node.hidden = false;
  }
}
