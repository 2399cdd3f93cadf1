/* notary/server: the event loop, the notarization workers, request routing
 * and the notarization itself (see server.h).
 *
 * A connection is a state machine driven by the loop thread:
 *   HANDSHAKE (TLS) -> READ -> [BUSY in a worker] -> WRITE -> IDLE -> READ ...
 *   an error reply: WRITE -> DRAIN (read and discard, 200 ms) -> closed
 * Each state but BUSY has a deadline and sits in one of three FIFO lists whose
 * entries all got the same delay when they were appended (io: HANDSHAKE, READ
 * and WRITE, io_timeout; idle: IDLE_MS; drain: DRAIN_MS), so every list is
 * ordered by deadline and a sweep looks at list heads only. A BUSY connection
 * belongs to the worker that handles it: the loop neither watches nor touches
 * it until the worker hands it back through the done queue (mutex + eventfd).
 *
 * Invariants: a connection is in at most one deadline list, in exactly one of
 * {deadline list, job queue, worker, done queue} -- except after a stop, when
 * the loop answers a connection still in a worker itself (c->early: it writes
 * c->out and drains, never touching c->in, c->req or c->r, which the worker
 * uses) and, once that is done, closes its socket but keeps the struct (a
 * zombie, in s->all, not counted in n_conns) until the worker hands it back or
 * tb_notary_server_stop frees it after joining the workers; c->in holds the bytes of the
 * current request from offset 0 (and maybe of pipelined ones after it), never
 * more than max(8 KiB, its head + body): reads stop there, later bytes wait in
 * the socket; a session is claimed
 * (used up) only after the target is allowed and the request fits, and a
 * document is signed only for a complete response within the session limits. */
#include "notary/server.h"

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/fdlimit.h"
#include "base/hex.h"
#include "net/ev.h"
#include "net/http_req.h"
#include "net/sock.h"
#include "net/tls.h"
#include "notary/doc.h"
#include "notary/internal.h"

#define MAX_HEAD 8192
#define MAX_HEADERS 32
#define MAX_KEEPALIVE 100           /* requests per connection */
#define KEEPALIVE_NS 30000000000ull /* lifetime of a kept-alive connection */
#define IDLE_NS 500000000ull        /* wait for the next request */
#define DRAIN_NS 200000000ull       /* read what a refused client still sends */
#define STOP_GRACE_NS 1000000000ull /* replies still sent after a stop */
#define STOP_ANSWER_NS 500000000ull /* then the loop answers 503 for a busy worker */
#define SWEEP_MAX_NS 100000000ull   /* the deadline sweep runs at least this often */
#define DEFAULT_MAX_CONNECTIONS 4096

enum { C_HANDSHAKE, C_READ, C_IDLE, C_BUSY, C_WRITE, C_DRAIN };
enum { L_IO, L_IDLE, L_DRAIN, L_COUNT, L_NONE = -1 };

typedef struct conn conn;

/* One response being built by a handler. */
typedef struct reply {
    int status;
    tb_buf body;
} reply;

struct conn {
    tb_sock sock;
    tb_notary_server *s;
    int state;
    int mask;             /* events registered in the loop */
    conn *prev, *next;    /* every connection (loop thread) */
    conn *lprev, *lnext;  /* the deadline list `list` */
    int list;             /* L_* or L_NONE */
    uint64_t deadline;    /* of the current state */
    conn *qnext;          /* job queue or done queue */
    tb_notary_client who; /* quota keys (set at accept, read-only after) */
    int in_worker;        /* queued or in a worker, not yet back through on_done */
    int early;            /* answered by the loop while in a worker (a stop) */
    int zombie;           /* closed while in a worker: freed when it comes back */
    char key_name[TB_NOTARY_KEY_NAME_MAX + 1]; /* the API key's name (log) */
    uint64_t born;                             /* accept time */
    int served;                                /* replies sent on this connection */
    tb_buf in;                                 /* the current request (and nothing after it) */
    tb_http_req req;
    int parsed;               /* req is TB_HREQ_DONE */
    uint64_t t0;              /* the current request's first byte (log) */
    char method[8], path[64]; /* for the log line */
    reply r;
    int keep;   /* the connection stays open after this reply */
    int refuse; /* the reply refuses the request: drain, then close */
    tb_buf out; /* the reply's bytes */
    size_t sent;
};

struct tb_notary_server {
    tb_notary_config cfg;
    int lfd;
    uint16_t port;
    tb_ev_loop *loop;
    int setsize;
    pthread_t loop_thread;
    int loop_started;
    pthread_t *workers;
    int n_workers;
    int stop_fd; /* eventfd, readable once stopping: wakes the loop, cancels fetches */
    int done_fd; /* eventfd: a worker handed a connection back */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    conn *jobs, *jobs_tail; /* waiting for a worker (FIFO) */
    conn *done;             /* handled by a worker, reply ready */
    int quit;               /* workers: exit when the queue is empty */
    atomic_int stopping;
    /* loop thread only */
    conn *all;
    size_t n_conns, max_conns;
    conn *head[L_COUNT], *tail[L_COUNT];
    uint64_t list_ns[L_COUNT];
    uint64_t stop_deadline; /* 0 until the loop saw the stop */
    uint64_t accept_timer;
    int stop_answered; /* the loop answered the connections still in workers */
    tb_notary_session_table sessions;
    tb_notary_quota2 inflight; /* notarizations queued or running per client (loop thread) */
    tb_notary_resolver *resolver;
    pthread_mutex_t keys_mu; /* guards keys (the loop reads, tb_notary_server_set_keys swaps) */
    const tb_notary_keys *keys;
    atomic_uint_fast64_t n_unauthorized, n_over_quota, n_table_full, n_lookup_expired;
    tb_buf info;     /* the GET /info body, built at start */
    tb_tls_ctx *tls; /* server TLS context (NULL: plain HTTP) */
    size_t max_body;
};

static const char *reason(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 408:
        return "Request Timeout";
    case 409:
        return "Conflict";
    case 410:
        return "Gone";
    case 413:
        return "Payload Too Large";
    case 422:
        return "Unprocessable Content";
    case 429:
        return "Too Many Requests";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 502:
        return "Bad Gateway";
    case 503:
        return "Service Unavailable";
    case 504:
        return "Gateway Timeout";
    case 505:
        return "HTTP Version Not Supported";
    default:
        return "Error";
    }
}

