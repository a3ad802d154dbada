"""Lists that are also fast (faster=RATIO): the runner times native and the
candidate on the same inputs (RESULT "speed"), each key x dtype verdict keeps
its slowest passing case relative to native (verdicts.speed_ratio), and a
list asked for faster=RATIO allows a name only where every key x dtype of
the scope reached RATIO; an unmeasured one withholds it.

Against the real daemon and runner: the demo library with neg made 5 ms
slow per call (OPSCREEN_DEMOLIB_SLOWER=neg), right in every other way."""
import sqlite3

import pytest

from e2e_harness import F32, denied, full_screen

SCOPE = dict(F32, runner__carry="no")


@pytest.fixture(scope="module")
def screened(tmp_path_factory):
    d, run = full_screen(tmp_path_factory.mktemp("speed") / "d", SCOPE,
                         {"OPSCREEN_DEMOLIB_SLOWER": "neg"})
    d.run = run
    yield d
    d.stop()


def slowest(d, run):
    """name -> (min speed_ratio, any key x dtype without one) from the store."""
    db = sqlite3.connect(d.db)
    try:
        out = {}
        for name, ratio, cases in db.execute(
                "SELECT name, speed_ratio, speed_cases FROM verdicts WHERE "
                "run_id = ? AND dtype != 'any' AND verdict = 'verified'", (run,)):
            lo, missing = out.get(name, (float("inf"), False))
            out[name] = (min(lo, ratio) if cases else lo, missing or not cases)
        return out
    finally:
        db.close()


def test_a_slow_name_is_left_out_and_every_allowed_name_is_fast_enough(screened):
    d = screened
    st, plain = d.get_json("/allowlist")
    assert st == 200, plain
    assert "neg" in plain["names"] and "faster" not in plain, plain
    st, fast = d.get_json("/allowlist?faster=0.5")
    assert st == 200, fast
    assert fast["faster"] == 0.5
    assert "neg" not in fast["names"], fast
    (neg,) = [w for w in fast["withheld"] if w["name"] == "neg"]
    assert any("under faster=0.5" in r["reason"] for r in neg["reasons"]), neg
    # the list is the rule applied to the stored verdicts, name by name
    ratios = slowest(d, d.run)
    assert ratios["neg"][0] < 0.05, ratios["neg"]  # 5 ms against microseconds
    for name in plain["names"]:
        lo, missing = ratios[name]
        assert (name in fast["names"]) == (lo >= 0.5 and not missing), (name, lo)
    assert set(fast["speed"]) == set(fast["names"])
    assert all(r >= 0.5 for r in fast["speed"].values()), fast["speed"]
    # the deny-list of the scope excludes neg as withheld, not as denied:
    # its denials are about correctness
    st, deny = d.get_json("/denylist?faster=0.5")
    assert st == 200 and deny["faster"] == 0.5
    assert "neg" not in [e["name"] for e in denied(deny)]
    (neg,) = [e for e in deny["names"] if e["name"] == "neg"]
    assert neg["verdict"] == "withheld" and neg["severity"] is None, neg
    assert any("under faster=0.5" in r["reason"] for r in neg["reasons"]), neg
    assert not {e["name"] for e in deny["names"]} & set(fast["names"])


def test_the_speed_is_stored_with_the_case(screened):
    d = screened
    db = sqlite3.connect(d.db)
    (cid,) = db.execute("SELECT c.id FROM cases c JOIN results r ON r.case_id = c.id "
                        "WHERE c.run_id = ? AND c.key = 'neg' AND r.status = 'pass' "
                        "AND json_extract(r.figures, '$.speed') IS NOT NULL LIMIT 1",
                        (d.run,)).fetchone()
    db.close()
    st, case = d.get_json(f"/cases/{cid}")
    assert st == 200, case
    sp = case["figures"]["speed"]
    assert sp["cand_ms"] >= 5 and sp["native_ms"] < sp["cand_ms"] and sp["calls"] >= 3, sp


