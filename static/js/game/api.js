// The JSON API of one game (app/web: /api/games/{id}/view, /actions, /explain, /undo,
// /reclaim, /rematch, /chat), and moderation's (block, mute, report).

function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  if (meta) return meta.getAttribute("content");
  const m = document.cookie.match(/(?:^|;\s*)(?:csrf_token|csrftoken|csrf)=([^;]+)/);
  return m ? decodeURIComponent(m[1]) : "";
}

/** An error the server refused with: `message` is a sentence for the player. */
export class Refusal extends Error {
  constructor(message, status, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

async function parse(response) {
  let body = null;
  const text = await response.text();
  try { body = text ? JSON.parse(text) : null; } catch { body = { detail: text }; }
  if (!response.ok) {
    throw new Refusal(reasonOf(body, response), response.status, body);
  }
  return body;
}

/** The words of a refusal, whatever shape the server gave them. */
export function reasonOf(body, response) {
  if (body) {
    const d = body.detail ?? body.reason ?? body.error ?? body.message;
    if (typeof d === "string") return d;
    if (d && typeof d === "object") {
      if (typeof d.reason === "string") return d.reason;
      if (typeof d.message === "string") return d.message;
      if (Array.isArray(d) && d.length && d[0].msg) return d.map((e) => e.msg).join("; ");
    }
  }
  if (response && response.status === 409) return "The game moved on before your move arrived; the board is refreshed.";
  if (response && response.status === 403) return "You may not act for this seat.";
  return `The server refused (${response ? response.status : "network error"}).`;
}

function newKey() {
  if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
  return `${Date.now()}-${Math.random().toString(16).slice(2)}`;
}

export class GameApi {
  constructor(gameId) {
    this.gameId = gameId;
    this.base = `/api/games/${gameId}`;
  }

  async view() {
    return parse(await fetch(`${this.base}/view`, { credentials: "same-origin",
      headers: { Accept: "application/json" } }));
  }

  async events(since) {
    return parse(await fetch(`${this.base}/events?since=${encodeURIComponent(since)}`, {
      credentials: "same-origin", headers: { Accept: "application/json" } }));
  }

  async act(action, expectedVersion) {
    const response = await fetch(`${this.base}/actions`, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json",
        "X-CSRF-Token": csrfToken() },
      body: JSON.stringify({ action, expected_version: expectedVersion, idempotency_key: newKey() }),
    });
    return parse(response);
  }

  async explain(action) {
    const q = encodeURIComponent(JSON.stringify(action));
    const controller = new AbortController();
    this.explaining = this.explaining || new Set();
    this.explaining.add(controller);
    try {
      return parse(await fetch(`${this.base}/explain?action=${q}`, { credentials: "same-origin",
        headers: { Accept: "application/json" }, signal: controller.signal }));
    } finally {
      this.explaining.delete(controller);
    }
  }

  /** Drop every breakdown still on its way: once an action is sent, the position they
   * were asked about is gone, and the server would rightly refuse them. */
  abortExplains() {
    for (const controller of this.explaining || []) controller.abort();
    this.explaining = new Set();
  }

  async chat(since) {
    return parse(await fetch(`${this.base}/chat${since ? `?after=${since}` : ""}`, {
      credentials: "same-origin", headers: { Accept: "application/json" } }));
  }

  /** Take back my last decision (app/services/play.py `undo`): the server alone says
   * whether it may be — a refusal (422 `no_undo`) carries the reason in words. */
  async undo(expectedVersion) {
    return this.post("undo", { expected_version: expectedVersion });
  }

  /** Take my seat back from the stand-in bot that played it while I was away. */
  async reclaim() {
    return this.post("reclaim");
  }

  /** A new lobby game with the same people (only once this one is over): `{id, …}`. */
  async rematch() {
    return this.post("rematch");
  }

  async post(what, body) {
    return parse(await fetch(`${this.base}/${what}`, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json",
        "X-CSRF-Token": csrfToken() },
      body: body === undefined ? undefined : JSON.stringify(body),
    }));
  }

  async say(text) {
    return parse(await fetch(`${this.base}/chat`, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json",
        "X-CSRF-Token": csrfToken() },
      body: JSON.stringify({ text }),
    }));
  }

  // Moderation (app/web/routes/moderation.py): whether I muted this table's chat, mute
  // or unmute it; block or unblock a player; the reasons a report gives; a report.
  async muted() {
    return (await this.send("GET", `${this.base}/chat/mute`))?.muted === true;
  }

  async mute(on) {
    return (await this.send(on ? "PUT" : "DELETE", `${this.base}/chat/mute`))?.muted === true;
  }

  async block(username) {
    return this.send("POST", "/api/me/blocks", { username });
  }

  async unblock(username) {
    return this.send("DELETE", `/api/me/blocks/${encodeURIComponent(username)}`);
  }

  async reportReasons() {
    return this.send("GET", "/api/reports/reasons");
  }

  async report(body) {
    return this.send("POST", "/api/reports", body);
  }

  async send(method, url, body) {
    const headers = { Accept: "application/json" };
    if (method !== "GET") headers["X-CSRF-Token"] = csrfToken();
    if (body !== undefined) headers["Content-Type"] = "application/json";
    return parse(await fetch(url, { method, credentials: "same-origin", headers,
      body: body === undefined ? undefined : JSON.stringify(body) }));
  }
}
