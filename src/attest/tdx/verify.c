/* attest/tdx/verify: the pure DCAP verifier for TDX quotes.
 *
 *   verify(quote, collateral, now, policy, trusted root) -> verdict
 *
 * No network, no clock, no globals: `now` is a parameter and everything else is
 * an argument. The steps follow Intel's Quote Verification Library (QVL):
 *   1 header: version 4/5, ECDSA-256 key, TEE type TDX, Intel QE vendor ID
 *   2 PCK chain (quote's type 6 -> 5 PEM chain) to the trusted root, validity times,
 *     root CA CRL and PCK CRL (signatures checked, revoked certificates rejected)
 *   3 TCB info: id TDX v3, signature over the exact tcbInfo bytes by the TCB signing
 *     chain, validity window, FMSPC and PCE-ID equal to the PCK certificate's
 *   4 QE identity: id TD_QE v2, signature, chain, window, MRSIGNER, ISVPRODID,
 *     masked MISCSELECT and ATTRIBUTES, QE TCB status from ISVSVN
 *   5 QE report signature by the PCK key; QE report data[0..32) =
 *     SHA-256(attestation key || QE auth data)
 *   6 quote signature by the attestation key over header and body
 *   7 TDX module identity (tdxModule when TEE_TCB_SVN[1] == 0, else the
 *     tdxModuleIdentities entry "TDX_%02X" of that major version and its TCB level)
 *   8 platform TCB level: SGX components and PCESVN from the PCK certificate, TDX
 *     components from TEE_TCB_SVN (bytes 0-1 skipped when byte 1 != 0), the first
 *     matching level wins; then combined with the module and QE statuses
 *     (OutOfDate turns UpToDate/SWHardeningNeeded into OutOfDate and the
 *     Configuration* statuses into OutOfDateConfigurationNeeded; Revoked wins).
 * Then the policy (DEBUG, measurements, REPORTDATA, acceptable statuses).
 *
 * Intel QVL's rules, file by file (SGX-TDX-DCAP-QuoteVerificationLibrary,
 * Src/AttestationLibrary/src/; QvE is in SGXDataCenterAttestationPrimitives):
 *  - Verifiers/TCBSigningChain.cpp + QuoteVerification.cpp: a TCB info / QE identity
 *    issuer chain is exactly two certificates, the root (CN has "SGX Root CA", the trusted
 *    root) and the TCB signing certificate (CN has "SGX TCB Signing", issued by the root,
 *    not revoked by the root CA CRL).
 *  - Verifiers/PckCertVerifier.cpp + QvE qve.cpp: the quote's PCK chain is exactly three
 *    certificates: root, intermediate (CN has "CA"; QvE: its CN has "Processor" or
 *    "Platform"), PCK certificate (CN has "SGX PCK Certificate").
 *  - Verifiers/EnclaveReportVerifier.cpp: MISCSELECT (and mask) hex read as QVL's
 *    vectorToUint32 (little-endian, like the QE report); QE status: UpToDate, Revoked,
 *    anything else OutOfDate; below every level TCB_NOT_SUPPORTED.
 *  - Verifiers/QuoteVerifier.cpp 4.1.2.4.11: MRSIGNERSEAM equal to the module identity's
 *    (tdxModuleIdentities "TDX_%02X" when TEE_TCB_SVN[1] > 0, else tdxModule), and
 *    SEAMATTRIBUTES all zero and equal to its attributes (the mask is not applied).
 *  - Verifiers/Checks/TdxModuleCheck.cpp: identity id compared upper-cased, the first
 *    match wins; module level statuses UpToDate, OutOfDate, Revoked only.
 *  - Verifiers/Checks/TcbLevelCheck.cpp: the SGX level (first with SGX components and
 *    PCESVN >=) and the TDX level (first also with TDX components >=) in QVL's order;
 *    status convergence with the module and then the QE; Revoked returns early.
 *  - Verifiers/Checks/TDRelaunchCheck.cpp: TDX 1.5 quotes, TDRelaunchAdvised[...].
 *  - QvE qve.cpp: expired collateral is reported apart from the verification result
 *    (collateral_expiration_status), not as an invalid quote.
 *  - Json TcbInfo.cpp / EnclaveIdentityV2.cpp: QVL verifies the signature over a compact
 *    re-serialization (rapidjson Writer) of the signed member; here the exact bytes are
 *    tried first and that re-serialization (jsontok.c) second.
 *
 * Collateral is "prepared" once (tb_tdx_prepare: CRL and collateral signatures, chains,
 * parsed JSON, validity windows) and checked against `now` per quote, so that a
 * prepared collateral gives the same verdict as verifying from scratch. A failure
 * found while preparing is recorded with its step and reported in step order. */
#include "attest/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/hex.h"

static const uint8_t INTEL_QE_VENDOR[16] = {0x93, 0x9a, 0x72, 0x33, 0xf7, 0x9c, 0x4c, 0xa9,
                                            0x94, 0x0a, 0x0d, 0xb3, 0x95, 0x7f, 0x06, 0x07};

/* A validity window and what bounds it (for the error message). */
typedef struct window {
    int64_t from, until;
    char from_what[64], until_what[64];
} window;

struct tb_tdx_prepared {
    int simulated;
    uint8_t *root_der; /* the trusted root (root_c points into it) */
    size_t root_len;
    tb_attest_cert root_c;
    uint8_t *root_crl_der, *pck_crl_der; /* copies: root_ci and pck_ci point into them */
    tb_attest_crl root_ci, pck_ci;
    uint8_t *pck_ca_der; /* the PCK CRL's issuer, checked against the root */
    size_t pck_ca_len;
    tb_attest_cert pck_ca;
    uint8_t *signer_der[2]; /* [0] the TCB info signer, [1] the QE identity's if different */
    size_t signer_len[2];
    tb_attest_cert signer[2];
    tb_tdx_tcb_info tcb;
    tb_tdx_qe_identity qe;
    window crl_win, tcb_win, qe_win;
    tb_tdx_step fail_step;
    char fail_reason[TB_ERR_MAX];
    void *group; /* the P-256 group, shared read-only by tb_tdx_verify_prepared calls */
    void *ec;    /* P-256 context, only while preparing */
};

static const char *const STEP_NAMES[] = {
    "none",      "parse",           "header",     "pck-chain", "tcb-info", "qe-identity",
    "qe-report", "quote-signature", "tdx-module", "tcb-level", "policy",
};

const char *tb_tdx_step_name(tb_tdx_step s)
{
    return (unsigned)s <= TB_TDX_STEP_POLICY ? STEP_NAMES[s] : "unknown";
}

const char *tb_attest_result_name(tb_attest_result r)
{
    return r == TB_ATTEST_ACCEPTED  ? "ACCEPTED"
           : r == TB_ATTEST_REFUSED ? "REFUSED"
           : r == TB_ATTEST_EXPIRED ? "COLLATERAL EXPIRED"
                                    : "INVALID";
}

