"""The allow-list in the forms engines read (vllm-plugin-FL's
VLLM_FL_FLAGOS_BLACKLIST and VLLM_FL_CONFIG YAML, sglang-plugin-FL's
SGLANG_FL_FLAGOS_BLACKLIST): each a blacklist of every registered name the
allow-list does not hold, so that what an engine enables is exactly the
allow-list, and before a complete screen a body that enables nothing."""
import os
import subprocess
import sys

import yaml

from e2e_harness import ROOT


def registered_names():
    """The table's names and the library's own entry points' (engines
    blacklist both by name)."""
    return demolib_names("{fn.__name__ for _, fn, *c in m._FULL_CONFIG if not c "
                         "or c[0]()} | set(m.fused.__all__)")


def demolib_names(expr):
    """The set of names the Python expression gives, `m` the demo library."""
    code = f"import opscreen_demolib as m; print('\\n'.join(sorted({expr})))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True,
                       text=True, env=dict(os.environ, PYTHONPATH=os.path.join(
                           ROOT, "tests", "demolib")), check=True)
    return set(r.stdout.split())


def env_value(body, var):
    """What vllm-plugin-FL reads from the variable: comma-separated names."""
    lines = [l for l in body.splitlines() if l.startswith(var + "=")]
    assert len(lines) == 1, body
    return [n.strip() for n in lines[0].split("=", 1)[1].split(",") if n.strip()]


def get_text(d, path):
    st, ctype, body = d.get(path)
    return st, ctype, body.decode()


def test_engine_forms_enable_exactly_the_allowlist(screened):
    reg = registered_names()
    st, allow = screened.get_json("/allowlist")
    assert st == 200
    allowed = set(allow["names"])
    assert allowed and allowed < reg
    want = reg - allowed
    for fmt, var in (("vllm-env", "VLLM_FL_FLAGOS_BLACKLIST"),
                     ("sglang-env", "SGLANG_FL_FLAGOS_BLACKLIST")):
        st, ctype, body = get_text(screened, f"/allowlist?format={fmt}")
        assert st == 200 and ctype.startswith("text/plain"), (st, ctype)
        assert body.startswith("# opscreen allowlist: policy strict"), body
        assert set(env_value(body, var)) == want
        # never the variable that empty means "everything"
        assert "WHITELIST" not in body.replace("# ", "")
        assert "USE_FLAGGEMS=0" not in body
    st, ctype, body = get_text(screened, "/allowlist?format=vllm-yaml")
    assert st == 200 and "yaml" in ctype
    doc = yaml.safe_load(body)
    assert set(doc["flagos_blacklist"]) == want
    assert set(doc) == {"flagos_blacklist"}
    # scopes and policies shape the list the same way as the others
    st, _, body = get_text(screened, "/allowlist?format=vllm-env&dtypes="
                           "float32&policy=tolerant")
    st2, scoped = screened.get_json("/allowlist?dtypes=float32&policy=tolerant")
    assert st == st2 == 200
    assert set(env_value(body, "VLLM_FL_FLAGOS_BLACKLIST")) == \
        reg - set(scoped["names"])
    # the blacklist fed to the library leaves exactly the allow-list on
    code = ("import opscreen_demolib as m, sys; m.enable(unused=sys.argv[1:]);"
            " print('\\n'.join(sorted(m.all_registered_ops())))")
    r = subprocess.run([sys.executable, "-c", code, *sorted(want)],
                       capture_output=True, text=True, check=True,
                       env=dict(os.environ, PYTHONPATH=os.path.join(
                           ROOT, "tests", "demolib")))
    # (the table's part: the entry points are called directly, not enabled)
    entries = demolib_names("set(m.fused.__all__)")
    assert set(r.stdout.split()) == allowed - entries
    # an allow-list form only
    st, _, body = get_text(screened, "/denylist?format=vllm-env")
    assert st == 400 and "/allowlist?format=vllm-env" in body


def test_engine_forms_before_a_screen_enable_nothing(make_daemon):
    d = make_daemon().start()
    d.wait_fingerprint()    # the runner has reported the table
    reg = registered_names()
    st, _, body = get_text(d, "/allowlist?format=vllm-env")
    assert st == 503, body
    assert "USE_FLAGGEMS=0" in body.splitlines()
    assert set(env_value(body, "VLLM_FL_FLAGOS_BLACKLIST")) == reg
    st, _, body = get_text(d, "/allowlist?format=sglang-env")
    assert st == 503 and set(env_value(body, "SGLANG_FL_FLAGOS_BLACKLIST")) == reg
    st, _, body = get_text(d, "/allowlist?format=vllm-yaml")
    assert st == 503 and set(yaml.safe_load(body)["flagos_blacklist"]) == reg


def test_engine_forms_without_a_table_list_nothing(make_daemon):
    # no runner has reported the table yet (a hung start): no name can be
    # listed, so the YAML is not a list at all and the env form turns
    # FlagGems off
    d = make_daemon(runner__python="/bin/false").start()
    st, _, body = get_text(d, "/allowlist?format=vllm-yaml")
    assert st == 503 and yaml.safe_load(body)["flagos_blacklist"] is True
    st, _, body = get_text(d, "/allowlist?format=vllm-env")
    assert st == 503 and "USE_FLAGGEMS=0" in body.splitlines()
