"""Figures and the hang case, without a library in the loop."""

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
