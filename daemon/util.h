/*
 * util.h: helpers every file may use and that use nothing of the daemon:
 * the clocks, a run's rate and the lists' generation counter.
 */
#ifndef UTIL_H
#define UTIL_H

/* util.c */
double		 now_mono(void);
double		 now_wall(void);
int		 cpu_count(void);		/* this process's CPUs */
unsigned long	 lists_generation(void);	/* any thread */
void		 lists_changed(void);	/* a run ended or a fingerprint moved */
int		 progress_eta(long long done, long long total, long long done0,
		    double t0, double now, double *rate, double *eta);

#endif
