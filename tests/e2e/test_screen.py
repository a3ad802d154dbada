"""A full screen of the demo library: the deny-list holds exactly the planted
defects with the right class, the allow-list exactly the correct names."""
import os
import subprocess
import sys

import yaml

from e2e_harness import ROOT

sys.path.insert(0, os.path.join(ROOT, "tests", "demolib"))
import opscreen_demolib as demolib  # noqa: E402

# name -> (reason, probe class or None when any class may show it)
DEFECTS = {
    "minimum": ("shape_mismatch", "broadcast"),
    "sum": ("numeric_error", "reduction"),
    "sum_dim": ("numeric_error", "reduction"),
    "clamp": ("raises", "contract"),
    "exp": ("raises", None),
    "rsqrt": ("crash", None),
    "cumsum": ("timeout", None),
}


def library_names():
    return sorted({fn.__name__ for _, fn, *rest in demolib._FULL_CONFIG})


def test_deny_list_is_exactly_the_defects(screened):
    st, deny = screened.get_json("/denylist")
    assert st == 200, deny
    got = {e["name"]: e for e in deny["names"]}
    assert set(got) == set(DEFECTS), deny
    for name, (reason, klass) in DEFECTS.items():
        e = got[name]
        assert e["verdict"] == "broken"
        assert e["reason"] == reason, e
        if klass:
            assert e["class"] == klass, e
        assert e["evidence"], e
        assert e["detail"], e


def test_allow_list_is_exactly_the_correct_names(screened):
    st, allow = screened.get_json("/allowlist")
    assert st == 200, allow
    expected = sorted(set(library_names()) - set(DEFECTS))
    assert sorted(allow["names"]) == expected
    assert allow["stale"] is False


def test_dtype_raise_is_scoped_to_bfloat16(screened):
    st, deny = screened.get_json("/denylist")
    exp = next(e for e in deny["names"] if e["name"] == "exp")
    assert {ev["dtype"] for ev in exp["evidence"]} == {"bfloat16"}
    st, allow = screened.get_json("/allowlist?dtypes=float32,float16")
    assert st == 200
    assert "exp" in allow["names"]
    assert "minimum" not in allow["names"]
    st, allow = screened.get_json("/allowlist?dtypes=bfloat16")
    assert "exp" not in allow["names"]


def test_crash_and_hang_recorded_and_run_completed(screened):
    st, run = screened.get_json(f"/runs/{screened.run_id}")
    assert run["state"] == "complete"
    statuses = {r["status"]: r["n"] for r in run["cases_by_status"]}
    assert statuses.get("crash", 0) >= 1 and statuses.get("timeout", 0) >= 1
    assert statuses.get("pass", 0) > 100
    assert run["done"] == run["total"]
    st, ops = screened.get_json("/ops/rsqrt")
    crashes = [c for c in ops["cases"] if c["status"] == "crash"]
    assert crashes, ops
    st, case = screened.get_json(f"/cases/{crashes[0]['id']}")
    assert "signal 6" in case["detail"] or "abort" in case["detail"].lower(), case
    assert case["repro"], case
    st, ops = screened.get_json("/ops/cumsum")
    assert any(c["status"] == "timeout" for c in ops["cases"]), ops


def test_formats(screened):
    st, ctype, body = screened.get("/allowlist?format=text")
    assert st == 200 and ctype.startswith("text/plain")
    text_names = body.decode().split()
    st, allow = screened.get_json("/allowlist")
    assert text_names == allow["names"]
    st, ctype, body = screened.get("/allowlist?format=csv")
    lines = body.decode().splitlines()
    assert lines[0] == "name" and [ln.strip('"') for ln in lines[1:]] == allow["names"]
    st, ctype, body = screened.get("/allowlist?format=yaml")
    assert yaml.safe_load(body) == {"include": allow["names"]}
    st, ctype, body = screened.get("/denylist?format=yaml")
    assert sorted(yaml.safe_load(body)["exclude"]) == sorted(DEFECTS)
    st, ctype, body = screened.get("/denylist?format=csv")
    assert body.decode().splitlines()[0] == "name,verdict,reason,class,detail"


def test_yaml_lists_drive_the_library(screened, tmp_path):
    """only_enable(include=allowlist.yaml) registers exactly the allowed names,
    enable(unused=denylist.yaml) everything but the denied ones."""
    _, _, allow = screened.get("/allowlist?format=yaml")
    _, _, deny = screened.get("/denylist?format=yaml")
    (tmp_path / "allow.yaml").write_bytes(allow)
    (tmp_path / "deny.yaml").write_bytes(deny)
    code = f"""
import sys, json, torch
sys.path.insert(0, {os.path.join(ROOT, 'tests', 'demolib')!r})
import opscreen_demolib as d
lib = torch.library.Library("aten", "IMPL")
d.only_enable(lib=lib, include={str(tmp_path / 'allow.yaml')!r})
a = sorted(set(d.all_registered_ops()))
lib._destroy()
lib = torch.library.Library("aten", "IMPL")
d.enable(lib=lib, unused={str(tmp_path / 'deny.yaml')!r})
b = sorted(set(d.all_registered_ops()))
print(json.dumps([a, b]))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, check=True)
    a, b = __import__("json").loads(out.stdout.strip().splitlines()[-1])
    _, allow_j = screened.get_json("/allowlist")
    assert a == sorted(allow_j["names"])
    assert b == sorted(set(library_names()) - set(DEFECTS))


def test_repro_fails_by_hand(screened):
    """Each stored repro of a numeric or shape failure fails when run by hand."""
    _, deny = screened.get_json("/denylist")
    for name in ("minimum", "sum", "sum_dim", "clamp"):
        e = next(x for x in deny["names"] if x["name"] == name)
        assert "repro" in e, e
        path = os.path.join(screened.tmp, f"repro_{name}.py")
        with open(path, "w") as f:
            f.write(e["repro"])
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "tests", "demolib"))
        r = subprocess.run([sys.executable, path], capture_output=True, text=True,
                           env=env, timeout=120)
        assert r.returncode != 0, (name, r.stdout, r.stderr)


def test_ops_and_runs_views(screened):
    st, ops = screened.get_json("/ops")
    assert st == 200 and ops["run"] == screened.run_id
    names = {v["name"] for v in ops["verdicts"]}
    assert "add" in names and "minimum" in names
    st, one = screened.get_json("/ops/add")
    assert st == 200 and one["verdicts"] and all(
        v["verdict"] == "verified" for v in one["verdicts"])
    assert one["history"]
    st, runs = screened.get_json("/runs")
    assert any(r["id"] == screened.run_id for r in runs["runs"])
    st, _ = screened.get_json("/ops/no_such_name")
    assert st == 404


def test_store_is_consistent(screened):
    import sqlite3
    db = sqlite3.connect(screened.db)
    total, done = db.execute(
        "SELECT total, done FROM runs WHERE id=?", (screened.run_id,)).fetchone()
    ncases = db.execute("SELECT count(*) FROM cases WHERE run_id=?",
                        (screened.run_id,)).fetchone()[0]
    nres = db.execute("SELECT count(*) FROM results r JOIN cases c ON "
                      "c.id=r.case_id WHERE c.run_id=?",
                      (screened.run_id,)).fetchone()[0]
    assert total == done == ncases == nres
    assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
