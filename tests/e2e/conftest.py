"""Fixtures for the end-to-end tests; the harness lives in e2e_harness.py."""
import os

import pytest

from e2e_harness import DAEMON, Daemon, daemon_on_copy, shared_screen


@pytest.fixture(scope="session")
def daemon_bin():
    if not os.access(DAEMON, os.X_OK):
        pytest.fail("build/opscreend is missing: run `make` first")
    return DAEMON


@pytest.fixture
def make_daemon(tmp_path, daemon_bin):
    made = []

    def make(**overrides):
        d = Daemon(tmp_path / f"d{len(made)}", **overrides)
        made.append(d)
        return d

    yield make
    for d in made:
        d.stop()


@pytest.fixture(scope="session")
def screened(tmp_path_factory, daemon_bin):
    """A daemon on a store that has completed a full screen of the demo
    library (test_resume compares with it). The screen runs once for the
    session, whichever pytest-xdist worker asks first; each worker serves a
    copy of it from a daemon of its own."""
    src, run_id = shared_screen(tmp_path_factory, "full-screen")
    d = daemon_on_copy(tmp_path_factory.mktemp("screen"), src)
    try:  # a fixture that fails must not leave its daemon running
        d.start()
        d.wait_fingerprint()
        d.run_id = run_id
        yield d
    finally:
        d.stop()
