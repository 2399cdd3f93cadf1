/* workloads/notary: the notary workload -- `teebench bench notary` (bench/run)
 * once per round, against the suite's fixture server (already running: the
 * harness does not start its own), with a notary the harness starts (its
 * SIMULATED TEE state in the round's run directory; a real TDX notary in a TD, a real
 * SEV-SNP notary in an SEV-SNP guest; notary.tee chooses, attest.kds is its KDS).
 *
 * Samples: every successful run's notarization_ms and total_e2e_ms (per mode),
 * tee_verify's verify_ms, and one overhead per round and TEE mode: the median
 * over the round's iterations of the paired difference to no_tee (same
 * iteration): notarization_ms for tee_no_verify, notarization_ms + verify_ms
 * for tee_verify (bench/report's headline quantities). Runs that still failed
 * after their retries fail the step; their logs stay in the work directory. That step
 * (tb_wl_bench_step: the harness run, its rows as samples, what the step did) is the
 * tlsn workload's too. */
#include "workloads/notary.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "base/curl.h"
#include "base/linkage.h"
#include "base/tee.h"
#include "bench/run.h"
#include "stats/summary.h"
#include "workloads/attest.h"

_Static_assert(sizeof(tb_wl_notary_params) <= TB_WL_PARAMS_MAX, "room in the plan");

#define P(f) TB_WLP_FIELD(tb_wl_notary_params, f)

static const char *const mode_names[3] = {"no_tee", "tee_no_verify", "tee_verify"};

static int mode(void *ctx, const char *t, tb_err *err)
{
    int *want = ctx;
    for (int i = 0; i < 3; i++)
        if (!strcmp(t, mode_names[i])) {
            want[i] = 1;
            return 0;
        }
    return tb_errf(err, "unknown mode '%.40s' (no_tee, tee_no_verify, tee_verify)", t);
}

/* The modes always run in the harness's order, whatever order the list has. */
static int parse_modes(void *params, const char *key, const char *v, tb_err *err)
{
    tb_wl_notary_params *n = params;
    int want[3] = {0};
    if (tb_wl_each_token(key, v, mode, want, err) < 0)
        return -1;
    n->n_modes = 0;
    for (int i = 0; i < 3; i++)
        if (want[i])
            snprintf(n->modes[n->n_modes++], sizeof n->modes[0], "%s", mode_names[i]);
    return 0;
}

static json_t *modes_json(const void *params)
{
    const tb_wl_notary_params *n = params;
    json_t *a = json_array();
    for (int i = 0; a && i < n->n_modes; i++)
        json_array_append_new(a, json_string(n->modes[i]));
    return a;
}

static const tb_wl_param param_table[] = {
    {"iterations", "notarizations per round and mode", TB_WLP_INT, P(iterations), .lo = 1,
     .hi = 100000, .def = {"3", "10", "25"}},
    {"modes", "no_tee, tee_no_verify, tee_verify", TB_WLP_CUSTOM, .parse = parse_modes,
     .json = modes_json, .def = {"no_tee,tee_no_verify,tee_verify"}},
    {"run_timeout", "seconds before a notarization run is killed", TB_WLP_WHOLE_SECONDS,
     P(run_timeout_s), .lo = 1, .hi = 86400, .def = {"60", "300"}},
    {"retries", "reruns of a failed notarization", TB_WLP_INT, P(retries), .lo = 0, .hi = 100,
     .def = {"1", "2"}},
    {"pccs", "PCS/PCCS base URL for tee_verify against a real TDX notary", TB_WLP_TEXT, P(pccs),
     .check = tb_wl_check_http_url, .def = {TB_WL_PCS_URL}, .flags = TB_WLP_PLACE},
    {"tee", "auto (tdx / snp in such a guest, else sim), sim, sim-snp, tdx or snp", TB_WLP_TEXT,
     P(tee), .choices = "auto|sim|sim-snp|tdx|snp", .def = {"auto"}},
};

#define NOTARY(q)                                                                                  \
    {                                                                                              \
        "notary.*." q, "ms", TB_WL_LOWER, TB_CAT_NOTARY, 1, "no_tee", 0, 0                         \
    }

static const tb_wl_metric metrics[] = {
    NOTARY("notarization_ms"), NOTARY("total_e2e_ms"), NOTARY("wall_ms"),
    NOTARY("verify_ms"),       NOTARY("overhead_ms"),
};

