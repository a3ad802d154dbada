/*
 * store.c: the SQLite store. WAL mode, migrations by PRAGMA user_version,
 * foreign keys on. The main loop owns the one writing connection; each API
 * thread opens its own reading connection on first use.  The store's health
 * (writes it refused and still holds) is set by the main loop and read by
 * /healthz and /metrics.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "store.h"
#include "util.h"

extern const char migration_001[];
extern const char migration_002[];
extern const char migration_003[];
extern const char migration_004[];
extern const char migration_005[];
extern const char migration_006[];
extern const char migration_007[];
extern const char migration_008[];
extern const char migration_009[];
extern const char migration_010[];
extern const char migration_011[];
extern const char migration_012[];

static const char *migrations[] = {
	migration_001,
	migration_002,
	migration_003,
	migration_004,
	migration_005,
	migration_006,
	migration_007,
	migration_008,
	migration_009,
	migration_010,
	migration_011,
	migration_012,
};
#define NMIGRATIONS	(sizeof(migrations) / sizeof(migrations[0]))

#define STMT_MAX	32	/* statements store_stmt() keeps prepared */

struct store {
	sqlite3	*db;
	char	 path[4096];
	struct {
		const char	*sql;		/* the literal: its address */
		sqlite3_stmt	*st;
	}	 stmt[STMT_MAX];
	int	 nstmt;
};

struct store_cursor {
	sqlite3_stmt	*st;
};

static pthread_mutex_t	 health_mtx = PTHREAD_MUTEX_INITIALIZER;
static struct store_health health;

static __thread sqlite3	*reader_db;
static pthread_key_t	 reader_key;
static pthread_once_t	 reader_once = PTHREAD_ONCE_INIT;

/* closes the thread's connection when an API thread ends */
static void
reader_close(void *db)
{
	sqlite3_close_v2(db);
}

static void
reader_key_init(void)
{
	pthread_key_create(&reader_key, reader_close);
}

static int
pragma_setup(sqlite3 *db, int writer, char *err, size_t errlen)
{
	sqlite3_stmt	*st;
	const char	*mode;

	sqlite3_busy_timeout(db, 5000);
	if (sqlite3_exec(db, "PRAGMA foreign_keys=ON", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	if (!writer)
		return sqlite3_exec(db, "PRAGMA query_only=ON", NULL, NULL, NULL) ==
		    SQLITE_OK ? 0 : -1;
	if (sqlite3_prepare_v2(db, "PRAGMA journal_mode=WAL", -1, &st, NULL) !=
	    SQLITE_OK)
		goto fail;
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		goto fail;
	}
	mode = (const char *)sqlite3_column_text(st, 0);
	if (mode == NULL || strcmp(mode, "wal") != 0) {
		snprintf(err, errlen, "cannot switch to WAL mode (got '%s')",
		    mode ? mode : "?");
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	if (sqlite3_exec(db, "PRAGMA synchronous=NORMAL", NULL, NULL, NULL) !=
	    SQLITE_OK)
		goto fail;
	return 0;
 fail:
	snprintf(err, errlen, "%s", sqlite3_errmsg(db));
	return -1;
}

static int
store_migrate(struct store *s, char *err, size_t errlen)
{
	sqlite3_stmt	*st;
	int		 version;
	size_t		 i;
	char		 sql[64];

	if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL) !=
	    SQLITE_OK || sqlite3_step(st) != SQLITE_ROW) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(s->db));
		return -1;
	}
	version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (version > (int)NMIGRATIONS) {
		snprintf(err, errlen, "database schema version %d is newer than "
		    "this opscreend (%zu)", version, NMIGRATIONS);
		return -1;
	}
	for (i = version; i < NMIGRATIONS; i++) {
		if (store_begin(s) == -1)
			goto fail;
		if (sqlite3_exec(s->db, migrations[i], NULL, NULL, NULL) != SQLITE_OK)
			goto fail_rb;
		snprintf(sql, sizeof(sql), "PRAGMA user_version=%zu", i + 1);
		if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
			goto fail_rb;
		if (store_commit(s) == -1)
			goto fail;
		log_info("store: migrated schema to version %zu", i + 1);
	}
	return 0;
 fail_rb:
	snprintf(err, errlen, "migration %zu: %s", i + 1, sqlite3_errmsg(s->db));
	store_rollback(s);
	return -1;
 fail:
	snprintf(err, errlen, "migration %zu: %s", i + 1, sqlite3_errmsg(s->db));
	return -1;
}

