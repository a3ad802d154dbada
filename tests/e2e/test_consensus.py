"""Several devices of one host, end to end: two CPU runners standing for two
GPUs (devices = cpu:2) divide a full screen of the demo library between
them, replay a sample of each other's cases in the consensus phase, and
agree. With the demo library's faulty-device switch, the faulty device is
found and quarantined: its lists and the host's answer 503, the other
device's list withholds what the faulty one screened. The demo library's
nondeterministic `silu` is found and deterministic=1 leaves it out."""
import json
import os
import signal
import subprocess
import time

import pytest

from e2e_harness import NO_HANG, ROOT, Daemon, children, descendants, full_screen, query

CTL = os.path.join(ROOT, "build", "opscreenctl")

# the default sample (20 per mille, and every key's case of least rank);
# twelve ops of the demo library (runner.ops): the nondeterministic silu,
# the slowed neg and abs (SLOW), right and wrong ones for the split
OPS = ("add", "sub", "mul", "neg", "abs", "silu", "relu", "exp", "sqrt", "div",
       "exp2", "sigmoid")
SCOPE = {"runner__devices": "cpu:2", "runner__dtypes": "float32",
         "runner__classes": "same_shape", "runner__workers_per_device": 1,
         "runner__ops": ",".join(OPS)}
# the planted hang is no part of what is checked here (NO_HANG): no screen,
# and no replay of tanh's case, waits out a deadline on a device's only runner


def _lists(d, query_string=""):
    st, allow = d.get_json("/allowlist" + query_string)
    return st, allow


@pytest.fixture(scope="module")
def agreed(tmp_path_factory):
    scope = dict(SCOPE, runner__classes="same_shape,bootstrap")
    d, run = full_screen(tmp_path_factory.mktemp("agree"), scope, NO_HANG)
    yield d, run
    d.stop()


@pytest.fixture(scope="module")
def faulty(tmp_path_factory):
    d, run = full_screen(tmp_path_factory.mktemp("faulty"), SCOPE,
                         dict(NO_HANG, OPSCREEN_DEMOLIB_FAULTY_DEVICE="1"))
    yield d, run
    d.stop()


def test_split_divides_the_keys(agreed):
    d, run = agreed
    split = query(d.db, "SELECT split FROM runs WHERE id=?", (run,))[0][0]
    assert split == 1
    # each key's cases on one device, and both devices have keys
    owners = query(d.db, "SELECT key, count(DISTINCT device), min(device) "
                   "FROM cases WHERE run_id=? GROUP BY key", (run,))
    assert owners and all(n == 1 for _, n, _ in owners), owners
    assert {dev for _, _, dev in owners} == {0, 1}, owners
    stored = dict(query(d.db, "SELECT key, device FROM run_split WHERE "
                        "run_id=?", (run,)))
    assert all(stored[k] == dev for k, _, dev in owners), (stored, owners)


def test_consensus_phase_agrees(agreed):
    d, run = agreed
    ev = query(d.db, "SELECT json FROM events WHERE run_id=? AND "
               "kind='consensus'", (run,))
    assert len(ev) == 1, d.logtext()
    ev = json.loads(ev[0][0])
    keys = query(d.db, "SELECT count(DISTINCT key) FROM cases WHERE run_id=? "
                 "AND class != 'bootstrap'", (run,))[0][0]
    assert keys >= len(OPS) and ev["sampled_cases"] >= keys, ev  # every key's
    assert ev["suspect"] == 0 and ev["quarantined"] == [], ev
    # every sampled case ran on the other device and twice on its owner
    rows = query(d.db, "SELECT p.attempt, p.device = c.device, count(*) FROM "
                 "replays p JOIN cases c ON c.id = p.case_id WHERE p.run_id=? "
                 "GROUP BY 1, 2", (run,))
    got = {(a, same): n for a, same, n in rows}
    assert got.get((0, 1)) is None, got     # never replayed on its owner
    assert got[(0, 0)] == got[(1, 1)] == ev["sampled_cases"], got
    assert query(d.db, "SELECT count(*) FROM quarantine WHERE run_id=?",
                 (run,))[0][0] == 0
    # the multi-rank bootstrap probe ran on rank 0's runner: both orders,
    # skipped without two GPUs (CPU runners)
    mr = query(d.db, "SELECT json FROM events WHERE run_id=? AND "
               "kind='multirank'", (run,))
    assert len(mr) == 1, mr
    mr = json.loads(mr[0][0])
    for order in ("import_first", "pin_first"):
        assert mr[order]["ok"] is None, mr
        assert "needs 2 GPUs" in mr[order]["skipped"], mr
    # no NCCL on CPU runners unless asked (nccl = auto)
    assert query(d.db, "SELECT count(*) FROM events WHERE run_id=? AND kind "
                 "LIKE 'nccl%'", (run,))[0][0] == 0