static int plan_metrics(const void *params, tb_wl_name_fn emit, void *ctx)
{
    const tb_wl_notary_params *n = params;
    int have_base = 0;
    for (int m = 0; m < n->n_modes; m++)
        have_base |= !strcmp(n->modes[m], "no_tee");
    static const char *const each[] = {"notarization_ms", "total_e2e_ms", "wall_ms"};
    char name[96];
    for (int m = 0; m < n->n_modes; m++) {
        const char *mode = n->modes[m];
        for (size_t k = 0; k < sizeof each / sizeof each[0]; k++) {
            snprintf(name, sizeof name, "notary.%s.%s", mode, each[k]);
            if (emit(ctx, name) < 0)
                return -1;
        }
        if (!strcmp(mode, "tee_verify") && emit(ctx, "notary.tee_verify.verify_ms") < 0)
            return -1;
        snprintf(name, sizeof name, "notary.%s.overhead_ms", mode);
        if (strcmp(mode, "no_tee") && have_base && emit(ctx, name) < 0)
            return -1;
    }
    return 0;
}

static void services(const void *params, int enabled, tb_wl_services *want)
{
    (void)params;
    want->fixture = enabled; /* the notarized server */
}

static size_t steps(const void *params, tb_wl_step *out)
{
    const tb_wl_notary_params *n = params;
    out[0] = (tb_wl_step){"", 0.5 + n->iterations * n->n_modes * 0.1};
    return 1;
}

static void describe(const void *params, const char *target, char *out, size_t n)
{
    const tb_wl_notary_params *p = params;
    (void)target;
    size_t k = (size_t)snprintf(out, n, "bench notary: %d iterations x", p->iterations);
    for (int m = 0; m < p->n_modes && k < n; m++)
        k += (size_t)snprintf(out + k, n - k, " %s", p->modes[m]);
}

/* ---- rows of results.csv as samples (the suite's rounds and results import) ---- */

/* The no_tee runs that succeeded, by iteration (sorted): the pairs of an overhead.
   One per iteration: the parse refuses a second row for a (mode, iteration). */
typedef struct base_run {
    long it;
    double ms;
} base_run;

static int by_iteration(const void *a, const void *b)
{
    const base_run *x = a, *y = b;
    return (x->it > y->it) - (x->it < y->it);
}

/* One mode's paired differences (mode - no_tee, in row order); its first row. */
typedef struct mode_diffs {
    size_t first;
    double *d;
    size_t n, cap;
} mode_diffs;

/* notary.<mode>.overhead_ms from md: the median over iterations of (mode - no_tee),
   paired by iteration (notarization_plus_verify_ms for tee_verify), as the suite
   records it. No metric when no iteration pairs. */
static int overhead(tb_wl_sink *sink, const char *mode, const mode_diffs *md, int simulated,
                    const char *tag, tb_err *err)
{
    double med;
    if (md->n == 0)
        return 0;
    if (tb_stats_median(md->d, md->n, &med) < 0)
        return tb_errf(err, "out of memory");
    char part[72], name[160], note[256];
    tb_wl_name_part(mode, part, sizeof part);
    snprintf(name, sizeof name, "notary.%s.overhead_ms", part);
    snprintf(note, sizeof note,
             "median over iterations of %s - no_tee notarization_ms, paired by iteration%s",
             !strcmp(mode, "tee_verify") ? "(notarization_ms + verify_ms) of tee_verify" : mode,
             simulated ? tag : "");
    return tb_wl_sample(sink, name, med, simulated, note, err);
}

static int push_diff(mode_diffs *md, double v)
{
    if (md->n == md->cap) {
        size_t cap = md->cap ? md->cap * 2 : 16;
        double *p = realloc(md->d, cap * sizeof *p);
        if (!p)
            return -1;
        md->d = p;
        md->cap = cap;
    }
    md->d[md->n++] = v;
    return 0;
}

/* Groups the rows of every mode but no_tee by mode (in order of first appearance;
   modes -> index into mds) with their differences to the no_tee run of the same
   iteration. O(rows log rows). 0 or -1 (OOM). */
