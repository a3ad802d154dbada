"""kernels/ on the device build: generation bit for bit equal to the host
build, oracles against torch's fp64 and against the host build (within fp64
rounding), the fused comparison equal to figures.py's figures.

Skips with the reason when there is no GPU or no device library (make builds
build/libopscreen_kernels.so where nvcc exists).  The "cpu" parameters run the
same checks on the host build; they also run here when the GPU suite runs.
"""
import os
import sys

import pytest

torch = pytest.importorskip("torch")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "probes"))

from opscreen_runner import figures, kernels  # noqa: E402

F64 = torch.float64


def _why_skip(device):
    if device == "cuda":
        if not torch.cuda.is_available():
            return "no CUDA GPU on this machine: device kernels not tested"
        if not kernels.available("cuda"):
            return "build/libopscreen_kernels.so missing (no nvcc at build time?)"
    elif not kernels.available("cpu"):
        return "build/libopscreen_kernels_host.so missing: run make"
    return None


DEVICES = [pytest.param(d, marks=pytest.mark.skipif(bool(_why_skip(d)),
                                                    reason=_why_skip(d) or ""))
           for d in ("cpu", "cuda")]
NEED_GPU = pytest.mark.skipif(bool(_why_skip("cuda")), reason=_why_skip("cuda") or "")


def rnd(shape, dtype=torch.float32, seed=0, scale=1.0, lo=None):
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        x = torch.randn(shape, generator=g, dtype=F64) * scale
        if lo is not None:
            x = x.abs() + lo
        return x.to(dtype)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    return torch.randint(-50, 50, shape, generator=g).to(dtype)


def _up(v):
    if isinstance(v, torch.Tensor):
        return v.to(F64) if v.is_floating_point() else v
    if isinstance(v, (list, tuple)):
        return type(v)(_up(x) for x in v)
    return v


def _to(v, device):
    if isinstance(v, torch.Tensor):
        return v.to(device)
    if isinstance(v, (list, tuple)):
        return type(v)(_to(x, device) for x in v)
    return v


BF, H, F = torch.bfloat16, torch.float16, torch.float32
X = rnd([37, 53], BF)
P = rnd([37, 53], H, 1, lo=0.1)

# (key, args, kwargs): every oracle family, small shapes, odd sizes, broadcast
CASES = [(k, [X], {}) for k in (
    "abs.default", "neg.default", "exp.default", "exp2.default", "expm1.default",
    "sin.default", "cos.default", "tan.default", "tanh.default", "sigmoid.default",
    "silu.default", "erf.default", "erfc.default", "reciprocal.default", "atan.default",
    "sinh.default", "cosh.default", "asinh.default", "relu.default", "floor.default",
    "ceil.default", "round.default", "trunc.default", "frac.default", "sign.default",
    "hardsigmoid.default", "hardswish.default", "selu.default", "mish.default",
    "lgamma.default", "square.default")]
CASES += [(k, [P], {}) for k in (
    "log.default", "log2.default", "log10.default", "log1p.default", "sqrt.default",
    "rsqrt.default", "acosh.default")]
