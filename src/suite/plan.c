/* suite/plan: the suite's plan -- profiles, parameter settings, suite files,
 * the steps of a round with their expected durations, the metrics a plan
 * produces, and the plan's text and JSON forms.
 *
 * Invariants: a plan that tb_suite_plan_init/_set/_apply_json accepted is
 * runnable as is (every number in range, at least one http target when http is
 * on, probe names known); every parameter change goes through plan_set, which
 * marks the profile "custom". Pure functions except tb_suite_plan_load_file. */
#include "suite/suite.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "net/url.h"
#include "serve/nginx.h"
#include "sys/probe.h"
#include "workloads/workload.h"

static const char *const wl_names[TB_WL_COUNT] = {"env",  "syscall", "probe",
                                                  "http", "attest",  "notary"};

static const char *const notary_modes[3] = {"no_tee", "tee_no_verify", "tee_verify"};

const char *tb_suite_workload_name(tb_suite_workload w)
{
    return (unsigned)w < TB_WL_COUNT ? wl_names[w] : "?";
}

int tb_suite_workload_parse(const char *name, tb_suite_workload *out, tb_err *err)
{
    for (int i = 0; i < TB_WL_COUNT; i++)
        if (!strcmp(name, wl_names[i])) {
            *out = (tb_suite_workload)i;
            return 0;
        }
    return tb_errf(err, "unknown workload '%.64s' (env, syscall, probe, http, attest, notary)",
                   name);
}

/* ---- profiles ---- */

static void base_plan(tb_suite_plan *p)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < TB_WL_COUNT; i++)
        p->enabled[i] = 1;
    p->http.threads = 2;
    p->http.timeout_s = 2;
    p->http.nginx = p->http.serve_tls = 1;
    snprintf(p->http.nginx_bin, sizeof p->http.nginx_bin, "%s", TB_NGINX_BIN);
    snprintf(p->syscall.mode, sizeof p->syscall.mode, "mix");
    p->syscall.c1 = p->syscall.cn = 1;
    snprintf(p->attest.provider, sizeof p->attest.provider, "auto");
    snprintf(p->attest.pccs, sizeof p->attest.pccs, "%s", TB_SUITE_PCS_URL);
    snprintf(p->attest.kds, sizeof p->attest.kds, "%s", TB_SUITE_KDS_URL);
    snprintf(p->notary.tee, sizeof p->notary.tee, "auto");
    p->notary.n_modes = 3;
    for (int i = 0; i < 3; i++)
        snprintf(p->notary.modes[i], sizeof p->notary.modes[i], "%s", notary_modes[i]);
    p->notary.run_timeout_s = 300;
    p->notary.retries = 2;
    snprintf(p->notary.pccs, sizeof p->notary.pccs, "%s", TB_SUITE_PCS_URL);
}

int tb_suite_plan_init(tb_suite_plan *p, const char *profile, tb_err *err)
{
    base_plan(p);
    if (!strcmp(profile, "quick")) {
        /* for tests and smoke runs: ~20 s on 2 cores */
        p->repeat = 3;
        p->http.duration_s = 1;
        p->http.warmup_s = 0.2;
        p->http.connections = 50;
        p->syscall.duration_s = 0.25;
        p->syscall.passes = 3;
        p->probe.max_reps = 300;
        p->attest.quotes = 5;
        p->attest.iterations = 50;
        p->notary.iterations = 3;
        p->notary.run_timeout_s = 60;
        p->notary.retries = 1;
    } else if (!strcmp(profile, "standard")) {
        /* the default: 6 rounds, the fewest samples compare/ gives a median's interval
           for, within 10 minutes */
        p->repeat = 6;
        p->http.duration_s = 10;
        p->http.warmup_s = 1;
        p->http.connections = 100;
        p->syscall.duration_s = 2;
        p->syscall.passes = 6;
        p->attest.quotes = 20;
        p->attest.iterations = 500;
        p->notary.iterations = 10;
    } else if (!strcmp(profile, "seed")) {
        /* the source documents' parameters: wrk -t4 -c100 -d30s (timeout 2 s, wrk's
           default), UnixBench's 10 passes of 10 s, 25 notarizations x 3 modes, once */
        p->repeat = 1;
        p->http.duration_s = 30;
        p->http.warmup_s = 0;
        p->http.threads = 4;
        p->http.connections = 100;
        p->syscall.duration_s = 10;
        p->syscall.passes = 10;
        p->attest.quotes = 25;
        p->attest.iterations = 1000;
        p->notary.iterations = 25;
    } else {
        return tb_errf(err, "unknown profile '%.64s' (quick, standard, seed)", profile);
    }
    snprintf(p->profile, sizeof p->profile, "%s", profile);
    snprintf(p->base_profile, sizeof p->base_profile, "%s", profile);
    return 0;
}

