// The jaxpr graph explorer: an anywidget front end (glassjax/notebook/explorer.py is the
// kernel side). The kernel sends a model of the program folded to a node budget: graphs
// of nodes (inputs, constants, equations, clusters, outputs) and labelled edges. A
// cluster (a jit body, cond branches, a while's cond and body, a scan body, a run of
// repeated equations, ...) is one node while folded; a click opens it, asking the kernel
// for its graphs the first time. Only what is visible is laid out, here in the browser,
// by the small layered layout below. A click on a line of the jaxpr text selects the
// equation's node and a click on a node marks its lines (the kernel knows where each
// equation is printed: text_lines.py). Equations a transformation added come marked
// (provenance.py). Given the program's arguments, the kernel also steps through it and
// sends values (debugger.py): the debugger panel below the graph. Everything that comes
// from the program (names, params, equation text, values) is put into the page as text
// (textContent), never as markup.

const SVG = "http://www.w3.org/2000/svg";
const CHAR_W = 6.6;   // width of one character of the 11px monospace labels
const LINE_H = 14;    // height of one label line
const PAD_X = 8, PAD_Y = 5;           // inside a node
const GAP_X = 18, GAP_Y = 30;         // between nodes, between layers
const HEAD = 22, INSET = 10;          // an open cluster's title bar, and its margin
const REGION_HEAD = 18;               // a region's title, above its graph
const SWEEPS = 4;                     // ordering and placement passes
const TEXT_OPEN_LINES = 40;           // shorter jaxpr texts start unfolded
const KERNEL_WAIT_MS = 3000;          // no answer from the kernel by then: a saved view

// ---------------------------------------------------------------------------------------
// Layout: layers by longest path, dummy nodes on long edges, barycentre ordering, then
// each layer's nodes pulled towards their neighbours without overlapping.
// ---------------------------------------------------------------------------------------

function nodeSize(node) {
  const width = Math.max(...node.label.map((line) => line.length), 3) * CHAR_W;
  return { w: width + 2 * PAD_X, h: node.label.length * LINE_H + 2 * PAD_Y };
}

/** Lays out one graph; `open(node)` gives the laid-out children of an open cluster or
 * null. Returns {w, h, items: [{node, x, y, w, h, inner}], edges: [{points, label}]}. */