CASES += [
    ("sort.default", [X, 1, False], {}),
    ("sort.stable", [X], {"stable": True, "dim": 0, "descending": True}),
    ("argsort.default", [X, -1, True], {}), ("topk.default", [X, 7, 1, True, True], {}),
    ("topk.default", [X, 5, 0, False, True], {}),
    ("gelu.default", [X], {}), ("gelu.default", [X], {"approximate": "tanh"}),
    ("elu.default", [X, 1.5], {}), ("leaky_relu.default", [X, 0.2], {}),
    ("hardtanh.default", [X, -0.5, 0.5], {}), ("softplus.default", [X, 2.0, 3.0], {}),
    ("celu.default", [X, 0.7], {}), ("clamp.default", [X, -0.3, None], {}),
    ("clamp.default", [X, None, 0.4], {}), ("isnan.default", [X], {}),
    ("add.Tensor", [X, rnd([53], BF, 2)], {"alpha": 0.5}),
    ("sub.Tensor", [X, rnd([37, 1], F, 3)], {}), ("mul.Tensor", [X, 3.5], {}),
    ("div.Tensor", [X, P], {}), ("div.Tensor_mode", [X, P], {"rounding_mode": "floor"}),
    ("div.Tensor_mode", [X, P], {"rounding_mode": "trunc"}),
    ("pow.Tensor_Tensor", [P, X], {}), ("pow.Tensor_Scalar", [X, 3], {}),
    ("pow.Scalar", [2.0, X], {}), ("maximum.default", [X, P], {}),
    ("minimum.default", [X, P], {}), ("atan2.default", [X, P], {}),
    ("remainder.Tensor", [X, P], {}), ("fmod.Tensor", [X, P], {}),
    ("hypot.default", [X, P], {}), ("xlogy.Tensor", [X, P], {}),
    ("logaddexp.default", [X, P], {}), ("copysign.Tensor", [P, X], {}),
    ("eq.Tensor", [X, X.flip(0)], {}), ("lt.Scalar", [X, 0.1], {}),
    ("rsub.Scalar", [X, 2.0], {}), ("floor_divide.default", [X, P], {}),
    ("add.Tensor", [rnd([5, 7], torch.int32, 4), rnd([7], torch.int32, 5)], {}),
    ("where.self", [X > 0, X, P], {}), ("masked_fill.Scalar", [X, X < 0, -2.5], {}),
    ("addcmul.default", [X, P, X], {"value": 0.25}), ("addcdiv.default", [X, X, P], {}),
    ("lerp.Scalar", [X, P, 0.3], {}), ("lerp.Tensor", [X, P, rnd([53], BF, 6)], {}),
    ("clamp.Tensor", [X, rnd([53], BF, 7), None], {}),
    ("sum.default", [X], {}), ("sum.dim_IntList", [X, [1]], {}),
    ("sum.dim_IntList", [X, [0], True], {}), ("mean.dim", [X, [0, 1]], {}),
    ("prod.dim_int", [P, 1], {}), ("amax.default", [X, [1]], {}),
    ("amin.default", [X, [0]], {}), ("var.correction", [X, [1]], {"correction": 0}),
    ("var.correction", [X, [0]], {}), ("std.correction", [X, [1]], {"keepdim": True}),
    ("norm.ScalarOpt_dim", [X, 2, [1]], {}), ("norm.ScalarOpt_dim", [X, 3, [0]], {}),
    ("linalg_vector_norm.default", [X, float("inf"), [1]], {}),
    ("argmax.default", [X, 1], {}), ("argmin.default", [X], {}),
    ("max.dim", [X, 1], {}), ("min.dim", [X, 0, True], {}), ("max.default", [X], {}),
    ("all.dim", [X > -1, 1], {}), ("any.dim", [X > 2, 0], {}),
    ("logsumexp.default", [X, [1]], {}), ("sum.dim_IntList", [rnd([64, 4096], BF, 8), [1]], {}),
    ("_softmax.default", [X, 1, False], {}), ("_softmax.default", [X, 0, False], {}),
    ("_log_softmax.default", [X, 1, False], {}), ("softmax.int", [X, -1], {}),
    ("cumsum.default", [X, 1], {}), ("cumsum.default", [X, 0], {}),
    ("cumprod.default", [P, 1], {}), ("cummax.default", [X, 1], {}),
    ("cummin.default", [X, 0], {}),
    ("layer_norm.default", [X, [53], rnd([53], BF, 9), rnd([53], BF, 10)], {}),
    ("native_layer_norm.default", [rnd([4, 6, 10], F, 11), [6, 10], None, None, 1e-5], {}),
    ("rms_norm.default", [X, [53], rnd([53], BF, 12)], {"eps": 1e-6}),
    ("group_norm.default", [rnd([3, 8, 5, 5], F, 13), 4, rnd([8], F, 14), rnd([8], F, 15)], {}),
    ("native_group_norm.default", [rnd([3, 8, 25], F, 16), None, None, 3, 8, 25, 2, 1e-5],
     {}),
    ("mm.default", [rnd([33, 65], BF, 17), rnd([65, 17], BF, 18)], {}),
    ("mm.default", [rnd([64, 32], F, 19).t(), rnd([64, 16], F, 20)], {}),
    ("bmm.default", [rnd([3, 9, 12], H, 21), rnd([3, 12, 5], H, 22)], {}),
    ("addmm.default", [rnd([17], F, 23), rnd([9, 31], F, 24), rnd([31, 17], F, 25)],
     {"beta": 0.5, "alpha": 2.0}),
    ("baddbmm.default", [rnd([2, 4, 6], F, 26), rnd([2, 4, 7], F, 27), rnd([2, 7, 6], F, 28)],
     {}),
    ("mv.default", [rnd([12, 40], BF, 29), rnd([40], BF, 30)], {}),
    ("addmv.default", [rnd([12], F, 31), rnd([12, 40], F, 32), rnd([40], F, 33)], {}),
    ("outer.default", [rnd([7], BF, 34), rnd([9], BF, 35)], {}),
    ("dot.default", [rnd([100], F, 36), rnd([100], F, 37)], {}),
    ("gather.default", [X, 1, torch.randint(0, 53, (37, 11))], {}),
    ("index_select.default", [X, 0, torch.tensor([3, 0, 36, 3])], {}),
    ("cat.default", [[X, P[:5]], 0], {}), ("cat.default", [[X[:, :3], P[:, 7:]], 1], {}),
    ("stack.default", [[X, P], 1], {}),
    ("repeat_interleave.self_int", [X[:4], 3, 1], {}),
    ("cat.default", [[rnd([3, 4], torch.int32, 38), rnd([2, 4], torch.int32, 39)]], {}),
]


