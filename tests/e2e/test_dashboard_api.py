"""What the dashboard asks the daemon beyond the lists, against the real
daemon and runner on the demo library upgraded between daemon lifetimes
(0.1.0, then 0.2.0 with `add` broken, then 0.3.0 screened slowly):

- /diff: the newest full screen against the newest of another fingerprint,
  every key x dtype that moved and what the move means;
- /ops: the screen's fingerprints, since which run and version each verdict
  holds, one device's verdicts (gpu=);
- /findings: what a run has found while it runs, before any verdict;
- /runs: the version each run screened; a running run's rate and time left;
- one spelling across endpoints: `run`, JSON columns as objects."""
import time

import pytest

from e2e_harness import F32, ROOT, Daemon, demolib_copy, denied, full_screen, set_version

SCOPE = F32


@pytest.fixture(scope="module")
def upgraded(tmp_path_factory, daemon_bin):
    tmp = tmp_path_factory.mktemp("dashapi")
    lib = demolib_copy(tmp)
    conf = dict(SCOPE, runner__runner_path=f"{ROOT}/probes:{lib}")
    d, first = full_screen(tmp / "d", conf)
    d.stop()
    set_version(lib, "0.2.0")
    d, second = full_screen(tmp / "d", conf, {"OPSCREEN_DEMOLIB_BREAK": "add"})
    d.first, d.second, d.lib, d.scope = first, second, lib, conf
    yield d
    d.stop()


def test_diff_compares_the_two_versions(upgraded):
    d = upgraded
    st, diff = d.get_json("/diff")
    assert st == 200, diff
    assert diff["from"]["run"] == d.first and diff["to"]["run"] == d.second
    assert diff["from"]["fingerprints"][0]["library_version"] == "0.1.0"
    assert diff["to"]["fingerprints"][0]["library_version"] == "0.2.0"
    add = [c for c in diff["changes"] if c["key"] == "add.Tensor"]
    assert len(add) == 1 and add[0]["change"] == "regression", add
    assert add[0]["from"]["verdict"] == "verified"
    assert add[0]["to"]["verdict"] == "broken" and add[0]["to"]["severity"]
    assert add[0]["to"]["evidence_case"]
    # nothing else moved: the planted defects are in both versions
    assert [c["key"] for c in diff["changes"]] == ["add.Tensor"], diff
    assert diff["counts"]["regression"] == 1, diff["counts"]
    assert diff["counts"]["same"] > 10, diff["counts"]
    # explicit runs, reversed: the same move read the other way
    st, back = d.get_json(f"/diff?from={d.second}&to={d.first}")
    assert st == 200
    assert [c["change"] for c in back["changes"] if c["key"] == "add.Tensor"] == ["fix"]
    assert d.get_json("/diff?gpu=3")[1]["changes"] == []


@pytest.mark.parametrize("query,status", [
    ("from=abc", 400), ("to=-1", 400), ("gpu=x", 400), ("nope=1", 400),
    ("from=999999", 404), ("from=1&to=999999", 404)])
def test_diff_bad_parameters(upgraded, query, status):
    st, body = upgraded.get_json("/diff?" + query)
    assert st == status and "error" in body, (query, st, body)


def test_ops_carries_its_fingerprint_and_since(upgraded):
    d = upgraded
    st, ops = d.get_json("/ops")
    assert st == 200 and ops["run"] == d.second and ops["state"] == "complete"
    assert ops["full"] == 1
    assert ops["fingerprints"][0]["library_version"] == "0.2.0"
    rows = {(v["key"], v["dtype"]): v for v in ops["verdicts"]}
    add = rows[("add.Tensor", "float32")]
    assert add["verdict"] == "broken"
    assert (add["since_run"], add["since_version"]) == (d.second, "0.2.0"), add
    assert add["since_finished"] > 0
    # the same verdict in both versions: since the first
    st, old = d.get_json(f"/ops?run={d.first}")
    before = {(v["key"], v["dtype"]): v["verdict"] for v in old["verdicts"]}
    kept = [v for k, v in rows.items() if before.get(k) == v["verdict"]]
    assert {v["verdict"] for v in kept} >= {"verified", "broken"}, kept
    for v in kept:
        assert (v["since_run"], v["since_version"]) == (d.first, "0.1.0"), v
    # one device: the cpu runs are device -1
    assert d.get_json("/ops?gpu=cpu")[1]["verdicts"] == ops["verdicts"]
    st, none = d.get_json("/ops?gpu=2")
    assert st == 200 and none["verdicts"] == []
    assert d.get_json("/ops?gpu=x")[0] == 400
    assert d.get_json("/ops?run=999999")[0] == 404


