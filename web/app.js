/*
 * opscreen dashboard: what is broken on this host and why, since when and in
 * which version, what each policy allows, what changed between two versions,
 * the verdict matrix (names x dtypes, per GPU), the regression timeline,
 * findings as they arrive during a first screen, live progress, and a page
 * per name (#/name/NAME). Plain DOM, data only through textContent;
 * everything comes from the daemon's JSON API.
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
/* the dtype-free bootstrap probe (import side effects, registration): not a column */
const BOOTSTRAP = "any";
/* one mark per verdict where a cell has no room for the word */
const MARK = { verified: "\u2713", broken: "\u2717", hazard: "\u26a0",
  inconclusive: "?", withheld: "\u2013" };
const SHORT = { bfloat16: "bf16", float16: "f16", float32: "f32", float64: "f64",
  int64: "i64", int32: "i32", int16: "i16", int8: "i8", uint8: "u8", bool: "b",
  float8_e4m3fn: "e4m3", float8_e5m2: "e5m2", float8_e8m0fnu: "e8m0",
  complex64: "c64" };

const state = { hidden: new Set(), hiddenSev: new Set(), search: "",
  lastComplete: undefined, route: "", gpu: "", policy: "strict",
  running: null, diffFrom: "", diffTo: "" };

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
  let r;
  try { r = await fetch(path, { cache: "no-store" }); }
  catch (e) { return { ok: false, status: 0, body: { error: "daemon unreachable" } }; }
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

function when(t) {
  return typeof t === "number" && t > 0 ? new Date(t * 1000).toISOString()
    .replace("T", " ").slice(0, 16) + " UTC" : "";
}

function duration(s) {
  if (!(s >= 0)) return "";
  if (s < 90) return Math.round(s) + " s";
  if (s < 5400) return Math.round(s / 60) + " min";
  return (s / 3600).toFixed(1) + " h";
}

function nameLink(name) {
  return el("a", { href: "#/name/" + encodeURIComponent(name) }, name);
}

function chip(verdict) {
  return el("span", { class: "chip v-" + verdict }, verdict);
}

/* A verdict's deployment modes (mode=compile, mode=cudagraph lists): the
   verdict in each mode screened, "not screened" otherwise. */
function modeText(v) {
  const part = (label, verdict, reason) => label + ": " + (verdict == null ?
    "not screened" : verdict + (verdict === "verified" ? "" : " (" + reason + ")"));
  return [part("compile", v.compile_verdict, v.compile_reason),
    part("cudagraph", v.cudagraph_verdict, v.cudagraph_reason)].join("; ");
}

function sevChip(sev) {
  return sev ? el("span", { class: "chip s-" + sev }, sev) : null;
}

function sevRank(s) {
  return s in SEV_RANK ? SEV_RANK[s] : (s ? Infinity : -1);
}

/* a screen's library and version: "flag_gems 5.0.2" */
function libOf(fps) {
  const f = (fps || []).find(x => x && x.library) || null;
  return f ? f.library + " " + (f.library_version || "?") : "";
}

/* the query suffix every view takes: the GPU picked, if any */
function gpuQ(sep) {
  return state.gpu === "" ? "" : sep + "gpu=" + encodeURIComponent(state.gpu);
}

function deviceName(d) {
  return d < 0 ? "cpu" : "gpu " + d;
}

/* ---- header: version, library, progress ---------------------------------- */

let HEALTH = null;

