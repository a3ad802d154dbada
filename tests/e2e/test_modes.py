"""Deployment modes and the library's own entry points, against the real
daemon and runner on the demo library.

The demo library's `fused` module (its entry points, called by engines
outside aten) holds silu_and_mul and skip_layer_norm (right), gelu_and_mul
(right eagerly, but it reads its input on the host, which
torch.compile(fullgraph=True) cannot trace), moe_sum (right, but a Python
branch on its expert count recompiles a dynamic compile) and
fused_add_rms_norm (wrong on 3-D inputs), and topk_softmax and
grouped_topk (right, breaking ties between experts its own way). The host screens
same_shape, reduction and contract cases with runner.modes = eager,compile,
cudagraph on the CPU: the trace class runs, the graph class cannot (no CUDA
device), so mode=cudagraph lists allow nothing. Its op scope (runner.ops) is
every entry point and add, the one aten name read here.

The trace cases compile with runner.compile_backend = eager: what these
tests assert (graph breaks, recompiles, frame counts, the lists) is decided
by Dynamo's capture, which is the same under any backend, and Inductor's C++
build of every case made this screen the suite's costliest (670 CPU-s of
its 750 cases, 2026-12-07). Inductor's own compiles are the runner suite's
(tests/runner/test_modes_compiles.py, test_repro.py's GELU_TRACE)."""
import json
import os
import re
import sqlite3
import subprocess
import sys

import pytest

from e2e_harness import F32, ROOT, full_screen

# every entry point of the library and the one aten name the tests read
# (add: its trace case): runner.ops, every other name withheld as outside the
# host's scope
ENTRY_POINTS = (
    "apply_repetition_penalties", "bucket_sort_topk", "chunk_gated_delta_rule_fwd",
    "concat_and_cache_mla", "cutlass_scaled_mm", "cross_entropy_loss", "dgeglu",
    "dispatch_fused_moe_kernel", "invoke_fused_moe_triton_kernel", "dreglu", "dswiglu",
    "fused_add_rms_norm", "fused_experts_impl", "flash_mla", "flash_mla_sparse_fwd",
    "fused_recurrent_gated_delta_rule_fwd", "geglu", "gelu_and_mul", "grouped_topk",
    "inplace_fused_experts", "instance_norm", "moe_align_block_size",
    "moe_align_block_size_triton", "mhc_bwd", "mhc_bwd_ref", "mhc_post", "mhc_pre",
    "moe_sum", "outer", "rwkv_ka_fusion", "rwkv_mm_sparsity", "outplace_fused_experts",
    "reglu", "reshape_and_cache", "reshape_and_cache_flash", "silu_and_mul",
    "silu_and_mul_out", "skip_layer_norm", "sinkhorn_forward", "sparse_attn_triton",
    "swiglu", "topk_softmax", "weight_norm")
SCOPE = {"runner__dtypes": "float32",
         "runner__classes": "same_shape,reduction,contract,trace,graph",
         "runner__carry": "no", "runner__compile_backend": "eager",
         "runner__ops": ",".join(("add",) + ENTRY_POINTS)}


@pytest.fixture(scope="module")
def screened(tmp_path_factory):
    d, run = full_screen(tmp_path_factory.mktemp("modes") / "d", SCOPE)
    d.run = run
    yield d
    d.stop()


def rows(d, sql, *args):
    db = sqlite3.connect(d.db)
    try:
        return db.execute(sql, args).fetchall()
    finally:
        db.close()


