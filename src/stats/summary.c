/* summary: see summary.h for the definitions. Every function works on caller
 * arrays or on scratch copies freed before it returns. */
#include "stats/summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void tb_stats_sort(double *x, size_t n)
{
    if (n > 48) {
        qsort(x, n, sizeof *x, cmp_double);
        return;
    }
    /* insertion sort: benchmark samples are mostly a few dozen values, where this
       is several times faster than qsort's calls through cmp_double */
    for (size_t i = 1; i < n; i++) {
        double v = x[i];
        size_t j = i;
        for (; j > 0 && x[j - 1] > v; j--)
            x[j] = x[j - 1];
        x[j] = v;
    }
}

/* v kept between a <= b (rounding in an overflow-safe formula may step outside). */
static double clamp(double v, double a, double b)
{
    return v < a ? a : v > b ? b : v;
}

double tb_stats_quantile_sorted(const double *sorted, size_t n, int i, int m)
{
    if (n == 1)
        return sorted[0];
    /* Python: j = i*(n-1) // m; delta = i*(n-1) - j*m; (x[j]*(m-delta) + x[j+1]*delta) / m */
    size_t num = (size_t)i * (n - 1);
    size_t j = num / (size_t)m;
    size_t delta = num - j * (size_t)m;
    if (delta == 0)
        return sorted[j];
    double a = sorted[j], b = sorted[j + 1], wa = (double)((size_t)m - delta), wb = (double)delta;
    double v = (a * wa + b * wb) / m;
    if (isfinite(v) || !isfinite(a) || !isfinite(b))
        return v;
    /* a * wa + b * wb overflowed: each term divided by m first is at most max(|a|, |b|) */
    return clamp(a / m * wa + b / m * wb, a, b);
}

double tb_stats_midpoint(double a, double b)
{
    double s = a + b;
    if (isfinite(s) || !isfinite(a) || !isfinite(b))
        return s * 0.5;
    return a * 0.5 + b * 0.5; /* |a|, |b| near DBL_MAX: halving is exact there */
}

double tb_stats_lerp(double a, double b, double t)
{
    if (t == 0 || a == b)
        return a;
    double d = b - a;
    if (isfinite(d) || !isfinite(a) || !isfinite(b))
        return a + d * t;
    return clamp(a * (1 - t) + b * t, a < b ? a : b, a < b ? b : a);
}

/* The two-pass mean of x[i] * scale (a power of two): the mean, then the mean of the
   residuals, for a correctly rounded result on values with a large common offset. */
static double mean_scaled(const double *x, size_t n, double scale)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i] * scale;
    double m = s / (double)n;
    double r = 0;
    for (size_t i = 0; i < n; i++)
        r += x[i] * scale - m;
    return m + r / (double)n;
}

double tb_stats_mean(const double *x, size_t n)
{
    double m = mean_scaled(x, n, 1);
    if (isfinite(m))
        return m;
    double lo = x[0], hi = x[0];
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]))
            return m; /* an infinite or NAN value: the plain answer is the answer */
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    /* The sum overflowed: scaled by 2^-(e+1) with n < 2^e, no sum of n of them
       (nor of their residuals) can, and the scaling is exact but for values so small
       next to the largest that they could not change the sum. */
    int e;
    frexp((double)n, &e);
    return clamp(ldexp(mean_scaled(x, n, ldexp(1, -(e + 1))), e + 1), lo, hi);
}

static double *sorted_copy(const double *x, size_t n)
{
    double *s = malloc(n * sizeof *s);
    if (!s)
        return NULL;
    memcpy(s, x, n * sizeof *s);
    tb_stats_sort(s, n);
    return s;
}

