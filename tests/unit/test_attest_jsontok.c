/* Unit tests for attest/common/jsontok: well-formed documents and their tokens, every kind of
 * malformed input refused (UTF-8 too), duplicate keys, escaped strings and their decoding,
 * the accessors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "attest/internal.h"
#include "attest_test_util.h"

/* Element i of array arr (walking the tokens' next links), or -1. */
static int elem(const tb_attest_jdoc *d, int arr, uint32_t i)
{
    if (arr < 0 || d->t[arr].type != TB_ATTEST_JARR || i >= d->t[arr].count)
        return -1;
    int k = arr + 1;
    while (i--)
        k = (int)d->t[k].next;
    return k;
}

static int ok(const char *s)
{
    tb_attest_jdoc d;
    tb_err e;
    int rc = tb_attest_json_tokenize(s, strlen(s), &d, &e);
    if (rc == 0)
        tb_attest_json_clear(&d);
    return rc == 0;
}

static void test_accepts_and_refuses(void **state)
{
    (void)state;
    const char *good[] = {"{}",
                          "[]",
                          " {\"a\" : [1, -2.5e+3, true, false, null, \"x\\u00e9\\n\"]} ",
                          "0",
                          "\"s\"",
                          "[[[]]]",
                          "{\"a\":{\"b\":{}}}",
                          "-0.0E1"};
    const char *bad[] = {"",       "{",       "{\"a\"}",   "{\"a\":}", "[1,]", "{\"a\":1,}",
                         "[1 2]",  "01",      "1.",        ".5",       "-",    "tru",
                         "nul",    "\"\\x\"", "\"\\u12\"", "\"a\nb\"", "{} x", "{\"a\":1}}",
                         "[\"a\"", "{1:2}",   "1e",        "+1",       "'a'"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        assert_true(ok(good[i]));
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (ok(bad[i]))
            fprintf(stderr, "accepted: %s\n", bad[i]);
        assert_false(ok(bad[i]));
    }
    /* Nesting deeper than 32 is refused. */
    char deep[100];
    memset(deep, '[', 40);
    memset(deep + 40, ']', 40);
    deep[80] = '\0';
    assert_false(ok(deep));
    memset(deep, '[', 20);
    memset(deep + 20, ']', 20);
    deep[40] = '\0';
    assert_true(ok(deep));
}

/* Regression (fuzz_collateral): key tokens had no `next`, breaking a walk over all tokens. */
static void test_every_token_has_next(void **state)
{
    (void)state;
    const char *s = "{\"Qgf\": \"0011\", \"a\": {\"b\": [1, {\"c\": null}]}}";
    tb_attest_jdoc d;
    tb_err e;
    assert_int_equal(tb_attest_json_tokenize(s, strlen(s), &d, &e), 0);
    for (int i = 0; i < d.count; i++) {
        assert_true(d.t[i].next > (uint32_t)i);
        assert_true(d.t[i].next <= (uint32_t)d.count);
    }
    assert_int_equal(d.t[1].next, 2); /* the key "Qgf" */
    tb_attest_json_clear(&d);
}

static void test_tokens_and_accessors(void **state)
{
    (void)state;
    const char *s = "{\"id\":\"TDX\",\"n\":[{\"svn\":1},{\"svn\":22}],\"e\":\"a\\\"b\",\"big\":-1,"
                    "\"d\":1,\"d\":2}";
    tb_attest_jdoc d;
    tb_err e;
    assert_int_equal(tb_attest_json_tokenize(s, strlen(s), &d, &e), 0);
    assert_int_equal(d.t[0].type, TB_ATTEST_JOBJ);
    assert_int_equal(d.t[0].count, 6);
    assert_int_equal(d.t[0].next, (uint32_t)d.count);
    const char *p;
    size_t n;
    int k = tb_attest_jobj_get(&d, 0, "id");
    assert_int_equal(tb_attest_jstr(&d, k, &p, &n), 0);
    assert_int_equal(n, 3);
    assert_memory_equal(p, "TDX", 3);
    int arr = tb_attest_jobj_get(&d, 0, "n");
    assert_int_equal(d.t[arr].count, 2);
    long v;
    assert_int_equal(tb_attest_juint(&d, tb_attest_jobj_get(&d, elem(&d, arr, 1), "svn"), 255, &v),
                     0);
    assert_int_equal(v, 22);
    assert_int_equal(tb_attest_juint(&d, tb_attest_jobj_get(&d, elem(&d, arr, 1), "svn"), 9, &v),
                     -1);
    assert_int_equal(d.t[arr].count, 2);
    assert_int_equal(tb_attest_jstr(&d, tb_attest_jobj_get(&d, 0, "e"), &p, &n), -1); /* escaped */
    assert_int_equal(tb_attest_juint(&d, tb_attest_jobj_get(&d, 0, "big"), 100, &v),
                     -1);                                 /* negative */
    assert_int_equal(tb_attest_jobj_get(&d, 0, "d"), -2); /* duplicate */
    assert_int_equal(tb_attest_jobj_get(&d, 0, "missing"), -1);
    assert_int_equal(tb_attest_jobj_get(&d, arr, "svn"), -1); /* not an object */
    tb_attest_json_clear(&d);
}

