"""The deployment modes' classes: trace (torch.compile) and graph (CUDA graphs).

A case of class "trace" or "graph" (probes/modes.c) is an ordinary case of
the key, run the way an engine runs the op in that mode; the runner judges
its outputs by the same rule against the same fp64 oracle, and reports the
mode's own facts under RESULT "trace" / "graph" (docs/protocol.md):

- trace: the candidate's call (the aten operator with the library enabled
  through the dispatcher, or the library's entry point) inside a function
  compiled by torch.compile(fullgraph=True) with the case's "backend"
  (runner.compile_backend; absent: Inductor), so that a graph break
  raises; "compiles" counts the frames compiled for the judged calls
  (the same inputs: 1). With the case's "dynamic" arguments (another case of
  the same signature and other sizes), one dynamic=True compile is called on
  both: "dynamic_compiles" (1 is the documented count), and where it is more,
  "native_dynamic_compiles" of the native operator compiled the same way
  (the daemon counts only what the library adds). "same_as_eager": the
  compiled output has the bits of the eager candidate's.
- graph: the candidate captured in a CUDA graph (after a warm-up on a side
  stream, as torch's documentation does) on buffers holding a permutation of
  the case's inputs, then the case's inputs copied into the captured buffers
  and the graph replayed: the judged output is the replay's. A capture that
  fails is named by what the library did in it: "synchronises during
  capture", "allocates during capture", "compiles or autotunes during
  capture" (a Triton compile or benchmark inside the capture), else
  "capture failed".
"""

import torch

from . import jitstats


class ModeError(Exception):
    pass


def mode_of(case):
    """"trace", "graph" or None (an eager case)."""
    cls = case.get("class")
    return cls if cls in ("trace", "graph") else None


def _plain(fn):
    def call(*args, **kwargs):
        return fn(*args, **kwargs)
    return call


def backend_of(case):
    """The torch.compile backend of a trace case: its "backend" (the daemon
    writes runner.compile_backend there when it is not Inductor)."""
    b = case.get("backend")
    return b if isinstance(b, str) and b else "inductor"


def compiled(fn, dynamic, backend="inductor"):
    """(fn compiled with `backend` and fullgraph=True, its frame counter),
    Dynamo's caches emptied first (a case never reuses another's frames)."""
    import torch._dynamo
    from torch._dynamo.testing import CompileCounterWithBackend
    torch._dynamo.reset()
    cnt = CompileCounterWithBackend(backend)
    return torch.compile(_plain(fn), backend=cnt, fullgraph=True,
                         dynamic=dynamic), cnt


def wrap(mode, fn, mutates, facts, backend="inductor"):
    """The callable a mode case's calls go through (the candidate's, or
    native's in native_fails)."""
    if mode == "trace":
        return _trace_wrap(fn, facts, backend)
    return _graph_wrap(fn, mutates, facts)


def _trace_wrap(fn, facts, backend):
    comp, cnt = compiled(fn, dynamic=False, backend=backend)

    def call(*args, **kwargs):
        out = comp(*args, **kwargs)
        facts["compiles"] = cnt.frame_count
        return out
    return call


def _tensor_args(args, kwargs):
    return [a for a in list(args) + list(kwargs.values())
            if isinstance(a, torch.Tensor)]


def trace_facts(case, cand_fn, args, kwargs, mutates, device, cand, facts):
    """The trace case's facts beyond its judged calls, inside the
    candidate's context: whether the compiled output has the eager
    candidate's bits, and the compiles of one dynamic=True compile over the
    case's two shapes. Returns the second shape's (args, kwargs) when that
    compiled more than once or raised (native's count is then taken outside
    the library's context, native_dynamic), else None."""
    from . import figures, inputs
    a, k, _ = inputs.fresh(args, kwargs, mutates)
    try:
        eager = cand_fn(*a, **k)
        facts["same_as_eager"] = bool(figures.same_bits(cand, eager))
    except Exception as e:
        facts["eager_error"] = f"{type(e).__name__}: {e}"[:500]
    dyn = case.get("dynamic")
    if not isinstance(dyn, dict):
        return None
    other = dict(case, args=dyn.get("args", []), kwargs=dyn.get("kwargs", {}))
    a2, k2 = inputs.build_args(other, device)
    n = _dynamic_compiles(cand_fn, args, kwargs, a2, k2, mutates, backend_of(case))
    facts["dynamic_compiles"] = n
    # more than one compile, or a dynamic compile that raised: is it the
    # library's? (native's count decides)
    return (a2, k2) if not isinstance(n, int) or n > 1 else None


def native_dynamic(op, args, kwargs, second, mutates, facts, backend="inductor"):
    """Native's compiles over the same two shapes (library disabled)."""
    facts["native_dynamic_compiles"] = _dynamic_compiles(
        op, args, kwargs, second[0], second[1], mutates, backend)


