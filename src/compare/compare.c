/* compare: building the comparison (rows, cells, geometric means) from records.
 * See compare.h for what each field means and src/stats/rank.h for the
 * statistics. Invariants: rows are sorted by metric name and hold one cell per
 * record in record order; every string a row points to belongs to a record;
 * a cell's verdict among same/better/worse, its significance, p_adjusted and the
 * per-record counts are made in one place (decide), from p_value, shift and the
 * comparison's adjustment, so they always agree; tb_compare_clear leaves a zeroed
 * struct. Formatting is in format.c, gates in gate.c. */
#include "compare/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/rank.h"
#include "stats/summary.h"

_Static_assert((int)TB_WL_HIGHER == (int)TB_BETTER_HIGHER &&
                   (int)TB_WL_LOWER == (int)TB_BETTER_LOWER,
               "workloads/ and record/ agree on directions");

/* One metric of one record, for grouping the records' metrics by name. */
typedef struct entry {
    const tb_metric *m;
    size_t rec;
} entry;

static int cmp_entry(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    int c = strcmp(x->m->name, y->m->name);
    if (c)
        return c;
    return (x->rec > y->rec) - (x->rec < y->rec);
}

/* Scratch of one build: sorted samples of the current row's cells. */
typedef struct builder {
    tb_compare *c;
    tb_stats_boot boot;
    size_t min_n; /* smallest n with a median interval */
    double *sorted;
    size_t sorted_cap;
    const double **cell_sorted; /* n_records pointers into sorted */
    double *base_meds;          /* 1 / the baseline's resample medians, once per row */
    int have_base_meds;
    int base_meds_inverted; /* 0: base_meds are the medians themselves (some 1 / median
                               is not a normal double: the ratios are divisions) */
    double *scratch;        /* TB_COMPARE_RESAMPLES doubles */
} builder;

static const char *label_of(const tb_record *r)
{
    return r->label && r->label[0] ? r->label : "unknown";
}

void tb_compare_clear(tb_compare *c)
{
    for (size_t i = 0; i < c->n_rows; i++)
        free(c->rows[i].cells);
    free(c->rows);
    free(c->geomean_higher);
    free(c->geomean_lower);
    free(c->geomean_higher_n);
    free(c->geomean_lower_n);
    free(c->tested);
    free(c->differ);
    free(c->differ_raw);
    memset(c, 0, sizeof *c);
}

/* The cell's own statistics: median, its interval, spread. */
static void describe_cell(builder *b, tb_compare_cell *cell, const tb_metric *m, const double *s)
{
    cell->present = 1;
    cell->n = m->n;
    cell->simulated = m->simulated;
    cell->median = cell->lo = cell->hi = cell->cv = cell->stdev = NAN;
    if (m->n > 0) {
        cell->median = tb_stats_quantile_sorted(s, m->n, 1, 2);
        tb_stats_ci ci;
        tb_stats_median_ci_sorted(s, m->n, TB_COMPARE_LEVEL, &ci);
        cell->lo = ci.lo;
        cell->hi = ci.hi;
        cell->stdev = tb_stats_stdev(m->samples, m->n);
        cell->cv = tb_stats_cv(m->samples, m->n);
    }
    cell->noisy = cell->cv > TB_COMPARE_NOISY_CV; /* NAN compares false */
    cell->too_few = m->n < b->min_n;
}

/* The cell against the baseline cell: ratio, its interval, the test. A tested cell
   is left "same"; decide() makes its verdict. */
