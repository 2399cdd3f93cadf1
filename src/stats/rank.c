/* rank: see rank.h for the definitions. Pure functions over caller arrays; the
 * bootstrap context (tb_stats_boot) caches the resample-median laws by sample
 * size and owns them until tb_stats_boot_free. */
#include "stats/internal.h"
#include "stats/rank.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/summary.h"

/* ---- Mann-Whitney U ---------------------------------------------------- */

/* Walks the two sorted samples as one pooled sample, tie group by tie group:
   the rank sum of x (mid-ranks), sum(t^3 - t) over the groups, whether any t > 1. */
static void pooled_ranks(const double *xs, size_t nx, const double *ys, size_t ny, double *r1,
                         double *tie_term, int *ties)
{
    size_t i = 0, j = 0, before = 0;
    *r1 = 0;
    *tie_term = 0;
    *ties = 0;
    while (i < nx || j < ny) {
        double v;
        if (j >= ny || (i < nx && xs[i] <= ys[j]))
            v = xs[i];
        else
            v = ys[j];
        size_t cx = 0, cy = 0;
        while (i < nx && xs[i] == v) {
            i++;
            cx++;
        }
        while (j < ny && ys[j] == v) {
            j++;
            cy++;
        }
        double t = (double)(cx + cy);
        *r1 += (double)cx * ((double)before + (t + 1.0) / 2.0);
        if (cx + cy > 1) {
            *ties = 1;
            *tie_term += t * t * t - t;
        }
        before += cx + cy;
    }
}

/* C(a, b) as a double (b small or the product overflowing to inf). */
static double choose(size_t a, size_t b)
{
    if (b > a - b)
        b = a - b;
    double c = 1;
    for (size_t i = 1; i <= b; i++)
        c = c * (double)(a - b + i) / (double)i;
    return c;
}

/* Exact P(U' <= d) for sizes m <= n' under the null: counts of U' = 0..d are the
   coefficients of prod_{i=1..m} (1 - q^(n'+i)) / (1 - q^i), truncated at degree d. */
static int exact_cdf(size_t m, size_t np, size_t d, double *out)
{
    double *c = calloc(d + 1, sizeof *c);
    if (!c)
        return -1;
    c[0] = 1;
    for (size_t i = 1; i <= m; i++) {
        size_t up = np + i;
        for (size_t u = d; u >= up && u <= d; u--) /* times (1 - q^up), descending */
            c[u] -= c[u - up];
        for (size_t u = i; u <= d; u++) /* divided by (1 - q^i), ascending */
            c[u] += c[u - i];
    }
    double s = 0;
    for (size_t u = 0; u <= d; u++)
        s += c[u];
    free(c);
    *out = s / choose(m + np, m);
    return 0;
}

int tb_stats_mwu_sorted(const double *xs, size_t nx, const double *ys, size_t ny, tb_mwu *out)
{
    memset(out, 0, sizeof *out);
    out->p_value = NAN;
    if (nx == 0 || ny == 0)
        return 0;
    double r1, tie_term;
    pooled_ranks(xs, nx, ys, ny, &r1, &tie_term, &out->ties);
    double fx = (double)nx, fy = (double)ny, big_n = fx + fy;
    out->u1 = r1 - fx * (fx + 1) / 2.0;
    /* U1 is a sum of halves: the comparison with nx*ny/2 is exact */
    out->shift = (out->u1 > fx * fy / 2.0) - (out->u1 < fx * fy / 2.0);
    double u2 = fx * fy - out->u1;
    double u = out->u1 > u2 ? out->u1 : u2;
    size_t small = nx < ny ? nx : ny, large = nx < ny ? ny : nx;
    double p;
    if (small <= TB_MWU_EXACT_MAX && !out->ties && fx * fy <= TB_MWU_EXACT_CELLS) {
        /* P(U' >= U) = P(U' <= nx*ny - U) by symmetry: sum the small tail. */
        double cdf;
        if (exact_cdf(small, large, (size_t)llround(fx * fy - u), &cdf) < 0)
            return -1;
        p = 2.0 * cdf;
        out->exact = 1;
    } else {
        double s2 = fx * fy / 12.0 * ((big_n + 1) - tie_term / (big_n * (big_n - 1)));
        if (s2 <= 0) {
            p = 1;
        } else {
            double z = (u - fx * fy / 2.0 - 0.5) / sqrt(s2);
            p = erfc(z / sqrt(2.0));
        }
    }
    out->p_value = p > 1 ? 1 : p;
    return 0;
}

