/* workloads: what every workload of teebench is -- one interface, one module a
 * workload (src/workloads/<name>.c), and the registry of them (registry.c).
 *
 * A workload owns everything that makes its figures: its parameters (a table of
 * typed settings with a default per profile, stored in a plain struct of its own
 * inside the suite's plan: param.c reads and writes them), and its metric table
 * (the names it produces, each with a unit, a direction, a category and whether a
 * TEE's simulation can touch it). The suite, `results import`, `compare` and
 * `report` read units, directions and categories from these tables, never from a
 * name's prefix; a name in no table (from an older or newer teebench) keeps what
 * its record says, category "other".
 *
 * Metric names: '.'-separated segments, the first the workload's name
 * ("http.nginx.latency.p99.9"). A table row's name is a template in which a
 * segment "*" stands for one segment of a name, at most one per row (a target,
 * a probe, a mode): "http.*.latency.p99.9". The first matching row of the
 * workload wins, so a literal row may precede a template.
 *
 * Families (optional, tb_wl_family): metrics a chart draws together beyond their
 * category -- a sweep (one row whose "*" is the value of one setting: a working set, a
 * queue depth, a number of streams) or phases (rows that are consecutive parts of one
 * whole: a boot's firmware, kernel, userspace, login). family.c reads them.
 *
 * Invariants: the registry is a static const table (no mutable state anywhere
 * here); every lookup is pure. Nothing here prints. */
#ifndef TB_WORKLOADS_WORKLOAD_H
#define TB_WORKLOADS_WORKLOAD_H

#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/num.h"

typedef struct tb_workload tb_workload;

#define TB_WL_MAX 16          /* workloads the registry may hold */
#define TB_WL_PARAMS_MAX 2048 /* bytes of one workload's parameters */

/* A metric's direction: the values of record/'s TB_BETTER_* (workloads/ does not
   depend on record/). */
enum { TB_WL_LOWER = -1, TB_WL_HIGHER = 1 };

/* What a metric is about: the report's sections and groups go by it. */
typedef enum tb_wl_category {
    TB_CAT_OTHER = 0,  /* "other": a name no table has */
    TB_CAT_THROUGHPUT, /* "throughput": work per second (req/s, B/s) */
    TB_CAT_LATENCY,    /* "latency": one percentile of a latency distribution (pct) */
    TB_CAT_SYSCALL,    /* "syscall": system-call benchmark scores (index, lps) */
    TB_CAT_PROBE,      /* "probe": the time of one TEE-sensitive operation */
    TB_CAT_ATTEST,     /* "attestation": getting and verifying evidence */
    TB_CAT_NOTARY,     /* "notary": a notarization's times and the TEE's overheads */
    TB_CAT_BOOT,       /* "boot": starting a VM */
    TB_CAT_STORAGE,    /* "storage": block I/O (fio): IOPS, bandwidth, completion latency */
    TB_CAT_NETWORK,    /* "network": TCP/UDP throughput, loss, round trips (iperf3, ping) */
    TB_CAT_KV,         /* "key-value": a key-value store's operations (redis), plain or TLS */
    TB_CAT_MEMORY,     /* "memory": bandwidth, latency, first-touch cost */
    TB_CAT_COUNT
} tb_wl_category;

/* "throughput", "latency", ...; "other" for anything out of range. */
const char *tb_wl_category_name(tb_wl_category c);

/* tb_wl_metric.flags */
#define TB_WLM_UNCORRECTED                                                                         \
    1u /* a latency percentile without the coordinated-omission correction                         \
        */

/* One row of a workload's metric table. */
typedef struct tb_wl_metric {
    const char *name; /* template: "http.*.rps" */
    const char *unit; /* "req/s", "ms", "us", "ns", "index", "lps", "s", "B/s" */
    int better;       /* TB_WL_HIGHER / TB_WL_LOWER */
    tb_wl_category category;
    int tee;           /* a TEE's simulation can touch it (SIMULATED outside a TEE) ... */
    const char *plain; /* ... unless "*" stands for this ("no_tee"); NULL: no exception */
    double pct;        /* TB_CAT_LATENCY: the percentile (99.9); else 0 */
    unsigned flags;    /* TB_WLM_* */
} tb_wl_metric;

