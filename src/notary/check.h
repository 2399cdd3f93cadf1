/* notary/check: what a verifier of a notarization checks, in one place, for
 * `teebench notarize` (right after a run) and `teebench notary check` (a saved
 * document), so both check the same things the same way.
 *
 * tb_notary_check_doc: a decoded, signature-checked document (tb_doc_verify)
 * was signed by the pinned notary key (when key_sha256 is given) and its
 * server chain leads to a CA in store and is valid for the server name at the
 * document's time (when store is given).
 * tb_notary_check_evidence: the TEE evidence is about this document -- same
 * TEE kind, the expected nonce (the one the client sent, or the document's),
 * reportData binding that nonce and the document's notary key -- and, when
 * vo is given, the quote verifies (attest's full verification; SIMULATED
 * evidence only against the simulated PKI) and carries exactly that
 * reportData. Both return 0, or -1 with err saying which check failed. */
#ifndef TB_NOTARY_CHECK_H
#define TB_NOTARY_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/x509.h>

#include "base/err.h"
#include "notary/doc.h"
#include "notary/evidence.h"
#include "notary/tee.h"

int tb_notary_check_doc(const tb_doc *d, X509_STORE *store, const uint8_t *key_sha256, tb_err *err);
/* nonce NULL: the document's nonce is the expected one. */
int tb_notary_check_evidence(const tb_doc *d, const tb_evidence *ev, const uint8_t *nonce,
                             size_t nonce_len, const tb_notary_verifier_opts *vo, tb_err *err);

#endif
