/* report: summary.txt from results rows. See report.h for what it contains.
 * Layout: the source script's section (bench/script_summary), then teebench's: header,
 * per-mode statistics, overheads, paired comparisons, outliers, flagged, failed
 * and retried runs, then the three headline lines. */
#include "bench/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/tee.h"
#include "bench/script_summary.h"
#include "stats/summary.h"

#define BASE_MODE "no_tee"

enum { M_NOT, M_TDX, M_NPV, M_COUNT };
static const char *const metric_name[M_COUNT] = {"notarization_ms", "tdx_verify_ms",
                                                 "notarization_plus_verify_ms"};

/* The row's value of metric m, if it has one. notarization_plus_verify_ms falls
 * back to notarization_ms (+ tdx_verify_ms) when the column is empty. */
static int metric_value(const tb_bench_result_row *r, int m, double *v)
{
    switch (m) {
    case M_NOT:
        *v = r->notarization_ms;
        return (r->has & TB_BENCH_HAS_NOTARIZATION) != 0;
    case M_TDX:
        *v = r->tdx_verify_ms;
        return (r->has & TB_BENCH_HAS_TDX_VERIFY) != 0;
    default:
        if (r->has & TB_BENCH_HAS_NOTARIZATION_PLUS_VERIFY) {
            *v = r->notarization_plus_verify_ms;
            return 1;
        }
        if (!(r->has & TB_BENCH_HAS_NOTARIZATION))
            return 0;
        *v = r->notarization_ms + ((r->has & TB_BENCH_HAS_TDX_VERIFY) ? r->tdx_verify_ms : 0);
        return 1;
    }
}

/* Working memory of one report: the sample of one (mode, metric) at a time. */
typedef struct sample {
    double *v;
    long *iter;
    size_t n;
} sample;

static void gather(const tb_bench_results *rs, const char *mode, int m, sample *s)
{
    s->n = 0;
    for (size_t i = 0; i < rs->n; i++) {
        const tb_bench_result_row *r = &rs->rows[i];
        double v;
        if (strcmp(r->mode, mode) || !tb_bench_result_ok(r) || !metric_value(r, m, &v))
            continue;
        s->v[s->n] = v;
        s->iter[s->n] = r->iteration;
        s->n++;
    }
}

static int mode_verifies(const tb_bench_results *rs, const char *mode)
{
    for (size_t i = 0; i < rs->n; i++)
        if (!strcmp(rs->rows[i].mode, mode) && rs->rows[i].verify)
            return 1;
    return 0;
}

/* Distinct modes in order of first appearance (pointers into rs). */
static size_t list_modes(const tb_bench_results *rs, const char **modes)
{
    size_t n = 0;
    for (size_t i = 0; i < rs->n; i++) {
        size_t k = 0;
        while (k < n && strcmp(modes[k], rs->rows[i].mode))
            k++;
        if (k == n)
            modes[n++] = rs->rows[i].mode;
    }
    return n;
}

static const char *exit_why(int code)
{
    if (code == 124)
        return " (timeout)";
    if (code == 127)
        return " (command not found)";
    if (code > 128 && code < 160)
        return " (killed by a signal)";
    return "";
}

static int print_pct(tb_buf *out, double diff, double base)
{
    if (base > 0)
        return tb_buf_printf(out, "%+.2f%%", 100.0 * diff / base);
    return tb_buf_puts(out, "n/a %");
}

typedef struct ctx {
    const tb_bench_results *rs;
    const tb_bench_report_opts *o;
    tb_buf *out;
    json_t *j;       /* NULL, or the JSON form being filled alongside the text */
    sample a, b;     /* scratch samples */
    double *scratch; /* paired differences */
    int rc;
} ctx;

