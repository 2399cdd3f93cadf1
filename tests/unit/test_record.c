/* Unit tests for src/record: a new record's defaults, metrics (names, units,
 * directions, finite samples), the JSON round trip, strict validation of result
 * documents (other schema or version, truncation, wrong types, duplicates,
 * invalid names, unknown members), atomic file writing and "-" to stdout, and the
 * default label from `teebench env --json` facts, and the TEE kind and attestation
 * evidence of a run (recorded machines' env documents, what extra says). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/file.h"
#include "record/internal.h"
#include "record/record.h"
#include "env_test_util.h"
#include "sys/env.h"

static int uuid_shape(const char *s)
{
    if (strlen(s) != 36)
        return 0;
    for (int i = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-')
                return 0;
        } else if (!strchr("0123456789abcdef", s[i])) {
            return 0;
        }
    }
    return 1;
}

static void test_new_defaults(void **state)
{
    (void)state;
    tb_err e;
    tb_record *a = tb_record_new(&e), *b = tb_record_new(&e);
    assert_non_null(a);
    assert_non_null(b);
    assert_true(uuid_shape(a->id));
    assert_int_equal(a->id[14], '4');           /* version 4 */
    assert_non_null(strchr("89ab", a->id[19])); /* RFC variant */
    assert_string_not_equal(a->id, b->id);
    assert_string_equal(a->status, "complete");
    assert_string_equal(a->teebench_version, TEEBENCH_VERSION);
    assert_int_equal(strlen(a->started), 20);
    assert_int_equal(a->started[10], 'T');
    assert_int_equal(a->started[19], 'Z');
    assert_string_equal(a->finished, "");
    assert_true(json_is_null(a->env));
    assert_true(json_is_array(a->commands) && json_array_size(a->commands) == 0);
    assert_true(json_is_object(a->versions) && json_object_size(a->versions) == 0);
    assert_true(json_is_object(a->extra) && json_object_size(a->extra) == 0);
    assert_int_equal(a->n_metrics, 0);
    assert_int_equal(a->simulated, 0);
    tb_record_free(a);
    tb_record_free(b);
    tb_record_free(NULL);
    /* the unnamed variant: the same defaults, no id drawn (its reader sets one) */
    tb_record *u = tb_record_new_unnamed(&e);
    assert_non_null(u);
    assert_string_equal(u->id, "");
    assert_string_equal(u->status, "complete");
    assert_true(json_is_null(u->env));
    tb_record_free(u);
}

/* CPU seconds of this process (the machine may be shared: wall time is not ours). */
static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

#define MANY_METRICS 100000

/* A result document with MANY_METRICS metrics "m.<i>" of two samples each. */
static json_t *many_metrics_doc(void)
{
    tb_err e;
    tb_record *r = tb_record_new(&e);
    assert_non_null(r);
    json_t *doc = tb_record_to_json(r);
    tb_record_free(r);
    assert_non_null(doc);
    json_t *ms = json_object_get(doc, "metrics");
    for (int i = 0; i < MANY_METRICS; i++) {
        char name[32];
        snprintf(name, sizeof name, "m.%d", i);
        json_t *m =
            json_pack("{s:s, s:s, s:s, s:s, s:b, s:[f,f]}", "name", name, "unit", "ms", "better",
                      "lower", "workload", "x", "simulated", 0, "samples", 1.5, (double)i);
        assert_non_null(m);
        assert_int_equal(json_array_append_new(ms, m), 0);
    }
    return doc;
}

/* Reading a result is linear in its metrics: 100,000 metrics took 88 s of CPU when each
   one was looked up by name in a list (the duplicate check); a hash makes it well under
   a second (the bound leaves room for sanitizer builds). Building a record metric by
   metric, as the suite does, the same. */
static void test_many_metrics_linear(void **state)
{
    (void)state;
    tb_err e;
    json_t *doc = many_metrics_doc();
    double t0 = cpu_s();
    tb_record *r = NULL;
    assert_int_equal(tb_record_from_json(doc, &r, &e), 0);
    double took = cpu_s() - t0;
    assert_int_equal(r->n_metrics, MANY_METRICS);
    const tb_metric *m = tb_record_find(r, "m.77777");
    assert_non_null(m);
    assert_ptr_equal(m, &r->metrics[77777]);
    assert_true(m->samples[1] == 77777.0);
    assert_null(tb_record_find(r, "m.100000"));
    if (took > 10.0) /* 0.2 s here, 1.4 s under ThreadSanitizer; 94 s when it was quadratic */
        fail_msg("reading %d metrics took %.1f s of CPU: not linear", MANY_METRICS, took);

    /* the same, metric by metric, with every name asked for again */
    tb_record *b = tb_record_new(&e);
    assert_non_null(b);
    t0 = cpu_s();
    for (int i = 0; i < MANY_METRICS; i++) {
        char name[32];
        snprintf(name, sizeof name, "m.%d", i);
        tb_metric *x = tb_record_metric(b, name, "ms", TB_BETTER_LOWER, "x", &e);
        assert_non_null(x);
        assert_ptr_equal(tb_record_metric(b, name, "ms", TB_BETTER_LOWER, "x", &e), x);
    }
    took = cpu_s() - t0;
    assert_int_equal(b->n_metrics, MANY_METRICS);
    if (took > 10.0)
        fail_msg("adding %d metrics took %.1f s of CPU: not linear", MANY_METRICS, took);
    tb_record_free(b);

    /* a duplicate far from its twin is still found */
    json_t *dup = json_deep_copy(json_array_get(json_object_get(doc, "metrics"), 3));
    assert_int_equal(json_array_append_new(json_object_get(doc, "metrics"), dup), 0);
    tb_record_free(r);
    r = NULL;
    assert_int_equal(tb_record_from_json(doc, &r, &e), -1);
    assert_null(r);
    assert_non_null(strstr(e.msg, "m.3: appears twice"));
    json_decref(doc);
}

