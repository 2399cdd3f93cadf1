/* Unit tests for src/notary/evidence: the REPORTDATA binding, the evidence
 * message, and tb_notary_evidence_check refusing another key, another nonce and a
 * quote that carries other report data. The quote source and verifier here
 * are test doubles: the "quote" is "Q:" followed by the 64 report-data bytes,
 * which is all the binding logic needs (real quotes: test_notary_tee.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <openssl/sha.h>

#include "notary/internal.h"
#include "notary/evidence.h"
#include "notary/key.h"

static int fake_quote(void *ctx, const uint8_t rd[64], uint8_t **q, size_t *len, tb_err *err)
{
    (void)ctx;
    (void)err;
    *q = malloc(66);
    memcpy(*q, "Q:", 2);
    memcpy(*q + 2, rd, 64);
    *len = 66;
    return 0;
}

static int fake_verify(void *ctx, const uint8_t *q, size_t len, const uint8_t rd[64], tb_err *err)
{
    (void)ctx;
    if (len != 66 || memcmp(q, "Q:", 2))
        return tb_errf(err, "not a quote");
    if (memcmp(rd, q + 2, 64))
        return tb_errf(err, "REPORTDATA differs: a quote for another key or nonce");
    return 0;
}

static const tb_notary_quote_source SRC = {TB_TEE_SIM, NULL, fake_quote};
static const tb_notary_quote_verifier VER = {NULL, fake_verify};

static void test_report_data(void **state)
{
    (void)state;
    uint8_t kh[32], out[64], want[64], buf[3 + 32] = {1, 2, 3};
    memset(kh, 0xab, 32);
    memcpy(buf + 3, kh, 32);
    SHA512(buf, sizeof buf, want);
    tb_notary_evidence_report_data(buf, 3, kh, out);
    assert_memory_equal(out, want, 64);
    /* an empty nonce: SHA-512 of the key hash alone */
    SHA512(kh, 32, want);
    tb_notary_evidence_report_data(NULL, 0, kh, out);
    assert_memory_equal(out, want, 64);
}

static void test_make_json_check(void **state)
{
    (void)state;
    tb_err err;
    tb_notary_key k, other;
    assert_int_equal(tb_notary_key_generate(&k, &err), 0);
    assert_int_equal(tb_notary_key_generate(&other, &err), 0);
    uint8_t nonce[32];
    memset(nonce, 0x5a, sizeof nonce);
    tb_notary_evidence ev, back;
    assert_int_equal(tb_notary_evidence_make(&SRC, nonce, 32, k.spki_sha256, &ev, &err), 0);
    tb_buf j = {0};
    assert_int_equal(tb_notary_evidence_to_json(&ev, &j, &err), 0);
    assert_non_null(strstr((char *)j.p, "\"simulated\":true"));
    assert_int_equal(tb_notary_evidence_parse((char *)j.p, j.len, &back, &err), 0);
    assert_string_equal(tb_tee_name(back.tee), "sim");
    assert_int_equal(back.nonce_len, 32);
    assert_memory_equal(back.report_data, ev.report_data, 64);
    assert_int_equal(back.quote.len, ev.quote.len);
    /* binds this key and nonce, with and without quote verification */
    assert_int_equal(tb_notary_evidence_check(&back, k.spki.p, k.spki.len, nonce, 32, NULL, &err),
                     0);
    assert_int_equal(tb_notary_evidence_check(&back, k.spki.p, k.spki.len, nonce, 32, &VER, &err),
                     0);
    /* another key */
    assert_int_equal(
        tb_notary_evidence_check(&back, other.spki.p, other.spki.len, nonce, 32, &VER, &err), -1);
    /* another nonce */
    uint8_t n2[32];
    memset(n2, 0x5b, sizeof n2);
    assert_int_equal(tb_notary_evidence_check(&back, k.spki.p, k.spki.len, n2, 32, &VER, &err), -1);
    assert_non_null(strstr(err.msg, "nonce"));
    /* a quote for another key, with reportData rewritten to look right */
    tb_notary_evidence forged;
    assert_int_equal(tb_notary_evidence_make(&SRC, nonce, 32, other.spki_sha256, &forged, &err), 0);
    memcpy(forged.report_data, back.report_data, 64);
    assert_int_equal(tb_notary_evidence_check(&forged, k.spki.p, k.spki.len, nonce, 32, NULL, &err),
                     0);
    assert_int_equal(tb_notary_evidence_check(&forged, k.spki.p, k.spki.len, nonce, 32, &VER, &err),
                     -1);
    assert_non_null(strstr(err.msg, "another key or nonce"));
    /* a quote the verifier refuses */
    back.quote.p[0] = 'X';
    assert_int_equal(tb_notary_evidence_check(&back, k.spki.p, k.spki.len, nonce, 32, &VER, &err),
                     -1);
    assert_non_null(strstr(err.msg, "not a quote"));
    tb_notary_evidence_clear(&forged);
    tb_notary_evidence_clear(&back);
    tb_notary_evidence_clear(&ev);
    tb_buf_clear(&j);
    tb_notary_key_clear(&k);
    tb_notary_key_clear(&other);
}

static void test_parse_rejects(void **state)
{
    (void)state;
    tb_err err;
    tb_notary_evidence ev;
    const char *rd = "00000000000000000000000000000000000000000000000000000000000000000000000000"
                     "000000000000000000000000000000000000000000000000000000";
    char good[512], bad[512];
    snprintf(good, sizeof good,
             "{\"format\":\"teebench-notary-evidence\",\"version\":1,\"tee\":\"tdx\","
             "\"simulated\":false,\"nonce\":\"00\",\"reportData\":\"%s\",\"quote\":\"AAAA\"}",
             rd);
    assert_int_equal(tb_notary_evidence_parse(good, strlen(good), &ev, &err), 0);
    tb_notary_evidence_clear(&ev);
    const char *edits[][2] = {
        {"\"version\":1", "\"version\":2"},         {"\"tee\":\"tdx\"", "\"tee\":\"sgx\""},
        {"\"simulated\":false", "\"simulated\":0"}, {"\"nonce\":\"00\"", "\"nonce\":\"0\""},
        {"\"quote\":\"AAAA\"", "\"quote\":\"\""},   {"teebench-notary-evidence", "other"}};
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        char *at = strstr(good, edits[i][0]);
        assert_non_null(at);
        snprintf(bad, sizeof bad, "%.*s%s%s", (int)(at - good), good, edits[i][1],
                 at + strlen(edits[i][0]));
        assert_int_equal(tb_notary_evidence_parse(bad, strlen(bad), &ev, &err), -1);
    }
    assert_int_equal(tb_notary_evidence_parse("[]", 2, &ev, &err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_data),
        cmocka_unit_test(test_make_json_check),
        cmocka_unit_test(test_parse_rejects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
