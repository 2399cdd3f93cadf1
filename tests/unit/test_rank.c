/* Unit tests for src/stats/rank. Expected values: scipy's documented
 * mannwhitneyu example (males/females: U1 = 17, exact p = 1/9, asymptotic
 * 0.11134688653314041), the rest computed in python3 at test-writing time without
 * scipy -- exact p-values by enumerating every rank assignment
 * (itertools.combinations), asymptotic ones from the formula in rank.h with
 * math.erfc, coverages with fractions.Fraction, stdev with statistics.stdev.
 * The resample-median law is checked against enumeration of all n^n resamples
 * here, and the bootstrap against a value-by-value bootstrap written here.
 * Adjusted p-values: Benjamini and Hochberg's (1995) example of 15 p-values (the
 * paper: BH rejects 4 at 0.05, Bonferroni-type procedures 3) and a small family
 * with ties, each adjusted in python3 by the direct definitions (Holm: the max over
 * j <= rank of (m - j + 1) p_(j); BH: the min over j >= rank of m p_(j) / j), not by
 * running maxima as rank.c does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/internal.h"
#include "stats/rank.h"
#include "stats/summary.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_mwu_scipy_example(void **state)
{
    (void)state;
    const double males[] = {19, 22, 16, 29, 24}, females[] = {20, 11, 17, 12};
    tb_mwu r;
    assert_int_equal(tb_stats_mwu(males, N(males), females, N(females), &r), 0);
    assert_float_equal(r.u1, 17, 0);
    assert_true(r.exact);
    assert_false(r.ties);
    assert_float_equal(r.p_value, 1.0 / 9.0, 1e-15);
    /* the other way round: U1 = 20 - 17, same two-sided p */
    assert_int_equal(tb_stats_mwu(females, N(females), males, N(males), &r), 0);
    assert_float_equal(r.u1, 3, 0);
    assert_float_equal(r.p_value, 1.0 / 9.0, 1e-15);
}

static void test_mwu_exact(void **state)
{
    (void)state;
    tb_mwu r;
    /* complete separation of 3 vs 3: 2 of the 20 arrangements are as extreme */
    const double x[] = {1, 2, 3}, y[] = {6, 5, 4};
    assert_int_equal(tb_stats_mwu(x, 3, y, 3, &r), 0);
    assert_float_equal(r.u1, 0, 0);
    assert_float_equal(r.p_value, 0.1, 1e-15);
    assert_float_equal(tb_stats_mwu_min_p(3, 3), 0.1, 1e-15);
    assert_float_equal(tb_stats_mwu_min_p(4, 4), 2.0 / 70, 1e-15);
    assert_float_equal(tb_stats_mwu_min_p(2, 10), 2.0 / 66, 1e-15);
    assert_float_equal(tb_stats_mwu_min_p(1, 1), 1, 0);
    assert_float_equal(tb_stats_mwu_min_p(0, 5), 1, 0);
    /* 3 vs 12 (exact: the smaller sample has <= 8 values) */
    const double a[] = {10.5, 12.25, 9.75};
    const double b[] = {11.0, 13.5, 14.0, 8.0, 12.0, 15.5, 16.0, 13.0, 11.5, 17.0, 14.5, 12.5};
    assert_int_equal(tb_stats_mwu(a, N(a), b, N(b), &r), 0);
    assert_float_equal(r.u1, 6, 0);
    assert_true(r.exact);
    assert_float_equal(r.p_value, 0.1010989010989011, 1e-14);
    /* 7 vs 9 */
    const double c[] = {1.1, 2.3, 0.7, 5.2, 3.3, 4.8, 2.9};
    const double d[] = {3.1, 6.2, 4.4, 7.7, 5.9, 6.6, 2.2, 8.1, 5.0};
    assert_int_equal(tb_stats_mwu(c, N(c), d, N(d), &r), 0);
    assert_float_equal(r.u1, 11, 0);
    assert_true(r.exact);
    assert_float_equal(r.p_value, 0.031118881118881118, 1e-14);
    /* a huge second sample: the normal approximation (bounded memory) */
    double *h = malloc(200000 * sizeof *h);
    for (int i = 0; i < 200000; i++)
        h[i] = 10 + i * 1e-5;
    assert_int_equal(tb_stats_mwu(c, N(c), h, 200000, &r), 0);
    assert_false(r.exact);
    assert_true(r.p_value < 1e-4);
    free(h);
    /* identical samples: U at the centre, p capped at 1 */
    assert_int_equal(tb_stats_mwu(c, N(c), c, N(c), &r), 0);
    assert_false(r.exact); /* every value tied with its copy */
    assert_float_equal(r.p_value, 1, 0);
}