static void test_name_valid(void **state)
{
    (void)state;
    char long_name[200];
    memset(long_name, 'a', 128);
    long_name[128] = '\0';
    assert_true(tb_record_name_valid(long_name));
    long_name[128] = 'a';
    long_name[129] = '\0';
    assert_false(tb_record_name_valid(long_name));
    assert_true(tb_record_name_valid("http.nginx.rps"));
    assert_true(tb_record_name_valid("http.nginx.latency.p99.9"));
    assert_true(tb_record_name_valid("probe.page_fault-4k.ns"));
    assert_true(tb_record_name_valid("syscall.index"));
    assert_true(tb_record_name_valid("x"));
    assert_false(tb_record_name_valid(""));
    assert_false(tb_record_name_valid(NULL));
    assert_false(tb_record_name_valid(".http.rps"));
    assert_false(tb_record_name_valid("http.rps."));
    assert_false(tb_record_name_valid("Http.rps"));
    assert_false(tb_record_name_valid("http rps"));
    assert_false(tb_record_name_valid("http/rps"));
    assert_false(tb_record_name_valid("http.rps\n"));
    assert_false(tb_record_name_valid("caf\xc3\xa9"));
}

/* The label rule of --label, --target NAME= and imported labels. */
static void test_label_valid(void **state)
{
    (void)state;
    const char *good[] = {"tdx-guest", "TDX VM",  "Host", "vm-kvm",  "a",
                          "0",         "b_C.1-x", "x.",   "9 lives", NULL};
    for (int i = 0; good[i]; i++)
        if (!tb_record_label_valid(good[i]))
            fail_msg("refused: '%s'", good[i]);
    char max[64], over[65];
    memset(max, 'L', 63);
    max[63] = 0;
    memset(over, 'L', 64);
    over[64] = 0;
    assert_true(tb_record_label_valid(max));
    assert_false(tb_record_label_valid(over));
    const char *bad[] = {"",          " host", "host ",       "-host",     ".host",         "_host",
                         "a/b",       "a:b",   "a=b",         "a|b",       "a\tb",          "a\nb",
                         "a\x1b[2Jb", "a\x7f", "caf\xc3\xa9", "a\xc2\x9b", "a\xe2\x80\xae", "a\\b",
                         "a'b",       "a\"b",  "a$b",         "a(b",       "a;b",           "a*b",
                         "../x",      NULL};
    for (int i = 0; bad[i]; i++)
        if (tb_record_label_valid(bad[i]))
            fail_msg("accepted: '%s'", bad[i]);
    assert_false(tb_record_label_valid(NULL));
    /* every default label is one */
    const char *defaults[] = {"tdx-guest", "sev-snp-guest", "bare-metal", "unknown",
                              "vm",        "vm-hyperv"};
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
        assert_true(tb_record_label_valid(defaults[i]));
}

static void test_metrics(void **state)
{
    (void)state;
    tb_err e;
    tb_record *r = tb_record_new(&e);
    assert_non_null(r);
    tb_metric *m = tb_record_metric(r, "http.nginx.rps", "req/s", TB_BETTER_HIGHER, "http", &e);
    assert_non_null(m);
    assert_int_equal(tb_metric_add(m, 34952.5, &e), 0);
    assert_int_equal(tb_metric_add(m, 35001, &e), 0);
    /* Same name, unit and direction: the same metric. */
    tb_metric *again = tb_record_metric(r, "http.nginx.rps", "req/s", TB_BETTER_HIGHER, "http", &e);
    assert_ptr_equal(again, m);
    assert_int_equal(r->n_metrics, 1);
    /* Another unit or direction is an error. */
    assert_null(tb_record_metric(r, "http.nginx.rps", "ms", TB_BETTER_HIGHER, "http", &e));
    assert_non_null(strstr(e.msg, "http.nginx.rps"));
    assert_null(tb_record_metric(r, "http.nginx.rps", "req/s", TB_BETTER_LOWER, "http", &e));
    assert_null(tb_record_metric(r, "Bad Name", "ms", TB_BETTER_LOWER, "http", &e));
    assert_non_null(strstr(e.msg, "not valid"));
    assert_null(tb_record_metric(r, "x.y", "", TB_BETTER_LOWER, "http", &e));
    assert_null(tb_record_metric(r, "x.y", "ms", 0, "http", &e));
    assert_null(tb_record_metric(r, "x.y", "ms", TB_BETTER_LOWER, NULL, &e));
    assert_int_equal(r->n_metrics, 1);
    /* Non-finite samples are refused and not added. */
    assert_int_equal(tb_metric_add(m, NAN, &e), -1);
    assert_non_null(strstr(e.msg, "finite"));
    assert_int_equal(tb_metric_add(m, INFINITY, &e), -1);
    assert_int_equal(tb_metric_add(m, -INFINITY, &e), -1);
    assert_int_equal(m->n, 2);
    /* Many metrics (the array grows; pointers are looked up again). */
    for (int i = 0; i < 50; i++) {
        char name[32];
        snprintf(name, sizeof name, "probe.p%d.ns", i);
        tb_metric *p = tb_record_metric(r, name, "ns", TB_BETTER_LOWER, "probe", &e);
        assert_non_null(p);
        for (int j = 0; j < 20; j++)
            assert_int_equal(tb_metric_add(p, i * 100 + j, &e), 0);
    }
    assert_int_equal(r->n_metrics, 51);
    const tb_metric *f = tb_record_find(r, "probe.p17.ns");
    assert_non_null(f);
    assert_int_equal(f->n, 20);
    assert_float_equal(f->samples[19], 1719, 0);
    assert_null(tb_record_find(r, "probe.p99.ns"));
    f = tb_record_find(r, "http.nginx.rps");
    assert_float_equal(f->samples[0], 34952.5, 0);
    assert_int_equal(tb_metric_set_note(&r->metrics[1], "one cpuid: a VM exit in a TD", &e), 0);
    assert_string_equal(r->metrics[1].note, "one cpuid: a VM exit in a TD");
    assert_int_equal(tb_metric_set_note(&r->metrics[1], NULL, &e), 0);
    assert_null(r->metrics[1].note);
    tb_record_free(r);
}

