# smoke_classes.sh: the 42 ops of issue 2, every class, cold, on one GPU; cases per class and status, harness errors, severities (a check before a whole-table screen)
ACTIONS="${SMOKE_ACTIONS:-run:ops42}" WORKERS=12 sh bench/gpu_full.sh ${SMOKE_LIMIT:-300} 2>&1 | tail -15
python3 - <<'PY'
import sqlite3, os
db = sqlite3.connect(os.environ["OUT"] + "/ops42/opscreen.db")
print(db.execute("select id,state,total,done,finished-started from runs").fetchall())
for r in db.execute("""select c.class, r.status, count(*) from cases c join results r on r.case_id=c.id
    group by 1,2 order by 1,2"""): print(r)
print("-- errors by class/reason")
for r in db.execute("""select c.class, r.reason, substr(r.detail,1,160), count(*) from cases c join results r on r.case_id=c.id
    where r.status in ('error','crash','timeout') or (r.status='fail' and c.class in ('views','empty','options'))
    group by 1,2,3 order by 4 desc limit 40"""): print(r)
print("-- severity")
for r in db.execute("select severity, reason, count(*) from results where status='fail' group by 1,2"): print(r)
PY
rm -f $OUT/ops42/opscreen.db
