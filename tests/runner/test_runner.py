"""The runner against opscreen_demolib on the CPU, without the daemon."""

import json
import os
import subprocess

from runner_harness import ROOT, Runner, make_case, tensor

ADD = make_case(1, "add.Tensor", "add", [tensor([3, 5]), tensor([5])], cls="broadcast")
MINIMUM = make_case(2, "minimum", "minimum", [tensor([5]), tensor([3, 5])], cls="broadcast")
SUM = make_case(3, "sum.dim_IntList", "sum_dim",
                [tensor([2, 4096], domain="positive"), {"t": "ints", "v": [1]}],
                cls="accumulation")


def only(result):
    assert result["status"] == "ok", result
    (out,) = result["outputs"]
    return out


def test_hello(runner):
    h = runner.hello
    assert h["type"] == "hello" and h["pid"] == runner.proc.pid and "error" not in h
    names = {e["name"] for e in h["entries"]}
    assert {"add", "minimum", "sum", "sum_dim", "clamp", "exp", "rsqrt", "cumsum"} <= names
    add = next(e for e in h["entries"] if e["key"] == "add.Tensor")
    assert add["schema"].startswith("add.Tensor(Tensor self, Tensor other")
    fp = h["fingerprint"]
    for field in ("library", "library_version", "library_hash", "torch", "triton", "cuda",
                  "driver", "gpu_name", "gpu_uuid", "device", "python"):
        assert isinstance(fp[field], str), field
    assert fp["library"] == "demolib" and fp["library_version"] == "0.1.0"
    assert fp["device"] == "cpu" and fp["gpu_name"] == "cpu" and fp["triton"] == ""
    assert len(fp["library_hash"]) == 64


def test_add_passes(runner):
    started, result = runner.case(ADD)
    assert started["type"] == "started" and started["id"] == 1 and "use_gems" in started["repro"]
    assert result["type"] == "result" and result["id"] == 1 and result["fatal"] is False
    out = only(result)
    assert out["kind"] == "float" and out["cand"] == out["native"]
    assert out["err_abs_c"] <= max(2 * out["err_abs_n"], 2 * out["R"])
    assert out["err_ulp_c"] <= max(2 * out["err_ulp_n"], 1.0)
    assert out["nonfinite_mismatch_c"] == 0
    assert {"cand_first_ms", "cand_steady_ms", "native_ms", "oracle_ms",
            "compare_ms"} <= set(result["times"])


def test_minimum_broadcast_shape(runner):
    out = only(runner.case(MINIMUM)[1])
    assert out["native"]["shape"] == [3, 5]
    assert out["cand"]["shape"] != out["native"]["shape"]
    assert "err_abs_c" not in out  # figures only when shapes match the oracle's


def test_minimum_same_shape_exact(runner):
    case = make_case(2, "minimum", "minimum", [tensor([3, 5]), tensor([3, 5])])
    out = only(runner.case(case)[1])
    assert out["cand"] == out["native"] and out["err_abs_c"] == 0.0


def test_sum_bf16_long_row(runner):
    out = only(runner.case(SUM)[1])
    assert out["err_abs_c"] > 10 * max(out["err_abs_n"], 2 * out["R"])


def test_clamp_without_max(runner):
    case = make_case(4, "clamp", "clamp", [tensor([8], "float32"), {"t": "float", "v": -0.5}],
                     dtype="float32", cls="contract")
    result = runner.case(case)[1]
    assert result["status"] == "cand_error" and "max" in result["cand_error"]


def test_exp_bf16_raises(runner):
    result = runner.case(make_case(5, "exp", "exp", [tensor([16])], cls="dtype_exotic"))[1]
    assert result["status"] == "cand_error"
    assert "bfloat16" in result["cand_error"]
    f16 = make_case(6, "exp", "exp", [tensor([16], "float16")], dtype="float16")
    assert runner.case(f16)[1]["status"] == "ok"