/* A record with everything set, for round trips. */
static tb_record *full_record(void)
{
    tb_err e;
    tb_record *r = tb_record_new(&e);
    assert_non_null(r);
    assert_int_equal(tb_record_set_str(&r->label, "tdx-guest", &e), 0);
    assert_int_equal(tb_record_set_str(&r->profile, "quick", &e), 0);
    assert_int_equal(tb_record_set_str(&r->status, "interrupted", &e), 0);
    snprintf(r->finished, sizeof r->finished, "2026-11-30T19:01:02Z");
    json_decref(r->env);
    r->env = json_pack("{s:s, s:{s:s, s:s}, s:{s:s, s:s}, s:{s:f, s:s}}", "schema",
                       "teebench-env/1", "platform", "value", "tdx-guest", "source", "cpuinfo",
                       "hypervisor", "value", "KVM", "source", "CPUID", "ratio", "value", 0.1 + 0.2,
                       "source", "a real that needs 17 digits");
    assert_non_null(r->env);
    json_array_append_new(r->commands, json_string("teebench http -t4 -c100 -d30s http://x/"));
    json_object_set_new(r->versions, "nginx", json_string("1.22.1"));
    json_object_set_new(r->extra, "note", json_string("caf\xc3\xa9 \"quoted\""));
    tb_metric *m = tb_record_metric(r, "http.nginx.rps", "req/s", TB_BETTER_HIGHER, "http", &e);
    assert_non_null(m);
    double v[] = {34952.5, 0.1, 1e-300, 1e300, -0.0, 3, 162588};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        assert_int_equal(tb_metric_add(m, v[i], &e), 0);
    m = tb_record_metric(r, "notary.tee_verify.notarization_ms", "ms", TB_BETTER_LOWER, "notary",
                         &e);
    assert_non_null(m);
    m->simulated = 1;
    assert_int_equal(tb_metric_set_note(m, "SIMULATED quote", &e), 0);
    assert_int_equal(tb_metric_add(m, 1091.25, &e), 0);
    assert_non_null(tb_record_metric(r, "probe.cpuid.ns", "ns", TB_BETTER_LOWER, "probe", &e));
    return r;
}

static void assert_same_record(const tb_record *a, const tb_record *b)
{
    assert_string_equal(a->id, b->id);
    assert_string_equal(a->label, b->label);
    assert_string_equal(a->status, b->status);
    assert_string_equal(a->profile, b->profile);
    assert_string_equal(a->started, b->started);
    assert_string_equal(a->finished, b->finished);
    assert_string_equal(a->teebench_version, b->teebench_version);
    assert_true(json_equal(a->env, b->env));
    assert_true(json_equal(a->commands, b->commands));
    assert_true(json_equal(a->versions, b->versions));
    assert_true(json_equal(a->extra, b->extra));
    assert_int_equal(a->n_metrics, b->n_metrics);
    for (size_t i = 0; i < a->n_metrics; i++) {
        const tb_metric *x = &a->metrics[i], *y = &b->metrics[i];
        assert_string_equal(x->name, y->name);
        assert_string_equal(x->unit, y->unit);
        assert_string_equal(x->workload, y->workload);
        assert_int_equal(x->better, y->better);
        assert_int_equal(x->simulated, y->simulated);
        assert_true((x->note == NULL) == (y->note == NULL));
        if (x->note)
            assert_string_equal(x->note, y->note);
        assert_int_equal(x->n, y->n);
        for (size_t j = 0; j < x->n; j++)
            assert_memory_equal(&x->samples[j], &y->samples[j], sizeof(double));
    }
}

static void test_json_roundtrip(void **state)
{
    (void)state;
    tb_err e;
    tb_record *r = full_record();
    /* A simulated metric makes the record simulated in its JSON. */
    assert_int_equal(r->simulated, 0);
    json_t *doc = tb_record_to_json(r);
    assert_non_null(doc);
    assert_string_equal(json_string_value(json_object_get(doc, "schema")), TB_RECORD_SCHEMA);
    assert_int_equal(json_integer_value(json_object_get(doc, "schema_version")),
                     TB_RECORD_SCHEMA_VERSION);
    assert_true(json_is_true(json_object_get(doc, "simulated")));
    tb_record *back = NULL;
    assert_int_equal(tb_record_from_json(doc, &back, &e), 0);
    assert_non_null(back);
    assert_int_equal(back->simulated, 1);
    r->simulated = 1;
    assert_same_record(r, back);
    /* Text form: read back from text gives the same document, the exact same text. */
    size_t n1, n2;
    char *t1 = tb_record_dumps(r, 0, &n1), *t2 = tb_record_dumps(back, 0, &n2);
    assert_non_null(t1);
    assert_non_null(t2);
    assert_int_equal(n1, strlen(t1));
    assert_string_equal(t1, t2);
    assert_int_equal(t1[n1 - 1], '\n');
    json_error_t je;
    json_t *reread = json_loads(t1, 0, &je);
    assert_non_null(reread);
    assert_true(json_equal(reread, doc));
    /* 0.1 + 0.2 in env needs 17 digits and reads back exactly. */
    assert_non_null(strstr(t1, "0.30000000000000004"));
    char *c = tb_record_dumps(r, 1, &n2);
    assert_non_null(c);
    assert_null(strchr(c, '\n'));
    json_t *reread2 = json_loads(c, 0, &je);
    assert_true(json_equal(reread2, doc));
    free(t1);
    free(t2);
    free(c);
    json_decref(reread);
    json_decref(reread2);
    json_decref(doc);
    tb_record_free(back);
    tb_record_free(r);
}

/* Reals are written with the fewest digits that read back exactly (jansson's
   default writes 0.1 as 0.10000000000000001). */
static void test_short_reals(void **state)
{
    (void)state;
    tb_err e;
    tb_record *r = tb_record_new(&e);
    tb_metric *m = tb_record_metric(r, "x.y", "ms", TB_BETTER_LOWER, "x", &e);
    assert_non_null(m);
    assert_int_equal(tb_metric_add(m, 0.1, &e), 0);
    assert_int_equal(tb_metric_add(m, 1091.25, &e), 0);
    assert_int_equal(tb_metric_add(m, 12500.3, &e), 0);
    char *t = tb_record_dumps(r, 1, NULL);
    assert_non_null(t);
    assert_non_null(strstr(t, "[0.1,1091.25,12500.3]"));
    free(t);
    tb_record_free(r);
}

/* Parses doc text (must be JSON) with tb_record_from_json; expects failure with
   `want` in the message. */
static void expect_bad(const char *text, const char *want)
{
    json_error_t je;
    json_t *doc = json_loads(text, JSON_ALLOW_NUL, &je);
    if (!doc)
        fail_msg("test input is not JSON: %s: %s", je.text, text);
    tb_record *r = (tb_record *)1;
    tb_err e = {{0}};
    int rc = tb_record_from_json(doc, &r, &e);
    json_decref(doc);
    if (rc != -1 || r != NULL || !strstr(e.msg, want))
        fail_msg("want an error with \"%s\", got rc %d msg \"%s\" for %s", want, rc, e.msg, text);
    assert_null(strchr(e.msg, '\n'));
}

