/*
 * config.c: conf/opscreen.conf, INI parsed with inih. Every problem is reported
 * with its line number; the daemon refuses to start on any (opscreend -n checks).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ini.h>

#include "opscreend.h"

struct config_ctx {
	struct config	*conf;
	FILE		*errs;
	const char	*path;
	FILE		*fp;
	int		 line;
};

void
config_defaults(struct config *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->listen, sizeof(c->listen), "127.0.0.1");
	c->port = 8470;
	snprintf(c->database, sizeof(c->database), "/var/lib/opscreen/opscreen.db");
	snprintf(c->token_file, sizeof(c->token_file), "/etc/opscreen/token");
	snprintf(c->python, sizeof(c->python), "python3");
	snprintf(c->runner_path, sizeof(c->runner_path), "/usr/local/share/opscreen/probes");
	snprintf(c->library, sizeof(c->library), "auto");
	snprintf(c->devices, sizeof(c->devices), "all");
	c->case_deadline = 300;
	c->cpu_case_deadline = 10;
	c->hello_deadline = 300;
	c->fingerprint_period = 600;
	c->workers_per_device = 1;
	c->compile_workers = 1;
	c->compile_budget = 60;
	c->compile_extrapolate = 4;
	c->shrink_max = 24;
	c->shrink_budget = 30;
	c->key_budget = 300;
	c->first_call_budget = 0;
	c->first_call_hold = 10;
	c->cache_autotuning = 1;
	c->fail_fast = 1;
	c->runner_nice = 10;
	snprintf(c->cuda_sync, sizeof(c->cuda_sync), "auto");
	c->autotune_rep = 5;
	c->screen_on_start = 0;
	c->api_threads = 4;
	c->api_max_connections = 256;
	c->api_connection_timeout = 10;
	c->api_max_connections_per_ip = 32;
	c->api_request_timeout = 10;
}

static int
parse_int(const char *v, int lo, int hi, int *out)
{
	char	*end;
	long	 n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end != '\0' || n < lo || n > hi)
		return -1;
	*out = (int)n;
	return 0;
}

/* A number of seconds (fractions allowed) in [lo, hi]. */
static int
parse_seconds(const char *v, double lo, double hi, double *out)
{
	char	*end;
	double	 x;

	errno = 0;
	x = strtod(v, &end);
	if (errno || end == v || *end != '\0' || !(x >= lo && x <= hi))
		return -1;
	*out = x;
	return 0;
}

static int
parse_bool(const char *v, int *out)
{
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1") ||
	    !strcasecmp(v, "on"))
		*out = 1;
	else if (!strcasecmp(v, "no") || !strcasecmp(v, "false") ||
	    !strcmp(v, "0") || !strcasecmp(v, "off"))
		*out = 0;
	else
		return -1;
	return 0;
}

static int
set_str(char *dst, size_t len, const char *v)
{
	if (strlen(v) >= len)
		return -1;
	memcpy(dst, v, strlen(v) + 1);
	return 0;
}

static int
valid_devices(const char *v)
{
	const char	*p;

	if (!strcmp(v, "all") || !strcmp(v, "cpu"))
		return 1;
	if (*v == '\0')
		return 0;
	for (p = v; *p; p++)
		if (!isdigit((unsigned char)*p) && *p != ',' && *p != ' ')
			return 0;
	return 1;
}

