/*
 * Unit tests for daemon/verdict.c on hand-computed figures.
 *
 * cc -std=c11 -Wall -Wextra -Werror -Iprobes -Idaemon -o build/check_verdict \
 *     tests/unit/check_verdict.c daemon/verdict.c \
 *     $(pkg-config --cflags --libs check jansson) -lm
 */
#include <string.h>
#include <check.h>
#include <jansson.h>

#include "verdict.h"

static json_t *
spec(void)
{
	return json_pack("{s:s,s:s,s:b}", "key", "add.Tensor", "compare",
	    "float", "inplace", 0);
}

/* A float OUT of shape [4,5] with the given figures. */
static json_t *
fout(double ea_c, double ea_n, double eu_c, double eu_n, double r,
    double omax, int nf_c)
{
	return json_pack("{s:i,s:{s:[ii],s:s},s:{s:[ii],s:s},s:s,s:i,"
	    "s:f,s:f,s:f,s:f,s:f,s:f,s:i,s:i}",
	    "index", 0,
	    "cand", "shape", 4, 5, "dtype", "bfloat16",
	    "native", "shape", 4, 5, "dtype", "bfloat16",
	    "kind", "float", "numel", 20,
	    "err_abs_c", ea_c, "err_abs_n", ea_n, "err_ulp_c", eu_c,
	    "err_ulp_n", eu_n, "R", r, "oracle_max", omax,
	    "nonfinite_mismatch_c", nf_c, "nonfinite_mismatch_n", 0);
}

static json_t *
eout(const char *kind, int mc, int mn)
{
	return json_pack("{s:i,s:{s:[i],s:s},s:{s:[i],s:s},s:s,s:i,s:i,s:i}",
	    "index", 0,
	    "cand", "shape", 100, "dtype", "int64",
	    "native", "shape", 100, "dtype", "int64",
	    "kind", kind, "numel", 100, "mismatch_c", mc, "mismatch_n", mn);
}

/* A status-ok RESULT owning the given outputs (stolen). */
static json_t *
ok1(json_t *o)
{
	return json_pack("{s:s,s:i,s:s,s:[o]}", "type", "result", "id", 1,
	    "status", "ok", "outputs", o);
}

static json_t *
ok2(json_t *a, json_t *b)
{
	return json_pack("{s:s,s:i,s:s,s:[o,o]}", "type", "result", "id", 1,
	    "status", "ok", "outputs", a, b);
}

/* verdict_case under a given critical_ratio */
static struct case_verdict
judge_at(json_t *result, double ratio)
{
	struct case_verdict	 v;
	json_t			*s = spec();

	ck_assert_ptr_nonnull(result);
	ck_assert_int_eq(verdict_case(s, result, ratio, &v), 0);
	json_decref(s);
	json_decref(result);
	return v;
}

static struct case_verdict
judge(json_t *result)
{
	return judge_at(result, VERDICT_CRITICAL_RATIO);
}

START_TEST(ratio_to_native)
{
	struct case_verdict	v;

	/* err_abs_n 0.01, R 0.001: allowance 0.02 */
	v = judge(ok1(fout(0.02, 0.01, 0.5, 0.5, 0.001, 3, 0)));
	ck_assert_int_eq(v.status, CASE_PASS);
	ck_assert_str_eq(v.reason, "ok");
	ck_assert_double_le(v.score, 1.0);
	v = judge(ok1(fout(0.0201, 0.01, 0.5, 0.5, 0.001, 3, 0)));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "numeric_error");
	ck_assert_double_gt(v.score, 1.0);
	ck_assert_ptr_nonnull(strstr(v.detail, "err_abs"));
	/* ULP side: err_ulp_n 10 allows 20 */
	v = judge(ok1(fout(0.001, 0.01, 20, 10, 0.001, 3, 0)));
	ck_assert_int_eq(v.status, CASE_PASS);
	v = judge(ok1(fout(0.001, 0.01, 20.1, 10, 0.001, 3, 0)));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_ptr_nonnull(strstr(v.detail, "err_ulp 20.1 > max(2*err_ulp_n=20, 1)"));
	ck_assert_double_eq_tol(v.score, 20.1 / 20, 1e-12);
}
END_TEST

START_TEST(floor_2r)
{
	struct case_verdict	v;

	/* native exact: the floor 2R = 0.008 is all that is allowed */
	v = judge(ok1(fout(0.008, 0, 0.9, 0, 0.004, 3, 0)));
	ck_assert_int_eq(v.status, CASE_PASS);
	v = judge(ok1(fout(0.00801, 0, 0.9, 0, 0.004, 3, 0)));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "numeric_error");
	/* R = 0 and native exact: any error fails */
	v = judge(ok1(fout(1e-9, 0, 0.5, 0, 0, 3, 0)));
	ck_assert_int_eq(v.status, CASE_FAIL);
	v = judge(ok1(fout(0, 0, 0, 0, 0, 3, 0)));
	ck_assert_int_eq(v.status, CASE_PASS);
}
END_TEST

START_TEST(floor_1ulp)
{
	struct case_verdict	v;

	v = judge(ok1(fout(0.001, 0.001, 1.0, 0, 0.001, 3, 0)));
	ck_assert_int_eq(v.status, CASE_PASS);
	v = judge(ok1(fout(0.001, 0.001, 1.01, 0, 0.001, 3, 0)));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_ptr_nonnull(strstr(v.detail, "err_ulp"));
	/* native at 0.4 ULP still allows 1 ULP */
	v = judge(ok1(fout(0.001, 0.001, 0.99, 0.4, 0.001, 3, 0)));
	ck_assert_int_eq(v.status, CASE_PASS);
}
END_TEST

START_TEST(nonfinite)
{
	struct case_verdict	v;

	json_t			*o;

	v = judge(ok1(fout(0, 0, 0, 0, 0.001, 3, 1)));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "nonfinite_mismatch");
	ck_assert_double_gt(v.score, 1e6);
	/* mismatches where the candidate returns native's value are excused */
	o = fout(0, 0, 0, 0, 0.001, 3, 3);
	json_object_set_new(o, "nonfinite_as_native_c", json_integer(3));
	v = judge(ok1(o));
	ck_assert_int_eq(v.status, CASE_PASS);
	ck_assert_int_eq(v.native_inaccurate, 1);
	/* ... and only those */
	o = fout(0, 0, 0, 0, 0.001, 3, 3);
	json_object_set_new(o, "nonfinite_as_native_c", json_integer(2));
	v = judge(ok1(o));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "nonfinite_mismatch");
	ck_assert_ptr_nonnull(strstr(v.detail, "1 positions"));
	/* excused positions still leave the finite figures to judge */
	o = fout(0.5, 0.001, 0, 0, 0.001, 3, 2);
	json_object_set_new(o, "nonfinite_as_native_c", json_integer(2));
	v = judge(ok1(o));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "numeric_error");
}
END_TEST

START_TEST(shape_dtype)
{
	struct case_verdict	 v;
	json_t			*o;

	/* broadcast bug: figures absent because shapes differ */
	o = json_pack("{s:i,s:{s:[ii],s:s},s:{s:[ii],s:s},s:s,s:i}",
	    "index", 0, "cand", "shape", 1, 5, "dtype", "float32",
	    "native", "shape", 4, 5, "dtype", "float32", "kind", "float",
	    "numel", 20);
	v = judge(ok1(o));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "shape_mismatch");
	ck_assert_double_eq(v.score, 1e9);
	ck_assert_ptr_nonnull(strstr(v.detail, "[1,5]"));
	ck_assert_ptr_nonnull(strstr(v.detail, "[4,5]"));

	o = fout(0, 0, 0, 0, 0.001, 3, 0);
	json_object_set_new(json_object_get(o, "cand"), "dtype",
	    json_string("float32"));
	v = judge(ok1(o));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "dtype_mismatch");

	/* a 0-d output against a [1] output is a shape difference */
	o = json_pack("{s:i,s:{s:[],s:s},s:{s:[i],s:s},s:s,s:i,s:i}",
	    "index", 0, "cand", "shape", "dtype", "int64",
	    "native", "shape", 1, "dtype", "int64", "kind", "exact",
	    "numel", 1, "mismatch_c", 0);
	v = judge(ok1(o));
	ck_assert_str_eq(v.reason, "shape_mismatch");
}
END_TEST

START_TEST(exact_kinds)
{
	struct case_verdict	 v;
	json_t			*o;

	v = judge(ok1(eout("exact", 0, 0)));
	ck_assert_int_eq(v.status, CASE_PASS);
	o = eout("exact", 3, 0);
	json_object_set_new(o, "first_bad_c", json_pack("[i]", 17));
	v = judge(ok1(o));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "mismatch");
	ck_assert_ptr_nonnull(strstr(v.detail, "3 of 100"));
	ck_assert_ptr_nonnull(strstr(v.detail, "[17]"));
	/* empty exact output without counts passes */
	o = json_pack("{s:i,s:{s:[ii],s:s},s:{s:[ii],s:s},s:s,s:i}",
	    "index", 0, "cand", "shape", 0, 2, "dtype", "int64",
	    "native", "shape", 0, 2, "dtype", "int64", "kind", "exact",
	    "numel", 0);
	v = judge(ok1(o));
	ck_assert_int_eq(v.status, CASE_PASS);
	/* shape_only: only shapes */
	o = json_pack("{s:i,s:{s:[i],s:s},s:{s:[i],s:s},s:s}",
	    "index", 0, "cand", "shape", 3, "dtype", "int64",
	    "native", "shape", 3, "dtype", "int64", "kind", "shape_only");
	v = judge(ok1(o));
	ck_assert_int_eq(v.status, CASE_PASS);
}
END_TEST

