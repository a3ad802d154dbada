"""The store refuses writes in the middle of a full screen: the disk is full
(a tmpfs filled up, or RLIMIT_FSIZE), the database is read-only (its files
made immutable) or locked (another process holds BEGIN EXCLUSIVE). No result
is dropped: the run waits, nothing of it is served while it is incomplete (the
lists stay the previous complete run's), /healthz and /metrics say the store
is degraded, and once the fault clears every case is stored exactly once and
the verdicts are those of an undisturbed screen."""
import errno
import os
import resource
import shutil
import subprocess
import sys
import time

import pytest

from e2e_harness import SLOWED, SMALL, Daemon, shared_screen, descendants, query

# the operator's own scope: SMALL's five ops of float32 x same_shape,
# still the host's full screen (it serves lists)
SCOPE = SMALL
HOLD_MAX = 300      # seconds a fault may last before the test gives up
VERDICTS = ("SELECT device, key, dtype, verdict, reason, class FROM verdicts "
            "WHERE run_id=?")


def _rw(path, sql, args=()):
    return query(path, sql, args, mode="rw")


@pytest.fixture(scope="module")
def reference(tmp_path_factory, daemon_bin):
    """A store holding one undisturbed full screen of SCOPE (run 1; the
    session's, tests/e2e/e2e_harness.py shared_screen), for each test to copy."""
    src, run = shared_screen(tmp_path_factory, "small", **SCOPE)
    return str(src / "opscreen.db"), run


class FsizeFull:
    """No file of the daemon may grow (RLIMIT_FSIZE of 1 byte, set on the
    running process): writes fail with EFBIG. Needs no privilege."""
    name = "disk full (RLIMIT_FSIZE)"

    def setup(self, d):
        pass

    def inject(self, d):
        self.pids = descendants(d.proc.pid)
        for p in self.pids:
            try:
                hard = resource.prlimit(p, resource.RLIMIT_FSIZE)[1]
                resource.prlimit(p, resource.RLIMIT_FSIZE, (1, hard))
            except ProcessLookupError:
                # a runner's child that ended since the walk; the daemon
                # itself must be limited
                assert p != d.proc.pid

    def clear(self, d):
        # runners started during the fault inherited the limit: lift it too
        for p in set(self.pids) | set(descendants(d.proc.pid)):
            try:
                hard = resource.prlimit(p, resource.RLIMIT_FSIZE)[1]
                resource.prlimit(p, resource.RLIMIT_FSIZE, (hard, hard))
            except (ProcessLookupError, PermissionError):
                pass

    def teardown(self, d):
        pass


class TmpfsFull:
    """The database on a tmpfs of its own that a filler file fills up: the
    writes fail with ENOSPC (SQLITE_FULL). Needs the right to mount."""
    name = "disk full (tmpfs)"

    def setup(self, d):
        self.mnt = os.path.join(d.tmp, "store")
        os.makedirs(self.mnt, exist_ok=True)
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs",
                            self.mnt], capture_output=True, text=True)
        if r.returncode != 0:
            pytest.skip("cannot mount a tmpfs to fill (needs root or "
                        "CAP_SYS_ADMIN; the RLIMIT_FSIZE case covers a full "
                        "disk without): " + r.stderr.strip())
        self.mounted = True
        db = os.path.join(self.mnt, "opscreen.db")
        shutil.move(d.db, db)
        d.db = db
        with open(d.conf) as f:
            conf = f.read()
        with open(d.conf, "w") as f:
            f.write(conf.replace(os.path.join(d.tmp, "opscreen.db"), db))

    def inject(self, d):
        self.filler = os.path.join(self.mnt, "filler")
        chunk = b"\0" * (1 << 20)
        with open(self.filler, "wb", buffering=0) as f:
            try:
                while True:
                    f.write(chunk)
            except OSError as e:
                assert e.errno == errno.ENOSPC, e
        with open(self.filler, "ab", buffering=0) as f:
            try:
                while True:
                    f.write(b"\0" * 4096)
            except OSError:
                pass

    def clear(self, d):
        os.unlink(self.filler)

    def teardown(self, d):
        if getattr(self, "mounted", False):
            subprocess.run(["umount", "-l", self.mnt])


