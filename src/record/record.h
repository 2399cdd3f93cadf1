/* record: one suite run in one environment -- the unit that teebench stores,
 * exports, imports, compares and reports.
 *
 * A record is a label (the environment's name, e.g. "tdx-guest"), the facts of
 * that environment (`teebench env --json`, embedded verbatim), the exact
 * commands and tool versions used, and a list of metrics. A metric is a named
 * series of samples with a unit and a direction (higher or lower is better);
 * every sample of every repetition is kept, never only a mean.
 *
 * Invariants:
 * - id is a UUID (v4, lowercase text) made once when the run starts and kept
 *   through export and import, so importing the same file twice gives one run.
 * - metric names are unique within a record and look like
 *   "<workload>.<target>.<quantity>" (lowercase, [a-z0-9_.-]); samples are finite.
 * - simulated is 1 on the record when any metric was measured with a simulated
 *   TEE, and on each such metric; every output that shows them says "SIMULATED".
 * - The JSON form (tb_record_to_json) is schema "teebench-result" version
 *   TB_RECORD_SCHEMA_VERSION; a reader refuses any other schema or version with
 *   one clear line, and a truncated or malformed file, instead of guessing.
 *
 * Ownership: a tb_record owns everything it points to; tb_record_free frees it
 * and all of its metrics. json_t members are owned references. */
#ifndef TB_RECORD_RECORD_H
#define TB_RECORD_RECORD_H

#include <jansson.h>
#include <stddef.h>

#include "base/err.h"

#define TB_RECORD_SCHEMA "teebench-result"
#define TB_RECORD_SCHEMA_VERSION 1

enum { TB_BETTER_LOWER = -1, TB_BETTER_HIGHER = 1 };

typedef struct tb_metric {
    char *name;     /* "http.nginx.rps" */
    char *unit;     /* "req/s", "ms", "us", "ns", "index", "lps", "s", "B", ... */
    int better;     /* TB_BETTER_HIGHER or TB_BETTER_LOWER */
    char *workload; /* "http", "syscall", "probe", "attest", "notary", "vm", ... */
    char *note;     /* optional one line: what it measures / why it matters in a TD; NULL */
    int simulated;  /* measured with a simulated TEE */
    double *samples;
    size_t n, cap;
} tb_metric;

typedef struct tb_record {
    char id[40];            /* UUID text */
    char *label;            /* environment label */
    char *status;           /* "complete", "interrupted" or "failed" */
    char *profile;          /* "quick", "standard", "seed", "custom", "imported" */
    char started[40];       /* ISO 8601 UTC, e.g. 2026-11-30T18:55:32Z */
    char finished[40];      /* ISO 8601 UTC; "" while running */
    char *teebench_version; /* version of the teebench that measured it */
    int simulated;          /* any metric measured with a simulated TEE */
    json_t *env;            /* `teebench env --json` document; JSON null if unknown */
    json_t *commands;       /* array of strings: the exact command lines run */
    json_t *versions;       /* object: tool name -> version string (nginx, openssl, kernel) */
    json_t *extra;          /* object: anything else (source of an import, notes); never NULL */
    tb_metric *metrics;
    size_t n_metrics, cap_metrics;
    /* record.c's own: metric name -> index into metrics, kept by tb_record_metric
       (a JSON object: jansson's hash table, seeded at random, so that no set of
       names a file holds makes it slow); NULL before the first metric. */
    json_t *by_name;
} tb_record;

/* A new empty record with a fresh random id, status "complete", started = now,
   teebench_version = this build, env = JSON null, empty commands/versions/extra.
   Caller frees with tb_record_free. NULL (err filled) when out of memory. */
tb_record *tb_record_new(tb_err *err);
/* The same without drawing a random id (id is ""), for readers and importers that set
   the id themselves: the first RAND_bytes of a process seeds OpenSSL's DRBG, which
   costs more than parsing a result file. */
tb_record *tb_record_new_unnamed(tb_err *err);
void tb_record_free(tb_record *r);

/* Sets a string member (label, status, profile) to a copy of s. 0 or -1 (OOM). */
int tb_record_set_str(char **member, const char *s, tb_err *err);

/* The metric called name, created (with the given unit, direction and workload) if
   absent. An existing metric with another unit or direction is an error. Returns
   a pointer into r (valid until the next metric is added), NULL with err filled. */
tb_metric *tb_record_metric(tb_record *r, const char *name, const char *unit, int better,
                            const char *workload, tb_err *err);
/* Appends one sample (must be finite). 0, or -1 with err filled. */
int tb_metric_add(tb_metric *m, double value, tb_err *err);
/* Sets m->note to a copy of note. 0 or -1 (OOM). */
int tb_metric_set_note(tb_metric *m, const char *note, tb_err *err);
/* The metric called name, or NULL. O(1): reading a record of n metrics is O(n). */
const tb_metric *tb_record_find(const tb_record *r, const char *name);

