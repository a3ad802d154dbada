"""runner.shrink_after (default yes): a run completes, and its lists are
served, before its failing cases are shrunk; the shrinks then run on the idle
runners and the deny-list's evidence becomes the shrunk case as each ends; a
new run stops them. The demo minimum gets broadcasting wrong; each of its
calls takes OPSCREEN_DEMOLIB_DELAY more, so a shrink's variants take seconds
and the lists can be read while they run."""
import json
import time

import pytest

from e2e_harness import Daemon, query

# the host's scope: the run is its full screen (it serves lists)
SCOPE = dict(runner__classes="broadcast", runner__dtypes="float32",
             runner__workers_per_device=2, runner__compile_workers=0)
SLOW = {"OPSCREEN_DEMOLIB_DELAY": "minimum:0.5"}


def _minimum(d):
    st, deny = d.get_json("/denylist")
    assert st == 200, deny
    [e] = [e for e in deny["names"] if e["name"] == "minimum"]
    return e


def _wait_shrinks(d, rid, timeout=300):
    deadline = time.time() + timeout
    while time.time() < deadline:
        ev = d.shrinks_done(rid)
        if ev is not None:
            return ev
        time.sleep(0.3)
    raise AssertionError("no shrinks_done event: " + d.logtext())


def _completed(d):
    """Runs a full screen on d; its id once it is complete, its shrinks
    not waited for."""
    d.wait_fingerprint()
    st, out = d.post_run({})
    assert st == 202, out
    run = d.wait_run(out["run"], shrinks=False)
    assert run["state"] == "complete" and run["full"] == 1, run
    return out["run"]


@pytest.fixture
def daemon(tmp_path):
    d = Daemon(tmp_path / "d", env=SLOW, **SCOPE).start()
    yield d
    d.stop()


def test_lists_are_served_before_the_failing_cases_shrink(daemon):
    d = daemon
    rid = _completed(d)
    # the run is complete and the lists are served while minimum's failure
    # is still being shrunk: its evidence is the generated case
    st, allow = d.get_json("/allowlist")
    assert st == 200 and allow["names"], allow
    st, now = d.get_json(f"/runs/{rid}")
    assert now["progress"]["shrinking"]["left"] >= 1, now
    assert d.shrinks_done(rid) is None
    before = _minimum(d)
    assert not any(ev.get("shrunk") for ev in before["evidence"]), before
    ev = _wait_shrinks(d, rid)
    assert ev["shrinks"] >= 1 and ev["shrunk"] >= 1 and not ev["stopped"], ev
    assert ev["dropped"] == 0 and ev["runs"] >= ev["shrunk"], ev
    # then the deny-list shows the shrunk case: smaller, the same failure,
    # its repro the shrunk case's; the verdicts and the allow-list are the same
    after = _minimum(d)
    shown = [e for e in after["evidence"] if e.get("shrunk")]
    assert shown and after["reason"] == before["reason"], after
    st, case = d.get_json(f"/cases/{shown[0]['case']}")
    spec, shrunk = (v if isinstance(v, dict) else json.loads(v)
                    for v in (case["spec"], case["shrunk_spec"]))
    assert shrunk["args"][0]["shape"] != spec["args"][0]["shape"], case
    assert case["shrink_runs"] >= 1 and case["shrink_ms"] > 0, case
    assert str(shrunk["args"][0]["shape"]).replace(" ", "") in \
        case["repro"].replace(" ", ""), case["repro"]
    st, allow2 = d.get_json("/allowlist")
    assert st == 200 and allow2["names"] == allow["names"]
    assert "shrinking" not in d.get_json(f"/runs/{rid}")[1].get("progress", {})
    # the shrinks are not charged to the run's keys and change no verdict
    assert query(d.db, "SELECT count(*) FROM verdicts WHERE run_id=? AND "
                 "key LIKE 'minimum%' AND verdict='broken'", (rid,))[0][0] >= 1


