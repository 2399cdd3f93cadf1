/* notary/tee: the quote source and the quote verifier over src/attest (see
 * tee.h). The simulated provider is opened once (its PKI read at start) and
 * used from every worker thread; configfs-tsm reports are serialized with a
 * mutex (a report entry is not safe for concurrent use). Verification is one
 * call to tb_attest_verify_quote: the collateral source, cache and checks are
 * the attest module's, not repeated here. */
#include "notary/tee.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "attest/attest.h"
#include "notary/internal.h"

typedef struct src_ctx {
    tb_attest_sim *sim; /* sim: the provider opened once (thread-safe) */
    pthread_mutex_t mu; /* tdx: one configfs-tsm report at a time */
} src_ctx;

static int get_sim_quote(void *ctx, const uint8_t rd[64], uint8_t **quote, size_t *len, tb_err *err)
{
    src_ctx *c = ctx;
    return tb_attest_sim_quote(c->sim, rd, 0, quote, len, err);
}

static int get_tsm_quote(void *ctx, const uint8_t rd[64], uint8_t **quote, size_t *len, tb_err *err)
{
    src_ctx *c = ctx;
    pthread_mutex_lock(&c->mu);
    int rc = tb_attest_tsm_get_quote(NULL, rd, quote, len, err);
    pthread_mutex_unlock(&c->mu);
    return rc;
}

int tb_notary_tee_open(const char *kind, const char *sim_dir, tb_notary_quote_source *out,
                       tb_err *err)
{
    memset(out, 0, sizeof *out);
    src_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return tb_errf(err, "out of memory");
    if (!strcmp(kind, "sim")) {
        char dir[4096];
        if (tb_attest_sim_dir(sim_dir, dir, sizeof dir, err) < 0 ||
            tb_attest_sim_open(dir, &c->sim, err) < 0) {
            free(c);
            return tb_err_wrap(err, "simulated TEE");
        }
        out->kind = "sim";
        out->simulated = 1;
        out->get_quote = get_sim_quote;
    } else if (!strcmp(kind, "tdx")) {
        out->kind = "tdx";
        out->get_quote = get_tsm_quote;
    } else {
        free(c);
        return tb_errf(err, "unknown TEE '%s' (want tdx or sim)", kind);
    }
    pthread_mutex_init(&c->mu, NULL);
    out->ctx = c;
    return 0;
}

void tb_notary_tee_close(tb_notary_quote_source *src)
{
    src_ctx *c = src->ctx;
    if (c) {
        tb_attest_sim_close(c->sim);
        pthread_mutex_destroy(&c->mu);
        free(c);
    }
    memset(src, 0, sizeof *src);
}

/* ----------------------------------------------------------------- verifier */

typedef struct ver_ctx {
    char source[4200]; /* collateral file or folder, PCCS URL, or "sim:DIR" */
    const char *root;
    tb_attest_policy policy;
    int simulated;
} ver_ctx;

/* One call to the attest module's entry point, which parses the quote once:
 * the binding is checked by the policy (REPORTDATA must equal report_data). */
static int verify(void *ctx, const uint8_t *quote, size_t len, const uint8_t report_data[64],
                  tb_err *err)
{
    ver_ctx *c = ctx;
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
    free(v->ctx);
    memset(v, 0, sizeof *v);
}
