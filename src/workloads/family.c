/* workloads/family: the families of a workload's metrics (workload.h, tb_wl_family) --
 * which metric is a point of a sweep and at what setting, which is a phase of a whole
 * and its position and label. The report draws them; the tables say them.
 *
 * Invariants: pure functions of the tables and the names given (no state, no
 * allocation); a name that does not read as a sweep's point is no point of it (never
 * a guess); a family's names are compared with the matched row's name, so a family
 * only ever takes rows of its own workload's table. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "workloads/internal.h"
#include "workloads/workload.h"

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

int tb_wl_sweep_value(const tb_wl_family *f, const char *part, double *x)
{
    if (!f || f->kind != TB_WLF_SWEEP || !part)
        return -1;
    const char *prefix = f->prefix ? f->prefix : "";
    size_t pl = strlen(prefix);
    if (strncmp(part, prefix, pl))
        return -1;
    const char *p = part + pl;
    double v = 0;
    size_t digits = 0;
    for (; *p >= '0' && *p <= '9'; p++, digits++)
        v = v * 10 + (*p - '0');
    if (digits == 0 || digits > 15) /* whole numbers a double holds exactly */
        return -1;
    static const char mult[] = "kmgt";
    const char *m = *p ? strchr(mult, lower((unsigned char)*p)) : NULL;
    if (m) {
        p++;
        double base = 1000;
        if (lower((unsigned char)*p) == 'i') {
            base = 1024;
            p++;
        }
        for (const char *q = mult; q <= m; q++)
            v *= base;
    }
    if (lower((unsigned char)*p) == 'b')
        p++;
    if (*p)
        return -1;
    *x = v;
    return 0;
}

const tb_wl_family *tb_wl_sweep_of(const tb_wl_match *m, double *x)
{
    if (!m || !m->workload || !m->metric)
        return NULL;
    const tb_workload *w = m->workload;
    for (size_t i = 0; i < w->n_families; i++) {
        const tb_wl_family *f = &w->families[i];
        if (f->kind == TB_WLF_SWEEP && f->metric && !strcmp(f->metric, m->metric->name) &&
            tb_wl_sweep_value(f, m->part, x) == 0)
            return f;
    }
    return NULL;
}

size_t tb_wl_phase_count(const tb_wl_family *f)
{
    size_t n = 0;
    while (f && f->kind == TB_WLF_PHASES && f->phases && f->phases[n])
        n++;
    return n;
}

const tb_wl_family *tb_wl_phase_of(const tb_wl_match *m, size_t *index)
{
    if (!m || !m->workload || !m->metric)
        return NULL;
    const tb_workload *w = m->workload;
    for (size_t i = 0; i < w->n_families; i++) {
        const tb_wl_family *f = &w->families[i];
        size_t n = tb_wl_phase_count(f);
        for (size_t k = 0; k < n; k++)
            if (!strcmp(f->phases[k], m->metric->name)) {
                *index = k;
                return f;
            }
    }
    return NULL;
}

/* The number of '.'-separated segments of s. */
static size_t segments(const char *s)
{
    size_t n = 1;
    for (; *s; s++)
        n += *s == '.';
    return n;
}

/* Start of segment k of s (0-based; k < segments(s)) and its length. */
static const char *segment(const char *s, size_t k, size_t *len)
{
    for (size_t i = 0; i < k; i++)
        s = strchr(s, '.') + 1;
    *len = strcspn(s, ".");
    return s;
}

static int same_segment(const char *a, size_t ka, const char *b, size_t kb)
{
    size_t la, lb;
    const char *sa = segment(a, ka, &la), *sb = segment(b, kb, &lb);
    return la == lb && !memcmp(sa, sb, la);
}

void tb_wl_phase_label(const tb_wl_family *f, size_t index, char *out, size_t n)
{
    size_t count = tb_wl_phase_count(f);
    if (!n)
        return;
    out[0] = 0;
    if (index >= count)
        return;
    const char *name = f->phases[index];
    size_t least = SIZE_MAX;
    for (size_t k = 0; k < count; k++) {
        size_t s = segments(f->phases[k]);
        least = s < least ? s : least;
    }
    /* the segments every phase's name shares at its start, then at its end, leaving at
       least one of each name's own */
    size_t lead = 0, tail = 0;
    while (count > 1 && lead + 1 < least) {
        int all = 1;
        for (size_t k = 1; k < count && all; k++)
            all = same_segment(f->phases[0], lead, f->phases[k], lead);
        if (!all)
            break;
        lead++;
    }
    while (count > 1 && lead + tail + 1 < least) {
        int all = 1;
        size_t s0 = segments(f->phases[0]);
        for (size_t k = 1; k < count && all; k++)
            all = same_segment(f->phases[0], s0 - 1 - tail, f->phases[k],
                               segments(f->phases[k]) - 1 - tail);
        if (!all)
            break;
        tail++;
    }
    size_t len0, len1;
    const char *from = segment(name, lead, &len0);
    const char *last = segment(name, segments(name) - 1 - tail, &len1);
    size_t len = (size_t)(last + len1 - from);
    snprintf(out, n, "%.*s", (int)len, from);
}
