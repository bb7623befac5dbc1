// weir dashboard: DOM and SVG drawing (the operator graph, line plots, bar charts).
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  return fill(node, attrs, children);
}

function svgEl(tag, attrs, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  return fill(node, attrs, children);
}

function fill(node, attrs, children) {
  for (const [name, value] of Object.entries(attrs || {})) {
    if (name === "onclick") node.addEventListener("click", value);
    else if (value !== undefined && value !== null) node.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === "string" || typeof child === "number" ? String(child) : child);
  }
  return node;
}

// --- the operator graph: layers by longest path from the sources ------------------
const BOX_W = 196, BOX_H = 106, GAP_X = 62, GAP_Y = 22, PAD = 14;
const NAME_CHARS = 24, NAME_LINES = 2, LINE = 14;

function layers(nodes) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const depth = new Map();
  const visit = (node, seen) => {
    if (depth.has(node.id)) return depth.get(node.id);
    if (seen.has(node.id)) return 0; // (a cycle: none in a plan, but never loop)
    seen.add(node.id);
    const inputs = node.inputs.map((i) => byId.get(i.id)).filter(Boolean);
    const d = inputs.length ? 1 + Math.max(...inputs.map((i) => visit(i, seen))) : 0;
    depth.set(node.id, d);
    return d;
  };
  nodes.forEach((n) => visit(n, new Set()));
  return depth;
}

function layout(nodes) {
  const depth = layers(nodes);
  const rows = new Map();
  const place = new Map();
  for (const node of nodes) {
    const d = depth.get(node.id);
    const row = rows.get(d) || 0;
    rows.set(d, row + 1);
    place.set(node.id, { x: PAD + d * (BOX_W + GAP_X), y: PAD + row * (BOX_H + GAP_Y) });
  }
  const width = PAD * 2 + (Math.max(0, ...depth.values()) + 1) * (BOX_W + GAP_X) - GAP_X;
  const height = PAD * 2 + Math.max(1, ...rows.values()) * (BOX_H + GAP_Y) - GAP_Y;
  return { place, width, height };
}

// lines(node) -> [[className, text], ...] shown under the node's name
function drawGraph(nodes, lines) {
  const { place, width, height } = layout(nodes);
  const svg = svgEl("svg", { width: "100%", viewBox: `0 0 ${width} ${height}`,
                             style: `max-width: ${width}px`,
                             role: "img", "aria-label": "operator graph" });
  svg.append(svgEl("defs", {}, svgEl("marker", {
    id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 7, markerHeight: 7,
    orient: "auto-start-reverse" }, svgEl("path", { d: "M 0 0 L 10 5 L 0 10 z",
                                                  fill: "#8793a8" }))));
  for (const node of nodes) {
    const to = place.get(node.id);
    for (const input of node.inputs) {
      const from = place.get(input.id);
      if (!from) continue;
      const x1 = from.x + BOX_W, y1 = from.y + BOX_H / 2, x2 = to.x, y2 = to.y + BOX_H / 2;
      const mid = (x1 + x2) / 2;
      svg.append(svgEl("path", { class: "edge", "marker-end": "url(#arrow)",
                                 "data-from": input.id, "data-to": node.id,
                                 d: `M ${x1} ${y1} C ${mid} ${y1}, ${mid} ${y2}, ${x2} ${y2}` }));
      svg.append(svgEl("text", { class: "edge-label", x: mid, y: (y1 + y2) / 2 - 4,
                                 "text-anchor": "middle" }, input.ship_strategy));
    }
  }
  for (const node of nodes) {
    const { x, y } = place.get(node.id);
    const keyed = node.operator === "keyed" || node.operator === "two_input";
    const group = svgEl("g", { class: `vertex${keyed ? " keyed" : ""}`, "data-vertex": node.id,
                               transform: `translate(${x},${y})` });
    const name = wrapped(node.description, NAME_CHARS, NAME_LINES);
    group.append(svgEl("title", {}, node.description),
      svgEl("rect", { width: BOX_W, height: BOX_H }),
      svgEl("text", { class: "title", x: 8, y: 17 },
            name.map((part, i) => svgEl("tspan", { x: 8, dy: i ? LINE : 0 }, part))));
    const below = 17 + (name.length - 1) * LINE;
    group.append(svgEl("text", { class: "kind", x: 8, y: below + LINE },
                       `${node.operator} · ${node.id} · p=${node.parallelism}`));
    lines(node).forEach(([cls, text], i) =>
      group.append(svgEl("text", { class: cls, x: 8, y: below + 30 + i * LINE }, text)));
    svg.append(group);
  }
  return svg;
}

