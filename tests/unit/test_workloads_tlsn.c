/* Unit tests for src/workloads/tlsn: a bench tlsn run's rows and phases.csv as samples
 * (the suite's step and results import share it): one sample per successful session and
 * metric, phases from phases.csv by (mode, iteration), CPU summed over both parties and
 * the larger party's memory, verification only where it verified, SIMULATED marks on the
 * TEE modes alone, paired overheads; the workload's plan: off in quick, once per run;
 * the prover's phases as one family (a stacked bar per mode, notarization its whole). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "bench/internal.h"
#include "bench/run.h"
#include "workloads/tlsn.h"

typedef struct kept {
    char names[128][160];
    double values[128];
    int sim[128];
    size_t n;
} kept;

static int keep(void *ctx, const char *name, double v, int simulated, const char *note, tb_err *err)
{
    kept *k = ctx;
    (void)err;
    tb_wl_match m;
    assert_int_equal(tb_wl_metric_find(name, &m), 1);
    assert_ptr_equal(m.workload, &tb_wl_tlsn);
    assert_non_null(strstr(note, "Chromium's WebAssembly"));
    assert_int_equal(simulated, strstr(note, "SIMULATED") != NULL);
    snprintf(k->names[k->n], sizeof k->names[0], "%s", name);
    k->sim[k->n] = simulated;
    k->values[k->n++] = v;
    return 0;
}

static double get(const kept *k, const char *name, int *sim)
{
    for (size_t i = 0; i < k->n; i++)
        if (!strcmp(k->names[i], name)) {
            if (sim)
                *sim = k->sim[i];
            return k->values[i];
        }
    return -1;
}

static void row(tb_bench_results *rs, const char *mode, long it, int code, double ms, double v)
{
    tb_bench_result_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.mode, sizeof r.mode, "%s", mode);
    r.iteration = it;
    tb_bench_mode_flags(mode, &r.enable_tee, &r.verify);
    r.exit_code = code;
    r.has = TB_BENCH_HAS_NOTARIZATION | TB_BENCH_HAS_NOTARIZATION_PLUS_VERIFY;
    r.notarization_ms = ms;
    r.notarization_plus_verify_ms = ms + v;
    if (r.verify) {
        r.has |= TB_BENCH_HAS_TDX_VERIFY;
        r.tdx_verify_ms = v;
    }
    tb_err e;
    assert_int_equal(tb_bench_results_push(rs, &r, &e), 0);
}

static const char phases[] =
    "mode,iteration,exit_code,setup_ms,request_ms,reveal_ms,prover_cpu_ms,verifier_cpu_ms,"
    "prover_peak_rss_mib,verifier_peak_rss_mib\n"
    "no_tee,1,0,30000,5000,80,40000,30000,800,900\n"
    "tee_no_verify,1,0,31000,5100,81,41000,31000,810,700\n"
    "tee_verify,1,0,32000,,82,42000,32000,820,710\n"
    "no_tee,2,1,,,,,,,\n"
    "tee_no_verify,2,0,33000,5300,83,43000,33000,830,730\n"
    "tee_verify,2,0,34000,5400,84,44000,34000,840,740\n";

static void test_rows(void **state)
{
    (void)state;
    tb_bench_results rs = {0};
    row(&rs, "no_tee", 1, 0, 36000, 0);
    row(&rs, "tee_no_verify", 1, 0, 35990, 0); /* faster than no_tee: a negative overhead */
    row(&rs, "tee_verify", 1, 0, 36020, 2);
    row(&rs, "no_tee", 2, 1, 0, 0); /* failed: no samples, no pair */
    row(&rs, "tee_no_verify", 2, 0, 37000, 0);
    row(&rs, "tee_verify", 2, 0, 37100, 3);
    kept k = {0};
    tb_wl_sink sink = {.ctx = &k, .sample = keep, .dir_fd = -1};
    tb_err e;
    assert_int_equal(tb_wl_tlsn_rows(&rs, phases, 1, &sink, &e), 0);
    int sim = -1;
    assert_true(get(&k, "tlsn.no_tee.notarization_ms", &sim) == 36000);
    assert_int_equal(sim, 0);
    assert_true(get(&k, "tlsn.no_tee.setup_ms", &sim) == 30000);
    assert_true(get(&k, "tlsn.no_tee.cpu_ms", NULL) == 70000);     /* both parties */
    assert_true(get(&k, "tlsn.no_tee.peak_rss_mib", NULL) == 900); /* the larger */
    assert_true(get(&k, "tlsn.tee_no_verify.setup_ms", &sim) == 31000);
    assert_int_equal(sim, 1);
    assert_true(get(&k, "tlsn.tee_verify.verify_ms", &sim) == 2);
    assert_true(get(&k, "tlsn.no_tee.verify_ms", NULL) < 0);
    /* only iteration 1 pairs (no_tee 2 failed): overheads -10 (noise can do that: a
       negative overhead is a sample too) and 20 + 2 */
    assert_true(get(&k, "tlsn.tee_no_verify.overhead_ms", &sim) == -10);
    assert_int_equal(sim, 1);
    assert_true(get(&k, "tlsn.tee_verify.overhead_ms", NULL) == 22);
    /* an empty cell is no sample: tee_verify 1's request_ms; iteration 2's is */
    size_t n_req = 0;
    for (size_t i = 0; i < k.n; i++)
        n_req += !strcmp(k.names[i], "tlsn.tee_verify.request_ms");
    assert_int_equal(n_req, 1);
    /* no phases.csv: the rows' samples alone; not simulated: no marks */
    kept k2 = {0};
    sink.ctx = &k2;
    assert_int_equal(tb_wl_tlsn_rows(&rs, NULL, 0, &sink, &e), 0);
    assert_true(get(&k2, "tlsn.tee_verify.notarization_ms", &sim) == 36020);
    assert_int_equal(sim, 0);
    assert_true(get(&k2, "tlsn.no_tee.setup_ms", NULL) < 0);
    tb_bench_results_clear(&rs);
}

