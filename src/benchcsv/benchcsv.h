/* benchcsv: the CSV files of the notarization benchmark (`teebench bench notary`,
 * benchmark-tee-impact.sh) -- the rows of results.csv and retries.csv -- and the
 * KEY=value lines a benchmark client prints. A leaf (it uses base/ only): the
 * harness (bench/run) writes these files, the importer (record/import), the
 * summaries (bench/report, bench/script) and workloads/notary read them.
 *
 * results.csv has exactly the header TB_BENCH_RESULTS_HEADER (the source benchmark
 * script's), one row per (mode, iteration): the final attempt of that run.
 * enable_tee and verify_attestation are written 0/1 as the script writes them
 * (true/false are read too).
 * Numbers are milliseconds; an empty field is a value the run did not report.
 * Text cells (mode, log paths) are written by base/csv: one a spreadsheet would run
 * as a formula (a RESULTS_DIR "=..." or "-...") gets a leading ' that the reader
 * takes off again.
 * Writing: a row is one line written with a single write() on an O_APPEND file
 * descriptor, so an interrupted run leaves complete rows and never a torn line; a
 * write cut short (disk full) is rolled back (ftruncate to the old size) and
 * reported with its errno ("No space left on device").
 * Parsing is strict (the exact header, 12 fields a row, RFC 4180 quoting,
 * finite numbers, one row per (mode, iteration)) and fails with "line N: <what>"
 * on the first bad row. The lenient parse (for summaries) keeps every intact row
 * and lists each damaged one -- a row cut short, a bad field, a duplicate
 * (mode, iteration), whose first row is kept -- with its line and why.
 *
 * retries.csv (TB_BENCH_RETRIES_HEADER) lists each attempt that failed and was
 * retried: the superseded attempts, with their own logs. */
#ifndef TB_BENCHCSV_BENCHCSV_H
#define TB_BENCHCSV_BENCHCSV_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

#define TB_BENCH_RESULTS_HEADER                                                                \
    "mode,iteration,enable_tee,verify_attestation,exit_code,notarization_ms,total_e2e_ms,"         \
    "tdx_verify_ms,notarization_plus_verify_ms,wall_ms,stdout_log,stderr_log"
#define TB_BENCH_RETRIES_HEADER "mode,iteration,attempt,exit_code,wall_ms,stdout_log,stderr_log"

#define TB_BENCH_MODE_MAX 64
#define TB_BENCH_LOG_PATH_MAX 1024
#define TB_BENCH_RESULTS_MAX_BYTES (64u << 20)
/* Largest number of ms accepted (about 31,700 years): larger ones are garbage. */
#define TB_BENCH_MS_MAX 1e15

/* Bits of tb_bench_result_row.has: which optional numbers are present. */
enum {
    TB_BENCH_HAS_NOTARIZATION = 1u << 0,
    TB_BENCH_HAS_TOTAL_E2E = 1u << 1,
    TB_BENCH_HAS_TDX_VERIFY = 1u << 2,
    TB_BENCH_HAS_NOTARIZATION_PLUS_VERIFY = 1u << 3,
    TB_BENCH_HAS_WALL = 1u << 4,
};

/* One row of results.csv. A plain value: no pointers. */
typedef struct tb_bench_result_row {
    char mode[TB_BENCH_MODE_MAX];
    long iteration;
    int enable_tee; /* 0/1 */
    int verify;     /* 0/1: verify_attestation */
    int exit_code;
    unsigned has;
    double notarization_ms, total_e2e_ms, tdx_verify_ms, notarization_plus_verify_ms, wall_ms;
    char stdout_log[TB_BENCH_LOG_PATH_MAX];
    char stderr_log[TB_BENCH_LOG_PATH_MAX];
} tb_bench_result_row;

/* A row the lenient parse left out: its first line and why. */
typedef struct tb_bench_damaged_row {
    long line;
    char why[256];
} tb_bench_damaged_row;

