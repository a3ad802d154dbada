-- 005: how wrong a failure is (daemon/verdict.h, enum severity). results.severity
-- is a failing case's: critical, loud or numerics ('' for a case that did not
-- fail). A verdict's severity is its evidence's, and n_critical, n_loud and
-- n_numerics count its failing cases per severity; policy=tolerant lists
-- allow a broken key x dtype only when its severity is numerics and
-- n_critical = n_loud = 0. Rows stored before 005 keep '' and 0: a failure
-- without a severity is read as critical (fail closed).
ALTER TABLE results ADD COLUMN severity TEXT NOT NULL DEFAULT '';
ALTER TABLE verdicts ADD COLUMN severity TEXT NOT NULL DEFAULT '';
ALTER TABLE verdicts ADD COLUMN n_critical INTEGER NOT NULL DEFAULT 0;
ALTER TABLE verdicts ADD COLUMN n_loud INTEGER NOT NULL DEFAULT 0;
ALTER TABLE verdicts ADD COLUMN n_numerics INTEGER NOT NULL DEFAULT 0;
