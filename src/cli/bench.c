/* cli/bench: `teebench bench notary` (the notarization benchmark harness) and
 * `teebench bench summarize DIR|results.csv`.
 * Options come from the environment (the source benchmark script's variable
 * names), overridden by flags (the same names, lower case, dashes: --iterations,
 * --benchmark-modes, ...). SIGINT/SIGTERM during a run set the stop flag
 * (cli/stop's, the one of every command): the current client is killed, the servers stopped, the
 * rows done so far stay in results.csv, the summary is written, and the exit code is 130. */
#include "cli/cli.h"
#include "cli/flags.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "bench/run.h"
#include "cli/bench_tlsn.h"
#include "cli/json.h"
#include "cli/stop.h"

#define SCHEMA_NOTARY "teebench-bench-notary/1"
#define SCHEMA_SUMMARY "teebench-bench-summary/1"

static void usage_notary(FILE *f)
{
    fprintf(
        f,
        "usage: teebench bench notary [options]\n"
        "Runs the notarization benchmark: for each iteration, each mode, one client process.\n"
        "Every option is also read from the environment variable of the same name in upper\n"
        "case with underscores (ITERATIONS, BENCHMARK_MODES, ...); flags win.\n"
        "  --iterations N            runs per mode (25)\n"
        "  --benchmark-modes LIST    modes, space-separated (\"no_tee tee_no_verify tee_verify\")\n"
        "  --start-fixture 0|1       start a local fixture server (1)\n"
        "  --fixture-addr ADDR       its address (127.0.0.1)\n"
        "  --fixture-port PORT       its port (4000; 0 = a free port)\n"
        "  --start-notary 0|1        start a local notary (1)\n"
        "  --notary-tee none|sim|tdx|snp|sim-snp|auto  its TEE (auto: tdx on a TDX guest, snp\n"
        "                                  on an SEV-SNP guest, else sim; sim, sim-snp:\n"
        "                                  SIMULATED)\n"
        "  --notary-scheme http|https, --notary-host HOST, --notary-port PORT\n"
        "                            the notary (local one: http, 127.0.0.1, a free port)\n"
        "  --target-host HOST        TCP target of the notary (FIXTURE_ADDR)\n"
        "  --target-port PORT        (the fixture port)\n"
        "  --target-server-name NAME TLS SNI and Host (test-server.io)\n"
        "  --target-uri URI          (/formats/json?size=4)\n"
        "  --use-fixture-ca 0|1      trust the fixture CA (1); --fixture-ca FILE (generated)\n"
        "  --max-sent-data N, --max-recv-data N  (4096, 16384)\n"
        "  --run-timeout-seconds N   per-run timeout (300): then SIGTERM to the run's process\n"
        "                            group, 5 s later SIGKILL; exit code 124, and\n"
        "                            \"benchmark runner: timed out after Ns\" in its stderr log\n"
        "  --retries N               reruns of a failed run (0, as the source script)\n"
        "  --client-cmd CMD          shell command instead of `teebench notarize`; it gets\n"
        "                            the variables above plus ENABLE_TEE_ATTESTATION and\n"
        "                            VERIFY_ATTESTATION (0/1), BENCHMARK_MODE, "
        "BENCHMARK_ITERATION\n"
        "                            and prints NOTARIZATION_MS=, TOTAL_E2E_MS=, TDX_VERIFY_MS=\n"
        "  --pccs-url URL, --collateral FILE  passed to `teebench notarize --verify`\n"
        "  --snp-certs DIR, --kds-url URL     the same for an SEV-SNP notary (--certs, --kds)\n"
        "                            (tee_verify against a real TDX notary)\n"
        "  --results-dir DIR         the run directory itself, as in the source script\n"
        "                            (unset: benchmark-results/<UTC %%Y%%m%%dT%%H%%M%%SZ>)\n"
        "  --json                    progress on stderr; on stdout one JSON document: the\n"
        "                            outcome and the summary's figures\n"
        "Writes results.csv, retries.csv, logs/, env.json, run.json and summary.txt (also\n"
        "printed; it starts with the source script's own summary lines) in the run\n"
        "directory. Exit 1 if a run still failed (after retries, if any), or if the run\n"
        "could not go on (a full disk stops it: No space left on device).\n");
}

