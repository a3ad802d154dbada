"""A runner fails in the middle of a full screen: it is killed (SIGKILL, as
the OOM killer does), stopped (SIGSTOP: alive but never answering), or the
library writes garbage on the runner's private channel. The daemon records
the case in flight (crash or timeout, with its evidence), starts a fresh
runner, runs the lost case again alone before the run completes (it is
charged only when it is lost again), and finishes the run with every case
stored once; it keeps serving
throughout, nothing of the run is served before it completes, and every key
the fault did not touch gets the verdicts of an undisturbed screen."""
import os
import signal
import time

import pytest

from e2e_harness import SLOWED, SMALL, Daemon, shared_screen, children, query

# the operator's own scope: SMALL's five ops of float32 x same_shape,
# still the host's full screen (it serves lists)
SCOPE = SMALL
VERDICTS = ("SELECT device, key, dtype, verdict, reason FROM verdicts "
            "WHERE run_id=?")


@pytest.fixture(scope="module")
def reference(tmp_path_factory, daemon_bin):
    """The verdicts of one undisturbed full screen in the same scope (the
    session's, tests/e2e/e2e_harness.py shared_screen)."""
    src, run = shared_screen(tmp_path_factory, "small", **SCOPE)
    db = str(src / "opscreen.db")
    verdicts = {r[:3]: r[3:] for r in query(db, VERDICTS, (run,))}
    # the demo library's own planted crash (rsqrt)
    failures = query(db, "SELECT c.key, r.status FROM results r JOIN "
                     "cases c ON c.id = r.case_id WHERE c.run_id=? AND "
                     "r.status IN ('crash', 'timeout')", (run,))
    planted, kinds = {}, {}
    for key, status in failures:
        planted[key] = planted.get(key, 0) + 1
        kinds.setdefault(key, []).append(status)
    return verdicts, planted, {k: sorted(v) for k, v in kinds.items()}


def _own_session(pid):
    try:
        return os.getsid(pid) == pid
    except OSError:
        return False


def _wait_done(d, run_id, share):
    deadline = time.time() + 240
    while time.time() < deadline:
        st, run = d.get_json(f"/runs/{run_id}")
        if run["total"] and run["done"] >= share * run["total"]:
            return run
        time.sleep(0.2)
    raise AssertionError(f"run {run_id} did not reach {share}: {run}")


def _finish_and_check(d, run_id, reference):
    """The run completes with every case stored once; returns its results
    by key as {key: [(status, reason, detail, stderr_tail)]}."""
    run = d.wait_run(run_id)
    assert run["state"] == "complete" and run["full"] == 1, (run, d.logtext())
    (cases,) = query(d.db, "SELECT count(*) FROM cases WHERE run_id=?", (run_id,))[0]
    (results, distinct) = query(d.db, "SELECT count(*), count(DISTINCT r.case_id) "
                             "FROM results r JOIN cases c ON c.id = r.case_id "
                             "WHERE c.run_id=?", (run_id,))[0]
    (pending,) = query(d.db, "SELECT count(*) FROM cases WHERE run_id=? AND "
                    "state='pending'", (run_id,))[0]
    assert cases == results == distinct == run["total"] == run["done"], \
        (cases, results, distinct, run)
    assert pending == 0
    assert query(d.db, "PRAGMA foreign_key_check") == []
    st, h = d.get_json("/healthz")
    assert st == 200 and h["status"] == "ok", h
    st, allow = d.get_json("/allowlist")
    assert st == 200 and allow["runs"][0]["run"] == run_id, allow
    by_key = {}
    for key, status, reason, detail, tail in query(
            d.db, "SELECT c.key, r.status, r.reason, r.detail, "
            "coalesce(r.stderr_tail, '') FROM results r JOIN cases c ON "
            "c.id = r.case_id WHERE c.run_id=?", (run_id,)):
        by_key.setdefault(key, []).append((status, reason, detail, tail))
    return by_key


def _untouched_equal(d, run_id, reference, touched):
    reference = reference[0]
    got = {r[:3]: r[3:] for r in query(d.db, VERDICTS, (run_id,))}
    diff = {k: (reference.get(k), got.get(k)) for k in set(reference) | set(got)
            if k[1] not in touched and reference.get(k) != got.get(k)}
    assert diff == {}, diff


