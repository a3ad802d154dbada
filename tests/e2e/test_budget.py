"""runner.key_budget: a key whose candidate calls have taken more than the
budget has its remaining cases recorded `skipped` (key_budget); they enter the
fold, so no key x dtype is verified on part of its cases."""
import json
import os
import re
import sqlite3

import pytest


@pytest.fixture
def make_daemon(make_daemon):
    """This file's daemons (tests/e2e/conftest.py's) with the 20 s CPU case
    deadline its slow first calls were set against: seconds each, and one
    of 19 s that the first-call budget must stop before any deadline."""
    def make(**overrides):
        overrides.setdefault("runner__cpu_case_deadline", 20)
        return make_daemon(**overrides)
    return make


def _screened(make_daemon, scope, **conf):
    """A daemon with config overrides conf that has completed one run of
    scope: (daemon, its run record, run id)."""
    d = make_daemon(**conf).start()
    d.wait_fingerprint()
    st, out = d.post_run(scope)
    assert st == 202, out
    run = d.wait_run(out["run"])
    assert run["state"] == "complete", run
    return d, run, out["run"]


def test_key_budget_stops_a_slow_key(make_daemon):
    # the demo sum_dim accumulates 65,536-long rows one rounding at a time:
    # 0.1 s of candidate time are gone after a few cases (at 0.3 s a full
    # make test run cut nothing once its runners had one torch thread each,
    # the default since 0ccc856: the key's cases summed to under 0.3 s)
    d, run, rid = _screened(make_daemon, {"ops": ["sum.dim_IntList", "neg"],
                                          "classes": ["accumulation", "reduction",
                                                      "same_shape"]},
                            runner__key_budget=0.1)
    assert run["done"] == run["total"], run
    db = sqlite3.connect(d.db)
    skipped = db.execute(
        "SELECT c.key, r.detail FROM results r JOIN cases c ON c.id=r.case_id "
        "WHERE c.run_id=? AND r.reason='key_budget'", (rid,)).fetchall()
    assert skipped and {k for k, _ in skipped} == {"sum.dim_IntList"}, skipped
    assert "over runner.key_budget (0.1 s)" in skipped[0][1]
    # they count in the key's verdicts: no dtype of it is verified
    verdicts = dict(((k, dt), (v, r)) for k, dt, v, r in db.execute(
        "SELECT key, dtype, verdict, reason FROM verdicts WHERE run_id=?",
        (rid,)))
    sd = {dt: vr for (k, dt), vr in verdicts.items() if k == "sum.dim_IntList"}
    cut = {dt for (dt,) in db.execute(
        "SELECT DISTINCT c.dtype FROM results r JOIN cases c ON c.id=r.case_id "
        "WHERE c.run_id=? AND r.reason='key_budget'", (rid,))}
    # a dtype with cases cut is never verified (a dtype whose cases all ran
    # before the budget was gone is judged on all of them)
    assert cut and all(sd[dt][0] in ("broken", "inconclusive") for dt in cut), (cut, sd)
    assert all(r == "key_budget" for v, r in sd.values() if v == "inconclusive"), sd
    # a fast key is untouched by the other's budget
    ng = {dt: vr for (k, dt), vr in verdicts.items() if k == "neg"}
    assert ng and all(v == "verified" for v, _ in ng.values()), ng


def test_a_key_waits_for_its_cases_in_flight(make_daemon):
    """A case is charged to its key's budget when it ends; a key whose cases
    in flight have held their runners past the budget starts no other case
    meanwhile. The demo sub takes 1 s per call (OPSCREEN_DEMOLIB_SLOW), the
    budget is 1 ms: the second runner, through the other keys' first cases,
    reaches sub's second case while the first still runs. It takes other
    keys' cases instead, and the first case's charge then cuts sub: one sub
    case ran (two or more without the wait)."""
    ops = ["sub.Tensor", "abs", "neg", "relu", "sin", "cos", "exp", "sigmoid"]
    d, run, rid = _screened(
        make_daemon, {"ops": ops, "dtypes": ["float32"], "classes": ["same_shape"]},
        runner__workers_per_device=2, runner__compile_workers=0,
        runner__shrink_max=0, runner__key_budget=0.001,
        env={"OPSCREEN_DEMOLIB_SLOW": "sub"})
    assert run["done"] == run["total"], run
    db = sqlite3.connect(d.db)
    rows = db.execute(
        "SELECT c.key, r.status, r.reason, r.cand_first_ms FROM results r JOIN cases c "
        "ON c.id=r.case_id WHERE c.run_id=?", (rid,)).fetchall()
    sub = [(st, why, ms) for k, st, why, ms in rows if k == "sub.Tensor"]
    ran = [ms for st, why, ms in sub if st != "skipped"]
    assert len(sub) > 2, sub
    assert len(ran) == 1 and ran[0] >= 1000, sub
    assert all(why == "key_budget" for st, why, ms in sub if st == "skipped"), sub
    # the other keys ran meanwhile, and nothing waited for good
    assert {k for k, st, _, _ in rows if st != "skipped"} == set(ops), rows


