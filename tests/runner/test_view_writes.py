"""The views class in the runner (docs/protocol.md, Views): the written
tensor is a view into a larger base, each call writes a private copy of the
base, and the elements of the base outside the view that a call changed are
reported as outside_view_changed."""

import torch

from runner_harness import make_case, tensor
from runner_harness import judge_repro as _judged, run_repro as _run


def _judge(case, result):
    """opscreenctl judge: the daemon's rule on one RESULT."""
    r = dict(result)
    r.setdefault("repro", "")
    return _judged(case, r)[0]

from opscreen_runner import figures, inputs

STEP = {"base": [9, 19], "ops": [["slice", 0, 1, 8, 2], ["slice", 1, 1, 18, 2]]}
TSLICE = {"base": [9, 9], "ops": [["transpose", 0, 1], ["slice", 0, 1, 8, 2]]}
NARROW1 = {"base": [11], "ops": [["narrow", 0, 3, 6]]}


def viewed(shape, view, dtype="float32", **kw):
    return tensor(shape, dtype=dtype, view=view, **kw)


def views_case(id, key, name, args, kwargs=None, mutates="self", dtype="float32"):
    return make_case(id, key, name, args, dtype=dtype, kwargs=kwargs, cls="views",
                     mutates=mutates)


SIGMOID_ = views_case(1, "sigmoid_", "sigmoid_", [viewed([4, 9], STEP)])


def test_view_spec_builds_the_view():
    v = inputs.build_tensor(viewed([4, 9], TSLICE), 7, 0, "cpu")
    assert inputs.is_view(v) and list(v.shape) == [4, 9]
    assert list(v._base.shape) == [9, 9] and v.stride() == (2, 9)
    assert v.storage_offset() == 1
    # the same case, the same base bytes
    again = inputs.build_tensor(viewed([4, 9], TSLICE), 7, 0, "cpu")
    assert torch.equal(v._base, again._base)
    # each call's copy: the same geometry, a storage of its own
    p = inputs.view_private(v)
    assert p.stride() == v.stride() and p.storage_offset() == v.storage_offset()
    assert torch.equal(p, v) and p.data_ptr() != v.data_ptr()
    # an out= view: the view holds build_out's fill, the base values
    o = inputs.build_arg({"t": "out", "shape": [4, 9], "dtype": "float16",
                          "view": STEP}, 7, 1, "cpu")
    assert torch.isnan(o).all() and not torch.isnan(o._base).all()


def test_view_that_does_not_fit_is_a_harness_error():
    for view in ({"base": [9, 19], "ops": [["slice", 0, 1, 20, 2]]},
                 {"base": [9], "ops": [["narrow", 0, 5, 6]]},
                 {"base": [9], "ops": [["transpose", 0, 1]]},
                 {"base": [9], "ops": [["reshape", 0]]},
                 {"base": [13], "ops": [["slice", 0, 1, 12, 2]]}):
        try:
            inputs.build_tensor(viewed([4, 9], view), 1, 0, "cpu")
        except ValueError:
            continue
        raise AssertionError(f"{view} was taken")


def test_changed_outside_compares_bytes():
    base = torch.full((10,), float("nan"))
    before = base.clone()
    v = base[2:8:2]
    assert figures._changed_outside(before, v) == (0, None)
    base[3] = float("nan")  # the same NaN: the same bytes
    base[2] = 5.0  # inside the view: the output's rule, not this one
    assert figures._changed_outside(before, v) == (0, None)
    base[5] = -float("nan")  # another NaN's bytes
    base[9] = 0.0
    assert figures._changed_outside(before, v) == (2, 5)


def test_defective_view_write_is_reported(runner):
    _, res = runner.case(SIGMOID_)
    assert res["status"] == "ok", res
    ov = res["outside_view_changed"]
    # the block from the view's first element (base offset 20) to its last
    # (150): its 95 elements between the view's
    assert ov["outside"] == 9 * 19 - 36
    assert ov["c"] == 95 and ov["first_c"] == 21
    assert ov["n"] == 0 and "first_n" not in ov
    assert res["alias_c"] is True
    (out,) = res["outputs"]  # the view itself is right
    assert out["err_ulp_c"] <= max(2 * out["err_ulp_n"], 1.0)
    v = _judge(SIGMOID_, res)
    assert v["status"] == "fail" and v["reason"] == "writes_outside_view", v
    assert "wrote 95 elements outside the view (first at storage offset 21)" in \
        v["detail"], v


def test_contiguous_defective_op_is_right(runner):
    case = make_case(2, "sigmoid_", "sigmoid_", [tensor([4, 9], dtype="float32")],
                     dtype="float32", mutates="self")
    _, res = runner.case(case)
    assert "outside_view_changed" not in res
    assert _judge(case, res)["status"] == "pass"


def test_correct_in_place_and_out_views(runner):
    cases = [
        views_case(3, "mul_.Tensor", "mul_", [viewed([4, 9], TSLICE),
                                               viewed([4, 9], TSLICE)]),
        views_case(4, "mul_.Tensor", "mul_", [viewed([6], NARROW1), tensor([6],
                                                                            dtype="float32")]),
        views_case(5, "neg.out", "neg_out", [tensor([4, 9], dtype="int32", domain="int")],
                   {"out": {"t": "out", "shape": [4, 9], "dtype": "int32", "view": STEP}},
                   mutates="out", dtype="int32"),
        # the defective op on a view without gaps is right as well
        views_case(6, "sigmoid_", "sigmoid_", [viewed([6], NARROW1)]),
    ]
    for case in cases:
        _, res = runner.case(case)
        ov = res["outside_view_changed"]
        assert ov["c"] == 0 and ov["n"] == 0 and ov["outside"] > 0, (case, res)
        assert _judge(case, res)["status"] == "pass", (case, res)


def test_repro_of_view_write_fails(runner, tmp_path):
    _, res = runner.case(SIGMOID_)
    v, repro = _judged(SIGMOID_, res)
    assert v["reason"] == "writes_outside_view", v
    assert len(repro.splitlines()) <= 40, repro
    proc = _run(repro, tmp_path)
    assert proc.returncode != 0 and "AssertionError" in proc.stderr, proc.stdout
    assert "writes_outside_view" in proc.stderr, proc.stderr
    # native PyTorch in the library's place writes only the view
    good = _run(repro, tmp_path, OPSCREEN_REPRO_NATIVE="1")
    assert good.returncode == 0, good.stderr