/* The direction of the test: the sign of U1 - nx*ny/2. Tied, quantized samples
   with equal medians (11) and a real shift: x = {10 x7, 11 x11, 12 x2}, y = {10 x2,
   11 x10, 12 x8}; pair counting gives U1 = 116 (of 400, centre 200), and the
   tie-corrected normal approximation (python3, rank.h's formula with math.erfc)
   p = 0.01310065294392412. */
static void test_mwu_shift(void **state)
{
    (void)state;
    double x[20], y[20];
    for (int i = 0; i < 20; i++) {
        x[i] = i < 7 ? 10 : i < 18 ? 11 : 12;
        y[i] = i < 2 ? 10 : i < 12 ? 11 : 12;
    }
    tb_mwu r;
    assert_int_equal(tb_stats_mwu(x, 20, y, 20, &r), 0);
    assert_float_equal(r.u1, 116, 0);
    assert_float_equal(r.p_value, 0.01310065294392412, 1e-14);
    assert_int_equal(r.shift, -1); /* x lies below y */
    double mx, my;
    assert_int_equal(tb_stats_median(x, 20, &mx), 0);
    assert_int_equal(tb_stats_median(y, 20, &my), 0);
    assert_float_equal(mx, my, 0); /* the medians cannot tell */
    assert_int_equal(tb_stats_mwu(y, 20, x, 20, &r), 0);
    assert_int_equal(r.shift, 1);
    /* scipy's example: U1 = 17 of 20, above the centre 10 */
    const double males[] = {19, 22, 16, 29, 24}, females[] = {20, 11, 17, 12};
    assert_int_equal(tb_stats_mwu(males, N(males), females, N(females), &r), 0);
    assert_int_equal(r.shift, 1);
    /* U1 exactly at the centre: no direction, p = 1 */
    const double a[] = {1, 4}, b[] = {2, 3};
    assert_int_equal(tb_stats_mwu(a, 2, b, 2, &r), 0);
    assert_float_equal(r.u1, 2, 0);
    assert_int_equal(r.shift, 0);
    assert_float_equal(r.p_value, 1, 0);
}

static void assert_adjusted(const double *p, size_t m, int method, const double *want)
{
    double out[32];
    assert_true(m <= N(out));
    assert_int_equal(tb_stats_p_adjust(p, m, method, out), 0);
    for (size_t i = 0; i < m; i++)
        assert_float_equal(out[i], want[i], 1e-15);
}

static void test_p_adjust(void **state)
{
    (void)state;
    /* Benjamini & Hochberg (1995), section 4.2: 15 p-values */
    const double bh95[] = {0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344,
                           0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.000};
    const double holm95[] = {0.0015, 0.0056, 0.0247, 0.114, 0.2211, 0.278, 0.278, 0.278,
                             0.3213, 1,      1,      1,     1,      1,     1};
    const double fdr95[] = {0.0015,
                            0.003,
                            0.0095,
                            0.035625,
                            0.0603,
                            0.06385714285714286,
                            0.06385714285714286,
                            0.0645,
                            0.0765,
                            0.486,
                            0.5811818181818182,
                            0.714875,
                            0.7532307692307694,
                            0.8132142857142857,
                            1};
    assert_adjusted(bh95, N(bh95), TB_STATS_ADJUST_HOLM, holm95);
    assert_adjusted(bh95, N(bh95), TB_STATS_ADJUST_BH, fdr95);
    assert_adjusted(bh95, N(bh95), TB_STATS_ADJUST_NONE, bh95);
    double out[N(bh95)];
    size_t holm_k = 0, bh_k = 0;
    assert_int_equal(tb_stats_p_adjust(bh95, N(bh95), TB_STATS_ADJUST_HOLM, out), 0);
    for (size_t i = 0; i < N(bh95); i++)
        holm_k += out[i] < 0.05;
    assert_int_equal(tb_stats_p_adjust(bh95, N(bh95), TB_STATS_ADJUST_BH, out), 0);
    for (size_t i = 0; i < N(bh95); i++)
        bh_k += out[i] < 0.05;
    assert_int_equal(holm_k, 3); /* as the paper says */
    assert_int_equal(bh_k, 4);
    /* unsorted, with a tie (0.03 twice): equal p, equal adjusted p */
    const double q[] = {0.04, 0.01, 0.2, 0.03, 0.005, 0.03};
    const double q_holm[] = {0.12, 0.05, 0.2, 0.12, 0.03, 0.12};
    const double q_bh[] = {0.048, 0.03, 0.2, 0.045, 0.03, 0.045};
    assert_adjusted(q, N(q), TB_STATS_ADJUST_HOLM, q_holm);
    assert_adjusted(q, N(q), TB_STATS_ADJUST_BH, q_bh);
    /* in place, one value, none, an unknown method */
    double w[N(q)];
    memcpy(w, q, sizeof w);
    assert_int_equal(tb_stats_p_adjust(w, N(w), TB_STATS_ADJUST_BH, w), 0);
    for (size_t i = 0; i < N(w); i++)
        assert_float_equal(w[i], q_bh[i], 1e-15);
    const double one = 0.02;
    assert_adjusted(&one, 1, TB_STATS_ADJUST_HOLM, &one);
    assert_adjusted(&one, 1, TB_STATS_ADJUST_BH, &one);
    assert_int_equal(tb_stats_p_adjust(NULL, 0, TB_STATS_ADJUST_BH, NULL), 0);
    assert_int_equal(tb_stats_p_adjust(q, N(q), 7, w), -1);
}

