"""Renders the repros of stored cases again with this checkout's runner and
runs them by hand (docs/results/*-severity.md: repros whose earlier
rendering was defective, re-checked after the fix).

    python3 bench/repro_recheck.py DATABASE OUTDIR CASE_ID...

For each case: its shrunk spec when the store has one, else its spec, runs
in a runner of its own (`python -m opscreen_runner` over fd 3, as opscreend
starts it; OPSCREEN_LIBRARY, OPSCREEN_DEVICE from the environment, flag_gems
and cuda by default); the repro is RESULT's, else STARTED's (the daemon's
rule), with the daemon's part written in by `build/opscreenctl judge`; then
the script runs (python3, the library on PYTHONPATH) and its last line and
exit status are reported with whether it failed as it must
(bench/severity_checks.py's `as_it_must`). Writes OUTDIR/CASE.py and
prints a markdown table.
"""
import json
import os
import sqlite3
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "tests", "runner")]

from runner_harness import Runner, judge_repro  # noqa: E402
from severity_checks import as_it_must, run_repro  # noqa: E402

STEADY = {"calls": 3, "max_ms": 500.0}


def main():
    dbpath, out, ids = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3:]]
    os.makedirs(out, exist_ok=True)
    db = sqlite3.connect(f"file:{dbpath}?mode=ro", uri=True)
    env = {"OPSCREEN_LIBRARY": os.environ.get("OPSCREEN_LIBRARY", "flag_gems"),
           "OPSCREEN_DEVICE": os.environ.get("OPSCREEN_DEVICE", "cuda"),
           "CUDA_VISIBLE_DEVICES": os.environ.get("CUDA_VISIBLE_DEVICES", "0")}
    timeout = int(os.environ.get("REPRO_TIMEOUT", "120"))
    print("| case | key | dtype | stored reason | now | repro lines | exit | as it must "
          "| last line |")
    print("|---|---|---|---|---|---|---|---|---|")
    for cid in ids:
        key, dtype, spec, shrunk, reason = db.execute(
            "SELECT c.key, c.dtype, c.spec, r.shrunk_spec, r.reason FROM cases c "
            "JOIN results r ON r.case_id = c.id WHERE c.id = ?", (cid,)).fetchone()
        case = json.loads(shrunk or spec)
        case["id"] = cid
        case.setdefault("steady", STEADY)
        r = Runner(**env)
        try:
            r.recv()  # hello
            started, res = r.case(case)
        finally:
            r.close()
        if res is None:
            print(f"| {cid} | {key} | {dtype} | {reason} | (the runner died) | | | | |")
            continue
        res = dict(res, repro=res.get("repro") or (started or {}).get("repro"))
        verdict, src = judge_repro(case, res)
        path = os.path.join(out, f"{cid}.py")
        with open(path, "w") as f:
            f.write(src)
        rc, last = run_repro(path, timeout)
        ok = as_it_must(verdict["reason"], rc, last)
        last = last.replace("|", "\\|")[:160]
        print(f"| {cid} | {key} | {dtype} | {reason} | {verdict['status']} "
              f"{verdict['reason']} | {len(src.splitlines())} | {rc} | "
              f"{'yes' if ok else 'NO'} | {last} |", flush=True)


if __name__ == "__main__":
    main()
