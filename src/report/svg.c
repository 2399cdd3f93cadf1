/* svg: scales, ticks, escaping and the six chart kinds of the report (see svg.h).
 * Layout is computed before anything is written (the <svg> element's height is in
 * its first line); coordinates are written with one decimal. Appends are OR-ed into
 * one status per chart: any -1 (out of memory) makes the chart's result -1. Bars and
 * boxes are drawn in panels of one shape (panel_h, panel_head); a key that wraps is laid
 * out and drawn by one function called twice (out NULL: layout only). */
#include "report/svg.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/summary.h"

#define N_COLOURS 8
#define N_PATTERNS 8
#define N_SHAPES 6
#define LABEL_MAX_CHARS 34
#define CHAR_W 6.6    /* average width of a 12 px sans-serif character, for layout */
#define STRIP_MAX 400 /* samples drawn as dots per box row (evenly picked above) */

/* ---------------------------------------------------------------- scales */

double tb_svg_nice_step(double span, int target)
{
    if (!(span > 0) || !isfinite(span) || target < 1)
        return 1;
    double raw = span / target;
    double mag = pow(10, floor(log10(raw)));
    double f = raw / mag;
    double nice = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
    return nice * mag;
}

static double pctl_x(double p)
{
    if (p >= 100)
        return INFINITY;
    if (p <= 0)
        return 0;
    return -log10(1 - p / 100);
}

/* percent with k nines: 1 -> 90, 2 -> 99, 3 -> 99.9 */
static double nines_pct(int k)
{
    return 100 - 100 * pow(10, -k);
}

static void fit_linear(tb_svg_scale *s, double lo, double hi, int include_zero)
{
    int has_lo = isfinite(lo), has_hi = isfinite(hi);
    if (!has_lo && !has_hi) {
        lo = 0;
        hi = 1;
    } else if (!has_lo) {
        lo = hi;
    } else if (!has_hi) {
        hi = lo;
    }
    if (lo > hi) {
        double t = lo;
        lo = hi;
        hi = t;
    }
    if (include_zero) {
        lo = fmin(lo, 0);
        hi = fmax(hi, 0);
    }
    if (hi - lo <= fabs(hi) * 1e-12) { /* one value (or equal ones) */
        double pad = lo == 0 ? 1 : fabs(lo) * 0.1;
        if (include_zero && lo == 0)
            hi = 1;
        else if (include_zero && lo > 0)
            lo = 0;
        else if (include_zero)
            hi = 0;
        else {
            lo -= pad;
            hi += pad;
        }
    }
    double step = tb_svg_nice_step(hi - lo, 5);
    s->d0 = floor(lo / step + 1e-9) * step;
    s->d1 = ceil(hi / step - 1e-9) * step;
    if (s->d1 <= s->d0)
        s->d1 = s->d0 + step;
}

static void fit_log(tb_svg_scale *s, double lo, double hi)
{
    int has_lo = isfinite(lo) && lo > 0, has_hi = isfinite(hi) && hi > 0;
    if (!has_lo && !has_hi) {
        s->d0 = 1;
        s->d1 = 10;
        return;
    }
    if (!has_lo)
        lo = hi;
    if (!has_hi)
        hi = lo;
    if (lo > hi) {
        double t = lo;
        lo = hi;
        hi = t;
    }
    /* a value exactly on a power of ten gets the decade below it, so a bar or a dot
       never sits on the axis' left end */
    double a = floor(log10(lo) - 1e-9), b = ceil(log10(hi) - 1e-9);
    if (b <= a)
        b = a + 1;
    if (a < -300)
        a = -300;
    if (b > 300)
        b = 300;
    s->d0 = pow(10, a);
    s->d1 = pow(10, b);
}

static void fit_pctl(tb_svg_scale *s, double lo, double hi)
{
    if (!isfinite(lo) || lo < 0)
        lo = 50;
    if (!isfinite(hi))
        hi = 99;
    if (lo > hi) {
        double t = lo;
        lo = hi;
        hi = t;
    }
    s->d0 = lo >= 50 ? 50 : 0;
    int k = hi >= 100 ? 7 : (int)ceil(pctl_x(hi) - 1e-9);
    if (k < 1)
        k = 1;
    if (k > 7)
        k = 7;
    s->d1 = nines_pct(k);
}

void tb_svg_scale_fit(tb_svg_scale *s, enum tb_svg_kind kind, double lo, double hi,
                      int include_zero, double r0, double r1)
{
    s->kind = kind;
    s->r0 = r0;
    s->r1 = r1;
    if (kind == TB_SVG_LOG)
        fit_log(s, lo, hi);
    else if (kind == TB_SVG_PCTL)
        fit_pctl(s, lo, hi);
    else
        fit_linear(s, lo, hi, include_zero);
}

double tb_svg_scale_map(const tb_svg_scale *s, double v)
{
    double t;
    if (s->kind == TB_SVG_LOG) {
        if (!(v > 0))
            return s->r0;
        t = (log10(v) - log10(s->d0)) / (log10(s->d1) - log10(s->d0));
    } else if (s->kind == TB_SVG_PCTL) {
        double x0 = pctl_x(s->d0), x1 = pctl_x(s->d1), x = pctl_x(v);
        t = isinf(x) ? 1 : (x - x0) / (x1 - x0);
    } else {
        t = (v - s->d0) / (s->d1 - s->d0);
    }
    if (!(t >= 0)) /* also NAN */
        t = 0;
    if (t > 1)
        t = 1;
    return s->r0 + t * (s->r1 - s->r0);
}

/* ---------------------------------------------------------------- numbers */

static const char *time_units[] = {"ns", "us", "ms", "s"};

int tb_svg_is_time(const char *unit)
{
    if (!unit)
        return 0;
    for (size_t i = 0; i < 4; i++)
        if (!strcmp(unit, time_units[i]))
            return 1;
    return 0;
}

/* out = a b c, cut to len - 1 bytes (labels are short; a cut is only cosmetic). */
static void join3(char *out, size_t len, const char *a, const char *b, const char *c)
{
    size_t o = 0;
    const char *parts[3] = {a, b, c};
    for (size_t i = 0; i < 3; i++)
        for (const char *p = parts[i]; p && *p && o + 1 < len; p++)
            out[o++] = *p;
    if (len)
        out[o] = 0;
}

static void strip_zeros(char *s)
{
    char *dot = strchr(s, '.');
    if (!dot)
        return;
    char *end = s + strlen(s);
    while (end > dot + 1 && end[-1] == '0')
        *--end = 0;
    if (end == dot + 1)
        *dot = 0;
}

static void group_thousands(const char *digits, char *out, size_t len)
{
    /* digits: optional '-' then decimal digits */
    size_t o = 0, n = strlen(digits), start = digits[0] == '-';
    if (start && o + 1 < len)
        out[o++] = '-';
    for (size_t i = start; i < n && o + 1 < len; i++) {
        out[o++] = digits[i];
        size_t left = n - i - 1;
        if (left && left % 3 == 0 && o + 1 < len)
            out[o++] = ',';
    }
    out[o] = 0;
}

/* 3 significant digits; strip: drop trailing zeros ("1.00" -> "1"). */
static void fmt_sig(double v, int strip, char *out, size_t len)
{
    if (!isfinite(v)) {
        snprintf(out, len, "-");
        return;
    }
    if (v == 0) {
        snprintf(out, len, "0");
        return;
    }
    double a = fabs(v);
    int e = (int)floor(log10(a));
    if (floor(a / pow(10, e - 2) + 0.5) >= 1000)
        e++;
    if (e >= 15) { /* past a quadrillion, digits stop helping anyone */
        snprintf(out, len, "%.3g", v);
        return;
    }
    if (e >= 3) {
        char digits[48];
        snprintf(digits, sizeof digits, "%.0f", v);
        group_thousands(digits, out, len);
        return;
    }
    int dec = 2 - e;
    if (dec > 12) {
        snprintf(out, len, "%.3g", v);
        return;
    }
    snprintf(out, len, "%.*f", dec, v);
    if (strip)
        strip_zeros(out);
}

void tb_svg_fmt_num(double v, char *out, size_t len)
{
    fmt_sig(v, 0, out, len);
}

double tb_svg_to_ns(double v, const char *unit)
{
    if (!strcmp(unit, "us"))
        return v * 1e3;
    if (!strcmp(unit, "ms"))
        return v * 1e6;
    if (!strcmp(unit, "s"))
        return v * 1e9;
    return v;
}

static void fmt_time(double v, const char *unit, int strip, char *out, size_t len)
{
    if (!tb_svg_is_time(unit) || !isfinite(v)) {
        char num[48];
        fmt_sig(v, strip, num, sizeof num);
        join3(out, len, num, unit && *unit ? " " : "", unit);
        return;
    }
    double ns = tb_svg_to_ns(v, unit), a = fabs(ns);
    static const char *const shown[] = {"ns", "\xc2\xb5s", "ms", "s"};
    int u = 0;
    double div = 1;
    /* round to 3 significant digits first, so 999.7 ns is "1.00 us", not "1,000 ns" */
    if (a > 0) {
        int e = (int)floor(log10(a));
        double r = floor(a / pow(10, e - 2) + 0.5) * pow(10, e - 2);
        while (u < 3 && r >= div * 1000) {
            div *= 1000;
            u++;
        }
    }
    char num[48];
    fmt_sig(ns / div, strip, num, sizeof num);
    join3(out, len, num, " ", shown[u]);
}

void tb_svg_fmt_time(double v, const char *unit, char *out, size_t len)
{
    fmt_time(v, unit, 0, out, len);
}

/* A tick label: compact, decimals enough for the step, SI suffix from 1000. */
static void fmt_compact(double v, double step, char *out, size_t len)
{
    if (fabs(v) < fabs(step) * 1e-9 || v == 0) {
        snprintf(out, len, "0");
        return;
    }
    static const struct {
        double div;
        const char *suffix;
    } si[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}};
    if (fabs(v) >= 1e15) {
        snprintf(out, len, "%.3g", v);
        return;
    }
    size_t k = 0;
    while (k + 1 < sizeof si / sizeof si[0] && fabs(v) < si[k].div)
        k++;
    double sv = v / si[k].div, st = fabs(step) / si[k].div;
    if (!(st > 0) || st < 1e-6) {
        snprintf(out, len, "%.3g%s", sv, si[k].suffix);
        return;
    }
    int dec = 1 - (int)floor(log10(st));
    if (dec < 0)
        dec = 0;
    if (dec > 6)
        dec = 6;
    char num[48];
    snprintf(num, sizeof num, "%.*f", dec, sv);
    strip_zeros(num);
    join3(out, len, num, si[k].suffix, NULL);
}

static void pctl_label(double p, char *out, size_t len)
{
    char num[32];
    snprintf(num, sizeof num, "%.6f", p);
    strip_zeros(num);
    join3(out, len, num, "%", NULL);
}

