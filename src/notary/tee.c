/* notary/tee: the quote source and the quote verifier over src/attest (see
 * tee.h). The source is attest/evidence's provider, opened once (a simulated
 * one's PKI read at start) and used from every worker thread; it serializes
 * configfs-tsm reports itself (a report entry is not safe for concurrent use).
 * Verification is one call to tb_attest_verify_quote: the collateral source,
 * cache and checks are the attest module's, not repeated here. */
#include "notary/tee.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "attest/attest.h"
#include "attest/evidence.h"
#include "attest/snp.h"
#include "notary/internal.h"

static int get_evidence(void *ctx, const uint8_t rd[64], uint8_t **quote, size_t *len, tb_err *err)
{
    return tb_attest_evidence_get(ctx, rd, quote, len, err);
}

/* The verifier's collateral of a SIMULATED provider, made here once (as a real verifier
   has Intel's cached, or AMD's on disk or in its KDS cache). */
static int sim_collateral(tb_tee kind, const char *dir, tb_err *err)
{
    if (kind == TB_TEE_SIM_SNP) {
        tb_attest_snp_certs certs;
        if (tb_attest_snp_sim_certs_cached(dir, (int64_t)time(NULL), &certs, err) < 0)
            return -1;
        tb_attest_snp_certs_clear(&certs);
        return 0;
    }
    tb_attest_collateral col;
    tb_attest_root *root = NULL;
    if (tb_attest_sim_collateral_cached(dir, (int64_t)time(NULL), &col, &root, err) < 0)
        return -1;
    tb_attest_collateral_clear(&col);
    tb_attest_root_free(root);
    return 0;
}

int tb_notary_tee_open(tb_tee kind, const char *sim_dir, tb_notary_quote_source *out, tb_err *err)
{
    memset(out, 0, sizeof *out);
    tb_attest_evidence *ev = NULL;
    const char *what = kind == TB_TEE_SIM_SNP ? "simulated SEV-SNP" : "simulated TEE";
    if (tb_attest_evidence_open(kind, sim_dir, NULL, &ev, err) < 0)
        return tb_tee_simulated(kind) ? tb_err_wrap(err, "%s", what) : -1;
    if (tb_tee_simulated(kind) && sim_collateral(kind, tb_attest_evidence_sim_dir(ev), err) < 0) {
        tb_attest_evidence_close(ev);
        return tb_err_wrap(err, "%s", what);
    }
    out->tee = kind;
    out->ctx = ev;
    out->get_quote = get_evidence;
    return 0;
}

void tb_notary_tee_close(tb_notary_quote_source *src)
{
    tb_attest_evidence_close(src->ctx);
    memset(src, 0, sizeof *src);
}

/* ----------------------------------------------------------------- verifier */

typedef struct ver_ctx {
    char source[4200]; /* collateral file or folder, PCCS URL, or "sim:DIR" */
    const char *root;
    tb_attest_policy policy;
    int simulated;
    int snp;           /* SEV-SNP: source is the sim dir, a --certs folder or a KDS URL */
    int kds;           /* snp: source is a KDS base URL */
    uint8_t *snp_root; /* snp: the trusted ARK DER (NULL: AMD's built-in) */
    size_t snp_root_len;
} ver_ctx;

/* The certificates an SNP report is checked against: the SIMULATED provider's own
 * (written to a private temporary folder and read back), a folder, or the KDS. */
static int snp_certs(ver_ctx *c, const tb_attest_snp_report *r, tb_attest_snp_certs *out,
                     int *fetched, tb_err *err)
{
    *fetched = 0;
    if (c->kds) {
        tb_attest_snp_product prod = tb_attest_snp_report_product(r);
        if (!prod)
            return tb_errf(err, "a version 2 SNP report does not name its product (use --certs)");
        tb_attest_snp_kds_opts o = {0};
        return tb_attest_snp_kds_fetch(c->source, r, prod, (int64_t)time(NULL), &o, out, fetched,
                                       err);
    }
    if (!c->simulated)
        return tb_attest_snp_certs_load(c->source, out, err);
    return tb_attest_snp_sim_certs_cached(c->source, (int64_t)time(NULL), out, err);
}

/* An SEV-SNP report: attest's SNP verifier, and the report's REPORT_DATA must be the binding. */
static int verify_snp(ver_ctx *c, const uint8_t *report, size_t len, const uint8_t report_data[64],
                      tb_err *err)
{
    tb_attest_snp_report r;
    if (tb_attest_snp_parse(report, len, &r, err) < 0)
        return tb_err_wrap(err, "SNP report");
    if (tb_attest_snp_is_simulated(&r) != c->simulated)
        return tb_errf(err, c->simulated ? "the SNP report is not from the simulated provider"
                                         : "a SIMULATED SNP report where a real one was expected");
    if (CRYPTO_memcmp(r.report_data, report_data, 64))
        return tb_errf(err, "the SNP report's REPORT_DATA does not bind this nonce and notary "
                            "key (a report for another key or nonce)");
    tb_attest_snp_certs certs;
    int fetched = 0;
    if (snp_certs(c, &r, &certs, &fetched, err) < 0)
        return tb_err_wrap(err, "SNP certificates");
    tb_attest_policy pol = c->policy;
    memcpy(pol.report_data, report_data, 64);
    pol.report_data_len = 64;
    tb_attest_snp_verdict v;
    int rc = tb_attest_snp_verify(report, len, &certs, (int64_t)time(NULL), &pol, c->snp_root,
                                  c->snp_root_len, &v);
    if (c->kds && fetched && v.result != TB_ATTEST_INVALID) {
        tb_attest_snp_kds_opts o = {0};
        tb_err e2;
        tb_attest_snp_kds_cache_put(c->source, &r, tb_attest_snp_report_product(&r), &o, &certs,
                                    &e2); /* a cache miss next time is only slower */
    }
    tb_attest_snp_certs_clear(&certs);
    if (rc == 0 && v.simulated != c->simulated)
        return tb_errf(err, c->simulated ? "the SNP report did not verify against the simulated ARK"
                                         : "a SIMULATED SNP report where a real one was expected");
    if (rc < 0)
        return tb_errf(err, "SNP report %s at step %s: %s",
                       v.result == TB_ATTEST_REFUSED   ? "REFUSED"
                       : v.result == TB_ATTEST_EXPIRED ? "COLLATERAL EXPIRED"
                                                       : "INVALID",
                       tb_attest_snp_step_name(v.step), v.reason);
    return 0;
}

