#!/bin/sh
# gpu_full.sh: the issue-3 screens on one GPU host in one device call.
#
#   ACTIONS="run:ops42 start:cold" sh bench/gpu_full.sh [seconds]
#   ACTIONS="wait:cold finish:cold checks:cold run:warm" sh bench/gpu_full.sh [seconds]
#
# A device call lasts at most 10 minutes; a phase's opscreend runs in its own
# session (setsid) and survives the call, so a long screen is started in one
# call and waited for and finished in the next (state in /tmp/opscreen-PHASE).
#
# ops42  a fresh Triton cache, the 42 ops of issue 2 only (POST /runs ops=)
# cold   a fresh Triton cache, the whole registration table, every class
# ops42r the 42 ops again, cold (a Triton cache of its own): repeatability
# ops42wa, ops42wb, ops42wa2, ops42wb2 (any ops42w*)  warm screens of the 42
#        ops, each on the database and Triton cache ops42 left: a warm
#        knob's A/B at the 42 ops' cost (KEY_AFFINITY_ops42wb=yes ...)
# ops42b the 42 ops, cold, on a cache and port of its own: runs beside ops42
#        on the other GPU of a two-GPU host (an A/B of one knob, e.g.
#        CUDA_SYNC_ops42b=blocking)
# warm   the same table again on the cache the cold screen filled, and on its
#        database (the daemon's second full screen of the library, every key
#        measured: runner.carry = no)
# warmb  as warm, again on cold's database and cache, with knobs of its own
#        (e.g. KEY_AFFINITY_warmb=yes): an A/B of one knob on the warm screen,
#        run after warm on the same machine
# nightly  the daemon's third screen of the same library on warm's database
#        and cache, runner.carry = yes: nothing changed, so it measures the
#        rotating share (runner.refresh_days) and carries the rest
# v500   flag_gems 5.0.0 (wheel in .whl/5.0.0/), whole table, its own cache
#        (issue 23's upgrade: start:v500, then finish:v500:v500 and
#        UPGRADE_CACHE=/tmp/triton-500 upgrade:v500, the host's next
#        screen on 5.0.0's database and cache, finish:v500:up502; then
#        run:cold, the full screen of 5.0.2 it is measured against:
#        python3 bench/upgrade_check.py up502/opscreen-slim.db.xz
#        cold/opscreen-slim.db.xz)
# v534, v534w  the newest FlagGems release, 5.3.4, built from its public
#        source for measurement (never committed: bench/carry_setup.sh
#        534=GITDIR builds tag v5.3.4 of flagos-ai/FlagGems into .whl/5.3.4
#        and packs .whl/534extra.tar.xz, the 33 source files of directories
#        without an __init__.py that the wheel leaves out,
#        flag_gems/fused/DSA among them), whole table cold and then warm, its
#        own cache and database (MODES_v534=eager,compile,cudagraph: the
#        mode lists)
# tune, tuneb  the 16 keys of TUNE16, cold, each on an empty cache and port
#        of its own, one after the other: an A/B of one knob (e.g.
#        AUTOTUNE_REP_tune=0)
# coldb  as cold, on a cache and port of its own: runs beside cold on the
#        other GPU of a two-GPU host (an A/B of one knob on the whole table,
#        e.g. AUTOTUNE_REP_cold=0 AUTOTUNE_REP_coldb=5)
# anchor, anchorw  cold and warm as issue 19's anchor screened them: the
#        daemon, runner and kernels of e690b81 (the screens of 2026-12-01:
#        432.6 s cold, 168.1 s warm) from .carry/anchor/ (opscreend,
#        probes/, build/libopscreen_kernels*.so; built from a worktree of
#        that commit), its config keys only; beside cold and warm in one
#        session, the new classes' cost on one machine
# anchor42  the 42 ops cold with the anchor's build (.carry/anchor/, e.g.
#        bench/anchor_build.sh 00d37f0: inputs of draw 1), on a cache of its
#        own: beside ops42 (CPUS_ops42=0-7 CPUS_anchor42=8-15), an A/B of
#        one commit against another on one machine
# coldold, warmold  as cold and warm with only the twelve classes before
#        views, empty and options (CLASSES12; a restricted run: no lists)
# one, two  several GPUs (issue 22; docs/results/consensus-2xh200.md): the
#        whole table cold on one GPU (DEV_one=0) and split over two
#        (DEV_two=0,1: [consensus] split, consensus phase, NCCL), each on a
#        cache of its own, one after the other in the same session
# pinfail  as two with every runner forced onto GPU 0
#        (ENV_pinfail=OPSCREEN_FORCE_GPU=0): the run must fail at once with
#        NCCL's "same GPU" refusal (finish keeps the run's error)
# ops42t, coldt  as ops42 and cold on an empty Triton cache, with the tuning
#        database (FlagGems config_cache) of the cold screen: nothing
#        compiled, autotune results known
#
# v534p1, v534p2 (any v534pI)  5.3.4's registration table in PARTS parts
#        (default 2), part I a restricted run of its keys (bench/table_part.py:
#        a name's keys in one part, the parts balanced), each cold on a cache
#        of its own: 5.3.4 registers 869 aten keys, and its whole table in
#        every mode (MODES_v534p1=eager,compile,cudagraph ...) outlasts one
#        session's device time, so one part a session; a restricted run
#        serves no list: names per mode from each part's database
#        (bench/mode_names.py), a name being in one part only
# entries, entries534  the library's own entry points only (every fused::
#        key with a reference that the installed release has: ENTRY_KEYS),
#        cold, each on a cache and database of its own, flag_gems 5.0.2 and
#        5.3.4 (MODES_entries=eager,compile,cudagraph: the mode screens of
#        issue 21; a restricted run, so names per mode come from the
#        database: bench/mode_names.py)
#
# Each phase runs its own opscreend on its own database; finish leaves in
# $OUT/<phase>/: the database (SQLite backup), the log, allow/deny lists (json,
# yaml), the run's JSON and timing; checks runs three stored (shrunk) repros by
# hand and feeds the lists to flag_gems.only_enable / enable(unused=).
# Knobs (environment): WORKERS (runners per GPU, 12), COMPILE_WORKERS (3),
# (WORKERS_<phase>, COMPILE_WORKERS_<phase> for one phase),
# CASE_DEADLINE (300), COMPILE_BUDGET (60), SHRINK_MAX (12), DEVICES (0),
# KEY_BUDGET (runner.key_budget, 300; KEY_BUDGET_<phase> for one phase),
# FIRST_CALL_BUDGET (runner.first_call_budget, 0 = off as the daemon's default),
# CUDA_SYNC (runner.cuda_sync, auto; CUDA_SYNC_<phase> for one phase),
# FAIL_FAST (runner.fail_fast, yes; FAIL_FAST_<phase>), FIRST_CALL_HOLD
# (runner.first_call_hold, 10 as the daemon; FIRST_CALL_HOLD_<phase>), AUTOTUNE_REP
# (runner.autotune_rep, ms, 5 as the daemon; 0 = the library's own; AUTOTUNE_REP_<phase>),
# KEY_AFFINITY (runner.key_affinity, no as the daemon; KEY_AFFINITY_<phase>),
# SPEED (runner.speed, all as the daemon; SPEED_<phase>; the anchor's build
# times no speed at all), MODES (runner.modes, eager as the daemon;
# MODES_<phase>, e.g. MODES=eager,compile,cudagraph for the mode lists),
# POOL (runner.pool, auto as the daemon: no on GPUs; POOL_<phase>),
# SHRINK_AFTER (runner.shrink_after, yes as the daemon; SHRINK_AFTER_<phase>;
# finish waits up to SHRINK_WAIT s, 120, for the shrinks after the lists),
# REPRO_TIMEOUT (seconds per repro in checks, 300), ENV_<phase> ("VAR=VALUE
# ..." in that phase's daemon's environment, e.g. ENV_tune=OMP_NUM_THREADS=16),
# DEV_<phase> (the GPU of one phase, e.g. DEV_v500=1 on a two-GPU host: each
# phase's daemon listens on a port of its own, so two screens can run at once),
# CPUS_<phase> (taskset's CPU list for the phase's daemon and its runners, e.g.
# CPUS_cold=0-15 CPUS_v500=16-31: two screens on a 32-core, two-GPU host each
# get the 16 cores of a one-GPU host instead of contending for all 32).
set -u
LIMIT=${1:-560}
OUT=${OUT:-/tmp/opscreen-out}
# no default: a sourced or mistyped call must not start a screen (one did,
# and a second daemon on the port stopped a warm screen on 2026-11-30)
if [ -z "${ACTIONS:-}" ]; then
	echo "usage: ACTIONS=\"start:cold wait:cold ...\" sh bench/gpu_full.sh [seconds]" >&2
	exit 2
