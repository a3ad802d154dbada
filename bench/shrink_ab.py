#!/usr/bin/env python3
"""shrink_ab.py [ORDER]: runner.shrink_after's A/B on the demo library (the
e2e harness's daemon and runner, demolib on the CPU, its defaults): one full
screen per letter of ORDER (default "ynyn": y = shrink_after yes, n = no,
alternated against drift), each on a fresh daemon and database. Prints one
markdown row per screen: the run wall (the run's finished - started: when
its lists were served), for `yes` the shrinks after it (its shrinks_done
event), for `no` the shrinks inside it (results' shrink_ms), and the
verdicts, which must not differ."""
import os
import sqlite3
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "tests", "e2e"))
import e2e_harness  # noqa: E402


def screen(after):
    d = e2e_harness.Daemon(tempfile.mkdtemp(prefix="shrink-ab-"),
                           runner__shrink_after="yes" if after else "no").start()
    try:
        d.wait_fingerprint()
        st, out = d.post_run({})
        assert st == 202, out
        rid = out["run"]
        run = d.wait_run(rid, timeout=1800, shrinks=False)
        assert run["state"] == "complete", run
        ev = None
        if after:
            while (ev := d.shrinks_done(rid)) is None:
                time.sleep(0.2)
        db = sqlite3.connect(d.db)
        ms, n, runs = db.execute(
            "SELECT coalesce(sum(r.shrink_ms), 0), count(*), coalesce(sum("
            "r.shrink_runs), 0) FROM results r JOIN cases c ON c.id = "
            "r.case_id WHERE c.run_id = ? AND r.shrink_runs > 0", (rid,)).fetchone()
        verdicts = sorted(db.execute("SELECT key, dtype, verdict FROM verdicts "
                                     "WHERE run_id = ?", (rid,)))
        return dict(after=after, wall=run["finished"] - run["started"],
                    cases=run["total"], shrunk_cases=n, shrink_s=ms / 1e3,
                    shrink_runs=runs, event=ev, verdicts=verdicts)
    finally:
        d.stop()


def main(order="ynyn"):
    rows = [screen(c == "y") for c in order]
    print("| shrink_after | cases | run wall (lists served) | shrinks | "
          "variant runs | shrink runner-s | after the lists |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        ev = r["event"]
        tail = (f"{ev['wall_s']:.1f} s ({ev['shrunk']} of {ev['shrinks']} shrunk)"
                if ev else "none")
        print(f"| {'yes' if r['after'] else 'no'} | {r['cases']} | {r['wall']:.1f} s "
              f"| {r['shrunk_cases']} | {r['shrink_runs']} | {r['shrink_s']:.1f} | {tail} |")
    same = all(r["verdicts"] == rows[0]["verdicts"] for r in rows)
    print(f"\nkey x dtype verdicts the same in every screen: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:2]))
