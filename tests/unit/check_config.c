/* check_config.c: the INI configuration, its defaults and its error reports. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "opscreend.h"
#include "verdict.h"

struct opscreend *env;
double now_mono(void) { return 0; }
double now_wall(void) { return 0; }
void env_wakeup(void) {}

static char *
write_tmp(const char *text)
{
	static char	 path[64];
	FILE		*fp;
	int		 fd;

	snprintf(path, sizeof(path), "/tmp/check_config.XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	fp = fdopen(fd, "w");
	fputs(text, fp);
	fclose(fp);
	return path;
}

static int
load(const char *text, struct config *c, char *errs, size_t len)
{
	FILE	*e = fmemopen(errs, len, "w");
	char	*p = write_tmp(text);
	int	 rc;

	config_defaults(c);
	rc = config_load(c, p, e);
	fclose(e);
	unlink(p);
	return rc;
}

START_TEST(defaults)
{
	struct config	 c;

	config_defaults(&c);
	ck_assert_int_eq(c.port, 8470);
	ck_assert_str_eq(c.listen, "127.0.0.1");
	ck_assert_str_eq(c.devices, "all");
	ck_assert_str_eq(c.library, "auto");
	ck_assert_int_gt(c.case_deadline, 0);
	ck_assert_int_eq(c.cache_autotuning, 1);
	ck_assert(c.shrink_budget > 0);
	ck_assert_int_eq(c.shrink_after, 1);
	ck_assert(c.first_call_budget == 0);
	ck_assert(c.first_call_hold == 10);
	ck_assert_int_eq(c.fail_fast, 1);
	ck_assert_int_eq(c.key_affinity, 0);
	ck_assert_int_eq(c.speed, VERDICT_SPEED_ALL);
	ck_assert(c.autotune_rep == 5);
	ck_assert_str_eq(c.cuda_sync, "auto");
	ck_assert_str_eq(c.compile_backend, "inductor");
	ck_assert_str_eq(c.default_ops, "");
	ck_assert(c.critical_ratio == 16);
}
END_TEST

/* [verdict] critical_ratio: a factor >= 1; anything else names its line */
START_TEST(critical_ratio)
{
	struct config	 c;
	char		 errs[2048] = "";

	ck_assert_int_eq(load("[verdict]\ncritical_ratio = 8.5\n", &c, errs,
	    sizeof(errs)), 0);
	ck_assert(c.critical_ratio == 8.5);
	ck_assert_int_eq(load("[verdict]\ncritical_ratio = 1\n", &c, errs,
	    sizeof(errs)), 0);
	ck_assert(c.critical_ratio == 1);
	errs[0] = '\0';
	ck_assert_int_eq(load("[daemon]\nport = 9000\n[verdict]\n"
	    "critical_ratio = 0.5\n[verdict]\ncritical_ratio = nan\n"
	    "critical_ratio = lots\ncritical_ratio = inf\nratio = 16\n",
	    &c, errs, sizeof(errs)), -1);
	ck_assert_int_eq(c.nerrors, 5);
	ck_assert_ptr_nonnull(strstr(errs, ":4: [verdict] critical_ratio = "
	    "\"0.5\": must be a factor"));
	ck_assert_ptr_nonnull(strstr(errs, ":6: [verdict] critical_ratio"));
	ck_assert_ptr_nonnull(strstr(errs, ":7: [verdict] critical_ratio"));
	ck_assert_ptr_nonnull(strstr(errs, ":8: [verdict] critical_ratio"));
	ck_assert_ptr_nonnull(strstr(errs, ":9: [verdict] ratio = \"16\": "
	    "unknown key"));
}
END_TEST

