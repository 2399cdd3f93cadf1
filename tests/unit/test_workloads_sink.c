/* Unit tests for src/workloads/sink: a tool run to its end the one way the workloads run
 * one (tb_wl_run_tool: its outputs in the work directory, its exit code, a timeout, the
 * stop flag, a program that cannot start, no work directory) and the lines of a log it
 * quotes in messages (tb_wl_first_line, tb_wl_last_line); a step's tool and its failure
 * message (tb_wl_tool_step); the document helpers the readers share (a member of
 * several, an array member, the envelope with its times, the runs read check-then-emit); the plain
 * state a workload with nothing to set up uses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/proc.h"
#include "workloads/workload.h"

typedef struct sink_env {
    tb_wl_sink sink;
    char path[1024];
} sink_env;

static int sink_setup(void **state)
{
    static sink_env se;
    memset(&se, 0, sizeof se);
    se.sink.dir_fd = -1;
    tb_err e;
    if (tb_wl_workdir_open("test-sink", se.path, sizeof se.path, &se.sink, &e) < 0)
        fail_msg("%s", e.msg);
    *state = &se;
    return 0;
}

static int sink_teardown(void **state)
{
    sink_env *se = *state;
    tb_wl_workdir_remove(&se->sink);
    return 0;
}

static void read_text(const tb_wl_sink *s, const char *name, char *out, size_t n)
{
    tb_buf b = {0};
    tb_err e;
    if (tb_wl_read(s, name, 4096, &b, &e) < 0)
        fail_msg("%s", e.msg);
    snprintf(out, n, "%.*s", (int)b.len, b.p ? (const char *)b.p : "");
    tb_buf_clear(&b);
}

/* stdout and stderr each into its file, the exit code given back; then the lines of what
   it wrote: the first, the last non-empty one (trailing blank lines and \r passed over). */
static void test_run_and_lines(void **state)
{
    sink_env *se = *state;
    tb_wl_sink *s = &se->sink;
    char *argv[] = {"/bin/sh", "-c",
                    "printf 'one\\ntwo\\n'; printf 'warn 1\\nwarn 2\\r\\n\\n\\n' >&2; exit 3",
                    NULL};
    int code = -1;
    tb_err e;
    assert_int_equal(tb_wl_run_tool(s, argv, "t.out", "t.err", 10000, &code, &e), 0);
    assert_int_equal(code, 3);
    char text[256], line[64];
    read_text(s, "t.out", text, sizeof text);
    assert_string_equal(text, "one\ntwo\n");
    read_text(s, "t.err", text, sizeof text);
    assert_string_equal(text, "warn 1\nwarn 2\r\n\n\n");
    tb_wl_first_line(s, "t.out", line, sizeof line);
    assert_string_equal(line, "one");
    tb_wl_last_line(s, "t.out", line, sizeof line);
    assert_string_equal(line, "two");
    tb_wl_first_line(s, "t.err", line, sizeof line);
    assert_string_equal(line, "warn 1");
    tb_wl_last_line(s, "t.err", line, sizeof line);
    assert_string_equal(line, "warn 2");
    /* one line, no newline; an empty file; a file that is not there */
    char *one[] = {"/bin/sh", "-c", "printf only", NULL};
    assert_int_equal(tb_wl_run_tool(s, one, "o.out", "o.err", 10000, &code, &e), 0);
    assert_int_equal(code, 0);
    tb_wl_first_line(s, "o.out", line, sizeof line);
    assert_string_equal(line, "only");
    tb_wl_last_line(s, "o.out", line, sizeof line);
    assert_string_equal(line, "only");
    strcpy(line, "x");
    tb_wl_last_line(s, "o.err", line, sizeof line);
    assert_string_equal(line, "");
    strcpy(line, "x");
    tb_wl_first_line(s, "missing.log", line, sizeof line);
    assert_string_equal(line, "");
}

/* A tool past its timeout is killed (timeout(1)'s 124); a raised stop flag ends it (1); a
   program that is not there and a sink with no work directory are errors. */
