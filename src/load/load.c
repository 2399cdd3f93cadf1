/* load: the load generator engine. See load.h for the model.
 *
 * Connection states: IDLE (no socket; maybe a reconnect timer pending),
 * CONNECTING (TCP connect in progress, watching writable), HANDSHAKE (TLS),
 * READY (connected, no request in flight; in rate mode maybe a send timer
 * pending), BUSY (a request is being written or its response awaited).
 * Invariants: in_flight == number of BUSY connections; a connection has at most
 * one pending timer (c->timer); a READY/BUSY connection always watches readable. */
#include "load/load.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/clock.h"
#include "net/ev.h"
#include "net/http_resp.h"

#define RECVBUF (64 * 1024)
#define TICK_NS UINT64_C(100000000)          /* rate samples, timeouts, stop flag */
#define RECONNECT_DELAY_NS UINT64_C(1000000) /* after a failed connect */

enum { C_IDLE, C_CONNECTING, C_HANDSHAKE, C_READY, C_BUSY };

struct thread;

struct conn {
    struct thread *t;
    tb_sock s;
    int state;
    size_t written;
    uint64_t intended; /* when the current request should have been sent */
    uint64_t sent_at;  /* when it was sent */
    uint64_t connect_at;
    uint64_t next_intended; /* rate mode: the next slot of this connection's schedule */
    uint64_t timer;
    bool was_up;         /* has been READY at least once (set-up accounting) */
    uint32_t pending;    /* responses still due for the request string in flight */
    const uint8_t *reqp; /* the request string in flight (opts, or req below) */
    size_t reqlen;
    tb_buf req; /* hooks: this connection's copy of the request string */
    tb_buf raw; /* hooks with a response hook: the current response's bytes */
    tb_http_resp p;
};

struct run {
    const tb_load_opts *o;
    struct thread *threads;
    uint64_t start;
    volatile sig_atomic_t abort_run;
};

struct thread {
    struct run *run;
    const tb_load_opts *o;
    tb_ev_loop *loop;
    struct conn *cs;
    uint32_t nconns;
    uint32_t first_conn; /* global index of cs[0] */
    uint8_t *buf;
    uint64_t deadline, end_ns, interval_ns;
    bool stopping, stopped_early;
    uint64_t in_flight;
    uint64_t unfinished; /* in_flight when the loop ended, before the sockets close */
    uint32_t up;         /* connections that were READY at least once */
    uint64_t setup_end;  /* when the last of them first became READY (0: not all did) */
    uint64_t sent, completed, drained, failed, bytes, connects;
    uint64_t status_class[6];
    tb_load_errors errors;
    uint64_t sample_requests, sample_start;
    tb_hist lat, ulat, rate;
    char first_error[TB_ERR_MAX];
    int loop_failed;
    tb_err loop_err;
    const tb_load_hooks *hooks;
    void *hctx;
    uint32_t pipeline;
    bool hook_failed;
    pthread_t tid;
};

static void conn_open(struct conn *c);
static void on_writable(tb_ev_loop *l, int fd, void *data, int mask);
static void on_readable(tb_ev_loop *l, int fd, void *data, int mask);

static void note_error(struct thread *t, const char *msg)
{
    if (!t->first_error[0] && msg && *msg)
        snprintf(t->first_error, sizeof t->first_error, "%s", msg);
}

static void cancel_timer(struct conn *c)
{
    if (c->timer) {
        tb_ev_timer_del(c->t->loop, c->timer);
        c->timer = 0;
    }
}

static void maybe_finish(struct thread *t)
{
    if (t->stopping && t->in_flight == 0)
        tb_ev_stop(t->loop);
}

static void conn_close(struct conn *c)
{
    cancel_timer(c);
    if (c->state != C_IDLE) {
        tb_ev_del(c->t->loop, c->s.fd, TB_EV_READABLE | TB_EV_WRITABLE);
        c->s.ops->close(&c->s);
    }
    if (c->state == C_BUSY)
        c->t->in_flight--;
    c->state = C_IDLE;
}

