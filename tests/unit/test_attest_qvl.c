/* Unit tests for Intel QVL's rules in attest/tdx/verify and attest/tdx/tcbinfo, one test (or more)
 * per rule, named after the QVL file that states it (SGX-TDX-DCAP-QuoteVerificationLibrary,
 * Src/AttestationLibrary/src/... and Src/AttestationParsers/src/Json/...; QvE's qve.cpp in
 * SGXDataCenterAttestationPrimitives). Each builds its collateral as text, signs it with the
 * SIMULATED PKI (provider_sim.c, so every signature is valid and only the semantics differ)
 * and makes quotes with tb_tdx_sim_quote_custom.
 *
 * The simulated platform: SGX components {3,3,2,2,4,1,0,5,0...}, PCESVN 13, TEE_TCB_SVN
 * {5,1,3,0...} (TDX module TDX_01 at SVN 5), QE ISVSVN 4, FMSPC feeb00000000. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <time.h>

#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "attest_test_util.h"
#include "base/clock.h"
#include "base/hex.h"

static const uint8_t SGX[16] = {3, 3, 2, 2, 4, 1, 0, 5};
static const uint8_t TDX_SVN[16] = {5, 1, 3};

/* ------------------------------------------------------------- fixture */

typedef struct env {
    char tmp[256], dir[300];
    int64_t now;
    tb_attest_root *root;
    tb_tdx_collateral base; /* the sim collateral (valid, UpToDate) */
    EVP_PKEY *root_k, *ca_k, *pck_k, *tcb_k;
    X509 *root_x, *ca_x, *pck_x;
} env;

static EVP_PKEY *read_key(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "r");
    assert_non_null(f);
    EVP_PKEY *k = PEM_read_PrivateKey(f, NULL, NULL, NULL);
    fclose(f);
    assert_non_null(k);
    return k;
}

static X509 *read_cert(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "r");
    assert_non_null(f);
    X509 *x = PEM_read_X509(f, NULL, NULL, NULL);
    fclose(f);
    assert_non_null(x);
    return x;
}

static int setup(void **state)
{
    env *e = calloc(1, sizeof *e);
    make_tmpdir(e->tmp, sizeof e->tmp);
    snprintf(e->dir, sizeof e->dir, "%s/sim", e->tmp);
    e->now = (int64_t)time(NULL);
    tb_err err;
    assert_int_equal(tb_tdx_sim_collateral(e->dir, e->now, 0, &e->base, &e->root, &err), 0);
    e->root_k = read_key(e->dir, "root.key");
    e->ca_k = read_key(e->dir, "pck-ca.key");
    e->pck_k = read_key(e->dir, "pck.key");
    e->tcb_k = read_key(e->dir, "tcb-signing.key");
    e->root_x = read_cert(e->dir, "sim-root.pem");
    e->ca_x = read_cert(e->dir, "pck-ca.pem");
    e->pck_x = read_cert(e->dir, "pck.pem");
    *state = e;
    return 0;
}

static int teardown(void **state)
{
    env *e = *state;
    tb_tdx_collateral_clear(&e->base);
    tb_attest_root_free(e->root);
    EVP_PKEY_free(e->root_k);
    EVP_PKEY_free(e->ca_k);
    EVP_PKEY_free(e->pck_k);
    EVP_PKEY_free(e->tcb_k);
    X509_free(e->root_x);
    X509_free(e->ca_x);
    X509_free(e->pck_x);
    rm_rf(e->tmp);
    free(e);
    return 0;
}

/* ------------------------------------------------- collateral as text */

static void iso(int64_t t, char out[32])
{
    tb_utc_iso8601(t, out, 32);
}

static void comps(tb_buf *b, const uint8_t c[16])
{
    for (int i = 0; i < 16; i++)
        tb_buf_printf(b, "%s{\"svn\":%d}", i ? "," : "", c[i]);
}

/* A platform TCB level. adv: a JSON array text or NULL. */
static void plat(tb_buf *b, const uint8_t sgx[16], int pcesvn, const uint8_t tdx[16],
                 const char *status, const char *date, const char *adv)
{
    if (b->len && b->p[b->len - 1] != '[')
        tb_buf_printf(b, ",");
    tb_buf_printf(b, "{\"tcb\":{\"sgxtcbcomponents\":[");
    comps(b, sgx);
    tb_buf_printf(b, "],\"pcesvn\":%d,\"tdxtcbcomponents\":[", pcesvn);
    comps(b, tdx);
    tb_buf_printf(b, "]},\"tcbDate\":\"%s\",\"tcbStatus\":\"%s\"", date, status);
    if (adv)
        tb_buf_printf(b, ",\"advisoryIDs\":%s", adv);
    tb_buf_printf(b, "}");
}

/* A TDX module identity; levels: JSON text of its tcbLevels array's content. */
static void module_id(tb_buf *b, const char *id, const char *attributes, const char *mask,
                      const char *levels)
{
    if (b->len && b->p[b->len - 1] != '[')
        tb_buf_printf(b, ",");
    tb_buf_printf(b,
                  "{\"id\":\"%s\",\"mrsigner\":\"%096d\",\"attributes\":\"%s\","
                  "\"attributesMask\":\"%s\",\"tcbLevels\":[%s]}",
                  id, 0, attributes, mask, levels);
}

#define MOD_OK                                                                                     \
    "{\"tcb\":{\"isvsvn\":5},\"tcbDate\":\"2024-05-01T00:00:00Z\",\"tcbStatus\":\"UpToDate\"},"    \
    "{\"tcb\":{\"isvsvn\":1},\"tcbDate\":\"2023-01-01T00:00:00Z\",\"tcbStatus\":\"OutOfDate\"}"

/* A whole TCB info: head replaces the default head fields after "pceId" (NULL: the
 * defaults), ids the tdxModuleIdentities content (NULL: a TDX_01 identity with levels
 * isvsvn 5 UpToDate and 1 OutOfDate; "-": no tdxModuleIdentities), levels the tcbLevels
 * content. */
static char *tcb_info(const env *e, const char *head, const char *ids, const char *levels)
{
    char a[32], z[32];
    iso(e->now - 3600, a);
    iso(e->now + 30LL * 86400, z);
    tb_buf b = {0};
    tb_buf_printf(&b,
                  "{\"id\":\"TDX\",\"version\":3,\"issueDate\":\"%s\",\"nextUpdate\":\"%s\","
                  "\"fmspc\":\"feeb00000000\",\"pceId\":\"0000\",%s",
                  a, z,
                  head ? head
                       : "\"tcbType\":0,\"tcbEvaluationDataNumber\":1,\"tdxModule\":{\"mrsigner\":"
                         "\"000000000000000000000000000000000000000000000000000000000000000000000"
                         "000000000000000000000000000\",\"attributes\":\"0000000000000000\","
                         "\"attributesMask\":\"FFFFFFFFFFFFFFFF\"},");
    if (!ids) {
        tb_buf d = {0};
        module_id(&d, "TDX_01", "0000000000000000", "FFFFFFFFFFFFFFFF", MOD_OK);
        tb_buf_printf(&b, "\"tdxModuleIdentities\":[%s],", (char *)d.p);
        tb_buf_clear(&d);
    } else if (strcmp(ids, "-")) {
        tb_buf_printf(&b, "\"tdxModuleIdentities\":[%s],", ids);
    }
    tb_buf_printf(&b, "\"tcbLevels\":[%s]}", levels);
    return (char *)b.p;
}

