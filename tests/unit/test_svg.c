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
    tb_svg_curve c[] = {{0, NULL, 0, p, host, 6, NULL, NULL},
                        {2, NULL, 0, p, td, 6, NULL, NULL},
                        {2, "tdx (uncorrected)", 1, p, td_u, 6, NULL, NULL}};
    tb_svg_line_chart lc = {.xkind = TB_SVG_PCTL,
                            .xtitle = "percentile",
                            .ytitle = "latency",
                            .yunit = "ms",
                            .ylog = -1,
                            .dash_note = "dashed: uncorrected",
                            .curves = c,
                            .n = 3};
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
    tb_svg_curve one = {0, NULL, 0, p, host, 1, NULL, NULL};
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

/* ---- forest plot, stacks, sweeps ---- */

static size_t tick_labels(const tb_svg_scale *s, char *out, size_t n)
{
    tb_svg_tick t[TB_SVG_TICK_MAX];
    size_t k = tb_svg_ratio_ticks(s, t, TB_SVG_TICK_MAX);
    out[0] = 0;
    for (size_t i = 0; i < k; i++) {
        size_t o = strlen(out);
        snprintf(out + o, n - o, "%s%s", i ? " " : "", t[i].label);
    }
    return k;
}

static void test_ratio_axis(void **state)
{
    (void)state;
    tb_svg_scale s;
    char l[256];
    /* close to 1: the fine ratios, the domain holds 0.8 to 1.25 with a margin */
    tb_svg_ratio_fit(&s, 0.9, 1.05, 0, 300);
    assert_int_equal(s.kind, TB_SVG_LOG);
    assert_float_equal(s.d0, 0.8 / 1.12, 1e-12);
    assert_float_equal(s.d1, 1.25 * 1.12, 1e-12);
    assert_int_equal(tick_labels(&s, l, sizeof l), 5);
    assert_string_equal(l, "0.8\xc3\x97 0.9\xc3\x97 1\xc3\x97 1.1\xc3\x97 1.25\xc3\x97");
    /* the same span on a narrow axis: the fine ticks would touch */
    tb_svg_ratio_fit(&s, 0.9, 1.05, 0, 80);
    tick_labels(&s, l, sizeof l);
    assert_string_equal(l, "1\xc3\x97");
    /* a few decades: 2 and 0.5, 5 and 0.2 join the powers of ten where there is room */
    tb_svg_ratio_fit(&s, 0.19, 60, 0, 400);
    tick_labels(&s, l, sizeof l);
    assert_string_equal(
        l, "0.2\xc3\x97 0.5\xc3\x97 1\xc3\x97 2\xc3\x97 5\xc3\x97 10\xc3\x97 20\xc3\x97 "
           "50\xc3\x97");
    /* many decades: powers of ten */
    tb_svg_ratio_fit(&s, 0.01, 300, 0, 300);
    tick_labels(&s, l, sizeof l);
    assert_string_equal(l, "0.01\xc3\x97 0.1\xc3\x97 1\xc3\x97 10\xc3\x97 100\xc3\x97");
    /* clamped to [0.001, 1000]; nothing usable: around 1 */
    tb_svg_ratio_fit(&s, 1e-9, 1e9, 0, 300);
    assert_float_equal(s.d0, 1e-3, 1e-15);
    assert_float_equal(s.d1, 1e3, 1e-9);
    tb_svg_ratio_fit(&s, NAN, -1, 0, 300);
    assert_float_equal(s.d0, 0.8 / 1.12, 1e-12);
    tb_svg_ratio_fit(&s, 3, 2, 0, 300); /* swapped */
    assert_true(s.d0 < 1 && s.d1 > 3);
}

