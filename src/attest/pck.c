/* attest/pck: the SGX extension of a PCK certificate (OID 1.2.840.113741.1.13.1).
 *
 * The extension is a SEQUENCE of SEQUENCE { OID, value }. We read:
 *   .1.13.1.2  TCB: SEQUENCE of { .2.1 .. .2.16 INTEGER (SGX TCB components),
 *              .2.17 INTEGER (PCESVN), .2.18 OCTET STRING (CPUSVN) }
 *   .1.13.1.3  PCE-ID OCTET STRING (2)
 *   .1.13.1.4  FMSPC  OCTET STRING (6)
 * A tiny bounds-checked DER walker does this (OpenSSL has no template for it).
 * The CA kind comes from the issuer's common name ("... Platform CA" / "... Processor CA"). */
#include "attest/internal.h"

#include <string.h>

#include <openssl/objects.h>
#include <openssl/x509.h>

typedef struct der {
    const uint8_t *p;
    size_t n;
} der;

/* Reads one TLV from *d: tag, content. Advances *d past it. */
static int der_next(der *d, int *tag, der *content)
{
    if (d->n < 2)
        return -1;
    *tag = d->p[0];
    size_t len = d->p[1], hl = 2;
    if (len & 0x80) {
        size_t k = len & 0x7f;
        if (k == 0 || k > 4 || d->n < 2 + k)
            return -1;
        len = 0;
        for (size_t i = 0; i < k; i++)
            len = len << 8 | d->p[2 + i];
        hl += k;
    }
    if (d->n - hl < len)
        return -1;
    content->p = d->p + hl;
    content->n = len;
    d->p += hl + len;
    d->n -= hl + len;
    return 0;
}

/* The OID prefix 1.2.840.113741.1.13.1 in DER content bytes. */
static const uint8_t SGX_OID[] = {0x2a, 0x86, 0x48, 0x86, 0xf8, 0x4d, 0x01, 0x0d, 0x01};

/* Returns the sub-arc numbers after SGX_OID (up to 2), or -1 when not under it. */
static int sgx_arcs(der oid, int arcs[2])
{
    if (oid.n < sizeof SGX_OID + 1 || memcmp(oid.p, SGX_OID, sizeof SGX_OID))
        return -1;
    size_t k = oid.n - sizeof SGX_OID;
    if (k > 2)
        return -1;
    arcs[0] = oid.p[sizeof SGX_OID];
    arcs[1] = k == 2 ? oid.p[sizeof SGX_OID + 1] : 0;
    if ((arcs[0] | arcs[1]) & 0x80)
        return -1;
    return (int)k;
}

static int der_uint(der v, unsigned max, unsigned *out)
{
    if (v.n == 0 || v.n > 3)
        return -1;
    unsigned x = 0;
    for (size_t i = 0; i < v.n; i++)
        x = x << 8 | v.p[i];
    if (v.p[0] & 0x80 || x > max)
        return -1;
    *out = x;
    return 0;
}

static int parse_tcb(der seq, tb_attest_pck_info *out, unsigned *seen, tb_err *err)
{
    while (seq.n) {
        int tag, arcs[2];
        der item, oid, val;
        if (der_next(&seq, &tag, &item) < 0 || tag != 0x30)
            return tb_errf(err, "malformed TCB entry");
        if (der_next(&item, &tag, &oid) < 0 || tag != 0x06 || der_next(&item, &tag, &val) < 0)
            return tb_errf(err, "malformed TCB entry");
        if (sgx_arcs(oid, arcs) != 2 || arcs[0] != 2)
            continue;
        unsigned x;
        if (arcs[1] >= 1 && arcs[1] <= 16) {
            if (tag != 0x02 || der_uint(val, 255, &x) < 0)
                return tb_errf(err, "bad SGX TCB component %d", arcs[1]);
            out->sgx_comp[arcs[1] - 1] = (uint8_t)x;
            *seen |= 1u << arcs[1];
        } else if (arcs[1] == 17) {
            if (tag != 0x02 || der_uint(val, 65535, &x) < 0)
                return tb_errf(err, "bad PCESVN");
            out->pcesvn = (uint16_t)x;
            *seen |= 1u << 17;
        } else if (arcs[1] == 18) {
            if (tag != 0x04 || val.n != 16)
                return tb_errf(err, "bad CPUSVN");
            memcpy(out->cpusvn, val.p, 16);
        }
    }
    return 0;
}