def test_a_new_run_stops_the_shrinks(daemon):
    d = daemon
    first = _completed(d)
    st, out = d.post_run({})
    assert st == 202, out
    ev = _wait_shrinks(d, first)
    # the variant in flight ended, nothing else of the first run shrank
    assert ev["stopped"], ev
    assert ev["shrunk"] + ev["dropped"] <= ev["shrinks"], ev
    run = d.wait_run(out["run"])
    assert run["state"] == "complete", run
    # the second run's failures shrink after it, as usual
    ev2 = d.shrinks_done(out["run"])
    assert ev2["shrinks"] >= 1 and not ev2["stopped"], ev2
    with open(d.log, errors="replace") as f:
        assert "shrinking after its lists stopped (a new run started)" in f.read()


def test_shrinks_inside_the_run_without_shrink_after(tmp_path):
    d = Daemon(tmp_path / "d", runner__shrink_after="no", **SCOPE).start()
    try:
        rid = _completed(d)
        # shrunk before the run completed, and no shrinks after it
        assert query(d.db, "SELECT count(*) FROM results r JOIN cases c ON "
                     "c.id=r.case_id WHERE c.run_id=? AND r.shrink_runs > 0",
                     (rid,))[0][0] >= 1
        time.sleep(1)
        assert d.shrinks_done(rid) is None
        assert any(e.get("shrunk") for e in _minimum(d)["evidence"])
    finally:
        d.stop()


def test_a_runner_killed_while_shrinking_loses_nothing(daemon):
    """A runner killed during a shrink after the lists: the case keeps its
    record and the lists stay as they were; the shrinks still end with
    their event and a fresh runner takes the killed one's place."""
    import os
    import signal

    from e2e_harness import children
    d = daemon
    rid = _completed(d)
    st, allow = d.get_json("/allowlist")
    assert st == 200, allow
    assert d.get_json(f"/runs/{rid}")[1]["progress"]["shrinking"]["left"] >= 1
    victims = children(d.proc.pid, b"opscreen_runner")
    assert victims
    for pid in victims:
        os.kill(pid, signal.SIGKILL)
    ev = _wait_shrinks(d, rid)
    assert ev["shrinks"] >= 1 and not ev["stopped"], ev
    st, allow2 = d.get_json("/allowlist")
    assert st == 200 and allow2["names"] == allow["names"]
    # the failing case's own record stands, with its repro
    e = _minimum(d)
    st, case = d.get_json(f"/cases/{e['evidence'][0]['case']}")
    assert case["status"] == "fail" and case["repro"], case
    deadline = time.time() + 60
    while time.time() < deadline and not children(d.proc.pid, b"opscreen_runner"):
        time.sleep(0.2)
    assert children(d.proc.pid, b"opscreen_runner")


def test_a_restart_takes_the_shrinks_up_again(tmp_path):
    """The daemon stopped while the completed run's failing cases were
    being shrunk: started again on the same library, with nothing queued,
    it shrinks the ones left, and the run's event says it resumed them."""
    d = Daemon(tmp_path / "d", env=SLOW, **SCOPE).start()
    try:
        rid = _completed(d)
        assert d.get_json(f"/runs/{rid}")[1]["progress"]["shrinking"]["left"] >= 1
        st, allow = d.get_json("/allowlist")
        assert st == 200, allow
    finally:
        d.stop()
    assert d.shrinks_done(rid) is None
    left = query(d.db, "SELECT count(*) FROM results r JOIN cases c ON "
                 "c.id=r.case_id WHERE c.run_id=? AND r.status='fail' AND "
                 "r.shrink_runs=0", (rid,))[0][0]
    assert left >= 1
    d = Daemon(tmp_path / "d", env=SLOW, **SCOPE).start()
    try:
        # /runs/N says what is left while they run again
        deadline = time.time() + 60
        while time.time() < deadline and d.shrinks_done(rid) is None:
            p = d.get_json(f"/runs/{rid}")[1].get("progress", {})
            if p.get("shrinking"):
                assert p["state"] == "complete" and p["run"] == rid, p
                assert 1 <= p["shrinking"]["left"] <= left, p
                break
            time.sleep(0.1)
        else:
            raise AssertionError("no progress.shrinking: " + d.logtext())
        ev = _wait_shrinks(d, rid)
        assert ev.get("resumed") is True and not ev["stopped"], ev
        assert ev["shrinks"] >= 1 and ev["shrunk"] >= 1, ev
        assert any(e.get("shrunk") for e in _minimum(d)["evidence"])
        # the same lists, served throughout
        st, allow2 = d.get_json("/allowlist")
        assert st == 200 and allow2["names"] == allow["names"]
        with open(d.log, errors="replace") as f:
            assert "taken up again once its runners are back" in f.read()
    finally:
        d.stop()


