/* compare/format: the comparison as text, markdown, CSV or JSON.
 *
 * Text and markdown share one grid of cell strings (metric, unit, better, then
 * per record: its median part and, against the baseline, a ratio part and a
 * verdict part); text aligns it in columns with "|" between records, markdown
 * makes it a GitHub table with one column per record. Numbers carry thousands
 * separators and at least 4 significant digits; every number has its unit (the
 * unit column, "x" for ratios, "%" for spreads). CSV and JSON carry every field
 * with 7 significant digits, so no float noise reaches a reader. When any record is a
 * TEE or has attestation evidence (record/tee_label), the legend starts with one line per
 * environment saying which, and the JSON's environments carry it ("tee"). Under
 * every text and markdown table, before the legend, each environment's
 * multiple-comparison line (tb_compare_summary); the JSON carries its figures
 * ("multiple_comparisons"), CSV only per-cell fields (its lines are not CSV: the
 * cli writes them to stderr). Verdicts print the p they were decided by (p, or
 * "adj p" with an adjustment) and say where the medians do not show the test's
 * direction ("shifted, medians equal"). Text and markdown show what a record brings
 * (labels, env facts) with control characters escaped (base/text); CSV and JSON quote
 * it their way. Pure: appends to the caller's buffer. */
#include "compare/compare.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/csv.h"
#include "base/text.h"

int tb_compare_format_parse(const char *s, enum tb_compare_format *out)
{
    static const char *const names[] = {"text", "markdown", "csv", "json"};
    for (int i = 0; i < 4; i++) {
        if (!strcmp(s, names[i])) {
            *out = (enum tb_compare_format)i;
            return 0;
        }
    }
    return -1;
}

/* ---- numbers ----------------------------------------------------------- */

/* v with thousands separators and at least 4 significant digits: 162,588; 326.4;
   34.95; 3.221; 0.01234; from 1e15 on with an exponent (1.798e+308): a digit string
   that long reads no better, and did not fit. */
static void fmt_num(double v, char *out, size_t len)
{
    if (!isfinite(v)) {
        snprintf(out, len, "n/a");
        return;
    }
    double a = fabs(v);
    if ((a != 0 && a < 1) || a >= 1e15) {
        snprintf(out, len, "%#.4g", v); /* '#': 0.6000, the digits kept */
        return;
    }
    int dec = a >= 1000 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : a == 0 ? 0 : 3;
    char raw[64];
    snprintf(raw, sizeof raw, "%.*f", dec, a);
    const char *dot = strchr(raw, '.');
    size_t int_len = dot ? (size_t)(dot - raw) : strlen(raw), o = 0;
    char tmp[96];
    if (v < 0 && strspn(raw, "0.") != strlen(raw))
        tmp[o++] = '-';
    for (size_t i = 0; i < int_len; i++) {
        if (i > 0 && (int_len - i) % 3 == 0)
            tmp[o++] = ',';
        tmp[o++] = raw[i];
    }
    if (dot) {
        size_t rest = strlen(dot);
        memcpy(tmp + o, dot, rest);
        o += rest;
    }
    tmp[o] = '\0';
    snprintf(out, len, "%s", tmp);
}

int tb_compare_ratio_decimals(double r)
{
    return r < 10 ? 3 : r < 100 ? 2 : 1;
}

/* A ratio: 0.215, 12.35, 123.5; below 0.001 or from 1e6 on with an exponent (3.34e-308),
   never a row of zeros or of digits. */
static void fmt_ratio(double r, char out[32])
{
    if (r != 0 && (r < 0.001 || r >= 1e6))
        snprintf(out, 32, "%.3g", r);
    else
        snprintf(out, 32, "%.*f", tb_compare_ratio_decimals(r), r);
}

/* "±0.8%": half the interval's width relative to the median. */
static void fmt_spread(const tb_compare_cell *cell, char *out, size_t len)
{
    double rel = (cell->hi - cell->lo) / 2.0 / fabs(cell->median) * 100.0;
    if (!isfinite(rel)) {
        char lo[48], hi[48];
        fmt_num(cell->lo, lo, sizeof lo);
        fmt_num(cell->hi, hi, sizeof hi);
        snprintf(out, len, "[%s, %s]", lo, hi);
    } else {
        snprintf(out, len, "\xc2\xb1%.*f%%", rel < 10 ? 1 : 0, rel);
    }
}

/* ---- the grid of strings shared by text and markdown -------------------- */

