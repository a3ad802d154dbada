"""store.keep_runs: when a run completes, the runs before the keep-th newest
complete one lose their cases and results, except what is still read (the
evidence of every verdict, the measurements kept results were carried
from); runs, verdicts and events stay, and the lists answer as before.
Against the real daemon and runner, on a copy of the session's small
screen (run 1) and two more screens of it."""
import sqlite3

from e2e_harness import SMALL, daemon_on_copy, shared_screen

SCOPE = dict(SMALL, store__keep_runs=2)


def _one(db, sql, *args):
    return db.execute(sql, args).fetchone()[0]


def test_older_runs_lose_what_nothing_reads(tmp_path, tmp_path_factory):
    src, first = shared_screen(tmp_path_factory, "small", **SMALL)
    d = daemon_on_copy(tmp_path / "d", src, **SCOPE).start()
    try:
        d.wait_fingerprint()
        db = sqlite3.connect(f"file:{d.db}?mode=ro", uri=True)
        cases1 = _one(db, "SELECT count(*) FROM cases WHERE run_id = ?", first)
        evidence = {i for (i,) in db.execute(
            "SELECT evidence_case FROM verdicts WHERE run_id = ? AND "
            "evidence_case IS NOT NULL", (first,))}
        db.close()
        assert cases1 > 20 and evidence, (cases1, evidence)
        runs, lists = [], []
        for _ in range(2):
            st, out = d.post_run({})
            assert st == 202, out
            run = d.wait_run(out["run"])
            assert run["state"] == "complete", (run, d.logtext())
            runs.append(out["run"])
            lists.append((d.get_json("/allowlist")[1]["names"],
                          sorted(e["name"] for e in d.get_json("/denylist")[1]["names"])))
        # the second complete run after the first made it the third newest
        log = d.logtext()
        assert "pruned (store.keep_runs)" in log, log[-3000:]
        db = sqlite3.connect(f"file:{d.db}?mode=ro", uri=True)
        try:
            left = {i for (i,) in db.execute(
                "SELECT id FROM cases WHERE run_id = ?", (first,))}
            # what a verdict names stays, with its result and repro
            assert evidence <= left, (evidence, left)
            assert _one(db, "SELECT count(*) FROM results r JOIN cases c ON "
                        "c.id = r.case_id WHERE c.run_id = ? AND r.repro IS NOT NULL",
                        first) >= 1
            # so does every measurement a kept result was carried from
            origins = {i for (i,) in db.execute(
                "SELECT r.carried_from FROM results r JOIN cases c ON c.id = "
                "r.case_id WHERE c.run_id >= ? AND r.carried_from IS NOT NULL",
                (runs[0],))}
            assert origins <= {i for (i,) in db.execute("SELECT id FROM cases")}
            # and the rest of run 1 went
            assert len(left) < cases1, (len(left), cases1)
            # the kept runs are whole; every run and verdict row stays
            for r in runs:
                assert _one(db, "SELECT count(*) FROM cases WHERE run_id = ?", r) == \
                    _one(db, "SELECT total FROM runs WHERE id = ?", r)
            assert _one(db, "SELECT count(*) FROM runs WHERE id IN (?, ?, ?)",
                        first, *runs) == 3
            assert _one(db, "SELECT count(*) FROM verdicts WHERE run_id = ?", first) > 0
            assert db.execute("PRAGMA foreign_key_check").fetchone() is None
        finally:
            db.close()
        # the lists, the run and its history still answer
        assert lists[0] == lists[1], lists
        st, r1 = d.get_json(f"/runs/{first}")
        assert st == 200 and r1["state"] == "complete", r1
        for i in evidence:      # run 1's evidence, as its history shows it
            st, case = d.get_json(f"/cases/{i}")
            assert st == 200 and case["repro"], (i, st, case)
        st, deny = d.get_json("/denylist")
        assert st == 200
        measured = [e for e in deny["names"] if e.get("evidence")]
        assert measured, deny
        for e in measured:      # the withheld ones have no evidence
            st, case = d.get_json(f"/cases/{e['evidence'][0]['case']}")
            assert st == 200 and case["repro"], (e["name"], st)
    finally:
        d.stop()
