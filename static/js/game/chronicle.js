// The chronicle (event log; rule numbers become links to /rules#rN) and the table chat.
import { el, fill, ruleLink } from "./dom.js";

const RULE_IN_TEXT = /\((?:rule\s*|§\s*)?(\d{1,2}\.\d{1,3}[a-z]?)\)|§\s?(\d{1,2}\.\d{1,3}[a-z]?)/gi;

/** Text with "(10.36)" or "§10.36" turned into links. */
export function linkRules(text) {
  const parts = [];
  let last = 0;
  for (const m of String(text).matchAll(RULE_IN_TEXT)) {
    parts.push(text.slice(last, m.index));
    parts.push(ruleLink(m[1] || m[2]));
    last = m.index + m[0].length;
  }
  parts.push(String(text).slice(last));
  return parts;
}

const COUNTED = "talents|years|coins|votes|strikes|decisions|areas|counters|results|cards|points|advisors|notables|turns";

/** The engine's lines in plain English: no internal names ("plot_coup" → "plot coup"),
 * "an" before a vowel ("a administration" → "an administration"), and the singular after
 * one ("1 talents" → "1 talent"). */
export function tidy(text) {
  return String(text)
    .replace(/\b([a-z]+(?:_[a-z]+)+)\b/g, (_, w) => w.replace(/_/g, " "))
    .replace(/\b([Aa]) (?=[aeiouAEIOU])/g, "$1n ")
    .replace(new RegExp(`(^|[^\\d.,+-])([+-]?1) (${COUNTED})\\b`, "g"), (_, pre, one, w) => `${pre}${one} ${w.slice(0, -1)}`);
}

/** The chronicle's "wars and pacts" (the same kinds as app/services/catchup.py). */
export const WARS_AND_PACTS = new Set(["diplomacy", "agreement", "breach", "parley", "accursed", "tribute", "exile", "offer"]);
/** Lines of those kinds that are neither: a pass (3.2) and the diplomatic phase's end (3.4). */
const PROCEDURE = new Set(["3.2", "3.4"]);
const SEAT_KEYS = ["seat", "owner", "from", "to", "defender", "winner", "payer", "payee"];
const FILTERS = { all: "All", mine: "Mine", pacts: "Wars and pacts" };

function store(key, value) {
  try {
    if (value === undefined) return window.localStorage.getItem(key);
    window.localStorage.setItem(key, value);
  } catch { /* private mode: the choice lasts the page */ }
  return null;
}

export class Chronicle {
  /**
   * @param {HTMLOListElement} list   the log
   * @param {HTMLElement} tools       where the order and filter controls go (optional)
   * @param {function} me             () => {seat, name}: whose lines are "mine"
   */
  constructor(list, tools = null, me = () => ({})) {
    this.list = list;
    this.me = me;
    this.seen = new Set();
    this.lastSeq = 0;
    this.newestFirst = store("ig-log-order") === "newest";
    this.filter = FILTERS[store("ig-log-filter")] ? store("ig-log-filter") : "all";
    if (tools) this.controls(tools);
  }

  controls(tools) {
    const select = el("select", { id: "log-filter", "aria-label": "Show in the chronicle",
      onchange: () => this.setFilter(select.value) },
    Object.entries(FILTERS).map(([k, label]) => el("option", { value: k, selected: k === this.filter }, label)));
    const order = el("button", { type: "button", id: "log-order", class: "btn small ghost",
      "aria-pressed": String(this.newestFirst), onclick: () => this.setOrder(!this.newestFirst) },
    this.newestFirst ? "Newest first" : "Oldest first");
    this.orderButton = order;
    this.filterSelect = select;
    fill(tools, el("label", {}, "Show ", select), order);
  }

  setOrder(newestFirst) {
    if (newestFirst === this.newestFirst) return;
    this.newestFirst = newestFirst;
    store("ig-log-order", newestFirst ? "newest" : "oldest");
    this.list.replaceChildren(...[...this.list.children].reverse());
    if (this.orderButton) {
      this.orderButton.textContent = newestFirst ? "Newest first" : "Oldest first";
      this.orderButton.setAttribute("aria-pressed", String(newestFirst));
    }
    this.list.scrollTop = newestFirst ? 0 : this.list.scrollHeight;
  }

  /** A spectator has no lines of "mine": the choice is offered to a seat only. */
  seated(on) {
    const mine = this.filterSelect?.querySelector("option[value=mine]");
    if (mine) mine.hidden = !on;
    if (!on && this.filter === "mine") this.setFilter("all");
  }

  setFilter(filter) {
    this.filter = FILTERS[filter] ? filter : "all";
    store("ig-log-filter", this.filter);
    for (const li of this.list.children) this.applyFilter(li);
  }

