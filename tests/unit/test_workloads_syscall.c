/* Unit tests for src/workloads/syscall: the teebench-syscall/1 document written from
 * scored passes and read back by the one reader of it (the suite's and the importer's):
 * the index (mode mix only) and the lps of the passes the scoring kept, named for one
 * copy or several -- by the copies, or as the caller says (the suite's cn step on a
 * one-CPU machine is cn) -- the other modes' names, the notes, and what a reader
 * refuses before it gives a single sample. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "workloads/syscall.h"

typedef struct kept {
    char names[32][160], notes[32][320];
    double values[32];
    size_t n;
} kept;

static int keep(void *ctx, const char *name, double v, int simulated, const char *note, tb_err *err)
{
    kept *k = ctx;
    (void)simulated;
    (void)err;
    tb_wl_match m;
    assert_int_equal(tb_wl_metric_find(name, &m), 1);
    assert_ptr_equal(m.workload, &tb_wl_syscall);
    snprintf(k->names[k->n], sizeof k->names[0], "%s", name);
    snprintf(k->notes[k->n], sizeof k->notes[0], "%s", note);
    k->values[k->n++] = v;
    return 0;
}

static int read_doc(const json_t *doc, const char *copies, kept *k, tb_err *e)
{
    memset(k, 0, sizeof *k);
    tb_wl_sink sink = {.ctx = k, .sample = keep, .dir_fd = -1};
    tb_wl_read_opts o = {.copies = copies};
    tb_wl_doc_info info;
    assert_ptr_equal(tb_workload_for_doc(doc), &tb_wl_syscall);
    return tb_wl_syscall.doc_read(doc, &o, &sink, &info, e);
}

/* Three passes, the lowest dropped, scored as sys/syscall_bench does. */
static json_t *doc_of(tb_syscall_bench_mode mode, long copies)
{
    tb_syscall_bench_pass p[3] = {{.count = 1000, .seconds = 0.5},
                                  {.count = 900, .seconds = 0.5},
                                  {.count = 1100, .seconds = 0.5}};
    for (int i = 0; i < 3; i++)
        p[i].lps = (double)p[i].count / p[i].seconds;
    double score;
    tb_err e;
    assert_int_equal(tb_syscall_bench_score(p, 3, &score, &e), 0);
    json_t *d = tb_wl_syscall_doc(mode, 0.5, copies, p, 3, score);
    assert_non_null(d);
    json_object_set_new(d, "schema", json_string(TB_WL_SYSCALL_SCHEMA));
    return d;
}

static void test_round_trip(void **state)
{
    (void)state;
    tb_err e;
    kept k;
    json_t *d = doc_of(TB_SYSCALL_BENCH_MIX, 1);
    assert_false(json_is_true(json_object_get(json_array_get(json_object_get(d, "passes"), 1),
                                              "kept"))); /* 900 loops: dropped */
    assert_int_equal(read_doc(d, NULL, &k, &e), 0);
    assert_int_equal(k.n, 3); /* the index, then the 2 passes kept */
    assert_string_equal(k.names[0], "syscall.c1.index");
    assert_true(k.values[0] == json_real_value(json_object_get(d, "index")));
    assert_string_equal(k.names[1], "syscall.c1.lps");
    assert_true(k.values[1] == 2000 && k.values[2] == 2200);
    assert_non_null(strstr(k.notes[0], "(score / 15000 lps x 10), mode mix, 1 copy"));
    assert_true(json_real_value(json_object_get(json_array_get(json_object_get(d, "passes"), 0),
                                                "ns_per_loop")) == 500000);
    /* the suite's cn step with one copy is still cn, and says the CPUs online */
    assert_int_equal(read_doc(d, "cn", &k, &e), 0);
    assert_string_equal(k.names[0], "syscall.cn.index");
    assert_string_equal(k.names[1], "syscall.cn.lps");
    assert_non_null(strstr(k.notes[1], "1 copy (the CPUs online)"));
    json_decref(d);

    d = doc_of(TB_SYSCALL_BENCH_MIX, 4);
    assert_int_equal(read_doc(d, NULL, &k, &e), 0);
    assert_string_equal(k.names[0], "syscall.cn.index");
    assert_non_null(strstr(k.notes[1], "4 copies, loops summed over the copies"));
    json_decref(d);

    /* another mode: no index, the mode in the name */
    d = doc_of(TB_SYSCALL_BENCH_GETPID, 1);
    assert_true(json_is_null(json_object_get(d, "index")));
    assert_int_equal(read_doc(d, NULL, &k, &e), 0);
    assert_int_equal(k.n, 2);
    assert_string_equal(k.names[0], "syscall.getpid.c1.lps");
    json_decref(d);
}

static void test_refused(void **state)
{
    (void)state;
    static const struct {
        const char *member, *json, *want;
    } bad[] = {
        {"mode", NULL, "syscall JSON: missing \"mode\""},
        {"passes", "[]", "syscall JSON: \"passes\" must be a non-empty array"},
        {"copies", "0", "syscall JSON: \"copies\" must be an integer >= 1"},
        {"copies", "1.5", "syscall JSON: \"copies\" must be an integer >= 1"},
        {"passes", "[{\"lps\": 1, \"kept\": true}, {\"lps\": -1, \"kept\": true}]",
         "syscall JSON: passes[1] needs \"lps\" (a number >= 0) and \"kept\" (true or false)"},
        {"passes", "[{\"lps\": 1, \"kept\": 1}]", "syscall JSON: passes[0] needs"},
        {"index", "\"9\"", "syscall JSON: \"index\" is not a number >= 0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *d = doc_of(TB_SYSCALL_BENCH_MIX, 1);
        if (bad[i].json)
            json_object_set_new(d, bad[i].member, json_loads(bad[i].json, JSON_DECODE_ANY, NULL));
        else
            json_object_del(d, bad[i].member);
        tb_err e = {{0}};
        kept k;
        assert_int_equal(read_doc(d, NULL, &k, &e), -1);
        if (!strstr(e.msg, bad[i].want))
            fail_msg("%s: \"%s\", want \"%s\"", bad[i].member, e.msg, bad[i].want);
        assert_int_equal(k.n, 0); /* checked before the first sample */
        json_decref(d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
