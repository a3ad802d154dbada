"""The views class end to end: in-place and out= cases whose written tensor is
a view with gaps into a larger base. The demo library's sigmoid_ runs such a
view as one contiguous block (right on every element of the view, wrong on
the base between them): it is denied for the views class with
writes_outside_view, while mul_ (in place) and neg_out (out=), which write
through their strides, stay verified."""
import json
import sqlite3

SCOPE = {"ops": ["sigmoid_", "mul_.Tensor", "neg.out"],
         "classes": ["views", "same_shape", "noncontig"]}


def _cases(d, run):
    db = sqlite3.connect(d.db)
    rows = db.execute(
        "SELECT c.key, c.dtype, c.class, c.spec, r.status, r.reason, r.detail "
        "FROM cases c JOIN results r ON r.case_id = c.id WHERE c.run_id = ?",
        (run,)).fetchall()
    verdicts = {(k, dt): (v, why, cls) for k, dt, v, why, cls in db.execute(
        "SELECT key, dtype, verdict, reason, class FROM verdicts WHERE run_id = ?",
        (run,))}
    db.close()
    return rows, verdicts


def test_view_writes_are_found_and_correct_writers_verified(make_daemon):
    d = make_daemon(runner__fail_fast="no").start()
    d.wait_fingerprint()
    st, out = d.post_run(SCOPE)
    assert st == 202, out
    run = d.wait_run(out["run"])
    assert run["state"] == "complete" and run["done"] == run["total"], run
    rows, verdicts = _cases(d, out["run"])
    views = [r for r in rows if r[2] == "views"]
    per = {}
    for key, dtype, _, spec, status, reason, detail in views:
        per[(key, dtype)] = per.get((key, dtype), 0) + 1
        case = json.loads(spec)
        written = case["args"][0] if case["mutates"] == "self" else \
            case["kwargs"]["out"]
        assert "base" in written["view"] and written["view"]["ops"], case
        if key == "sigmoid_":
            assert status == "fail" and reason == "writes_outside_view", (spec, detail)
            assert "outside the view (first at storage offset" in detail, detail
        else:
            assert status == "pass", (key, dtype, spec, reason, detail)
    assert {k for k, _ in per} == {"sigmoid_", "mul_.Tensor", "neg.out"}, per
    assert all(1 <= n <= 5 for n in per.values()), per
    # the defect shows in views only: the other classes of sigmoid_ pass
    assert all(r[4] == "pass" for r in rows if r[0] == "sigmoid_" and r[2] != "views")
    for (key, dtype), (verdict, reason, cls) in verdicts.items():
        if key == "sigmoid_":
            assert (verdict, reason, cls) == ("broken", "writes_outside_view",
                                              "views"), (key, dtype)
        else:
            assert verdict == "verified", (key, dtype, verdict, reason)
    assert {dt for k, dt in verdicts if k == "sigmoid_"} == \
        {"float32", "float16", "bfloat16"}


def test_full_screen_denies_the_view_writer_alone(screened):
    st, deny = screened.get_json("/denylist")
    assert st == 200, deny
    e = next(x for x in deny["names"] if x["name"] == "sigmoid_")
    assert e["verdict"] == "broken" and e["reason"] == "writes_outside_view", e
    assert e["class"] == "views", e
    st, allow = screened.get_json("/allowlist")
    assert st == 200, allow
    assert {"mul_", "neg_out", "sigmoid"} <= set(allow["names"]), allow
    assert "sigmoid_" not in allow["names"]
