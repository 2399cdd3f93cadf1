/* Unit tests for attest/attest, the one-call helpers: fetch through the cache, verify a
 * quote against a PCCS URL (served from the cache), a file, a missing file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "attest_test_util.h"

static void test_fetch_cached_uses_cache(void **state)
{
    (void)state;
    char dir[256], p[1024], url[64];
    make_tmpdir(dir, sizeof dir);
    snprintf(url, sizeof url, "http://127.0.0.1:%d", dead_port());
    tb_attest_collateral c, d;
    tb_err e;
    case_path("qvl-v4-uptodate", "collateral.json", p, sizeof p);
    assert_int_equal(tb_attest_collateral_load(p, &c, &e), 0);
    assert_int_equal(tb_attest_cache_put(dir, "b0c06f000000", "platform", &c, &e), 0);
    tb_attest_fetch_opts fo = {.cache_dir = dir, .timeout_ms = 2000};
    int from_cache = 0;
    long long now = case_now("qvl-v4-uptodate");
    assert_int_equal(tb_attest_collateral_fetch_cached(url, "b0c06f000000", "platform", now, &fo,
                                                       &d, &from_cache, &e),
                     0);
    assert_true(from_cache);
    tb_attest_collateral_clear(&d);
    fo.no_cache = 1; /* forces the (dead) network */
    assert_int_equal(tb_attest_collateral_fetch_cached(url, "b0c06f000000", "platform", now, &fo,
                                                       &d, &from_cache, &e),
                     -1);
    /* The one-call helper through the cache: accepted, with timings. */
    fo.no_cache = 0;
    case_path("qvl-v4-uptodate", "quote.bin", p, sizeof p);
    tb_buf q = read_all(p);
    tb_attest_verdict v;
    tb_attest_timing t;
    assert_int_equal(tb_attest_verify_quote(q.p, q.len, url, NULL, now, NULL, &fo, &v, &t, &e), 0);
    assert_true(t.from_cache);
    assert_true(t.verify_ns > 0);
    assert_int_equal(v.result, TB_ATTEST_ACCEPTED);
    /* Collateral from a file; a missing file is an error with no verdict step. */
    case_path("qvl-v4-uptodate", "collateral.json", p, sizeof p);
    assert_int_equal(tb_attest_verify_quote(q.p, q.len, p, NULL, now, NULL, NULL, &v, &t, &e), 0);
    assert_false(t.from_cache);
    assert_int_equal(
        tb_attest_verify_quote(q.p, q.len, "/nonexistent.json", NULL, now, NULL, NULL, &v, &t, &e),
        -1);
    assert_int_equal(v.step, TB_ATTEST_STEP_NONE);
    assert_int_equal(v.result, TB_ATTEST_INVALID);
    tb_buf_free(&q);
    tb_attest_collateral_clear(&c);
    rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fetch_cached_uses_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
