/* Unit tests for the SEV-SNP parts of attest: the report parser (round trip, strictness),
 * AMD's certificates and extensions, the built-in roots, and the pure verifier on real
 * reports (virtee/sev's Milan report, go-sev-guest's attestation): accepted at a time
 * inside their validity, rejected for each one-byte change of the signed part, a wrong
 * VCEK, another product's chain, a revoked certificate, and the policy's fields. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "attest/snp/snp.h"
#include "attest_test_util.h"
#include "base/hex.h"

#include <time.h>

#define NOW 1700000000 /* 2023-11-14: inside both real VCEKs' validity */

static void snp_path(const char *file, char *out, size_t n)
{
    snprintf(out, n, "%s/snp/%s", testdata(), file);
}

/* A report file (binary or hex text) -> 1184 bytes. */
static void load_report(const char *file, uint8_t out[TB_SNP_REPORT_LEN])
{
    char p[1024];
    snp_path(file, p, sizeof p);
    uint8_t *b;
    size_t n;
    tb_err e;
    assert_int_equal(tb_attest_evidence_file_read(p, &b, &n, &e), 0);
    assert_int_equal(n, TB_SNP_REPORT_LEN);
    memcpy(out, b, n);
    free(b);
}

static uint8_t *load_der(const char *file, int crl, size_t *len)
{
    char p[1024];
    snp_path(file, p, sizeof p);
    tb_buf b = read_all(p);
    uint8_t *d;
    tb_err e;
    assert_int_equal(tb_snp_to_der(b.p, b.len, crl, &d, len, &e), 0);
    tb_buf_clear(&b);
    return d;
}

/* virtee/sev's Milan report with its VCEK and the testdata ARK / ASK. */
static void milan_certs(tb_snp_certs *c)
{
    memset(c, 0, sizeof *c);
    c->ark = load_der("ark_milan.pem", 0, &c->ark_len);
    c->ask = load_der("ask_milan.pem", 0, &c->ask_len);
    c->vcek = load_der("vcek_milan.der", 0, &c->vcek_len);
}