/* A valid document's text with member key's value replaced by value (JSON text);
   value NULL removes the member. */
static char *with_member(const char *key, const char *value)
{
    tb_record *r = full_record();
    json_t *doc = tb_record_to_json(r);
    tb_record_free(r);
    if (value) {
        json_error_t je;
        json_t *v = json_loads(value, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
        assert_non_null(v);
        json_object_set_new(doc, key, v);
    } else {
        json_object_del(doc, key);
    }
    char *s = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    return s;
}

/* The same for member key of the first metric. */
static char *with_metric_member(const char *key, const char *value)
{
    tb_record *r = full_record();
    json_t *doc = tb_record_to_json(r);
    tb_record_free(r);
    json_t *m = json_array_get(json_object_get(doc, "metrics"), 0);
    if (value) {
        json_error_t je;
        json_t *v = json_loads(value, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
        assert_non_null(v);
        json_object_set_new(m, key, v);
    } else {
        json_object_del(m, key);
    }
    char *s = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    return s;
}

static void bad_member(const char *key, const char *value, const char *want)
{
    char *s = with_member(key, value);
    expect_bad(s, want);
    free(s);
}

static void bad_metric_member(const char *key, const char *value, const char *want)
{
    char *s = with_metric_member(key, value);
    expect_bad(s, want);
    free(s);
}

static void test_validation(void **state)
{
    (void)state;
    /* Sanity: the unmodified document is accepted. */
    char *ok = with_member("label", "\"vm-kvm\"");
    json_t *doc = json_loads(ok, 0, NULL);
    tb_record *r = NULL;
    tb_err e;
    assert_int_equal(tb_record_from_json(doc, &r, &e), 0);
    assert_string_equal(r->label, "vm-kvm");
    tb_record_free(r);
    json_decref(doc);
    free(ok);

    /* Another schema, another version. */
    expect_bad("[1,2]", "not a teebench result");
    expect_bad("{\"schema\":\"teebench-env/1\"}",
               "not a teebench result (schema \"teebench-env/1\"");
    expect_bad("{\"platform\":{}}", "no \"schema\" member");
    expect_bad("{\"schema\":7}", "not a teebench result");
    bad_member("schema_version", "2",
               "schema version 2 is not supported by this teebench (reads 1)");
    bad_member("schema_version", "0", "schema version 0 is not supported");
    bad_member("schema_version", "\"1\"", "\"schema_version\" must be an integer");
    bad_member("schema_version", "1.0", "\"schema_version\" must be an integer");
    bad_member("schema_version", NULL, "missing member \"schema_version\"");

    /* Missing and mistyped members. */
    bad_member("id", NULL, "missing member \"id\"");
    bad_member("id", "\"not-a-uuid\"", "\"id\" must be a lowercase UUID");
    bad_member("id", "\"6F9619FF-8B86-4011-B42D-00C04FC964FF\"", "lowercase UUID");
    bad_member("label", "42", "\"label\" must be a string");
    bad_member("label", "\"\"", "\"label\" must be 1..");
    bad_member("label", "\"a\\nb\"", "without control characters");
    bad_member("label", "\"a\\u0000b\"", "NUL");
    /* what a terminal acts on, as JSON escapes: ESC, DEL, a C1 control (CSI), a bidi
       override, a line separator */
    bad_member("label", "\"a\\u001b[2Jb\"", "without control characters (C0, C1, bidi)");
    bad_member("label", "\"a\\u007fb\"", "without control characters");
    bad_member("label", "\"a\\u009b2Jb\"", "without control characters");
    bad_member("label", "\"a\\u202eb\"", "without control characters");
    bad_member("label", "\"a\\u2066b\"", "without control characters");
    bad_member("profile", "\"\\u200fx\"", "\"profile\" must be 1..");
    bad_member("teebench_version", "\"1\\u2028\"", "\"teebench_version\" must be 1..");
    bad_member("status", "\"done\"", "\"status\" must be");
    bad_member("profile", "null", "\"profile\" must be a string");
    bad_member("started", "\"2026-11-30 18:55:32\"", "\"started\" must be an ISO 8601");
    bad_member("started", "\"2026-13-30T18:55:32Z\"", "\"started\" must be an ISO 8601");
    bad_member("finished", "\"yesterday\"", "\"finished\" must be");
    bad_member("teebench_version", "1", "must be a string");
    bad_member("simulated", "1", "\"simulated\" must be true or false");
    bad_member("simulated", "false", "is simulated but the record says");
    bad_member("env", "\"bare-metal\"", "\"env\" must be an object or null");
    bad_member("env", NULL, "\"env\" must be");
    bad_member("commands", "[\"a\", 1]", "\"commands\" must be an array of strings");
    bad_member("commands", "{}", "\"commands\" must be an array");
    bad_member("versions", "{\"nginx\": 1}", "\"versions\" must be an object of strings");
    bad_member("extra", "[]", "\"extra\" must be an object");
    bad_member("metrics", "{}", "\"metrics\" must be an array");
    bad_member("metrics", "[1]", "metrics[0]: must be an object");
    bad_member("surprise", "1", "unknown member \"surprise\"");

    /* Metrics: names, types, samples, duplicates. */
    bad_metric_member("name", "\"HTTP.rps\"", "not a valid metric name");
    bad_metric_member("name", "\"http..rps.\"", "not a valid metric name");
    bad_metric_member("name", "3", "\"name\" must be a string");
    bad_metric_member("name", "\"probe.cpuid.ns\"", "appears twice");
    bad_metric_member("unit", NULL, "missing member \"unit\"");
    bad_metric_member("better", "\"up\"", "\"better\" must be \"higher\" or \"lower\"");
    bad_metric_member("better", "1", "\"better\" must be a string");
    bad_metric_member("workload", "\"\"", "\"workload\" must be 1..");
    bad_metric_member("unit", "\"ms\\u202e\"", "\"unit\" must be 1..");
    bad_metric_member("note", "5", "\"note\" must be a string");
    bad_metric_member("simulated", "\"no\"", "must be true or false");
    bad_metric_member("samples", "\"1,2\"", "\"samples\" must be an array of numbers");
    bad_metric_member("samples", "[1, \"2\"]", "sample 1 is not a number");
    bad_metric_member("samples", "[1, null]", "sample 1 is not a number");
    bad_metric_member("samples", NULL, "missing member \"samples\"");
    bad_metric_member("extra", "1", "unknown member \"extra\"");

    /* A note absent or null-free is fine; integer samples are numbers too. */
    char *s = with_metric_member("samples", "[1, 2.5, 30000000000]");
    doc = json_loads(s, 0, NULL);
    assert_int_equal(tb_record_from_json(doc, &r, &e), 0);
    assert_float_equal(r->metrics[0].samples[2], 3e10, 0);
    tb_record_free(r);
    json_decref(doc);
    free(s);
}

static char tmpdir[64];

static int setup_dir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/tb_record_XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
    (void)state;
    DIR *d = opendir(tmpdir);
    if (d) {
        struct dirent *de;
        char p[512];
        while ((de = readdir(d)))
            if (de->d_name[0] != '.') {
                snprintf(p, sizeof p, "%s/%s", tmpdir, de->d_name);
                unlink(p);
            }
        closedir(d);
    }
    rmdir(tmpdir);
    return 0;
}

static void write_text(const char *path, const char *text, size_t n)
{
    tb_err e;
    assert_int_equal(tb_file_write_atomic(path, text, n, &e), 0);
}

static void expect_read_fails(const char *path, const char *want)
{
    tb_record *r = (tb_record *)1;
    tb_err e = {{0}};
    int rc = tb_record_read_file(path, &r, &e);
    if (rc != -1 || r != NULL || !strstr(e.msg, want))
        fail_msg("read %s: want \"%s\", got rc %d \"%s\"", path, want, rc, e.msg);
    assert_non_null(strstr(e.msg, path));
}

static void test_files(void **state)
{
    (void)state;
    tb_err e;
    char path[128], bad[128];
    snprintf(path, sizeof path, "%s/run.json", tmpdir);
    tb_record *r = full_record();
    assert_int_equal(tb_record_write_file(r, path, &e), 0);
    /* Atomic: only the file, no temporary left behind. */
    DIR *d = opendir(tmpdir);
    int files = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        files += de->d_name[0] != '.';
    closedir(d);
    assert_int_equal(files, 1);
    tb_record *back = NULL;
    assert_int_equal(tb_record_read_file(path, &back, &e), 0);
    r->simulated = 1;
    assert_same_record(r, back);
    tb_record_free(back);

    /* A write into a missing directory fails and says where. */
    snprintf(bad, sizeof bad, "%s/no/such/dir/run.json", tmpdir);
    assert_int_equal(tb_record_write_file(r, bad, &e), -1);
    assert_non_null(strstr(e.msg, "run.json"));

    /* Truncated at several lengths: one clear line, never a record. */
    tb_buf text = {0};
    assert_int_equal(tb_file_read(path, 1 << 20, &text, &e), 0);
    snprintf(bad, sizeof bad, "%s/truncated.json", tmpdir);
    size_t cuts[] = {0, 1, 10, text.len / 2, text.len - 3};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        write_text(bad, (const char *)text.p, cuts[i]);
        expect_read_fails(bad, "not valid JSON");
    }
    /* The full text minus its final newline and brace. */
    write_text(bad, (const char *)text.p, text.len - 2);
    expect_read_fails(bad, "not valid JSON");
    tb_buf_clear(&text);
    /* Duplicate JSON keys are refused, not resolved silently. */
    const char *dup = "{\"schema\":\"teebench-result\",\"schema\":\"teebench-result\"}";
    write_text(bad, dup, strlen(dup));
    expect_read_fails(bad, "duplicate");
    /* Numbers too large for a double. */
    const char *huge = "{\"schema\":\"teebench-result\",\"x\":1e999}";
    write_text(bad, huge, strlen(huge));
    expect_read_fails(bad, "not valid JSON");
    /* A result of a newer schema version, from a file. */
    char *v2 = with_member("schema_version", "2");
    write_text(bad, v2, strlen(v2));
    free(v2);
    expect_read_fails(bad, "schema version 2 is not supported by this teebench (reads 1)");
    /* Missing file. */
    snprintf(bad, sizeof bad, "%s/missing.json", tmpdir);
    expect_read_fails(bad, "No such file");
    unlink(path);
    snprintf(bad, sizeof bad, "%s/truncated.json", tmpdir);
    unlink(bad);
    tb_record_free(r);
}

