"""bench/mode_names.py over the parts of one table (several databases): the
names per mode of their union, and a name in two parts refused."""
import os
import re
import sqlite3
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "bench", "mode_names.py")


def _db(path, rows):
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY, state TEXT)")
    con.execute("CREATE TABLE verdicts (run_id, name, key, dtype, verdict, reason, "
                "compile_verdict, compile_reason, cudagraph_verdict, cudagraph_reason)")
    con.execute("INSERT INTO runs VALUES (1, 'complete')")
    con.executemany("INSERT INTO verdicts VALUES (1, ?, ?, ?, ?, '', ?, '', ?, '')", rows)
    con.commit()
    con.close()
    return str(path)


def _allowed(out, mode):
    m = re.search(rf"allowed in {mode}: (\d+) of (\d+): ?(.*)", out)
    return int(m.group(2)), set(m.group(3).split(", ")) - {""}


def test_parts_give_the_union_and_a_shared_name_is_refused(tmp_path):
    a = _db(tmp_path / "a.db", [
        ("abs", "abs", "float32", "verified", "verified", "verified"),
        ("abs", "abs", "float16", "verified", "broken", "verified"),
        ("add", "add.Tensor", "float32", "broken", "verified", "verified")])
    b = _db(tmp_path / "b.db", [
        ("mul", "mul.Tensor", "float32", "verified", "verified", None),
        ("sub", "sub.Tensor", "float32", "verified", "verified", "verified")])
    out = subprocess.run([sys.executable, TOOL, a, b], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert _allowed(out.stdout, "eager") == (4, {"abs", "mul", "sub"})
    assert _allowed(out.stdout, "compile") == (4, {"mul", "sub"})
    assert _allowed(out.stdout, "cudagraph") == (4, {"abs", "sub"})  # mul: no graph verdict
    dup = subprocess.run([sys.executable, TOOL, a, a], capture_output=True, text=True)
    assert dup.returncode == 2 and "abs: in" in dup.stderr, dup.stderr
    two_runs = subprocess.run([sys.executable, TOOL, a, b, "--run", "1"],
                              capture_output=True, text=True)
    assert two_runs.returncode == 2, two_runs.stderr


def _speed_db(path, name, ratio):
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY, state TEXT)")
    con.execute("CREATE TABLE verdicts (run_id, name, key, dtype, verdict)")
    con.execute("CREATE TABLE cases (id INTEGER PRIMARY KEY, run_id, spec)")
    con.execute("CREATE TABLE results (case_id, status, figures)")
    con.execute("INSERT INTO runs VALUES (1, 'complete')")
    con.execute("INSERT INTO verdicts VALUES (1, ?, ?, 'float32', 'verified')", (name, name))
    spec = '{"name": "%s", "key": "%s", "dtype": "float32", "args": [{"shape": [4]}]}' % (
        name, name)
    con.execute("INSERT INTO cases VALUES (1, 1, ?)", (spec,))
    con.execute("INSERT INTO results VALUES (1, 'pass', ?)",
                ('{"speed": {"native_ms": %g, "cand_ms": 1.0}}' % ratio,))
    con.commit()
    con.close()
    return str(path)


def test_speed_ratios_of_parts_together(tmp_path):
    a = _speed_db(tmp_path / "a.db", "abs", 2.0)
    b = _speed_db(tmp_path / "b.db", "neg", 0.5)
    out = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "speed_ratios.py"),
                          a, b], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "run 1, 1: 2 names with timed verified cases" in out.stdout, out.stdout
    assert "| abs | 1 | 2.000 |" in out.stdout and "| neg | 1 | 0.500 |" in out.stdout
    assert "by the slowest case (faster=): 1 names at 1.0x" in out.stdout, out.stdout
