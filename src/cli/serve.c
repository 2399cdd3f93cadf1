/* cli/serve: `teebench serve` -- the fixture server (serve/server) and the
 * fixture PKI generator (serve/pki).
 *
 * Signals: SIGINT and SIGTERM are blocked in every thread before the server
 * threads start, and the main thread takes them with sigtimedwait, then stops
 * the server and prints what it served. No signal handler, no global state. */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/fdlimit.h"
#include "cli/json.h"
#include "net/tls.h"
#include "serve/pki.h"
#include "serve/routes.h"
#include "serve/server.h"

#define CMD "serve"

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: teebench serve [options]\n"
        "       teebench serve --gen-pki DIR [--tls ...]\n\n"
        "The fixture server: HTTP/1.1 (keep-alive, pipelining) over TCP or TLS, one epoll\n"
        "loop per thread, responses prebuilt at startup. Routes:\n"
        "  /                          615-byte HTML page (the size of nginx's welcome page)\n"
        "  /formats/json?size=1|4|8   fixture JSON documents, compact (size=4: 3111 bytes)\n"
        "  /formats/html              the 4 KB fixture HTML document\n"
        "  /bytes?size=N              N bytes of 'B' (400 above --bytes-cap)\n"
        "anything else is 404. On SIGINT/SIGTERM it prints the requests it served by\n"
        "route and status, then \"served: N requests\".\n\n"
        "  --addr ADDR        address to listen on (default 127.0.0.1)\n"
        "  -p, --port PORT    TCP port (default 8080; 0 picks a free one)\n"
        "  -t, --threads N    threads, each with its own loop and listening socket (default 1)\n"
        "  --tls              serve HTTPS\n"
        "  --cert FILE        PEM certificate chain (default DIR/server.pem of --pki)\n"
        "  --key FILE         PEM private key (default DIR/server-key.pem of --pki)\n"
        "  --pki DIR          fixture PKI directory (default $TEEBENCH_PKI or ./fixture-pki)\n"
        "  --gen-pki DIR      write a fixture CA and a test-server.io certificate into DIR\n"
        "                     and exit (with --tls: then serve with them)\n"
        "  --bytes-cap N      largest /bytes size in bytes (default %" PRIu64 ")\n"
        "  --idle-timeout S   close connections without progress for S seconds\n"
        "                     (default 60; 0 = never)\n"
        "  --json             print the exit summary as JSON\n"
        "  -h, --help         this text\n",
        TB_BYTES_CAP_DEFAULT);
}

struct opts {
    const char *addr, *port, *cert, *key, *pki, *gen_pki;
    int threads, tls, json, idle_timeout_s;
    uint64_t bytes_cap;
};

static int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
    if (!s || !*s)
        return -1;
    uint64_t x = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9' || x > (max - (uint64_t)(*p - '0')) / 10)
            return -1;
        x = x * 10 + (uint64_t)(*p - '0');
    }
    *out = x;
    return 0;
}

