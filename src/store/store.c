/* store: putting, listing, getting, resolving and removing runs in the SQLite
 * results store (schema and opening in schema.c).
 *
 * Invariants kept here:
 * - Every write is one BEGIN IMMEDIATE ... COMMIT; any failure (a full disk,
 *   SQLITE_BUSY after the timeout, a constraint) rolls back, so the store is as
 *   it was before the call.
 * - runs.doc is the record's compact JSON (tb_record_dumps); records are read
 *   back from it with the strict tb_record_from_json, never rebuilt from the
 *   metrics/samples tables (those exist for queries and counts).
 * - "latest" and "previous" order runs by (started, seq): seq is the storing
 *   order, so runs started in the same second still have one order. */
#include "store/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "base/clock.h"
#include "base/file.h"
#include "base/paths.h"
#include "record/import.h"

/* ---------- paths ---------- */

int tb_store_default_path(char *out, size_t out_len, tb_err *err)
{
    if (tb_path_dir(TB_PATH_DATA, "teebench/results.db", out, out_len, err) < 0)
        return tb_err_wrap(err, "no home directory to keep the results store in (set HOME, "
                                "XDG_DATA_HOME or TEEBENCH_DB, or use --db FILE)");
    return 0;
}

int tb_store_path(const char *db_flag, char *out, size_t out_len, tb_err *err)
{
    const char *p = db_flag;
    if (!p) {
        const char *env = getenv("TEEBENCH_DB");
        if (env && *env)
            p = env;
    }
    if (!p)
        return tb_store_default_path(out, out_len, err);
    if (!*p)
        return tb_errf(err, "the results store path is empty");
    int n = snprintf(out, out_len, "%s", p);
    if (n < 0 || (size_t)n >= out_len)
        return tb_errf(err, "results store path too long");
    return 0;
}

/* ---------- open / close ---------- */

static int make_parent(const char *path, tb_err *err)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = '\0';
    struct stat st;
    if (stat(dir, &st) == 0)
        return 0;
    return tb_mkdirs(dir, err);
}

int tb_store_open(const char *path, tb_store **out, tb_err *err)
{
    *out = NULL;
    tb_store *s = calloc(1, sizeof *s);
    if (!s)
        return tb_errf(err, "out of memory");
    if (snprintf(s->path, sizeof s->path, "%s", path) >= (int)sizeof s->path) {
        free(s);
        return tb_errf(err, "results store path too long");
    }
    /* SQLite writes its journal beside the file: a device or FIFO (--db /dev/null)
       would get /dev/null-journal created next to it, in /dev */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        free(s);
        return tb_errf(err, "%s: not a regular file, not a results store", path);
    }
    if (make_parent(path, err) < 0 || tb_store_schema_open(s, err) < 0) {
        tb_store_close(s);
        return -1;
    }
    *out = s;
    return 0;
}

void tb_store_close(tb_store *s)
{
    if (!s)
        return;
    sqlite3_close(s->db);
    free(s);
}

const char *tb_store_file(const tb_store *s)
{
    return s->path;
}

/* ---------- statements ---------- */

static sqlite3_stmt *prepare(tb_store *s, const char *sql, tb_err *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
        tb_store_sqlerr(s, "preparing a query", err);
        sqlite3_finalize(st);
        return NULL;
    }
    return st;
}

static int bind_text(sqlite3_stmt *st, int i, const char *v)
{
    return v ? sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

/* Steps a statement that returns no row. */
static int step_done(tb_store *s, sqlite3_stmt *st, const char *what, tb_err *err)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return tb_store_sqlerr(s, what, err);
    return 0;
}

/* ---------- environments ---------- */

