"""runner.pool: runners are forked from one pool process per daemon that has
imported torch (probes/opscreen_runner/pool.py, daemon/pool.c), and are the
daemon's children all the same: their own session, reaped by the daemon,
gone with it. A pool that dies is replaced; without one runners start
afresh."""
import os
import signal
import time

from e2e_harness import children, descendants


def comm(pid):
    """The process's name, or None once it is gone (a child listed a moment
    ago may have exited since: 8bc0e97's run read a runner that had)."""
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return None


def state(pid):
    """The process's state letter (Z: a zombie nobody collected), or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def wait_for(cond, what, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        got = cond()
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"never: {what}")


def runners(d):
    return [p for p in children(d.proc.pid) if comm(p) == "opscreen-runner"]


def test_runners_are_forked_by_the_pool_and_are_the_daemons(make_daemon):
    d = make_daemon().start()
    d.wait_fingerprint()
    kids = children(d.proc.pid)
    pools = [p for p in kids if comm(p) == "opscreen-pool"]
    assert len(pools) == 1, [(p, comm(p)) for p in kids]
    got = wait_for(lambda: len(runners(d)) == 3 and runners(d), "3 runners")
    for p in got:
        # a session and process group of its own: a deadline kill of -pid
        # reaches what it started, and nothing else
        assert os.getsid(p) == p and os.getpgid(p) == p, p
        with open(f"/proc/{p}/environ", "rb") as f:
            assert b"OPSCREEN_ROLE=pool" in f.read()   # the pool's image
    log = open(d.log).read()
    assert log.count("forked by the pool") == 3, log
    assert "runner pool ready" in log
    # the lists come from the same screen whichever way runners start
    st, out = d.post_run({"ops": ["minimum", "maximum"], "classes": ["broadcast"],
                          "dtypes": ["float32"]})
    assert st == 202, out
    run = d.wait_run(out["run"])
    assert run["state"] == "complete", run
    st, ops = d.get_json("/ops/minimum")
    assert st == 200 and any(v["verdict"] == "broken" for v in ops["verdicts"]), ops


def test_a_killed_pool_is_replaced_and_orphans_are_reaped(make_daemon):
    d = make_daemon(runner__workers_per_device=1, runner__compile_workers=0).start()
    d.wait_fingerprint()
    (pool,) = [p for p in children(d.proc.pid) if comm(p) == "opscreen-pool"]
    (r,) = wait_for(lambda: runners(d), "a runner")
    # the runner's own children (its lifeline watcher) outlive it briefly
    # and become the daemon's (a subreaper): it must collect them
    below = [p for p in descendants(r) if p != r]
    assert below, "the runner has its lifeline watcher"
    os.kill(pool, signal.SIGKILL)
    os.killpg(r, signal.SIGKILL)
    # a fresh runner comes from a fresh pool
    wait_for(lambda: [p for p in children(d.proc.pid)
                      if comm(p) == "opscreen-pool" and p != pool], "a new pool")
    wait_for(lambda: [p for p in runners(d) if p != r], "a new runner")
    # nothing the daemon inherited is left a zombie
    wait_for(lambda: all(state(p) in (None,) for p in [pool, r] + below),
             "the killed pool, runner and watcher collected")
    assert not [p for p in children(d.proc.pid) if state(p) == "Z"]
    d.wait_fingerprint()
    assert "runner pool (pid %d): exited" % pool in open(d.log).read()


def test_without_the_pool_runners_start_afresh(make_daemon):
    d = make_daemon(runner__pool="no", runner__workers_per_device=1,
                    runner__compile_workers=0).start()
    d.wait_fingerprint()
    kids = children(d.proc.pid)
    assert not [p for p in kids if comm(p) == "opscreen-pool"]
    (r,) = [p for p in kids if b"opscreen_runner" in open(f"/proc/{p}/cmdline", "rb").read()]
    assert os.getsid(r) == r
    assert "forked by the pool" not in open(d.log).read()


def test_runners_and_the_pool_die_with_the_daemon(make_daemon):
    d = make_daemon().start()
    d.wait_fingerprint()
    wait_for(lambda: len(runners(d)) == 3, "3 runners")
    procs = descendants(d.proc.pid)[1:]
    assert len(procs) >= 4
    d.proc.send_signal(signal.SIGKILL)
    d.proc.wait()
    wait_for(lambda: all(state(p) in (None, "Z") for p in procs),
             "every runner, watcher and the pool gone")


def test_the_setting_is_checked(make_daemon):
    """runner.pool takes yes, no or auto (the default: the pool on the CPU,
    fresh runners on GPUs until measured there); opscreend -n says so."""
    import subprocess
    from e2e_harness import DAEMON
    d = make_daemon()
    base = open(d.conf).read()
    for value, ok in (("auto", True), ("yes", True), ("no", True), ("maybe", False)):
        with open(d.conf, "w") as f:
            f.write(base + f"[runner]\npool = {value}\n")
        r = subprocess.run([DAEMON, "-n", "-c", d.conf],
                           capture_output=True, text=True, timeout=60)
        assert (r.returncode == 0) == ok, (value, r.stderr)
        if not ok:
            assert "must be yes, no or auto" in r.stderr, r.stderr
