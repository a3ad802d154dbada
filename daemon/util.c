/*
 * util.c: the clocks, the CPUs this process may run on, a run's rate and time left, and the generation counter of what the lists are
 * made of: the scheduler bumps it when a run ends or a fingerprint moves,
 * and the API's list cache keeps an answer only for the generation it was
 * made in.
 */
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

/* The CPUs this process (and the runners it starts) may run on: its
 * affinity mask (taskset, a cgroup's cpuset), else the online count. */
int
cpu_count(void)
{
	cpu_set_t	 set;
	long		 n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

static unsigned long	 lists_gen;

double
now_mono(void)
{
	struct timespec	 t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

double
now_wall(void)
{
	struct timespec	 t;

	clock_gettime(CLOCK_REALTIME, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

unsigned long
lists_generation(void)
{
	return __atomic_load_n(&lists_gen, __ATOMIC_ACQUIRE);
}

void
lists_changed(void)
{
	__atomic_add_fetch(&lists_gen, 1, __ATOMIC_RELEASE);
}

/*
 * A run's rate (cases per second) since this process began counting at
 * `t0` with `done0` cases already stored (a resumed run's stored cases are
 * not this process's work), and the seconds left at that rate. 0 when both
 * are known, -1 while nothing has been done yet to measure a rate by.
 */
int
progress_eta(long long done, long long total, long long done0, double t0,
    double now, double *rate, double *eta)
{
	*rate = 0;
	*eta = 0;
	if (t0 <= 0 || now <= t0 || done <= done0)
		return -1;
	*rate = (done - done0) / (now - t0);
	*eta = total > done ? (total - done) / *rate : 0;
	return 0;
}
