/*
 * opscreenctl.c: the command-line client of opscreend for deployment scripts
 * and timers. Its exit status is the contract: a script can gate on 0 (a
 * verified, current list was served) without parsing anything.
 *
 * It speaks HTTP/1.0 over a plain TCP socket: the daemon is on loopback, the
 * requests are one GET or POST each, and no HTTP client library is among the
 * project's dependencies. Responses are parsed with jansson.  `judge` needs
 * no daemon: it applies the daemon's verdict rule (verdict.c) to one RESULT,
 * for repro scripts.
 */
#include <sys/time.h>
#include <sys/types.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <getopt.h>
#include <unistd.h>
#include <curl/curl.h>
#include <jansson.h>

#include "verdict.h"
#include "version.h"
#include "repro.h"

#define CTL_OK		0
#define CTL_ERR		1	/* anything else: 4xx, 5xx other than 503, bad body */
#define CTL_USAGE	2
#define CTL_STALE	3	/* 503 (no complete screen) or stale=true */
#define CTL_UNREACHABLE	4	/* nothing answers on host:port */
#define CTL_NOT_PASSED	5	/* judge: the case does not pass */

#define CTL_RESP_MAX	(64u * 1024 * 1024)	/* lists of a large library fit */
#define CTL_TIMEOUT	60			/* seconds per request */
#define CTL_TOKEN_MAX	256

struct ctl_resp {
	int	 status;
	char	*buf;		/* whole response, NUL-terminated */
	size_t	 len;
	char	*body;		/* points into buf */
	size_t	 bodylen;
};

struct ctl {
	char		 base[1024];	/* http[s]://host:port, no trailing / */
	const char	*tokenfile;
	const char	*cacert;	/* --cacert: TLS to a fronting proxy */
	double		 timeout;	/* seconds per request */
};

static void
ctl_usage_text(FILE *fp)
{
	fprintf(fp,
	    "usage: opscreenctl [-H url|host[:port]] [-t tokenfile] [--timeout s]"
	    " [--cacert file]\n"
	    "                   command [options]\n"
	    "       opscreenctl --help | --version\n"
	    "  -H, --host       http[s]://host:port, host, host:port, [v6]:port"
	    " (default\n"
	    "                   $OPSCREEN_URL or 127.0.0.1:8470)\n"
	    "  -t, --token-file bearer token for run (default"
	    " $OPSCREEN_TOKEN_FILE or\n"
	    "                   /etc/opscreen/token)\n"
	    "  --timeout S      seconds per request (default 60)\n"
	    "  --cacert FILE    CA certificate of a TLS proxy in front of"
	    " opscreend\n"
	    "  allowlist|denylist [--format F] [--dtypes L] [--gpu N] [--stale-ok]\n"
	    "      [--policy strict|tolerant] [--faster RATIO]"
	    " [--mode eager|compile|cudagraph] [--deterministic]\n"
	    "      F: json, text, csv, yaml; allowlist also vllm-env, vllm-yaml,"
	    " sglang-env\n"
	    "  run [--ops a,b] [--wait]\n"
	    "  status\n"
	    "  judge < {\"case\": CASE, \"result\": RESULT}\n"
	    "exit: 0 verified list served (or run/status ok, or the case passes"
	    " or is\n"
	    "      not applicable), 1 error, 2 usage, 3 stale or no complete"
	    " screen (503),\n"
	    "      4 daemon unreachable, 5 judged: the case does not pass\n");
}

static __attribute__((noreturn)) void
ctl_usage(void)
{
	ctl_usage_text(stderr);
	exit(CTL_USAGE);
}

