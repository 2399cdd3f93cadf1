/* attest/common/jsontok: the attest module's one JSON reader for collateral -- a strict JSON
 * tokenizer without a DOM. It reads the dcap-qvl collateral file, the PCS response
 * bodies (whose signed values are byte spans of the input) and the signed TCB info and
 * QE identity bodies on the verifier's hot path (jansson builds a hash table per object:
 * a TCB info has hundreds of small objects, and that cost as much as two ECDSA checks).
 * (The only other JSON the module reads is the user's policy file: jansson, policy.c.)
 *
 * It accepts exactly RFC 8259 JSON (structure, string escapes, numbers, literals, UTF-8
 * without overlong forms or surrogates; no trailing garbage; nesting at most 32 deep)
 * and produces a flat token array in document order. Each token records its byte span
 * and the index of the token that follows its subtree, so objects and arrays are walked
 * without recursion. Lookups reject duplicate keys (as jansson's JSON_REJECT_DUPLICATES
 * does); keys are compared raw (a key with escapes matches nothing). tb_attest_jstr hands
 * out strings without escapes in place; tb_attest_jstr_dup decodes any string.
 * tb_attest_json_compact re-serializes a document as Intel's QVL does before checking a
 * signature (rapidjson's Writer), for collateral a PCCS served pretty-printed.
 * Invariant: token spans lie inside the input; next > own index; count is exact. */
#include "attest/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

#define MAX_DEPTH 32

typedef struct tctx {
    const char *s;
    size_t n, i;
    tb_attest_jtok *t;
    int cap, count;
} tctx;

static void ws(tctx *c)
{
    while (c->i < c->n &&
           (c->s[c->i] == ' ' || c->s[c->i] == '\n' || c->s[c->i] == '\r' || c->s[c->i] == '\t'))
        c->i++;
}

static int add(tctx *c, int type, size_t start)
{
    if (c->count == c->cap)
        return -1;
    tb_attest_jtok *t = &c->t[c->count];
    t->type = (uint8_t)type;
    t->start = (uint32_t)start;
    t->end = (uint32_t)start;
    t->count = 0;
    t->next = 0;
    t->escaped = 0;
    return c->count++;
}

static int hex4(const char *p)
{
    for (int k = 0; k < 4; k++) {
        char h = p[k];
        if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F')))
            return -1;
    }
    return 0;
}

/* The length of the UTF-8 sequence at p[0..n) (p[0] >= 0x80), or 0 when it is not
 * well-formed (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF). */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    size_t k;
    unsigned lo = 0x80, hi = 0xbf;
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        k = 2;
    else if (p[0] >= 0xe0 && p[0] <= 0xef) {
        k = 3;
        lo = p[0] == 0xe0 ? 0xa0 : 0x80;
        hi = p[0] == 0xed ? 0x9f : 0xbf;
    } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
        k = 4;
        lo = p[0] == 0xf0 ? 0x90 : 0x80;
        hi = p[0] == 0xf4 ? 0x8f : 0xbf;
    } else
        return 0;
    if (n < k || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < k; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    return k;
}

/* 1 for the bytes a string holds as they are: printable ASCII but '"' and '\\'. */
static const unsigned char PLAIN[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/* 1 when the 8 bytes at p are all PLAIN (word-at-a-time: no byte below 0x20, none
 * above 0x7f, no '"', no '\\'; "haszero" of Hacker's Delight / Bit Twiddling Hacks). */
static int plain8(const unsigned char *p)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t x, q, b;
    memcpy(&x, p, 8);
    q = x ^ (ones * '"');
    b = x ^ (ones * '\\');
    return !(((x - ones * 0x20) & ~x & highs) | (x & highs) | ((q - ones) & ~q & highs) |
             ((b - ones) & ~b & highs));
}

/* The character an escape letter stands for ("\\n" -> '\n'), or -1 when it is none. */
static int escaped_char(char e)
{
    switch (e) {
    case '"':
    case '\\':
    case '/':
        return e;
    case 'b':
        return '\b';
    case 'f':
        return '\f';
    case 'n':
        return '\n';
    case 'r':
        return '\r';
    case 't':
        return '\t';
    default:
        return -1;
    }
}

