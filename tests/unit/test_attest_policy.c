/* Unit tests for attest/common/policy: defaults, every field, malformed policies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "attest/internal.h"
#include "attest_test_util.h"

static void test_policy(void **state)
{
    (void)state;
    tb_attest_policy p;
    tb_err e;
    tb_attest_policy_default(&p);
    assert_int_equal(p.accept, 1u << TB_ATTEST_TCB_UP_TO_DATE);
    const char *ok = "{\"allow_debug\": true, \"tcb_statuses\": [\"UpToDate\", "
                     "\"SWHardeningNeeded\"], \"rtmr2\": \"" /* 48 bytes */
                     "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
                     "202122232425262728292a2b2c2d2e2f\", \"report_data_prefix\": \"abcd\"}";
    assert_int_equal(tb_attest_policy_parse(ok, strlen(ok), &p, &e), 0);
    assert_true(p.allow_debug);
    assert_int_equal(p.accept,
                     1u << TB_ATTEST_TCB_UP_TO_DATE | 1u << TB_ATTEST_TCB_SW_HARDENING_NEEDED);
    assert_true(p.want_rtmr[2] && !p.want_rtmr[0]);
    assert_int_equal(p.rtmr[2][47], 0x2f);
    assert_int_equal(p.report_data_len, 2);
    assert_false(p.allow_expired_collateral);
    /* QVL's TD relaunch statuses can be named; expired collateral can be allowed. */
    const char *relaunch = "{\"allow_expired_collateral\": true, \"tcb_statuses\": "
                           "[\"TDRelaunchAdvised\", \"TDRelaunchAdvisedConfigurationNeeded\"]}";
    assert_int_equal(tb_attest_policy_parse(relaunch, strlen(relaunch), &p, &e), 0);
    assert_true(p.allow_expired_collateral);
    assert_int_equal(p.accept, 1u << TB_ATTEST_TCB_TD_RELAUNCH_ADVISED |
                                   1u << TB_ATTEST_TCB_TD_RELAUNCH_ADVISED_CONFIGURATION_NEEDED);
    const char *bad[] = {"{\"allow_expired_collateral\": \"yes\"}",
                         "{\"mrtd\": \"00\"}",
                         "{\"tcb_statuses\": [1]}",
                         "{\"debug\": true}",
                         "{\"allow_debug\": 1}",
                         "nope",
                         "{\"report_data_prefix\": \"\"}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(tb_attest_policy_parse(bad[i], strlen(bad[i]), &p, &e), -1);
    assert_int_equal(tb_attest_policy_load("/nonexistent/policy.json", &p, &e), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_policy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