int tb_suite_plan_select(tb_suite_plan *p, const char *list, tb_err *err)
{
    int want[TB_WL_COUNT] = {0};
    want[TB_WL_ENV] = 1;
    char buf[512];
    if (strlen(list) >= sizeof buf)
        return tb_errf(err, "workload list too long");
    snprintf(buf, sizeof buf, "%s", list);
    int any = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        any = 1;
        if (!strcmp(t, "all")) {
            for (int i = 0; i < TB_WL_COUNT; i++)
                want[i] = 1;
            continue;
        }
        tb_suite_workload w = TB_WL_ENV;
        if (tb_suite_workload_parse(t, &w, err) < 0)
            return -1;
        want[w] = 1;
    }
    if (!any)
        return tb_errf(err, "empty workload list (env, syscall, probe, http, attest, notary)");
    memcpy(p->enabled, want, sizeof want);
    return 0;
}

/* ---- values ---- */

/* Seconds from "5", "5s", "500ms", "1.5m"; in [lo, hi]. */
static int parse_seconds(const char *key, const char *v, double lo, double hi, double *out,
                         tb_err *err)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || errno || !isfinite(x) || isspace((unsigned char)*v))
        return tb_errf(err, "%s: '%.40s' is not a duration (e.g. 5s, 500ms)", key, v);
    if (!strcmp(end, "ms"))
        x /= 1000;
    else if (!strcmp(end, "m"))
        x *= 60;
    else if (*end && strcmp(end, "s"))
        return tb_errf(err, "%s: '%.40s' is not a duration (e.g. 5s, 500ms)", key, v);
    if (!(x >= lo && x <= hi))
        return tb_errf(err, "%s: %.40s is out of range (%g s .. %g s)", key, v, lo, hi);
    *out = x;
    return 0;
}

static int parse_int(const char *key, const char *v, long lo, long hi, int *out, tb_err *err)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (end == v || *end || errno || isspace((unsigned char)*v))
        return tb_errf(err, "%s: '%.40s' is not an integer", key, v);
    if (x < lo || x > hi)
        return tb_errf(err, "%s: %ld is out of range (%ld .. %ld)", key, x, lo, hi);
    *out = (int)x;
    return 0;
}

static int parse_str(const char *key, const char *v, char *out, size_t n, tb_err *err)
{
    if (strlen(v) >= n)
        return tb_errf(err, "%s: longer than %zu bytes", key, n - 1);
    for (const char *c = v; *c; c++)
        if ((unsigned char)*c < 0x20)
            return tb_errf(err, "%s: contains a control character", key);
    snprintf(out, n, "%s", v);
    return 0;
}

/* Calls fn(token) for each comma-separated token; fails on an empty list. */
static int each_token(const char *key, const char *v, int (*fn)(void *, const char *, tb_err *),
                      void *ctx, tb_err *err)
{
    char buf[1024];
    if (strlen(v) >= sizeof buf)
        return tb_errf(err, "%s: list too long", key);
    snprintf(buf, sizeof buf, "%s", v);
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save), n++)
        if (fn(ctx, t, err) < 0)
            return tb_err_wrap(err, "%s", key);
    if (n == 0)
        return tb_errf(err, "%s: empty list", key);
    return 0;
}

static int http_target(void *ctx, const char *t, tb_err *err)
{
    tb_suite_http *h = ctx;
    if (!strcmp(t, "nginx"))
        h->nginx = 1;
    else if (!strcmp(t, "serve-tls"))
        h->serve_tls = 1;
    else
        return tb_errf(err, "unknown target '%.40s' (nginx, serve-tls)", t);
    return 0;
}

