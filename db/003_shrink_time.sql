-- 003: what a failing case's shrink cost. shrink_ms is the shrink's wall time
-- in its runner (first variant sent to result stored); shrink_cand_ms is the
-- sum of its variants' candidate first calls, which runner.key_budget charges
-- to the case's key like an ordinary case's (and rebuilds after a restart).
ALTER TABLE results ADD COLUMN shrink_ms REAL NOT NULL DEFAULT 0;
ALTER TABLE results ADD COLUMN shrink_cand_ms REAL NOT NULL DEFAULT 0;