def _ids():
    seen = {}
    out = []
    for k, _, _ in CASES:
        seen[k] = seen.get(k, 0) + 1
        out.append(f"{k}#{seen[k]}")
    return out


def torch_oracle(key, args, kwargs):
    op = kernels._resolve(key)
    return op(*_up(args), **_up(kwargs))


def _flat(v):
    return list(v) if isinstance(v, (tuple, list)) else [v]


# Seen on the H200 (torch 2.11+cu130): the CUDA float64 kernels of these
# ops scale by a float32 1/6, 3e-8 off; kernels/ computes in fp64. The
# runner's cross-check reports such cases as oracle faults.
TORCH_CUDA_FP64_OFF = {"hardsigmoid.default", "hardswish.default"}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", CASES, ids=_ids())
def test_oracle_matches_torch_fp64(device, case):
    key, args, kwargs = case
    if device == "cuda" and str(key) in TORCH_CUDA_FP64_OFF:
        pytest.xfail("torch's CUDA fp64 kernel rounds 1/6 through float32")
    args, kwargs = _to(args, device), _to(kwargs, device)
    mine = kernels.oracle(key, args, kwargs)
    assert mine is not None, f"no kernels oracle for {key}"
    ref = torch_oracle(key, args, kwargs)
    for a, b in zip(_flat(mine), _flat(ref)):
        assert a.shape == b.shape, (key, a.shape, b.shape)
        if b.is_floating_point():
            agree = kernels.oracle_agreement(a, b)
            # VERDICT_ORACLE_REL (daemon/verdict.h) is the daemon's
            assert agree["nonfinite"] == 0 and agree["max_rel"] <= 2.0 ** -40, (key, agree)
        elif key.split(".")[0] in kernels.SORTS:
            # ties may be ordered either way; the picked values may not
            dim = kwargs.get("dim", args[2] if key.startswith("topk") else
                             args[1] if len(args) > 1 else -1)
            x = args[0].cpu()
            assert torch.equal(x.gather(dim, a.cpu()), x.gather(dim, b.cpu())), key
        else:
            assert torch.equal(a.to(b.dtype).cpu(), b.cpu()), key


@NEED_GPU
@pytest.mark.parametrize("case", CASES, ids=_ids())
def test_oracle_host_equals_device(case):
    key, args, kwargs = case
    host = kernels.oracle(key, args, kwargs)
    dev = kernels.oracle(key, _to(args, "cuda"), _to(kwargs, "cuda"))
    for a, b in zip(_flat(dev), _flat(host)):
        if b.is_floating_point():
            agree = kernels.oracle_agreement(a.cpu(), b)
            assert agree["nonfinite"] == 0 and agree["max_rel"] <= 2.0 ** -40, key
        else:
            assert torch.equal(a.cpu(), b), key


GEN = [("normal", "float32"), ("normal", "bfloat16"), ("uniform", "float16"),
       ("positive", "float64"), ("nonzero", "float32"), ("int", "int32"),
       ("int", "int8"), ("index", "int64"), ("bool", "bool"), ("arange", "float32"),
       ("bits", "float8_e4m3fn"), ("bits", "float8_e5m2"), ("bits", "float8_e8m0fnu"),
       ("edge", "bfloat16"), ("edge", "float8_e4m3fn"), ("edge", "int16"),
       ("normal", "float8_e5m2"), ("bits", "uint8")]


