/* Unit tests for src/notary/tee over the attest module's SIMULATED provider:
 * a fresh quote carries the binding REPORTDATA, the verifier (one call to
 * tb_tdx_verify_quote with "sim:DIR") accepts it, refuses it for other
 * report data and refuses another PKI's quote, a non-simulated verifier
 * refuses a simulated quote even with the sim root given as --root, and
 * configuration errors are named. The same for SEV-SNP (--tee sim-snp, with the
 * committed sim PKI in tests/data/snp-sim): an SNP report with the binding goes
 * through the evidence JSON and back unchanged and verifies with the SNP verifier. */
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
#include <sys/stat.h>
#include <unistd.h>

#include "attest/tdx/tdx.h"
#include "attest/snp/snp.h"
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
    assert_int_equal(tb_notary_tee_open(TB_TEE_SIM, sim, &src, &err), 0);
    assert_string_equal(tb_tee_name(src.tee), "sim");
    assert_int_equal(tb_tee_simulated(src.tee), 1);
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
    assert_int_equal(tb_notary_tee_open(TB_TEE_NONE, NULL, &bad, &err), -1); /* "sgx": test_tee */

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
    assert_int_equal(tb_notary_tee_open(TB_TEE_SIM, sim, &src, &err), 0);
    tb_notary_key k;
    assert_int_equal(tb_notary_key_generate(&k, &err), 0);
    tb_notary_evidence ev;
    assert_int_equal(tb_notary_evidence_make(&src, NULL, 0, k.spki_sha256, &ev, &err), 0);
    /* a verifier for real quotes, given the simulated collateral and root as if
     * they were real, must still not accept the simulated quote as real */
    tb_tdx_collateral c;
    char *json = NULL, root[256];
    assert_int_equal(tb_tdx_sim_collateral(sim, (int64_t)time(NULL), 0, &c, NULL, &err), 0);
    assert_int_equal(tb_tdx_collateral_to_json(&c, &json, &err), 0);
    snprintf(col, sizeof col, "%s/collateral.json", dir);
    assert_int_equal(tb_file_write_atomic(col, json, strlen(json), &err), 0);
    free(json);
    tb_tdx_collateral_clear(&c);
    assert_int_equal(tb_tdx_sim_root_path(sim, root, sizeof root, &err), 0);
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

/* The committed sim PKI (tests/data/snp-sim), copied: the verifier writes its certificates
   into the sim folder, never into the source tree. */
static char SNP_SIM[64];

