/* Unit tests for src/notary/tee over the attest module's SIMULATED provider:
 * a fresh quote carries the binding REPORTDATA, the verifier (one call to
 * tb_attest_verify_quote with "sim:DIR") accepts it, refuses it for other
 * report data and refuses another PKI's quote, a non-simulated verifier
 * refuses a simulated quote even with the sim root given as --root, and
 * configuration errors are named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attest/attest.h"
#include "base/file.h"
#include "notary/internal.h"
#include "notary/evidence.h"
#include "notary/key.h"
#include "notary/tee.h"

static char dir[] = "/tmp/tb-ntee-XXXXXX";

static void rm_rf(const char *d)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", d);
}

static void test_sim_quote_and_verify(void **state)
{
    (void)state;
    tb_err err;
    char sim[128], other[128];
    snprintf(sim, sizeof sim, "%s/sim", dir);
    snprintf(other, sizeof other, "%s/other", dir);
    tb_notary_quote_source src;
    assert_int_equal(tb_notary_tee_open("sim", sim, &src, &err), 0);
    assert_string_equal(src.kind, "sim");
    assert_int_equal(src.simulated, 1);
    tb_notary_key k;
    assert_int_equal(tb_notary_key_generate(&k, &err), 0);
    uint8_t nonce[32];
    memset(nonce, 7, sizeof nonce);
    tb_notary_evidence ev;
    assert_int_equal(tb_notary_evidence_make(&src, nonce, 32, k.spki_sha256, &ev, &err), 0);
    assert_true(ev.quote.len > 1000);

    tb_notary_verifier_opts vo = {.sim_dir = sim, .simulated = 1};
    tb_notary_quote_verifier qv;
    assert_int_equal(tb_notary_verifier_open(&vo, &qv, &err), 0);
    for (int round = 0; round < 2; round++)
        assert_int_equal(tb_notary_evidence_check(&ev, k.spki.p, k.spki.len, nonce, 32, &qv, &err),
                         0);
    /* the verifier checks the binding itself: a quote for other report data fails */
    uint8_t other_rd[64];
    memset(other_rd, 1, sizeof other_rd);
    assert_int_equal(qv.verify(qv.ctx, ev.quote.p, ev.quote.len, other_rd, &err), -1);
    assert_non_null(strstr(err.msg, "REPORTDATA does not bind"));
    assert_int_equal(qv.verify(qv.ctx, ev.quote.p, ev.quote.len, ev.report_data, &err), 0);
    tb_notary_verifier_close(&qv);

    /* the verifier of another simulated PKI refuses this quote */
    tb_notary_verifier_opts vo2 = {.sim_dir = other, .simulated = 1};
    assert_int_equal(tb_notary_verifier_open(&vo2, &qv, &err), 0);
    assert_int_equal(tb_notary_evidence_check(&ev, k.spki.p, k.spki.len, nonce, 32, &qv, &err), -1);
    assert_non_null(strstr(err.msg, "quote verification failed"));
    tb_notary_verifier_close(&qv);

    /* configuration errors */
    tb_notary_verifier_opts real = {.simulated = 0};
    assert_int_equal(tb_notary_verifier_open(&real, &qv, &err), -1);
    assert_non_null(strstr(err.msg, "--collateral"));
    tb_notary_verifier_opts mixed = {.simulated = 1, .collateral = "x.json"};
    assert_int_equal(tb_notary_verifier_open(&mixed, &qv, &err), -1);
    tb_notary_quote_source bad;
    assert_int_equal(tb_notary_tee_open("sgx", NULL, &bad, &err), -1);

    tb_notary_evidence_clear(&ev);
    tb_notary_key_clear(&k);
    tb_notary_tee_close(&src);
}

static void test_simulated_quote_is_not_real(void **state)
{
    (void)state;
    tb_err err;
    char sim[128], col[256];
    snprintf(sim, sizeof sim, "%s/sim", dir);
    tb_notary_quote_source src;
    assert_int_equal(tb_notary_tee_open("sim", sim, &src, &err), 0);
    tb_notary_key k;
    assert_int_equal(tb_notary_key_generate(&k, &err), 0);
    tb_notary_evidence ev;
    assert_int_equal(tb_notary_evidence_make(&src, NULL, 0, k.spki_sha256, &ev, &err), 0);
    /* a verifier for real quotes, given the simulated collateral and root as if
     * they were real, must still not accept the simulated quote as real */
    tb_attest_collateral c;
    char *json = NULL, root[256];
    assert_int_equal(tb_attest_sim_collateral(sim, (int64_t)time(NULL), 0, &c, NULL, &err), 0);
    assert_int_equal(tb_attest_collateral_to_json(&c, &json, &err), 0);
    snprintf(col, sizeof col, "%s/collateral.json", dir);
    assert_int_equal(tb_file_write_atomic(col, json, strlen(json), &err), 0);
    free(json);
    tb_attest_collateral_clear(&c);
    assert_int_equal(tb_attest_sim_root_path(sim, root, sizeof root, &err), 0);
    tb_notary_verifier_opts vo = {.collateral = col, .root = root, .simulated = 0};
    tb_notary_quote_verifier qv;
    assert_int_equal(tb_notary_verifier_open(&vo, &qv, &err), 0);
    assert_int_equal(tb_notary_evidence_check(&ev, k.spki.p, k.spki.len, NULL, 0, &qv, &err), -1);
    assert_non_null(strstr(err.msg, "SIMULATED quote where a real one was expected"));
    tb_notary_verifier_close(&qv);
    tb_notary_evidence_clear(&ev);
    tb_notary_key_clear(&k);
    tb_notary_tee_close(&src);
}

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sim_quote_and_verify),
        cmocka_unit_test(test_simulated_quote_is_not_real),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rm_rf(dir);
    return rc;
}