/* The request in flight (if any) is lost; the connection is replaced. */
static void conn_fail(struct conn *c)
{
    struct thread *t = c->t;
    if (c->state == C_BUSY)
        t->failed += c->pending;
    conn_close(c);
    if (!t->stopping)
        conn_open(c);
    maybe_finish(t);
}

static int64_t on_reconnect_timer(tb_ev_loop *l, uint64_t id, void *data)
{
    struct conn *c = data;
    c->timer = 0;
    if (!c->t->stopping)
        conn_open(c);
    return TB_EV_NOMORE;
}

static void connect_failed(struct conn *c, const char *msg)
{
    struct thread *t = c->t;
    t->errors.connect++;
    note_error(t, msg);
    conn_close(c);
    if (!t->stopping)
        c->timer = tb_ev_timer_add(t->loop, RECONNECT_DELAY_NS, on_reconnect_timer, c);
}

static void do_write(struct conn *c)
{
    while (c->written < c->reqlen) {
        size_t n = 0;
        tb_sock_status st =
            c->s.ops->write(&c->s, c->reqp + c->written, c->reqlen - c->written, &n);
        if (st == TB_SOCK_OK) {
            c->written += n;
            continue;
        }
        if (st == TB_SOCK_RETRY) {
            if (tb_ev_add(c->t->loop, c->s.fd, TB_EV_WRITABLE, on_writable, c, NULL) == 0)
                return;
        }
        c->t->errors.write++;
        note_error(c->t, c->s.err.msg);
        conn_fail(c);
        return;
    }
    if (tb_ev_mask(c->t->loop, c->s.fd) & TB_EV_WRITABLE)
        tb_ev_del(c->t->loop, c->s.fd, TB_EV_WRITABLE);
}

static void begin_stop(struct thread *t, uint64_t now);

/* A hook failed or asked to stop: no new request on this thread; a failure ends the
 * other threads too. Returns -1 when the caller must not go on. */
static int hook_result(struct thread *t, int rc)
{
    if (rc < 0) {
        t->hook_failed = true;
        __atomic_store_n(&t->run->abort_run, 1, __ATOMIC_RELAXED);
        begin_stop(t, tb_mono_ns());
        return -1;
    }
    if (t->hooks->stopped && t->hooks->stopped(t->hctx)) {
        t->stopped_early = true;
        begin_stop(t, tb_mono_ns());
        return -1;
    }
    return 0;
}

static void send_request(struct conn *c, uint64_t intended, uint64_t now)
{
    struct thread *t = c->t;
    if (t->hooks && t->hooks->request) {
        const uint8_t *q;
        size_t n;
        int rc = t->hooks->request(t->hctx, &q, &n);
        if (rc == 0 && (n == 0 || tb_buf_reserve(&c->req, n) < 0))
            rc = -1;
        if (rc == 0) {
            c->req.len = 0;
            tb_buf_append(&c->req, q, n);
        }
        if (hook_result(t, rc) < 0)
            return;
        c->reqp = c->req.p;
        c->reqlen = c->req.len;
        now = tb_mono_ns(); /* the hook's time is not the server's */
        if (!t->interval_ns)
            intended = now;
    }
    c->pending = t->pipeline;
    c->raw.len = 0; /* a response cut short by a reconnect leaves nothing behind */
    c->state = C_BUSY;
    c->intended = intended;
    c->sent_at = now;
    c->written = 0;
    tb_http_resp_init(&c->p);
    t->sent += t->pipeline;
    t->in_flight++;
    if (t->interval_ns)
        c->next_intended += t->interval_ns;
    do_write(c);
}

static int64_t on_send_timer(tb_ev_loop *l, uint64_t id, void *data)
{
    struct conn *c = data;
    c->timer = 0;
    if (c->state == C_READY && !c->t->stopping)
        send_request(c, c->next_intended, tb_mono_ns());
    return TB_EV_NOMORE;
}

