// The game page: boots from the JSON embedded by app/web/routes/play.py, loads the map,
// renders the seat view, and keeps it live (static/js/live.js; polling /view as a fallback).
//
// Modules (plain ES modules, no build step):
//   main.js       this file: state, transport (socket or HTTP), naming helpers (ctx)
//   api.js        /api/games/{id}/view, /actions, /explain, /events, /chat
//   map.js        the SVG map: owner colour + pattern, markers, details card, zoom, pick mode
//   decide.js     the decision panel and the dialogs, built ONLY from legal_actions
//   explain.js    the rating breakdown and the odds, shown before a commit
//   panels.js     rulers, my advisors, my areas, Court, counters, diplomacy, scores, status
//   chronicle.js  the log (rule numbers link to /rules#rN) and the table talk
//   controls.js   Undo, the stand-in banner, the standing-orders link, Rematch and the record
//   table.js      the clocks per seat, more time, "I'm away", the table's votes, who is away
//   replay.js     a finished game step by step (/games/{id}/replay), instead of going live
//   dom.js        el()/fill() and small formatters
// The browser never decides what is legal: it shows what the server offers and sends back
// exactly one of those actions, with the version it was built on.
import { el, fill, humanize } from "./dom.js";
import { GameApi, Refusal } from "./api.js";
import { GameMap } from "./map.js";
import { Decisions } from "./decide.js";
import { renderExplain } from "./explain.js";
import { Chronicle, Chat } from "./chronicle.js";
import { PageControls } from "./controls.js";
import { Clock } from "./clock.js";
import { CatchUp } from "./catchup.js";
import { OfferAnswers } from "./answers.js";
import { TableBar } from "./table.js";
import { renderAgreements } from "./grand.js";
import { renderRulers, renderMine, renderMarket, renderCounters, renderScores, renderRelations, renderStatus, renderMyAreas } from "./panels.js";

const POLL_MS = 2500;
const STALE = "The game moved on before your move arrived: the board now shows the latest position, so decide again.";

function readMeta() {
  const node = document.getElementById("game-meta");
  return node ? JSON.parse(node.textContent) : {};
}

class GamePage {
  constructor(meta) {
    this.meta = meta;
    this.api = new GameApi(meta.game_id);
    this.state = null;
    this.live = null;
    this.$ = (id) => document.getElementById(id);
    const ctx = this.context();
    this.ctx = ctx;
    this.map = new GameMap(this.$("map"), this.$("area-card"), meta);
    ctx.map = this.map;
    this.decisions = new Decisions(this.$("decide-body"), this.$("decision-dialog"), ctx);
    this.chronicle = new Chronicle(this.$("log-list"), this.$("log-tools"), () => {
      const seat = this.state?.seat;
      return { seat, name: this.state?.view?.players?.[seat]?.name };
    });
    ctx.recent = (n) => this.chronicle.recent(n);
    this.controls = new PageControls({ undo: this.$("undo-box"), standin: this.$("standin"),
      orders: this.$("orders-link"), over: this.$("game-over") }, this);
    this.clock = new Clock(this.$("clock-warning"));
    this.catchup = new CatchUp(this.$("catchup"), this);
    this.answers = new OfferAnswers(this.$("offer-answer"), this); // 20.14-20.15
    this.table = new TableBar({ bar: this.$("table-bar"), absent: this.$("absent") }, this);
    this.tutor = null;
    if (meta.scenario === "tutorial" && !meta.replay && this.$("coach")) {
      import("./tutor.js").then(({ Tutor }) => {
        this.tutor = new Tutor(this, this.$("coach"));
        if (this.state) this.tutor.update(this.state);
      });
    }
    this.chat = this.$("chat") ? new Chat(this.$("chat"), this.api, (s) => ctx.seatName(s)) : null;
  }

