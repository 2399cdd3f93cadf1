/* Unit tests for src/workloads/storage: the job set (CVM_eval's libaio.fio), the
 * parameters per profile and their refusals, the metric table and the names a plan
 * produces, fio's command line (direct=1 and the rest of CVM_eval's global options,
 * io_uring's fixedbufs and registerfiles, one stonewalled job each), fio 3.33's real JSON
 * output parsed (tests/data/workloads/tools, captured with the same command line) and
 * what the parser refuses, the teebench-storage/1 document written and read back (every
 * member checked before the first sample), and the place checks that refuse before
 * anything is written: a missing fio (with the package), tmpfs, a directory others may
 * write, too little room, something that is not a block device; and the suite's quick
 * profile leaving storage and kv out unless named (TB_WL_NOT_QUICK). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/file.h"
#include "suite/suite.h"
#include "workloads/http.h"
#include "workloads/internal.h"
#include "workloads/kv.h"
#include "workloads/notary.h"
#include "workloads/storage.h"

typedef struct kept {
    char names[256][160];
    double values[256];
    size_t n;
} kept;

static int keep(void *ctx, const char *name, double v, int simulated, const char *note, tb_err *err)
{
    kept *k = ctx;
    (void)simulated;
    (void)err;
    tb_wl_match m;
    if (!tb_wl_metric_find(name, &m))
        fail_msg("%s: in no table", name);
    assert_ptr_equal(m.workload, &tb_wl_storage);
    assert_int_equal(m.metric->category, TB_CAT_STORAGE);
    assert_non_null(strstr(note, "fio job "));
    assert_true(k->n < 256);
    snprintf(k->names[k->n], sizeof k->names[0], "%s", name);
    k->values[k->n++] = v;
    return 0;
}

static double value_of(const kept *k, const char *name)
{
    for (size_t i = 0; i < k->n; i++)
        if (!strcmp(k->names[i], name))
            return k->values[i];
    fail_msg("no sample %s", name);
    return NAN;
}

static void read_file(const char *rel, tb_buf *out)
{
    char path[PATH_MAX];
    const char *src = getenv("TEEBENCH_SOURCE_DIR");
    snprintf(path, sizeof path, "%s/tests/data/workloads/tools/%s", src ? src : ".", rel);
    tb_err e;
    if (tb_file_read(path, 1 << 22, out, &e) < 0)
        fail_msg("%s", e.msg);
}

static void test_jobs(void **state)
{
    (void)state;
    /* CVM_eval's config/fio/libaio.fio: alat 4k QD1, bw 128k QD128 x4, iops 4k QD32 x4 */
    static const char *const names[] = {"lat-randread",  "lat-randwrite",  "lat-read",
                                        "lat-write",     "bw-read",        "bw-write",
                                        "iops-randread", "iops-randwrite", "iops-randrw"};
    for (size_t i = 0; i < TB_WL_FIO_JOBS; i++) {
        const tb_wl_fio_job *j = &tb_wl_fio_jobs[i];
        assert_string_equal(j->name, names[i]);
        assert_ptr_equal(tb_wl_fio_job_find(names[i]), j);
        if (!strncmp(j->name, "lat-", 4))
            assert_true(j->bs == 4096 && j->iodepth == 1 && j->numjobs == 1);
        else if (!strncmp(j->name, "bw-", 3))
            assert_true(j->bs == 131072 && j->iodepth == 128 && j->numjobs == 4);
        else
            assert_true(j->bs == 4096 && j->iodepth == 32 && j->numjobs == 4);
        assert_string_equal(j->rw, strchr(j->name, '-') + 1);
    }
    const tb_wl_fio_job *rw = tb_wl_fio_job_find("iops-randrw");
    assert_int_equal(rw->rwmixread, 70);
    assert_true(tb_wl_fio_job_reads(rw) && tb_wl_fio_job_writes(rw));
    assert_true(tb_wl_fio_job_reads(tb_wl_fio_job_find("lat-randread")));
    assert_false(tb_wl_fio_job_writes(tb_wl_fio_job_find("lat-randread")));
    assert_false(tb_wl_fio_job_reads(tb_wl_fio_job_find("bw-write")));
    assert_null(tb_wl_fio_job_find("iops-rwmixwrite"));
}

