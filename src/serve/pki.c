/* pki: fixture CA and server certificate with the OpenSSL 3 APIs; see pki.h.
 * Certificates are built with X509_* and X509V3 extension strings (the same
 * syntax as openssl.cnf), keys with EVP_EC_gen. PEM text goes to memory BIOs,
 * then to files via base/file's atomic write (0644 for certificates, 0600 for keys). */
#include "serve/pki.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "base/file.h"

#define VALID_DAYS 3650

int tb_pki_path(const char *dir, const char *file, char *out, size_t size, tb_err *err)
{
    int n = snprintf(out, size, "%s/%s", dir, file);
    if (n < 0 || (size_t)n >= size)
        return tb_errf(err, "%.200s/%s: path too long", dir, file);
    return 0;
}

static int add_ext(X509 *cert, X509 *issuer, int nid, const char *value, tb_err *err)
{
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (!ext)
        return tb_err_ssl(err, "certificate extension %s=%s", OBJ_nid2sn(nid), value);
    int ok = X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
    return ok ? 0 : tb_err_ssl(err, "adding extension %s", OBJ_nid2sn(nid));
}

static int set_serial(X509 *cert, tb_err *err)
{
    BIGNUM *bn = BN_new();
    int ok = bn && BN_rand(bn, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) &&
             BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert));
    BN_free(bn);
    return ok ? 0 : tb_err_ssl(err, "certificate serial");
}

static int set_name(X509_NAME *name, const char *cn)
{
    return X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, (const unsigned char *)"teebench",
                                      -1, -1, 0) &&
           X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1,
                                      0);
}

/* Makes a certificate for key (subject cn), signed by issuer_key; issuer NULL
 * makes it self-signed. Returns NULL with err on failure. */
static X509 *make_cert(EVP_PKEY *key, const char *cn, X509 *issuer, EVP_PKEY *issuer_key, int is_ca,
                       tb_err *err)
{
    X509 *c = X509_new();
    if (!c) {
        tb_err_ssl(err, "X509_new");
        return NULL;
    }
    if (!X509_set_version(c, X509_VERSION_3) || set_serial(c, err) < 0)
        goto fail;
    if (!X509_gmtime_adj(X509_getm_notBefore(c), -3600) ||
        !X509_time_adj_ex(X509_getm_notAfter(c), VALID_DAYS, 0, NULL) || !X509_set_pubkey(c, key) ||
        !set_name(X509_get_subject_name(c), cn) ||
        !X509_set_issuer_name(c, X509_get_subject_name(issuer ? issuer : c))) {
        tb_err_ssl(err, "certificate %s", cn);
        goto fail;
    }
    X509 *iss = issuer ? issuer : c;
    if (add_ext(c, iss, NID_subject_key_identifier, "hash", err) < 0 ||
        add_ext(c, iss, NID_authority_key_identifier, "keyid:always", err) < 0)
        goto fail;
    if (is_ca) {
        if (add_ext(c, iss, NID_basic_constraints, "critical,CA:TRUE,pathlen:0", err) < 0 ||
            add_ext(c, iss, NID_key_usage, "critical,keyCertSign,cRLSign", err) < 0)
            goto fail;
    } else {
        if (add_ext(c, iss, NID_basic_constraints, "critical,CA:FALSE", err) < 0 ||
            add_ext(c, iss, NID_key_usage, "critical,digitalSignature", err) < 0 ||
            add_ext(c, iss, NID_ext_key_usage, "serverAuth", err) < 0 ||
            add_ext(c, iss, NID_subject_alt_name,
                    "DNS:" TB_PKI_SERVER_NAME ",DNS:localhost,IP:127.0.0.1", err) < 0)
            goto fail;
    }
    if (!X509_sign(c, issuer_key, EVP_sha256())) {
        tb_err_ssl(err, "signing certificate %s", cn);
        goto fail;
    }
    return c;
fail:
    X509_free(c);
    return NULL;
}

/* Writes the PEM of a certificate (key NULL) or a private key to file in the
 * directory dfd (dir: its path, for messages). */
static int write_pem(int dfd, const char *dir, const char *file, X509 *cert, EVP_PKEY *key,
                     tb_err *err)
{
    BIO *b = BIO_new(BIO_s_mem());
    int ok = b && (cert ? PEM_write_bio_X509(b, cert)
                        : PEM_write_bio_PrivateKey(b, key, NULL, NULL, 0, NULL, NULL));
    if (!ok) {
        BIO_free(b);
        return tb_err_ssl(err, "%s/%s: PEM encoding", dir, file);
    }
    char *data;
    long len = BIO_get_mem_data(b, &data);
    int rc = tb_file_write_at(dfd, dir, file, data, (size_t)len, cert ? 0644 : 0600, err);
    BIO_free(b);
    return rc;
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
    if (write_pem(dfd, dir, TB_PKI_CA_KEY, NULL, ca_key, err) < 0 ||
        write_pem(dfd, dir, TB_PKI_CA_CERT, ca, NULL, err) < 0 ||
        write_pem(dfd, dir, TB_PKI_SERVER_KEY, NULL, srv_key, err) < 0 ||
        write_pem(dfd, dir, TB_PKI_SERVER_CERT, srv, NULL, err) < 0)
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
