/* http_req: incremental HTTP/1.1 request head parser; see http_req.h for the
 * contract. One byte-at-a-time state machine whose whole state lives in the
 * tb_http_req struct, so a request split at any byte boundary parses exactly as
 * if it had arrived in one read. Tight inner loops cover the long runs (target,
 * header values) so the common case costs a few comparisons per byte. step
 * dispatches each state to its handler (on_*: it moves r->pos past what it
 * used); every line end goes through line_end, on_lf and end_line. */
#include "net/http_req.h"

#include <string.h>

#include "net/http_field.h"
#include "net/internal.h"

enum {
    S_START,
    S_METHOD,
    S_TARGET_START,
    S_TARGET,
    S_VERSION,
    S_RL_LF,
    S_LINE_START,
    S_NAME,
    S_OWS,
    S_VALUE,
    S_HDR_LF,
    S_END_LF,
    S_FINISHED,
};

#define VERSION_LEN 8 /* "HTTP/1.1" */

/* A byte allowed in a field value other than SP/HTAB: VCHAR or obs-text. */
static int is_value_char(uint8_t c)
{
    return c > 0x20 && c != 0x7f;
}

void tb_http_req_init(tb_http_req *r, size_t max_head)
{
    memset(r, 0, sizeof *r);
    if (max_head > UINT32_MAX)
        max_head = UINT32_MAX;
    r->max_head = max_head;
    r->max_headers = TB_HREQ_MAX_HEADERS;
}

void tb_http_req_reset(tb_http_req *r)
{
    unsigned max_headers = r->max_headers;
    tb_http_req_init(r, r->max_head);
    r->max_headers = max_headers;
}

/* Interprets the header line just finished. Returns 0 or a negative result. */
static int end_header(tb_http_req *r, const uint8_t *buf)
{
    if (++r->nheaders > r->max_headers)
        return TB_HREQ_TOO_LARGE;
    const uint8_t *name = buf + r->line_off;
    const uint8_t *val = buf + r->value_off;
    size_t vlen = r->value_end > r->value_off ? r->value_end - r->value_off : 0;
    if (tb_http_name_is(name, r->name_len, "host")) {
        if (r->has_host)
            return TB_HREQ_BAD;
        r->has_host = 1;
    } else if (tb_http_name_is(name, r->name_len, "content-length")) {
        uint64_t cl;
        if (tb_http_digits(val, vlen, 18, &cl) < 0)
            return TB_HREQ_BAD;
        if (r->has_cl && cl != r->content_length)
            return TB_HREQ_BAD;
        r->has_cl = 1;
        r->content_length = cl;
    } else if (tb_http_name_is(name, r->name_len, "transfer-encoding")) {
        return TB_HREQ_UNSUPPORTED;
    } else if (tb_http_name_is(name, r->name_len, "connection")) {
        if (tb_http_has_token(val, vlen, "close", false))
            r->conn_close = 1;
        if (tb_http_has_token(val, vlen, "keep-alive", false))
            r->conn_keep_alive = 1;
    }
    return 0;
}

static int finish(tb_http_req *r)
{
    if (r->minor == 1 && !r->has_host)
        return TB_HREQ_BAD;
    if (r->minor == 1)
        r->keep_alive = !r->conn_close;
    else
        r->keep_alive = r->conn_keep_alive && !r->conn_close;
    r->body_left = r->content_length;
    r->head_len = r->pos;
    return TB_HREQ_DONE;
}

static void set_method(tb_http_req *r, const uint8_t *buf)
{
    const uint8_t *m = buf + r->method_off;
    if (r->method_len == 3 && !memcmp(m, "GET", 3))
        r->method = TB_HREQ_GET;
    else if (r->method_len == 4 && !memcmp(m, "HEAD", 4))
        r->method = TB_HREQ_HEAD;
    else
        r->method = TB_HREQ_OTHER;
}

