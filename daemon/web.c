/*
 * web.c: the dashboard's static files and the API's OpenAPI description
 * (web/), embedded at build time by tools/embed.sh into build/gen_web.c;
 * api.c serves what web_asset() finds.
 */
#include <string.h>

#include "opscreend.h"

extern const char web_index_html[], web_app_js[], web_style_css[],
    web_openapi_json[];

static const struct {
	const char	*url;
	const char	*ctype;
	const char	*body;
} assets[] = {
	{ "/",		"text/html; charset=utf-8",	web_index_html },
	{ "/index.html", "text/html; charset=utf-8",	web_index_html },
	{ "/app.js",	"text/javascript; charset=utf-8", web_app_js },
	{ "/style.css",	"text/css; charset=utf-8",	web_style_css },
	{ "/openapi.json", "application/json",		web_openapi_json },
};

/* The embedded file for url (NUL-terminated) and its type, or NULL. */
const char *
web_asset(const char *url, const char **ctype)
{
	size_t	 i;

	for (i = 0; i < sizeof(assets) / sizeof(assets[0]); i++)
		if (!strcmp(url, assets[i].url)) {
			*ctype = assets[i].ctype;
			return assets[i].body;
		}
	return NULL;
}
