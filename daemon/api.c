/*
 * api.c: the HTTP API on libmicrohttpd's thread pool. Handlers only read the
 * store (one connection per thread); starting and cancelling runs go through
 * sched.c. Every error is a JSON body; nothing a client sends is trusted.
 */
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sched.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <ctype.h>
#include <unistd.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "opscreend.h"
#include "probes.h"

#define CACHE_MAX	64
#define ARGS_MAX	32	/* query parameters; no endpoint takes more than 4 */
#define METRICS_TTL	1.0	/* seconds the live figures of /metrics may age */
/*
 * Per connection: the request line and headers must fit (a longer one gets
 * MHD's own 414/431), as in nginx's default 4 x 8k header buffers. Kept small
 * because MHD 0.9.75 zeroes the whole pool after every request (MHD_pool_reset):
 * at 128 KiB that memset was 39% of the daemon's CPU under wrk (docs/bench/api.md).
 */
#define CONN_MEMORY	(32 * 1024)

struct req {
	char	*body;
	size_t	 len;
	int	 too_big;
	int	 started;	/* the first call (headers complete) is done */
	size_t	 nargs;		/* query parameters in the raw URI */
};

/*
 * One per open connection (MHD's socket context), on a list the reaper walks:
 * since_ms is when the connection opened or last finished an answer, so the
 * request in progress must be read and answered by since + request_timeout.
 */
struct conn {
	struct conn	*prev, *next;
	int		 fd;
	int		 cut;
	int64_t		 since_ms;	/* atomic: set per answer, lock-free */
};

/* Rendered lists, as MHD responses queued again and again (refcounted). */
struct cached {
	char			*key;
	struct MHD_Response	*resp;
	int			 status;
	unsigned long		 gen;
};

static struct MHD_Daemon	*httpd;
/* readers share it: a hit must not wait for another thread's hit */
static pthread_rwlock_t		 cache_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct cached		 cache[CACHE_MAX];
static int			 ncache;

/* /metrics: one rendered answer, good for a generation and METRICS_TTL */
static pthread_mutex_t		 metrics_mtx = PTHREAD_MUTEX_INITIALIZER;
static struct MHD_Response	*metrics_resp;
static unsigned long		 metrics_gen;
static double			 metrics_at;
static int			 metrics_busy;

static pthread_mutex_t		 conn_mtx = PTHREAD_MUTEX_INITIALIZER;
static struct conn		*conns;
static pthread_t		 reaper;
static int			 reaper_on, reaper_stop;

/* The answer when an answer cannot be built: fixed, valid JSON. */
static const char		 FALLBACK[] = "{\"error\": \"internal error: "
    "the answer could not be encoded\", \"status\": 500}\n";

static const char	*CT_JSON = "application/json";
static const char	*CT_TEXT = "text/plain; charset=utf-8";
static const char	*CT_CSV = "text/csv; charset=utf-8";
static const char	*CT_YAML = "application/yaml";
static const char	*CT_PROM = "text/plain; version=0.0.4; charset=utf-8";

