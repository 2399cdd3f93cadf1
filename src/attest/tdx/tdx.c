/* attest/tdx/tdx: the one-call helpers: get a quote from a provider (attest/common/evidence's,
 * opened for one quote), and verify a quote against a collateral file, a PCCS URL or the
 * simulated PKI (`attest verify`); plus the quote's FMSPC, CA and chain subjects. They only glue
 * the layers: the clock and the network stay here and in pccs/cache, never in verify.c. Invariant
 * (the cache): collateral from a PCCS is put into the cache only after it verified the quote, under
 * that PCCS's URL; a cache hit that gives INVALID is fetched again once, so a bad entry costs one
 * fetch and is never served as valid. */
#include "attest/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest/common/evidence.h"
#include "base/clock.h"
#include "base/hex.h"

int tb_tdx_get_quote(tb_tee kind, const uint8_t rd[64], const tb_tdx_quote_opts *opts,
                     uint8_t **quote, size_t *len, tb_err *err)
{
    tb_tdx_quote_opts def = {0};
    if (!opts)
        opts = &def;
    tb_attest_evidence *ev;
    if (tb_attest_evidence_open(kind, opts->sim_dir, opts->tsm_root, &ev, err) < 0)
        return -1;
    int rc = tb_attest_evidence_get_debug(ev, rd, opts->sim_debug, quote, len, err);
    tb_attest_evidence_close(ev);
    return rc;
}

int tb_tdx_quote_fmspc_ca(const tb_tdx_quote *q, char fmspc[13], const char **ca, tb_err *err)
{
    tb_attest_der_list l;
    if (tb_attest_pem_certs_to_der(q->pck_chain, q->pck_chain_len, &l, err) < 0)
        return tb_err_wrap(err, "quote's PCK chain");
    tb_tdx_pck_info pck;
    int rc = tb_tdx_pck_info_from_der(l.der[0], l.len[0], &pck, err);
    tb_attest_der_list_clear(&l);
    if (rc < 0)
        return -1;
    tb_hex_encode(pck.fmspc, 6, fmspc);
    *ca = pck.ca_platform ? "platform" : "processor";
    return 0;
}

int tb_tdx_quote_pck_subjects(const tb_tdx_quote *q, char subjects[][256], int max, tb_err *err)
{
    tb_attest_der_list l;
    if (tb_attest_pem_certs_to_der(q->pck_chain, q->pck_chain_len, &l, err) < 0)
        return -1;
    int n = l.n < max ? l.n : max;
    for (int i = 0; i < n; i++) {
        const unsigned char *p = l.der[i];
        X509 *x = d2i_X509(NULL, &p, (long)l.len[i]);
        if (x)
            X509_NAME_oneline(X509_get_subject_name(x), subjects[i], 256);
        else
            snprintf(subjects[i], 256, "(certificate %d: not DER X.509)", i + 1);
        X509_free(x);
    }
    ERR_clear_error();
    tb_attest_der_list_clear(&l);
    return n;
}

static int is_url(const char *s)
{
    return !strncmp(s, "http://", 7) || !strncmp(s, "https://", 8);
}

/* Sets an INVALID verdict at step (NONE: nothing was verified) with a reason. */
static int invalid(tb_tdx_verdict *v, tb_tdx_step step, const char *what, const char *why)
{
    v->result = TB_ATTEST_INVALID;
    v->step = step;
    if (snprintf(v->reason, sizeof v->reason, "%s%s", what, why) >= (int)sizeof v->reason)
        v->reason[sizeof v->reason - 1] = 0; /* a reason is cut, not a path */
    return -1;
}

/* The root: root_path, else the sim root (taken over from *simroot), else Intel's. */
static int load_root(const char *root_path, tb_attest_root **simroot, tb_attest_root **root,
                     tb_err *err)
{
    if (root_path)
        return tb_attest_root_load(root_path, root, err);
    if (*simroot) {
        *root = *simroot;
        *simroot = NULL;
        return 0;
    }
    return tb_attest_root_intel(root, err);
}

static int timed_verify(const uint8_t *quote, size_t len, const tb_tdx_collateral *c, int64_t now,
                        const tb_attest_policy *policy, const tb_attest_root *root,
                        tb_tdx_verdict *v, tb_tdx_timing *t)
{
    uint64_t t0 = tb_mono_ns();
    int rc = tb_tdx_verify(quote, len, c, now, policy, root, v);
    t->verify_ns += tb_mono_ns() - t0;
    return rc;
}

/* A PCCS source, through the cache: a hit is verified like a fetch; a hit that gives an
 * INVALID or EXPIRED verdict is fetched again once (it may be stale, or was written by something
 * else); fetched collateral is cached only after it verified the quote. */
