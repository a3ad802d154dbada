/*
 * env.c: the daemon's one state struct and the pipe that wakes the main
 * loop (API threads and signal handlers write it; opscreend.c polls it).
 */
#include <unistd.h>

#include "opscreend.h"

static struct opscreend	 the_env;
struct opscreend	*env = &the_env;

void
env_wakeup(void)
{
	char	 c = 'w';
	ssize_t	 n;

	n = write(env->wakefd[1], &c, 1);	/* full pipe: already awake */
	(void)n;
}
