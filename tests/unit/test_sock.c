/* Unit tests for src/net/sock: resolve, listen/accept/connect on loopback,
 * the plain vtable (write, readable, read, EOF), connect failures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "net/ev.h"
#include "net/sock.h"

static void listen_any(int *lfd, char port[8])
{
    tb_err e;
    assert_int_equal(tb_sock_listen("127.0.0.1", "0", 16, 0, lfd, &e), 0);
    struct sockaddr_in sa;
    socklen_t len = sizeof sa;
    assert_int_equal(getsockname(*lfd, (struct sockaddr *)&sa, &len), 0);
    snprintf(port, 8, "%u", ntohs(sa.sin_port));
}

static void wait_fd(int fd, short ev)
{
    struct pollfd p = {.fd = fd, .events = ev};
    assert_int_equal(poll(&p, 1, 2000), 1);
}

static void test_roundtrip(void **state)
{
    (void)state;
    tb_err e;
    int lfd, cfd, sfd;
    char port[8];
    listen_any(&lfd, port);
    tb_addr a;
    assert_int_equal(tb_addr_resolve("127.0.0.1", port, &a, &e), 0);
    char where[64];
    tb_addr_format(&a, where, sizeof where);
    assert_int_equal(strncmp(where, "127.0.0.1:", 10), 0);
    assert_int_equal(tb_sock_connect_wait(&a, 1000, &e), 0);
    wait_fd(lfd, POLLIN);
    assert_int_equal(tb_sock_accept(lfd, &sfd, &e), 0);
    close(sfd);
    assert_int_equal(tb_sock_connect_start(&a, &cfd, &e), 0);
    wait_fd(cfd, POLLOUT);
    assert_int_equal(tb_sock_connect_result(cfd, &e), 0);
    wait_fd(lfd, POLLIN);
    assert_int_equal(tb_sock_accept(lfd, &sfd, &e), 0);

    tb_sock c, s;
    tb_sock_init_plain(&c, cfd);
    tb_sock_init_plain(&s, sfd);
    assert_int_equal(c.ops->handshake(&c), TB_SOCK_OK);
    char buf[32];
    size_t n;
    assert_int_equal(s.ops->read(&s, buf, sizeof buf, &n), TB_SOCK_RETRY);
    assert_int_equal(s.want, TB_EV_READABLE);
    assert_int_equal(c.ops->write(&c, "hello", 5, &n), TB_SOCK_OK);
    assert_int_equal(n, 5);
    wait_fd(s.fd, POLLIN);
    assert_int_equal(s.ops->readable(&s), 5);
    assert_int_equal(s.ops->read(&s, buf, sizeof buf, &n), TB_SOCK_OK);
    assert_int_equal(n, 5);
    assert_memory_equal(buf, "hello", 5);
    c.ops->close(&c);
    assert_int_equal(c.fd, -1);
    wait_fd(s.fd, POLLIN);
    assert_int_equal(s.ops->read(&s, buf, sizeof buf, &n), TB_SOCK_OK);
    assert_int_equal(n, 0); /* EOF */
    s.ops->close(&s);
    close(lfd);
}

static void test_failures(void **state)
{
    (void)state;
    tb_err e;
    int lfd;
    char port[8];
    listen_any(&lfd, port);
    close(lfd); /* nothing listens there now */
    tb_addr a;
    assert_int_equal(tb_addr_resolve("127.0.0.1", port, &a, &e), 0);
    assert_int_equal(tb_sock_connect_wait(&a, 1000, &e), -1);
    assert_non_null(strstr(e.msg, "refused"));
    assert_int_equal(tb_addr_resolve("no-such-host.invalid", "80", &a, &e), -1);
    assert_non_null(strstr(e.msg, "no-such-host.invalid"));
    int fd;
    assert_int_equal(tb_sock_accept(-1, &fd, &e), -1);
}

/* tb_sock_free_port: a port nothing holds (it can be listened on at once), and not
   one that is held: two picks while the first is listened on differ. */
static void test_free_port(void **state)
{
    (void)state;
    tb_err e;
    int p = tb_sock_free_port(&e);
    assert_true(p > 0 && p < 65536);
    char port[8];
    snprintf(port, sizeof port, "%d", p);
    int lfd;
    assert_int_equal(tb_sock_listen("127.0.0.1", port, 4, 0, &lfd, &e), 0);
    for (int i = 0; i < 20; i++)
        assert_int_not_equal(tb_sock_free_port(&e), p);
    close(lfd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_failures),
        cmocka_unit_test(test_free_port),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
