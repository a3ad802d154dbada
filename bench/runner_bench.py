#!/usr/bin/env python3
"""runner_bench.py: the runner's own per-case time on this machine, per phase,
and its result records for a before/after diff.

    .venv/bin/python bench/runner_bench.py [--table demolib|FILE.json]
        [--every N] [--classes a,b] [--skip k1,k2] [--rounds R]
        [--records OUT.jsonl] [--profile OUT.prof] [--count] [--tree DIR]

Cases are the daemon's own (build/sweepdump over a registration table):
--table demolib (default) takes the runner's hello entries of
tests/demolib; a JSON file of entries (tests/data/flag_gems-5.0.2-entries.json)
screens those keys with the native op as the candidate (every name is served
and enabling it changes nothing), which exercises the comparison and both
oracles on the whole FlagGems table without FlagGems. Every N-th case of each
key is run (compile and random cases included unless --classes says
otherwise; --skip names keys left out; 2^31-element cases never: the daemon
drops them on the CPU), in process, through execute.run_case on the CPU.

Prints the total wall and CPU time of the fastest of --rounds R rounds, and
the mean over the cases (and over the cases whose first call is under 0.5 s,
as docs/bench/screen.md counts them) of each `times` phase, each case's phase
taken at its least over the R rounds (the first round pays torch's lazy
initialisations; others' work on a shared machine slows some rounds). --records writes one line per
case of the last round: the result without `times` (the figures the daemon
judges), for `diff` against another build. --profile runs one more round
under cProfile and writes its stats; --count one more that counts, per phase,
the aten ops on real tensors (a kernel launch each on a GPU), the reads of a
device value by the host (.item(), .tolist(), torch.equal, nonzero: a device
synchronisation each on a GPU), the tensors made from host values
(torch.tensor: a copy to a GPU; in `build` the inputs are made on the host by
design) and the calls into kernels/. The times printed
are never those of a profiled or counted round.

--tree DIR runs the runner of another checkout (say a worktree of the commit
before a change) with this checkout's sweepdump and kernels/ host library.
"""
import argparse
import collections
import contextlib
import cProfile
import json
import os
import subprocess
import sys
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


class NativeAdapter:
    """Every (key, name) served; the candidate is the native op."""

    modname = "native"

    def serves(self, key, name):
        return True

    def candidate(self, name):
        return contextlib.nullcontext()


def cases_of(entries, every, classes, skip):
    dump = subprocess.run([os.path.join(ROOT, "build", "sweepdump")],
                          input=json.dumps(entries), capture_output=True,
                          text=True, check=True).stdout
    out = []
    for line in dump.splitlines():
        e = json.loads(line)
        if e["key"] in skip:
            continue
        for i, c in enumerate(e.get("cases") or []):
            if i % every or c.get("huge") or (classes and c.get("class") not in classes):
                continue
            c.update(id=len(out) + 1, name=e["name"])
            out.append(c)
    return out


def run(execute, cases, adapter):
    recs, times = [], []
    for c in cases:
        try:
            res = execute.run_case(c, adapter, "cpu")
        except execute.HarnessError as e:
            res = {"status": "harness_error", "harness_error": str(e)}
        times.append(res.pop("times", {}))
        recs.append({"id": c["id"], "key": c["key"], "class": c.get("class"), **res})
    return recs, times


SYNCS = {"aten::_local_scalar_dense", "aten::equal", "aten::nonzero", "aten::is_nonzero"}
HOST_MADE = {"aten::lift_fresh"}  # torch.tensor(host values): a copy to a GPU


