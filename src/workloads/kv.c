/* workloads/kv: the key-value workload -- redis-benchmark (Debian's redis-tools) against
 * redis-server (Debian's redis-server, 7.0: built with TLS, `--tls-port`), GET and SET
 * with pipelining, once over plain TCP and once over TLS with the fixture PKI (the
 * server certificate for test-server.io, the client trusting only the fixture CA; no
 * client certificates), the server in the environment under test.
 *
 * The parameters follow CVM_eval's memtier run where redis-benchmark has the same knob
 * (pipeline 40 and 100 connections in the seed profile; 32-byte values, memtier's
 * default); redis-benchmark counts requests, not seconds (kv.requests per test).
 *
 * Setup starts redis-server on 127.0.0.1 (a plain port and a TLS port, no persistence,
 * in the work directory) unless kv.server / kv.tls_server name one elsewhere (the server
 * side of a split run, started there with `teebench kv serve`). A redis-server that will
 * not start with TLS is started without it and the TLS steps are skipped with its
 * reason. Each step (target "plain", "tls") first checks that the server answers PING
 * -- over TLS with the certificate verified --, since redis-benchmark retries a refused
 * or untrusted connection forever; then runs redis-benchmark --csv in its own process
 * group with a timeout. A missing tool is skipped with the package to install.
 *
 * Metrics: kv.<transport>.<get|set>.rps (req/s) and .latency.p50/p95/p99 (ms, of a
 * request as redis-benchmark measures it: with pipelining, from its batch's send).
 * Invariants: the suite's samples come from the run's document through doc_read, the
 * reader `results import` uses; nothing here prints. */
#include "workloads/internal.h"
#include "workloads/kv.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/file.h"
#include "base/num.h"
#include "net/ev.h"
#include "net/sock.h"
#include "net/tls.h"
#include "serve/pki.h"

_Static_assert(sizeof(tb_wl_kv_params) <= TB_WL_PARAMS_MAX, "room in the plan");

#define P(f) TB_WLP_FIELD(tb_wl_kv_params, f)

/* ---- parameters ---- */

static const char *const transport_names[] = {"plain", "tls"};
static const size_t transport_fields[] = {offsetof(tb_wl_kv_params, plain),
                                          offsetof(tb_wl_kv_params, tls)};
static const tb_wl_name_set transport_set = {
    .what = "transport", .names = transport_names, .n = 2, .no_all = 1, .fields = transport_fields};

/* HOST:PORT ([v6]:PORT) into host and port; 0, or -1. */
static int split_hostport(const char *v, char *host, size_t n, int *port)
{
    const char *colon = strrchr(v, ':');
    if (!colon || colon == v || !colon[1])
        return -1;
    const char *h = v, *he = colon;
    if (v[0] == '[') {
        if (colon[-1] != ']')
            return -1;
        h++;
        he--;
    }
    if ((size_t)(he - h) >= n || he == h)
        return -1;
    long p;
    /* a port starts with 1-9: no sign, no leading zero or blank */
    if (colon[1] < '1' || colon[1] > '9' || tb_num_long(colon + 1, 1, 65535, &p) != TB_NUM_OK)
        return -1;
    memcpy(host, h, (size_t)(he - h));
    host[he - h] = 0;
    *port = (int)p;
    return 0;
}

static int check_hostport(const char *key, const char *v, tb_err *err)
{
    char host[256];
    int port;
    if (v[0] && split_hostport(v, host, sizeof host, &port) < 0)
        return tb_errf(err, "%s: '%.60s' is not HOST:PORT", key, v);
    return 0;
}

static int check_tool(const char *key, const char *v, tb_err *err)
{
    if (!v[0] || (strchr(v, '/') && v[0] != '/'))
        return tb_errf(err, "%s: '%.60s' is neither a name looked up in PATH nor an absolute path",
                       key, v);
    return 0;
}

static int check_abs_or_empty(const char *key, const char *v, tb_err *err)
{
    return v[0] ? tb_wl_check_abs_path(key, v, err) : 0;
}

