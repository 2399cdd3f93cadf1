/* workloads/sink: the calls a workload makes on its sink (workload.h), the files of
 * the run's work directory, the tools a workload runs (found in PATH or at a path), the
 * private work directory of a workload's own command (outside the suite), the command
 * lines of those tools built into the caller's arrays (tb_wl_word), the one way a
 * workload runs a tool to its end (tb_wl_run_tool, tb_wl_tool_step: outputs into the work
 * directory, the sink's stop flag, a timeout) and quotes its logs, the pieces the
 * documents' readers share (the envelope and its times, a member of several, an array
 * member, the runs read check-then-emit), and the state a setup makes
 * (tb_wl_state_new, tb_wl_plain_setup, tb_wl_free_state).
 *
 * Invariants: a sink function the sink does not have is a no-op (sample: an
 * error, so a reader never drops figures silently); files are made and read
 * relative to the directory descriptor only (base/file's *_at functions), never
 * through a symlink; nothing here prints. */
#include "workloads/workload.h"

#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "base/proc.h"

int tb_wl_sample(tb_wl_sink *s, const char *name, double value, int simulated, const char *note,
                 tb_err *err)
{
    if (!s->sample)
        return tb_errf(err, "metric %s: nowhere to put its samples", name);
    return s->sample(s->ctx, name, value, simulated, note, err);
}

void tb_wl_command(tb_wl_sink *s, char *const *argv)
{
    if (s->command)
        s->command(s->ctx, argv);
}

void tb_wl_problem(tb_wl_sink *s, tb_wl_problem_kind kind, const char *target, int round,
                   const char *reason)
{
    if (s->problem)
        s->problem(s->ctx, kind, target ? target : "", round, reason);
}

void tb_wl_fact(tb_wl_sink *s, const char *key, json_t *value)
{
    if (s->fact && value)
        s->fact(s->ctx, key, value);
    else
        json_decref(value);
}

void tb_wl_version(tb_wl_sink *s, const char *tool, const char *text)
{
    if (s->version)
        s->version(s->ctx, tool, text);
}

void tb_wl_info(tb_wl_sink *s, const char *fmt, ...)
{
    if (!s->info)
        return;
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    s->info(s->ctx, text);
}

int tb_wl_stopped(const tb_wl_sink *s)
{
    return s->stop && *s->stop;
}

int tb_wl_path(const tb_wl_sink *s, const char *rel, char *out, size_t n, tb_err *err)
{
    if (!s->dir)
        return tb_errf(err, "%s: no work directory", rel);
    int k = snprintf(out, n, "%s/%s", s->dir, rel);
    if (k < 0 || (size_t)k >= n)
        return tb_errf(err, "%s/%s: path too long", s->dir, rel);
    return 0;
}

int tb_wl_create(const tb_wl_sink *s, const char *name, tb_err *err)
{
    if (!s->dir || s->dir_fd < 0)
        return tb_errf(err, "%s: no work directory", name);
    return tb_file_create_at(s->dir_fd, s->dir, name, 0, 0644, err);
}

int tb_wl_read(const tb_wl_sink *s, const char *name, size_t max, tb_buf *out, tb_err *err)
{
    if (!s->dir || s->dir_fd < 0)
        return tb_errf(err, "%s: no work directory", name);
    return tb_file_read_at(s->dir_fd, s->dir, name, max, out, err);
}

int tb_wl_run_tool(const tb_wl_sink *s, char *const *argv, const char *out, const char *errname,
                   int64_t timeout_ms, int *code, tb_err *err)
{
    int ofd = tb_wl_create(s, out, err), efd = ofd < 0 ? -1 : tb_wl_create(s, errname, err);
    if (efd < 0) {
        if (ofd >= 0)
            close(ofd);
        return -1;
    }
    tb_proc_opts o = {.argv = argv, .stdout_fd = ofd, .stderr_fd = efd};
    tb_proc_result r;
    int rc = tb_proc_run(&o, timeout_ms, s->stop, &r, err);
    close(ofd);
    close(efd);
    if (rc < 0)
        return -1;
    if (r.cancelled)
        return 1;
    *code = r.exit_code;
    return 0;
}

/* A line of the work directory's file name (at most max bytes): its first, or (last) its
   last non-empty one, into out; "" when there is none. */
