// Replay of a finished game (app/services/replays.py): step through the log, decision by
// decision, with nothing hidden — any seat's hand may be looked at. The board, panels
// and log are the live page's own renderers, fed /api/games/{id}/replay?step=&seat=.
//
// Keys: ← → one step, Home / End the first and last, and the slider for long jumps.
// The step is kept in the address (#step=N) so a moment of the game can be shared.
import { el, fill, humanize } from "./dom.js";

const SLIDE_MS = 120;
// Who decided, when it was not the player (app/services/play.py, deadlines.py).
const SOURCES = { standin: "a bot standing in", deadline: "the deadline passed", order: "a standing order" };

export class Replay {
  /**
   * @param {object} page  the game page (main.js): ctx, chronicle, setState(), notice()
   * @param {HTMLElement} root  the replay bar
   */
  constructor(page, root) {
    this.page = page;
    this.root = root;
    this.steps = Number(page.meta.replay?.steps || 0);
    this.seat = page.meta.replay?.seat ?? null;
    this.step = 0;
    this.asked = 0; // the latest request: older answers are dropped
  }

  async start() {
    this.draw();
    document.addEventListener("keydown", (e) => this.key(e));
    window.addEventListener("hashchange", () => this.go(this.hashStep()));
    await this.go(this.hashStep());
  }

  hashStep() {
    const m = /step=(\d+)/.exec(window.location.hash);
    return m ? Number(m[1]) : 0;
  }

  draw() {
    const btn = (label, title, dataStep, onclick) => el("button", {
      type: "button", class: "btn small", title, "aria-label": title, "data-replay": dataStep, onclick }, label);
    this.slider = el("input", { type: "range", min: "0", max: String(this.steps), value: "0",
      "aria-label": "Step", class: "replay-slider",
      oninput: () => {
        clearTimeout(this.slideTimer);
        this.slideTimer = setTimeout(() => this.go(Number(this.slider.value)), SLIDE_MS);
      } });
    this.counter = el("span", { class: "replay-count", "aria-live": "polite" });
    this.what = el("p", { class: "replay-what" });
    this.perspective = el("select", { "aria-label": "Whose hand to show", class: "replay-seat",
      onchange: () => {
        this.seat = this.perspective.value === "" ? null : Number(this.perspective.value);
        this.go(this.step);
      } },
    el("option", { value: "" }, "The table (public view)"),
    (this.page.meta.replay?.seats || []).map((s) => el("option", { value: String(s.index) },
      `${this.page.ctx.powerName(s.power)} (${s.name}): hand shown`)));
    if (this.seat !== null) this.perspective.value = String(this.seat);
    fill(this.root,
      el("div", { class: "replay-controls", role: "group", "aria-label": "Replay" },
        btn("«", "The setup", "first", () => this.go(0)),
        btn("◀", "One step back", "back", () => this.go(this.step - 1)),
        this.slider,
        btn("▶", "One step forward", "forward", () => this.go(this.step + 1)),
        btn("»", "The end", "last", () => this.go(this.steps)),
        this.counter, this.perspective),
      this.what);
  }

  key(e) {
    if (e.target && ["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName) && e.target !== this.slider) return;
    const to = { ArrowLeft: this.step - 1, ArrowRight: this.step + 1, Home: 0, End: this.steps }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    this.go(to);
  }

  async go(step) {
    const target = Math.max(0, Math.min(this.steps, step));
    const ask = ++this.asked;
    const q = `step=${target}${this.seat === null ? "" : `&seat=${this.seat}`}`;
    try {
      const response = await fetch(`/api/games/${this.page.meta.game_id}/replay?${q}`, {
        credentials: "same-origin", headers: { Accept: "application/json" } });
      const data = await response.json();
      if (!response.ok) throw new Error(data.detail || response.statusText);
      if (ask !== this.asked) return;
      this.show(data);
    } catch (err) {
      if (ask === this.asked) this.page.notice(`The replay could not load step ${target}: ${err.message}`, "error");
    }
  }

  show(data) {
    this.step = data.replay.step;
    this.page.chronicle.reset();
    // Before the last step the game is still being played: no winner, no Rematch yet.
    const last = this.step >= this.steps;
    this.page.setState(last ? data : { ...data, status: "active", outcome: null });
    this.slider.value = String(this.step);
    this.counter.textContent = `Step ${this.step} of ${this.steps}`;
    document.body.dataset.step = String(this.step);
    this.root.querySelector('[data-replay="first"]').disabled = this.step === 0;
    this.root.querySelector('[data-replay="back"]').disabled = this.step === 0;
    this.root.querySelector('[data-replay="forward"]').disabled = this.step === this.steps;
    this.root.querySelector('[data-replay="last"]').disabled = this.step === this.steps;
    fill(this.what, this.describe(data.replay.action));
    history.replaceState(null, "", `#step=${this.step}`);
  }

  /** "Kushan (alice): endeavour — conquest, from Bactria, against Sogdiana, 2 talents". */
  describe(entry) {
    if (!entry) return "The setup, before anyone has decided.";
    const ctx = this.page.ctx;
    const { type, ...rest } = entry.action || {};
    const parts = Object.entries(rest).map(([k, v]) => `${humanize(k).toLowerCase()}: ${ctx.valueName(k, v)}`);
    const who = ctx.seatName(entry.seat);
    const by = SOURCES[entry.source] ? ` (${SOURCES[entry.source]})` : "";
    return [el("strong", {}, `${who}${by}: `), humanize(type || "action"), parts.length ? ` — ${parts.join(", ")}` : ""];
  }
}
