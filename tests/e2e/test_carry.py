"""Carried verdicts (runner.carry): a screen measures only the keys whose code
changed since the newest complete full screen on the same device and
environment, keeps the others' results re-judged by the current rule, and
measures afresh every key due and, when nothing changed, a rotating share.

Against the real daemon and runner on a copy of the demo library: 0.1.0 is
screened, then 0.2.0 changes only `neg`'s code."""
import json
import math
import os
import re
import shutil
import sqlite3
import subprocess
import sys

import pytest

from e2e_harness import ROOT, Daemon

# ten ops of float32 x same_shape (runner.ops): neg (whose code the upgrade
# changes), add (the planted intermittent failure), sqrt (numerics), relu
# (a degenerate oracle regenerates a case) and six more to carry and rotate
SCOPE = {"runner__dtypes": "float32", "runner__classes": "same_shape",
         "runner__carry": "yes",
         "runner__ops": "add,sub,mul,neg,relu,sqrt,exp,abs,div,maximum"}
DAY = 86400.0


def events(d, run, kind="carry"):
    db = sqlite3.connect(d.db)
    try:
        return [json.loads(j) for (j,) in db.execute(
            "SELECT json FROM events WHERE run_id=? AND kind=? ORDER BY id",
            (run, kind))]
    finally:
        db.close()


def verdicts(d, run):
    st, ops = d.get_json(f"/ops?run={run}")
    assert st == 200, ops
    return {(v["key"], v["dtype"]): v for v in ops["verdicts"]}


