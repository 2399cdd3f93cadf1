/* Unit tests for src/stats/summary. Expected values were computed with python3's
 * statistics module (mean, median, quantiles(method="inclusive")) and, for the
 * Wilcoxon test, by brute-force enumeration of all sign assignments in python3
 * (exact) or its normal-approximation formula (n = 60), at test-writing time.
 * Extreme values (+-DBL_MAX, subnormals) are checked by their defining property
 * (finite, between the values they summarise), also over random samples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/summary.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_describe_odd(void **state)
{
    (void)state;
    const double x[] = {1091, 1203.5, 980, 1500, 1100, 1050, 2000, 1099, 1120, 1010, 995};
    tb_stats_desc d;
    assert_int_equal(tb_stats_describe(x, N(x), &d), 0);
    assert_int_equal(d.n, 11);
    assert_float_equal(d.mean, 1195.3181818181818, 1e-9);
    assert_float_equal(d.median, 1099, 0);
    assert_float_equal(d.p90, 1500.0, 1e-12);
    assert_float_equal(d.q1, 1030.0, 1e-12);
    assert_float_equal(d.q3, 1161.75, 1e-12);
    assert_float_equal(d.min, 980, 0);
    assert_float_equal(d.max, 2000, 0);
    assert_float_equal(d.outlier_fence, 1161.75 + 3 * (1161.75 - 1030.0), 1e-9);
    assert_true(x[6] > d.outlier_fence); /* 2000 is far out */
    assert_true(x[3] <= d.outlier_fence);
}

static void test_describe_even_interpolates(void **state)
{
    (void)state;
    const double y[] = {3, 1, 4, 1, 5, 9, 2, 6};
    tb_stats_desc d;
    assert_int_equal(tb_stats_describe(y, N(y), &d), 0);
    assert_float_equal(d.mean, 3.875, 1e-12);
    assert_float_equal(d.median, 3.5, 1e-12);
    assert_float_equal(d.p90, 6.9, 1e-12);
    assert_float_equal(d.q1, 1.75, 1e-12);
    assert_float_equal(d.q3, 5.25, 1e-12);
    assert_float_equal(y[0], 3, 0); /* input untouched */
    const double z[] = {7.5, 7.0};
    assert_int_equal(tb_stats_describe(z, 2, &d), 0);
    assert_float_equal(d.p90, 7.45, 1e-12);
    assert_float_equal(d.median, 7.25, 1e-12);
}

static void test_describe_small(void **state)
{
    (void)state;
    tb_stats_desc d;
    const double one[] = {42.5};
    assert_int_equal(tb_stats_describe(one, 1, &d), 0);
    assert_float_equal(d.median, 42.5, 0);
    assert_float_equal(d.p90, 42.5, 0);
    assert_float_equal(d.mean, 42.5, 0);
    assert_int_equal(tb_stats_describe(one, 0, &d), 0);
    assert_int_equal(d.n, 0);
    double m;
    assert_int_equal(tb_stats_median(one, 0, &m), -1);
    const double big[] = {1e15 + 1, 1e15 + 2, 1e15 + 3};
    assert_float_equal(tb_stats_mean(big, 3), 1e15 + 2, 0);
}

