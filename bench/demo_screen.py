#!/usr/bin/env python3
"""demo_screen.py TREE OUT.db: one full screen of the demo library (the
e2e harness's `full_screen`, no scope: demolib on the CPU) with TREE's
build/opscreend and TREE's runner, its database copied to OUT.db.  Two
trees' screens compared with tools/release_diff.py or bench/case_diff.py
show whether a change moved any verdict (docs/design.md, the demo screen
before and after)."""
import pathlib
import shutil
import sys
import tempfile
import time


def main(tree, out):
    sys.path.insert(0, f"{tree}/tests/e2e")
    import e2e_harness
    t0 = time.time()
    d, run = e2e_harness.full_screen(pathlib.Path(tempfile.mkdtemp(prefix="demo-")), {})
    print(tree, "run", run, "in", round(time.time() - t0, 1), "s")
    d.stop()
    shutil.copy(d.db, out)


if __name__ == "__main__":
    main(*sys.argv[1:3])