static int pair_runs(const tb_bench_results *rs, const base_run *base, size_t n_base, json_t *modes,
                     mode_diffs *mds, size_t *n_mds)
{
    for (size_t i = 0; i < rs->n; i++) {
        const tb_bench_result_row *m = &rs->rows[i];
        if (!strcmp(m->mode, "no_tee"))
            continue;
        const json_t *k = json_object_get(modes, m->mode);
        if (!k) {
            if (json_object_set_new(modes, m->mode, json_integer((json_int_t)*n_mds)) < 0)
                return -1;
            mds[*n_mds].first = i;
            k = json_object_get(modes, m->mode);
            (*n_mds)++;
        }
        if (!tb_bench_result_ok(m))
            continue;
        base_run key = {.it = m->iteration};
        const base_run *b = bsearch(&key, base, n_base, sizeof *base, by_iteration);
        if (!b)
            continue;
        double x =
            !strcmp(m->mode, "tee_verify") && (m->has & TB_BENCH_HAS_NOTARIZATION_PLUS_VERIFY)
                ? m->notarization_plus_verify_ms
                : m->notarization_ms;
        if (push_diff(&mds[json_integer_value(k)], x - b->ms) < 0)
            return -1;
    }
    return 0;
}

/* The overheads over no_tee of each other mode, in order of first appearance. */
static int overheads(tb_wl_sink *sink, const tb_bench_results *rs, int simulated, const char *tag,
                     tb_err *err)
{
    base_run *base = malloc(rs->n * sizeof *base);
    mode_diffs *mds = calloc(rs->n, sizeof *mds);
    json_t *modes = json_object();
    size_t n_base = 0, n_mds = 0;
    int rc = base && mds && modes ? 0 : tb_errf(err, "out of memory");
    for (size_t i = 0; i < rs->n && rc == 0; i++)
        if (!strcmp(rs->rows[i].mode, "no_tee") && tb_bench_result_ok(&rs->rows[i]))
            base[n_base++] = (base_run){rs->rows[i].iteration, rs->rows[i].notarization_ms};
    if (rc == 0 && n_base > 0) {
        qsort(base, n_base, sizeof *base, by_iteration);
        if (pair_runs(rs, base, n_base, modes, mds, &n_mds) < 0)
            rc = tb_errf(err, "out of memory");
        for (size_t k = 0; k < n_mds && rc == 0; k++) {
            const tb_bench_result_row *first = &rs->rows[mds[k].first];
            rc = overhead(sink, first->mode, &mds[k], simulated && first->enable_tee, tag, err);
        }
    }
    for (size_t k = 0; mds && k < rs->n; k++)
        free(mds[k].d);
    free(mds);
    free(base);
    json_decref(modes);
    return rc;
}

/* The samples one row of results.csv gives, in order: the metric's last segment, the
   row's column (a double), the TB_BENCH_HAS_* bit the row must have (0: every row has
   it), whether only a run that verified the quote has it, and the note. */
static const struct row_metric {
    const char *name;
    size_t field;
    unsigned has;
    int verified;
    const char *note;
} row_metrics[] = {
    {"notarization_ms", offsetof(tb_bench_result_row, notarization_ms), 0, 0,
     "notarization time the client reports (NOTARIZATION_MS), one sample per run"},
    {"total_e2e_ms", offsetof(tb_bench_result_row, total_e2e_ms), TB_BENCH_HAS_TOTAL_E2E, 0,
     "end-to-end time of one client run (TOTAL_E2E_MS), one sample per run"},
    {"wall_ms", offsetof(tb_bench_result_row, wall_ms), TB_BENCH_HAS_WALL, 0,
     "life of one client process as the harness saw it (results.csv wall_ms), one sample per "
     "run"},
    {"verify_ms", offsetof(tb_bench_result_row, tdx_verify_ms), TB_BENCH_HAS_TDX_VERIFY, 1,
     "time the client spends verifying the notary's quote (TDX_VERIFY_MS)"},
};

int tb_wl_notary_rows(const tb_bench_results *rs, const tb_wl_notary_rows_opts *o, tb_wl_sink *sink,
                      tb_err *err)
{
    const char *tag = o->tag ? o->tag : " (SIMULATED TEE)";
    for (size_t i = 0; i < rs->n; i++) {
        const tb_bench_result_row *r = &rs->rows[i];
        if (!tb_bench_result_ok(r))
            continue;
        int sim = o->simulated && r->enable_tee;
        char part[72], name[160], note[256];
        tb_wl_name_part(r->mode, part, sizeof part);
        for (size_t k = 0; k < sizeof row_metrics / sizeof row_metrics[0]; k++) {
            const struct row_metric *m = &row_metrics[k];
            if ((m->has && !(r->has & m->has)) || (m->verified && !r->verify))
                continue;
            double v;
            memcpy(&v, (const unsigned char *)r + m->field, sizeof v);
            snprintf(name, sizeof name, "notary.%s.%s", part, m->name);
            snprintf(note, sizeof note, "%s%s", m->note, sim ? tag : "");
            if (tb_wl_sample(sink, name, v, sim, note, err) < 0)
                return -1;
        }
    }
    return o->overheads ? overheads(sink, rs, o->simulated, tag, err) : 0;
}

