/* Unit tests for attest/tdx/pccs: argument checks and network errors (the full PCCS protocol
 * is tested end to end in tests/e2e/attest_pccs.sh against tests/e2e/pccs_server.py). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "attest_test_util.h"

static void test_pccs_errors(void **state)
{
    (void)state;
    tb_tdx_collateral c;
    tb_err e;
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", dead_port());
    assert_int_equal(tb_tdx_pccs_fetch(url, "b0c06f000000", "platform", 2000, &c, &e), -1);
    assert_non_null(strstr(e.msg, "GET http://127.0.0.1:"));
    assert_non_null(strstr(e.msg, "/sgx/certification/v4/pckcrl?ca=platform&encoding=der"));
    assert_int_equal(tb_tdx_pccs_fetch(url, "zz", "platform", 2000, &c, &e), -1);
    assert_non_null(strstr(e.msg, "bad FMSPC"));
    assert_int_equal(tb_tdx_pccs_fetch(url, "b0c06f000000", "nope", 2000, &c, &e), -1);
    assert_non_null(strstr(e.msg, "bad PCK CA"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pccs_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
