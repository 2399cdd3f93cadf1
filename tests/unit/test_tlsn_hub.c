/* Unit tests for tlsn/hub, against the real hub on a loopback port (its loop in a
 * thread): the static server's headers (COOP/COEP/CORP on every answer, types, 404
 * for anything not added, a wrong session), the relay (frames kept in order for a
 * side that connects late, ordering both ways, a side that goes -- paired or not --,
 * an oversized frame, an unmasked one), the proxy (a target that refuses, one that
 * closes early after answering, bytes both ways, garbage from the browser side),
 * and the /api callback. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "net/ws.h"
#include "tlsn/hub.h"

#define SID "c0ffee"

typedef struct fixture {
    tb_tlsn_hub *hub;
    pthread_t th;
    atomic_int stop;
    char notes[16][256];
    int n_notes;
    pthread_mutex_t mu;
} fixture;

static void on_note(void *ctx, const char *line)
{
    fixture *f = ctx;
    pthread_mutex_lock(&f->mu);
    if (f->n_notes < 16)
        snprintf(f->notes[f->n_notes++], sizeof f->notes[0], "%s", line);
    pthread_mutex_unlock(&f->mu);
}

static int has_note(fixture *f, const char *part)
{
    int found = 0;
    pthread_mutex_lock(&f->mu);
    for (int i = 0; i < f->n_notes; i++)
        found |= strstr(f->notes[i], part) != NULL;
    pthread_mutex_unlock(&f->mu);
    return found;
}

static int on_api(void *ctx, const char *name, const uint8_t *body, size_t len, tb_buf *resp,
                  tb_err *err)
{
    (void)ctx;
    if (!strcmp(name, "fail"))
        return tb_errf(err, "refused");
    tb_buf_printf(resp, "{\"name\":\"%s\",\"len\":%zu,\"body\":\"%.*s\"}", name, len, (int)len,
                  (const char *)body);
    return 0;
}

static int64_t check_stop(tb_ev_loop *l, uint64_t id, void *data)
{
    (void)id;
    fixture *f = data;
    if (atomic_load(&f->stop)) {
        tb_ev_stop(l);
        return TB_EV_NOMORE;
    }
    return 2000000;
}

static void *run_loop(void *arg)
{
    fixture *f = arg;
    tb_err e;
    tb_ev_run(tb_tlsn_hub_loop(f->hub), &e);
    return NULL;
}

static const uint8_t js[] = "export const x = 1;\n";

static fixture *start(const char *target_port, uint64_t max_frame)
{
    fixture *f = calloc(1, sizeof *f);
    pthread_mutex_init(&f->mu, NULL);
    tb_tlsn_hub_config c = {.host = "127.0.0.1",
                            .session = SID,
                            .target_host = "127.0.0.1",
                            .target_port = target_port,
                            .max_frame = max_frame,
                            .api = on_api,
                            .note = on_note,
                            .ctx = f};
    tb_err e;
    assert_int_equal(tb_tlsn_hub_new(&c, &f->hub, &e), 0);
    assert_int_equal(tb_tlsn_hub_add_file(f->hub, "a.js", NULL, js, sizeof js - 1, &e), 0);
    assert_int_equal(tb_tlsn_hub_add_file(f->hub, "pkg/m.wasm", NULL, js, 4, &e), 0);
    assert_true(tb_ev_timer_add(tb_tlsn_hub_loop(f->hub), 2000000, check_stop, f) != 0);
    pthread_create(&f->th, NULL, run_loop, f);
    return f;
}

static void stop(fixture *f)
{
    atomic_store(&f->stop, 1);
    pthread_join(f->th, NULL);
    tb_tlsn_hub_free(f->hub);
    pthread_mutex_destroy(&f->mu);
    free(f);
}

static int dial(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct timeval tv = {.tv_sec = 5};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    return fd;
}

static void send_all(int fd, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n) {
        ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
        assert_true(w > 0);
        b += w;
        n -= (size_t)w;
    }
}

static int recv_all(int fd, void *p, size_t n)
{
    uint8_t *b = p;
    while (n) {
        ssize_t r = recv(fd, b, n, 0);
        if (r <= 0)
            return -1;
        b += r;
        n -= (size_t)r;
    }
    return 0;
}

/* The response head (up to the blank line) into head. */
static void read_head(int fd, char *head, size_t cap)
{
    size_t n = 0;
    while (n + 1 < cap) {
        if (recv(fd, head + n, 1, 0) != 1)
            break;
        n++;
        if (n >= 4 && !memcmp(head + n - 4, "\r\n\r\n", 4))
            break;
    }
    head[n] = 0;
}

