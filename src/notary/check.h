/* notary/check: what a verifier of a notarization checks, in one place, for
 * `teebench notarize` (right after a run) and `teebench notary check` (a saved
 * document), so both check the same things the same way, in the same order:
 *
 *   1. the document (decoded, its signature checked: tb_notary_doc_verify, done by the
 *      client or by tb_notary_doc_load) was signed by the pinned notary key
 *      (key_sha256), and its server chain leads to a CA in store and is valid
 *      for the server name at the document's time (store);
 *   2. the TEE evidence is about this document -- same TEE kind, the expected
 *      nonce (the one the client sent, or the document's), reportData binding
 *      that nonce and the document's notary key -- and, with verify, the quote
 *      verifies (attest's full verification; SIMULATED evidence only against
 *      the simulated PKI) and carries exactly that reportData.
 *
 * tb_notary_check runs both (each part only when its options are given) and
 * reports which part failed and the time each took, so that the client can
 * time the document checks and the quote verification separately. Loading a
 * saved document or evidence file is here too, so that the cli only names
 * files. */
#ifndef TB_NOTARY_CHECK_H
#define TB_NOTARY_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/x509.h>

#include "base/buf.h"
#include "base/err.h"
#include "notary/doc.h"
#include "notary/evidence.h"
#include "notary/tee.h"

/* What to check; a NULL member skips that check. */
typedef struct tb_notary_check_opts {
    X509_STORE *store;         /* the server chain leads to a CA in it */
    const uint8_t *key_sha256; /* SHA-256 of the notary key's SPKI the document must carry */
    const tb_notary_evidence *evidence; /* binds the document's key and nonce */
    const uint8_t *nonce; /* the nonce the evidence must carry (NULL: the document's) */
    size_t nonce_len;
    const tb_notary_verifier_opts *verify; /* with evidence: verify the quote too */
} tb_notary_check_opts;

typedef enum tb_notary_check_part {
    TB_NOTARY_CHECK_NONE = 0, /* nothing failed */
    TB_NOTARY_CHECK_DOC,      /* the key pin or the server chain */
    TB_NOTARY_CHECK_EVIDENCE, /* the evidence's binding or the quote */
} tb_notary_check_part;

typedef struct tb_notary_check_report {
    tb_notary_check_part failed;
    uint64_t doc_ns;      /* monotonic time spent on part 1 */
    uint64_t evidence_ns; /* on part 2 (0 without evidence) */
} tb_notary_check_report;

/* Checks d as o says. 0 when every check passed, or -1 with err saying which
 * check failed (and report->failed the part). report may be NULL. */
int tb_notary_check(const tb_notary_doc *d, const tb_notary_check_opts *o,
                    tb_notary_check_report *report, tb_err *err);

/* Reads a saved document (at most TB_NOTARY_DOC_MAX_SIZE bytes) into buf (caller
 * clears it) and decodes it with its signature checked; d's views point into
 * buf. Both loaders' errors start with the path, once. */
int tb_notary_doc_load(const char *path, tb_buf *buf, tb_notary_doc *d, tb_err *err);
/* Reads and parses a saved evidence file (caller frees ev with tb_notary_evidence_clear). */
int tb_notary_evidence_load(const char *path, tb_notary_evidence *ev, tb_err *err);

#endif
