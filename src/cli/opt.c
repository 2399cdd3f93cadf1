/* cli/opt: see opt.h. */
#include "cli/opt.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int cli_opt_double(const char *flag, const char *s, double lo, double hi, double *out, tb_err *err)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v))
        return tb_errf(err, "%s %s: not a number", flag, s);
    if (v < lo || v > hi)
        return tb_errf(err, "%s %s: must be between %g and %g", flag, s, lo, hi);
    *out = v;
    return 0;
}

int cli_opt_long(const char *flag, const char *s, long lo, long hi, long *out, tb_err *err)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno)
        return tb_errf(err, "%s %s: not an integer", flag, s);
    if (v < lo || v > hi)
        return tb_errf(err, "%s %s: must be between %ld and %ld", flag, s, lo, hi);
    *out = v;
    return 0;
}

int cli_opt_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int cli_opt_duration(const char *flag, const char *s, double min_s, double max_s, double *out,
                     tb_err *err)
{
    static const struct {
        const char *unit;
        double seconds;
    } units[] = {{"", 1},  {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3},
                 {"s", 1}, {"m", 60},    {"h", 3600}};
    char *end;
    errno = 0;
    double v = s[0] == '-' || s[0] == '+' ? NAN : strtod(s, &end);
    if (isnan(v) || end == s || errno || !isfinite(v))
        return tb_errf(err, "%s %s: not a duration (e.g. 2s, 500ms, 1.5m; no unit: seconds)", flag,
                       s);
    size_t k = 0;
    while (k < sizeof units / sizeof units[0] && strcmp(end, units[k].unit))
        k++;
    /* strtod also reads hex, inf and nan: only digits and one '.' may come first */
    for (const char *p = s; p < end; p++)
        if ((*p < '0' || *p > '9') && *p != '.')
            k = sizeof units / sizeof units[0];
    if (k == sizeof units / sizeof units[0])
        return tb_errf(err, "%s %s: not a duration (e.g. 2s, 500ms, 1.5m; no unit: seconds)", flag,
                       s);
    double sec = v * units[k].seconds;
    if (sec < min_s || sec > max_s)
        return tb_errf(err, "%s %s: must be between %gs and %gs", flag, s, min_s, max_s);
    *out = sec;
    return 0;
}