/* The sim QE identity with other miscselect and tcbLevels content. */
static char *qe_identity(const env *e, const char *miscselect, const char *levels)
{
    char a[32], z[32], signer[65];
    uint8_t mr[32];
    unsigned n = 0;
    EVP_Digest("teebench SIMULATED QE signer", 28, mr, &n, EVP_sha256(), NULL);
    tb_hex_encode(mr, 32, signer);
    iso(e->now - 3600, a);
    iso(e->now + 30LL * 86400, z);
    tb_buf b = {0};
    tb_buf_printf(&b,
                  "{\"id\":\"TD_QE\",\"version\":2,\"issueDate\":\"%s\",\"nextUpdate\":\"%s\","
                  "\"tcbEvaluationDataNumber\":1,\"miscselect\":\"%s\",\"miscselectMask\":"
                  "\"FFFFFFFF\",\"attributes\":\"11000000000000000000000000000000\","
                  "\"attributesMask\":\"FBFFFFFFFFFFFFFF0000000000000000\",\"mrsigner\":\"%s\","
                  "\"isvprodid\":2,\"tcbLevels\":[%s]}",
                  a, z, miscselect, signer, levels);
    return (char *)b.p;
}

#define QE_OK                                                                                      \
    "{\"tcb\":{\"isvsvn\":4},\"tcbDate\":\"2024-06-01T00:00:00Z\",\"tcbStatus\":\"UpToDate\"}"

/* A copy of the sim collateral with this TCB info and QE identity (NULL: keep), signed
 * by the sim TCB signing key. Takes ownership of the texts. */
static void collateral(const env *e, char *tcb, char *qe, tb_tdx_collateral *c)
{
    char *json;
    tb_err err;
    assert_int_equal(tb_tdx_collateral_to_json(&e->base, &json, &err), 0);
    assert_int_equal(tb_tdx_collateral_parse_json(json, strlen(json), c, &err), 0);
    free(json);
    if (tcb) {
        free(c->tcb_info);
        c->tcb_info = tcb;
        c->tcb_info_len = strlen(tcb);
        assert_int_equal(tb_attest_ecdsa_sign_raw(e->tcb_k, tcb, strlen(tcb), c->tcb_info_sig), 0);
    }
    if (qe) {
        free(c->qe_identity);
        c->qe_identity = qe;
        c->qe_identity_len = strlen(qe);
        assert_int_equal(tb_attest_ecdsa_sign_raw(e->tcb_k, qe, strlen(qe), c->qe_identity_sig), 0);
    }
}

/* A sim quote with these parameters (NULL: the default sim quote). */
static tb_buf quote(const env *e, const tb_tdx_sim_quote_params *par)
{
    uint8_t rd[64] = {0}, *q;
    size_t n;
    tb_err err;
    tb_tdx_sim_quote_params def = {0};
    assert_int_equal(tb_tdx_sim_quote_custom(e->dir, rd, par ? par : &def, &q, &n, &err), 0);
    return (tb_buf){.p = q, .len = n, .cap = n};
}

static tb_tdx_verdict verify_with(const env *e, const tb_buf *q, const tb_tdx_collateral *c,
                                  const tb_attest_policy *pol)
{
    tb_tdx_verdict v, pv;
    tb_tdx_verify(q->p, q->len, c, e->now, pol, e->root, &v);
    /* Prepared collateral gives the same verdict. */
    tb_tdx_prepared *p = NULL;
    tb_err err;
    if (tb_tdx_prepare(c, e->now, e->root, &p, &pv, &err) == 0) {
        tb_tdx_verify_prepared(q->p, q->len, p, e->now, pol, &pv);
        tb_tdx_prepared_free(p);
    }
    assert_int_equal(pv.result, v.result);
    assert_string_equal(pv.reason, v.reason);
    if (v.result != TB_ATTEST_ACCEPTED && v.result != TB_ATTEST_REFUSED)
        fprintf(stderr, "  (verdict %d at %s: %s)\n", v.result, tb_tdx_step_name(v.step), v.reason);
    return v;
}

/* Verifies the default sim quote against (tcb, qe) collateral. */
static tb_tdx_verdict verify_texts(const env *e, char *tcb, char *qe, const tb_attest_policy *pol)
{
    tb_tdx_collateral c;
    collateral(e, tcb, qe, &c);
    tb_buf q = quote(e, NULL);
    tb_tdx_verdict v = verify_with(e, &q, &c, pol);
    tb_buf_clear(&q);
    tb_tdx_collateral_clear(&c);
    return v;
}

static void expect_status(const tb_tdx_verdict *v, tb_attest_tcb_status s)
{
    assert_true(v->status_known);
    if (v->status != s)
        fprintf(stderr, "status %s, want %s\n", tb_attest_tcb_status_name(v->status),
                tb_attest_tcb_status_name(s));
    assert_int_equal(v->status, s);
}

static void expect_invalid(const tb_tdx_verdict *v, tb_tdx_step step, const char *part)
{
    if (v->result != TB_ATTEST_INVALID || v->step != step || !strstr(v->reason, part))
        fprintf(stderr, "got %d at %s: \"%s\"; want INVALID at %s with \"%s\"\n", v->result,
                tb_tdx_step_name(v->step), v->reason, tb_tdx_step_name(step), part);
    assert_int_equal(v->result, TB_ATTEST_INVALID);
    assert_int_equal(v->step, step);
    assert_non_null(strstr(v->reason, part));
}

static const uint8_t *dec(const uint8_t c[16], int i)
{
    static uint8_t out[4][16];
    static int k;
    uint8_t *o = out[k++ % 4];
    memcpy(o, c, 16);
    if (o[i])
        o[i]--;
    return o;
}

/* ---------------------------------------------------------- 1. level order */

/* TcbLevel.cpp operator> + TcbInfo.cpp's std::set: not document order. A lower level
 * written first must not win over a higher one that also matches. */
static void test_qvl_TcbLevel_cpp_order_highest_first(void **state)
{
    env *e = *state;
    tb_buf l = {0};
    /* SGX components differ: the lower one (component 0 = 2) first. */
    plat(&l, dec(SGX, 0), 13, TDX_SVN, "OutOfDate", "2023-01-01T00:00:00Z", NULL);
    plat(&l, SGX, 13, TDX_SVN, "UpToDate", "2024-05-01T00:00:00Z", NULL);
    tb_tdx_verdict v = verify_texts(e, tcb_info(e, NULL, NULL, (char *)l.p), NULL, NULL);
    expect_status(&v, TB_ATTEST_TCB_UP_TO_DATE);
    assert_string_equal(v.tcb_date, "2024-05-01T00:00:00Z");
    /* Same SGX components: PCESVN next, then TDX components. */
    tb_buf_reset(&l);
    plat(&l, SGX, 12, TDX_SVN, "SWHardeningNeeded", "2023-01-01T00:00:00Z", NULL);
    plat(&l, SGX, 13, dec(TDX_SVN, 2), "ConfigurationNeeded", "2023-06-01T00:00:00Z", NULL);
    plat(&l, SGX, 13, TDX_SVN, "UpToDate", "2024-05-01T00:00:00Z", NULL);
    v = verify_texts(e, tcb_info(e, NULL, NULL, (char *)l.p), NULL, NULL);
    expect_status(&v, TB_ATTEST_TCB_UP_TO_DATE);
    tb_buf_clear(&l);
}

