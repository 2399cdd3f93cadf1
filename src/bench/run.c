/* run: the benchmark run matrix. See run.h. Owns the run directory layout, the
 * client's command line and environment, the local fixture server and notary
 * it may start, and retries. */
#include "bench/internal.h"
#include "bench/run.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <netinet/in.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/file.h"
#include "base/num.h"
#include "base/proc.h"
#include "base/tee.h"
#include "bench/report.h"
#include "net/sock.h"
#include "serve/pki.h"
#include "sys/env.h"

/* Paths here are bounded: the run directory is at most PATH_MAX - 64 bytes
 * (make_run_dir) and in_dir reports truncation, so GCC's truncation analysis
 * only adds noise. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

const char *const tb_bench_config_names[] = {"ITERATIONS",
                                             "BENCHMARK_MODES",
                                             "START_FIXTURE",
                                             "FIXTURE_ADDR",
                                             "FIXTURE_PORT",
                                             "START_NOTARY",
                                             "NOTARY_TEE",
                                             "NOTARY_SCHEME",
                                             "NOTARY_HOST",
                                             "NOTARY_PORT",
                                             "TARGET_HOST",
                                             "TARGET_PORT",
                                             "TARGET_SERVER_NAME",
                                             "TARGET_URI",
                                             "USE_FIXTURE_CA",
                                             "FIXTURE_CA",
                                             "MAX_SENT_DATA",
                                             "MAX_RECV_DATA",
                                             "RUN_TIMEOUT_SECONDS",
                                             "RETRIES",
                                             "CLIENT_CMD",
                                             "PCCS_URL",
                                             "COLLATERAL",
                                             "SNP_CERTS",
                                             "KDS_URL",
                                             "RESULTS_DIR",
                                             NULL};

void tb_bench_config_defaults(tb_bench_config *c)
{
    memset(c, 0, sizeof *c);
    c->iterations = 25;
    c->n_modes = 3;
    strcpy(c->modes[0], "no_tee");
    strcpy(c->modes[1], "tee_no_verify");
    strcpy(c->modes[2], "tee_verify");
    c->start_fixture = 1;
    strcpy(c->fixture_addr, "127.0.0.1");
    c->fixture_port = 4000;
    c->start_notary = 1;
    strcpy(c->notary_scheme, "http");
    strcpy(c->notary_host, "127.0.0.1");
    c->notary_port = 0;
    c->target_port = 0; /* target_host empty: FIXTURE_ADDR, as in the script */
    strcpy(c->target_server_name, "test-server.io");
    strcpy(c->target_uri, "/formats/json?size=4");
    c->use_fixture_ca = 1;
    c->max_sent_data = 4096;
    c->max_recv_data = 16384;
    c->run_timeout_s = 300;
    c->term_grace_ms = 5000;
    c->retries = 0;
    strcpy(c->out_root, "benchmark-results");
}

static int set_long(const char *name, const char *v, long lo, long hi, long *out, tb_err *err)
{
    long x;
    if (tb_num_long(v, lo, hi, &x) != TB_NUM_OK)
        return tb_errf(err, "%s: '%s' is not an integer in [%ld, %ld]", name, v, lo, hi);
    *out = x;
    return 0;
}

static int set_int(const char *name, const char *v, long lo, long hi, int *out, tb_err *err)
{
    long x = 0;
    if (set_long(name, v, lo, hi, &x, err) < 0)
        return -1;
    *out = (int)x;
    return 0;
}

static int set_bool(const char *name, const char *v, int *out, tb_err *err)
{
    if (!strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes"))
        *out = 1;
    else if (!strcmp(v, "0") || !strcmp(v, "false") || !strcmp(v, "no"))
        *out = 0;
    else
        return tb_errf(err, "%s: '%s' is not a boolean (1/0, true/false)", name, v);
    return 0;
}

static int set_str(const char *name, const char *v, char *out, size_t n, int allow_empty,
                   tb_err *err)
{
    if (!allow_empty && !*v)
        return tb_errf(err, "%s: empty", name);
    if (strlen(v) >= n)
        return tb_errf(err, "%s: longer than %zu bytes", name, n - 1);
    for (const char *p = v; *p; p++)
        if ((unsigned char)*p < 0x20 && *p != '\t')
            return tb_errf(err, "%s: contains a control character", name);
    strcpy(out, v);
    return 0;
}

int tb_bench_mode_flags(const char *mode, int *enable_tee, int *verify)
{
    if (!strcmp(mode, "no_tee"))
        *enable_tee = 0, *verify = 0;
    else if (!strcmp(mode, "tee_no_verify"))
        *enable_tee = 1, *verify = 0;
    else if (!strcmp(mode, "tee_verify"))
        *enable_tee = 1, *verify = 1;
    else
        return -1;
    return 0;
}

static int set_modes(tb_bench_config *c, const char *v, tb_err *err)
{
    char buf[1024];
    char modes[TB_BENCH_MAX_MODES][TB_BENCH_MODE_MAX];
    if (strlen(v) >= sizeof buf)
        return tb_errf(err, "BENCHMARK_MODES: too long");
    strcpy(buf, v);
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, " \t,", &save); t; t = strtok_r(NULL, " \t,", &save)) {
        int a, b;
        if (tb_bench_mode_flags(t, &a, &b) < 0)
            return tb_errf(err,
                           "BENCHMARK_MODES: unknown mode '%.40s' (modes: no_tee tee_no_verify "
                           "tee_verify)",
                           t);
        for (int k = 0; k < n; k++)
            if (!strcmp(modes[k], t))
                return tb_errf(err, "BENCHMARK_MODES: mode '%s' listed twice", t);
        if (n == TB_BENCH_MAX_MODES)
            return tb_errf(err, "BENCHMARK_MODES: too many modes");
        strcpy(modes[n++], t);
    }
    if (n == 0)
        return tb_errf(err, "BENCHMARK_MODES: no mode given");
    memcpy(c->modes, modes, sizeof modes);
    c->n_modes = n;
    return 0;
}

