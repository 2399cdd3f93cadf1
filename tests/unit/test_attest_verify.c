/* Unit tests for attest/tdx/verify: every real case in testdata/tdx gives its expected
 * verdict at its `now`; negative cases fail at the right step with a clear reason;
 * prepared collateral gives the same verdicts as verification from scratch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <time.h>

#include "attest_test_util.h"

static const char *const CASES[] = {"dcaprs-v4-outofdate", "gotdx-v4-notcb", "qvl-v4-uptodate",
                                    "qvl-v5-notcb"};

typedef struct loaded {
    tb_buf quote;
    tb_tdx_collateral col;
    tb_attest_root *root;
    long long now;
} loaded;

static void load_case(const char *name, loaded *l)
{
    char p[1024];
    tb_err e;
    case_path(name, "quote.bin", p, sizeof p);
    l->quote = read_all(p);
    case_path(name, "collateral.json", p, sizeof p);
    assert_int_equal(tb_tdx_collateral_load(p, &l->col, &e), 0);
    assert_int_equal(tb_attest_root_intel(&l->root, &e), 0);
    l->now = case_now(name);
}

static void free_case(loaded *l)
{
    tb_buf_clear(&l->quote);
    tb_tdx_collateral_clear(&l->col);
    tb_attest_root_free(l->root);
}

/* Checks a verdict against case.json's "expect". */
static void check_expect(const char *name, const tb_tdx_verdict *v)
{
    char p[1024];
    case_path(name, "case.json", p, sizeof p);
    json_t *o = json_load_file(p, 0, NULL), *ex = json_object_get(o, "expect");
    assert_non_null(ex);
    const char *err = json_string_value(json_object_get(ex, "error"));
    if (err) {
        assert_int_equal(v->result, TB_ATTEST_INVALID);
        assert_string_equal(v->reason, err);
    } else {
        const char *st = json_string_value(json_object_get(ex, "status"));
        assert_true(v->status_known);
        assert_string_equal(tb_attest_tcb_status_name(v->status), st);
        json_t *adv = json_object_get(ex, "advisory_ids");
        assert_int_equal(v->n_advisories, (int)json_array_size(adv));
        for (int i = 0; i < v->n_advisories; i++)
            assert_string_equal(tb_tdx_verdict_advisory(v, i),
                                json_string_value(json_array_get(adv, (size_t)i)));
        assert_int_equal(v->result,
                         !strcmp(st, "UpToDate") ? TB_ATTEST_ACCEPTED : TB_ATTEST_REFUSED);
    }
    json_decref(o);
}

static void test_cases_expected_verdicts(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        loaded l;
        tb_tdx_verdict v;
        load_case(CASES[i], &l);
        tb_tdx_verify(l.quote.p, l.quote.len, &l.col, l.now, NULL, l.root, &v);
        check_expect(CASES[i], &v);
        assert_false(v.simulated);
        /* Prepared collateral: the same verdict. */
        tb_tdx_prepared *p = NULL;
        tb_tdx_verdict pv;
        tb_err e;
        assert_int_equal(tb_tdx_prepare(&l.col, l.now, l.root, &p, &pv, &e), 0);
        tb_tdx_verify_prepared(l.quote.p, l.quote.len, p, l.now, NULL, &pv);
        check_expect(CASES[i], &pv);
        assert_int_equal(pv.result, v.result);
        assert_string_equal(pv.reason, v.reason);
        tb_tdx_prepared_free(p);
        free_case(&l);
    }
}

static void test_outofdate_accepted_by_policy(void **state)
{
    (void)state;
    loaded l;
    tb_tdx_verdict v;
    tb_attest_policy pol;
    load_case("dcaprs-v4-outofdate", &l);
    tb_attest_policy_default(&pol);
    pol.accept |= 1u << TB_ATTEST_TCB_OUT_OF_DATE;
    assert_int_equal(tb_tdx_verify(l.quote.p, l.quote.len, &l.col, l.now, &pol, l.root, &v), 0);
    assert_int_equal(v.result, TB_ATTEST_ACCEPTED);
    assert_string_equal(v.tcb_date, "2023-08-09T00:00:00Z");
    free_case(&l);
}

