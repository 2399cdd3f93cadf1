/* Unit tests for src/record/import: real outputs of `teebench http --json`,
 * `syscall --json`, `probe --json`, a `bench notary` results folder, a results.csv
 * alone (teebench's and one in the source script's style), and a result
 * document (tests/data/import/); metric names, units, directions and values
 * checked against the input files read independently; labels, SIMULATED, stable
 * ids; and the bad inputs (other formats, truncated, missing members, folders
 * without results.csv). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/file.h"
#include "benchcsv/benchcsv.h"
#include "record/import.h"
#include "record/internal.h"

static char data_dir[512];

static const char *data(const char *name)
{
    static char p[4][1024];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", data_dir, name);
    return p[k];
}

static json_t *load(const char *name)
{
    json_error_t je;
    json_t *j = json_load_file(data(name), 0, &je);
    if (!j)
        fail_msg("%s: %s", name, je.text);
    return j;
}

static tb_record *import_ok(const char *path, const tb_import_opts *o, enum tb_import_format want)
{
    tb_record *r = NULL;
    enum tb_import_format f;
    tb_err e = {{0}};
    if (tb_record_import_file(path, o, &r, &f, &e) != 0)
        fail_msg("import %s: %s", path, e.msg);
    assert_int_equal(f, want);
    /* Every import is a valid result document. */
    json_t *doc = tb_record_to_json(r);
    tb_record *back = NULL;
    if (tb_record_from_json(doc, &back, &e) != 0)
        fail_msg("import %s: not a valid record: %s", path, e.msg);
    tb_record_free(back);
    json_decref(doc);
    return r;
}

static const tb_metric *metric(const tb_record *r, const char *name, const char *unit, int better)
{
    const tb_metric *m = tb_record_find(r, name);
    if (!m)
        fail_msg("no metric %s", name);
    assert_string_equal(m->unit, unit);
    assert_int_equal(m->better, better);
    return m;
}

static void check_imported(const tb_record *r, const char *fmt, const char *path)
{
    assert_string_equal(r->profile, "imported");
    assert_string_equal(r->status, "complete");
    const json_t *src = json_object_get(r->extra, "source");
    assert_string_equal(json_string_value(json_object_get(src, "format")), fmt);
    assert_string_equal(json_string_value(json_object_get(src, "path")), path);
    assert_int_equal(r->id[14], '8'); /* a version 8 (derived) UUID */
}

static void expect_label_of_env(const tb_record *r, const json_t *env)
{
    char want[64];
    tb_record_default_label(env, want, sizeof want);
    assert_string_equal(r->label, want);
}

