// chunklab web page, Bench tab: start a bench job, follow its server-sent events, show the
// table and the quality-versus-cost chart, or open a bench JSON file. Uses app.js's helpers
// ($, el, api, authHeaders); plain JavaScript, nothing fetched from elsewhere.
"use strict";

// ---- bench: start a run (a job), watch its server-sent events, show the table and chart ----
const SVGNS = "http://www.w3.org/2000/svg";
const svg = (tag, attrs = {}, text) => {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
};
// Metric columns in the order the CLI's reports show them.
const METRICS = ["recall", "precision", "iou", "precision_omega", "recall_exact", "iou_exact", "doc_recall", "mrr", "ndcg"];
const MODE_COLOURS = { dense: "#2f6db5", hybrid: "#d9822b", bm25: "#3a9a5b" };
const modeColour = (m) => MODE_COLOURS[String(m).split("+")[0]] || "#7a55b0";
const list = (s) => s.split(",").map((x) => x.trim()).filter(Boolean);

function benchRequest() {
  const req = {};
  const ds = $("#bench-dataset").value;
  if (ds === "corpus") {
    req.corpus = $("#bench-corpus").value.trim();
    req.queries = $("#bench-queries").value.trim();
  } else {
    req.dataset = ds;
    if (ds === "archive") req.docs = Number($("#bench-docs").value);
  }
  const strategies = list($("#bench-strategies").value);
  if (strategies.length) req.strategies = strategies;
  const modes = list($("#bench-modes").value);
  if (modes.length) req.modes = modes;
  const extra = $("#bench-extra").value.trim();
  if (extra) Object.assign(req, JSON.parse(extra));
  return req;
}

function showJob(job) {
  $("#bench-progress").hidden = false;
  const stage = job.stage ? `${job.stage}: ${job.done}/${job.total}` : "starting…";
  $("#bench-stage").textContent = `job ${job.id} · ${job.status} · ${job.elapsed_s.toFixed(1)} s · ${stage}`;
  const bar = $("#bench-bar");
  bar.max = Math.max(1, job.total);
  bar.value = Math.min(job.done, bar.max);
  $("#bench-notes").replaceChildren(...job.notes.map((n) => el("li", { text: n })));
}

// Server-sent events over fetch (EventSource cannot send the bearer token): returns the final
// event's job, or null when the stream ended without one.
async function watchJob(id) {
  const r = await fetch(`/v1/jobs/${encodeURIComponent(id)}/events`, { headers: authHeaders() });
  if (!r.ok || !r.body) throw new Error(`events of job ${id}: HTTP ${r.status}`);
  const reader = r.body.getReader();
  const dec = new TextDecoder();
  let buf = "", last = null;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true }).replace(/\r\n/g, "\n");
    let cut;
    while ((cut = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      let name = "message", data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data += line.slice(5).replace(/^ /, "");
      }
      if (!data) continue;
      const job = JSON.parse(data);
      showJob(job);
      if (name === "done" || name === "failed") last = job;
    }
  }
  return last;
}

$("#bench-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const status = $("#bench-status");
  status.className = "";
  status.textContent = "starting…";
  $("#bench-run").disabled = true;
  try {
    const job = await api("/v1/bench", {
      method: "POST",
      headers: { "content-type": "application/json", ...authHeaders() },
      body: JSON.stringify(benchRequest()),
    });
    status.textContent = `job ${job.id} running`;
    showJob(job);
    let end = await watchJob(job.id);
    if (!end || end.status === "running") end = await api(`/v1/jobs/${encodeURIComponent(job.id)}`, { headers: authHeaders() });
    if (end.status === "done") {
      if (!end.result) end = await api(`/v1/jobs/${encodeURIComponent(job.id)}`, { headers: authHeaders() });
      status.textContent = `job ${job.id} done in ${end.elapsed_s.toFixed(1)} s`;
      renderBench(end.result);
    } else if (end.status === "failed") {
      status.className = "error";
      status.textContent = `job ${job.id} failed: ${end.error}`;
    } else {
      status.textContent = `job ${job.id}: ${end.status} (the event stream ended early; reload the job)`;
    }
  } catch (err) {
    status.className = "error";
    status.textContent = err.message;
  } finally {
    $("#bench-run").disabled = false;
  }
});

