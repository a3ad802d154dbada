"""Renders a CASE as a standalone Python script (imports torch and the library).

The script carries inputs.py and figures.py verbatim, so it regenerates the same
input bytes and the same figures as the runner, then asserts the DESIGN.md pass
rule: AssertionError (or the candidate's own exception) when the case fails.
"""

import inspect
import json

from . import figures, inputs
from .execute import STEADY_CALLS

_HEAD = '''#!/usr/bin/env python3
"""opscreen repro: case {id}, {key} served by {module}.{name} ({dtype}, {cls}).

Runs the candidate (only {name} enabled), native PyTorch and the fp64 oracle on
regenerated inputs, prints the figures and asserts the opscreen pass rule; the
candidate is called {calls} times on the same inputs, as the runner calls it, and
every call's output that differs from the first is judged too.
Device: cuda when available, else cpu.
"""
import json

import torch
import {module} as library

CASE = json.loads({case!r})
CALLS = {calls}
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
'''

_FAILURES = '''
def failures(case, outs, alias_c):
    """The DESIGN.md pass rule, one message per violation."""
    bad = []
    for o in outs:
        c, n, at = o["cand"], o["native"], "output %d: " % o["index"]
        if c is None or n is None:
            bad.append(at + "present in only one of candidate/native")
            continue
        if c["shape"] != n["shape"] or c["dtype"] != n["dtype"]:
            bad.append(at + "candidate %s %s, native %s %s"
                       % (c["shape"], c["dtype"], n["shape"], n["dtype"]))
        if o["kind"] == "float" and "err_abs_c" in o:
            if o["err_abs_c"] > max(2 * o["err_abs_n"], 2 * o["R"]):
                bad.append(at + "err_abs %g > max(2*%g, 2R=%g)"
                           % (o["err_abs_c"], o["err_abs_n"], 2 * o["R"]))
            if o["err_ulp_c"] > max(2 * o["err_ulp_n"], 1.0):
                bad.append(at + "err_ulp %g > max(2*%g, 1)" % (o["err_ulp_c"], o["err_ulp_n"]))
            own = o["nonfinite_mismatch_c"] - o.get("nonfinite_as_native_c", 0)
            if own > 0:
                bad.append(at + "%d nan/inf positions differ from the oracle "
                           "and from native" % own)
        elif o.get("mismatch_c"):
            bad.append(at + "%d %s mismatches, first at %s"
                       % (o["mismatch_c"], o["kind"], o.get("first_bad_c")))
    if mutated(case) and not alias_c:
        bad.append("result is not the written %s tensor" % mutated(case))
    return bad

'''

