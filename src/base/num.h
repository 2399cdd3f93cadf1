/* num: the one number syntax of the tree -- a number from text a user typed (a
 * flag, a workload setting, a plan) or a file teebench wrote, checked strictly and
 * against a range. The whole string is the number: no leading or trailing
 * whitespace (strtol and strtod alone skip leading blanks), nothing after it but a
 * unit the caller lists.
 *   integers   an optional '+' or '-', then decimal digits ("42", "+5", "-1");
 *              an unsigned one refuses '-' (strtoull would negate it)
 *   decimals   an integer's form with an optional fraction and exponent ("0.05",
 *              "1e-3"); no hex, inf or nan
 *   scaled     digits with at most one '.' ("2", "1.5", ".5"; no sign, exponent,
 *              hex, inf or nan), then one of the caller's unit suffixes ("" for
 *              none): a duration "500ms", "1.5m"
 *   sizes      decimal digits (no sign), then one of the caller's unit suffixes:
 *              "4G", "512M", "1024" -- integers all the way, to 2^64 - 1
 * Each returns a tb_num_status and words nothing: the caller frames the message
 * ("<flag> <value>: not an integer", "<key>: '<value>' is not a duration") from it.
 * An integer or size with more digits than its type holds is out of range, a decimal that
 * overflows a double is not a number. Pure functions; *out is written only on
 * TB_NUM_OK. */
#ifndef TB_BASE_NUM_H
#define TB_BASE_NUM_H

#include <stddef.h>
#include <stdint.h>

typedef enum tb_num_status {
    TB_NUM_OK = 0,
    TB_NUM_SYNTAX, /* not a number of that form (or too large to represent) */
    TB_NUM_RANGE,  /* a number, outside [lo, hi] */
} tb_num_status;

/* A unit of a scaled number: the number read times mul / div (so a millisecond can
 * be div 1000, exact as a divisor, or mul 1e-3, as a caller always had it). */
typedef struct tb_num_unit {
    const char *suffix;
    double mul, div;
} tb_num_unit;

/* A unit of a size: the number read times mul (not 0). */
typedef struct tb_num_size_unit {
    const char *suffix;
    uint64_t mul;
} tb_num_size_unit;

/* A signed decimal integer in [lo, hi]. */
tb_num_status tb_num_long(const char *s, long lo, long hi, long *out);
/* An unsigned decimal integer in [lo, hi]. */
tb_num_status tb_num_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
/* A finite decimal number in [lo, hi]. */
tb_num_status tb_num_double(const char *s, double lo, double hi, double *out);
/* A scaled number with one of units[0..n) (suffixes compared exactly), its value
 * in the base unit in [lo, hi]. */
tb_num_status tb_num_scaled(const char *s, const tb_num_unit *units, size_t n, double lo, double hi,
                            double *out);
/* A size with one of units[0..n) (suffixes compared exactly), its value in [lo, hi]
 * (one that overflows 64 bits is out of range). */
tb_num_status tb_num_size(const char *s, const tb_num_size_unit *units, size_t n, uint64_t lo,
                          uint64_t hi, uint64_t *out);

#endif