def test_one_spelling_across_endpoints(upgraded):
    d = upgraded
    st, deny = d.get_json("/denylist")
    case_id = next(e for e in deny["names"] if e["name"] == "add")["evidence"][0]["case"]
    st, case = d.get_json(f"/cases/{case_id}")
    assert st == 200 and case["run"] == d.second and "run_id" not in case, case
    assert isinstance(case["spec"], dict)
    assert case["shrunk_spec"] is None or isinstance(case["shrunk_spec"], dict)
    shrunk = [c for c in (d.get_json(f"/cases/{e['evidence'][0]['case']}")[1]
                          for e in denied(deny)) if c.get("shrunk_spec")]
    assert shrunk and all(isinstance(c["shrunk_spec"], dict) for c in shrunk)
    st, one = d.get_json("/ops/add")
    assert all("run" in h and "run_id" not in h for h in one["history"])
    assert {h["library_version"] for h in one["history"]} == {"0.1.0", "0.2.0"}
    st, runs = d.get_json("/runs")
    versions = {r["id"]: r["library_version"] for r in runs["runs"]}
    assert versions[d.first] == "0.1.0" and versions[d.second] == "0.2.0"


@pytest.mark.parametrize("query,status", [
    ("run=abc", 400), ("gpu=-5", 400), ("x=1", 400), ("run=999999", 404)])
def test_findings_bad_parameters(upgraded, query, status):
    st, body = upgraded.get_json("/findings?" + query)
    assert st == status and "error" in body, (query, st, body)


def test_findings_arrive_while_the_first_screen_of_a_version_runs(upgraded):
    """0.3.0 is screened with every `cos` call slowed: while the run goes on,
    /ops still shows 0.2.0's complete screen (its fingerprint differs from
    the installed one), /findings shows what the run has failed so far and
    /runs/{id} its rate and time left; at its end the findings cover every
    broken verdict."""
    d = upgraded
    d.stop()		# the last test of the module: it upgrades the library
    set_version(d.lib, "0.3.0")
    d3 = Daemon(d.tmp, env={"OPSCREEN_DEMOLIB_DELAY": "cos:0.5"}, **d.scope)
    d3.start()
    try:
        d3.wait_fingerprint()
        st, out = d3.post_run({})
        assert st == 202, out
        run = out["run"]
        deadline = time.time() + 240
        seen = None
        while time.time() < deadline:
            st, f = d3.get_json("/findings")
            assert st == 200, f
            # until the new run leaves `queued`, /findings answers the
            # newest that started: 0.2.0's complete one
            if f["run"] == run and f["state"] == "complete":
                break
            if f["findings"] and f["run"] == run:
                seen = f
                st, r = d3.get_json(f"/runs/{run}")
                if r["state"] == "running" and r["progress"].get("rate"):
                    break
            time.sleep(0.3)
        assert seen is not None and seen["state"] == "running", seen
        assert seen["fingerprints"][0]["library_version"] == "0.3.0"
        assert 0 < seen["done"] <= seen["total"]
        top = seen["findings"][0]
        assert top["severity"] == "critical" and top["evidence_case"], top
        assert r["progress"]["rate"] > 0 and r["progress"]["eta_s"] >= 0, r
        st, ops = d3.get_json("/ops")
        assert st == 200 and ops["run"] == d.second
        assert ops["fingerprints"][0]["library_version"] == "0.2.0"
        st, h = d3.get_json("/healthz")
        assert h["devices"][0]["fingerprint"]["library_version"] == "0.3.0"
        assert h["last_run"]["run"] == run
        # a name page of the running run: its cases so far
        st, page = d3.get_json(f"/ops/{top['name']}?run={run}")
        assert st == 200 and page["cases"], page

        done = d3.wait_run(run)
        assert done["state"] == "complete", done
        st, f = d3.get_json(f"/findings?run={run}")
        found = {(x["key"], x["dtype"]) for x in f["findings"]}
        st, ops = d3.get_json("/ops")
        assert ops["run"] == run
        broken = {(v["key"], v["dtype"]) for v in ops["verdicts"]
                  if v["verdict"] == "broken" and v["reason"] != "intermittent"}
        assert broken and broken <= found, broken - found
        # severities come most severe first
        order = {"critical": 3, "loud": 2, "numerics": 1, "": 0}
        ranks = [order[x["severity"]] for x in f["findings"]]
        assert ranks == sorted(ranks, reverse=True), ranks
    finally:
        d3.stop()
