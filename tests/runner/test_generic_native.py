"""Every case the schema-driven generator makes for FlagGems 5.0.2's table,
run natively (aten on the CPU, no library): the arguments must make sense.

build/sweepdump expands tests/data/flag_gems-5.0.2-entries.json (catalog keys
included); each case's inputs come from the runner's own build_args().  A
case whose native call raises is a case the daemon would judge "not
applicable": a few are expected (exotic dtypes, CPU kernels that lack a
half-precision or CUDA-only op), most are not.
"""
import collections
import json
import os
import re
import subprocess
import sys

import pytest
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "probes"))

from opscreen_runner import inputs  # noqa: E402

pytestmark = pytest.mark.slow  # make test-fast leaves this file out

SWEEPDUMP = os.path.join(ROOT, "build", "sweepdump")
ENTRIES = os.path.join(ROOT, "tests", "data", "flag_gems-5.0.2-entries.json")
# Cases above this many input elements are skipped here (time on 2 cores);
# the accumulation and random classes are built for the GPU.
MAX_NUMEL = 1 << 17
# The CPU build has no kernel for these at all.
CPU_GAP = re.compile(r"not implemented for|Could not run .* 'CPU' backend|"
                     r"only supported on CUDA|CUDA|cuda|"
                     r"expected scalar type Float but found (Half|BFloat16)")


def _numel(arg):
    if not isinstance(arg, dict):
        return 0
    if arg.get("t") in ("tensor", "out"):
        n = 1
        for s in arg.get("shape", []):
            n *= s
        return n * (2 if arg.get("layout") == "sliced" else 1)
    if arg.get("t") == "tensors":
        return sum(_numel(a) for a in arg.get("v", []))
    return 0


def _case_numel(case):
    return (sum(_numel(a) for a in case["args"]) +
            sum(_numel(a) for a in case["kwargs"].values()))


def _run(case):
    """None when the native call succeeds, else the error string."""
    op = inputs.resolve_op(case["key"])
    args, kwargs = inputs.build_args(case, "cpu")
    args, kwargs, _ = inputs.fresh(args, kwargs, inputs.mutated(case))
    try:
        op(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - any native failure is reported
        return f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
    return None


@pytest.fixture(scope="module")
def dump():
    if not os.access(SWEEPDUMP, os.X_OK):
        pytest.skip("build/sweepdump missing (make)")
    with open(ENTRIES) as f:
        out = subprocess.run([SWEEPDUMP], stdin=f, capture_output=True,
                             text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def test_coverage(dump):
    assert len(dump) == 434
    unsupported = [d for d in dump if not d["supported"]]
    for d in unsupported:
        assert d.get("reason"), d["key"]
    assert len(unsupported) <= 434 * 5 // 100, [
        (d["key"], d["reason"]) for d in unsupported]


def test_every_generated_tensor_is_draw_2(dump):
    """The daemon's generators give every tensor ARG draw 2 (docs/protocol.md,
    Domains: narrow floats drawn in float32); a case without it is one
    stored before, drawn as it was then."""
    tensors = []

    def walk(v):
        if isinstance(v, dict):
            if v.get("t") == "tensor":
                tensors.append(v)
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    walk(dump)
    assert len(tensors) > 1000
    assert all(a.get("draw") == 2 for a in tensors), [a for a in tensors if "draw" not in a][:3]


def test_every_case_runs_natively(dump):
    torch.manual_seed(0)
    torch.set_num_threads(2)
    raised = collections.Counter()
    examples = {}
    ok_dtype = collections.defaultdict(set)
    ok_class = collections.defaultdict(set)
    want_dtype = collections.defaultdict(set)
    want_class = collections.defaultdict(set)
    cpu_gap = collections.defaultdict(int)
    ran = skipped = 0
    catalog = collections.Counter()
    for d in dump:
        if not d["supported"]:
            continue
        for case in d["cases"]:
            if d["source"] == "catalog":
                # catalog.c's cases: reported, not this test's to judge
                if _case_numel(case) <= MAX_NUMEL and _run(case):
                    catalog[case["key"]] += 1
                continue
            key = case["key"]
            if case["class"] != "dtype_exotic":
                want_dtype[key].add(case["dtype"])
                want_class[key].add(case["class"])
            if _case_numel(case) > MAX_NUMEL:
                skipped += 1
                ok_dtype[key].add(case["dtype"])
                ok_class[key].add(case["class"])
                continue
            ran += 1
            err = _run(case)
            if err is None:
                ok_dtype[key].add(case["dtype"])
                ok_class[key].add(case["class"])
                continue
            if CPU_GAP.search(err):
                cpu_gap[key] += 1
                continue
            if case["class"] == "dtype_exotic":
                raised["dtype_exotic"] += 1
                continue
            raised[key] += 1
            examples.setdefault(key, (case["class"], case["dtype"], err))
    nraised = sum(raised.values())
    print(f"\nnative on CPU: {ran} cases run, {skipped} skipped (> {MAX_NUMEL} "
          f"elements), {nraised} raised ({raised['dtype_exotic']} of them "
          f"dtype_exotic), {sum(cpu_gap.values())} hit a CPU kernel gap "
          f"in {len(cpu_gap)} keys")
    if catalog:
        print(f"  (catalog keys, native raised: {dict(catalog)})")
    for key, (cls, dt, err) in sorted(examples.items()):
        print(f"  {key} [{cls} {dt}] x{raised[key]}: {err}")
    # Every key and dtype has a case that runs, unless the CPU lacks the
    # kernel altogether (e.g. CUDA-only attention, half-precision gaps).
    missing = []
    for key, dts in want_dtype.items():
        for dt in sorted(dts - ok_dtype[key]):
            if not cpu_gap.get(key):
                missing.append((key, dt))
    assert not missing, missing
    missing = [(k, sorted(c - ok_class[k])) for k, c in want_class.items()
               if c - ok_class[k] and not cpu_gap.get(k)]
    assert not missing, missing
    non_exotic = nraised - raised["dtype_exotic"]
    assert non_exotic <= ran // 50, f"{non_exotic} of {ran} cases raised natively"
