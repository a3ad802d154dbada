"""Operator implementations for opscreen_demolib, computed through numpy.

Correct ops compute in float64 and round once to aten's output dtype, so they sit
within the DESIGN.md pass rule. The defective ones are marked DEFECT. Names below
shadow builtins on purpose (abs, sum): the library's enable names are the Python
function names, as in FlagGems, so this module never uses those builtins.
"""

import math
import os
import struct
import time

import numpy as np
import torch


def _np(x, dtype):
    """Tensor or Python scalar -> numpy array holding the value of x in dtype."""
    t = x if isinstance(x, torch.Tensor) else torch.tensor(x)
    t = t.detach().to(dtype)
    if t.is_floating_point():
        t = t.to(torch.float64)  # numpy has no bfloat16; float64 holds every value
    return t.numpy()


def _back(a, dtype):
    return torch.from_numpy(np.array(a, order="C")).to(dtype)


def _float_out(x):
    return x.dtype if x.is_floating_point() else torch.get_default_dtype()


def _unary_float(f, x):
    dt = _float_out(x)
    return _back(f(_np(x, dt)), dt)


def _binary(f, a, b):
    dt = torch.result_type(a, b)
    return _back(f(_np(a, dt), _np(b, dt)), dt)


def abs(self):
    return _back(np.abs(_np(self, self.dtype)), self.dtype)


# OPSCREEN_DEMOLIB_GARBAGE="neg:KIND" makes neg write to the runner's private
# channel (OPSCREEN_FD) before it answers, like a library that writes to a
# descriptor it does not own: KIND "frame" (a frame whose body is not JSON),
# "huge" (a length past the frame bound), "bytes" (bytes that are no frame),
# "message" (a well-formed result for a case that is not in flight).
_GARBAGE = os.environ.get("OPSCREEN_DEMOLIB_GARBAGE", "").split(":")


def _garbage(name):
    if len(_GARBAGE) != 2 or _GARBAGE[0] != name:
        return
    kind = _GARBAGE[1]
    if kind == "frame":
        data = struct.pack(">I", 10) + b"\xff{garbage"
    elif kind == "huge":
        data = struct.pack(">I", 0xFFFFFFF0) + b"x" * 64
    elif kind == "message":
        body = b'{"type": "result", "id": 999999999, "outputs": []}'
        data = struct.pack(">I", len(body)) + body
    else:
        data = b"\x00\x01garbage\xff" * 16
    os.write(int(os.environ.get("OPSCREEN_FD", "3")), data)


# Names listed in OPSCREEN_DEMOLIB_SLOWER (neg only) are right and 5 ms slow
# per call, like a launcher whose host overhead dwarfs the kernel: lists
# asked for faster= must leave them out.
_SLOWER = frozenset(n for n in os.environ.get("OPSCREEN_DEMOLIB_SLOWER", "").split(",")
                    if n)


def neg(self):
    _garbage("neg")
    if "neg" in _SLOWER:
        time.sleep(0.005)
    return _back(np.negative(_np(self, self.dtype)), self.dtype)


def silu(self):
    # NONDETERMINISTIC (right): computed in float64 and rounded to the
    # dtype, then outputs are moved to the dtype's other value around the
    # exact one, a fresh random choice on every call (a kernel whose result
    # depends on the order its threads accumulate in): its output bits
    # change from call to call, and every output stays within the rule
    # (less than an ULP off, and within 1.5 R of the exact value, R the
    # largest rounding error of the outputs: the rule allows 2R).
    x = self.detach().to(torch.float64)
    exact = x / (1 + torch.exp(-x))
    out = exact.to(self.dtype)
    if not self.dtype.is_floating_point or out.numel() < 2:
        return out
    fin = torch.isfinite(exact) & torch.isfinite(out)
    back = out.to(torch.float64)
    r = (exact - back).abs().where(fin, torch.zeros_like(exact)).max()
    toward = torch.where(back < exact, math.inf, -math.inf).to(self.dtype)
    other = torch.nextafter(out, toward)
    g = torch.Generator().manual_seed(int.from_bytes(os.urandom(7), "little"))
    coin = torch.rand(exact.shape, generator=g) < 0.5
    near = (other.to(torch.float64) - exact).abs() <= 1.5 * r
    pick = coin & fin & torch.isfinite(other) & near & (back != exact)
    return torch.where(pick, other, out)


