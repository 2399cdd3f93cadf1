/* suite/plan: the suite's plan -- profiles, parameter settings, suite files,
 * the steps of a round with their expected durations, the metrics a plan
 * produces, and the plan's text and JSON forms. The parameters are the
 * workloads' own (workloads/: each one's table and struct); this file goes over
 * the registry and never names a workload's parameter.
 *
 * Invariants: a plan that tb_suite_plan_init/_set/_apply_json accepted is
 * runnable as is (every number in range, every workload's check passed); every
 * parameter change goes through tb_suite_plan_set, which marks the profile
 * "custom" unless the parameter says where something is (TB_WLP_PLACE). Pure
 * functions except tb_suite_plan_load_file. */
#include "suite/suite.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"

void *tb_suite_plan_params(const tb_suite_plan *p, const tb_workload *w)
{
    int i = tb_workload_index(w);
    return i < 0 ? NULL : (void *)p->params[i].bytes;
}

int tb_suite_plan_enabled(const tb_suite_plan *p, const tb_workload *w)
{
    int i = tb_workload_index(w);
    return i >= 0 && p->enabled[i];
}

/* The suite workload called name (not a TB_WL_NO_SUITE one): its index, or -1 with err. */
static int workload_parse(const char *name, tb_err *err)
{
    const tb_workload *w = tb_workload_find(name);
    if (w && !(w->flags & TB_WL_NO_SUITE))
        return tb_workload_index(w);
    char names[256];
    tb_workload_names(names, sizeof names);
    return tb_errf(err, "unknown workload '%.64s' (%s)", name, names);
}

/* Only the always-on workloads (env) in want. */
static void want_always(int *want)
{
    memset(want, 0, TB_WL_MAX * sizeof *want);
    for (size_t i = 0; i < tb_workload_count(); i++)
        want[i] = (tb_workload_at(i)->flags & TB_WL_ALWAYS) != 0;
}

/* ---- profiles ---- */

int tb_suite_plan_init(tb_suite_plan *p, const char *profile, tb_err *err)
{
    static const int repeat[TB_WL_PROFILES] = {
        3, /* quick: for tests and smoke runs, ~20 s on 2 cores */
        6, /* standard, the default: the fewest samples compare/ gives a median's interval
              for, within 10 minutes */
        1, /* seed: the source documents' parameters, once (wrk -t4 -c100 -d30s, UnixBench's
              10 passes of 10 s, 25 notarizations x 3 modes) */
    };
    memset(p, 0, sizeof *p);
    int k = tb_wl_profile_parse(profile);
    if (k < 0)
        return tb_errf(err, "unknown profile '%.64s' (quick, standard, seed)", profile);
    p->repeat = repeat[k];
    for (size_t i = 0; i < tb_workload_count(); i++) {
        const tb_workload *w = tb_workload_at(i);
        if (w->flags & TB_WL_NO_SUITE)
            continue;
        p->enabled[i] = !(k == TB_WL_QUICK && (w->flags & TB_WL_NOT_QUICK));
        if (tb_wl_params_init(w, p->params[i].bytes, k, err) < 0)
            return -1;
    }
    snprintf(p->profile, sizeof p->profile, "%s", profile);
    snprintf(p->base_profile, sizeof p->base_profile, "%s", profile);
    return 0;
}

int tb_suite_plan_select(tb_suite_plan *p, const char *list, tb_err *err)
{
    int want[TB_WL_MAX];
    want_always(want);
    char buf[512];
    if (strlen(list) >= sizeof buf)
        return tb_errf(err, "workload list too long");
    snprintf(buf, sizeof buf, "%s", list);
    int any = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        any = 1;
        if (!strcmp(t, "all")) {
            for (size_t i = 0; i < tb_workload_count(); i++)
                want[i] = !(tb_workload_at(i)->flags & TB_WL_NO_SUITE);
            continue;
        }
        int w = workload_parse(t, err);
        if (w < 0)
            return -1;
        want[w] = 1;
    }
    if (!any) {
        char names[256];
        tb_workload_names(names, sizeof names);
        return tb_errf(err, "empty workload list (%s)", names);
    }
    memcpy(p->enabled, want, sizeof want);
    return 0;
}

/* ---- settings ---- */

