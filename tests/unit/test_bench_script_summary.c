/* Unit tests for src/bench/script_summary: the source script's summary section, key for
 * key, on hand-checked data (the expected lines are what benchmark-tee-impact.sh's
 * summary prints for the same results.csv; a few figures worked out in comments),
 * n/a where the original would divide by zero, pairing by iteration, the JSON
 * form, and its place at the top of summary.txt (bench/report). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "bench/internal.h"
#include "benchcsv/internal.h"
#include "bench/report.h"
#include "bench/script_summary.h"

static void parse_csv(const char *body, tb_bench_results *rs)
{
    char text[4096];
    snprintf(text, sizeof text, "%s\n%s", TB_BENCH_RESULTS_HEADER, body);
    tb_err e;
    if (tb_bench_results_parse(text, strlen(text), rs, &e) < 0)
        fail_msg("parse: %s", e.msg);
}

/* The results of a short run as the script writes them: integer ms, 0/1 flags, a
 * tee_verify run without TDX_VERIFY_MS (still successful), a timed-out run. */
static const char *const ROWS = "no_tee,1,0,0,0,1000,1010,,1000,1100,o,e\n"
                                "tee_no_verify,1,1,0,0,1369,1379,,1369,1400,o,e\n"
                                "tee_verify,1,1,1,0,1300,,326,1626,2000,o,e\n"
                                "no_tee,2,0,0,0,1100,1110,,1100,1200,o,e\n"
                                "tee_no_verify,2,1,0,0,1400,1410,,1400,1500,o,e\n"
                                "tee_verify,2,1,1,0,1338,,300,1638,2100,o,e\n"
                                "no_tee,3,0,0,0,1091,1101,,1091,1150,o,e\n"
                                "tee_no_verify,3,1,0,0,1300,1310,,1300,1350,o,e\n"
                                "tee_verify,3,1,1,0,2000,,,2000,2200,o,e\n"
                                "tee_no_verify,4,1,0,124,,,,,300000,o,e\n";

/* no_tee: mean 3191/3 = 1063.67, median 1091, P90 (1091*2 + 1100*8)/10 = 1098.20.
 * tee_verify's third run has no TDX_VERIFY_MS: it counts (runs=3), its combined
 * figure is 2000, the verify figures are over two runs (313). */
static const char *const WANT =
    "summary from successful runs:\n"
    "no_tee: runs=3 avg_notarization_ms=1063.67 median_notarization_ms=1091.00 "
    "p90_notarization_ms=1098.20 avg_total_e2e_ms=1073.67 avg_tdx_verify_ms=n/a "
    "median_tdx_verify_ms=n/a avg_notarization_plus_verify_ms=1063.67 "
    "median_notarization_plus_verify_ms=1091.00 p90_notarization_plus_verify_ms=1098.20 "
    "avg_wall_ms=1150.00\n"
    "tee_no_verify: runs=3 avg_notarization_ms=1356.33 median_notarization_ms=1369.00 "
    "p90_notarization_ms=1393.80 avg_total_e2e_ms=1366.33 avg_tdx_verify_ms=n/a "
    "median_tdx_verify_ms=n/a avg_notarization_plus_verify_ms=1356.33 "
    "median_notarization_plus_verify_ms=1369.00 p90_notarization_plus_verify_ms=1393.80 "
    "avg_wall_ms=1416.67\n"
    "tee_verify: runs=3 avg_notarization_ms=1546.00 median_notarization_ms=1338.00 "
    "p90_notarization_ms=1867.60 avg_total_e2e_ms=n/a avg_tdx_verify_ms=313.00 "
    "median_tdx_verify_ms=313.00 avg_notarization_plus_verify_ms=1754.67 "
    "median_notarization_plus_verify_ms=1638.00 p90_notarization_plus_verify_ms=1927.60 "
    "avg_wall_ms=2100.00\n"
    "tee_no_verify_avg_notarization_overhead_ms=292.67 "
    "tee_no_verify_avg_notarization_overhead_percent=27.51\n"
    "tee_no_verify_median_notarization_overhead_ms=278.00 "
    "tee_no_verify_median_notarization_overhead_percent=25.48\n"
    "tee_no_verify_paired_avg_notarization_overhead_ms=292.67 "
    "tee_no_verify_paired_avg_notarization_overhead_percent=27.78\n"
    "tee_no_verify_paired_median_notarization_overhead_ms=300.00 "
    "tee_no_verify_paired_median_notarization_overhead_percent=27.27\n"
    "tee_verify_avg_notarization_overhead_ms=482.33 "
    "tee_verify_avg_notarization_overhead_percent=45.35\n"
    "tee_verify_avg_combined_overhead_ms=691.00 tee_verify_avg_combined_overhead_percent=64.96\n"
    "tee_verify_median_combined_overhead_ms=547.00 "
    "tee_verify_median_combined_overhead_percent=50.14\n"
    "tee_verify_paired_avg_combined_overhead_ms=691.00 "
    "tee_verify_paired_avg_combined_overhead_percent=64.94\n"
    "tee_verify_paired_median_combined_overhead_ms=626.00 "
    "tee_verify_paired_median_combined_overhead_percent=62.60\n"
    "tee_verify_avg_tdx_verify_ms=313.00 tee_verify_median_tdx_verify_ms=313.00\n"
    "failed_runs=1\n";

