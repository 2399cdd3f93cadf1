/* Unit tests for src/load/script: wrk's Lua API without a network -- the request
 * wrk.format builds (Host, -H headers, body), request()/init(args) per thread,
 * pipelined request strings, the response hook's status/headers/body (chunked,
 * interim 1xx), delay, thread:stop, setup/thread:get/set, done()'s statistics, and
 * errors as one message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "load/script.h"
#include "net/http_resp.h"

static char path[64];

static void write_script(const char *text)
{
    snprintf(path, sizeof path, "/tmp/tb-test-script-%d.lua", (int)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static const char *HDRS[] = {"X-A: 1", "host: example.test"};
static const char *ARGS[] = {"http://127.0.0.1:8080/p?q=1", "/pre"};

static tb_script *load(const char *text, uint32_t threads, int nheaders, tb_err *e)
{
    write_script(text);
    tb_script_target t = {.scheme = "http",
                          .host = "127.0.0.1",
                          .port = "8080",
                          .path = "/p?q=1",
                          .headers = HDRS,
                          .nheaders = nheaders,
                          .args = ARGS,
                          .nargs = 2,
                          .addr = "127.0.0.1:8080"};
    tb_script *s = tb_script_new(path, threads, &t, e);
    unlink(path);
    return s;
}

static char *first(const tb_script *s)
{
    static char buf[4096];
    const uint8_t *p;
    size_t n;
    tb_script_first_request(s, &p, &n);
    assert_true(n < sizeof buf);
    memcpy(buf, p, n);
    buf[n] = 0;
    return buf;
}

static void test_static_request(void **state)
{
    (void)state;
    tb_err e;
    tb_script *s = load("-- nothing: wrk's default request\n", 1, 0, &e);
    assert_non_null(s);
    assert_string_equal(first(s), "GET /p?q=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n");
    assert_int_equal(tb_script_pipeline(s), 1);
    const tb_load_hooks *h = tb_script_hooks(s);
    assert_null(h->response);
    assert_null(h->delay_ms);
    assert_null(h->request); /* the engine sends the first request as it is */
    tb_script_free(s);

    /* a static request that differs by thread: each thread sends its own */
    s = load("function init() wrk.path = '/t' .. wrk.thread.id end\n", 2, 0, &e);
    assert_non_null(s);
    h = tb_script_hooks(s);
    assert_non_null(h->request);
    const uint8_t *q;
    size_t n;
    assert_int_equal(h->request(h->ctx[1], &q, &n), 0); /* no Lua call: the string kept */
    assert_int_equal(strncmp((const char *)q, "GET /t1 HTTP/1.1\r\n", 18), 0);
    tb_script_free(s);

    /* -H headers are wrk.headers (host: replaces the URL's); a body gets its length */
    s = load("wrk.method = 'POST'\nwrk.body = 'abc'\n", 1, 2, &e);
    assert_non_null(s);
    char *r = first(s);
    assert_int_equal(strncmp(r, "POST /p?q=1 HTTP/1.1\r\nHost: example.test\r\n", 42), 0);
    assert_non_null(strstr(r, "\r\nX-A: 1\r\n"));
    assert_non_null(strstr(r, "\r\nContent-Length: 3\r\n\r\nabc"));
    assert_null(strstr(r, "127.0.0.1"));
    tb_script_free(s);
}

static void test_dynamic_and_pipeline(void **state)
{
    (void)state;
    tb_err e;
    tb_script *s = load("local n = 0\n"
                        "function init(args) prefix = args[1] end\n"
                        "function request()\n"
                        "  n = n + 1\n"
                        "  return wrk.format(nil, prefix .. n) .. wrk.format(nil, prefix .. 'x')\n"
                        "end\n",
                        2, 0, &e);
    assert_non_null(s);
    assert_int_equal(tb_script_pipeline(s), 2); /* two requests per string */
    assert_non_null(strstr(first(s), "GET /pre1 HTTP/1.1"));
    const tb_load_hooks *h = tb_script_hooks(s);
    const uint8_t *q;
    size_t n;
    /* thread 0 made its first request for the check already (as wrk): next is 2 */
    assert_int_equal(h->request(h->ctx[0], &q, &n), 0);
    assert_int_equal(strncmp((const char *)q, "GET /pre2 ", 10), 0);
    assert_int_equal(h->request(h->ctx[1], &q, &n), 0); /* thread 1: its own state */
    assert_int_equal(strncmp((const char *)q, "GET /pre1 ", 10), 0);
    tb_script_free(s);

    s = load("function request() return 'not http' end\n", 1, 0, &e);
    assert_null(s);
    assert_non_null(strstr(e.msg, "not a valid HTTP/1.x request"));
}

