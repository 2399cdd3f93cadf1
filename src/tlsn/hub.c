/* tlsn/hub: the static server, relay, proxy and /api endpoint (see hub.h).
 *
 * Every connection is a conn of one kind: HTTP (until it upgrades), WS (a relay
 * side or the browser side of a proxy) or TCP (the target side of a proxy). Bytes
 * read wait in c->in from c->in_off; bytes to send wait in c->out from
 * c->out_off. A conn's peer is its relay partner or the other side of its proxy
 * pair; peers point at each other or both at nothing. Invariants:
 * - a conn is freed only by conn_free, which first unlinks its peer (that one then
 *   closes after its queued bytes: close_after);
 * - READABLE is watched unless the conn is closing or its peer has more than
 *   max_pending queued bytes (then the peer's flush resumes it);
 * - WRITABLE is watched exactly while bytes are queued or a connect is pending;
 * - a relay side that is not yet paired keeps its frames in c->pending. */
#include "tlsn/hub.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>

#include "net/http_req.h"
#include "net/sock.h"
#include "net/ws.h"

#define MAX_FDS 1024
#define MAX_FILES 32
#define MAX_HEAD 16384
#define READ_CHUNK 65536

enum { K_HTTP, K_WS, K_TCP };
enum { WS_RELAY, WS_PROXY };

typedef struct conn conn;
struct conn {
    tb_tlsn_hub *h;
    int fd;
    int kind;
    int ws_kind;       /* K_WS: WS_RELAY or WS_PROXY */
    int channel, role; /* relay */
    int paired;        /* relay: it had a partner (pending is empty since) */
    int connecting;    /* K_TCP: connect in progress */
    int close_after;   /* close once out is flushed */
    int read_paused;   /* backpressure */
    int eof;           /* the socket said end of stream */
    conn *peer;
    conn *prev, *next; /* the hub's list */
    conn *wait_next;   /* relay: the queue of unpaired sides of (channel, role) */
    tb_buf in, out, pending;
    size_t in_off, out_off;
    tb_http_req req;
    int req_done;      /* HTTP: head parsed, waiting for the body */
    uint64_t body_len; /* HTTP: the body's length */
};

typedef struct file_ent {
    char path[128];
    const char *type;
    const uint8_t *data;
    size_t len;
} file_ent;

struct tb_tlsn_hub {
    tb_tlsn_hub_config c;
    char session[65];
    char target_host[256], target_port[16];
    tb_ev_loop *loop;
    int lfd;
    int port;
    conn *conns;
    conn *waiting[TB_TLSN_CHANNELS][TB_TLSN_ROLES];
    file_ent files[MAX_FILES];
    int n_files;
    tb_tlsn_hub_stats st;
};

static const char *const channel_names[TB_TLSN_CHANNELS] = {"mpc", "tee"};
static const char *const role_names[TB_TLSN_ROLES] = {"prover", "verifier"};

