/* libFuzzer target for net/ws: frame headers (as a server reads them, with and without
 * the mask rule and a small size limit) and unmasking of what follows; the handshake
 * check over any request head the HTTP parser accepts. Checks the parser's promises:
 * a header never claims more bytes than it was given, and a control frame is small. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/http_req.h"
#include "net/ws.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t off = 0;
    while (off < size) {
        tb_ws_frame f;
        int r = tb_ws_parse_header(data + off, size - off, (size & 1) != 0, 4096, &f, NULL);
        if (r != TB_WS_DONE)
            break;
        if (f.header_len > size - off || f.header_len < 2 || f.header_len > TB_WS_MAX_HEADER)
            abort();
        if (f.opcode >= 8 && (f.len > TB_WS_MAX_CONTROL || !f.fin))
            abort();
        off += f.header_len;
        size_t n = f.len < size - off ? (size_t)f.len : size - off;
        uint8_t *p = malloc(n + 1);
        if (!p)
            return 0;
        memcpy(p, data + off, n);
        tb_ws_unmask(p, n, f.mask, 0);
        free(p);
        off += n;
    }
    tb_http_req r;
    tb_http_req_init(&r, 8192);
    if (tb_http_req_parse(&r, data, size) == TB_HREQ_DONE) {
        char acc[TB_WS_ACCEPT_LEN + 1];
        tb_err err;
        if (tb_ws_handshake_check(&r, data, acc, &err) == 0 && strlen(acc) != TB_WS_ACCEPT_LEN)
            abort();
    }
    return 0;
}