static void log_line(const tb_wl_sink *s, const char *name, size_t max, int last, char *out,
                     size_t n)
{
    tb_buf b = {0};
    tb_err e;
    out[0] = 0;
    if (tb_wl_read(s, name, max, &b, &e) == 0 && b.p) {
        char *t = (char *)b.p;
        size_t len = b.len;
        while (last && len && (t[len - 1] == '\n' || t[len - 1] == '\r'))
            t[--len] = 0;
        char *l = last ? memrchr(t, '\n', len) : NULL;
        t = l ? l + 1 : t;
        t[strcspn(t, "\n")] = 0;
        snprintf(out, n, "%s", t);
    }
    tb_buf_clear(&b);
}

void tb_wl_first_line(const tb_wl_sink *s, const char *name, char *out, size_t n)
{
    log_line(s, name, 1 << 16, 0, out, n);
}

void tb_wl_last_line(const tb_wl_sink *s, const char *name, char *out, size_t n)
{
    log_line(s, name, 1 << 20, 1, out, n);
}

void tb_wl_fmt_duration(double s, char *out, size_t n)
{
    double ms = round(s * 1000);
    if (fmod(ms, 1000) == 0)
        snprintf(out, n, "%.0fs", ms / 1000);
    else
        snprintf(out, n, "%.0fms", ms);
}

void *tb_wl_state_new(size_t size, void **state, tb_err *err)
{
    void *st = calloc(1, size);
    if (!st)
        tb_errf(err, "out of memory");
    *state = st;
    return st;
}

int tb_wl_plain_setup(const void *params, const tb_wl_env *env, tb_wl_sink *sink, void **state,
                      tb_err *err)
{
    (void)sink;
    tb_wl_plain_state *st = tb_wl_state_new(sizeof *st, state, err);
    if (!st)
        return -1;
    *st = (tb_wl_plain_state){.params = params, .env = env};
    return 0;
}

void tb_wl_free_state(void *state, tb_wl_sink *sink)
{
    (void)sink;
    free(state);
}

const void *tb_wl_env_params(const tb_wl_env *env, const tb_workload *w)
{
    int i = tb_workload_index(w);
    return i < 0 || !env->params ? NULL : env->params[i].bytes;
}

void tb_wl_doc_envelope(const json_t *doc, tb_wl_doc_info *info)
{
    memset(info, 0, sizeof *info);
    info->env = json_object_get(doc, "env");
    info->version = json_string_value(json_object_get(doc, "teebench"));
}

/* An ISO 8601 UTC time as teebench writes them ("2026-01-02T03:04:05Z") into out, or "". */
static void iso_time(const json_t *v, char *out, size_t n)
{
    const char *s = json_string_value(v);
    out[0] = 0;
    if (!s || strlen(s) != 20 || s[4] != '-' || s[10] != 'T' || s[19] != 'Z')
        return;
    for (int i = 0; i < 19; i++)
        if (i != 4 && i != 7 && i != 10 && i != 13 && i != 16 && (s[i] < '0' || s[i] > '9'))
            return;
    snprintf(out, n, "%s", s);
}

void tb_wl_doc_envelope_times(const json_t *doc, tb_wl_doc_info *info)
{
    tb_wl_doc_envelope(doc, info);
    iso_time(json_object_get(doc, "started_at"), info->started, sizeof info->started);
    iso_time(json_object_get(doc, "finished_at"), info->finished, sizeof info->finished);
}

int tb_wl_doc_has_one(const json_t *doc, const char *what, const char *const *members, size_t n,
                      tb_err *err)
{
    char list[256] = "";
    for (size_t i = 0; i < n; i++) {
        if (json_object_get(doc, members[i]))
            return 0;
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s\"%s\"", i ? ", " : "", members[i]);
    }
    return tb_errf(err, "%s: none of %s", what, list);
}

json_t *tb_wl_doc_array(json_t *doc, const char *name)
{
    json_t *a = json_object_get(doc, name);
    if (!json_is_array(a)) {
        a = json_array();
        json_object_set_new(doc, name, a);
    }
    return a;
}

/* One pass of tb_wl_doc_runs. */
static int runs_pass(const json_t *runs, const tb_wl_doc_runs_spec *sp, int emit, const void *ctx,
                     tb_wl_sink *sink, tb_err *err)
{
    size_t r;
    const json_t *run;
    json_array_foreach(runs, r, run)
    {
        const char *label = json_string_value(json_object_get(run, sp->label));
        const json_t *items = json_object_get(run, sp->items);
        if (!label || !label[0] || !json_is_array(items))
            return tb_errf(err, "%s: runs[%zu] needs \"%s\" and \"%s\"", sp->what, r, sp->label,
                           sp->items);
        char part[64];
        tb_wl_name_part(label, part, sizeof part);
        if (sp->run(ctx, r, label, part, items, emit, sink, err) < 0)
            return -1;
    }
    return 0;
}

