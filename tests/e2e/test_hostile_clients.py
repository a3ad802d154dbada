"""Hostile and broken clients, over raw sockets on loopback: slow connections
wait at the front door (daemon/door.c) without holding a connection slot, a
slow sender is cut after api.header_timeout (its head) or api.request_timeout
(its body), and every request gets a JSON answer, never silence or HTML: the
ones libmicrohttpd would answer itself are answered at the door.
Every loop is bounded; the daemon listens on 127.0.0.1 and the attacker binds
127.0.0.2 (all of 127/8 is loopback on Linux)."""
import json
import os
import re
import socket
import time

import pytest

from e2e_harness import Daemon


def raw(port, data, timeout=10.0):
    """Sends data, reads until the server closes; (seconds, status, headers,
    body) with status None when no HTTP answer came."""
    t0 = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        out = b""
        try:
            while True:
                b = s.recv(65536)
                if not b:
                    break
                out += b
        except (socket.timeout, ConnectionResetError):
            pass
    took = time.monotonic() - t0
    if not out.startswith(b"HTTP/1."):
        return took, None, {}, out
    head, _, body = out.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, v in
               (ln.split(":", 1) for ln in lines[1:] if ":" in ln)}
    return took, int(lines[0].split()[1]), headers, body


def assert_json_4xx(result, status=400):
    took, st, headers, body = result
    assert st == status, (st, body[:300])
    assert headers.get("content-type") == "application/json", headers
    doc = json.loads(body)
    assert doc["status"] == status and isinstance(doc["error"], str), doc
    assert took < 5, took
    return doc


def get(path, extra=b""):
    return (b"GET " + path + b" HTTP/1.1\r\nHost: localhost\r\n" + extra +
            b"Connection: close\r\n\r\n")


def healthz_ok(port, timeout=5.0):
    try:
        _, st, _, _ = raw(port, get(b"/healthz"), timeout=timeout)
        return st == 200
    except OSError:
        return False


@pytest.fixture(scope="module")
def plain(tmp_path_factory, daemon_bin):
    """A daemon of the shipped configuration, for the tests that only send
    it requests (a daemon each cost a runner pool's imports)."""
    d = Daemon(tmp_path_factory.mktemp("hostile")).start()
    yield d
    d.stop()


@pytest.fixture(scope="module")
def quick(tmp_path_factory, daemon_bin):
    """A daemon whose requests must arrive within 3 s (api.request_timeout,
    api.header_timeout)."""
    d = Daemon(tmp_path_factory.mktemp("quick"), api__request_timeout=3,
               api__header_timeout=3).start()
    yield d
    d.stop()


def test_slow_connections_of_one_address_keep_nobody_out(quick):
    """600 connections from one loopback address that never finish their
    request head: every client of a loopback daemon has the same address, so
    no per-address limit refuses them; they wait at the front door, holding
    none of the 256 connection slots, the oldest closed past 512 waiting,
    and each answered 408 once api.header_timeout (3 s) has passed. Complete
    requests get in meanwhile."""
    d = quick
    held = []
    try:
        for _ in range(600):
            s = socket.socket()
            s.settimeout(5)
            s.bind(("127.0.0.2", 0))
            try:
                s.connect(("127.0.0.1", d.port))
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                held.append(s)
            except OSError:
                s.close()
        assert len(held) == 600
        answered = sum(healthz_ok(d.port) for _ in range(6))
        assert answered == 6, (answered, d.logtext())

        def state(s):
            s.setblocking(False)
            try:
                b = s.recv(4096)
                return "408" if b.startswith(b"HTTP/1.1 408") else \
                    "closed" if b == b"" else "other"
            except BlockingIOError:
                return "waiting"
            except OSError:
                return "closed"
        # the oldest past the door's 512 were closed, none answered yet
        first = [state(s) for s in held]
        assert first.count("other") == 0, first
        assert first.count("closed") >= 600 - 512, first.count("closed")
        # past the header deadline every one is answered 408 and closed
        deadline = time.monotonic() + 60
        waiting = [s for s, st in zip(held, first) if st == "waiting"]
        got = {}
        while waiting and time.monotonic() < deadline:
            time.sleep(0.2)
            for s in list(waiting):
                st = state(s)
                if st != "waiting":
                    got[st] = got.get(st, 0) + 1
                    waiting.remove(s)
        assert not waiting and set(got) == {"408"}, (len(waiting), got)
    finally:
        for s in held:
            s.close()
    assert d.proc.poll() is None
    assert healthz_ok(d.port)
    # counted in the log, never a line per connection
    deadline = time.monotonic() + 30
    while "without a complete request head" not in d.logtext() and \
            time.monotonic() < deadline:
        time.sleep(0.2)
    log = d.logtext()
    assert "without a complete request head" in log, log[-2000:]
    assert log.count("http:") < 20, log[-3000:]


