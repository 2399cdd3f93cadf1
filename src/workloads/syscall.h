/* workloads/syscall: the syscall workload (see syscall.c) -- its parameters, and the
 * teebench-syscall/1 document `teebench syscall --json` prints (its writer; the reader,
 * the workload's doc_read, is the one parser of it: the suite reads its child's with it,
 * results import a file's). */
#ifndef TB_WORKLOADS_SYSCALL_H
#define TB_WORKLOADS_SYSCALL_H

#include <stddef.h>

#include "sys/syscall_bench.h"
#include "workloads/workload.h"

#define TB_WL_SYSCALL_SCHEMA "teebench-syscall/1"

typedef struct tb_wl_syscall_params {
    char mode[16];     /* mix (UnixBench's; the only one with an index), close, getpid, exec */
    double duration_s; /* per pass */
    int passes;
    int c1; /* run with copies = 1 */
    int cn; /* run with copies = the CPUs online */
} tb_wl_syscall_params;

extern const tb_workload tb_wl_syscall;

/* ns of one loop of one copy in pass p run with copies processes. */
double tb_wl_syscall_ns_per_loop(const tb_syscall_bench_pass *p, long copies);

/* The teebench-syscall/1 document's members (cli/json puts the envelope around them): the
   test, mode, loop, duration, copies, every pass (count, seconds, lps, ns per loop, kept),
   the score, UnixBench's baseline and the index (null for a mode other than mix). NULL when
   out of memory. */
json_t *tb_wl_syscall_doc(tb_syscall_bench_mode mode, double duration_s, long copies,
                          const tb_syscall_bench_pass *passes, size_t n, double score);

#endif