size_t tb_svg_ticks(const tb_svg_scale *s, const char *unit, tb_svg_tick *out, size_t max)
{
    if (max > TB_SVG_TICK_MAX)
        max = TB_SVG_TICK_MAX;
    if (max < 2)
        return 0;
    size_t n = 0;
    if (s->kind == TB_SVG_PCTL) {
        if (s->d0 < 50 && n < max) {
            out[n].v = 0;
            pctl_label(0, out[n].label, sizeof out[n].label);
            n++;
        }
        if (n < max) {
            out[n].v = 50;
            pctl_label(50, out[n].label, sizeof out[n].label);
            n++;
        }
        for (int k = 1; k <= 7 && n < max; k++) {
            double p = nines_pct(k);
            if (p > s->d1 * (1 + 1e-12))
                break;
            out[n].v = p;
            pctl_label(p, out[n].label, sizeof out[n].label);
            n++;
        }
        return n;
    }
    if (s->kind == TB_SVG_LOG) {
        int a = (int)lround(log10(s->d0)), b = (int)lround(log10(s->d1));
        int decades = b - a, every = 1;
        int time = tb_svg_is_time(unit);
        if (decades == 1) { /* 1, 2, 5, 10 */
            static const double m[] = {1, 2, 5, 10};
            for (size_t i = 0; i < 4 && n < max; i++, n++) {
                out[n].v = m[i] * s->d0;
                if (time)
                    fmt_time(out[n].v, unit, 1, out[n].label, sizeof out[n].label);
                else
                    fmt_compact(out[n].v, out[n].v, out[n].label, sizeof out[n].label);
            }
            return n;
        }
        while ((decades + every - 1) / every + 1 > (int)max)
            every++;
        /* every k-th power down from the top end, listed in ascending order */
        int first = b - (decades / every) * every;
        for (int e = first; e <= b && n < max; e += every, n++) {
            out[n].v = pow(10, e);
            if (time)
                fmt_time(out[n].v, unit, 1, out[n].label, sizeof out[n].label);
            else
                fmt_compact(out[n].v, out[n].v, out[n].label, sizeof out[n].label);
        }
        return n;
    }
    double span = s->d1 - s->d0, step = 0;
    for (int target = 5; target >= 1; target--) {
        step = tb_svg_nice_step(span, target);
        if (floor(s->d1 / step + 1e-9) - ceil(s->d0 / step - 1e-9) + 1 <= (double)max)
            break;
    }
    double first = ceil(s->d0 / step - 1e-9);
    for (double i = first; n < max; i++) {
        double v = i * step;
        if (v > s->d1 + step * 1e-9)
            break;
        if (fabs(v) < step * 1e-9)
            v = 0;
        out[n].v = v;
        fmt_compact(v, step, out[n].label, sizeof out[n].label);
        n++;
    }
    return n;
}

/* ---------------------------------------------------------------- text */

/* Length of the valid UTF-8 sequence at s (1..4) and its code point, or 0 when the
   bytes there are not valid UTF-8 (overlong, surrogate, beyond U+10FFFF, cut). */
static size_t utf8_seq(const unsigned char *s, size_t avail, uint32_t *cp)
{
    unsigned char c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t n;
    uint32_t v;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        v = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        v = c & 0x0f;
        if (c == 0xe0)
            lo = 0xa0;
        if (c == 0xed)
            hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        v = c & 0x07;
        if (c == 0xf0)
            lo = 0x90;
        if (c == 0xf4)
            hi = 0x8f;
    } else {
        return 0;
    }
    if (avail < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        unsigned char d = s[i];
        if (d < (i == 1 ? lo : 0x80) || d > (i == 1 ? hi : 0xbf))
            return 0;
        v = v << 6 | (d & 0x3f);
    }
    *cp = v;
    return n;
}

static int escape_n(tb_buf *out, const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, run = 0; /* run: bytes since i that need no change */
    int rc = 0;
    while (i + run < len) {
        const unsigned char *p = s + i + run;
        uint32_t cp = 0;
        size_t n = utf8_seq(p, len - i - run, &cp);
        const char *rep = NULL;
        if (n == 0 || (cp < 0x20 && cp != '\t' && cp != '\n') || cp == 0x7f || cp == 0xfffe ||
            cp == 0xffff)
            rep = "\xef\xbf\xbd";
        else if (cp == '&')
            rep = "&amp;";
        else if (cp == '<')
            rep = "&lt;";
        else if (cp == '>')
            rep = "&gt;";
        else if (cp == '"')
            rep = "&quot;";
        else if (cp == '\'')
            rep = "&#39;";
        if (!rep) {
            run += n;
            continue;
        }
        rc |= tb_buf_append(out, s + i, run);
        rc |= tb_buf_puts(out, rep);
        i += run + (n ? n : 1);
        run = 0;
    }
    rc |= tb_buf_append(out, s + i, run);
    return rc ? -1 : 0;
}

int tb_svg_escape(tb_buf *out, const char *s)
{
    return s ? escape_n(out, s, strlen(s)) : 0;
}

/* Byte offset after the first k characters of s (an invalid byte counts as one). */
static size_t utf8_prefix(const char *s, size_t len, size_t k, size_t *chars)
{
    size_t i = 0, c = 0;
    while (i < len && c < k) {
        uint32_t cp;
        size_t n = utf8_seq((const unsigned char *)s + i, len - i, &cp);
        i += n ? n : 1;
        c++;
    }
    if (chars)
        *chars = c;
    return i;
}

size_t tb_svg_strlen(const char *s)
{
    size_t chars = 0;
    if (s)
        utf8_prefix(s, strlen(s), SIZE_MAX, &chars);
    return chars;
}

int tb_svg_escape_cut(tb_buf *out, const char *s, size_t max_chars)
{
    if (!s)
        return 0;
    size_t len = strlen(s);
    if (max_chars == 0 || tb_svg_strlen(s) <= max_chars)
        return escape_n(out, s, len);
    size_t cut = utf8_prefix(s, len, max_chars - 1, NULL);
    int rc = escape_n(out, s, cut);
    rc |= tb_buf_puts(out, "\xe2\x80\xa6");
    return rc ? -1 : 0;
}

/* ---------------------------------------------------------------- style */

const char *tb_svg_css(void)
{
    return ":root{--tb-fg:#1b1d21;--tb-bg:#ffffff;--tb-muted:#5a5f69;--tb-grid:#d5d8de;"
           "--tb-c0:#0072b2;--tb-c1:#d55e00;--tb-c2:#009e73;--tb-c3:#cc79a7;--tb-c4:#b07d00;"
           "--tb-c5:#3e9bd1;--tb-c6:#6f6f6f;--tb-c7:#8f5bb0}\n"
           "@media (prefers-color-scheme:dark){:root{--tb-fg:#e4e6ea;--tb-bg:#17191d;"
           "--tb-muted:#a3a8b3;--tb-grid:#3b3f47;--tb-c0:#4aa8e8;--tb-c1:#f08a3e;"
           "--tb-c2:#2fc39a;--tb-c3:#e596c3;--tb-c4:#e6b422;--tb-c5:#7cc4f0;--tb-c6:#b0b0b0;"
           "--tb-c7:#b58ad6}}\n"
           "@media print{:root{--tb-fg:#000;--tb-bg:#fff;--tb-muted:#333;--tb-grid:#bbb;"
           "--tb-c0:#0072b2;--tb-c1:#d55e00;--tb-c2:#009e73;--tb-c3:#cc79a7;--tb-c4:#b07d00;"
           "--tb-c5:#3e9bd1;--tb-c6:#6f6f6f;--tb-c7:#8f5bb0}}\n"
           ".tb-chart{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;font-size:12px;"
           "max-width:100%;height:auto}\n"
           ".tb-chart text{fill:var(--tb-fg)}\n"
           ".tb-chart .tb-t{font-weight:600;font-size:13px}\n"
           ".tb-chart .tb-m{fill:var(--tb-muted)}\n"
           ".tb-chart .tb-sm{font-size:11px}\n"
           ".tb-ax{stroke:var(--tb-fg);stroke-width:1;fill:none}\n"
           ".tb-gr{stroke:var(--tb-grid);stroke-width:1;fill:none}\n"
           ".tb-wk{stroke:var(--tb-fg);stroke-width:1.4;fill:none}\n"
           ".tb-med{stroke:var(--tb-fg);stroke-width:2.5}\n"
           ".tb-ln{fill:none;stroke-width:2}\n"
           ".tb-dash{stroke-dasharray:6 4}\n"
           ".tb-hol{fill:var(--tb-bg)}\n"
           ".tb-h{stroke:var(--tb-bg);stroke-width:1.5;fill:none}\n"
           ".tb-hd{fill:var(--tb-bg)}\n"
           ".tb-box{fill-opacity:0.3}\n"
           ".tb-f0{fill:var(--tb-c0)}.tb-f1{fill:var(--tb-c1)}.tb-f2{fill:var(--tb-c2)}"
           ".tb-f3{fill:var(--tb-c3)}.tb-f4{fill:var(--tb-c4)}.tb-f5{fill:var(--tb-c5)}"
           ".tb-f6{fill:var(--tb-c6)}.tb-f7{fill:var(--tb-c7)}\n"
           ".tb-s0{stroke:var(--tb-c0)}.tb-s1{stroke:var(--tb-c1)}.tb-s2{stroke:var(--tb-c2)}"
           ".tb-s3{stroke:var(--tb-c3)}.tb-s4{stroke:var(--tb-c4)}.tb-s5{stroke:var(--tb-c5)}"
           ".tb-s6{stroke:var(--tb-c6)}.tb-s7{stroke:var(--tb-c7)}\n"
           /* the forest plot: verdict colours (better blue, worse vermillion: apart for
              every common colour vision), the side of 1 that is better, the line at 1 */
           ".tb-vb{fill:var(--tb-c0);stroke:var(--tb-c0)}.tb-vw{fill:var(--tb-c1);"
           "stroke:var(--tb-c1)}.tb-vs{fill:var(--tb-bg);stroke:var(--tb-fg)}"
           ".tb-vn{fill:var(--tb-bg);stroke:var(--tb-muted);stroke-dasharray:2 1.5}"
           ".tb-vg{fill:var(--tb-fg);stroke:var(--tb-fg)}\n"
           ".tb-side{fill:var(--tb-fg);fill-opacity:.07}"
           ".tb-one{stroke:var(--tb-fg);stroke-width:1.5;fill:none}"
           ".tb-fw{stroke:var(--tb-fg);stroke-width:1.3;fill:none}"
           ".tb-chart .tb-gm{font-weight:600}"
           ".tb-chart .tb-simt{fill:var(--tb-sim,#b3261e);font-weight:700;font-size:9px}\n"
           ".tb-seg{stroke:var(--tb-bg);stroke-width:1}\n";
}

/* ---------------------------------------------------------------- frame and shapes */

static size_t colour_of(size_t series)
{
    return series % N_COLOURS;
}

static size_t pattern_of(size_t series)
{
    return (series + series / N_COLOURS) % N_PATTERNS;
}

static size_t shape_of(size_t series)
{
    return series % N_SHAPES;
}

static const char *series_name(const tb_svg_series *s, size_t i)
{
    return s && i < s->n && s->names && s->names[i] ? s->names[i] : "?";
}

static int frame_begin(tb_buf *out, const tb_svg_frame *f, double h)
{
    int rc = tb_buf_printf(out,
                           "<svg class=\"tb-chart\"%s role=\"img\" viewBox=\"0 0 %.0f %.0f\" "
                           "width=\"%.0f\" height=\"%.0f\" data-section=\"",
                           f->standalone ? " xmlns=\"http://www.w3.org/2000/svg\"" : "",
                           TB_SVG_WIDTH, h, TB_SVG_WIDTH, h);
    rc |= tb_svg_escape(out, f->section ? f->section : "");
    rc |= tb_buf_puts(out, "\" aria-labelledby=\"");
    rc |= tb_svg_escape(out, f->id);
    rc |= tb_buf_puts(out, "-t\">");
    if (f->standalone)
        rc |= tb_buf_printf(out, "<style>%s</style>", tb_svg_css());
    rc |= tb_buf_puts(out, "<title id=\"");
    rc |= tb_svg_escape(out, f->id);
    rc |= tb_buf_puts(out, "-t\">");
    rc |= tb_svg_escape(out, f->title ? f->title : "");
    rc |= tb_buf_puts(out, "</title>");
    if (f->desc) {
        rc |= tb_buf_puts(out, "<desc>");
        rc |= tb_svg_escape(out, f->desc);
        rc |= tb_buf_puts(out, "</desc>");
    }
    rc |= tb_buf_puts(out, "\n");
    return rc ? -1 : 0;
}

static int frame_end(tb_buf *out)
{
    return tb_buf_puts(out, "</svg>\n");
}

