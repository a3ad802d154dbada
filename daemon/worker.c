/*
 * worker.c: the scheduler's state (struct sched) and what every scheduler
 * file asks of a runner slot: the slot of a device and back, a runner made
 * idle or restarted after a delay.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscreend.h"
#include "verdict.h"
#include "scheduler.h"

struct sched sched = { .mtx = PTHREAD_MUTEX_INITIALIZER };

int
slot_of_device(int device)
{
	int	 i;

	if (device < 0)
		return 0;
	for (i = 0; i < env->ndevices; i++)
		if (env->devices[i] == device)
			return i;
	return -1;
}

int
nslots(void)
{
	return env->ndevices > 0 ? env->ndevices : 1;
}

int
device_of_slot(int slot)
{
	return env->ndevices > 0 ? env->devices[slot] : -1;
}

/* The repro of the case w had in flight, and its inputs, dropped. */
void
worker_repro_clear(struct worker *w)
{
	free(w->repro);
	free(w->repro_inputs);
	w->repro = w->repro_inputs = NULL;
}

void
worker_idle(struct worker *w)
{
	worker_repro_clear(w);
	w->case_id = 0;
	w->case_compile = 0;
	w->case_fcb = 0;
	w->case_in_first = 0;
	w->replay = 0;
	w->nccl = 0;
	w->state = W_IDLE;
	w->deadline = 0;
}

void
worker_restart_later(struct worker *w, double delay)
{
	int	 s = slot_of_device(w->device);

	if (s >= 0) {
		pthread_mutex_lock(&sched.mtx);
		sched.restarts_total[s]++;
		pthread_mutex_unlock(&sched.mtx);
	}
	w->state = W_DOWN;
	w->next_spawn = now_mono() + delay;
}

/* Kills w's runner (its whole process group); w is down. */
void
worker_kill(struct worker *w)
{
	supervise_kill(w->proc);
	w->state = W_DOWN;
}