static int64_t on_delay_timer(tb_ev_loop *l, uint64_t id, void *data)
{
    struct conn *c = data;
    c->timer = 0;
    if (c->state == C_READY && !c->t->stopping) {
        uint64_t now = tb_mono_ns();
        send_request(c, now, now);
    }
    return TB_EV_NOMORE;
}

/* The connection is free: send now (closed loop, after the script's delay) or at its
 * next slot (rate). */
static void next_request(struct conn *c, uint64_t now)
{
    struct thread *t = c->t;
    if (t->stopping)
        return;
    if (!t->interval_ns && t->hooks && t->hooks->delay_ms) {
        uint64_t ms = 0;
        if (hook_result(t, t->hooks->delay_ms(t->hctx, &ms)) < 0)
            return;
        if (ms > 0) {
            c->timer = tb_ev_timer_add(t->loop, ms * 1000000ULL, on_delay_timer, c);
            if (c->timer)
                return;
        }
    }
    if (!t->interval_ns) {
        send_request(c, now, now);
    } else if (c->next_intended <= now) {
        send_request(c, c->next_intended, now);
    } else {
        c->timer = tb_ev_timer_at(t->loop, c->next_intended, on_send_timer, c);
        if (!c->timer) /* cannot happen: one timer per connection is reserved */
            send_request(c, c->next_intended, now);
    }
}

static void do_handshake(struct conn *c)
{
    struct thread *t = c->t;
    tb_sock_status st = c->s.ops->handshake(&c->s);
    if (st == TB_SOCK_ERROR) {
        connect_failed(c, c->s.err.msg);
        return;
    }
    int want = st == TB_SOCK_OK ? TB_EV_READABLE : c->s.want;
    int other = want == TB_EV_READABLE ? TB_EV_WRITABLE : TB_EV_READABLE;
    tb_ev_del(t->loop, c->s.fd, other);
    if (tb_ev_add(t->loop, c->s.fd, want, want == TB_EV_READABLE ? on_readable : on_writable, c,
                  NULL) < 0) {
        connect_failed(c, "event loop registration failed");
        return;
    }
    if (st == TB_SOCK_OK) {
        uint64_t now = tb_mono_ns();
        t->connects++;
        c->state = C_READY;
        if (!c->was_up) {
            c->was_up = true;
            if (++t->up == t->nconns)
                t->setup_end = now;
        }
        next_request(c, now);
    }
}

static void on_connected(struct conn *c)
{
    struct thread *t = c->t;
    tb_err e;
    int fd = c->s.fd;
    if (tb_sock_connect_result(fd, &e) < 0) {
        connect_failed(c, e.msg);
        return;
    }
    if (t->o->tls) {
        tb_ev_del(t->loop, fd, TB_EV_READABLE | TB_EV_WRITABLE);
        if (tb_tls_sock_init_client(&c->s, t->o->tls, fd, t->o->sni, &e) < 0) {
            c->state = C_IDLE; /* the fd is closed already */
            c->s.fd = -1;
            t->errors.connect++;
            note_error(t, e.msg);
            if (!t->stopping)
                c->timer = tb_ev_timer_add(t->loop, RECONNECT_DELAY_NS, on_reconnect_timer, c);
            return;
        }
    }
    c->state = C_HANDSHAKE;
    do_handshake(c);
}

static void on_writable(tb_ev_loop *l, int fd, void *data, int mask)
{
    struct conn *c = data;
    if (c->state == C_CONNECTING)
        on_connected(c);
    else if (c->state == C_HANDSHAKE)
        do_handshake(c);
    else if (c->state == C_BUSY)
        do_write(c);
    else
        tb_ev_del(l, fd, TB_EV_WRITABLE);
}

