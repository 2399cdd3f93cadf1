/* libFuzzer target: everything the notary parses from the network before a
 * document exists. The first byte picks the parser: 0 a request head as the
 * notary reads it (net/http_req with the notary's limits: 8 KiB, 32 fields),
 * its sessionId query and its Authorization field checked against an API key
 * set (notary/auth), 1 the POST /session body, 2 the POST /notarize
 * body, 3 a target response as the notary frames it (net/http_resp, as a
 * reply to GET and to HEAD, ended by EOF). Each parser must stay within the
 * input; the HTTP results must be consistent (a head within the buffer, at
 * most 32 fields, a response no longer than its input). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/http_req.h"
#include "net/http_resp.h"
#include "notary/auth.h"
#include "notary/internal.h"

static const char KEYS[] = "fuzz 0123456789abcdef0123\n";

static void request_head(const uint8_t *p, size_t n)
{
    tb_http_req r;
    tb_http_req_init(&r, 8192);
    r.max_headers = 32;
    int rc = tb_http_req_parse(&r, p, n);
    if (rc != TB_HREQ_DONE)
        return;
    if (r.head_len > n || r.nheaders > 32 || r.target_off + r.target_len > r.head_len)
        abort();
    const char *path, *query, *v;
    size_t plen, qlen, vlen;
    tb_http_req_split_target(&r, p, &path, &plen, &query, &qlen);
    if (query && tb_http_query_get(query, qlen, "sessionId", &v, &vlen) &&
        (v < query || v + vlen > query + qlen))
        abort();
    const char *a = NULL;
    size_t alen = 0;
    unsigned count = tb_http_req_header(&r, p, "Authorization", &a, &alen);
    if (count && ((const uint8_t *)a < p || (const uint8_t *)a + alen > p + r.head_len))
        abort();
    tb_notary_keys *k = NULL;
    tb_err err;
    if (tb_notary_keys_parse(KEYS, sizeof KEYS - 1, "fuzz", &k, &err) < 0)
        abort();
    const char *name = NULL;
    if (count == 1 && tb_notary_keys_check(k, a, alen, &name) == TB_NOTARY_AUTH_OK &&
        strcmp(name, "fuzz"))
        abort();
    tb_notary_keys_free(k);
}

static void response(const uint8_t *p, size_t n, int head)
{
    tb_http_resp r;
    tb_http_resp_init(&r);
    r.head = head;
    size_t used = 0;
    int rc = tb_http_resp_feed(&r, p, n, &used);
    if (used > n)
        abort();
    if (rc == TB_HTTP_MORE)
        rc = tb_http_resp_eof(&r);
    if (rc == TB_HTTP_DONE && head && r.body_bytes)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    tb_err err;
    switch (data[0] % 4) {
    case 0:
        request_head(p, n);
        break;
    case 1: {
        tb_notary_session_req q;
        if (tb_notary_session_req_parse((const char *)p, n, &q, &err) == 0 && q.nonce_len > 64)
            abort();
        break;
    }
    case 2: {
        tb_notary_notarize_req q;
        if (tb_notary_notarize_req_parse((const char *)p, n, &q, &err) == 0) {
            if (!q.port || !tb_notary_dns_name_valid(q.server_name))
                abort();
            tb_notary_notarize_req_clear(&q);
        }
        break;
    }
    default:
        response(p, n, 0);
        response(p, n, 1);
    }
    return 0;
}
