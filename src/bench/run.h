/* run: the notarization benchmark's run matrix (`teebench bench notary`).
 *
 * One run directory holding results.csv, retries.csv, logs/<mode>-<iteration>.
 * stdout.log/.stderr.log, env.json, run.json (the configuration, including the
 * notary's TEE kind) and summary.txt. As in the source script, RESULTS_DIR is the
 * run directory itself (created if needed; one that already holds a results.csv is
 * refused rather than overwritten); without it, <out_root>/<UTC %Y%m%dT%H%M%SZ>/.
 * Order is iteration-major: for each iteration, each mode. Each run is a separate
 * client process (base/proc) in its own process group with its own timeout; past
 * it, the group gets SIGTERM, term_grace_ms later SIGKILL, the run is recorded
 * with exit code 124 and "benchmark runner: timed out after Ns" is appended to its
 * stderr log (the script's line). A failed run is retried up to `retries` times
 * at once (0 by default: the script never retries): the superseded attempt's logs
 * are renamed logs/<mode>-<iteration>.attempt<k>.*.log and listed in retries.csv,
 * and results.csv keeps one row per (mode, iteration): the last attempt.
 * Rows are appended one write() each, so an interrupted run leaves only
 * complete rows. Log paths in the CSVs are written as the script writes them:
 * <run directory as given>/logs/..., relative to the working directory when the
 * run directory is. A fixed fixture or notary port already in use fails before
 * the run directory is created.
 *
 * With start_fixture/start_notary the harness starts `teebench serve --tls`
 * (with a fixture PKI generated in <run dir>/pki) and `teebench notary serve`
 * itself, and stops them (whole process group) at the end, on failure and on
 * cancellation. Progress is reported through a callback; nothing here prints. */
#ifndef TB_BENCH_RUN_H
#define TB_BENCH_RUN_H

#include <limits.h>
#include <signal.h>

#include <jansson.h>

#include "base/err.h"
#include "benchcsv/benchcsv.h"

#define TB_BENCH_MAX_MODES 8
#define TB_BENCH_STR 256

typedef struct tb_bench_config {
    int iterations;
    int n_modes;
    char modes[TB_BENCH_MAX_MODES][TB_BENCH_MODE_MAX];
    int start_fixture;
    char fixture_addr[TB_BENCH_STR];
    int fixture_port; /* 0: pick a free port */
    int start_notary;
    char notary_tee[8]; /* none | sim | tdx | snp | sim-snp (for the notary the harness starts) */
    char notary_scheme[16];
    char notary_host[TB_BENCH_STR];
    int notary_port;                /* 0 with start_notary: pick a free port */
    char target_host[TB_BENCH_STR]; /* empty: fixture_addr (the script's default) */
    int target_port;                /* 0: the fixture port */
    char target_server_name[TB_BENCH_STR];
    char target_uri[1024];
    int use_fixture_ca;
    char fixture_ca[PATH_MAX]; /* CA file for the client; empty: the generated one */
    long max_sent_data, max_recv_data;
    int run_timeout_s;
    int term_grace_ms; /* after a timeout: SIGTERM, this long, then SIGKILL (5000) */
    int retries;
    char client_cmd[4096];      /* empty: the built-in client (`teebench notarize`) */
    char pccs_url[1024];        /* tee_verify: the built-in client's --pccs (empty: its default) */
    char collateral[PATH_MAX];  /* tee_verify: the built-in client's --collateral */
    char snp_certs[PATH_MAX];   /* tee_verify, SEV-SNP notary: the client's --certs */
    char kds_url[1024];         /* tee_verify, SEV-SNP notary: the client's --kds */
    char results_dir[PATH_MAX]; /* RESULTS_DIR: the run directory itself; empty: below */
    char out_root[PATH_MAX];    /* the parent of a timestamped run directory */
    char self_exe[PATH_MAX];    /* the teebench binary, for the built-in client and servers */
    /* A second CSV beside results.csv (empty: none; `bench tlsn`: "phases.csv"): one row
       per row of results.csv, "mode,iteration,exit_code," then one column per KEY of
       extra_keys (space-separated KEY names the client prints as KEY=value; the column
       is the key in lower case; a value that is not a plain number is left empty). */
    char extra_csv[64];
    char extra_keys[1024];
} tb_bench_config;

/* The defaults of the source benchmark script (NOTARY_* for a local notary). */
void tb_bench_config_defaults(tb_bench_config *c);

/* Sets one option by its environment-variable name (ITERATIONS, BENCHMARK_MODES,
 * START_FIXTURE, ..., RETRIES, CLIENT_CMD, NOTARY_TEE, PCCS_URL, COLLATERAL,
 * RESULTS_DIR). Returns 0,
 * or -1 with "<NAME>: <why>" for a bad value or an unknown name. */
int tb_bench_config_set(tb_bench_config *c, const char *name, const char *value, tb_err *err);

/* Checks that the options make sense together (e.g. the built-in client with
 * USE_FIXTURE_CA=true and no fixture started needs FIXTURE_CA). */
int tb_bench_config_check(const tb_bench_config *c, tb_err *err);

/* Names accepted by tb_bench_config_set, NULL-terminated. */
extern const char *const tb_bench_config_names[];

/* Progress of one attempt (for the cli to print). */
typedef struct tb_bench_event {
    const char *kind; /* "info", "attempt" */
    const char *text; /* for "info" */
    const tb_bench_result_row *row;
    int attempt;
    int will_retry;
} tb_bench_event;
typedef void (*tb_bench_progress)(const tb_bench_event *ev, void *ctx);

typedef struct tb_bench_outcome {
    char run_dir[PATH_MAX];
    int failed;      /* runs that still failed after their retries */
    int retried;     /* attempts that were retried */
    int completed;   /* rows written */
    int interrupted; /* cancelled before the end */
} tb_bench_outcome;

/* Runs the whole matrix and writes summary.txt. Returns 0 when the run directory
 * was completed (even with failed runs, see outcome->failed) or interrupted
 * (outcome->interrupted), -1 when it could not run (servers did not start, the
 * directory could not be written...). outcome->run_dir is set as soon as known. */
int tb_bench_run(const tb_bench_config *c, const volatile sig_atomic_t *cancel,
                 tb_bench_progress progress, void *ctx, tb_bench_outcome *outcome, tb_err *err);

/* What a summary found besides its text. */
typedef struct tb_bench_summary {
    json_t *json;     /* with want_json: the figures (tb_bench_report_summary); caller decrefs */
    size_t n_damaged; /* rows left out (cut short, bad, duplicate) */
    tb_bench_damaged_row first_damaged; /* the first of them, when n_damaged > 0 */
} tb_bench_summary;

/* Summarizes an existing run: path is a run directory or a results.csv. Reads
 * retries.csv and run.json beside it when present. Damaged rows do not fail it:
 * the intact rows are summarized and the damaged ones listed (and counted in sum).
 * Appends the text to out; sum may be NULL. */
int tb_bench_summarize(const char *path, int want_json, tb_buf *out, tb_bench_summary *sum,
                       tb_err *err);

#endif
