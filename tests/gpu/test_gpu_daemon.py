"""opscreend screening flag_gems on the GPU end to end (a restricted run of a
few ops, so the suite stays short), through the HTTP API."""
from e2e_harness import Daemon


def test_daemon_screens_flag_gems(tmp_path):
    d = Daemon(tmp_path, runner__library="flag_gems", runner__devices="all",
               runner__case_deadline=120, runner__workers_per_device=2)
    d.start()
    try:
        h = d.wait_fingerprint(timeout=300)
        fp = h["devices"][0]["fingerprint"]
        assert fp["library"] == "flag_gems" and fp["gpu_uuid"].startswith("GPU-")
        st, out = d.post_run({"ops": ["add.Tensor", "mul.Tensor", "relu"],
                              "dtypes": ["float32", "bfloat16"]})
        assert st == 202, out
        run = d.wait_run(out["run"], timeout=600)
        assert run["state"] == "complete", d.logtext()
        st, ops = d.get_json(f"/ops?run={out['run']}")
        got = {(v["key"], v["dtype"]) for v in ops["verdicts"]}
        assert ("relu", "float32") in got and ("add.Tensor", "bfloat16") in got
        assert all(v["verdict"] in ("verified", "broken", "inconclusive")
                   for v in ops["verdicts"])
    finally:
        d.stop()