static void test_wilcoxon_exact(void **state)
{
    (void)state;
    tb_wilcoxon w;
    const double all_pos[] = {1, 2, 3, 4, 5};
    assert_int_equal(tb_stats_wilcoxon(all_pos, N(all_pos), &w), 0);
    assert_int_equal(w.n, 5);
    assert_true(w.exact);
    assert_float_equal(w.w_plus, 15, 0);
    assert_float_equal(w.p_value, 0.0625, 1e-15); /* 2 / 2^5 */

    const double mixed[] = {-1, 2, 3, -4, 5, 6};
    assert_int_equal(tb_stats_wilcoxon(mixed, N(mixed), &w), 0);
    assert_float_equal(w.w_plus, 16, 0);
    assert_float_equal(w.w_minus, 5, 0);
    assert_float_equal(w.p_value, 0.3125, 1e-15); /* 2 * 10 / 64 */

    const double ties[] = {1, 1, 2, -3};
    assert_int_equal(tb_stats_wilcoxon(ties, N(ties), &w), 0);
    assert_float_equal(w.w_plus, 6, 0);
    assert_float_equal(w.p_value, 0.75, 1e-15);

    const double zeros[] = {0, 2, -2, 3, 3, 3, -1, 4, 0, 5, 6, -7};
    assert_int_equal(tb_stats_wilcoxon(zeros, N(zeros), &w), 0);
    assert_int_equal(w.zeros, 2);
    assert_int_equal(w.n, 10);
    assert_float_equal(w.w_plus, 41.5, 0);
    assert_float_equal(w.p_value, 0.16796875, 1e-15);

    const double none[] = {0, 0};
    assert_int_equal(tb_stats_wilcoxon(none, N(none), &w), 0);
    assert_int_equal(w.n, 0);
    assert_float_equal(w.p_value, 1.0, 0);
    /* Symmetric: flipping every sign keeps p. */
    const double flipped[] = {1, -2, -3, 4, -5, -6};
    assert_int_equal(tb_stats_wilcoxon(flipped, N(flipped), &w), 0);
    assert_float_equal(w.p_value, 0.3125, 1e-15);
}

static void test_wilcoxon_normal_approx(void **state)
{
    (void)state;
    const double d[] = {0,  1,  -2, 3,  4,  -1, -2, -2, -3, 3, 5, 1,  -3, 0,  5, 5, 2,  1,
                        -1, -2, 1,  0,  -3, 1,  1,  0,  -1, 1, 1, 2,  -2, 2,  3, 5, 0,  -1,
                        0,  4,  1,  -2, 5,  1,  -3, 1,  1,  5, 0, 3,  3,  1,  3, 4, -1, 0,
                        1,  1,  -3, -2, -3, 4,  1,  5,  5,  4, 2, -1, 0,  -2, 3, 0};
    assert_int_equal(N(d), 70);
    tb_wilcoxon w;
    assert_int_equal(tb_stats_wilcoxon(d, N(d), &w), 0);
    assert_int_equal(w.n, 60);
    assert_int_equal(w.zeros, 10);
    assert_false(w.exact);
    assert_float_equal(w.w_plus, 1287.0, 0);
    assert_float_equal(w.p_value, 0.005740592780574937, 1e-12);
}

static void fill(double *x, size_t n, double base, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        x[i] = base + (double)(tb_stats_splitmix64(&seed) % 1000) / 10.0;
}

static void test_bootstrap_ci(void **state)
{
    (void)state;
    double a[25], b[25];
    fill(a, 25, 1000, 1);
    for (size_t i = 0; i < 25; i++)
        b[i] = a[i] + 278; /* true median difference: exactly 278 */
    double lo, hi, lo2, hi2;
    assert_int_equal(tb_stats_bootstrap_median_diff(a, 25, b, 25, 2000, 7, 0.95, &lo, &hi), 0);
    assert_true(lo <= 278 && 278 <= hi);
    assert_true(lo < hi);
    assert_true(hi - lo < 100); /* spread of the data is 100: the CI is narrower */
    /* Deterministic for a fixed seed, different for another one. */
    assert_int_equal(tb_stats_bootstrap_median_diff(a, 25, b, 25, 2000, 7, 0.95, &lo2, &hi2), 0);
    assert_float_equal(lo, lo2, 0);
    assert_float_equal(hi, hi2, 0);
    assert_int_equal(tb_stats_bootstrap_median_diff(a, 25, b, 25, 2000, 8, 0.95, &lo2, &hi2), 0);
    assert_true(lo != lo2 || hi != hi2);
    /* A single value per side: the CI collapses to the difference. */
    assert_int_equal(tb_stats_bootstrap_median_diff(a, 1, b, 1, 100, 1, 0.95, &lo, &hi), 0);
    assert_float_equal(lo, 278, 1e-9);
    assert_float_equal(hi, 278, 1e-9);
    assert_int_equal(tb_stats_bootstrap_median_diff(a, 0, b, 1, 100, 1, 0.95, &lo, &hi), -1);
    assert_int_equal(tb_stats_bootstrap_median_diff(a, 1, b, 1, 100, 1, 1.5, &lo, &hi), -1);
}

