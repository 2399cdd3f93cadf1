/* server: the fixture server's threads and connections; see server.h.
 *
 * A connection is a small state machine driven by readiness callbacks:
 *   HANDSHAKE (TLS only) -> READ -> WRITE -> READ ... -> closed
 * READ first consumes what is already buffered (body bytes to skip, then the
 * next pipelined request head), and only reads the socket when the buffer has
 * no complete head. WRITE sends the reply's head block, then its 'B' fill;
 * after a complete reply the connection goes back to READ and waits for
 * readiness unless bytes are already buffered (no speculative read syscall).
 * The epoll mask always equals what the socket last asked for (s->want).
 * Invariants: c->start <= c->len <= TB_SERVER_INBUF; the bytes of the request
 * being parsed begin at c->in + c->start. */
#include "serve/server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "net/ev.h"
#include "net/http_req.h"
#include "net/sock.h"

#define ACCEPT_BATCH 64
#define DEFAULT_MAX_FDS 65536

enum { C_HANDSHAKE, C_READ, C_WRITE };

typedef struct conn conn;
typedef struct worker worker;

struct conn {
    tb_sock sock;
    worker *w;
    conn *prev, *next; /* the worker's active list, or its free list (next only) */
    int state;
    int mask;          /* events registered in the loop */
    size_t start, len; /* current request at in[start..len) */
    uint64_t skip;     /* request body bytes still to discard */
    tb_http_req req;
    tb_reply reply;
    uint64_t last;      /* the worker's tick at the last progress */
    size_t sent;        /* bytes of reply.head sent */
    uint64_t fill_sent; /* bytes of the fill sent */
    char scratch[TB_REPLY_SCRATCH];
    uint8_t in[TB_SERVER_INBUF];
};

struct worker {
    tb_server *srv;
    pthread_t thread;
    int started;
    int lfd;
    tb_ev_loop *loop;
    conn *active;
    conn *free_list;
    tb_counts counts;
    tb_err err;
    int failed;
    uint64_t accept_timer; /* pending re-arm of the listen fd after EMFILE */
    uint64_t tick;         /* seconds since the worker started (idle sweep clock) */
};

struct tb_server {
    tb_server_opts o;
    const tb_site *site;
    int port;
    int stop_fd; /* eventfd: readable once stop is asked; never read */
    atomic_int failed;
    int nworkers;
    worker *workers;
};

/* ---- connections ---------------------------------------------------------- */

static void conn_event(tb_ev_loop *l, int fd, void *data, int mask);

/* Makes the registered events equal mask. Returns 0, or -1 if epoll refused. */
static int set_mask(conn *c, int mask)
{
    int off = c->mask & ~mask, on = mask & ~c->mask;
    if (off)
        tb_ev_del(c->w->loop, c->sock.fd, off);
    c->mask &= ~off;
    if (on) {
        if (tb_ev_add(c->w->loop, c->sock.fd, on, conn_event, c, NULL) < 0)
            return -1;
        c->mask |= on;
    }
    return 0;
}

static void conn_close(conn *c)
{
    worker *w = c->w;
    if (c->sock.fd >= 0) {
        tb_ev_del(w->loop, c->sock.fd, TB_EV_READABLE | TB_EV_WRITABLE);
        c->sock.ops->close(&c->sock);
    }
    if (c->prev)
        c->prev->next = c->next;
    else
        w->active = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = NULL;
    c->next = w->free_list;
    w->free_list = c;
}

/* Closes after a reply that ends the connection: stop sending, discard what
 * the client already sent (so the close is not a reset that could destroy the
 * reply in flight), then close. Over TLS, send close_notify instead. */
static void conn_finish(conn *c)
{
    if (c->sock.ssl) {
        /* close_notify, best effort (non-blocking): a clean TLS end for the client. */
        ERR_clear_error();
        SSL_shutdown((SSL *)c->sock.ssl);
        ERR_clear_error();
    } else {
        char sink[4096];
        shutdown(c->sock.fd, SHUT_WR);
        for (int i = 0; i < 16 && read(c->sock.fd, sink, sizeof sink) > 0; i++)
            ;
    }
    conn_close(c);
}

/* Waits for mask; returns 0, or -1 after closing c if epoll refused. */
static int wait_for(conn *c, int mask)
{
    if (set_mask(c, mask) == 0)
        return 0;
    conn_close(c);
    return -1;
}