static void test_parse_roundtrip(void **state)
{
    (void)state;
    const char *files[] = {"report_milan.hex", "gosev_attestation.bin"};
    for (int i = 0; i < 2; i++) {
        uint8_t raw[TB_SNP_REPORT_LEN], again[TB_SNP_REPORT_LEN];
        tb_snp_report r;
        tb_err e;
        load_report(files[i], raw);
        assert_true(tb_snp_sniff(raw, sizeof raw));
        assert_int_equal(tb_snp_parse(raw, sizeof raw, &r, &e), 0);
        assert_int_equal(r.sig_algo, 1);
        tb_snp_serialize(&r, again);
        assert_memory_equal(raw, again, sizeof raw);
        assert_int_equal(tb_snp_parse(raw, sizeof raw - 1, &r, &e), -1);
    }
    uint8_t raw[TB_SNP_REPORT_LEN];
    tb_snp_report r;
    tb_err e;
    load_report("report_milan.hex", raw);
    assert_int_equal(tb_snp_parse(raw, sizeof raw, &r, &e), 0);
    assert_int_equal(r.version, 2);
    assert_int_equal(r.policy, 0x30000);
    tb_snp_tcb t;
    tb_snp_tcb_decode(r.reported_tcb, TB_SNP_MILAN, &t);
    assert_int_equal(t.bl, 3);
    assert_int_equal(t.snp, 8);
    assert_int_equal(t.ucode, 0x73);
    assert_int_equal(tb_snp_tcb_encode(&t, TB_SNP_MILAN), r.reported_tcb);
    /* strictness: reserved bytes and bits, versions, VMPL, algorithm, policy bit 17 */
    const struct {
        size_t off;
        uint8_t val;
    } bad[] = {{0x00, 1},    {0x00, 4},    {0x4C, 1},    {0x188, 1},   {0x1EB, 1},
               {0x1EF, 1},   {0x1F8, 1},   {0x29F, 1},   {0x330, 1},   {0x49F, 1},
               {0x30, 4},    {0x34, 2},    {0x0A, 0x01}, {0x0B, 0x04}, {0x46, 0x01},
               {0x40, 0x40}, {0x48, 0x08}, {0x48, 0x20}, {0x300, 0x01}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint8_t m[TB_SNP_REPORT_LEN];
        memcpy(m, raw, sizeof m);
        m[bad[i].off] = bad[i].val;
        if (bad[i].off == 0x300) /* s's upper bytes: parse accepts, verify refuses */
            continue;
        assert_int_equal(tb_snp_parse(m, sizeof m, &r, &e), -1);
    }
    /* version 3: CPUID fields name the product */
    uint8_t m[TB_SNP_REPORT_LEN];
    memcpy(m, raw, sizeof m);
    m[0] = 3;
    m[0x188] = 0x19;
    m[0x189] = 0x11;
    assert_int_equal(tb_snp_parse(m, sizeof m, &r, &e), 0);
    assert_int_equal(tb_snp_report_product(&r), TB_SNP_GENOA);
    m[0x188] = 0x1a;
    m[0x189] = 0x02;
    assert_int_equal(tb_snp_parse(m, sizeof m, &r, &e), 0);
    assert_int_equal(tb_snp_report_product(&r), TB_SNP_TURIN);
    tb_snp_tcb_decode(0x7300000008000301ull, TB_SNP_TURIN, &t);
    assert_true(t.has_fmc && t.fmc == 1 && t.bl == 3 && t.tee == 0 && t.snp == 8);
    /* version 5: the mitigation vectors (reserved before) */
    m[0x1F8] = 0x05;
    m[0x200] = 0x07;
    assert_int_equal(tb_snp_parse(m, sizeof m, &r, &e), -1);
    m[0] = 5;
    assert_int_equal(tb_snp_parse(m, sizeof m, &r, &e), 0);
    assert_int_equal(r.launch_mit_vector, 5);
    assert_int_equal(r.current_mit_vector, 7);
    uint8_t again[TB_SNP_REPORT_LEN];
    tb_snp_serialize(&r, again);
    assert_memory_equal(m, again, sizeof m);
    /* not a report: a TDX quote's first bytes */
    assert_false(tb_snp_sniff(raw, 1000));
}

static void test_certs_and_roots(void **state)
{
    (void)state;
    size_t n;
    uint8_t *d = load_der("vcek_milan.der", 0, &n);
    tb_snp_cert c;
    tb_err e;
    assert_int_equal(tb_snp_cert_parse(d, n, &c, &e), 0);
    assert_false(c.key_rsa);
    assert_true(c.ext.has_tcb && c.ext.has_hwid);
    assert_string_equal(c.ext.product, "Milan-B0");
    assert_int_equal(c.ext.bl, 3);
    assert_int_equal(c.ext.snp, 8);
    assert_int_equal(c.ext.ucode, 0x73);
    /* every truncation of the DER fails cleanly */
    for (size_t k = 0; k < n; k++)
        assert_int_equal(tb_snp_cert_parse(d, k, &c, &e), -1);
    free(d);
    /* the built-in ARKs are self-signed, the ASKs / ASVKs signed by them */
    for (int p = TB_SNP_MILAN; p < TB_SNP_PRODUCT_COUNT; p++)
        for (int vlek = 0; vlek < 2; vlek++) {
            const uint8_t *ark, *ask;
            size_t al, sl;
            tb_snp_cert a, s;
            assert_int_equal(tb_snp_builtin(p, vlek, &ark, &al, &ask, &sl), 0);
            assert_int_equal(tb_snp_cert_parse(ark, al, &a, &e), 0);
            assert_int_equal(tb_snp_cert_parse(ask, sl, &s, &e), 0);
            assert_true(a.is_ca && s.is_ca && a.key_rsa && s.key_rsa);
            assert_true(tb_snp_pss_verify(&a, a.id.tbs, a.id.tbs_len, a.sig, a.sig_len));
            assert_true(tb_snp_pss_verify(&a, s.id.tbs, s.id.tbs_len, s.sig, s.sig_len));
            assert_false(tb_snp_pss_verify(&s, a.id.tbs, a.id.tbs_len, a.sig, a.sig_len));
            assert_true(
                tb_attest_name_cn_contains(a.id.subject, a.id.subject_len, tb_snp_product_name(p)));
        }
    /* the testdata Milan ARK / ASK are the built-in ones */
    const uint8_t *ark, *ask;
    size_t al, sl;
    tb_snp_builtin(TB_SNP_MILAN, 0, &ark, &al, &ask, &sl);
    d = load_der("ark_milan.pem", 0, &n);
    assert_true(n == al && !memcmp(d, ark, n));
    free(d);
    assert_int_equal(tb_snp_builtin(TB_SNP_UNKNOWN, 0, &ark, &al, &ask, &sl), -1);
}