static void test_run_ends(void **state)
{
    sink_env *se = *state;
    tb_wl_sink *s = &se->sink;
    char *slow[] = {"/bin/sleep", "30", NULL};
    int code = -1;
    tb_err e;
    assert_int_equal(tb_wl_run_tool(s, slow, "s.out", "s.err", 100, &code, &e), 0);
    assert_int_equal(code, TB_PROC_TIMEOUT_CODE);
    volatile sig_atomic_t stop = 1;
    s->stop = &stop;
    code = -1;
    assert_int_equal(tb_wl_run_tool(s, slow, "s.out", "s.err", 10000, &code, &e), 1);
    assert_int_equal(code, -1);
    s->stop = NULL;
    char *none[] = {"/nonexistent/tool", NULL};
    assert_int_equal(tb_wl_run_tool(s, none, "n.out", "n.err", 10000, &code, &e), -1);
    assert_true(e.msg[0] != 0);
    tb_wl_sink nodir = {.dir_fd = -1};
    assert_int_equal(tb_wl_run_tool(&nodir, slow, "s.out", "s.err", 10000, &code, &e), -1);
    assert_string_equal(e.msg, "s.out: no work directory");
}

/* A step's tool: 0 exit is TB_WL_OK; another names the tool, its code and a line of its
   stderr (the first, or the last); a timeout says so; the stop flag cancels. */
static void test_tool_step(void **state)
{
    sink_env *se = *state;
    tb_wl_sink *s = &se->sink;
    tb_err e;
    char *ok[] = {"/bin/sh", "-c", "echo fine", NULL};
    assert_int_equal(tb_wl_tool_step(s, ok, "a.out", "a.err", 10000, "the tool", 0, &e), TB_WL_OK);
    char *bad[] = {"/bin/sh", "-c", "printf 'first\\nlast\\n' >&2; exit 2", NULL};
    assert_int_equal(tb_wl_tool_step(s, bad, "b.out", "b.err", 10000, "fio (libaio)", 0, &e),
                     TB_WL_FAILED);
    assert_string_equal(e.msg, "fio (libaio) exited with code 2: first");
    assert_int_equal(tb_wl_tool_step(s, bad, "b.out", "b.err", 10000, "the tool", 1, &e),
                     TB_WL_FAILED);
    assert_string_equal(e.msg, "the tool exited with code 2: last");
    char *quiet[] = {"/bin/sh", "-c", "exit 1", NULL};
    assert_int_equal(tb_wl_tool_step(s, quiet, "q.out", "q.err", 10000, "the tool", 0, &e),
                     TB_WL_FAILED);
    assert_string_equal(e.msg, "the tool exited with code 1");
    char *slow[] = {"/bin/sleep", "30", NULL};
    assert_int_equal(tb_wl_tool_step(s, slow, "s.out", "s.err", 100, "the tool", 1, &e),
                     TB_WL_FAILED);
    assert_string_equal(e.msg, "the tool exited with code 124 (timed out)");
    volatile sig_atomic_t stop = 1;
    s->stop = &stop;
    assert_int_equal(tb_wl_tool_step(s, slow, "s.out", "s.err", 10000, "the tool", 1, &e),
                     TB_WL_CANCELLED);
    s->stop = NULL;
}

/* A document's members: one of several there or a message naming them all; an array
   member made when missing, kept when there; started_at / finished_at only in teebench's
   own ISO 8601 form. */
static void test_doc_helpers(void **state)
{
    (void)state;
    tb_err e;
    static const char *const parts[] = {"tcp", "udp", "rtt"};
    json_t *doc = json_pack("{s:[], s:s, s:s, s:s}", "udp", "teebench", "0.9", "started_at",
                            "2026-01-02T03:04:05Z", "finished_at", "2026-01-02 03:04:05");
    assert_int_equal(tb_wl_doc_has_one(doc, "network JSON", parts, 3, &e), 0);
    json_t *empty = json_object();
    assert_int_equal(tb_wl_doc_has_one(empty, "network JSON", parts, 3, &e), -1);
    assert_string_equal(e.msg, "network JSON: none of \"tcp\", \"udp\", \"rtt\"");
    json_t *a = tb_wl_doc_array(empty, "tcp");
    assert_true(json_is_array(a) && json_object_get(empty, "tcp") == a);
    json_array_append_new(a, json_integer(1));
    assert_ptr_equal(tb_wl_doc_array(empty, "tcp"), a);
    assert_int_equal(json_array_size(a), 1);
    tb_wl_doc_info info;
    tb_wl_doc_envelope_times(doc, &info);
    assert_string_equal(info.version, "0.9");
    assert_string_equal(info.started, "2026-01-02T03:04:05Z");
    assert_string_equal(info.finished, ""); /* not teebench's form */
    json_decref(empty);
    json_decref(doc);
}

