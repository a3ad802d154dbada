/*
 * supervise.c: runner processes. Each runner is spawned (posix_spawn, never a
 * fork of a process that touched CUDA) into its own session, so that a deadline
 * kill reaches the Triton compile workers it started. It talks framed JSON on
 * fd 3; its stdout goes to /dev/null because libraries print there. It is
 * told the daemon's pid and ties its life to it (opscreen_runner/lifeline.py:
 * PR_SET_PDEATHSIG, which fires when the spawning thread ends, and a watcher
 * that kills its group when this end of the socket closes): spawns happen on
 * the main loop's thread only, which ends with the process. With runner.pool
 * a runner is forked by the pool (pool.c) instead, and becomes the daemon's
 * child all the same.
 */
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opscreend.h"
#include "policy.h"
#include "util.h"

extern char **environ;

#define ENV_MAX		512

/* A runner process: the only file that touches its fields. */
struct runner {
	int		 slot;			/* for the log */
	int		 device;		/* GPU index, -1 for cpu */
	int		 compile;		/* OPSCREEN_ROLE=compile */
	pid_t		 pid;
	int		 sock;			/* framed JSON */
	int		 errfd;			/* stderr pipe */
	unsigned char	*in;			/* frame read buffer */
	size_t		 inlen, incap;
	char		 errtail[ERRTAIL_MAX];	/* ring of the last stderr bytes */
	size_t		 errpos;
	int		 errwrapped;
};

/* Every runner made, for supervise_reap: they are made once, at start. */
#define RUNNERS_MAX	1024
static struct runner	*runners[RUNNERS_MAX];
static int		 nrunners;

/* A runner not started yet, for slot on device; NULL without memory. */
struct runner *
supervise_new(int slot, int device, int compile)
{
	struct runner	*w;

	if (nrunners == RUNNERS_MAX || (w = calloc(1, sizeof(*w))) == NULL)
		return NULL;
	runners[nrunners++] = w;
	w->slot = slot;
	w->device = device;
	w->compile = compile;
	w->sock = w->errfd = -1;
	return w;
}

int
supervise_sock(const struct runner *w)
{
	return w->sock;
}

int
supervise_errfd(const struct runner *w)
{
	return w->errfd;
}

static int
env_push(char **envp, int *n, const char *k, const char *v)
{
	char	*s;

	if (*n >= ENV_MAX - 1)
		return -1;
	if (asprintf(&s, "%s=%s", k, v) == -1)
		return -1;
	envp[(*n)++] = s;
	envp[*n] = NULL;
	return 0;
}

static int
env_overridden(const char *e)
{
	static const char *keys[] = { "CUDA_VISIBLE_DEVICES=", "OPSCREEN_FD=",
	    "OPSCREEN_DEVICE=", "OPSCREEN_LIBRARY=", "PYTHONPATH=",
	    "PYTHONUNBUFFERED=", "OPSCREEN_NICE=", "OPSCREEN_ROLE=",
	    "TRITON_CACHE_AUTOTUNING=", "OPSCREEN_CUDA_SYNC=",
	    "OPSCREEN_AUTOTUNE_REP=", "OPSCREEN_DAEMON_PID=",
	    "OPSCREEN_DEVICE_INDEX=" };
	size_t	 i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strncmp(e, keys[i], strlen(keys[i])))
			return 1;
	return 0;
}

/*
 * 0: spawned; 1: not now, the runner pool is starting (runner.pool); -1:
 * failed.
 */
