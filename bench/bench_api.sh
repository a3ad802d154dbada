#!/bin/sh
# bench_api.sh: /allowlist and /metrics under wrk on loopback, side by side
# with nginx serving the same /allowlist body as a static file (one worker),
# idle and while a screen runs on the CPU. Starts opscreend on a temporary
# database, completes one full screen of the demo library (so /allowlist
# answers 200), measures, starts a second screen and measures again.
# Environment: PORT (opscreend; nginx takes PORT+1), THREADS (api.threads),
# OPSCREEND (the binary), NGINX_BIN, NICE (runner.nice), DURATION (wrk -d), ROUNDS (ABBA rounds, 3), CLASSES and DTYPES (the screen's
# scope; empty: everything), PYTHON.
set -eu
PY=${PYTHON:-$( [ -x .venv/bin/python3 ] && echo .venv/bin/python3 || echo python3)}
# not NGINX: nginx reads that variable as a list of inherited sockets
NGINX_BIN=${NGINX_BIN:-$(command -v nginx || echo /usr/sbin/nginx)}
W=$(mktemp -d)
PORT=${PORT:-18470}
NPORT=$((PORT + 1))
DUR=${DURATION:-10s}
WRK="wrk -t1 -c64 -d$DUR --latency"
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > $W/token
chmod 600 $W/token	# opscreend refuses a token others may read
cat > $W/opscreen.conf <<CONF
[daemon]
port = $PORT
database = $W/opscreen.db
token_file = $W/token
[runner]
python = $PY
runner_path = $PWD/probes:$PWD/tests/demolib
library = demolib
devices = cpu
case_deadline = 8
cpu_case_deadline = 8
workers_per_device = 1
nice = ${NICE:-10}
classes = ${CLASSES:-}
dtypes = ${DTYPES:-}
[api]
threads = ${THREADS:-1}
# wrk's 64 connections all come from 127.0.0.1
max_connections_per_ip = 128
CONF
${OPSCREEND:-./build/opscreend} -c $W/opscreen.conf > $W/log 2>&1 &
D=$!
N=
trap 'kill $D 2>/dev/null; wait $D 2>/dev/null; [ -z "$N" ] || kill $N 2>/dev/null; rm -rf $W' EXIT
post() {
	curl -s -X POST -H "Authorization: Bearer $(cat $W/token)" \
	    -d "$1" localhost:$PORT/runs | $PY -c 'import json,sys; print(json.load(sys.stdin)["run"])'
}
state() {
	curl -s localhost:$PORT/runs/$1 | $PY -c 'import json,sys; d=json.load(sys.stdin); print(d["state"], d["done"], d["total"])'
}
n=0
until curl -s localhost:$PORT/healthz | grep -q '"library"'; do
	kill -0 $D 2>/dev/null || { cat $W/log; exit 1; }
	n=$((n + 1)); [ $n -lt 240 ] || { echo "no runner after 120 s"; exit 1; }
	sleep 0.5
done
R1=$(post '{}')
while ! state $R1 | grep -q complete; do sleep 2; done
echo "first screen: $(state $R1)"

# nginx: the same body, the same Content-Type, one worker, no access log
mkdir -p $W/www $W/nginx
chmod 711 $W	# nginx's worker runs as www-data
curl -s -o $W/www/allowlist localhost:$PORT/allowlist
cat > $W/nginx.conf <<NGX
worker_processes 1;
daemon off;
pid $W/nginx/pid;
error_log $W/nginx/error.log;
events { worker_connections 1024; }
http {
	access_log off;
	client_body_temp_path $W/nginx; proxy_temp_path $W/nginx;
	fastcgi_temp_path $W/nginx; uwsgi_temp_path $W/nginx; scgi_temp_path $W/nginx;
	keepalive_requests 1000000;
	server {
		listen 127.0.0.1:$NPORT;
		location = /allowlist {
			root $W/www;
			default_type application/json;
			add_header Cache-Control no-store;
		}
	}
}
NGX
$NGINX_BIN -c $W/nginx.conf &
N=$!
sleep 1
curl -s -o $W/n.body localhost:$NPORT/allowlist
cmp -s $W/www/allowlist $W/n.body || { echo "nginx does not serve the body"; cat $W/nginx/error.log; ls -la $W/www $W/n.body; exit 1; }
echo "body: $(wc -c < $W/www/allowlist) bytes; $($NGINX_BIN -v 2>&1)"

SCREEN='{"ops": ["add.Tensor", "mul.Tensor", "sub.Tensor", "sum", "sum.dim_IntList", "minimum", "maximum", "_softmax", "where.self", "amax", "abs", "sin", "cos"]}'
RS=
screening() {	# a screen runs now: start another when the last one ended
	[ -n "$RS" ] && state $RS | grep -q running && return 0
	RS=$(post "$SCREEN")
	sleep 2
}
one() {	# $1 label, $2 server, $3 port
	[ "$1" = idle ] || screening
	echo "--- $1: $2"
	$WRK http://127.0.0.1:$3/allowlist
	[ "$1" = idle ] || echo "screen after: run $RS $(state $RS)"
}
# ABBA: opscreend, nginx, nginx, opscreend, so that a load that rises or
# falls through the window (a screen's start, its end) weighs on both alike
pair() {
	r=0
	while [ $r -lt ${ROUNDS:-3} ]; do
		one "$1" opscreend $PORT; one "$1" nginx $NPORT
		one "$1" nginx $NPORT; one "$1" opscreend $PORT
		r=$((r + 1))
	done
}
pair "idle"
echo "--- idle: opscreend /metrics"
$WRK http://127.0.0.1:$PORT/metrics
# A screen that keeps the CPU busy: the compute-heavy demo ops, every class;
# one() starts another whenever the last has ended, so that every
# measurement of this phase has a screen running from its start.
pair "screening"
screening
echo "--- screening: opscreend /metrics"
$WRK http://127.0.0.1:$PORT/metrics
echo "screen after: run $RS $(state $RS)"