static void reply_error(reply *r, int status, const char *msg)
{
    r->status = status;
    tb_buf_reset(&r->body);
    json_t *o = json_pack("{s:s, s:i}", "error", msg, "status", status);
    char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
    if (s)
        tb_buf_puts(&r->body, s);
    else
        tb_buf_puts(&r->body, "{\"error\":\"internal error\"}");
    free(s);
    json_decref(o);
}

/* -------------------------------------------------------------- handlers */

static void handle_session(tb_notary_server *s, const tb_notary_client *who, const char *body,
                           size_t len, reply *r)
{
    tb_err err;
    tb_notary_session_req q;
    if (tb_notary_session_req_parse(body, len, &q, &err) < 0) {
        reply_error(r, 400, err.msg);
        return;
    }
    char msg[256];
    if (q.max_sent > s->cfg.max_sent || q.max_recv > s->cfg.max_recv) {
        int sent = q.max_sent > s->cfg.max_sent;
        snprintf(msg, sizeof msg, "%s %llu exceeds this notary's limit of %llu bytes",
                 sent ? "maxSentData" : "maxRecvData",
                 (unsigned long long)(sent ? q.max_sent : q.max_recv),
                 (unsigned long long)(sent ? s->cfg.max_sent : s->cfg.max_recv));
        reply_error(r, 400, msg);
        return;
    }
    if (q.tee && !s->cfg.tee) {
        reply_error(r, 400, "teeAttestation requested but this notary runs without a TEE");
        return;
    }
    tb_notary_session ss;
    memset(&ss, 0, sizeof ss);
    ss.max_sent = q.max_sent ? q.max_sent : s->cfg.max_sent;
    ss.max_recv = q.max_recv ? q.max_recv : s->cfg.max_recv;
    ss.tee = q.tee;
    memcpy(ss.nonce, q.nonce, q.nonce_len);
    ss.nonce_len = q.nonce_len;
    ss.who = *who;
    int rc = tb_notary_session_create(&s->sessions, &ss, tb_mono_ns(), &err);
    if (rc != TB_NOTARY_SESSION_OK) {
        int quota = rc == TB_NOTARY_SESSION_QUOTA || rc == TB_NOTARY_SESSION_PREFIX;
        atomic_fetch_add(quota ? &s->n_over_quota : &s->n_table_full,
                         rc == TB_NOTARY_SESSION_ERROR ? 0 : 1);
        reply_error(r, quota ? 429 : rc == TB_NOTARY_SESSION_FULL ? 503 : 500, err.msg);
        return;
    }
    char id[33];
    tb_hex_encode(ss.id, 16, id);
    r->status = 200;
    tb_buf_printf(&r->body,
                  "{\"sessionId\":\"%s\",\"maxSentData\":%llu,\"maxRecvData\":%llu,"
                  "\"teeAttestation\":%s,\"expiresInMs\":%llu}",
                  id, (unsigned long long)ss.max_sent, (unsigned long long)ss.max_recv,
                  ss.tee ? "true" : "false", (unsigned long long)(s->sessions.ttl_ns / 1000000u));
}

/* Signs the document for a finished fetch and, in TEE sessions, adds evidence. */
static void notarize_reply(tb_notary_server *s, const tb_notary_session *ss,
                           const tb_notary_notarize_req *q, const tb_notary_target_response *f,
                           reply *r)
{
    tb_err err;
    const uint8_t *nonce = ss->nonce_len ? ss->nonce : ss->id;
    size_t nonce_len = ss->nonce_len ? ss->nonce_len : 16;
    tb_notary_doc d;
    memset(&d, 0, sizeof d);
    memcpy(d.session_id, ss->id, 16);
    d.time_ms = tb_wall_ns() / 1000000u;
    d.server_name = (tb_notary_view){(const uint8_t *)q->server_name, strlen(q->server_name)};
    d.target_host = (tb_notary_view){(const uint8_t *)q->host, strlen(q->host)};
    d.target_port = q->port;
    const char *tee = tb_tee_name(ss->tee ? s->cfg.tee->tee : TB_TEE_NONE);
    d.tee = (tb_notary_view){(const uint8_t *)tee, strlen(tee)};
    if (ss->tee)
        d.nonce = (tb_notary_view){nonce, nonce_len};
    d.notary_key = (tb_notary_view){s->cfg.key->spki.p, s->cfg.key->spki.len};
    d.n_certs = f->n_certs;
    for (size_t i = 0; i < f->n_certs; i++)
        d.certs[i] = (tb_notary_view){f->certs.p + f->cert_off[i], f->cert_len[i]};
    d.request = (tb_notary_view){q->request.p, q->request.len};
    d.response = (tb_notary_view){f->response.p, f->response.len};
    tb_buf doc = {0};
    tb_notary_evidence ev;
    memset(&ev, 0, sizeof ev);
    if (tb_notary_doc_encode_sign(&d, s->cfg.key, &doc, &err) < 0) {
        reply_error(r, 500, err.msg);
        goto out;
    }
    if (ss->tee && tb_notary_evidence_make(s->cfg.tee, nonce, nonce_len, s->cfg.key->spki_sha256,
                                           &ev, &err) < 0) {
        reply_error(r, 500, err.msg);
        goto out;
    }
    r->status = 200;
    int rc = tb_buf_puts(&r->body, "{\"document\":\"") |
             tb_notary_b64_append(&r->body, doc.p, doc.len) | tb_buf_puts(&r->body, "\"");
    if (ss->tee)
        rc |= tb_buf_puts(&r->body, ",\"evidence\":") |
              tb_notary_evidence_to_json(&ev, &r->body, &err);
    rc |= tb_buf_puts(&r->body, "}");
    if (rc)
        reply_error(r, 500, "out of memory");
out:
    tb_buf_clear(&doc);
    tb_notary_evidence_clear(&ev);
}

/* Why a session cannot be used, as a reply. */
static void session_refused(tb_notary_claim c, reply *r)
{
    if (c == TB_NOTARY_CLAIM_USED)
        reply_error(r, 409, "session already used (a session notarizes once)");
    else if (c == TB_NOTARY_CLAIM_EXPIRED)
        reply_error(r, 410, "session expired");
    else
        reply_error(r, 404, "unknown session");
}

/* POST /notarize, in a worker thread. Everything that can refuse the request
 * without contacting the target runs before the session is claimed. */
