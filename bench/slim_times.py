"""Cuts a slimmed opscreen database's result figures to their `times`,
rounded to 0.1 ms, in place (what docs/results keeps of a whole-table
screen: the report tools read only `times` of the figures).

    python3 bench/slim_times.py DATABASE
"""
import json
import sqlite3
import sys


def main():
    db = sqlite3.connect(sys.argv[1])
    rows = db.execute("SELECT case_id, figures FROM results WHERE figures IS NOT NULL")
    out = []
    for cid, fig in rows.fetchall():
        try:
            t = json.loads(fig).get("times") or {}
        except (ValueError, AttributeError):
            t = {}
        t = {k: round(v, 1) if isinstance(v, (int, float)) else v for k, v in t.items()}
        out.append((json.dumps({"times": t}, separators=(",", ":")), cid))
    db.executemany("UPDATE results SET figures = ? WHERE case_id = ?", out)
    db.commit()
    db.execute("VACUUM")
    db.close()


if __name__ == "__main__":
    main()
