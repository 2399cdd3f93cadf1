/* notary/doc: encoder, strict decoder, signature and chain checks of the
 * attestation document (format in doc.h). Invariant: tb_notary_doc_decode accepts a
 * byte string only if tb_notary_doc_encode_sign could have produced it (same order,
 * same ranges, no trailing bytes), so decode(encode(d)) == d and re-encoding a
 * decoded document gives back the same bytes. */
#include "notary/doc.h"

#include <string.h>

#include <openssl/err.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include "base/bytes.h"
#include "notary/internal.h"

enum {
    T_SESSION = 0x01,
    T_TIME = 0x02,
    T_SERVER = 0x03,
    T_HOST = 0x04,
    T_PORT = 0x05,
    T_TEE = 0x06,
    T_NONCE = 0x07,
    T_KEY = 0x08,
    T_CERT = 0x09,
    T_REQUEST = 0x0A,
    T_RESPONSE = 0x0B,
    T_SIG = 0x7F,
};

#define MAX_SIG 80 /* a DER ECDSA P-256 signature is at most 72 bytes */

static int printable(tb_notary_view v)
{
    for (size_t i = 0; i < v.len; i++)
        if (v.p[i] < 0x21 || v.p[i] > 0x7e)
            return 0;
    return 1;
}

static int tee_known(tb_notary_view v)
{
    char name[16];
    tb_tee t;
    if (v.len >= sizeof name || memchr(v.p, 0, v.len))
        return 0;
    memcpy(name, v.p, v.len);
    name[v.len] = '\0';
    return tb_tee_parse(name, &t) == 0;
}

/* Range checks shared by the encoder and the decoder. */
static int validate(const tb_notary_doc *d, tb_err *err)
{
    if (d->server_name.len < 1 || d->server_name.len > TB_NOTARY_DOC_MAX_NAME ||
        !printable(d->server_name))
        return tb_errf(err, "server name: must be 1..%d printable ASCII bytes",
                       TB_NOTARY_DOC_MAX_NAME);
    if (d->target_host.len < 1 || d->target_host.len > TB_NOTARY_DOC_MAX_NAME ||
        !printable(d->target_host))
        return tb_errf(err, "target host: must be 1..%d printable ASCII bytes",
                       TB_NOTARY_DOC_MAX_NAME);
    if (d->target_port == 0)
        return tb_errf(err, "target port: must be 1..65535");
    if (!tee_known(d->tee))
        return tb_errf(err, "tee: must be none, tdx, sim, snp or sim-snp");
    if (d->nonce.len > TB_NOTARY_DOC_MAX_NONCE)
        return tb_errf(err, "nonce: longer than %d bytes", TB_NOTARY_DOC_MAX_NONCE);
    if (d->notary_key.len < 1 || d->notary_key.len > TB_NOTARY_DOC_MAX_KEY)
        return tb_errf(err, "notary key: must be 1..%d bytes", TB_NOTARY_DOC_MAX_KEY);
    if (d->n_certs < 1 || d->n_certs > TB_NOTARY_DOC_MAX_CERTS)
        return tb_errf(err, "certificate chain: must hold 1..%d certificates",
                       TB_NOTARY_DOC_MAX_CERTS);
    for (size_t i = 0; i < d->n_certs; i++)
        if (d->certs[i].len < 1 || d->certs[i].len > TB_NOTARY_DOC_MAX_CERT)
            return tb_errf(err, "certificate %zu: must be 1..%d bytes", i, TB_NOTARY_DOC_MAX_CERT);
    if (d->request.len > TB_NOTARY_DOC_MAX_DATA || d->response.len > TB_NOTARY_DOC_MAX_DATA)
        return tb_errf(err, "request/response: larger than %u bytes", TB_NOTARY_DOC_MAX_DATA);
    return 0;
}

static int put_field(tb_buf *out, uint8_t tag, const void *p, size_t len)
{
    uint8_t h[5] = {tag};
    tb_wr_be32(h + 1, (uint32_t)len);
    return tb_buf_append(out, h, 5) | tb_buf_append(out, p, len);
}

