/* workloads/tlsn: the real TLSNotary protocol -- `teebench bench tlsn` (bench/run
 * with `teebench tlsn session` as its client: tlsn-wasm in two headless Chromium
 * processes) against the suite's fixture server, its three modes. A session takes
 * about a minute of both cores, so the workload runs its iterations once, in round
 * 1 (later rounds add nothing), and is off (no step) in the quick profile.
 *
 * Samples: every successful session's notarization_ms and total_e2e_ms per mode,
 * tee_verify's verify_ms, each mode's setup_ms, request_ms, reveal_ms, cpu_ms and
 * peak_rss_mib (phases.csv), and the paired overhead of each TEE mode over no_tee.
 * The TEE modes' samples are SIMULATED outside a TD. The prover's setup, request and
 * reveal are a phases family (the report stacks them per mode; notarization the whole). */
#include "workloads/tlsn.h"
#include "workloads/notary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "base/tee.h"
#include "bench/run.h"
#include "stats/summary.h"
#include "tlsn/session.h"
#include "tlsn/wasm.h"

_Static_assert(sizeof(tb_wl_tlsn_params) <= TB_WL_PARAMS_MAX, "room in the plan");

#define P(f) TB_WLP_FIELD(tb_wl_tlsn_params, f)

static const tb_wl_param param_table[] = {
    {"iterations", "sessions per mode, in round 1 (0: off; a session takes about a minute)",
     TB_WLP_INT, P(iterations), .lo = 0, .hi = 10000, .def = {"0", "3", "25"}},
    {"threads", "threads per party (tlsn-wasm's thread_count)", TB_WLP_INT, P(threads), .lo = 1,
     .hi = 64, .def = {"2"}},
    {"run_timeout", "seconds before a session is killed", TB_WLP_WHOLE_SECONDS, P(run_timeout_s),
     .lo = 1, .hi = 86400, .def = {"1800"}},
    {"tee", "the quote source: auto (tdx in a TD, else sim), sim, tdx", TB_WLP_TEXT, P(tee),
     .choices = "auto|sim|tdx", .def = {"auto"}},
    {"wasm", "the tlsn-wasm package directory (\"\": where scripts/setup.sh --tlsn puts it)",
     TB_WLP_TEXT, P(wasm), .def = {""}, .flags = TB_WLP_PLACE},
    {"chromium", "the browser (a name in PATH or a path)", TB_WLP_TEXT, P(chromium),
     .def = {"chromium"}, .flags = TB_WLP_PLACE},
};

#define TLSN(q, u)                                                                                 \
    {                                                                                              \
        "tlsn.*." q, u, TB_WL_LOWER, TB_CAT_NOTARY, 1, "no_tee", 0, 0                              \
    }

static const tb_wl_metric metrics[] = {
    TLSN("notarization_ms", "ms"), TLSN("total_e2e_ms", "ms"), TLSN("verify_ms", "ms"),
    TLSN("overhead_ms", "ms"),     TLSN("setup_ms", "ms"),     TLSN("request_ms", "ms"),
    TLSN("reveal_ms", "ms"),       TLSN("cpu_ms", "ms"),       TLSN("peak_rss_mib", "MiB"),
};

/* The prover's phases, in order, are consecutive parts of a session's notarization
   (which adds, in the TEE modes, the quote's arrival and its check): the report stacks
   them, one bar per mode. */
static const char *const session_phases[] = {"tlsn.*.setup_ms", "tlsn.*.request_ms",
                                             "tlsn.*.reveal_ms", NULL};

static const tb_wl_family families[] = {
    {.kind = TB_WLF_PHASES,
     .title = "TLSNotary session phases",
     .phases = session_phases,
     .total = "tlsn.*.notarization_ms"},
};

static const char *const mode_names[3] = {"no_tee", "tee_no_verify", "tee_verify"};
static const char *const per_mode[] = {"notarization_ms", "total_e2e_ms", "setup_ms",
                                       "request_ms",      "reveal_ms",    "cpu_ms",
                                       "peak_rss_mib"};

static int plan_metrics(const void *params, tb_wl_name_fn emit, void *ctx)
{
    const tb_wl_tlsn_params *t = params;
    if (!t->iterations)
        return 0;
    char name[96];
    for (int m = 0; m < 3; m++) {
        for (size_t k = 0; k < sizeof per_mode / sizeof per_mode[0]; k++) {
            snprintf(name, sizeof name, "tlsn.%s.%s", mode_names[m], per_mode[k]);
            if (emit(ctx, name) < 0)
                return -1;
        }
        if (m == 2 && emit(ctx, "tlsn.tee_verify.verify_ms") < 0)
            return -1;
        snprintf(name, sizeof name, "tlsn.%s.overhead_ms", mode_names[m]);
        if (m && emit(ctx, name) < 0)
            return -1;
    }
    return 0;
}

