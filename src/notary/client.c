/* notary/client: one notarization over the notary's HTTP API (see client.h).
 * Invariant: a result is returned as successful only when the document's
 * signature verifies and every field the client asked for matches. */
#include "notary/client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/rand.h>

#include "notary/internal.h"
#include "base/curl.h"
#include "base/hex.h"

#define MAX_REPLY (64u << 20)

int tb_notary_build_request(const char *server_name, const char *uri, tb_buf *out, tb_err *err)
{
    if (uri[0] != '/')
        return tb_errf(err, "target uri '%s' must start with '/'", uri);
    for (const char *p = uri; *p; p++)
        if ((unsigned char)*p <= 0x20 || *p == 0x7f)
            return tb_errf(err, "target uri contains a space or control character");
    if (tb_buf_printf(out,
                      "GET %s HTTP/1.1\r\nHost: %s\r\nAccept: */*\r\nConnection: close\r\n"
                      "User-Agent: teebench-notarize/" TEEBENCH_VERSION "\r\n\r\n",
                      uri, server_name) < 0)
        return tb_errf(err, "out of memory");
    return 0;
}

X509_STORE *tb_notary_trust_store(const char *ca_file, tb_err *err)
{
    X509_STORE *st = X509_STORE_new();
    if (!st) {
        tb_errf(err, "out of memory");
        return NULL;
    }
    int ok = ca_file ? X509_STORE_load_file(st, ca_file) : X509_STORE_set_default_paths(st);
    if (ok != 1) {
        tb_err_ssl(err, "loading CA %s", ca_file ? ca_file : "(system store)");
        X509_STORE_free(st);
        return NULL;
    }
    return st;
}

void tb_notary_client_result_clear(tb_notary_client_result *res)
{
    tb_buf_clear(&res->request);
    tb_buf_clear(&res->document);
    tb_buf_clear(&res->evidence_json);
    tb_notary_evidence_clear(&res->evidence);
    memset(res, 0, sizeof *res);
}

static size_t on_data(char *p, size_t size, size_t n, void *ud)
{
    tb_buf *b = ud;
    size_t len = size * n;
    if (b->len + len > MAX_REPLY || tb_buf_append(b, p, len) < 0)
        return 0;
    return len;
}

/* POSTs body to url and parses the JSON reply object. Non-2xx replies become
 * errors carrying the notary's "error" message. Returns a new reference. */
static json_t *post_json(CURL *c, const char *url, const char *body, size_t len, tb_buf *reply,
                         const char *what, tb_err *err)
{
    tb_buf_reset(reply);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, reply);
    CURLcode rc = curl_easy_perform(c);
    if (rc != CURLE_OK) {
        tb_errf(err, "%s: %s", what, curl_easy_strerror(rc));
        return NULL;
    }
    long code = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    json_t *o = json_loadb((const char *)reply->p, reply->len, 0, NULL);
    if (o && !json_is_object(o)) {
        json_decref(o);
        o = NULL;
    }
    if (code != 200) {
        const char *msg = o ? json_string_value(json_object_get(o, "error")) : NULL;
        tb_errf(err, "%s: notary answered %ld: %s", what, code, msg ? msg : "(no message)");
        json_decref(o);
        return NULL;
    }
    if (!o)
        tb_errf(err, "%s: the notary's reply is not a JSON object", what);
    return o;
}

static int view_is(tb_notary_view v, const void *p, size_t len)
{
    return v.len == len && (len == 0 || !memcmp(v.p, p, len));
}

/* Everything the client asked for is what the document says. */
static int check_doc(const tb_notary_client_opts *o, const tb_notary_client_result *res,
                     tb_err *err)
{
    const tb_notary_doc *d = &res->doc;
    if (memcmp(d->session_id, res->session_id, 16))
        return tb_errf(err, "document: session id is not this session's");
    if (!view_is(d->server_name, o->server_name, strlen(o->server_name)))
        return tb_errf(err, "document: server name differs from %s", o->server_name);
    if (!view_is(d->target_host, o->host, strlen(o->host)) || d->target_port != o->port)
        return tb_errf(err, "document: target differs from %s:%u", o->host, o->port);
    if (!view_is(d->request, res->request.p, res->request.len))
        return tb_errf(err, "document: request bytes differ from what the client sent");
    if (d->response.len > o->max_recv)
        return tb_errf(err, "document: response larger than maxRecvData");
    if (o->tee) {
        if (view_is(d->tee, "none", 4))
            return tb_errf(err, "document: TEE attestation was asked but the document says none");
        if (!view_is(d->nonce, res->nonce, sizeof res->nonce))
            return tb_errf(err, "document: nonce differs from the one sent");
        const char *tee = tb_tee_name(res->evidence.tee);
        if (!view_is(d->tee, tee, strlen(tee)))
            return tb_errf(err, "document and evidence disagree on the TEE kind");
    } else if (!view_is(d->tee, "none", 4)) {
        return tb_errf(err, "document: TEE attestation was not asked but the document says %.*s",
                       (int)d->tee.len, (const char *)d->tee.p);
    }
    return 0;
}

