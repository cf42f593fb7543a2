// live.js — the browser side of /ws/games/{id} (protocol: docs/realtime.md).
//
//   import { connectGame } from "/static/js/live.js";
//   const live = connectGame(gameId, {
//     onState(msg)  { /* full snapshot: msg.view, msg.legal_actions, msg.prompts, msg.events (tail) */ },
//     onUpdate(msg) { /* msg.events = new events only; msg.view etc. = the new state */ },
//     onError(err)  { /* {status, reason, current_version?} of a refused action, or a socket error */ },
//     onStatus(s)   { /* "connecting" | "connected" | "reconnecting" | "offline" */ },
//     onChat(msg)   { /* optional: a chat line pushed by the server */ },
//   });
//   await live.send({type: "end_turn"}, view.version);   // resolves {version}, rejects {status, reason}
//   live.close();
//
// "sync" messages (the events missed while away + the current view) are delivered to
// onUpdate with msg.resync = true, so the page only has to append events and redraw.
// Updates may arrive as patches against the version held (the hello asks for them): the
// module applies them and hands the page the whole message, as if it had come whole.
// The module reconnects by itself with exponential backoff and jitter (at once, then
// about every second, when the server closed with 1012: it is restarting) and, on every
// reconnect, sends the last event seq it saw so the server resends only what was missed;
// the actions not yet answered are sent again, with the same idempotency keys.

const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 15000;
const ACTION_TIMEOUT_MS = 15000;
// Close code 1012, "service restart": the server is stopping for a restart (a rolling
// one behind a balancer, or one process coming back). Another instance, or this one
// restarted, answers within seconds, so the page tries again at once and then every
// second or so (jittered, so that a restart's pages do not all arrive at once) for
// RESTART_TRIES tries before the usual backoff.
export const RESTART_CODE = 1012;
const RESTART_FIRST_MS = [50, 400];
const RESTART_NEXT_MS = [400, 1200];
const RESTART_TRIES = 30;

