/* ws: WebSocket framing (see ws.h). Invariants: every read of buf is bounded by
 * len; a header is either fully decoded (TB_WS_DONE) or nothing is reported. */
#include "net/http_field.h"
#include "net/internal.h"
#include "net/ws.h"

#include <string.h>

#include <openssl/evp.h>

#define WS_GUID "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

static int bad(const char **why, const char *what)
{
    if (why)
        *why = what;
    return TB_WS_BAD;
}

int tb_ws_parse_header(const uint8_t *buf, size_t len, int require_mask, uint64_t max_payload,
                       tb_ws_frame *f, const char **why)
{
    if (len < 2)
        return TB_WS_MORE;
    int b0 = buf[0], b1 = buf[1];
    if (b0 & 0x70)
        return bad(why, "reserved bits set (no extension was negotiated)");
    int op = b0 & 0x0f;
    int control = op >= 0x8;
    if (!(op <= TB_WS_BINARY || (op >= TB_WS_CLOSE && op <= TB_WS_PONG)))
        return bad(why, "unknown opcode");
    int fin = (b0 & 0x80) != 0;
    if (control && !fin)
        return bad(why, "fragmented control frame");
    int masked = (b1 & 0x80) != 0;
    if (require_mask && !masked)
        return bad(why, "unmasked frame from a client");
    uint64_t plen = b1 & 0x7f;
    size_t hl = 2;
    if (plen == 126) {
        if (len < 4)
            return TB_WS_MORE;
        plen = (uint64_t)buf[2] << 8 | buf[3];
        hl = 4;
    } else if (plen == 127) {
        if (len < 10)
            return TB_WS_MORE;
        if (buf[2] & 0x80)
            return bad(why, "payload length with its top bit set");
        plen = 0;
        for (int i = 2; i < 10; i++)
            plen = plen << 8 | buf[i];
        hl = 10;
    }
    if (control && plen > TB_WS_MAX_CONTROL)
        return bad(why, "control frame over 125 bytes");
    if (masked) {
        if (len < hl + 4)
            return TB_WS_MORE;
        memcpy(f->mask, buf + hl, 4);
        hl += 4;
    } else {
        memset(f->mask, 0, 4);
    }
    if (plen > max_payload) {
        if (why)
            *why = "frame over the size limit";
        return TB_WS_TOO_LARGE;
    }
    f->fin = fin;
    f->opcode = op;
    f->masked = masked;
    f->len = plen;
    f->header_len = hl;
    return TB_WS_DONE;
}

void tb_ws_unmask(uint8_t *p, size_t n, const uint8_t mask[4], uint64_t offset)
{
    for (size_t i = 0; i < n; i++)
        p[i] ^= mask[(offset + i) & 3];
}

size_t tb_ws_header_encode(uint8_t *out, int opcode, int fin, uint64_t len)
{
    out[0] = (uint8_t)((fin ? 0x80 : 0) | (opcode & 0x0f));
    if (len < 126) {
        out[1] = (uint8_t)len;
        return 2;
    }
    if (len <= 0xffff) {
        out[1] = 126;
        out[2] = (uint8_t)(len >> 8);
        out[3] = (uint8_t)len;
        return 4;
    }
    out[1] = 127;
    for (int i = 0; i < 8; i++)
        out[2 + i] = (uint8_t)(len >> (56 - 8 * i));
    return 10;
}

size_t tb_ws_close_payload(uint8_t *out, int code, const char *reason)
{
    out[0] = (uint8_t)(code >> 8);
    out[1] = (uint8_t)code;
    size_t n = reason ? strlen(reason) : 0;
    if (n > TB_WS_MAX_CONTROL - 2)
        n = TB_WS_MAX_CONTROL - 2;
    if (n)
        memcpy(out + 2, reason, n);
    return 2 + n;
}

void tb_ws_accept_key(const char *key, size_t key_len, char out[TB_WS_ACCEPT_LEN + 1])
{
    uint8_t in[64 + sizeof WS_GUID], md[EVP_MAX_MD_SIZE];
    unsigned mdlen = 0;
    if (key_len > 64)
        key_len = 64; /* callers pass 24 bytes (tb_ws_handshake_check) */
    memcpy(in, key, key_len);
    memcpy(in + key_len, WS_GUID, sizeof WS_GUID - 1);
    EVP_Digest(in, key_len + sizeof WS_GUID - 1, md, &mdlen, EVP_sha1(), NULL);
    EVP_EncodeBlock((unsigned char *)out, md, 20);
    out[TB_WS_ACCEPT_LEN] = '\0';
}

static int b64_char(int c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
           c == '/';
}

int tb_ws_handshake_check(const tb_http_req *r, const uint8_t *buf,
                          char accept[TB_WS_ACCEPT_LEN + 1], tb_err *err)
{
    const char *v;
    size_t n;
    if (!tb_http_req_method_is(r, buf, "GET"))
        return tb_errf(err, "a WebSocket handshake must be a GET");
    if (r->minor != 1)
        return tb_errf(err, "a WebSocket handshake needs HTTP/1.1");
    if (tb_http_req_header(r, buf, "Upgrade", &v, &n) != 1 ||
        !tb_http_has_token(v, n, "websocket", false))
        return tb_errf(err, "no \"Upgrade: websocket\"");
    if (tb_http_req_header(r, buf, "Connection", &v, &n) != 1 ||
        !tb_http_has_token(v, n, "upgrade", false))
        return tb_errf(err, "no \"Connection: Upgrade\"");
    if (tb_http_req_header(r, buf, "Sec-WebSocket-Version", &v, &n) != 1 || n != 2 ||
        memcmp(v, "13", 2))
        return tb_errf(err, "Sec-WebSocket-Version is not 13");
    if (tb_http_req_header(r, buf, "Sec-WebSocket-Key", &v, &n) != 1 || n != 24 || v[22] != '=' ||
        v[23] != '=')
        return tb_errf(err, "Sec-WebSocket-Key is not 16 bytes in base64");
    for (size_t i = 0; i < 22; i++)
        if (!b64_char((unsigned char)v[i]))
            return tb_errf(err, "Sec-WebSocket-Key is not 16 bytes in base64");
    tb_ws_accept_key(v, n, accept);
    return 0;
}