static void section_modes(ctx *c, const char **modes, size_t nm)
{
    c->rc |= tb_buf_puts(c->out, "\nper mode (successful runs):\n");
    for (size_t k = 0; k < nm; k++) {
        for (int m = 0; m < M_COUNT; m++) {
            if (m == M_NPV && !mode_verifies(c->rs, modes[k]))
                continue;
            gather(c->rs, modes[k], m, &c->a);
            if (m == M_TDX && c->a.n == 0)
                continue;
            tb_stats_desc d;
            if (tb_stats_describe(c->a.v, c->a.n, &d) < 0) {
                c->rc = -1;
                return;
            }
            if (c->j) {
                json_t *mj = json_object_get(json_object_get(c->j, "modes"), modes[k]);
                if (!mj) {
                    mj = json_object();
                    json_object_set_new(json_object_get(c->j, "modes"), modes[k], mj);
                }
                json_object_set_new(mj, metric_name[m],
                                    d.n ? json_pack("{s:I, s:f, s:f, s:f, s:f, s:f}", "n",
                                                    (json_int_t)d.n, "mean", d.mean, "median",
                                                    d.median, "p90", d.p90, "min", d.min, "max",
                                                    d.max)
                                        : json_pack("{s:i}", "n", 0));
            }
            if (d.n == 0) {
                c->rc |= tb_buf_printf(c->out, "  %-14s %-28s n=0\n", modes[k], metric_name[m]);
                continue;
            }
            c->rc |=
                tb_buf_printf(c->out,
                              "  %-14s %-28s n=%-4zu mean=%.2f ms  median=%.2f ms  "
                              "p90=%.2f ms  min=%.2f ms  max=%.2f ms\n",
                              modes[k], metric_name[m], d.n, d.mean, d.median, d.p90, d.min, d.max);
        }
    }
}

/* Overhead of mode over the base for metric m (base uses notarization_plus_verify
 * too: for a mode that does not verify it equals notarization_ms). */
static void overhead_line(ctx *c, const char *mode, int m)
{
    gather(c->rs, BASE_MODE, m, &c->a);
    gather(c->rs, mode, m, &c->b);
    c->rc |= tb_buf_printf(c->out, "  %s %s: ", mode, metric_name[m]);
    if (c->a.n == 0 || c->b.n == 0) {
        c->rc |= tb_buf_puts(c->out, "n/a (no successful runs to compare)\n");
        return;
    }
    double ma, mb, lo, hi;
    if (tb_stats_median(c->a.v, c->a.n, &ma) < 0 || tb_stats_median(c->b.v, c->b.n, &mb) < 0 ||
        tb_stats_bootstrap_median_diff(
            c->a.v, c->a.n, c->b.v, c->b.n,
            c->o->resamples ? c->o->resamples : TB_BENCH_REPORT_RESAMPLES,
            c->o->seed ? c->o->seed : TB_BENCH_REPORT_SEED, 0.95, &lo, &hi) < 0) {
        c->rc = -1;
        return;
    }
    double mean_a = tb_stats_mean(c->a.v, c->a.n), mean_b = tb_stats_mean(c->b.v, c->b.n);
    if (c->j)
        json_array_append_new(
            json_object_get(c->j, "overhead"),
            json_pack("{s:s, s:s, s:f, s:o, s:[f, f], s:f, s:o}", "mode", mode, "metric",
                      metric_name[m], "median_diff_ms", mb - ma, "median_diff_pct",
                      ma > 0 ? json_real(100.0 * (mb - ma) / ma) : json_null(), "ci95_ms", lo, hi,
                      "mean_diff_ms", mean_b - mean_a, "mean_diff_pct",
                      mean_a > 0 ? json_real(100.0 * (mean_b - mean_a) / mean_a) : json_null()));
    c->rc |= tb_buf_printf(c->out, "median %+.2f ms (", mb - ma);
    c->rc |= print_pct(c->out, mb - ma, ma);
    c->rc |= tb_buf_printf(c->out, "), 95%% bootstrap CI [%+.2f ms, %+.2f ms]; mean %+.2f ms (", lo,
                           hi, mean_b - mean_a);
    c->rc |= print_pct(c->out, mean_b - mean_a, mean_a);
    c->rc |= tb_buf_puts(c->out, ")\n");
}