/* <text x y class anchor>escaped s (cut to max_chars when > 0)</text> */
static int text_at(tb_buf *out, double x, double y, const char *cls, const char *anchor,
                   const char *s, size_t max_chars)
{
    int rc = tb_buf_printf(out, "<text x=\"%.1f\" y=\"%.1f\"", x, y);
    if (cls && *cls)
        rc |= tb_buf_printf(out, " class=\"%s\"", cls);
    if (anchor && strcmp(anchor, "start"))
        rc |= tb_buf_printf(out, " text-anchor=\"%s\"", anchor);
    rc |= tb_buf_puts(out, ">");
    rc |= max_chars ? tb_svg_escape_cut(out, s, max_chars) : tb_svg_escape(out, s);
    if (max_chars && tb_svg_strlen(s) > max_chars) { /* the full text on hover */
        rc |= tb_buf_puts(out, "<title>");
        rc |= tb_svg_escape(out, s);
        rc |= tb_buf_puts(out, "</title>");
    }
    rc |= tb_buf_puts(out, "</text>");
    return rc ? -1 : 0;
}

/* The fill patterns of the series, one per series: the series' colour with light
   hatching of a kind that differs between neighbours (so bars read in grey print). */
static int pattern_defs(tb_buf *out, const char *id, size_t n_series)
{
    static const char *const hatch[N_PATTERNS] = {
        "",                                                          /* solid */
        "<path class=\"tb-h\" d=\"M-1,1l2,-2M0,8l8,-8M7,9l2,-2\"/>", /* / */
        "<path class=\"tb-h\" d=\"M-1,7l2,2M0,0l8,8M7,-1l2,2\"/>",   /* \ */
        "<path class=\"tb-h\" d=\"M0,4h8\"/>",                       /* - */
        "<path class=\"tb-h\" d=\"M4,0v8\"/>",                       /* | */
        "<path class=\"tb-h\" d=\"M0,4h8M4,0v8\"/>",                 /* + */
        "<circle class=\"tb-hd\" cx=\"4\" cy=\"4\" r=\"1.6\"/>",     /* dots */
        "<path class=\"tb-h\" d=\"M0,0l8,8M8,0l-8,8\"/>",            /* x */
    };
    int rc = tb_buf_puts(out, "<defs>");
    for (size_t i = 0; i < n_series; i++) {
        rc |= tb_buf_puts(out, "<pattern id=\"");
        rc |= tb_svg_escape(out, id);
        rc |= tb_buf_printf(out,
                            "-p%zu\" patternUnits=\"userSpaceOnUse\" width=\"8\" height=\"8\">"
                            "<rect class=\"tb-f%zu\" width=\"8\" height=\"8\"/>%s</pattern>",
                            i, colour_of(i), hatch[pattern_of(i)]);
    }
    rc |= tb_buf_puts(out, "</defs>\n");
    return rc ? -1 : 0;
}

/* A marker of the series' shape centred on (x, y), radius r, as a path's d. */
static int marker_d(tb_buf *out, size_t shape, double x, double y, double r)
{
    switch (shape) {
    case 0: /* circle */
        return tb_buf_printf(out, "M%.1f,%.1fa%.1f,%.1f 0 1,0 %.1f,0a%.1f,%.1f 0 1,0 %.1f,0z",
                             x - r, y, r, r, 2 * r, r, r, -2 * r);
    case 1: /* square */
        return tb_buf_printf(out, "M%.1f,%.1fh%.1fv%.1fh%.1fz", x - r * 0.9, y - r * 0.9, 1.8 * r,
                             1.8 * r, -1.8 * r);
    case 2: /* triangle up */
        return tb_buf_printf(out, "M%.1f,%.1fL%.1f,%.1fL%.1f,%.1fz", x, y - 1.2 * r, x + 1.1 * r,
                             y + 0.8 * r, x - 1.1 * r, y + 0.8 * r);
    case 3: /* diamond */
        return tb_buf_printf(out, "M%.1f,%.1fL%.1f,%.1fL%.1f,%.1fL%.1f,%.1fz", x, y - 1.3 * r,
                             x + 1.3 * r, y, x, y + 1.3 * r, x - 1.3 * r, y);
    case 4: /* triangle down */
        return tb_buf_printf(out, "M%.1f,%.1fL%.1f,%.1fL%.1f,%.1fz", x, y + 1.2 * r, x + 1.1 * r,
                             y - 0.8 * r, x - 1.1 * r, y - 0.8 * r);
    default: /* cross (a plus of width r/1.5) */
    {
        double w = r * 0.45, l = r * 1.2;
        return tb_buf_printf(out,
                             "M%.1f,%.1fh%.1fv%.1fh%.1fv%.1fh%.1fv%.1fh%.1fv%.1fh%.1fv%.1fh%."
                             "1fz",
                             x - w, y - l, 2 * w, l - w, l - w, 2 * w, -(l - w), l - w, -2 * w,
                             -(l - w), -(l - w), -2 * w, l - w);
    }
    }
}

/* <path class="cls tb-f? tb-s?" d=marker data-series data-value><title>tip</title></path>;
   hollow markers (a second curve of the same series) are filled with the background. */
static int marker(tb_buf *out, const char *cls, size_t series, int hollow, double x, double y,
                  double r, double value, const char *tip)
{
    char fill[16];
    if (hollow)
        snprintf(fill, sizeof fill, "tb-hol");
    else
        snprintf(fill, sizeof fill, "tb-f%zu", colour_of(series));
    int rc = tb_buf_printf(out, "<path class=\"%s %s tb-s%zu\" stroke-width=\"1.4\" d=\"", cls,
                           fill, colour_of(series));
    rc |= marker_d(out, shape_of(series), x, y, r);
    rc |= tb_buf_printf(out, "\" data-series=\"%zu\"", series);
    if (isfinite(value))
        rc |= tb_buf_printf(out, " data-value=\"%.17g\"", value);
    rc |= tb_buf_puts(out, "><title>");
    rc |= tb_svg_escape(out, tip);
    rc |= tb_buf_puts(out, "</title></path>");
    return rc ? -1 : 0;
}

const char *tb_svg_unit(const char *unit)
{
    if (!unit)
        return "";
    return strcmp(unit, "us") ? unit : "\xc2\xb5s";
}

/* "1,091 ms", "850 ns" (times keep their unit: the axis is in it), "0.215" (no unit) */
void tb_svg_fmt_value(double v, const char *unit, char *out, size_t len)
{
    char num[48];
    tb_svg_fmt_num(v, num, sizeof num);
    const char *u = tb_svg_unit(unit);
    join3(out, len, num, *u ? " " : "", u);
}

/* The axis title: "req/s", "ns, log scale", "ms". */
static void axis_title(const char *title, const char *unit, int log, char *out, size_t len)
{
    const char *u = tb_svg_unit(unit);
    snprintf(out, len, "%s%s%s%s%s%s", title ? title : "", title && *u ? " (" : "", u,
             title && *u ? ")" : "", log && (title || *u) ? ", " : "", log ? "log scale" : "");
}

/* An x axis for s with the ticks t[0..n-1]: grid lines from top to y, the axis line at
   y, ticks and their labels below, and the title under them. */
static int x_axis_ticks(tb_buf *out, const tb_svg_scale *s, const tb_svg_tick *t, size_t n,
                        double top, double y, const char *title)
{
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        double x = tb_svg_scale_map(s, t[i].v);
        rc |= tb_buf_printf(out, "<path class=\"tb-gr\" d=\"M%.1f,%.1fV%.1f\"/>", x, top, y);
        rc |= tb_buf_printf(out, "<path class=\"tb-ax\" d=\"M%.1f,%.1fv4\"/>", x, y);
        rc |= text_at(out, x, y + 15, "tb-sm", "middle", t[i].label, 0);
    }
    if (s->kind == TB_SVG_LINEAR && s->d0 < 0 && s->d1 > 0) { /* the zero line */
        double x0 = tb_svg_scale_map(s, 0);
        rc |= tb_buf_printf(out, "<path class=\"tb-ax\" d=\"M%.1f,%.1fV%.1f\"/>", x0, top, y);
    }
    rc |= tb_buf_printf(out, "<path class=\"tb-ax\" d=\"M%.1f,%.1fH%.1f\"/>", s->r0, y, s->r1);
    rc |= text_at(out, (s->r0 + s->r1) / 2, y + 31, "tb-m", "middle", title, 0);
    rc |= tb_buf_puts(out, "\n");
    return rc ? -1 : 0;
}

/* The same with the scale's own ticks. */
static int x_axis(tb_buf *out, const tb_svg_scale *s, const char *unit, double top, double y,
                  const char *title)
{
    tb_svg_tick t[TB_SVG_TICK_MAX];
    size_t n = tb_svg_ticks(s, unit, t, s->kind == TB_SVG_PCTL ? 9 : 7);
    return x_axis_ticks(out, s, t, n, top, y, title);
}

static int y_axis(tb_buf *out, const tb_svg_scale *s, const char *unit, double left, double right,
                  const char *title)
{
    tb_svg_tick t[TB_SVG_TICK_MAX];
    size_t n = tb_svg_ticks(s, unit, t, 8);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        double y = tb_svg_scale_map(s, t[i].v);
        rc |= tb_buf_printf(out, "<path class=\"tb-gr\" d=\"M%.1f,%.1fH%.1f\"/>", left, y, right);
        rc |= text_at(out, left - 6, y + 4, "tb-sm", "end", t[i].label, 0);
    }
    rc |= tb_buf_printf(out, "<path class=\"tb-ax\" d=\"M%.1f,%.1fV%.1f\"/>", left, s->r0, s->r1);
    double mid = (s->r0 + s->r1) / 2;
    rc |= tb_buf_printf(out,
                        "<text class=\"tb-m\" text-anchor=\"middle\" "
                        "transform=\"translate(14,%.1f) rotate(-90)\">",
                        mid);
    rc |= tb_svg_escape(out, title);
    rc |= tb_buf_puts(out, "</text>\n");
    return rc ? -1 : 0;
}

/* Width of the left label column for labels of up to `chars` characters. */
static double label_col(size_t chars)
{
    if (chars > LABEL_MAX_CHARS)
        chars = LABEL_MAX_CHARS;
    double w = 14 + CHAR_W * (double)chars;
    return w < 90 ? 90 : w;
}

/* ---------------------------------------------------------------- bars */

#define BAR_TITLE_H 24.0
#define BAR_ROW_H 22.0
#define BAR_H 14.0
#define AXIS_H 40.0
#define GROUP_GAP 14.0
#define RIGHT_TEXT_W 170.0

/* Bars and boxes are drawn in panels, one per group: a title, n rows of row_h pixels
   (room for "no data" when there is none), an x axis, a gap. */
static double panel_h(size_t n, double row_h)
{
    return BAR_TITLE_H + (n ? (double)n : 1) * row_h + AXIS_H + GROUP_GAP;
}

/* The panel at y0 around its rows: its title, right of it what (NULL: nothing), the x
   axis of sc under the rows (unit; log: a log scale), "no data" when n is 0. */
static int panel_head(tb_buf *out, const tb_svg_scale *sc, const char *title, const char *what,
                      const char *unit, int log, size_t n, double row_h, double y0)
{
    int rc = text_at(out, 8, y0 + 15, "tb-t", "start", title, 60);
    if (what)
        rc |= text_at(out, TB_SVG_WIDTH - 8, y0 + 15, "tb-m", "end", what, 0);
    double top = y0 + BAR_TITLE_H, axis_y = top + (n ? (double)n : 1) * row_h + 2;
    char at[96];
    axis_title(NULL, unit, log, at, sizeof at);
    rc |= x_axis(out, sc, unit, top, axis_y, at);
    if (!n)
        rc |= text_at(out, sc->r0 + 4, top + 15, "tb-m", "start", "no data", 0);
    return rc ? -1 : 0;
}

static const char *bar_label(const tb_svg_series *s, const tb_svg_bar *b)
{
    return b->label ? b->label : series_name(s, b->series);
}