static void
ctl_resp_free(struct ctl_resp *r)
{
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

/* libcurl's write callback: the body, bounded by CTL_RESP_MAX */
static size_t
ctl_collect(char *data, size_t size, size_t n, void *arg)
{
	struct ctl_resp	*r = arg;
	size_t		 add = size * n, cap;
	char		*nb;

	if (r->len + add + 1 > CTL_RESP_MAX)
		return 0;			/* curl: CURLE_WRITE_ERROR */
	cap = r->len + add + 1;
	if ((nb = realloc(r->buf, cap)) == NULL)
		return 0;
	r->buf = nb;
	memcpy(r->buf + r->len, data, add);
	r->len += add;
	r->buf[r->len] = '\0';
	return add;
}

/*
 * One request through libcurl to the daemon's base URL (http:// or an
 * https:// proxy in front of it), bounded by --timeout. Returns CTL_OK with
 * r filled, CTL_UNREACHABLE (no connection: refused, no such host, TLS
 * failure, timed out) or CTL_ERR.
 */
static int
ctl_request(const struct ctl *c, const char *method, const char *path,
    const char *token, const char *body, struct ctl_resp *r)
{
	CURL			*h;
	CURLcode		 cc;
	struct curl_slist	*hdr = NULL;
	char			 url[2048], auth[320], errbuf[CURL_ERROR_SIZE];
	long			 status = 0;
	int			 rc = CTL_ERR;

	memset(r, 0, sizeof(*r));
	if ((size_t)snprintf(url, sizeof(url), "%s%s", c->base, path) >=
	    sizeof(url))
		return CTL_ERR;
	if ((h = curl_easy_init()) == NULL)
		return CTL_ERR;
	errbuf[0] = '\0';
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "opscreenctl/" OPSCREEN_VERSION);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, ctl_collect);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(c->timeout * 1000));
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
	    (long)(c->timeout * 1000));
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	if (c->cacert != NULL)
		curl_easy_setopt(h, CURLOPT_CAINFO, c->cacert);
	hdr = curl_slist_append(hdr, "Accept: */*");
	if (token != NULL) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
		hdr = curl_slist_append(hdr, auth);
	}
	if (body != NULL) {
		hdr = curl_slist_append(hdr, "Content-Type: application/json");
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
	} else if (!strcmp(method, "HEAD"))
		curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	cc = curl_easy_perform(h);
	switch (cc) {
	case CURLE_OK:
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
		r->status = (int)status;
		if (r->buf == NULL && (r->buf = strdup("")) == NULL)
			break;
		r->body = r->buf;
		r->bodylen = r->len;
		rc = CTL_OK;
		break;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_GOT_NOTHING:
		fprintf(stderr, "opscreenctl: cannot reach opscreend at %s: %s\n",
		    c->base, errbuf[0] ? errbuf : curl_easy_strerror(cc));
		rc = CTL_UNREACHABLE;
		break;
	case CURLE_WRITE_ERROR:
		fprintf(stderr, "opscreenctl: response larger than %u bytes\n",
		    CTL_RESP_MAX);
		break;
	default:
		fprintf(stderr, "opscreenctl: %s %s: %s\n", method, url,
		    errbuf[0] ? errbuf : curl_easy_strerror(cc));
	}
	curl_slist_free_all(hdr);
	curl_easy_cleanup(h);
	if (rc != CTL_OK)
		ctl_resp_free(r);
	return rc;
}

static int
ctl_read_token(const struct ctl *c, char *tok, size_t len)
{
	FILE	*fp;
	size_t	 n;

	if ((fp = fopen(c->tokenfile, "r")) == NULL) {
		fprintf(stderr, "opscreenctl: token file '%s': %s\n",
		    c->tokenfile, strerror(errno));
		return -1;
	}
	if (fgets(tok, len, fp) == NULL)
		tok[0] = '\0';
	fclose(fp);
	n = strcspn(tok, " \t\r\n");
	tok[n] = '\0';
	if (n == 0) {
		fprintf(stderr, "opscreenctl: token file '%s' is empty\n",
		    c->tokenfile);
		return -1;
	}
	return 0;
}

/* Query values are comma lists of names; anything else is refused, not sent. */
static int
ctl_query_safe(const char *v)
{
	for (; *v; v++)
		if (!(*v == ',' || *v == '_' || *v == '.' || *v == '-' ||
		    (*v >= 'a' && *v <= 'z') || (*v >= 'A' && *v <= 'Z') ||
		    (*v >= '0' && *v <= '9')))
			return 0;
	return 1;
}

static void
ctl_print_body(FILE *fp, const struct ctl_resp *r)
{
	fwrite(r->body, 1, r->bodylen, fp);
	if (r->bodylen > 0 && r->body[r->bodylen - 1] != '\n')
		fputc('\n', fp);
}

