#!/usr/bin/env python3
"""case_diff.py OLD.db NEW.db [RUN_OLD RUN_NEW]: two screens of the same
scope compared case for case (cases matched by key, dtype, class and spec:
the same inputs and seed) and key x dtype for key x dtype.  Unlike
tools/release_diff.py it takes any run, restricted ones too (the 42-op
screens).  Prints the status cross-table of the cases both judged, every
case whose status differs, the cases one side skipped (budget cuts are
timing: which cases a cut reaches depends on when it fell) and every
verdict that differs."""
import collections
import sqlite3
import sys


def load(path, run):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    if run is None:
        run = db.execute("SELECT max(id) FROM runs").fetchone()[0]
    meta = db.execute("SELECT state, request FROM runs WHERE id=?", (run,)).fetchone()
    cases = {}
    for key, dtype, cls, spec, state, status, reason in db.execute(
            "SELECT c.key, c.dtype, c.class, c.spec, c.state, r.status, r.reason "
            "FROM cases c LEFT JOIN results r ON r.case_id = c.id WHERE c.run_id=?", (run,)):
        cases[(key, dtype, cls, spec)] = (state, status, reason)
    verdicts = {(d, k, t): (v, r, c) for d, k, t, v, r, c in db.execute(
        "SELECT device, key, dtype, verdict, reason, class FROM verdicts WHERE run_id=?", (run,))}
    return run, meta, cases, verdicts


def main(argv):
    ro = int(argv[2]) if len(argv) > 2 else None
    rn = int(argv[3]) if len(argv) > 3 else None
    a = load(argv[0], ro)
    b = load(argv[1], rn)
    print(f"- old: run {a[0]} ({a[1][0]}), {len(a[2])} cases, {len(a[3])} key x dtype verdicts")
    print(f"- new: run {b[0]} ({b[1][0]}), {len(b[2])} cases, {len(b[3])} key x dtype verdicts")
    both = set(a[2]) & set(b[2])
    print(f"- cases in both (same key, dtype, class, spec): {len(both)}; "
          f"only old {len(set(a[2]) - both)}, only new {len(set(b[2]) - both)}")
    judged = [k for k in both if a[2][k][1] not in (None, "skipped")
              and b[2][k][1] not in (None, "skipped")]
    cross = collections.Counter((a[2][k][1], b[2][k][1]) for k in judged)
    sts = sorted({s for p in cross for s in p})
    print(f"\n### Judged in both: {len(judged)} cases\n")
    print("| old \\ new | " + " | ".join(sts) + " |")
    print("|---" * (len(sts) + 1) + "|")
    for s in sts:
        print(f"| {s} | " + " | ".join(str(cross[(s, t)]) for t in sts) + " |")
    diff = sorted(k for k in judged if a[2][k][1] != b[2][k][1])
    print(f"\n### Cases whose status differs: {len(diff)}\n")
    for k in diff:
        print(f"- {k[0]} {k[1]} {k[2]}: old {a[2][k][1]} ({a[2][k][2][:80]}), "
              f"new {b[2][k][1]} ({b[2][k][2][:80]})")
    skipped = collections.Counter()
    for k in both:
        sa, sb = a[2][k][1] in (None, "skipped"), b[2][k][1] in (None, "skipped")
        if sa != sb:
            skipped[(k[0], k[1], "old" if sa else "new")] += 1
    print(f"\n### Judged on one side only (skipped on the other): {sum(skipped.values())} cases\n")
    for (key, dtype, side), n in sorted(skipped.items()):
        print(f"- {key} {dtype}: {n} skipped in {side}")
    vd = sorted(k for k in set(a[3]) | set(b[3]) if a[3].get(k) != b[3].get(k))
    print(f"\n### Key x dtype verdicts that differ: {len(vd)} of {len(set(a[3]) | set(b[3]))}\n")
    for k in vd:
        print(f"- {k[1]} {k[2]}: old {a[3].get(k)}, new {b[3].get(k)}")


if __name__ == "__main__":
    main(sys.argv[1:])
