/* libFuzzer target: everything the notary parses from the network before a
 * document exists. The first byte picks the parser: 0 the request head
 * (tb_nreq_parse + tb_nreq_query), 1 the POST /session body, 2 the POST
 * /notarize body, 3 a target response's framing (with and without EOF, and as
 * a HEAD reply). Each parser must stay within the input and return 1/0/-1. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "notary/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    tb_err err;
    switch (data[0] % 4) {
    case 0: {
        tb_nreq r;
        int status;
        int rc = tb_nreq_parse(p, n, 4096, &r, &status, &err);
        if (rc == 1) {
            char v[64];
            if (r.head_len > n || r.content_length > 4096)
                abort();
            tb_nreq_query(r.query, "sessionId", v, sizeof v);
        } else if (rc == -1 && (status < 400 || status > 505)) {
            abort();
        }
        break;
    }
    case 1: {
        tb_session_req q;
        if (tb_session_req_parse((const char *)p, n, &q, &err) == 0 && q.nonce_len > 64)
            abort();
        break;
    }
    case 2: {
        tb_notarize_req q;
        if (tb_notarize_req_parse((const char *)p, n, &q, &err) == 0) {
            if (!q.port || !tb_dns_name_valid(q.server_name))
                abort();
            tb_notarize_req_free(&q);
        }
        break;
    }
    default:
        for (int eof = 0; eof < 2; eof++)
            for (int head = 0; head < 2; head++) {
                size_t total = 0;
                if (tb_http_response_complete(p, n, eof, head, &total, &err) == 1 && total > n)
                    abort();
            }
    }
    return 0;
}
