// "While you were away": on her return, what happened since her last look (the server
// keeps each seat's last seen event: app/services/catchup.py), grouped by game turn in
// plain words, with the areas that changed outlined on the map. The page tells the server
// what it has shown (POST /api/games/{id}/seen) while it is open and visible, so the next
// catch-up starts where she left off.
import { el, fill, ruleLink } from "./dom.js";
import { linkRules } from "./chronicle.js";

function csrf() {
  return document.querySelector('meta[name="csrf-token"]')?.content || "";
}

export class CatchUp {
  /**
   * @param {HTMLElement} root  the panel (over the map)
   * @param {object} page       the game page: meta, ctx, map, chronicle, api
   */
  constructor(root, page) {
    this.root = root;
    this.page = page;
    this.data = null;
    this.hiddenSince = null;
  }

  /** Show `data` (app/services/catchup.py `catch_up`), or nothing when there is none. */
  show(data) {
    if (!this.root || !data || !(data.turns?.length || data.areas?.length)) return;
    this.data = data;
    const ctx = this.page.ctx;
    const year = (y) => (y && /^-?\d+$/.test(y) ? ctx.year(Number(y)) : y);
    const areaList = (data.areas || []).map((c) => el("li", {
      class: `catchup-area${c.mine ? " mine" : ""}`, "data-area": c.area, tabindex: "0",
      onmouseenter: () => this.pulse([c.area], true), onmouseleave: () => this.pulse([c.area], false),
      onfocus: () => this.pulse([c.area], true), onblur: () => this.pulse([c.area], false),
      onclick: () => this.page.map.focus([c.area]),
    }, el("strong", {}, c.name), `: ${c.what.join(", ")}`));
    const turns = (data.turns || []).map((t) => el("section", { class: "catchup-turn", "data-turn": String(t.turn) },
      el("h3", {}, `Game turn ${t.turn}`, t.year ? ` (${year(t.year)})` : ""),
      t.lines.length ? el("ol", {}, t.lines.map((l) => el("li", {
        class: [`ev-${l.kind}`, l.mine ? "mine" : "", l.wars_and_pacts ? "pact" : ""].join(" ").trim(),
        "data-seq": String(l.seq),
        onmouseenter: () => this.pulse(l.areas, true), onmouseleave: () => this.pulse(l.areas, false),
      }, linkRules(l.text), l.rule && !String(l.text).includes(l.rule) ? [" ", ruleLink(l.rule)] : null))) : null,
      t.more || t.routine ? el("p", { class: "hint" }, [
        t.more ? `${t.more} more line${t.more === 1 ? "" : "s"} in the chronicle` : null,
        t.routine ? `${t.routine} routine move${t.routine === 1 ? "" : "s"} (draws, petitions, taxes, initiative…)` : null,
      ].filter(Boolean).join("; ") + ".") : null));
    const headlines = data.headlines?.length
      ? el("div", { class: "catchup-summary" },
        el("p", {}, el("strong", {}, `In ${data.span}:`)),
        el("ul", { class: "catchup-headlines" }, data.headlines.map((h) => el("li", {}, h.charAt(0).toUpperCase() + h.slice(1)))))
      : el("p", { class: "catchup-summary" }, data.summary);
    fill(this.root,
      el("div", { class: "catchup-head" },
        el("h2", { id: "catchup-h" }, "While you were away"),
        el("button", { type: "button", class: "btn small", "data-control": "catchup-close",
          onclick: () => this.close() }, "Got it")),
      headlines,
      areaList.length ? el("div", { class: "catchup-areas" }, el("h3", {}, "On the map (outlined)"),
        el("ul", {}, areaList)) : null,
      turns);
    this.root.hidden = false;
    this.place();
    this.highlight();
    // once the map has taken its narrower box (its own refit runs first), the changed areas fill it
    if (this.beside && data.areas?.length) {
      setTimeout(() => { if (this.data === data) this.page.map?.focus?.(data.areas.map((c) => c.area)); }, 200);
    }
  }

  /** Where the panel goes: on a phone, the first thing under the header (above the
   * banners, which fold into one line while it is open); on a desktop, beside the map
   * in a column of its own, so it never covers the areas it outlines. */
  place() {
    const phone = window.matchMedia("(max-width: 899px)").matches;
    const wrap = this.home || this.root.parentElement;
    this.home = wrap;
    this.beside = !phone;
    if (phone) {
      const header = document.querySelector(".game-bar");
      if (header && this.root.previousElementSibling !== header) header.after(this.root);
      this.root.classList.add("top");
      document.body.classList.add("catching-up");
    } else {
      if (this.root.parentElement !== wrap) wrap.appendChild(this.root);
      this.root.classList.remove("top");
      wrap.classList.add("with-catchup");
    }
  }

  /** Outline the changed areas on the map (each area's path also carries `since`). */
  highlight(pulse = []) {
    const map = this.page.map;
    if (!this.data || !map?.areaPaths) return;
    for (const c of this.data.areas || []) map.areaPaths.get(c.area)?.classList.add("since");
    map.outline(this.data.areas || [], pulse);
  }

  pulse(ids, on) {
    this.highlight(on ? ids || [] : []);
  }

  close() {
    this.root.hidden = true;
    this.home?.classList.remove("with-catchup");
    document.body.classList.remove("catching-up");
    this.data = null;
    for (const p of this.page.map?.svg?.querySelectorAll(".area.since") || []) p.classList.remove("since");
    this.page.map?.outline([]);
    this.markSeen();
  }

  /** Tell the server the page has shown every event up to the chronicle's last. */
  markSeen(keepalive = false) {
    const seq = this.page.chronicle?.lastSeq || 0;
    const token = csrf();
    if (!seq || !token || this.page.state?.seat === null || this.page.state?.seat === undefined) return;
    if (seq <= (this.sent || 0)) return;
    this.sent = seq;
    fetch(`/api/games/${this.page.meta.game_id}/seen`, {
      method: "POST", credentials: "same-origin", keepalive,
      headers: { "Content-Type": "application/json", "X-CSRF-Token": token },
      body: JSON.stringify({ seq }),
    }).catch(() => { this.sent = 0; });
  }

  /** While the page is open: seen once a minute when visible, and when she leaves the
   * tab; back after a while in another tab, she is shown what she missed meanwhile. */
  watch() {
    setInterval(() => { if (document.visibilityState === "visible") this.markSeen(); }, 60000);
    document.addEventListener("visibilitychange", async () => {
      if (document.visibilityState === "hidden") {
        this.markSeen(true);
        this.hiddenSince = Date.now();
        return;
      }
      const away = this.hiddenSince ? Date.now() - this.hiddenSince : 0;
      this.hiddenSince = null;
      if (away < 120000) return;
      try {
        const r = await fetch(`/api/games/${this.page.meta.game_id}/catchup`, { credentials: "same-origin",
          headers: { Accept: "application/json" } });
        if (r.ok) this.show((await r.json()).catchup);
      } catch { /* the chronicle has it all anyway */ }
    });
  }
}
