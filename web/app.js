/*
 * opscreen dashboard: the verdict matrix (names x dtypes), the regression
 * timeline, live run progress and a page per name (#/name/NAME). Plain DOM,
 * data only through textContent; everything comes from the daemon's JSON API.
 */
"use strict";

/*
 * The verdict vocabulary and its ranks come from the daemon (daemon/verdict.c,
 * "verdict_vocabulary" of /allowlist): a name x dtype cell shows the worst
 * verdict of the name's keys.  Until a list has been served there is no
 * ranking: a word not in the vocabulary ranks as the worst.
 */
let VERDICTS = [];
let RANK = {};
/*
 * A broken cell's severity (critical, loud, numerics: daemon/verdict.h) comes
 * with the verdicts of /ops; its ranks from "severity_vocabulary" of
 * /denylist.  The severity filter hides a name whose broken cells are all of
 * an unticked severity (and that shows no other ticked verdict).
 */
let SEVERITIES = [];
let SEV_RANK = {};
const FAILING = new Set(["fail", "timeout", "crash", "error", "hazard"]);
const MAX_EVIDENCE = 12;	/* failing cases fetched per name page */

const state = { hidden: new Set(), hiddenSev: new Set(), search: "", run: null,
  lastComplete: undefined, route: "" };

function $(id) { return document.getElementById(id); }

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined) continue;
    if (k === "class") e.className = v;
    else e.setAttribute(k, v);
  }
  for (const k of kids) {
    if (k === null || k === undefined) continue;
    e.appendChild(typeof k === "object" ? k : document.createTextNode(String(k)));
  }
  return e;
}

async function getJSON(path) {
  const r = await fetch(path, { cache: "no-store" });
  let body = null;
  try { body = await r.json(); } catch (e) { body = { error: "not JSON" }; }
  return { ok: r.ok, status: r.status, body };
}

function fmt(x) {
  if (x === null || x === undefined) return "";
  if (typeof x !== "number") return String(x);
  if (x === 0) return "0";
  const a = Math.abs(x);
  return (a >= 1e4 || a < 1e-3) ? x.toExponential(3) : String(+x.toPrecision(4));
}

function nameLink(name) {
  return el("a", { href: "#/name/" + encodeURIComponent(name) }, name);
}

function chip(verdict) {
  return el("span", { class: "chip v-" + verdict }, verdict);
}

function sevChip(sev) {
  return sev ? el("span", { class: "chip s-" + sev }, sev) : null;
}

function sevRank(s) {
  return s in SEV_RANK ? SEV_RANK[s] : (s ? Infinity : -1);
}

/* ---- header: version and progress ---------------------------------------- */

async function refreshHeader() {
  const h = await getJSON("/healthz");
  if (!h.ok) return;
  $("version").textContent = "opscreend " + h.body.version;
  const fps = (h.body.devices || []).map(d => d.fingerprint).filter(Boolean);
  $("library").textContent = fps.length ? fps[0].library + " " +
    fps[0].library_version + " on " + fps.map(f => f.gpu_name || f.device).join(", ") : "";

  const runs = await getJSON("/runs");
  if (!runs.ok) return;
  const list = runs.body.runs || [];
  const live = list.find(r => r.state === "running") ||
    list.find(r => r.state === "queued");
  const complete = list.find(r => r.state === "complete");
  const bar = $("progress-bar"), text = $("progress-text");
  if (live) {
    const one = await getJSON("/runs/" + live.id);
    const r = one.ok ? one.body : live;
    const pct = typeof r.percent === "number" ? r.percent :
      (r.total ? 100 * r.done / r.total : 0);
    text.textContent = "run " + r.id + " " + r.state + ": " + (r.done || 0) +
      "/" + (r.total || 0) + " cases (" + pct.toFixed(0) + "%)";
    bar.value = pct;
    bar.hidden = false;
  } else {
    bar.hidden = true;
    text.textContent = list.length ? "idle; last run " + list[0].id + " " +
      list[0].state : "no run yet";
  }
  /* a run finished: the matrix and the timeline moved with it */
  const last = complete ? complete.id : null;
  if (last !== state.lastComplete) {
    const first = state.lastComplete === undefined;	/* route() loaded it */
    state.lastComplete = last;
    if (!first && state.route === "") refreshHome();
  }
}

/* ---- matrix --------------------------------------------------------------- */

function rank(v) {
  return v in RANK ? RANK[v] : Infinity;
}

