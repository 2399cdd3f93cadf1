/* Unit tests for src/stats/units: wrk's formatting cases and flag parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stats/internal.h"
#include "stats/units.h"

static void test_format(void **state)
{
    (void)state;
    char b[TB_UNITS_MAX];
    assert_string_equal(tb_fmt_time_us(646.74L, b), "646.74us");
    assert_string_equal(tb_fmt_time_us(3220, b), "3.22ms");
    assert_string_equal(tb_fmt_time_us(849.99L, b), "849.99us");
    assert_string_equal(tb_fmt_time_us(850, b), "0.85ms");
    assert_string_equal(tb_fmt_time_us(999999, b), "1000.00ms");
    assert_string_equal(tb_fmt_time_us(1000000, b), "1.00s");
    assert_string_equal(tb_fmt_time_us(10010000, b), "10.01s");
    assert_string_equal(tb_fmt_time_us(51000000, b), "0.85m");
    assert_string_equal(tb_fmt_time_us(7200000000.0L, b), "120.00m"); /* never hours */
    assert_string_equal(tb_fmt_time_us(0, b), "0.00us");
    assert_string_equal(tb_fmt_binary(1.65L * 1024 * 1024 * 1024, b), "1.65G");
    assert_string_equal(tb_fmt_binary(512, b), "512.00");
    assert_string_equal(tb_fmt_binary(1023, b), "1.00K");
    assert_string_equal(tb_fmt_binary(12.34L * 1024 * 1024, b), "12.34M");
    assert_string_equal(tb_fmt_metric(40850, b), "40.85k");
    assert_string_equal(tb_fmt_metric(849, b), "849.00");
    assert_string_equal(tb_fmt_metric(2.5e6L, b), "2.50M");
    assert_string_equal(tb_fmt_time_s(10, b), "10s");
    assert_string_equal(tb_fmt_time_s(30, b), "30s");
    assert_string_equal(tb_fmt_time_s(60, b), "1m");
    assert_string_equal(tb_fmt_time_s(90, b), "2m");
}

static void test_scan(void **state)
{
    (void)state;
    uint64_t n;
    assert_int_equal(tb_scan_metric("50", &n), 0);
    assert_int_equal(n, 50);
    assert_int_equal(tb_scan_metric("1k", &n), 0);
    assert_int_equal(n, 1000);
    assert_int_equal(tb_scan_metric("2M", &n), 0);
    assert_int_equal(n, 2000000);
    assert_int_equal(tb_scan_metric("1G", &n), 0);
    assert_int_equal(n, 1000000000);
    assert_int_equal(tb_scan_metric("", &n), -1);
    assert_int_equal(tb_scan_metric("-1", &n), -1);
    assert_int_equal(tb_scan_metric("1x", &n), -1);
    assert_int_equal(tb_scan_metric("1kk", &n), -1);
    assert_int_equal(tb_scan_metric("99999999999999999999", &n), -1);
    assert_int_equal(tb_scan_time_ms("10", &n), 0);
    assert_int_equal(n, 10000);
    assert_int_equal(tb_scan_time_ms("10s", &n), 0);
    assert_int_equal(n, 10000);
    assert_int_equal(tb_scan_time_ms("2m", &n), 0);
    assert_int_equal(n, 120000);
    assert_int_equal(tb_scan_time_ms("1H", &n), 0);
    assert_int_equal(n, 3600000);
    assert_int_equal(tb_scan_time_ms("500ms", &n), 0);
    assert_int_equal(n, 500);
    assert_int_equal(tb_scan_time_ms("5d", &n), -1);
    assert_int_equal(tb_scan_time_ms("s", &n), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_scan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
