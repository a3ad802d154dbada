/*
 * store_event.c: the events table: what happened to a run (a completion,
 * a bootstrap hazard) or to the daemon, as JSON.
 */
#include <stdlib.h>

#include "store.h"

/* An event of run (0: of no run) of kind, obj as its JSON. */
int
store_event_add(struct store *s, int64_t run, const char *kind, json_t *obj,
    double created)
{
	sqlite3_stmt	*st;
	char		*js;
	int		 rc = -1;

	js = json_dumps(obj, JSON_COMPACT);
	if (sqlite3_prepare_v2(store_db(s), "INSERT INTO events (created, "
	    "run_id, kind, json) VALUES (?,?,?,?)", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_double(st, 1, created);
		if (run > 0)
			sqlite3_bind_int64(st, 2, run);
		else
			sqlite3_bind_null(st, 2);
		sqlite3_bind_text(st, 3, kind, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 4, js ? js : "{}", -1, SQLITE_TRANSIENT);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
		sqlite3_finalize(st);
	}
	free(js);
	return rc;
}
