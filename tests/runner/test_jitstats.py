"""jitstats: a first call's compile and autotuning figures, from wrappers
around Triton's compile() and Autotuner._bench (here around stand-ins with
known costs: no GPU is needed to check the accounting)."""

import json
import subprocess
import sys

from runner_harness import PYTHONPATH

SCRIPT = r'''
import json, time
import triton.compiler as tc
from triton.runtime.autotuner import Autotuner

walls = {"compile": [], "bench": [], "sleep": []}   # what the stand-ins took

class Kernel:
    hash = "abcdef0123456789ffff"

def compile(*args, **kwargs):  # a real compile: 150 ms of this thread's CPU
    w, t = time.perf_counter(), time.thread_time()
    while time.thread_time() - t < 0.15:
        pass
    walls["compile"].append((time.perf_counter() - w) * 1e3)
    return Kernel()

def bench(self, *args, config=None, **kwargs):  # compiles, then 50 ms timing
    w = time.perf_counter()
    tc.compile()
    s = time.perf_counter()
    time.sleep(0.05)
    walls["sleep"].append((time.perf_counter() - s) * 1e3)
    walls["bench"].append((time.perf_counter() - w) * 1e3)
    return [1.0, 1.0, 1.0]

tc.compile = compile
Autotuner._bench = bench
from opscreen_runner import jitstats
assert jitstats.install() and jitstats.install()  # once only
before = jitstats.snapshot()
import triton.compiler
triton.compiler.compile()
Autotuner._bench(object(), config=None)
print(json.dumps(dict(jitstats.delta(before), walls=walls)))
'''


def test_first_call_cost_accounting():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         env={"PYTHONPATH": PYTHONPATH, "PATH": "/usr/bin:/bin"},
                         timeout=120)
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout.splitlines()[-1])
    walls = d.pop("walls")
    assert d["jit_n"] == 2 and d["tune_n"] == 1, d
    # CPU time is exact whatever the load: 150 ms of CPU per compile
    assert 300 <= d["jit_cpu_ms"] and 300 <= d["jit_ms"], d
    assert d["cpu_ms"] >= 300 and d["child_cpu_ms"] >= 0, d
    # wall figures are held to what the stand-ins themselves measured (a
    # busy machine stretches both), never to fixed bounds: each compile is
    # charged its own wall, and the compile inside the benchmark goes to
    # jit, not to tune (tune holds the sleep, not the 150+ ms compile)
    assert [h for h, ms in d["jit_slow"]] == ["abcdef0123456789"] * 2, d
    for (h, ms), wall in zip(d["jit_slow"], walls["compile"]):
        assert wall - 1 <= ms < wall + 0.5 * wall, (d, walls)   # ms rounded
    assert sum(walls["compile"]) - 1 <= d["jit_ms"], (d, walls)
    inner = walls["compile"][1]
    assert walls["sleep"][0] - 1 <= d["tune_ms"] < walls["bench"][0] - 0.5 * inner, (d, walls)


CAP_SCRIPT = r'''
import json
import triton.testing as tt
from triton.backends.nvidia.driver import CudaDriver
calls = []

def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None,
             return_mode="mean"):  # Triton's signature; records what it got
    calls.append([warmup, rep, quantiles])
    return [1.0, 1.0, 1.0]

tt.do_bench = do_bench
from opscreen_runner import autotune
assert autotune.cap(5) == 5
# what Autotuner's default benchmarker (and a library passing warmup/rep)
# calls: Triton's do_bench, looked up when the benchmark is first needed
bench = CudaDriver.get_benchmarker(None)
bench(lambda: None, quantiles=(0.5, 0.2, 0.8))
tt.do_bench(lambda: None, warmup=25, rep=100, quantiles=None)
tt.do_bench(lambda: None, 1, 2)
print(json.dumps(calls))
'''


def test_autotune_rep_caps_each_configs_benchmark():
    """runner.autotune_rep (OPSCREEN_AUTOTUNE_REP): Triton's do_bench, which
    Autotuner benchmarks every config with, measures for at most rep ms after
    rep / 4 ms of warm-up; shorter requests stay as asked."""
    out = subprocess.run([sys.executable, "-c", CAP_SCRIPT], capture_output=True,
                         text=True, env={"PYTHONPATH": PYTHONPATH}, timeout=120)
    assert out.returncode == 0, out.stderr
    calls = json.loads(out.stdout.strip().splitlines()[-1])
    assert calls == [[1.25, 5, [0.5, 0.2, 0.8]], [1.25, 5, None], [1, 2, None]], calls


ONE_SCRIPT = r'''
import json
import triton, triton.language as tl
from triton.runtime.autotuner import Autotuner, OutOfResources
from opscreen_runner import autotune, jitstats

@triton.jit
def k(x, n, BLOCK: tl.constexpr):
    pass

benched = []
def do_bench(kernel_call, quantiles):  # what each config's benchmark runs
    benched.append(len(benched))
    if fail_first and len(benched) == 1:
        raise OutOfResources(1, 0, "shared memory")  # a config that does not fit
    return [float(len(benched)), 0.0, 0.0]

assert jitstats.install() and autotune.install_one_config() and autotune.install_one_config()
out = {}
for name, active, fail_first in (("off", False, False), ("on", True, False),
                                 ("on_first_fails", True, True), ("after", False, False)):
    benched.clear()
    cfgs = [triton.Config({"BLOCK": b}) for b in (16, 32, 64, 128)]
    a = Autotuner(k, ["x", "n"], cfgs, ["n"], None, None, do_bench=do_bench)
    snap = jitstats.snapshot()
    with autotune.one_config(active):
        try:
            a.run(None, 0)  # a new tuning key; the launch itself needs a GPU
        except Exception:
            pass
    chosen = list(a.cache.values())[0].kwargs["BLOCK"]
    out[name] = [len(benched), chosen, (jitstats.delta(snap) or {}).get("tune_n")]
print(json.dumps(out))
'''


def test_empty_class_tunes_one_config(tmp_path):
    """In an empty-class call a new tuning key benchmarks (so compiles) its
    configs only until one runs; the rest are never compiled and cannot be
    chosen. A config that does not fit is passed over as Triton does.
    Outside one_config the autotuner benchmarks every config, and jitstats
    counts only the benchmarks that ran."""
    script = tmp_path / "one.py"  # @triton.jit reads its function's source file
    script.write_text(ONE_SCRIPT)
    out = subprocess.run([sys.executable, str(script)], capture_output=True,
                         text=True, env={"PYTHONPATH": PYTHONPATH}, timeout=120)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["off"][:2] == [4, 16], got  # all four, the fastest (first) chosen
    assert got["on"][:2] == [1, 16], got
    assert got["on_first_fails"][:2] == [2, 32], got
    assert got["after"][:2] == [4, 16], got
    assert [got[n][2] for n in ("off", "on", "on_first_fails")] == [4, 1, 2], got