static void test_http(void **state)
{
    (void)state;
    const char *path = data("http.json");
    tb_record *r = import_ok(path, NULL, TB_IMPORT_DOC);
    json_t *j = load("http.json");
    check_imported(r, "http", path);
    expect_label_of_env(r, json_object_get(j, "environment"));
    assert_true(json_equal(r->env, json_object_get(j, "environment")));
    assert_string_equal(r->started, json_string_value(json_object_get(j, "started_at")));
    const tb_metric *m = metric(r, "http.imported.rps", "req/s", TB_BETTER_HIGHER);
    assert_int_equal(m->n, 1);
    assert_float_equal(
        m->samples[0],
        json_real_value(json_object_get(json_object_get(j, "requests"), "per_second")), 0);
    m = metric(r, "http.imported.transfer", "B/s", TB_BETTER_HIGHER);
    assert_float_equal(
        m->samples[0],
        json_number_value(json_object_get(json_object_get(j, "bytes"), "per_second")), 0);
    const char *p[] = {"p50", "p90", "p99", "p99.9", "p99.99", "p99.999"};
    const json_t *pc = json_object_get(json_object_get(j, "latency"), "percentiles_us");
    const json_t *pu = json_object_get(json_object_get(j, "latency_uncorrected"), "percentiles_us");
    for (size_t i = 0; i < 6; i++) {
        char name[64];
        snprintf(name, sizeof name, "http.imported.latency.%s", p[i]);
        m = metric(r, name, "ms", TB_BETTER_LOWER);
        assert_float_equal(m->samples[0], json_number_value(json_object_get(pc, p[i])) / 1000,
                           1e-12);
        snprintf(name, sizeof name, "http.imported.latency_u.%s", p[i]);
        m = metric(r, name, "ms", TB_BETTER_LOWER);
        assert_float_equal(m->samples[0], json_number_value(json_object_get(pu, p[i])) / 1000,
                           1e-12);
    }
    assert_int_equal(r->n_metrics, 14);
    assert_null(tb_record_find(r, "http.imported.latency.p75")); /* not in the agreed set */
    /* Same file again: same id. Another label or target: another id. */
    tb_record *again = import_ok(path, NULL, TB_IMPORT_DOC);
    assert_string_equal(again->id, r->id);
    tb_record_free(again);
    tb_import_opts o = {.label = "host", .target = "nginx"};
    tb_record *t = import_ok(path, &o, TB_IMPORT_DOC);
    assert_string_not_equal(t->id, r->id);
    assert_string_equal(t->label, "host");
    metric(t, "http.nginx.rps", "req/s", TB_BETTER_HIGHER);
    metric(t, "http.nginx.latency.p99.9", "ms", TB_BETTER_LOWER);
    tb_record_free(t);
    /* A target that is not a name part is made one. */
    o.target = "Test-Server.IO";
    t = import_ok(path, &o, TB_IMPORT_DOC);
    metric(t, "http.test-server_io.rps", "req/s", TB_BETTER_HIGHER);
    tb_record_free(t);
    json_decref(j);
    tb_record_free(r);
    /* Constant-rate run: also has uncorrected latency. */
    r = import_ok(data("http_rate.json"), NULL, TB_IMPORT_DOC);
    metric(r, "http.imported.latency_u.p50", "ms", TB_BETTER_LOWER);
    tb_record_free(r);
}

static void test_syscall(void **state)
{
    (void)state;
    const char *path = data("syscall.json");
    tb_record *r = import_ok(path, NULL, TB_IMPORT_DOC);
    json_t *j = load("syscall.json");
    check_imported(r, "syscall", path);
    expect_label_of_env(r, json_object_get(j, "env"));
    const tb_metric *m = metric(r, "syscall.c1.lps", "lps", TB_BETTER_HIGHER);
    size_t k = 0, i;
    json_t *pass;
    json_array_foreach(json_object_get(j, "passes"), i, pass)
    {
        if (json_is_true(json_object_get(pass, "kept"))) {
            assert_true(k < m->n);
            assert_float_equal(m->samples[k], json_number_value(json_object_get(pass, "lps")), 0);
            k++;
        }
    }
    assert_int_equal(m->n, k);
    m = metric(r, "syscall.c1.index", "index", TB_BETTER_HIGHER);
    assert_int_equal(m->n, 1);
    assert_float_equal(m->samples[0], json_number_value(json_object_get(j, "index")), 0);
    assert_int_equal(r->n_metrics, 2);
    json_decref(j);
    tb_record_free(r);
    /* Mode getpid, two copies: no index (UnixBench has none for it). */
    r = import_ok(data("syscall_getpid_c2.json"), NULL, TB_IMPORT_DOC);
    metric(r, "syscall.getpid.cn.lps", "lps", TB_BETTER_HIGHER);
    assert_int_equal(r->n_metrics, 1);
    tb_record_free(r);
}

