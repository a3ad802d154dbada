"""The severity figures of a complete full screen (docs/results/*-severity.md).

    python3 bench/severity_checks.py PORT DATABASE OUTDIR [N]

- the allow-list under each policy and dtype scope (names allowed, status);
- names and key x dtypes per severity (a name's severity is the worst of its
  broken key x dtypes, as /denylist orders them);
- N (20) denied names drawn at random per severity (seed 20261202), each with
  its evidence case's stored repro written to OUTDIR/repros/ and run by hand
  (python3, the library on PYTHONPATH): each must fail as the case did, at
  the script's own assertion (its last line an AssertionError), or for a
  crash or hang, by a signal, a CUDA error or no exit in time. Any other
  exit (a SyntaxError, a missing module, an error before the candidate's
  call) is a broken repro and is counted as such.
Prints a markdown report and writes it to OUTDIR/severity.md.
"""
import concurrent.futures
import json
import os
import random
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.request

POLICIES = ["strict", "tolerant"]
SCOPES = ["", "bfloat16", "bfloat16,float16", "float32"]
SEVERITIES = ["critical", "loud", "numerics"]
RANK = {s: i for i, s in enumerate(SEVERITIES)}


def get(port, path):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}",
                                    timeout=60) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def run_repro(path, timeout):
    try:
        r = subprocess.run([sys.executable, path], capture_output=True,
                           text=True, timeout=timeout)
        tail = (r.stdout + r.stderr).strip().splitlines()
        return r.returncode, tail[-1] if tail else ""
    except subprocess.TimeoutExpired:
        return "timeout", f"no exit within {timeout} s"


def as_it_must(reason, rc, last):
    """The repro failed the way its case did: at its own assertion, or (a
    crash or a hang) by a signal, a CUDA error or no exit in time."""
    if rc in (0, "no repro"):
        return False
    if last.startswith("AssertionError"):
        return True
    if reason in ("crash", "timeout"):
        return rc == "timeout" or (isinstance(rc, int) and rc < 0) or \
            "CUDA" in last or "AcceleratorError" in last
    return False


def main():
    port, dbpath, out = sys.argv[1], sys.argv[2], sys.argv[3]
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    os.makedirs(os.path.join(out, "repros"), exist_ok=True)
    rep = []
    rep.append("| policy | dtypes | status | allowed | denied |")
    rep.append("|---|---|---|---|---|")
    for pol in POLICIES:
        for sc in SCOPES:
            q = f"?policy={pol}" + (f"&dtypes={sc}" if sc else "")
            st, body = get(port, "/allowlist" + q)
            _, dbody = get(port, "/denylist" + q)
            try:
                allowed = len(json.loads(body).get("names", []))
                denied = len(json.loads(dbody).get("names", []))
            except ValueError:
                allowed = denied = "?"
            rep.append(f"| {pol} | {sc or '(unscoped)'} | {st} | {allowed} | "
                       f"{denied} |")
            with open(os.path.join(out, f"allowlist-{pol}-"
                                   f"{sc.replace(',', '+') or 'all'}.json"),
                      "w") as f:
                f.write(body)
    db = sqlite3.connect(f"file:{dbpath}?mode=ro", uri=True)
    run = db.execute("SELECT max(id) FROM runs WHERE state = 'complete' "
                     "AND full = 1").fetchone()[0]
    rows = db.execute("""SELECT v.name, v.key, v.dtype, v.severity, v.reason,
        v.class, v.evidence_case, v.n_critical, v.n_loud, v.n_numerics
        FROM verdicts v WHERE v.run_id = ? AND v.verdict = 'broken'""",
                      (run,)).fetchall()
    keyd = {s: 0 for s in SEVERITIES}
    worst = {}
    for name, key, dt, sev, *_ in rows:
        sev = sev if sev in RANK else "critical"   # no severity: fail closed
        keyd[sev] += 1
        if name not in worst or RANK[sev] < RANK[worst[name]]:
            worst[name] = sev
    rep.append("")
    rep.append(f"Run {run}: broken key x dtypes and names per severity (a "
               f"name counts once, at its worst):")
    rep.append("")
    rep.append("| severity | key x dtypes | names |")
    rep.append("|---|---|---|")
    for s in SEVERITIES:
        rep.append(f"| {s} | {keyd[s]} | "
                   f"{sum(1 for v in worst.values() if v == s)} |")
    reasons = db.execute("""SELECT v.severity, v.reason, count(*) FROM verdicts v
        WHERE v.run_id = ? AND v.verdict = 'broken' GROUP BY 1, 2
        ORDER BY 1, 3 DESC""", (run,)).fetchall()
    rep.append("")
    rep.append("| severity | evidence reason | key x dtypes |")
    rep.append("|---|---|---|")
    for sev, reason, c in reasons:
        rep.append(f"| {sev or '(none)'} | {reason} | {c} |")
    # the sample: names whose worst severity is s, each with the evidence of
    # one of its key x dtypes of that severity
    rng = random.Random(20261202)
    jobs = []
    for s in SEVERITIES:
        names = sorted(nm for nm, v in worst.items() if v == s)
        for nm in rng.sample(names, min(n, len(names))):
            cands = sorted((r for r in rows if r[0] == nm and
                            (r[3] or "critical") == s), key=lambda r: (r[1], r[2]))
            name, key, dt, sev, reason, cls, case = cands[0][:7]
            repro = db.execute("SELECT repro FROM results WHERE case_id = ?",
                               (case,)).fetchone()
            path = os.path.join(out, "repros", f"{s}-{name}-{dt}-{case}.py")
            if repro and repro[0]:
                with open(path, "w") as f:
                    f.write(repro[0])
            jobs.append((s, name, key, dt, reason, cls, case,
                         path if repro and repro[0] else None))
    timeout = int(os.environ.get("REPRO_TIMEOUT", "300"))
    with concurrent.futures.ThreadPoolExecutor(
            int(os.environ.get("REPRO_JOBS", "8"))) as ex:
        futs = [ex.submit(run_repro, j[7], timeout) if j[7] else None
                for j in jobs]
        results = [f.result() if f else ("no repro", "") for f in futs]
    rep.append("")
    rep.append(f"{n} denied names drawn per severity (seed 20261202); each "
               f"evidence case's stored repro run by hand:")
    rep.append("")
    rep.append("| severity | name | key | dtype | class | reason | case | "
               "repro lines | exit | as it must | last line |")
    rep.append("|---|---|---|---|---|---|---|---|---|---|---|")
    failed, broken = 0, []
    for j, (rc, last) in zip(jobs, results):
        s, name, key, dt, reason, cls, case, path = j
        lines = len(open(path).read().splitlines()) if path else 0
        ok = as_it_must(reason, rc, last)
        failed += ok
        if not ok:
            broken.append(f"{name} ({key} {dt}, case {case})")
        last = last.replace("|", "\\|")[:160]
        rep.append(f"| {s} | {name} | {key} | {dt} | {cls} | {reason} | "
                   f"{case} | {lines} | {rc} | {'yes' if ok else 'NO'} | {last} |")
    rep.append("")
    rep.append(f"{failed} of {len(jobs)} repros fail as they must"
               + (f"; not: {', '.join(broken)}." if broken else "."))
    text = "\n".join(rep) + "\n"
    with open(os.path.join(out, "severity.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