/* TcbInfo.cpp: "Detected duplicated TCB levels"; TdxModuleIdentity.cpp: the same for
 * module levels (same ISVSVN). */
static void test_qvl_TcbInfo_cpp_duplicate_levels_invalid(void **state)
{
    env *e = *state;
    tb_buf l = {0};
    plat(&l, SGX, 13, TDX_SVN, "UpToDate", "2024-05-01T00:00:00Z", NULL);
    plat(&l, SGX, 13, TDX_SVN, "OutOfDate", "2023-01-01T00:00:00Z", NULL);
    tb_tdx_verdict v = verify_texts(e, tcb_info(e, NULL, NULL, (char *)l.p), NULL, NULL);
    expect_invalid(&v, TB_TDX_STEP_TCB_INFO, "duplicate TCB levels");
    tb_buf ids = {0};
    module_id(&ids, "TDX_01", "0000000000000000", "FFFFFFFFFFFFFFFF",
              MOD_OK ",{\"tcb\":{\"isvsvn\":5},\"tcbDate\":\"2024-05-01T00:00:00Z\",\"tcbStatus\":"
                     "\"Revoked\"}");
    tb_buf_reset(&l);
    plat(&l, SGX, 13, TDX_SVN, "UpToDate", "2024-05-01T00:00:00Z", NULL);
    v = verify_texts(e, tcb_info(e, NULL, (char *)ids.p, (char *)l.p), NULL, NULL);
    expect_invalid(&v, TB_TDX_STEP_TCB_INFO, "duplicate TDX module TCB levels");
    tb_buf_clear(&l);
    tb_buf_clear(&ids);
}

/* TdxModuleIdentity.cpp: module levels sorted by ISVSVN, highest first. */
static void test_qvl_TdxModuleIdentity_cpp_levels_highest_first(void **state)
{
    env *e = *state;
    tb_buf ids = {0}, l = {0};
    module_id(&ids, "TDX_01", "0000000000000000", "FFFFFFFFFFFFFFFF",
              "{\"tcb\":{\"isvsvn\":1},\"tcbDate\":\"2023-01-01T00:00:00Z\",\"tcbStatus\":"
              "\"OutOfDate\"},{\"tcb\":{\"isvsvn\":5},\"tcbDate\":\"2024-05-01T00:00:00Z\","
              "\"tcbStatus\":\"UpToDate\"}");
    plat(&l, SGX, 13, TDX_SVN, "UpToDate", "2024-05-01T00:00:00Z", NULL);
    tb_tdx_verdict v = verify_texts(e, tcb_info(e, NULL, (char *)ids.p, (char *)l.p), NULL, NULL);
    expect_status(&v, TB_ATTEST_TCB_UP_TO_DATE);
    assert_int_equal(v.module_status, TB_ATTEST_TCB_UP_TO_DATE);
    assert_string_equal(v.module_tcb_date, "2024-05-01T00:00:00Z");
    tb_buf_clear(&ids);
    tb_buf_clear(&l);
}

/* ------------------------------------------------ 2. module identity lookup */

/* TdxModuleCheck.cpp findTdxModuleIdentity: "TDX_" + upper-case hex, each id upper-cased,
 * std::find_if: the first match wins. */
static void test_qvl_TdxModuleCheck_cpp_identity_case_and_first_wins(void **state)
{
    env *e = *state;
    tb_buf ids = {0}, l = {0};
    module_id(&ids, "tdx_01", "0000000000000000", "FFFFFFFFFFFFFFFF", MOD_OK);
    module_id(&ids, "TDX_01", "0000000000000000", "FFFFFFFFFFFFFFFF",
              "{\"tcb\":{\"isvsvn\":5},\"tcbDate\":\"2024-05-01T00:00:00Z\",\"tcbStatus\":"
              "\"Revoked\"}");
    plat(&l, SGX, 13, TDX_SVN, "UpToDate", "2024-05-01T00:00:00Z", NULL);
    tb_tdx_verdict v = verify_texts(e, tcb_info(e, NULL, (char *)ids.p, (char *)l.p), NULL, NULL);
    expect_status(&v, TB_ATTEST_TCB_UP_TO_DATE); /* "tdx_01", first, not the Revoked one */
    /* No identity for major version 1: TDX_MODULE_MISMATCH. */
    tb_buf_reset(&ids);
    module_id(&ids, "TDX_02", "0000000000000000", "FFFFFFFFFFFFFFFF", MOD_OK);
    v = verify_texts(e, tcb_info(e, NULL, (char *)ids.p, (char *)l.p), NULL, NULL);
    expect_invalid(&v, TB_TDX_STEP_TDX_MODULE, "TDX_MODULE_MISMATCH");
    tb_buf_clear(&ids);
    tb_buf_clear(&l);
}

/* ------------------------------------------------- 3. module status values */

/* TcbStatus.h VALID_MODULE_TCB_STATUSES via TdxModuleCheck.cpp: the matched module level
 * may only be UpToDate, OutOfDate or Revoked; anything else is TCB_UNRECOGNIZED_STATUS. A
 * level that is not matched is not judged. */
static void test_qvl_TdxModuleCheck_cpp_module_status_values(void **state)
{
    env *e = *state;
    tb_buf ids = {0}, l = {0};
    plat(&l, SGX, 13, TDX_SVN, "UpToDate", "2024-05-01T00:00:00Z", NULL);
    module_id(&ids, "TDX_01", "0000000000000000", "FFFFFFFFFFFFFFFF",
              "{\"tcb\":{\"isvsvn\":5},\"tcbDate\":\"2024-05-01T00:00:00Z\",\"tcbStatus\":"
              "\"ConfigurationNeeded\"}");
    tb_tdx_verdict v = verify_texts(e, tcb_info(e, NULL, (char *)ids.p, (char *)l.p), NULL, NULL);
    expect_invalid(&v, TB_TDX_STEP_TDX_MODULE, "TCB_UNRECOGNIZED_STATUS");
    assert_false(v.status_known);
    tb_buf_reset(&ids);
    module_id(&ids, "TDX_01", "0000000000000000", "FFFFFFFFFFFFFFFF",
              "{\"tcb\":{\"isvsvn\":5},\"tcbDate\":\"2024-05-01T00:00:00Z\",\"tcbStatus\":"
              "\"UpToDate\"},{\"tcb\":{\"isvsvn\":2},\"tcbDate\":\"2023-01-01T00:00:00Z\","
              "\"tcbStatus\":\"SomethingElse\"}");
    v = verify_texts(e, tcb_info(e, NULL, (char *)ids.p, (char *)l.p), NULL, NULL);
    expect_status(&v, TB_ATTEST_TCB_UP_TO_DATE);
    /* OutOfDate and Revoked combine (TdxModuleCheck.cpp convergeTcbStatusWithTdxModuleStatus). */
    tb_buf_reset(&ids);
    module_id(&ids, "TDX_01", "0000000000000000", "FFFFFFFFFFFFFFFF",
              "{\"tcb\":{\"isvsvn\":5},\"tcbDate\":\"2024-05-01T00:00:00Z\",\"tcbStatus\":"
              "\"OutOfDate\"}");
    tb_buf_reset(&l);
    plat(&l, SGX, 13, TDX_SVN, "ConfigurationNeeded", "2024-05-01T00:00:00Z", NULL);
    v = verify_texts(e, tcb_info(e, NULL, (char *)ids.p, (char *)l.p), NULL, NULL);
    expect_status(&v, TB_ATTEST_TCB_OUT_OF_DATE_CONFIGURATION_NEEDED);
    tb_buf_clear(&ids);
    tb_buf_clear(&l);
}