static void test_params(void **state)
{
    (void)state;
    tb_wl_storage_params p;
    tb_err e = {{0}};
    assert_int_equal(tb_wl_params_init(&tb_wl_storage, &p, TB_WL_QUICK, &e), 0);
    assert_true(p.engines == TB_WL_FIO_LIBAIO && p.size == 64 << 20 && p.runtime_s == 1);
    assert_int_equal(p.jobs, 1u << 0 | 1u << 4 | 1u << 7);
    assert_string_equal(p.fio_bin, "fio");
    assert_string_equal(p.dir, "");
    assert_int_equal(tb_wl_params_init(&tb_wl_storage, &p, TB_WL_STANDARD, &e), 0);
    assert_true(p.jobs == (1u << TB_WL_FIO_JOBS) - 1 && p.size == 1 << 30 && p.ramp_s == 0.5);
    assert_int_equal(tb_wl_params_init(&tb_wl_storage, &p, TB_WL_SEED, &e), 0);
    /* CVM_eval's runtime=30, ramp_time=20, libaio.fio and iou.fio */
    assert_true(p.runtime_s == 30 && p.ramp_s == 20);
    assert_int_equal(p.engines, TB_WL_FIO_LIBAIO | TB_WL_FIO_IO_URING);
    int place = 0;
    assert_int_equal(tb_wl_params_set(&tb_wl_storage, &p, "size", "512M", NULL, &e), 0);
    assert_true(p.size == 512ll << 20);
    assert_int_equal(tb_wl_params_set(&tb_wl_storage, &p, "size", "2GiB", NULL, &e), 0);
    assert_true(p.size == 2ll << 30);
    assert_int_equal(tb_wl_params_set(&tb_wl_storage, &p, "dir", "/var/tmp", &place, &e), 0);
    assert_int_equal(place, 1); /* where, not how much */
    assert_int_equal(tb_wl_params_set(&tb_wl_storage, &p, "jobs", "bw-read,lat-write", NULL, &e),
                     0);
    assert_int_equal(p.jobs, 1u << 3 | 1u << 4);
    static const char *const bad[][3] = {
        {"size", "512k", "storage.size: 512k is out of range (1M .. 1024T)"},
        {"size", "1X", "storage.size: '1X' is not a size (e.g. 64M, 1G)"},
        {"size", "-1G", "storage.size: '-1G' is not a size"},
        {"size", "+1G", "storage.size: '+1G' is not a size"},
        {"size", "1GB ", "storage.size: '1GB ' is not a size"},
        {"size", "99999999999999999999", "storage.size: 99999999999999999999 is out of range"},
        {"dir", "tmp", "storage.dir: 'tmp' is not an absolute path"},
        {"device", "/dev/vdb", "storage.dir and storage.device: set one"},
        {"engines", "posixaio", "storage.engines: unknown engine 'posixaio' (libaio, io_uring)"},
        {"jobs", "lat-randrw", "storage.jobs: unknown job 'lat-randrw' (lat-randread,"},
        {"runtime", "0", "storage.runtime: 0 is out of range"},
        {"fio", "bin/fio", "storage.fio: 'bin/fio' is neither a name looked up in PATH"},
    };
    tb_wl_storage_params before = p;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(tb_wl_params_set(&tb_wl_storage, &p, bad[i][0], bad[i][1], NULL, &e), -1);
        if (!strstr(e.msg, bad[i][2]))
            fail_msg("%s=%s: \"%s\", want \"%s\"", bad[i][0], bad[i][1], e.msg, bad[i][2]);
        assert_memory_equal(&p, &before, sizeof p);
    }
    char t[32];
    tb_wl_fmt_size(1ll << 30, t, sizeof t);
    assert_string_equal(t, "1G");
    tb_wl_fmt_size(3 << 20, t, sizeof t);
    assert_string_equal(t, "3M");
    tb_wl_fmt_size(1000, t, sizeof t);
    assert_string_equal(t, "1000");
}

typedef struct names {
    char v[256][160];
    size_t n;
} names;