static int syscall_copies(void *ctx, const char *t, tb_err *err)
{
    tb_suite_syscall *s = ctx;
    if (!strcmp(t, "1"))
        s->c1 = 1;
    else if (!strcmp(t, "n") || !strcmp(t, "cpus"))
        s->cn = 1;
    else
        return tb_errf(err, "'%.40s': want 1 and/or n (the CPUs online)", t);
    return 0;
}

static int probe_name(void *ctx, const char *t, tb_err *err)
{
    tb_suite_probe *pr = ctx;
    if (!strcmp(t, "all"))
        return 0;
    if (!tb_probe_find(t))
        return tb_errf(err, "unknown probe '%.40s' (teebench probe --help lists them)", t);
    for (int i = 0; i < pr->n; i++)
        if (!strcmp(pr->names[i], t))
            return 0;
    if (pr->n == TB_SUITE_MAX_PROBES)
        return tb_errf(err, "more than %d probes", TB_SUITE_MAX_PROBES);
    snprintf(pr->names[pr->n++], sizeof pr->names[0], "%s", t);
    return 0;
}

static int notary_mode(void *ctx, const char *t, tb_err *err)
{
    int *want = ctx;
    for (int i = 0; i < 3; i++)
        if (!strcmp(t, notary_modes[i])) {
            want[i] = 1;
            return 0;
        }
    return tb_errf(err, "unknown mode '%.40s' (no_tee, tee_no_verify, tee_verify)", t);
}

const tb_suite_key tb_suite_plan_keys[] = {
    {"repeat", "rounds: each metric is measured this many times"},
    {"http.duration", "seconds per measured run and target"},
    {"http.warmup", "seconds of load per target before round 1 (0: none)"},
    {"http.threads", "load generator threads"},
    {"http.connections", "connections kept open (>= threads)"},
    {"http.timeout", "request timeout"},
    {"http.server_threads", "nginx workers and fixture server threads (0: the CPUs online)"},
    {"http.targets", "nginx and/or serve-tls"},
    {"http.nginx_bin", "the nginx binary (default " TB_NGINX_BIN ")"},
    {"http.nginx_url", "load an nginx elsewhere (http://HOST:PORT/) instead of starting one"},
    {"syscall.mode", "mix (UnixBench's), close, getpid or exec"},
    {"syscall.duration", "seconds per pass"},
    {"syscall.passes", "passes per run (the lowest third is dropped)"},
    {"syscall.copies", "1 and/or n (the CPUs online)"},
    {"probe.max_reps", "samples per probe at most (0: each probe's default)"},
    {"probe.probes", "probe names (all: every probe)"},
    {"attest.provider", "auto (tsm in a TDX or SEV-SNP guest, else sim), sim (SIMULATED TDX), "
                        "sim-snp (SIMULATED SEV-SNP) or tsm"},
    {"attest.quotes", "quotes (SEV-SNP: reports) timed per round"},
    {"attest.iterations", "verifications timed per round, prepared and from scratch"},
    {"attest.pccs", "PCS/PCCS base URL for the collateral of real TDX quotes"},
    {"attest.kds", "AMD KDS base URL for the certificates of real SEV-SNP reports"},
    {"attest.certs", "a folder of SEV-SNP certificates (ark.pem, ask.pem, vcek.der, crl.der) "
                     "to use instead of the KDS"},
    {"notary.iterations", "notarizations per round and mode"},
    {"notary.modes", "no_tee, tee_no_verify, tee_verify"},
    {"notary.run_timeout", "seconds before a notarization run is killed"},
    {"notary.retries", "reruns of a failed notarization"},
    {"notary.pccs", "PCS/PCCS base URL for tee_verify against a real TDX notary"},
    {"notary.tee", "auto (tdx / snp in such a guest, else sim), sim, sim-snp, tdx or snp"},
    {NULL, NULL},
};