/* A growable array of rows; owns rows and damaged, freed by tb_bench_results_clear. */
typedef struct tb_bench_results {
    tb_bench_result_row *rows;
    size_t n, cap;
    tb_bench_damaged_row *damaged; /* lenient parse only: rows left out, in file order */
    size_t n_damaged, cap_damaged;
} tb_bench_results;

int tb_bench_results_push(tb_bench_results *rs, const tb_bench_result_row *row, tb_err *err);
void tb_bench_results_clear(tb_bench_results *rs);

/* A run succeeded when it exited 0 and reported its notarization time: the source
 * script's rule. A tee_verify run without a verification time is still a success
 * (its notarization_plus_verify_ms is the notarization alone), but is flagged:
 * tb_bench_result_unverified. */
int tb_bench_result_ok(const tb_bench_result_row *row);
/* 1 for a successful run that should have verified (verify_attestation) but
 * reported no TDX_VERIFY_MS. */
int tb_bench_result_unverified(const tb_bench_result_row *row);

/* Appends the row's CSV line (with '\n') to out. Fields that need it are quoted. */
int tb_bench_results_format_row(const tb_bench_result_row *row, tb_buf *out);

/* Parses a whole results.csv (data need not be NUL-terminated). Appends rows to
 * out (caller frees with tb_bench_results_clear, also on failure). */
int tb_bench_results_parse(const char *data, size_t len, tb_bench_results *out, tb_err *err);

/* Reads and parses path (at most TB_BENCH_RESULTS_MAX_BYTES); lenient: 0 strict, 1 lenient. */
int tb_bench_results_load(const char *path, int lenient, tb_bench_results *out, tb_err *err);

/* The same for name in the directory dfd (dir: its path, for messages), created
 * O_EXCL|O_NOFOLLOW: never an existing file, never through a symlink. */
int tb_bench_csv_create_at(int dfd, const char *dir, const char *name, const char *header,
                           tb_err *err);
/* Appends one complete line with a single write(). A short or failed write (disk
 * full) is undone -- the file is truncated back to its size before the call, so
 * no partial line stays -- and is -1 with err naming errno's reason. */
int tb_bench_csv_append_line(int fd, const char *line, size_t len, tb_err *err);

/* One failed-and-retried attempt (a row of retries.csv). */
typedef struct tb_bench_retry_row {
    char mode[TB_BENCH_MODE_MAX];
    long iteration;
    int attempt; /* 1 = the first try */
    int exit_code;
    double wall_ms;
    char stdout_log[TB_BENCH_LOG_PATH_MAX];
    char stderr_log[TB_BENCH_LOG_PATH_MAX];
} tb_bench_retry_row;

typedef struct tb_bench_retries {
    tb_bench_retry_row *rows;
    size_t n, cap;
} tb_bench_retries;

void tb_bench_retries_clear(tb_bench_retries *rs);
int tb_bench_retries_format_row(const tb_bench_retry_row *row, tb_buf *out);
int tb_bench_retries_parse(const char *data, size_t len, tb_bench_retries *out, tb_err *err);

/* What a client printed: the last occurrence of each KEY=value token on stdout. */
typedef struct tb_bench_client_output {
    unsigned has; /* TB_BENCH_HAS_NOTARIZATION, TB_BENCH_HAS_TOTAL_E2E, TB_BENCH_HAS_TDX_VERIFY */
    double notarization_ms, total_e2e_ms, tdx_verify_ms;
    int enable_tee; /* -1 when not printed, else 0/1 */
} tb_bench_client_output;

/* Scans text for whitespace-separated KEY=value tokens (NOTARIZATION_MS,
 * TOTAL_E2E_MS, TDX_VERIFY_MS, ENABLE_TEE_ATTESTATION). The last occurrence of a
 * key wins, even when its value is not a valid number (the key is then absent). */
void tb_bench_client_output_parse(const char *text, size_t len, tb_bench_client_output *out);

#endif