START_TEST(sort_ties)
{
	struct case_verdict	v;

	/* indices that differ from the oracle's but point at equal values */
	v = judge(ok2(eout("sort_values", 0, 0), eout("sort_indices", 0, 0)));
	ck_assert_int_eq(v.status, CASE_PASS);
	v = judge(ok2(eout("sort_values", 0, 0), eout("sort_indices", 2, 0)));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "mismatch");
	ck_assert_ptr_nonnull(strstr(v.detail, "out1 (sort_indices)"));
	v = judge(ok2(eout("sort_values", 5, 0), eout("sort_indices", 1, 0)));
	ck_assert_ptr_nonnull(strstr(v.detail, "out0 (sort_values)"));
}
END_TEST

START_TEST(errors)
{
	struct case_verdict	 v;
	char			 big[2000];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "RuntimeError: ", 14);
	v = judge(json_pack("{s:s,s:i,s:s,s:s}", "type", "result", "id", 1,
	    "status", "cand_error", "cand_error", big));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "raises");
	ck_assert_double_eq(v.score, 1e9);
	ck_assert_uint_eq(strlen(v.detail), sizeof(v.detail) - 1);
	ck_assert_int_eq(strncmp(v.detail, "RuntimeError: ", 14), 0);

	v = judge(json_pack("{s:s,s:s,s:s}", "status", "both_error",
	    "cand_error", "a", "native_error", "b"));
	ck_assert_int_eq(v.status, CASE_NA);
	ck_assert_str_eq(v.reason, "not_applicable");

	v = judge(json_pack("{s:s,s:s}", "status", "native_error",
	    "native_error", "b"));
	ck_assert_int_eq(v.status, CASE_NA);
	ck_assert_str_eq(v.reason, "native_raises");

	v = judge(json_pack("{s:s,s:s}", "status", "harness_error",
	    "harness_error", "bad spec"));
	ck_assert_int_eq(v.status, CASE_ERROR);
	ck_assert_str_eq(v.reason, "harness_error");
	ck_assert_str_eq(v.detail, "bad spec");
}
END_TEST

/* A passing trace case's RESULT with its "trace" facts (stolen). */
static json_t *
traced(json_t *facts)
{
	json_t	*r = ok1(fout(1e-3, 1e-3, 1.0, 1.0, 1e-4, 1.0, 0));

	json_object_set_new(r, "trace", facts);
	return r;
}

START_TEST(trace_recompiles)
{
	struct case_verdict	 v;

	/* one dynamic compile over two shapes: the documented count */
	v = judge(traced(json_pack("{s:i,s:i}", "compiles", 1,
	    "dynamic_compiles", VERDICT_TRACE_COMPILES)));
	ck_assert_int_eq(v.status, CASE_PASS);
	/* more, native once: the library's recompile */
	v = judge(traced(json_pack("{s:i,s:i}", "dynamic_compiles", 2,
	    "native_dynamic_compiles", 1)));
	ck_assert_int_eq(v.status, CASE_HAZARD);
	ck_assert_str_eq(v.reason, "recompiles");
	/* native recompiles as often: not the library's */
	v = judge(traced(json_pack("{s:i,s:i}", "dynamic_compiles", 2,
	    "native_dynamic_compiles", 2)));
	ck_assert_int_eq(v.status, CASE_PASS);
	/* a dynamic compile that raises where native's does not: loud */
	v = judge(traced(json_pack("{s:s,s:i}", "dynamic_compiles",
	    "Unsupported: data-dependent", "native_dynamic_compiles", 1)));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "raises");
	ck_assert_int_eq(verdict_severity(&v), SEVERITY_LOUD);
	/* both raise: nothing to hold the library to */
	v = judge(traced(json_pack("{s:s,s:s}", "dynamic_compiles", "x",
	    "native_dynamic_compiles", "y")));
	ck_assert_int_eq(v.status, CASE_PASS);
	/* a wrong output stays what it is */
	v = judge(json_pack("{s:s,s:i,s:s,s:[o],s:{s:i,s:i}}", "type", "result",
	    "id", 1, "status", "ok", "outputs", fout(1.0, 1e-3, 300.0, 1.0,
	    1e-4, 1.0, 0), "trace", "dynamic_compiles", 3,
	    "native_dynamic_compiles", 1));
	ck_assert_int_eq(v.status, CASE_FAIL);
}
END_TEST

START_TEST(degenerate)
{
	struct case_verdict	 v;
	json_t			*o;

	v = judge(ok1(fout(0, 0, 0, 0, 0, 0, 0)));
	ck_assert_int_eq(v.status, CASE_DEGENERATE);
	ck_assert_str_eq(v.reason, "degenerate_oracle");
	/* every oracle value non-finite: no finite max to report */
	o = fout(0, 0, 0, 0, 0, 0, 0);
	json_object_set_new(o, "oracle_max", json_null());
	v = judge(ok1(o));
	ck_assert_int_eq(v.status, CASE_DEGENERATE);
	/* an empty output is not degenerate */
	o = json_pack("{s:i,s:{s:[ii],s:s},s:{s:[ii],s:s},s:s,s:i}",
	    "index", 0, "cand", "shape", 3, 0, "dtype", "float16",
	    "native", "shape", 3, 0, "dtype", "float16", "kind", "float",
	    "numel", 0);
	v = judge(ok1(o));
	ck_assert_int_eq(v.status, CASE_PASS);
	/* a failing second output outranks a degenerate first one */
	v = judge(ok2(fout(0, 0, 0, 0, 0, 0, 0), eout("exact", 1, 0)));
	ck_assert_int_eq(v.status, CASE_FAIL);
	/* NaN/inf positions are judged even where no oracle value is finite:
	 * a candidate that drops an all-NaN oracle's NaNs fails */
	o = fout(0, 0, 0, 0, 0, 0, 20);
	json_object_set_new(o, "oracle_max", json_real(0));
	v = judge(ok1(o));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "nonfinite_mismatch");
	/* every finite oracle value is 0: a candidate off the zeros by more
	 * than native fails, one within native's error is degenerate */
	v = judge(ok1(fout(0.5, 0, 0, 0, 0, 0, 0)));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "numeric_error");
	ck_assert_ptr_nonnull(strstr(v.detail, "every finite oracle value is 0"));
	v = judge(ok1(fout(0.5, 0.3, 0, 0, 0, 0, 0)));
	ck_assert_int_eq(v.status, CASE_DEGENERATE);
	/* a shape bug is reported even where the oracle is degenerate */
	o = fout(0, 0, 0, 0, 0, 0, 0);
	json_object_set_new(json_object_get(o, "cand"), "shape",
	    json_pack("[i]", 5));
	v = judge(ok1(o));
	ck_assert_str_eq(v.reason, "shape_mismatch");
}
END_TEST

/*
 * Inputs without elements: an all-zero (or NaN) oracle is the answer for
 * nothing, judged as it is, never regenerated; a tensor with an element
 * beside them keeps the degenerate rule.
 */
START_TEST(degenerate_of_empty_inputs)
{
	struct case_verdict	 v;
	json_t			*s, *r;

	s = json_pack("{s:s,s:s,s:s,s:[{s:s,s:[iii],s:s}],s:{}}", "key",
	    "sum.dim_IntList", "class", "empty", "compare", "float", "args",
	    "t", "tensor", "shape", 3, 0, 5, "dtype", "float32", "kwargs");
	r = ok1(fout(0, 0, 0, 0, 0, 0, 0));
	ck_assert_int_eq(verdict_case(s, r, VERDICT_CRITICAL_RATIO, &v), 0);
	ck_assert_int_eq(v.status, CASE_PASS);
	ck_assert_str_eq(v.reason, "ok");
	/* a candidate off the zeros by more than native still fails */
	json_decref(r);
	r = ok1(fout(0.5, 0, 0, 0, 0, 0, 0));
	ck_assert_int_eq(verdict_case(s, r, VERDICT_CRITICAL_RATIO, &v), 0);
	ck_assert_int_eq(v.status, CASE_FAIL);
	json_decref(r);
	/* an empty list element beside a tensor with elements: degenerate */
	json_decref(s);
	s = json_pack("{s:s,s:s,s:[{s:s,s:[{s:s,s:[i]},{s:s,s:[i]}]}],s:{}}",
	    "key", "cat", "compare", "float", "args", "t", "tensors", "v",
	    "t", "tensor", "shape", 0, "t", "tensor", "shape", 4, "kwargs");
	r = ok1(fout(0, 0, 0, 0, 0, 0, 0));
	ck_assert_int_eq(verdict_case(s, r, VERDICT_CRITICAL_RATIO, &v), 0);
	ck_assert_int_eq(v.status, CASE_DEGENERATE);
	json_decref(r);
	/* an out= buffer is not an input */
	json_decref(s);
	s = json_pack("{s:s,s:s,s:[{s:s,s:[i]}],s:{s:{s:s,s:[i]}}}", "key",
	    "sum.IntList_out", "compare", "float", "args", "t", "tensor",
	    "shape", 0, "kwargs", "out", "t", "out", "shape", 1);
	r = ok1(fout(0, 0, 0, 0, 0, 0, 0));
	ck_assert_int_eq(verdict_case(s, r, VERDICT_CRITICAL_RATIO, &v), 0);
	ck_assert_int_eq(v.status, CASE_PASS);
	json_decref(r);
	json_decref(s);
}
END_TEST