/* ---- the suite's steps ---- */

/* The workload's state between setup and cleanup. */
typedef struct notary_state {
    const tb_wl_notary_params *n;
    const tb_wl_attest_params *a; /* attest.kds: the KDS of a real SEV-SNP notary's reports */
    const tb_wl_env *env;
    tb_wl_sink *sink;  /* the current call's */
    tb_tee notary_tee; /* sim, sim-snp, tdx or snp */
} notary_state;

/* The final attempt of every run (the harness reports each attempt). */
static void collect(const tb_bench_event *ev, void *ctx)
{
    if (strcmp(ev->kind, "attempt") || ev->will_retry)
        return;
    tb_err e;
    tb_bench_results_push(ctx, ev->row, &e);
}

int tb_wl_bench_step(const tb_bench_config *bc, tb_wl_sink *sink, tb_wl_bench_samples_fn samples,
                     void *ctx, const char *runs, const char *detail, tb_err *err)
{
    tb_bench_results rows = {0};
    tb_bench_outcome oc;
    tb_err e;
    int st = TB_WL_OK;
    if (tb_bench_run(bc, sink->stop, collect, &rows, &oc, err) < 0) {
        st = TB_WL_FAILED;
    } else if (samples(ctx, &rows, &oc, sink, &e) < 0) {
        *err = e;
        st = TB_WL_FAILED;
    } else if (oc.interrupted) {
        st = TB_WL_CANCELLED;
    } else if (oc.failed) {
        tb_errf(err, "%d of %d %s failed%s (logs: %s/logs)", oc.failed, oc.completed, runs, detail,
                oc.run_dir);
        st = TB_WL_FAILED;
    }
    tb_bench_results_clear(&rows);
    return st;
}

static void notary_command(notary_state *c, const tb_bench_config *bc)
{
    char it[16], port[16], to[16], rt[16], modes[64] = "";
    snprintf(it, sizeof it, "%d", bc->iterations);
    snprintf(port, sizeof port, "%d", bc->target_port);
    snprintf(to, sizeof to, "%d", bc->run_timeout_s);
    snprintf(rt, sizeof rt, "%d", bc->retries);
    for (int m = 0; m < bc->n_modes; m++)
        snprintf(modes + strlen(modes), sizeof modes - strlen(modes), "%s%s", m ? " " : "",
                 bc->modes[m]);
    char *argv[24] = {(char *)c->env->exe,
                      "bench",
                      "notary",
                      "--iterations",
                      it,
                      "--benchmark-modes",
                      modes,
                      "--start-fixture",
                      "0",
                      "--target-port",
                      port,
                      "--fixture-ca",
                      (char *)bc->fixture_ca,
                      "--notary-tee",
                      (char *)bc->notary_tee,
                      "--run-timeout-seconds",
                      to,
                      "--retries",
                      rt,
                      "--results-dir",
                      (char *)bc->out_root};
    int n = 21;
    if (bc->pccs_url[0]) {
        argv[n++] = "--pccs-url";
        argv[n++] = (char *)bc->pccs_url;
    }
    if (bc->kds_url[0]) {
        argv[n++] = "--kds-url";
        argv[n++] = (char *)bc->kds_url;
    }
    argv[n] = NULL;
    tb_wl_command(c->sink, argv);
}

const char *tb_wl_notary_tee(const char *setting, const char *env_tee)
{
    if (strcmp(setting, "auto"))
        return setting;
    tb_tee guest = tb_tee_guest(env_tee);
    return tb_tee_name(guest != TB_TEE_NONE ? guest : TB_TEE_SIM);
}

