#!/usr/bin/env python3
"""screen_replay.py: what a screen's cases alone would take on N runners.

    python3 bench/screen_replay.py DB [--run N] [--runners 20] [--key-budget 300]
                                   [--skipped-in M [--skipped-db DB2]]

Takes the run's cases that stored figures (skipped ones, timeouts and
crashes have none) with their durations (`times.case_ms`), starts them in the order they started in the
recorded screen (start = stored end - case_ms) on N runners that are free
from the screen's first case on, each case on the runner free first, and
prints when the last one would end (seconds from run start). Shrinks, runner
start-up and restarts are not in it: it estimates a screen whose shrinks are
all reused (one library, one shrink) with the same case durations; the
longest single case is a floor no number of runners removes.

With --key-budget it also counts the cases that the rule "a key waits for
its cases in flight" (docs/design.md) would have held at their recorded
start: another case of the key was running then, and the key's first calls
of the cases ended before plus the time its running cases had taken so far
were over the budget (compile-ladder steps are not charged). Standard
library only.

With --skipped-in M it leaves out the cases whose key and spec run M of the
same database recorded skipped (after a hang or crash of their key and
dtype, or cut): what the rule "one library, one coverage" (skip_replay,
key_budget replay) would not run in a re-screen of the library run M
screened (run M of DB2 with --skipped-db, e.g. the slimmed cold database
beside the warm one).
"""
import argparse
import heapq
import json
import sqlite3
from collections import defaultdict


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--run", type=int)
    ap.add_argument("--runners", type=int, default=20)
    ap.add_argument("--key-budget", type=float)
    ap.add_argument("--skipped-in", type=int)
    ap.add_argument("--skipped-db")
    a = ap.parse_args()
    db = sqlite3.connect(a.db)
    run = a.run or db.execute("SELECT max(id) FROM runs WHERE state='complete'").fetchone()[0]
    s0, fin = db.execute("SELECT started, finished FROM runs WHERE id=?", (run,)).fetchone()
    skipped = set()
    if a.skipped_in is not None:
        sdb = sqlite3.connect(a.skipped_db) if a.skipped_db else db
        skipped = set(sdb.execute(
            "SELECT c.key, c.spec FROM cases c JOIN results r ON r.case_id = "
            "c.id WHERE c.run_id = ? AND r.status = 'skipped'", (a.skipped_in,)))
    jobs = []
    for key, spec, cls, end, first, fig in db.execute(
            "SELECT c.key, c.spec, c.class, r.created, r.cand_first_ms, r.figures FROM "
            "cases c JOIN results r ON r.case_id = c.id WHERE c.run_id = ? AND "
            "r.status != 'skipped' AND r.figures IS NOT NULL", (run,)):
        ms = (json.loads(fig).get("times") or {}).get("case_ms")
        if (key, spec) in skipped:
            continue
        if ms is not None:
            jobs.append((end - ms / 1e3 - s0, ms / 1e3, key, cls,
                         (first or 0) / 1e3))
    jobs.sort()
    first = jobs[0][0]
    free = [first] * a.runners
    for j in jobs:
        heapq.heappush(free, heapq.heappop(free) + j[1])
    longest = max(jobs, key=lambda j: j[1])
    print(f"run {run}: {len(jobs)} cases, {sum(j[1] for j in jobs):.0f} runner-s; "
          f"first case started at {first:.1f} s; the recorded run took "
          f"{fin - s0:.0f} s")
    print(f"replayed on {a.runners} runners in the recorded order, without "
          f"shrinks: the last case ends at {max(free):.0f} s")
    print(f"longest case: {longest[2]}, {longest[1]:.0f} s (started at "
          f"{longest[0]:.0f} s)")
    if a.key_budget is not None:
        held(jobs, a.key_budget)


def held(jobs, budget):
    """The cases the key-wait rule would have held at their start."""
    per = defaultdict(list)
    for st, d, key, cls, first in jobs:
        if cls != "compile":
            per[key].append((st, st + d, first))
    out = defaultdict(lambda: [0, 0.0])
    for key, cs in per.items():
        for s0, _, f0 in cs:
            running = [s for s, e, _ in cs if s < s0 < e]
            spent = sum(f for _, e, f in cs if e <= s0)
            if running and spent + sum(s0 - s for s in running) > budget:
                out[key][0] += 1
                out[key][1] += f0
    n = sum(v[0] for v in out.values())
    print(f"key budget {budget:g} s: the key-wait rule would have held {n} cases "
          f"({sum(v[1] for v in out.values()):.0f} s of first calls) at their start")
    for key, (k, f) in sorted(out.items(), key=lambda x: -x[1][1]):
        print(f"| {key} | {k} | {f:.0f} s |")


if __name__ == "__main__":
    main()