int tb_stats_describe(const double *x, size_t n, tb_stats_desc *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return 0;
    double *s = sorted_copy(x, n);
    if (!s)
        return -1;
    out->n = n;
    out->mean = tb_stats_mean(x, n);
    out->median = tb_stats_quantile_sorted(s, n, 1, 2);
    out->p90 = tb_stats_quantile_sorted(s, n, 9, 10);
    out->q1 = tb_stats_quantile_sorted(s, n, 1, 4);
    out->q3 = tb_stats_quantile_sorted(s, n, 3, 4);
    out->min = s[0];
    out->max = s[n - 1];
    out->outlier_fence = out->q3 + 3.0 * (out->q3 - out->q1);
    free(s);
    return 0;
}

int tb_stats_median(const double *x, size_t n, double *out)
{
    if (n == 0)
        return -1;
    double *s = sorted_copy(x, n);
    if (!s)
        return -1;
    *out = tb_stats_quantile_sorted(s, n, 1, 2);
    free(s);
    return 0;
}

uint64_t tb_stats_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform index in [0, n) (multiply-shift; bias below 2^-40 for n < 2^24). */
static size_t pick(uint64_t *state, size_t n)
{
    return (size_t)(((unsigned __int128)tb_stats_splitmix64(state) * n) >> 64);
}

static double resample_median(const double *x, size_t n, double *scratch, uint64_t *state)
{
    for (size_t i = 0; i < n; i++)
        scratch[i] = x[pick(state, n)];
    tb_stats_sort(scratch, n);
    return tb_stats_quantile_sorted(scratch, n, 1, 2);
}

int tb_stats_bootstrap_median_diff(const double *a, size_t na, const double *b, size_t nb,
                                   unsigned resamples, uint64_t seed, double level, double *lo,
                                   double *hi)
{
    if (na == 0 || nb == 0 || resamples == 0 || !(level > 0 && level < 1))
        return -1;
    double *scratch = malloc((na > nb ? na : nb) * sizeof *scratch);
    double *stat = malloc(resamples * sizeof *stat);
    if (!scratch || !stat) {
        free(scratch);
        free(stat);
        return -1;
    }
    uint64_t state = seed;
    for (unsigned r = 0; r < resamples; r++) {
        double ma = resample_median(a, na, scratch, &state);
        double mb = resample_median(b, nb, scratch, &state);
        stat[r] = mb - ma;
    }
    tb_stats_sort(stat, resamples);
    /* Percentile interval: linear interpolation at (1-level)/2 and (1+level)/2. */
    double alpha = (1.0 - level) / 2.0;
    for (int k = 0; k < 2; k++) {
        double q = k == 0 ? alpha : 1.0 - alpha;
        double pos = q * (double)(resamples - 1);
        size_t j = (size_t)pos;
        double frac = pos - (double)j;
        double v = j + 1 < resamples ? tb_stats_lerp(stat[j], stat[j + 1], frac) : stat[j];
        *(k == 0 ? lo : hi) = v;
    }
    free(scratch);
    free(stat);
    return 0;
}

typedef struct absrank {
    double abs;
    int positive;
} absrank;

static int cmp_absrank(const void *a, const void *b)
{
    return cmp_double(&((const absrank *)a)->abs, &((const absrank *)b)->abs);
}

/* Exact two-sided p-value of W+ given the doubled (integer) ranks r2[0..n-1]. */
static int exact_p(const long *r2, size_t n, long t_obs, double *p)
{
    long total = 0;
    for (size_t i = 0; i < n; i++)
        total += r2[i];
    double *count = calloc((size_t)total + 1, sizeof *count);
    if (!count)
        return -1;
    count[0] = 1; /* count[s]: sign assignments whose positive doubled ranks sum to s */
    long reach = 0;
    for (size_t i = 0; i < n; i++) {
        for (long s = reach; s >= 0; s--)
            if (count[s] != 0)
                count[s + r2[i]] += count[s];
        reach += r2[i];
    }
    double all = ldexp(1.0, (int)n), le = 0, ge = 0;
    for (long s = 0; s <= total; s++) {
        if (s <= t_obs)
            le += count[s];
        if (s >= t_obs)
            ge += count[s];
    }
    free(count);
    double two = 2.0 * (le < ge ? le : ge) / all;
    *p = two > 1.0 ? 1.0 : two;
    return 0;
}

