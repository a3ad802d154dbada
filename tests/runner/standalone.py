"""Runs a stand-alone script (a repro) as `python script.py` would, in a
process forked from a server that has imported torch (and torch._dynamo,
which the demo library's import pulls in through torch.compiler.disable)
and nothing else: about 5 CPU-s of imports saved per script, which the test
suites run over a hundred of (tests/runner/test_references.py alone: 152 ->
51 CPU-s, 143 -> 44 s with torch._dynamo preloaded too, 2026-12-08).
Nothing of the test process or of opscreen is in the server: it starts with
no PYTHONPATH and its sys.modules holds torch and the standard library only,
so a script that needs opscreen fails here as it would alone.

The child of each script has the script's directory, then the given
PYTHONPATH's entries, then the interpreter's own paths on sys.path, the given
environment and working directory, stdout and stderr of its own, and
`__main__` run from the file; its exit status is the script's (a signal
gives -signum, as subprocess reports it). OPSCREEN_STANDALONE=fresh runs every
script in a fresh interpreter instead.

The runner suites' runners (`python -m opscreen_runner`, runner_harness.Runner)
fork from the same server, as opscreend's runner pool forks the daemon's
(probes/opscreen_runner/pool.py): a session of their own, their fd 3 a
socket, their environment and sys.path from the request.
"""
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading

SERVER = r'''
import json, os, runpy, signal, socket, sys, time, traceback
import torch  # noqa: F401  the reason the server exists
import torch._dynamo  # noqa: F401  what the demo library imports (torch.compiler.disable)
assert not torch.cuda.is_initialized()
base = [p for p in sys.path if p not in ("", os.getcwd())]


def child(req):
    # a script (req["script"]) as `python script`, or a runner as `python -m
    # opscreen_runner` on the socket req["sock"] connects to (its fd 3)
    code = 1
    try:
        os.chdir(req["cwd"])
        os.environ.clear()
        os.environ.update(req["env"])
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        pp = [p for p in req["env"].get("PYTHONPATH", "").split(os.pathsep) if p]
        signal.signal(signal.SIGINT, signal.default_int_handler)
        if "sock" in req:
            os.setsid()
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(req["sock"])
            os.dup2(s.fileno(), 3)
            s.close()
            os.dup2(null, 1)
            sys.path[:] = pp + base
            sys.argv = [sys.argv[0]]
            threads = os.environ.get("OMP_NUM_THREADS")
            if threads and threads.isdigit() and int(threads) > 0:
                torch.set_num_threads(int(threads))
            runpy.run_module("opscreen_runner", run_name="__main__", alter_sys=True)
            code = 0
            return
        out = os.open(req["out"], os.O_WRONLY | os.O_TRUNC)
        err = os.open(req["err"], os.O_WRONLY | os.O_TRUNC)
        os.dup2(out, 1)
        os.dup2(err, 2)
        sys.path[:] = [os.path.dirname(os.path.abspath(req["script"]))] + pp + base
        sys.argv = [req["script"]]
        runpy.run_path(req["script"], run_name="__main__")
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if not isinstance(e.code, (int, type(None))):
            print(e.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


for line in sys.stdin:
    req = json.loads(line)
    # the children whose end the client has seen and whose status it read
    # (through /proc while each was a zombie): collected now
    for done in req.get("reap", []):
        try:
            os.waitpid(done, 0)
        except ChildProcessError:
            pass
    pid = os.fork()
    if pid == 0:
        child(req)
    sys.stdout.write(json.dumps({"pid": pid}) + "\n")
    sys.stdout.flush()
'''

_lock = threading.Lock()
_server = None
_reap = []      # children whose status was read: the server collects them next
CPU = 0.0       # CPU seconds of the scripts run so far (they are not our children)


def _start():
    global _server
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["CUDA_VISIBLE_DEVICES"] = ""
    _server = subprocess.Popen([sys.executable, "-c", SERVER], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True, env=env,
                               cwd=tempfile.gettempdir())
    return _server


def _request(req):
    """Sends req to the server (started when there is none), with the
    children whose status was read for it to collect; the child's pid.
    With _lock held."""
    global _reap
    s = _server if _server is not None and _server.poll() is None else _start()
    req["reap"], _reap = _reap, []
    s.stdin.write(json.dumps(req) + "\n")
    s.stdin.flush()
    return json.loads(s.stdout.readline())["pid"]


def run(script, env, cwd, timeout):
    """subprocess.run([sys.executable, script], env=env, cwd=cwd,
    capture_output=True, text=True, timeout=timeout), forked from the
    server."""
    if os.environ.get("OPSCREEN_STANDALONE") == "fresh":
        return subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                              text=True, timeout=timeout, cwd=cwd)
    with tempfile.TemporaryDirectory() as t:
        out, err = os.path.join(t, "out"), os.path.join(t, "err")
        open(out, "w").close()
        open(err, "w").close()
        with _lock:
            pid = _request({"script": str(script), "env": dict(env), "cwd": str(cwd),
                            "out": out, "err": err})
        code = Forked(pid).wait(timeout, [sys.executable, str(script)])
        with open(out) as f:
            o = f.read()
        with open(err) as f:
            e = f.read()
    return subprocess.CompletedProcess([sys.executable, str(script)], code, o, e)


def runner(env, cwd):
    """`python -m opscreen_runner` with env, forked from the server, in a
    session of its own, its fd 3 a socket: (our end of it, the process as a
    Forked). The runner's own tests drive it as opscreend would."""
    with tempfile.TemporaryDirectory() as t:
        path = os.path.join(t, "s")
        lsn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            lsn.bind(path)
            lsn.listen(1)
            lsn.settimeout(300)
            with _lock:
                pid = _request({"sock": path, "env": dict(env), "cwd": str(cwd)})
            conn, _ = lsn.accept()
        finally:
            lsn.close()
    conn.settimeout(None)
    return conn, Forked(pid)


class Forked:
    """A child of the server as much of subprocess.Popen as the tests use
    (pid, poll, wait, kill). It is the server's child, not ours: its end is
    seen through a pidfd and its status read from /proc while it is a
    zombie; the server collects it with the next request."""

    def __init__(self, pid):
        self.pid, self.returncode = pid, None
        self.fd = os.pidfd_open(pid)

    def poll(self):
        return self.wait(0) if select.select([self.fd], [], [], 0)[0] else None

    def wait(self, timeout=None, args=None):
        if self.returncode is not None:
            return self.returncode
        p = select.poll()
        p.register(self.fd, select.POLLIN)
        if not p.poll(None if timeout is None else timeout * 1000):
            if args is None:
                raise subprocess.TimeoutExpired([sys.executable, "-m", "opscreen_runner"],
                                                timeout)
            self.kill()
            p.poll()
            raise subprocess.TimeoutExpired(args, timeout)
        os.close(self.fd)
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        # its CPU, and its reaped children's (fields 14-17), which no rusage
        # of ours counts: tests/conftest.py adds it to the test that ran it
        global CPU
        CPU += sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")
        self.returncode = os.waitstatus_to_exitcode(int(fields[49]))   # field 52
        with _lock:
            _reap.append(self.pid)
        return self.returncode

    def kill(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
