/*
 * door.c: the API's front door. One thread owns the listening socket,
 * accepts every connection and holds it, at the cost of a descriptor, until
 * its request head (request line and headers) has arrived; only then is the
 * connection handed to libmicrohttpd (MHD_add_connection), so a slow or
 * silent client never holds one of MHD's connection slots, and the requests
 * that are complete always find one (the reserve for complete requests).
 *
 * The head is read with MSG_PEEK: MHD reads the same bytes again from the
 * socket. What MHD 0.9.75 would answer itself, in HTML, or not at all, the
 * door answers in the API's JSON error form and closes: a request line or
 * head past its bound (414, 431), a Content-Length that is not a number
 * (MHD sent its status line twice, then HTML), a Transfer-Encoding other than
 * chunked (MHD waited for the connection timeout), a malformed request line
 * or header line (400), a head not complete within api.header_timeout (408),
 * and no MHD slot free (503, Retry-After). Every answer carries Connection:
 * close (http.c), so each request on the API passes the door.
 *
 * Pending connections are bounded (DOOR_PENDING); past the bound the oldest
 * is closed: one client's slow connections cannot keep the others out.
 * What the door refuses is logged once per DOOR_LOG_S with counts, never per
 * connection.
 */
#include <sys/types.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <jansson.h>
#include <microhttpd.h>

#include "opscreend.h"
#include "door.h"

#define DOOR_HEAD_MAX	(16 * 1024)	/* request line and headers */
#define DOOR_URI_MAX	(8 * 1024)	/* the request target */
#define DOOR_PENDING	512		/* connections waiting for their head, at most */
#define DOOR_LOG_S	10.0

struct pend {
	int			 fd;
	double			 since;
	struct sockaddr_storage	 sa;
	socklen_t		 salen;
};

enum { N_TIMEOUT, N_EVICTED, N_REFUSED, N_FULL, N_MAX };

static struct {
	struct MHD_Daemon	*mhd;
	int			 lfd, efd, stopfd;
	int			 header_timeout, max_conns;
	int			 pending_max;	/* DOOR_PENDING, or less (fds) */
	pthread_t		 thr;
	int			 on;
	struct pend		 p[DOOR_PENDING];	/* fd -1: a free slot */
	int			 np;			/* slots in use */
	unsigned long		 n[N_MAX], logged[N_MAX];
	double			 last_log;
} door = { .lfd = -1, .efd = -1, .stopfd = -1 };

static const char *const N_WHAT[N_MAX] = {
	"closed without a complete request head within api.header_timeout",
	"closed, the oldest of DOOR_PENDING waiting for their heads",
	"answered 4xx/501 for a malformed or oversized head",
	"answered 503: every connection slot of the API busy",
};

static const char *
reason_phrase(int status)
{
	switch (status) {
	case 400: return "Bad Request";
	case 408: return "Request Timeout";
	case 414: return "URI Too Long";
	case 431: return "Request Header Fields Too Large";
	case 501: return "Not Implemented";
	case 503: return "Service Unavailable";
	}
	return "Error";
}

/*
 * Answers on a connection MHD never saw, in the form of http.c's send_error,
 * and closes it. What the client sent so far is read first: closing a
 * socket with unread bytes resets it, and the client could lose the answer.
 */
