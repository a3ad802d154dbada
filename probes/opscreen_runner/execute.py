"""One case: build inputs, run native, oracle and candidate, report figures."""

import hashlib
import math
import os
import shutil
import statistics
import tempfile
import time

import torch

from . import autotune, figures, inputs, jitstats, kernels, modes, stats

COMPARE_MODES = ("float", "exact", "sort", "topk", "routing", "grouped_routing",
                 "shape_only", "stat", "bootstrap")
# Float outputs of at least this many elements are compared by kernels/' one
# pass (O(1) extra memory) instead of the chain of torch ops of figures.py.
FUSED_MIN = int(os.environ.get("OPSCREEN_FUSED_MIN", str(1 << 20)))
MAX_MESSAGE = 2000


class HarnessError(Exception):
    pass


class _DisableFailed(Exception):
    """Leaving the candidate's context failed: its override may still be
    registered, so every later case in this runner would lie."""


def _describe(e):
    return f"{type(e).__name__}: {e}"[:MAX_MESSAGE]


def _sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def _call(op, args, kwargs, mutates, device, seed=None):
    """(output, error string or None, ms, the written input or None).
    seed: random ops draw from a generator seeded with the case seed."""
    args, kwargs, written = inputs.fresh(args, kwargs, mutates)
    if seed is not None:
        torch.manual_seed(seed)
    try:
        _sync(device)  # earlier async work is not this call's
        t0 = time.perf_counter()
        out = op(*args, **kwargs)
        _sync(device)  # async faults are charged to this call
        ms = (time.perf_counter() - t0) * 1e3
        return out, None, ms, written
    except Exception as e:
        return None, _describe(e), None, None


# what one side's speed calls may take (their number comes with the case:
# "steady"'s "speed", daemon/verdict.h VERDICT_SPEED_CALLS): the warm
# whole-table screen of 2026-12-03 on the H200 had a median call of 0.4 ms;
# timing every case within the case's max_ms (500 ms) would have added about
# 570 runner-s to its 2,601 (an estimate from its per-case times), within
# 100 ms about 270
SPEED_BUDGET_MS = 100.0


def _speed(op, args, kwargs, mutates, device, per_call_ms, max_ms, calls):
    """(median ms, calls) of steady-state calls on the case's inputs: one
    warm-up, then up to `calls` timed ones, fewer where per_call_ms
    says they would not fit in max_ms or SPEED_BUDGET_MS (None under 3).
    On a GPU the calls are issued back to back, each between two CUDA
    events on the current stream, and the runner synchronises once, after
    the last (as triton.testing.do_bench times): a call's figure is the
    GPU's time from its first event to its second, which is the kernels'
    time where the GPU is the bottleneck and the host's launch time where
    the GPU waits for the launcher (a slow Python launcher shows). A
    synchronisation per call made the loop 24 GPU round trips a case, and
    under cuda_sync = auto each spins a core while 14 runners share the GPU
    (291 runner-s of the warm screen of 2026-12-04, docs/results/
    flag_gems-5.0.2-h200-severity.md). On the CPU each call is timed by the
    host clock. Written inputs are fresh copies per call, made outside the
    timed span."""
    if per_call_ms is None or max_ms is None:
        return None, 0
    n = min(calls, int(min(max_ms, SPEED_BUDGET_MS) / max(per_call_ms, 1e-3)) - 1)
    if n < 3:
        return None, 0
    if device == "cuda":
        ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(n + 1)]
        _sync(device)  # earlier work is not the first call's
        for t0, t1 in ev:
            a, k, _ = inputs.fresh(args, kwargs, mutates)
            t0.record()
            op(*a, **k)
            t1.record()
        ev[-1][1].synchronize()
        out = [t0.elapsed_time(t1) for t0, t1 in ev[1:]]
    else:
        out = []
        for i in range(n + 1):
            a, k, _ = inputs.fresh(args, kwargs, mutates)
            t = time.perf_counter()
            op(*a, **k)
            if i > 0:
                out.append((time.perf_counter() - t) * 1e3)
    return statistics.median(out), n


