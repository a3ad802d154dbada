"""Drives `python -m opscreen_runner` over a socketpair on fd 3, as opscreend does;
and runs the repros it renders (with the daemon's part from opscreenctl judge)."""

import json
import os
import re
import socket
import struct
import subprocess
import sys

import standalone

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PYTHONPATH = os.pathsep.join([os.path.join(ROOT, "probes"),
                              os.path.join(ROOT, "tests", "demolib")])
sys.path[:0] = PYTHONPATH.split(os.pathsep)  # in-process tests import the runner
REPRO_LINES = 40  # what a repro may hold (docs/protocol.md, "Repro")
ENTRY_LINES = 30  # and an entry point's or a mode's, beyond (its reference, compile or capture)
ROUTING_LINES = 10  # and a grouped routing's, beyond (its fp64 judge: figures.grouped_routing)


# The inputs files the runners sent (a repro's "repro_inputs": inputs too
# large to embed, which its script reads from a file beside it), by the name
# the script reads: run_repro writes each script's beside it.
INPUTS = {}
INPUTS_FILE = re.compile(r'"(case-\d+\.inputs\.b64)"')


def keep_inputs(msg):
    """msg (a STARTED or RESULT) with its repro's inputs file: kept."""
    if isinstance(msg, dict) and msg.get("repro") and msg.get("repro_inputs"):
        m = INPUTS_FILE.search(msg["repro"])
        assert m, msg["repro"][:2000]
        INPUTS[m.group(1)] = msg["repro_inputs"]


class Runner:
    def __init__(self, **env):
        full = dict(os.environ, OPSCREEN_FD="3", OPSCREEN_LIBRARY="demolib",
                    OPSCREEN_DEVICE="cpu", CUDA_VISIBLE_DEVICES="",
                    PYTHONPATH=os.environ.get("PYTHONPATH"))
        full.update(env)
        full["PYTHONPATH"] = os.pathsep.join(filter(None, [PYTHONPATH, full["PYTHONPATH"]]))
        if os.environ.get("OPSCREEN_STANDALONE") == "fresh":
            self.sock, child = socket.socketpair()
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "opscreen_runner"], env=full,
                stdout=subprocess.DEVNULL, pass_fds=[3],
                preexec_fn=lambda: (os.setsid(), os.dup2(child.fileno(), 3)),
            )
            child.close()
        else:
            # forked from the server that imported torch (standalone.py), as
            # the daemon's runner pool forks its runners: 5 CPU-s of imports
            # fewer per runner
            self.sock, self.proc = standalone.runner(full, os.getcwd())
        self.sock.settimeout(120)

    def recv(self):
        head = self.sock.recv(4, socket.MSG_WAITALL)
        if len(head) < 4:
            return None
        (n,) = struct.unpack(">I", head)
        body = b""
        while len(body) < n:  # a socket with a timeout may return less
            chunk = self.sock.recv(n - len(body), socket.MSG_WAITALL)
            if not chunk:
                return None
            body += chunk
        msg = json.loads(body)
        keep_inputs(msg)
        return msg

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.sock.sendall(struct.pack(">I", len(body)) + body)

    def case(self, case):
        """(started, result) messages; result is None when the runner died."""
        self.send({"type": "case", "case": case})
        return self.recv(), self.recv()

    def close(self):
        try:
            self.send({"type": "bye"})
        except OSError:
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.sock.close()


# what a test library's source gets: enabling the names of its _FULL_CONFIG
# on the CPU, as FlagGems' use_gems(include=[...]) does
USE_GEMS = '''

class use_gems:
    def __init__(self, include=None, exclude=None):
        self.include = include

    def __enter__(self):
        self.lib = torch.library.Library("aten", "IMPL")
        for key, fn in _FULL_CONFIG:
            if fn.__name__ in self.include:
                self.lib.impl(key, fn, "CPU")
        return self

    def __exit__(self, *exc):
        self.lib._destroy()
        return False
'''


