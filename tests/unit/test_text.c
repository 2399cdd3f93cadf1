/* Unit tests for base/text: what is escaped (C0, DEL, C1, bidi controls, line
 * separators, bytes that are not UTF-8) and what passes (printable ASCII, valid
 * UTF-8, backslashes); the fixed-buffer form's cut at a character boundary; the
 * escaped output is always plain. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "base/text.h"

/* The escaped form of s[0..n), as a malloc'd C string. */
static char *esc_n(const char *s, size_t n)
{
    tb_buf b = {0};
    assert_int_equal(tb_text_escape(&b, s, n), 0);
    char *r = strdup(b.p ? (char *)b.p : "");
    assert_int_equal(tb_text_plain(r, strlen(r)), 1);
    tb_buf_clear(&b);
    return r;
}

static void expect(const char *in, const char *out)
{
    char *r = esc_n(in, strlen(in));
    assert_string_equal(r, out);
    free(r);
}

static void test_plain_passes(void **state)
{
    (void)state;
    expect("", "");
    expect("tdx-guest", "tdx-guest");
    expect("TDX VM (32 CPUs) | 50% \\ 'quoted' \"x\" ~",
           "TDX VM (32 CPUs) | 50% \\ 'quoted' \"x\" ~");
    /* UTF-8 text: accents, the ± and µ the tables print, CJK, an emoji */
    expect("caf\xc3\xa9 \xc2\xb1"
           "0.8% \xc2\xb5s \xe6\xbc\xa2 \xf0\x9f\x98\x80",
           "caf\xc3\xa9 \xc2\xb1"
           "0.8% \xc2\xb5s \xe6\xbc\xa2 \xf0\x9f\x98\x80");
    assert_int_equal(tb_text_plain("caf\xc3\xa9", 5), 1);
    assert_int_equal(tb_text_plain("a b", 3), 1);
}

static void test_controls(void **state)
{
    (void)state;
    /* a title, a clear screen, a cursor move: shown, not done */
    expect("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07");
    expect("\x1b[2J\x1b[1;1H", "\\x1b[2J\\x1b[1;1H");
    expect("a\tb\nc\rd", "a\\tb\\nc\\rd");
    expect("\x01\x1f\x7f", "\\x01\\x1f\\x7f");
    char *r = esc_n("a\0b", 3); /* a NUL inside the given length */
    assert_string_equal(r, "a\\x00b");
    free(r);
    /* C1 controls as UTF-8: CSI (U+009B) and the ends of the range */
    expect("\xc2\x9b"
           "2J",
           "\\u009b2J");
    expect("\xc2\x80\xc2\x9f\xc2\xa0", "\\u0080\\u009f\xc2\xa0");
    assert_int_equal(tb_text_plain("\x1b", 1), 0);
    assert_int_equal(tb_text_plain("\xc2\x9b", 2), 0);
    assert_int_equal(tb_text_plain("ok\n", 3), 0);
}

static void test_bidi(void **state)
{
    (void)state;
    static const struct {
        const char *utf8, *esc;
    } bidi[] = {
        {"\xd8\x9c", "\\u061c"},     {"\xe2\x80\x8e", "\\u200e"}, {"\xe2\x80\x8f", "\\u200f"},
        {"\xe2\x80\xaa", "\\u202a"}, {"\xe2\x80\xae", "\\u202e"}, {"\xe2\x81\xa6", "\\u2066"},
        {"\xe2\x81\xa9", "\\u2069"},
    };
    for (size_t i = 0; i < sizeof bidi / sizeof bidi[0]; i++) {
        char in[32], out[32];
        snprintf(in, sizeof in, "a%sb", bidi[i].utf8);
        snprintf(out, sizeof out, "a%sb", bidi[i].esc);
        expect(in, out);
        assert_int_equal(tb_text_has_bidi(in, strlen(in)), 1);
        assert_int_equal(tb_text_plain(in, strlen(in)), 0);
    }
    /* neighbours that are not bidi controls */
    const char *near[] = {"\xe2\x80\x8d" /* U+200D ZWJ */, "\xe2\x80\xaf" /* U+202F */,
                          "\xe2\x81\xa5" /* U+2065 */, "\xe2\x81\xaa" /* U+206A */,
                          "\xd8\x9b" /* U+061B */};
    for (size_t i = 0; i < sizeof near / sizeof near[0]; i++) {
        assert_int_equal(tb_text_has_bidi(near[i], strlen(near[i])), 0);
        expect(near[i], near[i]);
    }
    /* the line separators */
    expect("\xe2\x80\xa8\xe2\x80\xa9", "\\u2028\\u2029");
    /* a bidi byte sequence cut short is not a bidi control, but not UTF-8 either */
    assert_int_equal(tb_text_has_bidi("\xe2\x80", 2), 0);
}