static void test_probe(void **state)
{
    (void)state;
    const char *path = data("probe.json");
    tb_record *r = import_ok(path, NULL, TB_IMPORT_DOC);
    json_t *j = load("probe.json");
    check_imported(r, "probe", path);
    size_t i, n = 0;
    json_t *p;
    json_array_foreach(json_object_get(j, "probes"), i, p)
    {
        if (!json_is_true(json_object_get(p, "available")))
            continue;
        char name[96];
        snprintf(name, sizeof name, "probe.%s.ns", json_string_value(json_object_get(p, "name")));
        const tb_metric *m = metric(r, name, "ns", TB_BETTER_LOWER);
        assert_float_equal(m->samples[0], json_number_value(json_object_get(p, "median_ns")), 0);
        assert_string_equal(m->note, json_string_value(json_object_get(p, "what")));
        n++;
    }
    assert_true(n > 0);
    assert_int_equal(r->n_metrics, n);
    tb_record_free(r);
    /* An unavailable probe is left out; a TD's env gives the label tdx-guest. */
    json_t *pr = json_array_get(json_object_get(j, "probes"), 0);
    json_object_set_new(pr, "available", json_false());
    json_t *env = json_object_get(j, "env");
    json_object_set_new(json_object_get(env, "platform"), "value", json_string("tdx-guest"));
    char *text = json_dumps(j, 0);
    tb_err e;
    assert_int_equal(tb_record_import_bytes(text, strlen(text), "mem.json", NULL, &r, NULL, &e), 0);
    assert_int_equal(r->n_metrics, n - 1);
    assert_string_equal(r->label, "tdx-guest");
    char name[96];
    snprintf(name, sizeof name, "probe.%s.ns", json_string_value(json_object_get(pr, "name")));
    assert_null(tb_record_find(r, name));
    tb_record_free(r);
    free(text);
    json_decref(j);
}

/* The rows of a results.csv, parsed by hand (independent of bench/results). */
typedef struct row {
    char mode[32];
    int it, ok, tee;
    double notar, e2e, verify, nv, wall;
} row;

static size_t read_rows(const char *path, row *rows, size_t cap)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    size_t n = 0;
    assert_non_null(fgets(line, sizeof line, f)); /* header */
    while (fgets(line, sizeof line, f) && n < cap) {
        char *fld[12] = {0}, *s = line;
        for (int i = 0; i < 12; i++) {
            fld[i] = s;
            s = s ? strpbrk(s, ",\r\n") : NULL;
            if (s)
                *s++ = '\0';
        }
        row *r = &rows[n++];
        memset(r, 0, sizeof *r);
        snprintf(r->mode, sizeof r->mode, "%s", fld[0]);
        r->it = atoi(fld[1]);
        r->tee = !strcmp(fld[2], "true");
        r->ok = !strcmp(fld[4], "0") && *fld[5];
        r->notar = atof(fld[5]);
        r->e2e = *fld[6] ? atof(fld[6]) : NAN;
        r->verify = *fld[7] ? atof(fld[7]) : NAN;
        r->nv = atof(fld[8]);
        r->wall = *fld[9] ? atof(fld[9]) : NAN;
    }
    fclose(f);
    return n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Checks notary metrics against the rows: per-run samples, overheads. */
static void check_notary(const tb_record *r, const row *rows, size_t n, int simulated)
{
    const char *modes[] = {"no_tee", "tee_no_verify", "tee_verify"};
    for (int mi = 0; mi < 3; mi++) {
        char name[96];
        snprintf(name, sizeof name, "notary.%s.notarization_ms", modes[mi]);
        const tb_metric *m = metric(r, name, "ms", TB_BETTER_LOWER);
        size_t k = 0;
        double d[64];
        size_t nd = 0;
        for (size_t i = 0; i < n; i++) {
            if (strcmp(rows[i].mode, modes[mi]) || !rows[i].ok)
                continue;
            assert_float_equal(m->samples[k], rows[i].notar, 1e-9);
            k++;
            for (size_t b = 0; b < n; b++)
                if (!strcmp(rows[b].mode, "no_tee") && rows[b].it == rows[i].it && rows[b].ok)
                    d[nd++] = (mi == 2 ? rows[i].nv : rows[i].notar) - rows[b].notar;
        }
        assert_int_equal(m->n, k);
        assert_int_equal(m->simulated, simulated && mi > 0);
        if (simulated && mi > 0)
            assert_non_null(strstr(m->note, "SIMULATED"));
        if (mi == 0) {
            assert_null(tb_record_find(r, "notary.no_tee.overhead_ms"));
            continue;
        }
        snprintf(name, sizeof name, "notary.%s.overhead_ms", modes[mi]);
        m = metric(r, name, "ms", TB_BETTER_LOWER);
        qsort(d, nd, sizeof d[0], cmp_double);
        double med = nd % 2 ? d[nd / 2] : (d[nd / 2 - 1] + d[nd / 2]) / 2;
        assert_int_equal(m->n, 1);
        assert_float_equal(m->samples[0], med, 1e-9);
    }
    const tb_metric *v = metric(r, "notary.tee_verify.verify_ms", "ms", TB_BETTER_LOWER);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(rows[i].mode, "tee_verify") && rows[i].ok)
            assert_float_equal(v->samples[k++], rows[i].verify, 1e-9);
    assert_int_equal(v->n, k);
    assert_null(tb_record_find(r, "notary.no_tee.verify_ms"));
    assert_int_equal(r->simulated, simulated);
}