/* One call to the attest module's entry point, which parses the quote once:
 * the binding is checked by the policy (REPORTDATA must equal report_data). */
static int verify(void *ctx, const uint8_t *quote, size_t len, const uint8_t report_data[64],
                  tb_err *err)
{
    ver_ctx *c = ctx;
    if (c->snp)
        return verify_snp(c, quote, len, report_data, err);
    tb_attest_policy pol = c->policy;
    memcpy(pol.report_data, report_data, 64);
    pol.report_data_len = 64;
    tb_attest_verdict v;
    tb_attest_fetch_opts fetch = {0};
    int rc = tb_attest_verify_quote(quote, len, c->source, c->root, (int64_t)time(NULL), &pol,
                                    &fetch, &v, NULL, err);
    if ((rc == 0 || v.step != TB_ATTEST_STEP_NONE) && v.simulated != c->simulated)
        return tb_errf(err, c->simulated ? "the quote did not verify against the simulated root"
                                         : "a SIMULATED quote where a real one was expected");
    if (rc < 0 && v.result == TB_ATTEST_REFUSED && !strncmp(v.reason, "REPORTDATA", 10))
        return tb_errf(err, "the quote's REPORTDATA does not bind this nonce and notary key "
                            "(a quote for another key or nonce)");
    return rc;
}

static int open_snp(const tb_notary_verifier_opts *o, ver_ctx *c, tb_notary_quote_verifier *out,
                    tb_err *err)
{
    int rc = -1;
    if (o->collateral || o->pccs) {
        tb_errf(err, "--collateral/--pccs are for TDX quotes (SEV-SNP evidence needs --certs DIR "
                     "or --kds URL)");
        goto out;
    }
    if (o->simulated) {
        if (o->certs || o->kds || o->root) {
            tb_errf(err, "the evidence is SIMULATED: it verifies only against the simulated "
                         "PKI (drop --certs/--kds/--root)");
            goto out;
        }
        if (tb_attest_sim_dir(o->sim_dir, c->source, sizeof c->source, err) < 0 ||
            tb_attest_snp_sim_ark(c->source, &c->snp_root, &c->snp_root_len, err) < 0) {
            tb_err_wrap(err, "simulated SEV-SNP");
            goto out;
        }
    } else {
        if (!o->certs == !o->kds) {
            tb_errf(err, "verifying an SEV-SNP report needs --certs DIR or --kds URL");
            goto out;
        }
        snprintf(c->source, sizeof c->source, "%s", o->certs ? o->certs : o->kds);
        c->kds = o->kds != NULL;
        if (o->root &&
            tb_attest_snp_read_der(o->root, 0, &c->snp_root, &c->snp_root_len, err) < 0) {
            tb_err_wrap(err, "--root");
            goto out;
        }
    }
    out->ctx = c;
    out->verify = verify;
    rc = 0;
out:
    if (rc < 0) {
        free(c->snp_root);
        free(c);
    }
    return rc;
}

int tb_notary_verifier_open(const tb_notary_verifier_opts *o, tb_notary_quote_verifier *out,
                            tb_err *err)
{
    memset(out, 0, sizeof *out);
    ver_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return tb_errf(err, "out of memory");
    tb_attest_policy_default(&c->policy);
    if (o->policy && tb_attest_policy_load(o->policy, &c->policy, err) < 0) {
        free(c);
        return tb_err_wrap(err, "--policy");
    }
    c->root = o->root;
    c->simulated = o->simulated;
    c->snp = tb_tee_family_of(o->tee) == TB_TEE_FAMILY_SNP;
    if (c->snp)
        return open_snp(o, c, out, err);
    if (o->certs || o->kds) {
        free(c);
        return tb_errf(err, "--certs/--kds are for SEV-SNP evidence (a TDX quote needs "
                            "--collateral or --pccs)");
    }
    if (o->simulated) {
        char dir[4096];
        if (o->collateral || o->pccs) {
            free(c);
            return tb_errf(err, "the evidence is SIMULATED: it verifies only against the "
                                "simulated PKI (drop --collateral/--pccs)");
        }
        if (tb_attest_sim_dir(o->sim_dir, dir, sizeof dir, err) < 0) {
            free(c);
            return tb_err_wrap(err, "simulated TEE");
        }
        snprintf(c->source, sizeof c->source, "sim:%s", dir);
    } else if (o->collateral) {
        snprintf(c->source, sizeof c->source, "%s", o->collateral);
    } else if (o->pccs) {
        snprintf(c->source, sizeof c->source, "%s", o->pccs);
    } else {
        free(c);
        return tb_errf(err, "verifying a TDX quote needs --collateral FILE or --pccs URL");
    }
    out->ctx = c;
    out->verify = verify;
    return 0;
}

void tb_notary_verifier_close(tb_notary_quote_verifier *v)
{
    ver_ctx *c = v->ctx;
    if (c)
        free(c->snp_root);
    free(v->ctx);
    memset(v, 0, sizeof *v);
}
