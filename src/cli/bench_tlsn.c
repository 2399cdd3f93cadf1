/* cli/bench_tlsn: `teebench bench tlsn` on bench notary's harness (see
 * bench_tlsn.h). The harness starts the fixture server and runs, per (iteration,
 * mode), one `teebench tlsn session --env` process: its KEY=value lines fill
 * results.csv (NOTARIZATION_MS, TOTAL_E2E_MS, TDX_VERIFY_MS: the source script's
 * columns, so bench summarize, results import, compare and report read it as
 * they read bench notary's) and phases.csv (CLI_TLSN_KEYS). */
#include "cli/bench_tlsn.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/file.h"
#include "cli/opt.h"
#include "stats/summary.h"
#include "tlsn/session.h"
#include "tlsn/wasm.h"

void cli_bench_tlsn_defaults(tb_bench_config *c, cli_bench_tlsn *t)
{
    memset(t, 0, sizeof *t);
    t->threads = 2;
    snprintf(t->chromium, sizeof t->chromium, "chromium");
    snprintf(t->tee, sizeof t->tee, "auto");
    t->startup_timeout_s = 60;
    t->phase_timeout_s = 900;
    c->start_notary = 0;
    c->run_timeout_s = 1800;
    snprintf(c->extra_csv, sizeof c->extra_csv, "phases.csv");
    snprintf(c->extra_keys, sizeof c->extra_keys, "%s", CLI_TLSN_KEYS);
    const char *v;
    if ((v = getenv("TLSN_WASM")) && v[0])
        snprintf(t->wasm, sizeof t->wasm, "%s", v);
    if ((v = getenv("TLSN_CHROMIUM")) && v[0])
        snprintf(t->chromium, sizeof t->chromium, "%s", v);
}

void cli_bench_tlsn_usage(FILE *f)
{
    fprintf(f,
            "usage: teebench bench tlsn [options]\n"
            "The \"TEE vs No TEE\" benchmark on the real TLSNotary protocol: per iteration and\n"
            "mode one session of tlsn-wasm %s (prover and verifier, each in its own headless\n"
            "Chromium, MPC-TLS with the fixture target through teebench's relay and proxy,\n"
            "then reveal + verify()). Modes: no_tee; tee_no_verify: plus a TDX quote from the\n"
            "verifier's side binding the session (SIMULATED outside a TD), sent beside the MPC\n"
            "stream; tee_verify: plus the prover checking it (TDX_VERIFY_MS).\n"
            "The harness's options are bench notary's (--iterations, --benchmark-modes,\n"
            "--fixture-port, --target-host/--target-port/--target-server-name/--target-uri,\n"
            "--use-fixture-ca, --max-sent-data, --max-recv-data, --run-timeout-seconds (1800),\n"
            "--retries, --results-dir, --json; not --client-cmd or the notary's).\n"
            "With the fixture CA (the default) the fixture root is substituted in the wasm's\n"
            "trust store (labelled); any other target needs no substitution.\n"
            "  --threads N               threads per party (2)\n"
            "  --tee auto|sim|tdx        the quote source (auto: tdx in a TD, else sim)\n"
            "  --wasm DIR                the package (TLSN_WASM; %s)\n"
            "  --chromium PATH           (TLSN_CHROMIUM; chromium)\n"
            "  --startup-timeout DUR     a page's start, its peer's connection (60s)\n"
            "  --phase-timeout DUR       each phase (900s)\n"
            "Writes bench notary's files plus phases.csv (each phase's ms, bytes each way, CPU\n"
            "and peak memory per party) and prints the phases' medians.\n",
            TB_TLSN_WASM_VERSION, "~/.cache/teebench/tlsn-wasm/<version>/package");
}

static int take(int argc, char **argv, int *i, const char *flag, const char **v, tb_err *err)
{
    const char *a = argv[*i];
    size_t fl = strlen(flag);
    if (strncmp(a, flag, fl) || (a[fl] && a[fl] != '='))
        return 0;
    if (a[fl] == '=') {
        *v = a + fl + 1;
        return 1;
    }
    if (*i + 1 >= argc)
        return tb_errf(err, "%s: needs a value", flag);
    *v = argv[++*i];
    return 1;
}

