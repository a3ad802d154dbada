/*
 * log.c: one small logging module, used everywhere. Lines go to stderr with a
 * timestamp (foreground runs and tests read them).  When stderr is journald's
 * stream (JOURNAL_STREAM names its device and inode, as systemd sets it for a
 * service), every line starts with its syslog priority instead ("<4>" for a
 * warning: sd-daemon(3)), so `journalctl -p warning` shows warnings and
 * errors only, and journald's own timestamp stands alone.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <syslog.h>
#include <sys/stat.h>

#include "log.h"

static int		 log_debug_on;
static int		 log_journal;	/* stderr is journald's stream */
static pthread_mutex_t	 log_mtx = PTHREAD_MUTEX_INITIALIZER;

/* JOURNAL_STREAM is "DEVICE:INODE" of the stream systemd connected */
static int
log_stderr_is_journal(void)
{
	const char		*js = getenv("JOURNAL_STREAM");
	unsigned long long	 dev, ino;
	struct stat		 st;

	if (js == NULL || sscanf(js, "%llu:%llu", &dev, &ino) != 2)
		return 0;
	if (fstat(2, &st) == -1)
		return 0;
	return (unsigned long long)st.st_dev == dev &&
	    (unsigned long long)st.st_ino == ino;
}

void
log_init(int debug, int verbose)
{
	log_debug_on = debug || verbose;
	log_journal = log_stderr_is_journal();
}

static int
log_priority(const char *level)
{
	switch (level[0]) {
	case 'f':	/* fatal */
		return LOG_CRIT;
	case 'e':
		return LOG_ERR;
	case 'w':
		return LOG_WARNING;
	case 'd':
		return LOG_DEBUG;
	default:
		return LOG_INFO;
	}
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
	if (log_journal)
		fprintf(stderr, "<%d>%s: ", log_priority(level), level);
	else
		fprintf(stderr, "%s.%03ldZ opscreend %s: ", ts,
		    t.tv_nsec / 1000000, level);
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
