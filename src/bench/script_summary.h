/* script_summary: the summary that the source document's benchmark-tee-impact.sh prints
 * (its embedded Python, tee'd into summary.txt), key for key and figure for figure,
 * so that scripts reading the original's summary.txt read teebench's.
 *
 * Computed exactly as the original: a run is successful when exit_code is 0 and
 * notarization_ms is present (tb_bench_result_ok); per mode, in the fixed order
 * no_tee, tee_no_verify, tee_verify (modes without a successful run are skipped):
 *   MODE: runs=N avg_notarization_ms=… median_notarization_ms=… p90_notarization_ms=…
 *   avg_total_e2e_ms=… avg_tdx_verify_ms=… median_tdx_verify_ms=…
 *   avg_notarization_plus_verify_ms=… median_notarization_plus_verify_ms=…
 *   p90_notarization_plus_verify_ms=… avg_wall_ms=…
 * (one line; "n/a" for a metric without values), then the overhead lines
 * (tee_no_verify_avg_… / _median_… / _paired_avg_… / _paired_median_…
 * notarization_overhead_ms= / _percent=, tee_verify_avg_notarization_…,
 * tee_verify_avg_combined_…, tee_verify_median_combined_…, tee_verify_paired_…),
 * tee_verify_avg_tdx_verify_ms= tee_verify_median_tdx_verify_ms=, and
 * failed_runs=N when some row has a non-zero exit code. Every figure is "%.2f".
 * Mean is the exact mean (statistics.mean: integers summed exactly), median the
 * middle value or the mean of the two middle ones, P90
 * statistics.quantiles(n=10, method="inclusive")[8] (the one value of a single
 * run), paired overheads by iteration (the last successful row of an iteration;
 * a pair whose base is 0 skipped), percentages (x - base) / base * 100.
 * Where the original would crash (a mean or median of 0 as a divisor) the figure
 * is "n/a". Pure: no I/O, no globals. */
#ifndef TB_BENCH_SCRIPT_SUMMARY_H
#define TB_BENCH_SCRIPT_SUMMARY_H

#include <jansson.h>

#include "base/buf.h"
#include "base/err.h"
#include "benchcsv/benchcsv.h"

/* Appends the section (starting with "summary from successful runs:\n") to out.
 * When json is not NULL it gets "modes" {MODE: {runs, avg_notarization_ms, ...}},
 * "overhead" {KEY: value} and "failed_runs" (the same keys, unrounded; null for n/a).
 * Returns 0, or -1 when out of memory. */
int tb_bench_script_summary(const tb_bench_results *rs, tb_buf *out, json_t *json, tb_err *err);

#endif
