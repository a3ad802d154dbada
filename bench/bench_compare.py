"""Fused comparison (kernels/ osk_compare_float) against the torch chain of
figures.float_figures, on outputs of 1 GiB and 8 GiB (float32 and bfloat16).

Usage (GPU host, repository root, after make):
    python3 bench/bench_compare.py OUT.md [--sizes 1,8] [--dtypes float32,bfloat16]

Per size and dtype: time (CUDA events, median of --reps after one warm-up),
peak extra device memory (torch allocator peak over the tensors already
allocated, and the drop of cudaMemGetInfo's free bytes), and the device copy
bandwidth of a torch copy of the oracle tensor.  "Output size" is the size of
the candidate (C and N are that size, the fp64 oracle O is 8/itemsize times
it).  The fused comparison reads O twice (pass 1: max|O| for the ULP floor) and
C, N once: bytes read = |C| + |N| + 2|O|; copy bandwidth counts read + write.
The fused call is the runner's (execute.fused_figures): no tolerance, no
digests, contiguous C and N of the dtype D and a float64 O, which is the
kernels' fast path (osk_compare_float2 without flags).
"""
import argparse
import os
import platform
import statistics
import subprocess
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "probes"))

from opscreen_runner import figures, kernels  # noqa: E402

GiB = 2 ** 30
KEYS = ("R", "oracle_max", "err_abs_c", "err_abs_n", "err_ulp_c", "err_ulp_n",
        "nonfinite_mismatch_c", "nonfinite_mismatch_n")


def timed(fn, reps):
    """(median ms, result of the last call)."""
    res = fn()
    torch.cuda.synchronize()
    ms = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        res = fn()
        b.record()
        torch.cuda.synchronize()
        ms.append(a.elapsed_time(b))
    return statistics.median(ms), res


def extra_memory(fn):
    """(torch allocator peak over current, cudaMemGetInfo free-bytes drop)."""
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    free0 = torch.cuda.mem_get_info()[0]
    res = fn()
    torch.cuda.synchronize()
    free1 = torch.cuda.mem_get_info()[0]
    return torch.cuda.max_memory_allocated() - base, max(0, free0 - free1), res


def make_inputs(numel, dtype):
    o = torch.empty(numel, dtype=torch.float64, device="cuda")
    c = torch.empty(numel, dtype=dtype, device="cuda")
    n = torch.empty(numel, dtype=dtype, device="cuda")
    step = 1 << 27
    g = torch.Generator(device="cuda").manual_seed(0)
    for i in range(0, numel, step):
        j = min(numel, i + step)
        chunk = torch.randn(j - i, dtype=torch.float64, device="cuda", generator=g)
        o[i:j] = chunk
        c[i:j] = chunk.to(dtype)
        n[i:j] = (chunk * (1 + 2 ** -9)).to(dtype)
        del chunk
    o[7] = float("nan")
    c[7] = float("nan")
    n[7] = float("nan")
    return c, n, o


def copy_bandwidth(o, reps):
    buf = torch.empty_like(o)
    ms, _ = timed(lambda: buf.copy_(o), reps)
    del buf
    torch.cuda.empty_cache()
    return 2 * o.numel() * o.element_size() / (ms / 1e3), ms


