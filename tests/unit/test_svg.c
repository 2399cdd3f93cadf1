/* Unit tests for src/report/svg: scales (linear with negative, zero and single values,
 * log with zero/negative values and one or many decades, the percentile axis),
 * tick labels, number formatting, escaping, and the four charts with one series,
 * twenty series and one sample. Charts are checked for balanced tags (a small
 * well-formedness checker below), the count of their marks and escaped labels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/svg.h"
#include "svg_test_util.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void no_bad_numbers(const char *s)
{
    assert_null(strstr(s, "nan"));
    assert_null(strstr(s, "inf\""));
    assert_null(strstr(s, "=\"-inf"));
    assert_null(strstr(s, "width=\"-"));
    assert_null(strstr(s, "height=\"-"));
}

/* ---- scales ---- */

static void test_nice_step(void **state)
{
    (void)state;
    assert_float_equal(tb_svg_nice_step(7, 5), 1, 1e-12);
    assert_float_equal(tb_svg_nice_step(12, 5), 2, 1e-12);
    assert_float_equal(tb_svg_nice_step(162588, 5), 50000, 1e-6);
    assert_float_equal(tb_svg_nice_step(35, 5), 10, 1e-12);
    assert_float_equal(tb_svg_nice_step(0.011, 5), 0.002, 1e-15);
    assert_float_equal(tb_svg_nice_step(0, 5), 1, 0);
    assert_float_equal(tb_svg_nice_step(NAN, 5), 1, 0);
}

static void test_linear_fit_and_ticks(void **state)
{
    (void)state;
    tb_svg_scale s;
    tb_svg_scale_fit(&s, TB_SVG_LINEAR, 34952, 162588, 1, 100, 600);
    assert_float_equal(s.d0, 0, 0);
    assert_float_equal(s.d1, 200000, 1e-6);
    assert_float_equal(tb_svg_scale_map(&s, 0), 100, 1e-9);
    assert_float_equal(tb_svg_scale_map(&s, 100000), 350, 1e-9);
    assert_float_equal(tb_svg_scale_map(&s, 1e9), 600, 1e-9); /* clamped */
    tb_svg_tick t[TB_SVG_TICK_MAX];
    size_t n = tb_svg_ticks(&s, "req/s", t, 8);
    assert_int_equal(n, 5);
    assert_string_equal(t[0].label, "0");
    assert_string_equal(t[1].label, "50k");
    assert_string_equal(t[3].label, "150k");
    assert_string_equal(t[4].label, "200k");
    for (size_t i = 1; i < n; i++)
        assert_true(t[i].v > t[i - 1].v);

    /* fractions keep the decimals their step needs */
    tb_svg_scale_fit(&s, TB_SVG_LINEAR, 0, 1.1, 1, 0, 1);
    n = tb_svg_ticks(&s, "", t, 8);
    assert_true(n >= 3);
    assert_string_equal(t[1].label, "0.2");
    tb_svg_scale_fit(&s, TB_SVG_LINEAR, 0.2, 1.2, 0, 0, 1);
    n = tb_svg_ticks(&s, "", t, 12);
    assert_float_equal(s.d0, 0.2, 1e-12);
    assert_string_equal(t[1].label, "0.4");
}