/* fd's content, from its start, through tb_record_read_fd. */
static int read_fd_of(const char *text, size_t n, tb_record **r, tb_err *e)
{
    char path[128];
    snprintf(path, sizeof path, "%s/fd.json", tmpdir);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    unlink(path);
    for (size_t done = 0; done < n;) {
        ssize_t w = write(fd, text + done, n - done);
        assert_true(w > 0);
        done += (size_t)w;
    }
    assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
    int rc = tb_record_read_fd(fd, r, e);
    close(fd);
    return rc;
}

/* A document built by appending parts: head, n copies of piece, tail. */
static char *repeated(const char *head, const char *piece, size_t n, const char *tail, size_t *len)
{
    size_t hl = strlen(head), pl = strlen(piece), tl = strlen(tail);
    char *s = malloc(hl + n * pl + tl + 1);
    assert_non_null(s);
    memcpy(s, head, hl);
    size_t total = n * pl, done = n ? pl : 0; /* the copies, doubling */
    memcpy(s + hl, piece, done);
    while (done < total) {
        size_t k = done < total - done ? done : total - done;
        memcpy(s + hl + done, s + hl, k);
        done += k;
    }
    memcpy(s + hl + total, tail, tl + 1);
    *len = hl + n * pl + tl;
    return s;
}

/* tb_record_read_fd: what read_file reads, and the limits that bound its memory --
   values, bytes of strings, the length of a number -- each refused with its line;
   a document just under them is read. */
