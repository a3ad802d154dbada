"""Figures and the hang case, without a library in the loop."""

import json
import signal
import os

import torch

from runner_harness import Runner, make_case, tensor

from opscreen_runner import figures, inputs


def test_ulp_floor_and_R():
    o = torch.tensor([1.0, 1e-6, -3.0], dtype=torch.float64)
    c = o.to(torch.bfloat16)
    rec = figures.float_figures(c, c, o, torch.bfloat16)
    assert rec["R"] == rec["err_abs_c"] == rec["err_abs_n"]
    assert rec["oracle_max"] == 3.0
    # 1e-6 is measured in ULPs at 2^-10 * 3, so rounding it costs well below 1 ULP
    assert rec["err_ulp_c"] <= 0.5


def test_nonfinite_mismatch():
    o = torch.tensor([1.0, float("nan"), float("inf")], dtype=torch.float64)
    c = torch.tensor([float("nan"), float("nan"), float("-inf")], dtype=torch.float32)
    rec = figures.float_figures(c, o.float(), o, torch.float32)
    assert rec["nonfinite_mismatch_c"] == 2 and rec["nonfinite_mismatch_n"] == 0
    assert rec["err_abs_c"] == 0.0  # non-finite positions are counted, not measured


def test_nonfinite_as_native():
    """NaN/inf where the exact result has none (or the reverse) is excused
    only where the candidate returns exactly native's value."""
    inf, nan = float("inf"), float("nan")
    # an fp32 overflow the fp64 oracle does not have; a D-dependent default
    # (nan_to_num's posinf is D's max: round_D of fp64's max is inf)
    o = torch.tensor([1e39, 1e39, 1.7e308, 1.7e308, 2.0], dtype=torch.float64)
    n = torch.tensor([inf, inf, 3.4028235e38, 3.4028235e38, 2.0])
    c = torch.tensor([inf, nan, 3.4028235e38, 0.0, 2.0])
    case = {"compare": "float"}
    op = inputs.resolve_op("abs")
    out, = figures.compare(case, op, [], {}, c, n, o)
    # round_D(1e39) = inf: position 0 agrees; 1 (NaN), 2 and 3 (finite) do not
    assert out["nonfinite_mismatch_c"] == 3 and out["nonfinite_mismatch_n"] == 2
    assert out["nonfinite_as_native_c"] == 1  # position 2: native's value
    # without a mismatch there is nothing to excuse and no extra work
    o = o.clamp(max=1e30)
    out, = figures.compare(case, op, [], {}, o.float(), o.float(), o)
    assert out["nonfinite_mismatch_c"] == 0 and "nonfinite_as_native_c" not in out


def test_nonfinite_at_input():
    """The NaN/inf mismatches that sit where an input of the output's shape
    (or a broadcast one, or a Python float) is NaN/inf; absent when no input
    maps onto the output."""
    inf, nan = float("inf"), float("nan")
    x = torch.tensor([nan, 1.0, inf, 4.0])
    o = x.double().sqrt()
    n = o.float()
    op = inputs.resolve_op("sqrt")
    case = {"compare": "float"}
    # a candidate that gives 0 for NaN and NaN for inf: both at non-finite inputs
    c = torch.tensor([0.0, 1.0, nan, 2.0])
    out, = figures.compare(case, op, [x], {}, c, n, o)
    assert out["nonfinite_mismatch_c"] == 2
    assert out["nonfinite_at_input_c"] == 2
    # one more NaN where the input is finite (4.0)
    c = torch.tensor([0.0, 1.0, nan, nan])
    out, = figures.compare(case, op, [x], {}, c, n, o)
    assert out["nonfinite_mismatch_c"] == 3 and out["nonfinite_at_input_c"] == 2
    # a broadcast input row: its NaN marks its whole column
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    b = torch.tensor([nan, 1.0])
    o = (a.double() + b.double())
    c = torch.tensor([[0.0, 3.0], [0.0, inf]])
    out, = figures.compare(case, inputs.resolve_op("add.Tensor"), [a, b], {},
                           c, o.float(), o)
    assert out["nonfinite_mismatch_c"] == 3 and out["nonfinite_at_input_c"] == 2
    # a Python float inf argument covers every position
    out, = figures.compare(case, inputs.resolve_op("add.Tensor"), [a, a],
                           {"alpha": inf}, c, o.float(), o)
    assert out["nonfinite_at_input_c"] == 3
    # an out= buffer full of NaN is not an input: the NaN it kept is not
    # excused by it
    o = x.double().sqrt()
    out, = figures.compare(case, op, [x], {"out": torch.full((4,), nan)},
                           torch.tensor([nan, 1.0, inf, nan]), o.float(), o)
    assert out["nonfinite_mismatch_c"] == 1 and out["nonfinite_at_input_c"] == 0
    # a reduction: no input has the output's shape, so no count at all
    s = torch.tensor([[nan, 1.0], [2.0, 3.0]])
    o = s.double().sum(1)
    c = torch.tensor([0.0, 5.0])
    out, = figures.compare(case, inputs.resolve_op("sum.dim_IntList"), [s, [1]],
                           {}, c, o.float(), o)
    assert out["nonfinite_mismatch_c"] == 1 and "nonfinite_at_input_c" not in out


