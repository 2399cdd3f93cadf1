/* cli/opt: strict number parsing for command-line flags, shared by the cli files
 * (cli/flags for every flag table, and syscall, probe, notary, notarize). The
 * syntax is base/num's -- the whole string must be the number, no leading blanks,
 * decimal only -- and this file words the mistakes "<flag> <value>: why".
 * Durations have one syntax in every command (cli_opt_duration): a decimal number
 * with an optional unit ns, us, ms, s, m or h ("2s", "500ms", "1.5m"); no unit
 * means seconds ("10" = "10s", as wrk). */
#ifndef TB_CLI_OPT_H
#define TB_CLI_OPT_H

#include <stdint.h>

#include "base/err.h"

/* A decimal number in [lo, hi]. Returns 0, or -1 with err naming the flag. */
int cli_opt_double(const char *flag, const char *s, double lo, double hi, double *out, tb_err *err);
/* A decimal integer in [lo, hi]. Returns 0, or -1 with err naming the flag. */
int cli_opt_long(const char *flag, const char *s, long lo, long hi, long *out, tb_err *err);
/* An unsigned decimal integer (no '-') in [min, max]. Returns 0, or -1
 * (the caller words the error). */
int cli_opt_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* A duration in [min_s, max_s] seconds (syntax above), in seconds. Returns 0, or -1
 * with err "<flag> <s>: ..." naming the flag. */
int cli_opt_duration(const char *flag, const char *s, double min_s, double max_s, double *out,
                     tb_err *err);

#endif
