/* Unit tests for src/store: default paths, creating and reopening a store,
 * put/get/list round trips, idempotent puts, latest/previous, resolving
 * references (id, label, prefix, file), rm, refusing foreign files (not SQLite,
 * another application's SQLite, a newer schema) without changing them, a full
 * disk (PRAGMA max_page_count: SQLITE_FULL) rolling back, two processes writing
 * at once, and a writer killed mid-put leaving only whole runs; hostile stores
 * (views, triggers, objects teebench did not make) refused unchanged, the defensive
 * connection, and the guard that stops a statement running away. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/file.h"
#include "store/internal.h"

static char dir[64];
static char dbpath[128];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/tb_store_XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(dbpath, sizeof dbpath, "%s/sub/dir/results.db", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* A record with n metrics of k samples; label and started given. */
static tb_record *make(const char *label, const char *started, int n, int k, int env_variant)
{
    tb_err e;
    tb_record *r = tb_record_new(&e);
    assert_non_null(r);
    assert_int_equal(tb_record_set_str(&r->label, label, &e), 0);
    snprintf(r->started, sizeof r->started, "%s", started);
    if (env_variant >= 0) {
        json_decref(r->env);
        r->env = json_pack("{s:{s:s,s:s},s:{s:i,s:s}}", "platform", "value", "vm", "source", "test",
                           "cpus", "value", env_variant, "source", "test");
    }
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "probe.p%d.ns", i);
        tb_metric *m = tb_record_metric(r, name, "ns", TB_BETTER_LOWER, "probe", &e);
        assert_non_null(m);
        for (int j = 0; j < k; j++)
            assert_int_equal(tb_metric_add(m, 100.5 + i + j * 0.25, &e), 0);
    }
    return r;
}

static tb_store *open_ok(const char *path)
{
    tb_store *s = NULL;
    tb_err e;
    if (tb_store_open(path, &s, &e) != 0)
        fail_msg("open %s: %s", path, e.msg);
    return s;
}