$("#bench-file").addEventListener("change", async (e) => {
  const f = e.target.files[0];
  if (!f) return;
  const status = $("#bench-status");
  status.className = "";
  try {
    const result = JSON.parse(await f.text());
    if (!result || !Array.isArray(result.rows)) throw new Error("no `rows` array: not a chunklab bench JSON");
    renderBench(result);
    status.textContent = `opened ${f.name}`;
  } catch (err) {
    status.className = "error";
    status.textContent = `${f.name}: ${err.message}`;
  }
});

let benchShown = null;
function renderBench(result) {
  benchShown = result;
  const rows = result.rows;
  $("#bench-result").hidden = false;
  $("#bench-title").textContent = `${result.dataset}: ${result.docs ?? "?"} documents, ${result.queries ?? "?"} queries, ` +
    `${rows.length} configurations` + (result.seconds !== undefined ? `, ${result.seconds} s` : "");
  const names = new Set(rows.flatMap((r) => Object.keys(r.metrics || {})));
  const metrics = [...METRICS.filter((m) => names.has(m)), ...[...names].filter((m) => !METRICS.includes(m)).sort()];
  const sel = $("#bench-metric");
  const keep = sel.value;
  sel.replaceChildren(...metrics.map((m) => el("option", { text: m })));
  sel.value = metrics.includes(keep) ? keep : names.has("recall") ? "recall" : names.has("doc_recall") ? "doc_recall" : metrics[0] || "";
  drawBench();
}
$("#bench-metric").addEventListener("change", () => benchShown && drawBench());
$("#bench-cost").addEventListener("change", () => benchShown && drawBench());

const metricOf = (r, m) => { const v = r.metrics && r.metrics[m]; return typeof v === "number" ? v : NaN; };
const fmt = (v, d = 2) => (Number.isFinite(v) ? (Math.abs(v) >= 1000 ? Math.round(v).toLocaleString("en") : v.toFixed(d)) : "–");

function drawBench() {
  const rows = benchShown.rows;
  const metric = $("#bench-metric").value;
  const costKey = $("#bench-cost").value;
  const costName = $("#bench-cost").selectedOptions[0].textContent;
  const order = rows.map((_, i) => i).sort((a, b) => {
    const x = metricOf(rows[a], metric), y = metricOf(rows[b], metric);
    return (Number.isFinite(y) ? y : -Infinity) - (Number.isFinite(x) ? x : -Infinity);
  });
  // The table, best first.
  const cols = METRICS.filter((m) => rows.some((r) => Number.isFinite(metricOf(r, m))));
  const head = el("tr", {}, ...["configuration", "mode", "k", ...cols, "chunks", "mean size", "index bytes", "prompt tokens", "query p50 ms"]
    .map((h) => el("th", { scope: "col", text: h })));
  const body = order.map((i, rank) => {
    const r = rows[i], c = r.cost || {};
    const tr = el("tr", { class: rank === 0 ? "best" : "", "data-label": r.label },
      el("td", { text: (rank === 0 ? "★ " : "") + r.label }), el("td", { text: r.mode }), el("td", { text: String(r.k) }),
      ...cols.map((m) => el("td", { text: fmt(metricOf(r, m)) })),
      el("td", { text: fmt(c.chunks, 0) }), el("td", { text: fmt(c.mean_tokens, 1) }), el("td", { text: fmt(c.index_bytes, 0) }),
      el("td", { text: fmt(c.prompt_tokens, 1) }), el("td", { text: fmt(c.query_p50_ms, 3) }));
    return tr;
  });
  $("#bench-table").replaceChildren(el("thead", {}, head), el("tbody", {}, ...body));
  $("#bench-chart").replaceChildren(scatter(rows, metric, costKey, costName));
}

