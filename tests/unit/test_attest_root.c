/* Unit tests for attest/common/root: the built-in Intel root, roots from PEM and DER files,
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
#include <openssl/sha.h>

#include "attest_test_util.h"
#include "attest/snp/snp.h"
#include "base/file.h"
#include "base/hex.h"

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

/* The embedded trusted roots are the files of data/roots byte for byte, and those
 * are the certificates teebench always trusted: their SHA-256 pinned here (taken
 * from the C arrays and the PEM string the roots were before base/embed). */
static void expect_embedded(const uint8_t *p, size_t n, const char *file, const char *sha256)
{
    char path[1024], hex[2 * SHA256_DIGEST_LENGTH + 1];
    uint8_t md[SHA256_DIGEST_LENGTH];
    tb_buf b = {0};
    tb_err e;
    snprintf(path, sizeof path, "%s/data/roots/%s", TEEBENCH_SOURCE_DIR, file);
    if (tb_file_read(path, 1 << 16, &b, &e) < 0)
        fail_msg("%s", e.msg);
    SHA256(b.p, b.len, md);
    tb_hex_encode(md, sizeof md, hex);
    assert_string_equal(hex, sha256);
    SHA256(p, n, md);
    tb_hex_encode(md, sizeof md, hex);
    assert_string_equal(hex, sha256);
    assert_true(n == b.len && !memcmp(p, b.p, n));
    tb_buf_clear(&b);
}

static void test_embedded_roots(void **state)
{
    (void)state;
    size_t n;
    const char *pem = tb_attest_intel_root_pem(&n);
    assert_int_equal(strlen(pem), n); /* NUL-terminated, no NUL inside */
    expect_embedded((const uint8_t *)pem, n, "intel-sgx-root-ca.pem",
                    "7d4e649fc0951bdd240240b83f59a41cd53015b331dc6264dfc0d07af3fcdfea");
    static const struct {
        tb_snp_product p;
        const char *ark, *ask, *asvk;
    } amd[] = {
        {TB_SNP_MILAN, "69d063b45344d26a2e94e1f4210de49ef555308287d4c174445c95639a540bcd",
         "67d303bd3905fd38db8b20e0793699870e7fa612eaad5dec358293fd8c0bac1b",
         "c5e081f59b7efab1fe2f8b505e159704e72f29cab7ef7cf628a05a42439082f5"},
        {TB_SNP_GENOA, "4c6598d19c18719c5dfd4a7d335f674e5bfe1d8f800cea2cf270c10d103db2f1",
         "5464738c1546aed5f2cecf1dc98c5c960a92e8913238a61711bc90ec6e828521",
         "197e610743a917d6b9bb982a5a9226ccc0a15b611be0619e626aca9151457372"},
        {TB_SNP_TURIN, "1f084161a44bb6d93778a904877d4819cafa5d05ef4193b2ded9dd9c73dd3f6a",
         "5b77ef5fe7a7a004fd9032668fba9d0fda22f88c4442069a479636a6ae3b3185",
         "104e10a8bd060a3c20a434261a57d0588fd65a88915b4f65b08bdecaf8df1a3c"},
    };
    for (size_t i = 0; i < sizeof amd / sizeof amd[0]; i++) {
        const char *name = tb_snp_product_name(amd[i].p);
        char lower[16], f[64];
        size_t k = 0;
        for (; name[k] && k + 1 < sizeof lower; k++)
            lower[k] = (char)(name[k] | 32);
        lower[k] = 0;
        const uint8_t *ark, *ask;
        size_t al, sl;
        assert_int_equal(tb_snp_builtin(amd[i].p, 0, &ark, &al, &ask, &sl), 0);
        snprintf(f, sizeof f, "amd-%s-ark.der", lower);
        expect_embedded(ark, al, f, amd[i].ark);
        snprintf(f, sizeof f, "amd-%s-ask.der", lower);
        expect_embedded(ask, sl, f, amd[i].ask);
        assert_int_equal(tb_snp_builtin(amd[i].p, 1, &ark, &al, &ask, &sl), 0);
        snprintf(f, sizeof f, "amd-%s-asvk.der", lower);
        expect_embedded(ask, sl, f, amd[i].asvk);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roots),
        cmocka_unit_test(test_embedded_roots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
