/* libFuzzer target for net/http_req. The input is a byte stream on one
 * connection: requests are parsed one after another (pipelined), bodies skipped,
 * exactly as the fixture server does. Each request is parsed twice -- in one
 * read and in reads of a size taken from the input -- and both must agree, so
 * the fuzzer checks split-invariance as well as memory safety. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/http_req.h"
#include "net/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t step = (size_t)(data[0] % 17) + 1;
    data++;
    size--;
    size_t off = 0;
    while (off < size) {
        tb_http_req whole, split;
        tb_http_req_init(&whole, 1024);
        tb_http_req_init(&split, 1024);
        int rc = tb_http_req_parse(&whole, data + off, size - off);
        int rc2 = TB_HREQ_MORE;
        for (size_t n = step; rc2 == TB_HREQ_MORE; n += step) {
            if (n > size - off)
                n = size - off;
            rc2 = tb_http_req_parse(&split, data + off, n);
            if (n == size - off)
                break;
        }
        if (rc != rc2)
            abort();
        if (rc != TB_HREQ_DONE)
            break;
        if (whole.head_len != split.head_len || whole.target_off != split.target_off ||
            whole.target_len != split.target_len || whole.keep_alive != split.keep_alive ||
            whole.body_left != split.body_left || whole.head_len == 0 ||
            whole.target_off + whole.target_len > whole.head_len)
            abort();
        const char *path, *query, *v;
        size_t plen, qlen, vlen;
        tb_http_req_split_target(&whole, data + off, &path, &plen, &query, &qlen);
        if (query && tb_http_query_get(query, qlen, "size", &v, &vlen) &&
            (v < query || v + vlen > query + qlen))
            abort();
        off += whole.head_len;
        off += tb_http_req_skip_body(&whole, size - off);
    }
    return 0;
}