static const tb_wl_param param_table[] = {
    {"requests", "requests per test (SET, GET) and run", TB_WLP_INT, P(requests), .lo = 100,
     .hi = 100000000, .def = {"20000", "200000", "2000000"}},
    {"clients", "connections redis-benchmark keeps open", TB_WLP_INT, P(clients), .lo = 1,
     .hi = 10000, .def = {"10", "50", "100"}},
    {"pipeline", "requests in flight per connection (1: none)", TB_WLP_INT, P(pipeline), .lo = 1,
     .hi = 1000, .def = {"16", "16", "40"}},
    {"threads", "redis-benchmark threads", TB_WLP_INT, P(threads), .lo = 1, .hi = 64,
     .def = {"1", "1", "2"}},
    {"data_size", "bytes of a SET's value", TB_WLP_INT, P(data_size), .lo = 1, .hi = 1 << 20,
     .def = {"32"}},
    {"keyspace", "random keys out of this many", TB_WLP_INT, P(keyspace), .lo = 1, .hi = 100000000,
     .def = {"100000"}},
    {"transports", "plain and/or tls", TB_WLP_NAMES, .names = &transport_set, .def = {"plain,tls"}},
    {"redis_server", "the redis-server binary (a name looked up in PATH, or a path)", TB_WLP_TEXT,
     P(server_bin), .check = check_tool, .def = {"redis-server"}, .flags = TB_WLP_PLACE},
    {"redis_benchmark", "the redis-benchmark binary (a name looked up in PATH, or a path)",
     TB_WLP_TEXT, P(bench_bin), .check = check_tool, .def = {"redis-benchmark"},
     .flags = TB_WLP_PLACE},
    {"server", "load a redis elsewhere (HOST:PORT, plain) instead of starting one", TB_WLP_TEXT,
     P(server), .check = check_hostport, .flags = TB_WLP_PLACE | TB_WLP_UNLISTED},
    {"tls_server", "load a redis elsewhere over TLS (HOST:PORT) instead of starting one",
     TB_WLP_TEXT, P(tls_server), .check = check_hostport, .flags = TB_WLP_PLACE | TB_WLP_UNLISTED},
    {"cacert", "the CA certificate of kv.tls_server (its fixture PKI's ca.pem)", TB_WLP_TEXT,
     P(cacert), .check = check_abs_or_empty, .flags = TB_WLP_PLACE | TB_WLP_UNLISTED},
};

/* ---- metrics ---- */

#define OP(op)                                                                                     \
    {"kv.*." op ".rps", "req/s", TB_WL_HIGHER, TB_CAT_KV, 0, NULL, 0, 0},                          \
        {"kv.*." op ".latency.p50", "ms", TB_WL_LOWER, TB_CAT_KV, 0, NULL, 0, 0},                  \
        {"kv.*." op ".latency.p95", "ms", TB_WL_LOWER, TB_CAT_KV, 0, NULL, 0, 0},                  \
    {                                                                                              \
        "kv.*." op ".latency.p99", "ms", TB_WL_LOWER, TB_CAT_KV, 0, NULL, 0, 0                     \
    }

static const tb_wl_metric metrics[] = {OP("set"), OP("get")};

static int plan_metrics(const void *params, tb_wl_name_fn emit, void *ctx)
{
    const tb_wl_kv_params *k = params;
    const char *tr[2] = {k->plain ? "plain" : NULL, k->tls ? "tls" : NULL};
    for (int t = 0; t < 2; t++)
        for (size_t i = 0; tr[t] && i < sizeof metrics / sizeof metrics[0]; i++) {
            char name[128];
            snprintf(name, sizeof name, "kv.%s.%s", tr[t], metrics[i].name + strlen("kv.*."));
            if (emit(ctx, name) < 0)
                return -1;
        }
    return 0;
}

/* ~150 k requests per second over TLS on a small machine, both tests */
static double run_estimate(const tb_wl_kv_params *k, int tls)
{
    return 0.2 + 2.0 * k->requests / (tls ? 150000.0 : 250000.0);
}

static size_t steps(const void *params, tb_wl_step *out)
{
    const tb_wl_kv_params *k = params;
    size_t n = 0;
    if (k->plain)
        out[n++] = (tb_wl_step){"plain", run_estimate(k, 0)};
    if (k->tls)
        out[n++] = (tb_wl_step){"tls", run_estimate(k, 1)};
    return n;
}

static void describe(const void *params, const char *target, char *out, size_t n)
{
    const tb_wl_kv_params *k = params;
    int tls = !strcmp(target, "tls");
    const char *remote = tls ? k->tls_server : k->server;
    snprintf(out, n, "redis-benchmark -t set,get -n %d -c %d -P %d -d %d%s against %s%s",
             k->requests, k->clients, k->pipeline, k->data_size, tls ? " --tls" : "",
             remote[0] ? remote : "redis-server here",
             tls ? " (TLS, fixture PKI)" : " (plain TCP)");
}

static double setup_estimate(const void *params)
{
    const tb_wl_kv_params *k = params;
    return k->server[0] && (!k->tls || k->tls_server[0]) ? 0 : 0.3;
}

/* ---- PING ---- */

static int wait_fd(int fd, int want, uint64_t deadline)
{
    uint64_t now = tb_mono_ns();
    if (now >= deadline)
        return 0;
    struct pollfd p = {fd, (short)((want & TB_EV_WRITABLE) ? POLLOUT : POLLIN), 0};
    int ms = (int)((deadline - now) / 1000000) + 1;
    int rc;
    do
        rc = poll(&p, 1, ms);
    while (rc < 0 && errno == EINTR);
    return rc;
}

