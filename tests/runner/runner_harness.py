"""Drives `python -m opscreen_runner` over a socketpair on fd 3, as opscreend does."""

import json
import os
import re
import socket
import struct
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PYTHONPATH = os.pathsep.join([os.path.join(ROOT, "probes"),
                              os.path.join(ROOT, "tests", "demolib")])
sys.path[:0] = PYTHONPATH.split(os.pathsep)  # in-process tests import the runner


class Runner:
    def __init__(self, **env):
        self.sock, child = socket.socketpair()
        self.sock.settimeout(120)
        full = dict(os.environ, OPSCREEN_FD="3", OPSCREEN_LIBRARY="demolib",
                    OPSCREEN_DEVICE="cpu", CUDA_VISIBLE_DEVICES="",
                    PYTHONPATH=os.environ.get("PYTHONPATH"))
        full.update(env)
        full["PYTHONPATH"] = os.pathsep.join(filter(None, [PYTHONPATH, full["PYTHONPATH"]]))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "opscreen_runner"], env=full,
            stdout=subprocess.DEVNULL, pass_fds=[3],
            preexec_fn=lambda: (os.setsid(), os.dup2(child.fileno(), 3)),
        )
        child.close()

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
        return json.loads(body)

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


def tensor(shape, dtype="bfloat16", domain="normal", **kw):
    return dict(t="tensor", shape=shape, dtype=dtype, domain=domain, **kw)


def daemon_steady():
    """The steady-call gate the daemon sends with every case ("steady"),
    read from its one definition (daemon/verdict.h, VERDICT_STEADY_*)."""
    with open(os.path.join(ROOT, "daemon", "verdict.h")) as f:
        defs = dict(re.findall(r"^#define\s+VERDICT_STEADY_(\w+)\s+(\S+)", f.read(), re.M))
    return {"calls": int(defs["CALLS"]), "max_ms": float(defs["MAX_MS"])}


STEADY = daemon_steady()


def make_case(id, key, name, args, dtype="bfloat16", kwargs=None, **kw):
    """A case as the daemon sends it (with its steady-call gate)."""
    return dict(id=id, key=key, name=name, dtype=dtype, seed=kw.pop("seed", 1234567),
                args=args, kwargs=kwargs or {}, compare=kw.pop("compare", "float"),
                inplace=False, **{"class": kw.pop("cls", "same_shape")},
                steady=kw.pop("steady", STEADY), **kw)


