/* workloads/syscall: the syscall workload -- UnixBench's System Call Overhead.
 *
 * The suite runs `teebench syscall --json` (sys/syscall_bench under its cli) in its
 * own process group: a pass cannot be cancelled in process, a process group can
 * be killed at once on an interrupt. One run per round and copies setting (c1:
 * one copy; cn: one per CPU online).
 *
 * Metrics: for mode mix (UnixBench's), the index (score / 15000 lps x 10) and the
 * lps of every pass the scoring kept, for one copy (c1) and for one copy per CPU
 * (cn); for the other modes (close, getpid, exec) the lps alone, named with the
 * mode: syscall.<mode>.c1.lps. */
#include "workloads/syscall.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/proc.h"

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

/* ---- the suite's steps ---- */

typedef struct sys_state {
    const tb_wl_syscall_params *s;
    const tb_wl_env *env;
} sys_state;

static int setup(const void *params, const tb_wl_env *env, tb_wl_sink *sink, void **state,
                 tb_err *err)
{
    (void)sink;
    sys_state *st = calloc(1, sizeof *st);
    if (!st)
        return tb_errf(err, "out of memory");
    st->s = params;
    st->env = env;
    *state = st;
    return 0;
}

static void cleanup(void *state, tb_wl_sink *sink)
{
    (void)sink;
    free(state);
}

/* First line of the work directory's file name (a child's stderr), for error messages. */
static void first_line(tb_wl_sink *sink, const char *name, char *out, size_t n)
{
    tb_buf b = {0};
    tb_err e;
    out[0] = 0;
    if (tb_wl_read(sink, name, 1 << 16, &b, &e) == 0 && b.p) {
        char *s = (char *)b.p;
        s[strcspn(s, "\n")] = 0;
        snprintf(out, n, "%s", s);
    }
    tb_buf_clear(&b);
}

static int step(void *state, const char *target, int round, tb_wl_sink *sink, tb_err *err)
{
    const sys_state *st = state;
    const tb_wl_syscall_params *s = st->s;
    int one = !strcmp(target, "c1"), copies = one ? 1 : st->env->ncpu;
    char dur[32], passes[16], ncopies[16], out[64], errp[64];
    snprintf(dur, sizeof dur, "%g", s->duration_s);
    snprintf(passes, sizeof passes, "%d", s->passes);
    snprintf(ncopies, sizeof ncopies, "%d", copies);
    snprintf(out, sizeof out, "syscall-%s.json", target);
    snprintf(errp, sizeof errp, "syscall-%s.stderr.log", target);
    int outfd = tb_wl_create(sink, out, err),
        errfd = outfd < 0 ? -1 : tb_wl_create(sink, errp, err);
    if (errfd < 0) {
        if (outfd >= 0)
            close(outfd);
        return TB_WL_FAILED;
    }
    char *argv[] = {(char *)st->env->exe,
                    "syscall",
                    "--json",
                    "--mode",
                    (char *)s->mode,
                    "--duration",
                    dur,
                    "--passes",
                    passes,
                    "--copies",
                    ncopies,
                    NULL};
    tb_wl_command(sink, argv);
    tb_proc_opts o = {.argv = argv, .stdout_fd = outfd, .stderr_fd = errfd};
    tb_proc_result r;
    int64_t timeout_ms = (int64_t)(s->passes * s->duration_s * 2000) + 60000;
    int ran = tb_proc_run(&o, timeout_ms, sink->stop, &r, err);
    close(outfd);
    close(errfd);
    if (ran < 0)
        return TB_WL_FAILED;
    if (r.cancelled)
        return TB_WL_CANCELLED;
    if (r.exit_code != 0) {
        char line[256];
        first_line(sink, errp, line, sizeof line);
        tb_errf(err, "teebench syscall exited with code %d%s%s", r.exit_code, line[0] ? ": " : "",
                line);
        return TB_WL_FAILED;
    }
    json_error_t je = {.text = ""};
    tb_buf text = {0};
    json_t *doc = tb_wl_read(sink, out, 64u << 20, &text, err) == 0
                      ? json_loadb((const char *)text.p, text.len, 0, &je)
                      : NULL;
    tb_buf_clear(&text);
    json_t *arr = json_object_get(doc, "passes"), *index = json_object_get(doc, "index");
    if (!json_is_array(arr) || json_array_size(arr) == 0) {
        json_decref(doc);
        tb_errf(err, "teebench syscall --json: no passes in its output (%s)", je.text);
        return TB_WL_FAILED;
    }
    char note[256];
    int rc = 0;
    if (json_is_number(index)) {
        snprintf(note, sizeof note,
                 "UnixBench System Call Overhead index (score / 15000 lps x 10), mode %s, %d "
                 "cop%s%s, one sample per round",
                 s->mode, copies, copies == 1 ? "y" : "ies",
                 one ? "" : " (the CPUs online), loops summed over the copies");
        char name[64];
        snprintf(name, sizeof name, "syscall.%s.index", target);
        rc = tb_wl_sample(sink, name, json_number_value(index), 0, note, err);
    }
    if (rc == 0) {
        int mix = !strcmp(s->mode, "mix");
        char name[64];
        snprintf(name, sizeof name, "syscall.%s%s%s.lps", mix ? "" : s->mode, mix ? "" : ".",
                 target);
        snprintf(note, sizeof note,
                 "loops per second of each pass UnixBench's scoring kept (lowest third by count "
                 "dropped), mode %s, %d cop%s%s",
                 s->mode, copies, copies == 1 ? "y" : "ies",
                 one ? "" : " (the CPUs online), loops summed over the copies");
        size_t i;
        json_t *pass;
        json_array_foreach(arr, i, pass)
        {
            json_t *lps = json_object_get(pass, "lps");
            if (rc == 0 && json_is_true(json_object_get(pass, "kept")) && json_is_number(lps))
                rc = tb_wl_sample(sink, name, json_number_value(lps), 0, note, err);
        }
    }
    json_decref(doc);
    (void)round;
    return rc < 0 ? TB_WL_FAILED : TB_WL_OK;
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
    .setup = setup,
    .step = step,
    .cleanup = cleanup,
    .metrics = metrics,
    .n_metrics = sizeof metrics / sizeof metrics[0],
    .plan_metrics = plan_metrics,
};