/* Verifies a modified copy of qvl-v4-uptodate and checks the failing step. */
static void expect_step(loaded *l, const uint8_t *q, size_t n, const tb_tdx_collateral *c,
                        long long now, tb_tdx_step step, const char *reason_part)
{
    tb_tdx_verdict v;
    assert_int_equal(tb_tdx_verify(q, n, c, now, NULL, l->root, &v), -1);
    if (v.step != step || !strstr(v.reason, reason_part))
        fprintf(stderr, "got step %s reason \"%s\"; want %s \"%s\"\n", tb_tdx_step_name(v.step),
                v.reason, tb_tdx_step_name(step), reason_part);
    assert_int_equal(v.result, TB_ATTEST_INVALID);
    assert_int_equal(v.step, step);
    assert_non_null(strstr(v.reason, reason_part));
}

/* Collateral past its end of validity: its own verdict (QvE collateral_expiration_status),
 * not an invalid quote; the policy's allow_expired_collateral verifies it anyway. */
static void expect_expired(loaded *l, long long now, tb_tdx_step step, const char *what)
{
    tb_tdx_verdict v;
    assert_int_equal(tb_tdx_verify(l->quote.p, l->quote.len, &l->col, now, NULL, l->root, &v), -1);
    if (v.result != TB_ATTEST_EXPIRED || v.step != step || !strstr(v.reason, what))
        fprintf(stderr, "got %d step %s reason \"%s\"\n", v.result, tb_tdx_step_name(v.step),
                v.reason);
    assert_int_equal(v.result, TB_ATTEST_EXPIRED);
    assert_int_equal(v.step, step);
    assert_true(v.collateral_expired);
    assert_non_null(strstr(v.reason, "collateral expired at"));
    assert_non_null(strstr(v.reason, what));
    tb_attest_policy pol;
    tb_attest_policy_default(&pol);
    pol.allow_expired_collateral = 1;
    pol.accept = ~0u;
    assert_int_equal(tb_tdx_verify(l->quote.p, l->quote.len, &l->col, now, &pol, l->root, &v), 0);
    assert_true(v.collateral_expired);
}

static void test_flipped_bytes(void **state)
{
    (void)state;
    loaded l;
    load_case("qvl-v4-uptodate", &l);
    tb_tdx_quote *q;
    tb_err e;
    assert_int_equal(tb_tdx_quote_parse(l.quote.p, l.quote.len, &q, &e), 0);
    uint8_t *m = malloc(l.quote.len);
    size_t sig_off = q->signed_len + 4;
    size_t qe_off = (size_t)(q->qe_report_raw - q->raw);
    size_t pck_off = (size_t)((const uint8_t *)q->pck_chain - q->raw);
    struct {
        size_t off;
        tb_tdx_step step;
        const char *reason;
    } flips[] = {
        {48 + 200, TB_TDX_STEP_QUOTE_SIGNATURE, "quote signature does not verify"},     /* body */
        {sig_off + 10, TB_TDX_STEP_QUOTE_SIGNATURE, "quote signature does not verify"}, /* sig */
        {qe_off + 20, TB_TDX_STEP_QE_REPORT, "QE report signature"}, /* QE report (reserved) */
        {qe_off + TB_TDX_SGX_REPORT_LEN + 5, TB_TDX_STEP_QE_REPORT, "QE report signature"},
        {pck_off + 300, TB_TDX_STEP_PCK_CHAIN, "PCK"}, /* inside the leaf's base64 */
        {4, TB_TDX_STEP_HEADER, "TEE type"},
        {12, TB_TDX_STEP_HEADER, "QE vendor"},
    };
    for (size_t i = 0; i < sizeof flips / sizeof flips[0]; i++) {
        memcpy(m, l.quote.p, l.quote.len);
        m[flips[i].off] ^= 0x01;
        expect_step(&l, m, l.quote.len, &l.col, l.now, flips[i].step, flips[i].reason);
    }
    /* MRSIGNER in the QE report: the identity check (step 4) runs before the signature. */
    memcpy(m, l.quote.p, l.quote.len);
    m[qe_off + 128] ^= 1;
    expect_step(&l, m, l.quote.len, &l.col, l.now, TB_TDX_STEP_QE_IDENTITY, "MRSIGNER");
    free(m);
    tb_tdx_quote_free(q);
    free_case(&l);
}

