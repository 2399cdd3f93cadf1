/* cli/wl_run: what a workload's command (cli/memory, network, storage, kv) holds
 * around the workload. All four, and every other command that a signal stops
 * (bench, http, suite, tlsn session, vm image): the one stop flag, set by SIGINT and
 * SIGTERM once cli_wl_stop_catch has run -- by SIGINT alone for http, as wrk -- (the
 * work polls it; the command then says "interrupted" and exits 130, or, for http,
 * prints what it measured). storage and kv, which run their workload's parts one
 * after another in a private work directory: how they answer (cli_wl_out: a failure
 * as a line or, with --json, a document; each part's outcome, cli_wl_take) and a
 * cli_wl_run -- that directory (tb_wl_workdir, removed at the end), the handlers before
 * (put back at the end) and the start time for the --json document.
 *
 * Global state: the stop flag (a volatile sig_atomic_t, cleared by the catch before
 * its handler is set, then written only by the handler): a process runs one command. What prints:
 * cli_wl_fail (stderr, or the --json document on stdout), cli_wl_take (a part's text on stdout) and
 * cli_wl_run_print (the document). */
#ifndef TB_CLI_WL_RUN_H
#define TB_CLI_WL_RUN_H

#include <jansson.h>
#include <limits.h>
#include <signal.h>

#include "base/err.h"
#include "workloads/workload.h"

/* The stop flag cleared, and from now on SIGINT and SIGTERM set it (no SA_RESTART:
   a wait wakes up); the handlers before go to old_int and old_term (NULL: not
   kept). */
void cli_wl_stop_catch(struct sigaction *old_int, struct sigaction *old_term);
/* The same for SIGINT alone (SIGTERM keeps its handler). */
void cli_wl_stop_catch_sigint(struct sigaction *old_int);
/* Puts back the handlers cli_wl_stop_catch kept. */
void cli_wl_stop_restore(const struct sigaction *old_int, const struct sigaction *old_term);
/* The stop flag, for a workload to poll. */
const volatile sig_atomic_t *cli_wl_stop_flag(void);
/* 1 once SIGINT or SIGTERM came, else 0. */
int cli_wl_stopped(void);

/* How a workload command answers: its name, its --json document's schema, --json
   given or not, and the text of one run's document (NULL: none). */
typedef struct cli_wl_out {
    const char *cmd, *schema;
    int json;
    void (*print_run)(const json_t *run);
} cli_wl_out;

/* A failure: with --json the envelope with "error": msg (cli/json), else the error
   line. Returns code. */
int cli_wl_fail(const cli_wl_out *o, int code, const char *msg);

/* What cli_wl_take returns when the command goes on. */
#define CLI_WL_NEXT (-1)

/* One run's outcome: rc (TB_WL_*), run its document (taken; may be NULL), err why
   not. Stopped or TB_WL_CANCELLED: "interrupted", 130. TB_WL_SKIPPED in text output,
   when skipping is allowed (skip_name, the part's name, not NULL): "<skip_name>
   skipped: why" on stdout, CLI_WL_NEXT. Another failure: its line, 1. TB_WL_OK: run
   printed (text output) and appended to runs, CLI_WL_NEXT. */
int cli_wl_take(const cli_wl_out *o, int rc, json_t *run, const tb_err *err, const char *skip_name,
                json_t *runs);

typedef struct cli_wl_run {
    tb_wl_sink sink;     /* dir_fd: the work directory; stop: the stop flag */
    char work[PATH_MAX]; /* the work directory's path */
    char started[40];    /* ISO 8601, UTC */
    struct sigaction old_int, old_term;
} cli_wl_run;

/* Opens cmd's work directory, catches SIGINT and SIGTERM, notes the time. 0, or -1
   with err (nothing to end). */
int cli_wl_run_begin(const char *cmd, cli_wl_run *r, tb_err *err);
/* Prints body (consumed; NULL: out of memory) with "started_at" and "finished_at"
   (now) added, in the --json envelope of schema. 0, or the exit code
   (cli_json_print's). */
int cli_wl_run_print(const char *cmd, const cli_wl_run *r, const char *schema, json_t *body);
/* Puts the handlers back and removes the work directory. */
void cli_wl_run_end(cli_wl_run *r);

#endif
