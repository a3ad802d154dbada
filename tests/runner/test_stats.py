"""The random-op tests of stats.py on samples with known distributions: a
correct sampler passes at ALPHA, a wrong one is rejected, rounding to 16 bits
alone is not read as a wrong distribution."""
import os
import re
import sys

import pytest
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "probes"))
from opscreen_runner import inputs, stats  # noqa: E402

# the level is the daemon's: VERDICT_STAT_ALPHA in daemon/verdict.h
with open(os.path.join(os.path.dirname(__file__), "..", "..", "daemon", "verdict.h")) as f:
    ALPHA = float(re.search(r"#define VERDICT_STAT_ALPHA\s+(\S+)", f.read()).group(1))

N = 1 << 17


def gen(seed=1):
    g = torch.Generator()
    g.manual_seed(seed)
    return g


def run(key, args, kwargs, out):
    op = inputs.resolve_op(key)
    return stats.figures({"key": key}, op, args, kwargs, out)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
def test_uniform_passes_and_skew_fails(dtype):
    u = torch.rand(N, generator=gen(), dtype=torch.float64)
    good = (-2 + 5 * u).to(dtype)
    bad = (-2 + 5 * u ** 1.3).to(dtype)
    x = torch.empty(N, dtype=dtype)
    _, _, p = run("uniform_", [x, -2.0, 3.0], {}, good)
    assert p >= ALPHA, p
    _, _, p = run("uniform_", [x, -2.0, 3.0], {}, bad)
    assert p < 1e-12, p
    # a sampler that ignores `from` is caught as well
    _, _, p = run("uniform_", [x, -2.0, 3.0], {}, (3 * u).to(dtype))
    assert p < 1e-12


def test_normal_with_tensor_parameters():
    mean = torch.linspace(-3, 3, N, dtype=torch.float64)
    std = torch.full((N,), 2.0, dtype=torch.float64)
    z = torch.randn(N, generator=gen(2), dtype=torch.float64)
    _, _, p = run("normal.Tensor_Tensor", [mean, std], {}, mean + std * z)
    assert p >= ALPHA
    _, _, p = run("normal.Tensor_Tensor", [mean, std], {}, mean + 1.5 * z)
    assert p < 1e-12
    _, _, p = run("normal_", [torch.empty(N), 1.0, 0.5], {}, 1.0 + 0.5 * z)
    assert p >= ALPHA


def test_exponential_and_bernoulli():
    u = torch.rand(N, generator=gen(3), dtype=torch.float64)
    _, _, p = run("exponential_", [torch.empty(N), 2.0], {}, -torch.log1p(-u) / 2.0)
    assert p >= ALPHA
    _, _, p = run("exponential_", [torch.empty(N), 2.0], {}, -torch.log1p(-u))
    assert p < 1e-12
    ones = (u < 0.3).to(torch.float32)
    _, _, p = run("bernoulli_.float", [torch.empty(N), 0.3], {}, ones)
    assert p >= ALPHA
    _, _, p = run("bernoulli_.float", [torch.empty(N), 0.35], {}, ones)
    assert p < 1e-12
    _, _, p = run("bernoulli_.float", [torch.empty(N), 0.3], {}, ones * 2)
    assert p == 0.0


def test_dropout_checks_mask_rate_and_scaling():
    x = torch.randn(N, generator=gen(4))
    keep = torch.rand(N, generator=gen(5)) >= 0.25
    y = torch.where(keep, x / 0.75, torch.zeros_like(x))
    _, _, p = run("native_dropout", [x, 0.25, True], {}, (y, keep))
    assert p >= ALPHA
    _, _, p = run("native_dropout", [x, 0.25, True], {}, (torch.where(keep, x, 0 * x), keep))
    assert p == 0.0, "unscaled kept values must fail"
    keep2 = torch.rand(N, generator=gen(5)) >= 0.5
    _, _, p = run("native_dropout", [x, 0.25, True], {},
                  (torch.where(keep2, x / 0.75, 0 * x), keep2))
    assert p < 1e-12