/* RFC 8259 wants UTF-8: well-formed sequences pass, the rest is refused. */
static void test_utf8(void **state)
{
    (void)state;
    const char *good[] = {"\"\xc3\xa9\"", "\"\xe2\x82\xac\"", "\"\xf0\x9f\x98\x80\"",
                          "\"\xef\xbf\xbf\"", "\"\xf4\x8f\xbf\xbf\""};
    const char *bad[] = {
        "\"\xc3\"",             /* truncated */
        "\"\xc0\xaf\"",         /* overlong */
        "\"\xe0\x80\xaf\"",     /* overlong */
        "\"\xed\xa0\x80\"",     /* a surrogate */
        "\"\xf4\x90\x80\x80\"", /* above U+10FFFF */
        "\"\xff\"",             /* never in UTF-8 */
        "\"\x80\"",             /* a lone continuation byte */
        "[\xc3\xa9]",           /* non-ASCII outside a string */
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        assert_true(ok(good[i]));
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(ok(bad[i]));
}

static void test_string_decoding(void **state)
{
    (void)state;
    const char *s =
        "[\"plain\", \"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\", \"\\u0041\\u00e9\\u20ac\", "
        "\"\\ud83d\\ude00!\", \"\\u0000\", \"\\ud800\", \"\\udc00\", \"\\ud800\\u0041\", "
        "\"\", 5]";
    tb_attest_jdoc d;
    tb_err e;
    assert_int_equal(tb_attest_json_tokenize(s, strlen(s), &d, &e), 0);
    char *out;
    size_t n;
    const char *p;
    /* No escapes: in place (jstr) or copied (jstr_dup). */
    int k = elem(&d, 0, 0);
    assert_int_equal(tb_attest_jstr(&d, k, &p, &n), 0);
    assert_int_equal(tb_attest_jstr_dup(&d, k, &out, &n), 0);
    assert_string_equal(out, "plain");
    free(out);
    /* Escapes: jstr refuses them, jstr_dup decodes them. */
    k = elem(&d, 0, 1);
    assert_int_equal(tb_attest_jstr(&d, k, &p, &n), -1);
    assert_int_equal(tb_attest_jstr_dup(&d, k, &out, &n), 0);
    assert_string_equal(out, "a\"b\\c/d\b\f\n\r\t");
    assert_int_equal(n, 12);
    free(out);
    k = elem(&d, 0, 2);
    assert_int_equal(tb_attest_jstr_dup(&d, k, &out, &n), 0);
    assert_string_equal(out, "A\xc3\xa9\xe2\x82\xac");
    free(out);
    k = elem(&d, 0, 3); /* a surrogate pair: one 4-byte character */
    assert_int_equal(tb_attest_jstr_dup(&d, k, &out, &n), 0);
    assert_string_equal(out, "\xf0\x9f\x98\x80!");
    free(out);
    for (uint32_t i = 4; i <= 7; i++) { /* NUL, lone or reversed surrogates */
        out = (char *)"untouched";
        assert_int_equal(tb_attest_jstr_dup(&d, elem(&d, 0, i), &out, &n), -1);
        assert_null(out);
    }
    assert_int_equal(tb_attest_jstr_dup(&d, elem(&d, 0, 8), &out, &n), 0);
    assert_int_equal(n, 0);
    assert_string_equal(out, "");
    free(out);
    assert_int_equal(tb_attest_jstr_dup(&d, elem(&d, 0, 9), &out, &n), -1);
    assert_int_equal(tb_attest_jstr_dup(&d, -1, &out, &n), -1);
    tb_attest_json_clear(&d);
}

/* An object's span runs from its brace to after its partner: the exact bytes. */
static void test_container_span(void **state)
{
    (void)state;
    const char *s = "{ \"k\" : {\"x\": \"}\\\"\"} , \"a\": [1, 2] }";
    tb_attest_jdoc d;
    tb_err e;
    assert_int_equal(tb_attest_json_tokenize(s, strlen(s), &d, &e), 0);
    int k = tb_attest_jobj_get(&d, 0, "k");
    assert_int_equal(d.t[k].type, TB_ATTEST_JOBJ);
    assert_int_equal(d.t[k].end - d.t[k].start, strlen("{\"x\": \"}\\\"\"}"));
    assert_memory_equal(s + d.t[k].start, "{\"x\": \"}\\\"\"}", d.t[k].end - d.t[k].start);
    k = tb_attest_jobj_get(&d, 0, "a");
    assert_memory_equal(s + d.t[k].start, "[1, 2]", d.t[k].end - d.t[k].start);
    assert_int_equal(d.t[0].start, 0);
    assert_int_equal(d.t[0].end, strlen(s));
    tb_attest_json_clear(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepts_and_refuses),
        cmocka_unit_test(test_tokens_and_accessors),
        cmocka_unit_test(test_utf8),
        cmocka_unit_test(test_string_decoding),
        cmocka_unit_test(test_container_span),
        cmocka_unit_test(test_every_token_has_next),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