static int bar_group(tb_buf *out, const char *id, const tb_svg_series *s, const tb_svg_bar_group *g,
                     double y0, double lw)
{
    double px0 = lw + 8, px1 = TB_SVG_WIDTH - RIGHT_TEXT_W;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < g->n; i++) {
        const tb_svg_bar *b = &g->bars[i];
        double v[3] = {b->value, b->lo, b->hi};
        for (size_t k = 0; k < 3; k++) {
            if (!isfinite(v[k]) || (g->log && v[k] <= 0))
                continue;
            lo = fmin(lo, v[k]);
            hi = fmax(hi, v[k]);
        }
    }
    tb_svg_scale sc;
    tb_svg_scale_fit(&sc, g->log ? TB_SVG_LOG : TB_SVG_LINEAR, lo, hi, 1, px0, px1);
    char sub[160];
    snprintf(sub, sizeof sub, "%s%s%s", tb_svg_unit(g->unit),
             g->sub && *tb_svg_unit(g->unit) ? " \xc2\xb7 " : "", g->sub ? g->sub : "");
    double top = y0 + BAR_TITLE_H;
    int rc = panel_head(out, &sc, g->title, sub, g->unit, g->log, g->n, BAR_ROW_H, y0);
    double base = g->log ? sc.d0 : fmin(fmax(0, sc.d0), sc.d1);
    double xb = tb_svg_scale_map(&sc, base);
    for (size_t i = 0; i < g->n; i++) {
        const tb_svg_bar *b = &g->bars[i];
        double ry = top + (double)i * BAR_ROW_H, yc = ry + BAR_ROW_H / 2;
        rc |= text_at(out, lw, yc + 4, "", "end", bar_label(s, b), LABEL_MAX_CHARS);
        char val[96], tip[512];
        if (!isfinite(b->value) || (g->log && b->value <= 0)) {
            rc |= text_at(out, px0 + 4, yc + 4, "tb-m", "start",
                          isfinite(b->value) ? "not on a log axis" : "no data", 0);
            continue;
        }
        double xv = tb_svg_scale_map(&sc, b->value);
        double x0 = fmin(xb, xv), x1 = fmax(xb, xv);
        tb_svg_fmt_value(b->value, g->unit, val, sizeof val);
        int has_ci = isfinite(b->lo) && isfinite(b->hi);
        char lo_s[48], hi_s[48];
        tb_svg_fmt_num(b->lo, lo_s, sizeof lo_s);
        tb_svg_fmt_num(b->hi, hi_s, sizeof hi_s);
        snprintf(tip, sizeof tip, "%s: %s%s%s%s%s%s%s%s", bar_label(s, b), val, has_ci ? " [" : "",
                 has_ci ? lo_s : "", has_ci ? ", " : "", has_ci ? hi_s : "", has_ci ? "]" : "",
                 b->note ? " " : "", b->note ? b->note : "");
        rc |= tb_buf_printf(out,
                            "<rect class=\"tb-bar tb-s%zu\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                            "height=\"%.1f\" fill=\"url(#",
                            colour_of(b->series), x0, yc - BAR_H / 2, fmax(x1 - x0, 0.5), BAR_H);
        rc |= tb_svg_escape(out, id);
        rc |= tb_buf_printf(out, "-p%zu)\" data-series=\"%zu\" data-value=\"%.17g\"><title>",
                            b->series, b->series, b->value);
        rc |= tb_svg_escape(out, tip);
        rc |= tb_buf_puts(out, "</title></rect>");
        double xt = x1;
        if (has_ci) {
            double a = tb_svg_scale_map(&sc, b->lo), z = tb_svg_scale_map(&sc, b->hi);
            rc |= tb_buf_printf(out,
                                "<path class=\"tb-wk\" d=\"M%.1f,%.1fH%.1fM%.1f,%.1fv8M%.1f,%."
                                "1fv8\"/>",
                                a, yc, z, a, yc - 4, z, yc - 4);
            xt = fmax(xt, z);
        }
        rc |= tb_buf_printf(out, "<text x=\"%.1f\" y=\"%.1f\">", xt + 6, yc + 4);
        rc |= tb_svg_escape(out, val);
        if (b->note) {
            rc |= tb_buf_puts(out, " <tspan class=\"tb-m\">");
            rc |= tb_svg_escape(out, b->note);
            rc |= tb_buf_puts(out, "</tspan>");
        }
        rc |= tb_buf_puts(out, "</text>\n");
    }
    return rc ? -1 : 0;
}

static double bar_group_h(const tb_svg_bar_group *g)
{
    return panel_h(g->n, BAR_ROW_H);
}

int tb_svg_bars(tb_buf *out, const tb_svg_frame *f, const tb_svg_series *s,
                const tb_svg_bar_group *groups, size_t n_groups)
{
    double h = 8;
    size_t chars = 0;
    for (size_t g = 0; g < n_groups; g++) {
        h += bar_group_h(&groups[g]);
        for (size_t i = 0; i < groups[g].n; i++) {
            size_t c = tb_svg_strlen(bar_label(s, &groups[g].bars[i]));
            chars = c > chars ? c : chars;
        }
    }
    double lw = label_col(chars);
    int rc = frame_begin(out, f, h);
    rc |= pattern_defs(out, f->id, s ? s->n : 0);
    double y = 8;
    for (size_t g = 0; g < n_groups; g++) {
        rc |= bar_group(out, f->id, s, &groups[g], y, lw);
        y += bar_group_h(&groups[g]);
    }
    rc |= frame_end(out);
    return rc ? -1 : 0;
}

/* ---------------------------------------------------------------- lines */

#define LINE_H 380.0
#define LINE_TOP 40.0
#define LINE_BOTTOM 52.0
#define LINE_LEFT 74.0
#define LINE_RIGHT 170.0
#define LINE_X1 (TB_SVG_WIDTH - LINE_RIGHT) /* the plot's right end */
#define LINE_Y0 (LINE_H - LINE_BOTTOM)      /* the plot's bottom */

typedef struct end_label {
    double y;
    size_t curve;
} end_label;

static int cmp_end_label(const void *a, const void *b)
{
    double x = ((const end_label *)a)->y, y = ((const end_label *)b)->y;
    return (x > y) - (x < y);
}

/* Spreads sorted label positions at least gap apart within [top, bottom]. */
static void spread_labels(end_label *l, size_t n, double gap, double top, double bottom)
{
    for (size_t i = 1; i < n; i++)
        if (l[i].y < l[i - 1].y + gap)
            l[i].y = l[i - 1].y + gap;
    if (n && l[n - 1].y > bottom) {
        l[n - 1].y = bottom;
        for (size_t i = n - 1; i > 0; i--)
            if (l[i - 1].y > l[i].y - gap)
                l[i - 1].y = l[i].y - gap;
    }
    for (size_t i = 0; i < n; i++)
        if (l[i].y < top)
            l[i].y = top;
}

static void x_label(const tb_svg_line_chart *c, double x, char *out, size_t len)
{
    for (size_t i = 0; c->xticks && i < c->n_xticks; i++)
        if (c->xticks[i].v == x) {
            join3(out, len, c->xticks[i].label, NULL, NULL);
            return;
        }
    if (c->xkind == TB_SVG_PCTL) {
        char p[24];
        pctl_label(x, p, sizeof p);
        p[strlen(p) - 1] = 0; /* "99.9" */
        join3(out, len, "p", p, NULL);
        return;
    }
    tb_svg_fmt_value(x, c->xunit, out, len);
}

/* A domain for the caller's ticks: the points' span with a margin (LOG: x > 0 only). */
static void fit_to_points(tb_svg_scale *s, enum tb_svg_kind kind, double lo, double hi)
{
    if (kind == TB_SVG_LOG && lo > 0 && isfinite(hi)) {
        double a = log10(lo), b = log10(hi), pad = b > a ? (b - a) * 0.05 : 0.15;
        s->d0 = pow(10, a - pad);
        s->d1 = pow(10, b + pad);
        return;
    }
    if (!isfinite(lo) || !isfinite(hi)) {
        lo = 0;
        hi = 1;
    }
    double pad = hi > lo ? (hi - lo) * 0.05 : fmax(fabs(lo) * 0.1, 1);
    s->d0 = lo - pad;
    s->d1 = hi + pad;
}

/* The caller's ticks within the domain, every k-th so that labels do not touch. */
static size_t thin_ticks(const tb_svg_scale *s, const tb_svg_tick *in, size_t n, tb_svg_tick *out,
                         size_t max)
{
    size_t m = 0;
    tb_svg_tick all[64];
    double widest = 0;
    for (size_t i = 0; i < n && m < 64; i++) {
        if (!isfinite(in[i].v) || (s->kind == TB_SVG_LOG && in[i].v <= 0) ||
            in[i].v < fmin(s->d0, s->d1) || in[i].v > fmax(s->d0, s->d1))
            continue;
        all[m++] = in[i];
        widest = fmax(widest, (double)tb_svg_strlen(in[i].label) * CHAR_W * 0.92 + 10);
    }
    for (size_t every = 1; every <= m + 1; every++) {
        size_t k = 0;
        int fits = 1;
        for (size_t i = 0; i < m; i += every) {
            if (k && tb_svg_scale_map(s, all[i].v) - tb_svg_scale_map(s, out[k - 1].v) < widest)
                fits = 0;
            if (k < max)
                out[k++] = all[i];
            else
                fits = 0;
        }
        if (fits || every > m)
            return k;
    }
    return 0;
}

/* Where a line chart's data lies: x over the points drawn (finite x and y), y over them
   and their intervals; ypos, the smallest positive y. */
typedef struct line_extent {
    double xlo, xhi, ylo, yhi, ypos;
} line_extent;

/* Point k of a curve is drawn: its x and y are finite. */
static int curve_pt(const tb_svg_curve *cv, size_t k)
{
    return isfinite(cv->x[k]) && isfinite(cv->y[k]);
}

/* Point k of a curve has an interval to draw. */
static int curve_ci(const tb_svg_curve *cv, size_t k)
{
    return cv->lo && cv->hi && isfinite(cv->lo[k]) && isfinite(cv->hi[k]);
}

static const char *curve_name(const tb_svg_series *s, const tb_svg_curve *cv)
{
    return cv->label ? cv->label : series_name(s, cv->series);
}

static void line_extent_of(const tb_svg_line_chart *c, line_extent *e)
{
    *e = (line_extent){INFINITY, -INFINITY, INFINITY, -INFINITY, INFINITY};
    for (size_t i = 0; i < c->n; i++) {
        const tb_svg_curve *cv = &c->curves[i];
        for (size_t k = 0; k < cv->n; k++) {
            if (!curve_pt(cv, k))
                continue;
            e->xlo = fmin(e->xlo, cv->x[k]);
            e->xhi = fmax(e->xhi, cv->x[k]);
            double v[3] = {cv->y[k], cv->lo ? cv->lo[k] : NAN, cv->hi ? cv->hi[k] : NAN};
            for (size_t j = 0; j < 3; j++) {
                if (!isfinite(v[j]))
                    continue;
                e->ylo = fmin(e->ylo, v[j]);
                e->yhi = fmax(e->yhi, v[j]);
                if (v[j] > 0)
                    e->ypos = fmin(e->ypos, v[j]);
            }
        }
    }
}

/* A line chart's scales: x of the kind asked (a log x axis needs the caller's ticks and
   positive x, else it is linear), over the points' span when the caller gives the ticks
   (own_ticks); y linear or log (ylog: as asked, or log when max/min > 30). */
typedef struct line_plot {
    tb_svg_scale xs, ys;
    enum tb_svg_kind xkind;
    int ylog, own_ticks;
} line_plot;

