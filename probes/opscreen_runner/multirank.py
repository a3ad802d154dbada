"""The multi-rank bootstrap probe: does importing the library under test before
a rank pins its GPU put every rank on one GPU?

    PYTHONPATH=probes python3 -m opscreen_runner.multirank --library NAME \\
        --order import-first|pin-first [--ranks 2] [--timeout 120]

starts `ranks` children the way inference engines start their workers (a
fresh interpreter each; this parent imports neither torch nor the library).
Each child imports the library and pins itself by setting CUDA_VISIBLE_DEVICES
to its GPU, in the order asked (a pin has no effect once CUDA is initialised),
takes device 0, joins an NCCL communicator (nccl.py) on a unique id from the
parent and all-gathers its rank.  One JSON line on stdout:

    {"ranks", "order", "library", "ok", "finding", "error", "nccl", "children"}

`finding` is null or the import-order hazard with NCCL's message; `error` is
any other failure (a timeout, ranks on one GPU with CUDA untouched by the
import, else the first rank that failed).  With fewer GPUs than ranks:
{"ok": null, "skipped": ...}.  Exits 0 when ok or skipped, 1 otherwise.
Facts only: nothing here decides a verdict.
"""

import argparse
import ctypes
import importlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from . import nccl

_ROOT = nccl._ROOT
# the children's PYTHONPATH: the directory that holds opscreen_runner
PROBES = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# where `demolib` lives: tests/demolib of the checkout, or share/opscreen/demolib
DEMOLIB = [os.path.join(_ROOT, "tests", "demolib"), os.path.join(_ROOT, "demolib")]
TAIL = 2000  # characters of a failed child's stderr kept
POLL = 0.05  # seconds between two looks at the children or the unique id file


def _visible():
    """The entries of CUDA_VISIBLE_DEVICES up to the first one CUDA would stop
    at, or None where it is unset."""
    s = os.environ.get("CUDA_VISIBLE_DEVICES")
    if s is None:
        return None
    out = []
    for x in s.split(","):
        x = x.strip()
        if not x or x.startswith("-"):
            break
        out.append(x)
    return out


def _nvml_count():
    try:
        ml = ctypes.CDLL("libnvidia-ml.so.1")
    except OSError:
        return None
    n = ctypes.c_uint()
    if ml.nvmlInit_v2() != 0:
        return None
    try:
        return n.value if ml.nvmlDeviceGetCount_v2(ctypes.byref(n)) == 0 else None
    finally:
        ml.nvmlShutdown()


def _smi_count():
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True,
                             timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return sum(1 for line in out.stdout.splitlines() if line.startswith("GPU "))


def gpu_count():
    """The GPUs this process's children may use, without a CUDA context:
    NVML's count (else nvidia-smi -L's, else 0), at most the entries of
    CUDA_VISIBLE_DEVICES where it is set."""
    n = _nvml_count()
    if n is None:
        n = _smi_count() or 0
    vis = _visible()
    return n if vis is None else min(n, len(vis))


def import_library(name):
    """Imports the library under test ("demolib" is opscreen_demolib, as in
    adapters.MODULES; any other name a module); returns the module."""
    from .adapters import MODULES  # imports torch, which initialises no CUDA
    return importlib.import_module(MODULES.get(name, name))


def _pin(rank):
    """What an engine's worker does: its GPU's entry of the inherited
    CUDA_VISIBLE_DEVICES (or its rank) as the only visible device."""
    vis = _visible()
    os.environ["CUDA_VISIBLE_DEVICES"] = vis[rank] if vis else str(rank)
    return os.environ["CUDA_VISIBLE_DEVICES"]