function socketUrl(gameId) {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${location.host}/ws/games/${encodeURIComponent(gameId)}`;
}

function randomKey() {
  if (globalThis.crypto && typeof crypto.randomUUID === "function") return crypto.randomUUID();
  // crypto.randomUUID needs a secure context; plain http on a LAN address is not one.
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// What a message says about this one push, not about the game: not part of the fields.
const PER_MESSAGE = new Set(["type", "events", "since", "last_seq", "chat_last_id", "committed_at", "resync", "base", "patch"]);

function fieldsOf(msg) {
  const out = {};
  for (const key of Object.keys(msg)) if (!PER_MESSAGE.has(key)) out[key] = msg[key];
  return out;
}

function withoutPatch(msg) {
  const out = { ...msg };
  delete out.patch;
  delete out.base;
  return out;
}

// The list of actions a packed op stands for (app/realtime/patch.py, pack_actions): runs
// of actions with the same keys, each a trie whose levels are the keys and whose values
// are indices into `v`; an entry's value may be a list of values sharing its child, and
// a last-level [a, b] stands for the values a to b. In `v` a non-empty list [k, items]
// is an object with the keys k[k] (a list if k is -1) made of the values `items`; a
// scalar, [] and {} are themselves. Every object and list is built afresh, so the page
// may keep or change one without touching another.
export function unpackActions(packed) {
  const { k: keysets, v: table, t: runs } = packed;
  const out = [];
  function value(vi) {
    const got = table[vi];
    if (got === null || typeof got !== "object") return got;
    if (!Array.isArray(got)) return {};
    if (got.length === 0) return [];
    const [keys, items] = got;
    if (keys < 0) return items.map(value);
    const obj = {};
    keysets[keys].forEach((key, i) => {
      obj[key] = value(items[i]);
    });
    return obj;
  }
  function walk(keys, node, prefix) {
    if (prefix.length === keys.length - 1) {
      for (const item of node) {
        const [from, to] = Array.isArray(item) ? item : [item, item];
        for (let vi = from; vi <= to; vi += 1) {
          const action = {};
          keys.forEach((key, i) => {
            action[key] = value(i < prefix.length ? prefix[i] : vi);
          });
          out.push(action);
        }
      }
      return;
    }
    for (const [head, child] of node) {
      for (const vi of Array.isArray(head) ? head : [head]) walk(keys, child, [...prefix, vi]);
    }
  }
  for (const [index, node] of runs) walk(keysets[index], node, []);
  return out;
}

// Each op [path, value] sets the value at path (an object's key, or a list's index);
// [path, {key: value}, "merge"] sets those keys of the object at path; [path, items,
// [start, removed]] splices the list at path; [path, packed, "actions"] sets the actions
// `packed` stands for; [["prompts"], prompts, "prompts"] says the prompts once: the
// view's are them, the top-level ones each with its seat's deadline from clock.seats
// (docs/realtime.md, "Patches"). The message's own version is the fields' version. The
// containers on the way are copied, so an object the page holds from an earlier message
// never changes under it.
export function applyPatch(base, ops) {
  const root = { ...base };
  const copied = new Set([root]);
  for (const [path, value, how] of ops) {
    let obj = root;
    for (let i = 0; i < path.length - 1; i += 1) {
      let child = obj[path[i]];
      if (!copied.has(child)) {
        child = Array.isArray(child) ? child.slice() : { ...child };
        obj[path[i]] = child;
        copied.add(child);
      }
      obj = child;
    }
    const last = path[path.length - 1];
    if (how === undefined) {
      obj[last] = value;
    } else if (how === "merge") {
      obj[last] = { ...obj[last], ...value };
      copied.add(obj[last]);
    } else if (how === "actions") {
      obj[last] = unpackActions(value);
    } else if (how === "prompts") {
      root.view = { ...root.view, prompts: value.map((prompt) => ({ ...prompt })) };
      copied.add(root.view);
      const seats = root.clock.seats;
      root.prompts = value.map((prompt) => ({ ...prompt, deadline: seats[String(prompt.seat)].deadline }));
    } else {
      const [start, removed] = how;
      const items = obj[last].slice();
      items.splice(start, removed, ...value);
      obj[last] = items;
      copied.add(items);
    }
  }
  return root;
}

export function connectGame(gameId, handlers = {}) {
  const { onState, onUpdate, onError, onStatus, onChat } = handlers;
  let ws = null;
  let lastSeq = null; // last event seq seen; null = we know nothing yet
  let lastChat = null; // last chat line id seen
  let version = null;
  let fields = null; // the last whole fields (view, legal_actions, prompts…), to patch
  let patched = 0; // updates that came as patches (applied)
  let attempt = 0;
  let closed = false;
  let retryTimer = null;
  let status = null;
  let restarting = 0; // tries left at the restart pace (after a 1012), 0: none
  let reqCounter = 0;
  // req_id -> {resolve, reject, message, timer}. Unanswered actions are re-sent with the
  // same idempotency key after a reconnect: the server applies each at most once.
  const pending = new Map();

  function setStatus(s) {
    if (s === status) return;
    status = s;
    if (onStatus) onStatus(s);
  }

  function call(fn, arg) {
    if (!fn) return;
    try {
      fn(arg);
    } catch (err) {
      console.error("live.js handler failed", err);
    }
  }

  function open() {
    if (closed) return;
    setStatus(attempt === 0 && !restarting ? "connecting" : "reconnecting");
    const socket = new WebSocket(socketUrl(gameId));
    ws = socket;
    socket.onopen = () => {
      hello(socket);
    };
    socket.onmessage = (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      receive(socket, msg);
    };
    socket.onclose = (ev) => {
      if (ws !== socket) return;
      ws = null;
      if (closed) return;
      // 4401/4403/4404: no access; retrying cannot help.
      if (ev.code === 4401 || ev.code === 4403 || ev.code === 4404) {
        setStatus("offline");
        call(onError, { status: ev.code - 4000, reason: ev.reason || "no access to this game" });
        failPending({ status: ev.code - 4000, reason: ev.reason || "no access" });
        return;
      }
      if (ev.code === RESTART_CODE) restarting = RESTART_TRIES + 1;
      scheduleReconnect();
    };
    socket.onerror = () => {
      /* onclose follows */
    };
  }

  function scheduleReconnect() {
    if (restarting > 0) {
      // what was sent and not answered stays pending, and is sent again once resynced
      const [lo, hi] = restarting > RESTART_TRIES ? RESTART_FIRST_MS : RESTART_NEXT_MS;
      restarting -= 1;
      setStatus("reconnecting");
      clearTimeout(retryTimer);
      retryTimer = setTimeout(open, lo + Math.random() * (hi - lo));
      return;
    }
    setStatus(attempt >= 6 ? "offline" : "reconnecting");
    const base = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** attempt);
    const delay = base / 2 + Math.random() * (base / 2); // "equal jitter"
    attempt += 1;
    clearTimeout(retryTimer);
    retryTimer = setTimeout(open, delay);
  }

  function hello(socket) {
    socket.send(JSON.stringify({ type: "hello", last_seq: lastSeq, last_chat_id: lastChat, patches: true }));
  }

  function receive(socket, msg) {
    if (msg.type === "update" && msg.patch) {
      // A patch applies only to the version it was made against; otherwise ask again.
      if (!fields || fields.version !== msg.base) {
        hello(socket);
        return;
      }
      msg = { ...applyPatch(fields, msg.patch), ...withoutPatch(msg) };
      patched += 1;
    }
    if (msg.type === "state" || msg.type === "sync" || msg.type === "update") fields = fieldsOf(msg);
    switch (msg.type) {
      case "state":
      case "sync":
        attempt = 0;
        restarting = 0;
        setStatus("connected");
        track(msg);
        if (msg.type === "state") call(onState, msg);
        else call(onUpdate, { ...msg, resync: true });
        flushOutbox(socket);
        break;
      case "update":
        track(msg);
        call(onUpdate, msg);
        break;
      case "ack":
      case "error": {
        const entry = pending.get(msg.req_id);
        if (entry) {
          pending.delete(msg.req_id);
          clearTimeout(entry.timer);
          if (msg.type === "ack") entry.resolve({ version: msg.version });
          else entry.reject(msg);
        }
        if (msg.type === "error") call(onError, msg);
        break;
      }
      case "ping":
        socket.send(JSON.stringify({ type: "pong" }));
        break;
      case "chat":
        if (msg.message && typeof msg.message.id === "number") lastChat = Math.max(lastChat ?? 0, msg.message.id);
        call(onChat, msg);
        break;
      default:
        break;
    }
  }

  function track(msg) {
    if (typeof msg.last_seq === "number") lastSeq = msg.last_seq;
    if (lastChat === null && typeof msg.chat_last_id === "number") lastChat = msg.chat_last_id;
    if (typeof msg.version === "number") version = msg.version;
  }

  function flushOutbox(socket) {
    for (const entry of pending.values()) socket.send(JSON.stringify(entry.message));
  }

  function failPending(err) {
    for (const [id, entry] of pending) {
      clearTimeout(entry.timer);
      entry.reject(err);
      pending.delete(id);
    }
  }

  function send(action, expectedVersion = version) {
    if (closed) return Promise.reject({ status: 0, reason: "connection closed" });
    reqCounter += 1;
    const message = {
      type: "action",
      action,
      expected_version: expectedVersion,
      idempotency_key: randomKey(),
      req_id: `r${reqCounter}`,
    };
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(message.req_id);
        reject({ status: 0, reason: "no answer from the server (is the connection down?)" });
      }, ACTION_TIMEOUT_MS);
      pending.set(message.req_id, { resolve, reject, message, timer });
      if (ws && ws.readyState === WebSocket.OPEN && status === "connected") {
        ws.send(JSON.stringify(message));
      } // else: sent by flushOutbox once the socket is back and resynced
    });
  }

  function close() {
    closed = true;
    clearTimeout(retryTimer);
    failPending({ status: 0, reason: "connection closed" });
    if (ws) ws.close(1000, "bye");
    ws = null;
    setStatus("offline");
  }

  // Come back quickly when the network or the tab does.
  const wake = () => {
    if (!closed && !ws) {
      attempt = 0;
      clearTimeout(retryTimer);
      open();
    }
  };
  if (typeof window !== "undefined") {
    window.addEventListener("online", wake);
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") wake();
    });
  }

  open();
  return {
    send,
    close,
    get version() {
      return version;
    },
    get lastSeq() {
      return lastSeq;
    },
    get status() {
      return status;
    },
    get patched() {
      return patched;
    },
  };
}
