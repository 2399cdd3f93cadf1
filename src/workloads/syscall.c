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

#include <math.h>
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
    {"mode", "mix (UnixBench's), close, getpid or exec", TB_WLP_TEXT, P(mode),
     .choices = "mix|close|getpid|exec", .def = {"mix"}},
    {"duration", "seconds per pass", TB_WLP_SECONDS, P(duration_s), .lo = 0.01, .hi = 3600,
     .def = {"250ms", "2", "10"}},
    {"passes", "passes per run (the lowest third is dropped)", TB_WLP_INT, P(passes), .lo = 1,
     .hi = 1000, .def = {"3", "6", "10"}},
    {"copies", "1 and/or n (the CPUs online)", TB_WLP_CUSTOM, .parse = parse_copies,
     .json = copies_json, .def = {"1,n"}},
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

/* ---- the teebench-syscall/1 document ---- */

double tb_wl_syscall_ns_per_loop(const tb_syscall_bench_pass *p, long copies)
{
    return p->seconds * 1e9 * (double)copies / (double)p->count;
}

json_t *tb_wl_syscall_doc(tb_syscall_bench_mode mode, double duration_s, long copies,
                          const tb_syscall_bench_pass *passes, size_t n, double score)
{
    json_t *o = json_object(), *arr = json_array();
    if (!o || !arr) {
        json_decref(o);
        json_decref(arr);
        return NULL;
    }
    json_object_set_new(o, "test", json_string("System Call Overhead"));
    json_object_set_new(o, "mode", json_string(tb_syscall_bench_mode_name(mode)));
    json_object_set_new(o, "loop", json_string(tb_syscall_bench_mode_loop(mode)));
    json_object_set_new(o, "duration_s", json_real(duration_s));
    json_object_set_new(o, "copies", json_integer(copies));
    for (size_t i = 0; i < n; i++) {
        json_t *p = json_object();
        json_object_set_new(p, "count", json_integer((json_int_t)passes[i].count));
        json_object_set_new(p, "seconds", json_real(passes[i].seconds));
        json_object_set_new(p, "lps", json_real(passes[i].lps));
        json_object_set_new(p, "ns_per_loop",
                            json_real(tb_wl_syscall_ns_per_loop(&passes[i], copies)));
        json_object_set_new(p, "kept", json_boolean(passes[i].kept));
        json_array_append_new(arr, p);
    }
    json_object_set_new(o, "passes", arr);
    json_object_set_new(o, "score_lps", json_real(score));
    json_object_set_new(o, "ns_per_loop", json_real(1e9 * (double)copies / score));
    json_object_set_new(o, "baseline_lps", json_real(TB_SYSCALL_BENCH_BASELINE_LPS));
    json_object_set_new(o, "index",
                        mode == TB_SYSCALL_BENCH_MIX ? json_real(tb_syscall_bench_index(score))
                                                     : json_null());
    return o;
}

/* The samples: for mode mix the index, then the lps of every pass the scoring kept, named
   for one copy (c1) or several (cn) -- o->copies says, else the copies do; other modes
   (no index): syscall.<mode>.c1.lps. Every member checked before the first sample. */
