"""End-to-end harness: the real opscreend (build/opscreend) and the real runner
(probes/opscreen_runner) screening the demo library (tests/demolib) on the CPU,
driven only through the HTTP API and the command line."""
import fcntl
import json
import os
import re
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DAEMON = os.path.join(ROOT, "build", "opscreend")


def query(path, sql, args=(), mode="ro"):
    """Rows of one statement on the store at path, on a connection of its own
    (mode "ro" reads, "rw" may write), closed before returning."""
    db = sqlite3.connect(f"file:{path}?mode={mode}", uri=True, timeout=30)
    try:
        return db.execute(sql, args).fetchall()
    finally:
        db.close()


def children(pid, cmd=None):
    """The processes whose parent is pid; with cmd (bytes), only those whose
    command line holds it, the runner pool (runner.pool: its command line
    names opscreen_runner.pool, and the runners it forks keep that command
    line) left out: b"opscreen_runner" gives the runners."""
    kids = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            if ppid != pid:
                continue
            if cmd is not None:
                with open(f"/proc/{p}/cmdline", "rb") as f:
                    if cmd not in f.read():
                        continue
                with open(f"/proc/{p}/comm", "rb") as f:
                    if f.read().strip() == b"opscreen-pool":
                        continue
        except (OSError, IndexError, ValueError):
            continue
        kids.append(int(p))
    return kids


def descendants(pid):
    """pid and every process below it (the runners and their children)."""
    out, todo = [pid], [pid]
    while todo:
        kids = children(todo.pop())
        out += kids
        todo += kids
    return out


def denied(deny):
    """The entries of a /denylist JSON denied on measured evidence; its other
    entries are the names withheld in its scope (verdict withheld or
    inconclusive): the deny-list excludes every name the allow-list of the
    same scope does not hold."""
    return [e for e in deny["names"] if e["verdict"] not in ("withheld", "inconclusive")]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _lines(value, width=150):
    """A comma list longer than a configuration line (197 characters) over
    indented lines, each going on with the list (opscreen.conf(5))."""
    out, line = [], ""
    for item in value.split(","):
        if line and len(line) + len(item) + 1 > width:
            out.append(line + ",")
            line = item
        else:
            line = f"{line},{item}" if line else item
    return "\n    ".join(out + [line])


