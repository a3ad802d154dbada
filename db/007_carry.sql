-- 007: carried results. entries.source is the digest of the code a key's
-- function depends on in the library (the runner's sourcehash.py); a run
-- on the same device and environment (torch, triton, CUDA, driver, GPU) as
-- an earlier complete full screen copies the results of the keys whose
-- digest did not change instead of measuring them again, re-judged by the
-- current rule. results.carried_from is the case whose measurement the row
-- copies (the first measurement, through any chain of carries), and
-- verdicts.carried_from the run where every case of a key x dtype was
-- measured (NULL: measured, at least in part, in this run).
ALTER TABLE entries ADD COLUMN source TEXT NOT NULL DEFAULT '';
ALTER TABLE results ADD COLUMN carried_from INTEGER;
ALTER TABLE verdicts ADD COLUMN carried_from INTEGER;
-- a case of an earlier run with the same key and spec, found per case
CREATE INDEX cases_key ON cases(run_id, device, key);