static void note(tb_tlsn_hub *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(tb_tlsn_hub *h, const char *fmt, ...)
{
    if (!h->c.note)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    h->c.note(h->c.ctx, line);
}

const char *tb_tlsn_content_type(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (!dot)
        return "application/octet-stream";
    if (!strcmp(dot, ".html"))
        return "text/html; charset=utf-8";
    if (!strcmp(dot, ".js"))
        return "text/javascript; charset=utf-8";
    if (!strcmp(dot, ".wasm"))
        return "application/wasm";
    if (!strcmp(dot, ".json"))
        return "application/json";
    if (!strcmp(dot, ".css"))
        return "text/css; charset=utf-8";
    return "application/octet-stream";
}

/* ---- connections ---- */

static void conn_update(conn *c);
static void on_event(tb_ev_loop *l, int fd, void *data, int mask);

static conn *conn_new(tb_tlsn_hub *h, int fd, int kind)
{
    if (fd >= MAX_FDS) {
        close(fd);
        return NULL;
    }
    conn *c = calloc(1, sizeof *c);
    if (!c) {
        close(fd);
        return NULL;
    }
    c->h = h;
    c->fd = fd;
    c->kind = kind;
    tb_http_req_init(&c->req, MAX_HEAD);
    c->next = h->conns;
    if (h->conns)
        h->conns->prev = c;
    h->conns = c;
    return c;
}

static size_t queued(const conn *c)
{
    return c->out.len - c->out_off;
}

static void unwait(conn *c)
{
    if (c->kind != K_WS || c->ws_kind != WS_RELAY || c->paired)
        return;
    conn **pp = &c->h->waiting[c->channel][c->role];
    while (*pp && *pp != c)
        pp = &(*pp)->wait_next;
    if (*pp)
        *pp = c->wait_next;
}

static void send_frame(conn *c, int opcode, int fin, const uint8_t *p, size_t n);

static void conn_free(conn *c)
{
    tb_tlsn_hub *h = c->h;
    if (c->kind == K_WS && c->ws_kind == WS_RELAY && !c->paired)
        note(h, "relay: the %s left the %s channel before the %s connected", role_names[c->role],
             channel_names[c->channel], role_names[!c->role]);
    unwait(c);
    conn *p = c->peer;
    if (p) {
        p->peer = NULL;
        if (p->kind == K_WS) {
            uint8_t pl[TB_WS_MAX_CONTROL];
            size_t n = tb_ws_close_payload(
                pl, c->kind == K_TCP ? TB_WS_CLOSE_NORMAL : TB_WS_CLOSE_GOING_AWAY,
                c->kind == K_TCP ? "target closed" : "peer gone");
            send_frame(p, TB_WS_CLOSE, 1, pl, n);
        }
        /* p closes in its own callback (never freed from here): */
        p->close_after = 1;
        p->connecting = 0;
        tb_err e;
        if (!(tb_ev_mask(h->loop, p->fd) & TB_EV_WRITABLE))
            tb_ev_add(h->loop, p->fd, TB_EV_WRITABLE, on_event, p, &e);
    }
    tb_ev_del(h->loop, c->fd, TB_EV_READABLE | TB_EV_WRITABLE);
    close(c->fd);
    if (c->prev)
        c->prev->next = c->next;
    else
        h->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    tb_buf_clear(&c->in);
    tb_buf_clear(&c->out);
    tb_buf_clear(&c->pending);
    free(c);
}

/* Sets the watched events from the state; frees c when it is done (c only:
 * conn_free never frees another conn). Callers must not touch c after it. */
static void conn_update(conn *c)
{
    tb_tlsn_hub *h = c->h;
    if (c->close_after && !queued(c) && !c->connecting) {
        conn_free(c);
        return;
    }
    int want = 0;
    if (!c->close_after && !c->read_paused && !c->eof && !c->connecting)
        want |= TB_EV_READABLE;
    if (queued(c) || c->connecting)
        want |= TB_EV_WRITABLE;
    int have = tb_ev_mask(h->loop, c->fd);
    if (have & ~want)
        tb_ev_del(h->loop, c->fd, have & ~want);
    if (want & ~have) {
        tb_err e;
        if (tb_ev_add(h->loop, c->fd, want & ~have, on_event, c, &e) < 0) {
            note(h, "hub: %s", e.msg);
            conn_free(c);
        }
    }
}

static void out_append(conn *c, const void *p, size_t n)
{
    if (c->out_off && c->out_off == c->out.len) {
        tb_buf_reset(&c->out);
        c->out_off = 0;
    }
    if (tb_buf_append(&c->out, p, n) < 0)
        c->close_after = 1;
}

static void send_frame(conn *c, int opcode, int fin, const uint8_t *p, size_t n)
{
    uint8_t hdr[TB_WS_MAX_HEADER];
    size_t hl = tb_ws_header_encode(hdr, opcode, fin, n);
    out_append(c, hdr, hl);
    out_append(c, p, n);
}

static void ws_fail(conn *c, int code, const char *why)
{
    uint8_t pl[TB_WS_MAX_CONTROL];
    size_t n = tb_ws_close_payload(pl, code, why);
    send_frame(c, TB_WS_CLOSE, 1, pl, n);
    c->close_after = 1;
}

/* Pauses reading from the peer of c while c has too much queued. */
static void check_pressure(conn *c)
{
    conn *src = c->peer;
    if (!src)
        return;
    size_t lim = c->h->c.max_pending;
    if (!src->read_paused && queued(c) > lim) {
        src->read_paused = 1;
        conn_update(src);
    } else if (src->read_paused && queued(c) < lim / 2) {
        src->read_paused = 0;
        conn_update(src);
    }
}

static void conn_flush(conn *c)
{
    while (queued(c)) {
        ssize_t w = send(c->fd, c->out.p + c->out_off, queued(c), MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EAGAIN || errno == EINTR)
                break;
            c->out_off = c->out.len; /* the peer is gone: drop what is left */
            c->close_after = 1;
            break;
        }
        c->out_off += (size_t)w;
    }
    if (c->out_off > (1u << 20) && c->out_off * 2 > c->out.len) {
        tb_buf_consume(&c->out, c->out_off);
        c->out_off = 0;
    }
    check_pressure(c);
}