def _shrink_runs(d, run):
    db = sqlite3.connect(d.db)
    return [n for (n,) in db.execute(
        "SELECT r.shrink_runs FROM results r JOIN cases c ON c.id=r.case_id "
        "WHERE c.run_id=? AND r.shrink_runs > 0", (run,))]


def test_shrink_budget_bounds_each_shrink(make_daemon):
    # the demo minimum gets broadcasting wrong: its failing cases shrink over
    # several halvings when nothing bounds the shrink...
    scope = {"ops": ["minimum"], "classes": ["broadcast"]}
    free, _, rid = _screened(make_daemon, scope, runner__shrink_budget=0)
    unbounded = _shrink_runs(free, rid)
    assert unbounded and max(unbounded) > 1, unbounded
    free.stop()
    # ...and with a budget shorter than one variant, each shrink runs exactly
    # its first variant and still stores what it found
    d, _, rid = _screened(make_daemon, scope, runner__shrink_budget=0.001)
    bounded = _shrink_runs(d, rid)
    assert bounded and set(bounded) == {1}, bounded
    db = sqlite3.connect(d.db)
    assert db.execute("SELECT count(*) FROM results r JOIN cases c ON c.id=r.case_id "
                      "WHERE c.run_id=? AND r.shrunk_spec IS NOT NULL",
                      (rid,)).fetchone()[0] >= 1


def test_queue_order_dtype_blocks_classes_take_turns(make_daemon):
    """One runner runs the queue in order: within a key each dtype is a block,
    and within it the classes take turns (each class once before any twice),
    so a key cut short by its budget has had every class probed."""
    d, _, rid = _screened(make_daemon, {"ops": ["add.Tensor"], "classes": [
        "same_shape", "broadcast", "scalar"]}, runner__workers_per_device=1,
        runner__compile_workers=0, runner__shrink_max=0)
    db = sqlite3.connect(d.db)
    seq = db.execute("SELECT c.dtype, c.class FROM results r JOIN cases c ON "
                     "c.id=r.case_id WHERE c.run_id=? AND c.class != 'bootstrap' "
                     "ORDER BY r.created, c.id", (rid,)).fetchall()
    blocks = [dt for i, (dt, _) in enumerate(seq) if i == 0 or seq[i - 1][0] != dt]
    assert len(blocks) == len(set(blocks)) >= 2, blocks
    for dt in blocks:
        cls = [c for t, c in seq if t == dt]
        kinds = set(cls)
        assert len(kinds) == 3, (dt, kinds)
        assert set(cls[:len(kinds)]) == kinds, (dt, cls[:10])


def test_compile_ladders_run_largest_step_first(make_daemon):
    """The compile runners take the ladders' largest steps first (every
    ladder's, then the next size down): the slowest steps start at once."""
    d, _, rid = _screened(make_daemon, {"ops": ["topk"], "classes": ["compile"]},
                          runner__workers_per_device=1, runner__compile_workers=1,
                          runner__shrink_max=0)
    db = sqlite3.connect(d.db)
    seq = db.execute("SELECT c.dtype, json_extract(c.spec, '$.ladder.value') FROM "
                     "results r JOIN cases c ON c.id=r.case_id WHERE c.run_id=? AND "
                     "c.class='compile' ORDER BY r.created, c.id", (rid,)).fetchall()
    values = [v for _, v in seq]
    dtypes = {dt for dt, _ in seq}
    assert len(dtypes) >= 2 and len(values) == 4 * len(dtypes), seq
    # rounds of one step per ladder, largest first
    rounds = [sorted(values[i:i + len(dtypes)]) for i in range(0, len(values), len(dtypes))]
    assert [r[0] for r in rounds] == [r[-1] for r in rounds], rounds
    assert [r[0] for r in rounds] == sorted({v for v in values}, reverse=True), rounds


