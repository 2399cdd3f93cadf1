/* attest/tdx/collateral: the four pieces of DCAP collateral, loaded and saved.
 * All JSON is read with jsontok.c (strict, duplicate fields refused); jansson only
 * writes the dcap-qvl format.
 *
 * Formats:
 *  - dcap-qvl JSON: {"pck_crl_issuer_chain": PEM, "root_ca_crl": hex DER (or PEM),
 *    "pck_crl": hex DER (or PEM), "tcb_info_issuer_chain": PEM, "tcb_info": the signed
 *    JSON text, "tcb_info_signature": hex r||s, "qe_identity_issuer_chain": PEM,
 *    "qe_identity": JSON text, "qe_identity_signature": hex r||s}.
 *  - a folder of Intel PCS responses, with these names:
 *      tcb_info.json          {"tcbInfo": {...}, "signature": hex}  (as PCS sends it)
 *      qe_identity.json       {"enclaveIdentity": {...}, "signature": hex}
 *      pck_crl.der|.pem|.hex, root_ca_crl.der|.pem|.hex
 *      tcb_info_issuer_chain.pem, qe_identity_issuer_chain.pem, pck_crl_issuer_chain.pem
 *    The signed bytes are the exact byte span of the tcbInfo / enclaveIdentity value
 *    (a token's span in jsontok.c), never a re-serialization.
 * Invariant: a loaded tb_tdx_collateral has every field set (non-NULL, non-empty). */
#include "attest/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/file.h"
#include "base/hex.h"

#define COLLATERAL_MAX (8u << 20)

void tb_tdx_collateral_clear(tb_tdx_collateral *c)
{
    if (!c)
        return;
    free(c->pck_crl_issuer_chain);
    free(c->root_ca_crl);
    free(c->pck_crl);
    free(c->tcb_info_issuer_chain);
    free(c->tcb_info);
    free(c->qe_identity_issuer_chain);
    free(c->qe_identity);
    memset(c, 0, sizeof *c);
}