static int doc_read(const json_t *doc, const tb_wl_read_opts *o, tb_wl_sink *sink,
                    tb_wl_doc_info *info, tb_err *err)
{
    const char *mode = json_string_value(json_object_get(doc, "mode"));
    const json_t *passes = json_object_get(doc, "passes"), *copies = json_object_get(doc, "copies");
    if (!mode)
        return tb_errf(err, "syscall JSON: missing \"mode\"");
    if (!json_is_array(passes) || json_array_size(passes) == 0)
        return tb_errf(err, "syscall JSON: \"passes\" must be a non-empty array");
    if (!json_is_integer(copies) || json_integer_value(copies) < 1)
        return tb_errf(err, "syscall JSON: \"copies\" must be an integer >= 1");
    long long nc = json_integer_value(copies);
    const char *cp = o && o->copies ? o->copies : nc == 1 ? "c1" : "cn";
    double baseline = TB_SYSCALL_BENCH_BASELINE_LPS;
    const json_t *b = json_object_get(doc, "baseline_lps");
    if (json_is_number(b) && json_number_value(b) > 0 && isfinite(json_number_value(b)))
        baseline = json_number_value(b);
    size_t n = json_array_size(passes), k = 0;
    double *lps = calloc(n, sizeof *lps);
    if (!lps)
        return tb_errf(err, "out of memory");
    size_t i;
    const json_t *p;
    json_array_foreach(passes, i, p)
    {
        const json_t *v = json_object_get(p, "lps"), *kept = json_object_get(p, "kept");
        if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < 0 ||
            !json_is_boolean(kept)) {
            free(lps);
            return tb_errf(err,
                           "syscall JSON: passes[%zu] needs \"lps\" (a number >= 0) and \"kept\" "
                           "(true or false)",
                           i);
        }
        if (json_is_true(kept))
            lps[k++] = json_number_value(v);
    }
    int is_mix = !strcmp(mode, "mix");
    const json_t *index = json_object_get(doc, "index");
    double x = 0;
    if (is_mix && !json_is_null(index) &&
        tb_wl_doc_number(doc, "syscall JSON", "index", NULL, &x, err) < 0) {
        free(lps);
        return -1;
    }
    char m[72], name[160], note[320], copy_text[96];
    tb_wl_name_part(mode, m, sizeof m);
    snprintf(copy_text, sizeof copy_text, "%lld cop%s%s%s", nc, nc == 1 ? "y" : "ies",
             strcmp(cp, "cn") || !o || !o->copies ? "" : " (the CPUs online)",
             nc == 1 ? "" : ", loops summed over the copies");
    int rc = 0;
    if (is_mix && !json_is_null(index)) {
        snprintf(name, sizeof name, "syscall.%s.index", cp);
        snprintf(note, sizeof note,
                 "UnixBench System Call Overhead index (score / %g lps x 10), mode mix, %s",
                 baseline, copy_text);
        rc = tb_wl_sample(sink, name, x, 0, note, err);
    }
    if (is_mix)
        snprintf(name, sizeof name, "syscall.%s.lps", cp);
    else
        snprintf(name, sizeof name, "syscall.%s.%s.lps", m, cp);
    snprintf(note, sizeof note,
             "loops per second of each pass UnixBench's scoring kept (lowest third by count "
             "dropped), mode %.32s, %s",
             mode, copy_text);
    for (size_t j = 0; j < k && rc == 0; j++)
        rc = tb_wl_sample(sink, name, lps[j], 0, note, err);
    free(lps);
    if (rc == 0)
        tb_wl_doc_envelope(doc, info);
    return rc;
}

/* ---- the suite's steps ---- */

static int step(void *state, const char *target, int round, tb_wl_sink *sink, tb_err *err)
{
    const tb_wl_plain_state *st = state;
    const tb_wl_syscall_params *s = st->params;
    int one = !strcmp(target, "c1"), copies = one ? 1 : st->env->ncpu;
    char dur[32], passes[16], ncopies[16], out[64], errp[64];
    snprintf(dur, sizeof dur, "%g", s->duration_s);
    snprintf(passes, sizeof passes, "%d", s->passes);
    snprintf(ncopies, sizeof ncopies, "%d", copies);
    snprintf(out, sizeof out, "syscall-%s.json", target);
    snprintf(errp, sizeof errp, "syscall-%s.stderr.log", target);
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
    int64_t timeout_ms = (int64_t)(s->passes * s->duration_s * 2000) + 60000;
    int ran = tb_wl_tool_step(sink, argv, out, errp, timeout_ms, "teebench syscall", 0, err);
    if (ran != TB_WL_OK)
        return ran;
    /* its document, read by the one reader of it */
    json_error_t je = {.text = ""};
    tb_buf text = {0};
    json_t *doc = tb_wl_read(sink, out, 64u << 20, &text, err) == 0
                      ? json_loadb((const char *)text.p, text.len, 0, &je)
                      : NULL;
    tb_buf_clear(&text);
    tb_wl_read_opts ro = {.copies = one ? "c1" : "cn"};
    tb_wl_doc_info info;
    int rc = doc ? doc_read(doc, &ro, sink, &info, err)
                 : tb_errf(err, "teebench syscall --json: not a JSON document (%s)", je.text);
    json_decref(doc);
    (void)round;
    return rc < 0 ? TB_WL_FAILED : TB_WL_OK;
}

const tb_workload tb_wl_syscall = {
    .name = "syscall",
    .title = "System calls",
    .what = "UnixBench's System Call Overhead (teebench syscall)",
    TB_WL_PARAM_TABLE(tb_wl_syscall_params, param_table),
    .steps = steps,
    .describe = describe,
    .setup = tb_wl_plain_setup,
    .step = step,
    .cleanup = tb_wl_free_state,
    TB_WL_METRIC_TABLE(metrics),
    .plan_metrics = plan_metrics,
    .doc_schema = TB_WL_SYSCALL_SCHEMA,
    .doc_read = doc_read,
};