def test_compile_runners_screen_once_their_ladders_are_done(make_daemon):
    """A compile runner takes ordinary cases once every ladder step has been
    dispatched; no ladder step ever runs on a screening runner."""
    # one dtype: topk's ladder (~10 s of demo-library first calls) ends
    # well before the one screening runner is through 16 keys' cases
    ops = ["topk", "abs", "add.Tensor", "clamp", "cos", "cumsum", "div.Tensor",
           "exp", "maximum", "minimum", "neg", "relu", "sigmoid", "sin",
           "sub.Tensor", "tanh"]
    d, _, rid = _screened(make_daemon, {"ops": ops, "dtypes": ["float32"]},
                          runner__workers_per_device=1, runner__compile_workers=1,
                          runner__shrink_max=0)
    db = sqlite3.connect(d.db)
    rows = db.execute("SELECT c.class, json_extract(r.figures, '$.runner.role') FROM "
                      "results r JOIN cases c ON c.id=r.case_id WHERE c.run_id=? AND "
                      "r.figures IS NOT NULL", (rid,)).fetchall()
    ladder = [role for cls, role in rows if cls == "compile"]
    other = [role for cls, role in rows if cls != "compile"]
    assert ladder and set(ladder) == {"compile"}, ladder
    assert other.count("screen") and other.count("compile"), (
        other.count("screen"), other.count("compile"))


def test_shrinks_are_timed_and_a_key_over_budget_is_not_shrunk(make_daemon):
    # the demo minimum's broadcast failures shrink; each shrink stores its
    # wall time and its variants' candidate time (what key_budget charges)
    scope = {"ops": ["minimum"], "classes": ["broadcast"]}
    free, _, rid = _screened(make_daemon, scope, runner__shrink_budget=0)
    db = sqlite3.connect(free.db)
    shrunk = db.execute(
        "SELECT r.shrink_runs, r.shrink_ms, r.shrink_cand_ms FROM results r "
        "JOIN cases c ON c.id=r.case_id WHERE c.run_id=? AND r.shrink_runs > 0",
        (rid,)).fetchall()
    assert shrunk, "no case was shrunk"
    assert all(0 < cand <= wall for _, wall, cand in shrunk), shrunk
    free.stop()
    # a key whose candidate time is over runner.key_budget gets none more:
    # its failing case keeps its own (unshrunk) repro, nothing is shrunk
    d, _, rid = _screened(make_daemon, scope, runner__shrink_budget=0,
                          runner__key_budget=1e-6)
    db = sqlite3.connect(d.db)
    rows = db.execute(
        "SELECT r.status, r.reason, r.shrink_runs, r.repro IS NOT NULL FROM "
        "results r JOIN cases c ON c.id=r.case_id WHERE c.run_id=?",
        (rid,)).fetchall()
    fails = [r for r in rows if r[0] == "fail"]
    assert fails and all(has_repro for *_, has_repro in fails), rows
    assert all(n == 0 for _, _, n, _ in rows), rows
    assert any(why == "key_budget" for _, why, _, _ in rows), rows


def _complete_run(d, body):
    """Starts a run of body, waits for it to complete; its id."""
    st, out = d.post_run(body)
    assert st == 202, out
    r = d.wait_run(out["run"])
    assert r["state"] == "complete", (r, d.logtext())
    return out["run"]


def _key_cases(db_path, run, key):
    """{spec: (status, reason, detail)} of one key's cases in a run."""
    db = sqlite3.connect(db_path)
    rows = db.execute(
        "SELECT c.spec, r.status, r.reason, r.detail FROM cases c JOIN "
        "results r ON r.case_id=c.id WHERE c.run_id=? AND c.key=?",
        (run, key)).fetchall()
    db.close()
    return {spec: (st, why, det) for spec, st, why, det in rows}