/* One PING (+PONG) to host:port, over TLS when tls (verified, name sni). */
static int ping(const char *host, int port, tb_tls_ctx *tls, const char *sni, int timeout_ms,
                tb_err *err)
{
    char ps[16], where[300];
    snprintf(ps, sizeof ps, "%d", port);
    snprintf(where, sizeof where, "%s:%d%s", host, port, tls ? " (TLS)" : "");
    tb_addr a;
    int fd;
    if (tb_addr_resolve(host, ps, &a, err) < 0 || tb_sock_connect_start(&a, &fd, err) < 0)
        return tb_err_wrap(err, "redis at %s", where);
    uint64_t deadline = tb_mono_ns() + (uint64_t)timeout_ms * 1000000ull;
    if (wait_fd(fd, TB_EV_WRITABLE, deadline) <= 0) {
        close(fd);
        return tb_errf(err, "redis at %s: connecting timed out", where);
    }
    if (tb_sock_connect_result(fd, err) < 0) {
        close(fd);
        return tb_err_wrap(err, "redis at %s", where);
    }
    tb_sock s;
    if (tls) {
        if (tb_tls_sock_init_client(&s, tls, fd, sni, err) < 0)
            return tb_err_wrap(err, "redis at %s", where);
    } else {
        tb_sock_init_plain(&s, fd);
    }
    int rc = 0;
    tb_sock_status st;
    while ((st = s.ops->handshake(&s)) == TB_SOCK_RETRY)
        if (wait_fd(s.fd, s.want, deadline) <= 0)
            break;
    if (st != TB_SOCK_OK)
        rc = st == TB_SOCK_ERROR ? tb_errf(err, "redis at %s: %s", where, s.err.msg)
                                 : tb_errf(err, "redis at %s: the TLS handshake timed out", where);
    static const char req[] = "PING\r\n";
    size_t off = 0, got = 0, k;
    while (rc == 0 && off < sizeof req - 1) {
        st = s.ops->write(&s, req + off, sizeof req - 1 - off, &k);
        if (st == TB_SOCK_OK)
            off += k;
        else if (st == TB_SOCK_ERROR || wait_fd(s.fd, s.want, deadline) <= 0)
            rc = tb_errf(err, "redis at %s: sending PING: %s", where,
                         st == TB_SOCK_ERROR ? s.err.msg : "timed out");
    }
    char reply[256];
    while (rc == 0 && !memchr(reply, '\n', got)) {
        if (got == sizeof reply - 1) {
            reply[got] = 0; /* a long error ("-DENIED Redis is running in protected mode...") */
            rc = reply[0] == '-'
                     ? tb_errf(err, "redis at %s answered PING with \"%.160s...\"", where, reply)
                     : tb_errf(err, "redis at %s: a PING reply without an end", where);
            break;
        }
        st = s.ops->read(&s, reply + got, sizeof reply - 1 - got, &k);
        if (st == TB_SOCK_OK && k == 0)
            rc = tb_errf(err, "redis at %s: closed the connection before answering PING", where);
        else if (st == TB_SOCK_OK)
            got += k;
        else if (st == TB_SOCK_ERROR || wait_fd(s.fd, s.want, deadline) <= 0)
            rc = tb_errf(err, "redis at %s: no answer to PING: %s", where,
                         st == TB_SOCK_ERROR ? s.err.msg : "timed out");
    }
    if (rc == 0) {
        reply[got] = 0;
        reply[strcspn(reply, "\r\n")] = 0;
        if (strcmp(reply, "+PONG"))
            rc = tb_errf(err, "redis at %s answered PING with \"%.80s\"", where, reply);
    }
    s.ops->close(&s);
    return rc;
}

/* ---- tools ---- */

/* The word after marker in the first line `bin --version` prints ("v=" of redis-server's,
   "redis-benchmark " of redis-benchmark's). */
static void tool_version(const char *bin, const char *marker, tb_wl_sink *sink, const char *file,
                         char *out, size_t n)
{
    char path[PATH_MAX], line[256], errf[80];
    out[0] = 0;
    if (!tb_wl_find_tool(bin, path, sizeof path))
        return;
    char *argv[] = {path, "--version", NULL};
    int code = -1;
    tb_err e;
    snprintf(errf, sizeof errf, "%s.stderr.log", file);
    if (tb_wl_run_tool(sink, argv, file, errf, 10000, &code, &e) != 0 || code != 0)
        return;
    tb_buf b = {0};
    if (tb_wl_read(sink, file, 4096, &b, &e) == 0 && b.p) {
        snprintf(line, sizeof line, "%s", (char *)b.p);
        line[strcspn(line, "\r\n")] = 0;
        const char *v = strstr(line, marker);
        if (v) {
            v += strlen(marker);
            snprintf(out, n, "%.*s", (int)strcspn(v, " "), v);
        }
    }
    tb_buf_clear(&b);
}

