"""The dashboard (web/) in headless Chromium against the real daemon: the
demo library screened as 0.1.0, then upgraded to 0.2.0 with `add` broken
(OPSCREEN_DEMOLIB_BREAK=add), on one database, in every dtype the demo
library has. The rendered page must answer an operator's questions: what is
broken and why, since when and in which version, what each policy allows,
what changed between the versions, the matrix (every dtype column on screen
at 500 px too, the bootstrap probe not a column, a summary that adds up), a
name's evidence. Set OPSCREEN_UPDATE_SCREENSHOT=1 to write docs/dashboard*.png.
"""
import json
import os
import re

import pytest

from cdp import CHROMIUM, Browser
from dashboard_harness import (Dom, demolib_copy, screenshot_to_docs,
                               set_version, wait_rendered)
from e2e_harness import DAEMON, ROOT, denied, full_screen

# every dtype of the demo library; classes that find its planted defects,
# the compile ladder (topk) and the dtype-free bootstrap probe
SCOPE = {"runner__dtypes": "", "runner__classes": "same_shape,compile,bootstrap",
         # twenty-six names (runner.ops): the right ones the page is read
         # on, the demo's defects of these classes (critical, loud and
         # numerics), topk's ladder, and names of the fp8, integer and
         # float32-only dtypes; the library's other names are withheld
         "runner__ops": "add,sub,mul,neg,abs,relu,sin,cos,exp,sqrt,exp2,rsqrt,"
                        "tanh,clamp,topk,clone,minimum,div,sum,cumsum,argmin,"
                        "eq_scalar,abs_out,mean_dim,moe_align_block_size,mhc_bwd"}
NARROW = 500


@pytest.fixture(scope="module")
def dash(tmp_path_factory):
    if CHROMIUM is None:
        pytest.skip("chromium is missing (make deps installs Debian's "
                    "chromium): the dashboard is not tested")
    if not os.access(DAEMON, os.X_OK):
        pytest.fail("build/opscreend is missing: run `make` first")
    tmp = tmp_path_factory.mktemp("dashboard")
    lib = demolib_copy(tmp)
    scope = dict(SCOPE, runner__runner_path=f"{ROOT}/probes:{lib}")
    # the planted hang is no part of what the dashboard is checked on here:
    # without it neither screen waits out its deadlines (the source is
    # unchanged: OPSCREEN_DEMOLIB_FIX is read at run time)
    fixed = {"OPSCREEN_DEMOLIB_FIX": "tanh"}
    d, first = full_screen(tmp / "d", scope, fixed)
    d.stop()
    set_version(lib, "0.2.0")
    d, second = full_screen(tmp / "d", scope, dict(fixed, OPSCREEN_DEMOLIB_BREAK="add"))
    d.first, d.second = first, second
    d.browser = Browser(tmp_path_factory.mktemp("chromium"))
    d.url = f"http://127.0.0.1:{d.port}/"
    yield d
    d.browser.close()
    d.stop()


def page(d, fragment="", width=1400, route="home"):
    d.browser.open(d.url + fragment, width=width, route=route)
    return Dom(d.browser.html())


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


def deny_cells(d):
    st, deny = d.get_json("/denylist?stale=ok")
    assert st == 200, deny
    return deny, {(n["name"], e["dtype"]) for n in denied(deny)
                  for e in n["evidence"] if e["verdict"] == "broken"}


def test_matrix_shows_the_deny_list(dash):
    deny, broken = deny_cells(dash)
    assert ("add", "float32") in broken and len(broken) > 1, deny
    dom = page(dash)
    for cell in broken:
        assert dom.cells.get(cell) == "broken", (cell, dom.cells)
    st, allow = dash.get_json("/allowlist?stale=ok")
    assert "mul" in allow["names"], allow
    for name in allow["names"]:
        shown = {v for (n, _), v in dom.cells.items() if n == name}
        assert shown == {"verified"}, (name, shown)
        assert dom.rows[name]["data-verdicts"] == "verified"
    # nothing is shown broken that the deny-list does not name
    assert {c for c, v in dom.cells.items() if v == "broken"} == broken


def test_matrix_shows_each_broken_cells_severity(dash):
    """A broken cell names the worst severity of its keys' verdicts, as the
    deny-list's evidence gives it; the severity filter has one box each."""
    st, deny = dash.get_json("/denylist?stale=ok")
    rank = {v["name"]: v["rank"] for v in deny["severity_vocabulary"]}
    want = {}
    for n in denied(deny):
        for e in n["evidence"]:
            if e["verdict"] == "broken":
                k = (n["name"], e["dtype"])
                if k not in want or rank[e["severity"]] > rank[want[k]]:
                    want[k] = e["severity"]
    dom = page(dash)
    assert dom.severity == want, (dom.severity, want)
    assert "critical" in want.values()
    assert sorted(dom.sev_filters) == ["critical", "loud", "numerics"]


