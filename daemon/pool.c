/*
 * pool.c: the runner pool (runner.pool). One process per daemon imports torch
 * once (probes/opscreen_runner/pool.py) and forks every runner from there, so a
 * runner's start and every restart after a hang or crash skip the interpreter's
 * and torch's import. The pool never creates a CUDA context nor imports the
 * library. It is best effort: while it starts, a runner waits (pool_spawn
 * says "later"); a pool that cannot start, dies, answers late or was started
 * for another environment makes supervise.c spawn runners as before.
 *
 * Runners forked by the pool are reparented to the daemon, a child subreaper
 * (pool_init), so they are its children as spawned ones are: waitpid gives
 * their status and a dead daemon takes them with it.
 */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
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
#include "util.h"

#define POOL_MSG_MAX	(1u << 20)
#define POOL_FAIL_MAX	3	/* pools that died in a row before giving up */
#define POOL_REPLY_MS	30000	/* a fork answers in milliseconds */

enum pool_state { POOL_OFF, POOL_STARTING, POOL_READY, POOL_BROKEN };

static struct {
	enum pool_state	 state;
	pid_t		 pid;
	int		 fd;
	double		 since;		/* when it was started */
	int		 failures;	/* in a row */
	unsigned	 spawned;	/* runners it forked */
} pool = { POOL_OFF, 0, -1, 0, 0, 0 };

/* Runners forked by the pool become the daemon's children when it forks. */
void
pool_init(void)
{
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == -1)
		log_warn("prctl(PR_SET_CHILD_SUBREAPER)");
}

pid_t
pool_pid(void)
{
	return pool.pid;
}

int
pool_fd(void)
{
	return pool.fd;
}

unsigned
pool_spawned(void)
{
	return pool.spawned;
}

static void
pool_stop_why(const char *why, int failed)
{
	if (pool.pid > 0) {
		kill(pool.pid, SIGKILL);
		waitpid(pool.pid, NULL, 0);
	}
	if (pool.fd != -1)
		close(pool.fd);
	if (why != NULL)
		log_warnx("runner pool (pid %d): %s", (int)pool.pid, why);
	pool.pid = 0;
	pool.fd = -1;
	if (failed && ++pool.failures >= POOL_FAIL_MAX) {
		log_warnx("runner pool failed %d times in a row: runners start "
		    "afresh from now on", pool.failures);
		pool.state = POOL_BROKEN;
	} else
		pool.state = POOL_OFF;
}

void
pool_stop(void)
{
	pool_stop_why(NULL, 0);
}

/* The pool's environment: the runners' with no device and its own role. */
static char **
pool_env(char *const envp[])
{
	char	**pe;
	size_t	  n = 0, i, k = 0;

	while (envp[n] != NULL)
		n++;
	if ((pe = calloc(n + 3, sizeof(*pe))) == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		if (strncmp(envp[i], "CUDA_VISIBLE_DEVICES=", 21) != 0 &&
		    strncmp(envp[i], "OPSCREEN_ROLE=", 14) != 0)
			pe[k++] = envp[i];
	pe[k++] = "CUDA_VISIBLE_DEVICES=";
	pe[k++] = "OPSCREEN_ROLE=pool";
	pe[k] = NULL;
	return pe;
}

static int
pool_start(const char *python, char *const envp[])
{
	posix_spawn_file_actions_t	 fa;
	posix_spawnattr_t		 at;
	sigset_t			 none, all;
	char				*argv[4], **pe;
	int				 sv[2], rc;

	if ((pe = pool_env(envp)) == NULL)
		return -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1) {
		free(pe);
		return error("runner pool: socketpair: %s", strerror(errno));
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 3);
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID |
	    POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &all);
	argv[0] = (char *)python;
	argv[1] = "-m";
	argv[2] = "opscreen_runner.pool";
	argv[3] = NULL;
	rc = posix_spawnp(&pool.pid, python, &fa, &at, argv, pe);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	free(pe);
	close(sv[1]);
	if (rc != 0) {
		close(sv[0]);
		pool.pid = 0;
		pool.failures = POOL_FAIL_MAX;
		pool.state = POOL_BROKEN;
		return error("runner pool: '%s': %s", python, strerror(rc));
	}
	pool.fd = sv[0];
	pool.state = POOL_STARTING;
	pool.since = now_mono();
	log_debug("runner pool: started pid %d", (int)pool.pid);
	return 0;
}

/* One message from the pool within ms: its object, or NULL (eof, garbage). */
static json_t *
pool_recv(int ms)
{
	struct pollfd	 p = { pool.fd, POLLIN, 0 };
	char		*buf;
	ssize_t		 n;
	json_t		*msg;

	if (poll(&p, 1, ms) <= 0)
		return NULL;
	if ((buf = malloc(POOL_MSG_MAX)) == NULL)
		return NULL;
	n = recv(pool.fd, buf, POOL_MSG_MAX, MSG_DONTWAIT);
	msg = n > 0 ? json_loadb(buf, n, 0, NULL) : NULL;
	free(buf);
	if (msg != NULL && !json_is_object(msg)) {
		json_decref(msg);
		msg = NULL;
	}
	return msg;
}

