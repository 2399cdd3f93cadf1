/* Unit tests for serve/pki: generated files, chain verification against the
 * CA only, names (test-server.io, localhost, 127.0.0.1), key modes, a real TLS
 * handshake with SNI test-server.io over a BIO pair, and error paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "serve/pki.h"

static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/tb-pki-test.XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    tb_err err;
    char sub[128];
    snprintf(sub, sizeof sub, "%s/pki/nested", dir);
    if (tb_pki_generate(sub, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void path_of(const char *file, char *out, size_t n)
{
    snprintf(out, n, "%s/pki/nested/%s", dir, file);
}

static X509 *load_cert(const char *file)
{
    char p[256];
    path_of(file, p, sizeof p);
    FILE *f = fopen(p, "r");
    assert_non_null(f);
    X509 *x = PEM_read_X509(f, NULL, NULL, NULL);
    fclose(f);
    assert_non_null(x);
    return x;
}

static EVP_PKEY *load_key(const char *file)
{
    char p[256];
    path_of(file, p, sizeof p);
    FILE *f = fopen(p, "r");
    assert_non_null(f);
    EVP_PKEY *k = PEM_read_PrivateKey(f, NULL, NULL, NULL);
    fclose(f);
    assert_non_null(k);
    return k;
}

static void test_chain_and_names(void **state)
{
    (void)state;
    X509 *ca = load_cert(TB_PKI_CA_CERT), *srv = load_cert(TB_PKI_SERVER_CERT);
    EVP_PKEY *ca_key = load_key(TB_PKI_CA_KEY), *srv_key = load_key(TB_PKI_SERVER_KEY);
    assert_int_equal(X509_check_private_key(ca, ca_key), 1);
    assert_int_equal(X509_check_private_key(srv, srv_key), 1);
    assert_int_equal(X509_check_private_key(srv, ca_key), 0);
    assert_int_equal(EVP_PKEY_get_base_id(srv_key), EVP_PKEY_EC);
    assert_int_equal(EVP_PKEY_get_bits(srv_key), 256);
    assert_true(X509_check_ca(ca) > 0);
    assert_int_equal(X509_check_ca(srv), 0);

    X509_STORE *store = X509_STORE_new();
    X509_STORE_add_cert(store, ca);
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    X509_STORE_CTX_init(ctx, store, srv, NULL);
    X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_SERVER);
    X509_VERIFY_PARAM_set1_host(X509_STORE_CTX_get0_param(ctx), "test-server.io", 0);
    assert_int_equal(X509_verify_cert(ctx), 1);
    X509_STORE_CTX_free(ctx);

    assert_int_equal(X509_check_host(srv, "test-server.io", 0, 0, NULL), 1);
    assert_int_equal(X509_check_host(srv, "localhost", 0, 0, NULL), 1);
    assert_int_equal(X509_check_ip_asc(srv, "127.0.0.1", 0), 1);
    assert_int_equal(X509_check_host(srv, "other.io", 0, 0, NULL), 0);
    assert_int_equal(X509_check_ip_asc(srv, "127.0.0.2", 0), 0);

    X509_STORE_free(store);
    X509_free(ca);
    X509_free(srv);
    EVP_PKEY_free(ca_key);
    EVP_PKEY_free(srv_key);
}

static void test_file_modes(void **state)
{
    (void)state;
    char p[256];
    struct stat st;
    path_of(TB_PKI_SERVER_KEY, p, sizeof p);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    path_of(TB_PKI_CA_KEY, p, sizeof p);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 0077, 0);
    path_of(TB_PKI_CA_CERT, p, sizeof p);
    assert_int_equal(stat(p, &st), 0);
    assert_true(st.st_mode & 0444);
}

/* Runs a TLS handshake between a server using server.pem and a client trusting
 * ca.pem only, over an in-memory BIO pair. Returns 1 on success. */
static int handshake(const char *sni)
{
    char cert[256], key[256], ca[256];
    path_of(TB_PKI_SERVER_CERT, cert, sizeof cert);
    path_of(TB_PKI_SERVER_KEY, key, sizeof key);
    path_of(TB_PKI_CA_CERT, ca, sizeof ca);
    SSL_CTX *sctx = SSL_CTX_new(TLS_server_method());
    SSL_CTX *cctx = SSL_CTX_new(TLS_client_method());
    assert_int_equal(SSL_CTX_use_certificate_chain_file(sctx, cert), 1);
    assert_int_equal(SSL_CTX_use_PrivateKey_file(sctx, key, SSL_FILETYPE_PEM), 1);
    assert_int_equal(SSL_CTX_load_verify_locations(cctx, ca, NULL), 1);
    SSL_CTX_set_verify(cctx, SSL_VERIFY_PEER, NULL);
    SSL *s = SSL_new(sctx), *c = SSL_new(cctx);
    BIO *b1, *b2;
    assert_int_equal(BIO_new_bio_pair(&b1, 0, &b2, 0), 1);
    SSL_set_bio(s, b1, b1);
    SSL_set_bio(c, b2, b2);
    SSL_set_accept_state(s);
    SSL_set_connect_state(c);
    SSL_set_tlsext_host_name(c, sni);
    SSL_set1_host(c, sni);
    int cdone = 0, sdone = 0, failed = 0;
    for (int i = 0; i < 100 && !(cdone && sdone) && !failed; i++) {
        if (!cdone) {
            int r = SSL_do_handshake(c);
            if (r == 1)
                cdone = 1;
            else if (SSL_get_error(c, r) != SSL_ERROR_WANT_READ)
                failed = 1;
        }
        if (!sdone && !failed) {
            int r = SSL_do_handshake(s);
            if (r == 1)
                sdone = 1;
            else if (SSL_get_error(s, r) != SSL_ERROR_WANT_READ)
                failed = 1;
        }
    }
    int ok = cdone && sdone && SSL_get_verify_result(c) == X509_V_OK;
    SSL_free(s);
    SSL_free(c);
    SSL_CTX_free(sctx);
    SSL_CTX_free(cctx);
    return ok;
}

static void test_tls_handshake(void **state)
{
    (void)state;
    assert_int_equal(handshake("test-server.io"), 1);
    assert_int_equal(handshake("wrong-name.io"), 0);
}

static void test_errors(void **state)
{
    (void)state;
    tb_err err;
    char p[256];
    /* A path below a regular file cannot be created. */
    path_of(TB_PKI_CA_CERT, p, sizeof p);
    strcat(p, "/sub");
    assert_int_equal(tb_pki_generate(p, &err), -1);
    assert_true(strlen(err.msg) > 0);
    char big[5000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = 0;
    assert_int_equal(tb_pki_path(big, "x", p, sizeof p, &err), -1);
    assert_non_null(strstr(err.msg, "too long"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_and_names),
        cmocka_unit_test(test_file_modes),
        cmocka_unit_test(test_tls_handshake),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