int cli_bench_tlsn_flag(cli_bench_tlsn *t, int argc, char **argv, int *i, tb_err *err)
{
    const char *v;
    int r;
    long n;
    double d;
    if ((r = take(argc, argv, i, "--threads", &v, err)) != 0) {
        if (r < 0 || cli_opt_long("--threads", v, 1, 64, &n, err) < 0)
            return -1;
        t->threads = (int)n;
        return 1;
    }
    if ((r = take(argc, argv, i, "--tee", &v, err)) != 0) {
        if (r < 0)
            return -1;
        tb_tee k;
        if (strcmp(v, "auto") &&
            (tb_tee_parse(v, &k) < 0 || tb_tee_family_of(k) != TB_TEE_FAMILY_TDX))
            return tb_errf(err, "--tee %s: auto, sim or tdx", v);
        snprintf(t->tee, sizeof t->tee, "%s", v);
        return 1;
    }
    if ((r = take(argc, argv, i, "--wasm", &v, err)) != 0) {
        if (r < 0)
            return -1;
        snprintf(t->wasm, sizeof t->wasm, "%s", v);
        return 1;
    }
    if ((r = take(argc, argv, i, "--chromium", &v, err)) != 0) {
        if (r < 0)
            return -1;
        snprintf(t->chromium, sizeof t->chromium, "%s", v);
        return 1;
    }
    if ((r = take(argc, argv, i, "--startup-timeout", &v, err)) != 0) {
        if (r < 0 || cli_opt_duration("--startup-timeout", v, 1, 3600, &d, err) < 0)
            return -1;
        t->startup_timeout_s = (int)d;
        return 1;
    }
    if ((r = take(argc, argv, i, "--phase-timeout", &v, err)) != 0) {
        if (r < 0 || cli_opt_duration("--phase-timeout", v, 1, 86400, &d, err) < 0)
            return -1;
        t->phase_timeout_s = (int)d;
        return 1;
    }
    if ((r = take(argc, argv, i, "--client-cmd", &v, err)) != 0)
        return tb_errf(err, "--client-cmd: bench tlsn runs its own client (a native prover "
                            "and notary are timed with bench notary --client-cmd)");
    return 0;
}

/* 'text' for sh -c, or -1 when it does not fit. */
static int quote(tb_buf *b, const char *text)
{
    tb_buf_puts(b, " '");
    for (const char *p = text; *p; p++)
        if (*p == '\'')
            tb_buf_puts(b, "'\\''");
        else
            tb_buf_append(b, p, 1);
    return tb_buf_puts(b, "'");
}

int cli_bench_tlsn_prepare(tb_bench_config *c, cli_bench_tlsn *t, tb_err *err)
{
    if (c->client_cmd[0])
        return tb_errf(err, "CLIENT_CMD: bench tlsn runs its own client (a native prover and "
                            "notary are timed with bench notary --client-cmd)");
    if (!t->wasm[0] && tb_tlsn_wasm_default_dir(t->wasm, sizeof t->wasm, err) < 0)
        return -1;
    tb_tlsn_wasm w;
    if (tb_tlsn_wasm_load(t->wasm, &w, err) < 0)
        return -1;
    tb_tlsn_wasm_clear(&w);
    char chromium[PATH_MAX];
    if (tb_tlsn_find_chromium(t->chromium, chromium, sizeof chromium, err) < 0)
        return -1;
    if (!strcmp(t->tee, "auto"))
        snprintf(t->tee, sizeof t->tee, "%s", access("/dev/tdx_guest", F_OK) == 0 ? "tdx" : "sim");
    snprintf(c->notary_tee, sizeof c->notary_tee, "%s", t->tee); /* run.json, the summary */
    tb_buf b = {0};
    char num[64];
    tb_buf_puts(&b, "exec");
    quote(&b, c->self_exe);
    tb_buf_puts(&b, " tlsn session --env --verbose --threads");
    snprintf(num, sizeof num, " %d --tee %s --startup-timeout %d --phase-timeout %d", t->threads,
             t->tee, t->startup_timeout_s, t->phase_timeout_s);
    tb_buf_puts(&b, num);
    tb_buf_puts(&b, " --wasm");
    quote(&b, t->wasm);
    tb_buf_puts(&b, " --chromium");
    quote(&b, chromium);
    int fits = b.p && b.len < sizeof c->client_cmd;
    if (fits)
        memcpy(c->client_cmd, b.p, b.len + 1);
    tb_buf_clear(&b);
    return fits ? 0 : tb_errf(err, "the client's command line is too long");
}