void tb_wl_kv_bench_version(const tb_wl_kv_params *p, tb_wl_sink *sink, char *out, size_t n)
{
    tool_version(p->bench_bin, "redis-benchmark ", sink, "redis-benchmark-version.txt", out, n);
}

/* ---- the server ---- */

int tb_wl_kv_server_argv(const char *bin, const char *addr, int port, int tls_port, const char *pki,
                         const char *dir, char **argv, size_t n, char *text, size_t tn)
{
    tb_wl_words w = {argv, 0, n, text, 0, tn, 0};
    tb_wl_word(&w, "%s", bin);
    tb_wl_word(&w, "--port");
    tb_wl_word(&w, "%d", port);
    tb_wl_word(&w, "--bind");
    tb_wl_word(&w, "%s", addr);
    tb_wl_word(&w, "--save");
    tb_wl_word(&w, "%s", "");
    tb_wl_word(&w, "--appendonly");
    tb_wl_word(&w, "no");
    tb_wl_word(&w, "--daemonize");
    tb_wl_word(&w, "no");
    /* no password: clients from other hosts only with protected mode off (the fixture
       server of a split run is reached over the network) */
    tb_wl_word(&w, "--protected-mode");
    tb_wl_word(&w, "%s", strcmp(addr, "127.0.0.1") && strcmp(addr, "::1") ? "no" : "yes");
    if (dir) { /* else its log goes to stdout, and it writes no file */
        tb_wl_word(&w, "--dir");
        tb_wl_word(&w, "%s", dir);
        tb_wl_word(&w, "--logfile");
        tb_wl_word(&w, "%s/redis.log", dir);
    }
    if (pki && tls_port > 0) {
        tb_wl_word(&w, "--tls-port");
        tb_wl_word(&w, "%d", tls_port);
        tb_wl_word(&w, "--tls-cert-file");
        tb_wl_word(&w, "%s/%s", pki, TB_PKI_SERVER_CERT);
        tb_wl_word(&w, "--tls-key-file");
        tb_wl_word(&w, "%s/%s", pki, TB_PKI_SERVER_KEY);
        tb_wl_word(&w, "--tls-ca-cert-file");
        tb_wl_word(&w, "%s/%s", pki, TB_PKI_CA_CERT);
        tb_wl_word(&w, "--tls-auth-clients");
        tb_wl_word(&w, "no");
    }
    if (w.bad)
        return -1;
    argv[w.n] = NULL;
    return 0;
}

static int free_port(tb_err *err)
{
    int fd;
    if (tb_sock_listen("127.0.0.1", "0", 1, 0, &fd, err) < 0)
        return -1;
    tb_addr a = {.len = sizeof a.ss};
    int port = getsockname(fd, (struct sockaddr *)&a.ss, &a.len) == 0
                   ? ntohs(((struct sockaddr_in *)&a.ss)->sin_port)
                   : tb_errno(err, "picking a free port");
    close(fd);
    return port;
}

/* One start with these ports: 0, or -1 with err (its log's last line). */
static int start_once(const tb_wl_kv_params *p, const char *bin, const char *pki, const char *dir,
                      tb_wl_sink *sink, tb_wl_kv_server *s, tb_err *err)
{
    char *argv[48], text[8192];
    if (tb_wl_kv_server_argv(bin, "127.0.0.1", s->port, s->tls_port, pki, dir, argv,
                             sizeof argv / sizeof argv[0], text, sizeof text) < 0)
        return tb_errf(err, "redis-server's command line is too long");
    int ofd = tb_wl_create(sink, "redis-server.stdout.log", err);
    if (ofd < 0)
        return -1;
    tb_proc_opts o = {.argv = argv, .stdout_fd = ofd, .stderr_fd = ofd};
    int rc = tb_proc_spawn(&o, &s->proc, err);
    close(ofd);
    if (rc < 0)
        return tb_err_wrap(err, "redis-server");
    tb_wl_command(sink, argv);
    tb_err e = {{0}};
    for (uint64_t end = tb_mono_ns() + 10000000000ull; tb_mono_ns() < end;) { /* 10 s */
        if (!tb_proc_alive(&s->proc)) {
            char line[256];
            tb_wl_last_line(sink, "kv/redis.log", line, sizeof line);
            if (!line[0])
                tb_wl_last_line(sink, "redis-server.stdout.log", line, sizeof line);
            return tb_errf(err, "redis-server exited with code %d%s%.200s", s->proc.code,
                           line[0] ? ": " : "", line);
        }
        if (ping("127.0.0.1", s->port, NULL, NULL, 200, &e) == 0) {
            s->up = 1;
            return 0;
        }
        tb_sleep_ns(50000000);
    }
    tb_proc_stop(&s->proc, 2000);
    return tb_errf(err, "redis-server does not answer PING after 10 s: %s", e.msg);
}