static void test_linear_negative_and_zero(void **state)
{
    (void)state;
    tb_svg_scale s;
    tb_svg_tick t[TB_SVG_TICK_MAX];
    /* a range across zero */
    tb_svg_scale_fit(&s, TB_SVG_LINEAR, -3.2, 7.9, 1, 0, 110);
    assert_float_equal(s.d0, -4, 1e-12);
    assert_float_equal(s.d1, 8, 1e-12);
    size_t n = tb_svg_ticks(&s, "ms", t, 8);
    assert_int_equal(n, 7);
    assert_string_equal(t[0].label, "-4");
    assert_string_equal(t[2].label, "0");
    assert_float_equal(t[2].v, 0, 0);
    assert_float_equal(tb_svg_scale_map(&s, 0), 110.0 * 4 / 12, 1e-9);
    /* all negative, bars: zero on the right */
    tb_svg_scale_fit(&s, TB_SVG_LINEAR, -50, -10, 1, 0, 100);
    assert_float_equal(s.d1, 0, 0);
    assert_true(s.d0 <= -50);
    assert_float_equal(tb_svg_scale_map(&s, 0), 100, 1e-9);
    /* only zeros */
    tb_svg_scale_fit(&s, TB_SVG_LINEAR, 0, 0, 1, 0, 100);
    assert_float_equal(s.d0, 0, 0);
    assert_float_equal(s.d1, 1, 0);
    tb_svg_scale_fit(&s, TB_SVG_LINEAR, 0, 0, 0, 0, 100);
    assert_true(s.d0 < 0 && s.d1 > 0);
    /* one value: with zero -> [0, v]; without -> around it */
    tb_svg_scale_fit(&s, TB_SVG_LINEAR, 5, 5, 1, 0, 100);
    assert_float_equal(s.d0, 0, 0);
    assert_true(s.d1 >= 5);
    tb_svg_scale_fit(&s, TB_SVG_LINEAR, 5, 5, 0, 0, 100);
    assert_true(s.d0 < 5 && s.d1 > 5 && s.d0 >= 4 && s.d1 <= 6);
    n = tb_svg_ticks(&s, "", t, 8);
    assert_true(n >= 2);
    /* no usable bound, swapped bounds */
    tb_svg_scale_fit(&s, TB_SVG_LINEAR, NAN, INFINITY, 0, 0, 100);
    assert_float_equal(s.d0, 0, 0);
    assert_float_equal(s.d1, 1, 0);
    tb_svg_scale_fit(&s, TB_SVG_LINEAR, 10, 2, 0, 0, 100);
    assert_true(s.d0 <= 2 && s.d1 >= 10);
    assert_float_equal(tb_svg_scale_map(&s, NAN), 0, 0);
}

static void test_log_scale(void **state)
{
    (void)state;
    tb_svg_scale s;
    tb_svg_tick t[TB_SVG_TICK_MAX];
    /* rdtsc in ns next to cpuid in a TD: five decades, time labels */
    tb_svg_scale_fit(&s, TB_SVG_LOG, 20, 150000, 0, 0, 500);
    assert_float_equal(s.d0, 10, 1e-9);
    assert_float_equal(s.d1, 1e6, 1e-3);
    size_t n = tb_svg_ticks(&s, "ns", t, 8);
    assert_int_equal(n, 6);
    assert_string_equal(t[0].label, "10 ns");
    assert_string_equal(t[2].label, "1 \xc2\xb5s");
    assert_string_equal(t[4].label, "100 \xc2\xb5s");
    assert_string_equal(t[5].label, "1 ms");
    assert_float_equal(tb_svg_scale_map(&s, 1000), 200, 1e-9);
    /* zero and negative values: clamped to the left end, ignored by the fit */
    assert_float_equal(tb_svg_scale_map(&s, 0), 0, 0);
    assert_float_equal(tb_svg_scale_map(&s, -5), 0, 0);
    tb_svg_scale_fit(&s, TB_SVG_LOG, 0, 50, 0, 0, 100);
    assert_float_equal(s.d0, 10, 1e-9);
    assert_float_equal(s.d1, 100, 1e-9);
    tb_svg_scale_fit(&s, TB_SVG_LOG, -3, -1, 0, 0, 100);
    assert_float_equal(s.d0, 1, 0);
    assert_float_equal(s.d1, 10, 0);
    /* a value on a power of ten is not on the left end */
    tb_svg_scale_fit(&s, TB_SVG_LOG, 100, 100, 0, 0, 100);
    assert_float_equal(s.d0, 10, 1e-9);
    assert_float_equal(s.d1, 100, 1e-9);
    assert_true(tb_svg_scale_map(&s, 100) > 0);
    /* one decade: 1-2-5 ticks */
    n = tb_svg_ticks(&s, "", t, 8);
    assert_int_equal(n, 4);
    assert_string_equal(t[0].label, "10");
    assert_string_equal(t[1].label, "20");
    assert_string_equal(t[2].label, "50");
    assert_string_equal(t[3].label, "100");
    /* many decades: every k-th power, within max */
    tb_svg_scale_fit(&s, TB_SVG_LOG, 1e-3, 1e12, 0, 0, 100);
    n = tb_svg_ticks(&s, "B", t, 7);
    assert_true(n >= 2 && n <= 7);
    assert_string_equal(t[0].label, "0.001"); /* from 1e12 down in steps of 1000 */
    assert_string_equal(t[n - 1].label, "1T");
    /* times in other units */
    tb_svg_scale_fit(&s, TB_SVG_LOG, 0.5, 5000, 0, 0, 100);
    n = tb_svg_ticks(&s, "ms", t, 8);
    assert_string_equal(t[0].label, "100 \xc2\xb5s");
    assert_string_equal(t[n - 1].label, "10 s");
}

