"""The daemon's process lifecycle: one daemon per database, a daemon that
cannot start writes nothing, runners (and their process groups) die with the
daemon, and a host that cannot screen what it is set up for serves no list."""
import os
import shutil
import signal
import sqlite3
import subprocess
import time

import pytest

from e2e_harness import DAEMON, ROOT, Daemon


def _proc_stat(pid):
    """(state, ppid, pgid) of pid, None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[0], int(fields[1]), int(fields[2])


def _alive(pid):
    st = _proc_stat(pid)
    return st is not None and st[0] not in ("Z", "X")


def _processes():
    out = {}
    for p in os.listdir("/proc"):
        if p.isdigit() and (st := _proc_stat(int(p))) is not None:
            out[int(p)] = st
    return out


def _store_rows(db_path):
    db = sqlite3.connect(db_path)
    try:
        return {t: db.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall()
                for t in ("events", "results", "runs")}
    finally:
        db.close()


def _wait_running(d, run, cases=1, timeout=600):
    deadline = time.time() + timeout
    while time.time() < deadline:
        st, r = d.get_json(f"/runs/{run}")
        if r["state"] == "running" and r["total"] and r["done"] >= cases:
            return r
        assert r["state"] in ("queued", "running"), r
        time.sleep(0.05)
    raise AssertionError(f"run {run} did not start: {r}")


def _refused(cmd, cwd, timeout=30):
    """Runs a daemon that must refuse to start; returns its stderr."""
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
        raise AssertionError("a second opscreend did not exit: " + out[-3000:])
    assert p.returncode != 0, out
    return out


def test_second_daemon_on_a_database_writes_nothing(tmp_path, daemon_bin):
    """A second opscreend on a database a first one is screening into exits
    at once, saying so, on another port and on the same one; one on another
    database whose port is taken exits too, and neither writes a row (the
    second daemon used to resume the first one's run and record its cases
    again; the one on a taken port wrote run_resumed before failing)."""
    a = Daemon(tmp_path / "a").start()
    try:
        a.wait_fingerprint()
        st, out = a.post_run({})
        assert st == 202, out
        run = out["run"]
        _wait_running(a, run, cases=5)

        for port in ("other", "same"):
            same = {"daemon__port": a.port} if port == "same" else {}
            b = Daemon(tmp_path / f"b-{port}", daemon__database=a.db, **same)
            out = _refused([DAEMON, "-d", "-c", b.conf], b.tmp)
            assert f"database '{a.db}' is in use by another opscreend (pid " \
                f"{a.proc.pid}" in out, out
            assert "run_resumed" not in out and "resuming" not in out, out
        # the same database by a symlink and by a hard link: the lock is
        # the file's, not its path's
        os.symlink(a.db, tmp_path / "link.db")
        os.link(a.db, tmp_path / "hard.db")
        for other in ("link.db", "hard.db"):
            b = Daemon(tmp_path / f"b-{other}", daemon__database=tmp_path / other)
            out = _refused([DAEMON, "-d", "-c", b.conf], b.tmp)
            assert "is in use by another opscreend" in out, (other, out)
            assert "run_resumed" not in out and "resuming" not in out, out
        st, r = a.get_json(f"/runs/{run}")
        assert st == 200 and r["state"] == "running", r

        # another database that holds an interrupted run, on a's port: the
        # port is taken, and nothing is written (no run_resumed, no result)
        c = Daemon(tmp_path / "c", daemon__port=a.port)
        src = sqlite3.connect(a.db)
        dst = sqlite3.connect(c.db)
        src.backup(dst)
        src.close()
        dst.close()
        before = _store_rows(c.db)
        assert [r for r in before["runs"] if r[0] == run][0][1] == "running"
        out = _refused([DAEMON, "-d", "-c", c.conf], c.tmp)
        assert "cannot listen" in out, out
        assert _store_rows(c.db) == before

        # the first daemon went on alone: no case of its run stored twice
        st, r = a.get_json(f"/runs/{run}")
        assert r["state"] == "running", r
    finally:
        a.stop()
    db = sqlite3.connect(a.db)
    n, distinct = db.execute(
        "SELECT count(*), count(DISTINCT r.case_id) FROM results r JOIN cases c "
        "ON c.id = r.case_id WHERE c.run_id=?", (run,)).fetchone()
    resumed = db.execute("SELECT count(*) FROM events WHERE kind='run_resumed'"
                         ).fetchone()[0]
    db.close()
    assert n == distinct and resumed == 0, (n, distinct, resumed)

    # once the first is gone, the lock is free: the run resumes
    a.start()
    try:
        # the API answers before the scheduler has taken the run up again:
        # wait for its progress (a generous bound: a loaded machine)
        deadline = time.monotonic() + 120
        st, r = a.get_json(f"/runs/{run}")
        while "progress" not in r and r.get("state") == "running" and \
                time.monotonic() < deadline:
            time.sleep(0.1)
            st, r = a.get_json(f"/runs/{run}")
        assert r["state"] == "running" and r["progress"]["resumed"] is True, r
    finally:
        a.stop()


def _hanging_library(tmp_path):
    """The demo library whose hanging tanh first starts a child, as Triton
    starts compile workers: it lives in the runner's process group."""
    lib = tmp_path / "lib"
    shutil.copytree(os.path.join(ROOT, "tests", "demolib", "opscreen_demolib"),
                    lib / "opscreen_demolib",
                    ignore=shutil.ignore_patterns("__pycache__"))
    ops = lib / "opscreen_demolib" / "ops.py"
    text = ops.read_text()
    hang = "    # DEFECT (hang): never returns.\n"
    assert hang in text
    ops.write_text(text.replace(hang, hang + (
        "    import subprocess\n"
        "    subprocess.Popen(['sleep', '3600'])\n")))
    return lib


