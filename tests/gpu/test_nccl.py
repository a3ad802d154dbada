"""libopscreen_nccl and the multi-rank probe on a host of two GPUs or more:
an all-gather of digests across two ranks, NCCL's refusal of two ranks on one
GPU (classify: same_gpu), and the import-order hazard, found with import-first
on a library whose import initialises CUDA (cuda_at_import.py) and not with
pin-first.

Skips with the reason below two GPUs or without build/libopscreen_nccl.so
(make builds it where nvcc and nccl.h are).  The ranks here are processes
without torch: libopscreen_nccl takes the current device, device 0 of the
CUDA_VISIBLE_DEVICES each is given.
"""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PROBES = os.path.join(ROOT, "probes")
sys.path.insert(0, PROBES)

from opscreen_runner import multirank, nccl  # noqa: E402


def _why_skip():
    if not nccl.available():
        return "build/libopscreen_nccl.so missing (no nvcc or nccl.h at build time?)"
    n = multirank.gpu_count()
    if n < 2:
        return f"needs 2 GPUs, this host has {n}: NCCL across ranks not tested"
    return None


pytestmark = pytest.mark.skipif(bool(_why_skip()), reason=_why_skip() or "")

# One rank: argv rank, nranks, values; the unique id in OPSCREEN_TEST_UID.
RANK = r'''
import json, os, sys
from opscreen_runner import nccl
rank, nranks = int(sys.argv[1]), int(sys.argv[2])
out = {"rank": rank}
try:
    out["bus"] = nccl.bus_id()[1]
    with nccl.Comm(bytes.fromhex(os.environ["OPSCREEN_TEST_UID"]), nranks, rank,
                   timeout=60) as comm:
        out["got"] = comm.allgather_u64([int(v) for v in sys.argv[3:]])
except nccl.NcclError as e:
    out["error"], out["kind"] = str(e), e.kind
print(json.dumps(out), flush=True)
'''


def _ranks(tmp_path, gpus, values):
    """Rank r on CUDA_VISIBLE_DEVICES=gpus[r] all-gathers values[r]; their records."""
    uid = nccl.unique_id()
    env = dict(os.environ, PYTHONPATH=PROBES, OPSCREEN_TEST_UID=uid.hex())
    env.pop("NCCL_MULTI_RANK_GPU_ENABLE", None)
    procs = []
    for r, (gpu, vals) in enumerate(zip(gpus, values)):
        out, err = tmp_path / f"out{r}", tmp_path / f"err{r}"
        with open(out, "w") as fo, open(err, "w") as fe:
            procs.append((out, err, subprocess.Popen(
                [sys.executable, "-c", RANK, str(r), str(len(gpus))] + [str(v) for v in vals],
                env=dict(env, CUDA_VISIBLE_DEVICES=gpu), stdout=fo, stderr=fe)))
    recs = []
    for out, err, p in procs:
        try:
            p.wait(timeout=150)
        finally:
            p.kill()
        lines = out.read_text().splitlines()
        assert lines, err.read_text()[-2000:]
        recs.append(json.loads(lines[-1]))
    return recs


def test_allgather_of_digests_gives_every_rank_every_digest(tmp_path):
    digests = [[0x0123456789ABCDEF, 2**64 - 1, 0], [7, 0x8000000000000000, 42]]
    recs = _ranks(tmp_path, ["0", "1"], digests)
    for rec in recs:
        assert "error" not in rec, rec
        assert rec["got"] == digests, rec
    assert recs[0]["bus"] != recs[1]["bus"], recs


def test_two_ranks_on_one_gpu_are_refused_as_same_gpu(tmp_path):
    # every rank fails; NCCL 2.30.3 tells only the host's first rank why (the
    # other sees it leave), the versions before and after tell each
    recs = _ranks(tmp_path, ["0", "0"], [[1], [2]])
    version = ".".join(map(str, nccl.version()))
    for rec in recs:
        assert "error" in rec, f"NCCL {version} accepted two ranks on one GPU: {recs}"
    assert any(nccl.classify(rec["error"]) == "same_gpu" for rec in recs), (version, recs)


def _probe(library, order):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([PROBES, HERE]))
    env.pop("NCCL_MULTI_RANK_GPU_ENABLE", None)
    out = subprocess.run([sys.executable, "-m", "opscreen_runner.multirank",
                          "--library", library, "--order", order, "--ranks", "2"],
                         env=env, capture_output=True, text=True, timeout=300)
    lines = out.stdout.splitlines()
    assert lines, out.stderr[-2000:]
    return out.returncode, json.loads(lines[-1])


def test_import_first_with_cuda_at_import_finds_the_hazard():
    rc, ans = _probe("cuda_at_import", "import-first")
    assert rc == 1 and ans["ok"] is False, ans
    assert ans["finding"].startswith(
        "import-order hazard: importing cuda_at_import initialises CUDA before a rank "
        "is pinned, so every rank lands on one GPU; NCCL: "), ans
    assert all(c["cuda_initialized_after_import"] for c in ans["children"]), ans
    # every rank took device 0 of all the GPUs, its pin too late
    assert all(c["device_count"] >= 2 for c in ans["children"]), ans


def test_pin_first_with_cuda_at_import_passes():
    rc, ans = _probe("cuda_at_import", "pin-first")
    assert rc == 0 and ans["ok"] is True and ans["finding"] is None, ans
    buses = [c["bus_id"] for c in ans["children"]]
    assert len(set(buses)) == 2, ans
    assert all(c["device_count"] == 1 for c in ans["children"]), ans


def test_import_first_with_a_library_that_leaves_cuda_alone_passes():
    rc, ans = _probe("demolib", "import-first")
    assert rc == 0 and ans["ok"] is True and ans["finding"] is None, ans
    assert not any(c["cuda_initialized_after_import"] for c in ans["children"]), ans
