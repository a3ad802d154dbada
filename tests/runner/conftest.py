"""Fixtures for the runner tests; the helpers live in runner_harness.py."""
import pytest

from runner_harness import Runner


@pytest.fixture(scope="module")
def runner():
    """One runner for the tests that leave it alive (torch import takes seconds)."""
    r = Runner(OPSCREEN_INPUT_DIGEST="1")
    r.hello = r.recv()
    yield r
    r.close()
