/* attest/attest: the one-call helpers other modules use (the notary): get a quote
 * from a provider, and verify a quote against a collateral file, a PCCS URL or the
 * simulated PKI. They only glue the layers: the clock and the network stay here
 * and in pccs/cache, never in verify.c. */
#include "attest/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/hex.h"

int tb_attest_get_quote(tb_attest_provider kind, const uint8_t rd[64],
                        const tb_attest_quote_opts *opts, uint8_t **quote, size_t *len, tb_err *err)
{
    tb_attest_quote_opts def = {0};
    if (!opts)
        opts = &def;
    if (kind == TB_ATTEST_PROVIDER_TSM)
        return tb_attest_tsm_get_quote(opts->tsm_root, rd, quote, len, err);
    char dir[4096];
    if (tb_attest_sim_dir(opts->sim_dir, dir, sizeof dir, err) < 0)
        return -1;
    return tb_attest_sim_get_quote(dir, rd, opts->sim_debug, quote, len, err);
}

int tb_attest_quote_fmspc_ca(const tb_attest_quote *q, char fmspc[13], const char **ca, tb_err *err)
{
    STACK_OF(X509) *chain = NULL;
    if (tb_attest_x509_chain_from_pem(q->pck_chain, q->pck_chain_len, &chain, err) < 0)
        return tb_err_wrap(err, "quote's PCK chain");
    unsigned char *der = NULL;
    int n = i2d_X509(sk_X509_value(chain, 0), &der);
    tb_attest_pck_info pck;
    int rc = n > 0 ? tb_attest_pck_info_from_der(der, (size_t)n, &pck, err)
                   : tb_errf(err, "PCK certificate: cannot encode");
    OPENSSL_free(der);
    if (rc == 0 && sk_X509_num(chain) > 1) {
        char cn[256] = "";
        X509_NAME_get_text_by_NID(X509_get_subject_name(sk_X509_value(chain, 1)), NID_commonName,
                                  cn, sizeof cn);
        pck.ca_platform = strstr(cn, "Platform") != NULL;
    }
    sk_X509_pop_free(chain, X509_free);
    if (rc < 0)
        return -1;
    tb_hex_encode(pck.fmspc, 6, fmspc);
    *ca = pck.ca_platform ? "platform" : "processor";
    return 0;
}

int tb_attest_quote_pck_subjects(const tb_attest_quote *q, char subjects[][256], int max,
                                 tb_err *err)
{
    STACK_OF(X509) *chain = NULL;
    if (tb_attest_x509_chain_from_pem(q->pck_chain, q->pck_chain_len, &chain, err) < 0)
        return -1;
    int n = sk_X509_num(chain) < max ? sk_X509_num(chain) : max;
    for (int i = 0; i < n; i++)
        X509_NAME_oneline(X509_get_subject_name(sk_X509_value(chain, i)), subjects[i], 256);
    sk_X509_pop_free(chain, X509_free);
    return n;
}

static int is_url(const char *s)
{
    return !strncmp(s, "http://", 7) || !strncmp(s, "https://", 8);
}

/* Loads collateral from the source; *simroot gets the sim root for "sim" sources. */
static int load_source(const uint8_t *quote, size_t len, const char *source, int64_t now,
                       const tb_attest_fetch_opts *fetch, tb_attest_collateral *c,
                       tb_attest_root **simroot, int *from_cache, tb_err *err)
{
    *simroot = NULL;
    *from_cache = 0;
    if (!strcmp(source, "sim") || !strncmp(source, "sim:", 4)) {
        char dir[4096];
        if (tb_attest_sim_dir(source[3] ? source + 4 : NULL, dir, sizeof dir, err) < 0)
            return -1;
        return tb_attest_sim_collateral(dir, now, 0, c, simroot, err);
    }
    if (!is_url(source))
        return tb_attest_collateral_load(source, c, err);
    tb_attest_quote *q = NULL;
    if (tb_attest_quote_parse(quote, len, &q, err) < 0)
        return tb_err_wrap(err, "quote");
    char fmspc[13];
    const char *ca;
    int rc = tb_attest_quote_fmspc_ca(q, fmspc, &ca, err);
    tb_attest_quote_free(q);
    if (rc < 0)
        return -1;
    return tb_attest_collateral_fetch_cached(source, fmspc, ca, now, fetch, c, from_cache, err);
}

int tb_attest_verify_quote(const uint8_t *quote, size_t len, const char *source,
                           const char *root_path, int64_t now, const tb_attest_policy *policy,
                           const tb_attest_fetch_opts *fetch, tb_attest_verdict *v,
                           tb_attest_timing *t, tb_err *err)
{
    tb_attest_timing tt = {0};
    memset(v, 0, sizeof *v);
    v->result = TB_ATTEST_INVALID;
    tb_attest_collateral c = {0};
    tb_attest_root *simroot = NULL, *root = NULL;
    uint64_t t0 = tb_mono_ns();
    if (load_source(quote, len, source, now, fetch, &c, &simroot, &tt.from_cache, err) < 0) {
        if (snprintf(v->reason, sizeof v->reason, "collateral: %s", err ? err->msg : "") >=
            (int)sizeof v->reason)
            v->reason[sizeof v->reason - 1] = 0; /* a reason is cut, not a path */
        if (t)
            *t = tt;
        return -1;
    }
    tt.fetch_ns = tb_mono_ns() - t0;
    int rc;
    if (root_path)
        rc = tb_attest_root_load(root_path, &root, err);
    else if (simroot)
        rc = (root = simroot, simroot = NULL, 0);
    else
        rc = tb_attest_root_intel(&root, err);
    if (rc < 0) {
        if (snprintf(v->reason, sizeof v->reason, "root: %s", err ? err->msg : "") >=
            (int)sizeof v->reason)
            v->reason[sizeof v->reason - 1] = 0;
    } else {
        uint64_t t1 = tb_mono_ns();
        rc = tb_attest_verify(quote, len, &c, now, policy, root, v);
        tt.verify_ns = tb_mono_ns() - t1;
        if (rc < 0)
            tb_errf(err, "%s: %s", tb_attest_step_name(v->step), v->reason);
    }
    tb_attest_root_free(root);
    tb_attest_root_free(simroot);
    tb_attest_collateral_clear(&c);
    if (t)
        *t = tt;
    return rc;
}
