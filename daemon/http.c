/*
 * http.c: answers on libmicrohttpd (JSON, text, errors with the headers
 * their status asks for, a fixed answer when none can be built) and the
 * checks every handler applies to its query string (unknown parameters, ids,
 * dtype lists, gpu=). Nothing of the scheduler or the store.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "probes.h"

/* The answer when an answer cannot be built: fixed, valid JSON. */
static const char		 FALLBACK[] = "{\"error\": \"internal error: "
    "the answer could not be encoded\", \"status\": 500}\n";

const char *const	CT_JSON = "application/json";
const char *const	CT_TEXT = "text/plain; charset=utf-8";
const char *const	CT_CSV = "text/csv; charset=utf-8";
const char *const	CT_YAML = "application/yaml";
const char *const	CT_PROM = "text/plain; version=0.0.4; charset=utf-8";

/*
 * The headers of every answer: its type, no caching, and Connection: close,
 * one request per connection, so that each passes the front door (door.c).
 */
void
resp_headers(struct MHD_Response *r, const char *ctype)
{
	MHD_add_response_header(r, "Content-Type", ctype);
	MHD_add_response_header(r, "Cache-Control", "no-store");
	MHD_add_response_header(r, "Connection", "close");
}

/* hname: a header the status asks for (WWW-Authenticate, Allow), or NULL */
enum MHD_Result
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
	resp_headers(r, ctype);
	if (hname != NULL)
		MHD_add_response_header(r, hname, hval);
	rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

enum MHD_Result
send_buf(struct MHD_Connection *c, int status, const char *ctype, char *buf,
    size_t len)
{
	return send_buf_hdr(c, status, ctype, buf, len, NULL, NULL);
}

/* An embedded file: the binary's own bytes, never copied. */
enum MHD_Result
send_static(struct MHD_Connection *c, const char *ctype, const char *body)
{
	struct MHD_Response	*r;
	enum MHD_Result		 rc;

	r = MHD_create_response_from_buffer(strlen(body), (void *)body,
	    MHD_RESPMEM_PERSISTENT);
	if (r == NULL)
		return MHD_NO;
	resp_headers(r, ctype);
	rc = MHD_queue_response(c, 200, r);
	MHD_destroy_response(r);
	return rc;
}

/* Every request gets an answer: FALLBACK when there is nothing to send. */
enum MHD_Result
send_fallback(struct MHD_Connection *c)
{
	struct MHD_Response	*r;
	enum MHD_Result		 rc;

	r = MHD_create_response_from_buffer(sizeof(FALLBACK) - 1,
	    (void *)FALLBACK, MHD_RESPMEM_PERSISTENT);
	if (r == NULL)
		return MHD_NO;
	resp_headers(r, CT_JSON);
	rc = MHD_queue_response(c, 500, r);
	MHD_destroy_response(r);
	return rc;
}

enum MHD_Result
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

enum MHD_Result
send_json(struct MHD_Connection *c, int status, json_t *o)
{
	return send_json_hdr(c, status, o, NULL, NULL);
}

/* vsnprintf cuts by bytes: drop a multibyte character cut at the end. */
void
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
void
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
int
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

enum MHD_Result
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
enum MHD_Result
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
const char *
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

const char *
arg(struct MHD_Connection *c, const char *k)
{
	return MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, k);
}

int
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

int
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

/*
 * gpu=N of /ops, /diff and /findings: a device index, or `cpu` (-1);
 * absent, every device (-2). -1 on a value that is neither.
 */
int
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