static void conn_open(struct conn *c)
{
    struct thread *t = c->t;
    tb_err e;
    int fd;
    if (tb_sock_connect_start(&t->o->addr, &fd, &e) < 0) {
        t->errors.connect++;
        note_error(t, e.msg);
        c->timer = tb_ev_timer_add(t->loop, RECONNECT_DELAY_NS, on_reconnect_timer, c);
        return;
    }
    tb_sock_init_plain(&c->s, fd);
    c->state = C_CONNECTING;
    c->connect_at = tb_mono_ns();
    if (tb_ev_add(t->loop, fd, TB_EV_WRITABLE, on_writable, c, &e) < 0)
        connect_failed(c, e.msg);
}

/* A response is complete. As in wrk, a request is never abandoned for being slow:
 * a response that took longer than the timeout counts as a timeout error when it
 * arrives (and as completed; its latency is recorded as it was). Error counters
 * (status, timeout) and latencies only count responses within the run, so they
 * never exceed `completed`. */
/* A response is complete. As in wrk, a request is never abandoned for being slow:
 * a response that took longer than the timeout counts as a timeout error when it
 * arrives (and as completed; its latency is recorded as it was). Error counters
 * (status, timeout) and latencies only count responses within the run, so they
 * never exceed `completed`. With pipelining (several requests per string) every
 * response counts, the latency and the timeout only at the last of the batch (wrk).
 * Returns -1 when a hook ended the run. */
static int response_done(struct conn *c, uint64_t now)
{
    struct thread *t = c->t;
    int st = c->p.status;
    bool last = --c->pending == 0;
    t->status_class[st >= 100 && st < 600 ? st / 100 : 0]++;
    if (last) {
        c->state = C_READY;
        t->in_flight--;
    }
    bool draining = t->stopping; /* before the hook, which may stop the thread */
    int rc = 0;
    if (t->hooks && t->hooks->response) {
        rc = hook_result(t, t->hooks->response(t->hctx, &c->p, c->raw.p, c->raw.len));
        c->raw.len = 0;
    }
    if (draining) {
        t->drained++;
        return rc;
    }
    if (st > 399)
        t->errors.status++;
    t->completed++;
    t->sample_requests++;
    if (!last)
        return rc;
    if (now - c->sent_at > t->o->timeout_ns)
        t->errors.timeout++;
    tb_hist_record(&t->lat, now - c->intended);
    if (t->interval_ns)
        tb_hist_record(&t->ulat, now - c->sent_at);
    return rc;
}

static void read_failed(struct conn *c, const char *why)
{
    c->t->errors.read++;
    note_error(c->t, why);
    conn_fail(c);
}

/* Parses n bytes of c's stream (several responses when the request string held
 * several requests). Returns 0 to keep reading, -1 when the connection was
 * replaced (or the next request sent: nothing more to read now). */
static int consume(struct conn *c, const uint8_t *buf, size_t n)
{
    struct thread *t = c->t;
    bool capture = t->hooks && t->hooks->response;
    for (;;) {
        if (c->state != C_BUSY) {
            read_failed(c, "response bytes without a request");
            return -1;
        }
        size_t used = 0;
        int rc = tb_http_resp_feed(&c->p, buf, n, &used);
        if (rc == TB_HTTP_ERROR) {
            read_failed(c, c->p.error);
            return -1;
        }
        if (capture && tb_buf_append(&c->raw, buf, used) < 0) {
            read_failed(c, "out of memory keeping the response for the script");
            return -1;
        }
        if (rc == TB_HTTP_MORE)
            return 0;
        uint64_t now = tb_mono_ns();
        bool keep = c->p.keep_alive, last = c->pending == 1;
        response_done(c, now); /* a hook that ends the run has begun the stop */
        buf += used;
        n -= used;
        if (!last) { /* more responses due for this request string */
            if (!keep) {
                read_failed(c, "the server closed with pipelined responses due");
                return -1;
            }
            tb_http_resp_init(&c->p);
            if (n == 0)
                return 0;
            continue;
        }
        if (n > 0) {
            read_failed(c, "bytes after the end of a response");
            return -1;
        }
        if (!keep) {
            conn_close(c);
            if (!t->stopping)
                conn_open(c);
            maybe_finish(t);
            return -1;
        }
        maybe_finish(t);
        next_request(c, now);
        return -1;
    }
}

