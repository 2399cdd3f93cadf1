/* suite/run: tb_suite_run -- the record of one run, the work directory, the
 * servers shared by the rounds (nginx, the fixture server), the rounds
 * themselves, progress events with an ETA, and the cleanup.
 *
 * Invariants: every server and child started here is stopped before
 * tb_suite_run returns, whatever happened (failure, interrupt); a step's
 * problem is recorded once in the record's extra ("skipped" / "failures") and
 * never stops the other steps; the record's status is "interrupted" when the
 * stop flag was seen, else "failed" when a step failed, else "complete". */
#include "suite/internal.h"

#include <errno.h>
#include <ftw.h>
#include <gnu/libc-version.h>
#include <math.h>
#include <stdarg.h>
#include <netinet/in.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/file.h"
#include "serve/nginx.h"
#include "serve/pki.h"
#include "sys/env.h"

/* ---- helpers shared by the workload files ---- */

int suite_stopped(const suite_ctx *c)
{
    return c->stop && *c->stop;
}

int suite_path(const suite_ctx *c, const char *rel, char *out, size_t n, tb_err *err)
{
    int k = snprintf(out, n, "%s/%s", c->work, rel);
    if (k < 0 || (size_t)k >= n)
        return tb_errf(err, "%s/%s: path too long", c->work, rel);
    return 0;
}

int suite_create(const suite_ctx *c, const char *name, tb_err *err)
{
    return tb_file_create_at(c->work_fd, c->work, name, 0, 0644, err);
}

int suite_read(const suite_ctx *c, const char *name, size_t max, tb_buf *out, tb_err *err)
{
    return tb_file_read_at(c->work_fd, c->work, name, max, out, err);
}

void suite_fmt_duration(double s, char *out, size_t n)
{
    double ms = round(s * 1000);
    if (fmod(ms, 1000) == 0)
        snprintf(out, n, "%.0fs", ms / 1000);
    else
        snprintf(out, n, "%.0fms", ms);
}

static const tb_suite_metric_spec *find_spec(const suite_ctx *c, const char *name)
{
    for (size_t i = 0; i < c->n_specs; i++)
        if (!strcmp(c->specs[i].name, name))
            return &c->specs[i];
    return NULL;
}

int suite_sample(suite_ctx *c, const char *name, double value, int simulated, const char *note,
                 tb_err *err)
{
    const tb_suite_metric_spec *s = find_spec(c, name);
    if (!s)
        return tb_errf(err, "metric %s is not in the plan's metrics", name);
    tb_metric *m = tb_record_metric(c->r, name, s->unit, s->better, s->workload->name, err);
    if (!m)
        return -1;
    if (note && !m->note && tb_metric_set_note(m, note, err) < 0)
        return -1;
    if (simulated) {
        m->simulated = 1;
        c->r->simulated = 1;
    }
    return tb_metric_add(m, value, err);
}

void suite_command(suite_ctx *c, char *const *argv)
{
    tb_buf b = {0};
    int rc = 0;
    if (!strcmp(argv[0], c->exe))
        rc = tb_buf_puts(&b, "teebench ") | tb_suite_shell_join(argv + 1, &b);
    else
        rc = tb_suite_shell_join(argv, &b);
    if (rc == 0 && b.p) {
        size_t i;
        json_t *e;
        int dup = 0;
        json_array_foreach(c->r->commands, i, e) dup |= !strcmp(json_string_value(e), (char *)b.p);
        if (!dup)
            json_array_append_new(c->r->commands, json_string((char *)b.p));
    }
    tb_buf_clear(&b);
}

void suite_problem(json_t *arr, const char *workload, const char *target, int round,
                   const char *reason)
{
    json_t *o = json_pack("{s:s, s:s, s:s}", "workload", workload, "target", target ? target : "",
                          "reason", reason);
    if (o && round > 0)
        json_object_set_new(o, "round", json_integer(round));
    if (o)
        json_array_append_new(arr, o);
}

/* ---- progress ---- */

