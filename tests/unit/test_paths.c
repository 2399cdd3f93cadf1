/* Unit tests for base/paths: the one rule of the XDG directories, for every kind,
 * and that the five modules resolving a default directory follow it alike. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "attest/internal.h"
#include "base/internal.h"
#include "base/paths.h"
#include "store/internal.h"
#include "store/store.h"
#include "vm/image.h"
#include "vm/vm.h"

static const char *const VARS[] = {"XDG_DATA_HOME",   "XDG_CACHE_HOME", "XDG_STATE_HOME",
                                   "XDG_RUNTIME_DIR", "HOME",           "TEEBENCH_SIM_DIR"};
#define NVARS (sizeof VARS / sizeof VARS[0])

/* The test's environment is restored after each test. */
static int save_env(void **state)
{
    char **saved = calloc(NVARS, sizeof *saved);
    for (size_t i = 0; i < NVARS; i++) {
        const char *v = getenv(VARS[i]);
        saved[i] = v ? strdup(v) : NULL;
        unsetenv(VARS[i]);
    }
    *state = saved;
    return 0;
}

static int restore_env(void **state)
{
    char **saved = *state;
    for (size_t i = 0; i < NVARS; i++) {
        if (saved[i])
            setenv(VARS[i], saved[i], 1);
        else
            unsetenv(VARS[i]);
        free(saved[i]);
    }
    free(saved);
    return 0;
}

static void test_xdg_absolute_wins(void **state)
{
    (void)state;
    char out[256];
    tb_err e;
    setenv("HOME", "/home/u", 1);
    const struct {
        tb_path_kind k;
        const char *var, *val, *want;
    } cases[] = {
        {TB_PATH_DATA, "XDG_DATA_HOME", "/d", "/d/teebench/x"},
        {TB_PATH_CACHE, "XDG_CACHE_HOME", "/c", "/c/teebench/x"},
        {TB_PATH_STATE, "XDG_STATE_HOME", "/s", "/s/teebench/x"},
        {TB_PATH_RUNTIME, "XDG_RUNTIME_DIR", "/run/user/1", "/run/user/1/teebench/x"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        setenv(cases[i].var, cases[i].val, 1);
        assert_string_equal(tb_path_var(cases[i].k), cases[i].var);
        assert_int_equal(tb_path_dir(cases[i].k, "teebench/x", out, sizeof out, &e), 0);
        assert_string_equal(out, cases[i].want);
        assert_int_equal(tb_path_dir(cases[i].k, NULL, out, sizeof out, &e), 0);
        assert_string_equal(out, cases[i].val);
    }
}

/* unset, empty or relative XDG values: $HOME/<the kind's default> */
static void test_home_defaults(void **state)
{
    (void)state;
    char out[256];
    tb_err e;
    setenv("HOME", "/home/u", 1);
    const char *defaults[] = {[TB_PATH_DATA] = "/home/u/.local/share/t",
                              [TB_PATH_CACHE] = "/home/u/.cache/t",
                              [TB_PATH_STATE] = "/home/u/.local/state/t",
                              [TB_PATH_RUNTIME] = "/home/u/.local/state/t"};
    const char *values[] = {NULL, "", "relative/dir", "./x"};
    for (int k = TB_PATH_DATA; k <= TB_PATH_RUNTIME; k++)
        for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
            if (values[v])
                setenv(tb_path_var(k), values[v], 1);
            else
                unsetenv(tb_path_var(k));
            assert_int_equal(tb_path_dir(k, "t", out, sizeof out, &e), 0);
            assert_string_equal(out, defaults[k]);
        }
}

static void test_refusals(void **state)
{
    (void)state;
    char out[256], small[12];
    tb_err e;
    assert_int_equal(tb_path_dir(TB_PATH_CACHE, "t", out, sizeof out, &e), -1);
    assert_string_equal(e.msg, "neither XDG_CACHE_HOME nor HOME is set");
    setenv("HOME", "", 1);
    assert_int_equal(tb_path_dir(TB_PATH_DATA, "t", out, sizeof out, &e), -1);
    assert_string_equal(e.msg, "neither XDG_DATA_HOME nor HOME is set");
    setenv("HOME", "rel/home", 1);
    setenv("XDG_RUNTIME_DIR", "also-rel", 1);
    assert_int_equal(tb_path_dir(TB_PATH_RUNTIME, "t", out, sizeof out, &e), -1);
    assert_string_equal(e.msg, "HOME is not an absolute path: \"rel/home\"");
    setenv("HOME", "/home/someone", 1);
    assert_int_equal(tb_path_dir(TB_PATH_DATA, "teebench", small, sizeof small, &e), -1);
    assert_string_equal(e.msg, "HOME/...: path too long");
    setenv("XDG_DATA_HOME", "/a/long/data/dir", 1);
    assert_int_equal(tb_path_dir(TB_PATH_DATA, "teebench", small, sizeof small, &e), -1);
    assert_string_equal(e.msg, "XDG_DATA_HOME/...: path too long");
}

