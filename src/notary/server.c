/* notary/server: listener, worker threads, request routing and the
 * notarization itself (see server.h). Invariants: every socket operation on a
 * client connection is bounded by the request deadline; a session is claimed
 * (made unusable) only once its request body has been fully validated; a
 * document is signed only for a complete response within the session limits. */
#include "notary/server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include "base/buf.h"
#include "base/clock.h"
#include "notary/codec.h"
#include "notary/doc.h"
#include "notary/proto.h"
#include "notary/session.h"
#include "base/hex.h"

struct tb_notary_server {
    tb_notary_config cfg;
    int lfd;
    atomic_int stopping; /* set by tb_notary_server_stop before it wakes the workers */
    uint16_t port;
    pthread_t *threads;
    int n_threads;
    tb_session_table sessions;
    tb_buf info;  /* the GET /info body, built at start */
    SSL_CTX *tls; /* server TLS context (NULL: plain HTTP) */
    size_t max_body;
};

/* One response being built by a handler. */
typedef struct reply {
    int status;
    tb_buf body;
} reply;

static const char *reason(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
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
    case 414:
        return "URI Too Long";
    case 422:
        return "Unprocessable Content";
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

/* ------------------------------------------------------------ socket I/O */

static int remaining_ms(uint64_t deadline)
{
    uint64_t now = tb_mono_ns();
    return now >= deadline ? 0 : (int)((deadline - now) / 1000000u) + 1;
}

/* A client connection: a non-blocking socket, with TLS when the notary has a
 * certificate. conn_io moves bytes one way, waiting with poll until deadline. */
typedef struct conn {
    int fd;
    SSL *ssl;
} conn;

enum { IO_EOF = 0, IO_ERROR = -1, IO_TIMEOUT = -2 };

/* Returns the byte count (> 0), IO_EOF, IO_ERROR or IO_TIMEOUT. op: 'r', 'w' or
 * 'h' (TLS handshake; returns 1 when done). */
static ssize_t conn_io(conn *c, int op, void *buf, size_t n, uint64_t deadline)
{
    for (;;) {
        short want;
        if (c->ssl) {
            size_t done = 0;
            int ok = op == 'h'   ? SSL_accept(c->ssl)
                     : op == 'w' ? SSL_write_ex(c->ssl, buf, n, &done)
                                 : SSL_read_ex(c->ssl, buf, n, &done);
            if (ok == 1)
                return op == 'h' ? 1 : (ssize_t)done;
            int e = SSL_get_error(c->ssl, ok);
            if (e == SSL_ERROR_WANT_READ)
                want = POLLIN;
            else if (e == SSL_ERROR_WANT_WRITE)
                want = POLLOUT;
            else {
                ERR_clear_error();
                return e == SSL_ERROR_ZERO_RETURN ? IO_EOF : IO_ERROR;
            }
        } else {
            ssize_t r = op == 'w' ? send(c->fd, buf, n, MSG_NOSIGNAL) : recv(c->fd, buf, n, 0);
            if (r >= 0)
                return r;
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                return IO_ERROR;
            want = op == 'w' ? POLLOUT : POLLIN;
        }
        int ms = remaining_ms(deadline);
        struct pollfd p = {c->fd, want, 0};
        if (ms == 0 || poll(&p, 1, ms) <= 0)
            return IO_TIMEOUT;
    }
}

/* Reads one request (head + body) into in, which may already hold bytes of it
 * (pipelined after the previous request). Returns 0, or -1 with r set (or
 * r->status 0 when the peer went away or, on an idle kept-alive connection
 * (idle_deadline != 0), sent nothing before idle_deadline: no answer then). */
static int read_request(tb_notary_server *s, conn *c, uint64_t deadline, uint64_t idle_deadline,
                        tb_buf *in, tb_nreq *req, reply *r)
{
    tb_err err;
    int status = 0;
    size_t need = 0;
    for (;;) {
        if (!need) {
            int pr = tb_nreq_parse(in->p, in->len, s->max_body, req, &status, &err);
            if (pr < 0) {
                reply_error(r, status, err.msg);
                return -1;
            }
            if (pr == 1)
                need = req->head_len + req->content_length;
        }
        if (need && in->len >= need)
            return 0;
        if (tb_buf_reserve(in, 4096) < 0) {
            reply_error(r, 500, "out of memory");
            return -1;
        }
        int idle = idle_deadline && in->len == 0;
        ssize_t n = conn_io(c, 'r', in->p + in->len, in->cap - in->len - 1,
                            idle ? idle_deadline : deadline);
        if (n == IO_TIMEOUT && idle) {
            r->status = 0;
            return -1;
        }
        if (n == IO_TIMEOUT) {
            reply_error(r, 408, "request not received in time");
            return -1;
        }
        if (n <= 0) {
            r->status = 0; /* the client left */
            return -1;
        }
        in->len += (size_t)n;
        in->p[in->len] = 0;
    }
}

static void write_all(conn *c, const void *p, size_t len, uint64_t deadline)
{
    const uint8_t *b = p;
    while (len) {
        ssize_t n = conn_io(c, 'w', (void *)b, len, deadline);
        if (n <= 0)
            return;
        b += n;
        len -= (size_t)n;
    }
}

/* Sends the reply; unless keep, then closes the TLS session and, after an
 * error (drain), reads what the client still sends for a moment. */
static void send_reply(conn *c, const reply *r, uint64_t deadline, int drain, int keep)
{
    char head[256];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\nConnection: %s\r\n\r\n",
                     r->status, reason(r->status), r->body.len, keep ? "keep-alive" : "close");
    tb_buf all = {0};
    /* one write (one TLS record for small replies) */
    if (tb_buf_append(&all, head, (size_t)n) == 0 &&
        tb_buf_append(&all, r->body.p, r->body.len) == 0)
        write_all(c, all.p, all.len, deadline);
    tb_buf_free(&all);
    if (keep)
        return;
    if (c->ssl) {
        SSL_shutdown(c->ssl); /* close_notify; do not wait for the peer's */
        ERR_clear_error();
    }
    if (!drain)
        return;
    /* After an error the client may still be sending: read a little of it so
     * that close() does not reset the connection before our answer arrives. */
    shutdown(c->fd, SHUT_WR);
    uint64_t until = tb_mono_ns() + 200000000u;
    char sink[4096];
    for (int i = 0; i < 64; i++) {
        struct pollfd pf = {c->fd, POLLIN, 0};
        int ms = remaining_ms(until < deadline ? until : deadline);
        if (ms == 0 || poll(&pf, 1, ms) <= 0 || recv(c->fd, sink, sizeof sink, 0) <= 0)
            break;
    }
}

