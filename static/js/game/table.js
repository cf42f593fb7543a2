// The table bar: every person's clock (a chess-style time bank, app/services/clocks.py),
// my own buttons (more time, "I'm away"), the table's votes (pause / run the clocks,
// hand a slow seat to a stand-in: app/services/tablevotes.py), and a banner for everyone
// naming who is away and who plays for them.
//
// Nothing here decides: the server says what the clocks hold (`state.clock`) and refuses
// what may not be done; a refusal is shown in its words.
import { el, fill } from "./dom.js";
import { left } from "./clock.js";

const WHY = {
  time: "their time ran out",
  away: "they said they are away",
  vote: "the table handed their seat to a stand-in",
  deleted: "they deleted their account",
  gone: "they left the table",
  suspended: "their account is suspended",
};

function hhmm(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "" : d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

export class TableBar {
  /**
   * @param {object} nodes  {bar: the clocks and buttons, absent: the banner for everyone}
   * @param {object} page   the game page: api, ctx, state, refresh(), notice()
   */
  constructor(nodes, page) {
    this.nodes = nodes;
    this.page = page;
    this.busy = false;
  }

  render(state) {
    clearTimeout(this.patience);
    const clock = state.clock;
    const active = state.status === "active" && !this.page.meta?.replay;
    this.renderAbsent(active ? clock : null, state);
    const bar = this.nodes.bar;
    if (!bar) return;
    if (!active || !clock) { bar.hidden = true; bar.replaceChildren(); return; }
    bar.hidden = false;
    const ctx = this.page.ctx;
    const me = state.seat;
    const away = clock.away || {};
    const goneSince = clock.gone || {};
    const handOverMs = (clock.hand_over_after_s ?? 120) * 1000;
    const votes = clock.votes || {};
    const present = (state.seats || []).filter((s) => s.user_id !== null && s.user_id !== undefined && !s.standin).map((s) => s.index);
    const iAmHere = me !== null && me !== undefined && present.includes(me);
    const need = (voters) => Math.floor(voters.length / 2) + 1;
    let soonest = Infinity;
    const chips = Object.entries(clock.seats || {}).map(([key, c]) => {
      const seat = Number(key);
      const gone = away[key];
      const goneAt = goneSince[key];
      const here = seat === me ? null : goneAt
        ? el("span", { class: "clock-presence gone", title: "No page of theirs is open on this game" }, `gone since ${hhmm(goneAt)}`)
        : el("span", { class: "clock-presence here" }, "present");
      // "away" in a word: the banner above says who plays for whom, and why (issue 40:
      // being away was stated three times on one screen)
      const time = gone ? el("span", { class: "clock-time", title: "Their standing orders and a stand-in bot play their seat" }, "away")
        : c.deadline ? el("time", { class: "clock-time", "data-clock-deadline": c.deadline, datetime: c.deadline }, left(new Date(c.deadline).getTime() - Date.now()))
          : c.bank !== null && c.bank !== undefined ? el("span", { class: "clock-time" }, left(c.bank * 1000)) : null;
      const skipKey = `skip:${seat}`;
      const skipVoters = present.filter((s) => s !== seat);
      // Offered only for a seat whose person is gone, or who has been deciding for longer
      // than the table's patience (the server checks it too: tablevotes.may_hand_over).
      const waited = c.since ? Date.now() - new Date(c.since).getTime() : 0;
      const slow = c.since && waited > handOverMs;
      // Draw the bar again when the table's patience with this seat runs out.
      if (c.since && c.deadline && !slow && seat !== me) soonest = Math.min(soonest, handOverMs - waited + 250);
      const canSkip = iAmHere && seat !== me && !gone && c.deadline && skipVoters.includes(me) && (goneAt || slow);
      const voted = (votes[skipKey] || []).includes(me);
      return el("li", { class: `clock-chip${c.deadline ? " running" : ""}${gone ? " away" : ""}${seat === me ? " me" : ""}`, "data-seat": key },
        el("span", { class: "clock-who" }, seat === me ? "You" : ctx.seatName(seat)),
        " ", here, here ? " " : null, time,
        votes[skipKey]?.length ? el("span", { class: "clock-vote" }, ` · ${votes[skipKey].length} of ${need(skipVoters)} voted to hand over`) : null,
        canSkip ? el("button", { type: "button", class: "btn small ghost", "data-control": "skip", "data-seat": key,
          title: "Vote to have their standing orders and a stand-in bot play their seat now, so the table need not wait (a majority of the people present)",
          onclick: () => this.skip(seat, voted, (votes[skipKey] || []).length >= need(skipVoters) - 1) },
        voted ? "Withdraw my vote" : "Hand to a stand-in") : null);
    });
    const mine = me !== null && me !== undefined ? clock.seats?.[String(me)] : null;
    const buttons = [];
    if (mine && iAmHere) {
      if (clock.control) {
        const span = (s) => (s >= 3600 && s % 3600 === 0 ? `${s / 3600} h` : s % 60 === 0 ? `${s / 60} min` : `${s} s`);
        const minutes = span(clock.control.extension);
        buttons.push(el("button", { type: "button", class: "btn small", "data-control": "extend",
          disabled: mine.extensions_left <= 0,
          title: `Add up to ${minutes} to your own clock (a few times a game), never above its ${span(clock.control.cap)} cap; the table is told`,
          onclick: () => this.post("extend", "Your clock has more time.") },
        `+${minutes} for me (${mine.extensions_left} left)`));
      }
      buttons.push(el("button", { type: "button", class: "btn small", "data-control": "away",
        title: "Your standing orders and a stand-in bot play your seat at once, so nobody waits; any move of yours, or \"I'm back\", takes it back",
        onclick: () => this.post("away", null) }, "I'm away")); // the stand-in banner says it
      if (clock.control) {
        const kind = clock.paused ? "resume" : "pause";
        const voted = (votes[kind] || []).includes(me);
        buttons.push(el("button", { type: "button", class: "btn small ghost", "data-control": kind,
          title: kind === "pause" ? "Vote to stop every clock (a majority of the people present); moves may still be made"
            : "Vote to run the clocks again (a majority of the people present)",
          onclick: () => this.vote(kind, null, !voted) },
        voted ? "Withdraw my vote" : kind === "pause" ? "Vote to pause the clocks" : "Vote to run the clocks"));
      }
    }
    const open = [];
    for (const kind of ["pause", "resume"]) {
      if (votes[kind]?.length) open.push(el("span", { class: "clock-vote" }, `${votes[kind].length} of ${need(present)} voted to ${kind === "pause" ? "pause" : "run"} the clocks`));
    }
    if (Number.isFinite(soonest)) this.patience = setTimeout(() => this.render(this.page.state || state), Math.max(soonest, 250));
    fill(bar,
      el("span", { class: "clock-head" }, clock.paused ? "Clocks paused" : clock.control ? "Clocks" : "Table"),
      el("ul", { class: "clock-chips" }, chips),
      open,
      buttons.length ? el("span", { class: "clock-buttons" }, buttons) : null);
  }

  /** A banner for everyone but the absent themselves (controls.js shows theirs). */
  renderAbsent(clock, state) {
    const node = this.nodes.absent;
    if (!node) return;
    const away = Object.entries(clock?.away || {}).filter(([seat]) => Number(seat) !== state.seat);
    node.hidden = !away.length;
    if (!away.length) { node.replaceChildren(); return; }
    const ctx = this.page.ctx;
    const text = away.map(([seat, a]) => `${ctx.seatName(Number(seat))} is away since ${hhmm(a.since)} (${WHY[a.why] || a.why})`).join("; ");
    if (node.dataset.text === text) return;
    node.dataset.text = text;
    fill(node, el("strong", {}, "Nobody waits: "), `${text}. Their standing orders and a Standard bot play for them until they are back.`);
  }

  async run(work, done) {
    if (this.busy) return;
    this.busy = true;
    this.page.notice("");
    try {
      await work();
      if (done) this.page.notice(done, "info");
    } catch (err) {
      this.page.notice(err?.message || "The server refused.", "error");
    } finally {
      this.busy = false;
    }
    await this.page.refresh();
  }

  post(what, done) {
    return this.run(() => this.page.api.post(what), done);
  }

  /** Vote to hand `seat` to a stand-in (or withdraw the vote). When this vote carries it
   * (two people at the table: one click would do), ask first: she may be right there. */
  skip(seat, voted, carries) {
    if (!voted && carries && !window.confirm(
      `Hand the seat of ${this.page.ctx.seatName(seat)} to a stand-in now? Their standing orders and a `
      + "Standard bot play it at once, until they come back.")) return undefined;
    return this.vote("skip", seat, !voted);
  }

  vote(kind, seat, yes) {
    return this.run(() => this.page.api.post("votes", { kind, seat, yes }));
  }
}
