// The tutorial's coach (app/services/tutorial.py): after every change of the position it
// asks the server what to do next, highlights that control (a chip, a button, a dialog
// choice), and says why in one sentence linked to the rule. It shows the seven situations
// met so far. At the end: the finished game and a "Play a real game" button.
//
// The coach never acts: the player clicks. Leaving is just leaving; the tutorial is an
// ordinary game without a clock, resumed from the lobby ("Continue the tutorial").
// Before the first move it says how a game is won ("Got it" goes on). It never covers
// the control it points at: on a wide screen it has a row of its own between the map and
// the decision panel; on a narrow one it stays in the panel's flow (its words also at
// the foot of the screen), and the control is scrolled clear of both.
import { el, fill, ruleLink } from "./dom.js";

const key = (a) => JSON.stringify(a, Object.keys(a).sort());
const WIZARD = ["kind", "base", "target"];

export class Tutor {
  constructor(page, root) {
    this.page = page;
    this.root = root;
    this.asked = 0;
    this.advice = null;
    root.hidden = false;
    this.home = root.parentElement;
    this.wide = window.matchMedia("(min-width: 900px)");
    this.place();
    this.wide.addEventListener?.("change", () => this.place());
    this.goalRead = sessionStorage.getItem(`coach-goal-${page.meta.game_id}`) === "1";
    // on a phone the control may be far below the coach: its words follow at the bottom
    this.mini = el("div", { class: "coach-mini", id: "coach-mini", "aria-hidden": "true" });
    document.body.appendChild(this.mini);
    document.body.classList.add("coach-on");
    this.observer = new MutationObserver(() => this.mark());
    this.observer.observe(document.getElementById("decide-body"), { childList: true, subtree: true });
    const dialog = document.getElementById("decision-dialog");
    if (dialog) this.observer.observe(dialog, { childList: true, subtree: true });
  }

  /** A row of its own between the map and the decision panel on a wide screen, in
   * the decision panel's flow on a narrow one. */
  place() {
    const layout = document.querySelector(".game-layout");
    const decide = document.getElementById("decide");
    const wide = this.wide.matches && layout && decide && decide.parentElement === layout;
    if (wide) {
      layout.insertBefore(this.root, decide);
    } else if (this.home && this.root.parentElement !== this.home) {
      this.home.prepend(this.root);
    }
    this.root.classList.toggle("coach-row", Boolean(wide));
    layout?.classList.toggle("has-coach", Boolean(wide));
  }

  async update(state) {
    if (this.version === state.version) return;
    this.version = state.version;
    const ask = ++this.asked;
    try {
      const r = await fetch(`/tutorial/${this.page.meta.game_id}/coach`, { credentials: "same-origin" });
      if (!r.ok) return;
      const advice = await r.json();
      if (ask !== this.asked) return;
      this.advice = advice;
      this.draw(advice);
      this.mark();
    } catch { /* the coach is a help, the game goes on without it */ }
  }

  draw(a) {
    this.root.dataset.version = String(a.version);
    const done = a.situations.filter((s) => s.done).length;
    const steps = el("ol", { class: "coach-steps", "aria-label": "Situations" },
      a.situations.map((s) => el("li", { class: s.done ? "done" : "", "data-situation": s.id }, s.done ? "✓ " : "", s.title)));
    if (a.over) {
      fill(this.root, el("h2", {}, "Tutorial complete"),
        el("p", {}, `You met ${done} of ${a.situations.length} situations and finished a game. The result is below; every rule you used is in the rulebook.`),
        steps,
        el("p", {}, el("a", { class: "btn primary", href: "/games/new", id: "play-real" }, "Play a real game"),
          " ", el("a", { class: "btn", href: "/rules", target: "_blank", rel: "noopener" }, "Read the rules")));
      fill(this.mini, el("strong", {}, "Tutorial complete: "), "the result and the “Play a real game” button are in the decision panel.");
      this.root.dataset.step = "over";
      this.root.scrollIntoView({ block: "nearest" });
      return;
    }
    const goal = a.situations.find((s) => s.id === "goal");
    if (a.goal && goal && !goal.done && !this.goalRead) {
      // before the first move: what the game is for, then on to the first step
      fill(this.mini, el("strong", {}, `${a.goal.title}: `), "read the coach above the decision panel.");
      fill(this.root,
        el("h2", {}, `Tutorial · ${a.goal.title}`),
        el("p", { class: "coach-text" }, a.goal.text, " (", a.goal.rules.map((r, i) => [i ? ", " : "", ruleLink(r)]), ")"),
        el("p", {}, el("button", { type: "button", class: "btn primary", id: "coach-goal-ok", onclick: () => {
          this.goalRead = true;
          sessionStorage.setItem(`coach-goal-${this.page.meta.game_id}`, "1");
          this.draw(this.advice);
          this.mark();
        } }, "Got it: the first move")),
        steps);
      this.root.dataset.step = "goal";
      return;
    }
    if (!a.action) {
      fill(this.root, el("h2", {}, "Tutorial"), el("p", {}, "The Han are deciding…"), steps);
      this.root.dataset.step = "waiting";
      return;
    }
    fill(this.mini, el("strong", {}, `${a.title}: `), a.doing || a.text);
    fill(this.root,
      el("h2", {}, `Tutorial · ${a.title}`),
      el("p", { class: "coach-text" }, a.text, " ", a.rules.length ? ["(", a.rules.map((r, i) => [i ? ", " : "", ruleLink(r)]), ")"] : null),
      a.doing ? el("p", { class: "coach-doing" }, el("strong", {}, a.doing)) : null,
      el("p", { class: "coach-hint" }, "The control to use glows. ", el("a", { href: "/" }, "Leave"), " — you can resume from the lobby."),
      steps);
    this.root.dataset.step = a.situation || a.action.type;
  }

