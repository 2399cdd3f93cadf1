/* workloads/memory: the memory workload (see memory.c) -- its parameters, the runs of
 * its three parts that `teebench memory` and the suite share, and the
 * teebench-memory/1 document (its writer; the reader is the workload's doc_read). */
#ifndef TB_WORKLOADS_MEMORY_H
#define TB_WORKLOADS_MEMORY_H

#include <signal.h>
#include <stdint.h>

#include "workloads/workload.h"

#define TB_WL_MEMORY_SCHEMA "teebench-memory/1"

#define TB_WL_MEMORY_MAX_THREADS 8 /* thread counts a plan may list */
#define TB_WL_MEMORY_MAX_SIZES 24  /* working sets a plan may list */

/* The parts of a run, in the order they run; each is one step of a round. */
typedef enum tb_wl_memory_part {
    TB_WL_MEM_BANDWIDTH = 0,
    TB_WL_MEM_LATENCY,
    TB_WL_MEM_FIRST_TOUCH,
    TB_WL_MEM_PARTS
} tb_wl_memory_part;

typedef struct tb_wl_memory_params {
    int part[TB_WL_MEM_PARTS]; /* which parts run ("parts") */
    uint64_t array_bytes;      /* bandwidth: bytes of each array; 0: auto (4 x the LLC,
                                  at least 64 MiB) */
    int passes;                /* bandwidth: timed passes, the best counts */
    int n_threads;
    int threads[TB_WL_MEMORY_MAX_THREADS]; /* 0: one per CPU online ("n") */
    int n_sizes;
    uint64_t sizes[TB_WL_MEMORY_MAX_SIZES]; /* latency: the working sets, ascending */
    double chase_s;                         /* latency: seconds of chasing per working set */
    uint64_t touch_bytes;                   /* first touch: the region */
    /* Not a parameter: where the last-level cache's size is read (borrowed; NULL:
       /sys/devices/system/cpu). Tests point it at a recorded tree, so that an estimate or
       an array size depends on the facts they give, not on this machine's cache. */
    const char *sysfs_cpu;
} tb_wl_memory_params;

extern const tb_workload tb_wl_memory;

/* The name of a size in metric names and texts: "4k", "1m", "1g", "1536k", "100" (bytes). */
void tb_wl_memory_size_name(uint64_t bytes, char *out, size_t n);

/* A new teebench-memory/1 body (cli/json puts the envelope around it) with the run's
   options and the machine's facts (last-level cache, THP mode), NULL when out of memory.
   ncpu: the CPUs online ("n" threads). */
json_t *tb_wl_memory_doc(const tb_wl_memory_params *p, int ncpu);

/* Runs part into doc (members "bandwidth": [...], "latency": [...], "first_touch": {...};
   a warning -- arrays smaller than asked, as memory allows; a working set left out -- is
   appended to doc's "warnings"). *stopped (may be NULL) says the stop flag cut it short:
   then doc has what finished. 0, or -1 with err. */
int tb_wl_memory_run(const tb_wl_memory_params *p, tb_wl_memory_part part, int ncpu,
                     const volatile sig_atomic_t *stop, json_t *doc, int *stopped, tb_err *err);

#endif
