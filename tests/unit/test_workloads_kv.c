/* Unit tests for src/workloads/kv: the parameters per profile and their refusals
 * (transports, HOST:PORT, a TLS server without its CA), the metric table and the names a
 * plan produces, redis-server's command line (no persistence, the fixture PKI's files,
 * no client certificates), redis-benchmark 7.0.15's real CSV (tests/data/workloads/tools:
 * plain, TLS, threaded) parsed and what the parser refuses (redis 6's CSV without
 * latencies, a missing GET, a value that is not a number), the teebench-kv/1 document
 * written and read back (every member checked before the first sample), and the missing
 * tools skipped with their packages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/file.h"
#include "workloads/internal.h"
#include "workloads/kv.h"

typedef struct kept {
    char names[64][160];
    double values[64];
    size_t n;
} kept;

static int keep(void *ctx, const char *name, double v, int simulated, const char *note, tb_err *err)
{
    kept *k = ctx;
    (void)simulated;
    (void)err;
    tb_wl_match m;
    if (!tb_wl_metric_find(name, &m))
        fail_msg("%s: in no table", name);
    assert_ptr_equal(m.workload, &tb_wl_kv);
    assert_int_equal(m.metric->category, TB_CAT_KV);
    assert_non_null(strstr(note, "redis-benchmark "));
    assert_true(k->n < 64);
    snprintf(k->names[k->n], sizeof k->names[0], "%s", name);
    k->values[k->n++] = v;
    return 0;
}

static void read_data(const char *rel, tb_buf *out)
{
    char path[PATH_MAX];
    const char *src = getenv("TEEBENCH_SOURCE_DIR");
    snprintf(path, sizeof path, "%s/tests/data/workloads/tools/%s", src ? src : ".", rel);
    tb_err e;
    if (tb_file_read(path, 1 << 20, out, &e) < 0)
        fail_msg("%s", e.msg);
}

static void test_params(void **state)
{
    (void)state;
    tb_wl_kv_params p;
    tb_err e = {{0}};
    assert_int_equal(tb_wl_params_init(&tb_wl_kv, &p, TB_WL_QUICK, &e), 0);
    assert_true(p.plain && p.tls && p.requests == 20000 && p.pipeline == 16);
    assert_string_equal(p.server_bin, "redis-server");
    assert_string_equal(p.bench_bin, "redis-benchmark");
    assert_int_equal(tb_wl_params_init(&tb_wl_kv, &p, TB_WL_SEED, &e), 0);
    /* CVM_eval's memtier: -c 100 --pipeline=40; memtier's 32-byte values */
    assert_true(p.clients == 100 && p.pipeline == 40 && p.data_size == 32);
    int place = 0;
    assert_int_equal(tb_wl_params_set(&tb_wl_kv, &p, "server", "198.18.3.2:6379", &place, &e), 0);
    assert_int_equal(place, 1);
    assert_int_equal(tb_wl_params_set(&tb_wl_kv, &p, "server", "[::1]:6379", NULL, &e), 0);
    assert_int_equal(tb_wl_params_set(&tb_wl_kv, &p, "transports", "tls", NULL, &e), 0);
    assert_true(!p.plain && p.tls);
    static const char *const bad[][3] = {
        {"transports", "plain,quic", "kv.transports: unknown transport 'quic' (plain, tls)"},
        {"server", "redis", "kv.server: 'redis' is not HOST:PORT"},
        {"server", ":6379", "is not HOST:PORT"},
        {"server", "h:0", "is not HOST:PORT"},
        {"server", "h:65536", "is not HOST:PORT"},
        {"server", "h:+80", "is not HOST:PORT"},
        {"server", "h:080", "is not HOST:PORT"},
        {"server", "h: 80", "is not HOST:PORT"}, /* base/num: strtol took the blank */
        {"server", "[::1:80", "is not HOST:PORT"},
        {"cacert", "ca.pem", "kv.cacert: 'ca.pem' is not an absolute path"},
        {"pipeline", "0", "kv.pipeline: 0 is out of range (1 .. 1000)"},
        {"requests", "10", "kv.requests: 10 is out of range"},
        {"redis_benchmark", "./redis-benchmark", "is neither a name looked up in PATH"},
    };
    tb_wl_kv_params before = p;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(tb_wl_params_set(&tb_wl_kv, &p, bad[i][0], bad[i][1], NULL, &e), -1);
        if (!strstr(e.msg, bad[i][2]))
            fail_msg("%s=%s: \"%s\", want \"%s\"", bad[i][0], bad[i][1], e.msg, bad[i][2]);
        assert_memory_equal(&p, &before, sizeof p);
    }
    /* in either order (a TLS server without its CA is the step's failure) */
    assert_int_equal(tb_wl_params_set(&tb_wl_kv, &p, "tls_server", "h:6380", NULL, &e), 0);
    assert_int_equal(tb_wl_params_set(&tb_wl_kv, &p, "cacert", "/pki/ca.pem", NULL, &e), 0);
}

