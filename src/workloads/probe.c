/* workloads/probe: the probe workload -- sys/probe's TEE-sensitive microbenchmarks,
 * in process (each probe pins this thread and restores its affinity).
 *
 * Metrics: probe.<name>.ns, the median time of one operation, one sample per probe
 * and round. A probe this machine cannot run is skipped with the probe's own
 * reason, said once (the first round it happens). */
#include "workloads/internal.h"
#include "workloads/probe.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "sys/probe.h"

_Static_assert(sizeof(tb_wl_probe_params) <= TB_WL_PARAMS_MAX, "room in the plan");

#define P(f) TB_WLP_FIELD(tb_wl_probe_params, f)

int tb_wl_probe_selected(const tb_wl_probe_params *pr, const char *name)
{
    if (pr->n == 0)
        return 1;
    for (int i = 0; i < pr->n; i++)
        if (!strcmp(pr->names[i], name))
            return 1;
    return 0;
}

static int probe_name(void *ctx, const char *t, tb_err *err)
{
    tb_wl_probe_params *pr = ctx;
    if (!strcmp(t, "all"))
        return 0;
    if (!tb_probe_find(t))
        return tb_errf(err, "unknown probe '%.40s' (teebench probe --help lists them)", t);
    for (int i = 0; i < pr->n; i++)
        if (!strcmp(pr->names[i], t))
            return 0;
    if (pr->n == TB_WL_PROBE_MAX)
        return tb_errf(err, "more than %d probes", TB_WL_PROBE_MAX);
    snprintf(pr->names[pr->n++], sizeof pr->names[0], "%s", t);
    return 0;
}

static json_t *probes_json(const void *params)
{
    const tb_wl_probe_params *pr = params;
    json_t *a = json_array();
    for (int i = 0; a && i < pr->n; i++)
        json_array_append_new(a, json_string(pr->names[i]));
    if (a && pr->n == 0)
        json_array_append_new(a, json_string("all"));
    return a;
}

static const tb_wl_param param_table[] = {
    {"max_reps", "samples per probe at most (0: each probe's default)", TB_WLP_INT, P(max_reps),
     .lo = 0, .hi = 1000000, .def = {"300", "0"}},
    {"probes", "probe names (all: every probe)", TB_WLP_LIST, P(n), .token = probe_name,
     .json = probes_json, .def = {"all"}},
};

static const tb_wl_metric metrics[] = {
    {"probe.*.ns", "ns", TB_WL_LOWER, TB_CAT_PROBE, 0, NULL, 0, 0},
};

static int plan_metrics(const void *params, tb_wl_name_fn emit, void *ctx)
{
    size_t np;
    const tb_probe_info *all = tb_probe_all(&np);
    char name[96];
    for (size_t i = 0; i < np; i++) {
        if (!tb_wl_probe_selected(params, all[i].name))
            continue;
        snprintf(name, sizeof name, "probe.%s.ns", all[i].name);
        if (emit(ctx, name) < 0)
            return -1;
    }
    return 0;
}

/* Expected seconds of a probe run (figures of a 2-core VM, for ETAs only). */
static size_t steps(const void *params, tb_wl_step *out)
{
    const tb_wl_probe_params *pr = params;
    size_t n;
    const tb_probe_info *all = tb_probe_all(&n);
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        if (!tb_wl_probe_selected(pr, all[i].name))
            continue;
        unsigned reps = all[i].default_reps;
        if (pr->max_reps && (unsigned)pr->max_reps < reps)
            reps = (unsigned)pr->max_reps;
        /* ~0.3 s per probe at its default sample count, plus setup */
        s += 0.02 + 0.3 * (double)reps / (double)all[i].default_reps;
    }
    out[0] = (tb_wl_step){"", s};
    return 1;
}

static void describe(const void *params, const char *target, char *out, size_t n)
{
    const tb_wl_probe_params *pr = params;
    (void)target;
    size_t all;
    tb_probe_all(&all);
    size_t np = pr->n ? (size_t)pr->n : all;
    if (pr->max_reps)
        snprintf(out, n, "%zu probe%s, at most %d samples each", np, np == 1 ? "" : "s",
                 pr->max_reps);
    else
        snprintf(out, n, "%zu probe%s, each with its default samples", np, np == 1 ? "" : "s");
}

/* ---- the teebench-probe/1 document ---- */

json_t *tb_wl_probe_result_json(const tb_probe_info *p, const tb_probe_result *r)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "name", json_string(p->name));
    json_object_set_new(o, "what", json_string(p->what));
    json_object_set_new(o, "available", json_boolean(r->available));
    json_object_set_new(o, "unit", json_string("ns per operation"));
    if (r->available) {
        json_object_set_new(o, "median_ns", json_real(r->median_ns));
        json_object_set_new(o, "p99_ns", json_real(r->p99_ns));
        json_object_set_new(o, "min_ns", json_real(r->min_ns));
        json_object_set_new(o, "mean_ns", json_real(r->mean_ns));
        json_object_set_new(o, "samples", json_integer((json_int_t)r->samples));
        json_object_set_new(o, "batch", json_integer(r->batch));
        json_object_set_new(o, "timer_ns", json_real(r->timer_ns));
    }
    json_object_set_new(o, "cpu", json_integer(r->cpu));
    if (r->cpu2 >= 0)
        json_object_set_new(o, "cpu2", json_integer(r->cpu2));
    json_object_set_new(o, "note", json_string(r->note));
    return o;
}

