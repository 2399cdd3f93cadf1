/* libFuzzer target for src/net/http_resp: the input is a byte stream from a
 * server, parsed as back-to-back responses until an error or the end, then EOF.
 * Differential: the stream is parsed three times, whole, byte by byte and in
 * pieces of a size picked by the first byte (whose top bit says whether the
 * responses answer HEAD requests); every way must give the same
 * sequence of results (so the fast paths agree with the byte-at-a-time ones).
 * Also checks the parser's invariants: used never exceeds the piece, a DONE
 * response has a status in 100..999, a Content-Length body matches its length.
 * A sink sees the header fields and the body: every field lies within the bytes
 * fed, the body bytes it is given count body_bytes, and what it sees (fields'
 * bytes, interim ends, body bytes) is part of the compared results. */
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

struct seen {
    const uint8_t *start; /* where the current response began in the stream */
    size_t avail;         /* bytes of the stream from start on */
    uint64_t digest, body;
};

static void on_field(void *ctx, uint32_t no, uint32_t nl, uint32_t vo, uint32_t vl)
{
    struct seen *s = ctx;
    if (nl == 0 || (uint64_t)no + nl > s->avail || (uint64_t)vo + vl > s->avail || vo < no + nl)
        abort();
    for (uint32_t i = 0; i < nl; i++)
        mix(&s->digest, s->start[no + i]);
    mix(&s->digest, 0x100);
    for (uint32_t i = 0; i < vl; i++)
        mix(&s->digest, s->start[vo + i]);
    if (vl && (s->start[vo] == ' ' || s->start[vo + vl - 1] == ' '))
        abort();
}

static void on_interim(void *ctx)
{
    mix(&((struct seen *)ctx)->digest, 0x101);
}

static void on_body(void *ctx, const uint8_t *b, size_t n)
{
    struct seen *s = ctx;
    s->body += n;
    for (size_t i = 0; i < n; i++)
        mix(&s->digest, b[i]);
}

static struct outcome parse(const uint8_t *data, size_t size, size_t step, bool head)
{
    struct outcome o = {0xcbf29ce484222325ULL, 0, 0};
    struct seen seen = {data, size, 0xcbf29ce484222325ULL, 0};
    const tb_http_resp_sink sink = {on_field, on_interim, on_body, &seen};
    tb_http_resp p;
    tb_http_resp_init(&p);
    p.head = head;
    p.sink = &sink;
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
            if (seen.body != p.body_bytes)
                abort();
            mix(&o.digest, seen.digest);
            seen = (struct seen){data + off, size - off, 0xcbf29ce484222325ULL, 0};
            o.responses++;
            tb_http_resp_init(&p);
            p.head = head;
            p.sink = &sink;
        } else if (used != n) {
            abort();
        }
    }
    o.last_rc = tb_http_resp_eof(&p);
    mix(&o.digest, (uint64_t)(o.last_rc + 2));
    mix(&o.digest, p.body_bytes);
    if (o.last_rc == TB_HTTP_DONE && seen.body != p.body_bytes)
        abort();
    mix(&o.digest, seen.digest);
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