// `text` in at most `count` lines of `n` characters, broken after ", " or "(" where
// that keeps a line at least half full; the last line clipped
function wrapped(text, n, count) {
  const out = [];
  let rest = text;
  while (rest.length > n && out.length < count - 1) {
    const after = Math.max(rest.lastIndexOf(", ", n - 2) + 2, rest.lastIndexOf("(", n - 1) + 1);
    const cut = after >= n / 2 ? after : n;
    out.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut);
  }
  out.push(clip(rest, n));
  return out;
}

function clip(text, n) {
  return text.length > n ? text.slice(0, n - 1) + "…" : text;
}

// --- a line plot of one or two series over time -------------------------------------
const PLOT_W = 380, PLOT_H = 150, LEFT = 58, BOTTOM = 18;

function linePlot(caption, points, series, format) {
  // points: [{t, <series keys>}], series: [[key, label], ...]
  const box = el("div", { class: "plot", "data-plot": caption });
  box.append(el("div", { class: "caption" }, caption + ": " +
    series.map(([, label], i) => `${label} (${i ? "green" : "blue"})`).join(", ")));
  const svg = svgEl("svg", { width: "100%", viewBox: `0 0 ${PLOT_W} ${PLOT_H}` });
  const values = points.flatMap((p) => series.map(([k]) => p[k])).filter(isFinite);
  const top = values.length ? Math.max(...values) : 1;
  const low = Math.min(0, ...values);
  const span = top - low || 1;
  const t0 = points.length ? points[0].t : 0;
  const t1 = points.length ? points[points.length - 1].t : 1;
  const x = (t) => LEFT + ((t - t0) / ((t1 - t0) || 1)) * (PLOT_W - LEFT - 6);
  const y = (v) => PLOT_H - BOTTOM - ((v - low) / span) * (PLOT_H - BOTTOM - 8);
  svg.append(svgEl("line", { class: "axis", x1: LEFT, y1: PLOT_H - BOTTOM, x2: PLOT_W,
                             y2: PLOT_H - BOTTOM }),
    svgEl("line", { class: "axis", x1: LEFT, y1: 4, x2: LEFT, y2: PLOT_H - BOTTOM }),
    svgEl("text", { x: LEFT - 4, y: 12, "text-anchor": "end" }, format(top)),
    svgEl("text", { x: LEFT - 4, y: PLOT_H - BOTTOM, "text-anchor": "end" }, format(low)),
    svgEl("text", { x: LEFT, y: PLOT_H - 4 }, points.length ? clock(t0) : ""),
    svgEl("text", { x: PLOT_W - 4, y: PLOT_H - 4, "text-anchor": "end" },
          points.length ? clock(t1) : "no micro-batches yet"));
  series.forEach(([key], i) => {
    const line = points.filter((p) => isFinite(p[key]))
      .map((p) => `${x(p.t).toFixed(1)},${y(p[key]).toFixed(1)}`).join(" ");
    if (line) svg.append(svgEl("polyline", { class: `series-${i}`, points: line }));
  });
  box.append(svg);
  return box;
}

// --- a bar chart: bars [{label, value}] ---------------------------------------------
function barChart(caption, bars, cls, format) {
  const box = el("div", { class: "plot", "data-chart": caption });
  box.append(el("div", { class: "caption" }, caption));
  const width = Math.max(PLOT_W, LEFT + bars.length * 4);
  const svg = svgEl("svg", { width: "100%", viewBox: `0 0 ${width} ${PLOT_H}`,
                             class: "bars" });
  const top = Math.max(1, ...bars.map((b) => b.value));
  const step = (width - LEFT - 6) / Math.max(1, bars.length);
  svg.append(svgEl("line", { class: "axis", x1: LEFT, y1: PLOT_H - BOTTOM, x2: width,
                             y2: PLOT_H - BOTTOM }),
    svgEl("text", { x: LEFT - 4, y: 12, "text-anchor": "end" }, format(top)),
    svgEl("text", { x: LEFT - 4, y: PLOT_H - BOTTOM, "text-anchor": "end" }, "0"));
  bars.forEach((bar, i) => {
    const h = (bar.value / top) * (PLOT_H - BOTTOM - 8);
    svg.append(svgEl("rect", { class: cls, x: LEFT + i * step + 1, y: PLOT_H - BOTTOM - h,
                               width: Math.max(1, step - 2), height: h },
                     svgEl("title", {}, `${bar.label}: ${format(bar.value)}`)));
    if (bars.length <= 16) {
      svg.append(svgEl("text", { x: LEFT + i * step + step / 2, y: PLOT_H - 4,
                                 "text-anchor": "middle" }, bar.label));
    }
  });
  box.append(svg);
  return box;
}

function clock(ms) {
  return new Date(ms).toISOString().slice(11, 19);
}
