"""opscreenctl against the real daemon: its exit status is what a deployment
script gates on (0 verified list, 3 stale or no complete screen, 4 daemon
unreachable, 2 usage, 1 other errors), the body goes to stdout."""
import json
import os
import subprocess

import pytest
import yaml

from e2e_harness import ROOT, Daemon, daemon_on_copy, free_port, shared_screen

CTL = os.path.join(ROOT, "build", "opscreenctl")


@pytest.fixture(scope="module")
def ctl_bin():
    if not os.access(CTL, os.X_OK):
        pytest.fail("build/opscreenctl is missing: run `make` first")
    return CTL


def ctl(hostport, *args, token=None, env=None, timeout=300):
    cmd = [CTL, "-H", hostport]
    if token:
        cmd += ["-t", token]
    r = subprocess.run(cmd + list(args), capture_output=True, text=True,
                       timeout=timeout, env=env)
    return r.returncode, r.stdout, r.stderr


@pytest.fixture(scope="module")
def d(tmp_path_factory, daemon_bin, ctl_bin):
    """One daemon for the module: tests before `screened` see no complete screen."""
    dm = Daemon(tmp_path_factory.mktemp("ctl"))
    dm.start()
    dm.wait_fingerprint()
    dm.hp = f"127.0.0.1:{dm.port}"
    dm.tokfile = os.path.join(dm.tmp, "token")
    yield dm
    dm.stop()


@pytest.fixture(scope="module")
def screened(tmp_path_factory, daemon_bin, ctl_bin):
    """A daemon on a copy of the session's full screen of the demo library
    (tests/e2e/conftest.py), which then completes a run started by
    `opscreenctl run --wait` (of two ops: the lists stay the full screen's,
    as a restricted run never serves them)."""
    src, _ = shared_screen(tmp_path_factory, "full-screen")
    dm = daemon_on_copy(tmp_path_factory.mktemp("ctl-screened"), src)
    dm.start()
    try:
        dm.wait_fingerprint()
        dm.hp = f"127.0.0.1:{dm.port}"
        dm.tokfile = os.path.join(dm.tmp, "token")
        # a whole screen is what `run` asks for with no --ops: posted,
        # answered with its id, then cancelled here (a full screen of its
        # own would take minutes)
        rc, out, err = ctl(dm.hp, "run", token=dm.tokfile)
        assert rc == 0, (out, err, dm.logtext())
        run = json.loads(out)["run"]
        st, r = dm.get_json(f"/runs/{run}")
        assert st == 200 and r["full"] == 1, r
        st, _, _ = dm.request("DELETE", f"/runs/{run}", token=dm.token)
        assert st in (200, 202), st
        assert dm.wait_run(run)["state"] == "cancelled"
        rc, out, err = ctl(dm.hp, "run", "--ops", "abs,sum", "--wait",
                           token=dm.tokfile, timeout=600)
        assert rc == 0, (out, err, dm.logtext())
        # the POST answer, then the finished run
        assert '"state": "complete"' in out, out
        yield dm
    finally:
        dm.stop()


def test_unreachable_is_4(ctl_bin):
    hp = f"127.0.0.1:{free_port()}"   # nothing listens there
    for args in (["allowlist"], ["denylist", "--format", "yaml"], ["status"]):
        rc, out, err = ctl(hp, *args)
        assert rc == 4, (args, out, err)
        assert out == "" and "cannot reach" in err


def test_usage_is_2(ctl_bin):
    for args in ([], ["frobnicate"], ["allowlist", "--format", "xml"],
                 ["allowlist", "--bogus"], ["run", "--ops", ","],
                 ["allowlist", "--dtypes", "a&b=c"],
                 ["denylist", "--policy", "lenient"], ["allowlist", "--policy"]):
        rc, out, err = ctl("127.0.0.1:1", *args)
        assert rc == 2, (args, out, err)
    for bad in ("host:", "host:80x", "[::1", "[::1]x", ":8470"):
        rc, _, err = ctl(bad, "status")
        assert rc == 2 and "host:port" in err, (bad, err)


def test_host_forms(d):
    # -H without a port means 8470: nothing listens there in the test (the
    # daemon is on its own port), so the client says which port it tried
    for arg, shown in (("localhost", "http://localhost:8470"),
                       ("[::1]", "http://[::1]:8470"),
                       ("::1", "http://[::1]:8470")):
        rc, out, err = ctl(arg, "status")
        if rc == 4:
            assert shown in err, (arg, err)
        else:   # a daemon of the host's own on 8470 answered
            assert rc in (0, 3), (arg, rc, err)
    port = d.hp.rsplit(":", 1)[1]
    for arg in (f"localhost:{port}", f"http://127.0.0.1:{port}",
                f"http://127.0.0.1:{port}/", f"[::1]:{port}"):
        rc, out, err = ctl(arg, "status")
        if arg.startswith("[::1]") and rc == 4:
            continue    # a host without IPv6 loopback
        assert rc == 0, (arg, err)
    # OPSCREEN_URL is the default -H
    r = subprocess.run([CTL, "status"], capture_output=True, text=True,
                       env=dict(os.environ, OPSCREEN_URL=f"http://{d.hp}"))
    assert r.returncode == 0, r.stderr


def test_timeout_bounds_a_daemon_that_never_answers(ctl_bin):
    import socket
    import time
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)       # accepts (the kernel does) and never answers
    try:
        t0 = time.time()
        r = subprocess.run([CTL, "-H", f"127.0.0.1:{srv.getsockname()[1]}",
                            "--timeout", "1", "status"], capture_output=True,
                           text=True, timeout=30)
        assert r.returncode == 4, r
        assert time.time() - t0 < 10
        assert "cannot reach" in r.stderr and "imed out" in r.stderr, r.stderr
    finally:
        srv.close()
    r = subprocess.run([CTL, "--timeout", "0", "status"], capture_output=True,
                       text=True)
    assert r.returncode == 2 and "--timeout" in r.stderr


