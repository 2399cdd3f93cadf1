/* server: the fixture server -- N threads, each with its own epoll loop
 * (net/ev), its own listening socket (SO_REUSEPORT when N > 1) and its own
 * connections, answering HTTP/1.1 (keep-alive, pipelining) over plain TCP or
 * TLS (net/tls) from a shared, read-only tb_site (serve/routes).
 *
 * Per-request work allocates nothing: each connection has a fixed input buffer
 * and the replies are prebuilt (connection structs are recycled through a
 * per-thread free list, so even a new connection usually allocates only its
 * TLS session). Each thread counts what it served by route and status in its
 * own tb_counts; tb_server_counts merges them once the threads have stopped.
 * A request counts as served when its whole response has been written.
 * Idle connections (no byte read or written for idle_timeout_s, checked once a
 * second against a per-thread tick, so the hot path reads no clock) are closed.
 *
 * Lifecycle: tb_server_new binds the listening sockets (so "port in use" is
 * reported before anything runs), tb_server_start starts the threads,
 * tb_server_stop asks them to finish (async-signal-safe: it writes an eventfd),
 * tb_server_join waits for them and closes every connection, tb_server_free
 * releases everything. The site and the TLS context belong to the caller and
 * must outlive the server. */
#ifndef TB_SERVE_SERVER_H
#define TB_SERVE_SERVER_H

#include <stdint.h>

#include "base/err.h"
#include "net/tls.h"
#include "serve/routes.h"

#define TB_SERVER_MAX_THREADS 256
#define TB_SERVER_INBUF 8192 /* per connection: the largest request head */

typedef struct tb_server_opts {
    const char *addr;   /* e.g. "127.0.0.1" or "0.0.0.0" */
    const char *port;   /* decimal; "0" picks a free port (see tb_server_port) */
    int threads;        /* 1..TB_SERVER_MAX_THREADS */
    tb_tls_ctx *tls;    /* NULL: plain HTTP */
    int max_fds;        /* per thread: the largest fd + 1 it serves (0: 65536) */
    int idle_timeout_s; /* close connections without progress for this long (0: never) */
} tb_server_opts;

typedef struct tb_server tb_server;

/* Binds the listening sockets. Returns NULL with err (bad address, port in use). */
tb_server *tb_server_new(const tb_server_opts *o, const tb_site *site, tb_err *err);
/* The port actually bound. */
int tb_server_port(const tb_server *s);
/* Starts the threads. */
int tb_server_start(tb_server *s, tb_err *err);
/* Asks the threads to stop; safe in a signal handler and from any thread. */
void tb_server_stop(tb_server *s);
/* 1 if a thread stopped on a fatal error (then tb_server_join reports it). */
int tb_server_failed(const tb_server *s);
/* Waits for the threads; returns 0, or -1 with the first thread error. */
int tb_server_join(tb_server *s, tb_err *err);
/* The merged counters (call after tb_server_join). */
void tb_server_counts(const tb_server *s, tb_counts *out);
void tb_server_free(tb_server *s);

#endif
