/* text: see text.h. One decoder step (unit) reads one character or one bad byte
 * and says how it prints; the escaper appends runs of characters that print as
 * themselves in one copy. Invariant: the output of tb_text_escape is always plain
 * (tb_text_plain says 1 of it): every escape is printable ASCII. */
#include "base/internal.h"
#include "base/text.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The UTF-8 sequence at p (n > 0 bytes left): its length and code point, or 0
   when p[0] does not start a valid one (RFC 3629: no overlong forms, no
   surrogates, nothing above U+10FFFF). */
static size_t utf8_seq(const unsigned char *p, size_t n, uint32_t *cp)
{
    unsigned char c = p[0];
    size_t len;
    uint32_t v;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        v = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        v = c & 0x0f;
        lo = c == 0xe0 ? 0xa0 : 0x80;
        hi = c == 0xed ? 0x9f : 0xbf;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        v = c & 0x07;
        lo = c == 0xf0 ? 0x90 : 0x80;
        hi = c == 0xf4 ? 0x8f : 0xbf;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        unsigned char d = p[i];
        if (d < (i == 1 ? lo : 0x80) || d > (i == 1 ? hi : 0xbf))
            return 0;
        v = v << 6 | (d & 0x3f);
    }
    *cp = v;
    return len;
}

static int is_bidi(uint32_t cp)
{
    return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
           (cp >= 0x2066 && cp <= 0x2069);
}

/* One step at p (n > 0): the bytes it takes (*used) and, when they do not print
   as themselves, their escape in esc (NUL-terminated, at most 7 bytes); returns 1
   when escaped, 0 when plain. */
static int unit(const unsigned char *p, size_t n, size_t *used, char esc[8])
{
    uint32_t cp = 0;
    size_t len = utf8_seq(p, n, &cp);
    if (len == 0) {
        *used = 1;
        snprintf(esc, 8, "\\x%02x", p[0]);
        return 1;
    }
    *used = len;
    if (cp == '\t' || cp == '\n' || cp == '\r') {
        snprintf(esc, 8, "\\%c", cp == '\t' ? 't' : cp == '\n' ? 'n' : 'r');
        return 1;
    }
    if (cp < 0x20 || cp == 0x7f) {
        snprintf(esc, 8, "\\x%02x", (unsigned)cp);
        return 1;
    }
    if ((cp >= 0x80 && cp <= 0x9f) || is_bidi(cp) || cp == 0x2028 || cp == 0x2029) {
        snprintf(esc, 8, "\\u%04x", (unsigned)cp & 0xffff); /* cp < 0x10000 here */
        return 1;
    }
    return 0;
}

int tb_text_escape(tb_buf *out, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, run = 0; /* p[i..i+run) prints as itself */
    int rc = 0;
    while (i + run < n && rc == 0) {
        size_t used;
        char esc[8];
        if (!unit(p + i + run, n - i - run, &used, esc)) {
            run += used;
            continue;
        }
        rc = tb_buf_append(out, p + i, run) < 0 || tb_buf_puts(out, esc) < 0 ? -1 : 0;
        i += run + used;
        run = 0;
    }
    return rc == 0 ? tb_buf_append(out, p + i, run) : -1;
}

int tb_text_escape_str(tb_buf *out, const char *s)
{
    return s ? tb_text_escape(out, s, strlen(s)) : 0;
}

int tb_text_plain(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t used;
        char esc[8];
        if (unit(p + i, n - i, &used, esc))
            return 0;
        i += used;
    }
    return 1;
}

int tb_text_has_bidi(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        uint32_t cp = 0;
        size_t len = utf8_seq(p + i, n - i, &cp);
        if (len && is_bidi(cp))
            return 1;
        i += len ? len : 1;
    }
    return 0;
}

/* The length of s[0..n) escaped. */
static size_t escaped_len(const unsigned char *p, size_t n)
{
    size_t total = 0;
    for (size_t i = 0; i < n;) {
        size_t used;
        char esc[8];
        total += unit(p + i, n - i, &used, esc) ? strlen(esc) : used;
        i += used;
    }
    return total;
}

const char *tb_text_safe(const char *s, char *buf, size_t len)
{
    if (!s)
        return "";
    size_t n = strlen(s);
    if (tb_text_plain(s, n))
        return s;
    if (len < 4)
        return len ? (buf[0] = 0, buf) : "";
    const unsigned char *p = (const unsigned char *)s;
    /* when it does not all fit, 3 bytes stay free after every piece for "..." */
    size_t reserve = escaped_len(p, n) + 1 > len ? 3 : 0, o = 0;
    for (size_t i = 0; i < n;) {
        size_t used, pl;
        char esc[8];
        const char *piece = (const char *)p + i;
        if (unit(p + i, n - i, &used, esc))
            piece = esc, pl = strlen(esc);
        else
            pl = used;
        if (o + pl + reserve + 1 > len) {
            memcpy(buf + o, "...", 3);
            o += 3;
            break;
        }
        memcpy(buf + o, piece, pl);
        o += pl;
        i += used;
    }
    buf[o] = 0;
    return buf;
}
