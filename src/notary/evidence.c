/* notary/evidence: REPORTDATA binding, the evidence message and its checks
 * (see evidence.h). */
#include "notary/evidence.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include "notary/internal.h"
#include "base/hex.h"

void tb_notary_evidence_report_data(const uint8_t *nonce, size_t nonce_len,
                                    const uint8_t key_sha256[32], uint8_t out[64])
{
    uint8_t buf[64 + 32];
    size_t n = nonce_len > 64 ? 64 : nonce_len; /* nonces are at most 64 bytes */
    if (n)
        memcpy(buf, nonce, n);
    memcpy(buf + n, key_sha256, 32);
    SHA512(buf, n + 32, out);
}

int tb_notary_evidence_make(const tb_notary_quote_source *src, const uint8_t *nonce,
                            size_t nonce_len, const uint8_t key_sha256[32], tb_notary_evidence *ev,
                            tb_err *err)
{
    memset(ev, 0, sizeof *ev);
    if (nonce_len > sizeof ev->nonce)
        return tb_errf(err, "evidence: nonce longer than 64 bytes");
    ev->tee = src->tee;
    ev->simulated = tb_tee_simulated(src->tee);
    if (nonce_len)
        memcpy(ev->nonce, nonce, nonce_len);
    ev->nonce_len = nonce_len;
    tb_notary_evidence_report_data(nonce, nonce_len, key_sha256, ev->report_data);
    uint8_t *q = NULL;
    size_t qlen = 0;
    if (src->get_quote(src->ctx, ev->report_data, &q, &qlen, err) < 0)
        return tb_err_wrap(err, "getting a %s quote", tb_tee_name(src->tee));
    int rc = tb_buf_append(&ev->quote, q, qlen);
    free(q);
    if (rc < 0) {
        tb_notary_evidence_clear(ev);
        return tb_errf(err, "evidence: out of memory");
    }
    return 0;
}

int tb_notary_evidence_to_json(const tb_notary_evidence *ev, tb_buf *out, tb_err *err)
{
    char nonce[129], rd[129];
    tb_hex_encode(ev->nonce, ev->nonce_len, nonce);
    tb_hex_encode(ev->report_data, 64, rd);
    int rc = tb_buf_printf(out,
                           "{\"format\":\"teebench-notary-evidence\",\"version\":1,\"tee\":\"%s\","
                           "\"simulated\":%s,\"nonce\":\"%s\",\"reportData\":\"%s\",\"quote\":\"",
                           tb_tee_name(ev->tee), ev->simulated ? "true" : "false", nonce, rd);
    rc |= tb_notary_b64_append(out, ev->quote.p, ev->quote.len);
    rc |= tb_buf_puts(out, "\"}");
    return rc ? tb_errf(err, "evidence: out of memory") : 0;
}

static int hex_field(json_t *o, const char *key, uint8_t *out, size_t cap, size_t min, size_t *got,
                     tb_err *err)
{
    json_t *v = json_object_get(o, key);
    const char *s = json_string_value(v);
    long n = s ? tb_hex_decode_upto(s, json_string_length(v), out, cap) : -1;
    if (n < 0 || (size_t)n < min)
        return tb_errf(err, "evidence: %s must be hex of %zu to %zu bytes", key, min, cap);
    *got = (size_t)n;
    return 0;
}

int tb_notary_evidence_parse(const char *text, size_t len, tb_notary_evidence *ev, tb_err *err)
{
    memset(ev, 0, sizeof *ev);
    json_error_t je;
    json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!o || !json_is_object(o)) {
        json_decref(o);
        return tb_errf(err, "evidence: not a JSON object");
    }
    int rc = -1;
    size_t n;
    json_t *fmt = json_object_get(o, "format"), *ver = json_object_get(o, "version");
    json_t *tee = json_object_get(o, "tee"), *sim = json_object_get(o, "simulated");
    json_t *quote = json_object_get(o, "quote");
    if (!json_is_string(fmt) || strcmp(json_string_value(fmt), "teebench-notary-evidence")) {
        tb_errf(err, "evidence: format is not teebench-notary-evidence");
        goto out;
    }
    if (!json_is_integer(ver) || json_integer_value(ver) != 1) {
        tb_errf(err, "evidence: unsupported version (want 1)");
        goto out;
    }
    if (tb_tee_parse(json_string_value(tee), &ev->tee) < 0 || ev->tee == TB_TEE_NONE) {
        tb_errf(err, "evidence: tee must be tdx, snp, sim or sim-snp");
        goto out;
    }
    if (!json_is_boolean(sim)) {
        tb_errf(err, "evidence: simulated must be a boolean");
        goto out;
    }
    ev->simulated = json_is_true(sim);
    if (ev->simulated != tb_tee_simulated(ev->tee)) {
        tb_errf(err, "evidence: tee %s cannot be simulated=%s", tb_tee_name(ev->tee),
                ev->simulated ? "true" : "false");
        goto out;
    }
    if (hex_field(o, "nonce", ev->nonce, sizeof ev->nonce, 0, &ev->nonce_len, err) < 0 ||
        hex_field(o, "reportData", ev->report_data, 64, 64, &n, err) < 0)
        goto out;
    if (!json_is_string(quote) || json_string_length(quote) == 0 ||
        tb_notary_unb64_append(&ev->quote, json_string_value(quote), json_string_length(quote)) <
            0) {
        tb_errf(err, "evidence: quote must be non-empty base64");
        goto out;
    }
    rc = 0;
out:
    json_decref(o);
    if (rc < 0)
        tb_notary_evidence_clear(ev);
    return rc;
}

void tb_notary_evidence_clear(tb_notary_evidence *ev)
{
    tb_buf_clear(&ev->quote);
}

int tb_notary_evidence_check(const tb_notary_evidence *ev, const uint8_t *spki, size_t spki_len,
                             const uint8_t *expect_nonce, size_t expect_nonce_len,
                             const tb_notary_quote_verifier *verifier, tb_err *err)
{
    if (expect_nonce && (ev->nonce_len != expect_nonce_len ||
                         CRYPTO_memcmp(ev->nonce, expect_nonce, expect_nonce_len)))
        return tb_errf(err, "evidence: nonce is not the one this client sent");
    uint8_t kh[32], want[64];
    SHA256(spki, spki_len, kh);
    tb_notary_evidence_report_data(ev->nonce, ev->nonce_len, kh, want);
    if (CRYPTO_memcmp(want, ev->report_data, 64))
        return tb_errf(err, "evidence: reportData does not bind this nonce and notary key");
    if (!verifier)
        return 0;
    if (verifier->verify(verifier->ctx, ev->quote.p, ev->quote.len, want, err) < 0)
        return tb_err_wrap(err, "evidence: quote verification failed");
    return 0;
}