class ReadOnly:
    """The database's files made immutable (chattr +i): every write through
    the daemon's open descriptors fails (EPERM, an SQLite I/O error)."""
    name = "read-only database (chattr +i)"

    def files(self, d):
        return [f for f in (d.db, d.db + "-wal", d.db + "-shm")
                if os.path.exists(f)]

    def setup(self, d):
        # immutable must stop writes through a descriptor already open
        probe = os.path.join(d.tmp, "probe")
        with open(probe, "ab", buffering=0) as f:
            r = subprocess.run(["chattr", "+i", probe], capture_output=True,
                               text=True)
            if r.returncode != 0:
                pytest.skip("chattr +i is not supported here: " +
                            r.stderr.strip())
            try:
                f.write(b"x")
                stopped = False
            except OSError:
                stopped = True
            subprocess.run(["chattr", "-i", probe], check=True)
        os.unlink(probe)
        if not stopped:
            pytest.skip("this file system lets an open descriptor write to "
                        "an immutable file (tmpfs does)")

    def inject(self, d):
        self.made = self.files(d)
        subprocess.run(["chattr", "+i"] + self.made, check=True)

    def clear(self, d):
        subprocess.run(["chattr", "-i"] + self.made, check=True)

    def teardown(self, d):
        subprocess.run(["chattr", "-i"] + self.files(d),
                       capture_output=True)


class Locked:
    """Another process holds the database's write lock (BEGIN EXCLUSIVE)."""
    name = "locked database (BEGIN EXCLUSIVE elsewhere)"

    def setup(self, d):
        pass

    def inject(self, d):
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "import sqlite3, sys\n"
             "db = sqlite3.connect(sys.argv[1], timeout=60, "
             "isolation_level=None)\n"
             "db.execute('BEGIN EXCLUSIVE')\n"
             "print('locked', flush=True)\n"
             "sys.stdin.read()\n"
             "db.execute('ROLLBACK')\n", d.db],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout.readline().strip() == "locked"

    def clear(self, d):
        self.proc.stdin.close()
        self.proc.wait(30)

    def teardown(self, d):
        if getattr(self, "proc", None) and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def _metric(text, name):
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.rsplit(" ", 1)[1])
    return None


def _served_run(d):
    """The run /allowlist serves (None: 503, no complete screen)."""
    st, allow = d.get_json("/allowlist")
    if st == 503:
        return None
    assert st == 200, allow
    return allow["runs"][0]["run"]


@pytest.mark.parametrize("fault", [FsizeFull, TmpfsFull, ReadOnly, Locked],
                         ids=["disk_full_fsize", "disk_full_tmpfs",
                              "read_only", "locked"])