static void test_forest(void **state)
{
    (void)state;
    const char *names[] = {"host", "vm", "td <b>"};
    tb_svg_series s = {names, 3};
    tb_svg_forest_mark gm[] = {{1, 0.9, 0.85, 0.95, 0, 0, "0.9x [0.85, 0.95]", NULL},
                               {2, 0.4, 1e-6, 1e6, 0, 1, NULL, NULL}}; /* beyond both ends */
    tb_svg_forest_mark rps[] = {{1, 1.5, 1.4, 1.6, TB_SVG_V_BETTER, 0, "1.50x better", "tip <i>"},
                                {2, 0.5, 0.45, 0.55, TB_SVG_V_WORSE, 1, "0.500x worse", NULL}};
    tb_svg_forest_mark lat[] = {{1, 1.01, 0.97, 1.05, TB_SVG_V_SAME, 0, NULL, NULL},
                                {2, NAN, NAN, NAN, TB_SVG_V_NONE, 0, "not measured here", NULL}};
    tb_svg_forest_mark far[] = {{1, 5000, NAN, NAN, TB_SVG_V_NONE, 0, NULL, NULL},
                                {2, 0.98, NAN, NAN, TB_SVG_V_NONE, 0, NULL, NULL}};
    tb_svg_forest_row rows[] = {
        {TB_SVG_FOREST_HEADING, "Throughput \xc2\xb7 2 metrics", 0, NULL, 0},
        {TB_SVG_FOREST_SUMMARY, "geomean, higher better (2)", 1, gm, 2},
        {TB_SVG_FOREST_METRIC, "http.nginx.rps", 1, rps, 2},
        {TB_SVG_FOREST_METRIC, "http.nginx.latency.p99", -1, lat, 2},
        {TB_SVG_FOREST_HEADING, "Other \xc2\xb7 1 metric", 0, NULL, 0},
        {TB_SVG_FOREST_METRIC, "x.far", 0, far, 2},
    };
    tb_svg_forest_chart c = {"ratio to host", rows, N(rows)};
    tb_svg_frame f = {"c9", "overview", "Every metric", "desc", 0};
    tb_buf b = {0};
    assert_int_equal(tb_svg_forest(&b, &f, &s, &c), 0);
    const char *o = (const char *)b.p;
    assert_true(well_formed(o));
    no_bad_numbers(o);
    assert_int_equal(count(o, "class=\"tb-frow\" data-kind=\"metric\""), 3);
    assert_int_equal(count(o, "class=\"tb-frow\" data-kind=\"summary\""), 1);
    assert_int_equal(count(o, "class=\"tb-frow\" data-kind=\"heading\""), 2);
    assert_non_null(strstr(o, "data-label=\"http.nginx.rps\""));
    /* a marker per ratio (the missing one has none, its text says why), coloured by verdict */
    assert_int_equal(count(o, "class=\"tb-fm "), 2 + 2 + 1 + 2);
    assert_int_equal(count(o, "class=\"tb-fm tb-vb\""), 1);
    assert_int_equal(count(o, "class=\"tb-fm tb-vw\""), 1);
    assert_int_equal(count(o, "class=\"tb-fm tb-vs\""), 1);
    assert_int_equal(count(o, "class=\"tb-fm tb-vn\""), 2);
    assert_int_equal(count(o, "class=\"tb-fm tb-vg\""), 2); /* the summary's diamonds */
    assert_int_equal(count(o, "data-verdict=\"summary\""), 2);
    assert_non_null(strstr(o, "data-value=\"1.5\" data-verdict=\"better\" data-lo=\"1.3999"));
    assert_non_null(strstr(o, ">not measured here</text>"));
    assert_non_null(strstr(o, ">1.50x better</text>"));
    assert_non_null(strstr(o, ">1.01\xc3\x97</text>")); /* no text: the ratio */
    assert_non_null(strstr(o, "<title>vm: tip &lt;i&gt;</title>"));
    assert_non_null(strstr(o, "<title>td &lt;b&gt;: 0.500x worse</title>"));
    /* SIMULATED said in the text, its whisker dashed */
    assert_int_equal(count(o, ">SIMULATED</tspan>"), 2);
    assert_int_equal(count(o, "class=\"tb-fw tb-dash\""), 1);
    assert_int_equal(count(o, "class=\"tb-fw\""), 2);
    /* the better sides: three rows with a direction, and the key's swatch */
    assert_int_equal(count(o, "<rect class=\"tb-side\""), 3 + 1);
    assert_int_equal(count(o, "<title>http.nginx.latency.p99: lower is better</title>"), 1);
    assert_null(strstr(o, "x.far: "));
    /* the line at 1, ticks above and below the rows, arrows past the ends */
    assert_int_equal(count(o, "class=\"tb-one\""), 1);
    assert_int_equal(count(o, ">1\xc3\x97</text>"), 2);
    assert_non_null(strstr(o, "ratio to host, log scale"));
    assert_int_equal(count(o, "l7.0,-4v8z"), 1);  /* the summary's low end */
    assert_int_equal(count(o, "l-7.0,-4v8z"), 2); /* its high end, and 5000 */
    /* the key: the environments with marks (not the baseline), the verdicts */
    assert_null(strstr(o, ">host</text>"));
    assert_non_null(strstr(o, ">td &lt;b&gt;</text>"));
    assert_non_null(strstr(o, ">no significant difference</text>"));
    assert_non_null(strstr(o, ">geometric mean</text>"));
    /* several environments: each line of text starts with its shape */
    /* (the key: two shapes and the hollow circle; then one a line of text) */
    assert_int_equal(count(o, "class=\"tb-key tb-vs\""), 3 + 8);
    double h_small = 0;
    assert_int_equal(sscanf(strstr(o, "height=\""), "height=\"%lf", &h_small), 1);
    tb_buf_reset(&b);

    /* sixty rows, one environment: every row drawn, the picture grows with them */
    tb_svg_forest_row many[60];
    tb_svg_forest_mark one[60];
    char labels[60][32];
    for (size_t i = 0; i < 60; i++) {
        one[i] =
            (tb_svg_forest_mark){1, 0.5 + (double)i / 30, NAN, NAN, TB_SVG_V_SAME, 0, NULL, NULL};
        snprintf(labels[i], sizeof labels[i], "m.%02zu.rps", i);
        many[i] = (tb_svg_forest_row){TB_SVG_FOREST_METRIC, labels[i], 1, &one[i], 1};
    }
    tb_svg_series s2 = {names, 2};
    tb_svg_forest_chart c60 = {"ratio to host", many, 60};
    f.standalone = 1;
    assert_int_equal(tb_svg_forest(&b, &f, &s2, &c60), 0);
    o = (const char *)b.p;
    assert_true(well_formed(o));
    no_bad_numbers(o);
    assert_int_equal(count(o, "class=\"tb-frow\" data-kind=\"metric\""), 60);
    assert_int_equal(count(o, "class=\"tb-fm "), 60);
    assert_non_null(strstr(o, ">m.59.rps</text>"));
    assert_null(strstr(o, "class=\"tb-key tb-vs\" stroke-width=\"1.2\"")); /* one: no shapes */
    assert_non_null(strstr(o, "xmlns="));
    double h = 0;
    assert_int_equal(sscanf(strstr(o, "height=\""), "height=\"%lf", &h), 1);
    assert_true(h > 60 * 20 && h > h_small * 2);
    tb_buf_reset(&b);

    /* nothing at all */
    tb_svg_forest_chart none = {"ratio", NULL, 0};
    assert_int_equal(tb_svg_forest(&b, &f, &s2, &none), 0);
    assert_true(well_formed((char *)b.p));
    assert_non_null(strstr((char *)b.p, ">no data</text>"));
    tb_buf_clear(&b);
}

