/* Unit tests for attest/common/cache: put/get, keys (source URL, FMSPC, CA), expiry at
 * nextUpdate, corrupt entries, the cache directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>

#include "attest_test_util.h"

#define URL "https://pccs.example:8081"

/* The one entry file under dir/collateral (its name into out); aborts when not one. */
static void only_entry(const char *dir, char *out, size_t n)
{
    char sub[512];
    snprintf(sub, sizeof sub, "%s/collateral", dir);
    DIR *d = opendir(sub);
    assert_non_null(d);
    struct dirent *de;
    int found = 0;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        found++;
        snprintf(out, n, "%s/%s", sub, de->d_name);
    }
    closedir(d);
    assert_int_equal(found, 1);
}

static void test_cache_put_get_expiry(void **state)
{
    (void)state;
    char dir[256], p[1024];
    make_tmpdir(dir, sizeof dir);
    tb_tdx_collateral c, d;
    tb_err e;
    case_path("qvl-v4-uptodate", "collateral.json", p, sizeof p);
    assert_int_equal(tb_tdx_collateral_load(p, &c, &e), 0);
    long long now = case_now("qvl-v4-uptodate");
    assert_int_equal(tb_attest_cache_get(dir, URL, "b0c06f000000", "platform", now, &d, &e),
                     0); /* miss */
    assert_int_equal(tb_attest_cache_put(dir, URL, "b0c06f000000", "platform", &c, &e), 0);
    assert_int_equal(tb_attest_cache_get(dir, URL, "B0C06F000000", "platform", now, &d, &e),
                     1); /* hit */
    assert_memory_equal(d.tcb_info, c.tcb_info, c.tcb_info_len);
    tb_tdx_collateral_clear(&d);
    /* The entry's name: FMSPC, CA and a hash of the source. */
    only_entry(dir, p, sizeof p);
    const char *base = strrchr(p, '/') + 1;
    assert_int_equal(strlen(base), strlen("B0C06F000000-platform-0123456789abcdef.json"));
    assert_int_equal(strncmp(base, "B0C06F000000-platform-", 22), 0);
    /* Keyed by CA too; stale after the earliest nextUpdate. */
    assert_int_equal(tb_attest_cache_get(dir, URL, "b0c06f000000", "processor", now, &d, &e), 0);
    assert_int_equal(tb_attest_cache_get(dir, URL, "b0c06f000000", "platform", 1752919235, &d, &e),
                     0);
    /* A corrupt entry is a miss, not an error. */
    assert_int_equal(tb_file_write_atomic(p, "{", 1, &e), 0);
    assert_int_equal(tb_attest_cache_get(dir, URL, "b0c06f000000", "platform", now, &d, &e), 0);
    /* Bad keys. */
    assert_int_equal(tb_attest_cache_get(dir, URL, "b0c06f", "platform", now, &d, &e), -1);
    assert_int_equal(tb_attest_cache_put(dir, URL, "b0c06f000000", "../x", &c, &e), -1);
    assert_int_equal(tb_attest_cache_put(dir, NULL, "b0c06f000000", "platform", &c, &e), -1);
    tb_tdx_collateral_clear(&c);
    rm_rf(dir);
}

static void test_cache_keyed_by_source(void **state)
{
    (void)state;
    char dir[256], p[1024];
    make_tmpdir(dir, sizeof dir);
    tb_tdx_collateral c, d;
    tb_err e;
    case_path("qvl-v4-uptodate", "collateral.json", p, sizeof p);
    assert_int_equal(tb_tdx_collateral_load(p, &c, &e), 0);
    long long now = case_now("qvl-v4-uptodate");
    assert_int_equal(tb_attest_cache_put(dir, URL, "b0c06f000000", "platform", &c, &e), 0);
    /* The same PCCS with trailing slashes is the same source ... */
    assert_int_equal(tb_attest_cache_get(dir, URL "//", "b0c06f000000", "platform", now, &d, &e),
                     1);
    tb_tdx_collateral_clear(&d);
    /* ... another PCCS (or the same host on another port or path) is not. */
    assert_int_equal(tb_attest_cache_get(dir, "https://pccs.example:8082", "b0c06f000000",
                                         "platform", now, &d, &e),
                     0);
    assert_int_equal(
        tb_attest_cache_get(dir, URL "/other", "b0c06f000000", "platform", now, &d, &e), 0);
    assert_int_equal(tb_attest_cache_get(dir, "sim", "b0c06f000000", "platform", now, &d, &e), 0);
    /* Two sources side by side keep their own entries. */
    assert_int_equal(tb_attest_cache_put(dir, "sim", "b0c06f000000", "platform", &c, &e), 0);
    assert_int_equal(tb_attest_cache_get(dir, "sim", "b0c06f000000", "platform", now, &d, &e), 1);
    tb_tdx_collateral_clear(&d);
    assert_int_equal(tb_attest_cache_get(dir, URL, "b0c06f000000", "platform", now, &d, &e), 1);
    tb_tdx_collateral_clear(&d);
    tb_tdx_collateral_clear(&c);
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
        cmocka_unit_test(test_cache_keyed_by_source),
        cmocka_unit_test(test_cache_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
