/* Unit tests for net/ws: frame headers (every length encoding, masks, what RFC 6455
 * forbids, incomplete input at every cut), encoding, unmasking in pieces, close
 * payloads, the accept key (RFC 6455's own example) and the handshake's checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "net/http_req.h"
#include "net/internal.h"
#include "net/ws.h"

static void test_accept_key(void **state)
{
    (void)state;
    char out[TB_WS_ACCEPT_LEN + 1];
    tb_ws_accept_key("dGhlIHNhbXBsZSBub25jZQ==", 24, out); /* RFC 6455 section 1.3 */
    assert_string_equal(out, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

static void test_header_lengths(void **state)
{
    (void)state;
    uint64_t lens[] = {0, 1, 125, 126, 65535, 65536, 1u << 24};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        uint8_t h[TB_WS_MAX_HEADER];
        size_t hl = tb_ws_header_encode(h, TB_WS_BINARY, 1, lens[i]);
        assert_int_equal(hl, lens[i] < 126 ? 2 : lens[i] <= 65535 ? 4 : 10);
        tb_ws_frame f;
        /* unmasked: a client reading it (require_mask 0) accepts it, a server refuses */
        assert_int_equal(tb_ws_parse_header(h, hl, 0, UINT64_MAX, &f, NULL), TB_WS_DONE);
        assert_int_equal(f.len, lens[i]);
        assert_int_equal(f.header_len, hl);
        assert_int_equal(f.opcode, TB_WS_BINARY);
        assert_true(f.fin);
        const char *why = NULL;
        assert_int_equal(tb_ws_parse_header(h, hl, 1, UINT64_MAX, &f, &why), TB_WS_BAD);
        assert_string_equal(why, "unmasked frame from a client");
        /* every shorter prefix is incomplete */
        for (size_t cut = 0; cut < hl; cut++)
            assert_int_equal(tb_ws_parse_header(h, cut, 0, UINT64_MAX, &f, NULL), TB_WS_MORE);
    }
}

static void test_masked(void **state)
{
    (void)state;
    /* RFC 6455 5.7: a masked "Hello" from a client */
    uint8_t fr[] = {0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58};
    tb_ws_frame f;
    for (size_t cut = 0; cut < 6; cut++)
        assert_int_equal(tb_ws_parse_header(fr, cut, 1, 1000, &f, NULL), TB_WS_MORE);
    assert_int_equal(tb_ws_parse_header(fr, sizeof fr, 1, 1000, &f, NULL), TB_WS_DONE);
    assert_int_equal(f.opcode, TB_WS_TEXT);
    assert_int_equal(f.len, 5);
    assert_int_equal(f.header_len, 6);
    uint8_t p[5];
    memcpy(p, fr + 6, 5);
    tb_ws_unmask(p, 2, f.mask, 0); /* in two pieces */
    tb_ws_unmask(p + 2, 3, f.mask, 2);
    assert_memory_equal(p, "Hello", 5);
}

