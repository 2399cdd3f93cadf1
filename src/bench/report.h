/* report: the text of summary.txt, computed from results.csv rows.
 *
 * First the source script's own summary section, key for key (bench/script_summary.h), then
 * teebench's. Over successful rows (tb_bench_result_ok) of each mode: n, mean, median and P90
 * (stats/summary.h definitions) of notarization_ms, of tdx_verify_ms where
 * present and of notarization_plus_verify_ms for modes that verify; overhead of
 * every other mode over the base mode "no_tee" by median (with a 95 % bootstrap
 * CI) and by mean, in ms and %; paired by iteration (mean and median of the
 * per-iteration differences, Wilcoxon signed-rank p-value); outlier runs (above
 * Q3 + 3 x IQR of their mode and metric, for samples of at least 4); successful
 * tee_verify runs without TDX_VERIFY_MS ("FLAGGED"); failed and retried runs (and
 * a "RETRIED:" line under the header when some attempt was retried); and the three
 * headline lines, formatted as the source benchmark's (and, when the rows
 * came from a lenient parse, the damaged rows left out: "DAMAGED line N: why"):
 *   tee_no_verify median overhead over no_tee: +278.00 ms (+25.48%)
 *   tee_verify median notarization+verify overhead over no_tee: +573.00 ms (+52.52%)
 *   tdx verify median: 326.00 ms
 * An overhead whose 95 % bootstrap CI includes zero, or with fewer than 6 runs in a
 * mode, says so on its line ("; not significant: 95 % CI [-1.44, +3.93] ms, n=5"),
 * and with a simulated notary TEE every headline ends with "; SIMULATED TEE" (the
 * header says SIMULATED too). Pure: the same rows and options always give the same
 * text. */
#ifndef TB_BENCH_REPORT_H
#define TB_BENCH_REPORT_H

#include <stdint.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/err.h"
#include "benchcsv/benchcsv.h"

#define TB_BENCH_REPORT_SEED 0x7eeb3e9c2026ull
#define TB_BENCH_REPORT_RESAMPLES 10000u

typedef struct tb_bench_report_opts {
    const char *source;              /* where the rows came from (printed); may be NULL */
    const char *notary_tee;          /* "none", "sim", "tdx", "external", or NULL: unknown */
    const tb_bench_retries *retries; /* superseded attempts; may be NULL */
    uint64_t seed;                   /* bootstrap seed (0: TB_BENCH_REPORT_SEED) */
    unsigned resamples;              /* bootstrap resamples (0: TB_BENCH_REPORT_RESAMPLES) */
} tb_bench_report_opts;

/* The headline figures (each valid only when its ok flag is set). */
typedef struct tb_bench_headline {
    int tee_overhead_ok;
    double tee_overhead_ms, tee_overhead_pct; /* tee_no_verify - no_tee, notarization medians */
    int verify_overhead_ok;
    double verify_overhead_ms, verify_overhead_pct; /* tee_verify n+v median - no_tee median */
    int verify_median_ok;
    double verify_median_ms; /* median tdx_verify_ms of tee_verify */
} tb_bench_headline;

/* Appends the summary text to out; fills *head when head is not NULL; when json is
 * not NULL, *json is a new object with the same figures (unrounded; caller
 * json_decrefs): script (bench/script_summary.h), source, notary_tee, simulated, runs {rows,
 * successful, failed, retried_attempts, damaged}, modes {MODE: {METRIC: {n, mean, median, p90, min,
 * max}}}, overhead[], paired[], outliers[], flagged_runs[], failed_runs[],
 * retried_attempts[], damaged_rows[] ({line, why}), headline {..._ms, ..._pct; null
 * when n/a; simulated; tee_overhead / verify_overhead: {ci95_ms, n_base, n,
 * significant}}. */
int tb_bench_report_summary(const tb_bench_results *rs, const tb_bench_report_opts *o, tb_buf *out,
                            tb_bench_headline *head, json_t **json, tb_err *err);

#endif
