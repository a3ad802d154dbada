-- 007: carried results. sources holds, per run, device and key, the digest
-- of the code the key's function depends on in the library as that
-- device's runner loaded it (the runner's sourcehash.py: per device, since
-- a library may load other modules per GPU architecture); a run
-- on the same device and environment (torch, triton, CUDA, driver, GPU) as
-- an earlier complete full screen copies the results of the keys whose
-- digest did not change instead of measuring them again, re-judged by the
-- current rule. results.carried_from is the case whose measurement the row
-- copies (the first measurement, through any chain of carries), and
-- verdicts.carried_from the run where every case of a key x dtype was
-- measured (NULL: measured, at least in part, in this run).
CREATE TABLE sources (
	run_id		INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	device		INTEGER NOT NULL,
	key		TEXT NOT NULL,
	source		TEXT NOT NULL,		-- '' when it could not be followed
	PRIMARY KEY (run_id, device, key)
);
ALTER TABLE results ADD COLUMN carried_from INTEGER;
ALTER TABLE verdicts ADD COLUMN carried_from INTEGER;
-- a case of an earlier run with the same key and spec, found per case
CREATE INDEX cases_key ON cases(run_id, device, key);