static void win_init(window *w)
{
    w->from = INT64_MIN;
    w->until = INT64_MAX;
    w->from_what[0] = w->until_what[0] = '\0';
}

static void win_add(window *w, int64_t from, int64_t until, const char *what)
{
    if (from > w->from) {
        w->from = from;
        if (snprintf(w->from_what, sizeof w->from_what, "%s", what) >= (int)sizeof w->from_what)
            w->from_what[sizeof w->from_what - 1] = 0; /* a label, cut to fit */
    }
    if (until < w->until) {
        w->until = until;
        if (snprintf(w->until_what, sizeof w->until_what, "%s", what) >= (int)sizeof w->until_what)
            w->until_what[sizeof w->until_what - 1] = 0;
    }
}

/* Only "not yet valid" fails; expiry is recorded in the verdict (see note_expiry). */
static int win_started(const window *w, int64_t now, const char *what, tb_err *err)
{
    if (now >= w->from)
        return 0;
    char a[32], b[32];
    tb_utc_iso8601(now, a, sizeof a);
    tb_utc_iso8601(w->from, b, sizeof b);
    return tb_errf(err, "%s not yet valid at %s: %s starts %s", what, a, w->from_what, b);
}

/* Keeps the earliest end of validity of all the collateral a verdict used (QvE's
 * earliest_expiration_date) and the step it belongs to. */
static void note_expiry(tb_tdx_verdict *v, const window *w, tb_tdx_step step, tb_tdx_step *exp_step)
{
    if (w->until == INT64_MAX || (v->collateral_expiration && w->until >= v->collateral_expiration))
        return;
    v->collateral_expiration = w->until;
    snprintf(v->collateral_expiration_what, sizeof v->collateral_expiration_what, "%s",
             w->until_what);
    *exp_step = step;
}

static void cert_window(const tb_attest_cert *c, window *w, const char *what)
{
    win_add(w, c->id.not_before, c->id.not_after, what);
}

static int is_revoked(const tb_attest_crl *crl, const tb_attest_cert *c)
{
    return tb_attest_crl_is_revoked(crl, c->id.serial, c->id.serial_len);
}

static int cn_has(const tb_attest_cert *c, const char *phrase)
{
    return tb_attest_name_cn_contains(c->id.subject, c->id.subject_len, phrase);
}

static int check_issued(void *ec, const tb_attest_cert *issuer, const tb_attest_cert *cert,
                        const char *what, tb_err *err)
{
    if (cert->id.issuer_len != issuer->id.subject_len ||
        memcmp(cert->id.issuer, issuer->id.subject, cert->id.issuer_len))
        return tb_errf(err, "%s: issuer name does not match its issuer's subject", what);
    if (!tb_attest_p256_verify_ctx(ec, issuer->pub, cert->id.tbs, cert->id.tbs_len, cert->sig))
        return tb_errf(err, "%s: signature does not verify with its issuer's key", what);
    return 0;
}

static int der_eq(const tb_attest_der_list *l, int i, const uint8_t *der, size_t n)
{
    return der && l->len[i] == n && !memcmp(l->der[i], der, n);
}

static uint8_t *dup_bytes(const uint8_t *p, size_t n)
{
    uint8_t *d = malloc(n ? n : 1);
    if (d)
        memcpy(d, p, n);
    return d;
}

/* A CRL (a copy of der is kept in *keep): signature by `issuer`, issuer name, window. */
static int check_crl(void *ec, const uint8_t *der, size_t n, const tb_attest_cert *issuer,
                     const char *what, window *w, tb_attest_crl *ci, uint8_t **keep, tb_err *err)
{
    *keep = dup_bytes(der, n);
    if (!*keep)
        return tb_errf(err, "out of memory");
    if (tb_attest_crl_parse(*keep, n, ci, err) < 0)
        return tb_err_wrap(err, "%s", what);
    if (ci->issuer_len != issuer->id.subject_len ||
        memcmp(ci->issuer, issuer->id.subject, ci->issuer_len))
        return tb_errf(err, "%s: issuer is not its signing certificate's subject", what);
    if (!tb_attest_p256_verify_ctx(ec, issuer->pub, ci->tbs, ci->tbs_len, ci->sig))
        return tb_errf(err, "%s: signature does not verify", what);
    win_add(w, ci->this_update, ci->next_update, what);
    return 0;
}

/* A collateral signing chain (PEM: signer[, root]) checked against the root and the root
 * CA CRL. The TCB info's signer (slot 0) is reused for the QE identity when its DER is
 * the same; otherwise slot 1 holds the QE identity's. *signer points into p. */
static int signer_chain(const char *pem, const char *what, tb_tdx_prepared *p, window *w,
                        const tb_attest_cert **signer, tb_err *err)
{
    tb_attest_der_list l;
    if (tb_attest_pem_certs_to_der(pem, strlen(pem), &l, err) < 0)
        return tb_err_wrap(err, "%s issuer chain", what);
    int rc = -1, slot = p->signer_der[0] ? 1 : 0;
    char label[96];
    snprintf(label, sizeof label, "%s signing certificate", what);
    if (l.n != 2) { /* QVL QuoteVerification.cpp EXPECTED_CERTIFICATE_COUNT_IN_TCB_CHAIN */
        tb_errf(err,
                "%s issuer chain has %d certificate(s) (want the TCB signing certificate "
                "and the root)",
                what, l.n);
        goto out;
    }
    if (!der_eq(&l, 1, p->root_der, p->root_len)) {
        tb_errf(err, "%s issuer chain ends in a root that is not the trusted root", what);
        goto out;
    }
    if (slot == 1 && der_eq(&l, 0, p->signer_der[0], p->signer_len[0])) {
        slot = 0; /* already checked */
    } else {
        p->signer_der[slot] = dup_bytes(l.der[0], l.len[0]);
        p->signer_len[slot] = l.len[0];
        if (!p->signer_der[slot]) {
            tb_errf(err, "out of memory");
            goto out;
        }
        if (tb_attest_cert_parse(p->signer_der[slot], p->signer_len[slot], &p->signer[slot], err) <
            0) {
            tb_err_wrap(err, "%s", label);
            goto out;
        }
        if (!cn_has(&p->signer[slot], "SGX TCB Signing")) { /* QVL TCBSigningChain.cpp */
            tb_errf(err,
                    "%s is not a TCB signing certificate (its CN lacks \"SGX TCB Signing\"; "
                    "QVL: STATUS_SGX_TCB_SIGNING_CERT_MISSING)",
                    label);
            goto out;
        }
        if (check_issued(p->ec, &p->root_c, &p->signer[slot], label, err) < 0)
            goto out;
        if (is_revoked(&p->root_ci, &p->signer[slot])) {
            tb_errf(err, "%s is revoked by the root CA CRL", label);
            goto out;
        }
    }
    cert_window(&p->signer[slot], w, label);
    cert_window(&p->root_c, w, "root CA");
    *signer = &p->signer[slot];
    rc = 0;
out:
    tb_attest_der_list_clear(&l);
    return rc;
}

