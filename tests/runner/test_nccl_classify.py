"""nccl.classify on NCCL's own texts (src/init.cc of NVIDIA/nccl, by version),
the multi-rank probe's answers that need no GPU (the skip, the hazard rule,
children that fail or hang), and, where make built it, libopscreen_nccl's
calls that need no GPU.  tests/gpu/test_nccl.py runs the ranks on GPUs."""

import json
import os
import subprocess
import sys
import time

import pytest

from runner_harness import ROOT
from opscreen_runner import kernels, multirank, nccl

PROBES = os.path.join(ROOT, "probes")

# the WARN texts NCCL keeps for ncclGetLastError, and ncclGetErrorString's
DUPLICATE = "Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000"  # 2.13-2.29
DETECTED = ("Multiple ranks detected using the same GPU on this node. Set "
            "NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.")  # 2.30.3
MULTIPLE = ("Multiple Ranks are using the same GPU/Partition. Set "
            "NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.")  # 2.30.7
NVLS = ('Multiple ranks detected using the same GPU on this node and NCCL_NVLS_ENABLE '
        'has been set to "1". At this time multiple ranks per gpu is incompatible '
        'with NVLS.')  # 2.30.3, NCCL_MULTI_RANK_GPU_ENABLE=1
INVALID_USAGE = "invalid usage (run with NCCL_DEBUG=WARN for details)"


@pytest.mark.parametrize("text,kind", [
    (DUPLICATE, "same_gpu"),
    (DETECTED, "same_gpu"),
    (MULTIPLE, "same_gpu"),
    (NVLS, "same_gpu"),
    # as osk_nccl.c composes it: the call, ncclGetErrorString, ncclGetLastError
    ("communicator: ncclCommInitRankConfig (rank 1 of 2 on cuda device 0, bus "
     f"0000:19:00.0): {INVALID_USAGE}: {DUPLICATE}", "same_gpu"),
    (DUPLICATE.lower(), "same_gpu"),
    ("MULTIPLE RANKS ARE USING THE SAME GPU", "same_gpu"),
    ("multiple ranks on the same GPU", "same_gpu"),
    (INVALID_USAGE, "invalid_usage"),
    (f"communicator: ncclCommInitRankConfig: {INVALID_USAGE}", "invalid_usage"),
    ("Invalid Usage", "invalid_usage"),
    ("Mismatched NCCL version detected : rank 0 version 22809 rank 1 version 22703",
     "other"),
    ("unhandled cuda error (run with NCCL_DEBUG=INFO for details)", "other"),
    ("remote process exited or there was a network error", "other"),
    ("all-gather: not done at the deadline (a rank missing?)", "other"),
    ("Multiple ranks on the same node", "other"),
    ("", "other"),
    (None, "other"),
])
def test_classify_nccl_texts(text, kind):
    assert nccl.classify(text) == kind


def test_error_carries_its_kind():
    e = nccl.NcclError(f"communicator: {INVALID_USAGE}: {DUPLICATE}", -3)
    assert e.kind == "same_gpu" and e.code == -3 and DUPLICATE in str(e)


