/* Unit tests for src/notary/resolve, with a stand-in lookup function: names
 * "hole*" block (a DNS server that never answers) until the test opens the
 * gate, "missing*" do not resolve, others resolve to 127.0.0.1. Checked: a
 * numeric address needs no lookup; a lookup ends at the deadline (504) or the
 * cancel fd (503) however long the lookup takes; abandoned lookups still count
 * against the caps per address, per prefix and in all (429, 429, 503) until
 * they end, and then free their counts; a resolver released with lookups
 * still running is freed by the last of them (ASan and TSan builds check that
 * nothing leaks or races). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "base/clock.h"
#include "notary/internal.h"

#define MS 1000000ull

typedef struct gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int open;
    int calls; /* lookups asked of the stand-in */
} gate;

static int stand_in(void *ctx, const char *host, const char *port, const struct addrinfo *hints,
                    struct addrinfo **res)
{
    gate *g = ctx;
    pthread_mutex_lock(&g->mu);
    g->calls++;
    if (!strncmp(host, "hole", 4))
        while (!g->open)
            pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
    if (!strncmp(host, "missing", 7))
        return EAI_NONAME;
    return getaddrinfo("127.0.0.1", port, hints, res);
}

static void gate_init(gate *g)
{
    memset(g, 0, sizeof *g);
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
}

