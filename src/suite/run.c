/* suite/run: tb_suite_run, the engine -- the record of one run, the work
 * directory, the fixture server the workloads share, each workload's setup,
 * the rounds (every step of every selected workload once per round), progress
 * events with an ETA, and the cleanup. The workloads themselves are
 * workloads/'s: the engine calls their setup, step and cleanup and hands them a
 * sink (sample, command, problem, fact, version, info; the work directory; the
 * stop flag) -- never the record, the plan or this context.
 *
 * Invariants: every server and child started here is stopped, and every
 * workload's cleanup called, before tb_suite_run returns, whatever happened
 * (failure, interrupt); a step's problem is recorded once in the record's extra
 * ("skipped" / "failures") and never stops the other steps; a sample of a
 * metric the plan does not list is refused; the record's status is
 * "interrupted" when the stop flag was seen, else "failed" when a step failed,
 * else "complete". */
#include "suite/suite.h"

#include <ftw.h>
#include <gnu/libc-version.h>
#include <limits.h>
#include <math.h>
#include <openssl/crypto.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/curl.h"
#include "base/file.h"
#include "base/linkage.h"
#include "base/proc.h"
#include "serve/pki.h"
#include "sys/env.h"

typedef struct suite_ctx suite_ctx;

/* The sink of one workload: what it adds goes to c's record under its name. */
typedef struct wl_sink {
    tb_wl_sink s;
    suite_ctx *c;
    const tb_workload *w;
} wl_sink;

struct suite_ctx {
    const tb_suite_plan *p;
    char exe[PATH_MAX]; /* p->self_exe, writable for argv arrays */
    const volatile sig_atomic_t *stop;
    tb_record *r;
    char work[PATH_MAX];
    int work_fd;  /* the work directory, opened once (tb_dir_open_private's rule): every
                     file the suite writes there is created relative to it */
    int own_work; /* made here: removed at the end unless something failed */
    int ncpu;
    char env_tee[8];         /* the TEE the env facts name (tb_env_json_tee) */
    long long swiotlb_full0; /* "swiotlb buffer is full" lines at the start; -1 unread */
    char swiotlb_why[TB_ERR_MAX];
    tb_suite_metric_spec *specs;
    size_t n_specs;
    json_t *skipped, *failures, *warnings; /* arrays, owned until put into r->extra */
    struct progress *g;                    /* for the sinks' info lines */

    /* the fixture server, started once when a workload wants it */
    char pki[PATH_MAX];
    tb_wl_fixture fixture;
    tb_proc fixture_proc;

    /* the workloads, by registry index */
    tb_wl_env env;
    wl_sink sinks[TB_WL_MAX];
    void *state[TB_WL_MAX];
    int setup_failed[TB_WL_MAX];
    char setup_reason[TB_WL_MAX][TB_ERR_MAX];
};

/* ---- the sinks ---- */

static int stopped(const suite_ctx *c)
{
    return c->stop && *c->stop;
}

static int suite_path(const suite_ctx *c, const char *rel, char *out, size_t n, tb_err *err)
{
    int k = snprintf(out, n, "%s/%s", c->work, rel);
    if (k < 0 || (size_t)k >= n)
        return tb_errf(err, "%s/%s: path too long", c->work, rel);
    return 0;
}

static int suite_create(const suite_ctx *c, const char *name, tb_err *err)
{
    return tb_file_create_at(c->work_fd, c->work, name, 0, 0644, err);
}

static int suite_read(const suite_ctx *c, const char *name, size_t max, tb_buf *out, tb_err *err)
{
    return tb_file_read_at(c->work_fd, c->work, name, max, out, err);
}

static const tb_suite_metric_spec *find_spec(const suite_ctx *c, const char *name)
{
    for (size_t i = 0; i < c->n_specs; i++)
        if (!strcmp(c->specs[i].name, name))
            return &c->specs[i];
    return NULL;
}

/* Records a problem in an extra array: {"workload", "target", "round"?, "reason"}. */
static void suite_problem(json_t *arr, const char *workload, const char *target, int round,
                          const char *reason)
{
    if (!arr)
        return;
    json_t *o = json_pack("{s:s, s:s, s:s}", "workload", workload, "target", target ? target : "",
                          "reason", reason);
    if (o && round > 0)
        json_object_set_new(o, "round", json_integer(round));
    if (o)
        json_array_append_new(arr, o);
}

/* Records the command line argv (NULL-terminated) once, shell-quoted, with argv[0] shown
   as "teebench" when it is the suite's own binary. */
