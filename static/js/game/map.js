// The map: the inline SVG (static/map/map.svg) with zoom and pan (svg-pan-zoom), areas
// coloured by owner with a pattern as the second cue, markers, hover/tap details and
// "pick an area" mode used by the decision panel.
import { el, fill, humanize } from "./dom.js";
import { standings } from "./politics.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const FALLBACK_COLOURS = { rome: "#b3282d", parthia: "#2f7a4b", kushan: "#c88a12", han: "#6a2c8e",
  xiongnu: "#5b6770", satavahana: "#1f6aa5" };
const PATTERNS = ["stripe", "dots", "cross", "hatch", "grid", "rings", "plain"];

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== null && v !== undefined) node.setAttribute(k, String(v));
  }
  for (const c of children) if (c) node.appendChild(c);
  return node;
}

/** Is a #rrggbb colour light (so the pattern's marks should be dark)? */
function isLight(colour) {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour || "");
  if (!m) return false;
  const [r, g, b] = m.slice(1).map((h) => parseInt(h, 16) / 255);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.6;
}

/** An SVG pattern: the power's colour with its marks (content: scenarios.json `pattern`). */
function patternDef(id, kind, colour, scale = 1) {
  const rot = { stripe: " rotate(45)", stripes: " rotate(45)", hatch: " rotate(-45)" }[kind] || "";
  const p = svg("pattern", { id, patternUnits: "userSpaceOnUse", width: 8, height: 8,
    patternTransform: `scale(${scale})${rot}` });
  const ink = isLight(colour) ? "rgba(40,30,20,0.38)" : "rgba(255,255,255,0.55)";
  const shapes = {
    stripe: () => svg("rect", { x: 0, y: 0, width: 3, height: 8, fill: ink }),
    hatch: () => svg("rect", { x: 0, y: 0, width: 1.2, height: 8, fill: ink }),
    cross: () => svg("path", { d: "M0 4H8M4 0V8", stroke: ink, "stroke-width": 1.3 }),
    grid: () => svg("path", { d: "M0 0.5H8M0 4.5H8M0.5 0V8M4.5 0V8", stroke: ink, "stroke-width": 0.8 }),
    dots: () => svg("circle", { cx: 4, cy: 4, r: 1.6, fill: ink }),
    waves: () => svg("path", { d: "M0 5 Q2 2 4 5 T8 5", stroke: ink, "stroke-width": 1.1, fill: "none" }),
    rings: () => svg("circle", { cx: 4, cy: 4, r: 2.2, stroke: ink, "stroke-width": 0.9, fill: "none" }),
    plain: () => null,
  };
  shapes.stripes = shapes.stripe;
  p.appendChild(svg("rect", { x: 0, y: 0, width: 8, height: 8, fill: colour }));
  const shape = (shapes[kind] || shapes.plain)();
  if (shape) p.appendChild(shape);
  return p;
}

export class GameMap {
  /**
   * @param {HTMLElement} host   container for the SVG
   * @param {HTMLElement} card   the area details card
   * @param {object} meta        static game data (areas, seas, powers)
   */
  constructor(host, card, meta) {
    this.host = host;
    this.card = card;
    this.meta = meta;
    this.svg = null;
    this.zoom = null;
    this.view = null;
    this.pick = null;          // {ids:Set, onPick}
    this.pinned = null;        // area id whose details are pinned
    this.powerOf = () => null;
  }

