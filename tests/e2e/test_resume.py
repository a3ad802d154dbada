"""A run interrupted by opscreend stopping (SIGTERM from systemd, a crash)
resumes when the daemon starts again on the same database: the same run
completes, what it had stored is kept and not run again, and its verdicts are
those of an uninterrupted screen. When the library changed while the daemon
was down, the run is failed instead and a fresh screen of the new library
runs."""
import os
import re
import shutil
import signal
import sqlite3
import time

import pytest

from e2e_harness import (DEFECT_SCOPE, DEFECT_SCOPE_CORRECT, DEFECT_SCOPE_OPS,
                         ROOT, SMALL, Daemon, children, denied, shared_screen)
from test_screen import DEFECTS, library_names

# the operator's own scope: a full screen of it takes seconds
SCOPE = SMALL
CHANGED = "library changed while opscreend was stopped; screen restarted"


def _reap_runners(pids):
    """Runners a SIGKILLed daemon left behind exit at their socket's EOF, but
    one in a hanging case (the demo tanh sleeps an hour) would not."""
    for p in pids:
        try:
            with open(f"/proc/{p}/cmdline", "rb") as f:
                if b"opscreen_runner" not in f.read():
                    continue
            os.killpg(p, signal.SIGKILL)
        except (OSError, ProcessLookupError):
            pass


def _results(db_path, run):
    db = sqlite3.connect(db_path)
    try:
        return {cid: (status, created) for cid, status, created in db.execute(
            "SELECT r.case_id, r.status, r.created FROM results r JOIN cases c "
            "ON c.id = r.case_id WHERE c.run_id=?", (run,))}
    finally:
        db.close()


def _stop_midway(d, run, sig, fraction):
    """Stops daemon d with sig once `fraction` of run's cases are done (and
    not all); returns the run's record and its stored results after the
    daemon is gone."""
    row, before = _stop_at(d, run, sig,
                           lambda t, n: t and n >= fraction * t)
    assert 0 < len(before) < row[1], (row, len(before))
    return row, before


def _stop_at(d, run, sig, ready, timeout=300):
    """Stops daemon d with sig once ready(total, stored results) holds for
    run, read from its store (finer-grained than the API's progress); returns
    the run's record and its stored results after the daemon is gone. Skips
    when the run completed first (a window too short to hit)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        db = sqlite3.connect(d.db)
        state, total, n = db.execute(
            "SELECT state, total, (SELECT count(*) FROM results r JOIN cases c "
            "ON c.id = r.case_id WHERE c.run_id=?1) FROM runs WHERE id=?1",
            (run,)).fetchone()
        db.close()
        if state == "complete":
            d.stop()
            pytest.skip("the run completed before the moment to stop it")
        assert state in ("queued", "running"), state
        if state == "running" and ready(total, n):
            # the moment may pass between that read and the signal (the
            # run's last transaction commits in microseconds): freeze the
            # daemon, read again, and stop it only if the moment still holds
            d.proc.send_signal(signal.SIGSTOP)
            db = sqlite3.connect(d.db)
            state, total, n = db.execute(
                "SELECT state, total, (SELECT count(*) FROM results r JOIN "
                "cases c ON c.id = r.case_id WHERE c.run_id=?1) FROM runs "
                "WHERE id=?1", (run,)).fetchone()
            db.close()
            if state == "running" and ready(total, n):
                break
            d.proc.send_signal(signal.SIGCONT)
        time.sleep(0.005)
    else:
        raise AssertionError(f"run {run} made no progress: {state, total, n}")
    kids = children(d.proc.pid)
    d.proc.send_signal(sig)
    d.proc.send_signal(signal.SIGCONT)   # a SIGTERM waits for it
    d.proc.wait(30)
    d.logf.close()
    if sig == signal.SIGKILL:
        _reap_runners(kids)
    st_db = sqlite3.connect(d.db)
    row = st_db.execute("SELECT state, total, done FROM runs WHERE id=?",
                        (run,)).fetchone()
    st_db.close()
    before = _results(d.db, run)
    assert row[0] == "running", row
    return row, before


def _sigterm_when(d, sql, args, ready, valid=lambda row: True, timeout=120):
    """Stops daemon d with SIGTERM once the row sql gives on its store is
    ready(row); until then every row must be valid(row)."""
    deadline = time.time() + timeout
    while True:
        db = sqlite3.connect(d.db)
        row = db.execute(sql, args).fetchone()
        db.close()
        if ready(row):
            break
        assert valid(row) and time.time() < deadline, row
        time.sleep(0.05)
    d.proc.send_signal(signal.SIGTERM)
    d.proc.wait(30)
    d.logf.close()


def _metric(text, name, **labels):
    total = None
    for line in text.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        if all(f'{k}="{v}"' in line for k, v in labels.items()):
            total = (total or 0) + float(line.rsplit(" ", 1)[1])
    return total


def _verdicts(db_path, run):
    db = sqlite3.connect(db_path)
    try:
        return sorted(db.execute(
            "SELECT device, key, dtype, verdict, reason, class FROM verdicts "
            "WHERE run_id=?", (run,)))
    finally:
        db.close()


# when to stop the daemon: ready(total, stored results) of its run
POINTS = {
    "SIGTERM": (signal.SIGTERM, lambda t, n: t and n >= 0.25 * t),
    "SIGKILL": (signal.SIGKILL, lambda t, n: t and n >= 0.25 * t),
    # running, its cases not committed yet (one transaction with the total)
    "SIGKILL-expansion": (signal.SIGKILL, lambda t, n: t == 0),
    "SIGKILL-late": (signal.SIGKILL, lambda t, n: t and n >= 0.9 * t),
    # every result stored, the verdicts' transaction not committed yet
    "SIGKILL-run_finish": (signal.SIGKILL, lambda t, n: t and n == t),
}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted screen of DEFECT_SCOPE: (its store, its run)."""
    src, run = shared_screen(tmp_path_factory, "defect-scope", **DEFECT_SCOPE)
    return str(src / "opscreen.db"), run


