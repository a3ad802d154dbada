"""The order the suites' files are handed to the pytest-xdist workers in
(make test-py: --dist loadfile --no-loadscope-reorder): the longest first, so
that no long file starts last and leaves the other worker idle at the end
(longest processing time first). The seconds are each file's wall time on a
2-core machine with three workers (aa20a94, docs/bench/tests.md; test_references,
test_repro and test_screen as their repros' server made them, test_alone
estimated); a file not named
here goes after those named, in collection order. Only the order changes:
every test still runs.

Each worker also writes the CPU seconds each file cost (build/test-cpu-*.json:
the worker's own and its reaped children's, so a file's daemons, runners
and browsers once they exit), which tools/test_times.py adds to the wall,
and each test's (build/test-cputest-*.json: tools/test_times.py --tests),
and when each test ran (build/test-spans-*.json: --timeline)."""
import json
import os
import resource
import sys
import time

import pytest

SECONDS = {
    "tests/e2e/test_budget.py": 510,
    "tests/e2e/test_resume.py": 361,
    "tests/runner/test_references.py": 60,
    "tests/e2e/test_runner_faults.py": 280,
    "tests/e2e/test_empty_options.py": 209,
    "tests/e2e/test_lists_failclosed.py": 179,
    "tests/e2e/test_consensus.py": 174,
    "tests/e2e/test_screen.py": 100,
    "tests/e2e/test_store_faults.py": 134,
    "tests/e2e/test_shrink_after.py": 110,
    "tests/e2e/test_fuzz_api.py": 109,
    "tests/e2e/test_modes.py": 109,
    "tests/runner/test_repro.py": 45,
    "tests/e2e/test_dashboard_api.py": 101,
    "tests/runner/test_runner.py": 99,
    "tests/browser/test_dashboard_live.py": 97,
    "tests/e2e/test_regress.py": 91,
    "tests/e2e/test_packaging.py": 89,
    "tests/browser/test_dashboard.py": 87,
    "tests/e2e/test_speed.py": 70,
    "tests/e2e/test_carry.py": 64,
    "tests/e2e/test_bad_input.py": 61,
    "tests/runner/test_table_part.py": 53,
    "tests/e2e/test_engine_forms.py": 53,
    "tests/e2e/test_alone.py": 45,
    "tests/e2e/test_lifecycle.py": 45,
    "tests/runner/test_huge.py": 44,
    "tests/e2e/test_metrics.py": 42,
    "tests/e2e/test_pool.py": 42,
    "tests/e2e/test_engine_module.py": 40,
    "tests/e2e/test_fail_fast.py": 36,
    "tests/e2e/test_openapi.py": 33,
    "tests/runner/test_generic_native.py": 33,
    "tests/e2e/test_hostile_clients.py": 30,
    "tests/e2e/test_ctl.py": 30,
    "tests/e2e/test_severity.py": 27,
    "tests/runner/test_view_writes.py": 22,
    "tests/runner/test_modes_compiles.py": 20,
    "tests/e2e/test_affinity.py": 20,
    "tests/runner/test_sourcehash.py": 14,
    "tests/e2e/test_consumers.py": 13,
    "tests/e2e/test_conventions.py": 12,
    "tests/runner/test_figures.py": 12,
    "tests/runner/test_nccl_classify.py": 12,
    "tests/e2e/test_retention.py": 11,
    "tests/e2e/test_views.py": 10,
}


def pytest_collection_modifyitems(session, config, items):
    order = {}
    for i, item in enumerate(items):
        path = item.nodeid.split("::", 1)[0]
        order.setdefault(path, (-SECONDS.get(path, 0), i))
    items.sort(key=lambda item: order[item.nodeid.split("::", 1)[0]])


_CPU = {}
_CPU_TEST = {}
_SPANS = []


def _cpu_now():
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    # the scripts tests/runner/standalone.py ran (its server's children)
    standalone = getattr(sys.modules.get("standalone"), "CPU", 0.0)
    return (own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime +
            standalone)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    t = _cpu_now()
    w0 = time.time()
    yield
    t = _cpu_now() - t
    _SPANS.append((item.nodeid, round(w0, 2), round(time.time(), 2), round(t, 2)))
    path = item.nodeid.split("::", 1)[0]
    _CPU[path] = _CPU.get(path, 0.0) + t
    _CPU_TEST[item.nodeid] = t


def pytest_sessionfinish(session, exitstatus):
    out = os.path.join(str(session.config.rootpath), "build")
    if not _CPU or not os.path.isdir(out):
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(os.path.join(out, f"test-cpu-{worker}.json"), "w") as f:
        json.dump(_CPU, f, indent=0, sort_keys=True)
    with open(os.path.join(out, f"test-cputest-{worker}.json"), "w") as f:
        json.dump(_CPU_TEST, f, indent=0, sort_keys=True)
    # when each test ran on this worker (wall clock) and its CPU: where the
    # workers waited (tools/test_times.py --timeline)
    with open(os.path.join(out, f"test-spans-{worker}.json"), "w") as f:
        json.dump(_SPANS, f, indent=0)