int tb_store_env_id(const json_t *env, char out[65], tb_err *err)
{
    char *text = json_dumps(env, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    if (!text)
        return tb_errf(err, "out of memory");
    unsigned char md[32];
    unsigned int mdlen = 0;
    int ok = EVP_Digest(text, strlen(text), md, &mdlen, EVP_sha256(), NULL) == 1;
    free(text);
    if (!ok || mdlen != 32)
        return tb_err_ssl(err, "SHA-256");
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[64] = '\0';
    return 0;
}

/* ---------- put ---------- */

/* 1 when the stored document of id equals doc (as JSON), 0 when it differs,
   2 when there is no run id, -1 on error. */
static int stored_same(tb_store *s, const char *id, const char *doc, tb_err *err)
{
    sqlite3_stmt *st = prepare(s, "SELECT doc FROM runs WHERE id = ?", err);
    if (!st)
        return -1;
    bind_text(st, 1, id);
    int rc = sqlite3_step(st), res;
    if (rc == SQLITE_DONE) {
        res = 2;
    } else if (rc == SQLITE_ROW) {
        const char *old = (const char *)sqlite3_column_text(st, 0);
        res = old && !strcmp(old, doc);
        if (old && !res) { /* the same JSON written differently (another writer) */
            json_t *a = json_loads(old, 0, NULL), *b = json_loads(doc, 0, NULL);
            res = a && b && json_equal(a, b);
            json_decref(a);
            json_decref(b);
        }
    } else {
        res = tb_store_sqlerr(s, "looking up the run", err);
    }
    sqlite3_finalize(st);
    return res;
}

static int put_env(tb_store *s, const tb_record *r, char env_id[65], tb_err *err)
{
    if (tb_store_env_id(r->env, env_id, err) < 0)
        return -1;
    char *facts = json_dumps(r->env, JSON_COMPACT | JSON_ENCODE_ANY);
    sqlite3_stmt *st = facts ? prepare(s,
                                       "INSERT OR IGNORE INTO environments"
                                       " (id, facts, first_label, first_seen) VALUES (?,?,?,?)",
                                       err)
                             : NULL;
    if (!facts) {
        tb_errf(err, "out of memory");
    } else if (st) {
        bind_text(st, 1, env_id);
        bind_text(st, 2, facts);
        bind_text(st, 3, r->label);
        bind_text(st, 4, r->started);
    }
    int rc = st ? step_done(s, st, "storing the environment", err) : -1;
    sqlite3_finalize(st);
    free(facts);
    return rc;
}

static int put_run(tb_store *s, const tb_record *r, const char *env_id, const char *doc,
                   tb_err *err)
{
    sqlite3_stmt *st = prepare(s,
                               "INSERT INTO runs (id, seq, label, status, profile, started,"
                               " finished, teebench_version, simulated, env_id, stored, doc)"
                               " VALUES (?1, (SELECT coalesce(max(seq), 0) + 1 FROM runs),"
                               " ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                               err);
    if (!st)
        return -1;
    int sim = r->simulated;
    for (size_t i = 0; i < r->n_metrics; i++)
        sim |= r->metrics[i].simulated;
    char now[40];
    tb_utc_iso8601((int64_t)(tb_wall_ns() / 1000000000u), now, sizeof now);
    bind_text(st, 1, r->id);
    bind_text(st, 2, r->label);
    bind_text(st, 3, r->status);
    bind_text(st, 4, r->profile);
    bind_text(st, 5, r->started);
    bind_text(st, 6, r->finished);
    bind_text(st, 7, r->teebench_version);
    sqlite3_bind_int(st, 8, sim);
    bind_text(st, 9, env_id);
    bind_text(st, 10, now);
    bind_text(st, 11, doc);
    int rc = step_done(s, st, "storing the run", err);
    sqlite3_finalize(st);
    return rc;
}

static int put_metrics(tb_store *s, const tb_record *r, tb_err *err)
{
    sqlite3_stmt *m = prepare(s,
                              "INSERT INTO metrics (run_id, name, unit, better, workload, note,"
                              " simulated) VALUES (?,?,?,?,?,?,?)",
                              err);
    sqlite3_stmt *v =
        m ? prepare(s, "INSERT INTO samples (metric_id, idx, value) VALUES (?,?,?)", err) : NULL;
    int rc = m && v ? 0 : -1;
    for (size_t i = 0; i < r->n_metrics && rc == 0; i++) {
        const tb_metric *x = &r->metrics[i];
        bind_text(m, 1, r->id);
        bind_text(m, 2, x->name);
        bind_text(m, 3, x->unit);
        sqlite3_bind_int(m, 4, x->better);
        bind_text(m, 5, x->workload);
        bind_text(m, 6, x->note);
        sqlite3_bind_int(m, 7, x->simulated);
        rc = step_done(s, m, "storing a metric", err);
        sqlite3_int64 mid = sqlite3_last_insert_rowid(s->db);
        for (size_t j = 0; j < x->n && rc == 0; j++) {
            sqlite3_bind_int64(v, 1, mid);
            sqlite3_bind_int64(v, 2, (sqlite3_int64)j);
            sqlite3_bind_double(v, 3, x->samples[j]);
            rc = step_done(s, v, "storing a sample", err);
        }
    }
    sqlite3_finalize(m);
    sqlite3_finalize(v);
    return rc;
}

int tb_store_put(tb_store *s, const tb_record *r, tb_err *err)
{
    char *doc = tb_record_dumps(r, 1, NULL);
    if (!doc)
        return tb_errf(err, "out of memory");
    int rc = -1, conflict = 0;
    char env_id[65];
    if (tb_store_begin(s, err) < 0)
        goto out;
    int same = stored_same(s, r->id, doc, err);
    if (same == 1) {
        rc = 1;
    } else if (same == 0) {
        conflict = 1;
        tb_errf(err, "%s: run %s is already stored with different content", s->path, r->id);
    } else if (same == 2) {
        int has_env = r->env && !json_is_null(r->env);
        if ((!has_env || put_env(s, r, env_id, err) == 0) &&
            put_run(s, r, has_env ? env_id : NULL, doc, err) == 0 && put_metrics(s, r, err) == 0)
            rc = 0;
    }
    if (rc >= 0 && tb_store_exec(s, "COMMIT", "committing", err) < 0)
        rc = -1;
    if (rc < 0) {
        tb_store_rollback(s);
        if (!conflict)
            tb_err_wrap(err, "storing run %s (nothing stored)", r->id);
    }
out:
    free(doc);
    return rc;
}

/* ---------- reading ---------- */

static char *dup_col(sqlite3_stmt *st, int col)
{
    const char *t = (const char *)sqlite3_column_text(st, col);
    return strdup(t ? t : "");
}

static void copy_col(sqlite3_stmt *st, int col, char *out, size_t n)
{
    const char *t = (const char *)sqlite3_column_text(st, col);
    snprintf(out, n, "%s", t ? t : "");
}

void tb_store_runs_free(tb_store_runs *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->runs[i].label);
        free(l->runs[i].status);
        free(l->runs[i].profile);
        free(l->runs[i].teebench_version);
    }
    free(l->runs);
    l->runs = NULL;
    l->n = 0;
}

