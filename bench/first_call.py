#!/usr/bin/env python3
"""first_call.py: a library's cold first call of one aten op, alone.

    python3 bench/first_call.py --op mm --dtype float32 7x33@33x5 64x128T@128x32

Each case (tensor shapes joined by '@', 'T' after a shape: the tensor is the
transpose of a contiguous one) runs in its own process with its own empty
Triton and FlagGems caches, all at once: with a core each, that is the
first call's floor without the other runners of a screen beside it.  Prints
one JSON line per case: first and second call in seconds, and the autotune
lines the library printed (TRITON_PRINT_AUTOTUNING=1).  Needs torch, a GPU
and the library (flag_gems) on PYTHONPATH.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def tensor(torch, spec, dtype):
    t = spec.endswith("T")
    dims = [int(d) for d in spec.rstrip("T").split("x")]
    if t:
        return torch.randn(dims[::-1], dtype=dtype, device="cuda").t()
    return torch.randn(dims, dtype=dtype, device="cuda")


def one(op, dtype, case):
    import torch
    import flag_gems
    dt = getattr(torch, dtype)
    args = [tensor(torch, s, dt) for s in case.split("@")]
    fn = getattr(torch.ops.aten, op)
    torch.cuda.synchronize()
    with flag_gems.use_gems():
        t0 = time.perf_counter()
        fn(*args)
        torch.cuda.synchronize()
        t1 = time.perf_counter()
        fn(*args)
        torch.cuda.synchronize()
        t2 = time.perf_counter()
    return {"op": op, "dtype": dtype, "case": case, "first_s": round(t1 - t0, 2),
            "second_s": round(t2 - t1, 4),
            "flag_gems": flag_gems.__version__}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--op", required=True)
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("cases", nargs="+")
    a = ap.parse_args()
    if a.one:
        print("RESULT " + json.dumps(one(a.op, a.dtype, a.cases[0])), flush=True)
        return
    procs = []
    for c in a.cases:
        d = tempfile.mkdtemp(prefix="first_call-")
        env = dict(os.environ, TRITON_CACHE_DIR=f"{d}/triton",
                   FLAGGEMS_CACHE_DIR=f"{d}/flaggems", TRITON_PRINT_AUTOTUNING="1")
        procs.append((c, time.perf_counter(), subprocess.Popen(
            [sys.executable, __file__, "--one", "--op", a.op, "--dtype", a.dtype, c],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)))
    for c, t0, p in procs:
        out, _ = p.communicate()
        res = [json.loads(l[7:]) for l in out.splitlines() if l.startswith("RESULT ")]
        tuned = [l for l in out.splitlines() if "autotuning" in l]
        r = res[0] if res else {"op": a.op, "dtype": a.dtype, "case": c,
                                "error": out[-1500:]}
        r["process_s"] = round(time.perf_counter() - t0, 1)
        r["autotune"] = tuned
        print(json.dumps(r), flush=True)


if __name__ == "__main__":
    main()
