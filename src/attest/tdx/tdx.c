/* attest/tdx/tdx: the one-call helpers: verify a quote against a collateral file, a PCCS URL or the
 * simulated PKI (`attest verify`, tlsn/tee); plus the quote's FMSPC, CA and chain subjects.
 * They only glue the layers: tb_tdx_verify_quote is attest/common/evidence's check
 * (tb_attest_evidence_check_traced) with its source told apart by its syntax, and its answer
 * put in TDX's words -- the fetch, the cache and the refetch of a cached collateral that fails
 * are evidence's, never here; the clock and the network never in verify.c. */
#include "attest/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest/common/evidence.h"
#include "base/hex.h"

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

/* The verdict's step and reason prefix for what preparing failed at (err: why). */
static void prep_failed(tb_attest_prep_fail what, const tb_err *err, tb_tdx_verdict *v)
{
    if (what == TB_ATTEST_PREP_PARSE)
        invalid(v, TB_TDX_STEP_PARSE, "", err->msg);
    else if (what == TB_ATTEST_PREP_KEY)
        invalid(v, TB_TDX_STEP_PCK_CHAIN, "", err->msg);
    else
        invalid(v, TB_TDX_STEP_NONE,
                what == TB_ATTEST_PREP_ROOT ? "root: " : "collateral: ", err->msg);
}

int tb_tdx_verify_quote(const uint8_t *quote, size_t len, const char *source, const char *root_path,
                        int64_t now, const tb_attest_policy *policy, const tb_tdx_fetch_opts *fetch,
                        tb_tdx_verdict *v, tb_tdx_timing *t, tb_err *err)
{
    tb_err local;
    tb_tdx_fetch_opts def = {0};
    if (!err)
        err = &local;
    tb_attest_collateral_source src = {.root = root_path, .fetch = fetch ? *fetch : def};
    tb_tee kind = TB_TEE_TDX;
    if (is_url(source)) {
        src.pccs = source;
    } else if (!strcmp(source, "sim") || !strncmp(source, "sim:", 4)) {
        kind = TB_TEE_SIM;
        src.sim_dir = source[3] ? source + 4 : NULL;
        src.fetch.no_cache = 0; /* the simulated PKI's collateral: always its cached one */
    } else {
        src.collateral = source;
    }
    tb_attest_evidence_verdict ev;
    tb_attest_check_trace tr;
    int rc = tb_attest_evidence_check_traced(kind, quote, len, &src, now, policy, &ev, &tr, err);
    memset(v, 0, sizeof *v);
    if (tr.failed)
        prep_failed(tr.failed, err, v);
    else
        *v = ev.tdx;
    if (rc < 0 && v->step != TB_TDX_STEP_NONE)
        tb_errf(err, "%s: %s", tb_tdx_step_name(v->step), v->reason);
    if (t)
        *t = (tb_tdx_timing){.fetch_ns = tr.fetch_ns,
                             .verify_ns = tr.verify_ns,
                             .from_cache = tr.from_cache,
                             .refetched = tr.refetched,
                             .refetch_failed = tr.refetch_failed,
                             .refetch_err = tr.refetch_err,
                             .not_kept = tr.not_kept,
                             .not_kept_err = tr.not_kept_err};
    return rc;
}
