/* ws: WebSocket framing (RFC 6455), server side -- the opening handshake's
 * checks and accept key, frame headers in and out, unmasking.
 *
 * Users: the TLSNotary hub (tlsn/hub), whose relay and WebSocket-to-TCP proxy
 * forward frames between browsers and a TCP target. The bytes parsed here come
 * from any client on the hub's port: untrusted.
 *
 * Frames a server reads must be masked (RFC 6455 5.1); frames it writes are
 * not. tb_ws_parse_header decodes one header from the start of a buffer, never
 * reads past len and accepts only what RFC 6455 allows: RSV bits clear (no
 * extension is negotiated), a known opcode, control frames with FIN set and at
 * most 125 payload bytes, minimal length encodings are not required (RFC 6455
 * says "MUST" for senders only) but the 64-bit length's top bit must be clear.
 * A payload longer than the caller's max_payload is TB_WS_TOO_LARGE (answer with
 * close code 1009), any other violation TB_WS_BAD (close code 1002).
 *
 * Nothing here allocates or keeps state between calls. */
#ifndef TB_NET_WS_H
#define TB_NET_WS_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "net/http_req.h"

#define TB_WS_MAX_HEADER 14   /* 2 + 8 (length) + 4 (mask) */
#define TB_WS_ACCEPT_LEN 28   /* base64 of a SHA-1 */
#define TB_WS_MAX_CONTROL 125 /* payload of a control frame */

enum tb_ws_opcode {
    TB_WS_CONT = 0x0,
    TB_WS_TEXT = 0x1,
    TB_WS_BINARY = 0x2,
    TB_WS_CLOSE = 0x8,
    TB_WS_PING = 0x9,
    TB_WS_PONG = 0xA,
};

/* Close codes (RFC 6455 7.4.1). */
enum {
    TB_WS_CLOSE_NORMAL = 1000,
    TB_WS_CLOSE_GOING_AWAY = 1001,
    TB_WS_CLOSE_PROTOCOL = 1002,
    TB_WS_CLOSE_UNSUPPORTED = 1003,
    TB_WS_CLOSE_TOO_BIG = 1009,
    TB_WS_CLOSE_INTERNAL = 1011,
};

enum tb_ws_result {
    TB_WS_MORE = 0,       /* the header is not complete yet */
    TB_WS_DONE = 1,       /* f is filled */
    TB_WS_BAD = -1,       /* a protocol violation: why says which */
    TB_WS_TOO_LARGE = -2, /* payload over max_payload */
};

typedef struct tb_ws_frame {
    int fin;
    int opcode; /* enum tb_ws_opcode */
    int masked;
    uint8_t mask[4];
    uint64_t len;      /* payload bytes */
    size_t header_len; /* bytes of the header (2..14) */
} tb_ws_frame;

/* Decodes the frame header at buf[0..len). require_mask: 1 for a server reading a
 * client's frames. On TB_WS_BAD / TB_WS_TOO_LARGE, *why (when why is not NULL) is a
 * static string naming the violation. */
int tb_ws_parse_header(const uint8_t *buf, size_t len, int require_mask, uint64_t max_payload,
                       tb_ws_frame *f, const char **why);

/* XORs p[0..n) with the mask; offset: bytes of this payload unmasked before (so a
 * payload may be unmasked in pieces). */
void tb_ws_unmask(uint8_t *p, size_t n, const uint8_t mask[4], uint64_t offset);

/* Writes an unmasked frame header for a payload of len bytes into out (at least
 * TB_WS_MAX_HEADER bytes); returns its length. */
size_t tb_ws_header_encode(uint8_t *out, int opcode, int fin, uint64_t len);

/* The close frame's payload: code (network order) and a reason cut to fit 125
 * bytes. Writes it into out (at least TB_WS_MAX_CONTROL bytes); returns its length. */
size_t tb_ws_close_payload(uint8_t *out, int code, const char *reason);

/* Checks that a parsed request head (tb_http_req_parse said TB_HREQ_DONE) is a
 * WebSocket opening handshake: GET, HTTP/1.1, Upgrade: websocket, Connection
 * naming upgrade, Sec-WebSocket-Version 13, a Sec-WebSocket-Key of 16 bytes in
 * base64 (once each). Writes the accept key into accept. 0, or -1 with err. */
int tb_ws_handshake_check(const tb_http_req *r, const uint8_t *buf,
                          char accept[TB_WS_ACCEPT_LEN + 1], tb_err *err);

#endif