def _spec(domain, dtype, shape=(301, 7)):
    s = {"t": "tensor", "shape": list(shape), "dtype": dtype, "domain": domain}
    if domain == "index":
        s["high"] = 1000
    return s


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("domain,dtype", GEN)
def test_generation_reproducible(device, domain, dtype):
    a = kernels.generate(_spec(domain, dtype), 1234567, 2, device)
    b = kernels.generate(_spec(domain, dtype), 1234567, 2, device)
    c = kernels.generate(_spec(domain, dtype), 1234568, 2, device)
    assert kernels.digest(a) == kernels.digest(b)
    if domain != "arange":
        assert kernels.digest(a) != kernels.digest(c)
    assert a.dtype == getattr(torch, dtype) and list(a.shape) == [301, 7]


@NEED_GPU
@pytest.mark.parametrize("domain,dtype", GEN)
def test_generation_host_equals_device_bitwise(domain, dtype):
    spec = _spec(domain, dtype, (1000, 33))
    h = kernels.generate(spec, 42, 1, "cpu")
    d = kernels.generate(spec, 42, 1, "cuda").cpu()
    assert torch.equal(h.view(torch.uint8), d.view(torch.uint8))
    assert kernels.digest(h) == kernels.digest(d.cuda())


def test_generation_statistics():
    x = kernels.generate(_spec("normal", "float64", (200000,)), 7, 0, "cpu")
    assert abs(x.mean().item()) < 0.01 and abs(x.std().item() - 1) < 0.01
    u = kernels.generate({"shape": [100000], "dtype": "float32", "domain": "uniform",
                          "low": 2, "high": 3}, 7, 1, "cpu")
    assert u.min().item() >= 2 and u.max().item() < 3
    i = kernels.generate({"shape": [100000], "dtype": "int64", "domain": "index",
                          "high": 10}, 7, 2, "cpu")
    assert set(i.unique().tolist()) == set(range(10))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_exhaustive16(device, dtype):
    x = kernels.exhaustive16(dtype, device)
    bits = x.view(torch.int16).to(torch.int32).cpu() & 0xffff
    assert torch.equal(bits, torch.arange(65536, dtype=torch.int32))


def _crafted(dtype, device, n=4099, seed=0):
    o = torch.randn(n, generator=torch.Generator().manual_seed(seed), dtype=F64)
    o[5], o[9], o[11], o[13] = float("nan"), float("inf"), -float("inf"), 0.0
    o[20] = 1e-9  # below the floor 2^-10 max|O|
    o[30] = 70000.0                # inf in float16 (and the float8s)
    o[31] = 3.4028236e38           # inf in float32 and bfloat16, below 2^128
    c = o.clone()
    c[9] = float("nan")            # inf position missed
    c[20] = 3e-3                   # error measured in ULPs at the floor
    c[31] = 1.0                    # finite where round_D(O) is inf
    c[100] = c[100] * 1.01
    c = c.to(dtype)
    nat = (o * (1 + 2 ** -9)).to(dtype)
    return c.to(device), nat.to(device), o.to(device)


FIG_KEYS = ("R", "oracle_max", "err_abs_c", "err_abs_n", "err_ulp_c", "err_ulp_n",
            "nonfinite_mismatch_c", "nonfinite_mismatch_n")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32,
                                   torch.float64, torch.float8_e4m3fn, torch.float8_e5m2])
def test_compare_float_equals_figures(device, dtype):
    c, n, o = _crafted(dtype, device)
    want = figures.float_figures(c, n, o, n.dtype)
    got = kernels.compare(c, n, o, "float")
    for k in FIG_KEYS:
        assert got[k] == want[k], (k, got[k], want[k])
    assert got["worst_c"] == want["worst_c"]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32])
