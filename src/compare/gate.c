/* compare/gate: regression gates for CI ("http.nginx.rps < 0.9": fail when a
 * record's ratio to the baseline is below 0.9), as Kata's checkmetrics does.
 * Parsing is strict (the whole expression, a known operator, a finite number, a
 * valid metric name); evaluation fails closed (no ratio = the gate trips). */
#include "compare/compare.h"

#include <errno.h>
#include <math.h>
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
    return 0;
}

static int holds(const tb_compare_gate *g, double ratio)
{
    if (!strcmp(g->op, "<"))
        return ratio < g->threshold;
    if (!strcmp(g->op, "<="))
        return ratio <= g->threshold;
    if (!strcmp(g->op, ">"))
        return ratio > g->threshold;
    return ratio >= g->threshold;
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
        int oom = 0;
        if (isnan(cell->ratio)) {
            tripped++;
            if (why)
                oom = tb_buf_printf(why, "%s %s %g: %s: no ratio to %s (%s)\n", g->metric, g->op,
                                    g->threshold, title, base,
                                    !row->cells[c->baseline].present ? "not in the baseline"
                                    : !cell->present                 ? "not measured here"
                                                                     : "a median is not positive");
        } else if (holds(g, cell->ratio)) {
            tripped++;
            if (why) {
                oom = tb_buf_printf(why, "%s %s %g: %s is %.3fx %s", g->metric, g->op, g->threshold,
                                    title, cell->ratio, base);
                if (!oom && !isnan(cell->ratio_lo))
                    oom = tb_buf_printf(why, " [%.3f, %.3f]", cell->ratio_lo, cell->ratio_hi);
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
