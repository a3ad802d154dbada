#!/bin/sh
# api_device.sh: bench/bench_api.sh on a GPU host that lacks the Debian
# packages, from binaries carried in .carry (bin/wrk, bin/nginx and their
# libraries in lib3; the daemon's libmicrohttpd and libinih in lib), each
# bench pinned to CPUs of its own so that several run at once without
# sharing a core.
#
#   sh bench/api_device.sh OUTDIR NAME:BINARY:CPUS [NAME:BINARY:CPUS ...]
#
# e.g. slice:.carry/opscreend:0,1 noslice:.carry/opscreend-noslice:2,3 runs
# two benches side by side, each with its opscreend, its runner, its nginx
# and its wrk on two CPUs of their own (as on a 2-vCPU host).  Environment
# passes through to bench_api.sh (ROUNDS, DURATION, THREADS, ...).
set -u
OUTD=$1; shift
ROOT=$PWD
B=$(mktemp -d)
for t in wrk nginx; do
	printf '#!/bin/sh\nLD_LIBRARY_PATH=%s/.carry/lib3 exec %s/.carry/bin/%s "$@"\n' \
	    "$ROOT" "$ROOT" $t > $B/$t
	chmod +x $B/$t
done
mkdir -p "$OUTD"
p=19000
for spec in "$@"; do
	name=${spec%%:*}; rest=${spec#*:}; bin=${rest%%:*}; cpus=${rest#*:}
	printf '#!/bin/sh\nLD_LIBRARY_PATH=%s/.carry/lib exec %s/%s "$@"\n' \
	    "$ROOT" "$ROOT" "$bin" > $B/opscreend-$name
	chmod +x $B/opscreend-$name
	( echo "=== $name: $bin on CPUs $cpus, $(date -u +%FT%TZ)"; nproc; uptime
	  PATH=$B:$PATH PYTHON=python3 NGINX_BIN=$B/nginx OPSCREEND=$B/opscreend-$name \
	      PORT=$p taskset -c "$cpus" sh bench/bench_api.sh
	  uptime ) > "$OUTD/$name.txt" 2>&1 &
	p=$((p + 10))
done
wait
for spec in "$@"; do python3 bench/bench_api_summary.py "$OUTD/${spec%%:*}.txt"; done \
    | tee "$OUTD/summary.txt"