static void paired_line(ctx *c, const char *mode, int m)
{
    gather(c->rs, BASE_MODE, m, &c->a);
    gather(c->rs, mode, m, &c->b);
    size_t np = 0;
    for (size_t i = 0; i < c->b.n; i++)
        for (size_t j = 0; j < c->a.n; j++)
            if (c->a.iter[j] == c->b.iter[i]) {
                c->scratch[np++] = c->b.v[i] - c->a.v[j];
                break;
            }
    c->rc |= tb_buf_printf(c->out, "  %s %s: ", mode, metric_name[m]);
    if (np == 0) {
        c->rc |= tb_buf_puts(c->out, "n/a (no iteration where both succeeded)\n");
        return;
    }
    double med;
    tb_wilcoxon w;
    if (tb_stats_median(c->scratch, np, &med) < 0 || tb_stats_wilcoxon(c->scratch, np, &w) < 0) {
        c->rc = -1;
        return;
    }
    if (c->j)
        json_array_append_new(json_object_get(c->j, "paired"),
                              json_pack("{s:s, s:s, s:I, s:f, s:f, s:f, s:b, s:I}", "mode", mode,
                                        "metric", metric_name[m], "pairs", (json_int_t)np,
                                        "mean_diff_ms", tb_stats_mean(c->scratch, np),
                                        "median_diff_ms", med, "wilcoxon_p", w.p_value, "exact",
                                        w.exact, "zero_diffs", (json_int_t)w.zeros));
    c->rc |= tb_buf_printf(c->out,
                           "pairs=%zu mean diff %+.2f ms, median diff %+.2f ms; Wilcoxon "
                           "signed-rank p=%.4g (%s, %zu zero diffs dropped)\n",
                           np, tb_stats_mean(c->scratch, np), med, w.p_value,
                           w.exact ? "exact" : "normal approx.", w.zeros);
}

static void section_outliers(ctx *c, const char **modes, size_t nm)
{
    c->rc |= tb_buf_puts(c->out, "\noutlier runs (above Q3 + 3 x IQR of their mode):\n");
    size_t count = 0;
    for (size_t k = 0; k < nm; k++) {
        for (int m = 0; m < M_COUNT; m++) {
            if (m == M_NPV && !mode_verifies(c->rs, modes[k]))
                continue;
            gather(c->rs, modes[k], m, &c->a);
            tb_stats_desc d;
            if (tb_stats_describe(c->a.v, c->a.n, &d) < 0) {
                c->rc = -1;
                return;
            }
            for (size_t i = 0; d.n >= 4 && i < c->a.n; i++) {
                if (c->a.v[i] <= d.outlier_fence)
                    continue;
                count++;
                if (c->j)
                    json_array_append_new(json_object_get(c->j, "outliers"),
                                          json_pack("{s:s, s:I, s:s, s:f, s:f}", "mode", modes[k],
                                                    "iteration", (json_int_t)c->a.iter[i], "metric",
                                                    metric_name[m], "value_ms", c->a.v[i],
                                                    "fence_ms", d.outlier_fence));
                c->rc |= tb_buf_printf(
                    c->out, "  OUTLIER %s iteration %ld: %s=%.2f ms (fence %.2f ms)\n", modes[k],
                    c->a.iter[i], metric_name[m], c->a.v[i], d.outlier_fence);
            }
        }
    }
    if (!count)
        c->rc |= tb_buf_puts(c->out, "  none\n");
}

