/* compare/gate: regression gates for CI ("http.nginx.rps < 0.9": fail when a
 * record's ratio to the baseline is below 0.9), as Kata's checkmetrics does.
 * Parsing is strict (the whole expression, a known operator, a finite number, a
 * valid metric name); evaluation fails closed (no ratio = the gate trips). A ratio
 * is compared as printed: both sides rounded to the same decimals (the table's
 * for that ratio, or the threshold's own when it has more), and the failure line
 * shows exactly those digits -- what decided is what is read. */
#include "compare/compare.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_space(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

int tb_compare_gate_parse(const char *expr, tb_compare_gate *out, tb_err *err)
{
    static const char usage[] = "expected '<metric> <op> <ratio>' with op <, <=, > or >= "
                                "(e.g. 'http.nginx.rps < 0.9')";
    memset(out, 0, sizeof *out);
    const char *p = skip_space(expr), *name = p;
    while (*p && *p != ' ' && *p != '\t' && *p != '<' && *p != '>' && *p != '=' && *p != '!')
        p++;
    size_t len = (size_t)(p - name);
    if (len == 0)
        return tb_errf(err, "gate '%.200s': %s", expr, usage);
    if (len >= sizeof out->metric)
        return tb_errf(err, "gate '%.200s': metric name longer than %zu characters", expr,
                       sizeof out->metric - 1);
    memcpy(out->metric, name, len);
    if (!tb_record_name_valid(out->metric))
        return tb_errf(err, "gate '%.200s': '%s' is not a metric name ([a-z0-9_.-])", expr,
                       out->metric);
    p = skip_space(p);
    if ((p[0] == '<' || p[0] == '>') && p[1] == '=') {
        memcpy(out->op, p, 2);
        p += 2;
    } else if (p[0] == '<' || p[0] == '>') {
        out->op[0] = p[0];
        p += 1;
    } else {
        return tb_errf(err, "gate '%.200s': %s", expr, usage);
    }
    p = skip_space(p);
    char *end;
    errno = 0;
    double v = strtod(p, &end);
    if (end == p || errno || !isfinite(v) || *skip_space(end) != '\0')
        return tb_errf(err, "gate '%.200s': %s", expr, usage);
    out->threshold = v;
    out->decimals = 0; /* the fewest that print v back exactly ("0.9" -> 1, "1e-2" -> 2) */
    char t[512];
    while (out->decimals < 15) {
        snprintf(t, sizeof t, "%.*f", out->decimals, v);
        if (strtod(t, NULL) == v)
            break;
        out->decimals++;
    }
    return 0;
}

/* The decimals a ratio is compared and printed with. */
static int gate_decimals(const tb_compare_gate *g, double ratio)
{
    int d = tb_compare_ratio_decimals(ratio);
    return g->decimals > d ? g->decimals : d;
}

/* v rounded to d decimals, as printf prints it (into text, len >= 512). */
static double rounded(double v, int d, char *text, size_t len)
{
    snprintf(text, len, "%.*f", d, v);
    return strtod(text, NULL);
}

/* Whether the gate's condition holds for ratio, both rounded to d decimals; the
   ratio as printed into text. */
static int holds(const tb_compare_gate *g, double ratio, int d, char *text, size_t len)
{
    char t[512];
    double r = rounded(ratio, d, text, len), th = rounded(g->threshold, d, t, sizeof t);
    if (!strcmp(g->op, "<"))
        return r < th;
    if (!strcmp(g->op, "<="))
        return r <= th;
    if (!strcmp(g->op, ">"))
        return r > th;
    return r >= th;
}

int tb_compare_gate_eval(const tb_compare *c, const tb_compare_gate *g, tb_buf *why, tb_err *err)
{
    const tb_compare_row *row = tb_compare_find(c, g->metric);
    if (!row)
        return tb_errf(err, "gate %s %s %g: no environment has metric %s", g->metric, g->op,
                       g->threshold, g->metric);
    if (c->n_records < 2)
        return tb_errf(err, "gate %s %s %g: needs two environments (a baseline and another)",
                       g->metric, g->op, g->threshold);
    char base[300], title[300];
    tb_compare_title(c, c->baseline, base, sizeof base);
    int tripped = 0;
    for (size_t r = 0; r < c->n_records; r++) {
        if (r == c->baseline)
            continue;
        const tb_compare_cell *cell = &row->cells[r];
        tb_compare_title(c, r, title, sizeof title);
        int oom = 0, d = 0;
        char shown[512];
        if (isnan(cell->ratio)) {
            tripped++;
            if (why)
                oom = tb_buf_printf(why, "%s %s %g: %s: no ratio to %s (%s)\n", g->metric, g->op,
                                    g->threshold, title, base,
                                    !row->cells[c->baseline].present ? "not in the baseline"
                                    : !cell->present                 ? "not measured here"
                                                                     : "a median is not positive");
        } else if (holds(g, cell->ratio, d = gate_decimals(g, cell->ratio), shown, sizeof shown)) {
            tripped++;
            if (why) {
                oom = tb_buf_printf(why, "%s %s %g: %s is %sx %s", g->metric, g->op, g->threshold,
                                    title, shown, base);
                if (!oom && !isnan(cell->ratio_lo))
                    oom = tb_buf_printf(why, " [%.*f, %.*f]", d, cell->ratio_lo, d, cell->ratio_hi);
                if (!oom)
                    oom = tb_buf_printf(
                        why, " (%s%s)\n", cell->significant ? "significant" : "not significant",
                        cell->verdict == TB_COMPARE_UNTESTABLE ? ": too few samples" : "");
            }
        }
        if (oom < 0)
            return tb_errf(err, "out of memory");
    }
    return tripped;
}
