/* workloads/http: the http workload -- load/ in process against nginx (plain HTTP,
 * the page /) and the fixture server (HTTPS with SNI test-server.io, the same
 * 615-byte page), exactly as `teebench http -tT -cC -dD --latency URL` runs it:
 * closed loop, wrk's coordinated-omission correction of the latency histogram.
 *
 * Metrics, per target (the server loaded: nginx, serve-tls, or what an imported
 * document is named for): req/s, the latency percentiles with wrk's correction
 * (and without it, when a document has them), bytes/s. One sample per target
 * and round. For nginx the access log must have grown by one line per completed
 * request (the source document's check); a mismatch is a warning.
 *
 * Setup starts nginx in the work directory (or takes http.nginx_url's, started
 * elsewhere: the server side of --http-client local); a missing nginx makes the
 * nginx steps skipped with the package to install. The TLS client context is
 * made once. Cleanup stops nginx and frees both. */
#include "workloads/http.h"

#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/proc.h"
#include "load/load.h"
#include "load/logcount.h"
#include "net/sock.h"
#include "net/tls.h"
#include "net/url.h"
#include "serve/nginx.h"
#include "serve/pki.h"
#include "stats/hist.h"

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

/* ---- the suite's steps ---- */

typedef struct http_state {
    const tb_wl_http_params *h;
    const tb_wl_env *env;
    tb_tls_ctx *tls; /* made on the first HTTPS step */
    int warmed[2];   /* by tls: the target's warm-up is done */
    int nginx_up, nginx_port;
    int nginx_remote; /* http.nginx_url: nginx runs elsewhere, loaded, never started here */
    int nginx_skip;   /* 1: not installed (skipped); 0: it failed */
    char nginx_dir[PATH_MAX];
    char nginx_reason[TB_ERR_MAX]; /* why it is not up */
} http_state;

/* The access log's line count once it stops moving (nginx writes a line when
   it has sent the response; at most ~1 s). */
static int log_settled(const char *path, uint64_t *n, tb_err *err)
{
    uint64_t prev = UINT64_MAX;
    for (int i = 0; i < 20; i++) {
        if (tb_log_count_lines(path, n, err) < 0)
            return -1;
        if (*n == prev)
            return 0;
        prev = *n;
        tb_sleep_ns(50000000);
    }
    return 0;
}

/* "nginx/1.22.1" from `nginx -v` (it prints "nginx version: nginx/1.22.1" on stderr). */
static void nginx_version(const tb_wl_http_params *h, tb_wl_sink *sink, char *out, size_t n)
{
    out[0] = 0;
    tb_err e;
    int fd;
    if (access(h->nginx_bin, X_OK) < 0 || (fd = tb_wl_create(sink, "nginx-version.txt", &e)) < 0)
        return;
    char *argv[] = {(char *)h->nginx_bin, "-v", NULL};
    tb_proc_opts o = {.argv = argv, .stdout_fd = fd, .stderr_fd = fd};
    tb_proc_result r;
    int rc = tb_proc_run(&o, 5000, NULL, &r, &e);
    close(fd);
    if (rc < 0 || r.exit_code != 0)
        return;
    tb_buf b = {0};
    if (tb_wl_read(sink, "nginx-version.txt", 4096, &b, &e) == 0 && b.p) {
        char *s = (char *)b.p, *v = strstr(s, "version: ");
        v = v ? v + 9 : s;
        v[strcspn(v, "\r\n")] = 0;
        snprintf(out, n, "%s", v);
    }
    tb_buf_clear(&b);
}

static int pick_free_port(tb_err *err)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return tb_errno(err, "socket");
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int rc = bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
                     getsockname(fd, (struct sockaddr *)&a, &len) == 0
                 ? ntohs(a.sin_port)
                 : tb_errno(err, "picking a free port");
    close(fd);
    return rc;
}

