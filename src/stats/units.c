/* units: wrk-compatible formatting and parsing. See units.h. */
#include "stats/internal.h"
#include "stats/units.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

struct units {
    int scale;
    const char *base;
    const char *units[6];
};

static const struct units time_us = {1000, "us", {"ms", "s", NULL}};
static const struct units time_s = {60, "s", {"m", "h", NULL}};
static const struct units binary = {1024, "", {"K", "M", "G", "T", "P", NULL}};
static const struct units metric = {1000, "", {"k", "M", "G", "T", "P", NULL}};

/* Steps up while the value is >= 85 % of the next unit; never to the last unit
 * of the list (wrk's loop condition). */
static char *fmt(long double n, const struct units *m, int prec, char *out)
{
    long double amt = n, scale = m->scale * 0.85L;
    const char *unit = m->base;
    for (int i = 0; m->units[i + 1] && amt >= scale; i++) {
        amt /= m->scale;
        unit = m->units[i];
    }
    snprintf(out, TB_UNITS_MAX, "%.*Lf%s", prec, amt, unit);
    return out;
}

char *tb_fmt_time_us(long double us, char out[TB_UNITS_MAX])
{
    if (us >= 1000000.0L)
        return fmt(us / 1000000.0L, &time_s, 2, out);
    return fmt(us, &time_us, 2, out);
}

char *tb_fmt_binary(long double n, char out[TB_UNITS_MAX])
{
    return fmt(n, &binary, 2, out);
}

char *tb_fmt_metric(long double n, char out[TB_UNITS_MAX])
{
    return fmt(n, &metric, 2, out);
}

char *tb_fmt_time_s(long double s, char out[TB_UNITS_MAX])
{
    return fmt(s, &time_s, 0, out);
}

static int scan_digits(const char **s, uint64_t *n)
{
    const char *p = *s;
    uint64_t v = 0;
    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    *s = p;
    *n = v;
    return 0;
}

static int mul(uint64_t *v, uint64_t f)
{
    if (f && *v > UINT64_MAX / f)
        return -1;
    *v *= f;
    return 0;
}

int tb_scan_metric(const char *s, uint64_t *n)
{
    uint64_t v;
    if (!s || scan_digits(&s, &v) < 0)
        return -1;
    if (*s) {
        uint64_t f = 1;
        int i;
        for (i = 0; metric.units[i]; i++) {
            f *= 1000;
            if (!strcasecmp(s, metric.units[i]))
                break;
        }
        if (!metric.units[i] || mul(&v, f) < 0)
            return -1;
    }
    *n = v;
    return 0;
}

int tb_scan_time_ms(const char *s, uint64_t *ms)
{
    uint64_t v;
    if (!s || scan_digits(&s, &v) < 0)
        return -1;
    uint64_t f;
    if (!*s || !strcasecmp(s, "s"))
        f = 1000;
    else if (!strcasecmp(s, "ms"))
        f = 1;
    else if (!strcasecmp(s, "m"))
        f = 60000;
    else if (!strcasecmp(s, "h"))
        f = 3600000;
    else
        return -1;
    if (mul(&v, f) < 0)
        return -1;
    *ms = v;
    return 0;
}