static int versus_baseline(builder *b, const tb_compare_row *row, tb_compare_cell *cell,
                           const double *s, const tb_compare_cell *base, const double *bs,
                           tb_err *err)
{
    if (!base->present || base->n == 0 || cell->n == 0) {
        cell->verdict = TB_COMPARE_ABSENT;
        return 0;
    }
    if (base->median > 0 && cell->median > 0) {
        cell->ratio = cell->median / base->median;
        if (!isfinite(cell->ratio) || cell->ratio == 0)
            cell->ratio = NAN; /* beyond a double's range (1e308 / 1e-10): no ratio */
    }
    int enough = base->n >= b->min_n && cell->n >= b->min_n;
    int positive = s[0] > 0 && bs[0] > 0; /* sorted: the least values */
    if (!positive)
        cell->ratio_ci_why = TB_COMPARE_CI_NON_POSITIVE;
    else if (!enough)
        cell->ratio_ci_why = TB_COMPARE_CI_TOO_FEW;
    if (b->have_base_meds && enough && positive && !isnan(cell->ratio)) {
        /* = tb_stats_boot_median_ratio(bs, s, TB_COMPARE_SEED), the baseline's half shared */
        if (tb_stats_boot_medians(&b->boot, s, cell->n, TB_COMPARE_SEED ^ TB_STATS_BOOT_SEED_B,
                                  b->boot.mb) < 0)
            return tb_errf(err, "comparing %s: out of memory", row->name);
        if (b->base_meds_inverted)
            tb_stats_boot_ratio_interval(&b->boot, b->base_meds, b->boot.mb, TB_COMPARE_LEVEL,
                                         &cell->ratio_lo, &cell->ratio_hi);
        else
            tb_stats_boot_ratio_interval_div(&b->boot, b->base_meds, b->boot.mb, TB_COMPARE_LEVEL,
                                             &cell->ratio_lo, &cell->ratio_hi);
    }
    tb_mwu u;
    if (tb_stats_mwu_sorted(bs, base->n, s, cell->n, &u) < 0)
        return tb_errf(err, "comparing %s: out of memory", row->name);
    cell->p_value = u.p_value;
    if (!enough)
        cell->too_few = 1; /* no ratio interval */
    if (tb_stats_mwu_min_p(base->n, cell->n) >= b->c->alpha) {
        cell->too_few = 1;
        cell->verdict = TB_COMPARE_UNTESTABLE;
        return 0;
    }
    cell->shift = -u.shift; /* u is the baseline's: its U1 below the centre = the cell above */
    cell->tested = 1;
    cell->verdict = TB_COMPARE_SAME;
    return 0;
}

static int row_reserve(builder *b, size_t total)
{
    if (total <= b->sorted_cap)
        return 0;
    double *p = realloc(b->sorted, total * sizeof *p);
    if (!p)
        return -1;
    b->sorted = p;
    b->sorted_cap = total;
    return 0;
}