/* The stale flag of a JSON list body; -1 when the body is not such a list. */
static int
ctl_body_stale(const struct ctl_resp *r)
{
	json_t		*o, *s;
	json_error_t	 je;
	int		 stale = -1;

	if ((o = json_loadb(r->body, r->bodylen, 0, &je)) == NULL)
		return -1;
	if ((s = json_object_get(o, "stale")) != NULL && json_is_boolean(s))
		stale = json_is_true(s);
	json_decref(o);
	return stale;
}

/*
 * The daemon's message in this program's words: its query parameters become
 * the flags that set them ("add stale=ok" reads "add --stale-ok").
 */
static void
ctl_print_message(const char *msg)
{
	static const char *const words[][2] = {
		{ "stale=ok", "--stale-ok" }, { "dtypes=", "--dtypes " },
		{ "format=", "--format " }, { "policy=", "--policy " },
		{ "ops=", "--ops " }, { "gpu=", "--gpu " },
		{ "faster=", "--faster " }, { "mode=", "--mode " },
		{ "deterministic=1", "--deterministic" }
	};
	const char	*p = msg;
	size_t		 i, n;

	while (*p) {
		for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
			n = strlen(words[i][0]);
			if (!strncmp(p, words[i][0], n) &&
			    (p == msg || p[-1] == ' ' || p[-1] == '(')) {
				fputs(words[i][1], stderr);
				p += n;
				break;
			}
		}
		if (i == sizeof(words) / sizeof(words[0]))
			fputc(*p++, stderr);
	}
	fputc('\n', stderr);
}

/* Non-2xx: the daemon's JSON error goes to stderr, the list file stays clean. */
static int
ctl_report_error(const struct ctl_resp *r)
{
	json_t		*o;
	json_error_t	 je;
	const char	*msg = NULL;

	if ((o = json_loadb(r->body, r->bodylen, 0, &je)) != NULL)
		msg = json_string_value(json_object_get(o, "error"));
	fprintf(stderr, "opscreenctl: HTTP %d: ", r->status);
	if (msg)
		ctl_print_message(msg);
	else
		ctl_print_body(stderr, r);
	json_decref(o);
	return r->status == 503 ? CTL_STALE : CTL_ERR;
}