@pytest.mark.parametrize("ranks", [2, 3])
def test_probe_skips_without_enough_gpus(ranks):
    # CUDA_VISIBLE_DEVICES="" hides every GPU, also on a GPU host
    env = dict(os.environ, PYTHONPATH=PROBES, CUDA_VISIBLE_DEVICES="")
    out = subprocess.run([sys.executable, "-m", "opscreen_runner.multirank",
                          "--library", "demolib", "--order", "import-first",
                          "--ranks", str(ranks)],
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 1, out.stdout
    ans = json.loads(lines[0])
    assert ans["ok"] is None
    assert ans["skipped"] == f"needs {ranks} GPUs, this host has 0"
    assert (ans["ranks"], ans["order"], ans["library"]) == (ranks, "import-first", "demolib")


def test_probe_parent_imports_no_torch():
    code = ("import sys; from opscreen_runner import multirank; "
            "multirank.probe('demolib', 'pin-first'); print('torch' in sys.modules)")
    env = dict(os.environ, PYTHONPATH=PROBES, CUDA_VISIBLE_DEVICES="")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


def test_visible_devices_bound_the_count(monkeypatch):
    monkeypatch.setattr(multirank, "_nvml_count", lambda: 8)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3,5")
    assert multirank.gpu_count() == 2
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3,-1,5")
    assert multirank.gpu_count() == 1
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    assert multirank.gpu_count() == 8


def _child(rank, **kw):
    rec = {"rank": rank, "ok": False, "error": None, "kind": None,
           "cuda_initialized_after_import": False, "bus_id": None}
    rec.update(kw)
    return rec


def test_finding_is_the_import_order_hazard():
    refusal = f"communicator: {INVALID_USAGE}: {DUPLICATE}"
    children = [_child(r, error=refusal, kind="same_gpu", bus_id="0000:19:00.0",
                       cuda_initialized_after_import=True) for r in range(2)]
    finding, error = multirank._finding("import-first", "flag_gems", children)
    assert error is None
    assert finding == ("import-order hazard: importing flag_gems initialises CUDA before "
                       "a rank is pinned, so every rank lands on one GPU; NCCL: " + refusal)


def test_shared_gpu_that_nccl_accepts_is_the_hazard_too():
    # NCCL 2.30 lets several ranks share a GPU under NCCL_MULTI_RANK_GPU_ENABLE=1:
    # the bus ids tell
    children = [_child(r, ok=True, bus_id="0000:19:00.0",
                       cuda_initialized_after_import=True) for r in range(2)]
    finding, error = multirank._finding("import-first", "lib", children)
    assert finding.startswith("import-order hazard: importing lib") and error is None
    assert "accepted ranks sharing one GPU" in finding


def test_shared_gpu_without_cuda_at_import_is_an_error_not_the_hazard():
    children = [_child(r, error=DUPLICATE, kind="same_gpu") for r in range(2)]
    for order in ("import-first", "pin-first"):
        finding, error = multirank._finding(order, "lib", children)
        assert finding is None and DUPLICATE in error


def test_distinct_gpus_are_no_finding():
    children = [_child(r, ok=True, bus_id=f"0000:{r}9:00.0",
                       cuda_initialized_after_import=True) for r in range(2)]
    assert multirank._finding("import-first", "lib", children) == (None, None)


def test_nccl_searches_where_kernels_searches(tmp_path):
    installed = tmp_path / "usr" / "share" / "opscreen"
    for root in (ROOT, str(installed)):
        assert nccl._libdirs(root) == kernels._libdirs(root)
    assert nccl._libdirs(str(installed))[-1] == str(tmp_path / "usr" / "lib" / "opscreen")


GPU_HERE = multirank.gpu_count() > 0


@pytest.mark.skipif(GPU_HERE, reason="a GPU host: tests/gpu/test_nccl.py runs the ranks")
def test_probe_reports_children_that_fail(monkeypatch):
    # no GPU: both ranks get as far as taking a device, and say so
    monkeypatch.setattr(multirank, "gpu_count", lambda: 2)
    ans = multirank.probe("demolib", "import-first", 2, timeout=120)
    assert ans["ok"] is False and ans["finding"] is None, ans
    assert ans["error"].startswith("rank 0 (device): "), ans
    assert [c["rank"] for c in ans["children"]] == [0, 1]
    for c in ans["children"]:
        assert c["ok"] is False and c["stage"] == "device", c
        assert c["cuda_initialized_after_import"] is False and c["pinned"] == str(c["rank"])
        assert c["error"] and "stderr" in c


@pytest.mark.skipif(GPU_HERE, reason="a GPU host: tests/gpu/test_nccl.py runs the ranks")
def test_probe_kills_children_at_its_timeout(monkeypatch, tmp_path):
    (tmp_path / "slow_import_lib.py").write_text("import time\ntime.sleep(60)\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setattr(multirank, "gpu_count", lambda: 2)
    t0 = time.monotonic()
    ans = multirank.probe("slow_import_lib", "pin-first", 2, timeout=3)
    assert time.monotonic() - t0 < 30
    assert ans["ok"] is False
    assert ans["error"] == "ranks [0, 1] still running after 3 s: killed"
    assert all(c["error"] == "no answer: killed at the timeout" for c in ans["children"])


needs_lib = pytest.mark.skipif(
    not nccl.available(), reason="build/libopscreen_nccl.so not built (no nvcc or nccl.h)")


@needs_lib
def test_unique_ids_need_no_gpu():
    a, b = nccl.unique_id(), nccl.unique_id()
    assert len(a) == len(b) == nccl.ID_BYTES and a != b
    assert nccl.version() >= (2, 14, 0)


@needs_lib
def test_rank_zero_passes_its_unique_id_through_a_file(monkeypatch, tmp_path):
    path = str(tmp_path / "uid")
    monkeypatch.delenv("OPSCREEN_NCCL_UID", raising=False)
    monkeypatch.setenv("OPSCREEN_NCCL_UID_FILE", path)
    deadline = time.monotonic() + 10
    uid = multirank._child_uid(0, deadline)
    assert len(uid) == nccl.ID_BYTES and multirank._child_uid(1, deadline) == uid


@needs_lib
def test_communicator_failures_are_errors_not_crashes():
    with pytest.raises(nccl.NcclError) as e:
        nccl.Comm(b"short", 2, 0)
    assert e.value.code == -1 and "128 bytes" in str(e.value)
    with pytest.raises(nccl.NcclError):
        nccl.Comm(nccl.unique_id(), 2, 2)
    # no GPU: CUDA's error; a GPU and no second rank: the deadline
    with pytest.raises(nccl.NcclError) as e:
        nccl.Comm(nccl.unique_id(), 2, 0, timeout=2)
    assert e.value.code in (-2, -5), e.value
