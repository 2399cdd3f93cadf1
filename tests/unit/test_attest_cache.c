/* Unit tests for attest/cache: put/get, keys, expiry at nextUpdate, corrupt entries,
 * the cache directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "attest_test_util.h"

static void test_cache_put_get_expiry(void **state)
{
    (void)state;
    char dir[256], p[1024];
    make_tmpdir(dir, sizeof dir);
    tb_attest_collateral c, d;
    tb_err e;
    case_path("qvl-v4-uptodate", "collateral.json", p, sizeof p);
    assert_int_equal(tb_attest_collateral_load(p, &c, &e), 0);
    long long now = case_now("qvl-v4-uptodate");
    assert_int_equal(tb_attest_cache_get(dir, "b0c06f000000", "platform", now, &d, &e),
                     0); /* miss */
    assert_int_equal(tb_attest_cache_put(dir, "b0c06f000000", "platform", &c, &e), 0);
    assert_int_equal(tb_attest_cache_get(dir, "B0C06F000000", "platform", now, &d, &e),
                     1); /* hit */
    assert_memory_equal(d.tcb_info, c.tcb_info, c.tcb_info_len);
    tb_attest_collateral_clear(&d);
    /* Keyed by CA too; stale after the earliest nextUpdate. */
    assert_int_equal(tb_attest_cache_get(dir, "b0c06f000000", "processor", now, &d, &e), 0);
    assert_int_equal(tb_attest_cache_get(dir, "b0c06f000000", "platform", 1752919235, &d, &e), 0);
    /* A corrupt entry is a miss, not an error. */
    snprintf(p, sizeof p, "%s/collateral/B0C06F000000-platform.json", dir);
    assert_int_equal(tb_file_write_atomic(p, "{", 1, &e), 0);
    assert_int_equal(tb_attest_cache_get(dir, "b0c06f000000", "platform", now, &d, &e), 0);
    /* Bad keys. */
    assert_int_equal(tb_attest_cache_get(dir, "b0c06f", "platform", now, &d, &e), -1);
    assert_int_equal(tb_attest_cache_put(dir, "b0c06f000000", "../x", &c, &e), -1);
    tb_attest_collateral_clear(&c);
    rm_rf(dir);
}

static void test_cache_dir(void **state)
{
    (void)state;
    char out[512];
    tb_err e;
    assert_int_equal(tb_attest_cache_dir("/x/y", out, sizeof out, &e), 0);
    assert_string_equal(out, "/x/y");
    setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
    assert_int_equal(tb_attest_cache_dir(NULL, out, sizeof out, &e), 0);
    assert_string_equal(out, "/tmp/xdg/teebench");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cache_put_get_expiry),
        cmocka_unit_test(test_cache_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