/* A round's rows as samples (its TEE modes' overheads unless it was cut short). */
static int round_samples(void *ctx, const tb_bench_results *rows, const tb_bench_outcome *oc,
                         tb_wl_sink *sink, tb_err *err)
{
    const notary_state *c = ctx;
    int sim = tb_tee_simulated(c->notary_tee);
    tb_wl_notary_rows_opts ro = {.simulated = sim,
                                 .tag = !sim || c->notary_tee == TB_TEE_SIM
                                            ? " (SIMULATED TEE)"
                                            : " (SIMULATED SEV-SNP TEE)",
                                 .overheads = !oc->interrupted};
    return tb_wl_notary_rows(rows, &ro, sink, err);
}

static int step(void *state, const char *target, int round, tb_wl_sink *sink, tb_err *err)
{
    notary_state *c = state;
    const tb_wl_notary_params *n = c->n;
    (void)target;
    c->sink = sink;
    tb_err ce; /* its client: libcurl, absent there or in the self-contained build */
    if (tb_curl_load(&ce) < 0)
        return tb_errf(err, "the notary client needs libcurl%s: %s",
                       tb_linkage_static() ? "" : " (Debian package libcurl4)", ce.msg),
               TB_WL_SKIPPED;
    const tb_wl_fixture *fx = c->env->fixture;
    if (!fx->up)
        return tb_errf(err, "%s", fx->reason), TB_WL_FAILED;
    tb_bench_config bc;
    tb_bench_config_defaults(&bc);
    bc.iterations = n->iterations;
    bc.n_modes = n->n_modes;
    for (int m = 0; m < n->n_modes; m++)
        snprintf(bc.modes[m], sizeof bc.modes[m], "%s", n->modes[m]);
    bc.start_fixture = 0;
    bc.use_fixture_ca = 1;
    snprintf(bc.fixture_ca, sizeof bc.fixture_ca, "%s", fx->ca);
    snprintf(bc.target_host, sizeof bc.target_host, "127.0.0.1");
    bc.target_port = fx->port;
    bc.start_notary = 1;
    bc.notary_port = 0;
    snprintf(bc.notary_tee, sizeof bc.notary_tee, "%s", tb_tee_name(c->notary_tee));
    bc.run_timeout_s = n->run_timeout_s;
    bc.retries = n->retries;
    if (c->notary_tee == TB_TEE_TDX)
        snprintf(bc.pccs_url, sizeof bc.pccs_url, "%s", n->pccs);
    if (c->notary_tee == TB_TEE_SNP)
        snprintf(bc.kds_url, sizeof bc.kds_url, "%s", c->a->kds);
    if (tb_wl_path(c->sink, "notary", bc.out_root, sizeof bc.out_root, err) < 0)
        return TB_WL_FAILED;
    snprintf(bc.self_exe, sizeof bc.self_exe, "%s", (char *)c->env->exe);
    if (tb_bench_config_check(&bc, err) < 0)
        return TB_WL_FAILED;
    notary_command(c, &bc);
    char detail[48];
    snprintf(detail, sizeof detail, " after %d retries", n->retries);
    (void)round;
    return tb_wl_bench_step(&bc, sink, round_samples, c, "notarization runs", detail, err);
}

static int setup(const void *params, const tb_wl_env *env, tb_wl_sink *sink, void **state,
                 tb_err *err)
{
    notary_state *c = tb_wl_state_new(sizeof *c, state, err);
    if (!c)
        return -1;
    c->n = params;
    c->a = tb_wl_env_params(env, &tb_wl_attest);
    c->env = env;
    c->sink = sink;
    /* the parameter is one of its choices (auto|sim|sim-snp|tdx|snp) */
    if (tb_tee_parse(tb_wl_notary_tee(c->n->tee, env->tee), &c->notary_tee) < 0)
        return tb_errf(err, "tee: '%s' is not auto, sim, sim-snp, tdx or snp", c->n->tee);
    tb_wl_fact(sink, "notary_tee", json_string(tb_tee_name(c->notary_tee)));
    return 0;
}

const tb_workload tb_wl_notary = {
    .name = "notary",
    .title = "Notary",
    .what = "notarizations without and with a TEE (teebench bench notary)",
    TB_WL_PARAM_TABLE(tb_wl_notary_params, param_table),
    .services = services,
    .steps = steps,
    .describe = describe,
    .setup = setup,
    .step = step,
    .cleanup = tb_wl_free_state,
    TB_WL_METRIC_TABLE(metrics),
    .plan_metrics = plan_metrics,
};