int tb_store_list(tb_store *s, const char *label, tb_store_runs *out, tb_err *err)
{
    out->runs = NULL;
    out->n = 0;
    sqlite3_stmt *st = prepare(
        s,
        "SELECT r.id, r.label, r.status, r.profile, r.teebench_version, r.started, r.finished,"
        " r.simulated,"
        " (SELECT count(*) FROM metrics m WHERE m.run_id = r.id),"
        " (SELECT count(*) FROM metrics m JOIN samples x ON x.metric_id = m.id"
        "  WHERE m.run_id = r.id),"
        " (SELECT json_extract(e.facts, '$.platform.value') FROM environments e"
        "  WHERE e.id = r.env_id)"
        " FROM runs r WHERE ?1 IS NULL OR r.label = ?1 ORDER BY r.started, r.seq",
        err);
    if (!st)
        return -1;
    bind_text(st, 1, label);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (out->n == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            tb_store_run *p = realloc(out->runs, ncap * sizeof *p);
            if (!p) {
                sqlite3_finalize(st);
                return tb_errf(err, "out of memory");
            }
            out->runs = p;
            cap = ncap;
        }
        tb_store_run *x = &out->runs[out->n++];
        memset(x, 0, sizeof *x);
        copy_col(st, 0, x->id, sizeof x->id);
        x->label = dup_col(st, 1);
        x->status = dup_col(st, 2);
        x->profile = dup_col(st, 3);
        x->teebench_version = dup_col(st, 4);
        copy_col(st, 5, x->started, sizeof x->started);
        copy_col(st, 6, x->finished, sizeof x->finished);
        x->simulated = sqlite3_column_int(st, 7);
        x->n_metrics = (size_t)sqlite3_column_int64(st, 8);
        x->n_samples = (size_t)sqlite3_column_int64(st, 9);
        if (sqlite3_column_type(st, 10) == SQLITE_TEXT)
            copy_col(st, 10, x->platform, sizeof x->platform);
        if (!x->label || !x->status || !x->profile || !x->teebench_version) {
            sqlite3_finalize(st);
            return tb_errf(err, "out of memory");
        }
    }
    if (rc != SQLITE_DONE)
        tb_store_sqlerr(s, "listing runs", err);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Runs a query whose first column is a run's doc; the first row's record into
 *out. 0, 1 (no row) or -1. */
