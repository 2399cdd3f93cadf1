/* hdr: HdrHistogram's text and file formats for a tb_hist.
 *
 * A tb_hist (stats/hist.h) has exactly the counter layout of an HdrHistogram with
 * lowest discernible value 1, 3 significant digits (2048 sub-buckets) and the same
 * highest trackable value: counter i of one is counter i of the other. So the
 * formats below are written from the counters as they are, with no conversion:
 * - wrk2's "Detailed Percentile spectrum" (HdrHistogram's classic
 *   percentile distribution: Value, Percentile, TotalCount, 1/(1-Percentile), then
 *   the `#[Mean ...]` footer), with HdrHistogram's percentile iteration;
 * - HdrHistogram's V2 compressed encoding (big-endian header, ZigZag LEB128
 *   counts with zero runs, zlib-deflated, base64), the payload of an interval log;
 * - the interval log (.hlog) itself: its header lines and one line per interval.
 * Values are the histogram's (teebench: ns); value_scale divides them for display.
 * Nothing here prints: text goes into a tb_buf the caller owns. */
#ifndef TB_STATS_HDR_H
#define TB_STATS_HDR_H

#include "base/buf.h"
#include "base/err.h"
#include "stats/hist.h"

/* HdrHistogram's value at percentile p: the highest value equivalent to the counter
 * that holds the (p/100 * count + 0.5)-th value (at least the first). 0 if empty. */
uint64_t tb_hdr_value_at_percentile(const tb_hist *h, double p);
/* HdrHistogram's mean and (population) standard deviation, from each counter's
 * median equivalent value. 0 if empty. */
double tb_hdr_mean(const tb_hist *h);
double tb_hdr_stddev(const tb_hist *h);
/* The number of HdrHistogram buckets (of 2048 sub-buckets) h spans (wrk2's footer). */
int tb_hdr_bucket_count(const tb_hist *h);

/* Appends the classic percentile distribution: the column titles, one row per
 * percentile step (ticks_per_half steps per halving of the distance to 100 %, wrk2
 * uses 5), the 100 % row, and the three `#[...]` footer lines. Values are divided by
 * value_scale and printed with 3 decimals (ns / 1e6: milliseconds, as wrk2). */
int tb_hdr_spectrum(const tb_hist *h, double value_scale, int ticks_per_half, tb_buf *out);

/* The interval log's header: format version 1.3, start time (seconds since the
 * epoch) and base time, the column legend. comment (may be NULL) goes first as
 * a `#[...]` line. */
int tb_hdr_log_header(tb_buf *out, const char *comment, double start_epoch_s);
/* One interval line: [Tag=tag,]start,length,max,histogram; start relative to the
 * base time (s), max in value / max_scale (ns / 1e6: ms, HdrHistogram's default).
 * tag: NULL, or letters, digits, '-', '_' and '.' only. */
int tb_hdr_log_interval(tb_buf *out, const char *tag, double start_s, double length_s,
                        const tb_hist *h, double max_scale, tb_err *err);

#endif
