/* notary/tee: the quote source and the quote verifier over attest/common/evidence (see
 * tee.h), one path for every TEE kind. The source is attest/common/evidence's provider, opened
 * once (a simulated one's PKI read and its verifier's collateral made at start) and used
 * from every worker thread; it serializes configfs-tsm reports itself (a report entry is
 * not safe for concurrent use). Verification reads the evidence (its SIMULATED marker and
 * the binding), then is one tb_attest_evidence_check: the collateral source, cache and
 * checks are the attest module's, not repeated here; the words of the errors are the
 * family's (WORDS). */
#include "notary/tee.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "attest/tdx/tdx.h"
#include "attest/common/evidence.h"
#include "attest/snp/snp.h"
#include "notary/internal.h"

static int get_evidence(void *ctx, const uint8_t rd[64], uint8_t **quote, size_t *len, tb_err *err)
{
    return tb_attest_evidence_get(ctx, rd, quote, len, err);
}

/* The verifier's collateral of a SIMULATED provider, made here once (as a real verifier
   has Intel's cached, or AMD's on disk or in its KDS cache). */
static int sim_collateral(tb_attest_evidence *ev, tb_err *err)
{
    tb_attest_collateral_source src = {.sim_dir = tb_attest_evidence_sim_dir(ev)};
    tb_attest_evidence_collateral c;
    if (tb_attest_evidence_prepare(tb_attest_evidence_kind(ev), NULL, 0, &src, (int64_t)time(NULL),
                                   &c, err) < 0)
        return -1;
    tb_attest_evidence_collateral_clear(&c);
    return 0;
}

