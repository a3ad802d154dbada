/*
 * util.h: helpers every file may use and that use nothing of the daemon:
 * the clocks, a run's rate, the lists' generation counter and a scope's
 * op list.
 */
#ifndef UTIL_H
#define UTIL_H

#include <string.h>

#include <jansson.h>

/* util.c */
double		 now_mono(void);
double		 now_wall(void);
int		 cpu_count(void);		/* this process's CPUs */
unsigned long	 lists_generation(void);	/* any thread */
void		 lists_changed(void);	/* a run ended or a fingerprint moved */
int		 progress_eta(long long done, long long total, long long done0,
		    double t0, double now, double *rate, double *eta);

/*
 * Whether a scope's op list (a JSON array of keys and names: a run's ops,
 * runner.ops) names the entry key or its name. Inline: the unit tests link
 * the files that call it without util.c, whose clocks they replace.
 */
static inline int
ops_have(json_t *ops, const char *key, const char *name)
{
	size_t	 i;
	json_t	*v;

	json_array_foreach(ops, i, v) {
		const char	*s = json_string_value(v);

		if (s && (!strcmp(s, key) || !strcmp(s, name)))
			return 1;
	}
	return 0;
}

#endif