static void test_mwu_asymptotic(void **state)
{
    (void)state;
    tb_mwu r;
    const double a[] = {20.1, 22.4, 19.8, 25.0, 21.7, 23.3, 18.9, 24.2, 22.0, 20.6};
    const double b[] = {23.5, 26.1, 24.8, 27.3, 22.9, 25.5, 28.0, 26.7, 24.1, 25.9, 27.8, 23.0};
    assert_int_equal(tb_stats_mwu(a, N(a), b, N(b), &r), 0);
    assert_false(r.exact);
    assert_float_equal(r.u1, 11, 0);
    assert_float_equal(r.p_value, 0.001383865377565813, 1e-13);
    /* ties force the normal approximation even for small samples */
    const double t1[] = {1, 2, 2, 3, 4}, t2[] = {2, 3, 3, 5, 6, 6};
    assert_int_equal(tb_stats_mwu(t1, N(t1), t2, N(t2), &r), 0);
    assert_true(r.ties);
    assert_false(r.exact);
    assert_float_equal(r.u1, 6, 0);
    assert_float_equal(r.p_value, 0.11304997885632297, 1e-13);
    /* every value equal: no variance, p = 1 */
    const double k[] = {5, 5, 5, 5, 5, 5, 5, 5, 5, 5};
    assert_int_equal(tb_stats_mwu(k, N(k), k, 9, &r), 0);
    assert_float_equal(r.p_value, 1, 0);
    /* an empty sample: no test */
    assert_int_equal(tb_stats_mwu(k, 0, k, 9, &r), 0);
    assert_true(isnan(r.p_value));
}

/* Samples of 30 from two clearly different distributions are significant; two
   draws of one distribution are not (for this seed); the p-value of the exact and
   the asymptotic branch agree roughly where both apply. */
static void test_mwu_behaviour(void **state)
{
    (void)state;
    double a[30], b[30], c[30];
    uint64_t s = 7;
    for (int i = 0; i < 30; i++) {
        a[i] = 1000 + (double)(tb_stats_splitmix64(&s) % 1000) / 100.0;
        b[i] = 1005 + (double)(tb_stats_splitmix64(&s) % 1000) / 100.0;
        c[i] = 1000 + (double)(tb_stats_splitmix64(&s) % 1000) / 100.0;
    }
    tb_mwu r;
    assert_int_equal(tb_stats_mwu(a, 30, b, 30, &r), 0);
    assert_true(r.p_value < 0.001);
    assert_int_equal(tb_stats_mwu(a, 30, c, 30, &r), 0);
    assert_true(r.p_value > 0.05);
}