/* The prepared path (chain checked once, then the report) gives the scratch verdict:
 * prepare fails with it, or verify_prepared returns it. */
static void expect_same_prepared(int line, const uint8_t *rep, const tb_snp_certs *c, int64_t now,
                                 const tb_attest_policy *pol, const tb_snp_verdict *want)
{
    tb_snp_prepared *p = NULL;
    tb_snp_verdict v;
    if (tb_snp_prepare(rep, TB_SNP_REPORT_LEN, c, now, NULL, 0, &p, &v) == 0) {
        assert_non_null(p);
        int rc = tb_snp_verify_prepared(rep, TB_SNP_REPORT_LEN, p, now, pol, &v);
        assert_int_equal(rc, v.result == TB_ATTEST_ACCEPTED ? 0 : -1);
    } else {
        assert_null(p);
    }
    if (v.result != want->result || v.step != want->step || strcmp(v.reason, want->reason))
        fprintf(stderr, "line %d: prepared %d %s (%s), scratch %d %s (%s)\n", line, v.result,
                tb_snp_step_name(v.step), v.reason, want->result, tb_snp_step_name(want->step),
                want->reason);
    assert_int_equal(v.result, want->result);
    assert_int_equal(v.step, want->step);
    assert_string_equal(v.reason, want->reason);
    assert_int_equal(v.product, want->product);
    assert_int_equal(v.expiration, want->expiration);
    assert_int_equal(v.debug, want->debug);
    assert_int_equal(v.vlek, want->vlek);
    tb_snp_prepared_free(p);
}

#define expect(...) expect_at(__LINE__, __VA_ARGS__)
static void expect_at(int line, const uint8_t *rep, const tb_snp_certs *c, int64_t now,
                      const tb_attest_policy *pol, tb_attest_result res, tb_snp_step step)
{
    tb_snp_verdict v;
    int rc = tb_snp_verify(rep, TB_SNP_REPORT_LEN, c, now, pol, NULL, 0, &v);
    if (v.result != res || v.step != step)
        fprintf(stderr, "line %d: verdict %d step %s: %s\n", line, v.result,
                tb_snp_step_name(v.step), v.reason);
    assert_int_equal(v.result, res);
    assert_int_equal(v.step, step);
    assert_int_equal(rc, res == TB_ATTEST_ACCEPTED ? 0 : -1);
    expect_same_prepared(line, rep, c, now, pol, &v);
}

