/* Unit tests for attest/tdx/quote: v4 and v5 parsing, trailing padding, PEM chain with a
 * trailing NUL, hex/base64 text input, truncation at every length, bad fields. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <openssl/evp.h>

#include "attest_test_util.h"
#include "base/hex.h"

static tb_buf load(const char *name)
{
    char p[1024];
    case_path(name, "quote.bin", p, sizeof p);
    return read_all(p);
}

static void test_v4_fields(void **state)
{
    (void)state;
    tb_buf b = load("dcaprs-v4-outofdate");
    tb_tdx_quote *q;
    tb_err e;
    assert_int_equal(tb_tdx_quote_parse(b.p, b.len, &q, &e), 0);
    assert_int_equal(q->version, 4);
    assert_int_equal(q->body_type, 2);
    assert_int_equal(q->tee_type, 0x81);
    assert_int_equal(q->att_key_type, 2);
    assert_int_equal(q->cert_type, 6);
    assert_int_equal(q->pck_cert_type, 5);
    assert_int_equal(q->signed_len, 48 + 584);
    assert_true(q->trailing > 0); /* 8000-byte file: zero padding accepted */
    assert_int_equal(q->raw_len, 8000);
    assert_int_equal(q->qe_report.isvprodid, 2);
    assert_memory_equal(q->pck_chain, "-----BEGIN CERTIFICATE-----", 27);
    assert_int_equal(q->pck_chain[q->pck_chain_len - 1], '\n'); /* NUL stripped */
    assert_ptr_equal(tb_tdx_quote_report_data(q), q->td.reportdata);
    assert_int_equal(tb_tdx_quote_is_debug(q), 0);
    assert_int_equal(tb_tdx_quote_is_simulated(q), 0); /* a real quote */
    char fmspc[13];
    const char *ca;
    assert_int_equal(tb_tdx_quote_fmspc_ca(q, fmspc, &ca, &e), 0);
    assert_string_equal(fmspc, "00806f050000");
    char subj[4][256];
    assert_int_equal(tb_tdx_quote_pck_subjects(q, subj, 4, &e), 3);
    assert_non_null(strstr(subj[0], "Intel SGX PCK Certificate"));
    assert_non_null(strstr(subj[2], "Intel SGX Root CA"));
    tb_tdx_quote_free(q);
    tb_buf_clear(&b);
}

static void test_v5_body_type_3(void **state)
{
    (void)state;
    tb_buf b = load("qvl-v5-notcb");
    tb_tdx_quote *q;
    tb_err e;
    assert_int_equal(tb_tdx_quote_parse(b.p, b.len, &q, &e), 0);
    assert_int_equal(q->version, 5);
    assert_int_equal(q->body_type, 3);
    assert_int_equal(q->body_len, 648);
    assert_int_equal(q->signed_len, 48 + 6 + 648);
    assert_int_equal(q->td.tee_tcb_svn[0], 7);
    assert_int_equal(q->td.tee_tcb_svn[1], 1);
    assert_int_equal(q->trailing, 0);
    tb_tdx_quote_free(q);
    tb_buf_clear(&b);
}

static void test_pem_chain_with_and_without_nul(void **state)
{
    (void)state;
    /* qvl-v5-notcb's PEM chain ends with a NUL inside its declared size; gotdx-v4-notcb's
     * does not. Both parse, and the chain text excludes the NUL. */
    const char *names[] = {"qvl-v5-notcb", "gotdx-v4-notcb"};
    int had_nul[2];
    for (int i = 0; i < 2; i++) {
        tb_buf b = load(names[i]);
        tb_tdx_quote *q;
        tb_err e;
        assert_int_equal(tb_tdx_quote_parse(b.p, b.len, &q, &e), 0);
        const char *end = q->pck_chain + q->pck_chain_len;
        had_nul[i] = end < (const char *)q->raw + q->raw_len && *end == '\0';
        assert_memory_equal(end - 26, "-----END CERTIFICATE-----\n", 26);
        char subj[4][256];
        assert_int_equal(tb_tdx_quote_pck_subjects(q, subj, 4, &e), 3);
        tb_tdx_quote_free(q);
        tb_buf_clear(&b);
    }
    assert_true(had_nul[0]);
    assert_false(had_nul[1]);
}

static void test_truncation_every_length(void **state)
{
    (void)state;
    tb_buf b = load("qvl-v4-uptodate");
    tb_tdx_quote *q;
    tb_err e;
    assert_int_equal(tb_tdx_quote_parse(b.p, b.len, &q, &e), 0);
    size_t end = b.len - q->trailing;
    tb_tdx_quote_free(q);
    for (size_t n = 0; n < end; n++) {
        assert_int_equal(tb_tdx_quote_parse(b.p, n, &q, &e), -1);
        assert_null(q);
        assert_non_null(strstr(e.msg, "truncated"));
    }
    assert_int_equal(tb_tdx_quote_parse(b.p, end, &q, &e), 0);
    tb_tdx_quote_free(q);
    tb_buf_clear(&b);
}

