/* Unit tests for src/sys/syscall_bench: UnixBench scoring (drop the lowest third by
 * count, geometric mean of the rest, index) against hand-computed values, mode
 * names, argument checks, and short real passes of every mode. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "sys/syscall_bench.h"

static tb_syscall_bench_pass mk(uint64_t count, double seconds)
{
    tb_syscall_bench_pass p = {count, seconds, 0, 1};
    return p;
}

static void test_score_drops_lowest_third(void **state)
{
    (void)state;
    /* 6 passes: int(6/3) = 2 dropped, the counts 100 and 200. Kept 400, 800, 300, 600:
       (400*800*300*600)^(1/4) = (5.76e10)^(1/4) = sqrt(240000) = 489.8979485566356 */
    tb_syscall_bench_pass p[6] = {mk(100, 1), mk(400, 1), mk(200, 1),
                                  mk(800, 1), mk(300, 1), mk(600, 1)};
    double score = 0;
    tb_err e;
    assert_int_equal(tb_syscall_bench_score(p, 6, &score, &e), 0);
    assert_true(fabs(score - 489.8979485566356) < 1e-9);
    int kept[6] = {0, 1, 0, 1, 1, 1};
    for (int i = 0; i < 6; i++)
        assert_int_equal(p[i].kept, kept[i]);
    assert_true(fabs(p[3].lps - 800.0) < 1e-12);
}

static void test_score_uses_rate_and_sorts_by_count(void **state)
{
    (void)state;
    /* 3 passes, 1 dropped: the smallest COUNT (1000, even though its rate 500 lps is
       not the smallest). Kept rates 3000/2 = 1500 and 2000/4 = 500: sqrt(750000). */
    tb_syscall_bench_pass p[3] = {mk(1000, 2), mk(3000, 2), mk(2000, 4)};
    double score;
    tb_err e;
    assert_int_equal(tb_syscall_bench_score(p, 3, &score, &e), 0);
    assert_true(fabs(score - 866.0254037844386) < 1e-9);
    assert_false(p[0].kept);
    assert_true(p[1].kept && p[2].kept);
}

static void test_score_small_and_ties(void **state)
{
    (void)state;
    double score;
    tb_err e;
    /* one pass: nothing dropped, score = its rate */
    tb_syscall_bench_pass one[1] = {mk(1234, 2)};
    assert_int_equal(tb_syscall_bench_score(one, 1, &score, &e), 0);
    assert_true(fabs(score - 617.0) < 1e-9);
    assert_true(one[0].kept);
    /* two passes: int(2/3) = 0 dropped: geometric mean of 100 and 400 = 200 */
    tb_syscall_bench_pass two[2] = {mk(100, 1), mk(400, 1)};
    assert_int_equal(tb_syscall_bench_score(two, 2, &score, &e), 0);
    assert_true(fabs(score - 200.0) < 1e-9);
    assert_true(two[0].kept && two[1].kept);
    /* ties: the earliest of equal counts is dropped first */
    tb_syscall_bench_pass tie[4] = {mk(5, 1), mk(5, 1), mk(9, 1), mk(5, 1)};
    assert_int_equal(tb_syscall_bench_score(tie, 4, &score, &e), 0);
    assert_false(tie[0].kept);
    assert_true(tie[1].kept && tie[2].kept && tie[3].kept);
    /* (5*9*5)^(1/3) = 225^(1/3) = 6.082201995573399 */
    assert_true(fabs(score - 6.082201995573399) < 1e-9);
    /* invalid input */
    assert_int_equal(tb_syscall_bench_score(tie, 0, &score, &e), -1);
    tb_syscall_bench_pass bad[2] = {mk(5, 1), mk(0, 1)};
    assert_int_equal(tb_syscall_bench_score(bad, 2, &score, &e), -1);
    assert_non_null(strstr(e.msg, "pass 2"));
    tb_syscall_bench_pass bad2[1] = {mk(5, 0)};
    assert_int_equal(tb_syscall_bench_score(bad2, 1, &score, &e), -1);
}

