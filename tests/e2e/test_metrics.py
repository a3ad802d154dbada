"""GET /metrics: Prometheus text format 0.0.4 that parses line by line, carries
dcgm-exporter's gpu/UUID labels, and moves when a run completes."""
import re

import pytest

from e2e_harness import F32, Daemon, denied

LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})? (-?[0-9.eE+-]+|NaN|[+-]Inf)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
# float32 x same_shape over twenty ops (F32: rsqrt's crash among them, every
# other name withheld as outside the host's scope)
SCOPE = F32


def parse(text):
    """{(name, frozenset(labels)): value}; every line must be a sample or comment."""
    samples, types = {}, {}
    assert text.endswith("\n")
    for line in text.splitlines():
        if line.startswith("# HELP "):
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            assert kind in ("gauge", "counter"), line
            types[name] = kind
            continue
        m = LINE.match(line)
        assert m, f"not a sample: {line!r}"
        labels = {}
        if m.group(3):
            pairs = LABEL.findall(m.group(3))
            assert ",".join(f'{k}="{v}"' for k, v in pairs) == m.group(3), line
            labels = dict(pairs)
        assert m.group(1) in types, f"sample before its TYPE: {line!r}"
        key = (m.group(1), frozenset(labels.items()))
        assert key not in samples, f"duplicate series: {line!r}"
        samples[key] = float(m.group(4))
    return samples, types


def value(samples, name, **labels):
    return samples[(name, frozenset(labels.items()))]


def metrics(d):
    st, ctype, body = d.get("/metrics")
    assert st == 200, body
    assert ctype.startswith("text/plain") and "version=0.0.4" in ctype, ctype
    return parse(body.decode())


@pytest.fixture
def daemon(make_daemon):
    d = make_daemon(**SCOPE).start()
    d.wait_fingerprint()
    return d


@pytest.fixture(scope="module")
def reader(tmp_path_factory, daemon_bin):
    """One daemon for the tests that only read /metrics."""
    d = Daemon(tmp_path_factory.mktemp("metrics"), runner__workers_per_device=1,
               runner__compile_workers=0, **SCOPE).start()
    try:
        d.wait_fingerprint()
        yield d
    finally:
        d.stop()