def screen(d, body=None):
    st, out = d.post_run(body or {})
    assert st == 202, out
    run = d.wait_run(out["run"])
    assert run["state"] == "complete", (run, d.logtext())
    return out["run"], run


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("carry")
    lib = tmp / "lib"
    shutil.copytree(os.path.join(ROOT, "tests", "demolib", "opscreen_demolib"),
                    lib / "opscreen_demolib",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return lib


@pytest.fixture(scope="module")
def upgraded(lib, daemon_bin):
    scope = dict(SCOPE, runner__runner_path=f"{ROOT}/probes:{lib}")
    d = Daemon(lib.parent / "d", **scope).start()
    d.wait_fingerprint()
    first, _ = screen(d)
    d.stop()
    # 0.2.0: neg's code changes (what it computes does not)
    ops = lib / "opscreen_demolib" / "ops.py"
    ops.write_text(ops.read_text().replace(
        'def neg(self):\n    _garbage("neg")\n',
        'def neg(self):\n    _garbage("neg")\n    self = self + 0\n'))
    init = lib / "opscreen_demolib" / "__init__.py"
    init.write_text(re.sub(r'__version__ = "[^"]*"', '__version__ = "0.2.0"',
                           init.read_text()))
    d = Daemon(lib.parent / "d", **scope).start()
    d.wait_fingerprint()
    second, detail = screen(d)
    d.first, d.second, d.detail, d.scope = first, second, detail, scope
    yield d
    d.stop()


def test_an_upgrade_measures_only_the_changed_keys(upgraded):
    d = upgraded
    (ev,) = events(d, d.second)
    assert ev["source"] == d.first and ev["same_library"] is False, ev
    assert ev["changed"] == ["neg"], ev["changed"]
    assert ev["refreshed"] == [], ev      # another library: no rotation
    assert "neg" not in ev["carried"] and "add.Tensor" in ev["carried"]
    # every case but neg's was carried
    db = sqlite3.connect(d.db)
    total, measured, carried = db.execute(
        "SELECT count(*), sum(r.carried_from IS NULL), sum(r.carried_from IS "
        "NOT NULL) FROM cases c JOIN results r ON r.case_id = c.id WHERE "
        "c.run_id=?", (d.second,)).fetchone()
    keys = {k for (k,) in db.execute(
        "SELECT DISTINCT c.key FROM cases c JOIN results r ON r.case_id = c.id "
        "WHERE c.run_id=? AND r.carried_from IS NULL", (d.second,))}
    # a case run 1 regenerated (a degenerate oracle: relu of one negative
    # value) has another spec there, and is measured again
    reseeded = {k for (k,) in db.execute(
        "SELECT DISTINCT key FROM cases WHERE run_id=? AND attempt > 0",
        (d.first,))}
    db.close()
    assert "neg" in keys and keys <= {"neg"} | reseeded, (keys, reseeded)
    assert d.detail["carried"] == carried == total - measured > 0.8 * total
    assert d.detail["done"] == d.detail["total"] == total
    # each carried result points at the case that measured it, in run 1
    st, ops = d.get_json(f"/ops/add?run={d.second}")
    v = next(v for v in ops["verdicts"] if v["dtype"] == "float32")
    assert v["carried_from"] == d.first, v
    neg = next(v for v in d.get_json(f"/ops/neg?run={d.second}")[1]["verdicts"]
               if v["dtype"] == "float32")
    assert neg["carried_from"] is None, neg


def test_lists_name_what_was_carried(upgraded):
    d = upgraded
    st, allow = d.get_json("/allowlist")
    assert st == 200, allow
    (prov,) = allow["runs"]
    assert prov["run"] == d.second, prov
    carried = {c["key"]: c["run"] for c in prov["carried"]}
    assert "neg" not in carried and carried["add.Tensor"] == d.first, prov
    # measured: neg, and a key with a case run 1 regenerated (relu)
    assert prov["carried_keys"] == len(carried) and 1 <= prov["measured_keys"] <= 2
    st, _, text = d.get("/allowlist?format=text")
    assert st == 200
    assert ("%d carried from earlier screens" % len(carried)).encode() in text, text


def test_carried_verdicts_equal_a_fresh_screen(upgraded):
    """The same library screened again with carry: false measures every key;
    its verdicts are the carried screen's, key x dtype by key x dtype."""
    d = upgraded
    fresh, detail = screen(d, {"carry": False})
    assert detail["carried"] == 0
    assert events(d, fresh) == [] or all(e["cases"] == 0 for e in events(d, fresh))
    a, b = verdicts(d, d.second), verdicts(d, fresh)
    assert set(a) == set(b)
    diff = {k: (a[k]["verdict"], b[k]["verdict"]) for k in a
            if (a[k]["verdict"], a[k]["reason"], a[k]["severity"]) !=
            (b[k]["verdict"], b[k]["reason"], b[k]["severity"])}
    assert diff == {}, diff
    d.fresh = fresh


def test_upgrade_check_reports_the_carry_and_finds_a_carried_verdict_that_differs(
        upgraded, tmp_path):
    """bench/upgrade_check.py, the GPU upgrade measurement's report, on the
    upgrade and the fresh screen above: the carry as the event says, and no
    difference; then a copy whose fresh screen judges a carried key otherwise
    is a failure (exit 2) unless the key is known to be nondeterministic."""
    d = upgraded
    copy = tmp_path / "copy.db"
    src = sqlite3.connect(d.db)
    dst = sqlite3.connect(copy)
    src.backup(dst)
    src.close()
    (ev,) = events(d, d.second)

    def run(*extra, upgrade=d.second):
        return subprocess.run(
            [sys.executable, os.path.join(ROOT, "bench", "upgrade_check.py"),
             str(copy), str(copy), "--upgrade-run", str(upgrade),
             "--full-run", str(d.fresh), *extra],
            capture_output=True, text=True, timeout=60)

    out = run()
    assert out.returncode == 0, out.stderr + out.stdout
    assert (f"{len(ev['carried'])} carried, {len(ev['changed'])} changed or new"
            in out.stdout), out.stdout
    assert re.search(r"compared with the full screen: [1-9]\d*, 0 differ", out.stdout), out.stdout
    dst.execute("UPDATE verdicts SET verdict='broken', reason='mismatch' WHERE run_id=? "
                "AND key='add.Tensor' AND dtype='float32'", (d.fresh,))
    dst.commit()
    out = run()
    assert out.returncode == 2, out.stdout
    assert "| add.Tensor | float32 | verified ok" in out.stdout, out.stdout
    out = run("--known", "add.Tensor")
    assert out.returncode == 0 and "1 differ, 0 beyond" in out.stdout, out.stdout
    # an upgrade run that carried nothing is refused, not reported as clean
    out = run(upgrade=d.fresh)
    assert out.returncode == 1 and "no carry event" in out.stderr, out.stderr
    dst.close()


def test_the_release_changes_are_events(upgraded):
    d = upgraded
    st, ev = d.get_json("/regressions?kind=changed")
    assert st == 200, ev
    assert [(e["name"], e["key"], e["run"]) for e in ev["events"]] == \
        [("neg", "neg", d.second)], ev


def test_a_nightly_screen_rotates_a_share(upgraded):
    """Nothing changed: 1/7 of the keys, those measured longest ago, are
    measured again; the rest are carried."""
    d = upgraded
    nightly, detail = screen(d)
    (ev,) = events(d, nightly)
    assert ev["same_library"] is True and ev["changed"] == [], ev
    n = len(ev["carried"]) + len(ev["refreshed"])
    assert len(ev["refreshed"]) == math.ceil(n / 7), ev
    assert detail["carried"] > 0


def test_keys_due_are_measured_afresh_and_carried_results_rejudged(upgraded):
    """Every stored measurement made six days older: every key is due and
    measured again. Then a stricter rule ([verdict] critical_ratio = 1):
    the numerics failure of sqrt (2 ULP) carried from the screen before is
    judged critical, as if measured under that rule."""
    d = upgraded
    tmp, scope = d.tmp, d.scope
    d.stop()
    db = sqlite3.connect(d.db)
    db.execute("UPDATE results SET created = created - ?", (6 * DAY,))
    db.commit()
    db.close()
    d = Daemon(tmp, **scope).start()
    try:
        d.wait_fingerprint()
        due, detail = screen(d)
        (ev,) = events(d, due)
        assert ev["carried"] == [] and ev["refreshed"], ev
        assert detail["carried"] == 0
        sqrt = verdicts(d, due)[("sqrt", "float32")]
        assert sqrt["severity"] == "numerics", sqrt
    finally:
        d.stop()
    d = Daemon(tmp, verdict__critical_ratio=1, **scope).start()
    try:
        d.wait_fingerprint()
        strict, _ = screen(d)
        sqrt = verdicts(d, strict)[("sqrt", "float32")]
        assert sqrt["carried_from"] == due, sqrt
        assert sqrt["verdict"] == "broken" and sqrt["severity"] == "critical", sqrt
    finally:
        d.stop()


def test_carry_false_is_checked(upgraded, make_daemon):
    d = make_daemon(**SCOPE).start()
    st, out = d.post_run({"carry": "no"})
    assert st == 400 and "carry" in out["error"], out


def test_a_carried_screen_never_clears_an_intermittent_failure(lib, daemon_bin,
                                                                tmp_path):
    """`add` fails in one screen (OPSCREEN_DEMOLIB_BREAK=add: the library
    and its fingerprint are the same) and passes the next, measured: it stays
    broken, "intermittent". The screen after that carries every unchanged key
    but measures `add`: carried passes would be a second clean screen that
    measured nothing (on the H200 on 2026-12-03 three bitwise keys turned
    verified that way)."""
    scope = dict(SCOPE, runner__runner_path=f"{ROOT}/probes:{lib}")
    d = Daemon(tmp_path / "d", env={"OPSCREEN_DEMOLIB_BREAK": "add"},
               **scope).start()
    try:
        d.wait_fingerprint()
        failed, _ = screen(d)
        assert verdicts(d, failed)[("add.Tensor", "float32")]["verdict"] == \
            "broken"
    finally:
        d.stop()
    d = Daemon(tmp_path / "d", **scope).start()
    try:
        d.wait_fingerprint()
        clean, _ = screen(d, {"carry": False})
        v = verdicts(d, clean)[("add.Tensor", "float32")]
        assert (v["verdict"], v["reason"]) == ("broken", "intermittent"), v
        after, detail = screen(d)
        (ev,) = events(d, after)
        assert ev["unsettled"] == ["add.Tensor"], ev
        assert "add.Tensor" not in ev["carried"] and len(ev["carried"]) > 5, ev
        assert detail["carried"] > 0
        v = verdicts(d, after)[("add.Tensor", "float32")]
        # measured afresh (a second clean screen clears it, by measurement)
        assert v["carried_from"] is None and v["verdict"] == "verified", v
        db = sqlite3.connect(d.db)
        n, carried = db.execute(
            "SELECT count(*), count(r.carried_from) FROM cases c JOIN results r "
            "ON r.case_id = c.id WHERE c.run_id = ? AND c.key = 'add.Tensor'",
            (after,)).fetchone()
        db.close()
        assert n > 0 and carried == 0, (n, carried)
    finally:
        d.stop()
