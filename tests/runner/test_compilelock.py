"""compilelock: runners that need the same kernel at once compile it once;
the others wait for Triton's cache. Here in real processes, around a
stand-in for Triton's compile() that keeps a file cache as Triton does
(no GPU is needed for the locking), and with a holder that is killed or
stopped."""

import json
import os
import signal
import subprocess
import sys
import time

from runner_harness import PYTHONPATH

# One runner: compile(src) through the wrapped triton.compiler.compile. The
# stand-in compiles (400 ms) only where the cache lacks the kernel and logs
# each real compile, as Triton's cache manager would leave a second compile
# of a kernel another process is compiling to run in full.
SCRIPT = r'''
import json, os, sys, time
import triton.compiler as tc

CACHE = os.environ["TRITON_CACHE_DIR"]

class Src:
    def __init__(self, name):
        self.name = name
    def hash(self):
        return "src-" + self.name

def compile(src, target=None, options=None, _env_vars=None):
    path = os.path.join(CACHE, src.hash() + repr(sorted(options.items())))
    if os.path.exists(path):
        return "hit"
    time.sleep(0.4)
    with open(os.path.join(CACHE, "compiles.log"), "a") as f:
        f.write(src.name + "\n")
    with open(path + ".tmp", "w") as f:
        f.write("binary")
    os.rename(path + ".tmp", path)
    return "compiled"

tc.compile = compile
from opscreen_runner import compilelock, jitstats
assert jitstats.install() and compilelock.install(jitstats._acc)
assert compilelock.install(jitstats._acc)  # once only
snap = jitstats.snapshot()
import triton.compiler
# "at once": every process has imported Triton before any compiles (on a
# busy machine one import can take seconds longer than another's, and a
# late starter found the kernel compiled without waiting)
open(os.path.join(CACHE, "ready-%d" % os.getpid()), "w").close()
t0 = time.monotonic()
while sum(f.startswith("ready-") for f in os.listdir(CACHE)) < int(
        os.environ["PROCS"]) and time.monotonic() - t0 < 300:
    time.sleep(0.005)
out = [triton.compiler.compile(Src(n), target="cuda:90", options={"num_warps": 4})
       for n in sys.argv[1:]]
d = jitstats.delta(snap)
print(json.dumps({"out": out, "wait_ms": d["wait_ms"], "wait_n": d["wait_n"],
                  "jit_n": d["jit_n"]}))
'''


def run_all(tmp_path, argvs):
    env = {"PYTHONPATH": PYTHONPATH, "PATH": "/usr/bin:/bin",
           "TRITON_CACHE_DIR": str(tmp_path), "PROCS": str(len(argvs))}
    ps = [subprocess.Popen([sys.executable, "-c", SCRIPT, *a], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
          for a in argvs]
    res = []
    for p in ps:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        res.append(json.loads(out.splitlines()[-1]))
    log = (tmp_path / "compiles.log").read_text().split()
    return res, log


def test_one_compile_of_a_kernel_across_runners(tmp_path):
    # four runners ask for kernel a at once: one compiles, three wait
    # for it and get Triton's cache hit
    res, log = run_all(tmp_path, [["a"]] * 4)
    assert log == ["a"], log
    assert sorted(r["out"][0] for r in res) == ["compiled", "hit", "hit", "hit"], res
    waits = sorted(r["wait_n"] for r in res)
    assert waits[-1] == 1 and sum(waits) >= 2, res   # (a late starter may just hit)
    assert all(r["jit_n"] == 1 for r in res), res


def test_other_kernels_do_not_wait(tmp_path):
    # runners compiling different kernels compile side by side: none of
    # them spent any time waiting for another's lock (measured by the lock
    # itself, not by the wall clock, which a busy machine stretches)
    res, log = run_all(tmp_path, [["a"], ["b"], ["c"]])
    assert sorted(log) == ["a", "b", "c"]
    assert all(r["wait_n"] == 0 and r["out"] == ["compiled"] for r in res), res
    assert all(r["wait_ms"] == 0 for r in res), res   # not three compiles in a row


def _holder(tmp_path, key):
    """A process holding the lock on key, its lock taken."""
    code = ("import sys, time\nfrom opscreen_runner import compilelock\n"
            "h = compilelock.held(sys.argv[1], sys.argv[2]).__enter__()\n"
            "assert h.locked\nprint('held', flush=True)\ntime.sleep(60)\n")
    p = subprocess.Popen([sys.executable, "-c", code, str(tmp_path), key],
                         env={"PYTHONPATH": PYTHONPATH, "PATH": "/usr/bin:/bin"},
                         stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "held"
    return p


def test_killed_holder_releases(tmp_path):
    from opscreen_runner import compilelock
    p = _holder(tmp_path, "k1")
    try:
        with compilelock.held(str(tmp_path), "k1", wait_s=0.2) as h:
            assert not h.locked and h.waited >= 0.2   # held elsewhere
        p.kill()
        p.wait()
        with compilelock.held(str(tmp_path), "k1", wait_s=5) as h:
            # the kill released it: taken, not given up after wait_s
            assert h.locked and h.waited < 5
    finally:
        p.kill()
        p.wait()


def test_stopped_holder_is_waited_for_a_bounded_time(tmp_path):
    from opscreen_runner import compilelock
    p = _holder(tmp_path, "k2")
    os.kill(p.pid, signal.SIGSTOP)
    try:
        t0 = time.monotonic()
        with compilelock.held(str(tmp_path), "k2", wait_s=0.5) as h:
            # the body runs (unlocked) after the bound: a stopped runner
            # delays a compile, it never blocks one (the holder would hold
            # it 60 s; the margin is for a busy machine)
            assert not h.locked and 0.5 <= h.waited < 30
        assert time.monotonic() - t0 < 30
    finally:
        os.kill(p.pid, signal.SIGCONT)
        p.kill()
        p.wait()


def test_unusable_cache_compiles_unlocked(tmp_path):
    # a cache path the lock directory cannot be made in (here a file: the
    # same ENOTDIR/EROFS/ENOSPC path for root and others alike)
    from opscreen_runner import compilelock
    f = tmp_path / "file"
    f.write_text("")
    with compilelock.held(str(f), "k3") as h:
        assert not h.locked and h.waited == 0.0 and h.fd is None


def test_lock_key_names_what_is_compiled():
    from opscreen_runner import compilelock

    class Src:
        def __init__(self, h):
            self.h = h

        def hash(self):
            return self.h

    k = compilelock.lock_key(Src("x"), "cuda:90", {"num_warps": 4, "num_stages": 2})
    assert k == compilelock.lock_key(Src("x"), "cuda:90", {"num_stages": 2, "num_warps": 4})
    assert k != compilelock.lock_key(Src("x"), "cuda:90", {"num_warps": 8, "num_stages": 2})
    assert k != compilelock.lock_key(Src("y"), "cuda:90", {"num_warps": 4, "num_stages": 2})
    assert k != compilelock.lock_key(Src("x"), "cuda:100", {"num_warps": 4, "num_stages": 2})
    assert compilelock.lock_key("/path/kernel.ttir", None, {}) is None
