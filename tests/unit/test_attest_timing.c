/* Unit tests for attest/common/timing: the verification-timing loop over a real TDX quote
 * (dcap-qvl's sample, Intel's root) and a real SEV-SNP report (virtee's Milan report and
 * certificates): both ways give the verifier's verdict, the batches are counted and
 * reported in order, stop and a batch's error end the run, and the failures (collateral
 * that does not parse, a chain that does not prepare, bad options) are -1 with why. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "attest/common/timing.h"
#include "attest_test_util.h"

#define SNP_NOW 1700000000 /* inside the Milan VCEK's validity (test_attest_snp) */

typedef struct counter {
    int batches, stop_after, fail_at, last;
    tb_attest_way way;
} counter;

static int count_stop(void *ctx)
{
    const counter *k = ctx;
    return k->stop_after && k->batches >= k->stop_after;
}

static int count_batch(void *ctx, const tb_attest_timed *t, tb_err *err)
{
    counter *k = ctx;
    assert_int_equal(t->batch, k->batches); /* in order, from 0 */
    assert_int_equal(t->way, k->way);
    assert_true(t->wall_ms > 0);
    k->last = t->tdx.result;
    if (++k->batches == k->fail_at)
        return tb_errf(err, "batch %d refused", t->batch);
    return 0;
}

typedef struct tdx_case {
    tb_buf quote, col;
    tb_attest_root *root;
    tb_attest_timed_input in;
} tdx_case;

static void tdx_open(tdx_case *c)
{
    char p[1024];
    tb_err e;
    case_path("qvl-v4-uptodate", "quote.bin", p, sizeof p);
    c->quote = read_all(p);
    case_path("qvl-v4-uptodate", "collateral.json", p, sizeof p);
    c->col = read_all(p);
    assert_int_equal(tb_attest_root_intel(&c->root, &e), 0);
    c->in = (tb_attest_timed_input){.family = TB_TEE_FAMILY_TDX,
                                    .evidence = c->quote.p,
                                    .len = c->quote.len,
                                    .now = case_now("qvl-v4-uptodate"),
                                    .collateral_json = (const char *)c->col.p,
                                    .collateral_len = c->col.len,
                                    .root = c->root};
}

static void tdx_close(tdx_case *c)
{
    tb_buf_clear(&c->quote);
    tb_buf_clear(&c->col);
    tb_attest_root_free(c->root);
}

static void test_tdx_both_ways(void **state)
{
    (void)state;
    tdx_case c;
    tdx_open(&c);
    tb_err e;
    for (int w = 0; w < 2; w++) {
        counter k = {.way = (tb_attest_way)w};
        tb_attest_timing_opts o = {.batches = 3,
                                   .per = 2,
                                   .warmup = 1,
                                   .ctx = &k,
                                   .stop = count_stop,
                                   .batch = count_batch};
        tb_attest_timed t;
        assert_int_equal(tb_attest_time_verify(&c.in, (tb_attest_way)w, &o, &t, &e), 0);
        assert_int_equal(t.batch, 3);
        assert_int_equal(k.batches, 3);
        assert_true(t.wall_ms > 0);
        assert_true(t.cpu_ms > 0);
        assert_int_equal(t.tdx.result, TB_ATTEST_ACCEPTED);
        assert_int_equal(k.last, TB_ATTEST_ACCEPTED);
        assert_true(t.tdx.status_known);
        assert_string_equal(tb_attest_tcb_status_name(t.tdx.status), "UpToDate");
    }
    /* without callbacks: the median over the batches */
    tb_attest_timing_opts plain = {.batches = 1, .per = 1};
    tb_attest_timed t;
    assert_int_equal(tb_attest_time_verify(&c.in, TB_ATTEST_FROM_SCRATCH, &plain, &t, &e), 0);
    assert_int_equal(t.batch, 1);
    assert_int_equal(t.tdx.result, TB_ATTEST_ACCEPTED);
    tdx_close(&c);
}

static void test_stop_and_batch_error(void **state)
{
    (void)state;
    tdx_case c;
    tdx_open(&c);
    tb_err e;
    tb_attest_timed t;
    counter k = {.way = TB_ATTEST_PREPARED, .stop_after = 2};
    tb_attest_timing_opts o = {
        .batches = 5, .per = 1, .ctx = &k, .stop = count_stop, .batch = count_batch};
    assert_int_equal(tb_attest_time_verify(&c.in, TB_ATTEST_PREPARED, &o, &t, &e), 0);
    assert_int_equal(t.batch, 2); /* stopped before the third */
    assert_int_equal(k.batches, 2);
    /* stopped before the first: no batch, no times, the verdict of preparing */
    counter none = {.way = TB_ATTEST_PREPARED, .stop_after = -1};
    o.ctx = &none;
    assert_int_equal(tb_attest_time_verify(&c.in, TB_ATTEST_PREPARED, &o, &t, &e), 0);
    assert_int_equal(t.batch, 0);
    assert_true(t.wall_ms == 0);
    /* a batch's error ends the run with it */
    counter bad = {.way = TB_ATTEST_FROM_SCRATCH, .fail_at = 2};
    o.ctx = &bad;
    assert_int_equal(tb_attest_time_verify(&c.in, TB_ATTEST_FROM_SCRATCH, &o, &t, &e), -1);
    assert_string_equal(e.msg, "batch 1 refused");
    assert_int_equal(bad.batches, 2);
    tdx_close(&c);
}