static void handle_notarize(tb_notary_server *s, const tb_notary_client *who, const char *query,
                            size_t query_len, const char *body, size_t len, reply *r)
{
    /* one deadline for the name resolution and the target exchange */
    uint64_t deadline = tb_notary_target_deadline(s->cfg.target);
    tb_err err;
    const char *idhex = NULL;
    size_t idlen = 0;
    uint8_t id[16];
    if (!tb_http_query_get(query, query_len, "sessionId", &idhex, &idlen) || idlen != 32 ||
        tb_hex_decode_upto(idhex, idlen, id, sizeof id) != 16) {
        reply_error(r, 400, "sessionId query parameter missing or not 32 hex digits");
        return;
    }
    tb_notary_notarize_req q;
    if (tb_notary_notarize_req_parse(body, len, &q, &err) < 0) {
        reply_error(r, 400, err.msg);
        return;
    }
    tb_notary_session ss;
    tb_notary_target_response f;
    memset(&f, 0, sizeof f);
    tb_notary_claim c = tb_notary_session_peek(&s->sessions, id, tb_mono_ns(), &ss);
    if (c != TB_NOTARY_CLAIM_OK) {
        session_refused(c, r);
        goto out;
    }
    if (q.request.len > ss.max_sent) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "request of %zu bytes exceeds the session's maxSentData (%llu bytes)",
                 q.request.len, (unsigned long long)ss.max_sent);
        reply_error(r, 422, msg);
        goto out;
    }
    tb_notary_target_addrs addrs;
    int status = 502;
    if (atomic_load(&s->stopping)) {
        reply_error(r, 503, "the notary is stopping (the session is still unused)");
        goto out;
    }
    if (tb_notary_target_resolve(s->cfg.target, s->resolver, who, q.host, q.port, deadline,
                                 s->stop_fd, &addrs, &status, &err) < 0) {
        if (status == 429)
            atomic_fetch_add(&s->n_over_quota, 1);
        else if (status == 504)
            atomic_fetch_add(&s->n_lookup_expired, 1);
        reply_error(r, status, err.msg);
        goto out;
    }
    if (atomic_load(&s->stopping)) {
        reply_error(r, 503, "the notary is stopping (the session is still unused)");
        goto out;
    }
    c = tb_notary_session_claim(&s->sessions, id, tb_mono_ns(), &ss);
    if (c != TB_NOTARY_CLAIM_OK) { /* another request claimed it (or it expired) meanwhile */
        session_refused(c, r);
        goto out;
    }
    if (tb_notary_target_fetch(s->cfg.target, &addrs, q.server_name, q.request.p, q.request.len,
                               ss.max_recv, deadline, s->stop_fd, &f, &status, &err) < 0) {
        reply_error(r, status, err.msg);
        goto out;
    }
    notarize_reply(s, &ss, &q, &f, r);
out:
    tb_notary_target_response_clear(&f);
    tb_notary_notarize_req_clear(&q);
}

/* -------------------------------------------------------------- workers */

static void process_job(tb_notary_server *s, conn *c)
{
    const char *path, *query;
    size_t plen, qlen;
    tb_http_req_split_target(&c->req, c->in.p, &path, &plen, &query, &qlen);
    tb_buf_reset(&c->r.body);
    handle_notarize(s, &c->who, query, qlen, (const char *)c->in.p + c->req.head_len,
                    (size_t)c->req.body_left, &c->r);
}

static void *worker_main(void *arg)
{
    tb_notary_server *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->jobs && !s->quit)
            pthread_cond_wait(&s->cv, &s->mu);
        conn *c = s->jobs;
        if (s->quit)
            break; /* the loop is gone: nobody could send a reply (stop frees c) */
        s->jobs = c->qnext;
        if (!s->jobs)
            s->jobs_tail = NULL;
        pthread_mutex_unlock(&s->mu);
        process_job(s, c);
        pthread_mutex_lock(&s->mu);
        c->qnext = s->done;
        s->done = c;
        uint64_t one = 1;
        ssize_t n = write(s->done_fd, &one, sizeof one);
        (void)n; /* an eventfd write fails only when the counter is saturated: still readable */
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* ------------------------------------------------------ deadline lists */

static void list_remove(tb_notary_server *s, conn *c)
{
    if (c->list == L_NONE)
        return;
    if (c->lprev)
        c->lprev->lnext = c->lnext;
    else
        s->head[c->list] = c->lnext;
    if (c->lnext)
        c->lnext->lprev = c->lprev;
    else
        s->tail[c->list] = c->lprev;
    c->lprev = c->lnext = NULL;
    c->list = L_NONE;
}

/* Appends c to list l with the deadline now + that list's delay. */
static void list_append(tb_notary_server *s, conn *c, int l, uint64_t now)
{
    list_remove(s, c);
    c->list = l;
    c->deadline = now + s->list_ns[l];
    /* After a stop every deadline is capped at the stop's: min(a non-decreasing
     * sequence, a constant) keeps each list sorted (on_stop capped the rest). */
    if (s->stop_deadline && c->deadline > s->stop_deadline)
        c->deadline = s->stop_deadline;
    c->lprev = s->tail[l];
    c->lnext = NULL;
    if (s->tail[l])
        s->tail[l]->lnext = c;
    else
        s->head[l] = c;
    s->tail[l] = c;
}

/* ------------------------------------------------------------ connections */

static void conn_event(tb_ev_loop *l, int fd, void *data, int mask);

static int set_mask(conn *c, int mask)
{
    int off = c->mask & ~mask, on = mask & ~c->mask;
    if (off)
        tb_ev_del(c->s->loop, c->sock.fd, off);
    c->mask &= ~off;
    if (on) {
        if (tb_ev_add(c->s->loop, c->sock.fd, on, conn_event, c, NULL) < 0)
            return -1;
        c->mask |= on;
    }
    return 0;
}

static void conn_free(conn *c)
{
    tb_buf_clear(&c->in);
    tb_buf_clear(&c->out);
    tb_buf_clear(&c->r.body);
    free(c);
}

static void maybe_finish_stop(tb_notary_server *s)
{
    if (s->stop_deadline && s->n_conns == 0)
        tb_ev_stop(s->loop);
}

/* Takes c out of s->all (loop thread). */
static void conn_unlink(tb_notary_server *s, conn *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        s->all = c->next;
    if (c->next)
        c->next->prev = c->prev;
}

static void conn_close(conn *c)
{
    tb_notary_server *s = c->s;
    list_remove(s, c);
    if (c->sock.fd >= 0) {
        tb_ev_del(s->loop, c->sock.fd, TB_EV_READABLE | TB_EV_WRITABLE);
        c->sock.ops->close(&c->sock);
    }
    if (c->in_worker) { /* answered early: the worker still reads c's request */
        c->zombie = 1;
        s->n_conns--;
        maybe_finish_stop(s);
        return;
    }
    conn_unlink(s, c);
    s->n_conns--;
    conn_free(c);
    maybe_finish_stop(s);
}