int
supervise_spawn(struct runner *w)
{
	posix_spawn_file_actions_t	 fa;
	posix_spawnattr_t		 at;
	char				*envp[ENV_MAX], **e, dev[16], nice[16], rep[32];
	char				 dev_index[16];
	char				 me[16], threads[16];
	char				*pp = NULL;
	char				*argv[4];
	const char			*oldpp;
	int				 sv[2] = { -1, -1 }, ep[2] = { -1, -1 };
	int				 n = 0, i, rc, forked = 0, later = 0;

	envp[0] = NULL;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1)
		return error("spawn: socketpair: %s", strerror(errno));
	if (pipe2(ep, O_CLOEXEC) == -1) {
		error("spawn: pipe: %s", strerror(errno));
		goto fail;
	}
	for (e = environ; *e && n < ENV_MAX - 16; e++)
		if (!env_overridden(*e))
			envp[n++] = strdup(*e);
	envp[n] = NULL;
	if (w->device >= 0)
		snprintf(dev, sizeof(dev), "%d", w->device);
	else
		dev[0] = '\0';
	snprintf(dev_index, sizeof(dev_index), "%s", dev);
	/*
	 * OPSCREEN_FORCE_GPU=0 puts every GPU runner on GPU 0 whatever its
	 * device: the host pinning failure, on purpose (docs/design.md,
	 * "Several GPUs"; the measurement of a two-GPU host).
	 */
	if (w->device >= 0 && getenv("OPSCREEN_FORCE_GPU") != NULL)
		snprintf(dev, sizeof(dev), "%s", getenv("OPSCREEN_FORCE_GPU"));
	/* CPU runners standing for GPUs (devices = cpu:N) see no GPU at all */
	if (env->cpu)
		dev[0] = '\0';
	oldpp = getenv("PYTHONPATH");
	if (asprintf(&pp, "%s%s%s", env->conf.runner_path,
	    oldpp && *oldpp ? ":" : "", oldpp ? oldpp : "") == -1)
		goto fail;
	if (env_push(envp, &n, "CUDA_VISIBLE_DEVICES", dev) == -1 ||
	    env_push(envp, &n, "OPSCREEN_FD", "3") == -1 ||
	    env_push(envp, &n, "OPSCREEN_DEVICE", env->cpu ? "cpu" : "cuda")
	    == -1 ||
	    env_push(envp, &n, "OPSCREEN_DEVICE_INDEX", w->device >= 0 ? dev_index :
	    "") == -1 ||
	    env_push(envp, &n, "OPSCREEN_LIBRARY", env->library) == -1 ||
	    env_push(envp, &n, "PYTHONPATH", pp) == -1 ||
	    env_push(envp, &n, "PYTHONUNBUFFERED", "1") == -1)
		goto fail;
	snprintf(nice, sizeof(nice), "%d", env->conf.runner_nice);
	if (env_push(envp, &n, "OPSCREEN_NICE", nice) == -1 ||
	    env_push(envp, &n, "OPSCREEN_ROLE", w->compile ? "compile" :
	    "screen") == -1 ||
	    env_push(envp, &n, "TRITON_CACHE_AUTOTUNING",
	    env->conf.cache_autotuning ? "1" : "0") == -1 ||
	    env_push(envp, &n, "OPSCREEN_CUDA_SYNC", env->conf.cuda_sync) == -1)
		goto fail;
	snprintf(rep, sizeof(rep), "%g", env->conf.autotune_rep);
	snprintf(me, sizeof(me), "%d", (int)getpid());
	if (env_push(envp, &n, "OPSCREEN_AUTOTUNE_REP", rep) == -1 ||
	    env_push(envp, &n, "OPSCREEN_DAEMON_PID", me) == -1)
		goto fail;
	/* the daemon's own environment may set it; else the runners' share */
	snprintf(threads, sizeof(threads), "%d",
	    policy_runner_threads(cpu_count(), sched_nworkers()));
	if (getenv("OMP_NUM_THREADS") == NULL &&
	    env_push(envp, &n, "OMP_NUM_THREADS", threads) == -1)
		goto fail;

	if ((rc = pool_spawn(env->conf.python, envp, ep[1], sv[1], &w->pid)) ==
	    0) {
		forked = 1;
		goto spawned;
	}
	if (rc == 1) {
		later = 1;	/* the pool is starting: nothing was spawned */
		goto fail;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, ep[1], 2);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 3);
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK |
	    POSIX_SPAWN_SETSIGDEF);
	{
		sigset_t	 none, all;

		sigemptyset(&none);
		sigfillset(&all);
		posix_spawnattr_setsigmask(&at, &none);
		posix_spawnattr_setsigdefault(&at, &all);
	}
	argv[0] = env->conf.python;
	argv[1] = "-m";
	argv[2] = "opscreen_runner";
	argv[3] = NULL;
	rc = posix_spawnp(&w->pid, env->conf.python, &fa, &at, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (rc != 0) {
		error("spawn: '%s': %s", env->conf.python, strerror(rc));
		w->pid = 0;
		goto fail;
	}
 spawned:
	close(sv[1]);
	close(ep[1]);
	w->sock = sv[0];
	w->errfd = ep[0];
	fcntl(w->sock, F_SETFL, fcntl(w->sock, F_GETFL) | O_NONBLOCK);
	fcntl(w->errfd, F_SETFL, fcntl(w->errfd, F_GETFL) | O_NONBLOCK);
	w->inlen = 0;
	w->errpos = 0;
	w->errwrapped = 0;
	for (i = 0; i < n; i++)
		free(envp[i]);
	free(pp);
	log_debug("worker %d: %s pid %d for %s", w->slot, forked ?
	    "forked by the pool" : "spawned", (int)w->pid, env->cpu ? "cpu" :
	    dev);
	return 0;
 fail:
	for (i = 0; i < n; i++)
		free(envp[i]);
	free(pp);
	for (i = 0; i < 2; i++) {
		if (sv[i] != -1)
			close(sv[i]);
		if (ep[i] != -1)
			close(ep[i]);
	}
	return later ? 1 : -1;
}