def bench(size_gib, dtype, reps):
    itemsize = torch.empty(0, dtype=dtype).element_size()
    numel = size_gib * GiB // itemsize
    row = {"size": f"{size_gib} GiB", "dtype": str(dtype).replace("torch.", ""),
           "numel": numel}
    c, n, o = make_inputs(numel, dtype)
    logical = (c.numel() * itemsize) * 2 + o.numel() * 8
    read = logical + o.numel() * 8
    row["copy_bw"], row["copy_ms"] = copy_bandwidth(o, reps)
    fused = lambda: kernels.compare(c, n, o, "float")  # noqa: E731
    row["fused_ms"], got = timed(fused, reps)
    row["fused_alloc"], row["fused_free"], _ = extra_memory(fused)
    row["fused_bw_read"] = read / (row["fused_ms"] / 1e3)
    row["fused_bw_logical"] = logical / (row["fused_ms"] / 1e3)
    # the same pass with the 64-bit digests of C and N (kernels/osk.h
    # OSK_CMP_DIGEST), which the runner does not ask for
    row["digest_ms"], _ = timed(lambda: kernels.compare(c, n, o, "float", digest=True),
                                reps)
    try:
        chain = lambda: figures.float_figures(c, n, o, dtype)  # noqa: E731
        row["torch_alloc"], row["torch_free"], want = extra_memory(chain)
        row["torch_ms"], want = timed(chain, max(1, reps // 2))
        row["equal"] = all(got[k] == want[k] for k in KEYS) and \
            got.get("worst_c") == want.get("worst_c")
    except torch.cuda.OutOfMemoryError:
        row["torch_ms"] = None
        row["torch_note"] = "out of memory"
    del c, n, o
    torch.cuda.empty_cache()
    return row


def fmt_mib(b):
    return f"{b / 2 ** 20:.3f} MiB"


def report(rows, args):
    props = torch.cuda.get_device_properties(0)
    try:
        drv = subprocess.run(["nvidia-smi", "--query-gpu=driver_version",
                              "--format=csv,noheader"], capture_output=True, text=True,
                             timeout=20).stdout.strip().splitlines()[0]
    except Exception:
        drv = "?"
    lines = [
        "# Fused comparison vs the torch chain", "",
        f"Command: `python3 bench/bench_compare.py {' '.join(args)}`  ",
        f"Machine: {props.name} ({props.total_memory / GiB:.0f} GiB, driver {drv}), "
        f"{platform.node()}  ",
        f"Versions: torch {torch.__version__}, CUDA {torch.version.cuda}, "
        f"libopscreen_kernels {kernels.library('cuda').osk_version()}  ",
        f"Date: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}", "",
        "Output size = bytes of the candidate tensor; O is float64. Times are medians "
        "(CUDA events). Fused bandwidth: bytes read (C + N + 2 O: O is read twice, "
        "the first pass finds max|O| for the ULP floor) per second, and in brackets "
        "the logical bytes (C + N + O) per second. Copy bandwidth: read + write of a "
        "torch copy of O. The fused call is the runner's: `kernels.compare(c, n, o, "
        "\"float\")`, no tolerance and no digests (the fast path).", "",
        "| output | dtype | fused ms | torch chain ms | speedup | fused extra memory "
        "(allocator / MemGetInfo) | torch chain extra memory | fused GB/s (logical) "
        "| copy GB/s | fused / copy | fused with digests ms | figures equal |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        t = r.get("torch_ms")
        speed = f"{t / r['fused_ms']:.1f}x" if t else "-"
        lines.append(
            f"| {r['size']} | {r['dtype']} | {r['fused_ms']:.2f} | "
            f"{f'{t:.2f}' if t else r.get('torch_note', '-')} | {speed} | "
            f"{fmt_mib(r['fused_alloc'])} / {fmt_mib(r['fused_free'])} | "
            f"{fmt_mib(r['torch_alloc']) if 'torch_alloc' in r else '-'} | "
            f"{r['fused_bw_read'] / 1e9:.0f} ({r['fused_bw_logical'] / 1e9:.0f}) | "
            f"{r['copy_bw'] / 1e9:.0f} | {r['fused_bw_read'] / r['copy_bw']:.0%} | "
            f"{r['digest_ms']:.2f} | {r.get('equal', '-')} |")
    lines += ["", "Targets: >= 3x faster than the torch chain, <= 1 MiB extra memory, "
              ">= 70% of copy bandwidth (bytes read)."]
    for r in rows:
        t = r.get("torch_ms")
        ok = [("speed", t is None or t / r["fused_ms"] >= 3),
              ("memory", r["fused_alloc"] <= 2 ** 20),
              ("bandwidth", r["fused_bw_read"] / r["copy_bw"] >= 0.7)]
        lines.append(f"- {r['size']} {r['dtype']}: " + ", ".join(
            f"{k} {'met' if v else 'MISSED'}" for k, v in ok))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--sizes", default="1,8")
    ap.add_argument("--dtypes", default="float32,bfloat16")
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    if not torch.cuda.is_available() or not kernels.available("cuda"):
        sys.exit("bench_compare: needs a CUDA GPU and build/libopscreen_kernels.so")
    rows = []
    for dt in a.dtypes.split(","):
        for s in a.sizes.split(","):
            rows.append(bench(int(s), getattr(torch, dt), a.reps))
            print(rows[-1], flush=True)
            with open(a.out, "w") as f:
                f.write(report(rows, sys.argv[1:]))


if __name__ == "__main__":
    main()
