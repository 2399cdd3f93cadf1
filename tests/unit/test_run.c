/* Unit tests for src/bench/run: configuration defaults (the source script's),
 * option parsing and its errors, mode flags, RESULTS_DIR as the run directory, and
 * the timeout's SIGTERM-grace-SIGKILL sequence (a client that ignores SIGTERM, with
 * a short grace). The rest of the run is covered end to end (tests/e2e/bench_*.sh). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "bench/internal.h"
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
    assert_string_equal(c.target_host, ""); /* FIXTURE_ADDR, as in the script */
    assert_string_equal(tb_bench_config_target_host(&c), "127.0.0.1");
    strcpy(c.fixture_addr, "127.0.0.2");
    assert_string_equal(tb_bench_config_target_host(&c), "127.0.0.2");
    strcpy(c.target_host, "10.0.0.1");
    assert_string_equal(tb_bench_config_target_host(&c), "10.0.0.1");
    assert_string_equal(c.target_server_name, "test-server.io");
    assert_string_equal(c.target_uri, "/formats/json?size=4");
    assert_int_equal(c.max_sent_data, 4096);
    assert_int_equal(c.max_recv_data, 16384);
    assert_int_equal(c.run_timeout_s, 300);
    assert_int_equal(c.retries, 0); /* the script never retries */
    assert_int_equal(c.term_grace_ms, 5000);
    assert_string_equal(c.results_dir, "");
    assert_string_equal(c.out_root, "benchmark-results");
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
    assert_int_equal(tb_bench_config_set(&c, "NOTARY_TEE", "sim-snp", &e), 0);
    assert_string_equal(c.notary_tee, "sim-snp");
    assert_int_equal(tb_bench_config_set(&c, "NOTARY_TEE", "snp", &e), 0);
    assert_int_equal(tb_bench_config_set(&c, "SNP_CERTS", "/tmp/snp-certs", &e), 0);
    assert_string_equal(c.snp_certs, "/tmp/snp-certs");
    assert_int_equal(tb_bench_config_set(&c, "KDS_URL", "https://kdsintf.amd.com", &e), 0);
    assert_string_equal(c.kds_url, "https://kdsintf.amd.com");
    assert_int_equal(tb_bench_config_set(&c, "RESULTS_DIR", "runs/one", &e), 0);
    assert_string_equal(c.results_dir, "runs/one");
    assert_string_equal(c.out_root, "benchmark-results");
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

static char *slurp(const char *path)
{
    tb_buf b = {0};
    tb_err e;
    if (tb_file_read(path, 1 << 20, &b, &e) < 0 || tb_buf_puts(&b, "") < 0)
        fail_msg("%s", e.msg);
    return (char *)b.p;
}

/* RESULTS_DIR is the run directory itself; a client past its timeout that ignores
 * SIGTERM is SIGKILLed after the grace, recorded with exit 124, and the script's
 * line ends its stderr log; a second run into the same RESULTS_DIR is refused. */
