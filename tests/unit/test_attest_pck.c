/* Unit tests for attest/pck: the SGX extension of a real PCK certificate (FMSPC, TCB
 * components), truncated and non-certificate input. */
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

static void test_pck_extension(void **state)
{
    (void)state;
    char p[1024];
    case_path("qvl-v5-notcb", "quote.bin", p, sizeof p);
    tb_buf b = read_all(p);
    tb_attest_quote *q;
    tb_err e;
    assert_int_equal(tb_attest_quote_parse(b.p, b.len, &q, &e), 0);
    /* The leaf's DER: decode the first PEM block with the quote's own reader. */
    const char *s = strstr(q->pck_chain, "-----BEGIN CERTIFICATE-----") + 27;
    const char *end = strstr(s, "-----END");
    unsigned char *der = malloc((size_t)(end - s));
    char *clean = malloc((size_t)(end - s) + 1);
    size_t k = 0;
    for (const char *c = s; c < end; c++)
        if (*c != '\n')
            clean[k++] = *c;
    int n = EVP_DecodeBlock(der, (unsigned char *)clean, (int)k);
    while (clean[k - 1] == '=') {
        n--;
        k--;
    }
    tb_attest_pck_info pck;
    assert_int_equal(tb_attest_pck_info_from_der(der, (size_t)n, &pck, &e), 0);
    assert_int_equal(pck.fmspc[0], 0x90);
    assert_int_equal(pck.fmspc[1], 0xc0);
    assert_int_equal(pck.sgx_comp[7], 3); /* component 8, as case.json notes */
    assert_true(pck.pcesvn > 0);
    assert_int_equal(tb_attest_pck_info_from_der(der, (size_t)n - 1, &pck, &e), -1);
    assert_int_equal(tb_attest_pck_info_from_der((const uint8_t *)"junk", 4, &pck, &e), -1);
    free(der);
    free(clean);
    tb_attest_quote_free(q);
    tb_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pck_extension),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