static void test_read_fd(void **state)
{
    (void)state;
    tb_err e;
    tb_record *r = full_record(), *back = NULL;
    size_t n;
    char *text = tb_record_dumps(r, 0, &n);
    assert_int_equal(read_fd_of(text, n, &back, &e), 0);
    r->simulated = 1;
    assert_same_record(r, back);
    tb_record_free(back);
    tb_record_free(r);
    /* truncated, empty, duplicate keys: as read_file says them */
    assert_int_equal(read_fd_of(text, n / 2, &back, &e), -1);
    assert_null(back);
    assert_non_null(strstr(e.msg, "not valid JSON"));
    assert_int_equal(read_fd_of("", 0, &back, &e), -1);
    assert_non_null(strstr(e.msg, "not valid JSON"));
    const char *dup = "{\"schema\":\"teebench-result\",\"schema\":\"teebench-result\"}";
    assert_int_equal(read_fd_of(dup, strlen(dup), &back, &e), -1);
    assert_non_null(strstr(e.msg, "duplicate"));
    free(text);

    /* a record with 200,000 samples: under the limit, read */
    const char *head = "{\"schema\": \"teebench-result\", \"schema_version\": 1, \"id\": "
                       "\"6f9619ff-8b86-4011-b42d-00c04fc964ff\", \"label\": \"big\", \"status\": "
                       "\"complete\", \"profile\": \"custom\", \"started\": "
                       "\"2026-01-31T12:00:00Z\", \"finished\": \"\", \"teebench_version\": "
                       "\"0.1\", \"simulated\": false, \"env\": null, \"commands\": [], "
                       "\"versions\": {}, \"extra\": {}, \"metrics\": [{\"name\": \"x.y\", "
                       "\"unit\": \"ns\", \"better\": \"lower\", \"workload\": \"probe\", "
                       "\"simulated\": false, \"samples\": [";
    char *big = repeated(head, "1,", 200000, "1]}]}", &n);
    assert_int_equal(read_fd_of(big, n, &back, &e), 0);
    assert_int_equal(back->metrics[0].n, 200001);
    tb_record_free(back);
    free(big);
    /* 1,000,001 values: refused, whatever follows (a document cut after them too) */
    big = repeated("[", "1,", TB_RECORD_VALUES_MAX + 10, "1]", &n);
    assert_int_equal(read_fd_of(big, n, &back, &e), -1);
    assert_null(back);
    assert_string_equal(e.msg, "too large for a result: more than 1000000 values");
    assert_int_equal(read_fd_of(big, n - 5, &back, &e), -1);
    assert_string_equal(e.msg, "too large for a result: more than 1000000 values");
    free(big);
    /* empty arrays and objects are values too */
    big = repeated("[", "[],{},", TB_RECORD_VALUES_MAX / 2, "1]", &n);
    assert_int_equal(read_fd_of(big, n, &back, &e), -1);
    assert_string_equal(e.msg, "too large for a result: more than 1000000 values");
    free(big);
    /* 16 MiB of strings and one byte more: in one string, or in many keys */
    big = repeated("[\"", "x", TB_RECORD_TEXT_MAX, "\"]", &n);
    assert_int_equal(read_fd_of(big, n, &back, &e), -1);
    assert_string_equal(e.msg, "too large for a result: more than 16 MiB of strings");
    free(big);
    big = repeated("{\"schema\": \"teebench-result\", \"k\": [", "\"0123456789abcdef\",",
                   TB_RECORD_TEXT_MAX / 16 + 1, "1]}", &n);
    assert_int_equal(read_fd_of(big, n, &back, &e), -1);
    assert_string_equal(e.msg, "too large for a result: more than 16 MiB of strings");
    free(big);
    /* an escaped quote does not end a string: the brackets after it are text, not
       a million arrays */
    big = repeated("[\"\\\"", "[", TB_RECORD_VALUES_MAX + 1, "\\\\\"]", &n);
    assert_int_equal(read_fd_of(big, n, &back, &e), -1);
    assert_non_null(strstr(e.msg, "not a teebench result"));
    free(big);
    /* whitespace costs nothing: 17 MiB of it before a small document is read */
    r = full_record();
    text = tb_record_dumps(r, 0, &n);
    size_t pad = 17u << 20;
    char *padded = malloc(pad + n);
    assert_non_null(padded);
    memset(padded, ' ', pad);
    memcpy(padded + pad, text, n);
    assert_int_equal(read_fd_of(padded, pad + n, &back, &e), 0);
    tb_record_free(back);
    free(padded);
    free(text);
    tb_record_free(r);
    /* a number of 65 digits (jansson would buffer a number of any length) */
    char num[80];
    snprintf(num, sizeof num, "[1%064d]", 0);
    assert_int_equal(read_fd_of(num, strlen(num), &back, &e), -1);
    assert_string_equal(e.msg, "too large for a result: a number longer than 64 bytes");
    snprintf(num, sizeof num, "[1.%062d]", 0); /* 64: the limit itself is fine */
    assert_int_equal(read_fd_of(num, strlen(num), &back, &e), -1);
    assert_non_null(strstr(e.msg, "not a teebench result"));
}

static void test_write_stdout(void **state)
{
    (void)state;
    tb_err e;
    char path[128];
    snprintf(path, sizeof path, "%s/stdout.json", tmpdir);
    tb_record *r = full_record();
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, STDOUT_FILENO);
    close(fd);
    int rc = tb_record_write_file(r, "-", &e);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    assert_int_equal(rc, 0);
    tb_record *back = NULL;
    assert_int_equal(tb_record_read_file(path, &back, &e), 0);
    assert_string_equal(back->id, r->id);
    assert_int_equal(back->n_metrics, r->n_metrics);
    tb_record_free(back);
    tb_record_free(r);
    unlink(path);
}

static void label_of(const char *env_text, const char *want)
{
    json_t *env = env_text ? json_loads(env_text, JSON_DECODE_ANY, NULL) : NULL;
    if (env_text)
        assert_non_null(env);
    char out[64];
    memset(out, 'x', sizeof out);
    tb_record_default_label(env, out, sizeof out);
    if (strcmp(out, want))
        fail_msg("env %s: label \"%s\", want \"%s\"", env_text ? env_text : "NULL", out, want);
    json_decref(env);
}