@pytest.mark.parametrize("what", ["header", "body"])
def test_a_slow_sender_is_cut_after_the_request_timeout(quick, what):
    # a byte every 0.5 s beats the idle timeout (10 s) for ever; the request
    # deadline (3 s here) does not care
    d = quick
    said_what = "without a complete request head within api.header_timeout" \
        if what == "header" else "did not send a request within api.request_timeout"
    logged = d.logtext().count(said_what)
    s = socket.create_connection(("127.0.0.1", d.port), timeout=2)
    t0 = time.monotonic()
    cut = None
    if what == "header":
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    else:
        s.sendall(b"POST /runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                  d.token.encode() + b"\r\nContent-Length: 1000\r\n\r\n{")
    try:
        while time.monotonic() - t0 < 15:
            time.sleep(0.5)
            s.sendall(b"a")
            s.setblocking(False)
            try:
                if s.recv(4096) == b"":
                    cut = time.monotonic() - t0
                    break
            except BlockingIOError:
                pass
            finally:
                s.setblocking(True)
    except OSError:
        cut = time.monotonic() - t0
    s.close()
    assert cut is not None, "a slow sender kept its connection for 15 s"
    assert 2.5 < cut < 6, cut
    assert healthz_ok(d.port)
    deadline = time.monotonic() + 30

    def said():
        return d.logtext().count(said_what)
    while said() == logged and time.monotonic() < deadline:
        time.sleep(0.1)
    assert said() > logged, d.logtext()[-2000:]
    if what == "body":
        assert d.get_json("/runs")[1]["runs"] == []


def test_each_answer_closes_its_connection(quick):
    """One request per connection, so that every request passes the front
    door: each answer says Connection: close and the daemon closes. Twelve
    requests 0.5 s apart, each on its own connection, twice the 3 s request
    deadline in all, are all answered."""
    d = quick
    for _ in range(12):
        took, st, headers, body = raw(d.port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert st == 200 and headers.get("connection") == "close", (st, headers)
        assert took < 5, took       # closed by the daemon, not by raw's timeout
        time.sleep(0.5)


BAD = {
    "path not UTF-8": get(b"/\xff\xfe"),
    "path with a cut sequence": get(b"/ops/\xc3"),
    "escaped path not UTF-8": get(b"/ops/%ff%fe"),
    "query value not UTF-8": get(b"/allowlist?format=%ff"),
    "query key not UTF-8": get(b"/allowlist?%c3=1"),
    "query value with a NUL": get(b"/allowlist?format=json%00yaml"),
    "query raw bytes not UTF-8": get(b"/allowlist?dtypes=\xe9"),
    "a parameter given twice": get(b"/allowlist?format=json&format=yaml"),
    "1,000 parameters": get(b"/allowlist?" + b"&".join(
        b"a%d=1" % i for i in range(1000))),
    "4,000 parameters": get(b"/healthz?" + b"&".join([b"p"] * 4000)),
    "8,000 empty parameters": get(b"/metrics?" + b"&" * 8000),
    "HTTP/1.1 without Host": b"GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n",
    "two Host headers": b"GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n"
                        b"Connection: close\r\n\r\n",
}


@pytest.mark.parametrize("name", list(BAD))
def test_a_broken_request_gets_a_json_400(plain, name):
    assert_json_4xx(raw(plain.port, BAD[name]))
    assert plain.proc.poll() is None


def test_an_error_message_cut_inside_a_character_still_answers(plain):
    # "no such endpoint: /xé..." is longer than the 1 KiB message buffer: the
    # cut falls inside a two-byte character
    for pad in (b"", b"a"):
        doc = assert_json_4xx(raw(plain.port, get(b"/x" + pad + "é".encode() * 600)),
                              404)
        assert doc["error"].startswith("no such endpoint: /x"), doc


# What libmicrohttpd 0.9.75 answered itself, in HTML, twice, or not at all:
# the front door answers each in the JSON error form, at once.
EDGES = {
    "a target past 8 KiB": (get(b"/allowlist?format=" + b"j" * 9000), 414),
    "a request line past the connection memory": (
        get(b"/allowlist?format=" + b"j" * 40000), 414),
    "a head past 16 KiB": (get(b"/healthz", b"X-Big: " + b"a" * 20000 + b"\r\n"), 431),
    "many headers past 16 KiB": (get(b"/healthz", b"X-A: b\r\n" * 3000), 431),
    "Content-Length not a number": (
        b"POST /runs HTTP/1.1\r\nHost: x\r\nContent-Length: 12abc\r\n\r\n{}", 400),
    "Content-Length negative": (
        b"POST /runs HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n{}", 400),
    "Content-Length empty": (
        b"POST /runs HTTP/1.1\r\nHost: x\r\nContent-Length: \r\n\r\n{}", 400),
    "Content-Length past 18 digits": (
        b"POST /runs HTTP/1.1\r\nHost: x\r\nContent-Length: 1234567890123456789\r\n\r\n", 400),
    "Transfer-Encoding gzip": (
        b"POST /runs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\nabc", 501),
    "Transfer-Encoding gzip, chunked": (
        b"POST /runs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
        b"0\r\n\r\n", 501),
    "a request line of one word": (b"GET\r\nHost: x\r\n\r\n", 400),
    "a header line without a colon": (get(b"/healthz", b"NoColonHere\r\n"), 400),
    "a folded header line": (get(b"/healthz", b"X-A: b\r\n  folded\r\n"), 400),
    # bytes that cannot begin a request: answered at once, not after the
    # header deadline (5 s; assert_json_4xx wants the answer within it)
    "a TLS hello on the plain port": (b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03", 400),
    "JSON where a request line goes": (b'{"ops": ["add"]', 400),
    "a version that is not HTTP": (b"GET /healthz FOO/1.1\r\nHost: x\r\n", 400),
}


@pytest.mark.parametrize("name", list(EDGES))
def test_a_protocol_edge_gets_one_json_answer_at_once(plain, name):
    req, status = EDGES[name]
    took, st, headers, body = raw(plain.port, req)
    assert_json_4xx((took, st, headers, body), status)
    # one status line, one JSON document: nothing of libmicrohttpd's own
    assert body.count(b"HTTP/1.") == 0 and b"<html" not in body, body[:300]
    assert headers.get("connection") == "close", headers
    assert plain.proc.poll() is None
    st, runs = plain.get_json("/runs")
    assert st == 200 and runs["runs"] == [], runs


def test_http_1_0_without_host_is_fine(plain):
    _, st, _, _ = raw(plain.port, b"GET /healthz HTTP/1.0\r\n\r\n")
    assert st == 200


@pytest.mark.parametrize("framing", [
    b"Content-Length: 2\r\nContent-Length: 40\r\n",
    b"Content-Length: 2\r\nContent-Length: 2\r\n",
    b"Content-Length: 40\r\nTransfer-Encoding: chunked\r\n",
])
def test_ambiguous_framing_is_refused_and_queues_nothing(plain, framing):
    body = b'{}' + b' ' * 38
    req = (b"POST /runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
           plain.token.encode() + b"\r\n" + framing +
           b"Connection: close\r\n\r\n" + body)
    assert_json_4xx(raw(plain.port, req))
    st, runs = plain.get_json("/runs")
    assert st == 200 and runs["runs"] == [], runs


def _kernel_at_least(major, minor):
    v = os.uname().release.split("-")[0].split(".")
    return (int(v[0]), int(v[1])) >= (major, minor)


def _slice_allowed():
    """Whether this process may set itself a custom slice (x86-64
    sched_setattr, number 314), as the daemon's HTTP threads do; a thread of
    its own asks, so that the test's main thread keeps its slice."""
    import ctypes
    import platform
    import threading

    class Attr(ctypes.Structure):
        _fields_ = [("size", ctypes.c_uint32), ("policy", ctypes.c_uint32),
                    ("flags", ctypes.c_uint64), ("nice", ctypes.c_int32),
                    ("priority", ctypes.c_uint32), ("runtime", ctypes.c_uint64),
                    ("deadline", ctypes.c_uint64), ("period", ctypes.c_uint64)]

    if platform.machine() != "x86_64":
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    a = Attr(size=ctypes.sizeof(Attr), policy=0, runtime=100000,
             nice=os.getpriority(os.PRIO_PROCESS, 0))
    ok = []
    t = threading.Thread(target=lambda: ok.append(
        libc.syscall(314, 0, ctypes.byref(a), 0) == 0))
    t.start()
    t.join()
    return ok == [True]


def test_http_threads_ask_for_a_short_time_slice(plain):
    """A list request preempts the daemon's own screening work: each HTTP
    thread that has served a connection runs with a 0.1 ms EEVDF slice
    (sched_setattr's sched_runtime, Linux 6.12+); the main loop keeps the
    default one."""
    if not _kernel_at_least(6, 12):
        pytest.skip(f"kernel {os.uname().release}: no custom slices before 6.12")
    if not _slice_allowed():
        pytest.skip("sched_setattr with a custom slice is refused here "
                    "(a seccomp profile or another architecture)")
    for _ in range(16):		# reach every thread of the pool
        status, _ = plain.get_json("/healthz")
        assert status == 200
    slices = {}
    for tid in os.listdir(f"/proc/{plain.proc.pid}/task"):
        base = f"/proc/{plain.proc.pid}/task/{tid}"
        try:
            comm = open(f"{base}/comm").read().strip()
            sched = open(f"{base}/sched").read()
        except OSError:
            continue
        m = re.search(r"^se\.slice\s*:\s*(\d+)", sched, re.M)
        if m is None:
            pytest.skip("this kernel shows no se.slice in /proc/PID/sched")
        slices.setdefault(comm, []).append(int(m.group(1)))
    http = [s for comm, v in slices.items() if comm.startswith("MHD") for s in v]
    assert 100000 in http, slices
    assert all(s != 100000 for s in slices["opscreend"]), slices
