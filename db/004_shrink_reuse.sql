-- 004: a failing case whose shrink was reused instead of run. A re-screen of
-- one library (same fingerprint) that fails a case exactly as the library's
-- newest complete run failed it (same spec, same reason) takes that run's
-- shrink (shrunk_spec and repro) instead of running its variants again;
-- shrink_from is the case whose shrink it took.
ALTER TABLE results ADD COLUMN shrink_from INTEGER;
