/* Unit tests for src/workloads/family: a test-only workload ("mem") with two sweeps on
 * one row (ws_ and threads_ prefixes), a sweep on a log axis, and phases of templates
 * (one bar per memory size) -- how a sweep's segment reads (multipliers of 1000 and
 * 1024, bytes, case, what is no point), which family a matched name belongs to, the
 * phases' positions and labels; and the registry's own families (vm's boot phases):
 * every name a family gives is a row of its workload's table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "workloads/internal.h"
#include "workloads/workload.h"

static const tb_wl_metric mem_metrics[] = {
    {"mem.latency.*.ns", "ns", TB_WL_LOWER, TB_CAT_MEMORY, 0, NULL, 0, 0},
    {"mem.copy.*.bps", "B/s", TB_WL_HIGHER, TB_CAT_MEMORY, 0, NULL, 0, 0},
    {"mem.boot.*.firmware.s", "s", TB_WL_LOWER, TB_CAT_BOOT, 0, NULL, 0, 0},
    {"mem.boot.*.kernel.s", "s", TB_WL_LOWER, TB_CAT_BOOT, 0, NULL, 0, 0},
    {"mem.boot.*.login.ssh.s", "s", TB_WL_LOWER, TB_CAT_BOOT, 0, NULL, 0, 0},
    {"mem.first_touch.s", "s", TB_WL_LOWER, TB_CAT_MEMORY, 0, NULL, 0, 0},
};

static const char *const mem_phases[] = {"mem.boot.*.firmware.s", "mem.boot.*.kernel.s",
                                         "mem.boot.*.login.ssh.s", NULL};

static const tb_wl_family mem_families[] = {
    {.kind = TB_WLF_SWEEP,
     .title = "latency by working set",
     .metric = "mem.latency.*.ns",
     .prefix = "ws_",
     .axis = "working set",
     .unit = "B",
     .log = 1},
    {.kind = TB_WLF_SWEEP,
     .title = "copy bandwidth by threads",
     .metric = "mem.copy.*.bps",
     .prefix = "threads_",
     .axis = "threads"},
    {.kind = TB_WLF_SWEEP,
     .title = "copy bandwidth by array size",
     .metric = "mem.copy.*.bps",
     .prefix = "size_",
     .axis = "array",
     .unit = "B",
     .log = 1},
    {.kind = TB_WLF_PHASES, .title = "boot phases", .phases = mem_phases},
};

static const tb_workload mem = {
    .name = "mem",
    .title = "Memory (test)",
    .what = "a test-only table",
    TB_WL_METRIC_TABLE(mem_metrics),
    TB_WL_FAMILY_TABLE(mem_families),
};

static void test_sweep_value(void **state)
{
    (void)state;
    const tb_wl_family *ws = &mem_families[0];
    static const struct {
        const char *part;
        double x;
    } good[] = {
        {"ws_4kib", 4096},
        {"ws_64KiB", 65536},
        {"ws_1mib", 1048576},
        {"ws_1GiB", 1073741824.0},
        {"ws_2tib", 2199023255552.0},
        {"ws_4k", 4000},
        {"ws_4kb", 4000},
        {"ws_3m", 3e6},
        {"ws_1g", 1e9},
        {"ws_4096", 4096},
        {"ws_4096b", 4096},
        {"ws_0", 0},
        {"ws_007", 7},
        {"ws_999999999999999", 999999999999999.0},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        double x = -1;
        if (tb_wl_sweep_value(ws, good[i].part, &x) != 0)
            fail_msg("%s: not read", good[i].part);
        if (x != good[i].x)
            fail_msg("%s: %.17g, want %.17g", good[i].part, x, good[i].x);
    }
    static const char *const bad[] = {
        "ws_",      "ws_k",    "ws_4x",  "ws_4kk",    "ws_4ib",
        "ws_4kibb", "ws_-4",   "ws_4.5", "ws_4 k",    "qd_4",
        "WS_4",     "4kib",    "",       "ws_4kib_x", "ws_1e3",
        "ws_4bi",   "ws_0x10", "ws_4p",  "w_4",       "ws_1000000000000000", /* 16 digits */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double x = -1;
        if (tb_wl_sweep_value(ws, bad[i], &x) == 0)
            fail_msg("%s: read as %g", bad[i], x);
        assert_true(x == -1); /* untouched */
    }
    double x;
    assert_int_equal(tb_wl_sweep_value(&mem_families[3], "ws_4", &x), -1); /* phases */
    assert_int_equal(tb_wl_sweep_value(NULL, "ws_4", &x), -1);
    assert_int_equal(tb_wl_sweep_value(ws, NULL, &x), -1);
    assert_int_equal(tb_wl_sweep_value(&mem_families[1], "threads_8", &x), 0);
    assert_true(x == 8);
}