static void test_stacks(void **state)
{
    (void)state;
    const char *const parts[] = {"firmware", "kernel", "userspace", "ssh <x>"};
    const double a[] = {1, 2, 3, 4}, b2[] = {2, NAN, 3, 5}, c[] = {NAN, NAN, NAN, NAN};
    tb_svg_stack rows[] = {
        {0, NULL, a, "whole 11 s"}, {1, "vm \xc2\xb7 mem_8gib", b2, NULL}, {2, NULL, c, NULL}};
    tb_svg_series s = {names20, 3};
    tb_svg_stack_chart sc = {"median time", "s", parts, 4, rows, 3};
    tb_svg_frame f = {"c7", "phases", "Boot phases", NULL, 0};
    tb_buf b = {0};
    assert_int_equal(tb_svg_stacks(&b, &f, &s, &sc), 0);
    const char *o = (const char *)b.p;
    assert_true(well_formed(o));
    no_bad_numbers(o);
    assert_int_equal(count(o, "class=\"tb-seg\""), 4 + 3);
    assert_int_equal(count(o, "<pattern "), 4);
    assert_int_equal(count(o, "data-part=\"3\""), 2);
    assert_non_null(strstr(o, ">10.0 s <tspan class=\"tb-m\">whole 11 s</tspan></text>"));
    assert_non_null(strstr(o, ">10.0 s (3 of 4)</text>"));
    assert_non_null(strstr(o, ">no data</text>"));
    assert_non_null(strstr(o, ">ssh &lt;x&gt;</text>"));
    assert_non_null(strstr(o, ">vm \xc2\xb7 mem_8gib</text>"));
    assert_non_null(strstr(o, "host: userspace 3.00 s"));
    assert_non_null(strstr(o, "median time (s)"));
    /* segments in order: the second starts where the first ends */
    const char *s1 = strstr(o, "data-series=\"0\" data-part=\"0\"");
    assert_non_null(s1);
    tb_buf_clear(&b);
}

