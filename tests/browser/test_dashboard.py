"""The dashboard (web/) in headless Chromium against the real daemon: two full
screens of the demo library on one database, `add` broken in the second
(OPSCREEN_DEMOLIB_BREAK=add); the rendered DOM must show the deny-list's names
as broken cells, the regression in the timeline, and a name's evidence.
Set OPSCREEN_UPDATE_SCREENSHOT=1 to write docs/dashboard.png."""
import html.parser
import os
import shutil
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "e2e"))
from e2e_harness import DAEMON, ROOT, full_screen  # noqa: E402

# the host's own scope: a full screen in seconds that is still compared
SCOPE = {"runner__dtypes": "float32",
         "runner__classes": "same_shape,broadcast,contract,compile"}
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def screen(tmp, env=None):
    return full_screen(tmp, SCOPE, env)


@pytest.fixture(scope="module")
def dash(tmp_path_factory):
    if CHROMIUM is None:
        pytest.skip("chromium is missing (make deps installs Debian's "
                    "chromium): the dashboard is not tested")
    if not os.access(DAEMON, os.X_OK):
        pytest.fail("build/opscreend is missing: run `make` first")
    tmp = tmp_path_factory.mktemp("dashboard")
    screen(tmp)[0].stop()
    d, _ = screen(tmp, {"OPSCREEN_DEMOLIB_BREAK": "add"})
    d.profile = str(tmp_path_factory.mktemp("chromium"))
    yield d
    d.stop()


