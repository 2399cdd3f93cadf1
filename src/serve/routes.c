/* routes: prebuilt responses and request routing; see routes.h.
 * Every response is "HTTP/1.1 <code> <reason>", Server, Content-Type,
 * Content-Length, the connection variant's line, a blank line, then the body.
 * Only /bytes builds its head per request, with snprintf into the caller's
 * scratch buffer (no allocation); its body is sent from one shared 'B' block. */
#include "serve/routes.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "net/http_field.h"
#include "serve/fixture.h"

static const char *const route_names[TB_ROUTE_COUNT] = {
    "/",
    "/formats/json?size=1",
    "/formats/json?size=4",
    "/formats/json?size=8",
    "/formats/html",
    "/bytes",
    "other",
    "malformed",
};

static const int status_codes[TB_ST_COUNT] = {200, 400, 404, 405, 431, 505};

const char *tb_route_name(int route)
{
    return route >= 0 && route < TB_ROUTE_COUNT ? route_names[route] : "?";
}

int tb_status_code(int status_ix)
{
    return status_ix >= 0 && status_ix < TB_ST_COUNT ? status_codes[status_ix] : 0;
}

void tb_counts_merge(tb_counts *into, const tb_counts *from)
{
    for (int r = 0; r < TB_ROUTE_COUNT; r++)
        for (int s = 0; s < TB_ST_COUNT; s++)
            into->n[r][s] += from->n[r][s];
}

uint64_t tb_counts_total(const tb_counts *c)
{
    uint64_t t = 0;
    for (int r = 0; r < TB_ROUTE_COUNT; r++)
        for (int s = 0; s < TB_ST_COUNT; s++)
            t += c->n[r][s];
    return t;
}

static const char *const conn_lines[TB_CONN_VARIANTS] = {
    "",
    "Connection: keep-alive\r\n",
    "Connection: close\r\n",
};

static const char *reason(int status_ix)
{
    static const char *const r[TB_ST_COUNT] = {"OK",
                                               "Bad Request",
                                               "Not Found",
                                               "Method Not Allowed",
                                               "Request Header Fields Too Large",
                                               "HTTP Version Not Supported"};
    return r[status_ix];
}

/* Appends one response; records its offset and lengths in off[]/len[]/head[]. */
static int append_resp(tb_buf *b, int status_ix, const char *type, const char *extra,
                       const void *body, size_t body_len, int variant, size_t *off,
                       size_t *head_len)
{
    *off = b->len;
    if (tb_buf_printf(b,
                      "HTTP/1.1 %d %s\r\nServer: teebench\r\nContent-Type: %s\r\n"
                      "Content-Length: %zu\r\n%s%s\r\n",
                      status_codes[status_ix], reason(status_ix), type, body_len, extra,
                      conn_lines[variant]) < 0)
        return -1;
    *head_len = b->len - *off;
    return tb_buf_append(b, body, body_len);
}

struct resp_spec {
    int status_ix;
    const char *type;
    const char *extra;
    const char *text; /* a text body, or NULL for doc */
    tb_blob doc;
};