static void test_script_section(void **state)
{
    (void)state;
    tb_bench_results rs = {0};
    parse_csv(ROWS, &rs);
    tb_buf out = {0};
    tb_err e;
    json_t *j = json_object();
    assert_int_equal(tb_bench_script_summary(&rs, &out, j, &e), 0);
    assert_int_equal(tb_buf_puts(&out, ""), 0);
    assert_string_equal((const char *)out.p, WANT);
    /* The JSON has the same keys, unrounded. */
    json_t *m = json_object_get(json_object_get(j, "modes"), "tee_verify");
    assert_int_equal(json_integer_value(json_object_get(m, "runs")), 3);
    assert_float_equal(json_real_value(json_object_get(m, "p90_notarization_ms")), 1867.6, 1e-9);
    assert_true(json_is_null(json_object_get(m, "avg_total_e2e_ms")));
    json_t *o = json_object_get(j, "overhead");
    assert_float_equal(
        json_real_value(json_object_get(o, "tee_no_verify_median_notarization_overhead_ms")), 278,
        1e-9);
    assert_int_equal(json_integer_value(json_object_get(j, "failed_runs")), 1);
    json_decref(j);
    tb_buf_clear(&out);
    tb_bench_results_clear(&rs);
}

/* A base of 0 ms: the original divides by it and crashes; here the figure is n/a
 * and the pair with a zero base is skipped, as the original skips it. */
static void test_zero_base(void **state)
{
    (void)state;
    tb_bench_results rs = {0};
    parse_csv("no_tee,1,0,0,0,7,,,7,,o,e\n"
              "tee_no_verify,1,1,0,0,10,,,10,,o,e\n"
              "no_tee,2,0,0,0,0,,,0,,o,e\n"
              "tee_no_verify,2,1,0,0,15,,,15,,o,e\n"
              "tee_no_verify,3,1,0,0,12,,,12,,o,e\n"
              "no_tee,3,0,0,0,0,,,0,,o,e\n",
              &rs);
    tb_buf out = {0};
    tb_err e;
    assert_int_equal(tb_bench_script_summary(&rs, &out, NULL, &e), 0);
    assert_int_equal(tb_buf_puts(&out, ""), 0);
    const char *t = (const char *)out.p;
    assert_non_null(strstr(t, "\ntee_no_verify_avg_notarization_overhead_ms=10.00 "
                              "tee_no_verify_avg_notarization_overhead_percent=428.57\n"));
    assert_non_null(strstr(t, "\ntee_no_verify_median_notarization_overhead_ms=12.00 "
                              "tee_no_verify_median_notarization_overhead_percent=n/a\n"));
    /* Only iteration 1 pairs (the others have base 0): +3 ms, +42.86 %. */
    assert_non_null(strstr(t, "\ntee_no_verify_paired_median_notarization_overhead_ms=3.00 "
                              "tee_no_verify_paired_median_notarization_overhead_percent=42.86\n"));
    assert_null(strstr(t, "failed_runs"));
    tb_buf_clear(&out);
    tb_bench_results_clear(&rs);
}