def _guard_check(op, args, kwargs, mutates, device, first, candidate):
    """The candidate called on guarded copies of its inputs
    (inputs.guarded): the memory next to them holds the dtype's lowest, then
    its highest value. None when neither changes the output's bits nor is
    overwritten; else (side, facts, that call's output) with the facts the
    daemon judges (daemon/verdict.c, verdict_guard): "intact" (every guard
    still holds the poison), "changed" (the output's bits differ from the
    first call's) and "reproduced" (the same guarded call again gives the
    same changed bits, and an unguarded call still the first call's: a
    nondeterministic kernel is the repeat rule's). candidate() is
    the library's context for one call: the guard's own copies, fills and
    comparisons run on torch's kernels, never on the library's (a case of
    copy_, fill_ or equal would otherwise compile and run the candidate on
    the guard's buffers)."""
    def call(a, k):
        ctx = candidate()
        ctx.__enter__()
        try:
            out = op(*a, **k)
            _sync(device)
        finally:
            try:
                ctx.__exit__(None, None, None)
            except Exception as e:
                raise _DisableFailed(_describe(e)) from e
        return out

    for side in ("low", "high"):
        try:
            gargs, gkw, guards = inputs.guarded(args, kwargs, mutates, side)
            if not guards:
                return None
            out = call(gargs, gkw)
            # the poison and the output checked with one device read
            wf = inputs.intact_flags(guards)
            rf = figures.same_bits_flags(first, out)
            got = figures.read_flags(wf + (rf or []))
            intact = all(got[:len(wf)])
            changed = rf is None or not all(got[len(wf):])
            reproduced = False
            if changed:
                g2, k2, _ = inputs.guarded(args, kwargs, mutates, side)
                a3, k3, _ = inputs.fresh(args, kwargs, mutates)
                reproduced = figures.same_bits(out, call(g2, k2)) and \
                    figures.same_bits(first, call(a3, k3))
        except _DisableFailed:
            raise
        except Exception:
            # raising only beside poison says nothing reproducible; a device
            # fault that poisoned the context ends the case (and the runner)
            if not device_ok(device):
                raise
            return None
        # a call that changed nothing the daemon would judge: the next side
        if reproduced or not intact:
            return side, {"intact": intact, "changed": changed,
                          "reproduced": reproduced}, out
    return None


def device_ok(device):
    """False when the CUDA context is poisoned (sticky error) or its random
    generator unusable (left capturing by a refused CUDA graph capture)."""
    if device != "cuda":
        return True
    try:
        torch.cuda.synchronize()
        torch.randn(1, device="cuda")
        return torch.ones(1, device="cuda").add_(1).item() == 2.0
    except Exception:
        return False


def _aliases(out, mutated):
    return (isinstance(out, torch.Tensor) and mutated is not None
            and out.data_ptr() == mutated.data_ptr())


