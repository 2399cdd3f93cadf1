/* cli/sys_opt: strict number parsing for command-line flags shared by the sys
 * commands (syscall, probe). Each returns 0, or -1 with err naming the flag. */
#ifndef TB_CLI_SYS_OPT_H
#define TB_CLI_SYS_OPT_H

#include "base/err.h"

/* A decimal number in [lo, hi]; the whole string must be the number. */
int cli_sys_opt_double(const char *flag, const char *s, double lo, double hi, double *out,
                       tb_err *err);
/* A decimal integer in [lo, hi]. */
int cli_sys_opt_long(const char *flag, const char *s, long lo, long hi, long *out, tb_err *err);

#endif
