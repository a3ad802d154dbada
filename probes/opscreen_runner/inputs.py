"""Case arguments: ARG specs -> Python values on the device (docs/protocol.md, ARG).

This module imports only torch and the standard library: repro.py pastes its
source into every repro script, so a repro regenerates the very same bytes.
"""

import hashlib

import torch

DTYPES = {name: getattr(torch, name) for name in (
    "float64", "float32", "float16", "bfloat16", "int64", "int32", "int16",
    "int8", "uint8", "bool", "float8_e4m3fn", "float8_e5m2",
) if hasattr(torch, name)}

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


def _values(spec, shape, g):
    """float64 or int64 values on the CPU, as the domain table says."""
    domain = spec.get("domain", "normal")
    if domain == "normal":
        return torch.randn(shape, generator=g, dtype=F64)
    if domain in ("uniform", "positive"):
        lo, hi = _bounds(spec, *((-1.0, 1.0) if domain == "uniform" else (0.5, 2.0)))
        return torch.rand(shape, generator=g, dtype=F64) * (hi - lo) + lo
    if domain == "nonzero":
        x = torch.randn(shape, generator=g, dtype=F64)
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
    if domain == "arange":
        n = 1
        for s in shape:
            n *= s
        return torch.arange(n, dtype=F64).reshape(shape)
    raise ValueError(f"unknown domain {domain!r}")


def build_tensor(spec, seed, index, device):
    shape = spec.get("shape")
    if not isinstance(shape, list) or not all(
            isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape):
        raise ValueError(f"bad tensor shape {shape!r}")
    dtype = to_dtype(spec.get("dtype"))
    layout = spec.get("layout", "contiguous")
    if layout not in ("contiguous", "transposed"):
        raise ValueError(f"unknown layout {layout!r}")
    transposed = layout == "transposed" and len(shape) >= 2
    gen_shape = shape[:-2] + [shape[-1], shape[-2]] if transposed else shape
    t = _values(spec, gen_shape, _generator(seed, index)).to(dtype).to(device)
    return t.transpose(-1, -2) if transposed else t


def build_arg(arg, seed, index, device):
    if not isinstance(arg, dict):
        raise ValueError(f"ARG must be an object, got {arg!r}")
    kind = arg.get("t")
    if kind == "tensor":
        return build_tensor(arg, seed, index, device)
    if kind == "tensors":
        return [build_arg(a, seed, index * 100 + j, device)
                for j, a in enumerate(arg.get("v", []))]
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
        return obj.to(F64) if obj.is_floating_point() else obj
    if isinstance(obj, torch.dtype):
        return F64 if obj.is_floating_point else obj
    if isinstance(obj, (list, tuple)):
        return type(obj)(upcast(v) for v in obj)
    if isinstance(obj, dict):
        return {k: upcast(v) for k, v in obj.items()}
    return obj


def fresh(args, inplace):
    """A private copy of the mutated first argument for each in-place call."""
    if inplace and args and isinstance(args[0], torch.Tensor):
        return [args[0].clone()] + list(args[1:])
    return list(args)


def resolve_op(key):
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
