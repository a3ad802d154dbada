#!/bin/sh
# bench_api.sh: /allowlist under wrk on loopback while a screen runs on the CPU.
# Starts opscreend on a temporary database, completes one screen of the demo
# library (so /allowlist answers 200), starts a second screen and, while it
# runs, drives /allowlist with `wrk -c 64 -d 10s`. Prints wrk's report.
set -eu
PY=${PYTHON:-$( [ -x .venv/bin/python3 ] && echo .venv/bin/python3 || echo python3)}
W=$(mktemp -d)
PORT=${PORT:-18470}
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
[api]
threads = ${THREADS:-4}
CONF
./build/opscreend -c $W/opscreen.conf > $W/log 2>&1 &
D=$!
trap 'kill $D 2>/dev/null; wait $D 2>/dev/null; rm -rf $W' EXIT
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
echo "--- idle (no screen running), 64 connections"
wrk -t 2 -c 64 -d 10s --latency http://127.0.0.1:$PORT/allowlist
echo "--- idle (no screen running), 1 connection: the service time"
wrk -t 1 -c 1 -d 5s --latency http://127.0.0.1:$PORT/allowlist
# A screen that keeps the CPU busy: the compute-heavy demo ops, every class.
R2=$(post '{"ops": ["add.Tensor", "mul.Tensor", "sub.Tensor", "sum", "sum.dim_IntList", "minimum", "maximum", "_softmax", "where.self", "amax", "abs", "sin", "cos"]}')
sleep 3
B=$(state $R2)
curl -s -o /dev/null -w "GET /allowlist: %{http_code}\n" localhost:$PORT/allowlist
echo "--- while run $R2 screens (before: $B)"
wrk -t 2 -c 64 -d 10s --latency http://127.0.0.1:$PORT/allowlist
echo "second screen after wrk: $(state $R2)"