/* ---- families: metrics that a chart draws together (optional; family.c) ----

   A sweep is one row of the table whose "*" segment is the value of one setting, a point
   on an x axis: "memory.latency.*.ns" with "*" = "ws_64kib" is the latency at a working
   set of 64 KiB. The report draws a sweep as a line chart of the medians over the
   setting, one curve per environment. Its segments read as the family's prefix, a whole
   number and an optional multiplier, in any case: k, m, g, t (powers of 1000) or ki, mi,
   gi, ti (powers of 1024), either optionally followed by "b" -- "ws_64kib" = 65536,
   "bs_4kib" = 4096, "qd_32" = 32, "streams_4" = 4, "size_1500" = 1500 ("4k" is 4000:
   write "4kib" for fio's 4k). A segment that does not read so (another prefix, another
   form) is not a point of that sweep: the metric stays a metric of its own. One row may
   carry several sweeps with different prefixes ("storage.randread.*.iops" with qd_N
   and bs_N).

   Phases are rows (literal names or templates), in order, that are consecutive parts of
   one whole, each a duration in one unit ("vm.boot.firmware.s", "vm.boot.kernel.s",
   ...): the report stacks their medians into one bar per environment -- and per what "*"
   stood for, when the rows are templates ("vm.boot.*.kernel.s" with "*" = a memory size:
   one bar per size). A phase's label is its name without the segments all the phases'
   names share at their start and end ("firmware"). total names the metric of the whole
   when it is measured too ("vm.boot.s"): shown beside the sum of the phases.

   Every name a family gives is a row's name in the same workload's table. */
typedef enum tb_wl_family_kind {
    TB_WLF_SWEEP = 1, /* a line chart over a setting */
    TB_WLF_PHASES     /* a stacked bar of consecutive parts */
} tb_wl_family_kind;

typedef struct tb_wl_family {
    tb_wl_family_kind kind;
    const char *title; /* the chart's heading: "latency by working set", "boot phases" */
    /* TB_WLF_SWEEP: */
    const char *metric; /* the row's name: "memory.latency.*.ns" */
    const char *prefix; /* what its "*" starts with: "ws_" */
    const char *axis;   /* the x axis' title: "working set" */
    const char *unit;   /* the setting's unit: "B" (sizes: shown as KiB, MiB), NULL: a count */
    int log;            /* a log x axis (settings that double) */
    /* TB_WLF_PHASES: */
    const char *const *phases; /* the rows' names in order, NULL-terminated */
    const char *total;         /* the whole's metric name, or NULL */
} tb_wl_family;

/* ---- parameters ---- */

/* The profiles every parameter has a default for. */
enum { TB_WL_QUICK = 0, TB_WL_STANDARD, TB_WL_SEED, TB_WL_PROFILES };
/* "quick", "standard", "seed" -> TB_WL_*; -1 for anything else. */
int tb_wl_profile_parse(const char *name);

typedef enum tb_wl_param_kind {
    TB_WLP_SECONDS, /* double: "5", "5s", "500ms", "1.5m", within [lo, hi] */
    TB_WLP_INT,     /* int, within [lo, hi] */
    TB_WLP_TEXT,    /* char[size]: no control characters; one of choices when given */
    TB_WLP_CUSTOM,  /* parse and json say (lists, values that set several fields) */
    /* int: a duration as SECONDS reads it, within [lo, hi] s, rounded up to whole seconds
       (a harness's unit); whole seconds in the plan's JSON */
    TB_WLP_WHOLE_SECONDS,
    /* a list of names from *names (or "all", unless names->no_all) into int flags, 1 for
       each named: an int on[names->n] at the field, or with names->fields one int field
       a name; the names set, in the list's order, in the plan's JSON */
    TB_WLP_NAMES,
    /* a comma- (or space-) separated list, token by token: the field (the list's count,
       or a mask) zeroed, then token for each; in the plan's JSON item(params, i) for each
       i below the count (an int field), or json's value when there is no item */
    TB_WLP_LIST
} tb_wl_param_kind;