static int collect(void *ctx, const char *name)
{
    names *n = ctx;
    assert_true(n->n < 256);
    snprintf(n->v[n->n++], sizeof n->v[0], "%s", name);
    return 0;
}

static void test_metrics(void **state)
{
    (void)state;
    tb_wl_storage_params p;
    tb_err e;
    names n = {0};
    assert_int_equal(tb_wl_params_init(&tb_wl_storage, &p, TB_WL_SEED, &e), 0);
    assert_int_equal(tb_wl_storage.plan_metrics(&p, collect, &n), 0);
    assert_int_equal(n.n, 2 * (8 * 5 + 2 * 5)); /* 2 engines; randrw per direction */
    assert_string_equal(n.v[0], "storage.libaio.lat-randread.iops");
    assert_string_equal(n.v[50], "storage.io_uring.lat-randread.iops");
    for (size_t i = 0; i < n.n; i++) {
        tb_wl_match m;
        assert_int_equal(tb_wl_metric_find(n.v[i], &m), 1);
        assert_ptr_equal(m.workload, &tb_wl_storage);
        const char *unit = m.metric->unit;
        if (strstr(n.v[i], ".clat."))
            assert_true(!strcmp(unit, "us") && m.metric->better == TB_WL_LOWER);
        else
            assert_true((!strcmp(unit, "IOPS") || !strcmp(unit, "B/s")) &&
                        m.metric->better == TB_WL_HIGHER);
    }
    tb_wl_match m;
    assert_int_equal(tb_wl_metric_find("storage.io_uring.iops-randrw.write.clat.p99.9", &m), 1);
    assert_string_equal(m.part, "io_uring");
    assert_int_equal(tb_wl_metric_find("storage.libaio.iops-randrw.iops", &m), 0);
    assert_int_equal(tb_wl_metric_find("storage.libaio.lat-read.read.iops", &m), 0);
    /* steps: one per engine, every selected job in it */
    tb_wl_step st[TB_WL_MAX_STEPS];
    assert_int_equal(tb_wl_storage.steps(&p, st), 2);
    assert_string_equal(st[1].target, "io_uring");
    assert_true(st[0].estimate_s > 9 * 50);
    n.n = 0;
    assert_int_equal(tb_wl_params_set(&tb_wl_storage, &p, "jobs", "iops-randrw", NULL, &e), 0);
    assert_int_equal(tb_wl_params_set(&tb_wl_storage, &p, "engines", "io_uring", NULL, &e), 0);
    assert_int_equal(tb_wl_storage.plan_metrics(&p, collect, &n), 0);
    assert_int_equal(n.n, 10);
    assert_string_equal(n.v[0], "storage.io_uring.iops-randrw.read.iops");
    assert_int_equal(tb_wl_storage.flags & TB_WL_NOT_QUICK, TB_WL_NOT_QUICK);
}

static int has_word(char **argv, const char *w)
{
    for (size_t i = 0; argv[i]; i++)
        if (!strcmp(argv[i], w))
            return (int)i;
    return -1;
}

