/* Unit tests for src/notary/target: allow-list entries and matching, and the
 * strict spelling of entries; fetching from an in-process TLS server (chain
 * and name checks, response limits, refused targets), the one deadline of a
 * notarization against trickling and silent targets and slow name resolution
 * (issue 19: a slow lookup used to come on top of the fetch's deadline), names
 * no allow-list entry could permit refused without a lookup, and cancellation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <string.h>
#include <netdb.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "base/clock.h"

#include "notary/internal.h"
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

static int permits(const tb_notary_allowlist *l, const char *host, uint16_t port, const char *ip)
{
    struct sockaddr_storage ss = addr(ip);
    return tb_notary_allowlist_permits(l, host, port, (struct sockaddr *)&ss);
}

static void test_allowlist(void **state)
{
    (void)state;
    tb_err err;
    tb_notary_allowlist l;
    tb_notary_allowlist_loopback(&l);
    assert_true(permits(&l, "localhost", 443, "127.0.0.1"));
    assert_true(permits(&l, "x", 1, "127.255.0.9"));
    assert_true(permits(&l, "x", 1, "::1"));
    assert_true(permits(&l, "x", 1, "::ffff:127.0.0.1"));
    assert_false(permits(&l, "x", 1, "10.0.0.1"));
    assert_false(permits(&l, "x", 1, "::2"));
    memset(&l, 0, sizeof l);
    assert_int_equal(tb_notary_allowlist_add(&l, "10.1.0.0/16", &err), 0);
    assert_int_equal(tb_notary_allowlist_add(&l, "example.com:443", &err), 0);
    assert_int_equal(tb_notary_allowlist_add(&l, "[::1]:8443", &err), 0);
    assert_true(permits(&l, "a", 1, "10.1.200.3"));
    assert_false(permits(&l, "a", 1, "10.2.0.1"));
    assert_false(permits(&l, "a", 1, "127.0.0.1")); /* explicit entries replace loopback */
    assert_true(permits(&l, "EXAMPLE.com", 443, "93.184.216.34"));
    assert_false(permits(&l, "example.com", 80, "93.184.216.34"));
    assert_true(permits(&l, "::1", 8443, "::1"));
    const char *bad[] = {"10.0.0.0/33", "10.0.0.0/", "/8",      "nonsense", "host:0",
                         "host:x",      ":443",      "::1/129", "1.2.3/8"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(tb_notary_allowlist_add(&l, bad[i], &err), -1);
}

