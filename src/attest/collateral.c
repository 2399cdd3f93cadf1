/* attest/collateral: the four pieces of DCAP collateral, loaded and saved.
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
 *    (tb_attest_json_value_span), never a re-serialization.
 * Invariant: a loaded tb_attest_collateral has every field set (non-NULL, non-empty). */
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

void tb_attest_collateral_clear(tb_attest_collateral *c)
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

static int get_str(json_t *o, const char *key, char **out, size_t *len, tb_err *err)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_string(v) || json_string_length(v) == 0)
        return tb_errf(err, "collateral: missing \"%s\"", key);
    *out = dupn(json_string_value(v), json_string_length(v));
    if (!*out)
        return tb_errf(err, "out of memory");
    if (len)
        *len = json_string_length(v);
    return 0;
}

static int get_crl(json_t *o, const char *key, uint8_t **der, size_t *len, tb_err *err)
{
    json_t *v = json_object_get(o, key);
    if (json_is_array(v)) { /* some dcap-qvl versions: an array of byte values */
        size_t n = json_array_size(v);
        *der = malloc(n ? n : 1);
        if (!*der)
            return tb_errf(err, "out of memory");
        for (size_t i = 0; i < n; i++) {
            json_int_t b = json_integer_value(json_array_get(v, i));
            if (!json_is_integer(json_array_get(v, i)) || b < 0 || b > 255)
                return tb_errf(err, "collateral: \"%s\" has a non-byte element", key);
            (*der)[i] = (uint8_t)b;
        }
        *len = n;
        return n ? 0 : tb_errf(err, "collateral: \"%s\" is empty", key);
    }
    if (!json_is_string(v) || json_string_length(v) == 0)
        return tb_errf(err, "collateral: missing \"%s\"", key);
    if (tb_attest_crl_to_der((const uint8_t *)json_string_value(v), json_string_length(v), der, len,
                             err) < 0)
        return tb_err_wrap(err, "collateral: \"%s\"", key);
    return 0;
}

static int get_sig(json_t *o, const char *key, uint8_t sig[64], tb_err *err)
{
    const char *s = json_string_value(json_object_get(o, key));
    if (!s || tb_hex_decode(s, strlen(s), sig, 64) < 0)
        return tb_errf(err, "collateral: \"%s\" is not 64 bytes of hex", key);
    return 0;
}

static int parse_json_jansson(const char *text, size_t n, tb_attest_collateral *c, tb_err *err)
{
    memset(c, 0, sizeof *c);
    json_error_t je;
    json_t *o = json_loadb(text, n, 0, &je);
    if (!json_is_object(o)) {
        json_decref(o);
        return tb_errf(err, "collateral: not a JSON object (line %d: %s)", je.line, je.text);
    }
    int rc = -1;
    if (get_str(o, "pck_crl_issuer_chain", &c->pck_crl_issuer_chain, NULL, err) < 0 ||
        get_crl(o, "root_ca_crl", &c->root_ca_crl, &c->root_ca_crl_len, err) < 0 ||
        get_crl(o, "pck_crl", &c->pck_crl, &c->pck_crl_len, err) < 0 ||
        get_str(o, "tcb_info_issuer_chain", &c->tcb_info_issuer_chain, NULL, err) < 0 ||
        get_str(o, "tcb_info", &c->tcb_info, &c->tcb_info_len, err) < 0 ||
        get_sig(o, "tcb_info_signature", c->tcb_info_sig, err) < 0 ||
        get_str(o, "qe_identity_issuer_chain", &c->qe_identity_issuer_chain, NULL, err) < 0 ||
        get_str(o, "qe_identity", &c->qe_identity, &c->qe_identity_len, err) < 0 ||
        get_sig(o, "qe_identity_signature", c->qe_identity_sig, err) < 0)
        goto out;
    rc = 0;
out:
    json_decref(o);
    if (rc < 0)
        tb_attest_collateral_clear(c);
    return rc;
}

/* ------------------------------------------------- the fast path (no DOM) */

