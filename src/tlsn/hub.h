/* tlsn/hub: everything a TLSNotary session in two browsers talks to, on one
 * loopback port and one event loop (net/ev): the static files of the pages and
 * of tlsn-wasm, the relay that pairs prover and verifier, the WebSocket-to-TCP
 * proxy to the one target, and the pages' own endpoint (/api/...).
 *
 * Paths (S: the session id given in the configuration; anything else is 404):
 *   GET  /<file>                        a file added with tb_tlsn_hub_add_file
 *   GET  /relay/S/<channel>/<role>      WebSocket; channel "mpc" or "tee", role
 *                                       "prover" or "verifier"
 *   GET  /proxy/S                       WebSocket whose binary frames are the raw
 *                                       TCP stream to the configured target
 *   POST /api/<name>                    body (JSON, at most 4 MiB) to the api callback
 * Every response carries Cross-Origin-Opener-Policy: same-origin,
 * Cross-Origin-Embedder-Policy: require-corp and Cross-Origin-Resource-Policy:
 * same-origin (shared WebAssembly memory needs a cross-origin isolated page, and
 * its workers and module scripts the same headers), Cache-Control: no-store.
 *
 * The relay: the first connection of a (channel, role) waits for one of the other
 * role on the same channel; until then its frames are kept, in order, and handed
 * to the partner when it arrives (up to max_pending bytes: more is refused with
 * close code 1009). Paired, each data frame is forwarded as it came (opcode, FIN),
 * unmasked, in order. Frames over max_frame are refused with 1009; a protocol
 * violation with 1002. When one side closes or goes, the other gets what was
 * already queued for it and then a close frame (1001, "peer gone"). A side that
 * goes before it is paired is forgotten (its queued frames with it) and noted.
 * Reading from a side stops while more than max_pending bytes wait for its peer
 * (backpressure) and resumes when they fall under half of that.
 *
 * The proxy: each connection to /proxy/S opens one TCP connection to the target;
 * data frames' payloads go to the target, the target's bytes come back as binary
 * frames. A target that refuses, or closes, closes the WebSocket (1011 with the
 * reason, or 1000) after what was already read is delivered; every such event is
 * noted.
 *
 * Counters (tb_tlsn_hub_stats) count payload bytes per direction. Notes are one
 * line each through the note callback. The hub runs inside its caller's loop
 * (tb_tlsn_hub_loop, tb_ev_run): it starts no thread. Nothing here prints.
 *
 * Ownership: tb_tlsn_hub_new allocates; tb_tlsn_hub_free closes every connection
 * and frees it. Files added are referenced, not copied: the caller keeps them
 * until the hub is freed. */
#ifndef TB_TLSN_HUB_H
#define TB_TLSN_HUB_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "net/ev.h"

#define TB_TLSN_HUB_API_MAX (4u << 20)

enum { TB_TLSN_MPC = 0, TB_TLSN_TEE = 1, TB_TLSN_CHANNELS };
enum { TB_TLSN_PROVER = 0, TB_TLSN_VERIFIER = 1, TB_TLSN_ROLES };

/* POST /api/<name>: fills resp (JSON text) and returns 0 for 200, or -1 with err
 * for 400 (the body is then {"error": err}). */
typedef int (*tb_tlsn_api_fn)(void *ctx, const char *name, const uint8_t *body, size_t len,
                              tb_buf *resp, tb_err *err);
typedef void (*tb_tlsn_note_fn)(void *ctx, const char *line);

typedef struct tb_tlsn_hub_config {
    const char *host;        /* the listening address ("127.0.0.1") */
    int port;                /* 0: any free port */
    const char *session;     /* the id in relay and proxy paths: [0-9a-f]{1,64} */
    const char *target_host; /* the proxy's one target */
    const char *target_port;
    uint64_t max_frame;   /* a frame's payload; 0: 16 MiB */
    size_t max_pending;   /* bytes queued for one side; 0: 256 MiB */
    tb_tlsn_api_fn api;   /* NULL: /api/ is 404 */
    tb_tlsn_note_fn note; /* may be NULL */
    void *ctx;
} tb_tlsn_hub_config;

typedef struct tb_tlsn_hub_stats {
    /* payload bytes on each relay channel: [channel][from role] */
    uint64_t relay_bytes[TB_TLSN_CHANNELS][TB_TLSN_ROLES];
    int connected[TB_TLSN_CHANNELS][TB_TLSN_ROLES]; /* connections seen */
    int paired[TB_TLSN_CHANNELS];                   /* pairs made */
    uint64_t proxy_to_target, proxy_from_target;    /* payload bytes */
    int proxy_connections;
    int proxy_failures; /* target refused or unreachable */
    uint64_t http_requests;
} tb_tlsn_hub_stats;

typedef struct tb_tlsn_hub tb_tlsn_hub;

/* Listens on host:port (a new event loop for up to 1024 fds). */
int tb_tlsn_hub_new(const tb_tlsn_hub_config *c, tb_tlsn_hub **out, tb_err *err);
void tb_tlsn_hub_free(tb_tlsn_hub *h);
int tb_tlsn_hub_port(const tb_tlsn_hub *h);
tb_ev_loop *tb_tlsn_hub_loop(tb_tlsn_hub *h);
/* Serves data at "/<path>" with Content-Type type (path without the leading '/'). */
int tb_tlsn_hub_add_file(tb_tlsn_hub *h, const char *path, const char *type, const uint8_t *data,
                         size_t len, tb_err *err);
void tb_tlsn_hub_stats_get(const tb_tlsn_hub *h, tb_tlsn_hub_stats *out);

/* The Content-Type teebench serves a file name with: .html, .js, .wasm, .json, .css;
 * application/octet-stream otherwise. */
const char *tb_tlsn_content_type(const char *name);

#endif