static void line_fit(const tb_svg_line_chart *c, line_plot *p)
{
    line_extent e;
    line_extent_of(c, &e);
    p->ylog = c->ylog;
    if (p->ylog < 0)
        p->ylog = isfinite(e.ypos) && e.ylo > 0 && e.yhi / e.ypos > 30;
    p->xkind = c->xkind;
    if (p->xkind == TB_SVG_LOG && !(c->xticks && e.xlo > 0))
        p->xkind = TB_SVG_LINEAR;
    tb_svg_scale_fit(&p->xs, p->xkind == TB_SVG_LOG ? TB_SVG_LINEAR : p->xkind, e.xlo, e.xhi, 0,
                     LINE_LEFT, LINE_X1);
    p->own_ticks = c->xticks && c->n_xticks && p->xkind != TB_SVG_PCTL;
    if (p->own_ticks) {
        p->xs.kind = p->xkind;
        fit_to_points(&p->xs, p->xkind, e.xlo, e.xhi);
    }
    tb_svg_scale_fit(&p->ys, p->ylog ? TB_SVG_LOG : TB_SVG_LINEAR, p->ylog ? e.ypos : e.ylo, e.yhi,
                     1, LINE_Y0, LINE_TOP);
}

/* The y axis, then the x axis with the caller's ticks (thinned) or the scale's. */
static int line_axes(tb_buf *out, const tb_svg_line_chart *c, const line_plot *p)
{
    char title[128];
    axis_title(c->ytitle, c->yunit, p->ylog, title, sizeof title);
    int rc = y_axis(out, &p->ys, c->yunit, LINE_LEFT, LINE_X1, title);
    axis_title(c->xtitle, c->xunit, p->xs.kind == TB_SVG_LOG, title, sizeof title);
    if (p->own_ticks) {
        tb_svg_tick t[TB_SVG_TICK_MAX];
        size_t nt = thin_ticks(&p->xs, c->xticks, c->n_xticks, t, TB_SVG_TICK_MAX);
        rc |= x_axis_ticks(out, &p->xs, t, nt, LINE_TOP, LINE_Y0, title);
    } else {
        rc |= x_axis(out, &p->xs, c->xunit, LINE_TOP, LINE_Y0, title);
    }
    return rc ? -1 : 0;
}

/* A curve's line through its points drawn; *end_y: where its name goes (by its last
   point), *drawn: whether it has a point. */
static int curve_line(tb_buf *out, const tb_svg_curve *cv, const line_plot *p, double *end_y,
                      int *drawn)
{
    int rc = tb_buf_printf(out, "<path class=\"tb-ln tb-s%zu%s\" d=\"", colour_of(cv->series),
                           cv->dashed ? " tb-dash" : "");
    *drawn = 0;
    for (size_t k = 0; k < cv->n; k++) {
        if (!curve_pt(cv, k))
            continue;
        double lx = tb_svg_scale_map(&p->xs, cv->x[k]), ly = tb_svg_scale_map(&p->ys, cv->y[k]);
        rc |= tb_buf_printf(out, "%s%.1f,%.1f", *drawn ? "L" : "M", lx, ly);
        *end_y = ly + 4;
        *drawn = 1;
    }
    rc |= tb_buf_puts(out, "\"/>");
    return rc ? -1 : 0;
}

/* A curve's intervals as vertical whiskers (drawn under its markers). */
static int curve_whiskers(tb_buf *out, const tb_svg_curve *cv, const line_plot *p)
{
    int rc = 0;
    for (size_t k = 0; k < cv->n; k++) {
        if (!curve_pt(cv, k) || !curve_ci(cv, k))
            continue;
        double x = tb_svg_scale_map(&p->xs, cv->x[k]), a = tb_svg_scale_map(&p->ys, cv->lo[k]),
               z = tb_svg_scale_map(&p->ys, cv->hi[k]);
        rc |= tb_buf_printf(out,
                            "<path class=\"tb-wk tb-s%zu\" d=\"M%.1f,%.1fV%.1fM%.1f,%.1fh6M%."
                            "1f,%.1fh6\"/>",
                            colour_of(cv->series), x, a, z, x - 3, a, x - 3, z);
    }
    return rc ? -1 : 0;
}

/* A marker per point drawn, its tip the point in words ("host: p99.9 = 1.2 ms [..]"). */
static int curve_markers(tb_buf *out, const tb_svg_series *s, const tb_svg_line_chart *c,
                         const line_plot *p, const tb_svg_curve *cv)
{
    int rc = 0;
    for (size_t k = 0; k < cv->n; k++) {
        if (!curve_pt(cv, k))
            continue;
        char xl[48], yl[64], tip[512], ci[112] = "";
        x_label(c, cv->x[k], xl, sizeof xl);
        tb_svg_fmt_value(cv->y[k], c->yunit, yl, sizeof yl);
        if (curve_ci(cv, k)) {
            char a[48], z[48];
            tb_svg_fmt_num(cv->lo[k], a, sizeof a);
            tb_svg_fmt_num(cv->hi[k], z, sizeof z);
            snprintf(ci, sizeof ci, " [%s, %s]", a, z);
        }
        snprintf(tip, sizeof tip, "%s: %s = %s%s", curve_name(s, cv), xl, yl, ci);
        rc |= marker(out, "tb-pt", cv->series, cv->dashed, tb_svg_scale_map(&p->xs, cv->x[k]),
                     tb_svg_scale_map(&p->ys, cv->y[k]), 3.5, cv->y[k], tip);
    }
    return rc ? -1 : 0;
}

/* The curves' names right of the plot, spread so that they do not touch, each after its
   series' marker (which ties the name to its curve without colour). */
static int end_labels(tb_buf *out, const tb_svg_series *s, const tb_svg_line_chart *c,
                      end_label *ends, size_t n)
{
    qsort(ends, n, sizeof *ends, cmp_end_label);
    spread_labels(ends, n, 13, 12, LINE_H - 4);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        const tb_svg_curve *cv = &c->curves[ends[i].curve];
        rc |= marker(out, "tb-key", cv->series, cv->dashed, LINE_X1 + 12, ends[i].y - 4, 3.5, NAN,
                     curve_name(s, cv));
        rc |= text_at(out, LINE_X1 + 20, ends[i].y, cv->dashed ? "tb-m" : "", "start",
                      curve_name(s, cv), 22);
    }
    return rc ? -1 : 0;
}

int tb_svg_lines(tb_buf *out, const tb_svg_frame *f, const tb_svg_series *s,
                 const tb_svg_line_chart *c)
{
    line_plot p;
    line_fit(c, &p);
    int rc = frame_begin(out, f, LINE_H);
    if (c->dash_note)
        rc |= text_at(out, LINE_LEFT, 18, "tb-m", "start", c->dash_note, 0);
    if (!c->n)
        rc |= text_at(out, LINE_LEFT + 8, (LINE_Y0 + LINE_TOP) / 2, "tb-m", "start", "no data", 0);
    rc |= line_axes(out, c, &p);
    end_label *ends = calloc(c->n ? c->n : 1, sizeof *ends);
    if (!ends)
        return -1;
    size_t n_ends = 0;
    for (size_t i = 0; i < c->n; i++) {
        const tb_svg_curve *cv = &c->curves[i];
        double end_y = 0;
        int drawn = 0;
        rc |= curve_line(out, cv, &p, &end_y, &drawn);
        rc |= curve_whiskers(out, cv, &p);
        rc |= curve_markers(out, s, c, &p, cv);
        rc |= tb_buf_puts(out, "\n");
        if (drawn)
            ends[n_ends++] = (end_label){end_y, i};
    }
    rc |= end_labels(out, s, c, ends, n_ends);
    free(ends);
    rc |= frame_end(out);
    return rc ? -1 : 0;
}

/* ---------------------------------------------------------------- boxes */

#define BOX_ROW_H 24.0

typedef struct box_stats {
    double q1, med, q3, wlo, whi, min, max;
} box_stats;

/* Quartiles (inclusive method) and Tukey whiskers of sorted[0..n-1], n >= 1. */
static void box_of(const double *sorted, size_t n, box_stats *b)
{
    b->q1 = tb_stats_quantile_sorted(sorted, n, 1, 4);
    b->med = tb_stats_quantile_sorted(sorted, n, 1, 2);
    b->q3 = tb_stats_quantile_sorted(sorted, n, 3, 4);
    double iqr = b->q3 - b->q1, lo = b->q1 - 1.5 * iqr, hi = b->q3 + 1.5 * iqr;
    b->min = sorted[0];
    b->max = sorted[n - 1];
    b->wlo = b->q1;
    b->whi = b->q3;
    for (size_t i = 0; i < n; i++)
        if (sorted[i] >= lo) {
            b->wlo = fmin(sorted[i], b->q1);
            break;
        }
    for (size_t i = n; i > 0; i--)
        if (sorted[i - 1] <= hi) {
            b->whi = fmax(sorted[i - 1], b->q3);
            break;
        }
}

static size_t finite_sorted(const double *x, size_t n, double *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]))
            out[m++] = x[i];
    tb_stats_sort(out, m);
    return m;
}

static int box_row(tb_buf *out, const tb_svg_series *s, const tb_svg_dist *d,
                   const tb_svg_scale *sc, const char *unit, double ry, double lw, double *scratch)
{
    double yc = ry + BOX_ROW_H / 2;
    const char *label = d->label ? d->label : series_name(s, d->series);
    int rc = text_at(out, lw, yc + 4, "", "end", label, LABEL_MAX_CHARS);
    size_t n = finite_sorted(d->samples, d->n, scratch);
    if (!n) {
        rc |= text_at(out, sc->r0 + 4, yc + 4, "tb-m", "start", "no data", 0);
        return rc ? -1 : 0;
    }
    box_stats b;
    box_of(scratch, n, &b);
    size_t c = colour_of(d->series);
    double xq1 = tb_svg_scale_map(sc, b.q1), xq3 = tb_svg_scale_map(sc, b.q3);
    double xm = tb_svg_scale_map(sc, b.med);
    char med[64], tip[512], q1s[48], q3s[48];
    tb_svg_fmt_value(b.med, unit, med, sizeof med);
    tb_svg_fmt_num(b.q1, q1s, sizeof q1s);
    tb_svg_fmt_num(b.q3, q3s, sizeof q3s);
    snprintf(tip, sizeof tip, "%s: median %s, quartiles %s to %s, n=%zu", label, med, q1s, q3s, n);
    rc |= tb_buf_printf(
        out,
        "<path class=\"tb-wk\" d=\"M%.1f,%.1fH%.1fM%.1f,%.1fH%.1fM%.1f,%.1fv10M%.1f,%.1fv10\"/>",
        tb_svg_scale_map(sc, b.wlo), yc, xq1, xq3, yc, tb_svg_scale_map(sc, b.whi),
        tb_svg_scale_map(sc, b.wlo), yc - 5, tb_svg_scale_map(sc, b.whi), yc - 5);
    rc |= tb_buf_printf(out,
                        "<rect class=\"tb-box tb-f%zu tb-s%zu\" x=\"%.1f\" y=\"%.1f\" "
                        "width=\"%.1f\" height=\"16\" data-series=\"%zu\" data-value=\"%.17g\" "
                        "data-n=\"%zu\"><title>",
                        c, c, xq1, yc - 8, fmax(xq3 - xq1, 1), d->series, b.med, n);
    rc |= tb_svg_escape(out, tip);
    rc |= tb_buf_puts(out, "</title></rect>");
    rc |= tb_buf_printf(out, "<path class=\"tb-med\" d=\"M%.1f,%.1fv16\"/>", xm, yc - 8);
    /* the strip: every sample (evenly picked above STRIP_MAX), deterministic jitter */
    size_t stride = n > STRIP_MAX ? (n + STRIP_MAX - 1) / STRIP_MAX : 1;
    rc |= tb_buf_printf(out, "<g class=\"tb-f%zu\">", c);
    for (size_t i = 0; i < d->n; i += stride) {
        if (!isfinite(d->samples[i]))
            continue;
        double jitter = (double)((i * 7919u) % 11u) - 5.0;
        rc |= tb_buf_printf(out, "<circle class=\"tb-sample\" cx=\"%.1f\" cy=\"%.1f\" r=\"1.8\"/>",
                            tb_svg_scale_map(sc, d->samples[i]), yc + jitter);
    }
    rc |= tb_buf_puts(out, "</g>");
    char right[128];
    snprintf(right, sizeof right, "median %s, n=%zu", med, n);
    rc |= text_at(out, fmax(tb_svg_scale_map(sc, b.max), xq3) + 8, yc + 4, "", "start", right, 0);
    rc |= tb_buf_puts(out, "\n");
    return rc ? -1 : 0;
}