static void services(const void *params, int enabled, tb_wl_services *want)
{
    const tb_wl_tlsn_params *t = params;
    want->fixture = enabled && t->iterations > 0;
}

static size_t steps(const void *params, tb_wl_step *out)
{
    const tb_wl_tlsn_params *t = params;
    if (!t->iterations)
        return 0;
    out[0] = (tb_wl_step){"", 60.0 * t->iterations * 3};
    return 1;
}

static void describe(const void *params, const char *target, char *out, size_t n)
{
    const tb_wl_tlsn_params *t = params;
    (void)target;
    snprintf(out, n,
             "bench tlsn (tlsn-wasm %s in headless Chromium, %d threads per party): %d "
             "iterations x no_tee tee_no_verify tee_verify",
             TB_TLSN_WASM_VERSION, t->threads, t->iterations);
}

/* ---- rows as samples ---- */

/* One phases.csv row's value of column col for (mode, iteration); -1 when none. */
static double phase_value(const char *phases, const char *mode, long it, const char *col)
{
    if (!phases)
        return -1;
    const char *nl = strchr(phases, '\n');
    if (!nl)
        return -1;
    /* the column's index in the header */
    int idx = -1, k = 0;
    size_t cl = strlen(col);
    for (const char *p = phases; p < nl; k++) {
        const char *e = memchr(p, ',', (size_t)(nl - p));
        size_t l = e ? (size_t)(e - p) : (size_t)(nl - p);
        if (l == cl && !memcmp(p, col, l))
            idx = k;
        p += l + 1;
        if (!e)
            break;
    }
    if (idx < 0)
        return -1;
    char key[128];
    int kl = snprintf(key, sizeof key, "%s,%ld,", mode, it);
    for (const char *line = nl + 1; *line;) {
        const char *end = strchr(line, '\n');
        size_t ll = end ? (size_t)(end - line) : strlen(line);
        if (ll > (size_t)kl && !memcmp(line, key, (size_t)kl)) {
            const char *p = line;
            for (int f = 0; f < idx && p; f++) {
                p = memchr(p, ',', ll - (size_t)(p - line));
                if (p)
                    p++;
            }
            if (!p || p >= line + ll || *p == ',' || *p == '\n')
                return -1;
            return atof(p);
        }
        line += ll + (end ? 1 : 0);
    }
    return -1;
}

/* A sample of tlsn.<mode>.<what>; v < 0 is "none" (a phase not reported). */
static int sample_signed(tb_wl_sink *sink, const char *mode, const char *what, double v, int sim,
                         const char *note, tb_err *err)
{
    char part[72], name[160], full[320];
    tb_wl_name_part(mode, part, sizeof part);
    snprintf(name, sizeof name, "tlsn.%s.%s", part, what);
    snprintf(full, sizeof full, "%s (tlsn-wasm %s in Chromium's WebAssembly)%s", note,
             TB_TLSN_WASM_VERSION, sim ? " (SIMULATED TEE)" : "");
    return tb_wl_sample(sink, name, v, sim, full, err);
}

static int sample(tb_wl_sink *sink, const char *mode, const char *what, double v, int sim,
                  const char *note, tb_err *err)
{
    return v < 0 ? 0 : sample_signed(sink, mode, what, v, sim, note, err);
}

static int overhead(const tb_bench_results *rs, const char *mode, int simulated, tb_wl_sink *sink,
                    tb_err *err)
{
    double *d = malloc((rs->n + 1) * sizeof *d);
    size_t n = 0;
    if (!d)
        return tb_errf(err, "out of memory");
    for (size_t i = 0; i < rs->n; i++) {
        const tb_bench_result_row *m = &rs->rows[i];
        if (strcmp(m->mode, mode) || !tb_bench_result_ok(m))
            continue;
        for (size_t j = 0; j < rs->n; j++) {
            const tb_bench_result_row *b = &rs->rows[j];
            if (!strcmp(b->mode, "no_tee") && b->iteration == m->iteration &&
                tb_bench_result_ok(b)) {
                double x =
                    !strcmp(mode, "tee_verify") && (m->has & TB_BENCH_HAS_NOTARIZATION_PLUS_VERIFY)
                        ? m->notarization_plus_verify_ms
                        : m->notarization_ms;
                d[n++] = x - b->notarization_ms;
                break;
            }
        }
    }
    int rc = 0;
    double med;
    if (n && tb_stats_median(d, n, &med) == 0)
        rc = sample_signed(sink, mode, "overhead_ms", med, simulated, /* may be < 0 */
                           "median over iterations of the mode's notarization (tee_verify: + its "
                           "verification) minus no_tee's, paired by iteration",
                           err);
    free(d);
    return rc;
}

