/* summary: descriptive statistics and paired comparisons of small samples
 * (benchmark runs: tens to thousands of values).
 *
 * Definitions (chosen to match Python's statistics module, so figures can be
 * checked with python3):
 * - quantiles use the "inclusive" method of statistics.quantiles: the i-th of m
 *   cut points of sorted x[0..n-1] is linear interpolation at position i*(n-1)/m;
 *   median = the 1st of 2 (statistics.median), P90 = the 9th of 10
 *   (statistics.quantiles(x, n=10, method="inclusive")[8]), Q1/Q3 = 1st/3rd of 4.
 *   With n == 1 every quantile is the value itself. Where that formula would
 *   overflow (values near +-DBL_MAX: the median of six DBL_MAX was inf), the same
 *   interpolation is computed on values divided by m, and kept between its two
 *   neighbours: extreme but finite samples give finite quantiles.
 * - mean and every average of two values (a bootstrap resample's median) never
 *   overflow on finite inputs: when the plain sum does, it is taken again on the
 *   values scaled by a power of two (exact), and scaled back.
 * - outliers: values above Q3 + 3 * IQR (IQR = Q3 - Q1), the high-side "far out"
 *   fence; benchmark latencies only have a long upper tail.
 * - bootstrap: percentile bootstrap of median(b) - median(a), each sample
 *   resampled independently with replacement; randomness from a caller-given
 *   seed (splitmix64, state local to the call): same inputs + seed = same CI.
 * - Wilcoxon signed-rank test of paired differences d: zeros are dropped
 *   (Wilcoxon's original method), |d| ranked with mid-ranks for ties. For
 *   n <= TB_WILCOXON_EXACT_MAX non-zero differences the two-sided p-value is
 *   exact: the permutation distribution of W+ over all 2^n sign assignments of
 *   the observed ranks (exact also with ties). Beyond that it is the normal
 *   approximation with the tie-corrected variance
 *   n(n+1)(2n+1)/24 - sum(t^3 - t)/48 and no continuity correction.
 * - Student's t quantile: the t with P(|T| <= t) = level for T ~ t(df), df >= 1 a
 *   whole number; P(|T| <= t) in closed form (Abramowitz & Stegun 26.7.3 and 26.7.4:
 *   with theta = atan(t / sqrt(df)), a finite sum of powers of cos(theta)), inverted by
 *   bisection to a relative 1e-12 (12.7062 for 95 % at df 1, 2.2281 at df 10).
 * All functions are pure: no global state. Those that allocate scratch memory
 * free it before returning and return -1 only when out of memory. */
#ifndef TB_STATS_SUMMARY_H
#define TB_STATS_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#define TB_WILCOXON_EXACT_MAX 50

/* Sorts x[0..n-1] ascending in place. */
void tb_stats_sort(double *x, size_t n);

/* The i-th of m inclusive-method cut points of sorted[0..n-1] (1 <= i < m, n >= 1). */
double tb_stats_quantile_sorted(const double *sorted, size_t n, int i, int m);

/* Arithmetic mean (n >= 1); finite for finite x (never more than max |x|). */
double tb_stats_mean(const double *x, size_t n);

/* (a + b) / 2 without overflow: finite for finite a and b. */
double tb_stats_midpoint(double a, double b);
/* a + (b - a) * t for 0 <= t <= 1 without overflow (a when t == 0 or a == b): between
   a and b for finite a and b. */
double tb_stats_lerp(double a, double b, double t);

typedef struct tb_stats_desc {
    size_t n;
    double mean, median, p90, min, max, q1, q3;
    double outlier_fence; /* q3 + 3 * (q3 - q1) */
} tb_stats_desc;

/* Describes x[0..n-1] (unsorted; not modified). n == 0 gives all zeros. */
int tb_stats_describe(const double *x, size_t n, tb_stats_desc *out);

/* Median of x (unsorted; not modified); -1 when out of memory or n == 0. */
int tb_stats_median(const double *x, size_t n, double *out);

/* 100*level % bootstrap CI of median(b) - median(a) from `resamples` resamples.
 * na, nb >= 1; 0 < level < 1. */
int tb_stats_bootstrap_median_diff(const double *a, size_t na, const double *b, size_t nb,
                                   unsigned resamples, uint64_t seed, double level, double *lo,
                                   double *hi);

typedef struct tb_wilcoxon {
    size_t n;       /* non-zero differences used */
    size_t zeros;   /* differences equal to zero (dropped) */
    double w_plus;  /* sum of ranks of positive differences */
    double w_minus; /* sum of ranks of negative differences */
    double p_value; /* two-sided; 1 when n == 0 */
    int exact;      /* 1: exact permutation p-value, 0: normal approximation */
} tb_wilcoxon;

int tb_stats_wilcoxon(const double *d, size_t n, tb_wilcoxon *out);

/* The two-sided Student's t quantile: t with P(|T| <= t) = level (0 < level < 1) for
   df >= 1 degrees of freedom (beyond 100000, df 100000's); NAN for other arguments. */
double tb_stats_t_quantile(double level, size_t df);

/* splitmix64: the deterministic generator used by the bootstrap (exposed for tests). */
uint64_t tb_stats_splitmix64(uint64_t *state);

#endif