static int query_record(tb_store *s, sqlite3_stmt *st, tb_record **out, tb_err *err)
{
    *out = NULL;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE)
        return 1;
    if (rc != SQLITE_ROW)
        return tb_store_sqlerr(s, "reading a run", err);
    const char *doc = (const char *)sqlite3_column_text(st, 0);
    json_error_t je;
    json_t *j = doc ? json_loads(doc, JSON_REJECT_DUPLICATES, &je) : NULL;
    if (!j)
        return tb_errf(err, "%s: a stored run's document is damaged (%s)", s->path,
                       doc ? je.text : "empty");
    rc = tb_record_from_json(j, out, err);
    json_decref(j);
    if (rc < 0)
        return tb_err_wrap(err, "%s: a stored run's document", s->path);
    return 0;
}

int tb_store_get(tb_store *s, const char *id, tb_record **out, tb_err *err)
{
    *out = NULL;
    sqlite3_stmt *st = prepare(s, "SELECT doc FROM runs WHERE id = ?", err);
    if (!st)
        return -1;
    bind_text(st, 1, id);
    int rc = query_record(s, st, out, err);
    sqlite3_finalize(st);
    return rc;
}

int tb_store_latest(tb_store *s, const char *label, tb_record **out, tb_err *err)
{
    *out = NULL;
    sqlite3_stmt *st = prepare(s,
                               "SELECT doc FROM runs WHERE ?1 IS NULL OR label = ?1"
                               " ORDER BY started DESC, seq DESC LIMIT 1",
                               err);
    if (!st)
        return -1;
    bind_text(st, 1, label);
    int rc = query_record(s, st, out, err);
    sqlite3_finalize(st);
    return rc;
}

int tb_store_previous(tb_store *s, const char *id, const char *label, tb_record **out, tb_err *err)
{
    *out = NULL;
    sqlite3_stmt *st = prepare(s,
                               "SELECT p.doc FROM runs p, runs x WHERE x.id = ?1"
                               " AND (p.started < x.started OR"
                               "      (p.started = x.started AND p.seq < x.seq))"
                               " AND (?2 IS NULL OR p.label = ?2)"
                               " ORDER BY p.started DESC, p.seq DESC LIMIT 1",
                               err);
    if (!st)
        return -1;
    bind_text(st, 1, id);
    bind_text(st, 2, label);
    int rc = query_record(s, st, out, err);
    sqlite3_finalize(st);
    return rc;
}

/* ---------- resolve ---------- */

static int looks_like_path(const char *ref)
{
    size_t n = strlen(ref);
    return strchr(ref, '/') || (n > 5 && !strcmp(ref + n - 5, ".json")) ||
           (n > 4 && !strcmp(ref + n - 4, ".csv"));
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int is_prefix_text(const char *ref)
{
    size_t n = strlen(ref);
    if (n < 4 || n > 36)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!strchr("0123456789abcdef-", ref[i]))
            return 0;
    return 1;
}

