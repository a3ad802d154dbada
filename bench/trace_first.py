"""Times the trace class's cases in one fresh runner process: the first
Inductor compile of a process against the later ones (docs/design.md,
"Deployment modes and the library's entry points").

    .venv/bin/python bench/trace_first.py KEY[,KEY...] [DTYPE]

The keys' trace cases come from build/sweepdump on the demo library's table
(tests/demolib) and run through the runner's own run_case on the CPU; one
line per case: key, status, the trace facts, seconds.
"""
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "probes"), os.path.join(ROOT, "tests", "demolib")]

import torch  # noqa: E402

from opscreen_runner.adapters import FlagGemsStyle  # noqa: E402
from opscreen_runner.execute import run_case  # noqa: E402


def main():
    keys, dtype = sys.argv[1].split(","), sys.argv[2] if len(sys.argv) > 2 else "float32"
    torch.set_grad_enabled(False)
    lib = FlagGemsStyle("demolib")
    lib.load()
    table = [e for e in lib.entries() if e["key"] in keys]
    out = subprocess.run([os.path.join(ROOT, "build", "sweepdump"), "-c", "trace",
                          "-d", dtype], input=json.dumps(table), capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        e = json.loads(line)
        for c in e.get("cases", []):
            c.update(name=e["name"], steady={"calls": 3, "max_ms": 500, "speed": 0})
            t = time.perf_counter()
            r = run_case(c, lib, "cpu")
            print(e["key"], r["status"], json.dumps(r.get("trace", {})),
                  f"{time.perf_counter() - t:.1f} s", flush=True)


if __name__ == "__main__":
    main()