static void test_bad_fields(void **state)
{
    (void)state;
    tb_buf b = load("qvl-v4-uptodate");
    tb_tdx_quote *q;
    tb_err e;
    b.p[0] = 3; /* version */
    assert_int_equal(tb_tdx_quote_parse(b.p, b.len, &q, &e), -1);
    assert_non_null(strstr(e.msg, "version 3"));
    b.p[0] = 4;
    size_t cert_off = 48 + 584 + 4 + 128;
    b.p[cert_off] = 5; /* outer certification data type */
    assert_int_equal(tb_tdx_quote_parse(b.p, b.len, &q, &e), -1);
    assert_non_null(strstr(e.msg, "want 6"));
    b.p[cert_off] = 6;
    b.p[48 + 584 + 3] = 0x7f; /* absurd signature data length */
    assert_int_equal(tb_tdx_quote_parse(b.p, b.len, &q, &e), -1);
    tb_buf_clear(&b);
    /* v5 with an unknown body type. */
    tb_buf v5 = load("qvl-v5-notcb");
    v5.p[48] = 9;
    assert_int_equal(tb_tdx_quote_parse(v5.p, v5.len, &q, &e), -1);
    assert_non_null(strstr(e.msg, "body type 9"));
    tb_buf_clear(&v5);
}

static void test_text_input(void **state)
{
    (void)state;
    tb_buf b = load("qvl-v4-uptodate");
    char *hex = malloc(2 * b.len + 64);
    tb_hex_encode(b.p, b.len, hex);
    /* Hex with line breaks. */
    tb_buf t = {0};
    for (size_t i = 0; i < strlen(hex); i += 60) {
        tb_buf_append(&t, hex + i, strlen(hex + i) < 60 ? strlen(hex + i) : 60);
        tb_buf_append(&t, "\n", 1);
    }
    uint8_t *out;
    size_t n;
    tb_err e;
    assert_int_equal(tb_attest_evidence_decode_text(t.p, t.len, &out, &n, &e), 1);
    assert_int_equal(n, b.len);
    assert_memory_equal(out, b.p, n);
    free(out);
    /* Base64 (via OpenSSL's encoder). */
    unsigned char *b64 = malloc(b.len * 2 + 8);
    int bl = EVP_EncodeBlock(b64, b.p, (int)b.len);
    assert_int_equal(tb_attest_evidence_decode_text(b64, (size_t)bl, &out, &n, &e), 1);
    assert_int_equal(n, b.len);
    assert_memory_equal(out, b.p, n);
    free(out);
    /* Binary input is not text. */
    assert_int_equal(tb_attest_evidence_decode_text(b.p, b.len, &out, &n, &e), 0);
    /* Files: binary, hex and base64 load the same quote. */
    char dir[256], path[512];
    make_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/q.b64", dir);
    assert_int_equal(tb_file_write_atomic(path, b64, (size_t)bl, &e), 0);
    tb_tdx_quote *q;
    assert_int_equal(tb_tdx_quote_load(path, &q, &e), 0);
    assert_int_equal(q->raw_len, b.len);
    tb_tdx_quote_free(q);
    /* tb_attest_evidence_file_read: the decoded bytes; fails only when the file cannot be read. */
    uint8_t *rb;
    size_t rn;
    assert_int_equal(tb_attest_evidence_file_read(path, &rb, &rn, &e), 0);
    assert_int_equal(rn, b.len);
    assert_memory_equal(rb, b.p, rn);
    free(rb);
    snprintf(path, sizeof path, "%s/junk", dir);
    assert_int_equal(tb_file_write_atomic(path, "\x01\x02junk", 6, &e), 0);
    assert_int_equal(tb_attest_evidence_file_read(path, &rb, &rn, &e), 0); /* readable, not a quote */
    assert_int_equal(rn, 6);
    free(rb);
    /* Every message names the path exactly once. */
    assert_int_equal(tb_tdx_quote_load(path, &q, &e), -1);
    assert_non_null(strstr(e.msg, path));
    assert_null(strstr(strstr(e.msg, path) + strlen(path), path));
    assert_non_null(strstr(e.msg, "truncated"));
    snprintf(path, sizeof path, "%s/nope", dir);
    assert_int_equal(tb_attest_evidence_file_read(path, &rb, &rn, &e), -1);
    assert_int_equal(tb_tdx_quote_load(path, &q, &e), -1);
    assert_non_null(strstr(e.msg, path));
    assert_null(strstr(strstr(e.msg, path) + strlen(path), path));
    rm_rf(dir);
    free(b64);
    free(hex);
    tb_buf_clear(&t);
    tb_buf_clear(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v4_fields),
        cmocka_unit_test(test_v5_body_type_3),
        cmocka_unit_test(test_truncation_every_length),
        cmocka_unit_test(test_pem_chain_with_and_without_nul),
        cmocka_unit_test(test_bad_fields),
        cmocka_unit_test(test_text_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
