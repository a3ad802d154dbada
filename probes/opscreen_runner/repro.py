"""Renders a CASE as a Python script that reproduces it (imports torch and the library).

The script carries inputs.py, figures.py and stats.py verbatim, so it
regenerates the same input bytes and the same figures as the runner, puts
them in the runner's RESULT form (docs/protocol.md) and leaves the judgement
to the daemon's rule: `opscreenctl judge` (daemon/verdict.c). AssertionError
when the case does not pass. The number of calls is the case's own (its
"steady" field, which the daemon sends); no rule or threshold lives here.
"""

import inspect
import json
import os
import shutil

from . import figures, inputs, stats
from .execute import steady_gate

_ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                      "..", ".."))

_HEAD = '''#!/usr/bin/env python3
"""opscreen repro: case {id}, {key} served by {module}.{name} ({dtype}, {cls}).

Runs the candidate (only {name} enabled), native PyTorch and the fp64 oracle on
regenerated inputs, prints the figures and the opscreen verdict, which
`opscreenctl judge` (the daemon's rule) gives: $OPSCREENCTL, else
{ctl}, else opscreenctl on PATH. The candidate is called {calls} times on
the same inputs, as the runner calls it, and every call's output that differs
from the first is judged too. Device: cuda when available, else cpu.
"""
import json
import os
import shutil
import subprocess
import time
import types

import torch
import {module} as library

CASE = json.loads({case!r})
CALLS = {calls}
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
'''

_JUDGE = '''
OPSCREENCTL = {ctl!r}


def judge(case, result):
    """The opscreen verdict of one RESULT: {{"status", "reason", "detail", ...}}."""
    ctl = os.environ.get("OPSCREENCTL") or (
        OPSCREENCTL if OPSCREENCTL and os.access(OPSCREENCTL, os.X_OK) else None) \\
        or shutil.which("opscreenctl")
    if ctl is None:
        raise SystemExit("opscreenctl not found: set OPSCREENCTL to the "
                         "opscreenctl of an opscreen build to judge the figures above")
    p = subprocess.run([ctl, "judge"], input=json.dumps({{"case": case, "result": result}}),
                       capture_output=True, text=True)
    if p.returncode not in (0, 5):
        raise SystemExit("opscreenctl judge: " + (p.stderr.strip() or str(p.returncode)))
    return json.loads(p.stdout)


def not_passed(case, results):
    """The verdicts of results (call, RESULT) that do not pass, as messages."""
    bad = []
    for call, res in results:
        v = judge(case, res)
        print(call + ": verdict", json.dumps(v))
        if v["status"] not in ("pass", "na"):
            bad.append("%s: %s %s: %s" % (call, v["status"], v["reason"], v["detail"]))
    return bad
'''

_MAIN = '''
def describe(e):
    return ("%s: %s" % (type(e).__name__, e))[:2000]


def call(op, args, kwargs, mutates, seed=None):
    """(output, error string or None, ms, the written input or None)."""
    a, k, written = fresh(args, kwargs, mutates)
    if seed is not None:
        torch.manual_seed(seed)
    try:
        t0 = time.perf_counter()
        out = op(*a, **k)
        if DEVICE == "cuda":
            torch.cuda.synchronize()
        return out, None, (time.perf_counter() - t0) * 1e3, written
    except Exception as e:
        return None, describe(e), None, None


def aliases(out, written):
    return isinstance(out, torch.Tensor) and written is not None \\
        and out.data_ptr() == written.data_ptr()


def main():
    op = resolve_op(CASE["key"])
    mutates = mutated(CASE)
    stat = CASE.get("compare") == "stat"
    seed = int(CASE.get("seed", 0)) if stat else None
    shape_only = CASE.get("compare", "float") == "shape_only"
    args, kwargs = build_args(CASE, DEVICE)
    print("inputs sha256", digest(args, kwargs))
    native, nerr, _, n_mut = call(op, args, kwargs, mutates, seed)
    oracle, oerr = None, None
    if not stat:
        oracle, oerr, _, _ = call(op, upcast(args), upcast(kwargs), mutates)
    outs = []
    with library.use_gems(include=[CASE["name"]]):
        for k in range(CALLS):
            outs.append(call(op, args, kwargs, mutates, seed if k == 0 else None))
    first, cerr, first_ms, c_mut = outs[0]
    if cerr:
        print("candidate raised", cerr)
    if nerr:
        print("native raised", nerr)
    res = {"status": {(False, False): "ok", (True, False): "cand_error",
                      (False, True): "native_error", (True, True): "both_error"}[
                          (cerr is not None, nerr is not None)],
           "outputs": [], "times": {"cand_first_ms": first_ms} if first_ms else {}}
    if cerr:
        res["cand_error"] = cerr
    if nerr:
        res["native_error"] = nerr
    if res["status"] != "ok":
        bad = not_passed(CASE, [("call 1", res)])
        assert not bad, "; ".join(bad)
        print("NOT APPLICABLE:", nerr)
        return
    if oerr:
        res["oracle_error"] = oerr
    ref = None if oerr else oracle

    def figs(cand):
        if stat:
            return stats.compare(CASE, op, args, kwargs, cand, native)
        return compare(CASE, op, args, kwargs, cand, native, ref)

    res["outputs"] = figs(first)
    if mutates:
        res["alias_c"], res["alias_n"] = aliases(first, c_mut), aliases(native, n_mut)
        w = written(args, kwargs, mutates)
        if is_view(w):
            res["outside_view_changed"] = outside_view_changed(w._base, c_mut, n_mut)
            print("outside the view:", json.dumps(res["outside_view_changed"]))
    for o in res["outputs"]:
        print("call 1:", json.dumps(o))
    # every later call whose bits differ from the first is judged as the
    # runner judges its last one ("repeat")
    judged, last = [], None
    for k, (out, err, _, _) in enumerate(outs[1:], start=2):
        if err is not None or stat:
            continue
        last = out
        if shape_only or same_bits(first, out):
            continue
        rep = {"call": k, "outputs": figs(out)}
        for o in rep["outputs"]:
            print("call %d:" % k, json.dumps(o))
        judged.append(("call %d" % k, dict(res, repeat=rep)))
    # every call gave the same bits: called again beside poison (the dtype's
    # lowest, then highest value around each input), as the runner does,
    # with the library enabled for the calls alone
    def cand_call(a, k):
        with library.use_gems(include=[CASE["name"]]):
            out = op(*a, **k)
            if DEVICE == "cuda":
                torch.cuda.synchronize()
        return out

    if last is not None and not shape_only and same_bits(first, last):
        for side in ("low", "high"):
            gargs, gkw, guards = guarded(args, kwargs, mutates, side)
            if not guards:
                break
            out = cand_call(gargs, gkw)
            whole = intact(guards)
            changed = not same_bits(first, out)
            reproduced = False
            if changed:
                g2, gk2, _ = guarded(args, kwargs, mutates, side)
                a2, k2, _ = fresh(args, kwargs, mutates)
                reproduced = same_bits(out, cand_call(g2, gk2)) and \\
                    same_bits(first, cand_call(a2, k2))
            if reproduced or not whole:
                res["guard"] = {"intact": whole, "changed": changed,
                                "reproduced": reproduced, "poison": side,
                                "outputs": figs(out) if changed and reproduced else []}
                for o in res["guard"]["outputs"]:
                    print("beside %s poison:" % side, json.dumps(o))
                break
    bad = not_passed(CASE, [("call 1", res)] + judged)
    assert not bad, "; ".join(bad)
    print("PASS")


if __name__ == "__main__":
    main()
'''


