"""The graph class on a CUDA GPU (probes/opscreen_runner/modes.py): a kernel
captured on permuted inputs and replayed on the case's gives the case's
answer; a capture the op refuses is named by what the op did in it."""
import os
import sys

import pytest
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "probes"))

from opscreen_runner import execute, modes  # noqa: E402


def test_a_replay_computes_on_the_copied_inputs():
    facts = {}
    call = modes.wrap("graph", torch.ops.aten.mul.Tensor, None, facts)
    a = torch.randn(33, 65, device="cuda")
    b = torch.randn(33, 65, device="cuda")
    out = call(a, b)
    assert facts["captured"] and facts["replays"] == 1, facts
    assert torch.equal(out, a * b)
    a2 = torch.randn(33, 65, device="cuda")
    assert torch.equal(call(a2, b), a2 * b) and facts["replays"] == 2


def test_an_in_place_op_writes_its_input_after_the_replay():
    call = modes.wrap("graph", torch.ops.aten.mul_.Tensor, "self", {})
    a = torch.randn(128, device="cuda")
    b = torch.randn(128, device="cuda")
    want = a * b
    call(a, b)
    assert torch.equal(a, want)


def test_an_op_that_synchronises_is_named():
    facts = {}

    def syncs(x):
        return x * x.sum().item()
    call = modes.wrap("graph", syncs, None, facts)
    with pytest.raises(modes.ModeError) as e:
        call(torch.randn(64, device="cuda"))
    assert facts["captured"] is False
    assert facts["hazard"] == "synchronises during capture", (facts, str(e.value))
    # the context and its random generator survive a refused capture
    assert execute.device_ok("cuda")
    torch.randn(4, device="cuda")


def test_native_that_cannot_be_captured_either_is_not_the_librarys():
    def syncs(x):
        return x * x.sum().item()
    why = modes.native_fails("graph", syncs, [torch.randn(8, device="cuda")], {},
                             None, "cuda")
    assert why is not None and "synchronises during capture" in why
    assert modes.native_fails("graph", torch.ops.aten.neg.default,
                              [torch.randn(8, device="cuda")], {}, None,
                              "cuda") is None


def test_a_refused_capture_leaves_the_generator_capturing_until_recovered():
    """What _after_refused_capture mends: torch's own capture, refused by a
    host sync, leaves the default CUDA generator unusable, and device_ok
    (the runner's check before its next case) sees it."""
    x = torch.randn(16, device="cuda")
    with pytest.raises(Exception):
        with torch.cuda.graph(torch.cuda.CUDAGraph()):
            x.sum().item()
    poisoned = not execute.device_ok("cuda")
    modes._after_refused_capture()
    assert execute.device_ok("cuda")
    torch.randn(4, device="cuda")
    print("generator left capturing by a refused capture:", poisoned)