def test_the_bootstrap_probe_is_not_a_dtype_column(dash):
    """The dtype-free bootstrap verdicts (dtype `any`) are screened, but a
    name's row shows no `any` column and no "verified" beside cells that
    are all broken."""
    st, ops = dash.get_json("/ops")
    assert any(v["dtype"] == "any" for v in ops["verdicts"]), "no bootstrap rows"
    dom = page(dash)
    assert "any" not in dom.heads and all(dt != "any" for _, dt in dom.cells)
    assert sorted(dom.heads) == sorted({v["dtype"] for v in ops["verdicts"]} - {"any"})
    all_broken = [n for n, a in dom.rows.items()
                  if {v for (m, _), v in dom.cells.items() if m == n} == {"broken"}]
    assert all_broken, dom.rows
    for n in all_broken:
        assert "verified" not in dom.rows[n]["data-verdicts"], dom.rows[n]


def test_the_summary_adds_up(dash):
    dom = page(dash)
    b = dash.browser
    names = int(b.eval("document.getElementById('summary').dataset.names"))
    counts = json.loads(b.eval("document.getElementById('summary').dataset.counts"))
    text = b.eval("document.getElementById('summary').textContent")
    assert names == len(dom.rows) > 20, (names, len(dom.rows))
    assert sum(counts.values()) == names, counts
    # the words say the same: the top-level figures sum to the names
    top = re.sub(r"\([^)]*\)", "", text.split(":", 1)[1])
    assert sum(int(x) for x in re.findall(r"\d+", top)) == names, text
    worst = {}
    for n, a in dom.rows.items():
        worst[a["data-worst"]] = worst.get(a["data-worst"], 0) + 1
    assert worst == counts


def test_what_is_broken_why_and_since_when(dash):
    """One row per denied name with its severity, reason and evidence key;
    `add` broken since run 2 (0.2.0), names broken in both versions since
    run 1 (0.1.0)."""
    st, deny = dash.get_json("/denylist?stale=ok")
    dom = page(dash)
    # the measured denials; the names it withholds are counted beside them
    assert set(dom.broken) == {n["name"] for n in denied(deny)}
    for n in denied(deny):
        assert dom.broken[n["name"]]["data-severity"] == (n["severity"] or ""), n
    assert dom.broken["add"]["data-since-run"] == str(dash.second)
    text = dash.browser.eval(
        "document.querySelector('#broken tr[data-name=\"add\"] td.since').textContent")
    assert text.startswith("0.2.0, run %d" % dash.second), text
    st, first = dash.get_json(f"/ops?run={dash.first}")
    before = {v["name"] for v in first["verdicts"] if v["verdict"] == "broken"}
    both = [n for n in dom.broken if n in before and n != "add"]
    assert both, (before, dom.broken)
    for n in both:
        assert dom.broken[n]["data-since-run"] == str(dash.first), (n, dom.broken[n])


def test_what_each_policy_allows(dash):
    st, strict = dash.get_json("/allowlist?stale=ok")
    st, tolerant = dash.get_json("/allowlist?stale=ok&policy=tolerant")
    page(dash)
    b = dash.browser
    got = b.eval("[...document.querySelectorAll('#lists p[data-policy]')]"
                 ".map(p => [p.dataset.policy, +p.dataset.count])")
    assert got == [["strict", len(strict["names"])],
                   ["tolerant", len(tolerant["names"])]], got
    added = sorted(set(tolerant["names"]) - set(strict["names"]))
    assert added, "the demo library has numerics-only names"
    shown = b.eval("(document.querySelector('#lists p[data-added]') || "
                   "{dataset: {}}).dataset.added")
    assert sorted(shown.split()) == added
    # the policy picker: under tolerant, those names leave the broken table
    # and their rows are marked allowed
    b.eval("(() => { const s = document.getElementById('policy'); "
           "s.value = 'tolerant'; s.dispatchEvent(new Event('change')); })()")
    wait_rendered(b)
    dom = Dom(b.html())
    for n in added:
        assert n not in dom.broken, n
        assert dom.rows[n]["data-name"] == n
    listed = b.eval("[...document.querySelectorAll('#matrix td.list')]"
                    ".filter(t => t.dataset.allowed === '1').length")
    assert listed == len(tolerant["names"]), listed


def test_what_changed_between_the_versions(dash):
    dom = page(dash)
    assert [(r["data-change"], r["data-key"]) for r in dom.diff] == \
        [("regression", "add.Tensor")] * len(dom.diff) and dom.diff, dom.diff
    b = dash.browser
    assert b.eval("document.getElementById('diff-from').value") == str(dash.first)
    assert b.eval("document.getElementById('diff-to').value") == str(dash.second)
    note = b.eval("document.getElementById('diff-note').textContent")
    assert "0.1.0" in note and "0.2.0" in note and "regression" in note, note
    # reversed by the pickers: the same rows read as fixes
    b.eval(f"(() => {{ const f = document.getElementById('diff-from'), "
           f"t = document.getElementById('diff-to'); f.value = '{dash.second}'; "
           f"t.value = '{dash.first}'; t.dispatchEvent(new Event('change')); }})()")
    wait_rendered(b)
    dom = Dom(b.html())
    assert {r["data-change"] for r in dom.diff} == {"fix"}, dom.diff