static void test_not_utf8(void **state)
{
    (void)state;
    expect("\xff", "\\xff");
    expect("a\x80z", "a\\x80z");                        /* a stray continuation byte */
    expect("\xc3", "\\xc3");                            /* cut at the end */
    expect("\xc3(", "\\xc3(");                          /* a bad continuation */
    expect("\xc0\xaf", "\\xc0\\xaf");                   /* overlong '/' */
    expect("\xe0\x80\xaf", "\\xe0\\x80\\xaf");          /* overlong, 3 bytes */
    expect("\xed\xa0\x80", "\\xed\\xa0\\x80");          /* a surrogate */
    expect("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"); /* above U+10FFFF */
    /* a valid character right after a bad byte is kept */
    expect("\xff\xc3\xa9", "\\xff\xc3\xa9");
}

static void test_safe(void **state)
{
    (void)state;
    char buf[16];
    const char *plain = "tdx-guest";
    assert_ptr_equal(tb_text_safe(plain, buf, sizeof buf), plain); /* no copy */
    assert_string_equal(tb_text_safe(NULL, buf, sizeof buf), "");
    assert_string_equal(tb_text_safe("a\x1b[2Jb", buf, sizeof buf), "a\\x1b[2Jb");
    /* exactly full: 15 characters and the NUL, no cut */
    assert_string_equal(tb_text_safe("\x1b"
                                     "23456789abc",
                                     buf, sizeof buf),
                        "\\x1b23456789abc");
    /* one more: cut with "...", never inside an escape or a character */
    const char *r = tb_text_safe("\x1b"
                                 "23456789abcd",
                                 buf, sizeof buf);
    assert_string_equal(r, "\\x1b23456789...");
    assert_true(strlen(r) < sizeof buf);
    r = tb_text_safe("\x1b\x1b\x1b\x1b", buf, 12); /* 16 bytes escaped, 11 fit */
    assert_string_equal(r, "\\x1b\\x1b...");
    r = tb_text_safe("\x1b"
                     "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9",
                     buf, 12);
    assert_string_equal(r, "\\x1b\xc3\xa9\xc3\xa9...");
    r = tb_text_safe("\x1b\x1b", buf, 4);
    assert_string_equal(r, "...");
    /* every prefix length: the result fits, is plain, and is a prefix of the full
       escape or that prefix's cut plus "..." */
    const char *s = "x\x1b\xc3\xa9\xe2\x80\xae\xff-end";
    char full[64];
    snprintf(full, sizeof full, "%s", "x\\x1b\xc3\xa9\\u202e\\xff-end");
    for (size_t len = 4; len < 40; len++) {
        char b[40];
        const char *o = tb_text_safe(s, b, len);
        size_t ol = strlen(o);
        assert_true(ol < len);
        assert_int_equal(tb_text_plain(o, ol), 1);
        if (strcmp(o, full)) {
            assert_true(ol >= 3 && !strcmp(o + ol - 3, "..."));
            assert_int_equal(strncmp(o, full, ol - 3), 0);
        }
    }
}

/* Every byte string of up to 3 bytes: the escape is plain, and unescaping the
   \x, \t, \n, \r and \u forms gives the input back (backslashes in the input are
   avoided: they pass unchanged and would make the reading ambiguous). */
static void test_exhaustive_short(void **state)
{
    (void)state;
    static const unsigned char bytes[] = {0x00, 0x09, 0x0a, 0x1b, 0x41, 0x7f, 0x80, 0x9b,
                                          0xa9, 0xbf, 0xc2, 0xc3, 0xe2, 0xed, 0xf0, 0xff};
    const size_t nb = sizeof bytes;
    for (size_t len = 1; len <= 3; len++) {
        size_t total = 1;
        for (size_t k = 0; k < len; k++)
            total *= nb;
        for (size_t idx = 0; idx < total; idx++) {
            unsigned char in[3];
            size_t v = idx;
            for (size_t k = 0; k < len; k++, v /= nb)
                in[k] = bytes[v % nb];
            char *e = esc_n((const char *)in, len);
            unsigned char back[32];
            size_t o = 0;
            for (const char *p = e; *p;) {
                if (p[0] == '\\' && p[1] == 'x') {
                    back[o++] = (unsigned char)strtoul((char[3]){p[2], p[3], 0}, NULL, 16);
                    p += 4;
                } else if (p[0] == '\\' && strchr("tnr", p[1])) {
                    back[o++] = p[1] == 't' ? '\t' : p[1] == 'n' ? '\n' : '\r';
                    p += 2;
                } else if (p[0] == '\\' && p[1] == 'u') {
                    unsigned cp = (unsigned)strtoul((char[5]){p[2], p[3], p[4], p[5], 0}, NULL, 16);
                    if (cp < 0x800) { /* C1 */
                        back[o++] = (unsigned char)(0xc0 | cp >> 6);
                    } else { /* U+2028, U+2029, a bidi control */
                        back[o++] = (unsigned char)(0xe0 | cp >> 12);
                        back[o++] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
                    }
                    back[o++] = (unsigned char)(0x80 | (cp & 0x3f));
                    p += 6;
                } else {
                    back[o++] = (unsigned char)*p++;
                }
            }
            assert_int_equal(o, len);
            assert_memory_equal(back, in, len);
            free(e);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_passes), cmocka_unit_test(test_controls),
        cmocka_unit_test(test_bidi),         cmocka_unit_test(test_not_utf8),
        cmocka_unit_test(test_safe),         cmocka_unit_test(test_exhaustive_short),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
