"""The 64-bit-indexing path of the runner (cases marked "huge"): operands from
kernels/' generator, the fp64 oracle on a sample of positions. On the CPU with
a small length; the daemon sends 2^31-element ones to GPUs only."""

import json
import re

import pytest
import torch

from runner_harness import Runner, judge_repro, library_runner, make_case, repro_fails

from opscreen_runner import kernels  # noqa: E402  (runner_harness sets sys.path)

pytestmark = pytest.mark.slow  # make test-fast leaves this file out


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
    assert "opscreen_runner" not in started["repro"]  # standalone


@pytest.mark.skipif(not kernels.available("cpu"),
                    reason="build/libopscreen_kernels_host.so missing: run make")
def test_huge_repro_is_standalone_and_fails(tmp_path, monkeypatch):
    """A 2^31-element case's repro draws its operands with torch's generator
    (no kernels/, no opscreen_runner), samples the positions the runner
    samples, and fails where the case failed: add turned wrong
    (OPSCREEN_DEMOLIB_BREAK=add, which the repro's process inherits)."""
    monkeypatch.setenv("OPSCREEN_DEMOLIB_BREAK", "add")
    r = Runner()
    try:
        r.recv()
        case = huge_case(43, "add.Tensor", "add", 100003, 2)
        started, res = r.case(case)
    finally:
        r.close()
    # its repro is the pre-call one (it needs no outputs): the daemon keeps
    # STARTED's and writes the verdict and bounds into it
    assert res["status"] == "ok" and "repro" not in res, json.dumps(res["outputs"])
    v, repro = judge_repro(case, dict(res, repro=started["repro"]))
    assert v["status"] == "fail", v
    assert "torch.Generator(D).manual_seed(" in repro and "[100003]" in repro, repro
    err = repro_fails(repro, tmp_path)
    assert "ULP), the rule allows" in err, err


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


# Data movement past 2^31 elements ("oracle": "native", operands "gen":
# "arange"), here small and on the CPU: the memory gate, the byte-for-byte
# comparison with native's output and the standalone repro.

MOVERS = '''"""cat with a defect at its last position; clone right."""
import torch

__version__ = "0.0.1"


def cat(tensors, dim=0):  # DEFECT: the last element flipped (dim 0 only)
    n = sum(t.shape[0] for t in tensors)
    out = torch.empty((n,) + tuple(tensors[0].shape[1:]), dtype=tensors[0].dtype)
    i = 0
    for t in tensors:
        out[i:i + t.shape[0]] = t
        i += t.shape[0]
    last = out.view(-1)[-1:]
    last.copy_(last == 0 if out.dtype == torch.bool else last + 1)
    return out


def clone(self, *, memory_format=None):
    return torch.empty_like(self, memory_format=torch.preserve_format).copy_(self)


_FULL_CONFIG = (("cat", cat), ("clone", clone))

'''


def moved_case(cid, key, name, args, dtype="bool"):
    c = make_case(cid, key, name, args, dtype=dtype, compare="exact")
    c.update(huge=True, oracle="native")
    return c


def arange(shape, dtype="bool", start=0):
    return {"t": "tensor", "shape": shape, "dtype": dtype, "domain": "bool",
            "gen": "arange", "start": start, "mod": 3 if dtype == "bool" else 251}


def cat_case(cid, n):
    return moved_case(cid, "cat", "cat", [
        {"t": "tensors", "v": [arange([n]), {"t": "tensor", "shape": [4099],
                                              "dtype": "bool", "domain": "bool"}]},
        {"t": "int", "v": 0}])


@pytest.fixture(scope="module")
def movers(tmp_path_factory):
    d = tmp_path_factory.mktemp("movers")
    r = library_runner(d, "opscreen_movers", MOVERS)
    yield r, str(d)
    r.close()


