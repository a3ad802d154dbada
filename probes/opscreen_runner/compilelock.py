"""One compile of a kernel at a time across the host's runners.

Triton's cache is a directory that every runner of a screen shares, but
nothing stops two processes compiling the same kernel at once: both miss
the cache, both compile, the second to finish overwrites the first's files.
In the cold whole-table screen of 2026-12-03 on the H200 (docs/bench/
screen.md, "One compile at a time") 781 compiles of 100 ms or more repeated
a kernel another runner had compiled, 440 runner-s, most of them while the
first was still compiling: keys that share a kernel (add, add_, add.out)
and the cases of one key that the screen runs side by side.

install() wraps triton.compiler.compile (after jitstats, so jitstats times
the compile proper): before compiling, a runner takes an exclusive flock on
a file named by what is compiled (the source's hash, the target and the
options), in the cache directory the compile will use. A second runner
asking for the same kernel waits, then compiles as before, and Triton's
cache answers it. A holder that dies releases its lock with its file
descriptors; one that hangs or is stopped is waited for at most WAIT_S,
after which the waiter compiles by itself as it would have without the
lock. What is compiled, and so what is screened, does not change. A case's
figures count the waits (jitstats: wait_ms, wait_n).
"""

import errno
import fcntl
import hashlib
import os
import time

WAIT_S = 120.0          # at most this long behind one other runner's compile
POLL_S = 0.01
LOCKS = "opscreen-compile-locks"
installed = False


def lock_key(src, target, options):
    """The name of what compile(src, target, options) builds, or None
    where the source is not one Triton hashes (an IR file path)."""
    h = getattr(src, "hash", None)
    if not callable(h):
        return None
    try:
        opts = repr(sorted((options or {}).items()))
        text = f"{h()}|{target}|{opts}"
    except Exception:
        return None
    return hashlib.sha256(text.encode()).hexdigest()[:40]


def cache_dir():
    d = os.environ.get("TRITON_CACHE_DIR")
    if d:
        return d
    try:
        from triton import knobs
        return knobs.cache.dir
    except Exception:
        return None


class held:
    """Context manager: the exclusive lock on `key` in `directory`, taken
    within `wait_s` or not at all (then the body runs unlocked). `waited`
    is the seconds spent waiting, `locked` whether the lock was taken."""

    def __init__(self, directory, key, wait_s=WAIT_S, clock=time.monotonic,
                 sleep=time.sleep):
        self.path = (os.path.join(directory, LOCKS, key)
                     if directory and key else None)
        self.wait_s, self.clock, self.sleep = wait_s, clock, sleep
        self.fd, self.waited, self.locked = None, 0.0, False

    def __enter__(self):
        if self.path is None:
            return self
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC,
                              0o600)
        except OSError:
            return self     # a read-only or full cache: compile unlocked
        t0 = self.clock()
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self.locked = True
                break
            except OSError as e:
                if e.errno not in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
                    break
            if self.clock() - t0 >= self.wait_s:
                break
            self.sleep(POLL_S)
        self.waited = self.clock() - t0
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)   # releases the lock
            self.fd = None
        return False


def install(acc=None):
    """Wraps Triton's compile (install after jitstats.install). `acc`, a
    dict, gets wait_ms and wait_n added. False without Triton."""
    global installed
    if installed:
        return True
    try:
        import triton.compiler as tc
        import triton.compiler.compiler as tcc
    except Exception:
        return False
    compile_ = tc.compile

    def compile(src, target=None, options=None, *args, **kwargs):
        key = lock_key(src, target, options)
        with held(cache_dir() if key else None, key) as lk:
            if acc is not None and lk.waited >= 0.05:
                acc["wait_ms"] = acc.get("wait_ms", 0.0) + lk.waited * 1e3
                acc["wait_n"] = acc.get("wait_n", 0) + 1
            return compile_(src, target, options, *args, **kwargs)

    tc.compile = compile
    tcc.compile = compile
    installed = True
    return True
