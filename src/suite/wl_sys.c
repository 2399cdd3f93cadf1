/* suite/wl_sys: the syscall and probe workloads of the suite.
 *
 * syscall runs `teebench syscall --json` (sys/syscall_bench under its cli) in
 * its own process group: a pass cannot be cancelled in process, a process group
 * can be killed at once on an interrupt. One run per round and copies setting;
 * its samples: the index (one per round) and, for one copy, the lps of every
 * pass UnixBench's scoring kept.
 * probe calls sys/probe in process (each probe pins this thread and restores
 * its affinity); one sample per probe and round: the median ns per operation.
 * A probe this machine cannot run is skipped with the probe's own reason. */
#include "suite/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/file.h"
#include "sys/probe.h"

/* First line of the work directory's file name (a child's stderr), for error messages. */
static void first_line(const suite_ctx *c, const char *name, char *out, size_t n)
{
    tb_buf b = {0};
    tb_err e;
    out[0] = 0;
    if (suite_read(c, name, 1 << 16, &b, &e) == 0 && b.p) {
        char *s = (char *)b.p;
        s[strcspn(s, "\n")] = 0;
        snprintf(out, n, "%s", s);
    }
    tb_buf_clear(&b);
}

int suite_syscall_step(suite_ctx *c, const char *target, int round, tb_err *err)
{
    const tb_wl_syscall_params *s = SYSCALL(c);
    int one = !strcmp(target, "c1"), copies = one ? 1 : c->ncpu;
    char dur[32], passes[16], ncopies[16], out[64], errp[64];
    snprintf(dur, sizeof dur, "%g", s->duration_s);
    snprintf(passes, sizeof passes, "%d", s->passes);
    snprintf(ncopies, sizeof ncopies, "%d", copies);
    snprintf(out, sizeof out, "syscall-%s.json", target);
    snprintf(errp, sizeof errp, "syscall-%s.stderr.log", target);
    int outfd = suite_create(c, out, err), errfd = outfd < 0 ? -1 : suite_create(c, errp, err);
    if (errfd < 0) {
        if (outfd >= 0)
            close(outfd);
        return ST_FAILED;
    }
    char *argv[] = {c->exe, "syscall",  "--json", "--mode",   (char *)s->mode, "--duration",
                    dur,    "--passes", passes,   "--copies", ncopies,         NULL};
    suite_command(c, argv);
    tb_proc_opts o = {.argv = argv, .stdout_fd = outfd, .stderr_fd = errfd};
    tb_proc_result r;
    int64_t timeout_ms = (int64_t)(s->passes * s->duration_s * 2000) + 60000;
    int ran = tb_proc_run(&o, timeout_ms, c->stop, &r, err);
    close(outfd);
    close(errfd);
    if (ran < 0)
        return ST_FAILED;
    if (r.cancelled)
        return ST_CANCELLED;
    if (r.exit_code != 0) {
        char line[256];
        first_line(c, errp, line, sizeof line);
        tb_errf(err, "teebench syscall exited with code %d%s%s", r.exit_code, line[0] ? ": " : "",
                line);
        return ST_FAILED;
    }
    json_error_t je = {.text = ""};
    tb_buf text = {0};
    json_t *doc = suite_read(c, out, 64u << 20, &text, err) == 0
                      ? json_loadb((const char *)text.p, text.len, 0, &je)
                      : NULL;
    tb_buf_clear(&text);
    json_t *arr = json_object_get(doc, "passes"), *index = json_object_get(doc, "index");
    if (!json_is_array(arr) || json_array_size(arr) == 0) {
        json_decref(doc);
        tb_errf(err, "teebench syscall --json: no passes in its output (%s)", je.text);
        return ST_FAILED;
    }
    char note[256];
    int rc = 0;
    if (json_is_number(index)) {
        snprintf(note, sizeof note,
                 "UnixBench System Call Overhead index (score / 15000 lps x 10), mode %s, %d "
                 "cop%s%s, one sample per round",
                 s->mode, copies, copies == 1 ? "y" : "ies",
                 one ? "" : " (the CPUs online), loops summed over the copies");
        char name[64];
        snprintf(name, sizeof name, "syscall.%s.index", target);
        rc = suite_sample(c, name, json_number_value(index), 0, note, err);
    }
    if (rc == 0) {
        int mix = !strcmp(s->mode, "mix");
        char name[64];
        snprintf(name, sizeof name, "syscall.%s%s%s.lps", mix ? "" : s->mode, mix ? "" : ".",
                 target);
        snprintf(note, sizeof note,
                 "loops per second of each pass UnixBench's scoring kept (lowest third by count "
                 "dropped), mode %s, %d cop%s%s",
                 s->mode, copies, copies == 1 ? "y" : "ies",
                 one ? "" : " (the CPUs online), loops summed over the copies");
        size_t i;
        json_t *pass;
        json_array_foreach(arr, i, pass)
        {
            json_t *lps = json_object_get(pass, "lps");
            if (rc == 0 && json_is_true(json_object_get(pass, "kept")) && json_is_number(lps))
                rc = suite_sample(c, name, json_number_value(lps), 0, note, err);
        }
    }
    json_decref(doc);
    (void)round;
    return rc < 0 ? ST_FAILED : ST_OK;
}