static int
ctl_list(const struct ctl *c, const char *which, int argc, char *argv[])
{
	static const char *const formats[] = { "json", "text", "csv", "yaml",
	    "vllm-env", "vllm-yaml", "sglang-env", NULL };
	const char	*format = "json", *dtypes = NULL, *policy = NULL;
	const char	*gpu = NULL, *faster = NULL, *mode = NULL;
	char		 path[1024], gq[96] = "";
	struct ctl_resp	 r, jr;
	int		 i, rc, stale_ok = 0, stale, deterministic = 0;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--deterministic"))
			deterministic = 1;
		else if (!strcmp(argv[i], "--format") && i + 1 < argc)
			format = argv[++i];
		else if (!strncmp(argv[i], "--format=", 9))
			format = argv[i] + 9;
		else if (!strcmp(argv[i], "--dtypes") && i + 1 < argc)
			dtypes = argv[++i];
		else if (!strncmp(argv[i], "--dtypes=", 9))
			dtypes = argv[i] + 9;
		else if (!strcmp(argv[i], "--stale-ok"))
			stale_ok = 1;
		else if (!strcmp(argv[i], "--policy") && i + 1 < argc)
			policy = argv[++i];
		else if (!strncmp(argv[i], "--policy=", 9))
			policy = argv[i] + 9;
		else if (!strcmp(argv[i], "--faster") && i + 1 < argc)
			faster = argv[++i];
		else if (!strncmp(argv[i], "--faster=", 9))
			faster = argv[i] + 9;
		else if (!strcmp(argv[i], "--mode") && i + 1 < argc)
			mode = argv[++i];
		else if (!strncmp(argv[i], "--mode=", 7))
			mode = argv[i] + 7;
		else if (!strcmp(argv[i], "--gpu") && i + 1 < argc)
			gpu = argv[++i];
		else if (!strncmp(argv[i], "--gpu=", 6))
			gpu = argv[i] + 6;
		else
			ctl_usage();
	}
	if (gpu) {
		char	*end;
		long	 g;

		errno = 0;
		g = strtol(gpu, &end, 10);
		if (!*gpu || *end || errno || g < 0 || g > 1023) {
			fprintf(stderr, "opscreenctl: --gpu takes a GPU index\n");
			return CTL_USAGE;
		}
		snprintf(gq, sizeof(gq), "&gpu=%ld", g);
	}
	if (faster) {
		char	*end;
		double	 f;
		size_t	 l = strlen(gq);

		errno = 0;
		f = strtod(faster, &end);
		if (!*faster || *end || errno || !(f > 0) || f > 1000) {
			fprintf(stderr, "opscreenctl: --faster takes a speed "
			    "relative to native's above 0 and at most 1000 (1: "
			    "never slower)\n");
			return CTL_USAGE;
		}
		snprintf(gq + l, sizeof(gq) - l, "&faster=%.17g", f);
	}
	if (mode) {
		size_t	 l = strlen(gq);

		if (strcmp(mode, "eager") && strcmp(mode, "compile") &&
		    strcmp(mode, "cudagraph")) {
			fprintf(stderr, "opscreenctl: --mode must be eager, "
			    "compile or cudagraph\n");
			return CTL_USAGE;
		}
		snprintf(gq + l, sizeof(gq) - l, "&mode=%s", mode);
	}
	if (deterministic) {
		size_t	 l = strlen(gq);

		snprintf(gq + l, sizeof(gq) - l, "&deterministic=1");
	}
	if (policy && strcmp(policy, "strict") && strcmp(policy, "tolerant")) {
		fprintf(stderr, "opscreenctl: --policy must be strict or "
		    "tolerant\n");
		return CTL_USAGE;
	}
	for (i = 0; formats[i] && strcmp(format, formats[i]); i++)
		;
	if (formats[i] == NULL) {
		fprintf(stderr, "opscreenctl: --format must be json, text, csv, "
		    "yaml, vllm-env, vllm-yaml or sglang-env\n");
		return CTL_USAGE;
	}
	if (dtypes && (!*dtypes || !ctl_query_safe(dtypes))) {
		fprintf(stderr, "opscreenctl: --dtypes takes a comma list of "
		    "dtype names\n");
		return CTL_USAGE;
	}
	snprintf(path, sizeof(path), "/%s?format=%s%s%s%s%s%s%s", which, format,
	    dtypes ? "&dtypes=" : "", dtypes ? dtypes : "",
	    stale_ok ? "&stale=ok" : "", policy ? "&policy=" : "",
	    policy ? policy : "", gq);
	if ((rc = ctl_request(c, "GET", path, NULL, NULL, &r)) != CTL_OK)
		return rc;
	if (r.status != 200) {
		rc = ctl_report_error(&r);
		ctl_resp_free(&r);
		return rc;
	}
	ctl_print_body(stdout, &r);
	if (!strcmp(format, "json"))
		stale = ctl_body_stale(&r);
	else if (!stale_ok)
		stale = 0;	/* without stale=ok the daemon serves current lists only */
	else {
		/* only JSON carries the stale flag: ask for the JSON form */
		snprintf(path, sizeof(path), "/%s?format=json%s%s%s%s%s&stale=ok",
		    which, dtypes ? "&dtypes=" : "", dtypes ? dtypes : "",
		    policy ? "&policy=" : "", policy ? policy : "", gq);
		if ((rc = ctl_request(c, "GET", path, NULL, NULL, &jr)) !=
		    CTL_OK) {
			ctl_resp_free(&r);
			return rc;
		}
		stale = jr.status == 200 ? ctl_body_stale(&jr) : 1;
		ctl_resp_free(&jr);
	}
	ctl_resp_free(&r);
	if (stale == -1) {
		fprintf(stderr, "opscreenctl: the %s is not a JSON list\n",
		    which);
		return CTL_ERR;
	}
	if (stale) {
		fprintf(stderr, "opscreenctl: the %s is stale: it is not from a "
		    "complete screen of the current library fingerprint\n",
		    which);
		return CTL_STALE;
	}
	return CTL_OK;
}