static void test_bench_dir(void **state)
{
    (void)state;
    const char *path = data("bench/20261130T191707Z");
    tb_record *r = import_ok(path, NULL, TB_IMPORT_BENCH_DIR);
    check_imported(r, "bench-dir", path);
    assert_string_equal(r->started, "2026-11-30T19:17:07Z");
    json_t *env = load("bench/20261130T191707Z/env.json");
    json_t *run = load("bench/20261130T191707Z/run.json");
    expect_label_of_env(r, env);
    assert_true(json_equal(r->env, env));
    assert_true(json_equal(json_object_get(r->extra, "bench"), run));
    row rows[64];
    size_t n = read_rows(data("bench/20261130T191707Z/results.csv"), rows, 64);
    check_notary(r, rows, n, json_is_true(json_object_get(run, "simulated")));
    metric(r, "notary.no_tee.wall_ms", "ms", TB_BETTER_LOWER);
    metric(r, "notary.tee_verify.total_e2e_ms", "ms", TB_BETTER_LOWER);
    /* The folder with a trailing slash is the same run. */
    char slash[1100];
    snprintf(slash, sizeof slash, "%s/", path);
    tb_record *again = import_ok(slash, NULL, TB_IMPORT_BENCH_DIR);
    assert_string_equal(again->id, r->id);
    assert_string_equal(again->started, r->started);
    tb_record_free(again);
    json_decref(env);
    json_decref(run);
    tb_record_free(r);
}

static void test_results_csv(void **state)
{
    (void)state;
    /* teebench's own results.csv, alone: no env, not known to be simulated. */
    const char *path = data("bench_results.csv");
    tb_record *r = import_ok(path, NULL, TB_IMPORT_BENCH_CSV);
    check_imported(r, "bench-csv", path);
    assert_string_equal(r->label, "unknown");
    assert_true(json_is_null(r->env));
    row rows[64];
    size_t n = read_rows(path, rows, 64);
    check_notary(r, rows, n, 0);
    tb_record_free(r);
    /* The source script's style: CRLF, a failed run, no wall_ms. */
    path = data("source_results.csv");
    tb_import_opts o = {.label = "td"};
    r = import_ok(path, &o, TB_IMPORT_BENCH_CSV);
    assert_string_equal(r->label, "td");
    n = read_rows(path, rows, 64);
    check_notary(r, rows, n, 0);
    assert_null(tb_record_find(r, "notary.no_tee.wall_ms"));
    /* The source document's headline: +278 ms median (1369-1091, 1367-1089). */
    assert_float_equal(tb_record_find(r, "notary.tee_no_verify.overhead_ms")->samples[0], 278, 0);
    assert_int_equal(tb_record_find(r, "notary.tee_verify.notarization_ms")->n, 1);
    tb_record_free(r);
}

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A results.csv of 80,000 iterations of no_tee and tee_verify, in an order that makes
   every pairing look far: the overheads pair runs by iteration through a sorted index
   (it took 38 s of CPU for 80,000 rows when each run looked for its no_tee run among
   all rows). The overhead is still the median of the paired differences; a mode whose
   runs all failed has none; a no_tee run that failed pairs with nothing. */
