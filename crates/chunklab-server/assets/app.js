// chunklab web page: the chunk visualiser and search (bench.js: the Bench tab), on the server's own JSON API.
// Plain JavaScript, no libraries, nothing fetched from elsewhere.
"use strict";

const $ = (sel, root = document) => root.querySelector(sel);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
};

// ---- tabs (arrow keys move between them) ----
const tabs = [$("#tab-chunks"), $("#tab-search"), $("#tab-bench")];
function showTab(t) {
  for (const x of tabs) {
    const on = x === t;
    x.setAttribute("aria-selected", String(on));
    x.tabIndex = on ? 0 : -1;
    $("#" + x.getAttribute("aria-controls")).hidden = !on;
  }
}
tabs.forEach((t, i) => {
  t.addEventListener("click", () => showTab(t));
  t.addEventListener("keydown", (e) => {
    if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
      const n = tabs[(i + (e.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
      showTab(n); n.focus();
    }
  });
});
showTab(tabs[0]);

// ---- token (kept in this browser only) ----
const tokenInput = $("#token");
tokenInput.value = localStorage.getItem("chunklab-token") || "";
tokenInput.addEventListener("change", () => localStorage.setItem("chunklab-token", tokenInput.value));
function authHeaders() {
  const t = tokenInput.value.trim();
  return t ? { authorization: "Bearer " + t } : {};
}

async function api(path, opts = {}) {
  const r = await fetch(path, opts);
  let body = null;
  try { body = await r.json(); } catch (_) { /* not JSON */ }
  if (!r.ok) {
    const msg = body && body.error ? `${body.error.code}: ${body.error.message}` : `HTTP ${r.status}`;
    throw new Error(msg);
  }
  return body;
}

// ---- strategy forms ----
const STRATEGIES = ["recursive", "fixed", "sentence", "paragraph", "headings", "elements", "sliding", "code", "hierarchical"];
function buildConfig(fs, defaults) {
  const box = $(".cfg-fields", fs);
  const side = fs.dataset.side;
  const sel = el("select", { id: `strategy-${side}`, name: "strategy" });
  for (const s of STRATEGIES) sel.append(el("option", { text: s }));
  sel.value = defaults.strategy;
  const unit = el("select", { id: `unit-${side}`, name: "unit" });
  for (const u of ["chars", "words", "tokens"]) unit.append(el("option", { text: u }));
  unit.value = defaults.unit;
  box.append(
    el("label", {}, "strategy", sel),
    el("label", {}, "size", el("input", { id: `size-${side}`, name: "size", type: "number", min: "1", value: String(defaults.size) })),
    el("label", {}, "overlap", el("input", { id: `overlap-${side}`, name: "overlap", type: "number", min: "0", value: "0" })),
    el("label", {}, "unit", unit),
    el("label", { class: "extra" }, "more keys (JSON, as in the CLI / sweep TOML)",
      el("input", { id: `extra-${side}`, name: "extra", placeholder: '{"tokenizer": "o200k", "title_prefix": true}' })),
  );
}
buildConfig($("#cfg-a"), { strategy: "recursive", size: 200, unit: "chars" });
buildConfig($("#cfg-b"), { strategy: "paragraph", size: 200, unit: "chars" });

function readConfig(side) {
  const cfg = {
    strategy: $(`#strategy-${side}`).value,
    size: Number($(`#size-${side}`).value),
    unit: $(`#unit-${side}`).value,
  };
  const overlap = Number($(`#overlap-${side}`).value);
  if (overlap) cfg.overlap = overlap;
  const extra = $(`#extra-${side}`).value.trim();
  if (extra) Object.assign(cfg, JSON.parse(extra));
  const parser = $("#parser").value;
  if (parser) cfg.parser = parser;
  return cfg;
}

// ---- file input and drop ----
let droppedFile = null;
$("#file").addEventListener("change", (e) => { droppedFile = e.target.files[0] || null; });
$("#clear-file").addEventListener("click", () => { droppedFile = null; $("#file").value = ""; });
const textArea = $("#text");
textArea.addEventListener("dragover", (e) => e.preventDefault());
textArea.addEventListener("drop", (e) => {
  e.preventDefault();
  if (e.dataTransfer.files.length) {
    droppedFile = e.dataTransfer.files[0];
    $("#chunk-status").textContent = `file: ${droppedFile.name}`;
  }
});

async function chunkWith(cfg) {
  if (droppedFile) {
    const form = new FormData();
    for (const [k, v] of Object.entries(cfg)) form.append(k, typeof v === "string" ? v : JSON.stringify(v));
    form.append("include_text", "true");
    form.append("file", droppedFile, droppedFile.name);
    return api("/v1/chunk", { method: "POST", body: form });
  }
  return api("/v1/chunk", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...cfg, text: textArea.value, include_text: true }),
  });
}