static void test_index(void **state)
{
    (void)state;
    assert_true(fabs(tb_syscall_bench_index(15000.0) - 10.0) < 1e-12);
    /* "TDX for dummies": a TD's index 12500.3 is a score of 18,750,450 lps */
    assert_true(fabs(tb_syscall_bench_index(18750450.0) - 12500.3) < 1e-6);
    assert_true(fabs(tb_syscall_bench_index(0) - 0) < 1e-12);
}

static void test_modes(void **state)
{
    (void)state;
    tb_syscall_bench_mode m;
    tb_err e;
    static const char *const names[] = {"mix", "close", "getpid", "exec"};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(tb_syscall_bench_mode_parse(names[i], &m, &e), 0);
        assert_string_equal(tb_syscall_bench_mode_name(m), names[i]);
    }
    assert_int_equal(tb_syscall_bench_mode_parse("MIX", &m, &e), -1);
    assert_non_null(strstr(e.msg, "unknown mode"));
    assert_int_equal(tb_syscall_bench_mode_parse("", &m, &e), -1);
    assert_non_null(strstr(tb_syscall_bench_mode_loop(TB_SYSCALL_BENCH_MIX), "umask(022)"));
}

static void test_run_pass_checks_arguments(void **state)
{
    (void)state;
    tb_syscall_bench_pass p;
    tb_err e;
    assert_int_equal(tb_syscall_bench_run_pass(TB_SYSCALL_BENCH_GETPID, 0, 1, &p, &e), -1);
    assert_int_equal(tb_syscall_bench_run_pass(TB_SYSCALL_BENCH_GETPID, -1, 1, &p, &e), -1);
    assert_int_equal(tb_syscall_bench_run_pass(TB_SYSCALL_BENCH_GETPID, 0.01, 0, &p, &e), -1);
    assert_int_equal(tb_syscall_bench_run_pass(TB_SYSCALL_BENCH_GETPID, NAN, 1, &p, &e), -1);
}

static void test_real_passes(void **state)
{
    (void)state;
    tb_err e;
    tb_syscall_bench_pass getpid1, getpid2, mix, exec;
    assert_int_equal(tb_syscall_bench_run_pass(TB_SYSCALL_BENCH_GETPID, 0.05, 1, &getpid1, &e), 0);
    assert_int_equal(tb_syscall_bench_run_pass(TB_SYSCALL_BENCH_GETPID, 0.05, 2, &getpid2, &e), 0);
    assert_int_equal(tb_syscall_bench_run_pass(TB_SYSCALL_BENCH_MIX, 0.05, 1, &mix, &e), 0);
    assert_int_equal(tb_syscall_bench_run_pass(TB_SYSCALL_BENCH_EXEC, 0.05, 1, &exec, &e), 0);
    /* each pass lasts its duration (plus at most one chunk), counts are positive */
    tb_syscall_bench_pass *all[] = {&getpid1, &getpid2, &mix, &exec};
    for (int i = 0; i < 4; i++) {
        assert_true(all[i]->count > 0);
        assert_true(all[i]->seconds >= 0.05 && all[i]->seconds < 1.0);
        assert_true(fabs(all[i]->lps - (double)all[i]->count / all[i]->seconds) < 1e-6);
    }
    /* one getpid is cheaper than the mix (four calls) and far cheaper than an exec */
    assert_true(getpid1.lps > mix.lps);
    assert_true(mix.lps > exec.lps * 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_score_drops_lowest_third),
        cmocka_unit_test(test_score_uses_rate_and_sorts_by_count),
        cmocka_unit_test(test_score_small_and_ties),
        cmocka_unit_test(test_index),
        cmocka_unit_test(test_modes),
        cmocka_unit_test(test_run_pass_checks_arguments),
        cmocka_unit_test(test_real_passes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
