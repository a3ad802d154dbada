"""opscreen_demolib: a CPU test kernel library with known defects.

It registers aten overrides through torch.library exactly the way FlagGems does
(_FULL_CONFIG, enable, only_enable, use_gems), so the runner's generic adapter
and the daemon's end-to-end tests can be exercised without a GPU.
"""

import functools
import os
import time

import torch

from .ops import (
    abs, abs_out, add, addmm, amax, argmin, clamp, clone, cos, cumsum, div, eq, eq_scalar,
    exp, exp2, maximum, mean_dim, minimum, layer_norm, mul, mul_, neg, neg_out, relu,
    rsqrt, sigmoid, sigmoid_, silu, sin, softmax, sqrt, sub, sum, sum_dim, tanh, topk, uniform_,
    where_self,
)
from . import fused  # noqa: F401  the entry points engines call directly

__version__ = "0.1.0"

# OPSCREEN_DEMOLIB_IMPORT_DELAY=3: the import takes that many seconds more,
# so a test sees the daemon before any runner has reported the table
time.sleep(float(os.environ.get("OPSCREEN_DEMOLIB_IMPORT_DELAY") or 0))

_DISPATCH_KEY = "CPU"

_FULL_CONFIG = (
    ("abs", abs),
    ("abs.out", abs_out),
    ("add.Tensor", add),
    ("addmm", addmm),
    ("amax", amax),
    ("argmin", argmin),
    ("clamp", clamp),
    ("clone", clone),
    ("cos", cos),
    ("cumsum", cumsum),
    ("div.Tensor", div),
    ("eq.Scalar", eq_scalar),
    ("eq.Tensor", eq),
    ("exp", exp),
    ("exp2", exp2),
    ("maximum", maximum),
    ("mean.dim", mean_dim),
    ("minimum", minimum),
    ("mul.Tensor", mul),
    ("mul_.Tensor", mul_),
    ("native_layer_norm", layer_norm),
    ("neg", neg),
    ("neg.out", neg_out),
    ("relu", relu),
    ("rsqrt", rsqrt),
    ("sigmoid", sigmoid),
    ("sigmoid_", sigmoid_),
    ("silu", silu),
    ("sin", sin),
    ("sqrt", sqrt),
    ("_softmax", softmax),
    ("sub.Tensor", sub),
    ("sum", sum),
    ("sum.dim_IntList", sum_dim),
    ("tanh", tanh),
    ("topk", topk),
    ("uniform_", uniform_),
    ("where.self", where_self),
)

# OPSCREEN_DEMOLIB_KEYS="minimum:Autograd,neg:Conjugate": those keys are
# registered for that dispatch key instead of the device's, as FlagGems 5.3.4
# registers ctc_loss (Autograd) and cholesky_solve (Conjugate): a fourth
# element, after a None condition
_OWN_KEYS = dict(e.split(":", 1) for e in os.environ.get(
    "OPSCREEN_DEMOLIB_KEYS", "").split(",") if ":" in e)
_FULL_CONFIG = tuple((item[0], item[1], None, (_OWN_KEYS[item[0]],))
                     if item[0] in _OWN_KEYS else item for item in _FULL_CONFIG)

aten_lib = torch.library.Library("aten", "IMPL")
_registered = []


def _load_yaml_list(path, key):
    with open(path) as f:
        text = f.read()
    try:
        import yaml
    except ImportError:
        yaml = None
    if yaml is not None:
        data = yaml.safe_load(text) or {}
        return list(data.get(key) or []) if isinstance(data, dict) else []
    # Enough YAML for what /allowlist?format=yaml emits: "key: [a, b]" or a
    # "key:" line followed by "- item" lines.
    items, current = {}, None
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        stripped = line.strip()
        if stripped.startswith("- ") and current is not None:
            items[current].append(stripped[2:].strip().strip("'\""))
        elif ":" in stripped and not line[0].isspace():
            current, _, rest = stripped.partition(":")
            current, rest = current.strip(), rest.strip()
            items[current] = []
            if rest.startswith("[") and rest.endswith("]"):
                items[current] = [s.strip().strip("'\"")
                                  for s in rest[1:-1].split(",") if s.strip()]
    return items.get(key, [])


