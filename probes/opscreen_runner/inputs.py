"""Case arguments: ARG specs -> Python values on the device (docs/protocol.md, ARG).

This module imports only torch and the standard library: repro.py pastes its
source into every repro script, so a repro regenerates the very same bytes.
"""

import hashlib

import torch

DTYPES = {name: getattr(torch, name) for name in (
    "float64", "float32", "float16", "bfloat16", "int64", "int32", "int16",
    "int8", "uint8", "bool", "float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu",
    "complex64", "complex128",
) if hasattr(torch, name)}
MEMORY_FORMATS = ("contiguous_format", "preserve_format", "channels_last")
LAYOUTS = ("contiguous", "transposed", "sliced", "expanded", "channels_last")

F64 = torch.float64


def dtype_name(dt):
    return str(dt).replace("torch.", "")


def to_dtype(name):
    if name not in DTYPES:
        raise ValueError(f"unknown dtype {name!r}")
    return DTYPES[name]


def _generator(seed, index):
    g = torch.Generator(device="cpu")
    g.manual_seed(int(seed) * 1000 + index)
    return g


def _bounds(spec, lo, hi):
    lo = spec["low"] if spec.get("low") is not None else lo
    hi = spec["high"] if spec.get("high") is not None else hi
    return lo, hi


def _draw(spec):
    """The dtype normal and uniform values are drawn and shaped in: float32
    for an ARG of draw 2 whose dtype is a floating dtype of at most 32 bits
    (its values are rounded to that dtype anyway; drawing them in float32
    and casting once took a demo screen's inputs from 33 to 12 CPU-s, its
    25M-element expert weights 1.6 s each in float64), else
    float64 (draw 1: every case stored before draw 2 existed gives the same
    bytes as when it was stored)."""
    if spec.get("draw") == 2:
        try:
            dtype = to_dtype(spec.get("dtype"))
        except ValueError:
            return F64
        if dtype.is_floating_point and dtype.itemsize <= 4:
            return torch.float32
    return F64


def _randn(spec, shape, g):
    return torch.randn(shape, generator=g, dtype=_draw(spec))


def _rand(spec, shape, g):
    return torch.rand(shape, generator=g, dtype=_draw(spec))


def _values(spec, shape, g):
    """float64 (float32 where _draw says) or int64 values on the CPU, as the
    domain table says."""
    domain = spec.get("domain", "normal")
    if domain == "normal":
        return _randn(spec, shape, g)
    if domain in ("uniform", "positive"):
        lo, hi = _bounds(spec, *((-1.0, 1.0) if domain == "uniform" else (0.5, 2.0)))
        return _rand(spec, shape, g) * (hi - lo) + lo
    if domain == "nonzero":
        x = _randn(spec, shape, g)
        sign = torch.where(x < 0, -1.0, 1.0).to(F64)
        return torch.where(x.abs() < 0.25, sign * (0.25 + x.abs()), x)
    if domain == "int":
        lo, hi = _bounds(spec, -100, 100)
        return torch.randint(int(lo), int(hi), shape, generator=g, dtype=torch.int64)
    if domain == "index":
        if spec.get("high") is None:
            raise ValueError("domain 'index' needs 'high'")
        return torch.randint(0, int(spec["high"]), shape, generator=g, dtype=torch.int64)
    if domain == "bool":
        return torch.bernoulli(torch.full(shape, 0.5, dtype=F64), generator=g)
    if domain == "edge":
        return _edge_values(spec, shape, g)
    if domain == "stochastic":  # doubly stochastic in the last two dims
        x = _rand(spec, shape, g).to(F64) + 0.05
        if len(shape) < 2:
            return x / x.sum(-1, keepdim=True)
        for _ in range(100):
            x = x / x.sum(-1, keepdim=True)
            x = x / x.sum(-2, keepdim=True)
        return x
    if domain == "arange":
        n = 1
        for s in shape:
            n *= s
        return torch.arange(n, dtype=F64).reshape(shape)
    raise ValueError(f"unknown domain {domain!r}")


# 8-bit formats without infinities (and, for e8m0, without sign or zero)
_NO_INF = {getattr(torch, n) for n in ("float8_e4m3fn", "float8_e8m0fnu")
           if hasattr(torch, n)}