static double *sorted_copy(const double *x, size_t n)
{
    double *s = malloc((n ? n : 1) * sizeof *s);
    if (!s)
        return NULL;
    if (n)
        memcpy(s, x, n * sizeof *s);
    tb_stats_sort(s, n);
    return s;
}

int tb_stats_mwu(const double *x, size_t nx, const double *y, size_t ny, tb_mwu *out)
{
    double *xs = sorted_copy(x, nx), *ys = sorted_copy(y, ny);
    int rc = -1;
    if (xs && ys)
        rc = tb_stats_mwu_sorted(xs, nx, ys, ny, out);
    free(xs);
    free(ys);
    return rc;
}

double tb_stats_mwu_min_p(size_t nx, size_t ny)
{
    if (nx == 0 || ny == 0)
        return 1;
    double p = 2.0 / choose(nx + ny, nx < ny ? nx : ny);
    return p > 1 ? 1 : p;
}

/* ---- many tests at once ------------------------------------------------ */

typedef struct ranked_p {
    double p;
    size_t i;
} ranked_p;

static int cmp_ranked_p(const void *a, const void *b)
{
    const ranked_p *x = a, *y = b;
    if (x->p != y->p)
        return x->p < y->p ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i); /* stable: the same input, the same order */
}

int tb_stats_p_adjust(const double *p, size_t m, int method, double *out)
{
    if (method != TB_STATS_ADJUST_NONE && method != TB_STATS_ADJUST_HOLM &&
        method != TB_STATS_ADJUST_BH)
        return -1;
    if (method == TB_STATS_ADJUST_NONE || m == 0) {
        if (out != p && m)
            memmove(out, p, m * sizeof *out);
        return 0;
    }
    ranked_p *r = malloc(m * sizeof *r);
    if (!r)
        return -1;
    for (size_t i = 0; i < m; i++)
        r[i] = (ranked_p){p[i], i};
    qsort(r, m, sizeof *r, cmp_ranked_p);
    double fm = (double)m;
    if (method == TB_STATS_ADJUST_HOLM) {
        double run = 0; /* the running maximum from the smallest p up */
        for (size_t j = 0; j < m; j++) {
            double v = (fm - (double)j) * r[j].p;
            run = v > run ? v : run;
            r[j].p = run < 1 ? run : 1;
        }
    } else {
        double run = 1; /* the running minimum from the largest p down */
        for (size_t j = m; j-- > 0;) {
            double v = fm * r[j].p / (double)(j + 1);
            run = v < run ? v : run;
            r[j].p = run;
        }
    }
    for (size_t j = 0; j < m; j++)
        out[r[j].i] = r[j].p;
    free(r);
    return 0;
}

/* ---- median interval, spread ------------------------------------------- */

/* The largest k >= 1 with 2 * P(B <= k-1) <= 1 - level, B ~ Binomial(n, 1/2), and
   its coverage; k = 0 when there is none. Sums the pmf in log space (no underflow
   of 2^-n); above 400 values from 12 standard deviations below n/2 on, where the
   mass left out is below 1e-30 (O(sqrt(n)) terms instead of n/2). */
