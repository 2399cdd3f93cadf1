/* Unit tests for src/base/num: the one number syntax -- what each form accepts, what
 * it refuses as not a number (leading blanks, hex, inf, nan, a sign where none may
 * be, trailing text) and what is a number out of range (the bounds themselves are
 * in; an integer or size beyond its type is out of range); *out untouched on a
 * mistake. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>

#include "base/num.h"

static void test_long(void **state)
{
    (void)state;
    long v = 7;
    assert_int_equal(tb_num_long("42", 0, 100, &v), TB_NUM_OK);
    assert_int_equal(v, 42);
    assert_int_equal(tb_num_long("+5", 0, 100, &v), TB_NUM_OK);
    assert_int_equal(v, 5);
    assert_int_equal(tb_num_long("-3", -3, 3, &v), TB_NUM_OK);
    assert_int_equal(v, -3);
    assert_int_equal(tb_num_long("007", 0, 100, &v), TB_NUM_OK);
    assert_int_equal(v, 7);
    assert_int_equal(tb_num_long("-0", -1, 1, &v), TB_NUM_OK);
    assert_int_equal(v, 0);
    assert_int_equal(tb_num_long("9223372036854775807", 0, LONG_MAX, &v), TB_NUM_OK);
    assert_true(v == LONG_MAX);
    assert_int_equal(tb_num_long("-9223372036854775808", LONG_MIN, 0, &v), TB_NUM_OK);
    assert_true(v == LONG_MIN);
    v = 7;
    static const char *const syntax[] = {"",    " 5",   "5 ",  "\t5", "+",   "-",  "+-5",
                                         "1.5", "0x10", "1e3", "5k",  "abc", "--5"};
    for (size_t i = 0; i < sizeof syntax / sizeof syntax[0]; i++)
        if (tb_num_long(syntax[i], LONG_MIN, LONG_MAX, &v) != TB_NUM_SYNTAX)
            fail_msg("'%s' read as an integer", syntax[i]);
    assert_int_equal(v, 7);
    assert_int_equal(tb_num_long("0", 1, 64, &v), TB_NUM_RANGE);
    assert_int_equal(tb_num_long("65", 1, 64, &v), TB_NUM_RANGE);
    assert_int_equal(tb_num_long("9223372036854775808", 0, LONG_MAX, &v), TB_NUM_RANGE);
    assert_int_equal(tb_num_long("-9223372036854775809", LONG_MIN, 0, &v), TB_NUM_RANGE);
    assert_int_equal(v, 7);
    assert_int_equal(tb_num_long("64", 1, 64, &v), TB_NUM_OK);
    assert_int_equal(v, 64);
}

static void test_u64(void **state)
{
    (void)state;
    uint64_t v = 7;
    assert_int_equal(tb_num_u64("18446744073709551615", 0, UINT64_MAX, &v), TB_NUM_OK);
    assert_true(v == UINT64_MAX);
    assert_int_equal(tb_num_u64("+1", 0, 10, &v), TB_NUM_OK);
    assert_true(v == 1);
    v = 7;
    /* strtoull would read "-1" and " -1" as 2^64-1 */
    static const char *const syntax[] = {"", "-1", " -1", " 1", "-0", "1.0", "0x1", "1 "};
    for (size_t i = 0; i < sizeof syntax / sizeof syntax[0]; i++)
        if (tb_num_u64(syntax[i], 0, UINT64_MAX, &v) != TB_NUM_SYNTAX)
            fail_msg("'%s' read as an unsigned integer", syntax[i]);
    assert_int_equal(tb_num_u64("18446744073709551616", 1, UINT64_MAX, &v), TB_NUM_RANGE);
    assert_int_equal(tb_num_u64("0", 1, UINT64_MAX, &v), TB_NUM_RANGE);
    assert_true(v == 7);
}

static void test_double(void **state)
{
    (void)state;
    double v = 7;
    assert_int_equal(tb_num_double("0.05", 0, 1, &v), TB_NUM_OK);
    assert_true(v == 0.05);
    assert_int_equal(tb_num_double("1e-3", 0, 1, &v), TB_NUM_OK);
    assert_true(v == 1e-3);
    assert_int_equal(tb_num_double(".5", 0, 1, &v), TB_NUM_OK);
    assert_true(v == 0.5);
    assert_int_equal(tb_num_double("-2.5E+1", -100, 0, &v), TB_NUM_OK);
    assert_true(v == -25);
    v = 7;
    static const char *const syntax[] = {"",    " 1",   "1 ",    ".",   "e3",    "1e",   "nan",
                                         "inf", "-inf", "0x1p3", "1,5", "1e999", "1.2.3"};
    for (size_t i = 0; i < sizeof syntax / sizeof syntax[0]; i++)
        if (tb_num_double(syntax[i], -1e308, 1e308, &v) != TB_NUM_SYNTAX)
            fail_msg("'%s' read as a number", syntax[i]);
    assert_int_equal(tb_num_double("1.5", 0, 1, &v), TB_NUM_RANGE);
    assert_int_equal(tb_num_double("-0.1", 0, 1, &v), TB_NUM_RANGE);
    assert_true(v == 7);
    assert_int_equal(tb_num_double("1", 0, 1, &v), TB_NUM_OK);
    assert_true(v == 1);
}

