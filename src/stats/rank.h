/* rank: comparing two independent samples -- environments side by side (the
 * compare module): a rank test, an interval for each median and an interval for
 * the ratio of two medians. Benchmark samples are repetitions (a handful to a few
 * hundred values), never assumed normal.
 *
 * Definitions (each checkable by hand or by enumeration in python3; the
 * Mann-Whitney choices are scipy.stats.mannwhitneyu's, method="auto",
 * alternative="two-sided", use_continuity=True):
 * - Mann-Whitney U: U1 = R1 - nx(nx+1)/2, R1 the sum of x's mid-ranks in the
 *   pooled sample (= the pairs x_i > y_j plus half the pairs x_i == y_j);
 *   U2 = nx*ny - U1, U = max(U1, U2).
 *   Exact when min(nx, ny) <= TB_MWU_EXACT_MAX and there are no ties (and, unlike
 *   scipy, nx*ny <= TB_MWU_EXACT_CELLS, which bounds the memory of the counts):
 *   p = 2 * P(U' >= U) under the null (all C(nx+ny, nx) arrangements equally
 *   likely; the counts are the Gaussian binomial coefficients, built as
 *   prod_{i=1..m} (1 - q^(n'+i)) / (1 - q^i) with m = min, n' = max), capped at 1.
 *   Otherwise the normal approximation with continuity and tie correction:
 *   z = (U - nx*ny/2 - 0.5) / s, s^2 = nx*ny/12 * ((N+1) - sum(t^3 - t)/(N(N-1))),
 *   N = nx + ny, t the sizes of the tie groups; p = 2 * (1 - Phi(z)) capped at 1
 *   (p = 1 when s == 0: every value equal).
 * - Confidence interval of a median, distribution-free (order statistics; what
 *   benchstat reports): [x_(k), x_(n+1-k)] of the sorted sample (1-based), k the
 *   largest integer with 2 * P(B <= k-1) <= 1 - level, B ~ Binomial(n, 1/2).
 *   Its coverage 1 - 2 * P(B <= k-1) is at least the level (conservative, no
 *   interpolation). When even k = 1 does not reach the level there is no
 *   interval: at 95 % that is n < 6 (n = 6 gives [min, max], coverage 96.9 %).
 * - stdev: the sample standard deviation (n - 1), as Python's statistics.stdev;
 *   CV = stdev / |mean|. Where the squares would overflow (values beyond 1e154)
 *   or underflow (deviations below 1e-154), it is computed on the values scaled
 *   by a power of two (exact) and scaled back: inf only for a stdev beyond DBL_MAX.
 *   Averages of two order statistics (resample medians) use tb_stats_midpoint,
 *   interval ends tb_stats_lerp (summary.h): no overflow on finite samples.
 * - Ratio of medians: percentile bootstrap of median(b) / median(a), each sample
 *   resampled independently with replacement, `resamples` times, randomness from
 *   splitmix64 seeded by the caller (same inputs + seed = same interval); the
 *   interval's ends interpolate linearly between order statistics of the
 *   resampled ratios at (1 - level)/2 and (1 + level)/2 (as summary.h's
 *   bootstrap). Defined for positive samples only (every value of a > 0).
 *   How a resample's median is drawn: the median of n values drawn with
 *   replacement from sorted x is x_(J) (odd n) or (x_(J1) + x_(J2)) / 2 (even n),
 *   and the law of those positions depends on n alone (counts are multinomial):
 *   P(J1 <= i, J2 <= j) = P(S_i >= m+1) + P(S_i = m) * (1 - ((n-1-j)/(n-1-i))^(n-m))
 *   for i < j, P(S_j >= m+1) for j <= i, with n = 2m, S_i ~ Binomial(n, (i+1)/n)
 *   (odd n = 2m+1: P(J <= i) = P(S_i >= m+1)). A tb_stats_medlaw holds that law
 *   as an alias table (Vose), so one resample costs O(1) instead of n draws and a
 *   sort -- the same bootstrap distribution (checked against enumeration of all
 *   n^n resamples in test_rank.c). Above TB_STATS_MEDLAW_MAX values the
 *   positions come from the order statistics of uniforms instead
 *   (tb_stats_median_positions: Beta variates, O(1) per resample, any n).
 * All functions are pure (no global state); scratch memory is freed before they
 * return, and -1 means out of memory unless a function says otherwise. */
