"""Bad input gets a clear error and loses nothing; the daemon keeps serving."""
import json
import os
import urllib.parse
import subprocess
import time

import pytest

from e2e_harness import DAEMON, Daemon


def test_allowlist_fails_closed_before_first_run(make_daemon):
    d = make_daemon().start()
    st, body = d.get_json("/allowlist")
    assert st == 503 and "error" in body
    d.wait_fingerprint()
    st, body = d.get_json("/allowlist")
    assert st == 503 and "no complete screen" in body["error"], body
    assert body["fingerprint"]["library"] == "demolib"
    st, body = d.get_json("/allowlist?stale=ok")
    assert st == 503   # nothing at all to serve yet
    st, body = d.get_json("/denylist")
    assert st == 503


def test_post_runs_requires_the_token(refusing):
    d = refusing
    st, _, body = d.request("POST", "/runs", {})
    assert st == 401 and b"token" in body
    st, _, body = d.request("POST", "/runs", {}, token="x" * 32)
    assert st == 401
    st, _, body = d.request("DELETE", "/runs/1", token="wrong")
    assert st == 401


def test_post_runs_without_token_file_is_disabled(make_daemon):
    d = make_daemon(daemon__token_file="/nonexistent/token").start()
    st, _, body = d.request("POST", "/runs", {}, token="a" * 32)
    assert st == 403 and b"no token configured" in body


@pytest.fixture(scope="module")
def refusing(tmp_path_factory, daemon_bin):
    """One daemon for the bad bodies, queries and methods: each is refused,
    so none leaves a run behind for the next (each asserts there is none)."""
    d = Daemon(tmp_path_factory.mktemp("refusing"), runner__workers_per_device=1,
               runner__compile_workers=0).start()
    try:
        d.wait_fingerprint()
        yield d
    finally:
        d.stop()


@pytest.mark.parametrize("body,code,needle", [
    (b"{not json", 400, b"not JSON"),
    (b"[1, 2]", 400, b"JSON object"),
    (b'{"ops": "add"}', 400, b"array"),
    (b'{"ops": ["no_such_op"]}', 400, b"no_such_op"),
    (b'{"classes": ["telepathy"]}', 400, b"telepathy"),
    (b'{"dtypes": ["float128"]}', 400, b"float128"),
    (b'{"colour": "blue"}', 400, b"unknown field"),
    (b'{"ops": ["add"], "ops": ["mul"]}', 400, b"not JSON"),
])
def test_post_runs_rejects_bad_bodies(refusing, body, code, needle):
    d = refusing
    st, ctype, out = d.request("POST", "/runs", body, token=d.token)
    assert st == code and needle in out, out
    assert ctype == "application/json"
    st, runs = d.get_json("/runs")
    assert runs["runs"] == []


def test_an_op_outside_the_catalog_waits_for_the_table(make_daemon):
    """Before a runner has reported the registration table, an op the probe
    catalog does not know cannot be judged: 503 and a reason (retry), not a
    400 that says a registered key does not exist; a catalog op is taken."""
    d = make_daemon(env={"OPSCREEN_DEMOLIB_IMPORT_DELAY": "4"}).start()
    assert d.get_json("/healthz")[1]["devices"][0].get("fingerprint") is None
    for op in ("clone", "no_such_op"):   # clone: the demo's, not the catalog's
        st, body = d.post_run({"ops": [op]})
        assert st == 503 and "registration table" in body["error"], body
        assert op in body["error"]
    st, body = d.post_run({"ops": ["abs"], "classes": ["same_shape"]})  # catalog
    assert st == 202, body
    d.wait_fingerprint()
    st, body = d.post_run({"ops": ["clone"], "classes": ["same_shape"]})
    assert st == 202, body
    clone_run = body["run"]
    st, body = d.post_run({"ops": ["no_such_op"]})
    assert st == 400 and "unknown value 'no_such_op'" in body["error"], body
    run = d.wait_run(clone_run)
    assert run["state"] == "complete" and run["total"] > 0, run


def test_a_nul_in_the_path_acts_on_nothing(refusing):
    d = refusing
    st, ctype, body = d.request("DELETE", "/runs/71%00x", token=d.token)
    assert st == 400 and ctype == "application/json", (st, body)
    assert "NUL" in json.loads(body)["error"]


def test_oversized_body_is_refused(refusing):
    d = refusing
    st, _, out = d.request("POST", "/runs", b"{" + b" " * (200 * 1024) + b"}",
                           token=d.token)
    assert st == 413, out
    assert d.get("/healthz")[0] == 200