static void log_request(tb_notary_server *s, conn *c)
{
    if (!s->cfg.log)
        return;
    char line[TB_ERR_MAX + 160];
    const reply *r = &c->r;
    snprintf(line, sizeof line, "%s %s -> %d (%.3f ms)%s%s%s%.*s", c->method[0] ? c->method : "-",
             c->path[0] ? c->path : "-", r->status, (double)(tb_mono_ns() - c->t0) / 1e6,
             c->key_name[0] ? " key " : "", c->key_name, r->status >= 400 ? ": " : "",
             r->status >= 400 ? (int)r->body.len : 0, (const char *)r->body.p);
    s->cfg.log(s->cfg.log_ctx, line);
}

static int drive(conn *c);

/* The reply in c->r is ready: frame it and start writing. */
static void start_reply(conn *c, int refuse)
{
    tb_notary_server *s = c->s;
    uint64_t now = tb_mono_ns();
    c->refuse = refuse || c->r.status >= 400;
    c->keep = !c->refuse && c->req.keep_alive && c->served + 1 < MAX_KEEPALIVE &&
              now - c->born < KEEPALIVE_NS && !s->stop_deadline;
    tb_buf_reset(&c->out);
    int rc = tb_buf_printf(
        &c->out,
        "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n"
        "Content-Length: %zu\r\nConnection: %s\r\n%s\r\n",
        c->r.status, reason(c->r.status), c->r.body.len, c->keep ? "keep-alive" : "close",
        c->r.status == 401 ? "WWW-Authenticate: Bearer realm=\"teebench-notary\"\r\n" : "");
    if (rc < 0 || tb_buf_append(&c->out, c->r.body.p, c->r.body.len) < 0)
        c->keep = 0, c->refuse = 1;
    log_request(s, c);
    c->sent = 0;
    c->state = C_WRITE;
    list_append(s, c, L_IO, now);
}

/* With API keys: 1 when c's request carries a valid one (its name goes to
 * c->key_name), else 0 with the 401 reply in r. The key itself is never copied. */
static int authorize(conn *c, reply *r)
{
    tb_notary_server *s = c->s;
    c->key_name[0] = 0;
    pthread_mutex_lock(&s->keys_mu);
    if (!s->keys) {
        pthread_mutex_unlock(&s->keys_mu);
        return 1;
    }
    const char *v = NULL, *name = NULL;
    size_t n = 0;
    unsigned count = tb_http_req_header(&c->req, c->in.p, "Authorization", &v, &n);
    tb_notary_auth a =
        count > 1 ? TB_NOTARY_AUTH_INVALID : tb_notary_keys_check(s->keys, v, count ? n : 0, &name);
    if (a == TB_NOTARY_AUTH_OK)
        snprintf(c->key_name, sizeof c->key_name, "%s", name);
    pthread_mutex_unlock(&s->keys_mu);
    if (a == TB_NOTARY_AUTH_OK)
        return 1;
    atomic_fetch_add(&s->n_unauthorized, 1);
    reply_error(r, 401,
                a == TB_NOTARY_AUTH_MISSING
                    ? "missing API key: this notary wants an Authorization: Bearer <key> header"
                : count > 1 ? "more than one Authorization header"
                            : "invalid API key");
    return 0;
}

/* Routes a complete request (head parsed, body in c->in). Returns 1 when the
 * reply is ready, 0 when the request went to a worker. */
static int route(conn *c)
{
    tb_notary_server *s = c->s;
    const uint8_t *buf = c->in.p;
    const char *path, *query;
    size_t plen, qlen;
    tb_http_req_split_target(&c->req, buf, &path, &plen, &query, &qlen);
    snprintf(c->method, sizeof c->method, "%.*s", (int)c->req.method_len,
             (const char *)buf + c->req.method_off);
    snprintf(c->path, sizeof c->path, "%.*s", (int)plen, path);
    int get = tb_http_req_method_is(&c->req, buf, "GET");
    int post = tb_http_req_method_is(&c->req, buf, "POST");
#define IS(p) (plen == sizeof(p) - 1 && !memcmp(path, p, plen))
    int want_get = IS("/healthcheck") || IS("/info");
    int want_post = IS("/session") || IS("/notarize");
    reply *r = &c->r;
    tb_notary_admit why;
    tb_buf_reset(&r->body);
    if (!want_get && !want_post)
        reply_error(r, 404, "no such endpoint (see GET /info)");
    else if (want_get && !get)
        reply_error(r, 405, "use GET");
    else if (want_post && !post)
        reply_error(r, 405, "use POST");
    else if (want_post && !authorize(c, r))
        ; /* 401 in r */
    else if (IS("/healthcheck")) {
        r->status = 200;
        tb_buf_puts(&r->body, "{\"status\":\"ok\"}");
    } else if (IS("/info")) {
        r->status = 200;
        tb_buf_append(&r->body, s->info.p, s->info.len);
    } else if (IS("/session")) {
        handle_session(s, &c->who, (const char *)buf + c->req.head_len, (size_t)c->req.body_left,
                       r);
    } else if ((why = tb_notary_quota2_take(&s->inflight, &c->who)) != TB_NOTARY_ADMIT_OK) {
        char msg[200];
        int by_addr = why == TB_NOTARY_ADMIT_ADDR;
        snprintf(msg, sizeof msg,
                 "this client %s has %zu notarizations in flight (the limit): wait for one to "
                 "finish (the session is still unused)",
                 by_addr ? "address" : "'s network (IPv4 /24, IPv6 /64)",
                 by_addr ? tb_notary_quota_count(&s->inflight.addr, c->who.addr)
                         : tb_notary_quota_count(&s->inflight.prefix, c->who.prefix));
        atomic_fetch_add(&s->n_over_quota, 1);
        reply_error(r, 429, msg);
    } else {
        /* POST /notarize: to a worker; the loop forgets c until it comes back
         * (and then gives its in-flight count back, on_done) */
        list_remove(s, c);
        set_mask(c, 0);
        c->state = C_BUSY;
        c->in_worker = 1;
        c->qnext = NULL;
        pthread_mutex_lock(&s->mu);
        if (s->jobs_tail)
            s->jobs_tail->qnext = c;
        else
            s->jobs = c;
        s->jobs_tail = c;
        pthread_cond_signal(&s->cv);
        pthread_mutex_unlock(&s->mu);
        return 0;
    }
#undef IS
    return 1;
}

