/* Unit tests for src/notary/server, in process: a notary on a free loopback
 * port, an in-process TLS target, the real client; and raw HTTP for the
 * error paths (limits, unknown and replayed sessions, bad requests, stalling
 * clients, oversized heads). The TEE case uses a test-double quote source
 * (the real providers are covered by test_notary_tee.c and the e2e tests). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <poll.h>
#include <string.h>

#include <curl/curl.h>

#include "base/clock.h"
#include "notary/client.h"
#include "notary/codec.h"
#include "notary/proto.h"
#include "notary/server.h"
#include "notary_util.h"

static const char RESP[] = "HTTP/1.1 200 OK\r\nContent-Length: 11\r\nConnection: close\r\n\r\n"
                           "hello world";

static int fake_quote(void *ctx, const uint8_t rd[64], uint8_t **q, size_t *len, tb_err *err)
{
    (void)ctx;
    (void)err;
    *q = malloc(66);
    memcpy(*q, "Q:", 2);
    memcpy(*q + 2, rd, 64);
    *len = 66;
    return 0;
}
static const tb_quote_source FAKE_TEE = {"sim", 1, NULL, fake_quote};

typedef struct fx {
    test_pki pki;
    test_tls_server tls;
    tb_notary_key key;
    tb_target target;
    tb_notary_server *srv;
    char url[64];
} fx;

static int start_tls(fx *f, int with_tee, int concurrency, int tls_conns, int https)
{
    tb_err err;
    memset(f, 0, sizeof *f);
    if (test_pki_make(&f->pki) < 0 || test_tls_start(&f->tls, &f->pki, RESP, tls_conns) < 0 ||
        tb_notary_key_generate(&f->key, &err) < 0)
        return -1;
    tb_allowlist l;
    tb_allowlist_loopback(&l);
    const char *cas[] = {f->pki.ca};
    if (tb_target_init(&f->target, cas, 1, 0, &l, 5000, &err) < 0)
        return -1;
    tb_notary_config cfg = {
        .addr = "127.0.0.1",
        .port = 0,
        .key = &f->key,
        .tee = with_tee ? &FAKE_TEE : NULL,
        .target = &f->target,
        .max_sent = 4096,
        .max_recv = 16384,
        .concurrency = concurrency,
        .session_ttl_ns = 60000000000ull,
        .max_sessions = 64,
        .io_timeout_ms = 1500,
        .tls_cert = https ? f->pki.cert : NULL,
        .tls_key = https ? f->pki.key : NULL,
    };
    if (tb_notary_server_start(&cfg, &f->srv, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    snprintf(f->url, sizeof f->url, "%s://127.0.0.1:%u", https ? "https" : "http",
             tb_notary_server_port(f->srv));
    return 0;
}

static int start(fx *f, int with_tee, int concurrency, int tls_conns)
{
    return start_tls(f, with_tee, concurrency, tls_conns, 0);
}

static void stop(fx *f)
{
    tb_notary_server_stop(f->srv);
    test_tls_stop(&f->tls);
    tb_target_free(&f->target);
    tb_notary_key_free(&f->key);
    test_pki_remove(&f->pki);
}

static int dial(fx *f)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons(tb_notary_server_port(f->srv)),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    return fd;
}

/* Sends raw bytes, reads the whole reply (the server closes), returns the status. */
static int raw(fx *f, const char *req, size_t len, tb_buf *reply)
{
    int fd = dial(f);
    assert_int_equal(send(fd, req, len, MSG_NOSIGNAL), (ssize_t)len);
    tb_buf_reset(reply);
    char b[4096];
    ssize_t n;
    size_t total;
    tb_err err;
    /* until one complete response (the connection may be kept alive) or close */
    while ((n = recv(fd, b, sizeof b, 0)) > 0) {
        tb_buf_append(reply, b, (size_t)n);
        if (tb_http_response_complete(reply->p, reply->len, 0, 0, &total, &err) == 1)
            break;
    }
    close(fd);
    int status = 0;
    if (reply->len > 12)
        sscanf((char *)reply->p, "HTTP/1.1 %d", &status);
    return status;
}

