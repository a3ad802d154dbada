"""Runner main loop: hello, then one case at a time until bye or end of stream."""

from . import lifeline

# before torch is imported: the watcher is forked while there is one thread
lifeline.bind()

import logging  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import torch  # noqa: E402

from . import autotune, compilelock, cudasync, jitstats, proto, repro  # noqa: E402
from .adapters import FlagGemsStyle  # noqa: E402
from .execute import HarnessError, device_ok, run_case  # noqa: E402

log = logging.getLogger("opscreen_runner")


def _hello(adapter, device, sync=None):
    msg = {"type": "hello", "pid": os.getpid(), "entries": []}
    if sync is not None:
        msg["cuda_sync"] = sync
    error = None
    if device not in ("cuda", "cpu"):
        error = f"ValueError: OPSCREEN_DEVICE must be cuda or cpu, not {device!r}"
    elif device == "cuda" and not torch.cuda.is_available():
        error = "RuntimeError: OPSCREEN_DEVICE=cuda but torch sees no CUDA device"
    else:
        try:
            adapter.load()
            msg["entries"] = adapter.entries()
            msg["import"] = adapter.import_info
        except BaseException as e:  # SystemExit from a library import too
            error = f"{type(e).__name__}: {e}"
    msg["fingerprint"] = adapter.fingerprint(device)
    _FINGERPRINT.update(msg["fingerprint"])
    if error:
        msg["error"] = error
        msg["entries"] = []
    return msg


_FINGERPRINT = {}  # the last one sent (hello, fingerprint): a repro's header


def _render(case, adapter, device, op, args, kwargs, result, files=None):
    """The case's repro; when it cannot be rendered, a stub before the calls
    and None after them (the daemon keeps the pre-call one: after a CUDA
    fault no tensor can be read back). Large inputs go to files["inputs"]
    (repro.render)."""
    try:
        if case.get("huge") and case.get("oracle") != "native":  # kernels/' operands
            return repro.render_huge(case, adapter.modname, _FINGERPRINT, device, op, args)
        return repro.render(case, adapter.modname, _FINGERPRINT, device, op, args, kwargs,
                            result, files)
    except Exception as e:  # a repro that cannot be rendered never fails a case
        log.exception("case %s: repro", case.get("id"))
        return None if result is not None else repro.stub(case, f"{type(e).__name__}: {e}")


def _case(fd, adapter, device, case):
    cid = case.get("id") if isinstance(case, dict) else None
    state = {"ms": 0.0, "inputs": None}

    def started(source, files=None):
        msg = {"type": "started", "id": cid, "repro": source}
        if files and files.get("inputs"):
            msg["repro_inputs"] = files["inputs"]   # its inputs file's text
        proto.send(fd, msg)
        state["sent"] = True

    def built(op, args, kwargs):
        t0 = time.perf_counter()
        files = {}
        source = _render(case, adapter, device, op, args, kwargs, None, files)
        state["ms"] += (time.perf_counter() - t0) * 1e3
        state["inputs"] = (op, args, kwargs)
        started(source, files)

    try:
        if not isinstance(case, dict):
            raise HarnessError("case must be an object")
        notify = None
        if case.get("first_call_notify") is True:
            def notify(phase):
                proto.send(fd, {"type": phase, "id": cid})
        res = run_case(case, adapter, device, notify, built)
    except HarnessError as e:
        res = {"status": "harness_error", "harness_error": str(e), "fatal": False}
    except Exception as e:
        log.exception("case %s", cid)
        res = {"status": "harness_error", "harness_error": f"{type(e).__name__}: {e}",
               "fatal": False}
    if res.get("status") == "harness_error" and not device_ok(device):
        # A sticky device error (an asynchronous device-side assert surfacing
        # outside the timed calls): every later case on this context would
        # fail too, so the runner exits and a fresh one takes the next case.
        res["fatal"] = True
    if "sent" not in state:
        started(repro.stub(case, res.get("skip_reason") or "its inputs were not built"))
    if state["inputs"] is not None and not (case.get("huge") and case.get(
            "oracle") != "native") and repro.may_fail(res):
        # figures that may fail the daemon's rule: the repro with them
        t0 = time.perf_counter()
        files = {}
        after = _render(case, adapter, device, *state["inputs"], res, files)
        if after is not None:
            res["repro"] = after
            if files.get("inputs"):
                res["repro_inputs"] = files["inputs"]
        state["ms"] += (time.perf_counter() - t0) * 1e3
    if isinstance(res.get("times"), dict):
        res["times"]["render_ms"] = state["ms"]
    # which process ran it: a key's kernels are compiled, loaded and tuned
    # per process (runner.key_affinity)
    res.update(type="result", id=cid, pid=os.getpid())
    proto.send(fd, res)
    return not res.get("fatal")


