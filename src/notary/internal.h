/* notary/internal: what the files of src/notary share with each other and
 * with their unit tests and fuzz targets -- not with other modules. The
 * public headers (client, check, doc, evidence, key, server, target, tee)
 * export only what the cli uses. Sections by the file that defines them. */
#ifndef TB_NOTARY_INTERNAL_H
#define TB_NOTARY_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <openssl/x509.h>

#include "base/buf.h"
#include "base/err.h"
#include "notary/doc.h"
#include "notary/evidence.h"
#include "notary/key.h"
#include "notary/target.h"
#include "notary/tee.h"

/* ----------------------------------------------------------------- codec.c
 * notary/codec: the base64 text encoding used by the notary's JSON API (its hex
 * fields use base/hex). Pure functions that append to a caller-owned tb_buf. The
 * decoder is strict: it rejects any character outside the alphabet and bad padding. */
/* Appends standard base64 (with padding) of p[0..n) to out. Returns 0 or -1 (memory). */
int tb_notary_b64_append(tb_buf *out, const uint8_t *p, size_t n);
/* Appends the decoding of s[0..slen) (standard alphabet, padding required) to out.
 * Returns 0, or -1 when the text is not canonical base64 or memory runs out. */
int tb_notary_unb64_append(tb_buf *out, const char *s, size_t slen);

/* ----------------------------------------------------------------- proto.c
 * notary/proto: the JSON bodies of the notary's API, parsing only (no I/O).
 *
 *  - tb_notary_session_req: the body of POST /session;
 *  - tb_notary_notarize_req: the body of POST /notarize (docs/NOTARY.md has the schema).
 * The HTTP around them is parsed by net/http_req (the notary's requests) and
 * net/http_resp (the target's responses), the parsers every HTTP speaker in
 * the tree shares. Every parser here reads untrusted bytes: it never reads
 * past len, never allocates without a limit, and is covered by
 * fuzz/fuzz_notary_request.c. */
typedef struct tb_notary_session_req {
    uint64_t max_sent, max_recv; /* 0 when absent: the notary's limits apply */
    int tee;                     /* teeAttestation */
    uint8_t nonce[64];
    size_t nonce_len; /* 0: no nonce given */
} tb_notary_session_req;

/* {"maxSentData": int, "maxRecvData": int, "teeAttestation": bool, "nonce": hex}
 * all optional; nonce 1..64 bytes. */
int tb_notary_session_req_parse(const char *body, size_t len, tb_notary_session_req *out,
                                tb_err *err);

typedef struct tb_notary_notarize_req {
    char host[254];
    uint16_t port;
    char server_name[254];
    tb_buf request; /* owned: free with tb_notary_notarize_req_clear */
} tb_notary_notarize_req;

/* {"host": str, "port": int, "serverName": str, "request": base64} all required.
 * host: 1..253 printable ASCII; serverName: a DNS name (letters, digits, '-', '.').
 * On failure nothing is left allocated. */
int tb_notary_notarize_req_parse(const char *body, size_t len, tb_notary_notarize_req *out,
                                 tb_err *err);
void tb_notary_notarize_req_clear(tb_notary_notarize_req *r);

/* 1 when s is a syntactically valid DNS host name (1..253 bytes, labels 1..63 of
 * letters, digits and '-', not starting or ending with '-'), else 0. Also used
 * by the allow-list (target.c). */
int tb_notary_dns_name_valid(const char *s);