/* hname: a header the status asks for (WWW-Authenticate, Allow), or NULL */
static enum MHD_Result
send_buf_hdr(struct MHD_Connection *c, int status, const char *ctype,
    char *buf, size_t len, const char *hname, const char *hval)
{
	struct MHD_Response	*r;
	enum MHD_Result		 rc;

	r = MHD_create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_FREE);
	if (r == NULL) {
		free(buf);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", ctype);
	MHD_add_response_header(r, "Cache-Control", "no-store");
	if (hname != NULL)
		MHD_add_response_header(r, hname, hval);
	rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result
send_buf(struct MHD_Connection *c, int status, const char *ctype, char *buf,
    size_t len)
{
	return send_buf_hdr(c, status, ctype, buf, len, NULL, NULL);
}

/* An embedded file: the binary's own bytes, never copied. */
static enum MHD_Result
send_static(struct MHD_Connection *c, const char *ctype, const char *body)
{
	struct MHD_Response	*r;
	enum MHD_Result		 rc;

	r = MHD_create_response_from_buffer(strlen(body), (void *)body,
	    MHD_RESPMEM_PERSISTENT);
	if (r == NULL)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", ctype);
	MHD_add_response_header(r, "Cache-Control", "no-store");
	rc = MHD_queue_response(c, 200, r);
	MHD_destroy_response(r);
	return rc;
}

/* Every request gets an answer: FALLBACK when there is nothing to send. */
static enum MHD_Result
send_fallback(struct MHD_Connection *c)
{
	struct MHD_Response	*r;
	enum MHD_Result		 rc;

	r = MHD_create_response_from_buffer(sizeof(FALLBACK) - 1,
	    (void *)FALLBACK, MHD_RESPMEM_PERSISTENT);
	if (r == NULL)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", CT_JSON);
	MHD_add_response_header(r, "Cache-Control", "no-store");
	rc = MHD_queue_response(c, 500, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result
send_json_hdr(struct MHD_Connection *c, int status, json_t *o,
    const char *hname, const char *hval)
{
	char	*s = o ? json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER) :
	    NULL;

	json_decref(o);
	if (s == NULL) {
		log_warnx("http: cannot encode a %d answer", status);
		return send_fallback(c);
	}
	return send_buf_hdr(c, status, CT_JSON, s, strlen(s), hname, hval);
}

static enum MHD_Result
send_json(struct MHD_Connection *c, int status, json_t *o)
{
	return send_json_hdr(c, status, o, NULL, NULL);
}

/* vsnprintf cuts by bytes: drop a multibyte character cut at the end. */
static void
utf8_trim(char *s)
{
	size_t		 n = strlen(s), i = n, need;
	unsigned char	 lead;

	while (i > 0 && n - i < 3 && ((unsigned char)s[i - 1] & 0xc0) == 0x80)
		i--;
	if (i == 0 || (lead = (unsigned char)s[i - 1]) < 0xc0)
		return;
	need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
	if (n - (i - 1) < need)
		s[i - 1] = '\0';
}

/* Every byte that does not start or continue a well-formed UTF-8 sequence
 * becomes '?' (a message quoting a query value cut to a buffer's size). */
static void
utf8_scrub(char *s)
{
	unsigned char	*p = (unsigned char *)s;
	size_t		 need, k;

	while (*p) {
		need = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 :
		    (*p & 0xf0) == 0xe0 ? 2 : (*p & 0xf8) == 0xf0 ? 3 : 4;
		for (k = 1; need < 4 && k <= need; k++)
			if ((p[k] & 0xc0) != 0x80)
				break;
		if (need == 4 || k <= need) {
			*p++ = '?';
			continue;
		}
		p += need + 1;
	}
}

/* jansson is the UTF-8 judge: what it cannot hold is not valid. */
static int
utf8_valid(const char *s, size_t len)
{
	json_t	*j;

	if ((j = json_stringn(s, len)) == NULL)
		return 0;
	json_decref(j);
	return memchr(s, '\0', len) == NULL;
}

static enum MHD_Result
send_error_v(struct MHD_Connection *c, int status, const char *hname,
    const char *hval, const char *fmt, va_list ap)
{
	char	 msg[1024];
	json_t	*o;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	utf8_trim(msg);
	if ((o = json_pack("{ss si}", "error", msg, "status", status)) == NULL)
		o = json_pack("{ss si}", "error", "the error message is not "
		    "valid UTF-8", "status", status);
	return send_json_hdr(c, status, o, hname, hval);
}

static enum MHD_Result
send_error(struct MHD_Connection *c, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static enum MHD_Result
send_error(struct MHD_Connection *c, int status, const char *fmt, ...)
{
	va_list		 ap;
	enum MHD_Result	 rc;

	va_start(ap, fmt);
	rc = send_error_v(c, status, NULL, NULL, fmt, ap);
	va_end(ap);
	return rc;
}

/* An error whose status needs a header: 401's WWW-Authenticate, 405's Allow */
static enum MHD_Result
send_error_hdr(struct MHD_Connection *c, int status, const char *hname,
    const char *hval, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static enum MHD_Result
send_error_hdr(struct MHD_Connection *c, int status, const char *hname,
    const char *hval, const char *fmt, ...)
{
	va_list		 ap;
	enum MHD_Result	 rc;

	va_start(ap, fmt);
	rc = send_error_v(c, status, hname, hval, fmt, ap);
	va_end(ap);
	return rc;
}

/* ---- query strings -------------------------------------------------------- */

struct qcheck {
	const char	**allowed;
	char		 bad[128];
};

static enum MHD_Result
qcheck_it(void *arg, enum MHD_ValueKind kind, const char *key, const char *val)
{
	struct qcheck	*q = arg;
	size_t		 i;

	(void)kind;
	(void)val;
	for (i = 0; q->allowed[i]; i++)
		if (!strcmp(key, q->allowed[i]))
			return MHD_YES;
	snprintf(q->bad, sizeof(q->bad), "%.64s", key);
	utf8_trim(q->bad);
	return MHD_NO;
}

/* NULL when every parameter is known; else the first unknown one. */
static const char *
query_unknown(struct MHD_Connection *c, const char **allowed, char *buf,
    size_t len)
{
	struct qcheck	 q;

	q.allowed = allowed;
	q.bad[0] = '\0';
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, qcheck_it, &q);
	if (q.bad[0] == '\0')
		return NULL;
	snprintf(buf, len, "%s", q.bad);
	return buf;
}

/* ---- what every request must be before a handler sees it ------------------- */

struct rcheck {
	const char	*key[ARGS_MAX];
	size_t		 klen[ARGS_MAX];
	size_t		 n;
	const char	*why;
	int		 ncl, nhost, te;
};

static enum MHD_Result
rcheck_arg(void *arg, enum MHD_ValueKind kind, const char *key, size_t klen,
    const char *val, size_t vlen)
{
	struct rcheck	*r = arg;
	size_t		 i;

	(void)kind;
	if (!utf8_valid(key, klen) || (val && !utf8_valid(val, vlen))) {
		r->why = "a query parameter is not UTF-8 text (or holds a NUL)";
		return MHD_NO;
	}
	for (i = 0; i < r->n; i++)
		if (r->klen[i] == klen && !memcmp(r->key[i], key, klen)) {
			/* two values for one name: which one counts is a guess */
			r->why = "a query parameter is given twice";
			return MHD_NO;
		}
	if (r->n == ARGS_MAX) {
		r->why = "too many query parameters";
		return MHD_NO;
	}
	r->key[r->n] = key;
	r->klen[r->n++] = klen;
	return MHD_YES;
}

static enum MHD_Result
rcheck_header(void *arg, enum MHD_ValueKind kind, const char *key,
    const char *val)
{
	struct rcheck	*r = arg;

	(void)kind;
	(void)val;
	if (!strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH))
		r->ncl++;
	else if (!strcasecmp(key, MHD_HTTP_HEADER_HOST))
		r->nhost++;
	else if (!strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING))
		r->te = 1;
	return MHD_YES;
}

/*
 * NULL when the request may reach a handler; else why not (a 400). Framing
 * that two parsers could read two ways (RFC 9112 6.3: two Content-Lengths, or
 * one beside Transfer-Encoding) is refused, not guessed at.
 */
static const char *
request_invalid(struct MHD_Connection *c, const char *url, const char *version,
    const struct req *rq)
{
	struct rcheck	 r;

	if (rq->nargs > ARGS_MAX)
		return "more than 32 query parameters";
	if (!utf8_valid(url, strlen(url)))
		return "the path is not UTF-8 text";
	memset(&r, 0, sizeof(r));
	MHD_get_connection_values_n(c, MHD_GET_ARGUMENT_KIND, rcheck_arg, &r);
	if (r.why)
		return r.why;
	MHD_get_connection_values(c, MHD_HEADER_KIND, rcheck_header, &r);
	if (r.ncl > 1)
		return "more than one Content-Length header";
	if (r.ncl && r.te)
		return "both Content-Length and Transfer-Encoding";
	if (r.nhost > 1)
		return "more than one Host header";
	if (r.nhost == 0 && !strcmp(version, MHD_HTTP_VERSION_1_1))
		return "an HTTP/1.1 request without a Host header";
	return NULL;
}

static const char *
arg(struct MHD_Connection *c, const char *k)
{
	return MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, k);
}

static int
parse_id(const char *s, int64_t *out)
{
	char		*end;
	long long	 v;

	if (s == NULL || *s == '\0' || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end != '\0' || v <= 0)
		return -1;
	*out = v;
	return 0;
}