static size_t skip_ws(const char *s, size_t n, size_t i);
static size_t skip_string(const char *s, size_t n, size_t i);
static size_t skip_value(const char *s, size_t n, size_t i);

/* Decodes the JSON string at s[i] == '"' into a new buffer (memchr-driven: the long
 * PEM and hex values have few escapes). Returns the index after the closing quote, or 0
 * when the string is malformed or uses an escape this decoder leaves to jansson
 * (\\uXXXX): the caller then falls back to jansson. Raw control characters inside the
 * string are not rejected here (only the signature over the decoded bytes matters). */
static size_t decode_string(const char *s, size_t n, size_t i, char **out, size_t *outlen)
{
    size_t start = ++i, end;
    for (;;) { /* the closing quote: one not preceded by an odd number of backslashes */
        const char *q = i < n ? memchr(s + i, '"', n - i) : NULL;
        if (!q)
            return 0;
        end = (size_t)(q - s);
        size_t bs = 0;
        while (end - bs > start && s[end - bs - 1] == '\\')
            bs++;
        if (bs % 2 == 0)
            break;
        i = end + 1;
    }
    char *d = malloc(end - start + 1);
    if (!d)
        return 0;
    size_t k = 0;
    for (i = start; i < end;) {
        const char *bsl = memchr(s + i, '\\', end - i);
        size_t seg = bsl ? (size_t)(bsl - (s + i)) : end - i;
        memcpy(d + k, s + i, seg);
        k += seg;
        i += seg;
        if (i >= end)
            break;
        char e = s[i + 1], c;
        switch (e) {
        case '"':
            c = '"';
            break;
        case '\\':
            c = '\\';
            break;
        case '/':
            c = '/';
            break;
        case 'b':
            c = '\b';
            break;
        case 'f':
            c = '\f';
            break;
        case 'n':
            c = '\n';
            break;
        case 'r':
            c = '\r';
            break;
        case 't':
            c = '\t';
            break;
        default:
            free(d);
            return 0; /* \\uXXXX and anything else: jansson decides */
        }
        d[k++] = c;
        i += 2;
    }
    d[k] = '\0';
    *out = d;
    *outlen = k;
    return end + 1;
}

static const char *const FIELDS[] = {
    "pck_crl_issuer_chain",     "root_ca_crl", "pck_crl",
    "tcb_info_issuer_chain",    "tcb_info",    "tcb_info_signature",
    "qe_identity_issuer_chain", "qe_identity", "qe_identity_signature"};
#define NFIELDS (sizeof FIELDS / sizeof FIELDS[0])

/* One pass over the top-level object: every value of the nine fields must be a string.
 * Returns 0 with vals[] filled, or -1 (the caller then uses jansson, which also
 * produces the error message). */
static int fast_scan(const char *s, size_t n, char *vals[NFIELDS], size_t lens[NFIELDS])
{
    size_t i = skip_ws(s, n, 0);
    if (i >= n || s[i] != '{')
        return -1;
    i = skip_ws(s, n, i + 1);
    if (i < n && s[i] == '}')
        return -1;
    for (;;) {
        if (i >= n || s[i] != '"')
            return -1;
        size_t kend = skip_string(s, n, i);
        if (!kend)
            return -1;
        const char *key = s + i + 1;
        size_t klen = kend - i - 2;
        i = skip_ws(s, n, kend);
        if (i >= n || s[i] != ':')
            return -1;
        i = skip_ws(s, n, i + 1);
        int f = -1;
        for (size_t k = 0; k < NFIELDS; k++)
            if (strlen(FIELDS[k]) == klen && !memcmp(FIELDS[k], key, klen))
                f = (int)k;
        size_t vend;
        if (f >= 0) {
            if (i >= n || s[i] != '"' || vals[f]) /* not a string, or a duplicate */
                return -1;
            vend = decode_string(s, n, i, &vals[f], &lens[f]);
        } else {
            vend = skip_value(s, n, i);
        }
        if (!vend || vend == i)
            return -1;
        i = skip_ws(s, n, vend);
        if (i < n && s[i] == ',') {
            i = skip_ws(s, n, i + 1);
            continue;
        }
        if (i < n && s[i] == '}' && skip_ws(s, n, i + 1) == n)
            break;
        return -1;
    }
    for (size_t k = 0; k < NFIELDS; k++)
        if (!vals[k] || lens[k] == 0)
            return -1;
    return 0;
}

