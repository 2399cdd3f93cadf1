/* store: the results store -- every run (a tb_record) with all its samples in
 * one SQLite file, so that runs of different environments and days can be
 * listed, compared and reported.
 *
 * Where it lives: `--db FILE`, else $TEEBENCH_DB, else
 * $XDG_DATA_HOME/teebench/results.db, else ~/.local/share/teebench/results.db
 * (base/paths' rule; tb_store_path resolves it; tb_store_open takes the result).
 *
 * Invariants:
 * - A store is an SQLite database with application_id TB_STORE_APP_ID and a
 *   schema version in PRAGMA user_version. Opening runs the migrations from the
 *   file's version up to TB_STORE_SCHEMA_VERSION in one transaction. A newer
 *   version, another application's SQLite file, or a file that is not SQLite is
 *   refused with one line, and the file is left as it was.
 * - A store holds only the objects its schema version defines (no view, no
 *   trigger, no table or index teebench did not make, none altered): anything
 *   else is refused the same way, before a query touches a table. The
 *   connection is SQLite's defensive mode with trusted_schema, triggers and
 *   views off, and no statement runs for more than TB_STORE_QUERY_CPU_S seconds
 *   of CPU (store/internal.h): a store file from someone else cannot make a
 *   command hang or change other runs.
 * - Each put is one transaction: a run is stored whole (run row, environment,
 *   metrics, samples, and the record's JSON document) or not at all -- also when
 *   the process is killed or the disk is full.
 * - The run's JSON document (tb_record_dumps, compact) is stored verbatim: get
 *   and export give back exactly the record that was put.
 * - Putting a run whose id is stored is idempotent: the same document says
 *   "already stored" (1); another document with that id is an error.
 * - WAL journal and a busy timeout (TB_STORE_BUSY_MS): several processes may
 *   write at once (two suites finishing together both land).
 *
 * Ownership: a tb_store is one SQLite connection; use it from one thread at a
 * time (open one per thread or process). Records returned are new (caller
 * tb_record_free()s); tb_store_runs are freed with tb_store_runs_free. */
#ifndef TB_STORE_STORE_H
#define TB_STORE_STORE_H

#include <stddef.h>

#include "base/err.h"
#include "record/record.h"

#define TB_STORE_SCHEMA_VERSION 1
#define TB_STORE_APP_ID 0x74656562 /* "teeb" */
#define TB_STORE_BUSY_MS 30000

typedef struct tb_store tb_store;

/* The store the user chose: db_flag (the --db value) when not NULL, else
   $TEEBENCH_DB when set and non-empty, else tb_store_default_path. 0 or -1. */
int tb_store_path(const char *db_flag, char *out, size_t out_len, tb_err *err);

/* Opens (creating it and its parent directories when absent) and migrates the
   store at path. *out is the new handle (caller tb_store_close()s). 0 or -1. */
int tb_store_open(const char *path, tb_store **out, tb_err *err);
void tb_store_close(tb_store *s);
/* The path the store was opened with. */
const char *tb_store_file(const tb_store *s);

/* Stores a run in one transaction. Returns 0 (stored), 1 (already stored: same
   id, same document; nothing changed) or -1 with err filled (same id with
   another document, a write error such as a full disk: nothing stored). */
int tb_store_put(tb_store *s, const tb_record *r, tb_err *err);

/* One line of `results list`. */
typedef struct tb_store_run {
    char id[40];
    char *label, *status, *profile, *teebench_version;
    char started[40], finished[40];
    int simulated;
    size_t n_metrics, n_samples;
    char platform[24]; /* the env facts' platform value ("tdx-guest", "vm", ...); "" unknown */
} tb_store_run;

typedef struct tb_store_runs {
    tb_store_run *runs;
    size_t n;
} tb_store_runs;

/* The stored runs (all of them, or those with this label when label is not
   NULL), oldest first (by start time, then the order they were stored).
   *out is filled (free with tb_store_runs_free, also after a failure). 0 or -1. */
int tb_store_list(tb_store *s, const char *label, tb_store_runs *out, tb_err *err);
void tb_store_runs_free(tb_store_runs *l);

/* The run with this full id. 0 (found, *out new), 1 (no such run, *out NULL) or -1. */
int tb_store_get(tb_store *s, const char *id, tb_record **out, tb_err *err);

/* How a reference was resolved. */
enum tb_store_ref { TB_STORE_REF_ID, TB_STORE_REF_LABEL, TB_STORE_REF_PREFIX, TB_STORE_REF_FILE };

/* A run named by a reference, tried in this order:
   1. a path that exists and looks like one (has a '/', or ends in .json or .csv):
      the file (or bench folder) is read with tb_record_import_file, not stored;
   2. a full run id;
   3. a label: the latest run with that label;
   4. a unique prefix (>= 4 characters) of a run id; an ambiguous prefix is an
      error listing the candidates;
   5. any other existing path (a bench results folder "results", a file "run1").
   s may be NULL (files only). 0 (*out new, *how set when how is not NULL) or -1
   ("no run, label or file 'x'", ambiguity, an unreadable file, ...). */
int tb_store_resolve(tb_store *s, const char *ref, tb_record **out, enum tb_store_ref *how,
                     tb_err *err);

/* Removes the run with this full id (its metrics and samples; its environment
   when no other run refers to it). 0, 1 (no such run) or -1. */
int tb_store_rm(tb_store *s, const char *id, tb_err *err);

#endif