static size_t ci_rank(size_t n, double level, double *coverage)
{
    double tail = 1.0 - level, cdf = 0, fn = (double)n, lp = -fn * M_LN2;
    size_t k = 0, j0 = 0;
    *coverage = NAN;
    if (n > 400) {
        j0 = (size_t)(fn / 2 - 6 * sqrt(fn));
        double fj = (double)j0;
        lp = lgamma(fn + 1) - lgamma(fj + 1) - lgamma(fn - fj + 1) - fn * M_LN2;
        k = j0; /* P(B <= j0 - 1) < 1e-30: [x_(j0), x_(n+1-j0)] covers */
        *coverage = 1;
    }
    for (size_t j = j0; 2 * j < n; j++) {
        double next = cdf + exp(lp);
        if (2.0 * next > tail * (1 + 1e-12))
            break;
        cdf = next;
        k = j + 1;
        *coverage = 1.0 - 2.0 * cdf;
        lp += log((double)(n - j)) - log((double)(j + 1));
    }
    return k;
}

void tb_stats_median_ci_sorted(const double *sorted, size_t n, double level, tb_stats_ci *out)
{
    out->lo = out->hi = out->coverage = NAN;
    out->k = n ? ci_rank(n, level, &out->coverage) : 0;
    if (out->k == 0)
        return;
    out->lo = sorted[out->k - 1];
    out->hi = sorted[n - out->k];
}

size_t tb_stats_median_ci_min_n(double level)
{
    double cov;
    for (size_t n = 1; n < 64; n++)
        if (ci_rank(n, level, &cov) > 0)
            return n;
    return 64;
}

/* sqrt(sum((x[i] * 2^k - m)^2) / (n - 1)), m the mean of the scaled values. */
static double stdev_scaled(const double *x, size_t n, int k)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += ldexp(x[i], k);
    double m = s / (double)n, r = 0;
    for (size_t i = 0; i < n; i++)
        r += ldexp(x[i], k) - m;
    m += r / (double)n;
    double ss = 0;
    for (size_t i = 0; i < n; i++) {
        double d = ldexp(x[i], k) - m;
        ss += d * d;
    }
    return sqrt(ss / (double)(n - 1));
}

double tb_stats_stdev(const double *x, size_t n)
{
    if (n < 2)
        return NAN;
    double m = tb_stats_mean(x, n), ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - m) * (x[i] - m);
    double sd = sqrt(ss / (double)(n - 1));
    if ((isfinite(sd) && ss >= 0x1p-900) || isnan(sd))
        return sd;
    /* The squares overflowed (values beyond 1e154) or lost digits to underflow
       (deviations below 1e-154): the same on the values scaled by a power of two
       that brings the largest to [0.5, 1) -- exact -- and scaled back. */
    double big = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]))
            return sd;
        big = fabs(x[i]) > big ? fabs(x[i]) : big;
    }
    int e;
    frexp(big, &e);
    return ldexp(stdev_scaled(x, n, -e), e); /* inf only when the stdev is beyond DBL_MAX */
}

double tb_stats_cv(const double *x, size_t n)
{
    if (n < 2)
        return NAN;
    double m = tb_stats_mean(x, n);
    if (m == 0)
        return NAN;
    return tb_stats_stdev(x, n) / fabs(m);
}

/* ---- the law of a resample's median ------------------------------------ */

/* summary.h's tb_stats_splitmix64, inlined into the draw loops. */
static inline uint64_t splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* P(S = t), S ~ Binomial(n, q). */
static double binom_pmf(size_t n, size_t t, double q)
{
    if (q >= 1)
        return t == n ? 1 : 0;
    double fn = (double)n, ft = (double)t;
    return exp(lgamma(fn + 1) - lgamma(ft + 1) - lgamma(fn - ft + 1) + ft * log(q) +
               (fn - ft) * log1p(-q));
}

/* P(S >= t), S ~ Binomial(n, q). */
static double binom_ge(size_t n, size_t t, double q)
{
    double s = 0;
    for (size_t u = t; u <= n; u++)
        s += binom_pmf(n, u, q);
    return s > 1 ? 1 : s;
}

