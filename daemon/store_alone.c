/*
 * store_alone.c: the store's side of running a lost case again alone
 * (alone.c): the next case of a run to run so, what it showed, and its
 * siblings back to pending when it was not lost again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

/*
 * The least case of run on device that gave no result (timeout or crash)
 * and has not been run alone: its id (how it was lost into first, "status:
 * detail"), 0 none, -1 the store refused.
 */
int64_t
store_alone_next(struct store *s, int64_t run, int device, char *first,
    size_t len)
{
	sqlite3_stmt	*st;
	int64_t		 id = -1;
	int		 rc;

	if (sqlite3_prepare_v2(store_db(s), "SELECT c.id, r.status, r.detail "
	    "FROM cases c JOIN "
	    "results r ON r.case_id = c.id WHERE c.run_id = ? AND c.device = ? "
	    "AND c.state = 'done' AND r.status IN ('timeout', 'crash') AND "
	    "r.alone IS NULL ORDER BY c.id LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int(st, 2, device);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		snprintf(first, len, "%s: %s", sqlite3_column_text(st, 1),
		    sqlite3_column_text(st, 2) ?: (const unsigned char *)"");
	} else if (rc == SQLITE_DONE)
		id = 0;
	sqlite3_finalize(st);
	return id;
}

/* Case id was lost again alone: marked, `how` added to its detail. */
int
store_alone_reproduced(struct store *s, int64_t id, const char *how)
{
	sqlite3_stmt	*st;

	if (sqlite3_prepare_v2(store_db(s), "UPDATE results SET alone = "
	    "'reproduced', alone_detail = ?1, detail = detail || '; ' || ?1 "
	    "WHERE case_id = ?2 AND alone IS NULL", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, how, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, id);
	return store_step_once(st);
}

/*
 * In the caller's transaction, after case id's result alone replaced the
 * one it was lost with: marked not reproduced (first: how it was lost),
 * and the cases of its run, device, key and dtype that were skipped
 * because it hung or crashed (reason 'skipped'; not those an earlier
 * run's hang skipped, 'skip_replay', which stay as when it had not hung)
 * are pending again, their results gone. Returns them ([[id, compile
 * class, device, key], ...]), NULL when the store refused.
 */
json_t *
store_alone_unskip(struct store *s, int64_t id, const char *first)
{
	static const char	*const sql[] = {
		"SELECT c.id, c.class = 'compile', c.device, c.key FROM cases c "
		    "JOIN cases o ON o.id = ?1 AND c.run_id = o.run_id AND "
		    "c.device = o.device AND c.key = o.key AND c.dtype = o.dtype "
		    "JOIN results r ON "
		    "r.case_id = c.id WHERE c.state = 'skipped' AND r.status = "
		    "'skipped' AND r.reason = 'skipped' ORDER BY c.id",
		"UPDATE results SET alone = 'not_reproduced', alone_detail = ?2 "
		    "WHERE case_id = ?1",
	};
	sqlite3_stmt	*st;
	json_t		*out, *ids;
	char		*js = NULL;
	int		 rc;

	if ((out = json_array()) == NULL || (ids = json_array()) == NULL) {
		json_decref(out);
		return NULL;
	}
	if (sqlite3_prepare_v2(store_db(s), sql[0], -1, &st, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_array_append_new(out, json_pack("[I b i s]", (json_int_t)
		    sqlite3_column_int64(st, 0), sqlite3_column_int(st, 1),
		    sqlite3_column_int(st, 2), (const char *)
		    sqlite3_column_text(st, 3)));
		json_array_append_new(ids, json_integer(sqlite3_column_int64(st,
		    0)));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		goto fail;
	if (sqlite3_prepare_v2(store_db(s), sql[1], -1, &st, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, first, -1, SQLITE_TRANSIENT);
	if (store_step_once(st) == -1)
		goto fail;
	if (json_array_size(ids) > 0) {
		if ((js = json_dumps(ids, JSON_COMPACT)) == NULL)
			goto fail;
		if (sqlite3_prepare_v2(store_db(s), "DELETE FROM results WHERE "
		    "case_id IN (SELECT value FROM json_each(?))", -1, &st,
		    NULL) != SQLITE_OK)
			goto fail;
		sqlite3_bind_text(st, 1, js, -1, SQLITE_TRANSIENT);
		if (store_step_once(st) == -1)
			goto fail;
		if (sqlite3_prepare_v2(store_db(s), "UPDATE cases SET state = "
		    "'pending' WHERE id IN (SELECT value FROM json_each(?))", -1,
		    &st, NULL) != SQLITE_OK)
			goto fail;
		sqlite3_bind_text(st, 1, js, -1, SQLITE_TRANSIENT);
		if (store_step_once(st) == -1)
			goto fail;
	}
	free(js);
	json_decref(ids);
	return out;
 fail:
	free(js);
	json_decref(ids);
	json_decref(out);
	return NULL;
}

/*
 * A run's lost cases run alone: {"reproduced": n, "not_reproduced": m}, on
 * any connection (the API's readers); NULL on an error.
 */
json_t *
store_alone_counts(sqlite3 *db, int64_t run)
{
	sqlite3_stmt	*st;
	json_t		*o = NULL;

	if (sqlite3_prepare_v2(db, "SELECT coalesce(sum(r.alone = 'reproduced'), "
	    "0), coalesce(sum(r.alone = 'not_reproduced'), 0) FROM cases c JOIN "
	    "results r ON r.case_id = c.id WHERE c.run_id = ? AND r.alone IS "
	    "NOT NULL", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, run);
	if (sqlite3_step(st) == SQLITE_ROW)
		o = json_pack("{sI sI}", "reproduced", (json_int_t)
		    sqlite3_column_int64(st, 0), "not_reproduced", (json_int_t)
		    sqlite3_column_int64(st, 1));
	sqlite3_finalize(st);
	return o;
}
