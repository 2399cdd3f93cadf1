/* Unit tests for src/sys/probe: the summary statistics against hand-computed values,
 * the probe table, CPU pinning (and its restoration), short real runs of every
 * probe with plausibility checks, and the probes that need privileges (port I/O, the
 * msr device): measured where they can be, else skipped with the reason and no
 * figure -- the msr probe's measuring loop run on a file in the device's place. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/internal.h"
#include "sys/probe.h"

static void test_summarize(void **state)
{
    (void)state;
    /* 1..100 shuffled: median 50.5; p99 inclusive = x[98] + 0.01*(x[99]-x[98]) = 99.01 */
    double x[100];
    for (int i = 0; i < 100; i++)
        x[i] = (double)((i * 37) % 100 + 1);
    tb_probe_result r;
    memset(&r, 0, sizeof r);
    tb_probe_summarize(x, 100, &r);
    assert_int_equal(r.samples, 100);
    assert_true(fabs(r.median_ns - 50.5) < 1e-9);
    assert_true(fabs(r.p99_ns - 99.01) < 1e-9);
    assert_true(fabs(r.min_ns - 1) < 1e-12);
    assert_true(fabs(r.mean_ns - 50.5) < 1e-9);
    double one[1] = {7};
    tb_probe_summarize(one, 1, &r);
    assert_true(r.median_ns == 7 && r.p99_ns == 7 && r.min_ns == 7 && r.mean_ns == 7);
}

static void test_table(void **state)
{
    (void)state;
    size_t n;
    const tb_probe_info *all = tb_probe_all(&n);
    assert_int_equal(n, 13);
    static const char *const want[] = {
        "cpuid", "rdtsc",       "rdtscp",        "clock_gettime", "getpid", "page-4k", "page-2m",
        "mmap",  "sched_yield", "pipe-pingpong", "nanosleep",     "ioport", "msr"};
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(all[i].name, want[i]);
        assert_ptr_equal(tb_probe_find(want[i]), &all[i]);
        assert_true(strlen(all[i].what) > 10 && strlen(all[i].what) < 90);
        assert_true(all[i].batch >= 1 && all[i].default_reps <= all[i].max_reps);
    }
    assert_null(tb_probe_find("nope"));
}

static tb_probe_result run1(const char *name, unsigned reps)
{
    tb_probe_opts o = {.reps = reps, .warmup = 5, .cpu = -1};
    tb_probe_result r;
    tb_err e;
    if (tb_probe_run(tb_probe_find(name), &o, &r, &e) < 0)
        fail_msg("%s: %s", name, e.msg);
    return r;
}

static void test_every_probe_runs(void **state)
{
    (void)state;
    size_t n;
    const tb_probe_info *all = tb_probe_all(&n);
    cpu_set_t before, after;
    assert_int_equal(sched_getaffinity(0, sizeof before, &before), 0);
    for (size_t i = 0; i < n; i++) {
        tb_probe_result r = run1(all[i].name, 20);
        assert_string_equal(r.name, all[i].name);
        if (!r.available) {
            assert_true(r.note[0] != 0); /* says why */
            /* and has no figure: a probe never reports a number it did not measure */
            assert_true(r.samples == 0 && r.median_ns == 0 && r.p99_ns == 0 && r.min_ns == 0 &&
                        r.mean_ns == 0);
            continue;
        }
        assert_int_equal(r.samples, 20);
        assert_true(r.median_ns >= 0 && r.p99_ns >= r.median_ns && r.min_ns <= r.median_ns);
        assert_true(r.cpu >= 0);
    }
    assert_int_equal(sched_getaffinity(0, sizeof after, &after), 0);
    assert_true(CPU_EQUAL(&before, &after)); /* pinning is undone */
}

static void test_plausible_order(void **state)
{
    (void)state;
    tb_probe_result tsc = run1("rdtsc", 200), pid = run1("getpid", 200);
    tb_probe_result pipe = run1("pipe-pingpong", 200), page = run1("page-4k", 200);
    assert_true(tsc.median_ns > 0 && pid.median_ns > 0);
    /* a system call is cheaper than a round trip through two processes on any
       machine; the TSC is not compared: a hypervisor that traps RDTSC makes it cost
       more than a system call (what the probe is there to show) */
    assert_true(pid.median_ns < pipe.median_ns);
    assert_true(page.median_ns > 0);
    tb_probe_result clk = run1("clock_gettime", 200);
    assert_non_null(strstr(clk.note, "clock source"));
}