static char *dupn(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* The value token of a required top-level field. */
static int field(const tb_attest_jdoc *d, const char *key, tb_err *err)
{
    int k = tb_attest_jobj_get(d, 0, key);
    if (k == -2)
        return tb_errf(err, "duplicate \"%s\"", key);
    if (k < 0)
        return tb_errf(err, "missing \"%s\"", key);
    return k;
}

static int get_str(const tb_attest_jdoc *d, const char *key, char **out, size_t *len, tb_err *err)
{
    size_t n;
    int k = field(d, key, err);
    if (k < 0)
        return -1;
    if (d->t[k].type != TB_ATTEST_JSTR)
        return tb_errf(err, "\"%s\" is not a string", key);
    if (tb_attest_jstr_dup(d, k, out, &n) < 0)
        return tb_errf(err,
                       "\"%s\" has an escape that is no character (\\u0000 or a lone "
                       "surrogate)",
                       key);
    if (n == 0) {
        free(*out);
        *out = NULL;
        return tb_errf(err, "\"%s\" is empty", key);
    }
    if (len)
        *len = n;
    return 0;
}

/* A CRL: a string (hex DER or PEM) or, as some dcap-qvl versions write it, an array of
 * byte values. */
static int get_crl(const tb_attest_jdoc *d, const char *key, uint8_t **der, size_t *len,
                   tb_err *err)
{
    int k = field(d, key, err);
    if (k < 0)
        return -1;
    if (d->t[k].type == TB_ATTEST_JARR) {
        size_t n = d->t[k].count;
        if (n == 0)
            return tb_errf(err, "\"%s\" is empty", key);
        *der = malloc(n);
        if (!*der)
            return tb_errf(err, "out of memory");
        int e = k + 1;
        for (size_t i = 0; i < n; i++, e = (int)d->t[e].next) {
            long b;
            if (tb_attest_juint(d, e, 255, &b) < 0)
                return tb_errf(err, "\"%s\" has a non-byte element", key);
            (*der)[i] = (uint8_t)b;
        }
        *len = n;
        return 0;
    }
    char *s = NULL;
    size_t n;
    if (tb_attest_jstr_dup(d, k, &s, &n) < 0 || n == 0) {
        free(s);
        return tb_errf(err, "\"%s\" is not a CRL (hex, PEM or bytes)", key);
    }
    int rc = tb_attest_crl_to_der((const uint8_t *)s, n, der, len, err);
    free(s);
    return rc < 0 ? tb_err_wrap(err, "\"%s\"", key) : 0;
}

static int get_sig(const tb_attest_jdoc *d, int obj, const char *key, uint8_t sig[64], tb_err *err)
{
    const char *p;
    size_t n;
    int k = tb_attest_jobj_get(d, obj, key);
    if (k == -2)
        return tb_errf(err, "duplicate \"%s\"", key);
    if (tb_attest_jstr(d, k, &p, &n) < 0 || tb_hex_decode(p, n, sig, 64) < 0)
        return tb_errf(err, "\"%s\" is not 64 bytes of hex", key);
    return 0;
}

static int parse_doc(const char *text, size_t n, tb_attest_jdoc *d, tb_err *err)
{
    if (tb_attest_json_tokenize(text, n, d, err) < 0)
        return -1;
    if (d->t[0].type != TB_ATTEST_JOBJ) {
        tb_attest_json_clear(d);
        return tb_errf(err, "not a JSON object");
    }
    return 0;
}

int tb_tdx_collateral_parse_json(const char *text, size_t n, tb_tdx_collateral *c, tb_err *err)
{
    memset(c, 0, sizeof *c);
    tb_attest_jdoc d;
    if (parse_doc(text, n, &d, err) < 0)
        return -1;
    int rc = -1;
    if (get_str(&d, "pck_crl_issuer_chain", &c->pck_crl_issuer_chain, NULL, err) < 0 ||
        get_crl(&d, "root_ca_crl", &c->root_ca_crl, &c->root_ca_crl_len, err) < 0 ||
        get_crl(&d, "pck_crl", &c->pck_crl, &c->pck_crl_len, err) < 0 ||
        get_str(&d, "tcb_info_issuer_chain", &c->tcb_info_issuer_chain, NULL, err) < 0 ||
        get_str(&d, "tcb_info", &c->tcb_info, &c->tcb_info_len, err) < 0 ||
        get_str(&d, "qe_identity_issuer_chain", &c->qe_identity_issuer_chain, NULL, err) < 0 ||
        get_str(&d, "qe_identity", &c->qe_identity, &c->qe_identity_len, err) < 0)
        goto out;
    if (get_sig(&d, 0, "tcb_info_signature", c->tcb_info_sig, err) < 0 ||
        get_sig(&d, 0, "qe_identity_signature", c->qe_identity_sig, err) < 0)
        goto out;
    rc = 0;
out:
    tb_attest_json_clear(&d);
    if (rc < 0)
        tb_tdx_collateral_clear(c);
    return rc;
}

int tb_tdx_collateral_to_json(const tb_tdx_collateral *c, char **out, tb_err *err)
{
    *out = NULL;
    char *rc_hex = malloc(2 * c->root_ca_crl_len + 1), *pc_hex = malloc(2 * c->pck_crl_len + 1);
    char ts[129], qs[129];
    json_t *o = json_object();
    if (!rc_hex || !pc_hex || !o) {
        free(rc_hex);
        free(pc_hex);
        json_decref(o);
        return tb_errf(err, "out of memory");
    }
    tb_hex_encode(c->root_ca_crl, c->root_ca_crl_len, rc_hex);
    tb_hex_encode(c->pck_crl, c->pck_crl_len, pc_hex);
    tb_hex_encode(c->tcb_info_sig, 64, ts);
    tb_hex_encode(c->qe_identity_sig, 64, qs);
    json_object_set_new(o, "pck_crl_issuer_chain", json_string(c->pck_crl_issuer_chain));
    json_object_set_new(o, "root_ca_crl", json_string(rc_hex));
    json_object_set_new(o, "pck_crl", json_string(pc_hex));
    json_object_set_new(o, "tcb_info_issuer_chain", json_string(c->tcb_info_issuer_chain));
    json_object_set_new(o, "tcb_info", json_stringn(c->tcb_info, c->tcb_info_len));
    json_object_set_new(o, "tcb_info_signature", json_string(ts));
    json_object_set_new(o, "qe_identity_issuer_chain", json_string(c->qe_identity_issuer_chain));
    json_object_set_new(o, "qe_identity", json_stringn(c->qe_identity, c->qe_identity_len));
    json_object_set_new(o, "qe_identity_signature", json_string(qs));
    free(rc_hex);
    free(pc_hex);
    *out = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!*out)
        return tb_errf(err, "collateral: cannot serialize (bad UTF-8 in a field?)");
    return 0;
}

