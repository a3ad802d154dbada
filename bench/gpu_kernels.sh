#!/bin/sh
# gpu_kernels.sh: kernels/ on the GPU host in one call: build the device
# library, run the unit suite and tests/gpu/test_kernels.py, the comparison
# bench and (when flag_gems imports) the exhaustive 16-bit screen.  Every
# step's output is kept under $OUT; a failed step does not stop the next.
# Usage (repository root): OUT=/path sh bench/gpu_kernels.sh
# STEPS selects steps (default: all of "build check pytest bench exhaustive"),
# e.g. STEPS="build exhaustive" for a second call within a 10-minute limit.
set -u
STEPS=${STEPS:-build check pytest bench exhaustive}
OUT=${OUT:-/tmp/opscreen-kernels}
PY=${PYTHON:-python3}
BENCH_ARGS=${BENCH_ARGS:-}
EXH_ARGS=${EXH_ARGS:-}
mkdir -p "$OUT"
: > "$OUT/steps.log"

# step NAME SECONDS CMD...: runs CMD with set -x logging into $OUT/NAME.log
step() {
	name=$1; secs=$2; shift 2
	echo "== $(date +%T) $name: $*" | tee -a "$OUT/steps.log"
	t0=$(date +%s)
	timeout "$secs" sh -xc '"$@"' sh "$@" > "$OUT/$name.log" 2>&1
	rc=$?
	echo "== $name rc=$rc in $(( $(date +%s) - t0 ))s" | tee -a "$OUT/steps.log"
	tail -n 5 "$OUT/$name.log"
	return 0
}

want() { case " $STEPS " in *" $1 "*) return 0;; esac; return 1; }

step env 60 sh -c 'nvidia-smi; command -v nvcc && nvcc --version;
	python3 -c "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.get_device_name(0))";
	git log --oneline -1'
want build && step build 300 make build/libopscreen_kernels_host.so \
	build/libopscreen_kernels.so
if want check; then
	step build_check 120 make build/check_kernels
	[ -x build/check_kernels ] &&
	    step check_kernels 120 env CK_FORK=yes ./build/check_kernels
fi
want pytest && step pytest 240 "$PY" -m pytest -q -p no:cacheprovider \
	--noconftest -rs tests/gpu/test_kernels.py
want bench && step bench 300 "$PY" bench/bench_compare.py "$OUT/compare.md" \
	$BENCH_ARGS
if ! want exhaustive; then
	:
elif "$PY" -c "import flag_gems" > "$OUT/flag_gems_import.log" 2>&1; then
	step exhaustive 420 "$PY" bench/exhaustive16.py \
	    "$OUT/exhaustive-16bit.md" $EXH_ARGS
else
	echo "== exhaustive: SKIPPED, flag_gems does not import (see flag_gems_import.log)" |
	    tee -a "$OUT/steps.log"
fi
cat "$OUT/steps.log"