/* The version string "HTTP/1.x" one byte at a time; returns 0 or a result. */
static int version_byte(tb_http_req *r, uint8_t c)
{
    static const char prefix[] = "HTTP/";
    uint32_t i = r->name_len; /* reused as the index into "HTTP/1.x" */
    if (i < 5) {
        if (c != (uint8_t)prefix[i])
            return TB_HREQ_BAD;
    } else if (i == 5) {
        if (c < '0' || c > '9')
            return TB_HREQ_BAD;
        if (c != '1')
            r->minor = -1; /* remembered: valid syntax, unsupported version */
    } else if (i == 6) {
        if (c != '.')
            return TB_HREQ_BAD;
    } else if (i == 7) {
        if (c < '0' || c > '9')
            return TB_HREQ_BAD;
        if (r->minor != -1)
            r->minor = c == '0' ? 0 : c == '1' ? 1 : -1;
    } else {
        return TB_HREQ_BAD;
    }
    r->name_len = i + 1;
    return 0;
}

static int end_request_line(tb_http_req *r)
{
    if (r->name_len != VERSION_LEN)
        return TB_HREQ_BAD;
    if (r->minor < 0)
        return TB_HREQ_VERSION;
    r->name_len = 0;
    return 0;
}

/* The handlers of the states below: each is given the byte at buf[p] (p ==
 * r->pos; the bytes it may use are buf[p..end), end = min(len, max_head)),
 * moves r->pos past the bytes it used and returns 0 to go on, or a result. */

/* The line whose LF state is lf ends at the LF at buf[p]: take it (unless what
 * the line ends fails) and go where that line leads. */
static int end_line(tb_http_req *r, const uint8_t *buf, size_t p, int lf)
{
    int rc;
    if (lf == S_END_LF) { /* the blank line: the head is complete */
        r->pos = p + 1;
        r->state = S_FINISHED;
        return finish(r);
    }
    if (lf == S_HDR_LF && (rc = end_header(r, buf)) != 0)
        return rc;
    r->state = S_LINE_START;
    r->pos = p + 1;
    return 0;
}

/* buf[p] is the CR or LF that ends a line whose LF state is lf: after a CR the
 * LF must follow (state lf), a bare LF ends the line now. */
static int line_end(tb_http_req *r, const uint8_t *buf, size_t p, int lf)
{
    if (buf[p] == '\n')
        return end_line(r, buf, p, lf);
    r->state = lf;
    r->pos = p + 1;
    return 0;
}

/* S_RL_LF, S_HDR_LF, S_END_LF: a CR ended a line, the LF must follow. */
static int on_lf(tb_http_req *r, const uint8_t *buf, size_t p)
{
    if (buf[p] != '\n')
        return TB_HREQ_BAD;
    return end_line(r, buf, p, r->state);
}

/* S_START: empty lines before the request line, then the method's first byte. */
static int on_start(tb_http_req *r, const uint8_t *buf, size_t p)
{
    if (buf[p] != '\r' && buf[p] != '\n') {
        if (!tb_http_is_tchar(buf[p]))
            return TB_HREQ_BAD;
        r->method_off = (uint32_t)p;
        r->method_len = 1;
        r->state = S_METHOD;
    }
    r->pos = p + 1;
    return 0;
}

static int on_method(tb_http_req *r, const uint8_t *buf, size_t p)
{
    if (buf[p] == ' ') {
        set_method(r, buf);
        r->state = S_TARGET_START;
    } else if (!tb_http_is_tchar(buf[p]) || ++r->method_len > TB_HREQ_MAX_METHOD) {
        return TB_HREQ_BAD;
    }
    r->pos = p + 1;
    return 0;
}

static int on_target_start(tb_http_req *r, const uint8_t *buf, size_t p)
{
    if (!is_value_char(buf[p]))
        return TB_HREQ_BAD;
    r->target_off = (uint32_t)p;
    r->target_len = 1;
    r->state = S_TARGET;
    r->pos = p + 1;
    return 0;
}

