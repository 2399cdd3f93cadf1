/* store/internal: what schema.c and store.c share (and the store's unit test,
 * which sets connection limits such as PRAGMA max_page_count to make a full
 * disk). Not for other modules: they use store.h. */
#ifndef TB_STORE_INTERNAL_H
#define TB_STORE_INTERNAL_H

#include <limits.h>
#include <stdint.h>
#include <sqlite3.h>

#include "store/store.h"

/* The CPU time one statement may take before it is interrupted (SQLITE_INTERRUPT;
   the error then says so): a bound on whatever a damaged or hostile file could
   still make a query do. A real store's queries take milliseconds to seconds. */
#define TB_STORE_QUERY_CPU_S 30

struct tb_store {
    sqlite3 *db;
    char path[PATH_MAX];
    /* the statement guard (schema.c): the budget, when the running statement began
       (thread CPU time), whether one has begun since the progress handler last ran,
       and whether the guard interrupted the last one */
    uint64_t query_cpu_ns; /* TB_STORE_QUERY_CPU_S; a test may lower it */
    uint64_t stmt_cpu0;
    int stmt_began, timed_out;
};

/* Runs SQL without results (one or more statements). 0, or -1 with
   "<path>: <what>: <sqlite's message>" in err. */
int tb_store_exec(tb_store *s, const char *sql, const char *what, tb_err *err);
/* Fills err with "<path>: <what>: <sqlite's message for the last error>" (or, when
   the statement guard interrupted it, that it ran too long); returns -1. */
int tb_store_sqlerr(tb_store *s, const char *what, tb_err *err);
/* BEGIN IMMEDIATE (the write lock now, so that a busy store waits in the busy
   handler instead of failing at the first write). */
int tb_store_begin(tb_store *s, tb_err *err);
/* ROLLBACK when a transaction is open (SQLite may have rolled back already). */
void tb_store_rollback(tb_store *s);

/* Opens defensively (see schema.c), checks the file is a teebench store holding only
   the schema's own objects, migrates. */
int tb_store_schema_open(tb_store *s, tb_err *err);

/* Used only by the tests (not by other modules): */
/* ---- store/store.h ---- */
/* The default path ($XDG_DATA_HOME/teebench/results.db when XDG_DATA_HOME is an
   absolute path, else $HOME/.local/share/teebench/results.db: base/paths). 0 or -1. */
int tb_store_default_path(char *out, size_t out_len, tb_err *err);
/* The latest run (by start time, then storing order), of this label when label is
   not NULL. 0 (*out new), 1 (none) or -1. */
int tb_store_latest(tb_store *s, const char *label, tb_record **out, tb_err *err);
/* The run before the run `id` (started earlier, or at the same time and stored
   earlier), of this label when label is not NULL: what `make run` compares a new
   run against. 0 (*out new), 1 (none, or no run `id`) or -1. */
int tb_store_previous(tb_store *s, const char *id, const char *label, tb_record **out, tb_err *err);
/* The environment id of env facts: the SHA-256 (lowercase hex) of their canonical
   JSON (compact, keys sorted). out needs 65 bytes. 0 or -1 (OOM). */
int tb_store_env_id(const json_t *env, char out[65], tb_err *err);

#endif
