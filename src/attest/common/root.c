/* attest/common/root: trusted roots (the built-in Intel SGX Root CA, PEM/DER files) and the
 * small helpers of the module: PEM chains (parsed, or as DER without parsing), CRL
 * encodings (DER, PEM, hex) and raw r||s ECDSA signing (the form Intel's quotes and
 * collateral use; the simulated provider signs with it).
 * Invariant: a tb_attest_root always holds one parsed certificate. */
#include "attest/internal.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/ecdsa.h>
#include <openssl/pem.h>

#include "base/buf.h"
#include "base/embed.h"
#include "base/file.h"
#include "base/hex.h"

/* The Intel SGX Root CA: data/roots/intel-sgx-root-ca.pem (the same bytes as
 * testdata/tdx/intel-sgx-root-ca.pem), embedded at build time (base/embed). */
TB_EMBED(tb_intel_root_pem, "data/roots/intel-sgx-root-ca.pem");

const char *tb_attest_intel_root_pem(size_t *len)
{
    *len = TB_EMBED_LEN(tb_intel_root_pem);
    return (const char *)tb_intel_root_pem_start;
}

int tb_attest_root_wrap(X509 *x, tb_attest_root **out, tb_err *err)
{
    tb_attest_root *r = calloc(1, sizeof *r);
    if (!r || !(r->group = tb_attest_p256_group_new())) {
        free(r);
        X509_free(x);
        return tb_errf(err, "out of memory");
    }
    r->cert = x;
    char cn[256] = "";
    X509_NAME_get_text_by_NID(X509_get_subject_name(x), NID_commonName, cn, sizeof cn);
    r->simulated = strstr(cn, "SIMULATED") != NULL;
    *out = r;
    return 0;
}

static int root_from_pem(const char *pem, size_t n, tb_attest_root **out, tb_err *err)
{
    *out = NULL;
    BIO *b = BIO_new_mem_buf(pem, (int)n);
    X509 *x = b ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;
    BIO_free(b);
    if (!x)
        return tb_err_ssl(err, "root CA: not a PEM certificate");
    return tb_attest_root_wrap(x, out, err);
}

int tb_attest_root_intel(tb_attest_root **out, tb_err *err)
{
    size_t n;
    const char *pem = tb_attest_intel_root_pem(&n);
    return root_from_pem(pem, n, out, err);
}

int tb_attest_root_load(const char *path, tb_attest_root **out, tb_err *err)
{
    tb_buf b = {0};
    *out = NULL;
    if (tb_file_read(path, 1 << 20, &b, err) < 0)
        return -1;
    int rc;
    if (b.len >= 10 && memmem(b.p, b.len, "-----BEGIN", 10)) {
        rc = root_from_pem((const char *)b.p, b.len, out, err);
    } else {
        const unsigned char *p = b.p;
        X509 *x = d2i_X509(NULL, &p, (long)b.len);
        rc = x ? tb_attest_root_wrap(x, out, err)
               : tb_errf(err, "root CA: neither PEM nor DER X.509");
    }
    tb_buf_clear(&b);
    if (rc < 0)
        tb_err_wrap(err, "%s", path);
    return rc;
}

void tb_attest_root_free(tb_attest_root *r)
{
    if (!r)
        return;
    X509_free(r->cert);
    tb_attest_p256_group_free(r->group);
    free(r);
}

void tb_attest_der_list_clear(tb_attest_der_list *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->der[i]);
    memset(l, 0, sizeof *l);
}

