/* bench/internal: the harness's entry points that only its unit tests and fuzz
 * targets call (the lenient reader, the plain-path CSV creator, the row helpers, the
 * mode table). Other modules use bench/results.h, bench/run.h, bench/report.h and
 * bench/script_summary.h; a name moves back there when another module needs it. */
#ifndef TB_BENCH_INTERNAL_H
#define TB_BENCH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "bench/results.h"
#include "bench/run.h"

/* ---- bench/results.h ---- */
/* tb_bench_results_parse (results.h), but a bad row (or a duplicate (mode, iteration)) does not
 * fail the parse: it goes to out->damaged and the rows around it are kept. Only a missing or wrong
 * header, or running out of memory, fail. */
int tb_bench_results_parse_lenient(const char *data, size_t len, tb_bench_results *out,
                                   tb_err *err);
/* Creates path (it must not exist) with header + '\n'; returns an O_APPEND fd
 * (caller closes) or -1. */
int tb_bench_csv_create(const char *path, const char *header, tb_err *err);
/* Appends a copy of row to rs. 0 or -1 (OOM). */
int tb_bench_retries_push(tb_bench_retries *rs, const tb_bench_retry_row *row, tb_err *err);
/* Formats milliseconds for CSV: up to 3 decimals, trailing zeros dropped. */
int tb_bench_format_ms(double ms, char *out, size_t n);

/* ---- bench/run.h ---- */
/* The TCP target the client gets: TARGET_HOST, or FIXTURE_ADDR when unset. */
const char *tb_bench_config_target_host(const tb_bench_config *c);
/* Mode -> client flags: no_tee (0,0), tee_no_verify (1,0), tee_verify (1,1). */
int tb_bench_mode_flags(const char *mode, int *enable_tee, int *verify);

#endif