def test_default_sample_replays_every_key_on_the_other_device(agreed):
    """At the default 20 per mille a key's cases may all miss the sample: its
    case of least rank is replayed then, so every key whose cases could be
    compared ran on both devices, and the sampled ones beside them."""
    d, run = agreed
    keys = {k for k, in query(
        d.db, "SELECT DISTINCT c.key FROM cases c JOIN results r ON "
        "r.case_id = c.id WHERE c.run_id=? AND r.status IN ('pass', "
        "'fail') AND json_type(r.figures, '$.digest') = 'text' AND "
        "c.class NOT IN ('compile', 'bootstrap', 'trace', 'graph')",
        (run,))}
    replayed = {k for k, in query(
        d.db, "SELECT DISTINCT c.key FROM replays p JOIN cases c ON "
        "c.id = p.case_id WHERE p.run_id=? AND p.attempt = 0 AND "
        "p.device != c.device", (run,))}
    assert keys and replayed == keys, (keys - replayed, replayed - keys)
    n, cases = query(d.db, "SELECT count(DISTINCT case_id), (SELECT "
                     "count(*) FROM cases WHERE run_id=?1) FROM replays "
                     "WHERE run_id=?1", (run,))[0]
    assert len(keys) <= n < cases / 2, (n, len(keys), cases)


def test_each_device_serves_the_whole_table(agreed):
    d, run = agreed
    lists = {}
    for g in ("0", "1"):
        st, allow = _lists(d, "?gpu=" + g)
        assert st == 200, allow
        lists[g] = set(allow["names"])
    assert lists["0"] == lists["1"] and lists["0"], lists
    st, host = _lists(d)
    assert st == 200 and set(host["names"]) == lists["0"], host
    # the verdicts device 1 holds for keys device 0 screened say so
    shared = query(d.db, "SELECT count(*), min(screened_on) FROM verdicts "
                   "WHERE run_id=? AND device=1 AND screened_on IS NOT NULL",
                   (run,))[0]
    assert shared[0] > 0 and shared[1] == 0, shared


