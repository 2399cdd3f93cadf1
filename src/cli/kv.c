/* cli/kv: `teebench kv` -- redis-benchmark GET and SET against redis-server, over plain
 * TCP and over TLS with the fixture PKI (workloads/kv: the server, the run, the CSV, the
 * document). Flags are the kv workload's parameters (--requests = kv.requests, ...) on
 * top of a profile's defaults (--profile, default standard). Without --server /
 * --tls-server it starts its own redis-server on 127.0.0.1 (in a private work directory
 * in $TMPDIR, removed at the end); with them it loads a redis elsewhere -- the client
 * here, the server in the environment under test, started there by `teebench kv serve`,
 * which execs redis-server on an address with a plain and a TLS port and the fixture PKI.
 * Text output prints each transport's tests as redis-benchmark finishes; --json prints
 * one teebench-kv/1 document at the end (`teebench results import` reads it).
 *
 * SIGINT/SIGTERM (cli/stop's flag): redis-benchmark's process group is killed, the
 * server stopped, exit 130. */
#include "cli/cli.h"
#include "cli/flags.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/json.h"
#include "base/num.h"
#include "cli/stop.h"
#include "cli/wl_run.h"
#include "serve/pki.h"
#include "workloads/kv.h"

#define CMD "kv"

/* kv's and kv serve's (told of in the text after the list). */
static void usage(FILE *f, const cli_cmd *c)
{
    (void)c;
    fprintf(
        f,
        "usage: teebench kv [--transports plain,tls] [--requests N] [--clients N] [--pipeline N]\n"
        "                   [--threads N] [--data-size BYTES] [--keyspace N]\n"
        "                   [--server HOST:PORT] [--tls-server HOST:PORT --cacert FILE]\n"
        "                   [--profile quick|standard|seed] [--json]\n"
        "       teebench kv serve [--addr ADDR] [--port P] [--tls-port P] [--pki DIR]\n\n"
        "redis-benchmark (Debian's redis-tools) -t set,get against redis-server (Debian's\n"
        "redis-server), once over plain TCP and once over TLS: requests per second and the\n"
        "latency percentiles p50, p95, p99 of SET and GET. TLS uses the fixture PKI: the\n"
        "server's certificate for test-server.io, signed by the fixture CA, which the client\n"
        "trusts alone (verified before redis-benchmark runs). Without --server/--tls-server a\n"
        "redis-server is started on 127.0.0.1 (no persistence) and stopped afterwards.\n\n");
    cli_flags_help(f, &cli_kv_cmd);
    fprintf(f,
            "\n"
            "serve: exec redis-server on ADDR (default 127.0.0.1), port P (default 6379) and TLS\n"
            "port P (default 6380; 0: no TLS) with DIR's fixture PKI (default $TEEBENCH_PKI or\n"
            "./fixture-pki; made there when missing), no persistence, its log on stdout:\n"
            "the server side of `teebench kv --server ADDR:P --tls-server ADDR:P --cacert\n"
            "DIR/ca.pem` run elsewhere.\n");
}

#define KV_HIDDEN(n, a)                                                                            \
    {                                                                                              \
        .name = n, .type = CLI_F_SETTING, .arg = a,                                                \
        .off = CLI_OFF(cli_wl_flags, set, cli_settings), .hidden = 1                               \
    }

/* --cacert, --redis-server and --redis-benchmark are told of in the usage lines. */
static const cli_flag kv_flags[] = {
    CLI_SETTING("transports", cli_wl_flags, set, "L", "plain and/or tls (default both)"),
    CLI_SETTING("requests", cli_wl_flags, set, "N", "requests per test (standard 200000)"),
    CLI_SETTING("clients", cli_wl_flags, set, "N",
                "connections (standard 50; seed 100, as CVM_eval's memtier)"),
    CLI_SETTING("pipeline", cli_wl_flags, set, "N",
                "requests in flight per connection (standard 16; seed 40)"),
    CLI_SETTING("threads", cli_wl_flags, set, "N", "redis-benchmark threads (standard 1)"),
    CLI_SETTING("data-size", cli_wl_flags, set, "B", "bytes of a SET's value (default 32)"),
    CLI_SETTING("keyspace", cli_wl_flags, set, "N", "random keys out of N (default 100000)"),
    CLI_SETTING("server", cli_wl_flags, set, "H:P",
                "a redis elsewhere (plain TCP) instead of starting one"),
    CLI_SETTING("tls-server", cli_wl_flags, set, "H:P",
                "a redis elsewhere over TLS; --cacert: the CA of its certificate"),
    KV_HIDDEN("cacert", "FILE"),
    KV_HIDDEN("redis-server", "BIN"),
    KV_HIDDEN("redis-benchmark", "BIN"),
    CLI_STR("profile", 0, cli_wl_flags, profile, "P",
            "the defaults of the suite's profile P (default standard)"),
    CLI_BOOL("json", 0, cli_wl_flags, json,
             "print one JSON document (teebench-kv/1, with the env)"),
    CLI_HELP(),
    {0}};

