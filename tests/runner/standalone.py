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
"""
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading

SERVER = r'''
import json, os, runpy, signal, sys, time, traceback
import torch  # noqa: F401  the reason the server exists
import torch._dynamo  # noqa: F401  what the demo library imports (torch.compiler.disable)
assert not torch.cuda.is_initialized()
base = [p for p in sys.path if p not in ("", os.getcwd())]
for line in sys.stdin:
    req = json.loads(line)
    # the scripts before this one have ended and their status was read
    # (through /proc, by the client): collect them
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                break
        except ChildProcessError:
            break
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.chdir(req["cwd"])
            os.environ.clear()
            os.environ.update(req["env"])
            out = os.open(req["out"], os.O_WRONLY | os.O_TRUNC)
            err = os.open(req["err"], os.O_WRONLY | os.O_TRUNC)
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.dup2(out, 1)
            os.dup2(err, 2)
            pp = [p for p in req["env"].get("PYTHONPATH", "").split(os.pathsep) if p]
            sys.path[:] = [os.path.dirname(os.path.abspath(req["script"]))] + pp + base
            sys.argv = [req["script"]]
            signal.signal(signal.SIGINT, signal.default_int_handler)
            try:
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
    sys.stdout.write(json.dumps({"pid": pid}) + "\n")
    sys.stdout.flush()
'''

_lock = threading.Lock()
_server = None
CPU = 0.0       # CPU seconds of the scripts run so far (they are not our children)


def _start():
    global _server
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["CUDA_VISIBLE_DEVICES"] = ""
    _server = subprocess.Popen([sys.executable, "-c", SERVER], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True, env=env,
                               cwd=tempfile.gettempdir())
    return _server


def run(script, env, cwd, timeout):
    """subprocess.run([sys.executable, script], env=env, cwd=cwd,
    capture_output=True, text=True, timeout=timeout), forked from the
    server."""
    if os.environ.get("OPSCREEN_STANDALONE") == "fresh":
        return subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                              text=True, timeout=timeout, cwd=cwd)
    with _lock, tempfile.TemporaryDirectory() as t:
        out, err = os.path.join(t, "out"), os.path.join(t, "err")
        open(out, "w").close()
        open(err, "w").close()
        s = _server if _server is not None and _server.poll() is None else _start()
        s.stdin.write(json.dumps({"script": str(script), "env": dict(env),
                                  "cwd": str(cwd), "out": out, "err": err}) + "\n")
        s.stdin.flush()
        pid = json.loads(s.stdout.readline())["pid"]
        code = _wait(pid, timeout, script)
        with open(out) as f:
            o = f.read()
        with open(err) as f:
            e = f.read()
    return subprocess.CompletedProcess([sys.executable, str(script)], code, o, e)


def _wait(pid, timeout, script):
    """The script's exit status (-signum for a signal). It is the server's
    child, not ours: its end is seen through a pidfd and its status read from
    /proc while it is a zombie (the server collects it at the next request)."""
    fd = os.pidfd_open(pid)
    try:
        p = select.poll()
        p.register(fd, select.POLLIN)
        if not p.poll(timeout * 1000):
            os.kill(pid, signal.SIGKILL)
            p.poll()
            raise subprocess.TimeoutExpired([sys.executable, str(script)], timeout)
    finally:
        os.close(fd)
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # its CPU, and its reaped children's (fields 14-17), which no rusage of
    # ours counts: tests/conftest.py adds it to the test that ran it
    global CPU
    CPU += sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    return os.waitstatus_to_exitcode(int(fields[49]))   # field 52, exit_code