static void test_results_csv_large(void **state)
{
    (void)state;
    enum { ITER = 80000 };
    tb_buf b = {0};
    assert_int_equal(tb_buf_printf(&b, "%s\n", TB_BENCH_RESULTS_HEADER), 0);
    for (int i = ITER; i >= 1; i--) /* no_tee backwards, so a scan from the start is far */
        assert_int_equal(tb_buf_printf(&b, "no_tee,%d,0,0,%d,1000,,,,,a,b\n", i, i == 7), 0);
    for (int i = 1; i <= ITER; i++)
        assert_int_equal(tb_buf_printf(&b, "tee_verify,%d,1,1,0,1100,,%d,%d,,c,d\n", i, i % 3,
                                       1100 + i % 3 * 100),
                         0);
    for (int i = 1; i <= 3; i++)
        assert_int_equal(tb_buf_printf(&b, "tee_no_verify,%d,1,0,1,,,,,,e,f\n", i), 0);
    tb_record *r = NULL;
    tb_err e;
    double t0 = cpu_s();
    if (tb_record_import_bytes((const char *)b.p, b.len, "big.csv", NULL, &r, NULL, &e) != 0)
        fail_msg("import: %s", e.msg);
    double took = cpu_s() - t0;
    tb_buf_clear(&b);
    const tb_metric *m = tb_record_find(r, "notary.tee_verify.overhead_ms");
    assert_non_null(m);
    assert_int_equal(m->n, 1);
    /* differences 100 + 0, 100, 200 (by i % 3) over 79,999 paired iterations: median 200 */
    assert_float_equal(m->samples[0], 200, 0);
    assert_int_equal(tb_record_find(r, "notary.no_tee.notarization_ms")->n, ITER - 1);
    assert_null(tb_record_find(r, "notary.tee_no_verify.overhead_ms"));
    assert_null(tb_record_find(r, "notary.no_tee.overhead_ms"));
    tb_record_free(r);
    if (took > 30.0) /* 0.6 s here; 9 s under ThreadSanitizer; 98 s when it was quadratic */
        fail_msg("importing %d rows took %.1f s of CPU: not linear", 2 * ITER, took);
}

static void test_result_document(void **state)
{
    (void)state;
    tb_err e;
    tb_record *orig = tb_record_new(&e);
    assert_int_equal(tb_record_set_str(&orig->label, "bare-metal", &e), 0);
    tb_metric *m = tb_record_metric(orig, "http.nginx.rps", "req/s", TB_BETTER_HIGHER, "http", &e);
    assert_int_equal(tb_metric_add(m, 162588, &e), 0);
    char path[] = "/tmp/tb_import_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(tb_record_write_file(orig, path, &e), 0);
    tb_record *r = import_ok(path, NULL, TB_IMPORT_RESULT);
    assert_string_equal(r->id, orig->id); /* its own id, kept */
    char *a = tb_record_dumps(orig, 1, NULL), *b = tb_record_dumps(r, 1, NULL);
    assert_string_equal(a, b);
    free(a);
    free(b);
    tb_record_free(r);
    tb_import_opts o = {.label = "renamed"};
    r = import_ok(path, &o, TB_IMPORT_RESULT);
    assert_string_equal(r->id, orig->id);
    assert_string_equal(r->label, "renamed");
    assert_string_equal(r->profile, "custom"); /* a result keeps its profile */
    tb_record_free(r);
    unlink(path);
    tb_record_free(orig);
}

static void expect_bytes_fail(const char *text, const char *want)
{
    tb_record *r = (tb_record *)1;
    tb_err e = {{0}};
    int rc = tb_record_import_bytes(text, strlen(text), "in.json", NULL, &r, NULL, &e);
    if (rc != -1 || r != NULL || !strstr(e.msg, want))
        fail_msg("want \"%s\", got rc %d \"%s\" for %.80s", want, rc, e.msg, text);
    assert_non_null(strstr(e.msg, "in.json"));
    assert_null(strchr(e.msg, '\n'));
}

/* The fixture's text with one JSON member (a.b) replaced or removed. */
static char *edited(const char *file, const char *k1, const char *k2, json_t *v)
{
    json_t *j = load(file);
    json_t *o = k2 ? json_object_get(j, k1) : j;
    const char *k = k2 ? k2 : k1;
    if (v)
        json_object_set_new(o, k, v);
    else
        json_object_del(o, k);
    char *s = json_dumps(j, 0);
    json_decref(j);
    return s;
}

static void bad_edit(const char *file, const char *k1, const char *k2, json_t *v, const char *want)
{
    char *s = edited(file, k1, k2, v);
    expect_bytes_fail(s, want);
    free(s);
}