typedef struct tb_wl_name_set tb_wl_name_set;

/* tb_wl_param.flags */
#define TB_WLP_PLACE                                                                               \
    1u                     /* where a tool or a server is, not how much is measured: setting it    \
                              keeps the plan's profile */
#define TB_WLP_UNLISTED 2u /* left out of the plan's JSON */

/* One parameter of a workload: a row of its table, its first three members given by
   position and the rest by name --
   {"passes", "timed passes", TB_WLP_INT, TB_WLP_FIELD(t, passes), .lo = 1, .def = {"3"}}. */
typedef struct tb_wl_param {
    const char *key;  /* "duration": set as "http.duration", or "duration" in a suite file's
                         workloads.http */
    const char *help; /* one line */
    tb_wl_param_kind kind;
    size_t offset, size; /* of the field in the workload's parameter struct */
    double lo, hi;       /* SECONDS, INT */
    const char *choices; /* TEXT: "mix|close|getpid|exec"; NULL: any text */
    /* TEXT: one more rule (an absolute path, a URL); NULL: none */
    int (*check)(const char *key, const char *value, tb_err *err);
    /* CUSTOM: sets the fields from value; 0 or -1 with err (which names key) */
    int (*parse)(void *params, const char *key, const char *value, tb_err *err);
    /* CUSTOM: the value in the plan's JSON (a new reference) */
    json_t *(*json)(const void *params);
    const tb_wl_name_set *names; /* NAMES: the list */
    /* LIST: adds one token to params (a message that names the token, not the key) */
    int (*token)(void *params, const char *t, tb_err *err);
    /* LIST: element i of the list in the plan's JSON (a new reference), or NULL: json */
    json_t *(*item)(const void *params, int i);
    /* the default per profile (TB_WL_QUICK ...), as a setting's text; NULL: the previous
       profile's; def[0] NULL: none (the field stays zero) */
    const char *def[TB_WL_PROFILES];
    unsigned flags; /* TB_WLP_* */
} tb_wl_param;

/* A row of a parameter table for field f of struct type t. */
#define TB_WLP_FIELD(t, f) .offset = offsetof(t, f), .size = sizeof(((t *)0)->f)

/* Room for any workload's parameters (a plain value: a plan is copied whole). */
typedef union tb_wl_params {
    long double align_;
    void *align_p_;
    unsigned char bytes[TB_WL_PARAMS_MAX];
} tb_wl_params;

/* ---- what a workload does in the suite ---- */

#define TB_WL_MAX_STEPS 8 /* steps of one workload in one round */

/* One step of a round: one measurement of one target. */
typedef struct tb_wl_step {
    const char *target; /* "c1", "nginx", ... or "": static text */
    double estimate_s;  /* its expected duration (ETAs, `suite plan`) */
} tb_wl_step;

/* What a workload needs from the suite: the fixture server (`teebench serve --tls`, on
   127.0.0.1), which several workloads share. */
typedef struct tb_wl_services {
    int fixture;         /* it must run */
    int fixture_threads; /* its threads, when this workload's parameters say (0: no say) */
} tb_wl_services;

/* What a step did. */
enum { TB_WL_OK = 0, TB_WL_FAILED, TB_WL_SKIPPED, TB_WL_CANCELLED };

/* What a workload's figures go to -- the suite's record, or an importer's -- and the
   little it may use of the run: a private work directory and the stop flag. The sink
   is narrow on purpose: a workload never sees the record, the plan or the engine. */
typedef enum tb_wl_problem_kind {
    TB_WL_SKIP, /* something could not be measured here: the reason (extra.skipped) */
    TB_WL_WARN  /* a measurement stands, with a doubt (extra.warnings) */
} tb_wl_problem_kind;

