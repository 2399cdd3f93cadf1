/* attest/snp/kds: SEV-SNP certificates from AMD's Key Distribution Service (or a look-alike)
 * with libcurl, through an on-disk cache.
 *
 *   GET <base>/vcek/v1/<Product>/<hwid>?blSPL=B&teeSPL=T&snpSPL=S&ucodeSPL=U[&fmcSPL=F]
 *       the VCEK (DER); hwid is CHIP_ID in hex (Turin: its first 8 bytes, and fmcSPL)
 *   GET <base>/vcek/v1/<Product>/cert_chain     the ASK then the ARK (PEM)
 *   GET <base>/vcek/v1/<Product>/crl            the product's CRL (DER)
 * The KDS rate-limits per address: HTTP 429 is retried after its Retry-After seconds
 * (else 0.5 s, doubled per retry), each wait capped, a bounded number of times; any
 * other status than 200 is an error naming the URL.
 * Cache: <cache dir>/snp/<first 16 hex digits of SHA-256 of the base URL>/ with
 * <Product>-vcek-<hwid>-<bl>-<tee>-<snp>-<ucode>[-<fmc>].der, <Product>-cert_chain.pem and
 * <Product>-crl.der. A piece is used while it parses and is valid at now (the CRL: before
 * its nextUpdate); otherwise it is fetched. Invariant: nothing enters the cache before it
 * verified a report (tb_snp_kds_cache_put is called by the verifier's caller after
 * an ACCEPTED or REFUSED verdict), and writes are atomic. */
#include "attest/common/http.h"
#include "attest/internal.h"
#include "attest/snp/snp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <openssl/pem.h>
#include <openssl/sha.h>

#include "base/buf.h"
#include "base/file.h"
#include "base/curl.h"
#include "base/hex.h"

#define KDS_MAX_BODY (1u << 20)

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0)
        ;
}

/* Retry-After's value in whole seconds, -1 when absent or not a number of seconds. */
static long retry_after_s(const char *v)
{
    if (!v)
        return -1;
    char *end;
    long s = strtol(v, &end, 10);
    return end != v && s >= 0 ? s : -1;
}

static int get(CURL *c, const char *url, const tb_snp_kds_opts *o, tb_attest_http *r, int *requests,
               tb_err *err)
{
    int retries = o->max_retries > 0 ? o->max_retries : 3;
    long cap = o->max_retry_wait_ms > 0 ? o->max_retry_wait_ms : 10000;
    long timeout = o->timeout_ms > 0 ? o->timeout_ms : 10000;
    r->max_body = KDS_MAX_BODY;
    r->want = "Retry-After";
    for (int attempt = 0;; attempt++) {
        long status;
        (*requests)++;
        if (tb_attest_http_get(c, url, timeout, r, &status, err) < 0)
            return -1;
        if (status == 200)
            return 0;
        if (status != 429 || attempt >= retries)
            return tb_errf(err, "GET %s: HTTP status %ld%s", url, status,
                           status == 429   ? " (rate-limited; gave up after retries)"
                           : status == 404 ? " (not found: unknown chip or TCB?)"
                                           : "");
        long after = retry_after_s(r->header);
        long wait = after >= 0 ? after * 1000 : 500L << attempt;
        sleep_ms(wait < cap ? wait : cap);
    }
}

static int cache_dir(const char *base, const tb_snp_kds_opts *o, char *out, size_t n, tb_err *err)
{
    char root[4096], h[17];
    uint8_t md[SHA256_DIGEST_LENGTH];
    if (tb_attest_cache_dir(o->cache_dir, root, sizeof root, err) < 0)
        return -1;
    size_t bl = strlen(base);
    while (bl && base[bl - 1] == '/')
        bl--;
    SHA256((const unsigned char *)base, bl, md);
    tb_hex_encode(md, 8, h);
    if ((size_t)snprintf(out, n, "%s/snp/%s", root, h) >= n)
        return tb_errf(err, "cache path too long");
    return 0;
}