def test_compare_noncontiguous_and_empty(device, dtype):
    c, n, o = _crafted(dtype, device, 64 * 48)
    o = o.reshape(48, 64)
    c = c.reshape(48, 64).t().contiguous().t()          # column-major
    n = torch.stack([n.reshape(48, 64)] * 2, -1).reshape(48, 128)[:, ::2]  # stride 2
    c2 = c.contiguous()
    want = figures.float_figures(c2, n, o, n.dtype)
    got = kernels.compare(c, n, o, "float", digest=True)
    for k in FIG_KEYS:
        assert got[k] == want[k], k
    assert got["worst_c"] == want["worst_c"]
    assert got["digest_c"] == kernels.compare(c2, n, o, "float", digest=True)["digest_c"]
    assert "digest_c" not in kernels.compare(c2, n, o, "float")  # the runner's call
    e = torch.empty(0, 3, dtype=torch.float32, device=device)
    got = kernels.compare(e, e, e.double(), "float")
    assert got["err_abs_c"] == 0 and "worst_c" not in got


@pytest.mark.parametrize("device", DEVICES)
def test_compare_exact_and_ties(device):
    o = torch.arange(1000, dtype=torch.int64, device=device) % 17
    c = o.to(torch.int32).clone()
    c[[7, 500]] = -1
    n = o.to(torch.int32)
    want = figures.exact_figures(c, n, o.to(n.dtype))
    got = kernels.compare(c, n, o, "exact")
    assert got["mismatch_c"] == want["mismatch_c"] == 2
    assert got["first_bad_c"] == want["first_bad_c"] == [7]
    assert got["mismatch_n"] == 0
    inp = torch.tensor([[3.0, 1.0, 3.0, 2.0], [5.0, 5.0, 0.0, float("nan")]], device=device)
    values, _ = inp.sort(dim=1, descending=True)
    idx_c = torch.tensor([[2, 0, 3, 1], [3, 1, 0, 2]], device=device)  # ties swapped
    idx_n = torch.tensor([[0, 2, 3, 1], [3, 0, 1, 1]], device=device)  # one wrong
    want = figures.index_figures(idx_c, idx_n, inp, 1, values)
    got = kernels.compare(idx_c, idx_n, None, "sort_indices", inp=inp, dim=1, values=values)
    assert got["mismatch_c"] == want["mismatch_c"] == 0
    assert got["mismatch_n"] == want["mismatch_n"] == 1


def _layouts(c, n, o, layout):
    """(c, n, o) as contiguous, strided (every other element of a buffer) or
    contiguous at an address not 16-byte aligned (device: no vector loads)."""
    if layout == "strided":
        return tuple(torch.stack([t, t], -1)[..., 0] for t in (c, n, o))
    if layout == "unaligned":
        return tuple(torch.cat([t[:1], t])[1:] for t in (c, n, o))
    return c, n, o


# the fast path (dtype-specialised, vector loads where contiguous and aligned)
# against the per-element dispatch of every dtype, on the same inputs
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32,
                                   torch.float64])
@pytest.mark.parametrize("layout", ["contiguous", "strided", "unaligned"])
@pytest.mark.parametrize("tol", [None, (1e-2, 2.0)])
def test_compare_fast_equals_generic(device, dtype, layout, tol):
    c, n, o = _layouts(*_crafted(dtype, device, 100_003, seed=5), layout)
    fast = kernels.compare(c, n, o, "float", tol=tol, digest=True)
    slow = kernels.compare(c, n, o, "float", tol=tol, digest=True, generic=True)
    assert fast == slow
    want = figures.float_figures(c, n, o, n.dtype)
    for k in FIG_KEYS:
        assert fast[k] == want[k], k
    assert fast["worst_c"] == want["worst_c"]


@pytest.mark.parametrize("device", DEVICES)
def test_compare_mixed_dtypes(device):
    """C of another dtype than N: the per-element dispatch path."""
    c, n, o = _crafted(torch.bfloat16, device)
    c = c.to(torch.float32)
    want = figures.float_figures(c, n, o, n.dtype)
    got = kernels.compare(c, n, o, "float")
    for k in FIG_KEYS:
        assert got[k] == want[k], k
    assert got["worst_c"] == want["worst_c"]


@NEED_GPU
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32])
@pytest.mark.parametrize("tol", [None, (1e-2, 2.0)])
def test_compare_host_equals_device_large(dtype, tol):
    c, n, o = _crafted(dtype, "cpu", 3_000_001, seed=3)
    h = kernels.compare(c, n, o, "float", tol=tol, digest=True)
    d = kernels.compare(c.cuda(), n.cuda(), o.cuda(), "float", tol=tol, digest=True)
    assert h == d