typedef struct grid {
    size_t cols, rows, cap;
    char **s; /* rows * cols strings, NULL = empty */
    int oom;
} grid;

static void grid_free(grid *g)
{
    for (size_t i = 0; i < g->rows * g->cols; i++)
        free(g->s[i]);
    free(g->s);
}

static size_t grid_add_row(grid *g)
{
    if (g->rows == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 16;
        char **s = realloc(g->s, cap * g->cols * sizeof *s);
        if (!s) {
            g->oom = 1;
            return g->rows ? g->rows - 1 : 0;
        }
        g->s = s;
        g->cap = cap;
    }
    memset(g->s + g->rows * g->cols, 0, g->cols * sizeof *g->s);
    return g->rows++;
}

__attribute__((format(printf, 4, 5))) static void grid_set(grid *g, size_t r, size_t c,
                                                           const char *fmt, ...)
{
    if (g->oom || r >= g->rows)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *s;
    if (vasprintf(&s, fmt, ap) < 0) {
        g->oom = 1;
        s = NULL;
    }
    va_end(ap);
    if (s && !tb_text_plain(s, strlen(s))) { /* text from a result: escaped */
        tb_buf b = {0};
        if (tb_text_escape_str(&b, s) < 0 || !b.p)
            g->oom = 1;
        free(s);
        s = (char *)b.p;
    }
    free(g->s[r * g->cols + c]);
    g->s[r * g->cols + c] = s;
}

static const char *grid_get(const grid *g, size_t r, size_t c)
{
    const char *s = g->s[r * g->cols + c];
    return s ? s : "";
}

/* Column layout: 0 metric, 1 unit, 2 better, then per record its median column
   and, for every record but the baseline, a ratio and a verdict column. */
#define COL_FIXED 3
static size_t first_col(const tb_compare *c, size_t rec)
{
    size_t col = COL_FIXED;
    for (size_t r = 0; r < rec; r++)
        col += r == c->baseline ? 1 : 3;
    return col;
}

static void median_part(grid *g, size_t r, size_t col, const tb_compare_cell *cell)
{
    char med[64], spread[128];
    if (!cell->present) {
        grid_set(g, r, col, "-");
        return;
    }
    if (cell->n == 0) {
        grid_set(g, r, col, "(no samples)");
        return;
    }
    fmt_num(cell->median, med, sizeof med);
    if (isnan(cell->lo))
        snprintf(spread, sizeof spread, "(n=%zu, too few)", cell->n);
    else
        fmt_spread(cell, spread, sizeof spread);
    grid_set(g, r, col, "%s %s%s", med, spread, cell->noisy ? "!" : "");
}

/* "better (p=0.013)", "~ (adj p=0.210)", with the shift note where the medians do
   not show the test's direction: "better (p=0.013; shifted, medians equal)". */
static void verdict_part(grid *g, size_t r, size_t col, const tb_compare *c,
                         const tb_compare_row *row, size_t i)
{
    const tb_compare_cell *cell = &row->cells[i];
    const char *p = c->adjust == TB_STATS_ADJUST_NONE ? "p" : "adj p";
    const char *note = tb_compare_shift_note(c, row, i);
    switch (cell->verdict) {
    case TB_COMPARE_SAME:
        grid_set(g, r, col, "~ (%s=%.3f)", p, cell->p_adjusted);
        break;
    case TB_COMPARE_BETTER:
    case TB_COMPARE_WORSE:
        grid_set(g, r, col, "%s (%s=%.3f%s%s)", tb_compare_verdict_name(cell->verdict), p,
                 cell->p_adjusted, note ? "; " : "", note ? note : "");
        break;
    case TB_COMPARE_UNTESTABLE:
        grid_set(g, r, col, "too few to test");
        break;
    default:
        break;
    }
}

static void versus_parts(grid *g, size_t r, size_t col, const tb_compare *c,
                         const tb_compare_row *row, size_t i)
{
    const tb_compare_cell *cell = &row->cells[i];
    if (!isnan(cell->ratio)) {
        char q[32], lo[32], hi[32];
        fmt_ratio(cell->ratio, q);
        fmt_ratio(cell->ratio_lo, lo);
        fmt_ratio(cell->ratio_hi, hi);
        if (!isnan(cell->ratio_lo))
            grid_set(g, r, col, "%sx [%s, %s]", q, lo, hi);
        else if (cell->ratio_ci_why == TB_COMPARE_CI_NON_POSITIVE)
            grid_set(g, r, col, "%sx [a value \xe2\x89\xa4 0]", q);
        else
            grid_set(g, r, col, "%sx [too few]", q);
    } else if (cell->verdict != TB_COMPARE_ABSENT) {
        const tb_compare_cell *base = &row->cells[c->baseline];
        if (base->median > 0 && cell->median > 0)
            grid_set(g, r, col, "no ratio: beyond a double's range");
        else
            grid_set(g, r, col, "no ratio: median \xe2\x89\xa4 0");
    }
    verdict_part(g, r, col + 1, c, row, i);
}

