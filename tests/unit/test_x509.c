/* Unit tests for src/base/x509: the one certificate builder -- what a spec says is what
 * the certificate holds (names in order, serial, validity, extensions in order, raw
 * extensions, issuer and signature), and a bad extension string fails with a reason;
 * the CRL builder (issuer, dates, the revoked serial, the signature); certificates and
 * keys written (PEM or DER, keys 0600) read back as the same. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/x509v3.h>

#include "base/x509.h"

static void test_chain_properties(void **state)
{
    (void)state;
    EVP_PKEY *ca_k = EVP_EC_gen("P-256"), *leaf_k = EVP_EC_gen("P-256");
    assert_non_null(ca_k);
    assert_non_null(leaf_k);
    const char *const ca_name[] = {"O", "org", "CN", "ca", NULL};
    const tb_x509_ext ca_ext[] = {{NID_basic_constraints, "critical,CA:TRUE"},
                                  {NID_subject_key_identifier, "hash"}};
    tb_x509_spec ca_spec = {.name = ca_name,
                            .key = ca_k,
                            .issuer_key = ca_k,
                            .serial = 0x10000,
                            .not_before = 1000000000,
                            .not_after = 1900000000,
                            .ext = ca_ext,
                            .n_ext = 2};
    tb_err e;
    X509 *ca = tb_x509_make(&ca_spec, &e);
    assert_non_null(ca);
    assert_int_equal(ASN1_INTEGER_get(X509_get0_serialNumber(ca)), 0x10000);
    assert_int_equal(X509_get_version(ca), 2);
    assert_int_equal(X509_check_ca(ca), 1);
    assert_int_equal(X509_NAME_cmp(X509_get_subject_name(ca), X509_get_issuer_name(ca)), 0);
    char buf[128];
    X509_NAME_oneline(X509_get_subject_name(ca), buf, sizeof buf);
    assert_string_equal(buf, "/O=org/CN=ca");
    assert_int_equal(X509_verify(ca, ca_k), 1);
    ASN1_TIME *t = ASN1_TIME_set(NULL, 1000000000);
    assert_int_equal(ASN1_TIME_compare(X509_get0_notBefore(ca), t), 0);
    ASN1_TIME_set(t, 1900000000);
    assert_int_equal(ASN1_TIME_compare(X509_get0_notAfter(ca), t), 0);
    ASN1_TIME_free(t);

    static const uint8_t der[] = {0x02, 0x01, 0x05};
    const tb_x509_raw_ext raw = {"1.3.6.1.4.1.3704.1.1", der, sizeof der};
    const char *const leaf_name[] = {"CN", "leaf", NULL};
    const tb_x509_ext leaf_ext[] = {{NID_basic_constraints, "CA:FALSE"}};
    tb_x509_spec leaf_spec = {.name = leaf_name,
                              .key = leaf_k,
                              .issuer = ca,
                              .issuer_key = ca_k,
                              .not_before = 1000000000,
                              .not_after = 1900000000,
                              .ext = leaf_ext,
                              .n_ext = 1,
                              .raw = &raw,
                              .n_raw = 1};
    X509 *leaf = tb_x509_make(&leaf_spec, &e);
    assert_non_null(leaf);
    assert_int_equal(X509_verify(leaf, ca_k), 1);
    assert_int_equal(X509_NAME_cmp(X509_get_issuer_name(leaf), X509_get_subject_name(ca)), 0);
    assert_int_equal(X509_check_ca(leaf), 0);
    assert_int_equal(X509_get_ext_count(leaf), 2);
    X509_EXTENSION *x = X509_get_ext(leaf, 1);
    char oid[64];
    OBJ_obj2txt(oid, sizeof oid, X509_EXTENSION_get_object(x), 1);
    assert_string_equal(oid, "1.3.6.1.4.1.3704.1.1");
    assert_false(X509_EXTENSION_get_critical(x));
    const ASN1_OCTET_STRING *v = X509_EXTENSION_get_data(x);
    assert_memory_equal(ASN1_STRING_get0_data(v), der, sizeof der);
    /* a random serial: positive, at most 127 bits */
    BIGNUM *bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(leaf), NULL);
    assert_non_null(bn);
    assert_false(BN_is_negative(bn));
    assert_true(BN_num_bits(bn) <= 127);
    BN_free(bn);
    X509_free(leaf);
    X509_free(ca);
    EVP_PKEY_free(leaf_k);
    EVP_PKEY_free(ca_k);
}

static void test_bad_extension(void **state)
{
    (void)state;
    EVP_PKEY *k = EVP_EC_gen("P-256");
    const char *const name[] = {"CN", "x", NULL};
    const tb_x509_ext ext[] = {{NID_basic_constraints, "not-a-value"}};
    tb_x509_spec spec = {
        .name = name, .key = k, .issuer_key = k, .not_after = 1, .ext = ext, .n_ext = 1};
    tb_err e;
    assert_null(tb_x509_make(&spec, &e));
    assert_non_null(strstr(e.msg, "certificate extension basicConstraints=not-a-value"));
    EVP_PKEY_free(k);
}