static int count_names(void *ctx, const char *name)
{
    (void)name;
    ++*(int *)ctx;
    return 0;
}

static void test_plan(void **state)
{
    (void)state;
    tb_wl_tlsn_params p;
    tb_err e;
    assert_int_equal(tb_wl_params_init(&tb_wl_tlsn, &p, TB_WL_QUICK, &e), 0);
    assert_int_equal(p.iterations, 0);
    tb_wl_step st[TB_WL_MAX_STEPS];
    assert_int_equal(tb_wl_tlsn.steps(&p, st), 0); /* off */
    int n = 0;
    assert_int_equal(tb_wl_tlsn.plan_metrics(&p, count_names, &n), 0);
    assert_int_equal(n, 0);
    assert_int_equal(tb_wl_params_init(&tb_wl_tlsn, &p, TB_WL_STANDARD, &e), 0);
    assert_int_equal(p.iterations, 3);
    assert_int_equal(p.threads, 2);
    assert_int_equal(tb_wl_tlsn.steps(&p, st), 1);
    assert_true(tb_wl_tlsn.flags & TB_WL_ONCE);
    assert_int_equal(tb_wl_params_init(&tb_wl_tlsn, &p, TB_WL_SEED, &e), 0);
    assert_int_equal(p.iterations, 25);
    assert_int_equal(tb_wl_tlsn.plan_metrics(&p, count_names, &n), 0);
    assert_int_equal(n, 24);
    assert_int_equal(tb_wl_params_set(&tb_wl_tlsn, &p, "tee", "snp", NULL, &e), -1);
}

/* The prover's phases are one stacked bar per mode (the report's phases family), and
   notarization_ms is their whole. */
static void test_phases(void **state)
{
    (void)state;
    tb_wl_match m;
    size_t k = 99;
    assert_int_equal(tb_wl_metric_find("tlsn.tee_verify.request_ms", &m), 1);
    const tb_wl_family *f = tb_wl_phase_of(&m, &k);
    assert_non_null(f);
    assert_int_equal(k, 1);
    assert_int_equal(tb_wl_phase_count(f), 3);
    static const char *const labels[] = {"setup_ms", "request_ms", "reveal_ms"};
    for (size_t i = 0; i < 3; i++) {
        char l[32];
        tb_wl_phase_label(f, i, l, sizeof l);
        assert_string_equal(l, labels[i]);
    }
    assert_string_equal(f->total, "tlsn.*.notarization_ms");
    assert_int_equal(tb_wl_metric_find("tlsn.no_tee.notarization_ms", &m), 1);
    assert_null(tb_wl_phase_of(&m, &k));
    assert_int_equal(tb_wl_metric_find("tlsn.no_tee.cpu_ms", &m), 1);
    assert_null(tb_wl_phase_of(&m, &k));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_plan),
        cmocka_unit_test(test_phases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
