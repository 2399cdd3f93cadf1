/* attest/tdx/pccs: collateral from an Intel PCS or a PCCS, with libcurl (v4 API).
 *
 *   GET <base>/sgx/certification/v4/pckcrl?ca=<processor|platform>&encoding=der
 *       body: the PCK CRL (DER; PEM or hex accepted), header SGX-PCK-CRL-Issuer-Chain
 *   GET <base>/tdx/certification/v4/tcb?fmspc=<FMSPC>
 *       body: {"tcbInfo": {...}, "signature": hex}, header TCB-Info-Issuer-Chain
 *   GET <base>/tdx/certification/v4/qe/identity
 *       body: {"enclaveIdentity": {...}, "signature": hex},
 *       header SGX-Enclave-Identity-Issuer-Chain
 *   GET <base>/sgx/certification/v4/rootcacrl
 *       body: the root CA CRL (DER, PEM or hex). Intel's PCS itself has no such path:
 *       for https://api.trustedservices.intel.com the CRL comes from its distribution
 *       point, https://certificates.trustedservices.intel.com/IntelSGXRootCA.der
 * Issuer chains arrive URL-encoded (PEM). Any status other than 200, a missing
 * header, a timeout or a malformed body is an error naming the URL. */
#include "attest/internal.h"
#include "attest/common/http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "base/buf.h"
#include "base/curl.h"
#include "base/hex.h"

#define PCCS_MAX_BODY (16u << 20)

/* GET url with want captured; a status other than 200, or a missing header, is an
   error. r->max_body is PCCS_MAX_BODY. */
static int get(CURL *c, const char *url, const char *want, long timeout_ms, tb_attest_http *r,
               tb_err *err)
{
    r->max_body = PCCS_MAX_BODY;
    r->want = want;
    long status;
    if (tb_attest_http_get(c, url, timeout_ms, r, &status, err) < 0)
        return -1;
    if (status != 200)
        return tb_errf(err, "GET %s: HTTP status %ld%s", url, status,
                       status == 404 ? " (not found: unknown FMSPC or CA?)" : "");
    if (want && !r->header)
        return tb_errf(err, "GET %s: response lacks the %s header", url, want);
    return 0;
}

static char *unescape(CURL *c, const char *s)
{
    int n = 0;
    char *u = curl_easy_unescape(c, s, 0, &n);
    if (!u)
        return NULL;
    char *d = malloc((size_t)n + 1);
    if (d) {
        memcpy(d, u, (size_t)n);
        d[n] = '\0';
    }
    curl_free(u);
    return d;
}

static int unesc_to(CURL *c, const char *s, char **out, tb_err *err)
{
    *out = unescape(c, s);
    return *out ? 0 : tb_errf(err, "cannot decode the issuer chain header");
}

static int valid_fmspc(const char *f)
{
    uint8_t b[6];
    return f && strlen(f) == 12 && tb_hex_decode(f, 12, b, 6) == 0;
}

int tb_tdx_pccs_fetch(const char *base_url, const char *fmspc, const char *ca, long timeout_ms,
                      tb_tdx_collateral *out, tb_err *err)
{
    memset(out, 0, sizeof *out);
    if (!valid_fmspc(fmspc))
        return tb_errf(err, "bad FMSPC \"%s\" (want 12 hex digits)", fmspc ? fmspc : "");
    if (strcmp(ca, "processor") && strcmp(ca, "platform"))
        return tb_errf(err, "bad PCK CA \"%s\" (want processor or platform)", ca);
    if (timeout_ms <= 0)
        timeout_ms = 10000;
    char base[2048];
    size_t bl = (size_t)snprintf(base, sizeof base, "%s", base_url);
    if (bl >= sizeof base)
        return tb_errf(err, "PCCS URL too long");
    while (bl && base[bl - 1] == '/')
        base[--bl] = '\0';
    CURL *c = curl_easy_init();
    if (!c)
        return tb_curl_load(err) < 0 ? -1 : tb_errf(err, "libcurl initialization failed");
    char url[2300];
    tb_attest_http r = {0};
    int rc = -1;

    snprintf(url, sizeof url, "%s/sgx/certification/v4/pckcrl?ca=%s&encoding=der", base, ca);
    if (get(c, url, "SGX-PCK-CRL-Issuer-Chain", timeout_ms, &r, err) < 0)
        goto out;
    if (tb_attest_crl_to_der(r.body.p, r.body.len, &out->pck_crl, &out->pck_crl_len, err) < 0 ||
        unesc_to(c, r.header, &out->pck_crl_issuer_chain, err) < 0)
        goto bad;
    tb_attest_http_clear(&r);

    snprintf(url, sizeof url, "%s/tdx/certification/v4/tcb?fmspc=%s", base, fmspc);
    if (get(c, url, "TCB-Info-Issuer-Chain", timeout_ms, &r, err) < 0)
        goto out;
    if (unesc_to(c, r.header, &out->tcb_info_issuer_chain, err) < 0)
        goto bad;
    tb_buf tcb = r.body;
    r.body = (tb_buf){0};
    tb_attest_http_clear(&r);

    snprintf(url, sizeof url, "%s/tdx/certification/v4/qe/identity", base);
    if (get(c, url, "SGX-Enclave-Identity-Issuer-Chain", timeout_ms, &r, err) < 0) {
        tb_buf_clear(&tcb);
        goto out;
    }
    if (unesc_to(c, r.header, &out->qe_identity_issuer_chain, err) < 0) {
        tb_buf_clear(&tcb);
        goto bad;
    }
    int prc = tb_tdx_collateral_from_pcs((const char *)tcb.p, tcb.len, (const char *)r.body.p,
                                         r.body.len, out, err);
    tb_buf_clear(&tcb);
    if (prc < 0)
        goto bad;
    tb_attest_http_clear(&r);

    if (strstr(base, "://api.trustedservices.intel.com"))
        snprintf(url, sizeof url,
                 "https://certificates.trustedservices.intel.com/IntelSGXRootCA.der");
    else
        snprintf(url, sizeof url, "%s/sgx/certification/v4/rootcacrl", base);
    if (get(c, url, NULL, timeout_ms, &r, err) < 0)
        goto out;
    size_t n = r.body.len;
    while (n && (r.body.p[n - 1] == '\n' || r.body.p[n - 1] == '\r'))
        n--;
    if (tb_attest_crl_to_der(r.body.p, n, &out->root_ca_crl, &out->root_ca_crl_len, err) < 0)
        goto bad;
    rc = 0;
    goto out;
bad:
    tb_err_wrap(err, "GET %s: bad response", url);
out:
    tb_attest_http_clear(&r);
    curl_easy_cleanup(c);
    if (rc < 0)
        tb_tdx_collateral_clear(out);
    return rc;
}