/* Returns 0, 1 for --help (done), or an exit code > 1 after printing the error. */
static int parse_args(int argc, char **argv, struct opts *o)
{
    static const struct option longs[] = {{"addr", required_argument, NULL, 'a'},
                                          {"port", required_argument, NULL, 'p'},
                                          {"threads", required_argument, NULL, 't'},
                                          {"tls", no_argument, NULL, 'T'},
                                          {"cert", required_argument, NULL, 'c'},
                                          {"key", required_argument, NULL, 'k'},
                                          {"pki", required_argument, NULL, 'P'},
                                          {"gen-pki", required_argument, NULL, 'G'},
                                          {"bytes-cap", required_argument, NULL, 'B'},
                                          {"json", no_argument, NULL, 'j'},
                                          {"idle-timeout", required_argument, NULL, 'I'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    const char *env_pki = getenv("TEEBENCH_PKI");
    *o = (struct opts){.addr = "127.0.0.1",
                       .port = "8080",
                       .threads = 1,
                       .pki = env_pki && *env_pki ? env_pki : "fixture-pki",
                       .idle_timeout_s = 60,
                       .bytes_cap = TB_BYTES_CAP_DEFAULT};
    uint64_t v;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":p:t:h", longs, NULL)) != -1) {
        switch (c) {
        case 'a':
            o->addr = optarg;
            break;
        case 'p':
            if (parse_uint(optarg, 65535, &v) < 0)
                return cli_fail_code(2, CMD, "--port %s: not a port number (0..65535)", optarg);
            o->port = optarg;
            break;
        case 't':
            if (parse_uint(optarg, TB_SERVER_MAX_THREADS, &v) < 0 || v == 0)
                return cli_fail_code(2, CMD, "--threads %s: not a number in 1..%d", optarg,
                                     TB_SERVER_MAX_THREADS);
            o->threads = (int)v;
            break;
        case 'T':
            o->tls = 1;
            break;
        case 'c':
            o->cert = optarg;
            break;
        case 'k':
            o->key = optarg;
            break;
        case 'P':
            o->pki = optarg;
            break;
        case 'G':
            o->gen_pki = optarg;
            break;
        case 'B':
            if (parse_uint(optarg, UINT64_MAX, &v) < 0)
                return cli_fail_code(2, CMD, "--bytes-cap %s: not a number of bytes", optarg);
            o->bytes_cap = v;
            break;
        case 'j':
            o->json = 1;
            break;
        case 'I':
            if (parse_uint(optarg, 86400, &v) < 0)
                return cli_fail_code(
                    2, CMD, "--idle-timeout %s: not a number of seconds (0..86400)", optarg);
            o->idle_timeout_s = (int)v;
            break;
        case 'h':
            usage(stdout);
            return 1;
        default:
            return cli_bad_option(CMD, c, argv);
        }
    }
    if (optind < argc)
        return cli_fail_code(2, CMD, "%s: unexpected argument", argv[optind]);
    if ((o->cert || o->key) && !o->tls)
        return cli_fail_code(2, CMD, "--cert/--key: only with --tls");
    return 0;
}

static void print_summary(const tb_counts *c, int json)
{
    uint64_t total = tb_counts_total(c);
    if (json) {
        json_t *doc = json_object(), *rows = json_array();
        json_object_set_new(doc, "served", json_integer((json_int_t)total));
        for (int r = 0; r < TB_ROUTE_COUNT; r++)
            for (int s = 0; s < TB_ST_COUNT; s++)
                if (c->n[r][s])
                    json_array_append_new(
                        rows, json_pack("{s:s,s:i,s:I}", "route", tb_route_name(r), "status",
                                        tb_status_code(s), "requests", (json_int_t)c->n[r][s]));
        json_object_set_new(doc, "by_route", rows);
        cli_json_print(CMD, cli_json_envelope("teebench-serve/1", doc, 1));
    } else {
        printf("served by route and status:\n");
        for (int r = 0; r < TB_ROUTE_COUNT; r++)
            for (int s = 0; s < TB_ST_COUNT; s++)
                if (c->n[r][s])
                    printf("  %-22s %d  %" PRIu64 " requests\n", tb_route_name(r),
                           tb_status_code(s), c->n[r][s]);
        printf("served: %" PRIu64 " requests\n", total);
    }
    fflush(stdout);
}

/* Raises the open-file limit to its hard maximum; returns the fd bound to use. */
static int fd_budget(void)
{
    uint64_t lim = tb_fd_limit_raise(TB_FD_LIMIT_HARD);
    return lim && lim < 65536 ? (int)lim : 65536;
}

