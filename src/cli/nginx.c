/* cli/nginx: `teebench nginx start|stop|log-lines` -- a real nginx as the
 * benchmark target, driven by serve/nginx (generated config in a run directory,
 * access log on). */
#include "cli/cli.h"
#include "cli/flags.h"

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

static void usage(FILE *f, const cli_cmd *c)
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
            "log-lines prints how many lines the access log has.\n\n",
            TB_NGINX_BIN);
    cli_flags_help(f, c);
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

typedef struct nginx_args {
    tb_nginx_opts o;
    const char *dir, *root, *cert, *key, *pki;
    int timeout_ms, json;
} nginx_args;

static int set_workers(void *args, const char *flag, const char *v, tb_err *err)
{
    nginx_args *a = args;
    if (!strcmp(v, "auto")) { /* one per online CPU, as the suite's servers */
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        a->o.workers = n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
        return 0;
    }
    long n;
    if (cli_opt_long(flag, v, 1, 1024, &n, err) < 0)
        return -1;
    a->o.workers = (int)n;
    return 0;
}

static int set_timeout(void *args, const char *flag, const char *v, tb_err *err)
{
    double sec;
    if (cli_opt_duration(flag, v, 0.001, 3600, &sec, err) < 0)
        return -1;
    ((nginx_args *)args)->timeout_ms = (int)llround(sec * 1000.0);
    return 0;
}

static const cli_flag nginx_flags[] = {
    CLI_STR("dir", 0, nginx_args, dir, "RUNDIR", "run directory (default ./teebench-nginx)"),
    CLI_INT("port", 'p', nginx_args, o.port, 1, 65535, "P",
            "port to listen on (required for start)"),
    CLI_STR("addr", 0, nginx_args, o.addr, "A", "address to listen on (default 127.0.0.1)"),
    CLI_STR("root", 0, nginx_args, root, "DIR", "document root"),
    CLI_CALL("workers", 'w', set_workers, "N",
             "worker processes (default 1; auto: one per online CPU)"),
    CLI_STR("user", 0, nginx_args, o.user, "USER",
            "as root: the workers' user (default www-data, else nobody)"),
    CLI_BOOL("tls", 0, nginx_args, o.tls,
             "listen with TLS, by default with the fixture PKI's server.pem"),
    {.name = "cert",
     .type = CLI_F_STR,
     .arg = "F",
     .off = CLI_OFF(nginx_args, cert, const char *),
     .label = "--cert F, --key F",
     .help = "PEM certificate chain and key for --tls"},
    {.name = "key",
     .type = CLI_F_STR,
     .arg = "F",
     .off = CLI_OFF(nginx_args, key, const char *),
     .hidden = 1},
    CLI_STR("pki", 0, nginx_args, pki, "DIR",
            "fixture PKI directory (default $TEEBENCH_PKI or ./fixture-pki)"),
    CLI_CALL("timeout", 0, set_timeout, "T",
             "time to wait for start/stop: 10, 10s, 500ms (default 10s)"),
    CLI_BOOL("json", 0, nginx_args, json, "print one JSON document (pid, URL, run dir / lines)"),
    CLI_HELP(),
    {0}};

/* Parsed after the action: argv[0] is the action. */
const cli_cmd cli_nginx_cmd = {
    .name = CMD, .flags = nginx_flags, .usage = usage, .max_operands = 0, .col = 19};

/* nginx stop: stops the nginx of adir and waits. An exit code. */
static int nginx_stop(const char *adir, int timeout_ms, int json)
{
    tb_err err;
    pid_t pid = tb_nginx_pid(adir, &err);
    if (pid < 0 || tb_nginx_stop(adir, timeout_ms, &err) < 0)
        return fail(json, "stop: %s", err.msg);
    if (json)
        return cli_json_print(CMD, cli_json_envelope(SCHEMA,
                                                     json_pack("{s:s, s:i, s:s}", "action", "stop",
                                                               "pid", (int)pid, "run_dir", adir),
                                                     1));
    printf("nginx stopped (pid %d, run dir %s)\n", (int)pid, adir);
    return 0;
}

/* nginx log-lines: the access log's line count. An exit code. */
static int nginx_log_lines(const char *adir, int json)
{
    tb_err err;
    char log[PATH_MAX];
    uint64_t n;
    if (tb_nginx_path(adir, "access.log", log, sizeof log, &err) < 0 ||
        tb_log_count_lines(log, &n, &err) < 0)
        return fail(json, "log-lines: %s", err.msg);
    if (json)
        return cli_json_print(
            CMD, cli_json_envelope(SCHEMA,
                                   json_pack("{s:s, s:s, s:I}", "action", "log-lines", "access_log",
                                             log, "lines", (json_int_t)n),
                                   1));
    printf("%s: %" PRIu64 " lines\n", log, n);
    return 0;
}

/* nginx start: the flags checked, the paths made absolute, nginx started in adir. An
 * exit code. */
static int nginx_start(const nginx_args *a, const char *adir)
{
    tb_nginx_opts o = a->o;
    const char *root = a->root, *cert = a->cert, *key = a->key, *pki = a->pki;
    int timeout_ms = a->timeout_ms, json = a->json, rc;
    char aroot[PATH_MAX], acert[PATH_MAX], akey[PATH_MAX];
    tb_err err;
    o.dir = adir;
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

int cmd_nginx(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr, &cli_nginx_cmd);
        return 2;
    }
    const char *action = argv[1];
    if (!strcmp(action, "-h") || !strcmp(action, "--help")) {
        usage(stdout, &cli_nginx_cmd);
        return 0;
    }
    static const char *const actions[] = {"start", "stop", "log-lines", NULL};
    if (strcmp(action, "start") && strcmp(action, "stop") && strcmp(action, "log-lines"))
        return cli_unknown_subcommand(CMD, action, actions);
    const char *env_pki = getenv("TEEBENCH_PKI");
    nginx_args a = {.o = {.addr = "127.0.0.1", .workers = 1},
                    .dir = "teebench-nginx",
                    .pki = env_pki && *env_pki ? env_pki : "fixture-pki",
                    .timeout_ms = 10000};
    int first, done = cli_flags_parse(&cli_nginx_cmd, argc - 1, argv + 1, &a, &first);
    if (done != CLI_FLAGS_GO)
        return done;
    char adir[PATH_MAX];
    int rc;
    if ((rc = absolute("--dir", a.dir, adir, sizeof adir)) != 0)
        return rc;
    if (!strcmp(action, "stop"))
        return nginx_stop(adir, a.timeout_ms, a.json);
    if (!strcmp(action, "log-lines"))
        return nginx_log_lines(adir, a.json);
    return nginx_start(&a, adir);
}
