"""runner.fail_fast: a failing case ends its key x dtype x probe class. The
class's pending cases are recorded `skipped` (fail_fast) and stay out of the
fold, so every key x dtype x class fails or passes as it does when all its
cases run, and every key x dtype gets the same verdict."""
import sqlite3

# planted defects that fail several cases of one class (minimum: broadcast
# shapes; div: strided inputs; sum: accumulation rows; clamp: contract),
# beside two correct keys
SCOPE = {"ops": ["minimum", "div.Tensor", "sum", "clamp", "neg", "add.Tensor"],
         "classes": ["same_shape", "broadcast", "noncontig", "accumulation",
                     "reduction", "contract", "scalar"]}
CONF = {"runner__workers_per_device": 1, "runner__compile_workers": 0}


def _screen(make_daemon, **conf):
    d = make_daemon(**CONF, **conf).start()
    d.wait_fingerprint()
    st, out = d.post_run(SCOPE)
    assert st == 202, out
    run = d.wait_run(out["run"])
    assert run["state"] == "complete", (run, d.logtext())
    assert run["done"] == run["total"], run
    db = sqlite3.connect(d.db)
    rows = db.execute(
        "SELECT c.id, c.key, c.dtype, c.class, r.status, r.reason, r.detail "
        "FROM cases c JOIN results r ON r.case_id = c.id WHERE c.run_id = ?",
        (out["run"],)).fetchall()
    verdicts = {(k, dt): (v, why) for k, dt, v, why in db.execute(
        "SELECT key, dtype, verdict, reason FROM verdicts WHERE run_id = ?",
        (out["run"],))}
    db.close()
    return rows, verdicts


def _class_outcomes(rows):
    """{(key, dtype, class): whether a case of it failed}"""
    out = {}
    for _, key, dtype, cls, status, _, _ in rows:
        if status != "skipped" or (key, dtype, cls) not in out:
            out[(key, dtype, cls)] = out.get((key, dtype, cls), False) or \
                status == "fail"
    return out


def test_a_failure_ends_its_class_and_changes_no_verdict(make_daemon):
    fast, fast_verdicts = _screen(make_daemon)
    full, full_verdicts = _screen(make_daemon, runner__fail_fast="no")

    assert not [r for r in full if r[5] == "fail_fast"]
    skipped = [r for r in fast if r[5] == "fail_fast"]
    assert skipped, "no case was left out after its class failed"
    by_id = {r[0]: r for r in fast}
    for cid, key, dtype, cls, _, _, detail in skipped:
        assert cls != "contract", "contract cases each check their own rule"
        # the detail names a failed case of the same key, dtype and class
        failed = int(detail.split("case ")[1].split(" ")[0])
        assert by_id[failed][1:5] == (key, dtype, cls, "fail"), (detail, by_id[failed])
        assert failed < cid or by_id[failed][4] == "fail"
    # contract classes with several failures keep all of them
    contract_fails = [r for r in fast if r[3] == "contract" and r[4] == "fail"]
    assert len(contract_fails) == len([r for r in full if r[3] == "contract"
                                       and r[4] == "fail"])
    # fewer cases ran, but each class failed or passed as with all of them
    assert len([r for r in fast if r[4] != "skipped"]) < \
        len([r for r in full if r[4] != "skipped"])
    assert _class_outcomes(fast) == _class_outcomes(full)
    assert fast_verdicts == full_verdicts
    broken = {k for (k, _), (v, _) in fast_verdicts.items() if v == "broken"}
    assert {"minimum", "div.Tensor", "sum", "clamp"} <= broken, fast_verdicts
    assert all(v == "verified" for (k, _), (v, _) in fast_verdicts.items()
               if k in ("neg", "add.Tensor")), fast_verdicts