def test_runners_die_with_the_daemon(tmp_path, daemon_bin):
    """kill -9 of opscreend while a runner is inside the hanging case: within
    a few seconds no runner is left, nor any process of its group."""
    lib = _hanging_library(tmp_path)
    d = Daemon(tmp_path / "d", runner__runner_path=f"{ROOT}/probes:{lib}",
               runner__workers_per_device=2, runner__compile_workers=1).start()
    groups = set()
    try:
        d.wait_fingerprint()
        st, out = d.post_run({"ops": ["tanh"], "dtypes": ["float32"]})
        assert st == 202, out
        deadline = time.time() + 60
        while time.time() < deadline:
            procs = _processes()
            runners = {p for p, (_, ppid, _) in procs.items()
                       if ppid == d.proc.pid}
            hanging = [p for p, (_, ppid, pgid) in procs.items()
                       if pgid in runners and ppid in runners and p not in runners
                       and b"sleep" in open(f"/proc/{p}/cmdline", "rb").read()]
            if hanging:
                break
            time.sleep(0.1)
        else:
            raise AssertionError("no runner entered the hanging case: " +
                                 d.logtext())
        groups = {p for p, (_, _, pgid) in _processes().items()
                  if pgid in runners}
        assert runners and len(groups) > len(runners), (runners, groups)
        d.proc.kill()
        d.proc.wait()
        d.logf.close()
        deadline = time.time() + 5
        while time.time() < deadline and any(_alive(p) for p in groups):
            time.sleep(0.05)
        left = {p: _proc_stat(p) for p in groups if _alive(p)}
    finally:
        for p in groups:
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        d.stop()
    assert left == {}, left


def _fault_daemon(tmp_path, **conf):
    d = Daemon(tmp_path, runner__devices="all", **conf)
    try:
        return d.start(healthz=503)
    except BaseException:
        d.stop()
        raise


def _broken_nvml(tmp_path, kind):
    if kind == "missing":
        return str(tmp_path / "no-such-libnvidia-ml.so.1")
    broken = tmp_path / "libnvidia-ml.so.1"
    broken.write_bytes(b"not an ELF file\n")    # a driver/library mismatch
    return str(broken)


@pytest.mark.parametrize("library", ["auto", "demolib", "flag_gems"])
@pytest.mark.parametrize("nvml", ["missing", "broken"])
def test_gpu_host_without_nvml_serves_no_list(tmp_path, daemon_bin, library,
                                              nvml):
    """A host with NVIDIA devices (here: the probed path is made to exist)
    whose NVML does not load screens nothing: /healthz says why with 503,
    every list and POST /runs answer 503 with the reason, the log says it at
    error level, and the demo library's list is never served."""
    node = tmp_path / "nvidiactl"
    node.write_text("")
    d = _fault_daemon(tmp_path / "d", runner__library=library,
                      runner__gpu_host_paths=f"/nonexistent:{node}",
                      runner__nvml_library=_broken_nvml(tmp_path, nvml))
    try:
        _assert_fault(d, f"this host has NVIDIA devices ({node}) but NVML")
    finally:
        d.stop()


def test_real_library_without_a_gpu_serves_no_list(tmp_path, daemon_bin):
    """library = flag_gems on a machine where NVML finds no GPU is not
    screened on the CPU, and the demo library does not take its place."""
    d = _fault_daemon(tmp_path / "d", runner__library="flag_gems",
                      runner__gpu_host_paths="/nonexistent/nvidiactl",
                      runner__nvml_library=_broken_nvml(tmp_path, "missing"))
    try:
        _assert_fault(d, "library = flag_gems needs a GPU and NVML found none")
    finally:
        d.stop()


def test_auto_on_a_machine_without_gpu_screens_the_demo(tmp_path, daemon_bin):
    """library = auto where there is no NVIDIA device and no NVML: the demo
    library, on the CPU, as before."""
    d = Daemon(tmp_path / "d", runner__library="auto", runner__devices="all",
               runner__gpu_host_paths="/nonexistent/nvidiactl",
               runner__nvml_library=_broken_nvml(tmp_path, "missing")).start()
    try:
        h = d.wait_fingerprint()
        assert h["status"] == "ok" and "error" not in h, h
        assert h["devices"][0]["fingerprint"]["library"] == "demolib", h
        assert "screening the bundled demo library" in d.logtext()
    finally:
        d.stop()


def _assert_fault(d, reason):
    st, h = d.get_json("/healthz")
    assert st == 503 and h["status"] == "fault" and reason in h["error"], h
    for path in ("/allowlist", "/denylist", "/allowlist?format=yaml",
                 "/allowlist?format=text", "/allowlist?stale=ok",
                 "/denylist?format=csv"):
        st, ctype, body = d.get(path)
        assert st == 503 and reason.encode() in body, (path, st, body)
        assert b"abs" not in body and b"add" not in body, body
    st, out = d.post_run({})
    assert st == 503 and reason in out["error"], out
    time.sleep(1.5)          # a main-loop turn or two: still nothing spawned
    kids = [p for p, (_, ppid, _) in _processes().items()
            if ppid == d.proc.pid]
    assert kids == [], kids
    log = d.logtext()
    assert any(" error: " in ln and reason in ln for ln in log.splitlines()), log
    assert "demo library" not in log, log
    st, runs = d.get_json("/runs")
    assert runs["runs"] == [], runs
