/*
 * api_list.c: GET /allowlist and /denylist: the query's checks, the
 * fail-closed refusals in the asked format, the list rendered in each form
 * (JSON, text, CSV, flag_gems' YAML, the engines' blacklists) with its
 * provenance, and a cache of rendered lists per list generation.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "probes.h"

#define CACHE_MAX	64

/* Rendered lists, as MHD responses queued again and again (refcounted). */
struct cached {
	char			*key;
	struct MHD_Response	*resp;
	int			 status;
	unsigned long		 gen;
};

/* readers share it: a hit must not wait for another thread's hit */
static pthread_rwlock_t		 cache_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct cached		 cache[CACHE_MAX];
static int			 ncache;

/* ---- cache for the hot, read-only lists ----------------------------------- */

static int
cache_get(const char *key, struct MHD_Connection *c, enum MHD_Result *rc)
{
	unsigned long		 gen = lists_generation();
	struct MHD_Response	*resp = NULL;
	int			 i, status = 0;

	pthread_rwlock_rdlock(&cache_lock);
	for (i = 0; i < ncache; i++)
		if (cache[i].gen == gen && !strcmp(cache[i].key, key)) {
			resp = cache[i].resp;
			status = cache[i].status;
			/* queued under the lock: eviction cannot free it first */
			*rc = MHD_queue_response(c, status, resp);
			break;
		}
	pthread_rwlock_unlock(&cache_lock);
	return resp != NULL;
}

static void
cache_put(const char *key, unsigned long gen, int status, const char *ct,
    const char *body, size_t len)
{
	struct MHD_Response	*r;
	int			 i;

	r = MHD_create_response_from_buffer(len, (void *)body,
	    MHD_RESPMEM_MUST_COPY);
	if (r == NULL)
		return;
	resp_headers(r, ct);
	pthread_rwlock_wrlock(&cache_lock);
	if (ncache == CACHE_MAX) {
		for (i = 0; i < ncache; i++) {
			free(cache[i].key);
			MHD_destroy_response(cache[i].resp);
		}
		ncache = 0;
	}
	if ((cache[ncache].key = strdup(key)) != NULL) {
		cache[ncache].resp = r;
		cache[ncache].status = status;
		cache[ncache].gen = gen;
		ncache++;
	} else
		MHD_destroy_response(r);
	pthread_rwlock_unlock(&cache_lock);
}

/* ---- lists ------------------------------------------------------------------ */

static void
buf_add(char **buf, size_t *len, size_t *cap, const char *s)
{
	size_t	 n = strlen(s);
	char	*nb;

	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		if ((nb = realloc(*buf, *cap)) == NULL)
			return;
		*buf = nb;
	}
	memcpy(*buf + *len, s, n + 1);
	*len += n;
}

static void
csv_field(char **buf, size_t *len, size_t *cap, const char *s, int last)
{
	char	 one[2] = { 0, 0 };

	buf_add(buf, len, cap, "\"");
	for (; s && *s; s++) {
		one[0] = *s;
		buf_add(buf, len, cap, *s == '"' ? "\"\"" : one);
	}
	buf_add(buf, len, cap, last ? "\"\n" : "\",");
}

/* the CSV deny-list's columns; severity is empty for a hazard */
#define DENY_CSV_HEAD	"name,verdict,severity,reason,class,detail\n"

/* A double-quoted YAML scalar: names come from the library's table. */
static void
yaml_item(char **buf, size_t *len, size_t *cap, const char *s)
{
	char	 one[8];

	buf_add(buf, len, cap, "- \"");
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			snprintf(one, sizeof(one), "\\%c", *s);
		else if ((unsigned char)*s < 0x20 || *s == 0x7f)
			snprintf(one, sizeof(one), "\\x%02x", (unsigned char)*s);
		else
			snprintf(one, sizeof(one), "%c", *s);
		buf_add(buf, len, cap, one);
	}
	buf_add(buf, len, cap, "\"\n");
}

