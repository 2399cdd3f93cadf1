/* Unit tests for attest/common/provider_tsm: configfs-tsm missing or not a TD / SNP guest (the
 * entry is removed again), provider names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include <openssl/evp.h>

#include "attest_test_util.h"

static void test_tsm_errors(void **state)
{
    (void)state;
    uint8_t rd[64] = {0}, *q;
    size_t n;
    tb_err e;
    assert_int_equal(tb_tdx_tsm_get_quote("/nonexistent/tsm/report", rd, &q, &n, &e), -1);
    assert_non_null(strstr(e.msg, "no configfs-tsm at /nonexistent/tsm/report"));
    assert_null(q);
    /* A plain directory is not configfs: the entry has no provider; it is removed. */
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    assert_int_equal(tb_tdx_tsm_get_quote(dir, rd, &q, &n, &e), -1);
    assert_non_null(strstr(e.msg, "provider"));
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s')\"", dir);
    assert_int_equal(system(cmd), 0); /* the entry was removed */
    rm_rf(dir);
    tb_tee k; /* the --provider names (base/tee) */
    assert_int_equal(tb_tee_provider("sim", &k), 0);
    assert_int_equal(k, TB_TEE_SIM);
    assert_int_equal(tb_tee_provider("tsm", &k), 0);
    assert_int_equal(k, TB_TEE_TDX);
    assert_int_equal(tb_tee_provider("sev", &k), -1);
    assert_int_equal(tb_tee_provider("snp", &k), 0);
    assert_int_equal(k, TB_TEE_SNP);
    assert_int_equal(tb_tee_provider("sim-snp", &k), 0);
    assert_int_equal(k, TB_TEE_SIM_SNP);
    /* SEV-SNP takes the same path, expecting provider sev_guest */
    assert_int_equal(tb_snp_tsm_report("/nonexistent/tsm/report", rd, &q, &n, &e), -1);
    assert_non_null(strstr(e.msg, "not a SEV-SNP guest"));
    assert_non_null(strstr(e.msg, "sim-snp"));
    make_tmpdir(dir, sizeof dir);
    assert_int_equal(tb_snp_tsm_report(dir, rd, &q, &n, &e), -1);
    assert_non_null(strstr(e.msg, "provider"));
    snprintf(cmd, sizeof cmd, "test -d '%s' && test -z \"$(ls -A '%s')\"", dir, dir);
    assert_int_equal(system(cmd), 0);
    rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tsm_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
