/* num: strict numbers in a range (see num.h). strtoull (an integer's digits, its
 * sign read here) and strtod do the conversion; what they would also accept (leading
 * blanks, hex, inf, nan, a '-' that strtoull negates) is refused before they see it.
 * Used by cli/opt (every flag), workloads/param (every setting, and the sizes of
 * memory and storage), kv's HOST:PORT and redis-benchmark's cells, bench/run's
 * settings, benchcsv's cells, kv serve's ports, report's #N and memory fact, and
 * vm/spec's sizes. */
#include "base/num.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The optional sign and decimal digits s starts with: *neg, the digits' value in
   *mag (strtoull reads them without the sign, which it would negate) and where they
   end in *rest. TB_NUM_RANGE: more digits than 64 bits hold. */
static tb_num_status digits(const char *s, int *neg, uint64_t *mag, const char **rest)
{
    *neg = s[0] == '-';
    const char *d = s + (s[0] == '+' || s[0] == '-');
    if (!is_digit(*d))
        return TB_NUM_SYNTAX;
    char *end;
    errno = 0;
    *mag = strtoull(d, &end, 10);
    *rest = end;
    return errno ? TB_NUM_RANGE : TB_NUM_OK;
}

/* s as an optional sign and decimal digits, nothing after them (digits' terms). */
static tb_num_status integer(const char *s, int *neg, uint64_t *mag)
{
    const char *rest;
    tb_num_status st = digits(s, neg, mag, &rest);
    return st == TB_NUM_SYNTAX || *rest ? TB_NUM_SYNTAX : st;
}

tb_num_status tb_num_long(const char *s, long lo, long hi, long *out)
{
    int neg;
    uint64_t mag;
    tb_num_status st = integer(s, &neg, &mag);
    if (st != TB_NUM_OK)
        return st;
    if (mag > (uint64_t)LONG_MAX + (uint64_t)neg)
        return TB_NUM_RANGE;
    /* LONG_MIN's magnitude is no long */
    long v = mag > (uint64_t)LONG_MAX ? LONG_MIN : neg ? -(long)mag : (long)mag;
    if (v < lo || v > hi)
        return TB_NUM_RANGE;
    *out = v;
    return TB_NUM_OK;
}

tb_num_status tb_num_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    int neg;
    uint64_t v;
    if (s[0] == '-')
        return TB_NUM_SYNTAX;
    tb_num_status st = integer(s, &neg, &v);
    if (st != TB_NUM_OK)
        return st;
    if (v < lo || v > hi)
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

tb_num_status tb_num_size(const char *s, const tb_num_size_unit *units, size_t n, uint64_t lo,
                          uint64_t hi, uint64_t *out)
{
    int neg;
    uint64_t v;
    const char *rest;
    if (s[0] == '+' || s[0] == '-')
        return TB_NUM_SYNTAX;
    tb_num_status st = digits(s, &neg, &v, &rest);
    if (st == TB_NUM_SYNTAX)
        return st;
    size_t k = 0;
    while (k < n && strcmp(rest, units[k].suffix))
        k++;
    if (k == n)
        return TB_NUM_SYNTAX;
    if (st == TB_NUM_RANGE || v > UINT64_MAX / units[k].mul)
        return TB_NUM_RANGE;
    v *= units[k].mul;
    if (v < lo || v > hi)
        return TB_NUM_RANGE;
    *out = v;
    return TB_NUM_OK;
}