static int ws_open(int port, const char *path, char *head, size_t cap)
{
    int fd = dial(port);
    char req[512];
    int n = snprintf(req, sizeof req,
                     "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
                     path);
    send_all(fd, req, (size_t)n);
    read_head(fd, head, cap);
    return fd;
}

static int ws_connect(int port, const char *path)
{
    char head[1024];
    int fd = ws_open(port, path, head, sizeof head);
    assert_non_null(strstr(head, "101 Switching Protocols"));
    assert_non_null(strstr(head, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="));
    return fd;
}

static void ws_send(int fd, int opcode, const void *p, size_t n, int masked)
{
    uint8_t h[TB_WS_MAX_HEADER];
    size_t hl = tb_ws_header_encode(h, opcode, 1, n);
    uint8_t mask[4] = {1, 2, 3, 4};
    uint8_t *buf = malloc(hl + 4 + n);
    memcpy(buf, h, hl);
    if (masked) {
        buf[1] |= 0x80;
        memcpy(buf + hl, mask, 4);
        hl += 4;
    }
    memcpy(buf + hl, p, n);
    if (masked)
        tb_ws_unmask(buf + hl, n, mask, 0);
    send_all(fd, buf, hl + n);
    free(buf);
}

/* One frame from the hub: its opcode, payload (malloc'd) and length; -1 at EOF. */
static int ws_recv(int fd, uint8_t **p, size_t *n)
{
    uint8_t h[TB_WS_MAX_HEADER];
    if (recv_all(fd, h, 2) < 0)
        return -1;
    size_t need = (h[1] & 0x7f) == 126 ? 4 : (h[1] & 0x7f) == 127 ? 10 : 2;
    if (need > 2 && recv_all(fd, h + 2, need - 2) < 0)
        return -1;
    tb_ws_frame f;
    assert_int_equal(tb_ws_parse_header(h, need, 0, UINT64_MAX, &f, NULL), TB_WS_DONE);
    *n = (size_t)f.len;
    *p = malloc(*n + 1);
    if (*n && recv_all(fd, *p, *n) < 0)
        return -1;
    (*p)[*n] = 0;
    return f.opcode;
}

static void expect_frame(int fd, int opcode, const char *text)
{
    uint8_t *p;
    size_t n;
    assert_int_equal(ws_recv(fd, &p, &n), opcode);
    assert_int_equal(n, strlen(text));
    assert_memory_equal(p, text, n);
    free(p);
}

static void expect_close(int fd, int code)
{
    uint8_t *p;
    size_t n;
    assert_int_equal(ws_recv(fd, &p, &n), TB_WS_CLOSE);
    assert_true(n >= 2);
    assert_int_equal(p[0] << 8 | p[1], code);
    free(p);
}

/* ---- the static server ---- */

static void test_static_headers(void **state)
{
    (void)state;
    fixture *f = start("1", 0);
    int port = tb_tlsn_hub_port(f->hub);
    const char *paths[] = {"/a.js", "/pkg/m.wasm", "/missing", "/../a.js", ("/relay/" SID)};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        int fd = dial(port);
        char req[256], head[2048];
        int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                         paths[i]);
        send_all(fd, req, (size_t)n);
        read_head(fd, head, sizeof head);
        assert_non_null(strstr(head, "Cross-Origin-Opener-Policy: same-origin\r\n"));
        assert_non_null(strstr(head, "Cross-Origin-Embedder-Policy: require-corp\r\n"));
        assert_non_null(strstr(head, "Cross-Origin-Resource-Policy: same-origin\r\n"));
        assert_non_null(strstr(head, "Cache-Control: no-store\r\n"));
        if (i == 0) {
            assert_non_null(strstr(head, "HTTP/1.1 200 OK"));
            assert_non_null(strstr(head, "Content-Type: text/javascript"));
            char body[sizeof js];
            assert_int_equal(recv_all(fd, body, sizeof js - 1), 0);
            assert_memory_equal(body, js, sizeof js - 1);
        } else if (i == 1) {
            assert_non_null(strstr(head, "Content-Type: application/wasm"));
        } else {
            assert_non_null(strstr(head, "HTTP/1.1 404"));
        }
        close(fd);
    }
    /* keep-alive: two requests on one connection */
    int fd = dial(port);
    const char two[] = "GET /a.js HTTP/1.1\r\nHost: x\r\n\r\nGET /a.js HTTP/1.1\r\nHost: x\r\n\r\n";
    send_all(fd, two, sizeof two - 1);
    for (int k = 0; k < 2; k++) {
        char head[2048], body[sizeof js];
        read_head(fd, head, sizeof head);
        assert_non_null(strstr(head, "200 OK"));
        assert_int_equal(recv_all(fd, body, sizeof js - 1), 0);
    }
    close(fd);
    /* garbage is a 400 */
    fd = dial(port);
    send_all(fd, "\x01\x02 nonsense\r\n\r\n", 16);
    char head[1024];
    read_head(fd, head, sizeof head);
    assert_non_null(strstr(head, "HTTP/1.1 400"));
    close(fd);
    stop(f);
}

