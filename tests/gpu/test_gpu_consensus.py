"""Several GPUs of one host, end to end on flag_gems (docs/design.md,
"Several GPUs"): a full screen (the host's scope: float32, same_shape and
bootstrap) split over two GPUs, NCCL's pinning check before it and its
all-gather of the replays' digests after, the multi-rank bootstrap probe
finding the import-order hazard, and two runners forced onto one GPU refused
by NCCL. Skipped below two GPUs or without libopscreen_nccl."""
import json
import os
import sys

import pytest

from e2e_harness import Daemon, query

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "probes"))
from opscreen_runner import nccl, multirank  # noqa: E402

SCOPE = {"runner__library": "flag_gems", "runner__devices": "0,1",
         "runner__dtypes": "float32", "runner__classes": "same_shape,bootstrap",
         "runner__case_deadline": 300, "runner__workers_per_device": 4,
         "consensus__nccl": "yes"}


@pytest.fixture(autouse=True)
def two_gpus():
    have = multirank.gpu_count()
    if have < 2:
        pytest.skip(f"needs 2 GPUs, this host has {have}")
    if not nccl.available():
        pytest.skip("build/libopscreen_nccl.so is missing (make builds it "
                    "where nvcc and nccl.h are)")


def _events(d, run, kind):
    return [json.loads(j) for j, in query(d.db, "SELECT json FROM events "
                                          "WHERE run_id=? AND kind=?",
                                          (run, kind))]


def test_split_screen_over_two_gpus(tmp_path):
    d = Daemon(tmp_path / "d", **SCOPE).start()
    try:
        d.wait_fingerprint(timeout=600)
        st, out = d.post_run({})
        assert st == 202, out
        run = out["run"]
        r = d.wait_run(run, timeout=3000)
        assert r["state"] == "complete", (r, d.logtext())
        assert query(d.db, "SELECT split FROM runs WHERE id=?", (run,)) == [(1,)]
        assert _events(d, run, "nccl_pincheck"), d.logtext()
        gathered = _events(d, run, "nccl_gather")
        assert gathered and all(a["ok"] for a in gathered[0]["answers"])
        buses = {a.get("bus_id") for a in gathered[0]["answers"]}
        assert len(buses) == 2, buses      # two GPUs, not one twice
        ev = _events(d, run, "consensus")[0]
        assert ev["sampled_cases"] > 0 and ev["quarantined"] == [], ev
        mr = _events(d, run, "multirank")[0]
        assert mr["pin_first"]["ok"] is True, mr
        # flag_gems initialises CUDA at import: the hazard, with NCCL's words
        if mr["import_first"]["finding"]:
            assert _events(d, run, "bootstrap_hazard")
        lists = [d.get_json(f"/allowlist?gpu={g}")[1]["names"] for g in (0, 1)]
        assert lists[0] == lists[1] and lists[0]
    finally:
        d.stop()


def test_two_runners_on_one_gpu_refused_by_nccl(tmp_path):
    d = Daemon(tmp_path / "d", env={"OPSCREEN_FORCE_GPU": "0"}, **SCOPE).start()
    try:
        d.wait_fingerprint(timeout=600)
        st, out = d.post_run({})
        assert st == 202, out
        r = d.wait_run(out["run"], timeout=900)
        assert r["state"] == "failed", r
        assert "host pinning failure" in r["error"], r
        assert nccl.classify(r["error"]) == "same_gpu", r["error"]
        assert query(d.db, "SELECT count(*) FROM cases WHERE run_id=?",
                     (out["run"],)) == [(0,)]
    finally:
        d.stop()