static double dist_group_h(const tb_svg_dist_group *g)
{
    return panel_h(g->n, BOX_ROW_H);
}

int tb_svg_boxes(tb_buf *out, const tb_svg_frame *f, const tb_svg_series *s,
                 const tb_svg_dist_group *groups, size_t n_groups)
{
    double h = 8;
    size_t chars = 0, most = 1;
    for (size_t g = 0; g < n_groups; g++) {
        h += dist_group_h(&groups[g]);
        for (size_t i = 0; i < groups[g].n; i++) {
            const tb_svg_dist *d = &groups[g].rows[i];
            size_t c = tb_svg_strlen(d->label ? d->label : series_name(s, d->series));
            chars = c > chars ? c : chars;
            most = d->n > most ? d->n : most;
        }
    }
    double *scratch = malloc(most * sizeof *scratch);
    if (!scratch)
        return -1;
    double lw = label_col(chars), y = 8;
    int rc = frame_begin(out, f, h);
    for (size_t gi = 0; gi < n_groups; gi++) {
        const tb_svg_dist_group *g = &groups[gi];
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < g->n; i++)
            for (size_t k = 0; k < g->rows[i].n; k++)
                if (isfinite(g->rows[i].samples[k])) {
                    lo = fmin(lo, g->rows[i].samples[k]);
                    hi = fmax(hi, g->rows[i].samples[k]);
                }
        tb_svg_scale sc;
        tb_svg_scale_fit(&sc, TB_SVG_LINEAR, lo, hi, 0, lw + 8, TB_SVG_WIDTH - RIGHT_TEXT_W);
        double top = y + BAR_TITLE_H;
        rc |= panel_head(out, &sc, g->title, NULL, g->unit, 0, g->n, BOX_ROW_H, y);
        for (size_t i = 0; i < g->n; i++)
            rc |= box_row(out, s, &g->rows[i], &sc, g->unit, top + (double)i * BOX_ROW_H, lw,
                          scratch);
        y += dist_group_h(g);
    }
    free(scratch);
    rc |= frame_end(out);
    return rc ? -1 : 0;
}

/* ---------------------------------------------------------------- dots */

#define DOT_ROW_H 28.0
#define LEGEND_ROW_H 20.0

/* Lays out the legend entries (marker + name) in rows; returns the number of rows and,
   when out is not NULL, draws them starting at y. */
static size_t legend(tb_buf *out, const tb_svg_series *s, double x0, double y, int *rc)
{
    double x = x0;
    size_t rows = s && s->n ? 1 : 0;
    for (size_t i = 0; s && i < s->n; i++) {
        const char *name = series_name(s, i);
        size_t chars = tb_svg_strlen(name);
        if (chars > 24)
            chars = 24;
        double w = 26 + CHAR_W * (double)chars + 14;
        if (x + w > TB_SVG_WIDTH - 8 && x > x0) {
            x = x0;
            rows++;
            y += LEGEND_ROW_H;
        }
        if (out) {
            *rc |= marker(out, "tb-key", i, 0, x + 8, y - 4, 4.5, NAN, name);
            *rc |= text_at(out, x + 18, y, "", "start", name, 24);
        }
        x += w;
    }
    return rows;
}

int tb_svg_dots(tb_buf *out, const tb_svg_frame *f, const tb_svg_series *s,
                const tb_svg_dot_chart *c)
{
    size_t chars = 0;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t r = 0; r < c->n; r++) {
        size_t k = tb_svg_strlen(c->rows[r].label);
        chars = k > chars ? k : chars;
        for (size_t i = 0; i < c->rows[r].n; i++) {
            const tb_svg_dot *d = &c->rows[r].dots[i];
            double v[3] = {d->value, d->lo, d->hi};
            for (size_t j = 0; j < 3; j++) {
                if (!isfinite(v[j]) || (c->log && v[j] <= 0))
                    continue;
                lo = fmin(lo, v[j]);
                hi = fmax(hi, v[j]);
            }
        }
    }
    int rc = 0;
    double lw = label_col(chars);
    size_t lrows = legend(NULL, s, 8, 0, &rc);
    double top = 10 + (double)lrows * LEGEND_ROW_H + 6;
    double rows_h = (c->n ? (double)c->n : 1) * DOT_ROW_H;
    double h = top + rows_h + AXIS_H + 8;
    tb_svg_scale sc;
    tb_svg_scale_fit(&sc, c->log ? TB_SVG_LOG : TB_SVG_LINEAR, lo, hi, !c->log, lw + 8,
                     TB_SVG_WIDTH - 24);
    rc |= frame_begin(out, f, h);
    legend(out, s, 8, 24, &rc);
    char at[128];
    axis_title(c->xtitle, c->unit, c->log, at, sizeof at);
    rc |= x_axis(out, &sc, c->unit, top, top + rows_h + 2, at);
    if (!c->n)
        rc |= text_at(out, sc.r0 + 4, top + 16, "tb-m", "start", "no data", 0);
    for (size_t r = 0; r < c->n; r++) {
        const tb_svg_dot_row *row = &c->rows[r];
        double ry = top + (double)r * DOT_ROW_H, yc = ry + DOT_ROW_H / 2;
        if (r)
            rc |= tb_buf_printf(out, "<path class=\"tb-gr\" d=\"M8,%.1fH%.1f\"/>", ry, sc.r1);
        rc |= text_at(out, lw, yc + 4, "", "end", row->label, LABEL_MAX_CHARS);
        double spacing = row->n > 1 ? fmin(4, 18.0 / (double)row->n) : 0;
        for (size_t i = 0; i < row->n; i++) {
            const tb_svg_dot *d = &row->dots[i];
            if (!isfinite(d->value) || (c->log && d->value <= 0))
                continue;
            double y = yc + ((double)i - (double)(row->n - 1) / 2) * spacing;
            if (isfinite(d->lo) && isfinite(d->hi))
                rc |= tb_buf_printf(out,
                                    "<path class=\"tb-ln tb-s%zu\" stroke-width=\"1.2\" "
                                    "d=\"M%.1f,%.1fH%.1f\"/>",
                                    colour_of(d->series), tb_svg_scale_map(&sc, d->lo), y,
                                    tb_svg_scale_map(&sc, d->hi));
            char val[64], tip[512];
            tb_svg_fmt_time(d->value, c->unit, val, sizeof val);
            snprintf(tip, sizeof tip, "%s, %s: %s", row->label ? row->label : "",
                     series_name(s, d->series), val);
            rc |= marker(out, "tb-dot", d->series, 0, tb_svg_scale_map(&sc, d->value), y, 4.5,
                         d->value, tip);
        }
        rc |= tb_buf_puts(out, "\n");
    }
    rc |= frame_end(out);
    return rc ? -1 : 0;
}

/* ---------------------------------------------------------------- sizes */

void tb_svg_fmt_bytes(double v, char *out, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    if (!isfinite(v)) {
        snprintf(out, len, "-");
        return;
    }
    size_t u = 0;
    double a = fabs(v);
    while (u + 1 < sizeof units / sizeof units[0] && a >= 1024) {
        a /= 1024;
        v /= 1024;
        u++;
    }
    char num[48];
    fmt_sig(v, 1, num, sizeof num);
    join3(out, len, num, " ", units[u]);
}

/* ---------------------------------------------------------------- forest */

#define FOREST_SUB_H 16.0  /* one mark's line */
#define FOREST_PAD 5.0     /* above and below a row's marks */
#define FOREST_HEAD_H 28.0 /* a heading row */
#define FOREST_RIGHT 234.0 /* the text column right of the plot */
#define RATIO_MIN 1e-3
#define RATIO_MAX 1e3

void tb_svg_ratio_fit(tb_svg_scale *s, double lo, double hi, double r0, double r1)
{
    double a = isfinite(lo) && lo > 0 ? lo : 1, b = isfinite(hi) && hi > 0 ? hi : 1;
    if (a > b) {
        double t = a;
        a = b;
        b = t;
    }
    s->kind = TB_SVG_LOG;
    s->d0 = fmax(fmin(a, 0.8) / 1.12, RATIO_MIN);
    s->d1 = fmin(fmax(b, 1.25) * 1.12, RATIO_MAX);
    s->r0 = r0;
    s->r1 = r1;
}

/* How readily a ratio is a tick (a lower level is kept longer): 0 for 1, 1 for powers of
   ten, 2 for 2 times them above 1 and 5 times them below (2, 20; 0.5, 0.05: reciprocals),
   3 for 5 times them above 1 and 2 times them below (5, 50; 0.2), 4 for 0.8 and 1.25,
   5 for 0.9 and 1.1. */
typedef struct ratio_tick {
    double v;
    int level;
} ratio_tick;

static int cmp_ratio_tick(const void *a, const void *b)
{
    double x = ((const ratio_tick *)a)->v, y = ((const ratio_tick *)b)->v;
    return (x > y) - (x < y);
}

static void ratio_label(double v, char *out, size_t len)
{
    char num[24];
    snprintf(num, sizeof num, "%g", v);
    join3(out, len, num, "\xc3\x97", NULL);
}

size_t tb_svg_ratio_ticks(const tb_svg_scale *s, tb_svg_tick *out, size_t max)
{
    ratio_tick cand[64];
    size_t n = 0;
    for (int e = -3; e <= 3; e++) {
        double p = pow(10, e);
        cand[n++] = (ratio_tick){p, e == 0 ? 0 : 1};
        cand[n++] = (ratio_tick){(e >= 0 ? 2 : 5) * p, 2};
        cand[n++] = (ratio_tick){(e >= 0 ? 5 : 2) * p, 3};
    }
    static const ratio_tick near[] = {{0.8, 4}, {1.25, 4}, {0.9, 5}, {1.1, 5}};
    for (size_t i = 0; i < 4; i++)
        cand[n++] = near[i];
    qsort(cand, n, sizeof *cand, cmp_ratio_tick);
    if (max > TB_SVG_TICK_MAX)
        max = TB_SVG_TICK_MAX;
    size_t best = 0;
    for (int level = 5; level >= 0; level--) {
        size_t k = 0;
        int fits = 1;
        double last_x = -INFINITY, last_w = 0;
        for (size_t i = 0; i < n; i++) {
            if (cand[i].level > level || cand[i].v < s->d0 * (1 - 1e-9) ||
                cand[i].v > s->d1 * (1 + 1e-9))
                continue;
            if (k == max) {
                fits = 0;
                break;
            }
            out[k].v = cand[i].v;
            ratio_label(cand[i].v, out[k].label, sizeof out[k].label);
            /* labels of 11 px text, centred on their ticks, 6 px apart at least */
            double x = tb_svg_scale_map(s, cand[i].v);
            double w = (double)tb_svg_strlen(out[k].label) * 6.2;
            if (x - last_x < (w + last_w) / 2 + 6)
                fits = 0;
            last_x = x;
            last_w = w;
            k++;
        }
        best = k;
        if (fits)
            break;
    }
    return best;
}

static const char *verdict_cls(int v)
{
    switch (v) {
    case TB_SVG_V_BETTER:
        return "tb-vb";
    case TB_SVG_V_WORSE:
        return "tb-vw";
    case TB_SVG_V_SAME:
        return "tb-vs";
    default:
        return "tb-vn";
    }
}