static void test_truncations(void **state)
{
    (void)state;
    loaded l;
    load_case("qvl-v4-uptodate", &l);
    tb_tdx_quote *q;
    tb_err e;
    assert_int_equal(tb_tdx_quote_parse(l.quote.p, l.quote.len, &q, &e), 0);
    size_t end = q->raw_len - q->trailing;
    tb_tdx_quote_free(q);
    for (size_t n = 0; n < end; n += (n < 700 ? 7 : 97)) {
        tb_tdx_verdict v;
        assert_int_equal(tb_tdx_verify(l.quote.p, n, &l.col, l.now, NULL, l.root, &v), -1);
        assert_int_equal(v.step, TB_TDX_STEP_PARSE);
        assert_non_null(strstr(v.reason, "truncated"));
    }
    free_case(&l);
}

static void test_collateral_tampering(void **state)
{
    (void)state;
    loaded l;
    load_case("qvl-v4-uptodate", &l);
    /* One byte of the TCB info (inside a value): signature fails at step 3. */
    char *p = strstr(l.col.tcb_info, "\"tcbEvaluationDataNumber\":17");
    assert_non_null(p);
    p[strlen("\"tcbEvaluationDataNumber\":")] = '8';
    expect_step(&l, l.quote.p, l.quote.len, &l.col, l.now, TB_TDX_STEP_TCB_INFO,
                "TCB info signature does not verify");
    p[strlen("\"tcbEvaluationDataNumber\":")] = '1';
    /* QE identity signature. */
    l.col.qe_identity_sig[3] ^= 1;
    expect_step(&l, l.quote.p, l.quote.len, &l.col, l.now, TB_TDX_STEP_QE_IDENTITY,
                "QE identity signature does not verify");
    l.col.qe_identity_sig[3] ^= 1;
    /* PCK CRL signature byte. */
    l.col.pck_crl[l.col.pck_crl_len - 3] ^= 1;
    expect_step(&l, l.quote.p, l.quote.len, &l.col, l.now, TB_TDX_STEP_PCK_CHAIN, "PCK CRL");
    l.col.pck_crl[l.col.pck_crl_len - 3] ^= 1;
    free_case(&l);
}

static void test_other_fmspc_collateral(void **state)
{
    (void)state;
    loaded a, b;
    load_case("qvl-v4-uptodate", &a);
    load_case("qvl-v5-notcb", &b);
    /* a's quote with b's collateral at b's time: the TCB info is for another FMSPC. */
    expect_step(&a, a.quote.p, a.quote.len, &b.col, b.now, TB_TDX_STEP_TCB_INFO, "FMSPC");
    free_case(&a);
    free_case(&b);
}

static void test_time_window(void **state)
{
    (void)state;
    loaded l;
    load_case("qvl-v4-uptodate", &l);
    /* After nextUpdate: the PCK CRL (2025-07-19T10:00:35Z) is the first to expire. */
    expect_expired(&l, 1752919235 + 3600, TB_TDX_STEP_PCK_CHAIN, "PCK CRL");
    /* Before the TCB info's issueDate (2025-06-19T10:16:03Z), after the CRLs' start. */
    expect_step(&l, l.quote.p, l.quote.len, &l.col, 1750328163 - 60, TB_TDX_STEP_TCB_INFO,
                "TCB info not yet valid");
    free_case(&l);
    /* dcaprs: the QE identity's nextUpdate (2025-03-15T03:39:00Z) comes before the
     * PCK CRL's (03:40:28) and the TCB info's (03:50:41). */
    load_case("dcaprs-v4-outofdate", &l);
    expect_expired(&l, 1742009940 + 30, TB_TDX_STEP_QE_IDENTITY, "QE identity");
    /* Far in the future: certificates and everything else have expired; the earliest end
     * is reported. */
    expect_expired(&l, 4102444800LL, TB_TDX_STEP_QE_IDENTITY, "QE identity");
    free_case(&l);
}

