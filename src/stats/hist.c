/* hist: log-linear histogram. See hist.h for the layout. */
#include "stats/hist.h"
#include "stats/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SUB_COUNT (UINT64_C(1) << TB_HIST_SUB_BITS)
#define HALF (SUB_COUNT / 2)

uint64_t tb_hist_lowest_equiv(uint32_t i)
{
    if (i < SUB_COUNT)
        return i;
    uint64_t shift = (i - SUB_COUNT) / HALF + 1;
    uint64_t sub = (i - SUB_COUNT) % HALF + HALF;
    return sub << shift;
}

uint64_t tb_hist_highest_equiv(uint32_t i)
{
    if (i < SUB_COUNT)
        return i;
    uint64_t shift = (i - SUB_COUNT) / HALF + 1;
    return tb_hist_lowest_equiv(i) + (UINT64_C(1) << shift) - 1;
}

int tb_hist_init(tb_hist *h, uint64_t highest, tb_err *err)
{
    memset(h, 0, sizeof *h);
    if (highest < SUB_COUNT || highest > (UINT64_C(1) << 62))
        return tb_errf(err, "histogram: highest value %llu out of range",
                       (unsigned long long)highest);
    h->highest = highest;
    h->ncounts = tb_hist_index(highest) + 1;
    h->counts = calloc(h->ncounts, sizeof *h->counts);
    if (!h->counts)
        return tb_errf(err, "histogram: out of memory");
    h->min = UINT64_MAX;
    return 0;
}

void tb_hist_free(tb_hist *h)
{
    free(h->counts);
    h->counts = NULL;
    h->ncounts = 0;
}

void tb_hist_reset(tb_hist *h)
{
    memset(h->counts, 0, h->ncounts * sizeof *h->counts);
    h->count = h->sum = h->max = h->clamped = 0;
    h->min = UINT64_MAX;
}

int tb_hist_merge(tb_hist *dst, const tb_hist *src, tb_err *err)
{
    if (dst->ncounts != src->ncounts)
        return tb_errf(err, "histogram merge: different ranges");
    for (uint32_t i = 0; i < src->ncounts; i++)
        dst->counts[i] += src->counts[i];
    dst->count += src->count;
    dst->sum += src->sum;
    dst->clamped += src->clamped;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
    return 0;
}

static uint64_t clamp(const tb_hist *h, uint64_t v)
{
    if (v > h->max)
        v = h->max;
    if (v < h->min)
        v = h->min;
    return v;
}

uint64_t tb_hist_percentile(const tb_hist *h, double p)
{
    if (h->count == 0)
        return 0;
    double r = ceil(p / 100.0 * (double)h->count);
    uint64_t rank = r < 1 ? 1 : (r > (double)h->count ? h->count : (uint64_t)r);
    uint64_t seen = 0;
    for (uint32_t i = tb_hist_index(h->min); i < h->ncounts; i++) {
        seen += h->counts[i];
        if (seen >= rank)
            return clamp(h, tb_hist_highest_equiv(i));
    }
    return h->max;
}

double tb_hist_mean(const tb_hist *h)
{
    return h->count ? (double)h->sum / (double)h->count : 0.0;
}

static double mid(const tb_hist *h, uint32_t i)
{
    uint64_t lo = tb_hist_lowest_equiv(i), hi = tb_hist_highest_equiv(i);
    return (double)clamp(h, lo + (hi - lo) / 2);
}

double tb_hist_stdev(const tb_hist *h, double mean)
{
    if (h->count < 2)
        return 0.0;
    long double acc = 0;
    uint32_t last = tb_hist_index(h->max);
    for (uint32_t i = tb_hist_index(h->min); i <= last; i++) {
        if (!h->counts[i])
            continue;
        long double d = mid(h, i) - mean;
        acc += d * d * h->counts[i];
    }
    return (double)sqrtl(acc / (long double)(h->count - 1));
}

double tb_hist_within(const tb_hist *h, double mean, double stdev, double k)
{
    if (h->count == 0)
        return 0.0;
    double lo = mean - k * stdev, hi = mean + k * stdev;
    uint64_t in = 0;
    uint32_t last = tb_hist_index(h->max);
    for (uint32_t i = tb_hist_index(h->min); i <= last; i++) {
        if (!h->counts[i])
            continue;
        double v = mid(h, i);
        if (v >= lo && v <= hi)
            in += h->counts[i];
    }
    return 100.0 * (double)in / (double)h->count;
}

void tb_hist_correct(tb_hist *h, uint64_t interval)
{
    if (interval == 0 || h->count == 0 || h->max < 2 * interval)
        return;
    uint32_t last = tb_hist_index(h->max);
    for (uint32_t i = tb_hist_index(2 * interval); i <= last; i++) {
        uint64_t c = h->counts[i];
        if (!c)
            continue;
        uint64_t v = clamp(h, tb_hist_highest_equiv(i));
        if (v < 2 * interval)
            continue;
        for (uint64_t m = v - interval; m > interval; m -= interval)
            tb_hist_record_n(h, m, c);
    }
}
