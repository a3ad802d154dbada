#!/usr/bin/env python3
"""release_diff.py: what changed between two releases of a library, case by
case, from two opscreen databases screened by the same opscreen (one per
release), also when one screen did not finish.

    python3 tools/release_diff.py OLD.db NEW.db [--limit 60]
        [--old-run N] [--new-run M]

Each side is one full screen: the database's newest by default, or the run
named; OLD and NEW may be one database (two screens of one library there:
what changed is the screen's own repeatability).

The daemon computes the release diff itself when a complete screen follows
another on the same database (GET /regressions); this tool is for two
databases, e.g. two releases screened side by side on two GPUs. Cases are
matched by their spec (key, class, dtype, arguments and seed: the same inputs),
so the same case judged by the same rules differs only in the library. A case
counts when both databases hold a judged result for it (pass, fail, timeout,
crash); for each (key, dtype) it prints the cases that went from pass to a
failure (newly failing) and back (newly passing), the new result's reason and
detail, and the keys that only one release registers. Markdown on stdout.
Standard library only.
"""
import argparse
import sqlite3
from collections import Counter, defaultdict

JUDGED = ("pass", "fail", "timeout", "crash")
BAD = ("fail", "timeout", "crash")


def fingerprint(db, run=None):
    """(description, run id) of the newest full screen, or of run `run`."""
    row = db.execute(
        "SELECT f.library, f.library_version, f.torch, f.triton, f.cuda, f.gpu_name, "
        "r.id, r.state, r.done, r.total FROM runs r JOIN run_devices d ON "
        "d.run_id = r.id JOIN fingerprints f ON f.id = d.fingerprint_id "
        "WHERE r.full = 1 AND (?1 IS NULL OR r.id = ?1) ORDER BY r.id DESC "
        "LIMIT 1", (run,)).fetchone()
    if row is None:
        raise SystemExit(f"no full screen{'' if run is None else f' with id {run}'}")
    lib, ver, torch, triton, cuda, gpu, run, state, done, total = row
    return (f"{lib} {ver} (torch {torch}, triton {triton}, CUDA {cuda}, {gpu}); "
            f"run {run}: {state}, {done} of {total} cases"), run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--limit", type=int, default=60, help="rows per table")
    ap.add_argument("--old-run", type=int, help="a full screen of OLD (newest)")
    ap.add_argument("--new-run", type=int, help="a full screen of NEW (newest)")
    a = ap.parse_args()
    db = sqlite3.connect(a.new)
    db.execute("ATTACH ? AS old", (a.old,))
    desc_o, run_o = fingerprint(sqlite3.connect(a.old), a.old_run)
    desc_n, run_n = fingerprint(db, a.new_run)
    print(f"- old: {desc_o}")
    print(f"- new: {desc_n}")
    keys_old = {k for (k,) in db.execute(
        "SELECT DISTINCT key FROM old.cases WHERE run_id = ?", (run_o,))}
    keys_new = {k for (k,) in db.execute(
        "SELECT DISTINCT key FROM main.cases WHERE run_id = ?", (run_n,))}
    rows = db.execute(
        "SELECT n.key, n.dtype, n.class, n.id, o_r.status, n_r.status, n_r.reason, "
        "n_r.detail, o_r.reason FROM main.cases n JOIN main.results n_r ON "
        "n_r.case_id = n.id JOIN old.cases o ON o.spec = n.spec AND o.run_id = ?2 "
        "JOIN old.results o_r ON o_r.case_id = o.id WHERE n.run_id = ?1",
        (run_n, run_o)).fetchall()
    moves = Counter()
    worse, better = defaultdict(list), defaultdict(list)
    for key, dtype, cls, cid, so, sn, reason, detail, oreason in rows:
        if so not in JUDGED or sn not in JUDGED:
            continue
        moves[(so, sn)] += 1
        if so == "pass" and sn in BAD:
            worse[(key, dtype)].append((cid, cls, reason, detail))
        elif so in BAD and sn == "pass":
            better[(key, dtype)].append((cid, cls, oreason, ""))
    print(f"- aten keys: {len(keys_old)} old, {len(keys_new)} new; only in new: "
          f"{len(keys_new - keys_old)}, only in old: {len(keys_old - keys_new)}")
    print(f"- cases judged in both: {sum(moves.values())} "
          f"(same spec: same inputs and seed)\n")
    print("| old \\ new | " + " | ".join(JUDGED) + " |\n|---|" + "---|" * len(JUDGED))
    for so in JUDGED:
        print(f"| {so} | " + " | ".join(str(moves[(so, sn)]) for sn in JUDGED) + " |")
    for title, groups, what in (
            ("Newly failing (passed in old, fails in new)", worse, "new result"),
            ("Newly passing (failed in old, passes in new)", better, "old reason")):
        print(f"\n### {title}: {len(groups)} key x dtype, "
              f"{sum(len(v) for v in groups.values())} cases\n")
        print(f"| key | dtype | cases | classes | {what} | case (new db) |\n"
              "|---|---|---|---|---|---|")
        for (key, dtype), cs in sorted(groups.items())[:a.limit]:
            cid, _, reason, detail = cs[0]
            classes = ",".join(sorted({c[1] for c in cs}))
            text = f"{reason}: {detail[:110]}" if detail else reason
            print(f"| {key} | {dtype} | {len(cs)} | {classes} | "
                  f"{text.replace('|', '/').replace(chr(10), ' ')} | {cid} |")
        if len(groups) > a.limit:
            print(f"\n({len(groups) - a.limit} more)")
    for title, keys in (("Only in new", keys_new - keys_old),
                        ("Only in old", keys_old - keys_new)):
        print(f"\n{title} ({len(keys)}): " + ", ".join(sorted(keys)))


if __name__ == "__main__":
    main()