static void test_api(void **state)
{
    (void)state;
    fixture *f = start("1", 0);
    int fd = dial(tb_tlsn_hub_port(f->hub));
    const char req[] = "POST /api/config HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n\r\n{\"a\":1}";
    send_all(fd, req, sizeof req - 1);
    char head[2048];
    read_head(fd, head, sizeof head);
    assert_non_null(strstr(head, "200 OK"));
    assert_non_null(strstr(head, "application/json"));
    char body[128] = "";
    assert_true(recv(fd, body, sizeof body - 1, 0) > 0);
    assert_string_equal(body, "{\"name\":\"config\",\"len\":7,\"body\":\"{\"a\":1}\"}");
    const char bad[] = "POST /api/fail HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n";
    send_all(fd, bad, sizeof bad - 1);
    read_head(fd, head, sizeof head);
    assert_non_null(strstr(head, "400 Bad Request"));
    memset(body, 0, sizeof body);
    assert_true(recv(fd, body, sizeof body - 1, 0) > 0);
    assert_string_equal(body, "{\"error\":\"refused\"}");
    close(fd);
    stop(f);
}

/* ---- the relay ---- */

static void test_relay_late_side_and_order(void **state)
{
    (void)state;
    fixture *f = start("1", 0);
    int port = tb_tlsn_hub_port(f->hub);
    int p = ws_connect(port, "/relay/" SID "/mpc/prover");
    ws_send(p, TB_WS_BINARY, "one", 3, 1);
    ws_send(p, TB_WS_BINARY, "two", 3, 1);
    ws_send(p, TB_WS_TEXT, "three", 5, 1);
    usleep(50000); /* the verifier is late: the hub holds the frames */
    int v = ws_connect(port, "/relay/" SID "/mpc/verifier");
    expect_frame(v, TB_WS_BINARY, "one");
    expect_frame(v, TB_WS_BINARY, "two");
    expect_frame(v, TB_WS_TEXT, "three");
    /* both ways, a large frame between small ones */
    size_t big = 300000;
    char *b = malloc(big + 1);
    for (size_t i = 0; i < big; i++)
        b[i] = (char)('a' + i % 26);
    b[big] = 0;
    ws_send(v, TB_WS_BINARY, "x", 1, 1);
    ws_send(v, TB_WS_BINARY, b, big, 1);
    ws_send(v, TB_WS_BINARY, "y", 1, 1);
    expect_frame(p, TB_WS_BINARY, "x");
    expect_frame(p, TB_WS_BINARY, b);
    expect_frame(p, TB_WS_BINARY, "y");
    free(b);
    /* a ping is answered by the hub, not relayed */
    ws_send(p, TB_WS_PING, "hi", 2, 1);
    expect_frame(p, TB_WS_PONG, "hi");
    /* the other channel is separate */
    int tp = ws_connect(port, "/relay/" SID "/tee/prover");
    int tv = ws_connect(port, "/relay/" SID "/tee/verifier");
    ws_send(tv, TB_WS_TEXT, "{\"quote\":1}", 11, 1);
    expect_frame(tp, TB_WS_TEXT, "{\"quote\":1}");
    tb_tlsn_hub_stats st;
    tb_tlsn_hub_stats_get(f->hub, &st);
    assert_int_equal(st.relay_bytes[TB_TLSN_MPC][TB_TLSN_PROVER], 11); /* not the ping */
    assert_int_equal(st.relay_bytes[TB_TLSN_MPC][TB_TLSN_VERIFIER], 300002);
    assert_int_equal(st.relay_bytes[TB_TLSN_TEE][TB_TLSN_VERIFIER], 11);
    assert_int_equal(st.paired[TB_TLSN_MPC], 1);
    assert_int_equal(st.paired[TB_TLSN_TEE], 1);
    close(tp);
    close(tv);
    close(p);
    close(v);
    stop(f);
}

