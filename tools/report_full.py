#!/usr/bin/env python3
"""report_full.py: an issue-3 screen report in Markdown from an opscreen
database alone (restricted runs serve no lists, so the roll-up to names is
recomputed here from the verdicts the daemon stored, by the daemon's rule:
broken if any key is broken, else hazard, else inconclusive, else verified).

    python3 tools/report_full.py DB [--run N] [--title T] [--command CMD]

Per-phase time is summed over cases in runner-seconds (the runners work in
parallel): compile = first call minus steady call of the candidate, run =
steady call, native, oracle (torch fp64), oracle cross-check (kernels/),
compare; store is the daemon's own time writing results. Standard library only.
"""
import argparse
import json
import sqlite3
from collections import Counter, defaultdict

# The daemon's verdict vocabulary in rank order (worse later): the mirror of
# enum verdict in daemon/verdict.c, which the daemon serves as
# "verdict_vocabulary" in its /allowlist and /denylist JSON. The report reads a
# database, where the order is not stored; tests/e2e/test_screen.py
# (test_verdict_vocabulary_is_the_daemons) fails when the two differ.
VERDICTS = ("verified", "withheld", "inconclusive", "hazard", "broken")
RANK = {v: i for i, v in enumerate(VERDICTS)}


def q(db, sql, *args):
    return db.execute(sql, args).fetchall()


def shrinks(db, run):
    """(failing cases shrunk, their shrinks' runner-ms) of a run; None on a
    database from before schema 3, which did not time shrinks."""
    if "shrink_ms" not in {r[1] for r in q(db, "PRAGMA table_info(results)")}:
        return None
    return q(db, "SELECT count(*), coalesce(sum(r.shrink_ms), 0) FROM results r "
                 "JOIN cases c ON c.id=r.case_id WHERE c.run_id=? AND "
                 "r.shrink_runs > 0", run)[0]