static const char *verdict_word(int v)
{
    switch (v) {
    case TB_SVG_V_BETTER:
        return "better";
    case TB_SVG_V_WORSE:
        return "worse";
    case TB_SVG_V_SAME:
        return "same";
    default:
        return "untested";
    }
}

static double forest_row_h(const tb_svg_forest_row *r)
{
    if (r->kind == TB_SVG_FOREST_HEADING)
        return FOREST_HEAD_H;
    return (r->n ? (double)r->n : 1) * FOREST_SUB_H + 2 * FOREST_PAD;
}

/* One entry of the forest's key: a swatch (kind: 0 a series' shape, 1 a verdict's circle,
   2 the shaded side, 3 a summary's diamond) and its words; laid out in lines from x0,
   wrapping at the chart's width. out NULL: layout only. Returns the x after it. */
static double key_entry(tb_buf *out, int kind, size_t arg, const char *words, double x0, double *x,
                        double *y, int *rc)
{
    size_t chars = tb_svg_strlen(words);
    if (chars > 28)
        chars = 28;
    double w = 22 + CHAR_W * (double)chars + 14;
    if (*x + w > TB_SVG_WIDTH - 8 && *x > x0) {
        *x = x0;
        *y += LEGEND_ROW_H;
    }
    if (out) {
        double cx = *x + 8, cy = *y - 4;
        if (kind == 0) {
            *rc |= tb_buf_puts(out, "<path class=\"tb-key tb-vs\" stroke-width=\"1.4\" d=\"");
            *rc |= marker_d(out, shape_of(arg), cx, cy, 4.5);
            *rc |= tb_buf_puts(out, "\"/>");
        } else if (kind == 1) {
            *rc |= tb_buf_printf(out, "<path class=\"tb-key %s\" stroke-width=\"1.4\" d=\"",
                                 verdict_cls((int)arg));
            *rc |= marker_d(out, 0, cx, cy, 4.5);
            *rc |= tb_buf_puts(out, "\"/>");
        } else if (kind == 2) {
            *rc |= tb_buf_printf(out,
                                 "<rect class=\"tb-side\" x=\"%.1f\" y=\"%.1f\" width=\"14\" "
                                 "height=\"12\"/>",
                                 cx - 7, cy - 6);
        } else {
            *rc |= tb_buf_printf(out,
                                 "<path class=\"tb-vg\" d=\"M%.1f,%.1fL%.1f,%.1fL%.1f,%.1fL%.1f,"
                                 "%.1fz\"/>",
                                 cx - 8, cy, cx, cy - 5, cx + 8, cy, cx, cy + 5);
        }
        *rc |= text_at(out, *x + 18, *y, "", "start", words, 28);
    }
    *x += w;
    return *x;
}

/* The key: the environments' shapes (those with marks), the verdicts' colours, the
   shaded side, the summaries' diamond. Returns the y of its last line. */
static double forest_key(tb_buf *out, const tb_svg_series *s, const tb_svg_forest_chart *c,
                         const unsigned char *used, double y, int *rc)
{
    double x0 = 8, x = x0;
    int summary = 0;
    for (size_t r = 0; r < c->n; r++)
        summary |= c->rows[r].kind == TB_SVG_FOREST_SUMMARY;
    for (size_t i = 0; s && i < s->n; i++)
        if (used[i])
            key_entry(out, 0, i, series_name(s, i), x0, &x, &y, rc);
    if (x > x0) { /* the verdicts on a line of their own */
        x = x0;
        y += LEGEND_ROW_H;
    }
    key_entry(out, 1, TB_SVG_V_BETTER, "better", x0, &x, &y, rc);
    key_entry(out, 1, TB_SVG_V_WORSE, "worse", x0, &x, &y, rc);
    key_entry(out, 1, TB_SVG_V_SAME, "no significant difference", x0, &x, &y, rc);
    key_entry(out, 1, TB_SVG_V_NONE, "not tested", x0, &x, &y, rc);
    key_entry(out, 2, 0, "shaded: the better side", x0, &x, &y, rc);
    if (summary)
        key_entry(out, 3, 0, "geometric mean", x0, &x, &y, rc);
    return y;
}

/* An arrow at the axis' end x (dir -1 left, +1 right) on line y: a value beyond it. */
static int arrow(tb_buf *out, double x, double y, int dir)
{
    return tb_buf_printf(out, "<path class=\"tb-vg\" d=\"M%.1f,%.1fl%.1f,-4v8z\"/>", x, y,
                         -dir * 7.0);
}

static int forest_mark(tb_buf *out, const tb_svg_series *s, const tb_svg_forest_row *row,
                       const tb_svg_forest_mark *m, const tb_svg_scale *sc, double yc, int keyed)
{
    int rc = 0;
    double px0 = fmin(sc->r0, sc->r1), px1 = fmax(sc->r0, sc->r1);
    char text[160];
    if (m->text)
        join3(text, sizeof text, m->text, NULL, NULL);
    else if (isfinite(m->value) && m->value > 0) {
        char num[48];
        tb_svg_fmt_num(m->value, num, sizeof num);
        join3(text, sizeof text, num, "\xc3\x97", NULL);
    } else
        join3(text, sizeof text, "no ratio", NULL, NULL);
    if (isfinite(m->value) && m->value > 0) { /* else the text alone says why not */
        int has_ci = isfinite(m->lo) && isfinite(m->hi) && m->lo > 0 && m->hi > 0;
        int summary = row->kind == TB_SVG_FOREST_SUMMARY;
        double xv = tb_svg_scale_map(sc, m->value), a = xv, z = xv;
        if (has_ci) {
            a = tb_svg_scale_map(sc, m->lo);
            z = tb_svg_scale_map(sc, m->hi);
            if (!summary) {
                rc |= tb_buf_printf(out, "<path class=\"tb-fw%s\" d=\"M%.1f,%.1fH%.1fM%.1f,%.1fv8",
                                    m->simulated ? " tb-dash" : "", a, yc, z, a, yc - 4);
                rc |= tb_buf_printf(out, "M%.1f,%.1fv8\"/>", z, yc - 4);
            }
        }
        /* beyond the axis: an arrow at its end (the text says the number) */
        if ((has_ci && m->lo < sc->d0 * (1 - 1e-9)) || m->value < sc->d0 * (1 - 1e-9))
            rc |= arrow(out, px0, yc, -1);
        if ((has_ci && m->hi > sc->d1 * (1 + 1e-9)) || m->value > sc->d1 * (1 + 1e-9))
            rc |= arrow(out, px1, yc, 1);
        if (summary) { /* a diamond over the interval, at least 10 pixels wide */
            double l = fmin(a, xv - 5), r = fmax(z, xv + 5);
            rc |= tb_buf_printf(out,
                                "<path class=\"tb-fm tb-vg\" d=\"M%.1f,%.1fL%.1f,%.1fL%.1f,"
                                "%.1fL%.1f,%.1fz\"",
                                l, yc, xv, yc - 6, r, yc, xv, yc + 6);
        } else {
            rc |= tb_buf_printf(out, "<path class=\"tb-fm %s\" stroke-width=\"1.6\" d=\"",
                                verdict_cls(m->verdict));
            rc |= marker_d(out, shape_of(m->series), xv, yc, 4.6);
            rc |= tb_buf_puts(out, "\"");
        }
        rc |= tb_buf_printf(
            out, " data-series=\"%zu\" data-value=\"%.17g\" data-verdict=\"%s\"", m->series,
            m->value, row->kind == TB_SVG_FOREST_SUMMARY ? "summary" : verdict_word(m->verdict));
        if (has_ci)
            rc |= tb_buf_printf(out, " data-lo=\"%.17g\" data-hi=\"%.17g\"", m->lo, m->hi);
        rc |= tb_buf_puts(out, "><title>");
        rc |= tb_svg_escape(out, series_name(s, m->series));
        rc |= tb_buf_puts(out, ": ");
        rc |= tb_svg_escape(out, m->tip ? m->tip : text);
        rc |= tb_buf_puts(out, "</title></path>");
    }
    double tx = px1 + 8;
    if (keyed) { /* several environments: each line of text starts with its shape */
        rc |= tb_buf_puts(out, "<path class=\"tb-key tb-vs\" stroke-width=\"1.2\" d=\"");
        rc |= marker_d(out, shape_of(m->series), px1 + 13, yc, 3.6);
        rc |= tb_buf_puts(out, "\"/>");
        tx += 12;
    }
    rc |= tb_buf_printf(out, "<text x=\"%.1f\" y=\"%.1f\"%s>", tx, yc + 4,
                        row->kind == TB_SVG_FOREST_SUMMARY ? " class=\"tb-gm\"" : "");
    rc |= tb_svg_escape_cut(out, text, 24);
    if (m->simulated)
        rc |= tb_buf_puts(out, " <tspan class=\"tb-simt\">SIMULATED</tspan>");
    rc |= tb_buf_puts(out, "</text>");
    return rc ? -1 : 0;
}

/* The forest's layout: the label column's right edge (lw), the plot's ends, the rows'
   top and bottom, the ratio scale; keyed: several environments have marks, so each
   mark's text starts with its shape. */
typedef struct forest_plot {
    double lw, px0, px1, top, bottom;
    tb_svg_scale sc;
    int keyed;
} forest_plot;

/* Over the rows that are not headings: which series have marks (used[series] = 1), the
   ratios the axis must hold (*lo, *hi: the metrics' values and intervals, the summaries'
   values -- their intervals may end beyond it) and the widest label (*label_w). */
static void forest_extent(const tb_svg_forest_chart *c, size_t n_series, unsigned char *used,
                          double *lo, double *hi, double *label_w)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    *label_w = 0;
    for (size_t r = 0; r < c->n; r++) {
        const tb_svg_forest_row *row = &c->rows[r];
        if (row->kind == TB_SVG_FOREST_HEADING)
            continue;
        size_t k = tb_svg_strlen(row->label);
        if (k > LABEL_MAX_CHARS)
            k = LABEL_MAX_CHARS;
        /* summaries are bold: a tenth wider */
        double w = (double)k * CHAR_W * (row->kind == TB_SVG_FOREST_SUMMARY ? 1.12 : 1);
        *label_w = w > *label_w ? w : *label_w;
        for (size_t i = 0; i < row->n; i++) {
            const tb_svg_forest_mark *m = &row->marks[i];
            if (m->series < n_series)
                used[m->series] = 1;
            double v[3] = {m->value, m->lo, m->hi};
            for (size_t j = 0; j < (row->kind == TB_SVG_FOREST_METRIC ? 3u : 1u); j++)
                if (isfinite(v[j]) && v[j] > 0) {
                    *lo = fmin(*lo, v[j]);
                    *hi = fmax(*hi, v[j]);
                }
        }
    }
}

static double forest_rows_h(const tb_svg_forest_chart *c)
{
    double h = 0;
    for (size_t r = 0; r < c->n; r++)
        h += forest_row_h(&c->rows[r]);
    return c->n ? h : FOREST_SUB_H + 2 * FOREST_PAD;
}

/* The ratio axis under the rows, its tick labels above them too (a long plot). */
static int forest_axis(tb_buf *out, const tb_svg_forest_chart *c, const forest_plot *p)
{
    tb_svg_tick t[TB_SVG_TICK_MAX];
    size_t nt = tb_svg_ratio_ticks(&p->sc, t, TB_SVG_TICK_MAX);
    int rc = 0;
    for (size_t i = 0; i < nt; i++)
        rc |= text_at(out, tb_svg_scale_map(&p->sc, t[i].v), p->top - 6, "tb-sm", "middle",
                      t[i].label, 0);
    char at[160];
    axis_title(c->xtitle, NULL, 1, at, sizeof at);
    rc |= x_axis_ticks(out, &p->sc, t, nt, p->top, p->bottom, at);
    if (!c->n)
        rc |= text_at(out, p->px0 + 4, p->top + 16, "tb-m", "start", "no data", 0);
    return rc ? -1 : 0;
}