/* names of a served vocabulary in rank order; null when it is not one */
function ranked(vocab) {
  if (!Array.isArray(vocab) || !vocab.length) return null;
  return vocab.slice().sort((a, b) => a.rank - b.rank).map(v => v.name);
}

/* one checkbox per word into box; unticked words go into hidden */
function filterBoxes(box, words, attr, hidden, chipOf) {
  for (const w of words) {
    const cb = el("input", { type: "checkbox", [attr]: w });
    cb.checked = !hidden.has(w);
    cb.addEventListener("change", () => {
      if (cb.checked) hidden.delete(w); else hidden.add(w);
      applyFilters();
    });
    box.appendChild(el("label", {}, cb, " ", chipOf(w)));
    box.appendChild(document.createTextNode(" "));
  }
}

/* the daemon's vocabulary: ranks, and one filter per verdict in rank order */
function useVocabulary(vocab) {
  const names = ranked(vocab);
  if (!names || names.join(" ") === VERDICTS.join(" ")) return;
  VERDICTS = names;
  RANK = Object.fromEntries(vocab.map(v => [v.name, v.rank]));
  $("filters").replaceChildren();
  filterBoxes($("filters"), VERDICTS, "data-verdict", state.hidden, chip);
}

/* one filter per severity, the worst first */
function useSeverities(vocab) {
  const names = ranked(vocab);
  if (!names || names.join(" ") === SEVERITIES.join(" ")) return;
  SEVERITIES = names;
  SEV_RANK = Object.fromEntries(vocab.map(v => [v.name, v.rank]));
  const box = $("severity-filters");
  box.replaceChildren(el("span", { class: "muted" }, "broken: "));
  filterBoxes(box, SEVERITIES.slice().reverse(), "data-severity",
    state.hiddenSev, sevChip);
}

function buildFilters() {
  $("search").addEventListener("input", e => {
    state.search = e.target.value.trim().toLowerCase();
    applyFilters();
  });
}

function applyFilters() {
  for (const tr of document.querySelectorAll("#matrix tbody tr")) {
    const name = tr.getAttribute("data-name");
    const verdicts = (tr.getAttribute("data-verdicts") || "").split(" ");
    /* "broken:critical" is shown while both broken and critical are */
    const shown = v => {
      const [verdict, sev] = v.split(":");
      return !state.hidden.has(verdict) && !(sev && state.hiddenSev.has(sev));
    };
    const show = name.toLowerCase().includes(state.search) &&
      verdicts.some(shown);
    tr.hidden = !show;
  }
}

async function refreshMatrix() {
  const [ops, allow, deny] = await Promise.all([getJSON("/ops"),
    getJSON("/allowlist?stale=ok"), getJSON("/denylist?stale=ok")]);
  if (allow.ok) useVocabulary(allow.body.verdict_vocabulary);
  if (deny.ok) useSeverities(deny.body.severity_vocabulary);
  const err = $("matrix-error");
  if (!ops.ok) {
    err.textContent = ops.body.error || ("GET /ops: " + ops.status);
    err.hidden = false;
    return;
  }
  err.hidden = true;
  $("matrix-run").textContent = "(run " + ops.body.run + ")";
  const cells = new Map();	/* name -> dtype -> verdict */
  const sevs = new Map();	/* name + " " + dtype -> worst broken severity */
  const dtypes = new Set();
  for (const v of ops.body.verdicts || []) {
    dtypes.add(v.dtype);
    if (!cells.has(v.name)) cells.set(v.name, new Map());
    const row = cells.get(v.name);
    const cur = row.get(v.dtype);
    if (cur === undefined || rank(v.verdict) > rank(cur))
      row.set(v.dtype, v.verdict);
    if (v.verdict === "broken") {
      /* a broken verdict stored without a severity reads as critical */
      const s = v.severity || "critical", k = v.name + " " + v.dtype;
      if (!sevs.has(k) || sevRank(s) > sevRank(sevs.get(k))) sevs.set(k, s);
    }
  }
  /* withheld names serve a key nothing measured: not verified, not broken */
  const withheld = new Map();
  for (const w of (allow.ok && allow.body.withheld) || []) {
    const n = typeof w === "string" ? w : w.name;
    withheld.set(n, typeof w === "string" ? "" : (w.reason || ""));
  }
  for (const n of withheld.keys())
    if (!cells.has(n)) cells.set(n, new Map());
  const cols = [...dtypes].sort();

  const head = $("matrix").tHead;
  head.replaceChildren(el("tr", {}, el("th", {}, "name"),
    ...cols.map(d => el("th", {}, d))));
  const body = $("matrix").tBodies[0];
  body.replaceChildren();
  const counts = {};
  for (const name of [...cells.keys()].sort()) {
    const row = cells.get(name);
    const tr = el("tr", { "data-name": name });
    tr.appendChild(el("td", { class: "name" }, nameLink(name)));
    const seen = new Set();
    for (const d of cols) {
      let v = row.get(d);
      if (withheld.has(name) && (v === undefined || rank(v) < rank("withheld")))
        v = "withheld";
      if (v === undefined) {
        tr.appendChild(el("td", { class: "cell v-none" }, "\u2013"));
        continue;
      }
      const sev = v === "broken" ? sevs.get(name + " " + d) || "critical" : null;
      seen.add(sev ? v + ":" + sev : v);
      const td = el("td", { class: "cell v-" + v, "data-dtype": d,
        "data-verdict": v, "data-severity": sev, title: name + " " + d + ": " + v +
        (sev ? " (" + sev + ")" : "") +
        (v === "withheld" && withheld.get(name) ? " (" + withheld.get(name) + ")" : "") });
      td.appendChild(document.createTextNode(v));
      if (sev) td.appendChild(el("span", { class: "sev s-" + sev }, sev));
      tr.appendChild(td);
    }
    for (const v of new Set([...seen].map(x => x.split(":")[0])))
      counts[v] = (counts[v] || 0) + 1;
    tr.setAttribute("data-verdicts", [...seen].join(" "));
    body.appendChild(tr);
  }
  $("summary").textContent = cells.size + " names; " + VERDICTS
    .filter(v => counts[v]).map(v => counts[v] + " " + v).join(", ");
  applyFilters();
}

