/* Unit tests for base/fdlimit: raised toward what is wanted, never lowered, never
 * above the hard limit, the limit reached returned. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/resource.h>

#include "base/fdlimit.h"

static uint64_t soft(void)
{
    struct rlimit rl;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
    return rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : rl.rlim_cur;
}

static void test_raise(void **state)
{
    (void)state;
    struct rlimit old;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
    if (old.rlim_max != RLIM_INFINITY && old.rlim_max < 256) {
        print_message("skipped: the hard open-file limit is %lu, below 256\n",
                      (unsigned long)old.rlim_max);
        skip();
    }
    /* start low: lowering the soft limit needs no privilege */
    struct rlimit low = {128, old.rlim_max};
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    assert_int_equal(tb_fd_limit_raise(0), 128);  /* reads only */
    assert_int_equal(tb_fd_limit_raise(64), 128); /* never lowered */
    assert_int_equal(soft(), 128);
    assert_int_equal(tb_fd_limit_raise(200), 200);
    assert_int_equal(soft(), 200);
    uint64_t hard = old.rlim_max == RLIM_INFINITY ? UINT64_MAX : old.rlim_max;
    if (hard != UINT64_MAX) {
        /* more than the hard limit: the hard limit, which stays as it was */
        assert_int_equal(tb_fd_limit_raise(hard + 1000), hard);
        struct rlimit now;
        assert_int_equal(getrlimit(RLIMIT_NOFILE, &now), 0);
        assert_int_equal(now.rlim_max, old.rlim_max);
        assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
        assert_int_equal(tb_fd_limit_raise(TB_FD_LIMIT_HARD), hard);
        assert_int_equal(soft(), hard);
    }
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_raise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