int tb_bench_config_set(tb_bench_config *c, const char *name, const char *v, tb_err *err)
{
    if (!strcmp(name, "ITERATIONS"))
        return set_int(name, v, 1, 1000000, &c->iterations, err);
    if (!strcmp(name, "BENCHMARK_MODES"))
        return set_modes(c, v, err);
    if (!strcmp(name, "START_FIXTURE"))
        return set_bool(name, v, &c->start_fixture, err);
    if (!strcmp(name, "FIXTURE_ADDR"))
        return set_str(name, v, c->fixture_addr, sizeof c->fixture_addr, 0, err);
    if (!strcmp(name, "FIXTURE_PORT"))
        return set_int(name, v, 0, 65535, &c->fixture_port, err);
    if (!strcmp(name, "START_NOTARY"))
        return set_bool(name, v, &c->start_notary, err);
    if (!strcmp(name, "NOTARY_TEE")) {
        tb_tee t;
        if (strcmp(v, "auto") && tb_tee_parse(v, &t) < 0)
            return tb_errf(err, "NOTARY_TEE: '%.40s' is not none, sim, tdx, snp, sim-snp or auto",
                           v);
        strcpy(c->notary_tee, strcmp(v, "auto") ? v : "");
        return 0;
    }
    if (!strcmp(name, "NOTARY_SCHEME")) {
        if (strcmp(v, "http") && strcmp(v, "https"))
            return tb_errf(err, "NOTARY_SCHEME: '%.40s' is not http or https", v);
        strcpy(c->notary_scheme, v);
        return 0;
    }
    if (!strcmp(name, "NOTARY_HOST"))
        return set_str(name, v, c->notary_host, sizeof c->notary_host, 0, err);
    if (!strcmp(name, "NOTARY_PORT"))
        return set_int(name, v, 0, 65535, &c->notary_port, err);
    if (!strcmp(name, "TARGET_HOST"))
        return set_str(name, v, c->target_host, sizeof c->target_host, 0, err);
    if (!strcmp(name, "TARGET_PORT"))
        return set_int(name, v, 0, 65535, &c->target_port, err);
    if (!strcmp(name, "TARGET_SERVER_NAME"))
        return set_str(name, v, c->target_server_name, sizeof c->target_server_name, 0, err);
    if (!strcmp(name, "TARGET_URI")) {
        if (v[0] != '/')
            return tb_errf(err, "TARGET_URI: '%.60s' does not start with /", v);
        return set_str(name, v, c->target_uri, sizeof c->target_uri, 0, err);
    }
    if (!strcmp(name, "USE_FIXTURE_CA"))
        return set_bool(name, v, &c->use_fixture_ca, err);
    if (!strcmp(name, "FIXTURE_CA"))
        return set_str(name, v, c->fixture_ca, sizeof c->fixture_ca, 1, err);
    if (!strcmp(name, "MAX_SENT_DATA"))
        return set_long(name, v, 1, 1L << 30, &c->max_sent_data, err);
    if (!strcmp(name, "MAX_RECV_DATA"))
        return set_long(name, v, 1, 1L << 30, &c->max_recv_data, err);
    if (!strcmp(name, "RUN_TIMEOUT_SECONDS"))
        return set_int(name, v, 1, 86400, &c->run_timeout_s, err);
    if (!strcmp(name, "RETRIES"))
        return set_int(name, v, 0, 100, &c->retries, err);
    if (!strcmp(name, "CLIENT_CMD"))
        return set_str(name, v, c->client_cmd, sizeof c->client_cmd, 1, err);
    if (!strcmp(name, "PCCS_URL"))
        return set_str(name, v, c->pccs_url, sizeof c->pccs_url, 1, err);
    if (!strcmp(name, "COLLATERAL"))
        return set_str(name, v, c->collateral, sizeof c->collateral, 1, err);
    if (!strcmp(name, "SNP_CERTS"))
        return set_str(name, v, c->snp_certs, sizeof c->snp_certs, 1, err);
    if (!strcmp(name, "KDS_URL"))
        return set_str(name, v, c->kds_url, sizeof c->kds_url, 1, err);
    if (!strcmp(name, "RESULTS_DIR"))
        return set_str(name, v, c->results_dir, sizeof c->results_dir, 0, err);
    return tb_errf(err, "unknown option %s", name);
}

const char *tb_bench_config_target_host(const tb_bench_config *c)
{
    return c->target_host[0] ? c->target_host : c->fixture_addr;
}

int tb_bench_config_check(const tb_bench_config *c, tb_err *err)
{
    if (!c->client_cmd[0] && c->use_fixture_ca && !c->start_fixture && !c->fixture_ca[0])
        return tb_errf(err, "USE_FIXTURE_CA=true with START_FIXTURE=0 needs FIXTURE_CA (the "
                            "fixture CA certificate file) or USE_FIXTURE_CA=false");
    if (c->fixture_ca[0] && access(c->fixture_ca, R_OK) != 0)
        return tb_errno(err, "FIXTURE_CA %s", c->fixture_ca);
    if (c->collateral[0] && access(c->collateral, R_OK) != 0)
        return tb_errno(err, "COLLATERAL %s", c->collateral);
    if (c->snp_certs[0] && access(c->snp_certs, R_OK | X_OK) != 0)
        return tb_errno(err, "SNP_CERTS %s", c->snp_certs);
    if (c->start_notary && c->start_fixture && c->notary_port && c->notary_port == c->fixture_port)
        return tb_errf(err, "NOTARY_PORT and FIXTURE_PORT are both %d", c->notary_port);
    return 0;
}

/* ---- the run directory ---- */

typedef struct run_state {
    const tb_bench_config *c;
    char dir[PATH_MAX];
    char notary_tee[16]; /* run.json's: a tb_tee name, or "external" */
    int simulated;       /* notary_tee is a SIMULATED kind */
    char fixture_ca[PATH_MAX];
    char sim_env[PATH_MAX + 32]; /* TEEBENCH_SIM_DIR=<run dir>/sim, for notary and client */
    int fixture_port, target_port, notary_port;
    tb_proc fixture, notary;
    int dfd, logs_fd; /* the run directory and its logs/, opened once (private rule) */
    int results_fd, retries_fd;
    int extra_fd;      /* extra_csv, or -1 */
    tb_buf extra_line; /* its row for the last attempt */
    tb_bench_progress progress;
    void *ctx;
} run_state;

