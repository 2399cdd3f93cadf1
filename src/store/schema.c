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
 * not at all. To change the schema, append a step; never edit an old one. */
#include "store/internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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

int tb_store_sqlerr(tb_store *s, const char *what, tb_err *err)
{
    return tb_errf(err, "%s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
}

int tb_store_exec(tb_store *s, const char *sql, const char *what, tb_err *err)
{
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        tb_errf(err, "%s: %s: %s", s->path, what, msg ? msg : sqlite3_errmsg(s->db));
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

static int migrate(tb_store *s, tb_err *err)
{
    if (tb_store_begin(s, err) < 0)
        return -1;
    identity id;
    if (read_identity(s, &id, err) < 0 || check_identity(s, &id, err) < 0) {
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
    /* One read transaction: the three values from one snapshot (another process may
       be creating the store right now: its tables without its version would look
       like another application's database). */
    identity id;
    if (tb_store_exec(s, "BEGIN", "reading the store", err) < 0)
        return -1;
    int bad = read_identity(s, &id, err) < 0;
    tb_store_rollback(s);
    if (bad)
        return -1;
    int fresh = check_identity(s, &id, err);
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