def test_a_restart_on_another_library_drops_the_shrinks(tmp_path):
    """Stopped while shrinking, started again on another version of the
    library: a shrink would replace the run's evidence with the new
    library's case, so none runs; the evidence stays the generated case."""
    from e2e_harness import ROOT, demolib_copy, set_version
    lib = demolib_copy(tmp_path)
    scope = dict(SCOPE, runner__runner_path=f"{ROOT}/probes:{lib}")
    d = Daemon(tmp_path / "d", env=SLOW, **scope).start()
    try:
        rid = _completed(d)
    finally:
        d.stop()
    shrunk = "SELECT count(*) FROM results r JOIN cases c ON c.id=r.case_id " \
             "WHERE c.run_id=? AND r.shrink_runs > 0"
    before = query(d.db, shrunk, (rid,))[0][0]
    set_version(lib, "0.2.0")
    d = Daemon(tmp_path / "d", env=SLOW, **scope).start()
    try:
        d.wait_fingerprint()
        deadline = time.time() + 60
        while time.time() < deadline:
            with open(d.log, errors="replace") as f:
                if "not taken up again" in f.read():
                    break
            time.sleep(0.3)
        else:
            raise AssertionError("the shrinks were not dropped: " + d.logtext())
        time.sleep(2)
        assert d.shrinks_done(rid) is None
        assert query(d.db, shrunk, (rid,))[0][0] == before
        # and the lists wait for a screen of the new library
        st, out = d.get_json("/allowlist")
        assert st == 503, out
    finally:
        d.stop()


def test_a_variant_that_outlasts_the_next_run_is_counted_in_neither(tmp_path):
    """A new run stops the shrinks while a variant is in flight, and the
    new run (one op that passes) completes before that variant ends: the
    first run's shrinks still get their event, stopped, and the second's
    tally holds none of the first's variants; no variant follows."""
    slow = {"OPSCREEN_DEMOLIB_DELAY": "minimum:3"}
    d = Daemon(tmp_path / "d", env=slow, **SCOPE).start()
    try:
        first = _completed(d)
        [[op]] = query(d.db, "SELECT name FROM verdicts WHERE run_id=? AND "
                       "verdict='verified' AND name != 'minimum' LIMIT 1",
                       (first,))
        deadline = time.time() + 60
        while time.time() < deadline:
            p = d.get_json(f"/runs/{first}")[1].get("progress", {})
            if p.get("shrinking", {}).get("running", 0) >= 1:
                break
            time.sleep(0.1)
        else:
            raise AssertionError("no shrink ran: " + d.logtext())
        st, out = d.post_run({"ops": [op]})
        assert st == 202, out
        run = d.wait_run(out["run"])
        assert run["state"] == "complete", run
        ev1 = _wait_shrinks(d, first)
        assert ev1["stopped"] and ev1["shrunk"] == 0, ev1
        with open(d.log, errors="replace") as f:
            log = f.read()
        # run 1's event was stored when run 2 completed, not after it
        assert log.index(f"run {first}: 0 of") < log.index(
            f"run {out['run']}: 0 of 0 failing cases"), log
        ev2 = d.shrinks_done(out["run"])
        assert ev2 is not None and ev2["shrinks"] == 0, ev2
        assert ev2["runs"] == 0 and ev2["shrunk"] == 0, ev2
    finally:
        d.stop()