def test_exact_and_sort(runner):
    eq = make_case(7, "eq.Tensor", "eq", [tensor([4, 4], "int32", "int", low=0, high=3),
                                          tensor([4], "int32", "int", low=0, high=3)],
                   dtype="int32")
    out = only(runner.case(eq)[1])
    assert out["kind"] == "exact" and out["mismatch_c"] == 0
    # aten sort has no demolib override, so name a function of another key
    # and expect a harness error rather than a silent native-vs-native pass.
    bad = make_case(8, "sort", "add", [tensor([4, 9])], compare="sort")
    assert runner.case(bad)[1]["status"] == "harness_error"


def test_bad_specs_do_not_kill_the_loop(runner):
    for case in ([
        make_case(9, "add.Tensor", "add", [{"t": "tensor", "shape": [2], "dtype": "float99"}]),
        make_case(10, "add.Tensor", "add", [{"t": "wat"}]),
        make_case(11, "add.Tensor", "add", [tensor([2], domain="index")]),
        {"id": 12},
        "not a case",
    ]):
        started, result = runner.case(case)
        assert started["type"] == "started"
        assert result["status"] == "harness_error" and result["harness_error"]
    assert runner.case(ADD)[1]["status"] == "ok"


def test_rsqrt_kills_runner():
    r = Runner()
    assert r.recv()["type"] == "hello"
    case = make_case(13, "rsqrt", "rsqrt", [tensor([4], "float32", "positive")], dtype="float32")
    started, result = r.case(case)
    assert started["type"] == "started" and "rsqrt" in started["repro"]
    assert result is None
    assert r.proc.wait(timeout=30) != 0
    r.close()


def test_inputs_identical_across_processes():
    case = make_case(14, "add.Tensor", "add", [
        tensor([7, 9], layout="transposed"), tensor([9], "float16", "nonzero"),
    ], kwargs={"alpha": {"t": "float", "v": 0.5}})
    digests = []
    for _ in range(2):
        r = Runner(OPSCREEN_INPUT_DIGEST="1")
        r.recv()
        digests.append(r.case(case)[1]["inputs_sha256"])
        other = dict(case, seed=case["seed"] + 1)
        digests.append(r.case(other)[1]["inputs_sha256"])
        r.close()
    assert digests[0] == digests[2] and digests[1] == digests[3]
    assert digests[0] != digests[1]


def test_first_call_messages_and_cold_cache():
    """first_call_notify: first_call and first_done come between started and
    result. cold: the first call runs in an empty Triton cache of its own; the
    demo sub (OPSCREEN_DEMOLIB_SLOW_FIRST=sub:1.5:loaded) is slow only
    outside one."""
    r = Runner(OPSCREEN_DEMOLIB_SLOW_FIRST="sub:1.5:loaded")
    try:
        assert r.recv()["type"] == "hello"
        sub = make_case(5, "sub.Tensor", "sub", [tensor([4, 6], "float32"),
                                                  tensor([4, 6], "float32")],
                        dtype="float32", first_call_notify=True)
        r.send({"type": "case", "case": sub})
        got = [r.recv() for _ in range(4)]
        assert [m["type"] for m in got] == ["started", "first_call", "first_done",
                                            "result"], got
        assert all(m["id"] == 5 for m in got)
        assert got[3]["status"] == "ok" and got[3]["times"]["cand_first_ms"] >= 1500
        cold = dict(sub, id=6, cold=True,
                    args=[tensor([5, 7], "float32"), tensor([5, 7], "float32")])
        r.send({"type": "case", "case": cold})
        got = [r.recv() for _ in range(4)]
        assert [m["type"] for m in got] == ["started", "first_call", "first_done",
                                            "result"], got
        assert got[3]["times"]["cand_first_ms"] < 1500, got[3]["times"]
        # without the flag: started and result only
        started, res = r.case(dict(sub, id=7, first_call_notify=False))
        assert started["type"] == "started" and res["type"] == "result"
    finally:
        r.close()