static void gate_open(gate *g)
{
    pthread_mutex_lock(&g->mu);
    g->open = 1;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

static int gate_calls(gate *g)
{
    pthread_mutex_lock(&g->mu);
    int n = g->calls;
    pthread_mutex_unlock(&g->mu);
    return n;
}

static tb_notary_client client(const char *ip)
{
    struct sockaddr_in in = {.sin_family = AF_INET};
    inet_pton(AF_INET, ip, &in.sin_addr);
    tb_notary_client c;
    tb_notary_client_of((struct sockaddr *)&in, &c);
    return c;
}

/* Resolves host for ip with a deadline ms from now; returns the status (200: ok). */
static int resolve(tb_notary_resolver *r, const char *ip, const char *host, uint64_t ms,
                   int cancel_fd, tb_err *err)
{
    tb_notary_client c = client(ip);
    struct addrinfo *res = NULL;
    int status = 0;
    if (tb_notary_resolve(r, &c, host, 443, tb_mono_ns() + ms * MS, cancel_fd, &res, &status, err) <
        0) {
        assert_null(res);
        return status;
    }
    assert_non_null(res);
    assert_int_equal(res->ai_socktype, SOCK_STREAM);
    assert_int_equal(ntohs(res->ai_family == AF_INET
                               ? ((struct sockaddr_in *)res->ai_addr)->sin_port
                               : ((struct sockaddr_in6 *)res->ai_addr)->sin6_port),
                     443);
    freeaddrinfo(res);
    return 200;
}

static void wait_running(tb_notary_resolver *r, size_t n)
{
    for (int i = 0; i < 200 && tb_notary_resolver_running(r) != n; i++)
        usleep(5000);
    assert_int_equal(tb_notary_resolver_running(r), n);
}

static void test_names_and_numbers(void **state)
{
    (void)state;
    tb_err err;
    gate g;
    gate_init(&g);
    tb_notary_resolver_opts o = {
        .max = 4, .per_addr = 2, .per_prefix = 3, .lookup = stand_in, .ctx = &g};
    tb_notary_resolver *r = tb_notary_resolver_new(&o, &err);
    assert_non_null(r);
    assert_int_equal(resolve(r, "10.0.0.1", "127.0.0.1", 1000, -1, &err), 200);
    assert_int_equal(resolve(r, "10.0.0.1", "::1", 1000, -1, &err), 200);
    assert_int_equal(gate_calls(&g), 0); /* numeric: no lookup */
    assert_int_equal(resolve(r, "10.0.0.1", "name.test", 1000, -1, &err), 200);
    assert_int_equal(gate_calls(&g), 1);
    assert_int_equal(resolve(r, "10.0.0.1", "missing.test", 1000, -1, &err), 502);
    assert_non_null(strstr(err.msg, "cannot resolve: "));
    wait_running(r, 0);
    tb_notary_resolver_release(r);
    o.max = 0;
    assert_null(tb_notary_resolver_new(&o, &err));
}

/* Issue 19: a name whose DNS server never answers held a worker for 10 s,
 * outside the deadline; 64 of them stalled every notarization. */
static void test_black_hole(void **state)
{
    (void)state;
    tb_err err;
    gate g;
    gate_init(&g);
    tb_notary_resolver_opts o = {
        .max = 4, .per_addr = 2, .per_prefix = 3, .lookup = stand_in, .ctx = &g};
    tb_notary_resolver *r = tb_notary_resolver_new(&o, &err);
    uint64_t t0 = tb_mono_ns();
    assert_int_equal(resolve(r, "10.0.0.1", "hole.test", 100, -1, &err), 504);
    uint64_t took = tb_mono_ns() - t0;
    assert_true(took >= 95 * MS && took < 400 * MS);
    assert_non_null(strstr(err.msg, "no answer before the deadline"));
    assert_int_equal(tb_notary_resolver_running(r), 1); /* abandoned, still counted */
    assert_int_equal(resolve(r, "10.0.0.1", "hole.test", 50, -1, &err), 504);
    /* this address has 2 lookups in flight: refused at once, numeric still fine */
    t0 = tb_mono_ns();
    assert_int_equal(resolve(r, "10.0.0.1", "name.test", 1000, -1, &err), 429);
    assert_true(tb_mono_ns() - t0 < 50 * MS);
    assert_non_null(strstr(err.msg, "client address has 2 name resolutions in flight"));
    assert_int_equal(resolve(r, "10.0.0.1", "127.0.0.1", 1000, -1, &err), 200);
    /* another address of the /24: one more, then the prefix is at its cap */
    assert_int_equal(resolve(r, "10.0.0.2", "hole.test", 20, -1, &err), 504);
    assert_int_equal(resolve(r, "10.0.0.3", "name.test", 1000, -1, &err), 429);
    assert_non_null(strstr(err.msg, "network (IPv4 /24, IPv6 /64) has 3 name resolutions"));
    /* another network: the last of the 4 in all, then 503 for everybody */
    assert_int_equal(resolve(r, "10.9.0.1", "hole.test", 20, -1, &err), 504);
    assert_int_equal(resolve(r, "10.8.0.1", "name.test", 1000, -1, &err), 503);
    assert_non_null(strstr(err.msg, "4 name resolutions in flight (the notary's limit)"));
    /* a cancel fd ends a wait at once (g2 is static: its lookup outlives this test) */
    static gate g2;
    gate_init(&g2);
    tb_notary_resolver_opts o2 = {
        .max = 4, .per_addr = 4, .per_prefix = 4, .lookup = stand_in, .ctx = &g2};
    tb_notary_resolver *r2 = tb_notary_resolver_new(&o2, &err);
    int efd = eventfd(1, EFD_CLOEXEC);
    t0 = tb_mono_ns();
    assert_int_equal(resolve(r2, "10.0.0.1", "hole.test", 5000, efd, &err), 503);
    assert_true(tb_mono_ns() - t0 < 200 * MS);
    assert_non_null(strstr(err.msg, "stopping"));
    close(efd);
    /* the DNS answers at last: every count is given back */
    gate_open(&g);
    wait_running(r, 0);
    assert_int_equal(resolve(r, "10.0.0.1", "hole.test", 1000, -1, &err), 200);
    tb_notary_resolver_release(r);
    /* released while its lookup still runs: the lookup frees it when it ends */
    tb_notary_resolver_release(r2);
    gate_open(&g2);
    for (int i = 0; i < 100 && gate_calls(&g2) < 1; i++)
        usleep(5000);
    usleep(50000); /* the last thread out frees r2 (LSan would report it otherwise) */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_and_numbers),
        cmocka_unit_test(test_black_hole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