def _special(dtype):
    """The dtype's special values (DESIGN.md, edge_values), as float64/int64."""
    if dtype.is_floating_point:
        fi = torch.finfo(dtype)
        vals = [0.0, 1.0, -1.0, fi.tiny, -fi.tiny, fi.max, -fi.max]
        if dtype not in _NO_INF:
            vals += [-0.0, float("inf"), float("-inf")]
        vals.append(float("nan"))
        if dtype in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
            sub = fi.tiny * fi.eps  # smallest subnormal
            vals += [sub, -sub, fi.tiny / 2]
        return torch.tensor(vals, dtype=F64)
    if dtype == torch.bool:
        return torch.tensor([0, 1], dtype=torch.int64)
    ii = torch.iinfo(dtype)
    return torch.tensor([0, 1, -1 if ii.min < 0 else 2, ii.min, ii.max], dtype=torch.int64)


def _edge_values(spec, shape, g):
    """A fraction (edge_frac, default half) of the elements drawn from the
    dtype's special values, the rest normal/int; a regenerated case (its
    oracle was degenerate) carries a smaller edge_frac."""
    dtype = to_dtype(spec.get("dtype"))
    special = _special(dtype)
    pick = torch.randint(0, len(special), shape, generator=g)
    use = torch.rand(shape, generator=g, dtype=F64) < float(spec.get("edge_frac", 0.5))
    if dtype.is_floating_point:
        base = _randn(spec, shape, g)
    else:
        base = torch.randint(-100, 100, shape, generator=g, dtype=torch.int64)
    return torch.where(use, special[pick], base)


def _cast(values, dtype):
    """float64/int64 values to dtype; e8m0 (powers of two) goes through float32."""
    if dtype == getattr(torch, "float8_e8m0fnu", None):
        return values.to(torch.float32).to(dtype)
    if dtype.is_complex:
        return values.to(dtype)  # imaginary part 0; see build_tensor
    return values.to(dtype)


def _shape_ok(shape):
    return isinstance(shape, list) and all(
        isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape)


VIEW_OPS = {"slice": 4, "narrow": 3, "transpose": 2}


def _int_ok(v):
    return isinstance(v, int) and not isinstance(v, bool)


def take_view(base, ops):
    """base viewed through ops (docs/protocol.md, Views): ["slice", dim,
    start, stop, step], ["narrow", dim, start, length], ["transpose", a, b];
    each must fit the sizes it applies to (no clamping)."""
    v = base
    if not isinstance(ops, list):
        raise ValueError(f"view ops must be a list, got {ops!r}")
    for op in ops:
        if not isinstance(op, list) or not op or op[0] not in VIEW_OPS or \
                len(op) != 1 + VIEW_OPS[op[0]] or not all(map(_int_ok, op[1:])):
            raise ValueError(f"bad view op {op!r}")
        name, d = op[0], op[1]
        if not 0 <= d < v.dim():
            raise ValueError(f"view op {op!r}: no dim {d} in {list(v.shape)}")
        if name == "transpose":
            if not 0 <= op[2] < v.dim():
                raise ValueError(f"view op {op!r}: no dim {op[2]}")
            v = v.transpose(d, op[2])
        elif name == "narrow":
            if op[2] < 0 or op[3] < 0 or op[2] + op[3] > v.shape[d]:
                raise ValueError(f"view op {op!r} past size {v.shape[d]}")
            v = v.narrow(d, op[2], op[3])
        else:
            start, stop, step = op[2:]
            if not 0 <= start <= stop <= v.shape[d] or step < 1:
                raise ValueError(f"view op {op!r} past size {v.shape[d]}")
            idx = [slice(None)] * v.dim()
            idx[d] = slice(start, stop, step)
            v = v[tuple(idx)]
    return v


def _sentinel_spec(dtype):
    """The values an out= view's base holds around the view."""
    if dtype == torch.bool:
        return {"domain": "bool"}
    if dtype.is_floating_point or dtype.is_complex:
        return {"domain": "normal"}
    return {"domain": "int", "low": 0 if dtype == torch.uint8 else -100, "high": 100}