static int start_nginx(http_state *st, tb_wl_sink *sink, tb_err *err)
{
    const tb_wl_http_params *h = st->h;
    if (access(h->nginx_bin, X_OK) < 0) {
        st->nginx_skip = 1;
        return tb_errf(err,
                       "nginx is not installed (%s: %s; install the Debian package "
                       "nginx-light or nginx)",
                       h->nginx_bin, strerror(errno));
    }
    if (tb_wl_path(sink, "nginx", st->nginx_dir, sizeof st->nginx_dir, err) < 0)
        return -1;
    int rc = -1;
    for (int attempt = 0; attempt < 3 && rc < 0; attempt++) {
        if ((st->nginx_port = pick_free_port(err)) < 0)
            return -1;
        tb_nginx_opts o = {.dir = st->nginx_dir,
                           .addr = "127.0.0.1",
                           .port = st->nginx_port,
                           .workers = st->env->server_threads,
                           .nginx = h->nginx_bin};
        rc = tb_nginx_start(&o, 10000, NULL, err);
    }
    if (rc < 0)
        return tb_err_wrap(err, "starting nginx");
    char port[16], workers[16];
    snprintf(port, sizeof port, "%d", st->nginx_port);
    snprintf(workers, sizeof workers, "%d", st->env->server_threads);
    char *argv[] = {(char *)st->env->exe, "nginx", "start", "--dir", st->nginx_dir, "--port", port,
                    "--workers",          workers, NULL};
    tb_wl_command(sink, argv);
    st->nginx_up = 1;
    return 0;
}

static int setup(const void *params, const tb_wl_env *env, tb_wl_sink *sink, void **state,
                 tb_err *err)
{
    http_state *st = calloc(1, sizeof *st);
    if (!st)
        return tb_errf(err, "out of memory");
    *state = st;
    st->h = params;
    st->env = env;
    const tb_wl_http_params *h = st->h;
    if (!h->nginx)
        return 0;
    char nv[256];
    nginx_version(h, sink, nv, sizeof nv);
    tb_wl_version(sink, "nginx", nv[0] ? nv : "not installed");
    tb_err e;
    if (h->nginx_url[0]) {
        st->nginx_remote = st->nginx_up = 1;
        tb_wl_info(sink, "nginx at %s (not started here: the load generator is this machine)",
                   h->nginx_url);
    } else if (start_nginx(st, sink, &e) < 0) {
        snprintf(st->nginx_reason, sizeof st->nginx_reason, "%s", e.msg);
    } else {
        tb_wl_info(sink, "nginx on 127.0.0.1:%d, %d worker%s (run dir %s)", st->nginx_port,
                   env->server_threads, env->server_threads == 1 ? "" : "s", st->nginx_dir);
    }
    return 0;
}

static void cleanup(void *state, tb_wl_sink *sink)
{
    http_state *st = state;
    tb_err e;
    if (st->nginx_up && !st->nginx_remote && tb_nginx_stop(st->nginx_dir, 5000, &e) < 0)
        tb_wl_problem(sink, TB_WL_WARN, "nginx", 0, e.msg);
    tb_tls_ctx_free(st->tls);
    free(st);
}

static void http_command(http_state *st, tb_wl_sink *sink, int tls, const char *url)
{
    const tb_wl_http_params *h = st->h;
    char t[16], cc[16], d[32], to[32];
    snprintf(t, sizeof t, "-t%d", h->threads);
    snprintf(cc, sizeof cc, "-c%d", h->connections);
    char dd[24];
    tb_wl_fmt_duration(h->duration_s, dd, sizeof dd);
    snprintf(d, sizeof d, "-d%s", dd);
    tb_wl_fmt_duration(h->timeout_s, to, sizeof to);
    char *exe = (char *)st->env->exe, *ca = (char *)st->env->fixture->ca;
    char *plain[] = {exe, "http", t, cc, d, "--timeout", to, "--latency", (char *)url, NULL};
    char *https[] = {exe,
                     "http",
                     t,
                     cc,
                     d,
                     "--timeout",
                     to,
                     "--latency",
                     "--cacert",
                     ca,
                     "--server-name",
                     TB_PKI_SERVER_NAME,
                     (char *)url,
                     NULL};
    tb_wl_command(sink, tls ? https : plain);
}