static int string(tctx *c)
{
    int k = add(c, TB_ATTEST_JSTR, ++c->i);
    if (k < 0)
        return -1;
    const unsigned char *s = (const unsigned char *)c->s;
    while (c->i < c->n) {
        size_t i = c->i, n = c->n; /* the fast path: printable ASCII but '"' and '\\' */
        while (n - i >= 8 && plain8(s + i))
            i += 8;
        while (i < n && PLAIN[s[i]])
            i++;
        c->i = i;
        if (i >= n)
            break;
        unsigned char ch = s[i];
        if (ch == '"') {
            c->t[k].end = (uint32_t)c->i++;
            return k;
        }
        if (ch < 0x20)
            return -1;
        if (ch >= 0x80) {
            size_t u = utf8_len((const unsigned char *)c->s + c->i, c->n - c->i);
            if (!u)
                return -1;
            c->i += u;
            continue;
        }
        if (ch == '\\') {
            c->t[k].escaped = 1;
            if (c->i + 1 >= c->n)
                return -1;
            char e = c->s[c->i + 1];
            if (e == 'u') {
                if (c->i + 6 > c->n || hex4(c->s + c->i + 2) < 0)
                    return -1;
                c->i += 6;
                continue;
            }
            if (escaped_char(e) < 0)
                return -1;
            c->i += 2;
            continue;
        }
    }
    return -1;
}

static int digits(tctx *c)
{
    size_t s = c->i;
    while (c->i < c->n && c->s[c->i] >= '0' && c->s[c->i] <= '9')
        c->i++;
    return c->i > s ? 0 : -1;
}

static int number(tctx *c)
{
    int k = add(c, TB_ATTEST_JNUM, c->i);
    if (k < 0)
        return -1;
    if (c->s[c->i] == '-')
        c->i++;
    if (c->i < c->n && c->s[c->i] == '0')
        c->i++;
    else if (digits(c) < 0)
        return -1;
    if (c->i < c->n && c->s[c->i] == '.') {
        c->i++;
        if (digits(c) < 0)
            return -1;
    }
    if (c->i < c->n && (c->s[c->i] == 'e' || c->s[c->i] == 'E')) {
        c->i++;
        if (c->i < c->n && (c->s[c->i] == '+' || c->s[c->i] == '-'))
            c->i++;
        if (digits(c) < 0)
            return -1;
    }
    c->t[k].end = (uint32_t)c->i;
    return k;
}

static int literal(tctx *c, const char *word, int type)
{
    size_t l = strlen(word);
    if (c->n - c->i < l || memcmp(c->s + c->i, word, l))
        return -1;
    int k = add(c, type, c->i);
    if (k < 0)
        return -1;
    c->i += l;
    c->t[k].end = (uint32_t)c->i;
    return k;
}

static int value(tctx *c, int depth);

static int container(tctx *c, int depth, int obj)
{
    if (depth >= MAX_DEPTH)
        return -1;
    int k = add(c, obj ? TB_ATTEST_JOBJ : TB_ATTEST_JARR, c->i++);
    if (k < 0)
        return -1;
    ws(c);
    char close = obj ? '}' : ']';
    if (c->i < c->n && c->s[c->i] == close) {
        c->i++;
    } else {
        for (;;) {
            if (obj) {
                int key = c->i < c->n && c->s[c->i] == '"' ? string(c) : -1;
                if (key < 0)
                    return -1;
                c->t[key].next = (uint32_t)c->count; /* keys are leaves too */
                ws(c);
                if (c->i >= c->n || c->s[c->i] != ':')
                    return -1;
                c->i++;
            }
            if (value(c, depth + 1) < 0)
                return -1;
            c->t[k].count++;
            ws(c);
            if (c->i < c->n && c->s[c->i] == ',') {
                c->i++;
                ws(c);
                continue;
            }
            if (c->i < c->n && c->s[c->i] == close) {
                c->i++;
                break;
            }
            return -1;
        }
    }
    c->t[k].end = (uint32_t)c->i;
    return k;
}

