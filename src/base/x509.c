/* x509: see x509.h. Each step that can fail says which (tb_err_ssl adds OpenSSL's
 * reason); a half-built certificate is freed before NULL is returned. */
#include "base/x509.h"

#include <string.h>
#include <time.h>

#include <openssl/bn.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "base/file.h"

static int add_ext(X509 *x, X509 *issuer, int nid, const char *value, tb_err *err)
{
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);
    X509_EXTENSION *e = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (!e)
        return tb_err_ssl(err, "certificate extension %s=%s", OBJ_nid2sn(nid), value);
    int ok = X509_add_ext(x, e, -1);
    X509_EXTENSION_free(e);
    return ok ? 0 : tb_err_ssl(err, "adding extension %s", OBJ_nid2sn(nid));
}

static int add_raw(X509 *x, const tb_x509_raw_ext *r, tb_err *err)
{
    ASN1_OBJECT *obj = OBJ_txt2obj(r->oid, 1);
    ASN1_OCTET_STRING *os = ASN1_OCTET_STRING_new();
    X509_EXTENSION *e = NULL;
    int ok = obj && os && ASN1_OCTET_STRING_set(os, r->der, (int)r->len) &&
             (e = X509_EXTENSION_create_by_OBJ(NULL, obj, 0, os)) && X509_add_ext(x, e, -1);
    X509_EXTENSION_free(e);
    ASN1_OCTET_STRING_free(os);
    ASN1_OBJECT_free(obj);
    return ok ? 0 : tb_err_ssl(err, "adding extension %s", r->oid);
}

static int set_serial(X509 *x, long serial, tb_err *err)
{
    if (serial > 0)
        return ASN1_INTEGER_set(X509_get_serialNumber(x), serial)
                   ? 0
                   : tb_err_ssl(err, "certificate serial");
    BIGNUM *bn = BN_new();
    int ok = bn && BN_rand(bn, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) &&
             BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x));
    BN_free(bn);
    return ok ? 0 : tb_err_ssl(err, "certificate serial");
}

static int set_subject(X509 *x, const char *const *name)
{
    X509_NAME *n = X509_get_subject_name(x);
    for (size_t i = 0; name[i] && name[i + 1]; i += 2)
        if (!X509_NAME_add_entry_by_txt(n, name[i], MBSTRING_ASC,
                                        (const unsigned char *)name[i + 1], -1, -1, 0))
            return 0;
    return 1;
}

/* The subject's CN, for messages. */
static const char *cn_of(const char *const *name)
{
    for (size_t i = 0; name[i] && name[i + 1]; i += 2)
        if (!strcmp(name[i], "CN"))
            return name[i + 1];
    return "?";
}

X509 *tb_x509_make(const tb_x509_spec *s, tb_err *err)
{
    const char *cn = cn_of(s->name);
    X509 *x = X509_new();
    if (!x) {
        tb_err_ssl(err, "X509_new");
        return NULL;
    }
    if (!X509_set_version(x, X509_VERSION_3) || set_serial(x, s->serial, err) < 0)
        goto fail;
    if (!ASN1_TIME_set(X509_getm_notBefore(x), (time_t)s->not_before) ||
        !ASN1_TIME_set(X509_getm_notAfter(x), (time_t)s->not_after) ||
        !X509_set_pubkey(x, s->key) || !set_subject(x, s->name) ||
        !X509_set_issuer_name(x, X509_get_subject_name(s->issuer ? s->issuer : x))) {
        tb_err_ssl(err, "certificate %s", cn);
        goto fail;
    }
    X509 *iss = s->issuer ? s->issuer : x;
    for (size_t i = 0; i < s->n_ext; i++)
        if (add_ext(x, iss, s->ext[i].nid, s->ext[i].value, err) < 0)
            goto fail;
    for (size_t i = 0; i < s->n_raw; i++)
        if (add_raw(x, &s->raw[i], err) < 0)
            goto fail;
    if (s->sign_ctx ? X509_sign_ctx(x, s->sign_ctx) <= 0
                    : !X509_sign(x, s->issuer_key, EVP_sha256())) {
        tb_err_ssl(err, "signing certificate %s", cn);
        goto fail;
    }
    return x;
fail:
    X509_free(x);
    return NULL;
}