/* One run per mode: P90 is that run; no no_tee: no overhead lines; teebench
 * decimals are kept (2 decimals printed); a mode the script does not know is
 * not listed. */
static void test_single_and_decimals(void **state)
{
    (void)state;
    tb_bench_results rs = {0};
    parse_csv("tee_verify,1,1,1,0,12.125,,3.5,15.625,40.25,o,e\n"
              "other,1,0,0,0,5,,,5,,o,e\n",
              &rs);
    tb_buf out = {0};
    tb_err e;
    assert_int_equal(tb_bench_script_summary(&rs, &out, NULL, &e), 0);
    assert_int_equal(tb_buf_puts(&out, ""), 0);
    assert_string_equal((const char *)out.p,
                        "summary from successful runs:\n"
                        "tee_verify: runs=1 avg_notarization_ms=12.12 median_notarization_ms=12.12 "
                        "p90_notarization_ms=12.12 avg_total_e2e_ms=n/a avg_tdx_verify_ms=3.50 "
                        "median_tdx_verify_ms=3.50 avg_notarization_plus_verify_ms=15.62 "
                        "median_notarization_plus_verify_ms=15.62 "
                        "p90_notarization_plus_verify_ms=15.62 avg_wall_ms=40.25\n"
                        "tee_verify_avg_tdx_verify_ms=3.50 tee_verify_median_tdx_verify_ms=3.50\n");
    tb_buf_clear(&out);
    tb_bench_results_clear(&rs);
    /* No rows: the first line alone. */
    assert_int_equal(tb_bench_script_summary(&rs, &out, NULL, &e), 0);
    assert_int_equal(out.len, strlen("summary from successful runs:\n"));
    tb_buf_clear(&out);
}

/* summary.txt: the script's section first, then teebench's; the unverified
 * tee_verify run is FLAGGED, the retries said; with 3 runs a mode no headline is
 * called significant, and a simulated TEE is marked on every headline. */
static void test_in_summary(void **state)
{
    (void)state;
    tb_bench_results rs = {0};
    parse_csv(ROWS, &rs);
    tb_bench_retries rt = {0};
    tb_bench_retry_row r = {
        .mode = "tee_no_verify", .iteration = 4, .attempt = 1, .exit_code = 3, .wall_ms = 5};
    tb_err e;
    assert_int_equal(tb_bench_retries_push(&rt, &r, &e), 0);
    tb_bench_report_opts o = {.notary_tee = "sim", .retries = &rt};
    tb_buf out = {0};
    assert_int_equal(tb_bench_report_summary(&rs, &o, &out, NULL, NULL, &e), 0);
    assert_int_equal(tb_buf_puts(&out, ""), 0);
    const char *t = (const char *)out.p;
    assert_int_equal(strncmp(t, WANT, strlen(WANT)), 0);
    assert_int_equal(strncmp(t + strlen(WANT), "\nteebench notary benchmark summary\n", 35), 0);
    assert_non_null(strstr(t, "\nRETRIED: 1 failed attempt was rerun"));
    assert_non_null(strstr(t, "\n  FLAGGED tee_verify iteration 3: exit 0, no TDX_VERIFY_MS\n"));
    assert_non_null(strstr(t, "\ntee_no_verify median overhead over no_tee: +278.00 ms (+25.48%); "
                              "not significant"));
    assert_non_null(strstr(t, "ms, n=3; SIMULATED TEE\n"));
    assert_non_null(strstr(t, "\ntdx verify median: 313.00 ms (n=2); SIMULATED TEE\n"));
    tb_buf_clear(&out);
    tb_bench_retries_clear(&rt);
    tb_bench_results_clear(&rs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_script_section),
        cmocka_unit_test(test_zero_base),
        cmocka_unit_test(test_single_and_decimals),
        cmocka_unit_test(test_in_summary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