START_TEST(consensus_keys)
{
	struct config	 c;
	char		 errs[2048] = "";

	ck_assert_int_eq(load("[runner]\ndevices = cpu:2\n[consensus]\n"
	    "split = no\nsample_per_mille = 1000\nquarantine_threshold = 3\n",
	    &c, errs, sizeof(errs)), 0);
	ck_assert_str_eq(c.devices, "cpu:2");
	ck_assert_int_eq(c.consensus_split, 0);
	ck_assert_int_eq(c.consensus_per_mille, 1000);
	ck_assert_int_eq(c.consensus_threshold, 3);
	ck_assert_int_eq(c.consensus_nccl, 2);		/* auto */
	ck_assert_int_eq(load("[consensus]\nnccl = yes\n", &c, errs,
	    sizeof(errs)), 0);
	ck_assert_int_eq(c.consensus_nccl, 1);
	ck_assert_int_eq(load("[consensus]\nnccl = sometimes\n", &c, errs,
	    sizeof(errs)), -1);
	ck_assert_ptr_nonnull(strstr(errs, "must be auto, yes or no"));
	config_defaults(&c);
	ck_assert_int_eq(c.consensus_split, 1);
	ck_assert_int_eq(c.consensus_per_mille, 20);
	ck_assert_int_eq(c.consensus_threshold, 1);
	errs[0] = '\0';
	ck_assert_int_eq(load("[runner]\ndevices = cpu:1\ndevices = cpu:9\n"
	    "devices = cpu:\n[consensus]\nsample_per_mille = 1001\n"
	    "quarantine_threshold = 0\nsplit = maybe\n", &c, errs,
	    sizeof(errs)), -1);
	ck_assert_int_eq(c.nerrors, 6);
	ck_assert_ptr_nonnull(strstr(errs, ":2: [runner] devices = \"cpu:1\""));
	ck_assert_ptr_nonnull(strstr(errs, "cpu:N (N = 2..8"));
	ck_assert_ptr_nonnull(strstr(errs, ":6: [consensus] sample_per_mille"));
	ck_assert_ptr_nonnull(strstr(errs, ":8: [consensus] split"));
}
END_TEST

START_TEST(good_file)
{
	struct config	 c;
	char		 errs[1024] = "";

	ck_assert_int_eq(load("# comment\n[daemon]\nport = 9000\nlisten = ::1\n"
	    "[runner]\ndevices = 0,1\ncase_deadline = 30\nlibrary = demolib\n"
	    "workers_per_device = 3\ncache_autotuning = no\n"
	    "shrink_budget = 2.5\ncompile_workers = 8\n"
	    "first_call_budget = 0.5\ncuda_sync = blocking\n"
	    "fail_fast = no\nfirst_call_hold = 2.5\nautotune_rep = 5\n"
	    "key_affinity = yes\nspeed = engine\nshrink_after = no\n"
	    "compile_backend = aot_eager\n"
	    "ops = add.Tensor, mul,fused::fused_add_rms_norm\n", &c, errs,
	    sizeof(errs)), 0);
	ck_assert_str_eq(c.default_ops,
	    "add.Tensor, mul,fused::fused_add_rms_norm");
	ck_assert_str_eq(c.compile_backend, "aot_eager");
	ck_assert_int_eq(c.shrink_after, 0);
	ck_assert_int_eq(c.key_affinity, 1);
	ck_assert_int_eq(c.speed, VERDICT_SPEED_ENGINE);
	ck_assert_str_eq(c.cuda_sync, "blocking");
	ck_assert_int_eq(c.fail_fast, 0);
	ck_assert(c.first_call_hold == 2.5);
	ck_assert(c.autotune_rep == 5);
	ck_assert_int_eq(c.compile_workers, 8);
	ck_assert(c.first_call_budget == 0.5);
	ck_assert(c.shrink_budget == 2.5);
	ck_assert_int_eq(c.cache_autotuning, 0);
	ck_assert_int_eq(c.port, 9000);
	ck_assert_str_eq(c.listen, "::1");
	ck_assert_str_eq(c.devices, "0,1");
	ck_assert_int_eq(c.case_deadline, 30);
	ck_assert_int_eq(c.workers_per_device, 3);
	ck_assert_str_eq(c.library, "demolib");
}
END_TEST