/* Units apply as mul / div: a millisecond as div 1000 is the exact quotient (0.009,
   where 9 * 1e-3 is 0.009000000000000001), as mul 1e-3 the product. */
static void test_scaled(void **state)
{
    (void)state;
    static const tb_num_unit units[] = {
        {"", 1, 1}, {"s", 1, 1}, {"ms", 1, 1000}, {"us", 1e-6, 1}, {"m", 60, 1}};
    const size_t n = sizeof units / sizeof units[0];
    double v = 7;
    assert_int_equal(tb_num_scaled("10", units, n, 0, 1e9, &v), TB_NUM_OK);
    assert_true(v == 10);
    assert_int_equal(tb_num_scaled("1.5m", units, n, 0, 1e9, &v), TB_NUM_OK);
    assert_true(v == 90);
    assert_int_equal(tb_num_scaled("9ms", units, n, 0, 1e9, &v), TB_NUM_OK);
    assert_true(v == 9.0 / 1000);
    assert_int_equal(tb_num_scaled("9us", units, n, 0, 1e9, &v), TB_NUM_OK);
    assert_true(v == 9 * 1e-6);
    assert_int_equal(tb_num_scaled(".5s", units, n, 0, 1e9, &v), TB_NUM_OK);
    assert_true(v == 0.5);
    assert_int_equal(tb_num_scaled("5.", units, n, 0, 1e9, &v), TB_NUM_OK);
    assert_true(v == 5);
    v = 7;
    static const char *const syntax[] = {"",     "s",   " 5s", "5 s", "5s ", "-5s",    "+5", "1e3",
                                         "0x10", "inf", "nan", "5h",  "5S",  "1.2.3s", ".",  ".s"};
    for (size_t i = 0; i < sizeof syntax / sizeof syntax[0]; i++)
        if (tb_num_scaled(syntax[i], units, n, 0, 1e9, &v) != TB_NUM_SYNTAX)
            fail_msg("'%s' read as a duration", syntax[i]);
    assert_int_equal(tb_num_scaled("0", units, n, 0.001, 60, &v), TB_NUM_RANGE);
    assert_int_equal(tb_num_scaled("2m", units, n, 0.001, 60, &v), TB_NUM_RANGE);
    assert_int_equal(tb_num_scaled("999us", units, n, 0.001, 60, &v), TB_NUM_RANGE);
    assert_true(v == 7);
    assert_int_equal(tb_num_scaled("1m", units, n, 0.001, 60, &v), TB_NUM_OK);
    assert_true(v == 60);
}

/* Sizes are integers to 2^64 - 1: no sign, no fraction; a product past 64 bits is
   out of range. */
static void test_size(void **state)
{
    (void)state;
    static const tb_num_size_unit units[] = {
        {"", 1}, {"k", 1024}, {"M", 1ull << 20}, {"T", 1ull << 40}};
    const size_t n = sizeof units / sizeof units[0];
    uint64_t v = 7;
    assert_int_equal(tb_num_size("4k", units, n, 1, UINT64_MAX, &v), TB_NUM_OK);
    assert_true(v == 4096);
    assert_int_equal(tb_num_size("18446744073709551615", units, n, 1, UINT64_MAX, &v), TB_NUM_OK);
    assert_true(v == UINT64_MAX);
    assert_int_equal(tb_num_size("16777215T", units, n, 1, UINT64_MAX, &v), TB_NUM_OK);
    assert_true(v == 16777215ull << 40);
    v = 7;
    static const char *const syntax[] = {"",   "k",   "+4k",  "-4k",  " 4k", "4 k",
                                         "4K", "4kB", "1.5M", "0x10", "4k "};
    for (size_t i = 0; i < sizeof syntax / sizeof syntax[0]; i++)
        if (tb_num_size(syntax[i], units, n, 0, UINT64_MAX, &v) != TB_NUM_SYNTAX)
            fail_msg("'%s' read as a size", syntax[i]);
    assert_int_equal(tb_num_size("16777216T", units, n, 1, UINT64_MAX, &v), TB_NUM_RANGE);
    assert_int_equal(tb_num_size("18446744073709551616", units, n, 1, UINT64_MAX, &v),
                     TB_NUM_RANGE);
    assert_int_equal(tb_num_size("0", units, n, 1, UINT64_MAX, &v), TB_NUM_RANGE);
    assert_int_equal(tb_num_size("2M", units, n, 1, 1ull << 20, &v), TB_NUM_RANGE);
    assert_true(v == 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_long),   cmocka_unit_test(test_u64),  cmocka_unit_test(test_double),
        cmocka_unit_test(test_scaled), cmocka_unit_test(test_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