const cli_cmd cli_kv_cmd = {
    .name = CMD, .flags = kv_flags, .usage = usage, .max_operands = 0, .col = 19};

static int parse_args(int argc, char **argv, cli_wl_flags *a)
{
    int first;
    return cli_flags_parse(&cli_kv_cmd, argc, argv, a, &first);
}

static void print_run(const json_t *run)
{
    const char *tr = json_string_value(json_object_get(run, "transport"));
    size_t i;
    const json_t *t;
    json_array_foreach(json_object_get(run, "tests"), i, t)
    {
        printf("%-9s %-5s %14.1f %9.3f ms %9.3f ms %9.3f ms   %s\n", tr,
               json_string_value(json_object_get(t, "test")),
               json_number_value(json_object_get(t, "rps")),
               json_number_value(json_object_get(t, "p50_ms")),
               json_number_value(json_object_get(t, "p95_ms")),
               json_number_value(json_object_get(t, "p99_ms")),
               json_string_value(json_object_get(run, "server")));
    }
    fflush(stdout);
}

/* "HOST:PORT" into host, port (the parameter's check accepted it). */
static void split(const char *v, char *host, size_t n, int *port)
{
    const char *colon = strrchr(v, ':');
    const char *h = v[0] == '[' ? v + 1 : v, *he = v[0] == '[' ? colon - 1 : colon;
    snprintf(host, n, "%.*s", (int)(he - h), h);
    *port = atoi(colon + 1);
}

/* Every transport; 0, or an exit code (the error printed). */
static int run_all(const cli_wl_out *o, const tb_wl_kv_params *p, const tb_wl_kv_server *srv,
                   tb_wl_sink *sink, json_t *runs)
{
    for (int tls = 0; tls < 2; tls++) {
        if (tls ? !p->tls : !p->plain)
            continue;
        char host[256];
        tb_wl_kv_target t = {.tls = tls, .sni = TB_PKI_SERVER_NAME};
        const char *remote = tls ? p->tls_server : p->server;
        if (remote[0]) {
            split(remote, host, sizeof host, &t.port);
            t.host = host;
            t.ca = p->cacert;
        } else if (tls && !srv->tls_port) {
            if (!o->json)
                printf("%-9s skipped: %s\n", "tls", srv->tls_why);
            continue;
        } else {
            t.host = "127.0.0.1";
            t.port = tls ? srv->tls_port : srv->port;
            t.ca = srv->ca;
        }
        json_t *run = NULL;
        tb_err err = {{0}};
        int rc = tb_wl_kv_bench(p, &t, sink, &run, &err);
        rc = cli_wl_take(o, rc, run, &err, NULL, runs);
        if (rc != CLI_WL_NEXT)
            return rc;
    }
    if (json_array_size(runs) == 0)
        return cli_wl_fail(o, 1, "no transport could run");
    return 0;
}

static int bench(int argc, char **argv)
{
    cli_wl_flags a = {.profile = "standard"};
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    tb_wl_kv_params p;
    tb_err err = {{0}};
    cli_wl_out o = {.cmd = CMD, .schema = TB_WL_KV_SCHEMA, .json = a.json, .print_run = print_run};
    rc = cli_setting_apply(CMD, &tb_wl_kv, &a, &p, &err);
    if (rc < 0)
        return cli_wl_fail(&o, 1, err.msg);
    if (rc)
        return rc;
    if (p.tls && p.tls_server[0] && !p.cacert[0])
        return cli_fail_code(2, CMD,
                             "--tls-server needs --cacert (the CA that signed its "
                             "certificate)");
    cli_wl_run run;
    if (cli_wl_run_begin(CMD, &run, &err) < 0)
        return cli_wl_fail(&o, 1, err.msg);
    char bv[64];
    tb_wl_kv_server srv;
    memset(&srv, 0, sizeof srv);
    srv.proc.pid = srv.proc.pidfd = -1;
    int local = (p.plain && !p.server[0]) || (p.tls && !p.tls_server[0]), skip = 0;
    json_t *runs = json_array();
    tb_wl_kv_bench_version(&p, &run.sink, bv, sizeof bv);
    if (local &&
        tb_wl_kv_server_start(&p, p.tls && !p.tls_server[0], &run.sink, &srv, &skip, &err) < 0) {
        int stopped = cli_stopped();
        rc = cli_wl_fail(&o, stopped ? 130 : 1, stopped ? "interrupted" : err.msg);
    } else {
        if (!o.json) {
            if (local)
                printf("redis-server %s on 127.0.0.1:%d%s", srv.version, srv.port,
                       srv.tls_port ? "" : "\n");
            if (local && srv.tls_port)
                printf(", TLS on 127.0.0.1:%d (fixture PKI)\n", srv.tls_port);
            char th[32] = "";
            if (p.threads > 1)
                snprintf(th, sizeof th, " --threads %d", p.threads);
            printf("redis-benchmark %s -t set,get -n %d -c %d -P %d -d %d -r %d%s\n",
                   bv[0] ? bv : "(not installed)", p.requests, p.clients, p.pipeline, p.data_size,
                   p.keyspace, th);
            printf("%-9s %-5s %14s %12s %12s %12s   %s\n", "transport", "test", "req/s", "p50",
                   "p95", "p99", "server");
            fflush(stdout);
        }
        rc = run_all(&o, &p, &srv, &run.sink, runs);
        if (rc == 0 && o.json)
            rc = cli_wl_run_print(
                CMD, &run, TB_WL_KV_SCHEMA,
                tb_wl_kv_doc(&p, local ? srv.version : NULL, bv, json_incref(runs)));
    }
    tb_wl_kv_server_stop(&srv);
    json_decref(runs);
    cli_wl_run_end(&run);
    return rc;
}