json_t *tb_wl_probe_doc(json_t *results)
{
    json_t *o = json_object();
    if (!o || !results || json_object_set_new(o, "probes", results) < 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* One sample per probe the document says was measured: its median, named for the probe
   (made safe for a metric name), with its description as the note. */
static int doc_read(const json_t *doc, const tb_wl_read_opts *o, tb_wl_sink *sink,
                    tb_wl_doc_info *info, tb_err *err)
{
    (void)o;
    const json_t *probes = json_object_get(doc, "probes");
    if (!json_is_array(probes))
        return tb_errf(err, "probe JSON: \"probes\" must be an array");
    size_t i;
    const json_t *p;
    json_array_foreach(probes, i, p)
    {
        const char *name = json_string_value(json_object_get(p, "name"));
        const json_t *avail = json_object_get(p, "available");
        if (!name || !json_is_boolean(avail))
            return tb_errf(err, "probe JSON: probes[%zu] needs \"name\" and \"available\"", i);
        if (!json_is_true(avail))
            continue;
        char what[48], part[72], metric[160];
        snprintf(what, sizeof what, "probe JSON: probes[%zu]", i);
        double median;
        if (tb_wl_doc_number(p, what, "median_ns", NULL, &median, err) < 0)
            return -1;
        tb_wl_name_part(name, part, sizeof part);
        snprintf(metric, sizeof metric, "probe.%s.ns", part);
        if (tb_wl_sample(sink, metric, median, 0, json_string_value(json_object_get(p, "what")),
                         err) < 0)
            return -1;
    }
    tb_wl_doc_envelope(doc, info);
    return 0;
}

/* ---- the suite's steps ---- */

/* The samples of probe p in this plan: its default, at most max_reps. */
static unsigned reps_of(const tb_wl_probe_params *pr, const tb_probe_info *p)
{
    unsigned reps = (unsigned)tb_probe_reps(p, 0);
    if (pr->max_reps && (unsigned)pr->max_reps < reps)
        reps = (unsigned)pr->max_reps;
    return reps;
}

/* The probe command lines: one per distinct sample count, as `teebench probe` takes one --reps. */
static void probe_commands(const tb_wl_plain_state *st, tb_wl_sink *sink, const tb_probe_info *all,
                           size_t n)
{
    const tb_wl_probe_params *pr = st->params;
    unsigned done[64];
    size_t nd = 0;
    for (size_t i = 0; i < n; i++) {
        if (!tb_wl_probe_selected(pr, all[i].name))
            continue;
        unsigned reps = reps_of(pr, &all[i]);
        int seen = 0;
        for (size_t k = 0; k < nd; k++)
            seen |= done[k] == reps;
        if (seen || nd == 64)
            continue;
        done[nd++] = reps;
        tb_buf list = {0};
        for (size_t j = i; j < n; j++)
            if (tb_wl_probe_selected(pr, all[j].name) && reps_of(pr, &all[j]) == reps)
                tb_buf_printf(&list, "%s%s", list.len ? "," : "", all[j].name);
        char rs[16];
        snprintf(rs, sizeof rs, "%u", reps);
        char *argv[] = {(char *)st->env->exe,
                        "probe",
                        "--probes",
                        list.p ? (char *)list.p : "",
                        "--reps",
                        rs,
                        NULL};
        tb_wl_command(sink, argv);
        tb_buf_clear(&list);
    }
}

static int step(void *state, const char *target, int round, tb_wl_sink *sink, tb_err *err)
{
    tb_wl_plain_state *st = state; /* once: by index in tb_probe_all, reported as skipped */
    const tb_wl_probe_params *pr = st->params;
    (void)target;
    size_t n;
    const tb_probe_info *all = tb_probe_all(&n);
    probe_commands(st, sink, all, n);
    int rc = TB_WL_OK;
    for (size_t i = 0; i < n; i++) {
        if (!tb_wl_probe_selected(pr, all[i].name))
            continue;
        if (tb_wl_stopped(sink))
            return TB_WL_CANCELLED;
        tb_probe_opts o = {.reps = reps_of(pr, &all[i]), .cpu = -1};
        tb_probe_result res;
        tb_err e;
        if (tb_probe_run(&all[i], &o, &res, &e) < 0) {
            if (rc == TB_WL_OK)
                tb_errf(err, "probe %s: %s", all[i].name, e.msg);
            rc = TB_WL_FAILED;
            continue;
        }
        if (!res.available) { /* reported once, the first round it happens */
            if (i < sizeof st->once && !st->once[i]) {
                st->once[i] = 1;
                tb_wl_problem(sink, TB_WL_SKIP, all[i].name, round,
                              res.note[0] ? res.note : "not measurable here");
            }
            continue;
        }
        char name[96];
        snprintf(name, sizeof name, "probe.%s.ns", all[i].name);
        if (tb_wl_sample(sink, name, res.median_ns, 0, all[i].what, &e) < 0) {
            tb_errf(err, "%s", e.msg);
            return TB_WL_FAILED;
        }
    }
    return rc;
}

const tb_workload tb_wl_probe = {
    .name = "probe",
    .title = "Probes",
    .what = "the time of operations a confidential VM handles differently (teebench probe)",
    TB_WL_PARAM_TABLE(tb_wl_probe_params, param_table),
    .steps = steps,
    .describe = describe,
    .setup = tb_wl_plain_setup,
    .step = step,
    .cleanup = tb_wl_free_state,
    TB_WL_METRIC_TABLE(metrics),
    .plan_metrics = plan_metrics,
    .doc_schema = TB_WL_PROBE_SCHEMA,
    .doc_read = doc_read,
};
