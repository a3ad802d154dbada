-- 002: a failing case's smallest variant that still fails the same way.
-- results.repro then holds that variant's repro; the case's own spec (the
-- one the verdict was measured on) stays in cases.spec.
ALTER TABLE results ADD COLUMN shrunk_spec TEXT;
ALTER TABLE results ADD COLUMN shrink_runs INTEGER NOT NULL DEFAULT 0;