def build_view(spec, seed, index, device):
    """A tensor or out= ARG with a "view": its values are generated for the
    base's shape (an out= base: values of _sentinel_spec, the view then
    filled as build_out fills a buffer), and the ARG is the view the ops
    take of it. The base stays reachable as the view's _base, which the
    caller keeps as it was: each call gets view_private() of it."""
    view = spec["view"]
    if not isinstance(view, dict) or not _shape_ok(view.get("base")) or \
            not view["base"]:
        raise ValueError(f"bad view {view!r}")
    plain = {k: v for k, v in spec.items() if k not in ("view", "layout")}
    plain["shape"] = view["base"]
    if spec.get("t") == "out":
        dtype = to_dtype(spec.get("dtype"))
        vals = _values(_sentinel_spec(dtype), view["base"], _generator(seed, index))
        base = _cast(vals, dtype).to(device)
    else:
        base = build_tensor(plain, seed, index, device)
    v = take_view(base, view.get("ops"))
    if list(v.shape) != spec.get("shape"):
        raise ValueError(f"view of shape {list(v.shape)}, the ARG says "
                         f"{spec.get('shape')!r}")
    if spec.get("t") == "out":
        v.fill_(_out_fill(dtype))
    v._opscreen_view = True
    return v


def is_view(t):
    """Whether t is a views-class ARG (build_view), whose base matters."""
    return isinstance(t, torch.Tensor) and getattr(t, "_opscreen_view", False) \
        and t._base is not None


def view_private(t):
    """t's view geometry into a private copy of its base."""
    base = t._base.clone()
    v = base.as_strided(t.size(), t.stride(), t.storage_offset())
    v._opscreen_view = True
    return v


def _private(t):
    return view_private(t) if is_view(t) else t.clone()


ARANGE_CHUNK = 1 << 26


def arange_values(n, start, mod, dtype, device):
    """n elements on the device, element i holding (start + i) % mod in dtype
    (bool: nonzero), made in chunks (2^31 int64 positions at once would take
    16 GiB): the large tensors of a 2^31-element data-movement case ("gen":
    "arange"), whose every position says where it came from."""
    t = torch.empty(n, dtype=dtype, device=device)
    for i in range(0, n, ARANGE_CHUNK):
        j = min(n, i + ARANGE_CHUNK)
        t[i:j] = torch.arange(start + i, start + j, device=device) % mod
    return t


def build_tensor(spec, seed, index, device):
    if spec.get("view") is not None:
        return build_view(spec, seed, index, device)
    shape = spec.get("shape")
    if not _shape_ok(shape):
        raise ValueError(f"bad tensor shape {shape!r}")
    dtype = to_dtype(spec.get("dtype"))
    layout = spec.get("layout", "contiguous")
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}")
    gen_shape = list(shape)
    if layout == "transposed" and len(shape) >= 2:
        gen_shape = shape[:-2] + [shape[-1], shape[-2]]
    elif layout == "sliced" and shape:
        gen_shape = shape[:-1] + [2 * shape[-1]]
    elif layout == "expanded":
        gen_shape = spec.get("base")
        if not _shape_ok(gen_shape) or len(gen_shape) != len(shape) or any(
                b not in (1, s) for b, s in zip(gen_shape, shape)):
            raise ValueError(f"bad expanded base {gen_shape!r} for shape {shape!r}")
    if spec.get("gen") == "arange":
        n = 1
        for d in gen_shape:
            n *= d
        t = arange_values(n, int(spec.get("start", 0)), int(spec.get("mod", 251)), dtype,
                          device).view(gen_shape)
    else:
        g = _generator(seed, index)
        vals = _values(spec, gen_shape, g)
        if dtype.is_complex:
            vals = torch.complex(vals.to(F64), _values(spec, gen_shape, g).to(F64))
        t = _cast(vals, dtype).to(device)
    if layout == "transposed" and len(shape) >= 2:
        return t.transpose(-1, -2)
    if layout == "sliced" and shape:
        return t[..., ::2]
    if layout == "expanded":
        return t.expand(shape)
    if layout == "channels_last" and len(shape) == 4:
        return t.contiguous(memory_format=torch.channels_last)
    return t