int tb_attest_pem_certs_to_der(const char *pem, size_t n, tb_attest_der_list *out, tb_err *err)
{
    static const char BEGIN[] = "-----BEGIN CERTIFICATE-----", END[] = "-----END CERTIFICATE-----";
    memset(out, 0, sizeof *out);
    const char *p = pem, *end = pem + n;
    for (;;) {
        const char *b = memmem(p, (size_t)(end - p), BEGIN, sizeof BEGIN - 1);
        if (!b)
            break;
        b += sizeof BEGIN - 1;
        const char *e = memmem(b, (size_t)(end - b), END, sizeof END - 1);
        if (!e) {
            tb_attest_der_list_clear(out);
            return tb_errf(err, "PEM certificate without an END line");
        }
        if (out->n == TB_ATTEST_DER_MAX) {
            tb_attest_der_list_clear(out);
            return tb_errf(err, "more than %d certificates", TB_ATTEST_DER_MAX);
        }
        size_t k = 0, blen = (size_t)(e - b);
        uint8_t *t = malloc(blen + 4), *d = malloc(blen / 4 * 3 + 4);
        if (!t || !d) {
            free(t);
            free(d);
            tb_attest_der_list_clear(out);
            return tb_errf(err, "out of memory");
        }
        for (const char *c = b; c < e; c++)
            if (*c != '\n' && *c != '\r' && *c != ' ' && *c != '\t')
                t[k++] = (uint8_t)*c;
        int m = k % 4 == 0 && k > 0 ? EVP_DecodeBlock(d, t, (int)k) : -1;
        if (m > 0) {
            if (t[k - 1] == '=')
                m--;
            if (t[k - 2] == '=')
                m--;
        }
        free(t);
        if (m <= 0) {
            free(d);
            tb_attest_der_list_clear(out);
            return tb_errf(err, "PEM certificate %d: bad base64", out->n + 1);
        }
        out->der[out->n] = d;
        out->len[out->n++] = (size_t)m;
        p = e + sizeof END - 1;
    }
    if (out->n == 0)
        return tb_errf(err, "no PEM certificate found");
    return 0;
}

int tb_attest_crl_to_der(const uint8_t *p, size_t n, uint8_t **der, size_t *derlen, tb_err *err)
{
    *der = NULL;
    *derlen = 0;
    if (n >= 10 && memmem(p, n, "-----BEGIN", 10)) {
        BIO *b = BIO_new_mem_buf(p, (int)n);
        X509_CRL *c = b ? PEM_read_bio_X509_CRL(b, NULL, NULL, NULL) : NULL;
        BIO_free(b);
        if (!c)
            return tb_err_ssl(err, "CRL: bad PEM");
        unsigned char *out = NULL;
        int len = i2d_X509_CRL(c, &out);
        X509_CRL_free(c);
        if (len <= 0)
            return tb_errf(err, "CRL: cannot re-encode");
        *der = out; /* OPENSSL_malloc'd == malloc with the default allocator */
        *derlen = (size_t)len;
        return 0;
    }
    *der = malloc(n ? n : 1);
    if (!*der)
        return tb_errf(err, "out of memory");
    /* hex when all of it decodes (one pass); else the bytes themselves (DER) */
    if (n > 0 && n % 2 == 0 && tb_hex_decode_upto((const char *)p, n, *der, n / 2) >= 0) {
        *derlen = n / 2;
    } else {
        memcpy(*der, p, n);
        *derlen = n;
    }
    return 0;
}

int tb_attest_ecdsa_sign_raw(EVP_PKEY *key, const void *data, size_t n, uint8_t sig[64])
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    unsigned char der[80];
    size_t derlen = sizeof der;
    int rc = -1;
    if (md && EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, key) == 1 &&
        EVP_DigestSign(md, der, &derlen, data, n) == 1) {
        const unsigned char *p = der;
        ECDSA_SIG *s = d2i_ECDSA_SIG(NULL, &p, (long)derlen);
        if (s) {
            const BIGNUM *r, *ss;
            ECDSA_SIG_get0(s, &r, &ss);
            if (BN_bn2binpad(r, sig, 32) == 32 && BN_bn2binpad(ss, sig + 32, 32) == 32)
                rc = 0;
            ECDSA_SIG_free(s);
        }
    }
    EVP_MD_CTX_free(md);
    return rc;
}
