/*
 * opscreend.c: start-up and the main loop. Start-up is the only place the
 * daemon may die; after it, a bad request, a bad runner or a bad library gets
 * an error and the daemon goes on serving.
 */
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <getopt.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>

#include "opscreend.h"
#include "probes.h"

static void
on_signal(int sig)
{
	if (sig == SIGHUP)
		env->reload = 1;
	else
		env->quit = 1;
	env_wakeup();
}

static void
usage_text(FILE *fp)
{
	fprintf(fp, "usage: opscreend [-dns] [-c config] [-o section.key=value]"
	    "...\n"
	    "       opscreend --help | --version\n"
	    "  -c, --config FILE   configuration file (default "
	    "/etc/opscreen/opscreen.conf)\n"
	    "  -n, --check         check the configuration and exit\n"
	    "  -d, --debug         debug logging (opscreend always stays in the "
	    "foreground;\n"
	    "                      systemd supervises it)\n"
	    "  -o, --set KEY=VALUE override one configuration value, e.g. "
	    "-o daemon.port=9000\n"
	    "  -s, --screen        queue a full screen at start-up (like "
	    "daemon.screen_on_start)\n"
	    "  -h, --help          this text\n"
	    "  -V, --version       the version\n"
	    "SIGHUP checks the configuration file again and logs what differs "
	    "from the running one (opscreend(8)).\n");
}

static __attribute__((noreturn)) void
usage(void)
{
	usage_text(stderr);
	exit(2);
}

/*
 * config_check() has refused a token file others may read. The buffer is
 * NUL-padded to its end: token_ok() compares all of it, whatever the length.
 */
static void
load_token(void)
{
	FILE	*fp;
	size_t	 n;

	memset(env->token, 0, sizeof(env->token));
	if (env->conf.token_file[0] == '\0')
		return;
	if ((fp = fopen(env->conf.token_file, "r")) == NULL) {
		log_warnx("token file '%s': %s; POST /runs and DELETE /runs are "
		    "disabled", env->conf.token_file, strerror(errno));
		return;
	}
	if (fgets(env->token, sizeof(env->token), fp) == NULL)
		env->token[0] = '\0';
	fclose(fp);
	n = strcspn(env->token, " \t\r\n");
	memset(env->token + n, 0, sizeof(env->token) - n);
	if (n < 16) {
		log_warnx("token file '%s' holds fewer than 16 characters; POST "
		    "/runs is disabled", env->conf.token_file);
		memset(env->token, 0, sizeof(env->token));
	}
}

/*
 * A fault is a start-up finding that leaves nothing this daemon may vouch
 * for: it still serves, so /healthz can say why, but it screens nothing and
 * every list answers 503 with the reason (api.c).
 */
void
set_fault(const char *fmt, ...)
{
	va_list	 ap;
	char	 msg[sizeof(env->fault)];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (env->fault[0] != '\0' && !strcmp(env->fault, msg))
		return;
	/* readers test fault[0] first: its first byte goes in last */
	memcpy(env->fault + 1, msg + 1, sizeof(msg) - 1);
	__atomic_store_n(&env->fault[0], msg[0], __ATOMIC_RELEASE);
	error("%s", msg);
	lists_changed();
}

/* The store's file is damaged (why): no retry mends it, nothing it holds is
 * vouched for. */
void
set_store_damaged(const char *why)
{
	set_fault("the store %s is damaged (%s): nothing is screened or served "
	    "until it is restored or moved aside", env->conf.database, why);
}

/*
 * The demo library is screened only when named, or under library = auto on
 * a machine with no NVIDIA GPU at all: a GPU host whose NVML does not load
 * (a driver and library mismatch) is a fault, never a CPU machine, and a real
 * library is never screened on the CPU in place of the GPUs.
 */
