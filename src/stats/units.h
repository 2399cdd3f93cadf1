/* units: wrk's number formatting and parsing, exactly.
 *
 * Formatting scales by the unit's factor while the value is >= 0.85 of it, and
 * prints two decimals ("%.2Lf") with the unit appended:
 *   time (µs in): 646.74us, 3.22ms, 1.02s, 1.50m (>= 1e6 µs switches to s/m);
 *   binary: 1.65G (the caller adds "B"), factor 1024, up to T;
 *   metric: 40.85k, factor 1000, up to T;
 *   duration (s in, no decimals): 10s, 2m.
 * Parsing (command-line values): an unsigned integer with an optional unit,
 * case-insensitive: metric k/M/G/T/P; time s/m/h (and ms, which wrk lacks).
 * out buffers must hold TB_UNITS_MAX bytes. */
#ifndef TB_STATS_UNITS_H
#define TB_STATS_UNITS_H

#include <stdint.h>

#define TB_UNITS_MAX 48

char *tb_fmt_time_us(long double us, char out[TB_UNITS_MAX]);
char *tb_fmt_binary(long double n, char out[TB_UNITS_MAX]);
char *tb_fmt_metric(long double n, char out[TB_UNITS_MAX]);
char *tb_fmt_time_s(long double s, char out[TB_UNITS_MAX]);

/* Returns 0 and *n, or -1 if s is not "<digits>[unit]" or overflows. */
int tb_scan_metric(const char *s, uint64_t *n);

#endif