static int count_sample(void *ctx, const char *name, double value, int simulated, const char *note,
                        tb_err *err)
{
    (void)name, (void)value, (void)simulated, (void)note, (void)err;
    (*(int *)ctx)++;
    return 0;
}

/* Each run's items must be numbers: a sample each when emitting. */
static int numbers_run(const void *ctx, size_t r, const char *label, const char *part,
                       const json_t *items, int emit, tb_wl_sink *sink, tb_err *err)
{
    (void)ctx, (void)label;
    size_t i;
    const json_t *v;
    json_array_foreach(items, i, v)
    {
        if (!json_is_number(v))
            return tb_errf(err, "runs[%zu].items[%zu] is no number", r, i);
        if (emit && tb_wl_sample(sink, part, json_number_value(v), 0, "", err) < 0)
            return -1;
    }
    return 0;
}

/* A document's runs: read through one function per run, all checked before the first
   sample (a bad last run gives none); what a run must have, named. */
static void test_doc_runs(void **state)
{
    (void)state;
    int samples = 0;
    tb_wl_sink sink = {.ctx = &samples, .sample = count_sample, .dir_fd = -1};
    static const tb_wl_doc_runs_spec sp = {"x JSON", "label", "items", numbers_run};
    tb_err e;
    json_t *good = json_loads("{\"runs\": [{\"label\": \"A b\", \"items\": [1, 2]}, "
                              "{\"label\": \"c\", \"items\": [3]}]}",
                              0, NULL);
    assert_int_equal(tb_wl_doc_runs(good, &sp, NULL, &sink, &e), 0);
    assert_int_equal(samples, 3);
    samples = 0;
    json_t *bad = json_loads("{\"runs\": [{\"label\": \"a\", \"items\": [1, 2]}, "
                             "{\"label\": \"c\", \"items\": [\"3\"]}]}",
                             0, NULL);
    assert_int_equal(tb_wl_doc_runs(bad, &sp, NULL, &sink, &e), -1);
    assert_string_equal(e.msg, "runs[1].items[0] is no number");
    assert_int_equal(samples, 0);
    json_t *nolabel = json_loads("{\"runs\": [{\"items\": []}]}", 0, NULL);
    assert_int_equal(tb_wl_doc_runs(nolabel, &sp, NULL, &sink, &e), -1);
    assert_string_equal(e.msg, "x JSON: runs[0] needs \"label\" and \"items\"");
    json_t *none = json_loads("{\"runs\": []}", 0, NULL);
    assert_int_equal(tb_wl_doc_runs(none, &sp, NULL, &sink, &e), -1);
    assert_string_equal(e.msg, "x JSON: \"runs\" must be a non-empty array");
    json_decref(good);
    json_decref(bad);
    json_decref(nolabel);
    json_decref(none);
}

/* The plain state: setup's parameters and env kept, freed by tb_wl_free_state. */
static void test_plain_state(void **state)
{
    (void)state;
    int params = 7;
    tb_wl_env env = {.ncpu = 3};
    tb_wl_sink sink = {.dir_fd = -1};
    void *st = NULL;
    tb_err e;
    assert_int_equal(tb_wl_plain_setup(&params, &env, &sink, &st, &e), 0);
    const tb_wl_plain_state *p = st;
    assert_ptr_equal(p->params, &params);
    assert_ptr_equal(p->env, &env);
    tb_wl_free_state(st, &sink);
    /* a setup's own state: zeroed, and in *state before setup goes on */
    void *own = NULL;
    unsigned char *b = tb_wl_state_new(100, &own, &e);
    assert_non_null(b);
    assert_ptr_equal(own, b);
    for (int i = 0; i < 100; i++)
        assert_int_equal(b[i], 0);
    tb_wl_free_state(own, &sink);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_run_and_lines, sink_setup, sink_teardown),
        cmocka_unit_test_setup_teardown(test_run_ends, sink_setup, sink_teardown),
        cmocka_unit_test_setup_teardown(test_tool_step, sink_setup, sink_teardown),
        cmocka_unit_test(test_doc_helpers),
        cmocka_unit_test(test_doc_runs),
        cmocka_unit_test(test_plain_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
