/*
 * util.c: the clocks, and the generation counter of what the lists are
 * made of: the scheduler bumps it when a run ends or a fingerprint moves,
 * and the API's list cache keeps an answer only for the generation it was
 * made in.
 */
#include <time.h>

#include "util.h"

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