export function layoutGraph(graph, open) {
  const items = graph.nodes.map((node) => {
    const inner = node.type === "cluster" ? open(node) : null;
    const size = inner ? { w: inner.w, h: inner.h } : nodeSize(node);
    return { node, inner, ...size, rank: 0, x: 0, y: 0, dummy: false };
  });
  const index = new Map(items.map((it, i) => [it.node.id, i]));
  const known = graph.edges.filter(([s, d]) => index.has(s) && index.has(d));
  const edges = known.filter((e) => e[3] !== "back");   // loop carries: drawn at the end
  // Ranks: the nodes come in program order, so one pass finds the longest paths.
  const preds = items.map(() => []);
  for (const [s, d] of edges) preds[index.get(d)].push(index.get(s));
  let last = 0;
  items.forEach((it, i) => {
    if (it.node.type === "input" || it.node.type === "const") return;
    it.rank = preds[i].length ? Math.max(...preds[i].map((p) => items[p].rank)) + 1 : 1;
    if (it.node.type !== "output") last = Math.max(last, it.rank);
  });
  items.forEach((it) => { if (it.node.type === "output") it.rank = last + 1; });
  // Dummy nodes carry an edge through each layer it crosses.
  const all = items.slice();
  const chains = edges.map(([s, d]) => {
    const a = index.get(s), b = index.get(d);
    const chain = [a];
    for (let r = items[a].rank + 1; r < items[b].rank; r++) {
      all.push({ node: null, dummy: true, rank: r, w: 2, h: 0, x: 0, y: 0 });
      chain.push(all.length - 1);
    }
    chain.push(b);
    return chain;
  });
  const up = all.map(() => []), down = all.map(() => []);
  for (const chain of chains) {
    for (let k = 1; k < chain.length; k++) {
      up[chain[k]].push(chain[k - 1]);
      down[chain[k - 1]].push(chain[k]);
    }
  }
  const nRanks = Math.max(0, ...all.map((it) => it.rank)) + 1;
  const layers = Array.from({ length: nRanks }, () => []);
  all.forEach((it, i) => layers[it.rank].push(i));
  const pos = new Array(all.length);
  const setPos = () => layers.forEach((l) => l.forEach((i, k) => { pos[i] = k; }));
  setPos();
  const mean = (xs, f) => xs.reduce((s, x) => s + f(x), 0) / xs.length;
  for (let sweep = 0; sweep < SWEEPS; sweep++) {
    const order = sweep % 2 === 0 ? layers.keys() : [...layers.keys()].reverse();
    for (const r of order) {
      const nbrs = sweep % 2 === 0 ? up : down;
      const key = new Map(layers[r].map((i) => [i, nbrs[i].length
        ? mean(nbrs[i], (j) => pos[j]) : pos[i]]));
      layers[r].sort((a, b) => key.get(a) - key.get(b));
      layers[r].forEach((i, k) => { pos[i] = k; });
    }
  }
  // Vertical places: each layer as tall as its tallest node.
  let y = 0;
  for (const layer of layers) {
    const h = Math.max(0, ...layer.map((i) => all[i].h));
    layer.forEach((i) => { all[i].y = y; all[i].layerH = h; });
    y += h + GAP_Y;
  }
  // Horizontal places: packed, then pulled towards the neighbours' centres.
  const pack = (layer, want) => {
    const left = [], right = [];
    layer.forEach((i, k) => {
      const x = want(i) - all[i].w / 2;
      left[k] = k ? Math.max(x, left[k - 1] + all[layer[k - 1]].w + GAP_X) : x;
    });
    for (let k = layer.length - 1; k >= 0; k--) {
      const x = want(layer[k]) - all[layer[k]].w / 2;
      right[k] = k < layer.length - 1 ? Math.min(x, right[k + 1] - GAP_X - all[layer[k]].w) : x;
    }
    layer.forEach((i, k) => {
      const x = (left[k] + right[k]) / 2;
      all[i].x = k ? Math.max(x, all[layer[k - 1]].x + all[layer[k - 1]].w + GAP_X) : x;
    });
  };
  for (const layer of layers) {
    let x = 0;
    layer.forEach((i) => { all[i].x = x; x += all[i].w + GAP_X; });
  }
  const centre = (i) => all[i].x + all[i].w / 2;
  for (let sweep = 0; sweep < SWEEPS; sweep++) {
    const nbrs = sweep % 2 === 0 ? up : down;
    const order = sweep % 2 === 0 ? layers : layers.slice().reverse();
    for (const layer of order) {
      pack(layer, (i) => (nbrs[i].length ? mean(nbrs[i], centre) : centre(i)));
    }
  }
  const minX = Math.min(0, ...all.map((it) => it.x));
  all.forEach((it) => { it.x -= minX; });
  let w = Math.max(0, ...all.map((it) => it.x + it.w));
  const edgeList = chains.map((chain, k) => {
    const points = [];
    chain.forEach((i, n) => {
      const it = all[i], cx = it.x + it.w / 2;
      if (n === 0) points.push([cx, it.y + it.h]);
      else if (n === chain.length - 1) points.push([cx, it.y]);
      else points.push([cx, it.y], [cx, it.y + it.layerH]);
    });
    return { points, label: edges[k][2], from: edges[k][0], to: edges[k][1] };
  });
  // A loop's carry goes from an output back up to its input, round the right side.
  const backs = known.filter((e) => e[3] === "back");
  backs.forEach(([s, d, label], k) => {
    const a = items[index.get(s)], b = items[index.get(d)];
    const side = w + GAP_X / 2 + 6 * k;
    edgeList.push({ back: true, label, from: s, to: d, points: [
      [a.x + a.w, a.y + a.h / 2], [side, a.y + a.h / 2], [side, b.y + b.h / 2],
      [b.x + b.w, b.y + b.h / 2]] });
  });
  if (backs.length) w += GAP_X / 2 + 6 * backs.length;
  return { w, h: Math.max(0, y - GAP_Y), items, edges: edgeList };
}

export function headText(node) {
  return `▾ ${node.title} · ${node.n} equation${node.n === 1 ? "" : "s"}`;
}

/** An open cluster: its graphs side by side under a title bar. */
export function layoutCluster(node, graphs, open) {
  let x = INSET, h = 0;
  const parts = graphs.map((g) => {
    const inner = layoutGraph(g, open);
    const part = { graph: g, inner, x, y: HEAD, w: inner.w + 2 * INSET,
                   h: inner.h + REGION_HEAD + INSET };
    x += part.w + INSET;
    h = Math.max(h, part.h);
    return part;
  });
  const title = (headText(node).length + 2) * CHAR_W * 1.1;   // bold
  return { parts, w: Math.max(x, title), h: h + HEAD + INSET };
}