def test_rescreen_of_one_library_replays_the_key_budget_cuts(tmp_path, daemon_bin):
    """A second run of an unchanged library under the same key_budget cuts,
    before any case runs, the cases the first run cut: it runs what the first
    ran (and charges it as usual) instead of spending the budget again on
    cases the first never reached. A run of other keys in between changes
    nothing; another budget screens as before."""
    from e2e_harness import Daemon
    scope = {"ops": ["sum.dim_IntList", "neg"],
             "classes": ["accumulation", "reduction", "same_shape"]}
    # every case of the demo sum_dim runs (no fail_fast): its failing
    # classes give the budget cases to spend on. Its 78 first calls sum to
    # 0.25-0.35 s on a 2-vCPU host, 37-59 ms the longest: a 0.1 s budget
    # cuts some of them whatever the machine's speed at the time
    conf = {"runner__workers_per_device": 1, "runner__compile_workers": 0,
            "runner__fail_fast": "no"}
    key = "sum.dim_IntList"

    def screen(d, body=scope):
        return _complete_run(d, body)

    d = Daemon(tmp_path, runner__key_budget=0.1, **conf).start()
    try:
        d.wait_fingerprint()
        first = screen(d)
        screen(d, {"ops": ["neg"], "classes": ["same_shape"]})
        second = screen(d)
    finally:
        d.stop()
    a, b = _key_cases(d.db, first, key), _key_cases(d.db, second, key)
    assert a.keys() == b.keys()
    cut_a = {s for s, (st, why, _) in a.items() if why == "key_budget"}
    ran_a = a.keys() - cut_a
    assert cut_a and ran_a, a
    # every case the first run cut is cut in the second, and those cuts say
    # where they come from
    replayed = {s for s, (st, why, det) in b.items() if why == "key_budget"
                and f"run {first} of this library cut it" in det}
    assert replayed == cut_a, (len(replayed), len(cut_a))
    # the second ran no case the first did not (it may cut more: it charges
    # the cases it runs like any run)
    ran_b = {s for s, (st, why, _) in b.items() if why != "key_budget"}
    assert ran_b and ran_b <= ran_a, (len(ran_b), len(ran_a))
    # the other key, under its budget, is untouched
    neg = _key_cases(d.db, second, "neg")
    assert neg and all(why != "key_budget" for _, why, _ in neg.values())
    log = open(d.log, errors="replace").read()
    assert re.search(rf"run {second}: device -1 \(-1 = cpu\): {len(cut_a)} "
                     r"cases of 1 keys not run, as the library's last run of "
                     r"each cut them \(runner\.key_budget 0\.1 s\)", log), \
        log[-3000:]

    # the same database under another budget: nothing is replayed
    d = Daemon(tmp_path, runner__key_budget=0.15, **conf).start()
    try:
        d.wait_fingerprint()
        third = screen(d)
    finally:
        d.stop()
    c = _key_cases(d.db, third, key)
    assert not any("of this library cut it" in det for _, _, det in c.values()), c


def test_rescreen_of_one_library_replays_its_hang_skips(tmp_path, daemon_bin):
    """The cases a complete run skipped because a case of their key and dtype
    hung are skipped again (`skip_replay`) in a re-screen of the same library,
    before any case runs; the case that hung runs again. When it no longer
    hangs, the key and dtype is inconclusive, not verified on part of its
    cases."""
    from e2e_harness import Daemon
    scope = {"ops": ["tanh", "neg"], "classes": ["same_shape", "noncontig"],
             "dtypes": ["float32"]}
    # the planted hang waits out the deadline in two of the three runs; 12 s
    # leaves a plain case on a loaded 2-core machine room (one took 8 s)
    conf = {"runner__workers_per_device": 1, "runner__compile_workers": 0,
            "runner__cpu_case_deadline": 12}

    def screen(d, body=scope):
        return _complete_run(d, body)

    def verdict(run, key):
        db = sqlite3.connect(d.db)
        row = db.execute("SELECT verdict, reason, detail FROM verdicts WHERE "
                         "run_id=? AND key=? AND dtype='float32'",
                         (run, key)).fetchone()
        db.close()
        return row

    d = Daemon(tmp_path, **conf).start()
    try:
        d.wait_fingerprint()
        first = screen(d)
        second = screen(d)
    finally:
        d.stop()
    a, b = _key_cases(d.db, first, "tanh"), _key_cases(d.db, second, "tanh")
    assert a.keys() == b.keys()
    hung = {s for s, (st, _, _) in a.items() if st == "timeout"}
    skipped = {s for s, (st, why, _) in a.items() if why == "skipped"}
    assert len(hung) == 1 and skipped, a
    # the second run skips before any case runs what the first skipped,
    # says so, and runs the case that hung again (it hangs again)
    assert {s for s, (_, why, _) in b.items() if why == "skip_replay"} == skipped
    assert all(f"run {first} of this library skipped it" in det
               for _, why, det in b.values() if why == "skip_replay")
    assert [s for s, (st, _, _) in b.items() if st == "timeout"] == list(hung)
    assert verdict(second, "tanh")[:2] == ("broken", "timeout")
    assert verdict(second, "neg")[0] == "verified"
    log = open(d.log, errors="replace").read()
    assert re.search(rf"run {second}: device -1 \(-1 = cpu\): {len(skipped)} "
                     r"cases of 1 keys not run, as the library's last run of "
                     r"each skipped them after a hang or crash", log), log[-3000:]

    # the same library in processes where tanh does not hang: the replayed
    # skips (from the second run's own) keep the key and dtype from being
    # verified on the one case that ran
    d = Daemon(tmp_path, env={"OPSCREEN_DEMOLIB_FIX": "tanh"}, **conf).start()
    try:
        d.wait_fingerprint()
        third = screen(d)
    finally:
        d.stop()
    c = _key_cases(d.db, third, "tanh")
    assert {s for s, (_, why, _) in c.items() if why == "skip_replay"} == skipped
    assert all(st == "pass" for s, (st, _, _) in c.items() if s not in skipped), c
    v = verdict(third, "tanh")
    assert v[:2] == ("inconclusive", "skip_replay"), v
    assert f"run {second} of this library skipped it" in v[2], v


