#!/usr/bin/env python3
"""cpu_busy.py: how many of a screen's CPUs were busy, per minute.

    python3 bench/cpu_busy.py cpustat.txt[.xz] --cpus 0-15 [--window 60]

Reads the samples bench/gpu_full.sh takes while a phase's daemon lives (a
unix time, then the per-CPU lines of /proc/stat, every 10 s) and prints,
per window from the first sample, the CPUs of --cpus that were busy on
average (user + nice + system + irq + softirq + steal over all time, idle
and iowait counted idle), and the same over the whole run.  A screen whose
cores are near-saturated is bounded by the work on them; one with idle
cores can use more runners.  Where the samples also hold "proc PID UTIME
STIME CUTIME CSTIME" lines (the daemon's runners, from /proc/PID/stat, in
clock ticks), it also splits the runners' CPU time into their own threads
(Python, Triton's in-process LLVM, and any spinning in CUDA waits) and their
reaped children (ptxas and other compiler processes).  Where they hold
"daemon UTIME STIME CUTIME CSTIME" lines (opscreend's own /proc/PID/stat),
it prints the daemon's own CPU time (its threads: the queue, the store, the
verdicts, the HTTP server) and the CPU time of the runners it reaped (those
that ended during the run: replaced after a fatal case, stopped at a
budget), with their children.  Standard library only.
"""
import argparse
import lzma
import os
from collections import defaultdict


def cpus_of(spec):
    out = set()
    for part in spec.split(","):
        a, _, b = part.partition("-")
        out.update(range(int(a), int(b or a) + 1))
    return out


def procs(path):
    """({pid: (first, last)}, daemon's (first, last) or None) of the
    (utime+stime, cutime+cstime) ticks of the "proc PID ..." lines (the
    runners) and the "daemon ..." lines, in one pass."""
    op = lzma.open if path.endswith(".xz") else open
    seen = {}
    with op(path, "rt") as f:
        for line in f:
            w = line.split()
            if len(w) == 6 and w[0] == "proc":
                pid, v = w[1], w[2:]
            elif len(w) == 5 and w[0] == "daemon":
                pid, v = None, w[1:]
            else:
                continue
            v = [int(x) for x in v]
            cur = (v[0] + v[1], v[2] + v[3])
            seen[pid] = (seen.get(pid, (cur, cur))[0], cur)
    return seen, seen.pop(None, None)


def samples(path):
    op = lzma.open if path.endswith(".xz") else open
    t, cur = None, {}
    with op(path, "rt") as f:
        for line in f:
            w = line.split()
            if len(w) == 1:
                if t is not None and cur:
                    yield t, cur
                t, cur = int(w[0]), {}
            elif w and w[0].startswith("cpu") and w[0][3:].isdigit():
                v = [int(x) for x in w[1:]]
                idle = v[3] + (v[4] if len(v) > 4 else 0)
                cur[int(w[0][3:])] = (sum(v[:8]), idle)
    if t is not None and cur:
        yield t, cur


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("path")
    ap.add_argument("--cpus", required=True)
    ap.add_argument("--window", type=int, default=60)
    a = ap.parse_args()
    want = cpus_of(a.cpus)
    prev, t0 = None, None
    win = defaultdict(lambda: [0.0, 0.0])   # window -> [busy cpu-s, seconds]
    for t, cur in samples(a.path):
        if prev is not None and t > prev[0]:
            busy = 0.0
            for c in want:
                if c in cur and c in prev[1]:
                    dt = cur[c][0] - prev[1][c][0]
                    di = cur[c][1] - prev[1][c][1]
                    if dt > 0:
                        busy += 1 - di / dt
            w = (prev[0] - t0) // a.window
            win[w][0] += busy * (t - prev[0])
            win[w][1] += t - prev[0]
        if t0 is None:
            t0 = t
        prev = (t, cur)
    print(f"| seconds | busy CPUs of {len(want)} ({a.cpus}) |")
    print("|---|---|")
    tb = ts = 0.0
    for w in sorted(win):
        b, s = win[w]
        tb, ts = tb + b, ts + s
        print(f"| {w * a.window}-{(w + 1) * a.window} | {b / s:.1f} |")
    if ts:
        print(f"| all ({ts:.0f} s) | {tb / ts:.1f} |")
    seen, d = procs(a.path)
    hz = os.sysconf("SC_CLK_TCK")
    if seen:
        own = sum(b[0] - f[0] for f, b in seen.values()) / hz
        kids = sum(b[1] - f[1] for f, b in seen.values()) / hz
        print(f"\nrunners sampled: {len(seen)}; CPU-s between each one's first and "
              f"last sample: own threads {own:.0f}, reaped children {kids:.0f}")
    if d:
        print(f"daemon: own threads {(d[1][0] - d[0][0]) / hz:.0f} CPU-s; runners it "
              f"reaped during the run (with their children) {(d[1][1] - d[0][1]) / hz:.0f}")


if __name__ == "__main__":
    main()