int tb_notary_tee_open(tb_tee kind, const char *sim_dir, tb_notary_quote_source *out, tb_err *err)
{
    memset(out, 0, sizeof *out);
    tb_attest_evidence *ev = NULL;
    int sim = tb_tee_simulated(kind);
    const char *family = tb_tee_traits_of(kind)->family_name;
    if (tb_attest_evidence_open(kind, sim_dir, NULL, &ev, err) < 0)
        return sim ? tb_err_wrap(err, "simulated %s", family) : -1;
    if (sim && sim_collateral(ev, err) < 0) {
        tb_attest_evidence_close(ev);
        return tb_err_wrap(err, "simulated %s", family);
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

/* The words a verifier's errors use for each family's evidence. */
typedef struct words {
    const char *evidence;   /* "the quote's REPORTDATA ..." */
    const char *field;      /* the report data's name in the evidence */
    const char *one;        /* "(a quote for another key or nonce)" */
    const char *root;       /* "did not verify against the simulated root" */
    const char *collateral; /* what prepare failed to get */
} words;

static const words WORDS[] = {
    [TB_TEE_FAMILY_NONE] = {"quote", "REPORTDATA", "quote", "root", "collateral"},
    [TB_TEE_FAMILY_TDX] = {"quote", "REPORTDATA", "quote", "root", "collateral"},
    [TB_TEE_FAMILY_SNP] = {"SNP report", "REPORT_DATA", "report", "ARK", "SNP certificates"},
};

typedef struct ver_ctx {
    tb_tee kind; /* the evidence verified: its family, SIMULATED or not */
    tb_attest_collateral_source src;
    char source[4200]; /* src's collateral, pccs, certs or kds */
    char root[4200];   /* src.root */
    char sim_dir[4096];
    tb_attest_policy policy;
} ver_ctx;

/* The evidence's SIMULATED marker must be the verifier's, and its report data the binding
 * (checked before any collateral is fetched); then attest's check with the binding in the
 * policy, and the root it verified against must again be the simulated one or not. */
static int verify(void *ctx, const uint8_t *ev, size_t len, const uint8_t report_data[64],
                  tb_err *err)
{
    ver_ctx *c = ctx;
    const words *w = &WORDS[tb_tee_family_of(c->kind)];
    int simulated = tb_tee_simulated(c->kind), marked;
    uint8_t rd[64];
    if (tb_attest_evidence_read(c->kind, ev, len, rd, &marked, err) < 0)
        return tb_err_wrap(err, "%s", w->evidence);
    if (marked != simulated)
        return simulated
                   ? tb_errf(err, "the %s is not from the simulated provider", w->evidence)
                   : tb_errf(err, "a SIMULATED %s where a real one was expected", w->evidence);
    if (CRYPTO_memcmp(rd, report_data, 64))
        return tb_errf(err,
                       "the %s's %s does not bind this nonce and notary key (a %s for another key "
                       "or nonce)",
                       w->evidence, w->field, w->one);
    tb_attest_policy pol = c->policy;
    memcpy(pol.report_data, report_data, 64);
    pol.report_data_len = 64;
    tb_attest_evidence_verdict v;
    int prepared;
    int rc = tb_attest_evidence_check(c->kind, ev, len, &c->src, (int64_t)time(NULL), &pol, &v,
                                      &prepared, err);
    if (!prepared)
        return tb_err_wrap(err, "%s", w->collateral);
    if (v.simulated != simulated)
        return simulated
                   ? tb_errf(err, "the %s did not verify against the simulated %s", w->evidence,
                             w->root)
                   : tb_errf(err, "a SIMULATED %s where a real one was expected", w->evidence);
    if (rc < 0)
        return tb_errf(err, "%s %s at step %s: %s", w->evidence, tb_attest_result_name(v.result),
                       tb_attest_evidence_step(&v), tb_attest_evidence_reason(&v));
    return 0;
}

static int fail(ver_ctx *c, tb_err *err, const char *msg)
{
    free(c);
    return tb_errf(err, "%s", msg);
}

/* The options of the evidence's family (the others refused) into c->src. */
static int snp_source(const tb_notary_verifier_opts *o, ver_ctx *c, tb_err *err)
{
    if (o->collateral || o->pccs)
        return fail(c, err,
                    "--collateral/--pccs are for TDX quotes (SEV-SNP evidence needs --certs DIR "
                    "or --kds URL)");
    if (o->simulated) {
        if (o->certs || o->kds || o->root)
            return fail(c, err,
                        "the evidence is SIMULATED: it verifies only against the simulated PKI "
                        "(drop --certs/--kds/--root)");
        uint8_t *ark = NULL;
        size_t n;
        if (tb_attest_sim_dir(o->sim_dir, c->sim_dir, sizeof c->sim_dir, err) < 0 ||
            tb_snp_sim_ark(c->sim_dir, &ark, &n, err) < 0) { /* made now, not at a check */
            free(c);
            return tb_err_wrap(err, "simulated SEV-SNP");
        }
        free(ark);
        return 0;
    }
    if (!o->certs == !o->kds)
        return fail(c, err, "verifying an SEV-SNP report needs --certs DIR or --kds URL");
    snprintf(c->source, sizeof c->source, "%s", o->certs ? o->certs : o->kds);
    *(o->certs ? &c->src.certs : &c->src.kds) = c->source;
    uint8_t *ark = NULL;
    size_t n;
    if (o->root && tb_snp_read_der(o->root, 0, &ark, &n, err) < 0) { /* named now */
        free(c);
        return tb_err_wrap(err, "--root");
    }
    free(ark);
    return 0;
}

static int tdx_source(const tb_notary_verifier_opts *o, ver_ctx *c, tb_err *err)
{
    if (o->certs || o->kds)
        return fail(c, err,
                    "--certs/--kds are for SEV-SNP evidence (a TDX quote needs --collateral or "
                    "--pccs)");
    if (o->simulated) {
        if (o->collateral || o->pccs)
            return fail(c, err,
                        "the evidence is SIMULATED: it verifies only against the simulated PKI "
                        "(drop --collateral/--pccs)");
        if (tb_attest_sim_dir(o->sim_dir, c->sim_dir, sizeof c->sim_dir, err) < 0) {
            free(c);
            return tb_err_wrap(err, "simulated TDX");
        }
        return 0;
    }
    if (!o->collateral && !o->pccs)
        return fail(c, err, "verifying a TDX quote needs --collateral FILE or --pccs URL");
    snprintf(c->source, sizeof c->source, "%s", o->collateral ? o->collateral : o->pccs);
    *(o->collateral ? &c->src.collateral : &c->src.pccs) = c->source;
    return 0;
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
    int snp = tb_tee_family_of(o->tee) == TB_TEE_FAMILY_SNP;
    c->kind = snp ? (o->simulated ? TB_TEE_SIM_SNP : TB_TEE_SNP)
                  : (o->simulated ? TB_TEE_SIM : TB_TEE_TDX);
    if ((snp ? snp_source(o, c, err) : tdx_source(o, c, err)) < 0)
        return -1;
    if (o->root) {
        snprintf(c->root, sizeof c->root, "%s", o->root);
        c->src.root = c->root;
    }
    if (c->sim_dir[0])
        c->src.sim_dir = c->sim_dir;
    out->ctx = c;
    out->verify = verify;
    return 0;
}

void tb_notary_verifier_close(tb_notary_quote_verifier *v)
{
    free(v->ctx);
    memset(v, 0, sizeof *v);
}