static void test_argv(void **state)
{
    (void)state;
    tb_wl_storage_place st;
    memset(&st, 0, sizeof st);
    tb_err e;
    assert_int_equal(tb_wl_params_init(&tb_wl_storage, &st.p, TB_WL_STANDARD, &e), 0);
    snprintf(st.p.fio_bin, sizeof st.p.fio_bin, "/opt/fio/bin/fio");
    snprintf(st.path, sizeof st.path, "/data/teebench-fio.1.2");
    st.size = 1 << 30;
    char *argv[128], text[8192];
    assert_int_equal(
        tb_wl_storage_argv(&st, TB_WL_FIO_LIBAIO, "/w/out.json", argv, 128, text, sizeof text), 0);
    assert_string_equal(argv[0], "/opt/fio/bin/fio");
    static const char *const global[] = {"--output-format=json",
                                         "--output=/w/out.json",
                                         "--filename=/data/teebench-fio.1.2",
                                         "--size=1073741824",
                                         "--allow_file_create=0",
                                         "--direct=1",
                                         "--ioengine=libaio",
                                         "--thread=1",
                                         "--norandommap=1",
                                         "--randrepeat=0",
                                         "--time_based=1",
                                         "--runtime=1000ms",
                                         "--ramp_time=500ms",
                                         "--group_reporting=1"};
    for (size_t i = 0; i < sizeof global / sizeof global[0]; i++)
        if (has_word(argv, global[i]) < 1)
            fail_msg("no %s", global[i]);
    assert_true(has_word(argv, "--fixedbufs=1") < 0);
    int first = has_word(argv, "--name=lat-randread");
    assert_true(first > has_word(argv, "--group_reporting=1")); /* globals first */
    assert_string_equal(argv[first + 1], "--stonewall");
    assert_string_equal(argv[first + 2], "--bs=4096");
    assert_string_equal(argv[first + 3], "--rw=randread");
    assert_string_equal(argv[first + 4], "--iodepth=1");
    assert_string_equal(argv[first + 5], "--numjobs=1");
    int mixed = has_word(argv, "--name=iops-randrw");
    assert_string_equal(argv[mixed + 6], "--rwmixread=70");
    assert_null(argv[mixed + 7]);
    size_t stonewalls = 0;
    for (size_t i = 0; argv[i]; i++)
        stonewalls += !strcmp(argv[i], "--stonewall");
    assert_int_equal(stonewalls, 9);
    /* io_uring as CVM_eval's iou.fio; a device: no file to keep fio from making */
    st.device = 1;
    assert_int_equal(
        tb_wl_storage_argv(&st, TB_WL_FIO_IO_URING, "/w/o.json", argv, 128, text, sizeof text), 0);
    assert_true(has_word(argv, "--ioengine=io_uring") > 0 && has_word(argv, "--fixedbufs=1") > 0 &&
                has_word(argv, "--registerfiles=1") > 0);
    assert_true(has_word(argv, "--allow_file_create=0") < 0);
    /* too small a buffer is an error, never a cut command line */
    assert_int_equal(tb_wl_storage_argv(&st, TB_WL_FIO_LIBAIO, "/w/o.json", argv, 128, text, 200),
                     -1);
    assert_int_equal(
        tb_wl_storage_argv(&st, TB_WL_FIO_LIBAIO, "/w/o.json", argv, 10, text, sizeof text), -1);
}

/* A parsed run's job by name. */
static const json_t *job_of(const json_t *run, const char *name)
{
    size_t i;
    const json_t *j;
    json_array_foreach(
        json_object_get(run, "jobs"), i,
        j) if (!strcmp(json_string_value(json_object_get(j, "name")), name)) return j;
    fail_msg("no job %s", name);
    return NULL;
}

static double num(const json_t *o, const char *a, const char *b, const char *c)
{
    const json_t *v = json_object_get(json_object_get(o, a), b);
    if (c)
        v = json_object_get(v, c);
    assert_true(json_is_number(v));
    return json_number_value(v);
}

