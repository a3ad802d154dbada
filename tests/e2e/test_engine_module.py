"""python/opscreen_engine, the engine side: installed with pip from its folder,
it fetches the verified list of the real daemon (a demo screen on the CPU),
checks the served provenance against the library this process imported, and
enables exactly the list; a list screened for another build is refused and
nothing is enabled; CUDA initialised before pinning is named."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from e2e_harness import ROOT

PKG = os.path.join(ROOT, "python")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    target = tmp_path_factory.mktemp("site")
    r = subprocess.run([sys.executable, "-m", "pip", "install", "-q",
                        "--no-deps", "--no-build-isolation", "--no-index",
                        "--target", str(target), PKG],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (target / "opscreen_engine" / "__init__.py").is_file()
    return str(target)


def engine(installed, code, demolib=None, env=None):
    path = [installed, demolib or os.path.join(ROOT, "tests", "demolib")]
    e = dict(os.environ, PYTHONPATH=":".join(path), **(env or {}))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True,
                       text=True, timeout=120, env=e)
    return r


ENABLE = """
import json, opscreen_engine, opscreen_demolib as lib
try:
    names = opscreen_engine.enable_verified("opscreen_demolib", url=%r)
    print(json.dumps({"names": names, "registered": lib.all_registered_ops()}))
except opscreen_engine.OpscreenError as e:
    print(json.dumps({"error": type(e).__name__, "msg": str(e),
                      "registered": lib.all_registered_ops()}))
"""


def test_enables_exactly_the_verified_list(screened, installed):
    url = f"http://127.0.0.1:{screened.port}"
    st, allow = screened.get_json("/allowlist?gpu=cpu")
    assert st == 200 and allow["names"], allow
    r = engine(installed, ENABLE % url)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.splitlines()[-1])
    assert "error" not in out, out
    assert sorted(out["names"]) == sorted(allow["names"])
    # the library's entry points are allowed by name and called directly by
    # the engine: only_enable registers the table's part
    sys.path.insert(0, os.path.join(ROOT, "tests", "demolib"))
    import opscreen_demolib
    entries = set(opscreen_demolib.fused.__all__)
    assert entries & set(allow["names"]), allow["names"]
    assert sorted(out["registered"]) == sorted(set(allow["names"]) - entries)


def test_another_build_is_refused_and_nothing_enabled(screened, installed,
                                                      tmp_path):
    # the same library with one file changed: another source hash
    lib = tmp_path / "lib"
    shutil.copytree(os.path.join(ROOT, "tests", "demolib"), lib,
                    ignore=shutil.ignore_patterns("__pycache__"))
    with open(lib / "opscreen_demolib" / "ops.py", "a") as f:
        f.write("\n# a patched build\n")
    url = f"http://127.0.0.1:{screened.port}"
    r = engine(installed, ENABLE % url, demolib=str(lib))
    out = json.loads(r.stdout.splitlines()[-1])
    assert out["error"] == "ProvenanceError", out
    assert "library_hash" in out["msg"], out
    assert out["registered"] == [], out
    # another torch than the one screened
    code = ("import torch; torch.__version__ = '0.0.0+other'\n" +
            ENABLE % url)
    out = json.loads(engine(installed, code).stdout.splitlines()[-1])
    assert out["error"] == "ProvenanceError" and "torch" in out["msg"], out
    assert out["registered"] == []


def test_no_daemon_or_no_list_enables_nothing(installed, make_daemon):
    r = engine(installed, ENABLE % "http://127.0.0.1:1")
    out = json.loads(r.stdout.splitlines()[-1])
    assert out["error"] == "ListUnavailable" and out["registered"] == [], out
    d = make_daemon().start()   # no complete screen: 503
    out = json.loads(engine(installed, ENABLE % f"http://127.0.0.1:{d.port}")
                     .stdout.splitlines()[-1])
    assert out["error"] == "ListUnavailable" and "503" in out["msg"], out
    assert out["registered"] == []


def test_cuda_initialised_before_pinning_is_named(installed):
    # a CPU machine has no CUDA: the check is driven with a stand-in torch
    # whose CUDA was initialised on device 0 while this rank is 1
    code = """
import types, opscreen_engine
cuda = types.SimpleNamespace(is_available=lambda: True,
    is_initialized=lambda: True, current_device=lambda: 0,
    set_device=lambda i: None)
torch = types.SimpleNamespace(cuda=cuda)
try:
    opscreen_engine.check_pinning(torch, device=1)
    print("no error")
except opscreen_engine.PinningError as e:
    print("PinningError:", e)
cuda.is_initialized = lambda: False
pinned = []
cuda.set_device = pinned.append
print("pinned", opscreen_engine.check_pinning(torch, device=1), pinned)
"""
    r = engine(installed, code, env={"CUDA_VISIBLE_DEVICES": ""})
    lines = r.stdout.splitlines()
    assert lines[0].startswith("PinningError: CUDA was initialised before "
                               "this process was pinned"), r.stdout + r.stderr
    assert "cuda:0" in lines[0] and "cuda:1" in lines[0]
    assert lines[1] == "pinned 1 [1]", lines
