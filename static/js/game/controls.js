// The page's seat controls beside the decisions: Undo, the stand-in banner ("A bot is
// playing for you — I'm back"), the standing-orders link, and once the game is
// over: Rematch and the game record.
//
// Nothing here decides what the rules allow. Whether an undo may be taken is the server's
// call (app/services/play.py `_undo_check`: only while the decision revealed nothing and
// nobody else was asked since); the seat view says it ahead as `can_undo`, and the button
// is offered only then. Should the server still refuse (the game moved on meanwhile), the
// refusal is shown in its words and the button stays hidden until the next position.
import { el, fill } from "./dom.js";
import { Refusal } from "./api.js";

const OVER = new Set(["finished", "aborted"]);

export class PageControls {
  /**
   * @param {object} nodes  {undo: the Undo box, standin: the banner, orders: the header link,
   *   over: the game-over box}
   * @param {object} page   the game page: api, state, refresh(), notice(), chronicle
   */
  constructor(nodes, page) {
    this.nodes = nodes;
    this.page = page;
    this.busy = false;
    this.refusedAt = null; // the version at which the server last refused an undo
  }

  mySeat(state) {
    if (state.seat === null || state.seat === undefined) return null;
    return (state.seats || []).find((s) => s.index === state.seat) || { index: state.seat };
  }

  render(state) {
    const seat = this.mySeat(state);
    const standin = Boolean(seat && seat.standin);
    const active = state.status === "active";
    if (this.nodes.orders) this.nodes.orders.hidden = !seat || OVER.has(state.status) || Boolean(this.page.meta?.replay);
    this.renderStandin(standin && active, state.clock?.away?.[String(state.seat)]);
    this.renderUndo(Boolean(seat) && active && !standin && !this.page.meta?.replay && Boolean(state.can_undo)
      && this.refusedAt !== state.version);
    this.renderOver(state, seat);
  }

  renderStandin(show, away) {
    const node = this.nodes.standin;
    if (!node) return;
    node.hidden = !show;
    if (!show) { node.replaceChildren(); delete node.dataset.text; return; }
    const since = away?.since ? new Date(away.since) : null;
    const at = since && !Number.isNaN(since.getTime()) ? ` since ${since.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}` : "";
    const why = { time: "your time ran out", away: "you said you were away", vote: "the table handed your seat to a stand-in", gone: "you left the table" }[away?.why] || "you were away";
    const text = `A bot is playing for you${at} (${why}): your standing orders first, a Standard bot for the rest, so the table never waited. The chronicle says what it did.`;
    if (node.dataset.text === text) return;
    node.dataset.text = text;
    fill(node,
      el("span", { class: "standin-text" }, text),
      el("button", { type: "button", class: "btn primary", "data-control": "reclaim",
        onclick: () => this.reclaim() }, "I'm back"));
  }

  renderUndo(show) {
    const node = this.nodes.undo;
    if (!node) return;
    node.hidden = !show;
    if (!show || node.childNodes.length) return;
    fill(node, el("button", {
      type: "button", class: "btn small ghost", "data-control": "undo",
      title: "Take back your last decision — possible while it revealed nothing (no draw, no roll) and nobody else has been asked to decide since",
      onclick: () => this.undo(),
    }, "↶ Undo my last decision"));
  }

  renderOver(state, seat) {
    const node = this.nodes.over;
    if (!node) return;
    const over = OVER.has(state.status);
    node.hidden = !over;
    if (!over) { node.replaceChildren(); return; }
    if (node.dataset.shown === String(state.game_id)) return;
    node.dataset.shown = String(state.game_id);
    fill(node,
      seat ? el("button", { type: "button", class: "btn primary", "data-control": "rematch",
        onclick: () => this.rematch() }, "Rematch") : null,
      this.page.meta?.replay ? null : el("a", { class: "btn", href: `/games/${state.game_id}/replay`,
        "data-control": "replay" }, "Step through the game"),
      el("a", { class: "btn", href: `/api/games/${state.game_id}/record`,
        download: `imperial-glory-${state.game_id}.json`, "data-control": "record" },
      "Download the game record"),
      el("p", { class: "hint" }, "The record replays to the same final position: check it with ",
        el("code", {}, "imperial-glory verify FILE"), "."));
  }

  async run(work) {
    if (this.busy) return;
    this.busy = true;
    this.page.notice("");
    try {
      await work();
    } catch (err) {
      if (err instanceof Refusal && err.status === 409) {
        this.page.notice("The game moved on meanwhile: the board now shows the latest position.", "error");
      } else {
        this.page.notice(err instanceof Refusal ? err.message : `Could not reach the server: ${err.message}`, "error");
      }
    } finally {
      this.busy = false;
    }
    await this.page.refresh();
  }

  undo() {
    const version = this.page.state?.version;
    return this.run(async () => {
      try {
        const result = await this.page.api.undo(version);
        if (result?.events) this.page.chronicle.add(result.events);
        this.page.notice("Your last decision is taken back.", "info");
      } catch (err) {
        if (err instanceof Refusal && err.status === 422) {
          this.refusedAt = version;
          this.renderUndo(false);
        }
        throw err;
      }
    });
  }

  reclaim() {
    return this.run(async () => {
      await this.page.api.reclaim();
      this.page.notice("Your seat is yours again: the bot has stepped aside.", "info");
    });
  }

  rematch() {
    return this.run(async () => {
      const game = await this.page.api.rematch();
      if (game?.id) window.location.assign(`/games/${game.id}/lobby`);
    });
  }
}