/* --------------------------------------------------------------- session.c
 * notary/session: the notary's table of sessions.
 *
 * A session is created by POST /session (limits, TEE request, nonce) and used
 * exactly once by POST /notarize. The table has a fixed capacity of open
 * (created, not yet claimed) sessions and a mutex; all functions are safe to
 * call from many threads. Times are monotonic nanoseconds passed in by the
 * caller (so tests control the clock).
 *
 * Life of a session: open -> claimed (its slot is freed at once) or expired
 * (freed when found expired). A claimed or expired session leaves a
 * tombstone -- its id and which of the two it was -- in a ring of 2 x capacity
 * entries, so a replay is answered "already used" and a late claim "expired"
 * every time, while no used session holds a slot. A session id is never
 * accepted twice whatever the ring forgets: ids are random 128-bit values and
 * only an open slot can be claimed.
 *
 * Quotas: at most per_client open sessions per client (an IPv4 address, or
 * the /64 prefix of an IPv6 address; tb_notary_session_client_key), so one client
 * cannot fill the table; unclaimed sessions expire after ttl. */
typedef struct tb_notary_session {
    uint8_t id[16];
    uint64_t expires_ns;
    uint64_t max_sent, max_recv;
    int tee;
    uint8_t nonce[64];
    size_t nonce_len;
    uint8_t client[16]; /* tb_notary_session_client_key of its creator */
} tb_notary_session;

typedef struct tb_notary_session_tomb {
    uint8_t id[16];
    uint8_t expired; /* 0: claimed, 1: expired */
} tb_notary_session_tomb;

typedef struct tb_notary_session_table {
    pthread_mutex_t mu;
    tb_notary_session *open; /* owned; open[0..n_open), unordered */
    size_t cap, n_open;
    tb_notary_session_tomb *tombs; /* owned ring of tomb_cap entries */
    size_t tomb_cap, n_tombs, tomb_next;
    uint64_t ttl_ns;
    size_t per_client;
} tb_notary_session_table;

typedef enum tb_notary_claim {
    TB_NOTARY_CLAIM_OK = 0,
    TB_NOTARY_CLAIM_UNKNOWN,
    TB_NOTARY_CLAIM_EXPIRED,
    TB_NOTARY_CLAIM_USED,
} tb_notary_claim;

typedef enum tb_notary_session_result {
    TB_NOTARY_SESSION_OK = 0,
    TB_NOTARY_SESSION_ERROR = -1, /* no random id (err) */
    TB_NOTARY_SESSION_FULL = -2,  /* cap open sessions: try later */
    TB_NOTARY_SESSION_QUOTA = -3, /* this client holds per_client open sessions */
} tb_notary_session_result;

/* cap: open sessions at once; ttl_ns: lifetime of an unclaimed session;
 * per_client: open sessions per client (0: cap). */
int tb_notary_session_table_init(tb_notary_session_table *t, size_t cap, uint64_t ttl_ns,
                                 size_t per_client, tb_err *err);
void tb_notary_session_table_clear(tb_notary_session_table *t);
/* The quota key of a client address: IPv4 (also IPv4-mapped IPv6) as
 * ::ffff:a.b.c.d, IPv6 as its /64 prefix. */
void tb_notary_session_client_key(const struct sockaddr *sa, uint8_t key[16]);
/* Adds a session with s's limits, tee, nonce and client; draws a random
 * 128-bit id (written to s->id) and sets s->expires_ns = now + ttl. Returns a
 * tb_notary_session_result; err says why when it is not OK. */
int tb_notary_session_create(tb_notary_session_table *t, tb_notary_session *s, uint64_t now_ns,
                             tb_err *err);
/* Looks session id up without using it: TB_NOTARY_CLAIM_OK with a copy in *out, or
 * why it cannot be claimed. */
tb_notary_claim tb_notary_session_peek(tb_notary_session_table *t, const uint8_t id[16],
                                       uint64_t now_ns, tb_notary_session *out);
/* Claims session id for one notarization: on TB_NOTARY_CLAIM_OK *out is a copy, the
 * slot is free again and any later claim returns TB_NOTARY_CLAIM_USED. */
tb_notary_claim tb_notary_session_claim(tb_notary_session_table *t, const uint8_t id[16],
                                        uint64_t now_ns, tb_notary_session *out);