def test_rescreen_of_one_library_reuses_its_shrinks(tmp_path, daemon_bin):
    """A failing case that an earlier complete run of the same library failed
    the same way takes that run's shrink (shrunk spec and repro, shrink_from
    naming the case that ran it) instead of running its variants again; after
    a library change every shrink runs anew."""
    import shutil
    from e2e_harness import ROOT, Daemon
    lib = tmp_path / "lib"
    shutil.copytree(os.path.join(ROOT, "tests", "demolib", "opscreen_demolib"),
                    lib / "opscreen_demolib",
                    ignore=shutil.ignore_patterns("__pycache__"))
    # the demo minimum gets broadcasting wrong: its failures shrink
    scope = {"ops": ["minimum"], "classes": ["broadcast"]}
    conf = {"runner__workers_per_device": 1, "runner__compile_workers": 0,
            "runner__shrink_budget": 0, "runner__runner_path": f"{ROOT}/probes:{lib}"}

    def screen(d, body=scope):
        return _complete_run(d, body)

    def shrinks(run):
        db = sqlite3.connect(d.db)
        return {s: (cid, n, sp, rp, fr) for s, cid, n, sp, rp, fr in db.execute(
            "SELECT c.spec, c.id, r.shrink_runs, r.shrunk_spec, r.repro, r.shrink_from "
            "FROM cases c JOIN results r ON r.case_id=c.id WHERE c.run_id=? AND "
            "r.status='fail'", (run,))}

    d = Daemon(tmp_path / "d", **conf).start()
    try:
        d.wait_fingerprint()
        first, second = screen(d), screen(d)
        a, b = shrinks(first), shrinks(second)
        ran = {s: v for s, v in a.items() if v[1] > 0}
        assert ran and any(v[2] for v in ran.values()), a
        assert all(v[4] is None for v in a.values()), a
        # every case the first run shrank fails alike in the second and
        # takes that shrink: no variant runs
        assert b.keys() == a.keys()
        for s, (cid, n, sp, rp, fr) in ran.items():
            assert b[s][1] == 0 and b[s][4] == cid, (b[s], cid)
            assert b[s][2] == sp, (b[s][2], sp)
            if sp:  # the repro is the same script, naming both cases
                assert b[s][3] == rp.replace(
                    f"opscreen repro: case {cid},",
                    f"opscreen repro: case {b[s][0]} (shrunk as case {cid}),", 1), \
                    b[s][3][:300]
        st, case = d.get_json(f"/cases/{next(v[0] for v in b.values() if v[4])}")
        assert st == 200 and case["shrink_from"] in {v[0] for v in ran.values()}, case
        assert f"run {second}: device -1 (-1 = cpu): {len(ran)} shrinks of earlier " \
            "runs of this library to reuse" in d.logtext()
        # another library: the shrinks run again
        (lib / "opscreen_demolib" / "extra.py").write_text("PATCHED = True\n")
        d.stop()
        d = Daemon(tmp_path / "d", **conf).start()
        d.wait_fingerprint()
        third = screen(d)
        c = shrinks(third)
        assert all(v[4] is None for v in c.values()), c
        assert sum(v[1] for v in c.values()) == sum(v[1] for v in a.values())
    finally:
        d.stop()


def _sub_cases(d, rid):
    db = sqlite3.connect(d.db)
    return db.execute(
        "SELECT c.id, r.status, r.reason, r.detail, r.cand_first_ms, r.figures "
        "FROM results r JOIN cases c ON c.id=r.case_id WHERE c.run_id=? AND "
        "c.key='sub.Tensor' ORDER BY c.id", (rid,)).fetchall()


FIRST_CALL_SCOPE = {"ops": ["sub.Tensor", "neg", "abs"], "dtypes": ["float32"],
                    "classes": ["same_shape"]}
FIRST_CALL_CONF = dict(runner__workers_per_device=2, runner__compile_workers=1,
                       runner__shrink_max=0, runner__first_call_budget=1)


