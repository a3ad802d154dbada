"""Nothing a client sends crashes the daemon or corrupts the store: a bounded,
seeded stream of malformed requests (random paths, query strings, methods,
bodies, headers, and raw non-HTTP bytes) against a daemon that has data, and a
property-based fuzz of every operation generated from web/openapi.json."""
import json
import os
import random
import re
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.parse

import pytest

from e2e_harness import F32_WHOLE, daemon_on_copy, shared_screen

PATHS = ["/allowlist", "/denylist", "/ops", "/ops/add", "/runs", "/runs/1",
         "/cases/1", "/regressions", "/metrics", "/healthz", "/", "/app.js",
         "/ops/" + "x" * 300, "/runs/" + "9" * 40, "/cases/0", "/%00", "//",
         "/allowlist/", "/runs/1/extra"]
KEYS = ["format", "dtypes", "gpu", "stale", "run", "since", "limit", "kind",
        "x", "", "format[]", "dtypes\x00"]


def rand_text(rng, n):
    return "".join(chr(rng.choice([rng.randrange(32, 127), rng.randrange(0, 0x3000)]))
                   for _ in range(n))


def rand_query(rng):
    parts = []
    for _ in range(rng.randrange(0, 4)):
        k = rng.choice(KEYS)
        v = rng.choice(["json", "yaml", "ok", "-1", "0", "99999999999999999999",
                        "bfloat16,float16", ",,,", rand_text(rng, rng.randrange(0, 40))])
        parts.append(urllib.parse.quote(k, safe="") + "=" + urllib.parse.quote(v, safe=""))
    return "&".join(parts)


def rand_body(rng):
    return rng.choice([
        b"", b"{", b"null", b"[]", b"{}", b'{"ops": [1, 2]}', b'{"ops": null}',
        b'{"classes": ["same_shape"], "dtypes": ["float32"], "ops": ["nope"]}',
        b"[" * 5000 + b"]" * 5000, b'{"a": 1e999999}', b'"\\ud800"',
        bytes(rng.randrange(256) for _ in range(rng.randrange(0, 2000))),
        json.dumps({"ops": [rand_text(rng, 20) for _ in range(rng.randrange(0, 50))]}).encode(),
    ])


# The host's scope, float32 x same_shape, so that the lists, /ops/{name} and
# /cases/{id} have data: a daemon on a copy of the session's screen of it
# (shared_screen); each test reads and changes that copy only.
SCOPE = F32_WHOLE


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory, daemon_bin):
    src, _ = shared_screen(tmp_path_factory, "f32-same-shape", **SCOPE)
    d = daemon_on_copy(tmp_path_factory.mktemp("fuzz"), src, **SCOPE)
    try:
        d.start()
        d.wait_fingerprint()
        yield d
    finally:
        d.stop()


def _runs(d):
    db = sqlite3.connect(d.db)
    try:
        return db.execute("SELECT count(*) FROM runs").fetchone()[0]
    finally:
        db.close()


def test_random_requests_never_hurt(fuzzed):
    d = fuzzed
    runs = _runs(d)
    rng = random.Random(20261130)
    statuses = {}
    for i in range(400):
        path = rng.choice(PATHS)
        q = rand_query(rng)
        method = rng.choice(["GET", "GET", "POST", "DELETE", "PUT", "HEAD", "PATCH"])
        body = rand_body(rng) if method in ("POST", "PUT", "PATCH") else None
        token = rng.choice([None, d.token, "x", d.token + "x", ""])
        if method == "POST" and path == "/runs" and token == d.token:
            token = "wrong"       # bounded work: no run is actually started
        if method == "DELETE" and token == d.token:
            token = None
        st, ctype, resp = d.request(method, path + ("?" + q if q else ""), body,
                                    token=token)
        statuses[st] = statuses.get(st, 0) + 1
        assert 200 <= st < 600, (method, path, q, st)
        if st >= 400 and method != "HEAD":
            assert ctype == "application/json", (method, path, q, st, resp[:200])
            assert "error" in json.loads(resp), resp[:200]
    # raw bytes that are not HTTP at all
    for i in range(30):
        with socket.create_connection(("127.0.0.1", d.port), timeout=5) as s:
            s.sendall(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 3000))))
            try:
                s.recv(4096)
            except OSError:
                pass
    assert d.proc.poll() is None, d.logtext()
    assert d.get("/healthz")[0] == 200
    assert sum(v for k, v in statuses.items() if 400 <= k < 500) > 100
    db = sqlite3.connect(d.db)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()
    assert _runs(d) == runs      # nothing it sent started a run


# ---- property-based: every operation of web/openapi.json, by schemathesis ----

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMATHESIS = os.path.join(os.path.dirname(sys.executable), "schemathesis")
# not_a_server_error: no 5xx, no dropped connection; the conformance checks:
# every status, content type and body is one the description gives;
# negative_data_rejection: what the description forbids gets a 4xx
CHECKS = ("not_a_server_error,status_code_conformance,content_type_conformance,"
          "response_schema_conformance,negative_data_rejection")


def test_every_operation_fuzzed_from_the_description(fuzzed, tmp_path):
    # POST /runs gets the token: what it queues is bounded by QUEUED_RUNS_MAX
    # (then 429) and each full run of this scope takes seconds
    d = fuzzed
    base = f"http://127.0.0.1:{d.port}"
    # its work is bounded by count (--max-examples per operation, one
    # seed, no shrinking), not by a clock a loaded machine can miss; the
    # timeout only ends a hang
    t0 = time.monotonic()
    p = subprocess.run(
        [SCHEMATHESIS, "--config-file", os.path.join(HERE, "schemathesis.toml"),
         "run", base + "/openapi.json", "--url", base,
         "-H", "Authorization: Bearer " + d.token, "--checks", CHECKS,
         "--max-examples", "25", "--seed", "20261201", "--workers", "1",
         "--request-timeout", "10", "--no-shrink", "--warnings", "off"],
        cwd=tmp_path, capture_output=True, text=True, timeout=1200,
        env=dict(os.environ, NO_COLOR="1"))
    took = time.monotonic() - t0
    assert p.returncode == 0, p.stdout[-8000:] + p.stderr[-2000:] + f"\n{took:.0f} s"
    # every operation tested (schemathesis leaves out /openapi.json itself)
    m = re.search(r"Selected: (\d+)/(\d+)\s+Tested: (\d+)", p.stdout)
    assert m and m.group(1) == m.group(2) == m.group(3), p.stdout[-3000:]
    assert int(m.group(3)) >= 16, m.group(0)
    assert d.proc.poll() is None, d.logtext()
    db = sqlite3.connect(d.db)
    active = db.execute("SELECT count(*) FROM runs WHERE state IN "
                        "('queued', 'running')").fetchone()[0]
    assert active <= 4 + 1, active          # QUEUED_RUNS_MAX queued, one running
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()