struct store *
store_open(const char *path, char *err, size_t errlen)
{
	struct store	*s;
	char		 dir[4096], *slash;

	if ((s = calloc(1, sizeof(*s))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	snprintf(s->path, sizeof(s->path), "%s", path);
	/* A clearer message than SQLite's "unable to open database file". */
	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) != NULL) {
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	} else
		snprintf(dir, sizeof(dir), ".");
	if (access(dir, F_OK) == -1) {
		snprintf(err, errlen, "database directory '%s' does not exist", dir);
		goto fail;
	}
	if (access(dir, W_OK) == -1) {
		snprintf(err, errlen, "database directory '%s' is not writable: %s",
		    dir, strerror(errno));
		goto fail;
	}
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot open database '%s': %s", path,
		    s->db ? sqlite3_errmsg(s->db) : "out of memory");
		goto fail;
	}
	if (pragma_setup(s->db, 1, err, errlen) == -1)
		goto fail;
	if (store_migrate(s, err, errlen) == -1)
		goto fail;
	return s;
 fail:
	store_close(s);
	return NULL;
}

void
store_close(struct store *s)
{
	int	 i;

	if (s == NULL)
		return;
	for (i = 0; i < s->nstmt; i++)
		sqlite3_finalize(s->stmt[i].st);
	/* fold the WAL back so a copy of the file alone is whole */
	if (s->db)
		sqlite3_exec(s->db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL,
		    NULL);
	if (s->db)
		sqlite3_close_v2(s->db);
	free(s);
}

sqlite3 *
store_db(struct store *s)
{
	return s->db;
}