int tb_wl_kv_server_start(const tb_wl_kv_params *p, int tls, tb_wl_sink *sink, tb_wl_kv_server *s,
                          int *skip, tb_err *err)
{
    memset(s, 0, sizeof *s);
    s->proc.pid = s->proc.pidfd = -1;
    *skip = 0;
    char bin[PATH_MAX], dir[PATH_MAX], pki[PATH_MAX];
    if (!tb_wl_find_tool(p->server_bin, bin, sizeof bin))
        return *skip = 1, tb_errf(err,
                                  "redis-server is not installed (%s not found%s): install the "
                                  "package redis-server (apt-get install redis-server, dnf "
                                  "install redis)",
                                  p->server_bin, strchr(p->server_bin, '/') ? "" : " in PATH");
    tool_version(bin, "v=", sink, "redis-server-version.txt", s->version, sizeof s->version);
    int dfd = tb_dir_open_at(sink->dir_fd, sink->dir, "kv", 0700, err);
    if (dfd < 0)
        return -1;
    close(dfd);
    if (tb_wl_path(sink, "kv", dir, sizeof dir, err) < 0 ||
        tb_wl_path(sink, "kv-pki", pki, sizeof pki, err) < 0)
        return -1;
    if (tls && (tb_pki_generate_at(sink->dir_fd, sink->dir, "kv-pki", err) < 0 ||
                tb_pki_path(pki, TB_PKI_CA_CERT, s->ca, sizeof s->ca, err) < 0))
        return tb_err_wrap(err, "fixture PKI");
    tb_err e = {{0}};
    int rc = -1;
    for (int attempt = 0; attempt < 3 && rc < 0; attempt++) {
        if ((s->port = free_port(err)) < 0 || (tls && (s->tls_port = free_port(err)) < 0))
            return -1;
        rc = start_once(p, bin, tls ? pki : NULL, dir, sink, s, &e);
    }
    if (rc < 0 && tls) { /* TLS refused (a build without it)? Then plain alone */
        snprintf(s->tls_why, sizeof s->tls_why, "redis-server does not start with TLS: %.400s",
                 e.msg);
        s->tls_port = 0;
        if ((s->port = free_port(err)) < 0)
            return -1;
        rc = start_once(p, bin, NULL, dir, sink, s, &e);
        if (rc < 0)
            s->tls_why[0] = 0;
    }
    if (rc < 0)
        return tb_errf(err, "%s", e.msg);
    return 0;
}

void tb_wl_kv_server_stop(tb_wl_kv_server *s)
{
    if (s->up || s->proc.pid > 0)
        tb_proc_stop(&s->proc, 3000);
    s->up = 0;
}

/* ---- redis-benchmark's CSV ---- */

/* The quoted fields of one CSV line into f (at most n); their count. */
static size_t csv_fields(char *line, char **f, size_t n)
{
    size_t k = 0;
    char *p = line;
    while (*p && k < n) {
        if (*p != '"')
            return 0;
        char *end = strchr(p + 1, '"');
        if (!end)
            return 0;
        *end = 0;
        f[k++] = p + 1;
        p = end + 1;
        if (*p == ',')
            p++;
        else if (*p)
            return 0;
    }
    return k;
}

