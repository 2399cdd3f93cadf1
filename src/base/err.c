/* err: formatting of one-line error messages. Invariant: msg is always
 * NUL-terminated and never contains a newline. */
#include "base/err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <openssl/err.h>

static void strip_newlines(char *s)
{
    for (; *s; s++)
        if (*s == '\n' || *s == '\r')
            *s = ' ';
}

/* e->msg = "<head>: <why>", or head alone when why is NULL; newlines folded. */
static int set_msg(tb_err *e, const char *head, const char *why)
{
    /* a message longer than TB_ERR_MAX is cut (a one-line error, not data) */
    int n = why ? snprintf(e->msg, sizeof e->msg, "%s: %s", head, why)
                : snprintf(e->msg, sizeof e->msg, "%s", head);
    if (n < 0)
        e->msg[0] = 0;
    strip_newlines(e->msg);
    return -1;
}

/* The one body of every tb_err* function: the head from fmt, then set_msg. A NULL e is
   ignored. why must not point into e->msg (tb_err_wrap passes a copy). */
static int vset_msg(tb_err *e, const char *why, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static int vset_msg(tb_err *e, const char *why, const char *fmt, va_list ap)
{
    if (!e)
        return -1;
    char head[TB_ERR_MAX];
    vsnprintf(head, sizeof head, fmt, ap);
    return set_msg(e, head, why);
}

int tb_errf(tb_err *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vset_msg(e, NULL, fmt, ap);
    va_end(ap);
    return rc;
}

int tb_errno(tb_err *e, const char *fmt, ...)
{
    const char *why = strerror(errno); /* errno as it was on entry */
    va_list ap;
    va_start(ap, fmt);
    int rc = vset_msg(e, why, fmt, ap);
    va_end(ap);
    return rc;
}

int tb_err_wrap(tb_err *e, const char *fmt, ...)
{
    char old[TB_ERR_MAX] = "";
    if (e)
        memcpy(old, e->msg, sizeof old);
    va_list ap;
    va_start(ap, fmt);
    int rc = vset_msg(e, old, fmt, ap);
    va_end(ap);
    return rc;
}

int tb_err_ssl(tb_err *e, const char *fmt, ...)
{
    unsigned long code = ERR_get_error();
    ERR_clear_error();
    char why[256] = "";
    if (code)
        ERR_error_string_n(code, why, sizeof why);
    va_list ap;
    va_start(ap, fmt);
    int rc = vset_msg(e, code ? why : NULL, fmt, ap);
    va_end(ap);
    return rc;
}
