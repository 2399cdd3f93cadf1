/* syscall_bench: UnixBench's "System Call Overhead" benchmark (pgms/syscall + the
 * scoring of its Run script), re-implemented.
 *
 * One pass = `copies` processes started together, each running the chosen loop
 * for `duration` seconds and counting completed loops; the pass's count is the
 * sum over the copies and its time the mean of the copies' elapsed times, its
 * rate count / time in loops per second (lps). Each copy opens a pipe and keeps
 * only its read end, the descriptor the close/mix loops dup() and close().
 * The score of several passes drops the lowest third (int(n / 3) passes with
 * the smallest counts) and is the geometric mean of the remaining rates; the
 * index is score / 15000 * 10 (15000 lps: UnixBench's baseline machine, a
 * SPARCstation 20-61). No global state: each copy is a child process that
 * reports (count, nanoseconds) through a pipe. */
#ifndef TB_SYS_SYSCALL_BENCH_H
#define TB_SYS_SYSCALL_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define TB_SYSCALL_BENCH_BASELINE_LPS 15000.0

typedef enum tb_syscall_bench_mode {
    TB_SYSCALL_BENCH_MIX,    /* close(dup(fd)); syscall(SYS_getpid); getuid(); umask(022); */
    TB_SYSCALL_BENCH_CLOSE,  /* close(dup(fd)); */
    TB_SYSCALL_BENCH_GETPID, /* syscall(SYS_getpid); */
    TB_SYSCALL_BENCH_EXEC,   /* fork(); child execs /bin/true; waitpid() */
} tb_syscall_bench_mode;

/* "mix", "close", "getpid", "exec" -> mode; 0, or -1 with err for other names. */
int tb_syscall_bench_mode_parse(const char *name, tb_syscall_bench_mode *out, tb_err *err);
const char *tb_syscall_bench_mode_name(tb_syscall_bench_mode mode);
/* The loop body as C, for output ("close(dup(fd)); syscall(SYS_getpid); ..."). */
const char *tb_syscall_bench_mode_loop(tb_syscall_bench_mode mode);

typedef struct tb_syscall_bench_pass {
    uint64_t count; /* loops completed, summed over the copies */
    double seconds; /* mean elapsed time of the copies */
    double lps;     /* count / seconds */
    int kept;       /* 1 when the scoring kept this pass, 0 when dropped */
} tb_syscall_bench_pass;

/* Runs one pass: `copies` (1..4096) processes, each looping for duration_s
   seconds (> 0). Fills out (kept = 1). 0, or -1 with err (fork, pipe, a copy
   failed). */
int tb_syscall_bench_run_pass(tb_syscall_bench_mode mode, double duration_s, int copies,
                              tb_syscall_bench_pass *out, tb_err *err);

/* UnixBench scoring of passes[0..n-1] (n >= 1, every count > 0 and seconds > 0):
   marks the int(n / 3) passes with the smallest counts as dropped (ties: the
   earlier pass is dropped first), and returns the geometric mean of the kept
   passes' lps in *score. 0, or -1 with err when the input is invalid. */
int tb_syscall_bench_score(tb_syscall_bench_pass *passes, size_t n, double *score, tb_err *err);

/* UnixBench index of a score: score / 15000 * 10. */
double tb_syscall_bench_index(double score_lps);

#endif