/* 0 when the run completed, 1 when it failed or was cancelled. */
static int
ctl_wait_run(const struct ctl *c, json_int_t id)
{
	char		 path[64];
	struct ctl_resp	 r;
	json_t		*o;
	json_error_t	 je;
	const char	*state;
	int		 rc;

	snprintf(path, sizeof(path), "/runs/%lld", (long long)id);
	for (;;) {
		if ((rc = ctl_request(c, "GET", path, NULL, NULL, &r)) != CTL_OK)
			return rc;
		if (r.status != 200) {
			rc = ctl_report_error(&r);
			ctl_resp_free(&r);
			return rc == CTL_STALE ? CTL_ERR : rc;
		}
		if ((o = json_loadb(r.body, r.bodylen, 0, &je)) == NULL) {
			fprintf(stderr, "opscreenctl: /runs/%lld: %s\n",
			    (long long)id, je.text);
			ctl_resp_free(&r);
			return CTL_ERR;
		}
		state = json_string_value(json_object_get(o, "state"));
		if (state && (!strcmp(state, "complete") ||
		    !strcmp(state, "failed") || !strcmp(state, "cancelled"))) {
			ctl_print_body(stdout, &r);
			rc = !strcmp(state, "complete") ? CTL_OK : CTL_ERR;
			json_decref(o);
			ctl_resp_free(&r);
			return rc;
		}
		json_decref(o);
		ctl_resp_free(&r);
		sleep(1);
	}
}

static int
ctl_run(const struct ctl *c, int argc, char *argv[])
{
	const char	*ops = NULL;
	char		 tok[CTL_TOKEN_MAX], *body = NULL, *p, *save = NULL;
	char		*list = NULL;
	struct ctl_resp	 r;
	json_t		*req = NULL, *arr, *o = NULL;
	json_error_t	 je;
	json_int_t	 id;
	int		 i, wait = 0, rc = CTL_ERR;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--ops") && i + 1 < argc)
			ops = argv[++i];
		else if (!strncmp(argv[i], "--ops=", 6))
			ops = argv[i] + 6;
		else if (!strcmp(argv[i], "--wait"))
			wait = 1;
		else
			ctl_usage();
	}
	req = json_object();
	if (ops) {
		arr = json_array();
		json_object_set_new(req, "ops", arr);
		if ((list = strdup(ops)) == NULL)
			goto err;
		for (p = strtok_r(list, ", ", &save); p != NULL;
		    p = strtok_r(NULL, ", ", &save))
			json_array_append_new(arr, json_string(p));
		if (json_array_size(arr) == 0) {
			fprintf(stderr, "opscreenctl: --ops takes a comma list "
			    "of names\n");
			rc = CTL_USAGE;
			goto err;
		}
	}
	if ((body = json_dumps(req, JSON_COMPACT)) == NULL)
		goto err;
	if (ctl_read_token(c, tok, sizeof(tok)) == -1)
		goto err;
	if ((rc = ctl_request(c, "POST", "/runs", tok, body, &r)) != CTL_OK)
		goto err;
	if (r.status != 202) {
		if (r.status == 401 || r.status == 403)
			fprintf(stderr, "opscreenctl: the token sent was read "
			    "from '%s' (-t, $OPSCREEN_TOKEN_FILE)\n", c->tokenfile);
		rc = ctl_report_error(&r);
		/* a 503 here is "cannot start", not a stale list */
		if (rc == CTL_STALE)
			rc = CTL_ERR;
		ctl_resp_free(&r);
		goto err;
	}
	ctl_print_body(stdout, &r);
	o = json_loadb(r.body, r.bodylen, 0, &je);
	ctl_resp_free(&r);
	if (o == NULL || !json_is_integer(json_object_get(o, "run"))) {
		fprintf(stderr, "opscreenctl: POST /runs: no run id in the "
		    "answer\n");
		rc = CTL_ERR;
		goto err;
	}
	id = json_integer_value(json_object_get(o, "run"));
	rc = wait ? ctl_wait_run(c, id) : CTL_OK;
