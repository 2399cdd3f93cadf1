/* workloads/syscall: the syscall workload -- UnixBench's System Call Overhead.
 *
 * Metrics: for mode mix (UnixBench's), the index (score / 15000 lps x 10) and the
 * lps of every pass the scoring kept, for one copy (c1) and for one copy per CPU
 * (cn); for the other modes (close, getpid, exec) the lps alone, named with the
 * mode: syscall.<mode>.c1.lps. */
#include "workloads/workload.h"

static const tb_wl_metric metrics[] = {
    {"syscall.c1.index", "index", TB_WL_HIGHER, TB_CAT_SYSCALL, 0, NULL, 0, 0},
    {"syscall.cn.index", "index", TB_WL_HIGHER, TB_CAT_SYSCALL, 0, NULL, 0, 0},
    {"syscall.c1.lps", "lps", TB_WL_HIGHER, TB_CAT_SYSCALL, 0, NULL, 0, 0},
    {"syscall.cn.lps", "lps", TB_WL_HIGHER, TB_CAT_SYSCALL, 0, NULL, 0, 0},
    {"syscall.*.c1.lps", "lps", TB_WL_HIGHER, TB_CAT_SYSCALL, 0, NULL, 0, 0},
    {"syscall.*.cn.lps", "lps", TB_WL_HIGHER, TB_CAT_SYSCALL, 0, NULL, 0, 0},
};

const tb_workload tb_wl_syscall = {
    .name = "syscall",
    .title = "System calls",
    .what = "UnixBench's System Call Overhead (teebench syscall)",
    .metrics = metrics,
    .n_metrics = sizeof metrics / sizeof metrics[0],
};