def test_metrics_parse_and_move_after_a_run(daemon):
    s, types = metrics(daemon)
    assert value(s, "opscreen_up") == 1
    cpu = {"gpu": "cpu", "UUID": ""}
    assert value(s, "opscreen_lists_served", **cpu) == 0
    assert value(s, "opscreen_last_run_id") == 0
    assert value(s, "opscreen_worker_restarts_total", **cpu) == 0
    assert types["opscreen_worker_restarts_total"] == "counter"
    assert types["opscreen_regressions_total"] == "counter"
    assert value(s, "opscreen_regressions_total") == 0
    assert not any(n == "opscreen_names" for n, _ in s)
    assert types["process_cpu_seconds_total"] == "counter"
    cpu0 = value(s, "process_cpu_seconds_total")
    assert cpu0 > 0

    st, out = daemon.post_run({})
    assert st == 202
    run = daemon.wait_run(out["run"])
    assert run["state"] == "complete"
    s, _ = metrics(daemon)
    assert value(s, "opscreen_lists_served", **cpu) == 1
    assert value(s, "opscreen_serving_run", **cpu) == out["run"]
    assert value(s, "opscreen_last_run_id") == out["run"]
    for policy in ("strict", "tolerant"):
        st, allow = daemon.get_json("/allowlist?policy=" + policy)
        st, deny = daemon.get_json("/denylist?policy=" + policy)
        pol = dict(cpu, policy=policy)
        assert value(s, "opscreen_names", state="verified", **pol) == len(allow["names"])
        assert value(s, "opscreen_names", state="broken", **pol) + \
            value(s, "opscreen_names", state="hazard", **pol) == len(denied(deny))
        # the deny-list also excludes every withheld name
        assert len(deny["names"]) == len(denied(deny)) + len(allow["withheld"])
        assert value(s, "opscreen_names", state="withheld", **pol) + \
            value(s, "opscreen_names", state="inconclusive", **pol) == \
            len(allow["withheld"])
        # broken names per severity: the deny-list's own
        for sev in ("critical", "loud", "numerics"):
            assert value(s, "opscreen_denied_names", severity=sev, **pol) == \
                len([e for e in denied(deny) if e["severity"] == sev])
        assert sum(value(s, "opscreen_denied_names", severity=sev, **pol)
                   for sev in ("critical", "loud", "numerics")) == \
            value(s, "opscreen_names", state="broken", **pol)
    statuses = {r["status"]: r["n"] for r in run["cases_by_status"]}
    for status, n in statuses.items():
        assert value(s, "opscreen_last_run_cases", status=status, **cpu) == n
    assert value(s, "opscreen_last_run_cases", status="pending", **cpu) == 0
    full_secs = value(s, "opscreen_last_full_run_duration_seconds")
    assert full_secs > 0
    done = value(s, "opscreen_last_full_run_completion_timestamp_seconds")
    assert abs(done - run["finished"]) < 1, (done, run)
    # the demo library's rsqrt aborts its runner: each crash is a respawn
    assert value(s, "opscreen_worker_restarts_total", **cpu) >= statuses.get("crash", 0) >= 1
    assert value(s, "opscreen_runs", state="complete") == 1
    # the daemon's own CPU moved with the screen it scheduled and stored
    assert value(s, "process_cpu_seconds_total") > cpu0
    # a restricted run is no full screen: neither figure moves
    st, out2 = daemon.post_run({"ops": ["abs"]})
    assert st == 202
    assert daemon.wait_run(out2["run"])["state"] == "complete"
    s, _ = metrics(daemon)
    assert value(s, "opscreen_last_full_run_duration_seconds") == full_secs
    assert value(s, "opscreen_last_full_run_completion_timestamp_seconds") \
        == done
    assert value(s, "opscreen_last_run_id") == out2["run"]


def test_build_and_device_info(reader):
    daemon = reader
    s, types = metrics(daemon)
    info = [dict(l) for n, l in s if n == "opscreen_build_info"]
    assert len(info) == 1 and info[0]["version"][0].isdigit(), info
    dev = [(dict(l), v) for (n, l), v in s.items()
           if n == "opscreen_device_info"]
    assert len(dev) == 1, dev
    labels, v = dev[0]
    assert v == 1
    st, h = daemon.get_json("/healthz")
    fp = h["devices"][0]["fingerprint"]
    assert labels["gpu"] == "cpu" and labels["modelName"] == fp["gpu_name"]
    assert labels["library"] == fp["library"]
    assert labels["library_version"] == fp["library_version"]
    assert labels["library_hash"] == fp["library_hash"]
    assert labels["torch"] == fp["torch"]
    assert {"UUID", "driver_version", "triton", "cuda"} <= labels.keys()


def test_every_series_names_its_device(reader):
    daemon = reader
    s, _ = metrics(daemon)
    per_device = {"opscreen_lists_served", "opscreen_serving_run",
                  "opscreen_worker_restarts_total", "opscreen_names",
                  "opscreen_denied_names"}
    for name, labels in s:
        if name in per_device:
            assert dict(labels).keys() >= {"gpu", "UUID"}, (name, labels)


def test_metrics_refuses_parameters(reader):
    daemon = reader
    st, ctype, body = daemon.get("/metrics?x=1")
    assert st == 400 and ctype.startswith("application/json"), body


def test_grafana_dashboard_names_only_served_metrics(reader):
    daemon = reader
    import json
    import os
    from e2e_harness import ROOT
    dash = json.load(open(os.path.join(ROOT, "conf", "grafana",
                                       "opscreen.json")))
    st, ctype, body = daemon.get("/metrics")
    served = set(re.findall(r"^# TYPE (\S+)", body.decode(), re.M))
    used = set()
    for p in dash["panels"]:
        assert p["datasource"]["uid"] == "${datasource}", p["title"]
        for t in p["targets"]:
            used |= set(re.findall(r"opscreen_[a-z_]+", t["expr"]))
    assert used and used <= served, used - served