def chromium(d, fragment="", *extra):
    cmd = [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu",
           "--user-data-dir=" + d.profile, "--virtual-time-budget=8000",
           *(extra or ["--dump-dom"]), f"http://127.0.0.1:{d.port}/{fragment}"]
    p = subprocess.run(cmd, capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr.decode(errors="replace")[-3000:]
    return p.stdout.decode()


class Dom(html.parser.HTMLParser):
    """Collects the elements the assertions need from a dumped DOM."""

    def __init__(self, text):
        super().__init__()
        self.cells = {}         # (name, dtype) -> verdict
        self.severity = {}      # (name, dtype) -> a broken cell's severity
        self.sev_filters = []   # the severity filter's checkboxes
        self.events = []        # timeline <li class="event"> attributes
        self.details = []       # evidence blocks' case ids
        self.pres = []          # [class, text] of every <pre>
        self.svg_labels = []
        self.circles = 0
        self.steps = []         # compile-ladder marks: (tag, data-case)
        self.budget_lines = 0
        self.row = None
        self.pre = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tr" and "data-name" in a:
            self.row = a["data-name"]
        elif tag == "td" and "data-verdict" in a and self.row:
            self.cells[(self.row, a["data-dtype"])] = a["data-verdict"]
            if "data-severity" in a:
                self.severity[(self.row, a["data-dtype"])] = a["data-severity"]
        elif tag == "input" and "data-severity" in a:
            self.sev_filters.append(a["data-severity"])
        elif tag == "li" and a.get("class") == "event":
            self.events.append(a)
        elif tag == "details" and "data-case" in a:
            self.details.append(int(a["data-case"]))
        elif tag == "pre":
            self.pre = [a.get("class", ""), ""]
        elif tag == "svg":
            self.svg_labels.append(a.get("aria-label"))
        elif tag == "circle":
            self.circles += 1
        if a.get("class") == "step":
            self.steps.append((tag, a.get("data-case")))
        if tag == "line" and a.get("class") == "budget":
            self.budget_lines += 1

    def handle_endtag(self, tag):
        if tag == "pre" and self.pre is not None:
            self.pres.append(self.pre)
            self.pre = None

    def handle_data(self, data):
        if self.pre is not None:
            self.pre[1] += data


def test_assets_served_with_types(dash):
    for path, ctype in [("/", "text/html"), ("/index.html", "text/html"),
                        ("/app.js", "text/javascript"), ("/style.css", "text/css")]:
        st, ct, body = dash.get(path)
        assert st == 200 and ct.startswith(ctype), (path, st, ct)
        # nothing from outside: the daemon often has no internet
        text = body.decode().replace("http://www.w3.org/2000/svg", "")
        assert "http://" not in text and "https://" not in text, path
        assert "innerHTML" not in text, path
    assert dash.get("/nope.js")[0] == 404


def test_matrix_shows_the_deny_list(dash):
    st, deny = dash.get_json("/denylist?stale=ok")
    assert st == 200, deny
    broken = {(n["name"], e["dtype"]) for n in deny["names"]
              for e in n["evidence"] if e["verdict"] == "broken"}
    assert ("add", "float32") in broken and len(broken) > 1, deny
    dom = Dom(chromium(dash))
    for cell in broken:
        assert dom.cells.get(cell) == "broken", (cell, dom.cells)
    st, allow = dash.get_json("/allowlist?stale=ok")
    assert "mul" in allow["names"], allow
    for name in allow["names"]:
        assert dom.cells.get((name, "float32")) == "verified", (name, dom.cells)
    # nothing is shown broken that the deny-list does not name
    assert {c for c, v in dom.cells.items() if v == "broken"} == broken


def test_matrix_shows_each_broken_cells_severity(dash):
    """A broken cell names the worst severity of its keys' verdicts, as the
    deny-list's evidence gives it; the severity filter has one box each."""
    st, deny = dash.get_json("/denylist?stale=ok")
    rank = {v["name"]: v["rank"] for v in deny["severity_vocabulary"]}
    want = {}
    for n in deny["names"]:
        for e in n["evidence"]:
            if e["verdict"] == "broken":
                k = (n["name"], e["dtype"])
                if k not in want or rank[e["severity"]] > rank[want[k]]:
                    want[k] = e["severity"]
    dom = Dom(chromium(dash))
    assert dom.severity == want, (dom.severity, want)
    assert "critical" in want.values()
    assert sorted(dom.sev_filters) == ["critical", "loud", "numerics"]


def test_timeline_shows_the_regression(dash):
    dom = Dom(chromium(dash))
    regs = [(e["data-name"], e["data-dtype"], e["data-from"], e["data-to"])
            for e in dom.events if e["data-kind"] == "regression"]
    assert regs == [("add", "float32", "verified", "broken")], dom.events


def test_name_page_has_evidence_and_repro(dash):
    st, ops = dash.get_json("/ops/minimum")
    assert st == 200, ops
    evidence = [v["evidence_case"] for v in ops["verdicts"]
                if v["verdict"] == "broken"]
    assert evidence, ops
    dom = Dom(chromium(dash, "#/name/minimum"))
    assert dom.details and dom.details[0] == evidence[0], dom.details
    repros = [t for cls, t in dom.pres if cls == "repro"]
    assert repros and "opscreen repro: case %d" % evidence[0] in repros[0]
    assert "first-call time per case (ms)" in dom.svg_labels
    timed = [c for c in ops["cases"] if (c["cand_first_ms"] or 0) > 0]
    assert dom.circles == len(timed) > 0


def test_numeric_evidence_shows_errors_against_native(dash):
    page = chromium(dash, "#/name/add")
    assert "err_abs candidate" in page and "err_ulp native" in page


def test_screenshot(dash, tmp_path):
    shot = tmp_path / "dashboard.png"
    chromium(dash, "", "--window-size=1400,1000", "--screenshot=" + str(shot))
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10000
    ladder = tmp_path / "ladder.png"
    chromium(dash, "#/name/topk", "--window-size=1400,1000",
             "--screenshot=" + str(ladder))
    assert ladder.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if os.environ.get("OPSCREEN_UPDATE_SCREENSHOT"):
        shutil.copyfile(shot, os.path.join(ROOT, "docs", "dashboard.png"))
        shutil.copyfile(ladder, os.path.join(ROOT, "docs", "dashboard-ladder.png"))


def test_name_page_draws_the_compile_ladder(dash):
    """topk's ladder (the demo topk's first call slows 2 ms per k): one mark
    per step, the budget line, the 4096 step over it."""
    st, ops = dash.get_json("/ops/topk")
    steps = [c for c in ops["cases"] if c["class"] == "compile"]
    assert sorted(c["ladder_value"] for c in steps) == [8, 64, 512, 4096], steps
    assert any(v["verdict"] == "hazard" for v in ops["verdicts"]), ops["verdicts"]
    dom = Dom(chromium(dash, "#/name/topk"))
    assert "compile-time ladder: first call (s) vs k" in dom.svg_labels, dom.svg_labels
    assert sorted(int(c) for _, c in dom.steps) == sorted(c["id"] for c in steps)
    assert dom.budget_lines == 1
    dom = Dom(chromium(dash, "#/name/minimum"))
    assert not dom.steps and dom.budget_lines == 0