typedef struct tb_wl_sink {
    void *ctx; /* the sink's own, passed to each function */
    /* One sample of metric name (a name of the workload's table; the suite refuses one
       its plan does not list). note: what it measures, kept from the first sample;
       simulated: made with a SIMULATED TEE. 0, or -1 with err. */
    int (*sample)(void *ctx, const char *name, double value, int simulated, const char *note,
                  tb_err *err);
    /* A command line that redoes a measurement by hand (argv NULL-terminated, argv[0] the
       teebench binary -- shown as "teebench" -- or another tool); kept once. May be NULL. */
    void (*command)(void *ctx, char *const *argv);
    /* A problem that is not a failure, of target ("" for the whole workload) in round
       (0: not of one round). May be NULL. */
    void (*problem)(void *ctx, tb_wl_problem_kind kind, const char *target, int round,
                    const char *reason);
    /* A fact about the run: extra.<key> of the record (value stolen). May be NULL. */
    void (*fact)(void *ctx, const char *key, json_t *value);
    /* The version of a tool the workload used ("nginx/1.22.1"). May be NULL. */
    void (*version)(void *ctx, const char *tool, const char *text);
    /* A line of progress: a server started, the evidence used. May be NULL. */
    void (*info)(void *ctx, const char *text);
    const char *dir; /* the run's work directory, private (base/file's rule), or NULL */
    int dir_fd;      /* it, opened once: files are made relative to it; -1 without */
    const volatile sig_atomic_t *stop; /* non-zero: stop at once (SIGINT); may be NULL */
} tb_wl_sink;

/* The sink's functions, each a no-op where the sink has none (sample: an error). */
int tb_wl_sample(tb_wl_sink *s, const char *name, double value, int simulated, const char *note,
                 tb_err *err);
void tb_wl_command(tb_wl_sink *s, char *const *argv);
void tb_wl_problem(tb_wl_sink *s, tb_wl_problem_kind kind, const char *target, int round,
                   const char *reason);
