#!/usr/bin/env python3
"""mode_names.py: names per deployment mode from a screen's store, for a
restricted run (POST /runs with ops=, which serves no list) or any other.

    python3 bench/mode_names.py opscreen.db[.xz] [more.db ...] [--run ID] [--like 'fused::%']

A name is allowed in a mode as the lists allow it (docs/design.md,
"Deployment modes"): every screened key x dtype of it verified eagerly and,
for compile and cudagraph, verified in that mode too; a mode's verdict
missing (no case of the mode) withholds it. Prints, per name, its eager
verdict and each mode's (the worst over its key x dtypes, with the first
reason), then the names allowed per mode. A run that did not complete has
no verdicts: then it prints each key's case outcomes per class instead.
Several databases: the parts of one table screened as restricted runs
(bench/table_part.py), each's newest run, a name in one of them only
(exit 2 otherwise). Standard library only.
"""
import argparse
import os
import sys

from compile_overlap import open_db  # the database, .xz unpacked to a temporary file

ORDER = {"verified": 0, "": 1, None: 1, "inconclusive": 2, "hazard": 3, "broken": 4}
MODES = (("eager", "verdict", "reason"), ("compile", "compile_verdict", "compile_reason"),
         ("cudagraph", "cudagraph_verdict", "cudagraph_reason"))


def worst(rows, col, why):
    v = max(rows, key=lambda r: ORDER.get(r[col], 1))
    return (v[col] or "none"), (v[why] or "") if v[col] != "verified" else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("db", nargs="+")
    ap.add_argument("--run", type=int)
    ap.add_argument("--like", default="%")
    a = ap.parse_args()
    if a.run and len(a.db) > 1:
        ap.error("--run names a run of one database")
    names, owner = {}, {}
    for i, path in enumerate(a.db):
        con, tmp = open_db(path)
        try:
            run = a.run or con.execute("SELECT max(id) FROM runs").fetchone()[0]
            state = con.execute("SELECT state FROM runs WHERE id=?", (run,)).fetchone()[0]
            print(f"run {run}: {state}" + (f" ({path})" if len(a.db) > 1 else ""))
            rows = con.execute(
                "SELECT name, key, dtype, verdict, reason, compile_verdict, compile_reason, "
                "cudagraph_verdict, cudagraph_reason FROM verdicts WHERE run_id=? AND key LIKE ? "
                "AND dtype != 'any' ORDER BY name", (run, a.like)).fetchall()
            if not rows:
                if len(a.db) > 1:
                    print(f"{path}: no verdicts in run {run}", file=sys.stderr)
                    return 1
                return cases(con, run, a.like)
        finally:
            con.close()
            if tmp:
                os.unlink(tmp)
        for r in rows:
            # parts of one table (bench/table_part.py) hold each name once
            if owner.setdefault(r[0], i) != i:
                print(f"{r[0]}: in {a.db[owner[r[0]]]} and {path}", file=sys.stderr)
                return 2
            names.setdefault(r[0], []).append(r)
    cols = {"verdict": 3, "reason": 4, "compile_verdict": 5, "compile_reason": 6,
            "cudagraph_verdict": 7, "cudagraph_reason": 8}
    allowed = {m: [] for m, _, _ in MODES}
    print("| name | " + " | ".join(m for m, _, _ in MODES) + " |")
    print("|---|" + "---|" * len(MODES))
    for name in sorted(names):
        rs = names[name]
        cells, eager_ok = [], False
        for m, col, why in MODES:
            v, reason = worst(rs, cols[col], cols[why])
            ok = v == "verified" and (m == "eager" or eager_ok)
            eager_ok = eager_ok or (m == "eager" and ok)
            if ok:
                allowed[m].append(name)
            cells.append(v + (f" ({reason})" if reason else ""))
        print(f"| `{name}` | " + " | ".join(cells) + " |")
    print()
    for m, _, _ in MODES:
        print(f"allowed in {m}: {len(allowed[m])} of {len(names)}: "
              + ", ".join(allowed[m]))
    return 0


def cases(con, run, like):
    """A run without verdicts: each key's case outcomes per class."""
    print("no verdicts (the run did not complete): case outcomes per key and class")
    rows = con.execute(
        "SELECT c.key, c.class, r.status, count(*) FROM cases c LEFT JOIN results r ON "
        "r.case_id = c.id WHERE c.run_id=? AND c.key LIKE ? GROUP BY 1, 2, 3 ORDER BY 1, 2",
        (run, like)).fetchall()
    per = {}
    for key, cls, status, n in rows:
        per.setdefault(key, {}).setdefault(cls, []).append(f"{status or 'not run'} {n}")
    for key, classes in per.items():
        print(f"{key}: " + "; ".join(f"{c}: {', '.join(s)}" for c, s in classes.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