static void geomean_row(grid *g, const tb_compare *c, int better)
{
    const double *gm = better == TB_BETTER_HIGHER ? c->geomean_higher : c->geomean_lower;
    const size_t *gn = better == TB_BETTER_HIGHER ? c->geomean_higher_n : c->geomean_lower_n;
    int any = 0;
    for (size_t i = 0; i < c->n_records; i++)
        any |= gn[i] > 0;
    if (!any)
        return;
    size_t r = grid_add_row(g);
    grid_set(g, r, 0, "geomean");
    grid_set(g, r, 1, "ratio");
    grid_set(g, r, 2, "%s", better == TB_BETTER_HIGHER ? "higher" : "lower");
    for (size_t i = 0; i < c->n_records; i++) {
        if (i == c->baseline)
            continue;
        size_t col = first_col(c, i);
        if (gn[i] == 0) {
            grid_set(g, r, col + 1, "-");
            continue;
        }
        char q[32];
        fmt_ratio(gm[i], q);
        grid_set(g, r, col + 1, "%sx", q);
        grid_set(g, r, col + 2, "(%zu metric%s)", gn[i], gn[i] == 1 ? "" : "s");
    }
}

/* Row 0 is the header (record titles in each record's median column). */
static void fill_grid(grid *g, const tb_compare *c)
{
    g->cols = first_col(c, c->n_records);
    size_t h = grid_add_row(g);
    grid_set(g, h, 0, "metric");
    grid_set(g, h, 1, "unit");
    grid_set(g, h, 2, "better");
    for (size_t i = 0; i < c->n_records; i++) {
        char title[512];
        tb_compare_title(c, i, title, sizeof title);
        grid_set(g, h, first_col(c, i), "%s%s", title,
                 i == c->baseline && c->n_records > 1 ? " (baseline)" : "");
    }
    for (size_t k = 0; k < c->n_rows; k++) {
        const tb_compare_row *row = &c->rows[k];
        size_t r = grid_add_row(g);
        grid_set(g, r, 0, "%s%s", row->name, row->simulated ? " [SIMULATED]" : "");
        grid_set(g, r, 1, "%s", row->unit);
        grid_set(g, r, 2, "%s", row->better == TB_BETTER_HIGHER ? "higher" : "lower");
        for (size_t i = 0; i < c->n_records; i++) {
            size_t col = first_col(c, i);
            median_part(g, r, col, &row->cells[i]);
            if (i != c->baseline)
                versus_parts(g, r, col + 1, c, row, i);
        }
    }
    if (c->n_records > 1) {
        geomean_row(g, c, TB_BETTER_HIGHER);
        geomean_row(g, c, TB_BETTER_LOWER);
    }
}

/* Display width: UTF-8 continuation bytes take no column. */
static size_t width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xc0) != 0x80;
    return w;
}

static int pad(tb_buf *out, size_t n)
{
    static const char spaces[] = "                                ";
    while (n > 0) {
        size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
        if (tb_buf_append(out, spaces, k) < 0)
            return -1;
        n -= k;
    }
    return 0;
}

static int put_aligned(tb_buf *out, const char *s, size_t w, int right)
{
    size_t sw = width(s);
    size_t gap = w > sw ? w - sw : 0;
    if (right && pad(out, gap) < 0)
        return -1;
    if (tb_buf_puts(out, s) < 0)
        return -1;
    return right ? 0 : pad(out, gap);
}

static void trim_line_end(tb_buf *out, size_t line_start)
{
    while (out->len > line_start && out->p[out->len - 1] == ' ')
        out->len--;
    if (out->cap > out->len)
        out->p[out->len] = '\0';
}

static int any_cell(const tb_compare *c, int (*pred)(const tb_compare_cell *))
{
    for (size_t k = 0; k < c->n_rows; k++)
        for (size_t i = 0; i < c->n_records; i++)
            if (c->rows[k].cells[i].present && pred(&c->rows[k].cells[i]))
                return 1;
    return 0;
}

