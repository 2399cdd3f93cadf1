/* Unit tests for net/http_req: valid and invalid heads, every split point,
 * keep-alive rules, Content-Length bodies, pipelining, limits, query lookup. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "net/http_req.h"
#include "net/internal.h"

static int parse_all(tb_http_req *r, const char *s, size_t max_head)
{
    tb_http_req_init(r, max_head);
    return tb_http_req_parse(r, (const uint8_t *)s, strlen(s));
}

/* Parses s fed in two pieces split at every offset, and byte by byte, and checks
 * every way gives the same result and fields as one read. */
static int parse_split_everywhere(const char *s, size_t max_head, tb_http_req *out)
{
    size_t n = strlen(s);
    int want = parse_all(out, s, max_head);
    for (size_t k = 0; k <= n; k++) {
        tb_http_req r;
        tb_http_req_init(&r, max_head);
        int rc = tb_http_req_parse(&r, (const uint8_t *)s, k);
        if (rc == TB_HREQ_MORE)
            rc = tb_http_req_parse(&r, (const uint8_t *)s, n);
        assert_int_equal(rc, want);
        if (want == TB_HREQ_DONE) {
            assert_int_equal(r.head_len, out->head_len);
            assert_int_equal(r.target_off, out->target_off);
            assert_int_equal(r.target_len, out->target_len);
            assert_int_equal(r.method, out->method);
            assert_int_equal(r.keep_alive, out->keep_alive);
            assert_int_equal(r.body_left, out->body_left);
            assert_int_equal(r.minor, out->minor);
        }
    }
    tb_http_req r;
    tb_http_req_init(&r, max_head);
    int rc = TB_HREQ_MORE;
    for (size_t k = 1; k <= n && rc == TB_HREQ_MORE; k++)
        rc = tb_http_req_parse(&r, (const uint8_t *)s, k);
    assert_int_equal(rc, want);
    if (want == TB_HREQ_DONE)
        assert_int_equal(r.head_len, out->head_len);
    return want;
}

static void test_simple_get(void **state)
{
    (void)state;
    tb_http_req r;
    const char *s = "GET /formats/json?size=4 HTTP/1.1\r\nHost: test-server.io\r\n"
                    "User-Agent: x\r\n\r\n";
    assert_int_equal(parse_split_everywhere(s, 8192, &r), TB_HREQ_DONE);
    assert_int_equal(r.method, TB_HREQ_GET);
    assert_int_equal(r.minor, 1);
    assert_int_equal(r.keep_alive, 1);
    assert_int_equal(r.head_len, strlen(s));
    assert_int_equal(r.nheaders, 2);
    assert_int_equal(r.body_left, 0);
    const char *path, *query;
    size_t plen, qlen;
    tb_http_req_split_target(&r, (const uint8_t *)s, &path, &plen, &query, &qlen);
    assert_int_equal(plen, strlen("/formats/json"));
    assert_memory_equal(path, "/formats/json", plen);
    assert_int_equal(qlen, strlen("size=4"));
    assert_memory_equal(query, "size=4", qlen);
}

static void test_methods_and_versions(void **state)
{
    (void)state;
    tb_http_req r;
    assert_int_equal(parse_split_everywhere("HEAD / HTTP/1.0\r\n\r\n", 8192, &r), TB_HREQ_DONE);
    assert_int_equal(r.method, TB_HREQ_HEAD);
    assert_int_equal(r.minor, 0);
    assert_int_equal(r.keep_alive, 0);
    assert_int_equal(parse_split_everywhere("POST / HTTP/1.0\r\n\r\n", 8192, &r), TB_HREQ_DONE);
    assert_int_equal(r.method, TB_HREQ_OTHER);
    assert_int_equal(r.method_len, 4);
    assert_int_equal(parse_split_everywhere("GET / HTTP/2.0\r\n\r\n", 8192, &r), TB_HREQ_VERSION);
    assert_int_equal(parse_split_everywhere("GET / HTTP/1.2\r\n\r\n", 8192, &r), TB_HREQ_VERSION);
    assert_int_equal(parse_split_everywhere("GET / HTTP/1.10\r\n\r\n", 8192, &r), TB_HREQ_BAD);
    assert_int_equal(parse_split_everywhere("GET / HTTP/1\r\n\r\n", 8192, &r), TB_HREQ_BAD);
    assert_int_equal(parse_split_everywhere("GET / http/1.1\r\n\r\n", 8192, &r), TB_HREQ_BAD);
    assert_int_equal(parse_split_everywhere("GET /\r\n\r\n", 8192, &r), TB_HREQ_BAD);
}

