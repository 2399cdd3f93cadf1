/* http_resp: byte-at-a-time state machine for HTTP/1.x responses, with bulk
 * skipping of body bytes. See http_resp.h. Every state is resumable at any
 * byte boundary: nothing is ever looked ahead at (the fast paths only take
 * bytes already fed). tb_http_resp_feed counts the header bytes and step
 * dispatches to the current state's handler (on_*), which takes the byte at the
 * cursor (or a run from it), moves the cursor past what it used and returns
 * TB_HTTP_MORE, _DONE or _ERROR. Every line end goes through line_end or on_lf,
 * then end_line: after a CR the LF is awaited in the line's LF state; a bare LF
 * ends the line at once. */
#include "net/http_resp.h"

#include <string.h>

#include "base/hex.h"
#include "net/http_field.h"

enum {
    S_VER,
    S_MINOR,
    S_SP1,
    S_CODE,
    S_CODE_END,
    S_REASON,
    S_LINE_LF,
    S_HDR_START,
    S_NAME,
    S_VAL_WS,
    S_VAL,
    S_VAL_LF,
    S_END_LF,
    S_BODY_CL,
    S_BODY_EOF,
    S_CHUNK_SIZE,
    S_CHUNK_SIZE_MORE,
    S_CHUNK_EXT,
    S_CHUNK_SIZE_LF,
    S_CHUNK_DATA,
    S_CHUNK_DATA_CR,
    S_CHUNK_DATA_LF,
    S_TRAILER_START,
    S_TRAILER_LINE,
    S_TRAILER_END_LF,
    S_DONE,
    S_ERROR,
};

enum { H_NONE = 0, H_CL = 1, H_TE = 2, H_CONN = 4 };

static const char *const known[3] = {"content-length", "transfer-encoding", "connection"};
static const uint8_t known_len[3] = {14, 17, 10};

#define CHUNK_EXT_MAX 4096

void tb_http_resp_init(tb_http_resp *p)
{
    memset(p, 0, sizeof *p);
    p->content_length = -1;
    p->state = S_VER;
}

/* True once any byte of the current response was fed. */
static bool started(const tb_http_resp *p)
{
    return p->header_bytes > 0 || p->state != S_VER;
}

static int fail(tb_http_resp *p, const char *why)
{
    p->error = why;
    p->state = S_ERROR;
    return TB_HTTP_ERROR;
}

/* The bytes of one tb_http_resp_feed call and how far the handlers have used them. */
typedef struct cursor {
    const uint8_t *buf;
    size_t len;
    size_t i; /* the next byte to use: i < len whenever a handler is called */
} cursor;

static inline uint8_t at(const cursor *in)
{
    return in->buf[in->i];
}

static inline bool is_eol(uint8_t c)
{
    return c == '\r' || c == '\n';
}

/* The end of a run of class-k bytes in buf[i..len), at most max bytes long. */
static inline size_t run_end(const uint8_t *buf, size_t i, size_t len, size_t max, uint8_t k)
{
    size_t end = len - i > max ? i + max : len;
    while (i < end && (tb_http_cls[buf[i]] & k))
        i++;
    return i;
}

/* TB_HTTP_MORE, or the error once the status line and headers pass their limit. */
static inline int check_limit(tb_http_resp *p)
{
    if (p->header_bytes > TB_HTTP_HEADER_MAX)
        return fail(p, "response headers too large");
    return TB_HTTP_MORE;
}

/* Counts n more bytes of status line and headers. */
static inline int count_header(tb_http_resp *p, size_t n)
{
    p->header_bytes += (uint32_t)n;
    return check_limit(p);
}

/* Moves the cursor past the run of class-k bytes at it (its first byte is
 * already counted) and counts the rest. */
static inline void skip_run(tb_http_resp *p, cursor *in, uint8_t k)
{
    size_t j = run_end(in->buf, in->i + 1, in->len, TB_HTTP_HEADER_MAX + 1, k);
    p->header_bytes += (uint32_t)(j - in->i - 1);
    in->i = j;
}

static uint8_t lower(uint8_t c)
{
    return (c >= 'A' && c <= 'Z') ? (uint8_t)(c + 32) : c;
}

/* 1 when the list v[0..n) has a non-empty element. */
static bool has_element(const char *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] != ' ' && v[i] != '\t' && v[i] != ',')
            return true;
    return false;
}