  async load(url) {
    const response = await fetch(url, { credentials: "same-origin" });
    if (!response.ok) throw new Error(`map ${response.status}`);
    const text = await response.text();
    const doc = new DOMParser().parseFromString(text, "image/svg+xml");
    const root = doc.documentElement;
    if (root.nodeName.toLowerCase() !== "svg") throw new Error("map is not an SVG");
    this.svg = document.importNode(root, true);
    this.svg.removeAttribute("width");
    this.svg.removeAttribute("height");
    this.svg.setAttribute("class", "map-svg");
    this.svg.setAttribute("role", "group");
    this.svg.setAttribute("aria-label", "Map of the known world, areas coloured by owner; the areas you may choose are buttons");
    this.svg.setAttribute("focusable", "false");
    this.host.replaceChildren(this.svg);
    // one "unit" ~ 1/400 of the map's width: markers and patterns scale with the drawing
    const vb = (this.svg.getAttribute("viewBox") || "0 0 400 200").split(/[\s,]+/).map(Number);
    this.unit = Math.max(0.2, (vb[2] || 400) / 400);
    // markers: about 1/250 of the map's width each (a map ~1200 wide: ~5 units)
    this.markerScale = Math.max(0.2, (vb[2] || 400) / 1200);
    this.markerSize = this.markerScale;
    this.areaPaths = new Map();
    for (const path of this.svg.querySelectorAll("[id^='area-']")) {
      const id = path.id.slice(5);
      this.areaPaths.set(id, path);
      path.classList.add("area");
      path.dataset.areaId = id;
    }
    this.defs = this.svg.querySelector("defs") || this.svg.insertBefore(svg("defs"), this.svg.firstChild);
    this.collectLabels();
    this.makeKeyboardReachable();
    // Layers drawn over the land: patterns, then markers. Both inside the SVG before the
    // zoom library wraps its content, so they zoom with the map.
    this.patternLayer = svg("g", { class: "pattern-layer", "pointer-events": "none" });
    // the politics (3, 21): coalition outlines, then war and alliance lines between courts
    this.politicsLayer = svg("g", { class: "politics-layer", "pointer-events": "none" });
    this.markerLayer = svg("g", { class: "marker-layer", "pointer-events": "none" });
    this.svg.appendChild(this.patternLayer);
    this.svg.appendChild(this.politicsLayer);
    this.svg.appendChild(this.markerLayer);
    const labelLayer = this.svg.querySelector("#labels");
    if (labelLayer) this.svg.appendChild(labelLayer); // names above the owners' patterns
    this.bindPointer();
    if (window.svgPanZoom) {
      this.zoom = window.svgPanZoom(this.svg, {
        zoomEnabled: true, controlIconsEnabled: false, fit: true, center: true,
        minZoom: 0.8, maxZoom: 24, zoomScaleSensitivity: 0.3, dblClickZoomEnabled: true,
        preventMouseEventsDefault: false,
        onZoom: () => { if (!this.programmatic) this.userMoved = true; this.fitLabels(); },
        onPan: () => { if (!this.programmatic) this.userMoved = true; },
      });
      this.addZoomButtons();
      // The map's box changes as the panels fill in (and on rotation): keep the drawing
      // fitted, and keep the empires in view until the player zooms or pans by hand.
      const refit = () => {
        if (!this.drawable()) return; // folded away: fitted again when it has a size
        this.zoom.resize();
        if (!this.userMoved && this.view) this.focus(this.homeAreas());
      };
      if (window.ResizeObserver) new ResizeObserver(refit).observe(this.host);
      else window.addEventListener("resize", refit);
    }
  }

  /** Zoom and pan so that the given areas fill the view (the empires at play). */
  focus(ids) {
    if (!this.zoom) return;
    this.programmatic = true;
    try { this.focusNow(ids); } finally { this.programmatic = false; }
    this.fitLabels();
  }

  // ---- labels: a constant size on screen at every zoom, thinned by priority ----
  collectLabels() {
    const byName = new Map(Object.entries(this.meta.areas || {}).map(([id, a]) => [a.name, id]));
    this.labels = [...this.svg.querySelectorAll("#labels text")].map((t) => {
      const sea = t.classList.contains("sea-label");
      const id = sea ? null : (byName.get(t.textContent.trim()) || null);
      return { node: t, sea, id, x: Number(t.getAttribute("x")), y: Number(t.getAttribute("y")),
        chars: t.textContent.trim().length, base: Number(t.getAttribute("font-size")) || 5 };
    });
    for (const l of this.labels) l.node.classList.add(l.sea ? "lbl-sea" : "lbl-area");
  }

  /** Higher first: areas in play (owned, a court), then the most populous, then the larger. */
  labelPriority(l) {
    if (l.sea) return 1;
    const area = (this.view?.areas || {})[l.id] || {};
    const owned = area.owner !== null && area.owner !== undefined;
    const picked = this.pick?.ids?.has(l.id);
    const pop = Number(this.meta.areas?.[l.id]?.population || 1);
    return (picked ? 1000 : 0) + (owned ? 100 : 0) + pop * 10 + l.base;
  }