def count(execute, cases, adapter):
    """Per phase: aten ops on real tensors, host reads, kernels/ calls."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    from opscreen_runner import figures, inputs, kernels

    phase, tally = ["other"], collections.Counter()

    def within(name, fn):
        def wrapped(*a, **kw):
            outer, phase[0] = phase[0], name
            try:
                return fn(*a, **kw)
            finally:
                phase[0] = outer
        return wrapped

    def real(x):
        return isinstance(x, torch.Tensor) and x.device.type != "meta"

    class Ops(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            flat = torch.utils._pytree.tree_leaves((args, kwargs, out))
            if any(real(x) for x in flat):
                name = func._schema.name
                tally[phase[0], "sync" if name in SYNCS else
                      "host" if name in HOST_MADE else "op"] += 1
            return out

    saved = [(execute, "oracle_check"), (figures, "compare"), (figures, "same_bits"),
             (inputs, "build_args"), (execute, "_call"), (kernels, "_ck"),
             (torch.Tensor, "tolist")]
    old = [getattr(m, n) for m, n in saved]
    execute.oracle_check = within("oracle_check", execute.oracle_check)
    figures.compare = within("figures", figures.compare)
    figures.same_bits = within("figures", figures.same_bits)
    inputs.build_args = within("build", inputs.build_args)
    execute._call = within("calls", execute._call)
    ck = kernels._ck

    def counted_ck(*a):
        tally[phase[0], "kernels"] += 1
        return ck(*a)
    kernels._ck = counted_ck
    tolist = torch.Tensor.tolist

    def counted_tolist(t):
        tally[phase[0], "sync"] += 1
        return tolist(t)
    torch.Tensor.tolist = counted_tolist
    try:
        with Ops():
            run(execute, cases, adapter)
    finally:
        for (m, n), f in zip(saved, old):
            setattr(m, n, f)
    n = len(cases)
    print(f"\n| phase | aten ops per case | host reads per case | tensors made from "
          "host values per case | kernels/ calls per case |\n|---|---|---|---|---|")
    for p in ("build", "calls", "oracle_check", "figures", "other"):
        print(f"| {p} | {tally[p, 'op'] / n:.1f} | {tally[p, 'sync'] / n:.2f} | "
              f"{tally[p, 'host'] / n:.2f} | {tally[p, 'kernels'] / n:.2f} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--table", default="demolib")
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--classes", default="")
    ap.add_argument("--skip", default="rsqrt,tanh",
                    help="keys not run (demolib's planted crash and hang)")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--records")
    ap.add_argument("--profile")
    ap.add_argument("--count", action="store_true")
    ap.add_argument("--tree", default=ROOT)
    a = ap.parse_args()
    sys.path[:0] = [os.path.join(a.tree, "probes"), os.path.join(a.tree, "tests", "demolib")]
    os.environ.setdefault("OPSCREEN_KERNELS",
                          os.path.join(ROOT, "build", "libopscreen_kernels.so"))
    import torch
    from opscreen_runner import execute
    from opscreen_runner.adapters import FlagGemsStyle

    torch.set_grad_enabled(False)
    torch.set_num_threads(1)
    if a.table == "demolib":
        adapter = FlagGemsStyle("demolib")
        adapter.load()
        entries = adapter.entries()
    else:
        adapter = NativeAdapter()
        with open(a.table) as f:
            entries = json.load(f)
    cases = cases_of(entries, a.every, set(filter(None, a.classes.split(","))),
                     set(a.skip.split(",")))
    best, rounds = None, []
    for _ in range(a.rounds):
        t0, c0 = time.perf_counter(), time.process_time()
        recs, times = run(execute, cases, adapter)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        rounds.append(times)
        if best is None or wall < best[0]:
            best = wall, cpu
    wall, cpu = best
    n = len(cases)
    print(f"{n} cases, best of {a.rounds} rounds: {wall:.2f} s wall, {cpu:.2f} s CPU, "
          f"{wall / n * 1e3:.2f} ms per case (runner of {a.tree}, table {a.table}, "
          f"every {a.every})")
    # each case's phase at its least over the rounds: others' work on a
    # shared machine lands on some rounds of a case, rarely on all
    times = [{k: min(r[i][k] for r in rounds if k in r[i])
              for k in set().union(*(r[i] for r in rounds))} for i in range(n)]
    fast = [t for t in times if t.get("cand_first_ms", 1e9) < 500]
    print(f"| phase (least of {a.rounds} rounds per case) | mean ms, all {n} | mean ms, "
          f"{len(fast)} with a first call < 0.5 s |\n|---|---|---|")
    for k in sorted({k for t in times for k in t}):
        print(f"| {k} | {sum(t.get(k, 0) for t in times) / n:.3f} | "
              f"{sum(t.get(k, 0) for t in fast) / max(len(fast), 1):.3f} |")
    if a.records:
        with open(a.records, "w") as f:
            for rec in recs:
                f.write(json.dumps(rec, sort_keys=True) + "\n")
    if a.profile:
        prof = cProfile.Profile()
        prof.runcall(run, execute, cases, adapter)
        prof.dump_stats(a.profile)
    if a.count:
        count(execute, cases, adapter)


if __name__ == "__main__":
    main()