/* Step 2's collateral part: the two CRLs and the PCK CRL's issuer chain. */
static int prep_crls(tb_tdx_prepared *p, const tb_tdx_collateral *c, tb_err *err)
{
    win_init(&p->crl_win);
    if (check_crl(p->ec, c->root_ca_crl, c->root_ca_crl_len, &p->root_c, "root CA CRL", &p->crl_win,
                  &p->root_ci, &p->root_crl_der, err) < 0)
        return -1;
    tb_attest_der_list l;
    if (tb_attest_pem_certs_to_der(c->pck_crl_issuer_chain, strlen(c->pck_crl_issuer_chain), &l,
                                   err) < 0)
        return tb_err_wrap(err, "PCK CRL issuer chain");
    int rc = -1;
    if (l.n > 2 || (l.n == 2 && !der_eq(&l, 1, p->root_der, p->root_len))) {
        tb_errf(err, "PCK CRL issuer chain is not a PCK CA followed by the trusted root");
        goto out;
    }
    p->pck_ca_der = dup_bytes(l.der[0], l.len[0]);
    p->pck_ca_len = l.len[0];
    if (!p->pck_ca_der) {
        tb_errf(err, "out of memory");
        goto out;
    }
    if (tb_attest_cert_parse(p->pck_ca_der, p->pck_ca_len, &p->pck_ca, err) < 0) {
        tb_err_wrap(err, "PCK CA certificate (PCK CRL issuer)");
        goto out;
    }
    if (check_issued(p->ec, &p->root_c, &p->pck_ca, "PCK CA certificate (PCK CRL issuer)", err) < 0)
        goto out;
    if (!p->pck_ca.is_ca) {
        tb_errf(err, "PCK CA certificate (PCK CRL issuer) is not a CA certificate");
        goto out;
    }
    if (is_revoked(&p->root_ci, &p->pck_ca)) {
        tb_errf(err, "PCK CA certificate is revoked by the root CA CRL");
        goto out;
    }
    if (check_crl(p->ec, c->pck_crl, c->pck_crl_len, &p->pck_ca, "PCK CRL", &p->crl_win, &p->pck_ci,
                  &p->pck_crl_der, err) < 0)
        goto out;
    cert_window(&p->pck_ca, &p->crl_win, "PCK CA certificate");
    cert_window(&p->root_c, &p->crl_win, "root CA");
    rc = 0;
out:
    tb_attest_der_list_clear(&l);
    return rc;
}

static int prep_signed(const char *pem, const char *what, const char *body, size_t len,
                       const uint8_t sig[64], tb_tdx_prepared *p, window *w, tb_err *err)
{
    const tb_attest_cert *signer = NULL;
    if (signer_chain(pem, what, p, w, &signer, err) < 0)
        return -1;
    if (tb_attest_p256_verify_ctx(p->ec, signer->pub, body, len, sig))
        return 0;
    /* QVL verifies over rapidjson's compact re-serialization of the signed member
     * (TcbInfo.cpp _infoBody, EnclaveIdentityV2.cpp body): a PCCS that pretty-prints
     * still verifies. */
    tb_buf b = {0};
    tb_err ignored;
    int ok = tb_attest_json_compact(body, len, &b, &ignored) == 0 &&
             tb_attest_p256_verify_ctx(p->ec, signer->pub, b.p, b.len, sig);
    tb_buf_clear(&b);
    if (!ok)
        return tb_errf(err,
                       "%s signature does not verify (over its exact bytes nor over their "
                       "compact re-serialization)",
                       what);
    return 0;
}

static tb_tdx_prepared *prepare(const tb_tdx_collateral *c, const tb_attest_root *root)
{
    tb_tdx_prepared *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    tb_err e;
    p->simulated = root->simulated;
    p->group = tb_attest_p256_group_dup(root->group);
    p->ec = p->group ? tb_attest_p256_ctx_from(p->group) : NULL;
    if (!p->ec) {
        tb_attest_p256_group_free(p->group);
        free(p);
        return NULL;
    }
    win_init(&p->tcb_win);
    win_init(&p->qe_win);
    unsigned char *rd = NULL;
    int rl = i2d_X509(root->cert, &rd);
    if (rl <= 0 || !(p->root_der = dup_bytes(rd, (size_t)rl))) {
        OPENSSL_free(rd);
        tb_tdx_prepared_free(p);
        return NULL;
    }
    OPENSSL_free(rd);
    p->root_len = (size_t)rl;
    if (tb_attest_cert_parse(p->root_der, p->root_len, &p->root_c, &e) < 0) {
        tb_err_wrap(&e, "trusted root");
        p->fail_step = TB_TDX_STEP_PCK_CHAIN;
        goto fail;
    }
    if (!cn_has(&p->root_c, "SGX Root CA")) { /* QVL PckCertVerifier.cpp, TCBSigningChain.cpp */
        tb_errf(&e, "the trusted root is not an SGX root CA (its CN lacks \"SGX Root CA\"; "
                    "QVL: STATUS_SGX_ROOT_CA_MISSING)");
        p->fail_step = TB_TDX_STEP_PCK_CHAIN;
        goto fail;
    }
    if (prep_crls(p, c, &e) < 0) {
        p->fail_step = TB_TDX_STEP_PCK_CHAIN;
        goto fail;
    }
    if (prep_signed(c->tcb_info_issuer_chain, "TCB info", c->tcb_info, c->tcb_info_len,
                    c->tcb_info_sig, p, &p->tcb_win, &e) < 0 ||
        tb_tdx_tcb_info_parse(c->tcb_info, c->tcb_info_len, &p->tcb, &e) < 0) {
        p->fail_step = TB_TDX_STEP_TCB_INFO;
        goto fail;
    }
    win_add(&p->tcb_win, p->tcb.issue, p->tcb.next, "TCB info issueDate/nextUpdate");
    if (prep_signed(c->qe_identity_issuer_chain, "QE identity", c->qe_identity, c->qe_identity_len,
                    c->qe_identity_sig, p, &p->qe_win, &e) < 0 ||
        tb_tdx_qe_identity_parse(c->qe_identity, c->qe_identity_len, &p->qe, &e) < 0) {
        p->fail_step = TB_TDX_STEP_QE_IDENTITY;
        goto fail;
    }
    win_add(&p->qe_win, p->qe.issue, p->qe.next, "QE identity issueDate/nextUpdate");
    tb_attest_p256_ctx_free(p->ec);
    p->ec = NULL;
    return p;
fail:
    snprintf(p->fail_reason, sizeof p->fail_reason, "%s", e.msg);
    tb_attest_p256_ctx_free(p->ec);
    p->ec = NULL;
    return p;
}