static void test_lines_sweep(void **state)
{
    (void)state;
    double x[19], y0[19], y1[19], lo[19], hi[19];
    tb_svg_tick t[19];
    for (size_t i = 0; i < 19; i++) {
        x[i] = 4096.0 * pow(2, (double)i); /* 4 KiB .. 1 GiB */
        y0[i] = 1 + (double)i;
        y1[i] = 1.2 + 1.5 * (double)i;
        lo[i] = y0[i] * 0.95;
        hi[i] = y0[i] * 1.05;
        t[i].v = x[i];
        tb_svg_fmt_bytes(x[i], t[i].label, sizeof t[i].label);
    }
    lo[3] = NAN; /* a point without an interval */
    tb_svg_curve c[] = {{0, NULL, 0, x, y0, 19, lo, hi}, {1, NULL, 0, x, y1, 19, NULL, NULL}};
    tb_svg_line_chart lc = {.xkind = TB_SVG_LOG,
                            .xtitle = "working set",
                            .ytitle = "median",
                            .yunit = "ns",
                            .ylog = 0,
                            .curves = c,
                            .n = 2,
                            .xticks = t,
                            .n_xticks = 19};
    tb_svg_series s = {names20, 2};
    tb_svg_frame f = {"c8", "sweeps", "latency by working set", NULL, 0};
    tb_buf b = {0};
    assert_int_equal(tb_svg_lines(&b, &f, &s, &lc), 0);
    const char *o = (const char *)b.p;
    assert_true(well_formed(o));
    no_bad_numbers(o);
    assert_int_equal(count(o, "class=\"tb-pt "), 38);
    assert_int_equal(count(o, "class=\"tb-wk tb-s0\""), 18);
    assert_non_null(strstr(o, "working set, log scale"));
    assert_non_null(strstr(o, "host: 4 KiB = 1.00 ns [0.950, 1.05]"));
    assert_non_null(strstr(o, "vm: 1 GiB = 28.2 ns"));
    /* the ticks are the caller's, thinned so their labels do not touch */
    size_t shown = count(o, " KiB</text>") + count(o, " MiB</text>") + count(o, " GiB</text>");
    assert_true(shown >= 4 && shown < 19);
    assert_non_null(strstr(o, ">4 KiB</text>"));
    assert_null(strstr(o, ">10k</text>")); /* not the log scale's own ticks */
    tb_buf_reset(&b);
    /* a linear sweep (queue depths), and a log one without ticks falls back to linear */
    double qd[] = {1, 2, 4, 8}, iops[] = {10e3, 19e3, 35e3, 60e3};
    tb_svg_tick tq[4];
    for (size_t i = 0; i < 4; i++) {
        tq[i].v = qd[i];
        snprintf(tq[i].label, sizeof tq[i].label, "%g", qd[i]);
    }
    tb_svg_curve one = {0, NULL, 0, qd, iops, 4, NULL, NULL};
    lc.xkind = TB_SVG_LINEAR;
    lc.curves = &one;
    lc.n = 1;
    lc.xticks = tq;
    lc.n_xticks = 4;
    lc.xtitle = "queue depth";
    assert_int_equal(tb_svg_lines(&b, &f, &s, &lc), 0);
    o = (const char *)b.p;
    assert_true(well_formed(o));
    assert_non_null(strstr(o, ">8</text>"));
    assert_non_null(strstr(o, "host: 8 = 60,000 ns"));
    assert_null(strstr(o, "queue depth, log scale"));
    tb_buf_reset(&b);
    lc.xkind = TB_SVG_LOG;
    lc.xticks = NULL;
    lc.n_xticks = 0;
    assert_int_equal(tb_svg_lines(&b, &f, &s, &lc), 0);
    o = (const char *)b.p;
    assert_true(well_formed(o));
    assert_null(strstr(o, "log scale"));
    tb_buf_clear(&b);
}

static void test_fmt_bytes(void **state)
{
    (void)state;
    static const struct {
        double v;
        const char *s;
    } want[] = {{0, "0 B"},
                {512, "512 B"},
                {1000, "1,000 B"},
                {4096, "4 KiB"},
                {1536.0 * 1024, "1.5 MiB"},
                {1073741824.0, "1 GiB"},
                {65536, "64 KiB"},
                {3.5 * 1099511627776.0, "3.5 TiB"}};
    char out[32];
    for (size_t i = 0; i < N(want); i++) {
        tb_svg_fmt_bytes(want[i].v, out, sizeof out);
        assert_string_equal(out, want[i].s);
    }
    tb_svg_fmt_bytes(NAN, out, sizeof out);
    assert_string_equal(out, "-");
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
        cmocka_unit_test(test_ratio_axis),
        cmocka_unit_test(test_forest),
        cmocka_unit_test(test_stacks),
        cmocka_unit_test(test_lines_sweep),
        cmocka_unit_test(test_fmt_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
