/* notary/proto: parsers for the notary's HTTP requests, JSON bodies and the
 * framing of target responses (see proto.h). No I/O, no global state. */
#include "notary/proto.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "notary/codec.h"
#include "base/hex.h"
#include "net/http_field.h"

/* Finds "\r\n\r\n" in p[0..len); returns the offset after it, or 0. */
static size_t head_end(const uint8_t *p, size_t len)
{
    for (size_t i = 3; i < len; i++)
        if (p[i] == '\n' && p[i - 1] == '\r' && p[i - 2] == '\n' && p[i - 3] == '\r')
            return i + 1;
    return 0;
}

/* A line p[0..n) (without CRLF) is "Name: value"; splits it. */
static int split_header(const uint8_t *p, size_t n, size_t *name_len, const uint8_t **val,
                        size_t *val_len)
{
    size_t i = 0;
    while (i < n && tb_http_is_tchar(p[i]))
        i++;
    if (i == 0 || i == n || p[i] != ':')
        return -1;
    *name_len = i;
    i++;
    while (i < n && (p[i] == ' ' || p[i] == '\t'))
        i++;
    size_t e = n;
    while (e > i && (p[e - 1] == ' ' || p[e - 1] == '\t'))
        e--;
    for (size_t k = i; k < e; k++)
        if ((p[k] < 0x20 && p[k] != '\t') || p[k] == 0x7f)
            return -1;
    *val = p + i;
    *val_len = e - i;
    return 0;
}

static int refuse(int *status, int code, tb_err *err, const char *msg)
{
    *status = code;
    return tb_errf(err, "%s", msg);
}

static int parse_request_line(const uint8_t *p, size_t n, tb_nreq *req, int *status, tb_err *err)
{
    size_t i = 0;
    while (i < n && tb_http_is_tchar(p[i]))
        i++;
    if (i == 0 || i >= sizeof req->method || i == n || p[i] != ' ')
        return refuse(status, 400, err, "malformed request line");
    memcpy(req->method, p, i);
    req->method[i] = 0;
    size_t t = ++i;
    while (i < n && p[i] > 0x20 && p[i] < 0x7f)
        i++;
    if (i == t || p[t] != '/' || i == n || p[i] != ' ')
        return refuse(status, 400, err, "malformed request target");
    size_t tlen = i - t;
    const uint8_t *q = memchr(p + t, '?', tlen);
    size_t plen = q ? (size_t)(q - (p + t)) : tlen;
    size_t qlen = q ? tlen - plen - 1 : 0;
    if (plen >= sizeof req->path || qlen >= sizeof req->query)
        return refuse(status, 414, err, "request target too long");
    memcpy(req->path, p + t, plen);
    req->path[plen] = 0;
    if (q)
        memcpy(req->query, q + 1, qlen);
    req->query[qlen] = 0;
    i++;
    if (n - i != 8 || memcmp(p + i, "HTTP/1.", 7))
        return refuse(status, 400, err, "malformed HTTP version");
    if (p[i + 7] != '1' && p[i + 7] != '0')
        return refuse(status, 505, err, "unsupported HTTP version");
    req->keep_alive = p[i + 7] == '1';
    return 0;
}