def test_entry_points_are_screened_against_their_references(screened):
    d = screened
    entries = dict(rows(d, "SELECT key, screened FROM entries WHERE run_id=? "
                        "AND key LIKE 'fused::%'", d.run))
    assert entries == {"fused::apply_repetition_penalties": 1,
                       "fused::bucket_sort_topk": 1,
                       "fused::chunk_gated_delta_rule_fwd": 1,
                       "fused::concat_and_cache_mla": 1,
                       "fused::cutlass_scaled_mm": 1,
                       "fused::cross_entropy_loss": 1, "fused::dgeglu": 1,
                       "fused::dispatch_fused_moe_kernel": 1,
                       "fused::invoke_fused_moe_triton_kernel": 1,
                       "fused::dreglu": 1, "fused::dswiglu": 1,
                       "fused::fused_add_rms_norm": 1,
                       "fused::fused_experts_impl": 1,
                       "fused::flash_mla": 1, "fused::flash_mla_sparse_fwd": 1,
                       "fused::fused_recurrent_gated_delta_rule_fwd": 1,
                       "fused::geglu": 1,
                       "fused::gelu_and_mul": 1, "fused::grouped_topk": 1,
                       "fused::inplace_fused_experts": 1, "fused::instance_norm": 1,
                       "fused::moe_align_block_size": 1,
                       "fused::moe_align_block_size_triton": 1,
                       "fused::mhc_bwd": 1, "fused::mhc_bwd_ref": 1,
                       "fused::mhc_post": 1, "fused::mhc_pre": 1, "fused::moe_sum": 1, "fused::outer": 1,
                       "fused::rwkv_ka_fusion": 1, "fused::rwkv_mm_sparsity": 1,
                       "fused::outplace_fused_experts": 1,
                       "fused::reglu": 1, "fused::reshape_and_cache": 1,
                       "fused::reshape_and_cache_flash": 1, "fused::silu_and_mul": 1,
                       "fused::silu_and_mul_out": 1, "fused::skip_layer_norm": 1,
                       "fused::sinkhorn_forward": 1, "fused::sparse_attn_triton": 1,
                       "fused::swiglu": 1, "fused::topk_softmax": 1,
                       "fused::weight_norm": 1}, entries
    st, allow = d.get_json("/allowlist")
    assert st == 200, allow
    assert "silu_and_mul" in allow["names"] and "gelu_and_mul" in allow["names"]
    # right, with the output buffer the engine passes, or the input's last
    # dim split into input and gate
    for name in ("silu_and_mul_out", "swiglu", "geglu", "reglu",
                 "apply_repetition_penalties", "reshape_and_cache_flash",
                 "reshape_and_cache", "concat_and_cache_mla", "dswiglu", "dgeglu",
                 "dreglu", "outer", "weight_norm", "fused_experts_impl",
                 "outplace_fused_experts", "inplace_fused_experts",
                 "cross_entropy_loss", "instance_norm", "rwkv_mm_sparsity",
                 "rwkv_ka_fusion", "mhc_post", "sinkhorn_forward",
                 "bucket_sort_topk", "fused_recurrent_gated_delta_rule_fwd",
                 "chunk_gated_delta_rule_fwd", "mhc_bwd", "mhc_bwd_ref",
                 "invoke_fused_moe_triton_kernel", "dispatch_fused_moe_kernel"):
        assert name in allow["names"], (name, allow["names"])
    # mhc_pre takes a bfloat16 residual only: a float32-scoped screen has
    # no case of it, so it is withheld, never allowed unmeasured
    # so do cutlass_scaled_mm (fp8 or int8 in, bfloat16 or float16 out) and
    # the attention kernels (bfloat16, flash_mla float16 too)
    for name in ("mhc_pre", "cutlass_scaled_mm", "sparse_attn_triton", "flash_mla",
                 "flash_mla_sparse_fwd"):
        assert name not in allow["names"]
        assert [w for w in allow["withheld"] if w["name"] == name], allow["withheld"]
    # the experts it picks are judged by the logits they pick: a tie broken
    # the other way is right (its ties case ran and passed)
    assert "topk_softmax" in allow["names"], allow
    ties = [st for spec, st in rows(
        d, "SELECT c.spec, r.status FROM results r JOIN cases c ON c.id = "
        "r.case_id WHERE c.run_id=? AND c.key='fused::topk_softmax'", d.run)
        if json.loads(spec)["args"][0].get("domain") == "int"]
    assert ties and all(t == "pass" for t in ties), ties
    # likewise the grouped routing (DeepSeek-V3's): tied groups and experts
    # routed another way, judged in fp64 by the route, not the ids
    assert "grouped_topk" in allow["names"], allow
    ties = [st for spec, st in rows(
        d, "SELECT c.spec, r.status FROM results r JOIN cases c ON c.id = "
        "r.case_id WHERE c.run_id=? AND c.key='fused::grouped_topk'", d.run)
        if json.loads(spec)["args"][0].get("domain") == "int"]
    assert len(ties) >= 2 and all(t == "pass" for t in ties), ties
    st, deny = d.get_json("/denylist")
    (norm,) = [n for n in deny["names"] if n["name"] == "fused_add_rms_norm"]
    assert norm["severity"] == "critical", norm
    assert norm["class"] in ("reduction", "contract"), norm
    # found on a 3-D input normalised over its last dim, as planted
    st, case = d.get_json(f"/cases/{norm['evidence'][0]['case']}")
    assert len(case["spec"]["args"][0]["shape"]) == 3, case["spec"]


