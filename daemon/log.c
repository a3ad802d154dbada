/*
 * log.c: one small logging module, used everywhere. Lines go to stderr with a
 * timestamp (journald adds its own, but foreground runs and tests read them).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>

#include "log.h"

static int		 log_debug_on;
static pthread_mutex_t	 log_mtx = PTHREAD_MUTEX_INITIALIZER;

void
log_init(int debug, int verbose)
{
	log_debug_on = debug || verbose;
}

static void
vlog(const char *level, const char *fmt, va_list ap, const char *err)
{
	char		 ts[32];
	struct timespec	 t;
	struct tm	 tm;

	clock_gettime(CLOCK_REALTIME, &t);
	gmtime_r(&t.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	pthread_mutex_lock(&log_mtx);
	fprintf(stderr, "%s.%03ldZ opscreend %s: ", ts, t.tv_nsec / 1000000, level);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", err);
	fputc('\n', stderr);
	fflush(stderr);
	pthread_mutex_unlock(&log_mtx);
}

void
log_warn(const char *fmt, ...)
{
	va_list	 ap;
	int	 saved = errno;

	va_start(ap, fmt);
	vlog("warning", fmt, ap, strerror(saved));
	va_end(ap);
	errno = saved;
}

void
log_warnx(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog("warning", fmt, ap, NULL);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog("info", fmt, ap, NULL);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list	 ap;

	if (!log_debug_on)
		return;
	va_start(ap, fmt);
	vlog("debug", fmt, ap, NULL);
	va_end(ap);
}

int
error(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog("error", fmt, ap, NULL);
	va_end(ap);
	return -1;
}

void
fatal(const char *fmt, ...)
{
	va_list	 ap;
	int	 saved = errno;

	va_start(ap, fmt);
	vlog("fatal", fmt, ap, strerror(saved));
	va_end(ap);
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog("fatal", fmt, ap, NULL);
	va_end(ap);
	exit(1);
}
