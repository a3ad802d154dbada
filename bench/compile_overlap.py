#!/usr/bin/env python3
"""compile_overlap.py: first calls that compiled while one of their key and
dtype was still compiling (runner.first_call_hold's measure).

    python3 bench/compile_overlap.py opscreen.db[.xz] [--run ID]

For every case with a first call that compiled (first_call_cost.jit_ms over
0.5 s), its first call's span is placed from the result's time and the
case's phase times (build, native, oracle, enable, then cand_first).  A
case counts when its first call started inside the first call of another
case of its key and dtype that compiled too; it is split by how long after
that one's start it began (under 1 s, 1 to 10 s, 10 s or more: what holds
of 1 and 10 s would have caught) and by probe class.  Such a case compiled
side by side with a sibling: where both need the same kernels (a layout
or option they share), one of the two compiles was spent twice.  The
counts are an upper bound on that waste.  Where the results keep
first_call_cost.jit_slow (each real compile's kernel hash; slim_db.py
--compact keeps it), it also counts the kernels compiled more than once in
the run and the runner-s of the repeats: the waste itself.  Standard
library only.
"""
import argparse
import collections
import json
import lzma
import os
import sqlite3
import tempfile

JIT_MS = 500.0


def open_db(path):
    if not path.endswith(".xz"):
        return sqlite3.connect(path), None
    tmp = tempfile.NamedTemporaryFile(suffix=".db", delete=False)
    with lzma.open(path) as f:
        tmp.write(f.read())
    tmp.close()
    return sqlite3.connect(tmp.name), tmp.name


def spans(db, run):
    q = ("SELECT c.key, c.dtype, c.class, r.created, r.figures FROM cases c "
         "JOIN results r ON r.case_id = c.id WHERE r.figures IS NOT NULL")
    rows = db.execute(q + (" AND c.run_id = ?" if run else ""),
                      (run,) if run else ()).fetchall()
    by = collections.defaultdict(list)
    for key, dtype, cls, created, fig in rows:
        f = json.loads(fig)
        t = f.get("times") or {}
        jit = (f.get("first_call_cost") or {}).get("jit_ms") or 0.0
        if t.get("case_ms") is None:
            continue
        start = created - t["case_ms"] / 1e3 + sum(
            t.get(k) or 0.0 for k in ("build_ms", "native_ms", "oracle_ms",
                                      "enable_ms")) / 1e3
        end = start + (t.get("cand_first_ms") or 0.0) / 1e3
        by[(key, dtype)].append((start, end, jit, cls))
        for h, ms in (f.get("first_call_cost") or {}).get("jit_slow") or []:
            if h != "?":
                SLOW[h].append(ms)
    return by


SLOW = collections.defaultdict(list)   # kernel hash -> each compile's ms


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("db")
    ap.add_argument("--run", type=int)
    a = ap.parse_args()
    db, tmp = open_db(a.db)
    try:
        by = spans(db, a.run)
    finally:
        db.close()
        if tmp:
            os.unlink(tmp)
    total = sum(j for v in by.values() for _, _, j, _ in v)
    n = collections.Counter()
    ms = collections.Counter()
    cls_ms = collections.Counter()
    for cases in by.values():
        cases.sort()
        for i, (start, _, jit, cls) in enumerate(cases):
            if jit <= JIT_MS:
                continue
            sib = [s for s, e, j, _ in cases[:i] if s < start < e and j > JIT_MS]
            if not sib:
                continue
            gap = start - max(sib)
            b = "under 1 s" if gap < 1 else "1 to 10 s" if gap < 10 else "10 s or more"
            n[b] += 1
            ms[b] += jit
            cls_ms[cls] += jit
    print(f"compile() in first calls: {total / 1e3:,.1f} runner-s")
    print(f"started inside a compiling first call of their key and dtype: "
          f"{sum(n.values())} cases, {sum(ms.values()) / 1e3:,.1f} runner-s")
    print("| started after it | cases | runner-s of compile() |\n|---|---|---|")
    for b in ("under 1 s", "1 to 10 s", "10 s or more"):
        print(f"| {b} | {n[b]} | {ms[b] / 1e3:,.1f} |")
    print("\n| class | runner-s |\n|---|---|")
    for c, v in cls_ms.most_common():
        print(f"| {c} | {v / 1e3:,.1f} |")
    if SLOW:
        again = [ms[1:] for ms in SLOW.values() if len(ms) > 1]
        print(f"\nkernels compiled (100 ms or more): {len(SLOW)}; compiled more than "
              f"once: {len(again)}, {sum(len(x) for x in again)} repeats, "
              f"{sum(sum(x) for x in again) / 1e3:,.1f} runner-s")


if __name__ == "__main__":
    main()