START_TEST(every_error_with_its_line)
{
	struct config	 c;
	char		 errs[2048] = "";

	ck_assert_int_eq(load("[daemon]\nport = 0\nport = abc\n[runner]\n"
	    "devices = gpu0\nlibrary = a;b\nnope = 1\n[api]\nthreads = 999\n"
	    "[runner]\ncache_autotuning = maybe\nshrink_budget = -1\n"
	    "first_call_budget = soon\ncuda_sync = sleepy\n"
	    "fail_fast = sometimes\nfirst_call_hold = -3\nautotune_rep = 1e9\n"
	    "key_affinity = often\nspeed = fast\nshrink_after = later\n"
	    "compile_backend = aot eager; rm\n"
	    "ops = add.Tensor, mul;rm\n", &c, errs, sizeof(errs)), -1);
	ck_assert_int_eq(c.nerrors, 18);
	ck_assert_ptr_nonnull(strstr(errs, ":22: [runner] ops = \"add.Tensor, "
	    "mul;rm\": must list keys or names"));
	ck_assert_ptr_nonnull(strstr(errs, ":21: [runner] compile_backend = "
	    "\"aot eager; rm\": must be a torch.compile backend's name"));
	ck_assert_ptr_nonnull(strstr(errs, ":20: [runner] shrink_after = "
	    "\"later\": must be yes or no"));
	ck_assert_ptr_nonnull(strstr(errs, ":19: [runner] speed"));
	ck_assert_ptr_nonnull(strstr(errs, ":18: [runner] key_affinity"));
	ck_assert_ptr_nonnull(strstr(errs, ":17: [runner] autotune_rep"));
	ck_assert_ptr_nonnull(strstr(errs, ":15: [runner] fail_fast"));
	ck_assert_ptr_nonnull(strstr(errs, ":16: [runner] first_call_hold"));
	ck_assert_ptr_nonnull(strstr(errs, ":14: [runner] cuda_sync"));
	ck_assert_ptr_nonnull(strstr(errs, ":13: [runner] first_call_budget"));
	ck_assert_ptr_nonnull(strstr(errs, ":12: [runner] shrink_budget"));
	ck_assert_ptr_nonnull(strstr(errs, ":11: [runner] cache_autotuning"));
	ck_assert_ptr_nonnull(strstr(errs, ":2: [daemon] port"));
	ck_assert_ptr_nonnull(strstr(errs, ":3: [daemon] port"));
	ck_assert_ptr_nonnull(strstr(errs, ":5: [runner] devices"));
	ck_assert_ptr_nonnull(strstr(errs, ":6: [runner] library"));
	ck_assert_ptr_nonnull(strstr(errs, ":7: [runner] nope = \"1\": unknown key"));
	ck_assert_ptr_nonnull(strstr(errs, ":9: [api] threads"));
}
END_TEST

START_TEST(syntax_error)
{
	struct config	 c;
	char		 errs[1024] = "";

	ck_assert_int_eq(load("[daemon]\nport 8470\n", &c, errs, sizeof(errs)), -1);
	ck_assert_ptr_nonnull(strstr(errs, ":2: syntax error"));
}
END_TEST

START_TEST(every_syntax_error)
{
	struct config	 c;
	char		 errs[2048] = "";

	/* inih itself returns only the first; each one is reported */
	ck_assert_int_eq(load("[daemon]\nport 8470\n[runner\nnice = 3\n"
	    "what\n[api]\nthreads = 2\n", &c, errs, sizeof(errs)), -1);
	ck_assert_int_eq(c.nerrors, 4);
	/* inih keeps [daemon] past the broken header */
	ck_assert_ptr_nonnull(strstr(errs, ":4: [daemon] nice = \"3\": unknown"));
	ck_assert_ptr_nonnull(strstr(errs, ":2: syntax error"));
	ck_assert_ptr_nonnull(strstr(errs, ":3: syntax error"));
	ck_assert_ptr_nonnull(strstr(errs, ":5: syntax error"));
	/* values around them still applied and checked */
	ck_assert_int_eq(c.api_threads, 2);
	ck_assert(strstr(errs, ":2:") < strstr(errs, ":3:"));
	ck_assert(strstr(errs, ":3:") < strstr(errs, ":5:"));
}
END_TEST