int tb_nreq_parse(const uint8_t *p, size_t len, size_t max_body, tb_nreq *req, int *status,
                  tb_err *err)
{
    memset(req, 0, sizeof *req);
    *status = 0;
    size_t scan = len < TB_NREQ_MAX_HEAD ? len : TB_NREQ_MAX_HEAD;
    size_t end = head_end(p, scan);
    if (!end) {
        for (size_t i = 0; i < scan; i++)
            if (p[i] == 0)
                return refuse(status, 400, err, "NUL byte in the request head");
        if (len >= TB_NREQ_MAX_HEAD)
            return refuse(status, 431, err, "request head larger than 8192 bytes");
        return 0;
    }
    req->head_len = end;
    size_t pos = 0, nheaders = 0;
    int have_len = 0;
    for (int line = 0;; line++) {
        const uint8_t *eol = memchr(p + pos, '\n', end - pos);
        size_t n = (size_t)(eol - (p + pos));
        if (n == 0 || p[pos + n - 1] != '\r')
            return refuse(status, 400, err, "line not ended by CRLF");
        n--;
        if (memchr(p + pos, '\r', n) || memchr(p + pos, 0, n))
            return refuse(status, 400, err, "stray CR or NUL in the request head");
        if (n == 0)
            break; /* the blank line */
        if (line == 0) {
            if (parse_request_line(p + pos, n, req, status, err) < 0)
                return -1;
        } else {
            if (++nheaders > TB_NREQ_MAX_HEADERS)
                return refuse(status, 431, err, "more than 32 request headers");
            size_t nl, vl;
            const uint8_t *v;
            if (split_header(p + pos, n, &nl, &v, &vl) < 0)
                return refuse(status, 400, err, "malformed header line");
            if (tb_http_name_is(p + pos, nl, "Transfer-Encoding"))
                return refuse(status, 501, err,
                              "Transfer-Encoding is not supported (send Content-Length)");
            if (tb_http_name_is(p + pos, nl, "Connection")) {
                if (tb_http_has_token(v, vl, "close", false))
                    req->keep_alive = 0;
                else if (tb_http_has_token(v, vl, "keep-alive", false))
                    req->keep_alive = 1;
            }
            if (tb_http_name_is(p + pos, nl, "Content-Length")) {
                uint64_t cl;
                if (tb_http_digits(v, vl, 15, &cl) < 0)
                    return refuse(status, 400, err, "bad Content-Length");
                if (have_len && cl != req->content_length)
                    return refuse(status, 400, err, "conflicting Content-Length headers");
                have_len = 1;
                req->content_length = cl;
            }
        }
        pos += n + 2;
    }
    if (req->content_length > max_body) {
        *status = 413;
        return tb_errf(err, "request body of %zu bytes is larger than the limit of %zu bytes",
                       req->content_length, max_body);
    }
    return 1;
}

int tb_nreq_query(const char *query, const char *name, char *out, size_t cap)
{
    size_t nl = strlen(name);
    const char *s = query;
    while (*s) {
        const char *amp = strchr(s, '&');
        size_t plen = amp ? (size_t)(amp - s) : strlen(s);
        if (plen > nl && !strncmp(s, name, nl) && s[nl] == '=') {
            size_t vl = plen - nl - 1;
            if (vl >= cap)
                return -1;
            memcpy(out, s + nl + 1, vl);
            out[vl] = 0;
            return 0;
        }
        if (!amp)
            break;
        s = amp + 1;
    }
    return -1;
}

/* ---------------------------------------------------------------- JSON bodies */

static json_t *load_object(const char *body, size_t len, tb_err *err)
{
    json_error_t je;
    json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        tb_errf(err, "body is not valid JSON: %s", je.text);
        return NULL;
    }
    if (!json_is_object(root)) {
        json_decref(root);
        tb_errf(err, "body must be a JSON object");
        return NULL;
    }
    return root;
}

static int get_count(json_t *o, const char *key, uint64_t *out, tb_err *err)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) <= 0 ||
        json_integer_value(v) > (json_int_t)1 << 40)
        return tb_errf(err, "%s must be a positive integer", key);
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

int tb_session_req_parse(const char *body, size_t len, tb_session_req *out, tb_err *err)
{
    memset(out, 0, sizeof *out);
    json_t *o = load_object(body, len, err);
    if (!o)
        return -1;
    int rc = -1;
    if (get_count(o, "maxSentData", &out->max_sent, err) < 0 ||
        get_count(o, "maxRecvData", &out->max_recv, err) < 0)
        goto out;
    json_t *t = json_object_get(o, "teeAttestation");
    if (t && !json_is_boolean(t)) {
        tb_errf(err, "teeAttestation must be true or false");
        goto out;
    }
    out->tee = t && json_is_true(t);
    json_t *n = json_object_get(o, "nonce");
    if (n) {
        const char *s = json_string_value(n);
        size_t sl = s ? json_string_length(n) : 0;
        long got = s && sl >= 2 ? tb_hex_decode_upto(s, sl, out->nonce, sizeof out->nonce) : -1;
        if (got < 1) {
            tb_errf(err, "nonce must be hex of 1 to 64 bytes");
            goto out;
        }
        out->nonce_len = (size_t)got;
    }
    rc = 0;
out:
    json_decref(o);
    return rc;
}

