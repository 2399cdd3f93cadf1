/* Unit tests for src/sys/membench: the kernels' table, short bandwidth runs at one and
 * two threads (every kernel timed, the arrays' values checked by the run itself), the
 * refusals, a stop before the start, the pointer chase's cycle (one cycle through
 * every line, whatever the seed) and a short chase, first touch of a small region, and
 * the last-level cache read from a sysfs tree made here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "sys/internal.h"
#include "sys/membench.h"

static void test_kernels(void **state)
{
    (void)state;
    static const char *const names[] = {"copy", "scale", "add", "triad"};
    static const unsigned bytes[] = {16, 16, 24, 24};
    for (int k = 0; k < TB_MEM_NKERNELS; k++) {
        assert_string_equal(tb_mem_kernel_name(k), names[k]);
        assert_int_equal(tb_mem_kernel_bytes(k), bytes[k]);
    }
    assert_null(tb_mem_kernel_name(TB_MEM_NKERNELS));
    assert_int_equal(tb_mem_kernel_bytes(TB_MEM_NKERNELS), 0);
}

static void test_bandwidth(void **state)
{
    (void)state;
    for (int threads = 1; threads <= 2; threads++) {
        /* 1 MiB + 24 bytes: the arrays are cut to whole lines (8 doubles) */
        tb_mem_bw_opts o = {.array_bytes = (1 << 20) + 24, .threads = threads, .passes = 3};
        tb_mem_bw_result r;
        tb_err e;
        if (tb_mem_bandwidth(&o, &r, &e) < 0)
            fail_msg("%d threads: %s", threads, e.msg);
        assert_int_equal(r.elements, (1 << 20) / 8);
        assert_int_equal(r.threads, threads);
        assert_int_equal(r.passes, 3);
        assert_false(r.stopped);
        for (int k = 0; k < TB_MEM_NKERNELS; k++) {
            assert_true(r.best_s[k] > 0 && r.best_s[k] <= r.mean_s[k] * (1 + 1e-9));
            /* the best pass's bytes per second, as counted */
            double want = tb_mem_kernel_bytes(k) * (double)r.elements / r.best_s[k];
            assert_true(r.best_Bps[k] > 0 && r.best_Bps[k] == want);
        }
#if defined(__x86_64__)
        assert_true(r.nt_stores);
#endif
    }
}

static void test_bandwidth_refused(void **state)
{
    (void)state;
    tb_mem_bw_result r;
    tb_err e;
    tb_mem_bw_opts o = {.array_bytes = 1 << 20, .threads = 0, .passes = 1};
    assert_int_equal(tb_mem_bandwidth(&o, &r, &e), -1);
    assert_string_equal(e.msg, "memory bandwidth: 0 threads (1..1024)");
    o.threads = 1;
    o.passes = TB_MEM_PASSES_MAX + 1;
    assert_int_equal(tb_mem_bandwidth(&o, &r, &e), -1);
    assert_string_equal(e.msg, "memory bandwidth: 101 passes (1..100)");
    o.passes = 1;
    o.threads = 4;
    o.array_bytes = 200; /* 3 lines for 4 threads */
    assert_int_equal(tb_mem_bandwidth(&o, &r, &e), -1);
    assert_string_equal(e.msg, "memory bandwidth: arrays of 200 bytes: at least 64 per thread");
    /* asked to stop before it starts: no figures */
    volatile sig_atomic_t stop = 1;
    tb_mem_bw_opts s = {.array_bytes = 1 << 16, .threads = 2, .passes = 2, .stop = &stop};
    assert_int_equal(tb_mem_bandwidth(&s, &r, &e), 0);
    assert_true(r.stopped);
    for (int k = 0; k < TB_MEM_NKERNELS; k++)
        assert_true(r.best_Bps[k] == 0);
}

/* next[] is one cycle through all n: from 0, n steps come back to 0 and no sooner. */
static void assert_one_cycle(const uint32_t *next, size_t n)
{
    uint32_t at = 0;
    for (size_t i = 1; i < n; i++) {
        at = next[at];
        assert_true(at < n);
        assert_int_not_equal(at, 0);
    }
    assert_int_equal(next[at], 0);
}

static void test_chase_order(void **state)
{
    (void)state;
    static const size_t sizes[] = {2, 3, 7, 64, 1000, 4099};
    uint32_t *next = malloc(4099 * sizeof *next);
    assert_non_null(next);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (uint64_t seed = 0; seed < 4; seed++) {
            tb_mem_chase_order(next, sizes[i], seed);
            assert_one_cycle(next, sizes[i]);
        }
    /* the seed picks the order; the same seed the same order */
    uint32_t a[64], b[64], c[64];
    tb_mem_chase_order(a, 64, 7);
    tb_mem_chase_order(b, 64, 7);
    tb_mem_chase_order(c, 64, 8);
    assert_memory_equal(a, b, sizeof a);
    assert_memory_not_equal(a, c, sizeof a);
    /* not the identity walk: a prefetcher could follow that */
    int sequential = 0;
    for (int i = 0; i < 64; i++)
        sequential += a[i] == (uint32_t)((i + 1) % 64);
    assert_true(sequential < 8);
    free(next);
}