def test_sort_indices_tie_aware():
    op = inputs.resolve_op("sort")
    x = torch.tensor([[2.0, 1.0, 2.0, 0.0]])
    native = op(x, 1, True)
    swapped = (native[0], native[1][:, [1, 0, 2, 3]])  # equal values, other order
    case = {"compare": "sort"}
    outs = figures.compare(case, op, [x, 1, True], {}, swapped, native,
                           op(x.double(), 1, True))
    assert [o["kind"] for o in outs] == ["sort_values", "sort_indices"]
    assert outs[0]["mismatch_c"] == 0 and outs[1]["mismatch_c"] == 0
    wrong = (native[0], native[1][:, [2, 1, 0, 3]])
    outs = figures.compare(case, op, [x, 1, True], {}, wrong, native,
                           op(x.double(), 1, True))
    assert outs[1]["mismatch_c"] == 2 and outs[1]["first_bad_c"] == [0, 0]


def test_tanh_hangs_until_killed():
    r = Runner()
    r.recv()
    r.sock.settimeout(3)
    r.send({"type": "case", "case": make_case(16, "tanh", "tanh",
                                              [tensor([8])])})
    assert r.recv()["type"] == "started"
    try:
        r.recv()
        raise AssertionError("tanh returned")
    except TimeoutError:
        pass
    os.killpg(r.proc.pid, signal.SIGKILL)  # what the daemon's deadline does
    r.close()


def test_same_bits_sees_nan_payloads_signed_zero_and_dtype():
    import torch
    from opscreen_runner.figures import same_bits
    a = torch.tensor([0.0, 1.0, float("nan")])
    assert same_bits(a, a.clone())
    assert not same_bits(a, torch.tensor([-0.0, 1.0, float("nan")]))
    assert not same_bits(a, a.to(torch.float64))
    assert not same_bits((a, a), (a,))
    assert same_bits(a.t() if a.dim() > 1 else a[::1], a.clone())
    c = torch.tensor([1 + 2j], dtype=torch.complex64)
    assert same_bits(c, c.clone()) and not same_bits(c, c.conj().resolve_conj())
    assert same_bits(torch.empty(0, 3), torch.empty(0, 3))


# The figures as they were computed before they were read back in one transfer
# (one .item() per figure): the reference the one-read versions must equal.
def _ref_float(c, n, o, dtype):
    p, tiny = figures.PRECISION[dtype]
    O = o.to(torch.float64)
    finite = torch.isfinite(O)
    absO = torch.where(finite, O.abs(), torch.zeros_like(O))
    omax = absO.max().item() if O.numel() else 0.0
    rounded = O.to(dtype).to(torch.float64)
    r = torch.where(finite & torch.isfinite(rounded), (rounded - O).abs(), torch.zeros_like(O))
    mag = torch.clamp(absO, min=2.0 ** -10 * omax)
    _, e = torch.frexp(mag)
    ulp = torch.ldexp(torch.ones_like(mag), e - p)
    ulp = torch.where(mag > 0, ulp.clamp(min=tiny), torch.full_like(mag, tiny))
    rec = {"R": r.max().item() if O.numel() else 0.0, "oracle_max": omax}
    for x, tag in ((c, "c"), (n, "n")):
        X = x.to(torch.float64)
        d = torch.where(finite & torch.isfinite(X), (X - O).abs(), torch.zeros_like(O))
        if O.numel():
            rec["err_abs_" + tag] = d.max().item()
            rec["err_ulp_" + tag] = (d / ulp).max().item()
        else:
            rec["err_abs_" + tag] = rec["err_ulp_" + tag] = 0.0
        rec["nonfinite_mismatch_" + tag] = int(
            ((torch.isnan(X) != torch.isnan(rounded)) | (torch.isposinf(X) != torch.isposinf(rounded))
             | (torch.isneginf(X) != torch.isneginf(rounded))).sum().item())
        if tag == "c" and O.numel():
            at = int(torch.argmax(d.reshape(-1)).item())
            rec["worst_c"] = {"index": figures._unravel(at, list(O.shape)),
                              "cand": X.reshape(-1)[at].item(),
                              "oracle": O.reshape(-1)[at].item()}
    return rec


