/*
 * repro.c: the daemon's part of a repro script.  The runner renders the
 * script (probes/opscreen_runner/repro.py) with the case's inputs, the calls
 * and the checks, and leaves two lines to the rule that judged it: the
 * "# judged:" line gets the verdict (status, reason, detail) and the line
 * "BOUNDS = None" the bounds verdict.c allowed each output of the RESULT
 * (float: (err_abs, err_ulp) from verdict_float_bound; random: the level
 * VERDICT_STAT_ALPHA; others None), so the script asserts the bounds the
 * daemon judged by, as numbers, and fails where the case failed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repro.h"

/* A double as Python reads it back exactly (inf for an unbounded error). */
static void
repro_num(FILE *f, double x)
{
	if (isinf(x))
		fputs(x > 0 ? "inf" : "-inf", f);
	else if (isnan(x))
		fputs("nan", f);
	else
		fprintf(f, "%.17g", x);
}

/* "[(a, u), None, 0.0001]": what the rule allowed each output. */
static char *
repro_bounds(const json_t *outs)
{
	const json_t	*o;
	const char	*kind;
	FILE		*f;
	char		*s = NULL;
	size_t		 len, i;
	double		 a, u;

	if ((f = open_memstream(&s, &len)) == NULL)
		return NULL;
	fputc('[', f);
	json_array_foreach(outs, i, o) {
		kind = json_string_value(json_object_get(o, "kind"));
		if (i > 0)
			fputs(", ", f);
		if (kind != NULL && (strcmp(kind, "float") == 0 ||
		    strcmp(kind, "routed_weights") == 0) &&
		    verdict_float_bound(o, &a, &u) == 0) {
			fputc('(', f);
			repro_num(f, a);
			fputs(", ", f);
			repro_num(f, u);
			fputc(')', f);
		} else if (kind != NULL && strcmp(kind, "stat") == 0)
			repro_num(f, VERDICT_STAT_ALPHA);
		else
			fputs("None", f);
	}
	fputc(']', f);
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

/*
 * s with the rest of the line that begins with `head` (at the start of a
 * line) replaced by `rest`; NULL when there is no such line or no memory.
 */
static char *
repro_line(const char *s, const char *head, const char *rest)
{
	const char	*p = s, *e;
	size_t		 hl = strlen(head), n;
	char		*out;

	while (strncmp(p, head, hl) != 0) {
		if ((p = strchr(p, '\n')) == NULL)
			return NULL;
		p++;
	}
	p += hl;
	e = p + strcspn(p, "\n");
	n = (p - s) + strlen(rest) + strlen(e) + 1;
	if ((out = malloc(n)) == NULL)
		return NULL;
	snprintf(out, n, "%.*s%s%s", (int)(p - s), s, rest, e);
	return out;
}

/*
 * The repro with the verdict and the bounds written in, or NULL when it has
 * neither line (a stub, a 2^31-element case's) or on no memory.
 */
char *
repro_fill(const char *repro, const json_t *result,
    const struct case_verdict *v)
{
	const json_t	*outs = json_object_get(result, "outputs");
	char		 judged[sizeof(v->detail) + 128], *b, *s, *t, *p;

	if (repro == NULL)
		return NULL;
	snprintf(judged, sizeof(judged), "%s %s: %s", case_status_name(
	    v->status), v->reason, v->detail);
	for (p = judged; *p != '\0'; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	if ((s = repro_line(repro, "# judged: ", judged)) == NULL)
		return NULL;
	if (!json_is_array(outs) || json_array_size(outs) == 0 ||
	    (b = repro_bounds(outs)) == NULL)
		return s;
	if (asprintf(&p, "%s  # per output, what the daemon's rule allowed: "
	    "(abs, ULP) error, a test's level", b) == -1)
		p = NULL;
	free(b);
	if (p == NULL || (t = repro_line(s, "BOUNDS = ", p)) == NULL) {
		free(p);
		return s;
	}
	free(p);
	free(s);
	return t;
}

/*
 * A RESULT's own repro (rendered after the calls) replaces the one of its
 * STARTED, with its inputs file's text (inputs: NULL when the caller keeps
 * none); then the verdict is written into whichever the case has.
 */
void
repro_take(char **repro, char **inputs, const json_t *msg,
    const struct case_verdict *v)
{
	const char	*own = json_string_value(json_object_get(msg, "repro"));
	const char	*in = json_string_value(json_object_get(msg,
			    "repro_inputs"));
	char		*s;

	if (own != NULL && (s = strdup(own)) != NULL) {
		free(*repro);
		*repro = s;
		if (inputs != NULL) {
			free(*inputs);
			*inputs = in != NULL ? strdup(in) : NULL;
		}
	}
	if ((s = repro_fill(*repro, msg, v)) != NULL) {
		free(*repro);
		*repro = s;
	}
}

/*
 * A case that hung or crashed its runner has only its pre-call script. It
 * gets the verdict, and a guard before its first statement: run as a file,
 * the script runs itself again in a child process and judges how that
 * ends, so a hang's script fails with an AssertionError instead of hanging,
 * and a crash's with the signal's name instead of the interpreter's exit
 * status. The deadline is the case's, from the child's first call, as the
 * daemon's ran from the case's start in a runner that had its imports done:
 * the child closes a pipe's end before it (a line put before `native =
 * call()`), and the parent waits for that, then deadline_s for its end (a
 * fresh interpreter's imports took 6-9 s of a CPU case's 8 s deadline on a
 * loaded 2-core machine). A script without that line is timed from the
 * child's start. A child that ends is the script's own outcome (its
 * checks; 0 when the hang or crash did not come back). NULL when the
 * script has no "# judged:" line (a stub) or on no memory.
 */
char *
repro_lost(const char *repro, const struct case_verdict *v, int deadline_s)
{
	static const char	 first[] = "\nnative = call()\n";
	const char		*p, *call;
	char			*s, *out, guard[2400];
	size_t			 at;

	if ((s = repro_fill(repro, NULL, v)) == NULL)
		return NULL;
	/* after the header's comment lines */
	for (p = s; *p == '#'; p++)
		if ((p = strchr(p, '\n')) == NULL)
			break;
	if (p == NULL) {
		free(s);
		return NULL;
	}
	at = p - s;
	call = strstr(s + at, first);
	snprintf(guard, sizeof(guard),
	    "# The call %s the runner: this script runs itself again in a child "
	    "process and\n"
	    "# judges how that ends (the case deadline: %d s%s).\n"
	    "import os as _os, select as _sel, signal as _signal, subprocess as "
	    "_sp, sys as _sys\n"
	    "if _os.environ.get(\"OPSCREEN_REPRO_CHILD\") is None:\n"
	    "    _r, _w = _os.pipe()  # the child closes _w at its first call\n"
	    "    _p = _sp.Popen([_sys.executable, _os.path.abspath(__file__)] + "
	    "_sys.argv[1:], pass_fds=[_w],\n"
	    "                   env=dict(_os.environ, OPSCREEN_REPRO_CHILD=str(_w)))\n"
	    "    _os.close(_w)\n"
	    "    %s\n"
	    "    try:\n"
	    "        _p.wait(timeout=%d)\n"
	    "    except _sp.TimeoutExpired:\n"
	    "        _p.kill()\n"
	    "        raise AssertionError(\"timeout: no result within %d s, the "
	    "case deadline the daemon judged by\") from None\n"
	    "    if _p.returncode < 0:\n"
	    "        try:\n"
	    "            _n = _signal.Signals(-_p.returncode).name\n"
	    "        except ValueError:\n"
	    "            _n = str(-_p.returncode)\n"
	    "        raise AssertionError(f\"crash: the call killed its process "
	    "(signal {_n})\")\n"
	    "    _sys.exit(_p.returncode)\n",
	    v->status == CASE_TIMEOUT ? "hung" : "crashed", deadline_s,
	    call != NULL ? ", from its first call" : "",
	    call != NULL ? "_sel.select([_r], [], [])  # its imports are done" :
	    "pass  # timed from its start", deadline_s, deadline_s);
	if (call == NULL) {
		if (asprintf(&out, "%.*s%s%s", (int)at, s, guard, s + at) == -1)
			out = NULL;
	} else if (asprintf(&out, "%.*s%s%.*s\n_os.environ.get(\""
	    "OPSCREEN_REPRO_CHILD\") and _os.close(int(_os.environ[\""
	    "OPSCREEN_REPRO_CHILD\"]))  # the calls begin%s", (int)at, s, guard,
	    (int)(call - (s + at)), s + at, call) == -1)
		out = NULL;
	free(s);
	return out;
}

/*
 * The name of the inputs file repro reads beside it ("case-N.inputs.b64",
 * as the runner wrote it: a carried or reused repro keeps the name it was
 * written with), or case id's when it names none. Caller frees; NULL on no
 * memory.
 */
char *
repro_inputs_name(const char *repro, long long id)
{
	const char	*p = repro, *q;
	char		*out;

	while (p != NULL && (p = strstr(p, "\"case-")) != NULL) {
		p++;
		q = p + 5;
		while (*q >= '0' && *q <= '9')
			q++;
		if (q > p + 5 && !strncmp(q, ".inputs.b64\"", 12)) {
			if ((out = malloc(q - p + 12)) != NULL)
				snprintf(out, q - p + 12, "%.*s", (int)(q - p + 11), p);
			return out;
		}
	}
	if (asprintf(&out, "case-%lld.inputs.b64", id) == -1)
		return NULL;
	return out;
}
