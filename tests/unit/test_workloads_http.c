/* Unit tests for src/workloads/http: what `teebench http` and the suite share -- the
 * request wrk sends (Host with and without the port, IPv6 brackets, a -H Host
 * replacing it, path and query), wrk's latency correction (its interval, none below
 * one request per connection), the settled count of a growing log -- and the
 * teebench-http/1 document: written from a load result and read back into the
 * samples the importer stores (rps, bytes/s, each percentile in ms, corrected and
 * not), under the caller's target name made safe for a metric name; the older
 * layout (tool/version/environment); times; and the members a reader refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "workloads/http.h"

static void test_request(void **state)
{
    (void)state;
    static const struct {
        const char *url, *want;
    } cases[] = {
        {"http://127.0.0.1:8080/", "GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n"},
        {"http://example.org/a?b=1", "GET /a?b=1 HTTP/1.1\r\nHost: example.org\r\n\r\n"},
        {"https://example.org:443/", "GET / HTTP/1.1\r\nHost: example.org\r\n\r\n"},
        {"https://example.org:80/", "GET / HTTP/1.1\r\nHost: example.org:80\r\n\r\n"},
        {"http://[::1]:81/x", "GET /x HTTP/1.1\r\nHost: [::1]:81\r\n\r\n"},
    };
    tb_err e;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tb_url u;
        assert_int_equal(tb_url_parse(cases[i].url, &u, &e), 0);
        tb_buf b = {0};
        assert_int_equal(tb_wl_http_request(&u, NULL, 0, &b), 0);
        assert_int_equal(b.len, strlen(cases[i].want));
        assert_memory_equal(b.p, cases[i].want, b.len);
        tb_buf_clear(&b);
    }
    tb_url u;
    assert_int_equal(tb_url_parse("http://h:1/", &u, &e), 0);
    const char *hl[] = {"X-A: 1", "host: other", "Hostile: no"};
    tb_buf b = {0};
    assert_int_equal(tb_wl_http_request(&u, hl, 3, &b), 0);
    const char *want = "GET / HTTP/1.1\r\nX-A: 1\r\nhost: other\r\nHostile: no\r\n\r\n";
    assert_int_equal(b.len, strlen(want));
    assert_memory_equal(b.p, want, b.len);
    tb_buf_clear(&b);
    assert_int_equal(tb_wl_http_request(&u, hl + 2, 1, &b), 0); /* "Hostile" is no Host */
    assert_non_null(strstr((char *)b.p, "Host: h:1\r\n"));
    tb_buf_clear(&b);
}

/* A load result with n latencies (us apart) over runtime_ns. */
static void result(tb_load_result *r, uint64_t completed, uint64_t runtime_ns)
{
    tb_err e;
    memset(r, 0, sizeof *r);
    assert_int_equal(tb_hist_init(&r->latency, TB_HIST_DEFAULT_MAX, &e), 0);
    assert_int_equal(tb_hist_init(&r->latency_uncorrected, TB_HIST_DEFAULT_MAX, &e), 0);
    assert_int_equal(tb_hist_init(&r->rate, 1000000000, &e), 0);
    for (uint64_t i = 0; i < completed; i++)
        tb_hist_record(&r->latency, 100000 + 1000 * (i % 100));
    tb_hist_record(&r->latency, 80000000); /* one stall: the correction fills in behind it */
    r->completed = r->sent = completed;
    r->bytes = completed * 800;
    r->runtime_ns = runtime_ns;
    tb_hist_record(&r->rate, 5000);
}