static int
resolve_devices(void)
{
	char	 why[512] = "", node[256] = "", buf[256], *p, *tok, *save = NULL;
	int	 n, i, gpuhost, real;

	gpuhost = nvml_gpu_host(env->conf.gpu_host_paths, node, sizeof(node));
	real = strcmp(env->conf.library, "auto") && strcmp(env->conf.library,
	    "demolib");
	if (!strcmp(env->conf.devices, "cpu")) {
		env->cpu = 1;
		return 0;
	}
	if (!strncmp(env->conf.devices, "cpu:", 4)) {
		/* CPU runners standing for GPUs: the several-GPU paths, tested */
		env->cpu = 1;
		env->ndevices = atoi(env->conf.devices + 4);
		for (i = 0; i < env->ndevices; i++)
			env->devices[i] = i;
		log_info("%d CPU runners stand for %d GPUs (devices = %s)",
		    env->ndevices, env->ndevices, env->conf.devices);
		return 0;
	}
	if (!strcmp(env->conf.devices, "all")) {
		n = nvml_device_count(env->conf.nvml_library, why, sizeof(why));
		if (n <= 0 && gpuhost) {
			set_fault("this host has NVIDIA devices (%s) but NVML "
			    "found no GPU: %s; nothing is screened nor served "
			    "until NVML works (runner.nvml_library)", node, why);
			return 0;
		}
		if (n <= 0 && real) {
			set_fault("library = %s needs a GPU and NVML found none "
			    "(%s); nothing is screened nor served (devices = cpu "
			    "screens it on the CPU)", env->conf.library, why);
			return 0;
		}
		if (n <= 0) {
			log_info("no GPU on this machine (%s, none of %s): "
			    "screening on the CPU", why, env->conf.gpu_host_paths);
			env->cpu = 1;
			return 0;
		}
		if (n > MAX_DEVICES)
			n = MAX_DEVICES;
		for (i = 0; i < n; i++)
			env->devices[i] = i;
		env->ndevices = n;
		log_info("%d GPU(s) found through NVML", n);
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", env->conf.devices);
	for (p = buf; (tok = strtok_r(p, ", ", &save)) != NULL; p = NULL) {
		if (env->ndevices == MAX_DEVICES)
			return error("more than %d devices", MAX_DEVICES);
		env->devices[env->ndevices++] = atoi(tok);
	}
	return env->ndevices ? 0 : error("no device configured");
}

static void
resolve_library(void)
{
	char	 node[256];

	if (strcmp(env->conf.library, "auto") != 0) {
		snprintf(env->library, sizeof(env->library), "%s",
		    env->conf.library);
		return;
	}
	if (env->fault[0] != '\0')
		snprintf(env->library, sizeof(env->library), "none");
	else if (!env->cpu)
		snprintf(env->library, sizeof(env->library), "flag_gems");
	else if (nvml_gpu_host(env->conf.gpu_host_paths, node, sizeof(node))) {
		snprintf(env->library, sizeof(env->library), "none");
		set_fault("library = auto with devices = cpu on a host with "
		    "NVIDIA devices (%s): name the library to screen "
		    "(runner.library)", node);
	} else {
		snprintf(env->library, sizeof(env->library), "demolib");
		log_info("library = auto without a GPU: screening the bundled "
		    "demo library (tests/demolib), which has known defects");
	}
}

/*
 * One daemon per database: a second one would resume the run the first is
 * running and record its cases again. flock() on "<database>.lock", taken
 * before the store is opened and held (close-on-exec, so no runner holds
 * it) until the process ends, however it ends.
 */
static int db_lockfd = -1;	/* the database file's flock, held for life */

static void
lock_database(void)
{
	char	 path[PATH_MAX + 8], real[PATH_MAX], pid[32] = "";
	ssize_t	 n;
	int	 fd, dbfd;

	/*
	 * The database file itself is locked (flock: by its inode), so that a
	 * second daemon reaching it by a symlink or a hard link is refused as
	 * one naming the same path; the lock file beside its real path holds
	 * the holder's pid. SQLite's own locks are POSIX ones, which flock
	 * leaves alone; this descriptor stays open for the daemon's life.
	 */
	/* a database not there yet has no other name; one that cannot be
	 * opened is store_open's to explain */
	dbfd = open(env->conf.database, O_RDWR | O_CLOEXEC);
	if (dbfd == -1 || realpath(env->conf.database, real) == NULL)
		snprintf(real, sizeof(real), "%s", env->conf.database);
	snprintf(path, sizeof(path), "%s.lock", real);
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0640)) == -1)
		fatal("cannot open the database lock '%s'", path);
	if ((dbfd != -1 && flock(dbfd, LOCK_EX | LOCK_NB) == -1) ||
	    flock(fd, LOCK_EX | LOCK_NB) == -1) {
		if (errno != EWOULDBLOCK)
			fatal("cannot lock '%s'", path);
		if ((n = pread(fd, pid, sizeof(pid) - 1, 0)) > 0)
			pid[n] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		fatalx("database '%s' is in use by another opscreend (pid %s, "
		    "holding '%s'); one daemon per database", env->conf.database,
		    pid[0] ? pid : "unknown", path);
	}
	if (ftruncate(fd, 0) == 0)
		dprintf(fd, "%d\n", (int)getpid());
	env->lockfd = fd;
	db_lockfd = dbfd;
}

