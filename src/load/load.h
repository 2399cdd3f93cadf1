/* load: the HTTP/1.1 load generator engine behind `teebench http`.
 *
 * Threads each run their own event loop (net/ev) over their own connections
 * (connections / threads each, the remainder spread over the first threads);
 * nothing is shared on the hot path: every thread records into its own
 * histograms and counters, merged after the threads are joined.
 *
 * Modes:
 * - closed loop (rate == 0), like wrk: each connection sends its next request as
 *   soon as the previous response is complete (no pipelining). Latency = response
 *   complete - request sent.
 * - constant rate (rate > 0 requests/s in total), like wrk2: connection i of a
 *   thread has a schedule of intended send times, one every connections/rate s,
 *   staggered over the connections. A request is sent at its intended time, or,
 *   if the connection is still busy then, as soon as it is free. `latency` is
 *   measured from the intended time (coordinated-omission corrected),
 *   `latency_uncorrected` from the actual send time.
 *
 * At the end of the duration (or when *stop_flag becomes non-zero; checked every
 * 100 ms) no new request is sent; responses still in flight are awaited for up
 * to drain_ns (counted as `drained`, not as `completed`), then the threads stop.
 * Accounting: sent = completed + drained + failed + unfinished (unfinished: still
 * in flight when the drain ended, counted before the sockets are closed).
 * The clock starts before the connections are opened, as wrk's does; setup_ns says
 * how long establishing them all took (with tens of thousands of connections that
 * can be much of the run, and the caller should say so).
 *
 * Hot path: the request bytes are precomputed by the caller and written with one
 * write per request; responses are read into one fixed buffer per thread and
 * parsed in place (net/http_resp); no allocation and no epoll_ctl per request.
 *
 * Ownership: the caller owns everything in tb_load_opts (request bytes, TLS ctx)
 * for the duration of tb_load_run; tb_load_run fills a tb_load_result whose
 * histograms the caller frees with tb_load_result_clear. */
#ifndef TB_LOAD_LOAD_H
#define TB_LOAD_LOAD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "net/http_resp.h"
#include "net/sock.h"
#include "net/tls.h"
#include "stats/hist.h"

/* Per-request hooks (wrk's Lua scripts, load/script.h); each optional. They run on
 * the thread's own event loop with that thread's ctx[i], so a hook never runs
 * concurrently with itself. A hook returns -1 to end the run (the caller keeps
 * the reason); stopped(ctx) != 0 ends the thread's run early (wrk's thread:stop()).
 * With hooks, the request bytes are copied per connection (a per-connection buffer
 * reused from one request to the next). */
typedef struct tb_load_hooks {
    void *const *ctx; /* one per thread */
    /* the next request's bytes (valid until the next call on this ctx) */
    int (*request)(void *ctx, const uint8_t **req, size_t *len);
    /* a complete response: its raw bytes as read (status line, headers, body framing) */
    int (*response)(void *ctx, const tb_http_resp *p, const uint8_t *raw, size_t len);
    /* closed loop: milliseconds to wait before each request */
    int (*delay_ms)(void *ctx, uint64_t *ms);
    int (*stopped)(void *ctx);
} tb_load_hooks;

typedef struct tb_load_opts {
    tb_addr addr;           /* where to connect */
    tb_tls_ctx *tls;        /* NULL for plain HTTP */
    const char *sni;        /* TLS server name (and verified name), may be NULL */
    const uint8_t *request; /* the complete request bytes, sent as is (may hold several
                               requests: wrk's pipelining, see pipeline) */
    size_t request_len;
    uint32_t pipeline;          /* requests in each request string (0 = 1); the latency of a batch
                                   is recorded at its last response, as wrk does */
    const tb_load_hooks *hooks; /* NULL: none */
    uint32_t threads;
    uint32_t connections; /* >= threads */
    uint64_t duration_ns;
    uint64_t timeout_ns; /* a response later than this is a timeout error (never aborted);
                            a connect or TLS handshake taking longer fails */
    uint64_t drain_ns;   /* how long to await in-flight responses at the end */
    double rate;         /* total requests/s; 0 = closed loop */
    const volatile sig_atomic_t *stop_flag; /* optional early stop (e.g. SIGINT) */
} tb_load_opts;

typedef struct tb_load_errors {
    uint64_t connect; /* connects (or TLS handshakes) that failed */
    uint64_t read;    /* read failures, malformed responses, closes mid-response */
    uint64_t write;   /* write failures */
    uint64_t timeout; /* responses within the run that took longer than timeout_ns (wrk) */
    uint64_t status;  /* responses within the run with status >= 400 (wrk's "Non-2xx or 3xx") */
} tb_load_errors;

typedef struct tb_load_result {
    uint64_t sent;            /* requests whose write began */
    uint64_t completed;       /* responses completed within the duration */
    uint64_t drained;         /* responses completed after the end, while draining */
    uint64_t failed;          /* requests lost to a read/write error */
    uint64_t unfinished;      /* requests still in flight when the drain ended */
    uint64_t bytes;           /* bytes read within the duration (headers and bodies) */
    uint64_t connects;        /* connections established */
    uint64_t status_class[6]; /* completed + drained responses by status class: [1]=1xx ..
                                 [5]=5xx, [0]=other */
    tb_load_errors errors;
    uint64_t runtime_ns;     /* start to the end of the duration (or early stop) */
    uint64_t setup_ns;       /* start until every connection had been established once (the
                                runtime when some never were): time the run spent connecting */
    uint64_t connections_up; /* connections established at least once (<= connections) */
    bool stopped_early;
    bool hook_failed; /* a hook returned -1: the run was ended (the hook's owner says why) */
    tb_hist latency;  /* ns; in rate mode from the intended send time */
    tb_hist latency_uncorrected;  /* ns; from the actual send time (rate mode only) */
    tb_hist rate;                 /* per-thread requests/s, one sample per 100 ms (wrk's Req/Sec) */
    char first_error[TB_ERR_MAX]; /* the first connect/read/write error message, "" if none */
} tb_load_result;

/* Runs the load. Returns 0 (the run happened; errors are counted in r), or -1
 * with err when it could not start (bad options, out of memory, threads). */
int tb_load_run(const tb_load_opts *o, tb_load_result *r, tb_err *err);
void tb_load_result_clear(tb_load_result *r);

#endif
