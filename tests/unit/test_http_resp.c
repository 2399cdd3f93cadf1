/* Unit tests for src/net/http_resp: framing by Content-Length, chunked and
 * close, keep-alive rules, interim responses, errors, and every split point. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "net/http_resp.h"

struct want {
    int status;
    bool keep_alive;
    uint64_t body;
    bool needs_eof; /* close-delimited */
};

/* Feeds msg in pieces [0,k) and [k,n) and checks the result, for every k. Also
 * byte by byte. Bytes after the response (extra) must be left unused. */
static void check_all_splits(const char *msg, size_t extra, struct want w)
{
    size_t n = strlen(msg);
    size_t end = n - extra;
    for (size_t k = 0; k <= n; k++) {
        tb_http_resp p;
        tb_http_resp_init(&p);
        size_t used = 0, total = 0;
        int rc = tb_http_resp_feed(&p, (const uint8_t *)msg, k, &used);
        total += used;
        if (rc == TB_HTTP_MORE) {
            assert_int_equal(used, k);
            rc = tb_http_resp_feed(&p, (const uint8_t *)msg + k, n - k, &used);
            total += used;
        }
        if (w.needs_eof) {
            assert_int_equal(rc, TB_HTTP_MORE);
            assert_int_equal(tb_http_resp_eof(&p), TB_HTTP_DONE);
        } else {
            assert_int_equal(rc, TB_HTTP_DONE);
        }
        assert_int_equal(total, end);
        assert_int_equal(p.status, w.status);
        assert_int_equal(p.keep_alive, w.keep_alive);
        assert_int_equal(p.body_bytes, w.body);
    }
    tb_http_resp p;
    tb_http_resp_init(&p);
    size_t used, total = 0;
    int rc = TB_HTTP_MORE;
    for (size_t i = 0; i < n && rc == TB_HTTP_MORE; i++) {
        rc = tb_http_resp_feed(&p, (const uint8_t *)msg + i, 1, &used);
        total += used;
    }
    if (w.needs_eof)
        rc = tb_http_resp_eof(&p);
    assert_int_equal(rc, TB_HTTP_DONE);
    assert_int_equal(total, end);
    assert_int_equal(p.body_bytes, w.body);
}

static void test_content_length(void **state)
{
    (void)state;
    check_all_splits("HTTP/1.1 200 OK\r\nServer: x\r\nContent-Length: 5\r\n\r\nhello", 0,
                     (struct want){200, true, 5, false});
    /* a following response's bytes are not consumed */
    check_all_splits("HTTP/1.1 200 OK\r\ncontent-length:3\r\n\r\nabcHTTP/1.1 200", 12,
                     (struct want){200, true, 3, false});
    check_all_splits("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", 0,
                     (struct want){404, true, 0, false});
}

static void test_chunked(void **state)
{
    (void)state;
    check_all_splits("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                     "5\r\nhello\r\n1a;ext=1\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\n\r\n",
                     0, (struct want){200, true, 31, false});
    check_all_splits("HTTP/1.1 200 OK\r\nTRANSFER-ENCODING:  gzip, chunked \r\n\r\n"
                     "A\r\n0123456789\r\n0\r\nX-Trailer: 1\r\n\r\nNEXT",
                     4, (struct want){200, true, 10, false});
    /* chunked wins over Content-Length, in either order; the connection is not
     * reused after such a message (RFC 9112 section 6.3) */
    check_all_splits("HTTP/1.1 200 OK\r\nContent-Length: 99\r\nTransfer-Encoding: chunked\r\n\r\n"
                     "3\r\nabc\r\n0\r\n\r\n",
                     0, (struct want){200, false, 3, false});
    check_all_splits("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 99\r\n\r\n"
                     "3\r\nabc\r\n0\r\n\r\n",
                     0, (struct want){200, false, 3, false});
    /* several Transfer-Encoding lines form one list: the last coding decides */
    check_all_splits("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n"
                     "\r\n2\r\nab\r\n0\r\n\r\n",
                     0, (struct want){200, true, 2, false});
    /* "xchunked" is not chunked: a whole element must match */
    check_all_splits("HTTP/1.1 200 OK\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n", 0,
                     (struct want){200, false, 5, true});
}

/* A Transfer-Encoding other than chunked: the body runs to the end of the
 * connection whatever the order of it and Content-Length (there was a bug:
 * Content-Length after Transfer-Encoding framed the body by length). */
