/* notary/evidence: TEE evidence that binds the notary's key, and the small
 * interfaces through which the notary gets quotes and the client verifies them.
 *
 * REPORTDATA = SHA-512(nonce || SHA-256(notary public key SPKI DER)), where the
 * nonce is the client's (or the 16-byte session id when it gave none). For
 * GET /info the nonce is empty.
 *
 * The evidence message (JSON, returned beside the document and saved as
 * <prefix>.evidence.json):
 *   {"format": "teebench-notary-evidence", "version": 1, "tee": "tdx"|"sim",
 *    "simulated": bool, "nonce": hex, "reportData": hex(64), "quote": base64}
 *
 * The quote source and the quote verifier are function-pointer interfaces so
 * that this module does not depend on how quotes are obtained or checked; the
 * implementations over src/attest are in notary/tee.c. */
#ifndef TB_NOTARY_EVIDENCE_H
#define TB_NOTARY_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

/* Where quotes come from. kind is "tdx" or "sim" (a static string). get_quote
 * returns a malloc'd quote in *quote (caller frees). Must be thread-safe. */
typedef struct tb_quote_source {
    const char *kind;
    int simulated;
    void *ctx;
    int (*get_quote)(void *ctx, const uint8_t report_data[64], uint8_t **quote, size_t *len,
                     tb_err *err);
} tb_quote_source;

/* How quotes are verified. verify checks the quote completely (signatures,
 * collateral, policy) and on success copies its REPORTDATA to report_data and
 * adds nothing else; it returns 0 when the quote is accepted, -1 (err) if not. */
typedef struct tb_quote_verifier {
    void *ctx;
    int (*verify)(void *ctx, const uint8_t *quote, size_t len, uint8_t report_data[64],
                  tb_err *err);
} tb_quote_verifier;

/* Computes the REPORTDATA binding nonce and the key hash SHA-256(SPKI). */
void tb_evidence_report_data(const uint8_t *nonce, size_t nonce_len, const uint8_t key_sha256[32],
                             uint8_t out[64]);

typedef struct tb_evidence {
    char tee[8];
    int simulated;
    uint8_t nonce[64];
    size_t nonce_len;
    uint8_t report_data[64];
    tb_buf quote; /* owned: free with tb_evidence_free */
} tb_evidence;

/* Gets a fresh quote from src for (nonce, key hash) and fills ev. */
int tb_evidence_make(const tb_quote_source *src, const uint8_t *nonce, size_t nonce_len,
                     const uint8_t key_sha256[32], tb_evidence *ev, tb_err *err);
/* Appends the JSON evidence message to out. */
int tb_evidence_to_json(const tb_evidence *ev, tb_buf *out, tb_err *err);
/* Parses the JSON evidence message (strict types and lengths). */
int tb_evidence_parse(const char *text, size_t len, tb_evidence *ev, tb_err *err);
void tb_evidence_free(tb_evidence *ev);

/* Checks that ev binds (nonce, key): its nonce equals the expected one (when
 * expect_nonce is non-NULL), its reportData equals SHA-512(nonce || SHA-256(spki)),
 * and, when verifier is non-NULL, that the quote verifies and carries exactly
 * that REPORTDATA. */
int tb_evidence_check(const tb_evidence *ev, const uint8_t *spki, size_t spki_len,
                      const uint8_t *expect_nonce, size_t expect_nonce_len,
                      const tb_quote_verifier *verifier, tb_err *err);

#endif
