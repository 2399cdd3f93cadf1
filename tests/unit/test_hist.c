/* Unit tests for src/stats/hist: index layout, percentiles against a brute-force
 * sort, mean/stdev/within, merge, clamping, wrk's correction. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "stats/hist.h"
#include "stats/internal.h"

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void test_index_layout(void **state)
{
    (void)state;
    /* every counter's range is contiguous with the next and at most 1/1024 wide */
    for (uint32_t i = 0; i < tb_hist_index(TB_HIST_DEFAULT_MAX); i++) {
        uint64_t lo = tb_hist_lowest_equiv(i), hi = tb_hist_highest_equiv(i);
        assert_int_equal(tb_hist_index(lo), i);
        assert_int_equal(tb_hist_index(hi), i);
        assert_int_equal(tb_hist_lowest_equiv(i + 1), hi + 1);
        assert_true((double)(hi - lo) <= (double)lo / 1024.0);
    }
    assert_int_equal(tb_hist_index(2047), 2047);
    assert_int_equal(tb_hist_index(2048), 2048);
    assert_int_equal(tb_hist_index(4096), 3072);
}

static void check_against_sort(uint64_t *v, size_t n)
{
    tb_hist h;
    tb_err e;
    assert_int_equal(tb_hist_init(&h, TB_HIST_DEFAULT_MAX, &e), 0);
    long double sum = 0;
    for (size_t i = 0; i < n; i++) {
        tb_hist_record(&h, v[i]);
        sum += v[i];
    }
    qsort(v, n, sizeof *v, cmp);
    const double ps[] = {0.001, 1, 10, 25, 50, 75, 90, 99, 99.9, 99.99, 99.999, 100};
    for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
        size_t rank = (size_t)ceil(ps[k] / 100.0 * (double)n);
        if (rank < 1)
            rank = 1;
        uint64_t exact = v[rank - 1], got = tb_hist_percentile(&h, ps[k]);
        assert_true(got >= exact);
        assert_true((double)(got - exact) <= (double)exact / 1024.0);
    }
    assert_int_equal(tb_hist_percentile(&h, 100), v[n - 1]);
    assert_int_equal(h.min, v[0]);
    assert_int_equal(h.max, v[n - 1]);
    double mean = tb_hist_mean(&h);
    assert_true(fabs(mean - (double)(sum / n)) < 1e-6 * mean + 1e-9);
    long double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += ((long double)v[i] - sum / n) * ((long double)v[i] - sum / n);
    double sd = sqrt((double)(ss / (n - 1)));
    assert_true(fabs(tb_hist_stdev(&h, mean) - sd) <= 0.001 * sd + 1.0);
    size_t in = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] >= mean - sd && v[i] <= mean + sd)
            in++;
    assert_true(fabs(tb_hist_within(&h, mean, sd, 1) - 100.0 * in / n) < 1.0);
    tb_hist_free(&h);
}

static void test_percentiles_uniform(void **state)
{
    (void)state;
    size_t n = 100000;
    uint64_t *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = 1000 + next() % 5000000; /* 1 µs .. 5 ms in ns */
    check_against_sort(v, n);
    free(v);
}

static void test_percentiles_long_tail(void **state)
{
    (void)state;
    size_t n = 50000;
    uint64_t *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = next();
        v[i] = (r % 100 == 0) ? 1000000000ULL + r % 3000000000ULL : 50000 + r % 200000;
    }
    check_against_sort(v, n);
    for (size_t i = 0; i < n; i++)
        v[i] = next() % 3000; /* small, exact values */
    check_against_sort(v, n);
    free(v);
}

static void test_merge_and_clamp(void **state)
{
    (void)state;
    tb_hist a, b, c;
    tb_err e;
    assert_int_equal(tb_hist_init(&a, 1 << 20, &e), 0);
    assert_int_equal(tb_hist_init(&b, 1 << 20, &e), 0);
    assert_int_equal(tb_hist_init(&c, 1 << 21, &e), 0);
    for (int i = 1; i <= 100; i++)
        tb_hist_record(&a, (uint64_t)i);
    for (int i = 101; i <= 200; i++)
        tb_hist_record(&b, (uint64_t)i);
    tb_hist_record(&b, 1ULL << 30); /* above the range: clamped */
    assert_int_equal(b.clamped, 1);
    assert_int_equal(tb_hist_merge(&a, &b, &e), 0);
    assert_int_equal(a.count, 201);
    assert_int_equal(a.min, 1);
    assert_int_equal(a.max, 1 << 20);
    assert_int_equal(tb_hist_percentile(&a, 50), 101);
    assert_int_equal(tb_hist_merge(&a, &c, &e), -1);
    tb_hist_reset(&a);
    assert_int_equal(a.count, 0);
    assert_int_equal(tb_hist_percentile(&a, 50), 0);
    tb_hist_free(&a);
    tb_hist_free(&b);
    tb_hist_free(&c);
    assert_int_equal(tb_hist_init(&c, 10, &e), -1);
}

static void test_correct(void **state)
{
    (void)state;
    tb_hist h;
    tb_err e;
    assert_int_equal(tb_hist_init(&h, TB_HIST_DEFAULT_MAX, &e), 0);
    for (int i = 0; i < 10; i++)
        tb_hist_record(&h, 100);
    tb_hist_record(&h, 1000); /* adds 900, 800, ..., 200 (not 100) */
    tb_hist_correct(&h, 100);
    assert_int_equal(h.count, 11 + 8);
    assert_int_equal(h.sum, 10 * 100 + 1000 + (900 + 200) * 8 / 2);
    assert_int_equal(h.max, 1000);
    tb_hist_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index_layout),
        cmocka_unit_test(test_percentiles_uniform),
        cmocka_unit_test(test_percentiles_long_tail),
        cmocka_unit_test(test_merge_and_clamp),
        cmocka_unit_test(test_correct),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
