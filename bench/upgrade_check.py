#!/usr/bin/env python3
"""upgrade_check.py: an upgrade's incremental screen against a full screen
of the same release (issue 23's measurement).

    python3 bench/upgrade_check.py UPGRADE_DB FULL_DB [--upgrade-run N]
        [--full-run N] [--known KEY,KEY...]

UPGRADE_DB holds the screen that followed another release's on the same
database with runner.carry on (bench/gpu_full.sh `upgrade:PHASE`); FULL_DB
a screen of the new release that measured every key (its own database, or
the same one: then name the runs).  Runs default to the newest complete
run of each database.  A database may be .xz (unpacked to a temporary
file).

Prints, from the upgrade run's `carry` event(s) and its results: the keys
carried, changed or new and refreshed, the cases carried and measured; the
two runs' walls (finished - started) and their ratio; then every key x
dtype verdict of a carried key that differs from the full screen's
(verdict, reason or severity), marked `known` where either screen marks
the key x dtype nondeterministic or --known names the key.  Exit status 2
when a carried verdict differs beyond the known ones (issue 23: "any
difference beyond the known nondeterministic keys is a bug"), 1 on an
unusable input, else 0.  Standard library only.
"""
import argparse
import json
import os
import sys

from compile_overlap import open_db  # the database, .xz unpacked to a temporary file


def run_row(db, run):
    row = db.execute("SELECT state, started, finished FROM runs WHERE id = ?",
                     (run,)).fetchone()
    if row is None:
        return None
    return {"state": row[0], "started": row[1], "finished": row[2]}


def verdicts(db, run):
    cols = {r[1] for r in db.execute("PRAGMA table_info(verdicts)")}
    nd = "nondeterministic" if "nondeterministic" in cols else "0"
    return {(k, dt): (v, reason, sev, nondet) for k, dt, v, reason, sev, nondet in
            db.execute(f"SELECT key, dtype, verdict, reason, severity, {nd} FROM "
                       "verdicts WHERE run_id = ?", (run,))}


def carry_events(db, run):
    return [json.loads(j) for (j,) in db.execute(
        "SELECT json FROM events WHERE run_id = ? AND kind = 'carry' ORDER BY id",
        (run,))]


def check(up_db, up_run, full_db, full_run, known):
    """The report's lines and the count of unexplained differences."""
    out = []
    ru, rf = run_row(up_db, up_run), run_row(full_db, full_run)
    for name, r, n in (("upgrade", ru, up_run), ("full", rf, full_run)):
        if r is None or r["state"] != "complete" or not r["started"] or not r["finished"]:
            raise ValueError(f"{name} run {n} is {r and r['state']}, not complete")
    evs = carry_events(up_db, up_run)
    if not evs:
        raise ValueError(f"upgrade run {up_run} has no carry event: it carried nothing "
                         "(runner.carry off, or no earlier screen to carry from)")
    carried, changed, refreshed = set(), set(), set()
    for e in evs:
        carried |= set(e.get("carried") or [])
        changed |= set(e.get("changed") or [])
        refreshed |= set(e.get("refreshed") or [])
    n_cases, n_carried = up_db.execute(
        "SELECT count(*), count(r.carried_from) FROM cases c JOIN results r ON "
        "r.case_id = c.id WHERE c.run_id = ?", (up_run,)).fetchone()
    keys = len(carried | changed | refreshed)
    out.append(f"upgrade run {up_run}: {keys} keys, {len(carried)} carried, "
               f"{len(changed)} changed or new, {len(refreshed)} refreshed "
               f"(source run {evs[0].get('source')}, same library: "
               f"{bool(evs[0].get('same_library'))})")
    out.append(f"cases: {n_cases}, {n_carried} carried, {n_cases - n_carried} measured")
    wu = ru["finished"] - ru["started"]
    wf = rf["finished"] - rf["started"]
    out.append(f"run wall: upgrade {wu:.1f} s, full screen (run {full_run}) {wf:.1f} s, "
               f"ratio {wu / wf:.3f}")
    vu, vf = verdicts(up_db, up_run), verdicts(full_db, full_run)
    compared, rows, bad = 0, [], 0
    for k in sorted(vu):
        if k[0] not in carried or k not in vf:
            continue
        compared += 1
        a, b = vu[k], vf[k]
        if a[:3] == b[:3]:
            continue
        why = "known" if (a[3] or b[3] or k[0] in known) else ""
        bad += why == ""
        rows.append(f"| {k[0]} | {k[1]} | {a[0]} {a[1]} {a[2]} | {b[0]} {b[1]} {b[2]} | {why} |")
    out.append(f"carried key x dtype verdicts compared with the full screen: {compared}, "
               f"{len(rows)} differ, {bad} beyond the known nondeterministic ones")
    if rows:
        out.append("")
        out.append("| key | dtype | carried (verdict reason severity) | full screen | |")
        out.append("|---|---|---|---|---|")
        out.extend(rows)
    return out, bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("upgrade_db")
    ap.add_argument("full_db")
    ap.add_argument("--upgrade-run", type=int)
    ap.add_argument("--full-run", type=int)
    ap.add_argument("--known", default="", help="keys known to be nondeterministic, comma separated")
    a = ap.parse_args()
    tmps = []
    try:
        up, t = open_db(a.upgrade_db)
        tmps.append(t)
        full, t = open_db(a.full_db)
        tmps.append(t)
        newest = "SELECT max(id) FROM runs WHERE state = 'complete'"
        ur = a.upgrade_run or up.execute(newest).fetchone()[0]
        fr = a.full_run or full.execute(newest).fetchone()[0]
        lines, bad = check(up, ur, full, fr, {k for k in a.known.split(",") if k})
    except (ValueError, OSError) as e:
        print(f"upgrade_check: {e}", file=sys.stderr)
        return 1
    finally:
        for t in tmps:
            if t:
                os.unlink(t)
    print("\n".join(lines))
    return 2 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