/* ---- serve ---- */

typedef struct serve_args {
    const char *addr, *pki, *bin;
    int port, tls_port;
} serve_args;

static int port_arg(const char *flag, const char *v, int zero_ok, int *out, tb_err *err)
{
    long x;
    if (tb_num_long(v, zero_ok ? 0 : 1, 65535, &x) != TB_NUM_OK)
        return tb_errf(err, "%s %s: want a port (%d-65535)", flag, v, zero_ok ? 0 : 1);
    *out = (int)x;
    return 0;
}

static int set_port(void *args, const char *flag, const char *v, tb_err *err)
{
    return port_arg(flag, v, 0, &((serve_args *)args)->port, err);
}

static int set_tls_port(void *args, const char *flag, const char *v, tb_err *err)
{
    return port_arg(flag, v, 1, &((serve_args *)args)->tls_port, err);
}

/* Told of in kv's usage (the text after its list). */
static const cli_flag serve_flags[] = {
    {.name = "addr",
     .type = CLI_F_STR,
     .arg = "ADDR",
     .off = CLI_OFF(serve_args, addr, const char *)},
    {.name = "port", .type = CLI_F_CALL, .arg = "P", .call = set_port},
    {.name = "tls-port", .type = CLI_F_CALL, .arg = "P", .call = set_tls_port},
    {.name = "pki", .type = CLI_F_STR, .arg = "DIR", .off = CLI_OFF(serve_args, pki, const char *)},
    {.name = "redis-server",
     .type = CLI_F_STR,
     .arg = "BIN",
     .off = CLI_OFF(serve_args, bin, const char *)},
    CLI_HELP(),
    {0}};

const cli_cmd cli_kv_serve_cmd = {
    .name = "kv serve", .flags = serve_flags, .usage = usage, .max_operands = 0, .col = 19};

static int serve(int argc, char **argv)
{
    const char *env_pki = getenv("TEEBENCH_PKI");
    serve_args sa = {.addr = "127.0.0.1",
                     .pki = env_pki && *env_pki ? env_pki : "fixture-pki",
                     .bin = "redis-server",
                     .port = 6379,
                     .tls_port = 6380};
    int first, rc = cli_flags_parse(&cli_kv_serve_cmd, argc, argv, &sa, &first);
    if (rc != CLI_FLAGS_GO)
        return rc;
    const char *addr = sa.addr, *pki = sa.pki, *bin = sa.bin;
    int port = sa.port, tls_port = sa.tls_port;
    char path[PATH_MAX], cert[PATH_MAX];
    if (!tb_wl_find_tool(bin, path, sizeof path))
        return cli_fail(CMD,
                        "serve: redis-server is not installed (%s not found): install the package "
                        "redis-server (apt-get install redis-server, dnf install redis)",
                        bin);
    tb_err err = {{0}};
    if (tls_port > 0) {
        if (tb_pki_path(pki, TB_PKI_SERVER_CERT, cert, sizeof cert, &err) < 0)
            return cli_fail(CMD, "serve: --pki %s: %s", pki, err.msg);
        struct stat sb;
        if (stat(cert, &sb) < 0 && tb_pki_generate(pki, &err) < 0)
            return cli_fail(CMD, "serve: --pki %s: %s", pki, err.msg);
    }
    char *args[48], text[8192];
    if (tb_wl_kv_server_argv(path, addr, port, tls_port, tls_port > 0 ? pki : NULL, NULL, args,
                             sizeof args / sizeof args[0], text, sizeof text) < 0)
        return cli_fail(CMD, "serve: redis-server's command line is too long");
    fprintf(stderr, "teebench kv serve: redis-server on %s:%d%s", addr, port,
            tls_port > 0 ? "" : " (no TLS)\n");
    if (tls_port > 0)
        fprintf(stderr, ", TLS on %s:%d (fixture PKI %s: clients trust %s/%s, server name %s)\n",
                addr, tls_port, pki, pki, TB_PKI_CA_CERT, TB_PKI_SERVER_NAME);
    fflush(stderr);
    execv(path, args);
    return cli_fail(CMD, "serve: running %s: %s", path, strerror(errno));
}

int cmd_kv(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "serve"))
        return serve(argc - 1, argv + 1);
    return bench(argc, argv);
}
