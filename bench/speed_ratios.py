#!/usr/bin/env python3
"""speed_ratios.py: the candidates' speed against native's, from a screen's
store (every passing case timed: runner.speed = all).

    python3 bench/speed_ratios.py opscreen.db[.xz] [more.db ...] [--run ID]

A case's ratio is native's steady-state time over the candidate's on the
same inputs in the same process (CUDA events; RESULT "speed"): above 1 the
library is faster.  Per name (over its verified key x dtypes) it prints the
slowest case's ratio, what faster=RATIO reads, and the median and the
largest case's ratio (the case with the most input elements), then how
many names reach 1.0 and 0.8 by each.  Several databases (the parts of
one table, bench/table_part.py): their newest runs together.  Standard
library only.
"""
import argparse
import json
import os
import statistics
import sys

from compile_overlap import open_db  # the database, .xz unpacked to a temporary file


def elements(spec):
    n = 0
    for a in spec.get("args", []):
        if isinstance(a, dict) and isinstance(a.get("shape"), list):
            k = 1
            for d in a["shape"]:
                k *= int(d) if isinstance(d, int) else 1
            n += k
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("db", nargs="+")
    ap.add_argument("--run", type=int)
    a = ap.parse_args()
    if a.run and len(a.db) > 1:
        ap.error("--run names a run of one database")
    per, runs = {}, []
    for path in a.db:
        con, tmp = open_db(path)
        try:
            run = a.run or con.execute("SELECT max(id) FROM runs").fetchone()[0]
            runs.append(str(run))
            verified = {(r[0], r[1], r[2]) for r in con.execute(
                "SELECT name, key, dtype FROM verdicts WHERE run_id = ? AND verdict = "
                "'verified'", (run,))}
            rows = con.execute(
                "SELECT c.spec, r.figures FROM results r JOIN cases c ON "
                "c.id = r.case_id WHERE c.run_id = ? AND r.status = 'pass' AND "
                "json_extract(r.figures, '$.speed.cand_ms') > 0", (run,))
            for spec, fig in rows:
                s, f = json.loads(spec), json.loads(fig)
                key = (s.get("name"), s.get("key"), s.get("dtype"))
                if key not in verified:
                    continue
                sp = f["speed"]
                per.setdefault(key[0], []).append(
                    (sp["native_ms"] / sp["cand_ms"], elements(s)))
        finally:
            con.close()
            if tmp:
                os.unlink(tmp)
    if not per:
        print("no timed case of a verified key x dtype", file=sys.stderr)
        return 1
    table = []
    for name, rs in per.items():
        rat = [r for r, _ in rs]
        big = max(rs, key=lambda x: x[1])[0]
        table.append((min(rat), statistics.median(rat), big, len(rs), name))
    table.sort(key=lambda t: -t[1])
    print(f"run {', '.join(runs)}: {len(table)} names with timed verified cases, "
          f"{sum(t[3] for t in table):,} cases")
    for what, i in (("slowest case (faster=)", 0), ("median case", 1),
                    ("largest case", 2)):
        print(f"- by the {what}: {sum(t[i] >= 1.0 for t in table)} names at "
              f"1.0x native or faster, {sum(t[i] >= 0.8 for t in table)} at 0.8x")
    print("\n| name | cases | slowest | median | largest case |\n|---|---|---|---|---|")
    for lo, med, big, n, name in table:
        print(f"| {name} | {n} | {lo:.3f} | {med:.3f} | {big:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