def test_a_first_call_over_its_budget_twice_is_cut(make_daemon):
    """runner.first_call_budget: the demo sub's first call on each new shape
    takes 4 s (OPSCREEN_DEMOLIB_SLOW_FIRST), the budget is 1 s. Its first case
    is stopped on a screening runner at 1 s and measured again on the compile
    runner into an empty cache, where it runs past the budget too: it and
    sub's other cases are not judged, and sub is inconclusive
    (first_call_budget), never verified on part of its cases. A second screen
    of the same library cuts the same cases at once."""
    d, run, rid = _screened(make_daemon, FIRST_CALL_SCOPE,
                            env={"OPSCREEN_DEMOLIB_SLOW_FIRST": "sub:4"},
                            **FIRST_CALL_CONF)
    assert run["done"] == run["total"], run
    sub = _sub_cases(d, rid)
    assert len(sub) >= 3 and all(r[1] == "skipped" and r[2] == "first_call_budget"
                                 for r in sub), sub
    measured = [r for r in sub if r[3].startswith("not judged")]
    assert len(measured) == 1 and "on a compile runner" in measured[0][3], sub
    assert all("ran past runner.first_call_budget (1 s) twice" in r[3]
               for r in sub if r not in measured), sub
    db = sqlite3.connect(d.db)
    verdicts = dict(((k, dt), (v, why)) for k, dt, v, why in db.execute(
        "SELECT key, dtype, verdict, reason FROM verdicts WHERE run_id=?", (rid,)))
    assert verdicts[("sub.Tensor", "float32")] == ("inconclusive",
                                                   "first_call_budget"), verdicts
    # the other ops are untouched
    assert verdicts[("neg", "float32")][0] == "verified", verdicts
    assert verdicts[("abs", "float32")][0] == "verified", verdicts
    log = d.logtext()
    assert log.count("measuring it again on an empty cache") == 1, log[-3000:]
    # the next screen of the library cuts them before any runs
    st, out = d.post_run(FIRST_CALL_SCOPE)
    assert st == 202, out
    run2 = d.wait_run(out["run"])
    assert run2["state"] == "complete", run2
    sub2 = _sub_cases(d, out["run"])
    assert len(sub2) == len(sub) and all(
        r[2] == "first_call_budget" and f"run {rid} of this library cut it" in r[3]
        for r in sub2), sub2
    assert d.logtext().count("measuring it again on an empty cache") == 1
    (v,) = db.execute("SELECT verdict FROM verdicts WHERE run_id=? AND "
                      "key='sub.Tensor' AND dtype='float32'", (out["run"],)).fetchone()
    assert v == "inconclusive"


def test_a_first_call_slow_only_beside_others_is_judged(make_daemon):
    """The same budget when sub's first calls are slow only on the screening
    runners (`loaded`: not in an empty cache of the runner's own): the
    re-measure on the compile runner comes in within the budget, so the case
    is judged there, and sub's other cases then run without the budget; the
    key is verified, not a hazard."""
    d, run, rid = _screened(make_daemon, FIRST_CALL_SCOPE,
                            env={"OPSCREEN_DEMOLIB_SLOW_FIRST": "sub:3:loaded"},
                            **FIRST_CALL_CONF)
    assert run["done"] == run["total"], run
    sub = _sub_cases(d, rid)
    assert len(sub) >= 3 and all(r[1] == "pass" for r in sub), sub
    roles = [json.loads(r[5]).get("runner", {}).get("role") for r in sub]
    assert "compile" in roles, roles
    # after the re-measure the screening runners ran sub's cases to the end
    assert any(r[4] is not None and r[4] >= 3000 for r in sub), sub
    db = sqlite3.connect(d.db)
    (v,) = db.execute("SELECT verdict FROM verdicts WHERE run_id=? AND "
                      "key='sub.Tensor' AND dtype='float32'", (rid,)).fetchone()
    assert v == "verified"
    assert d.logtext().count("measured again, first call") == 1