static void test_bad_inputs(void **state)
{
    (void)state;
    expect_bytes_fail("", "not a format teebench imports");
    expect_bytes_fail("hello world\n", "not a format teebench imports");
    expect_bytes_fail("[1, 2]", "not a format teebench imports");
    expect_bytes_fail("{\"schema\": \"teebench-env/1\"}", "schema \"teebench-env/1\"");
    expect_bytes_fail("{\"schema\": \"teebench-syscall/2\"}", "not a format teebench imports");
    expect_bytes_fail("{\"tool\": \"wrk\"}", "not a format teebench imports");
    expect_bytes_fail("{\"schema\": \"teebench-syscall/1\", ", "not valid JSON");
    expect_bytes_fail("{\"schema\":\"teebench-result\",\"schema_version\":2}",
                      "schema version 2 is not supported by this teebench (reads 1)");
    /* Truncated real outputs. */
    tb_buf b = {0};
    tb_err e;
    assert_int_equal(tb_file_read(data("http.json"), 1 << 20, &b, &e), 0);
    b.p[b.len / 2] = '\0';
    expect_bytes_fail((const char *)b.p, "not valid JSON");
    tb_buf_clear(&b);
    /* Missing or mistyped members. */
    bad_edit("http.json", "requests", "per_second", NULL, "missing \"requests.per_second\"");
    bad_edit("http.json", "bytes", "per_second", json_string("1"), "is not a number >= 0");
    bad_edit("http.json", "requests", "per_second", json_real(-1), "is not a number >= 0");
    bad_edit("http.json", "latency", NULL, NULL, "missing \"latency\"");
    bad_edit("http.json", "latency", "percentiles_us", json_array(), "percentiles_us");
    bad_edit("syscall.json", "passes", NULL, json_array(), "\"passes\" must be a non-empty array");
    bad_edit("syscall.json", "copies", NULL, json_integer(0), "\"copies\" must be an integer");
    bad_edit("syscall.json", "mode", NULL, NULL, "missing \"mode\"");
    bad_edit("syscall.json", "index", NULL, json_string("high"), "\"index\" is not a number");
    bad_edit("probe.json", "probes", NULL, json_object(), "\"probes\" must be an array");
    bad_edit("probe.json", "probes", NULL,
             json_pack("[{s:s,s:b}]", "name", "cpuid", "available", 1), "missing \"median_ns\"");
    bad_edit("probe.json", "probes", NULL, json_pack("[{s:b}]", "available", 1),
             "needs \"name\" and \"available\"");
    /* CSV: the right header, a bad row; no rows. */
    expect_bytes_fail(TB_BENCH_RESULTS_HEADER "\nno_tee,x,false,false,0,1,,,1,,o,e\n", "line 2");
    expect_bytes_fail(TB_BENCH_RESULTS_HEADER "\n", "has no rows");
    expect_bytes_fail("mode,iteration,other\nx,1,2\n", "in.json");
    /* A label that is not one. */
    tb_import_opts o = {.label = "bad\nlabel"};
    tb_record *r = NULL;
    assert_int_equal(tb_record_import_file(data("syscall.json"), &o, &r, NULL, &e), -1);
    assert_non_null(strstr(e.msg, "label"));
    assert_null(r);
    /* Files and folders. */
    assert_int_equal(tb_record_import_file(data("no-such-file.json"), NULL, &r, NULL, &e), -1);
    assert_non_null(strstr(e.msg, "no-such-file.json"));
    assert_int_equal(tb_record_import_file(data("bench"), NULL, &r, NULL, &e), -1);
    assert_non_null(strstr(e.msg, "without results.csv"));
    assert_null(r);
}

/* ---- the golden imports ----
 *
 * What each input of tests/data/import becomes -- the id, format and label, and every
 * metric's name, unit, direction, workload, SIMULATED mark and samples (to 17
 * digits), sorted by name -- compared with tests/data/workloads/import_metrics.golden,
 * written by the importer before the workloads moved onto one interface: the same
 * file imported again gives the same run with the same numbers, so a store's old
 * imports stay "already stored" and compare with new ones. */