/* A PCS response body {"<key>": {...}, "signature": hex} -> the exact bytes of the
 * value of key (a span of the input: the signature covers those bytes) + signature. */
static int pcs_body(const char *text, size_t n, const char *key, char **body, size_t *bodylen,
                    uint8_t sig[64], tb_err *err)
{
    tb_attest_jdoc d;
    if (parse_doc(text, n, &d, err) < 0)
        return -1;
    int k = tb_attest_jobj_get(&d, 0, key), rc = -1;
    if (k == -2)
        tb_errf(err, "duplicate \"%s\"", key);
    else if (k < 0 || d.t[k].type != TB_ATTEST_JOBJ)
        tb_errf(err, "no top-level \"%s\" object", key);
    else if (get_sig(&d, 0, "signature", sig, err) == 0) {
        *bodylen = d.t[k].end - d.t[k].start;
        *body = dupn(text + d.t[k].start, *bodylen);
        rc = *body ? 0 : tb_errf(err, "out of memory");
    }
    tb_attest_json_clear(&d);
    return rc;
}

int tb_tdx_collateral_from_pcs(const char *tcb_resp, size_t tcb_len, const char *qe_resp,
                               size_t qe_len, tb_tdx_collateral *c, tb_err *err)
{
    if (pcs_body(tcb_resp, tcb_len, "tcbInfo", &c->tcb_info, &c->tcb_info_len, c->tcb_info_sig,
                 err) < 0)
        return tb_err_wrap(err, "TCB info response");
    if (pcs_body(qe_resp, qe_len, "enclaveIdentity", &c->qe_identity, &c->qe_identity_len,
                 c->qe_identity_sig, err) < 0)
        return tb_err_wrap(err, "QE identity response");
    return 0;
}

/* ------------------------------------------------------------------ folder */

static int read_piece(const char *dir, const char *name, tb_buf *b, tb_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return tb_file_read(path, COLLATERAL_MAX, b, err);
}

static int read_text(const char *dir, const char *name, char **out, tb_err *err)
{
    tb_buf b = {0};
    if (read_piece(dir, name, &b, err) < 0)
        return -1;
    *out = dupn((const char *)b.p, b.len);
    tb_buf_clear(&b);
    return *out ? 0 : tb_errf(err, "out of memory");
}

static int read_crl(const char *dir, const char *base, uint8_t **der, size_t *len, tb_err *err)
{
    static const char *const ext[] = {".der", ".pem", ".hex", ".crl"};
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
        char name[256], path[4096];
        snprintf(name, sizeof name, "%s%s", base, ext[i]);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        struct stat st;
        if (stat(path, &st) < 0)
            continue;
        tb_buf b = {0};
        if (read_piece(dir, name, &b, err) < 0)
            return -1;
        size_t n = b.len;
        while (i == 2 && n && (b.p[n - 1] == '\n' || b.p[n - 1] == '\r'))
            n--;
        int rc = tb_attest_crl_to_der(b.p, n, der, len, err);
        tb_buf_clear(&b);
        return rc < 0 ? tb_err_wrap(err, "%s", path) : 0;
    }
    return tb_errf(err, "%s: no %s.der, .pem or .hex", dir, base);
}