def _resolve(setting, key):
    if setting is None:
        return []
    if isinstance(setting, str):
        return _load_yaml_list(setting, key)
    return list(setting)


# OPSCREEN_DEMOLIB_DELAY="neg:0.3,abs:0.3": each call of those functions
# takes that many seconds more, so a test can keep runners busy for a while
_DELAY = dict((n, float(s)) for n, _, s in (
    e.partition(":") for e in os.environ.get("OPSCREEN_DEMOLIB_DELAY", "").split(",")
    if e))


def _delayed(fn):
    if fn.__name__ not in _DELAY:
        return fn

    @functools.wraps(fn)
    def slow(*args, **kwargs):
        time.sleep(_DELAY[fn.__name__])
        return fn(*args, **kwargs)
    return slow


# OPSCREEN_DEMOLIB_FAULTY_DEVICE=1: a faulty GPU. The runner of device 1
# (OPSCREEN_DEVICE_INDEX, set by the daemon; devices = cpu:N numbers its CPU
# runners 0..N-1) computes every floating output 17/16 too large, the other
# devices right: what a device with a hardware fault does to each op it runs
# (aten overrides and entry points alike; an entry point that writes the
# caller's buffers and returns nothing is not scaled).
# "1:raise": every call on device 1 raises instead (a GPU that faults).
_FAULTY, _, _FAULT_KIND = os.environ.get(
    "OPSCREEN_DEMOLIB_FAULTY_DEVICE", "").partition(":")


def _scaled(out):
    if isinstance(out, torch.Tensor):
        if out.is_floating_point():
            out.mul_(17 / 16)
    elif isinstance(out, (tuple, list)):
        for o in out:
            _scaled(o)
    return out


def _faulty(fn):
    if not _FAULTY or os.environ.get("OPSCREEN_DEVICE_INDEX", "") != _FAULTY:
        return fn

    @functools.wraps(fn)
    def wrong(*args, **kwargs):
        if _FAULT_KIND == "raise":
            raise RuntimeError("CUDA error: an illegal memory access was "
                               "encountered (demo faulty device)")
        return _scaled(fn(*args, **kwargs))
    return wrong


# the faulty device's entry points too (engines call them directly)
for _n in fused.__all__:
    setattr(fused, _n, _faulty(getattr(fused, _n)))


def _register(lib, names=None, exclude=()):
    _registered.clear()
    for key, fn, *rest in _FULL_CONFIG:
        if rest and rest[0] is not None and not rest[0]():
            continue
        if names is not None and fn.__name__ not in names:
            continue
        if fn.__name__ in exclude:
            continue
        for dk in rest[1] if len(rest) > 1 else (_DISPATCH_KEY,):
            lib.impl(key, _faulty(_delayed(fn)), dk)
        _registered.append(fn.__name__)


def enable(lib=None, unused=None):
    _register(lib if lib is not None else aten_lib,
              exclude=set(_resolve(unused, "exclude")))


def only_enable(lib=None, include=None):
    names = set(_resolve(include, "include"))
    if not names:
        return
    _register(lib if lib is not None else aten_lib, names=names)


class use_gems:
    """Registers into a private Library so leaving the block restores aten."""

    def __init__(self, exclude=None, include=None):
        self.lib = torch.library.Library("aten", "IMPL")
        self.exclude = exclude
        self.include = include

    def __enter__(self):
        if self.include:
            only_enable(self.lib, include=self.include)
        else:
            enable(self.lib, unused=self.exclude)
        return self

    def __exit__(self, *exc):
        self.lib._destroy()
        return False


def all_registered_ops():
    return list(_registered)
