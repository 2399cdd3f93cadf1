/* Unit tests for src/workloads/notary: rows of results.csv as samples -- the one
 * function the suite's rounds and results import share: a sample per successful run
 * (failed ones left out), verification only where the run verified, SIMULATED marks
 * and note tags on the TEE modes alone, and the paired overheads (median over
 * iterations of the mode minus no_tee, notarization + verification for tee_verify;
 * none without a pair, none when the caller cut the round short); the TEE choice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "bench/internal.h"
#include "bench/run.h"
#include "workloads/notary.h"

typedef struct kept {
    char names[64][160], notes[64][256];
    double values[64];
    int sim[64];
    size_t n;
} kept;

static int keep(void *ctx, const char *name, double v, int simulated, const char *note, tb_err *err)
{
    kept *k = ctx;
    (void)err;
    tb_wl_match m;
    assert_int_equal(tb_wl_metric_find(name, &m), 1);
    assert_ptr_equal(m.workload, &tb_wl_notary);
    assert_int_equal(m.tee, simulated ? 1 : m.tee); /* a SIMULATED sample is a TEE metric's */
    snprintf(k->names[k->n], sizeof k->names[0], "%s", name);
    snprintf(k->notes[k->n], sizeof k->notes[0], "%s", note);
    k->sim[k->n] = simulated;
    k->values[k->n++] = v;
    return 0;
}

static size_t count(const kept *k, const char *name, double *last)
{
    size_t n = 0;
    for (size_t i = 0; i < k->n; i++)
        if (!strcmp(k->names[i], name))
            n++, *last = k->values[i];
    return n;
}

static void row(tb_bench_results *rs, const char *mode, long it, int code, double ms, double v)
{
    tb_bench_result_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.mode, sizeof r.mode, "%s", mode);
    r.iteration = it;
    tb_bench_mode_flags(mode, &r.enable_tee, &r.verify);
    r.exit_code = code;
    r.has = TB_BENCH_HAS_NOTARIZATION | TB_BENCH_HAS_WALL | TB_BENCH_HAS_NOTARIZATION_PLUS_VERIFY;
    r.notarization_ms = ms;
    r.wall_ms = ms + 5;
    r.notarization_plus_verify_ms = ms + v;
    if (r.verify) {
        r.has |= TB_BENCH_HAS_TDX_VERIFY;
        r.tdx_verify_ms = v;
    }
    tb_err e;
    assert_int_equal(tb_bench_results_push(rs, &r, &e), 0);
}

static void test_rows(void **state)
{
    (void)state;
    tb_bench_results rs = {0};
    /* iteration-major, as the harness writes them; tee_no_verify's 2nd run failed */
    static const double base[] = {100, 110, 120}, tnv[] = {150, 0, 170}, tv[] = {160, 175, 190};
    for (long it = 1; it <= 3; it++) {
        row(&rs, "no_tee", it, 0, base[it - 1], 0);
        row(&rs, "tee_no_verify", it, it == 2 ? 1 : 0, tnv[it - 1], 0);
        row(&rs, "tee_verify", it, 0, tv[it - 1], 30);
    }
    kept k = {0};
    tb_wl_sink sink = {.ctx = &k, .sample = keep, .dir_fd = -1};
    tb_wl_notary_rows_opts o = {.simulated = 1, .tag = " (SIMULATED SEV-SNP TEE)", .overheads = 1};
    tb_err e;
    assert_int_equal(tb_wl_notary_rows(&rs, &o, &sink, &e), 0);
    double last;
    assert_int_equal(count(&k, "notary.no_tee.notarization_ms", &last), 3);
    assert_int_equal(count(&k, "notary.tee_no_verify.notarization_ms", &last), 2); /* failed: out */
    assert_int_equal(count(&k, "notary.tee_verify.verify_ms", &last), 3);
    assert_int_equal(count(&k, "notary.tee_no_verify.verify_ms", &last), 0);
    assert_int_equal(count(&k, "notary.no_tee.wall_ms", &last), 3);
    assert_true(last == 125);
    assert_int_equal(count(&k, "notary.tee_no_verify.overhead_ms", &last), 1);
    assert_true(last == 50); /* median of 50 (it 1) and 50 (it 3) */
    assert_int_equal(count(&k, "notary.tee_verify.overhead_ms", &last), 1);
    assert_true(last == 95); /* median of 90, 95, 100: notarization + verification */
    for (size_t i = 0; i < k.n; i++) {
        int tee = !!strncmp(k.names[i], "notary.no_tee.", 14);
        assert_int_equal(k.sim[i], tee);
        assert_int_equal(strstr(k.notes[i], " (SIMULATED SEV-SNP TEE)") != NULL, tee);
    }
    /* the overheads come last, in the modes' order */
    assert_string_equal(k.names[k.n - 2], "notary.tee_no_verify.overhead_ms");
    assert_string_equal(k.names[k.n - 1], "notary.tee_verify.overhead_ms");

    /* a round cut short: its runs, no overheads; a real TEE: nothing SIMULATED */
    memset(&k, 0, sizeof k);
    o = (tb_wl_notary_rows_opts){0};
    assert_int_equal(tb_wl_notary_rows(&rs, &o, &sink, &e), 0);
    assert_int_equal(count(&k, "notary.tee_verify.overhead_ms", &last), 0);
    for (size_t i = 0; i < k.n; i++)
        assert_false(k.sim[i] || strstr(k.notes[i], "SIMULATED"));
    tb_bench_results_clear(&rs);

    /* no no_tee run succeeded: nothing to pair with; a mode with odd characters */
    row(&rs, "no_tee", 1, 1, 100, 0);
    row(&rs, "Tee.Custom", 1, 0, 150, 0);
    memset(&k, 0, sizeof k);
    o.overheads = 1;
    assert_int_equal(tb_wl_notary_rows(&rs, &o, &sink, &e), 0);
    assert_int_equal(count(&k, "notary.tee_custom.notarization_ms", &last), 1);
    assert_int_equal(count(&k, "notary.tee_custom.overhead_ms", &last), 0);
    tb_bench_results_clear(&rs);
}

static void test_tee(void **state)
{
    (void)state;
    assert_string_equal(tb_wl_notary_tee("auto", "tdx"), "tdx");
    assert_string_equal(tb_wl_notary_tee("auto", "snp"), "snp");
    assert_string_equal(tb_wl_notary_tee("auto", "none"), "sim");
    assert_string_equal(tb_wl_notary_tee("sim-snp", "tdx"), "sim-snp");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_tee),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