static void section_failures(ctx *c)
{
    size_t failed = 0;
    c->rc |= tb_buf_puts(c->out, "\nfailed runs (after retries):\n");
    for (size_t i = 0; i < c->rs->n; i++) {
        const tb_bench_result_row *r = &c->rs->rows[i];
        if (tb_bench_result_ok(r))
            continue;
        failed++;
        if (c->j)
            json_array_append_new(json_object_get(c->j, "failed_runs"),
                                  json_pack("{s:s, s:I, s:i}", "mode", r->mode, "iteration",
                                            (json_int_t)r->iteration, "exit_code", r->exit_code));
        c->rc |= tb_buf_printf(c->out, "  FAILED %s iteration %ld: exit %d%s%s\n", r->mode,
                               r->iteration, r->exit_code, exit_why(r->exit_code),
                               r->exit_code == 0 ? " but no NOTARIZATION_MS" : "");
    }
    if (!failed)
        c->rc |= tb_buf_puts(c->out, "  none\n");
    if (!c->o->retries)
        return;
    c->rc |= tb_buf_puts(c->out, "\nretried attempts (superseded, see retries.csv):\n");
    for (size_t i = 0; i < c->o->retries->n; i++) {
        const tb_bench_retry_row *t = &c->o->retries->rows[i];
        if (c->j)
            json_array_append_new(json_object_get(c->j, "retried_attempts"),
                                  json_pack("{s:s, s:I, s:i, s:i, s:f}", "mode", t->mode,
                                            "iteration", (json_int_t)t->iteration, "attempt",
                                            t->attempt, "exit_code", t->exit_code, "wall_ms",
                                            t->wall_ms));
        c->rc |= tb_buf_printf(c->out, "  RETRY %s iteration %ld attempt %d: exit %d%s, %.2f ms\n",
                               t->mode, t->iteration, t->attempt, t->exit_code,
                               exit_why(t->exit_code), t->wall_ms);
    }
    if (!c->o->retries->n)
        c->rc |= tb_buf_puts(c->out, "  none\n");
}

static int median_of(ctx *c, const char *mode, int m, double *v)
{
    gather(c->rs, mode, m, &c->a);
    return c->a.n ? tb_stats_median(c->a.v, c->a.n, v) == 0 : 0;
}

/* Fewer runs than this in either mode: an overhead is never called significant. */
#define MIN_SIGNIFICANT_N 6

/* The end of a headline comparing mode's metric m with the base's notarization:
 * "; not significant: 95 % CI [lo, hi] ms, n=N" when the bootstrap interval of the
 * median difference includes zero or a mode has fewer than MIN_SIGNIFICANT_N runs,
 * and "; SIMULATED TEE" for a simulated notary. Fills the JSON's significance. */
static void headline_tail(ctx *c, const char *mode, int m, json_t *hj, const char *key)
{
    gather(c->rs, BASE_MODE, M_NOT, &c->a);
    gather(c->rs, mode, m, &c->b);
    double lo, hi;
    if (tb_stats_bootstrap_median_diff(
            c->a.v, c->a.n, c->b.v, c->b.n,
            c->o->resamples ? c->o->resamples : TB_BENCH_REPORT_RESAMPLES,
            c->o->seed ? c->o->seed : TB_BENCH_REPORT_SEED, 0.95, &lo, &hi) < 0) {
        c->rc = -1;
        return;
    }
    int zero_in = lo <= 0 && hi >= 0;
    int few = c->a.n < MIN_SIGNIFICANT_N || c->b.n < MIN_SIGNIFICANT_N;
    char n[64];
    if (c->a.n == c->b.n)
        snprintf(n, sizeof n, "n=%zu", c->a.n);
    else
        snprintf(n, sizeof n, "n=%zu (%s) and %zu (%s)", c->a.n, BASE_MODE, c->b.n, mode);
    if (zero_in)
        c->rc |=
            tb_buf_printf(c->out, "; not significant: 95 %% CI [%+.2f, %+.2f] ms, %s", lo, hi, n);
    else if (few)
        c->rc |= tb_buf_printf(c->out,
                               "; not significant (fewer than %d runs): 95 %% CI [%+.2f, %+.2f] "
                               "ms, %s",
                               MIN_SIGNIFICANT_N, lo, hi, n);
    if (hj)
        json_object_set_new(hj, key,
                            json_pack("{s:[f, f], s:I, s:I, s:b}", "ci95_ms", lo, hi, "n_base",
                                      (json_int_t)c->a.n, "n", (json_int_t)c->b.n, "significant",
                                      !zero_in && !few));
}

/* The notary's TEE as the results recorded it (run.json's notary_tee, read here):
   0 and its kind, or -1 when unknown, an external notary or not a kind. */
