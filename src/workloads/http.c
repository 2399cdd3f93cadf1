/* workloads/http: the http workload -- wrk-style HTTP/1.1 load against a web server.
 *
 * Metrics, per target (the server loaded: nginx, serve-tls, or what an imported
 * document is named for): req/s, the latency percentiles with wrk's
 * coordinated-omission correction (and without it, when a document has them),
 * bytes/s. */
#include "workloads/http.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "net/url.h"
#include "serve/nginx.h"

_Static_assert(sizeof(tb_wl_http_params) <= TB_WL_PARAMS_MAX, "room in the plan");

#define P(f) TB_WLP_FIELD(tb_wl_http_params, f)

static int target(void *ctx, const char *t, tb_err *err)
{
    tb_wl_http_params *h = ctx;
    if (!strcmp(t, "nginx"))
        h->nginx = 1;
    else if (!strcmp(t, "serve-tls"))
        h->serve_tls = 1;
    else
        return tb_errf(err, "unknown target '%.40s' (nginx, serve-tls)", t);
    return 0;
}

static int parse_targets(void *params, const char *key, const char *v, tb_err *err)
{
    tb_wl_http_params *h = params;
    h->nginx = h->serve_tls = 0;
    return tb_wl_each_token(key, v, target, h, err);
}

static json_t *targets_json(const void *params)
{
    const tb_wl_http_params *h = params;
    json_t *a = json_array();
    if (a && h->nginx)
        json_array_append_new(a, json_string("nginx"));
    if (a && h->serve_tls)
        json_array_append_new(a, json_string("serve-tls"));
    return a;
}

/* "" (start nginx here) or an http:// URL of an nginx elsewhere. */
static int check_nginx_url(const char *key, const char *v, tb_err *err)
{
    tb_url u;
    if (!v[0])
        return 0;
    if (tb_url_parse(v, &u, err) < 0)
        return tb_err_wrap(err, "%s", key);
    if (u.tls)
        return tb_errf(err, "%s: '%.60s' is https (nginx is loaded over plain HTTP)", key, v);
    return 0;
}

static const tb_wl_param param_table[] = {
    {.key = "duration",
     .help = "seconds per measured run and target",
     .kind = TB_WLP_SECONDS,
     P(duration_s),
     .lo = 0.01,
     .hi = 86400,
     .def = {"1", "10", "30"}},
    {.key = "warmup",
     .help = "seconds of load per target before round 1 (0: none)",
     .kind = TB_WLP_SECONDS,
     P(warmup_s),
     .lo = 0,
     .hi = 3600,
     .def = {"200ms", "1", "0"}},
    {.key = "threads",
     .help = "load generator threads",
     .kind = TB_WLP_INT,
     P(threads),
     .lo = 1,
     .hi = 1024,
     .def = {"2", "2", "4"}},
    {.key = "connections",
     .help = "connections kept open (>= threads)",
     .kind = TB_WLP_INT,
     P(connections),
     .lo = 1,
     .hi = 100000,
     .def = {"50", "100"}},
    {.key = "timeout",
     .help = "request timeout",
     .kind = TB_WLP_SECONDS,
     P(timeout_s),
     .lo = 0.01,
     .hi = 3600,
     .def = {"2"}},
    {.key = "server_threads",
     .help = "nginx workers and fixture server threads (0: the CPUs online)",
     .kind = TB_WLP_INT,
     P(server_threads),
     .lo = 0,
     .hi = 256,
     .def = {"0"}},
    {.key = "targets",
     .help = "nginx and/or serve-tls",
     .kind = TB_WLP_CUSTOM,
     .parse = parse_targets,
     .json = targets_json,
     .def = {"nginx,serve-tls"}},
    {.key = "nginx_bin",
     .help = "the nginx binary (default " TB_NGINX_BIN ")",
     .kind = TB_WLP_TEXT,
     P(nginx_bin),
     .check = tb_wl_check_abs_path,
     .def = {TB_NGINX_BIN},
     .flags = TB_WLP_PLACE},
    {.key = "nginx_url",
     .help = "load an nginx elsewhere (http://HOST:PORT/) instead of starting one",
     .kind = TB_WLP_TEXT,
     P(nginx_url),
     .check = check_nginx_url,
     .flags = TB_WLP_PLACE | TB_WLP_UNLISTED},
};