/* The offset of buf[i] in the bytes fed since tb_http_resp_init. */
static uint32_t off(const tb_http_resp *p, size_t i)
{
    return (uint32_t)(p->fed + i);
}

/* The sink's value ends after the last byte of buf[i..j) that is not a blank. */
static void value_run(tb_http_resp *p, const uint8_t *buf, size_t i, size_t j)
{
    while (j > i && (buf[j - 1] == ' ' || buf[j - 1] == '\t'))
        j--;
    if (j > i)
        p->f_val_end = off(p, j);
}

/* end_value and headers_done run once a line and once a response: NOINLINE keeps
 * them out of the per-byte handlers (line_end is inlined in each), as the
 * compilers laid out the one big switch this machine was before. */
#define NOINLINE __attribute__((noinline))

/* A header line ended: tell the sink, and read the value of a known header. */
NOINLINE static int end_value(tb_http_resp *p)
{
    if (p->sink && p->sink->field)
        p->sink->field(p->sink->ctx, p->f_name, p->f_name_end - p->f_name, p->f_val,
                       p->f_val_end - p->f_val);
    size_t n = p->val_len;
    while (n > 0 && (p->val[n - 1] == ' ' || p->val[n - 1] == '\t'))
        n--;
    switch (p->hdr) {
    case H_CL: {
        uint64_t u;
        if (p->val_overflow || tb_http_digits(p->val, n, 18, &u) < 0)
            return fail(p, "bad Content-Length");
        int64_t v = (int64_t)u;
        if (p->content_length >= 0 && p->content_length != v)
            return fail(p, "conflicting Content-Length headers");
        p->content_length = v;
        break;
    }
    case H_TE:
        if (p->val_overflow)
            return fail(p, "Transfer-Encoding too long");
        /* Several lines form one list: the last line with an element holds the
         * final coding. The framing is decided in headers_done, so the order of
         * Transfer-Encoding and Content-Length lines does not matter. */
        if (has_element(p->val, n)) {
            p->has_te = true;
            p->chunked = tb_http_has_token(p->val, n, "chunked", true);
        }
        break;
    case H_CONN:
        if (tb_http_has_token(p->val, n, "close", false))
            p->conn_close = true;
        if (tb_http_has_token(p->val, n, "keep-alive", false))
            p->conn_keep = true;
        break;
    default:
        break;
    }
    return TB_HTTP_MORE;
}

/* Headers are complete: decide how the body is delimited. */
NOINLINE static int headers_done(tb_http_resp *p)
{
    if (p->status == 101) { /* Switching Protocols: what follows is not HTTP */
        p->keep_alive = false;
        p->state = S_DONE;
        return TB_HTTP_DONE;
    }
    if (p->status >= 100 && p->status < 200) { /* interim response: the real one follows */
        uint32_t hb = p->header_bytes;
        bool head = p->head;
        const tb_http_resp_sink *sink = p->sink;
        uint64_t fed = p->fed;
        tb_http_resp_init(p);
        p->header_bytes = hb;
        p->head = head;
        p->sink = sink;
        p->fed = fed;
        if (sink && sink->interim)
            sink->interim(sink->ctx);
        return TB_HTTP_MORE;
    }
    p->keep_alive = p->minor >= 1 ? !p->conn_close : (p->conn_keep && !p->conn_close);
    if (p->has_te && p->content_length >= 0) {
        /* Transfer-Encoding overrides Content-Length (RFC 9112 section 6.3);
         * such a message may be an attempt at smuggling: do not reuse the
         * connection after it. */
        p->content_length = -1;
        p->keep_alive = false;
    }
    if (p->head || p->status == 204 || p->status == 304) {
        p->state = S_DONE;
        return TB_HTTP_DONE;
    }
    if (p->chunked) {
        p->state = S_CHUNK_SIZE;
        return TB_HTTP_MORE;
    }
    if (!p->has_te && p->content_length >= 0) {
        if (p->content_length == 0) {
            p->state = S_DONE;
            return TB_HTTP_DONE;
        }
        p->remaining = (uint64_t)p->content_length;
        p->state = S_BODY_CL;
        return TB_HTTP_MORE;
    }
    p->keep_alive = false;
    p->state = S_BODY_EOF;
    return TB_HTTP_MORE;
}