/*
 * As a subreaper (the runner pool) the daemon inherits every orphan below it:
 * a runner's compile workers or its lifeline watcher once the runner is gone.
 * Collects those that have ended. Runners and the pool are collected by
 * their owners, never here, so their pids stay reserved until then.
 */
void
supervise_reap(void)
{
	DIR		*d;
	struct dirent	*de;
	char		 path[64], buf[8192], *p, *end;
	FILE		*f;
	pid_t		 kid;
	size_t		 n;
	int		 i;
	static double	 last;

	/* the main loop turns at every runner message: once a second is enough */
	if (now_mono() - last < 1.0)
		return;
	last = now_mono();
	if ((d = opendir("/proc/self/task")) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/children",
		    de->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		for (p = buf; *p != '\0'; p = end) {
			kid = (pid_t)strtol(p, &end, 10);
			if (end == p)
				break;
			if (kid <= 0 || kid == pool_pid())
				continue;
			for (i = 0; i < nrunners && runners[i]->pid != kid; i++)
				;
			if (i == nrunners)
				waitpid(kid, NULL, WNOHANG);
		}
	}
	closedir(d);
}

/* Kills the runner's whole process group and collects the runner itself. */
void
supervise_kill(struct runner *w)
{
	if (w->pid > 0) {
		kill(-w->pid, SIGKILL);
		kill(w->pid, SIGKILL);
		waitpid(w->pid, NULL, 0);
	}
	supervise_read_stderr(w);
	if (w->sock != -1)
		close(w->sock);
	if (w->errfd != -1)
		close(w->errfd);
	w->sock = w->errfd = -1;
	w->pid = 0;
}

/*
 * Waits briefly for an exiting runner so the crash report has its status
 * (how), then kills what is left of it.
 */
void
supervise_collect(struct runner *w, char *how, size_t len)
{
	int	 st, i;
	pid_t	 r = 0;

	snprintf(how, len, "runner exited");
	for (i = 0; i < 200 && w->pid > 0; i++) {
		if ((r = waitpid(w->pid, &st, WNOHANG)) != 0)
			break;
		usleep(10000);
	}
	/*
	 * a runner already collected (pid 0) has nothing left to wait for:
	 * r == 0 == w->pid would signal -0, the daemon's own process group
	 * (seen: a stopped runner's deadline kill, then its EOF, killed the
	 * daemon and the process that started it)
	 */
	if (w->pid > 0 && r == w->pid) {
		if (WIFSIGNALED(st))
			snprintf(how, len, "runner killed by signal %d (%s)",
			    WTERMSIG(st), strsignal(WTERMSIG(st)));
		else if (WIFEXITED(st))
			snprintf(how, len, "runner exited with status %d",
			    WEXITSTATUS(st));
		kill(-w->pid, SIGKILL);	/* its compile workers too */
		w->pid = 0;
	}
	supervise_kill(w);
}