void tb_tdx_prepared_free(tb_tdx_prepared *p)
{
    if (!p)
        return;
    tb_attest_p256_ctx_free(p->ec);
    tb_attest_p256_group_free(p->group);
    free(p->root_crl_der);
    free(p->root_der);
    free(p->pck_crl_der);
    free(p->pck_ca_der);
    free(p->signer_der[0]);
    free(p->signer_der[1]);
    tb_tdx_tcb_info_clear(&p->tcb);
    tb_tdx_qe_identity_clear(&p->qe);
    free(p);
}

static void verdict_init(tb_tdx_verdict *v, int simulated)
{
    memset(v, 0, sizeof *v);
    v->result = TB_ATTEST_INVALID;
    v->simulated = simulated;
}

static int fail(tb_tdx_verdict *v, tb_tdx_step step, const char *reason)
{
    v->result = TB_ATTEST_INVALID;
    v->step = step;
    snprintf(v->reason, sizeof v->reason, "%s", reason);
    return -1;
}

int tb_tdx_prepare(const tb_tdx_collateral *c, int64_t now, const tb_attest_root *root,
                   tb_tdx_prepared **out, tb_tdx_verdict *v, tb_err *err)
{
    *out = NULL;
    verdict_init(v, root->simulated);
    tb_tdx_prepared *p = prepare(c, root);
    if (!p) {
        fail(v, TB_TDX_STEP_NONE, "out of memory");
        return tb_errf(err, "out of memory");
    }
    tb_err e = {{0}};
    if (p->fail_step) {
        fail(v, p->fail_step, p->fail_reason);
        tb_errf(err, "%s", p->fail_reason);
        tb_tdx_prepared_free(p);
        return -1;
    }
    /* Expired collateral still prepares: each verdict says so (TB_ATTEST_EXPIRED). */
    tb_tdx_step step = TB_TDX_STEP_PCK_CHAIN;
    if (win_started(&p->crl_win, now, "CRLs", &e) < 0 ||
        (step = TB_TDX_STEP_TCB_INFO, win_started(&p->tcb_win, now, "TCB info", &e) < 0) ||
        (step = TB_TDX_STEP_QE_IDENTITY, win_started(&p->qe_win, now, "QE identity", &e) < 0)) {
        fail(v, step, e.msg);
        tb_errf(err, "%s", e.msg);
        tb_tdx_prepared_free(p);
        return -1;
    }
    *out = p;
    return 0;
}

/* ------------------------------------------------------------- the steps */

static int step_header(const tb_tdx_quote *q, tb_err *e)
{
    if (q->version != 4 && q->version != 5)
        return tb_errf(e, "quote version %u (want 4 or 5)", q->version);
    if (q->att_key_type != 2)
        return tb_errf(e, "attestation key type %u (want 2, ECDSA-256 with P-256)",
                       q->att_key_type);
    if (q->tee_type != TB_TDX_TEE_TYPE)
        return tb_errf(e, "TEE type 0x%x (want 0x81, TDX)", q->tee_type);
    if (memcmp(q->qe_vendor_id, INTEL_QE_VENDOR, 16))
        return tb_errf(e, "QE vendor ID is not Intel's (939a7233f79c4ca9940a0db3957f0607)");
    return 0;
}

/* Step 2: the quote's PCK chain. *leaf points into *ders (caller frees the list).
 * The PCK CA is parsed and checked only when it is not the PCK CRL's issuer that
 * tb_tdx_prepare already checked (compared as DER bytes). The chain's validity window
 * goes to *w (its start is checked here, its end by the caller). */
static int step_pck_chain(void *ec, const tb_tdx_quote *q, const tb_tdx_prepared *p, int64_t now,
                          tb_attest_der_list *l, tb_attest_cert *leaf, tb_tdx_pck_info *pck,
                          window *w, tb_err *e)
{
    if (tb_attest_pem_certs_to_der(q->pck_chain, q->pck_chain_len, l, e) < 0)
        return tb_err_wrap(e, "PCK certificate chain");
    if (l->n != 3) /* QVL QuoteVerification.cpp / QvE: EXPECTED_CERTIFICATE_COUNT_IN_PCK_CHAIN */
        return tb_errf(e, "PCK certificate chain has %d certificate(s) (want PCK, PCK CA, root)",
                       l->n);
    if (!der_eq(l, 2, p->root_der, p->root_len))
        return tb_errf(e, "PCK certificate chain ends in a root that is not the trusted root");
    win_init(w);
    tb_attest_cert ca_own;
    const tb_attest_cert *ca = &p->pck_ca;
    if (!der_eq(l, 1, p->pck_ca_der, p->pck_ca_len)) {
        if (tb_attest_cert_parse(l->der[1], l->len[1], &ca_own, e) < 0)
            return tb_err_wrap(e, "PCK CA certificate");
        if (check_issued(ec, &p->root_c, &ca_own, "PCK CA certificate", e) < 0)
            return -1;
        if (!ca_own.is_ca)
            return tb_errf(e, "PCK CA certificate is not a CA certificate");
        ca = &ca_own;
    }
    /* QVL PckCertVerifier.cpp: the intermediate's CN has "CA"; QvE qve.cpp: the PCK
     * certificate's issuer CN has "Processor" or "Platform" (which PCK CA it is). */
    if (!cn_has(ca, "CA") || (!cn_has(ca, "Processor") && !cn_has(ca, "Platform")))
        return tb_errf(e, "the PCK chain's intermediate is not a PCK Platform or Processor CA (its "
                          "CN lacks \"CA\" and \"Platform\"/\"Processor\"; QVL: "
                          "STATUS_SGX_INTERMEDIATE_CA_MISSING)");
    if (is_revoked(&p->root_ci, ca))
        return tb_errf(e, "PCK CA certificate is revoked (root CA CRL)");
    if (tb_attest_cert_parse(l->der[0], l->len[0], leaf, e) < 0)
        return tb_err_wrap(e, "PCK certificate");
    if (!cn_has(leaf, "SGX PCK Certificate")) /* QVL PckCertVerifier.cpp, QuoteVerifier.cpp */
        return tb_errf(e, "the PCK chain's leaf is not a PCK certificate (its CN lacks \"SGX PCK "
                          "Certificate\"; QVL: STATUS_SGX_PCK_MISSING)");
    if (check_issued(ec, ca, leaf, "PCK certificate", e) < 0)
        return -1;
    if (p->pck_ci.issuer_len != ca->id.subject_len ||
        memcmp(p->pck_ci.issuer, ca->id.subject, ca->id.subject_len))
        return tb_errf(e, "the PCK CRL is not issued by this quote's PCK CA (wrong CA kind?)");
    if (is_revoked(&p->pck_ci, leaf))
        return tb_errf(e, "PCK certificate is revoked (PCK CRL)");
    cert_window(&p->root_c, w, "root CA");
    cert_window(ca, w, "PCK CA");
    cert_window(leaf, w, "PCK certificate");
    if (win_started(w, now, "PCK certificate chain", e) < 0)
        return -1;
    if (!leaf->sgx_ext)
        return tb_errf(e, "PCK certificate has no SGX extension (1.2.840.113741.1.13.1)");
    if (tb_tdx_pck_info_from_ext(leaf->sgx_ext, leaf->sgx_ext_len, pck, e) < 0)
        return tb_err_wrap(e, "PCK certificate");
    pck->ca_platform = cn_has(ca, "Platform");
    return 0;
}