@pytest.mark.parametrize("point", list(POINTS))
def test_interrupted_run_resumes(make_daemon, reference, point):
    sig, ready = POINTS[point]
    d = make_daemon(daemon__screen_on_start="yes", **DEFECT_SCOPE).start()
    deadline = time.time() + 10        # queued right after the API is up
    while not (runs := d.get_json("/runs")[1])["runs"] and \
            time.time() < deadline:
        time.sleep(0.01)
    assert [r["state"] for r in runs["runs"]] in (["queued"], ["running"]), runs
    run = runs["runs"][0]["id"]
    (state, total, done), before = _stop_at(d, run, sig, ready)
    if point == "SIGKILL-expansion":
        assert total == 0 and before == {}, (total, before)
    elif point == "SIGKILL-run_finish":
        assert len(before) == total > 0, (total, len(before))
    else:
        assert 0 < len(before) < total, (total, len(before))

    d.start()
    # nothing runs before the runner has shown its library is the recorded one
    st, r = d.get_json(f"/runs/{run}")
    assert st == 200 and r["state"] in ("running", "complete"), r
    # the API answers before the main loop has taken the run up again (no
    # write before the port is bound): its live progress follows at once
    deadline = time.time() + 10
    while r["state"] == "running" and "progress" not in r and \
            time.time() < deadline:
        time.sleep(0.02)
        st, r = d.get_json(f"/runs/{run}")
    if r["state"] == "running":
        assert r["total"] >= total and r["progress"]["resumed"] is True, r
        if r["progress"].get("waiting_for_runner"):
            assert r["done"] == len(before), (r, len(before))
            _, _, body = d.get("/metrics")
            text = body.decode()
            assert _metric(text, "opscreen_last_run_cases",
                           status="pending") == total - len(before), text
        assert _metric(d.get("/metrics")[2].decode(), "opscreen_runs",
                       state="running") == 1
    assert r["done"] >= len(before), r
    # screen_on_start: the resumed full screen is the start-up screen
    st, runs = d.get_json("/runs")
    assert [x["id"] for x in runs["runs"]] == [run], runs

    # (the shrinks after its lists are not waited for: nothing here reads them)
    r = d.wait_run(run, shrinks=False)
    assert r["state"] == "complete", (r, d.logtext())
    log = open(d.log, errors="replace").read()
    assert f"resuming run {run}: {len(before)} of {total} cases done" in log
    assert "no second screen queued" in log
    assert "opscreend stopped during the run" not in log

    # what was stored before the stop is kept, not run again nor duplicated
    after = _results(d.db, run)
    assert {k: after.get(k) for k in before} == before
    db = sqlite3.connect(d.db)
    ncases, npending = db.execute(
        "SELECT count(*), coalesce(sum(state='pending'), 0) FROM cases WHERE "
        "run_id=?", (run,)).fetchone()
    nres = db.execute("SELECT count(*), count(DISTINCT case_id) FROM results r "
                      "JOIN cases c ON c.id = r.case_id WHERE c.run_id=?",
                      (run,)).fetchone()
    assert r["total"] == r["done"] == ncases == nres[0] == nres[1]
    assert total in (0, r["total"]), (total, r)
    assert npending == 0
    events = [k for (k,) in db.execute(
        "SELECT kind FROM events WHERE run_id=? AND kind LIKE 'run_%' ORDER BY "
        "id", (run,))]
    assert events == ["run_resumed", "run_complete"], events
    assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    db.close()

    # the verdicts of an uninterrupted screen of the same library and scope
    assert _verdicts(d.db, run) == _verdicts(*reference)
    st, deny = d.get_json("/denylist")
    assert st == 200 and {e["name"] for e in denied(deny)} == set(DEFECTS), deny
    st, allow = d.get_json("/allowlist")
    assert st == 200, allow
    assert allow["runs"][0]["run"] == run
    # every correct name of the scope, and no other: the library's other
    # names are withheld as outside the host's op scope
    assert set(DEFECTS) <= set(DEFECT_SCOPE_OPS)
    assert sorted(allow["names"]) == sorted(DEFECT_SCOPE_CORRECT)
    outside = {w["name"] for w in allow["withheld"]
               if any("op scope (runner.ops)" in x["reason"]
                      for x in w["reasons"])}
    assert outside == set(library_names()) - set(DEFECT_SCOPE_OPS), allow
    # and the deny-list excludes them, withheld with the same reason
    out = {e["name"]: e for e in deny["names"] if e["verdict"] == "withheld"}
    assert set(out) == outside, deny
    assert all("op scope (runner.ops)" in e["reason"] for e in out.values()), out