/* Fills row from the entries e[0..k-1] (one metric name, ascending record order). */
static int build_row(builder *b, tb_compare_row *row, const entry *e, size_t k, tb_err *err)
{
    tb_compare *c = b->c;
    row->cells = calloc(c->n_records, sizeof *row->cells);
    if (!row->cells)
        return tb_errf(err, "out of memory");
    const tb_metric *first = e[0].m;
    size_t first_rec = e[0].rec, total = 0;
    for (size_t i = 0; i < k; i++) {
        if (e[i].rec == c->baseline) {
            first = e[i].m;
            first_rec = e[i].rec;
        }
        if (i > 0 && e[i].rec == e[i - 1].rec)
            return tb_errf(err, "%s: metric %s appears twice", label_of(c->records[e[i].rec]),
                           e[i].m->name);
        total += e[i].m->n;
    }
    row->name = first->name;
    row->unit = first->unit;
    row->workload = first->workload;
    row->note = first->note;
    row->better = first->better;
    row->category = TB_CAT_OTHER;
    if (tb_wl_metric_find(first->name, &row->spec)) {
        row->unit = row->spec.metric->unit;
        row->workload = row->spec.workload->name;
        row->better = row->spec.metric->better;
        row->category = row->spec.metric->category;
    } else {
        memset(&row->spec, 0, sizeof row->spec);
    }
    for (size_t i = 0; i < k; i++) {
        const tb_metric *m = e[i].m;
        if (row->spec.metric && (strcmp(m->unit, row->unit) || m->better != row->better))
            return tb_errf(err,
                           "metric %s: %s has unit \"%s\" (%s is better) but the %s workload "
                           "measures it in \"%s\" (%s)",
                           first->name, label_of(c->records[e[i].rec]), m->unit,
                           m->better == TB_BETTER_HIGHER ? "higher" : "lower", row->workload,
                           row->unit, row->better == TB_BETTER_HIGHER ? "higher" : "lower");
        if (strcmp(m->unit, first->unit) || m->better != first->better)
            return tb_errf(
                err, "metric %s: %s has unit \"%s\" (%s is better) but %s has \"%s\" (%s)",
                first->name, label_of(c->records[e[i].rec]), m->unit,
                m->better == TB_BETTER_HIGHER ? "higher" : "lower", label_of(c->records[first_rec]),
                first->unit, first->better == TB_BETTER_HIGHER ? "higher" : "lower");
        row->simulated |= m->simulated;
    }
    if (row_reserve(b, total ? total : 1) < 0)
        return tb_errf(err, "out of memory");
    size_t off = 0;
    for (size_t r = 0; r < c->n_records; r++) {
        tb_compare_cell *cell = &row->cells[r];
        cell->median = cell->lo = cell->hi = cell->cv = cell->stdev = NAN;
        cell->ratio = cell->ratio_lo = cell->ratio_hi = cell->p_value = cell->p_adjusted = NAN;
        cell->verdict = r == c->baseline ? TB_COMPARE_IS_BASELINE : TB_COMPARE_ABSENT;
        b->cell_sorted[r] = NULL;
    }
    for (size_t i = 0; i < k; i++) {
        const tb_metric *m = e[i].m;
        double *s = b->sorted + off;
        off += m->n;
        if (m->n)
            memcpy(s, m->samples, m->n * sizeof *s);
        tb_stats_sort(s, m->n);
        b->cell_sorted[e[i].rec] = s;
        describe_cell(b, &row->cells[e[i].rec], m, s);
    }
    const tb_compare_cell *base = &row->cells[c->baseline];
    if (!base->present)
        row->cells[c->baseline].verdict = TB_COMPARE_ABSENT;
    const double *bs = b->cell_sorted[c->baseline];
    b->have_base_meds = base->present && base->n >= b->min_n && bs[0] > 0 && k > 1;
    if (b->have_base_meds) {
        if (tb_stats_boot_medians(&b->boot, bs, base->n, TB_COMPARE_SEED, b->base_meds) < 0)
            return tb_errf(err, "comparing %s: out of memory", row->name);
        b->base_meds_inverted =
            tb_stats_reciprocals(b->base_meds, TB_COMPARE_RESAMPLES, b->scratch) == 0;
        if (b->base_meds_inverted)
            memcpy(b->base_meds, b->scratch, TB_COMPARE_RESAMPLES * sizeof *b->base_meds);
    }
    for (size_t i = 0; i < k; i++) {
        size_t r = e[i].rec;
        if (r == c->baseline)
            continue;
        if (versus_baseline(b, row, &row->cells[r], b->cell_sorted[r], base,
                            b->cell_sorted[c->baseline], err) < 0)
            return -1;
    }
    return 0;
}

/* Geometric means of the ratios per record and direction. */
/* exp(sum / n) kept within [lo, hi], the least and greatest ratio (exp of a mean
   of logs near log(DBL_MAX) may round past it); NAN when n == 0. */
static double geomean_of(double sum, size_t n, double lo, double hi)
{
    if (n == 0)
        return NAN;
    double g = exp(sum / (double)n);
    return g < lo ? lo : g > hi ? hi : g;
}

static void geomeans(tb_compare *c)
{
    for (size_t r = 0; r < c->n_records; r++) {
        double sum_h = 0, sum_l = 0, lo_h = INFINITY, hi_h = 0, lo_l = INFINITY, hi_l = 0;
        size_t nh = 0, nl = 0;
        for (size_t i = 0; i < c->n_rows; i++) {
            double q = c->rows[i].cells[r].ratio;
            if (!(q > 0) || isinf(q))
                continue;
            if (c->rows[i].better == TB_BETTER_HIGHER) {
                sum_h += log(q);
                nh++;
                lo_h = q < lo_h ? q : lo_h;
                hi_h = q > hi_h ? q : hi_h;
            } else {
                sum_l += log(q);
                nl++;
                lo_l = q < lo_l ? q : lo_l;
                hi_l = q > hi_l ? q : hi_l;
            }
        }
        c->geomean_higher[r] = geomean_of(sum_h, nh, lo_h, hi_h);
        c->geomean_lower[r] = geomean_of(sum_l, nl, lo_l, hi_l);
        c->geomean_higher_n[r] = nh;
        c->geomean_lower_n[r] = nl;
    }
}

