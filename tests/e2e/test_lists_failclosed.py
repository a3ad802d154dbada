"""The served lists fail closed: a dtype or device never judged withholds a
name, every list says where it comes from, a list that cannot be served
enables nothing even when a script ignores the status, and no request waits
for a busy runner."""
import csv
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
import torch
import yaml

from e2e_harness import (ROOT, SMALL, Daemon, children, daemon_on_copy,
                         full_screen, query, shared_screen)

sys.path.insert(0, os.path.join(ROOT, "tests", "demolib"))
import opscreen_demolib  # noqa: E402  (the demo library, as a deployment loads it)

# eleven ops (runner.ops) of two dtypes: the right ones the tests read,
# the crash (rsqrt), the hang (tanh) and exp (broken in bfloat16 only)
OPS = ("abs", "add", "mul", "neg", "relu", "sin", "cos", "sub", "rsqrt", "tanh",
       "exp")
SCOPE = {"runner__dtypes": "float32,bfloat16", "runner__classes": "same_shape",
         "runner__ops": ",".join(OPS)}
# the names the library's table registers, and every name the lists know:
# those and the library's own entry points (its `fused` module)
TABLE = sorted({fn.__name__ for _, fn, *_ in opscreen_demolib._FULL_CONFIG})
REGISTERED = sorted(set(TABLE) | set(opscreen_demolib.fused.__all__))
PROVENANCE = ("library", "library_version", "library_hash", "torch", "triton",
              "driver", "gpu_name", "gpu_uuid", "completed")


@pytest.fixture(scope="module")
def screened(tmp_path_factory, daemon_bin):
    d, run = full_screen(tmp_path_factory.mktemp("lists"), SCOPE)
    d.run_id = run
    yield d
    d.stop()


def body_lines(body):
    """The list lines of a text or CSV body: the `#` header dropped."""
    return [ln for ln in body.decode().splitlines() if not ln.startswith("#")]


def enabled_by(tmp_path, body, how):
    """What the demo library registers from `body` saved to a file, loaded the
    way a deployment loads it (only_enable(include=path) for allow-lists,
    enable(unused=path) for deny-lists): the names it would enable."""
    path = tmp_path / "list.yaml"
    path.write_bytes(body)
    lib = torch.library.Library("aten", "IMPL")
    opscreen_demolib._registered.clear()
    try:
        if how == "include":
            opscreen_demolib.only_enable(lib, include=str(path))
        else:
            opscreen_demolib.enable(lib, unused=str(path))
        return set(opscreen_demolib.all_registered_ops())
    finally:
        lib._destroy()
        opscreen_demolib._registered.clear()


# ---- dtype scope ---------------------------------------------------------------

def test_unscreened_dtype_allows_nothing(screened):
    """float64 was never screened: rsqrt (aborts) and tanh (hangs) were
    allowed from their dtype-free bootstrap verdicts alone; now nothing is,
    and each is withheld with the dtype named."""
    st, allow = screened.get_json("/allowlist?dtypes=float64")
    assert st == 200, allow
    assert allow["names"] == [], allow["names"]
    withheld = {w["name"]: w["reasons"] for w in allow["withheld"]}
    for name in ("rsqrt", "tanh", "abs", "add"):
        assert name in withheld, (name, allow["withheld"])
        assert any(r.get("dtype") == "float64" and "float64" in r["reason"] and
                   "never screened" in r["reason"] for r in withheld[name]), \
            withheld[name]
    # a mixed scope needs both: float64 still withholds everything
    st, allow = screened.get_json("/allowlist?dtypes=float32,float64")
    assert st == 200 and allow["names"] == [], allow["names"]
    # and the YAML a deployment loads enables nothing
    st, _, body = screened.get("/allowlist?dtypes=float64&format=yaml")
    assert st == 200 and yaml.safe_load(body)["include"] == []


