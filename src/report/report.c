/* report: builds the page (see report.h) section by section into one buffer; charts
 * come from report/svg. In HTML they are inline; in markdown each is a standalone SVG
 * file of the tb_page and the text links to it. Appends are OR-ed into ctx.rc (any
 * -1 = out of memory), checked once at the end. Strings made for charts (labels) and
 * the charts' arrays live in a pool freed with the context (pooled, scratch). */
#include "report/report.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/num.h"
#include "report/svg.h"
#include "sys/env.h"

#define TITLE_MAX 512

typedef struct ctx {
    const tb_compare *c;
    enum tb_page_format fmt;
    const tb_page_opts *o;
    tb_page *page;
    tb_buf *out;
    char (*titles)[TITLE_MAX]; /* per record: tb_compare_title ("label [SIMULATED]") */
    char (*names)[TITLE_MAX];  /* per record: the title without " [<TEE>]" and " [SIMULATED]"
                                  (those are badges where a name is shown) */
    tb_record_tee_info *tee;   /* per record: its TEE kind and attestation evidence */
    int any_tee;               /* some record is a TEE or has evidence: cards say each one's */
    const char **title_ptrs;   /* titles as the charts' series names */
    unsigned char *sec;        /* per row: its section (enum section), from its category and
                                  its family (a sweep with two points or more, a phase) */
    const tb_wl_family **fam;  /* per row: its sweep or phases family, or NULL */
    double *fx;                /* per row: a sweep's setting, or the phase's position */
    void **pool;               /* strings and arrays made for charts (kept) */
    size_t n_pool, cap_pool;
    int charts;
    int rc;
} ctx;

int tb_page_format_parse(const char *s, enum tb_page_format *out)
{
    if (!strcmp(s, "html"))
        *out = TB_PAGE_HTML;
    else if (!strcmp(s, "markdown") || !strcmp(s, "md"))
        *out = TB_PAGE_MARKDOWN;
    else
        return -1;
    return 0;
}

void tb_page_free(tb_page *p)
{
    if (!p)
        return;
    tb_buf_clear(&p->doc);
    for (size_t i = 0; i < p->n_files; i++) {
        free(p->files[i].name);
        tb_buf_clear(&p->files[i].data);
    }
    free(p->files);
    memset(p, 0, sizeof *p);
}

/* ------------------------------------------------------------------ helpers */

static int starts(const char *s, const char *p)
{
    return !strncmp(s, p, strlen(p));
}

static int ends(const char *s, const char *p)
{
    size_t n = strlen(s), m = strlen(p);
    return n >= m && !strcmp(s + n - m, p);
}

static int html(const ctx *x)
{
    return x->fmt == TB_PAGE_HTML;
}

static void put(ctx *x, const char *s)
{
    x->rc |= tb_buf_puts(x->out, s);
}

