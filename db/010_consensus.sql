-- 010: several GPUs of one host (docs/design.md, "Several GPUs").
-- runs.split: a full run whose keys were divided among the host's devices
-- (each key's cases on one device, its owner); run_split records the
-- division so that a restarted daemon expands the same way. replays holds
-- the consensus phase: each sampled case run again with the 64-bit digest
-- of its output, by another device (attempt 0) or by its owner a second
-- time (attempt 1), with whether that output passed the case's rule;
-- outcome is the case's judgement (consensus.h), stored on the owner's
-- attempt-1 row. quarantine: the devices the consensus phase of a run found
-- computing differently; their lists answer 503 until a later complete full
-- run of the device has no row here. verdicts.screened_on: in a split run,
-- the device whose cases a copied verdict folds (NULL: measured on this
-- device); verdicts.nondeterministic: cases of the key x dtype whose output
-- bits differed between two calls on one device (lists' deterministic=1).
ALTER TABLE runs ADD COLUMN split INTEGER NOT NULL DEFAULT 0;
CREATE TABLE run_split (
	run_id		INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	key		TEXT NOT NULL,
	device		INTEGER NOT NULL,
	cost		REAL NOT NULL DEFAULT 0,	-- seconds, as split
	PRIMARY KEY (run_id, key)
);
CREATE TABLE replays (
	run_id		INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	case_id		INTEGER NOT NULL REFERENCES cases(id) ON DELETE CASCADE,
	device		INTEGER NOT NULL,
	attempt		INTEGER NOT NULL,
	status		TEXT NOT NULL,		-- the case's status on this run
	digest		TEXT,			-- 16 hex digits, NULL: no output
	oracle_ok	INTEGER NOT NULL DEFAULT 0,
	outcome		TEXT,
	created		REAL NOT NULL,
	PRIMARY KEY (case_id, device, attempt)
);
CREATE INDEX replays_run ON replays(run_id);
CREATE TABLE quarantine (
	run_id		INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	device		INTEGER NOT NULL,
	suspect_cases	INTEGER NOT NULL,
	sampled_cases	INTEGER NOT NULL,
	evidence_case	INTEGER REFERENCES cases(id),
	detail		TEXT NOT NULL,
	PRIMARY KEY (run_id, device)
);
ALTER TABLE verdicts ADD COLUMN screened_on INTEGER;
ALTER TABLE verdicts ADD COLUMN nondeterministic INTEGER NOT NULL DEFAULT 0;