def test_eager_lists_do_not_change_with_the_modes(screened):
    st, allow = screened.get_json("/allowlist")
    st2, eager = screened.get_json("/allowlist?mode=eager")
    assert st == st2 == 200
    assert allow["names"] == eager["names"] and eager["mode"] == "eager"


def test_compile_list_denies_the_entry_point_that_breaks_tracing(screened):
    d = screened
    st, comp = d.get_json("/allowlist?mode=compile")
    assert st == 200, comp
    assert comp["mode"] == "compile"
    st, eager = d.get_json("/allowlist")
    # a subset of the eager list: verified eagerly and under torch.compile
    assert set(comp["names"]) <= set(eager["names"])
    assert "silu_and_mul" in comp["names"], comp
    # right entry points whose call allocates (the output buffer an engine
    # passes) or routes trace whole: opscreen's own call wrapper traces too
    for name in ("silu_and_mul_out", "grouped_topk", "topk_softmax", "swiglu",
                 "reshape_and_cache_flash", "concat_and_cache_mla"):
        assert name in comp["names"], (name, comp)
    assert "gelu_and_mul" not in comp["names"]
    st, deny = d.get_json("/denylist?mode=compile")
    (gelu,) = [n for n in deny["names"] if n["name"] == "gelu_and_mul"]
    ev = [e for e in gelu["evidence"] if e.get("mode") == "compile"]
    assert ev and ev[0]["class"] == "trace" and gelu["severity"] == "loud", gelu
    assert "data-dependent" in ev[0]["detail"] or "graph" in ev[0]["detail"], ev
    # the eager deny-list does not hold it
    st, plain = d.get_json("/denylist")
    assert "gelu_and_mul" not in {n["name"] for n in plain["names"]}
    # every name the compile list allows has a verified compile verdict for
    # every key x dtype
    verdicts = rows(d, "SELECT name, compile_verdict FROM verdicts WHERE "
                    "run_id=? AND dtype != 'any'", d.run)
    for name, cv in verdicts:
        if name in comp["names"]:
            assert cv == "verified", (name, cv)


def test_an_entry_point_that_recompiles_per_shape_is_a_compile_hazard(screened):
    """The demo's moe_sum branches in Python on the expert count: right
    eagerly, but its dynamic compile over k=2 and k=8 compiles twice where
    native's compiles once."""
    d = screened
    st, eager = d.get_json("/allowlist")
    assert "moe_sum" in eager["names"], eager
    st, deny = d.get_json("/denylist?mode=compile")
    (moe,) = [n for n in deny["names"] if n["name"] == "moe_sum"]
    assert moe["verdict"] == "hazard" and moe["reason"] == "recompiles", moe
    assert "compiled 2 times" in moe["detail"], moe
    st, comp = d.get_json("/allowlist?mode=compile")
    assert "moe_sum" not in comp["names"]


def test_a_trace_case_compiles_once_over_two_shapes(screened):
    d = screened
    facts = rows(d, "SELECT c.key, json_extract(r.figures, '$.trace') FROM "
                 "cases c JOIN results r ON r.case_id = c.id WHERE c.run_id=? "
                 "AND c.class='trace' AND c.key='add.Tensor'", d.run)
    assert facts, "no trace case of add.Tensor"
    import json
    tr = json.loads(facts[0][1])
    assert tr["compiles"] == 1 and tr["dynamic_compiles"] == 1, tr