  /** Whether line `li` is one of mine: private to me, about my seat, or naming my power. */
  isMine(li) {
    const me = this.me() || {};
    if (me.seat === null || me.seat === undefined) return false;
    if (li.dataset.to !== undefined) return true; // a private line reaches only its seats
    if ((li.dataset.seats || "").split(",").includes(String(me.seat))) return true;
    if (!me.name) return false;
    const name = me.name.replace(/[.*+?^$(){}|[\]\\]/g, "\\$&");
    return new RegExp(`\\b${name}\\b`).test(li.textContent);
  }

  applyFilter(li) {
    const show = this.filter === "all"
      || (this.filter === "pacts" && WARS_AND_PACTS.has(li.dataset.kind) && !PROCEDURE.has(li.dataset.rule))
      || (this.filter === "mine" && this.isMine(li));
    li.hidden = !show;
  }

  /** The last `n` lines, as new nodes (for the "latest" box in the decision panel). */
  recent(n) {
    const lines = [...this.list.children];
    const last = this.newestFirst ? lines.slice(0, n).reverse() : lines.slice(-n);
    return last.map((li) => { const c = li.cloneNode(true); c.hidden = false; return c; });
  }

  /** Empty the log (the replay shows the log as it stood at each step). */
  reset() {
    this.list.replaceChildren();
    this.seen = new Set();
    this.lastSeq = 0;
  }

  /** Add events (deduplicated by seq when they carry one), in the order chosen. */
  add(events) {
    if (!Array.isArray(events) || !events.length) return;
    const nearBottom = this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 40;
    for (const ev of events) {
      const seq = ev.seq ?? ev.id;
      const key = seq !== undefined ? `s${seq}` : `t${ev.text}|${this.seen.size}`;
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      if (typeof seq === "number" && seq > this.lastSeq) this.lastSeq = seq;
      const rule = ev.rule && !String(ev.text || "").includes(String(ev.rule)) ? ruleLink(ev.rule) : null;
      const data = ev.data || {};
      const seats = SEAT_KEYS.map((k) => data[k]).filter((v) => Number.isInteger(v));
      const li = el("li", { class: `ev ev-${ev.kind || "info"}${ev.to ? " private" : ""}`,
        "data-kind": ev.kind || "info", "data-rule": ev.rule ? String(ev.rule) : null, "data-seq": typeof seq === "number" ? String(seq) : null,
        "data-seats": seats.length ? seats.join(",") : null, "data-to": ev.to ? ev.to.join(",") : null },
        ev.to ? el("span", { class: "private-tag", title: "Only you see this" }, "only you") : null,
        ev.forced ? el("span", { class: "forced-tag", title: "The only move open: played at once" }, "no choice") : null,
        linkRules(tidy(ev.text || "")), rule ? [" ", rule] : null);
      if (this.filter !== "all") this.applyFilter(li);
      if (this.newestFirst) this.list.prepend(li);
      else this.list.appendChild(li);
    }
    if (this.newestFirst) this.list.scrollTop = 0;
    else if (nearBottom || this.list.childElementCount < 30) this.list.scrollTop = this.list.scrollHeight;
  }
}

/**
 * The table talk. A signed-in reader may mute it for herself (the server then sends her
 * no line of this table: app/services/moderation.py; the page says so and shows none),
 * block a player from a line of theirs (none of their lines reaches her again, at any
 * table: the server filters them) or report a line to the moderators with a reason.
 */
export class Chat {
  constructor(root, api, names) {
    this.root = root;
    this.api = api;
    this.names = names;
    this.lastId = 0;
    this.available = true;
    this.me = Number(document.querySelector('meta[name="user-id"]')?.content) || null;
    this.muted = false;
    this.blocked = new Set(); // the user ids blocked from this page
    this.reasons = null; // the report reasons, read once
    this.list = el("ol", { class: "chat-list", "aria-live": "polite", "aria-label": "Messages" });
    this.input = el("input", { type: "text", name: "chat", maxlength: "500", autocomplete: "off",
      "aria-label": "Message to the table", placeholder: "Say something to the table" });
    this.form = el("form", { class: "chat-form", onsubmit: (e) => { e.preventDefault(); this.say(); } },
      this.input, el("button", { type: "submit", class: "btn small" }, "Send"));
    this.muteButton = el("button", { type: "button", class: "btn small chat-mute", "aria-pressed": "false",
      onclick: () => this.toggleMute() }, "Mute table talk");
    this.mutedNote = el("p", { class: "hint chat-muted", hidden: true },
      "Table talk is muted for you: new lines are not shown. Unmute to read what was said.");
    const tools = this.me ? el("div", { class: "chat-tools" }, this.muteButton) : null;
    fill(this.root, tools, this.mutedNote, this.list, this.form);
    if (this.me) this.api.muted().then((on) => this.setMuted(on)).catch(() => {});
  }