static int by_metric_name(const void *a, const void *b)
{
    return strcmp((*(const tb_metric *const *)a)->name, (*(const tb_metric *const *)b)->name);
}

static void golden_one(tb_buf *out, const char *file, const tb_import_opts *o, const char *title)
{
    tb_record *r = NULL;
    tb_err e = {{0}};
    if (tb_record_import_file(data(file), o, &r, NULL, &e) != 0)
        fail_msg("import %s: %s", file, e.msg);
    const json_t *src = json_object_get(r->extra, "source");
    assert_int_equal(tb_buf_printf(out,
                                   "== %s\nid %s\nformat %s\nlabel %s\nstatus %s\nsimulated %d\n",
                                   title, r->id, json_string_value(json_object_get(src, "format")),
                                   r->label, r->status, r->simulated),
                     0);
    const tb_metric **ms = calloc(r->n_metrics + 1, sizeof *ms);
    assert_non_null(ms);
    for (size_t i = 0; i < r->n_metrics; i++)
        ms[i] = &r->metrics[i];
    qsort(ms, r->n_metrics, sizeof *ms, by_metric_name);
    for (size_t i = 0; i < r->n_metrics; i++) {
        const tb_metric *m = ms[i];
        assert_int_equal(tb_buf_printf(out, "%s %s %s %s %s n=%zu", m->name, m->unit,
                                       m->better == TB_BETTER_HIGHER ? "higher" : "lower",
                                       m->workload, m->simulated ? "sim" : "-", m->n),
                         0);
        for (size_t k = 0; k < m->n; k++)
            assert_int_equal(tb_buf_printf(out, " %.17g", m->samples[k]), 0);
        assert_int_equal(tb_buf_puts(out, "\n"), 0);
    }
    free(ms);
    tb_record_free(r);
}

static void test_import_golden(void **state)
{
    (void)state;
    tb_buf got = {0}, want = {0};
    tb_import_opts nginx = {.target = "nginx"}, host = {.label = "Host"};
    golden_one(&got, "http.json", NULL, "http.json");
    golden_one(&got, "http.json", &nginx, "http.json target nginx");
    golden_one(&got, "http.json", &host, "http.json label Host");
    golden_one(&got, "http_rate.json", NULL, "http_rate.json");
    golden_one(&got, "syscall.json", NULL, "syscall.json");
    golden_one(&got, "syscall_getpid_c2.json", NULL, "syscall_getpid_c2.json");
    golden_one(&got, "probe.json", NULL, "probe.json");
    golden_one(&got, "bench/20261130T191707Z", NULL, "bench/20261130T191707Z");
    golden_one(&got, "bench_results.csv", NULL, "bench_results.csv");
    golden_one(&got, "source_results.csv", NULL, "source_results.csv");
    char path[1024];
    snprintf(path, sizeof path, "%s/../workloads/import_metrics.golden", data_dir);
    tb_err e;
    if (tb_file_read(path, 1 << 22, &want, &e) < 0)
        fail_msg("%s", e.msg);
    const char *g = got.p ? (const char *)got.p : "", *w = want.p ? (const char *)want.p : "";
    size_t line = 1, i = 0;
    while (g[i] && g[i] == w[i]) {
        line += g[i] == '\n';
        i++;
    }
    if (g[i] != w[i]) {
        size_t s = i;
        while (s > 0 && g[s - 1] != '\n')
            s--;
        fail_msg("import_metrics.golden line %zu: got \"%.*s\", want \"%.*s\"", line,
                 (int)strcspn(g + s, "\n"), g + s, (int)strcspn(w + s, "\n"), w + s);
    }
    tb_buf_clear(&got);
    tb_buf_clear(&want);
}

int main(void)
{
    const char *src = getenv("TEEBENCH_SOURCE_DIR");
    snprintf(data_dir, sizeof data_dir, "%s/tests/data/import", src ? src : ".");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_http),
        cmocka_unit_test(test_syscall),
        cmocka_unit_test(test_probe),
        cmocka_unit_test(test_bench_dir),
        cmocka_unit_test(test_results_csv),
        cmocka_unit_test(test_result_document),
        cmocka_unit_test(test_results_csv_large),
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_import_golden),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
