/*
 * metrics.c: GET /metrics in the Prometheus text format (version 0.0.4).
 * Per-device series carry gpu="N" and UUID="GPU-..." spelled the way
 * dcgm-exporter spells them, so the two join on a dashboard without relabelling.
 */
#include <sys/resource.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscreend.h"
#include "verdict.h"

#define METRICS_MAX	(4u * 1024 * 1024)	/* bound on one answer */

struct mbuf {
	char	*buf;
	size_t	 len, cap;
	int	 full;
};

static void
metrics_add(struct mbuf *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
metrics_add(struct mbuf *m, const char *fmt, ...)
{
	va_list	 ap;
	int	 n;
	size_t	 nc;
	char	*nb;

	if (m->full)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(m->buf + m->len, m->cap - m->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			m->full = 1;
			return;
		}
		if (m->len + n < m->cap) {
			m->len += n;
			return;
		}
		nc = m->cap * 2 > m->len + n + 1 ? m->cap * 2 : m->len + n + 1;
		if (nc > METRICS_MAX || (nb = realloc(m->buf, nc)) == NULL) {
			/* a truncated exposition is worse than none: say so */
			m->full = 1;
			return;
		}
		m->buf = nb;
		m->cap = nc;
	}
}

static void
metrics_head(struct mbuf *m, const char *name, const char *type,
    const char *help)
{
	metrics_add(m, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value with \, " and newline escaped as the text format asks. */
static void
metrics_escape(const char *s, char *out, size_t len)
{
	size_t	 j = 0;

	for (; s && *s && j + 3 < len; s++) {
		if (*s == '\\' || *s == '"') {
			out[j++] = '\\';
			out[j++] = *s;
		} else if (*s == '\n') {
			out[j++] = '\\';
			out[j++] = 'n';
		} else
			out[j++] = *s;
	}
	out[j] = '\0';
}

/* gpu="0",UUID="GPU-..." for a device; the cpu is gpu="cpu",UUID="". */
static void
metrics_labels(json_t *fps, int device, char *out, size_t len)
{
	json_t		*d;
	size_t		 i;
	const char	*uuid = "";
	char		 esc[256];

	json_array_foreach(fps, i, d)
		if (json_integer_value(json_object_get(d, "device")) == device)
			uuid = json_string_value(json_object_get(json_object_get(d,
			    "fingerprint"), "gpu_uuid")) ?: "";
	metrics_escape(uuid, esc, sizeof(esc));
	if (device < 0)
		snprintf(out, len, "gpu=\"cpu\",UUID=\"%s\"", esc);
	else
		snprintf(out, len, "gpu=\"%d\",UUID=\"%s\"", device, esc);
}

static int64_t
metrics_scalar(sqlite3 *db, const char *sql, int64_t dflt)
{
	sqlite3_stmt	*st;
	int64_t		 v = dflt;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return dflt;
	if (sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/*
 * One device's names per state under one policy (a name policy=tolerant
 * allows counts as verified there) into m, and its denied names per
 * severity into denied; 1 when its lists are served, with *serving the run.
 */
static int
metrics_policy(struct mbuf *m, struct mbuf *denied, sqlite3 *db, json_t *fps,
    int device, const char *lab, enum rollup_policy policy, int64_t *serving)
{
	struct rollup_query	 q;
	json_t			*allow, *deny, *err, *e, *r;
	size_t			 j, k;
	int64_t			 count[VERDICT_NVERDICTS];
	int64_t			 nsev[VERDICT_NSEVERITIES];
	enum verdict		 v;
	enum severity		 sv;
	int			 status;
	const char		*pn = rollup_policy_name(policy);

	memset(&q, 0, sizeof(q));
	q.gpu = device;
	q.policy = policy;
	rollup_lists(db, &q, fps, &allow, &deny, &status, &err);
	if (status == 200) {
		memset(count, 0, sizeof(count));
		memset(nsev, 0, sizeof(nsev));
		count[VERDICT_VERIFIED] = json_array_size(json_object_get(allow,
		    "names"));
		json_array_foreach(json_object_get(deny, "names"), j, e) {
			if (verdict_parse(json_string_value(json_object_get(e,
			    "verdict")), &v) == -1)
				v = VERDICT_BROKEN;
			/* the withheld it also excludes: counted below */
			if (v == VERDICT_WITHHELD || v == VERDICT_INCONCLUSIVE)
				continue;
			if (v != VERDICT_HAZARD)
				v = VERDICT_BROKEN;
			count[v]++;
			if (severity_parse(json_string_value(json_object_get(e,
			    "severity")), &sv) == 0)
				nsev[sv]++;
		}
		json_array_foreach(json_object_get(allow, "withheld"), j, e) {
			int	 inc = 0;

			json_array_foreach(json_object_get(e, "reasons"), k, r)
				if (verdict_parse(json_string_value(
				    json_object_get(r, "verdict")), &v) == 0 &&
				    v == VERDICT_INCONCLUSIVE)
					inc = 1;
			count[inc ? VERDICT_INCONCLUSIVE : VERDICT_WITHHELD]++;
		}
		for (j = 0; j < VERDICT_NVERDICTS; j++)
			metrics_add(m, "opscreen_names{%s,policy=\"%s\","
			    "state=\"%s\"} %lld\n", lab, pn,
			    verdict_name((enum verdict)j), (long long)count[j]);
		for (j = SEVERITY_NUMERICS; j < VERDICT_NSEVERITIES; j++)
			metrics_add(denied, "opscreen_denied_names{%s,policy="
			    "\"%s\",severity=\"%s\"} %lld\n", lab, pn,
			    severity_name((enum severity)j), (long long)nsev[j]);
		*serving = json_integer_value(json_object_get(json_array_get(
		    json_object_get(allow, "runs"), 0), "run"));
	}
	json_decref(allow);
	json_decref(deny);
	json_decref(err);
	return status == 200;
}

/* Names per state and policy in the run that serves each device's lists. */
static void
metrics_names(struct mbuf *m, sqlite3 *db, json_t *fps)
{
	json_t			*d;
	size_t			 i;
	int64_t			 serving;
	char			 lab[320];
	int			 device, served, p;
	struct mbuf		 srv = { 0 }, run = { 0 }, denied = { 0 };

	metrics_head(m, "opscreen_names", "gauge", "Enable names per state in "
	    "the complete full screen that serves the device's lists, per list "
	    "policy (under tolerant a name whose failures are all numerics "
	    "counts as verified).");
	json_array_foreach(fps, i, d) {
		device = json_integer_value(json_object_get(d, "device"));
		metrics_labels(fps, device, lab, sizeof(lab));
		serving = 0;
		served = 0;
		for (p = 0; p < ROLLUP_NPOLICIES; p++)
			served |= metrics_policy(m, &denied, db, fps, device, lab,
			    (enum rollup_policy)p, &serving);
		metrics_add(&srv, "opscreen_lists_served{%s} %d\n", lab, served);
		metrics_add(&run, "opscreen_serving_run{%s} %lld\n", lab,
		    (long long)serving);
	}
	metrics_head(m, "opscreen_denied_names", "gauge", "Broken names on the "
	    "device's deny-list per list policy and severity (the worst of "
	    "their failures: critical, loud, numerics).");
	metrics_add(m, "%s", denied.buf ? denied.buf : "");
	metrics_head(m, "opscreen_lists_served", "gauge", "1 when the device's "
	    "current library fingerprint has a complete full screen (lists are "
	    "served), else 0 (/allowlist answers 503).");
	metrics_add(m, "%s", srv.buf ? srv.buf : "");
	metrics_head(m, "opscreen_serving_run", "gauge", "Id of the run that "
	    "serves the device's lists, 0 when none.");
	metrics_add(m, "%s", run.buf ? run.buf : "");
	m->full |= srv.full | run.full | denied.full;
	free(srv.buf);
	free(run.buf);
	free(denied.buf);
}

/* Cases per status in the newest run that has started. */
static void
metrics_cases(struct mbuf *m, sqlite3 *db, json_t *fps)
{
	static const char	*statuses[] = { "pass", "fail", "na",
	    "degenerate", "error", "timeout", "crash", "skipped", "pending" };
	sqlite3_stmt		*st;
	json_t			*d;
	int64_t			 last;
	size_t			 i, j;
	char			 lab[320];
	int			 device;

	last = metrics_scalar(db, "SELECT max(id) FROM runs WHERE state != "
	    "'queued'", 0);
	metrics_head(m, "opscreen_last_run_id", "gauge", "Id of the newest run "
	    "that has started.");
	metrics_add(m, "opscreen_last_run_id %lld\n", (long long)last);
	metrics_head(m, "opscreen_last_run_cases", "gauge", "Cases of the newest "
	    "run that has started, per status (pending: no result yet).");
	if (last <= 0)
		return;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM cases c LEFT JOIN "
	    "results r ON r.case_id = c.id WHERE c.run_id=? AND c.device=? AND "
	    "coalesce(r.status, 'pending')=?", -1, &st, NULL) != SQLITE_OK)
		return;
	json_array_foreach(fps, i, d) {
		device = json_integer_value(json_object_get(d, "device"));
		metrics_labels(fps, device, lab, sizeof(lab));
		for (j = 0; j < sizeof(statuses) / sizeof(statuses[0]); j++) {
			sqlite3_reset(st);
			sqlite3_bind_int64(st, 1, last);
			sqlite3_bind_int(st, 2, device);
			sqlite3_bind_text(st, 3, statuses[j], -1, SQLITE_STATIC);
			metrics_add(m, "opscreen_last_run_cases{%s,status=\"%s\"} "
			    "%lld\n", lab, statuses[j], sqlite3_step(st) ==
			    SQLITE_ROW ? (long long)sqlite3_column_int64(st, 0) : 0LL);
		}
	}
	sqlite3_finalize(st);	/* its lost cases run again alone (alone.c) */
	if ((d = store_alone_counts(db, last)) != NULL) {
		metrics_head(m, "opscreen_last_run_alone_cases", "gauge", "Cases "
		    "of the newest run that has started that gave no result "
		    "(timeout, crash) and ran again alone: reproduced (charged) "
		    "or not_reproduced (their result alone is theirs).");
		metrics_add(m, "opscreen_last_run_alone_cases{outcome=\"reproduced"
		    "\"} %lld\n", (long long)json_integer_value(json_object_get(d,
		    "reproduced")));
		metrics_add(m, "opscreen_last_run_alone_cases{outcome=\""
		    "not_reproduced\"} %lld\n", (long long)json_integer_value(
		    json_object_get(d, "not_reproduced")));
		json_decref(d);
	}
}

/*
 * Whether the consensus phase of the device's newest complete full screen
 * quarantined it (docs/design.md, "Several GPUs"): alert on it, the device's
 * lists and the host's answer 503 until a later screen clears it.
 */
static void
metrics_quarantine(struct mbuf *m, sqlite3 *db, json_t *fps)
{
	sqlite3_stmt	*st;
	json_t		*d;
	size_t		 i;
	char		 lab[320];
	int		 device;

	metrics_head(m, "opscreen_device_quarantined", "gauge", "1 when the "
	    "consensus phase of the device's newest complete full screen found "
	    "it computing differently from the host's other devices (its lists "
	    "and the host's answer 503), else 0.");
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM quarantine WHERE "
	    "device=?1 AND run_id = (SELECT max(r.id) FROM runs r JOIN "
	    "run_devices d ON d.run_id = r.id WHERE r.state='complete' AND "
	    "r.full=1 AND d.device=?1)", -1, &st, NULL) != SQLITE_OK)
		return;
	json_array_foreach(fps, i, d) {
		device = json_integer_value(json_object_get(d, "device"));
		metrics_labels(fps, device, lab, sizeof(lab));
		sqlite3_reset(st);
		sqlite3_bind_int(st, 1, device);
		metrics_add(m, "opscreen_device_quarantined{%s} %d\n", lab,
		    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st,
		    0) > 0);
	}
	sqlite3_finalize(st);
}

