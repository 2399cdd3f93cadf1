/* attest/snp/verify: the PURE SEV-SNP verifier:
 *   verify(report, certs, now, policy, trusted ARK) -> verdict
 * as AMD specifies it and virtee/sev and google/go-sev-guest implement it. No network,
 * clock or globals; the same inputs always give the same verdict.
 *
 * Steps, in order (the first failure is the verdict, INVALID at that step):
 *   parse      the 1184 bytes (snp_report.c); a report without a signing key (7) fails
 * Validity: a certificate not yet valid at now is INVALID; one past its notAfter (or a
 * CRL past its nextUpdate) is noted, and when everything else verifies the verdict is
 * EXPIRED (as TDX's stale collateral, exit 5) unless the policy allows expired collateral.
 *   1 ark      the trusted ARK: the built-in one of the product (or the caller's root);
 *              an ark.pem given with the certificates must be byte-identical to it; a
 *              caller's root must be self-signed (RSA-4096 RSA-PSS SHA-384), a CA. (The built-in
 * ARKs' self-signatures are checked by the unit tests: a trust anchor's self-signature proves
 * nothing at run time.) 2 ask      the ASK (VCEK) or ASVK (VLEK) -- given or built in -- issued and
 * signed by the ARK, a CA 3 vcek     the VCEK / VLEK issued and signed by the ASK, not a CA, a
 * P-384 key, its productName the report's product 4 crl      when a CRL is given: issued and signed
 * by the ARK, thisUpdate <= now, neither the ASK nor the VCEK revoked 5 tcb      the VCEK's
 * bl/tee/snp/ucode (Turin: fmc) SPLs equal the report's REPORTED_TCB, its hwID equals CHIP_ID
 * (unless MASK_CHIP_KEY); a VLEK has no hwID but a csp_id 6 signature  ECDSA P-384 over SHA-384 of
 * bytes [0, 0x2A0), r and s little-endian Then expiration (EXPIRED, above), then the policy
 * (REFUSED): TDX-only requirements, debug, report data, measurement, host data, minimum TCB,
 * minimum guest SVN, VMPL, SMT, migration agent. The product: the report's CPUID fields (version >=
 * 3), else the VCEK's productName.
 *
 * Prepared (tb_snp_prepare): steps 1-4 once for a report's certificates, as a
 * verifier service does for a platform it has seen; then each report costs steps 5-6 and
 * the policy (the same code, check_report). Expiration is judged at each report's time. */
#include "attest/internal.h"
#include "attest/snp/snp.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/hex.h"

static const char *const STEPS[] = {"none", "parse", "ark",       "ask",   "vcek",
                                    "crl",  "tcb",   "signature", "policy"};

const char *tb_snp_step_name(tb_snp_step s)
{
    return (unsigned)s < sizeof STEPS / sizeof STEPS[0] ? STEPS[s] : "?";
}

/* The verdict: result at step, the reason formatted; -1. */
static int set_verdict(tb_snp_verdict *v, tb_attest_result result, tb_snp_step step,
                       const char *fmt, va_list ap) __attribute__((format(printf, 4, 0)));
static int set_verdict(tb_snp_verdict *v, tb_attest_result result, tb_snp_step step,
                       const char *fmt, va_list ap)
{
    vsnprintf(v->reason, sizeof v->reason, fmt, ap);
    v->result = result;
    v->step = step;
    return -1;
}

