#!/usr/bin/env python3
"""nightly_growth.py TREE N OUT.csv [key=value ...]: N simulated nightly
screens of the whole demo library with TREE's build/opscreend and TREE's
runner (its e2e harness), carrying verdicts as a nightly host does
(runner.carry = yes: each night measures the keys that are due and carries
the rest), one after another on one daemon; after each, the database's
size (file and WAL, after a checkpoint) and its row counts go to OUT.csv.
Extra key=value pairs are configuration overrides (store__keep_runs=14).
Two trees, or one tree with and without store.keep_runs, side by side say
how a nightly host's store grows (docs/design.md, "Retention")."""
import csv
import os
import pathlib
import sqlite3
import sys
import tempfile
import time


def sizes(db):
    c = sqlite3.connect(db)
    try:
        c.execute("PRAGMA wal_checkpoint(PASSIVE)")
        row = {t: c.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
               for t in ("runs", "cases", "results", "verdicts")}
        row["freelist_pages"] = c.execute("PRAGMA freelist_count").fetchone()[0]
    finally:
        c.close()
    row["db_bytes"] = os.path.getsize(db)
    wal = db + "-wal"
    row["wal_bytes"] = os.path.getsize(wal) if os.path.exists(wal) else 0
    return row


def main(tree, n, out, *pairs):
    sys.path.insert(0, f"{tree}/tests/e2e")
    import e2e_harness
    conf = dict(runner__carry="yes")
    for p in pairs:
        k, v = p.split("=", 1)
        conf[k] = v
    d = e2e_harness.Daemon(pathlib.Path(tempfile.mkdtemp(prefix="nightly-")),
                           **conf).start()
    try:
        d.wait_fingerprint()
        with open(out, "w", newline="") as f:
            w = None
            for night in range(1, int(n) + 1):
                t0 = time.time()
                st, body = d.post_run({})
                assert st == 202, body
                run = d.wait_run(body["run"])
                assert run["state"] == "complete", run
                row = dict(night=night, run=body["run"], wall_s=round(time.time() - t0, 1),
                           carried=run.get("carried"), **sizes(d.db))
                if w is None:
                    w = csv.DictWriter(f, fieldnames=list(row))
                    w.writeheader()
                w.writerow(row)
                f.flush()
                print(row, flush=True)
    finally:
        d.stop()


if __name__ == "__main__":
    main(*sys.argv[1:])
