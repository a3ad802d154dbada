/* Schema-driven cases (generic.h).  Being written: nothing supported yet. */
#include "probes.h"
#include "generic.h"

int
generic_supports(const char *key, const char *schema, const char **why)
{
	if (why != NULL)
		*why = "no probe for this key";
	return 0;
}

int
generic_expand(const char *key, const char *schema, unsigned classes,
    const json_t *dtypes, json_t *out)
{
	return -1;
}