/* ---------------------------------------------------------- 4. SEAMATTRIBUTES */

/* QuoteVerifier.cpp 4.1.2.4.11.2: every SEAMATTRIBUTES byte must be 0 and equal to the
 * module identity's attributes; the mask is not applied. */
static void test_qvl_QuoteVerifier_cpp_seamattributes_zero_unmasked(void **state)
{
    env *e = *state;
    tb_buf ids = {0}, l = {0};
    plat(&l, SGX, 13, TDX_SVN, "UpToDate", "2024-05-01T00:00:00Z", NULL);
    /* Quote 01.., identity 01.. with mask 00..: a masked comparison would accept it. */
    module_id(&ids, "TDX_01", "0100000000000000", "0000000000000000", MOD_OK);
    tb_tdx_collateral c;
    collateral(e, tcb_info(e, NULL, (char *)ids.p, (char *)l.p), NULL, &c);
    tb_tdx_sim_quote_params par = {.seam_attributes = {1}};
    tb_buf q = quote(e, &par);
    tb_tdx_verdict v = verify_with(e, &q, &c, NULL);
    expect_invalid(&v, TB_TDX_STEP_TDX_MODULE, "SEAMATTRIBUTES");
    /* The quote's zero SEAMATTRIBUTES against non-zero identity attributes: invalid too. */
    tb_buf_clear(&q);
    q = quote(e, NULL);
    v = verify_with(e, &q, &c, NULL);
    expect_invalid(&v, TB_TDX_STEP_TDX_MODULE, "SEAMATTRIBUTES");
    tb_tdx_collateral_clear(&c);
    /* Zero and zero, whatever the mask: valid. */
    tb_buf_reset(&ids);
    module_id(&ids, "TDX_01", "0000000000000000", "0000000000000000", MOD_OK);
    collateral(e, tcb_info(e, NULL, (char *)ids.p, (char *)l.p), NULL, &c);
    v = verify_with(e, &q, &c, NULL);
    expect_status(&v, TB_ATTEST_TCB_UP_TO_DATE);
    tb_tdx_collateral_clear(&c);
    tb_buf_clear(&q);
    tb_buf_clear(&ids);
    tb_buf_clear(&l);
}

/* ----------------------------------------------------------- 5. QE identity */

static char *default_tcb(const env *e)
{
    tb_buf ids = {0}, l = {0};
    module_id(&ids, "TDX_01", "0000000000000000", "FFFFFFFFFFFFFFFF", MOD_OK);
    plat(&l, SGX, 13, TDX_SVN, "UpToDate", "2024-05-01T00:00:00Z", NULL);
    char *t = tcb_info(e, NULL, (char *)ids.p, (char *)l.p);
    tb_buf_clear(&ids);
    tb_buf_clear(&l);
    return t;
}

/* EnclaveReportVerifier.cpp + EnclaveIdentityV2.cpp getTcbStatus: a QE ISVSVN below
 * every level is STATUS_SGX_ENCLAVE_REPORT_ISVSVN_NOT_SUPPORTED, which TcbLevelCheck.cpp
 * turns into TCB_NOT_SUPPORTED (QVL before mid-2023: Revoked). */
static void test_qvl_EnclaveReportVerifier_cpp_qe_below_every_level_not_supported(void **state)
{
    env *e = *state;
    tb_tdx_verdict v =
        verify_texts(e, default_tcb(e),
                     qe_identity(e, "00000000",
                                 "{\"tcb\":{\"isvsvn\":6},\"tcbDate\":\"2024-06-01T00:00:00Z\","
                                 "\"tcbStatus\":\"UpToDate\"}"),
                     NULL);
    expect_invalid(&v, TB_TDX_STEP_QE_IDENTITY, "TCB_NOT_SUPPORTED");
}

/* EnclaveReportVerifier.cpp: a QE level that is not UpToDate or Revoked is OutOfDate;
 * EnclaveIdentityV2.cpp parses only five statuses (TcbStatus.h parseStringToTcbStatus). */
static void test_qvl_EnclaveIdentityV2_cpp_qe_statuses(void **state)
{
    env *e = *state;
    tb_tdx_verdict v =
        verify_texts(e, default_tcb(e),
                     qe_identity(e, "00000000",
                                 "{\"tcb\":{\"isvsvn\":4},\"tcbDate\":\"2024-06-01T00:00:00Z\","
                                 "\"tcbStatus\":\"ConfigurationNeeded\"}"),
                     NULL);
    expect_status(&v, TB_ATTEST_TCB_OUT_OF_DATE);
    assert_int_equal(v.qe_status, TB_ATTEST_TCB_OUT_OF_DATE);
    assert_int_equal(v.result, TB_ATTEST_REFUSED);
    v = verify_texts(e, default_tcb(e),
                     qe_identity(e, "00000000",
                                 "{\"tcb\":{\"isvsvn\":4},\"tcbDate\":\"2024-06-01T00:00:00Z\","
                                 "\"tcbStatus\":\"Revoked\"}"),
                     NULL);
    expect_status(&v, TB_ATTEST_TCB_REVOKED);
    v = verify_texts(e, default_tcb(e),
                     qe_identity(e, "00000000",
                                 "{\"tcb\":{\"isvsvn\":4},\"tcbDate\":\"2024-06-01T00:00:00Z\","
                                 "\"tcbStatus\":\"SWHardeningNeeded\"}"),
                     NULL);
    expect_invalid(&v, TB_TDX_STEP_QE_IDENTITY, "not a QE identity status");
    /* Document order: the first level with isvsvn <= 4 wins, not the highest. */
    v = verify_texts(e, default_tcb(e),
                     qe_identity(e, "00000000",
                                 "{\"tcb\":{\"isvsvn\":2},\"tcbDate\":\"2023-06-01T00:00:00Z\","
                                 "\"tcbStatus\":\"OutOfDate\"}," QE_OK),
                     NULL);
    expect_status(&v, TB_ATTEST_TCB_OUT_OF_DATE);
}

/* EnclaveReportVerifier.cpp vectorToUint32: the identity's MISCSELECT hex is read as the
 * little-endian value the QE report holds ("01000000" is 0x00000001). */
static void test_qvl_EnclaveReportVerifier_cpp_miscselect_byte_order(void **state)
{
    env *e = *state;
    tb_tdx_sim_quote_params par = {.qe_miscselect = 1};
    tb_buf q = quote(e, &par);
    tb_tdx_collateral c;
    collateral(e, default_tcb(e), qe_identity(e, "01000000", QE_OK), &c);
    tb_tdx_verdict v = verify_with(e, &q, &c, NULL);
    expect_status(&v, TB_ATTEST_TCB_UP_TO_DATE);
    tb_tdx_collateral_clear(&c);
    collateral(e, default_tcb(e), qe_identity(e, "00000001", QE_OK), &c);
    v = verify_with(e, &q, &c, NULL);
    expect_invalid(&v, TB_TDX_STEP_QE_IDENTITY, "MISCSELECT");
    tb_tdx_collateral_clear(&c);
    tb_buf_clear(&q);
}

