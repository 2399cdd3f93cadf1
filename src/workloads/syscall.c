/* workloads/syscall: the syscall workload -- UnixBench's System Call Overhead.
 *
 * Metrics: for mode mix (UnixBench's), the index (score / 15000 lps x 10) and the
 * lps of every pass the scoring kept, for one copy (c1) and for one copy per CPU
 * (cn); for the other modes (close, getpid, exec) the lps alone, named with the
 * mode: syscall.<mode>.c1.lps. */
#include "workloads/syscall.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(tb_wl_syscall_params) <= TB_WL_PARAMS_MAX, "room in the plan");

#define P(f) TB_WLP_FIELD(tb_wl_syscall_params, f)

static int copies(void *ctx, const char *t, tb_err *err)
{
    tb_wl_syscall_params *s = ctx;
    if (!strcmp(t, "1"))
        s->c1 = 1;
    else if (!strcmp(t, "n") || !strcmp(t, "cpus"))
        s->cn = 1;
    else
        return tb_errf(err, "'%.40s': want 1 and/or n (the CPUs online)", t);
    return 0;
}

static int parse_copies(void *params, const char *key, const char *v, tb_err *err)
{
    tb_wl_syscall_params *s = params;
    s->c1 = s->cn = 0;
    return tb_wl_each_token(key, v, copies, s, err);
}

static json_t *copies_json(const void *params)
{
    const tb_wl_syscall_params *s = params;
    json_t *a = json_array();
    if (a && s->c1)
        json_array_append_new(a, json_string("1"));
    if (a && s->cn)
        json_array_append_new(a, json_string("n"));
    return a;
}

static const tb_wl_param param_table[] = {
    {.key = "mode",
     .help = "mix (UnixBench's), close, getpid or exec",
     .kind = TB_WLP_TEXT,
     P(mode),
     .choices = "mix|close|getpid|exec",
     .def = {"mix"}},
    {.key = "duration",
     .help = "seconds per pass",
     .kind = TB_WLP_SECONDS,
     P(duration_s),
     .lo = 0.01,
     .hi = 3600,
     .def = {"250ms", "2", "10"}},
    {.key = "passes",
     .help = "passes per run (the lowest third is dropped)",
     .kind = TB_WLP_INT,
     P(passes),
     .lo = 1,
     .hi = 1000,
     .def = {"3", "6", "10"}},
    {.key = "copies",
     .help = "1 and/or n (the CPUs online)",
     .kind = TB_WLP_CUSTOM,
     .parse = parse_copies,
     .json = copies_json,
     .def = {"1,n"}},
};

static const tb_wl_metric metrics[] = {
    {"syscall.c1.index", "index", TB_WL_HIGHER, TB_CAT_SYSCALL, 0, NULL, 0, 0},
    {"syscall.cn.index", "index", TB_WL_HIGHER, TB_CAT_SYSCALL, 0, NULL, 0, 0},
    {"syscall.c1.lps", "lps", TB_WL_HIGHER, TB_CAT_SYSCALL, 0, NULL, 0, 0},
    {"syscall.cn.lps", "lps", TB_WL_HIGHER, TB_CAT_SYSCALL, 0, NULL, 0, 0},
    {"syscall.*.c1.lps", "lps", TB_WL_HIGHER, TB_CAT_SYSCALL, 0, NULL, 0, 0},
    {"syscall.*.cn.lps", "lps", TB_WL_HIGHER, TB_CAT_SYSCALL, 0, NULL, 0, 0},
};

/* mode mix: syscall.c1.*; the other modes (no index): syscall.<mode>.c1.lps */
static int plan_metrics(const void *params, tb_wl_name_fn emit, void *ctx)
{
    const tb_wl_syscall_params *s = params;
    int mix = !strcmp(s->mode, "mix");
    char c1[64], cn[64];
    snprintf(c1, sizeof c1, "syscall.%s%sc1.lps", mix ? "" : s->mode, mix ? "" : ".");
    snprintf(cn, sizeof cn, "syscall.%s%scn.lps", mix ? "" : s->mode, mix ? "" : ".");
    if ((s->c1 && mix && emit(ctx, "syscall.c1.index") < 0) ||
        (s->cn && mix && emit(ctx, "syscall.cn.index") < 0) || (s->c1 && emit(ctx, c1) < 0) ||
        (s->cn && emit(ctx, cn) < 0))
        return -1;
    return 0;
}

static size_t steps(const void *params, tb_wl_step *out)
{
    const tb_wl_syscall_params *s = params;
    double pass = s->passes * (s->duration_s + 0.02) + 0.15;
    size_t n = 0;
    if (s->c1)
        out[n++] = (tb_wl_step){"c1", pass};
    if (s->cn)
        out[n++] = (tb_wl_step){"cn", pass};
    return n;
}

static void describe(const void *params, const char *target, char *out, size_t n)
{
    const tb_wl_syscall_params *s = params;
    snprintf(out, n, "UnixBench System Call Overhead, mode %s, %d x %g s, %s", s->mode, s->passes,
             s->duration_s, strcmp(target, "c1") ? "copies = the CPUs online" : "1 copy");
}

const tb_workload tb_wl_syscall = {
    .name = "syscall",
    .title = "System calls",
    .what = "UnixBench's System Call Overhead (teebench syscall)",
    .params_size = sizeof(tb_wl_syscall_params),
    .params = param_table,
    .n_params = sizeof param_table / sizeof param_table[0],
    .steps = steps,
    .describe = describe,
    .metrics = metrics,
    .n_metrics = sizeof metrics / sizeof metrics[0],
    .plan_metrics = plan_metrics,
};