static void test_correct(void **state)
{
    (void)state;
    tb_load_result r, copy;
    tb_err e;
    result(&r, 1000, 1000000000);
    result(&copy, 1000, 1000000000);
    /* 10 connections, 1000 completed in 1 s: one request per 10 ms on each */
    assert_int_equal(tb_wl_http_correct(&r, 10), 10000000);
    tb_hist_correct(&copy.latency, 10000000);
    assert_int_equal(r.latency.count, copy.latency.count);
    assert_true(r.latency.count > 1001); /* the stall's missed requests added */
    assert_int_equal(tb_hist_percentile(&r.latency, 99.9), tb_hist_percentile(&copy.latency, 99.9));
    tb_load_result_clear(&copy);
    /* fewer completed than connections: nothing to correct with */
    uint64_t before = r.latency.count;
    r.completed = 5;
    assert_int_equal(tb_wl_http_correct(&r, 10), 0);
    assert_int_equal(tb_wl_http_correct(&r, 0), 0);
    assert_int_equal(r.latency.count, before);
    tb_load_result_clear(&r);
    (void)e;
}

typedef struct writer {
    const char *path;
} writer;

/* Appends 5 lines to path, 20 ms apart. */
static void *grow(void *arg)
{
    writer *w = arg;
    for (int i = 0; i < 5; i++) {
        FILE *f = fopen(w->path, "a");
        fputs("GET / 200\n", f);
        fclose(f);
        tb_sleep_ns(20000000);
    }
    return NULL;
}

static void test_log_settled(void **state)
{
    (void)state;
    char path[] = "/tmp/tb-test-wl-http-log.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "a\nb\n", 4), 4);
    close(fd);
    writer w = {path};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, grow, &w), 0);
    tb_sleep_ns(5000000);
    uint64_t n = 0;
    tb_err e;
    assert_int_equal(tb_wl_http_log_settled(path, &n, &e), 0);
    pthread_join(t, NULL);
    assert_int_equal(n, 7); /* waited for the writer to stop */
    unlink(path);
    assert_int_equal(tb_wl_http_log_settled(path, &n, &e), -1);
}

/* A sink that keeps the samples and facts it is given. */
typedef struct kept {
    char names[64][160];
    double values[64];
    size_t n;
    json_t *facts;
} kept;

static int keep_sample(void *ctx, const char *name, double v, int simulated, const char *note,
                       tb_err *err)
{
    kept *k = ctx;
    (void)simulated;
    (void)err;
    assert_non_null(note);
    tb_wl_match m;
    assert_int_equal(tb_wl_metric_find(name, &m), 1); /* every name is the table's */
    assert_ptr_equal(m.workload, &tb_wl_http);
    snprintf(k->names[k->n], sizeof k->names[0], "%s", name);
    k->values[k->n++] = v;
    return 0;
}

static void keep_fact(void *ctx, const char *key, json_t *v)
{
    json_object_set_new(((kept *)ctx)->facts, key, v);
}

static double value_of(const kept *k, const char *name)
{
    for (size_t i = 0; i < k->n; i++)
        if (!strcmp(k->names[i], name))
            return k->values[i];
    fail_msg("no sample of %s", name);
    return NAN;
}

static int read_doc(const json_t *doc, const char *target, kept *k, tb_wl_doc_info *info, tb_err *e)
{
    memset(k, 0, sizeof *k);
    k->facts = json_object();
    tb_wl_sink sink = {.ctx = k, .sample = keep_sample, .fact = keep_fact, .dir_fd = -1};
    tb_wl_read_opts o = {.target = target};
    assert_ptr_equal(tb_workload_for_doc(doc), &tb_wl_http);
    return tb_wl_http.doc_read(doc, &o, &sink, info, e);
}