def test_memory_gate_skips_with_the_reason(movers):
    """A case the device cannot hold is not run: status skipped, with what it
    needs and what is free (inputs, native's and the candidate's outputs),
    before any input is made; the runner goes on."""
    r, _ = movers
    started, res = r.case(cat_case(60, 1 << 48))
    assert res["status"] == "skipped", res
    assert re.fullmatch(r"needs [0-9.]+ GiB, [0-9.]+ GiB free", res["skip_reason"]), res
    need = float(res["skip_reason"].split()[1])
    assert need >= 3 * 2 ** 48 / 2 ** 30  # input + two outputs of 2^48 bools
    assert res["skip_reason"] in started["repro"] and "repro" not in res
    assert r.case(cat_case(61, 1000))[1]["status"] == "ok"


def test_memory_need_counts_inputs_and_both_outputs():
    from opscreen_runner import execute, inputs
    case = cat_case(62, 1 << 20)
    need = execute.memory_need(case, inputs.resolve_op("cat"))
    n = (1 << 20) + 4099
    assert need == n + 2 * n + (64 << 20)
    case = moved_case(63, "clone", "clone", [arange([3, 1 << 20], "float16")], "float16")
    assert execute.memory_need(case, inputs.resolve_op("clone")) == \
        3 * 2 * (3 << 20) + (64 << 20)


def test_arange_operands_say_where_they_came_from():
    from opscreen_runner import inputs
    t = inputs.build_arg(arange([7, 5], "int8", start=2), 0, 0, "cpu")
    assert t.reshape(-1).tolist() == [(2 + i) % 251 for i in range(35)]
    b = inputs.build_arg(dict(arange([2, 9]), layout="transposed"), 0, 0, "cpu")
    assert b.shape == (2, 9) and b.stride() == (1, 2)
    assert b.t().reshape(-1).tolist() == [i % 3 != 0 for i in range(18)]
    small = 1 << 20
    saved, inputs.ARANGE_CHUNK = inputs.ARANGE_CHUNK, 1000  # chunks join up
    try:
        big = inputs.arange_values(small + 17, 5, 251, torch.float16, "cpu")
    finally:
        inputs.ARANGE_CHUNK = saved
    assert torch.equal(big, (torch.arange(small + 17) + 5).remainder(251).half())


def test_moved_bytes_are_compared_with_natives(movers, tmp_path):
    """The defect at the last position is found (mismatch 1, where), the
    right clone passes; the repro makes the operands by the same index
    arithmetic and fails the same way, and passes natively."""
    r, path = movers
    n = 100003
    _, res = r.case(cat_case(64, n))
    assert res["status"] == "ok", res
    (out,) = res["outputs"]
    assert out["kind"] == "exact" and out["numel"] == n + 4099
    assert (out["mismatch_c"], out["mismatch_n"], out["first_bad_c"]) == (1, 0, [n + 4098])
    assert "oracle_ms" not in res["times"] and "cand_steady_ms" not in res["times"]
    v, src = judge_repro(cat_case(64, n), res)
    assert (v["status"], v["reason"]) == ("fail", "mismatch"), v
    assert f"arange_mod({n}, 0, 3, torch.bool)" in src
    assert "positions differ from native's" in repro_fails(src, tmp_path, path)
    case = moved_case(65, "clone", "clone", [arange([3, 40000], "float16")], "float16")
    _, res = r.case(case)
    assert res["status"] == "ok" and res["outputs"][0]["mismatch_c"] == 0, res
    assert "repro" not in res


def test_memory_need_of_a_written_input():
    """An in-place op's outputs are the copies of its written input that
    native's and the candidate's calls write: counted once each."""
    from opscreen_runner import execute, inputs
    case = moved_case(66, "copy_", "copy_", [arange([4, 1 << 20]), {
        "t": "tensor", "shape": [1 << 20], "dtype": "bool", "domain": "bool"}])
    case["mutates"] = "self"
    assert execute.memory_need(case, inputs.resolve_op("copy_")) == \
        (4 << 20) + (1 << 20) + 2 * (4 << 20) + (64 << 20)