void tb_compare_category_geomean(const tb_compare *c, size_t i, tb_wl_category cat, int better,
                                 tb_compare_gm *out)
{
    memset(out, 0, sizeof *out);
    out->ratio = out->lo = out->hi = NAN;
    if (i >= c->n_records || i == c->baseline)
        return;
    /* Welford's mean and sum of squares of the log ratios: one pass, no scratch */
    double mean = 0, m2 = 0, least = INFINITY, most = 0;
    for (size_t k = 0; k < c->n_rows; k++) {
        const tb_compare_row *row = &c->rows[k];
        const tb_compare_cell *cell = &row->cells[i];
        double q = cell->ratio;
        if (row->category != cat || row->better != better || !(q > 0) || isinf(q))
            continue;
        out->n++;
        out->simulated |= cell->simulated || row->cells[c->baseline].simulated;
        double l = log(q), d = l - mean;
        mean += d / (double)out->n;
        m2 += d * (l - mean);
        least = q < least ? q : least;
        most = q > most ? q : most;
    }
    if (!out->n)
        return;
    out->ratio = fmin(fmax(exp(mean), least), most); /* exp of a mean of logs may round past */
    if (out->n < 2)
        return;
    double sd = sqrt(fmax(m2, 0) / (double)(out->n - 1));
    double half = tb_stats_t_quantile(TB_COMPARE_LEVEL, out->n - 1) * sd / sqrt((double)out->n);
    out->lo = exp(mean - half);
    out->hi = exp(mean + half);
    if (!(out->lo <= out->ratio)) /* rounding (sd 0) */
        out->lo = out->ratio;
    if (!(out->hi >= out->ratio))
        out->hi = out->ratio;
}

/* The verdicts of the tested cells from p-values adjusted by method within each
   record's family, and the counts. adj: n_rows * n_records doubles of scratch
   (holds the adjusted p-values, row-major). 0, or -1 (out of memory: nothing
   changed). */
static int decide(tb_compare *c, int method, double *adj)
{
    double *p = malloc((c->n_rows ? c->n_rows : 1) * sizeof *p);
    if (!p)
        return -1;
    for (size_t r = 0; r < c->n_records; r++) {
        size_t m = 0;
        for (size_t k = 0; k < c->n_rows; k++)
            if (c->rows[k].cells[r].tested)
                p[m++] = c->rows[k].cells[r].p_value;
        if (tb_stats_p_adjust(p, m, method, p) < 0) {
            free(p);
            return -1;
        }
        m = 0;
        for (size_t k = 0; k < c->n_rows; k++)
            adj[k * c->n_records + r] = c->rows[k].cells[r].tested ? p[m++] : NAN;
    }
    free(p);
    /* nothing can fail from here on */
    c->adjust = method;
    for (size_t r = 0; r < c->n_records; r++) {
        c->tested[r] = c->differ[r] = c->differ_raw[r] = 0;
        for (size_t k = 0; k < c->n_rows; k++) {
            const tb_compare_row *row = &c->rows[k];
            tb_compare_cell *cell = &row->cells[r];
            if (!cell->tested)
                continue;
            cell->p_adjusted = adj[k * c->n_records + r];
            cell->significant = cell->p_adjusted < c->alpha;
            int good = row->better == TB_BETTER_HIGHER ? cell->shift > 0 : cell->shift < 0;
            cell->verdict = !cell->significant || cell->shift == 0 ? TB_COMPARE_SAME
                            : good                                 ? TB_COMPARE_BETTER
                                                                   : TB_COMPARE_WORSE;
            c->tested[r]++;
            c->differ[r] += cell->significant;
            c->differ_raw[r] += cell->p_value < c->alpha;
        }
    }
    return 0;
}