/* Number of open sessions that have not expired. */
size_t tb_notary_session_count(tb_notary_session_table *t, uint64_t now_ns);

/* ---------------------------------------------------------------- quota.c
 * notary/quota: how many of something each client (tb_notary_session_client_key)
 * holds at once, at most limit each, for at most max_keys clients at once.
 * One thread owns a quota (no lock): the server's loop counts the
 * notarizations each client has queued or running. */
typedef struct tb_notary_quota_entry {
    uint8_t key[16];
    size_t n; /* 0: an empty entry */
} tb_notary_quota_entry;

typedef struct tb_notary_quota {
    tb_notary_quota_entry *e; /* owned; mask + 1 entries */
    size_t mask, used, max_keys, limit;
} tb_notary_quota;

int tb_notary_quota_init(tb_notary_quota *q, size_t max_keys, size_t limit, tb_err *err);
void tb_notary_quota_clear(tb_notary_quota *q);
/* Counts one more for key: 0, or -1 (nothing counted) when key holds limit
 * already or max_keys other clients hold something. */
int tb_notary_quota_take(tb_notary_quota *q, const uint8_t key[16]);
/* Counts one less for key (nothing when it holds nothing). */
void tb_notary_quota_give(tb_notary_quota *q, const uint8_t key[16]);
size_t tb_notary_quota_count(const tb_notary_quota *q, const uint8_t key[16]);

/* ------------------------------------------------------------------ key.c */

/* Appends the DER signature of data to sig. */
int tb_notary_sign(const tb_notary_key *k, const uint8_t *data, size_t len, tb_buf *sig,
                   tb_err *err);
/* Verifies a DER ECDSA-SHA256 signature with a P-256 public key given as SPKI DER.
 * Returns 0 when valid, -1 (err says why) otherwise. */
int tb_notary_verify_sig(const uint8_t *spki, size_t spki_len, const uint8_t *data, size_t len,
                         const uint8_t *sig, size_t sig_len, tb_err *err);

/* ------------------------------------------------------------------ doc.c */

/* Encodes doc (signature and signed_len ignored; notary_key must be the SPKI of key)
 * and signs it with key, appending the complete document to out. Fails when a
 * field is out of its range. */
int tb_notary_doc_encode_sign(const tb_notary_doc *doc, const tb_notary_key *key, tb_buf *out,
                              tb_err *err);
/* Parses a document strictly (structure and ranges only; no signature check).
 * The views in *doc point into p. */
int tb_notary_doc_decode(const uint8_t *p, size_t len, tb_notary_doc *doc, tb_err *err);
/* tb_notary_doc_decode + the signature check with the embedded notary key
 * (the cli loads documents through check.h's tb_notary_doc_load). */
int tb_notary_doc_verify(const uint8_t *p, size_t len, tb_notary_doc *doc, tb_err *err);
/* Checks that the document's certificate chain leads to a CA in store and that the
 * leaf is valid for the server name, at the document's time. */
int tb_notary_doc_verify_chain(const tb_notary_doc *doc, X509_STORE *store, tb_err *err);
/* ------------------------------------------------------------- evidence.c */

/* Parses the JSON evidence message (strict types and lengths). */
int tb_notary_evidence_parse(const char *text, size_t len, tb_notary_evidence *ev, tb_err *err);

/* How quotes are verified. verify checks the quote completely (signatures,
 * collateral, policy) and that its REPORTDATA equals report_data; it returns
 * 0 when the quote is accepted, -1 (err) if not. */
typedef struct tb_notary_quote_verifier {
    void *ctx;
    int (*verify)(void *ctx, const uint8_t *quote, size_t len, const uint8_t report_data[64],
                  tb_err *err);
} tb_notary_quote_verifier;

/* Computes the REPORTDATA binding nonce and the key hash SHA-256(SPKI). */
void tb_notary_evidence_report_data(const uint8_t *nonce, size_t nonce_len,
                                    const uint8_t key_sha256[32], uint8_t out[64]);

