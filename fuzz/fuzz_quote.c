/* libFuzzer target: the TDX quote parser and everything downstream of it that reads
 * quote bytes -- text decoding (hex/base64), the PCK chain's PEM -> DER -> X.509, the
 * SGX extension, and the whole verifier with real prepared collateral (qvl-v4-uptodate
 * at its time, Intel root) -- and the module's one DER walker (der.c) on its own, through
 * the certificate / CRL reader and the SGX extension reader.
 * Invariants checked: no crash, no leak, no UB; a parsed quote's pointers stay inside
 * its bytes; every span the DER walker hands out lies inside its input and is minimal
 * DER (re-encoding its header gives the same bytes). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest/internal.h"

static tb_tdx_prepared *prepared; /* fuzz harness state, built once */
static const int64_t NOW = 1752919234;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *src = getenv("TEEBENCH_SOURCE_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/testdata/tdx/qvl-v4-uptodate/collateral.json",
             src ? src : TEEBENCH_SOURCE_DIR);
    tb_tdx_collateral c;
    tb_attest_root *root;
    tb_tdx_verdict v;
    tb_err e;
    if (tb_tdx_collateral_load(path, &c, &e) < 0 || tb_attest_root_intel(&root, &e) < 0 ||
        tb_tdx_prepare(&c, NOW, root, &prepared, &v, &e) < 0) {
        fprintf(stderr, "fuzz_quote: setup: %s\n", e.msg);
        abort();
    }
    tb_tdx_collateral_clear(&c);
    tb_attest_root_free(root);
    return 0;
}

/* Walks every TLV (descending into constructed ones) and checks what the walker says. */
static void walk(const uint8_t *p, size_t n, int depth)
{
    tb_attest_der d = {p, n}, c, w;
    int tag;
    while (depth < 16 && tb_attest_der_next(&d, &tag, &c, &w) == 0) {
        if (w.p < p || w.p + w.n > p + n || c.p < w.p || c.p + c.n != w.p + w.n)
            abort();
        size_t hl = (size_t)(c.p - w.p); /* the header: minimal for its length */
        if (hl != (c.n < 128 ? 2 : c.n < 256 ? 3 : c.n < 65536 ? 4 : c.n < (1u << 24) ? 5 : 6))
            abort();
        if (tag & 0x20)
            walk(c.p, c.n, depth + 1);
        else if (tag == 0x02)
            (void)tb_attest_der_int(c);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tb_err e;
    tb_tdx_quote *q = NULL;
    if (tb_tdx_quote_parse(data, size, &q, &e) == 0) {
        if (q->pck_chain < (const char *)q->raw ||
            q->pck_chain + q->pck_chain_len > (const char *)q->raw + q->raw_len ||
            q->signed_len > q->raw_len)
            abort();
        char fmspc[13], subj[4][256];
        const char *ca;
        (void)tb_tdx_quote_fmspc_ca(q, fmspc, &ca, &e);
        (void)tb_tdx_quote_pck_subjects(q, subj, 4, &e);
        (void)tb_tdx_quote_report_data(q);
        tb_tdx_quote_free(q);
    }
    tb_tdx_verdict v;
    tb_tdx_verify_prepared(data, size, prepared, NOW, NULL, &v);
    if (v.result == TB_ATTEST_ACCEPTED && size < 1000)
        abort();         /* impossible: a valid quote is longer */
    tb_tdx_pck_info pck; /* the input as a DER PCK certificate: the SGX extension walker */
    (void)tb_tdx_pck_info_from_der(data, size, &pck, &e);
    tb_attest_cert c; /* ... and through the lean certificate / CRL reader */
    if (tb_attest_cert_parse(data, size, &c, &e) == 0) {
        if (c.id.tbs < data || c.id.tbs + c.id.tbs_len > data + size)
            abort();
        if (c.sgx_ext)
            (void)tb_tdx_pck_info_from_ext(c.sgx_ext, c.sgx_ext_len, &pck, &e);
        (void)tb_attest_name_cn_contains(c.id.subject, c.id.subject_len, "Platform");
        (void)tb_attest_name_cn_contains(c.id.issuer, c.id.issuer_len, "Platform");
    }
    (void)tb_tdx_pck_info_from_ext(data, size, &pck, &e); /* the input as an extension */
    walk(data, size, 0);
    tb_attest_crl crl;
    if (tb_attest_crl_parse(data, size, &crl, &e) == 0)
        (void)tb_attest_crl_is_revoked(&crl, data, size < 8 ? size : 8);
    uint8_t *dec = NULL;
    size_t n = 0;
    if (tb_attest_evidence_decode_text(data, size, &dec, &n, &e) == 1) {
        if (tb_tdx_quote_parse(dec, n, &q, &e) == 0)
            tb_tdx_quote_free(q);
        free(dec);
    }
    return 0;
}
