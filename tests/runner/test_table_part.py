"""bench/table_part.py: the parts of a registration table a whole-table
screen is split into (one device session each) are disjoint, cover the
table, keep each name's keys together and are balanced."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "demolib"))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import table_part  # noqa: E402


def _run(part, parts, *extra):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "tests", "demolib"))
    return subprocess.run([sys.executable, os.path.join(ROOT, "bench", "table_part.py"),
                           "opscreen_demolib", str(part), str(parts), *extra],
                          capture_output=True, text=True, env=env)


def test_the_parts_of_the_demo_table_cover_it_once_by_name():
    items = table_part.table("opscreen_demolib")
    name_of = dict(items)
    for n in (1, 2, 3):
        got = []
        for i in range(1, n + 1):
            out = _run(i, n)
            assert out.returncode == 0, out.stderr
            got.append(json.loads(out.stdout)["ops"])
        keys = [k for p in got for k in p]
        assert sorted(keys) == sorted(name_of), n  # every key once
        owner = {}
        for i, p in enumerate(got):
            for k in p:
                assert owner.setdefault(name_of[k], i) == i, (k, n)  # a name in one part
        biggest = max(sum(1 for v in name_of.values() if v == m) for m in set(name_of.values()))
        sizes = [len(p) for p in got]
        assert max(sizes) - min(sizes) <= biggest, sizes


def test_parts_are_balanced_and_a_bad_part_is_refused():
    items = [(f"k{i}", f"n{i // 3}") for i in range(30)] + [("big.a", "big"), ("big.b", "big")]
    p = table_part.parts(items, 4)
    assert sorted(k for q in p for k in q) == sorted(k for k, _ in items)
    assert max(map(len, p)) - min(map(len, p)) <= 3, p
    assert _run(0, 2).returncode == 2
    assert _run(3, 2).returncode == 2
    keys = json.loads(_run(1, 1, "--keys-only").stdout)
    assert sorted(keys) == sorted(k for k, _ in table_part.table("opscreen_demolib"))