static void info(run_state *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void info(run_state *s, const char *fmt, ...)
{
    if (!s->progress)
        return;
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    tb_bench_event ev = {.kind = "info", .text = text};
    s->progress(&ev, s->ctx);
}

/* Longest run directory: its log paths (dir + "/logs/<mode>-<i>.attempt<k>.stderr.log")
 * must fit the CSVs' log fields. */
#define RUN_DIR_MAX (TB_BENCH_LOG_PATH_MAX - 160)

/* The run directory's logs/, once the directory itself is open. */
static int open_logs(run_state *s, tb_err *err)
{
    s->logs_fd = tb_dir_open_at(s->dfd, s->dir, "logs", 0700, err);
    return s->logs_fd < 0 ? -1 : 0;
}

/* RESULTS_DIR as the script has it: the run directory itself, created if needed
 * (mkdir -p). Unlike the script, one that already holds a results.csv is refused:
 * the script would overwrite it and mix the logs of two runs. It is a private
 * directory (tb_dir_open_private): one another user owns or may write, where they
 * could plant a symlink for the logs to be written through, is refused. */
static int use_results_dir(run_state *s, tb_err *err)
{
    const char *d = s->c->results_dir;
    if (strlen(d) >= RUN_DIR_MAX)
        return tb_errf(err, "RESULTS_DIR %.60s...: path too long (at most %d bytes)", d,
                       RUN_DIR_MAX - 1);
    snprintf(s->dir, sizeof s->dir, "%s", d);
    if ((s->dfd = tb_dir_open_private(d, 0700, err)) < 0)
        return tb_err_wrap(err, "RESULTS_DIR");
    struct stat st;
    if (fstatat(s->dfd, "results.csv", &st, AT_SYMLINK_NOFOLLOW) == 0)
        return tb_errf(err,
                       "RESULTS_DIR %s already holds a results.csv (a run is never overwritten: "
                       "choose another RESULTS_DIR, or leave it unset for a timestamped folder)",
                       d);
    return open_logs(s, err);
}

/* <out_root>/<UTC stamp>[-k]: a new directory in the private out_root. */
static int make_run_dir(run_state *s, tb_err *err)
{
    if (s->c->results_dir[0])
        return use_results_dir(s, err);
    int root = tb_dir_open_private(s->c->out_root, 0700, err);
    if (root < 0)
        return -1;
    char stamp[17], name[32];
    tb_utc_stamp((int64_t)(tb_wall_ns() / 1000000000ull), stamp);
    int rc = tb_errf(err, "%s/%s: too many runs in the same second", s->c->out_root, stamp);
    for (int k = 0; k < 100; k++) {
        snprintf(name, sizeof name, k ? "%s-%d" : "%s", stamp, k + 1);
        int n = snprintf(s->dir, sizeof s->dir, "%s/%s", s->c->out_root, name);
        if (n < 0 || n >= RUN_DIR_MAX) {
            rc = tb_errf(err, "%s: path too long", s->c->out_root);
            break;
        }
        if (mkdirat(root, name, 0700) == 0) {
            rc = (s->dfd = tb_dir_open_at(root, s->c->out_root, name, 0700, err)) < 0
                     ? -1
                     : open_logs(s, err);
            break;
        }
        if (errno != EEXIST) {
            rc = tb_errno(err, "mkdir %s", s->dir);
            break;
        }
    }
    close(root);
    return rc;
}

static int in_dir(const run_state *s, char *out, size_t n, const char *rel)
{
    int k = snprintf(out, n, "%s/%s", s->dir, rel);
    return k < 0 || (size_t)k >= n ? -1 : 0;
}

/* On a full disk no new copy of a small file fits, but its old blocks can be
 * overwritten: text (at most the file's size) is written over path in place and
 * padded with spaces to the old size (JSON allows trailing white space). Used
 * only for run.json's final status, so that a run stopped by ENOSPC says
 * "failed" rather than staying "running". -1 when the old file is too small. */
static int overwrite_in_place(int dfd, const char *name, const char *path, const char *text,
                              size_t len, tb_err *err)
{
    int fd = openat(dfd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return tb_errno(err, "%s", path);
    struct stat st;
    int rc = fstat(fd, &st) < 0 ? tb_errno(err, "%s", path) : 0;
    if (rc == 0 && (!S_ISREG(st.st_mode) || (off_t)len > st.st_size))
        rc = tb_errf(err, "%s: no room to rewrite it in place", path);
    for (off_t off = 0; rc == 0 && off < st.st_size;) {
        char chunk[4096];
        size_t n =
            (size_t)(st.st_size - off) < sizeof chunk ? (size_t)(st.st_size - off) : sizeof chunk;
        for (size_t i = 0; i < n; i++) {
            size_t at = (size_t)off + i;
            chunk[i] = at < len ? text[at] : at + 1 == (size_t)st.st_size ? '\n' : ' ';
        }
        ssize_t w = pwrite(fd, chunk, n, off);
        if (w <= 0)
            rc = tb_errno(err, "%s", path);
        else
            off += w;
    }
    if (rc == 0 && fsync(fd) < 0)
        rc = tb_errno(err, "%s", path);
    close(fd);
    return rc;
}

static int write_json(run_state *s, const char *rel, json_t *j, tb_err *err)
{
    char path[PATH_MAX];
    char *text = j ? json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;
    if (!text)
        return tb_errf(err, "%s: cannot encode JSON", rel);
    tb_buf b = {0};
    int rc = tb_buf_printf(&b, "%s\n", text) < 0 ? tb_errf(err, "%s: out of memory", rel) : 0;
    if (rc == 0 && in_dir(s, path, sizeof path, rel) < 0)
        rc = tb_errf(err, "%s: path too long", rel);
    if (rc == 0) {
        rc = tb_file_write_at(s->dfd, s->dir, rel, b.p, b.len, 0644, err);
        if (rc < 0 && (errno == ENOSPC || errno == EDQUOT) && !strcmp(rel, "run.json")) {
            tb_err e2;
            if (overwrite_in_place(s->dfd, rel, path, (const char *)b.p, b.len, &e2) == 0)
                rc = 0;
        }
    }
    tb_buf_clear(&b);
    free(text);
    return rc;
}

/* Whether env.json says this machine is a TDX guest (the notary then uses
 * real quotes). */
/* The TEE a notary the harness starts attests with when none is configured: the guest's
   own (tdx, snp), else the SIMULATED TDX provider. */
static const char *auto_tee(const json_t *env)
{
    tb_tee guest = tb_tee_guest(tb_env_json_tee(env));
    return tb_tee_name(guest != TB_TEE_NONE ? guest : TB_TEE_SIM);
}

/* env.json: `teebench env --json` (sys/env). If that fails (out of memory), a
 * minimal host description so the run still records where it ran. */
static json_t *host_json(void)
{
    tb_err e;
    json_t *j = tb_env_json(&e);
    if (j)
        return j;
    struct utsname u;
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    j = json_object();
    json_object_set_new(j, "hostname", json_string(host));
    if (uname(&u) == 0)
        json_object_set_new(j, "kernel", json_string(u.release));
    json_object_set_new(j, "note", json_string(e.msg));
    return j;
}

static int write_run_json(run_state *s, const char *status, tb_err *err)
{
    const tb_bench_config *c = s->c;
    json_t *j = json_object();
    json_t *modes = json_array();
    for (int k = 0; k < c->n_modes; k++)
        json_array_append_new(modes, json_string(c->modes[k]));
    json_object_set_new(j, "teebench_version", json_string(TEEBENCH_VERSION));
    json_object_set_new(j, "status", json_string(status));
    json_object_set_new(j, "benchmark_modes", modes);
    json_object_set_new(j, "iterations", json_integer(c->iterations));
    json_object_set_new(j, "notary_tee", json_string(s->notary_tee));
    json_object_set_new(j, "simulated", json_boolean(s->simulated));
    json_object_set_new(j, "start_notary", json_boolean(c->start_notary));
    json_object_set_new(j, "start_fixture", json_boolean(c->start_fixture));
    json_object_set_new(j, "notary_scheme", json_string(c->notary_scheme));
    json_object_set_new(j, "notary_host", json_string(c->notary_host));
    json_object_set_new(j, "notary_port", json_integer(s->notary_port));
    json_object_set_new(j, "fixture_addr", json_string(c->fixture_addr));
    json_object_set_new(j, "fixture_port", json_integer(s->fixture_port));
    json_object_set_new(j, "target_host", json_string(tb_bench_config_target_host(c)));
    json_object_set_new(j, "target_port", json_integer(s->target_port));
    json_object_set_new(j, "target_server_name", json_string(c->target_server_name));
    json_object_set_new(j, "target_uri", json_string(c->target_uri));
    json_object_set_new(j, "use_fixture_ca", json_boolean(c->use_fixture_ca));
    json_object_set_new(j, "max_sent_data", json_integer(c->max_sent_data));
    json_object_set_new(j, "max_recv_data", json_integer(c->max_recv_data));
    json_object_set_new(j, "run_timeout_seconds", json_integer(c->run_timeout_s));
    json_object_set_new(j, "retries", json_integer(c->retries));
    json_object_set_new(j, "results_dir", json_string(s->dir));
    json_object_set_new(j, "client_cmd",
                        json_string(c->client_cmd[0] ? c->client_cmd : "teebench notarize"));
    int rc = write_json(s, "run.json", j, err);
    json_decref(j);
    return rc;
}

/* ---- local servers ---- */

/* Fails when something already listens on host:port (the server to start would
 * not get the port, and connecting would reach the other program). */
static int check_port_free(const char *what, const char *host, int port, tb_err *err)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE},
                    *res = NULL;
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    int gai = getaddrinfo(host, ps, &hints, &res);
    if (gai != 0)
        return tb_errf(err, "%s address %s: %s", what, host, gai_strerror(gai));
    int rc = 0;
    for (struct addrinfo *ai = res; ai && rc == 0; ai = ai->ai_next) {
        int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0)
            continue;
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0)
            rc = tb_errno(err, "%s port %s:%d is not available", what, host, port);
        close(fd);
    }
    freeaddrinfo(res);
    return rc;
}