def relu(self):
    a = _np(self, self.dtype)
    return _back(np.where((a > 0) | np.isnan(a), a, np.zeros_like(a)), self.dtype)


# Names listed in OPSCREEN_DEMOLIB_BREAK (comma separated) turn wrong at import:
# the tests plant a regression between two screens of one database this way.
_BREAK = frozenset(n for n in os.environ.get("OPSCREEN_DEMOLIB_BREAK", "").split(",")
                   if n)


def add(self, other, *, alpha=1):
    if "add" in _BREAK:
        # DEFECT (planted on request): every element 1/8 too large
        return _binary(lambda a, b: a + alpha * b + 0.125, self, other)
    if alpha == 1:
        return _binary(np.add, self, other)
    return _binary(lambda a, b: a + alpha * b, self, other)


# Names listed in OPSCREEN_DEMOLIB_SLOW take a second per call, like a first
# call that autotunes (sub only): the tests of runner.key_budget use it.
_SLOW = frozenset(n for n in os.environ.get("OPSCREEN_DEMOLIB_SLOW", "").split(",")
                  if n)


# OPSCREEN_DEMOLIB_SLOW_FIRST="sub:SECONDS" makes sub's first call on each new
# shape and dtype in a process take SECONDS, like a kernel that autotunes every
# new shape; "sub:SECONDS:loaded" only outside an empty Triton cache of the
# runner's own (TRITON_CACHE_DIR opscreen-compile-*), like a first call that
# is slow only while other runners load the machine ("always": everywhere);
# a fourth field names the only dtype that is slow. The tests of
# runner.first_call_budget use it.
_SLOW_FIRST = os.environ.get("OPSCREEN_DEMOLIB_SLOW_FIRST", "").split(":")
_SEEN = set()


def _slow_first(name, *tensors):
    if len(_SLOW_FIRST) < 2 or _SLOW_FIRST[0] != name:
        return
    sig = tuple((tuple(t.shape), t.dtype) for t in tensors if isinstance(t, torch.Tensor))
    if sig in _SEEN:
        return
    if _SLOW_FIRST[3:4] and all(str(t.dtype) != "torch." + _SLOW_FIRST[3]
                                for t in tensors if isinstance(t, torch.Tensor)):
        return
    _SEEN.add(sig)
    cold = os.path.basename(os.environ.get("TRITON_CACHE_DIR", "")).startswith(
        "opscreen-compile-")
    if _SLOW_FIRST[2:3] == ["loaded"] and cold:
        return
    time.sleep(float(_SLOW_FIRST[1]))


def sub(self, other, *, alpha=1):
    if "sub" in _SLOW:
        time.sleep(1.0)
    _slow_first("sub", self, other)
    if alpha == 1:
        return _binary(np.subtract, self, other)
    return _binary(lambda a, b: a - alpha * b, self, other)


def mul(self, other):
    return _binary(np.multiply, self, other)


def mul_(self, other):
    # in place through self's strides: a view's gaps are left alone
    return self.copy_(mul(self, other))


def maximum(self, other):
    return _binary(np.maximum, self, other)


def minimum(self, other):
    # DEFECT (broadcast): when self is the operand that broadcasts, the result is
    # cut back to self's shape; same-shape inputs are exact.
    out = _binary(np.minimum, self, other)
    if tuple(out.shape) == tuple(self.shape):
        return out
    lead = out.dim() - self.dim()
    idx = [0] * lead + [slice(0, 1) if s == 1 else slice(None) for s in self.shape]
    return out[tuple(idx)].reshape(self.shape).clone()


def eq(self, other):
    return _back(np.equal(*_promoted(self, other)), torch.bool)


_EQ_SCALAR_CALLS = [0]


