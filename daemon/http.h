/*
 * http.h: the HTTP API's table of contents, private to its files: http.c's
 * answers and query checks, and the handlers api.c routes to.
 */
#ifndef HTTP_H
#define HTTP_H

#include <stdarg.h>
#include <stdint.h>
#include <microhttpd.h>

#include "opscreend.h"

#define ARGS_MAX	32	/* query parameters; no endpoint takes more than 4 */

/* http.c */
extern const char *const CT_JSON, *const CT_TEXT, *const CT_CSV,
	    *const CT_YAML, *const CT_PROM;
void		 resp_headers(struct MHD_Response *, const char *ctype);
enum MHD_Result	 send_buf_hdr(struct MHD_Connection *, int status,
		    const char *ctype, char *buf, size_t len, const char *hname,
		    const char *hval);
enum MHD_Result	 send_buf(struct MHD_Connection *, int status,
		    const char *ctype, char *buf, size_t len);
enum MHD_Result	 send_static(struct MHD_Connection *, const char *ctype,
		    const char *body);
enum MHD_Result	 send_fallback(struct MHD_Connection *);
enum MHD_Result	 send_json_hdr(struct MHD_Connection *, int status, json_t *,
		    const char *hname, const char *hval);
enum MHD_Result	 send_json(struct MHD_Connection *, int status, json_t *);
enum MHD_Result	 send_error(struct MHD_Connection *, int status,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
enum MHD_Result	 send_error_hdr(struct MHD_Connection *, int status,
		    const char *hname, const char *hval, const char *fmt, ...)
		    __attribute__((format(printf, 5, 6)));
void		 utf8_trim(char *);
void		 utf8_scrub(char *);
int		 utf8_valid(const char *, size_t);
const char	*query_unknown(struct MHD_Connection *, const char **allowed,
		    char *bad, size_t len);
const char	*arg(struct MHD_Connection *, const char *key);
int		 parse_id(const char *, int64_t *);
int		 valid_dtype_list(const char *, char *bad, size_t len);
int		 gpu_arg(struct MHD_Connection *, int *gpu);

/* api_list.c */
enum MHD_Result	 serve_list(struct MHD_Connection *, int deny);

/* api_read.c */
enum MHD_Result	 serve_runs(struct MHD_Connection *, const char *rest);
enum MHD_Result	 serve_ops(struct MHD_Connection *, const char *name);
enum MHD_Result	 serve_case(struct MHD_Connection *, const char *rest);
enum MHD_Result	 serve_diff(struct MHD_Connection *);
enum MHD_Result	 serve_findings(struct MHD_Connection *);
enum MHD_Result	 serve_regressions(struct MHD_Connection *);

#endif
