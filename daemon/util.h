/*
 * util.h: helpers every file may use and that use nothing of the daemon:
 * the clocks and the lists' generation counter.
 */
#ifndef UTIL_H
#define UTIL_H

/* util.c */
double		 now_mono(void);
double		 now_wall(void);
unsigned long	 lists_generation(void);	/* any thread */
void		 lists_changed(void);	/* a run ended or a fingerprint moved */

#endif
