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
 * Invariants: the registry is a static const table (no mutable state anywhere
 * here); every lookup is pure. Nothing here prints. */
#ifndef TB_WORKLOADS_WORKLOAD_H
#define TB_WORKLOADS_WORKLOAD_H

#include <jansson.h>
#include <stddef.h>

#include "base/err.h"

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

/* ---- parameters ---- */

/* The profiles every parameter has a default for. */
enum { TB_WL_QUICK = 0, TB_WL_STANDARD, TB_WL_SEED, TB_WL_PROFILES };
/* "quick", "standard", "seed" -> TB_WL_*; -1 for anything else. */
int tb_wl_profile_parse(const char *name);

typedef enum tb_wl_param_kind {
    TB_WLP_SECONDS, /* double: "5", "5s", "500ms", "1.5m", within [lo, hi] */
    TB_WLP_INT,     /* int, within [lo, hi] */
    TB_WLP_TEXT,    /* char[size]: no control characters; one of choices when given */
    TB_WLP_CUSTOM   /* parse and json say (lists, values that set several fields) */
} tb_wl_param_kind;

/* tb_wl_param.flags */
#define TB_WLP_PLACE                                                                               \
    1u                     /* where a tool or a server is, not how much is measured: setting it    \
                              keeps the plan's profile */
#define TB_WLP_UNLISTED 2u /* left out of the plan's JSON */

/* One parameter of a workload. */
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

/* For plan_metrics: called once per metric name a plan produces. 0 or -1 (stop). */
typedef int (*tb_wl_name_fn)(void *ctx, const char *name);

typedef struct tb_workload tb_workload;

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
    /* metrics: the table, and the names a plan's parameters produce (each in the table) */
    const tb_wl_metric *metrics;
    size_t n_metrics;
    int (*plan_metrics)(const void *params, tb_wl_name_fn emit, void *ctx);
};

/* tb_workload.flags */
#define TB_WL_ALWAYS 1u   /* runs in every suite (env: the environment facts) */
#define TB_WL_NO_SUITE 2u /* not a suite workload: its metrics come from elsewhere (vm) */

/* ---- the registry ---- */

/* env: always runs, first; the suite's environment facts (no steps, no metrics). */
extern const tb_workload tb_wl_env;

/* The workloads, in the suite's order; index < tb_workload_count(). */
size_t tb_workload_count(void);
const tb_workload *tb_workload_at(size_t i);
/* The workload called name, or NULL. */
const tb_workload *tb_workload_find(const char *name);
/* w's position in the registry, or -1. */
int tb_workload_index(const tb_workload *w);

/* The suite's workloads for messages, into out (size n): "env, syscall, probe, ...". */
void tb_workload_names(char *out, size_t n);

/* What a metric name is, from the tables. */
typedef struct tb_wl_match {
    const tb_workload *workload;
    const tb_wl_metric *metric;
    char part[128]; /* what the row's "*" stood for ("nginx", "cpuid", "tee_verify"); "" */
    int tee;        /* metric->tee, unless part is metric->plain */
} tb_wl_match;

/* 1 and *out when a table has name (a segment for "*" is at most 127 bytes), else 0. */
int tb_wl_metric_find(const char *name, tb_wl_match *out);

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
/* v into out (size n): no control character, shorter than n. */
int tb_wl_parse_text(const char *key, const char *v, char *out, size_t n, tb_err *err);
/* fn(ctx, token) for each token of a comma- (or space-) separated list; an empty list or
   a failing token is an error naming key. */
int tb_wl_each_token(const char *key, const char *v, int (*fn)(void *, const char *, tb_err *),
                     void *ctx, tb_err *err);
/* Checks for TEXT parameters: an http:// or https:// URL; an absolute path; not empty. */
int tb_wl_check_http_url(const char *key, const char *v, tb_err *err);
int tb_wl_check_abs_path(const char *key, const char *v, tb_err *err);

#endif
