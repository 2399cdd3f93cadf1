/* suite/wl_http: the http workload -- load/ in process against nginx (plain
 * HTTP, the page /) and the fixture server (HTTPS with SNI test-server.io, the
 * same 615-byte page), exactly as `teebench http -tT -cC -dD --latency URL`
 * runs it: closed loop, wrk's coordinated-omission correction of the latency
 * histogram. One sample per target and round of req/s, bytes/s and the
 * latency quantiles. For nginx the access log must have grown by one line per
 * completed request (the source document's check); a mismatch is a warning.
 * The TLS client context is made once (freed by suite_http_cleanup). */
#include "suite/internal.h"

#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/clock.h"
#include "load/load.h"
#include "load/logcount.h"
#include "net/url.h"
#include "net/sock.h"
#include "serve/nginx.h"
#include "serve/pki.h"
#include "stats/hist.h"

void suite_http_cleanup(suite_ctx *c)
{
    tb_tls_ctx_free(c->tls);
    c->tls = NULL;
}

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

static void http_command(suite_ctx *c, int tls, const char *url)
{
    const tb_wl_http_params *h = HTTP(c);
    char t[16], cc[16], d[32], to[32];
    snprintf(t, sizeof t, "-t%d", h->threads);
    snprintf(cc, sizeof cc, "-c%d", h->connections);
    char dd[24];
    suite_fmt_duration(h->duration_s, dd, sizeof dd);
    snprintf(d, sizeof d, "-d%s", dd);
    suite_fmt_duration(h->timeout_s, to, sizeof to);
    char *plain[] = {c->exe, "http", t, cc, d, "--timeout", to, "--latency", (char *)url, NULL};
    char *https[] = {c->exe,
                     "http",
                     t,
                     cc,
                     d,
                     "--timeout",
                     to,
                     "--latency",
                     "--cacert",
                     c->ca,
                     "--server-name",
                     TB_PKI_SERVER_NAME,
                     (char *)url,
                     NULL};
    suite_command(c, tls ? https : plain);
}

static int add_samples(suite_ctx *c, const char *target, const char *where, tb_load_result *r,
                       tb_err *err)
{
    static const struct {
        const char *name;
        double p;
    } q[] = {{"p50", 50},     {"p90", 90},       {"p99", 99},
             {"p99.9", 99.9}, {"p99.99", 99.99}, {"p99.999", 99.999}};
    const tb_wl_http_params *h = HTTP(c);
    double rt = (double)r->runtime_ns / 1e9;
    char name[96], note[256];
    snprintf(note, sizeof note,
             "completed requests per second, -t%d -c%d for %g s (closed loop, like wrk), load "
             "generator %s",
             h->threads, h->connections, h->duration_s, where);
    snprintf(name, sizeof name, "http.%s.rps", target);
    if (suite_sample(c, name, (double)r->completed / rt, 0, note, err) < 0)
        return -1;
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        snprintf(name, sizeof name, "http.%s.latency.%s", target, q[i].name);
        snprintf(note, sizeof note,
                 "%s latency of a request, with wrk's closed-loop correction (as teebench http "
                 "--latency prints it)",
                 q[i].name);
        if (suite_sample(c, name, (double)tb_hist_percentile(&r->latency, q[i].p) / 1e6, 0, note,
                         err) < 0)
            return -1;
    }
    snprintf(name, sizeof name, "http.%s.transfer", target);
    return suite_sample(c, name, (double)r->bytes / rt, 0,
                        "bytes read per second (headers and bodies), wrk's Transfer/sec", err);
}