int tb_compare_set_adjust(tb_compare *c, int method, tb_err *err)
{
    if (method != TB_STATS_ADJUST_NONE && method != TB_STATS_ADJUST_HOLM &&
        method != TB_STATS_ADJUST_BH)
        return tb_errf(err, "compare: unknown p-value adjustment %d", method);
    size_t cells = c->n_rows * c->n_records;
    double *adj = malloc((cells ? cells : 1) * sizeof *adj);
    int rc = adj ? decide(c, method, adj) : -1;
    free(adj);
    return rc < 0 ? tb_errf(err, "adjusting p-values: out of memory") : 0;
}

int tb_compare_adjust_parse(const char *s, int *out)
{
    if (!strcmp(s, "none"))
        *out = TB_STATS_ADJUST_NONE;
    else if (!strcmp(s, "holm"))
        *out = TB_STATS_ADJUST_HOLM;
    else if (!strcmp(s, "bh") || !strcmp(s, "fdr") || !strcmp(s, "benjamini-hochberg"))
        *out = TB_STATS_ADJUST_BH;
    else
        return -1;
    return 0;
}

const char *tb_compare_adjust_name(int method)
{
    return method == TB_STATS_ADJUST_HOLM ? "holm" : method == TB_STATS_ADJUST_BH ? "bh" : "none";
}

void tb_compare_summary(const tb_compare *c, size_t i, char *out, size_t out_len)
{
    out[0] = '\0';
    if (c->n_records < 2 || i == c->baseline || i >= c->n_records)
        return;
    char title[256], base[256];
    tb_compare_title(c, i, title, sizeof title);
    tb_compare_title(c, c->baseline, base, sizeof base);
    size_t n = c->tested[i];
    if (n == 0) {
        snprintf(out, out_len,
                 "%s vs %s: no row tested (too few samples, or no metric measured in both)", title,
                 base);
        return;
    }
    const char *rows = n == 1 ? "row" : "rows";
    double expected = (double)n * c->alpha;
    if (c->adjust == TB_STATS_ADJUST_NONE) {
        snprintf(out, out_len,
                 "%s vs %s: %zu of %zu %s differ at \xce\xb1 = %g; \xe2\x89\x88 %.2g expected by "
                 "chance",
                 title, base, c->differ[i], n, rows, c->alpha, expected);
        return;
    }
    int holm = c->adjust == TB_STATS_ADJUST_HOLM;
    snprintf(out, out_len,
             "%s vs %s: %zu of %zu %s differ at \xce\xb1 = %g with %s adjustment (%s \xe2\x89\xa4 "
             "%g %%); unadjusted %zu, \xe2\x89\x88 %.2g expected by chance",
             title, base, c->differ[i], n, rows, c->alpha, holm ? "Holm's" : "Benjamini-Hochberg's",
             holm ? "chance of any false difference" : "expected share of false differences",
             c->alpha * 100, c->differ_raw[i], expected);
}

const char *tb_compare_shift_note(const tb_compare *c, const tb_compare_row *row, size_t i)
{
    const tb_compare_cell *cell = &row->cells[i], *base = &row->cells[c->baseline];
    if (!cell->tested || cell->shift == 0)
        return NULL;
    if (cell->median == base->median)
        return "shifted, medians equal";
    if (cell->shift > 0 && cell->median < base->median)
        return "shifted up, median lower";
    if (cell->shift < 0 && cell->median > base->median)
        return "shifted down, median higher";
    return NULL;
}

static int build_rows(builder *b, entry *all, size_t n_all, tb_err *err)
{
    tb_compare *c = b->c;
    size_t groups = 0;
    for (size_t i = 0; i < n_all; i++)
        groups += i == 0 || strcmp(all[i].m->name, all[i - 1].m->name) != 0;
    c->rows = calloc(groups ? groups : 1, sizeof *c->rows);
    if (!c->rows)
        return tb_errf(err, "out of memory");
    for (size_t i = 0; i < n_all;) {
        size_t j = i + 1;
        while (j < n_all && !strcmp(all[j].m->name, all[i].m->name))
            j++;
        if (build_row(b, &c->rows[c->n_rows++], all + i, j - i, err) < 0)
            return -1;
        i = j;
    }
    return 0;
}

