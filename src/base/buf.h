/* buf: a growable byte buffer. The struct owns p; tb_buf_free releases it.
 * Invariant: p is NULL or points to cap bytes, len <= cap, and p[len] is a NUL
 * byte whenever cap > len (so text can be used as a C string). */
#ifndef TB_BASE_BUF_H
#define TB_BASE_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct tb_buf {
    uint8_t *p;
    size_t len;
    size_t cap;
} tb_buf;

/* Makes room for n more bytes (plus the NUL). Returns 0, or -1 when out of memory. */
int tb_buf_reserve(tb_buf *b, size_t n);
int tb_buf_append(tb_buf *b, const void *data, size_t n);
int tb_buf_puts(tb_buf *b, const char *s);
int tb_buf_printf(tb_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Drops the first n bytes (n <= len). */
void tb_buf_consume(tb_buf *b, size_t n);
void tb_buf_reset(tb_buf *b);
void tb_buf_free(tb_buf *b);

#endif