static X509 *self_signed(EVP_PKEY *k, long serial)
{
    const char *const name[] = {"CN", "crl issuer", NULL};
    tb_x509_spec spec = {.name = name,
                         .key = k,
                         .issuer_key = k,
                         .serial = serial,
                         .not_before = 1000000000,
                         .not_after = 1900000000};
    tb_err e;
    return tb_x509_make(&spec, &e);
}

static void test_crl(void **state)
{
    (void)state;
    EVP_PKEY *k = EVP_EC_gen("P-256"), *other = EVP_EC_gen("P-256");
    X509 *ca = self_signed(k, 7), *leaf = self_signed(other, 0x1234);
    assert_non_null(ca);
    assert_non_null(leaf);
    tb_x509_crl_spec spec = {.issuer = ca,
                             .issuer_key = k,
                             .this_update = 1500000000,
                             .next_update = 1600000000,
                             .revoked = leaf};
    uint8_t *der;
    size_t len;
    tb_err e;
    assert_int_equal(tb_x509_crl_make(&spec, &der, &len, &e), 0);
    const unsigned char *p = der;
    X509_CRL *c = d2i_X509_CRL(NULL, &p, (long)len);
    assert_non_null(c);
    assert_ptr_equal(p, der + len);
    assert_int_equal(X509_CRL_get_version(c), 1);
    assert_int_equal(X509_NAME_cmp(X509_CRL_get_issuer(c), X509_get_subject_name(ca)), 0);
    assert_int_equal(X509_CRL_verify(c, k), 1);
    assert_int_not_equal(X509_CRL_verify(c, other), 1);
    ASN1_TIME *t = ASN1_TIME_set(NULL, 1500000000);
    assert_int_equal(ASN1_TIME_compare(X509_CRL_get0_lastUpdate(c), t), 0);
    ASN1_TIME_set(t, 1600000000);
    assert_int_equal(ASN1_TIME_compare(X509_CRL_get0_nextUpdate(c), t), 0);
    ASN1_TIME_free(t);
    STACK_OF(X509_REVOKED) *r = X509_CRL_get_REVOKED(c);
    assert_int_equal(sk_X509_REVOKED_num(r), 1);
    assert_int_equal(ASN1_INTEGER_get(X509_REVOKED_get0_serialNumber(sk_X509_REVOKED_value(r, 0))),
                     0x1234);
    X509_CRL_free(c);
    OPENSSL_free(der);
    spec.revoked = NULL; /* none revoked */
    assert_int_equal(tb_x509_crl_make(&spec, &der, &len, &e), 0);
    p = der;
    c = d2i_X509_CRL(NULL, &p, (long)len);
    assert_non_null(c);
    assert_true(sk_X509_REVOKED_num(X509_CRL_get_REVOKED(c)) <= 0); /* no list, or an empty one */
    X509_CRL_free(c);
    OPENSSL_free(der);
    X509_free(ca);
    X509_free(leaf);
    EVP_PKEY_free(k);
    EVP_PKEY_free(other);
}

static void test_write_read(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_x509.XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    int dfd = open(dir, O_DIRECTORY | O_RDONLY);
    assert_true(dfd >= 0);
    EVP_PKEY *k = EVP_EC_gen("P-256");
    X509 *x = self_signed(k, 9);
    tb_err e;
    assert_int_equal(tb_x509_write_at(dfd, dir, "c.pem", x, NULL, 0, &e), 0);
    assert_int_equal(tb_x509_write_at(dfd, dir, "c.der", x, NULL, 1, &e), 0);
    assert_int_equal(tb_x509_write_at(dfd, dir, "k.key", NULL, k, 0, &e), 0);
    const char *const certs[] = {"c.pem", "c.der"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, certs[i]);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 0777, 0644);
        X509 *back;
        assert_int_equal(tb_x509_read(path, &back, NULL, &e), 0);
        assert_int_equal(X509_cmp(back, x), 0);
        X509_free(back);
    }
    snprintf(path, sizeof path, "%s/k.key", dir);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    EVP_PKEY *kb;
    assert_int_equal(tb_x509_read(path, NULL, &kb, &e), 0);
    assert_int_equal(EVP_PKEY_eq(kb, k), 1);
    EVP_PKEY_free(kb);
    X509 *none;
    assert_int_equal(tb_x509_read(path, &none, NULL, &e), -1); /* a key is no certificate */
    assert_null(none);
    assert_non_null(strstr(e.msg, "bad certificate or key"));
    tb_buf b = {0};
    assert_int_equal(tb_x509_encode(x, k, 0, "both", &b, &e), 0); /* certificate, then key */
    assert_non_null(strstr((const char *)b.p, "-----BEGIN CERTIFICATE-----"));
    assert_true(strstr((const char *)b.p, "PRIVATE KEY-----") >
                strstr((const char *)b.p, "-----END CERTIFICATE-----"));
    tb_buf_clear(&b);
    const char *const all[] = {"c.pem", "c.der", "k.key"};
    for (int i = 0; i < 3; i++)
        unlinkat(dfd, all[i], 0);
    close(dfd);
    rmdir(dir);
    X509_free(x);
    EVP_PKEY_free(k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_properties),
        cmocka_unit_test(test_bad_extension),
        cmocka_unit_test(test_crl),
        cmocka_unit_test(test_write_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