/* ---- HTTP ---- */

static void http_head(tb_buf *b, int status, const char *reason, const char *type, size_t len,
                      int keep_alive)
{
    tb_buf_printf(b,
                  "HTTP/1.1 %d %s\r\n"
                  "Content-Type: %s\r\n"
                  "Content-Length: %zu\r\n"
                  "Cross-Origin-Opener-Policy: same-origin\r\n"
                  "Cross-Origin-Embedder-Policy: require-corp\r\n"
                  "Cross-Origin-Resource-Policy: same-origin\r\n"
                  "Cache-Control: no-store\r\n"
                  "Connection: %s\r\n\r\n",
                  status, reason, type, len, keep_alive ? "keep-alive" : "close");
}

static void respond(conn *c, int status, const char *reason, const char *type, const uint8_t *body,
                    size_t len, int keep_alive)
{
    tb_buf head = {0};
    http_head(&head, status, reason, type, len, keep_alive);
    out_append(c, head.p, head.len);
    tb_buf_clear(&head);
    if (len && !tb_http_req_method_is(&c->req, c->in.p + c->in_off, "HEAD"))
        out_append(c, body, len);
    if (!keep_alive)
        c->close_after = 1;
}

static void respond_text(conn *c, int status, const char *reason, const char *text)
{
    respond(c, status, reason, "text/plain; charset=utf-8", (const uint8_t *)text, strlen(text), 0);
}

static const file_ent *find_file(tb_tlsn_hub *h, const char *path, size_t n)
{
    for (int i = 0; i < h->n_files; i++)
        if (strlen(h->files[i].path) == n && !memcmp(h->files[i].path, path, n))
            return &h->files[i];
    return NULL;
}

/* Matches "<prefix>S" or "<prefix>S/<rest>" for this hub's session; *rest is what
   follows "S/" (or "" when nothing follows). 1 on a match. */
static int session_path(tb_tlsn_hub *h, const char *p, size_t n, const char *prefix,
                        const char **rest, size_t *rest_len)
{
    size_t pl = strlen(prefix), sl = strlen(h->session);
    if (n < pl + sl || memcmp(p, prefix, pl) || memcmp(p + pl, h->session, sl))
        return 0;
    p += pl + sl;
    n -= pl + sl;
    if (n == 0) {
        *rest = p;
        *rest_len = 0;
        return 1;
    }
    if (*p != '/')
        return 0;
    *rest = p + 1;
    *rest_len = n - 1;
    return 1;
}

static int pick(const char *const *names, int count, const char *p, size_t n)
{
    for (int i = 0; i < count; i++)
        if (strlen(names[i]) == n && !memcmp(names[i], p, n))
            return i;
    return -1;
}

static void relay_join(conn *c)
{
    tb_tlsn_hub *h = c->h;
    h->st.connected[c->channel][c->role]++;
    conn **other = &h->waiting[c->channel][!c->role];
    while (*other && (*other)->close_after) /* refused, flushing its close: not a partner */
        other = &(*other)->wait_next;
    if (!*other) {
        conn **pp = &h->waiting[c->channel][c->role];
        while (*pp)
            pp = &(*pp)->wait_next;
        *pp = c;
        return;
    }
    conn *p = *other;
    *other = p->wait_next;
    p->wait_next = NULL;
    c->peer = p;
    p->peer = c;
    c->paired = p->paired = 1;
    h->st.paired[c->channel]++;
    if (p->pending.len) {
        out_append(c, p->pending.p, p->pending.len);
        tb_buf_clear(&p->pending);
    }
    conn_update(p);
    conn_update(c);
}

static void tcp_connect(conn *c);

