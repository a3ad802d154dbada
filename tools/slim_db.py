#!/usr/bin/env python3
"""slim_db.py: an opscreen database made small enough to commit.

    python3 tools/slim_db.py SRC DST [--keep-run N]

Copies SRC to DST (SQLite backup), keeps in each result's figures only what
the report tools read (`times`, `oracle_check`, `runner`,
`first_call_cost`), drops repros and
stderr tails, and with --keep-run deletes every other run (its cases,
results, verdicts and events go with it; a kept verdict's evidence case in
a dropped run stays as a dangling id), then vacuums. report_full.py,
key_costs.py, screen_timeline.py, screen_replay.py, release_diff.py and
first_call_costs.py print
the same from DST as from SRC for the runs it keeps. --compact keeps of
the figures only `times` and the numbers of `first_call_cost` (what the
run tables, the compile bound and first_call_costs.py's totals read),
rounded to 0.1 ms, `speed` (native's and the candidate's medians, to 4
significant digits), `pid` (the runner process), and its `jit_slow` (the hash of each real compile:
bench/compile_overlap.py counts kernels compiled more than once): a
whole-table screen with every class then fits.
Compress DST with `xz -9` before committing (tracked files stay under
4 MiB).
"""
import argparse
import json
import os
import sqlite3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--keep-run", type=int)
    ap.add_argument("--compact", action="store_true")
    a = ap.parse_args()
    if os.path.exists(a.dst):
        os.unlink(a.dst)
    src = sqlite3.connect(a.src)
    dst = sqlite3.connect(a.dst)
    src.backup(dst)
    src.close()
    if a.keep_run is not None:
        # by hand, not by cascade: a kept verdict's evidence may be a case of
        # a dropped run (an `intermittent` verdict points at the earlier
        # run's failing case); that reference is kept, dangling
        k = (a.keep_run,)
        dst.execute("DELETE FROM results WHERE case_id IN (SELECT id FROM cases "
                    "WHERE run_id != ?)", k)
        for t in ("cases", "verdicts", "run_devices"):
            dst.execute(f"DELETE FROM {t} WHERE run_id != ?", k)
        dst.execute("DELETE FROM events WHERE run_id IS NOT NULL AND run_id != ?", k)
        dst.execute("DELETE FROM runs WHERE id != ?", k)
    keep = ("times", "first_call_cost", "speed", "pid") if a.compact else \
        ("times", "oracle_check", "runner", "first_call_cost", "speed", "pid")
    rows = dst.execute("SELECT case_id, figures FROM results WHERE figures IS NOT "
                       "NULL").fetchall()
    for cid, fig in rows:
        try:
            f = json.loads(fig)
        except ValueError:
            continue
        if isinstance(f, dict):
            f = {x: f[x] for x in keep if x in f}
            if a.compact:
                f = {x: {k: (float(f"{v:.4g}") if x == "speed" else round(v, 1))
                         if isinstance(v, float) else v
                         for k, v in f[x].items() if not isinstance(v, (list, dict))
                         or k == "jit_slow"}
                     if isinstance(f[x], dict) else f[x] for x in f}
            dst.execute("UPDATE results SET figures = ? WHERE case_id = ?",
                        (json.dumps(f, separators=(",", ":") if a.compact else None), cid))
    dst.execute("UPDATE results SET repro = NULL, stderr_tail = NULL")
    dst.commit()
    dst.execute("VACUUM")
    dst.close()


if __name__ == "__main__":
    main()
