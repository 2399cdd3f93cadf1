/* Unit tests for src/bench/report: headline figures on a hand-computed data set,
 * exact headline formatting, labels, n/a cases, determinism. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "bench/report.h"

static void add(tb_bench_results *rs, const char *mode, long it, int code, double n, double v)
{
    tb_bench_result_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.mode, sizeof r.mode, "%s", mode);
    r.iteration = it;
    r.exit_code = code;
    r.enable_tee = strcmp(mode, "no_tee") != 0;
    r.verify = !strcmp(mode, "tee_verify");
    if (n >= 0) {
        r.has |= TB_BENCH_HAS_NOTARIZATION | TB_BENCH_HAS_NOTARIZATION_PLUS_VERIFY;
        r.notarization_ms = n;
        r.notarization_plus_verify_ms = n + (v >= 0 ? v : 0);
    }
    if (v >= 0) {
        r.has |= TB_BENCH_HAS_TDX_VERIFY;
        r.tdx_verify_ms = v;
    }
    tb_err e;
    assert_int_equal(tb_bench_results_push(rs, &r, &e), 0);
}

/* no_tee 1000,1100,1091 (median 1091); tee_no_verify 1369,1400,1300 (median 1369,
 * +278 = +25.48%); tee_verify n 1300,1338,2000 v 326,300,350 -> n+v 1626,1638,2350
 * (median 1638, +547 = +50.14%); verify median 326. A failed tee_no_verify row is
 * ignored. */
static void source_like(tb_bench_results *rs)
{
    const double base[] = {1000, 1100, 1091}, tnv[] = {1369, 1400, 1300}, tv[] = {1300, 1338, 2000},
                 ver[] = {326, 300, 350};
    for (int i = 0; i < 3; i++) {
        add(rs, "no_tee", i + 1, 0, base[i], -1);
        add(rs, "tee_no_verify", i + 1, 0, tnv[i], -1);
        add(rs, "tee_verify", i + 1, 0, tv[i], ver[i]);
    }
    add(rs, "tee_no_verify", 4, 124, -1, -1);
}

static void test_headlines(void **state)
{
    (void)state;
    tb_bench_results rs = {0};
    source_like(&rs);
    tb_buf out = {0};
    tb_bench_headline h;
    tb_err e;
    tb_bench_report_opts o = {.source = "x.csv", .notary_tee = "tdx"};
    assert_int_equal(tb_bench_report_summary(&rs, &o, &out, &h, NULL, &e), 0);
    const char *t = (const char *)out.p;
    assert_true(h.tee_overhead_ok && h.verify_overhead_ok && h.verify_median_ok);
    assert_float_equal(h.tee_overhead_ms, 278, 1e-9);
    assert_float_equal(h.verify_overhead_ms, 547, 1e-9);
    assert_float_equal(h.verify_median_ms, 326, 1e-9);
    /* 3 runs a mode: never called significant, said on the line itself. */
    assert_non_null(strstr(t, "\ntee_no_verify median overhead over no_tee: +278.00 ms (+25.48%); "
                              "not significant (fewer than 6 runs): 95 % CI ["));
    assert_non_null(
        strstr(t, "\ntee_verify median notarization+verify overhead over no_tee: +547.00 ms "
                  "(+50.14%); not significant"));
    assert_non_null(strstr(t, "\ntdx verify median: 326.00 ms (n=3)\n"));
    assert_non_null(strstr(t, "notary tee: tdx\n"));
    assert_non_null(strstr(t, "runs: 10 rows, 9 successful, 1 failed\n"));
    assert_non_null(strstr(t, "FAILED tee_no_verify iteration 4: exit 124 (timeout)"));
    assert_null(strstr(t, "SIMULATED"));
    /* Same input, same text (the bootstrap is seeded). */
    tb_buf again = {0};
    assert_int_equal(tb_bench_report_summary(&rs, &o, &again, NULL, NULL, &e), 0);
    assert_int_equal(again.len, out.len);
    assert_memory_equal(again.p, out.p, out.len);
    tb_buf_clear(&again);
    tb_buf_clear(&out);
    tb_bench_results_clear(&rs);
}