  async refresh() {
    if (!this.available || this.muted) return;
    try {
      const data = await this.api.chat(this.lastId);
      this.add(Array.isArray(data) ? data : data?.messages || []);
    } catch (err) {
      if (err.status === 404 || err.status === 405) {
        this.available = false;
        fill(this.root, el("p", { class: "hint" }, "Chat is not available on this server."));
      }
    }
  }

  add(messages) {
    if (this.muted) return; // shown once she unmutes (read from the server then)
    for (const m of messages) {
      const id = Number(m.id ?? 0);
      if (id && id <= this.lastId) continue;
      if (id) this.lastId = id;
      if (this.blocked.has(Number(m.user_id))) continue;
      const who = m.username || m.user || m.author || (m.seat !== undefined ? this.names(m.seat) : "someone");
      const li = el("li", { "data-id": id || null, "data-user-id": m.user_id ?? null },
        el("strong", {}, `${who}: `), String(m.text ?? m.body ?? ""));
      if (this.me && id && m.user_id && Number(m.user_id) !== this.me && m.username) {
        li.appendChild(el("span", { class: "chat-line-tools" },
          el("button", { type: "button", class: "link chat-block", title: `Hide all of ${m.username}'s chat from you`,
            onclick: () => this.block(Number(m.user_id), m.username) }, "block"),
          el("button", { type: "button", class: "link chat-report", title: "Report this line to the moderators",
            onclick: () => this.openReport(li, id) }, "report")));
      }
      this.list.appendChild(li);
    }
    this.list.scrollTop = this.list.scrollHeight;
  }

  setMuted(on) {
    this.muted = Boolean(on);
    this.list.hidden = this.muted;
    this.mutedNote.hidden = !this.muted;
    this.muteButton.textContent = this.muted ? "Unmute table talk" : "Mute table talk";
    this.muteButton.setAttribute("aria-pressed", String(this.muted));
    this.root.classList.toggle("is-muted", this.muted);
  }

  async toggleMute() {
    try {
      this.setMuted(await this.api.mute(!this.muted));
      if (!this.muted) await this.refresh();
    } catch (err) {
      this.notice(`Not changed: ${err.message}`, "error");
    }
  }

  async block(userId, username) {
    try {
      await this.api.block(username);
    } catch (err) {
      this.notice(`Not blocked: ${err.message}`, "error");
      return;
    }
    this.blocked.add(userId);
    for (const li of this.list.querySelectorAll(`li[data-user-id="${userId}"]`)) li.remove();
    const notice = this.notice(`You block ${username}: their lines are hidden from you, here and at every table. `);
    notice.dataset.blocked = username;
    notice.appendChild(el("button", { type: "button", class: "link chat-unblock",
      onclick: () => this.unblock(userId, username) }, "Undo"));
  }

  async unblock(userId, username) {
    try {
      await this.api.unblock(username);
    } catch (err) {
      this.notice(`Not unblocked: ${err.message}`, "error");
      return;
    }
    this.blocked.delete(userId);
    this.list.replaceChildren(); // their lines come back: read the talk again
    this.lastId = 0;
    await this.refresh();
  }

  async openReport(li, messageId) {
    if (li.querySelector("form")) return;
    try {
      this.reasons = this.reasons || await this.api.reportReasons();
    } catch (err) {
      this.notice(`Reports are not available: ${err.message}`, "error");
      return;
    }
    const select = el("select", { name: "reason", "aria-label": "Why you report this line" },
      ...this.reasons.reasons.map((r) => el("option", { value: r.id }, r.label)));
    const text = el("input", { type: "text", name: "text", maxlength: String(this.reasons.max_text || 500),
      placeholder: "What happened (optional)", "aria-label": "What happened" });
    const status = el("span", { class: "hint", role: "status" });
    const form = el("form", { class: "chat-report-form", onsubmit: async (e) => {
      e.preventDefault();
      try {
        const done = await this.api.report({ message_id: messageId, reason: select.value, text: text.value });
        fill(form, el("span", { class: "hint chat-reported" }, done?.detail || "Reported."));
      } catch (err) {
        status.textContent = err.message;
        status.className = "error";
      }
    } }, select, text, el("button", { type: "submit", class: "btn small" }, "Send report"),
    el("button", { type: "button", class: "btn small", onclick: () => form.remove() }, "Cancel"), status);
    li.appendChild(form);
    select.focus();
  }

  notice(text, kind = "notice") {
    const li = el("li", { class: `chat-${kind}` }, text);
    this.list.appendChild(li);
    this.list.scrollTop = this.list.scrollHeight;
    return li;
  }

  async say() {
    const text = this.input.value.trim();
    if (!text) return;
    this.input.value = "";
    try {
      const m = await this.api.say(text);
      if (m && (m.text || m.body)) this.add([m]);
      else await this.refresh();
    } catch (err) {
      this.list.appendChild(el("li", { class: "error" }, `Not sent: ${err.message}`));
    }
  }
}