static void test_sim_snp_evidence_roundtrip(void **state)
{
    (void)state;
    tb_err err;
    char cmd[512];
    snprintf(SNP_SIM, sizeof SNP_SIM, "%s/snpsim", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp -r '%s/tests/data/snp-sim/.' '%s/'", SNP_SIM,
             TEEBENCH_SOURCE_DIR, SNP_SIM);
    assert_int_equal(system(cmd), 0);
    tb_notary_quote_source src;
    assert_int_equal(tb_notary_tee_open(TB_TEE_SIM_SNP, SNP_SIM, &src, &err), 0);
    assert_string_equal(tb_tee_name(src.tee), "sim-snp");
    assert_int_equal(tb_tee_simulated(src.tee), 1);
    tb_notary_key k;
    assert_int_equal(tb_notary_key_generate(&k, &err), 0);
    uint8_t nonce[24];
    memset(nonce, 9, sizeof nonce);
    tb_notary_evidence ev;
    assert_int_equal(tb_notary_evidence_make(&src, nonce, sizeof nonce, k.spki_sha256, &ev, &err),
                     0);
    /* the "quote" is an SNP report whose REPORT_DATA is the binding */
    assert_int_equal(ev.quote.len, TB_SNP_REPORT_LEN);
    tb_snp_report r;
    assert_int_equal(tb_snp_parse(ev.quote.p, ev.quote.len, &r, &err), 0);
    assert_memory_equal(r.report_data, ev.report_data, 64);
    assert_int_equal(tb_snp_is_simulated(&r), 1);

    /* evidence JSON round trip */
    tb_buf j = {0};
    assert_int_equal(tb_notary_evidence_to_json(&ev, &j, &err), 0);
    assert_non_null(strstr((char *)j.p, "\"tee\":\"sim-snp\",\"simulated\":true"));
    tb_notary_evidence back;
    assert_int_equal(tb_notary_evidence_parse((char *)j.p, j.len, &back, &err), 0);
    assert_string_equal(tb_tee_name(back.tee), "sim-snp");
    assert_int_equal(back.simulated, 1);
    assert_int_equal(back.nonce_len, sizeof nonce);
    assert_memory_equal(back.report_data, ev.report_data, 64);
    assert_int_equal(back.quote.len, ev.quote.len);
    assert_memory_equal(back.quote.p, ev.quote.p, ev.quote.len);

    /* the SNP verifier with the simulated ARK/ASK/VCEK accepts it, for this binding only */
    tb_notary_verifier_opts vo = {.sim_dir = SNP_SIM, .simulated = 1, .tee = TB_TEE_SIM_SNP};
    tb_notary_quote_verifier qv;
    assert_int_equal(tb_notary_verifier_open(&vo, &qv, &err), 0);
    assert_int_equal(
        tb_notary_evidence_check(&back, k.spki.p, k.spki.len, nonce, sizeof nonce, &qv, &err), 0);
    uint8_t other_rd[64];
    memset(other_rd, 1, sizeof other_rd);
    assert_int_equal(qv.verify(qv.ctx, back.quote.p, back.quote.len, other_rd, &err), -1);
    assert_non_null(strstr(err.msg, "REPORT_DATA does not bind"));
    /* one changed byte of the signed part: the signature step fails */
    back.quote.p[0x1A0] ^= 1; /* inside MEASUREMENT */
    assert_int_equal(qv.verify(qv.ctx, back.quote.p, back.quote.len, back.report_data, &err), -1);
    assert_non_null(strstr(err.msg, "INVALID"));
    tb_notary_verifier_close(&qv);

    /* a verifier for real SNP reports refuses the SIMULATED one, even given the sim
     * certificates and ARK as if they were AMD's */
    char certs[128], ark[160];
    snprintf(certs, sizeof certs, "%s/snpcerts", dir);
    snprintf(ark, sizeof ark, "%s/ark.pem", certs);
    assert_int_equal(mkdir(certs, 0700), 0);
    assert_int_equal(tb_snp_sim_certs(SNP_SIM, certs, (int64_t)time(NULL), 0, &err), 0);
    tb_notary_verifier_opts real = {.tee = TB_TEE_SNP, .certs = certs, .root = ark};
    assert_int_equal(tb_notary_verifier_open(&real, &qv, &err), 0);
    assert_int_equal(
        tb_notary_evidence_check(&ev, k.spki.p, k.spki.len, nonce, sizeof nonce, &qv, &err), -1);
    assert_non_null(strstr(err.msg, "SIMULATED SNP report where a real one was expected"));
    tb_notary_verifier_close(&qv);

    /* configuration errors */
    tb_notary_verifier_opts none = {.tee = TB_TEE_SNP};
    assert_int_equal(tb_notary_verifier_open(&none, &qv, &err), -1);
    assert_non_null(strstr(err.msg, "--certs DIR or --kds URL"));
    tb_notary_verifier_opts tdxopt = {.tee = TB_TEE_SIM_SNP, .simulated = 1, .pccs = "http://x"};
    assert_int_equal(tb_notary_verifier_open(&tdxopt, &qv, &err), -1);
    assert_non_null(strstr(err.msg, "for TDX quotes"));
    tb_notary_verifier_opts snpopt = {.tee = TB_TEE_TDX, .certs = certs};
    assert_int_equal(tb_notary_verifier_open(&snpopt, &qv, &err), -1);
    assert_non_null(strstr(err.msg, "for SEV-SNP evidence"));

    /* the evidence's simulated flag must match its kind */
    tb_buf bad = {0};
    assert_int_equal(tb_buf_puts(&bad, "{\"format\":\"teebench-notary-evidence\",\"version\":1,"
                                       "\"tee\":\"sim-snp\",\"simulated\":false,\"nonce\":\"\","
                                       "\"reportData\":\""),
                     0);
    for (int i = 0; i < 128; i++)
        assert_int_equal(tb_buf_puts(&bad, "0"), 0);
    assert_int_equal(tb_buf_puts(&bad, "\",\"quote\":\"AAAA\"}"), 0);
    tb_notary_evidence x;
    assert_int_equal(tb_notary_evidence_parse((char *)bad.p, bad.len, &x, &err), -1);
    assert_non_null(strstr(err.msg, "cannot be simulated=false"));
    tb_buf_clear(&bad);

    tb_buf_clear(&j);
    tb_notary_evidence_clear(&back);
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
        cmocka_unit_test(test_sim_snp_evidence_roundtrip),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rm_rf(dir);
    return rc;
}
