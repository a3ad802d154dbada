"""Running under systemd: the daemon's sd_notify protocol (READY=1, WATCHDOG=1,
STOPPING=1) on a NOTIFY_SOCKET of the test's own, `make install` and
`systemd-analyze verify` on the installed units."""
import os
import shutil
import signal
import socket
import subprocess
import time

import pytest

from e2e_harness import DAEMON, ROOT, Daemon, installed_host_kernels

UNITS = ["opscreend.service", "opscreen-nightly.service", "opscreen-nightly.timer"]


def read_notes(sock, want, timeout):
    """Datagrams until one holds the line `want`; all of them, in order."""
    got = []
    deadline = time.time() + timeout
    while time.time() < deadline:
        sock.settimeout(max(0.05, deadline - time.time()))
        try:
            msg = sock.recv(4096).decode()
        except socket.timeout:
            break
        got.append(msg)
        if want in msg.split("\n"):
            return got
    raise AssertionError(f"no {want} within {timeout} s; got {got!r}")


def test_notify_ready_watchdog_stopping(tmp_path, daemon_bin):
    d = Daemon(tmp_path / "d")
    path = str(tmp_path / "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    env = dict(os.environ, NOTIFY_SOCKET=path, WATCHDOG_USEC="2000000")
    env.pop("WATCHDOG_PID", None)   # when set it must be the daemon's pid
    log = open(d.log, "ab")
    proc = subprocess.Popen([DAEMON, "-d", "-c", d.conf], env=env, cwd=d.tmp,
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        notes = read_notes(sock, "READY=1", 20)
        ready = notes[-1]
        assert any(l.startswith("STATUS=") for l in ready.split("\n")), ready
        # ready means ready: the API answers now, not a moment later
        assert d.get("/healthz")[0] == 200
        # 2 s interval: petted every second, so two arrive within 3 s
        read_notes(sock, "WATCHDOG=1", 3)
        read_notes(sock, "WATCHDOG=1", 3)
        proc.send_signal(signal.SIGTERM)
        read_notes(sock, "STOPPING=1", 10)
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()
        sock.close()


def test_no_watchdog_without_watchdog_usec(tmp_path, daemon_bin):
    d = Daemon(tmp_path / "d")
    path = str(tmp_path / "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    env = dict(os.environ, NOTIFY_SOCKET=path)
    env.pop("WATCHDOG_USEC", None)
    env.pop("WATCHDOG_PID", None)
    log = open(d.log, "ab")
    proc = subprocess.Popen([DAEMON, "-c", d.conf], env=env, cwd=d.tmp,
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        read_notes(sock, "READY=1", 20)
        sock.settimeout(2.5)
        with pytest.raises(socket.timeout):
            msg = sock.recv(4096).decode()
            raise AssertionError(f"unexpected notification {msg!r}")
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()
        sock.close()


def test_runs_without_notify_socket(make_daemon):
    # NOTIFY_SOCKET unset (make run, the e2e harness): sd_notify is a no-op
    d = make_daemon().start()
    assert d.get("/healthz")[0] == 200


def make_install(destdir, prefix):
    r = subprocess.run(["make", "-s", "install", f"DESTDIR={destdir}",
                        f"PREFIX={prefix}"], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr


def test_make_install(tmp_path):
    dest = tmp_path / "root"
    make_install(dest, "/usr/local")
    pre = dest / "usr/local"
    for f in ["sbin/opscreend", "bin/opscreenctl"]:
        assert os.access(pre / f, os.X_OK), f
    for f in ["share/opscreen/probes/opscreen_runner/__main__.py",
              "lib/opscreen/libopscreen_kernels_host.so",
              "lib/sysusers.d/opscreen.conf",
              "share/man/man8/opscreend.8", "share/man/man1/opscreenctl.1",
              "share/man/man5/opscreen.conf.5"]:
        assert (pre / f).is_file(), f
    # production installs no demo library (make install-demolib does), no
    # web/ (embedded in opscreend) and nothing architecture-dependent in share/
    assert not (pre / "share/opscreen/demolib").exists()
    assert not (pre / "share/opscreen/web").exists()
    assert not list((pre / "share").rglob("*.so")), list((pre / "share").rglob("*.so"))
    # the installed runner finds the host library under lib/opscreen
    assert (installed_host_kernels(pre / "share/opscreen/probes", tmp_path) ==
            str(pre / "lib/opscreen/libopscreen_kernels_host.so"))
    for u in UNITS:
        text = (pre / "lib/systemd/system" / u).read_text()
        assert "@PREFIX@" not in text, u
    svc = (pre / "lib/systemd/system/opscreend.service").read_text()
    assert ("ExecStart=/usr/local/sbin/opscreend -c /etc/opscreen/opscreen.conf"
            in svc.splitlines())
    assert "Type=notify" in svc.splitlines()
    night = (pre / "lib/systemd/system/opscreen-nightly.service").read_text()
    assert "ExecStart=/usr/local/bin/opscreenctl run" in night.splitlines()
    conf = dest / "etc/opscreen/opscreen.conf"
    lines = conf.read_text().splitlines()
    # the runner only: the configuration never names the demo library
    assert "runner_path = /usr/local/share/opscreen/probes" in lines
    assert not [l for l in lines if "demolib" in l and not l.startswith("#")]
    assert "database = /var/lib/opscreen/opscreen.db" in lines
    assert "token_file = /etc/opscreen/token" in lines
    # never the demo library in place of flag_gems (a fault serves 503)
    assert "library = flag_gems" in lines
    # systemd creates /var/lib/opscreen (StateDirectory=) when it starts the
    # daemon: -n is checked here with the database in a directory that exists
    # and a token of its own: the host's /etc/opscreen/token is not the test's
    tok = tmp_path / "token"
    tok.write_text("t" * 32 + "\n")
    tok.chmod(0o600)
    r = subprocess.run([str(pre / "sbin/opscreend"), "-n", "-c", str(conf),
                        "-o", f"daemon.database={tmp_path}/opscreen.db",
                        "-o", f"daemon.token_file={tok}"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    # an existing configuration is the operator's: a second install keeps it
    conf.write_text(conf.read_text() + "# edited\n")
    make_install(dest, "/usr/local")
    assert conf.read_text().endswith("# edited\n")


def test_make_install_demolib(tmp_path):
    dest = tmp_path / "root"
    r = subprocess.run(["make", "-s", "install-demolib", f"DESTDIR={dest}",
                        "PREFIX=/usr/local"], cwd=ROOT, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    share = dest / "usr/local/share/opscreen"
    got = sorted(str(p.relative_to(dest)) for p in dest.rglob("*") if p.is_file())
    want = sorted(f"usr/local/share/opscreen/demolib/opscreen_demolib/{f}"
                  for f in os.listdir(os.path.join(ROOT, "tests/demolib/opscreen_demolib"))
                  if f.endswith(".py"))
    assert got == want
    assert (share / "demolib/opscreen_demolib/__init__.py").is_file()


def test_systemd_analyze_verify(tmp_path):
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is missing (Debian package systemd; "
                    "`make deps` installs it): units not verified")
    dest = tmp_path / "root"
    make_install(dest, "/usr")
    # verify wants the ExecStart= binaries to exist: point at the copy in dest
    units = tmp_path / "units"
    units.mkdir()
    for u in UNITS:
        text = (open(os.path.join(ROOT, "systemd", u)).read()
                .replace("@PREFIX@", str(dest / "usr")))
        (units / u).write_text(text)
    r = subprocess.run(["systemd-analyze", "verify", "--man=no", *UNITS],
                       cwd=units, capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, SYSTEMD_LOG_LEVEL="notice"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Unknown key" not in r.stderr, r.stderr


def test_units_hardening_and_nightly_condition(tmp_path):
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is missing (Debian package systemd; "
                    "`make deps` installs it): exposure not measured")
    units = tmp_path / "units"
    units.mkdir()
    for u in UNITS:
        (units / u).write_text(open(os.path.join(ROOT, "systemd", u)).read()
                               .replace("@PREFIX@", "/usr"))
    for u in ("opscreend.service", "opscreen-nightly.service"):
        r = subprocess.run(["systemd-analyze", "security", "--offline=yes", u],
                           cwd=units, capture_output=True, text=True,
                           timeout=120)
        line = [l for l in r.stdout.splitlines() if "Overall exposure" in l]
        assert line, r.stdout + r.stderr
        exposure = float(line[0].split(":")[1].split()[0])
        assert exposure < 3.0, (u, line[0])
    svc = (units / "opscreend.service").read_text().splitlines()
    for want in ("ExecReload=/bin/kill -HUP $MAINPID", "CapabilityBoundingSet=",
                 "SystemCallArchitectures=native", "ProtectProc=invisible",
                 "ProcSubset=pid", "IPAddressDeny=any",
                 "IPAddressAllow=localhost", "DevicePolicy=closed",
                 "DeviceAllow=/dev/nvidiactl rw"):
        assert want in svc, want
    night = (units / "opscreen-nightly.service").read_text().splitlines()
    # an administrator's `systemctl stop opscreend` holds: no Requires= that
    # would start the daemon again, a condition that skips the night instead
    assert not any(l.startswith(("Requires=", "BindsTo=", "Wants="))
                   for l in night), night
    assert ("ExecCondition=/bin/systemctl is-active --quiet opscreend.service"
            in night)
