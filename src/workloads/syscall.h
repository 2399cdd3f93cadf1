/* workloads/syscall: the syscall workload (see syscall.c) -- its parameters. */
#ifndef TB_WORKLOADS_SYSCALL_H
#define TB_WORKLOADS_SYSCALL_H

#include "workloads/workload.h"

typedef struct tb_wl_syscall_params {
    char mode[16];     /* mix (UnixBench's; the only one with an index), close, getpid, exec */
    double duration_s; /* per pass */
    int passes;
    int c1; /* run with copies = 1 */
    int cn; /* run with copies = the CPUs online */
} tb_wl_syscall_params;

extern const tb_workload tb_wl_syscall;

#endif
