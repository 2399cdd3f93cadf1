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
#include <math.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
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

static const char *const target_names[] = {"nginx", "serve-tls"};
static const size_t target_fields[] = {offsetof(tb_wl_http_params, nginx),
                                       offsetof(tb_wl_http_params, serve_tls)};
static const tb_wl_name_set target_set = {
    .what = "target", .names = target_names, .n = 2, .no_all = 1, .fields = target_fields};

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
    {"duration", "seconds per measured run and target", TB_WLP_SECONDS, P(duration_s), .lo = 0.01,
     .hi = 86400, .def = {"1", "10", "30"}},
    {"warmup", "seconds of load per target before round 1 (0: none)", TB_WLP_SECONDS, P(warmup_s),
     .lo = 0, .hi = 3600, .def = {"200ms", "1", "0"}},
    {"threads", "load generator threads", TB_WLP_INT, P(threads), .lo = 1, .hi = 1024,
     .def = {"2", "2", "4"}},
    {"connections", "connections kept open (>= threads)", TB_WLP_INT, P(connections), .lo = 1,
     .hi = 100000, .def = {"50", "100"}},
    {"timeout", "request timeout", TB_WLP_SECONDS, P(timeout_s), .lo = 0.01, .hi = 3600,
     .def = {"2"}},
    {"server_threads", "nginx workers and fixture server threads (0: the CPUs online)", TB_WLP_INT,
     P(server_threads), .lo = 0, .hi = 256, .def = {"0"}},
    {"targets", "nginx and/or serve-tls", TB_WLP_NAMES, .names = &target_set,
     .def = {"nginx,serve-tls"}},
    {"nginx_bin", "the nginx binary (default " TB_NGINX_BIN ")", TB_WLP_TEXT, P(nginx_bin),
     .check = tb_wl_check_abs_path, .def = {TB_NGINX_BIN}, .flags = TB_WLP_PLACE},
    {"nginx_url", "load an nginx elsewhere (http://HOST:PORT/) instead of starting one",
     TB_WLP_TEXT, P(nginx_url), .check = check_nginx_url, .flags = TB_WLP_PLACE | TB_WLP_UNLISTED},
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

/* ---- what `teebench http` and the suite share ---- */

int tb_wl_http_request(const tb_url *u, const char *const *headers, size_t n_headers, tb_buf *out)
{
    int has_host = 0;
    for (size_t i = 0; i < n_headers; i++)
        has_host |= !strncasecmp(headers[i], "host:", 5);
    char host[TB_URL_HOST_MAX + 16];
    if (tb_url_host_header(u, host, sizeof host) < 0)
        return -1;
    if (tb_buf_printf(out, "GET %s HTTP/1.1\r\n", u->path) < 0)
        return -1;
    if (!has_host && tb_buf_printf(out, "Host: %s\r\n", host) < 0)
        return -1;
    for (size_t i = 0; i < n_headers; i++)
        if (tb_buf_printf(out, "%s\r\n", headers[i]) < 0)
            return -1;
    return tb_buf_puts(out, "\r\n");
}

uint64_t tb_wl_http_correct(tb_load_result *r, uint64_t connections)
{
    if (!connections || r->completed / connections == 0)
        return 0;
    uint64_t interval = r->runtime_ns / (r->completed / connections);
    tb_hist_correct(&r->latency, interval);
    return interval;
}

int tb_wl_http_log_settled(const char *path, uint64_t *n, tb_err *err)
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

/* ---- the teebench-http/1 document ---- */

