/* Unit tests for src/net/echo: the server on a free port (TCP and UDP on the same one),
 * served by a thread; TCP and UDP round trips against it (sorted samples, percentiles in
 * order); the stop flag; what a client reports where nothing answers (TCP refused; UDP
 * to a socket that never echoes: every request lost, then an error); a server full of
 * connections still answering the one it has. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/echo.h"

typedef struct served {
    tb_echo_server s;
    pthread_t th;
    volatile sig_atomic_t stop;
    int rc;
} served;

static void *serve_main(void *arg)
{
    served *v = arg;
    tb_err e;
    v->rc = tb_echo_serve(&v->s, &v->stop, &e);
    return NULL;
}

static void start(served *v)
{
    tb_err e;
    memset(v, 0, sizeof *v);
    if (tb_echo_open("127.0.0.1", "0", &v->s, &e) < 0)
        fail_msg("%s", e.msg);
    assert_true(v->s.port > 0);
    assert_int_equal(pthread_create(&v->th, NULL, serve_main, v), 0);
}

static void stop(served *v)
{
    __atomic_store_n(&v->stop, 1, __ATOMIC_RELAXED); /* the serving thread reads it */
    pthread_join(v->th, NULL);
    assert_int_equal(v->rc, 0);
    tb_echo_close(&v->s);
    assert_int_equal(v->s.tcp_fd, -1);
}

static tb_echo_opts opts(int port, int udp)
{
    tb_echo_opts o = {.udp = udp, .seconds = 0.05, .max_samples = 100000, .timeout_ms = 1000};
    char p[16];
    tb_err e;
    snprintf(p, sizeof p, "%d", port);
    assert_int_equal(tb_addr_resolve("127.0.0.1", p, &o.addr, &e), 0);
    return o;
}

static void check_result(const tb_echo_result *r)
{
    assert_true(r->n > 10);
    for (size_t i = 1; i < r->n; i++)
        assert_true(r->rtt_ns[i - 1] <= r->rtt_ns[i]);
    assert_true(r->min_us > 0 && r->min_us <= r->p50_us && r->p50_us <= r->p99_us &&
                r->p99_us <= r->max_us);
    assert_true(r->mean_us >= r->min_us && r->mean_us <= r->max_us);
    assert_true(r->seconds >= 0.05);
}

static void test_round_trips(void **state)
{
    (void)state;
    served v;
    start(&v);
    for (int udp = 0; udp <= 1; udp++) {
        tb_echo_opts o = opts(v.s.port, udp);
        tb_echo_result r;
        tb_err e;
        if (tb_echo_rtt(&o, &r, &e) < 0)
            fail_msg("%s: %s", udp ? "udp" : "tcp", e.msg);
        check_result(&r);
        assert_int_equal(r.lost, 0);
        tb_echo_result_clear(&r);
        assert_null(r.rtt_ns);
        /* capped by max_samples */
        o.max_samples = 7;
        o.seconds = 10;
        assert_int_equal(tb_echo_rtt(&o, &r, &e), 0);
        assert_int_equal(r.n, 7);
        tb_echo_result_clear(&r);
    }
    stop(&v);
}

static void test_stop_flag(void **state)
{
    (void)state;
    served v;
    start(&v);
    volatile sig_atomic_t now = 1;
    tb_echo_opts o = opts(v.s.port, 0);
    o.seconds = 60;
    o.stop = &now;
    tb_echo_result r;
    tb_err e;
    assert_int_equal(tb_echo_rtt(&o, &r, &e), 0);
    assert_true(r.stopped);
    assert_true(r.n <= 1);
    tb_echo_result_clear(&r);
    stop(&v);
}

static void test_nobody_answers(void **state)
{
    (void)state;
    /* a port nobody listens on: TCP is refused */
    served v;
    start(&v);
    int port = v.s.port;
    stop(&v);
    tb_echo_opts o = opts(port, 0);
    tb_echo_result r;
    tb_err e;
    assert_int_equal(tb_echo_rtt(&o, &r, &e), -1);
    assert_non_null(strstr(e.msg, "127.0.0.1:"));
    assert_null(r.rtt_ns);
    /* a UDP socket that takes requests and never answers: each one lost, then an error */
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    o = opts(ntohs(a.sin_port), 1);
    o.timeout_ms = 20;
    o.seconds = 0.1;
    assert_int_equal(tb_echo_rtt(&o, &r, &e), -1);
    assert_non_null(strstr(e.msg, "no echo came back"));
    assert_non_null(strstr(e.msg, "requests lost"));
    close(fd);
    tb_echo_opts bad = opts(1, 0);
    bad.seconds = 0;
    assert_int_equal(tb_echo_rtt(&bad, &r, &e), -1);
}

/* More connections than it keeps: the extra ones are closed, the ones it has answered. */
static void test_full(void **state)
{
    (void)state;
    served v;
    start(&v);
    tb_echo_opts o = opts(v.s.port, 0);
    int fds[TB_ECHO_MAX_CONNS + 4];
    for (int i = 0; i < TB_ECHO_MAX_CONNS + 4; i++) {
        fds[i] = socket(AF_INET, SOCK_STREAM, 0);
        assert_int_equal(connect(fds[i], (struct sockaddr *)&o.addr.ss, o.addr.len), 0);
        if (i == 0) { /* the first is served */
            char b[8] = "ping-one", back[8];
            assert_int_equal(send(fds[0], b, 8, 0), 8);
            assert_int_equal(recv(fds[0], back, 8, MSG_WAITALL), 8);
            assert_memory_equal(b, back, 8);
        }
    }
    usleep(300000); /* the server has seen them all */
    char c;
    struct timeval tv = {.tv_sec = 2};
    setsockopt(fds[TB_ECHO_MAX_CONNS + 3], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    assert_int_equal(recv(fds[TB_ECHO_MAX_CONNS + 3], &c, 1, 0), 0); /* closed by the server */
    char b[8] = "ping-two", back[8];
    assert_int_equal(send(fds[0], b, 8, 0), 8);
    assert_int_equal(recv(fds[0], back, 8, MSG_WAITALL), 8);
    assert_memory_equal(b, back, 8);
    for (int i = 0; i < TB_ECHO_MAX_CONNS + 4; i++)
        close(fds[i]);
    stop(&v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_stop_flag),
        cmocka_unit_test(test_nobody_answers),
        cmocka_unit_test(test_full),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
