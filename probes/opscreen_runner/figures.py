"""Comparison figures for one case's outputs (docs/protocol.md, RESULT / OUT).

Figures only: the pass rule is applied by the daemon. Like inputs.py this module
imports only torch so that repro.py can paste it into a repro script.
"""

import torch

F64 = torch.float64

# significand precision p and smallest subnormal of each floating dtype
PRECISION = {torch.float64: (53, 2.0 ** -1074), torch.float32: (24, 2.0 ** -149),
             torch.float16: (11, 2.0 ** -24), torch.bfloat16: (8, 2.0 ** -133)}
for _name, _p in (("float8_e4m3fn", (4, 2.0 ** -9)), ("float8_e5m2", (3, 2.0 ** -16))):
    if hasattr(torch, _name):
        PRECISION[getattr(torch, _name)] = _p


def _meta(t):
    if t is None:
        return None
    try:
        strides = list(t.stride())
    except RuntimeError:
        strides = []
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""),
            "strides": strides}


def flatten(out):
    """Output tensors in order; tuples and lists flattened, scalars made 0-d."""
    if out is None:
        return []
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in flatten(o)]
    if isinstance(out, (bool, int, float)):
        return [torch.tensor(out)]
    return []


def same_bits(a, b):
    """True when two outputs hold the same tensors bit for bit (NaN payloads
    and signed zeros included; shapes, dtypes and values, not strides)."""
    flags = same_bits_flags(a, b)
    return flags is not None and all_true(flags)


def same_bits_flags(a, b):
    """same_bits as 0-d bool tensors still on the device, one per non-empty
    output (None when shapes or dtypes already differ): a caller that has
    other flags to read reads them all with one synchronisation."""
    A, B = flatten(a), flatten(b)
    if len(A) != len(B):
        return None
    flags = []
    for x, y in zip(A, B):
        if x.shape != y.shape or x.dtype != y.dtype:
            return None
        if x.numel():
            flags.append((_bytes(x) == _bytes(y)).all())
    return flags


def read_flags(flags):
    """The 0-d bool tensors in flags as Python bools, in one device read."""
    if not flags:
        return []
    return torch.stack([f.to(flags[0].device) for f in flags]).tolist()


def all_true(flags):
    """Whether every 0-d bool tensor in flags holds True (one device read)."""
    return all(read_flags(flags))


def _bytes(t):
    t = t.detach().contiguous()
    if t.is_complex():
        t = torch.view_as_real(t).contiguous()
    return t.reshape(-1).view(torch.uint8)


def _changed_outside(before, view):
    """(elements changed, first storage offset or None) of view's base
    against before (the base as built), outside view's own elements; bytes
    are compared, so NaN sentinels and signed zeros compare too."""
    base = view._base
    n = before.numel()
    if base.numel() != n or base.dtype != before.dtype:
        return n, 0  # the base itself was replaced (resized)
    if not n:
        return 0, None
    esize = before.element_size()
    new = base.detach().reshape(-1).view(torch.uint8).reshape(n, esize)
    old = before.detach().reshape(-1).view(torch.uint8).reshape(n, esize)
    differs = (new != old.to(new.device)).any(dim=1)
    inside = torch.zeros(n, dtype=torch.bool, device=differs.device)
    pos = torch.arange(n, device=differs.device).as_strided(
        view.size(), view.stride(), view.storage_offset() - base.storage_offset())
    inside[pos.reshape(-1)] = True
    out = differs & ~inside
    v = torch.stack([out.sum(), torch.argmax(out.to(torch.uint8))]).tolist()
    return v[0], (v[1] if v[0] else None)


def outside_view_changed(before, cand, native):
    """RESULT's outside_view_changed (docs/protocol.md, Views): elements of
    the written view's base outside the view that the candidate's call
    (cand: the view it wrote, of a private copy of the base) and native's
    changed, against before, the base as built; None for a call that did
    not run."""
    rec = {"outside": before.numel() - (cand if cand is not None else native).numel()}
    for tag, x in (("c", cand), ("n", native)):
        if x is None:
            continue
        rec[tag], first = _changed_outside(before, x)
        if first is not None:
            rec["first_" + tag] = first
    return rec


def _unravel(flat, shape):
    idx = []
    for s in reversed(shape):
        idx.append(flat % s)
        flat //= s
    return idx[::-1]


def _nonfinite_class(x):
    """0 finite, 1 NaN, 2 +inf, 3 -inf (kernels/' osk_nonfinite_differs)."""
    return (torch.isnan(x).to(torch.int8) + 2 * torch.isposinf(x).to(torch.int8)
            + 3 * torch.isneginf(x).to(torch.int8))


