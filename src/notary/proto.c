/* notary/proto: parsers of the notary's JSON bodies (declared in internal.h), and the
 * DNS name check they and the allow-list share (internal.h). No I/O, no
 * global state. */
#include "notary/internal.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "base/hex.h"

/* ---------------------------------------------------------------- JSON bodies */

static json_t *load_object(const char *body, size_t len, tb_err *err)
{
    json_error_t je;
    json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        tb_errf(err, "body is not valid JSON: %s", je.text);
        return NULL;
    }
    if (!json_is_object(root)) {
        json_decref(root);
        tb_errf(err, "body must be a JSON object");
        return NULL;
    }
    return root;
}

static int get_count(json_t *o, const char *key, uint64_t *out, tb_err *err)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) <= 0 ||
        json_integer_value(v) > (json_int_t)1 << 40)
        return tb_errf(err, "%s must be a positive integer", key);
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

/* Parses body as a JSON object, has read fill out from it, and frees it.
 * Returns read's result, or -1 when the body is not a JSON object. */
static int read_body(const char *body, size_t len, int (*read)(json_t *o, void *out, tb_err *err),
                     void *out, tb_err *err)
{
    json_t *o = load_object(body, len, err);
    if (!o)
        return -1;
    int rc = read(o, out, err);
    json_decref(o);
    return rc;
}

static int read_session_req(json_t *o, void *dst, tb_err *err)
{
    tb_notary_session_req *out = dst;
    if (get_count(o, "maxSentData", &out->max_sent, err) < 0 ||
        get_count(o, "maxRecvData", &out->max_recv, err) < 0)
        return -1;
    json_t *t = json_object_get(o, "teeAttestation");
    if (t && !json_is_boolean(t))
        return tb_errf(err, "teeAttestation must be true or false");
    out->tee = t && json_is_true(t);
    json_t *n = json_object_get(o, "nonce");
    if (n) {
        const char *s = json_string_value(n);
        size_t sl = s ? json_string_length(n) : 0;
        long got = s && sl >= 2 ? tb_hex_decode_upto(s, sl, out->nonce, sizeof out->nonce) : -1;
        if (got < 1)
            return tb_errf(err, "nonce must be hex of 1 to 64 bytes");
        out->nonce_len = (size_t)got;
    }
    return 0;
}

int tb_notary_session_req_parse(const char *body, size_t len, tb_notary_session_req *out,
                                tb_err *err)
{
    memset(out, 0, sizeof *out);
    return read_body(body, len, read_session_req, out, err);
}

int tb_notary_dns_name_valid(const char *s)
{
    size_t n = strlen(s), label = 0;
    if (n < 1 || n > 253)
        return 0;
    for (size_t i = 0; i <= n; i++) {
        char c = s[i];
        if (c == '.' || c == 0) {
            if (label == 0 || s[i - 1] == '-')
                return 0;
            label = 0;
            continue;
        }
        if (!(isalnum((unsigned char)c) || c == '-') || (label == 0 && c == '-') || ++label > 63)
            return 0;
    }
    return 1;
}

static int get_str(json_t *o, const char *key, char *out, size_t cap, tb_err *err)
{
    json_t *v = json_object_get(o, key);
    const char *s = json_string_value(v);
    if (!s)
        return tb_errf(err, "%s must be a string", key);
    size_t n = json_string_length(v);
    if (n < 1 || n >= cap)
        return tb_errf(err, "%s must be 1 to %zu bytes", key, cap - 1);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e)
            return tb_errf(err, "%s must be printable ASCII without spaces", key);
    memcpy(out, s, n);
    out[n] = 0;
    return 0;
}

static int read_notarize_req(json_t *o, void *dst, tb_err *err)
{
    tb_notary_notarize_req *out = dst;
    if (get_str(o, "host", out->host, sizeof out->host, err) < 0 ||
        get_str(o, "serverName", out->server_name, sizeof out->server_name, err) < 0)
        return -1;
    if (!tb_notary_dns_name_valid(out->server_name))
        return tb_errf(err, "serverName '%s' is not a DNS host name", out->server_name);
    json_t *port = json_object_get(o, "port");
    if (!json_is_integer(port) || json_integer_value(port) < 1 || json_integer_value(port) > 65535)
        return tb_errf(err, "port must be an integer 1..65535");
    out->port = (uint16_t)json_integer_value(port);
    json_t *r = json_object_get(o, "request");
    const char *s = json_string_value(r);
    if (!s || json_string_length(r) == 0 ||
        tb_notary_unb64_append(&out->request, s, json_string_length(r)) < 0)
        return tb_errf(err, "request must be non-empty base64");
    return 0;
}

int tb_notary_notarize_req_parse(const char *body, size_t len, tb_notary_notarize_req *out,
                                 tb_err *err)
{
    memset(out, 0, sizeof *out);
    int rc = read_body(body, len, read_notarize_req, out, err);
    if (rc < 0)
        tb_notary_notarize_req_clear(out);
    return rc;
}

void tb_notary_notarize_req_clear(tb_notary_notarize_req *r)
{
    tb_buf_clear(&r->request);
}
