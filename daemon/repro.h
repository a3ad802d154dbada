/*
 * repro.h: the daemon's part of a repro script (docs/protocol.md, "Repro").
 */
#ifndef OPSCREEN_REPRO_H
#define OPSCREEN_REPRO_H

#include <jansson.h>

#include "verdict.h"

/* repro.c */
char		*repro_fill(const char *, const json_t *,
		    const struct case_verdict *);
void		 repro_take(char **, char **, const json_t *,
		    const struct case_verdict *);
char		*repro_inputs_name(const char *, long long);
char		*repro_lost(const char *, const struct case_verdict *,
		    int deadline_s);

#endif