int suite_http_step(suite_ctx *c, const char *target, int round, tb_err *err)
{
    const tb_wl_http_params *h = HTTP(c);
    int tls = !strcmp(target, "serve-tls");
    int remote = !tls && c->nginx_remote; /* the plan's http.nginx_url */
    int port = tls ? c->fixture_port : c->nginx_port;
    char ps[16], url[300], host[300], hosthdr[300];
    tb_url u;
    if (remote) {
        if (tb_url_parse(HTTP(c)->nginx_url, &u, err) < 0)
            return ST_FAILED;
        if (tb_url_host_header(&u, hosthdr, sizeof hosthdr) < 0) {
            tb_errf(err, "http.nginx_url: host too long");
            return ST_FAILED;
        }
        snprintf(ps, sizeof ps, "%s", u.port);
        snprintf(host, sizeof host, "%s", u.host);
        snprintf(url, sizeof url, "%s", HTTP(c)->nginx_url);
    } else {
        snprintf(ps, sizeof ps, "%d", port);
        snprintf(host, sizeof host, "127.0.0.1");
        snprintf(hosthdr, sizeof hosthdr, "127.0.0.1:%d", port);
        snprintf(url, sizeof url, "%s://127.0.0.1:%d/", tls ? "https" : "http", port);
    }
    http_command(c, tls, url);
    tb_load_opts lo = {0};
    if (tb_addr_resolve(host, ps, &lo.addr, err) < 0)
        return ST_FAILED;
    if (tls && !c->tls && !(c->tls = tb_tls_client_ctx_new(c->ca, err)))
        return ST_FAILED;
    tb_buf req = {0};
    if (tb_buf_printf(&req, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", remote ? u.path : "/", hosthdr) <
        0) {
        tb_errf(err, "out of memory");
        return ST_FAILED;
    }
    lo.tls = tls ? c->tls : NULL;
    lo.sni = TB_PKI_SERVER_NAME;
    lo.request = req.p;
    lo.request_len = req.len;
    lo.threads = (uint32_t)h->threads;
    lo.connections = (uint32_t)h->connections;
    lo.timeout_ns = (uint64_t)(h->timeout_s * 1e9);
    lo.drain_ns = lo.timeout_ns < 2000000000ull ? lo.timeout_ns : 2000000000ull;
    lo.stop_flag = c->stop;
    tb_load_result r;
    int st = ST_OK;
    if (h->warmup_s > 0 && !c->warmed[tls]) {
        c->warmed[tls] = 1;
        lo.duration_ns = (uint64_t)(h->warmup_s * 1e9);
        if (tb_load_run(&lo, &r, err) < 0) {
            tb_buf_clear(&req);
            return ST_FAILED;
        }
        tb_load_result_clear(&r);
        if (suite_stopped(c)) {
            tb_buf_clear(&req);
            return ST_CANCELLED;
        }
    }
    char logpath[PATH_MAX];
    uint64_t before = 0, after = 0;
    int check_log = !tls && !remote &&
                    tb_nginx_path(c->nginx_dir, "access.log", logpath, sizeof logpath, err) == 0 &&
                    log_settled(logpath, &before, err) == 0;
    lo.duration_ns = (uint64_t)(h->duration_s * 1e9);
    int rc = tb_load_run(&lo, &r, err);
    tb_buf_clear(&req);
    if (rc < 0)
        return ST_FAILED;
    if (suite_stopped(c) || r.stopped_early) {
        tb_load_result_clear(&r);
        return ST_CANCELLED;
    }
    if (r.completed == 0) {
        tb_errf(err, "no request completed%s%s", r.first_error[0] ? ": " : "", r.first_error);
        tb_load_result_clear(&r);
        return ST_FAILED;
    }
    /* wrk's closed-loop correction, as teebench http applies it */
    if (r.completed / h->connections > 0)
        tb_hist_correct(&r.latency, r.runtime_ns / (r.completed / h->connections));
    if (add_samples(c, target,
                    remote ? "on another machine than the server (over the network)"
                           : "on the same machine",
                    &r, err) < 0)
        st = ST_FAILED;
    const tb_load_errors *e = &r.errors;
    if (st == ST_OK && (e->connect || e->read || e->write || e->timeout || e->status)) {
        char why[TB_ERR_MAX];
        snprintf(why, sizeof why,
                 "errors: connect %llu, read %llu, write %llu, timeout %llu, status %llu%s%.200s",
                 (unsigned long long)e->connect, (unsigned long long)e->read,
                 (unsigned long long)e->write, (unsigned long long)e->timeout,
                 (unsigned long long)e->status, r.first_error[0] ? "; first: " : "", r.first_error);
        suite_problem(c->warnings, "http", target, round, why);
    }
    tb_err le;
    if (st == ST_OK && check_log && log_settled(logpath, &after, &le) == 0 &&
        after - before != r.completed + r.drained) {
        char why[256];
        snprintf(why, sizeof why, "nginx access log: %llu new lines for %llu completed requests",
                 (unsigned long long)(after - before),
                 (unsigned long long)(r.completed + r.drained));
        suite_problem(c->warnings, "http", target, round, why);
    }
    tb_load_result_clear(&r);
    return st;
}
