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
 * Sessions (notary/session): at most max_sessions open, sessions_per_client
 * per client address, unclaimed ones expire after session_ttl_ns; a claimed
 * session frees its slot at once. At most notarizations_per_client POST
 * /notarize of one client address are queued or running at once (429 beyond,
 * the session left unused), so one client cannot hold every worker. A /notarize refused before the
 * target is contacted (400, 403, 404, 409, 410, 422 for the request size) does not use the session
 * up.
 *
 * Stop: tb_notary_server_stop stops accepting, closes idle and reading
 * connections, cancels notarizations in flight (their targets' waits end at
 * once; they are answered 503), sends the replies it can within 1 s, then
 * joins every thread.
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
    size_t notarizations_per_client; /* queued or running per client (0: concurrency / 2) */
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
/* Stops (see above) and frees everything. */
void tb_notary_server_stop(tb_notary_server *s);

#endif