int tb_wl_kv_parse_csv(const char *text, size_t len, const char *transport, json_t **run,
                       tb_err *err)
{
    static const char *const cols[] = {"test",           "rps",
                                       "avg_latency_ms", "min_latency_ms",
                                       "p50_latency_ms", "p95_latency_ms",
                                       "p99_latency_ms", "max_latency_ms"};
    static const char *const keys[] = {"test",   "rps",    "avg_ms", "min_ms",
                                       "p50_ms", "p95_ms", "p99_ms", "max_ms"};
    enum { NC = sizeof cols / sizeof cols[0] };
    char *copy = malloc(len + 1);
    json_t *tests = json_array();
    if (!copy || !tests) {
        free(copy);
        json_decref(tests);
        return tb_errf(err, "out of memory");
    }
    memcpy(copy, text, len);
    copy[len] = 0;
    int idx[NC], header = 0, rc = 0, set = 0, get = 0;
    char *save = NULL;
    for (char *line = strtok_r(copy, "\r\n", &save); line && rc == 0;
         line = strtok_r(NULL, "\r\n", &save)) {
        if (line[0] != '"')
            continue; /* a warning, a progress line */
        char *f[16];
        size_t nf = csv_fields(line, f, 16);
        if (!header) {
            for (size_t c = 0; c < NC; c++) {
                idx[c] = -1;
                for (size_t i = 0; i < nf; i++)
                    if (!strcmp(f[i], cols[c]))
                        idx[c] = (int)i;
                if (idx[c] < 0 && rc == 0)
                    rc = tb_errf(err,
                                 "redis-benchmark CSV: no column \"%s\" in the header (a "
                                 "redis-benchmark older than 7.0 has no latency columns)",
                                 cols[c]);
            }
            header = 1;
            continue;
        }
        json_t *t = json_object();
        for (size_t c = 0; c < NC && rc == 0; c++) {
            if ((size_t)idx[c] >= nf) {
                rc = tb_errf(err, "redis-benchmark CSV: a row with %zu fields", nf);
                break;
            }
            const char *v = f[idx[c]];
            if (c == 0) {
                json_object_set_new(t, keys[c], json_string(v));
                continue;
            }
            double x;
            if (tb_num_double(v, 0, HUGE_VAL, &x) != TB_NUM_OK)
                rc =
                    tb_errf(err, "redis-benchmark CSV: %s of %.20s is \"%.20s\", not a number >= 0",
                            cols[c], f[idx[0]], v);
            else
                json_object_set_new(t, keys[c], json_real(x));
        }
        if (rc == 0 && strcasecmp(f[idx[0]], "SET") && strcasecmp(f[idx[0]], "GET"))
            rc = tb_errf(err, "redis-benchmark CSV: a test that is not SET or GET (\"%.20s\")",
                         f[idx[0]]);
        if (rc == 0) {
            set |= !strcasecmp(f[idx[0]], "SET");
            get |= !strcasecmp(f[idx[0]], "GET");
            json_array_append_new(tests, t);
        } else {
            json_decref(t);
        }
    }
    free(copy);
    if (rc == 0 && !header)
        rc = tb_errf(err, "redis-benchmark CSV: no header line (\"test\",\"rps\",...)");
    if (rc == 0 && (!set || !get))
        rc = tb_errf(err, "redis-benchmark CSV: no %s row", set ? "GET" : "SET");
    if (rc < 0) {
        json_decref(tests);
        return -1;
    }
    *run = json_pack("{s:s, s:o}", "transport", transport, "tests", tests);
    return *run ? 0 : tb_errf(err, "out of memory");
}

/* ---- a run ---- */

static int bench_argv(const tb_wl_kv_params *p, const tb_wl_kv_target *t, const char *bin,
                      char **argv, size_t n, char *text, size_t tn)
{
    tb_wl_words w = {argv, 0, n, text, 0, tn, 0};
    tb_wl_word(&w, "%s", bin);
    tb_wl_word(&w, "-h");
    tb_wl_word(&w, "%s", t->host);
    tb_wl_word(&w, "-p");
    tb_wl_word(&w, "%d", t->port);
    tb_wl_word(&w, "-c");
    tb_wl_word(&w, "%d", p->clients);
    tb_wl_word(&w, "-n");
    tb_wl_word(&w, "%d", p->requests);
    tb_wl_word(&w, "-P");
    tb_wl_word(&w, "%d", p->pipeline);
    tb_wl_word(&w, "-d");
    tb_wl_word(&w, "%d", p->data_size);
    tb_wl_word(&w, "-r");
    tb_wl_word(&w, "%d", p->keyspace);
    tb_wl_word(&w, "-t");
    tb_wl_word(&w, "set,get");
    if (p->threads > 1) {
        tb_wl_word(&w, "--threads");
        tb_wl_word(&w, "%d", p->threads);
    }
    if (t->tls) {
        tb_wl_word(&w, "--tls");
        tb_wl_word(&w, "--cacert");
        tb_wl_word(&w, "%s", t->ca);
        tb_wl_word(&w, "--sni");
        tb_wl_word(&w, "%s", t->sni);
    }
    tb_wl_word(&w, "--csv");
    if (w.bad)
        return -1;
    argv[w.n] = NULL;
    return 0;
}