def phases(db, run):
    tot = Counter()
    rows = q(db, "SELECT r.figures, r.cand_first_ms, r.cand_steady_ms, c.class FROM "
                 "results r JOIN cases c ON c.id=r.case_id WHERE c.run_id=?", run)
    for figs, first, steady, cls in rows:
        t = (json.loads(figs) if figs else {}).get("times", {})
        if first is not None:
            if cls == "compile":
                tot["compile ladder (cold first calls)"] += first
            elif steady is not None:
                tot["compile (first minus steady call)"] += max(first - steady, 0)
                tot["run (candidate steady call)"] += steady
            else:
                tot["candidate first call >= 0.5 s (compile-bound, no steady call)"] += first
        if isinstance(t.get("compare_ms"), (int, float)):
            # the runner's compare_ms spans the oracle cross-check too
            t["compare_ms"] -= t.get("oracle_check_ms", 0)
        named = 0.0
        for k, name in (("native_ms", "native"), ("oracle_ms", "oracle (torch fp64)"),
                        ("oracle_check_ms", "oracle cross-check (kernels/)"),
                        ("compare_ms", "compare"),
                        ("build_ms", "inputs (build on the device)"),
                        ("enable_ms", "enable/disable the candidate (use_gems)"),
                        ("guard_ms", "guarded calls (inputs beside poison)"),
                        ("render_ms", "repro rendering")):
            if isinstance(t.get(k), (int, float)):
                tot[name] += t[k]
                named += t[k]
        if isinstance(t.get("case_ms"), (int, float)):
            # what the case took in the runner beyond the phases above: the
            # candidate's steady calls past the median one, input copies, syncs
            rest = t["case_ms"] + t.get("render_ms", 0) - named - (first or 0)
            tot["runner other (steady loop, copies, syncs)"] += max(rest, 0)
    # shrinks: their wall time in the runner, apart from cases
    n, ms = shrinks(db, run) or (0, 0)
    if n:
        tot[f"shrinks ({n} failing cases, all their variants)"] += ms
    return {k: v / 1e3 for k, v in tot.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--run", type=int)
    ap.add_argument("--title", default="Screen report")
    ap.add_argument("--command", default="")
    a = ap.parse_args()
    db = sqlite3.connect(a.db)
    run = a.run or q(db, "SELECT max(id) FROM runs WHERE state='complete'")[0][0]
    out = []
    w = out.append
    w(f"# {a.title}\n")
    if a.command:
        w("```sh\n" + a.command + "\n```\n")
    (req,) = q(db, "SELECT request FROM runs WHERE id=?", run)[0]
    w(f"Run {run}, request `{req}`.\n")
    for dev, js in q(db, "SELECT d.device, f.json FROM run_devices d JOIN fingerprints f "
                         "ON f.id=d.fingerprint_id WHERE d.run_id=?", run):
        fp = json.loads(js)
        w(f"Device {dev}: {fp.get('gpu_name')} ({fp.get('gpu_uuid')}), driver "
          f"{fp.get('driver')}; {fp.get('library')} {fp.get('library_version')}, torch "
          f"{fp.get('torch')}, triton {fp.get('triton')}, CUDA {fp.get('cuda')}, "
          f"python {fp.get('python')}.\n")
    ev = q(db, "SELECT json FROM events WHERE run_id=? AND kind='run_complete'", run)
    ev = json.loads(ev[0][0]) if ev else {}
    ncases = q(db, "SELECT count(*) FROM cases WHERE run_id=?", run)[0][0]
    nkeys = q(db, "SELECT count(DISTINCT key) FROM cases WHERE run_id=?", run)[0][0]
    w(f"**{ncases} cases of {nkeys} aten keys in {ev.get('wall_s', 0):.0f} s** (run start "
      "to verdicts stored).\n")
    w("## Where the time went (runner-seconds, summed over cases)\n")
    ph = phases(db, run)
    ph["store (daemon)"] = ev.get("store_s", 0.0)
    total = sum(ph.values()) or 1
    w("| phase | seconds | share |\n|---|---|---|")
    for k, v in sorted(ph.items(), key=lambda kv: -kv[1]):
        w(f"| {k} | {v:.1f} | {100 * v / total:.0f}% |")
    w("")
    w("## Case statuses per class\n")
    by = defaultdict(Counter)
    for cls, st, n in q(db, "SELECT c.class, r.status, count(*) FROM cases c JOIN "
                            "results r ON r.case_id=c.id WHERE c.run_id=? GROUP BY 1, 2",
                        run):
        by[cls][st] = n
    sts = sorted({s for c in by.values() for s in c})
    w("| class | " + " | ".join(sts) + " |\n|---|" + "---|" * len(sts))
    for cls in sorted(by):
        w(f"| {cls} | " + " | ".join(str(by[cls].get(s, 0)) for s in sts) + " |")
    w("")
    vs = q(db, "SELECT key, name, dtype, verdict, reason, class, detail, evidence_case "
               "FROM verdicts WHERE run_id=? ORDER BY name, key, dtype", run)
    w("## Verdicts per key and dtype\n")
    w("| verdict | reason | key x dtype |\n|---|---|---|")
    for (v, r), n in sorted(Counter((x[3], x[4]) for x in vs).items(),
                            key=lambda kv: (-RANK[kv[0][0]], -kv[1])):
        w(f"| {v} | {r} | {n} |")
    w("")
    keys = defaultdict(list)
    for row in vs:
        keys[row[0]].append(row[3])
    kstate = Counter(max(v, key=lambda x: RANK[x]) for v in keys.values())
    nkd = Counter(x[3] for x in vs)
    w("## Entries (aten keys of the registration table)\n")
    w("An entry's verdict is its worst over its dtypes (" +
      " > ".join(v for v in reversed(VERDICTS) if v != "withheld") + ").\n")
    w("| verdict | entries | share | key x dtype | share |\n|---|---|---|---|---|")
    for v in ("verified", "broken", "hazard", "inconclusive"):
        w(f"| {v} | {kstate.get(v, 0)} | {100 * kstate.get(v, 0) / max(len(keys), 1):.1f}% "
          f"| {nkd.get(v, 0)} | {100 * nkd.get(v, 0) / max(len(vs), 1):.1f}% |")
    w(f"| all | {len(keys)} | | {len(vs)} | |")
    w("")
    names = defaultdict(list)
    for row in vs:
        names[row[1]].append(row)
    state = {n: max((r[3] for r in rows), key=lambda v: RANK[v])
             for n, rows in names.items()}
    w("## Names (the library's enable names)\n")
    c = Counter(state.values())
    w(", ".join(f"{k}: **{c.get(k, 0)}**" for k in ("verified", "broken", "hazard",
                                                     "inconclusive")) + "\n")
    w("## Deny-list with evidence\n")
    w("One line per denied name: its worst (key, dtype) by the daemon's rule; "
      "`case` is the stored case (GET /cases/N).\n")
    w("| name | verdict | key | dtype | reason | class | evidence | case |\n"
      "|---|---|---|---|---|---|---|---|")
    for n in sorted(names):
        if state[n] not in ("broken", "hazard"):
            continue
        rows = [r for r in names[n] if r[3] == state[n]]
        k, _, dt, v, r, cls, det, case = rows[0]
        det = det.replace("|", "\\|").replace("\n", " ")[:160]
        w(f"| {n} | {v} | {k} | {dt} | {r} | {cls} | {det} | {case} |")
    w("")
    w("## Hazards\n")
    hz = [r for r in vs if r[3] == "hazard"]
    hz_cases = q(db, "SELECT c.key, c.dtype, json_extract(c.spec, '$.ladder.param'), "
                     "json_extract(c.spec, '$.ladder.value'), r.status, r.cand_first_ms "
                     "FROM cases c JOIN results r ON r.case_id=c.id WHERE c.run_id=? AND "
                     "c.class='compile' ORDER BY c.key, c.dtype, 4", run)
    if hz:
        w("| key | dtype | reason | detail |\n|---|---|---|---|")
        for k, _, dt, v, r, cls, det, case in hz:
            w(f"| {k} | {dt} | {r} | {det[:160]} |")
        w("")
    if hz_cases:
        w("Compile ladders (cold-cache first call of each step, own runner):\n")
        w("| key | dtype | parameter | value | status | first call s |\n"
          "|---|---|---|---|---|---|")
        for k, dt, p, val, st, ms in hz_cases:
            w(f"| {k} | {dt} | {p} | {val} | {st} | "
              f"{'' if ms is None else f'{ms / 1e3:.1f}'} |")
        w("")
    w("## Inconclusive (with reasons)\n")
    inc = [r for r in vs if r[3] == "inconclusive"]
    if not inc:
        w("None.\n")
    else:
        w("| key | dtype | reason | detail |\n|---|---|---|---|")
        for k, _, dt, v, r, cls, det, case in inc:
            w(f"| {k} | {dt} | {r} | {det[:160]} |")
        w("")
    chk = q(db, "SELECT count(*), sum(json_extract(r.figures, '$.oracle_check.ok') = 0) "
                "FROM results r JOIN cases c ON c.id=r.case_id WHERE c.run_id=? AND "
                "json_extract(r.figures, '$.oracle_check') IS NOT NULL", run)[0]
    w("## Oracle cross-check\n")
    w(f"{chk[0]} cases had both fp64 oracles (kernels/ and torch); "
      f"{chk[1] or 0} disagreed beyond fp64 rounding (oracle_fault).\n")
    changes = q(db, "SELECT kind, json FROM events WHERE run_id=? AND kind IN "
                    "('regression', 'fix', 'new', 'vanished') ORDER BY id", run)
    if changes:
        w("## Changes from the previous complete screen of this host\n")
        w("| change | name | dtype | from | to | detail |\n|---|---|---|---|---|---|")
        for kind, js in changes:
            e = json.loads(js)
            w(f"| {kind} | {e.get('name', '')} | {e.get('dtype', '')} | "
              f"{e.get('from', '')} | {e.get('to', '')} | "
              f"{str(e.get('detail', '')).replace('|', '/')[:120]} |")
        w("")
    lib = q(db, "SELECT json FROM events WHERE run_id=? AND kind='bootstrap_hazard'", run)
    w("## Library-wide bootstrap\n")
    w("Importing the library initialised CUDA: " + ("**yes** " + lib[0][0] if lib else
                                                     "no") + ".\n")
    print("\n".join(out))


if __name__ == "__main__":
    main()
