#!/bin/sh
# gpu_screen.sh: one device call = install the carried library wheels, check the
# carried opscreend binary, screen the library on every GPU with the shipped
# runner, and leave the database, the log and the lists in $OUT.
# Usage (on the GPU host, repository root): sh bench/gpu_screen.sh [seconds]
set -u
LIMIT=${1:-520}
OUT=${OUT:-/tmp/opscreen-out}
mkdir -p "$OUT"
T0=$(date +%s)
# the carried opscreend's libraries (LD_LIBRARY_PATH), the wheels unpacked
. bench/carry_libs.sh
if ls .whl/*.whl >/dev/null 2>&1; then
	python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
	    --upgrade --target /tmp/site .whl/*.whl || exit 1
	export PYTHONPATH=/tmp/site
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/nvidia-smi.txt"
python3 -c 'import torch, triton, flag_gems; print("torch", torch.__version__, "triton", triton.__version__, "flag_gems", flag_gems.__version__)' 2>&1 | tail -1
W=/tmp/opscreen-gpu
rm -rf $W; mkdir -p $W
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > $W/token
chmod 600 $W/token	# opscreend refuses a token others may read
cat > $W/opscreen.conf <<CONF
[daemon]
listen = 127.0.0.1
port = 8470
database = $W/opscreen.db
token_file = $W/token
screen_on_start = yes
[runner]
python = python3
runner_path = $PWD/probes
library = flag_gems
devices = all
case_deadline = ${CASE_DEADLINE:-180}
start_deadline = 300
workers_per_device = ${WORKERS:-4}
CONF
./.carry/opscreend -c $W/opscreen.conf > "$OUT/opscreend.log" 2>&1 &
DPID=$!
state=""
while [ $(( $(date +%s) - T0 )) -lt "$LIMIT" ]; do
	sleep 5
	state=$(curl -s localhost:8470/runs/1 | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["state"], d["done"], d["total"])' 2>/dev/null)
	echo "$(( $(date +%s) - T0 ))s: $state"
	case "$state" in complete*|failed*|cancelled*) break;; esac
done
for f in json yaml; do
	curl -s "localhost:8470/allowlist?format=$f" > "$OUT/allowlist.$f"
	curl -s "localhost:8470/denylist?format=$f" > "$OUT/denylist.$f"
done

kill $DPID; wait $DPID


python3 -c "import sqlite3,sys; s=sqlite3.connect(sys.argv[1]); d=sqlite3.connect(sys.argv[2]); s.backup(d); d.close()" $W/opscreen.db "$OUT/opscreen.db"
echo "state: $state"
# Two failing cases' repros run by hand, and the lists fed to flag_gems itself.
python3 - "$W/opscreen.db" > "$OUT/checks.txt" 2>&1 <<'PY'
import os, sqlite3, subprocess, sys, tempfile
db = sqlite3.connect(sys.argv[1])
rows = db.execute("""SELECT c.id, c.key, c.dtype, r.reason, r.repro FROM cases c
    JOIN results r ON r.case_id = c.id WHERE r.status = 'fail' AND r.repro IS NOT NULL
    GROUP BY c.key ORDER BY r.score DESC LIMIT 2""").fetchall()
for cid, key, dtype, reason, repro in rows:
    p = os.path.join(tempfile.gettempdir(), f"repro_{cid}.py")
    open(p, "w").write(repro)
    print(f"=== case {cid}: {key} {dtype} ({reason}): python3 {os.path.basename(p)}")
    r = subprocess.run([sys.executable, p], capture_output=True, text=True, timeout=300)
    print((r.stdout + r.stderr)[-3000:])
    print(f"=== exit status {r.returncode}")
PY
python3 - "$OUT" >> "$OUT/checks.txt" 2>&1 <<'PY'
import json, sys, torch, flag_gems
out = sys.argv[1]
allow = json.load(open(f"{out}/allowlist.json")).get("names", [])
lib = torch.library.Library("aten", "IMPL")
flag_gems.only_enable(lib=lib, include=f"{out}/allowlist.yaml")
got = sorted(set(flag_gems.all_registered_ops()))
print("=== only_enable(include=allowlist.yaml) registers exactly the allow-list:",
      got == sorted(allow), len(got), "names")
lib._destroy()
PY
