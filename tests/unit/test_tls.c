/* Unit tests for src/net/tls: a client and a server tb_sock handshake over
 * loopback with a throwaway CA-signed certificate (made with the openssl CLI);
 * verification on/off, host name check, SNI, bad key/cert files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net/ev.h"
#include "net/sock.h"
#include "net/tls.h"

static char dir[64];
static char cert[128], key[128], ca[128];

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/tb-tls-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(cert, sizeof cert, "%s/cert.pem", dir);
    snprintf(key, sizeof key, "%s/key.pem", dir);
    snprintf(ca, sizeof ca, "%s/ca.pem", dir);
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "cd %s && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
             "-subj /CN=test-ca -days 1 -keyout ca.key -out ca.pem 2>/dev/null && "
             "openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=srv "
             "-keyout key.pem -out srv.csr 2>/dev/null && "
             "printf 'subjectAltName=DNS:test-server.io,IP:127.0.0.1\\n' > ext && "
             "openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 "
             "-extfile ext -out cert.pem 2>/dev/null",
             dir);
    return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Connects a client tb_sock (sni, ctx) to a server tb_sock and drives both
 * handshakes. Returns the client's final handshake status. */
static tb_sock_status pair(tb_tls_ctx *cctx, const char *sni, tb_sock *c, tb_sock *s)
{
    tb_err e;
    int lfd, cfd, sfd;
    assert_int_equal(tb_sock_listen("127.0.0.1", "0", 4, 0, &lfd, &e), 0);
    struct sockaddr_in sa;
    socklen_t len = sizeof sa;
    getsockname(lfd, (struct sockaddr *)&sa, &len);
    tb_addr a;
    memcpy(&a.ss, &sa, len);
    a.len = len;
    tb_tls_ctx *sctx = tb_tls_server_ctx_new(cert, key, &e);
    assert_non_null(sctx);
    assert_int_equal(tb_sock_connect_start(&a, &cfd, &e), 0);
    struct pollfd p = {.fd = lfd, .events = POLLIN};
    assert_int_equal(poll(&p, 1, 2000), 1);
    assert_int_equal(tb_sock_accept(lfd, &sfd, &e), 0);
    close(lfd);
    assert_int_equal(tb_tls_sock_init_client(c, cctx, cfd, sni, &e), 0);
    assert_int_equal(tb_tls_sock_init_server(s, sctx, sfd, &e), 0);
    tb_tls_ctx_free(sctx); /* the SSL objects keep their own reference */
    tb_sock_status cs = TB_SOCK_RETRY, ss = TB_SOCK_RETRY;
    for (int i = 0; i < 1000 && (cs == TB_SOCK_RETRY || ss == TB_SOCK_RETRY); i++) {
        if (cs == TB_SOCK_RETRY)
            cs = c->ops->handshake(c);
        if (ss == TB_SOCK_RETRY)
            ss = s->ops->handshake(s);
        if (cs == TB_SOCK_ERROR)
            break;
        usleep(100);
    }
    return cs;
}

static void exchange(tb_sock *c, tb_sock *s)
{
    size_t n;
    char buf[64];
    assert_int_equal(c->ops->write(c, "ping", 4, &n), TB_SOCK_OK);
    assert_int_equal(n, 4);
    tb_sock_status st = TB_SOCK_RETRY;
    for (int i = 0; i < 1000 && st == TB_SOCK_RETRY; i++) {
        st = s->ops->read(s, buf, sizeof buf, &n);
        usleep(100);
    }
    assert_int_equal(st, TB_SOCK_OK);
    assert_int_equal(n, 4);
    assert_memory_equal(buf, "ping", 4);
    c->ops->close(c);
    st = TB_SOCK_RETRY;
    for (int i = 0; i < 1000 && st == TB_SOCK_RETRY; i++) {
        st = s->ops->read(s, buf, sizeof buf, &n);
        usleep(100);
    }
    assert_int_equal(st, TB_SOCK_OK);
    assert_int_equal(n, 0);
    s->ops->close(s);
}

static void test_no_verify(void **state)
{
    (void)state;
    tb_err e;
    tb_tls_ctx *ctx = tb_tls_client_ctx_new(NULL, &e);
    assert_non_null(ctx);
    tb_sock c, s;
    assert_int_equal(pair(ctx, "whatever.example", &c, &s), TB_SOCK_OK);
    exchange(&c, &s);
    tb_tls_ctx_free(ctx);
}

static void test_verify(void **state)
{
    (void)state;
    tb_err e;
    tb_tls_ctx *ctx = tb_tls_client_ctx_new(ca, &e);
    assert_non_null(ctx);
    tb_sock c, s;
    assert_int_equal(pair(ctx, "test-server.io", &c, &s), TB_SOCK_OK);
    exchange(&c, &s);
    assert_int_equal(pair(ctx, "127.0.0.1", &c, &s), TB_SOCK_OK);
    exchange(&c, &s);
    assert_int_equal(pair(ctx, "wrong.example", &c, &s), TB_SOCK_ERROR);
    assert_non_null(strstr(c.err.msg, "verify"));
    c.ops->close(&c);
    s.ops->close(&s);
    tb_tls_ctx_free(ctx);
}

static void test_bad_files(void **state)
{
    (void)state;
    tb_err e;
    assert_null(tb_tls_client_ctx_new("/nonexistent/ca.pem", &e));
    assert_non_null(strstr(e.msg, "/nonexistent/ca.pem"));
    assert_null(tb_tls_server_ctx_new(cert, ca, &e)); /* a certificate is not a key */
    assert_null(tb_tls_server_ctx_new("/nonexistent", key, &e));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_verify),
        cmocka_unit_test(test_verify),
        cmocka_unit_test(test_bad_files),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