START_TEST(oracle_failure)
{
	struct case_verdict	 v;
	json_t			*r, *o, *s = spec();

	/* the runner's report of a failed oracle: no figures */
	o = json_pack("{s:i,s:{s:[ii],s:s},s:{s:[ii],s:s},s:s,s:i}",
	    "index", 0, "cand", "shape", 4, 5, "dtype", "float32",
	    "native", "shape", 4, 5, "dtype", "float32", "kind", "float",
	    "numel", 20);
	r = ok1(o);
	json_object_set_new(r, "oracle_error", json_string("TypeError: x"));
	ck_assert_int_eq(verdict_case(s, r, VERDICT_CRITICAL_RATIO, &v), 0);
	ck_assert_int_eq(v.status, CASE_ERROR);
	ck_assert_str_eq(v.reason, "harness_error");
	ck_assert_ptr_nonnull(strstr(v.detail, "TypeError: x"));
	/* a shape bug is still a shape bug */
	json_object_set_new(json_object_get(o, "cand"), "shape",
	    json_pack("[i]", 5));
	ck_assert_int_eq(verdict_case(s, r, VERDICT_CRITICAL_RATIO, &v), 0);
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "shape_mismatch");
	json_decref(r);

	/* figures absent without a reason: the runner is at fault */
	o = fout(0, 0, 0, 0, 0.001, 3, 0);
	json_object_del(o, "oracle_max");
	r = ok1(o);
	ck_assert_int_eq(verdict_case(s, r, VERDICT_CRITICAL_RATIO, &v), -1);
	ck_assert_int_eq(v.status, CASE_ERROR);
	json_decref(r);

	/* the candidate returned fewer outputs */
	o = eout("sort_indices", 0, 0);
	json_object_set_new(o, "cand", json_null());
	v = judge(ok2(eout("sort_values", 0, 0), o));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "shape_mismatch");
	json_decref(s);
}
END_TEST

START_TEST(native_inaccurate)
{
	struct case_verdict	v;

	v = judge(ok1(fout(0.05, 0.05, 3, 3, 0.004, 3, 0)));
	ck_assert_int_eq(v.status, CASE_PASS);
	ck_assert_int_eq(v.native_inaccurate, 1);
	v = judge(ok1(fout(0.03, 0.03, 3, 3, 0.004, 3, 0)));
	ck_assert_int_eq(v.native_inaccurate, 0);
}
END_TEST

START_TEST(malformed)
{
	struct case_verdict	 v;
	json_t			*s = spec(), *r, *o;

	r = json_string("nope");
	ck_assert_int_eq(verdict_case(s, r, VERDICT_CRITICAL_RATIO, &v), -1);
	ck_assert_int_eq(v.status, CASE_ERROR);
	ck_assert_str_eq(v.reason, "harness_error");
	json_decref(r);

	r = json_pack("{s:i}", "id", 1);
	ck_assert_int_eq(verdict_case(s, r, VERDICT_CRITICAL_RATIO, &v), -1);
	json_decref(r);

	r = json_pack("{s:s}", "status", "weird");
	ck_assert_int_eq(verdict_case(s, r, VERDICT_CRITICAL_RATIO, &v), -1);
	json_decref(r);

	r = json_pack("{s:s}", "status", "ok");
	ck_assert_int_eq(verdict_case(s, r, VERDICT_CRITICAL_RATIO, &v), -1);
	ck_assert_str_eq(v.reason, "harness_error");
	json_decref(r);

	/* an op that returns nothing (_assert_async) and did not raise passes */
	r = json_pack("{s:s,s:[]}", "status", "ok", "outputs");
	ck_assert_int_eq(verdict_case(s, r, VERDICT_CRITICAL_RATIO, &v), 0);
	ck_assert_int_eq(v.status, CASE_PASS);
	ck_assert_str_eq(v.detail, "no output to compare");
	json_decref(r);

	/* float figures missing while shapes agree */
	o = fout(0, 0, 0, 0, 0.001, 3, 0);
	json_object_del(o, "err_ulp_c");
	r = ok1(o);
	ck_assert_int_eq(verdict_case(s, r, VERDICT_CRITICAL_RATIO, &v), -1);
	ck_assert_int_eq(v.status, CASE_ERROR);
	json_decref(r);

	/* string where a number belongs */
	o = fout(0, 0, 0, 0, 0.001, 3, 0);
	json_object_set_new(o, "err_abs_c", json_string("0.1"));
	r = ok1(o);
	ck_assert_int_eq(verdict_case(s, r, VERDICT_CRITICAL_RATIO, &v), -1);
	json_decref(r);

	o = eout("exact", 0, 0);
	json_object_set_new(o, "kind", json_string("fuzzy"));
	r = ok1(o);
	ck_assert_int_eq(verdict_case(s, r, VERDICT_CRITICAL_RATIO, &v), -1);
	json_decref(r);

	o = eout("exact", 0, 0);
	json_object_del(o, "mismatch_c");
	r = ok1(o);
	ck_assert_int_eq(verdict_case(s, r, VERDICT_CRITICAL_RATIO, &v), -1);
	json_decref(r);

	o = eout("exact", 0, 0);
	json_object_set_new(json_object_get(o, "cand"), "shape",
	    json_string("[100]"));
	r = ok1(o);
	ck_assert_int_eq(verdict_case(s, r, VERDICT_CRITICAL_RATIO, &v), -1);
	json_decref(r);

	/* a NULL spec is tolerated */
	r = ok1(eout("exact", 0, 0));
	ck_assert_int_eq(verdict_case(NULL, r, VERDICT_CRITICAL_RATIO, &v), 0);
	ck_assert_int_eq(v.status, CASE_PASS);
	json_decref(r);
	json_decref(s);
}
END_TEST

START_TEST(inplace_alias)
{
	struct case_verdict	 v;
	json_t			*s, *r;

	s = json_pack("{s:s,s:b}", "compare", "float", "inplace", 1);
	r = ok1(eout("exact", 0, 0));
	json_object_set_new(r, "alias_c", json_false());
	ck_assert_int_eq(verdict_case(s, r, VERDICT_CRITICAL_RATIO, &v), 0);
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "alias_mismatch");
	json_object_set_new(r, "alias_c", json_true());
	ck_assert_int_eq(verdict_case(s, r, VERDICT_CRITICAL_RATIO, &v), 0);
	ck_assert_int_eq(v.status, CASE_PASS);
	json_decref(r);
	json_decref(s);
}
END_TEST

static struct case_verdict
mk(enum case_status st, const char *reason, double score)
{
	struct case_verdict	v;

	memset(&v, 0, sizeof(v));
	v.status = st;
	snprintf(v.reason, sizeof(v.reason), "%s", reason);
	snprintf(v.detail, sizeof(v.detail), "detail %s %g", reason, score);
	v.score = score;
	return v;
}

START_TEST(fold_rules)
{
	struct verdict_fold	f;
	struct case_verdict	v;
	char			reason[64];

	verdict_fold_init(&f);
	ck_assert_ptr_null(verdict_fold_result(&f, reason, sizeof(reason)));

	/* all not applicable: the key does not take this dtype */
	v = mk(CASE_NA, "not_applicable", 0);
	verdict_fold_add(&f, 1, "same_shape", &v);
	v = mk(CASE_NA, "native_raises", 0);
	verdict_fold_add(&f, 2, "scalar", &v);
	ck_assert_ptr_null(verdict_fold_result(&f, reason, sizeof(reason)));
	ck_assert_str_eq(reason, "not_applicable");

	v = mk(CASE_PASS, "ok", 0.5);
	verdict_fold_add(&f, 3, "same_shape", &v);
	ck_assert_str_eq(verdict_fold_result(&f, reason, sizeof(reason)),
	    "verified");
	ck_assert_int_eq(f.n, 3);
	ck_assert_int_eq(f.pass, 1);
	ck_assert_int_eq(f.na, 2);

	/* a case whose oracle stayed degenerate judged nothing: the passed
	 * case decides; with no case passed the key x dtype is inconclusive */
	v = mk(CASE_DEGENERATE, "degenerate_oracle", 0);
	verdict_fold_add(&f, 4, "reduction", &v);
	ck_assert_str_eq(verdict_fold_result(&f, reason, sizeof(reason)),
	    "verified");
	ck_assert_int_eq(f.worst_case, 4);
	{
		struct verdict_fold	g;

		verdict_fold_init(&g);
		verdict_fold_add(&g, 4, "reduction", &v);
		v = mk(CASE_NA, "not_applicable", 0);
		verdict_fold_add(&g, 2, "scalar", &v);
		ck_assert_str_eq(verdict_fold_result(&g, reason,
		    sizeof(reason)), "inconclusive");
		ck_assert_str_eq(reason, "degenerate_oracle");
	}

	v = mk(CASE_FAIL, "numeric_error", 3.0);
	verdict_fold_add(&f, 5, "reduction", &v);
	v = mk(CASE_FAIL, "shape_mismatch", 1e9);
	verdict_fold_add(&f, 6, "broadcast", &v);
	v = mk(CASE_FAIL, "numeric_error", 7.0);
	verdict_fold_add(&f, 7, "reduction", &v);
	ck_assert_str_eq(verdict_fold_result(&f, reason, sizeof(reason)),
	    "broken");
	ck_assert_str_eq(reason, "shape_mismatch");
	ck_assert_int_eq(f.worst_case, 6);
	ck_assert_str_eq(f.worst_class, "broadcast");
	ck_assert_str_eq(f.worst_detail, "detail shape_mismatch 1e+09");

	/* a later inconclusive case does not displace the evidence */
	v = mk(CASE_ERROR, "harness_error", 0);
	verdict_fold_add(&f, 8, "scalar", &v);
	ck_assert_int_eq(f.worst_case, 6);

	/* a hang outranks every wrong answer */
	v = mk(CASE_TIMEOUT, "timeout", 0);
	verdict_fold_add(&f, 9, "contract", &v);
	ck_assert_str_eq(verdict_fold_result(&f, reason, sizeof(reason)),
	    "broken");
	ck_assert_str_eq(reason, "timeout");
	ck_assert_int_eq(f.worst_case, 9);
	ck_assert_double_eq(f.worst_score, 1e12);
	ck_assert_int_eq(f.n, 9);
	ck_assert_int_eq(f.fail, 3);
	ck_assert_int_eq(f.timeout, 1);
	ck_assert_int_eq(f.error, 1);
	ck_assert_int_eq(f.degenerate, 1);
}
END_TEST