static void test_keep_alive_rules(void **state)
{
    (void)state;
    tb_http_req r;
    assert_int_equal(
        parse_split_everywhere("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", 8192, &r),
        TB_HREQ_DONE);
    assert_int_equal(r.keep_alive, 0);
    assert_int_equal(
        parse_split_everywhere("GET / HTTP/1.1\r\nHost: a\r\nConnection:  Upgrade , CLOSE \r\n\r\n",
                               8192, &r),
        TB_HREQ_DONE);
    assert_int_equal(r.keep_alive, 0);
    assert_int_equal(
        parse_split_everywhere("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", 8192, &r),
        TB_HREQ_DONE);
    assert_int_equal(r.keep_alive, 1);
    assert_int_equal(
        parse_split_everywhere("GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n", 8192, &r),
        TB_HREQ_DONE);
    assert_int_equal(r.keep_alive, 0);
    /* A header named like Connection but not it does not count. */
    assert_int_equal(
        parse_split_everywhere("GET / HTTP/1.1\r\nHost: a\r\nConnectionX: close\r\n\r\n", 8192, &r),
        TB_HREQ_DONE);
    assert_int_equal(r.keep_alive, 1);
}

static void test_bare_lf_and_leading_empty_lines(void **state)
{
    (void)state;
    tb_http_req r;
    assert_int_equal(parse_split_everywhere("\r\n\r\nGET /x HTTP/1.1\nHost: a\n\n", 8192, &r),
                     TB_HREQ_DONE);
    assert_int_equal(r.target_len, 2);
    assert_int_equal(r.target_off, 4 + 4);
    assert_int_equal(r.head_len, strlen("\r\n\r\nGET /x HTTP/1.1\nHost: a\n\n"));
}

static void test_malformed(void **state)
{
    (void)state;
    tb_http_req r;
    static const char *bad[] = {
        "GET / HTTP/1.1\r\n\r\n",                       /* 1.1 without Host */
        "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", /* two Hosts */
        "GET  / HTTP/1.1\r\nHost: a\r\n\r\n",           /* double space */
        "G(T / HTTP/1.1\r\nHost: a\r\n\r\n",            /* bad method char */
        "GET / HTTP/1.1\r\nHost : a\r\n\r\n",           /* space before colon */
        "GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", /* obs-fold */
        "GET / HTTP/1.1\r\nHost: a\rX\r\n\r\n",         /* bare CR */
        "GET / HTTP/1.1\r\nHost: a\x01\r\n\r\n",        /* control byte */
        "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1234567890123456789\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\n\rX", /* CR not followed by LF */
        "GET / HTTP/1.1\r\n: empty name\r\n\r\n",
        "GET\x7f / HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET /\x7f HTTP/1.1\r\nHost: a\r\n\r\n",
        "GETTINGVERYLONGMETHOD / HTTP/1.1\r\nHost: a\r\n\r\n",
        " GET / HTTP/1.1\r\nHost: a\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = parse_split_everywhere(bad[i], 8192, &r);
        if (rc != TB_HREQ_BAD)
            fail_msg("case %zu parsed as %d: %s", i, rc, bad[i]);
    }
    /* Transfer-Encoding: not supported (501), before or after Host, any coding */
    static const char *te[] = {
        "GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n",
        "POST / HTTP/1.1\r\ntransfer-encoding: gzip\r\nHost: a\r\n\r\n",
        "POST / HTTP/1.0\nTransfer-Encoding: chunked\nContent-Length: 3\n\n",
    };
    for (size_t i = 0; i < sizeof te / sizeof te[0]; i++)
        assert_int_equal(parse_split_everywhere(te[i], 8192, &r), TB_HREQ_UNSUPPORTED);
    /* A result sticks until reset. */
    tb_http_req_init(&r, 8192);
    assert_int_equal(tb_http_req_parse(&r, (const uint8_t *)"X Y\r\n", 5), TB_HREQ_BAD);
    assert_int_equal(tb_http_req_parse(&r, (const uint8_t *)"GET / HTTP/1.0\r\n\r\n", 18),
                     TB_HREQ_BAD);
}

