"""What an operator expects of a Unix daemon: --help and --version, a process
title that shows the command line as typed, SIGHUP (systemctl reload) that
checks the configuration without stopping anything, syslog priorities on
journald's stream, and screen progress in `systemctl status` (STATUS=)."""
import os
import signal
import socket
import subprocess
import time

from e2e_harness import DAEMON, Daemon

CTL = os.path.join(os.path.dirname(DAEMON), "opscreenctl")


def wait_log(d, text, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if text in d.logtext():
            return
        time.sleep(0.1)
    raise AssertionError(f"{text!r} not logged:\n" + d.logtext())


def test_help_and_version_exit_zero(daemon_bin):
    for prog in (DAEMON, CTL):
        name = os.path.basename(prog)
        r = subprocess.run([prog, "--help"], capture_output=True, text=True)
        assert r.returncode == 0, (name, r.stderr)
        assert r.stdout.startswith(f"usage: {name}"), r.stdout
        assert "--version" in r.stdout and "--help" in r.stdout
        r = subprocess.run([prog, "--version"], capture_output=True, text=True)
        assert r.returncode == 0, (name, r.stderr)
        assert r.stdout.split()[0] == name and r.stdout.split()[1][0].isdigit()
        # a wrong option still fails, with the usage on stderr
        r = subprocess.run([prog, "--no-such-option"], capture_output=True,
                           text=True)
        assert r.returncode == 2 and "usage:" in r.stderr, r


def test_daemon_synopsis_documents_every_short_option(daemon_bin):
    out = subprocess.run([DAEMON, "--help"], capture_output=True,
                         text=True).stdout
    for opt in ("-c", "-n", "-d", "-o", "-s", "-h", "-V"):
        assert f"  {opt}," in out, opt


def test_overrides_keep_the_process_title(tmp_path, daemon_bin):
    d = Daemon(tmp_path / "d")
    d.logf = open(d.log, "ab")
    d.proc = subprocess.Popen([DAEMON, "-c", d.conf, "-o",
                               f"daemon.port={d.port}"], stdout=d.logf,
                              stderr=subprocess.STDOUT, cwd=d.tmp)
    try:
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                if d.get("/healthz")[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.1)
        with open(f"/proc/{d.proc.pid}/cmdline", "rb") as f:
            argv = f.read().split(b"\0")
        assert f"daemon.port={d.port}".encode() in argv, argv
    finally:
        d.stop()


def test_sighup_checks_the_configuration_and_keeps_serving(tmp_path,
                                                           daemon_bin):
    d = Daemon(tmp_path / "d").start()
    try:
        d.proc.send_signal(signal.SIGHUP)
        wait_log(d, "is valid and the same as the running configuration")
        assert d.get("/healthz")[0] == 200
        text = open(d.conf).read()
        with open(d.conf, "w") as f:
            f.write(text.replace("case_deadline = 8", "case_deadline = 9"))
        d.proc.send_signal(signal.SIGHUP)
        wait_log(d, "differs from the running configuration; restart")
        with open(d.conf, "w") as f:
            f.write(text + "bogus line without equals\n")
        d.proc.send_signal(signal.SIGHUP)
        wait_log(d, "error(s); the daemon goes on with the configuration "
                 "it started with")
        bad = len(text.splitlines()) + 1
        assert f"opscreen.conf:{bad}: syntax error" in d.logtext()
        # still the same process, still serving
        assert d.proc.poll() is None
        assert d.get("/healthz")[0] == 200
    finally:
        d.stop()


def test_syslog_priorities_on_journald_stream(tmp_path, daemon_bin):
    d = Daemon(tmp_path / "d")
    # a regular file stands in for journald's stream: JOURNAL_STREAM names
    # its device and inode, as systemd sets it for a service's stderr
    logf = open(d.log, "ab")
    st = os.fstat(logf.fileno())
    env = dict(os.environ, JOURNAL_STREAM=f"{st.st_dev}:{st.st_ino}")
    d.logf = logf
    # -o with a listen off loopback logs a warning at start-up
    d.proc = subprocess.Popen([DAEMON, "-c", d.conf, "-o",
                               "daemon.listen=0.0.0.0"], env=env,
                              stdout=logf, stderr=subprocess.STDOUT,
                              cwd=d.tmp)
    try:
        wait_log(d, "listening on")
        lines = [l for l in d.logtext().splitlines() if l]
        assert lines and all(l[0] == "<" and l[2] == ">" for l in lines), lines
        assert any(l.startswith("<4>warning: listen = 0.0.0.0") for l in lines)
        assert any(l.startswith("<6>info: ") for l in lines)
    finally:
        d.stop()
    # not journald's stream (another inode): the plain timestamped lines
    d2 = Daemon(tmp_path / "d2", env={"JOURNAL_STREAM": "1:1"}).start()
    try:
        first = d2.logtext().splitlines()[0]
        assert first[:4].isdigit() and " opscreend " in first, first
    finally:
        d2.stop()


def test_status_shows_screen_progress(tmp_path, daemon_bin):
    d = Daemon(tmp_path / "d")
    path = str(tmp_path / "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    d.env["NOTIFY_SOCKET"] = path
    d.start()
    try:
        d.wait_fingerprint()
        st, out = d.post_run({"ops": ["abs"], "classes": ["same_shape"],
                              "dtypes": ["float32"]})
        assert st == 202, out
        notes = []
        deadline = time.time() + 120
        while time.time() < deadline:
            sock.settimeout(1)
            try:
                notes.append(sock.recv(4096).decode())
            except socket.timeout:
                continue
            if any(f"STATUS=run {out['run']} complete" in n for n in notes):
                break
        progress = [n for n in notes if f"STATUS=screening run {out['run']}:" in n]
        assert progress, notes
        assert " of " in progress[0] and " cases" in progress[0], progress
        done = [i for i, n in enumerate(notes) if f"STATUS=run {out['run']} complete" in n]
        assert done, notes
        # a run start and end are sent at once, not at the next tick of the
        # throttle: even a run shorter than it shows as screening first
        assert notes.index(progress[0]) < done[0], notes
    finally:
        d.stop()
        sock.close()


MAN = os.path.join(os.path.dirname(os.path.dirname(DAEMON)), "man")


def test_man_pages_lint_clean_and_complete(daemon_bin):
    import re
    import shutil
    import pytest
    if shutil.which("mandoc") is None:
        pytest.skip("mandoc is missing (Debian package mandoc; `make deps` "
                    "installs it): man pages not linted")
    pages = ["opscreend.8", "opscreenctl.1", "opscreen.conf.5"]
    for p in pages:
        r = subprocess.run(["mandoc", "-Tlint", "-W", "warning",
                            os.path.join(MAN, p)], capture_output=True,
                           text=True)
        assert r.returncode == 0 and r.stdout == "", (p, r.stdout, r.stderr)
    # every option of each program's --help is in its page
    for prog, page in ((DAEMON, "opscreend.8"), (CTL, "opscreenctl.1")):
        text = open(os.path.join(MAN, page)).read()
        usage = subprocess.run([prog, "--help"], capture_output=True,
                               text=True).stdout
        for opt in sorted(set(re.findall(r"--[a-z][a-z-]+", usage))):
            assert ("Fl \\" + opt) in text or ("Fl \\-" + opt[2:]) in text, \
                (page, opt)
    # every configuration key the daemon accepts is in opscreen.conf(5)
    src = open(os.path.join(os.path.dirname(MAN), "daemon", "config.c")).read()
    conf5 = open(os.path.join(MAN, "opscreen.conf.5")).read()
    sections = re.split(r"^\.Ss ", conf5, flags=re.M)
    for key in re.findall(r'IS\("([a-z_]+)\.([a-z_]+)"\)', src):
        sect = [s for s in sections if s.startswith(f"[{key[0]}]")]
        assert sect and f".It Cm {key[1]} " in sect[0], key


def test_make_install_installs_the_man_pages(tmp_path):
    r = subprocess.run(["make", "-s", "install", f"DESTDIR={tmp_path}",
                        "PREFIX=/usr"], cwd=os.path.dirname(MAN),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    for p in ("man1/opscreenctl.1", "man5/opscreen.conf.5",
              "man8/opscreend.8"):
        assert (tmp_path / "usr/share/man" / p).is_file(), p
