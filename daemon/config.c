/*
 * config.c: conf/opscreen.conf, INI parsed with inih. Every problem is reported
 * with its line number, and what the file names (the database directory, the
 * token file) is checked too; the daemon refuses to start on any (opscreend
 * -n checks).
 */
#include <sys/stat.h>
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <ini.h>

#include "opscreend.h"
#include "verdict.h"

#define CONFIG_ERRORS_MAX	64	/* reported, then "too many" */
#define CONFIG_KEYS_MAX		128	/* remembered for duplicates */

struct config_error {
	int	 line;
	char	 msg[320];
};

struct config_ctx {
	struct config		*conf;
	const char		*path;
	FILE			*fp;
	int			 line;
	int			 pass;		/* 0 applies; later ones find syntax errors */
	struct config_error	 err[CONFIG_ERRORS_MAX];
	int			 nerr;
	int			 more;		/* errors past CONFIG_ERRORS_MAX */
	int			 skip[CONFIG_ERRORS_MAX];	/* lines inih refused */
	int			 nskip;
	struct {
		char	 key[128];
		int	 line;
	}			 seen[CONFIG_KEYS_MAX];
	int			 nseen;
	int			 cont;		/* the line read is indented: inih's continuation */
	char			 last[128];	/* section.key of the last value line */
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
	snprintf(c->nvml_library, sizeof(c->nvml_library), "libnvidia-ml.so.1");
	snprintf(c->gpu_host_paths, sizeof(c->gpu_host_paths),
	    "/dev/nvidiactl:/dev/nvidia0:/proc/driver/nvidia");
	c->case_deadline = 300;
	c->cpu_case_deadline = 10;
	c->mode_deadline = 300;
	c->alone_factor = 3;
	c->hello_deadline = 300;
	c->fingerprint_period = 600;
	c->workers_per_device = 1;
	c->compile_workers = 1;
	c->compile_budget = 60;
	c->compile_extrapolate = 4;
	c->shrink_max = 24;
	c->shrink_budget = 30;
	c->shrink_after = 1;
	c->key_budget = 300;
	c->first_call_budget = 0;
	c->first_call_hold = 10;
	c->cache_autotuning = 1;
	c->fail_fast = 1;
	c->key_affinity = 0;
	c->runner_pool = -1;	/* auto: the CPU only, until measured on GPUs */
	c->speed = VERDICT_SPEED_ALL;
	snprintf(c->modes, sizeof(c->modes), "eager");
	snprintf(c->compile_backend, sizeof(c->compile_backend), "inductor");
	c->carry = 1;
	c->refresh_days = 7;
	c->runner_nice = 10;
	snprintf(c->cuda_sync, sizeof(c->cuda_sync), "auto");
	c->autotune_rep = 5;
	c->screen_on_start = 0;
	c->api_threads = 4;
	c->api_max_connections = 256;
	c->api_connection_timeout = 10;
	c->api_max_connections_per_ip = 32;
	c->api_request_timeout = 10;
	c->api_header_timeout = 5;
	c->keep_runs = 14;
	c->critical_ratio = VERDICT_CRITICAL_RATIO;
	c->consensus_split = 1;
	c->consensus_per_mille = 20;
	c->consensus_threshold = 1;
	c->consensus_nccl = 2;
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
	/* cpu:N, N CPU runners standing for N GPUs (2..8) */
	if (!strncmp(v, "cpu:", 4))
		return v[4] >= '2' && v[4] <= '8' && v[5] == '\0';
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
		return (!config_listen_valid(v) ||
		    set_str(c->listen, sizeof(c->listen), v)) ?
		    "must be an IPv4 or IPv6 address" : NULL;
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
		    "must be all, cpu, cpu:N (N = 2..8 CPU runners standing "
		    "for N GPUs) or a list of GPU indices" : NULL;
	if (IS("runner.nvml_library"))
		return (*v == '\0' ||
		    set_str(c->nvml_library, sizeof(c->nvml_library), v)) ?
		    "must be a shared library name or path" : NULL;
	if (IS("runner.gpu_host_paths"))
		return set_str(c->gpu_host_paths, sizeof(c->gpu_host_paths), v) ?
		    "too long" : NULL;
	if (IS("runner.case_deadline"))
		return parse_int(v, 1, 86400, &c->case_deadline) ?
		    "must be seconds, 1..86400" : NULL;
	if (IS("runner.mode_deadline"))
		return parse_int(v, 1, 86400, &c->mode_deadline) ?
		    "must be an integer 1..86400" : NULL;
	if (IS("runner.alone_factor"))
		return parse_int(v, 0, 100, &c->alone_factor) ?
		    "must be an integer 0..100 (0 = a lost case is charged "
		    "without running it alone)" : NULL;
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
	if (IS("runner.shrink_after"))
		return parse_bool(v, &c->shrink_after) ? "must be yes or no" :
		    NULL;
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
	if (IS("runner.speed")) {
		if (!strcmp(v, "all"))
			c->speed = VERDICT_SPEED_ALL;
		else if (!strcmp(v, "engine"))
			c->speed = VERDICT_SPEED_ENGINE;
		else if (!strcmp(v, "off"))
			c->speed = VERDICT_SPEED_OFF;
		else
			return "must be all, engine or off";
		return NULL;
	}
	if (IS("consensus.split"))
		return parse_bool(v, &c->consensus_split) ?
		    "must be yes or no" : NULL;
	if (IS("consensus.sample_per_mille"))
		return parse_int(v, 0, 1000, &c->consensus_per_mille) ?
		    "must be an integer 0..1000 (0: no consensus phase, with "
		    "split = no only)" : NULL;
	if (IS("consensus.quarantine_threshold"))
		return parse_int(v, 1, 1000000, &c->consensus_threshold) ?
		    "must be an integer 1..1000000" : NULL;
	if (IS("consensus.nccl")) {
		if (!strcmp(v, "auto"))
			c->consensus_nccl = 2;
		else if (parse_bool(v, &c->consensus_nccl))
			return "must be auto, yes or no";
		return NULL;
	}
	if (IS("runner.modes")) {
		char	 buf[sizeof(c->modes)], *p, *tok, *save = NULL;

		if (strlen(v) >= sizeof(buf))
			return "too long";
		snprintf(buf, sizeof(buf), "%s", v);
		for (p = buf; (tok = strtok_r(p, ", ", &save)) != NULL; p = NULL)
			if (strcmp(tok, "eager") && strcmp(tok, "compile") &&
			    strcmp(tok, "cudagraph"))
				return "must list eager, compile and cudagraph "
				    "(comma-separated)";
		snprintf(c->modes, sizeof(c->modes), "%s", v);
		return NULL;
	}
	if (IS("runner.compile_backend")) {
		size_t	 i;

		/* a name torch.compile knows: letters, digits, _ and . */
		for (i = 0; v[i] != '\0'; i++)
			if (!isalnum((unsigned char)v[i]) && v[i] != '_' &&
			    v[i] != '.')
				break;
		if (i == 0 || v[i] != '\0' || i >= sizeof(c->compile_backend))
			return "must be a torch.compile backend's name "
			    "(letters, digits, _ and ., at most 63)";
		snprintf(c->compile_backend, sizeof(c->compile_backend), "%s", v);
		return NULL;
	}
	if (IS("runner.key_affinity"))
		return parse_bool(v, &c->key_affinity) ? "must be yes or no" :
		    NULL;
	if (IS("runner.pool")) {
		if (!strcmp(v, "auto")) {
			c->runner_pool = -1;
			return NULL;
		}
		return parse_bool(v, &c->runner_pool) ?
		    "must be yes, no or auto" : NULL;
	}
	if (IS("runner.carry"))
		return parse_bool(v, &c->carry) ? "must be yes or no" : NULL;
	if (IS("runner.refresh_days"))
		return parse_int(v, 1, 365, &c->refresh_days) ?
		    "must be an integer 1..365" : NULL;
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
	if (IS("runner.ops")) {
		size_t	 i;

		/* keys or names: letters, digits, _ . and : (fused::x) */
		for (i = 0; v[i] != '\0'; i++)
			if (!isalnum((unsigned char)v[i]) && v[i] != '_' &&
			    v[i] != '.' && v[i] != ':' && v[i] != ',' &&
			    v[i] != ' ')
				return "must list keys or names (letters, digits, "
				    "_ . and :, comma-separated)";
		return set_str(c->default_ops, sizeof(c->default_ops), v) ?
		    "too long" : NULL;
	}
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
	if (IS("store.keep_runs"))
		return parse_int(v, 0, 100000, &c->keep_runs) ?
		    "must be a number of runs, 0 (keep every run) or more" : NULL;
	if (IS("api.header_timeout"))
		return parse_int(v, 1, 3600, &c->api_header_timeout) ?
		    "must be seconds, 1..3600" : NULL;
	if (IS("verdict.critical_ratio"))
		return parse_seconds(v, 1, 1e6, &c->critical_ratio) ?
		    "must be a factor 1..1e6 (times the rule's bound)" : NULL;
#undef IS
	return "unknown key";
}