int
supervise_send(struct runner *w, json_t *msg)
{
	char		*s;
	size_t		 len, off = 0;
	uint32_t	 be;
	unsigned char	*buf;
	ssize_t		 n;
	struct pollfd	 pfd;

	if ((s = json_dumps(msg, JSON_COMPACT)) == NULL)
		return -1;
	len = strlen(s);
	if (len > FRAME_MAX || (buf = malloc(len + 4)) == NULL) {
		free(s);
		return -1;
	}
	be = htonl((uint32_t)len);
	memcpy(buf, &be, 4);
	memcpy(buf + 4, s, len);
	free(s);
	len += 4;
	while (off < len) {
		n = send(w->sock, buf + off, len - off, MSG_NOSIGNAL);
		if (n > 0) {
			off += n;
			continue;
		}
		if (n == -1 && (errno == EAGAIN || errno == EINTR)) {
			pfd.fd = w->sock;
			pfd.events = POLLOUT;
			if (poll(&pfd, 1, 5000) <= 0)
				break;
			continue;
		}
		break;
	}
	free(buf);
	return off == len ? 0 : -1;
}

/* One message out of the buffer if a whole frame is there: 1; none yet: 0. */
static int
frame_take(struct runner *w, json_t **msg)
{
	uint32_t	 be, len;
	json_error_t	 jerr;

	if (w->inlen < 4)
		return 0;
	memcpy(&be, w->in, 4);
	len = ntohl(be);
	if (len > FRAME_MAX) {
		log_warnx("worker %d: frame of %u bytes exceeds the %u limit",
		    w->slot, len, FRAME_MAX);
		return -1;
	}
	if (w->inlen < 4 + (size_t)len)
		return 0;
	*msg = json_loadb((const char *)w->in + 4, len, 0, &jerr);
	memmove(w->in, w->in + 4 + len, w->inlen - 4 - len);
	w->inlen -= 4 + len;
	if (*msg == NULL || !json_is_object(*msg)) {
		log_warnx("worker %d: malformed message: %s", w->slot, jerr.text);
		json_decref(*msg);
		*msg = NULL;
		return -1;
	}
	return 1;
}

int
supervise_read(struct runner *w, json_t **msg)
{
	ssize_t		 n;
	size_t		 want;
	unsigned char	*nb;
	int		 rc;

	*msg = NULL;
	if ((rc = frame_take(w, msg)) != 0)
		return rc;
	for (;;) {
		want = w->inlen + 65536;
		if (want > FRAME_MAX + 4)
			want = FRAME_MAX + 4;
		if (w->incap < want) {
			if ((nb = realloc(w->in, want)) == NULL)
				return -1;
			w->in = nb;
			w->incap = want;
		}
		if (w->inlen == w->incap)
			return -1;	/* a frame larger than the bound */
		n = recv(w->sock, w->in + w->inlen, w->incap - w->inlen, 0);
		if (n == 0)
			return -1;
		if (n == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;
			return -1;
		}
		w->inlen += n;
		if ((rc = frame_take(w, msg)) != 0)
			return rc;
	}
}

void
supervise_read_stderr(struct runner *w)
{
	char	 buf[4096];
	ssize_t	 n, i;

	if (w->errfd == -1)
		return;
	while ((n = read(w->errfd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++) {
			w->errtail[w->errpos++] = buf[i];
			if (w->errpos == ERRTAIL_MAX) {
				w->errpos = 0;
				w->errwrapped = 1;
			}
		}
		if (env->conf.screen_on_start >= 0)
			log_debug("worker %d stderr: %.*s", w->slot, (int)n, buf);
	}
}

/* The last `lines` lines the runner wrote to stderr. */
void
supervise_errtail(struct runner *w, char *out, size_t len, int lines)
{
	char	 lin[ERRTAIL_MAX + 1];
	size_t	 n = 0, start;
	int	 seen = 0;

	if (w->errwrapped) {
		memcpy(lin, w->errtail + w->errpos, ERRTAIL_MAX - w->errpos);
		memcpy(lin + ERRTAIL_MAX - w->errpos, w->errtail, w->errpos);
		n = ERRTAIL_MAX;
	} else {
		memcpy(lin, w->errtail, w->errpos);
		n = w->errpos;
	}
	lin[n] = '\0';
	while (n > 0 && lin[n - 1] == '\n')
		lin[--n] = '\0';
	start = n;
	while (start > 0) {
		if (lin[start - 1] == '\n' && ++seen == lines)
			break;
		start--;
	}
	if (n - start >= len)
		start = n - (len - 1);
	snprintf(out, len, "%s", lin + start);
}