/* The run whose id starts with ref: 0 found (*out), 1 none, -1 ambiguous or error. */
static int by_prefix(tb_store *s, const char *ref, tb_record **out, tb_err *err)
{
    *out = NULL;
    sqlite3_stmt *st = prepare(s,
                               "SELECT id FROM runs WHERE id >= ?1 AND id < ?1 || '~'"
                               " ORDER BY id LIMIT 6",
                               err);
    if (!st)
        return -1;
    bind_text(st, 1, ref);
    char ids[6][40];
    int n = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < 6)
        copy_col(st, 0, ids[n++], sizeof ids[0]);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return tb_store_sqlerr(s, "looking up a run id prefix", err);
    if (n == 0)
        return 1;
    if (n > 1) {
        char list[400] = "";
        size_t used = 0;
        for (int i = 0; i < n && i < 5; i++) {
            int w = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", ids[i]);
            if (w > 0 && (size_t)w < sizeof list - used)
                used += (size_t)w;
        }
        return tb_errf(err, "'%s' is ambiguous: it starts %s runs (%s%s); give more of the id", ref,
                       n > 5    ? "more than 5"
                       : n == 2 ? "two"
                                : "several",
                       list, n > 5 ? ", ..." : "");
    }
    return tb_store_get(s, ids[0], out, err) == 0 ? 0 : -1;
}

static int from_file(const char *ref, tb_record **out, enum tb_store_ref *how, tb_err *err)
{
    if (tb_record_import_file(ref, NULL, out, NULL, err) < 0)
        return -1;
    if (how)
        *how = TB_STORE_REF_FILE;
    return 0;
}

int tb_store_resolve(tb_store *s, const char *ref, tb_record **out, enum tb_store_ref *how,
                     tb_err *err)
{
    *out = NULL;
    if (!ref || !*ref)
        return tb_errf(err, "an empty run reference");
    if (looks_like_path(ref) && exists(ref))
        return from_file(ref, out, how, err);
    if (s) {
        int rc = tb_store_get(s, ref, out, err);
        if (rc <= 0) {
            if (rc == 0 && how)
                *how = TB_STORE_REF_ID;
            return rc;
        }
        rc = tb_store_latest(s, ref, out, err);
        if (rc <= 0) {
            if (rc == 0 && how)
                *how = TB_STORE_REF_LABEL;
            return rc;
        }
        if (is_prefix_text(ref)) {
            rc = by_prefix(s, ref, out, err);
            if (rc <= 0) {
                if (rc == 0 && how)
                    *how = TB_STORE_REF_PREFIX;
                return rc;
            }
        }
    }
    if (exists(ref))
        return from_file(ref, out, how, err);
    return tb_errf(err, "no run, label or file '%s'%s", ref,
                   s ? "" : " (no results store to look in)");
}

/* ---------- rm ---------- */

int tb_store_rm(tb_store *s, const char *id, tb_err *err)
{
    if (tb_store_begin(s, err) < 0)
        return -1;
    sqlite3_stmt *st = prepare(s, "SELECT env_id FROM runs WHERE id = ?", err);
    if (!st) {
        tb_store_rollback(s);
        return -1;
    }
    bind_text(st, 1, id);
    int rc = sqlite3_step(st);
    char env_id[65] = "";
    if (rc == SQLITE_ROW)
        copy_col(st, 0, env_id, sizeof env_id);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW) {
        tb_store_rollback(s);
        return rc == SQLITE_DONE ? 1 : tb_store_sqlerr(s, "looking up the run", err);
    }
    static const char *const del[] = {
        "DELETE FROM samples WHERE metric_id IN (SELECT id FROM metrics WHERE run_id = ?1)",
        "DELETE FROM metrics WHERE run_id = ?1",
        "DELETE FROM runs WHERE id = ?1",
        ("DELETE FROM environments WHERE id = ?2"
         " AND NOT EXISTS (SELECT 1 FROM runs WHERE env_id = ?2)"),
    };
    for (size_t i = 0; i < sizeof del / sizeof del[0]; i++) {
        st = prepare(s, del[i], err);
        if (!st) {
            tb_store_rollback(s);
            return -1;
        }
        bind_text(st, 1, id);
        if (i == 3)
            bind_text(st, 2, env_id);
        rc = step_done(s, st, "removing the run", err);
        sqlite3_finalize(st);
        if (rc < 0) {
            tb_store_rollback(s);
            return -1;
        }
    }
    if (tb_store_exec(s, "COMMIT", "committing", err) < 0) {
        tb_store_rollback(s);
        return -1;
    }
    return 0;
}