static void test_parse_real(void **state)
{
    (void)state;
    static const char *const files[] = {"fio-3.33-libaio.json", "fio-3.33-io_uring.json"};
    for (size_t f = 0; f < 2; f++) {
        tb_buf b = {0};
        read_file(files[f], &b);
        json_t *run = NULL;
        tb_err e;
        const char *engine = f ? "io_uring" : "libaio";
        if (tb_wl_fio_parse((const char *)b.p, b.len, engine, &run, &e) < 0)
            fail_msg("%s: %s", files[f], e.msg);
        assert_string_equal(json_string_value(json_object_get(run, "engine")), engine);
        assert_string_equal(json_string_value(json_object_get(run, "fio")), "fio-3.33");
        assert_int_equal(json_array_size(json_object_get(run, "jobs")), 9);
        for (size_t i = 0; i < TB_WL_FIO_JOBS; i++) {
            const tb_wl_fio_job *fj = &tb_wl_fio_jobs[i];
            const json_t *j = job_of(run, fj->name);
            assert_int_equal(json_integer_value(json_object_get(j, "iodepth")), fj->iodepth);
            static const char *const dirs[] = {"read", "write"};
            for (int d = 0; d < 2; d++) {
                int does = d ? tb_wl_fio_job_writes(fj) : tb_wl_fio_job_reads(fj);
                assert_int_equal(json_object_get(j, dirs[d]) != NULL, does);
                if (!does)
                    continue;
                assert_true(num(j, dirs[d], "iops", NULL) > 0);
                assert_true(num(j, dirs[d], "bw_bytes", NULL) > 0);
                double p50 = num(j, dirs[d], "clat_us", "p50"),
                       p99 = num(j, dirs[d], "clat_us", "p99"),
                       p999 = num(j, dirs[d], "clat_us", "p99.9");
                assert_true(p50 > 0 && p50 <= p99 && p99 <= p999);
            }
        }
        /* the figures are fio's: iops and bw_bytes as they are, clat in us from ns */
        json_error_t je;
        json_t *raw = json_loadb((const char *)b.p, b.len, 0, &je);
        const json_t *r0 = json_object_get(json_array_get(json_object_get(raw, "jobs"), 0), "read");
        const json_t *j0 = job_of(run, "lat-randread");
        assert_true(num(j0, "read", "iops", NULL) ==
                    json_number_value(json_object_get(r0, "iops")));
        assert_true(num(j0, "read", "bw_bytes", NULL) ==
                    json_number_value(json_object_get(r0, "bw_bytes")));
        double p99ns = json_number_value(json_object_get(
            json_object_get(json_object_get(r0, "clat_ns"), "percentile"), "99.000000"));
        assert_true(fabs(num(j0, "read", "clat_us", "p99") - p99ns / 1000) < 1e-9);
        json_decref(raw);
        json_decref(run);
        tb_buf_clear(&b);
    }
}

static void expect_parse_error(const char *text, const char *want)
{
    json_t *run = NULL;
    tb_err e = {{0}};
    assert_int_equal(tb_wl_fio_parse(text, strlen(text), "libaio", &run, &e), -1);
    assert_null(run);
    if (!strstr(e.msg, want))
        fail_msg("\"%s\", want \"%s\"", e.msg, want);
}

/* A real output with one job edited by f(job). */
static char *edited(void (*f)(json_t *))
{
    tb_buf b = {0};
    read_file("fio-3.33-libaio.json", &b);
    json_error_t je;
    json_t *doc = json_loadb((const char *)b.p, b.len, 0, &je);
    tb_buf_clear(&b);
    f(json_array_get(json_object_get(doc, "jobs"), 2));
    char *s = json_dumps(doc, 0);
    json_decref(doc);
    return s;
}

static void set_error(json_t *j)
{
    json_object_set_new(j, "error", json_integer(5));
}
static void drop_pct(json_t *j)
{
    json_object_del(json_object_get(json_object_get(j, "read"), "clat_ns"), "percentile");
}
static void no_reads(json_t *j)
{
    json_object_set_new(json_object_get(j, "read"), "io_bytes", json_integer(0));
}
static void rename_job(json_t *j)
{
    json_object_set_new(j, "jobname", json_string("alat read"));
}