/* Which known header a complete name is (case-insensitive). */
static uint8_t known_header(const uint8_t *name, size_t n)
{
    for (int k = 0; k < 3; k++) {
        if (n != known_len[k])
            continue;
        size_t m = 0;
        while (m < n && lower(name[m]) == (uint8_t)known[k][m])
            m++;
        if (m == n)
            return (uint8_t)(1 << k);
    }
    return H_NONE;
}

static inline void name_char(tb_http_resp *p, uint8_t c)
{
    uint8_t lc = lower(c);
    for (int k = 0; k < 3; k++)
        if ((p->match & (1 << k)) &&
            (p->name_len >= known_len[k] || (uint8_t)known[k][p->name_len] != lc))
            p->match &= (uint8_t) ~(1 << k);
    if (p->name_len < 255)
        p->name_len++;
}

static int chunk_size_done(tb_http_resp *p)
{
    if (p->remaining == 0) {
        p->state = S_TRAILER_START;
    } else {
        p->state = S_CHUNK_DATA;
    }
    return TB_HTTP_MORE;
}

/* The line whose LF state is lf ended: go where that line leads. */
static inline int end_line(tb_http_resp *p, uint8_t lf)
{
    switch (lf) {
    case S_LINE_LF: /* the status line */
        p->state = S_HDR_START;
        return TB_HTTP_MORE;
    case S_VAL_LF: { /* a header line */
        int rc = end_value(p);
        if (rc == TB_HTTP_MORE)
            p->state = S_HDR_START;
        return rc;
    }
    case S_END_LF: /* the blank line after the headers */
        return headers_done(p);
    case S_CHUNK_SIZE_LF:
        return chunk_size_done(p);
    case S_CHUNK_DATA_LF: /* the line end after a chunk's data */
        p->state = S_CHUNK_SIZE;
        return TB_HTTP_MORE;
    default: /* S_TRAILER_END_LF: the blank line after the trailer */
        p->state = S_DONE;
        return TB_HTTP_DONE;
    }
}

/* The LF under the cursor ends a line whose LF state is lf: takes it, unless what
 * the line ends fails. */
static inline int take_lf(tb_http_resp *p, cursor *in, uint8_t lf)
{
    int rc = end_line(p, lf);
    if (rc != TB_HTTP_ERROR)
        in->i++;
    return rc;
}

/* The cursor is at a CR or LF that ends a line whose LF state is lf: after a CR
 * the LF must follow (state lf), a bare LF ends the line now. */
static inline int line_end(tb_http_resp *p, cursor *in, uint8_t lf)
{
    if (at(in) == '\n')
        return take_lf(p, in, lf);
    p->state = lf;
    in->i++;
    return TB_HTTP_MORE;
}

/* S_*_LF (the state lf): a CR ended a line, the LF must follow. */
static inline int on_lf(tb_http_resp *p, cursor *in, uint8_t lf)
{
    if (at(in) != '\n')
        return fail(p, "CR without LF");
    return take_lf(p, in, lf);
}

/* "HTTP/1.x NNN" in one piece at the cursor: takes it whole. */
static bool status_at_once(tb_http_resp *p, cursor *in)
{
    const uint8_t *b = in->buf + in->i;
    if (in->len - in->i < 13 || memcmp(b, "HTTP/1.", 7) || b[7] < '0' || b[7] > '9' ||
        b[8] != ' ' || b[9] < '1' || b[9] > '9' || b[10] < '0' || b[10] > '9' || b[11] < '0' ||
        b[11] > '9')
        return false;
    p->minor = b[7] - '0';
    p->status = (b[9] - '0') * 100 + (b[10] - '0') * 10 + (b[11] - '0');
    p->header_bytes += 11;
    in->i += 12;
    p->state = S_CODE_END;
    return true;
}

/* S_VER: "HTTP/1." (digits counts the bytes matched). */
static int on_version(tb_http_resp *p, cursor *in)
{
    if (p->digits == 0 && status_at_once(p, in))
        return TB_HTTP_MORE;
    if (at(in) != (uint8_t) "HTTP/1."[p->digits])
        return fail(p, "not an HTTP/1.x status line");
    if (++p->digits == 7) {
        p->digits = 0;
        p->state = S_MINOR;
    }
    in->i++;
    return TB_HTTP_MORE;
}