static void test_results_dir_and_timeout(void **state)
{
    (void)state;
    char tmp[] = "/tmp/tb-run-test.XXXXXX";
    assert_non_null(mkdtemp(tmp));
    tb_bench_config c;
    tb_err e;
    tb_bench_config_defaults(&c);
    c.iterations = 1;
    c.n_modes = 1;
    strcpy(c.modes[0], "tee_verify");
    c.start_fixture = c.start_notary = 0;
    c.notary_port = 1;
    c.run_timeout_s = 1;
    c.term_grace_ms = 300;
    snprintf(c.client_cmd, sizeof c.client_cmd,
             "trap '' TERM; echo \"tee=$ENABLE_TEE_ATTESTATION verify=$VERIFY_ATTESTATION "
             "target=$TARGET_HOST\" >&2; while :; do sleep 0.05; done");
    snprintf(c.results_dir, sizeof c.results_dir, "%s/run", tmp);
    tb_bench_outcome oc;
    assert_int_equal(tb_bench_run(&c, NULL, NULL, NULL, &oc, &e), 0);
    assert_string_equal(oc.run_dir, c.results_dir);
    assert_int_equal(oc.failed, 1);
    assert_int_equal(oc.retried, 0);
    char path[4200];
    snprintf(path, sizeof path, "%s/results.csv", c.results_dir);
    char *csv = slurp(path);
    char want[9000];
    snprintf(want, sizeof want, "\ntee_verify,1,1,1,124,,,,,");
    assert_non_null(strstr(csv, want));
    snprintf(want, sizeof want,
             ",%s/logs/tee_verify-1.stdout.log,%s/logs/tee_verify-1.stderr.log\n", c.results_dir,
             c.results_dir);
    assert_non_null(strstr(csv, want));
    free(csv);
    snprintf(path, sizeof path, "%s/logs/tee_verify-1.stderr.log", c.results_dir);
    char *log = slurp(path);
    assert_non_null(strstr(log, "tee=1 verify=1 target=127.0.0.1\n"));
    size_t n = strlen(log);
    const char *tail = "benchmark runner: timed out after 1s\n";
    assert_true(n >= strlen(tail));
    assert_string_equal(log + n - strlen(tail), tail);
    free(log);
    /* The same RESULTS_DIR again: refused, nothing overwritten. */
    assert_int_equal(tb_bench_run(&c, NULL, NULL, NULL, &oc, &e), -1);
    assert_non_null(strstr(e.msg, "already holds a results.csv"));
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    assert_int_equal(system(cmd), 0);
}

/* extra_csv: one row per results.csv row, the last value of each named key, numbers only
   (a value that is not one, or a key not printed, is an empty cell), the header in lower
   case; the mode written as results.csv writes it. */
static void test_extra_csv(void **state)
{
    (void)state;
    char tmp[] = "/tmp/tb-run-test.XXXXXX";
    assert_non_null(mkdtemp(tmp));
    tb_bench_config c;
    tb_err e;
    tb_bench_config_defaults(&c);
    c.iterations = 2;
    c.n_modes = 2;
    strcpy(c.modes[0], "no_tee");
    strcpy(c.modes[1], "tee_verify");
    c.start_fixture = c.start_notary = 0;
    c.notary_port = 1;
    snprintf(c.extra_csv, sizeof c.extra_csv, "phases.csv");
    snprintf(c.extra_keys, sizeof c.extra_keys, "SETUP_MS BYTES_UP NOT_A_NUMBER MISSING");
    snprintf(c.client_cmd, sizeof c.client_cmd,
             "echo NOTARIZATION_MS=5 SETUP_MS=1 SETUP_MS=$BENCHMARK_ITERATION.5; "
             "echo BYTES_UP=88000000 NOT_A_NUMBER=12abc XSETUP_MS=9; "
             "[ $BENCHMARK_MODE = no_tee ] || [ $BENCHMARK_ITERATION = 1 ] || exit 3");
    snprintf(c.results_dir, sizeof c.results_dir, "%s/run", tmp);
    tb_bench_outcome oc;
    assert_int_equal(tb_bench_run(&c, NULL, NULL, NULL, &oc, &e), 0);
    assert_int_equal(oc.completed, 4);
    assert_int_equal(oc.failed, 1);
    char path[4200];
    snprintf(path, sizeof path, "%s/phases.csv", c.results_dir);
    char *csv = slurp(path);
    assert_string_equal(csv, "mode,iteration,exit_code,setup_ms,bytes_up,not_a_number,missing\n"
                             "no_tee,1,0,1.5,88000000,,\n"
                             "tee_verify,1,0,1.5,88000000,,\n"
                             "no_tee,2,0,2.5,88000000,,\n"
                             "tee_verify,2,3,2.5,88000000,,\n");
    free(csv);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_set_options),
        cmocka_unit_test(test_config_check),
        cmocka_unit_test(test_mode_flags),
        cmocka_unit_test(test_results_dir_and_timeout),
        cmocka_unit_test(test_extra_csv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