int tb_dns_name_valid(const char *s)
{
    size_t n = strlen(s), label = 0;
    if (n < 1 || n > 253)
        return 0;
    for (size_t i = 0; i <= n; i++) {
        char c = s[i];
        if (c == '.' || c == 0) {
            if (label == 0 || s[i - 1] == '-')
                return 0;
            label = 0;
            continue;
        }
        if (!(isalnum((unsigned char)c) || c == '-') || (label == 0 && c == '-') || ++label > 63)
            return 0;
    }
    return 1;
}

static int get_str(json_t *o, const char *key, char *out, size_t cap, tb_err *err)
{
    json_t *v = json_object_get(o, key);
    const char *s = json_string_value(v);
    if (!s)
        return tb_errf(err, "%s must be a string", key);
    size_t n = json_string_length(v);
    if (n < 1 || n >= cap)
        return tb_errf(err, "%s must be 1 to %zu bytes", key, cap - 1);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e)
            return tb_errf(err, "%s must be printable ASCII without spaces", key);
    memcpy(out, s, n);
    out[n] = 0;
    return 0;
}

int tb_notarize_req_parse(const char *body, size_t len, tb_notarize_req *out, tb_err *err)
{
    memset(out, 0, sizeof *out);
    json_t *o = load_object(body, len, err);
    if (!o)
        return -1;
    int rc = -1;
    if (get_str(o, "host", out->host, sizeof out->host, err) < 0 ||
        get_str(o, "serverName", out->server_name, sizeof out->server_name, err) < 0)
        goto out;
    if (!tb_dns_name_valid(out->server_name)) {
        tb_errf(err, "serverName '%s' is not a DNS host name", out->server_name);
        goto out;
    }
    json_t *port = json_object_get(o, "port");
    if (!json_is_integer(port) || json_integer_value(port) < 1 ||
        json_integer_value(port) > 65535) {
        tb_errf(err, "port must be an integer 1..65535");
        goto out;
    }
    out->port = (uint16_t)json_integer_value(port);
    json_t *r = json_object_get(o, "request");
    const char *s = json_string_value(r);
    if (!s || json_string_length(r) == 0 ||
        tb_notary_unb64_append(&out->request, s, json_string_length(r)) < 0) {
        tb_errf(err, "request must be non-empty base64");
        goto out;
    }
    rc = 0;
out:
    json_decref(o);
    if (rc < 0)
        tb_notarize_req_free(out);
    return rc;
}

void tb_notarize_req_free(tb_notarize_req *r)
{
    tb_buf_free(&r->request);
}

/* ------------------------------------------------------- response framing */

/* Parses a chunked body starting at p[pos..len). Returns 1 with *total, 0 or -1. */
static int chunked_end(const uint8_t *p, size_t len, size_t pos, size_t *total, tb_err *err)
{
    for (;;) {
        const uint8_t *eol = memchr(p + pos, '\n', len - pos);
        if (!eol)
            return len - pos > 1024 ? tb_errf(err, "chunk size line too long") : 0;
        size_t n = (size_t)(eol - (p + pos));
        if (n == 0 || p[pos + n - 1] != '\r')
            return tb_errf(err, "chunk size line not ended by CRLF");
        size_t size = 0, digits = 0, i = pos;
        for (; i < pos + n - 1; i++) {
            int d = tb_hex_val(p[i]);
            if (d < 0)
                break;
            if (++digits > 12)
                return tb_errf(err, "chunk size too large");
            size = size * 16 + (size_t)d;
        }
        if (digits == 0 || (i < pos + n - 1 && p[i] != ';' && p[i] != ' ' && p[i] != '\t'))
            return tb_errf(err, "bad chunk size");
        pos += n + 1;
        if (size == 0) {
            /* trailers, then the blank line */
            for (;;) {
                const uint8_t *e2 = memchr(p + pos, '\n', len - pos);
                if (!e2)
                    return 0;
                size_t m = (size_t)(e2 - (p + pos));
                if (m == 0 || p[pos + m - 1] != '\r')
                    return tb_errf(err, "trailer line not ended by CRLF");
                pos += m + 1;
                if (m == 1) {
                    *total = pos;
                    return 1;
                }
            }
        }
        if (len - pos < size + 2)
            return 0;
        if (p[pos + size] != '\r' || p[pos + size + 1] != '\n')
            return tb_errf(err, "chunk data not followed by CRLF");
        pos += size + 2;
    }
}

