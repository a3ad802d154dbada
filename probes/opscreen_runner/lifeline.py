"""The runner's tie to its daemon: when opscreend dies, however it dies
(kill -9 included), the runner and its whole process group (the compile
workers Triton starts) go with it.

Two mechanisms. PR_SET_PDEATHSIG kills the runner when the daemon thread that
spawned it ends (the main loop's: it ends only with the daemon). A watcher
process, forked before torch is imported, kills the group when the daemon's
end of the socket closes or the runner ends; it needs nothing of the runner,
so a runner stuck inside the library (holding the GIL or not) goes too.
"""
import ctypes
import os
import select
import signal

PR_SET_PDEATHSIG = 1


def _pdeathsig(sig):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"prctl(PR_SET_PDEATHSIG): {os.strerror(err)}")


def _watch(fd, runner):
    """The watcher's whole life: wait, then kill the group, itself included."""
    try:
        pidfd = os.pidfd_open(runner)
    except OSError:
        pidfd = None           # the runner is gone already
    if pidfd is not None:
        p = select.poll()
        # POLLRDHUP without POLLIN: frames to the runner do not wake it
        p.register(fd, select.POLLRDHUP)
        p.register(pidfd, select.POLLIN)
        while not p.poll():
            pass
    try:
        os.killpg(0, signal.SIGKILL)
    finally:
        os._exit(0)


def bind():
    """Called first thing, while the process has a single thread."""
    daemon = os.environ.get("OPSCREEN_DAEMON_PID")
    if not daemon:             # started by hand, as the runner's own tests do
        return
    fd = int(os.environ.get("OPSCREEN_FD", "3"))
    _pdeathsig(signal.SIGKILL)
    if os.getppid() != int(daemon):
        os._exit(1)            # the daemon died before the prctl took effect
    runner = os.getpid()
    if os.fork() == 0:
        os.closerange(0, fd)   # stdin, stdout, stderr: the runner's alone
        _watch(fd, runner)