/*
 * opscreen_build_info (the daemon's own version) and, per device, an info
 * metric with the library fingerprint it screens, labelled as
 * dcgm-exporter labels a GPU (gpu, UUID, modelName, plus the driver) so the
 * two join in PromQL: `... * on(UUID) group_left(library_version)
 * opscreen_device_info`.
 */
static void
metrics_build_info(struct mbuf *m, json_t *fps)
{
	static const char *const keys[] = { "library", "library_version",
	    "library_hash", "torch", "triton", "cuda", "driver", "gpu_name" };
	static const char *const labs[] = { "library", "library_version",
	    "library_hash", "torch", "triton", "cuda", "driver_version",
	    "modelName" };
	json_t		*d, *fp;
	size_t		 i, k;
	char		 lab[320], esc[256], line[2048];
	int		 n;

	metrics_head(m, "opscreen_build_info", "gauge", "Always 1; the "
	    "opscreend version in its label.");
	metrics_add(m, "opscreen_build_info{version=\"%s\"} 1\n",
	    OPSCREEN_VERSION);
	metrics_head(m, "opscreen_device_info", "gauge", "Always 1 per device; "
	    "the library fingerprint screened there and the device in "
	    "dcgm-exporter's labels.");
	json_array_foreach(fps, i, d) {
		fp = json_object_get(d, "fingerprint");
		if (!json_is_object(fp))
			continue;
		metrics_labels(fps, json_integer_value(json_object_get(d,
		    "device")), lab, sizeof(lab));
		n = snprintf(line, sizeof(line), "%s", lab);
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			metrics_escape(json_string_value(json_object_get(fp,
			    keys[k])) ?: "", esc, sizeof(esc));
			if (n > 0 && (size_t)n < sizeof(line))
				n += snprintf(line + n, sizeof(line) - n,
				    ",%s=\"%s\"", labs[k], esc);
		}
		metrics_add(m, "opscreen_device_info{%s} 1\n", line);
	}
}