int tb_attest_collateral_parse_json(const char *text, size_t n, tb_attest_collateral *c,
                                    tb_err *err)
{
    char *v[NFIELDS] = {0};
    size_t l[NFIELDS] = {0};
    memset(c, 0, sizeof *c);
    int ok =
        fast_scan(text, n, v, l) == 0 && tb_hex_decode(v[5], l[5], c->tcb_info_sig, 64) == 0 &&
        tb_hex_decode(v[8], l[8], c->qe_identity_sig, 64) == 0 &&
        tb_attest_crl_to_der((const uint8_t *)v[1], l[1], &c->root_ca_crl, &c->root_ca_crl_len,
                             NULL) == 0 &&
        tb_attest_crl_to_der((const uint8_t *)v[2], l[2], &c->pck_crl, &c->pck_crl_len, NULL) == 0;
    if (ok) {
        c->pck_crl_issuer_chain = v[0];
        c->tcb_info_issuer_chain = v[3];
        c->tcb_info = v[4];
        c->tcb_info_len = l[4];
        c->qe_identity_issuer_chain = v[6];
        c->qe_identity = v[7];
        c->qe_identity_len = l[7];
        v[0] = v[3] = v[4] = v[6] = v[7] = NULL;
    }
    for (size_t k = 0; k < NFIELDS; k++)
        free(v[k]);
    if (ok)
        return 0;
    tb_attest_collateral_clear(c);
    return parse_json_jansson(text, n, c, err); /* the reference path, with its errors */
}

int tb_attest_collateral_to_json(const tb_attest_collateral *c, char **out, tb_err *err)
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

/* ------------------------------------------------------ raw JSON value spans */

static size_t skip_ws(const char *s, size_t n, size_t i)
{
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    return i;
}

/* Skips a JSON string starting at s[i] == '"'; returns the index after it or 0. */
static size_t skip_string(const char *s, size_t n, size_t i)
{
    for (i++; i < n; i++) {
        if (s[i] == '\\')
            i++;
        else if (s[i] == '"')
            return i + 1;
    }
    return 0;
}

/* Skips any JSON value at s[i]; returns the index after it or 0 when malformed. */
static size_t skip_value(const char *s, size_t n, size_t i)
{
    if (i >= n)
        return 0;
    if (s[i] == '"')
        return skip_string(s, n, i);
    if (s[i] == '{' || s[i] == '[') {
        int depth = 0;
        for (; i < n; i++) {
            if (s[i] == '"') {
                size_t j = skip_string(s, n, i);
                if (!j)
                    return 0;
                i = j - 1;
            } else if (s[i] == '{' || s[i] == '[') {
                if (++depth > 64)
                    return 0;
            } else if (s[i] == '}' || s[i] == ']') {
                if (--depth == 0)
                    return i + 1;
            }
        }
        return 0;
    }
    while (i < n && !strchr(",}] \t\r\n", s[i]))
        i++;
    return i;
}

int tb_attest_json_value_span(const char *s, size_t n, const char *key, size_t *off, size_t *len,
                              tb_err *err)
{
    size_t klen = strlen(key), i = skip_ws(s, n, 0);
    if (i >= n || s[i] != '{')
        return tb_errf(err, "not a JSON object");
    i++;
    for (;;) {
        i = skip_ws(s, n, i);
        if (i >= n || s[i] != '"')
            break;
        size_t kend = skip_string(s, n, i);
        if (!kend)
            break;
        int match = kend - i - 2 == klen && !memcmp(s + i + 1, key, klen);
        i = skip_ws(s, n, kend);
        if (i >= n || s[i] != ':')
            break;
        i = skip_ws(s, n, i + 1);
        size_t vend = skip_value(s, n, i);
        if (!vend || vend == i)
            break;
        if (match) {
            *off = i;
            *len = vend - i;
            return 0;
        }
        i = skip_ws(s, n, vend);
        if (i < n && s[i] == ',') {
            i++;
            continue;
        }
        break;
    }
    return tb_errf(err, "no top-level \"%s\" value", key);
}