def _nonfinite_differs(c, n, o, dtype):
    """(positions where C's NaN/inf pattern differs from round_D(O),
    positions where C is exactly native's value: both NaN, the same signed
    inf, the same finite value)."""
    C, N = c.to(F64), n.to(F64)
    differs = _nonfinite_class(C) != _nonfinite_class(o.to(F64).to(dtype).to(F64))
    same = (C == N) | (torch.isnan(C) & torch.isnan(N))
    return differs, same


def nonfinite_as_native(c, n, o, dtype):
    """Positions where C's NaN/inf pattern differs from round_D(O) and C is
    exactly native's value there: what PyTorch itself gives in D (an
    overflow the exact result does not have, a default that depends on D),
    not a fault of the library. Computed only for outputs with a mismatch."""
    differs, same = _nonfinite_differs(c, n, o, dtype)
    return int((differs & same).sum().item())


def _float_inputs(args, kwargs):
    """The floating (and complex) tensors and Python floats among the
    arguments, lists included, as tensors; an out= buffer is written, not
    read, and is left out."""
    out = []
    for a in list(args) + [v for k, v in kwargs.items() if k != "out"]:
        for x in (a if isinstance(a, (list, tuple)) else [a]):
            if isinstance(x, torch.Tensor) and (x.is_floating_point() or
                                                x.is_complex()):
                out.append(x)
            elif isinstance(x, float):
                out.append(torch.tensor(x, dtype=F64))
    return out


def nonfinite_at_input(c, n, o, dtype, args, kwargs):
    """Of the positions nonfinite_as_native leaves (NaN/inf differ from
    round_D(O) and C is not native's value), those where an input that
    broadcasts to the output's shape (a Python float: to every position) is
    NaN/inf: the daemon judges a mismatch that lies only there as NaN/inf
    handling (numerics), one where the inputs are finite as silently wrong.
    None when no floating input broadcasts to the output (a reduction, a
    matmul): no position of the output maps to one of an input."""
    shape = tuple(o.shape)
    mask = None
    for t in _float_inputs(args, kwargs):
        try:
            if tuple(torch.broadcast_shapes(t.shape, shape)) != shape:
                continue
        except RuntimeError:
            continue
        bad = (~torch.isfinite(t)).to(o.device).expand(shape)
        mask = bad if mask is None else mask | bad
    if mask is None:
        return None
    differs, same = _nonfinite_differs(c, n, o, dtype)
    return int((differs & ~same & mask.to(differs.device)).sum().item())


def float_figures(c, n, o, dtype):
    """err_abs/err_ulp of candidate and native against the fp64 oracle. The
    figures are reduced on the tensors' device and read back in one transfer
    (on a GPU every read of a device value waits for the device)."""
    p, tiny = PRECISION[dtype]
    O = o.to(F64)
    X = {"c": c.to(F64), "n": n.to(F64)}
    rec = {"R": 0.0, "oracle_max": 0.0}
    if not O.numel():
        for tag in X:
            rec.update({"err_abs_" + tag: 0.0, "err_ulp_" + tag: 0.0,
                        "nonfinite_mismatch_" + tag: 0})
        return rec
    finite = torch.isfinite(O)
    absO = torch.where(finite, O.abs(), 0.0)
    omax = absO.max()
    rounded = O.to(dtype).to(F64)
    r = torch.where(finite & torch.isfinite(rounded), (rounded - O).abs(), 0.0)
    # ULP at max(|O_i|, 2^-10 max|O|): frexp gives |x| = m 2^e, m in [0.5, 1),
    # so floor(log2 |x|) = e - 1 and ulp = 2^(e - p).
    mag = torch.clamp(absO, min=2.0 ** -10 * omax)
    _, e = torch.frexp(mag)
    ulp = torch.ldexp(torch.ones_like(mag), e - p)
    ulp = torch.where(mag > 0, ulp.clamp(min=tiny), tiny)
    # against round_D(O): a result that overflows D is inf in D
    kind = _nonfinite_class(rounded)
    figs, d = [omax, r.max()], {}
    for tag, x in X.items():
        d[tag] = torch.where(finite & torch.isfinite(x), (x - O).abs(), 0.0)
        bad = _nonfinite_class(x) != kind
        figs += [d[tag].max(), (d[tag] / ulp).max(), bad.sum().to(F64)]
    at = torch.argmax(d["c"].reshape(-1))
    # .to: a 0-d candidate on the host beside the oracle on the device
    figs += [at.to(F64), X["c"].to(O.device).take(at), O.take(at)]
    v = torch.stack(figs).tolist()
    rec["R"], rec["oracle_max"] = v[1], v[0]
    for i, tag in enumerate(X):
        rec["err_abs_" + tag], rec["err_ulp_" + tag] = v[2 + 3 * i], v[3 + 3 * i]
        rec["nonfinite_mismatch_" + tag] = int(v[4 + 3 * i])
        if tag == "c":
            rec["worst_c"] = {"index": _unravel(int(v[8]), list(O.shape)),
                              "cand": v[9], "oracle": v[10]}
    return rec