  context() {
    const meta = this.meta;
    const page = this;
    const cardInfo = (card) => {
      // engine cards are {id: "k12", kind, ref}: the content id is `ref`
      const id = card && typeof card === "object" ? (card.ref ?? card.card ?? card.type ?? card.id) : card;
      return { id, info: meta.cards?.[id] || null, raw: card };
    };
    return {
      api: this.api,
      meta,
      send: (action) => page.send(action),
      powerOf: (owner) => page.powerOf(owner),
      powerName: (p) => meta.powers?.[p]?.name || humanize(p),
      colour: (p) => meta.powers?.[p]?.colour || `var(--power-${p}, #777)`,
      pattern: (p) => meta.powers?.[p]?.pattern || "plain",
      seatName(seat) {
        const player = page.state?.view?.players?.[seat];
        const power = player ? this.powerName(player.power) : `Seat ${Number(seat) + 1}`;
        const who = meta.seat_users?.[seat];
        return who ? `${power} (${who})` : power;
      },
      /** A seat's power name (no player name): for the politics lines. */
      powerNameOf(seat) {
        const player = page.state?.view?.players?.[Number(seat)];
        return player ? this.powerName(player.power) : `Seat ${Number(seat) + 1}`;
      },
      rulerName: (r) => (r && typeof r === "object" ? r.name : meta.rulers?.[r]) || humanize(r) || "—",
      cardName(card) {
        const { id, info, raw } = cardInfo(card);
        if (raw && typeof raw === "object" && raw.name) return raw.name;
        return info?.name || humanize(id);
      },
      notable(card) { return cardInfo(card).info; },
      cardFace(card) {
        const { id, info, raw } = cardInfo(card);
        const name = this.cardName(card);
        const kind = (raw && typeof raw === "object" && raw.kind) || info?.kind || "";
        return el("div", { class: `card card-${kind || "advisor"}`, "data-card": String(id) },
          el("div", { class: "card-name" }, name),
          info?.stature ? el("div", { class: "card-meta" }, humanize(info.stature)) : null,
          kind === "notable" && info ? el("div", { class: "card-meta" },
            [meta.advisorNames?.[info.type] || humanize(info.type), info.bonus ? `+${info.bonus}` : null].filter(Boolean).join(" · ")) : null,
          kind === "notable" && info?.ability ? el("div", { class: "card-ability" }, info.ability) : null,
          kind === "notable" && info?.note ? el("div", { class: "card-text" }, info.note) : null,
          kind === "burden" ? el("div", { class: "card-meta" }, "Burden: a dead draw; drawn by a petition, it fails it") : null,
          info?.endeavours ? el("div", { class: "card-text" }, info.endeavours.map(humanize).join(" · ")) : null,
          info?.text ? el("div", { class: "card-text" }, info.text) : null);
      },
      valueName(field, v) {
        if (v === null || v === undefined) return "none";
        if (typeof v === "boolean") return v ? "yes" : "no";
        if (["base", "target", "area"].includes(field) || meta.areas?.[v]) {
          if (meta.areas?.[v]) return meta.areas[v].name;
          if (meta.seas?.[v]) return meta.seas[v];
        }
        if (field === "kind") return meta.endeavours?.[v] || humanize(v);
        if (field === "power" || (typeof v === "string" && meta.powers?.[v])) return this.powerName(v);
        if (typeof v === "string" && meta.cards?.[v]?.name) return meta.cards[v].name;
        if (typeof v === "string" && meta.seas?.[v]) return meta.seas[v];
        if (field === "talents") return `${v}`;
        if (field === "seat") return this.seatName(v);
        return typeof v === "object" ? JSON.stringify(v) : humanize(v);
      },
      year(y) { return y < 0 ? `${-y} BCE` : `${y} CE`; },
      areaName: (id) => meta.areas?.[id]?.name || humanize(id),
    };
  }

  powerOf(owner) {
    if (owner === null || owner === undefined) return null;
    if (typeof owner === "number" || /^\d+$/.test(String(owner))) {
      return this.state?.view?.players?.[Number(owner)]?.power ?? null;
    }
    return String(owner);
  }

  async start() {
    if (this.meta.replay) return this.startReplay();
    this.status("connecting");
    const mapLoad = this.map.load(this.meta.map_url || "/static/map/map.svg").catch((err) => {
      fill(this.$("map"), el("p", { class: "hint map-missing" }, `The map could not be loaded (${err.message}).`));
    });
    try {
      const first = await this.api.view();
      await this.catchUpEvents();
      this.setState(first);
      this.answers.start(Math.max(this.chronicle.lastSeq || 0, Number(first.last_seq) || 0));
    } catch (err) {
      this.notice(err.message, "error");
    }
    await mapLoad;
    if (this.state) this.map.render(this.state.view || {}, (o) => this.powerOf(o));
    this.catchup.show(this.meta.catchup); // "while you were away"
    this.catchup.watch();
    await this.connect();
    this.keepPresence();
    if (this.chat) {
      this.chat.refresh();
      setInterval(() => this.chat.refresh(), 5000);
    }
  }