typedef struct names {
    char v[32][128];
    size_t n;
} names;

static int collect(void *ctx, const char *name)
{
    names *n = ctx;
    assert_true(n->n < 32);
    snprintf(n->v[n->n++], sizeof n->v[0], "%s", name);
    return 0;
}

static void test_metrics(void **state)
{
    (void)state;
    tb_wl_kv_params p;
    tb_err e;
    names n = {0};
    assert_int_equal(tb_wl_params_init(&tb_wl_kv, &p, TB_WL_STANDARD, &e), 0);
    assert_int_equal(tb_wl_kv.plan_metrics(&p, collect, &n), 0);
    assert_int_equal(n.n, 16);
    assert_string_equal(n.v[0], "kv.plain.set.rps");
    assert_string_equal(n.v[15], "kv.tls.get.latency.p99");
    for (size_t i = 0; i < n.n; i++) {
        tb_wl_match m;
        assert_int_equal(tb_wl_metric_find(n.v[i], &m), 1);
        int rps = strstr(n.v[i], ".rps") != NULL;
        assert_string_equal(m.metric->unit, rps ? "req/s" : "ms");
        assert_int_equal(m.metric->better, rps ? TB_WL_HIGHER : TB_WL_LOWER);
    }
    tb_wl_match m;
    assert_int_equal(tb_wl_metric_find("kv.tls.incr.rps", &m), 0);
    assert_int_equal(tb_wl_metric_find("kv.tls.get.latency.p99.9", &m), 0);
    tb_wl_step st[TB_WL_MAX_STEPS];
    assert_int_equal(tb_wl_kv.steps(&p, st), 2);
    assert_string_equal(st[0].target, "plain");
    assert_string_equal(st[1].target, "tls");
    assert_true(tb_wl_kv.flags & TB_WL_NOT_QUICK);
}

static int word_at(char **argv, const char *w)
{
    for (int i = 0; argv[i]; i++)
        if (!strcmp(argv[i], w))
            return i;
    return -1;
}

static void test_server_argv(void **state)
{
    (void)state;
    char *argv[48], text[4096];
    assert_int_equal(tb_wl_kv_server_argv("/usr/bin/redis-server", "198.18.1.2", 6379, 6380,
                                          "/w/pki", "/w/kv", argv, 48, text, sizeof text),
                     0);
    int i = word_at(argv, "--save");
    assert_true(i > 0);
    assert_string_equal(argv[i + 1], ""); /* no snapshots */
    assert_string_equal(argv[word_at(argv, "--appendonly") + 1], "no");
    assert_string_equal(argv[word_at(argv, "--bind") + 1], "198.18.1.2");
    assert_string_equal(argv[word_at(argv, "--protected-mode") + 1], "no"); /* not loopback */
    assert_string_equal(argv[word_at(argv, "--port") + 1], "6379");
    assert_string_equal(argv[word_at(argv, "--tls-port") + 1], "6380");
    assert_string_equal(argv[word_at(argv, "--tls-cert-file") + 1], "/w/pki/server.pem");
    assert_string_equal(argv[word_at(argv, "--tls-key-file") + 1], "/w/pki/server-key.pem");
    assert_string_equal(argv[word_at(argv, "--tls-ca-cert-file") + 1], "/w/pki/ca.pem");
    assert_string_equal(argv[word_at(argv, "--tls-auth-clients") + 1], "no");
    assert_string_equal(argv[word_at(argv, "--logfile") + 1], "/w/kv/redis.log");
    /* no PKI: no TLS; no directory: the log on stdout */
    assert_int_equal(tb_wl_kv_server_argv("redis-server", "127.0.0.1", 7000, 7001, NULL, NULL, argv,
                                          48, text, sizeof text),
                     0);
    assert_true(word_at(argv, "--tls-port") < 0 && word_at(argv, "--logfile") < 0);
    assert_string_equal(argv[word_at(argv, "--protected-mode") + 1], "yes");
    assert_int_equal(tb_wl_kv_server_argv("redis-server", "127.0.0.1", 7000, 7001, "/p", "/d", argv,
                                          8, text, sizeof text),
                     -1);
}