/* A database store_open created: its file is locked now it exists. */
static void
lock_database_file(void)
{
	if (db_lockfd != -1)
		return;
	if ((db_lockfd = open(env->conf.database, O_RDWR | O_CLOEXEC)) == -1 ||
	    flock(db_lockfd, LOCK_EX | LOCK_NB) == -1)
		fatal("cannot lock the database '%s'", env->conf.database);
}

/*
 * SIGHUP (systemctl reload): the configuration file is checked again as at
 * start-up (-n), with the same -o overrides, and the result logged: every
 * error, or whether it differs from the configuration the daemon runs.
 * Nothing changes in the running daemon: a screen in progress keeps its
 * settings, and the lists keep being served; a restart applies the file.
 */
static void
reload_check(void)
{
	struct config	*c;
	char		*buf = NULL, *line, *save;
	size_t		 len = 0;
	FILE		*errs;
	int		 i, nerr;

	if ((c = calloc(1, sizeof(*c))) == NULL ||
	    (errs = open_memstream(&buf, &len)) == NULL) {
		free(c);
		log_warn("reload: cannot check the configuration");
		return;
	}
	config_defaults(c);
	if (config_load(c, env->config_path, errs) == -1 && c->nerrors == 0)
		c->nerrors = 1;
	for (i = 0; i < env->noverrides; i++) {
		char	*kv = strdup(env->overrides[i]), *eq;

		if (kv != NULL && (eq = strchr(kv, '=')) != NULL) {
			*eq = '\0';
			if (config_set(c, kv, eq + 1) == -1)
				c->nerrors++;
		}
		free(kv);
	}
	c->nerrors += config_check(c, env->config_path, errs);
	nerr = c->nerrors;
	fclose(errs);
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		log_warnx("reload: %s", line);
	c->nerrors = env->conf.nerrors;
	if (nerr > 0)
		log_warnx("reload: %s has %d error(s); the daemon goes on with "
		    "the configuration it started with", env->config_path,
		    nerr);
	else if (memcmp(c, &env->conf, sizeof(*c)) != 0)
		log_warnx("reload: %s is valid and differs from the running "
		    "configuration; restart opscreend to apply it",
		    env->config_path);
	else
		log_info("reload: %s is valid and the same as the running "
		    "configuration", env->config_path);
	free(buf);
	free(c);
}

/*
 * STATUS= for `systemctl status`: the run in progress with its rate (cases
 * per second since the run started) and the time it has left at that rate,
 * every few seconds, and at once when a run starts or ends (a run shorter
 * than the few seconds still shows).
 */
