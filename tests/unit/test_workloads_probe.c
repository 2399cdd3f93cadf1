/* Unit tests for src/workloads/probe: the teebench-probe/1 document written from probe
 * results and read back (one sample a measured probe, its median; a probe that could
 * not run gives none; a name from a document made safe for a metric name; the
 * description as the note), what the reader refuses, and the plan's selection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "workloads/internal.h"
#include "workloads/probe.h"

typedef struct kept {
    char names[8][160], notes[8][200];
    double values[8];
    size_t n;
} kept;

static int keep(void *ctx, const char *name, double v, int simulated, const char *note, tb_err *err)
{
    kept *k = ctx;
    (void)simulated;
    (void)err;
    tb_wl_match m;
    assert_int_equal(tb_wl_metric_find(name, &m), 1);
    assert_ptr_equal(m.workload, &tb_wl_probe);
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
    assert_ptr_equal(tb_workload_for_doc(doc), &tb_wl_probe);
    return tb_wl_probe.doc_read(doc, NULL, &sink, &info, e);
}

static void test_document(void **state)
{
    (void)state;
    const tb_probe_info *cpuid = tb_probe_find("cpuid"), *page = tb_probe_find("page-2m");
    tb_probe_result ok = {.available = 1,
                          .median_ns = 41.5,
                          .p99_ns = 60,
                          .samples = 100,
                          .batch = 4,
                          .cpu = 0,
                          .cpu2 = -1};
    tb_probe_result no = {.available = 0, .cpu = 0, .cpu2 = -1};
    snprintf(no.note, sizeof no.note, "no huge page free");
    json_t *arr = json_array();
    json_array_append_new(arr, tb_wl_probe_result_json(cpuid, &ok));
    json_array_append_new(arr, tb_wl_probe_result_json(page, &no));
    json_t *doc = tb_wl_probe_doc(arr);
    assert_non_null(doc);
    json_object_set_new(doc, "schema", json_string(TB_WL_PROBE_SCHEMA));
    json_t *second = json_array_get(json_object_get(doc, "probes"), 1);
    assert_null(json_object_get(second, "median_ns")); /* never a number not measured */
    assert_string_equal(json_string_value(json_object_get(second, "note")), "no huge page free");
    assert_null(json_object_get(json_array_get(json_object_get(doc, "probes"), 0), "cpu2"));
    kept k;
    tb_err e;
    assert_int_equal(read_doc(doc, &k, &e), 0);
    assert_int_equal(k.n, 1);
    assert_string_equal(k.names[0], "probe.cpuid.ns");
    assert_true(k.values[0] == 41.5);
    assert_string_equal(k.notes[0], cpuid->what);
    /* another teebench's probe, named with characters a metric name cannot have */
    json_object_set_new(json_array_get(json_object_get(doc, "probes"), 0), "name",
                        json_string("MSR.Read 0x10"));
    assert_int_equal(read_doc(doc, &k, &e), 0);
    assert_string_equal(k.names[0], "probe.msr_read_0x10.ns");
    /* refused */
    json_object_del(json_array_get(json_object_get(doc, "probes"), 0), "median_ns");
    assert_int_equal(read_doc(doc, &k, &e), -1);
    assert_string_equal(e.msg, "probe JSON: probes[0]: missing \"median_ns\"");
    json_object_set_new(json_array_get(json_object_get(doc, "probes"), 1), "available",
                        json_string("no"));
    json_object_set_new(json_array_get(json_object_get(doc, "probes"), 0), "median_ns",
                        json_real(1));
    assert_int_equal(read_doc(doc, &k, &e), -1);
    assert_string_equal(e.msg, "probe JSON: probes[1] needs \"name\" and \"available\"");
    json_object_set_new(doc, "probes", json_object());
    assert_int_equal(read_doc(doc, &k, &e), -1);
    assert_string_equal(e.msg, "probe JSON: \"probes\" must be an array");
    json_decref(doc);
}

static void test_selected(void **state)
{
    (void)state;
    tb_wl_probe_params pr;
    tb_err e;
    assert_int_equal(tb_wl_params_init(&tb_wl_probe, &pr, TB_WL_QUICK, &e), 0);
    assert_int_equal(pr.max_reps, 300);
    assert_true(tb_wl_probe_selected(&pr, "cpuid") && tb_wl_probe_selected(&pr, "mmap"));
    assert_int_equal(tb_wl_params_set(&tb_wl_probe, &pr, "probes", "rdtsc,cpuid,rdtsc", NULL, &e),
                     0);
    assert_int_equal(pr.n, 2);
    assert_true(tb_wl_probe_selected(&pr, "cpuid"));
    assert_false(tb_wl_probe_selected(&pr, "mmap"));
    assert_int_equal(tb_wl_params_set(&tb_wl_probe, &pr, "probes", "cpuid,warp", NULL, &e), -1);
    assert_string_equal(e.msg, "probe.probes: unknown probe 'warp' (teebench probe --help lists "
                               "them)");
    assert_int_equal(pr.n, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_document),
        cmocka_unit_test(test_selected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
