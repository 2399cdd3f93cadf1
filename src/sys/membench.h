/* membench: what memory costs -- bandwidth (four streaming kernels over arrays
 * of doubles, by thread count), latency (a dependent pointer chase over a working
 * set) and first touch (mmap with MAP_POPULATE of a fresh region: page faults,
 * zeroing, and in a TD the acceptance of pages the guest has not used yet).
 *
 * Bandwidth, the kernels STREAM defines (s a scalar, a b c arrays of n doubles):
 *   copy  c = a         16 bytes counted per element (one read, one write)
 *   scale b = s * c     16
 *   add   c = a + b     24 (two reads, one write)
 *   triad a = b + s * c 24
 * Bytes are counted as STREAM counts them (what the kernel reads and writes, no
 * write-allocate traffic); on x86-64 the writes are non-temporal stores (they go to
 * memory without reading the line first, as glibc's memcpy does for large copies),
 * so the counted bytes are the bytes moved. Each of `threads` threads owns one slice
 * of every array (it first-touches it, so its pages are local to it), pinned to its
 * own CPU when there are enough; a pass runs the four kernels, each timed from the
 * barrier that starts every thread to the barrier all of them reach; one untimed
 * pass warms up; the best of the timed passes counts, as STREAM reports it; the
 * arrays are checked against the values the passes must have left.
 *
 * Latency: a working set of 64-byte lines, each holding the address of the next in
 * one random cycle through all of them, so every load depends on the one before and
 * no prefetcher guesses the next; the result is the time per load, from the
 * monotonic clock over at least `seconds`.
 *
 * Everything maps fresh anonymous memory and unmaps it before returning. No global
 * state; nothing prints. */
#ifndef TB_SYS_MEMBENCH_H
#define TB_SYS_MEMBENCH_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

typedef enum tb_mem_kernel {
    TB_MEM_COPY = 0,
    TB_MEM_SCALE,
    TB_MEM_ADD,
    TB_MEM_TRIAD,
    TB_MEM_NKERNELS
} tb_mem_kernel;

/* "copy", "scale", "add", "triad"; NULL out of range. */
const char *tb_mem_kernel_name(tb_mem_kernel k);
/* Bytes counted per element: 16 (copy, scale) or 24 (add, triad); 0 out of range. */
unsigned tb_mem_kernel_bytes(tb_mem_kernel k);

#define TB_MEM_PASSES_MAX 100 /* the values the passes leave stay finite */

typedef struct tb_mem_bw_opts {
    size_t array_bytes;                /* of each of the three arrays (>= 64 bytes per thread) */
    int threads;                       /* >= 1 */
    int passes;                        /* timed passes, 1..TB_MEM_PASSES_MAX */
    const volatile sig_atomic_t *stop; /* non-zero: stop after the current kernel */
} tb_mem_bw_opts;

typedef struct tb_mem_bw_result {
    double best_Bps[TB_MEM_NKERNELS]; /* counted bytes / the fastest pass's seconds */
    double best_s[TB_MEM_NKERNELS];   /* that pass's seconds */
    double mean_s[TB_MEM_NKERNELS];   /* of the timed passes */
    size_t elements;                  /* doubles per array, as run */
    int threads, passes;
    int pinned;    /* 1: each thread on a CPU of its own */
    int nt_stores; /* 1: the writes were non-temporal stores */
    int stopped;   /* the stop flag cut it short: the figures are not to be used */
} tb_mem_bw_result;

/* Runs the four kernels o->passes times over three fresh arrays. 0 and *out, or -1
   with err (mmap, threads, a check of the arrays that failed). */
int tb_mem_bandwidth(const tb_mem_bw_opts *o, tb_mem_bw_result *out, tb_err *err);

typedef struct tb_mem_chase_opts {
    size_t bytes;   /* working set, >= 128 (two lines) */
    double seconds; /* chase at least this long (> 0) */
    uint64_t seed;  /* the cycle's order (0: a fixed one) */
    int cpu;        /* pin to it; -1: the first CPU this process may use */
    const volatile sig_atomic_t *stop;
} tb_mem_chase_opts;

typedef struct tb_mem_chase_result {
    double ns_per_load;
    uint64_t loads;
    size_t lines; /* 64-byte lines in the cycle */
    double seconds;
    int cpu;
    int stopped;
} tb_mem_chase_result;

/* One pointer chase. 0 and *out, or -1 with err (mmap, pinning). */
int tb_mem_chase(const tb_mem_chase_opts *o, tb_mem_chase_result *out, tb_err *err);

typedef struct tb_mem_touch_result {
    double seconds;     /* of the mmap call */
    double ns_per_page; /* per 4 KiB of the region */
    size_t pages;       /* 4 KiB pages in the region */
    double munmap_s;    /* of giving it back */
} tb_mem_touch_result;

/* mmap(MAP_POPULATE) of bytes (>= 4096) of fresh anonymous memory, timed; the region is
   checked resident (mincore) before it is unmapped: -1 with err when MAP_POPULATE left
   pages out (a memory limit) rather than a figure for less than it says. */
int tb_mem_first_touch(size_t bytes, tb_mem_touch_result *out, tb_err *err);

/* The last-level cache of this machine in bytes: the sum over distinct instances of the
   highest cache level under sysfs_cpu ("/sys/devices/system/cpu"; a test passes a tree
   of its own). 0 when unknown. */
uint64_t tb_mem_llc_bytes(const char *sysfs_cpu);

/* The THP mode of sysfs (the bracketed word of transparent_hugepage/enabled:
   "always", "madvise", "never") into out, "unknown" when unreadable. */
void tb_mem_thp_mode(char *out, size_t n);

#endif