static json_t *hist_json(const tb_hist *h)
{
    static const struct {
        const char *key;
        double p;
    } ps[] = {{"p50", 50},     {"p75", 75},       {"p90", 90},         {"p95", 95},  {"p99", 99},
              {"p99.9", 99.9}, {"p99.99", 99.99}, {"p99.999", 99.999}, {"p100", 100}};
    double mean = tb_hist_mean(h), sd = tb_hist_stdev(h, mean);
    json_t *pj = json_object();
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
        json_object_set_new(pj, ps[i].key, json_real(tb_hist_percentile(h, ps[i].p) / 1000.0));
    return json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:o}", "count", (json_int_t)h->count,
                     "mean_us", mean / 1000.0, "stdev_us", sd / 1000.0, "min_us",
                     h->count ? h->min / 1000.0 : 0.0, "max_us", h->max / 1000.0,
                     "within_stdev_pct", tb_hist_within(h, mean, sd, 1), "percentiles_us", pj);
}

static json_t *rate_json(const tb_hist *h)
{
    double mean = tb_hist_mean(h), sd = tb_hist_stdev(h, mean);
    return json_pack("{s:I, s:f, s:f, s:I, s:f}", "samples", (json_int_t)h->count, "mean_rps", mean,
                     "stdev_rps", sd, "max_rps", (json_int_t)h->max, "within_stdev_pct",
                     tb_hist_within(h, mean, sd, 1));
}

static json_t *opt_str(const char *s)
{
    return s ? json_string(s) : json_null();
}

json_t *tb_wl_http_doc(const tb_wl_http_run *o)
{
    const tb_load_result *r = o->r;
    double rt = (double)r->runtime_ns / 1e9;
    json_t *hdrs = json_array();
    for (size_t i = 0; hdrs && i < o->n_headers; i++)
        json_array_append_new(hdrs, json_string(o->headers[i]));
    json_t *opts = json_pack(
        "{s:s, s:I, s:I, s:f, s:f, s:f, s:o, s:b, s:b, s:o, s:o, s:o, s:o, s:s, s:b}", "url",
        o->url, "threads", (json_int_t)o->threads, "connections", (json_int_t)o->connections,
        "duration_s", o->duration_s, "timeout_s", o->timeout_s, "rate_rps", o->rate_rps, "headers",
        hdrs, "latency", o->latency, "u_latency", o->u_latency, "server_name",
        opt_str(o->server_name), "cacert", opt_str(o->cacert), "connect", opt_str(o->connect),
        "server_log", opt_str(o->server_log), "target_address", o->target_address, "tls", o->tls);
    json_t *doc = json_pack(
        "{s:s, s:o, s:f, s:f, s:b, s:{s:I, s:I, s:I, s:I, s:I, s:f}, s:{s:I, s:f}, "
        "s:I, s:{s:I, s:I, s:I, s:I, s:I}, s:o, s:{s:I, s:I, s:I, s:I, s:I, s:I}}",
        "started_at", o->started_at, "options", opts, "runtime_s", rt, "setup_s",
        (double)r->setup_ns / 1e9, "stopped_early", r->stopped_early, "requests", "sent",
        (json_int_t)r->sent, "completed", (json_int_t)r->completed, "drained_after_end",
        (json_int_t)r->drained, "failed", (json_int_t)r->failed, "unfinished",
        (json_int_t)r->unfinished, "per_second", rt > 0 ? r->completed / rt : 0.0, "bytes", "read",
        (json_int_t)r->bytes, "per_second", rt > 0 ? r->bytes / rt : 0.0, "connections_opened",
        (json_int_t)r->connects, "errors", "connect", (json_int_t)r->errors.connect, "read",
        (json_int_t)r->errors.read, "write", (json_int_t)r->errors.write, "timeout",
        (json_int_t)r->errors.timeout, "status", (json_int_t)r->errors.status, "first_error",
        r->first_error[0] ? json_string(r->first_error) : json_null(), "responses_by_status", "1xx",
        (json_int_t)r->status_class[1], "2xx", (json_int_t)r->status_class[2], "3xx",
        (json_int_t)r->status_class[3], "4xx", (json_int_t)r->status_class[4], "5xx",
        (json_int_t)r->status_class[5], "other", (json_int_t)r->status_class[0]);
    if (!doc)
        return NULL;
    json_object_set_new(doc, "latency", hist_json(&r->latency));
    if (o->rate_rps > 0) {
        json_object_set_new(doc, "latency_measured_from", json_string("intended send time"));
        json_object_set_new(doc, "latency_uncorrected", hist_json(&r->latency_uncorrected));
    } else {
        json_object_set_new(doc, "latency_measured_from",
                            json_string("send time, with wrk's closed-loop correction"));
        json_object_set_new(doc, "wrk_correction_interval_us",
                            json_real(o->wrk_interval_ns / 1000.0));
        json_object_set_new(doc, "latency_uncorrected", hist_json(o->raw));
    }
    json_object_set_new(doc, "req_per_sec_per_thread", rate_json(&r->rate));
    if (o->log_on)
        json_object_set_new(
            doc, "server_log",
            json_pack("{s:s, s:I, s:I, s:I, s:I, s:b}", "file", o->server_log, "lines_before",
                      (json_int_t)o->log_before, "lines_after", (json_int_t)o->log_after,
                      "new_lines", (json_int_t)(o->log_after - o->log_before), "requests_completed",
                      (json_int_t)(r->completed + r->drained), "match", o->log_match));
    json_object_set_new(doc, "connections_up", json_integer((json_int_t)r->connections_up));
    if (o->error)
        json_object_set_new(doc, "error", json_string(o->error));
    return doc;
}