/* Parses one response head at p[start..). Returns 1 and fills the framing, 0, -1. */
static int response_head(const uint8_t *p, size_t len, size_t start, size_t *body_start, int *code,
                         int *chunked, int *has_len, size_t *clen, tb_err *err)
{
    size_t end = head_end(p + start, len - start);
    if (!end)
        return len - start > 65536 ? tb_errf(err, "response head larger than 65536 bytes") : 0;
    end += start;
    *body_start = end;
    *chunked = *has_len = 0;
    size_t pos = start;
    for (int line = 0;; line++) {
        const uint8_t *eol = memchr(p + pos, '\n', end - pos);
        size_t n = (size_t)(eol - (p + pos));
        if (n == 0 || p[pos + n - 1] != '\r')
            return tb_errf(err, "response line not ended by CRLF");
        n--;
        if (n == 0)
            break;
        if (line == 0) {
            if (n < 12 || memcmp(p + pos, "HTTP/1.", 7) || p[pos + 8] != ' ' ||
                !isdigit(p[pos + 9]) || !isdigit(p[pos + 10]) || !isdigit(p[pos + 11]) ||
                (n > 12 && p[pos + 12] != ' '))
                return tb_errf(err, "malformed status line");
            *code = (p[pos + 9] - '0') * 100 + (p[pos + 10] - '0') * 10 + (p[pos + 11] - '0');
        } else {
            size_t nl, vl;
            const uint8_t *v;
            if (split_header(p + pos, n, &nl, &v, &vl) < 0)
                return tb_errf(err, "malformed response header");
            if (tb_http_name_is(p + pos, nl, "Transfer-Encoding")) {
                *chunked = tb_http_has_token(v, vl, "chunked", true);
                if (!*chunked)
                    return tb_errf(err, "unsupported Transfer-Encoding");
            } else if (tb_http_name_is(p + pos, nl, "Content-Length")) {
                uint64_t cl;
                if (tb_http_digits(v, vl, 15, &cl) < 0 || (*has_len && cl != *clen))
                    return tb_errf(err, "bad Content-Length in the response");
                *has_len = 1;
                *clen = cl;
            }
        }
        pos += n + 2;
    }
    return 1;
}

int tb_http_response_complete(const uint8_t *p, size_t len, int eof, int no_body, size_t *total,
                              tb_err *err)
{
    size_t start = 0;
    for (int interim = 0;; interim++) {
        size_t body = 0, clen = 0;
        int code = 0, chunked = 0, has_len = 0;
        int r = response_head(p, len, start, &body, &code, &chunked, &has_len, &clen, err);
        if (r < 0)
            return -1;
        if (r == 0)
            return eof ? tb_errf(err, "connection closed inside the response head") : 0;
        if (code >= 100 && code < 200 && code != 101) {
            if (interim >= 8)
                return tb_errf(err, "too many interim (1xx) responses");
            start = body;
            continue;
        }
        if (no_body || code == 204 || code == 304 || code == 101) {
            *total = body;
            return 1;
        }
        if (chunked) {
            r = chunked_end(p, len, body, total, err);
            if (r == 0 && eof)
                return tb_errf(err, "connection closed inside a chunked body");
            return r;
        }
        if (has_len) {
            if (len - body >= clen) {
                *total = body + clen;
                return 1;
            }
            return eof ? tb_errf(err, "connection closed after %zu of %zu body bytes", len - body,
                                 clen)
                       : 0;
        }
        if (eof) {
            *total = len;
            return 1;
        }
        return 0;
    }
}
