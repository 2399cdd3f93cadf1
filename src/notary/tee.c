/* notary/tee: tb_quote_source and tb_quote_verifier over src/attest (see
 * tee.h). The simulated provider is opened once (its PKI read at start) and
 * used from every worker thread; configfs-tsm reports are serialized with a
 * mutex (a report entry is not safe for concurrent use). */
#include "notary/tee.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "attest/attest.h"
#include "base/buf.h"
#include "base/file.h"

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

int tb_notary_tee_open(const char *kind, const char *sim_dir, tb_quote_source *out, tb_err *err)
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

void tb_notary_tee_close(tb_quote_source *src)
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
    char source[4200];
    char sim_dir[4096]; /* simulated: the sim PKI */
    char cache[4200];   /* simulated: <sim_dir>/notary-collateral */
    const char *root;
    tb_attest_policy policy;
    int simulated;
} ver_ctx;

static int report_data(const uint8_t *quote, size_t len, uint8_t rd[64], tb_err *err)
{
    tb_attest_quote *q = NULL;
    if (tb_attest_quote_parse(quote, len, &q, err) < 0)
        return tb_err_wrap(err, "quote");
    memcpy(rd, tb_attest_quote_report_data(q), 64);
    tb_attest_quote_free(q);
    return 0;
}

/* Generates the simulated collateral and stores it, with a copy of the sim
 * root, in the notary's cache for the next runs. */
static int sim_refresh(ver_ctx *c, const char *fmspc, const char *ca, int64_t now,
                       tb_attest_collateral *col, tb_attest_root **root, tb_err *err)
{
    if (tb_attest_sim_collateral(c->sim_dir, now, 0, col, root, err) < 0)
        return tb_err_wrap(err, "simulated collateral");
    char src[4200], dst[4300];
    tb_buf pem = {0};
    tb_err ignored; /* a cache that cannot be written only costs time */
    snprintf(dst, sizeof dst, "%s/sim-root.pem", c->cache);
    if (tb_attest_cache_put(c->cache, "sim", fmspc, ca, col, &ignored) == 0 &&
        tb_attest_sim_root_path(c->sim_dir, src, sizeof src, &ignored) == 0 &&
        tb_file_read(src, 1 << 20, &pem, &ignored) == 0)
        tb_file_write_atomic(dst, pem.p, pem.len, &ignored);
    tb_buf_free(&pem);
    return 0;
}

/* Verifies a SIMULATED quote with cached simulated collateral when the cache
 * has a valid entry, else (or when the cached entry no longer matches the sim
 * PKI) with freshly generated collateral. */
static int verify_sim(ver_ctx *c, const uint8_t *quote, size_t len, tb_attest_verdict *v,
                      tb_err *err)
{
    int64_t now = (int64_t)time(NULL);
    tb_attest_quote *q = NULL;
    char fmspc[13];
    const char *ca;
    if (tb_attest_quote_parse(quote, len, &q, err) < 0)
        return tb_err_wrap(err, "quote");
    int rc = tb_attest_quote_fmspc_ca(q, fmspc, &ca, err);
    tb_attest_quote_free(q);
    if (rc < 0)
        return tb_err_wrap(err, "quote");
    tb_attest_collateral col;
    tb_attest_root *root = NULL;
    tb_err ignored;
    char rootpath[4300];
    snprintf(rootpath, sizeof rootpath, "%s/sim-root.pem", c->cache);
    rc = -1;
    if (tb_attest_cache_get(c->cache, "sim", fmspc, ca, now, &col, &ignored) == 1) {
        if (tb_attest_root_load(c->root ? c->root : rootpath, &root, &ignored) == 0)
            rc = tb_attest_verify(quote, len, &col, now, &c->policy, root, v);
        tb_attest_root_free(root);
        root = NULL;
        tb_attest_collateral_clear(&col);
        if (rc == 0)
            return 0;
    }
    if (sim_refresh(c, fmspc, ca, now, &col, &root, err) < 0)
        return -1;
    tb_attest_root *use = root;
    tb_attest_root *given = NULL;
    if (c->root && tb_attest_root_load(c->root, &given, err) < 0) {
        tb_attest_root_free(root);
        tb_attest_collateral_clear(&col);
        return tb_err_wrap(err, "--root");
    }
    if (given)
        use = given;
    rc = tb_attest_verify(quote, len, &col, now, &c->policy, use, v);
    if (rc < 0)
        tb_errf(err, "%s: %s", tb_attest_step_name(v->step), v->reason);
    tb_attest_root_free(given);
    tb_attest_root_free(root);
    tb_attest_collateral_clear(&col);
    return rc;
}

static int verify(void *ctx, const uint8_t *quote, size_t len, uint8_t rd[64], tb_err *err)
{
    ver_ctx *c = ctx;
    tb_attest_verdict v;
    memset(&v, 0, sizeof v);
    if (c->simulated) {
        if (verify_sim(c, quote, len, &v, err) < 0)
            return -1;
    } else {
        tb_attest_timing t;
        tb_attest_fetch_opts fetch = {0};
        if (tb_attest_verify_quote(quote, len, c->source, c->root, (int64_t)time(NULL), &c->policy,
                                   &fetch, &v, &t, err) < 0)
            return -1;
    }
    if (v.simulated != c->simulated)
        return tb_errf(err, c->simulated ? "the quote did not verify against the simulated root"
                                         : "a SIMULATED quote where a real one was expected");
    return report_data(quote, len, rd, err);
}

int tb_notary_verifier_open(const tb_verifier_opts *o, tb_quote_verifier *out, tb_err *err)
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
        if (o->collateral || o->pccs) {
            free(c);
            return tb_errf(err, "the evidence is SIMULATED: it verifies only against the "
                                "simulated PKI (drop --collateral/--pccs)");
        }
        if (tb_attest_sim_dir(o->sim_dir, c->sim_dir, sizeof c->sim_dir, err) < 0) {
            free(c);
            return tb_err_wrap(err, "simulated TEE");
        }
        snprintf(c->cache, sizeof c->cache, "%s/notary-collateral", c->sim_dir);
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

void tb_notary_verifier_close(tb_quote_verifier *v)
{
    free(v->ctx);
    memset(v, 0, sizeof *v);
}
