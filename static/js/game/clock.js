// The honest clock: every deadline on the page counts down each second, and before my
// own bank runs out a warning says what will happen (my standing orders and a stand-in
// play my seat at once, app/services/deadlines.py). A game with no clock says so.
import { el, fill } from "./dom.js";

/** "4:05", "1 h 20 min", "2 days 3 h" — the time left until `ms` from now. */
export function left(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 3600) return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  const h = Math.floor(s / 3600);
  // as app/services/clocks.py words(): "24 h", "1 h 20 min", "3 days", "2 days 3 h"
  if (h < 48) return s % 3600 >= 60 ? `${h} h ${Math.floor((s % 3600) / 60)} min` : `${h} h`;
  return h % 24 ? `${Math.floor(h / 24)} days ${h % 24} h` : `${Math.floor(h / 24)} days`;
}

/** Warn this long before my bank runs out: a minute in a live game, else a tenth of a day's span. */
const PACE_SECONDS = { live: 300, daily: 86400, "24h": 86400, "72h": 259200 };

export class Clock {
  constructor(banner) {
    this.banner = banner;
    this.state = null;
    this.timer = setInterval(() => this.tick(), 1000);
  }

  render(state) {
    this.state = state;
    this.tick();
  }

  myDeadline() {
    const st = this.state;
    if (!st || st.seat === null || st.seat === undefined || st.status !== "active") return null;
    const p = (st.prompts || []).find((x) => x.seat === st.seat && x.deadline);
    const d = p ? new Date(p.deadline) : null;
    return d && !Number.isNaN(d.getTime()) ? d : null;
  }

  tick() {
    const now = Date.now();
    for (const node of document.querySelectorAll("[data-deadline]")) {
      const d = new Date(node.dataset.deadline);
      if (Number.isNaN(d.getTime())) continue;
      const ms = d.getTime() - now;
      node.textContent = ms > 0 ? ` (${left(ms)} left)` : " (time is up)";
      node.classList.toggle("urgent", ms < 60000);
    }
    for (const node of document.querySelectorAll("[data-clock-deadline]")) {
      const d = new Date(node.dataset.clockDeadline);
      if (Number.isNaN(d.getTime())) continue;
      const ms = d.getTime() - now;
      node.textContent = ms > 0 ? left(ms) : "0:00";
      node.classList.toggle("urgent", ms < 60000);
    }
    this.warn(now);
  }

  warn(now) {
    if (!this.banner) return;
    const d = this.myDeadline();
    const pace = PACE_SECONDS[this.state?.pace] || 300;
    const margin = Math.max(60, pace / 10) * 1000;
    const ms = d ? d.getTime() - now : null;
    const show = ms !== null && ms < margin;
    this.banner.hidden = !show;
    if (!show) { delete this.banner.dataset.shown; return; }
    const text = ms > 0
      ? `Only ${left(ms)} left to decide. When your clock runs out, your standing orders answer first and a bot plays your seat at once, so the table goes on; any move of yours, or "I'm back", takes it back.`
      : "Your time is up: your standing orders and a stand-in play your seat now.";
    if (this.banner.dataset.text !== text) {
      this.banner.dataset.text = text;
      fill(this.banner, el("strong", {}, "Time is short. "), text);
    }
    this.banner.dataset.shown = "1";
  }
}