static void test_sim_root_refuses_intel_quote(void **state)
{
    (void)state;
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    loaded l;
    load_case("qvl-v4-uptodate", &l);
    tb_attest_root *simroot;
    tb_tdx_collateral sc;
    tb_err e;
    assert_int_equal(tb_tdx_sim_collateral(dir, l.now, 0, &sc, &simroot, &e), 0);
    tb_tdx_verdict v;
    /* Intel quote + Intel collateral + sim root: the CRL is not signed by the root. */
    assert_int_equal(tb_tdx_verify(l.quote.p, l.quote.len, &l.col, l.now, NULL, simroot, &v), -1);
    assert_int_equal(v.step, TB_TDX_STEP_PCK_CHAIN);
    assert_true(v.simulated);
    tb_tdx_collateral_clear(&sc);
    tb_attest_root_free(simroot);
    free_case(&l);
    rm_rf(dir);
}

static void test_sim_quotes(void **state)
{
    (void)state;
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    char sim[300];
    snprintf(sim, sizeof sim, "%s/sim", dir);
    uint8_t rd[64], *q, *qd;
    size_t n, nd;
    tb_err e;
    for (int i = 0; i < 64; i++)
        rd[i] = (uint8_t)(i * 7);
    assert_int_equal(tb_tdx_sim_get_quote(sim, rd, 0, &q, &n, &e), 0);
    assert_int_equal(tb_tdx_sim_get_quote(sim, rd, 1, &qd, &nd, &e), 0);
    long long now = (long long)time(NULL);
    tb_tdx_collateral c, rc;
    tb_attest_root *simroot, *intel;
    assert_int_equal(tb_tdx_sim_collateral(sim, now, 0, &c, &simroot, &e), 0);
    assert_int_equal(tb_tdx_sim_collateral(sim, now, 1, &rc, NULL, &e), 0);
    assert_int_equal(tb_attest_root_intel(&intel, &e), 0);
    tb_tdx_verdict v;
    /* Verifies with the sim root: UpToDate, accepted, labelled simulated. */
    assert_int_equal(tb_tdx_verify(q, n, &c, now, NULL, simroot, &v), 0);
    assert_int_equal(v.result, TB_ATTEST_ACCEPTED);
    assert_int_equal(v.status, TB_ATTEST_TCB_UP_TO_DATE);
    assert_true(v.simulated);
    assert_string_equal(v.fmspc, "feeb00000000");
    tb_tdx_quote *pq;
    assert_int_equal(tb_tdx_quote_parse(q, n, &pq, &e), 0);
    assert_memory_equal(tb_tdx_quote_report_data(pq), rd, 64);
    tb_tdx_quote_free(pq);
    /* Never with the Intel root. */
    assert_int_equal(tb_tdx_verify(q, n, &c, now, NULL, intel, &v), -1);
    assert_int_equal(v.result, TB_ATTEST_INVALID);
    assert_int_equal(v.step, TB_TDX_STEP_PCK_CHAIN);
    /* Revoked PCK certificate (the sim PKI's PCK CRL lists it). */
    assert_int_equal(tb_tdx_verify(q, n, &rc, now, NULL, simroot, &v), -1);
    assert_int_equal(v.step, TB_TDX_STEP_PCK_CHAIN);
    assert_non_null(strstr(v.reason, "revoked"));
    /* DEBUG TD: valid, refused unless allowed. */
    assert_int_equal(tb_tdx_verify(qd, nd, &c, now, NULL, simroot, &v), -1);
    assert_int_equal(v.result, TB_ATTEST_REFUSED);
    assert_int_equal(v.step, TB_TDX_STEP_POLICY);
    assert_non_null(strstr(v.reason, "DEBUG"));
    tb_attest_policy pol;
    tb_attest_policy_default(&pol);
    pol.allow_debug = 1;
    assert_int_equal(tb_tdx_verify(qd, nd, &c, now, &pol, simroot, &v), 0);
    /* Policy on REPORTDATA and MRTD. */
    pol.report_data_len = 4;
    memcpy(pol.report_data, rd, 4);
    assert_int_equal(tb_tdx_verify(q, n, &c, now, &pol, simroot, &v), 0);
    pol.report_data[0] ^= 1;
    assert_int_equal(tb_tdx_verify(q, n, &c, now, &pol, simroot, &v), -1);
    assert_non_null(strstr(v.reason, "REPORTDATA"));
    pol.report_data_len = 0;
    pol.want_mrtd = 1;
    assert_int_equal(tb_tdx_verify(q, n, &c, now, &pol, simroot, &v), -1);
    assert_non_null(strstr(v.reason, "MRTD"));
    /* A second process-like call reuses the same PKI: the same root. */
    tb_tdx_collateral c2;
    tb_attest_root *root2;
    assert_int_equal(tb_tdx_sim_collateral(sim, now + 10, 0, &c2, &root2, &e), 0);
    assert_int_equal(tb_tdx_verify(q, n, &c2, now + 10, NULL, root2, &v), 0);
    /* Collateral expired 30 days later. */
    assert_int_equal(tb_tdx_verify(q, n, &c, now + 31LL * 86400, NULL, simroot, &v), -1);
    assert_int_equal(v.step, TB_TDX_STEP_PCK_CHAIN);
    tb_tdx_collateral_clear(&c2);
    tb_attest_root_free(root2);
    tb_tdx_collateral_clear(&c);
    tb_tdx_collateral_clear(&rc);
    tb_attest_root_free(simroot);
    tb_attest_root_free(intel);
    free(q);
    free(qd);
    rm_rf(dir);
}