/* S_TARGET: the rest of the target, as a run, up to the space before the version. */
static int on_target(tb_http_req *r, const uint8_t *buf, size_t end, size_t p)
{
    while (p < end && is_value_char(buf[p]))
        p++;
    r->target_len = (uint32_t)(p - r->target_off);
    if (p == end) {
        r->pos = p;
        return 0;
    }
    if (buf[p] != ' ')
        return TB_HREQ_BAD;
    r->name_len = 0;
    r->minor = 0;
    r->state = S_VERSION;
    r->pos = p + 1;
    return 0;
}

/* S_VERSION: "HTTP/1.x", then the request line's end. */
static int on_version(tb_http_req *r, const uint8_t *buf, size_t p)
{
    int rc;
    if (buf[p] == '\r' || buf[p] == '\n') {
        if ((rc = end_request_line(r)) != 0)
            return rc;
        return line_end(r, buf, p, S_RL_LF);
    }
    if ((rc = version_byte(r, buf[p])) != 0)
        return rc;
    r->pos = p + 1;
    return 0;
}

/* S_LINE_START: a header line, or the blank line that ends the head. */
static int on_line_start(tb_http_req *r, const uint8_t *buf, size_t p)
{
    if (buf[p] == '\r' || buf[p] == '\n')
        return line_end(r, buf, p, S_END_LF);
    if (!tb_http_is_tchar(buf[p]))
        return TB_HREQ_BAD; /* includes obs-fold (SP/HTAB) */
    r->line_off = (uint32_t)p;
    r->name_len = 1;
    r->state = S_NAME;
    r->pos = p + 1;
    return 0;
}

/* S_NAME: the rest of the field name, as a run, up to the colon. */
static int on_name(tb_http_req *r, const uint8_t *buf, size_t end, size_t p)
{
    while (p < end && buf[p] != ':' && tb_http_is_tchar(buf[p]))
        p++;
    r->name_len = (uint32_t)(p - r->line_off);
    r->pos = p;
    if (p == end)
        return 0;
    if (buf[p] != ':')
        return TB_HREQ_BAD;
    r->value_off = r->value_end = (uint32_t)(p + 1);
    r->state = S_OWS;
    r->pos = p + 1;
    return 0;
}

/* S_OWS: the blanks before a value. True when the value starts at buf[p]
 * (state S_VALUE: the byte is the value's). */
static bool value_starts(tb_http_req *r, const uint8_t *buf, size_t p)
{
    if (buf[p] == ' ' || buf[p] == '\t') {
        r->value_off = r->value_end = (uint32_t)(p + 1);
        r->pos = p + 1;
        return false;
    }
    r->state = S_VALUE;
    return true;
}

/* S_VALUE: the value, as a run (value_end follows its last non-blank byte), up
 * to the line's end. */
static int on_value(tb_http_req *r, const uint8_t *buf, size_t end, size_t p)
{
    while (p < end && (is_value_char(buf[p]) || buf[p] == ' ' || buf[p] == '\t')) {
        if (buf[p] != ' ' && buf[p] != '\t')
            r->value_end = (uint32_t)(p + 1);
        p++;
    }
    if (p == end) {
        r->pos = p;
        return 0;
    }
    if (buf[p] != '\r' && buf[p] != '\n')
        return TB_HREQ_BAD;
    return line_end(r, buf, p, S_HDR_LF);
}

/* One step of the state machine: the handler of the current state. */
static int on_byte(tb_http_req *r, const uint8_t *buf, size_t end)
{
    size_t p = r->pos;
    switch (r->state) {
    case S_START:
        return on_start(r, buf, p);
    case S_METHOD:
        return on_method(r, buf, p);
    case S_TARGET_START:
        return on_target_start(r, buf, p);
    case S_TARGET:
        return on_target(r, buf, end, p);
    case S_VERSION:
        return on_version(r, buf, p);
    case S_RL_LF:
    case S_HDR_LF:
    case S_END_LF:
        return on_lf(r, buf, p);
    case S_LINE_START:
        return on_line_start(r, buf, p);
    case S_NAME:
        return on_name(r, buf, end, p);
    case S_OWS:
        if (!value_starts(r, buf, p))
            return 0;
        /* fall through */
    case S_VALUE:
        return on_value(r, buf, end, p);
    default:
        return TB_HREQ_BAD;
    }
}