/* A request the parser refused. */
static void refuse_request(conn *c, int hreq)
{
    int status = hreq == TB_HREQ_TOO_LARGE     ? 431
                 : hreq == TB_HREQ_VERSION     ? 505
                 : hreq == TB_HREQ_UNSUPPORTED ? 501
                                               : 400;
    const char *msg = status == 431   ? "request head over 8192 bytes or 32 header fields"
                      : status == 505 ? "unsupported HTTP version (HTTP/1.0 and 1.1 only)"
                      : status == 501 ? "Transfer-Encoding is not supported (send Content-Length)"
                                      : "malformed HTTP request";
    reply_error(&c->r, status, msg);
    start_reply(c, 1);
}

/* READ and IDLE: parse what is buffered, read more when it is not enough.
 * Returns 1 to go on driving, 0 when waiting or handed to a worker, -1 closed. */
static int do_read(conn *c)
{
    tb_notary_server *s = c->s;
    for (;;) {
        if (c->in.len && !c->parsed) {
            int rc = tb_http_req_parse(&c->req, c->in.p, c->in.len);
            if (rc < 0) {
                refuse_request(c, rc);
                return 1;
            }
            if (rc == TB_HREQ_DONE) {
                c->parsed = 1;
                if (c->req.body_left > s->max_body) {
                    char msg[128];
                    snprintf(msg, sizeof msg,
                             "request body of %llu bytes is larger than the limit of %zu bytes",
                             (unsigned long long)c->req.body_left, s->max_body);
                    reply_error(&c->r, 413, msg);
                    start_reply(c, 1);
                    return 1;
                }
            }
        }
        size_t limit = c->parsed ? c->req.head_len + (size_t)c->req.body_left : MAX_HEAD;
        if (c->parsed && c->in.len >= limit)
            return route(c) ? (start_reply(c, 0), 1) : 0;
        if (tb_buf_reserve(&c->in, limit - c->in.len) < 0) {
            conn_close(c);
            return -1;
        }
        size_t n = 0;
        tb_sock_status st = c->sock.ops->read(&c->sock, c->in.p + c->in.len, limit - c->in.len, &n);
        if (st == TB_SOCK_RETRY) {
            if (set_mask(c, c->sock.want) < 0) {
                conn_close(c);
                return -1;
            }
            return 0;
        }
        if (st == TB_SOCK_ERROR || n == 0) { /* the client left: nobody to answer */
            conn_close(c);
            return -1;
        }
        if (c->in.len == 0 || c->state == C_IDLE) { /* a request starts: its budget too */
            uint64_t now = tb_mono_ns();
            c->t0 = now;
            if (c->state == C_IDLE) {
                c->state = C_READ;
                list_append(s, c, L_IO, now);
            }
        }
        c->in.len += n;
    }
}

/* The reply went out: the next request, or the end of the connection. */
static int after_write(conn *c)
{
    tb_notary_server *s = c->s;
    uint64_t now = tb_mono_ns();
    c->served++;
    if (!c->keep) {
        if (c->sock.ssl) {
            ERR_clear_error();
            SSL_shutdown((SSL *)c->sock.ssl); /* close_notify; do not wait for the peer's */
            ERR_clear_error();
        }
        if (!c->refuse) {
            conn_close(c);
            return -1;
        }
        /* The client may still be sending: read (and drop) a little of it so
         * that close() does not reset the connection before our answer lands. */
        shutdown(c->sock.fd, SHUT_WR);
        c->state = C_DRAIN;
        list_append(s, c, L_DRAIN, now);
        return 1;
    }
    tb_buf_consume(&c->in, c->req.head_len + (size_t)c->req.body_left);
    tb_http_req_reset(&c->req);
    c->parsed = 0;
    c->method[0] = c->path[0] = 0;
    if (set_mask(c, TB_EV_READABLE) < 0) {
        conn_close(c);
        return -1;
    }
    if (c->in.len) { /* a pipelined request is here already: its budget starts now */
        c->state = C_READ;
        c->t0 = now;
        list_append(s, c, L_IO, now);
        return 1;
    }
    c->state = C_IDLE;
    list_append(s, c, L_IDLE, now);
    /* TLS may hold the next request's bytes already (no readiness for them) */
    return c->sock.ops->readable(&c->sock) > 0 ? 1 : 0;
}

static int do_write(conn *c)
{
    while (c->sent < c->out.len) {
        size_t n = 0;
        tb_sock_status st =
            c->sock.ops->write(&c->sock, c->out.p + c->sent, c->out.len - c->sent, &n);
        c->sent += n;
        if (st == TB_SOCK_RETRY) {
            if (set_mask(c, c->sock.want) < 0) {
                conn_close(c);
                return -1;
            }
            return 0;
        }
        if (st == TB_SOCK_ERROR) {
            conn_close(c);
            return -1;
        }
    }
    return after_write(c);
}

static int do_drain(conn *c)
{
    char sink[4096];
    for (int i = 0; i < 16; i++) {
        ssize_t n = recv(c->sock.fd, sink, sizeof sink, 0);
        if (n > 0)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            if (set_mask(c, TB_EV_READABLE) < 0)
                break;
            return 0;
        }
        break; /* EOF or error: done */
    }
    conn_close(c);
    return -1;
}

/* Runs c's state machine until it has to wait. Returns -1 if c was closed. */
static int drive(conn *c)
{
    for (;;) {
        int rc;
        switch (c->state) {
        case C_HANDSHAKE: {
            tb_sock_status st = c->sock.ops->handshake(&c->sock);
            if (st == TB_SOCK_RETRY) {
                if (set_mask(c, c->sock.want) < 0) {
                    conn_close(c);
                    return -1;
                }
                return 0;
            }
            if (st == TB_SOCK_ERROR) { /* no TLS, no answer */
                ERR_clear_error();
                conn_close(c);
                return -1;
            }
            c->state = C_READ; /* same deadline: the handshake counts against it */
            rc = 1;
            break;
        }
        case C_READ:
        case C_IDLE:
            rc = do_read(c);
            break;
        case C_WRITE:
            rc = do_write(c);
            break;
        case C_DRAIN:
            rc = do_drain(c);
            break;
        default: /* C_BUSY: not driven by the loop */
            return 0;
        }
        if (rc <= 0)
            return rc;
    }
}

static void conn_event(tb_ev_loop *l, int fd, void *data, int mask)
{
    (void)l;
    (void)fd;
    (void)mask;
    drive(data);
}

/* Deadlines: closes or answers the connections whose time is up; returns the
 * delay until the next check. */