static int set_param(tb_suite_plan *p, const char *key, const char *v, tb_err *err)
{
    if (!strcmp(key, "http.duration"))
        return parse_seconds(key, v, 0.01, 86400, &p->http.duration_s, err);
    if (!strcmp(key, "http.warmup"))
        return parse_seconds(key, v, 0, 3600, &p->http.warmup_s, err);
    if (!strcmp(key, "http.threads"))
        return parse_int(key, v, 1, 1024, &p->http.threads, err);
    if (!strcmp(key, "http.connections"))
        return parse_int(key, v, 1, 100000, &p->http.connections, err);
    if (!strcmp(key, "http.timeout"))
        return parse_seconds(key, v, 0.01, 3600, &p->http.timeout_s, err);
    if (!strcmp(key, "http.server_threads"))
        return parse_int(key, v, 0, 256, &p->http.server_threads, err);
    if (!strcmp(key, "http.targets")) {
        tb_suite_http h = p->http;
        h.nginx = h.serve_tls = 0;
        if (each_token(key, v, http_target, &h, err) < 0)
            return -1;
        p->http = h;
        return 0;
    }
    if (!strcmp(key, "http.nginx_bin")) {
        if (v[0] != '/')
            return tb_errf(err, "%s: '%.60s' is not an absolute path", key, v);
        return parse_str(key, v, p->http.nginx_bin, sizeof p->http.nginx_bin, err);
    }
    if (!strcmp(key, "http.nginx_url")) {
        tb_url u;
        if (v[0] && (tb_url_parse(v, &u, err) < 0 || u.tls))
            return u.tls ? tb_errf(err, "%s: '%.60s' is https (nginx is loaded over plain HTTP)",
                                   key, v)
                         : tb_err_wrap(err, "%s", key);
        return parse_str(key, v, p->http.nginx_url, sizeof p->http.nginx_url, err);
    }
    if (!strcmp(key, "syscall.mode")) {
        if (strcmp(v, "mix") && strcmp(v, "close") && strcmp(v, "getpid") && strcmp(v, "exec"))
            return tb_errf(err, "%s: '%.40s' is not mix, close, getpid or exec", key, v);
        return parse_str(key, v, p->syscall.mode, sizeof p->syscall.mode, err);
    }
    if (!strcmp(key, "syscall.duration"))
        return parse_seconds(key, v, 0.01, 3600, &p->syscall.duration_s, err);
    if (!strcmp(key, "syscall.passes"))
        return parse_int(key, v, 1, 1000, &p->syscall.passes, err);
    if (!strcmp(key, "syscall.copies")) {
        tb_suite_syscall s = p->syscall;
        s.c1 = s.cn = 0;
        if (each_token(key, v, syscall_copies, &s, err) < 0)
            return -1;
        p->syscall = s;
        return 0;
    }
    if (!strcmp(key, "probe.max_reps")) {
        int x;
        if (parse_int(key, v, 0, 1000000, &x, err) < 0)
            return -1;
        p->probe.max_reps = (unsigned)x;
        return 0;
    }
    if (!strcmp(key, "probe.probes")) {
        tb_suite_probe pr = p->probe;
        pr.n = 0;
        if (each_token(key, v, probe_name, &pr, err) < 0)
            return -1;
        p->probe = pr;
        return 0;
    }
    if (!strcmp(key, "attest.provider")) {
        if (strcmp(v, "auto") && strcmp(v, "sim") && strcmp(v, "sim-snp") && strcmp(v, "tsm"))
            return tb_errf(err, "%s: '%.40s' is not auto, sim, sim-snp or tsm", key, v);
        return parse_str(key, v, p->attest.provider, sizeof p->attest.provider, err);
    }
    if (!strcmp(key, "notary.tee")) {
        if (strcmp(v, "auto") && strcmp(v, "sim") && strcmp(v, "sim-snp") && strcmp(v, "tdx") &&
            strcmp(v, "snp"))
            return tb_errf(err, "%s: '%.40s' is not auto, sim, sim-snp, tdx or snp", key, v);
        return parse_str(key, v, p->notary.tee, sizeof p->notary.tee, err);
    }
    if (!strcmp(key, "attest.certs")) {
        if (!*v)
            return tb_errf(err, "%s: wants a folder", key);
        return parse_str(key, v, p->attest.certs, sizeof p->attest.certs, err);
    }
    if (!strcmp(key, "attest.quotes"))
        return parse_int(key, v, 1, 100000, &p->attest.quotes, err);
    if (!strcmp(key, "attest.iterations"))
        return parse_int(key, v, 5, 10000000, &p->attest.iterations, err);
    if (!strcmp(key, "attest.pccs") || !strcmp(key, "notary.pccs") || !strcmp(key, "attest.kds")) {
        if (strncmp(v, "http://", 7) && strncmp(v, "https://", 8))
            return tb_errf(err, "%s: '%.60s' is not an http:// or https:// URL", key, v);
        char *dst = !strcmp(key, "attest.kds") ? p->attest.kds
                    : key[0] == 'a'            ? p->attest.pccs
                                               : p->notary.pccs;
        return parse_str(key, v, dst, sizeof p->attest.pccs, err);
    }
    if (!strcmp(key, "notary.iterations"))
        return parse_int(key, v, 1, 100000, &p->notary.iterations, err);
    if (!strcmp(key, "notary.modes")) {
        int want[3] = {0};
        if (each_token(key, v, notary_mode, want, err) < 0)
            return -1;
        p->notary.n_modes = 0;
        for (int i = 0; i < 3; i++)
            if (want[i])
                snprintf(p->notary.modes[p->notary.n_modes++], sizeof p->notary.modes[0], "%s",
                         notary_modes[i]);
        return 0;
    }
    if (!strcmp(key, "notary.run_timeout")) {
        double s;
        if (parse_seconds(key, v, 1, 86400, &s, err) < 0)
            return -1;
        p->notary.run_timeout_s = (int)ceil(s);
        return 0;
    }
    if (!strcmp(key, "notary.retries"))
        return parse_int(key, v, 0, 100, &p->notary.retries, err);
    return tb_errf(err, "unknown setting '%.64s' (teebench suite run --help lists them)", key);
}

