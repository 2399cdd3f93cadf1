/* notary/server: the notary HTTP service (`teebench notary serve`).
 *
 * Model: one event-loop thread (net/ev) owns the listening socket and every
 * connection: it accepts, does the TLS handshakes, reads requests as their
 * bytes arrive (net/http_req; each byte parsed once), writes replies, and
 * enforces every deadline. Cheap endpoints (GET /healthcheck, GET /info, POST
 * /session) are answered by the loop itself; each POST /notarize goes to one
 * of `concurrency` worker threads (it connects to the target, signs, quotes)
 * and comes back to the loop for its reply. So a connection costs a small
 * struct and its buffered bytes, never a thread: slow or idle clients cannot
 * starve honest ones, and the notarizations in flight cannot delay a health
 * check.
 *
 * Budgets (per connection): a request -- its TLS handshake included for the
 * first one -- must arrive whole within io_timeout_ms of its first byte (408
 * otherwise), and a reply must be taken within io_timeout_ms; a kept-alive
 * connection waits IDLE_MS for its next request, answers at most 100 requests
 * and lives at most 30 s (then "Connection: close"); an error answer closes
 * it. At max_connections, a new connection evicts the one that has waited
 * longest for a request. Memory is bounded by max_connections x (8 KiB head +
 * the largest body). Request heads are limited to 8 KiB and 32 headers,
 * bodies to what the largest allowed request needs.
 *
 * Authorization: with API keys (cfg->keys, notary/auth), POST /session and POST
 * /notarize need an `Authorization: Bearer KEY` (or bare KEY) header; a missing
 * or wrong key is 401 with a JSON error and `WWW-Authenticate: Bearer`, counted
 * in the stats, and never reaches a worker. GET /healthcheck and GET /info stay
 * open (monitoring, and the key and evidence a client verifies). The keys can be
 * swapped while running (tb_notary_server_set_keys).
 *
 * Quotas count every client by its address and by its prefix (IPv4 /24, IPv6
 * /64; notary/quota). Sessions (notary/session): at most max_sessions open,
 * sessions_per_client per address and sessions_per_prefix per prefix (429
 * beyond), and the last reserved_sessions slots only for prefixes holding fewer
 * than reserve_below sessions (503 when no slot is left for a client); unclaimed
 * ones expire after session_ttl_ns; a claimed session frees its slot at once. At
 * most notarizations_per_client / _per_prefix POST /notarize of one address /
 * prefix are queued or running at once (429 beyond, the session left unused),
 * so neither one client nor one network can hold every worker. Name
 * resolution (notary/resolve) runs under the notarization's one deadline
 * (--target-timeout) with resolutions_per_client / _per_prefix lookups in
 * flight per address / prefix and max_resolutions in all (429 / 503 beyond;
 * a lookup the notary stopped waiting for counts until it ends). A /notarize
 * refused before the target is contacted (400, 403, 404, 409, 410, 422 for the
 * request size, 429, a failed resolution) does not use the session up.
 *
 * Stop: tb_notary_server_stop stops accepting, closes idle and reading
 * connections, cancels notarizations in flight (their lookups' and targets'
 * waits end at once; they are answered 503); a notarization whose worker has
 * not handed it back within STOP_ANSWER_NS (0.5 s) is answered 503 by the loop
 * itself, whatever the worker is doing; the replies go out within 1 s, then
 * every thread is joined (lookup threads are not: they end on their own).
 *
 * API (JSON; docs/NOTARY.md): GET /healthcheck, GET /info, POST /session,
 * POST /notarize?sessionId=<32 hex>.
 *
 * Ownership: the server borrows key, tee, target and log from the config; they
 * must outlive tb_notary_server_stop. The server owns its sockets, threads and
 * session table. Nothing here prints; per-request lines go to cfg->log if set
 * (always from the loop thread). */
#ifndef TB_NOTARY_SERVER_H
#define TB_NOTARY_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "notary/auth.h"
#include "notary/evidence.h"
#include "notary/key.h"
#include "notary/target.h"

typedef struct tb_notary_config {
    const char *addr; /* listen address, e.g. "127.0.0.1" or "0.0.0.0" */
    uint16_t port;    /* 0: any free port (see tb_notary_server_port) */
    const tb_notary_key *key;
    const tb_notary_quote_source *tee; /* NULL: no TEE (tee "none") */
    const tb_notary_target *target;
    uint64_t max_sent, max_recv;     /* global limits (bytes) */
    int concurrency;                 /* notarization worker threads, 1..1024 */
    uint64_t session_ttl_ns;         /* unclaimed sessions expire (0: 10 s) */
    size_t max_sessions;             /* open sessions at once (0: 4096) */
    size_t sessions_per_client;      /* open sessions per client address (0: 64) */
    size_t sessions_per_prefix;      /* ... per client prefix (0: 4 x per client) */
    size_t reserved_sessions;        /* kept for small prefixes (0: none; see above) */
    size_t reserve_below;            /* a small prefix holds fewer (0: 8) */
    size_t notarizations_per_client; /* queued or running per address (0: concurrency / 2) */
    size_t notarizations_per_prefix; /* ... per prefix (0: as per address) */
    size_t resolutions_per_client;   /* name lookups in flight per address (0: 4) */
    size_t resolutions_per_prefix;   /* ... per prefix (0: 2 x per address) */
    size_t max_resolutions;          /* ... in all (0: concurrency / 2) */
    const tb_notary_keys *keys;      /* API keys (NULL: no authorization); borrowed */
    size_t max_connections;          /* connections at once (0: 4096, fewer if fds are short) */
    int io_timeout_ms;               /* receiving one request / sending one reply (0: 5000) */
    const char *tls_cert;            /* PEM chain: serve HTTPS (NULL: plain HTTP) */
    const char *tls_key;             /* its PEM private key (NULL: in tls_cert) */
    /* optional: called from the loop thread with one line per request */
    void (*log)(void *ctx, const char *line);
    void *log_ctx;
} tb_notary_config;

typedef struct tb_notary_server tb_notary_server;

/* Binds, listens and starts the threads. In TEE mode gets the /info quote
 * first (so a broken TEE fails here, not at the first client). */
int tb_notary_server_start(const tb_notary_config *cfg, tb_notary_server **out, tb_err *err);
uint16_t tb_notary_server_port(const tb_notary_server *s);
/* Replaces the API keys (NULL: none needed from now on) and returns the
 * previous ones, which the server no longer uses (the caller frees them). Safe
 * to call from any thread while the server runs. */
const tb_notary_keys *tb_notary_server_set_keys(tb_notary_server *s, const tb_notary_keys *keys);

/* What the server refused since it started (safe to read from any thread). */
typedef struct tb_notary_server_stats {
    uint64_t unauthorized;   /* 401: no or a wrong API key */
    uint64_t over_quota;     /* 429: a client's or a network's quota */
    uint64_t table_full;     /* 503: no session slot left for the client */
    uint64_t lookup_expired; /* 504: a name not resolved before the deadline */
} tb_notary_server_stats;
void tb_notary_server_stats_get(tb_notary_server *s, tb_notary_server_stats *out);

/* Stops (see above) and frees everything. */
void tb_notary_server_stop(tb_notary_server *s);

#endif