int tb_wl_tlsn_rows(const tb_bench_results *rs, const char *phases, int simulated, tb_wl_sink *sink,
                    tb_err *err)
{
    for (size_t i = 0; i < rs->n; i++) {
        const tb_bench_result_row *r = &rs->rows[i];
        if (!tb_bench_result_ok(r))
            continue;
        int sim = simulated && r->enable_tee;
        const char *m = r->mode;
        double pc = phase_value(phases, m, r->iteration, "prover_cpu_ms"),
               vc = phase_value(phases, m, r->iteration, "verifier_cpu_ms"),
               pm = phase_value(phases, m, r->iteration, "prover_peak_rss_mib"),
               vm = phase_value(phases, m, r->iteration, "verifier_peak_rss_mib");
        if (sample(sink, m, "notarization_ms", r->notarization_ms, sim,
                   "MPC-TLS session + interactive verification (+ the TEE message), one sample "
                   "per session",
                   err) < 0 ||
            ((r->has & TB_BENCH_HAS_TOTAL_E2E) &&
             sample(sink, m, "total_e2e_ms", r->total_e2e_ms, sim,
                    "Chromium start to both parties' last report", err) < 0) ||
            (r->verify && (r->has & TB_BENCH_HAS_TDX_VERIFY) &&
             sample(sink, m, "verify_ms", r->tdx_verify_ms, sim,
                    "teebench's verifier checking the verifier side's quote", err) < 0) ||
            sample(sink, m, "setup_ms", phase_value(phases, m, r->iteration, "setup_ms"), sim,
                   "the prover's MPC setup before any TLS", err) < 0 ||
            sample(sink, m, "request_ms", phase_value(phases, m, r->iteration, "request_ms"), sim,
                   "the prover's MPC-TLS handshake, request and response", err) < 0 ||
            sample(sink, m, "reveal_ms", phase_value(phases, m, r->iteration, "reveal_ms"), sim,
                   "the prover's reveal and the protocol's finalization", err) < 0 ||
            (pc >= 0 && vc >= 0 &&
             sample(sink, m, "cpu_ms", pc + vc, sim,
                    "CPU time of both parties' Chromium processes (user + system)", err) < 0) ||
            (pm >= 0 && vm >= 0 &&
             sample(sink, m, "peak_rss_mib", pm > vm ? pm : vm, sim,
                    "peak resident memory of the larger party's Chromium processes", err) < 0))
            return -1;
    }
    for (int k = 1; k < 3; k++)
        if (overhead(rs, mode_names[k], simulated, sink, err) < 0)
            return -1;
    return 0;
}

/* ---- the suite's step ---- */

typedef struct tlsn_state {
    const tb_wl_tlsn_params *t;
    const tb_wl_env *env;
    tb_tee tee; /* TB_TEE_TDX or TB_TEE_SIM */
} tlsn_state;

/* The sessions' rows and their phases (the run directory's phases.csv) as samples. */
static int session_samples(void *ctx, const tb_bench_results *rows, const tb_bench_outcome *oc,
                           tb_wl_sink *sink, tb_err *err)
{
    const tlsn_state *c = ctx;
    tb_buf ph = {0};
    char path[4200];
    snprintf(path, sizeof path, "%s/phases.csv", oc->run_dir);
    tb_err e;
    int have = tb_file_read(path, 16u << 20, &ph, &e) == 0;
    int rc = tb_wl_tlsn_rows(rows, have ? (const char *)ph.p : NULL, tb_tee_simulated(c->tee), sink,
                             err);
    tb_buf_clear(&ph);
    return rc;
}

