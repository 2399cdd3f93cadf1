/* Unit tests for attest/tdx/pck: the SGX extension of a real PCK certificate (FMSPC, TCB
 * components, CA kind), truncated and non-certificate input, and the strict DER rules
 * on an extension built here: non-minimal lengths and INTEGERs, entries with extra
 * elements, trailing bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include <openssl/evp.h>

#include "attest_test_util.h"

static void test_pck_extension(void **state)
{
    (void)state;
    char p[1024];
    case_path("qvl-v5-notcb", "quote.bin", p, sizeof p);
    tb_buf b = read_all(p);
    tb_tdx_quote *q;
    tb_err e;
    assert_int_equal(tb_tdx_quote_parse(b.p, b.len, &q, &e), 0);
    /* The leaf's DER: decode the first PEM block with the quote's own reader. */
    const char *s = strstr(q->pck_chain, "-----BEGIN CERTIFICATE-----") + 27;
    const char *end = strstr(s, "-----END");
    unsigned char *der = malloc((size_t)(end - s));
    char *clean = malloc((size_t)(end - s) + 1);
    size_t k = 0;
    for (const char *c = s; c < end; c++)
        if (*c != '\n')
            clean[k++] = *c;
    int n = EVP_DecodeBlock(der, (unsigned char *)clean, (int)k);
    while (clean[k - 1] == '=') {
        n--;
        k--;
    }
    tb_tdx_pck_info pck;
    assert_int_equal(tb_tdx_pck_info_from_der(der, (size_t)n, &pck, &e), 0);
    assert_int_equal(pck.fmspc[0], 0x90);
    assert_int_equal(pck.fmspc[1], 0xc0);
    assert_int_equal(pck.sgx_comp[7], 3); /* component 8, as case.json notes */
    assert_true(pck.pcesvn > 0);
    assert_int_equal(pck.ca_platform, 1); /* issued by the Intel SGX PCK Platform CA */
    assert_int_equal(tb_tdx_pck_info_from_der(der, (size_t)n - 1, &pck, &e), -1);
    assert_int_equal(tb_tdx_pck_info_from_der((const uint8_t *)"junk", 4, &pck, &e), -1);
    free(der);
    free(clean);
    tb_tdx_quote_free(q);
    tb_buf_clear(&b);
}

/* A tiny DER writer: tag, minimal length, content. */
static size_t tlv(uint8_t *out, int tag, const uint8_t *c, size_t n)
{
    size_t h = 0;
    out[h++] = (uint8_t)tag;
    if (n < 128) {
        out[h++] = (uint8_t)n;
    } else if (n < 256) {
        out[h++] = 0x81;
        out[h++] = (uint8_t)n;
    } else {
        out[h++] = 0x82;
        out[h++] = (uint8_t)(n >> 8);
        out[h++] = (uint8_t)n;
    }
    memmove(out + h, c, n);
    return h + n;
}

/* SEQUENCE { OID 1.2.840.113741.1.13.1.arc1[.arc2], value } */
static size_t entry(uint8_t *out, int arc1, int arc2, const uint8_t *value, size_t vn)
{
    static const uint8_t sgx[] = {0x2a, 0x86, 0x48, 0x86, 0xf8, 0x4d, 0x01, 0x0d, 0x01};
    uint8_t oid[16], body[1200];
    size_t on = sizeof sgx;
    memcpy(oid, sgx, on);
    oid[on++] = (uint8_t)arc1;
    if (arc2)
        oid[on++] = (uint8_t)arc2;
    size_t bn = tlv(body, 0x06, oid, on);
    memcpy(body + bn, value, vn);
    return tlv(out, 0x30, body, bn + vn);
}

/* An SGX extension: TCB components 1..16 = i, PCESVN 300, CPUSVN, PCE-ID, FMSPC.
 * variant 1: component 5 as a non-minimal INTEGER (02 02 00 05); 2: an extra element in
 * the FMSPC entry; 3: a trailing byte after the SEQUENCE; 4: the PCE-ID entry's length
 * in the long form. */
static size_t sgx_ext(uint8_t *out, int variant)
{
    uint8_t tcb[1024], all[1200], v[32];
    size_t tn = 0, an = 0, vn;
    for (int i = 1; i <= 18; i++) {
        if (i <= 16) {
            uint8_t x[2] = {0x00, (uint8_t)i};
            vn = variant == 1 && i == 5 ? tlv(v, 0x02, x, 2) : tlv(v, 0x02, x + 1, 1);
        } else if (i == 17) {
            static const uint8_t pcesvn[] = {0x01, 0x2c};
            vn = tlv(v, 0x02, pcesvn, 2);
        } else {
            static const uint8_t cpusvn[16] = {1};
            vn = tlv(v, 0x04, cpusvn, 16);
        }
        tn += entry(tcb + tn, 2, i, v, vn);
    }
    uint8_t tcbv[1100];
    vn = tlv(tcbv, 0x30, tcb, tn);
    an += entry(all + an, 2, 0, tcbv, vn);
    static const uint8_t pceid[] = {0x00, 0x00}, fmspc[] = {0x00, 0x90, 0x6e, 0xd5, 0x00, 0x00};
    vn = tlv(v, 0x04, pceid, 2);
    if (variant == 4) {
        size_t k = entry(all + an, 3, 0, v, vn); /* 30 len ... -> 30 81 len ... */
        memmove(all + an + 3, all + an + 2, k - 2);
        all[an + 2] = all[an + 1];
        all[an + 1] = 0x81;
        an += k + 1;
    } else {
        an += entry(all + an, 3, 0, v, vn);
    }
    vn = tlv(v, 0x04, fmspc, 6);
    if (variant == 2)
        v[vn++] = 0x05, v[vn++] = 0x00; /* a NULL after the value */
    an += entry(all + an, 4, 0, v, vn);
    size_t n = tlv(out, 0x30, all, an);
    if (variant == 3)
        out[n++] = 0x00;
    return n;
}

static void test_extension_strict_der(void **state)
{
    (void)state;
    uint8_t ext[1400];
    tb_tdx_pck_info pck;
    tb_err e;
    size_t n = sgx_ext(ext, 0);
    assert_int_equal(tb_tdx_pck_info_from_ext(ext, n, &pck, &e), 0);
    assert_int_equal(pck.sgx_comp[4], 5);
    assert_int_equal(pck.sgx_comp[15], 16);
    assert_int_equal(pck.pcesvn, 300);
    assert_int_equal(pck.fmspc[1], 0x90);
    for (int variant = 1; variant <= 4; variant++) {
        n = sgx_ext(ext, variant);
        assert_int_equal(tb_tdx_pck_info_from_ext(ext, n, &pck, &e), -1);
    }
    n = sgx_ext(ext, 0);
    assert_int_equal(tb_tdx_pck_info_from_ext(ext, n - 1, &pck, &e), -1); /* truncated */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pck_extension),
        cmocka_unit_test(test_extension_strict_der),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
