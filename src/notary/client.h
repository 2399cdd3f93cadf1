/* notary/client: the notary client behind `teebench notarize`.
 *
 * One run: build the HTTP request (GET <uri>, Host: <server name>, Connection:
 * close), POST /session (limits, teeAttestation, a fresh 32-byte nonce when TEE
 * is asked), POST /notarize, then check what came back: the document decodes,
 * its signature verifies, and it is about exactly what was asked (session id,
 * server name, target, request bytes, TEE kind and nonce). Checking the server
 * chain and the TEE evidence is the caller's next step (notary/check.h's
 * tb_notary_check, which times each part).
 *
 * Talks to the notary with libcurl (one easy handle per run, http or https);
 * with an API key, every request carries "Authorization: Bearer <key>" (the
 * key is never put in an error message).
 * Ownership: tb_notary_client_result owns its buffers; release them with
 * tb_notary_client_result_clear. */
#ifndef TB_NOTARY_CLIENT_H
#define TB_NOTARY_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/x509.h>

#include "base/buf.h"
#include "base/err.h"
#include "notary/doc.h"
#include "notary/evidence.h"

typedef struct tb_notary_client_opts {
    const char *notary_url; /* "http://127.0.0.1:7047" (no trailing slash needed) */
    const char *notary_ca;  /* CA file for an https notary; NULL: system store */
    const char *host;       /* target address to connect to */
    uint16_t port;
    const char *server_name; /* SNI, certificate name and Host header */
    const char *uri;         /* request target, e.g. "/formats/json?size=4" */
    uint64_t max_sent, max_recv;
    int tee;             /* ask for TEE attestation */
    const char *api_key; /* sent as "Authorization: Bearer <key>" (NULL: none) */
    long timeout_ms;     /* per notary request; 0 = 30000 */
} tb_notary_client_opts;

typedef struct tb_notary_client_result {
    tb_buf request;    /* the HTTP request bytes the client built */
    tb_buf document;   /* the signed document as received */
    tb_notary_doc doc; /* views into document */
    int has_evidence;
    tb_buf evidence_json; /* the evidence message as received */
    tb_notary_evidence evidence;
    uint8_t nonce[32]; /* the nonce sent (when tee) */
    uint8_t session_id[16];
} tb_notary_client_result;

/* Runs one notarization and checks the document (not the chain, not the quote). */
int tb_notary_client_run(const tb_notary_client_opts *o, tb_notary_client_result *res, tb_err *err);
void tb_notary_client_result_clear(tb_notary_client_result *res);

/* A trust store of the PEM CA file (when ca_file is non-NULL) or the system
 * store. Caller frees with X509_STORE_free. */
X509_STORE *tb_notary_trust_store(const char *ca_file, tb_err *err);

#endif
