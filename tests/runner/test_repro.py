"""The standalone repro (probes/opscreen_runner/repro.py) with the daemon's
part written in by `opscreenctl judge` (daemon/repro.c), on the CPU."""

import pytest
import torch

from runner_harness import (REPRO_LINES, judge_repro, library_runner, make_case, repro_fails,
                            repro_lines, run_repro, tensor)

from opscreen_runner import inputs, repro  # noqa: E402  (runner_harness sets sys.path)

pytestmark = pytest.mark.slow  # make test-fast leaves this file out

ADD = make_case(1, "add.Tensor", "add", [tensor([3, 5]), tensor([5])], cls="broadcast")
MINIMUM = make_case(2, "minimum", "minimum", [tensor([5]), tensor([3, 5])], cls="broadcast")
SUM = make_case(3, "sum.dim_IntList", "sum_dim",
                [tensor([2, 4096], domain="positive"), {"t": "ints", "v": [1]}],
                cls="accumulation")
CLAMP = make_case(4, "clamp", "clamp", [tensor([6], "float32"), {"t": "float", "v": -0.5}],
                  dtype="float32", cls="contract")
EXP = make_case(5, "exp", "exp", [tensor([16])])
DIV = make_case(6, "div.Tensor", "div", [tensor([3, 5], "float32"), tensor(
    [3, 5], "float32", layout="expanded", base=[1, 5])], dtype="float32", cls="noncontig")
# an entry point (called directly; native and the oracle are opscreen's
# reference) wrong on 3-D inputs, and one that fullgraph tracing refuses
NORM = make_case(9, "fused::fused_add_rms_norm", "fused_add_rms_norm",
                 [tensor([2, 7, 64], "float32"), tensor([2, 7, 64], "float32"),
                  {"t": "ints", "v": [64]}, tensor([64], "float32"),
                  {"t": "float", "v": 1e-6}], dtype="float32", cls="reduction")
GELU_TRACE = make_case(10, "fused::gelu_and_mul", "gelu_and_mul",
                       [tensor([33, 65], "float32"), tensor([33, 65], "float32")],
                       dtype="float32", cls="trace")
# the same under another torch.compile backend (runner.compile_backend),
# which the case carries and its repro compiles with
GELU_TRACE_AOT = dict(GELU_TRACE, id=11, backend="aot_eager")
ARGMIN = make_case(8, "argmin", "argmin", [tensor([1023], "float16"), {"t": "int", "v": 0},
                                           {"t": "bool", "v": False}],
                   dtype="float16", compare="exact", cls="reduction")

FAKELIB = '''"""A library with two planted defects the demo library lacks."""
import numpy as np
import torch

__version__ = "0.0.1"


def exp(self):  # DEFECT: inf wherever self > 1
    r = torch.from_numpy(np.exp(self.detach().double().numpy())).to(self.dtype)
    return torch.where(self > 1, float("inf"), r)


def abs(self):  # DEFECT: integers come back unchanged
    return self.clone() if not self.is_floating_point() else self.clone().abs_()


def group_mm(a, b, offs, bias=None, out_dtype=None):  # DEFECT: offs is optional in aten
    return torch.bmm(a, b)


_FULL_CONFIG = (("exp", exp), ("abs", abs), ("_grouped_mm", group_mm))

'''


@pytest.mark.parametrize("case,reason,says", [
    (MINIMUM, "shape_mismatch", "native torch.bfloat16 [3, 5]"),
    (SUM, "numeric_error", "the rule allows"),
    (DIV, "numeric_error", "the rule allows"),
    (CLAMP, "raises", "it raises where native does not"),
    (EXP, "raises", "no kernel for bfloat16"),
    (ARGMIN, "reads_outside_inputs", "1 of 1 positions differ from the oracle"),
    (NORM, "numeric_error", "the rule allows"),
    (GELU_TRACE, "raises", "it raises where native does not"),
    (GELU_TRACE_AOT, "raises", "it raises where native does not"),
])
def test_repro_of_a_failing_case_fails(runner, tmp_path, case, reason, says):
    _, res = runner.case(case)
    assert "repro" in res, res  # figures that may fail: the repro comes with them
    v, src = judge_repro(case, res)
    assert (v["status"], v["reason"]) == ("fail", reason), v
    assert f"\n# judged: fail {reason}: " in src
    if case.get("class") == "trace":  # the case's backend, or torch.compile's default
        assert ("backend='aot_eager'" in src) == ("backend" in case), src
    assert says in repro_fails(src, tmp_path, limit=repro_lines(case))