static int post(fx *f, const char *path, const char *body, tb_buf *reply)
{
    char req[8192];
    int n =
        snprintf(req, sizeof req, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: %zu\r\n\r\n%s",
                 path, strlen(body), body);
    return raw(f, req, (size_t)n, reply);
}

static tb_notarize_opts opts(fx *f, int tee)
{
    tb_notarize_opts o = {
        .notary_url = f->url,
        .host = "127.0.0.1",
        .port = f->tls.port,
        .server_name = "test-server.io",
        .uri = "/formats/json?size=4",
        .max_sent = 4096,
        .max_recv = 16384,
        .tee = tee,
        .timeout_ms = 5000,
    };
    return o;
}

static void test_notarize_no_tee(void **state)
{
    (void)state;
    fx f;
    assert_int_equal(start(&f, 0, 4, 1), 0);
    tb_err err;
    tb_notarize_result res;
    tb_notarize_opts o = opts(&f, 0);
    assert_int_equal(tb_notary_client_run(&o, &res, &err), 0);
    assert_int_equal(res.doc.response.len, strlen(RESP));
    assert_memory_equal(res.doc.response.p, RESP, strlen(RESP));
    assert_int_equal(res.doc.tee.len, 4);
    assert_int_equal(res.doc.nonce.len, 0);
    assert_int_equal(res.has_evidence, 0);
    assert_memory_equal(res.doc.notary_key.p, f.key.spki.p, f.key.spki.len);
    X509_STORE *st = tb_notary_trust_store(f.pki.ca, &err);
    assert_int_equal(tb_doc_verify_chain(&res.doc, st, &err), 0);
    X509_STORE_free(st);
    tb_notarize_result_free(&res);
    /* TEE asked of a notary without one: a clear error */
    o.tee = 1;
    assert_int_equal(tb_notary_client_run(&o, &res, &err), -1);
    assert_non_null(strstr(err.msg, "without a TEE"));
    tb_notarize_result_free(&res);
    stop(&f);
}

static void test_notarize_tee(void **state)
{
    (void)state;
    fx f;
    assert_int_equal(start(&f, 1, 4, 1), 0);
    tb_err err;
    tb_notarize_result res;
    tb_notarize_opts o = opts(&f, 1);
    assert_int_equal(tb_notary_client_run(&o, &res, &err), 0);
    assert_int_equal(res.has_evidence, 1);
    assert_string_equal(res.evidence.tee, "sim");
    assert_int_equal(res.doc.nonce.len, 32);
    assert_memory_equal(res.doc.nonce.p, res.nonce, 32);
    assert_int_equal(tb_evidence_check(&res.evidence, res.doc.notary_key.p, res.doc.notary_key.len,
                                       res.nonce, 32, NULL, &err),
                     0);
    /* the fake quote carries the report data: it must be the binding one */
    assert_memory_equal(res.evidence.quote.p + 2, res.evidence.report_data, 64);
    tb_notarize_result_free(&res);
    /* /info carries evidence for the key with an empty nonce */
    tb_buf reply = {0};
    assert_int_equal(raw(&f, "GET /info HTTP/1.1\r\n\r\n", 22, &reply), 200);
    assert_non_null(strstr((char *)reply.p, "\"tee\":\"sim\""));
    assert_non_null(strstr((char *)reply.p, "\"simulated\":true"));
    assert_non_null(strstr((char *)reply.p, "\"nonce\":\"\""));
    tb_buf_clear(&reply);
    stop(&f);
}

