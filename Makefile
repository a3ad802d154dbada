# opscreen: the only entry point. `make deps` (once, as root or with sudo),
# `make`, `make test`, `make run`.

CC	?= cc
PYTHON	?= $(shell [ -x .venv/bin/python3 ] && echo .venv/bin/python3 || echo python3)
PREFIX	?= /usr/local
DESTDIR	?=
SUDO	:= $(shell [ "$$(id -u)" = 0 ] || echo sudo)

PKGS	 = libmicrohttpd jansson sqlite3 inih libsystemd
CFLAGS	?= -O2 -g
CFLAGS	+= -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-format-truncation -D_GNU_SOURCE \
	   -Idaemon -Iprobes $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS	+= $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread -ldl -lm
CHECK_LIBS = $(shell pkg-config --cflags --libs check 2>/dev/null)

DAEMON_SRCS = daemon/opscreend.c daemon/env.c daemon/api.c daemon/api_list.c daemon/api_read.c daemon/door.c daemon/http.c daemon/config.c daemon/log.c daemon/util.c \
	daemon/nvml.c daemon/rollup.c daemon/sched.c daemon/store.c \
	daemon/supervise.c daemon/pool.c daemon/verdict.c daemon/store_run.c daemon/store_case.c \
	daemon/store_event.c daemon/store_verdict.c daemon/store_carry.c daemon/carry.c \
	daemon/policy.c daemon/record.c daemon/run.c daemon/queue.c daemon/skip.c \
	daemon/fail_fast.c daemon/key_budget.c daemon/worker.c daemon/abandon.c daemon/fc.c daemon/firstcall.c daemon/shrinkrun.c \
	daemon/fingerprint.c daemon/message.c daemon/resume.c daemon/request.c daemon/repro.c \
	daemon/consensus.c daemon/store_consensus.c daemon/split.c daemon/replay.c \
	daemon/gather.c daemon/alone.c daemon/store_alone.c \
	probes/probe.c probes/probe_class.c probes/dtype.c probes/seed.c \
	probes/case.c probes/shape.c probes/catalog.c probes/sweep.c probes/generic.c probes/schema.c \
	probes/table.c probes/shrink.c probes/views.c probes/modes.c probes/empty.c probes/options.c \
	daemon/regress.c daemon/metrics.c daemon/web.c
GEN_SRCS = build/gen_migrations.c build/gen_web.c
DAEMON_OBJS = $(DAEMON_SRCS:%.c=build/%.o) $(GEN_SRCS:.c=.o)
HEADERS = daemon/opscreend.h daemon/http.h daemon/version.h daemon/util.h daemon/log.h daemon/store.h daemon/scheduler.h daemon/policy.h daemon/verdict.h daemon/repro.h daemon/consensus.h \
	probes/probes.h probes/case.h probes/generic.h probes/schema.h probes/gentable.h

UNIT_TESTS = build/check_verdict build/check_sweep build/check_config build/check_door \
	build/check_store build/check_regress build/check_generic build/check_policy \
	build/check_consensus

# kernels/: the host build of the oracles (and the CUDA build where nvcc is)
.DEFAULT_GOAL := all
include kernels/kernels.mk
UNIT_TESTS += $(KERNEL_UNIT_TESTS)

.PHONY: all deps test test-fast test-unit test-py test-gpu run clean install install-demolib \
	bench-api verify-units deb

all: build/opscreend build/opscreenctl $(KERNEL_ALL) build/sweepdump

build/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

