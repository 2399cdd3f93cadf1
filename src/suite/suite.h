/* suite: every workload of teebench, run in one environment, as one record
 * (`teebench suite run`).
 *
 * A plan (tb_suite_plan, a plain value) says what to run: a profile (quick,
 * standard, seed) gives every parameter, a suite file or KEY=VALUE settings
 * change them, a workload list picks the workloads. tb_suite_run executes a
 * plan on this machine and returns a tb_record (record/record.h) with every
 * sample of every repetition, the environment facts (sys/env), the exact
 * command lines and the tool versions.
 *
 * Order: with repeat = N the suite runs N rounds; a round runs every selected
 * step once (syscall c1, syscall cn, probe, http nginx, http serve-tls, attest,
 * notary), so slow drifts of the machine spread over all workloads instead of
 * biasing the last one. The servers (nginx, the fixture server `teebench serve
 * --tls`) start once before round 1 and stop after the last round; the
 * notarization harness (bench/run) starts its notary once per round.
 *
 * Workloads run in this process where their module is safe to call (http via
 * load/, probe via sys/probe, attest via attest/, notary via bench/run); the
 * syscall benchmark runs as `teebench syscall --json` in its own process group
 * so that an interrupt stops a 10-second pass at once (its module has no
 * cancellation), and the fixture server as `teebench serve --tls`.
 *
 * Failures: a workload whose package is missing (no nginx) or that cannot run
 * here (a probe this machine lacks) is skipped with the reason; a workload that
 * errs is recorded as a failure (the record's status becomes "failed", every
 * sample measured is kept). Both are listed in record->extra ("skipped",
 * "failures"). An interrupt (*hooks->stop != 0) stops the current step within
 * ~100 ms, drops its incomplete measurement, keeps every finished sample and
 * sets the status to "interrupted".
 *
 * Nothing here prints: progress goes to hooks->progress, the summary table is
 * text appended to a tb_buf. No global state. */
#ifndef TB_SUITE_SUITE_H
#define TB_SUITE_SUITE_H

#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "record/record.h"
#include "workloads/workload.h"

/* A metric whose coefficient of variation (stdev / mean) exceeds this is noisy
   (the same threshold as compare/). */
#define TB_SUITE_NOISY_CV 0.05

#define TB_SUITE_MAX_STEPS 32

/* What to run: every workload's parameters (workloads/: each one's own struct, by its
   position in the registry) and which workloads run. A plain value: copy it whole. */
typedef struct tb_suite_plan {
    char profile[16];       /* "quick", "standard", "seed", or "custom" once a parameter changed */
    char base_profile[16];  /* the profile the parameters started from */
    int repeat;             /* rounds, >= 1 */
    int enabled[TB_WL_MAX]; /* by tb_workload_index */
    tb_wl_params params[TB_WL_MAX]; /* by tb_workload_index: tb_suite_plan_params */
    /* How to run it (not part of the measurement): */
    char label[64];          /* environment label; "": from the env facts */
    char self_exe[PATH_MAX]; /* the teebench binary (children: serve, syscall, notary) */
    char work_dir[PATH_MAX]; /* "": a temporary directory, removed afterwards
                                unless a workload failed */
    const char *invocation;  /* the command line that asked for the run (borrowed), or NULL */
} tb_suite_plan;

/* w's parameters in p (its own struct: tb_wl_http_params for tb_wl_http, ...); NULL
   for a workload the registry does not hold. */
void *tb_suite_plan_params(const tb_suite_plan *p, const tb_workload *w);
/* Whether w runs. */
int tb_suite_plan_enabled(const tb_suite_plan *p, const tb_workload *w);

/* ---- plan building (pure: no I/O besides tb_suite_plan_load_file) ---- */

/* The plan of a profile ("quick", "standard", "seed"), every workload enabled.
   0, or -1 with err for an unknown profile. */
int tb_suite_plan_init(tb_suite_plan *p, const char *profile, tb_err *err);
/* Enables exactly the listed workloads (comma-separated; "all"); env stays on. */
int tb_suite_plan_select(tb_suite_plan *p, const char *list, tb_err *err);
/* Sets one parameter: "repeat", or "<workload>.<key>" (see tb_suite_plan_key).
   Durations take s/ms/m suffixes ("5s", "500ms"; a bare number is seconds);
   lists are comma-separated. A changed parameter makes the profile "custom". */
int tb_suite_plan_set(tb_suite_plan *p, const char *key, const char *value, tb_err *err);
/* Applies a suite document: {"profile": P (ignored here: the caller picks the
   profile first), "repeat": N, "workloads": {"http": {"duration": "5s", ...}, ...}}.
   When "workloads" is present, exactly those workloads are enabled. Unknown keys,
   wrong types and bad values are errors naming the key. */
int tb_suite_plan_apply_json(tb_suite_plan *p, const json_t *doc, tb_err *err);
/* Reads a suite file: its "profile" member (or NULL) into profile (size n) so the
   caller can init the plan first, and the document (caller json_decref()s). */
int tb_suite_plan_load_file(const char *path, json_t **doc, char *profile, size_t n, tb_err *err);
/* The i-th key tb_suite_plan_set accepts ("repeat", then every workload's, in the
   registry's order) into key (size n), with its one-line help: 1, or 0 past the last. */
int tb_suite_plan_key(size_t i, char *key, size_t n, const char **help);

/* One step of a round. */
typedef struct tb_suite_step {
    const tb_workload *workload;
    const char *target; /* "c1", "cn", "nginx", "serve-tls", or "" */
    double estimate_s;  /* expected duration */
    int once;           /* round 1 only (the workload's TB_WL_ONCE) */
} tb_suite_step;