static long long count(tb_store *s, const char *sql)
{
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(s->db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    long long n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

static size_t n_runs(tb_store *s)
{
    tb_store_runs l;
    tb_err e;
    assert_int_equal(tb_store_list(s, NULL, &l, &e), 0);
    size_t n = l.n;
    tb_store_runs_free(&l);
    return n;
}

static void test_paths(void **state)
{
    (void)state;
    char out[512];
    tb_err e;
    char *old_xdg = getenv("XDG_DATA_HOME") ? strdup(getenv("XDG_DATA_HOME")) : NULL;
    char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    char *old_db = getenv("TEEBENCH_DB") ? strdup(getenv("TEEBENCH_DB")) : NULL;
    setenv("XDG_DATA_HOME", "/data/xdg", 1);
    setenv("HOME", "/home/someone", 1);
    unsetenv("TEEBENCH_DB");
    assert_int_equal(tb_store_default_path(out, sizeof out, &e), 0);
    assert_string_equal(out, "/data/xdg/teebench/results.db");
    setenv("XDG_DATA_HOME", "relative/path", 1); /* the XDG spec says: ignore it */
    assert_int_equal(tb_store_default_path(out, sizeof out, &e), 0);
    assert_string_equal(out, "/home/someone/.local/share/teebench/results.db");
    unsetenv("XDG_DATA_HOME");
    assert_int_equal(tb_store_default_path(out, sizeof out, &e), 0);
    assert_string_equal(out, "/home/someone/.local/share/teebench/results.db");
    /* --db, then TEEBENCH_DB, then the default. */
    assert_int_equal(tb_store_path(NULL, out, sizeof out, &e), 0);
    assert_string_equal(out, "/home/someone/.local/share/teebench/results.db");
    setenv("TEEBENCH_DB", "/env/chosen.db", 1);
    assert_int_equal(tb_store_path(NULL, out, sizeof out, &e), 0);
    assert_string_equal(out, "/env/chosen.db");
    assert_int_equal(tb_store_path("flag.db", out, sizeof out, &e), 0);
    assert_string_equal(out, "flag.db");
    setenv("TEEBENCH_DB", "", 1);
    assert_int_equal(tb_store_path(NULL, out, sizeof out, &e), 0);
    assert_string_equal(out, "/home/someone/.local/share/teebench/results.db");
    assert_int_equal(tb_store_path("", out, sizeof out, &e), -1);
    char small[8];
    assert_int_equal(tb_store_path("/a/long/path.db", small, sizeof small, &e), -1);
    assert_non_null(strstr(e.msg, "too long"));
    if (old_xdg)
        setenv("XDG_DATA_HOME", old_xdg, 1);
    if (old_home)
        setenv("HOME", old_home, 1);
    if (old_db)
        setenv("TEEBENCH_DB", old_db, 1);
    else
        unsetenv("TEEBENCH_DB");
    free(old_xdg);
    free(old_home);
    free(old_db);
}

static void test_open_schema(void **state)
{
    (void)state;
    tb_store *s = open_ok(dbpath); /* creates sub/dir/ */
    assert_string_equal(tb_store_file(s), dbpath);
    assert_int_equal(count(s, "PRAGMA user_version"), TB_STORE_SCHEMA_VERSION);
    assert_int_equal(count(s, "PRAGMA application_id"), TB_STORE_APP_ID);
    assert_int_equal(count(s, "SELECT count(*) FROM sqlite_schema WHERE name IN"
                              " ('runs','environments','metrics','samples')"),
                     4);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(s->db, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    tb_store_close(s);
    s = open_ok(dbpath); /* reopening migrates nothing, keeps the version */
    assert_int_equal(count(s, "PRAGMA user_version"), TB_STORE_SCHEMA_VERSION);
    assert_int_equal(n_runs(s), 0);
    tb_store_close(s);
    /* An empty file (e.g. made by mktemp) becomes a store. */
    char empty[160];
    snprintf(empty, sizeof empty, "%s/empty.db", dir);
    tb_err e;
    assert_int_equal(tb_file_write_atomic(empty, "", 0, &e), 0);
    s = open_ok(empty);
    assert_int_equal(count(s, "PRAGMA user_version"), TB_STORE_SCHEMA_VERSION);
    tb_store_close(s);
    tb_store_close(NULL);
}

static void test_put_get_list(void **state)
{
    (void)state;
    tb_err e;
    tb_store *s = open_ok(dbpath);
    tb_record *a = make("tdx-guest", "2026-01-01T10:00:00Z", 3, 5, 1);
    tb_metric *m = (tb_metric *)tb_record_find(a, "probe.p1.ns");
    m->simulated = 1;
    assert_int_equal(tb_metric_set_note(m, "SIMULATED", &e), 0);
    json_object_set_new(a->extra, "k", json_string("v"));
    tb_record *b = make("vm-kvm", "2026-01-01T09:00:00Z", 2, 4, 1);      /* same env as a */
    tb_record *c = make("bare-metal", "2026-01-02T09:00:00Z", 0, 0, -1); /* no env */
    assert_int_equal(tb_store_put(s, a, &e), 0);
    assert_int_equal(tb_store_put(s, b, &e), 0);
    assert_int_equal(tb_store_put(s, c, &e), 0);
    /* The same again: already stored, nothing added. */
    assert_int_equal(tb_store_put(s, a, &e), 1);
    assert_int_equal(count(s, "SELECT count(*) FROM runs"), 3);
    assert_int_equal(count(s, "SELECT count(*) FROM environments"), 1);
    assert_int_equal(count(s, "SELECT count(*) FROM metrics"), 5);
    assert_int_equal(count(s, "SELECT count(*) FROM samples"), 23);
    assert_int_equal(count(s, "SELECT count(*) FROM runs WHERE env_id IS NULL"), 1);
    /* Another document with a stored id: an error, and the stored run unchanged. */
    assert_int_equal(tb_record_set_str(&a->label, "changed", &e), 0);
    assert_int_equal(tb_store_put(s, a, &e), -1);
    assert_non_null(strstr(e.msg, "already stored with different content"));
    assert_int_equal(tb_record_set_str(&a->label, "tdx-guest", &e), 0);
    /* list: oldest first, with counts. */
    tb_store_runs l;
    assert_int_equal(tb_store_list(s, NULL, &l, &e), 0);
    assert_int_equal(l.n, 3);
    assert_string_equal(l.runs[0].id, b->id);
    assert_string_equal(l.runs[1].id, a->id);
    assert_string_equal(l.runs[2].id, c->id);
    assert_string_equal(l.runs[1].label, "tdx-guest");
    assert_string_equal(l.runs[1].status, "complete");
    assert_string_equal(l.runs[1].started, "2026-01-01T10:00:00Z");
    assert_int_equal(l.runs[1].simulated, 1);
    assert_int_equal(l.runs[0].simulated, 0);
    assert_int_equal(l.runs[1].n_metrics, 3);
    assert_int_equal(l.runs[1].n_samples, 15);
    assert_int_equal(l.runs[2].n_metrics, 0);
    assert_string_equal(l.runs[1].platform, "vm"); /* from the environment's facts */
    assert_string_equal(l.runs[2].platform, "");   /* no env */
    tb_store_runs_free(&l);
    assert_int_equal(tb_store_list(s, "vm-kvm", &l, &e), 0);
    assert_int_equal(l.n, 1);
    assert_string_equal(l.runs[0].id, b->id);
    tb_store_runs_free(&l);
    assert_int_equal(tb_store_list(s, "nothing", &l, &e), 0);
    assert_int_equal(l.n, 0);
    tb_store_runs_free(&l);
    /* get gives back exactly the document that was put. */
    tb_record *g = NULL;
    assert_int_equal(tb_store_get(s, a->id, &g, &e), 0);
    char *t1 = tb_record_dumps(a, 0, NULL), *t2 = tb_record_dumps(g, 0, NULL);
    assert_string_equal(t1, t2);
    free(t1);
    free(t2);
    tb_record_free(g);
    assert_int_equal(tb_store_get(s, "00000000-0000-4000-8000-000000000000", &g, &e), 1);
    assert_null(g);
    tb_store_close(s);
    /* And after reopening. */
    s = open_ok(dbpath);
    assert_int_equal(tb_store_get(s, c->id, &g, &e), 0);
    assert_string_equal(g->label, "bare-metal");
    assert_true(json_is_null(g->env));
    tb_record_free(g);
    tb_store_close(s);
    tb_record_free(a);
    tb_record_free(b);
    tb_record_free(c);
}

static void test_latest_previous(void **state)
{
    (void)state;
    tb_err e;
    tb_store *s = open_ok(dbpath);
    tb_record *g = NULL;
    assert_int_equal(tb_store_latest(s, NULL, &g, &e), 1);
    /* Stored out of order; two share a start time (storing order breaks the tie). */
    tb_record *r1 = make("td", "2026-03-01T10:00:00Z", 1, 1, 0);
    tb_record *r0 = make("td", "2026-02-01T10:00:00Z", 1, 1, 0);
    tb_record *v1 = make("vm", "2026-03-01T10:00:00Z", 1, 1, 0);
    tb_record *r2 = make("td", "2026-03-01T10:00:00Z", 1, 1, 0);
    tb_record *all[] = {r1, r0, v1, r2};
    for (int i = 0; i < 4; i++)
        assert_int_equal(tb_store_put(s, all[i], &e), 0);
    assert_int_equal(tb_store_latest(s, NULL, &g, &e), 0);
    assert_string_equal(g->id, r2->id);
    tb_record_free(g);
    assert_int_equal(tb_store_latest(s, "vm", &g, &e), 0);
    assert_string_equal(g->id, v1->id);
    tb_record_free(g);
    assert_int_equal(tb_store_latest(s, "none", &g, &e), 1);
    assert_null(g);
    /* previous: any label, then the same label. */
    assert_int_equal(tb_store_previous(s, r2->id, NULL, &g, &e), 0);
    assert_string_equal(g->id, v1->id);
    tb_record_free(g);
    assert_int_equal(tb_store_previous(s, r2->id, "td", &g, &e), 0);
    assert_string_equal(g->id, r1->id);
    tb_record_free(g);
    assert_int_equal(tb_store_previous(s, r1->id, "td", &g, &e), 0);
    assert_string_equal(g->id, r0->id);
    tb_record_free(g);
    assert_int_equal(tb_store_previous(s, r0->id, NULL, &g, &e), 1);
    assert_int_equal(tb_store_previous(s, "nope", NULL, &g, &e), 1);
    assert_null(g);
    for (int i = 0; i < 4; i++)
        tb_record_free(all[i]);
    tb_store_close(s);
}

static void test_resolve(void **state)
{
    (void)state;
    tb_err e;
    tb_store *s = open_ok(dbpath);
    tb_record *a = make("td", "2026-03-01T10:00:00Z", 1, 2, 0);
    tb_record *b = make("td", "2026-03-02T10:00:00Z", 1, 2, 0);
    tb_record *c = make("vm", "2026-03-03T10:00:00Z", 1, 2, 0);
    snprintf(a->id, sizeof a->id, "abcd0000-0000-4000-8000-000000000001");
    snprintf(b->id, sizeof b->id, "abcd0000-0000-4000-8000-000000000002");
    snprintf(c->id, sizeof c->id, "beef0000-0000-4000-8000-000000000003");
    assert_int_equal(tb_store_put(s, a, &e), 0);
    assert_int_equal(tb_store_put(s, b, &e), 0);
    assert_int_equal(tb_store_put(s, c, &e), 0);
    tb_record *g = NULL;
    enum tb_store_ref how;
    assert_int_equal(tb_store_resolve(s, a->id, &g, &how, &e), 0);
    assert_string_equal(g->id, a->id);
    assert_int_equal(how, TB_STORE_REF_ID);
    tb_record_free(g);
    assert_int_equal(tb_store_resolve(s, "td", &g, &how, &e), 0);
    assert_string_equal(g->id, b->id); /* the latest with that label */
    assert_int_equal(how, TB_STORE_REF_LABEL);
    tb_record_free(g);
    assert_int_equal(tb_store_resolve(s, "beef", &g, &how, &e), 0);
    assert_string_equal(g->id, c->id);
    assert_int_equal(how, TB_STORE_REF_PREFIX);
    tb_record_free(g);
    assert_int_equal(tb_store_resolve(s, "abcd0000-0000-4000-8000-0000000000", &g, &how, &e), -1);
    assert_non_null(strstr(e.msg, "ambiguous"));
    assert_non_null(strstr(e.msg, a->id));
    assert_non_null(strstr(e.msg, b->id));
    assert_null(g);
    assert_int_equal(tb_store_resolve(s, "bee", &g, &how, &e), -1); /* under 4 characters */
    assert_non_null(strstr(e.msg, "no run, label or file 'bee'"));
    assert_int_equal(tb_store_resolve(s, "nothing-like-it", &g, NULL, &e), -1);
    assert_int_equal(tb_store_resolve(s, "", &g, NULL, &e), -1);
    /* A file: read, not stored. */
    tb_record *f = make("from-file", "2026-04-01T00:00:00Z", 2, 3, 0);
    char path[160];
    snprintf(path, sizeof path, "%s/run.json", dir);
    assert_int_equal(tb_record_write_file(f, path, &e), 0);
    assert_int_equal(tb_store_resolve(s, path, &g, &how, &e), 0);
    assert_int_equal(how, TB_STORE_REF_FILE);
    assert_string_equal(g->id, f->id);
    tb_record_free(g);
    assert_int_equal(n_runs(s), 3);
    assert_int_equal(tb_store_resolve(NULL, path, &g, &how, &e), 0);
    tb_record_free(g);
    assert_int_equal(tb_store_resolve(NULL, "td", &g, &how, &e), -1);
    assert_non_null(strstr(e.msg, "no results store"));
    /* A file that is not a result: the importer's error. */
    snprintf(path, sizeof path, "%s/bad.json", dir);
    assert_int_equal(tb_file_write_atomic(path, "{\"schema\":", 10, &e), 0);
    assert_int_equal(tb_store_resolve(s, path, &g, &how, &e), -1);
    assert_non_null(strstr(e.msg, "bad.json"));
    tb_record_free(a);
    tb_record_free(b);
    tb_record_free(c);
    tb_record_free(f);
    tb_store_close(s);
}

static void test_rm(void **state)
{
    (void)state;
    tb_err e;
    tb_store *s = open_ok(dbpath);
    tb_record *a = make("a", "2026-01-01T00:00:00Z", 2, 3, 7);
    tb_record *b = make("b", "2026-01-02T00:00:00Z", 2, 3, 7); /* same env */
    tb_record *c = make("c", "2026-01-03T00:00:00Z", 2, 3, 8); /* its own env */
    assert_int_equal(tb_store_put(s, a, &e), 0);
    assert_int_equal(tb_store_put(s, b, &e), 0);
    assert_int_equal(tb_store_put(s, c, &e), 0);
    assert_int_equal(count(s, "SELECT count(*) FROM environments"), 2);
    assert_int_equal(tb_store_rm(s, a->id, &e), 0);
    assert_int_equal(count(s, "SELECT count(*) FROM environments"), 2); /* b still uses it */
    assert_int_equal(tb_store_rm(s, c->id, &e), 0);
    assert_int_equal(count(s, "SELECT count(*) FROM environments"), 1);
    assert_int_equal(count(s, "SELECT count(*) FROM metrics"), 2);
    assert_int_equal(count(s, "SELECT count(*) FROM samples"), 6);
    assert_int_equal(tb_store_rm(s, a->id, &e), 1);
    assert_int_equal(n_runs(s), 1);
    /* Put again after rm: stored again. */
    assert_int_equal(tb_store_put(s, a, &e), 0);
    assert_int_equal(n_runs(s), 2);
    tb_record_free(a);
    tb_record_free(b);
    tb_record_free(c);
    tb_store_close(s);
}

static void expect_refused(const char *path, const char *want)
{
    tb_buf before = {0}, after = {0};
    tb_err e;
    int had = tb_file_read(path, 1 << 24, &before, &e) == 0;
    tb_store *s = (tb_store *)1;
    int rc = tb_store_open(path, &s, &e);
    if (rc != -1 || s != NULL || !strstr(e.msg, want))
        fail_msg("open %s: want \"%s\", got rc %d \"%s\"", path, want, rc, e.msg);
    assert_non_null(strstr(e.msg, path));
    assert_null(strchr(e.msg, '\n'));
    if (had) {
        assert_int_equal(tb_file_read(path, 1 << 24, &after, &e), 0);
        assert_int_equal(before.len, after.len);
        assert_memory_equal(before.p, after.p, before.len);
    }
    tb_buf_clear(&before);
    tb_buf_clear(&after);
}

static void test_refuse_foreign(void **state)
{
    (void)state;
    tb_err e;
    char path[160];
    /* Not SQLite at all. */
    snprintf(path, sizeof path, "%s/text.db", dir);
    const char *text = "this is a text file, not a database, and it is long enough to be read\n";
    assert_int_equal(tb_file_write_atomic(path, text, strlen(text), &e), 0);
    expect_refused(path, "not a teebench results store (not an SQLite database)");
    /* A result JSON given as --db by mistake. */
    tb_record *r = make("x", "2026-01-01T00:00:00Z", 1, 1, 0);
    snprintf(path, sizeof path, "%s/run.json", dir);
    assert_int_equal(tb_record_write_file(r, path, &e), 0);
    expect_refused(path, "not an SQLite database");
    /* Another application's SQLite database. */
    snprintf(path, sizeof path, "%s/other.db", dir);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(
        sqlite3_exec(db, "CREATE TABLE t (x); INSERT INTO t VALUES (1)", NULL, NULL, NULL),
        SQLITE_OK);
    sqlite3_close(db);
    expect_refused(path, "an SQLite database of another application");
    /* Another application's empty-schema database with a user_version. */
    snprintf(path, sizeof path, "%s/other2.db", dir);
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 5", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    expect_refused(path, "another application");
    /* Our store at a newer version. */
    tb_store *s = open_ok(dbpath);
    assert_int_equal(tb_store_put(s, r, &e), 0);
    tb_store_close(s);
    assert_int_equal(sqlite3_open(dbpath, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 2", NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    expect_refused(dbpath, "results store schema version 2 is newer than this teebench reads (1)");
    /* A directory. */
    expect_refused(dir, "is a directory");
    /* A path below a regular file. */
    snprintf(path, sizeof path, "%s/text.db/x.db", dir);
    s = (tb_store *)1;
    assert_int_equal(tb_store_open(path, &s, &e), -1);
    assert_null(s);
    tb_record_free(r);
}

/* A new store at path with two runs (of two metrics of three samples), then sql run
   on it by another SQLite connection (what a peer who sent the file could do). */
static void hostile_store(const char *path, const char *sql)
{
    tb_store *s = open_ok(path);
    tb_err e;
    tb_record *a = make("a", "2026-01-01T00:00:00Z", 2, 3, 0),
              *b = make("b", "2026-01-02T00:00:00Z", 2, 3, 1);
    assert_int_equal(tb_store_put(s, a, &e), 0);
    assert_int_equal(tb_store_put(s, b, &e), 0);
    tb_record_free(a);
    tb_record_free(b);
    tb_store_close(s);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", sql, msg);
    assert_int_equal(sqlite3_close(db), SQLITE_OK); /* the last connection: WAL checkpointed */
}

/* A store may come from someone else: only the schema's own objects are accepted,
   before anything is written or a query touches a table. */
static void test_refuse_hostile(void **state)
{
    (void)state;
    static const struct {
        const char *sql, *want;
    } cases[] = {
        /* `results list` and `compare` hung on this one */
        {"ALTER TABLE runs RENAME TO runs_real; CREATE VIEW runs AS WITH RECURSIVE"
         " r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT runs_real.* FROM runs_real, r",
         "not a teebench results store: it has a view \"runs\" that teebench did not create"},
        /* this one deleted the other runs' samples on the next put */
        {"CREATE TRIGGER wipe AFTER INSERT ON runs BEGIN DELETE FROM samples WHERE metric_id"
         " NOT IN (SELECT id FROM metrics WHERE run_id = NEW.id); END",
         "it has a trigger \"wipe\" that teebench did not create"},
        {"CREATE INDEX extra ON runs(status)", "it has an index \"extra\" that teebench did not"},
        {"CREATE TABLE notes (x)", "it has a table \"notes\" that teebench did not create"},
        {"DROP INDEX runs_label", "it lacks the index \"runs_label\" of schema version 1"},
        {"ALTER TABLE runs ADD COLUMN x DEFAULT 1",
         "its table \"runs\" is not the one schema version 1 defines"},
        {"PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql, 'value REAL"
         " NOT NULL', 'value REAL NOT NULL CHECK (value < 1e300)') WHERE name = 'samples'",
         "its table \"samples\" is not the one schema version 1 defines"},
        /* a name made to break the error line and the terminal */
        {"CREATE VIEW \"v\n\x1b[2Jx\" AS SELECT 1", "it has a view \"v?"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[160];
        snprintf(path, sizeof path, "%s/hostile%zu.db", dir, i);
        hostile_store(path, cases[i].sql);
        uint64_t t0 = tb_mono_ns();
        expect_refused(path, cases[i].want); /* the file left as it was */
        assert_true(tb_mono_ns() - t0 < 5000000000u);
    }
    /* ANALYZE's statistics are not an object of teebench's, but harmless */
    char path[160];
    snprintf(path, sizeof path, "%s/analyzed.db", dir);
    hostile_store(path, "ANALYZE");
    tb_store *s = open_ok(path);
    assert_int_equal(n_runs(s), 2);
    tb_store_close(s);
    /* ours by application id at version 0, yet not empty */
    snprintf(path, sizeof path, "%s/v0.db", dir);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char sql[96];
    snprintf(sql, sizeof sql, "PRAGMA application_id = %d; CREATE TABLE runs (x)", TB_STORE_APP_ID);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    expect_refused(path, "it has a table \"runs\" that teebench did not create");
}

static int db_config(tb_store *s, int op)
{
    int v = -2;
    assert_int_equal(sqlite3_db_config(s->db, op, -1, &v), SQLITE_OK);
    return v;
}

/* The connection is defensive; a trigger that got in anyway (here: made through the
   connection itself) never fires; a statement that runs away is stopped by the guard
   with one line, and the connection stays usable; the guard counts CPU, so waiting for
   another writer's lock is not running away, and neither are the many short statements
   of a big put. */
static void test_guard(void **state)
{
    (void)state;
    tb_err e;
    tb_store *s = open_ok(dbpath);
    assert_int_equal(db_config(s, SQLITE_DBCONFIG_DEFENSIVE), 1);
    assert_int_equal(db_config(s, SQLITE_DBCONFIG_TRUSTED_SCHEMA), 0);
    assert_int_equal(db_config(s, SQLITE_DBCONFIG_ENABLE_TRIGGER), 0);
    assert_int_equal(db_config(s, SQLITE_DBCONFIG_ENABLE_VIEW), 0);
    assert_int_equal(count(s, "PRAGMA trusted_schema"), 0);
    assert_int_equal(count(s, "PRAGMA cell_size_check"), 1);
    assert_int_not_equal(sqlite3_exec(s->db,
                                      "PRAGMA writable_schema = ON; UPDATE sqlite_schema"
                                      " SET sql = '' WHERE name = 'runs'",
                                      NULL, NULL, NULL),
                         SQLITE_OK);

    tb_record *a = make("a", "2026-01-01T00:00:00Z", 2, 3, 0),
              *b = make("b", "2026-01-02T00:00:00Z", 2, 3, 0);
    assert_int_equal(tb_store_put(s, a, &e), 0);
    assert_int_equal(sqlite3_exec(s->db,
                                  "CREATE TRIGGER wipe AFTER INSERT ON runs BEGIN DELETE FROM "
                                  "samples; END",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    assert_int_equal(tb_store_put(s, b, &e), 0);
    assert_int_equal(count(s, "SELECT count(*) FROM samples"), 12);
    assert_int_equal(sqlite3_exec(s->db, "DROP TRIGGER wipe", NULL, NULL, NULL), SQLITE_OK);

    s->query_cpu_ns = 200000000u; /* 0.2 s */
    uint64_t t0 = tb_mono_ns();
    assert_int_equal(tb_store_exec(s,
                                   "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM "
                                   "r) SELECT count(*) FROM r",
                                   "counting forever", &e),
                     -1);
    assert_true(tb_mono_ns() - t0 < 10000000000u);
    assert_non_null(strstr(e.msg, "counting forever: a query ran for more than 0.2 s of CPU time"));
    assert_null(strchr(e.msg, '\n'));
    /* the same through a prepared statement and tb_store_sqlerr, then a usable store */
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(s->db,
                                        "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 "
                                        "FROM r) SELECT max(x) FROM r",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_INTERRUPT);
    tb_store_sqlerr(s, "reading", &e);
    sqlite3_finalize(st);
    assert_non_null(strstr(e.msg, "reading: a query ran for more than"));
    assert_int_equal(n_runs(s), 2);
    assert_int_equal(tb_store_exec(s, "SELECT no_such_column FROM runs", "a bad query", &e), -1);
    assert_null(strstr(e.msg, "ran for more than"));

    /* many short statements: a put of 40 x 500 samples under a 20 ms budget */
    s->query_cpu_ns = 20000000u;
    tb_record *big = make("big", "2026-01-03T00:00:00Z", 40, 500, 0);
    assert_int_equal(tb_store_put(s, big, &e), 0);
    tb_record_free(big);

    /* another writer holds the lock for 1 s: the put waits for it, not stopped */
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        sqlite3 *db;
        if (sqlite3_open(dbpath, &db) != SQLITE_OK ||
            sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
            _exit(1);
        if (write(p[1], "x", 1) != 1)
            _exit(1);
        tb_sleep_ns(1000000000u);
        _exit(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK ? 0 : 1);
    }
    close(p[1]);
    char c;
    assert_int_equal(read(p[0], &c, 1), 1);
    close(p[0]);
    tb_record *late = make("late", "2026-01-04T00:00:00Z", 1, 1, 0);
    t0 = tb_mono_ns();
    if (tb_store_put(s, late, &e) != 0)
        fail_msg("put behind a lock: %s", e.msg);
    assert_true(tb_mono_ns() - t0 > 500000000u); /* it did wait */
    int wst;
    assert_int_equal(waitpid(pid, &wst, 0), pid);
    assert_true(WIFEXITED(wst) && WEXITSTATUS(wst) == 0);
    assert_int_equal(n_runs(s), 4);
    tb_record_free(late);
    tb_record_free(a);
    tb_record_free(b);
    tb_store_close(s);
}

static void test_disk_full(void **state)
{
    (void)state;
    tb_err e;
    tb_store *s = open_ok(dbpath);
    tb_record *small = make("ok", "2026-01-01T00:00:00Z", 2, 2, 0);
    assert_int_equal(tb_store_put(s, small, &e), 0);
    long long pages = count(s, "PRAGMA page_count");
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA max_page_count = %lld", pages + 2);
    assert_int_equal(sqlite3_exec(s->db, sql, NULL, NULL, NULL), SQLITE_OK);
    /* Far more than two pages: SQLITE_FULL in the middle of the samples. */
    tb_record *big = make("big", "2026-01-02T00:00:00Z", 40, 200, 1);
    assert_int_equal(tb_store_put(s, big, &e), -1);
    assert_non_null(strstr(e.msg, "full"));
    assert_non_null(strstr(e.msg, "nothing stored"));
    /* Unchanged: one run, its metrics and samples, no environment of the big one. */
    assert_int_equal(n_runs(s), 1);
    assert_int_equal(count(s, "SELECT count(*) FROM metrics"), 2);
    assert_int_equal(count(s, "SELECT count(*) FROM samples"), 4);
    assert_int_equal(count(s, "SELECT count(*) FROM environments"), 1);
    tb_record *g = NULL;
    assert_int_equal(tb_store_get(s, big->id, &g, &e), 1);
    /* The connection is usable afterwards, and with room the put succeeds. */
    assert_int_equal(sqlite3_exec(s->db, "PRAGMA max_page_count = 1000000", NULL, NULL, NULL),
                     SQLITE_OK);
    assert_int_equal(tb_store_put(s, big, &e), 0);
    assert_int_equal(n_runs(s), 2);
    tb_store_close(s);
    tb_record_free(small);
    tb_record_free(big);
}

/* Two child processes open the store at path at once (a new one: both race to
   create it) and put per_child runs each. */
static void two_writers(const char *path, int per_child)
{
    pid_t pids[2];
    for (int c = 0; c < 2; c++) {
        pids[c] = fork();
        assert_true(pids[c] >= 0);
        if (pids[c] == 0) {
            tb_err e;
            tb_store *s = NULL;
            if (tb_store_open(path, &s, &e) != 0) {
                fprintf(stderr, "child open: %s\n", e.msg);
                _exit(1);
            }
            for (int i = 0; i < per_child; i++) {
                char label[16];
                snprintf(label, sizeof label, "child%d", c);
                tb_record *r = make(label, "2026-01-01T00:00:00Z", 3, 20, i % 3);
                int rc = tb_store_put(s, r, &e);
                tb_record_free(r);
                if (rc != 0) {
                    fprintf(stderr, "child put: %s\n", e.msg);
                    _exit(1);
                }
            }
            tb_store_close(s);
            _exit(0);
        }
    }
    for (int c = 0; c < 2; c++) {
        int st;
        assert_int_equal(waitpid(pids[c], &st, 0), pids[c]);
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), 0);
    }
}

/* Two processes create a new store at once and put runs at once: all land. Several
   rounds on new stores, because the creation race is narrow. */
static void test_concurrent_writers(void **state)
{
    (void)state;
    enum { PER_CHILD = 30, ROUNDS = 8 };
    two_writers(dbpath, PER_CHILD);
    tb_store *s = open_ok(dbpath);
    assert_int_equal(n_runs(s), 2 * PER_CHILD);
    tb_store_runs l;
    tb_err e;
    assert_int_equal(tb_store_list(s, "child1", &l, &e), 0);
    assert_int_equal(l.n, PER_CHILD);
    tb_store_runs_free(&l);
    assert_int_equal(count(s, "SELECT count(*) FROM samples"), 2 * PER_CHILD * 3 * 20);
    assert_int_equal(count(s, "SELECT count(*) FROM environments"), 3);
    tb_store_close(s);
    for (int round = 0; round < ROUNDS; round++) {
        char path[160];
        snprintf(path, sizeof path, "%s/new%d.db", dir, round);
        two_writers(path, 2);
        s = open_ok(path);
        assert_int_equal(n_runs(s), 4);
        tb_store_close(s);
    }
}

/* A writer killed at an arbitrary moment leaves whole runs only. */
static void test_killed_writer(void **state)
{
    (void)state;
    tb_store *s0 = open_ok(dbpath); /* created before the child starts */
    tb_store_close(s0);
    /* the child says on a pipe when a run is stored: the kill lands while it writes
       later ones however slow this machine (a sanitizer build under load) is */
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        tb_err e;
        tb_store *s = NULL;
        if (tb_store_open(dbpath, &s, &e) != 0)
            _exit(1);
        for (;;) {
            tb_record *r = make("k", "2026-01-01T00:00:00Z", 20, 50, 0);
            if (tb_store_put(s, r, &e) == 0 && write(fds[1], "r", 1) < 0)
                _exit(1);
            tb_record_free(r);
        }
    }
    close(fds[1]);
    struct pollfd pfd = {.fd = fds[0], .events = POLLIN};
    assert_int_equal(poll(&pfd, 1, 60000), 1); /* a first run stored */
    char c;
    assert_int_equal(read(fds[0], &c, 1), 1);
    tb_sleep_ns(30 * 1000000ull); /* into a later write */
    kill(pid, SIGKILL);
    close(fds[0]);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    tb_store *s = open_ok(dbpath);
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(s->db, "PRAGMA integrity_check", -1, &q, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(q, 0), "ok");
    sqlite3_finalize(q);
    tb_store_runs l;
    tb_err e;
    assert_int_equal(tb_store_list(s, NULL, &l, &e), 0);
    assert_true(l.n > 0);
    for (size_t i = 0; i < l.n; i++) {
        assert_int_equal(l.runs[i].n_metrics, 20);
        assert_int_equal(l.runs[i].n_samples, 20 * 50);
        tb_record *g = NULL;
        assert_int_equal(tb_store_get(s, l.runs[i].id, &g, &e), 0);
        assert_int_equal(g->n_metrics, 20);
        tb_record_free(g);
    }
    tb_store_runs_free(&l);
    tb_store_close(s);
}

static void test_env_id(void **state)
{
    (void)state;
    tb_err e;
    char a[65], b[65], c[65];
    json_t *x = json_loads("{\"a\":1,\"b\":{\"c\":2}}", 0, NULL);
    json_t *y = json_loads("{\"b\":{\"c\":2},\"a\":1}", 0, NULL); /* same facts, other order */
    json_t *z = json_loads("{\"a\":1,\"b\":{\"c\":3}}", 0, NULL);
    assert_int_equal(tb_store_env_id(x, a, &e), 0);
    assert_int_equal(tb_store_env_id(y, b, &e), 0);
    assert_int_equal(tb_store_env_id(z, c, &e), 0);
    assert_string_equal(a, b);
    assert_string_not_equal(a, c);
    assert_int_equal(strlen(a), 64);
    /* sha256sum of the text {"a":1,"b":{"c":2}} */
    assert_string_equal(a, "007f2c1c104514608c3cdf42ec59d710d0888592c1d1f72437d9b075093617b8");
    json_decref(x);
    json_decref(y);
    json_decref(z);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_env_id),
        cmocka_unit_test_setup_teardown(test_open_schema, setup, teardown),
        cmocka_unit_test_setup_teardown(test_put_get_list, setup, teardown),
        cmocka_unit_test_setup_teardown(test_latest_previous, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resolve, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rm, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refuse_foreign, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refuse_hostile, setup, teardown),
        cmocka_unit_test_setup_teardown(test_guard, setup, teardown),
        cmocka_unit_test_setup_teardown(test_disk_full, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_writers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_killed_writer, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