/* A PCS response body {"<key>": {...}, "signature": hex} -> exact bytes + signature. */
static int pcs_body(const char *text, size_t n, const char *key, char **body, size_t *bodylen,
                    uint8_t sig[64], tb_err *err)
{
    size_t off, len;
    if (tb_attest_json_value_span(text, n, key, &off, &len, err) < 0)
        return -1;
    json_error_t je;
    json_t *o = json_loadb(text, n, 0, &je);
    if (!json_is_object(o)) {
        json_decref(o);
        return tb_errf(err, "not JSON: %s", je.text);
    }
    int rc = get_sig(o, "signature", sig, err);
    json_decref(o);
    if (rc < 0)
        return -1;
    *body = dupn(text + off, len);
    if (!*body)
        return tb_errf(err, "out of memory");
    *bodylen = len;
    return 0;
}

int tb_attest_collateral_from_pcs(const char *tcb_resp, size_t tcb_len, const char *qe_resp,
                                  size_t qe_len, tb_attest_collateral *c, tb_err *err)
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
    tb_buf_free(&b);
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
        tb_buf_free(&b);
        return rc < 0 ? tb_err_wrap(err, "%s", path) : 0;
    }
    return tb_errf(err, "%s: no %s.der, .pem or .hex", dir, base);
}

static int load_folder(const char *dir, tb_attest_collateral *c, tb_err *err)
{
    tb_buf tcb = {0}, qe = {0};
    int rc = -1;
    if (read_piece(dir, "tcb_info.json", &tcb, err) < 0 ||
        read_piece(dir, "qe_identity.json", &qe, err) < 0)
        goto out;
    if (tb_attest_collateral_from_pcs((const char *)tcb.p, tcb.len, (const char *)qe.p, qe.len, c,
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
    tb_buf_free(&tcb);
    tb_buf_free(&qe);
    return rc;
}

int tb_attest_collateral_load(const char *path, tb_attest_collateral *c, tb_err *err)
{
    memset(c, 0, sizeof *c);
    struct stat st;
    if (stat(path, &st) < 0)
        return tb_errno(err, "%s", path);
    if (S_ISDIR(st.st_mode)) {
        if (load_folder(path, c, err) < 0) {
            tb_attest_collateral_clear(c);
            return -1;
        }
        return 0;
    }
    tb_buf b = {0};
    if (tb_file_read(path, COLLATERAL_MAX, &b, err) < 0)
        return -1;
    int rc = tb_attest_collateral_parse_json((const char *)b.p, b.len, c, err);
    tb_buf_free(&b);
    if (rc < 0)
        tb_err_wrap(err, "%s", path);
    return rc;
}

static int crl_next(const uint8_t *der, size_t n, int64_t *next)
{
    const unsigned char *p = der;
    X509_CRL *crl = d2i_X509_CRL(NULL, &p, (long)n);
    int rc = crl ? tb_attest_asn1_time_unix(X509_CRL_get0_nextUpdate(crl), next) : -1;
    X509_CRL_free(crl);
    return rc;
}

int tb_attest_collateral_next_update(const tb_attest_collateral *c, int64_t *next, tb_err *err)
{
    int64_t t[4];
    json_t *a = json_loadb(c->tcb_info, c->tcb_info_len, 0, NULL);
    json_t *b = json_loadb(c->qe_identity, c->qe_identity_len, 0, NULL);
    const char *sa = json_string_value(json_object_get(a, "nextUpdate"));
    const char *sb = json_string_value(json_object_get(b, "nextUpdate"));
    int ok = sa && sb && tb_attest_iso8601_parse(sa, &t[0]) == 0 &&
             tb_attest_iso8601_parse(sb, &t[1]) == 0;
    json_decref(a);
    json_decref(b);
    if (!ok)
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