def build_out(spec, device):
    """An out= buffer whose unwritten elements show: NaN, the max integer, True."""
    if spec.get("view") is not None:
        raise ValueError("an out= view is built by build_view")
    shape = spec.get("shape")
    if not _shape_ok(shape):
        raise ValueError(f"bad out shape {shape!r}")
    dtype = to_dtype(spec.get("dtype"))
    return torch.full(shape, _out_fill(dtype), dtype=dtype, device=device)


def _out_fill(dtype):
    if dtype.is_floating_point or dtype.is_complex:
        return float("nan")
    if dtype == torch.bool:
        return True
    return torch.iinfo(dtype).max


def build_arg(arg, seed, index, device):
    if not isinstance(arg, dict):
        raise ValueError(f"ARG must be an object, got {arg!r}")
    kind = arg.get("t")
    if kind == "tensor":
        return build_tensor(arg, seed, index, device)
    if kind == "tensors":
        return [build_arg(a, seed, index * 100 + j, device)
                for j, a in enumerate(arg.get("v", []))]
    if kind == "out":
        if arg.get("view") is not None:
            return build_view(arg, seed, index, device)
        return build_out(arg, device)
    if kind == "device":
        return torch.device(device)
    if kind == "memory_format":
        if arg.get("v") not in MEMORY_FORMATS:
            raise ValueError(f"unknown memory_format {arg.get('v')!r}")
        return getattr(torch, arg["v"])
    if kind == "none":
        return None
    if kind == "int":
        return int(arg["v"])
    if kind == "float":
        return float(arg["v"])  # float("inf") etc. since JSON has no infinities
    if kind == "bool":
        return bool(arg["v"])
    if kind == "ints":
        return [int(v) for v in arg["v"]]
    if kind == "str":
        return str(arg["v"])
    if kind == "dtype":
        return to_dtype(arg["v"])
    raise ValueError(f"unknown ARG type {kind!r}")


def build_args(case, device):
    """(args, kwargs); seeds follow args order, then kwargs in sorted key order."""
    specs, kwspecs = case.get("args", []), case.get("kwargs", {})
    if not isinstance(specs, list) or not isinstance(kwspecs, dict):
        raise ValueError("case args must be a list and kwargs an object")
    seed = case.get("seed", 0)
    args = [build_arg(a, seed, i, device) for i, a in enumerate(specs)]
    kwargs = {k: build_arg(kwspecs[k], seed, len(specs) + j, device)
              for j, k in enumerate(sorted(kwspecs))}
    return args, kwargs


def upcast(obj):
    """Oracle inputs: floating tensors and floating dtype arguments to float64."""
    if isinstance(obj, torch.Tensor):
        if obj.is_complex():
            return obj.to(torch.complex128)
        return obj.to(F64) if obj.is_floating_point() else obj
    if isinstance(obj, torch.dtype):
        if obj.is_complex:
            return torch.complex128
        return F64 if obj.is_floating_point else obj
    if isinstance(obj, (list, tuple)):
        return type(obj)(upcast(v) for v in obj)
    if isinstance(obj, dict):
        return {k: upcast(v) for k, v in obj.items()}
    return obj


def mutated(case):
    """"self", "out" or None: which input the case's op writes."""
    m = case.get("mutates")
    if m in ("self", "out"):
        return m
    return "self" if case.get("inplace") else None


def fresh(args, kwargs, mutates):
    """Private copies of the written input for each call: (args, kwargs, it)."""
    args, kwargs = list(args), dict(kwargs)
    if mutates == "self" and args and isinstance(args[0], torch.Tensor):
        args[0] = _private(args[0])
        return args, kwargs, args[0]
    if mutates == "out" and isinstance(kwargs.get("out"), torch.Tensor):
        kwargs["out"] = _private(kwargs["out"])
        return args, kwargs, kwargs["out"]
    if mutates == "out" and isinstance(kwargs.get("out"), (list, tuple)):
        kwargs["out"] = [t.clone() for t in kwargs["out"]]
        return args, kwargs, kwargs["out"][0] if kwargs["out"] else None
    return args, kwargs, None


