/* Unit tests for src/notary/server, in process: a notary on a free loopback
 * port, an in-process TLS target, the real client; and raw HTTP for the
 * error paths (limits, unknown, replayed and expired sessions, refusals that
 * leave the session unused, malformed HTTP, stalling and slow clients,
 * oversized heads, the connection cap, keep-alive limits, session quotas,
 * notarizations in flight per client and per network, API keys (401, the
 * bare and the Bearer form, swapping keys while running), the target deadline
 * and a prompt stop, also when a worker is stuck in a slow TEE quote). The TEE
 * case uses a test-double quote source (the real providers are covered by
 * test_notary_tee.c and the e2e tests). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <poll.h>
#include <signal.h>
#include <string.h>

#include <curl/curl.h>

#include "base/clock.h"
#include "net/http_resp.h"
#include "notary/check.h"
#include "notary/client.h"
#include "notary/internal.h"
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
static const tb_notary_quote_source FAKE_TEE = {TB_TEE_SIM, NULL, fake_quote};

/* A TEE whose quotes after the first (the /info quote at start) take 3 s: a
 * worker busy with something no stop can cancel. */
static int slow_quote(void *ctx, const uint8_t rd[64], uint8_t **q, size_t *len, tb_err *err)
{
    if (__atomic_fetch_add((int *)ctx, 1, __ATOMIC_SEQ_CST) > 0)
        usleep(3000000);
    return fake_quote(NULL, rd, q, len, err);
}

typedef struct fx {
    test_pki pki;
    test_tls_server tls;
    tb_notary_key key;
    tb_notary_target target;
    tb_notary_server *srv;
    char url[64];
} fx;

/* Knobs of a test notary beyond the defaults. */
typedef struct knobs {
    int tee, concurrency, tls_conns, https;
    int trickle_ms;        /* the target trickles its response */
    int silent;            /* the target accepts and never answers the handshake */
    int target_timeout_ms; /* 0: 5000 */
    uint64_t session_ttl_ns;
    size_t per_client, max_conns, inflight_per_client, inflight_per_prefix;
    const tb_notary_keys *keys;
    const tb_notary_quote_source *tee_source; /* instead of FAKE_TEE */
} knobs;