static void test_default_label(void **state)
{
    (void)state;
    const char *plain[] = {"tdx-guest", "sev-snp-guest", "sev-es-guest", "sev-guest", "bare-metal"};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        char env[256];
        snprintf(env, sizeof env,
                 "{\"platform\":{\"value\":\"%s\",\"source\":\"x\"},"
                 "\"hypervisor\":{\"value\":\"KVM\",\"source\":\"CPUID\"}}",
                 plain[i]);
        label_of(env, plain[i]);
    }
    struct {
        const char *hv, *label;
    } vms[] = {
        {"KVM", "vm-kvm"},
        {"QEMU TCG", "vm-tcg"},
        {"TCG", "vm-tcg"},
        {"Microsoft Hyper-V", "vm-hyperv"},
        {"Microsoft Hv", "vm-hyperv"},
        {"KVM (Hyper-V enlightenments)", "vm-kvm"},
        {"bhyve", "vm-bhyve"},
        {"VMware", "vm-vmware"},
        {"Xen", "vm-xen"},
        {"ACRN", "vm-acrn"},
        {"Some New HV 2.0", "vm-some-new-hv-2-0"},
        {"unrecognised", "vm"},
        {"unknown", "vm"},
        {"none", "vm"},
        {"!!!", "vm"},
    };
    for (size_t i = 0; i < sizeof vms / sizeof vms[0]; i++) {
        char env[256];
        snprintf(env, sizeof env,
                 "{\"platform\":{\"value\":\"vm\",\"source\":\"x\"},"
                 "\"hypervisor\":{\"value\":\"%s\",\"source\":\"CPUID\"}}",
                 vms[i].hv);
        label_of(env, vms[i].label);
    }
    label_of("{\"platform\":{\"value\":\"vm\",\"source\":\"x\"}}", "vm");
    label_of("{\"platform\":{\"value\":\"unknown\",\"source\":\"x\"}}", "unknown");
    label_of("{\"platform\":{\"value\":\"something-else\",\"source\":\"x\"}}", "unknown");
    label_of("{\"platform\":{\"value\":7,\"source\":\"x\"}}", "unknown");
    label_of("{\"platform\":\"tdx-guest\"}", "tdx-guest");
    label_of("{}", "unknown");
    label_of("null", "unknown");
    label_of("[1]", "unknown");
    label_of(NULL, "unknown");
    /* A small buffer is truncated, still a C string. */
    json_t *env = json_loads("{\"platform\":{\"value\":\"sev-snp-guest\"}}", 0, NULL);
    char small[4];
    tb_record_default_label(env, small, sizeof small);
    assert_string_equal(small, "sev");
    json_decref(env);
}

/* The label of this machine's live `teebench env --json` document is one of the
   documented forms (whatever this machine is). */
static void test_default_label_live(void **state)
{
    (void)state;
    tb_err e;
    json_t *env = tb_env_json(&e);
    assert_non_null(env);
    char out[64];
    tb_record_default_label(env, out, sizeof out);
    const char *platform =
        json_string_value(json_object_get(json_object_get(env, "platform"), "value"));
    assert_non_null(platform);
    if (!strcmp(platform, "vm"))
        assert_true(!strcmp(out, "vm") || !strncmp(out, "vm-", 3));
    else if (!strcmp(platform, "unknown"))
        assert_string_equal(out, "unknown");
    else
        assert_string_equal(out, platform);
    json_decref(env);
}

/* A record whose env is the recorded machine tests/data/env/<name> (through the env
   module's own reader) and whose extra is the JSON text given (NULL: empty). */
static tb_record *recorded(const char *name, const char *extra)
{
    tb_err e;
    tb_record *r = tb_record_new_unnamed(&e);
    assert_non_null(r);
    json_decref(r->env);
    r->env = recorded_env(name);
    if (extra) {
        json_decref(r->extra);
        r->extra = json_loads(extra, 0, NULL);
        assert_non_null(r->extra);
    }
    return r;
}

static void tee_is(const tb_record *r, int known, const char *kind, const char *evidence,
                   int simulated, const char *summary)
{
    tb_record_tee_info t;
    memset(&t, 0x55, sizeof t);
    assert_int_equal(tb_record_tee(r, &t), known);
    assert_int_equal(t.known, known);
    assert_string_equal(t.kind, kind);
    assert_string_equal(t.evidence, evidence);
    assert_int_equal(t.simulated, simulated);
    assert_string_equal(t.summary, summary);
}

/* The TEE kind of each recorded machine, and the evidence of a run from what the
   suite writes (extra.attest.tee, extra.notary_tee) or wrote before
   (extra.attest.provider only). */