/* The better side of each metric's row, under everything else, then the line at 1. */
static int forest_sides(tb_buf *out, const tb_svg_forest_chart *c, const forest_plot *p)
{
    double x1 = tb_svg_scale_map(&p->sc, 1), y = p->top;
    int rc = 0;
    for (size_t r = 0; r < c->n; r++) {
        const tb_svg_forest_row *row = &c->rows[r];
        double rh = forest_row_h(row);
        if (row->kind != TB_SVG_FOREST_HEADING && row->better)
            rc |= tb_buf_printf(out,
                                "<rect class=\"tb-side\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                                "height=\"%.1f\"/>",
                                row->better > 0 ? x1 : p->px0, y + 1,
                                row->better > 0 ? p->px1 - x1 : x1 - p->px0, rh - 2);
        y += rh;
    }
    rc |= tb_buf_printf(out, "<path class=\"tb-one\" d=\"M%.1f,%.1fV%.1f\"/>\n", x1, p->top,
                        p->bottom);
    return rc ? -1 : 0;
}

/* Row r at y, a <g class="tb-frow">: a heading (a rule above it but for the first), or
   a row's label (its direction on hover) and its marks. */
static int forest_row(tb_buf *out, const tb_svg_series *s, const tb_svg_forest_chart *c, size_t r,
                      const forest_plot *p, double y)
{
    const tb_svg_forest_row *row = &c->rows[r];
    double rh = forest_row_h(row);
    static const char *const kinds[] = {"metric", "summary", "heading"};
    int rc = tb_buf_printf(out, "<g class=\"tb-frow\" data-kind=\"%s\" data-label=\"",
                           kinds[row->kind >= 0 && row->kind <= 2 ? row->kind : 0]);
    rc |= tb_svg_escape(out, row->label);
    rc |= tb_buf_puts(out, "\">");
    if (row->kind == TB_SVG_FOREST_HEADING) {
        if (r)
            rc |= tb_buf_printf(out, "<path class=\"tb-ax\" d=\"M8,%.1fH%.1f\"/>", y + 4,
                                TB_SVG_WIDTH - 8);
        rc |= text_at(out, 8, y + 21, "tb-t", "start", row->label, 80);
        rc |= tb_buf_puts(out, "</g>\n");
        return rc ? -1 : 0;
    }
    if (r && c->rows[r - 1].kind != TB_SVG_FOREST_HEADING)
        rc |= tb_buf_printf(out, "<path class=\"tb-gr\" d=\"M8,%.1fH%.1f\"/>", y, p->px1);
    if (row->better) {
        rc |= tb_buf_puts(out, "<title>");
        rc |= tb_svg_escape(out, row->label);
        rc |= tb_buf_puts(out, row->better > 0 ? ": higher is better" : ": lower is better");
        rc |= tb_buf_puts(out, "</title>");
    }
    rc |= text_at(out, p->lw, y + rh / 2 + 4, row->kind == TB_SVG_FOREST_SUMMARY ? "tb-gm" : "",
                  "end", row->label, LABEL_MAX_CHARS);
    if (!row->n)
        rc |= text_at(out, p->px0 + 6, y + rh / 2 + 4, "tb-m", "start", "no ratio", 0);
    for (size_t i = 0; i < row->n; i++)
        rc |= forest_mark(out, s, row, &row->marks[i], &p->sc,
                          y + FOREST_PAD + ((double)i + 0.5) * FOREST_SUB_H, p->keyed);
    rc |= tb_buf_puts(out, "</g>\n");
    return rc ? -1 : 0;
}

int tb_svg_forest(tb_buf *out, const tb_svg_frame *f, const tb_svg_series *s,
                  const tb_svg_forest_chart *c)
{
    size_t n_series = s ? s->n : 0, n_used = 0;
    unsigned char *used = calloc(n_series ? n_series : 1, 1);
    if (!used)
        return -1;
    double lo, hi, label_w;
    forest_extent(c, n_series, used, &lo, &hi, &label_w);
    for (size_t i = 0; i < n_series; i++)
        n_used += used[i];
    int rc = 0;
    forest_plot p;
    p.lw = fmax(90, 14 + label_w);
    p.px0 = p.lw + 8;
    p.px1 = TB_SVG_WIDTH - FOREST_RIGHT;
    p.top = forest_key(NULL, s, c, used, 24, &rc) + 30; /* the upper tick labels above */
    p.bottom = p.top + forest_rows_h(c);
    p.keyed = n_used > 1;
    tb_svg_ratio_fit(&p.sc, lo, hi, p.px0, p.px1);
    rc |= frame_begin(out, f, p.bottom + AXIS_H + 8);
    forest_key(out, s, c, used, 24, &rc);
    rc |= forest_axis(out, c, &p);
    rc |= forest_sides(out, c, &p);
    double y = p.top;
    for (size_t r = 0; r < c->n; r++) {
        rc |= forest_row(out, s, c, r, &p, y);
        y += forest_row_h(&c->rows[r]);
    }
    free(used);
    rc |= frame_end(out);
    return rc ? -1 : 0;
}

/* ---------------------------------------------------------------- stacks */

#define STACK_ROW_H 24.0
#define STACK_H 16.0
#define STACK_RIGHT 210.0 /* the total, the parts missing, the measured whole */

/* The parts' key from y0: a swatch (its colour and hatching) and the name per part, in
   lines wrapping at the chart's width. out NULL: layout only. Returns the y of its last
   line. */
static double stack_key(tb_buf *out, const char *id, const tb_svg_stack_chart *c, size_t parts,
                        double y0, int *rc)
{
    double x = 8, y = y0;
    for (size_t p = 0; p < parts; p++) {
        size_t k = tb_svg_strlen(c->parts[p]);
        double w = 22 + CHAR_W * (double)(k > 24 ? 24 : k) + 14;
        if (x + w > TB_SVG_WIDTH - 8 && x > 8) {
            x = 8;
            y += LEGEND_ROW_H;
        }
        if (out) {
            *rc |= tb_buf_printf(out,
                                 "<rect class=\"tb-key tb-s%zu\" x=\"%.1f\" y=\"%.1f\" "
                                 "width=\"14\" height=\"12\" fill=\"url(#",
                                 colour_of(p), x + 1, y - 10);
            *rc |= tb_svg_escape(out, id);
            *rc |= tb_buf_printf(out, "-p%zu)\"/>", p);
            *rc |= text_at(out, x + 20, y, "", "start", c->parts[p], 24);
        }
        x += w;
    }
    return y;
}

static const char *stack_label(const tb_svg_series *s, const tb_svg_stack *row)
{
    return row->label ? row->label : series_name(s, row->series);
}

/* A row's segments at yc: one per part with a value (finite, > 0), end to end from the
   axis' start. *sum: their total, *shown: how many, *end_x: where the last one ends. */
static int stack_segments(tb_buf *out, const char *id, const tb_svg_stack_chart *c, size_t parts,
                          const tb_svg_stack *row, const char *label, const tb_svg_scale *sc,
                          double yc, double *sum, size_t *shown, double *end_x)
{
    int rc = 0;
    *sum = 0;
    *shown = 0;
    *end_x = sc->r0;
    for (size_t p = 0; p < parts; p++) {
        double v = row->values[p];
        if (!(isfinite(v) && v > 0))
            continue;
        double x0 = tb_svg_scale_map(sc, *sum), x1 = tb_svg_scale_map(sc, *sum + v);
        *sum += v;
        (*shown)++;
        char val[64], tip[512];
        tb_svg_fmt_value(v, c->unit, val, sizeof val);
        snprintf(tip, sizeof tip, "%s: %s %s", label, c->parts[p], val);
        rc |= tb_buf_printf(out,
                            "<rect class=\"tb-seg\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                            "height=\"%.1f\" fill=\"url(#",
                            x0, yc - STACK_H / 2, fmax(x1 - x0, 0.5), STACK_H);
        rc |= tb_svg_escape(out, id);
        rc |= tb_buf_printf(out,
                            "-p%zu)\" data-series=\"%zu\" data-part=\"%zu\" "
                            "data-value=\"%.17g\"><title>",
                            p, row->series, p, v);
        rc |= tb_svg_escape(out, tip);
        rc |= tb_buf_puts(out, "</title></rect>");
        *end_x = x1;
    }
    return rc ? -1 : 0;
}

/* Row r: its label, its segments, then its total ("(3 of 4)" when parts are missing)
   and its note. */
static int stack_row(tb_buf *out, const char *id, const tb_svg_series *s,
                     const tb_svg_stack_chart *c, size_t parts, size_t r, const tb_svg_scale *sc,
                     double top, double lw)
{
    const tb_svg_stack *row = &c->rows[r];
    const char *label = stack_label(s, row);
    double yc = top + ((double)r + 0.5) * STACK_ROW_H, sum, end_x;
    size_t shown;
    int rc = text_at(out, lw, yc + 4, "", "end", label, LABEL_MAX_CHARS);
    rc |= stack_segments(out, id, c, parts, row, label, sc, yc, &sum, &shown, &end_x);
    char total[64], right[256];
    tb_svg_fmt_value(sum, c->unit, total, sizeof total);
    if (!shown)
        snprintf(right, sizeof right, "no data");
    else if (shown < parts)
        snprintf(right, sizeof right, "%s (%zu of %zu)", total, shown, parts);
    else
        snprintf(right, sizeof right, "%s", total);
    rc |= tb_buf_printf(out, "<text x=\"%.1f\" y=\"%.1f\">", end_x + 6, yc + 4);
    rc |= tb_svg_escape(out, right);
    if (row->note) {
        rc |= tb_buf_puts(out, " <tspan class=\"tb-m\">");
        rc |= tb_svg_escape(out, row->note);
        rc |= tb_buf_puts(out, "</tspan>");
    }
    rc |= tb_buf_puts(out, "</text>\n");
    return rc ? -1 : 0;
}

int tb_svg_stacks(tb_buf *out, const tb_svg_frame *f, const tb_svg_series *s,
                  const tb_svg_stack_chart *c)
{
    size_t chars = 0, parts = c->n_parts < N_PATTERNS ? c->n_parts : N_PATTERNS;
    double most = 0;
    for (size_t r = 0; r < c->n; r++) {
        const tb_svg_stack *row = &c->rows[r];
        size_t k = tb_svg_strlen(stack_label(s, row));
        chars = k > chars ? k : chars;
        double sum = 0;
        for (size_t p = 0; p < parts; p++)
            if (isfinite(row->values[p]) && row->values[p] > 0)
                sum += row->values[p];
        most = fmax(most, sum);
    }
    int rc = 0;
    double lw = label_col(chars), px0 = lw + 8, px1 = TB_SVG_WIDTH - STACK_RIGHT;
    double top = stack_key(NULL, f->id, c, parts, 24, &rc) + 14;
    double rows_h = (c->n ? (double)c->n : 1) * STACK_ROW_H;
    tb_svg_scale sc;
    tb_svg_scale_fit(&sc, TB_SVG_LINEAR, 0, most > 0 ? most : 1, 1, px0, px1);
    rc |= frame_begin(out, f, top + rows_h + AXIS_H + 8);
    rc |= pattern_defs(out, f->id, parts);
    stack_key(out, f->id, c, parts, 24, &rc);
    char at[96];
    axis_title(c->xtitle, c->unit, 0, at, sizeof at);
    rc |= x_axis(out, &sc, c->unit, top, top + rows_h + 2, at);
    if (!c->n)
        rc |= text_at(out, px0 + 4, top + 16, "tb-m", "start", "no data", 0);
    for (size_t r = 0; r < c->n; r++)
        rc |= stack_row(out, f->id, s, c, parts, r, &sc, top, lw);
    rc |= frame_end(out);
    return rc ? -1 : 0;
}