/* Vose's alias method over p[0..k-1] (sums to 1). small/large: k indices each. */
static void build_alias(tb_stats_medlaw *law, uint32_t *small, uint32_t *large)
{
    size_t k = law->k, ns = 0, nl = 0;
    for (size_t i = 0; i < k; i++) {
        law->cut[i] = law->p[i] * (double)k;
        law->alias[i] = (uint32_t)i;
        if (law->cut[i] < 1)
            small[ns++] = (uint32_t)i;
        else
            large[nl++] = (uint32_t)i;
    }
    while (ns && nl) {
        uint32_t s = small[--ns], l = large[nl - 1];
        law->alias[s] = l;
        law->cut[l] -= 1.0 - law->cut[s];
        if (law->cut[l] < 1) {
            nl--;
            small[ns++] = l;
        }
    }
    while (nl)
        law->cut[large[--nl]] = 1; /* rounding leftovers */
    while (ns)
        law->cut[small[--ns]] = 1;
}

/* G(i, j) = P(J1 <= i, J2 <= j) for even n = 2m (see rank.h); t[i] = P(S_i >= m+1),
   e[i] = P(S_i = m). */
static double joint_cdf(size_t n, const double *t, const double *e, long i, long j)
{
    if (i < 0 || j < 0)
        return 0;
    if (j <= i)
        return t[j];
    double r = (double)(n - 1 - (size_t)j) / (double)(n - 1 - (size_t)i);
    return t[i] + e[i] * (1.0 - pow(r, (double)(n - n / 2)));
}

int tb_stats_medlaw_init(tb_stats_medlaw *law, size_t n)
{
    memset(law, 0, sizeof *law);
    if (n == 0 || n > TB_STATS_MEDLAW_MAX)
        return -1;
    law->n = n;
    size_t cap = n % 2 ? n : n * (n + 1) / 2;
    double *t = malloc(n * sizeof *t), *e = malloc(n * sizeof *e);
    law->lo = malloc(cap * sizeof *law->lo);
    law->hi = malloc(cap * sizeof *law->hi);
    law->p = malloc(cap * sizeof *law->p);
    law->cut = malloc(cap * sizeof *law->cut);
    law->alias = malloc(cap * sizeof *law->alias);
    uint32_t *small = malloc(2 * cap * sizeof *small);
    if (!t || !e || !law->lo || !law->hi || !law->p || !law->cut || !law->alias || !small) {
        free(t);
        free(e);
        free(small);
        tb_stats_medlaw_free(law);
        return -1;
    }
    size_t m = n / 2;
    for (size_t i = 0; i < n; i++) {
        double q = (double)(i + 1) / (double)n;
        t[i] = binom_ge(n, m + 1, q);
        e[i] = n % 2 ? 0 : binom_pmf(n, m, q);
    }
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = i; j < n; j++) {
            double p;
            if (n % 2) {
                if (j != i)
                    break;
                p = t[i] - (i ? t[i - 1] : 0);
            } else {
                long li = (long)i, lj = (long)j;
                p = joint_cdf(n, t, e, li, lj) - joint_cdf(n, t, e, li - 1, lj) -
                    joint_cdf(n, t, e, li, lj - 1) + joint_cdf(n, t, e, li - 1, lj - 1);
            }
            if (!(p > 1e-17)) /* rounding residue of impossible or negligible points */
                continue;
            law->lo[law->k] = (uint16_t)i;
            law->hi[law->k] = (uint16_t)j;
            law->p[law->k++] = p;
            sum += p;
        }
    }
    for (size_t i = 0; i < law->k; i++)
        law->p[i] /= sum;
    build_alias(law, small, small + cap);
    free(t);
    free(e);
    free(small);
    return 0;
}

