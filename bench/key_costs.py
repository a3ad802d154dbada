#!/usr/bin/env python3
"""key_costs.py: where a (possibly unfinished) screen's runner time went, per
aten key, from its opscreen database alone, and what the whole registration
table would cost at that rate.

    python3 bench/key_costs.py DB [--run N] [--top 15] [--runners 12] [--budgets 300,180,120]
                                  [--slow-calls 1,2,3,5]

The run is the database's newest unless --run names one (a warm screen runs
on the cold screen's database: run 2 there).

Prints a Markdown table of the keys with the most first-call time in the
correctness classes (cases done / generated, first-call seconds, mean per
case, slowest, shrink variants run), then the projection: each key's mean
case time (the runner's case_ms) times its generated cases, summed, and the
same with each key capped at runner.key_budget. It counts case time only:
shrink variants, runner start-up, idle runners and the tail are not in it (the
first complete whole-table screen took 21.0 min where it sums to 16.7 min on
14 runners).

--slow-calls N: what a sweep that compiles and tunes fewer shapes could
save, as an upper bound. Each key x dtype keeps its first N first calls of
0.5 s or more, in completion order. Every later one is counted at its steady
call's time, as if its shape had been compiled and tuned before. A new
layout or dtype still compiles, so the real saving is smaller. Standard
library only (and tools/report_full.py).
"""
import argparse
import json
import os
import sqlite3
import sys
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from report_full import shrinks  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--run", type=int)
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--runners", type=int, default=12)
    ap.add_argument("--budgets", default="300,180,120")
    ap.add_argument("--slow-calls", default="")
    a = ap.parse_args()
    db = sqlite3.connect(a.db)
    run = a.run or db.execute("SELECT max(id) FROM runs").fetchone()[0]
    generated = Counter(k for (k,) in db.execute(
        "SELECT key FROM cases WHERE run_id=? AND class NOT IN ('compile', "
        "'bootstrap')", (run,)))
    print("| key | cases done / generated | first calls (s) | mean per case (s) "
          "| slowest (s) | shrink variants run |\n|---|---|---|---|---|---|")
    for k, n, s, m, sh in db.execute(
            "SELECT c.key, count(*), sum(r.cand_first_ms) / 1e3, "
            "max(r.cand_first_ms) / 1e3, sum(r.shrink_runs) FROM results r JOIN "
            "cases c ON c.id=r.case_id WHERE c.run_id=? AND r.cand_first_ms IS "
            "NOT NULL AND c.class NOT IN ('compile', 'bootstrap') GROUP BY 1 "
            "ORDER BY 3 DESC LIMIT ?", (run, a.top)):
        print(f"| {k} | {n} / {generated[k]} | {s:.0f} | {s / n:.1f} | {m:.0f} | {sh} |")
    if (sh := shrinks(db, run)) is not None:
        n, ms = sh
        print(f"\nShrinks: {n} failing cases, {ms / 1e3:.0f} runner-s (not in the "
              "projection below)")
    spent, done = Counter(), Counter()
    for key, first, figs in db.execute(
            "SELECT c.key, r.cand_first_ms, r.figures FROM results r JOIN cases c "
            "ON c.id=r.case_id WHERE c.run_id=? AND c.class NOT IN ('compile', "
            "'bootstrap')", (run,)):
        t = (json.loads(figs) if figs else {}).get("times", {})
        spent[key] += (t.get("case_ms") or first or 0) / 1e3
        done[key] += 1
    cost = {k: spent[k] / done[k] * generated[k] for k in generated if done[k]}
    print(f"\nProjection over the {len(cost)} keys with a case done "
          f"({len(generated)} generated), {a.runners} runners:\n")
    print("| key budget (s) | runner-s | minutes | keys over the budget |\n|---|---|---|---|")
    for b in [None] + [float(x) for x in a.budgets.split(",") if x]:
        total = sum(min(c, b) if b else c for c in cost.values())
        over = sum(1 for c in cost.values() if b and c > b)
        print(f"| {'none' if b is None else f'{b:g}'} | {total:.0f} | "
              f"{total / a.runners / 60:.1f} | {over} |")
    if a.slow_calls:
        slow = {}
        for key, dt, first, steady in db.execute(
                "SELECT c.key, c.dtype, r.cand_first_ms, coalesce(r.cand_steady_ms, "
                "0) FROM results r JOIN cases c ON c.id=r.case_id WHERE c.run_id=? "
                "AND c.class NOT IN ('compile', 'bootstrap') AND r.cand_first_ms "
                ">= 500 ORDER BY r.created, c.id", (run,)):
            slow.setdefault((key, dt), []).append((first - steady) / 1e3)
        total = sum(sum(v) for v in slow.values())
        print(f"\nFirst calls of 0.5 s or more: {sum(map(len, slow.values()))} in "
              f"{len(slow)} key x dtypes, {total:.0f} runner-s above their steady "
              "call\n")
        print("| slow first calls kept per key x dtype | runner-s saved at most |"
              "\n|---|---|")
        for n in (int(x) for x in a.slow_calls.split(",") if x):
            print(f"| {n} | {sum(sum(v[n:]) for v in slow.values()):.0f} |")


if __name__ == "__main__":
    main()