int tb_suite_plan_set(tb_suite_plan *p, const char *key, const char *value, tb_err *err)
{
    if (!strcmp(key, "repeat"))
        return parse_int(key, value, 1, 10000, &p->repeat, err);
    tb_suite_plan q = *p;
    if (set_param(&q, key, value, err) < 0)
        return -1;
    if (q.http.connections < q.http.threads)
        return tb_errf(err, "http.connections (%d) must be >= http.threads (%d)",
                       q.http.connections, q.http.threads);
    *p = q;
    /* where the tools are is not how much is measured: the profile stays */
    if (strcmp(key, "http.nginx_bin") && strcmp(key, "http.nginx_url") &&
        strcmp(key, "attest.pccs") && strcmp(key, "notary.pccs") && strcmp(key, "attest.kds") &&
        strcmp(key, "attest.certs"))
        snprintf(p->profile, sizeof p->profile, "custom");
    return 0;
}

/* ---- suite files ---- */

/* A JSON value as the text tb_suite_plan_set takes: strings as is, numbers in
   decimal, arrays of strings/numbers comma-joined. */
static int value_text(const char *key, const json_t *v, char *out, size_t n, tb_err *err)
{
    if (json_is_string(v))
        return parse_str(key, json_string_value(v), out, n, err);
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
        int want[TB_WL_COUNT] = {0};
        want[TB_WL_ENV] = 1;
        const char *wk;
        json_t *params;
        json_object_foreach(v, wk, params)
        {
            tb_suite_workload w = TB_WL_ENV;
            if (tb_suite_workload_parse(wk, &w, err) < 0)
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

/* Expected seconds of a probe run (figures of a 2-core VM, for ETAs only). */
static double probe_estimate(const tb_suite_probe *pr)
{
    size_t n;
    const tb_probe_info *all = tb_probe_all(&n);
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        int on = pr->n == 0;
        for (int k = 0; k < pr->n && !on; k++)
            on = !strcmp(pr->names[k], all[i].name);
        if (!on)
            continue;
        unsigned reps = all[i].default_reps;
        if (pr->max_reps && pr->max_reps < reps)
            reps = pr->max_reps;
        /* ~0.3 s per probe at its default sample count, plus setup */
        s += 0.02 + 0.3 * (double)reps / (double)all[i].default_reps;
    }
    return s;
}

size_t tb_suite_plan_steps(const tb_suite_plan *p, tb_suite_step *st)
{
    size_t n = 0;
#define STEP(w, t, e) (st[n++] = (tb_suite_step){(w), (t), (e)})
    double pass = p->syscall.passes * (p->syscall.duration_s + 0.02) + 0.15;
    if (p->enabled[TB_WL_SYSCALL] && p->syscall.c1)
        STEP(TB_WL_SYSCALL, "c1", pass);
    if (p->enabled[TB_WL_SYSCALL] && p->syscall.cn)
        STEP(TB_WL_SYSCALL, "cn", pass);
    if (p->enabled[TB_WL_PROBE])
        STEP(TB_WL_PROBE, "", probe_estimate(&p->probe));
    if (p->enabled[TB_WL_HTTP] && p->http.nginx)
        STEP(TB_WL_HTTP, "nginx", p->http.duration_s + 0.2);
    if (p->enabled[TB_WL_HTTP] && p->http.serve_tls)
        STEP(TB_WL_HTTP, "serve-tls", p->http.duration_s + 0.1);
    if (p->enabled[TB_WL_ATTEST])
        STEP(TB_WL_ATTEST, "", 0.05 + p->attest.quotes * 0.005 + p->attest.iterations * 0.0025);
    if (p->enabled[TB_WL_NOTARY])
        STEP(TB_WL_NOTARY, "", 0.5 + p->notary.iterations * p->notary.n_modes * 0.1);
#undef STEP
    return n;
}

/* Setup before round 1: env facts, PKI, servers, warm-ups. */
static double setup_estimate(const tb_suite_plan *p)
{
    double s = 0.1;
    int http = p->enabled[TB_WL_HTTP];
    if (http && p->http.nginx)
        s += 0.2 + p->http.warmup_s;
    if ((http && p->http.serve_tls) || p->enabled[TB_WL_NOTARY])
        s += 0.2;
    if (http && p->http.serve_tls)
        s += p->http.warmup_s;
    if (p->enabled[TB_WL_ATTEST])
        s += 0.1;
    return s;
}

double tb_suite_plan_estimate(const tb_suite_plan *p)
{
    tb_suite_step st[TB_SUITE_MAX_STEPS];
    size_t n = tb_suite_plan_steps(p, st);
    double round = 0;
    for (size_t i = 0; i < n; i++)
        round += st[i].estimate_s;
    return setup_estimate(p) + round * p->repeat;
}

/* ---- JSON and text ---- */

json_t *tb_suite_plan_json(const tb_suite_plan *p)
{
    json_t *wl = json_array();
    for (int i = 0; i < TB_WL_COUNT; i++)
        if (p->enabled[i])
            json_array_append_new(wl, json_string(wl_names[i]));
    json_t *targets = json_array(), *copies = json_array(), *probes = json_array(),
           *modes = json_array();
    if (p->http.nginx)
        json_array_append_new(targets, json_string("nginx"));
    if (p->http.serve_tls)
        json_array_append_new(targets, json_string("serve-tls"));
    if (p->syscall.c1)
        json_array_append_new(copies, json_string("1"));
    if (p->syscall.cn)
        json_array_append_new(copies, json_string("n"));
    for (int i = 0; i < p->probe.n; i++)
        json_array_append_new(probes, json_string(p->probe.names[i]));
    if (p->probe.n == 0)
        json_array_append_new(probes, json_string("all"));
    for (int i = 0; i < p->notary.n_modes; i++)
        json_array_append_new(modes, json_string(p->notary.modes[i]));
    return json_pack(
        "{s:s, s:s, s:i, s:o, s:f, s:{s:{s:f, s:f, s:i, s:i, s:f, s:i, s:o, s:s}, s:{s:s, s:f, "
        "s:i, "
        "s:o}, s:{s:i, s:o}, s:{s:s, s:i, s:i, s:s, s:s, s:s}, s:{s:i, s:o, s:i, s:i, s:s, "
        "s:s}}}",
        "profile", p->profile, "base_profile", p->base_profile, "repeat", p->repeat, "order", wl,
        "estimate_s", tb_suite_plan_estimate(p), "workloads", "http", "duration",
        p->http.duration_s, "warmup", p->http.warmup_s, "threads", p->http.threads, "connections",
        p->http.connections, "timeout", p->http.timeout_s, "server_threads", p->http.server_threads,
        "targets", targets, "nginx_bin", p->http.nginx_bin, "syscall", "mode", p->syscall.mode,
        "duration", p->syscall.duration_s, "passes", p->syscall.passes, "copies", copies, "probe",
        "max_reps", (int)p->probe.max_reps, "probes", probes, "attest", "provider",
        p->attest.provider, "quotes", p->attest.quotes, "iterations", p->attest.iterations, "pccs",
        p->attest.pccs, "kds", p->attest.kds, "certs", p->attest.certs, "notary", "iterations",
        p->notary.iterations, "modes", modes, "run_timeout", p->notary.run_timeout_s, "retries",
        p->notary.retries, "pccs", p->notary.pccs, "tee", p->notary.tee);
}

/* Appends the spec of metric "<a><b><c>": its unit, direction and TEE mark from its
   workload's table (workloads/); a name no table has is a bug here. */
static int add_spec(tb_suite_metric_spec **v, size_t *n, size_t *cap, tb_suite_workload w,
                    const char *a, const char *b, const char *c, tb_err *err)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 32;
        tb_suite_metric_spec *nv = realloc(*v, nc * sizeof *nv);
        if (!nv)
            return tb_errf(err, "out of memory");
        *v = nv;
        *cap = nc;
    }
    tb_suite_metric_spec *s = &(*v)[*n];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s%s%s", a, b, c);
    tb_wl_match m;
    if (!tb_wl_metric_find(s->name, &m) || strcmp(m.workload->name, tb_suite_workload_name(w)))
        return tb_errf(err, "metric %s is in no table of the %s workload", s->name,
                       tb_suite_workload_name(w));
    s->unit = m.metric->unit;
    s->better = m.metric->better;
    s->workload = w;
    s->tee = m.tee;
    (*n)++;
    return 0;
}