def _child_uid(rank, deadline):
    """The unique id the parent made (hex in OPSCREEN_NCCL_UID), else rank
    0's, through the file OPSCREEN_NCCL_UID_FILE the other ranks poll."""
    hexid = os.environ.get("OPSCREEN_NCCL_UID")
    if hexid:
        return bytes.fromhex(hexid)
    path = os.environ["OPSCREEN_NCCL_UID_FILE"]
    if rank == 0:
        uid = b""
        try:
            uid = nccl.unique_id()
        finally:
            with open(path + ".tmp", "wb") as f:  # empty: rank 0 has none
                f.write(uid)
            os.replace(path + ".tmp", path)
        return uid
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            raise TimeoutError("no unique id from rank 0")
        time.sleep(POLL)
    with open(path, "rb") as f:
        uid = f.read()
    if len(uid) != nccl.ID_BYTES:
        raise RuntimeError("rank 0 could not make a unique id")
    return uid


def child(rank, ranks, library, order, timeout):
    """One rank: import and pin in `order`, device 0, NCCL, an all-gather of
    [rank]. Returns its record."""
    deadline = time.monotonic() + timeout
    info = {"rank": rank, "ok": False, "stage": None, "error": None, "kind": None,
            "pinned": None, "cuda_initialized_after_import": None, "device": None,
            "device_count": None, "bus_id": None}
    try:
        steps = ["import", "pin"] if order == "import-first" else ["pin", "import"]
        for step in steps:
            info["stage"] = step
            if step == "pin":
                info["pinned"] = _pin(rank)
                continue
            import_library(library)
            import torch
            info["cuda_initialized_after_import"] = bool(torch.cuda.is_initialized())
        info["stage"] = "device"
        torch.cuda.set_device(0)
        info["device"] = torch.cuda.current_device()
        info["device_count"] = torch.cuda.device_count()
        info["stage"] = "bus id"
        info["bus_id"] = nccl.bus_id()[1]
        info["stage"] = "unique id"
        uid = _child_uid(rank, deadline)
        info["stage"] = "nccl init"
        left = max(1.0, deadline - time.monotonic())
        comm = nccl.Comm(uid, ranks, rank, timeout=left)
        try:
            info["stage"] = "all-gather"
            got = comm.allgather_u64([rank], timeout=max(1.0, deadline - time.monotonic()))
        finally:
            comm.close()
        if got != [[r] for r in range(ranks)]:
            raise RuntimeError(f"all-gather of the ranks gave {got}")
        info["stage"], info["ok"] = "done", True
    except Exception as e:  # every failure is a fact to report
        info["error"] = str(e) if isinstance(e, nccl.NcclError) else \
            f"{type(e).__name__}: {e}"
        info["kind"] = nccl.classify(info["error"])
    return info


def _env(library, uid, uidfile):
    env = dict(os.environ)
    paths = [PROBES]
    if library == "demolib":
        paths += [d for d in DEMOLIB if os.path.isdir(d)]
    env["PYTHONPATH"] = os.pathsep.join(paths + [p for p in [env.get("PYTHONPATH")] if p])
    env.pop("OPSCREEN_NCCL_UID", None)
    env.pop("OPSCREEN_NCCL_UID_FILE", None)
    if uid is not None:
        env["OPSCREEN_NCCL_UID"] = uid.hex()
    else:
        env["OPSCREEN_NCCL_UID_FILE"] = uidfile
    return env


def _record(rank, out_path, err_path, rc):
    """A child's JSON line (the last line of its stdout that is one), or a
    record of why there is none; a failed child's stderr tail."""
    rec = None
    with open(out_path, errors="replace") as f:
        lines = f.read().splitlines()
    for line in reversed(lines):
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict) and obj.get("rank") == rank:
            rec = obj
            break
    if rec is None:
        what = "killed at the timeout" if rc is None else f"exited with status {rc}"
        rec = {"rank": rank, "ok": False, "error": f"no answer: {what}", "kind": "other"}
    if not rec.get("ok"):
        with open(err_path, errors="replace") as f:
            rec["stderr"] = f.read()[-TAIL:]
    return rec