def test_trace_cases_carry_the_configured_backend(screened):
    """runner.compile_backend is part of each trace case (a stored case
    replays with it; a case of another backend is another case, never
    carried), and the other classes' cases are as without it."""
    d = screened
    specs = rows(d, "SELECT class, spec FROM cases WHERE run_id=?", d.run)
    backends = {(cls, json.loads(spec).get("backend")) for cls, spec in specs}
    assert ("trace", "eager") in backends, backends
    assert {b for cls, b in backends if cls == "trace"} == {"eager"}, backends
    assert {b for cls, b in backends if cls != "trace"} == {None}, backends
    # a failing trace case's repro compiles with it
    (repro,) = rows(d, "SELECT r.repro FROM cases c JOIN results r ON r.case_id = c.id "
                    "WHERE c.run_id=? AND c.class='trace' AND c.key='fused::gelu_and_mul'",
                    d.run)[0]
    assert "backend='eager'" in repro, repro


def test_cudagraph_lists_withhold_everything_without_a_gpu(screened):
    st, cg = screened.get_json("/allowlist?mode=cudagraph")
    assert st == 200 and cg["names"] == [] and cg["mode"] == "cudagraph", cg
    st, eager = screened.get_json("/allowlist")
    why = {w["name"]: [r["reason"] for r in w["reasons"]] for w in cg["withheld"]}
    # every name allowed eagerly is withheld, for want of a CUDA device
    for name in eager["names"]:
        assert any("inconclusive in mode cudagraph: needs_device" in r
                   for r in why[name]), (name, why.get(name))


def test_mode_names_tool_agrees_with_the_served_mode_lists(screened):
    """bench/mode_names.py (names per mode from a store's verdicts, for
    restricted runs that serve no list) allows exactly the entry points
    the daemon's eager and compile lists allow."""
    d = screened
    out = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "mode_names.py"),
                          d.db, "--like", "fused::%"], capture_output=True, text=True,
                         check=True).stdout
    tool = {m: set(re.search(rf"allowed in {m}: \d+ of \d+: ?(.*)", out).group(1).split(", "))
            - {""} for m in ("eager", "compile", "cudagraph")}
    entries = {k.split("::", 1)[1] for (k,) in rows(
        d, "SELECT key FROM entries WHERE run_id=? AND key LIKE 'fused::%'", d.run)}
    for m, q in (("eager", ""), ("compile", "?mode=compile"), ("cudagraph", "?mode=cudagraph")):
        st, allow = d.get_json("/allowlist" + q)
        served = set(allow.get("names", [])) & entries if st == 200 else set()
        assert tool[m] == served, (m, tool[m] ^ served)
    assert tool["eager"] and not tool["cudagraph"], tool


@pytest.mark.parametrize("query", ["mode=jit", "mode=", "mode=COMPILE"])
def test_bad_mode_is_refused(screened, query):
    st, body = screened.get_json("/allowlist?" + query)
    assert st == 400 and "mode must be" in body["error"], body


def test_without_the_modes_screened_mode_lists_withhold(tmp_path):
    d, run = full_screen(tmp_path / "d", dict(F32, runner__carry="no"))
    try:
        st, eager = d.get_json("/allowlist")
        assert st == 200 and eager["names"], eager
        st, comp = d.get_json("/allowlist?mode=compile")
        assert st == 200 and comp["names"] == [], comp
        assert any("not screened in mode compile" in r["reason"]
                   for w in comp["withheld"] for r in w["reasons"]), comp
    finally:
        d.stop()


def test_opscreenctl_takes_the_mode(screened):
    ctl = os.path.join(ROOT, "build", "opscreenctl")
    hp = f"127.0.0.1:{screened.port}"
    r = subprocess.run([ctl, "-H", hp, "allowlist", "--mode", "compile", "--format",
                        "text"], capture_output=True, text=True, timeout=60)
    st, comp = screened.get_json("/allowlist?mode=compile")
    assert r.returncode == 0, r.stderr
    names = [ln for ln in r.stdout.splitlines() if not ln.startswith("#")]
    assert names == comp["names"] and "mode compile" in r.stdout, r.stdout
    r = subprocess.run([ctl, "-H", hp, "allowlist", "--mode", "jit"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--mode must be" in r.stderr, (r.returncode, r.stderr)
