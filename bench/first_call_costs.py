#!/usr/bin/env python3
"""first_call_costs.py: what a screen's candidate first calls spent their time on.

    python3 bench/first_call_costs.py opscreen.db [--run N] [--top 15]

Reads the first_call_cost figures the runner stores with each case (see
probes/opscreen_runner/jitstats.py): wall time in Triton compiles and in
autotuning benchmarks, the runner's CPU time and its children's (ptxas).
Prints the totals in runner-seconds, the compiles of one kernel (one Triton
cache hash) done more than once (by runners that compiled it at the same
time, before one of them had written it to the shared cache), the probe
classes' shares, and the keys that cost the most.  Standard library only.
"""
import argparse
import json
import sqlite3
from collections import defaultdict


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--run", type=int)
    ap.add_argument("--top", type=int, default=15)
    a = ap.parse_args()
    db = sqlite3.connect(a.db)
    run = a.run or db.execute("SELECT max(id) FROM runs WHERE state='complete'").fetchone()[0]
    tot = defaultdict(float)
    per_key = defaultdict(lambda: defaultdict(float))
    per_cls = defaultdict(lambda: defaultdict(float))
    compiles = defaultdict(list)   # hash -> [ms, ...]
    ncase = 0
    for key, dtype, cls, first, figs in db.execute(
            "SELECT c.key, c.dtype, c.class, r.cand_first_ms, r.figures FROM results r "
            "JOIN cases c ON c.id = r.case_id WHERE c.run_id = ? AND r.figures IS NOT NULL",
            (run,)):
        try:
            cost = json.loads(figs).get("first_call_cost")
        except ValueError:
            continue
        if not isinstance(cost, dict):
            continue
        ncase += 1
        first = first or 0.0
        row = {"first call": first, "jit (wall)": cost.get("jit_ms", 0),
               "jit (this thread's CPU)": cost.get("jit_cpu_ms", 0),
               "ptxas and other children (CPU)": cost.get("child_cpu_ms", 0),
               "autotune benchmarks (wall)": cost.get("tune_ms", 0),
               "runner process CPU (all threads)": cost.get("cpu_ms", 0)}
        for k, v in row.items():
            tot[k] += v
            per_key[(key, dtype)][k] += v
            per_cls[cls][k] += v
        per_cls[cls]["cases"] += 1
        per_cls[cls]["compiles >= 100 ms"] += len(cost.get("jit_slow", []))
        tot["configs benchmarked"] += cost.get("tune_n", 0)
        tot["compile() calls"] += cost.get("jit_n", 0)
        per_key[(key, dtype)]["cases"] += 1
        for h, ms in cost.get("jit_slow", []):
            compiles[h].append(ms)
            per_key[(key, dtype)]["compiles >= 100 ms"] += 1
    if not ncase:
        print(f"run {run}: no case carries first_call_cost (a runner before jitstats)")
        return
    print(f"run {run}: {ncase} cases with first-call figures\n")
    print("| figure | runner-s, or count |\n|---|---|")
    for k, v in tot.items():
        counts = ("configs benchmarked", "compile() calls")
        print(f"| {k} | {v:.0f} |" if k in counts else f"| {k} | {v / 1e3:.1f} |")
    slow = sum(len(v) for v in compiles.values())
    rep = {h: v for h, v in compiles.items() if len(v) > 1}
    extra = sum(sum(v) - min(v) for v in rep.values())
    print(f"\ncompiles of 100 ms or more: {slow}, of {len(compiles)} kernels; "
          f"{len(rep)} kernels compiled more than once, {sum(len(v) - 1 for v in rep.values())} "
          f"extra compiles, {extra / 1e3:.1f} s of compile wall beyond one each "
          f"(all but the cheapest)")
    print("\n| class | cases | first call s | jit s | compiles >= 100 ms |\n|---|---|---|---|---|")
    for cls, r in sorted(per_cls.items(), key=lambda kv: -kv[1]["jit (wall)"]):
        print(f"| {cls} | {r['cases']:.0f} | {r['first call'] / 1e3:.1f} | "
              f"{r['jit (wall)'] / 1e3:.1f} | {r['compiles >= 100 ms']:.0f} |")
    print(f"\n| key | dtype | cases | first call s | jit s | autotune s | ptxas CPU s "
          f"| compiles >= 100 ms |\n|---|---|---|---|---|---|---|---|")
    for (key, dtype), r in sorted(per_key.items(), key=lambda kv: -kv[1]["first call"])[:a.top]:
        print(f"| {key} | {dtype} | {r['cases']:.0f} | {r['first call'] / 1e3:.1f} | "
              f"{r['jit (wall)'] / 1e3:.1f} | {r['autotune benchmarks (wall)'] / 1e3:.1f} | "
              f"{r['ptxas and other children (CPU)'] / 1e3:.1f} | {r['compiles >= 100 ms']:.0f} |")


if __name__ == "__main__":
    main()
