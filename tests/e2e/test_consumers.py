"""Every served form x every state x what its consumer enables from the
body, the status ignored (docs/consumers.md, one test per cell): with a
complete screen, exactly what the allow-list holds; in every other state
nothing of the library, but where no table was ever known (the cells
NO_TABLE_OPEN names, which only the HTTP status can close)."""
import os
import sqlite3
import sys

import pytest

from consumers import FORMS
from e2e_harness import ROOT, Daemon

sys.path.insert(0, os.path.join(ROOT, "tests", "demolib"))
import opscreen_demolib  # noqa: E402

REGISTERED = ({fn.__name__ for _, fn, *_ in opscreen_demolib._FULL_CONFIG} |
              set(opscreen_demolib.fused.__all__))

# No table was ever reported and none stored (a fresh host whose library
# never loaded): no name can be listed, and these consumers have no way to
# be turned off from the body (docs/consumers.md): FlagGems' enable(unused=)
# of an empty list, vllm-plugin-FL's YAML. The status (curl -f) is all.
NO_TABLE_OPEN = {"deny-text", "deny-csv", "deny-json", "vllm-yaml"}


@pytest.fixture(scope="module")
def states(screened, tmp_path_factory, daemon_bin):
    """state -> (daemon, query suffix): 200 and 400 on the full screen; 503
    with the table known (no screen yet), with the stored table (the library
    fails to load after a screen), with no table at all."""
    made = []
    try:
        known = Daemon(tmp_path_factory.mktemp("known")).start()
        made.append(known)
        stored_dir = tmp_path_factory.mktemp("stored")
        src = sqlite3.connect(screened.db)
        dst = sqlite3.connect(stored_dir / "opscreen.db")
        src.backup(dst)
        src.close()
        dst.close()
        stored = Daemon(stored_dir, runner__library="no_such_library_xyz").start()
        made.append(stored)
        none = Daemon(tmp_path_factory.mktemp("none"), runner__python="/bin/false").start()
        made.append(none)
        known.wait_fingerprint()
        stored.wait_device_error()
        yield {"200": (screened, ""), "400": (screened, "dtypes=float128"),
               "503-table-known": (known, ""), "503-table-stored": (stored, ""),
               "503-no-table": (none, "")}
    finally:
        for d in made:
            d.stop()


@pytest.mark.parametrize("state", ["200", "400", "503-table-known",
                                   "503-table-stored", "503-no-table"])
@pytest.mark.parametrize("form", sorted(FORMS))
def test_what_the_consumer_enables(states, form, state):
    d, extra = states[state]
    path, consumer = FORMS[form]
    if extra:
        path += ("&" if "?" in path else "?") + extra
    st, _, body = d.get(path)
    assert st == int(state[:3]), (path, st, body[:300])
    enabled = consumer(REGISTERED, body.decode())
    if state == "200":
        # /allowlist of the same scope: the consumer enables what it holds
        st, allow = d.get_json("/allowlist")
        assert enabled == REGISTERED & set(allow["names"]), (form, enabled)
        assert enabled, form
    elif state == "503-no-table" and form in NO_TABLE_OPEN:
        assert enabled == REGISTERED, (form, enabled)   # the documented cell
    else:
        assert enabled in (set(), "raises"), (form, state, enabled, body[:400])