static void test_splitmix_known_values(void **state)
{
    (void)state;
    /* Reference values of splitmix64 from seed 0 (Vigna's published generator). */
    uint64_t s = 0;
    assert_true(tb_stats_splitmix64(&s) == 0xe220a8397b1dcdafull);
    assert_true(tb_stats_splitmix64(&s) == 0x6e789e6aa1b965f4ull);
}

/* The median of six DBL_MAX was inf (the two middle values summed before halving);
   the other averages the same: extreme but finite samples give finite statistics. */
static void test_extremes(void **state)
{
    (void)state;
    const double big[] = {DBL_MAX, DBL_MAX, DBL_MAX, DBL_MAX, DBL_MAX, DBL_MAX};
    double med;
    assert_int_equal(tb_stats_median(big, N(big), &med), 0);
    assert_true(med == DBL_MAX);
    assert_true(tb_stats_mean(big, N(big)) == DBL_MAX);
    const double neg[] = {-DBL_MAX, -DBL_MAX, -DBL_MAX, -DBL_MAX};
    assert_int_equal(tb_stats_median(neg, N(neg), &med), 0);
    assert_true(med == -DBL_MAX);
    assert_true(tb_stats_mean(neg, N(neg)) == -DBL_MAX);
    const double both[] = {-DBL_MAX, DBL_MAX};
    assert_int_equal(tb_stats_median(both, N(both), &med), 0);
    assert_true(med == 0);
    assert_true(tb_stats_mean(both, N(both)) == 0);
    /* a quartile between DBL_MAX / 2 and DBL_MAX: 3/4 of the way, finite */
    const double up[] = {DBL_MAX / 2, DBL_MAX};
    double s[] = {DBL_MAX / 2, DBL_MAX};
    double q3 = tb_stats_quantile_sorted(s, 2, 3, 4);
    assert_true(isfinite(q3) && q3 > DBL_MAX * 0.87 && q3 < DBL_MAX * 0.88);
    tb_stats_desc d;
    assert_int_equal(tb_stats_describe(up, N(up), &d), 0);
    assert_true(isfinite(d.mean) && isfinite(d.median) && isfinite(d.p90) && isfinite(d.q3));
    assert_true(d.mean == DBL_MAX / 4 * 3);
    /* the smallest subnormals */
    const double tiny[] = {5e-324, 5e-324, 1e-323, 1e-323};
    assert_int_equal(tb_stats_median(tiny, N(tiny), &med), 0);
    assert_true(med > 0 && med <= 1e-323);
    assert_true(tb_stats_midpoint(DBL_MAX, DBL_MAX) == DBL_MAX);
    assert_true(tb_stats_midpoint(-DBL_MAX, -DBL_MAX) == -DBL_MAX);
    assert_true(tb_stats_midpoint(3, 4) == 3.5);
    assert_true(tb_stats_lerp(-DBL_MAX, DBL_MAX, 0) == -DBL_MAX);
    assert_true(tb_stats_lerp(-DBL_MAX, DBL_MAX, 0.5) == 0);
    assert_true(tb_stats_lerp(DBL_MAX, DBL_MAX, 0.3) == DBL_MAX);
    assert_true(tb_stats_lerp(1, 2, 0.25) == 1.25);
    /* a bootstrap of two DBL_MAX samples: the difference of medians is 0, not NAN */
    double lo, hi;
    assert_int_equal(
        tb_stats_bootstrap_median_diff(big, N(big), big, N(big), 200, 1, 0.95, &lo, &hi), 0);
    assert_true(lo == 0 && hi == 0);
}

/* A value from the generator: mostly extremes (+-DBL_MAX and near it, subnormals,
   zero), some ordinary numbers. */
