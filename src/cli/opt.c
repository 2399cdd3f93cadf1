/* cli/opt: see opt.h. */
#include "cli/opt.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

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
