"""The runner against FlagGems on a GPU; skipped where either is missing."""

import os

import pytest

from runner_harness import Runner, make_case, tensor  # noqa: E402



def test_flag_gems_cases():
    r = Runner(OPSCREEN_LIBRARY="flag_gems", OPSCREEN_DEVICE="cuda",
               CUDA_VISIBLE_DEVICES="0")
    hello = r.recv()
    assert "error" not in hello, hello.get("error")
    fp = hello["fingerprint"]
    print(fp, hello.get("import"))
    assert fp["library_version"] and fp["triton"] and fp["gpu_uuid"].startswith("GPU-")
    names = {e["name"] for e in hello["entries"]}
    assert {"add", "sum_dim", "sort", "add_"} <= names
    cases = [
        make_case(1, "add.Tensor", "add", [tensor([3, 1, 5]), tensor([4, 1])]),
        make_case(2, "sum.dim_IntList", "sum_dim",
                  [tensor([8, 65536], domain="positive"), {"t": "ints", "v": [1]}]),
        make_case(3, "sort", "sort", [tensor([16, 300], "float16", "int", low=0, high=10),
                                      {"t": "int", "v": 1}], compare="sort", dtype="float16"),
        dict(make_case(4, "add_.Tensor", "add_", [tensor([64, 64], "float32"),
                                                  tensor([64], "float32")]), inplace=True),
        make_case(5, "topk", "topk", [tensor([4, 1000], "float32"), {"t": "int", "v": 8}],
                  compare="topk", dtype="float32"),
    ]
    for case in cases:
        started, result = r.case(case)
        print(case["key"], result)
        assert result["status"] == "ok", result
        assert result["times"]["cand_first_ms"] > 0
    r.close()


FAULTLIB = '''
import contextlib
import torch

def neg(self):
    # a device-side assert poisons the CUDA context, like an illegal address
    torch._assert_async(torch.zeros((), device=self.device, dtype=torch.bool))
    return torch.empty_like(self)

_FULL_CONFIG = (("neg", neg),)

@contextlib.contextmanager
def use_gems(exclude=None, include=None):
    lib = torch.library.Library("aten", "IMPL")
    lib.impl("neg", neg, "CUDA")
    try:
        yield
    finally:
        lib._destroy()
'''


def test_sticky_error_is_fatal(tmp_path):
    (tmp_path / "faultlib.py").write_text(FAULTLIB)
    r = Runner(OPSCREEN_LIBRARY="faultlib", OPSCREEN_DEVICE="cuda", CUDA_VISIBLE_DEVICES="0",
               PYTHONPATH=str(tmp_path))
    assert "error" not in r.recv()
    started, result = r.case(make_case(1, "neg", "neg", [tensor([8], "float32")]))
    print(result)
    assert result["status"] == "cand_error" and result["fatal"] is True
    assert r.recv() is None  # the runner exits after a fatal result
    r.close()


SYNC_CHECK = r'''
import sys
from opscreen_runner import cudasync
got = cudasync.set_sync(sys.argv[1])
import torch
torch.ones(4, device="cuda").sum().item()
print(got, *cudasync.current())
'''


def test_cuda_sync_sets_the_primary_context():
    """runner.cuda_sync = blocking reaches the context torch creates, and a
    runner's hello says what is in effect."""
    import subprocess
    import sys as _sys
    from runner_harness import PYTHONPATH
    env = dict(os.environ, PYTHONPATH=PYTHONPATH, CUDA_VISIBLE_DEVICES="0")
    for mode in ("blocking", "spin"):
        out = subprocess.run([_sys.executable, "-c", SYNC_CHECK, mode], env=env,
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        assert out.stdout.split()[-2:] == [mode, "True"], out.stdout
    r = Runner(OPSCREEN_LIBRARY="flag_gems", OPSCREEN_DEVICE="cuda",
               CUDA_VISIBLE_DEVICES="0", OPSCREEN_CUDA_SYNC="blocking")
    hello = r.recv()
    assert hello.get("cuda_sync") == {"mode": "blocking"}, hello.get("cuda_sync")
    started, result = r.case(make_case(1, "add.Tensor", "add",
                                       [tensor([3, 1, 5]), tensor([4, 1])]))
    assert result["status"] == "ok", result
    r.close()


def test_guard_finds_argmin_reading_past_its_input():
    """flag_gems 5.0.2's argmin over a 1-D float16 input of 1023 elements
    loads next_power_of_2(1023) = 1024 elements with mask=True
    (argmin_kernel_opt_k1): beside the guard's lowest fp16 value it returns
    index 1023. A kernel that stays inside its tensors (add) shows nothing."""
    r = Runner(OPSCREEN_LIBRARY="flag_gems", OPSCREEN_DEVICE="cuda",
               CUDA_VISIBLE_DEVICES="0")
    assert "error" not in r.recv()
    argmin = make_case(1, "argmin", "argmin", [tensor([1023], "float16"),
                                               {"t": "int", "v": 0},
                                               {"t": "bool", "v": False}],
                       dtype="float16", compare="exact", cls="reduction")
    _, res = r.case(argmin)
    print(res.get("guard"), res["outputs"])
    assert res["status"] == "ok" and res["guard"]["changed"] and res["guard"]["reproduced"], res
    _, res = r.case(make_case(2, "add.Tensor", "add", [tensor([3, 1, 5]), tensor([4, 1])]))
    assert res["status"] == "ok" and "guard" not in res, res
    r.close()


HUGE_N = 2 ** 31 + 17


def test_huge_cat_past_2_31():
    """The catalog's 2^31-element cat (probes/sweep.c, sweep_huge_move)
    through flag_gems on the GPU: operands made on the device by index
    arithmetic, the output of 2^31 + 4116 bools compared with native's byte
    for byte on the device. Where the GPU cannot hold it (inputs and both
    outputs, about 6 GiB) the runner skips it with its reason, and so does
    this test."""
    case = make_case(70, "cat", "cat", [
        {"t": "tensors", "v": [
            {"t": "tensor", "shape": [HUGE_N], "dtype": "bool", "domain": "bool",
             "gen": "arange", "start": 0, "mod": 3},
            {"t": "tensor", "shape": [4099], "dtype": "bool", "domain": "bool"}]},
        {"t": "int", "v": 0}], dtype="bool", compare="exact")
    case.update(huge=True, oracle="native")
    r = Runner(OPSCREEN_LIBRARY="flag_gems", OPSCREEN_DEVICE="cuda",
               CUDA_VISIBLE_DEVICES="0")
    try:
        assert "error" not in r.recv()
        _, res = r.case(case)
    finally:
        r.close()
    if res["status"] == "skipped":
        pytest.skip("the runner's memory gate: " + res["skip_reason"])
    print(res)
    assert res["status"] in ("ok", "cand_error"), res
    if res["status"] == "ok":
        (out,) = res["outputs"]
        assert out["kind"] == "exact" and out["numel"] == HUGE_N + 4099, out
        assert out["mismatch_n"] == 0 and isinstance(out["mismatch_c"], int), out
