"""Several devices of one host, end to end: two CPU runners standing for two
GPUs (devices = cpu:2) divide a full screen of the demo library between
them, replay a sample of each other's cases in the consensus phase, and
agree. With the demo library's faulty-device switch, the faulty device is
found and quarantined: its lists and the host's answer 503, the other
device's list withholds what the faulty one screened. The demo library's
nondeterministic `silu` is found and deterministic=1 leaves it out."""
import json

import pytest

from e2e_harness import full_screen, query

# every case of the scope sampled: the test must not depend on the sample
SCOPE = {"runner__devices": "cpu:2", "runner__dtypes": "float32",
         "runner__classes": "same_shape,reduction",
         "runner__workers_per_device": 1,
         "consensus__sample_per_mille": 1000}


def _lists(d, query_string=""):
    st, allow = d.get_json("/allowlist" + query_string)
    return st, allow


@pytest.fixture(scope="module")
def agreed(tmp_path_factory):
    d, run = full_screen(tmp_path_factory.mktemp("agree"), SCOPE)
    yield d, run
    d.stop()


@pytest.fixture(scope="module")
def faulty(tmp_path_factory):
    d, run = full_screen(tmp_path_factory.mktemp("faulty"), SCOPE,
                         {"OPSCREEN_DEMOLIB_FAULTY_DEVICE": "1"})
    yield d, run
    d.stop()


def test_split_divides_the_keys(agreed):
    d, run = agreed
    split = query(d.db, "SELECT split FROM runs WHERE id=?", (run,))[0][0]
    assert split == 1
    # each key's cases on one device, and both devices have keys
    owners = query(d.db, "SELECT key, count(DISTINCT device), min(device) "
                   "FROM cases WHERE run_id=? GROUP BY key", (run,))
    assert owners and all(n == 1 for _, n, _ in owners), owners
    assert {dev for _, _, dev in owners} == {0, 1}, owners
    stored = dict(query(d.db, "SELECT key, device FROM run_split WHERE "
                        "run_id=?", (run,)))
    assert all(stored[k] == dev for k, _, dev in owners), (stored, owners)


def test_consensus_phase_agrees(agreed):
    d, run = agreed
    ev = query(d.db, "SELECT json FROM events WHERE run_id=? AND "
               "kind='consensus'", (run,))
    assert len(ev) == 1, d.logtext()
    ev = json.loads(ev[0][0])
    assert ev["sampled_cases"] > 20, ev
    assert ev["suspect"] == 0 and ev["quarantined"] == [], ev
    # every sampled case ran on the other device and twice on its owner
    rows = query(d.db, "SELECT p.attempt, p.device = c.device, count(*) FROM "
                 "replays p JOIN cases c ON c.id = p.case_id WHERE p.run_id=? "
                 "GROUP BY 1, 2", (run,))
    got = {(a, same): n for a, same, n in rows}
    assert got.get((0, 1)) is None, got     # never replayed on its owner
    assert got[(0, 0)] == got[(1, 1)] == ev["sampled_cases"], got
    assert query(d.db, "SELECT count(*) FROM quarantine WHERE run_id=?",
                 (run,))[0][0] == 0


def test_each_device_serves_the_whole_table(agreed):
    d, run = agreed
    lists = {}
    for g in ("0", "1"):
        st, allow = _lists(d, "?gpu=" + g)
        assert st == 200, allow
        lists[g] = set(allow["names"])
    assert lists["0"] == lists["1"] and lists["0"], lists
    st, host = _lists(d)
    assert st == 200 and set(host["names"]) == lists["0"], host
    # the verdicts device 1 holds for keys device 0 screened say so
    shared = query(d.db, "SELECT count(*), min(screened_on) FROM verdicts "
                   "WHERE run_id=? AND device=1 AND screened_on IS NOT NULL",
                   (run,))[0]
    assert shared[0] > 0 and shared[1] == 0, shared


def test_nondeterministic_silu_left_out(agreed):
    d, run = agreed
    nd = query(d.db, "SELECT key, dtype, nondeterministic FROM verdicts WHERE "
               "run_id=? AND nondeterministic > 0 AND screened_on IS NULL",
               (run,))
    assert ("silu", "float32") in {(k, t) for k, t, _ in nd}, nd
    st, allow = _lists(d)
    assert st == 200 and "silu" in allow["names"], allow
    st, det = _lists(d, "?deterministic=1")
    assert st == 200, det
    assert "silu" not in det["names"], det
    why = [w for w in det["withheld"] if w["name"] == "silu"]
    assert why and "nondeterministic" in why[0]["reasons"][0]["reason"], why
    # the rest of the list stands
    assert set(det["names"]) == set(allow["names"]) - {
        n for n, in query(d.db, "SELECT DISTINCT name FROM verdicts WHERE "
                          "run_id=? AND nondeterministic > 0", (run,))}
    st, bad = _lists(d, "?deterministic=yes")
    assert st == 400, bad


def test_faulty_device_quarantined(faulty):
    d, run = faulty
    q = query(d.db, "SELECT device, suspect_cases, detail FROM quarantine "
              "WHERE run_id=?", (run,))
    assert [r[0] for r in q] == [1], (q, d.logtext())
    assert q[0][1] > 0 and "device 1" in q[0][2], q
    ev = json.loads(query(d.db, "SELECT json FROM events WHERE run_id=? AND "
                          "kind='consensus'", (run,))[0][0])
    assert ev["suspect"] > 0 and [x["device"] for x in ev["quarantined"]] == [1]
    # the faulty device's list and the host's: refused, with the reason
    for qs in ("?gpu=1", "", "?gpu=1&format=text"):
        st, _, body = d.get("/allowlist" + qs)
        assert st == 503, (qs, body)
    st, err = d.get_json("/allowlist?gpu=1")
    assert "quarantined" in err["error"] and err["device"] == 1, err
    st, _ = d.get_json("/denylist")
    assert st == 503
    # the healthy device serves only what it screened itself
    st, allow = _lists(d, "?gpu=0")
    assert st == 200, allow
    own = {n for n, in query(d.db, "SELECT DISTINCT name FROM cases WHERE "
                             "run_id=? AND device=0", (run,))}
    theirs = {n for n, in query(d.db, "SELECT DISTINCT name FROM cases WHERE "
                                "run_id=? AND device=1", (run,))}
    assert theirs and not (set(allow["names"]) & (theirs - own)), allow
    held = {w["name"] for w in allow["withheld"]
            if any(r.get("reason") == "owner_quarantined" or
                   "quarantined" in r.get("reason", "")
                   for r in w["reasons"])}
    reasons = query(d.db, "SELECT DISTINCT reason FROM verdicts WHERE run_id=? "
                    "AND device=0 AND screened_on=1", (run,))
    assert reasons == [("owner_quarantined",)], reasons
    assert held or not theirs - own, allow


def test_cleared_by_a_later_screen(faulty, tmp_path):
    """The quarantine holds until a screen of the same devices agrees: the
    faulty switch off (a restarted daemon: new runners), the next full
    screen clears it."""
    d, run = faulty
    d.stop()
    d.env.pop("OPSCREEN_DEMOLIB_FAULTY_DEVICE", None)
    d.start()
    d.wait_fingerprint()
    st, err = d.get_json("/allowlist?gpu=1&stale=ok")
    assert st == 503 and "quarantined" in err["error"], err
    st, out = d.post_run({})
    assert st == 202, out
    r = d.wait_run(out["run"], timeout=600)
    assert r["state"] == "complete", (r, d.logtext())
    st, allow = d.get_json("/allowlist?gpu=1")
    assert st == 200 and allow["names"], allow