/* -------------------------------------------------------------- handlers */

static void handle_session(tb_notary_server *s, const char *body, size_t len, reply *r)
{
    tb_err err;
    tb_session_req q;
    if (tb_session_req_parse(body, len, &q, &err) < 0) {
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
    tb_session ss;
    memset(&ss, 0, sizeof ss);
    ss.max_sent = q.max_sent ? q.max_sent : s->cfg.max_sent;
    ss.max_recv = q.max_recv ? q.max_recv : s->cfg.max_recv;
    ss.tee = q.tee;
    memcpy(ss.nonce, q.nonce, q.nonce_len);
    ss.nonce_len = q.nonce_len;
    if (tb_session_create(&s->sessions, &ss, tb_mono_ns(), &err) < 0) {
        reply_error(r, 503, err.msg);
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
static void notarize_reply(tb_notary_server *s, const tb_session *ss, const tb_notarize_req *q,
                           tb_fetch *f, reply *r)
{
    tb_err err;
    const uint8_t *nonce = ss->nonce_len ? ss->nonce : ss->id;
    size_t nonce_len = ss->nonce_len ? ss->nonce_len : 16;
    tb_doc d;
    memset(&d, 0, sizeof d);
    memcpy(d.session_id, ss->id, 16);
    d.time_ms = tb_wall_ns() / 1000000u;
    d.server_name = (tb_view){(const uint8_t *)q->server_name, strlen(q->server_name)};
    d.target_host = (tb_view){(const uint8_t *)q->host, strlen(q->host)};
    d.target_port = q->port;
    const char *tee = ss->tee ? s->cfg.tee->kind : "none";
    d.tee = (tb_view){(const uint8_t *)tee, strlen(tee)};
    if (ss->tee)
        d.nonce = (tb_view){nonce, nonce_len};
    d.notary_key = (tb_view){s->cfg.key->spki.p, s->cfg.key->spki.len};
    d.n_certs = f->n_certs;
    for (size_t i = 0; i < f->n_certs; i++)
        d.certs[i] = (tb_view){f->certs.p + f->cert_off[i], f->cert_len[i]};
    d.request = (tb_view){q->request.p, q->request.len};
    d.response = (tb_view){f->response.p, f->response.len};
    tb_buf doc = {0};
    tb_evidence ev;
    memset(&ev, 0, sizeof ev);
    if (tb_doc_encode_sign(&d, s->cfg.key, &doc, &err) < 0) {
        reply_error(r, 500, err.msg);
        goto out;
    }
    if (ss->tee &&
        tb_evidence_make(s->cfg.tee, nonce, nonce_len, s->cfg.key->spki_sha256, &ev, &err) < 0) {
        reply_error(r, 500, err.msg);
        goto out;
    }
    r->status = 200;
    int rc = tb_buf_puts(&r->body, "{\"document\":\"") |
             tb_notary_b64_append(&r->body, doc.p, doc.len) | tb_buf_puts(&r->body, "\"");
    if (ss->tee)
        rc |= tb_buf_puts(&r->body, ",\"evidence\":") | tb_evidence_to_json(&ev, &r->body, &err);
    rc |= tb_buf_puts(&r->body, "}");
    if (rc)
        reply_error(r, 500, "out of memory");
out:
    tb_buf_free(&doc);
    tb_evidence_free(&ev);
}

static void handle_notarize(tb_notary_server *s, const tb_nreq *req, const char *body, size_t len,
                            reply *r)
{
    tb_err err;
    char idhex[64];
    uint8_t id[16];
    if (tb_nreq_query(req->query, "sessionId", idhex, sizeof idhex) < 0 ||
        tb_hex_decode_upto(idhex, strlen(idhex), id, sizeof id) != 16) {
        reply_error(r, 400, "sessionId query parameter missing or not 32 hex digits");
        return;
    }
    tb_notarize_req q;
    if (tb_notarize_req_parse(body, len, &q, &err) < 0) {
        reply_error(r, 400, err.msg);
        return;
    }
    tb_session ss;
    tb_fetch f;
    memset(&f, 0, sizeof f);
    switch (tb_session_claim(&s->sessions, id, tb_mono_ns(), &ss)) {
    case TB_CLAIM_OK:
        break;
    case TB_CLAIM_USED:
        reply_error(r, 409, "session already used (a session notarizes once)");
        goto out;
    case TB_CLAIM_EXPIRED:
        reply_error(r, 410, "session expired");
        goto out;
    default:
        reply_error(r, 404, "unknown session");
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
    int status = 502;
    if (tb_target_fetch(s->cfg.target, q.host, q.port, q.server_name, q.request.p, q.request.len,
                        ss.max_recv, &f, &status, &err) < 0) {
        reply_error(r, status, err.msg);
        goto out;
    }
    notarize_reply(s, &ss, &q, &f, r);
out:
    tb_fetch_free(&f);
    tb_notarize_req_free(&q);
}

static void route(tb_notary_server *s, const tb_nreq *req, const char *body, size_t len, reply *r)
{
    int get = !strcmp(req->method, "GET"), post = !strcmp(req->method, "POST");
    const char *p = req->path;
    int want_get = !strcmp(p, "/healthcheck") || !strcmp(p, "/info");
    int want_post = !strcmp(p, "/session") || !strcmp(p, "/notarize");
    if (!want_get && !want_post)
        reply_error(r, 404, "no such endpoint (see GET /info)");
    else if (want_get && !get)
        reply_error(r, 405, "use GET");
    else if (want_post && !post)
        reply_error(r, 405, "use POST");
    else if (!strcmp(p, "/healthcheck")) {
        r->status = 200;
        tb_buf_puts(&r->body, "{\"status\":\"ok\"}");
    } else if (!strcmp(p, "/info")) {
        r->status = 200;
        tb_buf_append(&r->body, s->info.p, s->info.len);
    } else if (!strcmp(p, "/session"))
        handle_session(s, body, len, r);
    else
        handle_notarize(s, req, body, len, r);
}

static void log_request(tb_notary_server *s, const tb_nreq *req, const reply *r, uint64_t t0)
{
    char line[TB_ERR_MAX + 128];
    snprintf(line, sizeof line, "%s %s -> %d (%.3f ms)%s%.*s", req->method[0] ? req->method : "-",
             req->path[0] ? req->path : "-", r->status, (double)(tb_mono_ns() - t0) / 1e6,
             r->status >= 400 ? ": " : "", r->status >= 400 ? (int)r->body.len : 0,
             (const char *)r->body.p);
    s->cfg.log(s->cfg.log_ctx, line);
}

/* Serves one connection: up to MAX_KEEPALIVE requests while the client keeps
 * it alive and every answer is a success; an idle connection is closed after
 * IDLE_MS without a new request (so a stop never waits long for it). */
#define MAX_KEEPALIVE 100
#define IDLE_MS 500
static void serve_conn(tb_notary_server *s, int fd, tb_buf *in, reply *r)
{
    uint64_t io_ns = (uint64_t)s->cfg.io_timeout_ms * 1000000u;
    conn c = {fd, NULL};
    if (s->tls) {
        c.ssl = SSL_new(s->tls);
        if (!c.ssl || !SSL_set_fd(c.ssl, fd) ||
            conn_io(&c, 'h', NULL, 0, tb_mono_ns() + io_ns) != 1) {
            SSL_free(c.ssl);
            ERR_clear_error();
            return; /* no TLS, no answer */
        }
    }
    tb_buf_reset(in);
    for (int i = 0; i < MAX_KEEPALIVE; i++) {
        uint64_t t0 = tb_mono_ns();
        tb_nreq req;
        memset(&req, 0, sizeof req);
        tb_buf_reset(&r->body);
        r->status = 0;
        uint64_t idle = i ? t0 + (uint64_t)IDLE_MS * 1000000u : 0;
        int bad = read_request(s, &c, t0 + io_ns, idle, in, &req, r) < 0;
        if (!bad)
            route(s, &req, (const char *)in->p + req.head_len, req.content_length, r);
        int keep = !bad && r->status < 400 && req.keep_alive && i + 1 < MAX_KEEPALIVE &&
                   !atomic_load(&s->stopping);
        if (r->status) /* writing gets its own deadline: notarizing may have used the first */
            send_reply(&c, r, tb_mono_ns() + io_ns, bad || r->status >= 400, keep);
        if (s->cfg.log && (r->status || !idle))
            log_request(s, &req, r, t0);
        if (!keep)
            break;
        tb_buf_consume(in, req.head_len + req.content_length);
    }
    SSL_free(c.ssl);
}

static void *worker(void *arg)
{
    tb_notary_server *s = arg;
    tb_buf in = {0};
    reply r = {0, {0}};
    /* A blocking accept wakes one worker per connection (no thundering herd);
     * tb_notary_server_stop shuts the listening socket down to wake them all. */
    while (!atomic_load(&s->stopping)) {
        int fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                tb_sleep_ns(10000000); /* out of descriptors: back off, do not spin */
            continue;
        }
        serve_conn(s, fd, &in, &r);
        close(fd);
    }
    tb_buf_free(&in);
    tb_buf_free(&r.body);
    return NULL;
}

/* ------------------------------------------------------------- lifecycle */

static int build_info(tb_notary_server *s, tb_err *err)
{
    const tb_notary_config *c = &s->cfg;
    char kh[65];
    tb_hex_encode(c->key->spki_sha256, 32, kh);
    json_t *o =
        json_pack("{s:s, s:s, s:s, s:b, s:s, s:s, s:i, s:I, s:I, s:I}", "name", "teebench-notary",
                  "version", TEEBENCH_VERSION, "tee", c->tee ? c->tee->kind : "none", "simulated",
                  c->tee ? c->tee->simulated : 0, "publicKey", (const char *)c->key->pem.p,
                  "publicKeySha256", kh, "documentVersion", TB_DOC_VERSION, "maxSentData",
                  (json_int_t)c->max_sent, "maxRecvData", (json_int_t)c->max_recv,
                  "sessionTimeoutMs", (json_int_t)(c->session_ttl_ns / 1000000u));
    if (!o)
        return tb_errf(err, "building /info: out of memory");
    if (c->tee) {
        tb_evidence ev;
        tb_buf j = {0};
        if (tb_evidence_make(c->tee, NULL, 0, c->key->spki_sha256, &ev, err) < 0 ||
            tb_evidence_to_json(&ev, &j, err) < 0) {
            tb_evidence_free(&ev);
            tb_buf_free(&j);
            json_decref(o);
            return tb_err_wrap(err, "TEE quote for /info");
        }
        json_object_set_new(o, "evidence", json_loadb((const char *)j.p, j.len, 0, NULL));
        tb_evidence_free(&ev);
        tb_buf_free(&j);
    }
    char *txt = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    int rc = txt ? tb_buf_puts(&s->info, txt) : -1;
    free(txt);
    return rc < 0 ? tb_errf(err, "building /info: out of memory") : 0;
}

static int listen_on(tb_notary_server *s, tb_err *err)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV;
    char ps[8];
    snprintf(ps, sizeof ps, "%u", s->cfg.port);
    int gai = getaddrinfo(s->cfg.addr, ps, &hints, &res);
    if (gai)
        return tb_errf(err, "listen address %s: %s", s->cfg.addr, gai_strerror(gai));
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd >= 0)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) < 0 || listen(fd, 512) < 0) {
        tb_errno(err, "listening on %s:%u", s->cfg.addr, s->cfg.port);
        if (fd >= 0)
            close(fd);
        freeaddrinfo(res);
        return -1;
    }
    freeaddrinfo(res);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    getsockname(fd, (struct sockaddr *)&ss, &sl);
    s->port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                             : ((struct sockaddr_in *)&ss)->sin_port);
    s->lfd = fd;
    return 0;
}