static int value(tctx *c, int depth)
{
    ws(c);
    if (c->i >= c->n)
        return -1;
    char ch = c->s[c->i];
    int k;
    if (ch == '{' || ch == '[')
        k = container(c, depth, ch == '{');
    else if (ch == '"')
        k = string(c);
    else if (ch == '-' || (ch >= '0' && ch <= '9'))
        k = number(c);
    else if (ch == 't')
        k = literal(c, "true", TB_ATTEST_JTRUE);
    else if (ch == 'f')
        k = literal(c, "false", TB_ATTEST_JFALSE);
    else if (ch == 'n')
        k = literal(c, "null", TB_ATTEST_JNULL);
    else
        return -1;
    if (k >= 0)
        c->t[k].next = (uint32_t)c->count;
    return k;
}

int tb_attest_json_tokenize(const char *s, size_t n, tb_attest_jdoc *doc, tb_err *err)
{
    memset(doc, 0, sizeof *doc);
    if (n > (1u << 24))
        return tb_errf(err, "JSON document too large");
    int cap = (int)(n / 2 + 8); /* every token but the last consumes >= 2 bytes */
    tctx c = {s, n, 0, malloc((size_t)cap * sizeof(tb_attest_jtok)), cap, 0};
    if (!c.t)
        return tb_errf(err, "out of memory");
    int k = value(&c, 0);
    ws(&c);
    if (k != 0 || c.i != n) {
        free(c.t);
        return tb_errf(err, "not well-formed JSON (at byte %zu)", c.i);
    }
    doc->s = s;
    doc->t = c.t;
    doc->count = c.count;
    return 0;
}

void tb_attest_json_clear(tb_attest_jdoc *doc)
{
    free(doc->t);
    memset(doc, 0, sizeof *doc);
}

int tb_attest_jobj_get(const tb_attest_jdoc *d, int obj, const char *key)
{
    if (obj < 0 || d->t[obj].type != TB_ATTEST_JOBJ)
        return -1;
    size_t kl = strlen(key);
    int found = -1, k = obj + 1;
    for (uint32_t i = 0; i < d->t[obj].count; i++) {
        const tb_attest_jtok *kt = &d->t[k];
        int v = k + 1;
        if (kt->end - kt->start == kl && !memcmp(d->s + kt->start, key, kl)) {
            if (found >= 0)
                return -2; /* duplicate key */
            found = v;
        }
        k = (int)d->t[v].next;
    }
    return found;
}

int tb_attest_jstr(const tb_attest_jdoc *d, int k, const char **p, size_t *n)
{
    if (k < 0 || d->t[k].type != TB_ATTEST_JSTR || d->t[k].escaped)
        return -1;
    *p = d->s + d->t[k].start;
    *n = d->t[k].end - d->t[k].start;
    return 0;
}