_HUGE = '''#!/usr/bin/env python3
"""opscreen repro: case {id}, {key} served by {module}.{name} ({dtype}, {cls}),
2^31-element operands made on the GPU by kernels/ (not self-contained: run it
from an opscreen checkout with PYTHONPATH=probes and OPSCREEN_KERNELS pointing
at build/libopscreen_kernels.so). It runs the case as the runner does, on
every 65521st and the last 4096 positions, and prints the opscreen verdict
(`opscreenctl judge`, the daemon's rule).
"""
import json
import os
import shutil
import subprocess

from opscreen_runner.adapters import FlagGemsStyle
from opscreen_runner.execute import run_case
{judge}
CASE = json.loads({case!r})
adapter = FlagGemsStyle({library!r})
adapter.load()
adapter.entries()
res = run_case(CASE, adapter, "cuda")
print(json.dumps(res, indent=1)[:4000])
bad = not_passed(CASE, [("call 1", res)])
assert not bad, "; ".join(bad)
print("PASS")
'''


def opscreenctl():
    """The opscreenctl beside this runner (a checkout's build/, an install's
    bin/), else the one on PATH, else None."""
    for p in (os.path.join(_ROOT, "build", "opscreenctl"),
              os.path.join(_ROOT, "..", "..", "bin", "opscreenctl")):
        if os.access(p, os.X_OK):
            return os.path.normpath(p)
    return shutil.which("opscreenctl")


def _stats_source():
    """stats.py for pasting, in a namespace of its own (it has a compare and
    a _meta of its own) that gets figures.py's bound_arg, its one import of
    this package."""
    src = "".join(line for line in inspect.getsource(stats).splitlines(True)
                  if not line.startswith("from ."))
    return ("stats = types.ModuleType(\"stats\")\nstats.bound_arg = bound_arg\n"
            "exec(%r, stats.__dict__)\n" % src)


def render(case, module):
    ctl = opscreenctl()
    judge = _JUDGE.format(ctl=ctl)
    if case.get("huge"):
        lib = "flag_gems" if module == "flag_gems" else \
            "demolib" if module == "opscreen_demolib" else module
        return _HUGE.format(id=case.get("id"), key=case.get("key"),
                            name=case.get("name"), dtype=case.get("dtype"),
                            cls=case.get("class"), module=module, library=lib,
                            case=json.dumps(case, sort_keys=True), judge=judge)
    calls = 1 if case.get("compare") == "stat" or case.get("class") == "compile" \
        else 1 + steady_gate(case)[0]
    head = _HEAD.format(id=case.get("id"), key=case.get("key"), name=case.get("name"),
                        dtype=case.get("dtype"), cls=case.get("class"), module=module,
                        case=json.dumps(case, sort_keys=True), calls=calls,
                        ctl=ctl or "the one beside the runner (none was found)")
    return "\n".join([head, judge, "# ---- opscreen_runner/inputs.py ----",
                      inspect.getsource(inputs), "# ---- opscreen_runner/figures.py ----",
                      inspect.getsource(figures), "# ---- opscreen_runner/stats.py ----",
                      _stats_source(), _MAIN])