static int is_noisy(const tb_compare_cell *cell)
{
    return cell->noisy;
}

static int is_simulated(const tb_compare_cell *cell)
{
    return cell->simulated;
}

/* A string fact of an env document ("value" of its member), or NULL. */
static const char *env_fact(const json_t *env, const char *key)
{
    const json_t *f = json_is_object(env) ? json_object_get(env, key) : NULL;
    return json_string_value(json_is_object(f) ? json_object_get(f, "value") : f);
}

/* "platform tdx-guest, hypervisor KVM, CPU Intel(R) Xeon(R) ...", or "env unknown". */
static void env_brief(const json_t *env, char *out, size_t len)
{
    const char *platform = env_fact(env, "platform"), *hv = env_fact(env, "hypervisor");
    const char *cpu = env_fact(env, "cpu_model");
    if (!platform) {
        snprintf(out, len, "env unknown");
        return;
    }
    int n = snprintf(out, len, "platform %s", platform);
    if (n > 0 && (size_t)n < len && hv && strcmp(hv, "none") && strcmp(hv, "unknown"))
        n += snprintf(out + n, len - (size_t)n, ", hypervisor %s", hv);
    if (n > 0 && (size_t)n < len && cpu && strcmp(cpu, "unknown"))
        snprintf(out + n, len - (size_t)n, ", CPU %s", cpu);
}

/* One line per environment -- "<title>: TEE <kind>; evidence <evidence>; <facts>" --
   when any of them is a TEE or recorded attestation evidence. */
static int tee_legend(tb_buf *out, const tb_compare *c, const char *prefix)
{
    int any = 0;
    for (size_t i = 0; i < c->n_records; i++) {
        tb_record_tee_info t;
        any |= tb_record_tee(c->records[i], &t);
    }
    int rc = 0;
    for (size_t i = 0; any && i < c->n_records && rc == 0; i++) {
        tb_record_tee_info t;
        tb_record_tee(c->records[i], &t);
        char title[512], facts[512], te[512], fe[512];
        tb_compare_title(c, i, title, sizeof title);
        env_brief(c->records[i]->env, facts, sizeof facts);
        rc = tb_buf_printf(out, "%s%s: TEE %s; evidence %s; %s\n", prefix,
                           tb_text_safe(title, te, sizeof te), t.kind,
                           t.evidence[0] ? t.evidence : "none recorded",
                           tb_text_safe(facts, fe, sizeof fe));
    }
    return rc;
}

/* Each record's multiple-comparison line (tb_compare_summary), after prefix. */
static int summary_lines(tb_buf *out, const tb_compare *c, const char *prefix)
{
    int rc = 0;
    char line[1024];
    for (size_t i = 0; i < c->n_records && rc == 0; i++) {
        char esc[2048];
        tb_compare_summary(c, i, line, sizeof line);
        if (line[0])
            rc = tb_buf_printf(out, "%s%s\n", prefix, tb_text_safe(line, esc, sizeof esc));
    }
    return rc;
}

static int legend(tb_buf *out, const tb_compare *c, const char *prefix)
{
    char title[512], esc[512];
    tb_compare_title(c, c->baseline, title, sizeof title);
    const char *base = tb_text_safe(title, esc, sizeof esc);
    int rc = summary_lines(out, c, prefix);
    if (rc == 0)
        rc = tee_legend(out, c, prefix);
    if (rc == 0)
        rc = tb_buf_printf(out,
                           "%smedian \xc2\xb1x%%: half the width of its %.0f %% interval "
                           "(order statistics, from 6 samples), relative to the median\n",
                           prefix, TB_COMPARE_LEVEL * 100);
    if (rc == 0 && c->n_records > 1)
        rc = tb_buf_printf(out,
                           "%sratio: median / median of %s [%.0f %% percentile-bootstrap "
                           "interval, %d resamples]\n"
                           "%sp: two-sided Mann-Whitney U test against %s; ~ = no significant "
                           "difference at alpha = %g; better/worse: the side the test finds "
                           "the samples shifted to, by each metric's direction\n",
                           prefix, base, TB_COMPARE_LEVEL * 100, TB_COMPARE_RESAMPLES, prefix, base,
                           c->alpha);
    if (rc == 0 && c->n_records > 1 && c->adjust != TB_STATS_ADJUST_NONE)
        rc = tb_buf_printf(out,
                           "%sadj p: p adjusted for the rows tested per environment (%s); "
                           "verdicts use it\n",
                           prefix,
                           c->adjust == TB_STATS_ADJUST_HOLM
                               ? "Holm: family-wise error rate"
                               : "Benjamini-Hochberg: false discovery rate");
    if (rc == 0 && any_cell(c, is_noisy))
        rc = tb_buf_printf(out, "%s! noisy: coefficient of variation above %.0f %%\n", prefix,
                           TB_COMPARE_NOISY_CV * 100);
    int sim = any_cell(c, is_simulated);
    for (size_t i = 0; i < c->n_records; i++)
        sim |= c->records[i]->simulated;
    if (rc == 0 && sim)
        rc = tb_buf_printf(out,
                           "%sSIMULATED: measured with a simulated TEE, not real TEE "
                           "hardware\n",
                           prefix);
    return rc;
}

