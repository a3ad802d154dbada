#!/usr/bin/env python3
"""Each test file's wall time from a pytest JUnit report (make test-py writes
build/pytest.xml), longest first: what tests/conftest.py's SECONDS are taken
from. With the workers' CPU reports beside it (build/test-cpu-*.json,
tests/conftest.py), each file's CPU seconds too.

    python3 tools/test_times.py [build/pytest.xml] [N]
    python3 tools/test_times.py --tests [build/pytest.xml] [N]

--tests: the N tests that cost the most CPU (build/test-cputest-*.json),
each with its wall (setup, call and teardown).
--suites: per suite (tests/runner, tests/e2e, tests/browser, tests/gpu):
file wall summed, CPU, tests run and skipped.
--timeline: per minute of the session, how many workers were in a test and
the CPU those tests used (build/test-spans-*.json, each test's CPU spread
evenly over its wall): where the two cores were idle; then each worker's
files in the order it ran them.
"""
import glob
import json
import os
import sys
import xml.etree.ElementTree as ET


def tests(path, top):
    wall = {}
    for case in ET.parse(path).iter("testcase"):
        f = case.get("classname", "").replace(".", "/") + ".py"
        k = f + "::" + case.get("name", "")
        wall[k] = wall.get(k, 0.0) + float(case.get("time") or 0)
    cpu = {}
    for p in glob.glob(os.path.join(os.path.dirname(path) or ".", "test-cputest-*.json")):
        with open(p) as f:
            cpu.update(json.load(f))
    print(f"{'wall s':>9}  {'CPU s':>9}  test")
    for k, c in sorted(cpu.items(), key=lambda x: -x[1])[:top]:
        w = f"{wall[k]:9.1f}" if k in wall else f"{'-':>9}"
        print(f"{w}  {c:9.1f}  {k}")
    print(f"{'':>9}  {sum(cpu.values()):9.1f}  total over {len(cpu)} tests")


def suites(path):
    out = {}
    for case in ET.parse(path).iter("testcase"):
        parts = case.get("classname", "").split(".")
        k = "/".join(parts[:2])
        o = out.setdefault(k, [0.0, 0.0, 0, 0])
        o[0] += float(case.get("time") or 0)
        o[3 if case.find("skipped") is not None else 2] += 1
    for p in glob.glob(os.path.join(os.path.dirname(path) or ".", "test-cpu-*.json")):
        with open(p) as f:
            for k, v in json.load(f).items():
                out.setdefault("/".join(k.split("/")[:2]), [0.0, 0.0, 0, 0])[1] += v
    print(f"{'wall s':>9}  {'CPU s':>9}  {'run':>5}  {'skip':>5}  suite")
    for k, (w, c, n, sk) in sorted(out.items(), key=lambda x: -x[1][0]):
        print(f"{w:9.1f}  {c:9.1f}  {n:5d}  {sk:5d}  {k}")


def timeline(path):
    spans = {}
    for p in sorted(glob.glob(os.path.join(os.path.dirname(path) or ".",
                                           "test-spans-*.json"))):
        w = os.path.basename(p)[len("test-spans-"):-len(".json")]
        with open(p) as f:
            spans[w] = json.load(f)
    if not spans:
        sys.exit("no build/test-spans-*.json")
    t0 = min(s[1] for v in spans.values() for s in v)
    t1 = max(s[2] for v in spans.values() for s in v)
    n = int((t1 - t0) // 60) + 1
    busy, cpu = [0.0] * n, [0.0] * n
    for v in spans.values():
        for _, a, b, c in v:
            for m in range(int((a - t0) // 60), int((b - t0) // 60) + 1):
                lo, hi = max(a, t0 + 60 * m), min(b, t0 + 60 * (m + 1))
                if hi > lo:
                    busy[m] += (hi - lo) / 60
                    cpu[m] += c * (hi - lo) / max(b - a, 1e-9)
    print(f"{'minute':>6}  {'workers in a test':>17}  {'CPU s':>6}  cores")
    for m in range(n):
        print(f"{m:6d}  {busy[m]:17.2f}  {cpu[m]:6.1f}  {cpu[m] / 60:5.2f}")
    print(f"session {t1 - t0:.0f} s, tests' CPU {sum(cpu):.0f} s "
          f"({sum(cpu) / (t1 - t0):.2f} cores)")
    for w, v in sorted(spans.items()):
        files = []
        for nodeid, a, b, c in v:
            f = nodeid.split("::", 1)[0]
            if files and files[-1][0] == f:
                files[-1][2], files[-1][3] = b, files[-1][3] + c
            else:
                files.append([f, a, b, c])
        print(f"{w}: " + ", ".join(f"{f.split('/')[-1]} {a - t0:.0f}-{b - t0:.0f}s/{c:.0f}cpu"
                                   for f, a, b, c in files))


def main():
    if sys.argv[1:2] == ["--timeline"]:
        return timeline(sys.argv[2] if len(sys.argv) > 2 else "build/pytest.xml")
    if sys.argv[1:2] == ["--suites"]:
        return suites(sys.argv[2] if len(sys.argv) > 2 else "build/pytest.xml")
    if sys.argv[1:2] == ["--tests"]:
        del sys.argv[1]
        path = sys.argv[1] if len(sys.argv) > 1 else "build/pytest.xml"
        return tests(path, int(sys.argv[2]) if len(sys.argv) > 2 else 40)
    path = sys.argv[1] if len(sys.argv) > 1 else "build/pytest.xml"
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    files, total = {}, 0.0
    for case in ET.parse(path).iter("testcase"):
        t = float(case.get("time") or 0)
        f = case.get("classname", "").replace(".", "/") + ".py"
        files[f] = files.get(f, 0.0) + t
        total += t
    cpu = {}
    for p in glob.glob(os.path.join(os.path.dirname(path) or ".", "test-cpu-*.json")):
        with open(p) as f:
            for k, v in json.load(f).items():
                cpu[k] = cpu.get(k, 0.0) + v
    print(f"{'wall s':>9}  {'CPU s':>9}  file")
    for f, t in sorted(files.items(), key=lambda x: -x[1])[:top]:
        c = f"{cpu[f]:9.1f}" if f in cpu else f"{'-':>9}"
        print(f"{t:9.1f}  {c}  {f}")
    c = f"{sum(cpu.values()):9.1f}" if cpu else f"{'-':>9}"
    print(f"{total:9.1f}  {c}  total over {len(files)} files")


if __name__ == "__main__":
    main()