static int verify_pccs(const uint8_t *quote, size_t len, const char *url,
                       const tb_attest_root *root, int64_t now, const tb_attest_policy *policy,
                       const tb_tdx_fetch_opts *fetch, tb_tdx_verdict *v, tb_tdx_timing *t,
                       tb_err *err)
{
    tb_tdx_quote *q = NULL;
    if (tb_tdx_quote_parse(quote, len, &q, err) < 0)
        return invalid(v, TB_TDX_STEP_PARSE, "", err->msg);
    char fmspc[13], dir[4096];
    const char *ca;
    int rc = tb_tdx_quote_fmspc_ca(q, fmspc, &ca, err);
    tb_tdx_quote_free(q);
    if (rc < 0)
        return invalid(v, TB_TDX_STEP_PCK_CHAIN, "", err->msg);
    tb_err ignored; /* a cache that cannot be read or written only costs time */
    int have_dir = tb_attest_cache_dir(fetch->cache_dir, dir, sizeof dir, &ignored) == 0;
    tb_tdx_collateral c;
    uint64_t t0 = tb_mono_ns();
    int hit = have_dir && !fetch->no_cache &&
              tb_attest_cache_get(dir, url, fmspc, ca, now, &c, &ignored) == 1;
    t->fetch_ns += tb_mono_ns() - t0;
    if (hit) {
        t->from_cache = 1;
        rc = timed_verify(quote, len, &c, now, policy, root, v, t);
        tb_tdx_collateral_clear(&c);
        if (v->result == TB_ATTEST_ACCEPTED || v->result == TB_ATTEST_REFUSED)
            return rc; /* INVALID or EXPIRED: stale or poisoned, fetch again */
    }
    t0 = tb_mono_ns();
    rc = tb_tdx_pccs_fetch(url, fmspc, ca, fetch->timeout_ms, &c, err);
    t->fetch_ns += tb_mono_ns() - t0;
    if (rc < 0) {
        if (!hit)
            return invalid(v, TB_TDX_STEP_NONE, "collateral: ", err->msg);
        size_t k = strlen(v->reason); /* the cached verdict stands; say why */
        snprintf(v->reason + k, sizeof v->reason - k,
                 " (with cached collateral; fetching it again failed: %s)", err->msg);
        return -1;
    }
    t->from_cache = 0;
    t->refetched = hit;
    rc = timed_verify(quote, len, &c, now, policy, root, v, t);
    if ((v->result == TB_ATTEST_ACCEPTED || v->result == TB_ATTEST_REFUSED) && have_dir)
        tb_attest_cache_put(dir, url, fmspc, ca, &c, &ignored);
    tb_tdx_collateral_clear(&c);
    return rc;
}

int tb_tdx_verify_quote(const uint8_t *quote, size_t len, const char *source, const char *root_path,
                        int64_t now, const tb_attest_policy *policy, const tb_tdx_fetch_opts *fetch,
                        tb_tdx_verdict *v, tb_tdx_timing *t, tb_err *err)
{
    tb_err local;
    tb_tdx_fetch_opts def = {0};
    if (!err)
        err = &local;
    if (!fetch)
        fetch = &def;
    tb_tdx_timing tt = {0};
    memset(v, 0, sizeof *v);
    v->result = TB_ATTEST_INVALID;
    tb_tdx_collateral c = {0};
    tb_attest_root *simroot = NULL, *root = NULL;
    int rc;
    if (is_url(source)) {
        rc = load_root(root_path, &simroot, &root, err);
        if (rc < 0)
            invalid(v, TB_TDX_STEP_NONE, "root: ", err->msg);
        else
            rc = verify_pccs(quote, len, source, root, now, policy, fetch, v, &tt, err);
    } else {
        uint64_t t0 = tb_mono_ns();
        if (!strcmp(source, "sim") || !strncmp(source, "sim:", 4)) {
            char dir[4096];
            rc = tb_attest_sim_dir(source[3] ? source + 4 : NULL, dir, sizeof dir, err);
            if (rc == 0)
                rc = tb_tdx_sim_collateral_cached(dir, now, &c, &simroot, err);
        } else {
            rc = tb_tdx_collateral_load(source, &c, err);
        }
        tt.fetch_ns = tb_mono_ns() - t0;
        if (rc < 0)
            invalid(v, TB_TDX_STEP_NONE, "collateral: ", err->msg);
        else if ((rc = load_root(root_path, &simroot, &root, err)) < 0)
            invalid(v, TB_TDX_STEP_NONE, "root: ", err->msg);
        else
            rc = timed_verify(quote, len, &c, now, policy, root, v, &tt);
    }
    if (rc < 0 && v->step != TB_TDX_STEP_NONE)
        tb_errf(err, "%s: %s", tb_tdx_step_name(v->step), v->reason);
    tb_attest_root_free(root);
    tb_attest_root_free(simroot);
    tb_tdx_collateral_clear(&c);
    if (t)
        *t = tt;
    return rc;
}
