/* libFuzzer target for src/net/http_resp: the input is a byte stream from a
 * server, parsed as back-to-back responses until an error or the end, then EOF.
 * Differential: the stream is parsed three times, whole, byte by byte and in
 * pieces of a size picked by the first byte (whose top bit says whether the
 * responses answer HEAD requests); every way must give the same
 * sequence of results (so the fast paths agree with the byte-at-a-time ones).
 * Also checks the parser's invariants: used never exceeds the piece, a DONE
 * response has a status in 100..999, a Content-Length body matches its length. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/http_resp.h"

struct outcome {
    uint64_t digest;
    int responses;
    int last_rc;
};

static void mix(uint64_t *h, uint64_t v)
{
    *h = (*h ^ v) * 0x100000001b3ULL;
}

static struct outcome parse(const uint8_t *data, size_t size, size_t step, bool head)
{
    struct outcome o = {0xcbf29ce484222325ULL, 0, 0};
    tb_http_resp p;
    tb_http_resp_init(&p);
    p.head = head;
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
            mix(&o.digest, (uint64_t)(uintptr_t)p.error); /* why, not where: the
               connection is dropped, and a fast path may stop later in a run */
            o.last_rc = rc;
            return o;
        }
        if (rc == TB_HTTP_DONE) {
            if (p.status < 100 || p.status > 999)
                abort();
            if (!head && !p.chunked && p.content_length >= 0 && p.status != 204 &&
                p.status != 304 && p.status != 101 && p.body_bytes != (uint64_t)p.content_length)
                abort();
            if ((head || p.status == 101) && p.body_bytes != 0)
                abort();
            mix(&o.digest, (uint64_t)p.status);
            mix(&o.digest, p.body_bytes);
            mix(&o.digest, p.header_bytes);
            mix(&o.digest, (uint64_t)p.keep_alive << 1 | p.chunked);
            mix(&o.digest, off);
            o.responses++;
            tb_http_resp_init(&p);
            p.head = head;
        } else if (used != n) {
            abort();
        }
    }
    o.last_rc = tb_http_resp_eof(&p);
    mix(&o.digest, (uint64_t)(o.last_rc + 2));
    mix(&o.digest, p.body_bytes);
    return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t step = (size_t)(data[0] & 0x7f) % 17 + 1;
    bool head = data[0] & 0x80;
    data++;
    size--;
    struct outcome whole = parse(data, size, size ? size : 1, head);
    struct outcome bytes = parse(data, size, 1, head);
    struct outcome pieces = parse(data, size, step, head);
    if (memcmp(&whole, &bytes, sizeof whole) || memcmp(&whole, &pieces, sizeof whole))
        abort();
    return 0;
}
