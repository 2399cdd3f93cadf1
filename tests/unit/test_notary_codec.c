/* Unit tests for src/notary/codec: strict base64 (hex: test_hex.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "notary/internal.h"

static void test_b64_known_vectors(void **state)
{
    (void)state;
    const char *plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    const char *enc[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        tb_buf b = {0}, d = {0};
        assert_int_equal(tb_notary_b64_append(&b, (const uint8_t *)plain[i], strlen(plain[i])), 0);
        assert_int_equal(b.len, strlen(enc[i]));
        assert_memory_equal(b.p ? (char *)b.p : "", enc[i], b.len);
        assert_int_equal(tb_notary_unb64_append(&d, enc[i], strlen(enc[i])), 0);
        assert_int_equal(d.len, strlen(plain[i]));
        if (d.len)
            assert_memory_equal(d.p, plain[i], d.len);
        tb_buf_clear(&b);
        tb_buf_clear(&d);
    }
}

static void test_b64_rejects_non_canonical(void **state)
{
    (void)state;
    const char *bad[] = {
        "Zg=", "Zg", "Z===", "Zh==", "Zm9=", "Zm 9v", "Zm9v\n", "=Zm9", "Zg==Zg==", "Zm9*"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tb_buf d = {0};
        tb_buf_puts(&d, "keep");
        assert_int_equal(tb_notary_unb64_append(&d, bad[i], strlen(bad[i])), -1);
        assert_int_equal(d.len, 4); /* nothing appended on failure */
        tb_buf_clear(&d);
    }
}

static void test_b64_all_bytes(void **state)
{
    (void)state;
    uint8_t all[256];
    for (int i = 0; i < 256; i++)
        all[i] = (uint8_t)i;
    for (size_t n = 0; n <= 256; n += 17) {
        tb_buf b = {0}, d = {0};
        assert_int_equal(tb_notary_b64_append(&b, all, n), 0);
        assert_int_equal(tb_notary_unb64_append(&d, (char *)b.p, b.len), 0);
        assert_int_equal(d.len, n);
        if (n)
            assert_memory_equal(d.p, all, n);
        tb_buf_clear(&b);
        tb_buf_clear(&d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_b64_known_vectors),
        cmocka_unit_test(test_b64_rejects_non_canonical),
        cmocka_unit_test(test_b64_all_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
