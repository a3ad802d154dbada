"""Table items with dispatch keys of their own (a fourth element of
_FULL_CONFIG, as FlagGems 5.3.4 registers ctc_loss for Autograd and
cholesky_solve for Conjugate). A kernel registered for torch's Autograd key
is what a plain call runs (outside inference_mode): it is screened like any
other, and its defects found. One registered for a key no plain call reaches
(Conjugate: only conjugated inputs) would be measured native against native:
it is never screened and never listed."""
import pytest

from e2e_harness import full_screen, query

# the three names the tests read (runner.ops; every other name is withheld
# as outside the host's scope): 40-odd cases instead of the 526 of every op
SCOPE = {"runner__dtypes": "float32", "runner__classes": "same_shape,broadcast",
         "runner__ops": "minimum,maximum,neg"}
KEYS = {"OPSCREEN_DEMOLIB_KEYS": "minimum:Autograd,maximum:Autograd,neg:Conjugate"}


@pytest.fixture(scope="module")
def screened(tmp_path_factory, daemon_bin):
    d, run = full_screen(tmp_path_factory.mktemp("dispatch_keys") / "d", SCOPE,
                         env=KEYS)
    d.run = run
    yield d
    d.stop()


def test_an_autograd_kernel_is_screened_and_its_defect_found(screened):
    d = screened
    st, deny = d.get_json("/denylist")
    assert st == 200, deny
    denied = {e["name"]: e for e in deny["names"]}
    # minimum's broadcast defect is its Autograd kernel's: a plain call ran it
    assert "minimum" in denied, deny["names"]
    assert "shape" in denied["minimum"]["reason"], denied["minimum"]
    st, allow = d.get_json("/allowlist")
    assert st == 200 and "maximum" in allow["names"], allow
    assert query(d.db, "SELECT count(*) FROM entries WHERE run_id=? AND key "
                 "IN ('minimum', 'maximum')", (d.run,))[0][0] == 2


def test_a_kernel_no_plain_call_reaches_is_never_listed(screened):
    d = screened
    assert query(d.db, "SELECT count(*) FROM entries WHERE run_id=? AND "
                 "key='neg'", (d.run,))[0][0] == 0
    assert query(d.db, "SELECT count(*) FROM cases WHERE run_id=? AND "
                 "key='neg'", (d.run,))[0][0] == 0
    st, allow = d.get_json("/allowlist")
    assert st == 200 and "neg" not in allow["names"], allow["names"]
    # neg.out is served at the device's key and screened as usual
    assert query(d.db, "SELECT count(*) FROM entries WHERE run_id=? AND "
                 "key='neg.out'", (d.run,))[0][0] == 1
    with open(d.log, errors="replace") as f:
        assert "neg is registered for Conjugate, which no plain call " \
            "reaches" in f.read()