static int on_minor(tb_http_resp *p, cursor *in)
{
    uint8_t c = at(in);
    if (c < '0' || c > '9')
        return fail(p, "bad HTTP version");
    p->minor = c - '0';
    p->state = S_SP1;
    in->i++;
    return TB_HTTP_MORE;
}

static int on_sp1(tb_http_resp *p, cursor *in)
{
    if (at(in) != ' ')
        return fail(p, "bad status line");
    p->state = S_CODE;
    in->i++;
    return TB_HTTP_MORE;
}

/* S_CODE: the three digits of the status code. */
static int on_code(tb_http_resp *p, cursor *in)
{
    uint8_t c = at(in);
    if (c < '0' || c > '9')
        return fail(p, "bad status code");
    p->status = p->status * 10 + (c - '0');
    if (++p->digits == 3) {
        p->digits = 0;
        p->state = S_CODE_END;
    }
    in->i++;
    return TB_HTTP_MORE;
}

/* S_CODE_END: after the code, a space and a reason phrase, or the line end. */
static int on_code_end(tb_http_resp *p, cursor *in)
{
    uint8_t c = at(in);
    if (p->status < 100)
        return fail(p, "bad status code");
    if (is_eol(c))
        return line_end(p, in, S_LINE_LF);
    if (c != ' ')
        return fail(p, "bad status code");
    p->state = S_REASON;
    in->i++;
    return TB_HTTP_MORE;
}

/* S_REASON: the reason phrase, skipped. */
static int on_reason(tb_http_resp *p, cursor *in)
{
    uint8_t c = at(in);
    if (tb_http_cls[c] & TB_HTTP_TEXT) {
        skip_run(p, in, TB_HTTP_TEXT);
        return check_limit(p);
    }
    if (is_eol(c))
        return line_end(p, in, S_LINE_LF);
    return fail(p, "control byte in status line");
}

/* A header name begins with the token byte before the cursor: with the colon
 * already here, the name is known at once; else S_NAME matches it byte by byte. */
static int start_name(tb_http_resp *p, cursor *in, uint8_t c)
{
    p->val_len = 0;
    p->val_overflow = false;
    p->hdr = H_NONE;
    p->f_name = off(p, in->i - 1);
    size_t j = run_end(in->buf, in->i, in->len, 255, TB_HTTP_TCHAR);
    if (j < in->len && in->buf[j] == ':') {
        p->f_name_end = off(p, j);
        p->hdr = known_header(in->buf + in->i - 1, j - in->i + 1);
        int rc = count_header(p, j + 1 - in->i);
        if (rc != TB_HTTP_MORE)
            return rc;
        in->i = j + 1;
        p->state = S_VAL_WS;
        return TB_HTTP_MORE;
    }
    p->match = 7;
    p->name_len = 0;
    p->state = S_NAME;
    name_char(p, c);
    return TB_HTTP_MORE;
}

/* S_HDR_START: a header line, or the blank line that ends the headers. */
static int on_line_start(tb_http_resp *p, cursor *in)
{
    uint8_t c = at(in);
    if (is_eol(c))
        return line_end(p, in, S_END_LF);
    in->i++; /* used, even when it is not a token byte */
    if (!tb_http_is_tchar(c))
        return fail(p, "bad header line");
    return start_name(p, in, c);
}

/* S_NAME: the header name after its first byte, up to the colon. */
static int on_name(tb_http_resp *p, cursor *in)
{
    uint8_t c = at(in);
    if (c == ':') {
        p->f_name_end = off(p, in->i);
        p->hdr = H_NONE;
        for (int k = 0; k < 3; k++)
            if ((p->match & (1 << k)) && p->name_len == known_len[k])
                p->hdr = (uint8_t)(1 << k);
        p->state = S_VAL_WS;
    } else if (!tb_http_is_tchar(c)) {
        return fail(p, "bad header name");
    } else if (p->match == 0) { /* not a header we look at: skip the name */
        skip_run(p, in, TB_HTTP_TCHAR);
        return check_limit(p);
    } else {
        name_char(p, c);
    }
    in->i++;
    return TB_HTTP_MORE;
}