/* Item 9 of issue 12: every spelling the old parser let through by strtol. */
static void test_allowlist_strict(void **state)
{
    (void)state;
    tb_err err;
    tb_notary_allowlist l;
    memset(&l, 0, sizeof l);
    struct {
        const char *spec, *why;
    } bad[] = {
        {"10.0.0.0/-0", "plain digits"}, /* was read as /0: allow everything */
        {"10.0.0.0/+8", "plain digits"},
        {"10.0.0.0/ 8", "plain digits"},
        {"10.0.0.0/08", "plain digits"},
        {"10.0.0.0/8 ", "plain digits"},
        {"::/-0", "plain digits"},
        {"10.0.0.1/8", "bits are set after the /8 prefix"},
        {"::1", "brackets"}, /* was read as host ":" port 1 */
        {"::1:443", "brackets"},
        {"fe80::1:8443", "brackets"},
        {"[::1]:+443", "1..65535 in plain digits"},
        {"[::1]:0443", "1..65535 in plain digits"},
        {"host: 443", "1..65535 in plain digits"},
        {"host:65536", "1..65535 in plain digits"},
        {"[nope]:443", "not an IPv6 address"},
        {"[]:443", "IPv6"},
        {"bad_host:443", "not a host name"},
        {"a b:443", "not a host name"},
        {"01.2.3.4/32", "not an IPv4 or IPv6 address"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.msg[0] = 0;
        if (tb_notary_allowlist_add(&l, bad[i].spec, &err) != -1)
            fail_msg("'%s' was accepted", bad[i].spec);
        if (!strstr(err.msg, bad[i].why) || !strstr(err.msg, bad[i].spec))
            fail_msg("'%s': message '%s' lacks '%s'", bad[i].spec, err.msg, bad[i].why);
    }
    assert_int_equal(l.n, 0);
    const char *good[] = {"0.0.0.0/0",   "10.0.0.0/8",    "::/0",      "::1/128",    "[::1]:443",
                          "localhost:1", "192.0.2.7:443", "fe80::/10", "a-b.c:65535"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        if (tb_notary_allowlist_add(&l, good[i], &err) != 0)
            fail_msg("'%s' refused: %s", good[i], err.msg);
    assert_int_equal(l.e[0].prefix, 0);
    assert_int_equal(l.e[4].port, 443);
    assert_string_equal(l.e[4].host, "::1");
}

static void *cancel_later(void *arg)
{
    usleep(150000);
    uint64_t one = 1;
    if (write(*(int *)arg, &one, sizeof one) != sizeof one)
        abort();
    return NULL;
}

static const char RESP[] = "HTTP/1.1 200 OK\r\nContent-Length: 11\r\nConnection: close\r\n\r\n"
                           "hello world";
static const char REQ[] = "GET / HTTP/1.1\r\nHost: test-server.io\r\nConnection: close\r\n\r\n";

/* The lookups of these tests: "slow.test" answers 127.0.0.1 after 400 ms;
 * other names go to getaddrinfo. ctx counts the calls. */
static int lookup(void *ctx, const char *host, const char *port, const struct addrinfo *hints,
                  struct addrinfo **res)
{
    __atomic_add_fetch((int *)ctx, 1, __ATOMIC_SEQ_CST);
    if (!strcmp(host, "slow.test")) {
        usleep(400000);
        host = "127.0.0.1";
    }
    return getaddrinfo(host, port, hints, res);
}

static int lookups;

/* resolve + fetch as the notary does them, under one deadline. */
static int fetch(const tb_notary_target *t, const char *host, uint16_t port, const char *sni,
                 size_t max, int cancel_fd, tb_notary_target_response *f, int *status, tb_err *err)
{
    tb_notary_target_addrs a;
    memset(f, 0, sizeof *f);
    tb_notary_resolver_opts o = {
        .max = 4, .per_addr = 4, .per_prefix = 4, .lookup = lookup, .ctx = &lookups};
    tb_notary_resolver *r = tb_notary_resolver_new(&o, err);
    assert_non_null(r);
    tb_notary_client who;
    memset(&who, 0, sizeof who);
    uint64_t deadline = tb_notary_target_deadline(t);
    int rc = tb_notary_target_resolve(t, r, &who, host, port, deadline, cancel_fd, &a, status, err);
    tb_notary_resolver_release(r);
    if (rc < 0)
        return -1;
    return tb_notary_target_fetch(t, &a, sni, (const uint8_t *)REQ, strlen(REQ), max, deadline,
                                  cancel_fd, f, status, err);
}

static void test_fetch(void **state)
{
    (void)state;
    tb_err err;
    test_pki p;
    assert_int_equal(test_pki_make(&p), 0);
    test_tls_server srv;
    assert_int_equal(test_tls_start(&srv, &p, RESP, 4), 0);
    tb_notary_allowlist l;
    tb_notary_allowlist_loopback(&l);
    tb_notary_target t;
    const char *cas[] = {p.ca};
    assert_int_equal(tb_notary_target_init(&t, cas, 1, 0, &l, 5000, &err), 0);
    tb_notary_target_response f;
    int status = 0;
    /* 1: good */
    assert_int_equal(
        fetch(&t, "127.0.0.1", srv.port, "test-server.io", 16384, -1, &f, &status, &err), 0);
    assert_int_equal(f.response.len, strlen(RESP));
    assert_memory_equal(f.response.p, RESP, f.response.len);
    assert_int_equal(f.n_certs, 1);
    assert_true(f.cert_len[0] > 100);
    tb_notary_target_response_clear(&f);
    /* 2: the response is larger than the limit: refused, never truncated */
    assert_int_equal(fetch(&t, "127.0.0.1", srv.port, "test-server.io", 20, -1, &f, &status, &err),
                     -1);
    assert_int_equal(status, 422);
    assert_non_null(strstr(err.msg, "maxRecvData"));
    tb_notary_target_response_clear(&f);
    /* 3: a name the certificate does not carry */
    assert_int_equal(
        fetch(&t, "127.0.0.1", srv.port, "wrong.example", 16384, -1, &f, &status, &err), -1);
    assert_int_equal(status, 502);
    assert_non_null(strstr(err.msg, "certificate"));
    tb_notary_target_response_clear(&f);
    tb_notary_target_clear(&t);
    /* 4: a CA that did not sign the server certificate */
    test_pki other;
    assert_int_equal(test_pki_make(&other), 0);
    const char *ocas[] = {other.ca};
    assert_int_equal(tb_notary_target_init(&t, ocas, 1, 0, &l, 5000, &err), 0);
    assert_int_equal(
        fetch(&t, "127.0.0.1", srv.port, "test-server.io", 16384, -1, &f, &status, &err), -1);
    assert_non_null(strstr(err.msg, "certificate"));
    tb_notary_target_response_clear(&f);
    tb_notary_target_clear(&t);
    test_tls_stop(&srv);
    test_pki_remove(&other);
    test_pki_remove(&p);
}

/* Item 3 of issue 12: one deadline for connect + handshake + write + read. A
 * target that trickles a byte every 100 ms, or never completes the TLS
 * handshake, is given up at the deadline (504), and a cancel fd ends a fetch
 * at once (503). */
static void test_deadline_and_cancel(void **state)
{
    (void)state;
    tb_err err;
    test_pki p;
    assert_int_equal(test_pki_make(&p), 0);
    tb_notary_allowlist l;
    tb_notary_allowlist_loopback(&l);
    const char *cas[] = {p.ca};
    tb_notary_target t;
    assert_int_equal(tb_notary_target_init(&t, cas, 1, 0, &l, 600, &err), 0);
    tb_notary_target_response f;
    int status = 0;
    for (int mode = 0; mode < 2; mode++) { /* 0: trickling response, 1: silent handshake */
        test_tls_server srv;
        assert_int_equal(test_tls_start_mode(&srv, &p, RESP, 1, mode ? 0 : 100, mode), 0);
        uint64_t t0 = tb_mono_ns();
        assert_int_equal(
            fetch(&t, "127.0.0.1", srv.port, "test-server.io", 16384, -1, &f, &status, &err), -1);
        uint64_t ms = (tb_mono_ns() - t0) / 1000000u;
        assert_int_equal(status, 504);
        assert_non_null(strstr(err.msg, mode ? "TLS handshake" : "reading the response"));
        assert_non_null(strstr(err.msg, "600 ms"));
        assert_true(ms >= 590 && ms < 1500);
        tb_notary_target_response_clear(&f);
        test_tls_stop(&srv);
    }
    /* the lookup's 400 ms count against the same 600 ms: the trickling target
     * gets the remaining 200 ms (it used to get a fresh 600 ms) */
    {
        test_tls_server srv;
        assert_int_equal(test_tls_start_mode(&srv, &p, RESP, 1, 100, 0), 0);
        uint64_t t0 = tb_mono_ns();
        assert_int_equal(
            fetch(&t, "slow.test", srv.port, "test-server.io", 16384, -1, &f, &status, &err), -1);
        uint64_t ms = (tb_mono_ns() - t0) / 1000000u;
        assert_int_equal(status, 504);
        assert_non_null(strstr(err.msg, "name resolution and the target exchange are limited"));
        assert_true(ms >= 590 && ms < 900);
        tb_notary_target_response_clear(&f);
        test_tls_stop(&srv);
    }
    /* a lookup slower than the whole deadline: 504 at the deadline */
    tb_notary_target_clear(&t);
    assert_int_equal(tb_notary_target_init(&t, cas, 1, 0, &l, 200, &err), 0);
    uint64_t t1 = tb_mono_ns();
    assert_int_equal(fetch(&t, "slow.test", 9, "test-server.io", 16384, -1, &f, &status, &err), -1);
    assert_int_equal(status, 504);
    assert_non_null(strstr(err.msg, "target slow.test:9: resolving the name: no answer before the "
                                    "deadline (name resolution and the target exchange are "
                                    "limited to 200 ms)"));
    assert_true(tb_mono_ns() - t1 < 350000000u);
    usleep(300000); /* the abandoned lookup ends (it frees itself) */
    /* cancelled: an eventfd that becomes readable 150 ms into a 600 ms fetch */
    tb_notary_target_clear(&t);
    assert_int_equal(tb_notary_target_init(&t, cas, 1, 0, &l, 5000, &err), 0);
    test_tls_server srv;
    assert_int_equal(test_tls_start_mode(&srv, &p, RESP, 1, 100, 0), 0);
    int efd = eventfd(0, EFD_CLOEXEC);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, cancel_later, &efd), 0);
    uint64_t t0 = tb_mono_ns();
    assert_int_equal(
        fetch(&t, "127.0.0.1", srv.port, "test-server.io", 16384, efd, &f, &status, &err), -1);
    assert_int_equal(status, 503);
    assert_non_null(strstr(err.msg, "stopping"));
    assert_true(tb_mono_ns() - t0 < 1000000000u);
    pthread_join(th, NULL);
    close(efd);
    tb_notary_target_response_clear(&f);
    test_tls_stop(&srv);
    tb_notary_target_clear(&t);
    test_pki_remove(&p);
}

