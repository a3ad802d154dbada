"""A cold screen's bound beside its run wall: GET /runs/{id} "compile", the
Triton compile() wall of the run's own first calls (RESULT
first_call_cost.jit_ms; carried results not counted) over the CPUs the
daemon had (its run_complete event's "cores").

The demo library has no Triton, so its results carry no first_call_cost:
the test writes some into a copy of the session's float32 x same_shape
screen whose run it has made interrupted (its last cases without results),
and the daemon resumes and completes it: the writer sums the figures into
the run_complete event once, as it completes. A run completed by an older
daemon (no compile_s in its event) is summed by GET /runs/{id} itself."""
import json
import os
import sqlite3

from e2e_harness import F32_WHOLE, Daemon, daemon_on_copy, shared_screen

SCOPE = dict(F32_WHOLE, runner__carry="no")


def _compile(d, run, cores):
    st, out = d.get_json(f"/runs/{run}")
    assert st == 200, out
    c = out["compile"]
    assert c["first_calls"] == 20 and abs(c["compile_s"] - 30.0) < 1e-9, c
    assert c["cores"] == cores and abs(c["bound_s"] - 30.0 / cores) < 1e-9, c
    wall = out["finished"] - out["started"]
    assert abs(c["wall_s"] - wall) < 1e-6 and abs(c["of_bound"] - wall / c["bound_s"]) < 1e-6
    return c


def test_the_compile_bound_is_beside_the_run_wall(tmp_path, tmp_path_factory):
    src, run = shared_screen(tmp_path_factory, "f32-same-shape", **F32_WHOLE)
    d = daemon_on_copy(tmp_path / "d", src, **SCOPE).start()
    try:
        st, before = d.get_json(f"/runs/{run}")
        assert st == 200 and "compile" not in before, before
    finally:
        d.stop()
    db = sqlite3.connect(d.db)
    (ev,) = [json.loads(j) for (j,) in db.execute(
        "SELECT json FROM events WHERE run_id = ? AND kind = 'run_complete'", (run,))]
    cores = ev["cores"]
    assert cores == len(os.sched_getaffinity(0)), ev
    # the writer summed the run's figures when it completed: none measured
    assert ev["compile_s"] == 0 and ev["first_calls"] == 0, ev
    ids = [i for (i,) in db.execute(
        "SELECT c.id FROM cases c JOIN results r ON r.case_id = c.id WHERE "
        "c.run_id = ? AND r.figures IS NOT NULL ORDER BY c.id LIMIT 21", (run,))]
    db.executemany("UPDATE results SET figures = json_set(figures, "
                   "'$.first_call_cost', json('{\"jit_ms\": 1500}')) WHERE case_id = ?",
                   [(i,) for i in ids])
    # a carried result's compile was another run's
    db.execute("UPDATE results SET carried_from = ? WHERE case_id = ?", (ids[0], ids[-1]))
    # the run interrupted before its last five cases: the daemon resumes it
    last = [i for (i,) in db.execute(
        "SELECT c.id FROM cases c JOIN results r ON r.case_id = c.id WHERE "
        "c.run_id = ? ORDER BY c.id DESC LIMIT 5", (run,))]
    assert not set(last) & set(ids), (last, ids)
    db.executemany("DELETE FROM results WHERE case_id = ?", [(i,) for i in last])
    db.executemany("UPDATE cases SET state = 'pending' WHERE id = ?", [(i,) for i in last])
    db.execute("DELETE FROM events WHERE run_id = ? AND kind IN ('run_complete', "
               "'shrinks_done')", (run,))
    db.execute("DELETE FROM verdicts WHERE run_id = ?", (run,))
    db.execute("UPDATE runs SET state = 'running', finished = NULL, done = done - 5 "
               "WHERE id = ?", (run,))
    db.commit()
    db.close()
    d = Daemon(tmp_path / "d", **SCOPE).start()
    try:
        done = d.wait_run(run)
        assert done["state"] == "complete", (done, d.logtext())
        _compile(d, run, cores)
    finally:
        d.stop()
    db = sqlite3.connect(d.db)
    (ev,) = [json.loads(j) for (j,) in db.execute(
        "SELECT json FROM events WHERE run_id = ? AND kind = 'run_complete'", (run,))]
    assert ev["compile_s"] == 30.0 and ev["first_calls"] == 20, ev
    # a run an older daemon completed has no sum in its event: GET sums it
    db.execute("UPDATE events SET json = json_remove(json, '$.compile_s', "
               "'$.first_calls') WHERE run_id = ? AND kind = 'run_complete'", (run,))
    db.commit()
    db.close()
    d = Daemon(tmp_path / "d", **SCOPE).start()
    try:
        _compile(d, run, cores)
    finally:
        d.stop()
