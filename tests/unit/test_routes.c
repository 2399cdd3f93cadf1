/* Unit tests for serve/routes: each route's prebuilt response (status line,
 * Content-Length equal to the body, body bytes), HEAD, connection variants,
 * /bytes sizes and cap, 404/405 and parser errors, counters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "serve/fixture.h"
#include "serve/routes.h"

static tb_site site;

static int setup(void **state)
{
    (void)state;
    tb_err err;
    if (tb_site_init(&site, 1000, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tb_site_clear(&site);
    return 0;
}

static char scratch[TB_REPLY_SCRATCH];

/* Parses req and answers it; the reply's head is copied to a NUL-terminated head[]. */
static void ask(const char *req, tb_reply *rep)
{
    tb_http_req r;
    tb_http_req_init(&r, 8192);
    int rc = tb_http_req_parse(&r, (const uint8_t *)req, strlen(req));
    if (rc == TB_HREQ_DONE)
        tb_site_answer(&site, &r, (const uint8_t *)req, scratch, rep);
    else
        tb_site_answer_error(&site, rc, rep);
}

/* Splits a full reply into head and body; checks Content-Length matches. */
static size_t body_of(const tb_reply *rep, const uint8_t **body)
{
    const char *h = (const char *)rep->head;
    const char *end = memmem(h, rep->head_len, "\r\n\r\n", 4);
    assert_non_null(end);
    size_t head = (size_t)(end - h) + 4;
    const char *cl = memmem(h, head, "Content-Length: ", 16);
    assert_non_null(cl);
    unsigned long n = strtoul(cl + 16, NULL, 10);
    *body = rep->head + head;
    assert_int_equal(rep->head_len - head + rep->fill_len, n);
    return n;
}

static void test_root_and_docs(void **state)
{
    (void)state;
    tb_reply rep;
    const uint8_t *body;
    ask("GET / HTTP/1.1\r\nHost: x\r\n\r\n", &rep);
    assert_int_equal(rep.route, TB_ROUTE_ROOT);
    assert_int_equal(rep.status, TB_ST_200);
    assert_int_equal(rep.close, 0);
    assert_memory_equal(rep.head, "HTTP/1.1 200 OK\r\n", 17);
    assert_int_equal(body_of(&rep, &body), 615);
    assert_memory_equal(body, tb_fixture_welcome().p, 615);
    assert_null(memmem(rep.head, rep.head_len, "Connection:", 11));

    static const struct {
        const char *target;
        int route;
        size_t len;
    } docs[] = {{"/formats/json?size=1", TB_ROUTE_JSON1, 722},
                {"/formats/json?size=4", TB_ROUTE_JSON4, 3111},
                {"/formats/json?x=y&size=8", TB_ROUTE_JSON8, 6962},
                {"/formats/html", TB_ROUTE_HTML, 3742}};
    for (size_t i = 0; i < 4; i++) {
        char req[256];
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", docs[i].target);
        ask(req, &rep);
        assert_int_equal(rep.route, docs[i].route);
        assert_int_equal(rep.status, TB_ST_200);
        assert_int_equal(body_of(&rep, &body), docs[i].len);
        assert_int_equal(rep.fill_len, 0);
    }
    tb_blob html;
    tb_err err;
    assert_int_equal(tb_fixture_doc("4kb.html", &html, &err), 0);
    assert_memory_equal(body, html.p, html.len);
    assert_non_null(memmem(rep.head, rep.head_len, "Content-Type: text/html\r\n", 25));
}

