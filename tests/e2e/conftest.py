"""Fixtures for the end-to-end tests; the harness lives in e2e_harness.py."""
import os

import pytest

from e2e_harness import DAEMON, Daemon


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
    """One daemon that has completed a full screen of the demo library (for
    the session: test_resume compares with it)."""
    d = Daemon(tmp_path_factory.mktemp("screen"))
    try:  # a screen that fails the fixture must not leave its daemon running
        d.start()
        d.wait_fingerprint()
        st, out = d.post_run({})
        assert st == 202, out
        run = d.wait_run(out["run"])
        assert run["state"] == "complete", (run, d.logtext())
        d.run_id = out["run"]
        yield d
    finally:
        d.stop()