static void on_eof(struct conn *c)
{
    struct thread *t = c->t;
    if (c->state == C_BUSY) {
        if (tb_http_resp_eof(&c->p) == TB_HTTP_DONE) {
            response_done(c, tb_mono_ns());
            if (c->state == C_BUSY) {
                read_failed(c, "the server closed with pipelined responses due");
                return;
            }
        } else {
            read_failed(c, c->p.error);
            return;
        }
    }
    conn_close(c);
    if (!t->stopping)
        conn_open(c);
    maybe_finish(t);
}

static void on_readable(tb_ev_loop *l, int fd, void *data, int mask)
{
    struct conn *c = data;
    struct thread *t = c->t;
    if (c->state == C_HANDSHAKE) {
        do_handshake(c);
        return;
    }
    for (;;) {
        size_t n = 0;
        tb_sock_status st = c->s.ops->read(&c->s, t->buf, RECVBUF, &n);
        if (st == TB_SOCK_RETRY)
            return;
        if (st == TB_SOCK_ERROR) {
            read_failed(c, c->s.err.msg);
            return;
        }
        if (n == 0) {
            on_eof(c);
            return;
        }
        if (!t->stopping)
            t->bytes += n;
        if (consume(c, t->buf, n) < 0)
            return;
        if (n < RECVBUF && !(c->s.ssl && c->s.ops->readable(&c->s)))
            return;
    }
}

static void begin_stop(struct thread *t, uint64_t now)
{
    if (t->stopping)
        return;
    t->stopping = true;
    t->end_ns = now;
    for (uint32_t i = 0; i < t->nconns; i++) {
        struct conn *c = &t->cs[i];
        if (c->state != C_BUSY)
            conn_close(c); /* pending send/reconnect timers and idle sockets go */
    }
    maybe_finish(t);
}

static int64_t on_deadline(tb_ev_loop *l, uint64_t id, void *data)
{
    struct thread *t = data;
    begin_stop(t, tb_mono_ns());
    return TB_EV_NOMORE;
}

static int64_t on_tick(tb_ev_loop *l, uint64_t id, void *data)
{
    struct thread *t = data;
    uint64_t now = tb_mono_ns();
    if (t->stopping) {
        if (now >= t->end_ns + t->o->drain_ns)
            tb_ev_stop(l);
        return (int64_t)TICK_NS;
    }
    if (t->sample_requests > 0) { /* wrk's record_rate: requests per elapsed ms */
        uint64_t elapsed_ms = (now - t->sample_start) / 1000000;
        if (elapsed_ms > 0)
            tb_hist_record(&t->rate,
                           (uint64_t)((double)t->sample_requests / (double)elapsed_ms * 1000.0));
        t->sample_requests = 0;
        t->sample_start = now;
    }
    for (uint32_t i = 0; i < t->nconns; i++) {
        struct conn *c = &t->cs[i];
        /* a BUSY connection waits for its response however long it takes (wrk) */
        if ((c->state == C_CONNECTING || c->state == C_HANDSHAKE) &&
            now - c->connect_at > t->o->timeout_ns) {
            connect_failed(c, "connect timed out");
        }
    }
    /* atomic loads: the flags are written by another thread (or a signal handler in it) */
    if ((t->o->stop_flag && __atomic_load_n(t->o->stop_flag, __ATOMIC_RELAXED)) ||
        __atomic_load_n(&t->run->abort_run, __ATOMIC_RELAXED)) {
        t->stopped_early = true;
        begin_stop(t, now);
    }
    return (int64_t)TICK_NS;
}

