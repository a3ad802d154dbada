/*
 * Schema-driven cases: arguments generated from a key's aten schema string
 * (as the runner's hello reports it) and the constraint table of probes/,
 * for every registered key the hand-written catalog (catalog.c, sweep.c)
 * does not cover.  Pure data generation like sweep.c: same CASE format
 * (docs/protocol.md), deterministic seeds from seed_case().
 */
#ifndef OPSCREEN_GENERIC_H
#define OPSCREEN_GENERIC_H

#include <jansson.h>

/*
 * 1 when generic_expand() can build cases for key from schema; 0 when it
 * cannot, with *why (static string) saying what is missing.
 */
int	generic_supports(const char *key, const char *schema, const char **why);

/*
 * Appends the cases of key for the probe classes in the mask and the dtypes
 * in the array (NULL: every dtype the key takes) to out; returns the number
 * appended, or -1 (out left as it was).
 */
int	generic_expand(const char *key, const char *schema, unsigned classes,
	    const json_t *dtypes, json_t *out);

#endif