  fitLabels() {
    if (!this.labels || !this.labels.length) return;
    const realZoom = this.zoom ? this.zoom.getSizes().realZoom : (this.svg.getBoundingClientRect().width / (this.svg.viewBox.baseVal?.width || 1200));
    if (!realZoom) return;
    const narrow = window.matchMedia && window.matchMedia("(max-width: 700px)").matches;
    const px = narrow ? 11 : 12;            // the size on screen, whatever the zoom
    const size = px / realZoom;              // in map units
    const placed = [];
    const order = [...this.labels].sort((a, b) => this.labelPriority(b) - this.labelPriority(a));
    let shown = 0;
    for (const l of order) {
      const fs = l.sea ? size * 0.9 : size;
      const w = l.chars * fs * 0.56, h = fs * 1.1;
      const box = { x0: l.x - w / 2, x1: l.x + w / 2, y0: l.y - h, y1: l.y + h * 0.2 };
      const clash = placed.some((b) => box.x0 < b.x1 && box.x1 > b.x0 && box.y0 < b.y1 && box.y1 > b.y0);
      l.node.setAttribute("font-size", fs.toFixed(2));
      l.node.classList.toggle("thinned", clash);
      if (!clash) { placed.push(box); shown += 1; }
    }
    this.svg.dataset.labelsShown = String(shown);
    this.svg.dataset.labelPx = String(px);
  }

  // ---- keyboard: one tab stop for the map, arrows move between areas ----
  makeKeyboardReachable() {
    const ids = [...this.areaPaths.keys()];
    ids.forEach((id, i) => {
      const p = this.areaPaths.get(id);
      p.setAttribute("tabindex", i === 0 ? "0" : "-1");
      p.setAttribute("role", "button");
      p.setAttribute("aria-label", this.areaLabel(id));
    });
    this.svg.addEventListener("focusin", (e) => {
      const id = e.target?.dataset?.areaId;
      if (!id) return;
      for (const p of this.areaPaths.values()) if (p !== e.target && p.getAttribute("tabindex") === "0" && !p.classList.contains("pickable")) p.setAttribute("tabindex", "-1");
      e.target.setAttribute("tabindex", "0");
      e.target.setAttribute("aria-label", this.areaLabel(id));
      this.showDetails(id);
    });
    this.svg.addEventListener("keydown", (e) => {
      const id = e.target?.dataset?.areaId;
      const dir = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[e.key];
      if (!id || !dir) return;
      e.preventDefault();
      const next = this.neighbourInDirection(id, dir);
      if (next) this.areaPaths.get(next).focus();
    });
  }

  centre(id) {
    const p = this.areaPaths.get(id);
    return [Number(p?.dataset.cx), Number(p?.dataset.cy)];
  }

  /** The nearest area whose centre lies in the direction `dir` (within 60° of it). */
  neighbourInDirection(id, [dx, dy]) {
    const [x, y] = this.centre(id);
    let best = null, bestScore = Infinity;
    for (const other of this.areaPaths.keys()) {
      if (other === id) continue;
      const [ox, oy] = this.centre(other);
      const vx = ox - x, vy = oy - y;
      const along = vx * dx + vy * dy;
      if (along <= 0) continue;
      const across = Math.abs(vx * dy - vy * dx);
      if (across > along * 1.8) continue;
      const score = along + across * 2;
      if (score < bestScore) { bestScore = score; best = other; }
    }
    return best;
  }

  /** What a screen reader says for an area: name, owner, population, unrest, forts. */
  areaLabel(id) {
    const info = this.meta.areas?.[id] || {};
    const area = (this.view?.areas || {})[id] || {};
    const power = this.powerOf(area.owner);
    const owner = power ? (this.meta.powers?.[power]?.name || humanize(power)) : "independent";
    const bits = [`${info.name || humanize(id)}: ${owner}`, `population ${info.population ?? "?"}`];
    if (area.unrest) bits.push("in unrest");
    const st = area.owner === null || area.owner === undefined ? null : (this.politics || [])[Number(area.owner)];
    if (st?.wars?.length) bits.push("its owner is at war");
    if (st?.accursed) bits.push("its owner is accursed");
    if (area.fort) bits.push(`fortification ${area.fort}`);
    if (area.usurper) bits.push("held by a usurper");
    for (const h of this.hordesAgainst(id)) bits.push(`threatened by the ${h.name}`);
    if (this.overreachAt(id)) bits.push("restless: it checks for rebellion at the round's end");
    if (this.pick?.ids?.has(id)) bits.unshift("Choose");
    return bits.join(", ");
  }

  /** Whether the map has a box to draw in: a map squeezed to nothing (a panel that took
   * the row, a hidden tab) has no scale to invert, and a fit there throws. */
  drawable() {
    const box = this.svg.getBoundingClientRect();
    return box.width >= 1 && box.height >= 1;
  }