static int step_tcb_info(const tb_tdx_prepared *p, const tb_tdx_pck_info *pck, tb_err *e)
{
    char a[13], b[13];
    if (memcmp(p->tcb.fmspc, pck->fmspc, 6)) {
        tb_hex_encode(p->tcb.fmspc, 6, a);
        tb_hex_encode(pck->fmspc, 6, b);
        return tb_errf(e, "TCB info is for FMSPC %s, the PCK certificate says %s", a, b);
    }
    if (memcmp(p->tcb.pceid, pck->pceid, 2)) {
        tb_hex_encode(p->tcb.pceid, 2, a);
        tb_hex_encode(pck->pceid, 2, b);
        return tb_errf(e, "TCB info is for PCE-ID %s, the PCK certificate says %s", a, b);
    }
    return 0;
}

/* Step 4 (QVL EnclaveReportVerifier.cpp): *lvl is the first QE identity level (document
 * order) with isvsvn <= the QE's, NULL when there is none (TCB_NOT_SUPPORTED, judged in
 * step 8 as QVL's TcbLevelCheck.cpp does). */
static int step_qe_identity(const tb_tdx_quote *q, const tb_tdx_prepared *p,
                            const tb_tdx_tcb_level **lvl, tb_err *e)
{
    const tb_tdx_sgx_report *r = &q->qe_report;
    const tb_tdx_qe_identity *id = &p->qe;
    if ((r->miscselect & id->miscselect_mask) != id->miscselect)
        return tb_errf(e, "QE MISCSELECT 0x%08x (masked) differs from the QE identity's 0x%08x",
                       r->miscselect & id->miscselect_mask, id->miscselect);
    for (int i = 0; i < 16; i++)
        if ((r->attributes[i] & id->attributes_mask[i]) != id->attributes[i])
            return tb_errf(e, "QE ATTRIBUTES (masked) differ from the QE identity's");
    if (memcmp(r->mrsigner, id->mrsigner, 32))
        return tb_errf(e, "QE MRSIGNER differs from the QE identity's");
    if (r->isvprodid != id->isvprodid)
        return tb_errf(e, "QE ISVPRODID %u differs from the QE identity's %u", r->isvprodid,
                       id->isvprodid);
    *lvl = NULL;
    for (int i = 0; i < id->n_levels; i++)
        if (id->levels[i].isvsvn <= r->isvsvn) {
            *lvl = &id->levels[i];
            break;
        }
    return 0;
}

static int step_qe_report(void *ec, const tb_tdx_quote *q, const tb_attest_cert *leaf, tb_err *e)
{
    if (!tb_attest_p256_verify_ctx(ec, leaf->pub, q->qe_report_raw, TB_TDX_SGX_REPORT_LEN,
                                   q->qe_report_sig))
        return tb_errf(e, "QE report signature does not verify with the PCK key");
    uint8_t h[32];
    unsigned hl = 0;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int ok = md && EVP_DigestInit_ex(md, EVP_sha256(), NULL) == 1 &&
             EVP_DigestUpdate(md, q->att_key, 64) == 1 &&
             EVP_DigestUpdate(md, q->qe_auth, q->qe_auth_len) == 1 &&
             EVP_DigestFinal_ex(md, h, &hl) == 1;
    EVP_MD_CTX_free(md);
    if (!ok)
        return tb_errf(e, "SHA-256 failed");
    if (memcmp(h, q->qe_report.reportdata, 32))
        return tb_errf(e, "QE report data is not SHA-256(attestation key || QE auth data)");
    return 0;
}

static int step_quote_sig(void *ec, const tb_tdx_quote *q, tb_err *e)
{
    uint8_t pub[65];
    pub[0] = 0x04;
    memcpy(pub + 1, q->att_key, 64);
    if (!tb_attest_p256_verify_ctx(ec, pub, q->raw, q->signed_len, q->signature))
        return tb_errf(e, "quote signature does not verify with the attestation key");
    return 0;
}

/* QVL TdxModuleCheck.cpp findTdxModuleIdentity: "TDX_" + the major version as two
 * upper-case hex digits, compared with each id upper-cased; the first match wins. */
static const tb_tdx_module_identity *find_identity(const tb_tdx_tcb_info *t, uint8_t major)
{
    char want[8];
    snprintf(want, sizeof want, "TDX_%02X", major);
    for (int i = 0; i < t->n_ids; i++) {
        char up[sizeof t->ids[i].id];
        size_t k = 0;
        for (; t->ids[i].id[k]; k++) {
            char ch = t->ids[i].id[k];
            up[k] = ch >= 'a' && ch <= 'z' ? (char)(ch - 32) : ch;
        }
        up[k] = '\0';
        if (!strcmp(up, want))
            return &t->ids[i];
    }
    return NULL;
}

/* Step 7 (QVL QuoteVerifier.cpp 4.1.2.4.11): the module identity (*mid: the
 * tdxModuleIdentities entry, NULL when TEE_TCB_SVN[1] is 0 and tdxModule applies),
 * MRSIGNERSEAM equal to its mrsigner, SEAMATTRIBUTES zero and equal to its attributes. */
static int step_module(const tb_tdx_quote *q, const tb_tdx_prepared *p,
                       const tb_tdx_module_identity **mid, tb_err *e)
{
    uint8_t major = q->td.tee_tcb_svn[1];
    const uint8_t *mrsigner = p->tcb.module.mrsigner, *attributes = p->tcb.module.attributes;
    *mid = NULL;
    if (major != 0) { /* quote versions 4 and 5 are both > 3 */
        *mid = find_identity(&p->tcb, major);
        if (!*mid)
            return tb_errf(e,
                           "TCB info has no tdxModuleIdentities entry TDX_%02X (TDX module major "
                           "version %u; QVL: STATUS_TDX_MODULE_MISMATCH)",
                           major, major);
        mrsigner = (*mid)->mrsigner;
        attributes = (*mid)->attributes;
    }
    if (memcmp(q->td.mrsignerseam, mrsigner, 48))
        return tb_errf(e, "MRSIGNERSEAM differs from the TDX module identity's");
    for (int i = 0; i < 8; i++)
        if (q->td.seam_attributes[i] != 0 || q->td.seam_attributes[i] != attributes[i])
            return tb_errf(e, "SEAMATTRIBUTES are not zero and equal to the TDX module identity's "
                              "attributes (QVL compares them unmasked)");
    return 0;
}