/* S_VAL: the value; a known header's is kept in p->val, another's skipped. */
static int on_value(tb_http_resp *p, cursor *in)
{
    uint8_t c = at(in);
    if (p->hdr == H_NONE && (tb_http_cls[c] & TB_HTTP_TEXT)) {
        size_t from = in->i;
        skip_run(p, in, TB_HTTP_TEXT);
        if (p->sink)
            value_run(p, in->buf, from, in->i);
        return check_limit(p);
    }
    if (is_eol(c))
        return line_end(p, in, S_VAL_LF);
    if (!(tb_http_cls[c] & TB_HTTP_TEXT))
        return fail(p, "control byte in header value");
    if (c != ' ' && c != '\t')
        p->f_val_end = off(p, in->i + 1);
    if (p->val_len < sizeof p->val)
        p->val[p->val_len++] = (char)c;
    else
        p->val_overflow = true;
    in->i++;
    return TB_HTTP_MORE;
}

/* S_VAL_WS: the blanks before the value. True when the value starts at the
 * cursor (state S_VAL: the byte is the value's). */
static bool value_starts(tb_http_resp *p, cursor *in)
{
    uint8_t c = at(in);
    if (c == ' ' || c == '\t') {
        in->i++;
        return false;
    }
    p->state = S_VAL;
    p->f_val = p->f_val_end = off(p, in->i);
    return true;
}

/* n body bytes at the cursor: to the sink, counted, used. */
static inline void pass_body(tb_http_resp *p, cursor *in, size_t n)
{
    if (p->sink && p->sink->body && n)
        p->sink->body(p->sink->ctx, in->buf + in->i, n);
    p->body_bytes += n;
    in->i += n;
}

/* The body bytes here, up to p->remaining; true when none remain. */
static inline bool take_remaining(tb_http_resp *p, cursor *in)
{
    size_t n = in->len - in->i;
    if (n > p->remaining)
        n = (size_t)p->remaining;
    pass_body(p, in, n);
    p->remaining -= n;
    return p->remaining == 0;
}

/* S_BODY_CL: a body of Content-Length bytes. */
static int on_body_cl(tb_http_resp *p, cursor *in)
{
    if (!take_remaining(p, in))
        return TB_HTTP_MORE;
    p->state = S_DONE;
    return TB_HTTP_DONE;
}

/* S_BODY_EOF: a body that runs to the end of the connection. */
static int on_body_eof(tb_http_resp *p, cursor *in)
{
    pass_body(p, in, in->len - in->i);
    return TB_HTTP_MORE;
}

/* A hex digit v of the chunk size. */
static inline int chunk_digit(tb_http_resp *p, cursor *in, int v)
{
    if (++p->digits > 15)
        return fail(p, "chunk size too large");
    p->remaining = p->remaining * 16 + (uint64_t)v;
    in->i++;
    return TB_HTTP_MORE;
}

/* S_CHUNK_SIZE: the first digit of a chunk size. */
static int on_chunk_size(tb_http_resp *p, cursor *in)
{
    int v = tb_hex_val(at(in));
    if (v < 0)
        return fail(p, "bad chunk size");
    p->remaining = 0;
    p->digits = 0;
    p->state = S_CHUNK_SIZE_MORE;
    return chunk_digit(p, in, v);
}

/* S_CHUNK_SIZE_MORE: more digits, then an extension or the line end. */
static int on_chunk_size_more(tb_http_resp *p, cursor *in)
{
    uint8_t c = at(in);
    int v = tb_hex_val(c);
    if (v >= 0)
        return chunk_digit(p, in, v);
    if (is_eol(c))
        return line_end(p, in, S_CHUNK_SIZE_LF);
    if (c != ';' && c != ' ' && c != '\t')
        return fail(p, "bad chunk size");
    p->digits = 0; /* now counts the extension's bytes */
    p->state = S_CHUNK_EXT;
    in->i++;
    return TB_HTTP_MORE;
}

/* S_CHUNK_EXT: a chunk extension, skipped. */
static int on_chunk_ext(tb_http_resp *p, cursor *in)
{
    if (is_eol(at(in)))
        return line_end(p, in, S_CHUNK_SIZE_LF);
    if (++p->digits > CHUNK_EXT_MAX)
        return fail(p, "chunk extension too long");
    in->i++;
    return TB_HTTP_MORE;
}

/* S_CHUNK_DATA: a chunk's data. */
static int on_chunk_data(tb_http_resp *p, cursor *in)
{
    if (take_remaining(p, in))
        p->state = S_CHUNK_DATA_CR;
    return TB_HTTP_MORE;
}

