"""The empty and options probe classes end to end: a screen of the demo library
in those two classes finds the planted defect of each (mean_dim: the mean over
an empty dim is 0, not NaN; addmm: an explicit beta=0 still adds self) with its
class and reason, while every case of the correct ops passes or is not
applicable (both raise); the full screen's deny list names each with its class.
"""
import sqlite3

# key -> (enable name, class, reason) of the planted defects
PLANTED = {
    "mean.dim": ("mean_dim", "empty", "nonfinite_mismatch"),
    "addmm": ("addmm", "options", "numeric_error"),
}
# correct ops with empty and options cases (catalog and schema-generated)
CORRECT = ["abs", "add.Tensor", "amax", "clone", "cos", "eq.Tensor",
           "maximum", "mul.Tensor", "native_layer_norm", "neg", "relu",
           "sigmoid", "sin", "_softmax", "sub.Tensor", "topk", "where.self"]


def test_a_screen_of_the_two_classes_finds_each_planted_defect(make_daemon):
    d = make_daemon().start()
    d.wait_fingerprint()
    st, out = d.post_run({"ops": sorted(PLANTED) + CORRECT,
                          "classes": ["empty", "options"]})
    assert st == 202, out
    run = d.wait_run(out["run"])
    assert run["state"] == "complete", (run, d.logtext())
    assert run["done"] == run["total"], run
    db = sqlite3.connect(d.db)
    try:
        rows = db.execute(
            "SELECT c.key, c.dtype, c.class, r.status, r.reason, r.detail "
            "FROM cases c JOIN results r ON r.case_id = c.id "
            "WHERE c.run_id = ?", (out["run"],)).fetchall()
        verdicts = {(k, dt): (v, why, cls) for k, dt, v, why, cls in db.execute(
            "SELECT key, dtype, verdict, reason, class FROM verdicts "
            "WHERE run_id = ?", (out["run"],))}
    finally:
        db.close()
    assert {r[2] for r in rows} == {"empty", "options"}

    for key, (_, cls, reason) in PLANTED.items():
        mine = {dt: v for (k, dt), v in verdicts.items() if k == key}
        assert set(mine) == {"float32", "float16", "bfloat16"}, mine
        for dt, (verdict, why, klass) in mine.items():
            assert (verdict, why, klass) == ("broken", reason, cls), (key, dt, mine)
        # the defect shows only in its own class
        other = [r for r in rows if r[0] == key and r[2] != cls and
                 r[3] not in ("pass", "na")]
        assert not other, other

    for key in CORRECT:
        mine = {dt: v for (k, dt), v in verdicts.items() if k == key}
        assert mine, key
        assert all(v[0] == "verified" for v in mine.values()), (key, mine)
        bad = [r for r in rows if r[0] == key and r[3] not in ("pass", "na")]
        assert not bad, bad
    # both raise (amax of an empty dim): not applicable, never judged
    na = [r for r in rows if r[0] == "amax" and r[3] == "na"]
    assert na and all(r[2] == "empty" for r in na), na
    # a sum of nothing is judged as it is: no case stays degenerate
    assert not [r for r in rows if r[3] == "degenerate"]


def test_the_full_screen_denies_each_with_its_class(screened):
    st, deny = screened.get_json("/denylist")
    assert st == 200, deny
    got = {e["name"]: e for e in deny["names"]}
    for key, (name, cls, reason) in PLANTED.items():
        e = got[name]
        assert (e["verdict"], e["reason"], e["class"]) == ("broken", reason, cls), e
    st, allow = screened.get_json("/allowlist")
    assert st == 200, allow
    names = {"abs", "add", "amax", "cos", "eq", "maximum", "mul", "layer_norm",
             "neg", "relu", "sigmoid", "sin", "softmax", "sub", "where_self"}
    assert names <= set(allow["names"]), sorted(names - set(allow["names"]))
