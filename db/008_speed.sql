-- 008: steady-state speed per key x dtype. The runner reports, for a case
-- with steady calls, the median of timed calls of native and of the
-- candidate on the same inputs (RESULT "speed", stored with the figures);
-- a verdict keeps the slowest of its passing cases relative to native:
-- speed_ratio = min(native_ms / cand_ms) (1.0: as fast as native, 0.5: twice
-- as slow), over speed_cases passing cases with the figure (NULL, 0: none).
-- Lists asked for faster=RATIO allow a name only where every key x dtype of
-- the scope has speed_cases > 0 and speed_ratio >= RATIO.
ALTER TABLE verdicts ADD COLUMN speed_ratio REAL;
ALTER TABLE verdicts ADD COLUMN speed_cases INTEGER NOT NULL DEFAULT 0;