static int hexval4(const char *p)
{
    int v = 0;
    for (int k = 0; k < 4; k++) {
        char h = p[k];
        v = v << 4 | (h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
    }
    return v;
}

static size_t put_utf8(char *d, unsigned cp)
{
    if (cp < 0x80) {
        d[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        d[0] = (char)(0xc0 | cp >> 6);
        d[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        d[0] = (char)(0xe0 | cp >> 12);
        d[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        d[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    d[0] = (char)(0xf0 | cp >> 18);
    d[1] = (char)(0x80 | (cp >> 12 & 0x3f));
    d[2] = (char)(0x80 | (cp >> 6 & 0x3f));
    d[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* Decodes the escaped string s[0..n) (validated by the tokenizer) into d (>= n bytes:
 * no escape decodes longer than itself). Returns the length, or -1 for \u0000 or a
 * lone surrogate. */
static long unescape(const char *s, size_t n, char *d)
{
    size_t i = 0, k = 0;
    while (i < n) {
        const char *b = memchr(s + i, '\\', n - i);
        size_t seg = b ? (size_t)(b - (s + i)) : n - i;
        memcpy(d + k, s + i, seg);
        k += seg;
        i += seg;
        if (i >= n)
            break;
        char e = s[i + 1];
        i += 2;
        if (e != 'u') {
            d[k++] = (char)escaped_char(e); /* the tokenizer checked it */
            continue;
        }
        unsigned cp = (unsigned)hexval4(s + i);
        i += 4;
        if (cp >= 0xdc00 && cp <= 0xdfff)
            return -1; /* a low surrogate first */
        if (cp >= 0xd800 && cp <= 0xdbff) {
            if (n - i < 6 || s[i] != '\\' || s[i + 1] != 'u')
                return -1;
            unsigned lo = (unsigned)hexval4(s + i + 2);
            if (lo < 0xdc00 || lo > 0xdfff)
                return -1;
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            i += 6;
        }
        if (cp == 0)
            return -1;
        k += put_utf8(d + k, cp);
    }
    return (long)k;
}

int tb_attest_jstr_dup(const tb_attest_jdoc *d, int k, char **out, size_t *n)
{
    *out = NULL;
    if (k < 0 || d->t[k].type != TB_ATTEST_JSTR)
        return -1;
    const char *s = d->s + d->t[k].start;
    size_t len = d->t[k].end - d->t[k].start;
    char *b = malloc(len + 1);
    if (!b)
        return -1;
    long m = (long)len;
    if (d->t[k].escaped)
        m = unescape(s, len, b);
    else
        memcpy(b, s, len);
    if (m < 0) {
        free(b);
        return -1;
    }
    b[m] = '\0';
    *out = b;
    *n = (size_t)m;
    return 0;
}

int tb_attest_juint(const tb_attest_jdoc *d, int k, long max, long *out)
{
    if (k < 0 || d->t[k].type != TB_ATTEST_JNUM)
        return -1;
    const char *p = d->s + d->t[k].start;
    size_t n = d->t[k].end - d->t[k].start;
    if (n == 0 || n > 9)
        return -1;
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1; /* negative, fraction or exponent */
        v = v * 10 + (p[i] - '0');
    }
    if (v > max)
        return -1;
    *out = v;
    return 0;
}

/* ------------------------------------------------- compact re-serialization */

/* A number as rapidjson's Writer writes what its Reader parsed: integers as they are
 * ("-0" is the integer 0), anything else as a double in Grisu's shortest form with
 * Prettify's layout (digits with ".0", a decimal point inside, "0.000ddd", or
 * "d.ddde-7"; max_dec: SetMaxDecimalPlaces, below which a value is written "0.0"). */
static int emit_number(const char *p, size_t n, int max_dec, tb_buf *o)
{
    size_t i = p[0] == '-', ndig = n - i;
    int integer = 1;
    for (size_t k = i; k < n && integer; k++)
        integer = p[k] >= '0' && p[k] <= '9';
    /* rapidjson keeps what fits an int64 (negative) or a uint64 as an integer. */
    const char *limit = i ? "9223372036854775808" : "18446744073709551615";
    size_t ll = strlen(limit);
    if (integer && (ndig > ll || (ndig == ll && memcmp(p + i, limit, ll) > 0)))
        integer = 0;
    if (integer) {
        if (n == 2 && p[0] == '-' && p[1] == '0')
            return tb_buf_append(o, "0", 1);
        return tb_buf_append(o, p, n);
    }
    char txt[64], e[40];
    if (n >= sizeof txt)
        return -1;
    memcpy(txt, p, n);
    txt[n] = '\0';
    double v = strtod(txt, NULL);
    if (v != v || v - v != 0)
        return -1; /* out of range: rapidjson refuses it too */
    if (v == 0)
        return tb_buf_append(o, signbit(v) ? "-0.0" : "0.0", signbit(v) ? 4 : 3);
    if (v < 0 && tb_buf_append(o, "-", 1) < 0)
        return -1;
    v = fabs(v);
    int prec = 1;
    for (; prec <= 17; prec++) { /* the shortest digits that read back as v */
        snprintf(e, sizeof e, "%.*e", prec - 1, v);
        if (strtod(e, NULL) == v)
            break;
    }
    char digits[24];
    int len = 0;
    for (const char *c = e; *c && *c != 'e'; c++)
        if (*c >= '0' && *c <= '9')
            digits[len++] = *c;
    while (len > 1 && digits[len - 1] == '0')
        len--;
    int kk = atoi(strchr(e, 'e') + 1) + 1; /* v = 0.digits * 10^kk */
    int k = kk - len;
    tb_buf b = {0};
    int rc = 0;
    if (k >= 0 && kk <= 21) {
        rc |= tb_buf_append(&b, digits, (size_t)len);
        for (int z = 0; z < k; z++)
            rc |= tb_buf_append(&b, "0", 1);
        rc |= tb_buf_append(&b, ".0", 2);
    } else if (kk > 0 && kk <= 21) {
        rc |= tb_buf_append(&b, digits, (size_t)kk);
        rc |= tb_buf_append(&b, ".", 1);
        rc |= tb_buf_append(&b, digits + kk, (size_t)(len - kk));
    } else if (kk > -6 && kk <= 0) {
        rc |= tb_buf_append(&b, "0.", 2);
        for (int z = 0; z < -kk; z++)
            rc |= tb_buf_append(&b, "0", 1);
        rc |= tb_buf_append(&b, digits, (size_t)len);
    } else if (kk < -max_dec) {
        rc |= tb_buf_append(&b, "0.0", 3);
    } else {
        rc |= tb_buf_append(&b, digits, 1);
        if (len > 1) {
            rc |= tb_buf_append(&b, ".", 1);
            rc |= tb_buf_append(&b, digits + 1, (size_t)(len - 1));
        }
        rc |= tb_buf_printf(&b, "e%d", kk - 1);
    }
    rc |= tb_buf_append(o, b.p, b.len);
    tb_buf_clear(&b);
    return rc ? -1 : 0;
}

/* A string as rapidjson's Writer escapes it: '"', '\\', and control characters
 * (\b \t \n \f \r, else \u00XX with upper-case hex); everything else as is. */
static int emit_string(const tb_attest_jdoc *d, int k, tb_buf *o)
{
    char *s;
    size_t n;
    if (tb_attest_jstr_dup(d, k, &s, &n) < 0)
        return -1;
    int rc = tb_buf_append(o, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i <= n && rc == 0; i++) {
        unsigned char c = i < n ? (unsigned char)s[i] : 0;
        if (i < n && c >= 0x20 && c != '"' && c != '\\')
            continue;
        rc |= tb_buf_append(o, s + run, i - run);
        run = i + 1;
        if (i == n)
            break;
        static const char short_esc[32] = {
            [8] = 'b', [9] = 't', [10] = 'n', [12] = 'f', [13] = 'r'};
        char esc[8];
        if (c == '"' || c == '\\')
            snprintf(esc, sizeof esc, "\\%c", c);
        else if (short_esc[c])
            snprintf(esc, sizeof esc, "\\%c", short_esc[c]);
        else
            snprintf(esc, sizeof esc, "\\u%04X", c);
        rc |= tb_buf_append(o, esc, strlen(esc));
    }
    free(s);
    return rc | tb_buf_append(o, "\"", 1) ? -1 : 0;
}

static int emit_value(const tb_attest_jdoc *d, int k, int max_dec, tb_buf *o)
{
    const tb_attest_jtok *t = &d->t[k];
    switch (t->type) {
    case TB_ATTEST_JSTR:
        return emit_string(d, k, o);
    case TB_ATTEST_JNUM:
        return emit_number(d->s + t->start, t->end - t->start, max_dec, o);
    case TB_ATTEST_JTRUE:
        return tb_buf_append(o, "true", 4);
    case TB_ATTEST_JFALSE:
        return tb_buf_append(o, "false", 5);
    case TB_ATTEST_JNULL:
        return tb_buf_append(o, "null", 4);
    default:
        break;
    }
    int obj = t->type == TB_ATTEST_JOBJ, c = k + 1;
    if (tb_buf_append(o, obj ? "{" : "[", 1) < 0)
        return -1;
    for (uint32_t i = 0; i < t->count; i++) {
        if (i && tb_buf_append(o, ",", 1) < 0)
            return -1;
        if (obj) {
            if (emit_string(d, c, o) < 0 || tb_buf_append(o, ":", 1) < 0)
                return -1;
            c++;
        }
        if (emit_value(d, c, max_dec, o) < 0)
            return -1;
        c = (int)d->t[c].next;
    }
    return tb_buf_append(o, obj ? "}" : "]", 1);
}

int tb_attest_json_compact(const char *s, size_t n, tb_buf *out, tb_err *err)
{
    tb_attest_jdoc d;
    if (tb_attest_json_tokenize(s, n, &d, err) < 0)
        return -1;
    /* TcbInfo.cpp sets 25 decimal places; EnclaveIdentityV2.cpp keeps rapidjson's 324. */
    int rc = emit_value(&d, 0, 25, out);
    tb_attest_json_clear(&d);
    if (rc < 0)
        return tb_errf(err, "JSON cannot be re-serialized (\\u0000, or a number out of range)");
    return 0;
}