static int64_t sweep(tb_ev_loop *l, uint64_t id, void *data)
{
    (void)l;
    (void)id;
    tb_notary_server *s = data;
    uint64_t now = tb_mono_ns(), next = now + SWEEP_MAX_NS;
    for (int k = 0; k < L_COUNT; k++) {
        conn *c;
        while ((c = s->head[k]) && c->deadline <= now) {
            list_remove(s, c);
            if (c->state == C_READ && c->in.len > 0 && !s->stop_deadline) {
                char msg[96];
                snprintf(msg, sizeof msg, "request not received within %d ms",
                         s->cfg.io_timeout_ms);
                reply_error(&c->r, 408, msg);
                start_reply(c, 1);
                drive(c);
            } else { /* a silent client, an idle connection, a reply not taken */
                conn_close(c);
            }
        }
        if (s->head[k] && s->head[k]->deadline < next)
            next = s->head[k]->deadline;
    }
    int64_t delay = (int64_t)(next > now ? next - now : 0);
    return delay < 1000000 ? 1000000 : delay;
}

/* ---------------------------------------------------------------- accept */

/* At max_connections: closes the connection that has waited longest for a
 * request (idle first, then one still reading). Returns 0, or -1 if none. */
static int evict_one(tb_notary_server *s)
{
    conn *victim = s->head[L_IDLE];
    for (conn *c = s->head[L_IO]; !victim && c; c = c->lnext)
        if (c->state == C_READ || c->state == C_HANDSHAKE)
            victim = c;
    if (!victim)
        victim = s->head[L_DRAIN];
    if (!victim)
        return -1;
    conn_close(victim);
    return 0;
}

static void on_accept(tb_ev_loop *l, int lfd, void *data, int mask);

static int64_t rearm_accept(tb_ev_loop *l, uint64_t id, void *data)
{
    (void)id;
    tb_notary_server *s = data;
    s->accept_timer = 0;
    if (!s->stop_deadline)
        tb_ev_add(l, s->lfd, TB_EV_READABLE, on_accept, s, NULL);
    return TB_EV_NOMORE;
}

static void new_conn(tb_notary_server *s, int fd)
{
    if (fd >= s->setsize || (s->n_conns >= s->max_conns && evict_one(s) < 0)) {
        close(fd);
        return;
    }
    conn *c = calloc(1, sizeof *c);
    if (!c) {
        close(fd);
        return;
    }
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    memset(&ss, 0, sizeof ss);
    getpeername(fd, (struct sockaddr *)&ss, &sl);
    tb_notary_client_of((const struct sockaddr *)&ss, &c->who);
    tb_err err;
    c->s = s;
    c->list = L_NONE;
    c->born = c->t0 = tb_mono_ns();
    tb_http_req_init(&c->req, MAX_HEAD);
    c->req.max_headers = MAX_HEADERS;
    if (s->tls) {
        if (tb_tls_sock_init_server(&c->sock, s->tls, fd, &err) < 0) { /* fd closed */
            conn_free(c);
            return;
        }
        c->state = C_HANDSHAKE;
    } else {
        tb_sock_init_plain(&c->sock, fd);
        c->state = C_READ;
    }
    c->next = s->all;
    if (s->all)
        s->all->prev = c;
    s->all = c;
    s->n_conns++;
    list_append(s, c, L_IO, c->born);
    if (set_mask(c, TB_EV_READABLE) < 0)
        conn_close(c);
}

static void on_accept(tb_ev_loop *l, int lfd, void *data, int mask)
{
    (void)mask;
    tb_notary_server *s = data;
    for (int i = 0; i < 64; i++) {
        int fd;
        tb_err err;
        int rc = tb_sock_accept(lfd, &fd, &err);
        if (rc == 1)
            return;
        if (rc < 0) { /* out of fds or memory: pause accepting for 100 ms, do not spin */
            tb_ev_del(l, lfd, TB_EV_READABLE);
            if (!s->accept_timer)
                s->accept_timer = tb_ev_timer_add(l, 100000000, rearm_accept, s);
            return;
        }
        new_conn(s, fd);
    }
}

/* A worker handed connections back: send their replies. */
static void on_done(tb_ev_loop *l, int fd, void *data, int mask)
{
    (void)l;
    (void)mask;
    tb_notary_server *s = data;
    uint64_t v;
    ssize_t n = read(fd, &v, sizeof v);
    (void)n;
    pthread_mutex_lock(&s->mu);
    conn *list = s->done;
    s->done = NULL;
    pthread_mutex_unlock(&s->mu);
    while (list) {
        conn *c = list;
        list = c->qnext;
        c->qnext = NULL;
        c->in_worker = 0;
        tb_notary_quota2_give(&s->inflight, &c->who);
        if (c->zombie) { /* answered and closed while the worker had it */
            conn_unlink(s, c);
            conn_free(c);
            continue;
        }
        if (c->early) /* answered while the worker had it: being written or drained */
            continue;
        start_reply(c, 0);
        drive(c);
    }
}

/* The stop was asked: stop accepting, drop what is not being answered. */
static void on_stop(tb_ev_loop *l, int fd, void *data, int mask)
{
    (void)mask;
    tb_notary_server *s = data;
    tb_ev_del(l, fd, TB_EV_READABLE); /* stop_fd stays readable: it cancels fetches */
    if (s->stop_deadline)
        return;
    s->stop_deadline = tb_mono_ns() + STOP_GRACE_NS;
    tb_ev_del(l, s->lfd, TB_EV_READABLE);
    for (conn *c = s->all, *next; c; c = next) {
        next = c->next;
        if (c->state != C_BUSY && c->state != C_WRITE)
            conn_close(c);
        else if (c->list != L_NONE && c->deadline > s->stop_deadline)
            c->deadline = s->stop_deadline; /* the io list stays sorted: all get the same */
    }
    maybe_finish_stop(s);
}

/* A stop: answers 503 for c, whose worker has not handed it back (c->r, c->in
 * and c->req are the worker's: the reply is built in c->out alone). */
static void answer_early(conn *c)
{
    static const char body[] = "{\"error\":\"the notary is stopping\",\"status\":503}";
    tb_notary_server *s = c->s;
    c->early = 1;
    c->keep = 0;
    c->refuse = 1;
    c->sent = 0;
    tb_buf_reset(&c->out);
    if (tb_buf_printf(&c->out,
                      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                      "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
                      sizeof body - 1, body) < 0) {
        conn_close(c);
        return;
    }
    if (s->cfg.log) {
        char line[160];
        snprintf(line, sizeof line,
                 "%s %s -> 503 (%.3f ms): the notary is stopping (answered "
                 "while its worker was still busy)",
                 c->method, c->path, (double)(tb_mono_ns() - c->t0) / 1e6);
        s->cfg.log(s->cfg.log_ctx, line);
    }
    c->state = C_WRITE;
    list_append(s, c, L_IO, tb_mono_ns());
    if (set_mask(c, TB_EV_WRITABLE) < 0) {
        conn_close(c);
        return;
    }
    drive(c);
}