static void test_api_errors(void **state)
{
    (void)state;
    fx f;
    assert_int_equal(start(&f, 0, 4, 1), 0);
    tb_buf r = {0};
    assert_int_equal(raw(&f, "GET /healthcheck HTTP/1.1\r\n\r\n", 29, &r), 200);
    assert_int_equal(raw(&f, "GET /info HTTP/1.1\r\n\r\n", 22, &r), 200);
    assert_non_null(strstr((char *)r.p, "BEGIN PUBLIC KEY"));
    assert_int_equal(raw(&f, "GET /nope HTTP/1.1\r\n\r\n", 22, &r), 404);
    assert_int_equal(raw(&f, "POST /info HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 42, &r), 405);
    assert_int_equal(raw(&f, "GET /session HTTP/1.1\r\n\r\n", 25, &r), 405);
    assert_int_equal(raw(&f, "garbage\r\n\r\n", 11, &r), 400);
    assert_int_equal(post(&f, "/session", "{\"maxSentData\":4097}", &r), 400);
    assert_non_null(strstr((char *)r.p, "maxSentData 4097 exceeds this notary's limit of 4096"));
    assert_int_equal(post(&f, "/session", "{\"maxRecvData\":99999}", &r), 400);
    assert_non_null(strstr((char *)r.p, "maxRecvData 99999 exceeds"));
    assert_int_equal(post(&f, "/session", "not json", &r), 400);
    const char *body = "{\"host\":\"127.0.0.1\",\"port\":1,\"serverName\":\"a.b\","
                       "\"request\":\"R0VUIC8gSFRUUC8xLjENCg0K\"}";
    assert_int_equal(post(&f, "/notarize", body, &r), 400); /* no sessionId */
    assert_int_equal(post(&f, "/notarize?sessionId=00000000000000000000000000000000", body, &r),
                     404);
    assert_non_null(strstr((char *)r.p, "unknown session"));
    /* a session with a small maxSentData refuses a larger request */
    assert_int_equal(post(&f, "/session", "{\"maxSentData\":4}", &r), 200);
    char id[33], path[80];
    const char *at = strstr((char *)r.p, "\"sessionId\":\"");
    assert_non_null(at);
    memcpy(id, at + 13, 32);
    id[32] = 0;
    snprintf(path, sizeof path, "/notarize?sessionId=%s", id);
    assert_int_equal(post(&f, path, body, &r), 422);
    assert_non_null(strstr((char *)r.p, "maxSentData (4 bytes)"));
    /* replaying the (now used) session */
    assert_int_equal(post(&f, path, body, &r), 409);
    assert_non_null(strstr((char *)r.p, "already used"));
    /* a bad body does not consume a session */
    assert_int_equal(post(&f, "/session", "{}", &r), 200);
    at = strstr((char *)r.p, "\"sessionId\":\"");
    memcpy(id, at + 13, 32);
    snprintf(path, sizeof path, "/notarize?sessionId=%s", id);
    assert_int_equal(post(&f, path, "{\"host\":1}", &r), 400);
    /* a disallowed target (the session is used by the attempt) */
    const char *far = "{\"host\":\"192.0.2.1\",\"port\":443,\"serverName\":\"a.b\","
                      "\"request\":\"R0VUIC8gSFRUUC8xLjENCg0K\"}";
    assert_int_equal(post(&f, path, far, &r), 403);
    assert_non_null(strstr((char *)r.p, "not allowed"));
    /* an oversized head */
    tb_buf big = {0};
    tb_buf_puts(&big, "GET /info HTTP/1.1\r\nX: ");
    while (big.len < 9000)
        tb_buf_puts(&big, "aaaaaaaaaa");
    tb_buf_puts(&big, "\r\n\r\n");
    assert_int_equal(raw(&f, (char *)big.p, big.len, &r), 431);
    tb_buf_clear(&big);
    tb_buf_clear(&r);
    stop(&f);
}

static void test_keep_alive_and_pipelining(void **state)
{
    (void)state;
    fx f;
    assert_int_equal(start(&f, 0, 2, 1), 0);
    /* two pipelined requests, then one with Connection: close: three answers, then EOF */
    const char *reqs = "GET /healthcheck HTTP/1.1\r\n\r\n"
                       "POST /session HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}"
                       "GET /info HTTP/1.1\r\nConnection: close\r\n\r\n";
    int fd = dial(&f);
    assert_int_equal(send(fd, reqs, strlen(reqs), 0), (ssize_t)strlen(reqs));
    tb_buf all = {0};
    char b[4096];
    ssize_t n;
    while ((n = recv(fd, b, sizeof b, 0)) > 0)
        tb_buf_append(&all, b, (size_t)n);
    close(fd);
    const char *p = (const char *)all.p;
    assert_non_null(strstr(p, "{\"status\":\"ok\"}"));
    assert_non_null(strstr(p, "\"sessionId\""));
    assert_non_null(strstr(p, "BEGIN PUBLIC KEY"));
    assert_non_null(strstr(p, "Connection: keep-alive"));
    assert_non_null(strstr(p, "Connection: close"));
    /* an error closes the connection: the request after it gets no answer */
    const char *bad = "GET /nope HTTP/1.1\r\n\r\nGET /healthcheck HTTP/1.1\r\n\r\n";
    fd = dial(&f);
    assert_int_equal(send(fd, bad, strlen(bad), 0), (ssize_t)strlen(bad));
    tb_buf_reset(&all);
    while ((n = recv(fd, b, sizeof b, 0)) > 0)
        tb_buf_append(&all, b, (size_t)n);
    close(fd);
    assert_non_null(strstr((char *)all.p, "404"));
    assert_null(strstr((char *)all.p, "\"status\":\"ok\""));
    tb_buf_clear(&all);
    stop(&f);
}

static void test_stalling_client(void **state)
{
    (void)state;
    fx f;
    assert_int_equal(start(&f, 0, 2, 1), 0);
    /* one client sends half a request and stalls; the notary keeps serving */
    int stalled = dial(&f);
    assert_int_equal(send(stalled, "POST /session HTTP/1.1\r\n", 24, 0), 24);
    tb_buf r = {0};
    uint64_t t0 = tb_mono_ns();
    assert_int_equal(raw(&f, "GET /healthcheck HTTP/1.1\r\n\r\n", 29, &r), 200);
    assert_true(tb_mono_ns() - t0 < 1000000000u); /* not waiting for the staller */
    tb_err err;
    tb_notarize_result res;
    tb_notarize_opts o = opts(&f, 0);
    assert_int_equal(tb_notary_client_run(&o, &res, &err), 0);
    tb_notarize_result_free(&res);
    /* the staller is answered 408 and dropped after the io timeout (1500 ms) */
    struct pollfd p = {stalled, POLLIN, 0};
    assert_int_equal(poll(&p, 1, 6000), 1);
    char b[512] = {0};
    assert_true(recv(stalled, b, sizeof b - 1, 0) > 0);
    assert_non_null(strstr(b, "408"));
    close(stalled);
    tb_buf_clear(&r);
    stop(&f);
}

static void test_https_notary(void **state)
{
    (void)state;
    fx f;
    assert_int_equal(start_tls(&f, 1, 2, 1, 1), 0);
    tb_err err;
    tb_notarize_result res;
    tb_notarize_opts o = opts(&f, 1);
    /* without the CA that signed the notary's certificate: refused */
    assert_int_equal(tb_notary_client_run(&o, &res, &err), -1);
    assert_non_null(strstr(err.msg, "POST /session"));
    tb_notarize_result_free(&res);
    /* a client that stalls in the TLS handshake does not block the other worker */
    int stalled = dial(&f);
    o.notary_ca = f.pki.ca;
    assert_int_equal(tb_notary_client_run(&o, &res, &err), 0);
    assert_int_equal(res.has_evidence, 1);
    assert_int_equal(res.doc.response.len, strlen(RESP));
    tb_notarize_result_free(&res);
    close(stalled);
    /* plain HTTP to the HTTPS notary gets no answer, and the notary goes on */
    tb_buf r = {0};
    assert_int_equal(raw(&f, "GET /healthcheck HTTP/1.1\r\n\r\n", 29, &r), 0);
    tb_buf_clear(&r);
    stop(&f);
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_notarize_no_tee), cmocka_unit_test(test_notarize_tee),
        cmocka_unit_test(test_api_errors),      cmocka_unit_test(test_keep_alive_and_pipelining),
        cmocka_unit_test(test_stalling_client), cmocka_unit_test(test_https_notary),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
