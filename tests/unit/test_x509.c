/* Unit tests for src/base/x509: the one certificate builder -- what a spec says is what
 * the certificate holds (names in order, serial, validity, extensions in order, raw
 * extensions, issuer and signature), and a bad extension string fails with a reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_properties),
        cmocka_unit_test(test_bad_extension),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