def _ref_exact(c, n, ref):
    rec = {}
    for x, tag in ((c, "c"), (n, "n")):
        bad = figures._bad(x, ref)
        rec["mismatch_" + tag] = int(bad.sum().item())
        if tag == "c" and rec["mismatch_c"]:
            at = int(torch.nonzero(bad.reshape(-1))[0].item())
            rec["first_bad_c"] = figures._unravel(at, list(bad.shape))
    return rec


def _reads(fn, *args):
    """fn's result and how often it read a value off the tensors' device."""
    from torch.utils._python_dispatch import TorchDispatchMode
    reads = [0]

    class Count(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, a=(), kw=None):
            reads[0] += func._schema.name in ("aten::_local_scalar_dense", "aten::nonzero")
            return func(*a, **(kw or {}))
    tolist = torch.Tensor.tolist

    def counted(t):
        reads[0] += 1
        return tolist(t)
    torch.Tensor.tolist = counted
    try:
        with Count():
            out = fn(*args)
    finally:
        torch.Tensor.tolist = tolist
    return out, reads[0]


def _same(a, b):
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def test_figures_read_the_device_once_and_equal_the_per_figure_reads():
    g = torch.Generator().manual_seed(11)
    inf, nan = float("inf"), float("nan")
    edge = torch.tensor([0.0, -0.0, inf, -inf, nan, 1e-310, 7e38, -7e38, 1.0, 1.0],
                        dtype=torch.float64)
    os_ = [torch.randn(5, 7, generator=g, dtype=torch.float64), edge,
           torch.tensor(2.5, dtype=torch.float64), torch.zeros(4, dtype=torch.float64),
           torch.empty(0, 3, dtype=torch.float64), torch.full((6,), nan, dtype=torch.float64),
           torch.randn(8, 6, generator=g, dtype=torch.float64).t()]
    for o in os_:
        for dtype in (torch.bfloat16, torch.float16, torch.float32, torch.float64):
            n = o.to(dtype)
            c = (o * 1.01).to(dtype).contiguous()
            if o.numel() > 2:
                c.view(-1)[1] = nan
                c.view(-1)[-1] = n.reshape(-1)[-1]  # a tie for the worst position
            for cand in (c, n, torch.zeros_like(n)):
                got, reads = _reads(figures.float_figures, cand, n, o, dtype)
                assert _same(got, _ref_float(cand, n, o, dtype)), (o, dtype, got)
                assert reads == (1 if o.numel() else 0)
    for ref in (torch.tensor([1, 2, 3, 4, 5]), torch.tensor([[True, False], [False, True]]),
                torch.tensor(7), torch.empty(0, dtype=torch.int32),
                torch.tensor([1.0, nan, -0.0])):
        bad = ref.clone()
        if ref.numel() > 1:
            bad.view(-1)[1:] = bad.view(-1)[0]
        for c in (ref.clone(), bad):
            got, reads = _reads(figures.exact_figures, c, ref.clone(), ref)
            assert _same(got, _ref_exact(c, ref.clone(), ref)), (ref, got)
            assert reads == 1


def _ref_agreement(mine, ref, rel=2.0 ** -40):
    a, b = mine.to(torch.float64), ref.to(torch.float64)
    fa, fb = torch.isfinite(a), torch.isfinite(b)
    nf = int(((torch.isnan(a) != torch.isnan(b)) | (torch.isposinf(a) != torch.isposinf(b))
              | (torch.isneginf(a) != torch.isneginf(b))).sum().item())
    d = torch.where(fa & fb, (a - b).abs(), torch.zeros_like(a))
    scale = torch.where(fb, b.abs(), torch.zeros_like(b))
    smax = scale.max().item() if b.numel() else 0.0
    den = scale + smax
    r = torch.where(d == 0, torch.zeros_like(d), d / den)
    return {"max_rel": r.max().item() if d.numel() else 0.0,
            "max_abs": d.max().item() if d.numel() else 0.0, "nonfinite": nf}


def test_oracle_agreement_reads_once_and_equals_the_per_figure_reads():
    from opscreen_runner import kernels
    inf, nan = float("inf"), float("nan")
    b = torch.tensor([1.0, -2.0, 0.0, inf, nan, 1e300, 3.0], dtype=torch.float64)
    for a in (b.clone(), b * (1 + 2.0 ** -45), b * (1 + 2.0 ** -30),
              torch.where(b.isnan(), 0.0, b), torch.full_like(b, nan)):
        got, reads = _reads(kernels.oracle_agreement, a, b)
        assert _same(got, _ref_agreement(a, b)) and reads == 1, (a, got)
    e = torch.empty(0, 2, dtype=torch.float64)
    got, reads = _reads(kernels.oracle_agreement, e, e)
    assert _same(got, _ref_agreement(e, e)) and reads == 0