def test_a_first_call_measured_again_holds_only_its_dtype(make_daemon):
    """While sub float32's first case waits to be measured again, sub's
    float16 cases, queued after float32's and fast, run; float32's other
    cases wait and are cut with it. The budget is 8 s, longer than a runner
    takes to start again after its case was stopped, so the screening runners
    are back while the re-measure still runs."""
    conf = dict(FIRST_CALL_CONF, runner__first_call_budget=8)
    d, run, rid = _screened(
        make_daemon, {"ops": ["sub.Tensor"], "dtypes": ["float32", "float16"],
                      "classes": ["same_shape"]},
        env={"OPSCREEN_DEMOLIB_SLOW_FIRST": "sub:19:always:float32"}, **conf)
    assert run["done"] == run["total"], run
    db = sqlite3.connect(d.db)
    rows = db.execute(
        "SELECT c.id, c.dtype, r.status, r.reason, r.created FROM results r JOIN "
        "cases c ON c.id=r.case_id WHERE c.run_id=? AND c.key='sub.Tensor' AND "
        "c.class='same_shape'", (rid,)).fetchall()
    f32 = [r for r in rows if r[1] == "float32"]
    f16 = [r for r in rows if r[1] == "float16"]
    # float16's cases come after float32's in the queue (dtype blocks)
    assert f32 and f16 and min(r[0] for r in f32) < min(r[0] for r in f16), rows
    assert all(r[3] == "first_call_budget" for r in f32), f32
    assert all(r[2] == "pass" for r in f16), f16
    # float16's cases ran while float32's re-measure was pending
    cut = min(r[4] for r in f32)
    assert all(r[4] < cut for r in f16), (cut, f16)
    verdicts = dict(db.execute("SELECT dtype, verdict FROM verdicts WHERE run_id=? "
                               "AND key='sub.Tensor'", (rid,)))
    assert verdicts["float32"] == "inconclusive" and verdicts["float16"] == "verified"


def test_first_calls_in_flight_wait_with_the_one_past_the_budget(make_daemon):
    """When one first call of a key and dtype is stopped at the budget, the
    key and dtype's other first calls in flight are stopped with it and wait
    for its re-measure, instead of each running on to the budget. The demo
    sub's first call on each new shape takes 6 s, the budget is 2 s; four
    runners reach sub's next cases while its first still runs."""
    ops = ["sub.Tensor", "abs", "neg", "relu", "sin", "cos", "exp", "sigmoid"]
    d, run, rid = _screened(
        make_daemon, {"ops": ops, "dtypes": ["float32"], "classes": ["same_shape"]},
        runner__workers_per_device=4, runner__compile_workers=1,
        runner__shrink_max=0, runner__first_call_budget=2,
        env={"OPSCREEN_DEMOLIB_SLOW_FIRST": "sub:6"})
    assert run["done"] == run["total"], run
    log = d.logtext()
    assert log.count("first call still running after 2 s; measuring it again") == 1, \
        log[-4000:]
    waited = re.findall(r"case (\d+) \(sub.Tensor float32\): first call stopped after "
                        r"(\d+) s; it waits for case (\d+)'s re-measure", log)
    assert len(waited) >= 2 and all(int(s) <= 2 for _, s, _ in waited), log[-4000:]
    # they were cut with the re-measured case: never judged on part of them
    sub = _sub_cases(d, rid)
    assert all(r[1] == "skipped" and r[2] == "first_call_budget" for r in sub), sub
    assert {int(c) for c, _, _ in waited} <= {r[0] for r in sub}
    # the other keys ran
    db = sqlite3.connect(d.db)
    ran = {k for (k,) in db.execute("SELECT DISTINCT c.key FROM results r JOIN cases c "
                                    "ON c.id=r.case_id WHERE c.run_id=? AND r.status='pass'",
                                    (rid,))}
    assert ran == set(ops) - {"sub.Tensor"}, ran


def test_a_compile_step_is_stopped_at_the_budget(make_daemon):
    """A compile-ladder step whose first call is still running at
    runner.compile_budget is a hazard then and there: the demo topk's k=4096
    step takes 8.2 s, the budget is 5 s."""
    d, run, rid = _screened(make_daemon, {"ops": ["topk"], "classes": ["compile"],
                                          "dtypes": ["float32"]},
                            runner__workers_per_device=1, runner__compile_workers=1,
                            runner__shrink_max=0)
    db = sqlite3.connect(d.db)
    steps = dict(((v, (st, why, det)) for v, st, why, det in db.execute(
        "SELECT json_extract(c.spec, '$.ladder.value'), r.status, r.reason, r.detail "
        "FROM results r JOIN cases c ON c.id=r.case_id WHERE c.run_id=? AND "
        "c.class='compile'", (rid,))))
    assert steps[4096] == ("hazard", "compile_time", "first call still running after 5 s, "
                           "the budget (runner.compile_budget); stopped"), steps
    assert steps[8][0] == "pass" and steps[512][0] == "pass", steps
    (v, why) = db.execute("SELECT verdict, reason FROM verdicts WHERE run_id=? AND "
                          "key='topk' AND dtype='float32'", (rid,)).fetchone()
    assert v == "hazard", (v, why)