void tb_wl_fact(tb_wl_sink *s, const char *key, json_t *value);
void tb_wl_version(tb_wl_sink *s, const char *tool, const char *text);
void tb_wl_info(tb_wl_sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* 1 when the run was asked to stop. */
int tb_wl_stopped(const tb_wl_sink *s);
/* "<dir>/<rel>" into out; -1 with err when too long or there is no work directory. */
int tb_wl_path(const tb_wl_sink *s, const char *rel, char *out, size_t n, tb_err *err);
/* A new file name in the work directory (an old one removed first, never opened through
   a symlink), open for writing: the fd (caller closes), or -1 with err. */
int tb_wl_create(const tb_wl_sink *s, const char *name, tb_err *err);
/* Reads the work directory's file name (not through a symlink), at most max bytes. */
int tb_wl_read(const tb_wl_sink *s, const char *name, size_t max, tb_buf *out, tb_err *err);
/* Runs argv (a tool) to its end, its stdout and stderr into the work directory's files out
   and errname, killed after timeout_ms (< 0: never) or when the run is asked to stop. 0
   and *code (its exit code: 124 when it timed out), 1 when the stop flag ended it, or -1
   with err (the files or the program could not be made or started). */
int tb_wl_run_tool(const tb_wl_sink *s, char *const *argv, const char *out, const char *errname,
                   int64_t timeout_ms, int *code, tb_err *err);
/* A step's tool run to its end (tb_wl_run_tool): TB_WL_OK when it exited 0, TB_WL_CANCELLED
   when the stop flag ended it, else TB_WL_FAILED with err -- "<what> exited with code N
   [(timed out)]: <line>", the first line of its stderr's file errname (last: the last
   non-empty one). */
int tb_wl_tool_step(const tb_wl_sink *s, char *const *argv, const char *out, const char *errname,
                    int64_t timeout_ms, const char *what, int last, tb_err *err);
/* The first line (64 KiB files at most), or the last non-empty one (1 MiB), of the work
   directory's file name (a log), for messages; "" when there is none. */
void tb_wl_first_line(const tb_wl_sink *s, const char *name, char *out, size_t n);
void tb_wl_last_line(const tb_wl_sink *s, const char *name, char *out, size_t n);
/* A duration as teebench's flags take it: "10s", "250ms". */
void tb_wl_fmt_duration(double s, char *out, size_t n);
/* The program a workload runs (name: looked up in PATH, as execvp does; or a path
   with a '/'), its path into out: 1 when it is there and executable, else 0. */
int tb_wl_find_tool(const char *name, char *out, size_t n);
/* For a workload's command (outside the suite): a new private work directory
   "$TMPDIR/teebench-<name>.XXXXXX" (/tmp without TMPDIR), its path into path (size n) and
   sink->dir / sink->dir_fd set to it. 0, or -1 with err. */
int tb_wl_workdir_open(const char *name, char *path, size_t n, tb_wl_sink *sink, tb_err *err);
/* Removes that directory and everything in it (never following a symlink); closes
   sink->dir_fd. */
void tb_wl_workdir_remove(tb_wl_sink *sink);

/* The fixture server (`teebench serve --tls` on 127.0.0.1, the fixture PKI), which the
   suite starts for the workloads that want it (tb_wl_services). */
typedef struct tb_wl_fixture {
    int up, port;
    char ca[PATH_MAX];       /* the fixture PKI's CA certificate */
    char reason[TB_ERR_MAX]; /* why it is not up, when wanted */
} tb_wl_fixture;

/* What a workload is told at setup. Borrowed: it lives until the cleanup. */
typedef struct tb_wl_env {
    const char *exe;              /* this teebench binary (children: serve, syscall, notary) */
    int ncpu;                     /* CPUs online */
    int server_threads;           /* threads of the servers a run starts (nginx, fixture server) */
    const char *tee;              /* the TEE the env facts name (sys/env's tb_env_json_tee) */
    const tb_wl_fixture *fixture; /* filled before round 1 (up or the reason) */
    const tb_wl_params *params;   /* every workload's parameters in this plan, by
                                     registry index: tb_wl_env_params */
} tb_wl_env;

/* Another workload's parameters in the plan env runs (read only), or NULL. */
const void *tb_wl_env_params(const tb_wl_env *env, const tb_workload *w);

/* For a setup: a new state of size bytes, zeroed and already in *state (so that cleanup
   frees it whatever setup returns next); NULL with err when out of memory. */
void *tb_wl_state_new(size_t size, void **state, tb_err *err);
/* The state of a workload whose steps need nothing but the plan's parameters, the env
   and a few flags of their own: tb_wl_plain_setup (a vtable's setup) makes it,
   tb_wl_free_state (a vtable's cleanup, for any state that is one block of memory) frees
   it. */
typedef struct tb_wl_plain_state {
    const void *params;
    const tb_wl_env *env;
    unsigned char once[64]; /* the steps' said-once flags (a warning, a skip), all 0 first */
} tb_wl_plain_state;
int tb_wl_plain_setup(const void *params, const tb_wl_env *env, tb_wl_sink *sink, void **state,
                      tb_err *err);
void tb_wl_free_state(void *state, tb_wl_sink *sink);

/* ---- a workload's document (its command's --json output) ---- */

/* What a reader is told. */
typedef struct tb_wl_read_opts {
    const char *target; /* http: the server its metric names carry ("nginx"); NULL: "imported" */
    const char *copies; /* syscall: "c1" or "cn", whatever the copies were (the suite's cn on a
                           one-CPU machine); NULL: from the copies */
} tb_wl_read_opts;

/* What a document says besides its figures. */
typedef struct tb_wl_doc_info {
    const json_t *env;              /* the env facts it embeds (borrowed from it), or NULL */
    const char *version;            /* the teebench that wrote it (borrowed), or NULL */
    char started[40], finished[40]; /* ISO 8601 UTC; "" when it does not say */
} tb_wl_doc_info;

/* The envelope's members every teebench document has (cli/json: "env", "teebench") into
   info; started and finished emptied. */
void tb_wl_doc_envelope(const json_t *doc, tb_wl_doc_info *info);
/* tb_wl_doc_envelope, and the document's "started_at" and "finished_at" into info when
   they are ISO 8601 UTC times as teebench writes them ("2026-01-02T03:04:05Z"). */
void tb_wl_doc_envelope_times(const json_t *doc, tb_wl_doc_info *info);
/* 0 when doc has at least one of members[0..n), else -1 with err: "<what>: none of "a",
   "b", "c"". */
int tb_wl_doc_has_one(const json_t *doc, const char *what, const char *const *members, size_t n,
                      tb_err *err);
/* doc's array member name, made (empty) when it has none (borrowed, or NULL when out of
   memory). */
json_t *tb_wl_doc_array(json_t *doc, const char *name);
/* A document's "runs": a non-empty array, each run with a non-empty text member label
   ("transport", "engine") and an array member items ("tests", "jobs"). */
typedef struct tb_wl_doc_runs_spec {
    const char *what; /* for messages: "kv JSON" */
    const char *label, *items;
    /* one run (index r): label's text and it as a metric-name segment (part); emit 0:
       check every member only, 1: give the samples to sink. 0, or -1 with err. */
    int (*run)(const void *ctx, size_t r, const char *label, const char *part, const json_t *items,
               int emit, tb_wl_sink *sink, tb_err *err);
} tb_wl_doc_runs_spec;
/* Reads doc's runs twice through sp->run: every member checked first, then the samples --
   so that a document with one bad member gives none. 0, or -1 with err. */
int tb_wl_doc_runs(const json_t *doc, const tb_wl_doc_runs_spec *sp, const void *ctx,
                   tb_wl_sink *sink, tb_err *err);
/* A finite number >= 0 at doc.k1 (.k2 when k2): 0 and *out, or -1 with err naming what
   ("http JSON") and the member. */
int tb_wl_doc_number(const json_t *doc, const char *what, const char *k1, const char *k2,
                     double *out, tb_err *err);
/* A metric-name segment from free text (a target, a mode, a probe from a document):
   lowercase [a-z0-9_-], anything else ('.' included) '_'; "x" for an empty text. */
void tb_wl_name_part(const char *s, char *out, size_t n);

/* For plan_metrics: called once per metric name a plan produces. 0 or -1 (stop). */
typedef int (*tb_wl_name_fn)(void *ctx, const char *name);

/* A workload: its name and its tables. */
struct tb_workload {
    const char *name;  /* "http": the --workloads name and its metric names' first segment */
    const char *title; /* "HTTP": in headings */
    const char *what;  /* one line: what it measures */
    unsigned flags;    /* TB_WL_* below */
    /* parameters: a struct of params_size bytes (<= TB_WL_PARAMS_MAX) described by the
       table; check says whether a combination is runnable (NULL: any is) */
    size_t params_size;
    const tb_wl_param *params;
    size_t n_params;
    int (*check)(const void *params, tb_err *err);
    /* the suite (each NULL for a workload with no steps) */
    void (*services)(const void *params, int enabled, tb_wl_services *want);
    size_t (*steps)(const void *params, tb_wl_step *out); /* <= TB_WL_MAX_STEPS */
    /* one line for `suite plan`: what the step of target does */
    void (*describe)(const void *params, const char *target, char *out, size_t n);
    double (*setup_estimate)(const void *params); /* seconds before round 1 */
    /* Before round 1: *state (the workload's own; freed by cleanup, which is called when
     *state is set, whatever setup returned). -1 with err: every step fails with it. */
    int (*setup)(const void *params, const tb_wl_env *env, tb_wl_sink *sink, void **state,
                 tb_err *err);
    /* One measurement of target in round (1-based): TB_WL_OK, or TB_WL_FAILED /
       TB_WL_SKIPPED with err, or TB_WL_CANCELLED (the stop flag was seen: the measurement
       it cut short added no sample). */
    int (*step)(void *state, const char *target, int round, tb_wl_sink *sink, tb_err *err);
    /* After the last round, on every path: stops what setup started, frees state. */
    void (*cleanup)(void *state, tb_wl_sink *sink);
    /* metrics: the table, and the names a plan's parameters produce (each in the table) */
    const tb_wl_metric *metrics;
    size_t n_metrics;
    int (*plan_metrics)(const void *params, tb_wl_name_fn emit, void *ctx);
    /* its document: the schema of its command's --json output ("teebench-http/1"), an
       older layout's "tool" member ("teebench http"), and the reader, which gives every
       figure to sink (its samples) and says the rest in info; 0, or -1 with err naming
       the member that is missing or wrong (a document is untrusted input) */
    const char *doc_schema;
    const char *doc_tool;
    int (*doc_read)(const json_t *doc, const tb_wl_read_opts *o, tb_wl_sink *sink,
                    tb_wl_doc_info *info, tb_err *err);
    /* families of its metrics that charts draw together (sweeps, phases); optional */
    const tb_wl_family *families;
    size_t n_families;
};

/* A vtable's parameter table (struct type t, table tbl) and metric table (tbl). */
#define TB_WL_PARAM_TABLE(t, tbl)                                                                  \
    .params_size = sizeof(t), .params = (tbl), .n_params = sizeof(tbl) / sizeof((tbl)[0])
#define TB_WL_METRIC_TABLE(tbl) .metrics = (tbl), .n_metrics = sizeof(tbl) / sizeof((tbl)[0])
/* A vtable's families (tbl). */
#define TB_WL_FAMILY_TABLE(tbl) .families = (tbl), .n_families = sizeof(tbl) / sizeof((tbl)[0])

/* tb_workload.flags */
#define TB_WL_ALWAYS 1u   /* runs in every suite (env: the environment facts) */
#define TB_WL_NO_SUITE 2u /* not a suite workload: its metrics come from elsewhere (vm) */
/* left out of the quick profile (tests and smoke runs) unless named (--workloads, a suite
   file): a workload that needs a tool or minutes (storage, kv, network) or whose figures
   need more than a few seconds (memory); named, it runs with quick's defaults */
#define TB_WL_NOT_QUICK 4u
#define TB_WL_ONCE 8u /* its steps run in round 1 only (long ones: tlsn's sessions) */

/* ---- the registry ---- */

/* env: always runs, first; the suite's environment facts (no steps, no metrics). */
extern const tb_workload tb_wl_envfacts;

/* The workloads, in the suite's order; index < tb_workload_count(). */
size_t tb_workload_count(void);
const tb_workload *tb_workload_at(size_t i);
/* The workload called name, or NULL. */
const tb_workload *tb_workload_find(const char *name);
/* w's position in the registry, or -1. */
int tb_workload_index(const tb_workload *w);

/* The suite's workloads for messages, into out (size n): "env, syscall, probe, ...". */
void tb_workload_names(char *out, size_t n);

/* The workload whose document doc is (its "schema", or an older layout's "tool"), or
   NULL. */
const tb_workload *tb_workload_for_doc(const json_t *doc);
/* The schemas of the documents the workloads read, for messages: "teebench-http/1, ...". */
void tb_workload_doc_schemas(char *out, size_t n);

/* What a metric name is, from the tables. */
typedef struct tb_wl_match {
    const tb_workload *workload;
    const tb_wl_metric *metric;
    char part[128]; /* what the row's "*" stood for ("nginx", "cpuid", "tee_verify"); "" */
    int tee;        /* metric->tee, unless part is metric->plain */
} tb_wl_match;

/* 1 and *out when a table has name (a segment for "*" is at most 127 bytes), else 0. */
int tb_wl_metric_find(const char *name, tb_wl_match *out);

/* ---- families (family.c) ---- */

/* The sweep of a matched metric: its family and the setting's value (*x), or NULL when
   the metric is in no sweep of its workload (or its segment reads as none). */
const tb_wl_family *tb_wl_sweep_of(const tb_wl_match *m, double *x);
/* The phases a matched metric is one of: the family and the phase's position (*index),
   or NULL. */
const tb_wl_family *tb_wl_phase_of(const tb_wl_match *m, size_t *index);
/* Phase index of f for legends ("firmware"), into out (size n). */
void tb_wl_phase_label(const tb_wl_family *f, size_t index, char *out, size_t n);
/* The number of phases of f. */
size_t tb_wl_phase_count(const tb_wl_family *f);

/* ---- parameters (param.c) ---- */

/* Sets every parameter of w in params (w->params_size bytes, zeroed first) to its
   default in profile (TB_WL_*). 0, or -1 with err (a default that does not parse: a bug). */
int tb_wl_params_init(const tb_workload *w, void *params, int profile, tb_err *err);
/* Sets w's parameter key ("duration") from its text. Messages name "<w>.<key>". 0, or -1
   with err: an unknown key, a value out of range, a combination w->check refuses (then
   params is unchanged). *place (may be NULL) = the parameter is a TB_WLP_PLACE one. */
int tb_wl_params_set(const tb_workload *w, void *params, const char *key, const char *value,
                     int *place, tb_err *err);
/* w's parameters as a JSON object, in table order (NULL when out of memory). */
json_t *tb_wl_params_json(const tb_workload *w, const void *params);

/* For parsers of custom parameters: */
int tb_wl_parse_seconds(const char *key, const char *v, double lo, double hi, double *out,
                        tb_err *err);
int tb_wl_parse_int(const char *key, const char *v, long lo, long hi, int *out, tb_err *err);
/* A size in binary units, as every size setting takes it: decimal digits, then nothing
   or k, m, g, t in either case (1024 .. 1024^4), which iB, ib, B or b may follow ("4096",
   "64K", "64KiB", "3mb"). tb_num_size's terms (base/num.h): the caller words the status. */
tb_num_status tb_wl_size(const char *v, uint64_t lo, uint64_t hi, uint64_t *out);
/* v into out (size n): no control character, shorter than n. */
int tb_wl_parse_text(const char *key, const char *v, char *out, size_t n, tb_err *err);
/* fn(ctx, token) for each token of a comma- (or space-) separated list; an empty list or
   a failing token is an error naming key. */
int tb_wl_each_token(const char *key, const char *v, int (*fn)(void *, const char *, tb_err *),
                     void *ctx, tb_err *err);
/* A command line built into the caller's arrays: argv[0..max) and the text its words
   point into, text[0..size). tb_wl_word appends one printf-formatted word; one that does
   not fit (or a full argv, which keeps room for the closing NULL) sets bad and the rest
   are ignored. Start with {argv, 0, max, text, 0, size, 0}; the caller ends argv with
   argv[n] = NULL when !bad. */
typedef struct tb_wl_words {
    char **argv;
    size_t n, max;
    char *text;
    size_t used, size;
    int bad;
} tb_wl_words;
void tb_wl_word(tb_wl_words *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A list of names from names[0..n) (or "all") into on[0..n) (1: named; cleared first);
   alias, when not NULL, is another spelling of names[alias_of]. A name not in the list
   is refused as "unknown WHAT 'x' (names, ...)", naming key. */
#define TB_WL_NAMES_MAX 32 /* names a tb_wl_name_set may have */
struct tb_wl_name_set {
    const char *what; /* "part", "test" */
    const char *const *names;
    int n;             /* <= TB_WL_NAMES_MAX */
    const char *alias; /* or NULL */
    int alias_of;
    int no_all;           /* "all" is not a word of this list */
    const size_t *fields; /* TB_WLP_NAMES: the int field of each name (offsetof), or NULL */
};
int tb_wl_name_set_parse(const tb_wl_name_set *set, const char *key, const char *v, int *on,
                         tb_err *err);
/* The names set in on[0..n), in the list's order (new reference). */
json_t *tb_wl_name_set_json(const tb_wl_name_set *set, const int *on);
/* Checks for TEXT parameters: an http:// or https:// URL; an absolute path; not empty. */
int tb_wl_check_http_url(const char *key, const char *v, tb_err *err);
int tb_wl_check_abs_path(const char *key, const char *v, tb_err *err);

#endif