static double field(const json_t *run, size_t i, const char *k)
{
    const json_t *v = json_object_get(json_array_get(json_object_get(run, "tests"), i), k);
    assert_true(json_is_number(v));
    return json_number_value(v);
}

static void test_parse_real(void **state)
{
    (void)state;
    static const struct {
        const char *file, *tr;
        double set_rps, get_p99;
    } files[] = {
        {"redis-benchmark-7.0.15-plain.csv", "plain", 416666.66, 2.767},
        {"redis-benchmark-7.0.15-tls.csv", "tls", 333333.34, 2.631},
        {"redis-benchmark-7.0.15-threads.csv", "plain", 78125.00, 3.879},
    };
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        tb_buf b = {0};
        read_data(files[f].file, &b);
        json_t *run = NULL;
        tb_err e;
        if (tb_wl_kv_parse_csv((const char *)b.p, b.len, files[f].tr, &run, &e) < 0)
            fail_msg("%s: %s", files[f].file, e.msg);
        assert_string_equal(json_string_value(json_object_get(run, "transport")), files[f].tr);
        const json_t *tests = json_object_get(run, "tests");
        assert_int_equal(json_array_size(tests), 2);
        assert_string_equal(json_string_value(json_object_get(json_array_get(tests, 0), "test")),
                            "SET");
        assert_true(field(run, 0, "rps") == files[f].set_rps);
        assert_true(field(run, 1, "p99_ms") == files[f].get_p99);
        for (size_t i = 0; i < 2; i++)
            assert_true(field(run, i, "min_ms") <= field(run, i, "p50_ms") &&
                        field(run, i, "p50_ms") <= field(run, i, "p95_ms") &&
                        field(run, i, "p95_ms") <= field(run, i, "p99_ms") &&
                        field(run, i, "p99_ms") <= field(run, i, "max_ms"));
        json_decref(run);
        tb_buf_clear(&b);
    }
}

static void expect_csv_error(const char *text, const char *want)
{
    json_t *run = NULL;
    tb_err e = {{0}};
    assert_int_equal(tb_wl_kv_parse_csv(text, strlen(text), "plain", &run, &e), -1);
    assert_null(run);
    if (!strstr(e.msg, want))
        fail_msg("\"%s\", want \"%s\"", e.msg, want);
}

#define HEAD                                                                                       \
    "\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\",\"p95_latency_"     \
    "ms\",\"p99_latency_ms\",\"max_latency_ms\"\n"
#define SET "\"SET\",\"1000.00\",\"0.3\",\"0.1\",\"0.2\",\"0.5\",\"0.7\",\"2.4\"\n"
#define GET "\"GET\",\"2000.00\",\"0.2\",\"0.1\",\"0.2\",\"0.3\",\"0.4\",\"3.5\"\n"