static int build_specs(struct resp_spec *sp, tb_buf docs[3], uint64_t cap, char *too_big,
                       size_t too_big_len, tb_err *err)
{
    static const char *const names[3] = {"1kb.json", "4kb.json", "8kb.json"};
    const char *html = "text/html", *json = "application/json", *text = "text/plain";
    for (int i = 0; i < 3; i++) {
        tb_blob raw;
        if (tb_fixture_doc(names[i], &raw, err) < 0 ||
            tb_fixture_compact_json(raw.p, raw.len, &docs[i], err) < 0)
            return tb_err_wrap(err, "fixture %s", names[i]);
        sp[TB_RESP_JSON1 + i] =
            (struct resp_spec){TB_ST_200, json, "", NULL, (tb_blob){docs[i].p, docs[i].len}};
    }
    tb_blob page;
    if (tb_fixture_doc("4kb.html", &page, err) < 0)
        return -1;
    sp[TB_RESP_ROOT] = (struct resp_spec){TB_ST_200, html, "", NULL, tb_fixture_welcome()};
    sp[TB_RESP_HTML] = (struct resp_spec){TB_ST_200, html, "", NULL, page};
    snprintf(too_big, too_big_len, "bad request: /bytes size above the cap of %" PRIu64 " bytes\n",
             cap);
    sp[TB_RESP_NOT_FOUND] = (struct resp_spec){TB_ST_404, text, "", "not found\n", {0}};
    sp[TB_RESP_METHOD] = (struct resp_spec){
        TB_ST_405, text, "Allow: GET, HEAD\r\n", "method not allowed (GET and HEAD only)\n", {0}};
    sp[TB_RESP_BYTES_BAD_SIZE] =
        (struct resp_spec){TB_ST_400,
                           text,
                           "",
                           "bad request: /bytes needs size=N, N a decimal number of bytes\n",
                           {0}};
    sp[TB_RESP_BYTES_TOO_BIG] = (struct resp_spec){TB_ST_400, text, "", too_big, {0}};
    sp[TB_RESP_BAD_REQUEST] =
        (struct resp_spec){TB_ST_400, text, "", "bad request: malformed HTTP request\n", {0}};
    sp[TB_RESP_TOO_LARGE] =
        (struct resp_spec){TB_ST_431, text, "", "request header fields too large\n", {0}};
    sp[TB_RESP_VERSION] =
        (struct resp_spec){TB_ST_505, text, "", "HTTP version not supported\n", {0}};
    return 0;
}

int tb_site_init(tb_site *s, uint64_t bytes_cap, tb_err *err)
{
    memset(s, 0, sizeof *s);
    s->bytes_cap = bytes_cap;
    struct resp_spec sp[TB_RESP_COUNT];
    tb_buf docs[3] = {{0}};
    tb_buf store = {0};
    char too_big[128];
    size_t off[TB_RESP_COUNT][TB_CONN_VARIANTS], head[TB_RESP_COUNT][TB_CONN_VARIANTS];
    int rc = build_specs(sp, docs, bytes_cap, too_big, sizeof too_big, err);
    for (int i = 0; rc == 0 && i < TB_RESP_COUNT; i++) {
        const void *body = sp[i].text ? (const void *)sp[i].text : (const void *)sp[i].doc.p;
        size_t blen = sp[i].text ? strlen(sp[i].text) : sp[i].doc.len;
        for (int v = 0; rc == 0 && v < TB_CONN_VARIANTS; v++)
            if (append_resp(&store, sp[i].status_ix, sp[i].type, sp[i].extra, body, blen, v,
                            &off[i][v], &head[i][v]) < 0)
                rc = tb_errf(err, "building responses: out of memory");
    }
    for (int i = 0; i < 3; i++)
        tb_buf_clear(&docs[i]);
    if (rc == 0 && !(s->fill = malloc(TB_FILL_LEN)))
        rc = tb_errf(err, "building responses: out of memory");
    if (rc < 0) {
        tb_buf_clear(&store);
        return -1;
    }
    memset(s->fill, 'B', TB_FILL_LEN);
    s->store = store.p; /* ownership moves to the site */
    for (int i = 0; i < TB_RESP_COUNT; i++) {
        for (int v = 0; v < TB_CONN_VARIANTS; v++) {
            size_t end = (v + 1 < TB_CONN_VARIANTS) ? off[i][v + 1]
                         : (i + 1 < TB_RESP_COUNT)  ? off[i + 1][0]
                                                    : store.len;
            s->resp[i][v] = (tb_resp){s->store + off[i][v], end - off[i][v], head[i][v]};
        }
    }
    return 0;
}

void tb_site_clear(tb_site *s)
{
    free(s->store);
    free(s->fill);
    memset(s, 0, sizeof *s);
}

static int path_is(const char *p, size_t n, const char *want)
{
    return strlen(want) == n && !memcmp(p, want, n);
}

static int status_of(int resp_id)
{
    switch (resp_id) {
    case TB_RESP_NOT_FOUND:
        return TB_ST_404;
    case TB_RESP_METHOD:
        return TB_ST_405;
    case TB_RESP_BYTES_BAD_SIZE:
    case TB_RESP_BYTES_TOO_BIG:
    case TB_RESP_BAD_REQUEST:
        return TB_ST_400;
    case TB_RESP_TOO_LARGE:
        return TB_ST_431;
    case TB_RESP_VERSION:
        return TB_ST_505;
    default:
        return TB_ST_200;
    }
}