static void test_parse_bad(void **state)
{
    (void)state;
    expect_parse_error("", "no JSON document");
    expect_parse_error("fio: pid=1, err=22/file:filesetup.c\n", "no JSON document");
    expect_parse_error("{\"jobs\": 3}", "no \"jobs\"");
    expect_parse_error("{\"jobs\": []}", "no \"jobs\"");
    expect_parse_error("{\"jobs\": [{}", "not JSON");
    static const struct {
        void (*f)(json_t *);
        const char *want;
    } cases[] = {
        {set_error, "fio job lat-read failed: error 5 (Input/output error)"},
        {drop_pct, "job lat-read: read.clat_ns has no percentiles 50, 99 and 99.9"},
        {no_reads, "job lat-read did no reads"},
        {rename_job, "a job that is not of the set (\"alat read\")"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *s = edited(cases[i].f);
        expect_parse_error(s, cases[i].want);
        free(s);
    }
    /* fio's notes before the document (a line each) are skipped */
    tb_buf b = {0};
    assert_int_equal(tb_buf_puts(&b, "note: both iodepth >= 1 and synchronous I/O engine are "
                                     "selected, queue depth will be capped at 1\n"),
                     0);
    tb_buf real = {0};
    read_file("fio-3.33-libaio.json", &real);
    assert_int_equal(tb_buf_append(&b, real.p, real.len), 0);
    json_t *run = NULL;
    tb_err e;
    assert_int_equal(tb_wl_fio_parse((const char *)b.p, b.len, "libaio", &run, &e), 0);
    json_decref(run);
    tb_buf_clear(&b);
    tb_buf_clear(&real);
}

/* A document of both captured runs, as teebench storage --json writes it. */
static json_t *both_runs_doc(void)
{
    json_t *runs = json_array();
    static const char *const files[] = {"fio-3.33-libaio.json", "fio-3.33-io_uring.json"};
    for (size_t f = 0; f < 2; f++) {
        tb_buf b = {0};
        read_file(files[f], &b);
        json_t *run = NULL;
        tb_err e;
        assert_int_equal(
            tb_wl_fio_parse((const char *)b.p, b.len, f ? "io_uring" : "libaio", &run, &e), 0);
        json_array_append_new(runs, run);
        tb_buf_clear(&b);
    }
    tb_wl_storage_place st;
    memset(&st, 0, sizeof st);
    tb_err e;
    assert_int_equal(tb_wl_params_init(&tb_wl_storage, &st.p, TB_WL_SEED, &e), 0);
    snprintf(st.fio, sizeof st.fio, "fio-3.33");
    snprintf(st.path, sizeof st.path, "/data/teebench-fio.1.2");
    snprintf(st.fs, sizeof st.fs, "ext4");
    st.size = 64 << 20;
    json_t *d = tb_wl_storage_doc(&st, runs);
    assert_non_null(d);
    json_object_set_new(d, "schema", json_string(TB_WL_STORAGE_SCHEMA));
    json_object_set_new(d, "started_at", json_string("2026-12-02T00:38:00Z"));
    return d;
}

static int read_doc(const json_t *d, kept *k, tb_wl_doc_info *info, tb_err *e)
{
    memset(k, 0, sizeof *k);
    tb_wl_sink sink = {.ctx = k, .sample = keep, .dir_fd = -1};
    assert_ptr_equal(tb_workload_for_doc(d), &tb_wl_storage);
    return tb_wl_storage.doc_read(d, NULL, &sink, info, e);
}

static void test_doc(void **state)
{
    (void)state;
    json_t *d = both_runs_doc();
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(d, "target"), "filesystem")), "ext4");
    assert_true(json_is_true(json_object_get(json_object_get(d, "options"), "direct")));
    kept *k = calloc(1, sizeof *k);
    tb_wl_doc_info info;
    tb_err e;
    assert_int_equal(read_doc(d, k, &info, &e), 0);
    assert_int_equal(k->n, 100);
    assert_string_equal(info.started, "2026-12-02T00:38:00Z");
    /* the names a plan makes are the names the reader gives */
    tb_wl_storage_params p;
    names n = {0};
    assert_int_equal(tb_wl_params_init(&tb_wl_storage, &p, TB_WL_SEED, &e), 0);
    assert_int_equal(tb_wl_storage.plan_metrics(&p, collect, &n), 0);
    for (size_t i = 0; i < n.n; i++)
        assert_string_equal(k->names[i], n.v[i]);
    const json_t *run = json_array_get(json_object_get(d, "runs"), 1);
    assert_true(value_of(k, "storage.io_uring.iops-randrw.write.iops") ==
                num(job_of(run, "iops-randrw"), "write", "iops", NULL));
    assert_true(value_of(k, "storage.io_uring.bw-write.bw") ==
                num(job_of(run, "bw-write"), "write", "bw_bytes", NULL));
    assert_true(value_of(k, "storage.io_uring.lat-read.clat.p99.9") ==
                num(job_of(run, "lat-read"), "read", "clat_us", "p99.9"));

    /* refused, and not one sample given before */
    static const struct {
        const char *path, *want;
    } bad[] = {
        {"runs", "\"runs\" must be a non-empty array"},
        {"runs.1.engine", "runs[1] needs \"engine\" and \"jobs\""},
        {"runs.1.jobs.8.write", "runs[1].jobs[8] (iops-randrw): no \"write\""},
        {"runs.1.jobs.8.write.clat_us", "missing \"clat_us.p50\""},
        {"runs.1.jobs.8.name", "runs[1].jobs[8]: unknown job \"\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *c = json_deep_copy(d);
        char path[128];
        snprintf(path, sizeof path, "%s", bad[i].path);
        json_t *o = c;
        char *save = NULL, *last = NULL;
        for (char *t = strtok_r(path, ".", &save); t; t = strtok_r(NULL, ".", &save)) {
            if (last)
                o = json_is_array(o) ? json_array_get(o, strtoul(last, NULL, 10))
                                     : json_object_get(o, last);
            last = t;
        }
        json_object_del(o, last);
        assert_int_equal(read_doc(c, k, &info, &e), -1);
        if (!strstr(e.msg, bad[i].want))
            fail_msg("%s: \"%s\", want \"%s\"", bad[i].path, e.msg, bad[i].want);
        assert_int_equal(k->n, 0);
        json_decref(c);
    }
    json_t *c = json_deep_copy(d);
    json_object_set_new(
        json_array_get(json_object_get(json_array_get(json_object_get(c, "runs"), 0), "jobs"), 0),
        "name", json_string("iops-rwmixwrite"));
    assert_int_equal(read_doc(c, k, &info, &e), -1); /* CVM_eval's, not in this set */
    assert_non_null(strstr(e.msg, "runs[0].jobs[0]: unknown job \"iops-rwmixwrite\""));
    assert_int_equal(k->n, 0);
    json_decref(c);
    free(k);
    json_decref(d);
}