static int notary_tee(const ctx *c, tb_tee *t)
{
    return tb_tee_parse(c->o->notary_tee, t);
}

static int simulated(const ctx *c)
{
    tb_tee t;
    return notary_tee(c, &t) == 0 && tb_tee_simulated(t);
}

static void headline_end(ctx *c)
{
    if (simulated(c))
        c->rc |= tb_buf_puts(c->out, "; SIMULATED TEE");
    c->rc |= tb_buf_puts(c->out, "\n");
}

static void section_headline(ctx *c, tb_bench_headline *h)
{
    memset(h, 0, sizeof *h);
    double base, x;
    json_t *sig = c->j ? json_object() : NULL;
    int have_base = median_of(c, BASE_MODE, M_NOT, &base);
    c->rc |= tb_buf_puts(c->out, "\n");
    if (have_base && median_of(c, "tee_no_verify", M_NOT, &x) && base > 0) {
        h->tee_overhead_ok = 1;
        h->tee_overhead_ms = x - base;
        h->tee_overhead_pct = 100.0 * (x - base) / base;
        c->rc |=
            tb_buf_printf(c->out, "tee_no_verify median overhead over no_tee: %+.2f ms (%+.2f%%)",
                          h->tee_overhead_ms, h->tee_overhead_pct);
        headline_tail(c, "tee_no_verify", M_NOT, sig, "tee_overhead");
    } else {
        c->rc |= tb_buf_puts(c->out, "tee_no_verify median overhead over no_tee: n/a (needs "
                                     "successful no_tee and tee_no_verify runs)");
    }
    headline_end(c);
    if (have_base && median_of(c, "tee_verify", M_NPV, &x) && base > 0) {
        h->verify_overhead_ok = 1;
        h->verify_overhead_ms = x - base;
        h->verify_overhead_pct = 100.0 * (x - base) / base;
        c->rc |= tb_buf_printf(c->out,
                               "tee_verify median notarization+verify overhead over no_tee: "
                               "%+.2f ms (%+.2f%%)",
                               h->verify_overhead_ms, h->verify_overhead_pct);
        headline_tail(c, "tee_verify", M_NPV, sig, "verify_overhead");
    } else {
        c->rc |= tb_buf_puts(c->out, "tee_verify median notarization+verify overhead over no_tee: "
                                     "n/a (needs successful no_tee and tee_verify runs)");
    }
    headline_end(c);
    if (median_of(c, "tee_verify", M_TDX, &x)) {
        h->verify_median_ok = 1;
        h->verify_median_ms = x;
        c->rc |= tb_buf_printf(c->out, "tdx verify median: %.2f ms", x);
        if (c->a.n < MIN_SIGNIFICANT_N)
            c->rc |= tb_buf_printf(c->out, " (n=%zu)", c->a.n);
    } else {
        c->rc |= tb_buf_puts(c->out, "tdx verify median: n/a (no successful tee_verify runs)");
    }
    headline_end(c);
    if (c->j) {
        json_t *hj = json_pack(
            "{s:o, s:o, s:o, s:o, s:o, s:b}", "tee_overhead_ms",
            h->tee_overhead_ok ? json_real(h->tee_overhead_ms) : json_null(), "tee_overhead_pct",
            h->tee_overhead_ok ? json_real(h->tee_overhead_pct) : json_null(), "verify_overhead_ms",
            h->verify_overhead_ok ? json_real(h->verify_overhead_ms) : json_null(),
            "verify_overhead_pct",
            h->verify_overhead_ok ? json_real(h->verify_overhead_pct) : json_null(),
            "tdx_verify_median_ms",
            h->verify_median_ok ? json_real(h->verify_median_ms) : json_null(), "simulated",
            simulated(c));
        if (hj)
            json_object_update(hj, sig);
        json_object_set_new(c->j, "headline", hj);
    }
    json_decref(sig);
}

/* Successful tee_verify runs without TDX_VERIFY_MS (counted, as the source script
 * counts them; their notarization_plus_verify_ms is the notarization alone). */