START_TEST(fold_crash_and_error)
{
	struct verdict_fold	f;
	struct case_verdict	v;
	char			reason[64];

	verdict_fold_init(&f);
	v = mk(CASE_PASS, "ok", 0);
	verdict_fold_add(&f, 1, "same_shape", &v);
	v = mk(CASE_ERROR, "harness_error", 0);
	verdict_fold_add(&f, 2, "same_shape", &v);
	ck_assert_str_eq(verdict_fold_result(&f, reason, sizeof(reason)),
	    "inconclusive");
	ck_assert_str_eq(reason, "harness_error");

	verdict_fold_init(&f);
	v = mk(CASE_CRASH, "crash", 0);
	verdict_fold_add(&f, 3, "broadcast", &v);
	ck_assert_str_eq(verdict_fold_result(&f, NULL, 0), "broken");
	ck_assert_str_eq(f.worst_reason, "crash");
	ck_assert_int_eq(f.crash, 1);

	ck_assert_str_eq(case_status_name(CASE_PASS), "pass");
	ck_assert_str_eq(case_status_name(CASE_DEGENERATE), "degenerate");
	ck_assert_str_eq(case_status_name(CASE_CRASH), "crash");
}
END_TEST

/* A stat OUT: p-values of candidate and native at alpha. */
static json_t *
sout(double p_c, double p_n, double alpha)
{
	return json_pack("{s:i,s:{s:[i],s:s},s:{s:[i],s:s},s:s,s:i,s:f,s:f,"
	    "s:f,s:s}", "index", 0,
	    "cand", "shape", 100000, "dtype", "float32",
	    "native", "shape", 100000, "dtype", "float32",
	    "kind", "stat", "numel", 100000, "p_c", p_c, "p_n", p_n,
	    "alpha", alpha, "test", "ks uniform");
}

START_TEST(stat_rule)
{
	struct case_verdict	 v;
	json_t			*sp = spec(), *r;

	r = ok1(sout(0.3, 0.5, 1e-4));
	ck_assert_int_eq(verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v), 0);
	ck_assert_int_eq(v.status, CASE_PASS);
	json_decref(r);
	/* p below alpha: the candidate's distribution is wrong */
	r = ok1(sout(1e-9, 0.5, 1e-4));
	verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v);
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "wrong_distribution");
	ck_assert(v.score > 9.0 && v.score < 10.5);
	json_decref(r);
	/* exactly alpha passes: the rule is p >= alpha */
	r = ok1(sout(1e-4, 0.5, 1e-4));
	verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v);
	ck_assert_int_eq(v.status, CASE_PASS);
	json_decref(r);
	/* native rejected too: the test is not trusted, never a pass */
	r = ok1(sout(1e-9, 1e-6, 1e-4));
	verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v);
	ck_assert_int_eq(v.status, CASE_ERROR);
	ck_assert_str_eq(v.reason, "stat_unreliable");
	json_decref(r);
	/* the level is VERDICT_STAT_ALPHA whatever alpha a runner sends */
	r = ok1(sout(1e-3, 0.5, 0.9));
	verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v);
	ck_assert_int_eq(v.status, CASE_PASS);
	json_decref(r);
	r = ok1(sout(1e-9, 0.5, 1e-12));
	verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v);
	ck_assert_int_eq(v.status, CASE_FAIL);
	json_decref(r);
	r = ok1(sout(VERDICT_STAT_ALPHA * 0.99, 0.5, 1e-4));
	verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v);
	ck_assert_int_eq(v.status, CASE_FAIL);
	json_decref(r);
	/* no p-value: malformed */
	r = ok1(sout(0.5, 0.5, 1e-4));
	json_object_del(json_array_get(json_object_get(r, "outputs"), 0), "p_c");
	ck_assert_int_eq(verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v), -1);
	json_decref(r);
	json_decref(sp);
}
END_TEST

START_TEST(out_alias)
{
	struct case_verdict	 v;
	json_t			*sp, *r;

	sp = json_pack("{s:s,s:s,s:s}", "key", "abs.out", "compare", "float",
	    "mutates", "out");
	r = ok1(fout(0, 0, 0, 0, 0, 1, 0));
	json_object_set_new(r, "alias_c", json_false());
	verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v);
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "alias_mismatch");
	ck_assert(strstr(v.detail, "out=") != NULL);
	json_object_set_new(r, "alias_c", json_true());
	verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v);
	ck_assert_int_eq(v.status, CASE_PASS);
	json_decref(r);
	json_decref(sp);
}
END_TEST

/* A compile-class case: correct output, first call took ms. */
static void
compile_case(double ms, double budget_ms, struct case_verdict *v)
{
	json_t	*sp, *r;

	sp = json_pack("{s:s,s:s,s:s,s:{s:s,s:i,s:f}}", "key", "topk",
	    "compare", "float", "class", "compile", "ladder", "param", "k",
	    "value", 512, "budget_ms", budget_ms);
	r = ok1(fout(0, 0, 0, 0, 0, 1, 0));
	json_object_set_new(r, "times", json_pack("{s:f}", "cand_first_ms",
	    ms));
	ck_assert_int_eq(verdict_case(sp, r, VERDICT_CRITICAL_RATIO, v), 0);
	json_decref(r);
	json_decref(sp);
}

START_TEST(compile_budget)
{
	struct case_verdict	v;

	compile_case(59000, 60000, &v);
	ck_assert_int_eq(v.status, CASE_PASS);
	compile_case(61000, 60000, &v);
	ck_assert_int_eq(v.status, CASE_HAZARD);
	ck_assert_str_eq(v.reason, "compile_time");
	ck_assert(strstr(v.detail, "k=512") != NULL);
	ck_assert_str_eq(case_status_name(v.status), "hazard");
	/* a smaller budget in the case wins over the default */
	compile_case(2000, 1000, &v);
	ck_assert_int_eq(v.status, CASE_HAZARD);
}
END_TEST

START_TEST(ladder_fit)
{
	/* ms = 10 * k: linear growth; at 4 x 4096 = 163,840 ms */
	double	k[] = { 8, 64, 512, 4096 };
	double	lin[] = { 80, 640, 5120, 40960 };
	double	flat[] = { 900, 1000, 950, 1100 };
	double	at = 0;

	ck_assert_int_eq(verdict_ladder_hazard(k, lin, 4, 60000, 4, &at), 1);
	ck_assert(at > 163000 && at < 164700);
	ck_assert_int_eq(verdict_ladder_hazard(k, lin, 4, 60000, 1, &at), 0);
	ck_assert(at > 40000 && at < 41900);
	ck_assert_int_eq(verdict_ladder_hazard(k, flat, 4, 60000, 4, &at), 0);
	/* one distinct step cannot be fitted */
	ck_assert_int_eq(verdict_ladder_hazard(k, lin, 1, 60000, 4, &at), -1);
}
END_TEST

START_TEST(fold_hazard)
{
	struct verdict_fold	f;
	struct case_verdict	v;
	char			why[64];
	double			k[] = { 8, 64, 512, 4096 };
	double			ms[] = { 100, 800, 6400, 51200 };
	int			i;

	/* ladder growth: every step under budget, the fit crosses it */
	verdict_fold_init(&f);
	memset(&v, 0, sizeof(v));
	v.status = CASE_PASS;
	for (i = 0; i < 4; i++) {
		verdict_fold_add(&f, 10 + i, "compile", &v);
		verdict_fold_ladder(&f, 10 + i, k[i], ms[i], 60000);
	}
	ck_assert_str_eq(verdict_fold_result(&f, why, sizeof(why)), "verified");
	verdict_fold_finish(&f, 4);
	ck_assert_str_eq(verdict_fold_result(&f, why, sizeof(why)), "hazard");
	ck_assert_str_eq(why, "compile_growth");
	ck_assert_int_eq(f.worst_case, 13);	/* the largest step */
	ck_assert_str_eq(f.worst_class, "compile");
	ck_assert_int_eq(f.n, 4);
	/* a failure outranks a hazard */
	v.status = CASE_FAIL;
	snprintf(v.reason, sizeof(v.reason), "numeric_error");
	verdict_fold_add(&f, 20, "same_shape", &v);
	ck_assert_str_eq(verdict_fold_result(&f, why, sizeof(why)), "broken");
	ck_assert_int_eq(f.worst_case, 20);
	/* a hazard outranks an inconclusive case */
	verdict_fold_init(&f);
	v.status = CASE_ERROR;
	snprintf(v.reason, sizeof(v.reason), "harness_error");
	verdict_fold_add(&f, 1, "same_shape", &v);
	v.status = CASE_HAZARD;
	snprintf(v.reason, sizeof(v.reason), "compile_time");
	v.score = 1.2;
	verdict_fold_add(&f, 2, "compile", &v);
	ck_assert_str_eq(verdict_fold_result(&f, why, sizeof(why)), "hazard");
	ck_assert_int_eq(f.worst_case, 2);
}
END_TEST