static int add_samples(const tb_wl_http_params *h, tb_wl_sink *sink, const char *target,
                       const char *where, tb_load_result *r, tb_err *err)
{
    static const struct {
        const char *name;
        double p;
    } q[] = {{"p50", 50},     {"p90", 90},       {"p99", 99},
             {"p99.9", 99.9}, {"p99.99", 99.99}, {"p99.999", 99.999}};
    double rt = (double)r->runtime_ns / 1e9;
    char name[96], note[256];
    snprintf(note, sizeof note,
             "completed requests per second, -t%d -c%d for %g s (closed loop, like wrk), load "
             "generator %s",
             h->threads, h->connections, h->duration_s, where);
    snprintf(name, sizeof name, "http.%s.rps", target);
    if (tb_wl_sample(sink, name, (double)r->completed / rt, 0, note, err) < 0)
        return -1;
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        snprintf(name, sizeof name, "http.%s.latency.%s", target, q[i].name);
        snprintf(note, sizeof note,
                 "%s latency of a request, with wrk's closed-loop correction (as teebench http "
                 "--latency prints it)",
                 q[i].name);
        if (tb_wl_sample(sink, name, (double)tb_hist_percentile(&r->latency, q[i].p) / 1e6, 0, note,
                         err) < 0)
            return -1;
    }
    snprintf(name, sizeof name, "http.%s.transfer", target);
    return tb_wl_sample(sink, name, (double)r->bytes / rt, 0,
                        "bytes read per second (headers and bodies), wrk's Transfer/sec", err);
}