  focusNow(ids) {
    if (!this.drawable()) return;
    const boxes = ids.map((id) => this.areaPaths.get(id)).filter(Boolean).map((p) => p.getBBox());
    if (!boxes.length) return;
    let x0 = Math.min(...boxes.map((b) => b.x)), x1 = Math.max(...boxes.map((b) => b.x + b.width));
    let y0 = Math.min(...boxes.map((b) => b.y)), y1 = Math.max(...boxes.map((b) => b.y + b.height));
    const pad = 0.06 * Math.max(x1 - x0, y1 - y0);
    x0 -= pad; x1 += pad; y0 -= pad; y1 += pad;
    this.zoom.resetZoom();
    this.zoom.fit();
    this.zoom.center();
    const sizes = this.zoom.getSizes();
    // the zoom (relative to the fitted map) at which the box just fills the view
    const scale = Math.min(sizes.width / (x1 - x0), sizes.height / (y1 - y0)) / sizes.realZoom;
    this.zoom.zoom(Math.max(1, Math.min(scale, 8)));
    const s2 = this.zoom.getSizes();
    const cx = (x0 + x1) / 2 - s2.viewBox.x, cy = (y0 + y1) / 2 - s2.viewBox.y;
    this.zoom.pan({ x: s2.width / 2 - cx * s2.realZoom, y: s2.height / 2 - cy * s2.realZoom });
  }

  homeAreas() {
    const areas = this.view?.areas || {};
    const ids = Object.entries(areas).filter(([, a]) => a.owner !== null && a.owner !== undefined).map(([id]) => id);
    for (const p of this.view?.players || []) if (p.court) ids.push(p.court);
    return ids;
  }

  addZoomButtons() {
    const bar = el("div", { class: "map-zoom", role: "group", "aria-label": "Map zoom" },
      el("button", { type: "button", "aria-label": "Zoom in", onclick: () => this.zoom.zoomIn() }, "+"),
      el("button", { type: "button", "aria-label": "Zoom out", onclick: () => this.zoom.zoomOut() }, "−"),
      el("button", { type: "button", "aria-label": "Zoom to the empires in play", title: "The empires in play",
        onclick: () => { this.userMoved = false; this.focus(this.homeAreas()); } }, "◎"),
      el("button", { type: "button", "aria-label": "Show the whole map", title: "The whole map",
        onclick: () => { this.zoom.resetZoom(); this.zoom.fit(); this.zoom.center(); this.userMoved = true; } }, "⤢"));
    this.host.appendChild(bar);
  }

