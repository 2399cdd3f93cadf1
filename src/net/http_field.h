/* http_field: the small pieces of HTTP field syntax that every parser of HTTP in
 * the tree needs the same way: token characters, case-insensitive names,
 * 1*DIGIT lengths and comma-separated token lists (Connection, Transfer-Encoding).
 * Used by http_req (the fixture server's and the notary's requests), http_resp
 * (the load generator's and the notary's target responses) and serve/routes
 * (the /bytes?size=N query). Pure, allocation-free functions over caller-owned
 * bytes (not NUL-terminated), and the one byte-class table they and the parsers
 * share (read-only). */
#ifndef TB_NET_HTTP_FIELD_H
#define TB_NET_HTTP_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The byte classes of field syntax: bits of tb_http_cls[c]. TB_HTTP_TCHAR: a
 * tchar (RFC 9110 section 5.6.2: the bytes of a token such as a method or a field
 * name): ASCII letters, digits and !#$%&'*+-.^_`|~. TB_HTTP_TEXT: a byte a reason
 * phrase or a field value may hold: HTAB, SP, VCHAR, obs-text (0x80-0xff). */
enum { TB_HTTP_TCHAR = 1, TB_HTTP_TEXT = 2 };
extern const uint8_t tb_http_cls[256];

/* 1 when c is a tchar. Inline: the parsers call it per byte. */
static inline int tb_http_is_tchar(uint8_t c)
{
    return tb_http_cls[c] & TB_HTTP_TCHAR;
}

/* 1 when p[0..n) equals want (a NUL-terminated ASCII string), ignoring case. */
int tb_http_name_is(const void *p, size_t n, const char *want);
/* Parses p[0..n) as 1*DIGIT into *out. Returns 0, or -1 when it is empty, has
 * more than max_digits digits (max_digits <= 19, so nothing overflows) or any
 * other byte (no sign, no whitespace). */
int tb_http_digits(const void *p, size_t n, size_t max_digits, uint64_t *out);
/* Searches the comma-separated list v[0..n) (optional whitespace around the
 * elements, empty elements ignored) for tok, a lowercase token, ignoring case.
 * last = false: true when any element is tok; last = true: true when the last
 * non-empty element is tok (Transfer-Encoding's final coding). */
bool tb_http_has_token(const void *v, size_t n, const char *tok, bool last);

#endif