def test_cuda_sync_without_a_gpu():
    """runner.cuda_sync: an unknown mode, or no CUDA driver, is reported and
    not raised; a runner on the CPU leaves the driver alone (no cuda_sync in
    its hello) whatever the mode."""
    from opscreen_runner import cudasync
    assert "unknown mode 'sleepy'" in cudasync.set_sync("sleepy")["error"]
    got = cudasync.set_sync("blocking")
    if "mode" not in got:  # this machine has no usable driver (CI): said why
        assert got["error"], got
    r = Runner(OPSCREEN_CUDA_SYNC="blocking")
    try:
        h = r.recv()
        assert h["type"] == "hello" and "error" not in h and "cuda_sync" not in h, h
        started, res = r.case(ADD)
        assert res["status"] == "ok", res
    finally:
        r.close()


def test_hello_says_the_autotune_cap():
    """runner.autotune_rep reaches the runner as OPSCREEN_AUTOTUNE_REP; its
    hello says the cap it set (none when unset), and cases run as before."""
    for env, want in (({"OPSCREEN_AUTOTUNE_REP": "5"}, 5.0), ({}, None)):
        r = Runner(**env)
        try:
            h = r.recv()
            assert h["type"] == "hello" and h.get("autotune_rep") == want, h
            _, res = r.case(ADD)
            assert res["status"] == "ok", res
        finally:
            r.close()


ARGMIN = make_case(8, "argmin", "argmin", [tensor([1023], "float16"), {"t": "int", "v": 0},
                                           {"t": "bool", "v": False}],
                   dtype="float16", compare="exact", cls="reduction")


def test_guard_finds_a_read_past_the_input(runner):
    """The demo argmin reads one element past a 1-D input: alone (its own
    storage) it is right every call, beside the guard's lowest fp16 value it
    returns index 1023 (its repro: tests/runner/test_repro.py)."""
    started, res = runner.case(ARGMIN)
    assert res["status"] == "ok", res
    assert res["outputs"][0]["mismatch_c"] == 0, res["outputs"]
    g = res["guard"]
    # raw observations; the daemon decides reads/writes (verdict_guard)
    assert g["poison"] == "low" and g["changed"] and g["reproduced"] and g["intact"], g
    assert "reads" not in g and "writes" not in g, g
    assert g["outputs"][0]["mismatch_c"] == 1, g
    assert res["times"]["guard_ms"] > 0


def test_a_compiling_first_call_still_gets_steady_calls_and_the_guard():
    """A first call of 0.5 s or more (STEADY_MAX_MS) may have been compiling:
    one more call decides. The demo sub's first call on a new shape takes
    0.8 s, its next calls microseconds, so the case gets its steady calls
    and the guard as a warm runner's would; an op slow on every call (the
    demo sub under OPSCREEN_DEMOLIB_SLOW, 1 s per call) gets one more call
    and no guard."""
    sub = make_case(11, "sub.Tensor", "sub", [tensor([4, 6], "float32"),
                                              tensor([4, 6], "float32")],
                    dtype="float32")
    r = Runner(OPSCREEN_DEMOLIB_SLOW_FIRST="sub:0.8:always")
    try:
        assert r.recv()["type"] == "hello"
        _, res = r.case(sub)
        t = res["times"]
        assert res["status"] == "ok" and t["cand_first_ms"] >= 800, t
        assert t["cand_steady_ms"] < 100 and "guard_ms" in t, t
    finally:
        r.close()
    r = Runner(OPSCREEN_DEMOLIB_SLOW="sub")
    try:
        assert r.recv()["type"] == "hello"
        _, res = r.case(dict(sub, id=12))
        t = res["times"]
        assert res["status"] == "ok" and t["cand_steady_ms"] >= 1000, t
        assert 2000 <= t["steady_total_ms"] + t["cand_first_ms"] < 3000, t
        assert "guard_ms" not in t, t
    finally:
        r.close()