static void test_parse_bad(void **state)
{
    (void)state;
    expect_csv_error("", "no header line");
    /* redis 6's --csv: a test and its rps, no header, no latencies */
    expect_csv_error("\"SET\",\"89285.71\"\n\"GET\",\"90909.09\"\n",
                     "a redis-benchmark older than 7.0 has no latency columns");
    expect_csv_error(HEAD SET, "no GET row");
    expect_csv_error(HEAD GET, "no SET row");
    expect_csv_error(HEAD SET "\"GET\",\"fast\",\"0.2\",\"0.1\",\"0.2\",\"0.3\",\"0.4\",\"3.5\"\n",
                     "rps of GET is \"fast\", not a number >= 0");
    expect_csv_error(HEAD SET "\"GET\",\"-1\",\"0.2\",\"0.1\",\"0.2\",\"0.3\",\"0.4\",\"3.5\"\n",
                     "not a number >= 0");
    /* base/num's decimals: strtod took hex and leading blanks */
    expect_csv_error(HEAD SET "\"GET\",\"0x10\",\"0.2\",\"0.1\",\"0.2\",\"0.3\",\"0.4\",\"3.5\"\n",
                     "rps of GET is \"0x10\", not a number >= 0");
    expect_csv_error(HEAD SET "\"GET\",\" 5\",\"0.2\",\"0.1\",\"0.2\",\"0.3\",\"0.4\",\"3.5\"\n",
                     "not a number >= 0");
    expect_csv_error(HEAD SET "\"GET\",\"1\"\n", "a row with 2 fields");
    expect_csv_error(HEAD SET GET "\"INCR\",\"1\",\"1\",\"1\",\"1\",\"1\",\"1\",\"1\"\n",
                     "a test that is not SET or GET (\"INCR\")");
    /* warnings and progress lines are no rows; CRLF and a column order of its own are fine */
    const char *ok = "WARNING: Could not fetch server CONFIG\r\n" HEAD SET "GET: rps=0.0\r" GET;
    json_t *run = NULL;
    tb_err e;
    assert_int_equal(tb_wl_kv_parse_csv(ok, strlen(ok), "tls", &run, &e), 0);
    assert_true(field(run, 1, "rps") == 2000);
    json_decref(run);
    const char *swapped = "\"rps\",\"test\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_"
                          "ms\",\"p95_latency_ms\",\"p99_latency_ms\",\"max_latency_ms\"\n"
                          "\"5\",\"SET\",\"1\",\"1\",\"1\",\"1\",\"1\",\"1\"\n"
                          "\"6\",\"GET\",\"1\",\"1\",\"1\",\"1\",\"1\",\"1\"\n";
    assert_int_equal(tb_wl_kv_parse_csv(swapped, strlen(swapped), "tls", &run, &e), 0);
    assert_true(field(run, 1, "rps") == 6);
    json_decref(run);
}

static json_t *doc_of_real(void)
{
    json_t *runs = json_array();
    static const char *const files[][2] = {{"redis-benchmark-7.0.15-plain.csv", "plain"},
                                           {"redis-benchmark-7.0.15-tls.csv", "tls"}};
    for (size_t f = 0; f < 2; f++) {
        tb_buf b = {0};
        read_data(files[f][0], &b);
        json_t *run = NULL;
        tb_err e;
        assert_int_equal(tb_wl_kv_parse_csv((const char *)b.p, b.len, files[f][1], &run, &e), 0);
        json_object_set_new(run, "server", json_string("127.0.0.1:16379"));
        json_array_append_new(runs, run);
        tb_buf_clear(&b);
    }
    tb_wl_kv_params p;
    tb_err e;
    assert_int_equal(tb_wl_params_init(&tb_wl_kv, &p, TB_WL_QUICK, &e), 0);
    json_t *d = tb_wl_kv_doc(&p, "7.0.15", "7.0.15", runs);
    assert_non_null(d);
    json_object_set_new(d, "schema", json_string(TB_WL_KV_SCHEMA));
    return d;
}

static int read_doc(const json_t *d, kept *k, tb_err *e)
{
    memset(k, 0, sizeof *k);
    tb_wl_sink sink = {.ctx = k, .sample = keep, .dir_fd = -1};
    tb_wl_doc_info info;
    assert_ptr_equal(tb_workload_for_doc(d), &tb_wl_kv);
    return tb_wl_kv.doc_read(d, NULL, &sink, &info, e);
}