static void feed_all(tb_http_resp *p, const char *raw)
{
    tb_http_resp_init(p);
    size_t used;
    assert_int_equal(tb_http_resp_feed(p, (const uint8_t *)raw, strlen(raw), &used), TB_HTTP_DONE);
    assert_int_equal(used, strlen(raw));
}

static void test_response_delay_stop(void **state)
{
    (void)state;
    tb_err e;
    tb_script *s =
        load("function response(status, headers, body)\n"
             "  seen = (seen or '') .. status .. ':' .. tostring(headers['X-T']) ..\n"
             "         ':' .. tostring(headers['X-Interim']) .. ':' .. body .. ';'\n"
             "  if status == 503 then wrk.thread:stop() end\n"
             "end\n"
             "function delay() return 25 end\n"
             "function done(summary, latency, requests)\n"
             "  result = string.format('%d %d %d %.1f %.1f %.1f %d %d', summary.requests,\n"
             "    summary.errors.timeout, summary.duration, latency.min, latency.max,\n"
             "    latency:percentile(50), #latency, requests.max)\n"
             "  local v, c = latency(2)\n"
             "  result = result .. string.format(' %.1f/%d', v, c)\n"
             "end\n",
             1, 0, &e);
    assert_non_null(s);
    const tb_load_hooks *h = tb_script_hooks(s);
    void *ctx = h->ctx[0];
    tb_http_resp p;
    const char *r1 = "HTTP/1.1 100 Continue\r\nX-Interim: yes\r\n\r\n"
                     "HTTP/1.1 200 OK\r\nX-T:  tok \r\nContent-Length: 2\r\n\r\nhi";
    feed_all(&p, r1);
    assert_int_equal(h->response(ctx, &p, (const uint8_t *)r1, strlen(r1)), 0);
    const char *r2 = "HTTP/1.1 503 Busy\r\nTransfer-Encoding: chunked\r\n\r\n"
                     "3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\n\r\n";
    feed_all(&p, r2);
    assert_int_equal(h->stopped(ctx), 0);
    assert_int_equal(h->response(ctx, &p, (const uint8_t *)r2, strlen(r2)), 0);
    assert_int_equal(h->stopped(ctx), 1);
    uint64_t ms;
    assert_int_equal(h->delay_ms(ctx, &ms), 0);
    assert_int_equal(ms, 25);

    tb_hist lat, rate;
    assert_int_equal(tb_hist_init(&lat, TB_HIST_DEFAULT_MAX, &e), 0);
    assert_int_equal(tb_hist_init(&rate, TB_HIST_DEFAULT_MAX, &e), 0);
    tb_hist_record(&lat, 1000);      /* 1 us */
    tb_hist_record_n(&lat, 2000, 3); /* 2 us */
    tb_hist_record(&rate, 1234);
    tb_script_summary sum = {.duration_us = 5000000, .requests = 4, .timeout = 1};
    assert_true(tb_script_has_done(s));
    assert_int_equal(tb_script_done(s, &sum, &lat, &rate, &e), 0);
    tb_hist_free(&lat);
    tb_hist_free(&rate);
    tb_script_free(s);
    /* the values are read back through a second script: thread:get from setup */
    s = load("function setup(t) t:set('x', {a = 1, b = 'two'}) end\n"
             "function init() assert(x.a == 1 and x.b == 'two') end\n",
             1, 0, &e);
    assert_non_null(s);
    tb_script_free(s);
}