static void start_reply(conn *c)
{
    c->sent = 0;
    c->fill_sent = 0;
    c->state = C_WRITE;
}

/* Tries to produce the next reply from buffered bytes. Returns 1 if a reply
 * is ready, 0 if more input is needed. */
static int next_request(conn *c)
{
    const tb_site *site = c->w->srv->site;
    if (c->skip) {
        size_t n = c->len - c->start;
        if (n > c->skip)
            n = (size_t)c->skip;
        c->start += n;
        c->skip -= n;
        if (c->skip)
            return 0;
    }
    if (c->start == c->len)
        return 0;
    int rc = tb_http_req_parse(&c->req, c->in + c->start, c->len - c->start);
    if (rc == TB_HREQ_MORE)
        return 0;
    if (rc == TB_HREQ_DONE) {
        tb_site_answer(site, &c->req, c->in + c->start, c->scratch, &c->reply);
        c->start += c->req.head_len;
        c->skip = c->req.body_left;
    } else {
        tb_site_answer_error(site, rc, &c->reply);
        c->start = c->len;
    }
    tb_http_req_reset(&c->req);
    start_reply(c);
    return 1;
}

/* Moves the unparsed bytes to the front of the buffer. */
static void compact(conn *c)
{
    if (c->start == 0)
        return;
    size_t n = c->len - c->start;
    memmove(c->in, c->in + c->start, n);
    c->len = n;
    c->start = 0;
    /* The parser's offsets are relative to the request start, which moved with it. */
}

/* Returns 1 to continue driving, 0 when waiting (mask set), -1 when closed. */
static int do_read(conn *c)
{
    if (next_request(c))
        return 1;
    compact(c);
    if (c->len == sizeof c->in) { /* cannot happen: the parser stops at the buffer size */
        conn_close(c);
        return -1;
    }
    size_t n = 0;
    tb_sock_status st = c->sock.ops->read(&c->sock, c->in + c->len, sizeof c->in - c->len, &n);
    if (st == TB_SOCK_RETRY)
        return wait_for(c, c->sock.want);
    if (st == TB_SOCK_ERROR || n == 0) {
        conn_close(c);
        return -1;
    }
    c->len += n;
    c->last = c->w->tick;
    return 1;
}

static tb_sock_status write_some(conn *c, const uint8_t *p, size_t len, size_t *n)
{
    return c->sock.ops->write(&c->sock, p, len, n);
}

static int do_write(conn *c)
{
    tb_reply *r = &c->reply;
    const tb_site *site = c->w->srv->site;
    while (c->sent < r->head_len || c->fill_sent < r->fill_len) {
        size_t n = 0;
        tb_sock_status st;
        if (c->sent < r->head_len) {
            st = write_some(c, r->head + c->sent, r->head_len - c->sent, &n);
            c->sent += n;
        } else {
            uint64_t left = r->fill_len - c->fill_sent;
            st = write_some(c, site->fill, left < TB_FILL_LEN ? (size_t)left : TB_FILL_LEN, &n);
            c->fill_sent += n;
        }
        if (n)
            c->last = c->w->tick;
        if (st == TB_SOCK_RETRY)
            return wait_for(c, c->sock.want);
        if (st == TB_SOCK_ERROR) {
            conn_close(c);
            return -1;
        }
    }
    c->w->counts.n[r->route][r->status]++;
    if (r->close) {
        conn_finish(c);
        return -1;
    }
    c->state = C_READ;
    /* Continue at once only if input is waiting; otherwise wait for readiness. */
    if (c->start < c->len || (c->sock.ssl && c->sock.ops->readable(&c->sock) > 0))
        return 1;
    return wait_for(c, TB_EV_READABLE);
}

static void drive(conn *c)
{
    for (;;) {
        int rc;
        if (c->state == C_HANDSHAKE) {
            tb_sock_status st = c->sock.ops->handshake(&c->sock);
            if (st == TB_SOCK_RETRY) {
                wait_for(c, c->sock.want);
                return;
            }
            if (st == TB_SOCK_ERROR) {
                conn_close(c);
                return;
            }
            c->state = C_READ;
            rc = 1;
        } else if (c->state == C_READ) {
            rc = do_read(c);
        } else {
            rc = do_write(c);
        }
        if (rc <= 0)
            return;
    }
}