static void test_median_ci(void **state)
{
    (void)state;
    tb_stats_ci ci;
    const double five[] = {1, 2, 3, 4, 5};
    tb_stats_median_ci_sorted(five, 5, 0.95, &ci);
    assert_int_equal(ci.k, 0);
    assert_true(isnan(ci.lo) && isnan(ci.hi) && isnan(ci.coverage));
    const double six[] = {1, 2, 3, 4, 5, 6};
    tb_stats_median_ci_sorted(six, 6, 0.95, &ci);
    assert_int_equal(ci.k, 1);
    assert_float_equal(ci.lo, 1, 0);
    assert_float_equal(ci.hi, 6, 0);
    assert_float_equal(ci.coverage, 0.96875, 1e-15);
    const double ten[] = {10, 11, 12, 13, 14, 15, 16, 17, 18, 19};
    tb_stats_median_ci_sorted(ten, 10, 0.95, &ci);
    assert_int_equal(ci.k, 2);
    assert_float_equal(ci.lo, 11, 0);
    assert_float_equal(ci.hi, 18, 0);
    assert_float_equal(ci.coverage, 0.978515625, 1e-15);
    double x[1000];
    for (int i = 0; i < 1000; i++)
        x[i] = i;
    tb_stats_median_ci_sorted(x, 30, 0.95, &ci);
    assert_int_equal(ci.k, 10);
    assert_float_equal(ci.lo, 9, 0);
    assert_float_equal(ci.hi, 20, 0);
    assert_float_equal(ci.coverage, 0.9572260547429323, 1e-12);
    tb_stats_median_ci_sorted(x, 100, 0.95, &ci);
    assert_int_equal(ci.k, 40);
    assert_float_equal(ci.coverage, 0.9647997997822951, 1e-12);
    tb_stats_median_ci_sorted(x, 1000, 0.95, &ci); /* 2^-1000 does not underflow the sum */
    assert_int_equal(ci.k, 469);
    assert_float_equal(ci.coverage, 0.9537088026395019, 1e-10);
    double *big = malloc(4000000 * sizeof *big); /* the sum starts near the middle */
    for (int i = 0; i < 4000000; i++)
        big[i] = i;
    tb_stats_median_ci_sorted(big, 4000000, 0.95, &ci);
    /* python3 (math.lgamma, summing the pmf in log space): k = 1998040, coverage
       0.9500626353781659; the normal approximation puts k near 2000000 - 1960 */
    assert_int_equal(ci.k, 1998040);
    assert_float_equal(ci.coverage, 0.9500626353781659, 1e-9);
    free(big);
    assert_int_equal(tb_stats_median_ci_min_n(0.95), 6);
    assert_int_equal(tb_stats_median_ci_min_n(0.99), 8);
    tb_stats_median_ci_sorted(x, 0, 0.95, &ci);
    assert_int_equal(ci.k, 0);
}

static void test_stdev_cv(void **state)
{
    (void)state;
    const double x[] = {2, 4, 4, 4, 5, 5, 7, 9};
    assert_float_equal(tb_stats_stdev(x, N(x)), 2.138089935299395, 1e-14);
    assert_float_equal(tb_stats_cv(x, N(x)), 0.427617987059879, 1e-14);
    assert_true(isnan(tb_stats_stdev(x, 1)));
    assert_true(isnan(tb_stats_cv(x, 1)));
    const double z[] = {-1, 1};
    assert_true(isnan(tb_stats_cv(z, 2)));
    const double k[] = {3, 3, 3};
    assert_float_equal(tb_stats_stdev(k, 3), 0, 0);
}

/* |a - b| <= tol in double (cmocka's assert_float_equal compares floats). */
#define assert_near(a, b, tol)                                                                     \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        if (!(fabs(a_ - b_) <= (tol)))                                                             \
            fail_msg("%s = %.17g, expected %.17g", #a, a_, b_);                                    \
    } while (0)

/* Squares of values beyond 1e154 overflowed (stdev inf), squares of subnormal
   deviations underflowed (stdev 0): both are computed on scaled values now. */
static void test_stdev_extremes(void **state)
{
    (void)state;
    const double big[] = {DBL_MAX, DBL_MAX, DBL_MAX, DBL_MAX};
    assert_true(tb_stats_stdev(big, N(big)) == 0);
    assert_true(tb_stats_cv(big, N(big)) == 0);
    /* {1e300, 3e300}: sqrt(2) * 1e300 */
    const double wide[] = {1e300, 3e300};
    double sd = tb_stats_stdev(wide, 2);
    assert_true(isfinite(sd));
    assert_near(sd / 1e300, sqrt(2), 1e-14);
    assert_near(tb_stats_cv(wide, 2), sqrt(2) / 2, 1e-14);
    /* {-DBL_MAX, DBL_MAX}: the stdev is sqrt(2) * DBL_MAX, beyond a double: inf, honestly */
    const double both[] = {-DBL_MAX, DBL_MAX};
    assert_true(isinf(tb_stats_stdev(both, 2)));
    /* DBL_MAX and DBL_MAX / 2: stdev DBL_MAX / 2 / sqrt(2), finite */
    const double near[] = {DBL_MAX, DBL_MAX / 2};
    assert_near(tb_stats_stdev(near, 2) / (DBL_MAX / 2 / sqrt(2)), 1, 1e-14);
    /* subnormals: {1, 3} * 2^-1070 has stdev sqrt(2) * 2^-1070, not 0 */
    const double tiny[] = {0x1p-1070, 0x3p-1070};
    sd = tb_stats_stdev(tiny, 2);
    assert_true(sd > 0);
    assert_near(sd / 0x1p-1070, sqrt(2), 0.03); /* a subnormal: 1.4375 */
    /* ordinary values: bit for bit what the plain formula gives */
    const double x[] = {2, 4, 4, 4, 5, 5, 7, 9};
    assert_true(tb_stats_stdev(x, N(x)) == sqrt(32.0 / 7));
}