_BYTEWISE = {getattr(torch, n) for n in ("float8_e4m3fn", "float8_e5m2",
                                          "float8_e8m0fnu") if hasattr(torch, n)}


def _bad(x, ref):
    if x.dtype in _BYTEWISE and ref.dtype == x.dtype:
        # no == for 8-bit floats: moved values must be the same bytes
        return x.contiguous().view(torch.uint8) != ref.contiguous().view(torch.uint8)
    eq = x == ref
    if x.is_floating_point() or x.is_complex():
        eq = eq | (torch.isnan(x) & torch.isnan(ref))
    return ~eq


def _counts(bad_c, bad_n, rec):
    """mismatch_c/n and the candidate's first bad position, read back in one
    transfer."""
    figs = [bad_c.sum(), bad_n.sum()]
    if bad_c.numel():  # argmax: the first of the maximal values
        figs.append(torch.argmax(bad_c.reshape(-1).to(torch.uint8)))
    v = torch.stack(figs).tolist()
    rec["mismatch_c"] = v[0]
    if v[0]:
        rec["first_bad_c"] = _unravel(v[2], list(bad_c.shape))
    rec["mismatch_n"] = v[1]
    return rec


_INT_OF_SIZE = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
MOVED_CHUNK = 1 << 26


def _as_ints(t):
    """t's elements as integers of their size, flat (bytes compared as such)."""
    t = t.detach().contiguous()
    if t.is_complex():
        t = torch.view_as_real(t).contiguous()
    t = t.reshape(-1)
    return t.view(torch.uint8) if t.dtype == torch.bool else t.view(_INT_OF_SIZE[t.element_size()])


def moved(cand, native):
    """OUT records of a 2^31-element data-movement case ("oracle": "native"):
    the op computes nothing, so native's bytes are the exact answer; the
    candidate's are compared with them on the device a chunk at a time
    (no 2^31-element temporary), counted (mismatch_c; mismatch_n is 0) with
    the first position that differs, read back in one transfer."""
    C, N = flatten(cand), flatten(native)
    outs = []
    for i in range(max(len(C), len(N))):
        c = C[i] if i < len(C) else None
        n = N[i] if i < len(N) else None
        ref = n if n is not None else c
        rec = {"index": i, "cand": _meta(c), "native": _meta(n), "kind": "exact",
               "numel": ref.numel()}
        outs.append(rec)
        if c is None or n is None or c.shape != n.shape or c.dtype != n.dtype:
            continue
        a, b = _as_ints(c), _as_ints(n.to(c.device))
        counts, firsts = [], []
        for s in range(0, a.numel(), MOVED_CHUNK):
            bad = a[s:s + MOVED_CHUNK] != b[s:s + MOVED_CHUNK]
            counts.append(bad.sum())
            firsts.append(s + torch.argmax(bad.to(torch.uint8)))
        v = torch.stack(counts + firsts).tolist() if counts else []
        k = len(counts)
        rec["mismatch_c"], rec["mismatch_n"] = sum(v[:k]), 0
        bad_chunks = [j for j in range(k) if v[j]]
        if bad_chunks:
            rec["first_bad_c"] = _unravel(v[k + bad_chunks[0]], list(c.shape))
    return outs


def exact_figures(c, n, ref):
    return _counts(_bad(c, ref), _bad(n, ref), {})


def index_figures(c, n, inp, dim, values):
    """Tie-aware: an index is right when it points at the expected value."""
    size = inp.shape[dim] if inp.dim() else 1
    bad = []
    for x in (c, n):
        idx = x.to(torch.int64)
        valid = (idx >= 0) & (idx < size)
        got = inp.gather(dim, torch.where(valid, idx, torch.zeros_like(idx)))
        bad.append(_bad(got, values.to(inp.dtype)) | ~valid)
    return _counts(bad[0], bad[1], {})


def bound_arg(op, args, kwargs, name):
    """The value of argument `name` as the dispatcher binds it (schema defaults)."""
    for i, a in enumerate(op._schema.arguments):
        if a.name == name:
            if name in kwargs:
                return kwargs[name]
            if i < len(args) and not a.kwarg_only:
                return args[i]
            return a.default_value
    return None


