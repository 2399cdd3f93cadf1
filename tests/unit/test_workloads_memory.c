/* Unit tests for src/workloads/memory: sizes as the parameters take and name them, the
 * parameters' lists (threads, working sets, parts) and refusals, the metric names a plan
 * produces (each in the table with its unit, direction and category), and the
 * teebench-memory/1 document written by real (tiny) runs of every part and read back --
 * one sample a kernel and thread count, a working set, the first touch -- and what the
 * reader refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "workloads/internal.h"
#include "workloads/memory.h"

static void test_sizes(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        uint64_t bytes;
        const char *name;
    } ok[] = {{"4096", 4096, "4k"},     {"4k", 4096, "4k"},         {"64K", 65536, "64k"},
              {"64KiB", 65536, "64k"},  {"1m", 1 << 20, "1m"},      {"1536k", 1536 << 10, "1536k"},
              {"1g", 1ull << 30, "1g"}, {"2GiB", 2ull << 30, "2g"}, {"1024m", 1ull << 30, "1g"},
              {"100", 100, "100"},      {"3mb", 3 << 20, "3m"}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        uint64_t b = 0;
        tb_err e;
        if (tb_wl_memory_size_parse("k", ok[i].text, &b, &e) < 0)
            fail_msg("%s: %s", ok[i].text, e.msg);
        assert_int_equal(b, ok[i].bytes);
        char n[32];
        tb_wl_memory_size_name(b, n, sizeof n);
        assert_string_equal(n, ok[i].name);
    }
    static const char *const bad[] = {
        "", "k", "-4k", "0", "4x", "4kk", "1.5g", " 4k", "99999999999999999999g"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t b;
        tb_err e;
        assert_int_equal(tb_wl_memory_size_parse("memory.array", bad[i], &b, &e), -1);
        assert_non_null(strstr(e.msg, "memory.array: "));
    }
    /* more digits than 64 bits hold: too large, as a size that overflows (base/num) */
    uint64_t b;
    tb_err e;
    assert_int_equal(tb_wl_memory_size_parse("k", "99999999999999999999g", &b, &e), -1);
    assert_string_equal(e.msg, "k: 99999999999999999999g is too large");
    assert_int_equal(tb_wl_memory_size_parse("k", "17179869184g", &b, &e), -1);
    assert_string_equal(e.msg, "k: 17179869184g is too large");
}

static void test_params(void **state)
{
    (void)state;
    tb_wl_memory_params m;
    tb_err e;
    assert_int_equal(tb_wl_params_init(&tb_wl_memory, &m, TB_WL_STANDARD, &e), 0);
    assert_int_equal(m.array_bytes, 0); /* auto */
    assert_int_equal(m.n_threads, 2);
    assert_int_equal(m.threads[0], 1);
    assert_int_equal(m.threads[1], 0); /* n */
    assert_int_equal(m.n_sizes, 10);
    assert_int_equal(m.sizes[0], 4096);
    assert_int_equal(m.sizes[9], 1ull << 30);
    assert_int_equal(m.touch_bytes, 1ull << 30);
    assert_int_equal(tb_wl_params_set(&tb_wl_memory, &m, "threads", "4,n,1,4", NULL, &e), 0);
    assert_int_equal(m.n_threads, 3); /* a repeat counts once */
    assert_int_equal(m.threads[0], 4);
    assert_int_equal(tb_wl_params_set(&tb_wl_memory, &m, "sizes", "1g,4k,64k,4k", NULL, &e), 0);
    assert_int_equal(m.n_sizes, 3); /* ascending, once each */
    assert_true(m.sizes[0] == 4096 && m.sizes[1] == 65536 && m.sizes[2] == 1ull << 30);
    assert_int_equal(tb_wl_params_set(&tb_wl_memory, &m, "threads", "0", NULL, &e), -1);
    assert_string_equal(e.msg, "memory.threads: '0': want a thread count (1..1024) or n (one per "
                               "CPU online)");
    assert_int_equal(m.n_threads, 3); /* unchanged */
    assert_int_equal(tb_wl_params_set(&tb_wl_memory, &m, "sizes", "1k", NULL, &e), -1);
    assert_string_equal(e.msg, "memory.sizes: 1k is out of range (4k .. 64g)");
    assert_int_equal(tb_wl_params_set(&tb_wl_memory, &m, "array", "32k", NULL, &e), -1);
    assert_int_equal(tb_wl_params_set(&tb_wl_memory, &m, "array", "auto", NULL, &e), 0);
    assert_int_equal(tb_wl_params_set(&tb_wl_memory, &m, "parts", "latency,first_touch", NULL, &e),
                     0);
    assert_true(!m.part[TB_WL_MEM_BANDWIDTH] && m.part[TB_WL_MEM_LATENCY] &&
                m.part[TB_WL_MEM_FIRST_TOUCH]);
    assert_int_equal(tb_wl_params_set(&tb_wl_memory, &m, "parts", "speed", NULL, &e), -1);
    assert_string_equal(e.msg,
                        "memory.parts: unknown part 'speed' (bandwidth, latency, first-touch)");
    /* auto arrays: 4 x the LLC, at least 64 MiB; unknown LLC: 256 MiB */
    assert_int_equal(tb_wl_memory_array_auto(&m, 300ull << 20), 1200ull << 20);
    assert_int_equal(tb_wl_memory_array_auto(&m, 8ull << 20), 64ull << 20);
    assert_int_equal(tb_wl_memory_array_auto(&m, 0), 256ull << 20);
    m.array_bytes = 1 << 20;
    assert_int_equal(tb_wl_memory_array_auto(&m, 300ull << 20), 1 << 20);
    /* quick: small enough for tests */
    assert_int_equal(tb_wl_params_init(&tb_wl_memory, &m, TB_WL_QUICK, &e), 0);
    assert_int_equal(m.array_bytes, 16 << 20);
    assert_true(tb_wl_memory.flags & TB_WL_NOT_QUICK);
}

