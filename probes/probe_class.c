/*
 * The probe classes' names (docs/protocol.md): the word a case's "class"
 * holds, a run's classes= and a table point's class word.
 */
#include <string.h>

#include "probes.h"

static const char *const probe_class_names[] = {
	"same_shape", "broadcast", "scalar", "reduction", "contract",
	"noncontig", "accumulation", "dtype_exotic", "edge_values", "compile",
	"bootstrap", "random", "views", "empty", "options", "trace", "graph"
};

const char *
probe_class_name(enum probe_class c)
{
	size_t	i;

	for (i = 0; i < PROBE_NCLASSES; i++)
		if ((unsigned)c == (1u << i))
			return probe_class_names[i];
	return "unknown";
}

int
probe_class_parse(const char *name)
{
	size_t	i;

	if (name == NULL)
		return -1;
	for (i = 0; i < PROBE_NCLASSES; i++)
		if (strcmp(name, probe_class_names[i]) == 0)
			return 1 << i;
	return -1;
}