static void test_sweep_of(void **state)
{
    (void)state;
    tb_wl_match m;
    double x = 0;
    assert_int_equal(tb_wl_metric_match(&mem, "mem.latency.ws_64kib.ns", &m), 1);
    assert_ptr_equal(tb_wl_sweep_of(&m, &x), &mem_families[0]);
    assert_true(x == 65536);
    /* one row, two sweeps: the prefix picks */
    assert_int_equal(tb_wl_metric_match(&mem, "mem.copy.threads_4.bps", &m), 1);
    assert_ptr_equal(tb_wl_sweep_of(&m, &x), &mem_families[1]);
    assert_true(x == 4);
    assert_int_equal(tb_wl_metric_match(&mem, "mem.copy.size_1gib.bps", &m), 1);
    assert_ptr_equal(tb_wl_sweep_of(&m, &x), &mem_families[2]);
    assert_true(x == 1073741824.0);
    /* a segment of the row that reads as no point: a metric of its own */
    assert_int_equal(tb_wl_metric_match(&mem, "mem.copy.triad.bps", &m), 1);
    assert_null(tb_wl_sweep_of(&m, &x));
    assert_int_equal(tb_wl_metric_match(&mem, "mem.latency.ws_huge.ns", &m), 1);
    assert_null(tb_wl_sweep_of(&m, &x));
    /* rows of no sweep; a name of no table; a match of another workload */
    assert_int_equal(tb_wl_metric_match(&mem, "mem.first_touch.s", &m), 1);
    assert_null(tb_wl_sweep_of(&m, &x));
    assert_int_equal(tb_wl_metric_match(&mem, "mem.latency.ws_4k", &m), 0);
    assert_int_equal(tb_wl_metric_match(&mem, "memory.latency.ws_4k.ns", &m), 0);
    assert_int_equal(tb_wl_metric_match(&mem, "mem", &m), 0);
    assert_int_equal(tb_wl_metric_find("http.nginx.rps", &m), 1);
    assert_null(tb_wl_sweep_of(&m, &x));
    size_t k;
    assert_null(tb_wl_phase_of(&m, &k));
    tb_wl_match none = {0};
    assert_null(tb_wl_sweep_of(&none, &x));
    assert_null(tb_wl_sweep_of(NULL, &x));
    assert_null(tb_wl_phase_of(&none, &k));
}

static void test_phases(void **state)
{
    (void)state;
    const tb_wl_family *f = &mem_families[3];
    assert_int_equal(tb_wl_phase_count(f), 3);
    assert_int_equal(tb_wl_phase_count(&mem_families[0]), 0);
    assert_int_equal(tb_wl_phase_count(NULL), 0);
    char l[64];
    /* common leading (mem.boot.*) and trailing (s) segments dropped; the rest kept whole */
    tb_wl_phase_label(f, 0, l, sizeof l);
    assert_string_equal(l, "firmware");
    tb_wl_phase_label(f, 1, l, sizeof l);
    assert_string_equal(l, "kernel");
    tb_wl_phase_label(f, 2, l, sizeof l);
    assert_string_equal(l, "login.ssh");
    tb_wl_phase_label(f, 3, l, sizeof l);
    assert_string_equal(l, "");
    tb_wl_phase_label(f, 0, l, 4);
    assert_string_equal(l, "fir");
    /* a template's "*" is what the bar is of (a memory size); the position is the row's */
    tb_wl_match m;
    size_t k = 99;
    assert_int_equal(tb_wl_metric_match(&mem, "mem.boot.mem_8gib.kernel.s", &m), 1);
    assert_ptr_equal(tb_wl_phase_of(&m, &k), f);
    assert_int_equal(k, 1);
    assert_string_equal(m.part, "mem_8gib");
    assert_int_equal(tb_wl_metric_match(&mem, "mem.boot.x.login.ssh.s", &m), 1);
    assert_ptr_equal(tb_wl_phase_of(&m, &k), f);
    assert_int_equal(k, 2);
    /* one phase alone: its name is its label; the shared parts need two names */
    static const char *const one[] = {"vm.boot.kernel.s", NULL};
    tb_wl_family solo = {.kind = TB_WLF_PHASES, .phases = one};
    tb_wl_phase_label(&solo, 0, l, sizeof l);
    assert_string_equal(l, "vm.boot.kernel.s");
    /* names that are all shared but one segment */
    static const char *const two[] = {"a.b.s", "a.c.s", NULL};
    tb_wl_family pair = {.kind = TB_WLF_PHASES, .phases = two};
    tb_wl_phase_label(&pair, 1, l, sizeof l);
    assert_string_equal(l, "c");
    /* a name that is a prefix of another: each keeps at least one segment */
    static const char *const nest[] = {"a.b", "a.b.c", NULL};
    tb_wl_family nested = {.kind = TB_WLF_PHASES, .phases = nest};
    tb_wl_phase_label(&nested, 0, l, sizeof l);
    assert_string_equal(l, "b");
    tb_wl_phase_label(&nested, 1, l, sizeof l);
    assert_string_equal(l, "b.c");
}

