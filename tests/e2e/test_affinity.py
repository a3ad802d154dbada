"""runner.key_affinity: the cases of one op's keys prefer one screening
runner (a hash of the op's name over the device's screening runners), so
that the op's kernels stay compiled, loaded and tuned in one process; a
runner with none of its ops' cases ready takes any other, so no runner
waits and the verdicts are the same.

Against the real daemon and runner on the demo library: the runner reports
its pid with every RESULT; with affinity, most of an op's cases ran in one
process, without it (the default), the round-robin queue spreads them."""
import collections
import json
import os
import sqlite3
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

OPS = ["abs", "abs.out", "neg", "neg.out", "sin", "cos", "exp", "relu",
       "add.Tensor", "mul.Tensor", "mul_.Tensor", "sub.Tensor", "sigmoid",
       "maximum", "minimum"]
SCOPE = {"ops": OPS, "dtypes": ["float32"],
         "classes": ["same_shape", "broadcast", "scalar", "noncontig"]}


def _screen(make_daemon, affinity):
    d = make_daemon(runner__workers_per_device=4, runner__compile_workers=0,
                    runner__shrink_max=0,
                    runner__key_affinity="yes" if affinity else "no").start()
    d.wait_fingerprint()
    st, out = d.post_run(SCOPE)
    assert st == 202, out
    run = d.wait_run(out["run"])
    assert run["state"] == "complete" and run["done"] == run["total"], run
    # the folder bench/warm_ab.py reads (as gpu_full.sh's finish leaves it)
    with open(os.path.join(d.tmp, "run.json"), "w") as f:
        json.dump(run, f)
    db = sqlite3.connect(d.db)
    try:
        rows = db.execute("SELECT c.key, r.figures FROM results r JOIN cases c "
                          "ON c.id = r.case_id WHERE c.run_id = ? AND "
                          "r.figures IS NOT NULL", (out["run"],)).fetchall()
        verdicts = dict(((k, dt), v) for k, dt, v in db.execute(
            "SELECT key, dtype, verdict FROM verdicts WHERE run_id = ?",
            (out["run"],)))
    finally:
        db.close()
    by_op = collections.defaultdict(collections.Counter)
    for key, fig in rows:
        pid = json.loads(fig).get("pid")
        assert isinstance(pid, int), fig[:200]
        by_op[key.split(".")[0].rstrip("_")][pid] += 1
    n = sum(sum(c.values()) for c in by_op.values())
    at_home = sum(max(c.values()) for c in by_op.values())
    return at_home / n, verdicts, len({p for c in by_op.values() for p in c}), d.tmp


def test_an_ops_cases_stay_in_one_runner(make_daemon):
    share_on, verdicts_on, pids_on, dir_on = _screen(make_daemon, True)
    share_off, verdicts_off, _, dir_off = _screen(make_daemon, False)
    # every runner still worked (none waited for its own ops' cases)
    assert pids_on >= 4, pids_on
    assert share_on >= 0.8, share_on
    assert share_off < share_on - 0.2, (share_off, share_on)
    assert verdicts_on == verdicts_off
    # bench/warm_ab.py, the GPU A/B's report, reads the same from the two
    # folders: the knob, and fewer processes per op with it on
    out = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "warm_ab.py"),
                          os.path.dirname(dir_on), os.path.basename(dir_on),
                          os.path.basename(dir_off)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    rows = {}
    for line in out.stdout.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[1]] = cells
    assert set(rows) == {"yes", "no"}, out.stdout
    procs = {k: float(v[-1]) for k, v in rows.items()}
    assert rows["yes"][3] == rows["no"][3] == "complete", out.stdout
    assert 1.0 <= procs["yes"] < procs["no"], out.stdout
    # a folder whose run.json was lost (a device call that could not bring
    # it back): the database's newest run gives the same row
    os.unlink(os.path.join(dir_off, "run.json"))
    again = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "warm_ab.py"),
                            os.path.dirname(dir_off), os.path.basename(dir_off)],
                           capture_output=True, text=True)
    assert again.returncode == 0, again.stdout + again.stderr
    assert again.stdout.splitlines()[2] == [
        ln for ln in out.stdout.splitlines() if "| no |" in ln][0], again.stdout