static void conn_event(tb_ev_loop *l, int fd, void *data, int mask)
{
    (void)l;
    (void)fd;
    (void)mask;
    drive(data);
}

/* ---- accepting ------------------------------------------------------------ */

static conn *conn_get(worker *w)
{
    conn *c = w->free_list;
    if (c) {
        w->free_list = c->next;
    } else if (!(c = malloc(sizeof *c))) {
        return NULL;
    }
    c->w = w;
    c->prev = NULL;
    c->next = w->active;
    if (w->active)
        w->active->prev = c;
    w->active = c;
    c->mask = 0;
    c->last = w->tick;
    c->start = c->len = 0;
    c->skip = 0;
    tb_http_req_init(&c->req, TB_SERVER_INBUF);
    return c;
}

static void on_accept(tb_ev_loop *l, int lfd, void *data, int mask);

static int64_t rearm_accept(tb_ev_loop *l, uint64_t id, void *data)
{
    (void)id;
    worker *w = data;
    w->accept_timer = 0;
    tb_ev_add(l, w->lfd, TB_EV_READABLE, on_accept, w, NULL);
    return TB_EV_NOMORE;
}

static void on_accept(tb_ev_loop *l, int lfd, void *data, int mask)
{
    (void)mask;
    worker *w = data;
    tb_server *srv = w->srv;
    for (int i = 0; i < ACCEPT_BATCH; i++) {
        int fd;
        tb_err err;
        int rc = tb_sock_accept(lfd, &fd, &err);
        if (rc == 1)
            return;
        if (rc < 0) {
            /* Out of fds (or memory): stop accepting for 100 ms instead of spinning. */
            tb_ev_del(l, lfd, TB_EV_READABLE);
            if (!w->accept_timer)
                w->accept_timer = tb_ev_timer_add(l, 100000000, rearm_accept, w);
            return;
        }
        if (fd >= srv->o.max_fds) {
            close(fd);
            continue;
        }
        conn *c = conn_get(w);
        if (!c) {
            close(fd);
            continue;
        }
        if (srv->o.tls) {
            if (tb_tls_sock_init_server(&c->sock, srv->o.tls, fd, &err) < 0) {
                c->sock.fd = -1; /* fd already closed by the tls layer */
                conn_close(c);
                continue;
            }
            c->state = C_HANDSHAKE;
        } else {
            tb_sock_init_plain(&c->sock, fd);
            c->state = C_READ;
        }
        if (set_mask(c, TB_EV_READABLE) < 0)
            conn_close(c);
    }
}

/* Once a second: advance the tick, close connections idle for the timeout. */
static int64_t idle_sweep(tb_ev_loop *l, uint64_t id, void *data)
{
    (void)l;
    (void)id;
    worker *w = data;
    uint64_t limit = (uint64_t)w->srv->o.idle_timeout_s;
    w->tick++;
    for (conn *c = w->active, *next; c; c = next) {
        next = c->next;
        if (w->tick - c->last > limit)
            conn_close(c);
    }
    return 1000000000;
}

static void on_stop(tb_ev_loop *l, int fd, void *data, int mask)
{
    (void)fd;
    (void)data;
    (void)mask;
    tb_ev_stop(l);
}

/* ---- threads -------------------------------------------------------------- */

static void *worker_main(void *arg)
{
    worker *w = arg;
    tb_server *srv = w->srv;
    if (srv->o.idle_timeout_s > 0 && !tb_ev_timer_add(w->loop, 1000000000, idle_sweep, w)) {
        tb_errf(&w->err, "idle timer: no timer slot");
        w->failed = 1;
        atomic_store(&srv->failed, 1);
        return NULL;
    }
    if (tb_ev_add(w->loop, w->lfd, TB_EV_READABLE, on_accept, w, &w->err) < 0 ||
        tb_ev_add(w->loop, srv->stop_fd, TB_EV_READABLE, on_stop, w, &w->err) < 0 ||
        tb_ev_run(w->loop, &w->err) < 0) {
        w->failed = 1;
        atomic_store(&srv->failed, 1);
    }
    while (w->active)
        conn_close(w->active);
    return NULL;
}

