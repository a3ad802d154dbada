#!/usr/bin/env python3
"""anchor_compare.py: issue 19's screen times against its anchor, from the
folders bench/gpu_full.sh's finish leaves for the phases anchor, anchorw,
cold and warm (run in one session on one machine).

    python3 bench/anchor_compare.py OUTDIR [--margin 0.25]

For cold (anchor against cold) and warm (anchorw against warm): each run's
wall (finished - started of its run.json), its cases, its compile() wall
and bound where the daemon reports them (`compile`), and the change against
the anchor with the margin the issue allows (the new classes may add at
most 25%).  A phase whose run.json is missing or whose run did not
complete is reported as such and fails the check.  Exit status 0 when
every pair is within the margin, 1 otherwise.  Standard library only.
"""
import argparse
import json
import os
import sys

PAIRS = (("cold", "anchor", "cold"), ("warm", "anchorw", "warm"))


def run_of(outdir, phase):
    path = os.path.join(outdir, phase, "run.json")
    try:
        with open(path) as f:
            r = json.load(f)
    except (OSError, ValueError) as e:
        return None, f"{path}: {e}"
    if r.get("state") != "complete" or not r.get("started") or not r.get("finished"):
        return None, f"{phase}: run {r.get('id')} is {r.get('state')}, not complete"
    return r, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--margin", type=float, default=0.25)
    a = ap.parse_args()
    ok = True
    print("| screen | anchor wall | cases | now wall | cases | change | limit | "
          "within |\n|---|---|---|---|---|---|---|---|")
    for what, old, new in PAIRS:
        ro, eo = run_of(a.outdir, old)
        rn, en = run_of(a.outdir, new)
        if eo or en:
            ok = False
            print(f"| {what} | {eo or ''} | | {en or ''} | | | | no |")
            continue
        wo = ro["finished"] - ro["started"]
        wn = rn["finished"] - rn["started"]
        limit = wo * (1 + a.margin)
        within = wn <= limit
        ok = ok and within
        print(f"| {what} | {wo:.1f} s | {ro['total']:,} | {wn:.1f} s | "
              f"{rn['total']:,} | {100 * (wn / wo - 1):+.1f}% | {limit:.1f} s | "
              f"{'yes' if within else '**no**'} |")
    for _, old, new in PAIRS:
        for ph in (old, new):
            r, _ = run_of(a.outdir, ph)
            c = (r or {}).get("compile")
            if c:
                print(f"{ph}: compile() {c['compile_s']:,.0f} runner-s over "
                      f"{c['cores']} cores, bound {c['bound_s']:.1f} s, wall "
                      f"{c['of_bound']:.2f}x the bound")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