void tb_stats_medlaw_free(tb_stats_medlaw *law)
{
    free(law->lo);
    free(law->hi);
    free(law->p);
    free(law->cut);
    free(law->alias);
    memset(law, 0, sizeof *law);
}

double tb_stats_medlaw_draw(const tb_stats_medlaw *law, const double *sorted, uint64_t *state)
{
    uint64_t r = splitmix(state);
    size_t i = (size_t)(((r >> 32) * (uint64_t)law->k) >> 32);
    double u = (double)(r & 0xffffffffu) * 0x1p-32;
    if (u >= law->cut[i])
        i = law->alias[i];
    return tb_stats_midpoint(sorted[law->lo[i]], sorted[law->hi[i]]);
}

/* ---- bootstrap of the ratio of medians --------------------------------- */

double tb_stats_select(double *x, size_t n, size_t k)
{
    ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
    while (hi > lo) {
        ptrdiff_t mid = lo + (hi - lo) / 2;
        double tmp;
#define SWAP(a, b) (tmp = x[a], x[a] = x[b], x[b] = tmp)
        if (x[mid] < x[lo])
            SWAP(mid, lo);
        if (x[hi] < x[lo])
            SWAP(hi, lo);
        if (x[hi] < x[mid])
            SWAP(hi, mid);
        double pivot = x[mid];
        ptrdiff_t i = lo, j = hi;
        while (i <= j) {
            while (x[i] < pivot)
                i++;
            while (x[j] > pivot)
                j--;
            if (i <= j) {
                SWAP(i, j);
                i++;
                j--;
            }
        }
#undef SWAP
        if (kk <= j)
            hi = j;
        else if (kk >= i)
            lo = i;
        else
            return x[kk];
    }
    return x[kk];
}

int tb_stats_boot_init(tb_stats_boot *b, unsigned resamples)
{
    memset(b, 0, sizeof *b);
    if (resamples == 0)
        return -1;
    b->resamples = resamples;
    b->ma = malloc(resamples * sizeof *b->ma);
    b->mb = malloc(resamples * sizeof *b->mb);
    b->ratio = malloc(resamples * sizeof *b->ratio);
    b->tail = malloc(resamples * sizeof *b->tail);
    b->bucket = malloc(resamples * sizeof *b->bucket);
    if (b->ma && b->mb && b->ratio && b->tail && b->bucket)
        return 0;
    tb_stats_boot_free(b);
    return -1;
}

void tb_stats_boot_free(tb_stats_boot *b)
{
    for (size_t i = 0; i <= TB_STATS_MEDLAW_MAX; i++) {
        if (b->laws[i]) {
            tb_stats_medlaw_free(b->laws[i]);
            free(b->laws[i]);
        }
    }
    free(b->ma);
    free(b->mb);
    for (size_t i = 0; i < sizeof b->picks / sizeof b->picks[0]; i++)
        free(b->picks[i].point);
    free(b->ratio);
    free(b->tail);
    free(b->bucket);
    free(b->val);
    memset(b, 0, sizeof *b);
}

static const tb_stats_medlaw *law_for(tb_stats_boot *b, size_t n)
{
    if (n > TB_STATS_MEDLAW_MAX)
        return NULL;
    if (!b->laws[n]) {
        tb_stats_medlaw *law = malloc(sizeof *law);
        if (!law || tb_stats_medlaw_init(law, n) < 0) {
            free(law);
            return NULL;
        }
        b->laws[n] = law;
    }
    return b->laws[n];
}

/* A uniform double in (0, 1). */
static double uniform01(uint64_t *state)
{
    return ((double)(splitmix(state) >> 11) + 0.5) * 0x1p-53;
}

/* A standard normal variate (Marsaglia's polar method, one of the pair). */
static double normal01(uint64_t *state)
{
    for (;;) {
        double u = 2 * uniform01(state) - 1, v = 2 * uniform01(state) - 1, s = u * u + v * v;
        if (s > 0 && s < 1)
            return u * sqrt(-2 * log(s) / s);
    }
}