START_TEST(oracle_fault)
{
	struct case_verdict	 v;
	json_t			*sp = spec(), *r;

	/* the two fp64 oracles disagree: no verdict, even on a perfect result */
	r = ok1(fout(0, 0, 0, 0, 0, 1, 0));
	json_object_set_new(r, "oracle_check", json_pack("{s:b,s:s}", "ok", 0,
	    "detail", "output 0: kernels/ and torch fp64 oracles differ"));
	verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v);
	ck_assert_int_eq(v.status, CASE_ERROR);
	ck_assert_str_eq(v.reason, "oracle_fault");
	ck_assert(strstr(v.detail, "differ") != NULL);
	/* agreement changes nothing */
	json_object_set_new(r, "oracle_check", json_pack("{s:b}", "ok", 1));
	verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v);
	ck_assert_int_eq(v.status, CASE_PASS);
	/* raw differences: the tolerance is VERDICT_ORACLE_REL, decided here */
	json_object_set_new(r, "oracle_check", json_pack("{s:i,s:[{s:f,s:f,s:i},"
	    "{s:f,s:f,s:i}]}", "outputs", 2, "diffs", "max_abs", 0.0, "max_rel",
	    0.0, "nonfinite", 0, "max_abs", 1e-13, "max_rel",
	    VERDICT_ORACLE_REL, "nonfinite", 0));
	verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v);
	ck_assert_int_eq(v.status, CASE_PASS);
	json_object_set_new(r, "oracle_check", json_pack("{s:i,s:[{s:f,s:f,s:i},"
	    "{s:f,s:f,s:i}]}", "outputs", 2, "diffs", "max_abs", 0.0, "max_rel",
	    0.0, "nonfinite", 0, "max_abs", 1e-12, "max_rel",
	    VERDICT_ORACLE_REL * 2, "nonfinite", 0));
	verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v);
	ck_assert_int_eq(v.status, CASE_ERROR);
	ck_assert_str_eq(v.reason, "oracle_fault");
	ck_assert(strstr(v.detail, "output 1") != NULL);
	json_object_set_new(r, "oracle_check", json_pack("{s:i,s:[{s:f,s:f,s:i}]}",
	    "outputs", 1, "diffs", "max_abs", 0.0, "max_rel", 0.0, "nonfinite",
	    3));
	verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v);
	ck_assert_str_eq(v.reason, "oracle_fault");
	/* another number of outputs */
	json_object_set_new(r, "oracle_check", json_pack("{s:i,s:[],s:s}",
	    "outputs", 2, "diffs", "detail", "kernels/ gives 2 outputs, torch 1"));
	verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v);
	ck_assert_str_eq(v.reason, "oracle_fault");
	/* kernels/ raised: no comparison, no finding */
	json_object_set_new(r, "oracle_check", json_pack("{s:s}", "error",
	    "KernelError: x"));
	verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v);
	ck_assert_int_eq(v.status, CASE_PASS);
	json_decref(r);
	json_decref(sp);
}
END_TEST

START_TEST(out_of_memory)
{
	struct case_verdict	 v;
	json_t			*sp = spec(), *r;

	r = json_pack("{s:s,s:s}", "status", "cand_error", "cand_error",
	    "OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB");
	verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v);
	ck_assert_int_eq(v.status, CASE_ERROR);
	ck_assert_str_eq(v.reason, "out_of_memory");
	json_decref(r);
	/* any other exception is the library's */
	r = json_pack("{s:s,s:s}", "status", "cand_error", "cand_error",
	    "RuntimeError: memory layout not supported");
	verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v);
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "raises");
	json_decref(r);
	json_decref(sp);
}
END_TEST

/* The runner's memory gate: a 2^31-element case not run is inconclusive. */
START_TEST(skipped_by_the_runner)
{
	struct case_verdict	 v;
	struct verdict_fold	 f;
	json_t			*sp = spec(), *r;

	r = json_pack("{s:s,s:s,s:[]}", "status", "skipped", "skip_reason",
	    "needs 6.2 GiB, 3.1 GiB free", "outputs");
	ck_assert_int_eq(verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v), 0);
	ck_assert_int_eq(v.status, CASE_SKIPPED);
	ck_assert_str_eq(v.reason, "insufficient_memory");
	ck_assert_str_eq(v.detail, "needs 6.2 GiB, 3.1 GiB free");
	verdict_fold_init(&f);
	verdict_fold_add(&f, 1, "same_shape", &v);
	ck_assert_str_eq(verdict_fold_result(&f, NULL, 0), "inconclusive");
	json_decref(r);
	json_decref(sp);
}
END_TEST

/* A status-ok RESULT whose first call gave `first` and whose call on guarded
 * inputs (poison `side`) read (`reads`, figures `gout`) or wrote past them. */
static json_t *
guarded(json_t *first, const char *side, int reads, int writes, json_t *gout)
{
	/* the runner's raw observations; verdict_guard decides */
	json_t	*g = json_pack("{s:s,s:b,s:b,s:b,s:[]}", "poison", side, "intact",
		    !writes, "changed", reads, "reproduced", reads, "outputs");

	if (gout != NULL)
		json_array_append_new(json_object_get(g, "outputs"), gout);
	return json_pack("{s:s,s:i,s:s,s:[o],s:o}", "type", "result", "id", 1,
	    "status", "ok", "outputs", first, "guard", g);
}

/* Older runners sent the flags; a changed output not reproduced is none. */
START_TEST(guard_facts)
{
	struct case_verdict	 v;
	json_t			*sp = spec(), *r, *g;

	r = guarded(eout("exact", 0, 0), "low", 1, 0, eout("exact", 1, 0));
	g = json_object_get(r, "guard");
	json_object_set_new(g, "reproduced", json_false());
	ck_assert_int_eq(verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v), 0);
	ck_assert_int_eq(v.status, CASE_PASS);
	/* the old form: reads/writes flags */
	json_object_del(g, "intact");
	json_object_del(g, "changed");
	json_object_del(g, "reproduced");
	json_object_set_new(g, "reads", json_true());
	json_object_set_new(g, "writes", json_false());
	verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v);
	ck_assert_str_eq(v.reason, "reads_outside_inputs");
	json_object_set_new(g, "reads", json_false());
	json_object_set_new(g, "writes", json_true());
	verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v);
	ck_assert_str_eq(v.reason, "writes_outside_inputs");
	json_decref(r);
	json_decref(sp);
}
END_TEST

START_TEST(guard_call)
{
	struct case_verdict	 v;

	/* a right first call, another output beside low poison: broken */
	v = judge(guarded(eout("exact", 0, 0), "low", 1, 0, eout("exact", 1,
	    0)));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "reads_outside_inputs");
	ck_assert_ptr_nonnull(strstr(v.detail, "lowest value"));
	ck_assert_ptr_nonnull(strstr(v.detail, "(then out0 (exact): 1 of 100"));
	/* a wrong first call too: the guard's reason, the first call noted */
	v = judge(guarded(eout("exact", 3, 0), "high", 1, 0, eout("exact", 1,
	    0)));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "reads_outside_inputs");
	ck_assert_ptr_nonnull(strstr(v.detail, "highest value"));
	ck_assert_ptr_nonnull(strstr(v.detail, "unguarded: "));
	/* the poison overwritten, the output unchanged */
	v = judge(guarded(eout("exact", 0, 0), "low", 0, 1, NULL));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "writes_outside_inputs");
	/* a guard that changed nothing is no finding */
	v = judge(guarded(eout("exact", 0, 0), "high", 0, 0, NULL));
	ck_assert_int_eq(v.status, CASE_PASS);
	/* an output that changed beside the poison but is still within the
	 * rule (atomics summing in another order): no finding */
	v = judge(guarded(fout(0.001, 0.001, 1, 1, 0.001, 1, 0), "low", 1, 0,
	    fout(0.0012, 0.001, 1, 1, 0.001, 1, 0)));
	ck_assert_int_eq(v.status, CASE_PASS);
	/* ... and the same change far off the oracle is a read */
	v = judge(guarded(fout(0.001, 0.001, 1, 1, 0.001, 1, 0), "low", 1, 0,
	    fout(3e38, 0.001, 1e9, 1, 0.001, 1, 0)));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "reads_outside_inputs");
}
END_TEST

/* A status-ok in-place RESULT of a views case: `out` (stolen) and what the
 * candidate's and native's calls changed outside the view. */
static json_t *
viewed(json_t *out, int c, int first, int n)
{
	json_t	*r = ok1(out);

	json_object_set_new(r, "alias_c", json_true());
	json_object_set_new(r, "alias_n", json_true());
	json_object_set_new(r, "outside_view_changed", json_pack("{s:i,s:i,s:i}",
	    "outside", 135, "c", c, "n", n));
	if (c > 0)
		json_object_set_new(json_object_get(r, "outside_view_changed"),
		    "first_c", json_integer(first));
	return r;
}