int tb_suite_plan_metrics(const tb_suite_plan *p, tb_suite_metric_spec **out, size_t *nout,
                          tb_err *err)
{
    static const char *const lat[] = {"p50", "p90", "p99", "p99.9", "p99.99", "p99.999"};
    tb_suite_metric_spec *v = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
#define SPEC(w, a, b, c)                                                                           \
    do {                                                                                           \
        if (rc == 0)                                                                               \
            rc = add_spec(&v, &n, &cap, w, a, b, c, err);                                          \
    } while (0)
    if (p->enabled[TB_WL_SYSCALL]) {
        /* mode mix: syscall.c1.*; other modes (no index): syscall.<mode>.c1.lps, as import.h */
        int mix = !strcmp(p->syscall.mode, "mix");
        char pre[32];
        snprintf(pre, sizeof pre, "syscall.%s%s", mix ? "" : p->syscall.mode, mix ? "" : ".");
        if (p->syscall.c1 && mix)
            SPEC(TB_WL_SYSCALL, "syscall.c1.index", "", "");
        if (p->syscall.cn && mix)
            SPEC(TB_WL_SYSCALL, "syscall.cn.index", "", "");
        if (p->syscall.c1)
            SPEC(TB_WL_SYSCALL, pre, "c1.lps", "");
        if (p->syscall.cn)
            SPEC(TB_WL_SYSCALL, pre, "cn.lps", "");
    }
    if (p->enabled[TB_WL_PROBE]) {
        size_t np;
        const tb_probe_info *all = tb_probe_all(&np);
        for (size_t i = 0; i < np; i++) {
            int on = p->probe.n == 0;
            for (int k = 0; k < p->probe.n && !on; k++)
                on = !strcmp(p->probe.names[k], all[i].name);
            if (on)
                SPEC(TB_WL_PROBE, "probe.", all[i].name, ".ns");
        }
    }
    if (p->enabled[TB_WL_HTTP]) {
        const char *targets[2] = {p->http.nginx ? "http.nginx" : NULL,
                                  p->http.serve_tls ? "http.serve-tls" : NULL};
        for (int t = 0; t < 2; t++) {
            if (!targets[t])
                continue;
            SPEC(TB_WL_HTTP, targets[t], ".rps", "");
            for (size_t k = 0; k < sizeof lat / sizeof lat[0]; k++)
                SPEC(TB_WL_HTTP, targets[t], ".latency.", lat[k]);
            SPEC(TB_WL_HTTP, targets[t], ".transfer", "");
        }
    }
    if (p->enabled[TB_WL_ATTEST]) {
        SPEC(TB_WL_ATTEST, "attest.quote_get.ms", "", "");
        SPEC(TB_WL_ATTEST, "attest.verify_prepared.us", "", "");
        SPEC(TB_WL_ATTEST, "attest.verify_scratch.ms", "", "");
    }
    if (p->enabled[TB_WL_NOTARY]) {
        int have_base = 0;
        for (int m = 0; m < p->notary.n_modes; m++)
            have_base |= !strcmp(p->notary.modes[m], "no_tee");
        for (int m = 0; m < p->notary.n_modes; m++) {
            const char *mode = p->notary.modes[m];
            int tee = strcmp(mode, "no_tee") != 0;
            SPEC(TB_WL_NOTARY, "notary.", mode, ".notarization_ms");
            SPEC(TB_WL_NOTARY, "notary.", mode, ".total_e2e_ms");
            SPEC(TB_WL_NOTARY, "notary.", mode, ".wall_ms");
            if (!strcmp(mode, "tee_verify"))
                SPEC(TB_WL_NOTARY, "notary.", mode, ".verify_ms");
            if (tee && have_base)
                SPEC(TB_WL_NOTARY, "notary.", mode, ".overhead_ms");
        }
    }
#undef SPEC
    if (rc) {
        free(v);
        return -1;
    }
    *out = v;
    *nout = n;
    return 0;
}