def eq_scalar(self, other):
    # DEFECT (nondeterministic): every other launch in a process writes a
    # stale first element (a race with an earlier launch, say): the same
    # inputs give different outputs from one call to the next.
    out = _back(np.equal(*_promoted(self, other)), torch.bool)
    _EQ_SCALAR_CALLS[0] += 1
    if _EQ_SCALAR_CALLS[0] % 2 == 1 and out.numel():
        flat = out.view(-1)
        flat[0] = ~flat[0]
    return out


def _promoted(a, b):
    dt = torch.result_type(a, b)
    return _np(a, dt), _np(b, dt)


def where_self(condition, self, other):
    dt = torch.result_type(self, other)
    c = _np(condition, torch.bool)
    return _back(np.where(c, _np(self, dt), _np(other, dt)), dt)


def neg_out(self, *, out):
    r = _back(np.negative(_np(self, self.dtype)), self.dtype)
    if out.shape != r.shape:
        out.resize_(r.shape)
    return out.copy_(r)


def _span(t):
    """The elements of t's storage from its first element to its last."""
    span = 1
    for n, st in zip(t.shape, t.stride()):
        span += (n - 1) * st
    return span


def sigmoid_(self):
    # DEFECT (views): a view with gaps is run as one contiguous block, from
    # its first element to its last, like a kernel that takes the span of
    # the strides for the tensor: the view's own elements are right, and
    # the base's elements between them are overwritten with their sigmoid.
    # Contiguous (and dense transposed) tensors are right.
    if not self.numel() or _span(self) == self.numel():
        return self.copy_(sigmoid(self))
    block = torch.empty(0, dtype=self.dtype).set_(
        self.untyped_storage(), self.storage_offset(), (_span(self),), (1,))
    block.copy_(sigmoid(block))
    return self


def sin(self):
    return _unary_float(np.sin, self)


def cos(self):
    return _unary_float(np.cos, self)


def sigmoid(self):
    return _unary_float(lambda a: 1.0 / (1.0 + np.exp(-a)), self)


def exp(self):
    # DEFECT (dtype): no bfloat16 kernel.
    if self.dtype == torch.bfloat16:
        raise RuntimeError("demolib: no kernel for bfloat16")
    return _unary_float(np.exp, self)


_BITS = {torch.float64: torch.int64, torch.float32: torch.int32,
         torch.float16: torch.int16, torch.bfloat16: torch.int16}


def _ulps_off(t, k):
    """t with every finite non-zero value k steps of its dtype further from
    zero (the bit pattern's magnitude plus k), where that stays finite."""
    if t.dtype not in _BITS:
        return t
    bits = t.contiguous().view(_BITS[t.dtype])
    moved = (bits + k).view(t.dtype)
    ok = torch.isfinite(t) & (t != 0) & torch.isfinite(moved)
    return torch.where(ok, moved, t)


def sqrt(self):
    # DEFECT (numerics): an approximate square root, 2 steps of the output
    # dtype away from the correctly rounded one (1.5-2.5 ULP, up to 3.5 where
    # it crosses a power of two): over the pass rule's 1 ULP, well within 16
    # times it.
    with np.errstate(invalid="ignore"):
        return _ulps_off(_unary_float(np.sqrt, self), 2)


def exp2(self):
    # DEFECT (numerics, then critical): every value 2 steps off, like an
    # approximate exp2; and past the first block of 1024 elements the
    # fraction of the exponent is dropped (2^trunc(x)), like a later block
    # that reads the wrong register. Small outputs are a few ULP off, large
    # ones far off.
    dt = _float_out(self)
    a = _np(self, dt)
    out = np.exp2(a)
    flat = out.reshape(-1)
    if flat.size > 1024:
        with np.errstate(invalid="ignore"):
            flat[1024:] = np.exp2(np.trunc(a.reshape(-1)[1024:]))
    return _ulps_off(_back(out, dt), 2)


def rsqrt(self):
    # DEFECT (crash): takes the whole process down, like a device fault would.
    os.abort()


# Names listed in OPSCREEN_DEMOLIB_FIX behave correctly (tanh only): a hang
# that one process sees and another does not, like an autotune that runs past
# its deadline under contention, without changing the library's source.
_FIX = frozenset(n for n in os.environ.get("OPSCREEN_DEMOLIB_FIX", "").split(",")
                 if n)


