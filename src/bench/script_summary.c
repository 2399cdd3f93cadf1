/* script_summary: benchmark-tee-impact.sh's summary section. See script_summary.h for what it
 * prints and how each figure is defined. The arithmetic follows the original's
 * Python operation for operation (double precision, the same order), so the
 * printed figures agree to the last digit; means of integer samples are exact. */
#include "bench/script_summary.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const script_modes[] = {"no_tee", "tee_no_verify", "tee_verify"};

enum { C_NOT, C_TOTAL, C_TDX, C_NPV, C_WALL };

static int col_value(const tb_bench_result_row *r, int col, double *v)
{
    static const unsigned bit[] = {TB_BENCH_HAS_NOTARIZATION, TB_BENCH_HAS_TOTAL_E2E,
                                   TB_BENCH_HAS_TDX_VERIFY, TB_BENCH_HAS_NOTARIZATION_PLUS_VERIFY,
                                   TB_BENCH_HAS_WALL};
    const double val[] = {r->notarization_ms, r->total_e2e_ms, r->tdx_verify_ms,
                          r->notarization_plus_verify_ms, r->wall_ms};
    if (!(r->has & bit[col]))
        return 0;
    *v = val[col];
    return 1;
}

static int successful(const tb_bench_result_row *r, const char *mode)
{
    return !strcmp(r->mode, mode) && tb_bench_result_ok(r);
}

/* values(mode, key): the column's values over the mode's successful rows. */
static size_t values(const tb_bench_results *rs, const char *mode, int col, double *out)
{
    size_t n = 0;
    for (size_t i = 0; i < rs->n; i++)
        if (successful(&rs->rows[i], mode) && col_value(&rs->rows[i], col, &out[n]))
            n++;
    return n;
}

/* statistics.mean: the exact mean, rounded once. Integer samples (what the original
 * writes) are summed exactly; others with compensated summation. */