#define LAST_SECOND 253402300799LL /* 9999-12-31T23:59:59Z: four-digit years only */

/* "YYYY-MM-DDTHH:MM:SSZ" as seconds since the epoch, or -1. */
static long long iso_to_unix(const char *s)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (!end || *end)
        return -1;
    long long t = (long long)timegm(&tm);
    return t >= 0 && t <= LAST_SECOND ? t : -1;
}

/* kind: "latency" (as printed, corrected) or "latency_uncorrected": one sample per
   percentile of the table the document has (an older writer may lack some). */
static int latency_metrics(const json_t *lat, const char *target, const char *kind,
                           tb_wl_sink *sink, tb_err *err)
{
    int corrected = !strcmp(kind, "latency");
    const json_t *pct = json_object_get(lat, "percentiles_us");
    if (!json_is_object(pct))
        return tb_errf(err, "http JSON: \"%s\" has no \"percentiles_us\" object", kind);
    for (size_t k = 0; k < sizeof metrics / sizeof metrics[0]; k++) {
        const tb_wl_metric *m = &metrics[k];
        int uncorrected = (m->flags & TB_WLM_UNCORRECTED) != 0;
        if (m->category != TB_CAT_LATENCY || uncorrected == corrected)
            continue;
        const char *p = strrchr(m->name, '*') + strlen(corrected ? "*.latency." : "*.latency_u.");
        const json_t *v = json_object_get(pct, p);
        if (!v)
            continue;
        if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < 0)
            return tb_errf(err, "http JSON: %s.percentiles_us.%s is not a number >= 0", kind, p);
        char name[160], note[160];
        double ms = json_number_value(v) / 1000.0;
        snprintf(name, sizeof name, "http.%s.%s.%s", target, corrected ? "latency" : "latency_u",
                 p);
        if (corrected)
            snprintf(note, sizeof note,
                     "%s latency of a request as teebench http prints it (with the "
                     "coordinated-omission correction)",
                     p);
        else
            snprintf(note, sizeof note, "%s latency from the actual send time (uncorrected)", p);
        if (tb_wl_sample(sink, name, ms, 0, note, err) < 0)
            return -1;
    }
    return 0;
}

/* teebench-http/1 (the cli's envelope: env, teebench) or the older layout (tool,
   version, environment). The JSON does not say whether the server was nginx or
   teebench serve, and the URL's host differs between environments: the target is the
   caller's, "imported" by default. */