typedef struct kept {
    char names[64][96];
    char notes[64][400];
    double values[64];
    size_t n;
} kept;

static int keep(void *ctx, const char *name, double v, int simulated, const char *note, tb_err *err)
{
    kept *k = ctx;
    (void)err;
    assert_false(simulated);
    tb_wl_match m;
    if (!tb_wl_metric_find(name, &m))
        fail_msg("%s: in no table", name);
    assert_ptr_equal(m.workload, &tb_wl_memory);
    assert_int_equal(m.metric->category, TB_CAT_MEMORY);
    assert_true(k->n < 64);
    snprintf(k->names[k->n], sizeof k->names[0], "%s", name);
    snprintf(k->notes[k->n], sizeof k->notes[0], "%s", note ? note : "");
    k->values[k->n++] = v;
    return 0;
}

static int read_doc(const json_t *doc, kept *k, tb_err *e)
{
    memset(k, 0, sizeof *k);
    tb_wl_sink sink = {.ctx = k, .sample = keep, .dir_fd = -1};
    tb_wl_doc_info info;
    assert_ptr_equal(tb_workload_for_doc(doc), &tb_wl_memory);
    return tb_wl_memory.doc_read(doc, NULL, &sink, &info, e);
}

static int collect(void *ctx, const char *name)
{
    kept *k = ctx;
    snprintf(k->names[k->n++], sizeof k->names[0], "%s", name);
    return 0;
}