static void
answer(int fd, int status, const char *why)
{
	char	 head[512], sink[4096], *body;
	json_t	*o;
	int	 hl, k;

	o = json_pack("{ss si}", "error", why, "status", status);
	body = o ? json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
	json_decref(o);
	hl = snprintf(head, sizeof(head), "HTTP/1.1 %d %s\r\nContent-Type: "
	    "application/json\r\nCache-Control: no-store\r\nConnection: close\r\n"
	    "%sContent-Length: %zu\r\n\r\n", status, reason_phrase(status),
	    status == 503 ? "Retry-After: 1\r\n" : "", body ? strlen(body) : 0);
	for (k = 0; k < 64 && recv(fd, sink, sizeof(sink), MSG_DONTWAIT) > 0; k++)
		;
	(void)!send(fd, head, hl, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (body)
		(void)!send(fd, body, strlen(body), MSG_NOSIGNAL | MSG_DONTWAIT);
	free(body);
	shutdown(fd, SHUT_WR);
	close(fd);
}

static void
drop(int i)
{
	epoll_ctl(door.efd, EPOLL_CTL_DEL, door.p[i].fd, NULL);
	door.p[i].fd = -1;
	door.np--;
}

static int
ows(int ch)
{
	return ch == ' ' || ch == '\t';
}

/* A header value without its leading and trailing whitespace. */
static void
trimmed(const char *v, const char *end, const char **s, size_t *len)
{
	while (v < end && ows(*v))
		v++;
	while (end > v && (ows(end[-1]) || end[-1] == '\r'))
		end--;
	*s = v;
	*len = end - v;
}

/* A character of a method (RFC 9110 5.6.2's tchar). */
static int
tchar(int ch)
{
	return isalnum(ch) || (ch && strchr("!#$%&'*+-.^_`|~", ch) != NULL);
}

/*
 * NULL when the head (len bytes, up to and with its blank line) may go to
 * MHD; else why not, with its status. On part of a head (no blank line
 * yet) it judges what has arrived, so that bytes which cannot begin a
 * request are answered at once rather than after api.header_timeout.
 */
const char *
door_head_invalid(const char *h, size_t len, int *status)
{
	const char	*end = h + len, *eol, *sp1, *sp2, *colon, *v, *p;
	size_t		 vl, i;

	*status = 400;
	for (i = 0; i < len; i++) {
		unsigned char	 ch = h[i];

		if ((ch < 0x20 && ch != '\t' && ch != '\r' && ch != '\n') ||
		    ch == 0x7f)
			return "a control character in the request head";
	}
	eol = memchr(h, '\n', len);
	/* the method, as far as it has come */
	for (p = h; p < (eol ? eol : end) && *p != ' '; p++)
		if (!tchar((unsigned char)*p))
			return "not an HTTP request line (METHOD TARGET VERSION)";
	if (eol == NULL)
		return NULL;		/* the request line is still coming */
	if ((sp1 = memchr(h, ' ', eol - h)) == NULL || sp1 == h ||
	    (sp2 = memchr(sp1 + 1, ' ', eol - sp1 - 1)) == NULL ||
	    sp2 == sp1 + 1 || eol - sp2 - 1 < 5 || strncmp(sp2 + 1, "HTTP/", 5))
		return "a malformed request line (METHOD TARGET VERSION)";
	if (sp2 - sp1 - 1 > DOOR_URI_MAX) {
		*status = 414;
		return "the request target is longer than 8192 bytes";
	}
	for (h = eol + 1; h < end; h = eol + 1) {
		eol = memchr(h, '\n', end - h);
		if (eol == NULL || eol == h || (eol == h + 1 && *h == '\r'))
			break;		/* the blank line: the head's end */
		if (ows(*h))
			return "a folded header line (obs-fold)";
		if ((colon = memchr(h, ':', eol - h)) == NULL || colon == h)
			return "a header line without a name and a colon";
		trimmed(colon + 1, eol, &v, &vl);
		if (colon - h == 14 && !strncasecmp(h, "Content-Length", 14)) {
			if (vl == 0 || vl > 18)
				return "Content-Length is not a decimal number";
			for (i = 0; i < vl; i++)
				if (!isdigit((unsigned char)v[i]))
					return "Content-Length is not a decimal number";
		} else if (colon - h == 17 &&
		    !strncasecmp(h, "Transfer-Encoding", 17) &&
		    !(vl == 7 && !strncasecmp(v, "chunked", 7))) {
			*status = 501;
			return "Transfer-Encoding other than chunked is not implemented";
		}
	}
	return NULL;
}

/* The end of the head in b (n bytes): its length, 0 if not there yet. */
static size_t
head_end(const char *b, size_t n)
{
	size_t	 i;

	for (i = 0; i + 1 < n; i++)
		if (b[i] == '\n' && (b[i + 1] == '\n' || (b[i + 1] == '\r' &&
		    i + 2 < n && b[i + 2] == '\n')))
			return i + (b[i + 1] == '\n' ? 2 : 3);
	return 0;
}

static void
handover(int i)
{
	const union MHD_DaemonInfo	*di;
	struct pend			 p = door.p[i];

	drop(i);
	di = MHD_get_daemon_info(door.mhd, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
	if (di != NULL && (int)di->num_connections >= door.max_conns) {
		door.n[N_FULL]++;
		answer(p.fd, 503, "every connection slot of the API is busy; "
		    "try again");
		return;
	}
	/* MHD owns the socket now, and closes it if it cannot take it */
	MHD_add_connection(door.mhd, p.fd, (const struct sockaddr *)&p.sa,
	    p.salen);
}

/* What has arrived on pending connection i. */
static void
door_read(int i)
{
	static char	 b[DOOR_HEAD_MAX + 1];
	const char	*why;
	ssize_t		 n;
	size_t		 hl;
	int		 status, fd = door.p[i].fd;

	n = recv(fd, b, DOOR_HEAD_MAX, MSG_PEEK | MSG_DONTWAIT);
	if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n <= 0) {			/* gone, or reset */
		drop(i);
		close(fd);
		return;
	}
	hl = head_end(b, n);
	/* what has arrived may already be refused: at once */
	if ((why = door_head_invalid(b, hl ? hl : (size_t)n, &status)) != NULL) {
		drop(i);
		door.n[N_REFUSED]++;
		answer(fd, status, why);
		return;
	}
	if (hl == 0) {
		const char	*eol = memchr(b, '\n', n);

		if (n < DOOR_HEAD_MAX && (eol != NULL || n <= DOOR_URI_MAX + 64))
			return;		/* more to come */
		drop(i);
		door.n[N_REFUSED]++;
		if (eol == NULL)
			answer(fd, 414, "the request line is longer than 8192 bytes");
		else
			answer(fd, 431, "the request head is longer than 16384 bytes");
		return;
	}
	handover(i);
}

static void
door_accept(void)
{
	struct epoll_event	 ev;
	struct pend		*p;
	int			 fd, i, one = 1;

	for (;;) {
		struct sockaddr_storage	 sa;
		socklen_t		 sl = sizeof(sa);

		fd = accept4(door.lfd, (struct sockaddr *)&sa, &sl,
		    SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd == -1) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE) {
				/* out of descriptors: a pending one goes */
				for (i = 0; i < DOOR_PENDING; i++)
					if (door.p[i].fd != -1) {
						int	 ofd = door.p[i].fd;

						door.n[N_EVICTED]++;
						drop(i);
						close(ofd);
						break;
					}
				if (i < DOOR_PENDING)
					continue;
			}
			return;		/* EAGAIN, or nothing to do now */
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (door.np >= door.pending_max) {
			int	 oldest = -1, ofd;

			for (i = 0; i < DOOR_PENDING; i++)
				if (door.p[i].fd != -1 && (oldest == -1 ||
				    door.p[i].since < door.p[oldest].since))
					oldest = i;
			ofd = door.p[oldest].fd;
			door.n[N_EVICTED]++;
			drop(oldest);
			close(ofd);
		}
		for (i = 0; door.p[i].fd != -1; i++)
			;
		door.np++;
		p = &door.p[i];
		p->fd = fd;
		p->since = now_mono();
		memcpy(&p->sa, &sa, sl);
		p->salen = sl;
		ev.events = EPOLLIN | EPOLLRDHUP | EPOLLET;
		ev.data.u32 = (uint32_t)i;
		if (epoll_ctl(door.efd, EPOLL_CTL_ADD, fd, &ev) == -1) {
			p->fd = -1;
			door.np--;
			close(fd);
			continue;
		}
		/* the head usually came with the connection */
		door_read(i);
	}
}

