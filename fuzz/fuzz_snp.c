/* libFuzzer target: the SEV-SNP readers of untrusted bytes -- the report parser (with
 * the serialize round trip), AMD's certificate reader with its extension reader, the CRL
 * reader, and the whole pure verifier on the fuzzed bytes as a report against the real
 * Milan VCEK and chain (testdata/snp) at a time inside their validity.
 * Invariants checked: no crash, no leak, no UB; serialize(parse(b)) == b for every
 * accepted report; a parsed certificate's spans lie inside its input; a fuzzed report is
 * never ACCEPTED unless its signed bytes are the real one's, and prepared certificates
 * (tb_snp_prepare, once) give the scratch verdict (the first input byte selects
 * the reader). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest/internal.h"
#include "attest/snp/snp.h"

static tb_snp_certs certs; /* fuzz harness state, built once */
static uint8_t real[TB_SNP_REPORT_LEN];
static tb_snp_prepared *prep; /* the real report's chain, checked once */
static const int64_t NOW = 1700000000;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *src = getenv("TEEBENCH_SOURCE_DIR");
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/testdata/snp", src ? src : TEEBENCH_SOURCE_DIR);
    tb_err e;
    uint8_t *b;
    size_t n;
    snprintf(path, sizeof path, "%s/vcek_milan.der", dir);
    if (tb_snp_read_der(path, 0, &certs.vcek, &certs.vcek_len, &e) < 0)
        goto fail;
    snprintf(path, sizeof path, "%s/report_milan.hex", dir);
    if (tb_attest_evidence_file_read(path, &b, &n, &e) < 0)
        goto fail;
    if (n != sizeof real) {
        free(b);
        snprintf(e.msg, sizeof e.msg, "report_milan.hex is not a report");
        goto fail;
    }
    memcpy(real, b, n);
    free(b);
    tb_snp_verdict v;
    if (tb_snp_prepare(real, sizeof real, &certs, NOW, NULL, 0, &prep, &v) < 0) {
        snprintf(e.msg, sizeof e.msg, "prepare: %s", v.reason);
        goto fail;
    }
    return 0;
fail:
    fprintf(stderr, "fuzz_snp: setup: %s\n", e.msg);
    abort();
}

static void inside(const uint8_t *p, size_t n, const uint8_t *q, size_t qn)
{
    if (qn && (q < p || q + qn > p + n))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    tb_err e;
    switch (data[0] % 4) {
    case 0: { /* a report: parse, round trip, verify */
        tb_snp_report r;
        if (tb_snp_parse(p, n, &r, &e) == 0) {
            uint8_t again[TB_SNP_REPORT_LEN];
            tb_snp_serialize(&r, again);
            if (memcmp(again, p, n))
                abort();
        }
        tb_snp_verdict v;
        int rc = tb_snp_verify(p, n, &certs, NOW, NULL, NULL, 0, &v);
        if (rc == 0 && (n != sizeof real || memcmp(p, real, TB_SNP_SIGNED_LEN)))
            abort(); /* only the real signed bytes verify with the real VCEK (the
                        signature itself may differ: ECDSA's (r, n - s) is valid too) */
        /* prepared certificates give the same verdict */
        tb_snp_verdict pv;
        int prc = tb_snp_verify_prepared(p, n, prep, NOW, NULL, &pv);
        if (prc != rc || pv.result != v.result ||
            (v.step >= TB_SNP_STEP_TCB && (pv.step != v.step || strcmp(pv.reason, v.reason))))
            abort();
        break;
    }
    case 1: { /* a certificate (and its extensions) */
        tb_snp_cert c;
        if (tb_snp_cert_parse(p, n, &c, &e) == 0) {
            inside(p, n, c.id.tbs, c.id.tbs_len);
            inside(p, n, c.id.issuer, c.id.issuer_len);
            inside(p, n, c.id.subject, c.id.subject_len);
            inside(p, n, c.id.serial, c.id.serial_len);
            inside(p, n, c.sig, c.sig_len);
            if (c.key_rsa) {
                inside(p, n, c.rsa_n, c.rsa_n_len);
                inside(p, n, c.rsa_e, c.rsa_e_len);
                tb_snp_pss_verify(&c, c.id.tbs, c.id.tbs_len, c.sig, c.sig_len);
            } else {
                tb_snp_report_sig_ok(&c, real);
            }
        }
        break;
    }
    case 2: { /* the extension reader on its own */
        tb_snp_ext x;
        int ca;
        if (tb_snp_ext_parse(p, n, &x, &ca, &e) == 0 && x.product[sizeof x.product - 1])
            abort();
        break;
    }
    default: { /* a CRL */
        tb_attest_crl c;
        if (tb_snp_crl_parse(p, n, &c, &e) == 0) {
            inside(p, n, c.tbs, c.tbs_len);
            inside(p, n, c.issuer, c.issuer_len);
            inside(p, n, c.revoked, c.revoked_len);
            uint8_t s[2] = {1, 2};
            tb_attest_crl_is_revoked(&c, s, 2);
        }
        break;
    }
    }
    return 0;
}
