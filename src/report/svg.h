/* svg: the charts of `teebench report`, drawn as SVG text by teebench itself (no
 * script, no font, no network: a page that embeds them works offline and prints).
 *
 * Scales map data to pixels:
 * - linear, with "nice" ticks (1, 2 or 5 times a power of ten) and a domain widened
 *   to whole steps; negative values are fine, a zero-width range is widened;
 * - log10, ticks at powers of ten (plus 2 and 5 within a single decade, every k-th
 *   power over many decades); only positive values can be placed: values <= 0 are
 *   clamped to the left end and fitting ignores them;
 * - percentile, as HdrHistogram's plotter draws latency: x = -log10(1 - p/100) for
 *   p in percent, ticks "50%", "90%", "99%", "99.9%", "99.99%", "99.999%".
 *
 * Charts (each one <svg> element, appended to a tb_buf):
 * - tb_svg_bars: grouped horizontal bars, one panel per group (a metric with its own
 *   axis and unit), one bar per series (an environment) with a whisker for its
 *   interval and the value written at the bar's end;
 * - tb_svg_lines: curves over a percentile (or linear) x axis, solid or dashed, with
 *   a marker per point and the series' name written at the curve's end;
 * - tb_svg_boxes: box plots (quartiles, median, whiskers to the furthest sample within
 *   1.5 IQR) with every sample drawn as a dot (strip), one panel per group;
 * - tb_svg_dots: a dot plot, one row per item and one marker per series, with whiskers,
 *   usually on a log axis;
 * - tb_svg_forest: a forest plot of ratios to a baseline on one log axis (ticks at
 *   ratios people read: 0.5, 0.8, 1, 1.25, 2 ...), a vertical line at 1, one row per
 *   metric with one marker per series and its interval as a whisker, the marker
 *   coloured by the verdict (better, worse, no significant difference; hollow when not
 *   tested) and the better side of each row shaded; headings and summary rows
 *   (diamonds spanning their interval) between the metrics. Values beyond the axis
 *   sit at its end with an arrow; every row's text says the number;
 * - tb_svg_stacks: stacked horizontal bars, one per row, one segment per part (phases
 *   of a whole) in the part's colour and hatching, with a legend of parts and the
 *   total at the bar's end.
 * Readable without colour: series differ by colour AND by fill pattern (bars), marker
 * shape and dash (curves, dots); every bar and box row is labelled directly, curves
 * carry their name at their end, dot plots have a legend of shapes. Colours are CSS
 * variables (--tb-c0 ... --tb-c7, --tb-fg, --tb-bg, --tb-grid) set by tb_svg_css,
 * with a dark-mode variant; every text is escaped (tb_svg_escape); every axis has a
 * title with its unit. Elements carry classes for tests and readers: "tb-bar",
 * "tb-pt" (a curve's point), "tb-box", "tb-dot", "tb-fm" (a forest plot's marker;
 * its rows are <g class="tb-frow"> with data-kind and data-label), "tb-seg" (a stack's
 * segment), with data-series / data-value.
 *
 * Ownership: inputs are borrowed for the call; output is appended to the caller's
 * tb_buf. Functions return 0, or -1 (out of memory; the buffer then holds a partial
 * chart the caller discards). Pure: no I/O, no clock, no global state. */
#ifndef TB_REPORT_SVG_H
#define TB_REPORT_SVG_H

#include <stddef.h>

#include "base/buf.h"

/* ---- scales and ticks ---- */

enum tb_svg_kind { TB_SVG_LINEAR, TB_SVG_LOG, TB_SVG_PCTL };

typedef struct tb_svg_scale {
    enum tb_svg_kind kind;
    double d0, d1; /* domain: data units (LINEAR, LOG: d0 > 0) or percent (PCTL) */
    double r0, r1; /* range in pixels */
} tb_svg_scale;

#define TB_SVG_TICK_MAX 16

typedef struct tb_svg_tick {
    double v;       /* data value (percent for PCTL) */
    char label[24]; /* "50k", "0.25", "10 us" (time units on log axes), "99.9%" */
} tb_svg_tick;