/* ---- the place ---- */

typedef struct place_env {
    char work[PATH_MAX], dir[400];
    tb_wl_sink sink;
} place_env;

static int place_setup(void **state)
{
    place_env *pe = calloc(1, sizeof *pe);
    tb_err e;
    pe->sink.dir_fd = -1;
    if (tb_wl_workdir_open("test-storage", pe->work, sizeof pe->work, &pe->sink, &e) < 0)
        fail_msg("%s", e.msg);
    /* a directory on a disk: the build directory's filesystem, not $TMPDIR's (tmpfs?) */
    char cwd[300];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(pe->dir, sizeof pe->dir, "%s/tb-storage-test.XXXXXX", cwd);
    assert_non_null(mkdtemp(pe->dir));
    *state = pe;
    return 0;
}

static int place_teardown(void **state)
{
    place_env *pe = *state;
    tb_wl_workdir_remove(&pe->sink);
    rmdir(pe->dir);
    free(pe);
    return 0;
}

static size_t entries(const char *dir)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    for (struct dirent *de; d && (de = readdir(d));)
        n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

static int open_place(place_env *pe, tb_wl_storage_params *p, int *skip, tb_err *e)
{
    tb_wl_storage_place st;
    int rc = tb_wl_storage_open(&st, p, &pe->sink, skip, e);
    if (rc == 0)
        tb_wl_storage_close(&st);
    return rc;
}