def written(args, kwargs, mutates):
    """The input the case's op writes, as built (before any call), or None."""
    if mutates == "self" and args and isinstance(args[0], torch.Tensor):
        return args[0]
    if mutates == "out" and isinstance(kwargs.get("out"), torch.Tensor):
        return kwargs["out"]
    return None


GUARD = 4096  # elements of poison on either side of a guarded input


def poison(dtype, side):
    """The value the memory next to a guarded input holds: the dtype's lowest
    (side "low") or highest ("high") finite value, False or True for bool;
    None for complex dtypes (not guarded)."""
    if dtype.is_complex:
        return None
    if dtype == torch.bool:
        return side == "high"
    info = torch.finfo(dtype) if dtype.is_floating_point else torch.iinfo(dtype)
    return info.min if side == "low" else info.max


def _guard_one(t, side, guards):
    p = poison(t.dtype, side)
    n = t.numel()
    if p is None or n == 0 or not t.is_contiguous():
        return None
    buf = torch.full((GUARD + n + GUARD,), p, dtype=t.dtype, device=t.device)
    buf[GUARD:GUARD + n].copy_(t.reshape(-1))
    # the poison's bytes, compared as bytes (no == for every dtype on a GPU)
    guards.append((buf, buf.view(torch.uint8)[:GUARD * t.element_size()].clone()))
    return buf[GUARD:GUARD + n].view(t.shape)


def guarded(args, kwargs, mutates, side):
    """Copies of the inputs for one call in which every contiguous tensor sits
    in the middle of a buffer whose GUARD elements on either side hold
    poison(dtype, side) (the data pointer stays 16-byte aligned, so a Triton
    kernel is not specialised anew): a kernel that reads past its inputs
    sees the poison, one that writes past them overwrites it. The written
    input is always a private copy. (args, kwargs, guards for intact())."""
    guards = []

    def copy(v, written):
        if isinstance(v, torch.Tensor):
            g = _guard_one(v, side, guards)
            return g if g is not None else (_private(v) if written else v)
        if isinstance(v, list):
            return [copy(x, written) for x in v]
        return v

    args = [copy(a, mutates == "self" and i == 0) for i, a in enumerate(args)]
    kwargs = {k: copy(v, mutates == "out" and k == "out") for k, v in kwargs.items()}
    return args, kwargs, guards


def intact(guards):
    """Whether every guard still holds its poison (nothing was written past
    the inputs)."""
    flags = intact_flags(guards)
    return bool(torch.stack(flags).all().item()) if flags else True


def intact_flags(guards):
    """intact() as 0-d bool tensors on the device, one per guard, for a
    caller that reads them with other flags in one synchronisation."""
    flags = []
    for buf, poison_bytes in guards:
        raw = buf.view(torch.uint8)
        k = poison_bytes.numel()
        flags.append((raw[:k] == poison_bytes).all() &
                     (raw[raw.numel() - k:] == poison_bytes).all())
    return flags


def resolve_op(key):
    """The operator a case of `key` calls as native and as the oracle: an
    aten overload, or for a library entry point ("fused::NAME") its
    reference (references.py)."""
    if key.startswith("fused::"):
        from . import references
        return references.resolve(key)
    name, _, overload = key.partition(".")
    try:
        return getattr(getattr(torch.ops.aten, name), overload or "default")
    except (AttributeError, RuntimeError) as e:
        raise ValueError(f"no aten operator {key!r}") from e


def digest(args, kwargs):
    """sha256 of every input tensor's dtype, shape and bytes, in seeding order."""
    h = hashlib.sha256()

    def feed(v):
        if isinstance(v, torch.Tensor):
            t = v.detach().cpu().contiguous().reshape(-1)
            h.update(f"{dtype_name(t.dtype)}{list(v.shape)}".encode())
            if t.numel():
                h.update(t.view(torch.uint8).numpy().tobytes())
        elif isinstance(v, (list, tuple)):
            for x in v:
                feed(x)

    feed(list(args))
    feed([kwargs[k] for k in sorted(kwargs)])
    return h.hexdigest()