/* Runs the machine over buf[r->pos..len), never past max_head. */
static int step(tb_http_req *r, const uint8_t *buf, size_t len)
{
    size_t end = len < r->max_head ? len : r->max_head;
    while (r->pos < end) {
        int rc = on_byte(r, buf, end);
        if (rc != 0)
            return rc;
    }
    if (r->pos >= r->max_head)
        return TB_HREQ_TOO_LARGE;
    return TB_HREQ_MORE;
}

int tb_http_req_parse(tb_http_req *r, const uint8_t *buf, size_t len)
{
    if (r->result != TB_HREQ_MORE)
        return r->result;
    r->result = step(r, buf, len);
    return r->result;
}

size_t tb_http_req_skip_body(tb_http_req *r, size_t avail)
{
    size_t n = avail < r->body_left ? avail : (size_t)r->body_left;
    r->body_left -= n;
    return n;
}

int tb_http_req_method_is(const tb_http_req *r, const uint8_t *buf, const char *m)
{
    size_t n = strlen(m);
    return r->method_len == n && !memcmp(buf + r->method_off, m, n);
}

void tb_http_req_split_target(const tb_http_req *r, const uint8_t *buf, const char **path,
                              size_t *path_len, const char **query, size_t *query_len)
{
    const char *t = (const char *)buf + r->target_off;
    const char *q = memchr(t, '?', r->target_len);
    *path = t;
    if (q) {
        *path_len = (size_t)(q - t);
        *query = q + 1;
        *query_len = r->target_len - *path_len - 1;
    } else {
        *path_len = r->target_len;
        *query = NULL;
        *query_len = 0;
    }
}

unsigned tb_http_req_header(const tb_http_req *r, const uint8_t *buf, const char *name,
                            const char **val, size_t *val_len)
{
    /* The head was validated: lines end in LF (maybe after CR), field lines are
     * "name:value" with a token name; the request line is the first non-empty one. */
    size_t nlen = strlen(name), i = 0, end = r->head_len;
    unsigned found = 0;
    int seen_request_line = 0;
    while (i < end) {
        const uint8_t *nl = memchr(buf + i, '\n', end - i);
        size_t e = nl ? (size_t)(nl - buf) : end, le = e;
        if (le > i && buf[le - 1] == '\r')
            le--;
        if (le == i) { /* empty line: leading ones are skipped, the last ends the head */
            if (seen_request_line)
                break;
        } else if (!seen_request_line) {
            seen_request_line = 1;
        } else if (le - i > nlen && buf[i + nlen] == ':' && tb_http_name_is(buf + i, nlen, name)) {
            size_t vs = i + nlen + 1, ve = le;
            while (vs < ve && (buf[vs] == ' ' || buf[vs] == '\t'))
                vs++;
            while (ve > vs && (buf[ve - 1] == ' ' || buf[ve - 1] == '\t'))
                ve--;
            if (!found++) {
                *val = (const char *)buf + vs;
                *val_len = ve - vs;
            }
        }
        i = e + 1;
    }
    return found;
}

int tb_http_query_get(const char *query, size_t query_len, const char *key, const char **val,
                      size_t *val_len)
{
    size_t klen = strlen(key), i = 0;
    while (query && i <= query_len) {
        size_t start = i;
        while (i < query_len && query[i] != '&')
            i++;
        const char *pair = query + start;
        size_t plen = i - start;
        if (plen >= klen && !memcmp(pair, key, klen) && (plen == klen || pair[klen] == '=')) {
            *val = plen == klen ? pair + plen : pair + klen + 1;
            *val_len = plen == klen ? 0 : plen - klen - 1;
            return 1;
        }
        i++;
    }
    return 0;
}
