/* http_resp: byte-at-a-time state machine for HTTP/1.x responses, with bulk
 * skipping of body bytes. See http_resp.h. Every state is resumable at any
 * byte boundary: nothing is ever looked ahead at. */
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

/* byte classes: 1 = token character (header names), 2 = text allowed in a
 * reason phrase or header value (HTAB, SP, VCHAR, obs-text). */
static const uint8_t cls[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    2, 3, 2, 3, 3, 3, 3, 3, 2, 2, 3, 3, 2, 3, 3, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2,
    2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 3, 2, 3, 0,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
};

static bool is_tchar(uint8_t c)
{
    return cls[c] & 1;
}

/* The end of a run of class-k bytes in buf[i..len), at most max bytes long. */
static size_t run_end(const uint8_t *buf, size_t i, size_t len, size_t max, uint8_t k)
{
    size_t end = len - i > max ? i + max : len;
    while (i < end && (cls[buf[i]] & k))
        i++;
    return i;
}

/* Consumes a run of text bytes starting at buf[i] (already counted once). */
static size_t skip_run(tb_http_resp *p, const uint8_t *buf, size_t i, size_t len, uint8_t k)
{
    size_t j = run_end(buf, i + 1, len, TB_HTTP_HEADER_MAX + 1, k);
    p->header_bytes += (uint32_t)(j - i - 1);
    return j;
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

static int end_value(tb_http_resp *p)
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
static int headers_done(tb_http_resp *p)
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

static void name_char(tb_http_resp *p, uint8_t c)
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

int tb_http_resp_feed(tb_http_resp *p, const uint8_t *buf, size_t len, size_t *used)
{
    size_t i = 0;
    int rc = TB_HTTP_MORE;
    if (p->state == S_DONE) {
        *used = 0;
        return TB_HTTP_DONE;
    }
    if (p->state == S_ERROR) {
        *used = 0;
        return TB_HTTP_ERROR;
    }
    while (i < len && rc == TB_HTTP_MORE) {
        uint8_t c = buf[i];
        if (p->state <= S_END_LF) {
            if (++p->header_bytes > TB_HTTP_HEADER_MAX) {
                rc = fail(p, "response headers too large");
                break;
            }
        }
        switch (p->state) {
        case S_VER:
            if (p->digits == 0 && len - i >= 13 && !memcmp(buf + i, "HTTP/1.", 7) &&
                buf[i + 7] >= '0' && buf[i + 7] <= '9' && buf[i + 8] == ' ' && buf[i + 9] >= '1' &&
                buf[i + 9] <= '9' && buf[i + 10] >= '0' && buf[i + 10] <= '9' &&
                buf[i + 11] >= '0' && buf[i + 11] <= '9') {
                /* fast path: "HTTP/1.x NNN" in one piece */
                p->minor = buf[i + 7] - '0';
                p->status =
                    (buf[i + 9] - '0') * 100 + (buf[i + 10] - '0') * 10 + (buf[i + 11] - '0');
                p->header_bytes += 11;
                i += 12;
                p->state = S_CODE_END;
                break;
            }
            if (c != (uint8_t) "HTTP/1."[p->digits]) {
                rc = fail(p, "not an HTTP/1.x status line");
                break;
            }
            if (++p->digits == 7) {
                p->digits = 0;
                p->state = S_MINOR;
            }
            i++;
            break;
        case S_MINOR:
            if (c < '0' || c > '9') {
                rc = fail(p, "bad HTTP version");
                break;
            }
            p->minor = c - '0';
            p->state = S_SP1;
            i++;
            break;
        case S_SP1:
            if (c != ' ') {
                rc = fail(p, "bad status line");
                break;
            }
            p->state = S_CODE;
            i++;
            break;
        case S_CODE:
            if (c < '0' || c > '9') {
                rc = fail(p, "bad status code");
                break;
            }
            p->status = p->status * 10 + (c - '0');
            if (++p->digits == 3) {
                p->digits = 0;
                p->state = S_CODE_END;
            }
            i++;
            break;
        case S_CODE_END:
            if (p->status < 100) {
                rc = fail(p, "bad status code");
                break;
            }
            if (c == ' ')
                p->state = S_REASON;
            else if (c == '\r')
                p->state = S_LINE_LF;
            else if (c == '\n')
                p->state = S_HDR_START;
            else {
                rc = fail(p, "bad status code");
                break;
            }
            i++;
            break;
        case S_REASON:
            if (cls[c] & 2) {
                i = skip_run(p, buf, i, len, 2);
                if (p->header_bytes > TB_HTTP_HEADER_MAX)
                    rc = fail(p, "response headers too large");
                break;
            }
            if (c == '\r')
                p->state = S_LINE_LF;
            else if (c == '\n')
                p->state = S_HDR_START;
            else if ((c < 0x20 && c != '\t') || c == 0x7f) {
                rc = fail(p, "control byte in status line");
                break;
            }
            i++;
            break;
        case S_LINE_LF:
        case S_VAL_LF:
            if (c != '\n') {
                rc = fail(p, "CR without LF");
                break;
            }
            if (p->state == S_VAL_LF && (rc = end_value(p)) != TB_HTTP_MORE)
                break;
            p->state = S_HDR_START;
            i++;
            break;
        case S_HDR_START:
            i++;
            if (c == '\r') {
                p->state = S_END_LF;
            } else if (c == '\n') {
                rc = headers_done(p);
            } else if (is_tchar(c)) {
                p->val_len = 0;
                p->val_overflow = false;
                p->hdr = H_NONE;
                p->f_name = off(p, i - 1);
                size_t j = run_end(buf, i, len, 255, 1);
                if (j < len && buf[j] == ':') { /* fast path: the whole name is here */
                    p->f_name_end = off(p, j);
                    p->hdr = known_header(buf + i - 1, j - i + 1);
                    p->header_bytes += (uint32_t)(j + 1 - i);
                    if (p->header_bytes > TB_HTTP_HEADER_MAX) {
                        rc = fail(p, "response headers too large");
                        break;
                    }
                    i = j + 1;
                    p->state = S_VAL_WS;
                    break;
                }
                p->match = 7;
                p->name_len = 0;
                p->state = S_NAME;
                name_char(p, c);
            } else {
                rc = fail(p, "bad header line");
            }
            break;
        case S_NAME:
            if (c == ':') {
                p->f_name_end = off(p, i);
                p->hdr = H_NONE;
                for (int k = 0; k < 3; k++)
                    if ((p->match & (1 << k)) && p->name_len == known_len[k])
                        p->hdr = (uint8_t)(1 << k);
                p->state = S_VAL_WS;
            } else if (is_tchar(c)) {
                if (p->match == 0) { /* not a header we look at: skip the name */
                    i = skip_run(p, buf, i, len, 1);
                    if (p->header_bytes > TB_HTTP_HEADER_MAX)
                        rc = fail(p, "response headers too large");
                    break;
                }
                name_char(p, c);
            } else {
                rc = fail(p, "bad header name");
                break;
            }
            i++;
            break;
        case S_VAL_WS:
            if (c == ' ' || c == '\t') {
                i++;
                break;
            }
            p->state = S_VAL;
            p->f_val = p->f_val_end = off(p, i);
            /* fall through */
        case S_VAL:
            if (p->hdr == H_NONE && (cls[c] & 2)) { /* a value we ignore: skip it */
                size_t from = i;
                i = skip_run(p, buf, i, len, 2);
                if (p->sink)
                    value_run(p, buf, from, i);
                if (p->header_bytes > TB_HTTP_HEADER_MAX)
                    rc = fail(p, "response headers too large");
                break;
            }
            if (c == '\r') {
                p->state = S_VAL_LF;
            } else if (c == '\n') {
                if ((rc = end_value(p)) != TB_HTTP_MORE)
                    break;
                p->state = S_HDR_START;
            } else if ((c < 0x20 && c != '\t') || c == 0x7f) {
                rc = fail(p, "control byte in header value");
                break;
            } else if (p->hdr != H_NONE) {
                if (c != ' ' && c != '\t')
                    p->f_val_end = off(p, i + 1);
                if (p->val_len < sizeof p->val)
                    p->val[p->val_len++] = (char)c;
                else
                    p->val_overflow = true;
            }
            i++;
            break;
        case S_END_LF:
            if (c != '\n') {
                rc = fail(p, "CR without LF");
                break;
            }
            i++;
            rc = headers_done(p);
            break;
        case S_BODY_CL: {
            size_t take = len - i;
            if (take > p->remaining)
                take = (size_t)p->remaining;
            if (p->sink && p->sink->body && take)
                p->sink->body(p->sink->ctx, buf + i, take);
            p->remaining -= take;
            p->body_bytes += take;
            i += take;
            if (p->remaining == 0) {
                p->state = S_DONE;
                rc = TB_HTTP_DONE;
            }
            break;
        }
        case S_BODY_EOF:
            if (p->sink && p->sink->body)
                p->sink->body(p->sink->ctx, buf + i, len - i);
            p->body_bytes += len - i;
            i = len;
            break;
        case S_CHUNK_SIZE:
        case S_CHUNK_SIZE_MORE: {
            int v = tb_hex_val(c);
            if (v >= 0) {
                if (p->state == S_CHUNK_SIZE) {
                    p->remaining = 0;
                    p->digits = 0;
                    p->state = S_CHUNK_SIZE_MORE;
                }
                if (++p->digits > 15) {
                    rc = fail(p, "chunk size too large");
                    break;
                }
                p->remaining = p->remaining * 16 + (uint64_t)v;
            } else if (p->state == S_CHUNK_SIZE) {
                rc = fail(p, "bad chunk size");
                break;
            } else if (c == ';' || c == ' ' || c == '\t') {
                p->digits = 0;
                p->state = S_CHUNK_EXT;
            } else if (c == '\r') {
                p->state = S_CHUNK_SIZE_LF;
            } else if (c == '\n') {
                chunk_size_done(p);
            } else {
                rc = fail(p, "bad chunk size");
                break;
            }
            i++;
            break;
        }
        case S_CHUNK_EXT:
            if (c == '\r')
                p->state = S_CHUNK_SIZE_LF;
            else if (c == '\n')
                chunk_size_done(p);
            else if (++p->digits > CHUNK_EXT_MAX) {
                rc = fail(p, "chunk extension too long");
                break;
            }
            i++;
            break;
        case S_CHUNK_SIZE_LF:
            if (c != '\n') {
                rc = fail(p, "CR without LF");
                break;
            }
            chunk_size_done(p);
            i++;
            break;
        case S_CHUNK_DATA: {
            size_t take = len - i;
            if (take > p->remaining)
                take = (size_t)p->remaining;
            if (p->sink && p->sink->body && take)
                p->sink->body(p->sink->ctx, buf + i, take);
            p->remaining -= take;
            p->body_bytes += take;
            i += take;
            if (p->remaining == 0)
                p->state = S_CHUNK_DATA_CR;
            break;
        }
        case S_CHUNK_DATA_CR:
            if (c == '\r')
                p->state = S_CHUNK_DATA_LF;
            else if (c == '\n')
                p->state = S_CHUNK_SIZE;
            else {
                rc = fail(p, "chunk data longer than its size");
                break;
            }
            i++;
            break;
        case S_CHUNK_DATA_LF:
            if (c != '\n') {
                rc = fail(p, "CR without LF");
                break;
            }
            p->state = S_CHUNK_SIZE;
            i++;
            break;
        case S_TRAILER_START:
            i++;
            if (c == '\r') {
                p->state = S_TRAILER_END_LF;
            } else if (c == '\n') {
                p->state = S_DONE;
                rc = TB_HTTP_DONE;
            } else {
                p->digits = 0;
                p->state = S_TRAILER_LINE;
            }
            break;
        case S_TRAILER_LINE:
            if (c == '\n')
                p->state = S_TRAILER_START;
            else if (++p->digits > TB_HTTP_HEADER_MAX) {
                rc = fail(p, "trailer too large");
                break;
            }
            i++;
            break;
        case S_TRAILER_END_LF:
            if (c != '\n') {
                rc = fail(p, "CR without LF");
                break;
            }
            i++;
            p->state = S_DONE;
            rc = TB_HTTP_DONE;
            break;
        default:
            rc = fail(p, "parser misuse");
            break;
        }
    }
    *used = i;
    p->fed += i;
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