static void
door_expire(double now)
{
	int	 i, fd;

	for (i = 0; i < DOOR_PENDING; i++)
		if (door.p[i].fd != -1 &&
		    now - door.p[i].since > door.header_timeout) {
			fd = door.p[i].fd;
			drop(i);
			door.n[N_TIMEOUT]++;
			answer(fd, 408, "no complete request head within "
			    "api.header_timeout");
		}
}

/* Counts, once per DOOR_LOG_S, of what moved: never a line per connection. */
static void
door_log(double now, int force)
{
	int	 k;

	if (!force && now - door.last_log < DOOR_LOG_S)
		return;
	door.last_log = now;
	for (k = 0; k < N_MAX; k++)
		if (door.n[k] != door.logged[k]) {
			log_warnx("http: %lu connection(s) %s (%lu in all)",
			    door.n[k] - door.logged[k], N_WHAT[k], door.n[k]);
			door.logged[k] = door.n[k];
		}
}

static void *
door_main(void *arg)
{
	struct epoll_event	 evs[64];
	int			 n, k;

	(void)arg;
	for (;;) {
		n = epoll_wait(door.efd, evs, 64, 250);
		for (k = 0; k < n; k++) {
			if (evs[k].data.u32 == UINT32_MAX - 1)
				door_accept();
			else if (evs[k].data.u32 == UINT32_MAX) {
				door_log(now_mono(), 1);
				return NULL;
			} else if (evs[k].data.u32 < DOOR_PENDING &&
			    door.p[evs[k].data.u32].fd != -1)
				door_read((int)evs[k].data.u32);
		}
		door_expire(now_mono());
		door_log(now_mono(), 0);
	}
}