def test_timeline_shows_the_regression(dash):
    dom = page(dash)
    regs = [(e["data-name"], e["data-dtype"], e["data-from"], e["data-to"])
            for e in dom.events if e["data-kind"] == "regression"]
    assert ("add", "float32", "verified", "broken") in regs, dom.events
    assert {r[0] for r in regs} == {"add"}, regs


def test_one_gpu_shows_no_gpu_picker(dash):
    """The picker lists each device of the screen; a host of one device (here
    the cpu) has nothing to pick. Picking the device by hand keeps the same
    matrix (gpu=cpu on every request)."""
    before = page(dash)
    b = dash.browser
    assert b.eval("document.getElementById('gpu-pick').hidden") is True
    assert b.eval("[...document.getElementById('gpu').options].map(o => o.value)") \
        == ["", "cpu"]
    b.eval("(() => { const s = document.getElementById('gpu'); s.value = 'cpu'; "
           "s.dispatchEvent(new Event('change')); })()")
    wait_rendered(b)
    after = Dom(b.html())
    assert after.cells == before.cells
    assert b.eval("document.getElementById('gpu-pick').hidden") is False


def test_every_dtype_column_fits_at_500_px(dash):
    """At 500 px every dtype column of the matrix is on screen (short
    headers, one mark per cell), and the page does not scroll sideways."""
    dom = page(dash, width=NARROW)
    b = dash.browser
    assert b.eval("innerWidth") == NARROW
    right = b.eval("Math.max(...[...document.querySelectorAll('#matrix th')]"
                   ".map(t => t.getBoundingClientRect().right))")
    assert right <= NARROW, right
    assert b.eval("document.documentElement.scrollWidth") <= NARROW
    heads = b.eval("[...document.querySelectorAll('#matrix th[data-dtype]')]"
                   ".map(t => t.innerText)")
    assert len(heads) == len(dom.heads) >= 6 and "f32" in heads, heads
    # a cell still says what it is: its mark and its title
    title = b.eval("document.querySelector('#matrix tr[data-name=\"add\"] "
                   "td[data-dtype=\"float32\"]').title")
    assert title.startswith("add float32: broken"), title
    data = b.screenshot(os.path.join(dash.tmp, "narrow.png"))
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    screenshot_to_docs(data, "dashboard-narrow.png")


def broken_name_with_repro(d):
    st, deny = d.get_json("/denylist?stale=ok")
    for n in denied(deny):
        st, ops = d.get_json("/ops/" + n["name"])
        ev = [v["evidence_case"] for v in ops["verdicts"]
              if v["verdict"] == "broken" and v["evidence_case"]]
        if ev and d.get_json(f"/cases/{ev[0]}")[1].get("repro"):
            return n["name"], ops, ev
    raise AssertionError("no broken name with a repro")


def test_name_page_has_evidence_and_repro(dash):
    name, ops, evidence = broken_name_with_repro(dash)
    dom = page(dash, "#/name/" + name, route=name)
    assert dom.details and dom.details[0] == evidence[0], dom.details
    repros = [t for cls, t in dom.pres if cls == "repro"]
    assert repros and "opscreen repro: case %d" % evidence[0] in repros[0]
    assert "first-call time per case (ms)" in dom.svg_labels
    timed = [c for c in ops["cases"] if (c["cand_first_ms"] or 0) > 0]
    assert dom.circles == len(timed) > 0
    since = dash.browser.eval("[...document.querySelectorAll('#name-verdicts td.since')]"
                              ".map(t => t.textContent)")
    assert since and all(re.match(r"0\.[12]\.0, run \d+", s) for s in since), since


def test_numeric_evidence_shows_errors_against_native(dash):
    page(dash, "#/name/add", route="add")
    text = dash.browser.eval("document.body.innerText")
    assert "err_abs candidate" in text and "err_ulp native" in text


def test_name_page_draws_the_compile_ladder(dash):
    """topk's ladder (the demo topk's first call slows 2 ms per k): one mark
    per step, the budget line, the 4096 step over it."""
    st, ops = dash.get_json("/ops/topk")
    steps = [c for c in ops["cases"] if c["class"] == "compile"]
    assert sorted({c["ladder_value"] for c in steps}) == [8, 64, 512, 4096], steps
    assert any(v["verdict"] == "hazard" for v in ops["verdicts"]), ops["verdicts"]
    dom = page(dash, "#/name/topk", route="topk")
    assert "compile-time ladder: first call (s) vs k" in dom.svg_labels
    assert sorted(int(c) for t, c in dom.steps) == sorted(c["id"] for c in steps)
    assert dom.budget_lines == 1


def test_screenshots(dash, tmp_path):
    b = dash.browser
    shots = [("", "home", 1400, "dashboard.png"),
             ("#/name/add", "add", 1400, "dashboard-name.png"),
             ("#/name/topk", "topk", 1400, "dashboard-ladder.png")]
    for fragment, route, width, name in shots:
        b.open(dash.url + fragment, width=width, route=route)
        data = b.screenshot(str(tmp_path / name))
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10000, name
        screenshot_to_docs(data, name)
