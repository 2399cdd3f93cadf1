/* Unit tests for src/notary/target: allow-list entries and matching; fetching
 * from an in-process TLS server (chain and name checks, response limits,
 * refused targets). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "notary/target.h"
#include "notary_util.h"

static struct sockaddr_storage addr(const char *ip)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    if (strchr(ip, ':')) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        inet_pton(AF_INET6, ip, &a->sin6_addr);
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        inet_pton(AF_INET, ip, &a->sin_addr);
    }
    return ss;
}

static int permits(const tb_allowlist *l, const char *host, uint16_t port, const char *ip)
{
    struct sockaddr_storage ss = addr(ip);
    return tb_allowlist_permits(l, host, port, (struct sockaddr *)&ss);
}

static void test_allowlist(void **state)
{
    (void)state;
    tb_err err;
    tb_allowlist l;
    tb_allowlist_loopback(&l);
    assert_true(permits(&l, "localhost", 443, "127.0.0.1"));
    assert_true(permits(&l, "x", 1, "127.255.0.9"));
    assert_true(permits(&l, "x", 1, "::1"));
    assert_true(permits(&l, "x", 1, "::ffff:127.0.0.1"));
    assert_false(permits(&l, "x", 1, "10.0.0.1"));
    assert_false(permits(&l, "x", 1, "::2"));
    memset(&l, 0, sizeof l);
    assert_int_equal(tb_allowlist_add(&l, "10.1.0.0/16", &err), 0);
    assert_int_equal(tb_allowlist_add(&l, "example.com:443", &err), 0);
    assert_int_equal(tb_allowlist_add(&l, "[::1]:8443", &err), 0);
    assert_true(permits(&l, "a", 1, "10.1.200.3"));
    assert_false(permits(&l, "a", 1, "10.2.0.1"));
    assert_false(permits(&l, "a", 1, "127.0.0.1")); /* explicit entries replace loopback */
    assert_true(permits(&l, "EXAMPLE.com", 443, "93.184.216.34"));
    assert_false(permits(&l, "example.com", 80, "93.184.216.34"));
    assert_true(permits(&l, "::1", 8443, "::1"));
    const char *bad[] = {"10.0.0.0/33", "10.0.0.0/", "/8",      "nonsense", "host:0",
                         "host:x",      ":443",      "::1/129", "1.2.3/8"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(tb_allowlist_add(&l, bad[i], &err), -1);
}

static const char RESP[] = "HTTP/1.1 200 OK\r\nContent-Length: 11\r\nConnection: close\r\n\r\n"
                           "hello world";
static const char REQ[] = "GET / HTTP/1.1\r\nHost: test-server.io\r\nConnection: close\r\n\r\n";

static void test_fetch(void **state)
{
    (void)state;
    tb_err err;
    test_pki p;
    assert_int_equal(test_pki_make(&p), 0);
    test_tls_server srv;
    assert_int_equal(test_tls_start(&srv, &p, RESP, 4), 0);
    tb_allowlist l;
    tb_allowlist_loopback(&l);
    tb_target t;
    const char *cas[] = {p.ca};
    assert_int_equal(tb_target_init(&t, cas, 1, 0, &l, 5000, &err), 0);
    tb_fetch f;
    int status = 0;
    /* 1: good */
    assert_int_equal(tb_target_fetch(&t, "127.0.0.1", srv.port, "test-server.io",
                                     (const uint8_t *)REQ, strlen(REQ), 16384, &f, &status, &err),
                     0);
    assert_int_equal(f.response.len, strlen(RESP));
    assert_memory_equal(f.response.p, RESP, f.response.len);
    assert_int_equal(f.n_certs, 1);
    assert_true(f.cert_len[0] > 100);
    tb_fetch_free(&f);
    /* 2: the response is larger than the limit: refused, never truncated */
    assert_int_equal(tb_target_fetch(&t, "127.0.0.1", srv.port, "test-server.io",
                                     (const uint8_t *)REQ, strlen(REQ), 20, &f, &status, &err),
                     -1);
    assert_int_equal(status, 422);
    assert_non_null(strstr(err.msg, "maxRecvData"));
    tb_fetch_free(&f);
    /* 3: a name the certificate does not carry */
    assert_int_equal(tb_target_fetch(&t, "127.0.0.1", srv.port, "wrong.example",
                                     (const uint8_t *)REQ, strlen(REQ), 16384, &f, &status, &err),
                     -1);
    assert_int_equal(status, 502);
    assert_non_null(strstr(err.msg, "certificate"));
    tb_fetch_free(&f);
    tb_target_free(&t);
    /* 4: a CA that did not sign the server certificate */
    test_pki other;
    assert_int_equal(test_pki_make(&other), 0);
    const char *ocas[] = {other.ca};
    assert_int_equal(tb_target_init(&t, ocas, 1, 0, &l, 5000, &err), 0);
    assert_int_equal(tb_target_fetch(&t, "127.0.0.1", srv.port, "test-server.io",
                                     (const uint8_t *)REQ, strlen(REQ), 16384, &f, &status, &err),
                     -1);
    assert_non_null(strstr(err.msg, "certificate"));
    tb_fetch_free(&f);
    tb_target_free(&t);
    test_tls_stop(&srv);
    test_pki_remove(&other);
    test_pki_remove(&p);
}

static void test_refused_targets(void **state)
{
    (void)state;
    tb_err err;
    tb_allowlist l;
    memset(&l, 0, sizeof l);
    assert_int_equal(tb_allowlist_add(&l, "10.0.0.0/8", &err), 0);
    tb_target t;
    assert_int_equal(tb_target_init(&t, NULL, 0, 1, &l, 2000, &err), 0);
    tb_fetch f;
    int status = 0;
    assert_int_equal(
        tb_target_fetch(&t, "127.0.0.1", 9, "a.b", (const uint8_t *)"x", 1, 10, &f, &status, &err),
        -1);
    assert_int_equal(status, 403);
    assert_non_null(strstr(err.msg, "not allowed"));
    tb_fetch_free(&f);
    tb_target_free(&t);
    /* an allowed target where nothing listens */
    tb_allowlist_loopback(&l);
    assert_int_equal(tb_target_init(&t, NULL, 0, 1, &l, 2000, &err), 0);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    bind(fd, (struct sockaddr *)&a, sizeof a);
    getsockname(fd, (struct sockaddr *)&a, &al);
    close(fd); /* the port is now (almost certainly) closed */
    assert_int_equal(tb_target_fetch(&t, "127.0.0.1", ntohs(a.sin_port), "a.b",
                                     (const uint8_t *)"x", 1, 10, &f, &status, &err),
                     -1);
    assert_int_equal(status, 502);
    assert_non_null(strstr(err.msg, "cannot connect"));
    tb_fetch_free(&f);
    /* no CA at all is a configuration error */
    tb_target_free(&t);
    assert_int_equal(tb_target_init(&t, NULL, 0, 0, &l, 2000, &err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_allowlist),
        cmocka_unit_test(test_fetch),
        cmocka_unit_test(test_refused_targets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