START_TEST(long_line_keeps_the_numbers)
{
	struct config	 c;
	char		 errs[2048] = "", text[1024];

	/* line 2 is longer than inih's buffer: its own number, not applied */
	snprintf(text, sizeof(text), "[daemon]\ndatabase = /%0600d\n"
	    "port = x\nlisten = ::1\n", 0);
	ck_assert_int_eq(load(text, &c, errs, sizeof(errs)), -1);
	ck_assert_int_eq(c.nerrors, 2);
	ck_assert_ptr_nonnull(strstr(errs, ":2: line longer than"));
	ck_assert_ptr_nonnull(strstr(errs, ":3: [daemon] port = \"x\""));
	ck_assert_str_eq(c.database, "/var/lib/opscreen/opscreen.db");
	ck_assert_str_eq(c.listen, "::1");
	ck_assert_ptr_null(strstr(errs, ":4:"));
}
END_TEST

START_TEST(lists_go_on_over_indented_lines)
{
	struct config	 c;
	char		 errs[2048] = "", text[4096];
	size_t		 n;
	int		 i;

	/* runner.ops past one line (inih reads 197 characters of one): each
	 * indented line goes on with the list, a comment between is a comment */
	n = snprintf(text, sizeof(text), "[runner]\nops = add,sub,\n");
	for (i = 0; i < 30; i++)
		n += snprintf(text + n, sizeof(text) - n, "    fused::entry_point_%02d,"
		    "name_%02d\n%s", i, i, i == 3 ? "# a comment\n" : "");
	snprintf(text + n, sizeof(text) - n, "  neg\ndtypes = float32\n"
	    "    bfloat16\n");
	ck_assert_int_eq(load(text, &c, errs, sizeof(errs)), 0);
	ck_assert_uint_eq(strlen(c.default_ops), 8 + 30 * 30 + 3);	/* > 197 */
	ck_assert(!strncmp(c.default_ops, "add,sub,fused::entry_point_00,name_00,"
	    "fused::entry_point_01,", 60));
	ck_assert_ptr_nonnull(strstr(c.default_ops, "name_03,fused::entry_point_04"));
	ck_assert_ptr_nonnull(strstr(c.default_ops, "fused::entry_point_29,name_29,neg"));
	ck_assert_str_eq(c.default_dtypes, "float32,bfloat16");
	/* any other key: an error naming its line, the value above kept */
	ck_assert_int_eq(load("[daemon]\nport = 8471\n  8472\n", &c, errs,
	    sizeof(errs)), -1);
	ck_assert_ptr_nonnull(strstr(errs, ":3: [daemon] port: an indented line "
	    "goes on with a list"));
	ck_assert_int_eq(c.port, 8471);
	/* a continued list is checked whole */
	ck_assert_int_eq(load("[runner]\nops = add\n  s!b\n", &c, errs,
	    sizeof(errs)), -1);
	ck_assert_ptr_nonnull(strstr(errs, ":3: [runner] ops, continued with "
	    "\"s!b\": must list keys or names"));
}
END_TEST

START_TEST(duplicate_key)
{
	struct config	 c;
	char		 errs[1024] = "";

	ck_assert_int_eq(load("[daemon]\nport = 1\n[runner]\nnice = 1\n"
	    "[daemon]\nport = 2\n", &c, errs, sizeof(errs)), -1);
	ck_assert_int_eq(c.nerrors, 1);
	ck_assert_ptr_nonnull(strstr(errs, ":6: [daemon] port = \"2\": "
	    "duplicate key (first set on line 2)"));
	ck_assert_int_eq(c.port, 1);
	/* the same key in another section is another key */
	ck_assert_int_eq(load("[daemon]\nport = 1\n[api]\nthreads = 2\n", &c,
	    errs, sizeof(errs)), 0);
}
END_TEST

START_TEST(listen_address)
{
	struct config	 c;
	char		 errs[1024] = "";

	ck_assert_int_eq(load("[daemon]\nlisten = localhost\n", &c, errs,
	    sizeof(errs)), -1);
	ck_assert_ptr_nonnull(strstr(errs, ":2: [daemon] listen = \"localhost\": "
	    "must be an IPv4 or IPv6 address"));
	ck_assert_int_eq(config_set(&c, "daemon.listen", "10.0.0.300"), -1);
	ck_assert_int_eq(config_set(&c, "daemon.listen", "0.0.0.0"), 0);
	ck_assert(config_listen_loopback("127.0.0.1"));
	ck_assert(config_listen_loopback("127.1.2.3"));
	ck_assert(config_listen_loopback("::1"));
	ck_assert(config_listen_loopback("::ffff:127.0.0.1"));
	ck_assert(!config_listen_loopback("0.0.0.0"));
	ck_assert(!config_listen_loopback("::"));
	ck_assert(!config_listen_loopback("192.168.1.1"));
	ck_assert(!config_listen_loopback("::ffff:10.0.0.1"));
}
END_TEST