export function pathOf(points) {
  let d = `M${points[0][0]},${points[0][1]}`;
  for (let k = 1; k < points.length; k++) {
    const [x0, y0] = points[k - 1], [x1, y1] = points[k];
    const my = (y0 + y1) / 2;
    d += ` C${x0},${my} ${x1},${my} ${x1},${y1}`;
  }
  return d;
}

// ---------------------------------------------------------------------------------------
// Drawing
// ---------------------------------------------------------------------------------------

function svgEl(tag, attrs = {}, parent = null) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (parent) parent.appendChild(el);
  return el;
}

function textLines(parent, lines, x, y, cls) {
  const text = svgEl("text", { x, y, class: cls }, parent);
  lines.forEach((line, k) => {
    const span = svgEl("tspan", { x, dy: k ? LINE_H : 0 }, text);
    span.textContent = line;
  });
  return text;
}

function htmlEl(tag, cls, parent, text) {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  if (text !== undefined) el.textContent = text;
  if (parent) parent.appendChild(el);
  return el;
}

// ---------------------------------------------------------------------------------------
// The debugger (present when the kernel has the program's arguments): step into / over /
// out of bodies, the call stack, the current body's equations with the current one
// marked, the current equation's values, and the value of a clicked variable.
// ---------------------------------------------------------------------------------------

/** A value as rows: name, type and text, and one row per device for a sharded value. */
function valueBlock(parent, row) {
  const box = htmlEl("div", "gjx-value", parent);
  htmlEl("div", "gjx-value-head", box, `${row.name}: ${row.type}`);
  if (!row.shards.length) {
    htmlEl("pre", "gjx-value-text", box, row.value);
    return box;
  }
  const table = htmlEl("table", "gjx-shards", box);
  const head = htmlEl("tr", null, table);
  for (const h of ["device", "index", "value"]) htmlEl("th", null, head, h);
  for (const s of row.shards) {
    const tr = htmlEl("tr", null, table);
    htmlEl("td", null, tr, s.device);
    htmlEl("td", null, tr, s.index);
    htmlEl("pre", "gjx-value-text", htmlEl("td", null, tr), s.value);
  }
  return box;
}

/** The debugger panel; `graph` gives what it needs of the graph: `show(open, id)` opens
 * clusters, marks a node and marks lines of the text. Returns {onMessage, pick(names)}. */
function makeDebugger(model, parent, graph) {
  const panel = htmlEl("div", "gjx-debugger", parent);
  const bar = htmlEl("div", "gjx-bar", panel);
  const send = (how) => model.send({ type: "step", how });
  for (const [how, label, title] of [
    ["into", "step into", "into the current equation's body (jit, cond, while, scan)"],
    ["over", "step over", "to the next equation of this body"],
    ["out", "step out", "out of this body, to the equation after the one that entered it"],
    ["restart", "restart", "back to the program's first equation"]]) {
    const b = htmlEl("button", `gjx-button gjx-step-${how}`, bar, label);
    b.title = title;
    b.addEventListener("click", () => send(how));
  }
  const where = htmlEl("span", "gjx-count", bar, "");
  const cols = htmlEl("div", "gjx-debug-cols", panel);
  const left = htmlEl("div", "gjx-debug-left", cols);
  htmlEl("div", "gjx-debug-title", left, "call stack");
  const stack = htmlEl("ol", "gjx-stack", left);
  htmlEl("div", "gjx-debug-title", left, "this body");
  const lines = htmlEl("div", "gjx-step-text", left);
  const right = htmlEl("div", "gjx-debug-right", cols);
  const error = htmlEl("div", "gjx-step-error", right);
  const inputs = htmlEl("div", "gjx-step-inputs", right);
  const outputs = htmlEl("div", "gjx-step-outputs", right);
  const picked = htmlEl("div", "gjx-picked", right);
  const values = (box, title, rows) => {
    box.replaceChildren();
    if (!rows.length) return;
    htmlEl("div", "gjx-debug-title", box, title);
    rows.forEach((row) => valueBlock(box, row));
  };
  const stepped = (msg) => {
    stack.replaceChildren();
    msg.stack.forEach((title) => htmlEl("li", null, stack, title));
    lines.replaceChildren();
    for (const line of msg.lines) {
      const pre = htmlEl("pre", "gjx-step-line", lines, line.text);
      if (line.k === msg.current) pre.classList.add("gjx-step-current");
    }
    const cur = lines.querySelector(".gjx-step-current");
    if (cur) lines.scrollTop = cur.offsetTop - 40;   // lines is cur's offsetParent
    where.textContent = msg.done ? "the program's end: its results"
      : msg.end ? "the body's end: its results" : `equation ${msg.current}`;
    error.textContent = msg.error || "";
    values(inputs, msg.end ? "results" : "inputs", msg.inputs);
    values(outputs, "outputs", msg.outputs);
    graph.show(msg.open, msg.id, msg.text_lines);
  };
  let asked = [];
  const onMessage = (msg) => {
    if (msg.type === "stepped") stepped(msg);
    else if (msg.type === "value" && asked.includes(msg.name)) {
      if (msg.rows) msg.rows.forEach((row) => valueBlock(picked, row));
      else htmlEl("div", "gjx-value-head", picked, msg.message);
    }
  };
  // A click on an input, output, constant or equation (or on an edge's label) asks for
  // the values of its variables.
  const pick = (names) => {
    asked = [...new Set(names)];
    picked.replaceChildren();
    if (!asked.length) return;
    htmlEl("div", "gjx-debug-title", picked, "values (click a node)");
    asked.forEach((name) => model.send({ type: "value", name }));
  };
  send("here");
  return { onMessage, pick };
}