/* Gamma(a, 1) for a >= 1 (Marsaglia and Tsang, 2000). */
static double gamma_ge1(double a, uint64_t *state)
{
    double d = a - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x = normal01(state), v = 1 + c * x;
        if (v <= 0)
            continue;
        v = v * v * v;
        double u = uniform01(state);
        if (u < 1 - 0.0331 * x * x * x * x || log(u) < 0.5 * x * x + d * (1 - v + log(v)))
            return d * v;
    }
}

void tb_stats_median_positions(size_t n, uint64_t *state, size_t *lo, size_t *hi)
{
    size_t k = (n + 1) / 2; /* the lower median is the k-th smallest (1-based) */
    double fn = (double)n, g1 = gamma_ge1((double)k, state);
    double u = g1 / (g1 + gamma_ge1(fn + 1 - (double)k, state)); /* U_(k) ~ Beta(k, n+1-k) */
    double un = u;
    if (n % 2 == 0) /* U_(k+1): the least of the n-k draws above U_(k) */
        un = u + (1 - u) * -expm1(log(uniform01(state)) / (fn - (double)k));
    double l = floor(fn * u), h = floor(fn * un);
    *lo = l < fn - 1 ? (size_t)l : n - 1;
    *hi = h < fn - 1 ? (size_t)h : n - 1;
}

typedef struct drawer {
    const tb_stats_medlaw *law; /* NULL: value by value */
    const double *x;
    size_t n;
} drawer;

static int drawer_init(tb_stats_boot *b, drawer *d, const double *x, size_t n)
{
    d->x = x;
    d->n = n;
    d->law = NULL;
    if (n <= TB_STATS_MEDLAW_MAX)
        return (d->law = law_for(b, n)) ? 0 : -1;
    return 0;
}

/* The law's points for resamples 0..resamples-1 from seed (tb_stats_medlaw_draw's
   choice), from the cache or drawn now. NULL when out of memory. */
static const uint16_t *picks_for(tb_stats_boot *bt, const tb_stats_medlaw *law, uint64_t seed)
{
    size_t slots = sizeof bt->picks / sizeof bt->picks[0];
    for (size_t i = 0; i < slots; i++)
        if (bt->picks[i].point && bt->picks[i].n == law->n && bt->picks[i].seed == seed)
            return bt->picks[i].point;
    struct tb_stats_boot_picks *p = &bt->picks[bt->next_pick++ % slots];
    if (!p->point && !(p->point = malloc(bt->resamples * sizeof *p->point)))
        return NULL;
    p->n = law->n;
    p->seed = seed;
    uint64_t state = seed, k = law->k;
    for (unsigned i = 0; i < bt->resamples; i++) {
        uint64_t r = splitmix(&state);
        size_t j = (size_t)(((r >> 32) * k) >> 32);
        double u = (double)(r & 0xffffffffu) * 0x1p-32;
        p->point[i] = (uint16_t)(u < law->cut[j] ? j : law->alias[j]);
    }
    return p->point;
}

int tb_stats_boot_medians(tb_stats_boot *bt, const double *sorted, size_t n, uint64_t seed,
                          double *out)
{
    drawer d;
    if (n == 0 || drawer_init(bt, &d, sorted, n) < 0)
        return -1;
    uint64_t state = seed;
    if (!d.law) {
        for (unsigned i = 0; i < bt->resamples; i++) {
            size_t lo, hi;
            tb_stats_median_positions(n, &state, &lo, &hi);
            out[i] = tb_stats_midpoint(sorted[lo], sorted[hi]);
        }
        return 0;
    }
    const uint16_t *point = picks_for(bt, d.law, seed);
    if (!point)
        return -1;
    const tb_stats_medlaw *law = d.law;
    if (bt->val_cap < law->k) {
        double *v = realloc(bt->val, law->k * sizeof *v);
        if (!v)
            return -1;
        bt->val = v;
        bt->val_cap = law->k;
    }
    double *val = bt->val;
    for (size_t i = 0; i < law->k; i++)
        val[i] = tb_stats_midpoint(sorted[law->lo[i]], sorted[law->hi[i]]);
    for (unsigned i = 0; i < bt->resamples; i++)
        out[i] = val[point[i]];
    return 0;
}