static int format_text(const tb_compare *c, const grid *g, tb_buf *out)
{
    size_t *w = calloc(g->cols, sizeof *w);
    if (!w)
        return -1;
    for (size_t r = 1; r < g->rows; r++)
        for (size_t k = 0; k < g->cols; k++)
            if (width(grid_get(g, r, k)) > w[k])
                w[k] = width(grid_get(g, r, k));
    for (size_t k = 0; k < COL_FIXED; k++)
        if (width(grid_get(g, 0, k)) > w[k])
            w[k] = width(grid_get(g, 0, k));
    /* a title wider than its record's columns widens the median column */
    for (size_t i = 0; i < c->n_records; i++) {
        size_t col = first_col(c, i), n = i == c->baseline ? 1 : 3, sum = 0;
        for (size_t k = 0; k < n; k++)
            sum += w[col + k] + (k ? 2 : 0);
        size_t tw = width(grid_get(g, 0, col));
        if (tw > sum)
            w[col] += tw - sum;
    }
    int rc = 0;
    for (size_t r = 0; r < g->rows && rc == 0; r++) {
        size_t start = out->len;
        for (size_t k = 0; k < COL_FIXED && rc == 0; k++) {
            rc = put_aligned(out, grid_get(g, r, k), w[k], 0);
            if (rc == 0)
                rc = pad(out, 2);
        }
        for (size_t i = 0; i < c->n_records && rc == 0; i++) {
            size_t col = first_col(c, i), n = i == c->baseline ? 1 : 3;
            if (i > 0)
                rc = tb_buf_puts(out, "  |  ");
            if (r == 0) {
                size_t sum = 0;
                for (size_t k = 0; k < n; k++)
                    sum += w[col + k] + (k ? 2 : 0);
                if (rc == 0)
                    rc = put_aligned(out, grid_get(g, 0, col), sum, 0);
                continue;
            }
            for (size_t k = 0; k < n && rc == 0; k++) {
                if (k > 0)
                    rc = pad(out, 2);
                if (rc == 0) /* numbers right-aligned, the verdict left */
                    rc = put_aligned(out, grid_get(g, r, col + k), w[col + k], k < 2);
            }
        }
        trim_line_end(out, start);
        if (rc == 0)
            rc = tb_buf_puts(out, "\n");
    }
    free(w);
    if (rc == 0)
        rc = tb_buf_puts(out, "\n");
    return rc == 0 ? legend(out, c, "") : -1;
}

/* A markdown table cell: '|' escaped, never empty of meaning. */
static int md_cell(tb_buf *out, const char *s)
{
    int rc = tb_buf_puts(out, " ");
    for (; *s && rc == 0; s++)
        rc = *s == '|' ? tb_buf_puts(out, "\\|") : tb_buf_append(out, s, 1);
    return rc == 0 ? tb_buf_puts(out, " |") : -1;
}

static int format_markdown(const tb_compare *c, const grid *g, tb_buf *out)
{
    int rc = 0;
    char joined[1024];
    for (size_t r = 0; r < g->rows && rc == 0; r++) {
        rc = tb_buf_puts(out, "|");
        for (size_t k = 0; k < COL_FIXED && rc == 0; k++)
            rc = md_cell(out, grid_get(g, r, k));
        for (size_t i = 0; i < c->n_records && rc == 0; i++) {
            size_t col = first_col(c, i), n = i == c->baseline || r == 0 ? 1 : 3, o = 0;
            joined[0] = '\0';
            for (size_t k = 0; k < n; k++) {
                const char *s = grid_get(g, r, col + k);
                if (!*s)
                    continue;
                int w = snprintf(joined + o, sizeof joined - o, "%s%s", o ? "  " : "", s);
                if (w > 0 && (size_t)w < sizeof joined - o)
                    o += (size_t)w;
            }
            rc = md_cell(out, joined);
        }
        if (rc == 0)
            rc = tb_buf_puts(out, "\n");
        if (r == 0 && rc == 0) {
            rc = tb_buf_puts(out, "|---|---|---|");
            for (size_t i = 0; i < c->n_records && rc == 0; i++)
                rc = tb_buf_puts(out, "---:|");
            if (rc == 0)
                rc = tb_buf_puts(out, "\n");
        }
    }
    if (rc == 0)
        rc = tb_buf_puts(out, "\n");
    return rc == 0 ? legend(out, c, "- ") : -1;
}

