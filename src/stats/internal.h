/* stats/internal: the statistics' entry points that only their unit tests call
 * (the pieces of the bootstrap and of the Mann-Whitney test that other modules use
 * whole, HdrHistogram's encoding, a histogram reset). Other modules use the stats headers; a
 * name moves back there when another module needs it. Pure functions: no state. */
#ifndef TB_STATS_INTERNAL_H
#define TB_STATS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "stats/hdr.h"
#include "stats/hist.h"
#include "stats/rank.h"
#include "stats/units.h"

/* ---- stats/hdr.h ---- */
/* Appends h in HdrHistogram's V2 compressed encoding, base64 (no line breaks). */
int tb_hdr_encode(const tb_hist *h, tb_buf *out, tb_err *err);

/* ---- stats/hist.h ---- */
/* Zeroes every counter and the totals; the buckets stay allocated. */
void tb_hist_reset(tb_hist *h);

/* ---- stats/rank.h ---- */
/* Mann-Whitney U test of x against y (unsorted, not modified). */
int tb_stats_mwu(const double *x, size_t nx, const double *y, size_t ny, tb_mwu *out);
/* The law for n (tb_stats_medlaw in rank.h). 0, or -1 (n out of range, OOM). */
int tb_stats_medlaw_init(tb_stats_medlaw *law, size_t n);
void tb_stats_medlaw_free(tb_stats_medlaw *law);
/* One resample's median of sorted[0..law->n-1]. */
double tb_stats_medlaw_draw(const tb_stats_medlaw *law, const double *sorted, uint64_t *state);
/* The positions of one resample's median for any n >= 1, without a table: drawing
   n indices uniformly is floor(n * U) of n uniforms, and floor keeps order, so the
   lower median's position is floor(n * U_(k)) with U_(k) ~ Beta(k, n+1-k), k =
   ceil(n/2) (Beta from two Marsaglia-Tsang gammas); for even n the upper one is
   floor(n * U_(k+1)), U_(k+1) = U_(k) + (1 - U_(k)) * (1 - V^(1/(n-k))) (the least
   of the n-k draws above U_(k)). O(1) per resample; the law of the positions is
   tb_stats_medlaw's (checked in test_rank.c). Used above TB_STATS_MEDLAW_MAX. */
void tb_stats_median_positions(size_t n, uint64_t *state, size_t *lo, size_t *hi);
/* 100*level % percentile-bootstrap interval of median(b) / median(a) from sorted
 * samples (na, nb >= 1): a's medians drawn from seed, b's from seed ^
 * TB_STATS_BOOT_SEED_B, paired (ratio = mb * (1 / ma)). lo = hi = NAN when a has a value <= 0. 0 or
 * -1 (OOM). */
int tb_stats_boot_median_ratio(tb_stats_boot *bt, const double *a_sorted, size_t na,
                               const double *b_sorted, size_t nb, uint64_t seed, double level,
                               double *lo, double *hi);
/* tb_stats_boot_median_ratio's one-shot form on unsorted samples (a context made and freed inside).
 */
int tb_stats_bootstrap_median_ratio(const double *a, size_t na, const double *b, size_t nb,
                                    unsigned resamples, uint64_t seed, double level, double *lo,
                                    double *hi);
/* The k-th smallest (0-based) of x[0..n-1], k < n; reorders x (quickselect):
   afterwards x[k] holds it, nothing before k is larger, nothing after is smaller. */
double tb_stats_select(double *x, size_t n, size_t k);

/* ---- stats/units.h ---- */
/* Result in milliseconds: "10" = "10s" = 10000, "2m" = 120000, "500ms" = 500. */
int tb_scan_time_ms(const char *s, uint64_t *ms);

#endif