static void test_verify_real(void **state)
{
    (void)state;
    uint8_t rep[TB_SNP_REPORT_LEN];
    tb_snp_certs c;
    tb_snp_verdict v;
    load_report("report_milan.hex", rep);
    milan_certs(&c);
    assert_int_equal(tb_snp_verify(rep, sizeof rep, &c, NOW, NULL, NULL, 0, &v), 0);
    assert_int_equal(v.product, TB_SNP_MILAN);
    assert_false(v.vlek || v.simulated || v.crl_checked || v.debug);
    /* the built-in ARK / ASK stand in for absent files */
    tb_snp_certs leaf = {.vcek = c.vcek, .vcek_len = c.vcek_len};
    expect(rep, &leaf, NOW, NULL, TB_ATTEST_ACCEPTED, TB_SNP_STEP_NONE);
    /* time: before / after the VCEK's validity */
    expect(rep, &c, 1600000000, NULL, TB_ATTEST_INVALID, TB_SNP_STEP_ARK);
    expect(rep, &c, 1680000000, NULL, TB_ATTEST_INVALID, TB_SNP_STEP_VCEK);
    /* after the VCEK's notAfter: EXPIRED (TDX's stale collateral), accepted when allowed */
    expect(rep, &c, 1920000000, NULL, TB_ATTEST_EXPIRED, TB_SNP_STEP_VCEK);
    tb_attest_policy old;
    tb_attest_policy_default(&old);
    old.allow_expired_collateral = 1;
    expect(rep, &c, 1920000000, &old, TB_ATTEST_ACCEPTED, TB_SNP_STEP_NONE);
    /* a VCEK past notAfter that is also wrong is INVALID, not EXPIRED */
    uint8_t bad[TB_SNP_REPORT_LEN];
    memcpy(bad, rep, sizeof bad);
    bad[0x90] ^= 1;
    expect(bad, &c, 1920000000, NULL, TB_ATTEST_INVALID, TB_SNP_STEP_SIGNATURE);

    /* go-sev-guest's attestation with its VCEK and Milan chain */
    uint8_t g[TB_SNP_REPORT_LEN];
    tb_snp_certs gc = {0};
    load_report("gosev_attestation.bin", g);
    gc.vcek = load_der("gosev_vcek.testcer", 0, &gc.vcek_len);
    /* its guest policy (0xb0000) allows debugging: refused by default, accepted with
     * allow_debug */
    expect(g, &gc, NOW, NULL, TB_ATTEST_REFUSED, TB_SNP_STEP_POLICY);
    tb_attest_policy dbg;
    tb_attest_policy_default(&dbg);
    dbg.allow_debug = 1;
    expect(g, &gc, NOW, &dbg, TB_ATTEST_ACCEPTED, TB_SNP_STEP_NONE);

    /* a wrong VCEK: the other report's */
    expect(rep, &gc, NOW, NULL, TB_ATTEST_INVALID, TB_SNP_STEP_TCB);
    tb_snp_certs swapped = c;
    swapped.vcek = gc.vcek;
    swapped.vcek_len = gc.vcek_len;
    expect(rep, &swapped, NOW, NULL, TB_ATTEST_INVALID, TB_SNP_STEP_TCB);
    swapped = gc;
    swapped.vcek = c.vcek;
    swapped.vcek_len = c.vcek_len;
    expect(g, &swapped, NOW, NULL, TB_ATTEST_INVALID, TB_SNP_STEP_TCB);

    /* a chain from another product: Genoa's ARK / ASK with a Milan VCEK */
    const uint8_t *gark, *gask;
    size_t gal, gsl;
    tb_snp_builtin(TB_SNP_GENOA, 0, &gark, &gal, &gask, &gsl);
    tb_snp_certs other = c;
    other.ark = (uint8_t *)gark;
    other.ark_len = gal;
    other.ask = (uint8_t *)gask;
    other.ask_len = gsl;
    expect(rep, &other, NOW, NULL, TB_ATTEST_INVALID, TB_SNP_STEP_ARK);
    other.ark = NULL;
    expect(rep, &other, NOW, NULL, TB_ATTEST_INVALID, TB_SNP_STEP_ASK);
    /* the VCEK as ASK, the ASK as VCEK */
    other = c;
    other.ask = c.vcek;
    other.ask_len = c.vcek_len;
    expect(rep, &other, NOW, NULL, TB_ATTEST_INVALID, TB_SNP_STEP_ASK);
    other = c;
    other.vcek = c.ask;
    other.vcek_len = c.ask_len;
    expect(rep, &other, NOW, NULL, TB_ATTEST_INVALID, TB_SNP_STEP_VCEK);
    /* no VCEK */
    other = c;
    other.vcek = NULL;
    expect(rep, &other, NOW, NULL, TB_ATTEST_INVALID, TB_SNP_STEP_VCEK);

    /* prepared for the Milan report's VCEK: another chip's report fails at the TCB (its
       SPLs), a VLEK-signed one at the leaf; the Milan report itself verifies many times */
    tb_snp_prepared *p = NULL;
    assert_int_equal(tb_snp_prepare(rep, sizeof rep, &c, NOW, NULL, 0, &p, &v), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(tb_snp_verify_prepared(rep, sizeof rep, p, NOW, NULL, &v), 0);
    assert_int_equal(tb_snp_verify_prepared(g, sizeof g, p, NOW, &dbg, &v), -1);
    assert_int_equal(v.step, TB_SNP_STEP_TCB);
    uint8_t vl[TB_SNP_REPORT_LEN];
    memcpy(vl, rep, sizeof vl);
    vl[0x48] = (uint8_t)((vl[0x48] & ~0x1c) | (1 << 2)); /* SIGNING_KEY 1: VLEK */
    assert_int_equal(tb_snp_verify_prepared(vl, sizeof vl, p, NOW, NULL, &v), -1);
    assert_int_equal(v.step, TB_SNP_STEP_VCEK);
    assert_non_null(strstr(v.reason, "VLEK"));
    /* expiration is judged at each report's time */
    assert_int_equal(tb_snp_verify_prepared(rep, sizeof rep, p, 1920000000, NULL, &v), -1);
    assert_int_equal(v.result, TB_ATTEST_EXPIRED);
    tb_snp_prepared_free(p);

    free(gc.vcek);
    tb_snp_certs_clear(&c);
}

/* Every one-byte change of the signed part [0, 0x2A0) and of r and s is rejected:
 * by the parser (reserved bytes), the TCB check (REPORTED_TCB, CHIP_ID) or the
 * signature. Never ACCEPTED. */
static void test_verify_every_byte(void **state)
{
    (void)state;
    uint8_t rep[TB_SNP_REPORT_LEN];
    tb_snp_certs c;
    milan_certs(&c);
    load_report("report_milan.hex", rep);
    int by_step[16] = {0};
    for (size_t i = 0; i < 0x2A0 + 144; i++) {
        uint8_t m[TB_SNP_REPORT_LEN];
        memcpy(m, rep, sizeof m);
        m[i] ^= 0x01;
        tb_snp_verdict v;
        int rc = tb_snp_verify(m, sizeof m, &c, NOW, NULL, NULL, 0, &v);
        if (rc == 0 || v.result != TB_ATTEST_INVALID)
            fprintf(stderr, "byte 0x%zx: %s\n", i, v.reason);
        assert_int_equal(rc, -1);
        assert_int_equal(v.result, TB_ATTEST_INVALID);
        expect_same_prepared(__LINE__, m, &c, NOW, NULL, &v);
        by_step[v.step]++;
    }
    assert_true(by_step[TB_SNP_STEP_SIGNATURE] > 0x200);
    tb_snp_certs_clear(&c);
}

static void test_policy(void **state)
{
    (void)state;
    uint8_t rep[TB_SNP_REPORT_LEN];
    tb_snp_certs c;
    tb_snp_report r;
    tb_err e;
    milan_certs(&c);
    load_report("report_milan.hex", rep);
    assert_int_equal(tb_snp_parse(rep, sizeof rep, &r, &e), 0);
    char hex[129];
    struct {
        const char *json;
        tb_attest_result want;
    } cases[] = {
        {"{}", TB_ATTEST_ACCEPTED},
        {"{\"min_tcb\": {\"bl\": 3, \"snp\": 8, \"ucode\": 115}}", TB_ATTEST_ACCEPTED},
        {"{\"min_tcb\": {\"snp\": 9}}", TB_ATTEST_REFUSED},
        {"{\"min_tcb\": {\"ucode\": 116}}", TB_ATTEST_REFUSED},
        {"{\"vmpl\": 0}", r.vmpl == 0 ? TB_ATTEST_ACCEPTED : TB_ATTEST_REFUSED},
        {"{\"vmpl\": 3}", r.vmpl == 3 ? TB_ATTEST_ACCEPTED : TB_ATTEST_REFUSED},
        {"{\"min_guest_svn\": 1}", r.guest_svn >= 1 ? TB_ATTEST_ACCEPTED : TB_ATTEST_REFUSED},
        {"{\"allow_smt\": false}", TB_ATTEST_REFUSED}, /* policy 0x30000: SMT allowed */
        {"{\"allow_smt\": true, \"allow_migration\": false}", TB_ATTEST_ACCEPTED},
        {"{\"mrtd\": \"" /* a TDX-only requirement */
         "000000000000000000000000000000000000000000000000"
         "000000000000000000000000000000000000000000000000\"}",
         TB_ATTEST_REFUSED},
        {"{\"host_data\": \"0000000000000000000000000000000000000000000000000000000000000001\"}",
         TB_ATTEST_REFUSED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tb_attest_policy pol;
        assert_int_equal(tb_attest_policy_parse(cases[i].json, strlen(cases[i].json), &pol, &e), 0);
        expect(rep, &c, NOW, &pol, cases[i].want,
               cases[i].want == TB_ATTEST_ACCEPTED ? TB_SNP_STEP_NONE : TB_SNP_STEP_POLICY);
    }
    /* measurement, report data, host data: equal -> accepted; one byte off -> refused */
    char js[512];
    tb_hex_encode(r.measurement, 48, hex);
    snprintf(js, sizeof js, "{\"measurement\": \"%s\", \"report_data_prefix\": \"%02x\"}", hex,
             r.report_data[0]);
    tb_attest_policy pol;
    assert_int_equal(tb_attest_policy_parse(js, strlen(js), &pol, &e), 0);
    expect(rep, &c, NOW, &pol, TB_ATTEST_ACCEPTED, TB_SNP_STEP_NONE);
    pol.measurement[47] ^= 1;
    expect(rep, &c, NOW, &pol, TB_ATTEST_REFUSED, TB_SNP_STEP_POLICY);
    pol.measurement[47] ^= 1;
    pol.report_data[0] ^= 1;
    expect(rep, &c, NOW, &pol, TB_ATTEST_REFUSED, TB_SNP_STEP_POLICY);
    /* malformed SNP fields */
    const char *bad[] = {"{\"vmpl\": 4}", "{\"min_tcb\": {\"x\": 1}}",
                         "{\"min_tcb\": {\"bl\": 256}}", "{\"allow_smt\": 1}",
                         "{\"measurement\": \"00\"}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(tb_attest_policy_parse(bad[i], strlen(bad[i]), &pol, &e), -1);
    tb_snp_certs_clear(&c);
}

static void test_ext_strict(void **state)
{
    (void)state;
    /* an extensions SEQUENCE with one AMD SPL extension 1.3.6.1.4.1.3704.1.3.1 = 3 */
    uint8_t ok[] = {0x30, 0x13, 0x30, 0x11, 0x06, 0x0a, 0x2b, 0x06, 0x01, 0x04, 0x01,
                    0x9c, 0x78, 0x01, 0x03, 0x01, 0x04, 0x03, 0x02, 0x01, 0x03};
    tb_snp_ext x;
    int ca;
    tb_err e;
    assert_int_equal(tb_snp_ext_parse(ok, sizeof ok, &x, &ca, &e), 0);
    assert_int_equal(x.bl, 3);
    assert_false(x.has_tcb);
    uint8_t m[sizeof ok];
    memcpy(m, ok, sizeof m);
    m[20] = 0x80; /* a negative SPL */
    assert_int_equal(tb_snp_ext_parse(m, sizeof m, &x, &ca, &e), -1);
    memcpy(m, ok, sizeof m);
    m[1] = 0x81; /* a long-form length below 128 */
    assert_int_equal(tb_snp_ext_parse(m, sizeof m, &x, &ca, &e), -1);
    for (size_t k = 0; k < sizeof ok; k++)
        assert_int_equal(tb_snp_ext_parse(ok, k, &x, &ca, &e), -1);
    /* a duplicate */
    uint8_t dup[2 + 2 * 19] = {0x30, 0x26};
    memcpy(dup + 2, ok + 2, 19);
    memcpy(dup + 21, ok + 2, 19);
    assert_int_equal(tb_snp_ext_parse(dup, sizeof dup, &x, &ca, &e), -1);
}

/* The SIMULATED provider with the committed sim PKI (tests/data/snp-sim: RSA-4096 key
 * generation takes seconds, so the tests do not make one): its reports verify with its
 * ARK as root, never with AMD's; its CRL revokes; a debug guest is refused. */
static void test_sim(void **state)
{
    (void)state;
    const char *dir = TEEBENCH_SOURCE_DIR "/tests/data/snp-sim";
    uint8_t rd[64] = {1, 2, 3}, *rep, *ark;
    size_t n, arkn;
    tb_err e;
    char out[256], rev[300];
    make_tmpdir(out, sizeof out);
    snprintf(rev, sizeof rev, "%s/revoked", out);
    int64_t now = (int64_t)time(NULL);
    assert_int_equal(tb_snp_sim_report(dir, rd, 0, &rep, &n, &e), 0);
    assert_int_equal(n, TB_SNP_REPORT_LEN);
    assert_int_equal(tb_snp_sim_certs(dir, out, now, 0, &e), 0);
    assert_int_equal(tb_snp_sim_certs(dir, rev, now, 1, &e), 0);
    assert_int_equal(tb_snp_sim_ark(dir, &ark, &arkn, &e), 0);
    tb_snp_report r;
    assert_int_equal(tb_snp_parse(rep, n, &r, &e), 0);
    assert_true(tb_snp_is_simulated(&r));
    assert_memory_equal(r.report_data, rd, 64);
    tb_snp_certs c, cr;
    assert_int_equal(tb_snp_certs_load(out, &c, &e), 0);
    assert_int_equal(tb_snp_certs_load(rev, &cr, &e), 0);
    tb_snp_verdict v;
    assert_int_equal(tb_snp_verify(rep, n, &c, now, NULL, ark, arkn, &v), 0);
    assert_true(v.simulated && v.crl_checked);
    assert_int_equal(v.product, TB_SNP_MILAN);
    /* not with AMD's ARK */
    expect(rep, &c, now, NULL, TB_ATTEST_INVALID, TB_SNP_STEP_ARK);
    /* revoked VCEK; stale CRL */
    tb_snp_verify(rep, n, &cr, now, NULL, ark, arkn, &v);
    assert_int_equal(v.step, TB_SNP_STEP_CRL);
    assert_non_null(strstr(v.reason, "revoked"));
    tb_snp_verify(rep, n, &c, now + 31 * 86400, NULL, ark, arkn, &v);
    assert_int_equal(v.result, TB_ATTEST_EXPIRED);
    assert_int_equal(v.step, TB_SNP_STEP_CRL);
    tb_snp_verify(rep, n, &c, now - 7200, NULL, ark, arkn, &v); /* before thisUpdate */
    assert_int_equal(v.result, TB_ATTEST_INVALID);
    assert_int_equal(v.step, TB_SNP_STEP_CRL);
    /* the sim CRL with AMD's Milan chain: not issued by that ARK */
    tb_snp_certs m;
    uint8_t real[TB_SNP_REPORT_LEN];
    milan_certs(&m);
    load_report("report_milan.hex", real);
    m.crl = c.crl;
    m.crl_len = c.crl_len;
    expect(real, &m, NOW, NULL, TB_ATTEST_INVALID, TB_SNP_STEP_CRL);
    m.crl = NULL;
    tb_snp_certs_clear(&m);
    /* every one-byte change of the CRL's bytes is caught */
    for (size_t i = 0; i < c.crl_len; i += 7) {
        c.crl[i] ^= 0x01;
        assert_int_equal(tb_snp_verify(rep, n, &c, now, NULL, ark, arkn, &v), -1);
        c.crl[i] ^= 0x01;
    }
    /* the provider opened once gives reports that verify the same, each with its data */
    tb_snp_sim *h;
    assert_int_equal(tb_snp_sim_open(dir, &h, &e), 0);
    for (int i = 0; i < 2; i++) {
        uint8_t *hr;
        size_t hn;
        rd[0] = (uint8_t)(10 + i);
        assert_int_equal(tb_snp_sim_quote(h, rd, 0, &hr, &hn, &e), 0);
        assert_int_equal(tb_snp_verify(hr, hn, &c, now, NULL, ark, arkn, &v), 0);
        assert_int_equal(tb_snp_parse(hr, hn, &r, &e), 0);
        assert_memory_equal(r.report_data, rd, 64);
        free(hr);
    }
    tb_snp_sim_close(h);
    tb_snp_sim_close(NULL);
    /* a debug guest is refused unless allowed */
    free(rep);
    assert_int_equal(tb_snp_sim_report(dir, rd, 1, &rep, &n, &e), 0);
    tb_snp_verify(rep, n, &c, now, NULL, ark, arkn, &v);
    assert_int_equal(v.result, TB_ATTEST_REFUSED);
    assert_true(v.debug);
    free(rep);
    free(ark);
    tb_snp_certs_clear(&c);
    tb_snp_certs_clear(&cr);
    rm_rf(rev);
    rm_rf(out);
}

/* The verifier's copy of the sim certificates: made once, then read from disk (the same
 * CRL bytes), made again when the CRL would not be valid for another day. */
static void test_sim_certs_cached(void **state)
{
    (void)state;
    char dir[256], cmd[700];
    make_tmpdir(dir, sizeof dir);
    snprintf(cmd, sizeof cmd, "cp -r '%s/tests/data/snp-sim/.' '%s/'", TEEBENCH_SOURCE_DIR, dir);
    assert_int_equal(system(cmd), 0);
    int64_t now = (int64_t)time(NULL);
    tb_err e;
    tb_snp_certs a, b, later;
    assert_int_equal(tb_snp_sim_certs_cached(dir, now, &a, &e), 0);
    assert_non_null(a.vcek);
    assert_non_null(a.crl);
    assert_int_equal(tb_snp_sim_certs_cached(dir, now + 60, &b, &e), 0);
    assert_int_equal(a.crl_len, b.crl_len);
    assert_memory_equal(a.crl, b.crl, a.crl_len); /* read back, not signed again */
    assert_int_equal(tb_snp_sim_certs_cached(dir, now + 29 * 86400 + 1, &later, &e), 0);
    assert_true(later.crl_len != a.crl_len || memcmp(later.crl, a.crl, a.crl_len));
    /* the certificates verify a sim report, as the notary's verifier uses them */
    uint8_t rd[64] = {9}, *rep, *ark;
    size_t n, arkn;
    assert_int_equal(tb_snp_sim_report(dir, rd, 0, &rep, &n, &e), 0);
    assert_int_equal(tb_snp_sim_ark(dir, &ark, &arkn, &e), 0);
    tb_snp_verdict v;
    assert_int_equal(tb_snp_verify(rep, n, &b, now, NULL, ark, arkn, &v), 0);
    assert_true(v.simulated && v.crl_checked);
    free(rep);
    free(ark);
    tb_snp_certs_clear(&a);
    tb_snp_certs_clear(&b);
    tb_snp_certs_clear(&later);
    rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_roundtrip),
        cmocka_unit_test(test_certs_and_roots),
        cmocka_unit_test(test_verify_real),
        cmocka_unit_test(test_verify_every_byte),
        cmocka_unit_test(test_policy),
        cmocka_unit_test(test_ext_strict),
        cmocka_unit_test(test_sim),
        cmocka_unit_test(test_sim_certs_cached),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