// Quality (y) against cost (x, log scale when it spans more than 20×), a point per configuration
// coloured by mode, the Pareto front (no other configuration both cheaper and better) dashed.
function scatter(rows, metric, costKey, costName) {
  const pts = rows.map((r, i) => ({ i, r, x: Number((r.cost || {})[costKey]), y: metricOf(r, metric) }))
    .filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  const W = 720, H = 380, L = 64, R = 20, T = 20, B = 48;
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img", id: "bench-scatter",
    "aria-label": `${metric} against ${costName}, ${pts.length} configurations` });
  if (!pts.length) {
    s.append(svg("text", { x: W / 2, y: H / 2, "text-anchor": "middle" }, `no configuration has both ${metric} and ${costName}`));
    return s;
  }
  const xs = pts.map((p) => p.x), ys = pts.map((p) => p.y);
  let x0 = Math.min(...xs), x1 = Math.max(...xs);
  const log = x0 > 0 && x1 / x0 > 20;
  const tx = log ? Math.log10 : (v) => v;
  let a = tx(x0), b = tx(x1);
  if (a === b) { a -= 1; b += 1; }
  let y0 = Math.min(0, ...ys), y1 = Math.max(...ys);
  if (y0 === y1) y1 = y0 + 1;
  const px = (v) => L + ((tx(v) - a) / (b - a)) * (W - L - R);
  const py = (v) => H - B - ((v - y0) / (y1 - y0)) * (H - T - B);
  s.append(svg("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: "#888" }),
    svg("line", { x1: L, y1: T, x2: L, y2: H - B, stroke: "#888" }),
    svg("text", { x: (L + W - R) / 2, y: H - 8, "text-anchor": "middle", "font-size": 13 }, costName + (log ? " (log scale)" : "")),
    svg("text", { x: 14, y: (T + H - B) / 2, "text-anchor": "middle", "font-size": 13, transform: `rotate(-90 14 ${(T + H - B) / 2})` }, metric));
  for (const [v, anchor, x] of [[x0, "start", px(x0)], [x1, "end", px(x1)]])
    s.append(svg("text", { x, y: H - B + 16, "text-anchor": anchor, "font-size": 11 }, fmt(v, 1)));
  for (const v of [y0, y1])
    s.append(svg("text", { x: L - 6, y: py(v) + 4, "text-anchor": "end", "font-size": 11 }, fmt(v)));
  // Pareto front: sorted by cost, keep each point better than every cheaper one.
  const front = [];
  for (const p of [...pts].sort((p, q) => p.x - q.x || q.y - p.y)) {
    if (!front.length || p.y > front[front.length - 1].y) front.push(p);
  }
  s.append(svg("polyline", { class: "pareto", points: front.map((p) => `${px(p.x)},${py(p.y)}`).join(" "),
    fill: "none", stroke: "#c0392b", "stroke-dasharray": "5 4", "stroke-width": 1.5 }));
  for (const p of pts) {
    const c = svg("circle", { class: "pt", cx: px(p.x), cy: py(p.y), r: 6, fill: modeColour(p.r.mode), "fill-opacity": 0.85,
      stroke: front.includes(p) ? "#c0392b" : "#fff", "stroke-width": 2, tabindex: 0, "data-label": p.r.label });
    c.append(svg("title", {}, `${p.r.label} (${p.r.mode}, k=${p.r.k}): ${metric} ${fmt(p.y)}, ${costName} ${fmt(p.x, 1)}`));
    s.append(c);
  }
  const modes = [...new Set(pts.map((p) => String(p.r.mode)))];
  modes.forEach((m, i) => {
    s.append(svg("circle", { cx: W - R - 110, cy: T + 8 + i * 18, r: 5, fill: modeColour(m) }),
      svg("text", { x: W - R - 100, y: T + 12 + i * 18, "font-size": 12 }, m));
  });
  return s;
}