/* An upgrade request to /relay/ or /proxy/: checks, 101, becomes K_WS. */
static void ws_upgrade(conn *c, const char *path, size_t plen)
{
    tb_tlsn_hub *h = c->h;
    const uint8_t *buf = c->in.p + c->in_off;
    const char *rest;
    size_t rl;
    int ws_kind = -1, channel = 0, role = 0;
    if (session_path(h, path, plen, "/relay/", &rest, &rl)) {
        const char *slash = memchr(rest, '/', rl);
        if (slash) {
            channel = pick(channel_names, TB_TLSN_CHANNELS, rest, (size_t)(slash - rest));
            role = pick(role_names, TB_TLSN_ROLES, slash + 1, rl - (size_t)(slash + 1 - rest));
            if (channel >= 0 && role >= 0)
                ws_kind = WS_RELAY;
        }
    } else if (session_path(h, path, plen, "/proxy/", &rest, &rl) && rl == 0) {
        ws_kind = WS_PROXY;
    }
    if (ws_kind < 0) {
        respond_text(c, 404, "Not Found", "no such WebSocket endpoint\n");
        return;
    }
    char accept[TB_WS_ACCEPT_LEN + 1];
    tb_err e;
    if (tb_ws_handshake_check(&c->req, buf, accept, &e) < 0) {
        note(h, "hub: a bad WebSocket handshake: %s", e.msg);
        respond_text(c, 400, "Bad Request", e.msg);
        return;
    }
    tb_buf head = {0};
    tb_buf_printf(&head,
                  "HTTP/1.1 101 Switching Protocols\r\n"
                  "Upgrade: websocket\r\n"
                  "Connection: Upgrade\r\n"
                  "Sec-WebSocket-Accept: %s\r\n\r\n",
                  accept);
    out_append(c, head.p, head.len);
    tb_buf_clear(&head);
    c->in_off += c->req.head_len;
    c->kind = K_WS;
    c->ws_kind = ws_kind;
    if (ws_kind == WS_RELAY) {
        c->channel = channel;
        c->role = role;
        relay_join(c);
    } else {
        tcp_connect(c);
    }
}

static void http_request(conn *c)
{
    tb_tlsn_hub *h = c->h;
    const uint8_t *buf = c->in.p + c->in_off;
    const char *path, *query;
    size_t plen, qlen;
    tb_http_req_split_target(&c->req, buf, &path, &plen, &query, &qlen);
    h->st.http_requests++;
    const char *up;
    size_t upl;
    if (tb_http_req_header(&c->req, buf, "Upgrade", &up, &upl) > 0) {
        ws_upgrade(c, path, plen);
        return;
    }
    int ka = c->req.keep_alive;
    if (plen > 5 && !memcmp(path, "/api/", 5) && tb_http_req_method_is(&c->req, buf, "POST")) {
        if (!h->c.api || plen - 5 > 63) {
            respond_text(c, 404, "Not Found", "no such endpoint\n");
            return;
        }
        char name[64];
        memcpy(name, path + 5, plen - 5);
        name[plen - 5] = '\0';
        tb_buf resp = {0};
        tb_err e = {{0}};
        int rc = h->c.api(h->c.ctx, name, buf + c->req.head_len, (size_t)c->body_len, &resp, &e);
        if (rc < 0) {
            tb_buf_reset(&resp);
            json_t *j = json_pack("{ss}", "error", e.msg);
            char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
            tb_buf_puts(&resp, s ? s : "{}");
            free(s);
            json_decref(j);
        }
        respond(c, rc < 0 ? 400 : 200, rc < 0 ? "Bad Request" : "OK", "application/json", resp.p,
                resp.len, ka);
        tb_buf_clear(&resp);
        return;
    }
    if (!tb_http_req_method_is(&c->req, buf, "GET") &&
        !tb_http_req_method_is(&c->req, buf, "HEAD")) {
        respond_text(c, 405, "Method Not Allowed", "GET, HEAD, or POST to /api/\n");
        return;
    }
    const file_ent *f = plen > 1 ? find_file(h, path + 1, plen - 1) : NULL;
    if (!f) {
        respond(c, 404, "Not Found", "text/plain; charset=utf-8", (const uint8_t *)"not found\n",
                10, ka);
        return;
    }
    respond(c, 200, "OK", f->type, f->data, f->len, ka);
}