static tb_tls_ctx *make_tls(const struct opts *o, tb_err *err)
{
    char cert[4096], key[4096];
    if (o->cert)
        snprintf(cert, sizeof cert, "%s", o->cert);
    else if (tb_pki_path(o->pki, TB_PKI_SERVER_CERT, cert, sizeof cert, err) < 0)
        return NULL;
    if (o->key)
        snprintf(key, sizeof key, "%s", o->key);
    else if (tb_pki_path(o->pki, TB_PKI_SERVER_KEY, key, sizeof key, err) < 0)
        return NULL;
    const char *hint = o->cert ? "" : " (create it with: teebench serve --gen-pki DIR)";
    if (access(cert, R_OK) < 0) {
        tb_errno(err, "certificate %s", cert);
        strncat(err->msg, hint, sizeof err->msg - strlen(err->msg) - 1);
        return NULL;
    }
    if (access(key, R_OK) < 0) {
        tb_errno(err, "key %s", key);
        strncat(err->msg, hint, sizeof err->msg - strlen(err->msg) - 1);
        return NULL;
    }
    return tb_tls_server_ctx_new(cert, key, err);
}

/* Waits for SIGINT/SIGTERM (blocked by the caller) or a failed server thread. */
static void wait_for_signal(const tb_server *srv, const sigset_t *set)
{
    struct timespec tick = {0, 200 * 1000 * 1000};
    while (!tb_server_failed(srv)) {
        int sig = sigtimedwait(set, NULL, &tick);
        if (sig == SIGINT || sig == SIGTERM)
            return;
    }
}

static int serve(const struct opts *o)
{
    tb_err err = {{0}};
    tb_site site;
    tb_tls_ctx *tls = NULL;
    tb_server *srv = NULL;
    int rc = 1;
    if (tb_site_init(&site, o->bytes_cap, &err) < 0)
        return cli_fail(CMD, "%s", err.msg);
    if (o->tls && !(tls = make_tls(o, &err))) {
        cli_fail(CMD, "--tls: %s", err.msg);
        goto out;
    }
    tb_server_opts so = {.addr = o->addr,
                         .port = o->port,
                         .threads = o->threads,
                         .tls = tls,
                         .max_fds = fd_budget(),
                         .idle_timeout_s = o->idle_timeout_s};
    if (!(srv = tb_server_new(&so, &site, &err))) {
        cli_fail(CMD, "%s", err.msg);
        goto out;
    }
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    if (tb_server_start(srv, &err) < 0) {
        cli_fail(CMD, "%s", err.msg);
        tb_server_join(srv, NULL);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        goto out;
    }
    FILE *info = o->json ? stderr : stdout;
    int v6 = strchr(o->addr, ':') != NULL;
    fprintf(info, "listening on %s://%s%s%s:%d with %d thread%s\n", tls ? "https" : "http",
            v6 ? "[" : "", o->addr, v6 ? "]" : "", tb_server_port(srv), o->threads,
            o->threads == 1 ? "" : "s");
    fflush(info);
    wait_for_signal(srv, &set);
    tb_server_stop(srv);
    int jrc = tb_server_join(srv, &err);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    tb_counts counts;
    tb_server_counts(srv, &counts);
    print_summary(&counts, o->json);
    rc = jrc < 0 ? cli_fail(CMD, "%s", err.msg) : 0;
out:
    tb_server_free(srv);
    tb_tls_ctx_free(tls);
    tb_site_clear(&site);
    return rc;
}

int cmd_serve(int argc, char **argv)
{
    struct opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc == 1)
        return 0;
    if (rc)
        return rc;
    if (o.gen_pki) {
        tb_err err;
        if (tb_pki_generate(o.gen_pki, &err) < 0)
            return cli_fail(CMD, "--gen-pki %s: %s", o.gen_pki, err.msg);
        FILE *info = o.tls ? stderr : stdout;
        fprintf(info,
                "wrote fixture PKI to %s: %s (CA), %s, %s (for %s, localhost, 127.0.0.1), %s\n",
                o.gen_pki, TB_PKI_CA_CERT, TB_PKI_CA_KEY, TB_PKI_SERVER_CERT, TB_PKI_SERVER_NAME,
                TB_PKI_SERVER_KEY);
        if (!o.tls)
            return 0;
        if (!o.cert && !o.key)
            o.pki = o.gen_pki;
    }
    return serve(&o);
}
