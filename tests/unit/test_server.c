/* Unit tests for serve/server: a real server on an ephemeral loopback port,
 * driven by blocking client sockets (plain and TLS): keep-alive, pipelining,
 * large bodies (partial writes), request bodies, errors, many connections, and
 * the merged per-route/status counters after stop + join. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/ssl.h>

#include "net/tls.h"
#include "serve/pki.h"
#include "serve/routes.h"
#include "serve/server.h"

static tb_site site;

static int setup(void **state)
{
    (void)state;
    tb_err err;
    return tb_site_init(&site, 4 << 20, &err);
}

static int teardown(void **state)
{
    (void)state;
    tb_site_clear(&site);
    return 0;
}

static tb_server *start(int threads, tb_tls_ctx *tls)
{
    tb_err err;
    tb_server_opts o = {.addr = "127.0.0.1", .port = "0", .threads = threads, .tls = tls};
    tb_server *s = tb_server_new(&o, &site, &err);
    if (!s)
        fail_msg("%s", err.msg);
    assert_true(tb_server_port(s) > 0);
    assert_int_equal(tb_server_start(s, &err), 0);
    return s;
}

static tb_counts stop(tb_server *s)
{
    tb_err err;
    tb_counts c;
    tb_server_stop(s);
    assert_int_equal(tb_server_join(s, &err), 0);
    tb_server_counts(s, &c);
    tb_server_free(s);
    return c;
}

static int dial(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    struct timeval tv = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

/* A connection, plain or TLS, with blocking I/O. */
typedef struct client {
    int fd;
    SSL *ssl;
    uint8_t buf[1 << 16];
    size_t len;
} client;

static void cl_send(client *c, const char *s)
{
    size_t n = strlen(s);
    if (c->ssl)
        assert_int_equal(SSL_write(c->ssl, s, (int)n), (int)n);
    else
        assert_int_equal(write(c->fd, s, n), (ssize_t)n);
}

static ssize_t cl_recv(client *c, void *p, size_t n)
{
    if (c->ssl) {
        int r = SSL_read(c->ssl, p, (int)n);
        return r > 0 ? r : 0;
    }
    return read(c->fd, p, n);
}

/* Reads one response; returns its status code and body length (*body_len),
 * and whether the server said Connection: close. Returns 0 at EOF. */
static int cl_response(client *c, size_t *body_len, int *closes)
{
    char *end;
    while (!(end = memmem(c->buf, c->len, "\r\n\r\n", 4))) {
        ssize_t r = cl_recv(c, c->buf + c->len, sizeof c->buf - c->len);
        if (r <= 0)
            return 0;
        c->len += (size_t)r;
    }
    size_t head = (size_t)(end - (char *)c->buf) + 4;
    int status = atoi((char *)c->buf + 9);
    char *cl = memmem(c->buf, head, "Content-Length: ", 16);
    assert_non_null(cl);
    size_t want = strtoul(cl + 16, NULL, 10), got = 0;
    *closes = memmem(c->buf, head, "Connection: close", 17) != NULL;
    /* Drop the head, then consume the body (possibly much larger than buf). */
    memmove(c->buf, c->buf + head, c->len - head);
    c->len -= head;
    while (got < want) {
        if (c->len == 0) {
            ssize_t r = cl_recv(c, c->buf, sizeof c->buf);
            assert_true(r > 0);
            c->len = (size_t)r;
        }
        size_t take = want - got < c->len ? want - got : c->len;
        for (size_t i = 0; i < take && status == 200 && want > 100000; i++)
            assert_int_equal(c->buf[i], 'B');
        memmove(c->buf, c->buf + take, c->len - take);
        c->len -= take;
        got += take;
    }
    *body_len = got;
    return status;
}

static int at_eof(client *c)
{
    uint8_t b;
    return c->len == 0 && cl_recv(c, &b, 1) == 0;
}

