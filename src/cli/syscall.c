/* cli/syscall: `teebench syscall` -- UnixBench's System Call Overhead (sys/syscall
 * runs the passes and scores them). Text output prints each pass as it ends,
 * then UnixBench's result and index lines; --json prints one document (the
 * syscall workload's, workloads/syscall, with the env document embedded) at the end. */
#include "cli/cli.h"
#include "cli/flags.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/json.h"
#include "cli/opt.h"
#include "sys/env.h"
#include "sys/syscall_bench.h"
#include "workloads/syscall.h"

typedef struct sc_args {
    tb_syscall_bench_mode mode;
    double duration;
    long passes;
    long copies;
    int json;
} sc_args;

static void usage(FILE *f, const cli_cmd *c)
{
    fprintf(f,
            "usage: teebench syscall [--mode mix|close|getpid|exec] [--duration T] [--passes N]\n"
            "                        [--copies N|auto] [--json]\n\n"
            "UnixBench's \"System Call Overhead\": each pass runs the loop for S seconds and\n"
            "counts loops per second (lps); the lowest third of the passes (by count) are\n"
            "dropped and the score is the geometric mean of the rest; index = score / 15000\n"
            "* 10 (15000 lps: UnixBench's baseline machine). Same as UnixBench 6's\n"
            "`syscall S mode` under its Run script.\n\n");
    cli_flags_help(f, c);
}

/* --copies auto: one copy per CPU this process may run on (its affinity mask),
 * as UnixBench's multi-copy index sums one copy per CPU. */
static long usable_cpus(void)
{
    cpu_set_t set;
    long n = 0;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        n = CPU_COUNT(&set);
    if (n < 1)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 4096 ? 4096 : n;
}

static int set_mode(void *args, const char *flag, const char *v, tb_err *err)
{
    (void)flag;
    return tb_syscall_bench_mode_parse(v, &((sc_args *)args)->mode, err);
}

static int set_copies(void *args, const char *flag, const char *v, tb_err *err)
{
    sc_args *a = args;
    if (!strcmp(v, "auto")) {
        a->copies = usable_cpus();
        return 0;
    }
    return cli_opt_long(flag, v, 1, 4096, &a->copies, err);
}

static const cli_flag sc_flags[] = {
    CLI_CALL("mode", 'm', set_mode, "M",
             "mix (default): close(dup(fd)); syscall(SYS_getpid); getuid();\n"
             "umask(022);  close: close(dup(fd));  getpid:\n"
             "syscall(SYS_getpid);  exec: fork, exec /bin/true, wait"),
    CLI_SECONDS("duration", 'd', sc_args, duration, 0.001, 86400, "T",
                "time per pass: 10, 10s, 500ms, 1.5m (default 10s)"),
    CLI_LONG("passes", 'p', sc_args, passes, 1, 1000, "N", "passes (default 10)"),
    CLI_CALL("copies", 'c', set_copies, "N",
             "processes run at once per pass, counts summed (default 1);\n"
             "auto: one per CPU this process may use (the multi-copy index)"),
    CLI_BOOL("json", 0, sc_args, json, "print one JSON document (includes `teebench env --json`)"),
    CLI_HELP(),
    {0}};

const cli_cmd cli_syscall_cmd = {
    .name = "syscall", .flags = sc_flags, .usage = usage, .max_operands = 0, .hide_shorts = 1};

static void print_pass(size_t i, const tb_syscall_bench_pass *p, long copies)
{
    printf("pass %2zu: %12llu loops in %7.3f s = %12.1f lps  (%.1f ns per loop)\n", i + 1,
           (unsigned long long)p->count, p->seconds, p->lps, tb_wl_syscall_ns_per_loop(p, copies));
    fflush(stdout);
}

