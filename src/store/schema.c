/* store/schema: opening a results store -- is this file ours, which version,
 * and the migrations that bring it to TB_STORE_SCHEMA_VERSION.
 *
 * A file is a teebench store when PRAGMA application_id is TB_STORE_APP_ID. A
 * new store is a file with no application id, version 0 and no tables (an
 * absent or empty file). Anything else is refused before the first write:
 * SQLITE_NOTADB ("not an SQLite database"), another application's SQLite
 * database, or a store of a newer schema version.
 *
 * Migrations: migrations[i] takes a store from version i to i + 1. Opening
 * applies every step from the file's version in ONE transaction (BEGIN
 * IMMEDIATE, the version read again under the lock, so two processes opening a
 * new store at once migrate it once), with the version (user_version) and the
 * application id set in the same transaction: a store is at a version whole or
 * not at all. To change the schema, append a step; never edit an old one.
 *
 * A store file may come from someone else (`--db` on a file a peer sent), so it
 * is opened defensively and its schema is not trusted:
 * - the connection is SQLITE_DBCONFIG_DEFENSIVE (no writable_schema, no direct
 *   writes to shadow tables), trusts no function in the schema (trusted_schema
 *   off), runs no trigger and reads no view (SQLITE_DBCONFIG_ENABLE_TRIGGER and
 *   _VIEW off: teebench's schema has neither), and checks cell sizes;
 * - before anything is written, the file's objects (sqlite_schema: type, name,
 *   table, SQL) must be exactly those the migrations make for its version, built
 *   for comparison in a private in-memory database: a view or trigger, an extra
 *   or missing table or index, or one whose SQL differs is refused with one line
 *   naming it (ANALYZE's sqlite_stat1 and sqlite_stat4 are let be: statistics);
 * - every statement runs under a guard: a progress handler interrupts it once it
 *   has used TB_STORE_QUERY_CPU_S seconds of CPU (CPU, not wall time: waiting
 *   for another writer's lock costs none), so nothing a file holds makes a
 *   command hang. */
#include "store/internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/clock.h"

/* ---------- migrations ---------- */

static const char *const migrations[TB_STORE_SCHEMA_VERSION] = {
    /* 0 -> 1: runs, environments, metrics, samples. */
    "CREATE TABLE environments ("
    "  id TEXT PRIMARY KEY,"       /* SHA-256 of the canonical env facts JSON */
    "  facts TEXT NOT NULL,"       /* the env document (JSON) */
    "  first_label TEXT NOT NULL," /* the label of the first run seen in it */
    "  first_seen TEXT NOT NULL"   /* that run's start time */
    ");"
    "CREATE TABLE runs ("
    "  id TEXT PRIMARY KEY,"
    "  seq INTEGER NOT NULL UNIQUE," /* storing order: ties of started */
    "  label TEXT NOT NULL,"
    "  status TEXT NOT NULL,"
    "  profile TEXT NOT NULL,"
    "  started TEXT NOT NULL,"
    "  finished TEXT NOT NULL,"
    "  teebench_version TEXT NOT NULL,"
    "  simulated INTEGER NOT NULL,"
    "  env_id TEXT REFERENCES environments(id),"
    "  stored TEXT NOT NULL," /* when it was put (ISO 8601 UTC) */
    "  doc TEXT NOT NULL"     /* the record's JSON document, as put */
    ");"
    "CREATE INDEX runs_label ON runs(label, started, seq);"
    "CREATE INDEX runs_started ON runs(started, seq);"
    "CREATE INDEX runs_env ON runs(env_id);"
    "CREATE TABLE metrics ("
    "  id INTEGER PRIMARY KEY,"
    "  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  name TEXT NOT NULL,"
    "  unit TEXT NOT NULL,"
    "  better INTEGER NOT NULL," /* 1 higher, -1 lower */
    "  workload TEXT NOT NULL,"
    "  note TEXT,"
    "  simulated INTEGER NOT NULL,"
    "  UNIQUE (run_id, name)"
    ");"
    "CREATE INDEX metrics_name ON metrics(name);"
    "CREATE TABLE samples ("
    "  metric_id INTEGER NOT NULL REFERENCES metrics(id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL,"
    "  value REAL NOT NULL,"
    "  PRIMARY KEY (metric_id, idx)"
    ") WITHOUT ROWID;",
};