def test_screened_dtypes_still_allow_the_correct_ops(screened):
    for scope in ("float32", "bfloat16", "float32,bfloat16", None):
        q = f"?dtypes={scope}" if scope else ""
        st, allow = screened.get_json("/allowlist" + q)
        assert st == 200, allow
        names = set(allow["names"])
        assert {"abs", "add", "mul", "neg", "relu", "sin", "cos", "sub"} <= names, \
            (scope, names)
        assert not names & {"rsqrt", "tanh"}, (scope, names)
        st, deny = screened.get_json("/denylist" + q)
        assert {"rsqrt", "tanh"} <= {e["name"] for e in deny["names"]}, (scope, deny)
    # exp is broken in bfloat16 only
    assert "exp" in screened.get_json("/allowlist?dtypes=float32")[1]["names"]
    assert "exp" not in screened.get_json("/allowlist?dtypes=bfloat16")[1]["names"]


# ---- op scope -------------------------------------------------------------------

def test_names_outside_the_hosts_op_scope_are_withheld(screened, tmp_path):
    """runner.ops: the screen is the host's full screen (it serves lists);
    every registered name outside the scope is withheld with the reason, in
    every dtype scope and policy, and the YAML a deployment loads enables
    none of them."""
    outside = set(REGISTERED) - set(OPS)
    assert outside
    st, run = screened.get_json(f"/runs/{screened.run_id}")
    assert run["full"] == 1, run
    for q in ("", "?dtypes=float32", "?policy=tolerant", "?mode=compile"):
        st, allow = screened.get_json("/allowlist" + q)
        assert st == 200, allow
        assert set(allow["names"]) <= set(OPS), (q, allow["names"])
        why = {w["name"]: w["reasons"] for w in allow["withheld"]}
        for name in outside:
            assert any(r["reason"] == "not screened: outside the host's op "
                       "scope (runner.ops)" for r in why.get(name, [])), \
                (q, name, why.get(name))
    _, _, body = screened.get("/allowlist?format=yaml")
    assert not enabled_by(tmp_path, body, "include") & outside
    # the scope the run screened is stored with it, per device
    ev = query(screened.db, "SELECT json FROM events WHERE run_id=? AND "
               "kind='scope'", (screened.run_id,))
    assert [json.loads(j) for j, in ev] == [{"device": -1, "ops": list(OPS)}]


def test_an_op_the_library_lacks_is_logged(tmp_path, daemon_bin):
    d, run = full_screen(tmp_path / "d", {"runner__dtypes": "float32",
                                          "runner__classes": "same_shape",
                                          "runner__ops": "sub,no_such_op"})
    try:
        assert (f"warning: run {run}: 'no_such_op' of the run's ops "
                "(runner.ops or the request) is no key or name of the library "
                "on device -1; nothing is screened for it") in d.logtext()
        st, allow = d.get_json("/allowlist")
        assert st == 200 and allow["names"] == ["sub"], allow
    finally:
        d.stop()


# ---- the deny-list: every name the allow-list does not hold ---------------------

# every scope a list takes (the query parameters of GET /allowlist)
LIST_SCOPES = ("", "dtypes=float64", "dtypes=float32", "dtypes=bfloat16",
               "mode=compile", "mode=cudagraph", "policy=tolerant", "faster=1",
               "deterministic=1", "gpu=cpu", "stale=ok")


