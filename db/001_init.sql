-- opscreen store, version 1. Workers never open this database; opscreend's main
-- loop is the only writer, API threads read through their own connections.

CREATE TABLE fingerprints (
	id		INTEGER PRIMARY KEY,
	hash		TEXT NOT NULL UNIQUE,	-- sha-like digest of the canonical JSON
	json		TEXT NOT NULL,
	library		TEXT NOT NULL DEFAULT '',
	library_version	TEXT NOT NULL DEFAULT '',
	library_hash	TEXT NOT NULL DEFAULT '',
	torch		TEXT NOT NULL DEFAULT '',
	triton		TEXT NOT NULL DEFAULT '',
	cuda		TEXT NOT NULL DEFAULT '',
	driver		TEXT NOT NULL DEFAULT '',
	gpu_name	TEXT NOT NULL DEFAULT '',
	gpu_uuid	TEXT NOT NULL DEFAULT '',
	created		REAL NOT NULL
);

CREATE TABLE runs (
	id		INTEGER PRIMARY KEY,
	state		TEXT NOT NULL CHECK (state IN
			    ('queued', 'running', 'complete', 'cancelled', 'failed')),
	request		TEXT NOT NULL DEFAULT '{}',
	full		INTEGER NOT NULL DEFAULT 1,	-- not restricted: may serve lists
	created		REAL NOT NULL,
	started		REAL,
	finished	REAL,
	total		INTEGER NOT NULL DEFAULT 0,
	done		INTEGER NOT NULL DEFAULT 0,
	error		TEXT
);

CREATE TABLE run_devices (
	run_id		INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	device		INTEGER NOT NULL,	-- GPU index, -1 = cpu
	fingerprint_id	INTEGER REFERENCES fingerprints(id),
	PRIMARY KEY (run_id, device)
);

-- The library's registration table as the runner discovered it for this run.
CREATE TABLE entries (
	run_id		INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	key		TEXT NOT NULL,		-- aten overload, e.g. add.Tensor
	name		TEXT NOT NULL,		-- enable name, e.g. add
	schema		TEXT NOT NULL DEFAULT '',
	screened	INTEGER NOT NULL DEFAULT 0,	-- the catalog had probes for it
	PRIMARY KEY (run_id, key)
);
CREATE INDEX entries_name ON entries(run_id, name);

CREATE TABLE cases (
	id		INTEGER PRIMARY KEY,
	run_id		INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	device		INTEGER NOT NULL,
	key		TEXT NOT NULL,
	name		TEXT NOT NULL,
	class		TEXT NOT NULL,
	dtype		TEXT NOT NULL,
	spec		TEXT NOT NULL,		-- the CASE json; regenerates the inputs
	attempt		INTEGER NOT NULL DEFAULT 0,
	state		TEXT NOT NULL DEFAULT 'pending'
			    CHECK (state IN ('pending', 'done', 'skipped',
			    'cancelled'))
);
CREATE INDEX cases_run ON cases(run_id, state);

CREATE TABLE results (
	case_id		INTEGER PRIMARY KEY REFERENCES cases(id) ON DELETE CASCADE,
	status		TEXT NOT NULL,		-- pass fail na degenerate error timeout
						-- crash skipped
	reason		TEXT NOT NULL,
	detail		TEXT NOT NULL DEFAULT '',
	score		REAL NOT NULL DEFAULT 0,
	native_inaccurate INTEGER NOT NULL DEFAULT 0,
	figures		TEXT,			-- the runner's RESULT json
	stderr_tail	TEXT,
	repro		TEXT,			-- stored for failing cases only
	cand_first_ms	REAL,
	cand_steady_ms	REAL,
	native_ms	REAL,
	created		REAL NOT NULL
);

CREATE TABLE verdicts (
	run_id		INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	device		INTEGER NOT NULL,
	key		TEXT NOT NULL,
	name		TEXT NOT NULL,
	dtype		TEXT NOT NULL,
	verdict		TEXT NOT NULL CHECK (verdict IN
			    ('verified', 'broken', 'hazard', 'inconclusive')),
	reason		TEXT NOT NULL DEFAULT '',
	class		TEXT NOT NULL DEFAULT '',
	detail		TEXT NOT NULL DEFAULT '',
	evidence_case	INTEGER REFERENCES cases(id),
	cases		INTEGER NOT NULL DEFAULT 0,
	passed		INTEGER NOT NULL DEFAULT 0,
	first_call_ms	REAL,			-- median over the key's cases
	steady_ms	REAL,
	PRIMARY KEY (run_id, device, key, dtype)
);
CREATE INDEX verdicts_name ON verdicts(run_id, name);

CREATE TABLE events (
	id		INTEGER PRIMARY KEY,
	created		REAL NOT NULL,
	run_id		INTEGER REFERENCES runs(id) ON DELETE CASCADE,
	kind		TEXT NOT NULL,
	json		TEXT NOT NULL DEFAULT '{}'
);