  /** Put the glow on the one control that takes the coach's action now. */
  mark() {
    for (const n of document.querySelectorAll(".coach-target")) n.classList.remove("coach-target");
    if (this.root.dataset.step === "goal") {
      const ok = document.getElementById("coach-goal-ok");
      if (ok) {
        ok.classList.add("coach-target");
        // on a phone the coach sits below the map and its bar at the foot of the screen:
        // bring the button clear of both (issue 40: it was under the bar)
        if (!this.wide.matches && this.shown !== ok) {
          this.shown = ok;
          ok.scrollIntoView({ block: "center" });
        }
      }
      return;
    }
    const a = this.advice?.action;
    // the wizard lists the coach's value first in a long list ("Achaea (suggested)")
    const decisions = this.page.decisions;
    const suggest = a && a.type === "endeavour" ? a : null;
    if (decisions && JSON.stringify(decisions.suggested || null) !== JSON.stringify(suggest)) {
      decisions.suggested = suggest;
      if (suggest && document.querySelector(".wizard select[data-field]")) decisions.rerender();
    }
    if (!a) return;
    const target = this.target(a);
    if (target) {
      target.classList.add("coach-target");
      if (!this.shown || this.shown !== target) {
        this.shown = target;
        // on a narrow screen the coach's words sit at the foot: keep the control clear
        target.scrollIntoView({ block: this.wide.matches ? "nearest" : "center" });
      }
    }
  }

  target(a) {
    const q = (sel) => document.querySelector(sel);
    const css = (v) => CSS.escape(typeof v === "string" ? v : JSON.stringify(v));
    if (a.type === "defend") return q(`#decision-dialog button[data-action="defend"][data-talents="${a.talents}"]`);
    if (a.type === "vote") return q(`#decision-dialog button[data-action="vote"][data-choice="${css(a.choice)}"]`);
    if (a.type === "endeavour") {
      const sel = this.page.decisions.sel || {};
      const fields = [...WIZARD, ...Object.keys(a).filter((k) => !["type", "talents", ...WIZARD].includes(k)), "talents"];
      for (const f of fields) {
        if (!(f in a)) continue;
        if (JSON.stringify(sel[f]) === JSON.stringify(a[f])) continue;
        const chip = q(`.wizard button.chip[data-field="${f}"][data-value="${css(a[f])}"]`);
        if (chip) return chip;
        const select = q(`.wizard select[data-field="${f}"]`);
        if (select) return select;
      }
      return q(`.wizard .commit button[data-key="${css(key(a))}"]`);
    }
    if (a.type === "tax" || a.type === "plunder") {
      const sel = this.page.decisions.sel || {};
      const full = q(`.taxation .court-tax button[data-key="${css(key(a))}"]`);  // the court's whole yield: one click
      if (full) return full;
      if (sel.taxArea !== a.area) return q(`.taxation .tax-areas button[data-area="${css(a.area)}"]`);
      const chosen = sel.taxAction && key(sel.taxAction) === key(a);
      if (!chosen) return q(`.taxation button[data-tax="${a.type === "plunder" ? "plunder" : a.amount}"]`);
      return q(`.taxation .commit button[data-key="${css(key(a))}"]`);
    }
    return q(`#decide-body button[data-key="${css(key(a))}"]`) || q(`#decide-body button[data-action="${a.type}"]:not([disabled])`);
  }
}