static void
notify_status(void)
{
	static double	 next;
	static unsigned	 seen;
	static char	 last[256];
	json_t		*p;
	const char	*state;
	char		 msg[256];
	double		 t = now_mono(), rate, eta;
	json_int_t	 done, total, run;
	unsigned	 turns = sched_progress_turns();

	if (t < next && turns == seen)
		return;
	next = t + 5;
	seen = turns;
	if ((p = sched_progress()) == NULL)
		return;
	state = json_string_value(json_object_get(p, "state"));
	run = json_integer_value(json_object_get(p, "run"));
	done = json_integer_value(json_object_get(p, "done"));
	total = json_integer_value(json_object_get(p, "total"));
	if (state != NULL && !strcmp(state, "running")) {
		rate = json_number_value(json_object_get(p, "rate"));
		eta = json_number_value(json_object_get(p, "eta_s"));
		if (rate > 0 && total > done)
			snprintf(msg, sizeof(msg), "screening run %lld: %lld of "
			    "%lld cases (%.0f%%), %.1f cases/s, about %.0f s "
			    "left", (long long)run, (long long)done,
			    (long long)total, total ? 100.0 * done / total : 0,
			    rate, eta);
		else
			snprintf(msg, sizeof(msg), "screening run %lld: %lld of "
			    "%lld cases", (long long)run, (long long)done,
			    (long long)total);
	} else
		snprintf(msg, sizeof(msg), "run %lld %s; serving on %s:%d",
		    (long long)run, state ? state : "?", env->conf.listen,
		    env->conf.port);
	json_decref(p);
	if (strcmp(msg, last) != 0) {
		sd_notifyf(0, "STATUS=%s", msg);
		snprintf(last, sizeof(last), "%s", msg);
	}
}

static void
main_loop(void)
{
	struct pollfd	 pfd[2 + 2 * MAX_WORKERS];
	struct worker	*who[2 + 2 * MAX_WORKERS];
	int		 isock[2 + 2 * MAX_WORKERS];
	int		 n, i, timeout, first = 1;
	double		 dl, t, wd_every = 0, wd_next = 0;
	uint64_t	 wd_usec;
	json_t		*msg;
	char		 drain[64];

	/*
	 * Pet systemd's watchdog from the loop itself, at half its interval, so
	 * that a loop stuck in a handler (not merely a slow screen) gets the
	 * daemon restarted.
	 */
	if (sd_watchdog_enabled(0, &wd_usec) > 0 && wd_usec > 0) {
		wd_every = wd_usec / 2e6;
		log_debug("systemd watchdog every %.1f s", wd_every);
	}
	while (!env->quit) {
		if (env->reload) {
			env->reload = 0;
			reload_check();
		}
		notify_status();
		if (wd_every > 0 && (t = now_mono()) >= wd_next) {
			sd_notify(0, "WATCHDOG=1");
			wd_next = t + wd_every;
		}
		n = 0;
		pfd[n].fd = env->wakefd[0];
		pfd[n].events = POLLIN;
		who[n] = NULL;
		n++;
		for (i = 0; i < sched_nworkers(); i++) {
			struct worker	*w = sched_worker(i);
			struct runner	*r = sched_runner(w);

			if (supervise_sock(r) != -1) {
				pfd[n].fd = supervise_sock(r);
				pfd[n].events = POLLIN;
				who[n] = w;
				isock[n++] = 1;
			}
			if (supervise_errfd(r) != -1) {
				pfd[n].fd = supervise_errfd(r);
				pfd[n].events = POLLIN;
				who[n] = w;
				isock[n++] = 0;
			}
		}
		if (pool_fd() != -1) {
			pfd[n].fd = pool_fd();
			pfd[n].events = POLLIN;
			who[n] = NULL;
			isock[n++] = 0;
		}
		/* the first pass starts the runners at once */
		timeout = first ? 0 : 1000;
		first = 0;
		if ((dl = sched_next_deadline()) > 0) {
			t = (dl - now_mono()) * 1000 + 1;
			if (t < timeout)
				timeout = t < 0 ? 0 : (int)t;
		}
		if (wd_every > 0) {
			t = (wd_next - now_mono()) * 1000 + 1;
			if (t < timeout)
				timeout = t < 0 ? 0 : (int)t;
		}
		if (poll(pfd, n, timeout) == -1 && errno != EINTR)
			fatal("poll");
		if (pfd[0].revents & POLLIN)
			while (read(env->wakefd[0], drain, sizeof(drain)) > 0)
				;
		for (i = 1; i < n; i++) {
			struct worker	*w = who[i];
			struct runner	*r;

			if (w == NULL) {
				if (pfd[i].revents != 0)
					pool_poll();
				continue;
			}
			r = sched_runner(w);
			if (pfd[i].revents == 0 || supervise_sock(r) == -1)
				continue;
			if (!isock[i]) {
				supervise_read_stderr(r);
				continue;
			}
			for (;;) {
				int	 rc = supervise_read(r, &msg);

				if (rc == 1) {
					sched_on_message(w, msg);
					json_decref(msg);
					if (supervise_sock(r) == -1)
						break;
					continue;
				}
				if (rc == -1)
					sched_on_worker_exit(w, "connection closed");
				break;
			}
		}
		sched_requests();
		supervise_reap();
		if (env->fault[0] != '\0')
			continue;	/* nothing runs, see set_fault() */
		sched_deadlines(now_mono());
		sched_poll();
	}
}