static int64_t stop_timer(tb_ev_loop *l, uint64_t id, void *data)
{
    (void)id;
    tb_notary_server *s = data;
    uint64_t now = tb_mono_ns();
    if (s->stop_deadline && !s->stop_answered &&
        now + STOP_GRACE_NS >= s->stop_deadline + STOP_ANSWER_NS) {
        s->stop_answered = 1;
        for (conn *c = s->all, *next; c; c = next) {
            next = c->next;
            if (c->state == C_BUSY && !c->zombie)
                answer_early(c);
        }
    }
    if (s->stop_deadline && now >= s->stop_deadline + STOP_GRACE_NS) {
        tb_ev_stop(l); /* replies still in workers after the grace: give up on them */
        return TB_EV_NOMORE;
    }
    return 50000000;
}

static void *loop_main(void *arg)
{
    tb_notary_server *s = arg;
    tb_err err;
    if (tb_ev_run(s->loop, &err) < 0 && s->cfg.log)
        s->cfg.log(s->cfg.log_ctx, err.msg);
    return NULL;
}

/* ------------------------------------------------------------- lifecycle */

static int build_info(tb_notary_server *s, tb_err *err)
{
    const tb_notary_config *c = &s->cfg;
    char kh[65];
    tb_hex_encode(c->key->spki_sha256, 32, kh);
    json_t *o = json_pack(
        "{s:s, s:s, s:s, s:b, s:s, s:s, s:i, s:I, s:I, s:I}", "name", "teebench-notary", "version",
        TEEBENCH_VERSION, "tee", tb_tee_name(c->tee ? c->tee->tee : TB_TEE_NONE), "simulated",
        c->tee ? tb_tee_simulated(c->tee->tee) : 0, "publicKey", (const char *)c->key->pem.p,
        "publicKeySha256", kh, "documentVersion", TB_NOTARY_DOC_VERSION, "maxSentData",
        (json_int_t)c->max_sent, "maxRecvData", (json_int_t)c->max_recv, "sessionTimeoutMs",
        (json_int_t)(c->session_ttl_ns / 1000000u));
    if (!o)
        return tb_errf(err, "building /info: out of memory");
    if (c->tee) {
        tb_notary_evidence ev;
        tb_buf j = {0};
        if (tb_notary_evidence_make(c->tee, NULL, 0, c->key->spki_sha256, &ev, err) < 0 ||
            tb_notary_evidence_to_json(&ev, &j, err) < 0) {
            tb_notary_evidence_clear(&ev);
            tb_buf_clear(&j);
            json_decref(o);
            return tb_err_wrap(err, "TEE quote for /info");
        }
        json_object_set_new(o, "evidence", json_loadb((const char *)j.p, j.len, 0, NULL));
        tb_notary_evidence_clear(&ev);
        tb_buf_clear(&j);
    }
    char *txt = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    int rc = txt ? tb_buf_puts(&s->info, txt) : -1;
    free(txt);
    return rc < 0 ? tb_errf(err, "building /info: out of memory") : 0;
}

static int listen_on(tb_notary_server *s, tb_err *err)
{
    char port[8];
    snprintf(port, sizeof port, "%u", s->cfg.port);
    if (tb_sock_listen(s->cfg.addr, port, 512, 0, &s->lfd, err) < 0)
        return tb_err_wrap(err, "notary");
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    if (getsockname(s->lfd, (struct sockaddr *)&ss, &sl) < 0)
        return tb_errno(err, "getsockname");
    s->port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                             : ((struct sockaddr_in *)&ss)->sin_port);
    return 0;
}

static int tls_setup(tb_notary_server *s, tb_err *err)
{
    const char *cert = s->cfg.tls_cert, *key = s->cfg.tls_key ? s->cfg.tls_key : s->cfg.tls_cert;
    s->tls = tb_tls_server_ctx_new(cert, key, err);
    if (!s->tls)
        return tb_err_wrap(err, "--tls-cert/--tls-key");
    SSL_CTX_set_min_proto_version(s->tls, TLS1_2_VERSION);
    /* idle connections give their read/write buffers back */
    SSL_CTX_set_mode(s->tls, SSL_MODE_RELEASE_BUFFERS);
    return 0;
}

/* The fd budget: the loop watches fds below the soft RLIMIT_NOFILE. */
static void size_limits(tb_notary_server *s)
{
    uint64_t cur = tb_fd_limit_raise(0);
    if (cur == 0)
        cur = 1024;
    if (cur > (1u << 20))
        cur = 1u << 20;
    s->setsize = (int)cur;
    size_t want = s->cfg.max_connections ? s->cfg.max_connections : DEFAULT_MAX_CONNECTIONS;
    /* leave room for the workers' target sockets, the lookups (an eventfd and a
     * DNS socket each) and the rest of the process */
    size_t other = (size_t)s->cfg.concurrency + 2 * s->cfg.max_resolutions + 64;
    size_t room = cur > (uint64_t)other ? (size_t)cur - other : 16;
    s->max_conns = want < room ? want : room;
}

static int start_threads(tb_notary_server *s, tb_err *err)
{
    s->workers = calloc((size_t)s->cfg.concurrency, sizeof *s->workers);
    if (!s->workers)
        return tb_errf(err, "out of memory");
    for (int i = 0; i < s->cfg.concurrency; i++) {
        int e = pthread_create(&s->workers[i], NULL, worker_main, s);
        if (e) {
            errno = e;
            return tb_errno(err, "starting worker threads");
        }
        s->n_workers++;
    }
    int e = pthread_create(&s->loop_thread, NULL, loop_main, s);
    if (e) {
        errno = e;
        return tb_errno(err, "starting the event loop thread");
    }
    s->loop_started = 1;
    return 0;
}