static void exchange(client *c, int *served)
{
    size_t len;
    int closes;
    /* Keep-alive. */
    cl_send(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    assert_int_equal(cl_response(c, &len, &closes), 200);
    assert_int_equal(len, 615);
    assert_int_equal(closes, 0);
    /* Pipelined, one with a body. */
    cl_send(c, "GET /formats/json?size=4 HTTP/1.1\r\nHost: x\r\n\r\n"
               "POST /formats/json?size=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nbody"
               "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n");
    assert_int_equal(cl_response(c, &len, &closes), 200);
    assert_int_equal(len, 3111);
    assert_int_equal(cl_response(c, &len, &closes), 405);
    assert_int_equal(cl_response(c, &len, &closes), 404);
    /* A large body: the server must resume after partial writes. */
    cl_send(c, "GET /bytes?size=3000000 HTTP/1.1\r\nHost: x\r\n\r\n");
    assert_int_equal(cl_response(c, &len, &closes), 200);
    assert_int_equal(len, 3000000);
    /* A head split across writes. */
    cl_send(c, "GET /formats/ht");
    usleep(20000);
    cl_send(c, "ml HTTP/1.1\r\nHo");
    usleep(20000);
    cl_send(c, "st: x\r\n\r\n");
    assert_int_equal(cl_response(c, &len, &closes), 200);
    assert_int_equal(len, 3742);
    /* A malformed request: 400, then the server closes. */
    cl_send(c, "GET / HTTP/1.1\r\nHost x\r\n\r\n");
    assert_int_equal(cl_response(c, &len, &closes), 400);
    assert_int_equal(closes, 1);
    assert_true(at_eof(c));
    *served += 7;
}

static void test_plain(void **state)
{
    (void)state;
    tb_server *s = start(2, NULL);
    int served = 0;
    for (int i = 0; i < 4; i++) {
        client *c = calloc(1, sizeof *c);
        c->fd = dial(tb_server_port(s));
        exchange(c, &served);
        close(c->fd);
        free(c);
    }
    /* Many idle connections, then one request on each. */
    enum { N = 200 };
    static client many[N];
    for (int i = 0; i < N; i++) {
        many[i].fd = dial(tb_server_port(s));
        many[i].len = 0;
    }
    for (int i = 0; i < N; i++)
        cl_send(&many[i], "GET / HTTP/1.0\r\n\r\n");
    for (int i = 0; i < N; i++) {
        size_t len;
        int closes;
        assert_int_equal(cl_response(&many[i], &len, &closes), 200);
        assert_int_equal(closes, 1);
        assert_true(at_eof(&many[i]));
        close(many[i].fd);
    }
    served += N;
    tb_counts c = stop(s);
    assert_int_equal(tb_counts_total(&c), served);
    assert_int_equal(c.n[TB_ROUTE_ROOT][TB_ST_200], 4 + N);
    assert_int_equal(c.n[TB_ROUTE_JSON4][TB_ST_200], 4);
    assert_int_equal(c.n[TB_ROUTE_JSON1][TB_ST_405], 4);
    assert_int_equal(c.n[TB_ROUTE_OTHER][TB_ST_404], 4);
    assert_int_equal(c.n[TB_ROUTE_BYTES][TB_ST_200], 4);
    assert_int_equal(c.n[TB_ROUTE_HTML][TB_ST_200], 4);
    assert_int_equal(c.n[TB_ROUTE_MALFORMED][TB_ST_400], 4);
}

static void test_tls(void **state)
{
    (void)state;
    char dir[] = "/tmp/tb-server-test.XXXXXX", cert[256], key[256], ca[256];
    tb_err err;
    assert_non_null(mkdtemp(dir));
    assert_int_equal(tb_pki_generate(dir, &err), 0);
    tb_pki_path(dir, TB_PKI_SERVER_CERT, cert, sizeof cert, &err);
    tb_pki_path(dir, TB_PKI_SERVER_KEY, key, sizeof key, &err);
    tb_pki_path(dir, TB_PKI_CA_CERT, ca, sizeof ca, &err);
    tb_tls_ctx *sctx = tb_tls_server_ctx_new(cert, key, &err);
    assert_non_null(sctx);
    tb_server *s = start(1, sctx);

    SSL_CTX *cctx = SSL_CTX_new(TLS_client_method());
    assert_int_equal(SSL_CTX_load_verify_locations(cctx, ca, NULL), 1);
    SSL_CTX_set_verify(cctx, SSL_VERIFY_PEER, NULL);
    int served = 0;
    client *c = calloc(1, sizeof *c);
    c->fd = dial(tb_server_port(s));
    c->ssl = SSL_new(cctx);
    SSL_set_fd(c->ssl, c->fd);
    SSL_set_tlsext_host_name(c->ssl, "test-server.io");
    SSL_set1_host(c->ssl, "test-server.io");
    assert_int_equal(SSL_connect(c->ssl), 1);
    exchange(c, &served);
    SSL_free(c->ssl);
    close(c->fd);
    free(c);

    /* A client that gives up during the handshake does not disturb the server. */
    int fd = dial(tb_server_port(s));
    assert_int_equal(write(fd, "not tls at all\r\n\r\n", 18), 18);
    close(fd);

    tb_counts counts = stop(s);
    assert_int_equal(tb_counts_total(&counts), served);
    SSL_CTX_free(cctx);
    tb_tls_ctx_free(sctx);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_idle_timeout(void **state)
{
    (void)state;
    tb_err err;
    tb_server_opts o = {.addr = "127.0.0.1", .port = "0", .threads = 1, .idle_timeout_s = 1};
    tb_server *s = tb_server_new(&o, &site, &err);
    assert_non_null(s);
    assert_int_equal(tb_server_start(s, &err), 0);
    client *idle = calloc(1, sizeof *idle), *busy = calloc(1, sizeof *busy);
    idle->fd = dial(tb_server_port(s));
    busy->fd = dial(tb_server_port(s));
    /* The busy connection makes progress every 300 ms for 2.7 s and stays open;
     * the idle one is closed after 1-2 s. */
    for (int i = 0; i < 9; i++) {
        size_t len;
        int closes;
        cl_send(busy, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        assert_int_equal(cl_response(busy, &len, &closes), 200);
        usleep(300000);
    }
    assert_true(at_eof(idle)); /* read() returns 0 (closed), not the 5 s timeout */
    size_t len;
    int closes;
    cl_send(busy, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    assert_int_equal(cl_response(busy, &len, &closes), 200);
    close(idle->fd);
    close(busy->fd);
    free(idle);
    free(busy);
    tb_counts c = stop(s);
    assert_int_equal(tb_counts_total(&c), 10);
}

static void test_port_in_use(void **state)
{
    (void)state;
    tb_server *s = start(1, NULL);
    char port[16];
    snprintf(port, sizeof port, "%d", tb_server_port(s));
    tb_err err;
    for (int threads = 1; threads <= 2; threads++) {
        tb_server_opts o = {.addr = "127.0.0.1", .port = port, .threads = threads};
        assert_null(tb_server_new(&o, &site, &err));
        assert_non_null(strstr(err.msg, "in use"));
    }
    tb_server_opts bad = {.addr = "127.0.0.1", .port = "0", .threads = 0};
    assert_null(tb_server_new(&bad, &site, &err));
    tb_counts c = stop(s);
    assert_int_equal(tb_counts_total(&c), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain),
        cmocka_unit_test(test_tls),
        cmocka_unit_test(test_idle_timeout),
        cmocka_unit_test(test_port_in_use),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
