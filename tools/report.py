#!/usr/bin/env python3
"""report.py: a screen report in Markdown from an opscreen database and the
lists the daemon served (bench/gpu_screen.sh leaves both in its output folder).

    python3 tools/report.py DIR [--command CMD] > docs/results/NAME.md

DIR holds opscreen.db, allowlist.json, denylist.json and optionally
checks.txt (repros run by hand) and nvidia-smi.txt. Standard library only.
"""
import argparse
import json
import os
import sqlite3
import statistics


def q(db, sql, *args):
    return db.execute(sql, args).fetchall()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--command", default="sh bench/gpu_screen.sh")
    ap.add_argument("--title", default="Screen report")
    ap.add_argument("--run", type=int)
    a = ap.parse_args()
    db = sqlite3.connect(os.path.join(a.dir, "opscreen.db"))
    db.row_factory = sqlite3.Row
    run = a.run or q(db, "SELECT max(id) FROM runs WHERE state='complete'")[0][0]
    r = q(db, "SELECT * FROM runs WHERE id=?", run)[0]
    fps = q(db, "SELECT d.device, f.json FROM run_devices d JOIN fingerprints f "
                "ON f.id=d.fingerprint_id WHERE d.run_id=?", run)
    allow = json.load(open(os.path.join(a.dir, "allowlist.json")))
    deny = json.load(open(os.path.join(a.dir, "denylist.json")))
    out = []
    w = out.append
    w(f"# {a.title}\n")
    w("Produced by opscreen (this repository) on the machine and versions below.\n")
    w("## How it was made\n")
    w("```sh\n" + a.command + "\n```\n")
    w("The report itself: `python3 tools/report.py <output folder>` on the database "
      "and lists that command left behind.\n")
    w("## Fingerprint\n")
    for dev, js in fps:
        fp = json.loads(js)
        w(f"Device {dev}:\n")
        w("| field | value |\n|---|---|")
        for k in sorted(fp):
            w(f"| {k} | `{fp[k]}` |")
        w("")
    smi = os.path.join(a.dir, "nvidia-smi.txt")
    if os.path.exists(smi):
        w("nvidia-smi:\n\n```\n" + open(smi).read().strip() + "\n```\n")
    w("## The screen\n")
    wall = (r["finished"] or 0) - (r["started"] or 0)
    w(f"Run {run}: state `{r['state']}`, {r['total']} cases, wall time of the whole "
      f"screen **{wall:.1f} s** (from the run's start to its verdicts being stored; "
      "runner start-up and library import included).\n")
    w("| case status | cases |\n|---|---|")
    for s, n in q(db, "SELECT r.status, count(*) FROM cases c JOIN results r ON "
                      "r.case_id=c.id WHERE c.run_id=? GROUP BY 1 ORDER BY 2 DESC", run):
        w(f"| {s} | {n} |")
    w("")
    w("| key x dtype verdict | count |\n|---|---|")
    for s, n in q(db, "SELECT verdict, count(*) FROM verdicts WHERE run_id=? "
                      "GROUP BY 1 ORDER BY 2 DESC", run):
        w(f"| {s} | {n} |")
    w("")
    screened = q(db, "SELECT count(DISTINCT key) FROM entries WHERE run_id=? AND "
                     "screened=1", run)[0][0]
    total_keys = q(db, "SELECT count(*) FROM entries WHERE run_id=?", run)[0][0]
    w(f"The library registers {total_keys} aten keys; {screened} of them have probes "
      "in this version of the catalog. Names that serve a key without probes are "
      "withheld from the allow-list (never allowed unverified) and are not "
      "listed as broken.\n")

    w(f"## Allow-list ({len(allow['names'])} names)\n")
    w("`GET /allowlist?format=yaml`, loaded by `flag_gems.only_enable(include=...)`:\n")
    w("```\n" + " ".join(allow["names"]) + "\n```\n")

    w(f"## Deny-list ({len(deny['names'])} names)\n")
    w("Each name with the worst case's reason, probe class and evidence figures; "
      "then every failing key x dtype with its own worst case. The repro of every "
      "failing case is stored (`GET /cases/{id}`).\n")
    for e in deny["names"]:
        w(f"### `{e['name']}`: {e['verdict']}, {e['reason']} ({e['class']})\n")
        w(f"{e['detail']}\n")
        w("| key | dtype | class | reason | evidence | case |\n|---|---|---|---|---|---|")
        for ev in e["evidence"]:
            det = ev["detail"].replace("|", "\\|").replace("\n", " ")[:220]
            w(f"| {ev['key']} | {ev['dtype']} | {ev['class']} | {ev['reason']} | "
              f"{det} | {ev.get('case', '')} |")
        w("")

    native_bad = q(db, "SELECT c.key, c.dtype, count(*) FROM cases c JOIN results r "
                       "ON r.case_id=c.id WHERE c.run_id=? AND r.native_inaccurate=1 "
                       "GROUP BY 1,2", run)
    if native_bad:
        w("## Findings about PyTorch (native_inaccurate)\n")
        w("Cases where native's own error exceeded 8 R (the design's threshold):\n")
        w("| key | dtype | cases |\n|---|---|---|")
        for k, d, n in native_bad:
            w(f"| {k} | {d} | {n} |")
        w("")

    w("## Times per key and dtype\n")
    w("First call: the slowest first candidate call over the key's cases (the JIT "
      "compile lands there); steady: median over cases of the median of three "
      "further calls. Milliseconds, wall clock in the runner with a device "
      "synchronisation after each call.\n")
    w("| key | dtype | verdict | cases | first call ms | steady ms |\n|---|---|---|---|---|---|")
    for row in q(db, "SELECT key, dtype, verdict, cases, first_call_ms, steady_ms "
                     "FROM verdicts WHERE run_id=? ORDER BY key, dtype", run):
        fc = f"{row[4]:.1f}" if row[4] is not None else "-"
        st = f"{row[5]:.3f}" if row[5] is not None else "-"
        w(f"| {row[0]} | {row[1]} | {row[2]} | {row[3]} | {fc} | {st} |")
    w("")
    firsts = [x[0] for x in q(db, "SELECT r.cand_first_ms FROM cases c JOIN results "
                                  "r ON r.case_id=c.id WHERE c.run_id=? AND "
                                  "r.cand_first_ms IS NOT NULL", run)]
    if firsts:
        w(f"Over all {len(firsts)} judged cases: first call median "
          f"{statistics.median(firsts):.2f} ms, max {max(firsts):.1f} ms, sum "
          f"{sum(firsts) / 1000:.1f} s.\n")

    checks = os.path.join(a.dir, "checks.txt")
    if os.path.exists(checks):
        w("## Repros run by hand, and the lists fed back to the library\n")
        w("Output of the two repro scripts (the stored repros of the two worst "
          "failing keys) run with the machine's python3, then a check that "
          "`flag_gems.only_enable(include=allowlist.yaml)` registers exactly the "
          "allow-list:\n")
        w("```\n" + open(checks).read().strip() + "\n```\n")
    print("\n".join(out))


if __name__ == "__main__":
    main()