static void test_relay_side_gone(void **state)
{
    (void)state;
    fixture *f = start("1", 0);
    int port = tb_tlsn_hub_port(f->hub);
    /* paired, then the prover goes without a close frame: the verifier gets what was
       queued and then 1001 */
    int p = ws_connect(port, "/relay/" SID "/mpc/prover");
    int v = ws_connect(port, "/relay/" SID "/mpc/verifier");
    ws_send(p, TB_WS_BINARY, "last", 4, 1);
    close(p);
    expect_frame(v, TB_WS_BINARY, "last");
    expect_close(v, TB_WS_CLOSE_GOING_AWAY);
    uint8_t c;
    assert_int_equal(recv(v, &c, 1, 0), 0); /* and the connection ends */
    close(v);
    /* a closing handshake: echoed, and the peer told */
    p = ws_connect(port, "/relay/" SID "/mpc/prover");
    v = ws_connect(port, "/relay/" SID "/mpc/verifier");
    uint8_t cp[2] = {0x03, 0xe8};
    ws_send(v, TB_WS_CLOSE, cp, 2, 1);
    expect_close(v, TB_WS_CLOSE_NORMAL);
    expect_close(p, TB_WS_CLOSE_GOING_AWAY);
    close(p);
    close(v);
    /* gone before it was paired: forgotten, with a note; the next verifier waits for a
       new prover rather than getting the old one's frames */
    p = ws_connect(port, "/relay/" SID "/mpc/prover");
    ws_send(p, TB_WS_BINARY, "stale", 5, 1);
    close(p);
    usleep(100000);
    assert_true(has_note(f, "the prover left the mpc channel before the verifier connected"));
    v = ws_connect(port, "/relay/" SID "/mpc/verifier");
    p = ws_connect(port, "/relay/" SID "/mpc/prover");
    ws_send(p, TB_WS_BINARY, "fresh", 5, 1);
    expect_frame(v, TB_WS_BINARY, "fresh");
    close(p);
    close(v);
    stop(f);
}

static void test_relay_oversized_and_bad(void **state)
{
    (void)state;
    fixture *f = start("1", 1024);
    int port = tb_tlsn_hub_port(f->hub);
    int p = ws_connect(port, "/relay/" SID "/mpc/prover");
    int v = ws_connect(port, "/relay/" SID "/mpc/verifier");
    char big[2048];
    memset(big, 'z', sizeof big);
    ws_send(p, TB_WS_BINARY, big, 1024, 1); /* at the limit: relayed */
    uint8_t *got;
    size_t n;
    assert_int_equal(ws_recv(v, &got, &n), TB_WS_BINARY);
    assert_int_equal(n, 1024);
    free(got);
    ws_send(p, TB_WS_BINARY, big, 1025, 1); /* over it: refused */
    expect_close(p, TB_WS_CLOSE_TOO_BIG);
    expect_close(v, TB_WS_CLOSE_GOING_AWAY);
    assert_true(has_note(f, "frame over the size limit"));
    close(p);
    close(v);
    /* an unmasked frame from a client: 1002 */
    p = ws_connect(port, "/relay/" SID "/mpc/prover");
    ws_send(p, TB_WS_BINARY, "x", 1, 0);
    expect_close(p, TB_WS_CLOSE_PROTOCOL);
    close(p);
    /* a wrong session, channel or role: no upgrade */
    const char *bad[] = {"/relay/beef/mpc/prover", ("/relay/" SID "/x/prover"),
                         ("/relay/" SID "/mpc/notary"), ("/proxy/" SID "/more")};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char head[1024];
        int fd = ws_open(port, bad[i], head, sizeof head);
        assert_non_null(strstr(head, "404 Not Found"));
        close(fd);
    }
    stop(f);
}

/* ---- the proxy ---- */

typedef struct target {
    int lfd, port;
    pthread_t th;
    char got[64];
    const char *reply;
    int times; /* connections to serve */
} target;