int
door_start(struct MHD_Daemon *mhd, const struct sockaddr *sa, socklen_t salen,
    int header_timeout, int max_conns)
{
	struct epoll_event	 ev;
	int			 one = 1;

	door.mhd = mhd;
	door.header_timeout = header_timeout;
	/*
	 * The waiting connections take at most a quarter of the descriptors
	 * the process may open: a crowd at the door must not leave the
	 * scheduler without descriptors for its runners and its store.
	 */
	{
		struct rlimit	 rl;

		door.pending_max = DOOR_PENDING;
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur !=
		    RLIM_INFINITY && rl.rlim_cur / 4 < DOOR_PENDING)
			door.pending_max = rl.rlim_cur / 4 > 16 ?
			    (int)(rl.rlim_cur / 4) : 16;
	}
	door.max_conns = max_conns;
	door.np = 0;
	for (int i = 0; i < DOOR_PENDING; i++)
		door.p[i].fd = -1;
	door.last_log = now_mono();
	memset(door.n, 0, sizeof(door.n));
	memset(door.logged, 0, sizeof(door.logged));
	if ((door.lfd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1)
		return -1;
	setsockopt(door.lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (sa->sa_family == AF_INET6)
		setsockopt(door.lfd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(door.lfd, sa, salen) == -1 || listen(door.lfd, 511) == -1 ||
	    (door.efd = epoll_create1(EPOLL_CLOEXEC)) == -1 ||
	    (door.stopfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) == -1)
		goto fail;
	ev.events = EPOLLIN;
	ev.data.u32 = UINT32_MAX - 1;
	if (epoll_ctl(door.efd, EPOLL_CTL_ADD, door.lfd, &ev) == -1)
		goto fail;
	ev.data.u32 = UINT32_MAX;
	if (epoll_ctl(door.efd, EPOLL_CTL_ADD, door.stopfd, &ev) == -1)
		goto fail;
	if (pthread_create(&door.thr, NULL, door_main, NULL) != 0)
		goto fail;
	door.on = 1;
	return 0;
 fail:
	{
		int	 e = errno;

		door_stop();
		errno = e;
	}
	return -1;
}

/* Stops accepting; the pending connections are closed. Before MHD stops. */
void
door_stop(void)
{
	uint64_t	 one = 1;
	int		 i;

	if (door.on) {
		(void)!write(door.stopfd, &one, sizeof(one));
		pthread_join(door.thr, NULL);
		door.on = 0;
	}
	for (i = 0; i < DOOR_PENDING; i++)
		if (door.p[i].fd != -1) {
			close(door.p[i].fd);
			door.p[i].fd = -1;
		}
	door.np = 0;
	if (door.lfd != -1)
		close(door.lfd);
	if (door.efd != -1)
		close(door.efd);
	if (door.stopfd != -1)
		close(door.stopfd);
	door.lfd = door.efd = door.stopfd = -1;
}