static double mean(const double *v, size_t n)
{
    int integral = 1;
    double big = 9007199254740992.0; /* 2^53 */
    for (size_t i = 0; i < n && integral; i++)
        integral = v[i] == floor(v[i]) && fabs(v[i]) < big;
    if (integral && n < 4096) { /* n values below 2^53 each: the sum fits in int64 */
        int64_t s = 0;
        for (size_t i = 0; i < n; i++)
            s += (int64_t)v[i];
        if (s > -(int64_t)big && s < (int64_t)big)
            return (double)s / (double)n;
    }
    double s = 0, comp = 0;
    for (size_t i = 0; i < n; i++) {
        double t = s + v[i];
        comp += fabs(s) >= fabs(v[i]) ? (s - t) + v[i] : (v[i] - t) + s;
        s = t;
    }
    return (s + comp) / (double)n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* statistics.median (v is sorted in place). */
static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* statistics.quantiles(v, n=10, method="inclusive")[8]; v[0] alone (v sorted in place). */
static double p90(double *v, size_t n)
{
    if (n == 1)
        return v[0];
    qsort(v, n, sizeof *v, cmp_double);
    size_t m = n - 1, j = 9 * m / 10, delta = 9 * m % 10;
    return (v[j] * (double)(10 - delta) + v[j + 1] * (double)delta) / 10;
}

typedef struct ctx {
    const tb_bench_results *rs;
    tb_buf *out;
    json_t *j;
    double *a, *b; /* scratch, rs->n each */
    int rc;
} ctx;

/* " key=%.2f" (or "key=n/a"); the first of a line without the leading space. */
static void kv(ctx *c, json_t *obj, const char *key, int ok, double v, int first)
{
    if (ok)
        c->rc |= tb_buf_printf(c->out, "%s%s=%.2f", first ? "" : " ", key, v);
    else
        c->rc |= tb_buf_printf(c->out, "%s%s=n/a", first ? "" : " ", key);
    if (obj)
        c->rc |= json_object_set_new(obj, key, ok ? json_real(v) : json_null());
}

/* A mode line's figures of one column, in the order the original prints them:
 * "avg_<name>" (the mean, taken before median and p90 sort the values), then
 * "median_<name>" and "p90_<name>" where asked. */
enum { F_MEDIAN = 1, F_P90 = 2 };
typedef struct mode_figure {
    int col;
    unsigned more; /* F_*: the figures besides the mean */
    const char *name;
} mode_figure;

static const mode_figure mode_figures[] = {
    {C_NOT, F_MEDIAN | F_P90, "notarization_ms"},
    {C_TOTAL, 0, "total_e2e_ms"},
    {C_TDX, F_MEDIAN, "tdx_verify_ms"},
    {C_NPV, F_MEDIAN | F_P90, "notarization_plus_verify_ms"},
    {C_WALL, 0, "wall_ms"},
};

static void column_figures(ctx *c, json_t *mj, const char *mode, const mode_figure *f)
{
    size_t n = values(c->rs, mode, f->col, c->a);
    char key[64];
    snprintf(key, sizeof key, "avg_%s", f->name);
    kv(c, mj, key, n > 0, n ? mean(c->a, n) : 0, 0);
    if (f->more & F_MEDIAN) {
        snprintf(key, sizeof key, "median_%s", f->name);
        kv(c, mj, key, n > 0, n ? median(c->a, n) : 0, 0);
    }
    if (f->more & F_P90) {
        snprintf(key, sizeof key, "p90_%s", f->name);
        kv(c, mj, key, n > 0, n ? p90(c->a, n) : 0, 0);
    }
}

static void mode_line(ctx *c, const char *mode)
{
    size_t runs = 0;
    for (size_t i = 0; i < c->rs->n; i++)
        runs += (size_t)successful(&c->rs->rows[i], mode);
    if (!runs)
        return;
    json_t *mj = NULL;
    if (c->j) {
        mj = json_pack("{s:I}", "runs", (json_int_t)runs);
        c->rc |= json_object_set_new(json_object_get(c->j, "modes"), mode, mj);
    }
    c->rc |= tb_buf_printf(c->out, "%s: runs=%zu", mode, runs);
    for (size_t f = 0; f < sizeof mode_figures / sizeof mode_figures[0]; f++)
        column_figures(c, mj, mode, &mode_figures[f]);
    c->rc |= tb_buf_puts(c->out, "\n");
}

/* One "PREFIX_overhead_ms=… PREFIX_overhead_percent=…" line. */
static void overhead_pair(ctx *c, const char *prefix, double x, double base)
{
    char k1[128], k2[128];
    snprintf(k1, sizeof k1, "%s_overhead_ms", prefix);
    snprintf(k2, sizeof k2, "%s_overhead_percent", prefix);
    json_t *o = c->j ? json_object_get(c->j, "overhead") : NULL;
    kv(c, o, k1, 1, x - base, 1);
    kv(c, o, k2, base != 0, base != 0 ? (x - base) / base * 100 : 0, 0);
    c->rc |= tb_buf_puts(c->out, "\n");
}

/* A successful row's index and iteration, for pairing by iteration. */
typedef struct iter_row {
    long it;
    size_t idx;
} iter_row;

static int cmp_iter(const void *a, const void *b)
{
    const iter_row *x = a, *y = b;
    if (x->it != y->it)
        return (x->it > y->it) - (x->it < y->it);
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The mode's successful rows sorted by iteration, one per iteration (the last in
 * file order, as the original's dict keeps). Returns the count. */
static size_t by_iteration(const tb_bench_results *rs, const char *mode, iter_row *out)
{
    size_t n = 0;
    for (size_t i = 0; i < rs->n; i++)
        if (successful(&rs->rows[i], mode))
            out[n++] = (iter_row){rs->rows[i].iteration, i};
    qsort(out, n, sizeof *out, cmp_iter);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && out[k - 1].it == out[i].it)
            out[k - 1] = out[i];
        else
            out[k++] = out[i];
    }
    return k;
}

/* paired_overhead(target_mode, target_key): deltas into c->a, percents into c->b. */
static size_t paired(ctx *c, const char *target, int col, iter_row *base_rows, iter_row *tgt_rows)
{
    size_t nb = by_iteration(c->rs, "no_tee", base_rows);
    size_t nt = by_iteration(c->rs, target, tgt_rows);
    size_t n = 0;
    for (size_t i = 0, k = 0; i < nb && k < nt;) {
        if (base_rows[i].it < tgt_rows[k].it) {
            i++;
        } else if (base_rows[i].it > tgt_rows[k].it) {
            k++;
        } else {
            double base, x;
            if (col_value(&c->rs->rows[base_rows[i].idx], C_NOT, &base) &&
                col_value(&c->rs->rows[tgt_rows[k].idx], col, &x) && base != 0) {
                c->a[n] = x - base;
                c->b[n] = (x - base) / base * 100;
                n++;
            }
            i++;
            k++;
        }
    }
    return n;
}