static void usage(FILE *f)
{
    fprintf(f, "usage: teebench bench notary [options]   (--help for options)\n"
               "       teebench bench tlsn [options]     (the real TLSNotary protocol)\n"
               "       teebench bench summarize [--json] DIR|results.csv\n");
}

static void usage_summarize(FILE *f, const cli_cmd *c)
{
    fprintf(f, "usage: teebench bench summarize [--json] DIR|results.csv\n"
               "Recomputes summary.txt's text from a results.csv (also one written by the\n"
               "source benchmark script) and prints it; the file is not changed. Damaged rows\n"
               "(cut short, unreadable, a second row of a (mode, iteration)) are left out and\n"
               "listed as DAMAGED; the intact rows are summarized, and the exit code is 1.\n");
    cli_flags_help(f, c);
}

/* "ITERATIONS" -> "--iterations" */
static void flag_of(const char *name, char *out, size_t n)
{
    size_t k = 0;
    out[k++] = '-';
    out[k++] = '-';
    for (const char *p = name; *p && k + 1 < n; p++)
        out[k++] = *p == '_' ? '-' : (char)tolower((unsigned char)*p);
    out[k] = 0;
}

/* Where progress goes: stdout, or stderr when stdout carries the --json document. */
typedef struct progress_ctx {
    int iterations;
    FILE *f;
} progress_ctx;

static void on_progress(const tb_bench_event *ev, void *ctx)
{
    const progress_ctx *pc = ctx;
    FILE *f = pc->f;
    if (!strcmp(ev->kind, "info")) {
        fprintf(f, "bench: %s\n", ev->text);
    } else {
        const tb_bench_result_row *r = ev->row;
        fprintf(f, "[%s %ld/%d] attempt %d: exit %d", r->mode, r->iteration, pc->iterations,
                ev->attempt, r->exit_code);
        if (r->has & TB_BENCH_HAS_NOTARIZATION)
            fprintf(f, ", notarization %.2f ms", r->notarization_ms);
        if (r->has & TB_BENCH_HAS_TDX_VERIFY)
            fprintf(f, ", tdx verify %.2f ms", r->tdx_verify_ms);
        fprintf(f, ", wall %.2f ms%s%s%s\n", r->wall_ms, tb_bench_result_ok(r) ? "" : " FAILED",
                tb_bench_result_unverified(r) ? ", no TDX_VERIFY_MS (FLAGGED)" : "",
                ev->will_retry ? ", retrying" : "");
    }
    fflush(f);
}

/* bench notary --json: the outcome and the summary's figures (when the run
 * directory has a readable results.csv). */
static int print_notary_json(const tb_bench_config *c, const tb_bench_outcome *oc, int rc,
                             const tb_err *err)
{
    const char *status = rc < 0 ? "failed" : oc->interrupted ? "interrupted" : "complete";
    json_t *body =
        json_pack("{s:o, s:s, s:i, s:i, s:i, s:i, s:i}", "run_dir",
                  oc->run_dir[0] ? json_string(oc->run_dir) : json_null(), "status", status,
                  "iterations", c->iterations, "rows", oc->completed, "failed_runs", oc->failed,
                  "retried_attempts", oc->retried, "retries", c->retries);
    if (body && rc < 0)
        json_object_set_new(body, "error", json_string(err->msg));
    if (body && oc->run_dir[0]) {
        tb_buf text = {0};
        tb_bench_summary sum;
        tb_err e2;
        if (tb_bench_summarize(oc->run_dir, 1, &text, &sum, &e2) == 0)
            json_object_set_new(body, "summary", sum.json);
        tb_buf_clear(&text);
    }
    return cli_json_print("bench", cli_json_envelope(SCHEMA_NOTARY, body, 1));
}

/* A failure before the run: the error line, and with --json the envelope with it. */
static int notary_fail(int json, int code, const char *msg)
{
    if (json)
        return cli_json_fail(code, "bench", SCHEMA_NOTARY, "%s", msg);
    return cli_fail_code(code, "bench", "%s", msg);
}

/* bench notary, and bench tlsn (tlsn: its options, cli/bench_tlsn.c) */
/* bench notary|tlsn's configuration: defaults, the environment's, then argv's
   (--NAME VALUE or --NAME=VALUE, tlsn's own flags, --json anywhere: errors are JSON
   documents too). Returns -1 when the run goes on, else the exit code (said). */