/* One `# ` line; control characters would end the comment early. */
static void
comment_line(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
comment_line(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
	va_list	 ap;
	char	 line[1024], *p;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	for (p = line; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
	buf_add(buf, len, cap, "# ");
	buf_add(buf, len, cap, line);
	buf_add(buf, len, cap, "\n");
}

static const char *
field_or_none(json_t *o, const char *k)
{
	const char	*s = json_string_value(json_object_get(o, k));

	return s && *s ? s : "none";
}

/* The provenance header of a text, CSV or YAML list (the JSON has fields). */
static void
list_header(char **buf, size_t *len, size_t *cap, json_t *list, int deny)
{
	json_t	*r;
	size_t	 i;

	comment_line(buf, len, cap, "opscreen %s: policy %s, mode %s, dtypes %s%s",
	    deny ? "denylist" : "allowlist", field_or_none(list, "policy"),
	    field_or_none(list, "mode"), field_or_none(list, "dtypes"),
	    json_is_true(json_object_get(list, "stale")) ? ", STALE (stale=ok: "
	    "not the current library's screen)" : "");
	if (deny)
		comment_line(buf, len, cap, "every name the allow-list of this "
		    "scope does not hold: %lld denied (measured failing), %lld "
		    "withheld (not verified in this scope)", (long long)
		    json_integer_value(json_object_get(list, "denied")),
		    (long long)json_integer_value(json_object_get(list,
		    "withheld")));
	if (!deny && json_array_size(json_object_get(list, "tolerated")) > 0) {
		char	 names[768] = "";
		size_t	 off = 0;

		json_array_foreach(json_object_get(list, "tolerated"), i, r)
			if (off < sizeof(names))
				off += snprintf(names + off, sizeof(names) - off,
				    "%s%s", i ? ", " : "", json_string_value(r));
		comment_line(buf, len, cap, "allowed by policy %s although they "
		    "fail, every failure numerics: %s", field_or_none(list,
		    "policy"), names);
	}
	if (json_is_number(json_object_get(list, "faster")))
		comment_line(buf, len, cap, "faster=%g: only names whose every "
		    "screened case ran at %g x native's speed or more (steady "
		    "state, same inputs)", json_number_value(json_object_get(list,
		    "faster")), json_number_value(json_object_get(list, "faster")));
	json_array_foreach(json_object_get(list, "runs"), i, r)
		comment_line(buf, len, cap, "device %lld: run %lld completed %s; "
		    "library %s %s source %s; torch %s; triton %s; cuda %s; "
		    "driver %s; gpu %s uuid %s",
		    (long long)json_integer_value(json_object_get(r, "device")),
		    (long long)json_integer_value(json_object_get(r, "run")),
		    field_or_none(r, "completed"), field_or_none(r, "library"),
		    field_or_none(r, "library_version"),
		    field_or_none(r, "library_hash"), field_or_none(r, "torch"),
		    field_or_none(r, "triton"), field_or_none(r, "cuda"),
		    field_or_none(r, "driver"), field_or_none(r, "gpu_name"),
		    field_or_none(r, "gpu_uuid"));
	json_array_foreach(json_object_get(list, "runs"), i, r)
		if (json_integer_value(json_object_get(r, "carried_keys")) > 0)
			comment_line(buf, len, cap, "device %lld: %lld keys "
			    "measured in run %lld, %lld carried from earlier "
			    "screens (source unchanged; JSON: runs[].carried)",
			    (long long)json_integer_value(json_object_get(r,
			    "device")), (long long)json_integer_value(
			    json_object_get(r, "measured_keys")), (long long)
			    json_integer_value(json_object_get(r, "run")),
			    (long long)json_integer_value(json_object_get(r,
			    "carried_keys")));
}

/*
 * The engines' own forms of the allow-list (docs/design.md, "Engines"): the
 * plugins that load FlagGems into vLLM and SGLang read comma lists of
 * FlagGems function names from the environment, or a YAML file
 * (VLLM_FL_CONFIG). Each is served as a BLACKLIST of every registered name
 * the allow-list does not hold: an empty whitelist means "enable every op"
 * to vllm-plugin-FL, and some versions ignore the YAML whitelist, so only
 * the blacklist fails closed.
 */
enum engine_form { ENGINE_NONE, ENGINE_VLLM_ENV, ENGINE_VLLM_YAML,
	ENGINE_SGLANG_ENV };

static enum engine_form
engine_form(const char *fmt)
{
	if (!strcmp(fmt, "vllm-env"))
		return ENGINE_VLLM_ENV;
	if (!strcmp(fmt, "vllm-yaml"))
		return ENGINE_VLLM_YAML;
	if (!strcmp(fmt, "sglang-env"))
		return ENGINE_SGLANG_ENV;
	return ENGINE_NONE;
}

/*
 * The blacklist body: every name of registered that allowed (NULL: none)
 * does not hold. refuse: the 503 form, which also turns FlagGems off where
 * the plugin has such a switch (USE_FLAGGEMS=0 in both plugins' env forms).
 * registered NULL: the table is not known, so no name can be listed; the
 * vllm-yaml form then has no way to turn FlagGems off (docs/consumers.md).
 */
static void
engine_body(char **out, size_t *len, size_t *cap, enum engine_form f,
    const json_t *registered, const json_t *allowed, int refuse)
{
	const json_t	*n, *a;
	json_t		*black;
	size_t		 i, j;
	int		 held;

	/* both plugins' global switch: an explicit 0 (empty is off to
	 * vllm-plugin-FL and on to sglang-plugin-FL; docs/consumers.md) */
	if (refuse && (f == ENGINE_VLLM_ENV || f == ENGINE_SGLANG_ENV))
		buf_add(out, len, cap, "USE_FLAGGEMS=0\n");
	if (registered == NULL) {
		if (f == ENGINE_VLLM_YAML)
			/* not a list: the plugin's loader fails on it */
			buf_add(out, len, cap, "flagos_blacklist: true\n");
		return;
	}
	black = json_array();
	json_array_foreach(registered, i, n) {
		held = 0;
		json_array_foreach(allowed, j, a)
			if (json_equal(a, n))
				held = 1;
		if (!held)
			json_array_append(black, (json_t *)n);
	}
	if (f == ENGINE_VLLM_YAML) {
		buf_add(out, len, cap, json_array_size(black) ?
		    "flagos_blacklist:\n" : "flagos_blacklist: []\n");
		json_array_foreach(black, i, n)
			yaml_item(out, len, cap, json_string_value(n));
	} else {
		buf_add(out, len, cap, f == ENGINE_VLLM_ENV ?
		    "VLLM_FL_FLAGOS_BLACKLIST=" : "SGLANG_FL_FLAGOS_BLACKLIST=");
		json_array_foreach(black, i, n) {
			if (i > 0)
				buf_add(out, len, cap, ",");
			buf_add(out, len, cap, json_string_value(n));
		}
		buf_add(out, len, cap, "\n");
	}
	json_decref(black);
}

/*
 * The names a blacklist must hold: the library's table as its runners report
 * it now; while none has (a library that fails to load, a device that does
 * not answer), the table the newest screen in the store recorded, with
 * *stored set to its run; NULL when neither is known.
 */
static json_t *
blacklist_names(int64_t *stored)
{
	json_t		*reg = sched_registered_names();
	sqlite3		*db;
	sqlite3_stmt	*st;

	*stored = 0;
	if (reg != NULL || (db = store_reader(env->conf.database)) == NULL)
		return reg;
	if (sqlite3_prepare_v2(db, "SELECT name, run_id FROM entries WHERE "
	    "run_id = (SELECT max(run_id) FROM entries) GROUP BY name ORDER BY "
	    "name", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	reg = json_array();
	while (sqlite3_step(st) == SQLITE_ROW) {
		json_array_append_new(reg, json_string((const char *)
		    sqlite3_column_text(st, 0)));
		*stored = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (json_array_size(reg) == 0) {
		json_decref(reg);
		return NULL;
	}
	return reg;
}

/*
 * A list that cannot be served: JSON gets the error object; text, CSV and
 * YAML get a body that enables nothing when a script ignores the status (an
 * empty allow-list; a deny-list of every registered name), because a
 * deployment that writes the body to only_enable.yaml or unused.yaml and
 * loads it would otherwise read "no include/exclude" and enable every op.
 */
static enum MHD_Result
list_refuse(struct MHD_Connection *c, int status, const char *fmt, int deny,
    json_t *err)
{
	const char	*msg, *ct, *why;
	char		*out = NULL, *s;
	size_t		 len = 0, cap = 0, i;
	json_t		*names = NULL, *n;
	int64_t		 stored = 0;

	json_object_set_new(err, "status", json_integer(status));
	if (!strcmp(fmt, "json") && deny &&
	    (names = blacklist_names(&stored)) != NULL) {
		json_t	*ex = json_array();

		/* for a client that reads `names` whatever the status: every
		 * known name excluded, withheld for the error */
		msg = json_string_value(json_object_get(err, "error")) ?: "no list";
		json_array_foreach(names, i, n)
			json_array_append_new(ex, json_pack("{sO ss sn ss+ sn ss}",
			    "name", n, "verdict", "withheld", "severity", "reason",
			    "withheld: ", msg, "class", "detail", ""));
		json_object_set_new(err, "names", ex);
		json_object_set_new(err, "denied", json_integer(0));
		json_object_set_new(err, "withheld", json_integer(
		    json_array_size(names)));
		if (stored)
			json_object_set_new(err, "table_from_run",
			    json_integer(stored));
		json_decref(names);
		names = NULL;
	}
	if (!strcmp(fmt, "json")) {
		s = json_dumps(err, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
		json_decref(err);
		if (s == NULL)
			return MHD_NO;
		/* not cached: fingerprints change without a generation bump */
		return send_buf(c, status, CT_JSON, s, strlen(s));
	}
	msg = json_string_value(json_object_get(err, "error")) ?: "no list";
	why = json_string_value(json_object_get(err, "why"));
	ct = !strcmp(fmt, "text") ? CT_TEXT : !strcmp(fmt, "csv") ? CT_CSV :
	    engine_form(fmt) == ENGINE_VLLM_ENV ||
	    engine_form(fmt) == ENGINE_SGLANG_ENV ? CT_TEXT : CT_YAML;
	buf_add(&out, &len, &cap, "");
	comment_line(&out, &len, &cap, "opscreen %s: HTTP %d: %s", deny ?
	    "denylist" : "allowlist", status, msg);
	if (why)
		comment_line(&out, &len, &cap, "why: %s", why);
	if (engine_form(fmt) != ENGINE_NONE) {
		names = blacklist_names(&stored);
		if (stored)
			comment_line(&out, &len, &cap, "the library's table is "
			    "not known now: the names of the table run %lld "
			    "stored are blacklisted", (long long)stored);
		comment_line(&out, &len, &cap, names ? "no name is verified: "
		    "every registered name is blacklisted" : "the library's "
		    "registration table is not known: no name can be listed; "
		    "use the HTTP status (curl -f)");
		engine_body(&out, &len, &cap, engine_form(fmt), names, NULL, 1);
		goto send;
	}
	if (!deny) {
		comment_line(&out, &len, &cap, "no name is verified: this list "
		    "enables nothing");
		if (!strcmp(fmt, "yaml"))
			buf_add(&out, &len, &cap, "include: []\n");
		else if (!strcmp(fmt, "csv"))
			buf_add(&out, &len, &cap, "name\n");
		goto send;
	}
	if ((names = blacklist_names(&stored)) != NULL && stored)
		comment_line(&out, &len, &cap, "the library's table is not known "
		    "now: the names of the table run %lld stored are excluded",
		    (long long)stored);
	if (names == NULL) {
		comment_line(&out, &len, &cap, "the library's registration table "
		    "is not known (no runner has reported it), so no name can be "
		    "listed here: use the HTTP status (curl -f)");
		if (!strcmp(fmt, "yaml")) {
			/* not a list on purpose: a loader that expects one fails */
			comment_line(&out, &len, &cap, "`exclude: true` is not a "
			    "list: flag_gems.enable(unused=this file) raises "
			    "instead of enabling every op");
			buf_add(&out, &len, &cap, "exclude: true\n");
		} else if (!strcmp(fmt, "csv"))
			buf_add(&out, &len, &cap, DENY_CSV_HEAD);
		goto send;
	}
	comment_line(&out, &len, &cap, "every registered name is excluded: "
	    "this list enables nothing");
	if (!strcmp(fmt, "yaml"))
		buf_add(&out, &len, &cap, json_array_size(names) ? "exclude:\n" :
		    "exclude: []\n");
	else if (!strcmp(fmt, "csv"))
		buf_add(&out, &len, &cap, DENY_CSV_HEAD);
	json_array_foreach(names, i, n) {
		if (!strcmp(fmt, "yaml"))
			yaml_item(&out, &len, &cap, json_string_value(n));
		else if (!strcmp(fmt, "text")) {
			buf_add(&out, &len, &cap, json_string_value(n));
			buf_add(&out, &len, &cap, "\n");
		} else {
			csv_field(&out, &len, &cap, json_string_value(n), 0);
			csv_field(&out, &len, &cap, "withheld", 0);
			csv_field(&out, &len, &cap, "", 0);
			csv_field(&out, &len, &cap, msg, 0);
			csv_field(&out, &len, &cap, "", 0);
			csv_field(&out, &len, &cap, "", 1);
		}
	}
 send:
	json_decref(names);
	json_decref(err);
	if (out == NULL)
		return send_error(c, 500, "out of memory");
	return send_buf(c, status, ct, out, len);
}

static enum MHD_Result
list_refusef(struct MHD_Connection *c, int status, const char *fmt, int deny,
    const char *msgfmt, ...) __attribute__((format(printf, 5, 6)));

static enum MHD_Result
list_refusef(struct MHD_Connection *c, int status, const char *fmt, int deny,
    const char *msgfmt, ...)
{
	va_list	 ap;
	char	 msg[1024];
	json_t	*err;

	va_start(ap, msgfmt);
	vsnprintf(msg, sizeof(msg), msgfmt, ap);
	va_end(ap);
	/* a query value cut inside a character is no UTF-8: jansson refuses it */
	utf8_scrub(msg);
	if ((err = json_pack("{ss}", "error", msg)) == NULL)
		err = json_pack("{ss}", "error", "the request's values are not "
		    "valid UTF-8");
	return list_refuse(c, status, fmt, deny, err);
}

/*
 * The deny-list's exclusions beyond the serving screen's table: a name the
 * library registers now that the screen serving the list never had (stale=ok
 * after an upgrade added it) is excluded too, withheld as never screened.
 */
static void
deny_unlisted(json_t *dlist, json_t *allow)
{
	json_t		*reg = sched_registered_names(), *seen = json_object();
	json_t		*names = json_object_get(dlist, "names"), *e;
	size_t		 i;
	json_int_t	 n = json_integer_value(json_object_get(dlist, "withheld"));

	if (reg == NULL) {
		json_decref(seen);
		return;
	}
	json_array_foreach(json_object_get(allow, "names"), i, e)
		json_object_set(seen, json_string_value(e), json_true());
	json_array_foreach(names, i, e)
		json_object_set(seen, json_string_value(json_object_get(e,
		    "name")), json_true());
	json_array_foreach(reg, i, e) {
		if (!json_is_string(e) || json_object_get(seen,
		    json_string_value(e)))
			continue;
		json_object_set(seen, json_string_value(e), json_true());
		json_array_append_new(names, json_pack("{sO ss sn ss sn ss "
		    "s[{ss}]}", "name", e, "verdict", "withheld", "severity",
		    "reason", "withheld: registered by the library now, not in "
		    "the table of the screen this list comes from", "class",
		    "detail", "", "reasons", "reason", "not in the table of the "
		    "screen this list comes from"));
		n++;
	}
	json_object_set_new(dlist, "withheld", json_integer(n));
	json_decref(seen);
	json_decref(reg);
}

enum MHD_Result
serve_list(struct MHD_Connection *c, int deny)
{
	static const char	*allowed[] = { "format", "dtypes", "gpu", "stale",
	    "policy", "faster", "mode", "deterministic", NULL };
	struct rollup_query	 q;
	const char		*fmt, *v, *ct;
	char			 bad[128], ckey[512], *out = NULL;
	json_t			*allow, *dlist, *err, *fps, *names, *e, *list;
	int			 status;
	size_t			 len = 0, cap = 0, i;
	unsigned long		 gen;
	enum MHD_Result		 rc;
	sqlite3			*db;

	/* the format first: every refusal after it is given in that format */
	fmt = arg(c, "format") ? arg(c, "format") : "json";
	if (strcmp(fmt, "json") && strcmp(fmt, "text") && strcmp(fmt, "csv") &&
	    strcmp(fmt, "yaml") && engine_form(fmt) == ENGINE_NONE)
		return send_error(c, 400, "format must be json, text, csv, yaml, "
		    "vllm-env, vllm-yaml or sglang-env");
	if (deny && engine_form(fmt) != ENGINE_NONE)
		return send_error(c, 400, "format=%s is an allow-list form (a "
		    "blacklist of every name not verified): GET /allowlist?"
		    "format=%s", fmt, fmt);
	if (query_unknown(c, allowed, bad, sizeof(bad)))
		return list_refusef(c, 400, fmt, deny, "unknown query parameter "
		    "'%s' (known: format, dtypes, gpu, stale, policy, faster, "
		    "mode, deterministic)", bad);
	memset(&q, 0, sizeof(q));
	q.gpu = -1;
	if ((v = arg(c, "dtypes")) != NULL) {
		if (!valid_dtype_list(v, bad, sizeof(bad)))
			return list_refusef(c, 400, fmt, deny, "dtypes: unknown "
			    "dtype '%s'", bad);
		snprintf(q.dtypes, sizeof(q.dtypes), "%s", v);
	}
	if ((v = arg(c, "gpu")) != NULL) {
		int64_t	 g;

		if (!strcmp(v, "cpu"))
			q.gpu = -1;
		else if (!strcmp(v, "0"))
			q.gpu = 0;
		else if (parse_id(v, &g) == -1 || g >= MAX_DEVICES)
			return list_refusef(c, 400, fmt, deny, "gpu must be a GPU "
			    "index");
		else
			q.gpu = (int)g;
		if (!strcmp(v, "cpu") && !env->cpu)
			return list_refusef(c, 400, fmt, deny, "this daemon screens "
			    "GPUs, not the cpu");
	}
	if ((v = arg(c, "stale")) != NULL) {
		if (strcmp(v, "ok") && strcmp(v, "no"))
			return list_refusef(c, 400, fmt, deny, "stale must be ok "
			    "or no");
		q.stale_ok = !strcmp(v, "ok");
	}
	if ((v = arg(c, "policy")) != NULL &&
	    rollup_policy_parse(v, &q.policy) == -1)
		return list_refusef(c, 400, fmt, deny, "policy must be strict or "
		    "tolerant");
	if ((v = arg(c, "faster")) != NULL) {
		char	*end;

		errno = 0;
		q.faster = strtod(v, &end);
		if (errno != 0 || end == v || *end != '\0' || !(q.faster > 0) ||
		    q.faster > 1000)
			return list_refusef(c, 400, fmt, deny, "faster must be a "
			    "number above 0 and at most 1000 (the speed relative "
			    "to native's that every screened case of a name must "
			    "reach: 1 = never slower)");
	}
	if ((v = arg(c, "mode")) != NULL && rollup_mode_parse(v, &q.mode) == -1)
		return list_refusef(c, 400, fmt, deny, "mode must be eager, "
		    "compile or cudagraph");
	if ((v = arg(c, "deterministic")) != NULL) {
		if (strcmp(v, "0") && strcmp(v, "1"))
			return list_refusef(c, 400, fmt, deny, "deterministic "
			    "must be 0 or 1 (1: leave out names whose output "
			    "bits differed between two calls on the same inputs)");
		q.deterministic = !strcmp(v, "1");
	}
	snprintf(ckey, sizeof(ckey), "%d|%s|%s|%d|%d|%s|%.17g|%s|%d", deny, fmt,
	    q.dtypes, q.gpu, q.stale_ok, rollup_policy_name(q.policy), q.faster,
	    rollup_mode_name(q.mode), q.deterministic);
	if (env->fault[0] != '\0')	/* nothing screened: nothing vouched for */
		return list_refusef(c, 503, fmt, deny, "%s", env->fault);
	/* fail-closed: a library that may have changed unseen is not vouched for */
	if (!q.stale_ok && !sched_fingerprint_fresh())
		return list_refusef(c, 503, fmt, deny, "the library fingerprint "
		    "has not been re-read within runner.fingerprint_period "
		    "(runners busy or down); add stale=ok to accept the last "
		    "complete screen");
	if (cache_get(ckey, c, &rc))
		return rc;
	gen = lists_generation();
	if ((db = store_reader(env->conf.database)) == NULL)
		return list_refusef(c, 500, fmt, deny, "store unavailable");
	fps = sched_current_fingerprints();
	rollup_lists(db, &q, fps, &allow, &dlist, &status, &err);
	if (status == 503 && json_object_get(err, "fingerprint")) {
		json_t	*d;
		size_t	 i;

		/* say what changed, so the operator sees which upgrade did it */
		json_array_foreach(fps, i, d)
			if (json_equal(json_object_get(d, "device"),
			    json_object_get(err, "device")) &&
			    json_object_get(d, "previous_fingerprint")) {
				json_object_set(err, "previous_fingerprint",
				    json_object_get(d, "previous_fingerprint"));
				json_object_set_new(err, "changed", json_true());
			}
	}
	json_decref(fps);
	if (status != 200)
		return list_refuse(c, status, fmt, deny, err);
	if (deny)
		deny_unlisted(dlist, allow);
	list = deny ? dlist : allow;
	names = json_object_get(list, "names");
	ct = CT_JSON;
	if (!strcmp(fmt, "json")) {
		out = json_dumps(list, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
		len = out ? strlen(out) : 0;
	} else if (!strcmp(fmt, "text")) {
		ct = CT_TEXT;
		buf_add(&out, &len, &cap, "");
		list_header(&out, &len, &cap, list, deny);
		json_array_foreach(names, i, e) {
			buf_add(&out, &len, &cap, deny ? json_string_value(
			    json_object_get(e, "name")) : json_string_value(e));
			buf_add(&out, &len, &cap, "\n");
		}
	} else if (engine_form(fmt) != ENGINE_NONE) {
		json_t	*reg = sched_registered_names();

		if (reg == NULL) {
			json_decref(allow);
			json_decref(dlist);
			return list_refusef(c, 503, fmt, deny, "the library's "
			    "registration table is not known yet (no runner has "
			    "reported it): no blacklist can be complete");
		}
		ct = engine_form(fmt) == ENGINE_VLLM_YAML ? CT_YAML : CT_TEXT;
		buf_add(&out, &len, &cap, "");
		list_header(&out, &len, &cap, list, deny);
		comment_line(&out, &len, &cap, "a blacklist of every registered "
		    "name this allow-list does not hold (%zu allowed of %zu)",
		    json_array_size(names), json_array_size(reg));
		engine_body(&out, &len, &cap, engine_form(fmt), reg, names, 0);
		json_decref(reg);
	} else if (!strcmp(fmt, "csv")) {
		ct = CT_CSV;
		buf_add(&out, &len, &cap, "");
		list_header(&out, &len, &cap, list, deny);
		buf_add(&out, &len, &cap, deny ? DENY_CSV_HEAD : "name\n");
		json_array_foreach(names, i, e) {
			if (!deny) {
				csv_field(&out, &len, &cap, json_string_value(e), 1);
				continue;
			}
			csv_field(&out, &len, &cap, json_string_value(
			    json_object_get(e, "name")), 0);
			csv_field(&out, &len, &cap, json_string_value(
			    json_object_get(e, "verdict")), 0);
			csv_field(&out, &len, &cap, json_string_value(
			    json_object_get(e, "severity")), 0);
			csv_field(&out, &len, &cap, json_string_value(
			    json_object_get(e, "reason")), 0);
			csv_field(&out, &len, &cap, json_string_value(
			    json_object_get(e, "class")), 0);
			csv_field(&out, &len, &cap, json_string_value(
			    json_object_get(e, "detail")), 1);
		}
	} else {
		/* flag_gems loads `include:` / `exclude:` lists */
		ct = CT_YAML;
		buf_add(&out, &len, &cap, "");
		list_header(&out, &len, &cap, list, deny);
		buf_add(&out, &len, &cap, deny ? "exclude:" : "include:");
		if (json_array_size(names) == 0)
			buf_add(&out, &len, &cap, " []");
		buf_add(&out, &len, &cap, "\n");
		json_array_foreach(names, i, e)
			yaml_item(&out, &len, &cap, deny ? json_string_value(
			    json_object_get(e, "name")) : json_string_value(e));
	}
	json_decref(allow);
	json_decref(dlist);
	if (out == NULL)
		return send_error(c, 500, "out of memory");
	cache_put(ckey, gen, 200, ct, out, len);
	return send_buf(c, 200, ct, out, len);
}