def test_steady_calls_are_the_cases_own(runner):
    """The steady-call gate comes with the case ("steady", from the daemon's
    daemon/verdict.h): without it no steady call, so no repeat rule and no
    guard; max_ms 0 ends them after one call (every call is that slow);
    calls sets how many follow the first; a malformed one is the harness's."""
    bare = {k: v for k, v in ADD.items() if k != "steady"}
    _, res = runner.case(dict(bare, id=31))
    t = res["times"]
    assert res["status"] == "ok" and "cand_steady_ms" not in t and "guard_ms" not in t, t
    _, res = runner.case(dict(ADD, id=32, steady={"calls": 3, "max_ms": 0}))
    t = res["times"]
    assert "cand_steady_ms" in t and "guard_ms" not in t, t
    _, res = runner.case(dict(ADD, id=33, steady={"calls": 1, "max_ms": 1e9}))
    assert "cand_steady_ms" in res["times"] and "guard_ms" in res["times"], res["times"]
    for bad in ({"calls": -1, "max_ms": 1}, {"calls": 1.5, "max_ms": 1}, {"calls": 1},
                {"calls": True, "max_ms": 1}, [3, 500]):
        _, res = runner.case(dict(ADD, id=34, steady=bad))
        assert res["status"] == "harness_error" and "steady" in res["harness_error"], res


def test_opscreenctl_judge_exit_status():
    """opscreenctl judge: 0 pass or not applicable, 5 any other verdict, 1 bad
    input, 2 usage."""
    ctl = os.path.join(ROOT, "build", "opscreenctl")

    def run(body, *extra):
        return subprocess.run([ctl, "judge", *extra], input=body, capture_output=True,
                              text=True, timeout=30)

    case = {"key": "add.Tensor", "compare": "float"}
    ok = run(json.dumps({"case": case, "result": {"status": "ok", "outputs": []}}))
    assert ok.returncode == 0 and json.loads(ok.stdout)["status"] == "pass", ok
    na = run(json.dumps({"case": case, "result": {"status": "native_error",
                                                  "native_error": "E"}}))
    assert na.returncode == 0 and json.loads(na.stdout)["status"] == "na", na
    bad = run(json.dumps({"case": case, "result": {"status": "cand_error",
                                                   "cand_error": "RuntimeError: x"}}))
    v = json.loads(bad.stdout)
    assert bad.returncode == 5 and (v["status"], v["reason"]) == ("fail", "raises"), bad
    odd = run(json.dumps({"case": case, "result": {"status": "sideways"}}))
    assert odd.returncode == 5 and json.loads(odd.stdout)["status"] == "error", odd
    assert run("not json").returncode == 1
    assert run(json.dumps({"result": {}})).returncode == 1
    assert run("{}", "extra").returncode == 2


def test_guard_leaves_right_kernels_alone(runner):
    """Kernels that read and write only their tensors, an out= one among
    them (the demo abs.out's defect is elsewhere): no guard finding."""
    out = make_case(9, "abs.out", "abs_out", [tensor([4, 6], "float32")], dtype="float32",
                    kwargs={"out": {"t": "out", "shape": [4, 6], "dtype": "float32"}},
                    mutates="out")
    for case in (ADD, SUM, make_case(10, "argmin", "argmin",
                                     [tensor([6, 7], "float32"), {"t": "int", "v": 1},
                                      {"t": "bool", "v": True}],
                                     dtype="float32", compare="exact"), out):
        _, res = runner.case(case)
        assert res["status"] == "ok" and "guard" not in res, res
        assert "guard_ms" in res["times"], res["times"]


