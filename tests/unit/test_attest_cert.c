/* Unit tests for attest/common/cert and attest/common/der, the lean X.509/CRL reader and the
 * module's one DER walker: it agrees with OpenSSL on the real certificates and CRLs of testdata
 * (names, serials, times, keys, signatures, every CRL entry), rejects what is not
 * ECDSA-SHA256/P-256 or is malformed, and is strict DER: non-minimal lengths, the
 * indefinite form, trailing bytes, non-minimal INTEGERs and BER BOOLEANs are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <time.h>

#include "attest/internal.h"
#include "attest_test_util.h"

static int64_t asn1_unix(const ASN1_TIME *t)
{
    struct tm tm;
    assert_int_equal(ASN1_TIME_to_tm(t, &tm), 1);
    return (int64_t)timegm(&tm);
}

static X509 *x509_of(const uint8_t *der, size_t n)
{
    const unsigned char *p = der;
    X509 *x = d2i_X509(NULL, &p, (long)n);
    assert_ptr_equal(p, der + n);
    return x;
}

/* 1: c's issuer name is issuer's subject and issuer's key verifies c's signature. */
static int signed_by(const tb_attest_cert *c, const tb_attest_cert *issuer)
{
    void *g = tb_attest_p256_group_new(), *ctx = tb_attest_p256_ctx_from(g);
    int ok = c->id.issuer_len == issuer->id.subject_len &&
             !memcmp(c->id.issuer, issuer->id.subject, c->id.issuer_len) &&
             tb_attest_p256_verify_ctx(ctx, issuer->pub, c->id.tbs, c->id.tbs_len, c->sig);
    tb_attest_p256_ctx_free(ctx);
    tb_attest_p256_group_free(g);
    return ok;
}

/* The real PCK chain of a testdata quote, as DER (release with tb_attest_der_list_clear). */
static void real_chain(tb_attest_der_list *l)
{
    char p[1024];
    tb_err e;
    case_path("qvl-v4-uptodate", "quote.bin", p, sizeof p);
    tb_buf b = read_all(p);
    tb_tdx_quote *q;
    assert_int_equal(tb_tdx_quote_parse(b.p, b.len, &q, &e), 0);
    assert_int_equal(tb_attest_pem_certs_to_der(q->pck_chain, q->pck_chain_len, l, &e), 0);
    tb_tdx_quote_free(q);
    tb_buf_clear(&b);
}