static int doc_read(const json_t *doc, const tb_wl_read_opts *o, tb_wl_sink *sink,
                    tb_wl_doc_info *info, tb_err *err)
{
    char target[64], name[160];
    tb_wl_name_part(o && o->target ? o->target : "imported", target, sizeof target);
    double rps, bps;
    if (tb_wl_doc_number(doc, "http JSON", "requests", "per_second", &rps, err) < 0 ||
        tb_wl_doc_number(doc, "http JSON", "bytes", "per_second", &bps, err) < 0)
        return -1;
    const json_t *lat = json_object_get(doc, "latency"),
                 *ulat = json_object_get(doc, "latency_uncorrected");
    if (!json_is_object(lat))
        return tb_errf(err, "http JSON: missing \"latency\"");
    snprintf(name, sizeof name, "http.%s.rps", target);
    if (tb_wl_sample(sink, name, rps, 0,
                     "completed requests per second (teebench http --json requests.per_second)",
                     err) < 0 ||
        latency_metrics(lat, target, "latency", sink, err) < 0)
        return -1;
    if (json_is_object(ulat) && latency_metrics(ulat, target, "latency_uncorrected", sink, err) < 0)
        return -1;
    snprintf(name, sizeof name, "http.%s.transfer", target);
    if (tb_wl_sample(sink, name, bps, 0,
                     "bytes read per second (headers and bodies), wrk's Transfer/sec", err) < 0)
        return -1;
    const char *url = json_string_value(json_object_get(json_object_get(doc, "options"), "url"));
    if (url)
        tb_wl_fact(sink, "url", json_string(url));
    tb_wl_doc_envelope(doc, info);
    if (!info->env)
        info->env = json_object_get(doc, "environment");
    if (!info->version)
        info->version = json_string_value(json_object_get(doc, "version"));
    const char *st = json_string_value(json_object_get(doc, "started_at"));
    long long t0 = st ? iso_to_unix(st) : -1;
    if (t0 < 0)
        return 0; /* the reader's caller knows better (a file's time) */
    tb_utc_iso8601(t0, info->started, sizeof info->started);
    double runtime = 0;
    const json_t *rt = json_object_get(doc, "runtime_s");
    if (json_is_number(rt) && isfinite(json_number_value(rt)) && json_number_value(rt) >= 0 &&
        json_number_value(rt) < 1e9)
        runtime = json_number_value(rt);
    if (t0 + (long long)ceil(runtime) <= LAST_SECOND)
        tb_utc_iso8601(t0 + (int64_t)ceil(runtime), info->finished, sizeof info->finished);
    return 0;
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

static int start_nginx(http_state *st, tb_wl_sink *sink, tb_err *err)
{
    const tb_wl_http_params *h = st->h;
    if (access(h->nginx_bin, X_OK) < 0) {
        st->nginx_skip = 1;
        return tb_errf(err,
                       "nginx is not installed (%s: %s): install the package nginx "
                       "(apt-get install nginx, dnf install nginx; `suite run --target ... "
                       "--guest-setup` does it there)",
                       h->nginx_bin, strerror(errno));
    }
    if (tb_wl_path(sink, "nginx", st->nginx_dir, sizeof st->nginx_dir, err) < 0)
        return -1;
    int rc = -1;
    for (int attempt = 0; attempt < 3 && rc < 0; attempt++) {
        if ((st->nginx_port = tb_sock_free_port(err)) < 0)
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
    http_state *st = tb_wl_state_new(sizeof *st, state, err);
    if (!st)
        return -1;
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

/* Whether target's server is there: TB_WL_OK, or SKIPPED / FAILED with the reason. */
static int step_ready(const http_state *st, int tls, tb_err *err)
{
    if (!tls && !st->nginx_up) {
        tb_errf(err, "%s", st->nginx_reason);
        return st->nginx_skip ? TB_WL_SKIPPED : TB_WL_FAILED;
    }
    const tb_wl_fixture *fx = st->env->fixture;
    if (tls && !fx->up)
        return tb_errf(err, "%s", fx->reason), TB_WL_FAILED;
    return TB_WL_OK;
}

/* The URL a step loads: the plan's http.nginx_url (remote), or the server started here --
   nginx, or the fixture server for serve-tls. */
static void step_url(const http_state *st, int tls, int remote, char *url, size_t n)
{
    if (remote)
        snprintf(url, n, "%s", st->h->nginx_url);
    else
        snprintf(url, n, "%s://127.0.0.1:%d/", tls ? "https" : "http",
                 tls ? st->env->fixture->port : st->nginx_port);
}

/* The load generator's options for u's server (its address, TLS against the fixture CA)
   with the plan's threads, connections and timeouts; the request it sends into req
   (caller clears). 0, or -1 with err. */
static int load_opts(http_state *st, int tls, const tb_url *u, tb_wl_sink *sink, tb_buf *req,
                     tb_load_opts *lo, tb_err *err)
{
    const tb_wl_http_params *h = st->h;
    if (tb_addr_resolve(u->host, u->port, &lo->addr, err) < 0)
        return -1;
    if (tls && !st->tls && !(st->tls = tb_tls_client_ctx_new(st->env->fixture->ca, err)))
        return -1;
    if (tb_wl_http_request(u, NULL, 0, req) < 0)
        return tb_errf(err, "http: the request: out of memory or a host too long");
    lo->tls = tls ? st->tls : NULL;
    lo->sni = TB_PKI_SERVER_NAME;
    lo->request = req->p;
    lo->request_len = req->len;
    lo->threads = (uint32_t)h->threads;
    lo->connections = (uint32_t)h->connections;
    lo->timeout_ns = (uint64_t)(h->timeout_s * 1e9);
    lo->drain_ns = lo->timeout_ns < 2000000000ull ? lo->timeout_ns : 2000000000ull;
    lo->stop_flag = sink->stop;
    return 0;
}

/* The plan's warm-up, once per kind of server (plain, TLS), before its first measured
   run: TB_WL_OK, TB_WL_FAILED with err, or TB_WL_CANCELLED. */
static int warm_up(http_state *st, int tls, tb_load_opts *lo, tb_wl_sink *sink, tb_err *err)
{
    const tb_wl_http_params *h = st->h;
    if (!(h->warmup_s > 0) || st->warmed[tls])
        return TB_WL_OK;
    st->warmed[tls] = 1;
    lo->duration_ns = (uint64_t)(h->warmup_s * 1e9);
    tb_load_result r;
    if (tb_load_run(lo, &r, err) < 0)
        return TB_WL_FAILED;
    tb_load_result_clear(&r);
    return tb_wl_stopped(sink) ? TB_WL_CANCELLED : TB_WL_OK;
}

/* The requests that failed in a run, as a warning of target's round. */
static void warn_errors(const tb_load_result *r, const char *target, int round, tb_wl_sink *sink)
{
    const tb_load_errors *e = &r->errors;
    if (!(e->connect || e->read || e->write || e->timeout || e->status))
        return;
    char why[TB_ERR_MAX];
    snprintf(why, sizeof why,
             "errors: connect %llu, read %llu, write %llu, timeout %llu, status %llu%s%.200s",
             (unsigned long long)e->connect, (unsigned long long)e->read,
             (unsigned long long)e->write, (unsigned long long)e->timeout,
             (unsigned long long)e->status, r->first_error[0] ? "; first: " : "", r->first_error);
    tb_wl_problem(sink, TB_WL_WARN, target, round, why);
}

/* nginx's access log (logpath, before lines before the run) against the requests the run
   completed and drained: a warning of target's round when they differ. */
static void warn_access_log(const tb_load_result *r, const char *logpath, uint64_t before,
                            const char *target, int round, tb_wl_sink *sink)
{
    tb_err le;
    uint64_t after = 0;
    if (tb_wl_http_log_settled(logpath, &after, &le) < 0 ||
        after - before == r->completed + r->drained)
        return;
    char why[256];
    snprintf(why, sizeof why, "nginx access log: %llu new lines for %llu completed requests",
             (unsigned long long)(after - before), (unsigned long long)(r->completed + r->drained));
    tb_wl_problem(sink, TB_WL_WARN, target, round, why);
}

/* The measured run of target (the access log checked for nginx started here): its
   samples, and warnings for what makes them doubtful. TB_WL_OK, TB_WL_FAILED with err,
   or TB_WL_CANCELLED. */
static int measure(http_state *st, const char *target, int round, int tls, int remote,
                   tb_load_opts *lo, tb_wl_sink *sink, tb_err *err)
{
    const tb_wl_http_params *h = st->h;
    char logpath[PATH_MAX];
    uint64_t before = 0;
    int check_log = !tls && !remote &&
                    tb_nginx_path(st->nginx_dir, "access.log", logpath, sizeof logpath, err) == 0 &&
                    tb_wl_http_log_settled(logpath, &before, err) == 0;
    lo->duration_ns = (uint64_t)(h->duration_s * 1e9);
    tb_load_result r;
    if (tb_load_run(lo, &r, err) < 0)
        return TB_WL_FAILED;
    int rc = TB_WL_OK;
    if (tb_wl_stopped(sink) || r.stopped_early) {
        rc = TB_WL_CANCELLED;
    } else if (r.completed == 0) {
        tb_errf(err, "no request completed%s%s", r.first_error[0] ? ": " : "", r.first_error);
        rc = TB_WL_FAILED;
    } else {
        tb_wl_http_correct(&r, (uint64_t)h->connections); /* as teebench http applies it */
        if (add_samples(h, sink, target,
                        remote ? "on another machine than the server (over the network)"
                               : "on the same machine",
                        &r, err) < 0)
            rc = TB_WL_FAILED;
        if (rc == TB_WL_OK)
            warn_errors(&r, target, round, sink);
        if (rc == TB_WL_OK && check_log)
            warn_access_log(&r, logpath, before, target, round, sink);
    }
    tb_load_result_clear(&r);
    return rc;
}

static int step(void *state, const char *target, int round, tb_wl_sink *sink, tb_err *err)
{
    http_state *st = state;
    int tls = !strcmp(target, "serve-tls");
    int rc = step_ready(st, tls, err);
    if (rc != TB_WL_OK)
        return rc;
    int remote = !tls && st->nginx_remote; /* the plan's http.nginx_url */
    char url[300];
    step_url(st, tls, remote, url, sizeof url);
    tb_url u;
    if (tb_url_parse(url, &u, err) < 0)
        return TB_WL_FAILED;
    http_command(st, sink, tls, url);
    tb_load_opts lo = {0};
    tb_buf req = {0};
    rc = load_opts(st, tls, &u, sink, &req, &lo, err) < 0 ? TB_WL_FAILED
                                                          : warm_up(st, tls, &lo, sink, err);
    if (rc == TB_WL_OK)
        rc = measure(st, target, round, tls, remote, &lo, sink, err);
    tb_buf_clear(&req);
    return rc;
}

const tb_workload tb_wl_http = {
    .name = "http",
    .title = "HTTP",
    .what = "closed-loop HTTP/1.1 load (wrk's) against nginx and the fixture server",
    TB_WL_PARAM_TABLE(tb_wl_http_params, param_table),
    .check = check,
    .services = services,
    .steps = steps,
    .describe = describe,
    .setup_estimate = setup_estimate,
    .setup = setup,
    .step = step,
    .cleanup = cleanup,
    TB_WL_METRIC_TABLE(metrics),
    .plan_metrics = plan_metrics,
    .doc_schema = TB_WL_HTTP_SCHEMA,
    .doc_tool = "teebench http",
    .doc_read = doc_read,
};