def test_every_deny_form_excludes_what_the_allow_list_does_not_hold(screened, tmp_path):
    """In every scope the deny-list (each form) excludes every registered name
    the allow-list of the same scope does not hold: the denied with their
    evidence, the withheld with their reasons. enable(unused=) of its YAML
    enables exactly what the allow-list holds, never an unmeasured name."""
    for q in LIST_SCOPES:
        amp = "&" + q if q else ""
        st, allow = screened.get_json("/allowlist?" + q)
        assert st == 200, (q, allow)
        st, deny = screened.get_json("/denylist?" + q)
        assert st == 200, (q, deny)
        want = set(REGISTERED) - set(allow["names"])
        got = [e["name"] for e in deny["names"]]
        assert set(got) == want and len(got) == len(want), (q, set(got) ^ want)
        assert deny["denied"] + deny["withheld"] == len(got), q
        withheld = {w["name"] for w in allow["withheld"]}
        for e in deny["names"]:
            if e["verdict"] in ("withheld", "inconclusive"):
                assert e["name"] in withheld, (q, e)
                assert e["severity"] is None and e["reasons"], (q, e)
                assert e["reason"] == "withheld: " + e["reasons"][0]["reason"], (q, e)
            else:
                assert e["verdict"] in ("broken", "hazard") and e["evidence"], (q, e)
        # the denied first, then the withheld
        kinds = [e["verdict"] in ("withheld", "inconclusive") for e in deny["names"]]
        assert kinds == sorted(kinds), q
        _, _, body = screened.get("/denylist?format=text" + amp)
        assert body_lines(body) == got, q
        _, _, body = screened.get("/denylist?format=csv" + amp)
        rows = list(csv.DictReader(io.StringIO("\n".join(body_lines(body)))))
        assert [(r["name"], r["verdict"], r["reason"]) for r in rows] == \
            [(e["name"], e["verdict"], e["reason"]) for e in deny["names"]], q
        _, _, body = screened.get("/denylist?format=yaml" + amp)
        assert yaml.safe_load(body)["exclude"] in (got, []) and \
            set(yaml.safe_load(body)["exclude"] or []) == want, q
        assert f"{deny['denied']} denied" in body.decode(), q
        # loaded as a deployment loads it: only what the allow-list holds
        assert enabled_by(tmp_path, body, "exclude") == \
            set(allow["names"]) & set(TABLE), q
    # never screened in float64: every name excluded, the abort and the
    # hang among them; under mode=compile the names never traced too
    st, deny = screened.get_json("/denylist?dtypes=float64")
    assert {e["name"] for e in deny["names"]} == set(REGISTERED)
    st, deny = screened.get_json("/denylist?mode=compile")
    st, plain = screened.get_json("/denylist")
    assert len(deny["names"]) > len(plain["names"])
    assert any("compile" in e["reason"] for e in deny["names"]
               if e["verdict"] == "withheld"), deny


def test_a_name_the_serving_screens_table_lacks_is_excluded(tmp_path, daemon_bin):
    """neg was not in the library's table when the serving screen ran (its
    kernel registered for a dispatch key no plain call reaches); the library
    registers it now: the allow-list does not hold it, so the deny-list
    excludes it, withheld."""
    scope = dict(SMALL, runner__ops="add,sub,neg")
    d, run = full_screen(tmp_path / "d", scope, env={"OPSCREEN_DEMOLIB_KEYS": "neg:Conjugate"})
    d.stop()
    d = Daemon(tmp_path / "d", **scope).start()
    try:
        d.wait_fingerprint()
        assert query(d.db, "SELECT count(*) FROM entries WHERE run_id=? AND "
                     "name='neg'", (run,))[0][0] == 0
        st, allow = d.get_json("/allowlist?stale=ok")
        assert st == 200 and "neg" not in allow["names"] and "add" in allow["names"], allow
        st, deny = d.get_json("/denylist?stale=ok")
        assert st == 200, deny
        (neg,) = [e for e in deny["names"] if e["name"] == "neg"]
        assert neg["verdict"] == "withheld" and "not in the table" in neg["reason"], neg
        assert deny["denied"] + deny["withheld"] == len(deny["names"])
        _, _, body = d.get("/denylist?stale=ok&format=yaml")
        assert "neg" in yaml.safe_load(body)["exclude"]
        assert "neg" not in enabled_by(tmp_path, body, "exclude")
    finally:
        d.stop()


# ---- provenance -------------------------------------------------------------------