START_TEST(views_outside)
{
	struct case_verdict	 v;
	json_t			*sp = json_pack("{s:s,s:s,s:s,s:b}", "key",
				    "sigmoid_", "compare", "float", "mutates",
				    "self", "inplace", 1), *r;

	/* nothing changed outside the view: the output's rule alone */
	r = viewed(eout("exact", 0, 0), 0, 0, 0);
	ck_assert_int_eq(verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v), 0);
	ck_assert_int_eq(v.status, CASE_PASS);
	json_decref(r);
	/* the view right, bytes outside it changed: broken */
	r = viewed(eout("exact", 0, 0), 37, 12, 0);
	ck_assert_int_eq(verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v), 0);
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "writes_outside_view");
	ck_assert_int_eq(v.severity, SEVERITY_CRITICAL);
	ck_assert_str_eq(v.detail, "wrote 37 elements outside the view (first "
	    "at storage offset 12)");
	json_decref(r);
	/* a wrong view too: the outside write is the reason, the view noted */
	r = viewed(eout("exact", 3, 0), 1, 0, 0);
	ck_assert_int_eq(verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v), 0);
	ck_assert_str_eq(v.reason, "writes_outside_view");
	ck_assert_ptr_nonnull(strstr(v.detail, "wrote 1 element outside"));
	ck_assert_ptr_nonnull(strstr(v.detail, "; in the view: "));
	json_decref(r);
	/* ... and after an alias mismatch */
	r = viewed(eout("exact", 0, 0), 5, 2, 0);
	json_object_set_new(r, "alias_c", json_false());
	ck_assert_int_eq(verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v), 0);
	ck_assert_str_eq(v.reason, "writes_outside_view");
	json_decref(r);
	/* native changed the base too: not applicable, whatever the candidate */
	r = viewed(eout("exact", 3, 0), 37, 12, 4);
	ck_assert_int_eq(verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v), 0);
	ck_assert_int_eq(v.status, CASE_NA);
	ck_assert_str_eq(v.reason, "not_applicable");
	ck_assert_ptr_nonnull(strstr(v.detail, "native wrote 4 elements"));
	json_decref(r);
	json_decref(sp);
}
END_TEST

/* A status-ok RESULT whose first call gave `first` and whose call 4 on the
 * same inputs gave other bits, with figures `again` (both stolen). */
static json_t *
repeated(json_t *first, json_t *again)
{
	return json_pack("{s:s,s:i,s:s,s:[o],s:{s:i,s:[o]}}", "type", "result",
	    "id", 1, "status", "ok", "outputs", first, "repeat", "call", 4,
	    "outputs", again);
}

/* the steady-call gate travels with the case; the runner holds no copy */
START_TEST(steady_gate_in_the_spec)
{
	json_t	*sp = json_pack("{s:s,s:{s:i,s:f}}", "key", "add.Tensor",
	    "steady", "calls", 1, "max_ms", 1.0);
	json_t	*st;

	verdict_case_steady(sp, VERDICT_SPEED_ENGINE);
	st = json_object_get(sp, "steady");
	ck_assert(json_is_object(st));
	ck_assert_int_eq(json_object_size(st), 3);
	/* no class: no speed calls in the engine classes' mode */
	ck_assert_int_eq(json_integer_value(json_object_get(st, "speed")), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(st, "calls")),
	    VERDICT_STEADY_CALLS);
	ck_assert(json_real_value(json_object_get(st, "max_ms")) ==
	    VERDICT_STEADY_MAX_MS);
	ck_assert_str_eq(json_string_value(json_object_get(sp, "key")),
	    "add.Tensor");
	/* the repeat rule's call is the last of them */
	ck_assert_int_eq(VERDICT_STEADY_CALLS, 3);
	ck_assert(VERDICT_STEADY_MAX_MS == 500.0);
	json_decref(sp);
}
END_TEST

/*
 * runner.speed: every case (all), the classes that call the op as an
 * engine does (engine), or none (off)
 */
START_TEST(speed_calls_by_class)
{
	static const char *const timed[] = { "same_shape", "reduction",
	    "contract", "accumulation" };
	static const char *const not_timed[] = { "broadcast", "scalar",
	    "noncontig", "dtype_exotic", "edge_values", "compile", "bootstrap",
	    "random", "views", "empty", "options", "nonsense" };
	json_t	*sp;
	size_t	 i;

	for (i = 0; i < sizeof(timed) / sizeof(timed[0]); i++) {
		sp = json_pack("{s:s}", "class", timed[i]);
		verdict_case_steady(sp, VERDICT_SPEED_ENGINE);
		ck_assert_int_eq(json_integer_value(json_object_get(
		    json_object_get(sp, "steady"), "speed")), VERDICT_SPEED_CALLS);
		verdict_case_steady(sp, VERDICT_SPEED_ALL);
		ck_assert_int_eq(json_integer_value(json_object_get(
		    json_object_get(sp, "steady"), "speed")), VERDICT_SPEED_CALLS);
		verdict_case_steady(sp, VERDICT_SPEED_OFF);
		ck_assert_int_eq(json_integer_value(json_object_get(
		    json_object_get(sp, "steady"), "speed")), 0);
		json_decref(sp);
	}
	for (i = 0; i < sizeof(not_timed) / sizeof(not_timed[0]); i++) {
		sp = json_pack("{s:s}", "class", not_timed[i]);
		verdict_case_steady(sp, VERDICT_SPEED_ENGINE);
		ck_assert_msg(json_integer_value(json_object_get(json_object_get(
		    sp, "steady"), "speed")) == 0, "%s", not_timed[i]);
		verdict_case_steady(sp, VERDICT_SPEED_ALL);
		ck_assert_msg(json_integer_value(json_object_get(json_object_get(
		    sp, "steady"), "speed")) == VERDICT_SPEED_CALLS, "%s",
		    not_timed[i]);
		json_decref(sp);
	}
	ck_assert_int_eq(VERDICT_SPEED_CALLS, 5);
}
END_TEST

START_TEST(repeat_call)
{
	struct case_verdict	 v;

	/* call 1 right, call 4 wrong: broken, the failing call's evidence */
	v = judge(repeated(eout("exact", 0, 0), eout("exact", 7, 0)));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "nondeterministic");
	ck_assert_ptr_nonnull(strstr(v.detail, "call 4 on the same inputs"));
	ck_assert_ptr_nonnull(strstr(v.detail, "7 "));
	/* call 1 wrong, call 4 right: the same */
	v = judge(repeated(eout("exact", 3, 0), eout("exact", 0, 0)));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "nondeterministic");
	ck_assert_ptr_nonnull(strstr(v.detail, "call 1: "));
	/* both wrong: the worse, noted as differing */
	v = judge(repeated(fout(0.5, 0.001, 50, 1, 0.001, 1, 0),
	    fout(0.9, 0.001, 90, 1, 0.001, 1, 0)));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "numeric_error");
	ck_assert_ptr_nonnull(strstr(v.detail, "different outputs"));
	ck_assert_ptr_nonnull(strstr(v.detail, "0.9"));
	/* both within the rule (float atomics reorder sums): a pass */
	v = judge(repeated(fout(0.001, 0.001, 1, 1, 0.001, 1, 0),
	    fout(0.0012, 0.001, 1, 1, 0.001, 1, 0)));
	ck_assert_int_eq(v.status, CASE_PASS);
	/* a repeat without figures is malformed, not ignored */
	{
		json_t	*sp = spec(), *r = json_pack("{s:s,s:s,s:[o],s:{s:i}}",
		    "type", "result", "status", "ok", "outputs",
		    eout("exact", 0, 0), "repeat", "call", 4);

		ck_assert_int_eq(verdict_case(sp, r, VERDICT_CRITICAL_RATIO, &v), -1);
		ck_assert_int_eq(v.status, CASE_ERROR);
		ck_assert_str_eq(v.reason, "harness_error");
		json_decref(r);
		json_decref(sp);
	}
}
END_TEST

/* One vocabulary: names, ranks in order, parse round trip, served JSON. */
START_TEST(vocabulary)
{
	enum verdict	 v;
	json_t		*a;
	int		 i;

	ck_assert_str_eq(verdict_name(VERDICT_VERIFIED), "verified");
	ck_assert_str_eq(verdict_name(VERDICT_BROKEN), "broken");
	ck_assert_int_lt(verdict_rank(VERDICT_VERIFIED),
	    verdict_rank(VERDICT_WITHHELD));
	ck_assert_int_lt(verdict_rank(VERDICT_WITHHELD),
	    verdict_rank(VERDICT_INCONCLUSIVE));
	ck_assert_int_lt(verdict_rank(VERDICT_INCONCLUSIVE),
	    verdict_rank(VERDICT_HAZARD));
	ck_assert_int_lt(verdict_rank(VERDICT_HAZARD),
	    verdict_rank(VERDICT_BROKEN));
	for (i = 0; i < VERDICT_NVERDICTS; i++) {
		ck_assert_int_eq(verdict_parse(verdict_name((enum verdict)i),
		    &v), 0);
		ck_assert_int_eq(v, i);
	}
	ck_assert_int_eq(verdict_parse("pass", &v), -1);
	ck_assert_int_eq(verdict_parse(NULL, &v), -1);
	a = verdict_vocabulary();
	ck_assert_int_eq(json_array_size(a), VERDICT_NVERDICTS);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(a,
	    4), "name")), "broken");
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(a,
	    4), "rank")), verdict_rank(VERDICT_BROKEN));
	json_decref(a);
}
END_TEST

/* "skipped" is parsed as itself, not as the fallback for unknown words. */
START_TEST(status_parse_skipped)
{
	struct verdict_fold	f;
	struct case_verdict	v;
	char			why[48];

	ck_assert_int_eq(case_status_parse("skipped"), CASE_SKIPPED);
	ck_assert_int_eq(case_status_parse("pass"), CASE_PASS);
	ck_assert_int_eq(case_status_parse("hazard"), CASE_HAZARD);
	ck_assert_int_eq(case_status_parse("no such word"), CASE_ERROR);
	ck_assert_int_eq(case_status_parse(NULL), CASE_ERROR);
	ck_assert_str_eq(case_status_name(CASE_SKIPPED), "skipped");
	/* a passed case and a skipped one: nothing measured the skip */
	verdict_fold_init(&f);
	memset(&v, 0, sizeof(v));
	v.status = CASE_PASS;
	verdict_fold_add(&f, 1, "correctness", &v);
	v.status = case_status_parse("skipped");
	snprintf(v.reason, sizeof(v.reason), "key_budget");
	verdict_fold_add(&f, 2, "correctness", &v);
	verdict_fold_finish(&f, 4);
	ck_assert_int_eq(f.skipped, 1);
	ck_assert_int_eq(f.error, 0);
	ck_assert_str_eq(verdict_fold_result(&f, why, sizeof(why)),
	    "inconclusive");
	ck_assert_str_eq(why, "key_budget");
}
END_TEST