int tb_suite_plan_key(size_t i, char *key, size_t n, const char **help)
{
    if (i == 0) {
        snprintf(key, n, "repeat");
        *help = "rounds: each metric is measured this many times";
        return 1;
    }
    i--;
    for (size_t k = 0; k < tb_workload_count(); k++) {
        const tb_workload *w = tb_workload_at(k);
        if (i < w->n_params) {
            snprintf(key, n, "%s.%s", w->name, w->params[i].key);
            *help = w->params[i].help;
            return 1;
        }
        i -= w->n_params;
    }
    return 0;
}

int tb_suite_plan_set(tb_suite_plan *p, const char *key, const char *value, tb_err *err)
{
    if (!strcmp(key, "repeat"))
        return tb_wl_parse_int(key, value, 1, 10000, &p->repeat, err);
    const char *dot = strchr(key, '.');
    char wname[64];
    const tb_workload *w = NULL;
    if (dot && (size_t)(dot - key) < sizeof wname) {
        snprintf(wname, sizeof wname, "%.*s", (int)(dot - key), key);
        w = tb_workload_find(wname);
    }
    if (!w || (w->flags & TB_WL_NO_SUITE))
        return tb_errf(err, "unknown setting '%.64s' (teebench suite run --help lists them)", key);
    int place = 0;
    if (tb_wl_params_set(w, tb_suite_plan_params(p, w), dot + 1, value, &place, err) < 0)
        return -1;
    /* where the tools are is not how much is measured: the profile stays */
    if (!place)
        snprintf(p->profile, sizeof p->profile, "custom");
    return 0;
}

/* ---- suite files ---- */

/* A JSON value as the text tb_suite_plan_set takes: strings as is, numbers in
   decimal, arrays of strings/numbers comma-joined. */
static int value_text(const char *key, const json_t *v, char *out, size_t n, tb_err *err)
{
    if (json_is_string(v))
        return tb_wl_parse_text(key, json_string_value(v), out, n, err);
    if (json_is_integer(v)) {
        snprintf(out, n, "%lld", (long long)json_integer_value(v));
        return 0;
    }
    if (json_is_real(v)) {
        snprintf(out, n, "%.17g", json_real_value(v));
        return 0;
    }
    if (json_is_array(v)) {
        size_t i, len = 0;
        json_t *e;
        out[0] = 0;
        if (json_array_size(v) == 0)
            return tb_errf(err, "%s: empty list", key);
        json_array_foreach(v, i, e)
        {
            char one[256];
            if (json_is_array(e) || value_text(key, e, one, sizeof one, err) < 0)
                return json_is_array(e) ? tb_errf(err, "%s: nested list", key) : -1;
            int k = snprintf(out + len, n - len, "%s%s", i ? "," : "", one);
            if (k < 0 || (size_t)k >= n - len)
                return tb_errf(err, "%s: list too long", key);
            len += (size_t)k;
        }
        return 0;
    }
    return tb_errf(err, "%s: want a string, a number or a list", key);
}

int tb_suite_plan_apply_json(tb_suite_plan *p, const json_t *doc, tb_err *err)
{
    if (!json_is_object(doc))
        return tb_errf(err, "a suite file is a JSON object");
    tb_suite_plan q = *p;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)doc, k, v)
    {
        if (!strcmp(k, "profile")) {
            if (!json_is_string(v))
                return tb_errf(err, "profile: want a string");
            continue;
        }
        if (!strcmp(k, "repeat")) {
            char text[64];
            if (!json_is_integer(v))
                return tb_errf(err, "repeat: want an integer");
            if (value_text(k, v, text, sizeof text, err) < 0 ||
                tb_suite_plan_set(&q, "repeat", text, err) < 0)
                return -1;
            continue;
        }
        if (strcmp(k, "workloads"))
            return tb_errf(err, "unknown member '%.64s' (profile, repeat, workloads)", k);
        if (!json_is_object(v))
            return tb_errf(err, "workloads: want an object of workload -> parameters");
        int want[TB_WL_MAX];
        want_always(want);
        const char *wk;
        json_t *params;
        json_object_foreach(v, wk, params)
        {
            int w = workload_parse(wk, err);
            if (w < 0)
                return tb_err_wrap(err, "workloads");
            if (!json_is_object(params))
                return tb_errf(err, "workloads.%s: want an object of parameters ({} for defaults)",
                               wk);
            want[w] = 1;
            const char *pk;
            json_t *pv;
            json_object_foreach(params, pk, pv)
            {
                char key[128], text[1024];
                snprintf(key, sizeof key, "%s.%s", wk, pk);
                if (value_text(key, pv, text, sizeof text, err) < 0 ||
                    tb_suite_plan_set(&q, key, text, err) < 0)
                    return tb_err_wrap(err, "workloads");
            }
        }
        memcpy(q.enabled, want, sizeof want);
    }
    *p = q;
    return 0;
}