def test_changed_library_fails_the_interrupted_run(tmp_path, daemon_bin):
    """The library is upgraded while opscreend is down: the interrupted run is
    not resumed with results of two libraries; it fails with the reason and a
    full screen of the new library runs."""
    lib = tmp_path / "lib"
    shutil.copytree(os.path.join(ROOT, "tests", "demolib", "opscreen_demolib"),
                    lib / "opscreen_demolib",
                    ignore=shutil.ignore_patterns("__pycache__"))
    d = Daemon(tmp_path / "d", runner__runner_path=f"{ROOT}/probes:{lib}",
               **SCOPE).start()
    try:
        old = d.wait_fingerprint()["devices"][0]["fingerprint"]
        st, out = d.post_run({})
        assert st == 202, out
        run = out["run"]
        (_, total, _), before = _stop_midway(d, run, signal.SIGTERM, 0.1)

        (lib / "opscreen_demolib" / "extra.py").write_text("UPGRADED = True\n")
        d.start()
        r = d.wait_run(run)
        assert r["state"] == "failed" and r["error"] == CHANGED, r
        assert r["total"] == total and r["done"] == len(before), r

        st, runs = d.get_json("/runs")
        fresh = [x for x in runs["runs"] if x["id"] > run]
        assert len(fresh) == 1 and fresh[0]["full"] == 1, runs
        assert fresh[0]["request"] == {
            "reason": "library changed while opscreend was stopped"}
        st, err = d.get_json("/allowlist")
        assert st == 503, err
        new = d.wait_run(fresh[0]["id"])
        assert new["state"] == "complete", (new, d.logtext())
        new_fp = new["devices"][0]["fingerprint"]
        assert new_fp["library_hash"] != old["library_hash"], (new_fp, old)
        assert new_fp == d.wait_fingerprint()["devices"][0]["fingerprint"]
        st, allow = d.get_json("/allowlist")
        assert st == 200 and allow["runs"][0]["run"] == fresh[0]["id"], allow

        # the failed run: nothing of it ran on the new library, no verdicts
        assert _results(d.db, run) == before
        db = sqlite3.connect(d.db)
        assert db.execute("SELECT count(*) FROM verdicts WHERE run_id=?",
                          (run,)).fetchone()[0] == 0
        assert db.execute("SELECT count(*) FROM cases WHERE run_id=? AND "
                          "state='pending'", (run,)).fetchone()[0] == 0
        db.close()
        log = open(d.log, errors="replace").read()
        assert re.search(rf"resuming run {run}: {len(before)} of {total} cases "
                         "done", log), log[-3000:]
        assert "has another library than the run recorded" in log
    finally:
        d.stop()