static void test_other_coding_order(void **state)
{
    (void)state;
    check_all_splits("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: 2\r\n\r\n"
                     "abcdef",
                     0, (struct want){200, false, 6, true});
    check_all_splits("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: gzip\r\n\r\n"
                     "abcdef",
                     0, (struct want){200, false, 6, true});
    check_all_splits("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\nxyz", 0,
                     (struct want){200, false, 3, true});
    /* an empty Transfer-Encoding line adds no coding */
    check_all_splits("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: \r\n"
                     "\r\n0\r\n\r\n",
                     0, (struct want){200, true, 0, false});
}

/* HEAD responses end after the headers; 101 ends the HTTP stream. */
static void test_head_and_switching(void **state)
{
    (void)state;
    const char *m = "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nHTTP/1.1 200";
    for (size_t k = 0; k <= strlen(m); k++) {
        tb_http_resp p;
        tb_http_resp_init(&p);
        p.head = true;
        size_t used = 0, total = 0;
        int rc = tb_http_resp_feed(&p, (const uint8_t *)m, k, &used);
        total += used;
        if (rc == TB_HTTP_MORE) {
            rc = tb_http_resp_feed(&p, (const uint8_t *)m + k, strlen(m) - k, &used);
            total += used;
        }
        assert_int_equal(rc, TB_HTTP_DONE);
        assert_int_equal(total, strlen(m) - 12);
        assert_int_equal(p.body_bytes, 0);
        assert_true(p.keep_alive);
    }
    /* HEAD survives an interim response */
    tb_http_resp p;
    tb_http_resp_init(&p);
    p.head = true;
    size_t used;
    const char *i = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n";
    assert_int_equal(tb_http_resp_feed(&p, (const uint8_t *)i, strlen(i), &used), TB_HTTP_DONE);
    assert_int_equal(used, strlen(i));
    check_all_splits("HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n\x01\x02", 2,
                     (struct want){101, false, 0, false});
}

static void test_close_and_keepalive(void **state)
{
    (void)state;
    check_all_splits("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nhi", 0,
                     (struct want){200, false, 2, false});
    check_all_splits("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nhi", 0,
                     (struct want){200, false, 2, false});
    check_all_splits("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nhi", 0,
                     (struct want){200, true, 2, false});
    /* no length: the body runs to the end of the connection */
    check_all_splits("HTTP/1.1 200 OK\r\nServer: y\r\n\r\nuntil the end", 0,
                     (struct want){200, false, 13, true});
    /* 204/304 have no body; bare LF line endings are tolerated */
    check_all_splits("HTTP/1.1 204 No Content\nX: y\n\n", 0, (struct want){204, true, 0, false});
    check_all_splits("HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n", 0,
                     (struct want){304, true, 0, false});
}

static void test_interim_response(void **state)
{
    (void)state;
    check_all_splits(
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nx", 0,
        (struct want){201, true, 1, false});
}

static int feed_all(const char *msg, tb_http_resp *p)
{
    size_t used;
    tb_http_resp_init(p);
    return tb_http_resp_feed(p, (const uint8_t *)msg, strlen(msg), &used);
}

static void test_errors(void **state)
{
    (void)state;
    tb_http_resp p;
    const char *bad[] = {
        "GARBAGE\r\n\r\n",
        "HTTP/2 200 OK\r\n\r\n",
        "HTTP/1.1 2x0 OK\r\n\r\n",
        "HTTP/1.1 099 Low\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n",
        "HTTP/1.1 200 OK\r\nBad Header: x\r\n\r\n",
        "HTTP/1.1 200 OK\r\n folded: x\r\n\r\n",
        "HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff1\r\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(feed_all(bad[i], &p), TB_HTTP_ERROR);
        assert_non_null(p.error);
        size_t used;
        assert_int_equal(tb_http_resp_feed(&p, (const uint8_t *)"x", 1, &used), TB_HTTP_ERROR);
    }
    /* closed mid-response, mid-body, before anything */
    assert_int_equal(feed_all("HTTP/1.1 200 OK\r\nContent-Le", &p), TB_HTTP_MORE);
    assert_int_equal(tb_http_resp_eof(&p), TB_HTTP_ERROR);
    assert_string_equal(p.error, "connection closed mid-response");
    assert_int_equal(feed_all("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc", &p), TB_HTTP_MORE);
    assert_int_equal(tb_http_resp_eof(&p), TB_HTTP_ERROR);
    tb_http_resp_init(&p);
    assert_int_equal(tb_http_resp_eof(&p), TB_HTTP_ERROR);
    assert_string_equal(p.error, "connection closed before a response");
}

