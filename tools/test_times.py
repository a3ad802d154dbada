#!/usr/bin/env python3
"""Each test file's wall time from a pytest JUnit report (make test-py writes
build/pytest.xml), longest first, with the worker that ran it where the
report says: what tests/conftest.py's SECONDS are taken from.

    python3 tools/test_times.py [build/pytest.xml] [N]
"""
import sys
import xml.etree.ElementTree as ET


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "build/pytest.xml"
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    files, total = {}, 0.0
    for case in ET.parse(path).iter("testcase"):
        t = float(case.get("time") or 0)
        f = case.get("classname", "").replace(".", "/") + ".py"
        files[f] = files.get(f, 0.0) + t
        total += t
    for f, t in sorted(files.items(), key=lambda x: -x[1])[:top]:
        print(f"{t:9.1f}  {f}")
    print(f"{total:9.1f}  total over {len(files)} files")


if __name__ == "__main__":
    main()
