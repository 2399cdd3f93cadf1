/* cli/wl_run: what a workload's command holds around the workload. storage and kv,
 * which run their workload's parts one after another in a private work directory: how
 * they answer (cli_wl_out: a failure as a line or, with --json, a document; each part's
 * outcome, cli_wl_take, "interrupted" and 130 once cli/stop's flag is set) and a
 * cli_wl_run -- that directory (tb_wl_workdir, removed at the end), SIGINT and SIGTERM
 * caught with cli/stop (the handlers before put back at the end) and the start time for
 * the --json document.
 *
 * No state of its own. What prints: cli_wl_fail (stderr, or the --json document on
 * stdout), cli_wl_take (a part's text on stdout) and cli_wl_run_print (the document). */
#ifndef TB_CLI_WL_RUN_H
#define TB_CLI_WL_RUN_H

#include <jansson.h>
#include <limits.h>
#include <signal.h>

#include "base/err.h"
#include "workloads/workload.h"

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
    tb_wl_sink sink;     /* dir_fd: the work directory; stop: cli/stop's flag */
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