err:
	json_decref(o);
	json_decref(req);
	free(body);
	free(list);
	return rc;
}

static int
ctl_status(const struct ctl *c, int argc, char *argv[])
{
	struct ctl_resp	 r;
	int		 rc;

	if (argc != 0)
		ctl_usage();
	if ((rc = ctl_request(c, "GET", "/healthz", NULL, NULL, &r)) != CTL_OK)
		return rc;
	if (r.status != 200) {
		rc = ctl_report_error(&r);
		ctl_resp_free(&r);
		return rc == CTL_STALE ? CTL_ERR : rc;
	}
	ctl_print_body(stdout, &r);
	ctl_resp_free(&r);
	return CTL_OK;
}

static int
ctl_set_hostport(struct ctl *c, const char *arg)
{
	const char	*host = arg, *port = NULL, *p;
	size_t		 hl, n;

	/* a URL: http://host:port or https://proxy/prefix, as given */
	if (!strncmp(arg, "http://", 7) || !strncmp(arg, "https://", 8)) {
		n = strlen(arg);
		while (n > 0 && arg[n - 1] == '/')
			n--;
		if (n <= (size_t)(arg[4] == 's' ? 8 : 7) || n >= sizeof(c->base))
			return -1;
		memcpy(c->base, arg, n);
		c->base[n] = '\0';
		return 0;
	}
	if (arg[0] == '[') {			/* [::1] or [::1]:8470 */
		if ((p = strchr(arg, ']')) == NULL)
			return -1;
		host = arg + 1;
		hl = p - host;
		if (p[1] == ':')
			port = p + 2;
		else if (p[1] != '\0')
			return -1;
	} else if ((p = strchr(arg, ':')) != NULL && strchr(p + 1, ':') == NULL) {
		hl = p - arg;			/* host:port */
		port = p + 1;
	} else
		hl = strlen(arg);		/* host, or a bare IPv6 address */
	if (port != NULL && (*port == '\0' || strlen(port) > 5 ||
	    strspn(port, "0123456789") != strlen(port)))
		return -1;
	if (hl == 0 || hl > 255 || memchr(host, '/', hl) != NULL)
		return -1;
	snprintf(c->base, sizeof(c->base), "http://%s%.*s%s:%s",
	    memchr(host, ':', hl) ? "[" : "", (int)hl, host,
	    memchr(host, ':', hl) ? "]" : "", port ? port : "8470");
	return 0;
}

/*
 * judge: {"case": CASE, "result": RESULT} on stdin (docs/protocol.md) gets
 * the daemon's verdict on one line of JSON: status, reason, detail, score,
 * native_inaccurate, severity (under the default [verdict] critical_ratio).  A repro script computes the RESULT with the runner's
 * own code and leaves the judgement to this, the one rule.
 */
static int
ctl_judge(int argc, char *argv[])
{
	struct case_verdict	 v;
	json_error_t		 jerr;
	json_t			*in, *out;
	char			*buf, *s;
	size_t			 len = 0;
	ssize_t			 n;
	int			 rc;

	if (argc != 0)
		ctl_usage();
	if ((buf = malloc(CTL_RESP_MAX)) == NULL) {
		fprintf(stderr, "opscreenctl: out of memory\n");
		return CTL_ERR;
	}
	while (len < CTL_RESP_MAX && (n = read(STDIN_FILENO, buf + len,
	    CTL_RESP_MAX - len)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			fprintf(stderr, "opscreenctl: stdin: %s\n",
			    strerror(errno));
			free(buf);
			return CTL_ERR;
		}
		len += (size_t)n;
	}
	if (len == CTL_RESP_MAX) {
		fprintf(stderr, "opscreenctl: judge: input over %u bytes\n",
		    CTL_RESP_MAX);
		free(buf);
		return CTL_ERR;
	}
	in = json_loadb(buf, len, 0, &jerr);
	free(buf);
	if (!json_is_object(in) || !json_is_object(json_object_get(in,
	    "case"))) {
		fprintf(stderr, "opscreenctl: judge: want {\"case\": {...}, "
		    "\"result\": {...}}%s%s\n", in == NULL ? ": " : "",
		    in == NULL ? jerr.text : "");
		json_decref(in);
		return CTL_ERR;
	}
	verdict_case(json_object_get(in, "case"), json_object_get(in, "result"),
	    VERDICT_CRITICAL_RATIO, &v);
	out = json_pack("{ss ss ss sf sb ss}", "status", case_status_name(
	    v.status), "reason", v.reason, "detail", v.detail, "score",
	    isfinite(v.score) ? v.score : 0.0, "native_inaccurate",
	    v.native_inaccurate, "severity", severity_name(verdict_severity(
	    &v)));
	/* a repro given beside them comes back as the daemon stores it */
	if (out != NULL && json_is_string(json_object_get(in, "repro"))) {
		char	*r = strdup(json_string_value(json_object_get(in,
			    "repro")));

		if (r != NULL)
			repro_take(&r, NULL, json_object_get(in, "result"), &v);
		if (r != NULL)
			json_object_set_new(out, "repro", json_string(r));
		free(r);
	}
	json_decref(in);
	if (out == NULL || (s = json_dumps(out, JSON_COMPACT)) == NULL) {
		json_decref(out);
		return CTL_ERR;
	}
	printf("%s\n", s);
	free(s);
	json_decref(out);
	rc = v.status == CASE_PASS || v.status == CASE_NA ? CTL_OK :
	    CTL_NOT_PASSED;
	return fflush(stdout) == 0 ? rc : CTL_ERR;
}