_MAIN = _FAILURES + '''
def main():
    op = resolve_op(CASE["key"])
    mutates = mutated(CASE)
    args, kwargs = build_args(CASE, DEVICE)
    print("inputs sha256", digest(args, kwargs))
    try:
        nargs, nkw, _ = fresh(args, kwargs, mutates)
        native = op(*nargs, **nkw)
    except Exception as e:
        print("NOT APPLICABLE: native raised %s: %s" % (type(e).__name__, e))
        return
    oargs, okw, _ = fresh(upcast(args), upcast(kwargs), mutates)
    oracle = op(*oargs, **okw)
    bad, first = [], None
    with library.use_gems(include=[CASE["name"]]):
        for call in range(1, CALLS + 1):
            cargs, ckw, written = fresh(args, kwargs, mutates)
            cand = op(*cargs, **ckw)  # an exception here is the finding
            if DEVICE == "cuda":
                torch.cuda.synchronize()
            if call == 1:
                first = cand
                alias_c = (isinstance(cand, torch.Tensor) and written is not None
                           and cand.data_ptr() == written.data_ptr())
            elif same_bits(first, cand) or CASE.get("compare") == "shape_only":
                continue
            outs = compare(CASE, op, args, kwargs, cand, native, oracle)
            for o in outs:
                print("call %d:" % call, json.dumps(o))
            bad += ["call %d: %s" % (call, b)
                    for b in failures(CASE, outs, alias_c if call == 1 else True)]
    # every call gave the same bits: called again beside poison (the dtype's
    # lowest, then highest value around each input), as the runner does,
    # with the library enabled for the calls alone: the output must not
    # change to a wrong one nor the poison be overwritten
    def cand_call(a, k):
        with library.use_gems(include=[CASE["name"]]):
            out = op(*a, **k)
            if DEVICE == "cuda":
                torch.cuda.synchronize()
        return out

    if not bad and CALLS > 1 and CASE.get("compare", "float") != "shape_only" \
            and same_bits(first, cand):
        for side in ("low", "high"):
            gargs, gkw, guards = guarded(args, kwargs, mutates, side)
            if not guards:
                break
            out = cand_call(gargs, gkw)
            writes = not intact(guards)
            if not same_bits(first, out):
                g2, gk2, _ = guarded(args, kwargs, mutates, side)
                a2, k2, _ = fresh(args, kwargs, mutates)
                if same_bits(out, cand_call(g2, gk2)) and same_bits(first, cand_call(a2, k2)):
                    outs = compare(CASE, op, args, kwargs, out, native, oracle)
                    for o in outs:
                        print("beside %s poison:" % side, json.dumps(o))
                    # changed but within the rule (float atomics summing in
                    # another order): no finding
                    if failures(CASE, outs, True):
                        bad.append("its output changed when the memory next to "
                                   "its inputs held their dtype's %s value: it "
                                   "reads outside its inputs" % side)
                        break
            if writes:
                bad.append("it overwrote the memory next to its inputs "
                           "(their dtype's %s value)" % side)
                break
    assert not bad, "; ".join(bad)
    print("PASS")


if __name__ == "__main__":
    main()
'''


_HUGE = '''#!/usr/bin/env python3
"""opscreen repro: case {id}, {key} served by {module}.{name} ({dtype}, {cls}),
2^31-element operands made on the GPU by kernels/ (not self-contained: run it
from an opscreen checkout with PYTHONPATH=probes and OPSCREEN_KERNELS pointing
at build/libopscreen_kernels.so). It runs the case as the runner does and
asserts the opscreen pass rule on every 65521st and the last 4096 positions.
"""
import json

from opscreen_runner.adapters import FlagGemsStyle
from opscreen_runner.execute import run_case
from opscreen_runner.inputs import mutated
{failures}
CASE = json.loads({case!r})
adapter = FlagGemsStyle({library!r})
adapter.load()
adapter.entries()
res = run_case(CASE, adapter, "cuda")
print(json.dumps(res, indent=1)[:4000])
assert res["status"] == "ok", res.get("cand_error") or res
bad = failures(CASE, res["outputs"], res.get("alias_c"))
assert not bad, "; ".join(bad)
print("PASS")
'''


def render(case, module):
    if case.get("huge"):
        lib = "flag_gems" if module == "flag_gems" else \
            "demolib" if module == "opscreen_demolib" else module
        return _HUGE.format(id=case.get("id"), key=case.get("key"),
                            name=case.get("name"), dtype=case.get("dtype"),
                            cls=case.get("class"), module=module, library=lib,
                            case=json.dumps(case, sort_keys=True),
                            failures=_FAILURES)
    calls = 1 if case.get("compare") == "stat" or case.get("class") == "compile" \
        else 1 + STEADY_CALLS
    head = _HEAD.format(id=case.get("id"), key=case.get("key"), name=case.get("name"),
                        dtype=case.get("dtype"), cls=case.get("class"), module=module,
                        case=json.dumps(case, sort_keys=True), calls=calls)
    return "\n".join([head, "# ---- opscreen_runner/inputs.py ----",
                      inspect.getsource(inputs), "# ---- opscreen_runner/figures.py ----",
                      inspect.getsource(figures), _MAIN])