def test_store_fault_mid_run(tmp_path, reference, fault):
    ref_db, ref_run = reference
    fault = fault()
    # slowed (a sleep per call of its right ops): the run goes on for
    # seconds after a quarter of it is done, while the fault is injected
    d = Daemon(tmp_path / "d", env=SLOWED, **SCOPE)
    shutil.copy(ref_db, d.db)
    fault.setup(d)
    try:
        d.start()
        d.wait_fingerprint()
        assert _served_run(d) == ref_run
        st, out = d.post_run({})
        assert st == 202, out
        run = out["run"]
        deadline = time.time() + 120
        while True:
            st, r = d.get_json(f"/runs/{run}")
            assert r["state"] in ("queued", "running"), r
            if r["total"] and r["done"] >= 0.25 * r["total"]:
                break
            assert time.time() < deadline, r
            time.sleep(0.05)

        fault.inject(d)
        # the fault lasts until the daemon is seen degraded and has retried
        # a refused write since (a second failure), whatever the time that
        # takes on a busy machine; until then, and after, the same holds
        t0, seen = time.time(), None
        while True:
            st, h = d.get_json("/healthz")
            assert st == 200, h     # alive: it serves the last complete run
            if h["store"]["state"] == "degraded":
                seen = seen or h
            # the incomplete run is never served and does not complete
            assert _served_run(d) == ref_run, fault.name
            st, r = d.get_json(f"/runs/{run}")
            assert r["state"] == "running", (fault.name, r)
            if seen is not None and (_metric(d.get("/metrics")[2].decode(),
                                             "opscreen_store_write_failures_total")
                                     or 0) >= 2:
                break
            assert time.time() - t0 < HOLD_MAX, (fault.name, h, d.logtext())
            time.sleep(0.25)
        assert seen is not None, (fault.name, h, d.logtext())
        assert seen["status"] == "degraded" and seen["store"]["error"], seen
        assert seen["store"]["since"] > 0, seen
        text = d.get("/metrics")[2].decode()
        assert _metric(text, "opscreen_store_degraded") == 1, text
        assert _metric(text, "opscreen_store_write_failures_total") >= 1

        fault.clear(d)
        deadline = time.time() + 300
        while True:
            # served first, then the run's state: a run still running after
            # the list was read was running when it was read (the run may
            # complete between two requests, and is then served)
            served = _served_run(d)
            st, r = d.get_json(f"/runs/{run}")
            if r["state"] != "running":
                break
            assert served == ref_run, fault.name
            assert time.time() < deadline, (r, d.logtext())
            time.sleep(0.25)
        assert r["state"] == "complete", (fault.name, r, d.logtext())
        assert _served_run(d) == run
        st, h = d.get_json("/healthz")
        assert h["store"]["state"] == "ok" and h["status"] == "ok", h
        assert h["store"]["pending_writes"] == 0, h
        text = d.get("/metrics")[2].decode()
        assert _metric(text, "opscreen_store_degraded") == 0, text
        with open(d.log, errors="replace") as f:
            assert "store writable again" in f.read()
        d.stop()

        # every case stored exactly once, each counted once
        (ncases, npending), = _rw(d.db, "SELECT count(*), coalesce(sum("
                                 "state='pending'), 0) FROM cases WHERE "
                                 "run_id=?", (run,))
        (nres, ndistinct), = _rw(d.db, "SELECT count(*), count(DISTINCT "
                                "case_id) FROM results r JOIN cases c ON "
                                "c.id = r.case_id WHERE c.run_id=?", (run,))
        (total, done), = _rw(d.db, "SELECT total, done FROM runs WHERE id=?",
                            (run,))
        assert ncases == nres == ndistinct == total == done, \
            (ncases, nres, ndistinct, total, done)
        assert npending == 0
        # the verdicts of the undisturbed screen
        assert sorted(_rw(d.db, VERDICTS, (run,))) == \
            sorted(_rw(ref_db, VERDICTS, (ref_run,)))
        assert _rw(d.db, "PRAGMA foreign_key_check") == []
    finally:
        d.stop()
        fault.teardown(d)


def test_a_damaged_store_is_a_fault_not_a_shorter_list(tmp_path, reference, daemon_bin):
    """Garbage in the verdicts table's pages: the daemon starts in a fault
    (error-level log, /healthz 503, every list 503 with the reason) instead
    of serving what it can still read."""
    db, run = reference
    os.makedirs(tmp_path / "d")
    dst = str(tmp_path / "d" / "opscreen.db")
    shutil.copy(db, dst)
    page = query(dst, "PRAGMA page_size")[0][0]
    (root,) = query(dst, "SELECT rootpage FROM sqlite_master WHERE name='verdicts'")[0]
    with open(dst, "r+b") as f:
        f.seek((root - 1) * page)
        f.write(bytes((i * 151 + 7) % 256 for i in range(page)))
    d = Daemon(tmp_path / "d", **SCOPE).start(healthz=503)
    try:
        st, h = d.get_json("/healthz")
        assert st == 503 and h["status"] == "fault" and "damaged" in h["error"], h
        for path in ("/allowlist", "/denylist"):
            st, err = d.get_json(path)
            assert st == 503 and "damaged" in err["error"], (path, err)
        st, _, body = d.get("/denylist?format=yaml")
        assert st == 503, body
        assert "error: the store" in d.logtext() and "integrity check" in d.logtext()
    finally:
        d.stop()