build/gen_migrations.c: db/001_init.sql db/002_shrink.sql db/003_shrink_time.sql \
		db/004_shrink_reuse.sql db/005_severity.sql db/006_history_index.sql \
		db/007_carry.sql db/008_speed.sql db/009_modes.sql \
		db/010_consensus.sql db/011_alone.sql db/012_repro_inputs.sql \
		tools/embed.sh
	@mkdir -p build
	{ sh tools/embed.sh migration_001 db/001_init.sql && \
	  sh tools/embed.sh migration_002 db/002_shrink.sql && \
	  sh tools/embed.sh migration_003 db/003_shrink_time.sql && \
	  sh tools/embed.sh migration_004 db/004_shrink_reuse.sql && \
	  sh tools/embed.sh migration_005 db/005_severity.sql && \
	  sh tools/embed.sh migration_006 db/006_history_index.sql && \
	  sh tools/embed.sh migration_007 db/007_carry.sql && \
	  sh tools/embed.sh migration_008 db/008_speed.sql && \
	  sh tools/embed.sh migration_009 db/009_modes.sql && \
	  sh tools/embed.sh migration_010 db/010_consensus.sql && \
	  sh tools/embed.sh migration_011 db/011_alone.sql && \
	  sh tools/embed.sh migration_012 db/012_repro_inputs.sql; } > $@

# the dashboard: one symbol per file of web/
build/gen_web.c: web/index.html web/app.js web/style.css web/openapi.json \
		tools/embed.sh
	@mkdir -p build
	{ sh tools/embed.sh web_index_html web/index.html && \
	  sh tools/embed.sh web_app_js web/app.js && \
	  sh tools/embed.sh web_style_css web/style.css && \
	  sh tools/embed.sh web_openapi_json web/openapi.json; } > $@

build/gen_%.o: build/gen_%.c
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