  /** "Still here", once a minute, for the lobby's "who is online" (POST /presence). */
  keepPresence() {
    const token = document.querySelector('meta[name="csrf-token"]')?.content;
    if (!token || this.state?.seat === null || this.state?.seat === undefined) return;
    const ping = () => fetch("/presence", { method: "POST", credentials: "same-origin",
      headers: { "X-CSRF-Token": token } }).catch(() => {});
    ping();
    setInterval(ping, 60000);
  }

  /** A finished game, step by step (replay.js): no socket, no polling. */
  async startReplay() {
    this.status("replay");
    const advisors = this.$("mine")?.parentElement?.querySelector("summary h2");
    if (advisors) advisors.textContent = "Advisors of the hand shown";
    try {
      await this.map.load(this.meta.map_url || "/static/map/map.svg");
    } catch (err) {
      fill(this.$("map"), el("p", { class: "hint map-missing" }, `The map could not be loaded (${err.message}).`));
    }
    const { Replay } = await import("./replay.js");
    this.replay = new Replay(this, this.$("replay-bar"));
    await this.replay.start();
  }

  async connect() {
    let live = null;
    try {
      live = await import("/static/js/live.js");
    } catch {
      live = null;
    }
    if (live && typeof live.connectGame === "function") {
      this.live = live.connectGame(this.meta.game_id, {
        onState: (payload) => this.receive(payload),
        onUpdate: (payload) => this.receive(payload),
        onError: (err) => this.notice(err?.reason || err?.message || String(err), "error"),
        onStatus: (s) => this.status(s),
        onChat: (msg) => this.chat?.add([msg.message || msg]),
      });
    } else {
      this.status("polling");
    }
    // The socket is the main path. While it is not connected (or absent) the page polls
    // /view; once connected, a slow poll only heals a missed message.
    let quiet = 0;
    const tick = async () => {
      const connected = this.live && this.live.status === "connected";
      quiet += POLL_MS;
      if (!connected || quiet >= 30000) {
        quiet = 0;
        await this.refresh();
      }
      setTimeout(tick, POLL_MS);
    };
    setTimeout(tick, POLL_MS);
  }

  receive(payload) {
    if (!payload) return;
    if (payload.events) this.chronicle.add(payload.events);
    if (payload.events) this.answers.see(payload.events);
    if (payload.view || payload.legal_actions) {
      if (!this.state || payload.version === undefined || payload.version >= (this.state.version ?? -1)) {
        this.setState({ ...(this.state || {}), ...payload });
      }
    } else if (payload.version !== undefined && this.state && payload.version > this.state.version) {
      this.refresh();
    }
  }

  /** Events after the last one shown (the view carries none; the socket carries new ones). */
  async catchUpEvents() {
    try {
      const data = await this.api.events(this.chronicle.lastSeq || 0);
      this.chronicle.add(data?.events || []);
      this.answers?.see(data?.events || []);
    } catch {
      /* the log is a convenience; the board is what matters */
    }
  }

  async refresh() {
    try {
      const next = await this.api.view();
      if (this.noticeKind === "connection") this.notice("");
      if (this.$("conn")?.dataset.state === "offline") this.status(this.live?.status || "online");
      if (next.last_seq !== undefined && next.last_seq > (this.chronicle.lastSeq || 0)) {
        await this.catchUpEvents();
      }
      // A push may have brought a newer version while this answer was on its way: an
      // older answer must not take the page back (the socket is not pushed it again).
      if (this.state && typeof next.version === "number" && next.version < (this.state.version ?? -1)) return;
      if (!this.state || next.version !== this.state.version || JSON.stringify(next.legal_actions) !== JSON.stringify(this.state.legal_actions)) {
        this.setState(next);
      }
    } catch (err) {
      this.status("offline");
    }
  }