int tb_wl_doc_runs(const json_t *doc, const tb_wl_doc_runs_spec *sp, const void *ctx,
                   tb_wl_sink *sink, tb_err *err)
{
    const json_t *runs = json_object_get(doc, "runs");
    if (!json_is_array(runs) || json_array_size(runs) == 0)
        return tb_errf(err, "%s: \"runs\" must be a non-empty array", sp->what);
    if (runs_pass(runs, sp, 0, ctx, sink, err) < 0)
        return -1;
    return runs_pass(runs, sp, 1, ctx, sink, err);
}

int tb_wl_tool_step(const tb_wl_sink *s, char *const *argv, const char *out, const char *errname,
                    int64_t timeout_ms, const char *what, int last, tb_err *err)
{
    int code = 0, rc = tb_wl_run_tool(s, argv, out, errname, timeout_ms, &code, err);
    if (rc != 0)
        return rc < 0 ? TB_WL_FAILED : TB_WL_CANCELLED;
    if (code == 0)
        return TB_WL_OK;
    char line[256];
    if (last)
        tb_wl_last_line(s, errname, line, sizeof line);
    else
        tb_wl_first_line(s, errname, line, sizeof line);
    tb_errf(err, "%s exited with code %d%s%s%s", what, code,
            code == TB_PROC_TIMEOUT_CODE ? " (timed out)" : "", line[0] ? ": " : "", line);
    return TB_WL_FAILED;
}

int tb_wl_doc_number(const json_t *doc, const char *what, const char *k1, const char *k2,
                     double *out, tb_err *err)
{
    const json_t *v = json_object_get(doc, k1);
    if (k2)
        v = json_object_get(v, k2);
    if (!v)
        return tb_errf(err, "%s: missing \"%s%s%s\"", what, k1, k2 ? "." : "", k2 ? k2 : "");
    if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < 0)
        return tb_errf(err, "%s: \"%s%s%s\" is not a number >= 0", what, k1, k2 ? "." : "",
                       k2 ? k2 : "");
    *out = json_number_value(v);
    return 0;
}

void tb_wl_name_part(const char *s, char *out, size_t n)
{
    size_t o = 0;
    for (; *s && o + 1 < n; s++) {
        char c = *s;
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        out[o++] = ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') ? c : '_';
    }
    if (o == 0 && n > 1)
        out[o++] = 'x';
    out[o] = '\0';
}

int tb_wl_find_tool(const char *name, char *out, size_t n)
{
    if (!name[0])
        return 0;
    if (strchr(name, '/')) {
        snprintf(out, n, "%s", name);
        return access(name, X_OK) == 0;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t k = strcspn(path, ":");
        int w = snprintf(out, n, "%.*s/%s", (int)k, path, name);
        if (k && w > 0 && (size_t)w < n && access(out, X_OK) == 0)
            return 1;
        path += k + (path[k] == ':');
    }
    out[0] = 0;
    return 0;
}

int tb_wl_workdir_open(const char *name, char *path, size_t n, tb_wl_sink *sink, tb_err *err)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || tmp[0] != '/' || strlen(tmp) > 512)
        tmp = "/tmp";
    int k = snprintf(path, n, "%s/teebench-%s.XXXXXX", tmp, name);
    if (k < 0 || (size_t)k >= n)
        return tb_errf(err, "%s: path too long", tmp);
    if (!mkdtemp(path))
        return tb_errno(err, "making a work directory in %s", tmp);
    int fd = tb_dir_open_private(path, 0700, err);
    if (fd < 0) {
        rmdir(path);
        return -1;
    }
    sink->dir = path;
    sink->dir_fd = fd;
    return 0;
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    if (flag == FTW_DP)
        rmdir(p);
    else
        unlink(p);
    return 0;
}

void tb_wl_workdir_remove(tb_wl_sink *sink)
{
    if (sink->dir_fd >= 0)
        close(sink->dir_fd);
    sink->dir_fd = -1;
    if (sink->dir && sink->dir[0])
        nftw(sink->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void tb_wl_word(tb_wl_words *w, const char *fmt, ...)
{
    if (w->bad)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(w->text + w->used, w->size - w->used, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= w->size - w->used || w->n + 1 >= w->max) {
        w->bad = 1;
        return;
    }
    w->argv[w->n++] = w->text + w->used;
    w->used += (size_t)k + 1;
}