def library_runner(directory, module, source):
    """A runner of the library `module` after its hello: `source` (torch
    imported, _FULL_CONFIG) and USE_GEMS written into directory."""
    with open(os.path.join(directory, module + ".py"), "w") as f:
        f.write(source + USE_GEMS)
    r = Runner(OPSCREEN_LIBRARY=module, PYTHONPATH=os.pathsep.join(
        filter(None, [str(directory), os.environ.get("PYTHONPATH")])))
    hello = r.recv()
    assert "error" not in hello, hello
    return r


def tensor(shape, dtype="bfloat16", domain="normal", **kw):
    return dict(t="tensor", shape=shape, dtype=dtype, domain=domain, **kw)


def daemon_steady():
    """The steady-call gate the daemon sends with a same_shape case
    ("steady"), read from its one definition (daemon/verdict.h,
    VERDICT_STEADY_* and VERDICT_SPEED_CALLS)."""
    with open(os.path.join(ROOT, "daemon", "verdict.h")) as f:
        defs = dict(re.findall(r"^#define\s+VERDICT_(STEADY_\w+|SPEED_CALLS)\s+(\S+)",
                               f.read(), re.M))
    return {"calls": int(defs["STEADY_CALLS"]), "max_ms": float(defs["STEADY_MAX_MS"]),
            "speed": int(defs["SPEED_CALLS"])}


STEADY = daemon_steady()


def make_case(id, key, name, args, dtype="bfloat16", kwargs=None, **kw):
    """A case as the daemon sends it (with its steady-call gate)."""
    return dict(id=id, key=key, name=name, dtype=dtype, seed=kw.pop("seed", 1234567),
                args=args, kwargs=kwargs or {}, compare=kw.pop("compare", "float"),
                inplace=False, **{"class": kw.pop("cls", "same_shape")},
                steady=kw.pop("steady", STEADY), **kw)


def judge_repro(case, result):
    """(verdict, the repro as the daemon stores it): opscreenctl judge."""
    ctl = os.path.join(ROOT, "build", "opscreenctl")
    assert "repro" in result, json.dumps(result)[:1500]
    body = {"case": case, "result": result, "repro": result["repro"]}
    p = subprocess.run([ctl, "judge"], input=json.dumps(body), capture_output=True,
                       text=True, timeout=30)
    assert p.returncode in (0, 5), p.stderr
    v = json.loads(p.stdout)
    return v, v.pop("repro")


def run_repro(source, tmp_path, extra_path="", **env):
    path = tmp_path / "repro.py"
    path.write_text(source)
    for name in INPUTS_FILE.findall(source):   # its inputs, beside it
        (tmp_path / name).write_text(INPUTS[name])
    full = dict(os.environ, CUDA_VISIBLE_DEVICES="", PYTHONPATH=os.pathsep.join(
        filter(None, [PYTHONPATH.split(os.pathsep)[1], extra_path])))
    full.pop("OPSCREEN_REPRO_NATIVE", None)
    full.update(env)
    # as `python repro.py`, forked from a server that imported torch alone
    return standalone.run(path, full, tmp_path, 300)


def repro_lines(case):
    """What a case's repro may hold: REPRO_LINES, and ENTRY_LINES more for
    an entry point's (it carries opscreen's reference) or a deployment
    mode's (the compile or the capture), ROUTING_LINES more for a grouped
    routing's (it carries the fp64 judge of the experts picked)."""
    return REPRO_LINES + (ENTRY_LINES if case["key"].startswith("fused::") or
                          case.get("class") in ("trace", "graph") else 0) + \
        (ROUTING_LINES if case.get("compare") == "grouped_routing" else 0)


def repro_fails(source, tmp_path, extra_path="", limit=REPRO_LINES):
    """The script fails with an AssertionError; with native PyTorch in the
    library's place it passes. Its stderr."""
    assert len(source.splitlines()) <= limit, (len(source.splitlines()), source)
    assert "opscreen_runner" not in source, source
    bad = run_repro(source, tmp_path, extra_path)
    assert bad.returncode != 0 and "AssertionError" in bad.stderr, (bad.stdout, bad.stderr)
    good = run_repro(source, tmp_path, extra_path, OPSCREEN_REPRO_NATIVE="1")
    assert good.returncode == 0, good.stderr
    return bad.stderr
