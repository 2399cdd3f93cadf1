/* hist: a log-linear histogram of non-negative integers (teebench records
 * latencies in nanoseconds), 3 significant digits, mergeable.
 *
 * Layout (HdrHistogram-like): values below 2048 have a counter each; above, each
 * power-of-two range [2^e, 2^(e+1)) is split into 1024 equal buckets, so a
 * bucket is at most 1/1024 of its values wide (relative error < 0.1 %). With
 * the default range of 2^44 ns (about 4.9 hours) that is 36864 counters (288 KiB).
 * Values above the range are clamped to its top and counted in `clamped`.
 * count, sum, min and max are exact; percentiles report the highest value that
 * is equivalent to the bucket holding the rank (never above max).
 *
 * Threads: a histogram is not shared; keep one per thread and tb_hist_merge them
 * at the end. Ownership: tb_hist_init allocates the counters, tb_hist_free frees. */
#ifndef TB_STATS_HIST_H
#define TB_STATS_HIST_H

#include <stdint.h>

#include "base/err.h"

#define TB_HIST_SUB_BITS 11
#define TB_HIST_DEFAULT_MAX (UINT64_C(1) << 44)

typedef struct tb_hist {
    uint64_t *counts;
    uint32_t ncounts;
    uint64_t highest; /* largest value recordable without clamping */
    uint64_t count;
    uint64_t sum;
    uint64_t min; /* UINT64_MAX when empty */
    uint64_t max;
    uint64_t clamped;
} tb_hist;

/* highest: the largest value to distinguish (>= 2048; TB_HIST_DEFAULT_MAX for latencies). */
int tb_hist_init(tb_hist *h, uint64_t highest, tb_err *err);
void tb_hist_free(tb_hist *h);

/* Counter index of a value (exposed for tests). */
static inline uint32_t tb_hist_index(uint64_t v)
{
    if (v < (UINT64_C(1) << TB_HIST_SUB_BITS))
        return (uint32_t)v;
    int e = 63 - __builtin_clzll(v);
    int shift = e - (TB_HIST_SUB_BITS - 1);
    uint64_t sub = v >> shift;
    return (uint32_t)((UINT64_C(1) << TB_HIST_SUB_BITS) +
                      (uint64_t)(shift - 1) * (UINT64_C(1) << (TB_HIST_SUB_BITS - 1)) +
                      (sub - (UINT64_C(1) << (TB_HIST_SUB_BITS - 1))));
}

/* Records n occurrences of v. Allocation-free; a handful of instructions. */
static inline void tb_hist_record_n(tb_hist *h, uint64_t v, uint64_t n)
{
    if (v > h->highest) {
        v = h->highest;
        h->clamped += n;
    }
    h->counts[tb_hist_index(v)] += n;
    h->count += n;
    h->sum += v * n;
    if (v < h->min)
        h->min = v;
    if (v > h->max)
        h->max = v;
}

static inline void tb_hist_record(tb_hist *h, uint64_t v)
{
    tb_hist_record_n(h, v, 1);
}

/* Smallest and largest value that share counter i. */
uint64_t tb_hist_lowest_equiv(uint32_t i);
uint64_t tb_hist_highest_equiv(uint32_t i);

/* Adds src into dst; both must have the same highest. */
int tb_hist_merge(tb_hist *dst, const tb_hist *src, tb_err *err);

/* The value at percentile p (0 < p <= 100): the ceil(p/100*count)-th smallest,
 * to 3 significant digits (within the bucket), clamped to [min, max]. 0 if empty. */
uint64_t tb_hist_percentile(const tb_hist *h, double p);
double tb_hist_mean(const tb_hist *h);
/* Sample standard deviation (n - 1), from the bucket midpoints. 0 below 2 values. */
double tb_hist_stdev(const tb_hist *h, double mean);
/* Percentage of values within [mean - k*stdev, mean + k*stdev] (wrk's "+/- Stdev"). */
double tb_hist_within(const tb_hist *h, double mean, double stdev, double k);

/* wrk's coordinated-omission correction for closed-loop runs: for every value
 * v >= 2*interval it adds the values v - interval, v - 2*interval, ... down to
 * (and excluding) interval, as the requests that could not be sent meanwhile. */
void tb_hist_correct(tb_hist *h, uint64_t interval);

#endif