static void test_head_and_connection_variants(void **state)
{
    (void)state;
    tb_reply rep;
    const uint8_t *body;
    ask("HEAD /formats/json?size=4 HTTP/1.1\r\nHost: x\r\n\r\n", &rep);
    assert_int_equal(rep.route, TB_ROUTE_JSON4);
    assert_non_null(memmem(rep.head, rep.head_len, "Content-Length: 3111\r\n", 22));
    assert_memory_equal(rep.head + rep.head_len - 4, "\r\n\r\n", 4);
    assert_null(memmem(rep.head, rep.head_len, "{", 1));

    ask("GET / HTTP/1.0\r\n\r\n", &rep);
    assert_int_equal(rep.close, 1);
    assert_non_null(memmem(rep.head, rep.head_len, "Connection: close\r\n", 19));
    assert_int_equal(body_of(&rep, &body), 615);
    ask("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", &rep);
    assert_int_equal(rep.close, 0);
    assert_non_null(memmem(rep.head, rep.head_len, "Connection: keep-alive\r\n", 24));
    ask("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &rep);
    assert_int_equal(rep.close, 1);
    assert_int_equal(body_of(&rep, &body), 615);
}

static void test_bytes(void **state)
{
    (void)state;
    tb_reply rep;
    const uint8_t *body;
    ask("GET /bytes?size=1000 HTTP/1.1\r\nHost: x\r\n\r\n", &rep);
    assert_int_equal(rep.route, TB_ROUTE_BYTES);
    assert_int_equal(rep.status, TB_ST_200);
    assert_ptr_equal(rep.head, (const uint8_t *)scratch);
    assert_int_equal(rep.fill_len, 1000);
    assert_int_equal(body_of(&rep, &body), 1000);
    assert_int_equal(site.fill[0], 'B');
    assert_int_equal(site.fill[TB_FILL_LEN - 1], 'B');
    ask("GET /bytes?size=0 HTTP/1.1\r\nHost: x\r\n\r\n", &rep);
    assert_int_equal(rep.status, TB_ST_200);
    assert_int_equal(body_of(&rep, &body), 0);
    ask("HEAD /bytes?size=10 HTTP/1.1\r\nHost: x\r\n\r\n", &rep);
    assert_int_equal(rep.fill_len, 0);
    assert_non_null(memmem(rep.head, rep.head_len, "Content-Length: 10\r\n", 20));

    static const char *bad[] = {
        "/bytes?size=1001", "/bytes?size=abc", "/bytes",
        "/bytes?size=",     "/bytes?size=-1",  "/bytes?size=99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char req[256];
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", bad[i]);
        ask(req, &rep);
        assert_int_equal(rep.route, TB_ROUTE_BYTES);
        assert_int_equal(rep.status, TB_ST_400);
        assert_int_equal(rep.close, 0);
        assert_int_equal(rep.fill_len, 0);
        body_of(&rep, &body);
    }
    ask("GET /bytes?size=1001 HTTP/1.1\r\nHost: x\r\n\r\n", &rep);
    assert_non_null(memmem(rep.head, rep.head_len, "above the cap of 1000 bytes", 27));
}

static void test_not_found_and_errors(void **state)
{
    (void)state;
    tb_reply rep;
    const uint8_t *body;
    static const char *missing[] = {
        "/nope", "/formats/json", "/formats/json?size=2", "/formats/json?size=44", "/index.html",
        "//"};
    for (size_t i = 0; i < sizeof missing / sizeof missing[0]; i++) {
        char req[256];
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", missing[i]);
        ask(req, &rep);
        assert_int_equal(rep.route, TB_ROUTE_OTHER);
        assert_int_equal(rep.status, TB_ST_404);
        assert_memory_equal(rep.head, "HTTP/1.1 404 Not Found\r\n", 24);
        body_of(&rep, &body);
    }
    ask("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", &rep);
    assert_int_equal(rep.route, TB_ROUTE_ROOT);
    assert_int_equal(rep.status, TB_ST_405);
    assert_non_null(memmem(rep.head, rep.head_len, "Allow: GET, HEAD\r\n", 18));
    ask("DELETE /bytes?size=1 HTTP/1.1\r\nHost: x\r\n\r\n", &rep);
    assert_int_equal(rep.status, TB_ST_405);

    ask("GARBAGE\r\n\r\n", &rep);
    assert_int_equal(rep.route, TB_ROUTE_MALFORMED);
    assert_int_equal(rep.status, TB_ST_400);
    assert_int_equal(rep.close, 1);
    assert_non_null(memmem(rep.head, rep.head_len, "Connection: close\r\n", 19));
    body_of(&rep, &body);
    ask("GET / HTTP/3.0\r\n\r\n", &rep);
    assert_int_equal(rep.status, TB_ST_505);
    tb_site_answer_error(&site, TB_HREQ_TOO_LARGE, &rep);
    assert_int_equal(rep.status, TB_ST_431);
    assert_int_equal(rep.close, 1);
}

static void test_counts(void **state)
{
    (void)state;
    tb_counts a = {0}, b = {0};
    a.n[TB_ROUTE_ROOT][TB_ST_200] = 5;
    b.n[TB_ROUTE_ROOT][TB_ST_200] = 2;
    b.n[TB_ROUTE_OTHER][TB_ST_404] = 3;
    tb_counts_merge(&a, &b);
    assert_int_equal(a.n[TB_ROUTE_ROOT][TB_ST_200], 7);
    assert_int_equal(tb_counts_total(&a), 10);
    assert_string_equal(tb_route_name(TB_ROUTE_JSON4), "/formats/json?size=4");
    assert_int_equal(tb_status_code(TB_ST_431), 431);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_root_and_docs), cmocka_unit_test(test_head_and_connection_variants),
        cmocka_unit_test(test_bytes),         cmocka_unit_test(test_not_found_and_errors),
        cmocka_unit_test(test_counts),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