/* The VCEK's path component: <hwid>?blSPL=.. (url) and its cache name. */
static int vcek_names(const tb_snp_report *r, tb_snp_product p, char *url_tail, size_t un,
                      char *file, size_t fn)
{
    tb_snp_tcb t;
    tb_snp_tcb_decode(r->reported_tcb, p, &t);
    char hw[129];
    size_t hl = p == TB_SNP_TURIN ? 8 : 64;
    tb_hex_encode(r->chip_id, hl, hw);
    const char *pn = tb_snp_product_name(p);
    if (t.has_fmc) {
        snprintf(url_tail, un, "%s?fmcSPL=%u&blSPL=%u&teeSPL=%u&snpSPL=%u&ucodeSPL=%u", hw, t.fmc,
                 t.bl, t.tee, t.snp, t.ucode);
        snprintf(file, fn, "%s-vcek-%s-%u-%u-%u-%u-%u.der", pn, hw, t.bl, t.tee, t.snp, t.ucode,
                 t.fmc);
    } else {
        snprintf(url_tail, un, "%s?blSPL=%u&teeSPL=%u&snpSPL=%u&ucodeSPL=%u", hw, t.bl, t.tee,
                 t.snp, t.ucode);
        snprintf(file, fn, "%s-vcek-%s-%u-%u-%u-%u.der", pn, hw, t.bl, t.tee, t.snp, t.ucode);
    }
    return 0;
}

static int cert_ok(const uint8_t *d, size_t n, int64_t now)
{
    tb_snp_cert c;
    tb_err e;
    return tb_snp_cert_parse(d, n, &c, &e) == 0 && now >= c.id.not_before && now <= c.id.not_after;
}

/* A cached piece: 1 hit (*out malloc'd), 0 miss. kind: 0 cert, 1 chain (PEM), 2 CRL. */
static int cache_get(const char *dir, const char *file, int kind, int64_t now, tb_buf *out)
{
    char path[4600];
    tb_err e;
    memset(out, 0, sizeof *out);
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, file) >= sizeof path ||
        tb_file_read(path, KDS_MAX_BODY, out, &e) < 0)
        return 0;
    int ok = 0;
    if (kind == 0) {
        ok = cert_ok(out->p, out->len, now);
    } else if (kind == 2) {
        tb_attest_crl crl;
        ok = tb_snp_crl_parse(out->p, out->len, &crl, &e) == 0 && now < crl.next_update;
    } else { /* the chain's signatures are checked by the verifier like a fetched one's */
        tb_snp_certs t = {0};
        ok = tb_snp_chain_from_pem(out->p, out->len, &t, &e) == 0;
        tb_snp_certs_clear(&t);
    }
    if (!ok)
        tb_buf_clear(out);
    return ok;
}

static int cache_put_one(const char *dir, const char *file, const void *p, size_t n, tb_err *err)
{
    char path[4600];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, file) >= sizeof path)
        return tb_errf(err, "cache path too long");
    return tb_file_write_atomic(path, p, n, err);
}

static int names(const char *base, const tb_snp_report *r, tb_snp_product p,
                 const tb_snp_kds_opts *o, char *dir, char *vtail, char *vfile, char *chain,
                 char *crl, tb_err *err)
{
    if (p <= TB_SNP_UNKNOWN || p >= TB_SNP_PRODUCT_COUNT)
        return tb_errf(err, "unknown SEV-SNP product");
    if (tb_snp_signing_key(r) != 0)
        return tb_errf(err, "the report is signed by a VLEK: the KDS serves VLEKs only to "
                            "cloud providers (give --certs with vlek.der)");
    if (cache_dir(base, o, dir, 4096, err) < 0)
        return -1;
    vcek_names(r, p, vtail, 256, vfile, 256);
    const char *pn = tb_snp_product_name(p);
    snprintf(chain, 64, "%s-cert_chain.pem", pn);
    snprintf(crl, 64, "%s-crl.der", pn);
    return 0;
}

