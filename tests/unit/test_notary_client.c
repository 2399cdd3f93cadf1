/* Unit tests for src/notary/client: the request it builds, trust stores, and
 * the errors of a run against notaries that are absent or answer nonsense. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <string.h>

#include <curl/curl.h>

#include "notary/internal.h"
#include "notary/client.h"
#include "notary_util.h"

static void test_build_request(void **state)
{
    (void)state;
    tb_err err;
    tb_buf b = {0};
    assert_int_equal(tb_notary_build_request("test-server.io", "/formats/json?size=4", &b, &err),
                     0);
    assert_true(b.len > 40);
    assert_memory_equal(b.p, "GET /formats/json?size=4 HTTP/1.1\r\nHost: test-server.io\r\n", 57);
    assert_non_null(strstr((char *)b.p, "Connection: close\r\n"));
    assert_memory_equal(b.p + b.len - 4, "\r\n\r\n", 4);
    tb_buf_reset(&b);
    assert_int_equal(tb_notary_build_request("a.b", "no-slash", &b, &err), -1);
    assert_int_equal(tb_notary_build_request("a.b", "/a b", &b, &err), -1);
    assert_int_equal(tb_notary_build_request("a.b", "/a\r\nX: y", &b, &err), -1);
    tb_buf_clear(&b);
}

static void test_trust_store(void **state)
{
    (void)state;
    tb_err err;
    test_pki p;
    assert_int_equal(test_pki_make(&p), 0);
    X509_STORE *st = tb_notary_trust_store(p.ca, &err);
    assert_non_null(st);
    X509_STORE_free(st);
    assert_null(tb_notary_trust_store("/nonexistent/ca.pem", &err));
    assert_non_null(strstr(err.msg, "/nonexistent/ca.pem"));
    test_pki_remove(&p);
}

/* A one-shot HTTP server answering with a fixed reply. */
typedef struct canned {
    int lfd;
    uint16_t port;
    const char *reply;
    pthread_t th;
} canned;

static void *canned_loop(void *arg)
{
    canned *c = arg;
    int fd = accept(c->lfd, NULL, NULL);
    if (fd >= 0) {
        char b[8192];
        recv(fd, b, sizeof b, 0);
        send(fd, c->reply, strlen(c->reply), MSG_NOSIGNAL);
        close(fd);
    }
    return NULL;
}

static void canned_start(canned *c, const char *reply)
{
    c->lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    assert_int_equal(bind(c->lfd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(c->lfd, 4), 0);
    getsockname(c->lfd, (struct sockaddr *)&a, &al);
    c->port = ntohs(a.sin_port);
    c->reply = reply;
    pthread_create(&c->th, NULL, canned_loop, c);
}

static void canned_stop(canned *c)
{
    shutdown(c->lfd, SHUT_RDWR);
    pthread_join(c->th, NULL);
    close(c->lfd);
}

static int run_against(const char *url, tb_err *err)
{
    tb_notary_client_opts o = {.notary_url = url,
                               .host = "127.0.0.1",
                               .port = 4000,
                               .server_name = "test-server.io",
                               .uri = "/",
                               .max_sent = 4096,
                               .max_recv = 16384,
                               .timeout_ms = 3000};
    tb_notary_client_result res;
    int rc = tb_notary_client_run(&o, &res, err);
    tb_notary_client_result_clear(&res);
    return rc;
}

static void test_bad_notaries(void **state)
{
    (void)state;
    tb_err err;
    char url[64];
    canned c;
    /* an error reply: its message is passed on */
    canned_start(&c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 22\r\nConnection: close\r\n\r\n"
                     "{\"error\":\"too large!\"}");
    snprintf(url, sizeof url, "http://127.0.0.1:%u", c.port);
    assert_int_equal(run_against(url, &err), -1);
    assert_non_null(strstr(err.msg, "400: too large!"));
    canned_stop(&c);
    /* a 200 reply without a session id */
    canned_start(&c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");
    snprintf(url, sizeof url, "http://127.0.0.1:%u", c.port);
    assert_int_equal(run_against(url, &err), -1);
    assert_non_null(strstr(err.msg, "sessionId"));
    canned_stop(&c);
    /* nobody listening */
    canned_start(&c, "");
    snprintf(url, sizeof url, "http://127.0.0.1:%u", c.port);
    canned_stop(&c);
    assert_int_equal(run_against(url, &err), -1);
    assert_non_null(strstr(err.msg, "POST /session"));
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_request),
        cmocka_unit_test(test_trust_store),
        cmocka_unit_test(test_bad_notaries),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