static void test_place(void **state)
{
    place_env *pe = *state;
    tb_wl_storage_params p;
    tb_err e = {{0}};
    int skip = 0;
    assert_int_equal(tb_wl_params_init(&tb_wl_storage, &p, TB_WL_QUICK, &e), 0);
    /* no fio: skipped with the package */
    snprintf(p.fio_bin, sizeof p.fio_bin, "/nonexistent/fio");
    assert_int_equal(open_place(pe, &p, &skip, &e), -1);
    assert_int_equal(skip, 1);
    assert_non_null(strstr(e.msg, "fio is not installed (/nonexistent/fio not found): install "
                                  "the package fio"));
    snprintf(p.fio_bin, sizeof p.fio_bin, "fio-that-is-not-there");
    assert_int_equal(open_place(pe, &p, &skip, &e), -1);
    assert_non_null(strstr(e.msg, "not found in PATH): install the package fio"));
    /* a stand-in that is there (the place is checked before fio is asked anything) */
    snprintf(p.fio_bin, sizeof p.fio_bin, "/bin/true");
    snprintf(p.dir, sizeof p.dir, "%s", pe->dir);
    chmod(pe->dir, 0777);
    assert_int_equal(open_place(pe, &p, &skip, &e), -1);
    assert_int_equal(skip, 1);
    assert_non_null(strstr(e.msg, "may be written by others and is not sticky"));
    chmod(pe->dir, 0700);
    p.size = 1ll << 50;
    assert_int_equal(open_place(pe, &p, &skip, &e), -1);
    assert_int_equal(skip, 1);
    assert_non_null(strstr(e.msg, "free; fio's file needs 1024T and 64M to spare"));
    assert_int_equal(entries(pe->dir), 0); /* refused before anything was written */
    p.size = 1 << 20;
    /* /bin/true --version says nothing: the file made for the direct-I/O check is gone */
    skip = 0;
    assert_int_equal(open_place(pe, &p, &skip, &e), -1);
    assert_non_null(strstr(e.msg, "--version"));
    assert_int_equal(skip, 0);
    assert_int_equal(entries(pe->dir), 0);
    struct stat sb;
    if (stat("/dev/shm", &sb) == 0 && S_ISDIR(sb.st_mode) && access("/dev/shm", W_OK) == 0) {
        snprintf(p.dir, sizeof p.dir, "/dev/shm");
        assert_int_equal(open_place(pe, &p, &skip, &e), -1);
        if (strstr(e.msg, "tmpfs"))
            assert_non_null(strstr(e.msg, "is on tmpfs: memory, not a disk"));
    }
    snprintf(p.dir, sizeof p.dir, "%s/none", pe->dir);
    assert_int_equal(open_place(pe, &p, &skip, &e), -1);
    assert_int_equal(skip, 1);
    assert_non_null(strstr(e.msg, "No such file or directory"));
    p.dir[0] = 0;
    snprintf(p.device, sizeof p.device, "/dev/null");
    assert_int_equal(open_place(pe, &p, &skip, &e), -1);
    assert_int_equal(skip, 1);
    assert_non_null(strstr(e.msg, "/dev/null is not a block device"));
}

/* storage and kv (TB_WL_NOT_QUICK) are left out of the quick profile unless named, and run
   in the others. */
static void test_not_quick(void **state)
{
    (void)state;
    tb_suite_plan p;
    tb_err e;
    assert_int_equal(tb_suite_plan_init(&p, "quick", &e), 0);
    assert_true(tb_suite_plan_enabled(&p, &tb_wl_http) && tb_suite_plan_enabled(&p, &tb_wl_notary));
    assert_false(tb_suite_plan_enabled(&p, &tb_wl_storage) || tb_suite_plan_enabled(&p, &tb_wl_kv));
    assert_int_equal(tb_suite_plan_select(&p, "kv", &e), 0);
    assert_true(tb_suite_plan_enabled(&p, &tb_wl_kv) && !tb_suite_plan_enabled(&p, &tb_wl_storage));
    assert_int_equal(tb_suite_plan_select(&p, "all", &e), 0);
    assert_true(tb_suite_plan_enabled(&p, &tb_wl_storage) && tb_suite_plan_enabled(&p, &tb_wl_kv));
    json_t *doc = json_pack("{s:{s:{}}}", "workloads", "storage");
    assert_int_equal(tb_suite_plan_init(&p, "quick", &e), 0);
    assert_int_equal(tb_suite_plan_apply_json(&p, doc, &e), 0);
    assert_true(tb_suite_plan_enabled(&p, &tb_wl_storage) &&
                !tb_suite_plan_enabled(&p, &tb_wl_http));
    json_decref(doc);
    for (const char *const *pr = (const char *const[]){"standard", "seed", NULL}; *pr; pr++) {
        assert_int_equal(tb_suite_plan_init(&p, *pr, &e), 0);
        assert_true(tb_suite_plan_enabled(&p, &tb_wl_storage) &&
                    tb_suite_plan_enabled(&p, &tb_wl_kv));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jobs),
        cmocka_unit_test(test_params),
        cmocka_unit_test(test_metrics),
        cmocka_unit_test(test_argv),
        cmocka_unit_test(test_parse_real),
        cmocka_unit_test(test_parse_bad),
        cmocka_unit_test(test_doc),
        cmocka_unit_test_setup_teardown(test_place, place_setup, place_teardown),
        cmocka_unit_test(test_not_quick),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