/* Bootstrap medians and ratio intervals of extreme samples: each resample median is
   an average of two order statistics (it overflowed for DBL_MAX), and a baseline of
   subnormals has medians whose reciprocals overflow (the interval was inf..inf): the
   ratios are then divisions. */
static void test_boot_extremes(void **state)
{
    (void)state;
    tb_stats_boot bt;
    assert_int_equal(tb_stats_boot_init(&bt, 500), 0);
    double big[8], tiny[8], twice[8], out[500];
    for (int i = 0; i < 8; i++) {
        big[i] = DBL_MAX * (0.9 + 0.01 * i);
        tiny[i] = ldexp(20 + 2 * i, -1074); /* subnormals: 20, 22, .. 34 * 2^-1074 */
        twice[i] = 2 * tiny[i];
    }
    big[7] = DBL_MAX;
    assert_int_equal(tb_stats_boot_medians(&bt, big, 8, 3, out), 0);
    for (int i = 0; i < 500; i++)
        if (!(out[i] >= big[0] && out[i] <= DBL_MAX))
            fail_msg("resample %d: median %g", i, out[i]);
    double lo, hi;
    assert_int_equal(tb_stats_boot_median_ratio(&bt, tiny, 8, twice, 8, 3, 0.95, &lo, &hi), 0);
    if (!(lo >= 20.0 * 2 / 34 && hi <= 34.0 * 2 / 20 && lo <= 2 && 2 <= hi))
        fail_msg("ratio interval of subnormal samples: [%g, %g]", lo, hi);
    /* the same interval as for the same samples scaled into ordinary numbers */
    double tiny_n[8], twice_n[8], lo_n, hi_n;
    for (int i = 0; i < 8; i++) {
        tiny_n[i] = ldexp(tiny[i], 1100);
        twice_n[i] = ldexp(twice[i], 1100);
    }
    assert_int_equal(tb_stats_boot_median_ratio(&bt, tiny_n, 8, twice_n, 8, 3, 0.95, &lo_n, &hi_n),
                     0);
    assert_near(lo, lo_n, 1e-12);
    assert_near(hi, hi_n, 1e-12);
    /* ratios of subnormal size (medians 0.5 .. against DBL_MAX): the histogram of the
       ratios had an infinite bucket scale (undefined behaviour, a crash in compare) */
    double ma[500], mb[500];
    for (int i = 0; i < 500; i++) {
        ma[i] = DBL_MAX;
        mb[i] = 0.5 + i % 7;
    }
    tb_stats_boot_ratio_interval_div(&bt, ma, mb, 0.95, &lo, &hi);
    if (!(lo > 0 && lo <= 0.5 / DBL_MAX * 1.01 && hi >= 6.5 / DBL_MAX * 0.99 && hi < 1e-300))
        fail_msg("subnormal ratios: [%g, %g]", lo, hi);
    /* reciprocals say when they are not exact enough to multiply by */
    double r[2];
    const double ok[] = {1e-300, 1e300}, sub[] = {1e-310, 1}, huge[] = {1, DBL_MAX};
    assert_int_equal(tb_stats_reciprocals(ok, 2, r), 0);
    assert_int_equal(tb_stats_reciprocals(sub, 2, r), -1);
    assert_int_equal(tb_stats_reciprocals(huge, 2, r), -1);
    tb_stats_boot_free(&bt);
}

/* Enumerates all n^n resamples of positions 0..n-1 and counts where the median's
   positions (lower, upper) fall. */