static int parse_ext(der d, tb_attest_pck_info *out, tb_err *err)
{
    int tag;
    der seq;
    unsigned seen = 0;
    if (der_next(&d, &tag, &seq) < 0 || tag != 0x30)
        return tb_errf(err, "SGX extension is not a SEQUENCE");
    while (seq.n) {
        der item, oid, val;
        int arcs[2];
        if (der_next(&seq, &tag, &item) < 0 || tag != 0x30)
            return tb_errf(err, "malformed SGX extension entry");
        if (der_next(&item, &tag, &oid) < 0 || tag != 0x06 || der_next(&item, &tag, &val) < 0)
            return tb_errf(err, "malformed SGX extension entry");
        if (sgx_arcs(oid, arcs) != 1)
            continue;
        if (arcs[0] == 2) {
            if (tag != 0x30 || parse_tcb(val, out, &seen, err) < 0)
                return tb_err_wrap(err, "SGX extension TCB");
        } else if (arcs[0] == 3) {
            if (tag != 0x04 || val.n != 2)
                return tb_errf(err, "bad PCE-ID in the SGX extension");
            memcpy(out->pceid, val.p, 2);
            seen |= 1u << 20;
        } else if (arcs[0] == 4) {
            if (tag != 0x04 || val.n != 6)
                return tb_errf(err, "bad FMSPC in the SGX extension");
            memcpy(out->fmspc, val.p, 6);
            seen |= 1u << 21;
        }
    }
    unsigned want = 0x1fffeu | 1u << 17 | 1u << 20 | 1u << 21;
    if ((seen & want) != want)
        return tb_errf(err, "SGX extension lacks %s",
                       !(seen & 1u << 21)   ? "the FMSPC"
                       : !(seen & 1u << 20) ? "the PCE-ID"
                       : !(seen & 1u << 17) ? "the PCESVN"
                                            : "some TCB components");
    return 0;
}

int tb_attest_pck_info_from_ext(const uint8_t *ext, size_t n, tb_attest_pck_info *out, tb_err *err)
{
    memset(out, 0, sizeof *out);
    der d = {ext, n};
    return parse_ext(d, out, err);
}

int tb_attest_pck_info_from_x509(X509 *x, tb_attest_pck_info *out, tb_err *err)
{
    memset(out, 0, sizeof *out);
    ASN1_OBJECT *obj = OBJ_txt2obj("1.2.840.113741.1.13.1", 1);
    int idx = obj ? X509_get_ext_by_OBJ(x, obj, -1) : -1;
    ASN1_OBJECT_free(obj);
    if (idx < 0)
        return tb_errf(err, "PCK certificate has no SGX extension (1.2.840.113741.1.13.1)");
    ASN1_OCTET_STRING *os = X509_EXTENSION_get_data(X509_get_ext(x, idx));
    der d = {ASN1_STRING_get0_data(os), (size_t)ASN1_STRING_length(os)};
    if (parse_ext(d, out, err) < 0)
        return -1;
    char cn[256] = "";
    X509_NAME_get_text_by_NID(X509_get_issuer_name(x), NID_commonName, cn, sizeof cn);
    out->ca_platform = strstr(cn, "Platform") != NULL;
    return 0;
}

int tb_attest_pck_info_from_der(const uint8_t *dercert, size_t n, tb_attest_pck_info *out,
                                tb_err *err)
{
    memset(out, 0, sizeof *out);
    X509 *x = tb_attest_x509_from_der(dercert, n);
    if (!x)
        return tb_errf(err, "PCK certificate: not DER X.509");
    int rc = tb_attest_pck_info_from_x509(x, out, err);
    X509_free(x);
    return rc;
}