def test_key_budget_account_survives_restart(tmp_path, daemon_bin):
    """runner.key_budget's per-key account is rebuilt from the stored results:
    a key whose stored candidate time is over the budget when the run resumes
    runs no case more (its remaining cases are cut at once), where an account
    started from zero would run one first."""
    scope = {"ops": ["sum.dim_IntList", "neg"],
             "classes": ["accumulation", "reduction", "same_shape"]}
    # every case of the demo sum_dim runs (no fail_fast), so the key has
    # cases left to cut when the run resumes
    conf = {"runner__workers_per_device": 1, "runner__compile_workers": 0,
            "runner__fail_fast": "no"}
    d = Daemon(tmp_path, **conf).start()
    try:
        d.wait_fingerprint()
        st, out = d.post_run(scope)
        assert st == 202, out
        run = out["run"]
        spent_sql = ("SELECT coalesce(sum(r.cand_first_ms), 0), (SELECT count(*) "
                     "FROM cases WHERE run_id=?1 AND key='sum.dim_IntList' AND "
                     "state='pending') FROM results r JOIN cases c ON "
                     "c.id = r.case_id WHERE c.run_id=?1 AND c.key='sum.dim_IntList'")
        # all the key's cases take ~0.6 s of candidate time on CI's 2 cores;
        # stop well inside that, and over the 0.1 s budget below (nothing is
        # pending before the run is expanded)
        _sigterm_when(d, spent_sql, (run,),
                      lambda row: row[0] >= 150 and row[1] > 1,
                      lambda row: row[0] == 0 or row[1] > 1)
        before = _results(d.db, run)
        restarted = time.time()
    finally:
        d.stop()

    # the same database, now with a budget the key has already spent
    d = Daemon(tmp_path, runner__key_budget=0.1, **conf).start()
    try:
        r = d.wait_run(run)
        assert r["state"] == "complete", (r, d.logtext())
        db = sqlite3.connect(d.db)
        ran = db.execute(
            "SELECT c.id, r.status, r.reason FROM results r JOIN cases c ON "
            "c.id = r.case_id WHERE c.run_id=? AND c.key='sum.dim_IntList' AND "
            "r.created > ?", (run, restarted)).fetchall()
        assert ran and all(s == "skipped" and why == "key_budget"
                           for _, s, why in ran), ran
        verdicts = {v for (v,) in db.execute(
            "SELECT verdict FROM verdicts WHERE run_id=? AND "
            "key='sum.dim_IntList'", (run,))}
        assert verdicts and "verified" not in verdicts, verdicts
        db.close()
        assert {k: v for k, v in _results(d.db, run).items() if k in before} \
            == before
        log = open(d.log, errors="replace").read()
        assert re.search(r"key sum\.dim_IntList on device -1: \d+ s of candidate "
                         r"time, over the 0\.1 s budget; \d+ cases not run",
                         log.split(f"resuming run {run}:")[-1]), log[-3000:]
    finally:
        d.stop()


def test_fail_fast_applies_to_a_resumed_run(tmp_path, daemon_bin):
    """A run resumed under runner.fail_fast skips, before any case runs, the
    pending cases of every key x dtype x class that failed before the stop.
    The first part runs with fail_fast = no, so failed classes still have
    pending cases when the daemon stops."""
    scope = {"ops": ["minimum", "neg"], "classes": ["broadcast", "same_shape"]}
    conf = {"runner__workers_per_device": 1, "runner__compile_workers": 0,
            "runner__shrink_max": 0}
    d = Daemon(tmp_path, runner__fail_fast="no", **conf).start()
    pending_sql = (
        "SELECT count(*) FROM cases c WHERE c.run_id=?1 AND c.state='pending' AND "
        "EXISTS (SELECT 1 FROM cases f JOIN results r ON r.case_id=f.id WHERE "
        "f.run_id=?1 AND r.status='fail' AND f.key=c.key AND f.dtype=c.dtype AND "
        "f.class=c.class)")
    try:
        d.wait_fingerprint()
        st, out = d.post_run(scope)
        assert st == 202, out
        run = out["run"]
        _sigterm_when(d, pending_sql, (run,), lambda row: row[0] >= 3)
        restarted = time.time()
    finally:
        d.stop()

    d = Daemon(tmp_path, **conf).start()
    try:
        r = d.wait_run(run)
        assert r["state"] == "complete", (r, d.logtext())
        db = sqlite3.connect(d.db)
        # the failed classes' pending cases were skipped, none of them ran
        after = db.execute(
            "SELECT c.key, c.dtype, c.class, r.status, r.reason FROM results r JOIN "
            "cases c ON c.id=r.case_id WHERE c.run_id=? AND r.created > ?",
            (run, restarted)).fetchall()
        failed = {(k, dt, c) for k, dt, c in db.execute(
            "SELECT c.key, c.dtype, c.class FROM results r JOIN cases c ON "
            "c.id=r.case_id WHERE c.run_id=? AND r.status='fail' AND r.created <= ?",
            (run, restarted))}
        cut = [a for a in after if a[:3] in failed]
        assert len(cut) >= 3 and all(a[4] == "fail_fast" for a in cut), (cut, failed)
        verdicts = dict(((k, dt), v) for k, dt, v in db.execute(
            "SELECT key, dtype, verdict FROM verdicts WHERE run_id=?", (run,)))
        assert {v for (k, _), v in verdicts.items() if k == "minimum"} == {"broken"}
        assert {v for (k, _), v in verdicts.items() if k == "neg"} == {"verified"}
        db.close()
    finally:
        d.stop()