static void enumerate_law(size_t n, double *prob /* n*n */)
{
    size_t total = 1, idx[8], cnt[8];
    for (size_t i = 0; i < n; i++)
        total *= n;
    memset(prob, 0, n * n * sizeof *prob);
    for (size_t code = 0; code < total; code++) {
        size_t c = code;
        memset(cnt, 0, sizeof cnt);
        for (size_t i = 0; i < n; i++) {
            idx[i] = c % n;
            c /= n;
            cnt[idx[i]]++;
        }
        /* order statistics (n-1)/2 and n/2 of the resample, as positions */
        size_t seen = 0, lo = 0, hi = 0;
        for (size_t v = 0; v < n; v++) {
            for (size_t k = 0; k < cnt[v]; k++, seen++) {
                if (seen == (n - 1) / 2)
                    lo = v;
                if (seen == n / 2)
                    hi = v;
            }
        }
        prob[lo * n + hi] += 1.0 / (double)total;
    }
}

static void test_medlaw_matches_enumeration(void **state)
{
    (void)state;
    double prob[64];
    for (size_t n = 1; n <= 7; n++) {
        tb_stats_medlaw law;
        assert_int_equal(tb_stats_medlaw_init(&law, n), 0);
        enumerate_law(n, prob);
        double sum = 0;
        for (size_t i = 0; i < law.k; i++) {
            sum += law.p[i];
            assert_true(law.lo[i] <= law.hi[i]);
            assert_float_equal(law.p[i], prob[law.lo[i] * n + law.hi[i]], 1e-12);
            prob[law.lo[i] * n + law.hi[i]] = 0;
        }
        for (size_t i = 0; i < n * n; i++)
            assert_float_equal(prob[i], 0, 1e-12); /* nothing possible is missing */
        assert_float_equal(sum, 1, 1e-12);
        tb_stats_medlaw_free(&law);
    }
    tb_stats_medlaw law;
    assert_int_equal(tb_stats_medlaw_init(&law, 0), -1);
    assert_int_equal(tb_stats_medlaw_init(&law, TB_STATS_MEDLAW_MAX + 1), -1);
}

/* The alias table draws each point with its probability. */
static void test_medlaw_draw_frequencies(void **state)
{
    (void)state;
    tb_stats_medlaw law;
    assert_int_equal(tb_stats_medlaw_init(&law, 6), 0);
    double x[6] = {0, 1, 2, 3, 4, 5};
    double count[11] = {0}; /* the drawn median doubled: 0..10 */
    double want[11] = {0};
    for (size_t i = 0; i < law.k; i++)
        want[law.lo[i] + law.hi[i]] += law.p[i];
    uint64_t s = 42;
    const int draws = 400000;
    for (int i = 0; i < draws; i++)
        count[(int)(2 * tb_stats_medlaw_draw(&law, x, &s))] += 1.0 / draws;
    for (int v = 0; v < 11; v++)
        assert_float_equal(count[v], want[v], 0.004);
    tb_stats_medlaw_free(&law);
}

/* The positions from order statistics of uniforms follow the tabulated law. */
static void test_median_positions_law(void **state)
{
    (void)state;
    const size_t ns[] = {1, 2, 7, 30};
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
        size_t n = ns[t];
        tb_stats_medlaw law;
        assert_int_equal(tb_stats_medlaw_init(&law, n), 0);
        double *freq = calloc(n * n, sizeof *freq);
        uint64_t s = 1234;
        const int draws = 200000;
        for (int i = 0; i < draws; i++) {
            size_t lo, hi;
            tb_stats_median_positions(n, &s, &lo, &hi);
            assert_true(lo <= hi && hi < n);
            assert_true(n % 2 == 0 || lo == hi);
            freq[lo * n + hi] += 1.0 / draws;
        }
        for (size_t i = 0; i < law.k; i++) { /* within 5 standard errors or 3 draws */
            double p = law.p[i], se = sqrt(p * (1 - p) / draws);
            assert_float_equal(freq[law.lo[i] * n + law.hi[i]], p, 5 * se + 3.0 / draws);
            freq[law.lo[i] * n + law.hi[i]] = 0;
        }
        for (size_t i = 0; i < n * n; i++)
            assert_true(freq[i] < 2e-5); /* nothing (or next to nothing) outside the law */
        free(freq);
        tb_stats_medlaw_free(&law);
    }
}

static void test_select(void **state)
{
    (void)state;
    uint64_t s = 3;
    double x[301], sorted[301];
    for (size_t n = 1; n <= 301; n += 37) {
        for (size_t k = 0; k < n; k += 1 + n / 5) {
            for (size_t i = 0; i < n; i++)
                x[i] = sorted[i] = (double)(tb_stats_splitmix64(&s) % 50); /* many ties */
            tb_stats_sort(sorted, n);
            assert_float_equal(tb_stats_select(x, n, k), sorted[k], 0);
            for (size_t i = 0; i < k; i++)
                assert_true(x[i] <= x[k]);
            for (size_t i = k + 1; i < n; i++)
                assert_true(x[i] >= x[k]);
        }
    }
}