int tb_stats_wilcoxon(const double *d, size_t n, tb_wilcoxon *out)
{
    memset(out, 0, sizeof *out);
    out->p_value = 1.0;
    out->exact = 1;
    absrank *v = malloc((n ? n : 1) * sizeof *v);
    long *r2 = malloc((n ? n : 1) * sizeof *r2);
    if (!v || !r2) {
        free(v);
        free(r2);
        return -1;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (d[i] == 0) {
            out->zeros++;
            continue;
        }
        v[m].abs = fabs(d[i]);
        v[m].positive = d[i] > 0;
        m++;
    }
    out->n = m;
    qsort(v, m, sizeof *v, cmp_absrank);
    double tie_term = 0; /* sum over tie groups of t^3 - t */
    for (size_t i = 0; i < m;) {
        size_t j = i;
        while (j + 1 < m && v[j + 1].abs == v[i].abs)
            j++;
        /* ranks i+1 .. j+1 share the mid-rank (i+j+2)/2; doubled: i+j+2 */
        for (size_t k = i; k <= j; k++) {
            r2[k] = (long)(i + j + 2);
            if (v[k].positive)
                out->w_plus += (double)(i + j + 2) / 2.0;
            else
                out->w_minus += (double)(i + j + 2) / 2.0;
        }
        double t = (double)(j - i + 1);
        tie_term += t * t * t - t;
        i = j + 1;
    }
    int rc = 0;
    if (m > 0 && m <= TB_WILCOXON_EXACT_MAX) {
        rc = exact_p(r2, m, lround(2.0 * out->w_plus), &out->p_value);
    } else if (m > 0) {
        double nn = (double)m;
        double mu = nn * (nn + 1) / 4.0;
        double var = nn * (nn + 1) * (2 * nn + 1) / 24.0 - tie_term / 48.0;
        double z = var > 0 ? (out->w_plus - mu) / sqrt(var) : 0;
        out->p_value = erfc(fabs(z) / sqrt(2.0));
        if (out->p_value > 1)
            out->p_value = 1;
        out->exact = 0;
    }
    free(v);
    free(r2);
    return rc;
}

/* P(|T| <= t) for T ~ t(df), t >= 0 (Abramowitz & Stegun 26.7.3, 26.7.4). */
static double t_central(double t, size_t df)
{
    double th = atan(t / sqrt((double)df)), c2 = cos(th) * cos(th), s = sin(th);
    double sum = 1, term = 1;
    if (df % 2 == 0) { /* sin(th) (1 + c2/2 + 1*3/(2*4) c2^2 + ... + c2^((df-2)/2) ...) */
        for (size_t k = 1; k <= (df - 2) / 2; k++) {
            term *= c2 * (double)(2 * k - 1) / (double)(2 * k);
            sum += term;
            if (term < 1e-17 * sum)
                break;
        }
        return s * sum;
    }
    if (df == 1)
        return 2 * th / M_PI;
    /* 2/pi (th + sin(th) cos(th) (1 + 2/3 c2 + 2*4/(3*5) c2^2 + ... + c2^((df-3)/2) ...)) */
    for (size_t k = 1; k <= (df - 3) / 2; k++) {
        term *= c2 * (double)(2 * k) / (double)(2 * k + 1);
        sum += term;
        if (term < 1e-17 * sum)
            break;
    }
    return 2 / M_PI * (th + s * cos(th) * sum);
}

double tb_stats_t_quantile(double level, size_t df)
{
    if (!(level > 0 && level < 1) || df < 1)
        return NAN;
    if (df > 100000)
        df = 100000;
    double lo = 0, hi = 2;
    while (t_central(hi, df) < level && hi < 1e300)
        hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
        double mid = (lo + hi) / 2;
        if (t_central(mid, df) < level)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}