static int bench_config(int argc, char **argv, cli_bench_tlsn *tlsn, const char *cmdname,
                        tb_bench_config *c, int *json)
{
    tb_err err;
    char msg[sizeof err.msg + 256];
    for (int i = 1; i < argc; i++)
        *json |= !strcmp(argv[i], "--json");
    tb_bench_config_defaults(c);
    if (tlsn)
        cli_bench_tlsn_defaults(c, tlsn);
    for (const char *const *n = tb_bench_config_names; *n; n++) {
        const char *v = getenv(*n);
        if (v && tb_bench_config_set(c, *n, v, &err) < 0) {
            snprintf(msg, sizeof msg, "environment: %s", err.msg);
            return notary_fail(*json, 1, msg);
        }
    }
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            if (tlsn)
                cli_bench_tlsn_usage(stdout);
            else
                usage_notary(stdout);
            return 0;
        }
        if (tlsn) {
            int took = cli_bench_tlsn_flag(tlsn, argc, argv, &i, &err);
            if (took < 0 && !*json)
                return cli_fail_code(2, cmdname, "%s", err.msg);
            if (took < 0)
                return notary_fail(*json, 2, err.msg);
            if (took)
                continue;
        }
        if (!strcmp(argv[i], "--json")) {
            *json = 1;
            continue;
        }
        const char *a = argv[i], *eq = strchr(a, '=');
        size_t alen = eq ? (size_t)(eq - a) : strlen(a);
        const char *name = NULL;
        for (const char *const *n = tb_bench_config_names; *n && !name; n++) {
            char flag[64];
            flag_of(*n, flag, sizeof flag);
            if (strlen(flag) == alen && !strncmp(flag, a, alen))
                name = *n;
        }
        if (!name && !*json)
            return cli_unknown_option(cmdname, a);
        if (!name) {
            snprintf(msg, sizeof msg, "%.*s: unknown option (teebench %s --help)", (int)alen, a,
                     cmdname);
            return notary_fail(*json, 2, msg);
        }
        const char *v = eq ? eq + 1 : NULL;
        if (!v) {
            if (i + 1 >= argc && !*json)
                return cli_missing_value(cmdname, a);
            if (i + 1 >= argc) {
                snprintf(msg, sizeof msg, "%s: needs a value", a);
                return notary_fail(*json, 2, msg);
            }
            v = argv[++i];
        }
        if (tb_bench_config_set(c, name, v, &err) < 0)
            return notary_fail(*json, 2, err.msg);
    }
    if (tb_bench_config_check(c, &err) < 0)
        return notary_fail(*json, 2, err.msg);
    return -1;
}

/* The run's results file and summary (and tlsn's phases), after a run with a run dir. */
static void print_summary(const tb_bench_outcome *oc, const cli_bench_tlsn *tlsn)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/summary.txt", oc->run_dir);
    FILE *f = fopen(path, "r");
    /* The script's lines: a blank one, where the results are, then the summary. */
    printf("\nresults written to %s/results.csv\n", oc->run_dir);
    if (f) {
        char line[1024];
        while (fgets(line, sizeof line, f))
            fputs(line, stdout);
        fclose(f);
    }
    if (tlsn)
        cli_bench_tlsn_print_phases(tlsn, oc->run_dir, stdout);
    fflush(stdout);
}