/* check_port_free with the hint of the flag that picks a free port. 1 when taken. */
static int port_taken(const char *what, const char *host, int port, const char *flag, tb_err *err)
{
    if (check_port_free(what, host, port, err) == 0)
        return 0;
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    tb_errf(err, "%s (%s 0 picks a free port)", msg, flag);
    return 1;
}

static int try_connect(const char *host, int port)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    if (!strcmp(host, "0.0.0.0") || !strcmp(host, "::") || !*host)
        host = "127.0.0.1";
    if (getaddrinfo(host, ps, &hints, &res) != 0)
        return -1;
    int ok = -1;
    for (struct addrinfo *ai = res; ai && ok < 0; ai = ai->ai_next) {
        int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0)
            continue;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
            ok = 0;
        close(fd);
    }
    freeaddrinfo(res);
    return ok;
}

/* Waits until p accepts connections on host:port (or exits, or 60 s pass: a notary
   with a new SIMULATED SEV-SNP PKI first makes two RSA-4096 keys, whose time has a long
   tail -- 7 s is common, 15 s was seen on a loaded 2-core machine). */
static int wait_listening(run_state *s, tb_proc *p, const char *what, const char *host, int port,
                          const volatile sig_atomic_t *cancel, tb_err *err)
{
    uint64_t deadline = tb_mono_ns() + 60000000000ull;
    while (tb_mono_ns() < deadline) {
        if (cancel && *cancel)
            return tb_errf(err, "interrupted while starting the %s", what);
        if (!tb_proc_alive(p))
            return tb_errf(
                err, "%s exited with code %d before listening on %s:%d (see %s/logs/%s.stderr.log)",
                what, p->code, host, port, s->dir, what);
        if (try_connect(host, port) == 0)
            return 0;
        tb_sleep_ns(20000000);
    }
    return tb_errf(err, "%s not listening on %s:%d after 60 s (see %s/logs/%s.stderr.log)", what,
                   host, port, s->dir, what);
}

/* The files a child's stdout and stderr go to: new files in logs/ (an old one of
 * the same name removed first, never opened), by descriptor. Fills *out, *errfd
 * (caller closes both) or returns -1 with neither open. */
static int open_logs_pair(run_state *s, const char *out_name, const char *err_name, int *out,
                          int *errfd, tb_err *err)
{
    char logs[PATH_MAX];
    in_dir(s, logs, sizeof logs, "logs");
    *out = tb_file_create_at(s->logs_fd, logs, out_name, 0, 0644, err);
    if (*out < 0)
        return -1;
    *errfd = tb_file_create_at(s->logs_fd, logs, err_name, 0, 0644, err);
    if (*errfd < 0) {
        close(*out);
        return -1;
    }
    return 0;
}

static int spawn_logged(run_state *s, const char *name, char **argv, tb_proc *p, tb_err *err)
{
    char out_name[128], err_name[128];
    snprintf(out_name, sizeof out_name, "%s.stdout.log", name);
    snprintf(err_name, sizeof err_name, "%s.stderr.log", name);
    int out, errfd;
    if (open_logs_pair(s, out_name, err_name, &out, &errfd, err) < 0)
        return -1;
    char *env[] = {s->sim_env[0] ? s->sim_env : NULL, NULL};
    tb_proc_opts o = {.argv = argv, .env_set = env, .stdout_fd = out, .stderr_fd = errfd};
    int rc = tb_proc_spawn(&o, p, err);
    close(out);
    close(errfd);
    return rc;
}

/* The fixture PKI is generated in-process (serve/pki) into <run dir>/pki; the
 * fixture server is `teebench serve --tls --pki <run dir>/pki`. */
static int start_fixture(run_state *s, const volatile sig_atomic_t *cancel, tb_err *err)
{
    const tb_bench_config *c = s->c;
    char pki[PATH_MAX], port[16];
    in_dir(s, pki, sizeof pki, "pki");
    snprintf(port, sizeof port, "%d", s->fixture_port);
    if (check_port_free("fixture", c->fixture_addr, s->fixture_port, err) < 0)
        return -1;
    if (tb_pki_generate_at(s->dfd, s->dir, "pki", err) < 0)
        return tb_err_wrap(err, "fixture PKI");
    if (!s->fixture_ca[0] &&
        tb_pki_path(pki, TB_PKI_CA_CERT, s->fixture_ca, sizeof s->fixture_ca, err) < 0)
        return tb_err_wrap(err, "fixture PKI");
    char *argv[] = {(char *)c->self_exe,     "serve",  "--tls", "--pki", pki, "--addr",
                    (char *)c->fixture_addr, "--port", port,    NULL};
    if (spawn_logged(s, "fixture", argv, &s->fixture, err) < 0)
        return tb_err_wrap(err, "fixture server");
    return wait_listening(s, &s->fixture, "fixture", c->fixture_addr, s->fixture_port, cancel, err);
}

/* `teebench notary serve` on notary_host:notary_port, trusting the fixture CA,
 * with its simulated TEE state (if any) in <run dir>/sim. */
static int start_notary(run_state *s, const volatile sig_atomic_t *cancel, tb_err *err)
{
    const tb_bench_config *c = s->c;
    char port[16], sent[32], recv[32];
    snprintf(port, sizeof port, "%d", s->notary_port);
    snprintf(sent, sizeof sent, "%ld", c->max_sent_data);
    snprintf(recv, sizeof recv, "%ld", c->max_recv_data);
    char *argv[16] = {(char *)c->self_exe,
                      "notary",
                      "serve",
                      "--addr",
                      (char *)c->notary_host,
                      "--port",
                      port,
                      "--tee",
                      s->notary_tee,
                      "--max-sent",
                      sent,
                      "--max-recv",
                      recv};
    int n = 13;
    if (s->fixture_ca[0]) {
        argv[n++] = "--trust-ca";
        argv[n++] = s->fixture_ca;
    }
    argv[n] = NULL;
    if (check_port_free("notary", c->notary_host, s->notary_port, err) < 0)
        return -1;
    if (spawn_logged(s, "notary", argv, &s->notary, err) < 0)
        return tb_err_wrap(err, "notary");
    return wait_listening(s, &s->notary, "notary", c->notary_host, s->notary_port, cancel, err);
}