/* A scale of the given kind covering [lo, hi], widened to nice ends: whole tick steps
   (LINEAR; include_zero pulls 0 in, as bars need), whole powers of ten (LOG), 50 % to
   the next "nines" (PCTL). Non-finite bounds are ignored; lo > hi is swapped; with no
   usable bound the domain is [0, 1] (LINEAR), [1, 10] (LOG), [50, 99] (PCTL). For
   LOG, non-positive bounds are ignored (the caller passes the smallest positive
   value). The range is [r0, r1]. */
void tb_svg_scale_fit(tb_svg_scale *s, enum tb_svg_kind kind, double lo, double hi,
                      int include_zero, double r0, double r1);
/* Pixel of data value v (clamped to the range; LOG: v <= 0 -> r0; PCTL: p >= 100 -> r1). */
double tb_svg_scale_map(const tb_svg_scale *s, double v);
/* The ticks of s, at most max (<= TB_SVG_TICK_MAX), in ascending order, labelled for
   unit: time units ("ns", "us", "ms", "s") on a LOG scale are written as times with
   their own unit ("10 ns", "1 us", "100 ms"); other numbers compactly ("0", "2.5",
   "50k", "1.2M"). Returns the number of ticks (>= 2 for any fitted scale). */
size_t tb_svg_ticks(const tb_svg_scale *s, const char *unit, tb_svg_tick *out, size_t max);
/* The step between linear ticks: 1, 2 or 5 times a power of ten, near span / target. */
double tb_svg_nice_step(double span, int target);

/* ---- text ---- */

/* Appends s to out escaped for HTML/XML text and attribute values (& < > " '); control
   bytes other than tab and newline, and bytes that are not valid UTF-8, become U+FFFD.
   NULL appends nothing. 0 or -1 (OOM). */
int tb_svg_escape(tb_buf *out, const char *s);
/* Appends at most max_chars characters of s (UTF-8 aware), with "…" when cut, escaped. */
int tb_svg_escape_cut(tb_buf *out, const char *s, size_t max_chars);
/* Characters (UTF-8 code points) in s. */
size_t tb_svg_strlen(const char *s);
/* A number for people: thousands separators from 1000 ("162,588"), else 3 significant
   digits ("34.9", "0.215", "1.00"); from 1e15 on "%.3g" ("1e+300"); "0" for zero,
   "-" when not finite. */
void tb_svg_fmt_num(double v, char *out, size_t len);
/* A duration given in unit ("ns", "us", "ms", "s") in the unit that suits it,
   3 significant digits: "850 ns", "12.3 us", "1.09 s". Other units: fmt_num + unit. */
void tb_svg_fmt_time(double v, const char *unit, char *out, size_t len);
/* A value with its unit as shown on a chart: fmt_num, a space and the unit ("us" shown
   as "µs"): "34,952 req/s", "0.215" (no unit). */
void tb_svg_fmt_value(double v, const char *unit, char *out, size_t len);
/* The unit as shown: "µs" for "us", others as they are, "" for NULL. */
const char *tb_svg_unit(const char *unit);
/* 1 when unit is a time unit this module converts ("ns", "us", "ms", "s"). */
int tb_svg_is_time(const char *unit);

/* A value in time unit `unit` (ns, us, ms, s) in nanoseconds; any other unit unchanged. */
double tb_svg_to_ns(double v, const char *unit);

/* A size in bytes with a binary unit, 3 significant digits at most, trailing zeros
   dropped: "512 B", "4 KiB", "1.5 MiB", "64 GiB". */
void tb_svg_fmt_bytes(double v, char *out, size_t len);

/* The style sheet of the charts (CSS: palette variables light and dark, patterns'
   colours, text, print). A page includes it once; a standalone SVG file embeds it. */
const char *tb_svg_css(void);

/* ---- charts ---- */

#define TB_SVG_WIDTH 760.0 /* viewBox width of every chart, pixels */

/* Common frame: id prefixes every id in the chart (unique within the page:
   "c1"), title and desc become <title>/<desc> (read by screen readers), section goes
   into data-section. standalone: add the XML namespace and embed tb_svg_css (for a
   .svg file of its own). */
