/* Unit tests for base/hex: digit values, lowercase encoding, exact-length and
 * up-to-capacity strict decoding (the tests that attest/tdx/quote and notary/codec
 * had for their own copies, now on the one codec). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "base/hex.h"

static void test_val(void **state)
{
    (void)state;
    const char *digits = "0123456789abcdef", *upper = "ABCDEF";
    for (int i = 0; i < 16; i++)
        assert_int_equal(tb_hex_val((unsigned char)digits[i]), i);
    for (int i = 0; i < 6; i++)
        assert_int_equal(tb_hex_val((unsigned char)upper[i]), 10 + i);
    int n = 0;
    for (int c = 0; c < 256; c++)
        n += tb_hex_val(c) >= 0;
    assert_int_equal(n, 22);
    assert_int_equal(tb_hex_val('g'), -1);
    assert_int_equal(tb_hex_val('G'), -1);
    assert_int_equal(tb_hex_val('/'), -1);
    assert_int_equal(tb_hex_val(':'), -1);
    assert_int_equal(tb_hex_val('`'), -1);
    assert_int_equal(tb_hex_val('@'), -1);
    assert_int_equal(tb_hex_val(0xff), -1);
}

static void test_encode_decode_exact(void **state)
{
    (void)state;
    uint8_t b[3] = {0x00, 0xab, 0xff}, d[3];
    char h[7];
    tb_hex_encode(b, 3, h);
    assert_string_equal(h, "00abff");
    assert_int_equal(tb_hex_decode("00ABff", 6, d, 3), 0);
    assert_memory_equal(b, d, 3);
    assert_int_equal(tb_hex_decode("00abf", 5, d, 3), -1);
    assert_int_equal(tb_hex_decode("00abfg", 6, d, 3), -1);
    assert_int_equal(tb_hex_decode("00ab", 4, d, 3), -1);     /* short */
    assert_int_equal(tb_hex_decode("00abff00", 8, d, 3), -1); /* long */
    char e[1] = {'x'};
    tb_hex_encode(b, 0, e);
    assert_int_equal(e[0], '\0');
}

static void test_decode_upto(void **state)
{
    (void)state;
    uint8_t in[4] = {0x00, 0xab, 0x7f, 0xff}, out[4];
    char s[9];
    tb_hex_encode(in, 4, s);
    assert_string_equal(s, "00ab7fff");
    assert_int_equal(tb_hex_decode_upto("00AB7fff", 8, out, 4), 4);
    assert_memory_equal(in, out, 4);
    assert_int_equal(tb_hex_decode_upto("abc", 3, out, 4), -1);         /* odd */
    assert_int_equal(tb_hex_decode_upto("zz", 2, out, 4), -1);          /* bad digit */
    assert_int_equal(tb_hex_decode_upto("0011223344", 10, out, 4), -1); /* too long */
    assert_int_equal(tb_hex_decode_upto("", 0, out, 4), 0);
    assert_int_equal(tb_hex_decode_upto("ab", 2, out, 4), 1);
    assert_int_equal(out[0], 0xab);
    assert_int_equal(tb_hex_decode_upto("0 ", 2, out, 4), -1); /* no whitespace */
    assert_int_equal(tb_hex_decode_upto("\xff"
                                        "0",
                                        2, out, 4),
                     -1);
}

static void test_roundtrip_all_bytes(void **state)
{
    (void)state;
    uint8_t in[256], out[256];
    char s[513];
    for (int i = 0; i < 256; i++)
        in[i] = (uint8_t)i;
    tb_hex_encode(in, 256, s);
    assert_int_equal(strlen(s), 512);
    assert_int_equal(tb_hex_decode(s, 512, out, 256), 0);
    assert_memory_equal(in, out, 256);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_val),
        cmocka_unit_test(test_encode_decode_exact),
        cmocka_unit_test(test_decode_upto),
        cmocka_unit_test(test_roundtrip_all_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
