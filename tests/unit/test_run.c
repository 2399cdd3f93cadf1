/* Unit tests for src/bench/run: configuration defaults (the source script's),
 * option parsing and its errors, mode flags. The run itself is covered end to
 * end (tests/e2e/bench_*.sh). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "bench/run.h"

static void test_defaults(void **state)
{
    (void)state;
    tb_bench_config c;
    tb_bench_config_defaults(&c);
    assert_int_equal(c.iterations, 25);
    assert_int_equal(c.n_modes, 3);
    assert_string_equal(c.modes[0], "no_tee");
    assert_string_equal(c.modes[1], "tee_no_verify");
    assert_string_equal(c.modes[2], "tee_verify");
    assert_true(c.start_fixture && c.start_notary && c.use_fixture_ca);
    assert_string_equal(c.fixture_addr, "127.0.0.1");
    assert_int_equal(c.fixture_port, 4000);
    assert_string_equal(c.target_host, "127.0.0.1");
    assert_string_equal(c.target_server_name, "test-server.io");
    assert_string_equal(c.target_uri, "/formats/json?size=4");
    assert_int_equal(c.max_sent_data, 4096);
    assert_int_equal(c.max_recv_data, 16384);
    assert_int_equal(c.run_timeout_s, 300);
    assert_int_equal(c.retries, 2);
    assert_string_equal(c.notary_tee, ""); /* auto */
}

static void test_set_options(void **state)
{
    (void)state;
    tb_bench_config c;
    tb_err e;
    tb_bench_config_defaults(&c);
    assert_int_equal(tb_bench_config_set(&c, "ITERATIONS", "3", &e), 0);
    assert_int_equal(c.iterations, 3);
    assert_int_equal(tb_bench_config_set(&c, "BENCHMARK_MODES", " tee_verify,no_tee ", &e), 0);
    assert_int_equal(c.n_modes, 2);
    assert_string_equal(c.modes[0], "tee_verify");
    assert_int_equal(tb_bench_config_set(&c, "START_FIXTURE", "false", &e), 0);
    assert_false(c.start_fixture);
    assert_int_equal(tb_bench_config_set(&c, "NOTARY_TEE", "auto", &e), 0);
    assert_string_equal(c.notary_tee, "");
    assert_int_equal(tb_bench_config_set(&c, "NOTARY_TEE", "tdx", &e), 0);
    assert_string_equal(c.notary_tee, "tdx");
    assert_int_equal(tb_bench_config_set(&c, "CLIENT_CMD", "", &e), 0);
    assert_int_equal(tb_bench_config_set(&c, "PCCS_URL", "https://pccs.example:8081", &e), 0);
    assert_string_equal(c.pccs_url, "https://pccs.example:8081");
    assert_int_equal(tb_bench_config_set(&c, "COLLATERAL", "/tmp/c.json", &e), 0);
    assert_string_equal(c.collateral, "/tmp/c.json");
    for (const char *const *n = tb_bench_config_names; *n; n++)
        assert_true(strlen(*n) > 0);

    struct {
        const char *name, *value, *want;
    } bad[] = {
        {"ITERATIONS", "0", "ITERATIONS: '0' is not an integer"},
        {"ITERATIONS", "3x", "ITERATIONS"},
        {"ITERATIONS", "", "ITERATIONS"},
        {"BENCHMARK_MODES", "no_tee no_tee", "listed twice"},
        {"BENCHMARK_MODES", "   ", "no mode given"},
        {"BENCHMARK_MODES", "fast", "unknown mode 'fast'"},
        {"START_NOTARY", "maybe", "not a boolean"},
        {"FIXTURE_PORT", "65536", "FIXTURE_PORT"},
        {"NOTARY_SCHEME", "ftp", "not http or https"},
        {"TARGET_URI", "formats", "does not start with /"},
        {"TARGET_HOST", "a\nb", "control character"},
        {"RUN_TIMEOUT_SECONDS", "0", "RUN_TIMEOUT_SECONDS"},
        {"RETRIES", "-1", "RETRIES"},
        {"NOPE", "1", "unknown option NOPE"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(tb_bench_config_set(&c, bad[i].name, bad[i].value, &e), -1);
        if (!strstr(e.msg, bad[i].want))
            fail_msg("%s=%s: '%s' lacks '%s'", bad[i].name, bad[i].value, e.msg, bad[i].want);
    }
    assert_int_equal(c.iterations, 3); /* failed sets change nothing */
    assert_int_equal(c.n_modes, 2);
    assert_string_equal(c.modes[0], "tee_verify");
    assert_string_equal(c.modes[1], "no_tee");
}

static void test_config_check(void **state)
{
    (void)state;
    tb_bench_config c;
    tb_err e;
    tb_bench_config_defaults(&c);
    assert_int_equal(tb_bench_config_check(&c, &e), 0);
    c.start_fixture = 0; /* built-in client, fixture CA wanted, none given */
    assert_int_equal(tb_bench_config_check(&c, &e), -1);
    assert_non_null(strstr(e.msg, "needs FIXTURE_CA"));
    c.use_fixture_ca = 0;
    assert_int_equal(tb_bench_config_check(&c, &e), 0);
    c.use_fixture_ca = 1;
    strcpy(c.client_cmd, "./client.sh"); /* another client finds its own CA */
    assert_int_equal(tb_bench_config_check(&c, &e), 0);
    strcpy(c.fixture_ca, "/nonexistent/ca.pem");
    assert_int_equal(tb_bench_config_check(&c, &e), -1);
    assert_non_null(strstr(e.msg, "FIXTURE_CA /nonexistent/ca.pem"));
    tb_bench_config_defaults(&c);
    c.notary_port = c.fixture_port;
    assert_int_equal(tb_bench_config_check(&c, &e), -1);
    assert_non_null(strstr(e.msg, "both 4000"));
}

static void test_mode_flags(void **state)
{
    (void)state;
    int t, v;
    assert_int_equal(tb_bench_mode_flags("no_tee", &t, &v), 0);
    assert_true(!t && !v);
    assert_int_equal(tb_bench_mode_flags("tee_no_verify", &t, &v), 0);
    assert_true(t && !v);
    assert_int_equal(tb_bench_mode_flags("tee_verify", &t, &v), 0);
    assert_true(t && v);
    assert_int_equal(tb_bench_mode_flags("tee", &t, &v), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_set_options),
        cmocka_unit_test(test_config_check),
        cmocka_unit_test(test_mode_flags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