static int check(const void *params, tb_err *err)
{
    const tb_wl_http_params *h = params;
    if (h->connections < h->threads)
        return tb_errf(err, "http.connections (%d) must be >= http.threads (%d)", h->connections,
                       h->threads);
    return 0;
}

#define LAT(p, pct)                                                                                \
    {                                                                                              \
        "http.*.latency." p, "ms", TB_WL_LOWER, TB_CAT_LATENCY, 0, NULL, pct, 0                    \
    }
#define LAT_U(p, pct)                                                                              \
    {                                                                                              \
        "http.*.latency_u." p, "ms", TB_WL_LOWER, TB_CAT_LATENCY, 0, NULL, pct, TB_WLM_UNCORRECTED \
    }

static const tb_wl_metric metrics[] = {
    {"http.*.rps", "req/s", TB_WL_HIGHER, TB_CAT_THROUGHPUT, 0, NULL, 0, 0},
    LAT("p50", 50),
    LAT("p90", 90),
    LAT("p99", 99),
    LAT("p99.9", 99.9),
    LAT("p99.99", 99.99),
    LAT("p99.999", 99.999),
    LAT_U("p50", 50),
    LAT_U("p90", 90),
    LAT_U("p99", 99),
    LAT_U("p99.9", 99.9),
    LAT_U("p99.99", 99.99),
    LAT_U("p99.999", 99.999),
    {"http.*.transfer", "B/s", TB_WL_HIGHER, TB_CAT_THROUGHPUT, 0, NULL, 0, 0},
};

/* A table row's name with target in place of its "*". */
static int name_of(const tb_wl_metric *m, const char *target, char *out, size_t n)
{
    const char *star = strchr(m->name, '*');
    int k = snprintf(out, n, "%.*s%s%s", (int)(star - m->name), m->name, target, star + 1);
    return k < 0 || (size_t)k >= n ? -1 : 0;
}

static int plan_metrics(const void *params, tb_wl_name_fn emit, void *ctx)
{
    const tb_wl_http_params *h = params;
    const char *targets[2] = {h->nginx ? "nginx" : NULL, h->serve_tls ? "serve-tls" : NULL};
    char name[128];
    for (int t = 0; t < 2; t++)
        for (size_t k = 0; targets[t] && k < sizeof metrics / sizeof metrics[0]; k++)
            if (!(metrics[k].flags & TB_WLM_UNCORRECTED) &&
                (name_of(&metrics[k], targets[t], name, sizeof name) < 0 || emit(ctx, name) < 0))
                return -1;
    return 0;
}

static void services(const void *params, int enabled, tb_wl_services *want)
{
    const tb_wl_http_params *h = params;
    want->fixture = enabled && h->serve_tls;
    want->fixture_threads = h->server_threads;
}

static size_t steps(const void *params, tb_wl_step *out)
{
    const tb_wl_http_params *h = params;
    size_t n = 0;
    if (h->nginx)
        out[n++] = (tb_wl_step){"nginx", h->duration_s + 0.2};
    if (h->serve_tls)
        out[n++] = (tb_wl_step){"serve-tls", h->duration_s + 0.1};
    return n;
}

static void describe(const void *params, const char *target, char *out, size_t n)
{
    const tb_wl_http_params *h = params;
    snprintf(out, n, "-t%d -c%d -d%gs%s against %s", h->threads, h->connections, h->duration_s,
             h->warmup_s > 0 ? " (after a warm-up)" : "",
             strcmp(target, "nginx") ? "teebench serve --tls (HTTPS)" : "nginx (plain HTTP)");
}

/* nginx started (and warmed up, as the fixture server is) before round 1 */
static double setup_estimate(const void *params)
{
    const tb_wl_http_params *h = params;
    return (h->nginx ? 0.2 + h->warmup_s : 0) + (h->serve_tls ? h->warmup_s : 0);
}

const tb_workload tb_wl_http = {
    .name = "http",
    .title = "HTTP",
    .what = "closed-loop HTTP/1.1 load (wrk's) against nginx and the fixture server",
    .params_size = sizeof(tb_wl_http_params),
    .params = param_table,
    .n_params = sizeof param_table / sizeof param_table[0],
    .check = check,
    .services = services,
    .steps = steps,
    .describe = describe,
    .setup_estimate = setup_estimate,
    .metrics = metrics,
    .n_metrics = sizeof metrics / sizeof metrics[0],
    .plan_metrics = plan_metrics,
};