static void test_content_length_and_pipelining(void **state)
{
    (void)state;
    const char *s = "POST /a HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n"
                    "hello"
                    "GET /b HTTP/1.1\r\nHost: a\r\n\r\n"
                    "GET /c HTTP/1.0\r\n\r\n";
    const uint8_t *buf = (const uint8_t *)s;
    size_t n = strlen(s);
    tb_http_req r;
    tb_http_req_init(&r, 8192);
    assert_int_equal(tb_http_req_parse(&r, buf, n), TB_HREQ_DONE);
    assert_int_equal(r.body_left, 5);
    size_t off = r.head_len;
    assert_int_equal(tb_http_req_skip_body(&r, 2), 2);
    assert_int_equal(tb_http_req_skip_body(&r, n - off - 2), 3);
    assert_int_equal(r.body_left, 0);
    off += 5;
    tb_http_req_reset(&r);
    assert_int_equal(r.max_head, 8192);
    assert_int_equal(tb_http_req_parse(&r, buf + off, n - off), TB_HREQ_DONE);
    assert_int_equal(r.target_len, 2);
    assert_memory_equal(buf + off + r.target_off, "/b", 2);
    assert_int_equal(r.keep_alive, 1);
    off += r.head_len;
    tb_http_req_reset(&r);
    assert_int_equal(tb_http_req_parse(&r, buf + off, n - off), TB_HREQ_DONE);
    assert_memory_equal(buf + off + r.target_off, "/c", 2);
    assert_int_equal(r.keep_alive, 0);
    assert_int_equal(off + r.head_len, n);
}

static void test_limits(void **state)
{
    (void)state;
    tb_http_req r;
    const char *s = "GET /0123456789 HTTP/1.1\r\nHost: a\r\n\r\n";
    size_t n = strlen(s);
    /* Exactly max_head bytes is fine; one less is too large, at every split. */
    assert_int_equal(parse_split_everywhere(s, n, &r), TB_HREQ_DONE);
    assert_int_equal(parse_split_everywhere(s, n - 1, &r), TB_HREQ_TOO_LARGE);
    assert_int_equal(parse_split_everywhere(s, 5, &r), TB_HREQ_TOO_LARGE);

    static char many[TB_HREQ_MAX_HEADERS * 8 + 64];
    size_t len = (size_t)snprintf(many, sizeof many, "GET / HTTP/1.1\r\nHost: a\r\n");
    for (int i = 0; i < TB_HREQ_MAX_HEADERS - 1; i++)
        len += (size_t)snprintf(many + len, sizeof many - len, "X: %d\r\n", i % 10);
    snprintf(many + len, sizeof many - len, "\r\n");
    assert_int_equal(parse_all(&r, many, 8192), TB_HREQ_DONE);
    assert_int_equal(r.nheaders, TB_HREQ_MAX_HEADERS);
    snprintf(many + len, sizeof many - len, "Y: 1\r\n\r\n");
    assert_int_equal(parse_all(&r, many, 8192), TB_HREQ_TOO_LARGE);

    /* a lower field limit (the notary's 32) is kept across reset */
    const char *three = "GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\n\r\n";
    tb_http_req_init(&r, 8192);
    r.max_headers = 2;
    assert_int_equal(tb_http_req_parse(&r, (const uint8_t *)three, strlen(three)),
                     TB_HREQ_TOO_LARGE);
    tb_http_req_reset(&r);
    assert_int_equal(r.max_headers, 2);
    r.max_headers = 3;
    assert_int_equal(tb_http_req_parse(&r, (const uint8_t *)three, strlen(three)), TB_HREQ_DONE);
    assert_true(tb_http_req_method_is(&r, (const uint8_t *)three, "GET"));
    assert_false(tb_http_req_method_is(&r, (const uint8_t *)three, "GE"));
    assert_false(tb_http_req_method_is(&r, (const uint8_t *)three, "get"));
}

