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

/* ---------------------------------------------------------------- quota.c
 * notary/quota: who a client is for the quotas, how many of a shared table a
 * client may take, and a count per client of things held at once.
 *
 * Every quota counts a client twice: by its address and by its prefix (the
 * network it is in), so that an attacker with many addresses in one network
 * gets that network's share, not one share per address. Keys (16 bytes):
 *   address: IPv4 (and IPv4-mapped IPv6, counted as IPv4) as ::ffff:a.b.c.d,
 *            IPv6 as all 128 bits;
 *   prefix:  IPv4 /24 as ::ffff:a.b.c.0, IPv6 /64 (the last 8 bytes zero).
 * A prefix key never equals another family's (IPv4 keys have ff ff in bytes
 * 10-11, IPv6 prefix keys zeros there).
 *
 * tb_notary_limits / tb_notary_admit_check: the admission rule of a shared table
 * of cap slots (pure, unit-tested): a client may hold per_addr by address and
 * per_prefix by prefix; the last `reserved` slots go only to clients whose
 * prefix holds fewer than reserve_below, so prefixes that filled the shared part
 * cannot take them, and honest clients from other networks -- who hold a session
 * for milliseconds -- still get one while the table is under attack. */
typedef struct tb_notary_client {
    uint8_t addr[16], prefix[16];
} tb_notary_client;

/* The quota keys of a peer address (AF_INET or AF_INET6; anything else: zeros). */
void tb_notary_client_of(const struct sockaddr *sa, tb_notary_client *out);

typedef struct tb_notary_limits {
    size_t cap;           /* slots in all */
    size_t per_addr;      /* at most this many per address */
    size_t per_prefix;    /* at most this many per prefix */
    size_t reserved;      /* the last slots, for prefixes holding < reserve_below */
    size_t reserve_below; /* 0: no reserve */
} tb_notary_limits;

typedef enum tb_notary_admit {
    TB_NOTARY_ADMIT_OK = 0,
    TB_NOTARY_ADMIT_ADDR,    /* the address holds per_addr already */
    TB_NOTARY_ADMIT_PREFIX,  /* the prefix holds per_prefix already */
    TB_NOTARY_ADMIT_FULL,    /* every slot is taken */
    TB_NOTARY_ADMIT_RESERVE, /* only reserved slots are free, and the prefix holds too many */
} tb_notary_admit;

/* Checks l's values (cap > 0, per_addr and per_prefix > 0, reserved < cap);
 * err says which is wrong. */
int tb_notary_limits_check(const tb_notary_limits *l, tb_err *err);
/* Whether one more slot may go to a client whose address holds n_addr and whose
 * prefix holds n_prefix, when used of the cap slots are taken. The client's own
 * quotas are checked first (ADDR, PREFIX), then the room (FULL, RESERVE). */
tb_notary_admit tb_notary_admit_check(const tb_notary_limits *l, size_t used, size_t n_addr,
                                      size_t n_prefix);

/* A count per key of things held at once, at most limit each, for at most
 * max_keys keys at once. One owner at a time (no lock): the server's loop for
 * its notarizations in flight, the resolver under its mutex. */
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

/* A quota by address and by prefix together. */
typedef struct tb_notary_quota2 {
    tb_notary_quota addr, prefix;
} tb_notary_quota2;

int tb_notary_quota2_init(tb_notary_quota2 *q, size_t max_keys, size_t per_addr, size_t per_prefix,
                          tb_err *err);
void tb_notary_quota2_clear(tb_notary_quota2 *q);
/* Counts one more for both of c's keys, or nothing: TB_NOTARY_ADMIT_OK, _ADDR or
 * _PREFIX (that key is at its limit, or max_keys keys hold something). */
tb_notary_admit tb_notary_quota2_take(tb_notary_quota2 *q, const tb_notary_client *c);
void tb_notary_quota2_give(tb_notary_quota2 *q, const tb_notary_client *c);

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
 * Quotas: tb_notary_limits over the open sessions (per address, per prefix,
 * a reserve for small prefixes; quota.c), so neither one client nor one
 * network can fill the table; unclaimed sessions expire after ttl. */
typedef struct tb_notary_session {
    uint8_t id[16];
    uint64_t expires_ns;
    uint64_t max_sent, max_recv;
    int tee;
    uint8_t nonce[64];
    size_t nonce_len;
    tb_notary_client who; /* its creator */
} tb_notary_session;

typedef struct tb_notary_session_tomb {
    uint8_t id[16];
    uint8_t expired; /* 0: claimed, 1: expired */
} tb_notary_session_tomb;

typedef struct tb_notary_session_table {
    pthread_mutex_t mu;
    tb_notary_session *open; /* owned; open[0..n_open), unordered */
    size_t n_open;
    tb_notary_session_tomb *tombs; /* owned ring of tomb_cap entries */
    size_t tomb_cap, n_tombs, tomb_next;
    uint64_t ttl_ns;
    tb_notary_limits lim; /* lim.cap: the capacity */
} tb_notary_session_table;

typedef enum tb_notary_claim {
    TB_NOTARY_CLAIM_OK = 0,
    TB_NOTARY_CLAIM_UNKNOWN,
    TB_NOTARY_CLAIM_EXPIRED,
    TB_NOTARY_CLAIM_USED,
} tb_notary_claim;

typedef enum tb_notary_session_result {
    TB_NOTARY_SESSION_OK = 0,
    TB_NOTARY_SESSION_ERROR = -1,  /* no random id (err) */
    TB_NOTARY_SESSION_FULL = -2,   /* no slot this client may use: try later (503) */
    TB_NOTARY_SESSION_QUOTA = -3,  /* this address holds per_addr open sessions (429) */
    TB_NOTARY_SESSION_PREFIX = -4, /* this prefix holds per_prefix open sessions (429) */
} tb_notary_session_result;