static int read_more(conn *c)
{
    if (c->in_off && c->in_off == c->in.len) {
        tb_buf_reset(&c->in);
        c->in_off = 0;
    }
    if (tb_buf_reserve(&c->in, READ_CHUNK) < 0)
        return -1;
    ssize_t r = recv(c->fd, c->in.p + c->in.len, READ_CHUNK, 0);
    if (r < 0)
        return (errno == EAGAIN || errno == EINTR) ? 0 : -1;
    if (r == 0) {
        c->eof = 1;
        return 0;
    }
    c->in.len += (size_t)r;
    c->in.p[c->in.len] = 0;
    return 1;
}

/* Handles the HTTP requests in c->in. */
static void http_process(conn *c)
{
    while (c->kind == K_HTTP && !c->close_after && c->in.len > c->in_off) {
        const uint8_t *buf = c->in.p + c->in_off;
        size_t len = c->in.len - c->in_off;
        if (!c->req_done) {
            int r = tb_http_req_parse(&c->req, buf, len);
            if (r == TB_HREQ_MORE)
                return;
            if (r != TB_HREQ_DONE) {
                respond_text(c, r == TB_HREQ_TOO_LARGE ? 431 : 400,
                             r == TB_HREQ_TOO_LARGE ? "Request Header Fields Too Large"
                                                    : "Bad Request",
                             "bad request\n");
                return;
            }
            if (c->req.body_left > TB_TLSN_HUB_API_MAX) {
                respond_text(c, 413, "Content Too Large", "request body over 4 MiB\n");
                return;
            }
            c->req_done = 1;
            c->body_len = c->req.body_left;
        }
        if (len < c->req.head_len + c->body_len)
            return;
        /* the body is contiguous after the head: NUL-terminate a copy boundary */
        http_request(c);
        if (c->kind != K_HTTP)
            return;
        c->in_off += c->req.head_len + (size_t)c->body_len;
        c->req_done = 0;
        c->body_len = 0;
        tb_http_req_reset(&c->req);
    }
}

/* ---- WebSocket frames ---- */

static void ws_data(conn *c, const tb_ws_frame *f, const uint8_t *p)
{
    tb_tlsn_hub *h = c->h;
    if (c->ws_kind == WS_PROXY) {
        if (c->peer) {
            out_append(c->peer, p, f->len);
            h->st.proxy_to_target += f->len;
            conn_update(c->peer);
        }
        return;
    }
    h->st.relay_bytes[c->channel][c->role] += f->len;
    if (c->peer) {
        send_frame(c->peer, f->opcode, f->fin, p, f->len);
        check_pressure(c->peer);
        conn_update(c->peer);
        return;
    }
    uint8_t hdr[TB_WS_MAX_HEADER];
    size_t hl = tb_ws_header_encode(hdr, f->opcode, f->fin, f->len);
    if (c->pending.len + hl + f->len > h->c.max_pending) {
        note(h, "relay: the %s sent over %zu bytes before the %s connected", role_names[c->role],
             h->c.max_pending, role_names[!c->role]);
        ws_fail(c, TB_WS_CLOSE_TOO_BIG, "too much before the peer connected");
        return;
    }
    if (tb_buf_append(&c->pending, hdr, hl) < 0 || tb_buf_append(&c->pending, p, f->len) < 0)
        ws_fail(c, TB_WS_CLOSE_INTERNAL, "out of memory");
}

static void ws_process(conn *c)
{
    tb_tlsn_hub *h = c->h;
    while (!c->close_after && c->in.len > c->in_off) {
        uint8_t *buf = c->in.p + c->in_off;
        size_t len = c->in.len - c->in_off;
        tb_ws_frame f;
        const char *why = NULL;
        int r = tb_ws_parse_header(buf, len, 1, h->c.max_frame, &f, &why);
        if (r == TB_WS_MORE)
            return;
        if (r < 0) {
            note(h, "%s: %s", c->ws_kind == WS_PROXY ? "proxy" : "relay", why);
            ws_fail(c, r == TB_WS_TOO_LARGE ? TB_WS_CLOSE_TOO_BIG : TB_WS_CLOSE_PROTOCOL, why);
            return;
        }
        if (len < f.header_len + f.len)
            return;
        uint8_t *p = buf + f.header_len;
        tb_ws_unmask(p, (size_t)f.len, f.mask, 0);
        c->in_off += f.header_len + (size_t)f.len;
        switch (f.opcode) {
        case TB_WS_PING:
            send_frame(c, TB_WS_PONG, 1, p, (size_t)f.len);
            break;
        case TB_WS_PONG:
            break;
        case TB_WS_CLOSE: {
            uint8_t pl[TB_WS_MAX_CONTROL];
            size_t n = tb_ws_close_payload(pl, TB_WS_CLOSE_NORMAL, NULL);
            send_frame(c, TB_WS_CLOSE, 1, pl, n);
            c->close_after = 1;
            break;
        }
        default:
            ws_data(c, &f, p);
        }
    }
}