typedef struct tb_svg_frame {
    const char *id;
    const char *section;
    const char *title;
    const char *desc;
    int standalone;
} tb_svg_frame;

/* The series (environments) of a chart: names for legends, in style order (series i is
   drawn in colour i % 8 and fill pattern / marker shape derived from i). */
typedef struct tb_svg_series {
    const char *const *names;
    size_t n;
} tb_svg_series;

typedef struct tb_svg_bar {
    size_t series;     /* index into the chart's series (style and legend) */
    const char *label; /* direct label left of the bar (an environment: may carry
                          "SIMULATED"); NULL: the series' name */
    double value;      /* bar length; not finite: no bar, "no data" */
    double lo, hi;     /* whisker; NAN: none */
    const char *note;  /* short text after the value ("noisy", "baseline"); may be NULL */
} tb_svg_bar;

typedef struct tb_svg_bar_group {
    const char *title; /* "http.nginx.rps" */
    const char *unit;  /* axis title unit, "req/s" */
    const char *sub;   /* e.g. "higher is better"; may be NULL */
    int log;           /* log axis (values must be > 0 to show) */
    const tb_svg_bar *bars;
    size_t n;
} tb_svg_bar_group;

int tb_svg_bars(tb_buf *out, const tb_svg_frame *f, const tb_svg_series *s,
                const tb_svg_bar_group *groups, size_t n_groups);

typedef struct tb_svg_curve {
    size_t series;
    const char *label;   /* written at the curve's end; NULL: the series' name */
    int dashed;          /* second line of the same series (e.g. "uncorrected") */
    const double *x, *y; /* n points; points with non-finite y are skipped */
    size_t n;
    const double *lo, *hi; /* per point, a vertical whisker (its interval); NULL, or a
                              non-finite end: none */
} tb_svg_curve;

typedef struct tb_svg_line_chart {
    enum tb_svg_kind xkind; /* TB_SVG_PCTL, TB_SVG_LINEAR or (with xticks) TB_SVG_LOG */
    const char *xtitle;     /* "percentile" */
    const char *xunit;      /* may be NULL (PCTL) */
    const char *ytitle;     /* "latency" */
    const char *yunit;      /* "ms" */
    int ylog;               /* -1: choose (log when max/min > 30), 0: linear, 1: log */
    const char *dash_note;  /* legend text for dashed curves ("dashed: uncorrected"), NULL */
    const tb_svg_curve *curves;
    size_t n;
    /* The x axis' ticks, when the caller knows them (a sweep's settings: "4 KiB", "qd 32"):
       the axis then spans the points' x (LINEAR or LOG, a little margin) instead of nice
       ends, and a point whose x is a tick's is named by its label. NULL: ticks of the
       scale. */
    const tb_svg_tick *xticks;
    size_t n_xticks;
} tb_svg_line_chart;

int tb_svg_lines(tb_buf *out, const tb_svg_frame *f, const tb_svg_series *s,
                 const tb_svg_line_chart *c);

typedef struct tb_svg_dist {
    size_t series;
    const char *label;     /* row label ("tdx-guest · tee_verify") */
    const double *samples; /* n values (unsorted; not modified) */
    size_t n;
} tb_svg_dist;

typedef struct tb_svg_dist_group {
    const char *title; /* "notarization" */
    const char *unit;  /* "ms" */
    const tb_svg_dist *rows;
    size_t n;
} tb_svg_dist_group;

int tb_svg_boxes(tb_buf *out, const tb_svg_frame *f, const tb_svg_series *s,
                 const tb_svg_dist_group *groups, size_t n_groups);

typedef struct tb_svg_dot {
    size_t series;
    double value;  /* not finite: no marker */
    double lo, hi; /* whisker; NAN: none */
} tb_svg_dot;

typedef struct tb_svg_dot_row {
    const char *label; /* "cpuid" */
    const tb_svg_dot *dots;
    size_t n;
} tb_svg_dot_row;