int tb_wl_kv_bench(const tb_wl_kv_params *p, const tb_wl_kv_target *t, tb_wl_sink *sink,
                   json_t **run, tb_err *err)
{
    *run = NULL;
    char bin[PATH_MAX];
    if (!tb_wl_find_tool(p->bench_bin, bin, sizeof bin))
        return tb_errf(err,
                       "redis-benchmark is not installed (%s not found%s): install the package "
                       "redis-tools (apt-get install redis-tools, dnf install redis)",
                       p->bench_bin, strchr(p->bench_bin, '/') ? "" : " in PATH"),
               TB_WL_SKIPPED;
    tb_tls_ctx *tls = NULL;
    if (t->tls && !(tls = tb_tls_client_ctx_new(t->ca, err)))
        return TB_WL_FAILED;
    int rc = ping(t->host, t->port, tls, t->sni, 5000, err);
    tb_tls_ctx_free(tls);
    if (rc < 0)
        return TB_WL_FAILED;
    const char *tr = t->tls ? "tls" : "plain";
    char *argv[48], text[4096], out[64], errname[64];
    if (bench_argv(p, t, bin, argv, sizeof argv / sizeof argv[0], text, sizeof text) < 0)
        return tb_errf(err, "redis-benchmark's command line is too long"), TB_WL_FAILED;
    tb_wl_command(sink, argv);
    snprintf(out, sizeof out, "redis-benchmark-%s.csv", tr);
    snprintf(errname, sizeof errname, "redis-benchmark-%s.stderr.log", tr);
    /* 1000 requests per second at least; redis-benchmark waits forever on a server
       that stops answering */
    int64_t timeout_ms = 60000 + 2 * (int64_t)p->requests;
    char what[64];
    snprintf(what, sizeof what, "redis-benchmark (%s)", tr);
    rc = tb_wl_tool_step(sink, argv, out, errname, timeout_ms, what, 1, err);
    if (rc != TB_WL_OK)
        return rc;
    tb_buf b = {0};
    if (tb_wl_read(sink, out, 16u << 20, &b, err) < 0)
        return TB_WL_FAILED;
    rc = tb_wl_kv_parse_csv(b.p ? (const char *)b.p : "", b.len, tr, run, err);
    tb_buf_clear(&b);
    if (rc < 0)
        return TB_WL_FAILED;
    char server[300];
    snprintf(server, sizeof server, "%s:%d", t->host, t->port);
    json_object_set_new(*run, "server", json_string(server));
    return TB_WL_OK;
}

/* ---- the teebench-kv/1 document ---- */

json_t *tb_wl_kv_doc(const tb_wl_kv_params *p, const char *server_version,
                     const char *bench_version, json_t *runs)
{
    return json_pack(
        "{s:o, s:s, s:{s:i, s:i, s:i, s:i, s:i, s:i, s:[s, s]}, s:o}", "redis_server",
        server_version && server_version[0] ? json_string(server_version) : json_null(),
        "redis_benchmark", bench_version ? bench_version : "", "options", "requests", p->requests,
        "clients", p->clients, "pipeline", p->pipeline, "threads", p->threads, "data_size",
        p->data_size, "keyspace", p->keyspace, "tests", "set", "get", "runs", runs);
}

/* One run's tests (ctx: the document, whose options the notes name). */
static int read_run(const void *ctx, size_t r, const char *label, const char *t,
                    const json_t *tests, int emit, tb_wl_sink *sink, tb_err *err)
{
    (void)label;
    const json_t *opt = json_object_get(ctx, "options");
    const json_t *pl = json_object_get(opt, "pipeline"), *cl = json_object_get(opt, "clients");
    size_t i;
    const json_t *te;
    json_array_foreach(tests, i, te)
    {
        const char *name = json_string_value(json_object_get(te, "test"));
        if (!name || (strcasecmp(name, "SET") && strcasecmp(name, "GET")))
            return tb_errf(err, "kv JSON: runs[%zu].tests[%zu]: a test that is not SET or GET", r,
                           i);
        const char *op = strcasecmp(name, "SET") ? "get" : "set";
        static const struct {
            const char *key, *name, *what;
        } m[] = {
            {"rps", "rps", "requests per second"},
            {"p50_ms", "latency.p50", "median latency of a request"},
            {"p95_ms", "latency.p95", "95th percentile of the latency of a request"},
            {"p99_ms", "latency.p99", "99th percentile of the latency of a request"},
        };
        for (size_t k = 0; k < sizeof m / sizeof m[0]; k++) {
            double v;
            if (tb_wl_doc_number(te, "kv JSON", m[k].key, NULL, &v, err) < 0)
                return tb_err_wrap(err, "runs[%zu].tests[%zu]", r, i);
            if (!emit)
                continue;
            char mname[160], note[256];
            snprintf(mname, sizeof mname, "kv.%s.%s.%s", t, op, m[k].name);
            snprintf(note, sizeof note,
                     "redis-benchmark %s: %s, over %s, pipeline %lld, %lld connections", name,
                     m[k].what, strcmp(t, "tls") ? "plain TCP" : "TLS",
                     (long long)json_integer_value(pl), (long long)json_integer_value(cl));
            if (tb_wl_sample(sink, mname, v, 0, note, err) < 0)
                return -1;
        }
    }
    return 0;
}

/* teebench-kv/1: every run's tests, every member checked before the first sample. */
static int doc_read(const json_t *doc, const tb_wl_read_opts *o, tb_wl_sink *sink,
                    tb_wl_doc_info *info, tb_err *err)
{
    (void)o;
    static const tb_wl_doc_runs_spec runs = {"kv JSON", "transport", "tests", read_run};
    if (tb_wl_doc_runs(doc, &runs, doc, sink, err) < 0)
        return -1;
    tb_wl_doc_envelope_times(doc, info);
    return 0;
}

