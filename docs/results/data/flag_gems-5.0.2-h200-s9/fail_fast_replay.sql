WITH t AS (SELECT c.id, c.key, c.dtype, c.class, r.status, r.created AS en,
  r.created - json_extract(r.figures,'$.times.case_ms')/1000.0 AS st,
  json_extract(r.figures,'$.times.case_ms')/1000.0 AS cs, r.shrink_ms/1000.0 AS sh
  FROM cases c JOIN results r ON r.case_id=c.id WHERE r.status NOT IN ('skipped') AND c.class NOT IN ('contract','compile','bootstrap')),
f AS (SELECT key, dtype, class, min(en) AS fen FROM t WHERE status='fail' GROUP BY 1,2,3),
g AS (SELECT key, dtype, min(en) AS fen FROM t WHERE status='fail' GROUP BY 1,2)
SELECT 'class-level', count(*), round(sum(t.cs)), round(sum(t.sh)) FROM t JOIN f USING(key,dtype,class) WHERE t.st > f.fen
UNION ALL
SELECT 'keydtype-level', count(*), round(sum(t.cs)), round(sum(t.sh)) FROM t JOIN g USING(key,dtype) WHERE t.st > g.fen
UNION ALL SELECT 'all', count(*), round(sum(cs)), round(sum(sh)) FROM t;
