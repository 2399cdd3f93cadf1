/* notary/server: the notary HTTP service (`teebench notary serve`).
 *
 * Model: one listening socket and `concurrency` worker threads; each worker
 * accepts a connection and serves its requests (kept alive while the client
 * asks and every answer is a success, at most 100, 500 ms idle), then closes
 * it. Every read and write has a deadline (io_timeout_ms for each request), so
 * a stalling client holds one worker for at most that long and the others
 * keep serving. Request heads are limited to 8 KiB and 32
 * headers, bodies to what the largest allowed request needs. With a TLS
 * certificate the notary serves HTTPS (the handshake is inside the deadline).
 *
 * API (JSON; docs/NOTARY.md): GET /healthcheck, GET /info, POST /session,
 * POST /notarize?sessionId=<32 hex>.
 *
 * Ownership: the server borrows key, tee, target and log from the config; they
 * must outlive tb_notary_server_stop. The server owns its sockets, threads and
 * session table. Nothing here prints; per-request lines go to cfg->log if set. */
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
    const tb_quote_source *tee; /* NULL: no TEE (tee "none") */
    const tb_target *target;
    uint64_t max_sent, max_recv; /* global limits (bytes) */
    int concurrency;             /* worker threads, 1..1024 */
    uint64_t session_ttl_ns;
    size_t max_sessions;
    int io_timeout_ms;    /* reading one request / writing one response */
    const char *tls_cert; /* PEM chain: serve HTTPS (NULL: plain HTTP) */
    const char *tls_key;  /* its PEM private key (NULL: in tls_cert) */
    /* optional: called (from worker threads) with one line per request */
    void (*log)(void *ctx, const char *line);
    void *log_ctx;
} tb_notary_config;

typedef struct tb_notary_server tb_notary_server;

/* Binds, listens and starts the workers. In TEE mode gets the /info quote
 * first (so a broken TEE fails here, not at the first client). */
int tb_notary_server_start(const tb_notary_config *cfg, tb_notary_server **out, tb_err *err);
uint16_t tb_notary_server_port(const tb_notary_server *s);
/* Stops accepting, waits for in-flight requests, frees everything. */
void tb_notary_server_stop(tb_notary_server *s);

#endif
