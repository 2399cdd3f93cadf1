/* buf: growable byte buffer; grows geometrically, keeps a NUL after the data. */
#include "base/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tb_buf_reserve(tb_buf *b, size_t n)
{
    if (n > SIZE_MAX - b->len - 1)
        return -1;
    size_t need = b->len + n + 1;
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p)
        return -1;
    p[b->len] = 0; /* the invariant: a first allocation holds no NUL of its own */
    b->p = p;
    b->cap = cap;
    return 0;
}

int tb_buf_append(tb_buf *b, const void *data, size_t n)
{
    if (tb_buf_reserve(b, n) < 0)
        return -1;
    if (n)
        memcpy(b->p + b->len, data, n);
    b->len += n;
    b->p[b->len] = 0;
    return 0;
}

int tb_buf_puts(tb_buf *b, const char *s)
{
    return tb_buf_append(b, s, strlen(s));
}

int tb_buf_printf(tb_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || tb_buf_reserve(b, (size_t)n) < 0)
        return -1;
    va_start(ap, fmt);
    vsnprintf((char *)b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

void tb_buf_consume(tb_buf *b, size_t n)
{
    if (n >= b->len) {
        b->len = 0;
    } else {
        memmove(b->p, b->p + n, b->len - n);
        b->len -= n;
    }
    if (b->p)
        b->p[b->len] = 0;
}

void tb_buf_reset(tb_buf *b)
{
    b->len = 0;
    if (b->p)
        b->p[0] = 0;
}

void tb_buf_clear(tb_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

void tb_buf_last_line(const tb_buf *b, char *out, size_t len)
{
    const char *s = b->p ? (const char *)b->p : "";
    size_t end = b->len;
    while (end && (s[end - 1] == '\n' || s[end - 1] == '\r'))
        end--;
    size_t start = end;
    while (start && s[start - 1] != '\n')
        start--;
    snprintf(out, len, "%.*s", (int)(end - start), s + start);
}
