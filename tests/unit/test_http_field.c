/* Unit tests for net/http_field: token characters and the text class,
 * case-insensitive names, 1*DIGIT lengths with a digit limit, and comma-separated
 * token lists (any element / last element). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "net/http_field.h"

static void test_is_tchar(void **state)
{
    (void)state;
    const char *yes = "!#$%&'*+-.^_`|~09azAZ";
    for (const char *c = yes; *c; c++)
        assert_true(tb_http_is_tchar((uint8_t)*c));
    const char *no = " \t\r\n\"(),/:;<=>?@[\\]{}\x7f";
    for (const char *c = no; *c; c++)
        assert_false(tb_http_is_tchar((uint8_t)*c));
    assert_false(tb_http_is_tchar(0));
    assert_false(tb_http_is_tchar(0x80));
    assert_false(tb_http_is_tchar(0xff));
    int n = 0;
    for (int c = 0; c < 256; c++)
        n += tb_http_is_tchar((uint8_t)c);
    assert_int_equal(n, 62 + 15);
}

/* TB_HTTP_TEXT: HTAB, SP, VCHAR and obs-text; every tchar is text too. */
static void test_text_class(void **state)
{
    (void)state;
    int n = 0;
    for (int c = 0; c < 256; c++) {
        int text = (tb_http_cls[c] & TB_HTTP_TEXT) != 0;
        n += text;
        if (tb_http_is_tchar((uint8_t)c))
            assert_true(text);
        if (c < 0x20 || c == 0x7f)
            assert_int_equal(text, c == '\t');
    }
    assert_true(tb_http_cls[' '] & TB_HTTP_TEXT);
    assert_true(tb_http_cls[0x80] & TB_HTTP_TEXT);
    assert_true(tb_http_cls[0xff] & TB_HTTP_TEXT);
    assert_int_equal(n, 1 + 95 + 128);
}

static int name(const char *s, const char *want)
{
    return tb_http_name_is(s, strlen(s), want);
}

static void test_name_is(void **state)
{
    (void)state;
    assert_true(name("Content-Length", "content-length"));
    assert_true(name("CONTENT-LENGTH", "Content-Length"));
    assert_false(name("Content-Lengt", "content-length"));
    assert_false(name("Content-Lengthx", "content-length"));
    assert_false(name("Content_Length", "content-length"));
    assert_true(name("", ""));
    /* Only A-Z fold: '@' (0x40) is not '`' (0x60), 0xC9 is not 0xE9. */
    assert_false(name("@", "`"));
    assert_false(name("\xc9", "\xe9"));
    /* Not NUL-terminated: only n bytes count. */
    assert_true(tb_http_name_is("hostXYZ", 4, "host"));
}

static int digits(const char *s, size_t max, uint64_t *out)
{
    return tb_http_digits(s, strlen(s), max, out);
}

static void test_digits(void **state)
{
    (void)state;
    uint64_t v = 7;
    assert_int_equal(digits("0", 18, &v), 0);
    assert_int_equal(v, 0);
    assert_int_equal(digits("0012", 18, &v), 0);
    assert_int_equal(v, 12);
    assert_int_equal(digits("999999999999999999", 18, &v), 0);
    assert_true(v == 999999999999999999ull);
    assert_int_equal(digits("1000000000000000000", 18, &v), -1); /* 19 digits */
    assert_int_equal(digits("123456789012345", 15, &v), 0);
    assert_true(v == 123456789012345ull);
    assert_int_equal(digits("1234567890123456", 15, &v), -1);
    assert_int_equal(digits("99999999999999999999", 25, &v), -1); /* never overflows */
    v = 5;
    assert_int_equal(digits("", 18, &v), -1);
    assert_int_equal(digits("+1", 18, &v), -1);
    assert_int_equal(digits("-1", 18, &v), -1);
    assert_int_equal(digits(" 1", 18, &v), -1);
    assert_int_equal(digits("1 ", 18, &v), -1);
    assert_int_equal(digits("1a", 18, &v), -1);
    assert_int_equal(digits("0x10", 18, &v), -1);
    assert_int_equal(v, 5); /* untouched on failure */
    assert_int_equal(tb_http_digits("42abc", 2, 18, &v), 0);
    assert_int_equal(v, 42);
}

static bool tok(const char *v, const char *t, bool last)
{
    return tb_http_has_token(v, strlen(v), t, last);
}

static void test_has_token(void **state)
{
    (void)state;
    assert_true(tok("close", "close", false));
    assert_true(tok("Close", "close", false));
    assert_true(tok("keep-alive, Upgrade", "keep-alive", false));
    assert_true(tok("Upgrade ,\t KEEP-ALIVE \t", "keep-alive", false));
    assert_true(tok(",,close,,", "close", false));
    assert_false(tok("closed", "close", false));
    assert_false(tok("xclose", "close", false));
    assert_false(tok("clo se", "close", false));
    assert_false(tok("", "close", false));
    assert_false(tok(" , ,", "close", false));
    /* last: only the final non-empty element counts. */
    assert_true(tok("gzip, chunked", "chunked", true));
    assert_true(tok("gzip, Chunked ,", "chunked", true));
    assert_false(tok("chunked, gzip", "chunked", true));
    assert_true(tok("chunked, gzip", "chunked", false));
    assert_false(tok("gzipchunked", "chunked", true));
    assert_false(tok("", "chunked", true));
    /* Not NUL-terminated: only n bytes count. */
    assert_true(tb_http_has_token("close, keep-alive", 5, "close", false));
    assert_false(tb_http_has_token("close, keep-alive", 5, "keep-alive", false));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_is_tchar),  cmocka_unit_test(test_text_class),
        cmocka_unit_test(test_name_is),   cmocka_unit_test(test_digits),
        cmocka_unit_test(test_has_token),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
