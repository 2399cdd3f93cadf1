/* Unit tests for attest/attest, the one-call helpers: verify a quote against a PCCS URL
 * through the cache (keyed by the URL; a cached entry that fails is fetched again; an
 * entry is never trusted beyond a fetch), a file, a missing file, bytes that are no
 * quote. (The PCCS side -- what gets stored after a fetch -- is tested end to end in
 * tests/e2e/attest_pccs.sh.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>

#include "attest_test_util.h"

static int count_entries(const char *dir)
{
    char sub[512];
    snprintf(sub, sizeof sub, "%s/collateral", dir);
    DIR *d = opendir(sub);
    int n = 0;
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL)
        n += de->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static void test_verify_through_cache(void **state)
{
    (void)state;
    char dir[256], p[1024], url[64], other[64], slash[80];
    make_tmpdir(dir, sizeof dir);
    snprintf(url, sizeof url, "http://127.0.0.1:%d", dead_port());
    snprintf(other, sizeof other, "http://127.0.0.1:%d", dead_port());
    snprintf(slash, sizeof slash, "%s/", url);
    tb_tdx_collateral c;
    tb_err e;
    case_path("qvl-v4-uptodate", "collateral.json", p, sizeof p);
    assert_int_equal(tb_tdx_collateral_load(p, &c, &e), 0);
    assert_int_equal(tb_attest_cache_put(dir, url, "b0c06f000000", "platform", &c, &e), 0);
    tb_tdx_fetch_opts fo = {.cache_dir = dir, .timeout_ms = 2000};
    long long now = case_now("qvl-v4-uptodate");
    case_path("qvl-v4-uptodate", "quote.bin", p, sizeof p);
    tb_buf q = read_all(p);
    tb_tdx_verdict v;
    tb_tdx_timing t;
    /* A hit for this URL (with or without a trailing slash): accepted, no network. */
    assert_int_equal(tb_tdx_verify_quote(q.p, q.len, url, NULL, now, NULL, &fo, &v, &t, &e), 0);
    assert_true(t.from_cache);
    assert_false(t.refetched);
    assert_true(t.verify_ns > 0);
    assert_int_equal(v.result, TB_ATTEST_ACCEPTED);
    assert_int_equal(tb_tdx_verify_quote(q.p, q.len, slash, NULL, now, NULL, &fo, &v, &t, &e), 0);
    assert_true(t.from_cache);
    /* Another PCCS never gets this one's entry: it is fetched (and nothing listens). */
    assert_int_equal(tb_tdx_verify_quote(q.p, q.len, other, NULL, now, NULL, &fo, &v, &t, &e), -1);
    assert_int_equal(v.step, TB_TDX_STEP_NONE);
    assert_false(t.from_cache);
    assert_non_null(strstr(v.reason, "collateral: GET http://127.0.0.1:"));
    /* --no-cache: the network, which fails. */
    fo.no_cache = 1;
    assert_int_equal(tb_tdx_verify_quote(q.p, q.len, url, NULL, now, NULL, &fo, &v, &t, &e), -1);
    assert_int_equal(v.step, TB_TDX_STEP_NONE);
    fo.no_cache = 0;
    assert_int_equal(count_entries(dir), 1); /* failures stored nothing */
    /* Collateral from a file; a missing file is an error with no verdict step. */
    case_path("qvl-v4-uptodate", "collateral.json", p, sizeof p);
    assert_int_equal(tb_tdx_verify_quote(q.p, q.len, p, NULL, now, NULL, NULL, &v, &t, &e), 0);
    assert_false(t.from_cache);
    assert_int_equal(
        tb_tdx_verify_quote(q.p, q.len, "/nonexistent.json", NULL, now, NULL, NULL, &v, &t, &e),
        -1);
    assert_int_equal(v.step, TB_TDX_STEP_NONE);
    assert_int_equal(v.result, TB_ATTEST_INVALID);
    assert_non_null(strstr(v.reason, "collateral: /nonexistent.json"));
    tb_buf_clear(&q);
    tb_tdx_collateral_clear(&c);
    rm_rf(dir);
}

/* The attack of issue 12's hardening item 8: a forged answer (here: the TCB info's
 * nextUpdate moved to 2099, the signature left as it was) sitting in the cache. It is
 * verified like a fetch (invalid), and fetched again; when that fails too the verdict
 * stays INVALID and says so -- never "accepted from cache". */
static void test_forged_entry_is_not_trusted(void **state)
{
    (void)state;
    char dir[256], p[1024], url[64];
    make_tmpdir(dir, sizeof dir);
    snprintf(url, sizeof url, "http://127.0.0.1:%d", dead_port());
    tb_tdx_collateral c;
    tb_err e;
    case_path("qvl-v4-uptodate", "collateral.json", p, sizeof p);
    assert_int_equal(tb_tdx_collateral_load(p, &c, &e), 0);
    char *nu = strstr(c.tcb_info, "\"nextUpdate\":\"");
    assert_non_null(nu);
    memcpy(nu + 14, "2099", 4);
    assert_int_equal(tb_attest_cache_put(dir, url, "b0c06f000000", "platform", &c, &e), 0);
    tb_tdx_fetch_opts fo = {.cache_dir = dir, .timeout_ms = 2000};
    long long now = case_now("qvl-v4-uptodate");
    case_path("qvl-v4-uptodate", "quote.bin", p, sizeof p);
    tb_buf q = read_all(p);
    tb_tdx_verdict v;
    tb_tdx_timing t;
    assert_int_equal(tb_tdx_verify_quote(q.p, q.len, url, NULL, now, NULL, &fo, &v, &t, &e), -1);
    assert_int_equal(v.result, TB_ATTEST_INVALID);
    assert_int_equal(v.step, TB_TDX_STEP_TCB_INFO);
    assert_non_null(strstr(v.reason, "signature does not verify"));
    assert_non_null(strstr(v.reason, "fetching it again failed: GET http://127.0.0.1:"));
    assert_true(t.from_cache);
    assert_false(t.refetched);
    assert_non_null(strstr(e.msg, "tcb-info: "));
    tb_buf_clear(&q);
    tb_tdx_collateral_clear(&c);
    rm_rf(dir);
}

/* Bytes that are no quote: an INVALID verdict at the parse step, before any fetch. */
static void test_unparsable_quote(void **state)
{
    (void)state;
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", dead_port());
    tb_tdx_fetch_opts fo = {.no_cache = 1, .timeout_ms = 2000};
    tb_tdx_verdict v;
    tb_tdx_timing t;
    tb_err e;
    assert_int_equal(
        tb_tdx_verify_quote((const uint8_t *)"junk", 4, url, NULL, 0, NULL, &fo, &v, &t, &e), -1);
    assert_int_equal(v.result, TB_ATTEST_INVALID);
    assert_int_equal(v.step, TB_TDX_STEP_PARSE);
    assert_true(t.fetch_ns == 0);
    assert_int_equal(tb_tdx_verify_quote((const uint8_t *)"junk", 4, "/nonexistent.json", NULL, 0,
                                         NULL, NULL, &v, NULL, NULL),
                     -1); /* NULL timing and error are allowed */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verify_through_cache),
        cmocka_unit_test(test_forged_entry_is_not_trusted),
        cmocka_unit_test(test_unparsable_quote),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