/* The QE status as QVL's EnclaveReportVerifier.cpp gives it. */
enum { QE_OK, QE_OUT_OF_DATE, QE_REVOKED, QE_NOT_SUPPORTED };

static int qe_class(const tb_tdx_tcb_level *l)
{
    if (!l)
        return QE_NOT_SUPPORTED;
    if (l->status == TB_ATTEST_TCB_UP_TO_DATE)
        return QE_OK;
    return l->status == TB_ATTEST_TCB_REVOKED ? QE_REVOKED : QE_OUT_OF_DATE;
}

static int is_config_needed(int s)
{
    return s == TB_ATTEST_TCB_CONFIGURATION_NEEDED ||
           s == TB_ATTEST_TCB_OUT_OF_DATE_CONFIGURATION_NEEDED ||
           s == TB_ATTEST_TCB_CONFIGURATION_AND_SW_HARDENING_NEEDED ||
           s == TB_ATTEST_TCB_TD_RELAUNCH_ADVISED_CONFIGURATION_NEEDED;
}

/* QVL's convergence (TdxModuleCheck.cpp convergeTcbStatusWithTdxModuleStatus and
 * TcbLevelCheck.cpp convergeTcbStatusWithQeTcbStatus): the other status OutOfDate turns
 * UpToDate/SWHardeningNeeded into OutOfDate and the Configuration* statuses into
 * OutOfDateConfigurationNeeded; Revoked wins. */
static int converge(int s, int other_out_of_date, int other_revoked)
{
    if (other_out_of_date) {
        if (s == TB_ATTEST_TCB_UP_TO_DATE || s == TB_ATTEST_TCB_SW_HARDENING_NEEDED)
            return TB_ATTEST_TCB_OUT_OF_DATE;
        if (s == TB_ATTEST_TCB_CONFIGURATION_NEEDED ||
            s == TB_ATTEST_TCB_CONFIGURATION_AND_SW_HARDENING_NEEDED)
            return TB_ATTEST_TCB_OUT_OF_DATE_CONFIGURATION_NEEDED;
    }
    return other_revoked ? TB_ATTEST_TCB_REVOKED : s;
}

/* QVL TDRelaunchCheck.cpp checkForRelaunch (TDX 1.5 quotes). Returns the status, or -1
 * with *e set (TDX module identity of TEE_TCB_SVN2 missing: STATUS_TDX_MODULE_MISMATCH). */
static int relaunch(const tb_tdx_quote *q, const tb_tdx_prepared *p, int sgx_status, int tdx_status,
                    int module_status, int qe, tb_err *e)
{
    const uint8_t *svn2 = q->td.tee_tcb_svn2;
    if (qe != QE_OK)
        return tdx_status;
    if (sgx_status != TB_ATTEST_TCB_UP_TO_DATE && sgx_status != TB_ATTEST_TCB_SW_HARDENING_NEEDED &&
        sgx_status != TB_ATTEST_TCB_CONFIGURATION_NEEDED &&
        sgx_status != TB_ATTEST_TCB_CONFIGURATION_AND_SW_HARDENING_NEEDED)
        return tdx_status;
    if (tdx_status != TB_ATTEST_TCB_OUT_OF_DATE &&
        tdx_status != TB_ATTEST_TCB_OUT_OF_DATE_CONFIGURATION_NEEDED)
        return tdx_status;
    if (module_status != TB_ATTEST_TCB_OUT_OF_DATE)
        return tdx_status;
    const tb_tdx_tcb_level *latest = &p->tcb.levels[0]; /* highest first */
    int ok;
    if (svn2[1] == 0) {
        ok = svn2[0] >= latest->tdx[0] && svn2[2] >= latest->tdx[2];
    } else {
        const tb_tdx_module_identity *m2 = find_identity(&p->tcb, svn2[1]);
        if (!m2)
            return tb_errf(e,
                           "TCB info has no tdxModuleIdentities entry TDX_%02X for TEE_TCB_SVN2 "
                           "(QVL TDRelaunchCheck: STATUS_TDX_MODULE_MISMATCH)",
                           svn2[1]);
        ok = svn2[0] >= m2->levels[0].isvsvn && svn2[2] >= latest->tdx[2];
    }
    if (!ok)
        return tdx_status;
    return is_config_needed(sgx_status) || is_config_needed(tdx_status)
               ? TB_ATTEST_TCB_TD_RELAUNCH_ADVISED_CONFIGURATION_NEEDED
               : TB_ATTEST_TCB_TD_RELAUNCH_ADVISED;
}

/* Adds a level's advisory IDs to the verdict's union, each ID once: an ID already there
 * gains the level's bit. The union holds at most TB_TDX_ADVISORY_BYTES of IDs (any
 * number, any length: an ID is at least one byte and its NUL). */
static void add_advisories(tb_tdx_verdict *v, const tb_tdx_adv_list *a, unsigned level)
{
    const char *id = a->ids;
    size_t used = 0;
    for (int k = 0; k < v->n_advisories; k++)
        used += strlen(v->advisory_ids + used) + 1;
    for (int i = 0; i < a->n; i++, id += strlen(id) + 1) {
        int dup = -1;
        const char *have = v->advisory_ids;
        for (int k = 0; k < v->n_advisories && dup < 0; k++, have += strlen(have) + 1)
            if (!strcmp(have, id))
                dup = k;
        if (dup >= 0) {
            v->advisory_from[dup] |= (unsigned char)level;
            continue;
        }
        size_t n = strlen(id) + 1;
        if (used + n > sizeof v->advisory_ids || v->n_advisories >= (int)sizeof v->advisory_from) {
            v->advisories_cut = 1;
            continue;
        }
        memcpy(v->advisory_ids + used, id, n);
        used += n;
        v->advisory_from[v->n_advisories++] = (unsigned char)level;
    }
}

const char *tb_tdx_adv_level_name(unsigned bit)
{
    switch (bit) {
    case TB_TDX_ADV_PLATFORM:
        return "platform";
    case TB_TDX_ADV_TDX_MODULE:
        return "tdx_module";
    case TB_TDX_ADV_QE:
        return "qe";
    default:
        return NULL;
    }
}

const char *tb_tdx_verdict_advisory(const tb_tdx_verdict *v, int i)
{
    if (i < 0 || i >= v->n_advisories)
        return NULL;
    const char *s = v->advisory_ids;
    while (i-- > 0)
        s += strlen(s) + 1;
    return s;
}

/* Step 8, QVL TcbLevelCheck.cpp checkTcbLevel (TDX path): fills the verdict's statuses,
 * dates and advisories; -1 with *step and *e on a failure. */