static void test_chase(void **state)
{
    (void)state;
    tb_mem_chase_opts o = {.bytes = 4096 + 63, .seconds = 0.01, .seed = 1, .cpu = -1};
    tb_mem_chase_result r;
    tb_err e;
    if (tb_mem_chase(&o, &r, &e) < 0)
        fail_msg("%s", e.msg);
    assert_int_equal(r.lines, 64);
    assert_true(r.loads >= 65536 && r.seconds >= 0.01);
    assert_true(r.ns_per_load > 0 && r.ns_per_load < 1e6);
    assert_true(r.cpu >= 0);
    o.bytes = 64;
    assert_int_equal(tb_mem_chase(&o, &r, &e), -1);
    assert_string_equal(e.msg, "memory latency: a working set of 64 bytes (128 B .. 64 GiB)");
    o.bytes = 4096;
    o.seconds = 0;
    assert_int_equal(tb_mem_chase(&o, &r, &e), -1);
    o.seconds = 0.01;
    o.cpu = 100000;
    assert_int_equal(tb_mem_chase(&o, &r, &e), -1);
    assert_non_null(strstr(e.msg, "CPU 100000"));
}

static void test_first_touch(void **state)
{
    (void)state;
    tb_mem_touch_result r;
    tb_err e;
    if (tb_mem_first_touch(4 << 20, &r, &e) < 0)
        fail_msg("%s", e.msg);
    assert_int_equal(r.pages, 1024);
    assert_true(r.seconds > 0 && r.ns_per_page > 0);
    assert_true(r.ns_per_page * 1024 <= r.seconds * 1e9 * (1 + 1e-9));
    assert_int_equal(tb_mem_first_touch(100, &r, &e), -1);
    assert_string_equal(e.msg, "first touch: a region of 100 bytes (at least 4096)");
}

static void put(const char *dir, const char *name, const char *text)
{
    char p[512];
    tb_err e;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    assert_int_equal(tb_file_write_atomic(p, text, strlen(text), &e), 0);
}

/* cpuN/cache/indexK with level, type, size, shared_cpu_list */
static void cache(const char *root, int cpu, int index, const char *level, const char *type,
                  const char *size, const char *shared)
{
    char d[512];
    tb_err e;
    snprintf(d, sizeof d, "%s/cpu%d/cache/index%d", root, cpu, index);
    assert_int_equal(tb_mkdirs(d, &e), 0);
    put(d, "level", level);
    put(d, "type", type);
    put(d, "size", size);
    put(d, "shared_cpu_list", shared);
}

static void test_llc(void **state)
{
    (void)state;
    char root[] = "/tmp/tb-test-llc.XXXXXX";
    assert_non_null(mkdtemp(root));
    assert_int_equal(tb_mem_llc_bytes(root), 0); /* no CPU: unknown */
    /* two sockets of two CPUs: an L3 of 32 MiB each, shared by its socket's CPUs; L1s
       and L2s per CPU; a bogus size and an instruction cache are no last level */
    for (int c = 0; c < 4; c++) {
        char shared[16];
        snprintf(shared, sizeof shared, "%s\n", c < 2 ? "0-1" : "2-3");
        cache(root, c, 0, "1\n", "Data\n", "48K\n", "0\n");
        cache(root, c, 1, "1\n", "Instruction\n", "32K\n", "0\n");
        cache(root, c, 2, "2\n", "Unified\n", "2048K\n", "0\n");
        cache(root, c, 3, "3\n", "Unified\n", "32768K\n", shared);
    }
    cache(root, 0, 4, "4\n", "Instruction\n", "64M\n", "0-3\n");
    cache(root, 1, 4, "4\n", "Unified\n", "lots\n", "0-3\n");
    assert_int_equal(tb_mem_llc_bytes(root), 64ull << 20);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
    char thp[32];
    tb_mem_thp_mode(thp, sizeof thp);
    assert_true(!strcmp(thp, "always") || !strcmp(thp, "madvise") || !strcmp(thp, "never") ||
                !strcmp(thp, "unknown"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernels),
        cmocka_unit_test(test_bandwidth),
        cmocka_unit_test(test_bandwidth_refused),
        cmocka_unit_test(test_chase_order),
        cmocka_unit_test(test_chase),
        cmocka_unit_test(test_first_touch),
        cmocka_unit_test(test_llc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
