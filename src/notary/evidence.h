/* notary/evidence: TEE evidence that binds the notary's key, and the small
 * interfaces through which the notary gets quotes and the client verifies them.
 *
 * REPORTDATA = SHA-512(nonce || SHA-256(notary public key SPKI DER)), where the
 * nonce is the client's (or the 16-byte session id when it gave none). For
 * GET /info the nonce is empty.
 *
 * The evidence message (JSON, returned beside the document and saved as
 * <prefix>.evidence.json):
 *   {"format": "teebench-notary-evidence", "version": 1, "tee": "tdx"|"snp"|"sim"|"sim-snp",
 *    "simulated": bool (true exactly for sim and sim-snp), "nonce": hex, "reportData": hex(64),
 * "quote": base64}
 *
 * The quote source (here) and the quote verifier (notary/internal.h) are
 * function-pointer interfaces so that this file does not depend on how quotes
 * are obtained or checked; the implementations over src/attest are in
 * notary/tee.c. Parsing, making and checking evidence (tb_notary_evidence_parse,
 * tb_notary_evidence_make, tb_notary_evidence_check) are internal to the notary: the cli checks
 * through notary/check.h. */
#ifndef TB_NOTARY_EVIDENCE_H
#define TB_NOTARY_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/tee.h"

/* Where quotes come from. tee is TDX, SNP (an SEV-SNP report is the "quote"),
 * SIM or SIM_SNP (SIMULATED: tb_tee_simulated). get_quote
 * returns a malloc'd quote in *quote (caller frees). Must be thread-safe. */
typedef struct tb_notary_quote_source {
    tb_tee tee;
    void *ctx;
    int (*get_quote)(void *ctx, const uint8_t report_data[64], uint8_t **quote, size_t *len,
                     tb_err *err);
} tb_notary_quote_source;

typedef struct tb_notary_evidence {
    tb_tee tee;    /* never TB_TEE_NONE */
    int simulated; /* as the message says; parsing refuses one that is not tee's */
    uint8_t nonce[64];
    size_t nonce_len;
    uint8_t report_data[64];
    tb_buf quote; /* owned: free with tb_notary_evidence_clear */
} tb_notary_evidence;

void tb_notary_evidence_clear(tb_notary_evidence *ev);

#endif
