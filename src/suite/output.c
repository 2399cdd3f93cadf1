/* suite/output: the suite's pure output helpers -- progress events as JSON
 * (one object a line for `--progress=jsonl`, read back by a remote run's
 * caller), the median and coefficient of variation of a metric, and the
 * summary table of a record; tb_suite_info, the one maker of an INFO event.
 *
 * Invariants: an event survives tb_suite_event_to_json + _from_json unchanged
 * (numbers as JSON reals/integers, every member present); the summary shows
 * every metric of the record in its order, each with its unit, and the word
 * SIMULATED on every row (and in the header) measured with a simulated TEE; its
 * strings from the record (a remote's, or the store's) are escaped (base/text). */
#include "suite/internal.h"
#include "suite/suite.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "stats/summary.h"

static const char *const kind_names[] = {"begin", "info", "step", "step_done", "end"};

const char *tb_suite_event_kind_name(tb_suite_event_kind k)
{
    return (unsigned)k < sizeof kind_names / sizeof kind_names[0] ? kind_names[k] : "?";
}

void tb_suite_info(const tb_suite_hooks *hooks, const char *fmt, ...)
{
    if (!hooks || !hooks->progress)
        return;
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    tb_suite_event ev = {.kind = TB_SUITE_EV_INFO,
                         .workload = "",
                         .target = "",
                         .status = "",
                         .text = text,
                         .eta_s = -1};
    hooks->progress(&ev, hooks->ctx);
}

static const char *str_or_empty(const char *s)
{
    return s ? s : "";
}

json_t *tb_suite_event_to_json(const tb_suite_event *ev)
{
    return json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:f, s:f, s:f, s:s, s:s}", "event",
                     tb_suite_event_kind_name(ev->kind), "workload", str_or_empty(ev->workload),
                     "target", str_or_empty(ev->target), "round", ev->round, "rounds", ev->rounds,
                     "step", ev->step, "steps", ev->steps, "elapsed_s", ev->elapsed_s, "eta_s",
                     ev->eta_s, "step_s", ev->step_s, "status", str_or_empty(ev->status), "text",
                     str_or_empty(ev->text));
}

static int get_str(const json_t *doc, const char *key, const char **out, tb_err *err)
{
    json_t *v = json_object_get(doc, key);
    if (!json_is_string(v))
        return tb_errf(err, "progress event: %s: want a string", key);
    *out = json_string_value(v);
    return 0;
}

static int get_int(const json_t *doc, const char *key, int *out, tb_err *err)
{
    json_t *v = json_object_get(doc, key);
    if (!json_is_integer(v) || json_integer_value(v) < -1 || json_integer_value(v) > 1000000000)
        return tb_errf(err, "progress event: %s: want an integer", key);
    *out = (int)json_integer_value(v);
    return 0;
}

static int get_num(const json_t *doc, const char *key, double *out, tb_err *err)
{
    json_t *v = json_object_get(doc, key);
    if (!json_is_number(v))
        return tb_errf(err, "progress event: %s: want a number", key);
    *out = json_number_value(v);
    return 0;
}

int tb_suite_event_from_json(const json_t *doc, tb_suite_event *ev, tb_err *err)
{
    memset(ev, 0, sizeof *ev);
    if (!json_is_object(doc))
        return tb_errf(err, "progress event: not a JSON object");
    const char *kind = "";
    if (get_str(doc, "event", &kind, err) < 0)
        return -1;
    size_t k = 0;
    while (k < sizeof kind_names / sizeof kind_names[0] && strcmp(kind, kind_names[k]))
        k++;
    if (k == sizeof kind_names / sizeof kind_names[0])
        return tb_errf(err, "progress event: unknown event '%.40s'", kind);
    ev->kind = (tb_suite_event_kind)k;
    if (get_str(doc, "workload", &ev->workload, err) < 0 ||
        get_str(doc, "target", &ev->target, err) < 0 ||
        get_int(doc, "round", &ev->round, err) < 0 ||
        get_int(doc, "rounds", &ev->rounds, err) < 0 || get_int(doc, "step", &ev->step, err) < 0 ||
        get_int(doc, "steps", &ev->steps, err) < 0 ||
        get_num(doc, "elapsed_s", &ev->elapsed_s, err) < 0 ||
        get_num(doc, "eta_s", &ev->eta_s, err) < 0 ||
        get_num(doc, "step_s", &ev->step_s, err) < 0 ||
        get_str(doc, "status", &ev->status, err) < 0 || get_str(doc, "text", &ev->text, err) < 0)
        return -1;
    return 0;
}

int tb_suite_shell_join(char *const *argv, tb_buf *out)
{
    int rc = 0;
    for (int i = 0; argv[i]; i++) {
        const char *s = argv[i];
        int safe = *s != 0;
        for (const char *p = s; *p && safe; p++)
            safe =
                strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,/:=@+%",
                       *p) != NULL;
        if (i)
            rc |= tb_buf_puts(out, " ");
        if (safe) {
            rc |= tb_buf_puts(out, s);
            continue;
        }
        rc |= tb_buf_puts(out, "'");
        for (const char *p = s; *p; p++)
            rc |= *p == '\'' ? tb_buf_puts(out, "'\\''") : tb_buf_append(out, p, 1);
        rc |= tb_buf_puts(out, "'");
    }
    return rc ? -1 : 0;
}