/*
 * The main loop found the pool's descriptor readable: its "ready", or its
 * end. Also ends a pool that takes longer than a runner's start deadline.
 */
void
pool_poll(void)
{
	struct pollfd	 p;
	json_t		*msg;

	if (pool.fd == -1)
		return;
	p.fd = pool.fd;
	p.events = POLLIN;
	p.revents = 0;
	if (poll(&p, 1, 0) <= 0) {
		if (pool.state == POOL_STARTING &&
		    now_mono() - pool.since > env->conf.hello_deadline)
			pool_stop_why("not ready within the start deadline", 1);
		return;
	}
	msg = pool_recv(0);
	if (msg == NULL) {
		pool_stop_why(pool.state == POOL_STARTING ?
		    "exited before it was ready" : "exited", 1);
		return;
	}
	if (pool.state == POOL_STARTING && !strcmp(json_string_value(
	    json_object_get(msg, "type")) ?: "", "ready")) {
		pool.state = POOL_READY;
		log_info("runner pool ready (pid %d, %.1f s)", (int)pool.pid,
		    now_mono() - pool.since);
	} else
		log_warnx("runner pool: unexpected message");
	json_decref(msg);
}

static int
pool_send(json_t *req, int errfd, int sockfd)
{
	struct msghdr	 mh;
	struct iovec	 iov;
	struct cmsghdr	*cm;
	union {
		char		buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr	align;
	} u;
	char		*s;
	int		 fds[2] = { errfd, sockfd };
	ssize_t		 n;

	if ((s = json_dumps(req, JSON_COMPACT)) == NULL)
		return -1;
	if (strlen(s) > POOL_MSG_MAX) {
		free(s);
		return -1;
	}
	memset(&mh, 0, sizeof(mh));
	memset(&u, 0, sizeof(u));
	iov.iov_base = s;
	iov.iov_len = strlen(s);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = u.buf;
	mh.msg_controllen = sizeof(u.buf);
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(cm), fds, sizeof(fds));
	n = sendmsg(pool.fd, &mh, MSG_NOSIGNAL);
	free(s);
	return n == (ssize_t)iov.iov_len ? 0 : -1;
}

/*
 * A runner forked by the pool with envp, errfd as its stderr and sockfd as
 * its fd 3: 0 and its pid; 1: the pool is starting, try again later; -1:
 * no pool (spawn the runner afresh).
 */
int
pool_spawn(const char *python, char *const envp[], int errfd, int sockfd,
    pid_t *pid)
{
	json_t		*req, *arr, *msg;
	const char	*type;
	size_t		 i;
	int		 rc = -1;

	/* auto: on the CPU; on GPUs once a GPU host has measured it */
	if (!(env->conf.runner_pool == -1 ? env->cpu : env->conf.runner_pool) ||
	    pool.state == POOL_BROKEN)
		return -1;
	if (pool.state == POOL_OFF && pool_start(python, envp) == -1)
		return -1;
	if (pool.state == POOL_STARTING) {
		pool_poll();
		if (pool.state == POOL_STARTING)
			return 1;
		if (pool.state != POOL_READY)
			return pool.state == POOL_OFF ? 1 : -1;
	}
	if ((req = json_object()) == NULL || (arr = json_array()) == NULL) {
		json_decref(req);
		return -1;
	}
	for (i = 0; envp[i] != NULL; i++)
		json_array_append_new(arr, json_string(envp[i]));
	json_object_set_new(req, "type", json_string("spawn"));
	json_object_set_new(req, "env", arr);
	if (pool_send(req, errfd, sockfd) == -1) {
		json_decref(req);
		pool_stop_why("cannot send a request", 1);
		return -1;
	}
	json_decref(req);
	if ((msg = pool_recv(POOL_REPLY_MS)) == NULL) {
		pool_stop_why("no answer to a request", 1);
		return -1;
	}
	type = json_string_value(json_object_get(msg, "type"));
	if (type != NULL && !strcmp(type, "spawned") &&
	    json_integer_value(json_object_get(msg, "pid")) > 0) {
		*pid = (pid_t)json_integer_value(json_object_get(msg, "pid"));
		pool.failures = 0;
		pool.spawned++;
		rc = 0;
	} else if (json_is_true(json_object_get(msg, "stale")))
		pool_stop_why("started for another environment; a new one starts",
		    0);
	else
		log_warnx("runner pool: %s", json_string_value(json_object_get(msg,
		    "error")) ?: "a malformed answer");
	json_decref(msg);
	return rc;
}