/* S_CHUNK_DATA_CR: the line end after a chunk's data. */
static int on_chunk_data_end(tb_http_resp *p, cursor *in)
{
    if (!is_eol(at(in)))
        return fail(p, "chunk data longer than its size");
    return line_end(p, in, S_CHUNK_DATA_LF);
}

/* S_TRAILER_START: a trailer line, or the blank line that ends the response. */
static int on_trailer_start(tb_http_resp *p, cursor *in)
{
    if (is_eol(at(in)))
        return line_end(p, in, S_TRAILER_END_LF);
    in->i++;
    p->digits = 0; /* counts the line's bytes */
    p->state = S_TRAILER_LINE;
    return TB_HTTP_MORE;
}

/* S_TRAILER_LINE: a trailer field, skipped. */
static int on_trailer_line(tb_http_resp *p, cursor *in)
{
    if (at(in) == '\n')
        p->state = S_TRAILER_START;
    else if (++p->digits > TB_HTTP_HEADER_MAX)
        return fail(p, "trailer too large");
    in->i++;
    return TB_HTTP_MORE;
}

/* One step of the state machine: the handler of the current state. */
static int step(tb_http_resp *p, cursor *in)
{
    switch (p->state) {
    case S_VER:
        return on_version(p, in);
    case S_MINOR:
        return on_minor(p, in);
    case S_SP1:
        return on_sp1(p, in);
    case S_CODE:
        return on_code(p, in);
    case S_CODE_END:
        return on_code_end(p, in);
    case S_REASON:
        return on_reason(p, in);
    case S_LINE_LF:
        return on_lf(p, in, S_LINE_LF);
    case S_HDR_START:
        return on_line_start(p, in);
    case S_NAME:
        return on_name(p, in);
    case S_VAL_WS:
        if (!value_starts(p, in))
            return TB_HTTP_MORE;
        /* fall through */
    case S_VAL:
        return on_value(p, in);
    case S_VAL_LF:
        return on_lf(p, in, S_VAL_LF);
    case S_END_LF:
        return on_lf(p, in, S_END_LF);
    case S_BODY_CL:
        return on_body_cl(p, in);
    case S_BODY_EOF:
        return on_body_eof(p, in);
    case S_CHUNK_SIZE:
        return on_chunk_size(p, in);
    case S_CHUNK_SIZE_MORE:
        return on_chunk_size_more(p, in);
    case S_CHUNK_EXT:
        return on_chunk_ext(p, in);
    case S_CHUNK_SIZE_LF:
        return on_lf(p, in, S_CHUNK_SIZE_LF);
    case S_CHUNK_DATA:
        return on_chunk_data(p, in);
    case S_CHUNK_DATA_CR:
        return on_chunk_data_end(p, in);
    case S_CHUNK_DATA_LF:
        return on_lf(p, in, S_CHUNK_DATA_LF);
    case S_TRAILER_START:
        return on_trailer_start(p, in);
    case S_TRAILER_LINE:
        return on_trailer_line(p, in);
    case S_TRAILER_END_LF:
        return on_lf(p, in, S_TRAILER_END_LF);
    default:
        return fail(p, "parser misuse");
    }
}

int tb_http_resp_feed(tb_http_resp *p, const uint8_t *buf, size_t len, size_t *used)
{
    if (p->state == S_DONE || p->state == S_ERROR) {
        *used = 0;
        return p->state == S_DONE ? TB_HTTP_DONE : TB_HTTP_ERROR;
    }
    cursor in = {buf, len, 0};
    int rc = TB_HTTP_MORE;
    while (in.i < len && rc == TB_HTTP_MORE) {
        if (p->state <= S_END_LF && (rc = count_header(p, 1)) != TB_HTTP_MORE)
            break;
        rc = step(p, &in);
    }
    *used = in.i;
    p->fed += in.i;
    return rc;
}

int tb_http_resp_eof(tb_http_resp *p)
{
    if (p->state == S_BODY_EOF) {
        p->state = S_DONE;
        return TB_HTTP_DONE;
    }
    if (p->state == S_DONE)
        return TB_HTTP_DONE;
    if (p->state == S_ERROR)
        return TB_HTTP_ERROR;
    return fail(p, started(p) ? "connection closed mid-response"
                              : "connection closed before a response");
}
