/* cli/nginx: `teebench nginx start|stop|log-lines` -- a real nginx as the
 * benchmark target, driven by serve/nginx (generated config in a run directory,
 * access log on). */
#include "cli/cli.h"

#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/json.h"
#include "cli/opt.h"
#include "load/logcount.h"
#include "serve/nginx.h"
#include "serve/pki.h"

#define CMD "nginx"
#define SCHEMA "teebench-nginx/1"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: teebench nginx start --port P [--addr A] [--root DIR] [--workers N]\n"
            "                            [--dir RUNDIR] [--tls [--cert F --key F | --pki DIR]]\n"
            "                            [--json]\n"
            "       teebench nginx stop [--dir RUNDIR] [--json]\n"
            "       teebench nginx log-lines [--dir RUNDIR] [--json]\n\n"
            "start writes RUNDIR/nginx.conf (pid, logs, temp paths all in RUNDIR; the\n"
            "document root defaults to RUNDIR/html with nginx's 615-byte welcome page),\n"
            "starts %s and waits until it answers. Started as root, nginx's workers\n"
            "run as --user (default www-data, else nobody), not as root. RUNDIR must be\n"
            "ours alone: an existing one owned by another user, writable by others or a\n"
            "symlink is refused; a new one is created 0700. The access log\n"
            "(RUNDIR/access.log) has one line per request. stop stops it and waits.\n"
            "log-lines prints how many lines the access log has.\n\n"
            "  --dir RUNDIR     run directory (default ./teebench-nginx)\n"
            "  -p, --port P     port to listen on (required for start)\n"
            "  --addr A         address to listen on (default 127.0.0.1)\n"
            "  --root DIR       document root\n"
            "  -w, --workers N  worker processes (default 1; auto: one per online CPU)\n"
            "  --user USER      as root: the workers' user (default www-data, else nobody)\n"
            "  --tls            listen with TLS, by default with the fixture PKI's server.pem\n"
            "  --cert F, --key F  PEM certificate chain and key for --tls\n"
            "  --pki DIR        fixture PKI directory (default $TEEBENCH_PKI or ./fixture-pki)\n"
            "  --timeout T      time to wait for start/stop: 10, 10s, 500ms (default 10s)\n"
            "  --json           print one JSON document (pid, URL, run dir / lines)\n"
            "  -h, --help       this text\n",
            TB_NGINX_BIN);
}

/* Makes p absolute (relative to the working directory) into out. */
static int absolute(const char *what, const char *p, char *out, size_t size)
{
    if (p[0] == '/') {
        if (snprintf(out, size, "%s", p) >= (int)size)
            return cli_fail_code(2, CMD, "%s %s: path too long", what, p);
        return 0;
    }
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return cli_fail(CMD, "%s %s: cannot resolve the working directory", what, p);
    if (snprintf(out, size, "%s/%s", cwd, p) >= (int)size)
        return cli_fail_code(2, CMD, "%s %s: path too long", what, p);
    return 0;
}

