#!/usr/bin/env python3
"""key_costs.py: where a (possibly unfinished) screen's runner time went, per
aten key, from its opscreen database alone, and what the whole registration
table would cost at that rate.

    python3 tools/key_costs.py DB [--run N] [--top 15] [--runners 12] [--budgets 300,180,120]

The run is the database's newest unless --run names one (a warm screen runs
on the cold screen's database: run 2 there).

Prints a Markdown table of the keys with the most first-call time in the
correctness classes (cases done / generated, first-call seconds, mean per
case, slowest, shrink variants run), then the projection: each key's mean
case time (the runner's case_ms) times its generated cases, summed, and the
same with each key capped at runner.key_budget. It counts case time only:
shrink variants, runner start-up, idle runners and the tail are not in it (the
first complete whole-table screen took 21.0 min where it sums to 16.7 min on
14 runners). Standard library only (and report_full.py beside it).
"""
import argparse
import json
import sqlite3
from collections import Counter

from report_full import shrinks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--run", type=int)
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--runners", type=int, default=12)
    ap.add_argument("--budgets", default="300,180,120")
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


if __name__ == "__main__":
    main()