@pytest.mark.parametrize("path,code", [
    ("/allowlist?format=xml", 400),
    ("/allowlist?colour=blue", 400),
    ("/allowlist?dtypes=float128", 400),
    ("/allowlist?gpu=abc", 400),
    ("/allowlist?gpu=-1", 400),
    ("/allowlist?stale=maybe", 400),
    ("/denylist?format=", 400),
    ("/runs/abc", 400),
    ("/runs/999", 404),
    ("/runs/1?x=1", 400),
    ("/ops?run=0", 400),
    ("/nowhere", 404),
    ("/cases/-3", 400),
    # a NUL decoded would cut the path short: /cases/1 would answer
    ("/cases/1%00", 400),
    ("/runs/1%00x", 400),
    ("/allowlist?dtypes=float32%00x", 400),
])
def test_bad_queries_get_json_errors(refusing, path, code):
    d = refusing
    st, ctype, body = d.get(path)
    assert st == code, (path, body)
    assert ctype == "application/json"
    assert b'"error"' in body
    assert d.get("/healthz")[0] == 200


def headers_of(d, method, path, headers=None):
    import http.client
    conn = http.client.HTTPConnection("127.0.0.1", d.port, timeout=30)
    try:
        conn.request(method, path, body=b"" if method != "GET" else None,
                     headers=headers or {})
        r = conn.getresponse()
        r.read()
        return r.status, {k.lower(): v for k, v in r.getheaders()}
    finally:
        conn.close()


def test_wrong_method(refusing):
    d = refusing
    st, _, body = d.request("PUT", "/allowlist", b"")
    assert st == 405
    # RFC 9110: a 405 names the methods the resource has
    for method, path, allow in (("PUT", "/allowlist", "GET, HEAD"),
                                ("POST", "/denylist", "GET, HEAD"),
                                ("PUT", "/runs", "GET, HEAD, POST"),
                                ("POST", "/runs/1", "GET, HEAD, DELETE"),
                                ("DELETE", "/ops", "GET, HEAD")):
        st, h = headers_of(d, method, path)
        assert st == 405 and h.get("allow") == allow, (method, path, st, h)


def test_401_says_how_to_authenticate(refusing):
    d = refusing
    st, h = headers_of(d, "POST", "/runs")
    assert st == 401 and h["www-authenticate"] == 'Bearer realm="opscreen"', h
    st, h = headers_of(d, "POST", "/runs", {"Authorization": "Bearer wrong"})
    assert st == 401, h
    assert h["www-authenticate"] == \
        'Bearer realm="opscreen", error="invalid_token"', h


def test_restricted_run_and_cancel(make_daemon):
    d = make_daemon().start()
    d.wait_fingerprint()
    st, out = d.post_run({"ops": ["add", "mul"], "dtypes": ["float32"],
                          "classes": ["same_shape"]})
    assert st == 202, out
    run = d.wait_run(out["run"])
    assert run["state"] == "complete" and run["full"] == 0
    st, ops = d.get_json(f"/ops?run={out['run']}")
    assert {v["name"] for v in ops["verdicts"]} == {"add", "mul"}
    assert {v["dtype"] for v in ops["verdicts"]} == {"float32"}
    # a restricted run never serves an allow-list
    assert d.get("/allowlist")[0] == 503
    st, out = d.post_run({})
    assert st == 202
    st, _, body = d.request("DELETE", f"/runs/{out['run']}", token=d.token)
    assert st == 202, body
    run = d.wait_run(out["run"])
    assert run["state"] == "cancelled"
    st, _, body = d.request("DELETE", f"/runs/{out['run']}", token=d.token)
    assert st == 409


def test_queue_is_bounded(make_daemon):
    d = make_daemon().start()
    d.wait_fingerprint()   # names are known once the runner reported its table
    codes = [d.post_run({"ops": ["add"], "dtypes": ["float32"]})[0]
             for _ in range(8)]
    assert codes.count(202) >= 4 and 429 in codes


def run_check(conf_text, tmp_path):
    p = tmp_path / "bad.conf"
    p.write_text(conf_text)
    return subprocess.run([DAEMON, "-n", "-c", str(p)], capture_output=True,
                          text=True)