# OPSCREEN_DEMOLIB_HANG_ONCE=PATH: tanh hangs in the first call that creates
# PATH, in whichever process makes it, and is right in every call after, in
# any process: a correct op that one busy moment made miss its deadline.
_HANG_ONCE = os.environ.get("OPSCREEN_DEMOLIB_HANG_ONCE", "")


def _hung_once():
    """Whether the one hang PATH stands for has happened (this call creates
    PATH and hangs when it has not)."""
    if not _HANG_ONCE:
        return False
    try:
        os.close(os.open(_HANG_ONCE, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return True
    return False


def tanh(self):
    if "tanh" in _FIX or _hung_once():
        return _unary_float(np.tanh, self)
    # DEFECT (hang): never returns.
    while True:
        time.sleep(3600)


def cumsum(self, dim, *, dtype=None):
    # DEFECT (accumulation): along a non-last dim the running sum is rounded
    # to the storage dtype after every step (the last dim is done in float64
    # and rounded once, so short and last-dim scans look right).
    dt = dtype or (self.dtype if self.is_floating_point() else torch.int64)
    a = _np(self, dt)
    if a.ndim == 0:
        return _back(a, dt)
    d = dim % a.ndim
    if d == a.ndim - 1 or not torch.empty((), dtype=dt).is_floating_point():
        return _back(np.cumsum(a, axis=d), dt)
    return _back(np.moveaxis(_running(np.moveaxis(a, d, -1), dt), -1, d), dt)


def _round_to(a, dtype):
    """float64 numpy values rounded to dtype (round to nearest even), as
    float64: numpy has float16 and float32; bfloat16 is float32's top half."""
    if dtype == torch.float16:
        return a.astype(np.float32).astype(np.float16).astype(np.float64)
    if dtype == torch.float32:
        return a.astype(np.float32).astype(np.float64)
    if dtype == torch.bfloat16:
        with np.errstate(over="ignore", invalid="ignore"):
            f = np.asarray(a, dtype=np.float32)
        b = f.view(np.uint32).astype(np.uint64)
        nan = np.isnan(f)
        b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
        r = b.astype(np.uint32).view(np.float32).astype(np.float64)
        return np.where(nan, np.nan, r)
    return _np(_back(a, dtype), dtype)


def _seq_sum(a, dtype, lanes=256):
    """Sums the last axis rounding to dtype after every addition. Long rows
    go the way a GPU kernel with a storage-dtype accumulator takes them:
    `lanes` strided partial sums, each sequential, then the partials."""
    n = a.shape[-1]
    if n > 16 * lanes:
        pad = (-n) % lanes
        a = np.concatenate([a, np.zeros(a.shape[:-1] + (pad,))], axis=-1)
        a = _seq_sum(a.reshape(a.shape[:-1] + (-1, lanes)).swapaxes(-1, -2), dtype)
        n = lanes
    return _running(a, dtype)[..., -1] if n else np.zeros(a.shape[:-1])


# numpy's own float16 and float32 additions round each sum once to the
# dtype, as _round_to(acc + x) does (the float64 sum of two values of the
# dtype rounded to float32, then to float16, rounds as one rounding would:
# 53 >= 2*24+2 and 24 >= 2*11+2 bits); so do torch's bfloat16 additions
# (a float32 sum rounded to bfloat16: 24 >= 2*8+2)
_NATIVE = {torch.float16: np.float16, torch.float32: np.float32, torch.float64: np.float64}


def _running(a, dtype):
    """The running sums of a's last axis, each sum rounded to dtype (float64
    values of the dtype in, float64 out), starting from +0 as a kernel's
    zeroed accumulator does."""
    zero = np.zeros(a.shape[:-1] + (1,))
    if dtype in _NATIVE:
        with np.errstate(over="ignore", invalid="ignore"):
            run = np.add.accumulate(np.concatenate([zero, a], axis=-1).astype(_NATIVE[dtype]),
                                    axis=-1)
        return run[..., 1:].astype(np.float64)
    if dtype == torch.bfloat16:
        t = torch.from_numpy(np.ascontiguousarray(a)).to(torch.bfloat16)
        out = torch.empty(t.shape, dtype=torch.bfloat16)
        acc = torch.zeros(t.shape[:-1], dtype=torch.bfloat16)
        for k in range(t.shape[-1]):
            acc = acc + t[..., k]
            out[..., k] = acc
        return out.double().numpy()
    out = np.empty(a.shape)
    acc = zero[..., 0]
    for k in range(a.shape[-1]):
        acc = _round_to(acc + a[..., k], dtype)
        out[..., k] = acc
    return out


def _raw(t):
    """The values a kernel sees when it walks t's storage as if contiguous
    (stopping at the storage's last element instead of running past it)."""
    flat = torch.empty(0, dtype=t.dtype).set_(
        t.untyped_storage(), t.storage_offset(),
        (t.untyped_storage().nbytes() // t.element_size() - t.storage_offset(),), (1,))
    idx = torch.arange(t.numel()).clamp(max=max(flat.numel() - 1, 0))
    return flat[idx].reshape(t.shape)


def div(self, other):
    # DEFECT (noncontig): an operand with a zero stride (expand()ed) is read
    # as if it were contiguous, so the broadcast values come from the wrong
    # places; broadcasting done by aten itself and real copies are right.
    if isinstance(other, torch.Tensor) and 0 in other.stride() and other.numel() > 1:
        other = _raw(other)
    dt = torch.result_type(self, other)
    if not torch.empty((), dtype=dt).is_floating_point():
        dt = torch.get_default_dtype()
    return _back(_np(self, dt) / _np(other, dt), dt)


def abs_out(self, *, out):
    # DEFECT (contract): the out= variant allocates a new tensor instead of
    # writing into out.
    return abs(self)


def clone(self, *, memory_format=None):
    # DEFECT (dtype_exotic): no fp8 kernels.
    if self.dtype in (getattr(torch, "float8_e4m3fn", None),
                      getattr(torch, "float8_e5m2", None)):
        raise NotImplementedError(f"demolib: clone has no kernel for {self.dtype}")
    out = torch.empty_like(self, memory_format=memory_format or torch.preserve_format)
    return out.copy_(self)


def uniform_(self, from_=0.0, to=1.0, *, generator=None):
    # DEFECT (random): u**1.3 instead of u: skewed towards from.
    # (torch.rand would dispatch back into this override: draw with numpy,
    # seeded from torch's generator so torch.manual_seed still decides)
    seed = int(torch.randint(0, 2 ** 62, (1,), generator=generator).item())
    u = np.random.default_rng(seed).random(tuple(self.shape))
    return self.copy_(_back(from_ + (to - from_) * u ** 1.3, torch.float64))


_COMPILED = set()


def topk(self, k, dim=-1, largest=True, sorted=True):
    # DEFECT (compile): the first call for each k "compiles" for 2 ms per k,
    # like a JIT whose compile time grows with a constexpr parameter.
    if (k, self.dtype) not in _COMPILED:
        time.sleep(0.002 * k)
        _COMPILED.add((k, self.dtype))
    a = _np(self, self.dtype)
    if a.ndim == 0:
        return self.clone(), torch.zeros((), dtype=torch.int64)
    d = dim % a.ndim
    idx = np.argsort(-a if largest else a, axis=d, kind="stable")
    idx = np.take(idx, np.arange(k), axis=d)
    return _back(np.take_along_axis(a, idx, axis=d), self.dtype), \
        _back(idx, torch.int64)


def clamp(self, min=None, max=None):
    # DEFECT (contract): aten declares max optional; this requires it.
    if max is None:
        raise TypeError("demolib: clamp() missing required argument 'max'")
    dt = torch.result_type(self, max)
    if min is not None:
        dt = torch.promote_types(dt, torch.result_type(self, min))
    return _back(np.clip(_np(self, dt), min, max), dt)


def amax(self, dim=(), keepdim=False):
    a = _np(self, self.dtype)
    axis = tuple(dim) if len(dim) else None
    return _back(np.max(a, axis=axis, keepdims=keepdim), self.dtype)


def argmin(self, dim=None, keepdim=False):
    # DEFECT (out of bounds): a contiguous 1-D input (or dim=None) is read one
    # element past its end, like a Triton kernel whose last block loads
    # without a mask (flag_gems 5.0.2's argmin_kernel_opt_k1 loads with
    # mask=True). A tensor with its own storage has nothing there, and the
    # index is right; beside other memory, that memory can win (index n).
    x, n = self, self.numel()
    past = self.untyped_storage().nbytes() // self.element_size() - \
        self.storage_offset() - n
    if n and past > 0 and self.is_contiguous() and (dim is None or self.dim() <= 1):
        x = torch.as_strided(self, (n + 1,), (1,), self.storage_offset())
    a = _np(x, self.dtype)
    if dim is None or a.ndim == 0:
        out = torch.tensor(int(np.argmin(a.reshape(-1))), dtype=torch.int64)
        return out.reshape([1] * self.dim()) if keepdim else out
    idx = np.argmin(a, axis=dim)
    return _back(np.expand_dims(idx, dim) if keepdim else idx, torch.int64)


def softmax(self, dim, half_to_float):
    dt = torch.float32 if half_to_float else self.dtype
    a = _np(self, self.dtype)
    if a.ndim == 0:
        return _back(np.ones(()), dt)
    if a.size == 0:  # numpy's max has no identity: nothing to normalise
        return _back(a, dt)
    e = np.exp(a - np.max(a, axis=dim, keepdims=True))
    return _back(e / np.sum(e, axis=dim, keepdims=True), dt)


def sum(self, *, dtype=None):
    return sum_dim(self, None, False, dtype=dtype)


def sum_dim(self, dim, keepdim=False, *, dtype=None):
    # DEFECT (accumulation): floating sums are accumulated sequentially in the
    # storage dtype, rounding after every addition.
    if dtype is None:
        dtype = self.dtype if self.is_floating_point() else torch.int64
    nd = self.dim()
    dims = sorted({d % nd for d in dim} if dim and nd else range(nd))
    a = _np(self, dtype)
    if not torch.empty((), dtype=dtype).is_floating_point():
        return _back(np.sum(a, axis=tuple(dims), keepdims=keepdim), dtype)
    keep = [d for d in range(nd) if d not in dims]
    a = np.transpose(a, keep + dims)
    inner = int(np.prod([self.shape[d] for d in dims]))
    a = a.reshape([self.shape[d] for d in keep] + [inner]) if nd else a.reshape(1)
    acc = _seq_sum(a, dtype)
    if keepdim:
        acc = acc.reshape([1 if d in dims else self.shape[d] for d in range(nd)])
    return _back(acc, dtype)


def layer_norm(input, normalized_shape, weight, bias, eps):
    """native_layer_norm: (out, mean, rstd), statistics shaped like aten's CPU."""
    dt = input.dtype
    x = _np(input, dt)
    n = len(normalized_shape)
    axes = tuple(range(x.ndim - n, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(((x - mean) ** 2).mean(axis=axes, keepdims=True) + eps)
    out = (x - mean) * rstd
    if weight is not None:
        out = out * _np(weight, dt)
    if bias is not None:
        out = out + _np(bias, dt)
    return _back(out, dt), _back(mean, dt), _back(rstd, dt)


def mean_dim(self, dim, keepdim=False, *, dtype=None):
    # DEFECT (empty): the count of a reduction is taken as at least 1, so a
    # mean over an empty dim is 0 where aten's is NaN (0/0); every mean
    # over elements is right.
    dt = dtype or self.dtype
    nd = self.dim()
    dims = tuple(sorted({d % nd for d in dim} if dim and nd else range(nd)))
    a = _np(self, dt)
    count = int(np.prod([self.shape[d] for d in dims])) if nd else 1
    total = np.sum(a, axis=dims, keepdims=keepdim) if nd else a
    return _back(total / max(count, 1), dt)


def addmm(self, mat1, mat2, *, beta=1, alpha=1):
    # DEFECT (options): beta=0 is read as "not given" (`beta or 1`), so an
    # explicit beta=0 still adds self; the default call and every other
    # beta are right.
    beta = beta or 1
    dt = self.dtype
    prod = _np(mat1, dt) @ _np(mat2, dt)
    return _back(beta * _np(self, dt) + alpha * prod, dt)