static void *serve_once(void *arg)
{
    target *t = arg;
    for (int i = 0; i < t->times; i++) {
        int fd = accept(t->lfd, NULL, NULL);
        if (fd < 0)
            return NULL;
        struct timeval tv = {.tv_sec = 5};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        memset(t->got, 0, sizeof t->got);
        if (recv_all(fd, t->got, 5) == 0) /* "hello" */
            send_all(fd, t->reply, strlen(t->reply));
        close(fd); /* closes early: the browser side still had more to say */
    }
    return NULL;
}

static void target_start(target *t, const char *reply, int times)
{
    memset(t, 0, sizeof *t);
    t->reply = reply;
    t->times = times;
    t->lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(t->lfd, (struct sockaddr *)&a, sizeof a), 0);
    listen(t->lfd, 4);
    socklen_t l = sizeof a;
    getsockname(t->lfd, (struct sockaddr *)&a, &l);
    t->port = ntohs(a.sin_port);
    pthread_create(&t->th, NULL, serve_once, t);
}

static void test_proxy_closes_early(void **state)
{
    (void)state;
    target t;
    target_start(&t, "\x16\x03\x03 server bytes", 1);
    char port[16];
    snprintf(port, sizeof port, "%d", t.port);
    fixture *f = start(port, 0);
    int w = ws_connect(tb_tlsn_hub_port(f->hub), "/proxy/" SID);
    ws_send(w, TB_WS_BINARY, "hel", 3, 1); /* frames are a stream: split anywhere */
    ws_send(w, TB_WS_BINARY, "lo", 2, 1);
    expect_frame(w, TB_WS_BINARY, "\x16\x03\x03 server bytes");
    expect_close(w, TB_WS_CLOSE_NORMAL);
    pthread_join(t.th, NULL);
    assert_string_equal(t.got, "hello");
    tb_tlsn_hub_stats st;
    tb_tlsn_hub_stats_get(f->hub, &st);
    assert_int_equal(st.proxy_to_target, 5);
    assert_int_equal(st.proxy_from_target, 16);
    assert_true(has_note(f, "the target closed the connection"));
    close(w);
    close(t.lfd);
    stop(f);
}

static void test_proxy_refused(void **state)
{
    (void)state;
    /* a port nobody listens on: bound, then closed */
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(s, (struct sockaddr *)&a, sizeof a);
    socklen_t l = sizeof a;
    getsockname(s, (struct sockaddr *)&a, &l);
    char port[16];
    snprintf(port, sizeof port, "%d", ntohs(a.sin_port));
    close(s);
    fixture *f = start(port, 0);
    int w = ws_connect(tb_tlsn_hub_port(f->hub), "/proxy/" SID);
    ws_send(w, TB_WS_BINARY, "client hello", 12, 1);
    expect_close(w, TB_WS_CLOSE_INTERNAL);
    usleep(50000);
    assert_true(has_note(f, "refused"));
    tb_tlsn_hub_stats st;
    tb_tlsn_hub_stats_get(f->hub, &st);
    assert_int_equal(st.proxy_failures, 1);
    close(w);
    stop(f);
}

static void test_proxy_garbage(void **state)
{
    (void)state;
    target t;
    target_start(&t, "x", 2); /* the garbage side's connection, then the good one */
    char port[16];
    snprintf(port, sizeof port, "%d", t.port);
    fixture *f = start(port, 0);
    int w = ws_connect(tb_tlsn_hub_port(f->hub), "/proxy/" SID);
    send_all(w, "\xf2\x81garbage", 9); /* reserved bits set */
    expect_close(w, TB_WS_CLOSE_PROTOCOL);
    close(w);
    /* the hub still serves */
    w = ws_connect(tb_tlsn_hub_port(f->hub), "/proxy/" SID);
    ws_send(w, TB_WS_BINARY, "hello", 5, 1);
    expect_frame(w, TB_WS_BINARY, "x");
    close(w);
    pthread_join(t.th, NULL);
    close(t.lfd);
    stop(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_static_headers),
        cmocka_unit_test(test_api),
        cmocka_unit_test(test_relay_late_side_and_order),
        cmocka_unit_test(test_relay_side_gone),
        cmocka_unit_test(test_relay_oversized_and_bad),
        cmocka_unit_test(test_proxy_closes_early),
        cmocka_unit_test(test_proxy_refused),
        cmocka_unit_test(test_proxy_garbage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
