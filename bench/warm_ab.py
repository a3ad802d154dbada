#!/usr/bin/env python3
"""warm_ab.py: warm screens side by side, for an A/B of one knob (e.g.
runner.key_affinity) on screens of the same library, caches and cases.

    python3 bench/warm_ab.py OUTDIR PHASE [PHASE ...]

Each PHASE is a folder bench/gpu_full.sh's finish (and pack:slim) left in
OUTDIR: its run.json (a run that did not complete is an error: exit 1;
without one, the database's newest run), opscreen.conf and
opscreen[-slim].db[.xz].  Per phase, from that run: the
run wall (finished - started), the cases with figures, the runner-seconds
of the whole cases (`case_ms`) and of the candidates' first calls
(`cand_first_ms`), the Triton compile() calls in first calls (in a warm
screen nearly all cache loads: `jit_n`, `jit_ms`), and how many runner
processes (`pid`) ran each op's cases, the mean over ops (an op: the key up
to its first `.`, less a trailing `_`, as runner.key_affinity groups them).
Its knobs key_affinity and cuda_sync from opscreen.conf are printed beside.
Standard library only.
"""
import argparse
import collections
import configparser
import json
import os
import sys

from anchor_compare import run_of  # a phase's run.json, refused unless complete
from compile_overlap import open_db  # the database, .xz unpacked to a temporary file


def op_of(key):
    return key.split(".", 1)[0].rstrip("_")


def knobs(folder):
    """The knobs the table shows, from the phase's opscreen.conf."""
    conf = configparser.ConfigParser(interpolation=None)
    conf.read(os.path.join(folder, "opscreen.conf"))
    return {k: conf.get("runner", k, fallback="") for k in ("key_affinity", "cuda_sync")}


def database(folder):
    for n in ("opscreen.db", "opscreen-slim.db.xz", "opscreen-slim.db"):
        p = os.path.join(folder, n)
        if os.path.exists(p):
            return p
    return None


def run_in_db(con, path):
    """The newest run of a phase's database, as run_of reads run.json, for a
    folder that has the database but lost its run.json (the runs row is what
    the daemon served run.json from)."""
    r = con.execute("SELECT id, state, started, finished FROM runs "
                    "ORDER BY id DESC LIMIT 1").fetchone()
    if r is None or r[1] != "complete" or not r[2] or not r[3]:
        return None, f"{path}: run {r and r[0]} is {r and r[1]}, not complete"
    return dict(zip(("id", "state", "started", "finished"), r)), None


def phase(outdir, name):
    folder = os.path.join(outdir, name)
    row = {"phase": name, **knobs(folder)}
    path = database(folder)
    from_json = os.path.exists(os.path.join(folder, "run.json")) or path is None
    if from_json:
        run, err = run_of(outdir, name)
        if err:
            row["error"] = err
            return row
    if path is None:
        row["error"] = "no database"
        return row
    con, tmp = open_db(path)
    try:
        if not from_json:
            run, err = run_in_db(con, path)
            if err:
                row["error"] = err
                return row
        rows = con.execute(
            "SELECT c.key, r.figures FROM cases c JOIN results r ON r.case_id = c.id "
            "WHERE c.run_id = ? AND r.figures IS NOT NULL", (run["id"],)).fetchall()
    finally:
        con.close()
        if tmp:
            os.unlink(tmp)
    row.update(state=run["state"], wall_s=run["finished"] - run["started"])
    case_ms = first_ms = jit_ms = 0.0
    jit_n = cases = 0
    pids = collections.defaultdict(set)
    for key, fig in rows:
        try:
            f = json.loads(fig)
        except ValueError:
            continue
        t = f.get("times") or {}
        if "case_ms" not in t:
            continue
        cases += 1
        case_ms += t.get("case_ms", 0.0)
        first_ms += t.get("cand_first_ms", 0.0)
        fc = f.get("first_call_cost") or {}
        jit_ms += fc.get("jit_ms", 0.0)
        jit_n += fc.get("jit_n", 0)
        if f.get("pid"):
            pids[op_of(key)].add(f["pid"])
    row.update(cases=cases, case_s=case_ms / 1e3, first_s=first_ms / 1e3,
               jit_s=jit_ms / 1e3, jit_n=jit_n,
               procs_per_op=(sum(len(p) for p in pids.values()) / len(pids)) if pids else 0.0)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("phases", nargs="+")
    a = ap.parse_args()
    cols = ("phase", "key_affinity", "cuda_sync", "state", "wall_s", "cases", "case_s", "first_s",
            "jit_n", "jit_s", "procs_per_op")
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    bad = 0
    for name in a.phases:
        r = phase(a.outdir, name)
        if "error" in r:
            bad = 1
            print(f"| {name} | {r['error']} |")
            continue
        cells = []
        for c in cols:
            v = r.get(c, "")
            cells.append(f"{v:.1f}" if isinstance(v, float) else str(v))
        print("| " + " | ".join(cells) + " |")
    return bad


if __name__ == "__main__":
    sys.exit(main())