static int tls_setup(tb_notary_server *s, tb_err *err)
{
    const char *cert = s->cfg.tls_cert, *key = s->cfg.tls_key ? s->cfg.tls_key : s->cfg.tls_cert;
    s->tls = SSL_CTX_new(TLS_server_method());
    if (!s->tls)
        return tb_err_ssl(err, "TLS server context");
    SSL_CTX_set_min_proto_version(s->tls, TLS1_2_VERSION);
    if (SSL_CTX_use_certificate_chain_file(s->tls, cert) != 1)
        return tb_err_ssl(err, "--tls-cert %s", cert);
    if (SSL_CTX_use_PrivateKey_file(s->tls, key, SSL_FILETYPE_PEM) != 1)
        return tb_err_ssl(err, "--tls-key %s", key);
    if (SSL_CTX_check_private_key(s->tls) != 1)
        return tb_err_ssl(err, "--tls-key %s does not match --tls-cert", key);
    return 0;
}

int tb_notary_server_start(const tb_notary_config *cfg, tb_notary_server **out, tb_err *err)
{
    if (cfg->concurrency < 1 || cfg->concurrency > 1024)
        return tb_errf(err, "concurrency must be 1..1024");
    if (cfg->max_sent < 1 || cfg->max_recv < 1 || cfg->max_sent > TB_DOC_MAX_DATA ||
        cfg->max_recv > TB_DOC_MAX_DATA)
        return tb_errf(err, "limits must be 1..%u bytes", TB_DOC_MAX_DATA);
    tb_notary_server *s = calloc(1, sizeof *s);
    if (!s)
        return tb_errf(err, "out of memory");
    s->cfg = *cfg;
    if (s->cfg.io_timeout_ms <= 0)
        s->cfg.io_timeout_ms = 5000;
    s->lfd = -1;
    /* the body holds the base64 request plus a little JSON */
    s->max_body = (size_t)cfg->max_sent / 3 * 4 + 8 + 4096;
    if (tb_session_table_init(&s->sessions, cfg->max_sessions ? cfg->max_sessions : 4096,
                              cfg->session_ttl_ns ? cfg->session_ttl_ns : 60000000000ull,
                              err) < 0 ||
        build_info(s, err) < 0 || listen_on(s, err) < 0) {
        tb_notary_server_stop(s);
        return -1;
    }
    if (cfg->tls_cert && tls_setup(s, err) < 0) {
        tb_notary_server_stop(s);
        return -1;
    }
    s->threads = calloc((size_t)cfg->concurrency, sizeof *s->threads);
    if (!s->threads) {
        tb_notary_server_stop(s);
        return tb_errf(err, "out of memory");
    }
    for (int i = 0; i < cfg->concurrency; i++) {
        int e = pthread_create(&s->threads[i], NULL, worker, s);
        if (e) {
            errno = e;
            tb_errno(err, "starting worker threads");
            tb_notary_server_stop(s);
            return -1;
        }
        s->n_threads++;
    }
    *out = s;
    return 0;
}

uint16_t tb_notary_server_port(const tb_notary_server *s)
{
    return s->port;
}

void tb_notary_server_stop(tb_notary_server *s)
{
    if (!s)
        return;
    atomic_store(&s->stopping, 1);
    if (s->lfd >= 0)
        shutdown(s->lfd, SHUT_RDWR); /* wakes every worker blocked in accept */
    for (int i = 0; i < s->n_threads; i++)
        pthread_join(s->threads[i], NULL);
    free(s->threads);
    if (s->lfd >= 0)
        close(s->lfd);
    tb_session_table_free(&s->sessions);
    tb_buf_free(&s->info);
    SSL_CTX_free(s->tls);
    free(s);
}