typedef struct progress {
    tb_suite_hooks *h;
    uint64_t t0;
    double est_total, est_done;
    int steps, step, rounds;
} progress;

static double elapsed(const progress *g)
{
    return (double)(tb_mono_ns() - g->t0) / 1e9;
}

/* Time left: the estimate of what is left, scaled by how the estimates have
   held so far (once a second of them has passed). */
static double eta(const progress *g)
{
    double left = g->est_total - g->est_done, el = elapsed(g);
    if (left < 0)
        left = 0;
    if (g->est_done > 1.0 && el > 0)
        left *= el / g->est_done;
    return left;
}

static void emit(progress *g, tb_suite_event_kind kind, const char *workload, const char *target,
                 int round, double step_s, const char *status, const char *text)
{
    if (!g->h || !g->h->progress)
        return;
    tb_suite_event ev = {.kind = kind,
                         .workload = workload ? workload : "",
                         .target = target ? target : "",
                         .round = round,
                         .rounds = g->rounds,
                         .step = g->step,
                         .steps = g->steps,
                         .elapsed_s = elapsed(g),
                         .eta_s = eta(g),
                         .step_s = step_s,
                         .status = status ? status : "",
                         .text = text ? text : ""};
    g->h->progress(&ev, g->h->ctx);
}