int
main(int argc, char *argv[])
{
	struct ctl	 c;
	const char	*cmd;
	int		 ch;
	static const struct option longopts[] = {
		{ "host", required_argument, NULL, 'H' },
		{ "token-file", required_argument, NULL, 't' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "cacert", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};

	memset(&c, 0, sizeof(c));
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		fprintf(stderr, "opscreenctl: cannot initialise libcurl\n");
		return CTL_ERR;
	}
	snprintf(c.base, sizeof(c.base), "http://127.0.0.1:8470");
	c.timeout = CTL_TIMEOUT;
	if (getenv("OPSCREEN_URL") != NULL && *getenv("OPSCREEN_URL") &&
	    ctl_set_hostport(&c, getenv("OPSCREEN_URL")) == -1) {
		fprintf(stderr, "opscreenctl: OPSCREEN_URL is no URL nor "
		    "host[:port]\n");
		return CTL_USAGE;
	}
	c.tokenfile = getenv("OPSCREEN_TOKEN_FILE");
	if (c.tokenfile == NULL || *c.tokenfile == '\0')
		c.tokenfile = "/etc/opscreen/token";
	/* "+": stop at the command, whose own options follow it */
	while ((ch = getopt_long(argc, argv, "+H:t:hV", longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'T': {
			char	*end;

			c.timeout = strtod(optarg, &end);
			if (*end != '\0' || !(c.timeout > 0 && c.timeout <= 86400)) {
				fprintf(stderr, "opscreenctl: --timeout takes "
				    "seconds, more than 0\n");
				return CTL_USAGE;
			}
			break;
		}
		case 'C':
			c.cacert = optarg;
			break;
		case 'h':
			ctl_usage_text(stdout);
			return 0;
		case 'V':
			printf("opscreenctl %s\n", OPSCREEN_VERSION);
			return 0;
		case 'H':
			if (ctl_set_hostport(&c, optarg) == -1) {
				fprintf(stderr, "opscreenctl: -H wants a URL "
				    "(http[s]://host:port) or host, host:port, "
				    "[v6addr] or [v6addr]:port\n");
				return CTL_USAGE;
			}
			break;
		case 't':
			c.tokenfile = optarg;
			break;
		default:
			ctl_usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		ctl_usage();
	cmd = argv[0];
	if (!strcmp(cmd, "allowlist") || !strcmp(cmd, "denylist"))
		return ctl_list(&c, cmd, argc - 1, argv + 1);
	if (!strcmp(cmd, "run"))
		return ctl_run(&c, argc - 1, argv + 1);
	if (!strcmp(cmd, "status"))
		return ctl_status(&c, argc - 1, argv + 1);
	if (!strcmp(cmd, "judge"))
		return ctl_judge(argc - 1, argv + 1);
	ctl_usage();
}
