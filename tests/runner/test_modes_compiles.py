"""The trace class's dynamic compile count (modes._dynamic_compiles) is the
compiled function's own: not inherited from another compile's cache entry."""
import pytest
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "probes"))
sys.path.insert(0, os.path.join(ROOT, "tests", "demolib"))

from opscreen_runner import inputs, modes, references  # noqa: E402

pytestmark = pytest.mark.slow  # make test-fast leaves this file out


def test_a_candidates_size_branch_does_not_make_native_recompile():
    """The demo's moe_sum branches in Python on the expert count: its
    dynamic compile over k=2 then k=8 compiles twice. Its graph on either
    side of the branch is native's once functionalised, so with Inductor's
    and AOTAutograd's caches on, native's compile right after found the
    candidate's entry and its guard (2 <= k <= 4) and compiled twice too
    (torch 2.11): the hazard went unseen. Native compiles once."""
    from opscreen_demolib import fused
    op = inputs.resolve_op("fused::moe_sum")
    a = [torch.randn(3, 2, 64), torch.randn(3, 64)]
    a2 = [torch.randn(7, 8, 128), torch.randn(7, 128)]
    cand = references.candidate("moe_sum", fused.moe_sum)
    for _ in range(2):  # and again, after both have compiled once
        assert modes._dynamic_compiles(cand, a, {}, a2, {}, None) == 2
        assert modes._dynamic_compiles(op, a, {}, a2, {}, None) == 1


def test_a_host_copy_in_capture_is_named_by_its_error_not_by_a_compile():
    """A capture that raised because the library copied from pageable host
    memory is named "synchronises", also when a compile ran in it too; a
    capture error that names nothing else is the compile's."""
    host = RuntimeError("Cannot copy between CPU and CUDA tensors during CUDA graph "
                        "capture unless the CPU tensor is pinned.")
    assert modes._capture_hazard(host, True) == "synchronises during capture"
    assert modes._capture_hazard(host, False) == "synchronises during capture"
    other = RuntimeError("CUDA error: operation failed due to a previous error during capture")
    assert modes._capture_hazard(other, True) == "compiles or autotunes during capture"
    assert modes._capture_hazard(other, False) == "capture failed"