build/opscreend: $(DAEMON_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(DAEMON_OBJS) $(LDLIBS)

# The command-line client: jansson only (its HTTP/1.0 client is a socket);
# `judge` applies verdict.c's rule.
build/opscreenctl: build/daemon/opscreenctl.o build/daemon/verdict.o build/daemon/repro.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(shell pkg-config --libs jansson libcurl 2>/dev/null) -lm

# probes/ without shrink.c: both case generators; sweepdump prints what they generate
GENERIC_OBJS = build/probes/probe.o build/probes/probe_class.o build/probes/dtype.o \
	build/probes/seed.o build/probes/case.o build/probes/shape.o \
	build/probes/catalog.o build/probes/sweep.o \
	build/probes/generic.o build/probes/schema.o build/probes/table.o \
	build/probes/views.o build/probes/modes.o build/probes/empty.o build/probes/options.o

build/check_verdict: tests/unit/check_verdict.c build/daemon/verdict.o
	$(CC) $(CFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

build/check_sweep: tests/unit/check_sweep.c $(GENERIC_OBJS) build/probes/shrink.o
	$(CC) $(CFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

build/check_generic: tests/unit/check_generic.c $(GENERIC_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

build/sweepdump: tools/sweepdump.c $(GENERIC_OBJS)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(shell pkg-config --libs jansson 2>/dev/null)

build/check_policy: tests/unit/check_policy.c build/daemon/policy.o
	$(CC) $(CFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

build/check_consensus: tests/unit/check_consensus.c build/daemon/consensus.o
	$(CC) $(CFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

build/check_config: tests/unit/check_config.c build/daemon/config.o build/daemon/log.o
	$(CC) $(CFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

build/check_door: tests/unit/check_door.c build/daemon/door.o build/daemon/log.o
	$(CC) $(CFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

# the store's files: store.c and one per table or concern
STORE_OBJS = build/daemon/store.o build/daemon/store_run.o build/daemon/store_case.o \
	build/daemon/store_event.o build/daemon/store_verdict.o build/daemon/store_carry.o \
	build/daemon/store_consensus.o build/daemon/store_alone.o

build/check_store: tests/unit/check_store.c $(STORE_OBJS) build/daemon/log.o \
		build/daemon/rollup.o build/daemon/verdict.o build/gen_migrations.o
	$(CC) $(CFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

build/check_regress: tests/unit/check_regress.c build/daemon/regress.o build/daemon/verdict.o \
		build/daemon/store.o build/daemon/log.o build/gen_migrations.o
	$(CC) $(CFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

# Installs what the project needs on a fresh Debian machine (packages, then the
# pinned Python packages into .venv).
deps:
	$(SUDO) apt-get update
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y \
	    --no-install-recommends build-essential pkg-config libmicrohttpd-dev \
	    libjansson-dev libsqlite3-dev libinih-dev libsystemd-dev libcurl4-openssl-dev \
	    check systemd \
	    python3 python3-venv python3-dev curl wrk ca-certificates \
	    chromium fonts-dejavu-core mandoc \
	    debhelper dpkg-dev fakeroot lintian
	[ -x .venv/bin/python3 ] || python3 -m venv .venv
	.venv/bin/python3 -m pip install -q --upgrade pip
	.venv/bin/python3 -m pip install -q -r requirements.txt

test-unit: $(UNIT_TESTS)
	@for t in $(UNIT_TESTS); do echo "== $$t"; CK_FORK=yes ./$$t || exit 1; done

# Runner tests and end-to-end tests (real daemon + real runner on the CPU),
# on PYTEST_WORKERS processes (pytest-xdist; a file's tests stay on one, so
# module fixtures are built once; tests/conftest.py hands out the longest
# files first). The suite ends with its wall time and its ten slowest tests;
# build/pytest.xml has every test's time and build/test-cpu-*.json every
# file's CPU seconds (tools/test_times.py sums them). Four workers on CI's
# two cores: files that wait on purpose (test_budget's held first calls, the
# planted hang's deadlines, a lost case run alone) leave the cores to the
# others (3f83b51: 21.6 min on four, 95% of both cores busy; 18c6243: 23.7
# on three, 85%; docs/bench/tests.md).
PYTEST_WORKERS ?= 4
PYTEST = $(PYTHON) -m pytest -q -p no:cacheprovider -n $(PYTEST_WORKERS) --dist loadfile \
	--no-loadscope-reorder
test-py: build/opscreend
	@t0=$$(date +%s); rc=0; rm -f build/test-cpu-*.json build/test-cputest-*.json build/test-spans-*.json; \
	$(PYTEST) --durations=10 --junitxml=build/pytest.xml \
	    tests/runner tests/e2e tests/browser tests/gpu || rc=$$?; \
	echo "test-py: $$(( $$(date +%s) - t0 )) s wall on $(PYTEST_WORKERS) workers"; exit $$rc

# The build on every core; the unit suites (they mostly wait on their forked
# checks) beside the Python suites, their output in build/test-unit.log,
# shown after the Python suites' summary when a unit suite failed.
NPROC := $(shell nproc 2>/dev/null || echo 1)
test:
	@$(MAKE) --no-print-directory -j$(NPROC) all $(UNIT_TESTS)
	@rc=0; $(MAKE) --no-print-directory test-unit > build/test-unit.log 2>&1 & unit=$$!; \
	$(MAKE) --no-print-directory test-py || rc=$$?; \
	if wait $$unit; then echo "test-unit: every unit suite passed (build/test-unit.log)"; \
	else rc=1; cat build/test-unit.log; echo "test-unit: FAILED"; fi; \
	$(MAKE) --no-print-directory verify-units || rc=$$?; exit $$rc

# The edit loop (under 3 minutes): the unit suites, the runner suites but
# their slow files (pytestmark slow) and smoke end-to-end screens (a views
# screen of three ops; the runner pool).
test-fast: all test-unit
	@t0=$$(date +%s); rc=0; \
	$(PYTEST) --durations=10 -m "not slow" tests/runner \
	    tests/e2e/test_views.py::test_view_writes_are_found_and_correct_writers_verified \
	    tests/e2e/test_pool.py || rc=$$?; \
	echo "test-fast: $$(( $$(date +%s) - t0 )) s wall"; exit $$rc

# Needs a GPU and flag_gems; skips with a message elsewhere.
test-gpu: build/opscreend
	$(PYTHON) -m pytest -q -p no:cacheprovider tests/gpu

# The main job: screen with the shipped configuration and keep serving.
run: build/opscreend
	@mkdir -p var
	@[ -s var/token ] || (head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > var/token; chmod 600 var/token)
	PATH="$(CURDIR)/.venv/bin:$$PATH" ./build/opscreend -c conf/opscreen.conf

bench-api: build/opscreend
	sh bench/bench_api.sh

# Installs under $(DESTDIR)$(PREFIX); the configuration goes to $(DESTDIR)/etc
# (the units name /etc/opscreen/opscreen.conf) and is never overwritten. It
# names library = flag_gems and runner_path = the runner only: a GPU host whose
# NVML or flag_gems fails serves 503 with the reason, never the demo library's
# list. The demo library is `make install-demolib`; web/ is embedded in
# opscreend and not installed. kernels/' libraries are architecture-dependent:
# $(LIBDIR), where the installed runner looks for them (kernels.py). The
# units go to $(UNITDIR) (Debian 12's packages: /lib/systemd/system).
SHARE	 = $(PREFIX)/share/opscreen
LIBDIR	 = $(PREFIX)/lib/opscreen
UNITDIR	?= $(PREFIX)/lib/systemd/system
UNITS	 = opscreend.service opscreen-nightly.service opscreen-nightly.timer

install: build/opscreend build/opscreenctl $(KERNEL_ALL)
	install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/bin \
	    $(DESTDIR)$(SHARE)/probes/opscreen_runner $(DESTDIR)$(LIBDIR) \
	    $(DESTDIR)$(PREFIX)/share/doc/opscreen $(DESTDIR)$(UNITDIR) \
	    $(DESTDIR)$(PREFIX)/lib/sysusers.d $(DESTDIR)/etc/opscreen
	install -m 755 build/opscreend $(DESTDIR)$(PREFIX)/sbin/opscreend
	install -m 755 build/opscreenctl $(DESTDIR)$(PREFIX)/bin/opscreenctl
	install -m 644 probes/opscreen_runner/*.py \
	    $(DESTDIR)$(SHARE)/probes/opscreen_runner/
	for l in build/libopscreen_kernels_host.so build/libopscreen_kernels.so \
	    build/libopscreen_nccl.so; do \
	    [ ! -e $$l ] || install -m 644 $$l $(DESTDIR)$(LIBDIR)/ || exit 1; done
	install -m 644 README.md $(DESTDIR)$(PREFIX)/share/doc/opscreen/
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(PREFIX)/share/man/man8
	install -m 644 man/opscreenctl.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 man/opscreen.conf.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	install -m 644 man/opscreend.8 $(DESTDIR)$(PREFIX)/share/man/man8/
	for u in $(UNITS); do \
	    sed 's|@PREFIX@|$(PREFIX)|g' systemd/$$u > $(DESTDIR)$(UNITDIR)/$$u || \
	        exit 1; \
	    chmod 644 $(DESTDIR)$(UNITDIR)/$$u; done
	install -m 644 systemd/opscreen.sysusers \
	    $(DESTDIR)$(PREFIX)/lib/sysusers.d/opscreen.conf
	[ -e $(DESTDIR)/etc/opscreen/opscreen.conf ] || { \
	    sed -e 's|^runner_path = .*|runner_path = $(SHARE)/probes|' \
	        -e 's|^library = .*|library = flag_gems|' \
	        -e 's|^database = .*|database = /var/lib/opscreen/opscreen.db|' \
	        -e 's|^token_file = .*|token_file = /etc/opscreen/token|' \
	        conf/opscreen.conf > $(DESTDIR)/etc/opscreen/opscreen.conf && \
	    chmod 644 $(DESTDIR)/etc/opscreen/opscreen.conf; }

# The demo library (tests/demolib), for trying opscreen on a machine without a
# GPU: runner_path gains $(SHARE)/demolib, library = demolib, devices = cpu.
install-demolib:
	install -d $(DESTDIR)$(SHARE)/demolib/opscreen_demolib
	install -m 644 tests/demolib/opscreen_demolib/*.py \
	    $(DESTDIR)$(SHARE)/demolib/opscreen_demolib/

# The Debian packages opscreen and opscreen-demolib (debian/), built by
# dpkg-buildpackage in a copy of the tree under build/deb/src, so the
# packages land in build/deb/ and this tree's build/ is left alone.
# DEB_BUILD_PROFILES=pkg.opscreen.cuda adds the device library (needs nvcc).
DEB_JOBS ?= 2
deb:
	sh tools/deb.sh $(DEB_JOBS)

# systemd-analyze verify wants every ExecStart= binary to exist: install into
# build/verify-root and point @PREFIX@ at that copy.
VERIFY_ROOT = $(CURDIR)/build/verify-root

# systemd-analyze security's exposure (0 safe .. 10 unsafe) each service stays below
EXPOSURE_MAX = 3.0
verify-units: build/opscreend build/opscreenctl
	@if ! command -v systemd-analyze >/dev/null; then \
	    echo "verify-units: SKIPPED, systemd-analyze is missing (make deps)"; \
	    exit 0; fi; \
	rm -rf $(VERIFY_ROOT) && \
	$(MAKE) -s install DESTDIR=$(VERIFY_ROOT) PREFIX=/usr >/dev/null && \
	mkdir -p $(VERIFY_ROOT)/units && \
	for u in $(UNITS); do \
	    sed 's|@PREFIX@|$(VERIFY_ROOT)/usr|g' systemd/$$u > \
	        $(VERIFY_ROOT)/units/$$u || exit 1; done && \
	cd $(VERIFY_ROOT)/units && \
	SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no $(UNITS) && \
	for u in $(filter %.service,$(UNITS)); do \
	    e=$$(systemd-analyze security --offline=yes $$u 2>/dev/null | \
	        sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p'); \
	    [ -n "$$e" ] || { echo "verify-units: no exposure for $$u"; exit 1; }; \
	    echo "verify-units: $$u exposure $$e (limit $(EXPOSURE_MAX))"; \
	    awk -v e=$$e -v m=$(EXPOSURE_MAX) 'BEGIN { exit !(e < m) }' || \
	        { echo "verify-units: $$u exposure $$e is not below $(EXPOSURE_MAX)"; exit 1; }; \
	done && \
	echo "verify-units: OK ($(UNITS))"

clean:
	rm -rf build

.PHONY: help
help:
	@echo "make              build the daemon, opscreenctl, kernels/ (host; CUDA where nvcc is), sweepdump"
	@echo "make deps         install Debian's packages and the pinned Python packages (.venv)"
	@echo "make test         every suite that can run here: unit (Check), runner, e2e, browser, GPU (skips without one), units"
	@echo "make test-fast    the edit loop: unit, runner (not slow), a views screen, the pool; under 3 minutes"
	@echo "make test-unit    the Check suites only"
	@echo "make test-py      the pytest suites only"
	@echo "make test-gpu     the GPU suite (needs a GPU and flag_gems)"
	@echo "make run          screen with conf/opscreen.conf and serve on 127.0.0.1:8470"
	@echo "make install      install under PREFIX (DESTDIR honoured); never overwrites /etc/opscreen/opscreen.conf"
	@echo "make install-demolib  the demo library under PREFIX/share/opscreen/demolib"
	@echo "make deb          the Debian packages opscreen and opscreen-demolib in build/deb/"
	@echo "make verify-units systemd-analyze verify the units"
	@echo "make bench-api    the API benchmark (docs/bench/api.md)"
	@echo "make clean        remove build/"
