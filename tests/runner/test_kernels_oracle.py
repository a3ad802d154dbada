"""kernels/' fp64 oracles through the runner's wrapper on the host build, for
the argument forms the generated cases use (the GPU suite checks the device
build against the same answers)."""
import pytest
import torch

from opscreen_runner import kernels

pytestmark = pytest.mark.skipif(not kernels.available("cpu"),
                                reason="build/libopscreen_kernels_host.so not built")


@pytest.mark.parametrize("shape", [[33, 65], [4097], [2, 3, 4]])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("base", ["argmax", "argmin"])
def test_arg_reductions_match_aten_shapes(shape, keepdim, base):
    # dim=None with keepdim=True keeps every dim as size 1 (the H200 screen's
    # cross-check reported these as oracle faults while the oracle gave [])
    x = torch.randn(shape, generator=torch.Generator().manual_seed(7))
    for kw in ({"keepdim": keepdim}, {"dim": 0, "keepdim": keepdim}):
        got = kernels.oracle(base, [x], kw)
        want = getattr(torch, base)(x.double(), **kw)
        assert got is not None and got.shape == want.shape, (kw, got, want)
        assert torch.equal(got, want), kw


@pytest.mark.parametrize("key", ["var.correction", "std.correction", "var", "std"])
@pytest.mark.parametrize("n", [0, 1, 5])
def test_var_std_of_few_elements_match_aten(key, n):
    # an empty reduction is NaN in aten (its mean is NaN), not -0
    x = torch.randn(n, generator=torch.Generator().manual_seed(3))
    name, _, ov = key.partition(".")
    want = getattr(getattr(torch.ops.aten, name), ov or "default")(x.double())
    got = kernels.oracle(key, [x], {})
    assert got is not None
    assert torch.equal(got.isnan(), want.isnan()), (got, want)
    assert torch.allclose(got.nan_to_num(), want.nan_to_num(), rtol=1e-15, atol=0)
