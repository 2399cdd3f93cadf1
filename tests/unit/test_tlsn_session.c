/* Unit tests for src/tlsn/session: the configuration's defaults (the fixture target,
 * 2 threads, the timeouts), finding the browser (a path that is not executable, PATH
 * searched in order, none there: the line says how to install it, PATH empty or
 * unset), a phase's time from a party's report, and a session that cannot start (bad
 * threads, no package: one line, nothing left behind; with the installed package, a
 * "browser" that exits at once: the line names the party, its exit code and the
 * phase). A real session is tests/e2e/slow_tlsn.sh; fake parties, tests/e2e/tlsn_bad.sh. */
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

#include "tlsn/session.h"
#include "tlsn/wasm.h"

static void test_defaults(void **state)
{
    (void)state;
    tb_tlsn_session_config c;
    tb_tlsn_session_config_defaults(&c);
    assert_string_equal(c.chromium, "chromium");
    assert_string_equal(c.server_name, "test-server.io");
    assert_string_equal(c.target_host, "127.0.0.1");
    assert_int_equal(c.threads, 2);
    assert_int_equal(c.tee, 0);
    assert_int_equal(c.tee_kind, TB_TEE_SIM);
    assert_string_equal(c.network, "Bandwidth");
    assert_true(c.max_recv_data >= 16384);
    assert_int_equal(c.startup_timeout_s, 60);
    assert_int_equal(c.phase_timeout_s, 900);
    assert_int_equal(c.fixture_ca[0], 0);
}

static void touch(const char *path, mode_t mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("#!/bin/sh\nexit 0\n", f);
    fclose(f);
    assert_int_equal(chmod(path, mode), 0);
}

static void test_find_chromium(void **state)
{
    (void)state;
    char dir[] = "/tmp/tb_tlsn_session_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char a[64], b[64], exe[128], plain[128], path[400], out[4096];
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(b, sizeof b, "%s/b", dir);
    assert_int_equal(mkdir(a, 0700), 0);
    assert_int_equal(mkdir(b, 0700), 0);
    snprintf(plain, sizeof plain, "%s/chromium", a); /* first in PATH, not executable */
    touch(plain, 0600);
    snprintf(exe, sizeof exe, "%s/chromium", b);
    touch(exe, 0700);
    tb_err e;

    /* a name with a '/': as it is */
    assert_int_equal(tb_tlsn_find_chromium(exe, out, sizeof out, &e), 0);
    assert_string_equal(out, exe);
    assert_int_equal(tb_tlsn_find_chromium(plain, out, sizeof out, &e), -1);
    assert_non_null(strstr(e.msg, "is not an executable"));

    const char *old = getenv("PATH");
    char *saved = old ? strdup(old) : NULL;
    /* PATH in order, an empty entry and a non-executable file skipped */
    snprintf(path, sizeof path, "::%s:%s:/nonexistent", a, b);
    setenv("PATH", path, 1);
    assert_int_equal(tb_tlsn_find_chromium("chromium", out, sizeof out, &e), 0);
    assert_string_equal(out, exe);
    /* none there: how to install it */
    setenv("PATH", a, 1);
    assert_int_equal(tb_tlsn_find_chromium("chromium", out, sizeof out, &e), -1);
    assert_string_equal(out, "");
    assert_non_null(strstr(e.msg, "Chromium is not installed: no chromium in PATH"));
    assert_non_null(strstr(e.msg, "scripts/setup.sh --tlsn"));
    /* a buffer too small for the path: not found rather than cut */
    setenv("PATH", b, 1);
    char tiny[8];
    assert_int_equal(tb_tlsn_find_chromium("chromium", tiny, sizeof tiny, &e), -1);
    if (saved) {
        setenv("PATH", saved, 1);
        free(saved);
    } else {
        unsetenv("PATH");
    }
    unlink(plain);
    unlink(exe);
    rmdir(a);
    rmdir(b);
    rmdir(dir);
}