/* The interval's ends without a sort: a histogram of TAIL_BUCKETS equal-width
   buckets over [min, max] of the ratios tells which buckets hold the wanted ranks;
   only the values in the buckets up to the one holding rank lo_j + 1 (and from
   the one holding rank hi_j on) are collected and selected among -- a few dozen
   values when the tails are thin. A bucket is a monotone function of the value,
   so the collected values are exactly the smallest (largest) ones. */
enum { TAIL_BUCKETS = 1024 };

/* Statistics k and k+1 (the same when k + 1 == c) of w[0..c-1], which it reorders. */
static void select_pair(double *w, size_t c, size_t k, double *a, double *b)
{
    *a = tb_stats_select(w, c, k);
    *b = *a;
    if (k + 1 < c) {
        *b = w[k + 1];
        for (size_t i = k + 2; i < c; i++)
            if (w[i] < *b)
                *b = w[i];
    }
}

/* Order statistics lo_j, lo_j + 1, hi_j, hi_j + 1 of v[0..n-1] (lo_j < hi_j) into
   out[0..3], v kept as it is; mn, mx its minimum and maximum. w: n doubles and
   bucket: n uint16 of scratch. */
static void tail_stats(const double *v, size_t n, double mn, double mx, size_t lo_j, size_t hi_j,
                       double *w, uint16_t *bucket, double out[4])
{
    if (!(mx > mn)) {
        out[0] = out[1] = out[2] = out[3] = mn;
        return;
    }
    size_t b_lo = 0, b_hi = 0, below_hi = 0;
    double scale = (TAIL_BUCKETS - 1) / (mx - mn);
    if (isfinite(mx - mn) && isfinite(scale)) { /* a range of subnormals has scale inf */
        uint32_t count[TAIL_BUCKETS] = {0};
        for (size_t i = 0; i < n; i++) {
            int b = (int)((v[i] - mn) * scale);
            bucket[i] = (uint16_t)b;
            count[b]++;
        }
        /* b_lo: the bucket holding rank lo_j + 1; b_hi: the one holding rank hi_j */
        size_t want_lo = lo_j + 1 < n ? lo_j + 1 : n - 1, below = 0;
        while (below + count[b_lo] <= want_lo)
            below += count[b_lo++];
        /* from the top down: the high tail is as thin as the low one */
        size_t above = 0;
        b_hi = TAIL_BUCKETS - 1;
        while (n - above - count[b_hi] > hi_j)
            above += count[b_hi--];
        below_hi = n - above - count[b_hi];
    }
    if (b_lo >= b_hi) { /* no histogram, or the tails share a bucket: all values */
        memcpy(w, v, n * sizeof *w);
        select_pair(w, n, lo_j, &out[0], &out[1]);
        select_pair(w, n, hi_j, &out[2], &out[3]);
        return;
    }
    /* one pass: the low tail (buckets <= b_lo: ranks 0..) fills w from the front,
       the high tail (buckets >= b_hi: ranks below_hi..) from the back; the tails are
       disjoint (b_lo < b_hi) */
    size_t c_lo = 0, c_hi = 0;
    for (size_t i = 0; i < n; i++) { /* the tails are thin: the branches predict well */
        if (bucket[i] <= b_lo)
            w[c_lo++] = v[i];
        else if (bucket[i] >= b_hi)
            w[n - 1 - c_hi++] = v[i];
    }
    select_pair(w, c_lo, lo_j, &out[0], &out[1]);
    select_pair(w + n - c_hi, c_hi, hi_j - below_hi, &out[2], &out[3]);
}