/* lim: the capacity and quotas (checked: tb_notary_limits_check); ttl_ns: lifetime
 * of an unclaimed session. */
int tb_notary_session_table_init(tb_notary_session_table *t, const tb_notary_limits *lim,
                                 uint64_t ttl_ns, tb_err *err);
void tb_notary_session_table_clear(tb_notary_session_table *t);
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

/* -------------------------------------------------------------- resolve.c
 * notary/resolve: name resolution under a deadline, with caps per client.
 *
 * getaddrinfo blocks for as long as the DNS takes (glibc: timeout x attempts
 * per name server, 10 s and more by default) and cannot be cancelled. So each
 * lookup of a name runs in a thread of its own (detached); the caller waits for
 * it with poll until its deadline or until its cancel fd is readable, and then
 * abandons it: the thread ends when getaddrinfo returns and frees what it
 * holds. A numeric address is parsed at once, without a thread.
 *
 * Caps: lookups running at once -- abandoned ones included, until their
 * getaddrinfo returns -- at most per_addr per client address, per_prefix per
 * client prefix (quota.c's keys) and max in all; beyond that a lookup is
 * refused at once (429 for a client's cap, 503 for the total), so names that
 * never resolve cost a bounded number of threads and cannot hold every worker.
 *
 * Lifetime: the resolver is reference-counted under its mutex: its owner and
 * every running lookup thread hold a reference, so tb_notary_resolver_release
 * may be called with lookups still running (the last thread out frees it). No
 * global state: the lookup function is a field (getaddrinfo by default; tests
 * pass a stand-in that blocks). */
struct addrinfo;
typedef int (*tb_notary_lookup_fn)(void *ctx, const char *host, const char *port,
                                   const struct addrinfo *hints, struct addrinfo **res);

typedef struct tb_notary_resolver_opts {
    size_t max, per_addr, per_prefix; /* lookups running at once (each >= 1) */
    tb_notary_lookup_fn lookup;       /* NULL: getaddrinfo; results freed with freeaddrinfo */
    void *ctx;
} tb_notary_resolver_opts;

typedef struct tb_notary_resolver tb_notary_resolver;

tb_notary_resolver *tb_notary_resolver_new(const tb_notary_resolver_opts *o, tb_err *err);
/* Drops the owner's reference (NULL: nothing). */
void tb_notary_resolver_release(tb_notary_resolver *r);
/* Lookups running now (abandoned ones included). */
size_t tb_notary_resolver_running(tb_notary_resolver *r);
/* Resolves host:port (TCP) for client who, waiting until deadline_ns (monotonic)
 * or until cancel_fd (-1: none) is readable. Returns 0 with *res (free with
 * freeaddrinfo), or -1 with *status 429 (this client's lookups at their cap),
 * 503 (the total cap, no thread, or cancelled), 504 (the deadline passed) or
 * 502 (the name does not resolve), and err. */
int tb_notary_resolve(tb_notary_resolver *r, const tb_notary_client *who, const char *host,
                      uint16_t port, uint64_t deadline_ns, int cancel_fd, struct addrinfo **res,
                      int *status, tb_err *err);

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

/* Resolves host:port with r for client who, under deadline_ns (the one deadline
 * of the notarization, also tb_notary_target_fetch's) and cancel_fd. Returns 0
 * with the permitted addresses, or -1 with *status 403 (no address is allowed;
 * without a lookup when no allow-list entry could match), a refusal of
 * tb_notary_resolve (429, 502, 503, 504) and err. */
int tb_notary_target_resolve(const tb_notary_target *t, tb_notary_resolver *r,
                             const tb_notary_client *who, const char *host, uint16_t port,
                             uint64_t deadline_ns, int cancel_fd, tb_notary_target_addrs *out,
                             int *status, tb_err *err);

typedef struct tb_notary_target_response {
    tb_buf response; /* the exact response bytes */
    tb_buf certs;    /* DER certificates as sent by the server, concatenated */
    size_t n_certs;
    size_t cert_off[TB_NOTARY_TARGET_MAX_CERTS], cert_len[TB_NOTARY_TARGET_MAX_CERTS];
    char address[64]; /* the address connected to, "ip:port" */
} tb_notary_target_response;

/* Fetches from the first address of addrs that accepts a connection, all of it
 * before deadline_ns (monotonic; tb_notary_target_deadline). On failure *status
 * is the HTTP status the notary should answer (422 response larger than
 * max_recv, 502 connection, TLS, certificate or HTTP failure, 503 cancelled, 504
 * the deadline passed) and err says why. cancel_fd: an fd that becomes readable
 * to abandon the fetch, or -1. Free out with tb_notary_target_response_clear
 * (also after a failure). */
int tb_notary_target_fetch(const tb_notary_target *t, const tb_notary_target_addrs *addrs,
                           const char *server_name, const uint8_t *req, size_t req_len,
                           size_t max_recv, uint64_t deadline_ns, int cancel_fd,
                           tb_notary_target_response *out, int *status, tb_err *err);
/* The deadline of a notarization that starts now: now + t->timeout_ms. */
uint64_t tb_notary_target_deadline(const tb_notary_target *t);
void tb_notary_target_response_clear(tb_notary_target_response *r);

/* --------------------------------------------------------------- client.c */

/* Builds the GET request the client sends (appends to out). Fails on a uri or
 * server name with spaces or control characters. */
int tb_notary_build_request(const char *server_name, const char *uri, tb_buf *out, tb_err *err);

#endif
