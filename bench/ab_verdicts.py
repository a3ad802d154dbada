#!/usr/bin/env python3
"""Two screens' verdicts side by side (an A/B of two builds on one machine,
e.g. bench/gpu_full.sh's ops42 and anchor42): the key x dtype verdicts that
differ, each with its failing cases' figures; the same verdict for another
reason; case statuses; and the runners' time by part (RESULT times).

    python3 bench/ab_verdicts.py A.db[.xz] B.db[.xz]

Each database's newest run is compared."""
import collections
import json
import lzma
import os
import sqlite3
import sys
import tempfile


def open_db(path):
    if path.endswith(".xz"):
        fd, tmp = tempfile.mkstemp(suffix=".db")
        with os.fdopen(fd, "wb") as f, lzma.open(path) as z:
            f.write(z.read())
        path = tmp
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def load(path):
    db = open_db(path)
    run = db.execute("SELECT max(id) FROM runs").fetchone()[0]
    verdicts = {(k, d): (v, why) for k, d, v, why in db.execute(
        "SELECT key, dtype, verdict, reason FROM verdicts WHERE run_id = ?", (run,))}
    status = collections.Counter(s for (s,) in db.execute(
        "SELECT r.status FROM results r JOIN cases c ON c.id = r.case_id "
        "WHERE c.run_id = ?", (run,)))
    times = collections.Counter()
    for (f,) in db.execute("SELECT r.figures FROM results r JOIN cases c ON "
                           "c.id = r.case_id WHERE c.run_id = ? AND r.figures "
                           "IS NOT NULL", (run,)):
        for k, v in (json.loads(f).get("times") or {}).items():
            if isinstance(v, (int, float)):
                times[k] += v / 1e3
    started, finished = db.execute("SELECT started, finished FROM runs WHERE id = ?",
                                   (run,)).fetchone()
    return db, run, verdicts, status, times, finished - started


def failing(db, run, key, dtype):
    return db.execute(
        "SELECT c.class, r.status, r.reason, substr(r.detail, 1, 120) FROM cases c "
        "JOIN results r ON r.case_id = c.id WHERE c.run_id = ? AND c.key = ? AND "
        "c.dtype = ? AND r.status NOT IN ('pass', 'skipped', 'na')",
        (run, key, dtype)).fetchall()


def main():
    a, b = load(sys.argv[1]), load(sys.argv[2])
    print(f"A {sys.argv[1]}: run {a[1]}, {len(a[2])} key x dtype verdicts, "
          f"run wall {a[5]:.1f} s")
    print(f"B {sys.argv[2]}: run {b[1]}, {len(b[2])} key x dtype verdicts, "
          f"run wall {b[5]:.1f} s")
    keys = sorted(set(a[2]) | set(b[2]))
    diff = [k for k in keys if (a[2].get(k) or (None,))[0] != (b[2].get(k) or (None,))[0]]
    print(f"\nverdicts that differ: {len(diff)}")
    for k in diff:
        print(f"  {k[0]} {k[1]}: A {a[2].get(k)}, B {b[2].get(k)}")
        for side, s in (("A", a), ("B", b)):
            for row in failing(s[0], s[1], *k)[:3]:
                print(f"    {side} {row}")
    other = [k for k in keys if k in a[2] and k in b[2] and a[2][k] != b[2][k]
             and k not in diff]
    print(f"\nthe same verdict for another reason: {len(other)}")
    for k in other:
        print(f"  {k[0]} {k[1]}: A {a[2][k]}, B {b[2][k]}")
    print("\nstatuses A", dict(sorted(a[3].items())))
    print("statuses B", dict(sorted(b[3].items())))
    print("\nrunner-s by part (RESULT times)      A          B")
    for k in ("case_ms", "build_ms", "cand_first_ms", "steady_total_ms", "guard_ms",
              "compare_ms", "render_ms"):
        print(f"  {k:18s} {a[4][k]:12.1f} {b[4][k]:10.1f}")


if __name__ == "__main__":
    main()