int tb_notary_doc_encode_sign(const tb_notary_doc *d, const tb_notary_key *key, tb_buf *out,
                              tb_err *err)
{
    if (validate(d, err) < 0)
        return tb_err_wrap(err, "attestation document");
    if (d->notary_key.len != key->spki.len || memcmp(d->notary_key.p, key->spki.p, key->spki.len))
        return tb_errf(err, "attestation document: notary key field is not the signing key");
    size_t start = out->len;
    uint8_t t[8], port[2];
    tb_wr_be16(port, d->target_port);
    uint8_t ver[2] = {0, TB_NOTARY_DOC_VERSION};
    tb_wr_be64(t, d->time_ms);
    int rc = tb_buf_append(out, TB_NOTARY_DOC_MAGIC, 4) | tb_buf_append(out, ver, 2) |
             put_field(out, T_SESSION, d->session_id, 16) | put_field(out, T_TIME, t, 8) |
             put_field(out, T_SERVER, d->server_name.p, d->server_name.len) |
             put_field(out, T_HOST, d->target_host.p, d->target_host.len) |
             put_field(out, T_PORT, port, 2) | put_field(out, T_TEE, d->tee.p, d->tee.len) |
             put_field(out, T_NONCE, d->nonce.p, d->nonce.len) |
             put_field(out, T_KEY, d->notary_key.p, d->notary_key.len);
    for (size_t i = 0; i < d->n_certs; i++)
        rc |= put_field(out, T_CERT, d->certs[i].p, d->certs[i].len);
    rc |= put_field(out, T_REQUEST, d->request.p, d->request.len) |
          put_field(out, T_RESPONSE, d->response.p, d->response.len);
    if (rc) {
        out->len = start;
        return tb_errf(err, "attestation document: out of memory");
    }
    tb_buf sig = {0};
    if (tb_notary_sign(key, out->p + start, out->len - start, &sig, err) < 0 ||
        put_field(out, T_SIG, sig.p, sig.len) < 0) {
        tb_buf_clear(&sig);
        out->len = start;
        return tb_err_wrap(err, "attestation document");
    }
    tb_buf_clear(&sig);
    return 0;
}

/* A cursor over the document bytes. */
typedef struct rd {
    const uint8_t *p;
    size_t len, off;
} rd;

/* Reads the next field, which must carry tag `want` and a length in [min, max]. */
static int get_field(rd *r, uint8_t want, size_t min, size_t max, tb_notary_view *v,
                     const char *what, tb_err *err)
{
    if (r->len - r->off < 5)
        return tb_errf(err, "truncated before the %s field (offset %zu)", what, r->off);
    const uint8_t *h = r->p + r->off;
    if (h[0] != want)
        return tb_errf(err, "expected the %s field (tag 0x%02x) at offset %zu, found tag 0x%02x",
                       what, want, r->off, h[0]);
    size_t n = tb_rd_be32(h + 1);
    if (n < min || n > max)
        return tb_errf(err, "%s field: length %zu outside %zu..%zu", what, n, min, max);
    if (r->len - r->off - 5 < n)
        return tb_errf(err, "%s field: truncated (needs %zu bytes, %zu left)", what, n,
                       r->len - r->off - 5);
    v->p = h + 5;
    v->len = n;
    r->off += 5 + n;
    return 0;
}

static int peek_tag(const rd *r)
{
    return r->off < r->len ? r->p[r->off] : -1;
}