  setState(payload) {
    this.state = payload;
    this.ctx.state = payload;
    if (Array.isArray(payload.seats)) {
      this.meta.seat_users = Object.fromEntries(payload.seats.map((s) => [s.index, s.username || (s.bot_level ? `${s.bot_level} bot` : null)]));
    }
    this.chronicle.seated(payload.seat !== null && payload.seat !== undefined);
    if (payload.events) this.chronicle.add(payload.events);
    else if (payload.view?.log) this.chronicle.add(payload.view.log);
    this.answers?.see(payload.events || payload.view?.log || []);
    const view = payload.view || {};
    this.$("decide-h").textContent = view.over ? "The result"
      : payload.seat === null || payload.seat === undefined || this.meta.replay ? "At the table" : "Your decision";
    document.body.dataset.version = String(payload.version ?? "");
    document.body.dataset.phase = view.phase || "";
    renderStatus(this.$("status"), payload, this.ctx);
    renderRulers(this.$("rulers"), payload, this.ctx);
    renderMine(this.$("mine"), payload, this.ctx);
    renderMarket(this.$("market"), payload, this.ctx);
    renderCounters(this.$("counters"), payload, this.ctx);
    renderScores(this.$("scores"), payload, this.ctx);
    renderRelations(this.$("relations"), payload, this.ctx);
    renderAgreements(this.$("agreements"), payload, this.ctx);
    renderMyAreas(this.$("my-areas"), payload, this.ctx);
    this.map.render(view, (o) => this.powerOf(o));
    this.decisions.render(payload);
    this.controls.render(payload);
    this.table.render(payload);
    this.clock.render(payload);
    if (this.tutor) this.tutor.update(payload);
    const mine = (payload.legal_actions || []).length > 0;
    if (mine && !this.wasMine) {
      const prompt = (payload.prompts || []).find((p) => p.seat === payload.seat);
      this.announce(prompt?.label || "Your move.");
    }
    this.wasMine = mine;
    this.updateMoveBar();
    document.body.classList.toggle("my-move", mine);
    document.title = `${mine ? "● " : ""}${this.meta.title || "Imperial Glory"}`;
  }

  /** Send one action; true once the server has accepted it. */
  async send(action) {
    this.notice("");
    if (this.live && this.live.status === "connected") {
      try {
        await this.live.send(action, this.state?.version);
        return true;
      } catch (err) {
        if (err?.status === 409) {
          this.notice(STALE, "error");
          await this.refresh();
        } else {
          this.notice(err?.reason || err?.message || "The server refused the move.", "error");
        }
        return false;
      }
    }
    try {
      const result = await this.api.act(action, this.state?.version);
      if (result && (result.view || result.legal_actions)) this.receive(result);
      else if (result?.events) this.chronicle.add(result.events);
      await this.refresh();
      return true;
    } catch (err) {
      const words = err instanceof Refusal ? (err.status === 409 ? STALE : err.message)
        : "Could not send your move: the connection is down. It was not played; try again once the connection is back.";
      this.notice(words, err instanceof Refusal ? "error" : "connection");
      await this.refresh();
      return false;
    }
  }

  /** On a phone the decision panel sits below the map: a bar points to it when it is out of sight. */
  updateMoveBar() {
    const bar = this.$("your-move");
    if (!bar) return;
    if (!this.decideObserver && window.IntersectionObserver) {
      this.decideVisible = false;
      this.decideObserver = new IntersectionObserver((entries) => {
        this.decideVisible = entries.some((e) => e.isIntersecting);
        this.updateMoveBar();
      });
      this.decideObserver.observe(this.$("decide"));
    }
    const mine = (this.state?.legal_actions || []).length > 0;
    bar.hidden = !(mine && this.decideVisible === false);
  }

  /** Say something to screen readers (the "your move" moments). */
  announce(text) {
    const n = this.$("announcer");
    if (n) n.textContent = text;
  }

  notice(text, kind = "info") {
    const n = this.$("notice");
    this.noticeKind = text ? kind : "";
    n.textContent = text || "";
    n.className = `notice ${kind}`;
    n.hidden = !text;
  }

  status(s) {
    // a connection complaint goes once the connection is back
    if ((s === "connected" || s === "online") && this.noticeKind === "connection") this.notice("");
    const node = this.$("conn");
    if (!node) return;
    node.textContent = humanize(s);
    node.dataset.state = s;
  }
}

const page = new GamePage(readMeta());
renderExplain.seatName = (seat) => page.ctx.seatName(seat);
window.imperialGlory = page;
page.start();