static void test_tee(void **state)
{
    (void)state;
    static const struct {
        const char *env, *kind;
    } kinds[] = {{"td", "TDX"},
                 {"snp", "SEV-SNP"},
                 {"vm-kvm", "none"},
                 {"tdx-host", "none"},
                 {"bare", "none"}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        tb_record *r = recorded(kinds[i].env, NULL);
        int tee = strcmp(kinds[i].kind, "none") != 0;
        tee_is(r, tee, kinds[i].kind, "", 0, kinds[i].kind);
        assert_string_equal(tb_record_tee_kind(r->env), kinds[i].kind);
        tb_record_free(r);
    }

    /* real evidence of the platform's own TEE: the summary is the kind alone */
    tb_record *r = recorded("td", "{\"attest\":{\"tee\":\"tdx\",\"provider\":\"tsm "
                                  "(configfs-tsm)\"},\"notary_tee\":\"tdx\"}");
    tee_is(r, 1, "TDX", "TDX quotes", 0, "TDX");
    tb_record_free(r);
    r = recorded("snp", "{\"attest\":{\"tee\":\"snp\"},\"notary_tee\":\"snp\"}");
    tee_is(r, 1, "SEV-SNP", "SEV-SNP reports", 0, "SEV-SNP");
    tb_record_free(r);
    /* simulated evidence, on a machine without a TEE and in a TD */
    r = recorded("vm-kvm", "{\"attest\":{\"tee\":\"sim-snp\"}}");
    tee_is(r, 1, "none", "SIMULATED SEV-SNP reports", 1, "none (SIMULATED SEV-SNP reports)");
    tb_record_free(r);
    r = recorded("td", "{\"attest\":{\"tee\":\"sim\"}}");
    tee_is(r, 1, "TDX", "SIMULATED TDX quotes", 1, "TDX (SIMULATED TDX quotes)");
    tb_record_free(r);
    /* the notary alone, and attest and notary with different evidence */
    r = recorded("snp", "{\"notary_tee\":\"sim-snp\"}");
    tee_is(r, 1, "SEV-SNP", "SIMULATED SEV-SNP reports", 1, "SEV-SNP (SIMULATED SEV-SNP reports)");
    tb_record_free(r);
    r = recorded("td", "{\"attest\":{\"tee\":\"tdx\"},\"notary_tee\":\"sim\"}");
    tee_is(r, 1, "TDX", "TDX quotes + SIMULATED TDX quotes", 1,
           "TDX (TDX quotes + SIMULATED TDX quotes)");
    tb_record_free(r);
    r = recorded("bare", "{\"attest\":{\"tee\":\"sim-snp\"},\"notary_tee\":\"sim\"}");
    tee_is(r, 1, "none", "SIMULATED SEV-SNP reports + SIMULATED TDX quotes", 1,
           "none (SIMULATED SEV-SNP reports + SIMULATED TDX quotes)");
    tb_record_free(r);

    /* older records: extra.attest.provider only */
    r = recorded("bare", "{\"attest\":{\"provider\":\"sim (SIMULATED)\",\"simulated\":true,"
                         "\"verdict\":\"ACCEPTED\"}}");
    tee_is(r, 1, "none", "SIMULATED TDX quotes", 1, "none (SIMULATED TDX quotes)");
    tb_record_free(r);
    r = recorded("td", "{\"attest\":{\"provider\":\"tsm (configfs-tsm)\",\"simulated\":false}}");
    tee_is(r, 1, "TDX", "TDX quotes", 0, "TDX");
    tb_record_free(r);
    r = recorded("snp", "{\"attest\":{\"provider\":\"tsm (configfs-tsm)\"}}");
    tee_is(r, 1, "SEV-SNP", "SEV-SNP reports", 0, "SEV-SNP");
    tb_record_free(r);
    /* an unknown tee value falls back to the provider; unknown notary values are ignored */
    r = recorded("vm-kvm", "{\"attest\":{\"tee\":\"quantum\",\"provider\":\"sim\"},"
                           "\"notary_tee\":\"quantum\"}");
    tee_is(r, 1, "none", "SIMULATED TDX quotes", 1, "none (SIMULATED TDX quotes)");
    tb_record_free(r);
    r = recorded("vm-kvm", "{\"attest\":{\"tee\":7},\"notary_tee\":null}");
    tee_is(r, 0, "none", "", 0, "none");
    tb_record_free(r);
    r = recorded("vm-kvm", "{\"attest\":\"sim\"}");
    tee_is(r, 0, "none", "", 0, "none");
    tb_record_free(r);

    /* an imported bench folder: its run.json's notary_tee, when a mode used the TEE */
    r = recorded("vm-kvm", "{\"bench\":{\"notary_tee\":\"sim\",\"benchmark_modes\":"
                           "[\"no_tee\",\"tee_verify\"]}}");
    tee_is(r, 1, "none", "SIMULATED TDX quotes", 1, "none (SIMULATED TDX quotes)");
    tb_record_free(r);
    r = recorded("vm-kvm", "{\"bench\":{\"notary_tee\":\"sim\",\"benchmark_modes\":[\"no_tee\"]}}");
    tee_is(r, 0, "none", "", 0, "none");
    tb_record_free(r);
    r = recorded("td", "{\"notary_tee\":\"tdx\",\"bench\":{\"notary_tee\":\"sim\"}}");
    tee_is(r, 1, "TDX", "TDX quotes", 0, "TDX");
    tb_record_free(r);

    /* no env: unknown; evidence still read */
    tb_err e;
    r = tb_record_new_unnamed(&e);
    assert_non_null(r);
    tee_is(r, 0, "unknown", "", 0, "unknown");
    json_object_set_new(r->extra, "notary_tee", json_string("tdx"));
    tee_is(r, 1, "unknown", "TDX quotes", 0, "unknown (TDX quotes)");
    json_decref(r->env);
    r->env = json_loads("{\"platform\":{\"value\":\"sev-es-guest\"}}", 0, NULL);
    tee_is(r, 1, "SEV-ES", "TDX quotes", 0, "SEV-ES (TDX quotes)");
    json_decref(r->env);
    r->env = json_loads("{\"platform\":{\"value\":\"sev-guest\"}}", 0, NULL);
    tee_is(r, 1, "SEV", "TDX quotes", 0, "SEV (TDX quotes)");
    tb_record_free(r);
    tee_is(NULL, 0, "unknown", "", 0, "unknown");

    assert_string_equal(tb_record_tee_evidence("sim-snp"), "SIMULATED SEV-SNP reports");
    assert_null(tb_record_tee_evidence("SNP"));
    assert_null(tb_record_tee_evidence(NULL));
    assert_string_equal(tb_record_tee_kind(NULL), "unknown");
}

/* A kind names a TEE unless it is "none" or "unknown" -- what the report's badge, the
   comparison's tag and tb_record_tee_info.known all ask. */
static void test_tee_kind_is_tee(void **state)
{
    (void)state;
    static const char *const tees[] = {"TDX", "SEV-SNP", "SEV-ES", "SEV"};
    for (size_t i = 0; i < sizeof tees / sizeof tees[0]; i++)
        assert_int_equal(tb_record_tee_kind_is_tee(tees[i]), 1);
    assert_int_equal(tb_record_tee_kind_is_tee("none"), 0);
    assert_int_equal(tb_record_tee_kind_is_tee("unknown"), 0);
    assert_int_equal(tb_record_tee_kind_is_tee(tb_record_tee_kind_name("snp")), 1);
    assert_int_equal(tb_record_tee_kind_is_tee(tb_record_tee_kind_name("nonsense")), 0);
    assert_int_equal(tb_record_tee_kind_is_tee(tb_record_tee_kind_name("none")), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_defaults),
        cmocka_unit_test(test_name_valid),
        cmocka_unit_test(test_label_valid),
        cmocka_unit_test(test_metrics),
        cmocka_unit_test(test_json_roundtrip),
        cmocka_unit_test(test_short_reals),
        cmocka_unit_test(test_validation),
        cmocka_unit_test_setup_teardown(test_files, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_read_fd, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_write_stdout, setup_dir, teardown_dir),
        cmocka_unit_test(test_default_label),
        cmocka_unit_test(test_default_label_live),
        cmocka_unit_test(test_tee),
        cmocka_unit_test(test_tee_kind_is_tee),
        cmocka_unit_test(test_many_metrics_linear),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