static void stop_servers(run_state *s)
{
    if (s->notary.pid > 0)
        tb_proc_stop(&s->notary, 3000);
    if (s->fixture.pid > 0)
        tb_proc_stop(&s->fixture, 3000);
}

/* ---- one run ---- */

/* The client's environment: the source script's variables plus the mode. */
typedef struct client_env {
    char vars[26][PATH_MAX + 64];
    char *ptrs[27];
} client_env;

static void build_env(const run_state *s, const char *mode, long iteration, int tee, int verify,
                      client_env *e)
{
    const tb_bench_config *c = s->c;
    int n = 0;
#define ENV(...) snprintf(e->vars[n++], sizeof e->vars[0], __VA_ARGS__)
    ENV("NOTARY_SCHEME=%s", c->notary_scheme);
    ENV("NOTARY_HOST=%s", c->notary_host);
    ENV("NOTARY_PORT=%d", s->notary_port);
    ENV("TARGET_HOST=%s", tb_bench_config_target_host(c));
    ENV("TARGET_PORT=%d", s->target_port);
    ENV("TARGET_SERVER_NAME=%s", c->target_server_name);
    ENV("TARGET_URI=%s", c->target_uri);
    ENV("MAX_SENT_DATA=%ld", c->max_sent_data);
    ENV("MAX_RECV_DATA=%ld", c->max_recv_data);
    ENV("USE_FIXTURE_CA=%s", c->use_fixture_ca ? "true" : "false");
    ENV("FIXTURE_CA=%s", s->fixture_ca);
    ENV("ENABLE_TEE_ATTESTATION=%d", tee ? 1 : 0); /* 0/1, as the script passes them */
    ENV("VERIFY_ATTESTATION=%d", verify ? 1 : 0);
    ENV("RUN_TIMEOUT_SECONDS=%d", c->run_timeout_s);
    ENV("BENCHMARK_MODE=%s", mode);
    ENV("BENCHMARK_ITERATION=%ld", iteration);
    ENV("NOTARY_TEE=%s", s->notary_tee);
    ENV("PCCS_URL=%s", c->pccs_url);
    ENV("COLLATERAL=%s", c->collateral);
    ENV("SNP_CERTS=%s", c->snp_certs);
    ENV("KDS_URL=%s", c->kds_url);
    if (s->sim_env[0])
        ENV("%s", s->sim_env);
#undef ENV
    for (int i = 0; i < n; i++)
        e->ptrs[i] = e->vars[i];
    e->ptrs[n] = NULL;
}

/* A run's log path as the script writes it: <run dir as given>/logs/<mode>-<it>... */
static void log_names(const run_state *s, const char *mode, long it, int attempt,
                      const char *stream, char *path, size_t n)
{
    if (attempt)
        snprintf(path, n, "%s/logs/%s-%ld.attempt%d.%s.log", s->dir, mode, it, attempt, stream);
    else
        snprintf(path, n, "%s/logs/%s-%ld.%s.log", s->dir, mode, it, stream);
}