def test_bounds_are_the_daemons_as_numbers(runner):
    """BOUNDS holds verdict.c's bound on each output, max(2x native's
    error, floor), written from the figures of the RESULT it judged."""
    _, res = runner.case(SUM)
    _, src = judge_repro(SUM, res)
    (out,) = res["outputs"]
    line = next(ln for ln in src.splitlines() if ln.startswith("BOUNDS = "))
    assert eval(line.split("=", 1)[1].split("#")[0]) == [
        (max(2 * out["err_abs_n"], 2 * out["R"]), max(2 * out["err_ulp_n"], 1.0))], line
    assert "BOUNDS = None" in res["repro"]  # the runner leaves them to the daemon


def test_a_passing_case_sends_only_its_pre_call_repro(runner, tmp_path):
    started, res = runner.case(ADD)
    assert res["status"] == "ok" and "repro" not in res, res
    src = started["repro"]
    assert "pre-call" in src.splitlines()[0] and len(src.splitlines()) <= REPRO_LINES
    p = run_repro(src, tmp_path)
    assert p.returncode == 0, p.stderr
    assert run_repro(src, tmp_path, OPSCREEN_REPRO_NATIVE="1").returncode == 0


@pytest.fixture(scope="module")
def fakelib(tmp_path_factory):
    d = tmp_path_factory.mktemp("fakelib")
    r = library_runner(d, "opscreen_fakelib", FAKELIB)
    yield r, str(d)
    r.close()


@pytest.mark.parametrize("case,reason,says", [
    (make_case(20, "exp", "exp", [tensor([4, 8], "float32")], dtype="float32"),
     "nonfinite_mismatch", "positions where NaN/inf differ from the oracle"),
    (make_case(21, "abs", "abs", [tensor([40], "int32", "int")], dtype="int32"),
     "mismatch", "positions differ from the oracle"),
    # native refuses float64 (no fp64 oracle): the repro still reaches the
    # candidate's call (FlagGems 5.0.2's group_mm on the H200, 2026-12-03)
    (make_case(22, "_grouped_mm", "group_mm", [tensor([2, 16, 16]), tensor([2, 16, 16])]),
     "raises", "it raises where native does not: TypeError"),
])
def test_repro_of_other_failure_kinds(fakelib, tmp_path, case, reason, says):
    r, path = fakelib
    _, res = r.case(case)
    v, src = judge_repro(case, res)
    assert (v["status"], v["reason"]) == ("fail", reason), v
    assert "import opscreen_fakelib as lib" in src
    assert says in repro_fails(src, tmp_path, path)


def _script_inputs(src, n):
    """The tensors t0..t{n-1} the script's input lines make."""
    lines = src.splitlines()
    end = next(i for i, ln in enumerate(lines) if ln.startswith("flat = ") or ln == "G = []")
    body = "\n".join(ln for ln in lines[:end] if not ln.startswith("import opscreen"))
    ns = {}
    exec(body, ns)
    return [ns[f"t{i}"] for i in range(n)]


def _same_storage(a, b):
    def raw(t):
        return torch.empty(0, dtype=torch.uint8).set_(t.untyped_storage())
    return torch.equal(raw(a), raw(b))


SHAPES = [
    ("float32", "edge", {}), ("float16", "edge", {"layout": "transposed"}),
    ("bfloat16", "edge", {"layout": "sliced"}), ("float64", "edge", {}),
    ("float32", "normal", {"layout": "expanded", "base": [1]}),
    ("int64", "int", {"layout": "transposed"}), ("bool", "bool", {}),
    ("uint8", "edge", {}), ("complex64", "normal", {}),
] + ([("float8_e4m3fn", "edge", {})] if hasattr(torch, "float8_e4m3fn") else [])


@pytest.mark.parametrize("batched", [False, True], ids=["per-input", "one-transfer"])
@pytest.mark.parametrize("big", [False, True], ids=["literals", "embedded"])
def test_inputs_come_back_bit_for_bit(big, batched, monkeypatch):
    """The script's tensors are the runner's: dtype, shape, strides, offset
    and every byte of their storage (NaN, inf, -0.0 and subnormals among
    them), written as literals or, past INLINE elements, embedded. With
    "one-transfer" the inputs are taken as a GPU's are, all read back in
    one copy (repro._to_host)."""
    if batched:
        monkeypatch.setattr(repro, "_on_device", lambda t: True)
    shape = [5, 3] if not big else [100, 80]
    specs = [tensor(list(shape), dt, dom, **kw) for dt, dom, kw in SHAPES]
    specs = [dict(s, base=[1, shape[1]]) if s.get("base") else s for s in specs]
    for i, spec in enumerate(specs):
        case = make_case(30 + i, "add.Tensor", "add", [spec], dtype=spec["dtype"])
        args, kwargs = inputs.build_args(case, "cpu")
        op = inputs.resolve_op("add.Tensor")
        src = repro.render(case, "opscreen_demolib", {}, "cpu", op, args, kwargs, None)
        assert ("base64" in src) == big, src[:2000]
        (t,) = _script_inputs(src, 1)
        a = args[0]
        assert (t.dtype, t.shape, t.stride(), t.storage_offset()) == (
            a.dtype, a.shape, a.stride(), a.storage_offset()), spec
        assert _same_storage(t, a), spec