static int load_folder(const char *dir, tb_tdx_collateral *c, tb_err *err)
{
    tb_buf tcb = {0}, qe = {0};
    int rc = -1;
    if (read_piece(dir, "tcb_info.json", &tcb, err) < 0 ||
        read_piece(dir, "qe_identity.json", &qe, err) < 0)
        goto out;
    if (tb_tdx_collateral_from_pcs((const char *)tcb.p, tcb.len, (const char *)qe.p, qe.len, c,
                                   err) < 0)
        goto out;
    if (read_crl(dir, "pck_crl", &c->pck_crl, &c->pck_crl_len, err) < 0 ||
        read_crl(dir, "root_ca_crl", &c->root_ca_crl, &c->root_ca_crl_len, err) < 0 ||
        read_text(dir, "tcb_info_issuer_chain.pem", &c->tcb_info_issuer_chain, err) < 0 ||
        read_text(dir, "qe_identity_issuer_chain.pem", &c->qe_identity_issuer_chain, err) < 0 ||
        read_text(dir, "pck_crl_issuer_chain.pem", &c->pck_crl_issuer_chain, err) < 0)
        goto out;
    rc = 0;
out:
    tb_buf_clear(&tcb);
    tb_buf_clear(&qe);
    return rc;
}

int tb_tdx_collateral_load(const char *path, tb_tdx_collateral *c, tb_err *err)
{
    memset(c, 0, sizeof *c);
    struct stat st;
    if (stat(path, &st) < 0)
        return tb_errno(err, "%s", path);
    if (S_ISDIR(st.st_mode)) {
        if (load_folder(path, c, err) < 0) {
            tb_tdx_collateral_clear(c);
            return -1;
        }
        return 0;
    }
    tb_buf b = {0};
    if (tb_file_read(path, COLLATERAL_MAX, &b, err) < 0)
        return -1;
    int rc = tb_tdx_collateral_parse_json((const char *)b.p, b.len, c, err);
    tb_buf_clear(&b);
    if (rc < 0)
        tb_err_wrap(err, "%s", path);
    return rc;
}

static int crl_next(const uint8_t *der, size_t n, int64_t *next)
{
    tb_attest_crl crl;
    if (tb_attest_crl_parse(der, n, &crl, NULL) < 0)
        return -1;
    *next = crl.next_update;
    return 0;
}

/* The "nextUpdate" of a signed JSON body. */
static int json_next(const char *text, size_t n, int64_t *next)
{
    tb_attest_jdoc d;
    if (parse_doc(text, n, &d, NULL) < 0)
        return -1;
    const char *p;
    size_t len;
    char buf[40];
    int rc = -1;
    if (tb_attest_jstr(&d, tb_attest_jobj_get(&d, 0, "nextUpdate"), &p, &len) == 0 &&
        len < sizeof buf) {
        memcpy(buf, p, len);
        buf[len] = '\0';
        rc = tb_tdx_iso8601_parse(buf, next);
    }
    tb_attest_json_clear(&d);
    return rc;
}

int tb_tdx_collateral_next_update(const tb_tdx_collateral *c, int64_t *next, tb_err *err)
{
    int64_t t[4];
    if (json_next(c->tcb_info, c->tcb_info_len, &t[0]) < 0 ||
        json_next(c->qe_identity, c->qe_identity_len, &t[1]) < 0)
        return tb_errf(err, "collateral: no nextUpdate in TCB info or QE identity");
    if (crl_next(c->root_ca_crl, c->root_ca_crl_len, &t[2]) < 0 ||
        crl_next(c->pck_crl, c->pck_crl_len, &t[3]) < 0)
        return tb_errf(err, "collateral: a CRL has no nextUpdate");
    *next = t[0];
    for (int i = 1; i < 4; i++)
        if (t[i] < *next)
            *next = t[i];
    return 0;
}
