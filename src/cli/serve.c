/* cli/serve: `teebench serve` -- the fixture server (serve/server) and the
 * fixture PKI generator (serve/pki).
 *
 * Signals: SIGINT and SIGTERM are blocked in every thread before the server
 * threads start, and the main thread takes them with sigtimedwait, then stops
 * the server and prints what it served. No signal handler, no global state. */
#include "cli/cli.h"
#include "cli/flags.h"
#include "cli/opt.h"

#include <errno.h>
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

static void usage(FILE *f, const cli_cmd *c)
{
    fprintf(f,
            "usage: teebench serve [options]\n"
            "       teebench serve --gen-pki DIR [--tls ...]\n\n"
            "The fixture server: HTTP/1.1 (keep-alive, pipelining) over TCP or TLS, one epoll\n"
            "loop per thread, responses prebuilt at startup. Routes:\n"
            "  /                          615-byte HTML page (the size of nginx's welcome page)\n"
            "  /formats/json?size=1|4|8   fixture JSON documents, compact (size=4: 3111 bytes)\n"
            "  /formats/html              the 4 KB fixture HTML document\n"
            "  /bytes?size=N              N bytes of 'B' (400 above --bytes-cap)\n"
            "anything else is 404. On SIGINT/SIGTERM it prints the requests it served by\n"
            "route and status, then \"served: N requests\".\n\n");
    cli_flags_help(f, c);
}

struct opts {
    const char *addr, *port, *cert, *key, *pki, *gen_pki;
    int threads, tls, json, idle_timeout_s;
    uint64_t bytes_cap;
};

/* The port stays a string (the server's address takes one); checked here. */
static int set_port(void *args, const char *flag, const char *v, tb_err *err)
{
    long port;
    if (cli_opt_long(flag, v, 0, 65535, &port, err) < 0)
        return -1;
    ((struct opts *)args)->port = v;
    return 0;
}

_Static_assert(TB_BYTES_CAP_DEFAULT == 16777216, "--bytes-cap's help names the default");

static const cli_flag serve_flags[] = {
    CLI_STR("addr", 0, struct opts, addr, "ADDR", "address to listen on (default 127.0.0.1)"),
    CLI_CALL("port", 'p', set_port, "PORT", "TCP port (default 8080; 0 picks a free one)"),
    CLI_INT("threads", 't', struct opts, threads, 1, TB_SERVER_MAX_THREADS, "N",
            "threads, each with its own loop and listening socket (default 1)"),
    CLI_BOOL("tls", 0, struct opts, tls, "serve HTTPS"),
    CLI_STR("cert", 0, struct opts, cert, "FILE",
            "PEM certificate chain (default DIR/server.pem of --pki)"),
    CLI_STR("key", 0, struct opts, key, "FILE",
            "PEM private key (default DIR/server-key.pem of --pki)"),
    CLI_STR("pki", 0, struct opts, pki, "DIR",
            "fixture PKI directory (default $TEEBENCH_PKI or ./fixture-pki)"),
    CLI_STR("gen-pki", 0, struct opts, gen_pki, "DIR",
            "write a fixture CA and a test-server.io certificate into DIR\n"
            "and exit (with --tls: then serve with them)"),
    CLI_U64("bytes-cap", 0, struct opts, bytes_cap, 0, 18446744073709551615.0, "N",
            "largest /bytes size in bytes (default 16777216)"),
    CLI_INT("idle-timeout", 0, struct opts, idle_timeout_s, 0, 86400, "S",
            "close connections without progress for S seconds\n"
            "(default 60; 0 = never)"),
    CLI_BOOL("json", 0, struct opts, json, "print the exit summary as JSON"),
    CLI_HELP(),
    {0}};

const cli_cmd cli_serve_cmd = {
    .name = CMD, .flags = serve_flags, .usage = usage, .max_operands = 0, .col = 21};

/* Returns 0, 1 for --help (done), or an exit code > 1 after printing the error. */
static int parse_args(int argc, char **argv, struct opts *o)
{
    const char *env_pki = getenv("TEEBENCH_PKI");
    *o = (struct opts){.addr = "127.0.0.1",
                       .port = "8080",
                       .threads = 1,
                       .pki = env_pki && *env_pki ? env_pki : "fixture-pki",
                       .idle_timeout_s = 60,
                       .bytes_cap = TB_BYTES_CAP_DEFAULT};
    int first, rc = cli_flags_parse(&cli_serve_cmd, argc, argv, o, &first);
    if (rc != CLI_FLAGS_GO)
        return rc == 0 ? 1 : rc;
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