/* ---- the suite's steps ---- */

typedef struct kv_state {
    const tb_wl_kv_params *p;
    tb_wl_kv_server server;
    int skip;             /* the server is not here (why): every local step skipped ... */
    char why[TB_ERR_MAX]; /* ... or failed with it */
    char bench[64];       /* redis-benchmark's version */
} kv_state;

/* Whether the suite starts redis-server here for p's transports. */
static int wants_local(const tb_wl_kv_params *p)
{
    return (p->plain && !p->server[0]) || (p->tls && !p->tls_server[0]);
}

static int setup(const void *params, const tb_wl_env *env, tb_wl_sink *sink, void **state,
                 tb_err *err)
{
    (void)env;
    kv_state *s = tb_wl_state_new(sizeof *s, state, err);
    if (!s)
        return -1;
    s->p = params;
    s->server.proc.pid = s->server.proc.pidfd = -1;
    tb_wl_kv_bench_version(s->p, sink, s->bench, sizeof s->bench);
    tb_wl_version(sink, "redis-benchmark", s->bench[0] ? s->bench : "not installed");
    if (!wants_local(s->p))
        return 0;
    tb_err e = {{0}};
    int want_tls = s->p->tls && !s->p->tls_server[0];
    if (tb_wl_kv_server_start(s->p, want_tls, sink, &s->server, &s->skip, &e) < 0) {
        snprintf(s->why, sizeof s->why, "%s", e.msg);
        tb_wl_version(sink, "redis-server", "not installed");
        return 0;
    }
    tb_wl_version(sink, "redis-server", s->server.version);
    if (s->server.tls_port)
        tb_wl_info(sink, "redis-server %s on 127.0.0.1:%d, TLS on 127.0.0.1:%d (fixture PKI)",
                   s->server.version, s->server.port, s->server.tls_port);
    else
        tb_wl_info(sink, "redis-server %s on 127.0.0.1:%d%s", s->server.version, s->server.port,
                   s->server.tls_why[0] ? " (without TLS: see the tls step)" : "");
    return 0;
}

static int step(void *state, const char *target, int round, tb_wl_sink *sink, tb_err *err)
{
    kv_state *s = state;
    (void)round;
    int tls = !strcmp(target, "tls");
    const char *remote = tls ? s->p->tls_server : s->p->server;
    char host[256];
    tb_wl_kv_target t = {.tls = tls, .sni = TB_PKI_SERVER_NAME};
    if (remote[0]) {
        if (split_hostport(remote, host, sizeof host, &t.port) < 0)
            return tb_errf(err, "kv: '%.60s' is not HOST:PORT", remote), TB_WL_FAILED;
        t.host = host;
        t.ca = s->p->cacert;
        if (tls && !t.ca[0])
            return tb_errf(err, "kv.tls_server needs kv.cacert (the CA that signed its "
                                "certificate)"),
                   TB_WL_FAILED;
    } else {
        if (!s->server.up)
            return tb_errf(err, "%s", s->why), s->skip ? TB_WL_SKIPPED : TB_WL_FAILED;
        if (tls && !s->server.tls_port)
            return tb_errf(err, "%s", s->server.tls_why), TB_WL_SKIPPED;
        t.host = "127.0.0.1";
        t.port = tls ? s->server.tls_port : s->server.port;
        t.ca = s->server.ca;
    }
    json_t *run = NULL;
    int rc = tb_wl_kv_bench(s->p, &t, sink, &run, err);
    if (rc != TB_WL_OK)
        return rc;
    json_t *doc = tb_wl_kv_doc(s->p, s->server.version, s->bench, json_pack("[o]", run));
    tb_wl_doc_info info;
    int r = doc ? doc_read(doc, NULL, sink, &info, err) : tb_errf(err, "out of memory");
    json_decref(doc);
    return r < 0 ? TB_WL_FAILED : TB_WL_OK;
}

static void cleanup(void *state, tb_wl_sink *sink)
{
    kv_state *s = state;
    (void)sink;
    tb_wl_kv_server_stop(&s->server);
    free(s);
}

const tb_workload tb_wl_kv = {
    .name = "kv",
    .title = "Key-value (redis)",
    .what = "redis-benchmark GET and SET with pipelining against redis-server, plain TCP and TLS",
    .flags = TB_WL_NOT_QUICK,
    TB_WL_PARAM_TABLE(tb_wl_kv_params, param_table),
    .steps = steps,
    .describe = describe,
    .setup_estimate = setup_estimate,
    .setup = setup,
    .step = step,
    .cleanup = cleanup,
    TB_WL_METRIC_TABLE(metrics),
    .plan_metrics = plan_metrics,
    .doc_schema = TB_WL_KV_SCHEMA,
    .doc_read = doc_read,
};