static int
valid_library(const char *v)
{
	const char	*p;

	if (*v == '\0')
		return 0;
	for (p = v; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.')
			return 0;
	return 1;
}

/* Returns NULL when accepted, else what is wrong with the value. */
static const char *
config_apply(struct config *c, const char *section, const char *key,
    const char *v)
{
	char	 full[128];

	snprintf(full, sizeof(full), "%s.%s", section, key);
#define IS(s)	(!strcmp(full, (s)))
	if (IS("daemon.listen"))
		return set_str(c->listen, sizeof(c->listen), v) ? "too long" : NULL;
	if (IS("daemon.port"))
		return parse_int(v, 1, 65535, &c->port) ?
		    "must be an integer 1..65535" : NULL;
	if (IS("daemon.database"))
		return (*v == '\0' || set_str(c->database, sizeof(c->database), v)) ?
		    "must be a path" : NULL;
	if (IS("daemon.token_file"))
		return set_str(c->token_file, sizeof(c->token_file), v) ?
		    "too long" : NULL;
	if (IS("daemon.screen_on_start"))
		return parse_bool(v, &c->screen_on_start) ?
		    "must be yes or no" : NULL;
	if (IS("runner.python"))
		return (*v == '\0' || set_str(c->python, sizeof(c->python), v)) ?
		    "must be an interpreter path or name" : NULL;
	if (IS("runner.runner_path"))
		return set_str(c->runner_path, sizeof(c->runner_path), v) ?
		    "too long" : NULL;
	if (IS("runner.library"))
		return (!valid_library(v) ||
		    set_str(c->library, sizeof(c->library), v)) ?
		    "must be auto, flag_gems, demolib or a module name" : NULL;
	if (IS("runner.devices"))
		return (!valid_devices(v) ||
		    set_str(c->devices, sizeof(c->devices), v)) ?
		    "must be all, cpu or a list of GPU indices" : NULL;
	if (IS("runner.case_deadline"))
		return parse_int(v, 1, 86400, &c->case_deadline) ?
		    "must be seconds, 1..86400" : NULL;
	if (IS("runner.cpu_case_deadline"))
		return parse_int(v, 1, 86400, &c->cpu_case_deadline) ?
		    "must be seconds, 1..86400" : NULL;
	if (IS("runner.fingerprint_period"))
		return parse_int(v, 0, 86400, &c->fingerprint_period) ?
		    "must be seconds, 0..86400 (0 = never re-check)" : NULL;
	if (IS("runner.start_deadline"))
		return parse_int(v, 1, 86400, &c->hello_deadline) ?
		    "must be seconds, 1..86400" : NULL;
	if (IS("runner.workers_per_device"))
		return parse_int(v, 1, 24, &c->workers_per_device) ?
		    "must be an integer 1..24" : NULL;
	if (IS("runner.compile_workers"))
		return parse_int(v, 0, 8, &c->compile_workers) ?
		    "must be an integer 0..8 (0 = compile cases share the "
		    "other runners)" : NULL;
	if (IS("runner.compile_budget"))
		return parse_int(v, 1, 86400, &c->compile_budget) ?
		    "must be seconds, 1..86400" : NULL;
	if (IS("runner.compile_extrapolate")) {
		int	x;

		if (parse_int(v, 1, 1024, &x))
			return "must be an integer factor 1..1024";
		c->compile_extrapolate = x;
		return NULL;
	}
	if (IS("runner.shrink_max"))
		return parse_int(v, 0, 1000, &c->shrink_max) ?
		    "must be an integer 0..1000 (0 = store failing cases "
		    "unshrunk)" : NULL;
	if (IS("runner.shrink_budget"))
		return parse_seconds(v, 0, 86400, &c->shrink_budget) ?
		    "must be seconds, 0..86400 (0 = no budget)" : NULL;
	if (IS("runner.first_call_budget"))
		return parse_seconds(v, 0, 86400, &c->first_call_budget) ?
		    "must be seconds, 0..86400 (0 = no budget)" : NULL;
	if (IS("runner.first_call_hold"))
		return parse_seconds(v, 0, 86400, &c->first_call_hold) ?
		    "must be seconds, 0..86400 (0 = no hold)" : NULL;
	if (IS("runner.key_budget"))
		return parse_seconds(v, 0, 86400, &c->key_budget) ?
		    "must be seconds, 0..86400 (0 = no budget)" : NULL;
	if (IS("runner.cache_autotuning"))
		return parse_bool(v, &c->cache_autotuning) ?
		    "must be yes or no" : NULL;
	if (IS("runner.fail_fast"))
		return parse_bool(v, &c->fail_fast) ? "must be yes or no" : NULL;
	if (IS("runner.autotune_rep"))
		return parse_seconds(v, 0, 10000, &c->autotune_rep) ?
		    "must be milliseconds, 0..10000 (0 = the library's own)" : NULL;
	if (IS("runner.cuda_sync"))
		return (strcmp(v, "auto") && strcmp(v, "spin") &&
		    strcmp(v, "yield") && strcmp(v, "blocking")) ||
		    set_str(c->cuda_sync, sizeof(c->cuda_sync), v) ?
		    "must be auto, spin, yield or blocking" : NULL;
	if (IS("runner.nice"))
		return parse_int(v, 0, 19, &c->runner_nice) ?
		    "must be an integer 0..19" : NULL;
	if (IS("runner.classes"))
		return set_str(c->default_classes, sizeof(c->default_classes), v) ?
		    "too long" : NULL;
	if (IS("runner.dtypes"))
		return set_str(c->default_dtypes, sizeof(c->default_dtypes), v) ?
		    "too long" : NULL;
	if (IS("api.threads"))
		return parse_int(v, 1, 64, &c->api_threads) ?
		    "must be an integer 1..64" : NULL;
	if (IS("api.max_connections"))
		return parse_int(v, 1, 65536, &c->api_max_connections) ?
		    "must be an integer 1..65536" : NULL;
	if (IS("api.connection_timeout"))
		return parse_int(v, 1, 3600, &c->api_connection_timeout) ?
		    "must be seconds, 1..3600" : NULL;
	if (IS("api.max_connections_per_ip"))
		return parse_int(v, 1, 65536, &c->api_max_connections_per_ip) ?
		    "must be an integer 1..65536" : NULL;
	if (IS("api.request_timeout"))
		return parse_int(v, 1, 3600, &c->api_request_timeout) ?
		    "must be seconds, 1..3600" : NULL;
#undef IS
	return "unknown key";
}

/*
 * Debian's inih does not pass line numbers to the handler, so the reader
 * counts them: inih calls the handler right after reading the line.
 */
static char *
config_reader(char *str, int num, void *arg)
{
	struct config_ctx	*ctx = arg;
	char			*s = fgets(str, num, ctx->fp);

	if (s != NULL)
		ctx->line++;
	return s;
}

static int
config_handler(void *arg, const char *section, const char *key,
    const char *value)
{
	struct config_ctx	*ctx = arg;
	int			 lineno = ctx->line;
	const char		*why;

	if (key == NULL)	/* a section header alone */
		return 1;
	if ((why = config_apply(ctx->conf, section, key, value)) != NULL) {
		fprintf(ctx->errs, "%s:%d: [%s] %s = \"%s\": %s\n", ctx->path,
		    lineno, section, key, value, why);
		ctx->conf->nerrors++;
	}
	return 1;	/* keep going: report every problem, not the first */
}

int
config_set(struct config *c, const char *key, const char *value)
{
	char		 sect[64];
	const char	*dot;

	if ((dot = strchr(key, '.')) == NULL || (size_t)(dot - key) >= sizeof(sect))
		return -1;
	memcpy(sect, key, dot - key);
	sect[dot - key] = '\0';
	return config_apply(c, sect, dot + 1, value) ? -1 : 0;
}

int
config_load(struct config *c, const char *path, FILE *errs)
{
	struct config_ctx	 ctx = { c, errs, path, NULL, 0 };
	FILE			*fp;
	int			 rc;

	if ((fp = fopen(path, "r")) == NULL) {
		fprintf(errs, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	ctx.fp = fp;
	rc = ini_parse_stream(config_reader, &ctx, config_handler, &ctx);
	fclose(fp);
	if (rc > 0) {
		fprintf(errs, "%s:%d: syntax error (expected [section] or "
		    "key = value)\n", path, rc);
		c->nerrors++;
	} else if (rc < 0) {
		fprintf(errs, "%s: cannot parse\n", path);
		c->nerrors++;
	}
	return c->nerrors ? -1 : 0;
}