/* Gets a fresh quote from src for (nonce, key hash) and fills ev. */
int tb_notary_evidence_make(const tb_notary_quote_source *src, const uint8_t *nonce,
                            size_t nonce_len, const uint8_t key_sha256[32], tb_notary_evidence *ev,
                            tb_err *err);
/* Appends the JSON evidence message to out. */
int tb_notary_evidence_to_json(const tb_notary_evidence *ev, tb_buf *out, tb_err *err);
/* Checks that ev binds (nonce, key): its nonce equals the expected one (when
 * expect_nonce is non-NULL), its reportData equals SHA-512(nonce || SHA-256(spki)),
 * and, when verifier is non-NULL, that the quote verifies and carries exactly
 * that REPORTDATA. */
int tb_notary_evidence_check(const tb_notary_evidence *ev, const uint8_t *spki, size_t spki_len,
                             const uint8_t *expect_nonce, size_t expect_nonce_len,
                             const tb_notary_quote_verifier *verifier, tb_err *err);

/* ------------------------------------------------------------------ tee.c */

/* The verifier for `--verify` / `notary check --verify` with these options.
 * Ownership: allocates ctx; free with tb_notary_verifier_close. */
int tb_notary_verifier_open(const tb_notary_verifier_opts *o, tb_notary_quote_verifier *out,
                            tb_err *err);
void tb_notary_verifier_close(tb_notary_quote_verifier *v);

/* --------------------------------------------------------------- target.c */

/* 1 when connecting to sa (resolved from host:port) is allowed, else 0. */
int tb_notary_allowlist_permits(const tb_notary_allowlist *l, const char *host, uint16_t port,
                                const struct sockaddr *sa);

/* The permitted addresses of one host:port, in resolver order. */
typedef struct tb_notary_target_addrs {
    char host[254];
    uint16_t port;
    size_t n;
    struct sockaddr_storage addr[TB_NOTARY_TARGET_MAX_ADDRS];
    socklen_t len[TB_NOTARY_TARGET_MAX_ADDRS];
} tb_notary_target_addrs;

/* Resolves host:port. Returns 0 with the permitted addresses, or -1 with
 * *status 403 (no address is allowed) or 502 (cannot resolve) and err. */
int tb_notary_target_resolve(const tb_notary_target *t, const char *host, uint16_t port,
                             tb_notary_target_addrs *out, int *status, tb_err *err);

typedef struct tb_notary_target_response {
    tb_buf response; /* the exact response bytes */
    tb_buf certs;    /* DER certificates as sent by the server, concatenated */
    size_t n_certs;
    size_t cert_off[TB_NOTARY_TARGET_MAX_CERTS], cert_len[TB_NOTARY_TARGET_MAX_CERTS];
    char address[64]; /* the address connected to, "ip:port" */
} tb_notary_target_response;

/* Fetches from the first address of addrs that accepts a connection. On
 * failure *status is the HTTP status the notary should answer (422 response
 * larger than max_recv, 502 connection, TLS, certificate or HTTP failure, 503
 * cancelled, 504 the deadline passed) and err says why. cancel_fd: an fd that
 * becomes readable to abandon the fetch, or -1. Free out with
 * tb_notary_target_response_clear (also after a failure). */
int tb_notary_target_fetch(const tb_notary_target *t, const tb_notary_target_addrs *addrs,
                           const char *server_name, const uint8_t *req, size_t req_len,
                           size_t max_recv, int cancel_fd, tb_notary_target_response *out,
                           int *status, tb_err *err);
void tb_notary_target_response_clear(tb_notary_target_response *r);

/* --------------------------------------------------------------- client.c */

/* Builds the GET request the client sends (appends to out). Fails on a uri or
 * server name with spaces or control characters. */
int tb_notary_build_request(const char *server_name, const char *uri, tb_buf *out, tb_err *err);

#endif
