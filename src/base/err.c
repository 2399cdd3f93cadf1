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

int tb_errf(tb_err *e, const char *fmt, ...)
{
    if (!e)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    strip_newlines(e->msg);
    return -1;
}

int tb_errno(tb_err *e, const char *fmt, ...)
{
    int saved = errno;
    if (!e)
        return -1;
    char head[TB_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    return set_msg(e, head, strerror(saved));
}

int tb_err_wrap(tb_err *e, const char *fmt, ...)
{
    if (!e)
        return -1;
    char head[TB_ERR_MAX], old[TB_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    memcpy(old, e->msg, sizeof old);
    return set_msg(e, head, old);
}

int tb_err_ssl(tb_err *e, const char *fmt, ...)
{
    unsigned long code = ERR_get_error();
    ERR_clear_error();
    if (!e)
        return -1;
    char head[TB_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    char why[256] = "";
    if (code)
        ERR_error_string_n(code, why, sizeof why);
    return set_msg(e, head, code ? why : NULL);
}