int
config_listen_valid(const char *v)
{
	struct in_addr	 a4;
	struct in6_addr	 a6;

	return inet_pton(AF_INET, v, &a4) == 1 || inet_pton(AF_INET6, v, &a6) == 1;
}

/* 127.0.0.0/8, ::1 and ::ffff:127.0.0.0/104: nothing off the host reaches it */
int
config_listen_loopback(const char *v)
{
	struct in_addr	 a4;
	struct in6_addr	 a6;

	if (inet_pton(AF_INET, v, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, v, &a6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&a6) || (IN6_IS_ADDR_V4MAPPED(&a6) &&
		    a6.s6_addr[12] == 127);
	return 0;
}

static void
config_error(struct config_ctx *ctx, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
config_error(struct config_ctx *ctx, int line, const char *fmt, ...)
{
	va_list	 ap;

	ctx->conf->nerrors++;
	if (ctx->nerr == CONFIG_ERRORS_MAX) {
		ctx->more++;
		return;
	}
	ctx->err[ctx->nerr].line = line;
	va_start(ap, fmt);
	vsnprintf(ctx->err[ctx->nerr].msg, sizeof(ctx->err[0].msg), fmt, ap);
	va_end(ap);
	ctx->nerr++;
}

static int
config_skipped(struct config_ctx *ctx, int line)
{
	int	 i;

	for (i = 0; i < ctx->nskip; i++)
		if (ctx->skip[i] == line)
			return 1;
	return 0;
}

/*
 * Debian's inih does not pass line numbers to the handler, so the reader
 * counts them: inih calls the handler right after reading the line. One call
 * reads one whole line, so the numbers stay those of the file: a line longer
 * than inih's buffer is an error here, and inih sees it blank (it would take
 * its rest for a line of its own, and the cut value for the whole). A line
 * that inih refused in an earlier pass is blank too, so that the next pass
 * reports the next one.
 */
static char *
config_reader(char *str, int num, void *arg)
{
	struct config_ctx	*ctx = arg;
	size_t			 n;
	int			 ch, cut = 0;

	if (fgets(str, num, ctx->fp) == NULL)
		return NULL;
	ctx->line++;
	n = strlen(str);
	if (n > 0 && str[n - 1] != '\n' && (ch = getc(ctx->fp)) != EOF) {
		if (ch != '\n')
			cut = 1;
		while (ch != '\n' && ch != EOF)
			ch = getc(ctx->fp);
	}
	if (cut && ctx->pass == 0)
		config_error(ctx, ctx->line, "line longer than %d characters",
		    num - 3);
	if (cut || config_skipped(ctx, ctx->line))
		snprintf(str, num, "\n");
	ctx->cont = (str[0] == ' ' || str[0] == '\t') &&
	    str[strspn(str, " \t\r\n")] != '\0' &&
	    str[strspn(str, " \t")] != '#' && str[strspn(str, " \t")] != ';';
	return str;
}

/*
 * The comma lists that may go on over indented continuation lines (inih
 * hands each such line to the handler under the key above it): an op scope
 * longer than a line (inih reads at most 197 characters of one).
 */
static char *
config_list(struct config *c, const char *full, size_t *len)
{
	if (!strcmp(full, "runner.ops"))
		return *len = sizeof(c->default_ops), c->default_ops;
	if (!strcmp(full, "runner.classes"))
		return *len = sizeof(c->default_classes), c->default_classes;
	if (!strcmp(full, "runner.dtypes"))
		return *len = sizeof(c->default_dtypes), c->default_dtypes;
	return NULL;
}

static int
config_handler(void *arg, const char *section, const char *key,
    const char *value)
{
	struct config_ctx	*ctx = arg;
	int			 lineno = ctx->line, i;
	const char		*why;
	char			 full[128];

	if (key == NULL || ctx->pass > 0)	/* a section header alone */
		return 1;
	snprintf(full, sizeof(full), "%s.%s", section, key);
	if (ctx->cont && !strcmp(full, ctx->last)) {
		char	*cur, *joined;
		size_t	 len;

		if ((cur = config_list(ctx->conf, full, &len)) == NULL) {
			config_error(ctx, lineno, "[%s] %s: an indented line goes "
			    "on with a list (runner.ops, runner.classes, "
			    "runner.dtypes) only", section, key);
			return 1;
		}
		if ((joined = malloc(len + strlen(value) + 2)) == NULL) {
			config_error(ctx, lineno, "out of memory");
			return 1;
		}
		snprintf(joined, len + strlen(value) + 2, "%s%s%s", cur,
		    *cur && *value && cur[strlen(cur) - 1] != ',' ? "," : "",
		    value);
		if ((why = config_apply(ctx->conf, section, key, joined)) != NULL)
			config_error(ctx, lineno, "[%s] %s, continued with \"%s\": "
			    "%s", section, key, value, why);
		free(joined);
		return 1;
	}
	snprintf(ctx->last, sizeof(ctx->last), "%s", full);
	for (i = 0; i < ctx->nseen; i++)
		if (!strcmp(ctx->seen[i].key, full)) {
			config_error(ctx, lineno, "[%s] %s = \"%s\": duplicate key "
			    "(first set on line %d)", section, key, value,
			    ctx->seen[i].line);
			return 1;
		}
	if (ctx->nseen < CONFIG_KEYS_MAX) {
		snprintf(ctx->seen[ctx->nseen].key, sizeof(ctx->seen[0].key), "%s",
		    full);
		ctx->seen[ctx->nseen++].line = lineno;
	}
	if ((why = config_apply(ctx->conf, section, key, value)) != NULL)
		config_error(ctx, lineno, "[%s] %s = \"%s\": %s", section, key,
		    value, why);
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

static int
config_error_cmp(const void *a, const void *b)
{
	const struct config_error	*x = a, *y = b;

	return (x->line > y->line) - (x->line < y->line);
}

/*
 * inih returns the first line it could not parse and goes on past it; each
 * further pass blanks the lines found so far, so every syntax error is
 * reported, in inih's own judgement. Values are applied in the first pass.
 */
int
config_load(struct config *c, const char *path, FILE *errs)
{
	struct config_ctx	*ctx;
	FILE			*fp;
	int			 rc, i;

	if ((fp = fopen(path, "r")) == NULL) {
		fprintf(errs, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	if ((ctx = calloc(1, sizeof(*ctx))) == NULL) {
		fclose(fp);
		fprintf(errs, "%s: out of memory\n", path);
		return -1;
	}
	ctx->conf = c;
	ctx->path = path;
	ctx->fp = fp;
	for (;;) {
		ctx->line = 0;
		rc = ini_parse_stream(config_reader, ctx, config_handler, ctx);
		if (rc <= 0)
			break;
		config_error(ctx, rc, "syntax error (expected [section] or "
		    "key = value)");
		if (ctx->nskip == CONFIG_ERRORS_MAX || config_skipped(ctx, rc))
			break;
		ctx->skip[ctx->nskip++] = rc;
		ctx->pass++;
		rewind(fp);
	}
	if (ferror(fp)) {
		fprintf(errs, "%s: %s\n", path, strerror(errno));
		c->nerrors++;
	} else if (rc < 0) {
		fprintf(errs, "%s: cannot parse\n", path);
		c->nerrors++;
	}
	fclose(fp);
	qsort(ctx->err, ctx->nerr, sizeof(ctx->err[0]), config_error_cmp);
	for (i = 0; i < ctx->nerr; i++)
		fprintf(errs, "%s:%d: %s\n", path, ctx->err[i].line,
		    ctx->err[i].msg);
	if (ctx->more)
		fprintf(errs, "%s: %d more error(s)\n", path, ctx->more);
	free(ctx);
	return c->nerrors ? -1 : 0;
}

/*
 * The token grants starting and cancelling runs: a file others may read is
 * refused. Missing is not an error (the API then refuses POST and DELETE).
 */
static int
config_token_file(const struct config *c, char *why, size_t len)
{
	struct stat	 sb;

	if (c->token_file[0] == '\0' || stat(c->token_file, &sb) == -1)
		return 0;
	if (!S_ISREG(sb.st_mode)) {
		snprintf(why, len, "not a regular file");
		return -1;
	}
	if (sb.st_mode & (S_IRWXG | S_IRWXO)) {
		snprintf(why, len, "mode %04o lets others read the token; make it "
		    "0600 or 0400 (chmod 600)", (unsigned)(sb.st_mode & 07777));
		return -1;
	}
	if (sb.st_uid != geteuid()) {
		snprintf(why, len, "owned by uid %u, not by the user opscreend runs "
		    "as (uid %u)", (unsigned)sb.st_uid, (unsigned)geteuid());
		return -1;
	}
	{
		/* the token is its first line's first word, as load_token reads
		 * it: fewer than 16 characters would leave the API no token */
		char	 tok[256] = "";
		FILE	*fp;

		if ((fp = fopen(c->token_file, "r")) == NULL) {
			snprintf(why, len, "cannot be read: %s", strerror(errno));
			return -1;
		}
		if (fgets(tok, sizeof(tok), fp) == NULL)
			tok[0] = '\0';
		fclose(fp);
		if (strcspn(tok, " \t\r\n") < 16) {
			snprintf(why, len, "its token (the first word of its first "
			    "line) has fewer than 16 characters");
			return -1;
		}
	}
	return 0;
}

/*
 * What the values name, checked before anything starts: the database
 * directory (relative paths resolve in the directory opscreend runs in) and
 * the token file. Returns the number of problems, each written to errs.
 */
int
config_check(const struct config *c, const char *path, FILE *errs)
{
	char	 dir[sizeof(c->database)], why[256], *slash;
	int	 n = 0;

	snprintf(dir, sizeof(dir), "%s", c->database);
	if ((slash = strrchr(dir, '/')) == NULL)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	if (access(dir, F_OK) == -1) {
		fprintf(errs, "%s: [daemon] database = \"%s\": database directory "
		    "'%s' does not exist\n", path, c->database, dir);
		n++;
	} else if (access(dir, W_OK | X_OK) == -1) {
		fprintf(errs, "%s: [daemon] database = \"%s\": database directory "
		    "'%s' is not writable: %s\n", path, c->database, dir,
		    strerror(errno));
		n++;
	}
	if (c->consensus_split && c->consensus_per_mille == 0) {
		fprintf(errs, "%s: [consensus] split = yes needs "
		    "sample_per_mille above 0: no GPU would check another's "
		    "half of the screen\n", path);
		n++;
	}
	if (config_token_file(c, why, sizeof(why)) == -1) {
		fprintf(errs, "%s: [daemon] token_file = \"%s\": %s\n", path,
		    c->token_file, why);
		n++;
	}
	return n;
}