def _finding(order, library, children):
    """(finding, error): the import-order hazard, or ranks on one GPU with
    another cause, from the children's records."""
    refused = [c for c in children if c.get("kind") == "same_gpu"]
    buses = [c.get("bus_id") for c in children]
    shared = all(buses) and len(set(buses)) < len(buses)
    if not refused and not shared:
        return None, None
    nccl_says = refused[0]["error"] if refused else \
        f"it accepted ranks sharing one GPU (bus ids {buses})"
    if order == "import-first" and any(c.get("cuda_initialized_after_import")
                                       for c in children):
        return (f"import-order hazard: importing {library} initialises CUDA before a "
                f"rank is pinned, so every rank lands on one GPU; NCCL: {nccl_says}"), None
    return None, f"ranks share one GPU, CUDA untouched by the import; NCCL: {nccl_says}"


def probe(library, order, ranks=2, timeout=120.0):
    """The probe's answer (a dict); starts and waits for the children."""
    out = {"ranks": ranks, "order": order, "library": library}
    have = gpu_count()
    if have < ranks:
        out.update(ok=None, skipped=f"needs {ranks} GPUs, this host has {have}")
        return out
    out.update(ok=False, finding=None, error=None, nccl=None, children=[])
    try:
        out["nccl"] = ".".join(map(str, nccl.version()))
        uid = nccl.unique_id()
    except nccl.NcclError:
        uid = None  # rank 0 makes it
    with tempfile.TemporaryDirectory(prefix="opscreen-multirank-") as tmp:
        env = _env(library, uid, os.path.join(tmp, "uid"))
        procs = []
        for r in range(ranks):
            o, e = os.path.join(tmp, f"out{r}"), os.path.join(tmp, f"err{r}")
            with open(o, "wb") as fo, open(e, "wb") as fe:
                procs.append(subprocess.Popen(
                    [sys.executable, "-m", "opscreen_runner.multirank", "--child", str(r),
                     "--library", library, "--order", order, "--ranks", str(ranks),
                     "--timeout", str(timeout * 0.8)],
                    env=env, stdin=subprocess.DEVNULL, stdout=fo, stderr=fe,
                    start_new_session=True))
        end = time.monotonic() + timeout
        while time.monotonic() < end and any(p.poll() is None for p in procs):
            time.sleep(POLL)
        timed_out = [p for p in procs if p.poll() is None]
        for p in timed_out:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
        out["children"] = [_record(r, os.path.join(tmp, f"out{r}"),
                                   os.path.join(tmp, f"err{r}"),
                                   None if p in timed_out else p.returncode)
                           for r, p in enumerate(procs)]
    out["finding"], out["error"] = _finding(order, library, out["children"])
    bad = [c for c in out["children"] if not c.get("ok")]
    if out["error"] is None and out["finding"] is None and timed_out:
        out["error"] = f"ranks {[procs.index(p) for p in timed_out]} still running " \
                       f"after {timeout:g} s: killed"
    elif out["error"] is None and out["finding"] is None and bad:
        out["error"] = f"rank {bad[0]['rank']} ({bad[0].get('stage')}): {bad[0]['error']}"
    out["ok"] = (out["finding"] is None and out["error"] is None
                 and all(c.get("ok") for c in out["children"]))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m opscreen_runner.multirank",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--library", required=True,
                    help="the library under test: flag_gems, demolib or a module name")
    ap.add_argument("--order", required=True, choices=["import-first", "pin-first"])
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=120.0,
                    help="seconds before the children are killed (default 120)")
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.ranks < 1 or a.timeout <= 0:
        ap.error("--ranks and --timeout must be positive")
    if a.child is not None:
        info = child(a.child, a.ranks, a.library, a.order, a.timeout)
        print(json.dumps(info), flush=True)
        # leave at once: a failed communicator's threads may not end on their own
        os._exit(0 if info["ok"] else 1)
    out = probe(a.library, a.order, a.ranks, a.timeout)
    print(json.dumps(out), flush=True)
    return 0 if out["ok"] is not False else 1


if __name__ == "__main__":
    sys.exit(main())