static int start_with(fx *f, knobs k)
{
    tb_err err;
    memset(f, 0, sizeof *f);
    if (test_pki_make(&f->pki) < 0 ||
        test_tls_start_mode(&f->tls, &f->pki, RESP, k.tls_conns, k.trickle_ms, k.silent) < 0 ||
        tb_notary_key_generate(&f->key, &err) < 0)
        return -1;
    tb_notary_allowlist l;
    tb_notary_allowlist_loopback(&l);
    const char *cas[] = {f->pki.ca};
    if (tb_notary_target_init(&f->target, cas, 1, 0, &l,
                              k.target_timeout_ms ? k.target_timeout_ms : 5000, &err) < 0)
        return -1;
    tb_notary_config cfg = {
        .addr = "127.0.0.1",
        .port = 0,
        .key = &f->key,
        .tee = k.tee_source ? k.tee_source
               : k.tee      ? &FAKE_TEE
                            : NULL,
        .target = &f->target,
        .max_sent = 4096,
        .max_recv = 16384,
        .concurrency = k.concurrency,
        .session_ttl_ns = k.session_ttl_ns ? k.session_ttl_ns : 60000000000ull,
        .max_sessions = 64,
        .sessions_per_client = k.per_client,
        .notarizations_per_client = k.inflight_per_client,
        .notarizations_per_prefix = k.inflight_per_prefix,
        .keys = k.keys,
        .max_connections = k.max_conns,
        .io_timeout_ms = 1500,
        .tls_cert = k.https ? f->pki.cert : NULL,
        .tls_key = k.https ? f->pki.key : NULL,
    };
    if (tb_notary_server_start(&cfg, &f->srv, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    snprintf(f->url, sizeof f->url, "%s://127.0.0.1:%u", k.https ? "https" : "http",
             tb_notary_server_port(f->srv));
    return 0;
}

static int start(fx *f, int with_tee, int concurrency, int tls_conns)
{
    return start_with(f,
                      (knobs){.tee = with_tee, .concurrency = concurrency, .tls_conns = tls_conns});
}

static void stop(fx *f)
{
    tb_notary_server_stop(f->srv);
    test_tls_stop(&f->tls);
    tb_notary_target_clear(&f->target);
    tb_notary_key_clear(&f->key);
    test_pki_remove(&f->pki);
}

/* A connection to the notary from 127.0.0.<src_last> (quotas are per address),
 * or 127.0.<src_last / 256>.<src_last % 256> above 255 (another /24). */
static int dial_from(fx *f, int src_last)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in src = {.sin_family = AF_INET,
                              .sin_addr.s_addr = htonl(0x7f000000u | (uint32_t)src_last)};
    assert_int_equal(bind(fd, (struct sockaddr *)&src, sizeof src), 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons(tb_notary_server_port(f->srv)),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    return fd;
}

static int dial(fx *f)
{
    return dial_from(f, 1);
}

/* Reads one complete response (or to EOF) from fd, leaving the bytes of later
 * responses in the socket (peek, then take what the parser used); returns its
 * status (0: none). */
static int read_reply(int fd, tb_buf *reply)
{
    tb_buf_reset(reply);
    tb_http_resp p;
    tb_http_resp_init(&p);
    char b[4096];
    ssize_t n;
    int rc = TB_HTTP_MORE;
    while (rc == TB_HTTP_MORE && (n = recv(fd, b, sizeof b, MSG_PEEK)) > 0) {
        size_t used = 0;
        rc = tb_http_resp_feed(&p, (const uint8_t *)b, (size_t)n, &used);
        tb_buf_append(reply, b, used);
        if (recv(fd, b, used, 0) != (ssize_t)used)
            break;
    }
    tb_buf_puts(reply, ""); /* NUL-terminated */
    return rc == TB_HTTP_DONE ? p.status : 0;
}

/* Sends raw bytes from 127.0.0.<src>, reads one reply, closes; returns the status. */
static int raw_from(fx *f, int src, const char *req, size_t len, tb_buf *reply)
{
    int fd = dial_from(f, src);
    assert_int_equal(send(fd, req, len, MSG_NOSIGNAL), (ssize_t)len);
    int status = read_reply(fd, reply);
    close(fd);
    return status;
}

static int raw(fx *f, const char *req, size_t len, tb_buf *reply)
{
    return raw_from(f, 1, req, len, reply);
}

static int rawz(fx *f, const char *req, tb_buf *reply)
{
    return raw(f, req, strlen(req), reply);
}

static int post_from(fx *f, int src, const char *path, const char *body, tb_buf *reply)
{
    char req[8192];
    int n =
        snprintf(req, sizeof req, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: %zu\r\n\r\n%s",
                 path, strlen(body), body);
    return raw_from(f, src, req, (size_t)n, reply);
}

static int post(fx *f, const char *path, const char *body, tb_buf *reply)
{
    return post_from(f, 1, path, body, reply);
}

/* POST /session {body} and the /notarize path for the new session. */
static void new_session(fx *f, int src, const char *body, char path[80])
{
    tb_buf r = {0};
    assert_int_equal(post_from(f, src, "/session", body, &r), 200);
    const char *at = strstr((char *)r.p, "\"sessionId\":\"");
    assert_non_null(at);
    snprintf(path, 80, "/notarize?sessionId=%.32s", at + 13);
    tb_buf_clear(&r);
}

static tb_notary_client_opts opts(fx *f, int tee)
{
    tb_notary_client_opts o = {
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
    tb_notary_client_result res;
    tb_notary_client_opts o = opts(&f, 0);
    assert_int_equal(tb_notary_client_run(&o, &res, &err), 0);
    assert_int_equal(res.doc.response.len, strlen(RESP));
    assert_memory_equal(res.doc.response.p, RESP, strlen(RESP));
    assert_int_equal(res.doc.tee.len, 4);
    assert_int_equal(res.doc.nonce.len, 0);
    assert_int_equal(res.has_evidence, 0);
    assert_memory_equal(res.doc.notary_key.p, f.key.spki.p, f.key.spki.len);
    X509_STORE *st = tb_notary_trust_store(f.pki.ca, &err);
    assert_int_equal(tb_notary_doc_verify_chain(&res.doc, st, &err), 0);
    X509_STORE_free(st);
    tb_notary_client_result_clear(&res);
    /* TEE asked of a notary without one: a clear error */
    o.tee = 1;
    assert_int_equal(tb_notary_client_run(&o, &res, &err), -1);
    assert_non_null(strstr(err.msg, "without a TEE"));
    tb_notary_client_result_clear(&res);
    stop(&f);
}

static void test_notarize_tee(void **state)
{
    (void)state;
    fx f;
    assert_int_equal(start(&f, 1, 4, 1), 0);
    tb_err err;
    tb_notary_client_result res;
    tb_notary_client_opts o = opts(&f, 1);
    assert_int_equal(tb_notary_client_run(&o, &res, &err), 0);
    assert_int_equal(res.has_evidence, 1);
    assert_string_equal(tb_tee_name(res.evidence.tee), "sim");
    assert_int_equal(res.doc.nonce.len, 32);
    assert_memory_equal(res.doc.nonce.p, res.nonce, 32);
    assert_int_equal(tb_notary_evidence_check(&res.evidence, res.doc.notary_key.p,
                                              res.doc.notary_key.len, res.nonce, 32, NULL, &err),
                     0);
    /* the fake quote carries the report data: it must be the binding one */
    assert_memory_equal(res.evidence.quote.p + 2, res.evidence.report_data, 64);
    /* the verifier's one sequence: key pin, chain, evidence binding */
    X509_STORE *st = tb_notary_trust_store(f.pki.ca, &err);
    tb_notary_check_opts co = {.store = st,
                               .key_sha256 = f.key.spki_sha256,
                               .evidence = &res.evidence,
                               .nonce = res.nonce,
                               .nonce_len = 32};
    tb_notary_check_report rep;
    assert_int_equal(tb_notary_check(&res.doc, &co, &rep, &err), 0);
    assert_int_equal(rep.failed, TB_NOTARY_CHECK_NONE);
    assert_true(rep.doc_ns > 0 && rep.evidence_ns > 0);
    co.nonce = NULL; /* the document's nonce is the one sent */
    assert_int_equal(tb_notary_check(&res.doc, &co, &rep, &err), 0);
    uint8_t other[32];
    memcpy(other, res.nonce, 32);
    other[0] ^= 1;
    co.nonce = other;
    assert_int_equal(tb_notary_check(&res.doc, &co, &rep, &err), -1);
    assert_int_equal(rep.failed, TB_NOTARY_CHECK_EVIDENCE);
    co.key_sha256 = other;
    assert_int_equal(tb_notary_check(&res.doc, &co, &rep, &err), -1);
    assert_int_equal(rep.failed, TB_NOTARY_CHECK_DOC);
    assert_non_null(strstr(err.msg, "another notary key"));
    X509_STORE_free(st);
    /* saved files load back; errors name the file once */
    char dpath[] = "/tmp/tb-test-doc.XXXXXX", epath[] = "/tmp/tb-test-ev.XXXXXX";
    int dfd = mkstemp(dpath), efd = mkstemp(epath);
    assert_true(dfd >= 0 && efd >= 0);
    assert_int_equal(write(dfd, res.document.p, res.document.len), (ssize_t)res.document.len);
    assert_int_equal(write(efd, res.evidence_json.p, res.evidence_json.len),
                     (ssize_t)res.evidence_json.len);
    tb_buf b = {0};
    tb_notary_doc d;
    tb_notary_evidence ev;
    assert_int_equal(tb_notary_doc_load(dpath, &b, &d, &err), 0);
    assert_memory_equal(d.session_id, res.doc.session_id, 16);
    assert_int_equal(tb_notary_evidence_load(epath, &ev, &err), 0);
    assert_memory_equal(ev.report_data, res.evidence.report_data, 64);
    tb_notary_evidence_clear(&ev);
    assert_int_equal(tb_notary_doc_load(epath, &b, &d, &err), -1); /* not a document */
    assert_int_equal(strncmp(err.msg, epath, strlen(epath)), 0);
    assert_null(strstr(err.msg + strlen(epath), epath));
    assert_int_equal(tb_notary_evidence_load(dpath, &ev, &err), -1); /* not evidence */
    assert_int_equal(strncmp(err.msg, dpath, strlen(dpath)), 0);
    tb_notary_evidence_clear(&ev);
    close(dfd);
    close(efd);
    unlink(dpath);
    unlink(epath);
    assert_int_equal(tb_notary_evidence_load(epath, &ev, &err), -1); /* gone */
    assert_int_equal(strncmp(err.msg, epath, strlen(epath)), 0);
    tb_notary_evidence_clear(&ev);
    tb_buf_clear(&b);
    tb_notary_client_result_clear(&res);
    /* /info carries evidence for the key with an empty nonce */
    tb_buf reply = {0};
    assert_int_equal(rawz(&f, "GET /info HTTP/1.1\r\nHost: n\r\n\r\n", &reply), 200);
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
    assert_int_equal(rawz(&f, "GET /healthcheck HTTP/1.1\r\nHost: n\r\n\r\n", &r), 200);
    assert_int_equal(rawz(&f, "GET /info HTTP/1.1\r\nHost: n\r\n\r\n", &r), 200);
    assert_non_null(strstr((char *)r.p, "BEGIN PUBLIC KEY"));
    assert_int_equal(rawz(&f, "GET /nope HTTP/1.1\r\nHost: n\r\n\r\n", &r), 404);
    assert_int_equal(rawz(&f, "POST /info HTTP/1.1\r\nHost: n\r\nContent-Length: 0\r\n\r\n", &r),
                     405);
    assert_int_equal(rawz(&f, "GET /session HTTP/1.1\r\nHost: n\r\n\r\n", &r), 405);
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
    assert_int_equal(post(&f, "/notarize?sessionId=0000000000000000000000000000000000", body, &r),
                     400); /* 34 hex digits */
    /* a session with a small maxSentData refuses a larger request -- and stays
     * usable: a refusal before the target is contacted does not use it up */
    char path[80];
    new_session(&f, 1, "{\"maxSentData\":4}", path);
    assert_int_equal(post(&f, path, body, &r), 422);
    assert_non_null(strstr((char *)r.p, "maxSentData (4 bytes)"));
    assert_int_equal(post(&f, path, body, &r), 422); /* not 409 */
    /* a bad body does not consume a session either */
    new_session(&f, 1, "{}", path);
    assert_int_equal(post(&f, path, "{\"host\":1}", &r), 400);
    /* a disallowed target: 403, and the session is still unused */
    const char *far = "{\"host\":\"192.0.2.1\",\"port\":443,\"serverName\":\"a.b\","
                      "\"request\":\"R0VUIC8gSFRUUC8xLjENCg0K\"}";
    assert_int_equal(post(&f, path, far, &r), 403);
    assert_non_null(strstr((char *)r.p, "not allowed"));
    assert_int_equal(post(&f, path, far, &r), 403); /* not 409 */
    /* now it is used (nothing listens on port 1: 502) and a replay is told so */
    assert_int_equal(post(&f, path, body, &r), 502);
    assert_non_null(strstr((char *)r.p, "cannot connect"));
    assert_int_equal(post(&f, path, body, &r), 409);
    assert_non_null(strstr((char *)r.p, "already used"));
    assert_int_equal(post(&f, path, body, &r), 409);
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

/* The notary's requests are parsed by net/http_req: what it answers to each
 * kind of malformed or unsupported HTTP, at once (never a 408 after the io
 * timeout: bare LF line ends used to wait for a CRLF that never came). */
static void test_http_parsing(void **state)
{
    (void)state;
    fx f;
    assert_int_equal(start(&f, 0, 2, 1), 0);
    tb_buf r = {0};
    struct {
        const char *req;
        int status;
    } cases[] = {
        {"GET /healthcheck HTTP/1.1\nHost: n\n\n", 200},
        {"\r\nGET /healthcheck HTTP/1.0\r\n\r\n", 200},
        {"GET /healthcheck HTTP/1.1\r\n\r\n", 400}, /* 1.1 without Host */
        {"garbage\r\n\r\n", 400},
        {"GET  /info HTTP/1.1\r\nHost: n\r\n\r\n", 400},
        {"GET /info HTTP/1.1\r\nHost: n\r\n Folded: x\r\n\r\n", 400},
        {"POST /session HTTP/1.1\r\nHost: n\r\nContent-Length: -1\r\n\r\n", 400},
        {"POST /session HTTP/1.1\r\nHost: n\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
         400},
        {"GET /info HTTP/1.2\r\nHost: n\r\n\r\n", 505},
        {"POST /session HTTP/1.1\r\nHost: n\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 501},
        {"POST /session HTTP/1.1\r\nHost: n\r\nContent-Length: 999999\r\n\r\n", 413},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t t0 = tb_mono_ns();
        int got = rawz(&f, cases[i].req, &r);
        if (got != cases[i].status)
            fail_msg("case %zu: %d, want %d: %s", i, got, cases[i].status, (char *)r.p);
        assert_true(tb_mono_ns() - t0 < 1000000000u);
    }
    /* 33 header fields: 431 */
    tb_buf many = {0};
    tb_buf_puts(&many, "GET /info HTTP/1.1\r\nHost: n\r\n");
    for (int i = 0; i < 32; i++)
        tb_buf_printf(&many, "X-H%d: v\r\n", i);
    tb_buf_puts(&many, "\r\n");
    assert_int_equal(raw(&f, (char *)many.p, many.len, &r), 431);
    tb_buf_clear(&many);
    tb_buf_clear(&r);
    stop(&f);
}

static void test_keep_alive_and_pipelining(void **state)
{
    (void)state;
    fx f;
    assert_int_equal(start(&f, 0, 2, 1), 0);
    /* two pipelined requests, then one with Connection: close: three answers, then EOF */
    const char *reqs = "GET /healthcheck HTTP/1.1\r\nHost: n\r\n\r\n"
                       "POST /session HTTP/1.1\r\nHost: n\r\nContent-Length: 2\r\n\r\n{}"
                       "GET /info HTTP/1.1\r\nHost: n\r\nConnection: close\r\n\r\n";
    int fd = dial(&f);
    assert_int_equal(send(fd, reqs, strlen(reqs), 0), (ssize_t)strlen(reqs));
    tb_buf all = {0};
    char b[4096];
    ssize_t n;
    while ((n = recv(fd, b, sizeof b, 0)) > 0)
        tb_buf_append(&all, b, (size_t)n);
    tb_buf_puts(&all, "");
    close(fd);
    const char *p = (const char *)all.p;
    assert_non_null(strstr(p, "{\"status\":\"ok\"}"));
    assert_non_null(strstr(p, "\"sessionId\""));
    assert_non_null(strstr(p, "BEGIN PUBLIC KEY"));
    assert_non_null(strstr(p, "Connection: keep-alive"));
    assert_non_null(strstr(p, "Connection: close"));
    /* an error closes the connection: the request after it gets no answer */
    const char *bad =
        "GET /nope HTTP/1.1\r\nHost: n\r\n\r\nGET /healthcheck HTTP/1.1\r\nHost: n\r\n\r\n";
    fd = dial(&f);
    assert_int_equal(send(fd, bad, strlen(bad), 0), (ssize_t)strlen(bad));
    tb_buf_reset(&all);
    while ((n = recv(fd, b, sizeof b, 0)) > 0)
        tb_buf_append(&all, b, (size_t)n);
    tb_buf_puts(&all, "");
    close(fd);
    assert_non_null(strstr((char *)all.p, "404"));
    assert_null(strstr((char *)all.p, "\"status\":\"ok\""));
    /* at most 100 requests on one connection: the 100th says close, then EOF */
    tb_buf many = {0};
    for (int i = 0; i < 101; i++)
        tb_buf_puts(&many, "GET /healthcheck HTTP/1.1\r\nHost: n\r\n\r\n");
    fd = dial(&f);
    assert_int_equal(send(fd, many.p, many.len, 0), (ssize_t)many.len);
    int answers = 0, closes = 0;
    for (;;) {
        int st = read_reply(fd, &all);
        if (!st)
            break;
        answers++;
        closes += strstr((char *)all.p, "Connection: close") != NULL;
    }
    close(fd);
    assert_int_equal(answers, 100);
    assert_int_equal(closes, 1);
    tb_buf_clear(&many);
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
    assert_int_equal(rawz(&f, "GET /healthcheck HTTP/1.1\r\nHost: n\r\n\r\n", &r), 200);
    assert_true(tb_mono_ns() - t0 < 1000000000u); /* not waiting for the staller */
    tb_err err;
    tb_notary_client_result res;
    tb_notary_client_opts o = opts(&f, 0);
    assert_int_equal(tb_notary_client_run(&o, &res, &err), 0);
    tb_notary_client_result_clear(&res);
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

/* Item 1 of issue 12: 300 clients dripping valid requests a few bytes at a
 * time hold no thread: with 2 workers, health checks and a notarization are
 * answered at once, and each dripper gets a 408 when its request's budget
 * (1.5 s here) is spent, however steadily it sends. */
static void test_slow_clients(void **state)
{
    (void)state;
    fx f;
    assert_int_equal(start(&f, 0, 2, 1), 0);
    enum { N = 300 };
    static int fds[N];
    const char *req = "POST /session HTTP/1.1\r\nHost: n\r\nContent-Length: 2\r\n\r\n{}";
    for (int i = 0; i < N; i++)
        fds[i] = dial_from(&f, 2 + i % 200);
    tb_buf r = {0};
    uint64_t start_ns = tb_mono_ns(), worst = 0;
    for (size_t pos = 0; pos < 12; pos += 3) { /* 12 bytes each, 3 every 150 ms */
        for (int i = 0; i < N; i++)
            assert_int_equal(send(fds[i], req + pos, 3, MSG_NOSIGNAL), 3);
        uint64_t t0 = tb_mono_ns();
        assert_int_equal(rawz(&f, "GET /healthcheck HTTP/1.1\r\nHost: n\r\n\r\n", &r), 200);
        uint64_t dt = tb_mono_ns() - t0;
        worst = dt > worst ? dt : worst;
        usleep(150000);
    }
    tb_err err;
    tb_notary_client_result res;
    tb_notary_client_opts o = opts(&f, 0);
    assert_int_equal(tb_notary_client_run(&o, &res, &err), 0);
    tb_notary_client_result_clear(&res);
    assert_true(worst < 500000000u);
    /* keep dripping: the budget ends each request with 408 at ~1.5 s */
    int got408 = 0;
    for (int i = 0; i < N; i++) {
        send(fds[i], req + 12, 3, MSG_NOSIGNAL);
        struct pollfd p = {fds[i], POLLIN, 0};
        if (poll(&p, 1, 3000) == 1 && read_reply(fds[i], &r) == 408)
            got408++;
        close(fds[i]);
    }
    assert_int_equal(got408, N);
    assert_true(tb_mono_ns() - start_ns < 6000000000u);
    tb_buf_clear(&r);
    stop(&f);
}

/* At max_connections a new connection evicts the one that waited longest. */
static void test_connection_cap(void **state)
{
    (void)state;
    fx f;
    assert_int_equal(start_with(&f, (knobs){.concurrency = 1, .tls_conns = 1, .max_conns = 8}), 0);
    int idle[12];
    for (int i = 0; i < 12; i++)
        idle[i] = dial(&f);
    tb_buf r = {0};
    uint64_t t0 = tb_mono_ns();
    assert_int_equal(rawz(&f, "GET /healthcheck HTTP/1.1\r\nHost: n\r\n\r\n", &r), 200);
    assert_true(tb_mono_ns() - t0 < 1000000000u);
    /* the oldest ones were closed */
    char b[16];
    struct pollfd p = {idle[0], POLLIN, 0};
    assert_int_equal(poll(&p, 1, 1000), 1);
    assert_int_equal(recv(idle[0], b, sizeof b, 0), 0);
    for (int i = 0; i < 12; i++)
        close(idle[i]);
    tb_buf_clear(&r);
    stop(&f);
}

/* Item 2 of issue 12: a claimed session frees its slot, one client cannot
 * fill the table, replays and expired sessions are answered consistently. */
static void test_session_limits(void **state)
{
    (void)state;
    fx f;
    assert_int_equal(start_with(&f, (knobs){.concurrency = 2,
                                            .tls_conns = 70,
                                            .per_client = 3,
                                            .session_ttl_ns = 300000000ull}),
                     0);
    tb_buf r = {0};
    char path[80];
    /* one client (127.0.0.5): three open sessions, then 429 */
    for (int i = 0; i < 3; i++)
        new_session(&f, 5, "{}", path);
    assert_int_equal(post_from(&f, 5, "/session", "{}", &r), 429);
    assert_non_null(strstr((char *)r.p, "open sessions"));
    /* others are not affected */
    new_session(&f, 6, "{}", path);
    /* the table holds 64 open sessions; 70 notarizations in a row from one client
     * (3 open at most) succeed, because each claim frees its slot */
    tb_err err;
    for (int i = 0; i < 70; i++) {
        tb_notary_client_result res;
        tb_notary_client_opts o = opts(&f, 0);
        if (tb_notary_client_run(&o, &res, &err) != 0)
            fail_msg("notarization %d: %s", i, err.msg);
        tb_notary_client_result_clear(&res);
    }
    /* expiry (300 ms): 410, and again 410 (not 404) */
    const char *body = "{\"host\":\"127.0.0.1\",\"port\":1,\"serverName\":\"a.b\","
                       "\"request\":\"R0VUIC8gSFRUUC8xLjENCg0K\"}";
    usleep(400000);
    assert_int_equal(post(&f, path, body, &r), 410);
    assert_non_null(strstr((char *)r.p, "session expired"));
    assert_int_equal(post(&f, path, body, &r), 410);
    /* 127.0.0.5's sessions expired too: it may open new ones */
    new_session(&f, 5, "{}", path);
    tb_buf_clear(&r);
    stop(&f);
}

/* One client cannot hold every worker: at most notarizations_per_client of
 * its POST /notarize are in flight; the next is 429 and leaves its session
 * unused; other clients go on. */
static void test_inflight_per_client(void **state)
{
    (void)state;
    fx f;
    assert_int_equal(start_with(&f, (knobs){.concurrency = 4,
                                            .tls_conns = 8,
                                            .silent = 1,
                                            .target_timeout_ms = 800,
                                            .inflight_per_client = 2}),
                     0);
    char p[3][80], q[80], req[1024];
    for (int i = 0; i < 3; i++)
        new_session(&f, 5, "{}", p[i]);
    new_session(&f, 6, "{}", q);
    char body[256];
    snprintf(body, sizeof body,
             "{\"host\":\"127.0.0.1\",\"port\":%u,\"serverName\":\"test-server.io\","
             "\"request\":\"R0VUIC8gSFRUUC8xLjENCg0K\"}",
             f.tls.port);
    /* two notarizations of 127.0.0.5 wait for the silent target */
    int fd[2];
    for (int i = 0; i < 2; i++) {
        int n = snprintf(req, sizeof req,
                         "POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: %zu\r\n\r\n%s", p[i],
                         strlen(body), body);
        fd[i] = dial_from(&f, 5);
        assert_int_equal(send(fd[i], req, (size_t)n, MSG_NOSIGNAL), n);
    }
    usleep(100000); /* the loop has routed them */
    tb_buf r = {0};
    uint64_t t0 = tb_mono_ns();
    assert_int_equal(post_from(&f, 5, p[2], body, &r), 429);
    assert_non_null(strstr((char *)r.p, "2 notarizations in flight"));
    assert_true(tb_mono_ns() - t0 < 500000000ull); /* answered at once */
    /* another client (of another /24: the network's quota is the same 2) is not
     * limited: its notarization reaches the target */
    assert_int_equal(post_from(&f, 256 + 6, q, body, &r), 504);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(read_reply(fd[i], &r), 504);
        close(fd[i]);
    }
    /* the refused session is still open: a refusal before the claim (403),
     * not "already used" (409) */
    const char *other = "{\"host\":\"10.0.0.1\",\"port\":443,\"serverName\":\"test-server.io\","
                        "\"request\":\"R0VUIC8gSFRUUC8xLjENCg0K\"}";
    assert_int_equal(post_from(&f, 5, p[2], other, &r), 403);
    tb_buf_clear(&r);
    stop(&f);
}

/* Issue 19: notarizations in flight are counted by network as well: other
 * addresses of the same /24 share its quota, another /24 does not. */
static void test_inflight_per_prefix(void **state)
{
    (void)state;
    fx f;
    assert_int_equal(start_with(&f, (knobs){.concurrency = 4,
                                            .tls_conns = 8,
                                            .silent = 1,
                                            .target_timeout_ms = 800,
                                            .inflight_per_client = 2,
                                            .inflight_per_prefix = 2}),
                     0);
    char p[3][80], q[80], req[1024];
    for (int i = 0; i < 3; i++)
        new_session(&f, 5 + i, "{}", p[i]);
    new_session(&f, 256 + 5, "{}", q); /* 127.0.1.5 */
    char body[256];
    snprintf(body, sizeof body,
             "{\"host\":\"127.0.0.1\",\"port\":%u,\"serverName\":\"test-server.io\","
             "\"request\":\"R0VUIC8gSFRUUC8xLjENCg0K\"}",
             f.tls.port);
    int fd[2];
    for (int i = 0; i < 2; i++) { /* 127.0.0.5 and 127.0.0.6 wait for the silent target */
        int n = snprintf(req, sizeof req,
                         "POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: %zu\r\n\r\n%s", p[i],
                         strlen(body), body);
        fd[i] = dial_from(&f, 5 + i);
        assert_int_equal(send(fd[i], req, (size_t)n, MSG_NOSIGNAL), n);
    }
    usleep(100000);
    tb_buf r = {0};
    assert_int_equal(post_from(&f, 7, p[2], body, &r), 429); /* 127.0.0.7: same /24 */
    assert_non_null(strstr((char *)r.p, "network (IPv4 /24, IPv6 /64) has 2 notarizations"));
    assert_int_equal(post_from(&f, 256 + 5, q, body, &r), 504); /* another /24 goes on */
    for (int i = 0; i < 2; i++) {
        assert_int_equal(read_reply(fd[i], &r), 504);
        close(fd[i]);
    }
    tb_notary_server_stats st;
    tb_notary_server_stats_get(f.srv, &st);
    assert_int_equal(st.over_quota, 1);
    tb_buf_clear(&r);
    stop(&f);
}

/* Issue 19: API keys. Without or with a wrong key, POST /session and POST
 * /notarize are 401 (JSON error, WWW-Authenticate, counted) and reach no
 * worker; the health check and /info stay open; the Bearer form and the bare
 * key (TLSNotary's) are accepted; keys can be swapped or dropped while running. */
static void test_api_keys(void **state)
{
    (void)state;
    tb_err err;
    tb_notary_keys *keys = NULL, *other = NULL;
    const char text[] = "alice 0123456789abcdef0123\n";
    assert_int_equal(tb_notary_keys_parse(text, sizeof text - 1, "k", &keys, &err), 0);
    const char text2[] = "fedcba9876543210fedc\n";
    assert_int_equal(tb_notary_keys_parse(text2, sizeof text2 - 1, "k2", &other, &err), 0);
    fx f;
    assert_int_equal(start_with(&f, (knobs){.concurrency = 2, .tls_conns = 8, .keys = keys}), 0);
    tb_buf r = {0};
#define SESS "POST /session HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n%s\r\n{}"
    char req[512];
    snprintf(req, sizeof req, SESS, "");
    assert_int_equal(rawz(&f, req, &r), 401);
    assert_non_null(strstr((char *)r.p, "WWW-Authenticate: Bearer realm=\"teebench-notary\""));
    assert_non_null(strstr((char *)r.p, "{\"error\":\"missing API key"));
    assert_non_null(strstr((char *)r.p, "\"status\":401"));
    snprintf(req, sizeof req, SESS, "Authorization: Bearer 0123456789abcdef0124\r\n");
    assert_int_equal(rawz(&f, req, &r), 401);
    assert_non_null(strstr((char *)r.p, "invalid API key"));
    assert_null(strstr((char *)r.p, "0123456789abcdef012")); /* never echoed */
    snprintf(req, sizeof req, SESS,
             "Authorization: 0123456789abcdef0123\r\nAuthorization: 0123456789abcdef0123\r\n");
    assert_int_equal(rawz(&f, req, &r), 401);
    assert_non_null(strstr((char *)r.p, "more than one Authorization header"));
    assert_int_equal(post(&f, "/notarize?sessionId=00000000000000000000000000000000", "{}", &r),
                     401);
    assert_int_equal(rawz(&f, "GET /healthcheck HTTP/1.1\r\nHost: x\r\n\r\n", &r), 200);
    assert_int_equal(rawz(&f, "GET /info HTTP/1.1\r\nHost: x\r\n\r\n", &r), 200);
    snprintf(req, sizeof req, SESS, "Authorization: 0123456789abcdef0123\r\n"); /* bare */
    assert_int_equal(rawz(&f, req, &r), 200);
    /* the client: without a key 401, with it a whole notarization */
    tb_notary_client_result res;
    tb_notary_client_opts o = opts(&f, 0);
    assert_int_equal(tb_notary_client_run(&o, &res, &err), -1);
    assert_non_null(strstr(err.msg, "POST /session: notary answered 401: missing API key"));
    tb_notary_client_result_clear(&res);
    o.api_key = "0123456789abcdef0123";
    assert_int_equal(tb_notary_client_run(&o, &res, &err), 0);
    tb_notary_client_result_clear(&res);
    o.api_key = "bad key";
    assert_int_equal(tb_notary_client_run(&o, &res, &err), -1);
    assert_non_null(strstr(err.msg, "API key has a space"));
    tb_notary_client_result_clear(&res);
    tb_notary_server_stats st;
    tb_notary_server_stats_get(f.srv, &st);
    assert_int_equal(st.unauthorized, 5);
    /* swapped: the old key is refused, the new one works; then no keys at all */
    assert_ptr_equal(tb_notary_server_set_keys(f.srv, other), keys);
    o.api_key = "0123456789abcdef0123";
    assert_int_equal(tb_notary_client_run(&o, &res, &err), -1);
    assert_non_null(strstr(err.msg, "401: invalid API key"));
    tb_notary_client_result_clear(&res);
    o.api_key = "fedcba9876543210fedc";
    assert_int_equal(tb_notary_client_run(&o, &res, &err), 0);
    tb_notary_client_result_clear(&res);
    assert_ptr_equal(tb_notary_server_set_keys(f.srv, NULL), other);
    snprintf(req, sizeof req, SESS, "");
    assert_int_equal(rawz(&f, req, &r), 200);
#undef SESS
    tb_buf_clear(&r);
    stop(&f);
    tb_notary_keys_free(keys);
    tb_notary_keys_free(other);
}

typedef struct bg_run {
    tb_notary_client_opts o;
    int rc;
    tb_err err;
    uint64_t done_ns; /* when the client had its answer */
} bg_run;

static void *bg_notarize(void *arg)
{
    bg_run *b = arg;
    tb_notary_client_result res;
    b->rc = tb_notary_client_run(&b->o, &res, &b->err);
    b->done_ns = tb_mono_ns();
    tb_notary_client_result_clear(&res);
    return NULL;
}

/* Item 3 of issue 12: a trickling target is answered 504 at the target
 * deadline, and a stop does not wait for a trickling target. */
static void test_target_deadline_and_stop(void **state)
{
    (void)state;
    fx f;
    assert_int_equal(
        start_with(
            &f,
            (knobs){.concurrency = 2, .tls_conns = 2, .trickle_ms = 200, .target_timeout_ms = 700}),
        0);
    tb_err err;
    tb_notary_client_result res;
    tb_notary_client_opts o = opts(&f, 0);
    uint64_t t0 = tb_mono_ns();
    assert_int_equal(tb_notary_client_run(&o, &res, &err), -1);
    uint64_t ms = (tb_mono_ns() - t0) / 1000000u;
    assert_non_null(strstr(err.msg, "504"));
    assert_true(ms >= 650 && ms < 2000);
    tb_notary_client_result_clear(&res);
    stop(&f);
    /* stop while a notarization waits for a trickling target (deadline 30 s) */
    assert_int_equal(start_with(&f, (knobs){.concurrency = 2,
                                            .tls_conns = 1,
                                            .trickle_ms = 200,
                                            .target_timeout_ms = 30000}),
                     0);
    bg_run b = {.o = opts(&f, 0)};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, bg_notarize, &b), 0);
    usleep(500000);
    t0 = tb_mono_ns();
    tb_notary_server_stop(f.srv);
    f.srv = NULL;
    ms = (tb_mono_ns() - t0) / 1000000u;
    pthread_join(th, NULL);
    assert_true(ms < 1500);
    assert_int_equal(b.rc, -1);
    assert_non_null(strstr(b.err.msg, "503"));
    assert_non_null(strstr(b.err.msg, "stopping"));
    stop(&f);
}

/* Issue 19: a stop answers 503 within a second whatever a worker is doing --
 * here a TEE quote that takes 3 s (the loop answers for the busy worker) --
 * and the old notary closed such a client's connection unanswered. */
static void test_stop_with_a_busy_worker(void **state)
{
    (void)state;
    int calls = 0;
    const tb_notary_quote_source slow = {TB_TEE_SIM, &calls, slow_quote};
    fx f;
    assert_int_equal(start_with(&f, (knobs){.concurrency = 2, .tls_conns = 1, .tee_source = &slow}),
                     0);
    bg_run b = {.o = opts(&f, 1)};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, bg_notarize, &b), 0);
    for (int i = 0; i < 200 && __atomic_load_n(&calls, __ATOMIC_SEQ_CST) < 2; i++)
        usleep(10000);
    assert_int_equal(__atomic_load_n(&calls, __ATOMIC_SEQ_CST), 2); /* the worker is quoting */
    uint64_t t0 = tb_mono_ns();
    tb_notary_server_stop(f.srv); /* returns when the worker is done (~3 s) */
    f.srv = NULL;
    pthread_join(th, NULL);
    assert_int_equal(b.rc, -1);
    assert_non_null(strstr(b.err.msg, "503"));
    assert_non_null(strstr(b.err.msg, "the notary is stopping"));
    assert_true(b.done_ns - t0 < 1500000000ull); /* answered while the worker still quoted */
    stop(&f);
}

static void test_https_notary(void **state)
{
    (void)state;
    fx f;
    assert_int_equal(
        start_with(&f, (knobs){.tee = 1, .concurrency = 2, .tls_conns = 1, .https = 1}), 0);
    tb_err err;
    tb_notary_client_result res;
    tb_notary_client_opts o = opts(&f, 1);
    /* without the CA that signed the notary's certificate: refused */
    assert_int_equal(tb_notary_client_run(&o, &res, &err), -1);
    assert_non_null(strstr(err.msg, "POST /session"));
    tb_notary_client_result_clear(&res);
    /* a client that stalls in the TLS handshake does not block the others */
    int stalled = dial(&f);
    o.notary_ca = f.pki.ca;
    assert_int_equal(tb_notary_client_run(&o, &res, &err), 0);
    assert_int_equal(res.has_evidence, 1);
    assert_int_equal(res.doc.response.len, strlen(RESP));
    tb_notary_client_result_clear(&res);
    close(stalled);
    /* plain HTTP to the HTTPS notary gets no answer, and the notary goes on */
    tb_buf r = {0};
    assert_int_equal(rawz(&f, "GET /healthcheck HTTP/1.1\r\nHost: n\r\n\r\n", &r), 0);
    tb_buf_clear(&r);
    stop(&f);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN); /* the trickling target writes to a notary that gave up */
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_notarize_no_tee),
        cmocka_unit_test(test_notarize_tee),
        cmocka_unit_test(test_api_errors),
        cmocka_unit_test(test_http_parsing),
        cmocka_unit_test(test_keep_alive_and_pipelining),
        cmocka_unit_test(test_stalling_client),
        cmocka_unit_test(test_slow_clients),
        cmocka_unit_test(test_connection_cap),
        cmocka_unit_test(test_session_limits),
        cmocka_unit_test(test_inflight_per_client),
        cmocka_unit_test(test_target_deadline_and_stop),
        cmocka_unit_test(test_inflight_per_prefix),
        cmocka_unit_test(test_api_keys),
        cmocka_unit_test(test_stop_with_a_busy_worker),
        cmocka_unit_test(test_https_notary),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