static void test_refused_targets(void **state)
{
    (void)state;
    tb_err err;
    tb_notary_allowlist l;
    memset(&l, 0, sizeof l);
    assert_int_equal(tb_notary_allowlist_add(&l, "10.0.0.0/8", &err), 0);
    tb_notary_target t;
    assert_int_equal(tb_notary_target_init(&t, NULL, 0, 1, &l, 2000, &err), 0);
    int status = 0;
    tb_notary_target_response f;
    assert_int_equal(fetch(&t, "127.0.0.1", 9, "a.b", 10, -1, &f, &status, &err), -1);
    assert_int_equal(status, 403);
    assert_non_null(strstr(err.msg, "not allowed"));
    assert_int_equal(fetch(&t, "no-such-host.invalid", 9, "a.b", 10, -1, &f, &status, &err), -1);
    assert_int_equal(status, 502);
    assert_non_null(strstr(err.msg, "target no-such-host.invalid:9: cannot resolve"));
    tb_notary_target_clear(&t);
    /* only HOST:PORT entries: another name is refused without a lookup */
    memset(&l, 0, sizeof l);
    assert_int_equal(tb_notary_allowlist_add(&l, "test-server.io:4000", &err), 0);
    assert_int_equal(tb_notary_target_init(&t, NULL, 0, 1, &l, 2000, &err), 0);
    int before = __atomic_load_n(&lookups, __ATOMIC_SEQ_CST);
    assert_int_equal(fetch(&t, "slow.test", 4000, "a.b", 10, -1, &f, &status, &err), -1);
    assert_int_equal(status, 403);
    assert_int_equal(fetch(&t, "test-server.io", 4001, "a.b", 10, -1, &f, &status, &err), -1);
    assert_int_equal(status, 403);
    assert_int_equal(__atomic_load_n(&lookups, __ATOMIC_SEQ_CST), before);
    tb_notary_target_clear(&t);
    /* an allowed target where nothing listens */
    tb_notary_allowlist_loopback(&l);
    assert_int_equal(tb_notary_target_init(&t, NULL, 0, 1, &l, 2000, &err), 0);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof sa;
    bind(fd, (struct sockaddr *)&sa, sizeof sa);
    getsockname(fd, (struct sockaddr *)&sa, &al);
    close(fd); /* the port is now (almost certainly) closed */
    assert_int_equal(fetch(&t, "127.0.0.1", ntohs(sa.sin_port), "a.b", 10, -1, &f, &status, &err),
                     -1);
    assert_int_equal(status, 502);
    assert_non_null(strstr(err.msg, "cannot connect"));
    tb_notary_target_response_clear(&f);
    /* no CA at all is a configuration error */
    tb_notary_target_clear(&t);
    assert_int_equal(tb_notary_target_init(&t, NULL, 0, 0, &l, 2000, &err), -1);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN); /* the trickling target writes to a notary that gave up */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_allowlist),       cmocka_unit_test(test_allowlist_strict),
        cmocka_unit_test(test_fetch),           cmocka_unit_test(test_deadline_and_cancel),
        cmocka_unit_test(test_refused_targets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
