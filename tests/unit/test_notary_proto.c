/* Unit tests for src/notary/proto: the JSON bodies of POST /session and POST
 * /notarize, and the DNS name check. (The notary's HTTP requests and the
 * target's responses are parsed by net/http_req and net/http_resp: their
 * tests, and the notary's answers to malformed HTTP in test_notary_server.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "notary/internal.h"

static void test_session_json(void **state)
{
    (void)state;
    tb_err err;
    tb_notary_session_req q;
    const char *ok = "{\"maxSentData\":4096,\"maxRecvData\":16384,\"teeAttestation\":true,"
                     "\"nonce\":\"00ff10\"}";
    assert_int_equal(tb_notary_session_req_parse(ok, strlen(ok), &q, &err), 0);
    assert_true(q.max_sent == 4096 && q.max_recv == 16384 && q.tee == 1);
    assert_int_equal(q.nonce_len, 3);
    assert_int_equal(q.nonce[1], 0xff);
    assert_int_equal(tb_notary_session_req_parse("{}", 2, &q, &err), 0);
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
        assert_int_equal(tb_notary_session_req_parse(bad[i], strlen(bad[i]), &q, &err), -1);
    /* a 65-byte nonce is too long */
    char big[200] = "{\"nonce\":\"";
    for (int i = 0; i < 130; i++)
        strcat(big, "a");
    strcat(big, "\"}");
    assert_int_equal(tb_notary_session_req_parse(big, strlen(big), &q, &err), -1);
}

static void test_notarize_json(void **state)
{
    (void)state;
    tb_err err;
    tb_notary_notarize_req q;
    const char *ok = "{\"host\":\"127.0.0.1\",\"port\":4000,\"serverName\":\"test-server.io\","
                     "\"request\":\"R0VUIC8=\"}";
    assert_int_equal(tb_notary_notarize_req_parse(ok, strlen(ok), &q, &err), 0);
    assert_string_equal(q.host, "127.0.0.1");
    assert_int_equal(q.port, 4000);
    assert_string_equal(q.server_name, "test-server.io");
    assert_int_equal(q.request.len, 5);
    assert_memory_equal(q.request.p, "GET /", 5);
    tb_notary_notarize_req_clear(&q);
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
        assert_int_equal(tb_notary_notarize_req_parse(bad[i], strlen(bad[i]), &q, &err), -1);
    assert_true(tb_notary_dns_name_valid("test-server.io"));
    assert_true(tb_notary_dns_name_valid("localhost"));
    assert_false(tb_notary_dns_name_valid("a_b.io"));
    assert_false(tb_notary_dns_name_valid("a.b."));
    assert_false(tb_notary_dns_name_valid(""));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_session_json),
        cmocka_unit_test(test_notarize_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