/*
 * Float errors: numerics above the bound and up to 16 times it, critical
 * past 16 times; with both measures over their bound the smaller ratio.
 * fout(ea_c, ea_n, eu_c, eu_n, R, omax, nf): allow_a = max(2 ea_n, 2R),
 * allow_u = max(2 eu_n, 1).
 */
START_TEST(severity_float)
{
	struct case_verdict	v;

	/* ULP measure alone: 16 ULP against 1 allowed is numerics ... */
	v = judge(ok1(fout(0.001, 0.01, 16, 0.25, 0.001, 3, 0)));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_str_eq(v.reason, "numeric_error");
	ck_assert_int_eq(v.severity, SEVERITY_NUMERICS);
	ck_assert_int_eq(verdict_severity(&v), SEVERITY_NUMERICS);
	/* ... 16.01 is critical */
	v = judge(ok1(fout(0.001, 0.01, 16.01, 0.25, 0.001, 3, 0)));
	ck_assert_int_eq(v.severity, SEVERITY_CRITICAL);
	/* just over the bound: numerics */
	v = judge(ok1(fout(0.001, 0.01, 1.01, 0.25, 0.001, 3, 0)));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_int_eq(v.severity, SEVERITY_NUMERICS);
	/* absolute measure alone: allow_a = 0.02; 0.32 is 16x, 0.33 more */
	v = judge(ok1(fout(0.32, 0.01, 0.5, 0.5, 0.001, 3, 0)));
	ck_assert_int_eq(v.severity, SEVERITY_NUMERICS);
	v = judge(ok1(fout(0.33, 0.01, 0.5, 0.5, 0.001, 3, 0)));
	ck_assert_int_eq(v.severity, SEVERITY_CRITICAL);
	/* both over: a 0-d output 3 ULP off whose rounding error was tiny
	 * (2R = 0.0002 allows 1/50 of the 0.01 error: ratio 50 there, 3 on
	 * the ULP measure): numerics, with the score still the larger */
	v = judge(ok1(fout(0.01, 0, 3, 0, 0.0001, 3, 0)));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_int_eq(v.severity, SEVERITY_NUMERICS);
	ck_assert_double_eq_tol(v.score, 50, 1e-9);
	/* both far over: critical */
	v = judge(ok1(fout(1.0, 0.01, 40, 0.5, 0.001, 3, 0)));
	ck_assert_int_eq(v.severity, SEVERITY_CRITICAL);
	/* an error where nothing is allowed (R 0, native exact) */
	v = judge(ok1(fout(1e-9, 0, 0.5, 0, 0, 3, 0)));
	ck_assert_int_eq(v.status, CASE_FAIL);
	ck_assert_int_eq(v.severity, SEVERITY_CRITICAL);
	/* a pass has none */
	v = judge(ok1(fout(0.02, 0.01, 0.5, 0.5, 0.001, 3, 0)));
	ck_assert_int_eq(v.status, CASE_PASS);
	ck_assert_int_eq(verdict_severity(&v), SEVERITY_NONE);
}
END_TEST

/* [verdict] critical_ratio moves the line between numerics and critical */
START_TEST(severity_ratio_configured)
{
	struct case_verdict	v;

	v = judge_at(ok1(fout(0.001, 0.01, 5, 0.25, 0.001, 3, 0)), 4);
	ck_assert_int_eq(v.severity, SEVERITY_CRITICAL);
	v = judge_at(ok1(fout(0.001, 0.01, 5, 0.25, 0.001, 3, 0)), 8);
	ck_assert_int_eq(v.severity, SEVERITY_NUMERICS);
	v = judge_at(ok1(fout(0.001, 0.01, 100, 0.25, 0.001, 3, 0)), 100);
	ck_assert_int_eq(v.severity, SEVERITY_NUMERICS);
	/* 1: every float failure is critical */
	v = judge_at(ok1(fout(0.001, 0.01, 1.01, 0.25, 0.001, 3, 0)), 1);
	ck_assert_int_eq(v.severity, SEVERITY_CRITICAL);
}
END_TEST

/* NaN/inf: critical unless every differing position has a non-finite input */
START_TEST(severity_nonfinite)
{
	struct case_verdict	v;
	json_t			*o;

	v = judge(ok1(fout(0.01, 0.01, 0.5, 0.5, 0.001, 3, 4)));
	ck_assert_str_eq(v.reason, "nonfinite_mismatch");
	ck_assert_int_eq(v.severity, SEVERITY_CRITICAL);
	o = fout(0.01, 0.01, 0.5, 0.5, 0.001, 3, 4);
	json_object_set_new(o, "nonfinite_at_input_c", json_integer(4));
	v = judge(ok1(o));
	ck_assert_str_eq(v.reason, "nonfinite_mismatch");
	ck_assert_int_eq(v.severity, SEVERITY_NUMERICS);
	ck_assert_ptr_nonnull(strstr(v.detail, "where an input is NaN/inf"));
	/* one position of the four where the inputs are finite */
	o = fout(0.01, 0.01, 0.5, 0.5, 0.001, 3, 4);
	json_object_set_new(o, "nonfinite_at_input_c", json_integer(3));
	v = judge(ok1(o));
	ck_assert_int_eq(v.severity, SEVERITY_CRITICAL);
	/* positions exactly as native's are not counted on either side */
	o = fout(0.01, 0.01, 0.5, 0.5, 0.001, 3, 4);
	json_object_set_new(o, "nonfinite_as_native_c", json_integer(1));
	json_object_set_new(o, "nonfinite_at_input_c", json_integer(3));
	v = judge(ok1(o));
	ck_assert_int_eq(v.severity, SEVERITY_NUMERICS);
}
END_TEST

/* the fixed ones: exact, shape, dtype, alias, distribution, raises, memory */
START_TEST(severity_fixed)
{
	struct case_verdict	 v;
	json_t			*s, *r, *o;

	v = judge(ok1(eout("exact", 1, 0)));
	ck_assert_str_eq(v.reason, "mismatch");
	ck_assert_int_eq(v.severity, SEVERITY_CRITICAL);
	o = fout(0, 0, 0, 0, 0.001, 3, 0);
	json_array_set_new(json_object_get(json_object_get(o, "cand"), "shape"),
	    0, json_integer(5));
	v = judge(ok1(o));
	ck_assert_str_eq(v.reason, "shape_mismatch");
	ck_assert_int_eq(v.severity, SEVERITY_CRITICAL);
	o = fout(0, 0, 0, 0, 0.001, 3, 0);
	json_object_set_new(json_object_get(o, "cand"), "dtype",
	    json_string("float32"));
	v = judge(ok1(o));
	ck_assert_str_eq(v.reason, "dtype_mismatch");
	ck_assert_int_eq(v.severity, SEVERITY_CRITICAL);
	v = judge(ok1(sout(1e-9, 0.5, 1e-4)));
	ck_assert_str_eq(v.reason, "wrong_distribution");
	ck_assert_int_eq(v.severity, SEVERITY_CRITICAL);
	/* raises where native succeeds: loud; a raise that faulted the
	 * device (the runner's "fatal"): critical */
	v = judge(json_pack("{s:s,s:s}", "status", "cand_error", "cand_error",
	    "RuntimeError: no kernel"));
	ck_assert_str_eq(v.reason, "raises");
	ck_assert_int_eq(v.severity, SEVERITY_LOUD);
	v = judge(json_pack("{s:s,s:s,s:b}", "status", "cand_error",
	    "cand_error", "RuntimeError: CUDA error: an illegal memory access",
	    "fatal", 1));
	ck_assert_int_eq(v.severity, SEVERITY_CRITICAL);
	/* out of memory is not judged: no severity */
	v = judge(json_pack("{s:s,s:s}", "status", "cand_error", "cand_error",
	    "OutOfMemoryError: CUDA out of memory"));
	ck_assert_int_eq(v.status, CASE_ERROR);
	ck_assert_int_eq(verdict_severity(&v), SEVERITY_NONE);
	s = json_pack("{s:s,s:b}", "compare", "float", "inplace", 1);
	r = ok1(eout("exact", 0, 0));
	json_object_set_new(r, "alias_c", json_false());
	ck_assert_int_eq(verdict_case(s, r, VERDICT_CRITICAL_RATIO, &v), 0);
	ck_assert_str_eq(v.reason, "alias_mismatch");
	ck_assert_int_eq(v.severity, SEVERITY_CRITICAL);
	json_decref(r);
	json_decref(s);
	v = judge(guarded(fout(0.001, 0.001, 1, 1, 0.001, 1, 0), "low", 1, 0,
	    fout(0.003, 0.001, 2, 1, 0.001, 1, 0)));
	ck_assert_str_eq(v.reason, "reads_outside_inputs");
	ck_assert_int_eq(v.severity, SEVERITY_CRITICAL);
	v = judge(guarded(eout("exact", 0, 0), "low", 0, 1, NULL));
	ck_assert_str_eq(v.reason, "writes_outside_inputs");
	ck_assert_int_eq(v.severity, SEVERITY_CRITICAL);
	/* crash and hang by their status; a failure without one: critical */
	v = mk(CASE_TIMEOUT, "timeout", 1e12);
	ck_assert_int_eq(verdict_severity(&v), SEVERITY_CRITICAL);
	v = mk(CASE_CRASH, "crash", 1e12);
	ck_assert_int_eq(verdict_severity(&v), SEVERITY_CRITICAL);
	v = mk(CASE_FAIL, "writes_outside_view", 1e9);
	ck_assert_int_eq(verdict_severity(&v), SEVERITY_CRITICAL);
	v = mk(CASE_SKIPPED, "fail_fast", 0);
	ck_assert_int_eq(verdict_severity(&v), SEVERITY_NONE);
}
END_TEST