#ifndef TB_STATS_RANK_H
#define TB_STATS_RANK_H

#include <stddef.h>
#include <stdint.h>

/* scipy's method="auto": exact when the smaller sample has at most 8 values (and no ties). */
#define TB_MWU_EXACT_MAX 8
#define TB_MWU_EXACT_CELLS 1000000
/* Largest sample size whose resample-median law is tabulated (n(n+1)/2 points). */
#define TB_STATS_MEDLAW_MAX 256

typedef struct tb_mwu {
    double u1;      /* U of the first sample */
    double p_value; /* two-sided; NAN when a sample is empty */
    int shift;      /* the direction of the test: +1 when U1 > nx*ny/2 (x tends to lie
                       above y), -1 when U1 < nx*ny/2, 0 at the centre (no direction;
                       then p_value is 1). A significant test always has one; the
                       medians may still be equal (quantized values, many ties) */
    int exact;      /* 1: exact null distribution, 0: normal approximation */
    int ties;       /* some value occurs more than once in the pooled sample */
} tb_mwu;

/* Mann-Whitney U test of xs against ys, samples already sorted ascending (no copy, no
   sort; tests call tb_stats_mwu, stats/internal.h, on unsorted ones). */
int tb_stats_mwu_sorted(const double *xs, size_t nx, const double *ys, size_t ny, tb_mwu *out);
/* The smallest two-sided p-value the exact test can give for these sizes:
   2 / C(nx+ny, nx), capped at 1 (1 when a size is 0). Below alpha a difference can
   be detected at all: 3 vs 3 values never reach 0.05 (0.1), 4 vs 4 do (0.029). */
double tb_stats_mwu_min_p(size_t nx, size_t ny);

/* Adjusting a family of p-values for testing many hypotheses at once (R's
 * p.adjust, with the p-values sorted ascending p_(1) <= ... <= p_(m)):
 * - Holm: p~_(i) = min(1, max_{j<=i} (m - j + 1) p_(j)); p~ < alpha holds the
 *   family-wise error rate (the chance of any false rejection) at alpha;
 * - Benjamini-Hochberg: p~_(i) = min(1, min_{j>=i} m p_(j) / j); p~ < alpha holds
 *   the false discovery rate (the expected share of false rejections among the
 *   rejections) at alpha, for independent or positively dependent tests.
 * NONE copies. Ties get equal adjusted values. */
enum tb_stats_adjust { TB_STATS_ADJUST_NONE = 0, TB_STATS_ADJUST_HOLM, TB_STATS_ADJUST_BH };
/* p[0..m-1] (each in [0, 1]) adjusted by method into out[0..m-1] (out may be p).
   0, or -1 (out of memory, or an unknown method). */
int tb_stats_p_adjust(const double *p, size_t m, int method, double *out);

typedef struct tb_stats_ci {
    double lo, hi;   /* NAN when n is too small for the level */
    size_t k;        /* lo = sorted[k-1], hi = sorted[n-k]; 0 when there is no interval */
    double coverage; /* 1 - 2 * P(B <= k-1); NAN when there is no interval */
} tb_stats_ci;

/* Distribution-free interval of the median of sorted[0..n-1] at level (0 < level < 1). */
void tb_stats_median_ci_sorted(const double *sorted, size_t n, double level, tb_stats_ci *out);
/* The smallest n with an interval at level: 6 at 0.95, 8 at 0.99. */
size_t tb_stats_median_ci_min_n(double level);

