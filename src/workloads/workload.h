/* workloads: what every workload of teebench is -- one interface, one module a
 * workload (src/workloads/<name>.c), and the registry of them (registry.c).
 *
 * A workload owns everything that makes its figures: its metric table (the names
 * it produces, each with a unit, a direction, a category and whether a TEE's
 * simulation can touch it). The suite, `results import`, `compare` and `report`
 * read units, directions and categories from these tables, never from a name's
 * prefix; a name in no table (from an older or newer teebench) keeps what its
 * record says, category "other".
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

#include <stddef.h>

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
#define TB_WLM_UNCORRECTED 1u /* a latency percentile without the coordinated-omission correction  \
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

typedef struct tb_workload tb_workload;

/* A workload: its name and its tables. */
struct tb_workload {
    const char *name;  /* "http": the --workloads name and its metric names' first segment */
    const char *title; /* "HTTP": in headings */
    const char *what;  /* one line: what it measures */
    unsigned flags;    /* TB_WL_* below */
    const tb_wl_metric *metrics;
    size_t n_metrics;
};

/* tb_workload.flags */
#define TB_WL_ALWAYS 1u   /* runs in every suite (env: the environment facts) */
#define TB_WL_NO_SUITE 2u /* not a suite workload: its metrics come from elsewhere (vm) */

/* ---- the registry ---- */

/* The workloads, in the suite's order; index < tb_workload_count(). */
size_t tb_workload_count(void);
const tb_workload *tb_workload_at(size_t i);
/* The workload called name, or NULL. */
const tb_workload *tb_workload_find(const char *name);
/* w's position in the registry, or -1. */
int tb_workload_index(const tb_workload *w);

/* What a metric name is, from the tables. */
typedef struct tb_wl_match {
    const tb_workload *workload;
    const tb_wl_metric *metric;
    char part[128]; /* what the row's "*" stood for ("nginx", "cpuid", "tee_verify"); "" */
    int tee;        /* metric->tee, unless part is metric->plain */
} tb_wl_match;

/* 1 and *out when a table has name (a segment for "*" is at most 127 bytes), else 0. */
int tb_wl_metric_find(const char *name, tb_wl_match *out);

#endif