static void test_reps_capped_and_bad_cpu(void **state)
{
    (void)state;
    tb_probe_result r;
    tb_err e;
    const tb_probe_info *p = tb_probe_find("page-2m");
    assert_int_equal(tb_probe_reps(p, 100000), p->max_reps);
    assert_int_equal(tb_probe_reps(p, 0), p->default_reps);
    assert_int_equal(tb_probe_reps(p, 3), 3);
    tb_probe_opts bad = {.reps = 10, .warmup = 1, .cpu = 60000};
    assert_int_equal(tb_probe_run(tb_probe_find("getpid"), &bad, &r, &e), -1);
    assert_non_null(strstr(e.msg, "CPU 60000"));
}

/* The msr probe on a file standing in for /dev/cpu/N/msr: a file holding offset 0x1a0
   is read like the device (the loop, the samples), one too short is an MSR the device
   refuses, a missing path is the driver not loaded. */
static void test_msr(void **state)
{
    (void)state;
    char path[] = "/tmp/tb-test-msr.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    char zero[0x1a8] = {0};
    assert_int_equal(write(fd, zero, 0x1a0), 0x1a0); /* the word at 0x1a0 is not there yet */
    tb_probe_opts o = {.reps = 50, .warmup = 5, .cpu = -1, .msr_path = path};
    tb_probe_result r;
    tb_err e;
    assert_int_equal(tb_probe_run(tb_probe_find("msr"), &o, &r, &e), 0);
    assert_false(r.available);
    assert_non_null(strstr(r.note, "reading MSR 0x1a0"));
    assert_true(r.samples == 0 && r.median_ns == 0);
    assert_int_equal(write(fd, zero, 8), 8);
    close(fd);
    assert_int_equal(tb_probe_run(tb_probe_find("msr"), &o, &r, &e), 0);
    assert_true(r.available);
    assert_int_equal(r.samples, 50);
    assert_true(r.median_ns > 0 && r.p99_ns >= r.median_ns);
    assert_non_null(strstr(r.note, "MSR 0x1a0 through /tmp/tb-test-msr."));
    unlink(path);
    assert_int_equal(tb_probe_run(tb_probe_find("msr"), &o, &r, &e), 0);
    assert_false(r.available);
    assert_non_null(strstr(r.note, "absent (the msr driver is not loaded"));
    /* the real device: measured where it is readable, else the reason */
    o.msr_path = NULL;
    assert_int_equal(tb_probe_run(tb_probe_find("msr"), &o, &r, &e), 0);
    char dev[64];
    snprintf(dev, sizeof dev, "/dev/cpu/%d/msr", r.cpu);
    int readable = access(dev, R_OK) == 0;
    if (!readable)
        assert_non_null(strstr(r.note, dev));
    if (!r.available)
        assert_true(r.samples == 0 && r.median_ns == 0);
}

/* Port 0x80: measured as root where the kernel has ioperm, else the reason. */
static void test_ioport(void **state)
{
    (void)state;
    tb_probe_result r = run1("ioport", 20);
    if (r.available) {
        assert_int_equal(r.samples, 20);
        assert_true(r.median_ns > 0);
        assert_int_equal(geteuid(), 0);
    } else {
        assert_non_null(strstr(r.note, "ioperm(0x80): "));
        assert_true(r.samples == 0 && r.median_ns == 0);
        if (geteuid() != 0)
            assert_true(strstr(r.note, "not permitted") || strstr(r.note, "not in this kernel"));
    }
}

/* The trial that keeps a faulting IN out of the measuring process: without ioperm an IN
   from user space faults on any x86 kernel, and the child's signal comes back; with it
   (root, a kernel with ioperm) the IN completes. */
static void test_port_trial(void **state)
{
    (void)state;
#if defined(__x86_64__) || defined(__i386__)
    assert_int_equal(tb_probe_port_trial(0x80, 0), SIGSEGV);
    int granted = tb_probe_port_trial(0x80, 1);
    assert_true(granted == 0 || granted == -1);
    tb_probe_result r = run1("ioport", 20);
    assert_int_equal(r.available, granted == 0);
#else
    assert_int_equal(tb_probe_port_trial(0x80, 0), -1);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summarize),        cmocka_unit_test(test_table),
        cmocka_unit_test(test_every_probe_runs), cmocka_unit_test(test_msr),
        cmocka_unit_test(test_ioport),           cmocka_unit_test(test_port_trial),
        cmocka_unit_test(test_plausible_order),  cmocka_unit_test(test_reps_capped_and_bad_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