/* The steps of one round, in order; returns their number (<= TB_SUITE_MAX_STEPS). */
size_t tb_suite_plan_steps(const tb_suite_plan *p, tb_suite_step *steps);
/* What the plan's workloads want from the suite (the fixture server, its threads). */
void tb_suite_plan_services(const tb_suite_plan *p, tb_wl_services *want);
/* Expected duration of the whole suite in seconds (setup + rounds). */
double tb_suite_plan_estimate(const tb_suite_plan *p);
/* The plan's parameters as JSON (new reference; NULL when out of memory). */
json_t *tb_suite_plan_json(const tb_suite_plan *p);

/* What a metric of the suite is: every metric tb_suite_run can produce has one. */
typedef struct tb_suite_metric_spec {
    char name[128];
    const char *unit;
    int better; /* TB_BETTER_HIGHER / TB_BETTER_LOWER */
    const tb_workload *workload;
    int tee; /* measured with the TEE (SIMULATED when the sim provider is used) */
} tb_suite_metric_spec;

/* The metrics a plan produces (probe metrics for every selected probe), in
   order. *out is malloc'd (caller frees), *n their number. 0 or -1 (OOM). */
int tb_suite_plan_metrics(const tb_suite_plan *p, tb_suite_metric_spec **out, size_t *n,
                          tb_err *err);

/* The plan as text for `teebench suite plan`: steps, parameters, estimates,
   metrics. Appended to out. 0 or -1 (OOM). */
int tb_suite_plan_describe(const tb_suite_plan *p, tb_buf *out, tb_err *err);

/* ---- running ---- */

typedef enum tb_suite_event_kind {
    TB_SUITE_EV_BEGIN,     /* the plan starts: steps, rounds, estimate */
    TB_SUITE_EV_INFO,      /* text: a server started, the TEE used ... */
    TB_SUITE_EV_STEP,      /* a step starts */
    TB_SUITE_EV_STEP_DONE, /* a step ended: status "ok", "failed", "skipped", "interrupted" */
    TB_SUITE_EV_END        /* the run ended: status of the record */
} tb_suite_event_kind;

typedef struct tb_suite_event {
    tb_suite_event_kind kind;
    const char *workload; /* STEP, STEP_DONE: "http", ...; else "" */
    const char *target;   /* "nginx", "c1", ... or "" */
    int round, rounds;    /* 1-based round; rounds = repeat */
    int step, steps;      /* 1-based index over the whole suite; total */
    double elapsed_s;     /* since the suite started */
    double eta_s;         /* expected time left; < 0: unknown */
    double step_s;        /* STEP_DONE: how long the step took */
    const char *status;   /* STEP_DONE and END; else "" */
    const char *text;     /* INFO, or the reason of a failed/skipped step; else "" */
} tb_suite_event;

typedef void (*tb_suite_progress_fn)(const tb_suite_event *ev, void *ctx);

typedef struct tb_suite_hooks {
    tb_suite_progress_fn progress; /* may be NULL; called from the calling thread only */
    void *ctx;
    const volatile sig_atomic_t *stop; /* may be NULL; non-zero: stop (SIGINT/SIGTERM) */
} tb_suite_hooks;

/* Runs the plan here. On return 0, *out is the record (caller tb_record_free()s)
   with status "complete", "failed" (a workload failed; see extra.failures) or
   "interrupted". -1 with err when the suite could not run at all (no memory, the
   work directory cannot be made); then *out is NULL. Servers and children it
   started are stopped in every case. */
int tb_suite_run(const tb_suite_plan *p, tb_suite_hooks *hooks, tb_record **out, tb_err *err);

/* One INFO event with the formatted text (cut at 1 KiB) through hooks->progress, as
   the suite's own are: for what runs around a suite (suite/remote, fleet/). Nothing
   when hooks or hooks->progress is NULL. */
void tb_suite_info(const tb_suite_hooks *hooks, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- output helpers (pure) ---- */

/* argv (NULL-terminated) as one shell command line: words with characters other
   than [A-Za-z0-9_.,/:=@+%-] single-quoted. Appended to out. 0 or -1 (OOM). */
int tb_suite_shell_join(char *const *argv, tb_buf *out);

/* One event as a JSON object (new reference; NULL when out of memory):
   {"event": "step", "workload": ..., "target": ..., "round": ..., ...}. */
json_t *tb_suite_event_to_json(const tb_suite_event *ev);
/* Reads an event back (for a remote run's progress): strings point into doc,
   which must outlive ev. 0, or -1 with err for anything else. */
int tb_suite_event_from_json(const json_t *doc, tb_suite_event *ev, tb_err *err);
const char *tb_suite_event_kind_name(tb_suite_event_kind k);

/* The summary table of a record: one row per metric (name, n, median with
   unit, CV %, "noisy" when CV > TB_SUITE_NOISY_CV, "SIMULATED"), then the
   skipped and failed workloads. Appended to out. 0 or -1 (OOM). */
int tb_suite_summary(const tb_record *r, tb_buf *out, tb_err *err);

/* The kernel log's "swiotlb buffer is full" lines over a run: tb_suite_run reads their
   count at the start and at the end (sys/env tb_env_swiotlb_full_now) into the record's
   extra "swiotlb_full": {"start", "end", "grew" (bool)}, or {"unknown": why} when the
   log could not be read (not root: kernel.dmesg_restrict). A count that grew means some
   DMA found the bounce-buffer pool exhausted while the workloads ran (a driver then
   retries or fails: the I/O figures of that run include it). 1 and one line (no
   newline) in out when r's count grew, else 0. Pure. */
int tb_suite_swiotlb_full_grew(const tb_record *r, char *out, size_t len);

#endif
