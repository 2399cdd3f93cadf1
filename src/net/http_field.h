/* http_field: the small pieces of HTTP field syntax that every parser of HTTP in
 * the tree needs the same way: token characters, case-insensitive names,
 * 1*DIGIT lengths and comma-separated token lists (Connection, Transfer-Encoding).
 * Used by http_req (the fixture server's and the notary's requests), http_resp
 * (the load generator's and the notary's target responses) and serve/routes
 * (the /bytes?size=N query). Pure, allocation-free functions over caller-owned
 * bytes (not NUL-terminated). */
#ifndef TB_NET_HTTP_FIELD_H
#define TB_NET_HTTP_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* 1 when c is a tchar (RFC 9110 section 5.6.2: the bytes of a token such as a
 * method or a field name): ASCII letters, digits and !#$%&'*+-.^_`|~. Inline:
 * http_req calls it per byte. (http_resp classifies with its own byte table.) */
static inline int tb_http_is_tchar(uint8_t c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return 1;
    return c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL;
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