static int crl_revoke(X509_CRL *c, X509 *revoked, ASN1_TIME *when)
{
    X509_REVOKED *r = X509_REVOKED_new();
    int ok = r && X509_REVOKED_set_serialNumber(r, X509_get_serialNumber(revoked)) &&
             X509_REVOKED_set_revocationDate(r, when) && X509_CRL_add0_revoked(c, r);
    if (!ok)
        X509_REVOKED_free(r);
    return ok;
}

int tb_x509_crl_make(const tb_x509_crl_spec *s, uint8_t **der, size_t *len, tb_err *err)
{
    X509_CRL *c = X509_CRL_new();
    ASN1_TIME *t1 = ASN1_TIME_set(NULL, (time_t)s->this_update);
    ASN1_TIME *t2 = ASN1_TIME_set(NULL, (time_t)s->next_update);
    int ok = c && t1 && t2 && X509_CRL_set_version(c, 1) &&
             X509_CRL_set_issuer_name(c, X509_get_subject_name(s->issuer)) &&
             X509_CRL_set1_lastUpdate(c, t1) && X509_CRL_set1_nextUpdate(c, t2) &&
             (!s->revoked || crl_revoke(c, s->revoked, t1)) && X509_CRL_sort(c) &&
             (s->sign_ctx ? X509_CRL_sign_ctx(c, s->sign_ctx) > 0
                          : X509_CRL_sign(c, s->issuer_key, EVP_sha256()) > 0);
    unsigned char *out = NULL;
    int n = ok ? i2d_X509_CRL(c, &out) : -1;
    ASN1_TIME_free(t1);
    ASN1_TIME_free(t2);
    X509_CRL_free(c);
    if (n <= 0)
        return tb_err_ssl(err, "making a CRL");
    *der = out;
    *len = (size_t)n;
    return 0;
}

int tb_x509_encode(X509 *cert, EVP_PKEY *key, int der, const char *what, tb_buf *out, tb_err *err)
{
    BIO *b = BIO_new(BIO_s_mem());
    if (!b || (cert && !der && !PEM_write_bio_X509(b, cert)) ||
        (cert && der && !i2d_X509_bio(b, cert)) ||
        (key && !PEM_write_bio_PrivateKey(b, key, NULL, NULL, 0, NULL, NULL))) {
        BIO_free(b);
        return tb_err_ssl(err, "cannot encode %s", what);
    }
    char *p;
    long n = BIO_get_mem_data(b, &p);
    int rc = tb_buf_append(out, p, (size_t)n) < 0 ? tb_errf(err, "out of memory") : 0;
    BIO_free(b);
    return rc;
}

int tb_x509_write_at(int dfd, const char *dir, const char *name, X509 *cert, EVP_PKEY *key, int der,
                     tb_err *err)
{
    tb_buf b = {0};
    int rc = tb_x509_encode(cert, key, der, name, &b, err);
    if (rc == 0)
        rc = tb_file_write_at(dfd, dir, name, b.p, b.len, key ? 0600 : 0644, err);
    tb_buf_clear(&b);
    return rc;
}

int tb_x509_read(const char *path, X509 **cert, EVP_PKEY **key, tb_err *err)
{
    if (cert)
        *cert = NULL;
    if (key)
        *key = NULL;
    tb_buf b = {0};
    if (tb_file_read(path, 1 << 16, &b, err) < 0)
        return -1;
    BIO *bio = BIO_new_mem_buf(b.p, (int)b.len);
    int ok = bio != NULL;
    if (ok && cert) {
        *cert = b.len && b.p[0] == 0x30 ? d2i_X509_bio(bio, NULL)
                                        : PEM_read_bio_X509(bio, NULL, NULL, NULL);
        ok = *cert != NULL;
    }
    if (ok && key)
        ok = (*key = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL)) != NULL;
    BIO_free(bio);
    tb_buf_clear(&b);
    return ok ? 0 : tb_err_ssl(err, "%s: bad certificate or key", path);
}