/* The five defaults of the tree follow the one rule: a relative XDG value is
 * ignored by all (the cache and the sim state took it before), a relative HOME
 * refused by all (the store, the cache and the sim state built a path relative to
 * the working directory from it), and each says why. */
static void test_modules_alike(void **state)
{
    (void)state;
    char out[512];
    tb_err e;
    setenv("HOME", "/h", 1);
    setenv("XDG_CACHE_HOME", "rel", 1);
    setenv("XDG_DATA_HOME", "rel", 1);
    setenv("XDG_RUNTIME_DIR", "rel", 1);
    assert_int_equal(tb_attest_cache_dir(NULL, out, sizeof out, &e), 0);
    assert_string_equal(out, "/h/.cache/teebench");
    assert_int_equal(tb_attest_sim_dir(NULL, out, sizeof out, &e), 0);
    assert_string_equal(out, "/h/.cache/teebench/sim");
    assert_int_equal(tb_store_default_path(out, sizeof out, &e), 0);
    assert_string_equal(out, "/h/.local/share/teebench/results.db");
    assert_int_equal(tb_vm_image_default_path("bookworm", 0, out, sizeof out, &e), 0);
    assert_string_equal(out, "/h/.local/share/teebench/images/bookworm.qcow2");
    assert_int_equal(tb_vm_default_dir(out, sizeof out, &e), 0);
    assert_string_equal(out, "/h/.local/state/teebench/vm");

    setenv("HOME", "rel-home", 1);
    const char *why = ": HOME is not an absolute path: \"rel-home\"";
    assert_int_equal(tb_attest_cache_dir(NULL, out, sizeof out, &e), -1);
    assert_non_null(strstr(e.msg, why));
    assert_int_equal(tb_attest_sim_dir(NULL, out, sizeof out, &e), -1);
    assert_non_null(strstr(e.msg, why));
    assert_int_equal(tb_store_default_path(out, sizeof out, &e), -1);
    assert_non_null(strstr(e.msg, why));
    assert_int_equal(strncmp(e.msg, "no home directory", 17), 0);
    assert_int_equal(tb_vm_image_default_path(NULL, 0, out, sizeof out, &e), -1);
    assert_non_null(strstr(e.msg, why));
    assert_int_equal(tb_vm_default_dir(out, sizeof out, &e), -1);
    assert_non_null(strstr(e.msg, why));
    assert_non_null(strstr(e.msg, "give --dir"));

    unsetenv("HOME");
    assert_int_equal(tb_attest_cache_dir(NULL, out, sizeof out, &e), -1);
    assert_string_equal(e.msg, "no cache directory: neither XDG_CACHE_HOME nor HOME is set");
    assert_int_equal(tb_store_default_path(out, sizeof out, &e), -1);
    assert_non_null(strstr(e.msg, ": neither XDG_DATA_HOME nor HOME is set"));
    /* an override or TEEBENCH_SIM_DIR needs no HOME */
    assert_int_equal(tb_attest_cache_dir("/o", out, sizeof out, &e), 0);
    assert_string_equal(out, "/o");
    setenv("TEEBENCH_SIM_DIR", "/s", 1);
    assert_int_equal(tb_attest_sim_dir(NULL, out, sizeof out, &e), 0);
    assert_string_equal(out, "/s");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_xdg_absolute_wins, save_env, restore_env),
        cmocka_unit_test_setup_teardown(test_home_defaults, save_env, restore_env),
        cmocka_unit_test_setup_teardown(test_refusals, save_env, restore_env),
        cmocka_unit_test_setup_teardown(test_modules_alike, save_env, restore_env),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