def test_faster_is_checked_and_named(screened):
    d = screened
    for bad in ("0", "-1", "abc", "2000", "nan", "1x"):
        st, out = d.get_json(f"/allowlist?faster={bad}")
        assert st == 400 and "faster" in out["error"], (bad, out)
    st, _, text = d.get("/allowlist?format=text&faster=0.5")
    assert st == 200
    assert b"# faster=0.5: only names whose every screened case ran at 0.5" in text, text
    assert b"\nneg\n" not in text
    st, _, text = d.get("/allowlist?format=vllm-env&faster=0.5")
    assert st == 200 and b"neg" in text  # blacklisted: not allowed


def test_opscreenctl_faster(screened):
    import os
    import subprocess
    from e2e_harness import ROOT
    ctl = os.path.join(ROOT, "build", "opscreenctl")
    hp = f"127.0.0.1:{screened.port}"
    r = subprocess.run([ctl, "-H", hp, "allowlist", "--format", "text", "--faster", "0.5"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "# faster=0.5" in r.stdout and "\nneg\n" not in r.stdout, r.stdout
    r = subprocess.run([ctl, "-H", hp, "allowlist", "--format", "text"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "\nneg\n" in r.stdout, r.stdout
    for bad in ("0", "x", "1e9"):
        r = subprocess.run([ctl, "-H", hp, "allowlist", "--faster", bad],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode not in (0, 1) and "--faster" in r.stderr, (bad, r.stderr)


def _timed_by_class(d):
    """{(class, timed): passing cases} of a restricted run on d."""
    st, out = d.post_run({"ops": ["neg", "add.Tensor", "mul_.Tensor"],
                          "dtypes": ["float32"],
                          "classes": ["same_shape", "broadcast", "views"]})
    assert st == 202, out
    run = d.wait_run(out["run"])
    assert run["state"] == "complete", run
    db = sqlite3.connect(d.db)
    try:
        return {(cls, timed): n for cls, timed, n in db.execute(
            "SELECT c.class, json_extract(r.figures, '$.speed') IS NOT NULL, "
            "count(*) FROM cases c JOIN results r ON r.case_id = c.id WHERE "
            "c.run_id = ? AND r.status = 'pass' GROUP BY 1, 2", (out["run"],))}
    finally:
        db.close()


def test_speed_is_timed_in_every_case_or_as_configured(screened, make_daemon):
    """runner.speed: every passing case carries its speed by default (all);
    `engine` times only same_shape, reduction, contract and accumulation
    cases (a broadcast or views case of the same key gets no speed calls);
    `off` times none, and a faster= list then withholds every name."""
    got = _timed_by_class(screened)
    assert got.get(("same_shape", 1)) and got.get(("broadcast", 1)) and \
        got.get(("views", 1)), got
    d = make_daemon(runner__speed="engine", **SCOPE).start()
    d.wait_fingerprint()
    got = _timed_by_class(d)
    assert got.get(("same_shape", 1)), got
    assert got.get(("broadcast", 0)) and got.get(("views", 0)), got
    assert not got.get(("broadcast", 1)) and not got.get(("views", 1)), got
    off = make_daemon(runner__speed="off", **SCOPE).start()
    off.wait_fingerprint()
    st, out = off.post_run({})
    assert st == 202, out
    assert off.wait_run(out["run"])["state"] == "complete"
    got = _timed_by_class(off)
    assert not any(timed for _, timed in got), got
    st, fast = off.get_json("/allowlist?faster=0.01")
    assert st == 200 and fast["names"] == [], fast


def test_runners_share_the_cpus_for_torch_threads(screened):
    """Each runner's environment gives torch's CPU pool (OMP_NUM_THREADS)
    the daemon's CPUs over its runners, at least 1: unbounded, every one of
    them had a thread per core."""
    import os
    from e2e_harness import children
    kids = children(screened.proc.pid, b"opscreen_runner")
    assert kids, "no runner"
    nrun = len(kids)
    want = os.environ.get("OMP_NUM_THREADS") or \
        max(1, len(os.sched_getaffinity(screened.proc.pid)) // nrun)
    for p in kids:
        with open(f"/proc/{p}/environ", "rb") as f:
            env = dict(kv.split(b"=", 1) for kv in f.read().split(b"\0") if b"=" in kv)
        assert env.get(b"OMP_NUM_THREADS") == str(want).encode(), (p, env.get(b"OMP_NUM_THREADS"))
