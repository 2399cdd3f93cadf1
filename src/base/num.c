/* num: strict numbers in a range (see num.h). strtol, strtoull and strtod do the
 * conversion; what they would also accept (leading blanks, hex, inf, nan, a '-'
 * that strtoull negates) is refused before they see it. Used by cli/opt (every
 * flag), workloads/param (every setting), bench/run (notary bench settings) and
 * benchcsv (results.csv's integer cells). */
#include "base/num.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* An optional sign then a digit: what strtol's base 10 form starts with. */
static int starts_integer(const char *s)
{
    return is_digit(s[s[0] == '+' || s[0] == '-']);
}

tb_num_status tb_num_long(const char *s, long lo, long hi, long *out)
{
    if (!starts_integer(s))
        return TB_NUM_SYNTAX;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end)
        return TB_NUM_SYNTAX;
    if (errno || v < lo || v > hi) /* errno: ERANGE, digits beyond the type */
        return TB_NUM_RANGE;
    *out = v;
    return TB_NUM_OK;
}

tb_num_status tb_num_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (s[0] == '-' || !starts_integer(s))
        return TB_NUM_SYNTAX;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end)
        return TB_NUM_SYNTAX;
    if (errno || v < lo || v > hi) /* errno: ERANGE, digits beyond the type */
        return TB_NUM_RANGE;
    *out = v;
    return TB_NUM_OK;
}

tb_num_status tb_num_double(const char *s, double lo, double hi, double *out)
{
    if (!s[0] || strspn(s, "0123456789.eE+-") != strlen(s))
        return TB_NUM_SYNTAX;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v))
        return TB_NUM_SYNTAX;
    if (v < lo || v > hi)
        return TB_NUM_RANGE;
    *out = v;
    return TB_NUM_OK;
}

tb_num_status tb_num_scaled(const char *s, const tb_num_unit *units, size_t n, double lo, double hi,
                            double *out)
{
    /* strtod must read exactly the digits and dots: a second '.', an exponent or
       hex ends it elsewhere */
    size_t len = strspn(s, "0123456789.");
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (len == 0 || end != s + len || errno || !isfinite(v))
        return TB_NUM_SYNTAX;
    size_t k = 0;
    while (k < n && strcmp(end, units[k].suffix))
        k++;
    if (k == n)
        return TB_NUM_SYNTAX;
    v = v * units[k].mul / units[k].div;
    if (!(v >= lo && v <= hi))
        return TB_NUM_RANGE;
    *out = v;
    return TB_NUM_OK;
}
