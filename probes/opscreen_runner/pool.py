"""The runner pool: one process per daemon that imports torch once and forks
every runner from there (runner.pool, docs/design.md "The runner pool").

A runner spawned afresh spends about 2 CPU-s importing torch before its hello;
forked from here it starts at the library's import. The pool never creates a
CUDA context (it imports torch and nothing that calls into the driver; it
checks before each fork) and never imports the library, so every runner sees
the library as it is on disk now and its own CUDA_VISIBLE_DEVICES.

Protocol, on the SOCK_SEQPACKET descriptor OPSCREEN_FD (one datagram a
message, JSON): the pool says {"type": "ready", "pid"} once torch is
imported; the daemon sends {"type": "spawn", "env": ["K=V", ...]} with two
descriptors (the runner's stderr and its socket) and gets {"type":
"spawned", "pid"} or {"type": "error", "error"}. A runner is forked twice:
the middle process exits at once, so the runner is reparented to the daemon
(a child subreaper) and is its child as a spawned one is; it then leads a
session of its own, takes fd 2 and 3, the environment it was given, and runs
`python -m opscreen_runner`'s main.
"""
import ctypes
import json
import os
import signal
import socket
import sys

PR_SET_NAME = 15
PR_SET_PDEATHSIG = 1
MSG_MAX = 1 << 20
# the variables that differ between runners; any other difference means the
# pool was started for another environment (the daemon starts a new one)
PER_RUNNER = ("CUDA_VISIBLE_DEVICES", "OPSCREEN_FD", "OPSCREEN_DEVICE",
              "OPSCREEN_DEVICE_INDEX", "OPSCREEN_ROLE", "OMP_NUM_THREADS")


def _prctl(op, arg):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(op, arg, 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def _name(name):
    """The process's name as ps and top show it (comm, 15 bytes)."""
    try:
        _prctl(PR_SET_NAME, ctypes.c_char_p(name.encode()[:15]))
    except OSError:
        pass


def _base(env):
    return {k: v for k, v in env.items() if k not in PER_RUNNER}


def _runner(env, errfd, sockfd, middle):
    """In the runner: never returns."""
    code = 1
    _name("opscreen-runner")   # first: a runner is never taken for the pool
    try:
        # the middle process exits right after the fork; until then our
        # parent is it. Afterwards it is the daemon (a subreaper) or, if the
        # daemon died, someone else: lifeline.bind() checks which.
        while os.getppid() == middle:
            os.sched_yield()
        os.setsid()
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        os.dup2(errfd, 2)
        os.dup2(sockfd, 3)      # replaces the pool's own channel
        for fd in {devnull, errfd, sockfd} - {0, 1, 2, 3}:
            os.close(fd)
        os.environ.clear()
        os.environ.update(env)
        import importlib
        importlib.invalidate_caches()   # the library may have changed on disk
        import torch
        # nothing the pool may have cached about devices under its own
        # CUDA_VISIBLE_DEVICES (empty) survives into a runner with its own
        for name in ("device_count", "_device_count_nvml", "_device_count_amdsmi"):
            clear = getattr(getattr(torch.cuda, name, None), "cache_clear", None)
            if clear is not None:
                clear()
        threads = os.environ.get("OMP_NUM_THREADS")
        if threads and threads.isdigit() and int(threads) > 0:
            torch.set_num_threads(int(threads))
        import runpy
        sys.argv = [sys.argv[0]]
        try:
            runpy.run_module("opscreen_runner", run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:
        import traceback
        traceback.print_exc()
    try:
        import atexit
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


# What the pool imports besides torch: modules every runner imports lazily
# on its first cases (torch._dynamo through the out= wrappers of torch's
# reference ops: a quarter of a demo screen's CPU went to that import in
# each runner, 2026-12-07), none of them the library. Each must leave the
# CUDA driver alone; _driver_touched() checks that it did.
PRELOAD = ("numpy", "torch._dynamo", "torch.fx.experimental.symbolic_shapes", "triton")


def _driver_touched():
    """Whether the CUDA driver library is mapped into this process: once it
    is, a fork's child cannot use CUDA (torch.cuda.is_initialized() only
    knows torch's own initialisation)."""
    with open("/proc/self/maps") as f:
        return any("libcuda.so" in line for line in f)


def _spawn(msg, fds):
    import torch
    # never fork a process that touched CUDA
    if torch.cuda.is_initialized() or _driver_touched():
        return {"type": "error", "error": "the pool has touched the CUDA driver"}
    env = dict(e.split("=", 1) for e in msg.get("env", []) if "=" in e)
    if _base(env) != _base(POOL_ENV):
        return {"type": "error", "error": "stale", "stale": True}
    errfd, sockfd = fds
    sys.stderr.flush()
    r, w = os.pipe()
    middle = os.fork()
    if middle == 0:
        try:
            os.close(r)
            me = os.getpid()
            pid = os.fork()
            if pid == 0:
                os.close(w)
                _runner(env, errfd, sockfd, me)
            os.write(w, str(pid).encode())
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        out = f.read()
    os.waitpid(middle, 0)
    if not out:
        return {"type": "error", "error": "fork failed"}
    return {"type": "spawned", "pid": int(out)}


POOL_ENV = {}


def main():
    fd = int(os.environ.get("OPSCREEN_FD", "3"))
    daemon = int(os.environ.get("OPSCREEN_DAEMON_PID", "0") or 0)
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if daemon and os.getppid() != daemon:
        os._exit(1)
    _name("opscreen-pool")
    POOL_ENV.update(os.environ)
    chan = socket.socket(fileno=fd)
    import importlib
    import torch  # noqa: F401  the reason the pool exists
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except Exception:       # a runner will meet the same error itself
            pass
    chan.send(json.dumps({"type": "ready", "pid": os.getpid(),
                          "driver": _driver_touched()}).encode())
    while True:
        try:
            data, fds, _flags, _addr = socket.recv_fds(chan, MSG_MAX, 2)
        except InterruptedError:
            continue
        if not data:
            os._exit(0)         # the daemon is gone or stopped the pool
        try:
            msg = json.loads(data)
            if len(fds) != 2 or msg.get("type") != "spawn":
                raise ValueError("a spawn with two descriptors expected")
            out = _spawn(msg, fds)
        except Exception as e:
            out = {"type": "error", "error": f"{type(e).__name__}: {e}"}
        for f in fds:
            os.close(f)
        chan.send(json.dumps(out).encode())


if __name__ == "__main__":
    main()