static int fail(tb_snp_verdict *v, tb_snp_step step, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(tb_snp_verdict *v, tb_snp_step step, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_verdict(v, TB_ATTEST_INVALID, step, fmt, ap);
    va_end(ap);
    return -1;
}

static int refuse(tb_snp_verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(tb_snp_verdict *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_verdict(v, TB_ATTEST_REFUSED, TB_SNP_STEP_POLICY, fmt, ap);
    va_end(ap);
    return -1;
}

/* Not yet valid: INVALID. Past notAfter: noted (the earliest expiration wins); the verdict
 * is EXPIRED after every other check passed, unless the policy allows expired collateral. */
static int not_yet_valid(const tb_snp_cert *c, int64_t now, const char *what, tb_snp_verdict *v)
{
    if (now < c->id.not_before)
        return 1;
    if (!v->expiration || c->id.not_after < v->expiration) {
        v->expiration = c->id.not_after;
        snprintf(v->expiration_what, sizeof v->expiration_what, "%s", what);
    }
    return 0;
}

static int same_name(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    return an == bn && !memcmp(a, b, an);
}

static int apply_policy(const tb_snp_report *r, const tb_attest_policy *pol, int64_t now,
                        tb_snp_verdict *v)
{
    tb_attest_policy def;
    if (!pol) {
        tb_attest_policy_default(&def);
        pol = &def;
    }
    const tb_snp_tcb *t = &v->reported;
    if (v->expired && !pol->allow_expired_collateral) {
        char a[32], b[32];
        tb_utc_iso8601(v->expiration, a, sizeof a);
        tb_utc_iso8601(now, b, sizeof b);
        v->result = TB_ATTEST_EXPIRED;
        v->step = !strcmp(v->expiration_what, "CRL")   ? TB_SNP_STEP_CRL
                  : !strcmp(v->expiration_what, "ARK") ? TB_SNP_STEP_ARK
                  : (!strcmp(v->expiration_what, "ASK") || !strcmp(v->expiration_what, "ASVK"))
                      ? TB_SNP_STEP_ASK
                      : TB_SNP_STEP_VCEK;
        snprintf(v->reason, sizeof v->reason,
                 "collateral expired at %s (%s), before the verification time %s "
                 "(--allow-expired-collateral verifies old evidence anyway)",
                 a, v->expiration_what, b);
        return -1;
    }
    if (tb_attest_policy_has_tdx(pol))
        return refuse(v, "the policy sets TDX measurements (mrtd, mrconfigid, rtmr); this is an "
                         "SEV-SNP report");
    if (v->debug && !pol->allow_debug)
        return refuse(v, "the guest policy allows debugging (DEBUG, bit 19; --allow-debug "
                         "accepts it)");
    if (pol->report_data_len && memcmp(r->report_data, pol->report_data, pol->report_data_len))
        return refuse(v, "REPORT_DATA differs from the policy's");
    if (pol->want_measurement && memcmp(r->measurement, pol->measurement, 48))
        return refuse(v, "MEASUREMENT differs from the policy's");
    if (pol->want_host_data && memcmp(r->host_data, pol->host_data, 32))
        return refuse(v, "HOST_DATA differs from the policy's");
    if (pol->want_min_tcb) {
        struct {
            const char *name;
            unsigned have, want;
        } c[] = {{"bl", t->bl, pol->min_bl},
                 {"tee", t->tee, pol->min_tee},
                 {"snp", t->snp, pol->min_snp},
                 {"ucode", t->ucode, pol->min_ucode},
                 {"fmc", t->fmc, t->has_fmc ? pol->min_fmc : 0}};
        for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
            if (c[i].have < c[i].want)
                return refuse(v, "reported TCB %s SPL %u is below the policy's minimum %u",
                              c[i].name, c[i].have, c[i].want);
    }
    if (pol->want_min_guest_svn && r->guest_svn < pol->min_guest_svn)
        return refuse(v, "GUEST_SVN %u is below the policy's minimum %u", r->guest_svn,
                      pol->min_guest_svn);
    if (pol->want_vmpl && r->vmpl != pol->vmpl)
        return refuse(v, "VMPL %u is not the policy's %u", r->vmpl, pol->vmpl);
    if (pol->deny_smt && (r->policy & TB_SNP_POLICY_SMT))
        return refuse(v, "the guest policy allows SMT (the policy's allow_smt is false)");
    if (pol->deny_migration && (r->policy & TB_SNP_POLICY_MIGRATE_MA))
        return refuse(v, "the guest policy allows a migration agent (the policy's "
                         "allow_migration is false)");
    v->result = TB_ATTEST_ACCEPTED;
    v->step = TB_SNP_STEP_NONE;
    v->reason[0] = '\0';
    return 0;
}

/* The leaf (VCEK / VLEK) of certs, parsed into *vcek (pointers into certs->vcek), and the
 * product: the report's CPUID fields, else the leaf's productName. Fills v->product. */
static int check_leaf(const tb_snp_report *r, const tb_snp_certs *certs, tb_snp_cert *vcek,
                      tb_snp_verdict *v)
{
    const char *leaf = v->vlek ? "VLEK" : "VCEK";
    tb_err e;
    if (!certs || !certs->vcek)
        return fail(v, TB_SNP_STEP_VCEK, "no %s certificate", leaf);
    if (tb_snp_cert_parse(certs->vcek, certs->vcek_len, vcek, &e) < 0)
        return fail(v, TB_SNP_STEP_VCEK, "%s: %s", leaf, e.msg);
    if (vcek->key_rsa || vcek->is_ca)
        return fail(v, TB_SNP_STEP_VCEK, "the %s is not a P-384 end-entity certificate", leaf);
    tb_snp_product rp = tb_snp_report_product(r), cp = TB_SNP_UNKNOWN;
    if (vcek->ext.product[0] && tb_snp_product_parse(vcek->ext.product, &cp) < 0)
        return fail(v, TB_SNP_STEP_VCEK, "%s names an unknown product \"%s\"", leaf,
                    vcek->ext.product);
    if (rp && cp && rp != cp)
        return fail(v, TB_SNP_STEP_VCEK, "the %s is for %s, the report is from %s", leaf,
                    tb_snp_product_name(cp), tb_snp_product_name(rp));
    v->product = rp ? rp : cp;
    tb_snp_tcb_decode(r->reported_tcb, v->product, &v->reported);
    return 0;
}

/* Steps 1-4: the ARK, the ASK / ASVK, the leaf's signature and validity, the CRL. */
static int check_chain(const tb_snp_certs *certs, const tb_snp_cert *vcek, int64_t now,
                       const uint8_t *root_ark, size_t root_ark_len, tb_snp_verdict *v)
{
    const char *leaf = v->vlek ? "VLEK" : "VCEK";
    tb_snp_cert ark, ask;
    tb_err e;

    /* 1: the ARK */
    const uint8_t *tark = root_ark, *bask = NULL;
    size_t tark_len = root_ark_len, bask_len = 0;
    int builtin = 0;
    if (v->product &&
        tb_snp_builtin(v->product, v->vlek, &tark, &tark_len, &bask, &bask_len) == 0 && !root_ark)
        builtin = 1;
    if (root_ark) {
        tark = root_ark;
        tark_len = root_ark_len;
    }
    if (!tark)
        return fail(v, TB_SNP_STEP_ARK,
                    "unknown product (a version 2 report and a %s without productName): no "
                    "built-in ARK; give the root",
                    leaf);
    if (certs->ark && (certs->ark_len != tark_len || memcmp(certs->ark, tark, tark_len)))
        return fail(v, TB_SNP_STEP_ARK, "the given ARK is not the trusted ARK%s%s",
                    builtin ? " of " : "", builtin ? tb_snp_product_name(v->product) : "");
    if (tb_snp_cert_parse(tark, tark_len, &ark, &e) < 0)
        return fail(v, TB_SNP_STEP_ARK, "ARK: %s", e.msg);
    v->simulated = tb_attest_name_cn_contains(ark.id.subject, ark.id.subject_len, "SIMULATED");
    if (!ark.key_rsa || !ark.is_ca ||
        !same_name(ark.id.issuer, ark.id.issuer_len, ark.id.subject, ark.id.subject_len))
        return fail(v, TB_SNP_STEP_ARK, "the ARK is not a self-issued RSA CA certificate");
    if (!builtin && !tb_snp_pss_verify(&ark, ark.id.tbs, ark.id.tbs_len, ark.sig, ark.sig_len))
        return fail(v, TB_SNP_STEP_ARK,
                    "the ARK's self-signature does not verify (RSA-4096 RSA-PSS SHA-384)");
    if (not_yet_valid(&ark, now, "ARK", v))
        return fail(v, TB_SNP_STEP_ARK, "the ARK is not yet valid at %lld", (long long)now);

    /* 2: the ASK / ASVK */
    const uint8_t *askd = certs->ask ? certs->ask : (root_ark ? NULL : bask);
    size_t askn = certs->ask ? certs->ask_len : bask_len;
    const char *askname = v->vlek ? "ASVK" : "ASK";
    if (!askd)
        return fail(v, TB_SNP_STEP_ASK, "no %s certificate", askname);
    if (tb_snp_cert_parse(askd, askn, &ask, &e) < 0)
        return fail(v, TB_SNP_STEP_ASK, "%s: %s", askname, e.msg);
    if (!same_name(ask.id.issuer, ask.id.issuer_len, ark.id.subject, ark.id.subject_len))
        return fail(v, TB_SNP_STEP_ASK, "the %s was not issued by this ARK", askname);
    if (!tb_snp_pss_verify(&ark, ask.id.tbs, ask.id.tbs_len, ask.sig, ask.sig_len))
        return fail(v, TB_SNP_STEP_ASK, "the %s's signature does not verify with the ARK", askname);
    if (!ask.key_rsa || !ask.is_ca)
        return fail(v, TB_SNP_STEP_ASK, "the %s is not an RSA CA certificate", askname);
    if (not_yet_valid(&ask, now, askname, v))
        return fail(v, TB_SNP_STEP_ASK, "the %s is not yet valid at %lld", askname, (long long)now);

    /* 3: the VCEK / VLEK */
    if (!same_name(vcek->id.issuer, vcek->id.issuer_len, ask.id.subject, ask.id.subject_len))
        return fail(v, TB_SNP_STEP_VCEK, "the %s was not issued by this %s", leaf, askname);
    if (!tb_snp_pss_verify(&ask, vcek->id.tbs, vcek->id.tbs_len, vcek->sig, vcek->sig_len))
        return fail(v, TB_SNP_STEP_VCEK, "the %s's signature does not verify with the %s", leaf,
                    askname);
    if (not_yet_valid(vcek, now, leaf, v))
        return fail(v, TB_SNP_STEP_VCEK, "the %s is not yet valid at %lld", leaf, (long long)now);

    /* 4: the CRL */
    if (certs->crl) {
        tb_attest_crl crl;
        if (tb_snp_crl_parse(certs->crl, certs->crl_len, &crl, &e) < 0)
            return fail(v, TB_SNP_STEP_CRL, "%s", e.msg);
        if (!same_name(crl.issuer, crl.issuer_len, ark.id.subject, ark.id.subject_len))
            return fail(v, TB_SNP_STEP_CRL, "the CRL was not issued by the ARK");
        if (!tb_snp_pss_verify(&ark, crl.tbs, crl.tbs_len, crl.rsa_sig, crl.rsa_sig_len))
            return fail(v, TB_SNP_STEP_CRL, "the CRL's signature does not verify");
        if (now < crl.this_update)
            return fail(v, TB_SNP_STEP_CRL, "the CRL is not yet valid at %lld", (long long)now);
        if (crl.next_update < v->expiration) {
            v->expiration = crl.next_update;
            snprintf(v->expiration_what, sizeof v->expiration_what, "CRL");
        }
        if (tb_attest_crl_is_revoked(&crl, ask.id.serial, ask.id.serial_len))
            return fail(v, TB_SNP_STEP_CRL, "the %s is revoked", askname);
        if (tb_attest_crl_is_revoked(&crl, vcek->id.serial, vcek->id.serial_len))
            return fail(v, TB_SNP_STEP_CRL, "the %s is revoked", leaf);
        v->crl_checked = 1;
    }
    return 0;
}

/* Steps 5-6 and what follows: the leaf's TCB and hwID against the report, the report's
 * signature, expiration (at now), the policy. */
static int check_report(const tb_snp_report *r, const uint8_t *report, const tb_snp_cert *vcek,
                        int64_t now, const tb_attest_policy *policy, tb_snp_verdict *v)
{
    const char *leaf = v->vlek ? "VLEK" : "VCEK";
    tb_snp_tcb_decode(r->reported_tcb, v->product, &v->reported);
    v->debug = (r->policy & TB_SNP_POLICY_DEBUG) != 0;

    /* 5: the TCB and the chip */
    const tb_snp_ext *x = &vcek->ext;
    if (!v->vlek || x->has_tcb) {
        if (!x->has_tcb)
            return fail(v, TB_SNP_STEP_TCB, "the %s lacks the bl/tee/snp/ucode SPLs", leaf);
        v->cert_tcb = (tb_snp_tcb){x->bl, x->tee, x->snp, x->ucode, x->fmc, x->has_fmc};
        const tb_snp_tcb *t = &v->reported;
        if (t->bl != x->bl || t->tee != x->tee || t->snp != x->snp || t->ucode != x->ucode ||
            (t->has_fmc && t->fmc != x->fmc))
            return fail(v, TB_SNP_STEP_TCB,
                        "the report's reported TCB (bl %u, tee %u, snp %u, ucode %u) differs "
                        "from the %s's (bl %u, tee %u, snp %u, ucode %u)",
                        t->bl, t->tee, t->snp, t->ucode, leaf, x->bl, x->tee, x->snp, x->ucode);
    }
    if (!v->vlek) {
        if (!x->has_hwid)
            return fail(v, TB_SNP_STEP_TCB, "the VCEK lacks the hwID extension");
        if (!(r->signer_info & 2) && memcmp(x->hwid, r->chip_id, 64))
            return fail(v, TB_SNP_STEP_TCB, "the VCEK's hwID is not the report's CHIP_ID");
    } else if (!x->has_csp_id) {
        return fail(v, TB_SNP_STEP_TCB, "the VLEK lacks the csp_id extension");
    }

    /* 6: the report signature */
    if (!tb_snp_report_sig_ok(vcek, report))
        return fail(v, TB_SNP_STEP_SIGNATURE,
                    "the report's signature does not verify with the %s (ECDSA P-384 over "
                    "bytes 0x0-0x29F)",
                    leaf);
    v->expired = now > v->expiration;
    return apply_policy(r, policy, now, v);
}

/* Parses the report and reads its signing key (7, none, fails). */
static int parse_signed(const uint8_t *report, size_t len, tb_snp_report *r, tb_snp_verdict *v)
{
    memset(v, 0, sizeof *v);
    v->result = TB_ATTEST_INVALID;
    tb_err e;
    if (tb_snp_parse(report, len, r, &e) < 0)
        return fail(v, TB_SNP_STEP_PARSE, "%s", e.msg);
    unsigned key = tb_snp_signing_key(r);
    if (key == 7)
        return fail(v, TB_SNP_STEP_PARSE, "the report is not signed (SIGNING_KEY 7)");
    v->vlek = key == 1;
    v->debug = (r->policy & TB_SNP_POLICY_DEBUG) != 0;
    return 0;
}

/* The steps up to the certificates, shared by verify and prepare: the report's bytes, the
   leaf (VCEK/VLEK) and its chain to the trusted ARK, with the CRL. The leaf is read first:
   its productName names the product of a v2 report. Fills *r and *vcek on success. */
static int check_certs(const uint8_t *report, size_t len, const tb_snp_certs *certs, int64_t now,
                       const uint8_t *root_ark, size_t root_ark_len, tb_snp_report *r,
                       tb_snp_cert *vcek, tb_snp_verdict *v)
{
    if (parse_signed(report, len, r, v) < 0 || check_leaf(r, certs, vcek, v) < 0 ||
        check_chain(certs, vcek, now, root_ark, root_ark_len, v) < 0)
        return -1;
    return 0;
}

int tb_snp_verify(const uint8_t *report, size_t len, const tb_snp_certs *certs, int64_t now,
                  const tb_attest_policy *policy, const uint8_t *root_ark, size_t root_ark_len,
                  tb_snp_verdict *v)
{
    tb_snp_report r;
    tb_snp_cert vcek;
    if (check_certs(report, len, certs, now, root_ark, root_ark_len, &r, &vcek, v) < 0)
        return -1;
    return check_report(&r, report, &vcek, now, policy, v);
}

/* ---------------------------------------------------------------- prepared */

struct tb_snp_prepared {
    uint8_t *vcek_der; /* owned copy; vcek points into it */
    size_t vcek_len;
    tb_snp_cert vcek;
    tb_snp_verdict chain; /* product, vlek, simulated, crl_checked, expiration */
};

void tb_snp_prepared_free(tb_snp_prepared *p)
{
    if (!p)
        return;
    free(p->vcek_der);
    free(p);
}

int tb_snp_prepare(const uint8_t *report, size_t len, const tb_snp_certs *certs, int64_t now,
                   const uint8_t *root_ark, size_t root_ark_len, tb_snp_prepared **out,
                   tb_snp_verdict *v)
{
    *out = NULL;
    tb_snp_report r;
    tb_snp_cert vcek;
    if (check_certs(report, len, certs, now, root_ark, root_ark_len, &r, &vcek, v) < 0)
        return -1;
    tb_snp_prepared *p = calloc(1, sizeof *p);
    tb_err e;
    if (!p || !(p->vcek_der = malloc(certs->vcek_len)) ||
        (memcpy(p->vcek_der, certs->vcek, certs->vcek_len),
         tb_snp_cert_parse(p->vcek_der, certs->vcek_len, &p->vcek, &e) < 0)) {
        tb_snp_prepared_free(p);
        return fail(v, TB_SNP_STEP_VCEK, "out of memory");
    }
    p->vcek_len = certs->vcek_len;
    p->chain = *v;
    v->result = TB_ATTEST_ACCEPTED;
    *out = p;
    return 0;
}

int tb_snp_verify_prepared(const uint8_t *report, size_t len, const tb_snp_prepared *p, int64_t now,
                           const tb_attest_policy *policy, tb_snp_verdict *v)
{
    tb_snp_report r;
    if (parse_signed(report, len, &r, v) < 0)
        return -1;
    int vlek = v->vlek, debug = v->debug;
    *v = p->chain; /* the chain's findings; this report's own fields follow */
    v->result = TB_ATTEST_INVALID;
    v->debug = debug;
    v->vlek = vlek;
    if (vlek != p->chain.vlek)
        return fail(v, TB_SNP_STEP_VCEK,
                    "the report is signed by a %s; the prepared "
                    "certificates hold a %s",
                    vlek ? "VLEK" : "VCEK", p->chain.vlek ? "VLEK" : "VCEK");
    tb_snp_product rp = tb_snp_report_product(&r);
    if (rp && rp != p->chain.product)
        return fail(v, TB_SNP_STEP_VCEK,
                    "the prepared certificates are for %s, the "
                    "report is from %s",
                    tb_snp_product_name(p->chain.product), tb_snp_product_name(rp));
    return check_report(&r, report, &p->vcek, now, policy, v);
}