static void test_header_limit(void **state)
{
    (void)state;
    static char big[TB_HTTP_HEADER_MAX + 100];
    strcpy(big, "HTTP/1.1 200 OK\r\nX: ");
    size_t n = strlen(big);
    memset(big + n, 'a', sizeof big - n - 1);
    big[sizeof big - 1] = 0;
    tb_http_resp p;
    assert_int_equal(feed_all(big, &p), TB_HTTP_ERROR);
    assert_string_equal(p.error, "response headers too large");
}

static void test_header_bytes_counted(void **state)
{
    (void)state;
    const char *m = "HTTP/1.1 200 OK\r\nA: b\r\nContent-Length: 1\r\n\r\nZ";
    tb_http_resp p;
    assert_int_equal(feed_all(m, &p), TB_HTTP_DONE);
    assert_int_equal(p.header_bytes, strlen(m) - 1);
    assert_int_equal(p.content_length, 1);
}

/* ---- the sink: header fields and the body as the parser sees them ---- */

struct collect {
    const char *msg;
    char out[512]; /* "name=value;" per field, "|" per interim end */
    char body[128];
    size_t out_len, body_len;
};

static void c_field(void *ctx, uint32_t no, uint32_t nl, uint32_t vo, uint32_t vl)
{
    struct collect *c = ctx;
    c->out_len += (size_t)snprintf(c->out + c->out_len, sizeof c->out - c->out_len, "%.*s=%.*s;",
                                   (int)nl, c->msg + no, (int)vl, c->msg + vo);
}

static void c_interim(void *ctx)
{
    struct collect *c = ctx;
    c->out_len += (size_t)snprintf(c->out + c->out_len, sizeof c->out - c->out_len, "|");
}

static void c_body(void *ctx, const uint8_t *b, size_t n)
{
    struct collect *c = ctx;
    assert_true(c->body_len + n < sizeof c->body);
    memcpy(c->body + c->body_len, b, n);
    c->body_len += n;
}

/* At every split point (and byte by byte) the sink sees the same fields and body. */
static void check_sink(const char *msg, bool eof, const char *fields, const char *body)
{
    size_t n = strlen(msg);
    for (size_t k = 0; k <= n + 1; k++) {
        struct collect c = {.msg = msg};
        const tb_http_resp_sink sink = {c_field, c_interim, c_body, &c};
        tb_http_resp p;
        tb_http_resp_init(&p);
        p.sink = &sink;
        size_t used, at = 0;
        int rc = TB_HTTP_MORE;
        /* k <= n: two pieces; k == n + 1: byte by byte */
        while (at < n && rc == TB_HTTP_MORE) {
            size_t piece = k == n + 1 ? 1 : at < k ? k - at : n - at;
            rc = tb_http_resp_feed(&p, (const uint8_t *)msg + at, piece, &used);
            at += used;
        }
        if (eof)
            rc = tb_http_resp_eof(&p);
        assert_int_equal(rc, TB_HTTP_DONE);
        assert_string_equal(c.out, fields);
        assert_int_equal(c.body_len, strlen(body));
        assert_memory_equal(c.body, body, c.body_len);
        assert_int_equal(p.body_bytes, c.body_len);
    }
}

static void test_sink(void **state)
{
    (void)state;
    check_sink("HTTP/1.1 100 Continue\r\nX-Interim: yes\r\n\r\n"
               "HTTP/1.1 200 OK\r\nX-T:  tok \r\nContent-Length: 2\r\nE:\r\n"
               "A-Long-Header-Name:\t a b \t\r\n\r\nhi",
               false, "X-Interim=yes;|X-T=tok;Content-Length=2;E=;A-Long-Header-Name=a b;", "hi");
    check_sink("HTTP/1.1 503 Busy\r\nTransfer-Encoding: chunked\r\n\r\n"
               "3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\nTrailer: no\r\n\r\n",
               false, "Transfer-Encoding=chunked;", "abcde");
    check_sink("HTTP/1.0 200 OK\nServer: x\n\nto the end", true, "Server=x;", "to the end");
    check_sink("HTTP/1.1 204 No Content\r\nConnection: keep-alive  \r\n\r\n", false,
               "Connection=keep-alive;", "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_content_length),
        cmocka_unit_test(test_sink),
        cmocka_unit_test(test_chunked),
        cmocka_unit_test(test_close_and_keepalive),
        cmocka_unit_test(test_interim_response),
        cmocka_unit_test(test_other_coding_order),
        cmocka_unit_test(test_head_and_switching),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_header_limit),
        cmocka_unit_test(test_header_bytes_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