async function refreshHeader() {
  const h = await getJSON("/healthz");
  if (h.body && h.body.version) {
    HEALTH = h.body;
    $("version").textContent = "opscreend " + h.body.version;
    const fps = (h.body.devices || []).map(d => d.fingerprint).filter(Boolean);
    $("library").textContent = fps.length ? libOf(fps) + " on " +
      fps.map(f => f.gpu_name || f.device).join(", ") : "";
  }
  const runs = await getJSON("/runs?limit=20");
  if (!runs.ok) return;
  const list = runs.body.runs || [];
  const live = list.find(r => r.state === "running") ||
    list.find(r => r.state === "queued");
  const complete = list.find(r => r.state === "complete" && r.full);
  const bar = $("progress-bar"), text = $("progress-text");
  state.running = null;
  if (live) {
    const one = await getJSON("/runs/" + live.id);
    const r = one.ok ? one.body : live;
    state.running = r;
    const pct = typeof r.percent === "number" ? r.percent :
      (r.total ? 100 * r.done / r.total : 0);
    const p = r.progress || {};
    let t = "run " + r.id + " " + r.state + ": " + (r.done || 0) + "/" +
      (r.total || 0) + " cases (" + pct.toFixed(0) + "%)";
    if (p.rate > 0) t += ", " + p.rate.toFixed(1) + " cases/s";
    if (p.rate > 0 && p.eta_s >= 0) t += ", about " + duration(p.eta_s) + " left";
    /* its lost cases run again alone before it completes */
    const a = r.alone || {};
    if (a.reproduced + a.not_reproduced > 0)
      t += "; lost cases run again alone: " + a.reproduced + " lost again, " +
        a.not_reproduced + " gave a result";
    text.textContent = t;
    text.setAttribute("data-run", r.id);
    bar.value = pct;
    bar.hidden = false;
  } else {
    bar.hidden = true;
    text.removeAttribute("data-run");
    text.textContent = list.length ? "idle; last run " + list[0].id + " " +
      list[0].state : "no run yet";
    /* runner.shrink_after: its failing cases are being shrunk */
    const p = (HEALTH && HEALTH.last_run) || {};
    if (list.length && p.run === list[0].id && p.shrinking)
      text.textContent += "; shrinking its failing cases, " +
        p.shrinking.left + " of " + p.shrinking.of + " left";
  }
  /* a screen finished: everything on the home page moved with it */
  const last = complete ? complete.id : null;
  if (last !== state.lastComplete) {
    const first = state.lastComplete === undefined;	/* route() loaded it */
    state.lastComplete = last;
    if (!first && state.route === "") refreshHome();
  } else if (state.route === "" && !$("first-screen").hidden) {
    refreshFindings();	/* a first screen: its findings grow */
  }
}

/* ---- the banner: what is shown is not what is installed -------------------- */

const FP_FIELDS = ["library", "library_version", "library_hash", "torch", "triton"];

function fpDiffers(shown, now) {
  return FP_FIELDS.some(k => (shown[k] || "") !== (now[k] || ""));
}

/*
 * The screen shown belongs to another fingerprint than the library installed
 * now (an upgrade, a rebuild, another torch): say so, and what serves lists.
 */
function showBanner(ops, allow) {
  const b = $("banner");
  const now = new Map(((HEALTH && HEALTH.devices) || [])
    .filter(d => d.fingerprint).map(d => [d.device, d.fingerprint]));
  const moved = (ops.fingerprints || []).filter(f => now.has(f.device) &&
    fpDiffers(f, now.get(f.device)));
  if (!moved.length && !(allow.ok && allow.body.stale)) {
    b.hidden = true;
    b.removeAttribute("data-stale");
    return;
  }
  const cur = moved.length ? now.get(moved[0].device) :
    [...now.values()][0] || {};
  let t = "Shown: run " + ops.run + " of " + libOf(ops.fingerprints) +
    (ops.finished ? ", finished " + when(ops.finished) : "") +
    ". Installed now: " + (cur.library || "?") + " " +
    (cur.library_version || "?") + (cur.library_hash ? " (source " +
    cur.library_hash.slice(0, 12) + ")" : "") +
    ". The lists answer 503 until a screen of it completes";
  if (state.running)
    t += "; run " + state.running.id + " is " + state.running.state +
      (typeof state.running.percent === "number" ? " (" +
        state.running.percent.toFixed(0) + "%)" : "");
  b.textContent = t + ".";
  b.setAttribute("data-stale", "1");
  b.hidden = false;
}

/* ---- filters -------------------------------------------------------------- */

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

/* a control changed what is shown: load it, then mark the route rendered */
async function rerender(load) {
  $("main").removeAttribute("data-rendered");
  await load();
  $("main").setAttribute("data-rendered", state.route || "home");
}