static void *thread_main(void *arg)
{
    struct thread *t = arg;
    uint64_t start = t->run->start;
    t->sample_start = tb_mono_ns();
    for (uint32_t i = 0; i < t->nconns; i++) {
        struct conn *c = &t->cs[i];
        c->t = t;
        c->s.fd = -1;
        c->state = C_IDLE;
        c->reqp = t->o->request;
        c->reqlen = t->o->request_len;
        if (t->interval_ns) /* stagger the connections' schedules over one interval */
            c->next_intended = start + (uint64_t)((double)t->interval_ns * (t->first_conn + i) /
                                                  t->o->connections);
        conn_open(c);
    }
    tb_ev_timer_at(t->loop, t->deadline, on_deadline, t);
    tb_ev_timer_add(t->loop, TICK_NS, on_tick, t);
    if (tb_ev_run(t->loop, &t->loop_err) < 0)
        t->loop_failed = 1;
    if (!t->stopping)
        t->end_ns = tb_mono_ns();
    for (uint32_t i = 0; i < t->nconns; i++) /* before closing them zeroes in_flight */
        if (t->cs[i].state == C_BUSY)
            t->unfinished += t->cs[i].pending;
    for (uint32_t i = 0; i < t->nconns; i++)
        conn_close(&t->cs[i]);
    return NULL;
}

static void thread_free(struct thread *t)
{
    for (uint32_t i = 0; t->cs && i < t->nconns; i++) {
        tb_buf_clear(&t->cs[i].req);
        tb_buf_clear(&t->cs[i].raw);
    }
    tb_ev_free(t->loop);
    free(t->cs);
    free(t->buf);
    tb_hist_free(&t->lat);
    tb_hist_free(&t->ulat);
    tb_hist_free(&t->rate);
}

static int thread_init(struct thread *t, struct run *run, uint32_t nconns, uint32_t first,
                       tb_err *err)
{
    const tb_load_opts *o = run->o;
    t->run = run;
    t->o = o;
    t->nconns = nconns;
    t->first_conn = first;
    t->deadline = run->start + o->duration_ns;
    t->hooks = o->hooks;
    t->hctx = o->hooks ? o->hooks->ctx[t - run->threads] : NULL;
    t->pipeline = o->pipeline ? o->pipeline : 1;
    if (o->rate > 0)
        t->interval_ns = (uint64_t)((double)o->connections / o->rate * 1e9);
    if (o->rate > 0 && t->interval_ns == 0)
        t->interval_ns = 1;
    t->cs = calloc(nconns, sizeof *t->cs);
    t->buf = malloc(RECVBUF);
    /* fds are process-wide: room for every connection of every thread plus slack */
    t->loop = tb_ev_new((int)o->connections * 2 + (int)o->threads * 2 + 256, (int)nconns + 4, err);
    if (!t->cs || !t->buf || !t->loop)
        return t->loop ? tb_errf(err, "load: out of memory") : -1;
    if (tb_hist_init(&t->lat, TB_HIST_DEFAULT_MAX, err) < 0 ||
        tb_hist_init(&t->ulat, TB_HIST_DEFAULT_MAX, err) < 0 ||
        tb_hist_init(&t->rate, TB_HIST_DEFAULT_MAX, err) < 0)
        return -1;
    return 0;
}

static int check_opts(const tb_load_opts *o, tb_err *err)
{
    if (o->threads == 0 || o->connections == 0)
        return tb_errf(err, "threads and connections must be > 0");
    if (o->connections < o->threads)
        return tb_errf(err, "number of connections must be >= threads");
    if (o->connections > 1000000)
        return tb_errf(err, "too many connections (%u)", o->connections);
    if (!o->request || o->request_len == 0)
        return tb_errf(err, "no request to send");
    if (o->duration_ns == 0)
        return tb_errf(err, "duration must be > 0");
    if (o->rate < 0)
        return tb_errf(err, "rate must be >= 0");
    return 0;
}