static void test_violations(void **state)
{
    (void)state;
    tb_ws_frame f;
    const char *why;
    uint8_t rsv[] = {0xc2, 0x80, 0, 0, 0, 0};
    assert_int_equal(tb_ws_parse_header(rsv, sizeof rsv, 1, 100, &f, &why), TB_WS_BAD);
    uint8_t op3[] = {0x83, 0x80, 0, 0, 0, 0};
    assert_int_equal(tb_ws_parse_header(op3, sizeof op3, 1, 100, &f, &why), TB_WS_BAD);
    assert_string_equal(why, "unknown opcode");
    uint8_t opb[] = {0x8b, 0x80, 0, 0, 0, 0};
    assert_int_equal(tb_ws_parse_header(opb, sizeof opb, 1, 100, &f, &why), TB_WS_BAD);
    uint8_t frag_ping[] = {0x09, 0x80, 0, 0, 0, 0};
    assert_int_equal(tb_ws_parse_header(frag_ping, sizeof frag_ping, 1, 100, &f, &why), TB_WS_BAD);
    assert_string_equal(why, "fragmented control frame");
    uint8_t big_ping[] = {0x89, 0xfe, 0x00, 0x7e, 0, 0, 0, 0};
    assert_int_equal(tb_ws_parse_header(big_ping, sizeof big_ping, 1, 1000, &f, &why), TB_WS_BAD);
    assert_string_equal(why, "control frame over 125 bytes");
    uint8_t top[] = {0x82, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
    assert_int_equal(tb_ws_parse_header(top, sizeof top, 1, UINT64_MAX, &f, &why), TB_WS_BAD);
    /* over the caller's limit: too large, not bad */
    uint8_t big[] = {0x82, 0xfe, 0x01, 0x00, 0, 0, 0, 0};
    assert_int_equal(tb_ws_parse_header(big, sizeof big, 1, 255, &f, &why), TB_WS_TOO_LARGE);
    assert_int_equal(tb_ws_parse_header(big, sizeof big, 1, 256, &f, &why), TB_WS_DONE);
    /* a continuation without FIN is fine */
    uint8_t cont[] = {0x00, 0x80, 0, 0, 0, 0};
    assert_int_equal(tb_ws_parse_header(cont, sizeof cont, 1, 10, &f, &why), TB_WS_DONE);
    assert_false(f.fin);
}

static void test_close_payload(void **state)
{
    (void)state;
    uint8_t p[TB_WS_MAX_CONTROL];
    assert_int_equal(tb_ws_close_payload(p, 1009, "big"), 5);
    assert_int_equal(p[0], 0x03);
    assert_int_equal(p[1], 0xf1);
    assert_memory_equal(p + 2, "big", 3);
    char lng[300];
    memset(lng, 'x', sizeof lng - 1);
    lng[sizeof lng - 1] = 0;
    assert_int_equal(tb_ws_close_payload(p, 1000, lng), TB_WS_MAX_CONTROL);
    assert_int_equal(tb_ws_close_payload(p, 1000, NULL), 2);
}

static int handshake(const char *req, char *accept, tb_err *err)
{
    tb_http_req r;
    tb_http_req_init(&r, 8192);
    assert_int_equal(tb_http_req_parse(&r, (const uint8_t *)req, strlen(req)), TB_HREQ_DONE);
    return tb_ws_handshake_check(&r, (const uint8_t *)req, accept, err);
}

static void test_handshake(void **state)
{
    (void)state;
    char acc[TB_WS_ACCEPT_LEN + 1];
    tb_err err;
    assert_int_equal(handshake("GET /relay/ab/mpc/prover HTTP/1.1\r\nHost: x\r\n"
                               "Upgrade: WebSocket\r\nConnection: keep-alive, Upgrade\r\n"
                               "Sec-WebSocket-Version: 13\r\n"
                               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
                               acc, &err),
                     0);
    assert_string_equal(acc, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    assert_int_equal(handshake("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                               "Connection: Upgrade\r\nSec-WebSocket-Version: 8\r\n"
                               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
                               acc, &err),
                     -1);
    assert_non_null(strstr(err.msg, "Version"));
    assert_int_equal(handshake("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                               "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                               "Sec-WebSocket-Key: short==\r\n\r\n",
                               acc, &err),
                     -1);
    assert_int_equal(handshake("POST / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                               "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
                               acc, &err),
                     -1);
    assert_int_equal(handshake("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\n"
                               "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
                               acc, &err),
                     -1);
    assert_int_equal(handshake("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                               "Connection: keep-alive\r\nSec-WebSocket-Version: 13\r\n"
                               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
                               acc, &err),
                     -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accept_key),    cmocka_unit_test(test_header_lengths),
        cmocka_unit_test(test_masked),        cmocka_unit_test(test_violations),
        cmocka_unit_test(test_close_payload), cmocka_unit_test(test_handshake),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