static int step(void *state, const char *target, int round, tb_wl_sink *sink, tb_err *err)
{
    http_state *st = state;
    const tb_wl_http_params *h = st->h;
    int tls = !strcmp(target, "serve-tls");
    if (!tls && !st->nginx_up) {
        tb_errf(err, "%s", st->nginx_reason);
        return st->nginx_skip ? TB_WL_SKIPPED : TB_WL_FAILED;
    }
    const tb_wl_fixture *fx = st->env->fixture;
    if (tls && !fx->up)
        return tb_errf(err, "%s", fx->reason), TB_WL_FAILED;
    int remote = !tls && st->nginx_remote; /* the plan's http.nginx_url */
    int port = tls ? fx->port : st->nginx_port;
    char ps[16], url[300], host[300], hosthdr[300];
    tb_url u;
    if (remote) {
        if (tb_url_parse(h->nginx_url, &u, err) < 0)
            return TB_WL_FAILED;
        if (tb_url_host_header(&u, hosthdr, sizeof hosthdr) < 0) {
            tb_errf(err, "http.nginx_url: host too long");
            return TB_WL_FAILED;
        }
        snprintf(ps, sizeof ps, "%s", u.port);
        snprintf(host, sizeof host, "%s", u.host);
        snprintf(url, sizeof url, "%s", h->nginx_url);
    } else {
        snprintf(ps, sizeof ps, "%d", port);
        snprintf(host, sizeof host, "127.0.0.1");
        snprintf(hosthdr, sizeof hosthdr, "127.0.0.1:%d", port);
        snprintf(url, sizeof url, "%s://127.0.0.1:%d/", tls ? "https" : "http", port);
    }
    http_command(st, sink, tls, url);
    tb_load_opts lo = {0};
    if (tb_addr_resolve(host, ps, &lo.addr, err) < 0)
        return TB_WL_FAILED;
    if (tls && !st->tls && !(st->tls = tb_tls_client_ctx_new(fx->ca, err)))
        return TB_WL_FAILED;
    tb_buf req = {0};
    if (tb_buf_printf(&req, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", remote ? u.path : "/", hosthdr) <
        0) {
        tb_errf(err, "out of memory");
        return TB_WL_FAILED;
    }
    lo.tls = tls ? st->tls : NULL;
    lo.sni = TB_PKI_SERVER_NAME;
    lo.request = req.p;
    lo.request_len = req.len;
    lo.threads = (uint32_t)h->threads;
    lo.connections = (uint32_t)h->connections;
    lo.timeout_ns = (uint64_t)(h->timeout_s * 1e9);
    lo.drain_ns = lo.timeout_ns < 2000000000ull ? lo.timeout_ns : 2000000000ull;
    lo.stop_flag = sink->stop;
    tb_load_result r;
    int rc_st = TB_WL_OK;
    if (h->warmup_s > 0 && !st->warmed[tls]) {
        st->warmed[tls] = 1;
        lo.duration_ns = (uint64_t)(h->warmup_s * 1e9);
        if (tb_load_run(&lo, &r, err) < 0) {
            tb_buf_clear(&req);
            return TB_WL_FAILED;
        }
        tb_load_result_clear(&r);
        if (tb_wl_stopped(sink)) {
            tb_buf_clear(&req);
            return TB_WL_CANCELLED;
        }
    }
    char logpath[PATH_MAX];
    uint64_t before = 0, after = 0;
    int check_log = !tls && !remote &&
                    tb_nginx_path(st->nginx_dir, "access.log", logpath, sizeof logpath, err) == 0 &&
                    log_settled(logpath, &before, err) == 0;
    lo.duration_ns = (uint64_t)(h->duration_s * 1e9);
    int rc = tb_load_run(&lo, &r, err);
    tb_buf_clear(&req);
    if (rc < 0)
        return TB_WL_FAILED;
    if (tb_wl_stopped(sink) || r.stopped_early) {
        tb_load_result_clear(&r);
        return TB_WL_CANCELLED;
    }
    if (r.completed == 0) {
        tb_errf(err, "no request completed%s%s", r.first_error[0] ? ": " : "", r.first_error);
        tb_load_result_clear(&r);
        return TB_WL_FAILED;
    }
    /* wrk's closed-loop correction, as teebench http applies it */
    if (r.completed / h->connections > 0)
        tb_hist_correct(&r.latency, r.runtime_ns / (r.completed / h->connections));
    if (add_samples(h, sink, target,
                    remote ? "on another machine than the server (over the network)"
                           : "on the same machine",
                    &r, err) < 0)
        rc_st = TB_WL_FAILED;
    const tb_load_errors *e = &r.errors;
    if (rc_st == TB_WL_OK && (e->connect || e->read || e->write || e->timeout || e->status)) {
        char why[TB_ERR_MAX];
        snprintf(why, sizeof why,
                 "errors: connect %llu, read %llu, write %llu, timeout %llu, status %llu%s%.200s",
                 (unsigned long long)e->connect, (unsigned long long)e->read,
                 (unsigned long long)e->write, (unsigned long long)e->timeout,
                 (unsigned long long)e->status, r.first_error[0] ? "; first: " : "", r.first_error);
        tb_wl_problem(sink, TB_WL_WARN, target, round, why);
    }
    tb_err le;
    if (rc_st == TB_WL_OK && check_log && log_settled(logpath, &after, &le) == 0 &&
        after - before != r.completed + r.drained) {
        char why[256];
        snprintf(why, sizeof why, "nginx access log: %llu new lines for %llu completed requests",
                 (unsigned long long)(after - before),
                 (unsigned long long)(r.completed + r.drained));
        tb_wl_problem(sink, TB_WL_WARN, target, round, why);
    }
    tb_load_result_clear(&r);
    return rc_st;
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
    .setup = setup,
    .step = step,
    .cleanup = cleanup,
    .metrics = metrics,
    .n_metrics = sizeof metrics / sizeof metrics[0],
    .plan_metrics = plan_metrics,
};
