/* buf: a growable byte buffer. The struct owns p; tb_buf_clear releases it.
 * Naming (base, bench, load, serve): tb_X_free frees an object the library
 * allocated (the pointer itself); tb_X_clear frees only what a caller-owned struct
 * holds, leaving it empty and reusable.
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
/* Forgets the contents (len = 0), keeps the storage. */
void tb_buf_reset(tb_buf *b);
/* Frees the storage: b is {0} again. */
void tb_buf_clear(tb_buf *b);
/* The last line of text in b that is not empty (the CRs and LFs that end the text
 * dropped) into out, cut to len - 1 bytes; "" when there is none. For messages: a
 * child's last word on stderr. */
void tb_buf_last_line(const tb_buf *b, char *out, size_t len);

#endif
