/* Unit tests for attest/root: the built-in Intel root, roots from PEM and DER files,
 * bad files. */
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

static void test_roots(void **state)
{
    (void)state;
    tb_attest_root *a, *b;
    tb_err e;
    char p[1024];
    assert_int_equal(tb_attest_root_intel(&a, &e), 0);
    assert_false(a->simulated);
    snprintf(p, sizeof p, "%s/tdx/intel-sgx-root-ca.der", testdata());
    assert_int_equal(tb_attest_root_load(p, &b, &e), 0); /* DER */
    tb_attest_root_free(b);
    snprintf(p, sizeof p, "%s/tdx/intel-sgx-root-ca.pem", testdata());
    assert_int_equal(tb_attest_root_load(p, &b, &e), 0); /* PEM */
    tb_attest_root_free(b);
    case_path("qvl-v4-uptodate", "case.json", p, sizeof p);
    assert_int_equal(tb_attest_root_load(p, &b, &e), -1);
    assert_int_equal(tb_attest_root_load("/nonexistent.pem", &b, &e), -1);
    tb_attest_root_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