static int step_tcb_level(const tb_tdx_quote *q, const tb_tdx_prepared *p,
                          const tb_tdx_pck_info *pck, const tb_tdx_module_identity *mid,
                          const tb_tdx_tcb_level *qe_lvl, tb_tdx_verdict *v, tb_tdx_step *step,
                          tb_err *e)
{
    const uint8_t *svn = q->td.tee_tcb_svn;
    const tb_tdx_tcb_level *sgx_lvl = NULL, *tdx_lvl = NULL;
    int start = svn[1] != 0 ? 2 : 0;
    *step = TB_TDX_STEP_TCB_LEVEL;
    for (int i = 0; i < p->tcb.n_levels && !tdx_lvl; i++) {
        const tb_tdx_tcb_level *l = &p->tcb.levels[i];
        int ok = pck->pcesvn >= l->pcesvn;
        for (int k = 0; ok && k < 16; k++)
            ok = pck->sgx_comp[k] >= l->sgx[k];
        if (!ok)
            continue;
        if (!sgx_lvl)
            sgx_lvl = l;
        for (int k = start; ok && k < 16; k++)
            ok = svn[k] >= l->tdx[k];
        if (ok)
            tdx_lvl = l;
    }
    if (!sgx_lvl)
        return tb_errf(e, "no TCB level matches the platform (Intel: TCB_NOT_SUPPORTED)");
    if (!tdx_lvl) /* the SGX components and PCESVN matched sgx_lvl; TEE_TCB_SVN matches none */
        return tb_errf(e, "no TCB level matches the platform (Intel: TCB_NOT_SUPPORTED)");
    /* The TDX module's TCB level (TdxModuleCheck.cpp checkTdxModuleTcbStatus). */
    const tb_tdx_tcb_level *mod_lvl = NULL;
    int module_status = TB_ATTEST_TCB_UP_TO_DATE;
    if (mid) {
        for (int i = 0; i < mid->n_levels && !mod_lvl; i++)
            if (mid->levels[i].isvsvn <= svn[0])
                mod_lvl = &mid->levels[i];
        *step = TB_TDX_STEP_TDX_MODULE;
        if (!mod_lvl)
            return tb_errf(e,
                           "TDX module SVN %u is below every TCB level of %s (Intel: "
                           "TCB_NOT_SUPPORTED)",
                           svn[0], mid->id);
        if (mod_lvl->status < 0)
            return tb_errf(e,
                           "the TDX module's TCB level (isvsvn %u of %s) has tcbStatus \"%s\": "
                           "a module level may only be UpToDate, OutOfDate or Revoked (Intel: "
                           "TCB_UNRECOGNIZED_STATUS)",
                           mod_lvl->isvsvn, mid->id, mod_lvl->status_text);
        module_status = mod_lvl->status;
        *step = TB_TDX_STEP_TCB_LEVEL;
    }
    int qe = qe_class(qe_lvl);
    int status = converge(tdx_lvl->status, module_status == TB_ATTEST_TCB_OUT_OF_DATE,
                          module_status == TB_ATTEST_TCB_REVOKED);
    if (status != TB_ATTEST_TCB_REVOKED) { /* QVL returns Revoked before looking further */
        if (q->body_type == 3) {
            status = relaunch(q, p, sgx_lvl->status, status, module_status, qe, e);
            if (status < 0) {
                *step = TB_TDX_STEP_TDX_MODULE;
                return -1;
            }
        }
        if (qe == QE_NOT_SUPPORTED) {
            *step = TB_TDX_STEP_QE_IDENTITY;
            return tb_errf(e,
                           "QE ISVSVN %u is below every QE identity TCB level (Intel: "
                           "TCB_NOT_SUPPORTED; QVL before mid-2023 said Revoked)",
                           q->qe_report.isvsvn);
        }
        status = converge(status, qe == QE_OUT_OF_DATE, qe == QE_REVOKED);
    }
    v->status_known = 1;
    v->status = (tb_attest_tcb_status)status;
    v->platform_status = (tb_attest_tcb_status)tdx_lvl->status;
    v->module_status = (tb_attest_tcb_status)module_status;
    v->qe_status = qe == QE_OK        ? TB_ATTEST_TCB_UP_TO_DATE
                   : qe == QE_REVOKED ? TB_ATTEST_TCB_REVOKED
                                      : TB_ATTEST_TCB_OUT_OF_DATE;
    snprintf(v->tcb_date, sizeof v->tcb_date, "%s", tdx_lvl->date);
    if (qe_lvl)
        snprintf(v->qe_tcb_date, sizeof v->qe_tcb_date, "%s", qe_lvl->date);
    if (mod_lvl)
        snprintf(v->module_tcb_date, sizeof v->module_tcb_date, "%s", mod_lvl->date);
    add_advisories(v, &tdx_lvl->adv, TB_TDX_ADV_PLATFORM);
    if (mod_lvl)
        add_advisories(v, &mod_lvl->adv, TB_TDX_ADV_TDX_MODULE);
    if (qe_lvl)
        add_advisories(v, &qe_lvl->adv, TB_TDX_ADV_QE);
    return 0;
}

static int apply_policy(const tb_tdx_quote *q, const tb_attest_policy *pol, int64_t now,
                        tb_tdx_step exp_step, tb_tdx_verdict *v)
{
    tb_attest_policy def;
    if (!pol) {
        tb_attest_policy_default(&def);
        pol = &def;
    }
    v->collateral_expired = v->collateral_expiration && now > v->collateral_expiration;
    if (v->collateral_expired && !pol->allow_expired_collateral) {
        char a[32], b[32];
        tb_utc_iso8601(v->collateral_expiration, a, sizeof a);
        tb_utc_iso8601(now, b, sizeof b);
        v->result = TB_ATTEST_EXPIRED;
        v->step = exp_step;
        snprintf(v->reason, sizeof v->reason,
                 "collateral expired at %s (%s), before the verification time %s "
                 "(--allow-expired-collateral verifies old evidence anyway)",
                 a, v->collateral_expiration_what, b);
        return -1;
    }
    const tb_tdx_td_report *t = &q->td;
    char why[TB_ERR_MAX] = "";
    if (tb_attest_policy_has_snp(pol))
        snprintf(why, sizeof why, "the policy sets SEV-SNP requirements; this is a TDX quote");
    else if (v->debug && !pol->allow_debug)
        snprintf(why, sizeof why, "the TD has the DEBUG attribute (--allow-debug accepts it)");
    else if (pol->want_mrtd && memcmp(t->mrtd, pol->mrtd, 48))
        snprintf(why, sizeof why, "MRTD differs from the policy's");
    else if (pol->want_mrconfigid && memcmp(t->mrconfigid, pol->mrconfigid, 48))
        snprintf(why, sizeof why, "MRCONFIGID differs from the policy's");
    else if (pol->report_data_len && memcmp(t->reportdata, pol->report_data, pol->report_data_len))
        snprintf(why, sizeof why, "REPORTDATA differs from the policy's");
    for (int i = 0; i < 4 && !why[0]; i++)
        if (pol->want_rtmr[i] && memcmp(t->rtmr[i], pol->rtmr[i], 48))
            snprintf(why, sizeof why, "RTMR%d differs from the policy's", i);
    if (!why[0] && !(pol->accept & (1u << v->status))) {
        size_t k = 0;
        char list[384] = ""; /* 11 status names fit; shorter than why */
        for (int s = 0; s < TB_ATTEST_TCB_STATUS_COUNT; s++)
            if (pol->accept & (1u << s))
                k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", k ? ", " : "",
                                      tb_attest_tcb_status_name((tb_attest_tcb_status)s));
        snprintf(why, sizeof why, "TCB status %s is not acceptable (the policy accepts: %s)",
                 tb_attest_tcb_status_name(v->status), k ? list : "nothing");
    }
    if (why[0]) {
        v->result = TB_ATTEST_REFUSED;
        v->step = TB_TDX_STEP_POLICY;
        snprintf(v->reason, sizeof v->reason, "%s", why);
        return -1;
    }
    v->result = TB_ATTEST_ACCEPTED;
    v->step = TB_TDX_STEP_NONE;
    return 0;
}