static double extreme(uint64_t *st)
{
    uint64_t r = tb_stats_splitmix64(st);
    double u = (double)(tb_stats_splitmix64(st) >> 11) * 0x1p-53, sign = r & 1 ? -1 : 1;
    switch ((r >> 1) % 7) {
    case 0:
        return sign * DBL_MAX;
    case 1:
        return sign * DBL_MAX * (0.5 + u / 2);
    case 2:
        return sign * ldexp(1 + u, -1074 + (int)(r >> 8) % 60); /* subnormal */
    case 3:
        return 0;
    case 4:
        return sign * ldexp(1 + u, (int)(r >> 8) % 2046 - 1022); /* any exponent */
    default:
        return sign * (1 + u) * 1000;
    }
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Property check over 20,000 random samples of extreme values: every quantile lies
   between its two neighbours (so is finite), the mean between the least and greatest
   value, midpoint and lerp between their ends. */
static void test_extremes_property(void **state)
{
    (void)state;
    uint64_t st = 20261201;
    double x[24];
    static const int ms[] = {2, 4, 10};
    for (int round = 0; round < 20000; round++) {
        size_t n = 1 + (size_t)(tb_stats_splitmix64(&st) % 24);
        for (size_t i = 0; i < n; i++)
            x[i] = extreme(&st);
        double mean = tb_stats_mean(x, n);
        qsort(x, n, sizeof *x, cmp);
        if (!(mean >= x[0] && mean <= x[n - 1]))
            fail_msg("round %d: mean %g outside [%g, %g] (n %zu)", round, mean, x[0], x[n - 1], n);
        for (size_t k = 0; k < N(ms); k++)
            for (int i = 1; i < ms[k]; i++) {
                double q = tb_stats_quantile_sorted(x, n, i, ms[k]);
                size_t j = (size_t)i * (n - 1) / (size_t)ms[k];
                double a = x[j], b = x[j + 1 < n ? j + 1 : j];
                if (!(q >= a && q <= b))
                    fail_msg("round %d: quantile %d/%d = %g outside [%g, %g]", round, i, ms[k], q,
                             a, b);
            }
        double a = x[0], b = x[n - 1], t = (double)(tb_stats_splitmix64(&st) >> 11) * 0x1p-53;
        double mid = tb_stats_midpoint(a, b), l = tb_stats_lerp(a, b, t);
        if (!(mid >= a && mid <= b) || !(l >= a && l <= b))
            fail_msg("round %d: midpoint %g / lerp %g outside [%g, %g]", round, mid, l, a, b);
    }
}

/* Student's t quantiles, two-sided: the values of printed tables (checked with python3
   by integrating the t density with Simpson's rule and bisecting). */
static void test_t_quantile(void **state)
{
    (void)state;
    static const struct {
        double level;
        size_t df;
        double t;
    } want[] = {
        {0.95, 1, 12.706204736172555},    {0.95, 2, 4.302652729749205},
        {0.95, 3, 3.182446305283711},     {0.95, 4, 2.7764451051978023},
        {0.95, 5, 2.570581835636167},     {0.95, 10, 2.228138851986313},
        {0.95, 30, 2.0422724563012595},   {0.95, 100, 1.9839715185237616},
        {0.95, 1000, 1.9623390808257812}, {0.99, 7, 3.499483297351457},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        double t = tb_stats_t_quantile(want[i].level, want[i].df);
        if (!(fabs(t - want[i].t) <= 1e-9 * want[i].t))
            fail_msg("t(%g, %zu) = %.15g, want %.15g", want[i].level, want[i].df, t, want[i].t);
    }
    /* towards the normal quantile 1.959964 as df grows; capped beyond 100000 */
    double big = tb_stats_t_quantile(0.95, 100000);
    assert_true(big > 1.959964 && big < 1.96);
    assert_true(tb_stats_t_quantile(0.95, (size_t)1 << 40) == big);
    assert_true(tb_stats_t_quantile(0.5, 1) > 0.999999999 &&
                tb_stats_t_quantile(0.5, 1) < 1.000000001);
    assert_true(isnan(tb_stats_t_quantile(0.95, 0)));
    assert_true(isnan(tb_stats_t_quantile(0, 3)));
    assert_true(isnan(tb_stats_t_quantile(1, 3)));
    assert_true(isnan(tb_stats_t_quantile(NAN, 3)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_describe_odd),
        cmocka_unit_test(test_describe_even_interpolates),
        cmocka_unit_test(test_describe_small),
        cmocka_unit_test(test_wilcoxon_exact),
        cmocka_unit_test(test_wilcoxon_normal_approx),
        cmocka_unit_test(test_bootstrap_ci),
        cmocka_unit_test(test_splitmix_known_values),
        cmocka_unit_test(test_extremes),
        cmocka_unit_test(test_extremes_property),
        cmocka_unit_test(test_t_quantile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