/* ---- CSV ------------------------------------------------------------------ */

/* "higher", "lower" or "" (not tested, or no direction). */
static const char *shift_name(const tb_compare_cell *cell)
{
    return !cell->tested ? "" : cell->shift > 0 ? "higher" : cell->shift < 0 ? "lower" : "";
}

/* "too_few", "non_positive", or "" (an interval, or nothing compared). */
static const char *ci_why_name(const tb_compare_cell *cell)
{
    return cell->ratio_ci_why == TB_COMPARE_CI_TOO_FEW        ? "too_few"
           : cell->ratio_ci_why == TB_COMPARE_CI_NON_POSITIVE ? "non_positive"
                                                              : "";
}

static int format_csv(const tb_compare *c, tb_buf *out)
{
    int rc = tb_buf_puts(out, "metric,unit,better,workload,environment,position,baseline,"
                              "simulated,present,n,median,ci_lo,ci_hi,stdev,cv,noisy,ratio,"
                              "ratio_lo,ratio_hi,p_value,significant,too_few,verdict,"
                              "p_adjusted,shift,ratio_ci_why\n");
    char title[512];
    for (size_t k = 0; k < c->n_rows && rc == 0; k++) {
        const tb_compare_row *row = &c->rows[k];
        for (size_t i = 0; i < c->n_records && rc == 0; i++) {
            const tb_compare_cell *cell = &row->cells[i];
            tb_compare_title(c, i, title, sizeof title);
            /* text cells by base/csv: quoted, and never a formula (a label
               "=HYPERLINK(...)" is written '=HYPERLINK(...)) */
            tb_csv_row r;
            tb_csv_row_begin(&r, out);
            tb_csv_put_text(&r, row->name);
            tb_csv_put_text(&r, row->unit);
            tb_csv_put_text(&r, row->better == TB_BETTER_HIGHER ? "higher" : "lower");
            tb_csv_put_text(&r, row->workload);
            tb_csv_put_text(&r, title);
            tb_csv_put_printf(&r, "%zu", i + 1);
            tb_csv_put_printf(&r, "%d", i == c->baseline);
            tb_csv_put_printf(&r, "%d", cell->simulated);
            tb_csv_put_printf(&r, "%d", cell->present);
            tb_csv_put_printf(&r, "%zu", cell->n);
            const double nums[] = {cell->median, cell->lo, cell->hi, cell->stdev, cell->cv};
            for (size_t j = 0; j < sizeof nums / sizeof nums[0]; j++)
                tb_csv_put_num(&r, nums[j]);
            tb_csv_put_printf(&r, "%d", cell->noisy);
            const double ratios[] = {cell->ratio, cell->ratio_lo, cell->ratio_hi, cell->p_value};
            for (size_t j = 0; j < sizeof ratios / sizeof ratios[0]; j++)
                tb_csv_put_num(&r, ratios[j]);
            tb_csv_put_printf(&r, "%d", cell->significant);
            tb_csv_put_printf(&r, "%d", cell->too_few);
            tb_csv_put_raw(&r, tb_compare_verdict_name(cell->verdict));
            tb_csv_put_num(&r, cell->p_adjusted);
            tb_csv_put_raw(&r, shift_name(cell));
            tb_csv_put_raw(&r, ci_why_name(cell));
            rc = tb_csv_row_end(&r);
        }
    }
    return rc;
}

/* ---- JSON ----------------------------------------------------------------- */

/* A number (printed with 7 significant digits: JSON_REAL_PRECISION(7) in
   format_json), null for NAN. */
static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jpair(double lo, double hi)
{
    if (isnan(lo) || isnan(hi))
        return json_null();
    json_t *a = json_array();
    if (a && (json_array_append_new(a, jnum(lo)) < 0 || json_array_append_new(a, jnum(hi)) < 0)) {
        json_decref(a);
        return NULL;
    }
    return a;
}