static void test_plan_metrics(void **state)
{
    (void)state;
    tb_wl_memory_params m;
    tb_err e;
    assert_int_equal(tb_wl_params_init(&tb_wl_memory, &m, TB_WL_QUICK, &e), 0);
    assert_int_equal(tb_wl_params_set(&tb_wl_memory, &m, "threads", "1,n,3", NULL, &e), 0);
    assert_int_equal(tb_wl_params_set(&tb_wl_memory, &m, "sizes", "4k,1536k", NULL, &e), 0);
    kept k = {0};
    assert_int_equal(tb_wl_memory.plan_metrics(&m, collect, &k), 0);
    static const char *const want[] = {
        "memory.bw.copy.t1",   "memory.bw.scale.t1",     "memory.bw.add.t1",  "memory.bw.triad.t1",
        "memory.bw.copy.tn",   "memory.bw.scale.tn",     "memory.bw.add.tn",  "memory.bw.triad.tn",
        "memory.bw.copy.t3",   "memory.bw.scale.t3",     "memory.bw.add.t3",  "memory.bw.triad.t3",
        "memory.latency.4kib", "memory.latency.1536kib", "memory.first_touch"};
    assert_int_equal(k.n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < k.n; i++) {
        assert_string_equal(k.names[i], want[i]);
        tb_wl_match wm;
        assert_int_equal(tb_wl_metric_find(want[i], &wm), 1);
        assert_string_equal(wm.metric->unit, i < 12 ? "B/s" : "ns");
        assert_int_equal(wm.metric->better, i < 12 ? TB_WL_HIGHER : TB_WL_LOWER);
        assert_int_equal(wm.metric->category, TB_CAT_MEMORY);
    }
    tb_wl_match wm;
    assert_int_equal(tb_wl_metric_find("memory.bw.copy", &wm), 0);
    assert_int_equal(tb_wl_metric_find("memory.first_touch.x", &wm), 0);
}

/* The document of real runs of every part, tiny, read back. */
static void test_document(void **state)
{
    (void)state;
    tb_wl_memory_params m;
    tb_err e;
    assert_int_equal(tb_wl_params_init(&tb_wl_memory, &m, TB_WL_QUICK, &e), 0);
    assert_int_equal(tb_wl_params_set(&tb_wl_memory, &m, "array", "256k", NULL, &e), 0);
    assert_int_equal(tb_wl_params_set(&tb_wl_memory, &m, "threads", "1,n", NULL, &e), 0);
    assert_int_equal(tb_wl_params_set(&tb_wl_memory, &m, "sizes", "4k,64k", NULL, &e), 0);
    assert_int_equal(tb_wl_params_set(&tb_wl_memory, &m, "chase", "5ms", NULL, &e), 0);
    assert_int_equal(tb_wl_params_set(&tb_wl_memory, &m, "first_touch", "2m", NULL, &e), 0);
    json_t *doc = tb_wl_memory_doc(&m, 2);
    assert_non_null(doc);
    json_object_set_new(doc, "schema", json_string(TB_WL_MEMORY_SCHEMA));
    for (int part = 0; part < TB_WL_MEM_PARTS; part++) {
        int stopped = 1;
        if (tb_wl_memory_run(&m, part, 2, NULL, doc, &stopped, &e) < 0)
            fail_msg("%s: %s", tb_wl_memory_part_name(part), e.msg);
        assert_false(stopped);
    }
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(doc, "options"), "array")), "256k");
    const json_t *bw = json_object_get(doc, "bandwidth");
    assert_int_equal(json_array_size(bw), 2);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(bw, 1), "threads")), 2);
    kept k;
    assert_int_equal(read_doc(doc, &k, &e), 0);
    assert_int_equal(k.n, 8 + 2 + 1);
    assert_string_equal(k.names[0], "memory.bw.copy.t1");
    assert_string_equal(k.names[7], "memory.bw.triad.tn");
    assert_string_equal(k.names[8], "memory.latency.4kib");
    assert_string_equal(k.names[9], "memory.latency.64kib");
    assert_string_equal(k.names[10], "memory.first_touch");
    /* an array size no uint64_t holds (a document's bytes are untrusted): refused */
    json_t *bad = json_deep_copy(doc);
    json_object_set_new(json_array_get(json_object_get(bad, "bandwidth"), 0), "array_bytes",
                        json_real(1e30));
    kept k2;
    assert_int_equal(read_doc(bad, &k2, &e), -1);
    assert_non_null(strstr(e.msg, "\"array_bytes\" 1e+30 is no size"));
    json_decref(bad);
    /* the values are the document's */
    double copy = json_number_value(json_object_get(
        json_object_get(json_object_get(json_array_get(bw, 0), "kernels"), "copy"), "best_Bps"));
    assert_true(copy > 0 && k.values[0] == copy);
    double lat = json_number_value(
        json_object_get(json_array_get(json_object_get(doc, "latency"), 1), "ns_per_load"));
    assert_true(lat > 0 && k.values[9] == lat);
    assert_true(k.values[10] == json_number_value(json_object_get(
                                    json_object_get(doc, "first_touch"), "ns_per_page")));
    assert_non_null(strstr(k.notes[0], "copy over 3 arrays of 256k, 1 thread"));
    assert_non_null(strstr(k.notes[4], "2 threads"));
    assert_non_null(strstr(k.notes[10], "mmap(MAP_POPULATE) of a fresh 2m region"));

    /* refused, naming the member */
    json_t *bw0 = json_array_get(json_object_get(doc, "bandwidth"), 0);
    json_object_del(json_object_get(json_object_get(bw0, "kernels"), "triad"), "best_Bps");
    assert_int_equal(read_doc(doc, &k, &e), -1);
    assert_string_equal(e.msg, "memory JSON: bandwidth[0].kernels: missing \"triad.best_Bps\"");
    json_object_set_new(bw0, "label", json_integer(1));
    assert_int_equal(read_doc(doc, &k, &e), -1);
    assert_string_equal(e.msg, "memory JSON: bandwidth[0]: missing \"label\"");
    json_object_set_new(doc, "bandwidth", json_object());
    assert_int_equal(read_doc(doc, &k, &e), -1);
    assert_string_equal(e.msg, "memory JSON: \"bandwidth\" must be an array");
    json_object_del(doc, "bandwidth");
    json_object_set_new(json_array_get(json_object_get(doc, "latency"), 0), "ns_per_load",
                        json_real(-1));
    assert_int_equal(read_doc(doc, &k, &e), -1);
    assert_string_equal(e.msg, "memory JSON: latency[0]: \"ns_per_load\" is not a number >= 0");
    json_object_del(doc, "latency");
    json_object_set_new(doc, "first_touch", json_string("fast"));
    assert_int_equal(read_doc(doc, &k, &e), -1);
    assert_string_equal(e.msg, "memory JSON: \"first_touch\" must be an object");
    json_object_del(doc, "first_touch");
    assert_int_equal(read_doc(doc, &k, &e), -1);
    assert_string_equal(e.msg, "memory JSON: none of \"bandwidth\", \"latency\", \"first_touch\"");
    /* another teebench's label, made safe for a metric name */
    json_object_set_new(doc, "latency",
                        json_pack("[{s:s, s:f}]", "label", "8 KiB", "ns_per_load", 2.5));
    assert_int_equal(read_doc(doc, &k, &e), 0);
    assert_string_equal(k.names[0], "memory.latency.8_kib");
    json_decref(doc);
}

