/*
 * api.c: the HTTP API on libmicrohttpd's thread pool: start and stop, the
 * defences every request passes (connection limits and deadlines, malformed
 * requests), the routes, and the handlers that are not reads of the store
 * (/healthz, /metrics, POST and DELETE /runs). The lists are api_list.c's,
 * the store's reads api_read.c's, the answers http.c's. Every error is a
 * JSON body; nothing a client sends is trusted.
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

#include "http.h"
#include "door.h"
#include "probes.h"

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
	int	 nul;		/* the raw URI escapes a NUL (%00) */
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


static struct MHD_Daemon	*httpd;

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
	/* decoded, a NUL would cut the path or a value short where it stands:
	 * /cases/1%00x would read case 1 */
	if (rq->nul)
		return "a NUL (%00) in the request's path or query";
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
			resp_headers(r, CT_PROM);
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

/* Whether s ends with suffix: a sub-resource of a path with a parameter. */
static int
ends_with(const char *s, const char *suffix)
{
	size_t	n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
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
		/* answered now; MHD closes the connection rather than read on
		 * (a Transfer-Encoding other than chunked: the door's 501) */
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
	if (!strncmp(url, "/cases/", 7) && ends_with(url, "/inputs"))
		return serve_case(c, url + 7);	/* a repro's inputs file */
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
	for (p = uri; (p = strchr(p, '%')) != NULL; p++)
		if (p[1] == '0' && p[2] == '0')
			r->nul = 1;
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

/*
 * libmicrohttpd's own messages, at most MHD_LOG_BURST per MHD_LOG_S: a
 * client that makes it complain per connection (the per-address limit of a
 * non-loopback daemon) cannot fill the journal. What was held back is
 * counted in the next window's first line.
 */
#define MHD_LOG_S	10.0
#define MHD_LOG_BURST	10

static void
mhd_log(void *cls, const char *fmt, va_list ap)
{
	static pthread_mutex_t	 mtx = PTHREAD_MUTEX_INITIALIZER;
	static double		 window;
	static unsigned long	 lines, held;
	char			 buf[512];
	unsigned long		 was = 0;
	double			 now = now_mono();
	int			 say;

	(void)cls;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	buf[strcspn(buf, "\n")] = '\0';
	pthread_mutex_lock(&mtx);
	if (now - window >= MHD_LOG_S) {
		window = now;
		lines = 0;
		was = held;
		held = 0;
	}
	if ((say = lines < MHD_LOG_BURST))
		lines++;
	else
		held++;
	pthread_mutex_unlock(&mtx);
	if (was)
		log_warnx("http: %lu more messages of libmicrohttpd's were "
		    "held back in %.0f s", was, MHD_LOG_S);
	if (say)
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
	} else
		return error("listen address '%s' is not an IP address",
		    env->conf.listen);
	/*
	 * Every client of a loopback daemon has the same address: a limit per
	 * address would be the limit of all. Slow clients are the front door's
	 * (door.c) and the reaper's, not the address limit's.
	 */
	if (sa->sa_family == AF_INET ? (ntohl(sin.sin_addr.s_addr) >> 24) == 127 :
	    IN6_IS_ADDR_LOOPBACK(&sin6.sin6_addr))
		per_ip = env->conf.api_max_connections;
	/* no listening socket of MHD's own: the front door accepts */
	httpd = MHD_start_daemon(flags | MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC,
	    0, NULL, NULL, handler, NULL,
	    MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
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
		return error("cannot start the HTTP server");
	if (door_start(httpd, sa, sa->sa_family == AF_INET ? sizeof(sin) :
	    sizeof(sin6), env->conf.api_header_timeout,
	    env->conf.api_max_connections) == -1) {
		MHD_stop_daemon(httpd);
		httpd = NULL;
		return error("cannot listen on %s:%d (in use, or not permitted)",
		    env->conf.listen, env->conf.port);
	}
	reaper_stop = 0;
	if (pthread_create(&reaper, NULL, reaper_main, NULL) != 0) {
		door_stop();
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
	door_stop();
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