static const char *step_label(const tb_suite_step *s, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s%s", tb_suite_workload_name(s->workload), s->target[0] ? " " : "",
             s->target);
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
    rc |= tb_buf_printf(
        out, "  env                  the environment facts (teebench env --json), once\n");
    for (size_t i = 0; i < n; i++) {
        char what[256] = "";
        switch (st[i].workload) {
        case TB_WL_SYSCALL:
            snprintf(what, sizeof what, "UnixBench System Call Overhead, mode %s, %d x %g s, %s",
                     p->syscall.mode, p->syscall.passes, p->syscall.duration_s,
                     strcmp(st[i].target, "c1") ? "copies = the CPUs online" : "1 copy");
            break;
        case TB_WL_PROBE: {
            size_t all;
            tb_probe_all(&all);
            size_t np = p->probe.n ? (size_t)p->probe.n : all;
            if (p->probe.max_reps)
                snprintf(what, sizeof what, "%zu probe%s, at most %u samples each", np,
                         np == 1 ? "" : "s", p->probe.max_reps);
            else
                snprintf(what, sizeof what, "%zu probe%s, each with its default samples", np,
                         np == 1 ? "" : "s");
            break;
        }
        case TB_WL_HTTP:
            snprintf(what, sizeof what, "-t%d -c%d -d%gs%s against %s", p->http.threads,
                     p->http.connections, p->http.duration_s,
                     p->http.warmup_s > 0 ? " (after a warm-up)" : "",
                     strcmp(st[i].target, "nginx") ? "teebench serve --tls (HTTPS)"
                                                   : "nginx (plain HTTP)");
            break;
        case TB_WL_ATTEST:
            snprintf(what, sizeof what,
                     "provider %s: %d quotes; %d verifications prepared and from scratch",
                     p->attest.provider, p->attest.quotes, p->attest.iterations);
            break;
        case TB_WL_NOTARY: {
            size_t k = 0;
            k += (size_t)snprintf(what + k, sizeof what - k, "bench notary: %d iterations x",
                                  p->notary.iterations);
            for (int m = 0; m < p->notary.n_modes && k < sizeof what; m++)
                k += (size_t)snprintf(what + k, sizeof what - k, " %s", p->notary.modes[m]);
            break;
        }
        default:
            break;
        }
        fmt_duration(st[i].estimate_s, est, sizeof est);
        rc |= tb_buf_printf(out, "  %-20s %s (~%s per round)\n",
                            step_label(&st[i], lbl, sizeof lbl), what, est);
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
