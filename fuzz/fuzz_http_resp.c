/* libFuzzer target for src/net/http_resp: the input is a byte stream from a
 * server. The first byte picks a split size; the stream is fed in pieces of that
 * size, responses are parsed back to back until an error or the end, then EOF.
 * Checks the parser's own invariants: used never exceeds the piece, a DONE
 * response has a status in 100..999, a Content-Length body matches its length. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "net/http_resp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t step = (size_t)data[0] % 17 + 1;
    data++;
    size--;
    tb_http_resp p;
    tb_http_resp_init(&p);
    size_t off = 0;
    while (off < size) {
        size_t n = size - off < step ? size - off : step;
        size_t used = 0;
        int rc = tb_http_resp_feed(&p, data + off, n, &used);
        if (used > n)
            abort();
        off += used;
        if (rc == TB_HTTP_ERROR) {
            if (!p.error)
                abort();
            return 0;
        }
        if (rc == TB_HTTP_DONE) {
            if (p.status < 100 || p.status > 999)
                abort();
            if (!p.chunked && p.content_length >= 0 && p.status != 204 && p.status != 304 &&
                p.body_bytes != (uint64_t)p.content_length)
                abort();
            tb_http_resp_init(&p);
        } else if (used != n) {
            abort();
        }
    }
    tb_http_resp_eof(&p);
    return 0;
}