def test_every_list_names_its_provenance(screened):
    for which in ("allowlist", "denylist"):
        st, lst = screened.get_json(f"/{which}")
        assert st == 200, lst
        assert lst["policy"] == "strict" and lst["mode"] == "eager", lst
        (r,) = lst["runs"]
        assert r["run"] == screened.run_id and r["device"] == -1, r
        for f in PROVENANCE:
            assert f in r, (f, r)
        assert r["library"] == "demolib" and r["library_version"] == "0.1.0"
        assert len(r["library_hash"]) == 64 and r["torch"] == torch.__version__
        assert r["gpu_name"] == "cpu"
        assert r["completed"].endswith("Z") and r["completed"][:2] == "20", r
        st, tol = screened.get_json(f"/{which}?policy=tolerant")
        assert st == 200 and tol["policy"] == "tolerant", tol
        for fmt, policy in [(f, p) for f in ("yaml", "text", "csv")
                            for p in ("strict", "tolerant", None)]:
            q = f"&policy={policy}" if policy else ""
            st, _, body = screened.get(f"/{which}?format={fmt}{q}")
            assert st == 200
            head = [ln for ln in body.decode().splitlines() if ln.startswith("#")]
            text = "\n".join(head)
            assert body.startswith(b"# opscreen " + which.encode()), body[:200]
            for want in (f"policy {policy or 'strict'}", "mode eager",
                         f"run {screened.run_id} ",
                         f"completed {r['completed']}", "library demolib 0.1.0",
                         "source " + r["library_hash"], "torch " + r["torch"],
                         "triton ", "driver ", "gpu cpu", "uuid "):
                assert want in text, (which, fmt, want, text)


def test_the_yaml_with_its_header_still_loads(screened, tmp_path):
    st, allow = screened.get_json("/allowlist")
    st, deny = screened.get_json("/denylist")
    denied = {e["name"] for e in deny["names"]}
    _, _, body = screened.get("/allowlist?format=yaml")
    assert yaml.safe_load(body) == {"include": allow["names"]}
    # the entry points are called directly, never registered: the table's part
    assert enabled_by(tmp_path, body, "include") == set(allow["names"]) & set(TABLE)
    _, _, body = screened.get("/denylist?format=yaml")
    assert set(yaml.safe_load(body)["exclude"]) == denied
    assert enabled_by(tmp_path, body, "exclude") == set(TABLE) - denied
    _, _, body = screened.get("/allowlist?format=text")
    assert body_lines(body) == allow["names"]
    _, _, body = screened.get("/denylist?format=csv")
    rows = list(csv.DictReader(io.StringIO("\n".join(body_lines(body)))))
    assert {r["name"] for r in rows} == denied


# ---- no complete screen: 503 bodies that enable nothing -----------------------------

def test_503_bodies_enable_nothing(make_daemon, tmp_path):
    """No screen yet, the table known from the runner's hello: a script that
    ignores the status and loads the body enables no op."""
    d = make_daemon().start()
    d.wait_fingerprint()
    st, err = d.get_json("/allowlist")
    assert st == 503 and "no complete screen" in err["error"], err
    assert d.get_json("/denylist")[0] == 503

    st, ctype, body = d.get("/allowlist?format=yaml")
    assert st == 503 and ctype == "application/yaml", body
    assert yaml.safe_load(body) == {"include": []}, body
    assert enabled_by(tmp_path, body, "include") == set()
    assert b"no complete screen" in body

    st, ctype, body = d.get("/denylist?format=yaml")
    assert st == 503 and ctype == "application/yaml", body
    assert sorted(yaml.safe_load(body)["exclude"]) == REGISTERED, body
    assert enabled_by(tmp_path, body, "exclude") == set()

    for which, want in (("allowlist", []), ("denylist", REGISTERED)):
        st, ctype, body = d.get(f"/{which}?format=text")
        assert st == 503 and ctype.startswith("text/plain"), body
        assert sorted(body_lines(body)) == want, body
        st, ctype, body = d.get(f"/{which}?format=csv")
        assert st == 503 and ctype.startswith("text/csv"), body
        rows = list(csv.reader(io.StringIO("\n".join(body_lines(body)))))
        assert sorted(r[0] for r in rows[1:]) == want, body
    # a bad request for a list in a known format is refused the same way
    st, _, body = d.get("/denylist?format=yaml&dtypes=float128")
    assert st == 400 and sorted(yaml.safe_load(body)["exclude"]) == REGISTERED
    st, _, body = d.get("/allowlist?format=yaml&colour=blue")
    assert st == 400 and yaml.safe_load(body) == {"include": []}