static void merge(tb_load_result *r, struct thread *t, uint64_t start)
{
    r->sent += t->sent;
    r->completed += t->completed;
    r->drained += t->drained;
    r->failed += t->failed;
    r->unfinished += t->unfinished;
    r->connections_up += t->up;
    uint64_t setup = t->setup_end ? t->setup_end - start : t->end_ns - start;
    if (setup > r->setup_ns)
        r->setup_ns = setup;
    r->bytes += t->bytes;
    r->connects += t->connects;
    for (int k = 0; k < 6; k++)
        r->status_class[k] += t->status_class[k];
    r->errors.connect += t->errors.connect;
    r->errors.read += t->errors.read;
    r->errors.write += t->errors.write;
    r->errors.timeout += t->errors.timeout;
    r->errors.status += t->errors.status;
    if (t->end_ns - start > r->runtime_ns)
        r->runtime_ns = t->end_ns - start;
    if (t->stopped_early)
        r->stopped_early = true;
    if (t->hook_failed)
        r->hook_failed = true;
    if (!r->first_error[0] && t->first_error[0])
        memcpy(r->first_error, t->first_error, sizeof r->first_error);
    tb_hist_merge(&r->latency, &t->lat, NULL);
    tb_hist_merge(&r->latency_uncorrected, &t->ulat, NULL);
    tb_hist_merge(&r->rate, &t->rate, NULL);
}

int tb_load_run(const tb_load_opts *o, tb_load_result *r, tb_err *err)
{
    memset(r, 0, sizeof *r);
    if (check_opts(o, err) < 0)
        return -1;
    if (tb_hist_init(&r->latency, TB_HIST_DEFAULT_MAX, err) < 0 ||
        tb_hist_init(&r->latency_uncorrected, TB_HIST_DEFAULT_MAX, err) < 0 ||
        tb_hist_init(&r->rate, TB_HIST_DEFAULT_MAX, err) < 0) {
        tb_load_result_clear(r);
        return -1;
    }
    struct run run = {.o = o};
    struct thread *ts = calloc(o->threads, sizeof *ts);
    if (!ts) {
        tb_load_result_clear(r);
        return tb_errf(err, "load: out of memory");
    }
    run.threads = ts;
    run.start = tb_mono_ns();
    int rc = 0;
    uint32_t first = 0, created = 0;
    for (uint32_t i = 0; i < o->threads && rc == 0; i++) {
        uint32_t n = o->connections / o->threads + (i < o->connections % o->threads ? 1 : 0);
        rc = thread_init(&ts[i], &run, n, first, err);
        first += n;
    }
    run.start = tb_mono_ns();
    for (uint32_t i = 0; i < o->threads && rc == 0; i++) {
        ts[i].deadline = run.start + o->duration_ns;
        if (pthread_create(&ts[i].tid, NULL, thread_main, &ts[i]) != 0) {
            rc = tb_errf(err, "load: cannot create thread %u", i);
            __atomic_store_n(&run.abort_run, 1, __ATOMIC_RELAXED);
            break;
        }
        created++;
    }
    for (uint32_t i = 0; i < created; i++)
        pthread_join(ts[i].tid, NULL);
    for (uint32_t i = 0; i < created && rc == 0; i++) {
        if (ts[i].loop_failed) {
            rc = -1;
            *err = ts[i].loop_err;
        }
        merge(r, &ts[i], run.start);
    }
    for (uint32_t i = 0; i < o->threads; i++)
        thread_free(&ts[i]);
    free(ts);
    if (rc < 0)
        tb_load_result_clear(r);
    return rc;
}

void tb_load_result_clear(tb_load_result *r)
{
    tb_hist_free(&r->latency);
    tb_hist_free(&r->latency_uncorrected);
    tb_hist_free(&r->rate);
}
