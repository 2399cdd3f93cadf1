/* base/argv: see argv.h. */
#include "base/argv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void tb_argv_add(tb_argv *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    if (b->n + 2 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 32;
        char **v = realloc(b->v, cap * sizeof *v);
        if (!v) {
            b->oom = 1;
            return;
        }
        b->v = v;
        b->cap = cap;
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&b->v[b->n], fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->v[b->n] = NULL; /* vasprintf leaves it undefined */
        b->oom = 1;
        return;
    }
    b->v[++b->n] = NULL;
}

char **tb_argv_take(tb_argv *b)
{
    char **v = b->v;
    if (b->oom) {
        tb_argv_free(v);
        v = NULL;
    }
    *b = (tb_argv){0};
    return v;
}

void tb_argv_free(char **argv)
{
    if (!argv)
        return;
    for (char **a = argv; *a; a++)
        free(*a);
    free(argv);
}