def test_nondeterministic_silu_left_out(agreed):
    d, run = agreed
    nd = query(d.db, "SELECT key, dtype, nondeterministic FROM verdicts WHERE "
               "run_id=? AND nondeterministic > 0 AND screened_on IS NULL",
               (run,))
    assert ("silu", "float32") in {(k, t) for k, t, _ in nd}, nd
    st, allow = _lists(d)
    assert st == 200 and "silu" in allow["names"], allow
    st, det = _lists(d, "?deterministic=1")
    assert st == 200, det
    assert "silu" not in det["names"], det
    why = [w for w in det["withheld"] if w["name"] == "silu"]
    assert why and "nondeterministic" in why[0]["reasons"][0]["reason"], why
    # the rest of the list stands
    assert set(det["names"]) == set(allow["names"]) - {
        n for n, in query(d.db, "SELECT DISTINCT name FROM verdicts WHERE "
                          "run_id=? AND nondeterministic > 0", (run,))}
    st, bad = _lists(d, "?deterministic=yes")
    assert st == 400, bad
    # opscreenctl, for deployment scripts: the same list
    r = subprocess.run([CTL, "-H", f"127.0.0.1:{d.port}", "allowlist",
                        "--deterministic", "--format", "text"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    names = [ln for ln in r.stdout.splitlines() if not ln.startswith("#")]
    assert names == det["names"], r.stdout


def test_faulty_device_quarantined(faulty):
    d, run = faulty
    q = query(d.db, "SELECT device, suspect_cases, detail FROM quarantine "
              "WHERE run_id=?", (run,))
    assert [r[0] for r in q] == [1], (q, d.logtext())
    assert q[0][1] > 0 and "device 1" in q[0][2], q
    ev = json.loads(query(d.db, "SELECT json FROM events WHERE run_id=? AND "
                          "kind='consensus'", (run,))[0][0])
    assert ev["suspect"] > 0 and [x["device"] for x in ev["quarantined"]] == [1]
    # the faulty device's list and the host's: refused, with the reason
    for qs in ("?gpu=1", "", "?gpu=1&format=text"):
        st, _, body = d.get("/allowlist" + qs)
        assert st == 503, (qs, body)
    st, err = d.get_json("/allowlist?gpu=1")
    assert "quarantined" in err["error"] and err["device"] == 1, err
    st, _ = d.get_json("/denylist")
    assert st == 503
    # for the fleet's alerts
    st, _, body = d.get("/metrics")
    assert st == 200
    q_lines = [ln for ln in body.decode().splitlines()
               if ln.startswith("opscreen_device_quarantined{")]
    assert len(q_lines) == 2, q_lines
    assert sorted(ln.rsplit(" ", 1)[1] for ln in q_lines) == ["0", "1"]
    assert any('gpu="1"' in ln and ln.endswith(" 1") for ln in q_lines), q_lines
    # the healthy device serves only what it screened itself
    st, allow = _lists(d, "?gpu=0")
    assert st == 200, allow
    own = {n for n, in query(d.db, "SELECT DISTINCT name FROM cases WHERE "
                             "run_id=? AND device=0", (run,))}
    theirs = {n for n, in query(d.db, "SELECT DISTINCT name FROM cases WHERE "
                                "run_id=? AND device=1", (run,))}
    assert theirs and not (set(allow["names"]) & (theirs - own)), allow
    held = {w["name"] for w in allow["withheld"]
            if any(r.get("reason") == "owner_quarantined" or
                   "quarantined" in r.get("reason", "")
                   for r in w["reasons"])}
    reasons = query(d.db, "SELECT DISTINCT reason FROM verdicts WHERE run_id=? "
                    "AND device=0 AND screened_on=1", (run,))
    assert reasons == [("owner_quarantined",)], reasons
    assert held or not theirs - own, allow


def test_cleared_by_a_later_screen(faulty, tmp_path):
    """The quarantine holds until a screen of the same devices agrees: the
    faulty switch off (a restarted daemon: new runners), the next full
    screen clears it."""
    d, run = faulty
    d.stop()
    d.env.pop("OPSCREEN_DEMOLIB_FAULTY_DEVICE", None)
    # carrying on: the quarantined device's results must not be carried
    with open(d.conf) as f:
        conf = f.read()
    with open(d.conf, "w") as f:
        f.write(conf.replace("carry = no", "carry = yes"))
    d.start()
    d.wait_fingerprint()
    st, err = d.get_json("/allowlist?gpu=1&stale=ok")
    assert st == 503 and "quarantined" in err["error"], err
    st, out = d.post_run({})
    assert st == 202, out
    r = d.wait_run(out["run"])
    assert r["state"] == "complete", (r, d.logtext())
    st, allow = d.get_json("/allowlist?gpu=1")
    assert st == 200 and allow["names"], allow
    new = out["run"]
    carried = dict(query(d.db, "SELECT c.device, count(*) FROM results r JOIN "
                         "cases c ON c.id = r.case_id WHERE c.run_id=? AND "
                         "r.carried_from IS NOT NULL GROUP BY c.device", (new,)))
    assert carried.get(1, 0) == 0, carried
    stayed = query(d.db, "SELECT count(*) FROM run_split a JOIN run_split b "
                   "ON a.key = b.key WHERE a.run_id=? AND b.run_id=? AND "
                   "a.device = 0 AND b.device = 0", (run, new))[0][0]
    assert carried.get(0, 0) > 0 or stayed == 0, (carried, stayed)


def test_device_that_faults_on_every_call_quarantined(tmp_path):
    """A device whose every call raises (a GPU with a fault that kills each
    launch) gives no output to compare: it checked nothing of the others'
    share, so it is quarantined too, and the host's list is refused."""
    d, run = full_screen(tmp_path / "d", SCOPE,
                         dict(NO_HANG, OPSCREEN_DEMOLIB_FAULTY_DEVICE="1:raise"))
    try:
        q = query(d.db, "SELECT device, detail FROM quarantine WHERE run_id=?",
                  (run,))
        assert [r[0] for r in q] == [1], (q, d.logtext())
        assert "gave no output" in q[0][1], q
        assert d.get("/allowlist")[0] == 503
        assert d.get("/allowlist?gpu=1")[0] == 503
        st, allow = d.get_json("/allowlist?gpu=0")
        assert st == 200, allow
    finally:
        d.stop()


def _wait_replays(d, run, n=3, timeout=300):
    deadline = time.time() + timeout
    while time.time() < deadline:
        state, k = query(d.db, "SELECT state, (SELECT count(*) FROM replays "
                         "WHERE run_id=?1) FROM runs WHERE id=?1", (run,))[0]
        assert state in ("queued", "running"), (state, d.logtext())
        if k >= n:
            return k
        time.sleep(0.05)
    raise AssertionError("no consensus phase: " + d.logtext())


def _in_consensus_phase(d):
    """Starts a full screen on d and returns its id once its consensus
    phase has stored a few replays."""
    d.wait_fingerprint()
    st, out = d.post_run({})
    assert st == 202, out
    _wait_replays(d, out["run"])
    return out["run"]


# neg slowed: its replays keep the consensus phase going for a while
SLOW = dict(NO_HANG, OPSCREEN_DEMOLIB_DELAY="neg:0.2,abs:0.2")


def test_killed_daemon_resumes_the_consensus_phase(tmp_path):
    """opscreend SIGKILLed in the consensus phase: the restarted daemon
    resumes the run with its stored division, keeps the replays stored
    before (not run again), runs the rest and completes; nothing was served
    from the half-checked run meanwhile."""
    d = Daemon(tmp_path / "d", env=SLOW, **SCOPE).start()
    run = _in_consensus_phase(d)
    d.proc.send_signal(signal.SIGSTOP)
    kids = descendants(d.proc.pid)[1:]
    d.proc.send_signal(signal.SIGKILL)
    d.proc.wait(30)
    d.logf.close()
    for p in kids:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass
    before = dict(((c, dev, a), t) for c, dev, a, t in query(
        d.db, "SELECT case_id, device, attempt, created FROM replays WHERE "
        "run_id=?", (run,)))
    split = query(d.db, "SELECT key, device FROM run_split WHERE run_id=?",
                  (run,))
    assert before and query(d.db, "SELECT state FROM runs WHERE id=?",
                            (run,))[0][0] == "running"
    try:
        d.start()
        st, body = d.get_json("/allowlist")
        assert st == 503, body          # a half-checked run serves nothing
        r = d.wait_run(run)
        assert r["state"] == "complete", (r, d.logtext())
        after = dict(((c, dev, a), t) for c, dev, a, t in query(
            d.db, "SELECT case_id, device, attempt, created FROM replays "
            "WHERE run_id=?", (run,)))
        assert all(after[k] == t for k, t in before.items()), "replayed again"
        assert len(after) > len(before)
        # every sampled case: once on the other device, once more on its owner
        sampled = {c for c, _, _ in after}
        assert len(after) == 2 * len(sampled)
        assert query(d.db, "SELECT key, device FROM run_split WHERE "
                     "run_id=?", (run,)) == split
        assert len(query(d.db, "SELECT 1 FROM events WHERE run_id=? AND "
                         "kind='consensus'", (run,))) == 1
        st, allow = d.get_json("/allowlist")
        assert st == 200 and allow["names"], allow
    finally:
        d.stop()


def test_killed_runners_during_the_consensus_phase(tmp_path):
    """Runners SIGKILLed while they replay: the replays in flight give no
    output (stored as crash), fresh runners take the rest, and the run
    completes with every device checked."""
    d = Daemon(tmp_path / "d", env=SLOW, **SCOPE).start()
    try:
        run = _in_consensus_phase(d)
        for p in children(d.proc.pid, b"opscreen_runner"):
            os.killpg(p, signal.SIGKILL)
        r = d.wait_run(run)
        assert r["state"] == "complete", (r, d.logtext())
        crashed = query(d.db, "SELECT count(*) FROM replays WHERE run_id=? "
                        "AND status='crash' AND digest IS NULL", (run,))[0][0]
        assert crashed >= 1, d.logtext()
        assert query(d.db, "SELECT count(*) FROM quarantine WHERE run_id=?",
                     (run,))[0][0] == 0
        assert d.get("/allowlist")[0] == 200
    finally:
        d.stop()


def test_nccl_pinning_check_failure_fails_the_run(tmp_path):
    """[consensus] nccl = yes on CPU runners: before any case, rank 0's
    runner makes the unique id (or cannot: no libopscreen_nccl where nvcc is
    missing), the daemon hands it to the other runner, and the communicator
    that checks the pinning fails without a GPU. The run fails at once with
    the runners' NCCL message, no case ran, nothing is served: the step that
    checks the host's GPUs is not skipped in silence."""
    d = Daemon(tmp_path / "d", env=NO_HANG, **dict(SCOPE, consensus__nccl="yes")).start()
    try:
        d.wait_fingerprint()
        st, out = d.post_run({})
        assert st == 202, out
        r = d.wait_run(out["run"])
        assert r["state"] == "failed", r
        assert "pinning check: the runners' NCCL communicator failed" in \
            r["error"], r
        assert query(d.db, "SELECT count(*) FROM cases WHERE run_id=?",
                     (out["run"],))[0][0] == 0
        ev = query(d.db, "SELECT kind, json FROM events WHERE run_id=? AND "
                   "kind LIKE 'nccl%'", (out["run"],))
        assert len(ev) == 1, ev
        answers = json.loads(ev[0][1])["answers"]
        assert len(answers) == 2 and not any(a["ok"] for a in answers), answers
        assert d.get("/allowlist")[0] == 503
        # the daemon goes on: another run is taken
        st, out = d.post_run({})
        assert st == 202, out
    finally:
        d.stop()


def test_store_locked_in_the_consensus_phase(tmp_path):
    """Another process holds the store's write lock while the consensus
    phase runs: the replays' records wait (nothing dropped), the half-checked
    run is neither served nor completed, and once the lock goes the phase
    ends with every replay stored once and one judgement."""
    from test_store_faults import Locked
    fault = Locked()
    d = Daemon(tmp_path / "d", env=SLOW, **SCOPE).start()
    try:
        run = _in_consensus_phase(d)
        fault.inject(d)
        t0, degraded = time.time(), False
        while time.time() - t0 < 10:
            st, h = d.get_json("/healthz")
            degraded |= h["store"]["state"] == "degraded"
            assert d.get("/allowlist")[0] == 503
            st, r = d.get_json(f"/runs/{run}")
            assert r["state"] == "running", r
            time.sleep(0.25)
        assert degraded, d.logtext()
        fault.clear(d)
        r = d.wait_run(run)
        assert r["state"] == "complete", (r, d.logtext())
        n, distinct = query(d.db, "SELECT count(*), count(DISTINCT case_id || "
                            "'|' || device || '|' || attempt) FROM replays "
                            "WHERE run_id=?", (run,))[0]
        sampled = query(d.db, "SELECT count(DISTINCT case_id) FROM replays "
                        "WHERE run_id=?", (run,))[0][0]
        assert n == distinct == 2 * sampled, (n, distinct, sampled)
        assert query(d.db, "SELECT count(*) FROM replays WHERE run_id=? AND "
                     "outcome IS NULL", (run,))[0][0] == 0
        assert len(query(d.db, "SELECT 1 FROM events WHERE run_id=? AND "
                         "kind='consensus'", (run,))) == 1
        assert d.get("/allowlist")[0] == 200
    finally:
        d.stop()
        fault.teardown(d)