/* ---- timeline ------------------------------------------------------------- */

async function refreshTimeline() {
  const r = await getJSON("/regressions?limit=1000");
  const ol = $("timeline");
  if (!r.ok) return;
  const events = (r.body.events || []).slice().reverse();	/* newest first */
  ol.replaceChildren();
  $("timeline-empty").hidden = events.length > 0;
  let run = null;
  for (const e of events) {
    if (e.run !== run) {
      run = e.run;
      const when = e.created ? new Date(e.created * 1000).toISOString()
        .replace("T", " ").slice(0, 16) + " UTC" : "";
      ol.appendChild(el("li", { class: "run" }, "run " + e.run + " vs run " +
        e.previous_run + " ", el("span", { class: "muted" }, when)));
    }
    const dev = e.device >= 0 ? " gpu " + e.device : "";
    const li = el("li", { class: "event", "data-kind": e.kind,
      "data-name": e.name, "data-dtype": e.dtype, "data-from": e.from || "",
      "data-to": e.to || "" },
      el("span", { class: "kind k-" + e.kind }, e.kind), " ",
      nameLink(e.name), " " + e.dtype + dev + " ",
      e.from ? chip(e.from) : null, e.from && e.to ? " \u2192 " : null,
      e.to ? chip(e.to) : null,
      e.detail ? el("span", { class: "muted" }, " " + e.detail) : null);
    ol.appendChild(li);
  }
}

function refreshHome() {
  return Promise.all([refreshMatrix(), refreshTimeline()]);
}

/* ---- name page ------------------------------------------------------------ */

function copyText(text, note) {
  const done = () => { note.textContent = "copied"; };
  const fallback = () => {
    const ta = el("textarea", { readonly: "", style: "position:fixed;top:-9999px" });
    ta.value = text;
    document.body.appendChild(ta);
    ta.select();
    let ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    ta.remove();
    note.textContent = ok ? "copied" : "copy failed: select the text by hand";
  };
  if (navigator.clipboard && window.isSecureContext)
    navigator.clipboard.writeText(text).then(done, fallback);
  else
    fallback();
}

function svgMaker() {
  const NS = "http://www.w3.org/2000/svg";
  return (tag, attrs, text) => {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  };
}

const SERIES = ["#1565c0", "#6a1b9a", "#ef6c00", "#00838f", "#5d4037", "#ad1457"];

/*
 * The compile-time ladder: cold-cache first-call time of each compile-class
 * step against its parameter (both log scale), one line per key and dtype,
 * the budget dashed; a step that never returned sits on the top edge as x.
 */