def test_multinomial_and_randperm():
    probs = torch.tensor([0.1, 0.2, 0.3, 0.4], dtype=torch.float64).repeat(2048, 1)
    draws = torch.multinomial(probs, 8, replacement=True, generator=gen(6))
    _, _, p = run("multinomial", [probs, 8, True], {}, draws)
    assert p >= ALPHA
    _, _, p = run("multinomial", [probs, 8, True], {}, 3 - draws)
    assert p < 1e-12
    norep = torch.multinomial(probs, 3, replacement=False, generator=gen(7))
    _, _, p = run("multinomial", [probs, 3, False], {}, norep)
    assert p >= ALPHA
    dup = norep.clone()
    dup[:, 1] = dup[:, 0]
    _, _, p = run("multinomial", [probs, 3, False], {}, dup)
    assert p == 0.0
    perm = torch.randperm(50000, generator=gen(8))
    _, _, p = run("randperm", [50000], {}, perm)
    assert p >= ALPHA
    _, _, p = run("randperm", [50000], {}, torch.arange(50000))
    assert p < 1e-12
    _, _, p = run("randperm", [50000], {}, torch.zeros(50000, dtype=torch.int64))
    assert p == 0.0


def test_compare_record_fields():
    x = torch.empty(N)
    u = torch.rand(N, generator=gen(9))
    op = inputs.resolve_op("uniform_")
    (rec,) = stats.compare({"key": "uniform_"}, op, [x, 0.0, 1.0], {}, u ** 2, u)
    assert rec["kind"] == "stat" and "alpha" not in rec
    assert rec["p_n"] >= ALPHA > rec["p_c"]
    assert rec["numel"] == N and rec["cand"]["shape"] == [N]
    (rec,) = stats.compare({"key": "uniform_"}, op, [x, 0.0, 1.0], {}, u[:10], u)
    assert rec["kind"] == "shape_only"


def test_normal_mean_and_std_broadcast_against_each_other():
    # normal.Tensor_Tensor with mean [512, 256] and std [256] (the H200
    # screen's generated case): the parameters broadcast like aten's
    mean = torch.rand(512, 256, generator=gen(2), dtype=torch.float64) * 8 - 4
    std = torch.rand(256, generator=gen(3), dtype=torch.float64) + 0.5
    good = torch.normal(mean, std.expand(512, 256), generator=gen(4))
    _, _, p = run("normal.Tensor_Tensor", [mean, std], {}, good.float())
    assert p >= ALPHA, p
    # std applied along the wrong axis is caught
    bad = mean + torch.randn(512, 256, generator=gen(5), dtype=torch.float64) * \
        std[:, None].expand(256, 2).reshape(-1)[:512, None]
    _, _, p = run("normal.Tensor_Tensor", [mean, std], {}, bad.float())
    assert p < ALPHA, p
    with pytest.raises(ValueError, match="does not broadcast"):
        run("normal.Tensor_Tensor", [mean, std[:7]], {}, good.float())


def test_dropout_fp16_tiny_products_round_to_subnormals():
    # fp16 dropout of inputs whose scaled values are subnormal: native's own
    # rounding (one step of 2^-24) is not a wrong scaling
    inp = (torch.randn(4096, generator=gen(6), dtype=torch.float64) * 1e-6).half()
    keep = torch.rand(4096, generator=gen(7)) >= 0.3
    y = torch.where(keep, inp.double() / 0.7, torch.zeros(4096, dtype=torch.float64))
    out = (y.half(), keep)
    test, _, p = run("native_dropout", [inp, 0.3, True], {}, out)
    assert "scaled values" not in test and p >= ALPHA, (test, p)
    wrong = (torch.where(keep, inp.double(), torch.zeros(4096, dtype=torch.float64)).half(),
             keep)
    test, _, p = run("native_dropout", [inp, 0.3, True], {}, wrong)
    assert "scaled values" in test and p == 0.0, (test, p)