int tb_suite_plan_load_file(const char *path, json_t **doc, char *profile, size_t n, tb_err *err)
{
    *doc = NULL;
    tb_buf b = {0};
    if (tb_file_read(path, 1u << 20, &b, err) < 0)
        return -1;
    json_error_t je;
    json_t *d = json_loadb((const char *)b.p, b.len, JSON_REJECT_DUPLICATES, &je);
    tb_buf_clear(&b);
    if (!d)
        return tb_errf(err, "%s: line %d: %s", path, je.line, je.text);
    if (!json_is_object(d)) {
        json_decref(d);
        return tb_errf(err, "%s: a suite file is a JSON object", path);
    }
    json_t *pr = json_object_get(d, "profile");
    if (profile && n)
        profile[0] = 0;
    if (pr && !json_is_string(pr)) {
        json_decref(d);
        return tb_errf(err, "%s: profile: want a string", path);
    }
    if (pr && profile)
        snprintf(profile, n, "%s", json_string_value(pr));
    *doc = d;
    return 0;
}

/* ---- steps and estimates ---- */

size_t tb_suite_plan_steps(const tb_suite_plan *p, tb_suite_step *st)
{
    size_t n = 0;
    for (size_t i = 0; i < tb_workload_count(); i++) {
        const tb_workload *w = tb_workload_at(i);
        if (!p->enabled[i] || !w->steps)
            continue;
        tb_wl_step ws[TB_WL_MAX_STEPS];
        size_t k = w->steps(p->params[i].bytes, ws);
        for (size_t j = 0; j < k && n < TB_SUITE_MAX_STEPS; j++)
            st[n++] =
                (tb_suite_step){w, ws[j].target, ws[j].estimate_s, (w->flags & TB_WL_ONCE) != 0};
    }
    return n;
}

/* What the enabled workloads want from the suite: the fixture server, its threads (the
   first workload whose parameters say; a disabled one's too: http.server_threads sets
   the fixture server's threads for the notary). */
void tb_suite_plan_services(const tb_suite_plan *p, tb_wl_services *want)
{
    memset(want, 0, sizeof *want);
    for (size_t i = 0; i < tb_workload_count(); i++) {
        const tb_workload *w = tb_workload_at(i);
        if (!w->services)
            continue;
        tb_wl_services one = {0};
        w->services(p->params[i].bytes, p->enabled[i], &one);
        want->fixture |= one.fixture;
        if (!want->fixture_threads)
            want->fixture_threads = one.fixture_threads;
    }
}

/* Setup before round 1: env facts, the fixture server, each workload's own. */
static double setup_estimate(const tb_suite_plan *p)
{
    double s = 0.1;
    for (size_t i = 0; i < tb_workload_count(); i++) {
        const tb_workload *w = tb_workload_at(i);
        if (p->enabled[i] && w->setup_estimate)
            s += w->setup_estimate(p->params[i].bytes);
    }
    tb_wl_services want;
    tb_suite_plan_services(p, &want);
    return s + (want.fixture ? 0.2 : 0);
}

double tb_suite_plan_estimate(const tb_suite_plan *p)
{
    tb_suite_step st[TB_SUITE_MAX_STEPS];
    size_t n = tb_suite_plan_steps(p, st);
    double round = 0, once = 0;
    for (size_t i = 0; i < n; i++)
        *(st[i].once ? &once : &round) += st[i].estimate_s;
    return setup_estimate(p) + round * p->repeat + once;
}

/* ---- JSON and text ---- */

json_t *tb_suite_plan_json(const tb_suite_plan *p)
{
    json_t *order = json_array(), *wl = json_object();
    int bad = !order || !wl;
    for (size_t i = 0; !bad && i < tb_workload_count(); i++) {
        const tb_workload *w = tb_workload_at(i);
        if (p->enabled[i])
            bad |= json_array_append_new(order, json_string(w->name)) < 0;
        if (w->n_params && !(w->flags & TB_WL_NO_SUITE)) {
            json_t *o = tb_wl_params_json(w, p->params[i].bytes);
            bad |= !o || json_object_set_new(wl, w->name, o) < 0;
        }
    }
    if (bad) {
        json_decref(order);
        json_decref(wl);
        return NULL;
    }
    return json_pack("{s:s, s:s, s:i, s:o, s:f, s:o}", "profile", p->profile, "base_profile",
                     p->base_profile, "repeat", p->repeat, "order", order, "estimate_s",
                     tb_suite_plan_estimate(p), "workloads", wl);
}