typedef struct tb_svg_dot_chart {
    const char *xtitle; /* "time per operation" */
    const char *unit;   /* "ns" */
    int log;
    const tb_svg_dot_row *rows;
    size_t n;
} tb_svg_dot_chart;

int tb_svg_dots(tb_buf *out, const tb_svg_frame *f, const tb_svg_series *s,
                const tb_svg_dot_chart *c);

/* ---- forest plot ---- */

/* The ratio axis of a forest plot: a LOG scale over [lo, hi] (the ratios and interval
   ends to show; non-finite and non-positive ones ignored) widened to hold 0.8 to 1.25
   and a margin, within [0.001, 1000]; range [r0, r1]. */
void tb_svg_ratio_fit(tb_svg_scale *s, double lo, double hi, double r0, double r1);
/* Its ticks: 1, powers of ten, then 2 and 0.5, 5 and 0.2 times them (reciprocals come
   together), 0.8 and 1.25, 0.9 and 1.1 -- the finest of those sets whose labels do not
   touch -- labelled "0.5x", "1x", "1.25x" (with the multiplication sign). Returns the
   count (>= 1). */
size_t tb_svg_ratio_ticks(const tb_svg_scale *s, tb_svg_tick *out, size_t max);

/* A mark's colour: what the test against the baseline says (compare's verdict). */
enum tb_svg_verdict {
    TB_SVG_V_NONE = 0, /* not tested (too few samples): hollow, dashed */
    TB_SVG_V_SAME,     /* no significant difference: hollow */
    TB_SVG_V_BETTER,
    TB_SVG_V_WORSE
};

typedef struct tb_svg_forest_mark {
    size_t series;    /* the environment: its marker shape (legend) */
    double value;     /* the ratio; not finite or <= 0: "no ratio" */
    double lo, hi;    /* its interval; NAN: none */
    int verdict;      /* enum tb_svg_verdict */
    int simulated;    /* measured with a SIMULATED TEE: dashed whisker, said in the text */
    const char *text; /* right of the plot: "0.800× worse"; NULL: the ratio alone */
    const char *tip;  /* hover text: the interval and the test in words; may be NULL */
} tb_svg_forest_mark;

enum tb_svg_forest_kind {
    TB_SVG_FOREST_METRIC = 0, /* a metric: markers with whiskers */
    TB_SVG_FOREST_SUMMARY,    /* a summary (a geometric mean): diamonds over its interval */
    TB_SVG_FOREST_HEADING     /* a group's heading (a category): text only */
};

typedef struct tb_svg_forest_row {
    int kind;          /* enum tb_svg_forest_kind */
    const char *label; /* "http.nginx.rps", "geometric mean, higher is better", "Throughput" */
    int better;        /* +1: higher is better (right of 1 shaded), -1: lower, 0: neither */
    const tb_svg_forest_mark *marks;
    size_t n; /* one sub-row each (headings: 0) */
} tb_svg_forest_row;

typedef struct tb_svg_forest_chart {
    const char *xtitle; /* "ratio to host" */
    const tb_svg_forest_row *rows;
    size_t n;
} tb_svg_forest_chart;

int tb_svg_forest(tb_buf *out, const tb_svg_frame *f, const tb_svg_series *s,
                  const tb_svg_forest_chart *c);

/* ---- stacked bars ---- */

typedef struct tb_svg_stack {
    size_t series;        /* the environment */
    const char *label;    /* row label; NULL: the series' name */
    const double *values; /* one per part of the chart; not finite: missing */
    const char *note;     /* after the total ("measured: 12.6 s"); may be NULL */
} tb_svg_stack;

typedef struct tb_svg_stack_chart {
    const char *xtitle;       /* "time" */
    const char *unit;         /* "s" */
    const char *const *parts; /* the parts' names in order: the legend */
    size_t n_parts;           /* <= 8: each its own colour and hatching */
    const tb_svg_stack *rows;
    size_t n;
} tb_svg_stack_chart;

int tb_svg_stacks(tb_buf *out, const tb_svg_frame *f, const tb_svg_series *s,
                  const tb_svg_stack_chart *c);

#endif