char *
metrics_render(sqlite3 *db, size_t *len)
{
	struct mbuf	 m = { 0 };
	struct store_health h;
	json_t		*fps, *d;
	int64_t		 restarts[MAX_DEVICES + 1];
	sqlite3_stmt	*st;
	struct rusage	 ru;
	size_t		 i;
	char		 lab[320];

	fps = sched_current_fingerprints();
	metrics_head(&m, "opscreen_up", "gauge", "1 while opscreend answers.");
	metrics_add(&m, "opscreen_up 1\n");
	store_health(&h);
	metrics_head(&m, "opscreen_store_degraded", "gauge", "1 while the store "
	    "refuses writes or holds some to retry (GET /healthz says why).");
	metrics_add(&m, "opscreen_store_degraded %d\n", h.degraded);
	metrics_head(&m, "opscreen_store_pending_writes", "gauge", "Writes the "
	    "store refused, held in memory and retried.");
	metrics_add(&m, "opscreen_store_pending_writes %zu\n", h.pending_writes);
	metrics_head(&m, "opscreen_store_write_failures_total", "counter",
	    "Writes the store refused since opscreend started.");
	metrics_add(&m, "opscreen_store_write_failures_total %lld\n",
	    (long long)h.write_failures);
	metrics_names(&m, db, fps);
	metrics_cases(&m, db, fps);
	metrics_quarantine(&m, db, fps);

	metrics_build_info(&m, fps);
	/*
	 * Full screens only: a restricted run (ops=, classes=) of two keys
	 * says nothing of how long the host's screen takes, nor how fresh its
	 * lists are.
	 */
	metrics_head(&m, "opscreen_last_full_run_duration_seconds", "gauge",
	    "Wall-clock seconds of the newest complete full screen.");
	metrics_head(&m, "opscreen_last_full_run_completion_timestamp_seconds",
	    "gauge", "Unix time the newest complete full screen ended (alert "
	    "on time() minus this: a host whose lists have not been re-measured).");
	if (sqlite3_prepare_v2(db, "SELECT finished - started, finished FROM "
	    "runs WHERE state='complete' AND full = 1 AND started IS NOT NULL "
	    "AND finished IS NOT NULL ORDER BY id DESC LIMIT 1", -1, &st,
	    NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW) {
			metrics_add(&m, "opscreen_last_full_run_duration_seconds "
			    "%.3f\n", sqlite3_column_double(st, 0));
			metrics_add(&m, "opscreen_last_full_run_completion_"
			    "timestamp_seconds %.3f\n",
			    sqlite3_column_double(st, 1));
		}
		sqlite3_finalize(st);
	}

	/*
	 * The daemon's own CPU (all its threads, not the runners'): what the
	 * scheduler, the store and the API cost beside a screen's compiles
	 */
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		metrics_head(&m, "process_cpu_seconds_total", "counter",
		    "User and system CPU time of opscreend itself, all threads, "
		    "in seconds (its runners not counted).");
		metrics_add(&m, "process_cpu_seconds_total %.3f\n",
		    ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	}

	memset(restarts, 0, sizeof(restarts));
	sched_counters(restarts, MAX_DEVICES + 1);
	metrics_head(&m, "opscreen_worker_restarts_total", "counter", "Runner "
	    "processes respawned since opscreend started (crash, hang, "
	    "cancellation, failed start).");
	json_array_foreach(fps, i, d) {
		metrics_labels(fps, json_integer_value(json_object_get(d,
		    "device")), lab, sizeof(lab));
		metrics_add(&m, "opscreen_worker_restarts_total{%s} %lld\n", lab,
		    (long long)restarts[i]);
	}

	metrics_head(&m, "opscreen_regressions_total", "counter", "Names that "
	    "went from verified to broken or hazard between two full screens "
	    "(GET /regressions).");
	metrics_add(&m, "opscreen_regressions_total %lld\n", (long long)
	    metrics_scalar(db, "SELECT count(*) FROM events WHERE "
	    "kind='regression'", 0));
	metrics_head(&m, "opscreen_fixes_total", "counter", "Names that went "
	    "from broken or hazard to verified between two full screens.");
	metrics_add(&m, "opscreen_fixes_total %lld\n", (long long)
	    metrics_scalar(db, "SELECT count(*) FROM events WHERE kind='fix'",
	    0));
	metrics_head(&m, "opscreen_runs", "gauge", "Runs in the store per state.");
	if (sqlite3_prepare_v2(db, "SELECT s.state, (SELECT count(*) FROM runs r "
	    "WHERE r.state = s.state) FROM (SELECT 'queued' AS state UNION ALL "
	    "SELECT 'running' UNION ALL SELECT 'complete' UNION ALL SELECT "
	    "'cancelled' UNION ALL SELECT 'failed') s", -1, &st, NULL) ==
	    SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW)
			metrics_add(&m, "opscreen_runs{state=\"%s\"} %lld\n",
			    (const char *)sqlite3_column_text(st, 0),
			    (long long)sqlite3_column_int64(st, 1));
		sqlite3_finalize(st);
	}
	json_decref(fps);
	if (m.full || m.buf == NULL) {
		free(m.buf);
		return NULL;
	}
	*len = m.len;
	return m.buf;
}