/*
 * The descriptors the daemon may open: the soft limit up to the hard one
 * (systemd's default soft limit is 1,024), for the connections waiting at
 * the API's front door beside the runners and the store (door.c takes at
 * most a quarter).
 */
static void
raise_nofile(void)
{
	struct rlimit	 rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > 65536 ?
	    65536 : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
		log_debug("cannot raise the descriptor limit: %s", strerror(errno));
}

int
main(int argc, char *argv[])
{
	const char	*path = "/etc/opscreen/opscreen.conf";
	int		 ch, check = 0, debug = 0, i;
	int		 resumed_full;
	int64_t		 resumed;
	char		 err[512];
	char		*overrides[64];
	int		 noverrides = 0;
	struct sigaction sa;
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check", no_argument, NULL, 'n' },
		{ "debug", no_argument, NULL, 'd' },
		{ "set", required_argument, NULL, 'o' },
		{ "screen", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};

	while ((ch = getopt_long(argc, argv, "c:dno:shV", longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'c':
			path = optarg;
			break;
		case 'd':
			debug = 1;
			break;
		case 'h':
			usage_text(stdout);
			return 0;
		case 'V':
			printf("opscreend %s\n", OPSCREEN_VERSION);
			return 0;
		case 'n':
			check = 1;
			break;
		case 'o':
			if (noverrides == 64)
				usage();
			/* a copy: splitting argv in place would cut the
			 * process title (ps, /proc/PID/cmdline) at the '=' */
			if ((overrides[noverrides++] = strdup(optarg)) == NULL)
				fatal("strdup");
			break;
		case 's':	/* an override, so SIGHUP's check sees it too */
			if (noverrides == 64)
				usage();
			if ((overrides[noverrides++] =
			    strdup("daemon.screen_on_start=yes")) == NULL)
				fatal("strdup");
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	log_init(debug, 0);
	config_defaults(&env->conf);
	if (config_load(&env->conf, path, stderr) == -1 &&
	    env->conf.nerrors == 0)
		return 1;	/* no file to read */
	for (i = 0; i < noverrides; i++) {
		char	*eq = strchr(overrides[i], '=');

		if (eq == NULL) {
			fprintf(stderr, "-o %s: expected section.key=value\n",
			    overrides[i]);
			return 1;
		}
		*eq = '\0';
		if (config_set(&env->conf, overrides[i], eq + 1) == -1) {
			fprintf(stderr, "-o %s=%s: unknown key or bad value\n",
			    overrides[i], eq + 1);
			return 1;
		}
		*eq = '=';	/* kept whole for SIGHUP's check */
	}
	/* what the values name, even when some are wrong: every problem at once */
	env->conf.nerrors += config_check(&env->conf, path, stderr);
	if (env->conf.nerrors > 0) {
		fprintf(stderr, "%s: %d error(s) in the configuration\n", path,
		    env->conf.nerrors);
		return 1;
	}
	if (!config_listen_loopback(env->conf.listen))
		log_warnx("listen = %s is not a loopback address: the GET "
		    "endpoints carry no authentication and the bearer token "
		    "travels in clear; keep a TLS proxy in front",
		    env->conf.listen);
	if (check) {
		printf("%s: configuration OK\n", path);
		return 0;
	}
	env->started = now_mono();

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	/* a write past RLIMIT_FSIZE fails (EFBIG) and is retried, not fatal */
	sigaction(SIGXFSZ, &sa, NULL);
	if (pipe2(env->wakefd, O_CLOEXEC | O_NONBLOCK) == -1)
		fatal("pipe");
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	env->config_path = path;
	env->overrides = overrides;
	env->noverrides = noverrides;

	if (resolve_devices() == -1)
		fatalx("cannot use devices = %s", env->conf.devices);
	resolve_library();
	load_token();
	/*
	 * Nothing is written before the database is ours and the port is
	 * bound: a daemon that cannot have either leaves the store as it was.
	 */
	lock_database();
	if ((env->store = store_open(env->conf.database, err, sizeof(err))) ==
	    NULL)
		fatalx("store: %s", err);
	lock_database_file();
	if (store_check(env->store, err, sizeof(err)) == -1)
		set_store_damaged(err);
	pool_init();
	sched_init();
	raise_nofile();
	if (api_start() == -1)
		fatalx("http: cannot start the API");
	if (env->fault[0] != '\0') {
		/* an interrupted run waits for a start that can screen it */
		resumed = 0;
		resumed_full = 0;
	} else
		/* a run the last lifetime left going resumes (sched.c says how) */
		resumed = sched_resume(&resumed_full);
	if (env->fault[0] != '\0' && env->conf.screen_on_start)
		log_warnx("screen at start-up not queued: %s", env->fault);
	else if (env->conf.screen_on_start && resumed > 0 && resumed_full)
		log_info("screen at start-up: run %lld, a full screen, resumes; "
		    "no second screen queued", (long long)resumed);
	else if (env->conf.screen_on_start) {
		json_t	*req = json_object();
		int64_t	 id;

		if (sched_queue_run(req, &id, err, sizeof(err)) == 0)
			log_info("queued run %lld (screen at start-up)",
			    (long long)id);
		else
			log_warnx("cannot queue the start-up screen: %s", err);
		json_decref(req);
	}
	/* store open, listener bound: systemd may start what depends on us */
	if (env->fault[0] != '\0')
		sd_notifyf(0, "READY=1\nSTATUS=fault, serving 503: %s", env->fault);
	else
		sd_notifyf(0, "READY=1\nSTATUS=serving on %s:%d, library %s on %s",
		    env->conf.listen, env->conf.port, env->library,
		    env->cpu ? "the cpu" : "the GPUs");
	main_loop();

	sd_notify(0, "STOPPING=1\nSTATUS=shutting down");
	log_info("shutting down");
	api_stop();
	for (i = 0; i < sched_nworkers(); i++)
		supervise_kill(sched_runner(sched_worker(i)));
	pool_stop();
	store_close(env->store);
	return 0;
}
