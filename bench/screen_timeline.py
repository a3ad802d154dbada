#!/usr/bin/env python3
"""screen_timeline.py: how busy a screen's runners were over time, and what a
lower runner.key_budget would have cut, from its opscreen database alone.

    python3 bench/screen_timeline.py DB [--run N] [--bin 60] [--runners 14]
                                        [--budgets 300,240,180,120]

Busy runners: each result's case interval ends at `created` and lasts the
runner's case_ms; the intervals are summed per bin and divided by its length
(compile-ladder cases apart). Time outside cases (shrinks, runner start-up,
idle runners at the tail) is --runners minus the busy count.

Gaps: per runner (figures.runner: role and slot), the time between one
case's end and its next case's start; those of 1 s or more are counted,
with the part that follows a case that shrank (its shrink runs there),
and the shorter ones after a case that did not shrink (dispatch and result
messages) are summed, with their median.

Budget replay: each key's correctness cases in their completion order, a
key's later cases dropped once its summed candidate first calls pass the
budget (cases the screen itself cut are counted as cut at any budget); it
prints the first-call runner-seconds kept and how many key x dtypes would be
left with a cut case and no failure (inconclusive `key_budget`). A replay of
one screen, not a prediction: a cut changes what runs beside what.
Standard library only.
"""
import argparse
import json
import math
import sqlite3
import statistics
from collections import Counter, defaultdict


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--run", type=int)
    ap.add_argument("--bin", type=float, default=60)
    ap.add_argument("--runners", type=int, default=14)
    ap.add_argument("--budgets", default="300,240,180,120")
    a = ap.parse_args()
    db = sqlite3.connect(a.db)
    run = a.run or db.execute("SELECT max(id) FROM runs").fetchone()[0]
    rows = db.execute(
        "SELECT c.key, c.dtype, c.class, r.status, r.reason, "
        "coalesce(r.cand_first_ms, 0), r.created, r.figures, "
        "coalesce(r.shrink_ms, 0) FROM results r "
        "JOIN cases c ON c.id=r.case_id WHERE c.run_id=? ORDER BY r.created",
        (run,)).fetchall()
    iv = []
    per_runner = defaultdict(list)
    for key, dt, cls, st, why, first, created, figs, shrink_ms in rows:
        f = json.loads(figs) if figs else {}
        ms = f.get("times", {}).get("case_ms")
        if ms:
            iv.append((created - ms / 1e3, created, cls == "compile"))
            rn = f.get("runner") or {}
            per_runner[(rn.get("role"), rn.get("slot"))].append(
                (created - ms / 1e3, created, shrink_ms > 0))
    if not iv:
        print("no timed cases")
        return
    t0 = min(s for s, _, _ in iv)
    end = max(e for _, e, _ in iv) - t0
    print(f"Run {run}: busy runners per {a.bin:g} s (of {a.runners} screening)\n")
    print("| seconds | screening busy | compile-ladder busy | cases ended |\n|---|---|---|---|")
    outside = 0.0
    for i in range(int(math.ceil(end / a.bin))):
        lo, hi = t0 + i * a.bin, t0 + (i + 1) * a.bin
        busy = [0.0, 0.0]
        for s, e, comp in iv:
            busy[comp] += max(0.0, min(e, hi) - max(s, lo))
        n = sum(1 for _, e, _ in iv if lo <= e < hi)
        width = min(hi, t0 + end) - lo
        outside += max(0.0, a.runners * width - busy[0])
        print(f"| {i * a.bin:.0f}-{(i + 1) * a.bin:.0f} | {busy[0] / a.bin:.1f} | "
              f"{busy[1] / a.bin:.1f} | {n} |")
    print(f"\nScreening runner-s outside cases: {outside:.0f} of "
          f"{a.runners * end:.0f} ({100 * outside / (a.runners * end):.0f}%)\n")
    gaps(per_runner)
    print("Budget replay:\n")
    print("| key budget (s) | first-call runner-s kept | key x dtypes cut without a failure |"
          "\n|---|---|---|")
    for b in [float(x) for x in a.budgets.split(",") if x]:
        spent, kd = Counter(), defaultdict(list)
        for key, dt, cls, st, why, first, _, _, _ in rows:
            if cls in ("compile", "bootstrap"):
                continue
            if spent[key] > b or (st == "skipped" and why == "key_budget"):
                kd[(key, dt)].append("cut")
                continue
            spent[key] += first / 1e3
            kd[(key, dt)].append(st)
        cut = sum(1 for sts in kd.values() if "cut" in sts and "fail" not in sts
                  and "error" not in sts)
        print(f"| {b:g} | {sum(spent.values()):.0f} | {cut} |")


def gaps(per_runner):
    """Time between consecutive cases of each runner."""
    long_n, long_s, after_shrink, short = 0, 0.0, 0.0, []
    for cases in per_runner.values():
        cases.sort()
        for (s0, e0, shrank), (s1, _, _) in zip(cases, cases[1:]):
            g = s1 - e0
            if g >= 1:
                long_n += 1
                long_s += g
                after_shrink += g if shrank else 0.0
            elif not shrank:
                short.append(g)
    print(f"Gaps between a runner's cases: {long_n} of 1 s or more, {long_s:.0f} "
          f"runner-s ({after_shrink:.0f} after a case that shrank); "
          f"{len(short)} shorter ones after a case that did not shrink, "
          f"{sum(short):.0f} runner-s (median "
          f"{1e3 * statistics.median(short) if short else 0:.1f} ms)\n")


if __name__ == "__main__":
    main()