function render({ model, el }) {
  const state = {
    root: model.get("model"),
    opened: new Set(),      // ids of open clusters
    loaded: new Map(),      // cluster id -> its graphs (sent with the model or later)
    pending: new Set(),     // clusters asked for
    waiters: new Map(),     // cluster id -> functions to call when it arrives
    found: null,            // the kernel's answer to the last whole-program search
    place: new Map(),       // node id -> {x, y, w, h} in content coordinates
    view: { x: 0, y: 0, k: 1 },
    size: { w: 0, h: 0 },
    matches: [],
    current: -1,
    stepId: null,           // the debugger's current node
    selectedId: null,       // the node selected by a click here or in the text
  };
  const remember = (graph) => {
    for (const node of graph.nodes) {
      if (node.type === "cluster" && node.children) {
        state.loaded.set(node.id, node.children);
        state.opened.add(node.id);
        node.children.forEach(remember);
      }
    }
  };

  // The page: a toolbar, the drawing, a hover card.
  el.classList.add("gjx");
  el.replaceChildren();
  // A view restored from a saved notebook has no kernel behind it: it says so when the
  // kernel does not answer its greeting (the notice goes when an answer comes late).
  const saved = htmlEl("div", "gjx-saved", el, "saved view: run the cell to explore");
  saved.hidden = true;
  let answered = false;
  const noAnswer = setTimeout(() => { saved.hidden = answered; }, KERNEL_WAIT_MS);
  const bar = htmlEl("div", "gjx-bar", el);
  const search = htmlEl("input", "gjx-search", bar);
  search.type = "search";
  search.placeholder = "search (Enter: the whole program)";
  search.title = "a variable by its name, a primitive or a cluster by part of its name";
  const count = htmlEl("span", "gjx-count", bar);
  const button = (label, title, onClick) => {
    const b = htmlEl("button", "gjx-button", bar, label);
    b.title = title;
    b.addEventListener("click", onClick);
    return b;
  };
  const status = htmlEl("span", "gjx-status", el);
  const note = htmlEl("div", "gjx-marks", el);     // what the marks mean
  const details = htmlEl("details", "gjx-text", el);
  const summary = htmlEl("summary", null, details, "jaxpr text");
  const textPane = htmlEl("pre", "gjx-jaxpr", details);
  // The text, one span per line, so that lines can be marked and clicked (linked
  // selection: a click on a line selects the equation printed there in the graph).
  const showText = () => {
    const text = model.get("text");
    textPane.replaceChildren();
    const lines = text.split("\n");
    lines.forEach((line, k) => {
      const span = htmlEl("span", "gjx-tline", textPane, k < lines.length - 1 ? `${line}\n` : line);
      span.dataset.line = k;
    });
    details.open = lines.length <= TEXT_OPEN_LINES;
    summary.textContent = `jaxpr text: ${lines.length.toLocaleString("en")} lines`;
    for (const [a, b] of (model.get("marks") || {}).lines || []) {
      for (let k = a; k <= b && k < lines.length; k++) textPane.children[k].classList.add("gjx-tline-added");
    }
    note.textContent = (model.get("marks") || {}).summary || "";
  };
  textPane.addEventListener("click", (e) => {
    const span = e.target.closest(".gjx-tline");
    if (span) model.send({ type: "select_line", line: Number(span.dataset.line) });
  });
  const markLines = (range, cls) => {
    for (const span of textPane.querySelectorAll(`.${cls}`)) span.classList.remove(cls);
    if (!range) return;
    const spans = textPane.children;
    for (let k = range[0]; k <= range[1] && k < spans.length; k++) spans[k].classList.add(cls);
    const first = spans[range[0]];
    if (first && details.open) {
      textPane.scrollTop = first.offsetTop - textPane.offsetTop - 20;
    }
  };
  showText();
  const stage = htmlEl("div", "gjx-stage", el);
  const svg = svgEl("svg", { class: "gjx-svg" }, stage);
  const defs = svgEl("defs", {}, svg);
  const marker = svgEl("marker", { id: `gjx-arrow-${Math.random().toString(36).slice(2)}`,
    viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 6, markerHeight: 6,
    orient: "auto-start-reverse" }, defs);
  svgEl("path", { d: "M0,0 L10,5 L0,10 z", class: "gjx-arrowhead" }, marker);
  const viewport = svgEl("g", { class: "gjx-viewport" }, svg);
  const card = htmlEl("div", "gjx-card", stage);
  let debug = null;         // the debugger panel, when the kernel can step the program
  card.hidden = true;

  const applyView = () => {
    const { x, y, k } = state.view;
    viewport.setAttribute("transform", `translate(${x},${y}) scale(${k})`);
  };
  const fit = () => {
    const W = stage.clientWidth || 800, H = stage.clientHeight || 480;
    const k = Math.min(1.5, (W - 20) / Math.max(state.size.w, 1),
                       (H - 20) / Math.max(state.size.h, 1));
    state.view = { k, x: (W - state.size.w * k) / 2, y: 10 };
    applyView();
  };
  const reset = () => { state.view = { x: 10, y: 10, k: 1 }; applyView(); };
  const zoomAt = (factor, cx, cy) => {
    const v = state.view, k = Math.min(8, Math.max(0.02, v.k * factor));
    state.view = { k, x: cx - (cx - v.x) * (k / v.k), y: cy - (cy - v.y) * (k / v.k) };
    applyView();
  };
  button("fit", "fit the graph to the view", fit);
  button("reset", "zoom 100%, top left", reset);
  button("+", "zoom in", () => zoomAt(1.25, stage.clientWidth / 2, stage.clientHeight / 2));
  button("−", "zoom out", () => zoomAt(0.8, stage.clientWidth / 2, stage.clientHeight / 2));
  const labelsBox = htmlEl("label", "gjx-toggle", bar);
  const labelsCheck = htmlEl("input", null, labelsBox);
  labelsCheck.type = "checkbox";
  labelsCheck.checked = true;
  labelsBox.appendChild(document.createTextNode(" edge labels"));
  labelsCheck.addEventListener("change", () => {
    svg.classList.toggle("gjx-nolabels", !labelsCheck.checked);
  });

  // Pan with the mouse, zoom with the wheel around the pointer.
  let drag = null;
  const onDown = (e) => {
    if (e.button !== 0 || e.target.closest(".gjx-node")) return;
    drag = { x: e.clientX, y: e.clientY, vx: state.view.x, vy: state.view.y };
    stage.classList.add("gjx-dragging");
  };
  const onMove = (e) => {
    if (!drag) return;
    state.view.x = drag.vx + e.clientX - drag.x;
    state.view.y = drag.vy + e.clientY - drag.y;
    applyView();
  };
  const onUp = () => { drag = null; stage.classList.remove("gjx-dragging"); };
  const onWheel = (e) => {
    e.preventDefault();
    const box = svg.getBoundingClientRect();
    zoomAt(Math.exp(-e.deltaY * 0.0015), e.clientX - box.left, e.clientY - box.top);
  };
  svg.addEventListener("mousedown", onDown);
  window.addEventListener("mousemove", onMove);
  window.addEventListener("mouseup", onUp);
  svg.addEventListener("wheel", onWheel, { passive: false });

  // Hover cards: the equation as the jaxpr prints it, its types and params, and the
  // user's line (file:line) and name scope it came from.
  const showCard = (node, evt) => {
    if (!node.card && !node.label) return;
    card.replaceChildren();
    const c = node.card || { text: node.label.join("\n"), in: [], out: [], params: [] };
    htmlEl("pre", "gjx-card-text", card, c.text);
    const row = (name, values) => {
      if (values && values.length) htmlEl("div", "gjx-card-row", card, `${name}: ${values.join(", ")}`);
    };
    row("in", c.in);
    row("out", c.out);
    row("params", c.params);
    if (c.source) {       // "Cell In[24], line 7 (f)" and the line itself
      row("at", [`${c.source.place} (${c.source.function})`]);
      if (c.source.code) htmlEl("pre", "gjx-card-code", card, c.source.code);
    }
    row("scope", c.scope && [c.scope]);
    if (node.type === "cluster") {
      htmlEl("div", "gjx-card-hint", card,
             state.opened.has(node.id) ? "click to fold" : "click to unfold");
    }
    const marks = model.get("marks") || {};      // what a transformation did
    if ((marks.nodes || {})[node.id] === "added") {
      htmlEl("div", "gjx-card-row", card, "added by the transformation");
    } else if ((marks.origins || {})[node.id]) {
      htmlEl("div", "gjx-card-row", card, marks.origins[node.id]);
    }
    card.hidden = false;
    // Below and right of the pointer, moved inside the stage where it would stick out
    // (above the pointer near the bottom edge).
    const box = stage.getBoundingClientRect();
    const x = evt.clientX - box.left, y = evt.clientY - box.top;
    const w = card.offsetWidth, h = card.offsetHeight;
    card.style.left = `${Math.max(0, Math.min(x + 14, box.width - w - 2))}px`;
    card.style.top = `${Math.max(0, y + 14 + h <= box.height ? y + 14 : y - 14 - h)}px`;
  };

  const toggle = (node) => {
    card.hidden = true;
    if (state.opened.has(node.id)) {
      state.opened.delete(node.id);
    } else if (state.loaded.has(node.id)) {
      state.opened.add(node.id);
    } else {
      if (!state.pending.has(node.id)) {
        state.pending.add(node.id);
        model.send({ type: "expand", id: node.id });
        status.textContent = `opening ${node.title || node.id} ...`;
      }
      return;
    }
    draw();
  };

  // Drawing the visible tree.
  const open = (node) => {
    if (!state.opened.has(node.id)) return null;
    return layoutCluster(node, state.loaded.get(node.id), open);
  };
  // A graph drawn at (dx, dy) in `parent`, whose origin is at (ox, oy) in the content.
  const drawGraph = (parent, laid, dx, dy, ox, oy) => {
    const g = svgEl("g", { transform: `translate(${dx},${dy})` }, parent);
    for (const e of laid.edges) {
      const d = e.back ? `M${e.points.map((p) => p.join(",")).join(" L")}` : pathOf(e.points);
      const path = svgEl("path", { d, class: e.back ? "gjx-edge gjx-back" : "gjx-edge",
                                   "marker-end": `url(#${marker.id})` }, g);
      path.dataset.from = e.from;
      path.dataset.to = e.to;
      if (e.label) {
        svgEl("title", {}, path).textContent = e.label;
        const [x0, y0] = e.points[0], [x1, y1] = e.points[1];
        const t = svgEl("text", { x: (x0 + x1) / 2 + 3, y: (y0 + y1) / 2 + 3,
                                  class: "gjx-elabel" }, g);
        t.textContent = e.label;
        if (!e.back && !/^\d+ values$/.test(e.label)) {     // "b:f32[3], c:f32[]"
          t.addEventListener("click", (ev) => {
            ev.stopPropagation();
            if (debug) debug.pick(e.label.split(", ").map((v) => v.split(":")[0]));
          });
        }
      }
    }
    for (const it of laid.items) drawItem(g, it, ox, oy);
    return g;
  };
  const drawItem = (g, it, ox, oy) => {
    const node = it.node;
    const kind = node.kind || node.type;
    const item = svgEl("g", { class: `gjx-node gjx-${node.type} gjx-kind-${kind}`,
                              transform: `translate(${it.x},${it.y})` }, g);
    item.dataset.id = node.id;
    item.dataset.type = node.type;
    state.place.set(node.id, { x: ox + it.x, y: oy + it.y, w: it.w, h: it.h });
    if (it.inner) {
      item.classList.add("gjx-open");
      svgEl("rect", { width: it.w, height: it.h, rx: 8, class: "gjx-cluster-box" }, item);
      const head = svgEl("g", { class: "gjx-head" }, item);
      svgEl("rect", { width: it.w, height: HEAD, rx: 8, class: "gjx-head-box" }, head);
      textLines(head, [headText(node)], 8, 15, "gjx-head-text");
      head.addEventListener("click", (e) => { e.stopPropagation(); select(node); toggle(node); });
      head.addEventListener("mousemove", (e) => showCard(node, e));
      head.addEventListener("mouseleave", () => { card.hidden = true; });
      for (const part of it.inner.parts) {
        const r = svgEl("g", { transform: `translate(${part.x},${part.y})`,
                               class: "gjx-region" }, item);
        svgEl("rect", { width: part.w, height: part.h, rx: 6, class: "gjx-region-box" }, r);
        textLines(r, [part.graph.title], 6, 13, "gjx-region-title");
        drawGraph(r, part.inner, INSET, REGION_HEAD, ox + it.x + part.x + INSET,
                  oy + it.y + part.y + REGION_HEAD);
      }
      return;
    }
    const shape = node.type === "input" || node.type === "output" ? 2 : 6;
    svgEl("rect", { width: it.w, height: it.h, rx: shape, class: "gjx-box" }, item);
    if (node.type === "cluster") {
      svgEl("rect", { x: 3, y: 3, width: it.w - 6, height: it.h - 6, rx: 4,
                      class: "gjx-box-inner" }, item);
    }
    textLines(item, node.label, PAD_X, PAD_Y + 10, "gjx-label");
    item.addEventListener("mousemove", (e) => showCard(node, e));
    item.addEventListener("mouseleave", () => { card.hidden = true; });
    item.addEventListener("click", (e) => {
      e.stopPropagation();
      select(node);
      if (node.type === "cluster") toggle(node);
      else if (debug) debug.pick(node.vars || []);
    });
  };
  const draw = () => {
    const t0 = performance.now();
    state.place.clear();
    viewport.replaceChildren();
    const laid = layoutGraph(state.root, open);
    state.size = { w: laid.w, h: laid.h };
    drawGraph(viewport, laid, 0, 0, 0, 0);
    const shown = viewport.querySelectorAll(".gjx-node").length;
    status.textContent = `${shown} nodes shown · layout ${(performance.now() - t0).toFixed(0)} ms`;
    highlight(false);
    const step = state.stepId && viewport.querySelector(
      `.gjx-node[data-id="${CSS.escape(state.stepId)}"]`);
    if (step) step.classList.add("gjx-step");
    const chosen = state.selectedId && viewport.querySelector(
      `.gjx-node[data-id="${CSS.escape(state.selectedId)}"]`);
    if (chosen) chosen.classList.add("gjx-selected");
    const marked = (model.get("marks") || {}).nodes || {};
    for (const g of viewport.querySelectorAll(".gjx-node")) {
      const how = marked[g.dataset.id];
      if (how) g.classList.add(how === "added" ? "gjx-added" : "gjx-has-added");
    }
  };
  // Linked selection: a node selected here marks its lines in the text; a line clicked
  // in the text opens the clusters around its equation and selects its node.
  const select = (node) => {
    state.selectedId = node.id;
    for (const g of viewport.querySelectorAll(".gjx-selected")) g.classList.remove("gjx-selected");
    const g = viewport.querySelector(`.gjx-node[data-id="${CSS.escape(node.id)}"]`);
    if (g) g.classList.add("gjx-selected");
    model.send({ type: "select", id: node.id });
  };
  const showSelected = async (msg) => {
    markLines(msg.lines, "gjx-tline-sel");
    if (!msg.id || (msg.id === state.selectedId && !msg.open.length)) return;
    for (const id of msg.open) {
      await loaded(id);
      state.opened.add(id);
    }
    state.selectedId = msg.id;
    draw();
    if (state.place.has(msg.id)) moveTo(state.place.get(msg.id));
  };

  // Search: variables by their exact name; primitives and cluster titles (jit names,
  // named scopes, ...) by a part of them.
  const nodeMatches = (node, q) => {
    if ((node.vars || []).includes(q)) return true;
    if (node.type !== "eqn" && node.type !== "cluster") return false;
    const lq = q.toLowerCase();
    return node.label[0].toLowerCase().includes(lq) ||
      (node.title || "").toLowerCase().includes(lq);
  };
  const highlight = (centre) => {
    const q = search.value.trim();
    if (state.found && state.found.query !== q) state.found = null;
    state.matches = [];
    for (const g of viewport.querySelectorAll(".gjx-node")) g.classList.remove("gjx-match", "gjx-current");
    if (!q) { count.textContent = ""; return; }
    const byId = new Map();
    const walk = (graph) => graph.nodes.forEach((n) => {
      byId.set(n.id, n);
      if (state.opened.has(n.id)) state.loaded.get(n.id).forEach(walk);
    });
    walk(state.root);
    for (const g of viewport.querySelectorAll(".gjx-node")) {
      const node = byId.get(g.dataset.id);
      if (node && nodeMatches(node, q)) {
        g.classList.add("gjx-match");
        state.matches.push(g);
      }
    }
    count.textContent = `${state.matches.length} match${state.matches.length === 1 ? "" : "es"} shown`;
    if (centre && state.matches.length) {
      state.current = (state.current + 1) % state.matches.length;
      centreOn(state.matches[state.current].dataset.id);
    }
  };
  const centreOn = (id) => {
    const g = viewport.querySelector(`.gjx-node[data-id="${CSS.escape(id)}"]`);
    const p = state.place.get(id);
    if (!g || !p) return;
    g.classList.add("gjx-current");
    moveTo(p);
  };
  const moveTo = (p) => {
    const W = stage.clientWidth || 800, H = stage.clientHeight || 480;
    const k = Math.max(state.view.k, 0.8);
    state.view = { k, x: W / 2 - (p.x + p.w / 2) * k, y: H / 2 - (p.y + p.h / 2) * k };
    applyView();
  };
  // Enter searches the whole program in the kernel (folded clusters too) and shows the
  // matches one after the other, opening the clusters around each.
  const loaded = (id) => new Promise((resolve) => {
    if (state.loaded.has(id)) { resolve(); return; }
    if (!state.waiters.has(id)) state.waiters.set(id, []);
    state.waiters.get(id).push(resolve);
    if (!state.pending.has(id)) {
      state.pending.add(id);
      model.send({ type: "expand", id });
    }
  });
  const showFound = async (k) => {
    const found = state.found;
    if (!found.paths.length) {
      count.textContent = "no match in the program";
      return;
    }
    found.current = k % found.paths.length;
    const path = found.paths[found.current];
    for (const id of path.open) {
      await loaded(id);
      state.opened.add(id);
    }
    draw();
    centreOn(path.id);
    const more = found.total > found.paths.length ? ` (first ${found.paths.length} listed)` : "";
    count.textContent = `${found.current + 1} of ${found.total} in the program${more}`;
  };
  search.addEventListener("input", () => { state.current = -1; highlight(true); });
  search.addEventListener("keydown", (e) => {
    if (e.key !== "Enter") return;
    const query = search.value.trim();
    if (state.found && state.found.query === query) showFound(state.found.current + 1);
    else if (query) model.send({ type: "search", query });
  });

  const onMessage = (msg) => {
    answered = true;
    saved.hidden = true;
    if (msg.type === "children") {
      state.pending.delete(msg.id);
      msg.graphs.forEach(remember);
      state.loaded.set(msg.id, msg.graphs);
      const waiting = state.waiters.get(msg.id);
      state.waiters.delete(msg.id);
      if (waiting) {
        waiting.forEach((resolve) => resolve());    // a search opens it
      } else {
        state.opened.add(msg.id);
        draw();
      }
    } else if (msg.type === "found") {
      if (msg.query === search.value.trim()) {
        state.found = { ...msg, current: 0 };
        showFound(0);
      }
    } else if (msg.type === "selected") {
      showSelected(msg);
    } else if ((msg.type === "stepped" || msg.type === "value") && debug) {
      debug.onMessage(msg);
    } else if (msg.type === "error") {
      state.pending.delete(msg.id);
      status.textContent = msg.message;
    }
  };
  model.on("msg:custom", onMessage);
  model.send({ type: "hello" });
  const onModel = () => {
    state.root = model.get("model");
    showText();
    state.opened.clear();
    state.loaded.clear();
    remember(state.root);
    draw();
    fit();
  };
  model.on("change:model", onModel);
  const onMarks = () => { showText(); draw(); };
  model.on("change:marks", onMarks);
  remember(state.root);
  draw();
  if (model.get("stepping")) {
    debug = makeDebugger(model, el, { show: async (open, id, lines) => {
      markLines(lines, "gjx-tline-step");
      for (const cluster of open) {
        await loaded(cluster);
        state.opened.add(cluster);
      }
      state.stepId = id;
      draw();
      if (id && state.place.has(id)) moveTo(state.place.get(id));
    } });
  }
  // First view: the whole width if that keeps labels readable, from the top.
  requestAnimationFrame(() => {
    const W = stage.clientWidth || 800;
    const k = Math.max(0.5, Math.min(1, (W - 20) / Math.max(state.size.w, 1)));
    state.view = { k, x: Math.max(10, (W - state.size.w * k) / 2), y: 10 };
    applyView();
  });
  return () => {
    clearTimeout(noAnswer);
    window.removeEventListener("mousemove", onMove);
    window.removeEventListener("mouseup", onUp);
    model.off("msg:custom", onMessage);
    model.off("change:model", onModel);
    model.off("change:marks", onMarks);
  };
}

export default { render };
