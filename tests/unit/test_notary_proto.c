/* Unit tests for src/notary/proto: request heads, limits, JSON bodies and the
 * framing of target responses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "notary/proto.h"

static int parse(const char *s, size_t max_body, tb_nreq *r, int *status)
{
    tb_err err;
    return tb_nreq_parse((const uint8_t *)s, strlen(s), max_body, r, status, &err);
}

static void test_request_ok(void **state)
{
    (void)state;
    tb_nreq r;
    int st;
    const char *s = "POST /notarize?sessionId=00ff&x=1 HTTP/1.1\r\nHost: a\r\n"
                    "Content-Length: 12\r\n\r\n{\"a\":1}";
    assert_int_equal(parse(s, 100, &r, &st), 1);
    assert_string_equal(r.method, "POST");
    assert_string_equal(r.path, "/notarize");
    assert_string_equal(r.query, "sessionId=00ff&x=1");
    assert_int_equal(r.content_length, 12);
    assert_int_equal(r.head_len, strstr(s, "\r\n\r\n") + 4 - s);
    char v[40];
    assert_int_equal(tb_nreq_query(r.query, "sessionId", v, sizeof v), 0);
    assert_string_equal(v, "00ff");
    assert_int_equal(tb_nreq_query(r.query, "x", v, sizeof v), 0);
    assert_string_equal(v, "1");
    assert_int_equal(tb_nreq_query(r.query, "session", v, sizeof v), -1);
    assert_int_equal(tb_nreq_query(r.query, "sessionId", v, 4), -1); /* too long for out */
    assert_int_equal(r.keep_alive, 1);                               /* HTTP/1.1 default */
    assert_int_equal(parse("GET /info HTTP/1.0\r\n\r\n", 0, &r, &st), 1);
    assert_int_equal(r.content_length, 0);
    assert_string_equal(r.query, "");
    assert_int_equal(r.keep_alive, 0); /* HTTP/1.0 default */
    assert_int_equal(parse("GET /info HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", 0, &r, &st), 1);
    assert_int_equal(r.keep_alive, 1);
    assert_int_equal(parse("GET /info HTTP/1.1\r\nConnection: te, close\r\n\r\n", 0, &r, &st), 1);
    assert_int_equal(r.keep_alive, 0);
    assert_int_equal(parse("GET /info HTTP/1.1\r\nConnection: closed\r\n\r\n", 0, &r, &st), 1);
    assert_int_equal(r.keep_alive, 1);
}

static void test_request_incomplete(void **state)
{
    (void)state;
    tb_nreq r;
    int st;
    assert_int_equal(parse("", 10, &r, &st), 0);
    assert_int_equal(parse("GET /info HTTP/1.1\r\nHost: a\r\n", 10, &r, &st), 0);
}