static void set_prebuilt(const tb_site *s, int resp_id, int variant, int head_only, tb_reply *out)
{
    const tb_resp *rp = &s->resp[resp_id][variant];
    out->status = status_of(resp_id);
    out->head = rp->p;
    out->head_len = head_only ? rp->head_len : rp->len;
    out->fill_len = 0;
    out->close = variant == TB_CONN_CLOSE;
}

/* /bytes?size=N: a head built into scratch, then N bytes of fill. */
static void answer_bytes(const tb_site *s, const char *q, size_t qlen, int variant, int head_only,
                         char *scratch, tb_reply *out)
{
    const char *v;
    size_t vlen;
    uint64_t n;
    if (!tb_http_query_get(q, qlen, "size", &v, &vlen) || tb_http_digits(v, vlen, 18, &n) < 0) {
        set_prebuilt(s, TB_RESP_BYTES_BAD_SIZE, variant, head_only, out);
        return;
    }
    if (n > s->bytes_cap) {
        set_prebuilt(s, TB_RESP_BYTES_TOO_BIG, variant, head_only, out);
        return;
    }
    int len = snprintf(scratch, TB_REPLY_SCRATCH,
                       "HTTP/1.1 200 OK\r\nServer: teebench\r\nContent-Type: "
                       "application/octet-stream\r\nContent-Length: %" PRIu64 "\r\n%s\r\n",
                       n, conn_lines[variant]);
    out->status = TB_ST_200;
    out->head = (const uint8_t *)scratch;
    out->head_len = (size_t)len;
    out->fill_len = head_only ? 0 : n;
    out->close = variant == TB_CONN_CLOSE;
}

void tb_site_answer(const tb_site *s, const tb_http_req *r, const uint8_t *buf, char *scratch,
                    tb_reply *out)
{
    const char *path, *q, *v;
    size_t plen, qlen, vlen;
    int variant = !r->keep_alive ? TB_CONN_CLOSE : r->minor == 0 ? TB_CONN_KA10 : TB_CONN_KA11;
    int head_only = r->method == TB_HREQ_HEAD;
    int resp = TB_RESP_NOT_FOUND;
    tb_http_req_split_target(r, buf, &path, &plen, &q, &qlen);
    out->route = TB_ROUTE_OTHER;
    if (path_is(path, plen, "/")) {
        out->route = TB_ROUTE_ROOT;
        resp = TB_RESP_ROOT;
    } else if (path_is(path, plen, "/formats/json")) {
        if (tb_http_query_get(q, qlen, "size", &v, &vlen) && vlen == 1 &&
            (v[0] == '1' || v[0] == '4' || v[0] == '8')) {
            int k = v[0] == '1' ? 0 : v[0] == '4' ? 1 : 2;
            out->route = TB_ROUTE_JSON1 + k;
            resp = TB_RESP_JSON1 + k;
        }
    } else if (path_is(path, plen, "/formats/html")) {
        out->route = TB_ROUTE_HTML;
        resp = TB_RESP_HTML;
    } else if (path_is(path, plen, "/bytes")) {
        out->route = TB_ROUTE_BYTES;
        if (r->method != TB_HREQ_OTHER) {
            answer_bytes(s, q, qlen, variant, head_only, scratch, out);
            return;
        }
    }
    if (r->method == TB_HREQ_OTHER)
        resp = TB_RESP_METHOD;
    set_prebuilt(s, resp, variant, head_only, out);
}

void tb_site_answer_error(const tb_site *s, int result, tb_reply *out)
{
    int resp = result == TB_HREQ_TOO_LARGE ? TB_RESP_TOO_LARGE
               : result == TB_HREQ_VERSION ? TB_RESP_VERSION
                                           : TB_RESP_BAD_REQUEST;
    out->route = TB_ROUTE_MALFORMED;
    set_prebuilt(s, resp, TB_CONN_CLOSE, 0, out);
}