static int verify_quote(const tb_tdx_quote *q, const tb_tdx_prepared *p, int64_t now,
                        const tb_attest_policy *pol, tb_tdx_verdict *v)
{
    tb_err e = {{0}};
    tb_tdx_step exp_step = TB_TDX_STEP_NONE, step;
    v->debug = tb_tdx_quote_is_debug(q);
    if (step_header(q, &e) < 0)
        return fail(v, TB_TDX_STEP_HEADER, e.msg);
    /* 2 */
    if (p->fail_step == TB_TDX_STEP_PCK_CHAIN)
        return fail(v, TB_TDX_STEP_PCK_CHAIN, p->fail_reason);
    if (win_started(&p->crl_win, now, "CRLs", &e) < 0)
        return fail(v, TB_TDX_STEP_PCK_CHAIN, e.msg);
    note_expiry(v, &p->crl_win, TB_TDX_STEP_PCK_CHAIN, &exp_step);
    void *ec = tb_attest_p256_ctx_from(p->group);
    if (!ec)
        return fail(v, TB_TDX_STEP_NONE, "out of memory");
    tb_attest_der_list chain = {0};
    tb_attest_cert leaf;
    tb_tdx_pck_info pck;
    window w;
    if (step_pck_chain(ec, q, p, now, &chain, &leaf, &pck, &w, &e) < 0) {
        tb_attest_der_list_clear(&chain);
        tb_attest_p256_ctx_free(ec);
        return fail(v, TB_TDX_STEP_PCK_CHAIN, e.msg);
    }
    note_expiry(v, &w, TB_TDX_STEP_PCK_CHAIN, &exp_step);
    tb_hex_encode(pck.fmspc, 6, v->fmspc);
    int rc = -1;
    const tb_tdx_tcb_level *qe_lvl = NULL;
    const tb_tdx_module_identity *mid = NULL;
    /* 3 */
    if (p->fail_step == TB_TDX_STEP_TCB_INFO) {
        fail(v, TB_TDX_STEP_TCB_INFO, p->fail_reason);
        goto out;
    }
    if (win_started(&p->tcb_win, now, "TCB info", &e) < 0 || step_tcb_info(p, &pck, &e) < 0) {
        fail(v, TB_TDX_STEP_TCB_INFO, e.msg);
        goto out;
    }
    note_expiry(v, &p->tcb_win, TB_TDX_STEP_TCB_INFO, &exp_step);
    /* 4 */
    if (p->fail_step == TB_TDX_STEP_QE_IDENTITY) {
        fail(v, TB_TDX_STEP_QE_IDENTITY, p->fail_reason);
        goto out;
    }
    if (win_started(&p->qe_win, now, "QE identity", &e) < 0 ||
        step_qe_identity(q, p, &qe_lvl, &e) < 0) {
        fail(v, TB_TDX_STEP_QE_IDENTITY, e.msg);
        goto out;
    }
    note_expiry(v, &p->qe_win, TB_TDX_STEP_QE_IDENTITY, &exp_step);
    /* 5, 6, 7 */
    if (step_qe_report(ec, q, &leaf, &e) < 0) {
        fail(v, TB_TDX_STEP_QE_REPORT, e.msg);
        goto out;
    }
    if (step_quote_sig(ec, q, &e) < 0) {
        fail(v, TB_TDX_STEP_QUOTE_SIGNATURE, e.msg);
        goto out;
    }
    if (step_module(q, p, &mid, &e) < 0) {
        fail(v, TB_TDX_STEP_TDX_MODULE, e.msg);
        goto out;
    }
    /* 8 */
    if (step_tcb_level(q, p, &pck, mid, qe_lvl, v, &step, &e) < 0) {
        v->status_known = 0;
        fail(v, step, e.msg);
        goto out;
    }
    rc = apply_policy(q, pol, now, exp_step, v);
out:
    tb_attest_der_list_clear(&chain);
    tb_attest_p256_ctx_free(ec);
    return rc;
}

int tb_tdx_verify_prepared(const uint8_t *quote, size_t len, const tb_tdx_prepared *p, int64_t now,
                           const tb_attest_policy *policy, tb_tdx_verdict *v)
{
    verdict_init(v, p->simulated);
    tb_tdx_quote *q = NULL;
    tb_err e = {{0}};
    if (tb_tdx_quote_parse(quote, len, &q, &e) < 0)
        return fail(v, TB_TDX_STEP_PARSE, e.msg);
    int rc = verify_quote(q, p, now, policy, v);
    tb_tdx_quote_free(q);
    return rc;
}

int tb_tdx_verify(const uint8_t *quote, size_t len, const tb_tdx_collateral *c, int64_t now,
                  const tb_attest_policy *policy, const tb_attest_root *root, tb_tdx_verdict *v)
{
    verdict_init(v, root->simulated);
    tb_tdx_quote *q = NULL;
    tb_err e = {{0}};
    if (tb_tdx_quote_parse(quote, len, &q, &e) < 0)
        return fail(v, TB_TDX_STEP_PARSE, e.msg);
    /* Step 1 before touching the collateral, as QVL does. */
    if (step_header(q, &e) < 0) {
        tb_tdx_quote_free(q);
        return fail(v, TB_TDX_STEP_HEADER, e.msg);
    }
    tb_tdx_prepared *p = prepare(c, root);
    int rc;
    if (!p) {
        rc = fail(v, TB_TDX_STEP_NONE, "out of memory");
    } else {
        rc = verify_quote(q, p, now, policy, v);
        v->simulated = p->simulated;
    }
    tb_tdx_prepared_free(p);
    tb_tdx_quote_free(q);
    return rc;
}