static void test_percentile_axis(void **state)
{
    (void)state;
    tb_svg_scale s;
    tb_svg_tick t[TB_SVG_TICK_MAX];
    tb_svg_scale_fit(&s, TB_SVG_PCTL, 50, 99.999, 0, 0, 470);
    assert_float_equal(s.d0, 50, 0);
    assert_float_equal(s.d1, 99.999, 1e-9);
    size_t n = tb_svg_ticks(&s, NULL, t, 9);
    const char *want[] = {"50%", "90%", "99%", "99.9%", "99.99%", "99.999%"};
    assert_int_equal(n, N(want));
    for (size_t i = 0; i < n; i++)
        assert_string_equal(t[i].label, want[i]);
    /* x = -log10(1 - p): 50 % at 0.301, 90 % at 1, 99.999 % at 5 */
    double x0 = log10(2);
    assert_float_equal(tb_svg_scale_map(&s, 50), 0, 1e-9);
    assert_float_equal(tb_svg_scale_map(&s, 90), 470 * (1 - x0) / (5 - x0), 1e-6);
    assert_float_equal(tb_svg_scale_map(&s, 99), 470 * (2 - x0) / (5 - x0), 1e-6);
    assert_float_equal(tb_svg_scale_map(&s, 99.999), 470, 1e-6);
    assert_float_equal(tb_svg_scale_map(&s, 100), 470, 0);
    /* up to p99 only: three ticks */
    tb_svg_scale_fit(&s, TB_SVG_PCTL, 50, 99, 0, 0, 100);
    n = tb_svg_ticks(&s, NULL, t, 9);
    assert_int_equal(n, 3);
    assert_string_equal(t[2].label, "99%");
    /* below the median: the axis starts at 0 % */
    tb_svg_scale_fit(&s, TB_SVG_PCTL, 25, 99.9, 0, 0, 100);
    assert_float_equal(s.d0, 0, 0);
    n = tb_svg_ticks(&s, NULL, t, 9);
    assert_string_equal(t[0].label, "0%");
    assert_string_equal(t[n - 1].label, "99.9%");
}

/* ---- numbers and text ---- */

static void test_fmt_num(void **state)
{
    (void)state;
    char b[64];
    struct {
        double v;
        const char *want;
    } cases[] = {
        {162588.4, "162,588"},
        {34952, "34,952"},
        {0.21496, "0.215"},
        {1, "1.00"},
        {999.7, "1,000"},
        {-1234.6, "-1,235"},
        {0, "0"},
        {12500.3, "12,500"},
        {0.00012345, "0.000123"},
        {9.996, "10.0"},
        {278, "278"},
        {25.48, "25.5"},
        {1234567890123.0, "1,234,567,890,123"},
        {1e300, "1e+300"},
        {-2.5e17, "-2.5e+17"},
    };
    for (size_t i = 0; i < N(cases); i++) {
        tb_svg_fmt_num(cases[i].v, b, sizeof b);
        assert_string_equal(b, cases[i].want);
    }
    tb_svg_fmt_num(NAN, b, sizeof b);
    assert_string_equal(b, "-");
    tb_svg_fmt_num(INFINITY, b, sizeof b);
    assert_string_equal(b, "-");
    char small[4];
    tb_svg_fmt_num(162588, small, sizeof small); /* cut, terminated */
    assert_int_equal(strlen(small), 3);
}

static void test_fmt_time(void **state)
{
    (void)state;
    char b[64];
    tb_svg_fmt_time(850, "ns", b, sizeof b);
    assert_string_equal(b, "850 ns");
    tb_svg_fmt_time(12345, "ns", b, sizeof b);
    assert_string_equal(b, "12.3 \xc2\xb5s");
    tb_svg_fmt_time(999.7, "ns", b, sizeof b);
    assert_string_equal(b, "1.00 \xc2\xb5s");
    tb_svg_fmt_time(1.5, "ms", b, sizeof b);
    assert_string_equal(b, "1.50 ms");
    tb_svg_fmt_time(1091, "ms", b, sizeof b);
    assert_string_equal(b, "1.09 s");
    tb_svg_fmt_time(3600, "s", b, sizeof b);
    assert_string_equal(b, "3,600 s");
    tb_svg_fmt_time(5, "req/s", b, sizeof b);
    assert_string_equal(b, "5.00 req/s");
    assert_true(tb_svg_is_time("us"));
    assert_false(tb_svg_is_time("index"));
    assert_false(tb_svg_is_time(NULL));
}