/* a later call that differs: the failing call's severity */
START_TEST(severity_repeat)
{
	struct case_verdict	v;

	/* call 4 is 3 ULP off: run-to-run difference within 16x: numerics */
	v = judge(repeated(fout(0.001, 0.001, 0.5, 0.5, 0.001, 1, 0),
	    fout(0.001, 0.001, 3, 0.5, 0.001, 1, 0)));
	ck_assert_str_eq(v.reason, "nondeterministic");
	ck_assert_int_eq(v.severity, SEVERITY_NUMERICS);
	/* call 4 is 40 ULP off: critical */
	v = judge(repeated(fout(0.001, 0.001, 0.5, 0.5, 0.001, 1, 0),
	    fout(0.001, 0.001, 40, 0.5, 0.001, 1, 0)));
	ck_assert_str_eq(v.reason, "nondeterministic");
	ck_assert_int_eq(v.severity, SEVERITY_CRITICAL);
	/* call 1 was the one off, by 2 ULP: numerics */
	v = judge(repeated(fout(0.001, 0.001, 2, 0.5, 0.001, 1, 0),
	    fout(0.001, 0.001, 0.5, 0.5, 0.001, 1, 0)));
	ck_assert_str_eq(v.reason, "nondeterministic");
	ck_assert_int_eq(v.severity, SEVERITY_NUMERICS);
	/* exact outputs that change: critical */
	v = judge(repeated(eout("exact", 0, 0), eout("exact", 7, 0)));
	ck_assert_int_eq(v.severity, SEVERITY_CRITICAL);
	/* both off: the more severe call wins over the larger score */
	v = judge(repeated(fout(0.001, 0.001, 50, 0.5, 0.001, 1, 0),
	    fout(0.001, 0.001, 3, 0.5, 0.001, 1, 0)));
	ck_assert_int_eq(v.severity, SEVERITY_CRITICAL);
}
END_TEST

/* two outputs: the more severe is the case's, whatever the scores */
START_TEST(severity_outputs)
{
	struct case_verdict	 v;
	json_t			*o;

	o = fout(0.01, 0.01, 0.5, 0.5, 0.001, 3, 2);
	json_object_set_new(o, "nonfinite_at_input_c", json_integer(2));
	v = judge(ok2(o, fout(0.001, 0.01, 20, 0.5, 0.001, 3, 0)));
	ck_assert_str_eq(v.reason, "numeric_error");
	ck_assert_int_eq(v.severity, SEVERITY_CRITICAL);
}
END_TEST

/* the fold: evidence the most severe failure, ties the largest score */
START_TEST(severity_fold)
{
	struct verdict_fold	f;
	struct case_verdict	v;
	char			reason[64];

	verdict_fold_init(&f);
	v = mk(CASE_FAIL, "numeric_error", 12);
	v.severity = SEVERITY_NUMERICS;
	verdict_fold_add(&f, 1, "same_shape", &v);
	ck_assert_int_eq(f.worst_severity, SEVERITY_NUMERICS);
	v = mk(CASE_FAIL, "raises", 1e9);
	v.severity = SEVERITY_LOUD;
	verdict_fold_add(&f, 2, "contract", &v);
	ck_assert_int_eq(f.worst_case, 2);
	v = mk(CASE_FAIL, "numeric_error", 17);
	v.severity = SEVERITY_CRITICAL;
	verdict_fold_add(&f, 3, "broadcast", &v);
	v = mk(CASE_FAIL, "numeric_error", 15);
	v.severity = SEVERITY_NUMERICS;
	verdict_fold_add(&f, 4, "same_shape", &v);
	ck_assert_str_eq(verdict_fold_result(&f, reason, sizeof(reason)),
	    "broken");
	ck_assert_int_eq(f.worst_case, 3);
	ck_assert_int_eq(f.worst_severity, SEVERITY_CRITICAL);
	ck_assert_str_eq(f.worst_class, "broadcast");
	ck_assert_int_eq(f.nsev[SEVERITY_CRITICAL], 1);
	ck_assert_int_eq(f.nsev[SEVERITY_LOUD], 1);
	ck_assert_int_eq(f.nsev[SEVERITY_NUMERICS], 2);
	/* a second critical of a smaller score does not take its place; a
	 * larger one does */
	v = mk(CASE_FAIL, "mismatch", 5);
	v.severity = SEVERITY_CRITICAL;
	verdict_fold_add(&f, 5, "scalar", &v);
	ck_assert_int_eq(f.worst_case, 3);
	v = mk(CASE_TIMEOUT, "timeout", 0);
	verdict_fold_add(&f, 6, "noncontig", &v);
	ck_assert_int_eq(f.worst_case, 6);
	ck_assert_int_eq(f.nsev[SEVERITY_CRITICAL], 3);
	/* all numerics: the largest numerics */
	verdict_fold_init(&f);
	v = mk(CASE_FAIL, "numeric_error", 3);
	v.severity = SEVERITY_NUMERICS;
	verdict_fold_add(&f, 1, "same_shape", &v);
	v = mk(CASE_FAIL, "numeric_error", 9);
	v.severity = SEVERITY_NUMERICS;
	verdict_fold_add(&f, 2, "noncontig", &v);
	v = mk(CASE_PASS, "ok", 0.5);
	verdict_fold_add(&f, 3, "same_shape", &v);
	ck_assert_int_eq(f.worst_case, 2);
	ck_assert_int_eq(f.worst_severity, SEVERITY_NUMERICS);
	ck_assert_int_eq(f.nsev[SEVERITY_NUMERICS], 2);
	ck_assert_int_eq(f.nsev[SEVERITY_CRITICAL] + f.nsev[SEVERITY_LOUD], 0);
	/* a stored failure without a severity (an older store) is critical */
	v = mk(CASE_FAIL, "numeric_error", 2);
	verdict_fold_add(&f, 4, "scalar", &v);
	ck_assert_int_eq(f.worst_case, 4);
	ck_assert_int_eq(f.worst_severity, SEVERITY_CRITICAL);
}
END_TEST

START_TEST(severity_names)
{
	enum severity	 s;
	json_t		*a;
	int		 i;

	ck_assert_str_eq(severity_name(SEVERITY_CRITICAL), "critical");
	ck_assert_str_eq(severity_name(SEVERITY_LOUD), "loud");
	ck_assert_str_eq(severity_name(SEVERITY_NUMERICS), "numerics");
	ck_assert_str_eq(severity_name(SEVERITY_NONE), "");
	for (i = 0; i < VERDICT_NSEVERITIES; i++) {
		ck_assert_int_eq(severity_parse(severity_name((enum severity)i),
		    &s), 0);
		ck_assert_int_eq(s, i);
	}
	ck_assert_int_eq(severity_parse("fatal", &s), -1);
	ck_assert_int_eq(severity_parse(NULL, &s), -1);
	ck_assert(SEVERITY_NUMERICS < SEVERITY_LOUD &&
	    SEVERITY_LOUD < SEVERITY_CRITICAL);
	a = severity_vocabulary();
	ck_assert_int_eq(json_array_size(a), 3);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(a, 2),
	    "name")), "critical");
	json_decref(a);
	ck_assert(VERDICT_CRITICAL_RATIO == 16.0);
}
END_TEST

static Suite *
verdict_suite(void)
{
	Suite	*s = suite_create("verdict");
	TCase	*tc = tcase_create("core");

	tcase_add_test(tc, ratio_to_native);
	tcase_add_test(tc, vocabulary);
	tcase_add_test(tc, status_parse_skipped);
	tcase_add_test(tc, floor_2r);
	tcase_add_test(tc, floor_1ulp);
	tcase_add_test(tc, nonfinite);
	tcase_add_test(tc, shape_dtype);
	tcase_add_test(tc, exact_kinds);
	tcase_add_test(tc, sort_ties);
	tcase_add_test(tc, errors);
	tcase_add_test(tc, trace_recompiles);
	tcase_add_test(tc, degenerate);
	tcase_add_test(tc, degenerate_of_empty_inputs);
	tcase_add_test(tc, oracle_failure);
	tcase_add_test(tc, native_inaccurate);
	tcase_add_test(tc, malformed);
	tcase_add_test(tc, inplace_alias);
	tcase_add_test(tc, fold_rules);
	tcase_add_test(tc, fold_crash_and_error);
	tcase_add_test(tc, stat_rule);
	tcase_add_test(tc, out_alias);
	tcase_add_test(tc, compile_budget);
	tcase_add_test(tc, ladder_fit);
	tcase_add_test(tc, fold_hazard);
	tcase_add_test(tc, oracle_fault);
	tcase_add_test(tc, out_of_memory);
	tcase_add_test(tc, skipped_by_the_runner);
	tcase_add_test(tc, steady_gate_in_the_spec);
	tcase_add_test(tc, speed_calls_by_class);
	tcase_add_test(tc, repeat_call);
	tcase_add_test(tc, guard_call);
	tcase_add_test(tc, views_outside);
	tcase_add_test(tc, guard_facts);
	tcase_add_test(tc, severity_float);
	tcase_add_test(tc, severity_ratio_configured);
	tcase_add_test(tc, severity_nonfinite);
	tcase_add_test(tc, severity_fixed);
	tcase_add_test(tc, severity_repeat);
	tcase_add_test(tc, severity_outputs);
	tcase_add_test(tc, severity_fold);
	tcase_add_test(tc, severity_names);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr = srunner_create(verdict_suite());
	int	 nf;

	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? 0 : 1;
}