static int bind_all(tb_server *s, tb_err *err)
{
    int reuse = s->nworkers > 1;
    char port[16];
    snprintf(port, sizeof port, "%s", s->o.port);
    if (reuse) {
        /* SO_REUSEPORT would share the port with another process that set it
         * too: check with a plain bind that nobody listens there now. */
        int probe;
        if (tb_sock_listen(s->o.addr, port, 1, 0, &probe, err) < 0)
            return -1;
        close(probe);
    }
    for (int i = 0; i < s->nworkers; i++) {
        worker *w = &s->workers[i];
        if (tb_sock_listen(s->o.addr, port, 4096, reuse, &w->lfd, err) < 0)
            return -1;
        if (i == 0) {
            struct sockaddr_storage ss;
            socklen_t len = sizeof ss;
            if (getsockname(w->lfd, (struct sockaddr *)&ss, &len) < 0)
                return tb_errno(err, "getsockname");
            s->port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                                     : ((struct sockaddr_in *)&ss)->sin_port);
            snprintf(port, sizeof port, "%d", s->port); /* the rest bind the same port */
        }
    }
    return 0;
}

tb_server *tb_server_new(const tb_server_opts *o, const tb_site *site, tb_err *err)
{
    if (o->threads < 1 || o->threads > TB_SERVER_MAX_THREADS) {
        tb_errf(err, "threads: %d is not in 1..%d", o->threads, TB_SERVER_MAX_THREADS);
        return NULL;
    }
    tb_server *s = calloc(1, sizeof *s);
    if (!s || !(s->workers = calloc((size_t)o->threads, sizeof *s->workers))) {
        free(s);
        tb_errf(err, "out of memory");
        return NULL;
    }
    s->o = *o;
    if (s->o.max_fds <= 0)
        s->o.max_fds = DEFAULT_MAX_FDS;
    s->site = site;
    s->nworkers = o->threads;
    s->stop_fd = -1;
    for (int i = 0; i < s->nworkers; i++) {
        s->workers[i].srv = s;
        s->workers[i].lfd = -1;
    }
    if (bind_all(s, err) < 0)
        goto fail;
    if ((s->stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0) {
        tb_errno(err, "eventfd");
        goto fail;
    }
    for (int i = 0; i < s->nworkers; i++)
        if (!(s->workers[i].loop = tb_ev_new(s->o.max_fds, 4, err)))
            goto fail;
    return s;
fail:
    tb_server_free(s);
    return NULL;
}

int tb_server_port(const tb_server *s)
{
    return s->port;
}

int tb_server_start(tb_server *s, tb_err *err)
{
    for (int i = 0; i < s->nworkers; i++) {
        int rc = pthread_create(&s->workers[i].thread, NULL, worker_main, &s->workers[i]);
        if (rc != 0) {
            errno = rc;
            tb_server_stop(s);
            return tb_errno(err, "starting thread %d", i + 1);
        }
        s->workers[i].started = 1;
    }
    return 0;
}

void tb_server_stop(tb_server *s)
{
    uint64_t one = 1;
    ssize_t n = write(s->stop_fd, &one, sizeof one);
    (void)n; /* an eventfd write only fails when the counter is saturated: still readable */
}

int tb_server_failed(const tb_server *s)
{
    return atomic_load(&((tb_server *)s)->failed);
}

int tb_server_join(tb_server *s, tb_err *err)
{
    int rc = 0;
    for (int i = 0; i < s->nworkers; i++) {
        worker *w = &s->workers[i];
        if (!w->started)
            continue;
        pthread_join(w->thread, NULL);
        w->started = 0;
        if (w->failed && rc == 0) {
            if (err)
                *err = w->err;
            rc = -1;
        }
    }
    return rc;
}

void tb_server_counts(const tb_server *s, tb_counts *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < s->nworkers; i++)
        tb_counts_merge(out, &s->workers[i].counts);
}

void tb_server_free(tb_server *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nworkers; i++) {
        worker *w = &s->workers[i];
        if (w->started) {
            tb_server_stop(s);
            pthread_join(w->thread, NULL);
        }
        while (w->active)
            conn_close(w->active);
        while (w->free_list) {
            conn *c = w->free_list;
            w->free_list = c->next;
            free(c);
        }
        if (w->lfd >= 0)
            close(w->lfd);
        tb_ev_free(w->loop);
    }
    if (s->stop_fd >= 0)
        close(s->stop_fd);
    free(s->workers);
    free(s);
}