fi
mkdir -p "$OUT"
T0=$(date +%s)
ROOT=$PWD
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }

install_wheels() {	# $1: directory of wheels, $2: target
	set -- "$1" "$2" "$1"/*.whl
	# another release's directory takes SQLAlchemy from .whl
	[ "$1" = .whl ] || set -- "$@" "$ROOT"/.whl/[Ss][Qq][Ll][Aa]*.whl
	_d=$2; shift 2
	rm -rf "$_d"
	python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
	    --target "$_d" "$@"
}
# the carried opscreend's libraries (LD_LIBRARY_PATH), the wheels unpacked
. bench/carry_libs.sh
[ -d /tmp/site-502 ] || install_wheels .whl /tmp/site-502 || exit 1
[ -d .whl/5.0.0 ] && [ ! -d /tmp/site-500 ] && install_wheels .whl/5.0.0 /tmp/site-500
[ -d .whl/5.3.4 ] && [ ! -d /tmp/site-534 ] && install_wheels .whl/5.3.4 /tmp/site-534
# what 5.3.4's `pip wheel` leaves out (its directories without an
# __init__.py, flag_gems/fused/DSA among them), from the source tree
[ -f .whl/534extra.tar.xz ] && [ -d /tmp/site-534 ] && tar xJf .whl/534extra.tar.xz -C /tmp/site-534
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv \
    > "$OUT/nvidia-smi.txt"
{ nproc; nvidia-smi topo -m; } >> "$OUT/nvidia-smi.txt" 2>&1
PYTHONPATH=/tmp/site-502 python3 -c 'import torch, triton, flag_gems; print("torch", torch.__version__, "triton", triton.__version__, "flag_gems", flag_gems.__version__)' > "$OUT/versions.txt" 2>&1
cat "$OUT/nvidia-smi.txt" "$OUT/versions.txt"

# The 42 ops of issue 2: the catalog's aten keys.
OPS42='["_softmax","abs","add.Tensor","addmm","amax","bincount","bitwise_and.Scalar","bitwise_and.Tensor","bmm","cat","clamp","cos","cumsum","div.Scalar","div.Tensor","eq.Scalar","eq.Tensor","exp","gather","ge.Scalar","ge.Tensor","gelu","index_select","layer_norm","native_layer_norm","lt.Scalar","lt.Tensor","masked_fill.Scalar","maximum","mean","mean.dim","minimum","mm","mul.Tensor","neg","nonzero","pow.Tensor_Scalar","pow.Tensor_Tensor","reciprocal","relu","remainder.Tensor","repeat_interleave.self_int","rms_norm","rsqrt","sigmoid","silu","sin","sort","sort.stable","sqrt","stack","sub.Tensor","sum","sum.dim_IntList","topk","where.self"]'

# The 16 keys whose first calls spent the most time benchmarking autotune
# configs in the cold whole-table screen of 2026-12-01 at 2c2664f, without
# an autotune cap (3,224 of its 5,194 runner-s; data at commit 02ae157):
# the A/B of runner.autotune_rep (phases tune and tuneb).
# AB_OPS (a JSON list of keys) replaces them in phases tune and tuneb: an
# A/B of a knob on other keys
TUNE16=${AB_OPS:-'["var_mean.correction","addmv.out","var.dim","mv","addmv","vstack","var.correction","kron","bmm","triu","triu_","native_layer_norm_backward","bmm.out","conv1d","any.dim","all.dim"]'}

# The twelve probe classes before views, empty and options (2026-12-02):
# phases coldold and warmold screen the whole table with only these, the
# anchor the new classes' cost is measured against in the same session.
CLASSES12='["same_shape","broadcast","scalar","reduction","contract","noncontig","accumulation","dtype_exotic","edge_values","compile","bootstrap","random"]'

# taskset prefix of a phase (CPUS_<phase>), empty when unset
pin_of() {
	c=$(eval "echo \${CPUS_$1:-}")
	[ -n "$c" ] && echo "taskset -c $c"
}

# start NAME SITE CACHE BODY: an opscreend in its own session (setsid), so it
# survives the device call that started it; BODY '' = full screen on start.
start() {
	name=$1; W=/tmp/opscreen-$name; PORT=$(port_of "$name")
	if [ "${5:-}" != keep ]; then rm -rf "$W"; fi
	mkdir -p "$W"
	# warm is the daemon's next full screen of the same library: it starts
	# on the database the cold screen left (stopped by finish:cold), as a
	# host's nightly re-screen does, so it replays cold's key_budget cuts
	if [ "$name" = warm ] && [ -f /tmp/opscreen-cold/opscreen.db ]; then
		cp /tmp/opscreen-cold/opscreen.db* "$W/"
	fi
	# v534w: v534's warm screen
	if [ "$name" = v534w ] && [ -f /tmp/opscreen-v534/opscreen.db ]; then
		cp /tmp/opscreen-v534/opscreen.db* "$W/"
	fi
	# warmb: warm's A/B twin, also on the database cold left
	if [ "$name" = warmb ] && [ -f /tmp/opscreen-cold/opscreen.db ]; then
		cp /tmp/opscreen-cold/opscreen.db* "$W/"
	fi
	# ops42w*: the 42 ops' warm screens, each on the database and cache
	# the cold ops42 left (an A/B of a warm knob at the cost of the 42
	# ops, e.g. KEY_AFFINITY_ops42wb=yes; A B A B against drift)
	case $name in ops42w*)
		[ -f /tmp/opscreen-ops42/opscreen.db ] && cp /tmp/opscreen-ops42/opscreen.db* "$W/";;
	esac
	# nightly: the next screen after warm, on its database and cache
	if [ "$name" = nightly ] && [ -f /tmp/opscreen-warm/opscreen.db ]; then
		cp /tmp/opscreen-warm/opscreen.db* "$W/"
	fi
	# anchorw the same on anchor's database and cache
	if [ "$name" = anchorw ] && [ -f /tmp/opscreen-anchor/opscreen.db ]; then
		cp /tmp/opscreen-anchor/opscreen.db* "$W/"
	fi
	# warmold the same on coldold's database and cache
	if [ "$name" = warmold ] && [ -f /tmp/opscreen-coldold/opscreen.db ]; then
		cp /tmp/opscreen-coldold/opscreen.db* "$W/"
	fi
	# ops42t, coldt: an empty Triton cache (nothing compiled) but the
	# FlagGems tuning database (config_cache: the best config per autotune
	# key, no code) the cold screen left, as on a host that screened an
	# earlier release with the same kernels; code_cache is not copied
	case $name in ops42t|coldt)
		rm -rf "$3" "$3-flaggems"; mkdir -p "$3-flaggems"
		[ -d /tmp/triton-full-flaggems/config_cache ] &&
		    cp -r /tmp/triton-full-flaggems/config_cache "$3-flaggems/";;
	esac
	head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$W/token"
	chmod 600 "$W/token"	# opscreend refuses a token others may read
	st=yes; [ -n "$4" ] && st=no
	# the anchor's build: its own daemon, runner and kernels, and no
	# config key it did not know (NEWKEYS: runner.carry, key_affinity, speed,
	# modes, shrink_after, pool)
	BIN=./.carry/opscreend; RP=$ROOT/probes; KL=$ROOT/build/libopscreen_kernels.so
	NEWKEYS="carry = $(eval "echo \${CARRY_$name:-$(carry_of "$name")}")
key_affinity = $(eval "echo \${KEY_AFFINITY_$name:-\${KEY_AFFINITY:-no}}")
speed = $(eval "echo \${SPEED_$name:-\${SPEED:-all}}")
modes = $(eval "echo \${MODES_$name:-\${MODES:-eager}}")
shrink_after = $(eval "echo \${SHRINK_AFTER_$name:-\${SHRINK_AFTER:-yes}}")
pool = $(eval "echo \${POOL_$name:-\${POOL:-auto}}")"
	case $name in anchor*)
		BIN=./.carry/anchor/opscreend; RP=$ROOT/.carry/anchor/probes
		KL=$ROOT/.carry/anchor/build/libopscreen_kernels.so; NEWKEYS="";;
	esac
	cat > "$W/opscreen.conf" <<CONF
[daemon]
listen = 127.0.0.1
port = $PORT
database = $W/opscreen.db
token_file = $W/token
screen_on_start = $st
[runner]
python = python3
runner_path = $RP
library = flag_gems
devices = $(dev_of "$name")
case_deadline = ${CASE_DEADLINE:-300}
start_deadline = 300
workers_per_device = $(eval "echo \${WORKERS_$name:-\${WORKERS:-12}}")
compile_workers = $(eval "echo \${COMPILE_WORKERS_$name:-\${COMPILE_WORKERS:-3}}")
compile_budget = ${COMPILE_BUDGET:-60}
shrink_max = ${SHRINK_MAX:-12}
key_budget = $(eval "echo \${KEY_BUDGET_$name:-\${KEY_BUDGET:-300}}")
first_call_budget = ${FIRST_CALL_BUDGET:-0}
cuda_sync = $(eval "echo \${CUDA_SYNC_$name:-\${CUDA_SYNC:-auto}}")
fail_fast = $(eval "echo \${FAIL_FAST_$name:-\${FAIL_FAST:-yes}}")
first_call_hold = $(eval "echo \${FIRST_CALL_HOLD_$name:-\${FIRST_CALL_HOLD:-10}}")
autotune_rep = $(eval "echo \${AUTOTUNE_REP_$name:-\${AUTOTUNE_REP:-5}}")
$NEWKEYS
fingerprint_period = 0
CONF
	date +%s > "$W/t_start"
	rm -f "$W/pid"
	PYTHONPATH=$2 TRITON_CACHE_DIR=$3 FLAGGEMS_CACHE_DIR=$3-flaggems \
	    OPSCREEN_KERNELS=$KL \
	    env $(eval "echo \${ENV_$name:-}") \
	    setsid $(pin_of "$name") $BIN -c "$W/opscreen.conf" > "$W/opscreend.log" 2>&1 < /dev/null &
	echo $! > "$W/pid"
	# per-CPU counters every 10 s while the daemon lives (bench/cpu_busy.py):
	# is the screen CPU-bound on its cores? and each runner's (the daemon's
	# children's) own and reaped children's CPU ticks, and the daemon's own
	# and its reaped runners': where the time goes
	(setsid sh -c 'while kill -0 "$1" 2>/dev/null; do date +%s; grep "^cpu[0-9]" /proc/stat
	    echo "daemon $(cut -d" " -f14-17 /proc/$1/stat 2>/dev/null)"
	    for p in $(pgrep -P "$1"); do echo "proc $p $(cut -d" " -f14-17 /proc/$p/stat 2>/dev/null)"; done
	    sleep 10; done' \
	    sh "$(cat "$W/pid")" > "$W/cpustat.txt" 2>/dev/null < /dev/null &)
	# the phase's GPU: utilisation (share of time a kernel ran) each second
	(setsid sh -c 'nvidia-smi -i "$2" --query-gpu=timestamp,utilization.gpu,utilization.memory,power.draw \
	    --format=csv,noheader,nounits -lms 1000 & s=$!
	    while kill -0 "$1" 2>/dev/null; do sleep 2; done; kill $s' \
	    sh "$(cat "$W/pid")" "$(dev_of "$name")" > "$W/gpustat.txt" 2>/dev/null < /dev/null &)
	for i in $(seq 1 60); do
		curl -s localhost:$PORT/healthz >/dev/null 2>&1 && break; sleep 1
	done
	if ! curl -s localhost:$PORT/healthz >/dev/null 2>&1; then
		echo "$name: opscreend is not serving:"; tail -20 "$W/opscreend.log"
		return 1
	fi
	# a restricted run (BODY): the daemon answers 503 to a key outside the
	# probe catalog until a runner has reported the registration table
	# (TUNE16's keys); a start whose POST queued no run fails, and the
	# action list stops (a tune phase on 2026-12-01 waited 365 s of
	# device time on a run that was never queued)
	if [ -n "$4" ]; then
		printf '%s\n' "$4" > "$W/body.json"	# what the run was asked for
		for i in $(seq 1 120); do
			curl -s -X POST -H "Authorization: Bearer $(cat "$W/token")" \
			    -d "$4" localhost:$PORT/runs > "$W/post.json"
			grep -q '"status": 503' "$W/post.json" || break
			sleep 1
		done
		cat "$W/post.json"; echo
		if ! grep -q '"run"' "$W/post.json"; then
			echo "$name: no run queued"; return 1
		fi
	fi
}

# wait NAME: polls the newest run until it ends or the call's time is nearly
# up; returns 0 when the run has ended.
wait_run() {
	name=$1; W=/tmp/opscreen-$name; PORT=$(port_of "$name"); until=$(( $(date +%s) + ${2:-100000} ))
	while [ "$(left)" -gt 25 ] && [ "$(date +%s)" -lt "$until" ]; do
		state=$(run_state)
		echo "$name $(( $(date +%s) - $(cat "$W/t_start") ))s: $state"
		case "$state" in complete*|failed*|cancelled*) return 0;; esac
		# no run at all a minute after the daemon started: nothing to wait for
		if [ -z "$state" ] && [ $(( $(date +%s) - $(cat "$W/t_start") )) -gt 60 ]; then
			echo "$name: no run"; return 1
		fi
		sleep 10
	done
	return 1
}

last_run() {
	curl -s localhost:$PORT/runs | python3 -c 'import json,sys; print(max([r["id"] for r in json.load(sys.stdin)["runs"]] or [1]))' 2>/dev/null || echo 1
}

# "state done total" of the newest run
run_state() {
	curl -s "localhost:$PORT/runs/$(last_run)" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["state"], d["done"], d["total"])' 2>/dev/null
}

# finish NAME: lists, metrics, run and the database into $OUT/NAME; stops it.
finish() {	# $1 phase, $2 output folder name (default: the phase)
	name=$1; W=/tmp/opscreen-$name; P=$OUT/${2:-$name}; PORT=$(port_of "$name")
	mkdir -p "$P"
	state=$(run_state)
	echo "$name: $state, $(( $(date +%s) - $(cat "$W/t_start") )) s from daemon start" \
	    | tee -a "$P/timing.txt"
	# runner.shrink_after: the run's evidence is shrunk after its lists;
	# wait up to SHRINK_WAIT s (default 120) for that to end, so the lists
	# kept show it (progress.shrinking is absent once it has)
	i=0
	while [ "$i" -lt "${SHRINK_WAIT:-120}" ] && curl -s "localhost:$PORT/runs/$(last_run)" |
	    python3 -c 'import json,sys; sys.exit(0 if "shrinking" in json.load(sys.stdin).get("progress", {}) else 1)' 2>/dev/null; do
		sleep 2; i=$((i + 2))
	done
	[ "$i" -gt 0 ] && echo "$name: shrinks after the lists: $i s more" | tee -a "$P/timing.txt"
	curl -s "localhost:$PORT/runs/$(last_run)" > "$P/run.json"
	curl -s "localhost:$PORT/regressions?limit=1000" > "$P/regressions.json"
	for f in json yaml; do
		curl -s "localhost:$PORT/allowlist?format=$f&stale=ok" > "$P/allowlist.$f"
		curl -s "localhost:$PORT/denylist?format=$f&stale=ok" > "$P/denylist.$f"
	done
	# the deployment modes' lists and the lists that are also fast (issue
	# 21; a 400 from a build without them)
	for q in mode=compile mode=cudagraph faster=1 faster=0.8; do
		curl -s "localhost:$PORT/allowlist?$q&stale=ok" > "$P/allowlist-$q.json"
		curl -s "localhost:$PORT/denylist?$q&stale=ok" > "$P/denylist-$q.json"
	done
	# the variants name the default deny-list's names again with the same
	# repros (24 MB a list on the whole table, 2026-12-05: five of them
	# were over what a call brings back); denylist.json keeps them
	python3 -c 'import json,sys
for p in sys.argv[1:]:
    try:
        d = json.load(open(p))
    except (OSError, ValueError):
        continue
    for e in d.get("names", []) if isinstance(d, dict) else []:
        e.pop("repro", None)
    json.dump(d, open(p, "w"))' "$P/denylist-mode=compile.json" "$P/denylist-mode=cudagraph.json" \
	    "$P/denylist-faster=1.json" "$P/denylist-faster=0.8.json"
	curl -s localhost:$PORT/metrics > "$P/metrics.txt"
	kill "$(cat "$W/pid")"
	for i in $(seq 1 30); do kill -0 "$(cat "$W/pid")" 2>/dev/null || break; sleep 1; done
	cp "$W/opscreend.log" "$W/opscreen.conf" "$P/"
	[ -f "$W/body.json" ] && cp "$W/body.json" "$P/"
	[ -f "$W/cpustat.txt" ] && xz -9c "$W/cpustat.txt" > "$P/cpustat.txt.xz"
	[ -f "$W/gpustat.txt" ] && xz -9c "$W/gpustat.txt" > "$P/gpustat.txt.xz"
	python3 -c "import sqlite3,sys; s=sqlite3.connect(sys.argv[1]); d=sqlite3.connect(sys.argv[2]); s.backup(d); d.close()" \
	    "$W/opscreen.db" "$P/opscreen.db"
	# $OUT is emptied before each device call: checks in a later call
	# read this copy
	rm -rf "$W/out"; cp -r "$P" "$W/out"
}

checks() {	# $1 phase dir, $2 site dir, $3 the phase's finish copy
	P=$1
	if [ ! -f "$P/opscreen.db" ] && [ -f "${3:-}/opscreen.db" ]; then
		mkdir -p "$P"; cp -r "$3"/. "$P"/
	fi
	PYTHONPATH=$2 python3 - "$P/opscreen.db" > "$P/checks.txt" 2>&1 <<'PY'
import os, sqlite3, subprocess, sys, tempfile
db = sqlite3.connect(sys.argv[1])
rows = db.execute("""SELECT c.id, c.key, c.dtype, r.reason, r.repro, r.shrunk_spec,
    c.spec FROM cases c JOIN results r ON r.case_id = c.id
    WHERE r.status = 'fail' AND r.repro IS NOT NULL AND r.shrunk_spec IS NOT NULL
    GROUP BY c.key ORDER BY r.score DESC LIMIT 3""").fetchall()
for cid, key, dtype, reason, repro, shrunk, spec in rows:
    p = os.path.join(tempfile.gettempdir(), f"repro_{cid}.py")
    open(p, "w").write(repro)
    print(f"=== case {cid}: {key} {dtype} ({reason})")
    print("generated:", spec[:600])
    print("shrunk:   ", shrunk[:600])
    r = subprocess.run([sys.executable, p], capture_output=True, text=True,
                       timeout=int(os.environ.get("REPRO_TIMEOUT", "300")))
    print((r.stdout + r.stderr)[-2500:])
    print(f"=== exit status {r.returncode}")
PY
	PYTHONPATH=$2 python3 - "$P" >> "$P/checks.txt" 2>&1 <<'PY'
import json, sys, torch, flag_gems
out = sys.argv[1]
allow = json.load(open(f"{out}/allowlist.json")).get("names", [])
deny = [e["name"] for e in json.load(open(f"{out}/denylist.json")).get("names", [])]
lib = torch.library.Library("aten", "IMPL")
flag_gems.only_enable(lib=lib, include=f"{out}/allowlist.yaml")
got = sorted(set(flag_gems.all_registered_ops()))
print("=== only_enable(include=allowlist.yaml) registers exactly the allow-list:",
      got == sorted(allow), len(got), "names; allow-list", len(allow))
lib._destroy()
lib = torch.library.Library("aten", "IMPL")
flag_gems.enable(lib=lib, unused=f"{out}/denylist.yaml")
every = sorted({fn.__name__ for _, fn, *rest in flag_gems._FULL_CONFIG})
got = set(flag_gems.all_registered_ops())
left_out = sorted(set(every) - got)
print("=== enable(unused=denylist.yaml) leaves out exactly the deny-list:",
      left_out == sorted(set(deny)), len(left_out), "left out; deny-list", len(deny))
print("left out but not denied:", sorted(set(left_out) - set(deny))[:40])
print("denied but registered:", sorted(set(deny) - set(left_out))[:40])
lib._destroy()
PY
}

port_of() { case $1 in entries) echo 8487;; entries534) echo 8488;; one) echo 8484;; two) echo 8485;; pinfail) echo 8486;; anchor42) echo 8489;; anchor*) echo 8481;; warmb) echo 8482;; v534*) echo 8483;; v500) echo 8471;; coldold|warmold) echo 8478;; coldb) echo 8477;; ops42b) echo 8474;; ops42*) echo 8472;; coldt) echo 8473;; tune) echo 8475;; tuneb) echo 8476;; *) echo 8470;; esac; }
carry_of() { case $1 in nightly) echo yes;; *) echo "${CARRY:-no}";; esac; }
dev_of() { eval "echo \${DEV_$1:-\${DEVICES:-0}}"; }
site_of() { case $1 in v500) echo /tmp/site-500;; v534*|entries534) echo /tmp/site-534;; *) echo /tmp/site-502;; esac; }
cache_of() { case $1 in entries) echo /tmp/triton-entries;; entries534) echo /tmp/triton-entries534;; one) echo /tmp/triton-one;; two) echo /tmp/triton-two;; pinfail) echo /tmp/triton-pinfail;; anchor42) echo /tmp/triton-anchor42;; anchor*) echo /tmp/triton-anchor;; coldold|warmold) echo /tmp/triton-old;; coldb) echo /tmp/triton-fullb;; tune) echo /tmp/triton-tune;; tuneb) echo /tmp/triton-tuneb;; ops42t) echo /tmp/triton-ops42t;; ops42b) echo /tmp/triton-ops42b;; ops42r) echo /tmp/triton-ops42r;; coldt) echo /tmp/triton-coldt;; ops42*) echo /tmp/triton-ops42;; v500) echo /tmp/triton-500;; v534p*) echo "/tmp/triton-$1";; v534*) echo /tmp/triton-534;; *) echo /tmp/triton-full;; esac; }
# the fused:: keys with a reference (probes/opscreen_runner/references.py)
# that the release in site $1 has
entry_keys() {
	PYTHONPATH=$ROOT/probes:$1 python3 -c 'import json
from opscreen_runner import references as R
try:
    import flag_gems.fused as f
except Exception:
    f = None  # every reference: the daemon refuses the run if one is missing
print(json.dumps(["fused::" + n for n in sorted(R.SCHEMAS) if f is None or hasattr(f, n)]))' 2>/dev/null
}
# part I of PARTS of the registration table of the release in site $2
# (phase v534pI)
table_part() {
	# never empty: an empty body would start a full screen; this one is
	# refused (400) and the action list stops
	PYTHONPATH=$2 python3 "$ROOT/bench/table_part.py" flag_gems "${1#v534p}" "${PARTS:-2}" 2>/dev/null ||
	    echo '{"ops": "bench/table_part.py failed"}'
}
body_of() { case $1 in v534p*) table_part "$1" "$(site_of "$1")";; entries*) echo "{\"ops\": $(entry_keys "$(site_of "$1")")}";; ops42*|anchor42) echo "{\"ops\": $OPS42}";; tune*) echo "{\"ops\": $TUNE16}";; coldold|warmold) echo "{\"classes\": $CLASSES12}";; *) echo "";; esac; }

# ACTIONS: words "start:PHASE", "wait:PHASE", "finish:PHASE[:FOLDER]", "checks:PHASE",
# "firstcall:GPU" (FIRSTCALL's cases each alone on an empty cache),
# "again:PHASE" (the phase's daemon again on its database and cache, waited
# for and left running: its warm screen),
# "run:PHASE" (start, wait, finish), "pack:all" (the folders of $OUT into
# xz chunks, to come back from the device), "pack:slim" (the databases
# slimmed to their newest run, then all of $OUT in one archive), "upgrade:PHASE" (a daemon on PHASE's
# database with flag_gems 5.0.2: it sees the fingerprint change and screens
# again, and the regressions between the two screens are the release diff),
# "multirank:LIBRARY" (the multi-rank bootstrap probe on GPUs 0,1, both
# orders, into $OUT/multirank/), "nonvml:LIBRARY", "early:PHASE", "scopes:PHASE", "severity:PHASE"
# (bench/severity_checks.py on the phase's running daemon) (bench/failclosed_checks.py),
# in order; a wait that runs out of time stops the list (the daemon runs on
# for the next call).
for act in $ACTIONS; do
	verb=${act%%:*}; ph=${act#*:}
	case $verb in
	start)  start "$ph" "$(site_of "$ph")" "$(cache_of "$ph")" "$(body_of "$ph")" || break;;
	wait)   wait_run "$ph" || { echo "still running: $ph"; break; };;
	waitfor) secs=${ph#*:}; ph=${ph%%:*}	# waitfor:PHASE:SECONDS, then go on
	        wait_run "$ph" "$secs" || echo "not done within $secs s: $ph";;
	finish) case $ph in	# finish:PHASE or finish:PHASE:FOLDER
	        *:*) finish "${ph%%:*}" "${ph#*:}";;
	        *) finish "$ph";;
	        esac;;
	checks) checks "$OUT/$ph" "$(site_of "$ph")" "/tmp/opscreen-$ph/out";;
	multirank) mkdir -p "$OUT/multirank"	# multirank:LIBRARY
	        for o in import-first pin-first; do
	        	CUDA_VISIBLE_DEVICES=0,1 PYTHONPATH=$ROOT/probes:/tmp/site-502 \
	        	    OPSCREEN_NCCL_LIB=$ROOT/build/libopscreen_nccl.so \
	        	    python3 -m opscreen_runner.multirank --library "$ph" \
	        	    --order $o > "$OUT/multirank/$ph-$o.json" 2>&1
	        	cat "$OUT/multirank/$ph-$o.json"
	        done;;
	firstcall) # firstcall:DEV: FIRSTCALL ("OP DTYPE CASE..." groups separated
	        # by ';'), every case at once, each in its own process on an
	        # empty cache (bench/first_call.py), on GPU DEV and the CPUs of
	        # CPUS_firstcall
	        mkdir -p "$OUT/firstcall"
	        echo "$FIRSTCALL" | tr ';' '\n' | { while read -r op dt cases; do
	            [ -n "$op" ] || continue
	            CUDA_VISIBLE_DEVICES=$ph PYTHONPATH=/tmp/site-502 $(pin_of firstcall) \
	                python3 bench/first_call.py --op "$op" --dtype "$dt" $cases &
	        done; wait; } | tee -a "$OUT/firstcall/first_call.txt";;
	upgrade) # upgrade:PHASE: carried verdicts on (CARRY_<phase> to
	        # override); UPGRADE_CACHE: the Triton cache (an empty one for
	        # an upgrade that compiles what changed from nothing)
	        eval "CARRY_$ph=\${CARRY_$ph:-yes}"
	        start "$ph" /tmp/site-502 "${UPGRADE_CACHE:-/tmp/triton-full}" "" keep || break;;
	nonvml)	# nonvml:LIBRARY: a GPU host whose NVML does not load (a path
		# that does not exist) must screen nothing and serve no list
		W=/tmp/opscreen-nonvml; rm -rf "$W"; mkdir -p "$W" "$OUT/nonvml"
		head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$W/token"; chmod 600 "$W/token"
		printf '[daemon]\nlisten = 127.0.0.1\nport = 8479\ndatabase = %s/opscreen.db\ntoken_file = %s/token\nscreen_on_start = yes\n[runner]\npython = python3\nrunner_path = %s/probes:%s/tests/demolib\nlibrary = %s\ndevices = all\nnvml_library = /nonexistent/libnvidia-ml.so.1\n' \
		    "$W" "$W" "$ROOT" "$ROOT" "$ph" > "$W/opscreen.conf"
		PYTHONPATH=/tmp/site-502 ./.carry/opscreend -c "$W/opscreen.conf" > "$W/opscreend.log" 2>&1 & np=$!
		sleep 4
		{ for u in /healthz /allowlist "/allowlist?format=yaml" "/denylist?format=yaml" "/denylist?format=text"; do
			echo "--- GET $u: $(curl -s -o "$W/body" -w '%{http_code}' "localhost:8479$u")"; head -c 600 "$W/body"; echo; done
		  echo "--- runner processes under the daemon: $(pgrep -P $np | wc -l)"
		  echo "--- log:"; cat "$W/opscreend.log"; } > "$OUT/nonvml/$ph.txt" 2>&1
		kill $np; wait $np 2>/dev/null; cat "$OUT/nonvml/$ph.txt";;
	severity) # severity:PHASE, the phase's daemon still running: lists
		# per policy and dtype scope, severities, 20 repros per severity
		PORT=$(port_of "$ph"); mkdir -p "$OUT/severity-$ph"
		PYTHONPATH=$(site_of "$ph") REPRO_TIMEOUT=${REPRO_TIMEOUT:-120} \
		    python3 bench/severity_checks.py "$PORT" "/tmp/opscreen-$ph/opscreen.db" \
		    "$OUT/severity-$ph" 2>&1 | grep -v Warning | tail -120;;
	early)	# early:PHASE: once the runner has reported the table and before
		# the screen completes, the 503 bodies and what they register
		PORT=$(port_of "$ph")
		for i in $(seq 1 120); do
			curl -s localhost:$PORT/healthz | grep -q '"library_version"' && break; sleep 1; done
		PYTHONPATH=$(site_of "$ph") python3 bench/failclosed_checks.py early "$PORT" "$OUT/early-$ph" 2>&1 |
		    grep -v Warning | tee "$OUT/early-$ph/checks.txt";;
	scopes)	# scopes:PHASE: the lists by dtype and device scope, provenance
		PORT=$(port_of "$ph"); mkdir -p "$OUT/scopes-$ph"
		PYTHONPATH=$(site_of "$ph") python3 bench/failclosed_checks.py scopes "$PORT" "$OUT/scopes-$ph" 2>&1 |
		    grep -v Warning | tee "$OUT/scopes-$ph/checks.txt";;
	pack)	# pack:all, last: each folder of $OUT into xz chunks of 15 MiB
		# (a call brings back at most 8 files of 16 MiB, 64 MiB in all);
		# pack:slim first replaces each folder's database by its newest
		# run slimmed (tools/slim_db.py --compact: figures cut to times and
		# first-call costs rounded to 0.1 ms) and then packs everything
		# into one archive: a whole-table
		# database with repros is hundreds of MB (571 MB for three runs
		# on 2026-12-03), and one call could not bring back the packed
		# folders of three phases
	        if [ "$ph" = slim ]; then
	            for db in "$OUT"/*/opscreen.db; do
	                [ -f "$db" ] || continue
	                r=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT max(id) FROM runs").fetchone()[0] or 1)' "$db")
	                python3 tools/slim_db.py "$db" "$db.slim" --keep-run "$r" --compact > /dev/null &&
	                xz -T0 -9 -c "$db.slim" > "${db%.db}-slim.db.xz" && rm -f "$db" "$db.slim"
	            done
	            # a second pack:slim in one call writes all2.tar.xz.*, ...: the
	            # chunks an earlier one left are not packed again (one call on
	            # 2026-12-05 packed them into its second archive, 78 MB, and a
	            # chunk did not come back)
	            (cd "$OUT" && a=all && i=1 && while [ -e "$a.tar.xz.00" ]; do i=$((i+1)); a=all$i; done &&
	                tar cf - $(ls | grep -v '\.tar\.xz\.[0-9]*$') | xz -T0 -6 | split -b 15M -d - "$a.tar.xz." &&
	                find . -mindepth 1 -maxdepth 1 ! -name '*.tar.xz.[0-9]*' -exec rm -rf {} + ; ls -l)
	        else
	        (cd "$OUT" && for d in */; do d=${d%/}
	            tar cf - "$d" | xz -T0 -6 | split -b 15M -d - "$d.tar.xz."
	            rm -rf "$d"; done; ls -l)
	        fi;;
	again)  # again:PHASE: the phase's daemon once more on its database
	        # and cache (its second screen: warm), waited for, left running
	        start "$ph" "$(site_of "$ph")" "$(cache_of "$ph")" "$(body_of "$ph")" keep || break
	        wait_run "$ph" || { echo "still running: $ph"; break; };;
	run)    start "$ph" "$(site_of "$ph")" "$(cache_of "$ph")" "$(body_of "$ph")"
	        wait_run "$ph" || { echo "still running: $ph"; break; }
	        finish "$ph";;
	esac
done
echo "total $(( $(date +%s) - T0 )) s"
