/* cli/nginx: `teebench nginx start|stop|log-lines` -- a real nginx as the
 * benchmark target, driven by serve/nginx (generated config in a run directory,
 * access log on). */
#include "cli/cli.h"

#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "load/logcount.h"
#include "serve/nginx.h"
#include "serve/pki.h"

#define CMD "nginx"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: teebench nginx start --port P [--addr A] [--root DIR] [--workers N]\n"
            "                            [--dir RUNDIR] [--tls [--cert F --key F | --pki DIR]]\n"
            "       teebench nginx stop [--dir RUNDIR]\n"
            "       teebench nginx log-lines [--dir RUNDIR]\n\n"
            "start writes RUNDIR/nginx.conf (pid, logs, temp paths all in RUNDIR; the\n"
            "document root defaults to RUNDIR/html with nginx's 615-byte welcome page),\n"
            "starts %s as the current user and waits until it answers. The access log\n"
            "(RUNDIR/access.log) has one line per request. stop stops it and waits.\n"
            "log-lines prints how many lines the access log has.\n\n"
            "  --dir RUNDIR     run directory (default ./teebench-nginx)\n"
            "  -p, --port P     port to listen on (required for start)\n"
            "  --addr A         address to listen on (default 127.0.0.1)\n"
            "  --root DIR       document root\n"
            "  -w, --workers N  worker processes (default 1)\n"
            "  --tls            listen with TLS, by default with the fixture PKI's server.pem\n"
            "  --cert F, --key F  PEM certificate chain and key for --tls\n"
            "  --pki DIR        fixture PKI directory (default $TEEBENCH_PKI or ./fixture-pki)\n"
            "  --timeout S      seconds to wait for start/stop (default 10)\n"
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
    if (strcmp(action, "start") && strcmp(action, "stop") && strcmp(action, "log-lines"))
        return cli_fail_code(2, CMD, "%s: unknown action (start, stop or log-lines)", action);
    const char *env_pki = getenv("TEEBENCH_PKI");
    const char *dir = "teebench-nginx", *root = NULL, *cert = NULL, *key = NULL;
    const char *pki = env_pki && *env_pki ? env_pki : "fixture-pki";
    tb_nginx_opts o = {.addr = "127.0.0.1", .workers = 1};
    int timeout_s = 10, c;
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
            if (parse_int(optarg, 1, 1024, &o.workers) < 0)
                return cli_fail_code(2, CMD, "--workers %s: not a number in 1..1024", optarg);
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
        case 't':
            if (parse_int(optarg, 1, 3600, &timeout_s) < 0)
                return cli_fail_code(2, CMD, "--timeout %s: not a number of seconds", optarg);
            break;
        case 'h':
            usage(stdout);
            return 0;
        case ':':
            return cli_fail_code(2, CMD, "%s: needs a value", argv[optind]);
        default:
            return cli_fail_code(2, CMD, "%s: unknown option (teebench nginx --help)",
                                 argv[optind]);
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
        if (pid < 0 || tb_nginx_stop(adir, timeout_s * 1000, &err) < 0)
            return cli_fail(CMD, "stop: %s", err.msg);
        printf("nginx stopped (pid %d, run dir %s)\n", (int)pid, adir);
        return 0;
    }
    if (!strcmp(action, "log-lines")) {
        char log[PATH_MAX];
        uint64_t n;
        if (tb_nginx_path(adir, "access.log", log, sizeof log, &err) < 0 ||
            tb_log_count_lines(log, &n, &err) < 0)
            return cli_fail(CMD, "log-lines: %s", err.msg);
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
    if (tb_nginx_start(&o, timeout_s * 1000, &err) < 0)
        return cli_fail(CMD, "start: %s", err.msg);
    pid_t pid = tb_nginx_pid(adir, &err);
    printf("nginx started: pid %d, %s://%s:%d/ with %d worker%s\n", (int)pid,
           o.tls ? "https" : "http", o.addr, o.port, o.workers, o.workers == 1 ? "" : "s");
    printf("run dir: %s\naccess log: %s/access.log\n", adir, adir);
    return 0;
}