/* The textbook bootstrap: resample n values, sort, take the median. */
static void naive_ratio_ci(const double *a, size_t na, const double *b, size_t nb, int r,
                           double *lo, double *hi)
{
    double *ra = malloc(na * sizeof *ra), *rb = malloc(nb * sizeof *rb);
    double *st = malloc((size_t)r * sizeof *st);
    uint64_t s = 99;
    for (int i = 0; i < r; i++) {
        for (size_t j = 0; j < na; j++)
            ra[j] = a[tb_stats_splitmix64(&s) % na];
        for (size_t j = 0; j < nb; j++)
            rb[j] = b[tb_stats_splitmix64(&s) % nb];
        double ma, mb;
        tb_stats_median(ra, na, &ma);
        tb_stats_median(rb, nb, &mb);
        st[i] = mb / ma;
    }
    tb_stats_sort(st, (size_t)r);
    *lo = st[(int)(0.025 * (r - 1))];
    *hi = st[(int)(0.975 * (r - 1))];
    free(ra);
    free(rb);
    free(st);
}

static void test_bootstrap_ratio(void **state)
{
    (void)state;
    double a[30], b[31], c[300], d[300];
    uint64_t s = 11;
    for (int i = 0; i < 30; i++)
        a[i] = 162588 * (1 + ((double)(tb_stats_splitmix64(&s) % 2001) - 1000) / 50000);
    for (int i = 0; i < 31; i++)
        b[i] = 34952 * (1 + ((double)(tb_stats_splitmix64(&s) % 2001) - 1000) / 40000);
    for (int i = 0; i < 300; i++) {
        c[i] = 100 + (double)(tb_stats_splitmix64(&s) % 1000) / 100;
        d[i] = 120 + (double)(tb_stats_splitmix64(&s) % 1000) / 100;
    }
    double lo, hi, nlo, nhi, ratio = 0;
    /* even vs odd n, against the value-by-value bootstrap (Monte Carlo error ~0.1 %) */
    assert_int_equal(tb_stats_bootstrap_median_ratio(a, 30, b, 31, 20000, 5, 0.95, &lo, &hi), 0);
    naive_ratio_ci(a, 30, b, 31, 20000, &nlo, &nhi);
    double ma, mb;
    tb_stats_median(a, 30, &ma);
    tb_stats_median(b, 31, &mb);
    ratio = mb / ma;
    assert_true(lo < ratio && ratio < hi);
    assert_float_equal(lo, nlo, 0.002 * ratio);
    assert_float_equal(hi, nhi, 0.002 * ratio);
    /* above TB_STATS_MEDLAW_MAX: positions from Beta variates */
    assert_int_equal(tb_stats_bootstrap_median_ratio(c, 300, d, 300, 4000, 5, 0.95, &lo, &hi), 0);
    naive_ratio_ci(c, 300, d, 300, 4000, &nlo, &nhi);
    assert_float_equal(lo, nlo, 0.003);
    assert_float_equal(hi, nhi, 0.003);
    /* same inputs and seed, same interval; another seed, nearly the same */
    double lo2, hi2;
    assert_int_equal(tb_stats_bootstrap_median_ratio(a, 30, b, 31, 2000, 5, 0.95, &lo, &hi), 0);
    assert_int_equal(tb_stats_bootstrap_median_ratio(a, 30, b, 31, 2000, 5, 0.95, &lo2, &hi2), 0);
    assert_true(lo == lo2 && hi == hi2);
    assert_int_equal(tb_stats_bootstrap_median_ratio(a, 30, b, 31, 2000, 6, 0.95, &lo2, &hi2), 0);
    assert_float_equal(lo, lo2, 0.003 * ratio);
    /* constant samples: the ratio without spread */
    const double k3[] = {3, 3, 3, 3, 3, 3}, k6[] = {6, 6, 6, 6, 6, 6, 6};
    assert_int_equal(tb_stats_bootstrap_median_ratio(k3, 6, k6, 7, 500, 1, 0.95, &lo, &hi), 0);
    assert_float_equal(lo, 2, 0);
    assert_float_equal(hi, 2, 0);
    /* a non-positive baseline value: no interval */
    const double z[] = {0, 1, 2, 3, 4, 5};
    assert_int_equal(tb_stats_bootstrap_median_ratio(z, 6, k6, 7, 500, 1, 0.95, &lo, &hi), 0);
    assert_true(isnan(lo) && isnan(hi));
}