START_TEST(check_named_paths)
{
	struct config	 c;
	char		 errs[2048] = "", dir[] = "/tmp/check_config_d.XXXXXX";
	char		 tok[128];
	FILE		*e, *fp;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(tok, sizeof(tok), "%s/token", dir);
	ck_assert_ptr_nonnull(fp = fopen(tok, "w"));
	fputs("0123456789abcdef0123\n", fp);
	fclose(fp);
	config_defaults(&c);
	snprintf(c.database, sizeof(c.database), "%s/nope/x.db", dir);
	snprintf(c.token_file, sizeof(c.token_file), "%s", tok);
	chmod(tok, 0640);
	e = fmemopen(errs, sizeof(errs), "w");
	ck_assert_int_eq(config_check(&c, "f.conf", e), 2);
	fclose(e);
	ck_assert_ptr_nonnull(strstr(errs, "/nope' does not exist"));
	ck_assert_ptr_nonnull(strstr(errs, "mode 0640 lets others read"));

	snprintf(c.database, sizeof(c.database), "%s/x.db", dir);
	chmod(tok, 0600);
	e = fmemopen(errs, sizeof(errs), "w");
	ck_assert_int_eq(config_check(&c, "f.conf", e), 0);
	fclose(e);
	chmod(tok, 0604);
	e = fmemopen(errs, sizeof(errs), "w");
	ck_assert_int_eq(config_check(&c, "f.conf", e), 1);
	fclose(e);
	/* a missing token file only disables POST/DELETE: no error */
	unlink(tok);
	e = fmemopen(errs, sizeof(errs), "w");
	ck_assert_int_eq(config_check(&c, "f.conf", e), 0);
	fclose(e);
	/* a split screen that no device would check is refused */
	c.consensus_per_mille = 0;
	e = fmemopen(errs, sizeof(errs), "w");
	ck_assert_int_eq(config_check(&c, "f.conf", e), 1);
	fclose(e);
	ck_assert_ptr_nonnull(strstr(errs, "[consensus] split = yes needs"));
	c.consensus_split = 0;
	e = fmemopen(errs, sizeof(errs), "w");
	ck_assert_int_eq(config_check(&c, "f.conf", e), 0);
	fclose(e);
	rmdir(dir);
}
END_TEST

START_TEST(overrides)
{
	struct config	 c;

	config_defaults(&c);
	ck_assert_int_eq(config_set(&c, "daemon.port", "1234"), 0);
	ck_assert_int_eq(c.port, 1234);
	ck_assert_int_eq(config_set(&c, "daemon.port", "x"), -1);
	ck_assert_int_eq(config_set(&c, "noschema", "x"), -1);
	ck_assert_int_eq(config_set(&c, "runner.devices", "cpu"), 0);
	ck_assert_str_eq(c.devices, "cpu");
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("config");
	TCase	*t = tcase_create("config");
	SRunner	*r;
	int	 failed;

	tcase_add_test(t, defaults);
	tcase_add_test(t, good_file);
	tcase_add_test(t, critical_ratio);
	tcase_add_test(t, every_error_with_its_line);
	tcase_add_test(t, syntax_error);
	tcase_add_test(t, overrides);
	tcase_add_test(t, every_syntax_error);
	tcase_add_test(t, long_line_keeps_the_numbers);
	tcase_add_test(t, lists_go_on_over_indented_lines);
	tcase_add_test(t, duplicate_key);
	tcase_add_test(t, consensus_keys);
	tcase_add_test(t, listen_address);
	tcase_add_test(t, check_named_paths);
	suite_add_tcase(s, t);
	r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? 1 : 0;
}