static void info(progress *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void info(progress *g, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    emit(g, TB_SUITE_EV_INFO, NULL, NULL, 0, 0, NULL, text);
}

/* ---- the work directory ---- */

static int make_work(suite_ctx *c, tb_err *err)
{
    const char *wd = c->p->work_dir;
    if (wd[0]) {
        char cwd[PATH_MAX];
        int k;
        if (wd[0] == '/')
            k = snprintf(c->work, sizeof c->work, "%s", wd);
        else if (getcwd(cwd, sizeof cwd))
            k = snprintf(c->work, sizeof c->work, "%s/%s", cwd, wd);
        else
            return tb_errno(err, "work directory %s: getcwd", wd);
        if (k < 0 || (size_t)k >= sizeof c->work - 128)
            return tb_errf(err, "work directory %s: path too long", wd);
        /* another user's, or one others may write, is refused: they could plant a
           symlink for a log or a key to be written through */
        c->work_fd = tb_dir_open_private(c->work, 0700, err);
        return c->work_fd < 0 ? tb_err_wrap(err, "work directory") : 0;
    }
    const char *tmp = getenv("TMPDIR");
    if (!tmp || tmp[0] != '/' || strlen(tmp) > 512)
        tmp = "/tmp";
    snprintf(c->work, sizeof c->work, "%s/teebench-suite.XXXXXX", tmp);
    if (!mkdtemp(c->work))
        return tb_errno(err, "work directory %s", c->work);
    c->own_work = 1;
    /* mkdtemp made it 0700 and ours; nginx's workers need no way through it (nginx
       runs inside its own run directory, see serve/nginx) */
    c->work_fd = tb_dir_open_private(c->work, 0700, err);
    return c->work_fd < 0 ? tb_err_wrap(err, "work directory") : 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
    (void)st;
    (void)f;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

/* ---- versions ---- */

/* "nginx/1.22.1" from `nginx -v` (it prints "nginx version: nginx/1.22.1" on stderr). */
static void nginx_version(suite_ctx *c, char *out, size_t n)
{
    out[0] = 0;
    tb_err e;
    int fd;
    if (access(HTTP(c)->nginx_bin, X_OK) < 0 || (fd = suite_create(c, "nginx-version.txt", &e)) < 0)
        return;
    char *argv[] = {(char *)HTTP(c)->nginx_bin, "-v", NULL};
    tb_proc_opts o = {.argv = argv, .stdout_fd = fd, .stderr_fd = fd};
    tb_proc_result r;
    int rc = tb_proc_run(&o, 5000, NULL, &r, &e);
    close(fd);
    if (rc < 0 || r.exit_code != 0)
        return;
    tb_buf b = {0};
    if (suite_read(c, "nginx-version.txt", 4096, &b, &e) == 0 && b.p) {
        char *s = (char *)b.p, *v = strstr(s, "version: ");
        v = v ? v + 9 : s;
        v[strcspn(v, "\r\n")] = 0;
        snprintf(out, n, "%s", v);
    }
    tb_buf_clear(&b);
}

static void set_versions(suite_ctx *c)
{
    json_t *v = c->r->versions;
    struct utsname u;
    json_object_set_new(v, "teebench", json_string(TEEBENCH_VERSION));
    json_object_set_new(v, "openssl", json_string(OpenSSL_version(OPENSSL_VERSION)));
    if (uname(&u) == 0)
        json_object_set_new(v, "kernel", json_string(u.release));
    json_object_set_new(v, "glibc", json_string(gnu_get_libc_version()));
    char nv[256];
    if (tb_suite_plan_enabled(c->p, &tb_wl_http) && HTTP(c)->nginx) {
        nginx_version(c, nv, sizeof nv);
        json_object_set_new(v, "nginx", json_string(nv[0] ? nv : "not installed"));
    }
}

/* ---- servers ---- */

static int pick_free_port(tb_err *err)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return tb_errno(err, "socket");
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int rc = bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
                     getsockname(fd, (struct sockaddr *)&a, &len) == 0
                 ? ntohs(a.sin_port)
                 : tb_errno(err, "picking a free port");
    close(fd);
    return rc;
}

static int ensure_pki(suite_ctx *c, tb_err *err)
{
    if (c->ca[0])
        return 0;
    if (suite_path(c, "pki", c->pki, sizeof c->pki, err) < 0 ||
        tb_pki_generate_at(c->work_fd, c->work, "pki", err) < 0 ||
        tb_pki_path(c->pki, TB_PKI_CA_CERT, c->ca, sizeof c->ca, err) < 0) {
        c->ca[0] = 0;
        return tb_err_wrap(err, "fixture PKI");
    }
    return 0;
}

/* The port from serve's "listening on https://127.0.0.1:PORT with ..." line in the
   work directory's file name. */
static int listening_port(const suite_ctx *c, const char *name)
{
    tb_buf b = {0};
    tb_err e;
    int port = 0;
    if (suite_read(c, name, 1 << 16, &b, &e) == 0 && b.p) {
        const char *s = strstr((char *)b.p, "listening on https://127.0.0.1:");
        if (s)
            port = atoi(s + strlen("listening on https://127.0.0.1:"));
    }
    tb_buf_clear(&b);
    return port;
}

/* `teebench serve --tls` on a port it picks itself (read back from its output). */
static int start_fixture(suite_ctx *c, tb_err *err)
{
    char threads[16];
    int out = -1, errfd = -1;
    if (ensure_pki(c, err) < 0 || (out = suite_create(c, "fixture.stdout.log", err)) < 0 ||
        (errfd = suite_create(c, "fixture.stderr.log", err)) < 0) {
        if (out >= 0)
            close(out);
        return -1;
    }
    snprintf(threads, sizeof threads, "%d", c->server_threads);
    char *argv[] = {c->exe,      "serve",  "--tls", "--pki",     c->pki,  "--addr",
                    "127.0.0.1", "--port", "0",     "--threads", threads, NULL};
    tb_proc_opts o = {.argv = argv, .stdout_fd = out, .stderr_fd = errfd};
    int spawned = tb_proc_spawn(&o, &c->fixture, err);
    close(out);
    close(errfd);
    if (spawned < 0)
        return tb_err_wrap(err, "fixture server");
    suite_command(c, argv);
    uint64_t deadline = tb_mono_ns() + 15000000000ull;
    while (tb_mono_ns() < deadline && !suite_stopped(c)) {
        if (!tb_proc_alive(&c->fixture)) {
            tb_buf b = {0};
            tb_err e2;
            suite_read(c, "fixture.stderr.log", 4096, &b, &e2);
            char *line = b.p ? (char *)b.p : "";
            line[strcspn(line, "\n")] = 0;
            tb_errf(err, "fixture server exited with code %d: %s", c->fixture.code, line);
            tb_buf_clear(&b);
            return -1;
        }
        if ((c->fixture_port = listening_port(c, "fixture.stdout.log")) > 0) {
            c->fixture_up = 1;
            return 0;
        }
        tb_sleep_ns(20000000);
    }
    tb_proc_stop(&c->fixture, 2000);
    return suite_stopped(c) ? tb_errf(err, "interrupted")
                            : tb_errf(err, "fixture server not listening after 15 s");
}

static int start_nginx(suite_ctx *c, tb_err *err)
{
    if (access(HTTP(c)->nginx_bin, X_OK) < 0) {
        c->nginx_skip = 1;
        return tb_errf(err,
                       "nginx is not installed (%s: %s; install the Debian package "
                       "nginx-light or nginx)",
                       HTTP(c)->nginx_bin, strerror(errno));
    }
    if (suite_path(c, "nginx", c->nginx_dir, sizeof c->nginx_dir, err) < 0)
        return -1;
    int rc = -1;
    for (int attempt = 0; attempt < 3 && rc < 0; attempt++) {
        if ((c->nginx_port = pick_free_port(err)) < 0)
            return -1;
        tb_nginx_opts o = {.dir = c->nginx_dir,
                           .addr = "127.0.0.1",
                           .port = c->nginx_port,
                           .workers = c->server_threads,
                           .nginx = HTTP(c)->nginx_bin};
        rc = tb_nginx_start(&o, 10000, NULL, err);
    }
    if (rc < 0)
        return tb_err_wrap(err, "starting nginx");
    char port[16], workers[16];
    snprintf(port, sizeof port, "%d", c->nginx_port);
    snprintf(workers, sizeof workers, "%d", c->server_threads);
    char *argv[] = {c->exe,   "nginx", "start",     "--dir", c->nginx_dir,
                    "--port", port,    "--workers", workers, NULL};
    suite_command(c, argv);
    c->nginx_up = 1;
    return 0;
}

static void start_servers(suite_ctx *c, progress *g)
{
    const tb_wl_http_params *h = HTTP(c);
    tb_err e;
    int http = tb_suite_plan_enabled(c->p, &tb_wl_http);
    tb_wl_services want;
    tb_suite_plan_services(c->p, &want);
    if (http && h->nginx && h->nginx_url[0]) {
        c->nginx_remote = 1; /* somebody else's nginx: loaded, not started or stopped here */
        c->nginx_up = 1;
        info(g, "nginx at %s (not started here: the load generator is this machine)", h->nginx_url);
    } else if (http && h->nginx) {
        if (start_nginx(c, &e) < 0)
            snprintf(c->nginx_reason, sizeof c->nginx_reason, "%s", e.msg);
        else
            info(g, "nginx on 127.0.0.1:%d, %d worker%s (run dir %s)", c->nginx_port,
                 c->server_threads, c->server_threads == 1 ? "" : "s", c->nginx_dir);
    }
    if (want.fixture) {
        if (start_fixture(c, &e) < 0)
            snprintf(c->fixture_reason, sizeof c->fixture_reason, "%s", e.msg);
        else
            info(g, "fixture server (teebench serve --tls) on 127.0.0.1:%d, %d thread%s",
                 c->fixture_port, c->server_threads, c->server_threads == 1 ? "" : "s");
    }
}

static void stop_servers(suite_ctx *c)
{
    tb_err e;
    if (c->nginx_up && !c->nginx_remote && tb_nginx_stop(c->nginx_dir, 5000, &e) < 0)
        suite_problem(c->warnings, "http", "nginx", 0, e.msg);
    c->nginx_up = 0;
    if (c->fixture_up || c->fixture.pid > 0)
        tb_proc_stop(&c->fixture, 3000);
    c->fixture_up = 0;
}

/* ---- steps ---- */

/* Runs one step; a server that is not up makes it skipped or failed. */
static int run_step(suite_ctx *c, const tb_suite_step *s, int round, tb_err *err)
{
    const tb_workload *w = s->workload;
    if (w == &tb_wl_syscall)
        return suite_syscall_step(c, s->target, round, err);
    if (w == &tb_wl_probe)
        return suite_probe_step(c, round, err);
    if (w == &tb_wl_http) {
        if (!strcmp(s->target, "nginx") && !c->nginx_up) {
            tb_errf(err, "%s", c->nginx_reason);
            return c->nginx_skip ? ST_SKIPPED : ST_FAILED;
        }
        if (!strcmp(s->target, "serve-tls") && !c->fixture_up)
            return tb_errf(err, "%s", c->fixture_reason), ST_FAILED;
        return suite_http_step(c, s->target, round, err);
    }
    if (w == &tb_wl_attest)
        return suite_attest_step(c, round, err);
    if (w == &tb_wl_notary) {
        if (!c->fixture_up)
            return tb_errf(err, "%s", c->fixture_reason), ST_FAILED;
        return suite_notary_step(c, round, err);
    }
    return tb_errf(err, "no such step"), ST_FAILED;
}

static const char *status_name(int st)
{
    static const char *const n[] = {"ok", "failed", "skipped", "interrupted"};
    return n[st];
}

/* A skipped step goes into extra once (its reason is the same every round); a
   failure each round it happens, with the round. */
static void record_problem(suite_ctx *c, const tb_suite_step *s, int round, int st, const char *why,
                           int *seen)
{
    if (st == ST_SKIPPED && !*seen)
        suite_problem(c->skipped, s->workload->name, s->target, 0, why);
    if (st == ST_FAILED)
        suite_problem(c->failures, s->workload->name, s->target, round, why);
    *seen = 1;
}

static void run_rounds(suite_ctx *c, progress *g, const tb_suite_step *st, size_t n)
{
    int seen[TB_SUITE_MAX_STEPS] = {0};
    for (int round = 1; round <= c->p->repeat; round++) {
        for (size_t i = 0; i < n; i++) {
            if (suite_stopped(c))
                return;
            const char *w = st[i].workload->name;
            g->step++;
            emit(g, TB_SUITE_EV_STEP, w, st[i].target, round, 0, NULL, NULL);
            uint64_t t0 = tb_mono_ns();
            tb_err err = {{0}};
            int rc = run_step(c, &st[i], round, &err);
            if (rc == ST_FAILED && suite_stopped(c)) /* failed because it was stopped */
                rc = ST_CANCELLED;
            double dt = (double)(tb_mono_ns() - t0) / 1e9;
            g->est_done += st[i].estimate_s;
            if (rc == ST_FAILED || rc == ST_SKIPPED)
                record_problem(c, &st[i], round, rc, err.msg, &seen[i]);
            emit(g, TB_SUITE_EV_STEP_DONE, w, st[i].target, round, dt, status_name(rc),
                 rc == ST_OK || rc == ST_CANCELLED ? NULL : err.msg);
        }
    }
}

/* ---- the record ---- */

static int start_record(suite_ctx *c, tb_err *err)
{
    if (!(c->r = tb_record_new(err)))
        return -1;
    tb_err e;
    json_t *env = tb_env_json(&e);
    if (env) {
        json_decref(c->r->env);
        c->r->env = env;
    }
    snprintf(c->env_tee, sizeof c->env_tee, "%s", tb_env_json_tee(c->r->env));
    char label[64];
    if (c->p->label[0])
        snprintf(label, sizeof label, "%s", c->p->label);
    else
        tb_record_default_label(c->r->env, label, sizeof label);
    if (tb_record_set_str(&c->r->label, label, err) < 0 ||
        tb_record_set_str(&c->r->profile, c->p->profile, err) < 0)
        return -1;
    if (c->p->invocation)
        json_array_append_new(c->r->commands, json_string(c->p->invocation));
    json_t *plan = tb_suite_plan_json(c->p);
    if (plan)
        json_object_set_new(c->r->extra, "plan", plan);
    return 0;
}

static void finish_record(suite_ctx *c, int interrupted)
{
    tb_record *r = c->r;
    tb_utc_iso8601((int64_t)(tb_wall_ns() / 1000000000ull), r->finished, sizeof r->finished);
    const char *status = interrupted                        ? "interrupted"
                         : json_array_size(c->failures) > 0 ? "failed"
                                                            : "complete";
    tb_err e;
    tb_record_set_str(&r->status, status, &e);
    json_object_set_new(r->extra, "skipped", c->skipped);
    json_object_set_new(r->extra, "failures", c->failures);
    if (json_array_size(c->warnings))
        json_object_set_new(r->extra, "warnings", c->warnings);
    else
        json_decref(c->warnings);
    c->skipped = c->failures = c->warnings = NULL;
    json_object_set_new(r->extra, "cpus_online", json_integer(c->ncpu));
}

int tb_suite_run(const tb_suite_plan *p, tb_suite_hooks *hooks, tb_record **out, tb_err *err)
{
    *out = NULL;
    if (p->repeat < 1 || !p->self_exe[0])
        return tb_errf(err, "plan: repeat must be >= 1 and self_exe set");
    suite_ctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    snprintf(c.exe, sizeof c.exe, "%s", p->self_exe);
    c.stop = hooks ? hooks->stop : NULL;
    c.fixture.pid = c.fixture.pidfd = -1;
    c.work_fd = -1;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    c.ncpu = ncpu > 0 ? (int)ncpu : 1;
    tb_wl_services want;
    tb_suite_plan_services(p, &want);
    c.server_threads = want.fixture_threads > 0 ? want.fixture_threads : c.ncpu;
    c.skipped = json_array();
    c.failures = json_array();
    c.warnings = json_array();
    int rc = -1;
    if (!c.skipped || !c.failures || !c.warnings) {
        tb_errf(err, "out of memory");
        goto out;
    }
    if (tb_suite_plan_metrics(p, &c.specs, &c.n_specs, err) < 0 || start_record(&c, err) < 0 ||
        make_work(&c, err) < 0)
        goto out;
    set_versions(&c);

    tb_suite_step st[TB_SUITE_MAX_STEPS];
    size_t n = tb_suite_plan_steps(p, st);
    progress g = {.h = hooks,
                  .t0 = tb_mono_ns(),
                  .est_total = tb_suite_plan_estimate(p),
                  .steps = (int)n * p->repeat,
                  .rounds = p->repeat};
    emit(&g, TB_SUITE_EV_BEGIN, NULL, NULL, 0, 0, NULL, p->profile);
    info(&g, "environment %s, %d CPUs online, work directory %s", c.r->label, c.ncpu, c.work);
    start_servers(&c, &g);
    double round_est = 0; /* setup is done: what is left is the rounds */
    for (size_t i = 0; i < n; i++)
        round_est += st[i].estimate_s;
    g.est_done = g.est_total - round_est * p->repeat;
    run_rounds(&c, &g, st, n);
    int interrupted = suite_stopped(&c);
    stop_servers(&c);
    suite_http_cleanup(&c);
    suite_attest_cleanup(&c);
    int failed = json_array_size(c.failures) > 0;
    finish_record(&c, interrupted);
    if (c.own_work && failed) {
        json_object_set_new(c.r->extra, "work_dir", json_string(c.work));
        info(&g, "work directory kept for the failed workload's logs: %s", c.work);
        c.own_work = 0;
    }
    emit(&g, TB_SUITE_EV_END, NULL, NULL, 0, 0, c.r->status, NULL);
    *out = c.r;
    c.r = NULL;
    rc = 0;
out:
    stop_servers(&c);
    suite_http_cleanup(&c);
    suite_attest_cleanup(&c);
    if (c.work_fd >= 0)
        close(c.work_fd);
    if (c.own_work)
        nftw(c.work, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(c.specs);
    json_decref(c.skipped);
    json_decref(c.failures);
    json_decref(c.warnings);
    tb_record_free(c.r);
    return rc;
}