/* ---- the proxy's TCP side ---- */

static void tcp_connect(conn *ws)
{
    tb_tlsn_hub *h = ws->h;
    h->st.proxy_connections++;
    tb_addr a;
    tb_err e;
    int fd = -1;
    if (tb_addr_resolve(h->target_host, h->target_port, &a, &e) < 0 ||
        tb_sock_connect_start(&a, &fd, &e) < 0) {
        h->st.proxy_failures++;
        note(h, "proxy: the target %s:%s: %s", h->target_host, h->target_port, e.msg);
        ws_fail(ws, TB_WS_CLOSE_INTERNAL, "the target is unreachable");
        return;
    }
    conn *t = conn_new(h, fd, K_TCP);
    if (!t) {
        ws_fail(ws, TB_WS_CLOSE_INTERNAL, "out of memory");
        return;
    }
    t->connecting = 1;
    t->peer = ws;
    ws->peer = t;
    conn_update(t);
}

static void tcp_readable(conn *t)
{
    tb_tlsn_hub *h = t->h;
    for (int i = 0; i < 16; i++) {
        uint8_t tmp[READ_CHUNK];
        ssize_t r = recv(t->fd, tmp, sizeof tmp, 0);
        if (r < 0) {
            if (errno == EAGAIN || errno == EINTR)
                return;
            note(h, "proxy: reading from the target: %s", strerror(errno));
            t->close_after = 1;
            return;
        }
        if (r == 0) {
            note(h, "proxy: the target closed the connection (%llu bytes from it)",
                 (unsigned long long)h->st.proxy_from_target);
            t->close_after = 1;
            t->eof = 1;
            return;
        }
        h->st.proxy_from_target += (uint64_t)r;
        if (t->peer) {
            send_frame(t->peer, TB_WS_BINARY, 1, tmp, (size_t)r);
            check_pressure(t->peer);
            conn_update(t->peer);
            if (t->read_paused)
                return;
        }
    }
}

/* ---- the loop's callback ---- */

static void on_event(tb_ev_loop *l, int fd, void *data, int mask)
{
    (void)l;
    (void)fd;
    conn *c = data;
    tb_tlsn_hub *h = c->h;
    if (mask & TB_EV_WRITABLE) {
        if (c->connecting) {
            tb_err e;
            c->connecting = 0;
            if (tb_sock_connect_result(c->fd, &e) < 0) {
                h->st.proxy_failures++;
                note(h, "proxy: the target %s:%s refused: %s", h->target_host, h->target_port,
                     e.msg);
                if (c->peer) {
                    conn *ws = c->peer;
                    ws->peer = NULL;
                    c->peer = NULL;
                    ws_fail(ws, TB_WS_CLOSE_INTERNAL, "the target refused the connection");
                    conn_update(ws);
                }
                c->out_off = c->out.len;
                c->close_after = 1;
                conn_update(c);
                return;
            }
        }
        conn_flush(c);
        conn_update(c);
        return;
    }
    if (c->kind == K_TCP) {
        tcp_readable(c);
        conn_update(c);
        return;
    }
    int r = read_more(c);
    if (c->kind == K_HTTP)
        http_process(c);
    if (c->kind == K_WS)
        ws_process(c);
    if ((r < 0 || c->eof) && !c->close_after) {
        if (c->kind == K_WS && c->ws_kind == WS_PROXY && c->peer)
            note(h, "proxy: the browser side closed without a close frame");
        if (r < 0)
            c->out_off = c->out.len;
        c->close_after = 1;
    }
    conn_flush(c);
    conn_update(c);
}

