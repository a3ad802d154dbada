/*
 * sweepdump: the cases the daemon would generate for a registration table.
 *
 *	build/sweepdump [-c class,...] [-d dtype,...] < entries.json
 *
 * stdin is a JSON array of {"key", "name", "schema"} (the runner's hello
 * entries); stdout has one JSON object per entry and line:
 * {"key", "name", "source", "supported": true, "cases": [CASE, ...]} or
 * {"key", "name", "source", "supported": false, "reason": "..."}; source
 * is "catalog" (catalog.c) or "schema" (the schema-driven generator).
 * Cases come from probe_expand(), so catalog keys come out as the daemon
 * screens them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "probes.h"

static void
usage(void)
{
	fprintf(stderr, "usage: sweepdump [-c class,...] [-d dtype,...] "
	    "< entries.json\n");
	exit(2);
}

/* "a,b,c" into a JSON array of strings; NULL on a bad word. */
static json_t *
split(const char *s, int (*valid)(const char *))
{
	json_t	*a;
	char	*copy, *w, *save = NULL;

	if ((a = json_array()) == NULL || (copy = strdup(s)) == NULL)
		return NULL;
	for (w = strtok_r(copy, ",", &save); w != NULL;
	    w = strtok_r(NULL, ",", &save)) {
		if (!valid(w)) {
			fprintf(stderr, "sweepdump: unknown %s\n", w);
			json_decref(a);
			free(copy);
			return NULL;
		}
		json_array_append_new(a, json_string(w));
	}
	free(copy);
	return a;
}

static int
class_valid(const char *w)
{
	return probe_class_parse(w) > 0;
}

static int
dump(const json_t *e, unsigned classes, const json_t *dtypes)
{
	const char	*key, *name, *schema, *why = NULL;
	json_t		*o, *cases;
	char		*line;
	int		 n;

	key = json_string_value(json_object_get(e, "key"));
	name = json_string_value(json_object_get(e, "name"));
	schema = json_string_value(json_object_get(e, "schema"));
	if (key == NULL) {
		fprintf(stderr, "sweepdump: entry without a key\n");
		return -1;
	}
	o = json_pack("{s:s,s:s?,s:s}", "key", key, "name", name, "source",
	    catalog_has(key) ? "catalog" : "schema");
	if (o == NULL)
		return -1;
	if (!probe_supported(key, schema, &why)) {
		json_object_set_new(o, "supported", json_false());
		json_object_set_new(o, "reason", json_string(why ? why :
		    "not supported"));
	} else {
		cases = json_array();
		n = probe_expand(key, schema, classes, dtypes, cases);
		json_object_set_new(o, "supported", json_boolean(n >= 0));
		if (n < 0)
			json_object_set_new(o, "reason",
			    json_string("expansion failed"));
		json_object_set_new(o, "cases", cases);
	}
	line = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (line == NULL)
		return -1;
	puts(line);
	free(line);
	return 0;
}

int
main(int argc, char *argv[])
{
	json_t		*in, *dtypes = NULL, *cl, *v;
	json_error_t	 jerr;
	unsigned	 classes = PROBE_ALL;
	size_t		 i;
	int		 ch, rc = 0;

	while ((ch = getopt(argc, argv, "c:d:")) != -1) {
		switch (ch) {
		case 'c':
			if ((cl = split(optarg, class_valid)) == NULL)
				return 2;
			classes = 0;
			json_array_foreach(cl, i, v)
				classes |= (unsigned)probe_class_parse(
				    json_string_value(v));
			json_decref(cl);
			break;
		case 'd':
			json_decref(dtypes);
			if ((dtypes = split(optarg, dtype_valid)) == NULL)
				return 2;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if ((in = json_loadf(stdin, 0, &jerr)) == NULL || !json_is_array(in)) {
		fprintf(stderr, "sweepdump: stdin: %s\n",
		    in ? "not a JSON array" : jerr.text);
		return 1;
	}
	json_array_foreach(in, i, v)
		if (dump(v, classes, dtypes) == -1)
			rc = 1;
	json_decref(in);
	json_decref(dtypes);
	return rc;
}