static void test_header_values(void **state)
{
    (void)state;
    tb_http_req r;
    /* Empty values, tabs, obs-text and trailing whitespace are accepted. */
    const char *s = "GET / HTTP/1.1\r\nHost:a\r\nX-Empty:\r\nX-Tab:\tv\t\r\n"
                    "X-Obs: \xc3\xa9t\xc3\xa9 \r\nContent-Length:  7  \r\n\r\n";
    assert_int_equal(parse_split_everywhere(s, 8192, &r), TB_HREQ_DONE);
    assert_int_equal(r.body_left, 7);
    assert_int_equal(r.nheaders, 5);
}

static void test_query_get(void **state)
{
    (void)state;
    const char *q = "a=1&size=42&flag&x=";
    const char *v;
    size_t vl;
    assert_int_equal(tb_http_query_get(q, strlen(q), "size", &v, &vl), 1);
    assert_int_equal(vl, 2);
    assert_memory_equal(v, "42", 2);
    assert_int_equal(tb_http_query_get(q, strlen(q), "flag", &v, &vl), 1);
    assert_int_equal(vl, 0);
    assert_int_equal(tb_http_query_get(q, strlen(q), "x", &v, &vl), 1);
    assert_int_equal(vl, 0);
    assert_int_equal(tb_http_query_get(q, strlen(q), "siz", &v, &vl), 0);
    assert_int_equal(tb_http_query_get(q, strlen(q), "b", &v, &vl), 0);
    assert_int_equal(tb_http_query_get(NULL, 0, "a", &v, &vl), 0);
    /* A query cut short ("size" is the prefix of the string's end) */
    assert_int_equal(tb_http_query_get("size=4", 4, "size", &v, &vl), 1);
    assert_int_equal(vl, 0);
}

/* Header lookup over accepted heads: case-insensitive names, trimmed values,
 * repeats counted, CRLF and bare LF, a name that is only a prefix of another,
 * and the request line never taken for a field. */
static void test_header_lookup(void **state)
{
    (void)state;
    tb_http_req r;
    const char *v = NULL;
    size_t n = 0;
    const char *s = "\r\nPOST /x HTTP/1.1\r\nHost: a\r\nAuthorization-X: no\r\n"
                    "authorization: \t Bearer k1 \r\nX: 1\r\nAUTHORIZATION:k2\r\n\r\nbody: 3";
    assert_int_equal(parse_all(&r, s, 8192), TB_HREQ_DONE);
    assert_int_equal(tb_http_req_header(&r, (const uint8_t *)s, "Authorization", &v, &n), 2);
    assert_int_equal(n, 9);
    assert_memory_equal(v, "Bearer k1", 9);
    assert_int_equal(tb_http_req_header(&r, (const uint8_t *)s, "x", &v, &n), 1);
    assert_memory_equal(v, "1", 1);
    assert_int_equal(tb_http_req_header(&r, (const uint8_t *)s, "body", &v, &n), 0); /* body */
    assert_int_equal(tb_http_req_header(&r, (const uint8_t *)s, "POST /x HTTP/1.1", &v, &n), 0);
    const char *lf = "GET / HTTP/1.0\nToken:\nToken: z\n\n";
    assert_int_equal(parse_all(&r, lf, 8192), TB_HREQ_DONE);
    assert_int_equal(tb_http_req_header(&r, (const uint8_t *)lf, "token", &v, &n), 2);
    assert_int_equal(n, 0); /* the first, empty, value */
    assert_int_equal(tb_http_req_header(&r, (const uint8_t *)lf, "Host", &v, &n), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_simple_get),
        cmocka_unit_test(test_methods_and_versions),
        cmocka_unit_test(test_keep_alive_rules),
        cmocka_unit_test(test_bare_lf_and_leading_empty_lines),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_content_length_and_pipelining),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_header_values),
        cmocka_unit_test(test_query_get),
        cmocka_unit_test(test_header_lookup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