static void paired_lines(ctx *c, const char *target, int col, const char *what, iter_row *r1,
                         iter_row *r2)
{
    size_t n = paired(c, target, col, r1, r2);
    if (!n)
        return;
    json_t *o = c->j ? json_object_get(c->j, "overhead") : NULL;
    char k1[128], k2[128];
    snprintf(k1, sizeof k1, "%s_paired_avg_%s_overhead_ms", target, what);
    snprintf(k2, sizeof k2, "%s_paired_avg_%s_overhead_percent", target, what);
    kv(c, o, k1, 1, mean(c->a, n), 1);
    kv(c, o, k2, 1, mean(c->b, n), 0);
    c->rc |= tb_buf_puts(c->out, "\n");
    snprintf(k1, sizeof k1, "%s_paired_median_%s_overhead_ms", target, what);
    snprintf(k2, sizeof k2, "%s_paired_median_%s_overhead_percent", target, what);
    kv(c, o, k1, 1, median(c->a, n), 1);
    kv(c, o, k2, 1, median(c->b, n), 0);
    c->rc |= tb_buf_puts(c->out, "\n");
}

static void overheads(ctx *c, iter_row *r1, iter_row *r2)
{
    /* The base's figures are recomputed into c->a each time: c->a is scratch. */
    size_t nb = values(c->rs, "no_tee", C_NOT, c->a);
    if (!nb)
        return;
    double no_avg = mean(c->a, nb), no_median = median(c->a, nb);
    size_t n = values(c->rs, "tee_no_verify", C_NOT, c->a);
    if (n) {
        double avg = mean(c->a, n), med = median(c->a, n);
        overhead_pair(c, "tee_no_verify_avg_notarization", avg, no_avg);
        overhead_pair(c, "tee_no_verify_median_notarization", med, no_median);
        paired_lines(c, "tee_no_verify", C_NOT, "notarization", r1, r2);
    }
    size_t nn = values(c->rs, "tee_verify", C_NOT, c->a);
    double not_avg = nn ? mean(c->a, nn) : 0;
    size_t nc = values(c->rs, "tee_verify", C_NPV, c->a);
    if (nn && nc) {
        double comb_avg = mean(c->a, nc), comb_median = median(c->a, nc);
        overhead_pair(c, "tee_verify_avg_notarization", not_avg, no_avg);
        overhead_pair(c, "tee_verify_avg_combined", comb_avg, no_avg);
        overhead_pair(c, "tee_verify_median_combined", comb_median, no_median);
        paired_lines(c, "tee_verify", C_NPV, "combined", r1, r2);
    }
}

int tb_bench_script_summary(const tb_bench_results *rs, tb_buf *out, json_t *json, tb_err *err)
{
    size_t n = rs->n ? rs->n : 1;
    ctx c = {.rs = rs, .out = out, .j = json};
    c.a = malloc(n * sizeof(double));
    c.b = malloc(n * sizeof(double));
    iter_row *r1 = malloc(n * sizeof *r1), *r2 = malloc(n * sizeof *r2);
    if (!c.a || !c.b || !r1 || !r2)
        goto done;
    if (json)
        c.rc |= json_object_set_new(json, "modes", json_object()) |
                json_object_set_new(json, "overhead", json_object());
    c.rc |= tb_buf_puts(out, "summary from successful runs:\n");
    for (size_t k = 0; k < sizeof script_modes / sizeof script_modes[0]; k++)
        mode_line(&c, script_modes[k]);
    overheads(&c, r1, r2);
    size_t nv = values(rs, "tee_verify", C_TDX, c.a);
    if (nv) {
        json_t *o = json ? json_object_get(json, "overhead") : NULL;
        kv(&c, o, "tee_verify_avg_tdx_verify_ms", 1, mean(c.a, nv), 1);
        kv(&c, o, "tee_verify_median_tdx_verify_ms", 1, median(c.a, nv), 0);
        c.rc |= tb_buf_puts(out, "\n");
    }
    size_t failed = 0;
    for (size_t i = 0; i < rs->n; i++)
        failed += rs->rows[i].exit_code != 0;
    if (failed)
        c.rc |= tb_buf_printf(out, "failed_runs=%zu\n", failed);
    if (json)
        c.rc |= json_object_set_new(json, "failed_runs", json_integer((json_int_t)failed));
done:;
    int bad = !c.a || !c.b || !r1 || !r2 || c.rc;
    free(c.a);
    free(c.b);
    free(r1);
    free(r2);
    return bad ? tb_errf(err, "summary: out of memory") : 0;
}