  bindPointer() {
    let down = null;
    this.svg.addEventListener("pointerdown", (e) => { down = { x: e.clientX, y: e.clientY }; });
    this.svg.addEventListener("pointerover", (e) => {
      const id = e.target?.dataset?.areaId;
      if (id && !this.pinned) this.showDetails(id);
    });
    this.svg.addEventListener("pointerout", (e) => {
      if (e.target?.dataset?.areaId && !this.pinned) this.card.hidden = true;
    });
    this.svg.addEventListener("pointerleave", () => { if (!this.pinned) this.card.hidden = true; });
    this.svg.addEventListener("click", (e) => {
      if (down && Math.hypot(e.clientX - down.x, e.clientY - down.y) > 6) return; // a drag
      const id = e.target?.dataset?.areaId;
      if (!id) { this.unpin(); return; }
      this.activate(id);
    });
    this.svg.addEventListener("keydown", (e) => {
      const id = e.target?.dataset?.areaId;
      if (id && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); this.activate(id); }
    });
  }

  activate(id) {
    if (this.pick && this.pick.ids.has(id)) {
      const { onPick } = this.pick;
      onPick(id);
      return;
    }
    this.pinned = id;
    this.showDetails(id);
    this.svg.querySelectorAll(".area.pinned").forEach((p) => p.classList.remove("pinned"));
    this.areaPaths.get(id)?.classList.add("pinned");
  }

  unpin() {
    this.pinned = null;
    this.card.hidden = true;
    this.svg?.querySelectorAll(".area.pinned").forEach((p) => p.classList.remove("pinned"));
  }

  /** Highlight the areas a decision may choose; clicking one calls onPick(id). */
  setPick(ids, onPick) {
    if (!this.svg) return;
    for (const p of this.svg.querySelectorAll(".area.pickable")) {
      p.classList.remove("pickable");
      if (p !== document.activeElement) p.setAttribute("tabindex", "-1");
      p.setAttribute("aria-label", this.areaLabel(p.dataset.areaId));
    }
    this.pick = ids && ids.length ? { ids: new Set(ids), onPick } : null;
    this.svg.classList.toggle("picking", Boolean(this.pick));
    if (this.labels) this.fitLabels(); // the areas to choose get their labels first
    if (!this.pick) return;
    for (const id of ids) {
      const p = this.areaPaths.get(id);
      if (!p) continue;
      p.classList.add("pickable");
      p.setAttribute("tabindex", "0");
      p.setAttribute("role", "button");
      p.setAttribute("aria-label", this.areaLabel(id));
    }
  }

  areaName(id) {
    return this.meta.areas?.[id]?.name || humanize(id);
  }

  /** Outline areas above the owners' patterns (the catch-up's changed areas, catchup.js):
   * `changes` is [{area, mine}]; an empty list clears them. `pulse` stresses some. */
  outline(changes, pulse = []) {
    if (!this.svg || !this.markerLayer) return;
    if (!this.outlineLayer) {
      this.outlineLayer = svg("g", { class: "outline-layer", "pointer-events": "none" });
      this.markerLayer.parentNode.insertBefore(this.outlineLayer, this.markerLayer);
    }
    this.outlineLayer.replaceChildren();
    const stressed = new Set(pulse);
    for (const c of changes || []) {
      const path = this.areaPaths.get(c.area);
      if (!path) continue;
      const cls = ["since-outline", c.mine ? "mine" : "", stressed.has(c.area) ? "pulse" : ""].filter(Boolean);
      this.outlineLayer.appendChild(svg("path", { d: path.getAttribute("d"), class: cls.join(" "),
        "data-area": c.area, "vector-effect": "non-scaling-stroke" }));
    }
  }

  ensurePatterns(players) {
    for (const [seat, player] of players.entries()) {
      const pid = `pat-${player.power}`;
      if (this.defs.querySelector(`#${CSS.escape(pid)}`)) continue;
      const power = this.meta.powers?.[player.power] || {};
      const kind = power.pattern || PATTERNS[seat % PATTERNS.length];
      this.defs.appendChild(patternDef(pid, kind, this.colour(player.power), this.unit * 0.5));
    }
  }

  /** Paint the board from a seat view. */
  render(view, powerOf) {
    if (!this.svg) return;
    this.view = view;
    this.powerOf = powerOf;
    const players = view.players || [];
    this.ensurePatterns(players);
    this.patternLayer.replaceChildren();
    this.markerLayer.replaceChildren();
    const courts = new Map();
    players.forEach((p, seat) => { if (p.court) courts.set(p.court, seat); });
    this.politics = standings(view);
    this.drawPolitics(view, players);
    for (const [id, path] of this.areaPaths) {
      const area = (view.areas || {})[id] || {};
      const power = powerOf(area.owner);
      path.classList.toggle("owned", Boolean(power));
      // the pattern holds the power's colour under its marks: colour + pattern in one fill
      path.style.fill = power ? `url(#pat-${power})` : "";
      if (this.view && path.dataset.owner !== undefined && path.dataset.owner !== (power || "") && this.rendered) {
        // an area changed hands: let the eye find it
        path.classList.remove("changed");
        void path.getBBox();
        path.classList.add("changed");
        setTimeout(() => path.classList.remove("changed"), 2600);
      }
      path.dataset.owner = power || "";
      this.drawMarkers(id, path, area, courts.get(id));
    }
    this.rendered = true;
    for (const [id, path] of this.areaPaths) path.setAttribute("aria-label", this.areaLabel(id));
    this.fitLabels();
    if (this.pinned) this.showDetails(this.pinned);
    else this.card.hidden = true; // the board moved: a hover card may be stale
    if (!this.focused && players.length) {
      this.focused = true;
      this.focus(this.homeAreas());
    }
  }

  colour(power) {
    return this.meta.powers?.[power]?.colour || FALLBACK_COLOURS[power] || "#777777";
  }

  /** The politics layer: each coalition's areas outlined in its hegemon's colour, a red
   * dashed line between the courts of every two powers at war (coalitions counted,
   * 3.55), and a line in the hegemon's colour from each junior partner's court to its own.
   * Lines keep their width on screen at any zoom (non-scaling strokes). */
  drawPolitics(view, players) {
    const layer = this.politicsLayer;
    if (!layer) return;
    layer.replaceChildren();
    const st = this.politics || [];
    const areas = view.areas || {};
    const courtOf = (seat) => players[seat]?.court || null;
    for (const s of st) {
      if (!s.hegemon) continue;
      const members = new Set([s.seat, ...s.juniors]);
      const colour = this.colour(this.powerOf(s.seat));
      const g = svg("g", { class: "pol-coalition", "data-hegemon": String(s.seat) });
      for (const [id, a] of Object.entries(areas)) {
        const path = this.areaPaths.get(id);
        if (!path || a.owner === null || a.owner === undefined || !members.has(Number(a.owner))) continue;
        const d = path.getAttribute("d");
        g.appendChild(svg("path", { d, class: "coalition-halo", "vector-effect": "non-scaling-stroke" }));
        g.appendChild(svg("path", { d, class: "coalition-edge", stroke: colour, "vector-effect": "non-scaling-stroke" }));
      }
      if (g.childNodes.length) layer.appendChild(g);
    }
    for (const s of st) {
      if (!s.accursed) continue;
      // the accursed's areas (20.4): a dark dotted edge, seen at any zoom
      const g = svg("g", { class: "pol-accursed", "data-seat": String(s.seat) });
      for (const [id, a] of Object.entries(areas)) {
        const path = this.areaPaths.get(id);
        if (!path || a.owner === null || a.owner === undefined || Number(a.owner) !== s.seat) continue;
        g.appendChild(svg("path", { d: path.getAttribute("d"), class: "accursed-edge", "vector-effect": "non-scaling-stroke" }));
      }
      if (g.childNodes.length) layer.appendChild(g);
    }
    const line = (a, b, cls, attrs = {}) => {
      const [x1, y1] = this.centre(a), [x2, y2] = this.centre(b);
      if (![x1, y1, x2, y2].every(Number.isFinite)) return null;
      // a gentle arc, so that two lines between the same courts never hide each other
      const mx = (x1 + x2) / 2 - (y2 - y1) * 0.12, my = (y1 + y2) / 2 + (x2 - x1) * 0.12;
      const d = `M${x1} ${y1}Q${mx} ${my} ${x2} ${y2}`;
      const g = svg("g", { class: cls, ...attrs },
        svg("path", { d, class: "halo", "vector-effect": "non-scaling-stroke" }),
        svg("path", { d, class: "ink", "vector-effect": "non-scaling-stroke", stroke: attrs.stroke || null }));
      layer.appendChild(g);
      return g;
    };
    for (const s of st) {
      if (s.head === null || !courtOf(s.seat) || !courtOf(s.head)) continue;
      line(courtOf(s.seat), courtOf(s.head), "pol-ally", { "data-junior": String(s.seat), "data-hegemon": String(s.head),
        stroke: this.colour(this.powerOf(s.head)) });
    }
    for (const [a, b] of view.politics?.wars || []) {
      if (!courtOf(a) || !courtOf(b)) continue;
      line(courtOf(a), courtOf(b), "pol-war", { "data-pair": `${a}|${b}` });
    }
  }

  drawMarkers(id, path, area, courtSeat) {
    const cx = Number(path.dataset.cx), cy = Number(path.dataset.cy);
    if (!Number.isFinite(cx) || !Number.isFinite(cy)) return;
    const g = svg("g", { class: "markers", transform: `translate(${cx} ${cy})`, "data-area": id });
    const s = Number(this.markerSize || 1);
    let x = 0;
    const step = 5 * s;
    const put = (node, wide = false) => {
      if (wide) x += step * 0.3;
      node.setAttribute("transform", `translate(${x} 0)`); g.appendChild(node); x += step * (wide ? 1.3 : 1);
    };
    const pol = this.politics || [];
    const big = 1.5 * s; // the politics markers stand out from the rest
    if (courtSeat !== undefined) {
      put(svg("path", { class: "m-court", d: `M${-2.4 * s} ${1.6 * s}L${-2.4 * s} ${-1 * s}L${-1.2 * s} ${0}L0 ${-2 * s}L${1.2 * s} 0L${2.4 * s} ${-1 * s}L${2.4 * s} ${1.6 * s}Z` }));
      const here = pol[courtSeat];
      if (here?.hegemon) {
        // the hegemon's star (3.5): the court is a crown already
        const pts = [];
        for (let i = 0; i < 10; i += 1) {
          const r = (i % 2 ? 1.25 : 2.9) * big, t = -Math.PI / 2 + i * Math.PI / 5;
          pts.push(`${(r * Math.cos(t)).toFixed(2)} ${(r * Math.sin(t)).toFixed(2)}`);
        }
        put(svg("g", { class: "m-crown", "data-seat": String(courtSeat) }, svg("path", { d: `M${pts.join("L")}Z` })), true);
      }
      for (const guest of here?.guests || []) {
        // an exile sheltered here (21.2): a pennant in the exile's colour on a pole
        put(svg("g", { class: "m-exile", "data-seat": String(guest) },
          svg("path", { d: `M${-1.6 * big} ${2.2 * big}L${-1.6 * big} ${-2.4 * big}`, class: "pole" }),
          svg("path", { d: `M${-1.6 * big} ${-2.4 * big}L${2.4 * big} ${-1.3 * big}L${-1.6 * big} ${-0.2 * big}Z`, fill: this.colour(this.powerOf(guest)) })), true);
      }
    }
    const owner = area.owner === null || area.owner === undefined ? null : Number(area.owner);
    if (owner !== null && pol[owner]?.accursed) {
      // the accursed (20.4): a black disc with a white cross
      put(svg("g", { class: "m-accursed", "data-seat": String(owner) },
        svg("circle", { r: 2.3 * s }),
        svg("path", { d: `M${-1.2 * s} ${-1.2 * s}L${1.2 * s} ${1.2 * s}M${1.2 * s} ${-1.2 * s}L${-1.2 * s} ${1.2 * s}` })));
    }
    if (area.fort) {
      const f = svg("g", { class: "m-fort" },
        svg("rect", { x: -2 * s, y: -2 * s, width: 4 * s, height: 4 * s }));
      if (Number(area.fort) > 1) f.appendChild(svg("text", { y: 1.2 * s, "font-size": 3 * s, "text-anchor": "middle" }, document.createTextNode(String(area.fort))));
      put(f);
    }
    if (area.unrest) {
      const u = svg("g", { class: "m-unrest" }, svg("path", { d: `M0 ${-2.6 * s}L${2.4 * s} ${1.8 * s}L${-2.4 * s} ${1.8 * s}Z` }));
      if (Number(area.unrest) > 1) u.appendChild(svg("text", { y: 1.4 * s, "font-size": 2.6 * s, "text-anchor": "middle" }, document.createTextNode(String(area.unrest))));
      put(u);
    }
    for (const seat of area.ties || []) {
      put(svg("circle", { class: "m-tie", r: 1.8 * s, fill: this.colour(this.powerOf(seat)) }));
    }
    for (const seat of area.claims || []) {
      put(svg("path", { class: "m-claim", d: `M${-1.6 * s} ${2 * s}L${-1.6 * s} ${-2.2 * s}L${2 * s} ${-1.2 * s}L${-1.6 * s} ${-0.2 * s}`, stroke: this.colour(this.powerOf(seat)) }));
    }
    for (const [seat] of Object.entries(area.partial || {})) {
      put(svg("g", { class: "m-partial" },
        svg("circle", { r: 2 * s, fill: "none", stroke: this.colour(this.powerOf(Number(seat))) }),
        svg("path", { d: `M0 ${-2 * s}A${2 * s} ${2 * s} 0 0 1 0 ${2 * s}Z`, fill: this.colour(this.powerOf(Number(seat))) })));
    }
    const buildings = area.buildings || [];
    if (buildings.length) {
      put(svg("path", { class: "m-building", d: `M${-2 * s} ${1.8 * s}L0 ${-2.2 * s}L${2 * s} ${1.8 * s}Z` }));
    }
    // 17.51: a usurper's area (his court shows his rating); 24.12: a horde's target
    const usurper = this.usurperOf(id);
    if (usurper) {
      const court = usurper.court === id;
      put(svg("g", { class: `m-usurper${court ? " court" : ""}`, "data-usurper": usurper.id },
        svg("circle", { r: 2.3 * s }),
        svg("text", { y: 1.1 * s, "font-size": 3 * s, "text-anchor": "middle" },
          document.createTextNode(court ? String(usurper.rating) : "U"))));
    }
    for (const h of this.hordesAgainst(id)) {
      put(svg("g", { class: "m-horde", "data-horde": h.id },
        svg("path", { d: `M${-2.4 * s} ${2 * s}L0 ${-2.4 * s}L${2.4 * s} ${2 * s}L0 ${0.8 * s}Z` }),
        svg("text", { y: 5.2 * s, "font-size": 2.6 * s, "text-anchor": "middle" },
          document.createTextNode(String(h.strength)))));
    }
    if (!g.childNodes.length) return;
    // centre the row of markers on the area's centre
    g.setAttribute("transform", `translate(${cx - (x - step) / 2} ${cy + 5 * s})`); // below the label
    this.markerLayer.appendChild(g);
  }

  /** What the area card says of its owner's politics (3.5, 21, 20.4). */
  politicsRows(owner, seatName) {
    if (owner === null || owner === undefined) return [];
    const st = (this.politics || [])[Number(owner)];
    if (!st) return [];
    const list = (seats) => seats.map(seatName).join(", ");
    return [
      ["Hegemon", st.hegemon ? (st.juniors.length ? `yes, of ${list(st.juniors)}` : "yes") : null],
      ["Coalition", st.head !== null ? `junior partner of ${seatName(st.head)}` : null],
      ["At war with", st.wars.length ? list(st.wars) : null],
      ["Shelters", st.guests.length ? `${list(st.guests)} (asylum)` : null],
      ["Accursed", st.accursed ? "yes: no vote in parleys" : null],
    ];
  }

  usurperOf(id) {
    const uid = ((this.view?.areas || {})[id] || {}).usurper;
    if (!uid) return null;
    return (this.view?.world?.usurpers || []).find((u) => u.id === uid) || { id: uid, court: null, rating: "?" };
  }

  /** 4.9: the overreach, if `id` is the leader's area that checks at the round's end. */
  overreachAt(id) {
    const o = this.view?.world?.overreach;
    return o && o.seat !== null && o.seat !== undefined && o.area === id ? o : null;
  }

  hordesAgainst(id) {
    return (this.view?.world?.hordes || []).filter((h) => h.target === id && !h.rode);
  }

  showDetails(id) {
    const info = this.meta.areas?.[id] || {};
    const area = (this.view?.areas || {})[id] || {};
    const power = this.powerOf(area.owner);
    const powerName = power ? (this.meta.powers?.[power]?.name || humanize(power)) : "Independent";
    const seatName = (seat) => {
      const p = this.powerOf(seat);
      return this.meta.powers?.[p]?.name || humanize(p);
    };
    const rows = [
      ["Owner", powerName],
      ["Region", humanize(info.region)],
      ["Population", info.population],
      ["Social state", area.social ?? info.social],
      ["Language", this.meta.languages?.[area.language || info.language] || humanize(area.language || info.language)],
      ["Religion", this.meta.religions?.[area.religion || info.religion] || humanize(area.religion || info.religion)],
      ["Terrain", humanize(info.terrain)],
      ["Unrest", area.unrest || null],
      ["Fortification", area.fort || null],
      ["Ties", (area.ties || []).map(seatName).join(", ") || null],
      ["Claims", (area.claims || []).map(seatName).join(", ") || null],
      ["Partial conquest", Object.entries(area.partial || {}).map(([s, bases]) =>
        `${seatName(Number(s))} (${typeof bases === "object" ? Object.values(bases).reduce((a, b) => a + Number(b), 0) : bases})`).join(", ") || null],
      ["Buildings", (area.buildings || []).map(humanize).join(", ") || null],
      ["Usurper", (() => {
        const u = this.usurperOf(id);
        if (!u) return null;
        const court = this.meta.areas?.[u.court]?.name || humanize(u.court || "");
        return `${u.name || "a usurper"}: rating ${u.rating}, court ${court}, price ${u.price ?? "?"} talents`;
      })()],
      ["Horde threat", this.hordesAgainst(id).map((h) => {
        const o = h.odds || {};
        const pct = (x) => `${Math.round(100 * (x || 0))}%`;
        return `${h.name} (strength ${h.strength}): raid ${pct(o.raid)}, sack ${pct(o.sack)}`;
      }).join("; ") || null],
      ["Overreach", (() => {
        const o = this.overreachAt(id);
        return o ? `its owner leads by ${o.lead} points: a rebellion check at the round's end, +${o.bonus} (rule 4.9)` : null;
      })()],
      ...this.politicsRows(area.owner, seatName),
      ["Places", info.places || null],
    ].filter(([, v]) => v !== null && v !== undefined && v !== "");
    fill(this.card,
      el("h3", {}, info.name || humanize(id)),
      el("dl", {}, rows.map(([k, v]) => [el("dt", {}, k), el("dd", {}, String(v))])),
      this.pinned ? el("button", { type: "button", class: "card-close", "aria-label": "Close area details",
        onclick: () => this.unpin() }, "×") : null);
    // a hover card never catches the pointer (it may lie over the next area); a pinned one can
    this.card.classList.toggle("pinned", Boolean(this.pinned));
    this.card.hidden = false;
  }
}