def _dynamic_compiles(fn, args, kwargs, a2, k2, mutates, backend="inductor"):
    """The frames one dynamic=True compile of fn makes over two shapes.
    Without Inductor's FX graph cache and AOTAutograd's cache: an entry
    another compile left (in this process or an earlier one on the host)
    brings that compile's shape guards along, so the candidate's Python
    branch on a size made native's identical graph recompile too (seen on
    torch 2.11: a wrapper that copies into an output buffer functionalises
    to native's graph)."""
    import torch._functorch.config
    import torch._inductor.config
    from . import inputs
    comp, cnt = compiled(fn, dynamic=True, backend=backend)
    try:
        with torch._inductor.config.patch(fx_graph_cache=False), \
                torch._functorch.config.patch(enable_autograd_cache=False):
            for a, k in ((args, kwargs), (a2, k2)):
                a, k, _ = inputs.fresh(a, k, mutates)
                comp(*a, **k)
    except Exception as e:
        return f"{type(e).__name__}: {e}"[:500]
    return cnt.frame_count


def _permuted(t):
    """A buffer like t holding t's values in another order (the capture's
    inputs are not the judged ones)."""
    if t.numel() < 2:
        return t.clone()
    flat = t.reshape(-1)
    c = torch.empty_like(t)
    c.copy_(flat.roll(1).reshape(t.shape))
    return c


def _capture_hazard(e, compiled_in_capture):
    """What the library did in a capture that raised. A copy from pageable
    host memory says so in its error and is named by it, also where a
    compile ran in the same capture (FlagGems 5.0.2's isin on an H200,
    2026-12-05, was named "compiles or autotunes" by the compile alone)."""
    msg = str(e).lower()
    if "copy between cpu and cuda" in msg:
        return "synchronises during capture"  # a pageable host copy
    if compiled_in_capture:
        return "compiles or autotunes during capture"
    if "synchron" in msg or "not permitted when stream is capturing" in msg or \
            "captureunsupported" in msg or ".item()" in msg:
        return "synchronises during capture"
    if "malloc" in msg or "out of memory" in msg or "alloc" in msg:
        return "allocates during capture"
    return "capture failed"


def _clone_out(out):
    if isinstance(out, torch.Tensor):
        return out.clone()
    if isinstance(out, (list, tuple)):
        return type(out)(_clone_out(o) for o in out)
    return out


def _after_refused_capture():
    """A capture that raised never reached its end: torch leaves the CUDA
    generator it registered marked as capturing, and every later random
    call in the process raises ("Offset increment outside graph capture",
    torch 2.11 on the H200, 2026-12-03). An empty capture that completes
    runs the generator's epilogue. Should that fail too, execute.device_ok
    (which draws a random number) makes the case fatal and the runner is
    replaced."""
    try:
        torch.cuda.synchronize()
    except Exception:
        pass
    try:
        with torch.cuda.graph(torch.cuda.CUDAGraph()):
            pass
    except Exception:
        pass


def _graph_wrap(fn, mutates, facts):
    state = {}

    def capture(args, kwargs):
        sa = [_permuted(a) if isinstance(a, torch.Tensor) else a for a in args]
        sk = {n: _permuted(v) if isinstance(v, torch.Tensor) else v
              for n, v in kwargs.items()}
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            fn(*sa, **sk)  # warm-up: the library compiles and tunes here
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        snap = jitstats.snapshot()
        try:
            with torch.cuda.graph(g):
                out = fn(*sa, **sk)
        except Exception as e:
            facts["captured"] = False
            facts["hazard"] = _capture_hazard(e, bool(jitstats.delta(snap)))
            _after_refused_capture()
            raise ModeError(f"{facts['hazard']}: {type(e).__name__}: {e}") from e
        facts["captured"] = True
        if jitstats.delta(snap):
            facts["hazard"] = "compiles or autotunes during capture"
        state.update(g=g, sa=sa, sk=sk, out=out)

    def call(*args, **kwargs):
        if "g" not in state:
            capture(args, kwargs)
        sa, sk = state["sa"], state["sk"]
        for s, a in zip(sa, args):
            if isinstance(s, torch.Tensor):
                s.copy_(a)
        for n, v in kwargs.items():
            if isinstance(sk.get(n), torch.Tensor):
                sk[n].copy_(v)
        state["g"].replay()
        torch.cuda.synchronize()
        # an in-place or out= op: its written input holds what the replay wrote
        if mutates == "self" and args and isinstance(args[0], torch.Tensor):
            args[0].copy_(sa[0])
        elif mutates == "out" and isinstance(kwargs.get("out"), torch.Tensor):
            kwargs["out"].copy_(sk["out"])
        facts["replays"] = facts.get("replays", 0) + 1
        return _clone_out(state["out"])
    return call


def native_fails(mode, op, args, kwargs, mutates, device, backend="inductor"):
    """None when native runs in the mode, compiled by the candidate's backend
    (so a candidate's failure there is the library's), else native's error
    in it."""
    from . import inputs
    try:
        fn = wrap(mode, op, mutates, {}, backend)
        a, k, _ = inputs.fresh(args, kwargs, mutates)
        fn(*a, **k)
    except Exception as e:
        return f"{mode}: {type(e).__name__}: {e}"[:2000]
    return None