// ---- rendering chunks over the text ----
// Offsets from the API are in Unicode scalar values; JavaScript strings index UTF-16 units.
function utf16Offsets(text) {
  const map = new Uint32Array(text.length + 1);
  let cp = 0, i = 0;
  while (i < text.length) {
    map[cp++] = i;
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c < 0xdc00 ? 2 : 1;
  }
  map[cp] = i;
  return map.subarray(0, cp + 1);
}

// Cut the text at every chunk boundary; each segment lists the chunks covering it. Segments
// covered by a chunk are coloured by their first chunk; covered by two or more: overlap.
function renderChunks(view, text, chunks, info) {
  const off = utf16Offsets(text);
  const at = (c) => off[Math.min(c, off.length - 1)];
  const cuts = new Set([0, text.length]);
  for (const c of chunks) { cuts.add(at(c.start_char)); cuts.add(at(c.end_char)); }
  const points = [...cuts].sort((a, b) => a - b);
  // Sweep: chunks sorted by start; active set per segment.
  const order = chunks.map((c, i) => i).sort((a, b) => chunks[a].start_char - chunks[b].start_char);
  const frag = document.createDocumentFragment();
  let next = 0;
  let active = [];
  const firstSeg = new Map();
  for (let p = 0; p + 1 < points.length; p++) {
    const s = points[p], e = points[p + 1];
    while (next < order.length && at(chunks[order[next]].start_char) <= s) active.push(order[next++]);
    active = active.filter((i) => at(chunks[i].end_char) > s);
    const covering = active.filter((i) => at(chunks[i].start_char) <= s);
    const piece = text.slice(s, e);
    if (!covering.length) { frag.append(piece); continue; }
    const span = el("span", { class: `seg c${covering[0] % 6}` + (covering.length > 1 ? " overlap" : "") });
    span.dataset.chunks = covering.join(" ");
    span.textContent = piece;
    for (const i of covering) if (!firstSeg.has(i)) {
      firstSeg.set(i, span);
      span.tabIndex = 0;
    }
    frag.append(span);
  }
  view.replaceChildren(frag);
  const describe = (span) => span.dataset.chunks.split(" ").map((i) => {
    const c = chunks[Number(i)];
    return `chunk ${c.index + 1}/${c.total} · ${c.tokens} ${c.unit || ""} · headings: ${(c.headings || []).join(" › ") || "–"}` +
      ` · page: ${c.page ?? "–"} · kind: ${c.kind ?? "–"}\nid ${c.id}`;
  }).join("\n");
  const show = (e) => {
    const span = e.target.closest(".seg");
    if (!span) return;
    view.querySelectorAll(".seg.current").forEach((x) => x.classList.remove("current"));
    const first = span.dataset.chunks.split(" ")[0];
    view.querySelectorAll(".seg").forEach((x) => { if (x.dataset.chunks.split(" ").includes(first)) x.classList.add("current"); });
    info.textContent = describe(span);
  };
  view.onmouseover = show;
  view.onfocusin = show;
  // j / k: next / previous chunk.
  const starts = [...firstSeg.entries()].sort((a, b) => a[0] - b[0]).map((x) => x[1]);
  view.onkeydown = (e) => {
    if (e.key !== "j" && e.key !== "k") return;
    const i = starts.indexOf(document.activeElement);
    const n = starts[Math.max(0, Math.min(starts.length - 1, i + (e.key === "j" ? 1 : -1)))];
    if (n) { n.focus(); n.scrollIntoView({ block: "nearest" }); }
    e.preventDefault();
  };
}

