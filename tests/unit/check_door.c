/* check_door.c: the front door's judgement of a request head (door.c). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscreend.h"
#include "door.h"

struct opscreend *env;
double now_mono(void) { return 0; }

static const char *
judge(const char *head, int *status)
{
	return door_head_invalid(head, strlen(head), status);
}

static void
ok(const char *head)
{
	int	 st = 0;

	ck_assert_msg(judge(head, &st) == NULL, "refused: %s", head);
}

static void
refused(const char *head, int want, const char *says)
{
	const char	*why;
	int		 st = 0;

	why = judge(head, &st);
	ck_assert_msg(why != NULL, "passed: %s", head);
	ck_assert_int_eq(st, want);
	ck_assert_msg(strstr(why, says) != NULL, "'%s' lacks '%s'", why, says);
}

START_TEST(well_formed_heads_pass)
{
	ok("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
	ok("GET /healthz HTTP/1.0\r\n\r\n");
	/* bare LF line ends, as libmicrohttpd takes them */
	ok("GET /healthz HTTP/1.1\nHost: x\n\n");
	ok("POST /runs HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n");
	ok("POST /runs HTTP/1.1\r\nHost: x\r\ncontent-length:  17 \r\n\r\n");
	ok("POST /runs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
	ok("POST /runs HTTP/1.1\r\nHost: x\r\ntransfer-encoding: CHUNKED\r\n\r\n");
	/* what the handler refuses is the handler's (two Content-Lengths) */
	ok("POST /runs HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n");
	/* a header whose name only starts like one the door reads */
	ok("GET / HTTP/1.1\r\nContent-Length-X: abc\r\nX-Transfer-Encoding: gzip\r\n\r\n");
}
END_TEST

START_TEST(request_lines)
{
	refused("GET\r\nHost: x\r\n\r\n", 400, "request line");
	refused("GET /x\r\n\r\n", 400, "request line");
	refused(" /x HTTP/1.1\r\n\r\n", 400, "request line");
	refused("GET  HTTP/1.1\r\n\r\n", 400, "request line");
}
END_TEST

START_TEST(part_of_a_head)
{
	int	 st = 0;

	/* what has come so far may still become a request */
	ck_assert_ptr_null(judge("GET /heal", &st));
	ck_assert_ptr_null(judge("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ", &st));
	ck_assert_ptr_null(judge("POS", &st));
	/* or cannot: answered at once, not after the header deadline */
	refused("\x16\x03\x01\x02\x00", 400, "control character");	/* TLS */
	refused("GE\xffT /", 400, "not an HTTP request line");
	refused("{\"ops\": [", 400, "not an HTTP request line");
	refused("GET /x FOO/1.1\r\n", 400, "request line");
	refused("GET /x HTTP/1.1\r\nNoColon\r\nX-Slow: ", 400, "colon");
	refused("GET /x HTTP/1.1\r\nX-A: \x01\r\n\r\n", 400, "control character");
}
END_TEST

START_TEST(targets_past_8k)
{
	char	*h = malloc(9000 + 64);

	snprintf(h, 64, "GET /");
	memset(h + 5, 'a', 8192);
	h[5 + 8192] = '\0';
	strcat(h, " HTTP/1.1\r\n\r\n");
	refused(h, 414, "8192");
	/* a shorter one is in */
	h[5 + 8191 - 1] = '\0';
	strcat(h, " HTTP/1.1\r\n\r\n");
	ok(h);
	free(h);
}
END_TEST

START_TEST(content_length)
{
	refused("POST / HTTP/1.1\r\nContent-Length: 12abc\r\n\r\n", 400, "Content-Length");
	refused("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400, "Content-Length");
	refused("POST / HTTP/1.1\r\nContent-Length: +1\r\n\r\n", 400, "Content-Length");
	refused("POST / HTTP/1.1\r\nContent-Length:\r\n\r\n", 400, "Content-Length");
	refused("POST / HTTP/1.1\r\nContent-Length: 1 2\r\n\r\n", 400, "Content-Length");
	refused("POST / HTTP/1.1\r\nContent-Length: 0x10\r\n\r\n", 400, "Content-Length");
	refused("POST / HTTP/1.1\r\nContent-Length: 1234567890123456789\r\n\r\n", 400,
	    "Content-Length");
	ok("POST / HTTP/1.1\r\nContent-Length: 123456789012345678\r\n\r\n");
}
END_TEST

START_TEST(transfer_encoding)
{
	refused("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "chunked");
	refused("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501, "chunked");
	refused("POST / HTTP/1.1\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", 501,
	    "chunked");
	refused("POST / HTTP/1.1\r\nTransfer-Encoding:\r\n\r\n", 501, "chunked");
}
END_TEST

START_TEST(header_lines)
{
	refused("GET / HTTP/1.1\r\nNoColon\r\n\r\n", 400, "colon");
	refused("GET / HTTP/1.1\r\n: value\r\n\r\n", 400, "colon");
	refused("GET / HTTP/1.1\r\nX-A: b\r\n folded\r\n\r\n", 400, "folded");
	refused("GET / HTTP/1.1\r\nX-A: b\r\n\tfolded\r\n\r\n", 400, "folded");
	/* the body after the blank line is not read as headers */
	ok("POST / HTTP/1.1\r\nContent-Length: 9\r\n\r\nNoColon\r\n");
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("door");
	TCase	*tc = tcase_create("head");
	SRunner	*sr;
	int	 nf;

	tcase_add_test(tc, well_formed_heads_pass);
	tcase_add_test(tc, request_lines);
	tcase_add_test(tc, part_of_a_head);
	tcase_add_test(tc, targets_past_8k);
	tcase_add_test(tc, content_length);
	tcase_add_test(tc, transfer_encoding);
	tcase_add_test(tc, header_lines);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