static void test_request_refused(void **state)
{
    (void)state;
    struct {
        const char *req;
        int status;
    } cases[] = {
        {"GET info HTTP/1.1\r\n\r\n", 400},
        {"GET /info HTTP/2.0\r\n\r\n", 400},
        {"GET /info HTTP/1.2\r\n\r\n", 505},
        {"GET /info\r\n\r\n", 400},
        {"GET  /info HTTP/1.1\r\n\r\n", 400},
        {"GET /info HTTP/1.1\nHost: a\r\n\r\n", 400},
        {"GET /info HTTP/1.1\r\nNoColon\r\n\r\n", 400},
        {"GET /info HTTP/1.1\r\n Folded: x\r\n\r\n", 400},
        {"POST /s HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400},
        {"POST /s HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400},
        {"POST /s HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 501},
        {"POST /s HTTP/1.1\r\nContent-Length: 101\r\n\r\n", 413},
        {"VERYLONGMETHOD /s HTTP/1.1\r\n\r\n", 400},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tb_nreq r;
        int st = 0;
        assert_int_equal(parse(cases[i].req, 100, &r, &st), -1);
        assert_int_equal(st, cases[i].status);
    }
}

static void test_request_limits(void **state)
{
    (void)state;
    tb_buf b = {0};
    tb_nreq r;
    int st;
    tb_err err;
    /* 33 headers: refused with 431 */
    tb_buf_puts(&b, "GET /info HTTP/1.1\r\n");
    for (int i = 0; i < 33; i++)
        tb_buf_printf(&b, "X-H%d: v\r\n", i);
    tb_buf_puts(&b, "\r\n");
    assert_int_equal(tb_nreq_parse(b.p, b.len, 0, &r, &st, &err), -1);
    assert_int_equal(st, 431);
    /* a head that never ends within 8 KiB */
    tb_buf_reset(&b);
    tb_buf_puts(&b, "GET /info HTTP/1.1\r\nX-Long: ");
    while (b.len < TB_NREQ_MAX_HEAD + 10)
        tb_buf_puts(&b, "aaaaaaaa");
    assert_int_equal(tb_nreq_parse(b.p, b.len, 0, &r, &st, &err), -1);
    assert_int_equal(st, 431);
    /* a long path */
    tb_buf_reset(&b);
    tb_buf_puts(&b, "GET /");
    for (int i = 0; i < 200; i++)
        tb_buf_puts(&b, "p");
    tb_buf_puts(&b, " HTTP/1.1\r\n\r\n");
    assert_int_equal(tb_nreq_parse(b.p, b.len, 0, &r, &st, &err), -1);
    assert_int_equal(st, 414);
    tb_buf_clear(&b);
}

static void test_session_json(void **state)
{
    (void)state;
    tb_err err;
    tb_session_req q;
    const char *ok = "{\"maxSentData\":4096,\"maxRecvData\":16384,\"teeAttestation\":true,"
                     "\"nonce\":\"00ff10\"}";
    assert_int_equal(tb_session_req_parse(ok, strlen(ok), &q, &err), 0);
    assert_true(q.max_sent == 4096 && q.max_recv == 16384 && q.tee == 1);
    assert_int_equal(q.nonce_len, 3);
    assert_int_equal(q.nonce[1], 0xff);
    assert_int_equal(tb_session_req_parse("{}", 2, &q, &err), 0);
    assert_true(q.max_sent == 0 && q.tee == 0 && q.nonce_len == 0);
    const char *bad[] = {
        "[]",
        "{",
        "{\"maxSentData\":-1}",
        "{\"maxSentData\":\"4096\"}",
        "{\"maxRecvData\":0}",
        "{\"teeAttestation\":1}",
        "{\"nonce\":\"abc\"}",
        "{\"nonce\":\"\"}",
        "{\"nonce\":12}",
        "{\"maxSentData\":1,\"maxSentData\":2}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(tb_session_req_parse(bad[i], strlen(bad[i]), &q, &err), -1);
    /* a 65-byte nonce is too long */
    char big[200] = "{\"nonce\":\"";
    for (int i = 0; i < 130; i++)
        strcat(big, "a");
    strcat(big, "\"}");
    assert_int_equal(tb_session_req_parse(big, strlen(big), &q, &err), -1);
}

static void test_notarize_json(void **state)
{
    (void)state;
    tb_err err;
    tb_notarize_req q;
    const char *ok = "{\"host\":\"127.0.0.1\",\"port\":4000,\"serverName\":\"test-server.io\","
                     "\"request\":\"R0VUIC8=\"}";
    assert_int_equal(tb_notarize_req_parse(ok, strlen(ok), &q, &err), 0);
    assert_string_equal(q.host, "127.0.0.1");
    assert_int_equal(q.port, 4000);
    assert_string_equal(q.server_name, "test-server.io");
    assert_int_equal(q.request.len, 5);
    assert_memory_equal(q.request.p, "GET /", 5);
    tb_notarize_req_free(&q);
    const char *bad[] = {
        "{\"host\":\"h\",\"port\":0,\"serverName\":\"a.b\",\"request\":\"R0VU\"}",
        "{\"host\":\"h\",\"port\":65536,\"serverName\":\"a.b\",\"request\":\"R0VU\"}",
        "{\"host\":\"\",\"port\":1,\"serverName\":\"a.b\",\"request\":\"R0VU\"}",
        "{\"host\":\"a b\",\"port\":1,\"serverName\":\"a.b\",\"request\":\"R0VU\"}",
        "{\"host\":\"h\",\"port\":1,\"serverName\":\"a..b\",\"request\":\"R0VU\"}",
        "{\"host\":\"h\",\"port\":1,\"serverName\":\"-a.b\",\"request\":\"R0VU\"}",
        "{\"host\":\"h\",\"port\":1,\"serverName\":\"a.b\",\"request\":\"\"}",
        "{\"host\":\"h\",\"port\":1,\"serverName\":\"a.b\",\"request\":\"R0V\"}",
        "{\"host\":\"h\",\"port\":1,\"serverName\":\"a.b\"}",
        "{\"port\":1,\"serverName\":\"a.b\",\"request\":\"R0VU\"}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(tb_notarize_req_parse(bad[i], strlen(bad[i]), &q, &err), -1);
    assert_true(tb_dns_name_valid("test-server.io"));
    assert_true(tb_dns_name_valid("localhost"));
    assert_false(tb_dns_name_valid("a_b.io"));
    assert_false(tb_dns_name_valid("a.b."));
    assert_false(tb_dns_name_valid(""));
}

static int complete(const char *s, int eof, int no_body, size_t *total)
{
    tb_err err;
    return tb_http_response_complete((const uint8_t *)s, strlen(s), eof, no_body, total, &err);
}

static void test_response_framing(void **state)
{
    (void)state;
    size_t t = 0;
    const char *cl = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
    assert_int_equal(complete(cl, 0, 0, &t), 1);
    assert_int_equal(t, strlen(cl));
    assert_int_equal(complete("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel", 0, 0, &t), 0);
    assert_int_equal(complete("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel", 1, 0, &t), -1);
    /* extra bytes after the body are not part of the response */
    assert_int_equal(complete("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxEXTRA", 0, 0, &t), 1);
    assert_int_equal(t, strlen("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx"));
    const char *ch = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                     "5;ext=1\r\nhello\r\n1\r\n!\r\n0\r\nTrailer: x\r\n\r\n";
    assert_int_equal(complete(ch, 0, 0, &t), 1);
    assert_int_equal(t, strlen(ch));
    assert_int_equal(
        complete("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", 0, 0, &t), 0);
    assert_int_equal(
        complete("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 0, 0, &t), -1);
    assert_int_equal(complete("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                              "2\r\nhelo\r\n",
                              0, 0, &t),
                     -1);
    /* chunked must be the final coding, as a whole token: "xchunked" is not chunked */
    assert_int_equal(complete("HTTP/1.1 200 OK\r\nTransfer-Encoding: xchunked\r\n\r\n"
                              "0\r\n\r\n",
                              0, 0, &t),
                     -1);
    assert_int_equal(complete("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
                              "0\r\n\r\n",
                              0, 0, &t),
                     1);
    /* until close */
    assert_int_equal(complete("HTTP/1.0 200 OK\r\n\r\nbody", 0, 0, &t), 0);
    assert_int_equal(complete("HTTP/1.0 200 OK\r\n\r\nbody", 1, 0, &t), 1);
    assert_int_equal(t, strlen("HTTP/1.0 200 OK\r\n\r\nbody"));
    /* no body: HEAD, 204, 304; interim 1xx skipped */
    assert_int_equal(complete("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n", 0, 1, &t), 1);
    assert_int_equal(complete("HTTP/1.1 204 No Content\r\n\r\n", 0, 0, &t), 1);
    const char *interim = "HTTP/1.1 103 Early Hints\r\nLink: x\r\n\r\n"
                          "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    assert_int_equal(complete(interim, 0, 0, &t), 1);
    assert_int_equal(t, strlen(interim));
    /* malformed */
    assert_int_equal(complete("HTTX/1.1 200 OK\r\n\r\n", 0, 0, &t), -1);
    assert_int_equal(complete("HTTP/1.1 2x0 OK\r\n\r\n", 0, 0, &t), -1);
    assert_int_equal(
        complete("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 0, 0, &t),
        -1);
    assert_int_equal(complete("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", 0, 0, &t), -1);
    assert_int_equal(complete("HTTP/1.1 200 OK\r\nContent-Length: 1", 1, 0, &t), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request_ok),       cmocka_unit_test(test_request_incomplete),
        cmocka_unit_test(test_request_refused),  cmocka_unit_test(test_request_limits),
        cmocka_unit_test(test_session_json),     cmocka_unit_test(test_notarize_json),
        cmocka_unit_test(test_response_framing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
