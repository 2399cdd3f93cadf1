/* Unit tests for attest/cache, attest/pccs (argument and network errors; the full
 * PCCS protocol is tested end to end in tests/e2e/attest_pccs.sh) and the one-call
 * helper tb_attest_verify_quote of attest/attest. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "attest_test_util.h"

/* A port on 127.0.0.1 where nothing listens (bound, then closed). */
static int dead_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t l = sizeof a;
    assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(s, (struct sockaddr *)&a, &l), 0);
    close(s);
    return ntohs(a.sin_port);
}

static void test_cache_put_get_expiry(void **state)
{
    (void)state;
    char dir[256], p[1024];
    make_tmpdir(dir, sizeof dir);
    tb_collateral c, d;
    tb_err e;
    case_path("qvl-v4-uptodate", "collateral.json", p, sizeof p);
    assert_int_equal(tb_collateral_load(p, &c, &e), 0);
    long long now = case_now("qvl-v4-uptodate");
    assert_int_equal(tb_cache_get(dir, "b0c06f000000", "platform", now, &d, &e), 0); /* miss */
    assert_int_equal(tb_cache_put(dir, "b0c06f000000", "platform", &c, &e), 0);
    assert_int_equal(tb_cache_get(dir, "B0C06F000000", "platform", now, &d, &e), 1); /* hit */
    assert_memory_equal(d.tcb_info, c.tcb_info, c.tcb_info_len);
    tb_collateral_free(&d);
    /* Keyed by CA too; stale after the earliest nextUpdate. */
    assert_int_equal(tb_cache_get(dir, "b0c06f000000", "processor", now, &d, &e), 0);
    assert_int_equal(tb_cache_get(dir, "b0c06f000000", "platform", 1752919235, &d, &e), 0);
    /* A corrupt entry is a miss, not an error. */
    snprintf(p, sizeof p, "%s/collateral/B0C06F000000-platform.json", dir);
    assert_int_equal(tb_file_write_atomic(p, "{", 1, &e), 0);
    assert_int_equal(tb_cache_get(dir, "b0c06f000000", "platform", now, &d, &e), 0);
    /* Bad keys. */
    assert_int_equal(tb_cache_get(dir, "b0c06f", "platform", now, &d, &e), -1);
    assert_int_equal(tb_cache_put(dir, "b0c06f000000", "../x", &c, &e), -1);
    tb_collateral_free(&c);
    rm_rf(dir);
}

static void test_cache_dir(void **state)
{
    (void)state;
    char out[512];
    tb_err e;
    assert_int_equal(tb_cache_dir("/x/y", out, sizeof out, &e), 0);
    assert_string_equal(out, "/x/y");
    setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
    assert_int_equal(tb_cache_dir(NULL, out, sizeof out, &e), 0);
    assert_string_equal(out, "/tmp/xdg/teebench");
}

static void test_pccs_errors(void **state)
{
    (void)state;
    tb_collateral c;
    tb_err e;
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", dead_port());
    assert_int_equal(tb_pccs_fetch(url, "b0c06f000000", "platform", 2000, &c, &e), -1);
    assert_non_null(strstr(e.msg, "GET http://127.0.0.1:"));
    assert_non_null(strstr(e.msg, "/sgx/certification/v4/pckcrl?ca=platform&encoding=der"));
    assert_int_equal(tb_pccs_fetch(url, "zz", "platform", 2000, &c, &e), -1);
    assert_non_null(strstr(e.msg, "bad FMSPC"));
    assert_int_equal(tb_pccs_fetch(url, "b0c06f000000", "nope", 2000, &c, &e), -1);
    assert_non_null(strstr(e.msg, "bad PCK CA"));
}

static void test_fetch_cached_uses_cache(void **state)
{
    (void)state;
    char dir[256], p[1024], url[64];
    make_tmpdir(dir, sizeof dir);
    snprintf(url, sizeof url, "http://127.0.0.1:%d", dead_port());
    tb_collateral c, d;
    tb_err e;
    case_path("qvl-v4-uptodate", "collateral.json", p, sizeof p);
    assert_int_equal(tb_collateral_load(p, &c, &e), 0);
    assert_int_equal(tb_cache_put(dir, "b0c06f000000", "platform", &c, &e), 0);
    tb_fetch_opts fo = {.cache_dir = dir, .timeout_ms = 2000};
    int from_cache = 0;
    long long now = case_now("qvl-v4-uptodate");
    assert_int_equal(
        tb_collateral_fetch_cached(url, "b0c06f000000", "platform", now, &fo, &d, &from_cache, &e),
        0);
    assert_true(from_cache);
    tb_collateral_free(&d);
    fo.no_cache = 1; /* forces the (dead) network */
    assert_int_equal(
        tb_collateral_fetch_cached(url, "b0c06f000000", "platform", now, &fo, &d, &from_cache, &e),
        -1);
    /* The one-call helper through the cache: accepted, with timings. */
    fo.no_cache = 0;
    case_path("qvl-v4-uptodate", "quote.bin", p, sizeof p);
    tb_buf q = read_all(p);
    tb_verdict v;
    tb_verify_timing t;
    assert_int_equal(tb_attest_verify_quote(q.p, q.len, url, NULL, now, NULL, &fo, &v, &t, &e), 0);
    assert_true(t.from_cache);
    assert_true(t.verify_ns > 0);
    assert_int_equal(v.result, TB_VERDICT_ACCEPTED);
    /* Collateral from a file; a missing file is an error with no verdict step. */
    case_path("qvl-v4-uptodate", "collateral.json", p, sizeof p);
    assert_int_equal(tb_attest_verify_quote(q.p, q.len, p, NULL, now, NULL, NULL, &v, &t, &e), 0);
    assert_false(t.from_cache);
    assert_int_equal(
        tb_attest_verify_quote(q.p, q.len, "/nonexistent.json", NULL, now, NULL, NULL, &v, &t, &e),
        -1);
    assert_int_equal(v.step, TB_STEP_NONE);
    assert_int_equal(v.result, TB_VERDICT_INVALID);
    tb_buf_free(&q);
    tb_collateral_free(&c);
    rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cache_put_get_expiry),
        cmocka_unit_test(test_cache_dir),
        cmocka_unit_test(test_pccs_errors),
        cmocka_unit_test(test_fetch_cached_uses_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
