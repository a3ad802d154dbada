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
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>

#include "verdict.h"
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
	char		 host[256];
	char		 port[16];
	const char	*tokenfile;
};

static __attribute__((noreturn)) void
ctl_usage(void)
{
	fprintf(stderr,
	    "usage: opscreenctl [-H host:port] [-t tokenfile] command [options]\n"
	    "  allowlist|denylist [--format json|text|csv|yaml] [--dtypes L]"
	    " [--stale-ok]\n"
	    "  run [--ops a,b] [--wait]\n"
	    "  status\n"
	    "  judge < {\"case\": CASE, \"result\": RESULT}\n"
	    "exit: 0 verified list served (or run/status ok, or the case passes"
	    " or is\n"
	    "      not applicable), 1 error, 2 usage, 3 stale or no complete"
	    " screen (503),\n"
	    "      4 daemon unreachable, 5 judged: the case does not pass\n");
	exit(CTL_USAGE);
}

static void
ctl_resp_free(struct ctl_resp *r)
{
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

static int
ctl_connect(const struct ctl *c)
{
	struct addrinfo	 hints, *res, *ai;
	struct timeval	 tv = { CTL_TIMEOUT, 0 };
	int		 fd = -1, rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if ((rc = getaddrinfo(c->host, c->port, &hints, &res)) != 0) {
		fprintf(stderr, "opscreenctl: %s:%s: %s\n", c->host, c->port,
		    gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if ((fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
		    ai->ai_protocol)) == -1)
			continue;
		/* bounded: a daemon that accepts and never answers is an error */
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd == -1)
		fprintf(stderr, "opscreenctl: cannot reach opscreend on %s:%s: "
		    "%s\n", c->host, c->port, strerror(errno));
	return fd;
}

static int
ctl_write_all(int fd, const char *p, size_t len)
{
	ssize_t	 n;

	while (len > 0) {
		if ((n = write(fd, p, len)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= n;
	}
	return 0;
}

/*
 * One request, one connection (HTTP/1.0: the daemon closes after the answer,
 * so the body is everything up to EOF and no chunked decoding is needed).
 * Returns CTL_OK with r filled, CTL_UNREACHABLE or CTL_ERR.
 */
static int
ctl_request(const struct ctl *c, const char *method, const char *path,
    const char *token, const char *body, struct ctl_resp *r)
{
	char	*head = NULL, *p, *nb;
	size_t	 cap = 0;
	ssize_t	 n;
	int	 fd, len;

	memset(r, 0, sizeof(*r));
	if ((fd = ctl_connect(c)) == -1)
		return CTL_UNREACHABLE;
	len = asprintf(&head, "%s %s HTTP/1.0\r\nHost: %s:%s\r\n"
	    "User-Agent: opscreenctl\r\nAccept: */*\r\n"
	    "%s%s%s"
	    "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
	    method, path, c->host, c->port,
	    token ? "Authorization: Bearer " : "", token ? token : "",
	    token ? "\r\n" : "", body ? strlen(body) : 0);
	if (len == -1) {
		head = NULL;
		goto err;
	}
	if (ctl_write_all(fd, head, len) == -1 ||
	    (body && ctl_write_all(fd, body, strlen(body)) == -1)) {
		fprintf(stderr, "opscreenctl: sending the request: %s\n",
		    strerror(errno));
		goto err;
	}
	for (;;) {
		if (r->len + 4096 + 1 > cap) {
			if (cap >= CTL_RESP_MAX) {
				fprintf(stderr, "opscreenctl: response larger "
				    "than %u bytes\n", CTL_RESP_MAX);
				goto err;
			}
			cap = cap ? cap * 2 : 65536;
			if (cap > CTL_RESP_MAX)
				cap = CTL_RESP_MAX;
			if ((nb = realloc(r->buf, cap)) == NULL)
				goto err;
			r->buf = nb;
		}
		n = read(fd, r->buf + r->len, cap - r->len - 1);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			fprintf(stderr, "opscreenctl: reading the response: %s\n",
			    errno == EAGAIN ? "timed out" : strerror(errno));
			goto err;
		}
		if (n == 0)
			break;
		r->len += n;
	}
	if (r->buf == NULL)
		goto bad;
	r->buf[r->len] = '\0';
	if (sscanf(r->buf, "HTTP/%*d.%*d %d", &r->status) != 1)
		goto bad;
	if ((p = strstr(r->buf, "\r\n\r\n")) == NULL)
		goto bad;
	r->body = p + 4;
	r->bodylen = r->len - (r->body - r->buf);
	free(head);
	close(fd);
	return CTL_OK;
bad:
	fprintf(stderr, "opscreenctl: malformed HTTP response from %s:%s\n",
	    c->host, c->port);
err:
	free(head);
	close(fd);
	ctl_resp_free(r);
	return CTL_ERR;
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
		fprintf(stderr, "%s\n", msg);
	else
		ctl_print_body(stderr, r);
	json_decref(o);
	return r->status == 503 ? CTL_STALE : CTL_ERR;
}

static int
ctl_list(const struct ctl *c, const char *which, int argc, char *argv[])
{
	const char	*format = "json", *dtypes = NULL;
	char		 path[1024];
	struct ctl_resp	 r, jr;
	int		 i, rc, stale_ok = 0, stale;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--format") && i + 1 < argc)
			format = argv[++i];
		else if (!strncmp(argv[i], "--format=", 9))
			format = argv[i] + 9;
		else if (!strcmp(argv[i], "--dtypes") && i + 1 < argc)
			dtypes = argv[++i];
		else if (!strncmp(argv[i], "--dtypes=", 9))
			dtypes = argv[i] + 9;
		else if (!strcmp(argv[i], "--stale-ok"))
			stale_ok = 1;
		else
			ctl_usage();
	}
	if (strcmp(format, "json") && strcmp(format, "text") &&
	    strcmp(format, "csv") && strcmp(format, "yaml")) {
		fprintf(stderr, "opscreenctl: --format must be json, text, csv "
		    "or yaml\n");
		return CTL_USAGE;
	}
	if (dtypes && (!*dtypes || !ctl_query_safe(dtypes))) {
		fprintf(stderr, "opscreenctl: --dtypes takes a comma list of "
		    "dtype names\n");
		return CTL_USAGE;
	}
	snprintf(path, sizeof(path), "/%s?format=%s%s%s%s", which, format,
	    dtypes ? "&dtypes=" : "", dtypes ? dtypes : "",
	    stale_ok ? "&stale=ok" : "");
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
		/* text, csv and yaml carry no stale flag: ask for the JSON form */
		snprintf(path, sizeof(path), "/%s?format=json%s%s&stale=ok",
		    which, dtypes ? "&dtypes=" : "", dtypes ? dtypes : "");
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
	const char	*colon = strrchr(arg, ':');
	size_t		 hl;

	if (colon == NULL || colon == arg || colon[1] == '\0' ||
	    strspn(colon + 1, "0123456789") != strlen(colon + 1) ||
	    strlen(colon + 1) >= sizeof(c->port))
		return -1;
	hl = colon - arg;
	if (arg[0] == '[' && colon[-1] == ']') {	/* [::1]:8470 */
		arg++;
		hl -= 2;
	}
	if (hl == 0 || hl >= sizeof(c->host))
		return -1;
	memcpy(c->host, arg, hl);
	c->host[hl] = '\0';
	snprintf(c->port, sizeof(c->port), "%s", colon + 1);
	return 0;
}

/*
 * judge: {"case": CASE, "result": RESULT} on stdin (docs/protocol.md) gets
 * the daemon's verdict on one line of JSON: status, reason, detail, score,
 * native_inaccurate.  A repro script computes the RESULT with the runner's
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
	    &v);
	out = json_pack("{ss ss ss sf sb}", "status", case_status_name(
	    v.status), "reason", v.reason, "detail", v.detail, "score",
	    isfinite(v.score) ? v.score : 0.0, "native_inaccurate",
	    v.native_inaccurate);
	/* a repro given beside them comes back as the daemon stores it */
	if (out != NULL && json_is_string(json_object_get(in, "repro"))) {
		char	*r = strdup(json_string_value(json_object_get(in,
			    "repro")));

		if (r != NULL)
			repro_take(&r, json_object_get(in, "result"), &v);
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

	memset(&c, 0, sizeof(c));
	snprintf(c.host, sizeof(c.host), "127.0.0.1");
	snprintf(c.port, sizeof(c.port), "8470");
	c.tokenfile = getenv("OPSCREEN_TOKEN_FILE");
	if (c.tokenfile == NULL || *c.tokenfile == '\0')
		c.tokenfile = "/etc/opscreen/token";
	/* "+": stop at the command, whose own options follow it */
	while ((ch = getopt(argc, argv, "+H:t:h")) != -1) {
		switch (ch) {
		case 'H':
			if (ctl_set_hostport(&c, optarg) == -1) {
				fprintf(stderr, "opscreenctl: -H wants host:port\n");
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