static void test_phase(void **state)
{
    (void)state;
    tb_tlsn_session_result r;
    memset(&r, 0, sizeof r);
    assert_true(tb_tlsn_session_phase(&r, TB_TLSN_PROVER, "setup") < 0); /* no report */
    json_error_t je;
    r.out[TB_TLSN_PROVER] =
        json_loads("{\"phases\":{\"setup\":31000.5,\"request\":4000,\"odd\":\"x\"}}", 0, &je);
    assert_non_null(r.out[TB_TLSN_PROVER]);
    assert_true(tb_tlsn_session_phase(&r, TB_TLSN_PROVER, "setup") == 31000.5);
    assert_true(tb_tlsn_session_phase(&r, TB_TLSN_PROVER, "request") == 4000);
    assert_true(tb_tlsn_session_phase(&r, TB_TLSN_PROVER, "reveal") < 0);
    assert_true(tb_tlsn_session_phase(&r, TB_TLSN_PROVER, "odd") < 0); /* not a number */
    assert_true(tb_tlsn_session_phase(&r, TB_TLSN_VERIFIER, "setup") < 0);
    tb_tlsn_session_result_clear(&r);
    assert_null(r.out[TB_TLSN_PROVER]);
}

static void test_cannot_start(void **state)
{
    (void)state;
    tb_tlsn_session_config c;
    tb_tlsn_session_config_defaults(&c);
    tb_tlsn_session_result r;
    tb_err e;
    c.threads = 0;
    assert_int_equal(tb_tlsn_session_run(&c, NULL, &r, &e), -1);
    assert_non_null(strstr(e.msg, "threads per party must be 1 to 64"));
    assert_true(r.notarization_ms < 0 && r.quote_ms < 0 && r.tdx_verify_ms < 0);
    c.threads = 2;
    snprintf(c.wasm_dir, sizeof c.wasm_dir, "/nonexistent/tlsn-wasm");
    snprintf(c.chromium, sizeof c.chromium, "/bin/false");
    assert_int_equal(tb_tlsn_session_run(&c, NULL, &r, &e), -1);
    assert_non_null(strstr(e.msg, "tlsn-wasm is not installed: no directory /nonexistent"));
    assert_int_equal(r.session[0], 0); /* it got nowhere */
    tb_tlsn_session_result_clear(&r);
}

/* With the installed package: a browser that exits at once fails the session in its
   startup phase with its exit code, and the session's work directory keeps its logs. */
static void test_browser_exits(void **state)
{
    (void)state;
    tb_tlsn_session_config c;
    tb_tlsn_session_config_defaults(&c);
    tb_err e;
    assert_int_equal(tb_tlsn_wasm_default_dir(c.wasm_dir, sizeof c.wasm_dir, &e), 0);
    tb_tlsn_wasm w;
    if (tb_tlsn_wasm_load(c.wasm_dir, &w, &e) < 0) {
        printf("skipped: tlsn-wasm not installed (%s)\n", e.msg);
        return;
    }
    tb_tlsn_wasm_clear(&w);
    char dir[] = "/tmp/tb_tlsn_session_XXXXXX";
    assert_non_null(mkdtemp(dir));
    snprintf(c.work_dir, sizeof c.work_dir, "%s", dir);
    snprintf(c.chromium, sizeof c.chromium, "/bin/false");
    c.startup_timeout_s = 5;
    c.phase_timeout_s = 5;
    tb_tlsn_session_result r;
    assert_int_equal(tb_tlsn_session_run(&c, NULL, &r, &e), -1);
    assert_non_null(strstr(e.msg, "Chromium exited with code 1 in its startup phase"));
    assert_int_equal(strlen(r.session), 32); /* it started */
    assert_true(r.notarization_ms < 0);
    tb_tlsn_session_result_clear(&r);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),      cmocka_unit_test(test_find_chromium),
        cmocka_unit_test(test_phase),         cmocka_unit_test(test_cannot_start),
        cmocka_unit_test(test_browser_exits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