static void test_certs_agree_with_openssl(void **state)
{
    (void)state;
    char p[1024];
    tb_err e;
    case_path("qvl-v4-uptodate", "quote.bin", p, sizeof p);
    tb_buf b = read_all(p);
    tb_tdx_quote *q;
    assert_int_equal(tb_tdx_quote_parse(b.p, b.len, &q, &e), 0);
    tb_attest_der_list l;
    assert_int_equal(tb_attest_pem_certs_to_der(q->pck_chain, q->pck_chain_len, &l, &e), 0);
    assert_int_equal(l.n, 3);
    tb_attest_cert c[3];
    for (int i = 0; i < 3; i++) {
        assert_int_equal(tb_attest_cert_parse(l.der[i], l.len[i], &c[i], &e), 0);
        X509 *x = x509_of(l.der[i], l.len[i]);
        assert_non_null(x);
        assert_int_equal(c[i].id.not_before, asn1_unix(X509_get0_notBefore(x)));
        assert_int_equal(c[i].id.not_after, asn1_unix(X509_get0_notAfter(x)));
        const ASN1_INTEGER *sn = X509_get0_serialNumber(x);
        unsigned char *sd0 = NULL;
        int sl0 = i2d_ASN1_INTEGER((ASN1_INTEGER *)sn, &sd0);
        assert_int_equal((size_t)sl0 - 2, c[i].id.serial_len);
        assert_memory_equal(sd0 + 2, c[i].id.serial, c[i].id.serial_len);
        OPENSSL_free(sd0);
        unsigned char *sd = NULL;
        int sl = i2d_X509_NAME(X509_get_subject_name(x), &sd);
        assert_int_equal((size_t)sl, c[i].id.subject_len);
        assert_memory_equal(sd, c[i].id.subject, c[i].id.subject_len);
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
    assert_true(signed_by(&c[0], &c[1]));
    assert_true(signed_by(&c[1], &c[2]));
    assert_true(signed_by(&c[2], &c[2])); /* self-signed root */
    assert_false(signed_by(&c[0], &c[2]));
    assert_true(tb_attest_name_cn_contains(c[1].id.subject, c[1].id.subject_len, "Platform"));
    assert_false(tb_attest_name_cn_contains(c[1].id.subject, c[1].id.subject_len, "Processor"));
    assert_true(tb_attest_name_cn_contains(c[0].id.issuer, c[0].id.issuer_len, "Platform"));
    /* A flipped byte in the signed part breaks the signature; truncation breaks parsing. */
    uint8_t *m = malloc(l.len[0]);
    memcpy(m, l.der[0], l.len[0]);
    tb_attest_cert t;
    m[40] ^= 1;
    if (tb_attest_cert_parse(m, l.len[0], &t, &e) == 0)
        assert_false(signed_by(&t, &c[1]));
    for (size_t n = 0; n < l.len[0]; n += 13)
        assert_int_equal(tb_attest_cert_parse(l.der[0], n, &t, &e), -1);
    free(m);
    tb_attest_der_list_clear(&l);
    tb_tdx_quote_free(q);
    tb_buf_clear(&b);
}

static void test_crl_entries_agree_with_openssl(void **state)
{
    (void)state;
    char p[1024];
    tb_tdx_collateral col;
    tb_err e;
    case_path("dcaprs-v4-outofdate", "collateral.json", p, sizeof p);
    assert_int_equal(tb_tdx_collateral_load(p, &col, &e), 0);
    tb_attest_crl ci;
    assert_int_equal(tb_attest_crl_parse(col.pck_crl, col.pck_crl_len, &ci, &e), 0);
    const unsigned char *d = col.pck_crl;
    X509_CRL *crl = d2i_X509_CRL(NULL, &d, (long)col.pck_crl_len);
    assert_non_null(crl);
    assert_int_equal(ci.this_update, asn1_unix(X509_CRL_get0_lastUpdate(crl)));
    assert_int_equal(ci.next_update, asn1_unix(X509_CRL_get0_nextUpdate(crl)));
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
    tb_tdx_collateral_clear(&col);
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

/* The walker itself: one-byte tags, minimal definite lengths, content inside. */
static void test_der_walker_strict(void **state)
{
    (void)state;
    uint8_t big[300];
    memset(big, 0xaa, sizeof big);
    struct {
        uint8_t b[8];
        size_t n;
        int ok;
    } cases[] = {
        {{0x04, 0x01, 0x55}, 3, 1},                /* short form */
        {{0x04, 0x00}, 2, 1},                      /* empty content */
        {{0x04, 0x81, 0x05, 1, 2, 3, 4, 5}, 8, 0}, /* long form below 128 */
        {{0x04, 0x80, 0x00, 0x00}, 4, 0},          /* indefinite length */
        {{0x04, 0x82, 0x00, 0x01, 0x55}, 5, 0},    /* leading zero length byte */
        {{0x04, 0x85, 0, 0, 0, 0, 1}, 7, 0},       /* five length bytes */
        {{0x04, 0x02, 0x55}, 3, 0},                /* content past the end */
        {{0x1f, 0x81, 0x01, 0x00}, 4, 0},          /* high-tag-number form */
        {{0x04}, 1, 0},                            /* no length */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tb_attest_der d = {cases[i].b, cases[i].n}, c, w;
        int tag;
        int rc = tb_attest_der_next(&d, &tag, &c, &w);
        assert_int_equal(rc, cases[i].ok ? 0 : -1);
        if (rc < 0) {
            assert_ptr_equal(d.p, cases[i].b); /* unchanged on failure */
            continue;
        }
        assert_int_equal(tag, 0x04);
        assert_int_equal(w.n, cases[i].n);
        assert_int_equal(d.n, 0);
    }
    /* A 200-byte content: 0x81 0xc8 is minimal; 0x82 0x00 0xc8 is not. */
    big[0] = 0x04;
    big[1] = 0x81;
    big[2] = 200;
    tb_attest_der d = {big, 203};
    assert_int_equal(tb_attest_der_next(&d, NULL, NULL, NULL), 0);
    big[1] = 0x82;
    big[2] = 0x00;
    big[3] = 200;
    d = (tb_attest_der){big, 204};
    assert_int_equal(tb_attest_der_next(&d, NULL, NULL, NULL), -1);
    /* INTEGERs: minimal two's complement; BOOLEANs: 0x00 / 0xff. */
    static const uint8_t i_ok1[] = {0x00, 0x80}, i_ok2[] = {0xff, 0x7f}, i_ok3[] = {0x00},
                         i_bad1[] = {0x00, 0x01}, i_bad2[] = {0xff, 0x80};
    assert_int_equal(tb_attest_der_int((tb_attest_der){i_ok1, 2}), 0);
    assert_int_equal(tb_attest_der_int((tb_attest_der){i_ok2, 2}), 0);
    assert_int_equal(tb_attest_der_int((tb_attest_der){i_ok3, 1}), 0);
    assert_int_equal(tb_attest_der_int((tb_attest_der){i_bad1, 2}), -1);
    assert_int_equal(tb_attest_der_int((tb_attest_der){i_bad2, 2}), -1);
    assert_int_equal(tb_attest_der_int((tb_attest_der){i_ok3, 0}), -1);
    unsigned u;
    assert_int_equal(tb_attest_der_uint((tb_attest_der){i_ok1, 2}, 255, &u), 0);
    assert_int_equal(u, 128);
    assert_int_equal(tb_attest_der_uint((tb_attest_der){i_ok1, 2}, 127, &u), -1);
    assert_int_equal(tb_attest_der_uint((tb_attest_der){i_ok2, 2}, 65535, &u), -1); /* < 0 */
    assert_int_equal(tb_attest_der_uint((tb_attest_der){i_bad1, 2}, 255, &u), -1);
    static const uint8_t t_ff[] = {0xff}, t_00[] = {0x00}, t_01[] = {0x01};
    int b;
    assert_int_equal(tb_attest_der_bool((tb_attest_der){t_ff, 1}, &b), 0);
    assert_true(b);
    assert_int_equal(tb_attest_der_bool((tb_attest_der){t_00, 1}, &b), 0);
    assert_false(b);
    assert_int_equal(tb_attest_der_bool((tb_attest_der){t_01, 1}, &b), -1);
}

/* Re-encodes a length header at der[at] (tag, 0x82, hi, lo) in one more byte (0x83, 0, hi,
 * lo): same value, not minimal. The outer header's length grows by one when at > 0. */
static uint8_t *stretch_length(const uint8_t *der, size_t n, size_t at, size_t *outn)
{
    assert_int_equal(der[at + 1], 0x82);
    uint8_t *m = malloc(n + 1);
    memcpy(m, der, at + 2);
    m[at + 1] = 0x83;
    m[at + 2] = 0x00;
    memcpy(m + at + 3, der + at + 2, n - at - 2);
    if (at > 0) { /* the outer SEQUENCE: 30 82 hi lo */
        size_t outer = ((size_t)m[2] << 8 | m[3]) + 1;
        m[2] = (uint8_t)(outer >> 8);
        m[3] = (uint8_t)outer;
    }
    *outn = n + 1;
    return m;
}

/* Real certificates and CRLs made non-DER in each way: the reader refuses every one. */
static void test_real_der_made_strict_fails(void **state)
{
    (void)state;
    tb_attest_der_list l;
    tb_attest_cert c;
    tb_err e;
    real_chain(&l);
    const uint8_t *leaf = l.der[0];
    size_t n = l.len[0], mn;
    assert_int_equal(tb_attest_cert_parse(leaf, n, &c, &e), 0);
    assert_int_equal(leaf[0], 0x30);
    assert_int_equal(leaf[4], 0x30); /* tbsCertificate: 30 82 hi lo */
    /* Non-minimal length: of the certificate, and of the (signed) tbsCertificate. */
    uint8_t *m = stretch_length(leaf, n, 0, &mn);
    assert_int_equal(tb_attest_cert_parse(m, mn, &c, &e), -1);
    free(m);
    m = stretch_length(leaf, n, 4, &mn);
    assert_int_equal(tb_attest_cert_parse(m, mn, &c, &e), -1);
    free(m);
    /* Indefinite length: 30 80 <content> 00 00. */
    m = malloc(n + 2);
    m[0] = 0x30;
    m[1] = 0x80;
    memcpy(m + 2, leaf + 4, n - 4);
    m[n - 2] = m[n - 1] = 0;
    assert_int_equal(tb_attest_cert_parse(m, n, &c, &e), -1);
    free(m);
    /* Trailing bytes after the certificate. */
    m = malloc(n + 1);
    memcpy(m, leaf, n);
    m[n] = 0;
    assert_int_equal(tb_attest_cert_parse(m, n + 1, &c, &e), -1);
    assert_non_null(strstr(e.msg, "not a DER certificate"));
    free(m);
    /* The same for a CRL. */
    char p[1024];
    tb_tdx_collateral col;
    tb_attest_crl ci;
    case_path("qvl-v4-uptodate", "collateral.json", p, sizeof p);
    assert_int_equal(tb_tdx_collateral_load(p, &col, &e), 0);
    assert_int_equal(tb_attest_crl_parse(col.pck_crl, col.pck_crl_len, &ci, &e), 0);
    m = stretch_length(col.pck_crl, col.pck_crl_len, 0, &mn);
    assert_int_equal(tb_attest_crl_parse(m, mn, &ci, &e), -1);
    free(m);
    m = malloc(col.pck_crl_len + 1);
    memcpy(m, col.pck_crl, col.pck_crl_len);
    m[col.pck_crl_len] = 0;
    assert_int_equal(tb_attest_crl_parse(m, col.pck_crl_len + 1, &ci, &e), -1);
    free(m);
    tb_tdx_collateral_clear(&col);
    tb_attest_der_list_clear(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_certs_agree_with_openssl),
        cmocka_unit_test(test_crl_entries_agree_with_openssl),
        cmocka_unit_test(test_rejects_other_algorithms),
        cmocka_unit_test(test_der_walker_strict),
        cmocka_unit_test(test_real_der_made_strict_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