static void on_accept(tb_ev_loop *l, int fd, void *data, int mask)
{
    (void)l;
    (void)mask;
    tb_tlsn_hub *h = data;
    for (int i = 0; i < 64; i++) {
        int cfd;
        tb_err e;
        int r = tb_sock_accept(fd, &cfd, &e);
        if (r != 0)
            return;
        conn *c = conn_new(h, cfd, K_HTTP);
        if (c)
            conn_update(c);
    }
}

/* ---- the hub ---- */

int tb_tlsn_hub_new(const tb_tlsn_hub_config *c, tb_tlsn_hub **out, tb_err *err)
{
    *out = NULL;
    size_t sl = c->session ? strlen(c->session) : 0;
    if (sl == 0 || sl > 64 || strspn(c->session, "0123456789abcdef") != sl)
        return tb_errf(err, "the session id must be 1 to 64 lowercase hex digits");
    tb_tlsn_hub *h = calloc(1, sizeof *h);
    if (!h)
        return tb_errf(err, "out of memory");
    h->c = *c;
    if (!h->c.max_frame)
        h->c.max_frame = 16u << 20;
    if (!h->c.max_pending)
        h->c.max_pending = 256u << 20;
    memcpy(h->session, c->session, sl + 1);
    snprintf(h->target_host, sizeof h->target_host, "%s", c->target_host ? c->target_host : "");
    snprintf(h->target_port, sizeof h->target_port, "%s", c->target_port ? c->target_port : "");
    h->lfd = -1;
    h->loop = tb_ev_new(MAX_FDS, 64, err);
    char port[16];
    snprintf(port, sizeof port, "%d", c->port);
    if (!h->loop || tb_sock_listen(c->host, port, 128, 0, &h->lfd, err) < 0 ||
        tb_ev_add(h->loop, h->lfd, TB_EV_READABLE, on_accept, h, err) < 0) {
        tb_tlsn_hub_free(h);
        return -1;
    }
    struct sockaddr_storage ss;
    socklen_t sl2 = sizeof ss;
    if (getsockname(h->lfd, (struct sockaddr *)&ss, &sl2) < 0) {
        tb_errno(err, "getsockname");
        tb_tlsn_hub_free(h);
        return -1;
    }
    h->port = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                                       : ntohs(((struct sockaddr_in *)&ss)->sin_port);
    *out = h;
    return 0;
}

void tb_tlsn_hub_free(tb_tlsn_hub *h)
{
    if (!h)
        return;
    while (h->conns) {
        conn *c = h->conns;
        if (c->peer)
            c->peer->peer = NULL;
        c->peer = NULL;
        c->paired = 1; /* no note while tearing down */
        unwait(c);
        tb_ev_del(h->loop, c->fd, TB_EV_READABLE | TB_EV_WRITABLE);
        close(c->fd);
        h->conns = c->next;
        tb_buf_clear(&c->in);
        tb_buf_clear(&c->out);
        tb_buf_clear(&c->pending);
        free(c);
    }
    if (h->lfd >= 0) {
        if (h->loop)
            tb_ev_del(h->loop, h->lfd, TB_EV_READABLE);
        close(h->lfd);
    }
    tb_ev_free(h->loop);
    free(h);
}

int tb_tlsn_hub_port(const tb_tlsn_hub *h)
{
    return h->port;
}

tb_ev_loop *tb_tlsn_hub_loop(tb_tlsn_hub *h)
{
    return h->loop;
}

int tb_tlsn_hub_add_file(tb_tlsn_hub *h, const char *path, const char *type, const uint8_t *data,
                         size_t len, tb_err *err)
{
    if (h->n_files >= MAX_FILES)
        return tb_errf(err, "too many files for the hub");
    file_ent *f = &h->files[h->n_files];
    if (snprintf(f->path, sizeof f->path, "%s", path) >= (int)sizeof f->path)
        return tb_errf(err, "%s: path too long", path);
    f->type = type ? type : tb_tlsn_content_type(path);
    f->data = data;
    f->len = len;
    h->n_files++;
    return 0;
}

void tb_tlsn_hub_stats_get(const tb_tlsn_hub *h, tb_tlsn_hub_stats *out)
{
    *out = h->st;
}