def _spans(d, rid):
    """{key: [(case start, first call start, first call end, case end)]} of
    a run's same_shape cases, from the stored times"""
    db = sqlite3.connect(d.db)
    rows = db.execute(
        "SELECT c.key, r.created, r.figures FROM results r JOIN cases c ON "
        "c.id=r.case_id WHERE c.run_id=? AND r.status != 'skipped' AND "
        "c.class = 'same_shape'", (rid,)).fetchall()
    db.close()
    out = {}
    for key, end, figs in rows:
        t = json.loads(figs)["times"]
        start = end - t["case_ms"] / 1e3
        fc0 = start + sum(t.get(k, 0) for k in ("build_ms", "native_ms",
                                                "oracle_ms", "enable_ms")) / 1e3
        out.setdefault(key, []).append((start, fc0, fc0 + t["cand_first_ms"] / 1e3,
                                        end))
    return {k: sorted(v) for k, v in out.items()}


def _held_starts(sub, after, hold):
    """sub cases that started, after `after`, while another sub case's first
    call had run for more than hold (plus scheduling slack) and had not
    ended"""
    return [(b, a) for a in sub for b in sub if b[0] > after and
            a[1] + hold + 0.5 < b[0] < a[2] - 0.2]


def test_a_slow_first_call_holds_its_key_and_dtype(make_daemon):
    """runner.first_call_hold: while a first call of a key and dtype has run
    for more than the hold, with or without a first_call_budget, its key and
    dtype starts no other case as long as other keys have cases to start. The demo
    sub's first call on each new shape takes 4 s, within the 8 s budget
    (under the CPU's 10 s case deadline); a sub case that starts within
    0.5 s of another's end started when that one's first call was over;
    the other keys' cases take about 2 s each (OPSCREEN_DEMOLIB_DELAY), so
    the round-robin queue reaches sub's next case while its first call
    runs. Without the hold, sub's cases pile up on the runners."""
    ops = ["sub.Tensor", "abs", "neg", "relu", "sin", "cos"]
    env = {"OPSCREEN_DEMOLIB_SLOW_FIRST": "sub:4:always",
           "OPSCREEN_DEMOLIB_DELAY": "abs:0.3,neg:0.3,relu:0.3,sin:0.3,cos:0.3"}
    conf = dict(runner__workers_per_device=4, runner__compile_workers=0,
                runner__shrink_max=0)
    scope = {"ops": ops, "dtypes": ["float32"], "classes": ["same_shape"]}
    found = {}
    for hold, budget in ((1, 8), (0, 8), (1, 0)):
        d, run, rid = _screened(make_daemon, scope, env=env,
                                runner__first_call_hold=hold,
                                runner__first_call_budget=budget, **conf)
        assert run["done"] == run["total"], run
        spans = _spans(d, rid)
        sub = spans.pop("sub.Tensor")
        others = [x for v in spans.values() for x in v]
        assert len(sub) >= 4 and others, (sub, others)
        # while other keys had cases to start
        last_other = max(x[0] for x in others)
        found[hold, budget] = [(b, a) for b, a in _held_starts(sub, 0, 1)
                               if b[0] < last_other]
        db = sqlite3.connect(d.db)
        verdicts = dict(db.execute("SELECT key, verdict FROM verdicts WHERE "
                                   "run_id=?", (rid,)))
        assert set(verdicts.values()) == {"verified"}, verdicts
    assert found[1, 8] == [] and found[1, 0] == [], found
    assert found[0, 8], "without the hold sub's cases should overlap"


def test_the_hold_never_leaves_a_runner_idle(make_daemon):
    """A held key and dtype still takes a runner that has nothing else to
    run. Three runners: sub's first calls compile for 12 s; the runners not
    on sub take neg's cases (OPSCREEN_DEMOLIB_DELAY) while sub is held, and
    once neg's cases are gone they start sub's next cases at once, inside
    the first calls in flight, not after them."""
    d, run, rid = _screened(
        make_daemon, {"ops": ["sub.Tensor", "neg"], "dtypes": ["float32"],
                      "classes": ["same_shape"]},
        env={"OPSCREEN_DEMOLIB_SLOW_FIRST": "sub:12:always",
             "OPSCREEN_DEMOLIB_DELAY": "neg:0.15"},
        runner__workers_per_device=3, runner__compile_workers=0,
        runner__shrink_max=0, runner__cpu_case_deadline=60,
        runner__first_call_budget=30, runner__first_call_hold=1)
    assert run["done"] == run["total"], run
    spans = _spans(d, rid)
    sub, neg = spans["sub.Tensor"], spans["neg"]
    assert len(sub) >= 3, spans
    neg_done = max(x[3] for x in neg)
    assert _held_starts(sub, neg_done - 0.5, 1), (sub, neg_done)
    db = sqlite3.connect(d.db)
    verdicts = dict(db.execute("SELECT key, verdict FROM verdicts WHERE run_id=?",
                               (rid,)))
    assert set(verdicts.values()) == {"verified"}, verdicts
