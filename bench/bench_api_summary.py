#!/usr/bin/env python3
"""Summarise bench/bench_api.sh output: per phase and server, every
measurement's req/s and p99, their medians, and opscreend's median over
nginx's.  Usage: bench_api_summary.py OUTPUT..."""
import re
import statistics
import sys


def ms(v, unit):
    return float(v) * {"us": 1e-3, "ms": 1.0, "s": 1e3}[unit]


def parse(path):
    runs, cur = [], None
    for line in open(path):
        m = re.match(r"--- (.+?): (.+)$", line)
        if m:
            cur = {"phase": m.group(1), "server": m.group(2).strip()}
            runs.append(cur)
            continue
        if cur is None:
            continue
        m = re.match(r"\s+99%\s+([\d.]+)(us|ms|s)$", line)
        if m:
            cur["p99"] = ms(*m.groups())
        m = re.match(r"Requests/sec:\s+([\d.]+)", line)
        if m:
            cur["rps"] = float(m.group(1))
        m = re.match(r"screen after: run \d+ (\S+)", line)
        if m:
            cur["screen_after"] = m.group(1)
    return [r for r in runs if "rps" in r]


def main(paths):
    for path in paths:
        runs = parse(path)
        print(f"## {path}")
        for phase in dict.fromkeys(r["phase"] for r in runs):
            print(f"\n{phase}:")
            med = {}
            for server in dict.fromkeys(r["server"] for r in runs if r["phase"] == phase):
                rs = [r for r in runs if r["phase"] == phase and r["server"] == server]
                rps = [r["rps"] for r in rs]
                p99 = [r["p99"] for r in rs]
                med[server] = (statistics.median(rps), statistics.median(p99))
                print(f"  {server:18s} n={len(rs)} req/s " +
                      " ".join(f"{v:,.0f}" for v in rps) +
                      f"  median {med[server][0]:,.0f};  p99 ms " +
                      " ".join(f"{v:.2f}" for v in p99) +
                      f"  median {med[server][1]:.2f}")
                ended = [r for r in rs if r.get("screen_after", "running") != "running"]
                if ended:
                    print(f"  {'':18s} {len(ended)} measurement(s) outlived their screen")
            if "opscreend" in med and "nginx" in med:
                o, n = med["opscreend"], med["nginx"]
                print(f"  opscreend / nginx: throughput {o[0] / n[0]:.2f}x, p99 {o[1] / n[1]:.2f}x")


if __name__ == "__main__":
    main(sys.argv[1:])