@pytest.mark.parametrize("sig", ["SIGKILL", "SIGSTOP"])
def test_a_runner_killed_or_stopped_mid_screen(tmp_path, daemon_bin, reference,
                                              sig):
    # a stopped runner is found by the case deadline (15 s here: the demo
    # library's entry points have cases of 2-5 s on a loaded 2-core host,
    # and at 5 s two of them timed out beside the killed case)
    # correct ops slowed (a sleep per call): the run lasts past the kill
    # and the checks beside it, whichever case the runner was in
    d = Daemon(tmp_path / "d", runner__case_deadline=15,
               runner__cpu_case_deadline=15, env=SLOWED, **SCOPE).start()
    try:
        d.wait_fingerprint()
        st, out = d.post_run({})
        assert st == 202, out
        run_id = out["run"]
        _wait_done(d, run_id, 0.25)
        # the one runner may be between two processes (a fresh one after
        # the planted crash): wait for one that has its own session (a
        # runner forked by the pool a moment ago is still in the pool's)
        deadline = time.time() + 120
        while not (victims := [p for p in children(d.proc.pid, b"opscreen_runner")
                               if _own_session(p)]):
            assert time.time() < deadline, "no runner to fail"
            time.sleep(0.02)
        os.kill(victims[0], getattr(signal, sig))
        # the daemon keeps serving while the runner is gone or stuck, and
        # serves nothing of the incomplete run
        for _ in range(10):
            st, _, body = d.get("/healthz")
            assert st == 200
            st, _, body = d.get("/allowlist?format=yaml")
            assert st == 503 and b"include: []" in body, body
            time.sleep(0.2)
        by_key = _finish_and_check(d, run_id, reference)
        # the case in flight, if the runner had one, was lost (a crash by
        # the signal, or a timeout at the deadline) and ran again alone in
        # a fresh runner before the run completed: it gave its result
        # there, which is its own, and the cases skipped after it ran.
        # Every verdict is the undisturbed screen's, and the lost cases
        # charged are the demo's planted ones only
        _untouched_equal(d, run_id, reference, set())
        alone = query(d.db, "SELECT c.key, r.status, r.alone, r.alone_detail "
                      "FROM results r JOIN cases c ON c.id = r.case_id WHERE "
                      "c.run_id=? AND r.alone IS NOT NULL", (run_id,))
        want = ("crash", "signal 9") if sig == "SIGKILL" else ("timeout", "deadline")
        freed = [a for a in alone if a[2] == "not_reproduced"]
        assert len(freed) <= 1, alone
        for key, status, _, first in freed:
            assert first.startswith(want[0] + ":") and want[1] in first, freed
            assert status != want[0], freed
        # (the planted crash's case itself may have been the one in
        # flight: lost to the signal first, it crashed again alone)
        failed = {k: sum(r[0] in ("crash", "timeout") for r in rs)
                  for k, rs in by_key.items()}
        assert {k: n for k, n in failed.items() if n} == reference[1], failed
        assert sorted(a[0] for a in alone if a[2] == "reproduced") == \
            sorted(k for k, v in reference[2].items() for _ in v), alone
        st, run = d.get_json(f"/runs/{run_id}")
        assert run["alone"] == {"reproduced": sum(reference[1].values()),
                                "not_reproduced": len(freed)}, run
        assert victims[0] not in children(d.proc.pid, b"opscreen_runner")
        assert len(children(d.proc.pid, b"opscreen_runner")) >= 1   # a fresh one took its place
    finally:
        d.stop()


@pytest.mark.parametrize("kind", ["frame", "huge", "bytes", "message"])
def test_garbage_on_the_runner_channel(tmp_path, daemon_bin, reference, kind):
    d = Daemon(tmp_path / "d", env={"OPSCREEN_DEMOLIB_GARBAGE": f"neg:{kind}"},
               **SCOPE).start()
    try:
        d.wait_fingerprint()
        st, out = d.post_run({})
        assert st == 202, out
        by_key = _finish_and_check(d, out["run"], reference)
        neg = by_key["neg"]
        if kind == "message":
            # a well-formed result for a case not in flight is ignored; the
            # real one follows and is judged as in an undisturbed screen
            assert "result for case 999999999" in d.logtext()
            _untouched_equal(d, out["run"], reference, set())
        else:
            # a runner that breaks the framing is ended and its case recorded
            # as a crash (a frame that is no JSON, or past the bound) or, for
            # bytes that read as the length of a frame that never comes, a
            # timeout at the case deadline: the name is denied, never allowed
            want = ("timeout",) if kind == "bytes" else ("crash",)
            assert any(r[0] in want for r in neg), neg
            st, allow = d.get_json("/allowlist")
            assert "neg" not in allow["names"], allow
            st, deny = d.get_json("/denylist")
            assert "neg" in [e["name"] for e in deny["names"]], deny
            _untouched_equal(d, out["run"], reference, {"neg"})
    finally:
        d.stop()
