/* cli_fail: the single place where error lines are printed. */
#include "cli/cli.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>

__attribute__((format(printf, 2, 0))) static void vfail(const char *cmd, const char *fmt,
                                                        va_list ap)
{
    fprintf(stderr, "teebench: %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_fail(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(cmd, fmt, ap);
    va_end(ap);
    return 1;
}

int cli_fail_code(int code, const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(cmd, fmt, ap);
    va_end(ap);
    return code;
}

int cli_bad_option(const char *cmd, int c, char **argv)
{
    if (c == ':')
        return cli_fail_code(2, cmd, "%s: needs a value", argv[optind - 1]);
    return cli_fail_code(2, cmd, "%s: unknown option (teebench %s --help)", argv[optind - 1], cmd);
}