def test_large_inputs_go_to_a_file_beside_the_script(runner, tmp_path):
    """Past FILE_BYTES (torch.save'd) a runner's repro reads its inputs from
    a file beside it, whose text comes with the message (repro_inputs), and
    fails as the embedded one does; render without `files` embeds them."""
    _, res = runner.case(SUM)      # 2 x 4096 bfloat16: 16 KiB
    assert "repro_inputs" in res and len(res["repro_inputs"]) > repro.FILE_BYTES, res
    assert f'"{repro.inputs_file(SUM["id"])}"' in res["repro"], res["repro"][:2000]
    assert len(res["repro"]) < 8 << 10, len(res["repro"])
    v, src = judge_repro(SUM, res)
    assert "the rule allows" in repro_fails(src, tmp_path)
    args, kwargs = inputs.build_args(SUM, "cpu")
    op = inputs.resolve_op(SUM["key"])
    files = {}
    filed = repro.render(SUM, "opscreen_demolib", {}, "cpu", op, args, kwargs, None, files)
    inline = repro.render(SUM, "opscreen_demolib", {}, "cpu", op, args, kwargs, None)
    assert files["inputs"] in inline and files["inputs"] not in filed
    (t,) = _script_inputs(inline, 1)
    assert _same_storage(t, args[0])


def test_one_transfer_keeps_every_dtype_bit_for_bit():
    dts = [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int8,
           torch.uint8, torch.int16, torch.int32, torch.int64, torch.bool,
           torch.complex64, torch.complex128] + [
        getattr(torch, n) for n in ("float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu")
        if hasattr(torch, n)]
    flats = []
    for i, dt in enumerate(dts):
        n = (0, 1, 7, 33)[i % 4]
        flats.append(torch.randn(n, dtype=dt) if dt.is_complex else
                     (torch.randn(n, dtype=torch.float64) * 100).to(dt))
    back = repro._to_host(flats)
    assert [(b.dtype, b.shape) for b in back] == [(f.dtype, f.shape) for f in flats]
    assert all(torch.equal(repro._bits(b), repro._bits(f)) for b, f in zip(back, flats))
    assert repro._to_host([]) == []


def test_out_buffers_are_written_as_fills_and_large_inputs_as_random():
    """An out= buffer (one value throughout) is a torch.full; inputs past the
    pre-call budget are random values of the case's shapes, and say so."""
    out = {"t": "out", "shape": [300, 300], "dtype": "float32"}
    case = make_case(40, "abs.out", "abs_out", [tensor([300, 300], "float32")],
                     dtype="float32", kwargs={"out": out}, mutates="out")
    args, kwargs = inputs.build_args(case, "cpu")
    src = repro.render(case, "opscreen_demolib", {}, "cpu", inputs.resolve_op("abs.out"),
                       args, kwargs, None)
    assert "torch.full([90000], nan, dtype=torch.float32, device=D)" in src, src[:3000]
    assert "random values of the case's shapes" in src and "torch.randn" in src
    assert len(src.splitlines()) <= REPRO_LINES


def test_a_stub_is_one_comment_line():
    """A case whose inputs were never built (or whose message spans lines,
    as CUDA's do) gets a stub that Python still parses."""
    src = repro.stub({"id": 7, "key": "mm.out"}, "AcceleratorError: CUDA error: an "
                     "illegal memory access\nSearch for `x' in 'docs'\n)")
    assert len(src.splitlines()) == 1 and src.startswith("# ")
    compile(src, "stub.py", "exec")


def test_may_fail_is_needed_by_every_failure():
    """may_fail: a RESULT whose figures leave the candidate no worse than
    native anywhere gets no repro; any figure worse, it does."""
    meta = {"shape": [2], "dtype": "float32", "strides": [1]}
    out = {"kind": "float", "cand": meta, "native": meta, "err_abs_c": 1e-7,
           "err_abs_n": 1e-7, "err_ulp_c": 0.5, "err_ulp_n": 0.5, "R": 1e-8,
           "nonfinite_mismatch_c": 0}
    ok = {"status": "ok", "outputs": [out]}
    assert not repro.may_fail(ok)
    assert not repro.may_fail({"status": "native_error"})
    for worse in ({"err_ulp_c": 0.6}, {"err_abs_c": 2e-7}, {"nonfinite_mismatch_c": 1},
                  {"cand": dict(meta, shape=[1])}, {"cand": None}):
        assert repro.may_fail({"status": "ok", "outputs": [dict(out, **worse)]}), worse
    for extra in ({"repeat": {"call": 4, "outputs": []}}, {"guard": {"intact": False}},
                  {"alias_c": False}, {"status": "cand_error"}):
        assert repro.may_fail(dict(ok, **extra)), extra