int tb_suite_describe(const double *x, size_t n, double *median, double *cv)
{
    *median = NAN;
    *cv = NAN;
    if (n == 0)
        return 0;
    if (tb_stats_median(x, n, median) < 0)
        return -1;
    if (n < 2)
        return 0;
    double mean = tb_stats_mean(x, n), ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - mean) * (x[i] - mean);
    double sd = sqrt(ss / (double)(n - 1));
    if (mean != 0)
        *cv = sd / fabs(mean);
    return 0;
}

/* A value with as many decimals as its size deserves. */
static void fmt_value(double v, char *out, size_t n)
{
    double a = fabs(v);
    if (!isfinite(v))
        snprintf(out, n, "-");
    else if (a >= 1000)
        snprintf(out, n, "%.1f", v);
    else if (a >= 10)
        snprintf(out, n, "%.2f", v);
    else if (a >= 0.1)
        snprintf(out, n, "%.3f", v);
    else
        snprintf(out, n, "%.3g", v);
}

static int list_problems(const tb_record *r, const char *key, const char *title, tb_buf *out)
{
    json_t *arr = json_object_get(r->extra, key);
    if (!json_is_array(arr) || json_array_size(arr) == 0)
        return 0;
    int rc = tb_buf_printf(out, "%s:\n", title);
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e)
    {
        const char *w = json_string_value(json_object_get(e, "workload"));
        const char *t = json_string_value(json_object_get(e, "target"));
        const char *why = json_string_value(json_object_get(e, "reason"));
        json_t *round = json_object_get(e, "round");
        char where[64] = "";
        if (json_is_integer(round))
            snprintf(where, sizeof where, " (round %lld)", (long long)json_integer_value(round));
        char wb[128], tb[128], yb[1024]; /* a remote's record: its text, escaped */
        rc |= tb_buf_printf(out, "  %s%s%s%s: %s\n", w ? tb_text_safe(w, wb, sizeof wb) : "?",
                            t && *t ? " " : "", tb_text_safe(t, tb, sizeof tb), where,
                            why ? tb_text_safe(why, yb, sizeof yb) : "?");
    }
    return rc;
}

int tb_suite_summary(const tb_record *r, tb_buf *out, tb_err *err)
{
    int rc = 0;
    char lb[256], pb[256], sb[64], ub[64];
    rc |=
        tb_buf_printf(out, "teebench suite: %s, profile %s, status %s%s\n",
                      r->label ? tb_text_safe(r->label, lb, sizeof lb) : "?",
                      r->profile ? tb_text_safe(r->profile, pb, sizeof pb) : "?",
                      r->status ? tb_text_safe(r->status, sb, sizeof sb) : "?",
                      r->simulated ? " -- TEE figures are SIMULATED (not from TEE hardware)" : "");
    tb_record_tee_info tee;
    if (tb_record_tee(r, &tee))
        rc |= tb_buf_printf(out, "TEE: %s\n", tee.summary);
    rc |= tb_buf_printf(out, "%-37s %5s %14s %-6s %8s\n", "metric", "n", "median", "unit", "CV");
    for (size_t i = 0; i < r->n_metrics; i++) {
        const tb_metric *m = &r->metrics[i];
        double med, cv;
        if (tb_suite_describe(m->samples, m->n, &med, &cv) < 0)
            return tb_errf(err, "out of memory");
        char mv[32], cvs[32];
        fmt_value(med, mv, sizeof mv);
        if (isnan(cv))
            snprintf(cvs, sizeof cvs, "-");
        else
            snprintf(cvs, sizeof cvs, "%.1f %%", 100 * cv);
        int noisy = !isnan(cv) && cv > TB_SUITE_NOISY_CV;
        rc |= tb_buf_printf(out, "%-37s %5zu %14s %-6s %8s%s%s\n", m->name, m->n, mv,
                            tb_text_safe(m->unit, ub, sizeof ub), cvs, noisy ? "  noisy" : "",
                            m->simulated ? "  SIMULATED" : "");
    }
    if (r->n_metrics == 0)
        rc |= tb_buf_puts(out, "(no metric measured)\n");
    rc |= list_problems(r, "skipped", "skipped", out);
    rc |= list_problems(r, "failures", "FAILED", out);
    return rc ? tb_errf(err, "out of memory") : 0;
}

int tb_suite_swiotlb_full_grew(const tb_record *r, char *out, size_t len)
{
    const json_t *f = json_object_get(r->extra, "swiotlb_full");
    if (!json_is_true(json_object_get(f, "grew")))
        return 0;
    long long a = json_integer_value(json_object_get(f, "start"));
    long long b = json_integer_value(json_object_get(f, "end"));
    snprintf(out, len,
             "%s: WARNING: the kernel log gained %lld 'swiotlb buffer is full' line%s during "
             "the run (%lld before, %lld after): the bounce-buffer pool ran out and some I/O "
             "was retried or failed; a larger pool (regular-swiotlb:SIZE) or fewer parallel "
             "streams",
             r->label ? r->label : "?", b - a, b - a == 1 ? "" : "s", a, b);
    return 1;
}