/* The probe command lines: one per distinct sample count, as `teebench probe` takes one --reps. */
static void probe_commands(suite_ctx *c, const tb_probe_info *all, size_t n)
{
    unsigned done[64];
    size_t nd = 0;
    for (size_t i = 0; i < n; i++) {
        if (!tb_wl_probe_selected(PROBE(c), all[i].name))
            continue;
        unsigned reps = (unsigned)tb_probe_reps(&all[i], 0);
        if ((unsigned)PROBE(c)->max_reps && (unsigned)PROBE(c)->max_reps < reps)
            reps = (unsigned)PROBE(c)->max_reps;
        int seen = 0;
        for (size_t k = 0; k < nd; k++)
            seen |= done[k] == reps;
        if (seen || nd == 64)
            continue;
        done[nd++] = reps;
        tb_buf list = {0};
        for (size_t j = i; j < n; j++) {
            if (!tb_wl_probe_selected(PROBE(c), all[j].name))
                continue;
            unsigned r2 = (unsigned)tb_probe_reps(&all[j], 0);
            if ((unsigned)PROBE(c)->max_reps && (unsigned)PROBE(c)->max_reps < r2)
                r2 = (unsigned)PROBE(c)->max_reps;
            if (r2 == reps)
                tb_buf_printf(&list, "%s%s", list.len ? "," : "", all[j].name);
        }
        char rs[16];
        snprintf(rs, sizeof rs, "%u", reps);
        char *argv[] = {c->exe,   "probe", "--probes", list.p ? (char *)list.p : "",
                        "--reps", rs,      NULL};
        suite_command(c, argv);
        tb_buf_clear(&list);
    }
}

int suite_probe_step(suite_ctx *c, int round, tb_err *err)
{
    size_t n;
    const tb_probe_info *all = tb_probe_all(&n);
    probe_commands(c, all, n);
    int rc = ST_OK;
    for (size_t i = 0; i < n; i++) {
        if (!tb_wl_probe_selected(PROBE(c), all[i].name))
            continue;
        if (suite_stopped(c))
            return ST_CANCELLED;
        unsigned reps = (unsigned)tb_probe_reps(&all[i], 0);
        if ((unsigned)PROBE(c)->max_reps && (unsigned)PROBE(c)->max_reps < reps)
            reps = (unsigned)PROBE(c)->max_reps;
        tb_probe_opts o = {.reps = reps, .cpu = -1};
        tb_probe_result res;
        tb_err e;
        if (tb_probe_run(&all[i], &o, &res, &e) < 0) {
            if (rc == ST_OK)
                tb_errf(err, "probe %s: %s", all[i].name, e.msg);
            rc = ST_FAILED;
            continue;
        }
        if (!res.available) { /* reported once, the first round it happens */
            if (i < sizeof c->probe_skip_seen && !c->probe_skip_seen[i]) {
                c->probe_skip_seen[i] = 1;
                suite_problem(c->skipped, "probe", all[i].name, round,
                              res.note[0] ? res.note : "not measurable here");
            }
            continue;
        }
        char name[96];
        snprintf(name, sizeof name, "probe.%s.ns", all[i].name);
        if (suite_sample(c, name, res.median_ns, 0, all[i].what, &e) < 0) {
            tb_errf(err, "%s", e.msg);
            return ST_FAILED;
        }
    }
    return rc;
}
