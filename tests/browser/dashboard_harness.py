"""What the dashboard tests share: the demo library copied and versioned,
the rendered DOM parsed into what the assertions need, screenshots for
docs/."""
import html.parser
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "e2e"))
from e2e_harness import ROOT, demolib_copy, set_version  # noqa: E402,F401


def screenshot_to_docs(data, name):
    if os.environ.get("OPSCREEN_UPDATE_SCREENSHOT"):
        with open(os.path.join(ROOT, "docs", name), "wb") as f:
            f.write(data)


class Dom(html.parser.HTMLParser):
    """Collects the elements the assertions need from a rendered DOM."""

    def __init__(self, text):
        super().__init__()
        self.cells = {}         # (name, dtype) -> verdict
        self.severity = {}      # (name, dtype) -> a broken cell's severity
        self.rows = {}          # matrix row name -> its attributes
        self.heads = []         # matrix column dtypes
        self.sev_filters = []   # the severity filter's checkboxes
        self.events = []        # timeline <li class="event"> attributes
        self.broken = {}        # name -> attributes of its "broken" row
        self.diff = []          # attributes of the diff table's rows
        self.findings = []      # attributes of the findings table's rows
        self.details = []       # evidence blocks' case ids
        self.pres = []          # [class, text] of every <pre>
        self.svg_labels = []
        self.circles = 0
        self.steps = []         # compile-ladder marks: (tag, data-case)
        self.budget_lines = 0
        self.table = None
        self.row = None
        self.pre = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and "id" in a:
            self.table = a["id"]
        elif tag == "tr" and "data-name" in a:
            self.row = a["data-name"]
            if self.table == "matrix":
                self.rows[self.row] = a
            elif self.table == "broken":
                self.broken[self.row] = a
            elif self.table == "diff":
                self.diff.append(a)
            elif self.table == "findings":
                self.findings.append(a)
        elif tag == "th" and "data-dtype" in a and self.table == "matrix":
            self.heads.append(a["data-dtype"])
        elif tag == "td" and "data-verdict" in a and self.row and self.table == "matrix":
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
        elif tag == "table":
            self.table = None

    def handle_data(self, data):
        if self.pre is not None:
            self.pre[1] += data


def wait_rendered(b, route="home", timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if b.eval("document.querySelector('main').dataset.rendered") == route:
            return
        time.sleep(0.1)
    raise AssertionError("not rendered")