static void test_simulated_and_missing(void **state)
{
    (void)state;
    tb_bench_results rs = {0};
    add(&rs, "no_tee", 1, 0, 10, -1);
    add(&rs, "no_tee", 2, 0, 20, -1);
    tb_buf out = {0};
    tb_bench_headline h;
    tb_err e;
    tb_bench_report_opts o = {.notary_tee = "sim"};
    assert_int_equal(tb_bench_report_summary(&rs, &o, &out, &h, NULL, &e), 0);
    const char *t = (const char *)out.p;
    assert_non_null(strstr(t, "SIMULATED TEE"));
    assert_false(h.tee_overhead_ok || h.verify_overhead_ok || h.verify_median_ok);
    assert_non_null(strstr(t, "tee_no_verify median overhead over no_tee: n/a"));
    assert_non_null(strstr(t, "tdx verify median: n/a"));
    assert_non_null(strstr(t, "n=2    mean=15.00 ms  median=15.00 ms  p90=19.00 ms"));
    tb_buf_clear(&out);
    tb_bench_results_clear(&rs);
    /* No rows at all. */
    assert_int_equal(tb_bench_report_summary(&rs, &o, &out, &h, NULL, &e), 0);
    assert_non_null(strstr((char *)out.p, "runs: 0 rows"));
    tb_buf_clear(&out);
}

/* Six runs a mode: a clear shift is a plain headline (the source's format); a shift
 * whose interval includes zero says "not significant: 95 % CI [lo, hi] ms, n=6". */
static void test_significance(void **state)
{
    (void)state;
    tb_bench_results rs = {0};
    const double base[] = {100, 101, 102, 103, 104, 105}, tee[] = {150, 151, 152, 153, 154, 155},
                 ver[] = {98, 104, 99, 106, 101, 103};
    for (int i = 0; i < 6; i++) {
        add(&rs, "no_tee", i + 1, 0, base[i], -1);
        add(&rs, "tee_no_verify", i + 1, 0, tee[i], -1);
        add(&rs, "tee_verify", i + 1, 0, ver[i], 0);
    }
    tb_buf out = {0};
    tb_err e;
    json_t *j = NULL;
    tb_bench_report_opts o = {.notary_tee = "tdx"};
    assert_int_equal(tb_bench_report_summary(&rs, &o, &out, NULL, &j, &e), 0);
    const char *t = (const char *)out.p;
    assert_non_null(
        strstr(t, "\ntee_no_verify median overhead over no_tee: +50.00 ms (+48.78%)\n"));
    assert_non_null(strstr(t, "\ntee_verify median notarization+verify overhead over no_tee: "
                              "-0.50 ms (-0.49%); not significant: 95 % CI ["));
    assert_non_null(strstr(t, "] ms, n=6\n"));
    json_t *h = json_object_get(j, "headline");
    assert_true(json_is_true(json_object_get(json_object_get(h, "tee_overhead"), "significant")));
    assert_true(
        json_is_false(json_object_get(json_object_get(h, "verify_overhead"), "significant")));
    assert_true(json_is_false(json_object_get(h, "simulated")));
    json_decref(j);
    tb_buf_clear(&out);
    tb_bench_results_clear(&rs);
}

static void test_outlier_flag(void **state)
{
    (void)state;
    tb_bench_results rs = {0};
    const double v[] = {100, 101, 102, 103, 104, 105, 500};
    for (int i = 0; i < 7; i++)
        add(&rs, "no_tee", i + 1, 0, v[i], -1);
    tb_buf out = {0};
    tb_err e;
    tb_bench_report_opts o = {0};
    assert_int_equal(tb_bench_report_summary(&rs, &o, &out, NULL, NULL, &e), 0);
    /* Q1 = 101.5, Q3 = 104.5, fence = 113.5: only 500 is flagged. */
    assert_non_null(strstr(
        (char *)out.p, "OUTLIER no_tee iteration 7: notarization_ms=500.00 ms (fence 113.50 ms)"));
    assert_null(strstr((char *)out.p, "iteration 6: notarization_ms"));
    tb_buf_clear(&out);
    tb_bench_results_clear(&rs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_headlines),
        cmocka_unit_test(test_simulated_and_missing),
        cmocka_unit_test(test_significance),
        cmocka_unit_test(test_outlier_flag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
