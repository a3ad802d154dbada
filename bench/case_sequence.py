#!/usr/bin/env python3
"""case_sequence.py: stored cases run again in a given order, one process per
sequence, to test whether a result depends on what ran before it.

    python3 bench/case_sequence.py extract DB OUT.json 25306,28525 28525 ...
    python3 bench/case_sequence.py run OUT.json

`extract` writes each comma-separated list of case ids of DB (their stored
specs: same inputs, same seed) as one sequence.  `run` starts one fresh
process per sequence, all at once, each running its cases in order through
the runner's own run_case (probes/ on PYTHONPATH, the library importable, a
GPU; OPSCREEN_KERNELS for the kernels/ oracle), and prints per case the
figures the daemon judges for the cases with an error or with positions
that differ from the oracle (exact outputs), and how many ran.
"""
import json
import os
import sqlite3
import subprocess
import sys


def extract(db_path, out, seqs):
    db = sqlite3.connect(db_path)
    res = []
    for s in seqs:
        seq = []
        for cid in s.split(","):
            row = db.execute("SELECT spec FROM cases WHERE id=?", (int(cid),)).fetchone()
            if row is None:
                sys.exit(f"no case {cid} in {db_path}")
            spec = json.loads(row[0])
            spec["id"] = int(cid)
            seq.append(spec)
        res.append(seq)
    json.dump({"db": db_path, "sequences": res}, open(out, "w"))


def one(seq):
    import torch
    from opscreen_runner.adapters import FlagGemsStyle
    from opscreen_runner.execute import run_case
    torch.set_grad_enabled(False)
    ad = FlagGemsStyle(os.environ.get("OPSCREEN_LIBRARY", "flag_gems"))
    ad.load()
    ad.entries()
    out = []
    for spec in seq:
        try:
            r = run_case(spec, ad, os.environ.get("OPSCREEN_DEVICE", "cuda"))
            outs = [{k: o.get(k) for k in ("index", "kind", "numel", "mismatch_c",
                                           "mismatch_n", "first_bad_c", "err_c",
                                           "err_ulp_c") if k in o}
                    for o in r.get("outputs", [])]
            out.append({"id": spec["id"], "key": spec["key"], "dtype": spec["dtype"],
                        "status": r.get("status"), "error": r.get("cand_error"),
                        "outputs": outs})
        except Exception as e:
            out.append({"id": spec["id"], "key": spec["key"], "error": repr(e)})
    return out


def run(path):
    seqs = json.load(open(path))["sequences"]
    procs = [subprocess.Popen([sys.executable, __file__, "one", json.dumps(s)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for s in seqs]
    for s, p in zip(seqs, procs):
        out, err = p.communicate()
        print("sequence", ",".join(str(c["id"]) for c in s))
        lines = [l for l in out.splitlines() if l.startswith("RESULT ")]
        if not lines:
            print("  no result:", err[-1500:])
            continue
        rs = json.loads(lines[0][7:])
        bad = [r for r in rs if r.get("error") or r.get("status") != "ok" or
               any(o.get("mismatch_c") for o in r.get("outputs", []))]
        print(f"  {len(rs)} cases run, {len(bad)} with an error or a position "
              "that differs from the oracle" + (":" if bad else ""))
        for r in bad:
            print("  " + json.dumps(r))


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "extract":
        extract(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif len(sys.argv) == 3 and sys.argv[1] == "run":
        run(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "one":
        print("RESULT " + json.dumps(one(json.loads(sys.argv[2]))), flush=True)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