static void section_unverified(ctx *c)
{
    size_t n = 0;
    for (size_t i = 0; i < c->rs->n; i++)
        n += (size_t)tb_bench_result_unverified(&c->rs->rows[i]);
    if (!n)
        return;
    c->rc |=
        tb_buf_printf(c->out, "\nflagged runs (successful but no TDX_VERIFY_MS: counted, as the "
                              "source script counts them; notarization_plus_verify_ms is the "
                              "notarization alone):\n");
    for (size_t i = 0; i < c->rs->n; i++) {
        const tb_bench_result_row *r = &c->rs->rows[i];
        if (!tb_bench_result_unverified(r))
            continue;
        if (c->j)
            json_array_append_new(json_object_get(c->j, "flagged_runs"),
                                  json_pack("{s:s, s:I, s:s}", "mode", r->mode, "iteration",
                                            (json_int_t)r->iteration, "why", "no TDX_VERIFY_MS"));
        c->rc |= tb_buf_printf(c->out, "  FLAGGED %s iteration %ld: exit 0, no TDX_VERIFY_MS\n",
                               r->mode, r->iteration);
    }
}

static void section_header(ctx *c)
{
    size_t ok = 0;
    for (size_t i = 0; i < c->rs->n; i++)
        ok += (size_t)tb_bench_result_ok(&c->rs->rows[i]);
    c->rc |= tb_buf_puts(c->out, "teebench notary benchmark summary\n");
    if (c->o->source)
        c->rc |= tb_buf_printf(c->out, "results: %s\n", c->o->source);
    const char *tee = c->o->notary_tee;
    tb_tee t;
    if (!tee)
        c->rc |= tb_buf_puts(c->out, "notary tee: unknown (not recorded with these results)\n");
    else if (notary_tee(c, &t) == 0 && tb_tee_simulated(t))
        c->rc |= tb_buf_printf(c->out,
                               "notary tee: %s -- SIMULATED TEE: quotes come from a software "
                               "provider, not from %s hardware; TEE figures are simulated\n",
                               tee, tb_tee_traits_of(t)->family_name);
    else if (!strcmp(tee, "external"))
        c->rc |= tb_buf_puts(c->out, "notary tee: unknown (an external notary; set NOTARY_TEE to "
                                     "record its kind)\n");
    else
        c->rc |= tb_buf_printf(c->out, "notary tee: %s\n", tee);
    if (c->j) {
        json_object_set_new(c->j, "source", c->o->source ? json_string(c->o->source) : json_null());
        json_object_set_new(c->j, "notary_tee", tee ? json_string(tee) : json_null());
        json_object_set_new(c->j, "simulated", json_boolean(simulated(c)));
        json_object_set_new(
            c->j, "runs",
            json_pack("{s:I, s:I, s:I, s:o, s:I}", "rows", (json_int_t)c->rs->n, "successful",
                      (json_int_t)ok, "failed", (json_int_t)(c->rs->n - ok), "retried_attempts",
                      c->o->retries ? json_integer((json_int_t)c->o->retries->n) : json_null(),
                      "damaged", (json_int_t)c->rs->n_damaged));
    }
    c->rc |= tb_buf_printf(c->out, "runs: %zu rows, %zu successful, %zu failed", c->rs->n, ok,
                           c->rs->n - ok);
    if (c->o->retries)
        c->rc |= tb_buf_printf(c->out, ", %zu retried attempts", c->o->retries->n);
    if (c->rs->n_damaged)
        c->rc |= tb_buf_printf(c->out, "; %zu DAMAGED row%s not counted (listed below)",
                               c->rs->n_damaged, c->rs->n_damaged == 1 ? "" : "s");
    c->rc |= tb_buf_puts(c->out, "\n");
    if (c->o->retries && c->o->retries->n)
        c->rc |= tb_buf_printf(c->out,
                               "RETRIED: %zu failed attempt%s rerun (RETRIES > 0; the source "
                               "script never retries): results.csv holds each run's last "
                               "attempt, retries.csv the superseded ones\n",
                               c->o->retries->n, c->o->retries->n == 1 ? " was" : "s were");
}