/* The registry's families: vm's boot phases, and every name any family gives is a row
   of its own workload's table, phases of one unit. */
static void test_registry_families(void **state)
{
    (void)state;
    tb_wl_match m;
    size_t k = 99;
    assert_int_equal(tb_wl_metric_find("vm.boot.kernel.s", &m), 1);
    const tb_wl_family *f = tb_wl_phase_of(&m, &k);
    assert_non_null(f);
    assert_int_equal(k, 1);
    assert_int_equal(tb_wl_phase_count(f), 4);
    static const char *const labels[] = {"firmware", "kernel", "userspace", "ssh"};
    for (size_t i = 0; i < 4; i++) {
        char l[32];
        tb_wl_phase_label(f, i, l, sizeof l);
        assert_string_equal(l, labels[i]);
    }
    assert_string_equal(f->total, "vm.boot.s");
    assert_int_equal(tb_wl_metric_find("vm.boot.s", &m), 1);
    assert_null(tb_wl_phase_of(&m, &k)); /* the whole is no phase */
    /* --vm-boot-memory's points: boot time by guest memory, in bytes */
    double x = 0;
    assert_int_equal(tb_wl_metric_find("vm.boot.mem.512mib.s", &m), 1);
    f = tb_wl_sweep_of(&m, &x);
    assert_non_null(f);
    assert_string_equal(f->axis, "guest memory");
    assert_float_equal(x, 512.0 * 1024 * 1024, 0);
    assert_int_equal(tb_wl_metric_find("vm.boot.mem.8192mib.s", &m), 1);
    assert_non_null(tb_wl_sweep_of(&m, &x));
    assert_float_equal(x, 8192.0 * 1024 * 1024, 0);
    assert_int_equal(tb_wl_metric_find("vm.boot.mem.lots.s", &m), 1); /* the row's, */
    assert_null(tb_wl_sweep_of(&m, &x));                               /* no point */
    for (size_t i = 0; i < tb_workload_count(); i++) {
        const tb_workload *w = tb_workload_at(i);
        for (size_t j = 0; j < w->n_families; j++) {
            const tb_wl_family *fj = &w->families[j];
            assert_non_null(fj->title);
            const char *unit = NULL;
            if (fj->kind == TB_WLF_SWEEP) {
                size_t r = 0;
                while (r < w->n_metrics && strcmp(w->metrics[r].name, fj->metric))
                    r++;
                if (r == w->n_metrics || !strchr(fj->metric, '*'))
                    fail_msg("%s: sweep %s is no template of its table", w->name, fj->metric);
                assert_non_null(fj->axis);
                continue;
            }
            assert_int_equal(fj->kind, TB_WLF_PHASES);
            assert_true(tb_wl_phase_count(fj) >= 2);
            for (size_t p = 0; fj->phases[p]; p++) {
                size_t r = 0;
                while (r < w->n_metrics && strcmp(w->metrics[r].name, fj->phases[p]))
                    r++;
                if (r == w->n_metrics)
                    fail_msg("%s: phase %s is no row of its table", w->name, fj->phases[p]);
                if (unit && strcmp(unit, w->metrics[r].unit))
                    fail_msg("%s: phase %s in %s, not %s", w->name, fj->phases[p],
                             w->metrics[r].unit, unit);
                unit = w->metrics[r].unit;
            }
            if (fj->total && !tb_wl_metric_find(fj->total, &m))
                fail_msg("%s: total %s is no row", w->name, fj->total);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_value),
        cmocka_unit_test(test_sweep_of),
        cmocka_unit_test(test_phases),
        cmocka_unit_test(test_registry_families),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