def _count(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def steady_gate(case):
    """(calls, max_ms, speed) of the case's "steady" field, the daemon's
    steady-call gate (daemon/verdict.h, VERDICT_STEADY_* and
    VERDICT_SPEED_CALLS): how many calls follow the first, the time at which
    a first call and the next one, both that slow, end them, and how many
    timed calls per side measure the speed (absent: none). A case without
    it gets no steady calls."""
    st = case.get("steady")
    if st is None:
        return 0, None, 0
    if not isinstance(st, dict) or not _count(st.get("calls")) or \
            not isinstance(st.get("max_ms"), (int, float)) or \
            isinstance(st.get("max_ms"), bool) or \
            not _count(st.get("speed", 0)):
        raise HarnessError("case field 'steady' must be {\"calls\": int >= 0, "
                           "\"max_ms\": number, \"speed\": int >= 0}")
    return st["calls"], float(st["max_ms"]), st.get("speed", 0)


def _check(case, adapter):
    for field in ("key", "name"):
        if not isinstance(case.get(field), str):
            raise HarnessError(f"case field {field!r} must be a string")
    steady_gate(case)
    if not isinstance(case.get("seed", 0), int):
        raise HarnessError("case field 'seed' must be an integer")
    if case.get("compare", "float") not in COMPARE_MODES:
        raise HarnessError(f"unknown compare {case.get('compare')!r}")
    if not adapter.serves(case["key"], case["name"]):
        # Enabling a name that does not serve the key would silently run native.
        raise HarnessError(f"{case['name']!r} does not serve {case['key']!r}")


def _dispatch_table(key):
    name, _, overload = key.partition(".")
    qual = "aten::" + name + ("." + overload if overload else "")
    return torch._C._dispatch_dump_table(qual)


def bootstrap_case(case, adapter):
    """Registration-table sanity of one entry: the key is an aten operator and
    enabling its name changes that operator's dispatch table."""
    rec = {"index": 0, "cand": None, "native": None, "kind": "bootstrap",
           "numel": 0, "resolves": True, "registers": False}
    if case["key"] in adapter.entry_fns:
        # an entry point is called directly: nothing to register; it must
        # be one of the library's callables
        rec.update(registers=callable(adapter.entry_fns[case["key"]]),
                   detail="entry point: called directly")
        return {"status": "ok", "fatal": False, "outputs": [rec], "times": {}}
    try:
        inputs.resolve_op(case["key"])
        before = _dispatch_table(case["key"])
    except (ValueError, RuntimeError) as e:
        rec.update(resolves=False, detail=_describe(e))
        return {"status": "ok", "fatal": False, "outputs": [rec], "times": {}}
    try:
        with adapter.candidate(case["name"]):
            during = _dispatch_table(case["key"])
    except Exception as e:
        return {"status": "cand_error", "cand_error": "enable: " + _describe(e),
                "fatal": False, "outputs": [], "times": {}}
    rec["registers"] = during != before
    return {"status": "ok", "fatal": False, "outputs": [rec], "times": {}}


class _ColdCache:
    """Compile-class cases: the first call compiles into an empty Triton cache
    of its own (TRITON_CACHE_DIR), removed afterwards."""

    def __init__(self, on):
        self.on, self.dir, self.old = on, None, None

    def __enter__(self):
        if self.on:
            self.dir = tempfile.mkdtemp(prefix="opscreen-compile-")
            self.old = os.environ.get("TRITON_CACHE_DIR")
            os.environ["TRITON_CACHE_DIR"] = self.dir
        return self

    def __exit__(self, *exc):
        if self.on:
            if self.old is None:
                os.environ.pop("TRITON_CACHE_DIR", None)
            else:
                os.environ["TRITON_CACHE_DIR"] = self.old
            shutil.rmtree(self.dir, ignore_errors=True)
        return False


def fused_figures(c, n, o):
    """kernels/' figures for one float output, or None (then figures.py)."""
    if n.numel() < FUSED_MIN or c.device != n.device or o.device != n.device:
        return None
    try:
        rec = kernels.compare(c, n, o.to(torch.float64), "float")
    except Exception:  # a kernels/ failure falls back, it never fails a case
        return None
    if rec is None:
        return None
    keep = ("R", "oracle_max", "err_abs_c", "err_abs_n", "err_ulp_c", "err_ulp_n",
            "nonfinite_mismatch_c", "nonfinite_mismatch_n", "worst_c")
    out = {k: rec[k] for k in keep if k in rec}
    out["fused"] = True
    return out


def _same_picks(case, args, kwargs, a, b):
    """Two index tensors of a sort pick the same values of its input."""
    op = inputs.resolve_op(case["key"])
    x = args[0] if args and isinstance(args[0], torch.Tensor) else None
    if x is None:
        return False
    dim = figures.bound_arg(op, args, kwargs, "dim")
    dim = -1 if dim is None else dim
    if x.dim() == 0:
        return bool((a == b).all().item())
    xa = x.gather(dim, a.to(x.device))
    xb = x.gather(dim, b.to(x.device))
    return bool(((xa == xb) | (torch.isnan(xa) & torch.isnan(xb))
                 if x.is_floating_point() else (xa == xb)).all().item())


def oracle_check(case, args, kwargs, oracle, device):
    """Cross-check of the two fp64 oracles (kernels/ and torch's): their
    differences on every output where kernels/ has one (`diffs`, see
    kernels.oracle_agreement), judged by the daemon; None when kernels/ has
    no oracle for this key."""
    if oracle is None or not kernels.available(device):
        return None
    try:
        mine = kernels.oracle(case["key"], args, kwargs)
    except Exception as e:  # a kernels/ bug is reported, never fatal to the case
        return {"error": _describe(e)}
    if mine is None:
        return None
    ours, theirs = figures.flatten(mine), figures.flatten(oracle)
    rec = {"outputs": 0, "diffs": []}
    if len(ours) != len(theirs):
        rec.update(outputs=len(ours), detail=f"kernels/ gives {len(ours)} outputs, "
                   f"torch {len(theirs)}")
        return rec
    sorts = case["key"].split(".")[0] in kernels.SORTS
    for a, b in zip(ours, theirs):
        if not (a.is_floating_point() or b.is_floating_point()):
            # indices of a sort: ties may come in either order, the values
            # they point at may not; other integers are equal or not
            same = a.shape == b.shape and (
                _same_picks(case, args, kwargs, a, b) if sorts else
                bool((a.to(b.device) == b).all().item()))
            diff = {"max_abs": 0.0 if same else math.inf,
                    "max_rel": 0.0 if same else math.inf, "nonfinite": 0}
        else:
            diff = kernels.oracle_agreement(a, b)
        rec["outputs"] += 1
        rec["diffs"].append(diff)
    return rec


def build_huge(case, device):
    """Arguments of a 2^31-element case: tensors marked "gen": "philox" come
    from kernels/' counter-based generator on the device (generating 2^31
    values on the host would take 17 GB and a minute); the rest as usual.
    (The daemon generates such cases for GPUs only; the runner also takes a
    small one on the CPU, which is how the tests exercise this path.)"""
    if not any(isinstance(a, dict) and a.get("gen") == "philox"
               for a in case.get("args", [])):
        return inputs.build_args(case, device)  # "arange": index arithmetic
    if not kernels.available(device):
        raise HarnessError("a 2^31-element case needs kernels/ "
                           "(libopscreen_kernels.so, OPSCREEN_KERNELS)")
    seed = case.get("seed", 0)
    args = []
    for i, a in enumerate(case.get("args", [])):
        if isinstance(a, dict) and a.get("gen") == "philox":
            args.append(kernels.generate(a, seed, i, device))
        else:
            args.append(inputs.build_arg(a, seed, i, device))
    return args, {}


def _spec_tensors(a):
    """The tensor (and out=) specs of one ARG, a list's elements too."""
    if isinstance(a, dict) and a.get("t") in ("tensor", "out"):
        yield a
    elif isinstance(a, dict) and a.get("t") == "tensors":
        for x in a.get("v") or []:
            yield from _spec_tensors(x)


def _meta_arg(a):
    if isinstance(a, dict) and a.get("t") in ("tensor", "out"):
        return torch.empty(a["shape"], dtype=inputs.to_dtype(a["dtype"]), device="meta")
    if isinstance(a, dict) and a.get("t") == "tensors":
        return [_meta_arg(x) for x in a.get("v") or []]
    if isinstance(a, dict) and a.get("t") == "device":
        return torch.device("meta")
    return inputs.build_arg(a, 0, 0, "cpu")


def _spec_bytes(a):
    """Bytes of the storages one ARG's tensors take."""
    total = 0
    for t in _spec_tensors(a):
        shape = t.get("base") if t.get("layout") == "expanded" else t.get("shape")
        n = 1
        for d in shape or []:
            n *= d
        if t.get("layout") == "sliced":
            n *= 2
        total += n * torch.empty((), dtype=inputs.to_dtype(t["dtype"])).element_size()
    return total


def memory_need(case, op):
    """Bytes a 2^31-element case holds at once: its inputs' storages, and
    native's and the candidate's outputs: for an in-place or out= op the
    copies of the written input their calls write (and return), else the
    outputs' sizes as the op gives them on the meta device (without a meta
    kernel: the largest input's); and 64 MiB for the comparison."""
    args, kw = case.get("args", []), case.get("kwargs", {})
    sizes = [_spec_bytes(a) for a in list(args) + [kw[k] for k in sorted(kw)]]
    mutates = inputs.mutated(case)
    if mutates is not None:
        written = kw.get("out") if mutates == "out" else (args[0] if args else None)
        out_bytes = _spec_bytes(written)
    else:
        try:
            out = op(*[_meta_arg(a) for a in args], **{k: _meta_arg(v) for k, v in kw.items()})
            out_bytes = sum(t.numel() * t.element_size() for t in figures.flatten(out))
        except Exception:
            out_bytes = max(sizes, default=0)
    return sum(sizes) + 2 * out_bytes + (64 << 20)


def memory_free(device):
    """Bytes the device can still give this process (None: unknown): CUDA's
    free memory and what torch's caching allocator holds unused; on the CPU
    MemAvailable."""
    if device == "cuda":
        free, _ = torch.cuda.mem_get_info()
        return free + torch.cuda.memory_reserved() - torch.cuda.memory_allocated()
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return None


def memory_gate(case, op, device):
    """None when the device can hold the 2^31-element case, else why not
    ("needs 6.2 GiB, 3.1 GiB free"): checked before any input is made."""
    need, free = memory_need(case, op), memory_free(device)
    if free is None or need <= free:
        return None
    return f"needs {need / 2 ** 30:.1f} GiB, {free / 2 ** 30:.1f} GiB free"


def sample_positions(case, n, device):
    """Every `every`-th position and the last `tail` (past 2^31 for a huge
    case): where an int32 index would have wrapped."""
    smp = case.get("sample") or {}
    every, tail = int(smp.get("every", 65521)), int(smp.get("tail", 4096))
    idx = torch.cat([torch.arange(0, n, every, device=device),
                     torch.arange(max(n - tail, 0), n, device=device)])
    return torch.unique(idx)


def _sampled(args, idx, n):
    return [a.reshape(-1)[idx] if isinstance(a, torch.Tensor) and a.numel() == n
            else a for a in args]


def output_digest(out):
    """The 64-bit digest of a case's output, 16 hex digits (CASE "digest":
    the consensus phase of several devices compares them): each output
    tensor's digest of its logical contents (osk_digest, computed where the
    tensor lives) or, for a tensor the kernels do not take, SHA-256 of its
    bytes, folded with its dtype and shape by FNV-1a."""
    h = 0xcbf29ce484222325

    def mix(data):
        nonlocal h
        for b in data:
            h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    for t in figures.flatten(out):
        mix(f"{t.dtype}{tuple(t.shape)}".encode())
        d = None
        if t.numel() and t.dtype in kernels.CODE and t.dim() <= kernels.MAXDIM:
            try:
                d = kernels.digest(t)
            except kernels.KernelError:
                d = None
        if d is None:
            x = t.detach().cpu().reshape(-1).clone()
            if x.is_complex():
                x = torch.view_as_real(x).reshape(-1).clone()
            raw = x.view(torch.uint8).numpy().tobytes() if x.numel() else b""
            d = int.from_bytes(hashlib.sha256(raw).digest()[:8], "little")
        mix(d.to_bytes(8, "little"))
    return f"{h:016x}"


def run_case(case, adapter, device, notify=None, built=None):
    """The RESULT fields of one case (without type and id). notify(phase),
    when given, is called just before ("first_call") and just after
    ("first_done") the candidate's first call: the daemon's
    runner.first_call_budget times that call alone. built(op, args,
    kwargs), when given, is called once the inputs are built, before any
    call (the runner sends STARTED with the pre-call repro from it)."""
    _check(case, adapter)
    if case.get("class") == "bootstrap" or case.get("compare") == "bootstrap":
        return bootstrap_case(case, adapter)
    huge = bool(case.get("huge"))
    # data movement past 2^31: native's output is the oracle (figures.moved)
    moved = huge and case.get("oracle") == "native"
    t_case = time.perf_counter()
    try:
        op = inputs.resolve_op(case["key"])
        why = memory_gate(case, op, device) if huge else None
        if why is not None:
            return {"status": "skipped", "skip_reason": why, "fatal": False,
                    "outputs": [], "times": {"case_ms": (time.perf_counter() - t_case) * 1e3}}
        args, kwargs = build_huge(case, device) if huge else \
            inputs.build_args(case, device)
    except (ValueError, TypeError, KeyError, kernels.KernelError) as e:
        raise HarnessError(_describe(e)) from e
    mutates = inputs.mutated(case)
    stat = case.get("compare") == "stat"
    seed = int(case.get("seed", 0)) if stat else None
    compile_step = case.get("class") == "compile"
    mode = modes.mode_of(case)
    if mode == "graph" and device != "cuda":
        return {"status": "skipped", "skip_reason": "a CUDA graph needs a CUDA "
                "device", "skip_kind": "device", "fatal": False, "outputs": [],
                "times": {"case_ms": (time.perf_counter() - t_case) * 1e3}}
    calls, max_ms, speed_calls = steady_gate(case)
    if mode is not None:
        speed_calls = 0  # a mode's calls are not the eager speed
    res = {"status": "ok", "fatal": False, "outputs": []}
    if os.environ.get("OPSCREEN_INPUT_DIGEST") == "1":
        res["inputs_sha256"] = inputs.digest(args, kwargs)
    times = {"build_ms": (time.perf_counter() - t_case) * 1e3}
    if built is not None:
        built(op, args, kwargs)

    native, nerr, times["native_ms"], n_mut = _call(op, args, kwargs, mutates, device,
                                                    seed)
    if stat or moved:  # samples are judged by a test; moved bytes by native's
        oracle, oerr = None, None
    elif huge:  # elementwise: the oracle of a sample is the sample of the oracle
        n = args[0].numel()
        idx = sample_positions(case, n, device)
        sargs = _sampled(args, idx, n)
        oracle, oerr, times["oracle_ms"], _ = _call(
            op, inputs.upcast(sargs), inputs.upcast(kwargs), mutates, device)
    else:
        oracle, oerr, times["oracle_ms"], _ = _call(
            op, inputs.upcast(args), inputs.upcast(kwargs), mutates, device)

    # steady-state speed of native, then (below) of the candidate, on the
    # same inputs in this process: RESULT's "speed" (lists' faster=)
    speed = None
    if nerr is None and not compile_step and not huge and calls > 0 and \
            speed_calls > 0:
        try:
            nat_ms, n_nat = _speed(op, args, kwargs, mutates, device,
                                   times["native_ms"], max_ms, speed_calls)
        except Exception:
            nat_ms = None
        if nat_ms is not None:
            speed = {"native_ms": nat_ms, "calls": n_nat,
                     "clock": "cuda_events" if device == "cuda" else "host"}
    cand, cerr, c_mut, fatal = None, None, None, False
    second = None  # a trace case's second shape, when it compiled again
    again = None  # the last steady call's output: the same inputs, called again
    guard = None  # (poison side, facts, output) from _guard_check
    t_en = time.perf_counter()
    # what the candidate's calls call: the aten operator with the library's
    # override enabled, its own function for an entry point; in a mode, that
    # compiled (trace) or captured and replayed (graph)
    cand_fn = cop = adapter.callable(case["key"], op)
    mode_facts = {}
    if mode is not None:
        cop = modes.wrap(mode, cand_fn, mutates, mode_facts, modes.backend_of(case))
    try:
        ctx = adapter.candidate(case["name"], case["key"])
        ctx.__enter__()
        times["enable_ms"] = (time.perf_counter() - t_en) * 1e3
    except Exception as e:
        cerr = "enable: " + _describe(e)
    else:
        try:
            # "cold": the daemon re-measures a first call that ran past
            # runner.first_call_budget, as a compile step is measured
            if notify is not None:
                notify("first_call")
            snap = jitstats.snapshot()
            with _ColdCache(compile_step or case.get("cold") is True), \
                    autotune.one_config(case.get("class") == "empty"):
                cand, cerr, times["cand_first_ms"], c_mut = _call(
                    cop, args, kwargs, mutates, device, seed)
            cost = jitstats.delta(snap)
            if cost:
                res["first_call_cost"] = cost
            if notify is not None:
                notify("first_done")
            # steady-state calls (timing, the repeat rule, the guard) only
            # where they are cheap: with a first call of the case's max_ms
            # or more, the next call says whether the op itself is slow (the
            # first may have been compiling); both that slow, the op is
            # timed by them alone (the case must end inside its deadline).
            # (Deciding on the first call alone left the compile-bound cases
            # of a cold screen, 6% of them on the H200, without the repeat
            # rule and the guard that a warm screen applies to them.)
            if cerr is None and not compile_step and not huge and calls > 0:
                t_st = time.perf_counter()
                steady = []
                for i in range(calls):
                    out, _, ms, _ = _call(cop, args, kwargs, mutates, device)
                    steady.append(ms)
                    if i == 0 and times["cand_first_ms"] >= max_ms and \
                            (ms is None or ms >= max_ms):
                        break  # the op itself is slow: no more calls
                    again = out if ms is not None else again
                times["steady_total_ms"] = (time.perf_counter() - t_st) * 1e3
                if None not in steady:
                    times["cand_steady_ms"] = statistics.median(steady)
                if speed is not None and times.get("cand_steady_ms") is not None:
                    t_sp = time.perf_counter()
                    try:
                        c_ms, n_c = _speed(cop, args, kwargs, mutates, device,
                                           times["cand_steady_ms"], max_ms,
                                           speed_calls)
                    except Exception:
                        c_ms = None  # its calls above decide; no figure here
                    if c_ms is not None:
                        speed.update(cand_ms=c_ms, calls=min(speed["calls"], n_c))
                        res["speed"] = speed
                    times["speed_ms"] = (time.perf_counter() - t_sp) * 1e3
            if mode == "trace" and cerr is None:
                t_tr = time.perf_counter()
                try:
                    second = modes.trace_facts(case, cand_fn, args, kwargs,
                                               mutates, device, cand, mode_facts)
                except Exception as e:  # the judged calls stand; this is told
                    mode_facts["facts_error"] = _describe(e)
                times["trace_ms"] = (time.perf_counter() - t_tr) * 1e3
        finally:
            t_dis = time.perf_counter()
            try:
                ctx.__exit__(None, None, None)
                times["enable_ms"] += (time.perf_counter() - t_dis) * 1e3
            except Exception as e:
                # The override may still be registered: later cases would lie.
                cerr, fatal = cerr or "disable: " + _describe(e), True
        # a kernel that gave the same bits every time: does it read or write
        # past its inputs? (stat cases never get here)
        if second is not None and not fatal:
            try:
                modes.native_dynamic(op, args, kwargs, second, mutates, mode_facts,
                                     modes.backend_of(case))
            except Exception as e:
                mode_facts["facts_error"] = _describe(e)
        if mode is not None and cerr is not None and not fatal:
            # the library's failure in the mode, or the mode's own: native
            # in the same mode decides (it failing too: not applicable)
            nerr = modes.native_fails(mode, op, args, kwargs, mutates, device,
                                      modes.backend_of(case))
            if nerr is None:
                cerr = f"{mode}: {cerr}"
        if mode is not None and mode_facts:
            res[mode] = mode_facts
        if not fatal and mode is None and again is not None and not stat and \
                case.get("compare", "float") != "shape_only" and \
                figures.same_bits(cand, again):
            t_g = time.perf_counter()
            try:
                guard = _guard_check(cop, args, kwargs, mutates, device, cand,
                                     lambda: adapter.candidate(case["name"],
                                                               case["key"]))
            except _DisableFailed as e:
                cerr, fatal = "disable: " + str(e), True
            times["guard_ms"] = (time.perf_counter() - t_g) * 1e3

    res["fatal"] = fatal or bool((cerr or nerr or oerr) and not device_ok(device))
    if cerr:
        res["cand_error"] = cerr
    if nerr:
        res["native_error"] = nerr
    res["status"] = {(False, False): "ok", (True, False): "cand_error",
                     (False, True): "native_error", (True, True): "both_error"}[
                         (cerr is not None, nerr is not None)]
    if oerr:  # judged only with status ok; the repro reads it with any status
        res["oracle_error"] = oerr
    if res["status"] == "ok" and not res["fatal"]:
        t0 = time.perf_counter()
        if huge and not moved:  # the positions the oracle was computed on
            args = sargs
            cand = cand.reshape(-1)[idx] if isinstance(cand, torch.Tensor) else cand
            native = native.reshape(-1)[idx] if isinstance(native, torch.Tensor) \
                else native
            res["sampled"] = int(idx.numel())
        if not stat and not moved and not oerr:
            t1 = time.perf_counter()
            chk = oracle_check(case, args, kwargs, oracle, device)
            if chk is not None:
                res["oracle_check"] = chk
                times["oracle_check_ms"] = (time.perf_counter() - t1) * 1e3
        if stat:
            res["outputs"] = stats.compare(case, op, args, kwargs, cand, native)
        elif moved:
            res["outputs"] = figures.moved(cand, native)
        else:
            fused = fused_figures if kernels.available(device) else None
            ref = None if oerr else oracle
            res["outputs"] = figures.compare(
                case, op, args, kwargs, cand, native, ref, fused)
            if again is not None and case.get("compare", "float") != "shape_only" \
                    and not figures.same_bits(cand, again):
                # The same inputs gave other bits on a later call: that call's
                # output is judged too (a kernel whose result depends on the
                # call, not only on its inputs, is wrong on some of them).
                res["repeat"] = {"call": 1 + calls, "outputs": figures.compare(
                    case, op, args, kwargs, again, native, ref, fused)}
            if guard is not None:
                side, facts, gout = guard
                res["guard"] = dict(facts, poison=side,
                                    outputs=figures.compare(case, op, args, kwargs,
                                                            gout, native, ref, fused)
                                    if facts["changed"] and facts["reproduced"]
                                    else [])
        times["compare_ms"] = (time.perf_counter() - t0) * 1e3
        if case.get("digest") is True and cand is not None:
            try:
                res["digest"] = output_digest(cand)
            except Exception as e:  # never the verdict's business
                res["digest_error"] = _describe(e)
        if mutates and mode is None:  # a mode's outputs are its own copies
            res["alias_c"] = _aliases(cand, c_mut)
            res["alias_n"] = _aliases(native, n_mut)
            w = inputs.written(args, kwargs, mutates)
            if inputs.is_view(w):
                res["outside_view_changed"] = figures.outside_view_changed(
                    w._base, c_mut, n_mut)
    times["case_ms"] = (time.perf_counter() - t_case) * 1e3
    res["times"] = {k: v for k, v in times.items() if v is not None}
    return res
