"""The ARG forms of issue 3 (docs/protocol.md): layouts, out buffers, devices,
memory formats, exotic dtypes and edge values, built by inputs.py directly."""

import math
import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "probes"))
from opscreen_runner import inputs  # noqa: E402


def t(shape, dtype="float32", **kw):
    return dict(t="tensor", shape=shape, dtype=dtype, **kw)


def build(spec, seed=7, index=0):
    return inputs.build_arg(spec, seed, index, "cpu")


def test_layouts_have_their_strides():
    tr = build(t([3, 5], layout="transposed"))
    assert tr.shape == (3, 5) and tr.stride() == (1, 3)
    sl = build(t([3, 5], layout="sliced"))
    assert sl.shape == (3, 5) and sl.stride() == (10, 2)
    ex = build(t([4, 5], layout="expanded", base=[1, 5]))
    assert ex.shape == (4, 5) and ex.stride() == (0, 1)
    assert torch.equal(ex[0], ex[3])
    cl = build(t([2, 3, 4, 5], layout="channels_last"))
    assert cl.is_contiguous(memory_format=torch.channels_last) and not cl.is_contiguous()
    # channels_last keeps the logical values of the contiguous build
    assert torch.equal(cl, build(t([2, 3, 4, 5])))


@pytest.mark.parametrize("bad", [
    t([2, 3], layout="diagonal"),
    t([4, 5], layout="expanded", base=[2, 5]),
    t([4, 5], layout="expanded", base=[5]),
    t([4, 5], layout="expanded"),
])
def test_bad_layouts_are_errors(bad):
    with pytest.raises(ValueError):
        build(bad)


def test_same_case_same_bytes():
    for spec in (t([9, 4], "bfloat16", layout="sliced"), t([6], "complex64"),
                 t([17], "float16", domain="edge"), t([8], "float8_e8m0fnu",
                                                     domain="positive")):
        a, b = build(spec), build(spec)
        assert a.dtype == inputs.to_dtype(spec["dtype"])
        a, b = a.contiguous(), b.contiguous()
        if a.dtype == torch.complex64:
            a, b = torch.view_as_real(a), torch.view_as_real(b)
        assert a.view(torch.uint8).equal(b.view(torch.uint8))


def test_out_buffer_shows_unwritten_elements():
    o = build({"t": "out", "shape": [2, 3], "dtype": "float16"})
    assert o.shape == (2, 3) and torch.isnan(o).all()
    i = build({"t": "out", "shape": [4], "dtype": "int32"})
    assert (i == 2 ** 31 - 1).all()
    with pytest.raises(ValueError):
        build({"t": "out", "shape": [-1], "dtype": "float32"})


def test_device_and_memory_format():
    assert build({"t": "device"}) == torch.device("cpu")
    assert build({"t": "memory_format", "v": "channels_last"}) is torch.channels_last
    with pytest.raises(ValueError):
        build({"t": "memory_format", "v": "sideways"})


def test_tensor_list_may_hold_none():
    v = build({"t": "tensors", "v": [{"t": "none"}, t([3], "int64", domain="index",
                                                      high=4)]})
    assert v[0] is None and v[1].dtype == torch.int64 and (v[1] < 4).all()


def test_edge_values_hold_every_special_value():
    x = build(t([4096], "float32", domain="edge")).to(torch.float64)
    assert torch.isnan(x).any() and torch.isposinf(x).any() and torch.isneginf(x).any()
    fi = torch.finfo(torch.float32)
    assert (x == fi.max).any() and (x == -fi.max).any()
    assert ((x != 0) & (x.abs() < fi.tiny)).any(), "no subnormal"
    zeros = x[x == 0]
    assert any(math.copysign(1.0, float(z)) < 0 for z in zeros), "no -0"
    assert any(math.copysign(1.0, float(z)) > 0 for z in zeros), "no +0"
    i = build(t([512], "int8", domain="edge"))
    assert (i == -128).any() and (i == 127).any()


def test_regenerated_edge_values_are_sparser():
    """A regenerated case's edge_frac (seed_reseed halves it per attempt)
    thins the special values: NaN through a convolution's ~100 inputs per
    output no longer makes every output NaN."""
    def nonfinite(frac):
        kw = {} if frac is None else {"edge_frac": frac}
        x = build(t([65536], "float32", domain="edge", **kw))
        return int((~torch.isfinite(x)).sum())
    dense, thin = nonfinite(None), nonfinite(0.5 / 2 ** 6)
    assert dense == nonfinite(0.5)  # the default is half
    # 3 of the 14 float32 special values are NaN/inf: ~1/9 of the elements,
    # then ~1/600
    assert 0.1 < dense / 65536 < 0.15
    assert 0 < thin / 65536 < 0.004


def test_out_and_self_mutation_get_private_copies():
    a = build(t([3]))
    out = build({"t": "out", "shape": [3], "dtype": "float32"})
    args, kwargs, w = inputs.fresh([a], {"out": out}, "out")
    assert w is kwargs["out"] and w is not out and args[0] is a
    args, kwargs, w = inputs.fresh([a], {}, "self")
    assert w is args[0] and w is not a
    assert inputs.mutated({"inplace": True}) == "self"
    assert inputs.mutated({"mutates": "out"}) == "out"
    assert inputs.mutated({"mutates": "everything"}) is None


def test_upcast_complex_and_e8m0():
    c = build(t([4], "complex64"))
    assert inputs.upcast(c).dtype == torch.complex128
    assert inputs.upcast(torch.complex64) == torch.complex128
    e = build(t([4], "float8_e8m0fnu", domain="positive"))
    assert inputs.upcast(e).dtype == torch.float64


def _gen(seed=7, index=0):
    return inputs._generator(seed, index)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float8_e4m3fn"])
def test_draw_2_draws_narrow_floats_in_float32(dtype):
    """A tensor ARG of draw 2 (what the daemon's generators make) whose dtype
    is a float of at most 32 bits is drawn in float32 and cast once; one
    without "draw" (a case stored earlier) gives the float64 draw's bytes,
    as it did when it was stored; either way the same case, the same bytes."""
    dt = getattr(torch, dtype)
    new = build(t([64, 33], dtype, draw=2))
    assert new.dtype == dt
    assert torch.equal(new.view(torch.uint8),
                       torch.randn([64, 33], generator=_gen(), dtype=torch.float32)
                       .to(dt).view(torch.uint8))
    assert torch.equal(new.view(torch.uint8), build(t([64, 33], dtype, draw=2)).view(torch.uint8))
    old = build(t([64, 33], dtype))
    assert torch.equal(old.view(torch.uint8),
                       torch.randn([64, 33], generator=_gen(), dtype=torch.float64)
                       .to(dt).view(torch.uint8))
    # uniform and positive in their ranges, nonzero away from 0, edge's specials kept
    u = build(t([4096], dtype, draw=2, domain="uniform", low=-3.0, high=5.0)).double()
    assert -3.0 <= u.min() and u.max() <= 5.0 and u.std() > 1.5
    nz = build(t([4096], dtype, draw=2, domain="nonzero")).double()
    assert nz.abs().min() >= 0.24
    e = build(t([4096], dtype, draw=2, domain="edge")).double()
    assert e.isnan().any() and (e == 0).any()


def test_draw_2_leaves_float64_and_integers_as_they_were():
    for dtype in ("float64", "int32", "bool", "complex64"):
        assert torch.equal(build(t([5, 7], dtype, draw=2)), build(t([5, 7], dtype)))
    f = build(t([5, 7], "float64", draw=2))
    assert torch.equal(f, torch.randn([5, 7], generator=_gen(), dtype=torch.float64))