static char *escaped(const char *s)
{
    tb_buf b = {0};
    assert_int_equal(tb_svg_escape(&b, s), 0);
    return b.p ? (char *)b.p : strdup("");
}

static void test_escape(void **state)
{
    (void)state;
    char *e = escaped("<script>alert(1)</script>");
    assert_string_equal(e, "&lt;script&gt;alert(1)&lt;/script&gt;");
    free(e);
    e = escaped("a&b \"q\" 'x'");
    assert_string_equal(e, "a&amp;b &quot;q&quot; &#39;x&#39;");
    free(e);
    e = escaped("caf\xc3\xa9 \xc2\xb5s \xe2\x80\xa6 \xf0\x9f\x94\x92"); /* valid UTF-8 kept */
    assert_string_equal(e, "caf\xc3\xa9 \xc2\xb5s \xe2\x80\xa6 \xf0\x9f\x94\x92");
    free(e);
    e = escaped("a\xff"
                "b\x01"
                "c\tn\n"); /* invalid byte and control byte replaced */
    assert_string_equal(e, "a\xef\xbf\xbd"
                           "b\xef\xbf\xbd"
                           "c\tn\n");
    free(e);
    e = escaped(
        "\xc0\xaf|\xed\xa0\x80|\xe2\x82|\xef\xbf\xbf"); /* overlong, surrogate, cut, U+FFFF */
    assert_int_equal(count(e, "\xef\xbf\xbd"), 2 + 3 + 2 + 1);
    assert_null(strchr(e, '\xc0'));
    free(e);
    tb_buf b = {0};
    assert_int_equal(tb_svg_escape(&b, NULL), 0);
    assert_int_equal(b.len, 0);
    assert_int_equal(tb_svg_escape_cut(&b, "abcdef", 4), 0);
    assert_string_equal((char *)b.p, "abc\xe2\x80\xa6");
    tb_buf_reset(&b);
    assert_int_equal(tb_svg_escape_cut(&b, "\xc2\xb5\xc2\xb5\xc2\xb5\xc2\xb5<", 3), 0);
    assert_string_equal((char *)b.p, "\xc2\xb5\xc2\xb5\xe2\x80\xa6");
    tb_buf_reset(&b);
    assert_int_equal(tb_svg_escape_cut(&b, "<ab>", 4), 0);
    assert_string_equal((char *)b.p, "&lt;ab&gt;");
    tb_buf_clear(&b);
    assert_int_equal(tb_svg_strlen("\xc2\xb5s"), 2);
    assert_int_equal(tb_svg_strlen(NULL), 0);
}

/* ---- charts ---- */

static const char *names20[20] = {"host", "vm",  "tdx-guest", "sev-snp", "e4",  "e5",  "e6",
                                  "e7",   "e8",  "e9",        "e10",     "e11", "e12", "e13",
                                  "e14",  "e15", "e16",       "e17",     "e18", "e19"};

static void test_bars_one_and_twenty(void **state)
{
    (void)state;
    tb_svg_series s1 = {names20, 1};
    tb_svg_bar one[] = {{0, NULL, 162588, 160000, 165000, "baseline"}};
    tb_svg_bar_group g1 = {"http.nginx.rps", "req/s", "higher is better", 0, one, 1};
    tb_svg_frame f = {"c1", "bars", "Throughput", "desc", 0};
    tb_buf b = {0};
    assert_int_equal(tb_svg_bars(&b, &f, &s1, &g1, 1), 0);
    const char *o = (const char *)b.p;
    assert_true(well_formed(o));
    no_bad_numbers(o);
    assert_int_equal(count(o, "class=\"tb-bar "), 1);
    assert_non_null(strstr(o, ">host</text>"));
    assert_non_null(strstr(o, "162,588 req/s"));
    assert_non_null(strstr(o, "data-section=\"bars\""));
    assert_non_null(strstr(o, "id=\"c1-p0\""));
    assert_null(strstr(o, "xmlns")); /* inline */
    tb_buf_reset(&b);

    /* twenty environments, two metrics (one with a negative value and a missing one) */
    tb_svg_series s20 = {names20, 20};
    tb_svg_bar many[20], neg[20];
    for (size_t i = 0; i < 20; i++) {
        many[i] = (tb_svg_bar){i, NULL, 1000.0 * (double)(i + 1), NAN, NAN, NULL};
        neg[i] = (tb_svg_bar){i, NULL, (double)i - 5.0, (double)i - 6.0, (double)i - 4.0, NULL};
    }
    neg[7].value = NAN;
    tb_svg_bar_group g2[] = {{"a.rps", "req/s", NULL, 0, many, 20},
                             {"b.delta", "ms", "lower is better", 0, neg, 20}};
    f.standalone = 1;
    assert_int_equal(tb_svg_bars(&b, &f, &s20, g2, 2), 0);
    o = (const char *)b.p;
    assert_true(well_formed(o));
    no_bad_numbers(o);
    assert_int_equal(count(o, "class=\"tb-bar "), 39);
    assert_int_equal(count(o, "<pattern "), 20);
    assert_non_null(strstr(o, "url(#c1-p19)"));
    assert_non_null(strstr(o, "xmlns=\"http://www.w3.org/2000/svg\""));
    assert_non_null(strstr(o, "<style>"));
    assert_int_equal(count(o, ">no data</text>"), 1);
    assert_non_null(strstr(o, ">e19</text>"));
    /* the twenty bars get taller pictures than one */
    double h1 = 0, h20 = 0;
    tb_buf one_b = {0};
    f.standalone = 0;
    assert_int_equal(tb_svg_bars(&one_b, &f, &s1, &g1, 1), 0);
    assert_int_equal(sscanf(strstr((char *)one_b.p, "height=\""), "height=\"%lf", &h1), 1);
    assert_int_equal(sscanf(strstr(o, "height=\""), "height=\"%lf", &h20), 1);
    assert_true(h20 > h1 * 5);
    tb_buf_clear(&one_b);
    tb_buf_clear(&b);
}