typedef struct spec_list {
    tb_suite_metric_spec *v;
    size_t n, cap;
    const tb_workload *w;
    tb_err *err;
} spec_list;

/* Appends the spec of metric name: its unit, direction and TEE mark from its workload's
   table; a name the table does not have is a bug of the workload. */
static int add_spec(void *ctx, const char *name)
{
    spec_list *l = ctx;
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 32;
        tb_suite_metric_spec *nv = realloc(l->v, nc * sizeof *nv);
        if (!nv)
            return tb_errf(l->err, "out of memory");
        l->v = nv;
        l->cap = nc;
    }
    tb_suite_metric_spec *s = &l->v[l->n];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    tb_wl_match m;
    if (strlen(name) >= sizeof s->name || !tb_wl_metric_find(name, &m) || m.workload != l->w)
        return tb_errf(l->err, "metric %s is in no table of the %s workload", name, l->w->name);
    s->unit = m.metric->unit;
    s->better = m.metric->better;
    s->workload = l->w;
    s->tee = m.tee;
    l->n++;
    return 0;
}

int tb_suite_plan_metrics(const tb_suite_plan *p, tb_suite_metric_spec **out, size_t *nout,
                          tb_err *err)
{
    spec_list l = {.err = err};
    for (size_t i = 0; i < tb_workload_count(); i++) {
        l.w = tb_workload_at(i);
        if (p->enabled[i] && l.w->plan_metrics &&
            l.w->plan_metrics(p->params[i].bytes, add_spec, &l) < 0) {
            free(l.v);
            return -1;
        }
    }
    *out = l.v;
    *nout = l.n;
    return 0;
}

static const char *step_label(const tb_suite_step *s, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s%s", s->workload->name, s->target[0] ? " " : "", s->target);
    return buf;
}

static void fmt_duration(double s, char *out, size_t n)
{
    if (s < 60)
        snprintf(out, n, "%.0f s", ceil(s));
    else
        snprintf(out, n, "%d min %02d s", (int)(s + 0.5) / 60, (int)(s + 0.5) % 60);
}

int tb_suite_plan_describe(const tb_suite_plan *p, tb_buf *out, tb_err *err)
{
    tb_suite_step st[TB_SUITE_MAX_STEPS];
    size_t n = tb_suite_plan_steps(p, st);
    char est[32], lbl[64];
    fmt_duration(tb_suite_plan_estimate(p), est, sizeof est);
    int rc = 0;
    rc |= tb_buf_printf(out, "profile %s%s%s%s, %d round%s of %zu step%s, about %s\n", p->profile,
                        strcmp(p->profile, p->base_profile) ? " (from " : "",
                        strcmp(p->profile, p->base_profile) ? p->base_profile : "",
                        strcmp(p->profile, p->base_profile) ? ")" : "", p->repeat,
                        p->repeat == 1 ? "" : "s", n, n == 1 ? "" : "s", est);
    for (size_t i = 0; i < tb_workload_count(); i++) {
        const tb_workload *w = tb_workload_at(i);
        if (p->enabled[i] && (w->flags & TB_WL_ALWAYS))
            rc |= tb_buf_printf(out, "  %-20s %s\n", w->name, w->what);
    }
    for (size_t i = 0; i < n; i++) {
        char what[256] = "";
        const tb_workload *w = st[i].workload;
        if (w->describe)
            w->describe(tb_suite_plan_params(p, w), st[i].target, what, sizeof what);
        fmt_duration(st[i].estimate_s, est, sizeof est);
        rc |= tb_buf_printf(out, "  %-20s %s (~%s %s)\n", step_label(&st[i], lbl, sizeof lbl), what,
                            est, st[i].once ? "in round 1 only" : "per round");
    }
    tb_suite_metric_spec *ms = NULL;
    size_t nm = 0;
    if (tb_suite_plan_metrics(p, &ms, &nm, err) < 0)
        return -1;
    rc |= tb_buf_printf(out, "metrics (%zu):\n", nm);
    for (size_t i = 0; i < nm; i++)
        rc |= tb_buf_printf(out, "  %-37s %-6s %s is better%s\n", ms[i].name, ms[i].unit,
                            ms[i].better == TB_BETTER_HIGHER ? "higher" : "lower",
                            ms[i].tee ? " (TEE; SIMULATED outside a TD)" : "");
    free(ms);
    return rc ? tb_errf(err, "out of memory") : 0;
}