int tb_snp_kds_cache_put(const char *base, const tb_snp_report *r, tb_snp_product p,
                         const tb_snp_kds_opts *o, const tb_snp_certs *c, tb_err *err)
{
    char dir[4096], vtail[256], vfile[256], chain[64], crl[64];
    tb_snp_kds_opts def = {0};
    if (!o)
        o = &def;
    if (names(base, r, p, o, dir, vtail, vfile, chain, crl, err) < 0 || tb_mkdirs(dir, err) < 0)
        return -1;
    if (c->vcek && cache_put_one(dir, vfile, c->vcek, c->vcek_len, err) < 0)
        return -1;
    if (c->crl && cache_put_one(dir, crl, c->crl, c->crl_len, err) < 0)
        return -1;
    if (c->ark && c->ask) { /* back to the PEM chain the KDS serves */
        tb_buf b = {0};
        const uint8_t *der[2] = {c->ask, c->ark};
        size_t len[2] = {c->ask_len, c->ark_len};
        int rc = 0;
        for (int i = 0; i < 2 && rc == 0; i++) {
            BIO *m = BIO_new(BIO_s_mem());
            char *pem;
            long n;
            if (!m || !PEM_write_bio(m, PEM_STRING_X509, "", der[i], (long)len[i]) ||
                (n = BIO_get_mem_data(m, &pem)) <= 0 || tb_buf_append(&b, pem, (size_t)n) < 0)
                rc = tb_errf(err, "cannot encode the certificate chain");
            BIO_free(m);
        }
        if (rc == 0)
            rc = cache_put_one(dir, chain, b.p, b.len, err);
        tb_buf_clear(&b);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static int take(tb_buf *b, uint8_t **p, size_t *n)
{
    *p = b->p;
    *n = b->len;
    *b = (tb_buf){0};
    return 0;
}

int tb_snp_kds_fetch(const char *base, const tb_snp_report *r, tb_snp_product p, int64_t now,
                     const tb_snp_kds_opts *o, tb_snp_certs *out, int *requests, tb_err *err)
{
    memset(out, 0, sizeof *out);
    *requests = 0;
    tb_snp_kds_opts def = {0};
    if (!o)
        o = &def;
    char dir[4096], vtail[256], vfile[256], chain[64], crl[64], url[2600];
    if (strlen(base) > 2048)
        return tb_errf(err, "KDS URL too long");
    if (names(base, r, p, o, dir, vtail, vfile, chain, crl, err) < 0)
        return -1;
    size_t bl = strlen(base);
    while (bl && base[bl - 1] == '/')
        bl--;
    const char *pn = tb_snp_product_name(p);
    tb_buf b = {0};
    CURL *c = NULL;
    tb_attest_http rs = {0};
    int rc = -1;
    struct {
        const char *file, *path;
        int kind;
    } piece[3] = {{vfile, vtail, 0}, {chain, "cert_chain", 1}, {crl, "crl", 2}};
    for (int i = 0; i < 3; i++) {
        if (o->no_cache || !cache_get(dir, piece[i].file, piece[i].kind, now, &b)) {
            if (!c && !(c = curl_easy_init())) {
                if (tb_curl_load(err) == 0)
                    tb_errf(err, "libcurl initialization failed");
                goto out;
            }
            snprintf(url, sizeof url, "%.*s/vcek/v1/%s/%s", (int)bl, base, pn, piece[i].path);
            if (get(c, url, o, &rs, requests, err) < 0)
                goto out;
            b = rs.body;
            rs.body = (tb_buf){0};
        }
        if (piece[i].kind == 0)
            take(&b, &out->vcek, &out->vcek_len);
        else if (piece[i].kind == 2)
            take(&b, &out->crl, &out->crl_len);
        else if (tb_snp_chain_from_pem(b.p, b.len, out, err) < 0) {
            tb_err_wrap(err, "%.*s/vcek/v1/%s/cert_chain", (int)bl, base, pn);
            goto out;
        }
        tb_buf_clear(&b);
    }
    rc = 0;
out:
    tb_buf_clear(&b);
    tb_attest_http_clear(&rs);
    if (c)
        curl_easy_cleanup(c);
    if (rc < 0)
        tb_snp_certs_clear(out);
    return rc;
}
