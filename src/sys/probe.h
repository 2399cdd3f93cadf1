/* probe: microbenchmarks of the operations a confidential VM handles differently
 * from a regular VM (CPUID, timers, page faults, IPIs, port I/O, MSRs), for
 * `teebench probe`. A probe this machine cannot run (no privilege, no driver, not
 * x86) is "not available" with the reason in its note, and has no figures: a probe
 * never reports a number it did not measure.
 *
 * Method: the calling thread is pinned to one CPU for the run (its affinity is
 * restored afterwards); each probe first runs warm-up operations, then takes
 * `reps` samples; a sample is the CLOCK_MONOTONIC time of `batch` consecutive
 * operations minus the measured cost of reading the clock, divided by batch.
 * Cheap operations use batches of 64 so the clock's cost does not dominate;
 * operations of 100 ns or more are timed one by one. The result is per
 * operation, in nanoseconds: median, p99 (inclusive quantiles, stats/summary),
 * min and mean. Nothing is kept between runs; no global state. */
#ifndef TB_SYS_PROBE_H
#define TB_SYS_PROBE_H

#include <stddef.h>

#include "base/err.h"

typedef struct tb_probe_info {
    const char *name;      /* "cpuid", "page-4k", ... */
    const char *what;      /* one line: what one operation is and why it matters */
    unsigned batch;        /* operations per sample */
    unsigned default_reps; /* samples when the caller does not choose */
    unsigned max_reps;     /* upper bound (memory-hungry probes) */
} tb_probe_info;

/* All probes, in display order; *n receives their number. Static storage. */
const tb_probe_info *tb_probe_all(size_t *n);
/* The probe called name, or NULL. */
const tb_probe_info *tb_probe_find(const char *name);

typedef struct tb_probe_opts {
    unsigned reps;        /* samples; 0 = the probe's default; capped at its max_reps */
    unsigned warmup;      /* warm-up operations; 0 = reps / 10, at least 10 */
    int cpu;              /* CPU to pin to; -1 = the first CPU this process may use */
    const char *msr_path; /* msr: NULL = /dev/cpu/<cpu>/msr; a test's file of 8-byte words */
} tb_probe_opts;

typedef struct tb_probe_result {
    const char *name;
    int available;  /* 0: not measurable here (note says why); figures are 0 */
    size_t samples; /* samples taken */
    unsigned batch; /* operations per sample */
    double median_ns, p99_ns, min_ns, mean_ns; /* per operation */
    double timer_ns;                           /* clock read cost subtracted from each sample */
    int cpu;                                   /* CPU the probe ran on */
    int cpu2;                                  /* the partner's CPU (pipe-pingpong), else -1 */
    char note[320]; /* facts about this run (clock source and vDSO, huge pages...) */
} tb_probe_result;

/* Runs probe p with options o. 0 (out filled; out->available may be 0), or -1
   with err when the run itself failed (pinning to a CPU it may not use, mmap,
   fork, pipe). */
int tb_probe_run(const tb_probe_info *p, const tb_probe_opts *o, tb_probe_result *out, tb_err *err);

/* Samples a run of p takes when asked for `requested` (0 = default): capped at max_reps. */
size_t tb_probe_reps(const tb_probe_info *p, unsigned requested);

#endif
