#!/usr/bin/env python3
"""table_part.py: one part of an installed library's registration table, for
a whole-table screen split over device sessions (one part a session when
the table's screen outlasts the device time of one: FlagGems 5.3.4 registers
869 aten keys, twice 5.0.2's 433, whose screen in every mode took 905.8 s on
an H200).

    python3 bench/table_part.py LIBRARY PART PARTS [--keys-only]

Prints `{"ops": [...]}` (`POST /runs`' body: a restricted run of those keys;
with --keys-only, the JSON list), for PART (1..PARTS). The keys are grouped
by the name that serves them (a list allows or withholds a name, so a name's
keys stay in one part and its verdicts are all in one run), the names sorted
by their key count, most first, then by name, and each put in the part with
the fewest keys so far (the first such part on a tie): the parts are
disjoint, cover the table and differ by at most one name's keys. The
library is imported from PYTHONPATH, and its table read by the runner's own
code (probes/opscreen_runner/adapters.py `registered`: the keys whose
condition holds on this host, less those registered for dispatch keys of
their own that no plain call reaches), so a part names only keys the daemon
on the same host knows
(`_FULL_CONFIG` read whole named FlagGems 5.3.4's `cholesky_solve.out`,
registered for the Conjugate key only, and the daemon refused the run).
"""
import argparse
import contextlib
import importlib
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "probes"))


def parts(items, n):
    """items: (key, name) pairs; n parts -> list of n sorted key lists."""
    by = {}
    for key, name in items:
        by.setdefault(name, []).append(key)
    out, size = [[] for _ in range(n)], [0] * n
    for name in sorted(by, key=lambda m: (-len(by[m]), m)):
        i = size.index(min(size))
        out[i] += by[name]
        size[i] += len(by[name])
    return [sorted(p) for p in out]


def table(module):
    # what the library prints at import goes to stderr: stdout is the body
    with contextlib.redirect_stdout(sys.stderr):
        lib = importlib.import_module(module)
        from opscreen_runner.adapters import registered
    return [(key, getattr(fn, "__name__", str(fn))) for key, fn in registered(lib)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("library")
    ap.add_argument("part", type=int)
    ap.add_argument("parts", type=int)
    ap.add_argument("--keys-only", action="store_true")
    a = ap.parse_args()
    if not 1 <= a.part <= a.parts:
        ap.error(f"part {a.part} is not in 1..{a.parts}")
    keys = parts(table(a.library), a.parts)[a.part - 1]
    json.dump(keys if a.keys_only else {"ops": keys}, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