static void suite_command(suite_ctx *c, char *const *argv)
{
    if (!c->r)
        return;
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

/* The metric is the plan's (its spec) and its unit, direction and workload are its
   table's; simulated marks the metric and the record. */
static int sink_sample(void *ctx, const char *name, double value, int simulated, const char *note,
                       tb_err *err)
{
    wl_sink *k = ctx;
    suite_ctx *c = k->c;
    const tb_suite_metric_spec *s = find_spec(c, name);
    if (!s || s->workload != k->w)
        return tb_errf(err, "metric %s is not in the plan's metrics of %s", name, k->w->name);
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

static void sink_command(void *ctx, char *const *argv)
{
    suite_command(((wl_sink *)ctx)->c, argv);
}

static void sink_problem(void *ctx, tb_wl_problem_kind kind, const char *target, int round,
                         const char *reason)
{
    wl_sink *k = ctx;
    suite_problem(kind == TB_WL_SKIP ? k->c->skipped : k->c->warnings, k->w->name, target, round,
                  reason);
}

static void sink_fact(void *ctx, const char *key, json_t *value)
{
    wl_sink *k = ctx;
    if (k->c->r)
        json_object_set_new(k->c->r->extra, key, value);
    else
        json_decref(value);
}

static void sink_version(void *ctx, const char *tool, const char *text)
{
    wl_sink *k = ctx;
    if (k->c->r)
        json_object_set_new(k->c->r->versions, tool, json_string(text));
}

static void sink_info(void *ctx, const char *text);

static void make_sinks(suite_ctx *c)
{
    for (size_t i = 0; i < tb_workload_count() && i < TB_WL_MAX; i++) {
        wl_sink *k = &c->sinks[i];
        k->c = c;
        k->w = tb_workload_at(i);
        k->s = (tb_wl_sink){.ctx = k,
                            .sample = sink_sample,
                            .command = sink_command,
                            .problem = sink_problem,
                            .fact = sink_fact,
                            .version = sink_version,
                            .info = sink_info,
                            .dir = c->work,
                            .dir_fd = c->work_fd,
                            .stop = c->stop};
    }
}

/* ---- progress ---- */

struct progress {
    tb_suite_hooks *h;
    uint64_t t0;
    double est_total, est_done;
    int steps, step, rounds;
};
typedef struct progress progress;

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

static void sink_info(void *ctx, const char *text)
{
    suite_ctx *c = ((wl_sink *)ctx)->c;
    if (c->g)
        emit(c->g, TB_SUITE_EV_INFO, NULL, NULL, 0, 0, NULL, text);
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

static void set_versions(suite_ctx *c)
{
    json_t *v = c->r->versions;
    struct utsname u;
    json_object_set_new(v, "teebench", json_string(TEEBENCH_VERSION));
    json_object_set_new(v, "openssl", json_string(OpenSSL_version(OPENSSL_VERSION)));
    if (uname(&u) == 0)
        json_object_set_new(v, "kernel", json_string(u.release));
    json_object_set_new(v, "glibc", json_string(gnu_get_libc_version()));
    /* self-contained (make static): the glibc and OpenSSL above are linked in, not the system's */
    json_object_set_new(v, "teebench_build",
                        json_string(tb_linkage_static() ? "self-contained" : "shared libraries"));
}

/* ---- the fixture server ---- */

static int ensure_pki(suite_ctx *c, tb_err *err)
{
    if (c->fixture.ca[0])
        return 0;
    if (suite_path(c, "pki", c->pki, sizeof c->pki, err) < 0 ||
        tb_pki_generate_at(c->work_fd, c->work, "pki", err) < 0 ||
        tb_pki_path(c->pki, TB_PKI_CA_CERT, c->fixture.ca, sizeof c->fixture.ca, err) < 0) {
        c->fixture.ca[0] = 0;
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
    snprintf(threads, sizeof threads, "%d", c->env.server_threads);
    char *argv[] = {c->exe,      "serve",  "--tls", "--pki",     c->pki,  "--addr",
                    "127.0.0.1", "--port", "0",     "--threads", threads, NULL};
    tb_proc_opts o = {.argv = argv, .stdout_fd = out, .stderr_fd = errfd};
    int spawned = tb_proc_spawn(&o, &c->fixture_proc, err);
    close(out);
    close(errfd);
    if (spawned < 0)
        return tb_err_wrap(err, "fixture server");
    suite_command(c, argv);
    uint64_t deadline = tb_mono_ns() + 15000000000ull;
    while (tb_mono_ns() < deadline && !stopped(c)) {
        if (!tb_proc_alive(&c->fixture_proc)) {
            tb_buf b = {0};
            tb_err e2;
            suite_read(c, "fixture.stderr.log", 4096, &b, &e2);
            char *line = b.p ? (char *)b.p : "";
            line[strcspn(line, "\n")] = 0;
            tb_errf(err, "fixture server exited with code %d: %s", c->fixture_proc.code, line);
            tb_buf_clear(&b);
            return -1;
        }
        if ((c->fixture.port = listening_port(c, "fixture.stdout.log")) > 0) {
            c->fixture.up = 1;
            return 0;
        }
        tb_sleep_ns(20000000);
    }
    tb_proc_stop(&c->fixture_proc, 2000);
    return stopped(c) ? tb_errf(err, "interrupted")
                      : tb_errf(err, "fixture server not listening after 15 s");
}

static void start_fixture_if_wanted(suite_ctx *c, progress *g)
{
    tb_wl_services want;
    tb_suite_plan_services(c->p, &want);
    if (!want.fixture)
        return;
    tb_err e;
    if (start_fixture(c, &e) < 0)
        snprintf(c->fixture.reason, sizeof c->fixture.reason, "%s", e.msg);
    else
        info(g, "fixture server (teebench serve --tls) on 127.0.0.1:%d, %d thread%s",
             c->fixture.port, c->env.server_threads, c->env.server_threads == 1 ? "" : "s");
}

static void stop_fixture(suite_ctx *c)
{
    if (c->fixture.up || c->fixture_proc.pid > 0)
        tb_proc_stop(&c->fixture_proc, 3000);
    c->fixture.up = 0;
}

/* ---- the workloads ---- */

/* Each enabled workload's setup, in the registry's order; a failure is remembered for
   its steps. */
static void setup_workloads(suite_ctx *c)
{
    for (size_t i = 0; i < tb_workload_count() && !stopped(c); i++) {
        const tb_workload *w = tb_workload_at(i);
        if (!c->p->enabled[i] || !w->setup)
            continue;
        tb_err e = {{0}};
        if (w->setup(tb_suite_plan_params(c->p, w), &c->env, &c->sinks[i].s, &c->state[i], &e) <
            0) {
            c->setup_failed[i] = 1;
            snprintf(c->setup_reason[i], sizeof c->setup_reason[i], "%s", e.msg);
        }
    }
}

/* Every workload's cleanup (once: its state is dropped). */
static void cleanup_workloads(suite_ctx *c)
{
    for (size_t i = tb_workload_count(); i-- > 0;) {
        const tb_workload *w = tb_workload_at(i);
        if (c->state[i] && w->cleanup)
            w->cleanup(c->state[i], &c->sinks[i].s);
        c->state[i] = NULL;
    }
}

/* ---- steps ---- */

/* Runs one step; a workload whose setup failed fails each of its steps with the reason. */
static int run_step(suite_ctx *c, const tb_suite_step *s, int round, tb_err *err)
{
    int i = tb_workload_index(s->workload);
    if (i < 0 || !s->workload->step)
        return tb_errf(err, "no such step"), TB_WL_FAILED;
    if (c->setup_failed[i])
        return tb_errf(err, "%s", c->setup_reason[i]), TB_WL_FAILED;
    return s->workload->step(c->state[i], s->target, round, &c->sinks[i].s, err);
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
    if (st == TB_WL_SKIPPED && !*seen)
        suite_problem(c->skipped, s->workload->name, s->target, 0, why);
    if (st == TB_WL_FAILED)
        suite_problem(c->failures, s->workload->name, s->target, round, why);
    *seen = 1;
}

/* The steps the rounds run: a once step in round 1 only. */
static int steps_run(const tb_suite_step *st, size_t n, int repeat)
{
    int k = 0;
    for (size_t i = 0; i < n; i++)
        k += st[i].once ? 1 : repeat;
    return k;
}

static void run_rounds(suite_ctx *c, progress *g, const tb_suite_step *st, size_t n)
{
    int seen[TB_SUITE_MAX_STEPS] = {0};
    for (int round = 1; round <= c->p->repeat; round++) {
        for (size_t i = 0; i < n; i++) {
            if (stopped(c))
                return;
            if (st[i].once && round > 1)
                continue;
            const char *w = st[i].workload->name;
            g->step++;
            emit(g, TB_SUITE_EV_STEP, w, st[i].target, round, 0, NULL, NULL);
            uint64_t t0 = tb_mono_ns();
            tb_err err = {{0}};
            int rc = run_step(c, &st[i], round, &err);
            if (rc == TB_WL_FAILED && stopped(c)) /* failed because it was stopped */
                rc = TB_WL_CANCELLED;
            double dt = (double)(tb_mono_ns() - t0) / 1e9;
            g->est_done += st[i].estimate_s;
            if (rc == TB_WL_FAILED || rc == TB_WL_SKIPPED)
                record_problem(c, &st[i], round, rc, err.msg, &seen[i]);
            emit(g, TB_SUITE_EV_STEP_DONE, w, st[i].target, round, dt, status_name(rc),
                 rc == TB_WL_OK || rc == TB_WL_CANCELLED ? NULL : err.msg);
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
    tb_err se = {{0}};
    c->swiotlb_full0 = tb_env_swiotlb_full_now(&se);
    snprintf(c->swiotlb_why, sizeof c->swiotlb_why, "%s", se.msg);
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
    long long end = c->swiotlb_full0 >= 0 ? tb_env_swiotlb_full_now(&e) : -1;
    json_t *sw;
    if (c->swiotlb_full0 < 0 || end < 0)
        sw = json_pack("{s:s}", "unknown",
                       c->swiotlb_full0 < 0 ? c->swiotlb_why : "the kernel log at the end");
    else /* a count that fell: the ring buffer dropped old lines; new ones would still add */
        sw = json_pack("{s:I, s:I, s:b}", "start", (json_int_t)c->swiotlb_full0, "end",
                       (json_int_t)end, "grew", end > c->swiotlb_full0);
    if (sw)
        json_object_set_new(r->extra, "swiotlb_full", sw);
}

int tb_suite_run(const tb_suite_plan *p, tb_suite_hooks *hooks, tb_record **out, tb_err *err)
{
    *out = NULL;
    if (p->repeat < 1 || !p->self_exe[0])
        return tb_errf(err, "plan: repeat must be >= 1 and self_exe set");
    suite_ctx *c = calloc(1, sizeof *c); /* ~40 KiB: the workloads' sinks and reasons */
    if (!c)
        return tb_errf(err, "out of memory");
    c->p = p;
    snprintf(c->exe, sizeof c->exe, "%s", p->self_exe);
    c->stop = hooks ? hooks->stop : NULL;
    c->fixture_proc.pid = c->fixture_proc.pidfd = -1;
    c->work_fd = -1;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    c->ncpu = ncpu > 0 ? (int)ncpu : 1;
    tb_wl_services want;
    tb_suite_plan_services(p, &want);
    c->env =
        (tb_wl_env){.exe = c->exe,
                    .ncpu = c->ncpu,
                    .server_threads = want.fixture_threads > 0 ? want.fixture_threads : c->ncpu,
                    .tee = c->env_tee,
                    .fixture = &c->fixture,
                    .params = p->params};
    c->skipped = json_array();
    c->failures = json_array();
    c->warnings = json_array();
    int rc = -1;
    if (!c->skipped || !c->failures || !c->warnings) {
        tb_errf(err, "out of memory");
        goto out;
    }
    if (tb_suite_plan_metrics(p, &c->specs, &c->n_specs, err) < 0 || start_record(c, err) < 0 ||
        make_work(c, err) < 0)
        goto out;
    make_sinks(c);
    set_versions(c);

    tb_suite_step st[TB_SUITE_MAX_STEPS];
    size_t n = tb_suite_plan_steps(p, st);
    progress g = {.h = hooks,
                  .t0 = tb_mono_ns(),
                  .est_total = tb_suite_plan_estimate(p),
                  .steps = steps_run(st, n, p->repeat),
                  .rounds = p->repeat};
    c->g = &g;
    emit(&g, TB_SUITE_EV_BEGIN, NULL, NULL, 0, 0, NULL, p->profile);
    info(&g, "environment %s, %d CPUs online, work directory %s", c->r->label, c->ncpu, c->work);
    setup_workloads(c);
    if (!stopped(c))
        start_fixture_if_wanted(c, &g);
    double rounds_est = 0; /* setup is done: what is left is the rounds */
    for (size_t i = 0; i < n; i++)
        rounds_est += st[i].estimate_s * (st[i].once ? 1 : p->repeat);
    g.est_done = g.est_total - rounds_est;
    run_rounds(c, &g, st, n);
    int interrupted = stopped(c);
    stop_fixture(c);
    cleanup_workloads(c);
    int failed = json_array_size(c->failures) > 0;
    finish_record(c, interrupted);
    if (c->own_work && failed) {
        json_object_set_new(c->r->extra, "work_dir", json_string(c->work));
        info(&g, "work directory kept for the failed workload's logs: %s", c->work);
        c->own_work = 0;
    }
    emit(&g, TB_SUITE_EV_END, NULL, NULL, 0, 0, c->r->status, NULL);
    c->g = NULL;
    *out = c->r;
    c->r = NULL;
    rc = 0;
out:
    c->g = NULL;
    stop_fixture(c);
    cleanup_workloads(c);
    if (c->work_fd >= 0)
        close(c->work_fd);
    if (c->own_work)
        nftw(c->work, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(c->specs);
    json_decref(c->skipped);
    json_decref(c->failures);
    json_decref(c->warnings);
    tb_record_free(c->r);
    free(c);
    return rc;
}