int tb_stats_reciprocals(const double *x, size_t n, double *out)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        bad |= !(fabs(x[i]) >= 0x1p-1022 && fabs(x[i]) <= 0x1p1022); /* 1/x normal */
        out[i] = 1.0 / x[i];
    }
    return bad ? -1 : 0;
}

/* The interval of the ratios mb[i] * a[i] (a = 1 / ma) or, divide != 0, mb[i] / a[i]
   (a = ma). */
static void ratio_interval(tb_stats_boot *bt, const double *a, int divide, const double *mb,
                           double level, double *lo, double *hi)
{
    size_t r = bt->resamples;
    double *v = bt->ratio, mn = divide ? mb[0] / a[0] : mb[0] * a[0], mx = mn;
    for (size_t i = 0; i < r; i++) {
        double x = divide ? mb[i] / a[i] : mb[i] * a[i];
        v[i] = x;
        mn = x < mn ? x : mn;
        mx = x > mx ? x : mx;
    }
    double q = (1.0 - level) / 2.0;
    double pos_lo = q * (double)(r - 1), pos_hi = (1.0 - q) * (double)(r - 1);
    size_t j_lo = (size_t)pos_lo, j_hi = (size_t)pos_hi;
    double st[4];
    tail_stats(v, r, mn, mx, j_lo, j_hi, bt->tail, bt->bucket, st);
    *lo = tb_stats_lerp(st[0], st[1], pos_lo - (double)j_lo);
    *hi = tb_stats_lerp(st[2], st[3], pos_hi - (double)j_hi);
}

void tb_stats_boot_ratio_interval(tb_stats_boot *bt, const double *inv_ma, const double *mb,
                                  double level, double *lo, double *hi)
{
    ratio_interval(bt, inv_ma, 0, mb, level, lo, hi);
}

void tb_stats_boot_ratio_interval_div(tb_stats_boot *bt, const double *ma, const double *mb,
                                      double level, double *lo, double *hi)
{
    ratio_interval(bt, ma, 1, mb, level, lo, hi);
}

int tb_stats_boot_median_ratio(tb_stats_boot *bt, const double *a_sorted, size_t na,
                               const double *b_sorted, size_t nb, uint64_t seed, double level,
                               double *lo, double *hi)
{
    *lo = *hi = NAN;
    if (na == 0 || nb == 0 || !(a_sorted[0] > 0) || !(level > 0 && level < 1))
        return 0;
    if (tb_stats_boot_medians(bt, a_sorted, na, seed, bt->ma) < 0 ||
        tb_stats_boot_medians(bt, b_sorted, nb, seed ^ TB_STATS_BOOT_SEED_B, bt->mb) < 0)
        return -1;
    if (tb_stats_reciprocals(bt->ma, bt->resamples, bt->tail) == 0)
        tb_stats_boot_ratio_interval(bt, bt->tail, bt->mb, level, lo, hi);
    else /* a median whose reciprocal is not a normal double: divide */
        tb_stats_boot_ratio_interval_div(bt, bt->ma, bt->mb, level, lo, hi);
    return 0;
}

int tb_stats_bootstrap_median_ratio(const double *a, size_t na, const double *b, size_t nb,
                                    unsigned resamples, uint64_t seed, double level, double *lo,
                                    double *hi)
{
    tb_stats_boot bt;
    double *as = sorted_copy(a, na), *bs = sorted_copy(b, nb);
    int rc = -1;
    if (as && bs && tb_stats_boot_init(&bt, resamples) == 0) {
        rc = tb_stats_boot_median_ratio(&bt, as, na, bs, nb, seed, level, lo, hi);
        tb_stats_boot_free(&bt);
    }
    free(as);
    free(bs);
    return rc;
}
