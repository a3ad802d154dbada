"""A lost case (a timeout, or a runner that died in it: a crash) runs again
alone before it is charged: once every other case of its run is done, in a
fresh runner with nothing else on its device and runner.alone_factor times
its deadline (docs/design.md, "A hang or crash is confirmed alone"). Lost
again, it stands and says so; given a result alone, that result is the
case's, the cases skipped after it run, and the run's counts say so. The
run completes (and its lists are served) only after."""
import os
import re
import signal
import time

from e2e_harness import Daemon, children, query

SCOPE = {"runner__dtypes": "float32", "runner__classes": "same_shape"}


def _screen(d):
    d.wait_fingerprint()
    st, out = d.post_run({})
    assert st == 202, out
    run = d.wait_run(out["run"])
    assert run["state"] == "complete", (run, d.logtext())
    return out["run"]


def _cases(d, run, key):
    return query(d.db, "SELECT c.id, r.status, r.reason, r.detail, r.alone, "
                 "r.alone_detail FROM cases c JOIN results r ON r.case_id = "
                 "c.id WHERE c.run_id=? AND c.key=? ORDER BY c.id", (run, key))


def _verdict(d, run, key):
    return query(d.db, "SELECT verdict, reason, detail FROM verdicts WHERE "
                 "run_id=? AND key=? AND dtype='float32'", (run, key))[0]


def _stored_once(d, run):
    (cases, results, pending) = query(
        d.db, "SELECT count(*), count(r.case_id), sum(c.state = 'pending') "
        "FROM cases c LEFT JOIN results r ON r.case_id = c.id WHERE "
        "c.run_id=?", (run,))[0]
    st, r = d.get_json(f"/runs/{run}")
    assert cases == results == r["total"] == r["done"] and pending == 0, \
        (cases, results, pending, r)
    return r


def test_a_case_lost_once_is_judged_by_its_result_alone(tmp_path, daemon_bin):
    """tanh hangs in the first call that makes OPSCREEN_DEMOLIB_HANG_ONCE's
    file, and is right in every call after: the case it hung in is lost
    (timeout) and the rest of its key and dtype skipped; run alone, it
    passes, the skipped cases run and pass, and tanh is verified."""
    once = tmp_path / "hung"
    # one runner: the cases of tanh after the hang wait, skipped, for it
    d = Daemon(tmp_path / "d", runner__ops="tanh,sub", runner__cpu_case_deadline=4,
               runner__workers_per_device=1, runner__compile_workers=0,
               env={"OPSCREEN_DEMOLIB_HANG_ONCE": str(once)}, **SCOPE).start()
    try:
        run = _screen(d)
        assert once.exists()
        tanh = _cases(d, run, "tanh")
        freed = [c for c in tanh if c[4] is not None]
        assert len(freed) == 1 and len(tanh) > 2, tanh
        _, status, _, _, alone, first = freed[0]
        assert (status, alone) == ("pass", "not_reproduced"), freed
        assert first.startswith("timeout: no result within the 4 s case "
                                "deadline"), first
        # nothing of its key and dtype is left skipped: every case ran
        assert {c[1] for c in tanh} == {"pass"}, tanh
        assert _verdict(d, run, "tanh")[0] == "verified"
        r = _stored_once(d, run)
        assert r["alone"] == {"reproduced": 0, "not_reproduced": 1}, r
        assert not any(x["status"] in ("timeout", "crash")
                       for x in r["cases_by_status"]), r
        st, allow = d.get_json("/allowlist")
        assert st == 200 and "tanh" in allow["names"], allow
        st, _, m = d.get("/metrics")
        assert b'opscreen_last_run_alone_cases{outcome="not_reproduced"} 1' in m
        assert b'opscreen_last_run_alone_cases{outcome="reproduced"} 0' in m
        log = d.logtext()
        assert re.search(r"case \d+ \(tanh float32\): not lost when run alone: "
                         r"pass", log), log[-3000:]
        assert re.search(r"\d+ cases skipped after it queued again", log), log[-3000:]
    finally:
        d.stop()


def test_a_hang_and_a_crash_lost_again_alone_stand(tmp_path, daemon_bin):
    """The demo's own hang (tanh) and abort (rsqrt) are lost again alone:
    each stands as a timeout or crash and its detail, the deny-list's
    evidence, says it was reproduced alone. A daemon killed while a lost
    case runs alone runs it alone again when it resumes the run."""
    d = Daemon(tmp_path / "d", runner__ops="tanh,rsqrt,sub",
               runner__cpu_case_deadline=3, runner__alone_factor=3,
               runner__workers_per_device=1, runner__compile_workers=0,
               **SCOPE).start()
    try:
        d.wait_fingerprint()
        st, out = d.post_run({})
        assert st == 202, out
        run = out["run"]
        # killed while tanh's lost case runs alone (9 s): nothing of it
        # is stored, and the resumed run runs it alone again
        deadline = time.time() + 300
        while not re.search(r"\(tanh float32\): run again alone", d.logtext()):
            assert time.time() < deadline, d.logtext()[-3000:]
            time.sleep(0.1)
        kids = children(d.proc.pid)
        d.proc.send_signal(signal.SIGKILL)
        d.proc.wait()
        d.logf.close()
        for p in kids:      # the runner in the hang never reads its EOF
            try:
                os.killpg(p, signal.SIGKILL)
            except OSError:
                pass
        assert query(d.db, "SELECT count(*) FROM results r JOIN cases c ON "
                     "c.id = r.case_id WHERE c.run_id=? AND r.alone IS NOT "
                     "NULL AND c.key='tanh'", (run,))[0][0] == 0
        d.start()
        d.wait_fingerprint()
        r = d.wait_run(run)
        assert r["state"] == "complete", (r, d.logtext())
        for key, status, how in (("tanh", "timeout", "no result within 9 s"),
                                 ("rsqrt", "crash", "signal 6")):
            lost = [c for c in _cases(d, run, key) if c[1] == status]
            assert len(lost) == 1, _cases(d, run, key)
            _, _, _, detail, alone, again = lost[0]
            assert alone == "reproduced", lost
            assert again.startswith("reproduced alone: ") and how in again, again
            assert detail.endswith("; " + again), detail
            v = _verdict(d, run, key)
            assert v[:2] == ("broken", status), v
        r = _stored_once(d, run)
        assert r["alone"] == {"reproduced": 2, "not_reproduced": 0}, r
        st, deny = d.get_json("/denylist")
        tanh = next(e for e in deny["names"] if e["name"] == "tanh")
        assert "reproduced alone: no result within 9 s" in tanh["detail"], tanh
        st, allow = d.get_json("/allowlist")
        assert st == 200 and allow["names"] == ["sub"], allow
    finally:
        d.stop()


def test_alone_factor_0_charges_a_lost_case_at_once(tmp_path, daemon_bin):
    """runner.alone_factor = 0: the case tanh hung in once is charged as
    the timeout it was (nothing runs alone)."""
    once = tmp_path / "hung"
    d = Daemon(tmp_path / "d", runner__ops="tanh", runner__cpu_case_deadline=3,
               runner__alone_factor=0,
               env={"OPSCREEN_DEMOLIB_HANG_ONCE": str(once)}, **SCOPE).start()
    try:
        run = _screen(d)
        assert _verdict(d, run, "tanh")[:2] == ("broken", "timeout")
        r = _stored_once(d, run)
        assert r["alone"] == {"reproduced": 0, "not_reproduced": 0}, r
    finally:
        d.stop()