def _kind(mode, i, count, native):
    if mode == "shape_only":
        return "shape_only"
    if mode in ("sort", "topk"):
        if count == 1 and not native.is_floating_point():
            return "sort_indices"  # argsort
        return "sort_values" if i == 0 else "sort_indices"
    if mode == "routing":  # weights, the experts picked, then exact outputs
        return "float" if i == 0 else "sort_indices" if i == 1 else "exact"
    if mode == "float" and native.dtype in PRECISION:
        return "float"
    return "exact"


def grouped_routing(op, args, kwargs, C, N):
    """OUT records of a grouped routing (fused::grouped_topk: weights, then
    expert ids), judged in fp64 from the inputs (the oracle's computation,
    references.grouped_routing_ok): each side's ids where its token's
    routing is wrong (ties within 4 of the input dtype's epsilon, relative
    to the token's largest score, broken any way), each side's weights
    against the fp64 weights of the experts it picked."""
    from . import references
    arg = lambda name: bound_arg(op, args, kwargs, name)  # noqa: E731
    scores, bias, ng = arg("scores"), arg("bias"), arg("n_group")
    sf = arg("scoring_func") or 0
    outs = []
    for i, kind in enumerate(("routed_weights", "routed_ids")):
        c, n = (C[i] if i < len(C) else None), (N[i] if i < len(N) else None)
        ref = n if n is not None else c
        outs.append({"index": i, "cand": _meta(c), "native": _meta(n), "kind": kind,
                     "numel": ref.numel() if ref is not None else 0})
    if len(C) != 2 or len(N) != 2 or any(
            c.shape != n.shape or c.dtype != n.dtype for c, n in zip(C, N)) or \
            C[1].dim() != 2 or len(C[1]) != len(scores):
        return outs  # the daemon judges the shapes and dtypes
    tol = references.grouped_tolerance(scores.dtype)
    bad = [~references.grouped_routing_ok(scores, ng, arg("topk_group"), bias, sf,
                                          x[1].to(scores.device), tol)[:, None].expand(
        x[1].shape) for x in (C, N)]
    outs[1].update(_counts(bad[0], bad[1], {}))
    s64 = references._grouped_scores(scores.double(), bias.double(), ng, sf)[0]
    o = [references._grouped_weights(s64, x[1].to(s64.device).long().clamp(
        0, s64.shape[1] - 1), arg("renormalize"), arg("routed_scaling_factor"))
        for x in (C, N)]
    rc, rn = (float_figures(x[0], x[0], ox, N[0].dtype) for x, ox in zip((C, N), o))
    outs[0].update(rc)
    for f in ("err_abs_", "err_ulp_", "nonfinite_mismatch_"):
        outs[0][f + "n"] = rn[f + "c"]
    return outs


def compare(case, op, args, kwargs, cand, native, oracle, fused=None):
    """One OUT record per output tensor; oracle may be None (oracle failed).
    fused(c, n, o) -> the float_figures record or None: the runner passes
    kernels/' one-pass comparison for large outputs (same figures)."""
    C, N = flatten(cand), flatten(native)
    O = flatten(oracle) if oracle is not None else []
    mode = case.get("compare", "float")
    if mode == "grouped_routing":
        return grouped_routing(op, args, kwargs, C, N)
    outs = []
    for i in range(max(len(C), len(N))):
        c = C[i] if i < len(C) else None
        n = N[i] if i < len(N) else None
        o = O[i] if i < len(O) else None
        ref = n if n is not None else c
        kind = _kind(mode, i, len(N), ref)
        rec = {"index": i, "cand": _meta(c), "native": _meta(n), "kind": kind,
               "numel": ref.numel()}
        outs.append(rec)
        if kind == "shape_only" or c is None or n is None or o is None:
            continue
        if c.shape != o.shape or n.shape != o.shape:
            continue
        if kind == "float":
            rec.update((fused and fused(c, n, o)) or float_figures(c, n, o, n.dtype))
            if rec.get("nonfinite_mismatch_c"):
                rec["nonfinite_as_native_c"] = nonfinite_as_native(c, n, o, n.dtype)
                if rec["nonfinite_mismatch_c"] > rec["nonfinite_as_native_c"]:
                    at = nonfinite_at_input(c, n, o, n.dtype, args, kwargs)
                    if at is not None:
                        rec["nonfinite_at_input_c"] = at
        elif kind == "sort_indices":
            inp = args[0]
            dim = bound_arg(op, args, kwargs, "dim")
            dim = -1 if dim is None else dim
            # the values the oracle's indices pick (a sort's values output,
            # a routing's weights: not what the indices are judged by)
            values = inp.gather(dim, o.to(torch.int64))
            rec.update(index_figures(c, n, inp, dim, values))
        else:
            rec.update(exact_figures(c, n, o.to(n.dtype)))
    return outs