static int
valid_dtype_list(const char *s, char *bad, size_t len)
{
	char	 buf[256], *p, *tok, *save = NULL;

	/* an empty item (",float32", "a,,b") is a typo, not a scope */
	if (strlen(s) >= sizeof(buf) || *s == '\0' || *s == ',' ||
	    s[strlen(s) - 1] == ',' || strstr(s, ",,") != NULL) {
		snprintf(bad, len, "%.64s", s);
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	for (p = buf; (tok = strtok_r(p, ",", &save)) != NULL; p = NULL)
		if (!dtype_valid(tok)) {
			snprintf(bad, len, "%.64s", tok);
			return 0;
		}
	return 1;
}

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
	MHD_add_response_header(r, "Content-Type", ct);
	MHD_add_response_header(r, "Cache-Control", "no-store");
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
 * the plugin has such a switch (USE_FLAGGEMS=0). registered NULL: the table
 * is not known, so no name can be listed.
 */
static void
engine_body(char **out, size_t *len, size_t *cap, enum engine_form f,
    const json_t *registered, const json_t *allowed, int refuse)
{
	const json_t	*n, *a;
	json_t		*black;
	size_t		 i, j;
	int		 held;

	if (refuse && f == ENGINE_VLLM_ENV)
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

	json_object_set_new(err, "status", json_integer(status));
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
		names = sched_registered_names();
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
	if ((names = sched_registered_names()) == NULL) {
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

static enum MHD_Result
serve_list(struct MHD_Connection *c, int deny)
{
	static const char	*allowed[] = { "format", "dtypes", "gpu", "stale",
	    "policy", NULL };
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
		    "'%s' (known: format, dtypes, gpu, stale, policy)", bad);
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
	snprintf(ckey, sizeof(ckey), "%d|%s|%s|%d|%d|%s", deny, fmt, q.dtypes,
	    q.gpu, q.stale_ok, rollup_policy_name(q.policy));
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

/* ---- runs, ops -------------------------------------------------------------- */

static json_t *
row_object(sqlite3_stmt *st)
{
	json_t		*o = json_object();
	int		 i, n = sqlite3_column_count(st);
	const char	*name;
	json_error_t	 jerr;

	for (i = 0; i < n; i++) {
		name = sqlite3_column_name(st, i);
		switch (sqlite3_column_type(st, i)) {
		case SQLITE_INTEGER:
			json_object_set_new(o, name, json_integer(
			    sqlite3_column_int64(st, i)));
			break;
		case SQLITE_FLOAT:
			json_object_set_new(o, name, json_real(
			    sqlite3_column_double(st, i)));
			break;
		case SQLITE_NULL:
			json_object_set_new(o, name, json_null());
			break;
		default:
			if (!strcmp(name, "request") || !strcmp(name, "figures") ||
			    !strcmp(name, "spec") || !strcmp(name, "shrunk_spec") ||
			    !strcmp(name, "fingerprint")) {
				json_t	*j = json_loads((const char *)
				    sqlite3_column_text(st, i), 0, &jerr);

				json_object_set_new(o, name, j ? j : json_null());
			} else
				json_object_set_new(o, name, json_string(
				    (const char *)sqlite3_column_text(st, i)));
		}
	}
	return o;
}

/* the rows of a prepared and bound statement, at most `limit`; finalizes it */
static json_t *
rows_of(sqlite3_stmt *st, int limit)
{
	json_t	*arr = json_array();
	int	 n = 0;

	while (sqlite3_step(st) == SQLITE_ROW && n++ < limit)
		json_array_append_new(arr, row_object(st));
	sqlite3_finalize(st);
	return arr;
}

static json_t *
query_rows(sqlite3 *db, const char *sql, int64_t a, const char *s, int limit)
{
	sqlite3_stmt	*st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	if (a)
		sqlite3_bind_int64(st, 1, a);
	if (s)
		sqlite3_bind_text(st, a ? 2 : 1, s, -1, SQLITE_TRANSIENT);
	return rows_of(st, limit);
}

/* rows of `sql` with ?1 = a and ?2 = b, both integers */
static json_t *
query_rows2(sqlite3 *db, const char *sql, int64_t a, int64_t b, int limit)
{
	sqlite3_stmt	*st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, a);
	sqlite3_bind_int64(st, 2, b);
	return rows_of(st, limit);
}

/*
 * gpu=N of /ops, /diff and /findings: a device index, or `cpu` (-1);
 * absent, every device (-2). -1 on a value that is neither.
 */
static int
gpu_arg(struct MHD_Connection *c, int *gpu)
{
	const char	*v = arg(c, "gpu");
	int64_t		 g;

	*gpu = -2;
	if (v == NULL)
		return 0;
	if (!strcmp(v, "cpu")) {
		*gpu = -1;
		return 0;
	}
	if (!strcmp(v, "0")) {
		*gpu = 0;
		return 0;
	}
	if (parse_id(v, &g) == -1 || g >= MAX_DEVICES)
		return -1;
	*gpu = (int)g;
	return 0;
}

/* the library and version a run screened (its first device's fingerprint) */
#define RUN_LIBRARY	"(SELECT f.library FROM run_devices d JOIN " \
	"fingerprints f ON f.id = d.fingerprint_id WHERE d.run_id = runs.id " \
	"ORDER BY d.device LIMIT 1) AS library, (SELECT f.library_version FROM " \
	"run_devices d JOIN fingerprints f ON f.id = d.fingerprint_id WHERE " \
	"d.run_id = runs.id ORDER BY d.device LIMIT 1) AS library_version"

static enum MHD_Result
serve_runs(struct MHD_Connection *c, const char *rest)
{
	static const char	*list[] = { "limit", NULL }, *none[] = { NULL };
	sqlite3			*db;
	json_t			*rows, *run, *p;
	int64_t			 id, limit = 100;
	char			 bad[128];
	const char		*v;
	int			 one = rest != NULL && *rest != '\0';

	if (query_unknown(c, one ? none : list, bad, sizeof(bad)))
		return send_error(c, 400, "unknown query parameter '%s'%s", bad,
		    one ? "" : " (known: limit)");
	if (!one && (v = arg(c, "limit")) != NULL && (parse_id(v, &limit) == -1 ||
	    limit > 1000))
		return send_error(c, 400, "limit must be an integer 1..1000");
	if ((db = store_reader(env->conf.database)) == NULL)
		return send_error(c, 500, "store unavailable");
	if (!one) {
		rows = query_rows(db, "SELECT id, state, request, full, created, "
		    "started, finished, total, done, error, " RUN_LIBRARY " FROM "
		    "runs ORDER BY id DESC", 0, NULL, (int)limit);
		if (rows == NULL)
			return send_error(c, 500, "store: %s", sqlite3_errmsg(db));
		return send_json(c, 200, json_pack("{so}", "runs", rows));
	}
	if (parse_id(rest, &id) == -1)
		return send_error(c, 400, "run id must be a positive integer");
	rows = query_rows(db, "SELECT id, state, request, full, created, started, "
	    "finished, total, done, error, " RUN_LIBRARY " FROM runs WHERE id=?", id, NULL, 1);
	if (rows == NULL)
		return send_error(c, 500, "store: %s", sqlite3_errmsg(db));
	if (json_array_size(rows) == 0) {
		json_decref(rows);
		return send_error(c, 404, "no run %lld", (long long)id);
	}
	run = json_incref(json_array_get(rows, 0));
	json_decref(rows);
	json_object_set_new(run, "devices", query_rows(db, "SELECT d.device, "
	    "f.json AS fingerprint FROM run_devices d LEFT JOIN fingerprints f ON "
	    "f.id = d.fingerprint_id WHERE d.run_id=?", id, NULL, MAX_DEVICES));
	json_object_set_new(run, "cases_by_status", query_rows(db, "SELECT "
	    "r.status, count(*) AS n FROM cases c JOIN results r ON r.case_id = "
	    "c.id WHERE c.run_id=? GROUP BY r.status", id, NULL, 32));
	json_object_set_new(run, "verdicts", query_rows(db, "SELECT verdict, "
	    "count(*) AS n FROM verdicts WHERE run_id=? GROUP BY verdict", id,
	    NULL, 8));
	/* cases whose results were carried from an earlier screen */
	{
		json_t	*n = query_rows(db, "SELECT count(*) AS n FROM cases c "
		    "JOIN results r ON r.case_id = c.id WHERE c.run_id=? AND "
		    "r.carried_from IS NOT NULL", id, NULL, 1);

		json_object_set_new(run, "carried", json_integer(
		    json_integer_value(json_object_get(json_array_get(n, 0),
		    "n"))));
		json_decref(n);
	}
	if ((p = sched_progress()) != NULL &&
	    json_integer_value(json_object_get(p, "run")) == id)
		json_object_set(run, "progress", p);
	json_decref(p);
	if (json_object_get(run, "total") && json_integer_value(json_object_get(run,
	    "total")) > 0)
		json_object_set_new(run, "percent", json_real(100.0 *
		    json_integer_value(json_object_get(run, "done")) /
		    json_integer_value(json_object_get(run, "total"))));
	return send_json(c, 200, run);
}

static int64_t
latest_complete_run(sqlite3 *db)
{
	sqlite3_stmt	*st;
	int64_t		 id = 0;

	/* the newest full screen (what the lists serve), else any complete run */
	if (sqlite3_prepare_v2(db, "SELECT id FROM runs WHERE state='complete' "
	    "ORDER BY full DESC, id DESC LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return id;
}

/*
 * A verdict row and the first complete full screen of its current streak:
 * the newest run before it with another verdict for its key x dtype x
 * device bounds the streak, and the first run after that with this verdict
 * starts it (the row's own run when it is not a full screen). With the
 * version that run screened and when it finished: "broken since 5.0.2".
 */
#define OPS_SINCE	"coalesce((SELECT min(h.run_id) FROM verdicts h JOIN " \
	"runs hr ON hr.id = h.run_id WHERE hr.state='complete' AND hr.full=1 " \
	"AND h.key=v.key AND h.dtype=v.dtype AND h.device=v.device AND " \
	"h.run_id <= v.run_id AND h.verdict=v.verdict AND h.run_id > " \
	"coalesce((SELECT max(x.run_id) FROM verdicts x JOIN runs xr ON xr.id " \
	"= x.run_id WHERE xr.state='complete' AND xr.full=1 AND x.key=v.key " \
	"AND x.dtype=v.dtype AND x.device=v.device AND x.run_id < v.run_id AND " \
	"x.verdict != v.verdict), 0)), v.run_id) AS since_run"
#define OPS_SINCE_OF	"(SELECT f.library_version FROM run_devices d JOIN " \
	"fingerprints f ON f.id = d.fingerprint_id WHERE d.run_id = q.since_run " \
	"AND d.device = q.device) AS since_version, (SELECT finished FROM runs " \
	"WHERE id = q.since_run) AS since_finished"

static enum MHD_Result
serve_ops(struct MHD_Connection *c, const char *name)
{
	static const char	*allowed[] = { "run", "gpu", NULL };
	sqlite3			*db;
	json_t			*o, *side, *rows;
	int64_t			 run = 0;
	int			 gpu;
	char			 bad[128];
	const char		*v;

	if (query_unknown(c, allowed, bad, sizeof(bad)))
		return send_error(c, 400, "unknown query parameter '%s' (known: "
		    "run, gpu)", bad);
	if (gpu_arg(c, &gpu) == -1)
		return send_error(c, 400, "gpu must be a GPU index or cpu");
	if ((db = store_reader(env->conf.database)) == NULL)
		return send_error(c, 500, "store unavailable");
	if ((v = arg(c, "run")) != NULL) {
		if (parse_id(v, &run) == -1)
			return send_error(c, 400, "run must be a positive integer");
	} else if ((run = latest_complete_run(db)) <= 0)
		return send_error(c, 404, "no complete run yet");
	if ((side = regress_screen(db, run)) == NULL)
		return send_error(c, 404, "no run %lld", (long long)run);
	if (name == NULL || *name == '\0') {
		rows = query_rows2(db, "SELECT q.*, " OPS_SINCE_OF " FROM (SELECT "
		    "v.device, v.name, v.key, v.dtype, v.verdict, v.reason, "
		    "v.class, v.detail, v.evidence_case, v.cases, v.passed, "
		    "v.first_call_ms, v.steady_ms, v.severity, v.n_critical, "
		    "v.n_loud, v.n_numerics, v.carried_from, " OPS_SINCE " FROM "
		    "verdicts v WHERE v.run_id=?1 AND (?2 < -1 OR v.device=?2)) q "
		    "ORDER BY q.name, "
		    "q.key, q.dtype, q.device", run, gpu, 100000);
		if (rows == NULL) {
			json_decref(side);
			return send_error(c, 500, "store: %s", sqlite3_errmsg(db));
		}
		o = json_pack("{sI so}", "run", (json_int_t)run, "verdicts", rows);
		json_object_del(side, "run");
		json_object_update(o, side);
		json_decref(side);
		return send_json(c, 200, o);
	}
	json_decref(side);
	if (strlen(name) > 128)
		return send_error(c, 400, "name too long");
	o = json_pack("{ss sI}", "name", name, "run", (json_int_t)run);
	json_object_set_new(o, "keys", query_rows(db, "SELECT key, schema, "
	    "screened FROM entries WHERE run_id=? AND name=? ORDER BY key", run,
	    name, 1000));
	json_object_set_new(o, "verdicts", query_rows(db, "SELECT q.*, "
	    OPS_SINCE_OF " FROM (SELECT v.device, v.key, v.dtype, v.verdict, "
	    "v.reason, v.class, v.detail, v.evidence_case, v.cases, v.passed, "
	    "v.first_call_ms, v.steady_ms, v.severity, v.n_critical, v.n_loud, "
	    "v.n_numerics, v.carried_from, " OPS_SINCE " FROM verdicts v WHERE "
	    "v.run_id=? AND v.name=?) q ORDER BY q.key, q.dtype, q.device", run,
	    name, 10000));
	json_object_set_new(o, "cases", query_rows(db, "SELECT c.id, c.device, "
	    "c.key, c.class, c.dtype, r.status, r.reason, r.detail, r.severity, "
	    "r.cand_first_ms, r.cand_steady_ms, r.native_ms, "
	    "json_extract(c.spec, '$.ladder.param') AS ladder_param, "
	    "json_extract(c.spec, '$.ladder.value') AS ladder_value, "
	    "json_extract(c.spec, '$.ladder.budget_ms') AS budget_ms FROM cases c JOIN "
	    "results r ON r.case_id = c.id WHERE c.run_id=? AND c.name=? ORDER BY "
	    "c.id", run, name, 10000));
	json_object_set_new(o, "history", query_rows(db, "SELECT v.run_id AS "
	    "run, v.device, v.key, v.dtype, v.verdict, v.reason, v.severity, "
	    "(SELECT f.library_version FROM run_devices d JOIN fingerprints f ON "
	    "f.id = d.fingerprint_id WHERE d.run_id = v.run_id AND d.device = "
	    "v.device) AS library_version FROM verdicts v JOIN runs r ON r.id = "
	    "v.run_id WHERE r.state='complete' AND v.name=?2 AND v.run_id <= ?1 "
	    "ORDER BY v.run_id DESC, v.key, v.dtype", run, name, 10000));
	if (json_array_size(json_object_get(o, "keys")) == 0 &&
	    json_array_size(json_object_get(o, "verdicts")) == 0) {
		json_decref(o);
		return send_error(c, 404, "no name '%s' in run %lld", name,
		    (long long)run);
	}
	return send_json(c, 200, o);
}

static enum MHD_Result
serve_case(struct MHD_Connection *c, const char *rest)
{
	static const char	*none[] = { NULL };
	sqlite3			*db;
	json_t			*rows;
	int64_t			 id;
	char			 bad[128];

	if (query_unknown(c, none, bad, sizeof(bad)))
		return send_error(c, 400, "unknown query parameter '%s'", bad);
	if (parse_id(rest, &id) == -1)
		return send_error(c, 400, "case id must be a positive integer");
	if ((db = store_reader(env->conf.database)) == NULL)
		return send_error(c, 500, "store unavailable");
	rows = query_rows(db, "SELECT c.id, c.run_id AS run, c.device, c.key, "
	    "c.name, "
	    "c.class, c.dtype, c.spec, c.attempt, c.state, r.status, r.reason, "
	    "r.detail, r.score, r.native_inaccurate, r.figures, r.stderr_tail, "
	    "r.repro, r.cand_first_ms, r.cand_steady_ms, r.native_ms, "
	    "r.shrunk_spec, r.shrink_runs, r.shrink_ms, r.shrink_cand_ms, "
	    "r.shrink_from, r.severity, r.carried_from FROM cases c "
	    "LEFT JOIN results r ON r.case_id = c.id WHERE c.id=?", id, NULL, 1);
	if (rows == NULL || json_array_size(rows) == 0) {
		json_decref(rows);
		return send_error(c, 404, "no case %lld", (long long)id);
	}
	{
		json_t	*o = json_incref(json_array_get(rows, 0));

		json_decref(rows);
		return send_json(c, 200, o);
	}
}

/*
 * Two screens side by side: every key x dtype x device whose verdict or
 * severity moved between `from` and `to` (regress_diff). Without them, the
 * newest full screen against the newest one of another fingerprint.
 */
static enum MHD_Result
serve_diff(struct MHD_Connection *c)
{
	static const char	*allowed[] = { "from", "to", "gpu", NULL };
	sqlite3			*db;
	json_t			*o;
	int64_t			 from = 0, to = 0;
	int			 gpu, rc;
	char			 bad[128];
	const char		*v;

	if (query_unknown(c, allowed, bad, sizeof(bad)))
		return send_error(c, 400, "unknown query parameter '%s' (known: "
		    "from, to, gpu)", bad);
	if ((v = arg(c, "from")) != NULL && parse_id(v, &from) == -1)
		return send_error(c, 400, "from must be a run id");
	if ((v = arg(c, "to")) != NULL && parse_id(v, &to) == -1)
		return send_error(c, 400, "to must be a run id");
	if (gpu_arg(c, &gpu) == -1)
		return send_error(c, 400, "gpu must be a GPU index or cpu");
	if ((db = store_reader(env->conf.database)) == NULL)
		return send_error(c, 500, "store unavailable");
	if ((rc = regress_diff_default(db, &from, &to)) == -1)
		return send_error(c, 500, "store: %s", sqlite3_errmsg(db));
	if (to == 0)
		return send_error(c, 404, "no complete run yet");
	if (from == 0)
		return send_error(c, 404, "one complete screen only (run %lld): "
		    "nothing to compare it with", (long long)to);
	if ((o = regress_diff(db, from, to, gpu)) == NULL) {
		json_t	*a = regress_screen(db, from);

		json_decref(a);
		return send_error(c, 404, "no run %lld", (long long)(a ? to :
		    from));
	}
	return send_json(c, 200, o);
}

/*
 * What a run has found so far, while it runs (verdicts come at its end):
 * its failing cases per key x dtype x device, the most severe first, each
 * with its worst case. A failure stored without a severity reads as
 * critical; a hazard (compile time, bootstrap) has none.
 */
#define FINDING_RANK	"CASE WHEN r.status='hazard' THEN 0 WHEN " \
	"r.severity='numerics' THEN 1 WHEN r.severity='loud' THEN 2 ELSE 3 END"

static enum MHD_Result
serve_findings(struct MHD_Connection *c)
{
	static const char	*allowed[] = { "run", "gpu", NULL };
	sqlite3			*db;
	json_t			*o, *rows, *side;
	int64_t			 run = 0;
	int			 gpu;
	char			 bad[128];
	const char		*v;
	sqlite3_stmt		*st;

	if (query_unknown(c, allowed, bad, sizeof(bad)))
		return send_error(c, 400, "unknown query parameter '%s' (known: "
		    "run, gpu)", bad);
	if ((v = arg(c, "run")) != NULL && parse_id(v, &run) == -1)
		return send_error(c, 400, "run must be a positive integer");
	if (gpu_arg(c, &gpu) == -1)
		return send_error(c, 400, "gpu must be a GPU index or cpu");
	if ((db = store_reader(env->conf.database)) == NULL)
		return send_error(c, 500, "store unavailable");
	/* the run in progress, else the newest that started */
	if (run == 0 && sqlite3_prepare_v2(db, "SELECT id FROM runs WHERE state "
	    "!= 'queued' ORDER BY state = 'running' DESC, id DESC LIMIT 1", -1,
	    &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			run = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	if (run == 0)
		return send_error(c, 404, "no run has started yet");
	if ((side = regress_screen(db, run)) == NULL)
		return send_error(c, 404, "no run %lld", (long long)run);
	rows = query_rows2(db, "SELECT c.name, c.key, c.dtype, c.device, "
	    "count(*) AS failing, sum(r.status != 'hazard' AND r.severity IN "
	    "('critical', '')) AS n_critical, sum(r.severity='loud') AS n_loud, "
	    "sum(r.severity='numerics') AS n_numerics, max((" FINDING_RANK ") * "
	    "1e13 + min(r.score, 1e12)) AS rank, c.id AS evidence_case, "
	    "c.class, r.status, CASE WHEN r.status='hazard' THEN '' WHEN "
	    "r.severity='' THEN 'critical' ELSE r.severity END AS severity, "
	    "r.reason, r.detail FROM cases c JOIN results r ON r.case_id = c.id "
	    "WHERE c.run_id=?1 AND (?2 < -1 OR c.device=?2) AND r.status IN "
	    "('fail', 'timeout', 'crash', 'hazard') GROUP BY c.name, c.key, "
	    "c.dtype, c.device ORDER BY rank DESC, c.name, c.key, c.dtype", run,
	    gpu, 100000);
	if (rows == NULL) {
		json_decref(side);
		return send_error(c, 500, "store: %s", sqlite3_errmsg(db));
	}
	{
		json_t	*r;
		size_t	 i;

		json_array_foreach(rows, i, r)
			json_object_del(r, "rank");
	}
	o = json_pack("{so}", "findings", rows);
	json_object_update(o, side);
	json_decref(side);
	if (sqlite3_prepare_v2(db, "SELECT total, done FROM runs WHERE id=?", -1,
	    &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, run);
		if (sqlite3_step(st) == SQLITE_ROW) {
			json_object_set_new(o, "total", json_integer(
			    sqlite3_column_int64(st, 0)));
			json_object_set_new(o, "done", json_integer(
			    sqlite3_column_int64(st, 1)));
		}
		sqlite3_finalize(st);
	}
	return send_json(c, 200, o);
}

/*
 * Changes between consecutive full screens, oldest first. `since` is an event
 * id (exclusive), so a poller passes the last id it saw and never misses or
 * repeats one; `kind` narrows to regression, fix, new or vanished.
 */
static enum MHD_Result
serve_regressions(struct MHD_Connection *c)
{
	static const char	*allowed[] = { "since", "limit", "kind", NULL };
	sqlite3			*db;
	sqlite3_stmt		*st;
	json_t			*arr, *ev, *o;
	json_error_t		 jerr;
	const char		*v, *kind = NULL;
	char			 bad[128];
	int64_t			 since = 0, limit = 100, last = 0;

	if (query_unknown(c, allowed, bad, sizeof(bad)))
		return send_error(c, 400, "unknown query parameter '%s' (known: "
		    "since, limit, kind)", bad);
	if ((v = arg(c, "since")) != NULL && strcmp(v, "0") &&
	    parse_id(v, &since) == -1)
		return send_error(c, 400, "since must be an event id (a "
		    "non-negative integer)");
	if ((v = arg(c, "limit")) != NULL && (parse_id(v, &limit) == -1 ||
	    limit > 1000))
		return send_error(c, 400, "limit must be an integer 1..1000");
	if ((kind = arg(c, "kind")) != NULL && strcmp(kind, "regression") &&
	    strcmp(kind, "fix") && strcmp(kind, "new") && strcmp(kind,
	    "vanished") && strcmp(kind, "changed"))
		return send_error(c, 400, "kind must be regression, fix, new, "
		    "vanished or changed");
	if ((db = store_reader(env->conf.database)) == NULL)
		return send_error(c, 500, "store unavailable");
	if (sqlite3_prepare_v2(db, "SELECT id, created, kind, json FROM events "
	    "WHERE id > ?1 AND kind IN ('regression', 'fix', 'new', 'vanished', "
	    "'changed') "
	    "AND (?2 IS NULL OR kind = ?2) ORDER BY id LIMIT ?3", -1, &st, NULL)
	    != SQLITE_OK)
		return send_error(c, 500, "store: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, since);
	if (kind)
		sqlite3_bind_text(st, 2, kind, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, limit);
	arr = json_array();
	while (sqlite3_step(st) == SQLITE_ROW) {
		last = sqlite3_column_int64(st, 0);
		o = json_pack("{sI sf ss}", "id", (json_int_t)last, "created",
		    sqlite3_column_double(st, 1), "kind",
		    (const char *)sqlite3_column_text(st, 2));
		ev = json_loads((const char *)sqlite3_column_text(st, 3), 0, &jerr);
		if (json_is_object(ev))
			json_object_update(o, ev);
		json_decref(ev);
		json_array_append_new(arr, o);
	}
	sqlite3_finalize(st);
	return send_json(c, 200, json_pack("{so sI}", "events", arr, "last_id",
	    (json_int_t)(last ? last : since)));
}

/*
 * The exposition costs a roll-up per device (tens of ms): one render serves
 * every scrape of its list generation for METRICS_TTL seconds, since its live
 * figures (cases, restarts) move without a generation bump. While one thread
 * renders, the others answer with the previous render.
 */
static enum MHD_Result
serve_metrics(struct MHD_Connection *c)
{
	static const char	*none[] = { NULL };
	struct MHD_Response	*r;
	sqlite3			*db;
	char			*out, bad[128];
	size_t			 len = 0;
	unsigned long		 gen;
	double			 now;
	enum MHD_Result		 rc;

	if (query_unknown(c, none, bad, sizeof(bad)))
		return send_error(c, 400, "unknown query parameter '%s'", bad);
	gen = lists_generation();
	now = now_mono();
	pthread_mutex_lock(&metrics_mtx);
	if (metrics_resp != NULL && (metrics_busy || (metrics_gen == gen &&
	    now - metrics_at < METRICS_TTL))) {
		rc = MHD_queue_response(c, 200, metrics_resp);
		pthread_mutex_unlock(&metrics_mtx);
		return rc;
	}
	metrics_busy = 1;
	pthread_mutex_unlock(&metrics_mtx);

	r = NULL;
	if ((db = store_reader(env->conf.database)) != NULL &&
	    (out = metrics_render(db, &len)) != NULL) {
		r = MHD_create_response_from_buffer(len, out,
		    MHD_RESPMEM_MUST_FREE);
		if (r == NULL)
			free(out);
		else {
			MHD_add_response_header(r, "Content-Type", CT_PROM);
			MHD_add_response_header(r, "Cache-Control", "no-store");
		}
	}
	pthread_mutex_lock(&metrics_mtx);
	metrics_busy = 0;
	if (r != NULL) {
		if (metrics_resp != NULL)
			MHD_destroy_response(metrics_resp);
		metrics_resp = r;
		metrics_gen = gen;
		metrics_at = now;
		rc = MHD_queue_response(c, 200, r);
	}
	pthread_mutex_unlock(&metrics_mtx);
	if (r == NULL)
		return db == NULL ? send_error(c, 500, "store unavailable") :
		    send_error(c, 500, "cannot render the metrics");
	return rc;
}

/*
 * Constant time in the token's content and length: every byte of the
 * NUL-padded buffer is compared (load_token()), the request's short by zeros.
 */
static int
token_ok(struct MHD_Connection *c)
{
	const char	*h = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_AUTHORIZATION);
	size_t		 i, n;
	unsigned char	 diff = 0;

	if (h == NULL || strncmp(h, "Bearer ", 7) != 0 || env->token[0] == '\0')
		return 0;
	h += 7;
	n = strlen(h);
	for (i = 0; i < sizeof(env->token); i++)
		diff |= (unsigned char)(i < n ? h[i] : 0) ^
		    (unsigned char)env->token[i];
	return diff == 0 && n < sizeof(env->token);
}

static enum MHD_Result
auth_fail(struct MHD_Connection *c)
{
	if (env->token[0] == '\0')
		return send_error(c, 403, "starting or cancelling runs is disabled: "
		    "no token configured (daemon.token_file)");
	/* RFC 6750: the scheme, and invalid_token when one was sent */
	if (MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_AUTHORIZATION) != NULL)
		return send_error_hdr(c, 401, "WWW-Authenticate",
		    "Bearer realm=\"opscreen\", error=\"invalid_token\"",
		    "missing or wrong bearer token");
	return send_error_hdr(c, 401, "WWW-Authenticate",
	    "Bearer realm=\"opscreen\"", "missing or wrong bearer token");
}

static enum MHD_Result
post_runs(struct MHD_Connection *c, struct req *r)
{
	json_t		*body;
	json_error_t	 jerr;
	int64_t		 id;
	char		 err[512];
	int		 rc;

	if (!token_ok(c))
		return auth_fail(c);
	if (env->fault[0] != '\0')
		return send_error(c, 503, "%s", env->fault);
	if (r->too_big)
		return send_error(c, 413, "body larger than %u bytes", BODY_MAX);
	if (r->len == 0)
		body = json_object();
	else if ((body = json_loadb(r->body, r->len, JSON_REJECT_DUPLICATES,
	    &jerr)) == NULL)
		return send_error(c, 400, "body is not JSON: %s (line %d)",
		    jerr.text, jerr.line);
	if (!json_is_object(body)) {
		json_decref(body);
		return send_error(c, 400, "body must be a JSON object");
	}
	rc = sched_queue_run(body, &id, err, sizeof(err));
	json_decref(body);
	if (rc == -1)
		return send_error(c, 400, "%s", err);
	if (rc == -2)
		return send_error(c, 429, "%s", err);
	if (rc < 0)
		return send_error(c, 503, "%s", err);
	{
		char	 href[64];

		snprintf(href, sizeof(href), "/runs/%lld", (long long)id);
		return send_json(c, 202, json_pack("{sI ss ss}", "run",
		    (json_int_t)id, "state", "queued", "href", href));
	}
}

static enum MHD_Result
healthz(struct MHD_Connection *c)
{
	static const char	*none[] = { NULL };
	json_t			*o, *p;
	struct store_health	 h;
	char			 bad[128];

	if (query_unknown(c, none, bad, sizeof(bad)))
		return send_error(c, 400, "unknown query parameter '%s'", bad);

	/* 200 while alive (a restart mends no full disk); the body says more */
	store_health(&h);
	o = json_pack("{ss ss sf so s{ss ss sI sf sI}}", "status", env->fault[0] ?
	    "fault" : h.degraded ? "degraded" : "ok", "version", OPSCREEN_VERSION,
	    "uptime_s", now_mono() - env->started, "devices",
	    sched_current_fingerprints(), "store", "state", h.degraded ?
	    "degraded" : "ok", "error", h.error, "pending_writes",
	    (json_int_t)h.pending_writes, "since", h.since, "write_failures",
	    (json_int_t)h.write_failures);
	if ((p = sched_progress()) != NULL)
		json_object_set_new(o, "last_run", p);
	if (env->fault[0] != '\0')
		json_object_set_new(o, "error", json_string(env->fault));
	return send_json(c, env->fault[0] ? 503 : 200, o);
}

static enum MHD_Result
handler(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_size, void **ctx)
{
	struct req	*r = *ctx;

	(void)cls;
	if (r == NULL && (r = *ctx = calloc(1, sizeof(*r))) == NULL)
		return send_fallback(c);
	if (!r->started) {
		const char	*why;

		r->started = 1;
		/* answered now; MHD closes the connection rather than read on */
		if ((why = request_invalid(c, url, version, r)) != NULL)
			return send_error(c, 400, "%s", why);
		return MHD_YES;
	}
	if (*upload_size) {
		/* bounded: a body past BODY_MAX is drained and refused */
		if (r->too_big || r->len + *upload_size > BODY_MAX) {
			r->too_big = 1;
			free(r->body);
			r->body = NULL;
			r->len = 0;
		} else {
			char	*nb = realloc(r->body, r->len + *upload_size + 1);

			if (nb == NULL)
				return send_fallback(c);
			r->body = nb;
			memcpy(r->body + r->len, upload, *upload_size);
			r->len += *upload_size;
		}
		*upload_size = 0;
		return MHD_YES;
	}

	if (!strcmp(url, "/runs") && !strcmp(method, "POST"))
		return post_runs(c, r);
	if (!strncmp(url, "/runs/", 6) && !strcmp(method, "DELETE")) {
		int64_t	 id;
		char	 err[256];
		int	 rc;

		if (!token_ok(c))
			return auth_fail(c);
		if (parse_id(url + 6, &id) == -1)
			return send_error(c, 400, "run id must be a positive "
			    "integer");
		rc = sched_cancel_run(id, err, sizeof(err));
		if (rc == -1)
			return send_error(c, 404, "%s", err);
		if (rc == -2)
			return send_error(c, 409, "%s", err);
		if (rc < 0)
			return send_error(c, 503, "%s", err);
		return send_json(c, 202, json_pack("{sI ss}", "run",
		    (json_int_t)id, "state", "cancelling"));
	}
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return send_error_hdr(c, 405, "Allow", !strcmp(url, "/runs") ?
		    "GET, HEAD, POST" : !strncmp(url, "/runs/", 6) ?
		    "GET, HEAD, DELETE" : "GET, HEAD",
		    "method %s not allowed on %s", method, url);
	if (r->len || r->too_big)
		return send_error(c, 400, "GET takes no body");
	if (!strcmp(url, "/allowlist"))
		return serve_list(c, 0);
	if (!strcmp(url, "/denylist"))
		return serve_list(c, 1);
	if (!strcmp(url, "/healthz"))
		return healthz(c);
	if (!strcmp(url, "/runs"))
		return serve_runs(c, NULL);
	if (!strncmp(url, "/runs/", 6))
		return serve_runs(c, url + 6);
	if (!strcmp(url, "/ops"))
		return serve_ops(c, NULL);
	if (!strncmp(url, "/ops/", 5))
		return serve_ops(c, url + 5);
	if (!strncmp(url, "/cases/", 7))
		return serve_case(c, url + 7);
	if (!strcmp(url, "/regressions"))
		return serve_regressions(c);
	if (!strcmp(url, "/diff"))
		return serve_diff(c);
	if (!strcmp(url, "/findings"))
		return serve_findings(c);
	if (!strcmp(url, "/metrics"))
		return serve_metrics(c);
	{
		const char	*ct, *page = web_asset(url, &ct);

		if (page != NULL)
			return send_static(c, ct, page);
	}
	return send_error(c, 404, "no such endpoint: %s", url);
}

/*
 * Called with the raw request line's URI before MHD splits the query (the
 * only hook before it). MHD 0.9.75 stores every parameter in the connection's
 * memory pool and, when the pool runs out (about 1,000 parameters), neither
 * answers nor closes: the client waits for the idle timeout. So the count is
 * taken here, and a query over ARGS_MAX is cut off in MHD's buffer (the URI
 * is that buffer; MHD parses it after this returns), leaving the handler a
 * request it answers with a 400. The context returned is the request's.
 */
static void *
uri_log(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct req	*r;
	const char	*q, *p;

	(void)cls;
	(void)c;
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return NULL;
	if ((q = strchr(uri, '?')) != NULL) {
		for (r->nargs = 1, p = q + 1; *p; p++)
			r->nargs += *p == '&';
		if (r->nargs > ARGS_MAX)
			((char *)q)[1] = '\0';
	}
	return r;
}

/*
 * An HTTP thread asks the scheduler for a short time slice (EEVDF's
 * sched_runtime for SCHED_OTHER, Linux 6.12 and later; no privilege
 * needed): a list request that wakes it then preempts the daemon's own
 * screening work (the main loop, the runners) instead of waiting out their
 * slice.  Its share of the CPU stays what its nice value gives.  Once per
 * thread, from its first connection; an older kernel refuses and nothing
 * changes.
 */
#define API_SLICE_NS	(100 * 1000)

struct sched_attr {		/* sched_setattr(2); glibc has no wrapper */
	uint32_t	 size;
	uint32_t	 sched_policy;
	uint64_t	 sched_flags;
	int32_t		 sched_nice;
	uint32_t	 sched_priority;
	uint64_t	 sched_runtime;
	uint64_t	 sched_deadline;
	uint64_t	 sched_period;
};

static void
api_thread_slice(void)
{
	static __thread int	 done;
	struct sched_attr	 a;

	if (done)
		return;
	done = 1;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sched_policy = SCHED_OTHER;
	errno = 0;
	a.sched_nice = getpriority(PRIO_PROCESS, 0);
	a.sched_runtime = API_SLICE_NS;
	if (syscall(SYS_sched_setattr, 0, &a, 0) == -1)
		log_debug("api: no short time slice for the HTTP thread: %s",
		    strerror(errno));
}

static void
conn_notify(void *cls, struct MHD_Connection *c, void **sctx,
    enum MHD_ConnectionNotificationCode code)
{
	const union MHD_ConnectionInfo	*ci;
	struct conn			*k;

	(void)cls;
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		api_thread_slice();
		if ((k = calloc(1, sizeof(*k))) == NULL)
			return;
		ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		k->fd = ci ? ci->connect_fd : -1;
		__atomic_store_n(&k->since_ms, (int64_t)(now_mono() * 1000),
		    __ATOMIC_RELAXED);
		pthread_mutex_lock(&conn_mtx);
		if ((k->next = conns) != NULL)
			conns->prev = k;
		conns = k;
		pthread_mutex_unlock(&conn_mtx);
		*sctx = k;
		return;
	}
	/* MHD notifies before it closes the socket: the fd is still ours */
	if ((k = *sctx) == NULL)
		return;
	pthread_mutex_lock(&conn_mtx);
	if (k->prev)
		k->prev->next = k->next;
	else
		conns = k->next;
	if (k->next)
		k->next->prev = k->prev;
	pthread_mutex_unlock(&conn_mtx);
	free(k);
	*sctx = NULL;
}

/* An answer went out: the connection's next request gets a full deadline. */
static void
conn_rearm(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo	*ci;
	struct conn			*k;

	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	if (ci == NULL || (k = ci->socket_context) == NULL)
		return;
	/* per request: no lock, the reaper reads it atomically */
	__atomic_store_n(&k->since_ms, (int64_t)(now_mono() * 1000),
	    __ATOMIC_RELAXED);
}

/*
 * MHD's connection_timeout is an idle timeout: a byte every few seconds
 * keeps a connection forever. The reaper ends every connection that has not
 * delivered its request and taken its answer within api.request_timeout:
 * shutdown() makes MHD read end-of-file and close it in its own thread.
 */
static void *
reaper_main(void *arg)
{
	struct conn	*k;
	double		 now, last_log = 0;
	int		 stop, ncut, total = 0;

	(void)arg;
	for (;;) {
		usleep(250 * 1000);
		pthread_mutex_lock(&conn_mtx);
		if ((stop = reaper_stop) == 0) {
			now = now_mono();
			ncut = 0;
			for (k = conns; k; k = k->next)
				if (!k->cut && k->fd >= 0 && now * 1000 -
				    __atomic_load_n(&k->since_ms, __ATOMIC_RELAXED) >
				    env->conf.api_request_timeout * 1000.0) {
					shutdown(k->fd, SHUT_RDWR);
					k->cut = 1;
					ncut++;
				}
			total += ncut;
		}
		pthread_mutex_unlock(&conn_mtx);
		if (stop)
			break;
		/* one line per 10 s at most: a flood must not flood the log */
		if (total && now - last_log >= 10) {
			log_warnx("http: closed %d connection(s) that did not "
			    "send a request within api.request_timeout (%d s)",
			    total, env->conf.api_request_timeout);
			total = 0;
			last_log = now;
		}
	}
	return NULL;
}

static void
completed(void *cls, struct MHD_Connection *c, void **ctx,
    enum MHD_RequestTerminationCode toe)
{
	struct req	*r = *ctx;

	(void)cls;
	(void)toe;
	conn_rearm(c);
	if (r) {
		free(r->body);
		free(r);
	}
	*ctx = NULL;
}

static void
mhd_log(void *cls, const char *fmt, va_list ap)
{
	char	 buf[512];

	(void)cls;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	buf[strcspn(buf, "\n")] = '\0';
	log_warnx("http: %s", buf);
}

int
api_start(void)
{
	struct sockaddr_in	 sin;
	struct sockaddr_in6	 sin6;
	struct sockaddr		*sa;
	unsigned int		 flags = MHD_USE_INTERNAL_POLLING_THREAD |
	    MHD_USE_ERROR_LOG | MHD_USE_EPOLL;
	int			 per_ip = env->conf.api_max_connections_per_ip;

	if (per_ip > env->conf.api_max_connections)
		per_ip = env->conf.api_max_connections;
	memset(&sin, 0, sizeof(sin));
	memset(&sin6, 0, sizeof(sin6));
	if (inet_pton(AF_INET, env->conf.listen, &sin.sin_addr) == 1) {
		sin.sin_family = AF_INET;
		sin.sin_port = htons(env->conf.port);
		sa = (struct sockaddr *)&sin;
	} else if (inet_pton(AF_INET6, env->conf.listen, &sin6.sin6_addr) == 1) {
		sin6.sin6_family = AF_INET6;
		sin6.sin6_port = htons(env->conf.port);
		sa = (struct sockaddr *)&sin6;
		flags |= MHD_USE_IPv6;
	} else
		return error("listen address '%s' is not an IP address",
		    env->conf.listen);
	httpd = MHD_start_daemon(flags, env->conf.port, NULL, NULL, handler, NULL,
	    MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
	    MHD_OPTION_SOCK_ADDR, sa,
	    MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)env->conf.api_threads,
	    MHD_OPTION_CONNECTION_LIMIT,
	    (unsigned int)env->conf.api_max_connections,
	    MHD_OPTION_CONNECTION_TIMEOUT,
	    (unsigned int)env->conf.api_connection_timeout,
	    /* one address cannot hold every connection */
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)per_ip,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
	    MHD_OPTION_URI_LOG_CALLBACK, uri_log, NULL,
	    MHD_OPTION_NOTIFY_CONNECTION, conn_notify, NULL,
	    MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
	    MHD_OPTION_END);
	if (httpd == NULL)
		return error("cannot listen on %s:%d (in use, or not permitted)",
		    env->conf.listen, env->conf.port);
	reaper_stop = 0;
	if (pthread_create(&reaper, NULL, reaper_main, NULL) != 0) {
		MHD_stop_daemon(httpd);
		httpd = NULL;
		return error("cannot start the connection reaper");
	}
	reaper_on = 1;
	log_info("listening on http://%s:%d", env->conf.listen, env->conf.port);
	return 0;
}

void
api_stop(void)
{
	if (reaper_on) {
		pthread_mutex_lock(&conn_mtx);
		reaper_stop = 1;
		pthread_mutex_unlock(&conn_mtx);
		pthread_join(reaper, NULL);
		reaper_on = 0;
	}
	if (httpd)
		MHD_stop_daemon(httpd);
	httpd = NULL;
}