/* Rows the lenient parse left out (cut short, bad fields, duplicates). */
static void section_damaged(ctx *c)
{
    if (!c->rs->n_damaged)
        return;
    c->rc |= tb_buf_puts(c->out, "\ndamaged rows (not counted):\n");
    for (size_t i = 0; i < c->rs->n_damaged; i++)
        if (c->j)
            json_array_append_new(json_object_get(c->j, "damaged_rows"),
                                  json_pack("{s:I, s:s}", "line",
                                            (json_int_t)c->rs->damaged[i].line, "why",
                                            c->rs->damaged[i].why));
    for (size_t i = 0; i < c->rs->n_damaged; i++)
        c->rc |= tb_buf_printf(c->out, "  DAMAGED line %ld: %s\n", c->rs->damaged[i].line,
                               c->rs->damaged[i].why);
}

int tb_bench_report_summary(const tb_bench_results *rs, const tb_bench_report_opts *o, tb_buf *out,
                            tb_bench_headline *head, json_t **json, tb_err *err)
{
    size_t n = rs->n ? rs->n : 1;
    ctx c = {.rs = rs, .o = o, .out = out};
    if (json) {
        *json = NULL;
        c.j = json_pack("{s:{}, s:{}, s:[], s:[], s:[], s:[], s:[], s:[], s:[]}", "script", "modes",
                        "overhead", "paired", "outliers", "flagged_runs", "failed_runs",
                        "retried_attempts", "damaged_rows");
        if (!c.j)
            return tb_errf(err, "summary: out of memory");
    }
    const char **modes = malloc(n * sizeof *modes);
    c.a.v = malloc(n * sizeof(double));
    c.a.iter = malloc(n * sizeof(long));
    c.b.v = malloc(n * sizeof(double));
    c.b.iter = malloc(n * sizeof(long));
    c.scratch = malloc(n * sizeof(double));
    tb_bench_headline h;
    if (!modes || !c.a.v || !c.a.iter || !c.b.v || !c.b.iter || !c.scratch) {
        c.rc = -1;
        goto done;
    }
    size_t nm = list_modes(rs, modes);
    if (tb_bench_script_summary(rs, out, c.j ? json_object_get(c.j, "script") : NULL, err) < 0) {
        c.rc = -1;
        goto done;
    }
    c.rc |= tb_buf_puts(out, "\n");
    section_header(&c);
    section_modes(&c, modes, nm);
    int have_base = 0;
    for (size_t k = 0; k < nm; k++)
        have_base |= !strcmp(modes[k], BASE_MODE);
    if (have_base && nm > 1) {
        c.rc |= tb_buf_puts(out, "\noverhead over no_tee (medians and means of each mode):\n");
        for (size_t k = 0; k < nm; k++) {
            if (strcmp(modes[k], BASE_MODE) == 0)
                continue;
            overhead_line(&c, modes[k], M_NOT);
            if (mode_verifies(rs, modes[k]))
                overhead_line(&c, modes[k], M_NPV);
        }
        c.rc |= tb_buf_puts(out, "\npaired by iteration (mode - no_tee, same iteration):\n");
        for (size_t k = 0; k < nm; k++) {
            if (strcmp(modes[k], BASE_MODE) == 0)
                continue;
            paired_line(&c, modes[k], M_NOT);
            if (mode_verifies(rs, modes[k]))
                paired_line(&c, modes[k], M_NPV);
        }
    } else {
        c.rc |= tb_buf_puts(out, "\noverhead over no_tee: n/a (no no_tee rows or no other mode)\n");
    }
    section_outliers(&c, modes, nm);
    section_unverified(&c);
    section_failures(&c);
    section_damaged(&c);
    section_headline(&c, &h);
    if (head)
        *head = h;
done:
    free(modes);
    free(c.a.v);
    free(c.a.iter);
    free(c.b.v);
    free(c.b.iter);
    free(c.scratch);
    if (c.rc) {
        json_decref(c.j);
        return tb_errf(err, "summary: out of memory");
    }
    if (json)
        *json = c.j;
    return 0;
}
