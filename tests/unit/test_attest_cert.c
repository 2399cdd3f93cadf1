/* Unit tests for attest/cert, the lean X.509/CRL reader: it agrees with OpenSSL on the
 * real certificates and CRLs of testdata (names, serials, times, keys, signatures,
 * every CRL entry), and rejects what is not ECDSA-SHA256/P-256 or is malformed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "attest/internal.h"
#include "attest_test_util.h"

static void test_certs_agree_with_openssl(void **state)
{
    (void)state;
    char p[1024];
    tb_err e;
    case_path("qvl-v4-uptodate", "quote.bin", p, sizeof p);
    tb_buf b = read_all(p);
    tb_attest_quote *q;
    assert_int_equal(tb_attest_quote_parse(b.p, b.len, &q, &e), 0);
    tb_attest_der_list l;
    assert_int_equal(tb_attest_pem_certs_to_der(q->pck_chain, q->pck_chain_len, &l, &e), 0);
    assert_int_equal(l.n, 3);
    tb_attest_cert c[3];
    for (int i = 0; i < 3; i++) {
        assert_int_equal(tb_attest_cert_parse(l.der[i], l.len[i], &c[i], &e), 0);
        X509 *x = tb_attest_x509_from_der(l.der[i], l.len[i]);
        assert_non_null(x);
        int64_t nb, na;
        assert_int_equal(tb_attest_asn1_time_unix(X509_get0_notBefore(x), &nb), 0);
        assert_int_equal(tb_attest_asn1_time_unix(X509_get0_notAfter(x), &na), 0);
        assert_int_equal(c[i].not_before, nb);
        assert_int_equal(c[i].not_after, na);
        unsigned char *sd = NULL;
        int sl = i2d_X509_NAME(X509_get_subject_name(x), &sd);
        assert_int_equal((size_t)sl, c[i].subject_len);
        assert_memory_equal(sd, c[i].subject, c[i].subject_len);
        OPENSSL_free(sd);
        uint8_t pt[65];
        size_t pl = 0;
        assert_int_equal(
            EVP_PKEY_get_octet_string_param(X509_get0_pubkey(x), "pub", pt, sizeof pt, &pl), 1);
        assert_memory_equal(pt, c[i].pub, 65);
        assert_int_equal(c[i].is_ca, X509_check_ca(x) ? 1 : 0);
        X509_free(x);
    }
    assert_non_null(c[0].sgx_ext);
    assert_null(c[1].sgx_ext);
    assert_true(tb_attest_cert_signed_by(&c[0], &c[1]));
    assert_true(tb_attest_cert_signed_by(&c[1], &c[2]));
    assert_true(tb_attest_cert_signed_by(&c[2], &c[2])); /* self-signed root */
    assert_false(tb_attest_cert_signed_by(&c[0], &c[2]));
    assert_true(tb_attest_cert_cn_contains(&c[1], "Platform"));
    assert_false(tb_attest_cert_cn_contains(&c[1], "Processor"));
    /* A flipped byte in the signed part breaks the signature; truncation breaks parsing. */
    uint8_t *m = malloc(l.len[0]);
    memcpy(m, l.der[0], l.len[0]);
    tb_attest_cert t;
    m[40] ^= 1;
    if (tb_attest_cert_parse(m, l.len[0], &t, &e) == 0)
        assert_false(tb_attest_cert_signed_by(&t, &c[1]));
    for (size_t n = 0; n < l.len[0]; n += 13)
        assert_int_equal(tb_attest_cert_parse(l.der[0], n, &t, &e), -1);
    free(m);
    tb_attest_der_list_clear(&l);
    tb_attest_quote_free(q);
    tb_buf_free(&b);
}

static void test_crl_entries_agree_with_openssl(void **state)
{
    (void)state;
    char p[1024];
    tb_attest_collateral col;
    tb_err e;
    case_path("dcaprs-v4-outofdate", "collateral.json", p, sizeof p);
    assert_int_equal(tb_attest_collateral_load(p, &col, &e), 0);
    tb_attest_crl ci;
    assert_int_equal(tb_attest_crl_parse(col.pck_crl, col.pck_crl_len, &ci, &e), 0);
    const unsigned char *d = col.pck_crl;
    X509_CRL *crl = d2i_X509_CRL(NULL, &d, (long)col.pck_crl_len);
    assert_non_null(crl);
    int64_t tu, nu;
    tb_attest_asn1_time_unix(X509_CRL_get0_lastUpdate(crl), &tu);
    tb_attest_asn1_time_unix(X509_CRL_get0_nextUpdate(crl), &nu);
    assert_int_equal(ci.this_update, tu);
    assert_int_equal(ci.next_update, nu);
    STACK_OF(X509_REVOKED) *revs = X509_CRL_get_REVOKED(crl);
    assert_true(sk_X509_REVOKED_num(revs) > 10);
    for (int i = 0; i < sk_X509_REVOKED_num(revs); i++) {
        const ASN1_INTEGER *s = X509_REVOKED_get0_serialNumber(sk_X509_REVOKED_value(revs, i));
        unsigned char *der = NULL;
        int n = i2d_ASN1_INTEGER((ASN1_INTEGER *)s, &der);
        assert_true(tb_attest_crl_is_revoked(&ci, der + 2, (size_t)n - 2));
        der[n - 1] ^= 0x5a; /* almost certainly not listed */
        int listed = 0;
        for (int k = 0; k < sk_X509_REVOKED_num(revs) && !listed; k++) {
            unsigned char *o = NULL;
            int on = i2d_ASN1_INTEGER(
                (ASN1_INTEGER *)X509_REVOKED_get0_serialNumber(sk_X509_REVOKED_value(revs, k)), &o);
            listed = on == n && !memcmp(o, der, (size_t)n);
            OPENSSL_free(o);
        }
        assert_int_equal(tb_attest_crl_is_revoked(&ci, der + 2, (size_t)n - 2), listed);
        OPENSSL_free(der);
    }
    X509_CRL_free(crl);
    for (size_t n = 0; n < col.pck_crl_len; n += 97)
        assert_int_equal(tb_attest_crl_parse(col.pck_crl, n, &ci, &e), -1);
    tb_attest_collateral_clear(&col);
}

static void test_rejects_other_algorithms(void **state)
{
    (void)state;
    /* An RSA self-signed certificate made here: not ECDSA-SHA256 / P-256. */
    EVP_PKEY *k = EVP_RSA_gen(1024);
    X509 *x = X509_new();
    X509_set_version(x, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
    X509_gmtime_adj(X509_getm_notBefore(x), 0);
    X509_gmtime_adj(X509_getm_notAfter(x), 3600);
    X509_set_pubkey(x, k);
    X509_sign(x, k, EVP_sha256());
    unsigned char *der = NULL;
    int n = i2d_X509(x, &der);
    tb_attest_cert c;
    tb_err e;
    assert_int_equal(tb_attest_cert_parse(der, (size_t)n, &c, &e), -1);
    assert_non_null(strstr(e.msg, "ECDSA"));
    OPENSSL_free(der);
    X509_free(x);
    EVP_PKEY_free(k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_certs_agree_with_openssl),
        cmocka_unit_test(test_crl_entries_agree_with_openssl),
        cmocka_unit_test(test_rejects_other_algorithms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