static void test_bars_log_and_escape(void **state)
{
    (void)state;
    const char *names[] = {"<script>alert(1)</script>", "b&b"};
    tb_svg_series s = {names, 2};
    tb_svg_bar bars[] = {{0, NULL, 0, NAN, NAN, NULL}, {1, NULL, 500, 400, 600, "noisy"}};
    tb_svg_bar_group g = {"probe.<x>.ns", "ns", NULL, 1, bars, 2};
    tb_svg_frame f = {"c\"2", "probe", "<t>", "<d>", 0};
    tb_buf b = {0};
    assert_int_equal(tb_svg_bars(&b, &f, &s, &g, 1), 0);
    const char *o = (const char *)b.p;
    assert_true(well_formed(o));
    assert_null(strstr(o, "<script"));
    assert_non_null(strstr(o, "&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert_non_null(strstr(o, "b&amp;b"));
    assert_non_null(strstr(o, "probe.&lt;x&gt;.ns"));
    assert_non_null(strstr(o, "id=\"c&quot;2-p1\""));
    assert_non_null(strstr(o, "not on a log axis"));
    assert_int_equal(count(o, "class=\"tb-bar "), 1);
    assert_non_null(strstr(o, ">noisy</tspan>"));
    tb_buf_clear(&b);
}

static void test_lines_percentiles(void **state)
{
    (void)state;
    const double p[] = {50, 90, 99, 99.9, 99.99, 99.999};
    const double host[] = {0.9, 1.1, 1.5, 1.8, 3.1, 4.0};
    const double td[] = {1.2, 2.5, 4.4, NAN, 12.5, 20.1};
    const double td_u[] = {1.1, 2.2, 3.9, 7.5, 9.9, 15.0};
    tb_svg_series s = {names20, 3};
    tb_svg_curve c[] = {
        {0, NULL, 0, p, host, 6}, {2, NULL, 0, p, td, 6}, {2, "tdx (uncorrected)", 1, p, td_u, 6}};
    tb_svg_line_chart lc = {TB_SVG_PCTL, "percentile",          NULL, "latency", "ms",
                            -1,          "dashed: uncorrected", c,    3};
    tb_svg_frame f = {"c3", "latency", "HTTP latency", NULL, 0};
    tb_buf b = {0};
    assert_int_equal(tb_svg_lines(&b, &f, &s, &lc), 0);
    const char *o = (const char *)b.p;
    assert_true(well_formed(o));
    no_bad_numbers(o);
    assert_int_equal(count(o, "class=\"tb-pt "), 17); /* one NAN point skipped */
    assert_int_equal(count(o, "tb-dash"), 1);
    assert_non_null(strstr(o, ">99.999%</text>"));
    assert_non_null(strstr(o, ">50%</text>"));
    assert_non_null(strstr(o, "latency (ms)"));
    assert_non_null(strstr(o, ">tdx (uncorrected)</text>"));
    assert_non_null(strstr(o, "p99.9 = 1.80 ms"));
    assert_null(strstr(o, "log scale")); /* 20.1 / 0.9 < 30: linear */
    tb_buf_reset(&b);
    /* one point per curve, a single curve */
    tb_svg_curve one = {0, NULL, 0, p, host, 1};
    lc.curves = &one;
    lc.n = 1;
    lc.ylog = 1;
    assert_int_equal(tb_svg_lines(&b, &f, &s, &lc), 0);
    o = (const char *)b.p;
    assert_true(well_formed(o));
    no_bad_numbers(o);
    assert_int_equal(count(o, "class=\"tb-pt "), 1);
    assert_non_null(strstr(o, "log scale"));
    tb_buf_reset(&b);
    lc.n = 0;
    assert_int_equal(tb_svg_lines(&b, &f, &s, &lc), 0);
    assert_true(well_formed((char *)b.p));
    assert_non_null(strstr((char *)b.p, "no data"));
    tb_buf_clear(&b);
}

static void test_boxes_one_sample(void **state)
{
    (void)state;
    const double one[] = {1091};
    const double many[] = {1200, 1300, 1250, 1280, 1900, 1220, 1260, NAN};
    tb_svg_series s = {names20, 2};
    tb_svg_dist rows[] = {
        {0, "host \xc2\xb7 no_tee", one, 1}, {1, NULL, many, 8}, {1, "x", NULL, 0}};
    tb_svg_dist_group g[] = {{"notarization", "ms", rows, 3}, {"verify", "ms", NULL, 0}};
    tb_svg_frame f = {"c4", "notary", "Notary", NULL, 1};
    tb_buf b = {0};
    assert_int_equal(tb_svg_boxes(&b, &f, &s, g, 2), 0);
    const char *o = (const char *)b.p;
    assert_true(well_formed(o));
    no_bad_numbers(o);
    assert_int_equal(count(o, "class=\"tb-box "), 2);
    assert_int_equal(count(o, "class=\"tb-sample\""), 1 + 7);
    assert_non_null(strstr(o, "data-n=\"1\""));
    assert_non_null(strstr(o, "data-n=\"7\""));
    assert_non_null(strstr(o, "median 1,091 ms, n=1"));
    assert_non_null(strstr(o, "median 1,260 ms, n=7"));
    assert_int_equal(count(o, ">no data</text>"), 2);
    tb_buf_clear(&b);
}

static void test_dots_log(void **state)
{
    (void)state;
    tb_svg_series s = {names20, 20};
    tb_svg_dot cpuid[20], rdtsc[3] = {{0, 18, 17, 19}, {1, 0, NAN, NAN}, {2, 21, NAN, NAN}};
    for (size_t i = 0; i < 20; i++)
        cpuid[i] = (tb_svg_dot){i, 100.0 * (double)(i + 1), 90.0 * (double)(i + 1), NAN};
    cpuid[19].value = 150000; /* 150 us */
    tb_svg_dot_row rows[] = {{"cpuid", cpuid, 20}, {"rdtsc", rdtsc, 3}};
    tb_svg_dot_chart c = {"time per operation", "ns", 1, rows, 2};
    tb_svg_frame f = {"c5", "probes", "Probes", NULL, 0};
    tb_buf b = {0};
    assert_int_equal(tb_svg_dots(&b, &f, &s, &c), 0);
    const char *o = (const char *)b.p;
    assert_true(well_formed(o));
    no_bad_numbers(o);
    assert_int_equal(count(o, "class=\"tb-dot "), 20 + 2); /* the zero is not on a log axis */
    assert_int_equal(count(o, "class=\"tb-key "), 20);
    assert_non_null(strstr(o, ">100 \xc2\xb5s</text>"));
    assert_non_null(strstr(o, ">10 ns</text>"));
    assert_non_null(strstr(o, "time per operation (ns), log scale"));
    assert_non_null(strstr(o, "cpuid, e19: 150 \xc2\xb5s"));
    tb_buf_clear(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nice_step),
        cmocka_unit_test(test_linear_fit_and_ticks),
        cmocka_unit_test(test_linear_negative_and_zero),
        cmocka_unit_test(test_log_scale),
        cmocka_unit_test(test_percentile_axis),
        cmocka_unit_test(test_fmt_num),
        cmocka_unit_test(test_fmt_time),
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_bars_one_and_twenty),
        cmocka_unit_test(test_bars_log_and_escape),
        cmocka_unit_test(test_lines_percentiles),
        cmocka_unit_test(test_boxes_one_sample),
        cmocka_unit_test(test_dots_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