static void test_document(void **state)
{
    (void)state;
    tb_load_result r;
    tb_hist raw;
    tb_err e;
    result(&r, 1000, 2000000000);
    assert_int_equal(tb_hist_init(&raw, TB_HIST_DEFAULT_MAX, &e), 0);
    tb_hist_merge(&raw, &r.latency, NULL);
    uint64_t interval = tb_wl_http_correct(&r, 10);
    const char *hl[] = {"X-A: 1"};
    tb_wl_http_run run = {.url = "http://127.0.0.1:1/",
                          .threads = 2,
                          .connections = 10,
                          .duration_s = 2,
                          .timeout_s = 2,
                          .headers = hl,
                          .n_headers = 1,
                          .latency = 1,
                          .target_address = "127.0.0.1:1",
                          .started_at = "2026-11-30T19:16:38Z",
                          .r = &r,
                          .raw = &raw,
                          .wrk_interval_ns = interval};
    json_t *doc = tb_wl_http_doc(&run);
    assert_non_null(doc);
    json_object_set_new(doc, "schema", json_string(TB_WL_HTTP_SCHEMA));
    assert_true(json_real_value(json_object_get(doc, "wrk_correction_interval_us")) == 20000);
    assert_true(json_is_array(json_object_get(json_object_get(doc, "options"), "headers")));
    assert_null(json_object_get(doc, "server_log"));
    assert_null(json_object_get(doc, "error"));
    kept k;
    tb_wl_doc_info info;
    assert_int_equal(read_doc(doc, "Edge Server.1", &k, &info, &e), 0);
    /* the target made safe for a metric name; 1 + 6 + 6 + 1 samples */
    assert_int_equal(k.n, 14);
    assert_true(value_of(&k, "http.edge_server_1.rps") == 500);
    assert_true(value_of(&k, "http.edge_server_1.transfer") == 400000);
    double p99 = json_real_value(
        json_object_get(json_object_get(json_object_get(doc, "latency"), "percentiles_us"), "p99"));
    assert_true(value_of(&k, "http.edge_server_1.latency.p99") == p99 / 1000.0);
    assert_true(fabs(value_of(&k, "http.edge_server_1.latency_u.p50") -
                     (double)tb_hist_percentile(&raw, 50) / 1e6) < 1e-12);
    assert_string_equal(json_string_value(json_object_get(k.facts, "url")), "http://127.0.0.1:1/");
    assert_string_equal(info.started, "2026-11-30T19:16:38Z");
    assert_string_equal(info.finished, "2026-11-30T19:16:40Z"); /* + the 2 s run */
    json_decref(k.facts);

    /* the older layout: no schema, "tool"; no target: "imported" */
    json_object_del(doc, "schema");
    json_object_set_new(doc, "tool", json_string("teebench http"));
    json_object_set_new(doc, "version", json_string("0.0.9"));
    json_object_set_new(doc, "environment", json_pack("{s:s}", "schema", "teebench-env/1"));
    json_object_set_new(doc, "started_at", json_string("yesterday"));
    assert_int_equal(read_doc(doc, NULL, &k, &info, &e), 0);
    assert_true(value_of(&k, "http.imported.rps") == 500);
    assert_string_equal(info.version, "0.0.9");
    assert_non_null(info.env);
    assert_string_equal(info.started, ""); /* not a time: the caller's (a file's) */
    json_decref(k.facts);

    /* what a reader refuses, naming the member */
    static const struct {
        const char *path, *want;
    } bad[] = {
        {"requests", "http JSON: missing \"requests.per_second\""},
        {"bytes", "http JSON: missing \"bytes.per_second\""},
        {"latency", "http JSON: missing \"latency\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *d = json_deep_copy(doc);
        json_object_del(d, bad[i].path);
        assert_int_equal(read_doc(d, NULL, &k, &info, &e), -1);
        assert_string_equal(e.msg, bad[i].want);
        json_decref(k.facts);
        json_decref(d);
    }
    json_t *d = json_deep_copy(doc);
    json_object_set_new(json_object_get(json_object_get(d, "latency"), "percentiles_us"), "p90",
                        json_integer(-1));
    assert_int_equal(read_doc(d, NULL, &k, &info, &e), -1);
    assert_string_equal(e.msg, "http JSON: latency.percentiles_us.p90 is not a number >= 0");
    json_decref(k.facts);
    json_decref(d);
    json_decref(doc);
    tb_hist_free(&raw);
    tb_load_result_clear(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request),
        cmocka_unit_test(test_correct),
        cmocka_unit_test(test_log_settled),
        cmocka_unit_test(test_document),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