/* ---- phases.csv's medians ---- */

#define MAX_COLS 24
#define MAX_MODES 8

void cli_bench_tlsn_print_phases(const cli_bench_tlsn *t, const char *run_dir, FILE *f)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/phases.csv", run_dir);
    tb_buf b = {0};
    tb_err err;
    if (tb_file_read(path, 16u << 20, &b, &err) < 0 || !b.len) {
        tb_buf_clear(&b);
        return;
    }
    char *save = NULL, *line = strtok_r((char *)b.p, "\n", &save);
    char cols[MAX_COLS][40];
    int nc = 0;
    for (char *s2 = NULL, *h = strtok_r(line, ",", &s2); h && nc < MAX_COLS;
         h = strtok_r(NULL, ",", &s2))
        snprintf(cols[nc++], sizeof cols[0], "%s", h);
    char modes[MAX_MODES][64];
    int nm = 0;
    double *vals[MAX_MODES][MAX_COLS] = {{0}};
    size_t nv[MAX_MODES] = {0}, capv[MAX_MODES] = {0};
    while ((line = strtok_r(NULL, "\n", &save))) {
        char *fields[MAX_COLS];
        int nf = 0;
        for (char *p = line; nf < MAX_COLS;) {
            fields[nf++] = p;
            char *comma = strchr(p, ',');
            if (!comma)
                break;
            *comma = 0;
            p = comma + 1;
        }
        if (nf != nc || strcmp(fields[2], "0"))
            continue;
        int m;
        for (m = 0; m < nm && strcmp(modes[m], fields[0]); m++)
            ;
        if (m == nm) {
            if (nm == MAX_MODES)
                continue;
            snprintf(modes[nm++], sizeof modes[0], "%s", fields[0]);
        }
        if (nv[m] == capv[m]) {
            size_t nc2 = capv[m] ? capv[m] * 2 : 16;
            for (int k = 3; k < nc; k++) {
                double *q = realloc(vals[m][k], nc2 * sizeof(double));
                if (!q)
                    goto out;
                vals[m][k] = q;
            }
            capv[m] = nc2;
        }
        for (int k = 3; k < nc; k++)
            vals[m][k][nv[m]] = fields[k][0] ? atof(fields[k]) : -1;
        nv[m]++;
    }
    fprintf(f,
            "\ntlsn-wasm %s in Chromium's WebAssembly, %d threads per party; phases (median, "
            "min..max over successful runs):\n",
            TB_TLSN_WASM_VERSION, t->threads);
    for (int m = 0; m < nm; m++) {
        fprintf(f, "  %s (%zu runs):\n", modes[m], nv[m]);
        for (int k = 3; k < nc; k++) {
            double xs[4096];
            size_t n = 0;
            for (size_t i = 0; i < nv[m] && n < 4096; i++)
                if (vals[m][k][i] >= 0)
                    xs[n++] = vals[m][k][i];
            if (!n)
                continue;
            tb_stats_desc d;
            tb_stats_describe(xs, n, &d);
            const char *unit = strstr(cols[k], "_ms")     ? "ms"
                               : strstr(cols[k], "bytes") ? "B"
                               : strstr(cols[k], "_mib")  ? "MiB"
                                                          : "";
            fprintf(f, "    %-26s %12.1f %s  (%.1f..%.1f)\n", cols[k], d.median, unit, d.min,
                    d.max);
        }
    }
out:
    for (int m = 0; m < MAX_MODES; m++)
        for (int k = 0; k < MAX_COLS; k++)
            free(vals[m][k]);
    tb_buf_clear(&b);
}
