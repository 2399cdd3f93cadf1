/* tlsn/tee: the session's TEE message over today's attestation API (see tee.h).
 * Invariant: a tb_tlsn_tee is open (src usable) exactly when t->open is 1. */
#include "tlsn/tee.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>

#include "attest/tdx/tdx.h"
#include "base/bytes.h"
#include "notary/tee.h"

#define DOMAIN "teebench-tlsn-tee/1"

void tb_tlsn_tee_report_data(const uint8_t session[TB_TLSN_SESSION_ID_LEN],
                             const uint8_t nonce[TB_TLSN_NONCE_LEN], const char *server_name,
                             const uint8_t *sent, size_t sent_len, const uint8_t *recv,
                             size_t recv_len, uint8_t out[64])
{
    uint8_t hs[32], hr[32], len4[4];
    unsigned n = 0;
    EVP_Digest(sent, sent_len, hs, &n, EVP_sha256(), NULL);
    EVP_Digest(recv, recv_len, hr, &n, EVP_sha256(), NULL);
    size_t sl = strlen(server_name);
    tb_wr_be32(len4, (uint32_t)sl);
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    if (!c || !EVP_DigestInit_ex(c, EVP_sha512(), NULL) ||
        !EVP_DigestUpdate(c, DOMAIN, sizeof DOMAIN) || /* with its NUL: the 0x00 */
        !EVP_DigestUpdate(c, session, TB_TLSN_SESSION_ID_LEN) ||
        !EVP_DigestUpdate(c, nonce, TB_TLSN_NONCE_LEN) || !EVP_DigestUpdate(c, len4, 4) ||
        !EVP_DigestUpdate(c, server_name, sl) || !EVP_DigestUpdate(c, hs, 32) ||
        !EVP_DigestUpdate(c, hr, 32) || !EVP_DigestFinal_ex(c, out, &n))
        memset(out, 0, 64); /* out of memory: binds nothing, so nothing verifies */
    EVP_MD_CTX_free(c);
}

int tb_tlsn_tee_open(tb_tee kind, const char *sim_dir, tb_tlsn_tee *t, tb_err *err)
{
    memset(t, 0, sizeof *t);
    if (tb_tee_family_of(kind) != TB_TEE_FAMILY_TDX)
        return tb_errf(err, "the TEE message is a TDX quote: --tee tdx or sim, not %s",
                       tb_tee_name(kind));
    t->kind = kind;
    if (sim_dir && sim_dir[0])
        snprintf(t->sim_dir, sizeof t->sim_dir, "%s", sim_dir);
    if (tb_notary_tee_open(kind, t->sim_dir[0] ? t->sim_dir : NULL, &t->src, err) < 0)
        return -1;
    t->open = 1;
    return 0;
}

void tb_tlsn_tee_close(tb_tlsn_tee *t)
{
    if (t->open)
        tb_notary_tee_close(&t->src);
    t->open = 0;
}

int tb_tlsn_tee_quote(tb_tlsn_tee *t, const uint8_t report_data[64], uint8_t **quote, size_t *len,
                      tb_err *err)
{
    if (!t->open)
        return tb_errf(err, "no TEE is open");
    return t->src.get_quote(t->src.ctx, report_data, quote, len, err);
}

int tb_tlsn_tee_verify(const tb_tlsn_tee *t, const uint8_t *quote, size_t len,
                       const uint8_t report_data[64], tb_err *err)
{
    char source[4200];
    if (tb_tee_simulated(t->kind)) {
        char dir[4096];
        if (tb_attest_sim_dir(t->sim_dir[0] ? t->sim_dir : NULL, dir, sizeof dir, err) < 0)
            return tb_err_wrap(err, "simulated TEE");
        snprintf(source, sizeof source, "sim:%s", dir);
    } else if (t->collateral[0]) {
        snprintf(source, sizeof source, "%s", t->collateral);
    } else if (t->pccs[0]) {
        snprintf(source, sizeof source, "%s", t->pccs);
    } else {
        return tb_errf(err, "verifying a TDX quote needs --collateral FILE or --pccs URL");
    }
    tb_attest_policy pol;
    tb_attest_policy_default(&pol);
    memcpy(pol.report_data, report_data, 64);
    pol.report_data_len = 64;
    tb_tdx_verdict v;
    tb_tdx_fetch_opts fetch = {0};
    int rc = tb_tdx_verify_quote(quote, len, source, NULL, (int64_t)time(NULL), &pol, &fetch, &v,
                                 NULL, err);
    if ((rc == 0 || v.step != TB_TDX_STEP_NONE) && v.simulated != tb_tee_simulated(t->kind))
        return tb_errf(err, tb_tee_simulated(t->kind)
                                ? "the quote did not verify against the simulated root"
                                : "a SIMULATED quote where a real one was expected");
    if (rc < 0 && v.result == TB_ATTEST_REFUSED && !strncmp(v.reason, "REPORTDATA", 10))
        return tb_errf(err, "the quote's REPORTDATA does not bind this session (a quote for "
                            "another session, nonce or transcript)");
    return rc;
}
