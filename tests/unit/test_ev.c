/* Unit tests for src/net/ev: timer order and resolution, periodic timers,
 * deletion, file events with mask changes, stop. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "net/ev.h"
#include "net/internal.h"

struct rec {
    int order[16];
    int n;
    int periodic_runs;
    uint64_t fired_at;
};

struct tctx {
    struct rec *r;
    int tag;
};

static int64_t once(tb_ev_loop *l, uint64_t id, void *data)
{
    (void)l;
    (void)id;
    struct tctx *t = data;
    t->r->order[t->r->n++] = t->tag;
    t->r->fired_at = tb_mono_ns();
    return TB_EV_NOMORE;
}

static int64_t periodic(tb_ev_loop *l, uint64_t id, void *data)
{
    (void)id;
    struct rec *r = data;
    if (++r->periodic_runs == 5) {
        tb_ev_stop(l);
        return TB_EV_NOMORE;
    }
    return 1000000; /* 1 ms */
}

static void test_timers(void **state)
{
    (void)state;
    tb_err e;
    tb_ev_loop *l = tb_ev_new(64, 8, &e);
    assert_non_null(l);
    struct rec r = {0};
    struct tctx a = {&r, 1}, b = {&r, 2}, c = {&r, 3}, d = {&r, 4};
    uint64_t t0 = tb_mono_ns();
    assert_int_not_equal(tb_ev_timer_add(l, 3000000, once, &c), 0);
    assert_int_not_equal(tb_ev_timer_add(l, 1000000, once, &a), 0);
    uint64_t del = tb_ev_timer_add(l, 1500000, once, &d);
    assert_int_not_equal(tb_ev_timer_add(l, 2000000, once, &b), 0);
    assert_int_equal(tb_ev_timer_del(l, del), 0);
    assert_int_equal(tb_ev_timer_del(l, del), -1); /* stale id */
    assert_int_not_equal(tb_ev_timer_add(l, 4000000, periodic, &r), 0);
    assert_int_equal(tb_ev_run(l, &e), 0);
    assert_int_equal(r.n, 3);
    assert_int_equal(r.order[0], 1);
    assert_int_equal(r.order[1], 2);
    assert_int_equal(r.order[2], 3);
    assert_true(r.fired_at - t0 >= 3000000);
    assert_int_equal(r.periodic_runs, 5);
    assert_true(tb_mono_ns() - t0 >= 8000000);
    tb_ev_free(l);
}

static void test_timer_capacity(void **state)
{
    (void)state;
    tb_err e;
    tb_ev_loop *l = tb_ev_new(8, 2, &e);
    struct rec r = {0};
    struct tctx a = {&r, 1};
    uint64_t id1 = tb_ev_timer_add(l, 1000, once, &a);
    assert_int_not_equal(id1, 0);
    assert_int_not_equal(tb_ev_timer_add(l, 1000, once, &a), 0);
    assert_int_equal(tb_ev_timer_add(l, 1000, once, &a), 0);
    assert_int_equal(tb_ev_timer_del(l, id1), 0);
    assert_int_not_equal(tb_ev_timer_add(l, 1000, once, &a), 0);
    tb_ev_free(l);
}

struct pipe_ctx {
    int reads;
    int writes;
    int wfd;
};

static void on_read(tb_ev_loop *l, int fd, void *data, int mask)
{
    struct pipe_ctx *p = data;
    assert_int_equal(mask, TB_EV_READABLE);
    char b[16];
    ssize_t n = read(fd, b, sizeof b);
    assert_true(n > 0);
    if (++p->reads == 3) {
        tb_ev_del(l, fd, TB_EV_READABLE);
        tb_ev_stop(l);
    }
}

static void on_write(tb_ev_loop *l, int fd, void *data, int mask)
{
    struct pipe_ctx *p = data;
    assert_int_equal(mask, TB_EV_WRITABLE);
    assert_int_equal(write(fd, "x", 1), 1);
    p->writes++;
    tb_ev_del(l, fd, TB_EV_WRITABLE); /* one write per arming */
}

static int64_t rearm(tb_ev_loop *l, uint64_t id, void *data)
{
    (void)id;
    struct pipe_ctx *p = data;
    tb_err e;
    assert_int_equal(tb_ev_add(l, p->wfd, TB_EV_WRITABLE, on_write, p, &e), 0);
    return 1000000;
}

static void test_file_events(void **state)
{
    (void)state;
    tb_err e;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    tb_ev_loop *l = tb_ev_new(1024, 4, &e);
    struct pipe_ctx p = {0, 0, fds[1]};
    assert_int_equal(tb_ev_add(l, fds[0], TB_EV_READABLE, on_read, &p, &e), 0);
    assert_int_equal(tb_ev_mask(l, fds[0]), TB_EV_READABLE);
    assert_int_not_equal(tb_ev_timer_add(l, 0, rearm, &p), 0);
    assert_int_equal(tb_ev_run(l, &e), 0);
    assert_int_equal(p.reads, 3);
    assert_int_equal(p.writes, 3);
    assert_int_equal(tb_ev_mask(l, fds[0]), TB_EV_NONE);
    assert_int_equal(tb_ev_add(l, 5000, TB_EV_READABLE, on_read, &p, &e), -1);
    close(fds[0]);
    close(fds[1]);
    tb_ev_free(l);
}

static void test_poll_timeout(void **state)
{
    (void)state;
    tb_err e;
    tb_ev_loop *l = tb_ev_new(8, 1, &e);
    uint64_t t0 = tb_mono_ns();
    assert_int_equal(tb_ev_poll(l, 2000000, &e), 0);
    assert_true(tb_mono_ns() - t0 >= 2000000);
    tb_ev_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timers),
        cmocka_unit_test(test_timer_capacity),
        cmocka_unit_test(test_file_events),
        cmocka_unit_test(test_poll_timeout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