def test_guarded_inputs_keep_values_and_alignment():
    """inputs.guarded: each contiguous tensor is a view into a buffer of
    poison, 16-byte aligned like a fresh allocation; intact() sees a write
    into the poison."""
    import torch
    from opscreen_runner import inputs
    x = torch.arange(10, dtype=torch.float16).reshape(2, 5)
    idx = torch.tensor([1, 0], dtype=torch.int64)
    t = x.t()  # not contiguous: passed as it is
    args, kwargs, guards = inputs.guarded([x, t, [idx]], {"out": x}, "out", "low")
    assert torch.equal(args[0], x) and args[0].data_ptr() % 16 == 0
    assert args[1] is t and torch.equal(args[2][0], idx)
    assert kwargs["out"].data_ptr() != x.data_ptr() and torch.equal(kwargs["out"], x)
    assert len(guards) == 3 and inputs.intact(guards)
    buf, _ = guards[0]
    assert float(buf[0]) == torch.finfo(torch.float16).min == inputs.poison(torch.float16, "low")
    buf[inputs.GUARD + x.numel()] = 0  # one element past the first input
    assert not inputs.intact(guards)
    assert inputs.poison(torch.int8, "high") == 127 and inputs.poison(torch.bool, "low") is False
    assert inputs.poison(torch.complex64, "low") is None


def test_a_failed_disable_in_the_guard_ends_the_runner():
    """The guard enables the candidate for each of its calls; when leaving
    that context fails, the override may still be registered, so the case
    says so and is fatal (the runner is replaced), as on the main path."""
    from opscreen_runner.execute import run_case

    class Ctx:
        def __init__(self, fail):
            self.fail = fail

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            if self.fail:
                raise RuntimeError("cannot deregister")
            return False

    class Adapter:  # the first context is the case's, the next the guard's
        entry_fns = {}

        def __init__(self):
            self.n = 0

        def serves(self, key, name):
            return True

        def candidate(self, name, key=None):
            self.n += 1
            return Ctx(self.n > 1)

        def callable(self, key, op):
            return op

    case = make_case(13, "neg", "neg", [tensor([4, 6], "float32")], dtype="float32")
    res = run_case(case, Adapter(), "cpu")
    assert res["fatal"] and res["cand_error"] == "disable: RuntimeError: cannot deregister", res


SLOWLIB = '''"""A library whose neg is right and 3 ms slow per call."""
import time

import torch

__version__ = "0.0.1"


def neg(self):
    time.sleep(0.003)
    return self.clone().mul_(-1)


_FULL_CONFIG = (("neg", neg),)

'''


def test_speed_times_native_and_candidate_on_the_same_inputs(tmp_path):
    """RESULT's "speed": the median of up to 5 timed steady-state calls of
    native and of the candidate, each after one untimed warm-up, on the
    case's inputs in the runner's process, as many as the gate's "speed"
    says; none where it says 0 or nothing, for a case without steady calls,
    nor where 3 calls would not fit the case's max_ms."""
    from runner_harness import library_runner
    r = library_runner(tmp_path, "opscreen_slowlib", SLOWLIB)
    neg = make_case(41, "neg", "neg", [tensor([64], "float32")], dtype="float32")
    try:
        _, res = r.case(neg)
        assert "speed" in res, res
        sp = res["speed"]
        assert sp["clock"] == "host" and sp["calls"] == 5, sp
        assert sp["cand_ms"] >= 3 and sp["native_ms"] < 1, sp
        assert sp["cand_ms"] / sp["native_ms"] > 3, sp
        _, res = r.case(dict(neg, id=42, steady=dict(neg["steady"], max_ms=10)))
        assert "speed" not in res and "cand_steady_ms" in res["times"], res
        _, res = r.case(dict(neg, id=44, steady=dict(neg["steady"], speed=3)))
        assert res["speed"]["calls"] == 3, res
        for gate in ({"calls": 3, "max_ms": 500.0}, dict(neg["steady"], speed=0)):
            _, res = r.case(dict(neg, id=45, steady=gate))
            assert "speed" not in res and "cand_steady_ms" in res["times"], res
        _, res = r.case(dict(neg, id=46, steady=dict(neg["steady"], speed=-1)))
        assert res["status"] == "harness_error" and "speed" in res["harness_error"], res
        bare = {k: v for k, v in neg.items() if k != "steady"}
        _, res = r.case(dict(bare, id=43))
        assert "speed" not in res, res
    finally:
        r.close()
