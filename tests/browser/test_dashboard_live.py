"""The dashboard while screens run, in headless Chromium against the real
daemon: a first screen (no complete screen yet) shows what it has found so
far instead of an error, and its name pages the cases judged so far; an
upgrade being screened shows a banner saying the verdicts shown are the old
version's, and the run's progress with its rate and time left. Runs are kept
going by slowing the demo library's `cos` (OPSCREEN_DEMOLIB_DELAY)."""
import os
import time

import pytest

from cdp import CHROMIUM, Browser
from dashboard_harness import Dom, demolib_copy, screenshot_to_docs, set_version
from e2e_harness import DAEMON, F32, ROOT, Daemon, full_screen

SLOW = {"OPSCREEN_DEMOLIB_DELAY": "cos:0.5"}
NARROW_SCOPE = F32


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if CHROMIUM is None:
        pytest.skip("chromium is missing (make deps installs Debian's "
                    "chromium): the dashboard is not tested")
    if not os.access(DAEMON, os.X_OK):
        pytest.fail("build/opscreend is missing: run `make` first")
    b = Browser(tmp_path_factory.mktemp("chromium"))
    yield b
    b.close()


def running_with_findings(d, timeout=240):
    """Posts a full screen and returns its id once it has stored a failing
    case and a rate, while it still runs."""
    st, out = d.post_run({})
    assert st == 202, out
    deadline = time.time() + timeout
    while time.time() < deadline:
        st, f = d.get_json("/findings")
        st, r = d.get_json(f"/runs/{out['run']}")
        assert r["state"] in ("queued", "running"), (r, d.logtext())
        # no progress while queued, nor for the moment between the run's
        # row turning running and the scheduler taking it up
        if f.get("findings") and r.get("progress", {}).get("rate"):
            return out["run"]
        time.sleep(0.3)
    raise AssertionError("no finding while the run ran: " + d.logtext())


def test_a_first_screen_shows_its_findings(browser, tmp_path):
    d = Daemon(tmp_path / "d", env=SLOW, **NARROW_SCOPE).start()
    try:
        d.wait_fingerprint()
        run = running_with_findings(d)
        url = f"http://127.0.0.1:{d.port}/"
        browser.open(url)
        dom = Dom(browser.html())
        assert browser.eval("document.getElementById('first-screen').hidden") is False
        assert browser.eval("document.getElementById('screened').hidden") is True
        assert browser.eval("document.getElementById('matrix-error').hidden") is True
        assert dom.findings, "no finding shown"
        assert dom.findings[0]["data-severity"] == "critical", dom.findings
        note = browser.eval("document.getElementById('first-note').textContent")
        assert f"Run {run} of demolib 0.1.0 is running" in note, note
        text = browser.eval("document.getElementById('progress-text').textContent")
        assert "cases/s" in text and "left" in text, text
        screenshot_to_docs(browser.screenshot(str(tmp_path / "first.png")),
                           "dashboard-first-screen.png")
        # a name with a finding: its cases so far, not an empty page
        name = dom.findings[0]["data-name"]
        browser.open(url + "#/name/" + name, route=name)
        page = Dom(browser.html())
        assert browser.eval("document.getElementById('name-error').hidden") is True
        assert browser.eval("document.getElementById('name-note').hidden") is False
        assert page.details, "no failing case shown on the name page"
    finally:
        d.stop()


def test_an_upgrade_being_screened_shows_a_banner(browser, tmp_path):
    lib = demolib_copy(tmp_path)
    scope = dict(NARROW_SCOPE, runner__runner_path=f"{ROOT}/probes:{lib}")
    d, first = full_screen(tmp_path / "d", scope)
    d.stop()
    set_version(lib, "0.2.0")
    d = Daemon(tmp_path / "d", env=SLOW, **scope).start()
    try:
        d.wait_fingerprint()
        run = running_with_findings(d)
        browser.open(f"http://127.0.0.1:{d.port}/")
        assert browser.eval("document.getElementById('banner').hidden") is False
        text = browser.eval("document.getElementById('banner').textContent")
        assert f"Shown: run {first} of demolib 0.1.0" in text, text
        assert "Installed now: demolib 0.2.0" in text, text
        assert f"run {run} is running" in text, text
        # the old version's verdicts are still there to read
        dom = Dom(browser.html())
        assert dom.cells and dom.broken
        screenshot_to_docs(browser.screenshot(str(tmp_path / "upgrade.png")),
                           "dashboard-upgrade.png")
        d.wait_run(run)
        browser.open(f"http://127.0.0.1:{d.port}/")
        assert browser.eval("document.getElementById('banner').hidden") is True
    finally:
        d.stop()


def test_the_first_screen_view_is_not_an_error_without_any_run(browser, tmp_path):
    d = Daemon(tmp_path / "d", **NARROW_SCOPE).start()
    try:
        browser.open(f"http://127.0.0.1:{d.port}/")
        assert browser.eval("document.getElementById('first-screen').hidden") is False
        note = browser.eval("document.getElementById('first-note').textContent")
        assert "no run has started yet" in note and "503" in note, note
    finally:
        d.stop()



def test_the_header_says_the_last_run_is_being_shrunk(browser, tmp_path):
    """runner.shrink_after: the run is complete and the runners shrink its
    failing cases; the header says so instead of a bare idle."""
    scope = dict(runner__classes="broadcast", runner__dtypes="float32",
                 runner__workers_per_device=2, runner__compile_workers=0)
    d = Daemon(tmp_path / "d", env={"OPSCREEN_DEMOLIB_DELAY": "minimum:2"},
               **scope).start()
    try:
        d.wait_fingerprint()
        st, out = d.post_run({})
        assert st == 202, out
        run = d.wait_run(out["run"], shrinks=False)
        assert run["state"] == "complete", run
        assert d.get_json(f"/runs/{out['run']}")[1]["progress"]["shrinking"]
        browser.open(f"http://127.0.0.1:{d.port}/")
        text = browser.eval("document.getElementById('progress-text').textContent")
        # each variant takes seconds: the one shrink is still going
        assert f"idle; last run {out['run']} complete; shrinking its " \
            "failing cases, 1 of 1 left" in text, text
        assert d.shrinks_done(out["run"]) is None
    finally:
        d.stop()