def _nccl(fd, msg):
    """The consensus phase's communicator (docs/protocol.md, "NCCL"): joins
    rank `rank` of `nranks` on this runner's GPU (a unique id it makes and
    sends first when the daemon gives none), all-gathers `values` (16 hex
    digits each, padded with zeros to `width`) and answers nccl_done with
    every rank's values, or NCCL's error and its kind (same_gpu: two ranks
    on one GPU, NCCL's own refusal)."""
    from . import nccl
    out = {"type": "nccl_done", "ok": False}
    timeout = float(msg.get("timeout_s") or nccl.TIMEOUT)
    try:
        uid = msg.get("uid")
        if uid is None:
            uid = nccl.unique_id().hex()
            proto.send(fd, {"type": "nccl_uid", "uid": uid})
        try:
            out["device"], out["bus_id"] = nccl.bus_id()
        except nccl.NcclError:
            pass
        vals = [int(v, 16) for v in msg.get("values") or []]
        vals += [0] * (int(msg.get("width") or 0) - len(vals))
        with nccl.Comm(bytes.fromhex(uid), int(msg["nranks"]), int(msg["rank"]),
                       timeout=timeout) as comm:
            got = comm.allgather_u64(vals, timeout=timeout)
        out.update(ok=True, gathered=[[f"{v:016x}" for v in row] for row in got])
    except nccl.NcclError as e:
        out.update(error=str(e), kind=e.kind, available=nccl.available())
    except Exception as e:  # a bad message: told, the runner goes on
        out.update(error=f"{type(e).__name__}: {e}", kind="other",
                   available=nccl.available())
    proto.send(fd, out)


def _multirank(fd, msg):
    """The multi-rank bootstrap probe (multirank.py), both orders, over the
    GPUs the daemon names in `visible` (this runner itself is pinned to
    one): answers multirank_done with each order's answer."""
    from . import multirank
    out = {"type": "multirank_done"}
    old = os.environ.get("CUDA_VISIBLE_DEVICES")
    try:
        if msg.get("visible") is not None:
            os.environ["CUDA_VISIBLE_DEVICES"] = str(msg["visible"])
        lib = os.environ.get("OPSCREEN_LIBRARY", "flag_gems")
        for order in ("import-first", "pin-first"):
            out[order.replace("-", "_")] = multirank.probe(
                lib, order, ranks=int(msg.get("ranks") or 2),
                timeout=float(msg.get("timeout_s") or 120))
    except Exception as e:  # told, the runner goes on
        out["error"] = f"{type(e).__name__}: {e}"
    finally:
        if old is None:
            os.environ.pop("CUDA_VISIBLE_DEVICES", None)
        else:
            os.environ["CUDA_VISIBLE_DEVICES"] = old
    proto.send(fd, out)


def main():
    logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                        format="opscreen_runner[%(process)d] %(levelname)s %(message)s")
    # Screening is background work: the daemon's API must not wait behind it.
    if os.environ.get("OPSCREEN_NICE"):
        os.nice(int(os.environ["OPSCREEN_NICE"]))
    fd = int(os.environ.get("OPSCREEN_FD", "3"))
    device = os.environ.get("OPSCREEN_DEVICE", "cpu")
    torch.set_grad_enabled(False)
    # Every override registration warns once; it would crowd the crash-report tail.
    warnings.filterwarnings("ignore", message="(?s).*Overriding a previously registered kernel")
    # Before anything creates the CUDA context (the library's import may).
    sync = None
    mode = os.environ.get("OPSCREEN_CUDA_SYNC", "auto")
    if device == "cuda" and mode != "auto":
        sync = cudasync.set_sync(mode)
        if "error" in sync:
            log.warning("cuda_sync %s not applied: %s", mode, sync["error"])
    if device == "cuda":  # compiles and autotuning of first calls, per case
        jitstats.install()
        autotune.install_one_config()
        # one runner compiles a kernel, the others wait for the cache
        if os.environ.get("OPSCREEN_COMPILE_LOCK", "1") != "0":
            compilelock.install(jitstats._acc)
    rep = float(os.environ.get("OPSCREEN_AUTOTUNE_REP", "0") or 0)
    capped = autotune.cap(rep) if rep > 0 else None
    adapter = FlagGemsStyle(os.environ.get("OPSCREEN_LIBRARY", "flag_gems"))
    hello = _hello(adapter, device, sync)
    if capped is not None:
        hello["autotune_rep"] = capped
    proto.send(fd, hello)
    if "error" in hello:
        log.error("%s", hello["error"])
        return 0
    while True:
        try:
            msg = proto.recv(fd)
        except proto.ProtocolError as e:
            log.error("protocol: %s", e)
            return 1
        except ValueError as e:  # undecodable frame: skip it, the stream is intact
            log.error("bad frame: %s", e)
            continue
        if msg is None or (isinstance(msg, dict) and msg.get("type") == "bye"):
            return 0
        if isinstance(msg, dict) and msg.get("type") == "fingerprint":
            # Re-read from disk: the daemon notices a library changed under it.
            fp = adapter.fingerprint(device)
            _FINGERPRINT.update(fp)
            proto.send(fd, {"type": "fingerprint", "fingerprint": fp})
            continue
        if isinstance(msg, dict) and msg.get("type") == "nccl":
            _nccl(fd, msg)
            continue
        if isinstance(msg, dict) and msg.get("type") == "multirank":
            _multirank(fd, msg)
            continue
        if not isinstance(msg, dict) or msg.get("type") != "case":
            log.warning("ignored message %.200r", msg)
            continue
        if not _case(fd, adapter, device, msg.get("case")):
            log.error("device context lost; exiting for a fresh runner")
            os._exit(0)  # CUDA teardown in a poisoned context can hang


if __name__ == "__main__":
    sys.exit(main())