sqlite3 *
store_reader(const char *path)
{
	char	 err[256];

	if (reader_db != NULL)
		return reader_db;
	/* API threads only read: the main loop's connection is the one writer */
	if (sqlite3_open_v2(path, &reader_db, SQLITE_OPEN_READONLY |
	    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
	    pragma_setup(reader_db, 0, err, sizeof(err)) == -1) {
		log_warnx("store: reader for '%s': %s", path,
		    reader_db ? sqlite3_errmsg(reader_db) : "out of memory");
		sqlite3_close_v2(reader_db);
		reader_db = NULL;
		return NULL;
	}
	pthread_once(&reader_once, reader_key_init);
	pthread_setspecific(reader_key, reader_db);
	return reader_db;
}

/* Whether the last error says the file itself is damaged (no retry helps). */
int
store_damaged(struct store *s)
{
	int	 rc = sqlite3_errcode(s->db) & 0xff;

	return rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB;
}

/*
 * The store's integrity: PRAGMA quick_check (every page and b-tree, no
 * index-to-table comparison) and the foreign keys of the served tables. 0
 * when whole; -1 with the first problem in err.
 */
int
store_check(struct store *s, char *err, size_t errlen)
{
	sqlite3_stmt	*st;
	const char	*row;
	int		 rc = 0;

	if (sqlite3_prepare_v2(s->db, "PRAGMA quick_check(1)", -1, &st, NULL) !=
	    SQLITE_OK) {
		snprintf(err, errlen, "integrity check: %s", sqlite3_errmsg(s->db));
		return -1;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		row = (const char *)sqlite3_column_text(st, 0);
		if (row == NULL || strcmp(row, "ok") != 0) {
			snprintf(err, errlen, "integrity check: %s", row ? row :
			    "no answer");
			sqlite3_finalize(st);
			return -1;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "integrity check: %s", sqlite3_errmsg(s->db));
		return -1;
	}
	if (sqlite3_prepare_v2(s->db, "SELECT \"table\", rowid, parent FROM "
	    "pragma_foreign_key_check WHERE \"table\" IN ('verdicts', 'results', "
	    "'cases', 'entries', 'run_devices') LIMIT 1", -1, &st, NULL) !=
	    SQLITE_OK) {
		snprintf(err, errlen, "foreign key check: %s",
		    sqlite3_errmsg(s->db));
		return -1;
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(err, errlen, "foreign key check: row %lld of %s has no "
		    "%s row", (long long)sqlite3_column_int64(st, 1),
		    (const char *)sqlite3_column_text(st, 0),
		    (const char *)sqlite3_column_text(st, 2));
	else if (rc != SQLITE_DONE)
		snprintf(err, errlen, "foreign key check: %s",
		    sqlite3_errmsg(s->db));
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

const char *
store_errmsg(struct store *s)
{
	return sqlite3_errmsg(s->db);
}

/*
 * The statement of sql (a string literal: it is known by its address),
 * prepared on the first call and kept for the connection's life; reset and
 * unbound for its next use.  NULL when it cannot be prepared.
 */
sqlite3_stmt *
store_stmt(struct store *s, const char *sql)
{
	sqlite3_stmt	*st;
	int		 i;

	for (i = 0; i < s->nstmt; i++)
		if (s->stmt[i].sql == sql) {
			sqlite3_reset(s->stmt[i].st);
			sqlite3_clear_bindings(s->stmt[i].st);
			return s->stmt[i].st;
		}
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	if (s->nstmt == STMT_MAX) {
		log_warnx("store: more than %d kept statements", STMT_MAX);
		sqlite3_finalize(st);
		return NULL;
	}
	s->stmt[s->nstmt].sql = sql;
	s->stmt[s->nstmt++].st = st;
	return st;
}

/* The rows of sql, a statement of its own (parameters bound by the caller). */
struct store_cursor *
store_cursor_new(struct store *s, const char *sql)
{
	struct store_cursor	*c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	if (sqlite3_prepare_v2(s->db, sql, -1, &c->st, NULL) != SQLITE_OK) {
		free(c);
		return NULL;
	}
	return c;
}

sqlite3_stmt *
store_cursor_stmt(struct store_cursor *c)
{
	return c->st;
}

void
store_cursor_free(struct store_cursor *c)
{
	if (c == NULL)
		return;
	sqlite3_finalize(c->st);
	free(c);
}

/* Steps a one-shot statement to its end and finalizes it: 0 done, -1 not. */
int
store_step_once(sqlite3_stmt *st)
{
	int	 rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;

	sqlite3_finalize(st);
	return rc;
}

/*
 * store_step_once for a statement that changes one row when its condition
 * holds: 1 changed, 0 not (the condition did not hold), -1 an error.
 */
int
store_step_changed(struct store *s, sqlite3_stmt *st)
{
	if (store_step_once(st) == -1)
		return -1;
	return sqlite3_changes(store_db(s)) == 1;
}

int
store_exec(struct store *s, const char *sql)
{
	char	*msg = NULL;

	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		error("store: %s: %s", sql, msg ? msg : "?");
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

int
store_begin(struct store *s)
{
	return store_exec(s, "BEGIN IMMEDIATE");
}

int
store_commit(struct store *s)
{
	return store_exec(s, "COMMIT");
}

int
store_rollback(struct store *s)
{
	/* SQLite ends some transactions itself on SQLITE_FULL or an I/O error */
	if (sqlite3_get_autocommit(s->db))
		return 0;
	return store_exec(s, "ROLLBACK");
}

/* A copy of the store's health, for any thread. */
void
store_health(struct store_health *h)
{
	pthread_mutex_lock(&health_mtx);
	*h = health;
	pthread_mutex_unlock(&health_mtx);
}

/* Set by the main loop, the one writer, after each write it tried. */
void
store_health_set(const struct store_health *h)
{
	pthread_mutex_lock(&health_mtx);
	health = *h;
	pthread_mutex_unlock(&health_mtx);
}

/* FNV-1a 64 over the canonical (sorted, compact) JSON: identity, not security. */
char *
fingerprint_hash(json_t *fp)
{
	char		*s, *out;
	uint64_t	 h = 0xcbf29ce484222325ULL;
	const char	*p;

	if ((s = json_dumps(fp, JSON_SORT_KEYS | JSON_COMPACT)) == NULL)
		return NULL;
	for (p = s; *p; p++) {
		h ^= (unsigned char)*p;
		h *= 0x100000001b3ULL;
	}
	free(s);
	if ((out = malloc(17)) == NULL)
		return NULL;
	snprintf(out, 17, "%016llx", (unsigned long long)h);
	return out;
}

static const char *
jstr(json_t *o, const char *k)
{
	const char	*v = json_string_value(json_object_get(o, k));

	return v ? v : "";
}

int64_t
store_fingerprint(struct store *s, json_t *fp)
{
	sqlite3_stmt	*st = NULL;
	char		*hash = NULL, *js = NULL;
	int64_t		 id = -1;
	static const char *cols[] = { "library", "library_version",
	    "library_hash", "torch", "triton", "cuda", "driver", "gpu_name",
	    "gpu_uuid" };
	size_t		 i;

	if ((hash = fingerprint_hash(fp)) == NULL ||
	    (js = json_dumps(fp, JSON_SORT_KEYS | JSON_COMPACT)) == NULL)
		goto done;
	if (sqlite3_prepare_v2(s->db, "INSERT OR IGNORE INTO fingerprints "
	    "(hash, json, library, library_version, library_hash, torch, triton, "
	    "cuda, driver, gpu_name, gpu_uuid, created) VALUES "
	    "(?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
		goto done;
	sqlite3_bind_text(st, 1, hash, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, js, -1, SQLITE_TRANSIENT);
	for (i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		sqlite3_bind_text(st, 3 + i, jstr(fp, cols[i]), -1,
		    SQLITE_TRANSIENT);
	sqlite3_bind_double(st, 12, now_wall());
	if (sqlite3_step(st) != SQLITE_DONE)
		goto done;
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(s->db, "SELECT id FROM fingerprints WHERE hash=?",
	    -1, &st, NULL) != SQLITE_OK)
		goto done;
	sqlite3_bind_text(st, 1, hash, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
 done:
	if (id == -1)
		error("store: fingerprint: %s", sqlite3_errmsg(s->db));
	sqlite3_finalize(st);
	free(hash);
	free(js);
	return id;
}