/* Checks a metric name: 1..128 bytes of [a-z0-9_.-], not starting or ending with '.'. */
int tb_record_name_valid(const char *name);

/* The rule of an environment label -- `suite run --label`, `--target NAME=`,
   `results import --label` and the label of an imported file -- written in
   TB_RECORD_LABEL_RULE: 1..63 of A-Z a-z 0-9 _ . - and space, starting with a letter
   or a digit, not ending with a space ("tdx-guest", "TDX VM", "Host"). Such a label
   prints as itself, is one file name (DIR/NAME.json) and is never read as an option. */
#define TB_RECORD_LABEL_MAX 63
#define TB_RECORD_LABEL_RULE                                                                       \
    "1..63 of A-Z a-z 0-9 _ . - and space, starting with a letter or digit, not ending with a "    \
    "space"
int tb_record_label_valid(const char *label);

/* The record as a new JSON object (caller json_decref()s); NULL when out of memory. */
json_t *tb_record_to_json(const tb_record *r);
/* Parses and validates a result document; *out is a new record (caller frees).
   Any other schema, another version, a missing or mistyped member, a non-finite
   sample or a duplicate metric is an error with one line in err. */
int tb_record_from_json(const json_t *doc, tb_record **out, tb_err *err);

/* Reads a result document from fd, from its offset to its end, as
   tb_record_read_file does, for a document from elsewhere (a remote host's result):
   the memory it can take is bounded (record/bounded.c). One that holds more than
   TB_RECORD_VALUES_MAX JSON values, more than TB_RECORD_TEXT_MAX_MIB MiB of strings
   or a number longer than TB_RECORD_TOKEN_MAX bytes is refused ("too large for a
   result: ...") as the read gets there, before it is built: at most ~150 MB then.
   0 and *out (caller frees), or -1 with one line in err. */
#define TB_RECORD_VALUES_MAX 1000000
#define TB_RECORD_TEXT_MAX_MIB 16
#define TB_RECORD_TEXT_MAX ((size_t)TB_RECORD_TEXT_MAX_MIB << 20)
#define TB_RECORD_TOKEN_MAX 64
int tb_record_read_fd(int fd, tb_record **out, tb_err *err);
/* Writes the record's JSON to path atomically (never a half-written file);
   "-" writes to stdout (for a remote suite streaming its result back). */
int tb_record_write_file(const tb_record *r, const char *path, tb_err *err);

/* The default environment label from `teebench env --json` facts: "tdx-guest",
   "sev-snp-guest", "sev-es-guest", "sev-guest", "vm-<hypervisor>" (lowercase,
   e.g. "vm-kvm", "vm-tcg"), "bare-metal", or "unknown". Writes into out. */
void tb_record_default_label(const json_t *env, char *out, size_t out_len);

/* The record's JSON text (tb_record_to_json), reals with the fewest digits that
   read back exactly: indented with a final newline (what files hold), or compact
   on one line without a newline (compact != 0; what the store keeps). A C string;
   *len (may be NULL) is its length. Caller free()s. NULL when out of memory. */
char *tb_record_dumps(const tb_record *r, int compact, size_t *len);

/* Which TEE a record's environment is and what attestation evidence its run used
   (record/tee_label.c; pure, from the record alone). */
typedef struct tb_record_tee_info {
    char kind[16];     /* from env's platform: "TDX", "SEV-SNP", "SEV-ES", "SEV", "none"
                          (bare metal, a VM), "unknown" (no env, another platform) */
    char evidence[64]; /* "TDX quotes", "SEV-SNP reports", "SIMULATED TDX quotes",
                          "SIMULATED SEV-SNP reports", two of them joined by " + " when the
                          attest and notary workloads differ, "" when none was recorded */
    int simulated;     /* the evidence (or part of it) is SIMULATED */
    int known;         /* kind is a TEE (not "none"/"unknown") or evidence is not "" */
    char summary[96];  /* one line: the kind, then " (<evidence>)" unless the evidence is
                          the kind's own real one: "TDX", "none (SIMULATED SEV-SNP reports)" */
} tb_record_tee_info;

/* Fills out for r (r may be NULL: "unknown", no evidence). The evidence comes from
   extra.attest.tee and extra.notary_tee ("tdx", "snp", "sim", "sim-snp"); an older
   record's extra.attest.provider ("sim ..." / "tsm ...") stands in for a missing tee,
   an imported bench folder's extra.bench.notary_tee for a missing notary_tee.
   Returns out->known (1 or 0). */
int tb_record_tee(const tb_record *r, tb_record_tee_info *out);
/* The TEE kind of an env document (as in tb_record_tee_info.kind); never NULL. */
const char *tb_record_tee_kind(const json_t *env);
/* The same from a tee code of sys/env (tb_env_platform_tee: "tdx", "snp", ...). */
const char *tb_record_tee_kind_name(const char *tee);
/* 1 when a kind of these names a TEE ("TDX", "SEV-SNP", ...), 0 for "none" and "unknown". */
int tb_record_tee_kind_is_tee(const char *kind);

#endif
