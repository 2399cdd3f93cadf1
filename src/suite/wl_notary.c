/* suite/wl_notary: the notary workload -- `teebench bench notary` (bench/run)
 * once per round, against the suite's fixture server (already running: the
 * harness does not start its own), with a notary the harness starts (its
 * SIMULATED TEE state in the round's run directory; a real TDX notary in a TD, a real
 * SEV-SNP notary in an SEV-SNP guest; notary.tee chooses).
 *
 * Samples: every successful run's notarization_ms and total_e2e_ms (per mode),
 * tee_verify's verify_ms, and one overhead per round and TEE mode: the median
 * over the round's iterations of the paired difference to no_tee (same
 * iteration): notarization_ms for tee_no_verify, notarization_ms + verify_ms
 * for tee_verify (bench/report's headline quantities). Runs that still failed
 * after their retries fail the step; their logs stay in the work directory. */
#include "suite/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/run.h"
#include "stats/summary.h"

/* The final attempt of every run (the harness reports each attempt). */
static void collect(const tb_bench_event *ev, void *ctx)
{
    if (strcmp(ev->kind, "attempt") || ev->will_retry)
        return;
    tb_err e;
    tb_bench_results_push(ctx, ev->row, &e);
}

static void notary_command(suite_ctx *c, const tb_bench_config *bc)
{
    char it[16], port[16], to[16], rt[16], modes[64] = "";
    snprintf(it, sizeof it, "%d", bc->iterations);
    snprintf(port, sizeof port, "%d", bc->target_port);
    snprintf(to, sizeof to, "%d", bc->run_timeout_s);
    snprintf(rt, sizeof rt, "%d", bc->retries);
    for (int m = 0; m < bc->n_modes; m++)
        snprintf(modes + strlen(modes), sizeof modes - strlen(modes), "%s%s", m ? " " : "",
                 bc->modes[m]);
    char *argv[24] = {c->exe,
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
    suite_command(c, argv);
}

static const tb_bench_result_row *find_row(const tb_bench_results *rs, const char *mode, long it)
{
    for (size_t i = 0; i < rs->n; i++)
        if (rs->rows[i].iteration == it && !strcmp(rs->rows[i].mode, mode) &&
            tb_bench_result_ok(&rs->rows[i]))
            return &rs->rows[i];
    return NULL;
}

/* Median paired overhead of mode over no_tee in this round; 0 = none computable. */
static int overhead(const tb_bench_results *rs, const char *mode, int iterations, double *out)
{
    double *d = calloc((size_t)iterations, sizeof *d);
    size_t n = 0;
    if (!d)
        return -1;
    int verify = !strcmp(mode, "tee_verify");
    for (long it = 1; it <= iterations; it++) {
        const tb_bench_result_row *b = find_row(rs, "no_tee", it), *m = find_row(rs, mode, it);
        if (!b || !m)
            continue;
        double x = verify ? m->notarization_plus_verify_ms : m->notarization_ms;
        d[n++] = x - b->notarization_ms;
    }
    int rc = n ? (tb_stats_median(d, n, out) < 0 ? -1 : 1) : 0;
    free(d);
    return rc;
}

static int add_rows(suite_ctx *c, const tb_bench_results *rs, int complete, tb_err *err)
{
    int sim = tb_bench_tee_simulated(c->notary_tee);
    const char *tag = !sim                            ? ""
                      : !strcmp(c->notary_tee, "sim") ? " (SIMULATED TEE)"
                                                      : " (SIMULATED SEV-SNP TEE)";
    char note[256];
    for (size_t i = 0; i < rs->n; i++) {
        const tb_bench_result_row *r = &rs->rows[i];
        if (!tb_bench_result_ok(r))
            continue;
        int tee = strcmp(r->mode, "no_tee") != 0;
        char name[96];
        snprintf(name, sizeof name, "notary.%s.notarization_ms", r->mode);
        snprintf(note, sizeof note,
                 "notarization time the client reports (NOTARIZATION_MS), one sample per run%s",
                 tee ? tag : "");
        if (suite_sample(c, name, r->notarization_ms, tee && sim, note, err) < 0)
            return -1;
        if (r->has & TB_BENCH_HAS_TOTAL_E2E) {
            snprintf(name, sizeof name, "notary.%s.total_e2e_ms", r->mode);
            snprintf(note, sizeof note,
                     "end-to-end time of one client run (TOTAL_E2E_MS), one sample per run%s",
                     tee ? tag : "");
            if (suite_sample(c, name, r->total_e2e_ms, tee && sim, note, err) < 0)
                return -1;
        }
        if (r->has & TB_BENCH_HAS_WALL) {
            snprintf(name, sizeof name, "notary.%s.wall_ms", r->mode);
            snprintf(note, sizeof note,
                     "life of one client process as the harness saw it (results.csv wall_ms)%s",
                     tee ? tag : "");
            if (suite_sample(c, name, r->wall_ms, tee && sim, note, err) < 0)
                return -1;
        }
        if ((r->has & TB_BENCH_HAS_TDX_VERIFY) && !strcmp(r->mode, "tee_verify")) {
            snprintf(note, sizeof note,
                     "time the client spends verifying the notary's quote (TDX_VERIFY_MS)%s", tag);
            if (suite_sample(c, "notary.tee_verify.verify_ms", r->tdx_verify_ms, sim, note, err) <
                0)
                return -1;
        }
    }
    if (!complete)
        return 0;
    int have_base = 0;
    for (int m = 0; m < NOTARY(c)->n_modes; m++)
        have_base |= !strcmp(NOTARY(c)->modes[m], "no_tee");
    for (int m = 0; m < NOTARY(c)->n_modes && have_base; m++) {
        const char *mode = NOTARY(c)->modes[m];
        if (!strcmp(mode, "no_tee"))
            continue;
        double x;
        int k = overhead(rs, mode, NOTARY(c)->iterations, &x);
        if (k < 0)
            return tb_errf(err, "out of memory");
        if (k == 0)
            continue;
        char name[96];
        snprintf(name, sizeof name, "notary.%s.overhead_ms", mode);
        snprintf(note, sizeof note,
                 "median over a round's iterations of %s - no_tee notarization_ms, paired by "
                 "iteration; one sample per round%s",
                 strcmp(mode, "tee_verify") ? "tee_no_verify"
                                            : "(notarization_ms + verify_ms) of "
                                              "tee_verify",
                 tag);
        if (suite_sample(c, name, x, sim, note, err) < 0)
            return -1;
    }
    return 0;
}

const char *tb_suite_notary_tee(const char *setting, const char *env_tee)
{
    if (strcmp(setting, "auto"))
        return setting;
    return !strcmp(env_tee, "tdx") || !strcmp(env_tee, "snp") ? env_tee : "sim";
}

int suite_notary_step(suite_ctx *c, int round, tb_err *err)
{
    const tb_wl_notary_params *n = NOTARY(c);
    if (!c->notary_tee[0]) {
        snprintf(c->notary_tee, sizeof c->notary_tee, "%s",
                 tb_suite_notary_tee(n->tee, c->env_tee));
        json_object_set_new(c->r->extra, "notary_tee", json_string(c->notary_tee));
    }
    tb_bench_config bc;
    tb_bench_config_defaults(&bc);
    bc.iterations = n->iterations;
    bc.n_modes = n->n_modes;
    for (int m = 0; m < n->n_modes; m++)
        snprintf(bc.modes[m], sizeof bc.modes[m], "%s", n->modes[m]);
    bc.start_fixture = 0;
    bc.use_fixture_ca = 1;
    snprintf(bc.fixture_ca, sizeof bc.fixture_ca, "%s", c->ca);
    snprintf(bc.target_host, sizeof bc.target_host, "127.0.0.1");
    bc.target_port = c->fixture_port;
    bc.start_notary = 1;
    bc.notary_port = 0;
    snprintf(bc.notary_tee, sizeof bc.notary_tee, "%s", c->notary_tee);
    bc.run_timeout_s = n->run_timeout_s;
    bc.retries = n->retries;
    if (!strcmp(c->notary_tee, "tdx"))
        snprintf(bc.pccs_url, sizeof bc.pccs_url, "%s", n->pccs);
    if (!strcmp(c->notary_tee, "snp"))
        snprintf(bc.kds_url, sizeof bc.kds_url, "%s", ATTEST(c)->kds);
    if (suite_path(c, "notary", bc.out_root, sizeof bc.out_root, err) < 0)
        return ST_FAILED;
    snprintf(bc.self_exe, sizeof bc.self_exe, "%s", c->exe);
    if (tb_bench_config_check(&bc, err) < 0)
        return ST_FAILED;
    notary_command(c, &bc);
    tb_bench_results rows = {0};
    tb_bench_outcome oc;
    int rc = tb_bench_run(&bc, c->stop, collect, &rows, &oc, err);
    int st = ST_OK;
    if (rc < 0) {
        st = ST_FAILED;
    } else {
        tb_err e;
        if (add_rows(c, &rows, !oc.interrupted, &e) < 0) {
            *err = e;
            st = ST_FAILED;
        } else if (oc.interrupted) {
            st = ST_CANCELLED;
        } else if (oc.failed) {
            tb_errf(err, "%d of %d notarization runs failed after %d retries (logs: %s/logs)",
                    oc.failed, oc.completed, n->retries, oc.run_dir);
            st = ST_FAILED;
        }
    }
    tb_bench_results_clear(&rows);
    (void)round;
    return st;
}