class Daemon:
    def __init__(self, tmp, env=None, **overrides):
        self.env = dict(env or {})   # extra environment; runners inherit it
        self.tmp = str(tmp)
        os.makedirs(self.tmp, exist_ok=True)
        # Inductor's cache of its own per daemon: two test processes
        # compiling the same graph into the shared /tmp/torchinductor_$USER
        # once left a truncated .so another loaded ("file too short"),
        # making a traced case not applicable (2026-12-07, two workers)
        self.env.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.join(self.tmp, "inductor"))
        self.port = free_port()
        self.token = secrets.token_hex(16)
        self.db = os.path.join(self.tmp, "opscreen.db")
        tokfile = os.path.join(self.tmp, "token")
        # opscreend refuses a token file others may read
        fd = os.open(tokfile, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(self.token + "\n")
        conf = {
            "daemon": {"listen": "127.0.0.1", "port": self.port,
                       "database": self.db, "token_file": tokfile,
                       "screen_on_start": "no"},
            "runner": {"python": sys.executable,
                       "runner_path": f"{ROOT}/probes:{ROOT}/tests/demolib",
                       "library": "demolib", "devices": "cpu",
                       # a demo case takes milliseconds; the deadline catches
                       # the planted hang. 8 s was once passed by a plain
                       # case on a loaded 2-core machine (a false timeout):
                       # a lost case runs again alone with twice it, 16 s,
                       # before it is charged (the planted hang: 8 + 16 s)
                       "case_deadline": 8, "cpu_case_deadline": 8,
                       "alone_factor": 2,
                       "start_deadline": 120,
                       "workers_per_device": 2,
                       # runners as urgent as the rest of the suite (the
                       # default, 10, keeps a GPU host's API responsive):
                       # beside another load on CI's two cores, runners at
                       # nice 10 get a tenth of what the load gets, and
                       # every screen waits on them
                       "nice": 0,
                       # the demo topk "compiles" 2 ms per k: 8 s at k = 4096
                       "compile_budget": 5,
                       # every screen measures every key unless a test is
                       # about carrying (test_carry.py): tests compare screens
                       "carry": "no"},
            "api": {"threads": 4},
        }
        for k, v in overrides.items():
            sect, key = k.split("__")
            conf.setdefault(sect, {})[key] = v
        # runner.shrink_after (default yes): a complete run's failing cases
        # are shrunk after it, and wait_run waits for that too
        self.shrink_after = str(conf["runner"].get("shrink_after", "yes")) != "no"
        self.conf = os.path.join(self.tmp, "opscreen.conf")
        with open(self.conf, "w") as f:
            for sect, kv in conf.items():
                f.write(f"[{sect}]\n")
                for k, v in kv.items():
                    f.write(f"{k} = {_lines(str(v))}\n")
        self.log = os.path.join(self.tmp, "opscreend.log")
        self.proc = None

    def start(self, healthz=200):
        """Starts opscreend and waits for /healthz to answer `healthz` (503:
        a daemon that starts in a fault)."""
        self._healthz = healthz
        tally = os.environ.get("OPSCREEN_TEST_DAEMONS")
        if tally:   # counts the daemons each test starts (tests.md)
            with open(f"{tally}.{os.environ.get('PYTEST_XDIST_WORKER', 'main')}", "a") as f:
                f.write(os.environ.get("PYTEST_CURRENT_TEST", "?").rsplit(" ", 1)[0] + "\n")
        for attempt in range(5):
            self.logf = open(self.log, "ab")
            self.proc = subprocess.Popen([DAEMON, "-d", "-c", self.conf],
                                         stdout=self.logf, stderr=subprocess.STDOUT,
                                         env=dict(os.environ, **self.env),
                                         cwd=self.tmp)
            if not self._wait_listening():
                return self
            # another test's daemon took the port free_port() chose (two
            # pytest-xdist workers): the same configuration on another port
            self.logf.close()
            self._set_port(free_port())
        raise RuntimeError("opscreend found no free port: " + self.logtext())

    def _set_port(self, port):
        with open(self.conf) as f:
            text = f.read()
        with open(self.conf, "w") as f:
            f.write(re.sub(r"(?m)^port = \d+$", f"port = {port}", text, count=1))
        self.port = port

    def _wait_listening(self):
        """Waits for the started daemon's /healthz: True when it exited
        because its port was taken, False when it answers."""
        healthz = self._healthz
        deadline = time.time() + 120   # generous: a loaded 2-core machine
        while time.time() < deadline:
            if self.proc.poll() is not None:
                if "cannot listen on" in self.logtext():
                    return True
                raise RuntimeError("opscreend exited: " + self.logtext())
            try:
                if self.get("/healthz")[0] == healthz:
                    return False
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError("opscreend did not answer: " + self.logtext())

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc:
            self.logf.close()

    def logtext(self):
        with open(self.log, "rb") as f:
            return f.read().decode(errors="replace")[-6000:]

    def request(self, method, path, body=None, token=None, headers=None):
        url = f"http://127.0.0.1:{self.port}{path}"
        data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
        req = urllib.request.Request(url, data=data, method=method)
        if token:
            req.add_header("Authorization", "Bearer " + token)
        for k, v in (headers or {}).items():
            req.add_header(k, v)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, r.headers.get("Content-Type"), r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("Content-Type"), e.read()

    def get(self, path):
        return self.request("GET", path)

    def get_json(self, path):
        status, ctype, body = self.get(path)
        return status, json.loads(body)

    def post_run(self, body=None):
        status, _, out = self.request("POST", "/runs", body or {}, token=self.token)
        return status, json.loads(out)

    def wait_run(self, run_id, timeout=1800, shrinks=True):
        """The run's record once it has ended; a complete one, unless
        shrinks is false, once its failing cases have been shrunk after it
        too (its shrinks_done event, with runner.shrink_after)."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            st, run = self.get_json(f"/runs/{run_id}")
            assert st == 200, run
            if run["state"] in ("failed", "cancelled"):
                return run
            if run["state"] == "complete" and (
                    not shrinks or not self.shrink_after or self.shrinks_done(run_id)):
                return run
            time.sleep(0.2)
        raise AssertionError(f"run {run_id} did not finish: {run}\n" + self.logtext())

    def shrinks_done(self, run_id):
        """The run's shrinks_done event (runner.shrink_after), or None."""
        rows = query(self.db, "SELECT json FROM events WHERE run_id=? AND "
                     "kind='shrinks_done'", (run_id,))
        return json.loads(rows[0][0]) if rows else None

    def wait_device_error(self, contains="", timeout=120):
        """/healthz once device 0 reports an error holding `contains` (a
        library that cannot be used, a runner that cannot start)."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            st, h = self.get_json("/healthz")
            err = h["devices"][0].get("error")
            if err and contains in err:
                return h
            time.sleep(0.2)
        raise AssertionError(f"no device error {contains!r}: " + self.logtext())

    def wait_fingerprint(self, timeout=600):
        deadline = time.time() + timeout
        while time.time() < deadline:
            st, h = self.get_json("/healthz")
            if all(d.get("fingerprint") for d in h["devices"]):
                return h
            time.sleep(0.2)
        raise AssertionError("no fingerprint: " + self.logtext())




# The smallest scope in which a screen of the demo library denies every
# planted defect (tests/e2e/test_screen.py DEFECTS, each with its reason and
# class): every defect shows in bfloat16 but clone's, which needs an fp8
# dtype; the ops are the defects' names and three correct ones
# (DEFECT_SCOPE_CORRECT), every other name withheld as never screened.
# 602 cases and 28 CPU-s, against 1,468 and 80 for these dtypes over the
# whole library and the full screen's 5,468 and 194.
DEFECT_SCOPE_CORRECT = {"neg", "sub", "relu"}
DEFECT_SCOPE_OPS = ("minimum", "sum", "sum_dim", "clamp", "exp", "rsqrt",
                    "tanh", "div", "cumsum", "abs_out", "clone", "uniform_",
                    "topk", "eq_scalar", "argmin", "sigmoid_", "mean_dim",
                    "addmm", "fused_add_rms_norm", "sqrt", "exp2") + \
    tuple(sorted(DEFECT_SCOPE_CORRECT))
DEFECT_SCOPE = {"runner__dtypes": "bfloat16,float8_e4m3fn",
                "runner__ops": ",".join(DEFECT_SCOPE_OPS)}


# The host's scope for a test that screens again and again and reads a few
# names: float32 x same_shape (runner.dtypes, runner.classes) and five ops
# (runner.ops; every other name is withheld as never screened), still the
# host's full screen (it serves lists and is compared for regressions). A
# correct op (sub), the ops tests plant a defect in at run time (add:
# OPSCREEN_DEMOLIB_BREAK, neg: OPSCREEN_DEMOLIB_GARBAGE) and the demo's
# own crash (rsqrt) and numerics (exp2); not its hang (tanh), which would
# hold every screen for its case deadline: 44 cases, 5 CPU-s, 2 s (the
# whole float32 x same_shape scope: 415 cases, 28 CPU-s, 28 s). One
# runner: with five keys, two runners can both be in a case of the
# crashing key before its first crash ends the class (fail-fast), and a
# test that counts the planted failures would see one screen crash once
# and the next twice (the compile runner, idle without compile cases,
# takes eager cases too: none either). SLOWED keeps a screen of it going
# for seconds (a sleep per call of the right ops), for a test that acts
# mid-run.
SMALL_OPS = ("add", "sub", "neg", "rsqrt", "exp2")
SMALL = {"runner__dtypes": "float32", "runner__classes": "same_shape",
         "runner__ops": ",".join(SMALL_OPS), "runner__workers_per_device": 1,
         "runner__compile_workers": 0}
SLOWED = {"OPSCREEN_DEMOLIB_DELAY": "add:0.1,sub:0.1,neg:0.1"}


# float32 x same_shape over twenty ops (runner.ops), two runners: every
# name of the demo library that this dtype and class find broken (abs_out,
# eq_scalar, exp2, rsqrt, sqrt, tanh: crash, hang, numerics, a nonfinite
# mismatch, nondeterminism) and fourteen right ones, mul_ (in place) among
# them: 176 cases, 7 CPU-s (the whole float32 x same_shape scope: 415
# cases, 28 CPU-s).
F32_OPS = ("abs_out", "eq_scalar", "exp2", "rsqrt", "sqrt", "tanh", "add",
           "sub", "mul", "mul_", "neg", "abs", "relu", "sin", "cos", "exp",
           "div", "minimum", "silu", "clamp")
F32 = {"runner__dtypes": "float32", "runner__classes": "same_shape",
       "runner__ops": ",".join(F32_OPS)}


# The whole float32 x same_shape scope (415 cases, ~28 CPU-s): the session's
# shared screen "f32-same-shape" (shared_screen) is of it, for the tests
# that need a screened store of some size and read or change a copy of it.
F32_WHOLE = {"runner__dtypes": "float32", "runner__classes": "same_shape"}


# The demo library's planted hang (tanh) off for a daemon's runners, where a
# test reads nothing of it: no screen waits out its case deadline.
# OPSCREEN_DEMOLIB_FIX is read at run time; the library's source, and so its
# fingerprint, stays the same.
NO_HANG = {"OPSCREEN_DEMOLIB_FIX": "tanh"}


def shared_dir(tmp_path_factory, name):
    """A directory of the session that every pytest-xdist worker shares (the
    root above the workers' own base directories)."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    return root / name


def shared_screen(tmp_path_factory, name, body=None, env=None, **scope):
    """A store screened once for the whole session, whichever worker asks
    first (the others wait on a file lock): a daemon with `scope` (config
    overrides) and `env` completes the run `body` asks for (its shrinks
    after the lists too) and stops. Returns (directory, run id); start a
    daemon on a copy with daemon_on_copy, with the same scope and env."""
    d = shared_dir(tmp_path_factory, name)
    with open(str(d) + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = d / "run.json"
        if done.exists():
            return d, json.loads(done.read_text())["run"]
        dm = Daemon(d, env=env, **scope).start()
        try:
            dm.wait_fingerprint()
            st, out = dm.post_run(body or {})
            assert st == 202, out
            run = dm.wait_run(out["run"])
            assert run["state"] == "complete", (run, dm.logtext())
        finally:
            dm.stop()
        done.write_text(json.dumps({"run": out["run"]}))
        return d, out["run"]


def daemon_on_copy(tmp, src, env=None, **overrides):
    """A daemon (not started) on a copy of the store in src (shared_screen)
    and its log: its tests read and change the copy only."""
    os.makedirs(tmp, exist_ok=True)
    # the daemon's stop checkpointed its WAL into the database file; a -wal
    # or -shm there now belongs to a reader and is not copied
    wal = os.path.join(src, "opscreen.db-wal")
    assert not os.path.exists(wal) or os.path.getsize(wal) == 0, wal
    for f in ("opscreen.db", "opscreend.log"):
        shutil.copy2(os.path.join(src, f), os.path.join(tmp, f))
    return Daemon(tmp, env=env, **overrides)


def demolib_copy(tmp):
    """A copy of the demo library under tmp/lib, for a test that changes
    it (runner.runner_path = ROOT/probes:that lib); returns tmp/lib."""
    lib = tmp / "lib"
    shutil.copytree(os.path.join(ROOT, "tests", "demolib", "opscreen_demolib"),
                    lib / "opscreen_demolib",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return lib


def set_version(lib, version):
    """The copied demo library's __version__: another fingerprint."""
    init = lib / "opscreen_demolib" / "__init__.py"
    init.write_text(re.sub(r'__version__ = "[^"]*"', f'__version__ = "{version}"',
                           init.read_text()))


def full_screen(tmp, scope, env=None):
    """A daemon on `tmp` that has completed one full screen within the host's
    configured `scope` (config overrides); returns (daemon, run id)."""
    d = Daemon(tmp, env=env, **scope).start()
    try:
        d.wait_fingerprint()
        st, out = d.post_run({})
        assert st == 202, out
        run = d.wait_run(out["run"])   # generous: a loaded machine
        assert run["state"] == "complete", (run, d.logtext())
        assert run["full"] == 1, run
        return d, out["run"]
    except BaseException:
        d.stop()
        raise


def installed_host_kernels(probes, cwd):
    """The host library of kernels/ that a runner installed in `probes` (a
    PREFIX/share/opscreen/probes) loads with no $OPSCREEN_KERNELS: its path,
    or None."""
    env = {k: v for k, v in os.environ.items() if k != "OPSCREEN_KERNELS"}
    env["PYTHONPATH"] = str(probes)
    r = subprocess.run([sys.executable, "-c",
                        "from opscreen_runner import kernels; "
                        "lib = kernels._load('host'); print(lib and lib._name)"],
                       cwd=cwd, env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    out = r.stdout.strip()
    return None if out == "None" else out