/* json_object_set_new that remembers a failure (no object, a NULL value, OOM) in
 *bad; v is always consumed. */
static void put(json_t *o, const char *key, json_t *v, int *bad)
{
    if (!o) {
        json_decref(v);
        *bad = 1;
    } else if (!v || json_object_set_new(o, key, v) < 0) {
        *bad = 1;
    }
}

static json_t *finish(json_t *o, int bad)
{
    if (bad || !o) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *cell_json(const tb_compare_cell *cell)
{
    json_t *o = json_object();
    int bad = 0;
    put(o, "present", json_boolean(cell->present), &bad);
    if (cell->present) {
        put(o, "n", json_integer((json_int_t)cell->n), &bad);
        put(o, "median", jnum(cell->median), &bad);
        put(o, "ci", jpair(cell->lo, cell->hi), &bad);
        put(o, "stdev", jnum(cell->stdev), &bad);
        put(o, "cv", jnum(cell->cv), &bad);
        put(o, "noisy", json_boolean(cell->noisy), &bad);
        put(o, "simulated", json_boolean(cell->simulated), &bad);
        put(o, "ratio", jnum(cell->ratio), &bad);
        put(o, "ratio_ci", jpair(cell->ratio_lo, cell->ratio_hi), &bad);
        put(o, "ratio_ci_why", *ci_why_name(cell) ? json_string(ci_why_name(cell)) : json_null(),
            &bad);
        put(o, "p_value", jnum(cell->p_value), &bad);
        put(o, "p_raw", jnum(cell->p_value), &bad);
        put(o, "p_adjusted", jnum(cell->p_adjusted), &bad);
        put(o, "shift", *shift_name(cell) ? json_string(shift_name(cell)) : json_null(), &bad);
        put(o, "significant", json_boolean(cell->significant), &bad);
        put(o, "too_few", json_boolean(cell->too_few), &bad);
    }
    put(o, "verdict", json_string(tb_compare_verdict_name(cell->verdict)), &bad);
    return finish(o, bad);
}

static json_t *geomean_json(const tb_compare *c, const double *gm, const size_t *gn)
{
    json_t *a = json_array();
    int bad = !a;
    for (size_t i = 0; !bad && i < c->n_records; i++) {
        json_t *o = json_object();
        put(o, "ratio", jnum(gm[i]), &bad);
        put(o, "n", json_integer((json_int_t)gn[i]), &bad);
        o = finish(o, bad);
        bad = !o || json_array_append_new(a, o) < 0;
    }
    return finish(a, bad);
}

static json_t *env_json(const tb_compare *c, size_t i)
{
    const tb_record *r = c->records[i];
    char title[512];
    tb_compare_title(c, i, title, sizeof title);
    json_t *o = json_object();
    int bad = 0;
    put(o, "label", json_string(r->label ? r->label : "unknown"), &bad);
    put(o, "title", json_string(title), &bad);
    put(o, "id", json_string(r->id), &bad);
    put(o, "simulated", json_boolean(r->simulated), &bad);
    put(o, "status", json_string(r->status ? r->status : ""), &bad);
    put(o, "profile", json_string(r->profile ? r->profile : ""), &bad);
    put(o, "started", json_string(r->started), &bad);
    put(o, "metrics", json_integer((json_int_t)r->n_metrics), &bad);
    tb_record_tee_info t;
    tb_record_tee(r, &t);
    json_t *tee = json_object();
    put(tee, "kind", json_string(t.kind), &bad);
    put(tee, "evidence", t.evidence[0] ? json_string(t.evidence) : json_null(), &bad);
    put(tee, "simulated", json_boolean(t.simulated), &bad);
    put(o, "tee", finish(tee, bad), &bad);
    return finish(o, bad);
}

/* Per record: its multiple-comparison figures against the baseline; null for the
   baseline. */
static json_t *multiple_json(const tb_compare *c)
{
    json_t *a = json_array();
    int bad = !a;
    for (size_t i = 0; !bad && i < c->n_records; i++) {
        if (i == c->baseline) {
            bad = json_array_append_new(a, json_null()) < 0;
            continue;
        }
        char line[1024];
        tb_compare_summary(c, i, line, sizeof line);
        json_t *o = json_object();
        put(o, "environment", json_integer((json_int_t)i), &bad);
        put(o, "k", json_integer((json_int_t)c->differ[i]), &bad);
        put(o, "N", json_integer((json_int_t)c->tested[i]), &bad);
        put(o, "k_raw", json_integer((json_int_t)c->differ_raw[i]), &bad);
        put(o, "alpha", jnum(c->alpha), &bad);
        put(o, "expected", jnum((double)c->tested[i] * c->alpha), &bad);
        put(o, "adjust", json_string(tb_compare_adjust_name(c->adjust)), &bad);
        put(o, "line", json_string(line), &bad);
        o = finish(o, bad);
        bad = !o || json_array_append_new(a, o) < 0;
    }
    return finish(a, bad);
}

static json_t *row_json(const tb_compare *c, const tb_compare_row *row)
{
    json_t *o = json_object(), *cells = json_array();
    int bad = !cells;
    for (size_t i = 0; !bad && i < c->n_records; i++) {
        json_t *cj = cell_json(&row->cells[i]);
        bad = !cj || json_array_append_new(cells, cj) < 0;
    }
    put(o, "name", json_string(row->name), &bad);
    put(o, "unit", json_string(row->unit), &bad);
    put(o, "better", json_string(row->better == TB_BETTER_HIGHER ? "higher" : "lower"), &bad);
    put(o, "workload", json_string(row->workload ? row->workload : ""), &bad);
    put(o, "category", json_string(tb_wl_category_name(row->category)), &bad);
    put(o, "note", row->note ? json_string(row->note) : json_null(), &bad);
    put(o, "simulated", json_boolean(row->simulated), &bad);
    put(o, "cells", finish(cells, bad), &bad);
    return finish(o, bad);
}

static json_t *compare_json(const tb_compare *c)
{
    json_t *o = json_object(), *envs = json_array(), *rows = json_array(), *gm = json_object();
    int bad = !envs || !rows || !gm;
    for (size_t i = 0; !bad && i < c->n_records; i++) {
        json_t *e = env_json(c, i);
        bad = !e || json_array_append_new(envs, e) < 0;
    }
    for (size_t k = 0; !bad && k < c->n_rows; k++) {
        json_t *r = row_json(c, &c->rows[k]);
        bad = !r || json_array_append_new(rows, r) < 0;
    }
    put(gm, "higher", geomean_json(c, c->geomean_higher, c->geomean_higher_n), &bad);
    put(gm, "lower", geomean_json(c, c->geomean_lower, c->geomean_lower_n), &bad);
    put(o, "schema", json_string("teebench-compare"), &bad);
    put(o, "schema_version", json_integer(1), &bad);
    put(o, "baseline", json_integer((json_int_t)c->baseline), &bad);
    put(o, "alpha", jnum(c->alpha), &bad);
    put(o, "adjust", json_string(tb_compare_adjust_name(c->adjust)), &bad);
    put(o, "level", jnum(TB_COMPARE_LEVEL), &bad);
    put(o, "resamples", json_integer(TB_COMPARE_RESAMPLES), &bad);
    put(o, "noisy_cv", jnum(TB_COMPARE_NOISY_CV), &bad);
    put(o, "environments", finish(envs, bad), &bad);
    put(o, "metrics", finish(rows, bad), &bad);
    put(o, "geomean", finish(gm, bad), &bad);
    put(o, "multiple_comparisons", multiple_json(c), &bad);
    return finish(o, bad);
}

static int dump_to_buf(const char *s, size_t len, void *data)
{
    return tb_buf_append(data, s, len);
}

static int format_json(const tb_compare *c, tb_buf *out)
{
    json_t *doc = compare_json(c);
    if (!doc)
        return -1;
    /* 7 significant digits: every median, interval and ratio as the tables show
       them and more, and no float noise (0.215, not 0.21499999999999999) */
    int rc = json_dump_callback(doc, dump_to_buf, out, JSON_INDENT(2) | JSON_REAL_PRECISION(7));
    json_decref(doc);
    return rc == 0 ? tb_buf_puts(out, "\n") : -1;
}

int tb_compare_format(const tb_compare *c, enum tb_compare_format fmt, tb_buf *out, tb_err *err)
{
    int rc;
    if (fmt == TB_COMPARE_CSV) {
        rc = format_csv(c, out);
    } else if (fmt == TB_COMPARE_JSON) {
        rc = format_json(c, out);
    } else {
        grid g = {0};
        fill_grid(&g, c);
        rc = g.oom                    ? -1
             : fmt == TB_COMPARE_TEXT ? format_text(c, &g, out)
                                      : format_markdown(c, &g, out);
        grid_free(&g);
    }
    return rc < 0 ? tb_errf(err, "formatting the comparison: out of memory") : 0;
}