def test_503_bodies_when_the_table_is_unknown(make_daemon, tmp_path):
    """The library cannot be imported: no table to name. The YAML deny body's
    `exclude` is no list, so a loader raises instead of enabling every op."""
    d = make_daemon(runner__library="no_such_library_xyz").start()
    d.wait_device_error()
    st, _, body = d.get("/denylist?format=yaml")
    assert st == 503, body
    assert b"registration table is not known" in body
    data = yaml.safe_load(body)
    assert not isinstance(data["exclude"], (list, tuple, set, str, dict)), data
    with pytest.raises(TypeError):
        enabled_by(tmp_path, body, "exclude")
    assert opscreen_demolib.all_registered_ops() == []
    st, _, body = d.get("/allowlist?format=yaml")
    assert st == 503 and yaml.safe_load(body) == {"include": []}
    for which in ("allowlist", "denylist"):
        st, _, body = d.get(f"/{which}?format=text")
        assert st == 503 and body_lines(body) == [], body


def test_503_bodies_list_the_stored_table_while_the_library_fails(screened, tmp_path):
    """The library fails to load after a screen: the table its runners would
    report is unknown, so every blacklist form lists the table the newest
    screen stored, and what each enables is nothing of the library."""
    os.makedirs(tmp_path / "d")
    src = sqlite3.connect(screened.db)
    dst = sqlite3.connect(tmp_path / "d" / "opscreen.db")
    src.backup(dst)     # a consistent copy of the store the screen left
    src.close()
    dst.close()
    d = Daemon(tmp_path / "d", runner__library="no_such_library_xyz", **SCOPE).start()
    try:
        d.wait_device_error()
        st, err = d.get_json("/denylist")
        assert st == 503 and sorted(e["name"] for e in err["names"]) == REGISTERED, err
        assert err["table_from_run"] == screened.run_id and err["denied"] == 0, err
        assert all(e["verdict"] == "withheld" for e in err["names"]), err
        st, _, body = d.get("/denylist?format=yaml")
        assert st == 503 and b"the names of the table run" in body, body
        assert sorted(yaml.safe_load(body)["exclude"]) == REGISTERED
        assert enabled_by(tmp_path, body, "exclude") == set()
        st, _, body = d.get("/denylist?format=text")
        assert st == 503 and sorted(body_lines(body)) == REGISTERED, body
        st, _, body = d.get("/denylist?format=csv")
        rows = list(csv.DictReader(io.StringIO("\n".join(body_lines(body)))))
        assert st == 503 and sorted(r["name"] for r in rows) == REGISTERED
        for fmt, var in (("vllm-env", "VLLM_FL_FLAGOS_BLACKLIST="),
                         ("sglang-env", "SGLANG_FL_FLAGOS_BLACKLIST=")):
            st, _, body = d.get(f"/allowlist?format={fmt}")
            line = [ln for ln in body_lines(body) if ln.startswith(var)]
            assert st == 503 and len(line) == 1, body
            assert sorted(line[0].split("=", 1)[1].split(",")) == REGISTERED, body
        st, _, body = d.get("/allowlist?format=vllm-yaml")
        assert st == 503 and sorted(yaml.safe_load(body)["flagos_blacklist"]) == REGISTERED
    finally:
        d.stop()


def test_a_library_that_registers_nothing_is_a_fault(tmp_path, daemon_bin):
    """A table empty on this host is no complete screen of nothing: the
    device is in error with the reason, no run completes, and the lists are
    503."""
    lib = tmp_path / "lib" / "emptylib"
    lib.mkdir(parents=True)
    (lib / "__init__.py").write_text("_FULL_CONFIG = ()\n")
    d = Daemon(tmp_path / "d", runner__library="emptylib",
               runner__runner_path=f"{ROOT}/probes:{tmp_path / 'lib'}").start()
    try:
        d.wait_device_error("registers no operator")
        for which in ("allowlist", "denylist"):
            st, err = d.get_json(f"/{which}")
            assert st == 503 and "registers no operator" in err.get("why", ""), err
        st, out = d.post_run({})
        if st == 202:
            run = d.wait_run(out["run"], timeout=120)
            assert run["state"] != "complete", run
        else:
            assert st in (409, 503), out
        assert "registers no operator on this host" in d.logtext()
    finally:
        d.stop()


