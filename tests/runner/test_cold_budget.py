"""bench/cold_budget.py on the committed cold screen of 2026-12-04: its
bound and run wall are the daemon's own (run.json "compile"), and its parts
add up to the cases' runner-s."""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "docs", "results", "data",
                    "flag_gems-5.0.2-h200-2026-12-04-anchor-vs-head", "cold")


def test_the_bound_is_the_daemons_and_the_parts_add_up():
    out = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "cold_budget.py"),
                          os.path.join(DATA, "opscreen-slim.db.xz"), "--cores", "16"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    run = json.load(open(os.path.join(DATA, "run.json")))["compile"]
    m = re.search(r"run wall ([\d.]+) s on 16 cores; compile bound ([\d.]+) s \(([\d.]+)x\)",
                  out.stdout)
    assert m, out.stdout
    assert abs(float(m.group(1)) - run["wall_s"]) < 0.1
    assert abs(float(m.group(2)) - run["bound_s"]) < 0.1
    assert abs(float(m.group(3)) - run["of_bound"]) < 0.01
    rows = dict((w.strip(), float(v.replace(",", ""))) for v, w in
                re.findall(r"^\| ([\d,.-]+) \| (.+) \|$", out.stdout, re.M))
    parts = sum(v for w, v in rows.items() if not w.startswith("of which")
                and not w.startswith("shrinking"))
    outside = float(re.search(r"outside compile\(\): ([\d,.]+)", out.stdout)
                    .group(1).replace(",", ""))
    # compile + waits + tune + the rest + other phases = the cases' runner-s
    assert abs(parts + rows["shrinking failing cases"] - rows[
        "first calls: `compile()` wall (the bound's numerator)"] - outside) < 1.0, out.stdout
