/* Unit tests for attest/jsontok: well-formed documents and their tokens, every kind of
 * malformed input refused, duplicate keys, escaped strings, the accessors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "attest/internal.h"
#include "attest_test_util.h"

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
    assert_int_equal(
        tb_attest_juint(&d, tb_attest_jobj_get(&d, tb_attest_jarr_get(&d, arr, 1), "svn"), 255, &v),
        0);
    assert_int_equal(v, 22);
    assert_int_equal(
        tb_attest_juint(&d, tb_attest_jobj_get(&d, tb_attest_jarr_get(&d, arr, 1), "svn"), 9, &v),
        -1);
    assert_int_equal(tb_attest_jarr_get(&d, arr, 2), -1);
    assert_int_equal(tb_attest_jstr(&d, tb_attest_jobj_get(&d, 0, "e"), &p, &n), -1); /* escaped */
    assert_int_equal(tb_attest_juint(&d, tb_attest_jobj_get(&d, 0, "big"), 100, &v),
                     -1);                                 /* negative */
    assert_int_equal(tb_attest_jobj_get(&d, 0, "d"), -2); /* duplicate */
    assert_int_equal(tb_attest_jobj_get(&d, 0, "missing"), -1);
    assert_int_equal(tb_attest_jobj_get(&d, arr, "svn"), -1); /* not an object */
    tb_attest_json_clear(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepts_and_refuses),
        cmocka_unit_test(test_tokens_and_accessors),
        cmocka_unit_test(test_every_token_has_next),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