def test_tls_through_a_fronting_proxy(d, tmp_path):
    import http.server
    import shutil
    import ssl
    import threading
    import urllib.request
    if shutil.which("openssl") is None:
        pytest.skip("openssl is missing: no certificate for the TLS proxy")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                    "-keyout", str(key), "-out", str(cert), "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext",
                    "subjectAltName=IP:127.0.0.1"], check=True,
                   capture_output=True)
    upstream = f"http://{d.hp}"

    class Proxy(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            try:
                with urllib.request.urlopen(upstream + self.path) as r:
                    code, body = r.status, r.read()
            except urllib.error.HTTPError as e:
                code, body = e.code, e.read()
            self.send_response(code)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    import urllib.error
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(str(cert), str(key))
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        url = f"https://127.0.0.1:{srv.server_address[1]}"
        r = subprocess.run([CTL, "-H", url, "--cacert", str(cert), "status"],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["devices"], r.stdout
        # a certificate nobody vouched for: refused, not read
        r = subprocess.run([CTL, "-H", url, "status"], capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 4 and "certificate" in r.stderr.lower(), r
    finally:
        srv.shutdown()


def test_stale_before_the_first_screen_is_3(d):
    for args in (["allowlist"], ["allowlist", "--format", "yaml"],
                 ["denylist"], ["allowlist", "--stale-ok"]):
        rc, out, err = ctl(d.hp, *args)
        assert rc == 3, (args, out, err)
        # the list file a script redirects stdout into stays empty
        assert out == "" and "503" in err, (args, out, err)
    rc, _, err = ctl(d.hp, "allowlist")
    assert "no complete screen" in err


def test_status(d):
    rc, out, err = ctl(d.hp, "status")
    assert rc == 0, err
    h = json.loads(out)
    assert h["devices"][0]["fingerprint"]["library"] == "demolib"


def test_run_needs_the_token(d, tmp_path):
    rc, out, err = ctl(d.hp, "run", token=str(tmp_path / "missing"))
    assert rc == 1 and "token file" in err, (out, err)
    bad = tmp_path / "bad"
    bad.write_text("x" * 32 + "\n")
    rc, out, err = ctl(d.hp, "run", token=str(bad))
    assert rc == 1 and "401" in err, (out, err)
    # which file the refused token came from
    assert f"read from '{bad}'" in err, err
    assert d.get_json("/runs")[1]["runs"] == []


def test_run_ops_queues_a_restricted_run(d):
    # the token comes from OPSCREEN_TOKEN_FILE when -t is not given
    env = dict(os.environ, OPSCREEN_TOKEN_FILE=d.tokfile)
    rc, out, err = ctl(d.hp, "run", "--ops", "abs,relu", env=env)
    assert rc == 0, (out, err)
    run_id = json.loads(out)["run"]
    run = d.wait_run(run_id)
    assert run["state"] == "complete", run
    st, runs = d.get_json("/runs")
    assert [r["id"] for r in runs["runs"]] == [run_id]
    # a restricted run never serves lists
    rc, out, err = ctl(d.hp, "allowlist")
    assert rc == 3 and out == "", (out, err)


def test_run_ops_unknown_op_is_1(d):
    rc, out, err = ctl(d.hp, "run", "--ops", "no_such_op", token=d.tokfile)
    assert rc == 1 and "400" in err, (out, err)


def names_of(text):
    """The names of a text list: its `#` provenance header dropped."""
    return [ln for ln in text.splitlines() if ln and not ln.startswith("#")]


def test_allowlist_after_a_full_screen_is_0(screened):
    rc, out, err = ctl(screened.hp, "allowlist")
    assert rc == 0, (out, err)
    allow = json.loads(out)
    assert allow["stale"] is False
    assert "abs" in allow["names"] and "sum" not in allow["names"]
    st, served = screened.get_json("/allowlist")
    assert st == 200 and served["names"] == allow["names"]

    rc, out, err = ctl(screened.hp, "allowlist", "--format", "text")
    assert rc == 0 and names_of(out) == allow["names"], (out, err)
    rc, out, err = ctl(screened.hp, "allowlist", "--format=yaml")
    assert rc == 0 and yaml.safe_load(out)["include"] == allow["names"]
    rc, out, err = ctl(screened.hp, "allowlist", "--format", "csv",
                       "--dtypes", "float32")
    assert rc == 0 and out.strip(), (out, err)
    # stale=ok on a current screen: still 0, the JSON form says not stale
    rc, out, err = ctl(screened.hp, "allowlist", "--format", "text",
                       "--stale-ok")
    assert rc == 0 and names_of(out) == allow["names"], (out, err)


def test_denylist_after_a_full_screen_is_0(screened):
    rc, out, err = ctl(screened.hp, "denylist")
    assert rc == 0, (out, err)
    names = {e["name"] for e in json.loads(out)["names"]}
    assert {"sum", "clamp", "cumsum"} <= names
    rc, out, err = ctl(screened.hp, "denylist", "--format", "yaml")
    assert rc == 0 and set(yaml.safe_load(out)["exclude"]) == names


def test_run_wait_reports_the_finished_run(screened):
    rc, out, err = ctl(screened.hp, "run", "--ops", "neg", "--wait",
                       token=screened.tokfile)
    assert rc == 0, (out, err)
    assert '"state": "complete"' in out