/* ------------------------------------------------------ 6. certificate roles */

static X509 *make_cert(const char *cn, EVP_PKEY *key, X509 *issuer, EVP_PKEY *issuer_key, int ca,
                       const X509 *copy_sgx_ext_from)
{
    X509 *x = X509_new();
    X509_NAME *name = X509_NAME_new();
    X509_set_version(x, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(x), (long)(uintptr_t)key & 0x7fffffff);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0);
    X509_set_subject_name(x, name);
    X509_set_issuer_name(x, X509_get_subject_name(issuer));
    X509_gmtime_adj(X509_getm_notBefore(x), -86400);
    X509_gmtime_adj(X509_getm_notAfter(x), 86400L * 365);
    X509_set_pubkey(x, key);
    X509V3_CTX ctx;
    X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);
    X509_EXTENSION *bc = X509V3_EXT_conf_nid(NULL, &ctx, NID_basic_constraints,
                                             ca ? "critical,CA:TRUE" : "CA:FALSE");
    X509_add_ext(x, bc, -1);
    X509_EXTENSION_free(bc);
    if (copy_sgx_ext_from) {
        ASN1_OBJECT *oid = OBJ_txt2obj("1.2.840.113741.1.13.1", 1);
        int at = X509_get_ext_by_OBJ(copy_sgx_ext_from, oid, -1);
        assert_true(at >= 0);
        X509_add_ext(x, X509_get_ext(copy_sgx_ext_from, at), -1);
        ASN1_OBJECT_free(oid);
    }
    assert_true(X509_sign(x, issuer_key, EVP_sha256()) > 0);
    X509_NAME_free(name);
    return x;
}

static void pem_append(tb_buf *b, X509 *x)
{
    BIO *bio = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(bio, x);
    char *p;
    long n = BIO_get_mem_data(bio, &p);
    tb_buf_append(b, p, (size_t)n);
    BIO_free(bio);
}

/* TCBSigningChain.cpp: the TCB info / QE identity signer's CN must contain "SGX TCB
 * Signing" (any other certificate the root issued is not a TCB signer); the chain is two
 * certificates ending in the trusted root (QuoteVerification.cpp). */
static void test_qvl_TCBSigningChain_cpp_signer_role(void **state)
{
    env *e = *state;
    EVP_PKEY *k = EVP_EC_gen("P-256");
    X509 *other =
        make_cert("teebench SIMULATED SGX Other Signer", k, e->root_x, e->root_k, 0, NULL);
    tb_buf chain = {0};
    pem_append(&chain, other);
    pem_append(&chain, e->root_x);
    tb_buf_append(&chain, "", 1);
    tb_tdx_collateral c;
    collateral(e, NULL, NULL, &c);
    free(c.tcb_info_issuer_chain);
    c.tcb_info_issuer_chain = strdup((char *)chain.p);
    assert_int_equal(tb_attest_ecdsa_sign_raw(k, c.tcb_info, c.tcb_info_len, c.tcb_info_sig), 0);
    tb_buf q = quote(e, NULL);
    tb_tdx_verdict v = verify_with(e, &q, &c, NULL);
    expect_invalid(&v, TB_TDX_STEP_TCB_INFO, "not a TCB signing certificate");
    tb_tdx_collateral_clear(&c);
    /* The QE identity's signer too. */
    collateral(e, NULL, NULL, &c);
    free(c.qe_identity_issuer_chain);
    c.qe_identity_issuer_chain = strdup((char *)chain.p);
    assert_int_equal(
        tb_attest_ecdsa_sign_raw(k, c.qe_identity, c.qe_identity_len, c.qe_identity_sig), 0);
    v = verify_with(e, &q, &c, NULL);
    expect_invalid(&v, TB_TDX_STEP_QE_IDENTITY, "not a TCB signing certificate");
    tb_tdx_collateral_clear(&c);
    /* A chain of the signer alone (no root): QVL wants two certificates. */
    collateral(e, NULL, NULL, &c);
    char *end = strstr(c.tcb_info_issuer_chain, "-----END CERTIFICATE-----");
    end[strlen("-----END CERTIFICATE-----\n")] = '\0';
    v = verify_with(e, &q, &c, NULL);
    expect_invalid(&v, TB_TDX_STEP_TCB_INFO, "1 certificate(s)");
    tb_tdx_collateral_clear(&c);
    tb_buf_clear(&q);
    tb_buf_clear(&chain);
    X509_free(other);
    EVP_PKEY_free(k);
}

/* PckCertVerifier.cpp: the leaf's CN must contain "SGX PCK Certificate", the
 * intermediate's "CA"; QvE qve.cpp: the PCK certificate's issuer is the Processor or the
 * Platform CA. */
static void test_qvl_PckCertVerifier_cpp_pck_roles(void **state)
{
    env *e = *state;
    EVP_PKEY *k = EVP_EC_gen("P-256");
    /* A leaf with the SGX extension, issued by the PCK CA, that is no PCK certificate. */
    X509 *leaf =
        make_cert("teebench SIMULATED SGX Enclave Signer", k, e->ca_x, e->ca_k, 0, e->pck_x);
    tb_buf chain = {0};
    pem_append(&chain, leaf);
    pem_append(&chain, e->ca_x);
    pem_append(&chain, e->root_x);
    tb_tdx_sim_quote_params par = {.pck_chain_pem = (char *)chain.p, .pck_key = k};
    tb_buf_append(&chain, "", 1);
    par.pck_chain_pem = (char *)chain.p;
    tb_buf q = quote(e, &par);
    tb_tdx_verdict v = verify_with(e, &q, &e->base, NULL);
    expect_invalid(&v, TB_TDX_STEP_PCK_CHAIN, "not a PCK certificate");
    tb_buf_clear(&q);
    /* An intermediate the root issued that is no PCK Platform/Processor CA. */
    EVP_PKEY *ik = EVP_EC_gen("P-256");
    X509 *ca =
        make_cert("teebench SIMULATED SGX Attestation CA", ik, e->root_x, e->root_k, 1, NULL);
    X509 *leaf2 = make_cert("teebench SIMULATED SGX PCK Certificate", k, ca, ik, 0, e->pck_x);
    tb_buf_reset(&chain);
    pem_append(&chain, leaf2);
    pem_append(&chain, ca);
    pem_append(&chain, e->root_x);
    tb_buf_append(&chain, "", 1);
    par.pck_chain_pem = (char *)chain.p;
    q = quote(e, &par);
    v = verify_with(e, &q, &e->base, NULL);
    expect_invalid(&v, TB_TDX_STEP_PCK_CHAIN, "not a PCK Platform or Processor CA");
    tb_buf_clear(&q);
    /* The default chain is fine; a chain without the root (two certificates) is not. */
    tb_buf_reset(&chain);
    pem_append(&chain, e->pck_x);
    pem_append(&chain, e->ca_x);
    tb_buf_append(&chain, "", 1);
    par.pck_chain_pem = (char *)chain.p;
    par.pck_key = e->pck_k;
    q = quote(e, &par);
    v = verify_with(e, &q, &e->base, NULL);
    expect_invalid(&v, TB_TDX_STEP_PCK_CHAIN, "2 certificate(s)");
    tb_buf_clear(&q);
    tb_buf_clear(&chain);
    X509_free(leaf);
    X509_free(leaf2);
    X509_free(ca);
    EVP_PKEY_free(k);
    EVP_PKEY_free(ik);
}