function histogram(chunks) {
  const sizes = chunks.map((c) => c.tokens);
  const max = Math.max(1, ...sizes);
  const bins = new Array(Math.min(20, Math.max(1, chunks.length))).fill(0);
  for (const s of sizes) bins[Math.min(bins.length - 1, Math.floor((s / max) * bins.length))]++;
  const top = Math.max(1, ...bins);
  const h = el("div", { class: "hist", role: "img", "aria-label": `chunk sizes from ${Math.min(...sizes)} to ${max}` });
  for (const [i, n] of bins.entries()) {
    const lo = Math.round((i / bins.length) * max), hi = Math.round(((i + 1) / bins.length) * max);
    h.append(el("div", { style: `height:${(n / top) * 100}%`, title: `${lo}–${hi}: ${n} chunks` }));
  }
  return [h, el("div", { class: "hist-axis" }, el("span", { text: "0" }), el("span", { text: String(max) }))];
}

function panel(side, res) {
  const chunks = res.chunks;
  const text = res.documents.map((d) => d.text).join("");
  const sizes = chunks.map((c) => c.tokens);
  const mean = sizes.length ? (sizes.reduce((a, b) => a + b, 0) / sizes.length).toFixed(1) : 0;
  const view = el("div", { class: "chunk-view", id: `view-${side}`, "data-count": String(chunks.length) });
  const p = el("div", { class: "panel", id: `panel-${side}` },
    el("h2", { text: `${side.toUpperCase()}: ${res.config}` }),
    el("div", { class: "summary", text: `${chunks.length} chunks · mean ${mean} ${res.unit} · max ${Math.max(0, ...sizes)}` }),
    ...histogram(chunks), view);
  renderChunks(view, text, chunks, $("#info"));
  return p;
}

$("#chunk-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const status = $("#chunk-status");
  status.className = "";
  status.textContent = "chunking…";
  try {
    const sides = $("#compare").checked ? ["a", "b"] : ["a"];
    const results = await Promise.all(sides.map((s) => chunkWith(readConfig(s))));
    $("#results").replaceChildren(...results.map((r, i) => panel(sides[i], r)));
    status.textContent = results.map((r, i) => `${sides[i].toUpperCase()}: ${r.chunks.length} chunks`).join(" · ");
  } catch (err) {
    status.className = "error";
    status.textContent = err.message;
  }
});

// ---- search ----
$("#search-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const status = $("#search-status");
  status.className = "";
  status.textContent = "searching…";
  const filters = $("#filters").value.split(",").map((f) => f.trim()).filter(Boolean);
  try {
    const res = await api("/v1/search", {
      method: "POST",
      headers: { "content-type": "application/json", ...authHeaders() },
      body: JSON.stringify({ q: $("#q").value, mode: $("#mode").value, k: Number($("#k").value), filter: filters, context_chars: 240 }),
    });
    status.textContent = `${res.hits.length} hits in ${res.took_ms.toFixed(1)} ms`;
    $("#hits").replaceChildren(...res.hits.map(hitItem));
    $("#doc-view").hidden = true;
  } catch (err) {
    status.className = "error";
    status.textContent = err.message;
  }
});

function hitItem(h) {
  const link = el("a", { href: "#", text: "whole document" });
  link.addEventListener("click", (e) => { e.preventDefault(); openDocument(h); });
  return el("li", { class: "hit-item" },
    el("div", { class: "hit-meta", text: `${h.source} · ${(h.headings || []).join(" › ") || "–"} · page ${h.page ?? "–"} · score ${h.score.toFixed(4)}` }),
    el("div", { class: "hit-context" }, h.before || "", el("mark", { class: "hit", text: h.text }), h.after || ""),
    link);
}

async function openDocument(h) {
  const status = $("#search-status");
  try {
    const d = await api(`/v1/documents/${encodeURIComponent(h.doc_id)}`, { headers: authHeaders() });
    $("#doc-title").textContent = d.source;
    const view = $("#doc-text");
    renderChunks(view, d.text, d.chunks.map((c, i) => ({ ...c, index: i, total: d.chunks.length })), status);
    $("#doc-view").hidden = false;
    const target = [...view.querySelectorAll(".seg")].find((s) =>
      s.dataset.chunks.split(" ").some((i) => d.chunks[Number(i)].id === h.chunk_id));
    if (target) { target.classList.add("current"); target.focus(); target.scrollIntoView({ block: "center" }); }
  } catch (err) {
    status.className = "error";
    status.textContent = err.message;
  }
}
$("#doc-close").addEventListener("click", () => { $("#doc-view").hidden = true; $("#hits").focus(); });