/* Sample standard deviation (n - 1 in the denominator); NAN when n < 2. */
double tb_stats_stdev(const double *x, size_t n);
/* stdev / |mean|; NAN when n < 2 or the mean is 0. */
double tb_stats_cv(const double *x, size_t n);

/* The law of the position(s) of a bootstrap resample's median, for one n
 * (1 <= n <= TB_STATS_MEDLAW_MAX). Owns its arrays; tb_stats_medlaw_free frees them. */
typedef struct tb_stats_medlaw {
    size_t n;        /* sample size */
    size_t k;        /* support points */
    uint16_t *lo;    /* 0-based positions in the sorted sample: the median is */
    uint16_t *hi;    /*   (x[lo] + x[hi]) / 2 (lo == hi for odd n) */
    double *p;       /* probability of each point (sums to 1) */
    double *cut;     /* alias method: keep point i when u < cut[i] ... */
    uint32_t *alias; /* ... else take point alias[i] */
} tb_stats_medlaw;

/* A bootstrap context: the laws built so far (by n) and scratch space, reused
 * across calls. Not shared between threads. Free with tb_stats_boot_free. */
typedef struct tb_stats_boot {
    unsigned resamples;
    tb_stats_medlaw *laws[TB_STATS_MEDLAW_MAX + 1]; /* built on first use */
    double *ma, *mb;                                /* resamples medians each */
    double *ratio, *tail;                           /* resamples values each */
    uint16_t *bucket;                               /* resamples values */
    double *val; /* a law's median values for the sample being drawn from */
    size_t val_cap;
    /* The points a law picks for resamples 0..resamples-1 depend on n and the seed
       alone (not on the values): the last few (n, seed) sequences are kept, so a
       sample's medians are a gather. */
    struct tb_stats_boot_picks {
        size_t n;
        uint64_t seed;
        uint16_t *point;
    } picks[4];
    unsigned next_pick;
} tb_stats_boot;

/* resamples >= 1. 0, or -1 (out of memory). */
int tb_stats_boot_init(tb_stats_boot *b, unsigned resamples);
void tb_stats_boot_free(tb_stats_boot *b);
/* The medians of bt->resamples bootstrap resamples of sorted[0..n-1] (n >= 1),
 * randomness from splitmix64 starting at seed: out[0..resamples-1]. A pure
 * function of (sorted, seed): a baseline's medians can be drawn once and paired
 * with several samples' medians. 0 or -1 (OOM). */
int tb_stats_boot_medians(tb_stats_boot *bt, const double *sorted, size_t n, uint64_t seed,
                          double *out);
/* 1 / x[i] into out[i] (out may be x): the inv_ma of tb_stats_boot_ratio_interval.
   0, or -1 when some 1 / x[i] is not a normal double (|x[i]| below 2^-1022 -- a
   subnormal, whose reciprocal overflows -- or above 2^1022): then the product would
   not be the ratio, and tb_stats_boot_ratio_interval_div (on x itself) is the one. */
int tb_stats_reciprocals(const double *x, size_t n, double *out);
/* The percentile interval of mb[i] * inv_ma[i] over the resamples (inv_ma[i] =
 * 1 / ma[i], every ma[i] > 0: one reciprocal per baseline resample, then a product),
 * with linear interpolation between order statistics (see above). No sort: a
 * histogram of the ratios finds the buckets that hold the wanted ranks, and the
 * order statistics are selected among the values of the tail buckets only. */
void tb_stats_boot_ratio_interval(tb_stats_boot *bt, const double *inv_ma, const double *mb,
                                  double level, double *lo, double *hi);
/* The same with the ratios mb[i] / ma[i] (a division each: for medians whose
   reciprocals are not normal doubles). */
void tb_stats_boot_ratio_interval_div(tb_stats_boot *bt, const double *ma, const double *mb,
                                      double level, double *lo, double *hi);
/* b's resamples are drawn from seed ^ this (tb_stats_boot_median_ratio, stats/internal.h). */
#define TB_STATS_BOOT_SEED_B 0x5851f42d4c957f2dull

#endif
