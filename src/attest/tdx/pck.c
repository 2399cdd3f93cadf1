/* attest/tdx/pck: the SGX extension of a PCK certificate (OID 1.2.840.113741.1.13.1).
 *
 * The extension is a SEQUENCE of SEQUENCE { OID, value }. We read:
 *   .1.13.1.2  TCB: SEQUENCE of { .2.1 .. .2.16 INTEGER (SGX TCB components),
 *              .2.17 INTEGER (PCESVN), .2.18 OCTET STRING (CPUSVN) }
 *   .1.13.1.3  PCE-ID OCTET STRING (2)
 *   .1.13.1.4  FMSPC  OCTET STRING (6)
 * with the module's one strict DER walker (der.c): minimal lengths and INTEGERs, every
 * entry exactly { OID, value } and no bytes after the extension's SEQUENCE.
 * The certificate itself is read by cert.c; the CA kind comes from its issuer's
 * common name ("... Platform CA" / "... Processor CA"). */
#include "attest/internal.h"

#include <string.h>

typedef tb_attest_der der;

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

/* One SEQUENCE { OID, value } entry of *seq: the OID, the value's tag and content. */
static int entry(der *seq, der *oid, int *tag, der *val)
{
    der item;
    return tb_attest_der_expect(seq, 0x30, &item) < 0 ||
                   tb_attest_der_expect(&item, 0x06, oid) < 0 ||
                   tb_attest_der_next(&item, tag, val, NULL) < 0 || item.n != 0
               ? -1
               : 0;
}

static int parse_tcb(der seq, tb_tdx_pck_info *out, unsigned *seen, tb_err *err)
{
    while (seq.n) {
        int tag, arcs[2];
        der oid, val;
        if (entry(&seq, &oid, &tag, &val) < 0)
            return tb_errf(err, "malformed TCB entry");
        if (sgx_arcs(oid, arcs) != 2 || arcs[0] != 2)
            continue;
        unsigned x;
        if (arcs[1] >= 1 && arcs[1] <= 16) {
            if (tag != 0x02 || tb_attest_der_uint(val, 255, &x) < 0)
                return tb_errf(err, "bad SGX TCB component %d", arcs[1]);
            out->sgx_comp[arcs[1] - 1] = (uint8_t)x;
            *seen |= 1u << arcs[1];
        } else if (arcs[1] == 17) {
            if (tag != 0x02 || tb_attest_der_uint(val, 65535, &x) < 0)
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

int tb_tdx_pck_info_from_ext(const uint8_t *ext, size_t n, tb_tdx_pck_info *out, tb_err *err)
{
    memset(out, 0, sizeof *out);
    der d = {ext, n}, seq;
    unsigned seen = 0;
    if (tb_attest_der_expect(&d, 0x30, &seq) < 0 || d.n != 0)
        return tb_errf(err, "SGX extension is not one DER SEQUENCE");
    while (seq.n) {
        der oid, val;
        int tag, arcs[2];
        if (entry(&seq, &oid, &tag, &val) < 0)
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

int tb_tdx_pck_info_from_der(const uint8_t *dercert, size_t n, tb_tdx_pck_info *out, tb_err *err)
{
    memset(out, 0, sizeof *out);
    tb_attest_cert c;
    if (tb_attest_cert_parse(dercert, n, &c, err) < 0)
        return tb_err_wrap(err, "PCK certificate");
    if (!c.sgx_ext)
        return tb_errf(err, "PCK certificate has no SGX extension (1.2.840.113741.1.13.1)");
    if (tb_tdx_pck_info_from_ext(c.sgx_ext, c.sgx_ext_len, out, err) < 0)
        return tb_err_wrap(err, "PCK certificate");
    out->ca_platform = tb_attest_name_cn_contains(c.id.issuer, c.id.issuer_len, "Platform");
    return 0;
}