static int take_reply(const tb_notary_client_opts *o, json_t *r, tb_notary_client_result *res,
                      tb_err *err)
{
    json_t *doc = json_object_get(r, "document");
    if (!json_is_string(doc) ||
        tb_notary_unb64_append(&res->document, json_string_value(doc), json_string_length(doc)) < 0)
        return tb_errf(err, "notarize: reply has no base64 document");
    if (tb_notary_doc_verify(res->document.p, res->document.len, &res->doc, err) < 0)
        return -1;
    json_t *ev = json_object_get(r, "evidence");
    if (o->tee) {
        char *txt = json_is_object(ev) ? json_dumps(ev, JSON_COMPACT) : NULL;
        if (!txt)
            return tb_errf(err,
                           "notarize: TEE attestation was asked but the reply has no evidence");
        int rc = tb_buf_puts(&res->evidence_json, txt);
        free(txt);
        if (rc < 0)
            return tb_errf(err, "out of memory");
        if (tb_notary_evidence_parse((const char *)res->evidence_json.p, res->evidence_json.len,
                                     &res->evidence, err) < 0)
            return -1;
        res->has_evidence = 1;
    }
    return check_doc(o, res, err);
}

int tb_notary_client_run(const tb_notary_client_opts *o, tb_notary_client_result *res, tb_err *err)
{
    memset(res, 0, sizeof *res);
    if (tb_notary_build_request(o->server_name, o->uri, &res->request, err) < 0)
        return -1;
    if (o->tee && RAND_bytes(res->nonce, sizeof res->nonce) != 1)
        return tb_err_ssl(err, "nonce");
    for (const char *k = o->api_key; k && *k; k++)
        if ((unsigned char)*k <= 0x20 || (unsigned char)*k >= 0x7f)
            return tb_errf(err, "the API key has a space or a character that is not visible "
                                "ASCII");
    if (o->api_key && !*o->api_key)
        return tb_errf(err, "the API key is empty");
    CURL *c = curl_easy_init();
    if (!c)
        return tb_curl_load(err) < 0 ? -1 : tb_errf(err, "libcurl initialisation failed");
    tb_buf reply = {0}, body = {0};
    json_t *r = NULL;
    struct curl_slist *hdrs = curl_slist_append(NULL, "Content-Type: application/json");
    hdrs = curl_slist_append(hdrs, "Expect:");
    if (o->api_key) {
        tb_buf h = {0};
        struct curl_slist *more = NULL;
        if (tb_buf_printf(&h, "Authorization: Bearer %s", o->api_key) == 0)
            more = curl_slist_append(hdrs, (const char *)h.p);
        if (h.p)
            OPENSSL_cleanse(h.p, h.len);
        tb_buf_clear(&h);
        if (!more) {
            curl_slist_free_all(hdrs);
            curl_easy_cleanup(c);
            return tb_errf(err, "out of memory");
        }
        hdrs = more;
    }
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, o->timeout_ms > 0 ? o->timeout_ms : 30000L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TCP_NODELAY, 1L);
    if (o->notary_ca)
        curl_easy_setopt(c, CURLOPT_CAINFO, o->notary_ca);
    int rc = -1;
    char url[1024], nonce[65] = "";
    size_t ul = strlen(o->notary_url);
    while (ul && o->notary_url[ul - 1] == '/')
        ul--;
    tb_hex_encode(res->nonce, sizeof res->nonce, nonce);
    tb_buf_printf(&body, "{\"maxSentData\":%llu,\"maxRecvData\":%llu,\"teeAttestation\":%s",
                  (unsigned long long)o->max_sent, (unsigned long long)o->max_recv,
                  o->tee ? "true" : "false");
    if (o->tee)
        tb_buf_printf(&body, ",\"nonce\":\"%s\"", nonce);
    tb_buf_puts(&body, "}");
    snprintf(url, sizeof url, "%.*s/session", (int)ul, o->notary_url);
    r = post_json(c, url, (const char *)body.p, body.len, &reply, "POST /session", err);
    if (!r)
        goto out;
    json_t *sid = json_object_get(r, "sessionId");
    if (!json_is_string(sid) || tb_hex_decode_upto(json_string_value(sid), json_string_length(sid),
                                                   res->session_id, 16) != 16) {
        tb_errf(err, "POST /session: reply has no 32-hex-digit sessionId");
        goto out;
    }
    snprintf(url, sizeof url, "%.*s/notarize?sessionId=%s", (int)ul, o->notary_url,
             json_string_value(sid));
    json_decref(r);
    r = NULL;
    tb_buf_reset(&body);
    json_t *req = json_pack("{s:s, s:i, s:s}", "host", o->host, "port", (int)o->port, "serverName",
                            o->server_name);
    char *head = req ? json_dumps(req, JSON_COMPACT) : NULL;
    json_decref(req);
    if (!head) {
        tb_errf(err, "out of memory");
        goto out;
    }
    /* splice the base64 request into the object: {..., "request": "<b64>"} */
    tb_buf_append(&body, head, strlen(head) - 1);
    free(head);
    tb_buf_puts(&body, ",\"request\":\"");
    tb_notary_b64_append(&body, res->request.p, res->request.len);
    tb_buf_puts(&body, "\"}");
    r = post_json(c, url, (const char *)body.p, body.len, &reply, "POST /notarize", err);
    if (!r || take_reply(o, r, res, err) < 0)
        goto out;
    rc = 0;
out:
    json_decref(r);
    tb_buf_clear(&reply);
    tb_buf_clear(&body);
    curl_slist_free_all(hdrs);
    curl_easy_cleanup(c);
    return rc;
}