function buildControls() {
  $("search").addEventListener("input", e => {
    state.search = e.target.value.trim().toLowerCase();
    applyFilters();
  });
  $("policy").addEventListener("change", e => {
    state.policy = e.target.value;
    rerender(refreshHome);
  });
  $("gpu").addEventListener("change", e => {
    state.gpu = e.target.value;
    rerender(refreshHome);
  });
  for (const id of ["diff-from", "diff-to"])
    $(id).addEventListener("change", () => {
      state.diffFrom = $("diff-from").value;
      state.diffTo = $("diff-to").value;
      rerender(refreshDiff);
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

/* ---- the GPU picker: one device's verdicts on a multi-GPU host ------------ */

function showGpuPicker(fps) {
  const devs = [...new Set((fps || []).map(f => f.device))].sort((a, b) => a - b);
  const pick = $("gpu");
  pick.replaceChildren(el("option", { value: "" }, "every GPU"),
    ...devs.map(d => el("option", { value: d < 0 ? "cpu" : String(d) },
      deviceName(d) + (((fps.find(f => f.device === d) || {}).gpu_name) ?
        " (" + fps.find(f => f.device === d).gpu_name + ")" : ""))));
  pick.value = state.gpu;
  /* one device: nothing to pick, unless a pick is in force */
  $("gpu-pick").hidden = devs.length < 2 && state.gpu === "";
}

/* ---- home ----------------------------------------------------------------- */

async function refreshHome() {
  const pol = "&policy=" + state.policy;
  const [ops, allow, deny, strict, tolerant] = await Promise.all([
    getJSON("/ops" + gpuQ("?")),
    getJSON("/allowlist?stale=ok" + pol + gpuQ("&")),
    getJSON("/denylist?stale=ok" + pol + gpuQ("&")),
    getJSON("/allowlist?stale=ok&policy=strict" + gpuQ("&")),
    getJSON("/allowlist?stale=ok&policy=tolerant" + gpuQ("&"))]);
  if (allow.ok) useVocabulary(allow.body.verdict_vocabulary);
  if (deny.ok) useSeverities(deny.body.severity_vocabulary);
  if (!ops.ok && ops.status === 404 && !/^no run/.test(ops.body.error || "")) {
    /* no complete screen: what the first one has found so far */
    $("screened").hidden = true;
    $("first-screen").hidden = false;
    $("banner").hidden = true;
    $("screen-of").textContent = "";
    await refreshFindings();
    return;
  }
  $("first-screen").hidden = true;
  $("screened").hidden = false;
  const err = $("matrix-error");
  if (!ops.ok) {
    err.textContent = ops.body.error || ("GET /ops: " + ops.status);
    err.hidden = false;
    return;
  }
  err.hidden = true;
  showGpuPicker(ops.body.fingerprints);
  $("screen-of").textContent = "run " + ops.body.run + " of " +
    libOf(ops.body.fingerprints) + (ops.body.finished ? ", finished " +
      when(ops.body.finished) : "");
  showBanner(ops.body, allow);
  const since = sinceIndex(ops.body.verdicts);
  showBroken(deny, since);
  showLists(strict, tolerant, deny);
  showMatrix(ops.body, allow);
  await Promise.all([refreshDiff(), refreshTimeline()]);
}

/* name -> the verdict rows of the name (for since, keys and dtypes) */
function sinceIndex(rows) {
  const m = new Map();
  for (const v of rows || []) {
    if (!m.has(v.name)) m.set(v.name, []);
    m.get(v.name).push(v);
  }
  return m;
}

function sinceText(v) {
  if (!v || !v.since_run) return "";
  return (v.since_version ? v.since_version + ", " : "") + "run " + v.since_run +
    (v.since_finished ? ", " + when(v.since_finished).slice(0, 10) : "");
}

/* ---- what is broken and why ------------------------------------------------ */

function showBroken(deny, since) {
  const body = $("broken").tBodies[0];
  body.replaceChildren();
  /* the deny-list also excludes the withheld (never verified in the scope):
     this table is what was measured broken */
  const names = ((deny.ok && deny.body.names) || []).filter(n =>
    n.verdict !== "withheld" && n.verdict !== "inconclusive");
  $("broken-count").textContent = deny.ok ? "(" + names.length + " names denied, " +
    (deny.body.withheld || 0) + " more withheld, policy " +
    (deny.body.policy || state.policy) + ")" :
    "(" + (deny.body.error || deny.status) + ")";
  $("broken-empty").hidden = !deny.ok || names.length > 0;
  for (const n of names) {
    const ev = (n.evidence || [])[0] || {};
    /* since when the evidence's key x dtype has held this verdict */
    const row = (since.get(n.name) || []).find(v => v.key === ev.key &&
      v.dtype === ev.dtype && (ev.device === undefined || v.device === ev.device));
    const more = (n.evidence || []).length > 1 ?
      " (+" + (n.evidence.length - 1) + " more)" : "";
    body.appendChild(el("tr", { "data-name": n.name,
      "data-severity": n.severity || "", "data-since-run": row ? row.since_run : "" },
      el("td", { class: "name" }, nameLink(n.name)),
      el("td", {}, n.severity ? sevChip(n.severity) : chip(n.verdict)),
      el("td", {}, n.reason || ""), el("td", { class: "wide" }, n.class || ""),
      el("td", { class: "wide" }, (ev.key || "") + " " + (ev.dtype || "") +
        (ev.device !== undefined && ev.device >= 0 ? " gpu " + ev.device : "") + more),
      el("td", { class: "since" }, sinceText(row)),
      el("td", { class: "detail" }, n.detail || "")));
  }
}

/* ---- which names each policy allows ---------------------------------------- */

function showLists(strict, tolerant, deny) {
  const box = $("lists");
  box.replaceChildren();
  if (!strict.ok) {
    box.appendChild(el("p", { class: "muted" }, "no list: " +
      (strict.body.error || strict.status)));
    return;
  }
  const s = strict.body.names || [], t = tolerant.ok ? tolerant.body.names || [] : [];
  const sset = new Set(s);
  const added = t.filter(n => !sset.has(n));
  const q = gpuQ("&");
  box.appendChild(el("p", { "data-policy": "strict", "data-count": s.length },
    el("strong", {}, "strict"), " (the default) allows " + s.length + " names: " +
    "every failure denies ", el("a", { href: "/allowlist?format=yaml" + q }, "yaml"),
    " ", el("a", { href: "/allowlist?format=text" + q }, "text"), " ",
    el("a", { href: "/allowlist?format=vllm-env" + q }, "vllm-env")));
  box.appendChild(el("p", { "data-policy": "tolerant", "data-count": t.length },
    el("strong", {}, "tolerant"), " allows " + t.length + " names: also those " +
    "whose failures are all numerics ", el("a", {
      href: "/allowlist?format=yaml&policy=tolerant" + q }, "yaml")));
  if (added.length)
    box.appendChild(el("p", { class: "names", "data-added": added.join(" ") },
      "tolerant adds: ", ...added.flatMap((n, i) => [i ? ", " : "", nameLink(n)])));
  if ((strict.body.withheld || []).length)
    box.appendChild(el("p", { class: "muted" }, strict.body.withheld.length +
      " names withheld under both (a key or dtype nothing measured)"));
  if (strict.body.stale)
    box.appendChild(el("p", { class: "muted" }, "these counts are of the screen " +
      "shown; the daemon serves no list until the installed library is screened"));
  void deny;
}

/* ---- the verdict matrix ----------------------------------------------------- */

function showMatrix(ops, allow) {
  $("matrix-run").textContent = "(run " + ops.run + ")";
  const cells = new Map();	/* name -> dtype -> verdict */
  const sevs = new Map();	/* name + " " + dtype -> worst broken severity */
  const boot = new Map();	/* name -> its bootstrap verdict, when not verified */
  const dtypes = new Set();
  for (const v of ops.verdicts || []) {
    if (!cells.has(v.name)) cells.set(v.name, new Map());
    if (v.dtype === BOOTSTRAP) {
      if (v.verdict !== "verified" && rank(v.verdict) > rank(boot.get(v.name)))
        boot.set(v.name, v.verdict);
      continue;
    }
    dtypes.add(v.dtype);
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
  const allowed = new Set((allow.ok && allow.body.names) || []);
  const cols = [...dtypes].sort();

  const head = $("matrix").tHead;
  head.replaceChildren(el("tr", {}, el("th", {}, "name"),
    el("th", { title: "allowed under policy " + state.policy },
      el("span", { class: "long" }, state.policy), el("span", { class: "short" }, "list")),
    ...cols.map(d => el("th", { "data-dtype": d, title: d },
      el("span", { class: "long" }, d), el("span", { class: "short" }, SHORT[d] || d)))));
  const body = $("matrix").tBodies[0];
  body.replaceChildren();
  const counts = {}, sevCounts = {};
  for (const name of [...cells.keys()].sort()) {
    const row = cells.get(name);
    const tr = el("tr", { "data-name": name });
    const b = boot.get(name);
    tr.appendChild(el("td", { class: "name", title: name }, nameLink(name),
      b ? el("span", { class: "chip boot v-" + b, title: "bootstrap probe " +
        "(import side effects, registration): " + b }, "bootstrap " + b) : null));
    tr.appendChild(el("td", { class: "list", "data-allowed": allowed.has(name) ? "1" : "0",
      title: name + (allowed.has(name) ? " is" : " is not") + " on the " +
      state.policy + " allow-list" }, allowed.has(name) ? "\u2713" : ""));
    const seen = new Set();
    let worst, worstSev;
    if (b) { seen.add(b); worst = b; }
    for (const d of cols) {
      let v = row.get(d);
      if (withheld.has(name) && (v === undefined || rank(v) < rank("withheld")))
        v = "withheld";
      if (v === undefined) {
        tr.appendChild(el("td", { class: "cell v-none", title: name + " " + d +
          ": not screened" }, "\u2013"));
        continue;
      }
      const sev = v === "broken" ? sevs.get(name + " " + d) || "critical" : null;
      seen.add(sev ? v + ":" + sev : v);
      if (worst === undefined || rank(v) > rank(worst)) worst = v;
      if (sev && (worstSev === undefined || sevRank(sev) > sevRank(worstSev)))
        worstSev = sev;
      const td = el("td", { class: "cell v-" + v, "data-dtype": d,
        "data-verdict": v, "data-severity": sev, title: name + " " + d + ": " + v +
        (sev ? " (" + sev + ")" : "") +
        (v === "withheld" && withheld.get(name) ? " (" + withheld.get(name) + ")" : "") },
        el("span", { class: "long" }, v),
        el("span", { class: "short" }, MARK[v] || v.slice(0, 1)));
      if (sev) td.appendChild(el("span", { class: "sev s-" + sev }, sev));
      tr.appendChild(td);
    }
    /* each name counts once, by its worst cell */
    if (worst !== undefined) {
      counts[worst] = (counts[worst] || 0) + 1;
      if (worst === "broken") sevCounts[worstSev || "critical"] =
        (sevCounts[worstSev || "critical"] || 0) + 1;
    }
    tr.setAttribute("data-worst", worst || "");
    tr.setAttribute("data-verdicts", [...seen].join(" "));
    body.appendChild(tr);
  }
  const parts = VERDICTS.concat(Object.keys(counts).filter(v => !VERDICTS.includes(v)))
    .filter(v => counts[v]).map(v => counts[v] + " " + v + (v === "broken" ?
      " (" + SEVERITIES.slice().reverse().concat(Object.keys(sevCounts)
        .filter(s => !SEVERITIES.includes(s))).filter(s => sevCounts[s])
        .map(s => sevCounts[s] + " " + s).join(", ") + ")" : ""));
  $("summary").textContent = cells.size + " names, each counted by its worst " +
    "verdict: " + parts.join(", ");
  $("summary").setAttribute("data-names", cells.size);
  $("summary").setAttribute("data-counts", JSON.stringify(counts));
  applyFilters();
}

/* ---- what changed between two versions -------------------------------------- */

async function refreshDiff() {
  const q = [];
  if (state.diffFrom) q.push("from=" + state.diffFrom);
  if (state.diffTo) q.push("to=" + state.diffTo);
  if (state.gpu !== "") q.push("gpu=" + state.gpu);
  const [d, runs] = await Promise.all([
    getJSON("/diff" + (q.length ? "?" + q.join("&") : "")),
    getJSON("/runs?limit=200")]);
  const body = $("diff").tBodies[0];
  body.replaceChildren();
  const note = $("diff-note");
  /* the pickers: every complete full screen, labelled with its version */
  const full = ((runs.ok && runs.body.runs) || []).filter(r => r.state === "complete" && r.full);
  for (const [id, side] of [["diff-from", "from"], ["diff-to", "to"]]) {
    const sel = $(id);
    sel.replaceChildren(...full.map(r => el("option", { value: String(r.id) },
      "run " + r.id + (r.library_version ? " \u00b7 " + r.library_version : "") +
      (r.finished ? " \u00b7 " + when(r.finished).slice(0, 10) : ""))));
    if (d.ok) sel.value = String(d.body[side].run);
  }
  $("diff").hidden = !d.ok;
  if (!d.ok) {
    note.textContent = d.body.error || ("GET /diff: " + d.status);
    return;
  }
  const c = d.body.counts || {};
  const moved = Object.keys(c).filter(k => k !== "same" && c[k])
    .map(k => c[k] + " " + k).join(", ");
  note.textContent = "run " + d.body.from.run + " (" + libOf(d.body.from.fingerprints) +
    ") \u2192 run " + d.body.to.run + " (" + libOf(d.body.to.fingerprints) + "): " +
    (moved || "nothing moved") + "; " + (c.same || 0) + " key x dtypes the same";
  const side = s => s ? el("span", {}, chip(s.verdict), s.severity && s.verdict ===
    "broken" ? " " : null, s.verdict === "broken" ? sevChip(s.severity) : null,
  s.reason && s.verdict !== "verified" ? el("span", { class: "muted" }, " " +
    s.reason) : null) : el("span",
    { class: "muted" }, "\u2013");
  for (const x of d.body.changes || [])
    body.appendChild(el("tr", { "data-change": x.change, "data-name": x.name,
      "data-key": x.key, "data-dtype": x.dtype },
      el("td", { class: "k-" + x.change }, x.change), el("td", {}, nameLink(x.name)),
      el("td", { class: "wide" }, x.key), el("td", {}, x.dtype),
      el("td", { class: "wide" }, deviceName(x.device)),
      el("td", {}, side(x.from)), el("td", {}, side(x.to))));
}

/* ---- a first screen: findings as they arrive --------------------------------- */

async function refreshFindings() {
  const f = await getJSON("/findings" + gpuQ("?"));
  const body = $("findings").tBodies[0];
  const note = $("first-note");
  body.replaceChildren();
  if (!f.ok) {
    note.textContent = (f.body.error || ("GET /findings: " + f.status)) +
      ". The lists answer 503 until a screen completes.";
    $("findings-empty").hidden = true;
    return;
  }
  const r = f.body;
  note.textContent = "Run " + r.run + " of " + libOf(r.fingerprints) + " is " +
    r.state + ": " + (r.done || 0) + " of " + (r.total || 0) + " cases done. " +
    "What it has found so far is below, the most severe first; the lists " +
    "answer 503 until a screen completes, and the verdicts at its end decide them.";
  note.setAttribute("data-run", r.run);
  $("findings-empty").hidden = (r.findings || []).length > 0;
  for (const x of r.findings || [])
    body.appendChild(el("tr", { "data-name": x.name, "data-key": x.key,
      "data-dtype": x.dtype, "data-severity": x.severity },
      el("td", { class: "name" }, nameLink(x.name)),
      el("td", {}, x.severity ? sevChip(x.severity) : chip(x.status)),
      el("td", { class: "wide" }, x.key), el("td", {}, x.dtype),
      el("td", {}, x.failing), el("td", {}, x.reason),
      el("td", { class: "wide" }, x.class),
      el("td", { class: "detail" }, x.detail)));
}

/* ---- timeline ------------------------------------------------------------- */

async function refreshTimeline() {
  const r = await getJSON("/regressions?limit=1000");
  const ol = $("timeline");
  if (!r.ok) return;
  const events = (r.body.events || []).slice().reverse();	/* newest first */
  ol.replaceChildren();
  $("timeline-empty").hidden = events.length > 0;
  /* a release's changed keys (source digests) are one line per run */
  const changed = new Map();
  for (const e of events)
    if (e.kind === "changed") {
      if (!changed.has(e.run)) changed.set(e.run, []);
      changed.get(e.run).push(e.key);
    }
  let run = null;
  for (const e of events) {
    if (state.gpu !== "" && e.device !== null && e.device !== undefined &&
        String(e.device < 0 ? "cpu" : e.device) !== state.gpu)
      continue;
    if (e.run !== run) {
      run = e.run;
      ol.appendChild(el("li", { class: "run" }, "run " + e.run + " vs run " +
        e.previous_run + " ", el("span", { class: "muted" }, when(e.created))));
      const keys = (changed.get(run) || []).sort();
      if (keys.length)
        ol.appendChild(el("li", { class: "event", "data-kind": "changed",
          "data-keys": keys.join(" ") },
          el("span", { class: "kind k-changed" }, "changed"), " code of " +
          keys.length + (keys.length === 1 ? " key: " : " keys: ") +
          keys.slice(0, 24).join(", ") + (keys.length > 24 ? ", \u2026" : "")));
    }
    if (e.kind === "changed") continue;
    const dev = e.device >= 0 ? " gpu " + e.device : "";
    const li = el("li", { class: "event", "data-kind": e.kind,
      "data-name": e.name, "data-dtype": e.dtype, "data-from": e.from || "",
      "data-to": e.to || "" },
      el("span", { class: "kind k-" + e.kind }, e.kind), " ",
      nameLink(e.name), " " + (e.dtype || "") + dev + " ",
      e.from ? chip(e.from) : null, e.from && e.to ? " \u2192 " : null,
      e.to ? chip(e.to) : null,
      e.detail ? el("span", { class: "muted" }, " " + e.detail) : null);
    ol.appendChild(li);
  }
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
    /* inputs too large to embed: a file to save beside the script */
    const inputs = c.repro_inputs ? el("a", { href: c.repro_inputs, download: "",
      "data-inputs": c.repro_inputs }, "its inputs file (save beside it)") : null;
    d.appendChild(el("div", { class: "repro-bar" }, el("strong", {}, "repro"), btn,
      inputs, note));
    d.appendChild(el("pre", { class: "repro" }, c.repro));
  }
  return d;
}

async function showName(name) {
  $("name-title").textContent = name;
  document.title = "opscreen: " + name;
  const err = $("name-error"), note = $("name-note");
  for (const id of ["name-verdicts", "history"])
    $(id).tBodies[0].replaceChildren();
  $("evidence").replaceChildren();
  $("plot").replaceChildren();
  $("ladder").replaceChildren();
  note.hidden = true;
  let r = await getJSON("/ops/" + encodeURIComponent(name));
  if (!r.ok && r.status === 404 && /no complete run/.test(r.body.error || "")) {
    /* a first screen: the run's cases so far, no verdict yet */
    const f = await getJSON("/findings");
    if (f.ok) {
      r = await getJSON("/ops/" + encodeURIComponent(name) + "?run=" + f.body.run);
      note.textContent = "No complete screen yet: the cases run " + f.body.run +
        " (" + f.body.state + ") has judged so far; verdicts come at its end.";
      note.hidden = false;
    }
  }
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
      el("td", {}, v.dtype === BOOTSTRAP ? "bootstrap (any dtype)" : v.dtype),
      el("td", {}, deviceName(v.device)),
      el("td", { class: "v-" + v.verdict }, v.verdict),
      el("td", { "data-severity": v.severity || null }, sevChip(v.severity),
        v.verdict === "broken" ? " " + [["critical", v.n_critical],
          ["loud", v.n_loud], ["numerics", v.n_numerics]].filter(x => x[1])
          .map(x => x[1] + " " + x[0]).join(", ") : null),
      el("td", { class: "since", "data-carried-from": v.carried_from || null },
        sinceText(v), v.carried_from ? el("span", { class: "muted" },
          " (carried from run " + v.carried_from + ": source unchanged)") : null),
      el("td", {}, v.reason),
      el("td", {}, v.class), el("td", {}, v.passed + "/" + v.cases),
      el("td", { class: "modes" }, modeText(v)),
      el("td", { class: "detail" }, v.detail)));
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
    hb.appendChild(el("tr", {}, el("td", {}, h.run), el("td", {}, h.library_version || ""),
      el("td", {}, h.key), el("td", {}, h.dtype), el("td", {}, deviceName(h.device)),
      el("td", { class: "v-" + h.verdict }, h.verdict), el("td", {}, h.reason)));
}

/* ---- routing -------------------------------------------------------------- */

/*
 * main's data-rendered names the route whose data is on screen (a test, or a
 * screenshot, waits for it); it is cleared while a route loads.
 */
function route() {
  const m = location.hash.match(/^#\/name\/(.+)$/);
  state.route = m ? decodeURIComponent(m[1]) : "";
  $("home").hidden = !!m;
  $("name-page").hidden = !m;
  return rerender(async () => {
    await refreshHeader();
    if (m) await showName(state.route);
    else { document.title = "opscreen"; await refreshHome(); }
  });
}

buildControls();
window.addEventListener("hashchange", route);
route();
setInterval(refreshHeader, 3000);