int tb_compare_build(const tb_record *const *records, size_t n_records, size_t baseline,
                     double alpha, tb_compare *out, tb_err *err)
{
    memset(out, 0, sizeof *out);
    if (n_records < 1 || baseline >= n_records || !(alpha > 0 && alpha < 1))
        return tb_errf(err, "compare: bad arguments (%zu records, baseline %zu, alpha %g)",
                       n_records, baseline, alpha);
    out->records = records;
    out->n_records = n_records;
    out->baseline = baseline;
    out->alpha = alpha;
    size_t n_all = 0;
    for (size_t r = 0; r < n_records; r++)
        n_all += records[r]->n_metrics;
    builder b = {.c = out, .min_n = tb_stats_median_ci_min_n(TB_COMPARE_LEVEL)};
    entry *all = malloc((n_all ? n_all : 1) * sizeof *all);
    b.base_meds = malloc(TB_COMPARE_RESAMPLES * sizeof *b.base_meds);
    b.scratch = malloc(TB_COMPARE_RESAMPLES * sizeof *b.scratch);
    b.cell_sorted = malloc(n_records * sizeof *b.cell_sorted);
    out->geomean_higher = malloc(n_records * sizeof *out->geomean_higher);
    out->geomean_lower = malloc(n_records * sizeof *out->geomean_lower);
    out->geomean_higher_n = malloc(n_records * sizeof *out->geomean_higher_n);
    out->geomean_lower_n = malloc(n_records * sizeof *out->geomean_lower_n);
    out->tested = calloc(n_records, sizeof *out->tested);
    out->differ = calloc(n_records, sizeof *out->differ);
    out->differ_raw = calloc(n_records, sizeof *out->differ_raw);
    int rc = -1;
    if (!all || !b.base_meds || !b.scratch || !b.cell_sorted || !out->geomean_higher ||
        !out->geomean_lower || !out->geomean_higher_n || !out->geomean_lower_n || !out->tested ||
        !out->differ || !out->differ_raw || tb_stats_boot_init(&b.boot, TB_COMPARE_RESAMPLES) < 0) {
        tb_errf(err, "out of memory");
        goto done;
    }
    n_all = 0;
    for (size_t r = 0; r < n_records; r++)
        for (size_t i = 0; i < records[r]->n_metrics; i++)
            all[n_all++] = (entry){&records[r]->metrics[i], r};
    qsort(all, n_all, sizeof *all, cmp_entry);
    if (build_rows(&b, all, n_all, err) < 0)
        goto done;
    geomeans(out);
    if (tb_compare_set_adjust(out, TB_STATS_ADJUST_NONE, err) < 0)
        goto done;
    rc = 0;
done:
    tb_stats_boot_free(&b.boot);
    free(b.sorted);
    free(b.cell_sorted);
    free(b.base_meds);
    free(b.scratch);
    free(all);
    if (rc < 0)
        tb_compare_clear(out);
    return rc;
}

const tb_compare_row *tb_compare_find(const tb_compare *c, const char *name)
{
    size_t lo = 0, hi = c->n_rows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int d = strcmp(c->rows[mid].name, name);
        if (d == 0)
            return &c->rows[mid];
        if (d < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

void tb_compare_title(const tb_compare *c, size_t i, char *out, size_t out_len)
{
    const char *label = label_of(c->records[i]);
    int dup = 0;
    for (size_t j = 0; j < c->n_records && !dup; j++)
        dup = j != i && !strcmp(label_of(c->records[j]), label);
    char pos[32] = "";
    if (dup)
        snprintf(pos, sizeof pos, " #%zu", i + 1);
    const char *kind = tb_record_tee_kind(c->records[i]->env);
    char tag[32] = "";
    if (tb_record_tee_kind_is_tee(kind))
        snprintf(tag, sizeof tag, " [%s]", kind);
    snprintf(out, out_len, "%s%s%s%s", label, pos, tag,
             c->records[i]->simulated ? " [SIMULATED]" : "");
}

const char *tb_compare_verdict_name(int verdict)
{
    switch (verdict) {
    case TB_COMPARE_IS_BASELINE:
        return "baseline";
    case TB_COMPARE_SAME:
        return "same";
    case TB_COMPARE_BETTER:
        return "better";
    case TB_COMPARE_WORSE:
        return "worse";
    case TB_COMPARE_UNTESTABLE:
        return "untestable";
    default:
        return "absent";
    }
}