static void print_text_result(const sc_args *a, const tb_syscall_bench_pass *passes, double score)
{
    size_t kept = 0, dropped = 0;
    double tsum = 0;
    for (long i = 0; i < a->passes; i++) {
        if (passes[i].kept) {
            kept++;
            tsum += passes[i].seconds;
        } else {
            dropped++;
        }
    }
    printf("dropped (lowest third by count):");
    if (!dropped)
        printf(" none");
    for (long i = 0; i < a->passes; i++)
        if (!passes[i].kept)
            printf(" pass %ld", i + 1);
    printf("\n\n");
    const char *msg = "System Call Overhead";
    char label[64];
    if (a->mode != TB_SYSCALL_BENCH_MIX) {
        snprintf(label, sizeof label, "System Call Overhead (%s)",
                 tb_syscall_bench_mode_name(a->mode));
        msg = label;
    }
    printf("%-40s %12.1f %-5s (%.1f s, %zu samples)\n\n", msg, score, "lps", tsum / (double)kept,
           kept);
    printf("%-40s %12s %12s %8s\n", "System Benchmarks Index Values", "BASELINE", "RESULT",
           "INDEX");
    if (a->mode == TB_SYSCALL_BENCH_MIX)
        printf("%-40s %12.1f %12.1f %8.1f\n", msg, TB_SYSCALL_BENCH_BASELINE_LPS, score,
               tb_syscall_bench_index(score));
    else
        printf("%-40s %12s %12.1f %8s\n", msg, "---", score, "---");
    printf("\nscore %.1f lps = %.1f ns per loop per copy (%ld %s); index baseline 15000 lps%s\n",
           score, 1e9 * (double)a->copies / score, a->copies, a->copies == 1 ? "copy" : "copies",
           a->mode == TB_SYSCALL_BENCH_MIX ? "" : " applies to mode mix only");
}

static int print_json(const sc_args *a, const tb_syscall_bench_pass *passes, double score)
{
    json_t *o =
        tb_wl_syscall_doc(a->mode, a->duration, a->copies, passes, (size_t)a->passes, score);
    if (!o)
        return cli_fail("syscall", "writing JSON: out of memory");
    return cli_json_print("syscall", cli_json_envelope(TB_WL_SYSCALL_SCHEMA, o, 1));
}

int cmd_syscall(int argc, char **argv)
{
    sc_args a = {TB_SYSCALL_BENCH_MIX, 10.0, 10, 1, 0};
    int first, rc = cli_flags_parse(&cli_syscall_cmd, argc, argv, &a, &first);
    if (rc >= 0)
        return rc;
    rc = 0;
    tb_syscall_bench_pass *passes = calloc((size_t)a.passes, sizeof *passes);
    if (!passes)
        return cli_fail("syscall", "out of memory");
    if (!a.json) {
        printf("System Call Overhead, mode %s: %s\n%ld %s of %g s, %ld %s (UnixBench `syscall "
               "%g %s` semantics)\n",
               tb_syscall_bench_mode_name(a.mode), tb_syscall_bench_mode_loop(a.mode), a.passes,
               a.passes == 1 ? "pass" : "passes", a.duration, a.copies,
               a.copies == 1 ? "copy" : "parallel copies", a.duration,
               tb_syscall_bench_mode_name(a.mode));
        fflush(stdout);
    }
    tb_err err = {{0}};
    for (long i = 0; i < a.passes; i++) {
        if (tb_syscall_bench_run_pass(a.mode, a.duration, (int)a.copies, &passes[i], &err) < 0) {
            free(passes);
            return cli_fail("syscall", "pass %ld: %s", i + 1, err.msg);
        }
        if (!a.json)
            print_pass((size_t)i, &passes[i], a.copies);
    }
    double score;
    if (tb_syscall_bench_score(passes, (size_t)a.passes, &score, &err) < 0) {
        free(passes);
        return cli_fail("syscall", "scoring: %s", err.msg);
    }
    if (a.json)
        rc = print_json(&a, passes, score);
    else
        print_text_result(&a, passes, score);
    free(passes);
    return rc;
}