static int bench_main(int argc, char **argv, cli_bench_tlsn *tlsn)
{
    tb_bench_config c;
    tb_err err;
    int json = 0;
    const char *sub = tlsn ? "tlsn" : "notary";
    char cmdname[32];
    snprintf(cmdname, sizeof cmdname, "bench %s", sub);
    int crc = bench_config(argc, argv, tlsn, cmdname, &c, &json);
    if (crc >= 0)
        return crc;
    ssize_t n = readlink("/proc/self/exe", c.self_exe, sizeof c.self_exe - 1);
    if (n <= 0)
        return cli_fail("bench", "cannot find the teebench binary (/proc/self/exe)");
    c.self_exe[n] = 0;
    if (tlsn && cli_bench_tlsn_prepare(&c, tlsn, &err) < 0)
        return notary_fail(json, 1, err.msg);

    struct sigaction old_int, old_term;
    cli_stop_catch(&old_int, &old_term);
    tb_bench_outcome oc;
    progress_ctx pc = {.iterations = c.iterations, .f = json ? stderr : stdout};
    int rc = tb_bench_run(&c, cli_stop_flag(), on_progress, &pc, &oc, &err);
    cli_stop_restore(&old_int, &old_term);
    if (json) {
        int prc = print_notary_json(&c, &oc, rc, &err);
        if (prc)
            return prc;
    }
    if (oc.run_dir[0] && !json)
        print_summary(&oc, tlsn);
    if (rc < 0)
        return cli_fail("bench", "%s: %s", sub, err.msg);
    if (oc.interrupted)
        return cli_fail_code(130, "bench", "%s: interrupted after %d runs (rows so far are in %s)",
                             sub, oc.completed, oc.run_dir);
    if (oc.failed && c.retries)
        return cli_fail("bench", "%s: %d run(s) still failed after %d retries (see %s)", sub,
                        oc.failed, c.retries, oc.run_dir);
    if (oc.failed)
        return cli_fail("bench", "%s: %d run(s) failed (no retries: RETRIES=0; see %s)", sub,
                        oc.failed, oc.run_dir);
    return 0;
}

static int cmd_bench_notary(int argc, char **argv)
{
    return bench_main(argc, argv, NULL);
}

static int cmd_bench_tlsn(int argc, char **argv)
{
    cli_bench_tlsn t;
    return bench_main(argc, argv, &t);
}

typedef struct summarize_args {
    int json;
} summarize_args;

static const cli_flag summarize_flags[] = {
    CLI_BOOL("json", 0, summarize_args, json,
             "one JSON document with the same figures instead of the text"),
    CLI_HELP(),
    {0}};

const cli_cmd cli_bench_summarize_cmd = {.name = "bench summarize",
                                         .flags = summarize_flags,
                                         .usage = usage_summarize,
                                         .max_operands = -1,
                                         .col = 15};

static int cmd_bench_summarize(int argc, char **argv)
{
    summarize_args a = {0};
    int first, done = cli_flags_parse(&cli_bench_summarize_cmd, argc, argv, &a, &first);
    if (done != CLI_FLAGS_GO)
        return done;
    int json = a.json;
    if (argc - first != 1)
        return cli_fail_code(2, "bench", "summarize: expected one argument, DIR or results.csv");
    const char *path = argv[first];
    tb_buf out = {0};
    tb_err err;
    tb_bench_summary sum;
    if (tb_bench_summarize(path, json, &out, &sum, &err) < 0) {
        tb_buf_clear(&out);
        if (json)
            return cli_json_fail(1, "bench", SCHEMA_SUMMARY, "summarize: %s", err.msg);
        return cli_fail("bench", "summarize: %s", err.msg);
    }
    int rc = 0;
    if (json)
        rc = cli_json_print("bench", cli_json_envelope(SCHEMA_SUMMARY, sum.json, 1));
    else if (fwrite(out.p, 1, out.len, stdout) != out.len || fflush(stdout) != 0)
        rc = cli_fail("bench", "summarize: writing the summary: %s", strerror(errno));
    tb_buf_clear(&out);
    if (rc == 0 && sum.n_damaged)
        rc = cli_fail("bench", "summarize: %s: %zu damaged row%s not counted (first: line %ld: %s)",
                      path, sum.n_damaged, sum.n_damaged == 1 ? "" : "s", sum.first_damaged.line,
                      sum.first_damaged.why);
    return rc;
}

int cmd_bench(int argc, char **argv)
{
    if (argc < 2)
        return cli_fail_code(2, "bench", "expected a subcommand: notary, tlsn or summarize");
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "notary"))
        return cmd_bench_notary(argc - 1, argv + 1);
    if (!strcmp(argv[1], "summarize"))
        return cmd_bench_summarize(argc - 1, argv + 1);
    if (!strcmp(argv[1], "tlsn"))
        return cmd_bench_tlsn(argc - 1, argv + 1);
    return cli_unknown_subcommand("bench", argv[1],
                                  (const char *const[]){"notary", "tlsn", "summarize", NULL});
}