static void test_refusals(void **state)
{
    (void)state;
    tdx_case c;
    tdx_open(&c);
    tb_err e;
    tb_attest_timed t;
    tb_attest_timing_opts o = {.batches = 2, .per = 1};
    /* collateral that does not parse: both ways, with the parser's reason */
    tb_attest_timed_input broken = c.in;
    broken.collateral_json = "{\"tcb_info\":";
    broken.collateral_len = strlen(broken.collateral_json);
    assert_int_equal(tb_attest_time_verify(&broken, TB_ATTEST_FROM_SCRATCH, &o, &t, &e), -1);
    assert_true(e.msg[0] != '\0');
    assert_int_equal(tb_attest_time_verify(&broken, TB_ATTEST_PREPARED, &o, &t, &e), -1);
    /* options */
    tb_attest_timing_opts zero = {.batches = 0, .per = 1}, many = {.batches = 65, .per = 1},
                          noper = {.batches = 1, .per = 0};
    assert_int_equal(tb_attest_time_verify(&c.in, TB_ATTEST_PREPARED, &zero, &t, &e), -1);
    assert_int_equal(tb_attest_time_verify(&c.in, TB_ATTEST_PREPARED, &many, &t, &e), -1);
    assert_int_equal(tb_attest_time_verify(&c.in, TB_ATTEST_PREPARED, &noper, &t, &e), -1);
    tb_attest_timed_input nofam = c.in;
    nofam.family = TB_TEE_FAMILY_NONE;
    assert_int_equal(tb_attest_time_verify(&nofam, TB_ATTEST_FROM_SCRATCH, &o, &t, &e), -1);
    assert_non_null(strstr(e.msg, "no TEE"));
    tdx_close(&c);
}

static uint8_t *snp_der(const char *file, size_t *len)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/snp/%s", testdata(), file);
    tb_buf b = read_all(p);
    uint8_t *d;
    tb_err e;
    assert_int_equal(tb_snp_to_der(b.p, b.len, 0, &d, len, &e), 0);
    tb_buf_clear(&b);
    return d;
}

static void test_snp(void **state)
{
    (void)state;
    char p[1024];
    snprintf(p, sizeof p, "%s/snp/report_milan.hex", testdata());
    uint8_t *rep;
    size_t n;
    tb_err e;
    assert_int_equal(tb_attest_evidence_file_read(p, &rep, &n, &e), 0);
    tb_snp_certs certs = {0};
    certs.ark = snp_der("ark_milan.pem", &certs.ark_len);
    certs.ask = snp_der("ask_milan.pem", &certs.ask_len);
    certs.vcek = snp_der("vcek_milan.der", &certs.vcek_len);
    tb_attest_timed_input in = {
        .family = TB_TEE_FAMILY_SNP, .evidence = rep, .len = n, .now = SNP_NOW, .certs = &certs};
    tb_attest_timing_opts o = {.batches = 2, .per = 2, .warmup = 1};
    tb_attest_timed s, pr;
    assert_int_equal(tb_attest_time_verify(&in, TB_ATTEST_FROM_SCRATCH, &o, &s, &e), 0);
    assert_int_equal(tb_attest_time_verify(&in, TB_ATTEST_PREPARED, &o, &pr, &e), 0);
    assert_int_equal(s.snp.result, TB_ATTEST_ACCEPTED);
    assert_int_equal(pr.snp.result, TB_ATTEST_ACCEPTED);
    assert_int_equal(s.snp.product, TB_SNP_MILAN);
    assert_int_equal(s.batch, 2);
    assert_true(s.wall_ms > 0 && pr.wall_ms > 0);
    /* before the ARK's validity: from scratch times INVALID verdicts; preparing fails */
    in.now = 1600000000;
    assert_int_equal(tb_attest_time_verify(&in, TB_ATTEST_FROM_SCRATCH, &o, &s, &e), 0);
    assert_int_equal(s.snp.result, TB_ATTEST_INVALID);
    assert_int_equal(tb_attest_time_verify(&in, TB_ATTEST_PREPARED, &o, &pr, &e), -1);
    assert_int_equal(pr.snp.result, TB_ATTEST_INVALID);
    assert_int_equal(pr.snp.step, TB_SNP_STEP_ARK);
    assert_non_null(strstr(e.msg, "SEV-SNP report verification failed at "));
    assert_int_equal(pr.batch, 0);
    tb_snp_certs_clear(&certs);
    free(rep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tdx_both_ways),
        cmocka_unit_test(test_stop_and_batch_error),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_snp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