static int step(void *state, const char *target, int round, tb_wl_sink *sink, tb_err *err)
{
    tlsn_state *c = state;
    const tb_wl_tlsn_params *t = c->t;
    (void)target;
    if (round > 1)
        return TB_WL_OK; /* once per suite run (see the top) */
    const tb_wl_fixture *fx = c->env->fixture;
    char wasm[4096], chromium[4096];
    if (t->wasm[0])
        snprintf(wasm, sizeof wasm, "%s", t->wasm);
    else if (tb_tlsn_wasm_default_dir(wasm, sizeof wasm, err) < 0)
        return TB_WL_SKIPPED;
    tb_tlsn_wasm w;
    if (tb_tlsn_wasm_load(wasm, &w, err) < 0)
        return TB_WL_SKIPPED;
    tb_tlsn_wasm_clear(&w);
    if (tb_tlsn_find_chromium(t->chromium, chromium, sizeof chromium, err) < 0)
        return TB_WL_SKIPPED;
    if (!fx->up)
        return tb_errf(err, "%s", fx->reason), TB_WL_FAILED;
    tb_bench_config bc;
    tb_bench_config_defaults(&bc);
    bc.iterations = t->iterations;
    bc.n_modes = 3;
    for (int m = 0; m < 3; m++)
        snprintf(bc.modes[m], sizeof bc.modes[m], "%s", mode_names[m]);
    bc.start_fixture = 0;
    bc.start_notary = 0;
    bc.use_fixture_ca = 1;
    snprintf(bc.fixture_ca, sizeof bc.fixture_ca, "%s", fx->ca);
    snprintf(bc.target_host, sizeof bc.target_host, "127.0.0.1");
    bc.target_port = fx->port;
    snprintf(bc.notary_tee, sizeof bc.notary_tee, "%s", tb_tee_name(c->tee));
    bc.run_timeout_s = t->run_timeout_s;
    snprintf(bc.extra_csv, sizeof bc.extra_csv, "phases.csv");
    snprintf(bc.extra_keys, sizeof bc.extra_keys,
             "INIT_MS SETUP_MS REQUEST_MS REVEAL_MS VERIFY_MS TEE_MS QUOTE_MS TDX_VERIFY_MS "
             "BYTES_PROVER_TO_VERIFIER BYTES_VERIFIER_TO_PROVER BYTES_TEE_CHANNEL "
             "BYTES_TO_TARGET BYTES_FROM_TARGET PROVER_CPU_MS VERIFIER_CPU_MS "
             "PROVER_PEAK_RSS_MIB VERIFIER_PEAK_RSS_MIB");
    snprintf(bc.self_exe, sizeof bc.self_exe, "%s", c->env->exe);
    int w2 = snprintf(bc.client_cmd, sizeof bc.client_cmd,
                      "exec '%s' tlsn session --env --verbose --threads %d --tee %s --wasm '%s' "
                      "--chromium '%s'",
                      c->env->exe, t->threads, tb_tee_name(c->tee), wasm, chromium);
    if (w2 < 0 || (size_t)w2 >= sizeof bc.client_cmd || strchr(c->env->exe, '\'') ||
        strchr(wasm, '\'') || strchr(chromium, '\''))
        return tb_errf(err, "the session's command line: a path with a quote or too long"),
               TB_WL_FAILED;
    if (tb_wl_path(sink, "tlsn", bc.out_root, sizeof bc.out_root, err) < 0)
        return TB_WL_FAILED;
    snprintf(bc.results_dir, sizeof bc.results_dir, "%s", bc.out_root);
    char it[16];
    snprintf(it, sizeof it, "%d", t->iterations);
    char *argv[] = {(char *)c->env->exe, "bench", "tlsn",          "--iterations",          it,
                    "--start-fixture",   "0",     "--target-port", "(the suite's fixture)", NULL};
    tb_wl_command(sink, argv);
    return tb_wl_bench_step(&bc, sink, session_samples, c, "TLSNotary sessions", "", err);
}

static int setup(const void *params, const tb_wl_env *env, tb_wl_sink *sink, void **state,
                 tb_err *err)
{
    tlsn_state *c = tb_wl_state_new(sizeof *c, state, err);
    if (!c)
        return -1;
    c->t = params;
    c->env = env;
    /* the parameter is one of its choices (auto|sim|tdx): auto is tdx in a TD, else sim */
    c->tee = tb_tee_guest(env->tee) == TB_TEE_TDX ? TB_TEE_TDX : TB_TEE_SIM;
    if (strcmp(c->t->tee, "auto") && tb_tee_parse(c->t->tee, &c->tee) < 0)
        return tb_errf(err, "tee: '%s' is not auto, sim or tdx", c->t->tee);
    tb_wl_fact(sink, "tlsn_tee", json_string(tb_tee_name(c->tee)));
    tb_wl_version(sink, "tlsn-wasm", TB_TLSN_WASM_VERSION);
    return 0;
}

const tb_workload tb_wl_tlsn = {
    .name = "tlsn",
    .title = "TLSNotary",
    .what = "the real TLSNotary protocol (tlsn-wasm in headless Chromium) without and with a "
            "TEE message (teebench bench tlsn)",
    .flags = TB_WL_ONCE | TB_WL_NOT_QUICK,
    TB_WL_PARAM_TABLE(tb_wl_tlsn_params, param_table),
    .services = services,
    .steps = steps,
    .describe = describe,
    .setup = setup,
    .step = step,
    .cleanup = tb_wl_free_state,
    TB_WL_METRIC_TABLE(metrics),
    TB_WL_FAMILY_TABLE(families),
    .plan_metrics = plan_metrics,
};