int tb_notary_server_start(const tb_notary_config *cfg, tb_notary_server **out, tb_err *err)
{
    if (cfg->concurrency < 1 || cfg->concurrency > 1024)
        return tb_errf(err, "concurrency must be 1..1024");
    if (cfg->max_sent < 1 || cfg->max_recv < 1 || cfg->max_sent > TB_NOTARY_DOC_MAX_DATA ||
        cfg->max_recv > TB_NOTARY_DOC_MAX_DATA)
        return tb_errf(err, "limits must be 1..%u bytes", TB_NOTARY_DOC_MAX_DATA);
    tb_notary_server *s = calloc(1, sizeof *s);
    if (!s)
        return tb_errf(err, "out of memory");
    s->cfg = *cfg;
    if (s->cfg.io_timeout_ms <= 0)
        s->cfg.io_timeout_ms = 5000;
    if (!s->cfg.session_ttl_ns)
        s->cfg.session_ttl_ns = 10000000000ull;
    /* lookups that never end may hold at most half the workers */
    if (!s->cfg.max_resolutions)
        s->cfg.max_resolutions = cfg->concurrency > 1 ? (size_t)cfg->concurrency / 2 : 1;
    if (!s->cfg.resolutions_per_client)
        s->cfg.resolutions_per_client = 4;
    if (!s->cfg.resolutions_per_prefix)
        s->cfg.resolutions_per_prefix = 2 * s->cfg.resolutions_per_client;
    s->keys = cfg->keys;
    pthread_mutex_init(&s->keys_mu, NULL);
    s->lfd = s->stop_fd = s->done_fd = -1;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    s->list_ns[L_IO] = (uint64_t)s->cfg.io_timeout_ms * 1000000u;
    s->list_ns[L_IDLE] = IDLE_NS;
    s->list_ns[L_DRAIN] = DRAIN_NS;
    for (int k = 0; k < L_COUNT; k++)
        s->head[k] = s->tail[k] = NULL;
    /* the body holds the base64 request plus a little JSON */
    s->max_body = (size_t)cfg->max_sent / 3 * 4 + 8 + 4096;
    size_limits(s);
    /* default: half the workers, so one client never holds all of them */
    size_t half = cfg->concurrency > 1 ? (size_t)cfg->concurrency / 2 : 1;
    size_t per_client = cfg->notarizations_per_client ? cfg->notarizations_per_client : half;
    size_t per_prefix = cfg->notarizations_per_prefix ? cfg->notarizations_per_prefix : per_client;
    size_t sess_addr = cfg->sessions_per_client ? cfg->sessions_per_client : 64;
    tb_notary_limits lim = {
        .cap = cfg->max_sessions ? cfg->max_sessions : 4096,
        .per_addr = sess_addr,
        .per_prefix = cfg->sessions_per_prefix ? cfg->sessions_per_prefix : 4 * sess_addr,
        .reserved = cfg->reserved_sessions,
        .reserve_below = cfg->reserve_below ? cfg->reserve_below : 8,
    };
    tb_notary_resolver_opts ro = {.max = s->cfg.max_resolutions,
                                  .per_addr = s->cfg.resolutions_per_client,
                                  .per_prefix = s->cfg.resolutions_per_prefix};
    if (tb_notary_quota2_init(&s->inflight, s->max_conns, per_client, per_prefix, err) < 0 ||
        tb_notary_session_table_init(&s->sessions, &lim, s->cfg.session_ttl_ns, err) < 0 ||
        !(s->resolver = tb_notary_resolver_new(&ro, err)) || build_info(s, err) < 0 ||
        (cfg->tls_cert && tls_setup(s, err) < 0) || listen_on(s, err) < 0)
        goto fail;
    s->stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    s->done_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (s->stop_fd < 0 || s->done_fd < 0) {
        tb_errno(err, "eventfd");
        goto fail;
    }
    if (!(s->loop = tb_ev_new(s->setsize, 8, err)))
        goto fail;
    if (tb_ev_add(s->loop, s->lfd, TB_EV_READABLE, on_accept, s, err) < 0 ||
        tb_ev_add(s->loop, s->stop_fd, TB_EV_READABLE, on_stop, s, err) < 0 ||
        tb_ev_add(s->loop, s->done_fd, TB_EV_READABLE, on_done, s, err) < 0)
        goto fail;
    if (!tb_ev_timer_add(s->loop, SWEEP_MAX_NS, sweep, s) ||
        !tb_ev_timer_add(s->loop, 50000000, stop_timer, s)) {
        tb_errf(err, "event loop: no timer slot");
        goto fail;
    }
    if (start_threads(s, err) < 0)
        goto fail;
    *out = s;
    return 0;
fail:
    tb_notary_server_stop(s);
    return -1;
}

uint16_t tb_notary_server_port(const tb_notary_server *s)
{
    return s->port;
}

const tb_notary_keys *tb_notary_server_set_keys(tb_notary_server *s, const tb_notary_keys *keys)
{
    pthread_mutex_lock(&s->keys_mu);
    const tb_notary_keys *old = s->keys;
    s->keys = keys;
    pthread_mutex_unlock(&s->keys_mu);
    return old;
}

void tb_notary_server_stats_get(tb_notary_server *s, tb_notary_server_stats *out)
{
    out->unauthorized = atomic_load(&s->n_unauthorized);
    out->over_quota = atomic_load(&s->n_over_quota);
    out->table_full = atomic_load(&s->n_table_full);
    out->lookup_expired = atomic_load(&s->n_lookup_expired);
}

void tb_notary_server_stop(tb_notary_server *s)
{
    if (!s)
        return;
    atomic_store(&s->stopping, 1);
    if (s->stop_fd >= 0) {
        uint64_t one = 1;
        ssize_t n = write(s->stop_fd, &one, sizeof one);
        (void)n;
    }
    if (s->loop_started)
        pthread_join(s->loop_thread, NULL);
    pthread_mutex_lock(&s->mu);
    s->quit = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    for (int i = 0; i < s->n_workers; i++)
        pthread_join(s->workers[i], NULL);
    free(s->workers);
    /* whatever the loop did not finish (jobs never started are still listed) */
    while (s->all) {
        conn *c = s->all;
        s->all = c->next;
        if (c->sock.fd >= 0)
            c->sock.ops->close(&c->sock);
        conn_free(c);
    }
    if (s->lfd >= 0)
        close(s->lfd);
    if (s->stop_fd >= 0)
        close(s->stop_fd);
    if (s->done_fd >= 0)
        close(s->done_fd);
    tb_ev_free(s->loop);
    tb_notary_session_table_clear(&s->sessions);
    tb_notary_quota2_clear(&s->inflight);
    tb_notary_resolver_release(s->resolver); /* lookups still running keep it */
    pthread_mutex_destroy(&s->keys_mu);
    tb_buf_clear(&s->info);
    tb_tls_ctx_free(s->tls);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    free(s);
}