/* done() and response() results are checked by reading the globals they set; the
 * state is private, so run them again in a script that asserts on them itself. */
static void test_values_in_lua(void **state)
{
    (void)state;
    tb_err e;
    tb_script *s = load("function response(status, headers, body)\n"
                        "  assert(status == 200 and headers['X-T'] == 'tok' and body == 'hi')\n"
                        "  assert(headers['X-Interim'] == nil)\n"
                        "end\n"
                        "function done(summary, latency, requests)\n"
                        "  assert(summary.requests == 4 and summary.errors.timeout == 1)\n"
                        "  assert(summary.duration == 5000000)\n"
                        "  assert(latency.min == 1 and latency.max == 2 and #latency == 2)\n"
                        "  assert(latency:percentile(50) == 2 and requests.max == 1234)\n"
                        "  local v, c = latency(2)\n"
                        "  assert(v == 2 and c == 3, v .. ' ' .. c)\n"
                        "end\n",
                        1, 0, &e);
    assert_non_null(s);
    const tb_load_hooks *h = tb_script_hooks(s);
    tb_http_resp p;
    const char *r1 = "HTTP/1.1 100 Continue\r\nX-Interim: yes\r\n\r\n"
                     "HTTP/1.1 200 OK\r\nX-T:  tok \r\nContent-Length: 2\r\n\r\nhi";
    feed_all(&p, r1);
    assert_int_equal(h->response(h->ctx[0], &p, (const uint8_t *)r1, strlen(r1)), 0);
    const char *r2 = "HTTP/1.1 200 OK\r\nX-T: no\r\nContent-Length: 2\r\n\r\nho";
    feed_all(&p, r2);
    assert_int_equal(h->response(h->ctx[0], &p, (const uint8_t *)r2, strlen(r2)), -1);
    assert_non_null(strstr(tb_script_error(s), "response(): "));
    assert_non_null(strstr(tb_script_error(s), "assertion failed!"));
    tb_hist lat, rate;
    assert_int_equal(tb_hist_init(&lat, TB_HIST_DEFAULT_MAX, &e), 0);
    assert_int_equal(tb_hist_init(&rate, TB_HIST_DEFAULT_MAX, &e), 0);
    tb_hist_record(&lat, 1000);
    tb_hist_record_n(&lat, 2000, 3);
    tb_hist_record(&rate, 1234);
    tb_script_summary sum = {.duration_us = 5000000, .requests = 4, .timeout = 1};
    assert_int_equal(tb_script_done(s, &sum, &lat, &rate, &e), 0);
    sum.requests = 5;
    assert_int_equal(tb_script_done(s, &sum, &lat, &rate, &e), -1);
    assert_non_null(strstr(e.msg, "done(): "));
    tb_hist_free(&lat);
    tb_hist_free(&rate);
    tb_script_free(s);
}

static void test_errors(void **state)
{
    (void)state;
    tb_err e;
    assert_null(load("function request( return 1 end\n", 1, 0, &e));
    assert_non_null(strstr(e.msg, "script: "));
    assert_null(load("function init() error('no way') end\n", 1, 0, &e));
    assert_non_null(strstr(e.msg, "init(): "));
    assert_non_null(strstr(e.msg, "no way"));
    assert_null(load("function setup(t) t.addr = 'x' end\n", 1, 0, &e));
    assert_non_null(strstr(e.msg, "cannot be set"));
    tb_script *s = load("function request() return 42 end\n", 1, 0, &e);
    assert_null(s);
    assert_non_null(strstr(e.msg, "not a request string"));
    tb_script_target t = {.scheme = "http", .host = "h", .path = "/", .nargs = 0};
    assert_null(tb_script_new("/nonexistent/x.lua", 1, &t, &e));
    assert_non_null(strstr(e.msg, "cannot open"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_static_request),
        cmocka_unit_test(test_dynamic_and_pipeline),
        cmocka_unit_test(test_response_delay_stop),
        cmocka_unit_test(test_values_in_lua),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