/* ---------------------------------------------------------- 7. TCB info format */

/* TcbInfo.cpp: what a TDX TCB info must have. */
static void test_qvl_TcbInfo_cpp_format(void **state)
{
    env *e = *state;
    tb_buf l = {0};
    plat(&l, SGX, 13, TDX_SVN, "UpToDate", "2024-05-01T00:00:00Z", NULL);
    const char *mod = "\"tdxModule\":{\"mrsigner\":\"000000000000000000000000000000000000000000000"
                      "000000000000000000000000000000000000000000000000000\",\"attributes\":"
                      "\"0000000000000000\",\"attributesMask\":\"FFFFFFFFFFFFFFFF\"},";
    struct {
        const char *head;
        int with_module;
        const char *ids, *want;
    } cases[] = {
        {"\"tcbType\":0,\"tcbEvaluationDataNumber\":1,", 0, NULL, "missing \"tdxModule\""},
        {"\"tcbEvaluationDataNumber\":1,", 1, NULL, "missing \"tcbType\""},
        {"\"tcbType\":1,\"tcbEvaluationDataNumber\":1,", 1, NULL, "\"tcbType\" is not 0"},
        {"\"tcbType\":0,", 1, NULL, "missing \"tcbEvaluationDataNumber\""},
        {"\"tcbType\":0,\"tcbEvaluationDataNumber\":1,", 1, "", "not a non-empty array"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char head[1024];
        snprintf(head, sizeof head, "%s%s", cases[i].head, cases[i].with_module ? mod : "");
        tb_tdx_verdict v =
            verify_texts(e, tcb_info(e, head, cases[i].ids, (char *)l.p), NULL, NULL);
        expect_invalid(&v, TB_TDX_STEP_TCB_INFO, cases[i].want);
    }
    /* id and version; empty tcbLevels. */
    char *t = tcb_info(e, NULL, NULL, (char *)l.p);
    memcpy(strstr(t, "\"TDX\""), "\"SGX\"", 5);
    tb_tdx_verdict v = verify_texts(e, t, NULL, NULL);
    expect_invalid(&v, TB_TDX_STEP_TCB_INFO, "id is not \"TDX\"");
    t = tcb_info(e, NULL, NULL, (char *)l.p);
    memcpy(strstr(t, "\"version\":3"), "\"version\":2", 11);
    v = verify_texts(e, t, NULL, NULL);
    expect_invalid(&v, TB_TDX_STEP_TCB_INFO, "version 2");
    v = verify_texts(e, tcb_info(e, NULL, NULL, ""), NULL, NULL);
    expect_invalid(&v, TB_TDX_STEP_TCB_INFO, "tcbLevels");
    tb_buf_clear(&l);
}

/* ------------------------------------------------------------ 8. TD relaunch */

/* TDRelaunchCheck.cpp (TDX 1.5 quotes): an OutOfDate TD whose TEE_TCB_SVN2 reaches the
 * latest module and TDX levels is TDRelaunchAdvised (ConfigurationNeeded when the SGX or
 * TDX status needs configuration); --policy tcb_statuses can name those statuses. */
static void test_qvl_TDRelaunchCheck_cpp_relaunch_advised(void **state)
{
    env *e = *state;
    tb_buf ids = {0}, l = {0};
    module_id(&ids, "TDX_01", "0000000000000000", "FFFFFFFFFFFFFFFF", MOD_OK);
    plat(&l, SGX, 13, TDX_SVN, "UpToDate", "2024-05-01T00:00:00Z", NULL);
    tb_tdx_collateral c;
    collateral(e, tcb_info(e, NULL, (char *)ids.p, (char *)l.p), NULL, &c);
    /* Module SVN 3: its level is OutOfDate (isvsvn 1), the platform level UpToDate. */
    tb_tdx_sim_quote_params par = {.version = 5,
                                   .body_type = 3,
                                   .set_tee_tcb_svn = 1,
                                   .tee_tcb_svn = {3, 1, 3},
                                   .tee_tcb_svn2 = {5, 1, 3}};
    tb_buf q = quote(e, &par);
    tb_tdx_verdict v = verify_with(e, &q, &c, NULL);
    expect_status(&v, TB_ATTEST_TCB_TD_RELAUNCH_ADVISED);
    assert_int_equal(v.result, TB_ATTEST_REFUSED);
    tb_attest_policy pol;
    const char *pj = "{\"tcb_statuses\":[\"UpToDate\",\"TDRelaunchAdvised\"]}";
    tb_err err;
    assert_int_equal(tb_attest_policy_parse(pj, strlen(pj), &pol, &err), 0);
    v = verify_with(e, &q, &c, &pol);
    assert_int_equal(v.result, TB_ATTEST_ACCEPTED);
    tb_buf_clear(&q);
    /* TEE_TCB_SVN2 below the latest module level: stays OutOfDate. */
    par.tee_tcb_svn2[0] = 4;
    q = quote(e, &par);
    v = verify_with(e, &q, &c, NULL);
    expect_status(&v, TB_ATTEST_TCB_OUT_OF_DATE);
    tb_buf_clear(&q);
    /* A TDX 1.0 body: no relaunch check. */
    par.version = 4;
    par.body_type = 2;
    q = quote(e, &par);
    v = verify_with(e, &q, &c, NULL);
    expect_status(&v, TB_ATTEST_TCB_OUT_OF_DATE);
    tb_buf_clear(&q);
    tb_tdx_collateral_clear(&c);
    /* The platform level needs configuration: TDRelaunchAdvisedConfigurationNeeded. */
    tb_buf_reset(&l);
    plat(&l, SGX, 13, TDX_SVN, "ConfigurationNeeded", "2024-05-01T00:00:00Z", NULL);
    collateral(e, tcb_info(e, NULL, (char *)ids.p, (char *)l.p), NULL, &c);
    par = (tb_tdx_sim_quote_params){.version = 5,
                                    .body_type = 3,
                                    .set_tee_tcb_svn = 1,
                                    .tee_tcb_svn = {3, 1, 3},
                                    .tee_tcb_svn2 = {5, 1, 3}};
    q = quote(e, &par);
    v = verify_with(e, &q, &c, NULL);
    expect_status(&v, TB_ATTEST_TCB_TD_RELAUNCH_ADVISED_CONFIGURATION_NEEDED);
    tb_buf_clear(&q);
    tb_tdx_collateral_clear(&c);
    tb_buf_clear(&ids);
    tb_buf_clear(&l);
}

/* ------------------------------------------------------------- 9. advisory IDs */

/* TcbLevel.cpp: advisoryIDs is any array of strings (QVL sets no length or count). */
static void test_qvl_TcbLevel_cpp_advisory_ids_any_length(void **state)
{
    env *e = *state;
    char long_id[201];
    memset(long_id, 'A', 200);
    memcpy(long_id, "INTEL-SA-", 9);
    long_id[200] = '\0';
    tb_buf adv = {0}, l = {0};
    tb_buf_printf(&adv, "[\"%s\"", long_id);
    for (int i = 0; i < 80; i++)
        tb_buf_printf(&adv, ",\"INTEL-SA-%05d\"", i);
    tb_buf_printf(&adv, "]");
    plat(&l, SGX, 13, TDX_SVN, "UpToDate", "2024-05-01T00:00:00Z", (char *)adv.p);
    tb_tdx_verdict v = verify_texts(e, tcb_info(e, NULL, NULL, (char *)l.p), NULL, NULL);
    expect_status(&v, TB_ATTEST_TCB_UP_TO_DATE);
    assert_int_equal(v.n_advisories, 81);
    assert_string_equal(tb_tdx_verdict_advisory(&v, 0), long_id);
    assert_string_equal(tb_tdx_verdict_advisory(&v, 80), "INTEL-SA-00079");
    assert_false(v.advisories_cut);
    tb_buf_clear(&adv);
    tb_buf_clear(&l);
}

/* The verdict's advisories are the union of the three matched levels' (platform, TDX
 * module, QE identity), each ID once, in that order, each with the levels that list it;
 * Intel QvE's sa_list is the platform level's alone. (QVL drops the QE level's.) */
static void test_qvl_advisory_ids_union_of_three_levels(void **state)
{
    env *e = *state;
    tb_buf ids = {0}, l = {0};
    module_id(&ids, "TDX_01", "0000000000000000", "FFFFFFFFFFFFFFFF",
              "{\"tcb\":{\"isvsvn\":5},\"tcbDate\":\"2024-05-01T00:00:00Z\",\"tcbStatus\":"
              "\"UpToDate\",\"advisoryIDs\":[\"INTEL-SA-00002\",\"INTEL-SA-00003\"]},"
              "{\"tcb\":{\"isvsvn\":1},\"tcbDate\":\"2023-01-01T00:00:00Z\",\"tcbStatus\":"
              "\"OutOfDate\",\"advisoryIDs\":[\"INTEL-SA-00009\"]}");
    plat(&l, SGX, 13, TDX_SVN, "UpToDate", "2024-05-01T00:00:00Z",
         "[\"INTEL-SA-00001\",\"INTEL-SA-00002\"]");
    char *qe = qe_identity(e, "00000000",
                           "{\"tcb\":{\"isvsvn\":4},\"tcbDate\":\"2024-06-01T00:00:00Z\","
                           "\"tcbStatus\":\"UpToDate\",\"advisoryIDs\":[\"INTEL-SA-00004\","
                           "\"INTEL-SA-00001\",\"INTEL-SA-00004\"]},"
                           "{\"tcb\":{\"isvsvn\":1},\"tcbDate\":\"2023-06-01T00:00:00Z\","
                           "\"tcbStatus\":\"OutOfDate\",\"advisoryIDs\":[\"INTEL-SA-00008\"]}");
    tb_tdx_verdict v = verify_texts(e, tcb_info(e, NULL, (char *)ids.p, (char *)l.p), qe, NULL);
    expect_status(&v, TB_ATTEST_TCB_UP_TO_DATE);
    static const char *const want[] = {"INTEL-SA-00001", "INTEL-SA-00002", "INTEL-SA-00003",
                                       "INTEL-SA-00004"};
    static const unsigned from[] = {TB_TDX_ADV_PLATFORM | TB_TDX_ADV_QE,
                                    TB_TDX_ADV_PLATFORM | TB_TDX_ADV_TDX_MODULE,
                                    TB_TDX_ADV_TDX_MODULE, TB_TDX_ADV_QE};
    assert_int_equal(v.n_advisories, 4);
    for (int i = 0; i < 4; i++) {
        assert_string_equal(tb_tdx_verdict_advisory(&v, i), want[i]);
        assert_int_equal(v.advisory_from[i], from[i]);
    }
    assert_null(tb_tdx_verdict_advisory(&v, 4));
    assert_false(v.advisories_cut);
    assert_string_equal(tb_tdx_adv_level_name(TB_TDX_ADV_PLATFORM), "platform");
    assert_string_equal(tb_tdx_adv_level_name(TB_TDX_ADV_TDX_MODULE), "tdx_module");
    assert_string_equal(tb_tdx_adv_level_name(TB_TDX_ADV_QE), "qe");
    assert_null(tb_tdx_adv_level_name(3));
    tb_buf_clear(&ids);
    tb_buf_clear(&l);
}

/* A QE level whose advisoryIDs is not an array of strings makes the identity invalid,
 * as a platform level's does (the advisories are read, so they are checked). */
static void test_qvl_qe_advisory_ids_must_be_strings(void **state)
{
    env *e = *state;
    tb_tdx_verdict v =
        verify_texts(e, default_tcb(e),
                     qe_identity(e, "00000000",
                                 "{\"tcb\":{\"isvsvn\":4},\"tcbDate\":\"2024-06-01T00:00:00Z\","
                                 "\"tcbStatus\":\"UpToDate\",\"advisoryIDs\":[7]}"),
                     NULL);
    expect_invalid(&v, TB_TDX_STEP_QE_IDENTITY, "advisoryIDs[0] is not a string");
}

/* More IDs than the verdict holds: those that fit are kept, in order, and it says so. */
static void test_qvl_advisory_ids_cut_when_full(void **state)
{
    env *e = *state;
    tb_buf adv = {0}, l = {0};
    tb_buf_printf(&adv, "[");
    for (int i = 0; i < 400; i++)
        tb_buf_printf(&adv, "%s\"INTEL-SA-%05d\"", i ? "," : "", i);
    tb_buf_printf(&adv, "]");
    plat(&l, SGX, 13, TDX_SVN, "UpToDate", "2024-05-01T00:00:00Z", (char *)adv.p);
    tb_tdx_verdict v = verify_texts(e, tcb_info(e, NULL, NULL, (char *)l.p), NULL, NULL);
    expect_status(&v, TB_ATTEST_TCB_UP_TO_DATE);
    assert_true(v.advisories_cut);
    assert_int_equal(v.n_advisories, TB_TDX_ADVISORY_BYTES / 15); /* 14 bytes + NUL each */
    assert_string_equal(tb_tdx_verdict_advisory(&v, v.n_advisories - 1), "INTEL-SA-00272");
    tb_buf_clear(&adv);
    tb_buf_clear(&l);
}

/* ---------------------------------------------------------- 10. signed JSON bytes */

/* TcbInfo.cpp / EnclaveIdentityV2.cpp: QVL checks the signature over rapidjson's compact
 * re-serialization of the signed member, so collateral a PCCS pretty-printed verifies. */
static void test_qvl_TcbInfo_cpp_signed_json_compact_reserialization(void **state)
{
    env *e = *state;
    tb_tdx_collateral c;
    collateral(e, NULL, NULL, &c);
    /* Pretty-print the signed TCB info: spaces and newlines between tokens, "\/" for "/". */
    tb_buf pretty = {0};
    int in_str = 0;
    for (size_t i = 0; i < c.tcb_info_len; i++) {
        char ch = c.tcb_info[i];
        if (ch == '"' && (i == 0 || c.tcb_info[i - 1] != '\\'))
            in_str = !in_str;
        tb_buf_append(&pretty, &ch, 1);
        if (!in_str && (ch == ',' || ch == '{' || ch == '['))
            tb_buf_append(&pretty, "\n  ", 3);
        if (!in_str && ch == ':')
            tb_buf_append(&pretty, " ", 1);
    }
    tb_buf_append(&pretty, "\n", 1);
    free(c.tcb_info);
    c.tcb_info = (char *)pretty.p;
    c.tcb_info_len = pretty.len;
    tb_buf q = quote(e, NULL);
    tb_tdx_verdict v = verify_with(e, &q, &c, NULL);
    expect_status(&v, TB_ATTEST_TCB_UP_TO_DATE);
    /* A changed value still fails. */
    char *p = strstr(c.tcb_info, "\"tcbEvaluationDataNumber\": 1");
    p[strlen("\"tcbEvaluationDataNumber\": ")] = '2';
    v = verify_with(e, &q, &c, NULL);
    expect_invalid(&v, TB_TDX_STEP_TCB_INFO, "signature does not verify");
    tb_buf_clear(&q);
    tb_tdx_collateral_clear(&c);
    /* The re-serialization itself, as rapidjson's Writer writes what its Reader read. */
    struct {
        const char *in, *out;
    } cases[] = {
        {" { \"a\" : [ 1 , -0 , 1.50, 1e2, 0.0000001, 12345678901234567890 ] } ",
         "{\"a\":[1,0,1.5,100.0,1e-7,12345678901234567890]}"},
        {"[123456789012345678901234,-0.5,2.5e-3]", "[1.2345678901234569e23,-0.5,0.0025]"},
        {"{\"s\":\"\\u00e9\\/\\u001f\\n\\\"\"}", "{\"s\":\"\xc3\xa9/\\u001F\\n\\\"\"}"},
        {"[true,false,null,{}]", "[true,false,null,{}]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tb_buf b = {0};
        tb_err err;
        assert_int_equal(tb_attest_json_compact(cases[i].in, strlen(cases[i].in), &b, &err), 0);
        tb_buf_append(&b, "", 1);
        assert_string_equal((char *)b.p, cases[i].out);
        tb_buf_clear(&b);
    }
}

/* ----------------------------------------------------- 11. stale collateral */

/* QvE qve.cpp: expired collateral is collateral_expiration_status, apart from the
 * verification result; here its own verdict (TB_ATTEST_EXPIRED, exit 5), and the policy's
 * allow_expired_collateral verifies old evidence. Not yet valid stays invalid. */
static void test_qvl_qve_cpp_collateral_expired(void **state)
{
    env *e = *state;
    tb_buf q = quote(e, NULL);
    tb_tdx_verdict v;
    int64_t later = e->now + 31LL * 86400;
    assert_int_equal(tb_tdx_verify(q.p, q.len, &e->base, later, NULL, e->root, &v), -1);
    assert_int_equal(v.result, TB_ATTEST_EXPIRED);
    assert_true(v.collateral_expired);
    assert_int_equal(v.collateral_expiration, e->now + 30LL * 86400);
    assert_non_null(strstr(v.reason, "collateral expired at"));
    expect_status(&v, TB_ATTEST_TCB_UP_TO_DATE); /* the rest was checked */
    tb_attest_policy pol;
    tb_attest_policy_default(&pol);
    pol.allow_expired_collateral = 1;
    assert_int_equal(tb_tdx_verify(q.p, q.len, &e->base, later, &pol, e->root, &v), 0);
    assert_true(v.collateral_expired);
    /* Prepared collateral: the same. */
    tb_tdx_prepared *p;
    tb_err err;
    assert_int_equal(tb_tdx_prepare(&e->base, later, e->root, &p, &v, &err), 0);
    tb_tdx_verify_prepared(q.p, q.len, p, later, NULL, &v);
    assert_int_equal(v.result, TB_ATTEST_EXPIRED);
    tb_tdx_prepared_free(p);
    /* Before the TCB info's issueDate (but after the certificates' start): invalid. */
    assert_int_equal(tb_tdx_verify(q.p, q.len, &e->base, e->now - 3 * 3600, NULL, e->root, &v), -1);
    assert_int_equal(v.result, TB_ATTEST_INVALID);
    assert_non_null(strstr(v.reason, "not yet valid"));
    /* An invalid quote with expired collateral is invalid. */
    q.p[48 + 300] ^= 1;
    assert_int_equal(tb_tdx_verify(q.p, q.len, &e->base, later, NULL, e->root, &v), -1);
    assert_int_equal(v.result, TB_ATTEST_INVALID);
    tb_buf_clear(&q);
}

/* QvE qve.cpp supplemental data: tcb_level_date_tag is the platform TCB level's date,
 * qe_iden_tcb_level_date_tag the QE identity level's: each date says whose it is. */
static void test_qvl_qve_cpp_dates_say_whose(void **state)
{
    env *e = *state;
    tb_buf ids = {0}, l = {0};
    module_id(&ids, "TDX_01", "0000000000000000", "FFFFFFFFFFFFFFFF",
              "{\"tcb\":{\"isvsvn\":5},\"tcbDate\":\"2024-02-02T00:00:00Z\",\"tcbStatus\":"
              "\"UpToDate\"}");
    plat(&l, SGX, 13, TDX_SVN, "UpToDate", "2024-05-01T00:00:00Z", NULL);
    tb_tdx_verdict v = verify_texts(e, tcb_info(e, NULL, (char *)ids.p, (char *)l.p),
                                    qe_identity(e, "00000000", QE_OK), NULL);
    expect_status(&v, TB_ATTEST_TCB_UP_TO_DATE);
    assert_string_equal(v.tcb_date, "2024-05-01T00:00:00Z");
    assert_string_equal(v.qe_tcb_date, "2024-06-01T00:00:00Z");
    assert_string_equal(v.module_tcb_date, "2024-02-02T00:00:00Z");
    tb_buf_clear(&ids);
    tb_buf_clear(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_qvl_TcbLevel_cpp_order_highest_first),
        cmocka_unit_test(test_qvl_TcbInfo_cpp_duplicate_levels_invalid),
        cmocka_unit_test(test_qvl_TdxModuleIdentity_cpp_levels_highest_first),
        cmocka_unit_test(test_qvl_TdxModuleCheck_cpp_identity_case_and_first_wins),
        cmocka_unit_test(test_qvl_TdxModuleCheck_cpp_module_status_values),
        cmocka_unit_test(test_qvl_QuoteVerifier_cpp_seamattributes_zero_unmasked),
        cmocka_unit_test(test_qvl_EnclaveReportVerifier_cpp_qe_below_every_level_not_supported),
        cmocka_unit_test(test_qvl_EnclaveIdentityV2_cpp_qe_statuses),
        cmocka_unit_test(test_qvl_EnclaveReportVerifier_cpp_miscselect_byte_order),
        cmocka_unit_test(test_qvl_TCBSigningChain_cpp_signer_role),
        cmocka_unit_test(test_qvl_PckCertVerifier_cpp_pck_roles),
        cmocka_unit_test(test_qvl_TcbInfo_cpp_format),
        cmocka_unit_test(test_qvl_TDRelaunchCheck_cpp_relaunch_advised),
        cmocka_unit_test(test_qvl_TcbLevel_cpp_advisory_ids_any_length),
        cmocka_unit_test(test_qvl_advisory_ids_union_of_three_levels),
        cmocka_unit_test(test_qvl_qe_advisory_ids_must_be_strings),
        cmocka_unit_test(test_qvl_advisory_ids_cut_when_full),
        cmocka_unit_test(test_qvl_TcbInfo_cpp_signed_json_compact_reserialization),
        cmocka_unit_test(test_qvl_qve_cpp_collateral_expired),
        cmocka_unit_test(test_qvl_qve_cpp_dates_say_whose),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