typedef struct shared {
    const loaded *l;
    const tb_tdx_prepared *p;
    int accepted;
} shared;

static void *verify_many(void *arg)
{
    shared *sh = arg;
    for (int i = 0; i < 20; i++) {
        tb_tdx_verdict v;
        if (tb_tdx_verify_prepared(sh->l->quote.p, sh->l->quote.len, sh->p, sh->l->now, NULL, &v) ==
            0)
            sh->accepted++;
    }
    return NULL;
}

/* One prepared collateral used by four threads at once: every verdict is the same. */
static void test_prepared_shared_by_threads(void **state)
{
    (void)state;
    loaded l;
    load_case("qvl-v4-uptodate", &l);
    tb_tdx_prepared *p;
    tb_tdx_verdict v;
    tb_err e;
    assert_int_equal(tb_tdx_prepare(&l.col, l.now, l.root, &p, &v, &e), 0);
    pthread_t th[4];
    shared sh[4];
    for (int i = 0; i < 4; i++) {
        sh[i] = (shared){&l, p, 0};
        assert_int_equal(pthread_create(&th[i], NULL, verify_many, &sh[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(sh[i].accepted, 20);
    }
    tb_tdx_prepared_free(p);
    free_case(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases_expected_verdicts),
        cmocka_unit_test(test_outofdate_accepted_by_policy),
        cmocka_unit_test(test_flipped_bytes),
        cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_collateral_tampering),
        cmocka_unit_test(test_other_fmspc_collateral),
        cmocka_unit_test(test_time_window),
        cmocka_unit_test(test_sim_root_refuses_intel_quote),
        cmocka_unit_test(test_sim_quotes),
        cmocka_unit_test(test_prepared_shared_by_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
