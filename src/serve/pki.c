/* pki: fixture CA and server certificate with the OpenSSL 3 APIs; see pki.h.
 * Certificates are built by base/x509 (X509V3 extension strings, the same
 * syntax as openssl.cnf), keys with EVP_EC_gen; base/x509 writes their PEM with
 * base/file's atomic write (0644 for certificates, 0600 for keys). */
#include "serve/pki.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "base/file.h"
#include "base/x509.h"

#define VALID_DAYS 3650

int tb_pki_path(const char *dir, const char *file, char *out, size_t size, tb_err *err)
{
    int n = snprintf(out, size, "%s/%s", dir, file);
    if (n < 0 || (size_t)n >= size)
        return tb_errf(err, "%.200s/%s: path too long", dir, file);
    return 0;
}

/* A certificate for key (subject O=teebench, CN=cn) by base/x509, signed by issuer_key
   (ECDSA-SHA256); issuer NULL makes it self-signed. A random serial, valid from an hour
   ago for VALID_DAYS. The CA: pathlen 0; the server: serverAuth for TB_PKI_SERVER_NAME,
   localhost and 127.0.0.1. Returns NULL with err on failure. */
static X509 *make_cert(EVP_PKEY *key, const char *cn, X509 *issuer, EVP_PKEY *issuer_key, int is_ca,
                       tb_err *err)
{
    const char *const name[] = {"O", "teebench", "CN", cn, NULL};
    static const tb_x509_ext ca_ext[] = {
        {NID_subject_key_identifier, "hash"},
        {NID_authority_key_identifier, "keyid:always"},
        {NID_basic_constraints, "critical,CA:TRUE,pathlen:0"},
        {NID_key_usage, "critical,keyCertSign,cRLSign"},
    };
    static const tb_x509_ext srv_ext[] = {
        {NID_subject_key_identifier, "hash"},
        {NID_authority_key_identifier, "keyid:always"},
        {NID_basic_constraints, "critical,CA:FALSE"},
        {NID_key_usage, "critical,digitalSignature"},
        {NID_ext_key_usage, "serverAuth"},
        {NID_subject_alt_name, "DNS:" TB_PKI_SERVER_NAME ",DNS:localhost,IP:127.0.0.1"},
    };
    int64_t now = (int64_t)time(NULL);
    tb_x509_spec spec = {.name = name,
                         .key = key,
                         .issuer = issuer,
                         .issuer_key = issuer_key,
                         .not_before = now - 3600,
                         .not_after = now + (int64_t)VALID_DAYS * 86400,
                         .ext = is_ca ? ca_ext : srv_ext,
                         .n_ext = is_ca ? sizeof ca_ext / sizeof ca_ext[0]
                                        : sizeof srv_ext / sizeof srv_ext[0]};
    return tb_x509_make(&spec, err);
}

/* The four files into the opened directory dfd; closes dfd. */
static int generate_in(int dfd, const char *dir, tb_err *err)
{
    int rc = -1;
    EVP_PKEY *ca_key = NULL, *srv_key = NULL;
    X509 *ca = NULL, *srv = NULL;
    ca_key = EVP_EC_gen("P-256");
    srv_key = EVP_EC_gen("P-256");
    if (!ca_key || !srv_key) {
        tb_err_ssl(err, "generating EC P-256 keys");
        goto out;
    }
    if (!(ca = make_cert(ca_key, TB_PKI_CA_NAME, NULL, ca_key, 1, err)) ||
        !(srv = make_cert(srv_key, TB_PKI_SERVER_NAME, ca, ca_key, 0, err)))
        goto out;
    if (tb_x509_write_at(dfd, dir, TB_PKI_CA_KEY, NULL, ca_key, 0, err) < 0 ||
        tb_x509_write_at(dfd, dir, TB_PKI_CA_CERT, ca, NULL, 0, err) < 0 ||
        tb_x509_write_at(dfd, dir, TB_PKI_SERVER_KEY, NULL, srv_key, 0, err) < 0 ||
        tb_x509_write_at(dfd, dir, TB_PKI_SERVER_CERT, srv, NULL, 0, err) < 0)
        goto out;
    rc = 0;
out:
    close(dfd);
    X509_free(ca);
    X509_free(srv);
    EVP_PKEY_free(ca_key);
    EVP_PKEY_free(srv_key);
    return rc;
}

int tb_pki_generate(const char *dir, tb_err *err)
{
    int dfd = tb_dir_open_private(dir, 0700, err);
    return dfd < 0 ? -1 : generate_in(dfd, dir, err);
}

int tb_pki_generate_at(int parent_fd, const char *parent, const char *name, tb_err *err)
{
    char dir[PATH_MAX];
    if (tb_path_join(dir, sizeof dir, parent, name, err) < 0)
        return -1;
    int dfd = tb_dir_open_at(parent_fd, parent, name, 0700, err);
    return dfd < 0 ? -1 : generate_in(dfd, dir, err);
}