/* tb_stats_boot_medians is tb_stats_medlaw_draw repeated (cached picks or not). */
static void test_boot_medians_are_draws(void **state)
{
    (void)state;
    tb_stats_boot bt;
    assert_int_equal(tb_stats_boot_init(&bt, 500), 0);
    double x[30], y[30], out[500];
    for (int i = 0; i < 30; i++) {
        x[i] = 100 + i * 1.5;
        y[i] = 7 + i * i;
    }
    tb_stats_medlaw law;
    assert_int_equal(tb_stats_medlaw_init(&law, 30), 0);
    for (int round = 0; round < 2; round++) { /* the second round uses the cache */
        for (int k = 0; k < 2; k++) {
            const double *v = k ? y : x;
            assert_int_equal(tb_stats_boot_medians(&bt, v, 30, 77 + (uint64_t)k, out), 0);
            uint64_t s = 77 + (uint64_t)k;
            for (int i = 0; i < 500; i++)
                assert_float_equal(out[i], tb_stats_medlaw_draw(&law, v, &s), 0);
        }
    }
    tb_stats_medlaw_free(&law);
    tb_stats_boot_free(&bt);
}

/* The percentile of linear interpolation at q*(n-1) over a sorted copy. */
static double sorted_quantile(const double *v, size_t n, double q)
{
    double *s = malloc(n * sizeof *s);
    memcpy(s, v, n * sizeof *s);
    tb_stats_sort(s, n);
    double pos = q * (double)(n - 1);
    size_t j = (size_t)pos;
    double r = j + 1 < n ? s[j] + (s[j + 1] - s[j]) * (pos - (double)j) : s[j];
    free(s);
    return r;
}

/* The histogram-and-select interval ends equal the sort-based ones, whatever the
   shape: uniform, one huge outlier (one coarse bucket), few distinct values (tails
   sharing a bucket), all equal, tiny resample counts. */
static void test_ratio_interval_vs_sort(void **state)
{
    (void)state;
    const unsigned sizes[] = {2000, 700, 40, 3, 1};
    uint64_t s = 5;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        unsigned r = sizes[si];
        tb_stats_boot bt;
        assert_int_equal(tb_stats_boot_init(&bt, r), 0);
        double *one = malloc(r * sizeof *one), *mb = malloc(r * sizeof *mb);
        for (int shape = 0; shape < 4; shape++) {
            for (unsigned i = 0; i < r; i++) {
                one[i] = 1;
                double u = (double)(tb_stats_splitmix64(&s) >> 11) * 0x1p-53;
                mb[i] = shape == 0   ? 0.2 + u * 0.02
                        : shape == 1 ? (i == r / 2 ? 1e12 : 3 + u)
                        : shape == 2 ? (double)(tb_stats_splitmix64(&s) % 3)
                                     : 4.25;
            }
            for (double level = 0.5; level < 1; level += 0.225) {
                double lo, hi, q = (1 - level) / 2;
                tb_stats_boot_ratio_interval(&bt, one, mb, level, &lo, &hi);
                assert_float_equal(lo, sorted_quantile(mb, r, q), 0);
                assert_float_equal(hi, sorted_quantile(mb, r, 1 - q), 0);
            }
        }
        free(one);
        free(mb);
        tb_stats_boot_free(&bt);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mwu_scipy_example),
        cmocka_unit_test(test_mwu_exact),
        cmocka_unit_test(test_mwu_shift),
        cmocka_unit_test(test_p_adjust),
        cmocka_unit_test(test_mwu_asymptotic),
        cmocka_unit_test(test_mwu_behaviour),
        cmocka_unit_test(test_median_ci),
        cmocka_unit_test(test_stdev_cv),
        cmocka_unit_test(test_stdev_extremes),
        cmocka_unit_test(test_boot_extremes),
        cmocka_unit_test(test_medlaw_matches_enumeration),
        cmocka_unit_test(test_medlaw_draw_frequencies),
        cmocka_unit_test(test_median_positions_law),
        cmocka_unit_test(test_select),
        cmocka_unit_test(test_bootstrap_ratio),
        cmocka_unit_test(test_boot_medians_are_draws),
        cmocka_unit_test(test_ratio_interval_vs_sort),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