/* A stop flag already set: the part stops at once and adds nothing. */
static void test_stopped(void **state)
{
    (void)state;
    tb_wl_memory_params m;
    tb_err e;
    assert_int_equal(tb_wl_params_init(&tb_wl_memory, &m, TB_WL_QUICK, &e), 0);
    assert_int_equal(tb_wl_params_set(&tb_wl_memory, &m, "array", "256k", NULL, &e), 0);
    volatile sig_atomic_t stop = 1;
    json_t *doc = json_object();
    int stopped = 0;
    assert_int_equal(tb_wl_memory_run(&m, TB_WL_MEM_BANDWIDTH, 2, &stop, doc, &stopped, &e), 0);
    assert_true(stopped);
    assert_int_equal(json_array_size(json_object_get(doc, "bandwidth")), 0);
    json_decref(doc);
}

/* The working-set sweep the report draws: latency names read as their sizes in bytes. */
static void test_sweep(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        double x;
    } cases[] = {{"memory.latency.4kib", 4096},
                 {"memory.latency.1536kib", 1536 * 1024.0},
                 {"memory.latency.1gib", 1073741824.0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tb_wl_match m;
        double x = 0;
        assert_int_equal(tb_wl_metric_find(cases[i].name, &m), 1);
        assert_non_null(tb_wl_sweep_of(&m, &x));
        assert_true(x == cases[i].x);
    }
    tb_wl_match m;
    double x;
    assert_int_equal(tb_wl_metric_find("memory.bw.copy.t1", &m), 1);
    assert_null(tb_wl_sweep_of(&m, &x)); /* thread counts are no sweep ("tn") */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep),    cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_params),   cmocka_unit_test(test_plan_metrics),
        cmocka_unit_test(test_document), cmocka_unit_test(test_stopped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