/* ---------- shared helpers ---------- */

/* The guard's message when it stopped the last statement (and resets it), else NULL. */
static const char *guard_stopped(tb_store *s, char *buf, size_t n)
{
    if (!s->timed_out)
        return NULL;
    s->timed_out = 0;
    snprintf(buf, n,
             "a query ran for more than %.3g s of CPU time and was stopped (a damaged store, or "
             "one made to hang its reader?)",
             (double)s->query_cpu_ns / 1e9);
    return buf;
}

int tb_store_sqlerr(tb_store *s, const char *what, tb_err *err)
{
    char why[160];
    const char *g = guard_stopped(s, why, sizeof why);
    return tb_errf(err, "%s: %s: %s", s->path, what, g ? g : sqlite3_errmsg(s->db));
}

int tb_store_exec(tb_store *s, const char *sql, const char *what, tb_err *err)
{
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        char why[160];
        const char *g = guard_stopped(s, why, sizeof why);
        tb_errf(err, "%s: %s: %s", s->path, what, g ? g : msg ? msg : sqlite3_errmsg(s->db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

int tb_store_begin(tb_store *s, tb_err *err)
{
    return tb_store_exec(s, "BEGIN IMMEDIATE", "starting a transaction", err);
}

void tb_store_rollback(tb_store *s)
{
    if (!sqlite3_get_autocommit(s->db))
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

/* ---------- the connection: defensive, every statement guarded ---------- */

#define GUARD_STEPS 100000 /* virtual machine instructions between two looks at the clock */

static uint64_t thread_cpu_ns(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0)
        return 0;
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* SQLITE_TRACE_STMT: a statement begins (its first step after a prepare or reset).
   Only a flag: the clock is read by the progress handler, so that the many short
   statements of a put cost no system call. */
static int on_statement(unsigned type, void *ctx, void *p, void *x)
{
    (void)type;
    (void)p;
    (void)x;
    ((tb_store *)ctx)->stmt_began = 1;
    return 0;
}

/* Every GUARD_STEPS instructions: the first time in a statement, its start; later,
   non-zero (SQLITE_INTERRUPT) once it has run for more than query_cpu_ns. */
static int on_progress(void *ctx)
{
    tb_store *s = ctx;
    uint64_t now = thread_cpu_ns();
    if (s->stmt_began) {
        s->stmt_began = 0;
        s->stmt_cpu0 = now;
        return 0;
    }
    if (now - s->stmt_cpu0 > s->query_cpu_ns) {
        s->timed_out = 1;
        return 1;
    }
    return 0;
}

/* Defensive mode on; trusted schema, triggers and views off; the guard installed. */
static int harden(tb_store *s, tb_err *err)
{
    static const struct {
        int op, on;
        const char *name;
    } cfg[] = {
        {SQLITE_DBCONFIG_DEFENSIVE, 1, "defensive mode"},
        {SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, "trusted_schema off"},
        {SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, "triggers off"},
        {SQLITE_DBCONFIG_ENABLE_VIEW, 0, "views off"},
    };
    for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
        int got = -1;
        if (sqlite3_db_config(s->db, cfg[i].op, cfg[i].on, &got) != SQLITE_OK || got != cfg[i].on)
            return tb_errf(err, "%s: opening the results store: SQLite %s cannot set %s", s->path,
                           sqlite3_libversion(), cfg[i].name);
    }
    if (!s->query_cpu_ns)
        s->query_cpu_ns = (uint64_t)TB_STORE_QUERY_CPU_S * 1000000000u;
    sqlite3_progress_handler(s->db, GUARD_STEPS, on_progress, s);
    if (sqlite3_trace_v2(s->db, SQLITE_TRACE_STMT, on_statement, s) != SQLITE_OK)
        return tb_store_sqlerr(s, "opening the results store", err);
    return tb_store_exec(s, "PRAGMA cell_size_check = ON", "opening the results store", err);
}

/* ---------- the schema's own objects ---------- */

/* A store's objects, in one order; ANALYZE's statistics tables (exactly as SQLite
   creates them) are not part of the comparison. */
static const char objects_sql[] =
    "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE NOT (type = 'table' AND"
    " ((name = 'sqlite_stat1' AND sql = 'CREATE TABLE sqlite_stat1(tbl,idx,stat)') OR"
    "  (name = 'sqlite_stat4' AND sql = 'CREATE TABLE sqlite_stat4(tbl,idx,neq,nlt,ndlt,sample)')))"
    " ORDER BY type, name";

/* A name from the file, fit for a one-line message: at most 64 bytes, printable
   ASCII (anything else as '?'). */
static const char *shown(const unsigned char *name, char out[72])
{
    size_t o = 0;
    for (const unsigned char *p = name ? name : (const unsigned char *)""; *p && o < 64; p++)
        out[o++] = *p >= 0x20 && *p < 0x7f ? (char)*p : '?';
    if (name && strlen((const char *)name) > 64)
        memcpy(out + o, "...", 4);
    else
        out[o] = '\0';
    return out;
}

/* "a table" or "an index" (views and triggers were refused before). */
static const char *a_type(const unsigned char *type)
{
    return type && !strcmp((const char *)type, "index") ? "an index" : "a table";
}

/* A fresh in-memory database holding what the migrations make up to version v. */
static int reference_schema(long long v, sqlite3 **ref, tb_err *err)
{
    if (sqlite3_open_v2(":memory:", ref, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK)
        return tb_errf(err, "the reference schema: %s", *ref ? sqlite3_errmsg(*ref) : "no memory");
    for (long long i = 0; i < v; i++)
        if (sqlite3_exec(*ref, migrations[i], NULL, NULL, NULL) != SQLITE_OK)
            return tb_errf(err, "the reference schema: %s", sqlite3_errmsg(*ref));
    return 0;
}

static int text_eq(sqlite3_stmt *a, sqlite3_stmt *b, int col)
{
    const unsigned char *x = sqlite3_column_text(a, col), *y = sqlite3_column_text(b, col);
    return x && y ? !strcmp((const char *)x, (const char *)y) : x == y;
}

/* <0, 0, >0: the order of objects_sql (type, then name). */
static int obj_cmp(sqlite3_stmt *a, sqlite3_stmt *b)
{
    for (int col = 0; col < 2; col++) {
        const char *x = (const char *)sqlite3_column_text(a, col),
                   *y = (const char *)sqlite3_column_text(b, col);
        int c = strcmp(x ? x : "", y ? y : "");
        if (c)
            return c;
    }
    return 0;
}

/* The objects of the file (got) against the reference's (want), both in objects_sql
   order, walked together: the first difference is the error. */
static int compare_objects(tb_store *s, long long v, sqlite3_stmt *want, sqlite3_stmt *got,
                           tb_err *err)
{
    char name[72];
    for (;;) {
        int w = sqlite3_step(want), g = sqlite3_step(got);
        if (w != SQLITE_ROW && w != SQLITE_DONE)
            return tb_errf(err, "the reference schema: %s",
                           sqlite3_errmsg(sqlite3_db_handle(want)));
        if (g != SQLITE_ROW && g != SQLITE_DONE)
            return tb_store_sqlerr(s, "reading the store's schema", err);
        if (w == SQLITE_DONE && g == SQLITE_DONE)
            return 0;
        int c = w == SQLITE_DONE ? 1 : g == SQLITE_DONE ? -1 : obj_cmp(want, got);
        if (c < 0)
            return tb_errf(err,
                           "%s: not a teebench results store: it lacks the %s \"%s\" of schema "
                           "version %lld",
                           s->path, sqlite3_column_text(want, 0),
                           shown(sqlite3_column_text(want, 1), name), v);
        if (c > 0)
            return tb_errf(err,
                           "%s: not a teebench results store: it has %s \"%s\" that teebench "
                           "did not create (a store holds only its schema's tables and indexes)",
                           s->path, a_type(sqlite3_column_text(got, 0)),
                           shown(sqlite3_column_text(got, 1), name));
        if (!text_eq(want, got, 2) || !text_eq(want, got, 3))
            return tb_errf(err,
                           "%s: not a teebench results store: its %s \"%s\" is not the one "
                           "schema version %lld defines",
                           s->path, sqlite3_column_text(want, 0),
                           shown(sqlite3_column_text(want, 1), name), v);
    }
}

/* The store holds exactly the objects of schema version v (call inside a read
   transaction, after the identity). Views and triggers are named first: they are
   what could run code on a reader. 0 or -1. */
static int check_objects(tb_store *s, long long v, tb_err *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT type, name FROM sqlite_schema WHERE type NOT IN ('table', "
                           "'index') ORDER BY type, name LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return tb_store_sqlerr(s, "reading the store's schema", err);
    }
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        char type[72], name[72];
        shown(sqlite3_column_text(st, 0), type);
        shown(sqlite3_column_text(st, 1), name);
        sqlite3_finalize(st);
        return tb_errf(err,
                       "%s: not a teebench results store: it has a %s \"%s\" that teebench did "
                       "not create (a store holds only its schema's tables and indexes)",
                       s->path, type, name);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return tb_store_sqlerr(s, "reading the store's schema", err);
    sqlite3 *ref = NULL;
    sqlite3_stmt *want = NULL, *got = NULL;
    rc = reference_schema(v, &ref, err);
    if (rc == 0 && sqlite3_prepare_v2(ref, objects_sql, -1, &want, NULL) != SQLITE_OK)
        rc = tb_errf(err, "the reference schema: %s", sqlite3_errmsg(ref));
    if (rc == 0 && sqlite3_prepare_v2(s->db, objects_sql, -1, &got, NULL) != SQLITE_OK)
        rc = tb_store_sqlerr(s, "reading the store's schema", err);
    if (rc == 0)
        rc = compare_objects(s, v, want, got, err);
    sqlite3_finalize(want);
    sqlite3_finalize(got);
    sqlite3_close(ref);
    return rc;
}

/* ---------- identity ---------- */

typedef struct identity {
    long long app_id, version, objects;
} identity;

static int read_int(tb_store *s, const char *sql, long long *out, int *rc)
{
    sqlite3_stmt *st = NULL;
    *rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (*rc == SQLITE_OK) {
        *rc = sqlite3_step(st);
        if (*rc == SQLITE_ROW) {
            *out = sqlite3_column_int64(st, 0);
            *rc = SQLITE_OK;
        }
    }
    sqlite3_finalize(st);
    return *rc == SQLITE_OK ? 0 : -1;
}

/* Call inside a transaction, so that all three come from one snapshot. */
static int read_identity(tb_store *s, identity *id, tb_err *err)
{
    int rc;
    if (read_int(s, "PRAGMA application_id", &id->app_id, &rc) < 0 ||
        read_int(s, "PRAGMA user_version", &id->version, &rc) < 0 ||
        read_int(s, "SELECT count(*) FROM sqlite_schema", &id->objects, &rc) < 0) {
        if ((rc & 0xff) == SQLITE_NOTADB)
            return tb_errf(err, "%s: not a teebench results store (not an SQLite database)",
                           s->path);
        return tb_store_sqlerr(s, "reading the store", err);
    }
    return 0;
}

/* 1 = a new store (nothing in it yet), 0 = ours at a version we read, -1 refused. */
static int check_identity(tb_store *s, const identity *id, tb_err *err)
{
    if (id->app_id == TB_STORE_APP_ID) {
        if (id->version > TB_STORE_SCHEMA_VERSION)
            return tb_errf(err,
                           "%s: results store schema version %lld is newer than this teebench "
                           "reads (%d); use a newer teebench",
                           s->path, id->version, TB_STORE_SCHEMA_VERSION);
        if (id->version < 0)
            return tb_errf(err, "%s: results store has a bad schema version %lld", s->path,
                           id->version);
        return 0;
    }
    if (id->app_id == 0 && id->version == 0 && id->objects == 0)
        return 1;
    return tb_errf(err,
                   "%s: not a teebench results store (an SQLite database of another "
                   "application: application_id %lld, user_version %lld, %lld objects)",
                   s->path, id->app_id, id->version, id->objects);
}

/* check_identity, then (ours) check_objects: 1 new, 0 ours and whole, -1 refused. */
static int check_store(tb_store *s, const identity *id, tb_err *err)
{
    int rc = check_identity(s, id, err);
    if (rc == 0 && check_objects(s, id->version, err) < 0)
        return -1;
    return rc;
}

static int migrate(tb_store *s, tb_err *err)
{
    if (tb_store_begin(s, err) < 0)
        return -1;
    identity id;
    if (read_identity(s, &id, err) < 0 || check_store(s, &id, err) < 0) {
        tb_store_rollback(s);
        return -1;
    }
    long long v = id.app_id == TB_STORE_APP_ID ? id.version : 0;
    char what[64];
    for (; v < TB_STORE_SCHEMA_VERSION; v++) {
        snprintf(what, sizeof what, "migrating to schema version %lld", v + 1);
        if (tb_store_exec(s, migrations[v], what, err) < 0) {
            tb_store_rollback(s);
            return -1;
        }
    }
    char sql[128];
    snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = %d",
             TB_STORE_APP_ID, TB_STORE_SCHEMA_VERSION);
    if (tb_store_exec(s, sql, "setting the schema version", err) < 0 ||
        tb_store_exec(s, "COMMIT", "committing the schema", err) < 0) {
        tb_store_rollback(s);
        return -1;
    }
    return 0;
}

/* PRAGMA journal_mode = WAL. Changing the mode needs the database to itself and
   does not wait in the busy handler: two processes opening a new store at once
   would see "database is locked". So: retry for up to the busy timeout. */
static int set_wal(tb_store *s, tb_err *err)
{
    uint64_t deadline = tb_mono_ns() + (uint64_t)TB_STORE_BUSY_MS * 1000000u;
    for (;;) {
        sqlite3_stmt *st = NULL;
        int rc = sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &st, NULL);
        int wal = 0;
        if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
            const char *mode = (const char *)sqlite3_column_text(st, 0);
            wal = mode && !strcmp(mode, "wal");
            rc = SQLITE_OK;
        }
        sqlite3_finalize(st);
        if (wal)
            return 0;
        int busy = (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
        if (!busy || tb_mono_ns() > deadline) {
            if (rc == SQLITE_OK)
                return tb_errf(err,
                               "%s: setting WAL mode: the store stays in another journal "
                               "mode",
                               s->path);
            return tb_store_sqlerr(s, "setting WAL mode", err);
        }
        tb_sleep_ns(10 * 1000000u);
    }
}

int tb_store_schema_open(tb_store *s, tb_err *err)
{
    struct stat st;
    if (stat(s->path, &st) == 0 && S_ISDIR(st.st_mode))
        return tb_errf(err, "%s: is a directory, not a results store", s->path);
    int rc = sqlite3_open_v2(
        s->path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        if (!s->db)
            return tb_errf(err, "%s: opening the results store: out of memory", s->path);
        tb_errf(err, "%s: opening the results store: %s", s->path, sqlite3_errmsg(s->db));
        return -1;
    }
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_busy_timeout(s->db, TB_STORE_BUSY_MS);
    if (harden(s, err) < 0)
        return -1;
    /* One read transaction: the identity and the objects from one snapshot (another
       process may be creating the store right now: its tables without its version
       would look like another application's database). */
    identity id;
    if (tb_store_exec(s, "BEGIN", "reading the store", err) < 0)
        return -1;
    int fresh = read_identity(s, &id, err) < 0 ? -1 : check_store(s, &id, err);
    tb_store_rollback(s);
    if (fresh < 0)
        return -1;
    /* Ours (or new and empty): only now is anything written. WAL lets readers and
       one writer work at once; NORMAL sync in WAL mode never corrupts and never
       loses a committed transaction to a process crash (only, at worst, the last
       ones to a power loss). */
    if (set_wal(s, err) < 0 ||
        tb_store_exec(s, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON", "setting pragmas",
                      err) < 0)
        return -1;
    if (fresh || id.version < TB_STORE_SCHEMA_VERSION)
        return migrate(s, err);
    return 0;
}