int tb_notary_doc_decode(const uint8_t *p, size_t len, tb_notary_doc *d, tb_err *err)
{
    memset(d, 0, sizeof *d);
    if (len > TB_NOTARY_DOC_MAX_SIZE)
        return tb_errf(err, "attestation document: larger than %u bytes", TB_NOTARY_DOC_MAX_SIZE);
    if (len < 6 || memcmp(p, TB_NOTARY_DOC_MAGIC, 4))
        return tb_errf(err, "attestation document: bad magic (not a teebench notary document)");
    d->version = (uint16_t)(p[4] << 8 | p[5]);
    if (d->version != TB_NOTARY_DOC_VERSION)
        return tb_errf(err, "attestation document: unsupported format version %u (want %d)",
                       d->version, TB_NOTARY_DOC_VERSION);
    rd r = {p, len, 6};
    tb_notary_view v;
    if (get_field(&r, T_SESSION, 16, 16, &v, "session id", err) < 0)
        goto bad;
    memcpy(d->session_id, v.p, 16);
    if (get_field(&r, T_TIME, 8, 8, &v, "time", err) < 0)
        goto bad;
    for (int i = 0; i < 8; i++)
        d->time_ms = d->time_ms << 8 | v.p[i];
    if (get_field(&r, T_SERVER, 1, TB_NOTARY_DOC_MAX_NAME, &d->server_name, "server name", err) <
            0 ||
        get_field(&r, T_HOST, 1, TB_NOTARY_DOC_MAX_NAME, &d->target_host, "target host", err) < 0 ||
        get_field(&r, T_PORT, 2, 2, &v, "target port", err) < 0)
        goto bad;
    d->target_port = (uint16_t)(v.p[0] << 8 | v.p[1]);
    if (get_field(&r, T_TEE, 3, TB_NOTARY_DOC_MAX_TEE, &d->tee, "tee", err) < 0 ||
        get_field(&r, T_NONCE, 0, TB_NOTARY_DOC_MAX_NONCE, &d->nonce, "nonce", err) < 0 ||
        get_field(&r, T_KEY, 1, TB_NOTARY_DOC_MAX_KEY, &d->notary_key, "notary key", err) < 0)
        goto bad;
    while (peek_tag(&r) == T_CERT) {
        if (d->n_certs == TB_NOTARY_DOC_MAX_CERTS) {
            tb_errf(err, "more than %d certificates", TB_NOTARY_DOC_MAX_CERTS);
            goto bad;
        }
        if (get_field(&r, T_CERT, 1, TB_NOTARY_DOC_MAX_CERT, &d->certs[d->n_certs], "certificate",
                      err) < 0)
            goto bad;
        d->n_certs++;
    }
    if (get_field(&r, T_REQUEST, 0, TB_NOTARY_DOC_MAX_DATA, &d->request, "request", err) < 0 ||
        get_field(&r, T_RESPONSE, 0, TB_NOTARY_DOC_MAX_DATA, &d->response, "response", err) < 0)
        goto bad;
    d->signed_len = r.off;
    if (get_field(&r, T_SIG, 8, MAX_SIG, &d->signature, "signature", err) < 0)
        goto bad;
    if (r.off != len) {
        tb_errf(err, "%zu unexpected bytes after the signature", len - r.off);
        goto bad;
    }
    if (validate(d, err) < 0)
        goto bad;
    return 0;
bad:
    return tb_err_wrap(err, "attestation document");
}

int tb_notary_doc_verify(const uint8_t *p, size_t len, tb_notary_doc *d, tb_err *err)
{
    if (tb_notary_doc_decode(p, len, d, err) < 0)
        return -1;
    if (tb_notary_verify_sig(d->notary_key.p, d->notary_key.len, p, d->signed_len, d->signature.p,
                             d->signature.len, err) < 0)
        return tb_err_wrap(err, "attestation document");
    return 0;
}

int tb_notary_doc_verify_chain(const tb_notary_doc *d, X509_STORE *store, tb_err *err)
{
    STACK_OF(X509) *chain = sk_X509_new_null();
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    X509 *leaf = NULL;
    int rc = -1;
    if (!chain || !ctx) {
        tb_errf(err, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < d->n_certs; i++) {
        const unsigned char *q = d->certs[i].p;
        X509 *x = d2i_X509(NULL, &q, (long)d->certs[i].len);
        if (!x || q != d->certs[i].p + d->certs[i].len) {
            X509_free(x);
            tb_err_ssl(err, "server certificate %zu: not DER X.509", i);
            goto out;
        }
        if (i == 0)
            leaf = x;
        else if (!sk_X509_push(chain, x)) {
            X509_free(x);
            tb_errf(err, "out of memory");
            goto out;
        }
    }
    char name[TB_NOTARY_DOC_MAX_NAME + 1];
    tb_notary_view_str(d->server_name, name, sizeof name);
    if (!X509_STORE_CTX_init(ctx, store, leaf, chain)) {
        tb_err_ssl(err, "certificate check setup");
        goto out;
    }
    X509_VERIFY_PARAM *param = X509_STORE_CTX_get0_param(ctx);
    X509_VERIFY_PARAM_set_time(param, (time_t)(d->time_ms / 1000));
    X509_VERIFY_PARAM_set_purpose(param, X509_PURPOSE_SSL_SERVER);
    if (!X509_VERIFY_PARAM_set1_host(param, name, 0)) {
        tb_err_ssl(err, "certificate check setup");
        goto out;
    }
    if (X509_verify_cert(ctx) != 1) {
        int e = X509_STORE_CTX_get_error(ctx);
        tb_errf(err, "server certificate chain for %s: %s", name, X509_verify_cert_error_string(e));
        ERR_clear_error();
        goto out;
    }
    rc = 0;
out:
    X509_STORE_CTX_free(ctx);
    X509_free(leaf);
    sk_X509_pop_free(chain, X509_free);
    return rc;
}

void tb_notary_view_str(tb_notary_view v, char *out, size_t cap)
{
    size_t n = v.len < cap - 1 ? v.len : cap - 1;
    memcpy(out, v.p, n);
    out[n] = 0;
}
