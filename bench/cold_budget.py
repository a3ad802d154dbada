#!/usr/bin/env python3
"""cold_budget.py: where a screen's runner time goes against its compile
bound (issue 23: a cold screen within 1.25 times `compile()`'s runner-s
over the cores).

    python3 bench/cold_budget.py opscreen.db[.xz] --cores 16 [--run ID]
        [--restarts N] [--target 1.25]

From the run's results (the figures every runner reports; slim_db.py
--compact keeps what this reads): the run wall; the bound as the daemon
computes it (the candidates' first calls' `compile()` wall, jit_ms, over
the cores); then the runner-s of the cases split into the first calls'
compile (and of it the process's own CPU and its children's: ptxas), their
autotune benchmarks (tune_ms), their waits for another process's compile
of the same kernel (wait_ms), the rest of the first calls, the cases'
other phases, and the shrinks of failing cases; `--restarts` (the metric
opscreen_worker_restarts_total) is printed beside. Last, how many runner-s
outside `compile()` the run had and how many it may have at the target
ratio, where all the cores stay busy: (target x bound - bound) x cores
(a runner-second taken as a core-second: with more runners than cores,
as on the GPU host, both sides count time a runner waited for a core).
Standard library only.
"""
import argparse
import json
import os
import sys

from compile_overlap import open_db  # the database, .xz unpacked to a temporary file


def budget(con, run):
    started, finished = con.execute(
        "SELECT started, finished FROM runs WHERE id = ?", (run,)).fetchone()
    t = dict(jit=0.0, jit_cpu=0.0, child=0.0, tune=0.0, wait=0.0, first=0.0,
             case=0.0, shrink=0.0, cases=0, first_calls=0)
    for fig, shrink_ms in con.execute(
            "SELECT r.figures, r.shrink_ms FROM results r JOIN cases c ON "
            "c.id = r.case_id WHERE c.run_id = ?", (run,)):
        t["shrink"] += (shrink_ms or 0) / 1e3
        if not fig:
            continue
        f = json.loads(fig)
        times = f.get("times") or {}
        fc = f.get("first_call_cost") or {}
        t["cases"] += 1
        t["case"] += (times.get("case_ms") or 0) / 1e3
        if times.get("cand_first_ms") is not None:
            t["first_calls"] += 1
            t["first"] += times["cand_first_ms"] / 1e3
        t["jit"] += (fc.get("jit_ms") or 0) / 1e3
        t["jit_cpu"] += (fc.get("jit_cpu_ms") or 0) / 1e3
        t["child"] += (fc.get("child_cpu_ms") or 0) / 1e3
        t["tune"] += (fc.get("tune_ms") or 0) / 1e3
        t["wait"] += (fc.get("wait_ms") or 0) / 1e3
    t["wall"] = (finished or 0) - (started or 0)
    return t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("db")
    ap.add_argument("--cores", type=int, required=True)
    ap.add_argument("--run", type=int)
    ap.add_argument("--restarts", type=int)
    ap.add_argument("--target", type=float, default=1.25)
    a = ap.parse_args()
    con, tmp = open_db(a.db)
    try:
        run = a.run or con.execute(
            "SELECT max(id) FROM runs WHERE state = 'complete'").fetchone()[0]
        if run is None:
            print("no complete run", file=sys.stderr)
            return 1
        t = budget(con, run)
    finally:
        con.close()
        if tmp:
            os.unlink(tmp)
    bound = t["jit"] / a.cores
    if t["wall"] <= 0 or bound <= 0:
        print(f"run {run}: no run wall or no compile() time", file=sys.stderr)
        return 1
    other_first = t["first"] - t["jit"] - t["tune"] - t["wait"]  # wait_ms is not in jit_ms
    rest = t["case"] - t["first"]
    print(f"run {run}: {t['cases']:,} cases with figures, {t['first_calls']:,} first calls; "
          f"run wall {t['wall']:.1f} s on {a.cores} cores; compile bound "
          f"{bound:.1f} s ({t['wall'] / bound:.2f}x)")
    print("\n| runner-s | what |\n|---|---|")
    rows = [(t["jit"], "first calls: `compile()` wall (the bound's numerator)"),
            (t["jit_cpu"], "  of which the runner's own CPU"),
            (t["child"], "  of which its children's CPU (ptxas)"),
            (t["wait"], "first calls: waiting for another process's compile of the kernel"),
            (t["tune"], "first calls: autotune benchmarks"),
            (other_first, "first calls: the rest (launches, loads, the library's Python)"),
            (rest, "the cases' other phases (inputs, native, oracle, compare, steady calls, speed)"),
            (t["shrink"], "shrinking failing cases")]
    for v, what in rows:
        print(f"| {v:,.1f} | {what} |")
    if a.restarts is not None:
        print(f"\nrunner restarts: {a.restarts}")
    outside = t["case"] + t["shrink"] - t["jit"]
    allowed = (a.target * bound - bound) * a.cores
    print(f"\noutside compile(): {outside:,.1f} runner-s; at {a.target}x the bound, "
          f"with every core busy, {allowed:,.1f} fit ({outside - allowed:,.1f} over)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