def test_config_errors_name_the_line(tmp_path):
    r = run_check("[daemon]\nport = 99999\n\n[runner]\ndevices = gpu0\n"
                  "bogus = 1\n[daemon\n", tmp_path)
    assert r.returncode == 1
    assert ":2:" in r.stderr and "port" in r.stderr
    assert ":5:" in r.stderr and "devices" in r.stderr
    assert ":6:" in r.stderr and "unknown key" in r.stderr
    assert ":7:" in r.stderr
    # a token file of its own: never the host's /etc/opscreen/token
    tok = tmp_path / "token"
    tok.write_text("t" * 32 + "\n")
    os.chmod(tok, 0o600)
    r = run_check(f"[daemon]\nport = 8470\ndatabase = {tmp_path}/x.db\n"
                  f"token_file = {tok}\n", tmp_path)
    assert r.returncode == 0 and "configuration OK" in r.stdout
    r = subprocess.run([DAEMON, "-n", "-c", str(tmp_path / "missing.conf")],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "No such file" in r.stderr


def test_shipped_config_is_valid(tmp_path):
    # its paths are relative: checked where `make run` runs it, with var/
    root = os.path.dirname(os.path.dirname(DAEMON))
    (tmp_path / "var").mkdir()
    r = subprocess.run([DAEMON, "-n", "-c", os.path.join(root, "conf",
                        "opscreen.conf")], capture_output=True, text=True,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stderr


def test_check_catches_every_bad_value(tmp_path):
    """opscreend -n reports every problem it can know before starting, each
    with the line it is on: every syntax error (not only the first), an
    over-long line under its own number (the lines after it keep theirs), a
    duplicate key, a listen that is not an address, a database directory that
    does not exist and a token file others may read."""
    tok = tmp_path / "token"
    tok.write_text("t" * 32 + "\n")
    os.chmod(tok, 0o644)
    r = run_check("[daemon]\n"                                     # 1
                  "listen = localhost\n"                           # 2
                  "port 8470\n"                                    # 3
                  f"database = {tmp_path}/nope/x.db\n"             # 4
                  f"token_file = {tok}\n"                          # 5
                  "[runner\n"                                      # 6
                  "python = " + "p" * 400 + "\n"                   # 7
                  "nice = 30\n"                                    # 8
                  "nice = 5\n"                                     # 9
                  "what is this\n"                                 # 10
                  "[api]\n"                                        # 11
                  "threads = 2\n", tmp_path)                       # 12
    err = r.stderr
    assert r.returncode == 1, err
    assert ':2: [daemon] listen = "localhost": must be an IPv4 or IPv6' in err
    assert ":3: syntax error" in err and ":6: syntax error" in err
    assert ":10: syntax error" in err, err
    assert ":7: line longer than" in err, err
    assert ":8: [daemon] nice" in err   # inih keeps [daemon] past line 6
    assert ':9: [daemon] nice = "5": duplicate key (first set on line 8)' in err
    assert f"database directory '{tmp_path}/nope' does not exist" in err, err
    assert "token_file" in err and "mode 0644" in err, err
    assert ":12:" not in err and ":11:" not in err, err
    # the lines are reported in order
    lines = [int(x.split(":")[1]) for x in err.splitlines()
             if x.startswith(str(tmp_path / "bad.conf") + ":")
             and x.split(":")[1].isdigit()]
    assert lines == sorted(lines) and lines, err

    # the same file without its problems is accepted; so is a token 0600
    os.chmod(tok, 0o600)
    r = run_check(f"[daemon]\nlisten = ::1\nport = 8470\n"
                  f"database = {tmp_path}/x.db\ntoken_file = {tok}\n"
                  "[runner]\nnice = 5\n", tmp_path)
    assert r.returncode == 0, r.stderr
    # a listen off loopback is allowed, with a warning
    r = run_check(f"[daemon]\nlisten = 0.0.0.0\ndatabase = {tmp_path}/x.db\n"
                  f"token_file = {tok}\n", tmp_path)
    assert r.returncode == 0 and "warning" in r.stderr and \
        "not a loopback address" in r.stderr, r.stderr
    # a token shorter than the daemon would take (16 characters): refused
    # here, where it used to pass the check and leave the API without one
    tok.write_text("short\n")
    r = run_check(f"[daemon]\ndatabase = {tmp_path}/x.db\ntoken_file = {tok}\n",
                  tmp_path)
    assert r.returncode == 1 and "fewer than 16 characters" in r.stderr, r.stderr


def test_token_file_others_can_read_is_refused(make_daemon):
    """The daemon refuses to start, saying why, on a token file that its
    group or the world may read; it writes nothing, not even the database."""
    d = make_daemon()
    tokfile = os.path.join(d.tmp, "token")
    for mode in (0o640, 0o604):
        os.chmod(tokfile, mode)
        r = subprocess.run([DAEMON, "-c", d.conf], capture_output=True,
                           text=True, timeout=30, cwd=d.tmp)
        assert r.returncode == 1, r.stderr
        assert f"mode {mode:04o} lets others read the token" in r.stderr
        assert not os.path.exists(d.db)
    os.chmod(tokfile, 0o400)
    d.start()
    st, out = d.post_run({"ops": ["add"]})
    assert st in (202, 503), out      # the token is accepted


def test_missing_database_directory(make_daemon, tmp_path):
    d = make_daemon(daemon__database=str(tmp_path / "nope" / "x.db"))
    r = subprocess.run([DAEMON, "-c", d.conf], capture_output=True, text=True,
                       timeout=30)
    assert r.returncode == 1
    assert "does not exist" in r.stderr


def test_read_only_database_directory(tmp_path):
    """The daemon, as an unprivileged user (root ignores directory modes, so
    under root the test drops to nobody with setpriv), refuses a database
    directory it cannot write, with a clear message."""
    import shutil
    import tempfile
    base = tempfile.mkdtemp(prefix="opscreen-ro-")
    os.chmod(base, 0o755)
    ro = os.path.join(base, "ro")
    os.mkdir(ro, 0o555)
    os.chmod(ro, 0o555)
    conf = os.path.join(base, "opscreen.conf")
    with open(conf, "w") as f:
        f.write(f"[daemon]\ndatabase = {ro}/x.db\nport = 1\ntoken_file =\n"
                "[runner]\ndevices = cpu\n")
    os.chmod(conf, 0o644)
    cmd = [DAEMON, "-c", conf]
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            pytest.skip("running as root without setpriv to drop privileges")
        cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + cmd
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert r.returncode == 1, r.stderr
    assert "not writable" in r.stderr, r.stderr


def test_read_only_database_file(make_daemon, tmp_path):
    """A database the daemon cannot write (here: a read-only file system image
    is simulated by a directory path in place of the file) is refused at start."""
    bad = tmp_path / "dir.db"
    bad.mkdir()
    d = make_daemon(daemon__database=str(bad))
    r = subprocess.run([DAEMON, "-c", d.conf], capture_output=True, text=True,
                       timeout=30)
    assert r.returncode == 1 and "store" in r.stderr


def test_library_that_cannot_be_imported(make_daemon):
    d = make_daemon(runner__library="no_such_library_xyz").start()
    deadline = time.time() + 60
    while time.time() < deadline:
        st, h = d.get_json("/healthz")
        if h["devices"][0].get("error"):
            break
        time.sleep(0.2)
    assert "no_such_library_xyz" in h["devices"][0]["error"], h
    st, body = d.get_json("/allowlist")
    assert st == 503 and "not known" in body["error"], body
    assert "no_such_library_xyz" in body["why"]
    # the library named cannot be loaded: an error, not a warning
    assert any(" error: " in ln and "library 'no_such_library_xyz' cannot be "
               "used" in ln for ln in d.logtext().splitlines()), d.logtext()
    st, out = d.post_run({})
    assert st == 202
    run = d.wait_run(out["run"])
    assert run["state"] == "failed" and "no_such_library_xyz" in run["error"]
    assert d.get("/healthz")[0] == 200


def test_results_survive_a_restart(make_daemon):
    d = make_daemon().start()
    d.wait_fingerprint()
    st, out = d.post_run({"ops": ["add", "mul", "minimum"]})
    run = d.wait_run(out["run"])
    assert run["state"] == "complete"
    st, before = d.get_json(f"/ops?run={out['run']}")
    d.proc.kill()          # no clean shutdown
    d.proc.wait()
    d.logf.close()
    d.start()
    st, after = d.get_json(f"/ops?run={out['run']}")
    assert after == before


def test_a_query_value_cut_inside_a_character_is_a_400(refusing):
    # the daemon quotes at most 127 bytes of a bad dtype: a 3-byte character
    # across that cut must not turn the refusal into a closed connection
    d = refusing
    value = "xx" + "\u0e01" * 100    # 2 + 300 bytes: byte 127 is inside one
    for path in ("/denylist", "/allowlist"):
        st, ctype, body = d.request("GET", f"{path}?dtypes=" +
                                    urllib.parse.quote(value))
        assert st == 400 and ctype == "application/json", (st, body)
        assert "unknown dtype" in json.loads(body)["error"]
