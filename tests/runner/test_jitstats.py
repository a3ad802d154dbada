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

class Kernel:
    hash = "abcdef0123456789ffff"

def compile(*args, **kwargs):  # a real compile: 150 ms of this thread's CPU
    t = time.thread_time()
    while time.thread_time() - t < 0.15:
        pass
    return Kernel()

def bench(self, *args, config=None, **kwargs):  # compiles, then 50 ms timing
    tc.compile()
    time.sleep(0.05)
    return [1.0, 1.0, 1.0]

tc.compile = compile
Autotuner._bench = bench
from opscreen_runner import jitstats
assert jitstats.install() and jitstats.install()  # once only
before = jitstats.snapshot()
import triton.compiler
triton.compiler.compile()
Autotuner._bench(object(), config=None)
print(json.dumps(jitstats.delta(before)))
'''


def test_first_call_cost_accounting():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         env={"PYTHONPATH": PYTHONPATH, "PATH": "/usr/bin:/bin"},
                         timeout=120)
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout.splitlines()[-1])
    assert d["jit_n"] == 2 and d["tune_n"] == 1, d
    assert 300 <= d["jit_ms"] < 1000 and 300 <= d["jit_cpu_ms"] < 1000, d
    # the compile inside the benchmark is charged to jit, not to tune
    assert 45 <= d["tune_ms"] < 140, d
    assert [h for h, ms in d["jit_slow"]] == ["abcdef0123456789"] * 2, d
    assert all(150 <= ms < 500 for h, ms in d["jit_slow"]), d
    assert d["cpu_ms"] >= 300 and d["child_cpu_ms"] >= 0, d


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
