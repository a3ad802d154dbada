"""The 64-bit-indexing path of the runner (cases marked "huge"): operands from
kernels/' generator, the fp64 oracle on a sample of positions. On the CPU with
a small length; the daemon sends 2^31-element ones to GPUs only."""

import pytest

from runner_harness import make_case

from opscreen_runner import kernels  # noqa: E402  (runner_harness sets sys.path)


def huge_case(cid, key, name, n, nops):
    spec = {"t": "tensor", "shape": [n], "dtype": "bfloat16", "domain": "normal",
            "gen": "philox"}
    c = make_case(cid, key, name, [dict(spec) for _ in range(nops)], cls="same_shape",
                  dtype="bfloat16")
    c.update(huge=True, sample={"every": 97, "tail": 50})
    return c


@pytest.mark.skipif(not kernels.available("cpu"),
                    reason="build/libopscreen_kernels_host.so missing: run make")
def test_sampled_oracle(runner):
    n = 100003
    started, res = runner.case(huge_case(41, "mul.Tensor", "mul", n, 2))
    assert res["status"] == "ok", res
    # every 97th position and the last 50, without repeats
    expect = len(set(range(0, n, 97)) | set(range(n - 50, n)))
    assert res["sampled"] == expect
    (out,) = res["outputs"]
    assert out["kind"] == "float" and out["numel"] == expect
    assert out["err_ulp_c"] <= 1 and "R" in out
    assert "run_case(CASE" in started["repro"]  # the kernels/-backed repro


@pytest.mark.skipif(not kernels.available("cpu"),
                    reason="build/libopscreen_kernels_host.so missing: run make")
def test_huge_inputs_are_reproducible():
    spec = {"t": "tensor", "shape": [4099], "dtype": "bfloat16", "domain": "normal"}
    a = kernels.generate(spec, 7, 0, "cpu")
    b = kernels.generate(spec, 7, 0, "cpu")
    c = kernels.generate(spec, 7, 1, "cpu")
    assert a.view(-1).equal(b.view(-1)) and not a.equal(c)


@pytest.mark.skipif(not kernels.available("cpu"),
                    reason="build/libopscreen_kernels_host.so missing: run make")
def test_fused_compare_gives_the_same_figures(runner):
    """kernels/' one-pass comparison (used from OPSCREEN_FUSED_MIN elements
    on) reports exactly the figures figures.py computes."""
    from runner_harness import Runner, tensor
    case = make_case(51, "sum.dim_IntList", "sum_dim",
                     [tensor([64, 4096], "bfloat16", "positive"), {"t": "ints", "v": [0]}])
    fused = Runner(OPSCREEN_FUSED_MIN="1")
    try:
        fused.recv()
        _, a = fused.case(case)
    finally:
        fused.close()
    _, b = runner.case(case)
    (oa,), (ob,) = a["outputs"], b["outputs"]
    assert oa.pop("fused") is True and "fused" not in ob
    assert oa == ob and oa["err_ulp_c"] > 1  # the demo sum_dim's accumulation error