/* A failure: with --json also the JSON error document on stdout. */
__attribute__((format(printf, 2, 3))) static int fail(int json, const char *fmt, ...)
{
    char msg[TB_ERR_MAX + 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return json ? cli_json_fail(1, CMD, SCHEMA, "%s", msg) : cli_fail(CMD, "%s", msg);
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

int cmd_nginx(int argc, char **argv)
{
    static const struct option longs[] = {
        {"dir", required_argument, NULL, 'd'},     {"port", required_argument, NULL, 'p'},
        {"addr", required_argument, NULL, 'a'},    {"root", required_argument, NULL, 'r'},
        {"workers", required_argument, NULL, 'w'}, {"tls", no_argument, NULL, 'T'},
        {"cert", required_argument, NULL, 'c'},    {"key", required_argument, NULL, 'k'},
        {"pki", required_argument, NULL, 'P'},     {"timeout", required_argument, NULL, 't'},
        {"json", no_argument, NULL, 'j'},          {"user", required_argument, NULL, 'u'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *action = argv[1];
    if (!strcmp(action, "-h") || !strcmp(action, "--help")) {
        usage(stdout);
        return 0;
    }
    static const char *const actions[] = {"start", "stop", "log-lines", NULL};
    if (strcmp(action, "start") && strcmp(action, "stop") && strcmp(action, "log-lines"))
        return cli_unknown_subcommand(CMD, action, actions);
    const char *env_pki = getenv("TEEBENCH_PKI");
    const char *dir = "teebench-nginx", *root = NULL, *cert = NULL, *key = NULL;
    const char *pki = env_pki && *env_pki ? env_pki : "fixture-pki";
    tb_nginx_opts o = {.addr = "127.0.0.1", .workers = 1};
    int timeout_ms = 10000, c, json = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc - 1, argv + 1, ":p:w:h", longs, NULL)) != -1) {
        switch (c) {
        case 'd':
            dir = optarg;
            break;
        case 'p':
            if (parse_int(optarg, 1, 65535, &o.port) < 0)
                return cli_fail_code(2, CMD, "--port %s: not a port number (1..65535)", optarg);
            break;
        case 'a':
            o.addr = optarg;
            break;
        case 'r':
            root = optarg;
            break;
        case 'w':
            if (!strcmp(optarg, "auto")) { /* one per online CPU, as the suite's servers */
                long n = sysconf(_SC_NPROCESSORS_ONLN);
                o.workers = n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
            } else if (parse_int(optarg, 1, 1024, &o.workers) < 0) {
                return cli_fail_code(2, CMD, "--workers %s: not a number in 1..1024 or auto",
                                     optarg);
            }
            break;
        case 'T':
            o.tls = 1;
            break;
        case 'c':
            cert = optarg;
            break;
        case 'k':
            key = optarg;
            break;
        case 'P':
            pki = optarg;
            break;
        case 't': {
            double sec;
            tb_err e;
            if (cli_opt_duration("--timeout", optarg, 0.001, 3600, &sec, &e) < 0)
                return cli_fail_code(2, CMD, "%s", e.msg);
            timeout_ms = (int)llround(sec * 1000.0);
            break;
        }
        case 'j':
            json = 1;
            break;
        case 'u':
            o.user = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            return cli_bad_option(CMD, c, argv + 1);
        }
    }
    if (optind + 1 < argc)
        return cli_fail_code(2, CMD, "%s: unexpected argument", argv[optind + 1]);
    char adir[PATH_MAX], aroot[PATH_MAX], acert[PATH_MAX], akey[PATH_MAX];
    int rc;
    if ((rc = absolute("--dir", dir, adir, sizeof adir)) != 0)
        return rc;
    o.dir = adir;
    tb_err err;
    if (!strcmp(action, "stop")) {
        pid_t pid = tb_nginx_pid(adir, &err);
        if (pid < 0 || tb_nginx_stop(adir, timeout_ms, &err) < 0)
            return fail(json, "stop: %s", err.msg);
        if (json)
            return cli_json_print(CMD,
                                  cli_json_envelope(SCHEMA,
                                                    json_pack("{s:s, s:i, s:s}", "action", "stop",
                                                              "pid", (int)pid, "run_dir", adir),
                                                    1));
        printf("nginx stopped (pid %d, run dir %s)\n", (int)pid, adir);
        return 0;
    }
    if (!strcmp(action, "log-lines")) {
        char log[PATH_MAX];
        uint64_t n;
        if (tb_nginx_path(adir, "access.log", log, sizeof log, &err) < 0 ||
            tb_log_count_lines(log, &n, &err) < 0)
            return fail(json, "log-lines: %s", err.msg);
        if (json)
            return cli_json_print(
                CMD, cli_json_envelope(SCHEMA,
                                       json_pack("{s:s, s:s, s:I}", "action", "log-lines",
                                                 "access_log", log, "lines", (json_int_t)n),
                                       1));
        printf("%s: %" PRIu64 " lines\n", log, n);
        return 0;
    }
    if (!o.port)
        return cli_fail_code(2, CMD, "start: --port is required");
    if ((cert || key) && !o.tls)
        return cli_fail_code(2, CMD, "--cert/--key: only with --tls");
    if (root) {
        if ((rc = absolute("--root", root, aroot, sizeof aroot)) != 0)
            return rc;
        if (access(aroot, R_OK | X_OK) < 0)
            return cli_fail(CMD, "--root %s: not a readable directory", aroot);
        o.root = aroot;
    }
    if (o.tls) {
        char def[PATH_MAX];
        if (!cert && tb_pki_path(pki, TB_PKI_SERVER_CERT, def, sizeof def, &err) == 0)
            cert = def;
        if ((rc = absolute("--cert", cert, acert, sizeof acert)) != 0)
            return rc;
        if (!key && tb_pki_path(pki, TB_PKI_SERVER_KEY, def, sizeof def, &err) == 0)
            key = def;
        if ((rc = absolute("--key", key, akey, sizeof akey)) != 0)
            return rc;
        if (access(acert, R_OK) < 0 || access(akey, R_OK) < 0)
            return cli_fail(CMD,
                            "--tls: certificate %s or key %s missing (create them with: "
                            "teebench serve --gen-pki DIR)",
                            acert, akey);
        o.cert = acert;
        o.key = akey;
    }
    pid_t pid;
    if (tb_nginx_start(&o, timeout_ms, &pid, &err) < 0)
        return fail(json, "start: %s", err.msg);
    if (json) {
        char url[300], log[PATH_MAX + 16];
        snprintf(url, sizeof url, "%s://%s%s%s:%d/", o.tls ? "https" : "http",
                 strchr(o.addr, ':') ? "[" : "", o.addr, strchr(o.addr, ':') ? "]" : "", o.port);
        snprintf(log, sizeof log, "%s/access.log", adir);
        return cli_json_print(
            CMD,
            cli_json_envelope(SCHEMA,
                              json_pack("{s:s, s:i, s:s, s:i, s:b, s:s, s:s}", "action", "start",
                                        "pid", (int)pid, "url", url, "workers", o.workers, "tls",
                                        o.tls, "run_dir", adir, "access_log", log),
                              1));
    }
    printf("nginx started: pid %d, %s://%s:%d/ with %d worker%s\n", (int)pid,
           o.tls ? "https" : "http", o.addr, o.port, o.workers, o.workers == 1 ? "" : "s");
    printf("run dir: %s\naccess log: %s/access.log\n", adir, adir);
    return 0;
}