/* The file name in logs/ of a log path from log_names. */
static const char *log_base(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The script's line at the end of a timed-out run's stderr log. Written after the
 * process group is gone, so that nothing the client writes meanwhile overwrites it
 * (the client's file offset is its own). A failure to write it is not an error. */
static void note_timeout(const run_state *s, const char *stderr_path, int timeout_s)
{
    int fd =
        openat(s->logs_fd, log_base(stderr_path), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return;
    char line[96];
    int n = snprintf(line, sizeof line, "benchmark runner: timed out after %ds\n", timeout_s);
    if (write(fd, line, (size_t)n) != n) {
        /* nothing to do: the row still says exit 124 */
    }
    close(fd);
}

/* The last value of KEY=value in text (a whitespace-separated token) if it is a plain
   number, else "" (out: at least 64 bytes). */
static void last_value(const char *text, size_t len, const char *key, char *out)
{
    size_t kl = strlen(key);
    out[0] = 0;
    for (size_t i = 0; i + kl < len; i++) {
        if ((i && !isspace((unsigned char)text[i - 1])) || memcmp(text + i, key, kl) ||
            text[i + kl] != '=')
            continue;
        size_t j = i + kl + 1, k = 0;
        char v[64];
        while (j < len && !isspace((unsigned char)text[j]) && k + 1 < sizeof v)
            v[k++] = text[j++];
        v[k] = 0;
        int ok = k > 0 && (j >= len || isspace((unsigned char)text[j]));
        for (size_t q = 0; ok && q < k; q++)
            ok = isdigit((unsigned char)v[q]) || v[q] == '.';
        snprintf(out, 64, "%s", ok ? v : "");
    }
}

/* The extra CSV's row of this attempt (see tb_bench_config.extra_csv). */
static void extra_row(run_state *s, const tb_bench_result_row *row, const char *text, size_t len)
{
    if (s->extra_fd < 0)
        return;
    tb_buf_reset(&s->extra_line);
    tb_buf line = {0};
    if (tb_bench_results_format_row(row, &line) == 0) {
        /* mode (as results.csv writes it: the formula guard), iteration, exit code */
        size_t commas = 0, cut = 0;
        for (; cut < line.len && commas < 2; cut++)
            commas += line.p[cut] == ',';
        tb_buf_append(&s->extra_line, line.p, cut);
        tb_buf_printf(&s->extra_line, "%d", row->exit_code);
    }
    tb_buf_clear(&line);
    char keys[sizeof s->c->extra_keys];
    snprintf(keys, sizeof keys, "%s", s->c->extra_keys);
    char *save = NULL;
    for (char *k = strtok_r(keys, " ", &save); k; k = strtok_r(NULL, " ", &save)) {
        char v[64] = "";
        if (text)
            last_value(text, len, k, v);
        tb_buf_printf(&s->extra_line, ",%s", v);
    }
    tb_buf_puts(&s->extra_line, "\n");
}

static int extra_header(const tb_bench_config *c, char *out, size_t n)
{
    size_t k = (size_t)snprintf(out, n, "mode,iteration,exit_code");
    for (const char *p = c->extra_keys; *p && k + 2 < n; p++) {
        if (*p == ' ') {
            if (p[1] && p[1] != ' ')
                out[k++] = ',';
            continue;
        }
        if (p == c->extra_keys)
            out[k++] = ',';
        out[k++] = (char)tolower((unsigned char)*p);
    }
    out[k] = 0;
    return k + 2 < n ? 0 : -1;
}

/* The row of a run before it starts: mode, iteration, the mode's flags, the logs'
 * names. */
static void start_row(const run_state *s, const char *mode, long it, tb_bench_result_row *row)
{
    memset(row, 0, sizeof *row);
    snprintf(row->mode, sizeof row->mode, "%s", mode);
    row->iteration = it;
    tb_bench_mode_flags(mode, &row->enable_tee, &row->verify);
    log_names(s, mode, it, 0, "stdout", row->stdout_log, sizeof row->stdout_log);
    log_names(s, mode, it, 0, "stderr", row->stderr_log, sizeof row->stderr_log);
}

/* The client's command: CLIENT_CMD through /bin/sh -c, else `teebench notarize` with
 * the verification flags of a verifying mode and the fixture CA. argv has room for 16
 * (13 words and the NULL at most); its strings are s's, or static. */
static void client_argv(const run_state *s, const tb_bench_result_row *row, char **argv)
{
    const tb_bench_config *c = s->c;
    int n = 0;
    if (c->client_cmd[0]) {
        argv[n++] = "/bin/sh";
        argv[n++] = "-c";
        argv[n++] = (char *)c->client_cmd;
        argv[n] = NULL;
        return;
    }
    argv[n++] = (char *)c->self_exe;
    argv[n++] = "notarize";
    if (row->verify) {
        const struct {
            const char *flag, *value;
        } opt[] = {{"--pccs", c->pccs_url},
                   {"--collateral", c->collateral},
                   {"--certs", c->snp_certs},
                   {"--kds", c->kds_url}};
        argv[n++] = "--verify";
        for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++)
            if (opt[i].value[0]) {
                argv[n++] = (char *)opt[i].flag;
                argv[n++] = (char *)opt[i].value;
            }
    }
    if (c->use_fixture_ca && s->fixture_ca[0]) {
        argv[n++] = "--fixture-ca";
        argv[n++] = (char *)s->fixture_ca;
    }
    argv[n] = NULL;
}

/* Starts the client of row with environment env, its output going to the row's logs;
 * *t0 is when it was started. 0, or -1 with err. */
static int spawn_client(run_state *s, const tb_bench_result_row *row, const client_env *env,
                        tb_proc *p, uint64_t *t0, tb_err *err)
{
    char *argv[16];
    client_argv(s, row, argv);
    int outfd, errfd;
    if (open_logs_pair(s, log_base(row->stdout_log), log_base(row->stderr_log), &outfd, &errfd,
                       err) < 0)
        return -1;
    tb_proc_opts o = {
        .argv = argv, .env_set = (char **)env->ptrs, .stdout_fd = outfd, .stderr_fd = errfd};
    *t0 = tb_mono_ns();
    int rc = tb_proc_spawn(&o, p, err);
    close(outfd);
    close(errfd);
    return rc;
}

/* Waits for the client, at most RUN_TIMEOUT_SECONDS; then, as the script, SIGTERM to
 * its process group, a grace period, and SIGKILL (tb_proc_kill), cancellation
 * cutting the grace short. *cancelled when cancellation (or a failed wait) ended it.
 * 1 when it timed out, else 0. */
static int wait_client(const run_state *s, tb_proc *p, const char *stderr_log,
                       const volatile sig_atomic_t *cancel, int *cancelled, tb_err *err)
{
    const tb_bench_config *c = s->c;
    int w = tb_proc_wait(p, (int64_t)c->run_timeout_s * 1000, cancel, err);
    int timed_out = w == TB_PROC_TIMEDOUT;
    if (timed_out) {
        kill(-p->pid, SIGTERM);
        w = tb_proc_wait(p, c->term_grace_ms, cancel, err);
    }
    if (w != TB_PROC_EXITED)
        tb_proc_kill(p);
    *cancelled = w == TB_PROC_CANCELLED || w < 0;
    if (timed_out && !*cancelled)
        note_timeout(s, stderr_log, c->run_timeout_s);
    return timed_out;
}

/* The figures the client printed on stdout, into row (and the extra CSV's row): an
 * unreadable log leaves them absent. */
static void read_client_output(run_state *s, tb_bench_result_row *row)
{
    tb_buf b = {0};
    tb_err rerr;
    char logs[PATH_MAX];
    in_dir(s, logs, sizeof logs, "logs");
    if (tb_file_read_at(s->logs_fd, logs, log_base(row->stdout_log), 64u << 20, &b, &rerr) == 0) {
        tb_bench_client_output co;
        tb_bench_client_output_parse((const char *)b.p, b.len, &co);
        row->has |= co.has;
        row->notarization_ms = co.notarization_ms;
        row->total_e2e_ms = co.total_e2e_ms;
        row->tdx_verify_ms = co.tdx_verify_ms;
        if (co.has & TB_BENCH_HAS_NOTARIZATION) {
            row->has |= TB_BENCH_HAS_NOTARIZATION_PLUS_VERIFY;
            row->notarization_plus_verify_ms =
                co.notarization_ms + ((co.has & TB_BENCH_HAS_TDX_VERIFY) ? co.tdx_verify_ms : 0);
        }
    }
    extra_row(s, row, (const char *)b.p, b.len);
    tb_buf_clear(&b);
}

/* Runs the client once; fills row (logs under their final names). Returns -1
 * only when the client could not be started at all or cancellation hit. */
static int run_once(run_state *s, const char *mode, long it, const volatile sig_atomic_t *cancel,
                    tb_bench_result_row *row, int *cancelled, tb_err *err)
{
    start_row(s, mode, it, row);
    client_env *env = malloc(sizeof *env);
    if (!env)
        return tb_errf(err, "out of memory");
    build_env(s, mode, it, row->enable_tee, row->verify, env);
    tb_proc p;
    uint64_t t0;
    int prc = spawn_client(s, row, env, &p, &t0, err);
    free(env);
    if (prc < 0)
        return tb_err_wrap(err, "%s iteration %ld: client", mode, it);
    int timed_out = wait_client(s, &p, row->stderr_log, cancel, cancelled, err);
    row->exit_code = timed_out ? TB_PROC_TIMEOUT_CODE : p.code;
    row->wall_ms = (double)(tb_mono_ns() - t0) / 1e6;
    row->has |= TB_BENCH_HAS_WALL;
    read_client_output(s, row);
    return 0;
}

static int append_row(run_state *s, const tb_bench_result_row *row, tb_err *err)
{
    tb_buf b = {0};
    int rc = tb_bench_results_format_row(row, &b) < 0
                 ? tb_errf(err, "out of memory")
                 : tb_bench_csv_append_line(s->results_fd, (const char *)b.p, b.len, err);
    tb_buf_clear(&b);
    if (rc == 0 && s->extra_fd >= 0 && s->extra_line.len &&
        tb_bench_csv_append_line(s->extra_fd, (const char *)s->extra_line.p, s->extra_line.len,
                                 err) < 0)
        return tb_err_wrap(err, "%s/%s: the row of %s iteration %ld", s->dir, s->c->extra_csv,
                           row->mode, row->iteration);
    return rc < 0 ? tb_err_wrap(err,
                                "%s/results.csv: the row of %s iteration %ld (not written; "
                                "the rows before it are intact)",
                                s->dir, row->mode, row->iteration)
                  : 0;
}

/* Below this much free space in the run directory's filesystem a failed run is
 * blamed on the disk: its client could not write its logs. */
#define MIN_FREE_BYTES (64u * 1024u)

/* After a failed run: is the disk full? Then the failure is not the client's and
 * the run stops with ENOSPC instead of recording (and retrying) "FAILED" runs. */
static int check_space(const run_state *s, tb_err *err)
{
    struct statvfs v;
    if (fstatvfs(s->dfd, &v) < 0)
        return 0; /* cannot tell: let the run go on */
    unsigned long long blocks = geteuid() == 0 ? v.f_bfree : v.f_bavail;
    unsigned long long bytes = blocks * (unsigned long long)v.f_frsize;
    if (bytes >= MIN_FREE_BYTES)
        return 0;
    errno = ENOSPC;
    return tb_errno(err,
                    "%s: %llu bytes free, the client's logs cannot be written (the failed run "
                    "is not recorded)",
                    s->dir, bytes);
}

/* Moves a failed attempt's logs aside and records it in retries.csv. */
static int record_retry(run_state *s, const tb_bench_result_row *row, int attempt, tb_err *err)
{
    tb_bench_retry_row t;
    memset(&t, 0, sizeof t);
    snprintf(t.mode, sizeof t.mode, "%s", row->mode);
    t.iteration = row->iteration;
    t.attempt = attempt;
    t.exit_code = row->exit_code;
    t.wall_ms = row->wall_ms;
    log_names(s, row->mode, row->iteration, attempt, "stdout", t.stdout_log, sizeof t.stdout_log);
    log_names(s, row->mode, row->iteration, attempt, "stderr", t.stderr_log, sizeof t.stderr_log);
    const char *pairs[2][2] = {{row->stdout_log, t.stdout_log}, {row->stderr_log, t.stderr_log}};
    for (int i = 0; i < 2; i++)
        if (renameat(s->logs_fd, log_base(pairs[i][0]), s->logs_fd, log_base(pairs[i][1])) < 0)
            return tb_errno(err, "rename %s", pairs[i][0]);
    tb_buf b = {0};
    int rc = tb_bench_retries_format_row(&t, &b) < 0
                 ? tb_errf(err, "out of memory")
                 : tb_bench_csv_append_line(s->retries_fd, (const char *)b.p, b.len, err);
    tb_buf_clear(&b);
    return rc < 0 ? tb_err_wrap(err, "%s/retries.csv", s->dir) : 0;
}

/* A server the harness started that exited ends the run: every later run would
 * fail against it. */
static int servers_dead(run_state *s, tb_err *err)
{
    const struct {
        tb_proc *p;
        int started;
        const char *name;
    } srv[] = {{&s->fixture, s->c->start_fixture, "fixture"},
               {&s->notary, s->c->start_notary, "notary"}};
    for (int i = 0; i < 2; i++)
        if (srv[i].started && !tb_proc_alive(srv[i].p))
            return tb_errf(
                err, "the %s server exited with code %d during the run (see %s/logs/%s.stderr.log)",
                srv[i].name, srv[i].p->code, s->dir, srv[i].name);
    return 0;
}

static int run_matrix(run_state *s, const volatile sig_atomic_t *cancel, tb_bench_outcome *oc,
                      tb_err *err)
{
    const tb_bench_config *c = s->c;
    for (long it = 1; it <= c->iterations; it++) {
        for (int m = 0; m < c->n_modes; m++) {
            for (int attempt = 1;; attempt++) {
                if (cancel && *cancel) {
                    oc->interrupted = 1;
                    return 0;
                }
                if (servers_dead(s, err) < 0)
                    return -1;
                tb_bench_result_row row;
                int cancelled = 0;
                if (run_once(s, c->modes[m], it, cancel, &row, &cancelled, err) < 0)
                    return -1;
                if (cancelled) {
                    oc->interrupted = 1;
                    return 0;
                }
                int ok = tb_bench_result_ok(&row);
                if (!ok && check_space(s, err) < 0)
                    return -1;
                int retry = !ok && attempt <= c->retries;
                if (s->progress) {
                    tb_bench_event ev = {
                        .kind = "attempt", .row = &row, .attempt = attempt, .will_retry = retry};
                    s->progress(&ev, s->ctx);
                }
                if (retry) {
                    if (record_retry(s, &row, attempt, err) < 0)
                        return -1;
                    oc->retried++;
                    continue;
                }
                if (append_row(s, &row, err) < 0)
                    return -1;
                oc->completed++;
                oc->failed += !ok;
                break;
            }
        }
    }
    return 0;
}

static int write_summary(run_state *s, tb_err *err)
{
    tb_buf text = {0};
    int rc = tb_bench_summarize(s->dir, 0, &text, NULL, err);
    if (rc == 0)
        rc = tb_file_write_at(s->dfd, s->dir, "summary.txt", text.p, text.len, 0644, err);
    tb_buf_clear(&text);
    return rc;
}

/* A run about to start: the configuration's, nothing open, no child. */
static void init_state(run_state *s, const tb_bench_config *c, tb_bench_progress progress,
                       void *ctx)
{
    memset(s, 0, sizeof *s);
    s->c = c;
    s->dfd = s->logs_fd = s->results_fd = s->retries_fd = s->extra_fd = -1;
    s->progress = progress;
    s->ctx = ctx;
    s->fixture.pid = s->notary.pid = -1;
    s->fixture.pidfd = s->notary.pidfd = -1;
    snprintf(s->fixture_ca, sizeof s->fixture_ca, "%s", c->fixture_ca);
}

/* The notary's TEE: as configured; for a notary the harness starts, auto-detected
 * from env (tdx on a TDX guest, snp on an SEV-SNP guest, else sim); for an external
 * one, unknown unless given. */
static void choose_notary_tee(run_state *s, const json_t *env)
{
    const tb_bench_config *c = s->c;
    const char *tee = c->notary_tee[0]   ? c->notary_tee
                      : !c->start_notary ? "external"
                                         : auto_tee(env);
    snprintf(s->notary_tee, sizeof s->notary_tee, "%s", tee);
    tb_tee kind;
    s->simulated = tb_tee_parse(tee, &kind) == 0 && tb_tee_simulated(kind);
}

/* A fixed port of a server the harness starts that is already taken. */
static int check_fixed_ports(const tb_bench_config *c, tb_err *err)
{
    if (c->start_fixture && c->fixture_port &&
        port_taken("fixture", c->fixture_addr, c->fixture_port, "--fixture-port", err))
        return -1;
    if (c->start_notary && c->notary_port &&
        port_taken("notary", c->notary_host, c->notary_port, "--notary-port", err))
        return -1;
    return 0;
}

/* The run's ports: a port 0 of a server the harness starts is a free one; the target
 * is the fixture unless given; an external notary's default is its scheme's. */
static int pick_ports(run_state *s, tb_err *err)
{
    const tb_bench_config *c = s->c;
    s->fixture_port = c->fixture_port;
    if (c->start_fixture && s->fixture_port == 0 && (s->fixture_port = tb_sock_free_port(err)) < 0)
        return -1;
    s->target_port = c->target_port ? c->target_port : s->fixture_port;
    s->notary_port = c->notary_port;
    /* Two picks in a row may return the same port: the notary's must differ. */
    for (int k = 0; c->start_notary && c->notary_port == 0 && k < 20; k++) {
        if ((s->notary_port = tb_sock_free_port(err)) < 0)
            return -1;
        if (s->notary_port != s->fixture_port)
            break;
    }
    if (!c->start_notary && s->notary_port == 0)
        s->notary_port = !strcmp(c->notary_scheme, "https") ? 443 : 7047;
    return 0;
}

/* results.csv, retries.csv and the extra CSV (when configured), each with its header. */
static int create_csvs(run_state *s, tb_err *err)
{
    const tb_bench_config *c = s->c;
    if ((s->results_fd = tb_bench_csv_create_at(s->dfd, s->dir, "results.csv",
                                                TB_BENCH_RESULTS_HEADER, err)) < 0 ||
        (s->retries_fd = tb_bench_csv_create_at(s->dfd, s->dir, "retries.csv",
                                                TB_BENCH_RETRIES_HEADER, err)) < 0)
        return -1;
    if (!c->extra_csv[0])
        return 0;
    char header[2048];
    if (extra_header(c, header, sizeof header) < 0)
        return tb_errf(err, "%s: too many columns", c->extra_csv);
    s->extra_fd = tb_bench_csv_create_at(s->dfd, s->dir, c->extra_csv, header, err);
    return s->extra_fd < 0 ? -1 : 0;
}

/* The run directory's files before the first run: env.json, run.json ("running"),
 * the CSVs. */
static int write_run_files(run_state *s, json_t *env, tb_err *err)
{
    if (write_json(s, "env.json", env, err) < 0 || write_run_json(s, "running", err) < 0)
        return -1;
    return create_csvs(s, err);
}

/* The fixture server and the notary, those the harness starts, each listening. */
static int start_servers(run_state *s, const volatile sig_atomic_t *cancel, tb_err *err)
{
    const tb_bench_config *c = s->c;
    if (c->start_fixture) {
        info(s, "starting fixture server (teebench serve --tls) on %s:%d", c->fixture_addr,
             s->fixture_port);
        if (start_fixture(s, cancel, err) < 0)
            return -1;
    }
    if (c->start_notary) {
        info(s, "starting notary (teebench notary serve --tee %s%s) on %s:%d", s->notary_tee,
             s->simulated ? ", SIMULATED TEE" : "", c->notary_host, s->notary_port);
        if (start_notary(s, cancel, err) < 0)
            return -1;
    }
    return 0;
}

/* The servers, then the matrix. Interrupted while a server was starting is not an
 * error. */
static int serve_and_run(run_state *s, const volatile sig_atomic_t *cancel, tb_bench_outcome *oc,
                         tb_err *err)
{
    if (start_servers(s, cancel, err) < 0) {
        if (!(cancel && *cancel))
            return -1;
        oc->interrupted = 1;
        return 0;
    }
    info(s, "%d iterations x %d modes, timeout %d s per run, %d retries; results in %s",
         s->c->iterations, s->c->n_modes, s->c->run_timeout_s, s->c->retries, s->dir);
    return run_matrix(s, cancel, oc, err);
}

/* The end of a run whose directory exists: the servers stopped, the files closed; once
 * the CSVs were made, run.json's final status and summary.txt (whose failure fails a
 * run that had not failed). rc: the run's result so far; returns the run's result. */
static int finish_run(run_state *s, int rc, const tb_bench_outcome *oc, tb_err *err)
{
    stop_servers(s);
    if (s->results_fd >= 0)
        close(s->results_fd);
    if (s->retries_fd >= 0)
        close(s->retries_fd);
    if (s->extra_fd >= 0)
        close(s->extra_fd);
    tb_buf_clear(&s->extra_line);
    if (s->dir[0] && s->results_fd >= 0) {
        tb_err e2;
        write_run_json(s, rc < 0 ? "failed" : oc->interrupted ? "interrupted" : "complete", &e2);
        if (write_summary(s, &e2) < 0 && rc == 0) {
            *err = e2;
            rc = -1;
        }
    }
    close(s->logs_fd);
    close(s->dfd);
    return rc;
}

int tb_bench_run(const tb_bench_config *c, const volatile sig_atomic_t *cancel,
                 tb_bench_progress progress, void *ctx, tb_bench_outcome *oc, tb_err *err)
{
    memset(oc, 0, sizeof *oc);
    run_state s;
    init_state(&s, c, progress, ctx);
    json_t *env = host_json();
    choose_notary_tee(&s, env);
    /* A fixed port already taken fails now, before the run directory exists. */
    if (check_fixed_ports(c, err) < 0 || make_run_dir(&s, err) < 0) {
        json_decref(env);
        if (s.dfd >= 0)
            close(s.dfd);
        return -1; /* logs/ is opened last: not open here */
    }
    snprintf(oc->run_dir, sizeof oc->run_dir, "%s", s.dir);
    if (c->start_notary)
        snprintf(s.sim_env, sizeof s.sim_env, "TEEBENCH_SIM_DIR=%s/sim", s.dir);
    int rc = pick_ports(&s, err) < 0 || write_run_files(&s, env, err) < 0
                 ? -1
                 : serve_and_run(&s, cancel, oc, err);
    json_decref(env);
    return finish_run(&s, rc, oc, err);
}

/* ---- summarize ---- */

static int read_notary_tee(const char *dir, char *tee, size_t n)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/run.json", dir);
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    if (!j)
        return -1;
    const char *t = json_string_value(json_object_get(j, "notary_tee"));
    int rc = -1;
    tb_tee kind;
    if (t && (tb_tee_parse(t, &kind) == 0 || !strcmp(t, "external"))) {
        snprintf(tee, n, "%s", t);
        rc = 0;
    }
    json_decref(j);
    return rc;
}

int tb_bench_summarize(const char *path, int want_json, tb_buf *out, tb_bench_summary *sum,
                       tb_err *err)
{
    if (sum)
        memset(sum, 0, sizeof *sum);
    char dir[PATH_MAX], csv[PATH_MAX];
    struct stat st;
    if (stat(path, &st) < 0)
        return tb_errno(err, "%s", path);
    if (S_ISDIR(st.st_mode)) {
        snprintf(dir, sizeof dir, "%s", path);
        if (snprintf(csv, sizeof csv, "%s/results.csv", path) >= (int)sizeof csv)
            return tb_errf(err, "%s: path too long", path);
    } else {
        snprintf(csv, sizeof csv, "%s", path);
        snprintf(dir, sizeof dir, "%s", path);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = 0;
        else
            strcpy(dir, ".");
    }
    tb_bench_results rs = {0};
    tb_bench_retries rt = {0};
    int have_retries = 0;
    int rc = tb_bench_results_load(csv, 1, &rs, err);
    if (rc == 0) {
        char rpath[PATH_MAX];
        snprintf(rpath, sizeof rpath, "%s/retries.csv", dir);
        tb_buf b = {0};
        tb_err e2;
        if (access(rpath, F_OK) == 0) {
            if (tb_file_read(rpath, TB_BENCH_RESULTS_MAX_BYTES, &b, err) < 0 ||
                tb_bench_retries_parse((const char *)b.p, b.len, &rt, err) < 0) {
                tb_err_wrap(err, "%s", rpath);
                rc = -1;
            }
            have_retries = 1;
        }
        (void)e2;
        tb_buf_clear(&b);
    }
    if (rc == 0) {
        char tee[16];
        tb_bench_report_opts o = {.source = csv,
                                  .notary_tee =
                                      read_notary_tee(dir, tee, sizeof tee) == 0 ? tee : NULL,
                                  .retries = have_retries ? &rt : NULL};
        rc = tb_bench_report_summary(&rs, &o, out, NULL, want_json && sum ? &sum->json : NULL, err);
    }
    if (rc == 0 && sum) {
        sum->n_damaged = rs.n_damaged;
        if (rs.n_damaged)
            sum->first_damaged = rs.damaged[0];
    }
    tb_bench_results_clear(&rs);
    tb_bench_retries_clear(&rt);
    return rc;
}