static void test_doc(void **state)
{
    (void)state;
    json_t *d = doc_of_real();
    kept k;
    tb_err e;
    assert_int_equal(read_doc(d, &k, &e), 0);
    assert_int_equal(k.n, 16);
    tb_wl_kv_params p;
    names n = {0};
    assert_int_equal(tb_wl_params_init(&tb_wl_kv, &p, TB_WL_QUICK, &e), 0);
    assert_int_equal(tb_wl_kv.plan_metrics(&p, collect, &n), 0);
    for (size_t i = 0; i < n.n; i++)
        assert_string_equal(k.names[i], n.v[i]);
    assert_true(k.values[0] == 416666.66); /* kv.plain.set.rps */
    assert_string_equal(k.names[12], "kv.tls.get.rps");
    assert_true(k.values[12] == 298507.47);
    assert_true(k.values[15] == 2.631);                              /* kv.tls.get.latency.p99 */
    json_t *remote = tb_wl_kv_doc(&p, NULL, "7.0.15", json_array()); /* a server elsewhere */
    assert_true(json_is_null(json_object_get(remote, "redis_server")));
    json_decref(remote);
    static const struct {
        const char *what, *want;
    } bad[] = {
        {"no runs", "\"runs\" must be a non-empty array"},
        {"no transport", "runs[1] needs \"transport\" and \"tests\""},
        {"INCR", "runs[1].tests[1]: a test that is not SET or GET"},
        {"no p99", "missing \"p99_ms\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *c = json_deep_copy(d);
        json_t *run = json_array_get(json_object_get(c, "runs"), 1);
        json_t *t = json_array_get(json_object_get(run, "tests"), 1);
        if (i == 0)
            json_object_del(c, "runs");
        else if (i == 1)
            json_object_del(run, "transport");
        else if (i == 2)
            json_object_set_new(t, "test", json_string("INCR"));
        else
            json_object_del(t, "p99_ms");
        assert_int_equal(read_doc(c, &k, &e), -1);
        if (!strstr(e.msg, bad[i].want))
            fail_msg("%s: \"%s\", want \"%s\"", bad[i].what, e.msg, bad[i].want);
        assert_int_equal(k.n, 0); /* nothing given before the refusal */
        json_decref(c);
    }
    json_decref(d);
}

static void test_missing_tools(void **state)
{
    (void)state;
    char work[PATH_MAX];
    tb_wl_sink sink = {.dir_fd = -1};
    tb_err e = {{0}};
    assert_int_equal(tb_wl_workdir_open("test-kv", work, sizeof work, &sink, &e), 0);
    tb_wl_kv_params p;
    assert_int_equal(tb_wl_params_init(&tb_wl_kv, &p, TB_WL_QUICK, &e), 0);
    snprintf(p.server_bin, sizeof p.server_bin, "redis-server-not-here");
    snprintf(p.bench_bin, sizeof p.bench_bin, "/nonexistent/redis-benchmark");
    tb_wl_kv_server s;
    int skip = 0;
    assert_int_equal(tb_wl_kv_server_start(&p, 1, &sink, &s, &skip, &e), -1);
    assert_int_equal(skip, 1);
    assert_non_null(strstr(e.msg, "redis-server is not installed (redis-server-not-here not "
                                  "found in PATH): install the package redis-server"));
    assert_int_equal(s.up, 0);
    tb_wl_kv_target t = {.host = "127.0.0.1", .port = 1};
    json_t *run = NULL;
    assert_int_equal(tb_wl_kv_bench(&p, &t, &sink, &run, &e), TB_WL_SKIPPED);
    assert_null(run);
    assert_non_null(strstr(e.msg, "install the package redis-tools"));
    /* a server that is not there is one line, not redis-benchmark's endless retries */
    snprintf(p.bench_bin, sizeof p.bench_bin, "/bin/true");
    int port = 1; /* nothing listens on port 1 */
    t.port = port;
    assert_int_equal(tb_wl_kv_bench(&p, &t, &sink, &run, &e), TB_WL_FAILED);
    assert_non_null(strstr(e.msg, "redis at 127.0.0.1:1"));
    char v[64];
    tb_wl_kv_bench_version(&p, &sink, v, sizeof v); /* /bin/true says nothing */
    assert_string_equal(v, "");
    tb_wl_workdir_remove(&sink);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params),        cmocka_unit_test(test_metrics),
        cmocka_unit_test(test_server_argv),   cmocka_unit_test(test_parse_real),
        cmocka_unit_test(test_parse_bad),     cmocka_unit_test(test_doc),
        cmocka_unit_test(test_missing_tools),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
