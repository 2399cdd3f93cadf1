/* benchcsv/internal: the CSV files' entry points that only their unit tests and
 * fuzz targets call: the lenient reader, the plain-path CSV creator, the retries
 * array, the milliseconds cell. Other modules use
 * benchcsv/benchcsv.h; a name moves there when another module needs it. */
#ifndef TB_BENCHCSV_INTERNAL_H
#define TB_BENCHCSV_INTERNAL_H

#include <stddef.h>

#include "benchcsv/benchcsv.h"

/* tb_bench_results_parse (benchcsv.h), but a bad row (or a duplicate (mode, iteration)) does not
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

#endif