function plotLadder(cases) {
  const box = $("ladder");
  box.replaceChildren();
  const steps = cases.filter(c => c.class === "compile" &&
    typeof c.ladder_value === "number" && c.ladder_value > 0);
  if (!steps.length) return;
  const param = steps[0].ladder_param || "parameter";
  const budget = steps.find(c => typeof c.budget_ms === "number");
  const budgetS = budget ? budget.budget_ms / 1e3 : null;
  const timed = steps.filter(c => typeof c.cand_first_ms === "number" && c.cand_first_ms > 0);
  const secs = timed.map(c => c.cand_first_ms / 1e3).concat(budgetS ? [budgetS] : []);
  const vals = steps.map(c => c.ladder_value);
  let ylo = Math.min(...secs, 1e-3), yhi = Math.max(...secs) * 1.5;
  let xlo = Math.min(...vals), xhi = Math.max(...vals);
  if (xhi === xlo) { xlo /= 2; xhi *= 2; }
  const W = 640, H = 240, L = 58, R = 150, T = 22, B = 34;
  const lg = Math.log10;
  const x = v => L + (W - L - R) * (lg(v) - lg(xlo)) / (lg(xhi) - lg(xlo));
  const y = v => T + (H - T - B) * (1 - (lg(v) - lg(ylo)) / (lg(yhi) - lg(ylo)));
  const s = svgMaker();
  const title = "compile-time ladder: first call (s) vs " + param;
  const svg = s("svg", { class: "plot ladder", width: W, height: H,
    viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": title });
  svg.appendChild(s("title", {}, title));
  svg.appendChild(s("text", { x: L, y: 14 }, title + ", log-log"));
  svg.appendChild(s("line", { x1: L, y1: T, x2: L, y2: H - B, stroke: "#999" }));
  svg.appendChild(s("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: "#999" }));
  for (const v of [...new Set(vals)].sort((a, b) => a - b)) {
    svg.appendChild(s("text", { x: x(v), y: H - B + 14, "text-anchor": "middle" }, String(v)));
  }
  for (const v of [ylo, yhi]) {
    svg.appendChild(s("text", { x: L - 4, y: y(v) + 4, "text-anchor": "end" }, fmt(v)));
  }
  if (budgetS) {
    svg.appendChild(s("line", { x1: L, y1: y(budgetS), x2: W - R, y2: y(budgetS),
      stroke: "#c62828", "stroke-dasharray": "5,4", class: "budget" }));
    svg.appendChild(s("text", { x: W - R + 4, y: y(budgetS) + 4, fill: "#c62828" },
      "budget " + fmt(budgetS) + " s"));
  }
  const groups = new Map();
  for (const c of steps) {
    const k = c.key + " " + c.dtype;
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(c);
  }
  let gi = 0;
  for (const [k, cs] of groups) {
    const color = SERIES[gi % SERIES.length];
    cs.sort((a, b) => a.ladder_value - b.ladder_value);
    const pts = cs.filter(c => typeof c.cand_first_ms === "number" && c.cand_first_ms > 0);
    if (pts.length > 1) {
      svg.appendChild(s("polyline", { fill: "none", stroke: color, "stroke-width": 1.5,
        points: pts.map(c => x(c.ladder_value) + "," + y(c.cand_first_ms / 1e3)).join(" ") }));
    }
    for (const c of cs) {
      const hung = !(typeof c.cand_first_ms === "number" && c.cand_first_ms > 0);
      const cy = hung ? T : y(c.cand_first_ms / 1e3);
      const mark = hung
        ? s("text", { x: x(c.ladder_value), y: cy + 4, "text-anchor": "middle",
            fill: "#c62828", class: "step", "data-case": c.id }, "\u00d7")
        : s("circle", { cx: x(c.ladder_value), cy, r: 3.5, class: "step",
            fill: c.status === "hazard" ? "#c62828" : color, "data-case": c.id });
      mark.appendChild(s("title", {}, k + " " + param + "=" + c.ladder_value + ": " +
        (hung ? c.status + " (no first call within the deadline)" :
          fmt(c.cand_first_ms / 1e3) + " s, " + c.status)));
      svg.appendChild(mark);
    }
    /* legend from the bottom up: the budget label sits near the top */
    svg.appendChild(s("text", { x: W - R + 4, y: H - B - 14 * (groups.size - 1 - gi),
      fill: color }, k));
    gi++;
  }
  box.appendChild(svg);
}

/* first-call time per case as an inline SVG scatter, log scale on a wide range */
function plotFirstCalls(cases) {
  const pts = cases.filter(c => typeof c.cand_first_ms === "number" &&
    c.cand_first_ms > 0);
  const box = $("plot");
  box.replaceChildren();
  const title = "first-call time per case (ms)";
  if (!pts.length) {
    box.appendChild(el("p", { class: "muted" }, title + ": no timed case"));
    return;
  }
  const W = 640, H = 200, L = 58, R = 12, T = 22, B = 30;
  const ys = pts.map(c => c.cand_first_ms);
  let lo = Math.min(...ys), hi = Math.max(...ys);
  const log = hi / lo > 50;
  const f = log ? Math.log10 : (x => x);
  if (!log) lo = 0;
  if (hi === lo) hi = lo + 1;
  const y = v => T + (H - T - B) * (1 - (f(v) - f(lo)) / (f(hi) - f(lo)));
  const x = i => L + (W - L - R) * (pts.length === 1 ? 0.5 : i / (pts.length - 1));
  const NS = "http://www.w3.org/2000/svg";
  const s = (tag, attrs, text) => {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const svg = s("svg", { class: "plot", width: W, height: H,
    viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": title });
  svg.appendChild(s("title", {}, title));
  svg.appendChild(s("text", { x: L, y: 14 }, title + (log ? ", log scale" : "")));
  svg.appendChild(s("line", { x1: L, y1: T, x2: L, y2: H - B, stroke: "#999" }));
  svg.appendChild(s("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: "#999" }));
  for (const v of [lo, hi]) {
    svg.appendChild(s("text", { x: L - 4, y: y(v) + 4, "text-anchor": "end" }, fmt(v)));
    svg.appendChild(s("line", { x1: L, y1: y(v), x2: W - R, y2: y(v), stroke: "#eee" }));
  }
  svg.appendChild(s("text", { x: (L + W - R) / 2, y: H - 8, "text-anchor": "middle" },
    "case (" + pts.length + ", in case-id order)"));
  pts.forEach((c, i) => {
    const bad = FAILING.has(c.status);
    const dot = s("circle", { cx: x(i), cy: y(c.cand_first_ms), r: 3.5,
      fill: bad ? "#c62828" : "#2e7d32", "data-case": c.id });
    dot.appendChild(s("title", {}, "case " + c.id + " " + c.key + " " + c.dtype +
      " " + c.class + " " + c.status + ": " + fmt(c.cand_first_ms) + " ms"));
    svg.appendChild(dot);
  });
  box.appendChild(svg);
}

function figuresTable(figures) {
  const outs = (figures && figures.outputs) || [];
  const rows = outs.filter(o => "err_abs_c" in o || "err_ulp_c" in o);
  if (!rows.length) return null;
  const num = v => el("td", { class: "num" }, fmt(v));
  const ratio = (c, n) => (typeof c === "number" && typeof n === "number" && n > 0)
    ? fmt(c / n) + "\u00d7" : "";
  return el("table", { class: "figures" },
    el("thead", {}, el("tr", {}, ...["output", "err_abs candidate", "err_abs native",
      "ratio", "err_ulp candidate", "err_ulp native", "ratio"].map(h => el("th", {}, h)))),
    el("tbody", {}, ...rows.map(o => el("tr", {}, el("td", {}, "out" + o.index),
      num(o.err_abs_c), num(o.err_abs_n), num(ratio(o.err_abs_c, o.err_abs_n) || null),
      num(o.err_ulp_c), num(o.err_ulp_n), num(ratio(o.err_ulp_c, o.err_ulp_n) || null)))));
}

function shapesOf(spec) {
  return ((spec && spec.args) || []).filter(a => a.t === "tensor")
    .map(a => "[" + (a.shape || []).join(",") + "]").join(" ");
}

function evidenceBlock(c, open) {
  const d = el("details", { class: "case", "data-case": c.id });
  d.open = open;
  d.appendChild(el("summary", {}, "case " + c.id + " ", el("span", { class: "chip v-" +
    (c.status === "pass" ? "verified" : "broken") }, c.status), " ",
    c.severity ? sevChip(c.severity) : null, " " + c.key + " " +
    c.dtype + " " + c.class + " \u2014 " + (c.reason || "") + " ",
    el("span", { class: "muted" }, shapesOf(c.spec))));
  d.appendChild(el("p", { class: "detail" }, c.detail || ""));
  const tab = figuresTable(c.figures);
  if (tab) d.appendChild(tab);
  const t = c.figures && c.figures.times;
  if (t) d.appendChild(el("p", { class: "muted" }, "candidate first call " +
    fmt(t.cand_first_ms) + " ms, steady " + fmt(t.cand_steady_ms) +
    " ms; native " + fmt(t.native_ms) + " ms"));
  if (c.stderr_tail) {
    d.appendChild(el("p", {}, "stderr tail:"));
    d.appendChild(el("pre", { class: "stderr" }, c.stderr_tail));
  }
  if (c.repro) {
    const note = el("span", { class: "muted" });
    const btn = el("button", { type: "button" }, "copy repro");
    btn.addEventListener("click", () => copyText(c.repro, note));
    d.appendChild(el("div", { class: "repro-bar" }, el("strong", {}, "repro"), btn, note));
    d.appendChild(el("pre", { class: "repro" }, c.repro));
  }
  return d;
}

async function showName(name) {
  $("name-title").textContent = name;
  document.title = "opscreen: " + name;
  const err = $("name-error");
  for (const id of ["name-verdicts", "history"])
    $(id).tBodies[0].replaceChildren();
  $("evidence").replaceChildren();
  $("plot").replaceChildren();
  const r = await getJSON("/ops/" + encodeURIComponent(name));
  if (!r.ok) {
    err.textContent = r.body.error || ("GET /ops/" + name + ": " + r.status);
    err.hidden = false;
    return;
  }
  err.hidden = true;
  const o = r.body;
  $("name-title").textContent = name + " (run " + o.run + ")";
  const vb = $("name-verdicts").tBodies[0];
  for (const v of o.verdicts || [])
    vb.appendChild(el("tr", { "data-verdict": v.verdict }, el("td", {}, v.key),
      el("td", {}, v.dtype), el("td", {}, v.device < 0 ? "cpu" : "gpu " + v.device),
      el("td", { class: "v-" + v.verdict }, v.verdict),
      el("td", { "data-severity": v.severity || null }, sevChip(v.severity),
        v.verdict === "broken" ? " " + [["critical", v.n_critical],
          ["loud", v.n_loud], ["numerics", v.n_numerics]].filter(x => x[1])
          .map(x => x[1] + " " + x[0]).join(", ") : null),
      el("td", {}, v.reason),
      el("td", {}, v.class), el("td", {}, v.passed + "/" + v.cases),
      el("td", {}, v.detail)));
  plotLadder(o.cases || []);
  plotFirstCalls(o.cases || []);

  /* the evidence case of each non-verified verdict first, then other failures */
  const evid = (o.verdicts || []).filter(v => v.verdict !== "verified" &&
    v.evidence_case).map(v => v.evidence_case);
  const failing = (o.cases || []).filter(c => FAILING.has(c.status)).map(c => c.id);
  const ids = [...new Set([...evid, ...failing])].slice(0, MAX_EVIDENCE);
  $("no-failures").hidden = ids.length > 0;
  const box = $("evidence");
  const cases = await Promise.all(ids.map(id => getJSON("/cases/" + id)));
  cases.forEach((c, i) => {
    if (c.ok) box.appendChild(evidenceBlock(c.body, i === 0));
  });
  if (failing.length > MAX_EVIDENCE)
    box.appendChild(el("p", { class: "muted" }, (failing.length - MAX_EVIDENCE) +
      " more failing cases: GET /cases/{id}"));

  const hb = $("history").tBodies[0];
  for (const h of o.history || [])
    hb.appendChild(el("tr", {}, el("td", {}, h.run_id), el("td", {}, h.key),
      el("td", {}, h.dtype), el("td", {}, h.device < 0 ? "cpu" : "gpu " + h.device),
      el("td", { class: "v-" + h.verdict }, h.verdict), el("td", {}, h.reason)));
}

/* ---- routing -------------------------------------------------------------- */

function route() {
  const m = location.hash.match(/^#\/name\/(.+)$/);
  state.route = m ? decodeURIComponent(m[1]) : "";
  $("home").hidden = !!m;
  $("name-page").hidden = !m;
  if (m) showName(state.route);
  else { document.title = "opscreen"; refreshHome(); }
}

buildFilters();
window.addEventListener("hashchange", route);
route();
refreshHeader();
setInterval(refreshHeader, 3000);
