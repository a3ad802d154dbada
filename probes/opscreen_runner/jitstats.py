"""Where a candidate's first call spends its time: Triton compiles and
autotuning benchmarks.

A first call of a Triton-based library compiles (Triton's frontend and LLVM in
this thread, ptxas in a child process) and, for an autotuned kernel on a new
tuning key, benchmarks every config (triton.testing.do_bench: about 125 ms of
GPU work per config). install() wraps triton.compiler.compile and
Autotuner._bench before the library is imported; snapshot() / delta() give a
case those figures for its first call:

  jit_ms, jit_n        wall time in, and number of, compile() calls (cache
                       hits included: they take a few ms)
  jit_cpu_ms           this thread's CPU time in them (ptxas not included)
  tune_ms, tune_n      wall time benchmarking configs, compiles excluded, and
                       the number of configs benchmarked
  child_cpu_ms         CPU time of child processes reaped meanwhile (ptxas)
  cpu_ms               the runner process's CPU time, all threads
  wait_ms, wait_n      wall time waiting for, and number of waits of 50 ms or
                       more for, another runner compiling the same kernel
                       (compilelock; not in jit_ms)
  jit_slow             [[hash, ms], ...] of compiles of 100 ms or more (real
                       compiles, not cache hits): the same hash in several
                       cases is the same kernel compiled more than once
"""

import resource
import time

SLOW_MS = 100.0
_acc = {"jit_ms": 0.0, "jit_n": 0, "jit_cpu_ms": 0.0, "tune_ms": 0.0, "tune_n": 0,
        "wait_ms": 0.0, "wait_n": 0}
_slow = []
installed = False


def install():
    """Wraps Triton's compile and autotune benchmark; False without Triton."""
    global installed
    if installed:
        return True
    try:
        import triton.compiler as tc
        import triton.compiler.compiler as tcc
        from triton.runtime.autotuner import Autotuner
    except Exception:
        return False
    compile_ = tc.compile

    def compile(*args, **kwargs):
        w0, c0, k = time.perf_counter(), time.thread_time(), None
        try:
            k = compile_(*args, **kwargs)
            return k
        finally:
            ms = (time.perf_counter() - w0) * 1e3
            _acc["jit_ms"] += ms
            _acc["jit_n"] += 1
            _acc["jit_cpu_ms"] += (time.thread_time() - c0) * 1e3
            if ms >= SLOW_MS:
                h = getattr(k, "hash", None)
                _slow.append([str(h)[:16] if h else "?", round(ms, 1)])

    tc.compile = compile
    tcc.compile = compile
    bench_ = Autotuner._bench

    def _bench(self, *args, **kwargs):
        w0, j0 = time.perf_counter(), _acc["jit_ms"]
        try:
            return bench_(self, *args, **kwargs)
        finally:
            _acc["tune_ms"] += (time.perf_counter() - w0) * 1e3 - (_acc["jit_ms"] - j0)
            _acc["tune_n"] += 1

    Autotuner._bench = _bench
    installed = True
    return True


def snapshot():
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (dict(_acc), len(_slow), me.ru_utime + me.ru_stime,
            kids.ru_utime + kids.ru_stime)


def delta(snap):
    """The figures since snapshot() `snap`: {} where nothing is installed."""
    if not installed:
        return {}
    acc, nslow, me, kids = snap
    now = snapshot()
    out = {k: (round(v - acc[k], 3) if isinstance(v, float) else v - acc[k])
           for k, v in now[0].items()}
    out["cpu_ms"] = round((now[2] - me) * 1e3, 1)
    out["child_cpu_ms"] = round((now[3] - kids) * 1e3, 1)
    if len(_slow) > nslow:
        out["jit_slow"] = _slow[nslow:]
    return out
