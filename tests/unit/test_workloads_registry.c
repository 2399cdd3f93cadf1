/* Unit tests for src/workloads/registry: the table of workloads (unique names, the
 * suite's order, env first and always, vm outside the suite), every metric table's
 * rules (names start with the workload's name, one "*" at most, a unit, a
 * direction, a category; percentiles only on latency rows), and the lookup of a
 * metric name: templates and literal rows, what "*" stood for, the TEE mark and its
 * exception (no_tee), and the names no table has (other teebench versions, empty
 * or over-long segments, a workload's name alone). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "workloads/workload.h"

static void test_registry(void **state)
{
    (void)state;
    size_t n = tb_workload_count();
    assert_true(n >= 7);
    assert_null(tb_workload_at(n));
    static const char *const order[] = {"env", "syscall", "probe", "http", "attest", "notary"};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        assert_string_equal(tb_workload_at(i)->name, order[i]);
    assert_true(tb_workload_at(0)->flags & TB_WL_ALWAYS);
    assert_true(tb_workload_find("vm")->flags & TB_WL_NO_SUITE);
    assert_null(tb_workload_find("nope"));
    assert_null(tb_workload_find(""));
    for (size_t i = 0; i < n; i++) {
        const tb_workload *w = tb_workload_at(i);
        assert_ptr_equal(tb_workload_find(w->name), w);
        assert_int_equal(tb_workload_index(w), (int)i);
        assert_non_null(w->title);
        assert_non_null(w->what);
        for (size_t k = i + 1; k < n; k++)
            assert_string_not_equal(w->name, tb_workload_at(k)->name);
    }
    tb_workload other = {.name = "other"};
    assert_int_equal(tb_workload_index(&other), -1);
}

static void test_tables(void **state)
{
    (void)state;
    for (size_t i = 0; i < tb_workload_count(); i++) {
        const tb_workload *w = tb_workload_at(i);
        for (size_t k = 0; k < w->n_metrics; k++) {
            const tb_wl_metric *m = &w->metrics[k];
            size_t wl = strlen(w->name), stars = 0;
            if (strncmp(m->name, w->name, wl) || m->name[wl] != '.')
                fail_msg("%s: %s does not start with %s.", w->name, m->name, w->name);
            for (const char *s = m->name; (s = strstr(s, "*")); s++)
                stars++;
            assert_true(stars <= 1);
            assert_true(m->unit && m->unit[0]);
            assert_true(m->better == TB_WL_HIGHER || m->better == TB_WL_LOWER);
            assert_true(m->category > TB_CAT_OTHER && m->category < TB_CAT_COUNT);
            assert_true((m->pct > 0) == (m->category == TB_CAT_LATENCY));
            assert_true(!m->plain || (m->tee && stars == 1));
            /* a row's own name (its "*" filled in) finds that row */
            char name[160], part[8] = "x-1_a";
            const char *star = strchr(m->name, '*');
            if (star)
                snprintf(name, sizeof name, "%.*s%s%s", (int)(star - m->name), m->name, part,
                         star + 1);
            else
                snprintf(name, sizeof name, "%s", m->name);
            tb_wl_match f;
            assert_int_equal(tb_wl_metric_find(name, &f), 1);
            assert_ptr_equal(f.workload, w);
            assert_ptr_equal(f.metric, m);
            assert_string_equal(f.part, star ? part : "");
        }
    }
}

static void test_lookup(void **state)
{
    (void)state;
    tb_wl_match m;
    assert_int_equal(tb_wl_metric_find("http.nginx.latency.p99.9", &m), 1);
    assert_string_equal(m.workload->name, "http");
    assert_string_equal(m.metric->unit, "ms");
    assert_int_equal(m.metric->better, TB_WL_LOWER);
    assert_int_equal(m.metric->category, TB_CAT_LATENCY);
    assert_true(m.metric->pct == 99.9);
    assert_false(m.metric->flags & TB_WLM_UNCORRECTED);
    assert_string_equal(m.part, "nginx");
    assert_int_equal(tb_wl_metric_find("http.serve-tls.latency_u.p50", &m), 1);
    assert_true(m.metric->flags & TB_WLM_UNCORRECTED);
    assert_int_equal(tb_wl_metric_find("http.imported.rps", &m), 1);
    assert_int_equal(m.metric->category, TB_CAT_THROUGHPUT);
    assert_string_equal(tb_wl_category_name(m.metric->category), "throughput");
    /* literal rows and templates of the same workload */
    assert_int_equal(tb_wl_metric_find("syscall.c1.lps", &m), 1);
    assert_string_equal(m.part, "");
    assert_int_equal(tb_wl_metric_find("syscall.getpid.cn.lps", &m), 1);
    assert_string_equal(m.part, "getpid");
    assert_int_equal(tb_wl_metric_find("syscall.c1.index", &m), 1);
    assert_string_equal(m.metric->unit, "index");
    /* the TEE mark: every notary mode but no_tee; attest always; probes never */
    assert_int_equal(tb_wl_metric_find("notary.no_tee.notarization_ms", &m), 1);
    assert_int_equal(m.tee, 0);
    assert_int_equal(tb_wl_metric_find("notary.tee_verify.verify_ms", &m), 1);
    assert_int_equal(m.tee, 1);
    assert_int_equal(tb_wl_metric_find("notary.my_mode.overhead_ms", &m), 1);
    assert_int_equal(m.tee, 1);
    assert_int_equal(tb_wl_metric_find("attest.quote_get.ms", &m), 1);
    assert_int_equal(m.tee, 1);
    assert_int_equal(tb_wl_metric_find("probe.cpuid.ns", &m), 1);
    assert_int_equal(m.tee, 0);
    assert_int_equal(m.metric->category, TB_CAT_PROBE);
    assert_int_equal(tb_wl_metric_find("vm.boot.s", &m), 1);
    assert_int_equal(m.metric->category, TB_CAT_BOOT);
    /* names no table has */
    static const char *const none[] = {
        "http",
        "http.",
        "http.nginx",
        "http..rps",
        "http.a.b.rps",
        "http.nginx.rps.x",
        "probe.cpuid.us",
        "probe..ns",
        "syscall.c2.index",
        "memory.stream.triad",
        "",
        ".",
        "notary.no_tee",
        "vm.boot",
        "vm.boot.s.x",
        "attest.quote_get.ms.",
        "env.x.y",
    };
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        if (tb_wl_metric_find(none[i], &m))
            fail_msg("%s: found in %s's table", none[i], m.workload->name);
    /* a "*" stands for at most 127 bytes */
    char name[512], seg[200];
    memset(seg, 'a', 127);
    seg[127] = 0;
    snprintf(name, sizeof name, "probe.%s.ns", seg);
    assert_int_equal(tb_wl_metric_find(name, &m), 1);
    assert_int_equal(strlen(m.part), 127);
    memset(seg, 'a', 128);
    seg[128] = 0;
    snprintf(name, sizeof name, "probe.%s.ns", seg);
    assert_int_equal(tb_wl_metric_find(name, &m), 0);
    assert_string_equal(tb_wl_category_name(TB_CAT_COUNT), "other");
    assert_string_equal(tb_wl_category_name((tb_wl_category)-1), "other");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_lookup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