# ---- no API thread waits for a runner ---------------------------------------------

def runner_pids(d):
    """The daemon's runners (not its runner pool, runner.pool)."""
    return children(d.proc.pid, b"opscreen_runner")


# A request that waited for a busy runner took the 2-s confirmation wait;
# one that does not wait takes milliseconds. The bound between them leaves a
# loaded machine room.
QUICK = 1.5


def test_allowlist_does_not_wait_for_busy_runners(tmp_path_factory, tmp_path, daemon_bin):
    """The only runner hangs in tanh with the fingerprint period passed: lists
    answer at once from the last confirmation (it waited 2 s per request). A
    runner that cannot confirm past the period plus the grace still makes
    the lists 503, and fast. The host's full screen is a copy of the
    session's float32 x same_shape screen (shared_screen)."""
    scope = dict(runner__dtypes="float32", runner__classes="same_shape")
    conf = dict(scope, runner__fingerprint_period=1, runner__workers_per_device=1,
                runner__compile_workers=0, runner__case_deadline=3,
                runner__cpu_case_deadline=12)
    src, _ = shared_screen(tmp_path_factory, "f32-same-shape", **scope)
    d = daemon_on_copy(tmp_path / "d", src, **conf).start()
    try:
        d.wait_fingerprint()
        assert d.get_json("/allowlist")[0] == 200
        st, out = d.post_run({"ops": ["tanh"], "classes": ["same_shape"],
                              "dtypes": ["float32"]})
        assert st == 202, out
        deadline = time.time() + 30
        while True:
            st, r = d.get_json(f"/runs/{out['run']}")
            if r["state"] == "running" and (r.get("progress") or {}).get("total"):
                break
            assert time.time() < deadline, r
            time.sleep(0.05)
        # past the period (1 s) since the runner's last answer, which was
        # before its hang began
        t_hang = time.time()
        while time.time() - t_hang < 1.5:
            time.sleep(0.1)
        t0 = time.time()
        for i in range(50):
            t = time.time()
            st, _, body = d.get("/allowlist")
            assert time.time() - t < QUICK, (i, time.time() - t)
            assert st == 200, body
        assert time.time() - t0 < 50 * QUICK / 2, time.time() - t0
        assert d.get_json(f"/runs/{out['run']}")[1]["state"] == "running"
        d.wait_run(out["run"])

        # a runner that never answers: 503 once the grace has passed, fast;
        # first the runner that replaced the hung one says hello
        deadline = time.time() + 120
        while not ((pids := runner_pids(d)) and len(pids) == 1 and
                   f"runner pid {pids[0]} said hello" in
                   open(d.log, errors="replace").read()):
            assert time.time() < deadline, d.logtext()
            time.sleep(0.1)
        (pid,) = pids
        os.kill(pid, signal.SIGSTOP)
        try:
            deadline = time.time() + 60
            while True:
                t = time.time()
                st, _, body = d.get("/allowlist")
                assert time.time() - t < QUICK, time.time() - t
                if st == 503:
                    break
                assert st == 200 and time.time() < deadline, body
                time.sleep(0.2)
            assert b"fingerprint has not been re-read" in body
            st, _, body = d.get("/denylist?format=yaml")
            assert st == 503 and sorted(yaml.safe_load(body)["exclude"]) == REGISTERED
        finally:
            os.kill(pid, signal.SIGCONT)
        deadline = time.time() + 30
        while d.get("/allowlist")[0] != 200:
            assert time.time() < deadline, d.logtext()
            time.sleep(0.2)
    finally:
        d.stop()