static void putf(ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(ctx *x, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) {
        x->rc = -1;
        return;
    }
    if ((size_t)n < sizeof tmp) {
        put(x, tmp);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        x->rc = -1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    put(x, big);
    free(big);
}

/* Text from a result: HTML-escaped (in markdown too: markdown passes HTML through). */
static void text(ctx *x, const char *s)
{
    x->rc |= tb_svg_escape(x->out, s);
}

/* Text for markdown prose: HTML-escaped, and the characters that start markdown
   formatting backslash-escaped. */
static void md_text(ctx *x, const char *s)
{
    if (html(x)) {
        text(x, s);
        return;
    }
    tb_buf tmp = {0};
    x->rc |= tb_svg_escape(&tmp, s);
    for (size_t i = 0; i < tmp.len; i++) {
        char ch = (char)tmp.p[i];
        if (ch && strchr("\\`*_[]|~", ch))
            x->rc |= tb_buf_append(x->out, "\\", 1);
        x->rc |= tb_buf_append(x->out, &ch, 1);
    }
    tb_buf_clear(&tmp);
}

/* Keeps p (malloc'ed) until the context is freed. NULL, or no room to keep it (p is
   then freed): rc = -1 and NULL. */
static void *kept(ctx *x, void *p)
{
    if (p && x->n_pool == x->cap_pool) {
        size_t cap = x->cap_pool ? x->cap_pool * 2 : 64;
        void **q = realloc(x->pool, cap * sizeof *q);
        if (q) {
            x->pool = q;
            x->cap_pool = cap;
        } else {
            free(p);
            p = NULL;
        }
    }
    if (!p) {
        x->rc = -1;
        return NULL;
    }
    x->pool[x->n_pool++] = p;
    return p;
}

/* A string that lives as long as the context ("" when out of memory). */
static const char *pooled(ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static const char *pooled(ctx *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    const char *k = kept(x, n < 0 ? NULL : s);
    return k ? k : "";
}

/* n zeroed elements of size bytes that live as long as the context; NULL when out of
   memory (rc set). */
static void *scratch(ctx *x, size_t n, size_t size)
{
    return kept(x, calloc(n ? n : 1, size));
}

static void fmt_signed(double v, const char *unit, char *out, size_t len)
{
    char num[48];
    tb_svg_fmt_value(v, unit, num, sizeof num);
    snprintf(out, len, "%s%s", v > 0 ? "+" : "", num);
}

static void fmt_interval(double lo, double hi, const char *unit, int sign, char *out, size_t len)
{
    if (!isfinite(lo) || !isfinite(hi)) {
        out[0] = 0;
        return;
    }
    char a[40], b[40];
    tb_svg_fmt_num(lo, a, sizeof a);
    tb_svg_fmt_num(hi, b, sizeof b);
    const char *u = tb_svg_unit(unit);
    snprintf(out, len, "[%s%s, %s%s%s%s]", sign && lo > 0 ? "+" : "", a, sign && hi > 0 ? "+" : "",
             b, *u ? " " : "", u);
}

static void fmt_p(double p, char *out, size_t len)
{
    if (!isfinite(p))
        snprintf(out, len, "p not computable");
    else if (p < 0.001)
        snprintf(out, len, "p < 0.001");
    else {
        char num[32];
        tb_svg_fmt_num(p, num, sizeof num);
        snprintf(out, len, "p = %s", num);
    }
}

static const tb_metric *metric_of(const tb_record *r, const char *name)
{
    return tb_record_find(r, name);
}

/* The report's sections: a row goes to one by its category (its workload's table,
   workloads/): latency percentiles to curves, notary times to box plots, probes (times)
   to dot plots, everything else to the bars -- unless its workload's table puts it in a
   family: a sweep's points (two or more in the comparison) to line charts, phases to
   stacked bars. Every row is also in the forest plot. */
enum section { SEC_BARS, SEC_LATENCY, SEC_NOTARY, SEC_PROBE, SEC_SWEEP, SEC_PHASE };

static enum section section_of(const tb_compare_row *r)
{
    switch (r->category) {
    case TB_CAT_LATENCY:
        return r->spec.metric && r->spec.metric->pct > 0 ? SEC_LATENCY : SEC_BARS;
    case TB_CAT_NOTARY:
        return SEC_NOTARY;
    case TB_CAT_PROBE:
        return tb_svg_is_time(r->unit) ? SEC_PROBE : SEC_BARS;
    default:
        return SEC_BARS;
    }
}

/* The section a row is drawn in (ctx_init decided). */
static enum section place(const ctx *x, const tb_compare_row *r)
{
    return (enum section)x->sec[r - x->c->rows];
}

/* The order of the bars: the workloads people ask about first (throughput, system
   calls), then the rest. */
static int bars_rank(const tb_compare_row *r)
{
    return r->category == TB_CAT_THROUGHPUT ? 0 : r->category == TB_CAT_SYSCALL ? 1 : 2;
}

static void badge(ctx *x, const char *cls, const char *word)
{
    if (html(x))
        putf(x, " <span class=\"badge %s\">%s</span>", cls, word);
    else
        putf(x, " **[%s]**", word);
}

/* A chart being drawn: its frame (id "c<N>", numbered in page order), the series, and
   its SVG until chart_place takes it. Not to be copied (f.id points into it). */
typedef struct chart {
    tb_svg_frame f;
    char id[16];
    tb_svg_series s;
    tb_buf svg;
} chart;

static void chart_begin(ctx *x, chart *ch, const char *section, const char *title, const char *desc)
{
    snprintf(ch->id, sizeof ch->id, "c%d", ++x->charts);
    ch->f = (tb_svg_frame){ch->id, section, title, desc, !html(x)};
    ch->s = (tb_svg_series){x->title_ptrs, x->c->n_records};
    memset(&ch->svg, 0, sizeof ch->svg);
}

/* Puts the chart drawn into ch->svg: inline (HTML) or as a file beside the page named
   after stem, with a link whose alt text is the chart's title (markdown). */
static void chart_place(ctx *x, chart *ch, const char *stem)
{
    tb_buf *svg = &ch->svg;
    const char *alt = ch->f.title;
    if (html(x)) {
        put(x, "<figure>");
        x->rc |= tb_buf_append(x->out, svg->p, svg->len);
        put(x, "</figure>\n");
        tb_buf_clear(svg);
        return;
    }
    tb_page *p = x->page;
    tb_page_file *f = realloc(p->files, (p->n_files + 1) * sizeof *f);
    if (!f) {
        x->rc = -1;
        tb_buf_clear(svg);
        return;
    }
    p->files = f;
    char *name = NULL;
    if (asprintf(&name, "%s-%s.svg", x->o->svg_prefix ? x->o->svg_prefix : "report", stem) < 0) {
        x->rc = -1;
        tb_buf_clear(svg);
        return;
    }
    f[p->n_files].name = name;
    f[p->n_files].data = *svg;
    p->n_files++;
    memset(svg, 0, sizeof *svg);
    put(x, "![");
    md_text(x, alt);
    put(x, "](");
    text(x, name);
    put(x, ")\n\n");
}

/* s between html_open and html_close in HTML, md_open and md_close in markdown. */
static void wrapped(ctx *x, const char *s, const char *html_open, const char *html_close,
                    const char *md_open, const char *md_close)
{
    put(x, html(x) ? html_open : md_open);
    md_text(x, s);
    put(x, html(x) ? html_close : md_close);
}

static void subheading(ctx *x, const char *s)
{
    wrapped(x, s, "<h3>", "</h3>\n", "### ", "\n\n");
}

static void section_head(ctx *x, const char *id, const char *title)
{
    if (html(x))
        putf(x, "<section id=\"%s\" data-section=\"%s\"><h2>%s</h2>\n", id, id, title);
    else
        putf(x, "## %s\n\n", title);
}

static void section_end(ctx *x)
{
    if (html(x))
        put(x, "</section>\n");
}

static void note(ctx *x, const char *s)
{
    wrapped(x, s, "<p class=\"note\">", "</p>\n", "_", "_\n\n");
}

/* Rows placed in section sec. */
static size_t count_placed(const ctx *x, enum section sec)
{
    size_t n = 0;
    for (size_t k = 0; k < x->c->n_rows; k++)
        n += place(x, &x->c->rows[k]) == sec;
    return n;
}

/* ------------------------------------------------------------------ headline */

typedef struct hl_line {
    const char *metric;
    const char *kind; /* "ratio", "value", "overhead" */
    double value;     /* the big number, exactly */
    double pct;       /* overhead in % of the no_tee notarization; NAN: none */
    char lead[128], big[64], what[256], ci[128], extra[160], verdict[192];
    int simulated, noisy;
} hl_line;

/* The p a verdict was decided by: "p = 0.013", or "adjusted p = 0.040". */
static void verdict_p(const tb_compare *c, const tb_compare_cell *cell, char *out, size_t len)
{
    char p[48];
    fmt_p(cell->p_adjusted, p, sizeof p);
    snprintf(out, len, "%s%s", c->adjust == TB_STATS_ADJUST_NONE ? "" : "adjusted ", p);
}

/* "significantly higher: better (p = 0.013)": the direction is the test's (the
   side the samples are shifted to), with compare's note where the medians do not
   show it ("significantly higher (shifted, medians equal): better ..."). */
static void verdict_words(const tb_compare *c, const tb_compare_row *row, size_t i, char *out,
                          size_t len)
{
    const tb_compare_cell *cell = &row->cells[i];
    char p[64];
    verdict_p(c, cell, p, sizeof p);
    const char *shift = tb_compare_shift_note(c, row, i);
    switch (cell->verdict) {
    case TB_COMPARE_SAME:
        snprintf(out, len, "no significant difference (%s)", p);
        break;
    case TB_COMPARE_BETTER:
    case TB_COMPARE_WORSE:
        snprintf(out, len, "significantly %s%s%s%s: %s (%s)", cell->shift > 0 ? "higher" : "lower",
                 shift ? " (" : "", shift ? shift : "", shift ? ")" : "",
                 cell->verdict == TB_COMPARE_BETTER ? "better" : "worse", p);
        break;
    case TB_COMPARE_UNTESTABLE:
        snprintf(out, len, "too few samples to test a difference");
        break;
    default:
        out[0] = 0;
    }
}

/* A headline line of row's metric: its kind, the big number's exact value, no
   percentage; SIMULATED and noisy as cell is. */
static void line_start(hl_line *l, const tb_compare_row *row, const char *kind, double value,
                       const tb_compare_cell *cell)
{
    memset(l, 0, sizeof *l);
    l->metric = row->name;
    l->kind = kind;
    l->value = value;
    l->pct = NAN;
    l->simulated = cell->simulated;
    l->noisy = cell->noisy;
}

/* "the host's nginx throughput": ratio of record i to the baseline. 0: no line. */
static int ratio_line(ctx *x, const tb_compare_row *row, size_t i, const char *words, hl_line *l)
{
    const tb_compare_cell *cell = &row->cells[i], *base = &row->cells[x->c->baseline];
    if (!cell->present || !base->present || !isfinite(cell->ratio))
        return 0;
    line_start(l, row, "ratio", cell->ratio, cell);
    char num[32], a[32], b[64];
    tb_svg_fmt_num(cell->ratio, num, sizeof num);
    snprintf(l->big, sizeof l->big, "%s\xc3\x97", num);
    snprintf(l->what, sizeof l->what, "the %s's %s", x->names[x->c->baseline], words);
    if (isfinite(cell->ratio_lo) && isfinite(cell->ratio_hi)) {
        tb_svg_fmt_num(cell->ratio_lo, a, sizeof a);
        tb_svg_fmt_num(cell->ratio_hi, b, sizeof b);
        snprintf(l->ci, sizeof l->ci, "[%s, %s]", a, b);
    } else {
        snprintf(l->ci, sizeof l->ci, "%s",
                 cell->ratio_ci_why == TB_COMPARE_CI_NON_POSITIVE
                     ? "(no interval: a sample \xe2\x89\xa4 0)"
                     : "(too few samples for an interval)");
    }
    tb_svg_fmt_num(cell->median, a, sizeof a);
    tb_svg_fmt_value(base->median, row->unit, b, sizeof b);
    snprintf(l->extra, sizeof l->extra, "(%s vs %s)", a, b);
    verdict_words(x->c, row, i, l->verdict, sizeof l->verdict);
    l->simulated = cell->simulated || base->simulated;
    l->noisy = cell->noisy || base->noisy;
    return 1;
}

/* "nginx throughput: 162,588 req/s [..]": record i's own median. 0: no line. */
static int value_line(ctx *x, const tb_compare_row *row, size_t i, const char *words, hl_line *l)
{
    const tb_compare_cell *cell = &row->cells[i];
    if (!cell->present || cell->n == 0)
        return 0;
    (void)x;
    line_start(l, row, "value", cell->median, cell);
    snprintf(l->lead, sizeof l->lead, "%s: ", words);
    tb_svg_fmt_value(cell->median, row->unit, l->big, sizeof l->big);
    fmt_interval(cell->lo, cell->hi, row->unit, 0, l->ci, sizeof l->ci);
    if (!l->ci[0])
        snprintf(l->ci, sizeof l->ci, "(too few samples for an interval)");
    snprintf(l->extra, sizeof l->extra, "(median of %zu)", cell->n);
    return 1;
}

/* "+278 ms (+25.5 %) to a notarization": an overhead metric of record i, in % of
   the median of `of` (the no_tee notarization) where that exists. 0: no line. */
static int overhead_line(ctx *x, const tb_compare_row *row, const tb_compare_row *of, size_t i,
                         const char *words, hl_line *l)
{
    const tb_compare_cell *cell = &row->cells[i];
    if (!cell->present || cell->n == 0)
        return 0;
    (void)x;
    line_start(l, row, "overhead", cell->median, cell);
    if (of && of->cells[i].present && of->cells[i].median > 0 && !strcmp(of->unit, row->unit))
        l->pct = cell->median / of->cells[i].median * 100;
    fmt_signed(cell->median, row->unit, l->big, sizeof l->big);
    char pct[64] = "";
    if (isfinite(l->pct)) {
        char num[48];
        tb_svg_fmt_num(l->pct, num, sizeof num);
        snprintf(pct, sizeof pct, "(%s%s %%) ", l->pct > 0 ? "+" : "", num);
    }
    snprintf(l->what, sizeof l->what, "%s%s", pct, words);
    fmt_interval(cell->lo, cell->hi, row->unit, 1, l->ci, sizeof l->ci);
    if (!l->ci[0])
        snprintf(l->verdict, sizeof l->verdict, "too few samples for an interval");
    else if (cell->lo > 0)
        snprintf(l->verdict, sizeof l->verdict, "a real cost: its interval excludes 0");
    else if (cell->hi < 0)
        snprintf(l->verdict, sizeof l->verdict, "a saving: its interval excludes 0");
    else
        snprintf(l->verdict, sizeof l->verdict,
                 "no significant difference: its interval "
                 "includes 0");
    return 1;
}

/* A headline line: a list item with the metric's data attributes in HTML, a markdown
   list item else; the same parts in the same order in both. */
static void put_line(ctx *x, const hl_line *l)
{
    if (html(x)) {
        putf(x, "<li class=\"hl\" data-metric=\"");
        text(x, l->metric);
        putf(x, "\" data-kind=\"%s\" data-value=\"%.17g\"", l->kind, l->value);
        if (isfinite(l->pct))
            putf(x, " data-pct=\"%.17g\"", l->pct);
        put(x, ">");
    } else {
        put(x, "- ");
    }
    md_text(x, l->lead);
    wrapped(x, l->big, "<b class=\"big\">", "</b>", "**", "**");
    if (l->what[0])
        wrapped(x, l->what, " ", "", " ", "");
    if (l->ci[0])
        wrapped(x, l->ci, " <span class=\"ci\">", "</span>", " ", "");
    if (l->extra[0])
        wrapped(x, l->extra, " <span class=\"ex\">", "</span>", " ", "");
    if (l->simulated)
        badge(x, "sim", "SIMULATED");
    if (l->noisy)
        badge(x, "noisy", "noisy");
    if (l->verdict[0])
        wrapped(x, l->verdict, "<span class=\"v\">", "</span>", " \xe2\x80\x94 ", "");
    put(x, html(x) ? "</li>\n" : "\n");
}

/* The HTTP row of the headline: target nginx, else the first http.<t>.rps. */
static const tb_compare_row *http_rps_row(const tb_compare *c, char *target, size_t len)
{
    const tb_compare_row *r = tb_compare_find(c, "http.nginx.rps");
    if (r) {
        snprintf(target, len, "nginx");
        return r;
    }
    for (size_t k = 0; k < c->n_rows; k++) {
        const tb_wl_match *m = &c->rows[k].spec;
        if (m->metric && !strcmp(m->metric->name, "http.*.rps")) {
            snprintf(target, len, "%s", m->part);
            return &c->rows[k];
        }
    }
    return NULL;
}

static void card(ctx *x, size_t i)
{
    const tb_compare *c = x->c;
    int is_base = i == c->baseline, single = c->n_records == 1;
    hl_line l;
    size_t lines = 0;
    if (html(x)) {
        put(x, "<div class=\"card\" data-env=\"");
        text(x, c->records[i]->label ? c->records[i]->label : "");
        put(x, "\"><h3>");
        text(x, x->names[i]);
    } else {
        put(x, "### ");
        md_text(x, x->names[i]);
    }
    const tb_record_tee_info *tee = &x->tee[i];
    if (tb_record_tee_kind_is_tee(tee->kind))
        badge(x, "tee", tee->kind);
    if (is_base && !single)
        badge(x, "base", "baseline");
    if (c->records[i]->simulated)
        badge(x, "sim", "SIMULATED");
    put(x, html(x) ? "</h3>" : "\n\n");
    if (x->any_tee) {
        char words[160];
        snprintf(words, sizeof words, "TEE %s; attestation evidence %s", tee->kind,
                 tee->evidence[0] ? tee->evidence : "none recorded");
        put(x, html(x) ? "<p class=\"tee\">" : "");
        md_text(x, words);
        put(x, html(x) ? "</p>" : "\n\n");
    }
    put(x, html(x) ? "<ul>\n" : "");

    char target[160], words[256];
    const tb_compare_row *rps = http_rps_row(c, target, sizeof target);
    const tb_compare_row *sys = tb_compare_find(c, "syscall.cn.index");
    if (!sys)
        sys = tb_compare_find(c, "syscall.c1.index");
    if (rps) {
        snprintf(words, sizeof words, "%s throughput", target);
        if (is_base ? value_line(x, rps, i, words, &l) : ratio_line(x, rps, i, words, &l))
            put_line(x, &l), lines++;
    }
    if (sys) {
        snprintf(words, sizeof words, "System Call Overhead index%s",
                 ends(sys->name, "cn.index") ? " (N copies)" : " (1 copy)");
        if (is_base ? value_line(x, sys, i, words, &l) : ratio_line(x, sys, i, words, &l))
            put_line(x, &l), lines++;
    }
    const tb_compare_row *base_notary = tb_compare_find(c, "notary.no_tee.notarization_ms");
    static const struct {
        const char *metric, *words;
    } over[] = {
        {"notary.tee_no_verify.overhead_ms", "to a notarization with TEE attestation"},
        {"notary.tee_verify.overhead_ms", "with attestation and quote verification"},
    };
    for (size_t k = 0; k < 2; k++) {
        const tb_compare_row *r = tb_compare_find(c, over[k].metric);
        if (r && overhead_line(x, r, base_notary, i, over[k].words, &l))
            put_line(x, &l), lines++;
    }
    static const struct {
        const char *metric, *words;
    } verify[] = {
        {"notary.tee_verify.verify_ms", "quote verification in the notary client"},
        {"attest.verify_scratch.ms", "quote verification from scratch"},
        {"attest.verify_prepared.us", "quote verification, collateral prepared"},
    };
    for (size_t k = 0; k < 3; k++) {
        const tb_compare_row *r = tb_compare_find(c, verify[k].metric);
        if (r && value_line(x, r, i, verify[k].words, &l))
            put_line(x, &l), lines++;
    }
    if (!lines) {
        if (html(x))
            put(x, "<li class=\"note\">none of the headline metrics was measured here</li>\n");
        else
            put(x, "- _none of the headline metrics was measured here_\n");
    }
    put(x, html(x) ? "</ul></div>\n" : "\n");
}

static void headline(ctx *x)
{
    section_head(x, "headline", "Headline");
    const tb_compare *c = x->c;
    if (c->n_records > 1) {
        char p[256];
        snprintf(p, sizeof p,
                 "Each environment against the baseline, %s: medians, ratios of medians with "
                 "95 %% intervals, and a two-sided Mann-Whitney U test at alpha = %g.",
                 x->names[c->baseline], c->alpha);
        if (html(x)) {
            put(x, "<p class=\"meta\">");
            text(x, p);
            put(x, "</p>\n");
        } else {
            md_text(x, p);
            put(x, "\n\n");
        }
    }
    if (html(x))
        put(x, "<div class=\"cards\">\n");
    card(x, c->baseline);
    for (size_t i = 0; i < c->n_records; i++)
        if (i != c->baseline)
            card(x, i);
    if (html(x))
        put(x, "</div>\n");
    section_end(x);
}

/* ------------------------------------------------------------------ forest plot */

/* "Throughput", "Key-value": a category's name as a heading. */
static void category_title(tb_wl_category cat, char *out, size_t n)
{
    snprintf(out, n, "%s", tb_wl_category_name(cat));
    if (out[0] >= 'a' && out[0] <= 'z')
        out[0] = (char)(out[0] - 'a' + 'A');
}

static int svg_verdict(int v)
{
    return v == TB_COMPARE_BETTER  ? TB_SVG_V_BETTER
           : v == TB_COMPARE_WORSE ? TB_SVG_V_WORSE
           : v == TB_COMPARE_SAME  ? TB_SVG_V_SAME
                                   : TB_SVG_V_NONE;
}

/* Whether row is measured in the baseline and in some other record: a forest row. */
static int compared(const tb_compare *c, const tb_compare_row *row)
{
    if (!row->cells[c->baseline].present || !row->cells[c->baseline].n)
        return 0;
    for (size_t i = 0; i < c->n_records; i++)
        if (i != c->baseline && row->cells[i].present && row->cells[i].n)
            return 1;
    return 0;
}

/* The mark of record i in a metric's row. */
static void metric_mark(ctx *x, const tb_compare_row *row, size_t i, tb_svg_forest_mark *m)
{
    const tb_compare *c = x->c;
    const tb_compare_cell *cell = &row->cells[i];
    memset(m, 0, sizeof *m);
    m->series = i;
    m->value = cell->ratio;
    m->lo = cell->ratio_lo;
    m->hi = cell->ratio_hi;
    m->verdict = svg_verdict(cell->verdict);
    m->simulated = cell->simulated || row->cells[c->baseline].simulated;
    if (!cell->present || !cell->n) {
        m->value = NAN;
        m->text = "not measured here";
        m->tip = "not measured in this environment";
        return;
    }
    if (!isfinite(cell->ratio)) {
        m->text = "no ratio";
        m->tip = "no ratio: a median \xe2\x89\xa4 0";
        return;
    }
    char num[48], ci[96], words[192];
    tb_svg_fmt_num(cell->ratio, num, sizeof num);
    static const char *const short_v[] = {"", "", "~", "better", "worse", "untested"};
    const char *v =
        cell->verdict >= 0 && cell->verdict <= TB_COMPARE_UNTESTABLE ? short_v[cell->verdict] : "";
    m->text = pooled(x, "%s\xc3\x97%s%s", num, *v ? " " : "", v);
    fmt_interval(cell->ratio_lo, cell->ratio_hi, NULL, 0, ci, sizeof ci);
    if (!ci[0])
        snprintf(ci, sizeof ci, "%s",
                 cell->ratio_ci_why == TB_COMPARE_CI_NON_POSITIVE
                     ? "(no interval: a sample \xe2\x89\xa4 0)"
                     : "(too few samples for an interval)");
    verdict_words(c, row, i, words, sizeof words);
    m->tip = pooled(x, "%s\xc3\x97 %s; %s%s", num, ci, words, m->simulated ? "; SIMULATED" : "");
}

/* Appends the rows of category cat to rows (n so far, room for it all): its heading, a
   geometric mean per direction with two metrics or more, its metrics. Returns n. */
static size_t forest_category(ctx *x, tb_wl_category cat, tb_svg_forest_row *rows, size_t n,
                              tb_svg_forest_mark *marks, size_t *used)
{
    const tb_compare *c = x->c;
    size_t nr = c->n_records, metrics = 0, dir_n[2] = {0, 0};
    for (size_t k = 0; k < c->n_rows; k++) {
        const tb_compare_row *row = &c->rows[k];
        if (row->category != cat || !compared(c, row))
            continue;
        metrics++;
        dir_n[row->better == TB_BETTER_HIGHER ? 0 : 1]++;
    }
    if (!metrics)
        return n;
    char title[64];
    category_title(cat, title, sizeof title);
    rows[n].kind = TB_SVG_FOREST_HEADING;
    rows[n].label = pooled(x, "%s \xc2\xb7 %zu metric%s", title, metrics, metrics == 1 ? "" : "s");
    n++;
    for (int d = 0; d < 2; d++) {
        int better = d ? TB_BETTER_LOWER : TB_BETTER_HIGHER;
        if (dir_n[d] < 2)
            continue;
        tb_svg_forest_mark *m = marks + *used;
        size_t nm = 0, most = 0;
        for (size_t i = 0; i < nr; i++) {
            if (i == c->baseline)
                continue;
            tb_compare_gm g;
            tb_compare_category_geomean(c, i, cat, better, &g);
            memset(&m[nm], 0, sizeof m[nm]);
            m[nm].series = i;
            m[nm].value = g.ratio;
            m[nm].lo = g.lo;
            m[nm].hi = g.hi;
            m[nm].simulated = g.simulated;
            most = g.n > most ? g.n : most;
            char num[48], ci[96];
            tb_svg_fmt_num(g.ratio, num, sizeof num);
            fmt_interval(g.lo, g.hi, NULL, 0, ci, sizeof ci);
            if (!g.n) {
                m[nm].text = "no ratio";
            } else {
                m[nm].text = pooled(x, "%s\xc3\x97%s%s", num, ci[0] ? " " : "", ci);
                m[nm].tip =
                    pooled(x,
                           "geometric mean of %zu ratio%s: %s\xc3\x97 %s (a t interval across the "
                           "metrics)%s",
                           g.n, g.n == 1 ? "" : "s", num, ci[0] ? ci : "(no interval: one metric)",
                           g.simulated ? "; SIMULATED metrics among them" : "");
            }
            nm++;
        }
        rows[n].kind = TB_SVG_FOREST_SUMMARY;
        rows[n].label = pooled(x, "geomean, %s better (%zu)", d ? "lower" : "higher", most);
        rows[n].better = d ? -1 : 1;
        rows[n].marks = m;
        rows[n].n = nm;
        *used += nm;
        n++;
    }
    for (size_t k = 0; k < c->n_rows; k++) {
        const tb_compare_row *row = &c->rows[k];
        if (row->category != cat || !compared(c, row))
            continue;
        tb_svg_forest_mark *m = marks + *used;
        size_t nm = 0;
        for (size_t i = 0; i < nr; i++)
            if (i != c->baseline)
                metric_mark(x, row, i, &m[nm++]);
        rows[n].kind = TB_SVG_FOREST_METRIC;
        rows[n].label = row->name;
        rows[n].better = row->better == TB_BETTER_HIGHER ? 1 : -1;
        rows[n].marks = m;
        rows[n].n = nm;
        *used += nm;
        n++;
    }
    return n;
}

static void forest_section(ctx *x)
{
    const tb_compare *c = x->c;
    if (c->n_records < 2)
        return; /* one environment: nothing to compare; the headline says its numbers */
    section_head(x, "overview", "Every metric against the baseline");
    size_t n_rows = 0, n_absent = 0;
    int any_sim = 0;
    for (size_t k = 0; k < c->n_rows; k++) {
        if (compared(c, &c->rows[k])) {
            n_rows++;
            any_sim |= c->rows[k].simulated;
        } else {
            n_absent++;
        }
    }
    /* rows: per category a heading, up to two means and its metrics */
    size_t cap = n_rows + 3 * TB_CAT_COUNT + 1,
           cap_m = (n_rows + 2 * TB_CAT_COUNT + 1) * c->n_records;
    tb_svg_forest_row *rows = scratch(x, cap, sizeof *rows);
    tb_svg_forest_mark *marks = scratch(x, cap_m, sizeof *marks);
    if (!rows || !marks)
        return;
    size_t n = 0, used = 0;
    for (int k = 1; k <= TB_CAT_COUNT; k++) /* the categories in the tables' order, other last */
        n = forest_category(x, (tb_wl_category)(k % TB_CAT_COUNT), rows, n, marks, &used);
    if (!n_rows) {
        note(x, "No metric was measured both in the baseline and in another environment.");
    } else {
        tb_svg_forest_chart fc = {pooled(x, "ratio to %s", x->names[c->baseline]), rows, n};
        const char *title = pooled(x, "Every metric against %s", x->names[c->baseline]);
        chart ch;
        chart_begin(x, &ch, "overview", title,
                    "A forest plot: one row per metric, grouped by category, with each "
                    "environment's ratio of medians to the baseline and its 95 % interval on one "
                    "log axis; the marker's colour is the rank test's verdict; per category, "
                    "diamonds give the geometric mean of the ratios per direction with a t "
                    "interval across the metrics.");
        x->rc |= tb_svg_forest(&ch.svg, &ch.f, &ch.s, &fc);
        chart_place(x, &ch, "overview");
        char words[1400];
        snprintf(words, sizeof words,
                 "Each row: one metric, the ratio of an environment's median to the baseline's "
                 "(%s) with its 95 %% percentile-bootstrap interval as a whisker, on a log axis "
                 "(1: the same). The marker's colour is the Mann-Whitney U test's verdict%s: "
                 "better or worse in the metric's own direction, hollow for no significant "
                 "difference, dashed for too few samples to test. The shaded half of a row is "
                 "its better side: right of 1 where higher is better, left where lower is "
                 "better.%s Diamonds: per category and direction, the geometric mean of the ratios "
                 "with a 95 %% Student's t interval across that category's metrics -- it says "
                 "where the typical ratio of those metrics lies given how much they disagree "
                 "with each other, not how precisely each one was measured (the whiskers say "
                 "that), and metrics of one workload (percentiles of one latency) are not "
                 "independent: read it as a summary of the spread, not as a test.",
                 x->names[c->baseline],
                 c->adjust == TB_STATS_ADJUST_NONE ? "" : " (p adjusted for many tests)",
                 any_sim ? " SIMULATED: measured with a simulated TEE, here or in the baseline."
                         : "");
        note(x, words);
        if (n_absent) {
            char more[160];
            snprintf(more, sizeof more,
                     "%zu metric%s measured on one side only (not in the baseline, or only in "
                     "it): in the table below, not in the plot.",
                     n_absent, n_absent == 1 ? " is" : "s are");
            note(x, more);
        }
    }
    section_end(x);
}

/* ------------------------------------------------------------------ bounce split */

/* The share as a percentage with its interval: "62 % [41, 80]". */
static void fmt_share(const tb_compare_bounce *b, char *out, size_t len)
{
    if (!isfinite(b->share)) {
        snprintf(out, len, "-");
        return;
    }
    if (b->why == TB_COMPARE_BOUNCE_OK)
        snprintf(out, len, "%.0f %% [%.0f, %.0f]", 100 * b->share, 100 * b->lo, 100 * b->hi);
    else
        snprintf(out, len, "%.0f %%", 100 * b->share);
}

/* A panel of bars for row: its name, unit and direction. */
static tb_svg_bar_group bar_group_of(const tb_compare_row *row, const tb_svg_bar *bars, size_t n)
{
    tb_svg_bar_group g = {row->name,
                          row->unit,
                          row->better == TB_BETTER_HIGHER ? "higher is better" : "lower is better",
                          0,
                          bars,
                          n};
    return g;
}

/* The roles of the three records of the split, in the order they are shown. */
static const char *const bounce_role[3] = {"VM", "VM+bounce", "TD"};

/* The split over the records rec (VM, VM+bounce, TD): per I/O metric measured in all
   three, its row and its share (arrays of the context's pool). */
typedef struct bounce {
    size_t rec[3];
    const tb_compare_row **rows;
    tb_compare_bounce *sh;
    size_t n;
} bounce;

/* Whether the split covers row: an I/O metric measured in all three records. */
static int bounce_covers(const tb_compare_row *row, const size_t rec[3])
{
    int in_all = 1;
    for (int j = 0; j < 3; j++)
        in_all &= row->cells[rec[j]].present && row->cells[rec[j]].n > 0;
    return tb_compare_bounce_category(row->category) && in_all;
}

/* With a bounced VM but not all three: which is missing, and how to run them. */
static void bounce_missing(ctx *x, const tb_compare_bounce_roles *ro)
{
    note(x, pooled(x,
                   "A regular VM booted with swiotlb=force is here (%s), but the split needs "
                   "also %s%s%s: run them in the same suite (--vm-kinds "
                   "regular,regular-swiotlb,tdx).",
                   x->names[ro->bounce], ro->vm < 0 ? "a regular VM" : "",
                   ro->vm < 0 && ro->td < 0 ? " and " : "",
                   ro->td < 0 ? "a TD or SEV-SNP guest" : ""));
}

/* The rows the split covers (n of them) and their shares, bootstrapped from the three
   records' samples. 0, or -1 (out of memory: rc set). */
static int bounce_shares(ctx *x, bounce *b, size_t n)
{
    const tb_compare *c = x->c;
    b->rows = scratch(x, n, sizeof *b->rows);
    b->sh = scratch(x, n, sizeof *b->sh);
    if (!b->rows || !b->sh)
        return -1;
    for (size_t k = 0; k < c->n_rows && b->n < n; k++) {
        const tb_compare_row *row = &c->rows[k];
        if (!bounce_covers(row, b->rec))
            continue;
        const tb_metric *m[3];
        for (int j = 0; j < 3; j++)
            m[j] = metric_of(c->records[b->rec[j]], row->name);
        tb_err e;
        if (tb_compare_bounce_share(m[0]->samples, m[0]->n, m[1]->samples, m[1]->n, m[2]->samples,
                                    m[2]->n, row->better, TB_COMPARE_RESAMPLES, TB_COMPARE_SEED,
                                    TB_COMPARE_LEVEL, &b->sh[b->n], &e) < 0) {
            x->rc = -1;
            return -1;
        }
        b->rows[b->n++] = row;
    }
    return 0;
}

/* The bars of metric i: the three records' medians with their intervals; after the
   bounced VM's value the share it explains, after the TD's its cost over the VM. */
static void bounce_bars(ctx *x, const bounce *b, size_t i, tb_svg_bar *bar)
{
    const tb_compare_bounce *sh = &b->sh[i];
    char shr[64];
    fmt_share(sh, shr, sizeof shr);
    for (int j = 0; j < 3; j++) {
        const tb_compare_cell *cell = &b->rows[i]->cells[b->rec[j]];
        bar[j].series = b->rec[j];
        bar[j].label = pooled(x, "%s (%s)", x->names[b->rec[j]], bounce_role[j]);
        bar[j].value = cell->median;
        bar[j].lo = cell->lo;
        bar[j].hi = cell->hi;
    }
    bar[1].note =
        isfinite(sh->share) ? pooled(x, "explains %s of the TD's extra", shr) : "no share";
    bar[2].note = isfinite(sh->vm) && sh->vm != 0
                      ? pooled(x, "%+.0f %% vs VM", 100 * (sh->td / sh->vm - 1))
                      : NULL;
}

/* One panel per metric: VM, VM+bounce and TD side by side. */
static void bounce_chart(ctx *x, const bounce *b)
{
    tb_svg_bar_group *g = scratch(x, b->n, sizeof *g);
    tb_svg_bar *bars = scratch(x, 3 * b->n, sizeof *bars);
    if (!g || !bars)
        return;
    for (size_t i = 0; i < b->n; i++) {
        bounce_bars(x, b, i, bars + 3 * i);
        g[i] = bar_group_of(b->rows[i], bars + 3 * i, 3);
    }
    chart ch;
    chart_begin(x, &ch, "bounce", "VM, VM+bounce and TD per I/O metric",
                "One panel per storage, network or key-value metric: the regular VM, the regular "
                "VM booted with swiotlb=force and the TD (medians, 95 % intervals as whiskers); "
                "after the bounced VM's value, the share of the TD's extra cost the bounce path "
                "explains, with its 95 % bootstrap interval.");
    x->rc |= tb_svg_bars(&ch.svg, &ch.f, &ch.s, g, b->n);
    chart_place(x, &ch, "bounce");
}

static void bounce_table_head(ctx *x, const bounce *b)
{
    if (html(x))
        put(x, "<div class=\"tw\"><table class=\"cmp bounce\"><thead><tr><th>metric</th>"
               "<th>unit</th>");
    else
        put(x, "| metric | unit | ");
    for (int j = 0; j < 3; j++) {
        wrapped(x, x->names[b->rec[j]], "<th>", "", "", "");
        putf(x, html(x) ? " (%s)</th>" : " (%s) | ", bounce_role[j]);
    }
    if (html(x))
        put(x, "<th>share the bounce path explains (95 % interval)</th></tr></thead><tbody>\n");
    else
        put(x, "share the bounce path explains (95 % interval) |\n|---|---|---|---|---|---|\n");
}

/* A metric's row: the three medians and the share, with why there is none. */
static void bounce_table_row(ctx *x, const tb_compare_row *row, const tb_compare_bounce *sh)
{
    char v[3][64], shr[64];
    tb_svg_fmt_num(sh->vm, v[0], sizeof v[0]);
    tb_svg_fmt_num(sh->bounce, v[1], sizeof v[1]);
    tb_svg_fmt_num(sh->td, v[2], sizeof v[2]);
    fmt_share(sh, shr, sizeof shr);
    const char *why = tb_compare_bounce_why_text(sh->why);
    if (!html(x)) {
        put(x, "| ");
        md_text(x, row->name);
        putf(x, " | %s | %s | %s | %s | %s%s", tb_svg_unit(row->unit), v[0], v[1], v[2], shr,
             why[0] ? " (" : "");
        md_text(x, why);
        put(x, why[0] ? ") |\n" : " |\n");
        return;
    }
    put(x, "<tr data-metric=\"");
    text(x, row->name);
    putf(x, "\" data-why=\"%d\"", sh->why);
    if (isfinite(sh->share))
        putf(x, " data-share=\"%.17g\"", sh->share);
    if (sh->why == TB_COMPARE_BOUNCE_OK)
        putf(x, " data-lo=\"%.17g\" data-hi=\"%.17g\"", sh->lo, sh->hi);
    put(x, "><td>");
    text(x, row->name);
    put(x, "</td><td>");
    text(x, tb_svg_unit(row->unit));
    putf(x, "</td><td>%s</td><td>%s</td><td>%s</td><td class=\"share\">%s", v[0], v[1], v[2], shr);
    if (why[0])
        wrapped(x, why, "<br><span class=\"ex\">", "</span>", "", "");
    put(x, "</td></tr>\n");
}

static void bounce_table(ctx *x, const bounce *b)
{
    bounce_table_head(x, b);
    for (size_t i = 0; i < b->n; i++)
        bounce_table_row(x, b->rows[i], &b->sh[i]);
    put(x, html(x) ? "</tbody></table></div>\n" : "\n");
}

/* What the VM+bounce environment is and how the share is computed. */
static void bounce_method(ctx *x, const tb_compare_bounce_roles *ro)
{
    note(x, pooled(x,
                   "The VM+bounce environment (%s) is the regular VM (%s) booted with "
                   "swiotlb=<slabs>,force: every DMA of its virtio drivers is copied through a "
                   "bounce buffer, as in a TD or SEV-SNP guest (%s), whose memory the host cannot "
                   "read. Share = (median(VM+bounce) - median(VM)) / (median(TD) - median(VM)): "
                   "the part of the TD's extra cost the copying explains; the rest is the TD's "
                   "own (exits, private-shared page conversions). 95 %% percentile-bootstrap "
                   "interval, each of the three sample sets resampled on its own. A share "
                   "outside 0..100 %% means the bounced VM was faster than the VM or slower than "
                   "the TD; none is given where the TD is not slower than the VM.",
                   x->names[ro->bounce], x->names[ro->vm], x->names[ro->td]));
}

/* When the records hold a VM, a VM booted with swiotlb=force and a TD (compare/bounce:
   by their facts), the I/O metrics (storage, network, key-value) side by side -- VM,
   VM+bounce, TD -- and per metric the share of the TD's extra cost the bounce path
   explains, with its bootstrap interval. With a bounced VM but not all three: a note
   saying which is missing. Nothing without a bounced VM. */
static void bounce_section(ctx *x)
{
    const tb_compare *c = x->c;
    tb_compare_bounce_roles ro;
    int all = tb_compare_bounce_roles_find(c, &ro);
    if (ro.bounce < 0)
        return;
    section_head(x, "bounce", "Where a TD's I/O cost goes: the bounce buffer");
    if (!all) {
        bounce_missing(x, &ro);
        section_end(x);
        return;
    }
    bounce b = {{(size_t)ro.vm, (size_t)ro.bounce, (size_t)ro.td}, NULL, NULL, 0};
    size_t n = 0;
    for (size_t k = 0; k < c->n_rows; k++)
        n += bounce_covers(&c->rows[k], b.rec);
    if (!n) {
        note(x, pooled(x,
                       "No storage, network or key-value metric was measured in all three of "
                       "%s (VM), %s (VM+bounce) and %s (TD): the bounce buffer carries I/O, so "
                       "only those split (--workloads storage,network,kv).",
                       x->names[ro.vm], x->names[ro.bounce], x->names[ro.td]));
        section_end(x);
        return;
    }
    if (bounce_shares(x, &b, n) < 0)
        return;
    bounce_chart(x, &b);
    bounce_table(x, &b);
    bounce_method(x, &ro);
    section_end(x);
}

/* ------------------------------------------------------------------ charts */

/* The words of a section with one chart: the section's id (also the chart's file stem),
   its heading, what it says when it has nothing to show (none), the rows it shows (sec),
   and its chart's title (also the alt text), description (<desc>) and legend (the note
   under it; NULL: none). */
typedef struct chart_words {
    enum section sec;
    const char *id, *heading, *none;
    const char *title, *desc, *legend;
} chart_words;

/* Opens w's section: the number of rows placed in it, or 0 after saying that there is
   none and closing it. */
static size_t section_rows(ctx *x, const chart_words *w)
{
    section_head(x, w->id, w->heading);
    size_t n = count_placed(x, w->sec);
    if (!n) {
        note(x, w->none);
        section_end(x);
    }
    return n;
}

static void words_chart_begin(ctx *x, chart *ch, const chart_words *w)
{
    chart_begin(x, ch, w->id, w->title, w->desc);
}

/* Places the chart drawn, then its legend. */
static void words_chart_end(ctx *x, chart *ch, const chart_words *w)
{
    chart_place(x, ch, w->id);
    if (w->legend)
        note(x, w->legend);
}

/* The bars of row, one per record: its median with its interval, and after it its ratio
   to the baseline ("baseline", "1.05× ~"), noisy, SIMULATED where the record is not. */
static void row_bars(ctx *x, const tb_compare_row *row, tb_svg_bar *b)
{
    const tb_compare *c = x->c;
    for (size_t i = 0; i < c->n_records; i++) {
        const tb_compare_cell *cell = &row->cells[i];
        b[i].series = i;
        b[i].value = cell->present && cell->n ? cell->median : NAN;
        b[i].lo = cell->lo;
        b[i].hi = cell->hi;
        char r[48] = "";
        if (i == c->baseline && c->n_records > 1)
            snprintf(r, sizeof r, "baseline");
        else if (isfinite(cell->ratio)) {
            tb_svg_fmt_num(cell->ratio, r, sizeof r - 8);
            strcat(r, "\xc3\x97");
            if (cell->verdict == TB_COMPARE_SAME)
                strcat(r, " ~");
        }
        b[i].note = pooled(x, "%s%s%s", r, cell->noisy ? (r[0] ? " noisy" : "noisy") : "",
                           cell->simulated && !c->records[i]->simulated ? " SIMULATED" : "");
    }
}

/* The n panels of the bars section in order: the workloads people ask about first
   (throughput, system calls), then the rest. NULL: out of memory. */
static tb_svg_bar_group *bar_groups(ctx *x, size_t n)
{
    const tb_compare *c = x->c;
    tb_svg_bar_group *g = scratch(x, n, sizeof *g);
    tb_svg_bar *bars = scratch(x, n * c->n_records, sizeof *bars);
    if (!g || !bars)
        return NULL;
    size_t gi = 0;
    for (int pass = 0; pass < 3; pass++)
        for (size_t k = 0; k < c->n_rows; k++) {
            const tb_compare_row *row = &c->rows[k];
            if (place(x, row) != SEC_BARS || bars_rank(row) != pass)
                continue;
            tb_svg_bar *b = bars + gi * c->n_records;
            row_bars(x, row, b);
            g[gi++] = bar_group_of(row, b, c->n_records);
        }
    return g;
}

static const chart_words bars_words = {
    SEC_BARS,
    "throughput",
    "Throughput, indices and times",
    "No throughput, syscall or attestation metrics in these runs.",
    "Medians per metric and environment",
    "One panel per metric; one bar per environment (median) with its 95 % interval as a "
    "whisker; ratios to the baseline after the values.",
    "Bars: medians; whiskers: 95 % intervals of the median; after each value, the ratio to "
    "the baseline (~: no significant difference).",
};

static void bars_section(ctx *x)
{
    size_t n = section_rows(x, &bars_words);
    tb_svg_bar_group *g = n ? bar_groups(x, n) : NULL;
    if (!g)
        return;
    chart ch;
    words_chart_begin(x, &ch, &bars_words);
    x->rc |= tb_svg_bars(&ch.svg, &ch.f, &ch.s, g, n);
    words_chart_end(x, &ch, &bars_words);
    section_end(x);
}

typedef struct pct_row {
    double pct;
    const tb_compare_row *row;
    int uncorrected;
} pct_row;

static int cmp_pct_row(const void *a, const void *b)
{
    const pct_row *p = a, *q = b;
    if (p->uncorrected != q->uncorrected)
        return p->uncorrected - q->uncorrected;
    return (p->pct > q->pct) - (p->pct < q->pct);
}

/* A latency chart's file stem: latency-<target>, latency-<workload>-<target> when
   another workload's chart took that name (taken); [a-z0-9_-] only. */
static void latency_stem(const tb_workload *w, const char *target, int taken, char *out, size_t n)
{
    if (taken)
        snprintf(out, n, "latency-%s-%s", w->name, target);
    else
        snprintf(out, n, "latency-%s", target);
    for (char *p = out; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '_'))
            *p = '_';
}

/* One chart of a workload's latency percentiles for one target; its file is
   latency-<target>.svg, latency-<workload>-<target>.svg when another workload's chart
   took that name (taken). */
static void latency_chart(ctx *x, const tb_workload *w, const char *target, int taken,
                          pct_row *rows, size_t n)
{
    const tb_compare *c = x->c;
    qsort(rows, n, sizeof *rows, cmp_pct_row);
    size_t n_c = 0;
    while (n_c < n && !rows[n_c].uncorrected)
        n_c++;
    size_t n_u = n - n_c, nr = c->n_records;
    tb_svg_curve *cv = scratch(x, 2 * nr, sizeof *cv);
    double *xs = scratch(x, 2 * nr * n + 1, sizeof *xs),
           *ys = scratch(x, 2 * nr * n + 1, sizeof *ys);
    if (!cv || !xs || !ys)
        return;
    size_t ncv = 0, used = 0;
    for (size_t i = 0; i < nr; i++) {
        for (int u = 0; u < 2; u++) {
            size_t from = u ? n_c : 0, count = u ? n_u : n_c, pts = 0;
            for (size_t k = 0; k < count; k++) {
                const tb_compare_cell *cell = &rows[from + k].row->cells[i];
                if (!cell->present || !cell->n)
                    continue;
                xs[used + pts] = rows[from + k].pct;
                ys[used + pts] = cell->median;
                pts++;
            }
            if (!pts)
                continue;
            cv[ncv].series = i;
            cv[ncv].dashed = u && n_c > 0;
            cv[ncv].label = u ? pooled(x, "%s (uncorrected)", x->titles[i]) : NULL;
            cv[ncv].x = xs + used;
            cv[ncv].y = ys + used;
            cv[ncv].n = pts;
            used += pts;
            ncv++;
        }
    }
    const char *unit = n ? rows[0].row->unit : "ms";
    tb_svg_line_chart lc = {
        .xkind = TB_SVG_PCTL,
        .xtitle = "percentile",
        .ytitle = "latency",
        .yunit = unit,
        .ylog = -1,
        .dash_note = n_c && n_u ? "solid: corrected for coordinated omission; dashed: "
                                  "uncorrected (as measured)"
                                : NULL,
        .curves = cv,
        .n = ncv,
    };
    const char *title = pooled(x, "%s latency by percentile: %s", w->title, target);
    chart ch;
    chart_begin(x, &ch, "latency", title,
                "Latency (median over runs) at each percentile, per environment; the x axis "
                "spreads the tail as HdrHistogram's plots do.");
    x->rc |= tb_svg_lines(&ch.svg, &ch.f, &ch.s, &lc);
    char stem[200];
    latency_stem(w, target, taken, stem, sizeof stem);
    subheading(x, target);
    chart_place(x, &ch, stem);
}

/* Whether row is a latency percentile of group (the workload and what its "*" stands
   for: the target). */
static int in_group(const ctx *x, const tb_compare_row *row, const tb_compare_row *group)
{
    return place(x, row) == SEC_LATENCY && row->spec.workload == group->spec.workload &&
           !strcmp(row->spec.part, group->spec.part);
}

static void latency_section(ctx *x)
{
    const tb_compare *c = x->c;
    section_head(x, "latency", "HTTP latency percentiles");
    pct_row *rows = scratch(x, c->n_rows + 1, sizeof *rows);
    const tb_compare_row **done = scratch(x, c->n_rows + 1, sizeof *done);
    if (!rows || !done)
        return;
    size_t n_done = 0;
    for (size_t k = 0; k < c->n_rows; k++) {
        const tb_compare_row *g = &c->rows[k];
        if (place(x, g) != SEC_LATENCY)
            continue;
        int seen = 0, same_part = 0;
        for (size_t d = 0; d < n_done && !seen; d++) {
            seen = in_group(x, g, done[d]);
            same_part |= !strcmp(done[d]->spec.part, g->spec.part);
        }
        if (seen)
            continue;
        done[n_done++] = g;
        size_t n = 0;
        for (size_t j = k; j < c->n_rows; j++) {
            if (!in_group(x, &c->rows[j], g))
                continue;
            rows[n].pct = c->rows[j].spec.metric->pct;
            rows[n].row = &c->rows[j];
            rows[n].uncorrected = (c->rows[j].spec.metric->flags & TB_WLM_UNCORRECTED) != 0;
            n++;
        }
        latency_chart(x, g->spec.workload, g->spec.part, same_part, rows, n);
    }
    if (!n_done)
        note(x, "No HTTP latency percentiles (http.<target>.latency.pNN) in these runs.");
    else
        note(x, "Each point is the median over runs of that percentile's latency. Solid "
                "lines are corrected for coordinated omission where the run did so; dashed "
                "lines are the uncorrected latencies.");
    section_end(x);
}

/* ------------------------------------------------------------------ sweeps, phases */

typedef struct sweep_pt {
    double x;
    const tb_compare_row *row;
} sweep_pt;

static int cmp_sweep_pt(const void *a, const void *b)
{
    double p = ((const sweep_pt *)a)->x, q = ((const sweep_pt *)b)->x;
    return (p > q) - (p < q);
}

/* Puts a family's chart under its heading ("<workload>: <family>"), in the file
   "<kind>-<workload>-<family>" ([a-z0-9-] only) in markdown. */
static void family_place(ctx *x, chart *ch, const char *kind, const tb_workload *w,
                         const tb_wl_family *f)
{
    char stem[200], h[256];
    snprintf(stem, sizeof stem, "%s-%s-%s", kind, w->name, f->title ? f->title : "");
    for (char *p = stem; *p; p++) {
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
        else if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
            *p = '-';
    }
    snprintf(h, sizeof h, "%s: %s", w->title, f->title ? f->title : "");
    subheading(x, h);
    chart_place(x, ch, stem);
}

/* One line chart of a sweep's points pts[0..n-1] (n >= 2): per environment the medians
   over the setting, with their intervals. */
static void sweep_chart(ctx *x, const tb_wl_family *f, sweep_pt *pts, size_t n)
{
    const tb_compare *c = x->c;
    const tb_workload *w = pts[0].row->spec.workload;
    qsort(pts, n, sizeof *pts, cmp_sweep_pt);
    size_t nr = c->n_records, nt = 0;
    tb_svg_curve *cv = scratch(x, nr, sizeof *cv);
    double *v = scratch(x, 4 * nr * n, sizeof *v);
    tb_svg_tick *t = scratch(x, n, sizeof *t);
    if (!cv || !v || !t)
        return;
    int bytes = f->unit && !strcmp(f->unit, "B");
    for (size_t k = 0; k < n && nt < 64; k++) {
        if (nt && t[nt - 1].v == pts[k].x)
            continue;
        t[nt].v = pts[k].x;
        if (bytes)
            tb_svg_fmt_bytes(pts[k].x, t[nt].label, sizeof t[nt].label);
        else if (pts[k].x == floor(pts[k].x) && fabs(pts[k].x) < 1e15) /* a count: "32" */
            snprintf(t[nt].label, sizeof t[nt].label, "%.0f", pts[k].x);
        else
            tb_svg_fmt_num(pts[k].x, t[nt].label, sizeof t[nt].label);
        nt++;
    }
    size_t ncv = 0;
    for (size_t i = 0; i < nr; i++) {
        double *xs = v + 4 * n * i, *ys = xs + n, *lo = ys + n, *hi = lo + n;
        size_t m = 0;
        for (size_t k = 0; k < n; k++) {
            const tb_compare_cell *cell = &pts[k].row->cells[i];
            if (!cell->present || !cell->n)
                continue;
            xs[m] = pts[k].x;
            ys[m] = cell->median;
            lo[m] = cell->lo;
            hi[m] = cell->hi;
            m++;
        }
        if (!m)
            continue;
        cv[ncv] = (tb_svg_curve){.series = i, .x = xs, .y = ys, .n = m, .lo = lo, .hi = hi};
        ncv++;
    }
    const tb_compare_row *r0 = pts[0].row;
    tb_svg_line_chart lc = {
        .xkind = f->log ? TB_SVG_LOG : TB_SVG_LINEAR,
        .xtitle = f->axis,
        .xunit = bytes ? NULL : f->unit,
        .ytitle =
            pooled(x, "median, %s is better", r0->better == TB_BETTER_HIGHER ? "higher" : "lower"),
        .yunit = r0->unit,
        .ylog = -1,
        .curves = cv,
        .n = ncv,
        .xticks = t,
        .n_xticks = nt,
    };
    const char *title =
        pooled(x, "%s: %s (%s)", w->title, f->title ? f->title : "", r0->spec.metric->name);
    chart ch;
    chart_begin(x, &ch, "sweeps", title,
                pooled(x,
                       "The median over runs of %s at each %s, one line per environment, with "
                       "its 95 %% interval as a whisker.",
                       r0->spec.metric->name, f->axis ? f->axis : "setting"));
    x->rc |= tb_svg_lines(&ch.svg, &ch.f, &ch.s, &lc);
    family_place(x, &ch, "sweep", w, f);
}

static void sweeps_section(ctx *x)
{
    const tb_compare *c = x->c;
    if (!count_placed(x, SEC_SWEEP))
        return; /* only workloads with sweeps have the section */
    section_head(x, "sweeps", "Sweeps: one setting varied");
    sweep_pt *pts = scratch(x, c->n_rows, sizeof *pts);
    const tb_wl_family **done = scratch(x, c->n_rows, sizeof *done);
    if (!pts || !done)
        return;
    size_t n_done = 0;
    for (size_t k = 0; k < c->n_rows; k++) {
        const tb_wl_family *f = x->fam[k];
        int seen = x->sec[k] != SEC_SWEEP;
        for (size_t d = 0; d < n_done && !seen; d++)
            seen = done[d] == f;
        if (seen)
            continue;
        done[n_done++] = f;
        size_t n = 0;
        for (size_t j = k; j < c->n_rows; j++)
            if (x->sec[j] == SEC_SWEEP && x->fam[j] == f)
                pts[n++] = (sweep_pt){x->fx[j], &c->rows[j]};
        sweep_chart(x, f, pts, n);
    }
    note(x, "Each point: the median over runs of the metric at that setting, with its 95 % "
            "interval as a whisker; one line per environment. Every point is also a row of the "
            "overview and of the table.");
    section_end(x);
}

/* One stacked-bar chart of a phases family f: a bar per environment (and per what the
   phases' "*" stood for). */
static void phases_chart(ctx *x, const tb_wl_family *f)
{
    const tb_compare *c = x->c;
    size_t np = tb_wl_phase_count(f), nr = c->n_records;
    if (np > 8)
        np = 8; /* colours and hatchings to tell them apart */
    const char **parts = scratch(x, np + 1, sizeof *parts);
    const char **groups = scratch(x, c->n_rows + 1, sizeof *groups);
    tb_svg_stack *rows = scratch(x, (c->n_rows + 1) * nr, sizeof *rows);
    double *vals = scratch(x, (c->n_rows + 1) * nr * (np + 1), sizeof *vals);
    if (!parts || !groups || !rows || !vals)
        return;
    const tb_workload *w = NULL;
    for (size_t p = 0; p < np; p++) {
        char l[128];
        tb_wl_phase_label(f, p, l, sizeof l);
        parts[p] = pooled(x, "%s", l);
    }
    size_t ng = 0; /* what "*" stood for, in first-seen order ("" for literal names) */
    for (size_t k = 0; k < c->n_rows; k++) {
        if (x->sec[k] != SEC_PHASE || x->fam[k] != f)
            continue;
        w = c->rows[k].spec.workload;
        int seen = 0;
        for (size_t g = 0; g < ng && !seen; g++)
            seen = !strcmp(groups[g], c->rows[k].spec.part);
        if (!seen)
            groups[ng++] = c->rows[k].spec.part;
    }
    const tb_compare_row *total =
        f->total && !strchr(f->total, '*') ? tb_compare_find(c, f->total) : NULL;
    size_t n = 0;
    for (size_t g = 0; g < ng; g++)
        for (size_t i = 0; i < nr; i++) {
            double *v = vals + n * np;
            int any = 0;
            for (size_t p = 0; p < np; p++)
                v[p] = NAN;
            for (size_t k = 0; k < c->n_rows; k++) {
                const tb_compare_row *row = &c->rows[k];
                size_t p = (size_t)x->fx[k];
                if (x->sec[k] != SEC_PHASE || x->fam[k] != f || p >= np ||
                    strcmp(row->spec.part, groups[g]) || !row->cells[i].present || !row->cells[i].n)
                    continue;
                v[p] = row->cells[i].median;
                any = 1;
            }
            if (!any)
                continue;
            rows[n].series = i;
            rows[n].values = v;
            rows[n].label =
                groups[g][0] ? pooled(x, "%s \xc2\xb7 %s", x->titles[i], groups[g]) : NULL;
            if (total && total->cells[i].present && total->cells[i].n) {
                char tv[64];
                tb_svg_fmt_value(total->cells[i].median, total->unit, tv, sizeof tv);
                rows[n].note = pooled(x, "\xc2\xb7 whole %s", tv);
            }
            n++;
        }
    const tb_compare_row *any_row = NULL;
    for (size_t k = 0; k < c->n_rows && !any_row; k++)
        if (x->sec[k] == SEC_PHASE && x->fam[k] == f)
            any_row = &c->rows[k];
    tb_svg_stack_chart sc = {"median time", any_row ? any_row->unit : "s", parts, np, rows, n};
    const char *title = pooled(x, "%s: %s", w ? w->title : "", f->title ? f->title : "");
    chart ch;
    chart_begin(x, &ch, "phases", title,
                "One bar per environment: the median of each phase, stacked in order; the "
                "bar's length is their sum.");
    x->rc |= tb_svg_stacks(&ch.svg, &ch.f, &ch.s, &sc);
    family_place(x, &ch, "phases", w, f);
}

static void phases_section(ctx *x)
{
    const tb_compare *c = x->c;
    const tb_wl_family **done = scratch(x, c->n_rows + 1, sizeof *done);
    if (!done)
        return;
    size_t n_done = 0;
    for (size_t k = 0; k < c->n_rows; k++) {
        int seen = x->sec[k] != SEC_PHASE;
        for (size_t d = 0; d < n_done && !seen; d++)
            seen = done[d] == x->fam[k];
        if (seen)
            continue;
        if (!n_done)
            section_head(x, "phases", "Phases: where the time goes");
        done[n_done++] = x->fam[k];
        phases_chart(x, x->fam[k]);
    }
    if (n_done) {
        note(x,
             "Each bar: the medians over runs of consecutive phases, stacked in order; its "
             "length is their sum, written after it; (3 of 4): a phase was not measured there. A "
             "median of a sum is not the sum of medians: where the run measured the whole "
             "too, its median follows (whole).");
        section_end(x);
    }
}

/* The rows of one notary box group: every environment x every mode whose metric name
   ends in suffix. */
static size_t notary_group(ctx *x, const char *suffix, tb_svg_dist *d)
{
    const tb_compare *c = x->c;
    size_t n = 0;
    for (size_t i = 0; i < c->n_records; i++) {
        for (size_t k = 0; k < c->n_rows; k++) {
            const tb_compare_row *row = &c->rows[k];
            if (place(x, row) != SEC_NOTARY || !ends(row->spec.metric->name, suffix))
                continue;
            const tb_metric *m = metric_of(c->records[i], row->name);
            if (!m)
                continue;
            d[n].series = i;
            d[n].label = pooled(x, "%s \xc2\xb7 %s", x->titles[i], row->spec.part);
            d[n].samples = m->samples;
            d[n].n = m->n;
            n++;
        }
    }
    return n;
}

static const chart_words notary_words = {
    SEC_NOTARY,
    "notary",
    "Notary: TEE vs no TEE",
    "No notary metrics (notary.<mode>.notarization_ms) in these runs.",
    "Notary modes per environment",
    "Box plots (quartiles, median, whiskers to 1.5 IQR) with every run as a dot, per "
    "environment and mode.",
    "Boxes: quartiles with the median as a thick line; whiskers reach the furthest run within "
    "1.5 IQR; dots: every run. Modes: no_tee (no attestation), tee_no_verify (a TDX quote is "
    "made), tee_verify (the client also verifies it).",
};

static void notary_section(ctx *x)
{
    const tb_compare *c = x->c;
    section_head(x, notary_words.id, notary_words.heading);
    size_t cap = c->n_records * (c->n_rows + 1);
    tb_svg_dist *d = scratch(x, 3 * cap + 1, sizeof *d);
    if (!d)
        return;
    static const struct {
        const char *suffix, *title;
    } kinds[] = {{".notarization_ms", "notarization"},
                 {".verify_ms", "quote verification"},
                 {".total_e2e_ms", "notarization + verify, end to end"}};
    tb_svg_dist_group g[3];
    size_t ng = 0, used = 0;
    for (size_t k = 0; k < 3; k++) {
        size_t n = notary_group(x, kinds[k].suffix, d + used);
        if (!n)
            continue;
        g[ng].title = kinds[k].title;
        g[ng].unit = "ms";
        g[ng].rows = d + used;
        g[ng].n = n;
        used += n;
        ng++;
    }
    if (!ng) {
        note(x, notary_words.none);
    } else {
        chart ch;
        words_chart_begin(x, &ch, &notary_words);
        x->rc |= tb_svg_boxes(&ch.svg, &ch.f, &ch.s, g, ng);
        words_chart_end(x, &ch, &notary_words);
    }
    section_end(x);
}

/* A probe's dots: per record that measured it, its median with its interval in ns.
   Returns how many. */
static size_t probe_dots(const ctx *x, const tb_compare_row *row, tb_svg_dot *d)
{
    size_t nd = 0;
    for (size_t i = 0; i < x->c->n_records; i++) {
        const tb_compare_cell *cell = &row->cells[i];
        if (!cell->present || !cell->n)
            continue;
        d[nd].series = i;
        d[nd].value = tb_svg_to_ns(cell->median, row->unit);
        d[nd].lo = tb_svg_to_ns(cell->lo, row->unit);
        d[nd].hi = tb_svg_to_ns(cell->hi, row->unit);
        nd++;
    }
    return nd;
}

/* The n rows of the probes' dot plot, one per probe, each with its dots. NULL: out of
   memory. */
static tb_svg_dot_row *probe_rows(ctx *x, size_t n)
{
    const tb_compare *c = x->c;
    tb_svg_dot_row *rows = scratch(x, n, sizeof *rows);
    for (size_t k = 0, r = 0; rows && k < c->n_rows && r < n; k++) {
        const tb_compare_row *row = &c->rows[k];
        if (place(x, row) != SEC_PROBE)
            continue;
        tb_svg_dot *d = scratch(x, c->n_records, sizeof *d);
        if (!d)
            return NULL;
        rows[r++] = (tb_svg_dot_row){pooled(x, "%s", row->spec.part), d, probe_dots(x, row, d)};
    }
    return rows;
}

/* Why each probe matters in a TD: its row's note, under its name. */
static void probe_notes(ctx *x)
{
    const tb_compare *c = x->c;
    put(x, html(x) ? "<dl class=\"why\">\n" : "");
    for (size_t k = 0; k < c->n_rows; k++) {
        const tb_compare_row *row = &c->rows[k];
        if (place(x, row) != SEC_PROBE || !row->note || !row->note[0])
            continue;
        wrapped(x, row->spec.part, "<dt>", "</dt><dd>", "- **", "**: ");
        wrapped(x, row->note, "", "</dd>\n", "", "\n");
    }
    put(x, html(x) ? "</dl>\n" : "\n");
}

static const chart_words probe_words = {
    SEC_PROBE,
    "probes",
    "Probes: where a confidential VM pays",
    "No probe metrics (probe.<name>.ns) in these runs.",
    "Probes: time per operation",
    "One row per probe, one marker per environment (median, with its 95 % interval), on a "
    "log time axis.",
    NULL,
};

static void probes_section(ctx *x)
{
    size_t n = section_rows(x, &probe_words);
    tb_svg_dot_row *rows = n ? probe_rows(x, n) : NULL;
    if (!rows)
        return;
    tb_svg_dot_chart dc = {"time per operation", "ns", 1, rows, n};
    chart ch;
    words_chart_begin(x, &ch, &probe_words);
    x->rc |= tb_svg_dots(&ch.svg, &ch.f, &ch.s, &dc);
    words_chart_end(x, &ch, &probe_words);
    probe_notes(x);
    section_end(x);
}

/* ------------------------------------------------------------------ tables */

static void cell_html(ctx *x, const tb_compare_row *row, size_t i)
{
    const tb_compare_cell *cell = &row->cells[i];
    char a[160], b[160];
    if (!cell->present) {
        put(x, "<td class=\"n\">-</td>");
        return;
    }
    putf(x, "<td class=\"n\" data-value=\"%.17g\">", cell->median);
    if (!cell->n) {
        put(x, "(no samples)</td>");
        return;
    }
    tb_svg_fmt_num(cell->median, a, sizeof a);
    text(x, a);
    fmt_interval(cell->lo, cell->hi, NULL, 0, b, sizeof b);
    put(x, " <span class=\"ci\">");
    if (b[0])
        text(x, b);
    else
        putf(x, "(n=%zu)", cell->n);
    put(x, "</span>");
    if (cell->noisy)
        badge(x, "noisy", "noisy");
    if (cell->simulated && !x->c->records[i]->simulated)
        badge(x, "sim", "SIMULATED");
    if (i != x->c->baseline && isfinite(cell->ratio)) {
        tb_svg_fmt_num(cell->ratio, a, sizeof a);
        putf(x, "<br>%s\xc3\x97", a);
        if (isfinite(cell->ratio_lo)) {
            fmt_interval(cell->ratio_lo, cell->ratio_hi, NULL, 0, b, sizeof b);
            put(x, " <span class=\"ci\">");
            text(x, b);
            put(x, "</span>");
        } else if (cell->ratio_ci_why == TB_COMPARE_CI_NON_POSITIVE) {
            put(x, " <span class=\"ci\">(no interval: a value \xe2\x89\xa4 0)</span>");
        }
        char p[64];
        verdict_p(x->c, cell, p, sizeof p);
        const char *shift = tb_compare_shift_note(x->c, row, i);
        switch (cell->verdict) {
        case TB_COMPARE_SAME:
            snprintf(b, sizeof b, "~ same (%s)", p);
            break;
        case TB_COMPARE_BETTER:
        case TB_COMPARE_WORSE:
            snprintf(b, sizeof b, "%s (%s%s%s)", tb_compare_verdict_name(cell->verdict), p,
                     shift ? "; " : "", shift ? shift : "");
            break;
        case TB_COMPARE_UNTESTABLE:
            snprintf(b, sizeof b, "too few to test");
            break;
        default:
            b[0] = 0;
        }
        if (b[0]) {
            put(x, "<br><span class=\"v\">");
            text(x, b);
            put(x, "</span>");
        }
    }
    put(x, "</td>");
}

static void compare_table(ctx *x)
{
    const tb_compare *c = x->c;
    section_head(x, "comparison", "All metrics");
    if (!html(x)) {
        tb_buf md = {0};
        tb_err e;
        x->rc |= tb_compare_format(c, TB_COMPARE_MARKDOWN, &md, &e);
        if (md.p)
            text(x, (const char *)md.p); /* labels may hold markup: escaped */
        tb_buf_clear(&md);
        put(x, "\n");
        return;
    }
    put(x, "<div class=\"tw\"><table class=\"cmp\"><thead><tr><th>metric</th><th>unit</th>"
           "<th>better</th>");
    for (size_t i = 0; i < c->n_records; i++) {
        put(x, "<th>");
        text(x, x->titles[i]);
        if (i == c->baseline && c->n_records > 1)
            put(x, " (baseline)");
        put(x, "</th>");
    }
    put(x, "</tr></thead><tbody>\n");
    for (size_t k = 0; k < c->n_rows; k++) {
        const tb_compare_row *row = &c->rows[k];
        put(x, "<tr data-metric=\"");
        text(x, row->name);
        put(x, "\"><td>");
        text(x, row->name);
        if (row->simulated)
            badge(x, "sim", "SIMULATED");
        if (row->note && row->note[0]) {
            put(x, "<br><span class=\"ex\">");
            text(x, row->note);
            put(x, "</span>");
        }
        put(x, "</td><td>");
        text(x, tb_svg_unit(row->unit));
        putf(x, "</td><td>%s</td>", row->better == TB_BETTER_HIGHER ? "higher" : "lower");
        for (size_t i = 0; i < c->n_records; i++)
            cell_html(x, row, i);
        put(x, "</tr>\n");
    }
    for (int dir = 0; dir < 2 && c->n_records > 1; dir++) {
        const double *gm = dir ? c->geomean_lower : c->geomean_higher;
        const size_t *gn = dir ? c->geomean_lower_n : c->geomean_higher_n;
        int any = 0;
        for (size_t i = 0; i < c->n_records; i++)
            any |= gn[i] > 0;
        if (!any)
            continue;
        putf(x, "<tr class=\"gm\"><td>geometric mean of ratios</td><td>ratio</td><td>%s</td>",
             dir ? "lower" : "higher");
        for (size_t i = 0; i < c->n_records; i++) {
            if (i == c->baseline || !gn[i] || !isfinite(gm[i])) {
                put(x, "<td class=\"n\">-</td>");
                continue;
            }
            char a[64];
            tb_svg_fmt_num(gm[i], a, sizeof a);
            putf(x, "<td class=\"n\">%s\xc3\x97 <span class=\"ci\">(%zu metric%s)</span></td>", a,
                 gn[i], gn[i] == 1 ? "" : "s");
        }
        put(x, "</tr>\n");
    }
    put(x, "</tbody></table></div>\n");
    for (size_t i = 0; i < c->n_records; i++) { /* compare's multiple-comparison lines */
        char line[1024];
        tb_compare_summary(c, i, line, sizeof line);
        if (!line[0])
            continue;
        putf(x, "<p class=\"note mc\" data-env=\"%zu\" data-k=\"%zu\" data-n=\"%zu\">", i,
             c->differ[i], c->tested[i]);
        text(x, line);
        put(x, "</p>\n");
    }
    char legend[1024];
    snprintf(legend, sizeof legend,
             "Each cell: median [95 %% interval of the median]; then, against the baseline, the "
             "ratio of medians [95 %% percentile-bootstrap interval] and the verdict of a "
             "two-sided Mann-Whitney U test%s (~ same: no significant difference; better or "
             "worse: the side the test finds the samples shifted to, in the metric's "
             "direction). noisy: coefficient of variation above 5 %%. SIMULATED: measured "
             "with a simulated TEE, not real TEE hardware.",
             c->adjust == TB_STATS_ADJUST_HOLM ? ", its p adjusted with Holm's method over each "
                                                 "environment's rows"
             : c->adjust == TB_STATS_ADJUST_BH ? ", its p adjusted with the Benjamini-Hochberg "
                                                 "method over each environment's rows"
                                               : "");
    note(x, legend);
    section_end(x);
}

/* A fact of a `teebench env --json` document as text ("unknown" when absent). */
static void fact(const json_t *env, const char *key, char *out, size_t len)
{
    const json_t *f = json_is_object(env) ? json_object_get(env, key) : NULL;
    const json_t *v = json_is_object(f) ? json_object_get(f, "value") : f;
    if (json_is_string(v))
        snprintf(out, len, "%s", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(out, len, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(out, len, "%g", json_real_value(v));
    else if (json_is_boolean(v))
        snprintf(out, len, "%s", json_is_true(v) ? "yes" : "no");
    else
        snprintf(out, len, "unknown");
}

static void mitigations(const json_t *env, char *out, size_t len)
{
    const json_t *f = json_is_object(env) ? json_object_get(env, "vulnerabilities") : NULL;
    const json_t *v = json_is_object(f) ? json_object_get(f, "value") : NULL;
    char cmd[1024] = "", mit[160] = "";
    fact(env, "kernel_cmdline", cmd, sizeof cmd);
    char *save = NULL;
    for (char *t = strtok_r(cmd, " ", &save); t; t = strtok_r(NULL, " ", &save))
        if (starts(t, "mitigations="))
            snprintf(mit, sizeof mit, "%s; ", t);
    if (!json_is_object(v)) {
        snprintf(out, len, "%sunknown", mit);
        return;
    }
    size_t vuln = 0, mitig = 0, fine = 0;
    char names[512] = "";
    const char *key;
    const json_t *val;
    json_object_foreach((json_t *)v, key, val)
    {
        const char *s = json_is_string(val) ? json_string_value(val) : "";
        if (starts(s, "Vulnerable")) {
            vuln++;
            size_t o = strlen(names);
            snprintf(names + o, sizeof names - o, "%s%s", o ? ", " : "", key);
        } else if (starts(s, "Mitigation")) {
            mitig++;
        } else if (starts(s, "Not affected")) {
            fine++;
        }
    }
    snprintf(out, len, "%s%zu mitigated, %zu vulnerable%s%s%s, %zu not affected", mit, mitig, vuln,
             vuln ? " (" : "", names, vuln ? ")" : "", fine);
}

static void env_row(ctx *x, const char *name, char (*vals)[1024])
{
    const tb_compare *c = x->c;
    if (html(x)) {
        put(x, "<tr><th>");
        text(x, name);
        put(x, "</th>");
        for (size_t i = 0; i < c->n_records; i++) {
            put(x, "<td>");
            text(x, vals[i]);
            put(x, "</td>");
        }
        put(x, "</tr>\n");
        return;
    }
    put(x, "| ");
    md_text(x, name);
    for (size_t i = 0; i < c->n_records; i++) {
        put(x, " | ");
        for (char *p = vals[i]; *p; p++)
            if (*p == '\n' || *p == '\r')
                *p = ' ';
        md_text(x, vals[i]);
    }
    put(x, " |\n");
}

static void env_head(ctx *x)
{
    const tb_compare *c = x->c;
    put(x, html(x) ? "<div class=\"tw\"><table class=\"env\"><thead><tr><th></th>" : "| fact |");
    for (size_t i = 0; i < c->n_records; i++)
        wrapped(x, x->titles[i], "<th>", "</th>", " ", " |");
    if (html(x)) {
        put(x, "</tr></thead><tbody>\n");
        return;
    }
    put(x, "\n|---|");
    for (size_t i = 0; i < c->n_records; i++)
        put(x, "---|");
    put(x, "\n");
}

/* The values of the rows that are not a fact of the env document: record i's, as text
   into out. */
typedef void env_value(const ctx *x, size_t i, char *out, size_t len);

/* Which TEE it is, and what evidence the run's attest / notary workloads used
   (record/tee_label). */
static void env_tee(const ctx *x, size_t i, char *out, size_t len)
{
    snprintf(out, len, "%s", x->tee[i].kind);
}

static void env_evidence(const ctx *x, size_t i, char *out, size_t len)
{
    snprintf(out, len, "%s", x->tee[i].evidence[0] ? x->tee[i].evidence : "none recorded");
}

static void env_memory(const ctx *x, size_t i, char *out, size_t len)
{
    char m[64];
    fact(x->c->records[i]->env, "memory_bytes", m, sizeof m);
    double b;
    if (tb_num_double(m, 0, HUGE_VAL, &b) == TB_NUM_OK && b > 0)
        snprintf(out, len, "%.1f GiB", b / (1024.0 * 1024 * 1024));
    else
        snprintf(out, len, "unknown");
}

/* The bounce buffer: forced or not, its pool, and whether it ran out (sys/env). */
static void env_swiotlb(const ctx *x, size_t i, char *out, size_t len)
{
    const tb_record *r = x->c->records[i];
    const json_t *sw = json_object_get(json_object_get(r->env, "swiotlb"), "value");
    if (json_is_object(sw))
        tb_env_swiotlb_text(sw, out, len);
    else
        snprintf(out, len, "not recorded");
    const json_t *grew = json_object_get(r->extra, "swiotlb_full");
    if (json_is_true(json_object_get(grew, "grew")))
        snprintf(out + strlen(out), len - strlen(out),
                 "; the pool ran out DURING the run (%lld more 'swiotlb buffer is full' lines)",
                 (long long)(json_integer_value(json_object_get(grew, "end")) -
                             json_integer_value(json_object_get(grew, "start"))));
}

static void env_mitigations(const ctx *x, size_t i, char *out, size_t len)
{
    mitigations(x->c->records[i]->env, out, len);
}

/* The run itself: when, how it ended, by which teebench, its id. */
static void env_run(const ctx *x, size_t i, char *out, size_t len)
{
    const tb_record *r = x->c->records[i];
    snprintf(out, len, "%s%s%s", r->started, r->finished[0] ? " to " : "", r->finished);
}

static void env_status(const ctx *x, size_t i, char *out, size_t len)
{
    const tb_record *r = x->c->records[i];
    snprintf(out, len, "%s, profile %s", r->status ? r->status : "unknown",
             r->profile ? r->profile : "unknown");
}

static void env_teebench(const ctx *x, size_t i, char *out, size_t len)
{
    const tb_record *r = x->c->records[i];
    snprintf(out, len, "%s", r->teebench_version ? r->teebench_version : "unknown");
}

static void env_id(const ctx *x, size_t i, char *out, size_t len)
{
    snprintf(out, len, "%s", x->c->records[i]->id);
}

static void env_simulated(const ctx *x, size_t i, char *out, size_t len)
{
    snprintf(out, len, "%s",
             x->c->records[i]->simulated ? "SIMULATED (no real TEE hardware)" : "no");
}

/* The rows of the table in order: a fact of the env document (key), or a value. */
static const struct env_fact {
    const char *name;
    const char *key;
    env_value *value;
} env_facts[] = {
    {"platform", "platform", NULL},
    {"TEE", NULL, env_tee},
    {"attest evidence", NULL, env_evidence},
    {"hypervisor", "hypervisor", NULL},
    {"TDX module", "tdx_module", NULL},
    {"SEV guest", "sev_guest", NULL},
    {"CPU vendor", "cpu_vendor", NULL},
    {"CPU", "cpu_model", NULL},
    {"CPUs", "cpus", NULL},
    {"kernel", "kernel_release", NULL},
    {"clock source", "clocksource", NULL},
    {"memory", NULL, env_memory},
    {"kernel command line", "kernel_cmdline", NULL},
    {"swiotlb", NULL, env_swiotlb},
    {"mitigations", NULL, env_mitigations},
    {"run", NULL, env_run},
    {"status", NULL, env_status},
    {"teebench", NULL, env_teebench},
    {"run id", NULL, env_id},
    {"simulated TEE", NULL, env_simulated},
};

/* A row per tool version: the union of the records' keys, in first-seen order. */
static void env_versions(ctx *x, char (*vals)[1024])
{
    const tb_compare *c = x->c;
    for (size_t i = 0; i < c->n_records; i++) {
        const char *key;
        const json_t *v;
        json_object_foreach(c->records[i]->versions, key, v)
        {
            int seen = 0;
            for (size_t j = 0; j < i && !seen; j++)
                seen = json_object_get(c->records[j]->versions, key) != NULL;
            if (seen)
                continue;
            for (size_t j = 0; j < c->n_records; j++) {
                const json_t *w = json_object_get(c->records[j]->versions, key);
                snprintf(vals[j], sizeof vals[j], "%s",
                         json_is_string(w) ? json_string_value(w) : "-");
            }
            char name[160];
            snprintf(name, sizeof name, "%s version", key);
            env_row(x, name, vals);
        }
    }
}

static void env_table(ctx *x)
{
    const tb_compare *c = x->c;
    section_head(x, "environments", "Environments");
    char(*vals)[1024] = scratch(x, c->n_records, sizeof *vals);
    if (!vals)
        return;
    env_head(x);
    for (size_t k = 0; k < sizeof env_facts / sizeof env_facts[0]; k++) {
        const struct env_fact *f = &env_facts[k];
        for (size_t i = 0; i < c->n_records; i++)
            if (f->key)
                fact(c->records[i]->env, f->key, vals[i], sizeof vals[i]);
            else
                f->value(x, i, vals[i], sizeof vals[i]);
        env_row(x, f->name, vals);
    }
    env_versions(x, vals);
    put(x, html(x) ? "</tbody></table></div>\n" : "\n");
    section_end(x);
}

static size_t longest_backticks(const char *s)
{
    size_t best = 0, run = 0;
    for (; *s; s++) {
        run = *s == '`' ? run + 1 : 0;
        best = run > best ? run : best;
    }
    return best;
}

static void commands(ctx *x)
{
    const tb_compare *c = x->c;
    section_head(x, "commands", "Exact commands");
    for (size_t i = 0; i < c->n_records; i++) {
        const json_t *cmds = c->records[i]->commands;
        subheading(x, x->titles[i]);
        if (!json_is_array(cmds) || !json_array_size(cmds)) {
            note(x, "no commands recorded");
            continue;
        }
        size_t fence = 3, k;
        const json_t *cmd;
        json_array_foreach(cmds, k, cmd)
        {
            size_t b = json_is_string(cmd) ? longest_backticks(json_string_value(cmd)) : 0;
            fence = b + 1 > fence ? b + 1 : fence;
        }
        if (html(x))
            put(x, "<pre><code>");
        else {
            for (size_t f = 0; f < fence; f++)
                put(x, "`");
            put(x, "sh\n");
        }
        json_array_foreach(cmds, k, cmd)
        {
            if (!json_is_string(cmd))
                continue;
            if (html(x))
                text(x, json_string_value(cmd));
            else
                put(x, json_string_value(cmd)); /* inside a fence: verbatim */
            put(x, "\n");
        }
        if (html(x))
            put(x, "</code></pre>\n");
        else {
            for (size_t f = 0; f < fence; f++)
                put(x, "`");
            put(x, "\n\n");
        }
    }
    section_end(x);
}

/* ------------------------------------------------------------------ page */

static const char page_css[] =
    ":root{--tb-sim:#b3261e;--tb-noisy:#8a5a00}\n"
    "@media (prefers-color-scheme:dark){:root{--tb-sim:#ff8a80;--tb-noisy:#e6b422}}\n"
    "@media print{:root{--tb-sim:#b3261e;--tb-noisy:#8a5a00}}\n"
    "html{color-scheme:light dark}\n"
    "body{margin:0;background:var(--tb-bg);color:var(--tb-fg);"
    "font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif}\n"
    "main{max-width:1000px;margin:0 auto;padding:16px 20px 40px}\n"
    "h1{font-size:1.6em;margin:.3em 0}h2{font-size:1.25em;margin-top:1.8em;"
    "border-bottom:1px solid var(--tb-grid);padding-bottom:.2em}h3{font-size:1.05em}\n"
    ".meta,.note,.ci,.ex{color:var(--tb-muted)}.note{font-size:.92em}.note.mc{color:inherit}\n"
    ".cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(310px,1fr));gap:12px}\n"
    ".card{border:1px solid var(--tb-grid);border-radius:8px;padding:8px 14px}\n"
    ".card h3{margin:.2em 0 .4em}.card ul{margin:0;padding-left:1.1em}"
    ".card li{margin:.45em 0}\n"
    ".big{font-size:1.15em}.v{display:block;font-size:.92em}\n"
    ".badge{display:inline-block;font-size:.72em;font-weight:700;letter-spacing:.04em;"
    "border:1.5px solid currentColor;border-radius:4px;padding:0 .35em;margin-left:.4em;"
    "vertical-align:middle}\n"
    ".badge.sim{color:var(--tb-sim)}.badge.noisy{color:var(--tb-noisy)}"
    ".badge.base{color:var(--tb-muted)}.card p.tee{margin:0 0 .3em;font-size:.92em}\n"
    "figure{margin:.8em 0}figure svg{display:block;width:100%;height:auto}\n"
    ".tw{overflow-x:auto}table{border-collapse:collapse;font-size:.86em;"
    "font-variant-numeric:tabular-nums}\n"
    "th,td{border:1px solid var(--tb-grid);padding:3px 7px;text-align:left;vertical-align:top}"
    "td.n{text-align:right;white-space:nowrap}\n"
    "tbody tr:nth-child(even){background:rgba(127,127,127,.07)}\n"
    "pre{white-space:pre-wrap;word-break:break-all;background:rgba(127,127,127,.1);"
    "padding:8px;border-radius:6px;font-size:.85em}\n"
    "dl.why dt{font-weight:600;margin-top:.3em}dl.why dd{margin-left:1.2em;"
    "color:var(--tb-muted)}\n"
    "footer{margin-top:2em;color:var(--tb-muted);font-size:.88em}\n"
    "@media print{main{max-width:none;padding:0}.card,figure,tr{break-inside:avoid}"
    ".tw{overflow:visible}}\n";

static void page_head(ctx *x, const char *title)
{
    const tb_compare *c = x->c;
    if (html(x)) {
        put(x, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
               "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
               "style-src 'unsafe-inline'\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
               "<meta name=\"color-scheme\" content=\"light dark\">\n"
               "<meta name=\"generator\" content=\"teebench " TEEBENCH_VERSION "\">\n<title>");
        text(x, title);
        put(x, "</title>\n<style>\n");
        put(x, tb_svg_css());
        put(x, page_css);
        put(x, "</style></head>\n<body><main>\n<h1>");
        text(x, title);
        put(x, "</h1>\n<p class=\"meta\">");
    } else {
        put(x, "# ");
        md_text(x, title);
        put(x, "\n\n");
    }
    char line[256];
    snprintf(line, sizeof line, "%zu environment%s: ", c->n_records, c->n_records == 1 ? "" : "s");
    md_text(x, line);
    for (size_t i = 0; i < c->n_records; i++) {
        if (i)
            put(x, ", ");
        if (html(x))
            put(x, "<b class=\"env\">");
        md_text(x, x->titles[i]);
        if (html(x))
            put(x, "</b>");
        if (i == c->baseline && c->n_records > 1)
            put(x, " (baseline)");
    }
    put(x, ". ");
    if (x->o->generated) {
        md_text(x, "Made ");
        md_text(x, x->o->generated);
        put(x, " ");
    }
    md_text(x, "by teebench " TEEBENCH_VERSION ".");
    int sim = 0;
    for (size_t i = 0; i < c->n_records; i++)
        sim |= c->records[i]->simulated;
    if (sim)
        badge(x, "sim", "SIMULATED TEE in some runs");
    put(x, html(x) ? "</p>\n" : "\n\n");
}

static void page_foot(ctx *x)
{
    if (html(x))
        put(x, "<footer>");
    md_text(x, "teebench " TEEBENCH_VERSION);
    if (x->o->generated) {
        md_text(x, ", ");
        md_text(x, x->o->generated);
    }
    if (x->o->command) {
        put(x, html(x) ? ": <code>" : ": `");
        if (html(x))
            text(x, x->o->command);
        else /* inline code: backticks cannot be escaped in it, so drop them */
            for (const char *p = x->o->command; *p; p++)
                if (*p != '`' && *p != '\n')
                    x->rc |= tb_buf_append(x->out, p, 1);
        put(x, html(x) ? "</code>" : "`");
    }
    put(x, html(x) ? "</footer>\n</main></body></html>\n" : "\n");
}

static int ctx_init(ctx *x, const tb_compare *c, enum tb_page_format fmt, const tb_page_opts *o,
                    tb_page *out)
{
    memset(x, 0, sizeof *x);
    x->c = c;
    x->fmt = fmt;
    x->o = o;
    x->page = out;
    x->out = &out->doc;
    x->titles = calloc(c->n_records, sizeof *x->titles);
    x->names = calloc(c->n_records, sizeof *x->names);
    x->title_ptrs = calloc(c->n_records, sizeof *x->title_ptrs);
    x->tee = calloc(c->n_records, sizeof *x->tee);
    if (!x->titles || !x->names || !x->title_ptrs || !x->tee)
        return -1;
    for (size_t i = 0; i < c->n_records; i++) {
        tb_compare_title(c, i, x->titles[i], TITLE_MAX);
        x->any_tee |= tb_record_tee(c->records[i], &x->tee[i]);
        snprintf(x->names[i], TITLE_MAX, "%s", x->titles[i]);
        if (c->records[i]->simulated && ends(x->names[i], " [SIMULATED]"))
            x->names[i][strlen(x->names[i]) - strlen(" [SIMULATED]")] = 0;
        char tag[32];
        snprintf(tag, sizeof tag, " [%s]", x->tee[i].kind);
        if (ends(x->names[i], tag))
            x->names[i][strlen(x->names[i]) - strlen(tag)] = 0;
        x->title_ptrs[i] = x->titles[i];
    }
    size_t nr = c->n_rows ? c->n_rows : 1;
    x->sec = calloc(nr, sizeof *x->sec);
    x->fam = calloc(nr, sizeof *x->fam);
    x->fx = calloc(nr, sizeof *x->fx);
    if (!x->sec || !x->fam || !x->fx)
        return -1;
    for (size_t k = 0; k < c->n_rows; k++) {
        const tb_compare_row *row = &c->rows[k];
        size_t at = 0;
        x->sec[k] = (unsigned char)section_of(row);
        if ((x->fam[k] = tb_wl_sweep_of(&row->spec, &x->fx[k])))
            continue;
        if ((x->fam[k] = tb_wl_phase_of(&row->spec, &at))) {
            x->fx[k] = (double)at;
            x->sec[k] = SEC_PHASE;
        }
    }
    for (size_t k = 0; k < c->n_rows; k++) { /* a sweep of one point is a metric alone */
        if (!x->fam[k] || x->fam[k]->kind != TB_WLF_SWEEP)
            continue;
        size_t points = 0;
        for (size_t j = 0; j < c->n_rows && points < 2; j++)
            points += x->fam[j] == x->fam[k] && x->fx[j] != x->fx[k];
        if (points)
            x->sec[k] = SEC_SWEEP;
        else
            x->fam[k] = NULL;
    }
    return 0;
}

static void ctx_free(ctx *x)
{
    for (size_t i = 0; i < x->n_pool; i++)
        free(x->pool[i]);
    free(x->pool);
    free(x->titles);
    free(x->names);
    free(x->title_ptrs);
    free(x->tee);
    free(x->sec);
    free(x->fam);
    free(x->fx);
}

int tb_page_build(const tb_compare *c, enum tb_page_format fmt, const tb_page_opts *o, tb_page *out,
                  tb_err *err)
{
    static const tb_page_opts none = {0};
    memset(out, 0, sizeof *out);
    if (!o)
        o = &none;
    if (!c || !c->n_records || c->baseline >= c->n_records)
        return tb_errf(err, "report: nothing to report (no runs)");
    ctx x;
    if (ctx_init(&x, c, fmt, o, out) < 0) {
        ctx_free(&x);
        return tb_errf(err, "report: out of memory");
    }
    const char *title = o->title && *o->title ? o->title : "teebench report";
    page_head(&x, title);
    forest_section(&x);
    headline(&x);
    bounce_section(&x);
    bars_section(&x);
    latency_section(&x);
    sweeps_section(&x);
    phases_section(&x);
    notary_section(&x);
    probes_section(&x);
    compare_table(&x);
    env_table(&x);
    commands(&x);
    page_foot(&x);
    int rc = x.rc;
    ctx_free(&x);
    if (rc) {
        tb_page_free(out);
        return tb_errf(err, "report: out of memory");
    }
    return 0;
}
