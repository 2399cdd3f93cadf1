/* Unit tests for vm/qmp: the message parser and line splitter on good and bad
 * bytes, the query-cpus-fast reader, and the client against a fake QMP server
 * (a thread on a unix socket) that interleaves events, answers with errors,
 * stays silent, sends garbage or hangs up. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/clock.h"
#include "vm/qmp.h"

static void test_parse(void **state)
{
    (void)state;
    tb_qmp_msg m;
    tb_err e;
    const char *g = "{\"QMP\": {\"version\": {\"qemu\": {\"micro\": 22, \"minor\": 2, \"major\": "
                    "7}}, \"capabilities\": [\"oob\"]}}";
    assert_int_equal(tb_qmp_parse(g, strlen(g), &m, &e), 0);
    assert_int_equal(m.type, TB_QMP_GREETING);
    json_decref(m.json);

    const char *r = "{\"return\": {}, \"id\": 7}";
    assert_int_equal(tb_qmp_parse(r, strlen(r), &m, &e), 0);
    assert_int_equal(m.type, TB_QMP_RETURN);
    assert_int_equal(m.id, 7);
    assert_true(json_is_object(m.value));
    json_decref(m.json);

    const char *er = "{\"error\": {\"class\": \"CommandNotFound\", \"desc\": \"The command x has "
                     "not been found\"}, \"id\": 3}";
    assert_int_equal(tb_qmp_parse(er, strlen(er), &m, &e), 0);
    assert_int_equal(m.type, TB_QMP_ERROR);
    assert_string_equal(m.desc, "CommandNotFound: The command x has not been found");
    json_decref(m.json);

    const char *ev = "{\"timestamp\": {\"seconds\": 1, \"microseconds\": 2}, \"event\": "
                     "\"POWERDOWN\"}";
    assert_int_equal(tb_qmp_parse(ev, strlen(ev), &m, &e), 0);
    assert_int_equal(m.type, TB_QMP_EVENT);
    assert_string_equal(m.desc, "POWERDOWN");
    assert_int_equal(m.id, -1);
    json_decref(m.json);

    const char *bad[] = {"",
                         "{",
                         "[]",
                         "42",
                         "{\"foo\": 1}",
                         "{\"error\": {\"class\": \"X\"}}",
                         "{\"error\": \"boom\"}",
                         "{\"event\": 5}",
                         "{\"QMP\": []}",
                         "{\"return\": 1, \"return\": 2}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        m.json = (json_t *)1;
        assert_int_equal(tb_qmp_parse(bad[i], strlen(bad[i]), &m, &e), -1);
        assert_null(m.json);
    }
}

static void test_take_line(void **state)
{
    (void)state;
    tb_buf in = {0}, line = {0};
    tb_err e;
    tb_buf_puts(&in, "{\"a\":1}\r\n{\"b\":2}\n{\"c\"");
    assert_int_equal(tb_qmp_take_line(&in, &line, &e), 1);
    assert_string_equal((char *)line.p, "{\"a\":1}");
    assert_int_equal(tb_qmp_take_line(&in, &line, &e), 1);
    assert_string_equal((char *)line.p, "{\"b\":2}");
    assert_int_equal(tb_qmp_take_line(&in, &line, &e), 0);
    tb_buf_puts(&in, ":3}\r\n");
    assert_int_equal(tb_qmp_take_line(&in, &line, &e), 1);
    assert_string_equal((char *)line.p, "{\"c\":3}");
    assert_int_equal(in.len, 0);
    /* no line end within the limit */
    tb_buf_reset(&in);
    for (size_t i = 0; i <= TB_QMP_MAX_LINE / 64; i++)
        tb_buf_puts(&in, "0123456789012345678901234567890123456789012345678901234567890123");
    assert_int_equal(tb_qmp_take_line(&in, &line, &e), -1);
    assert_non_null(strstr(e.msg, "longer than"));
    tb_buf_clear(&in);
    tb_buf_clear(&line);
}

static json_t *cpus_json(const char *text)
{
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    assert_non_null(j);
    return j;
}

static void test_cpu_threads(void **state)
{
    (void)state;
    int tids[8], n;
    tb_err e;
    json_t *j = cpus_json("[{\"thread-id\": 16607, \"cpu-index\": 1, \"target\": \"x86_64\"},"
                          " {\"thread-id\": 16606, \"cpu-index\": 0}]");
    assert_int_equal(tb_qmp_cpu_threads(j, tids, 8, &n, &e), 0);
    assert_int_equal(n, 2);
    assert_int_equal(tids[0], 16606);
    assert_int_equal(tids[1], 16607);
    assert_int_equal(tb_qmp_cpu_threads(j, tids, 1, &n, &e), -1); /* more than max */
    json_decref(j);
    const char *bad[] = {"{}",
                         "[]",
                         "[{\"thread-id\": 5}]",
                         "[{\"thread-id\": \"5\", \"cpu-index\": 0}]",
                         "[{\"thread-id\": 5, \"cpu-index\": 1}]",
                         ("[{\"thread-id\": 5, \"cpu-index\": 0}, {\"thread-id\": 6, "
                          "\"cpu-index\": 0}]"),
                         "[{\"thread-id\": 0, \"cpu-index\": 0}]",
                         "[{\"thread-id\": -3, \"cpu-index\": 0}]",
                         "[{\"thread-id\": 5, \"cpu-index\": -1}]",
                         "[7]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        j = cpus_json(bad[i]);
        assert_int_equal(tb_qmp_cpu_threads(j, tids, 8, &n, &e), -1);
        json_decref(j);
    }
}

/* ---- a fake QMP server ---- */

typedef enum { FAKE_GOOD, FAKE_GARBAGE, FAKE_HANGUP, FAKE_NO_GREETING } fake_mode;

typedef struct fake {
    char path[108];
    int lfd;
    fake_mode mode;
    pthread_t thread;
    int commands; /* commands received (after the thread ended) */
} fake;

/* Runs on the fake's thread: no cmocka asserts here (they longjmp); a short write
   shows up as a failing client call on the test's thread. */
static void say(int fd, const char *s)
{
    ssize_t n = write(fd, s, strlen(s));
    (void)n;
}

/* Answers one command line (from the id in it). Returns 0 to go on, 1 to hang up. */
static int answer(fake *f, int fd, const char *line)
{
    json_error_t je;
    json_t *req = json_loads(line, 0, &je);
    if (!req)
        return 1;
    const char *cmd = json_string_value(json_object_get(req, "execute"));
    json_int_t id = json_integer_value(json_object_get(req, "id"));
    char out[1024];
    f->commands++;
    if (!cmd) {
        json_decref(req);
        return 1;
    }
    if (!strcmp(cmd, "qmp_capabilities")) {
        snprintf(out, sizeof out, "{\"return\": {}, \"id\": %lld}\r\n", (long long)id);
        say(fd, out);
    } else if (!strcmp(cmd, "query-cpus-fast")) {
        /* an event first, a stale reply to another id, then the answer in two pieces */
        say(fd, "{\"timestamp\": {\"seconds\": 1, \"microseconds\": 0}, \"event\": "
                "\"RESUME\"}\r\n");
        snprintf(out, sizeof out, "{\"return\": [], \"id\": %lld}\r\n", (long long)id + 100);
        say(fd, out);
        snprintf(out, sizeof out,
                 "{\"return\": [{\"thread-id\": 101, \"cpu-index\": 0}, {\"thread-id\": 102, "
                 "\"cpu-index\": 1}], \"id\": %lld}\r\n",
                 (long long)id);
        char head[600];
        size_t half = strlen(out) / 2;
        snprintf(head, sizeof head, "%.*s", (int)half, out);
        say(fd, head);
        usleep(20000);
        say(fd, out + half);
    } else if (!strcmp(cmd, "system_powerdown")) {
        snprintf(out, sizeof out,
                 "{\"id\": %lld, \"error\": {\"class\": \"GenericError\", \"desc\": \"no "
                 "ACPI\"}}\r\n",
                 (long long)id);
        say(fd, out);
    } else if (!strcmp(cmd, "quit")) {
        json_decref(req);
        return 1;
    } /* anything else: silence */
    json_decref(req);
    return 0;
}

static void *fake_main(void *arg)
{
    fake *f = arg;
    int fd = accept(f->lfd, NULL, NULL);
    if (fd < 0)
        return NULL;
    if (f->mode == FAKE_GARBAGE) {
        say(fd, "this is not JSON\r\n");
    } else if (f->mode == FAKE_NO_GREETING) {
        say(fd, "{\"return\": {}}\r\n");
    } else if (f->mode == FAKE_GOOD) {
        say(fd, "{\"QMP\": {\"version\": {}, \"capabilities\": []}}\r\n");
        tb_buf in = {0}, line = {0};
        char buf[512];
        tb_err e;
        for (int done = 0; !done;) {
            ssize_t n = read(fd, buf, sizeof buf);
            if (n <= 0)
                break;
            tb_buf_append(&in, buf, (size_t)n);
            while (!done && tb_qmp_take_line(&in, &line, &e) == 1)
                done = answer(f, fd, (const char *)line.p);
        }
        tb_buf_clear(&in);
        tb_buf_clear(&line);
    }
    close(fd);
    return NULL;
}

static void fake_start(fake *f, fake_mode mode)
{
    memset(f, 0, sizeof *f);
    f->mode = mode;
    snprintf(f->path, sizeof f->path, "/tmp/tb-qmp-test.%d.sock", (int)getpid());
    unlink(f->path);
    f->lfd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    memcpy(sa.sun_path, f->path, strlen(f->path) + 1);
    assert_int_equal(bind(f->lfd, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(listen(f->lfd, 1), 0);
    assert_int_equal(pthread_create(&f->thread, NULL, fake_main, f), 0);
}

static void fake_stop(fake *f)
{
    pthread_join(f->thread, NULL);
    close(f->lfd);
    unlink(f->path);
}

static void test_client(void **state)
{
    (void)state;
    fake f;
    fake_start(&f, FAKE_GOOD);
    tb_qmp q;
    tb_err e;
    assert_int_equal(tb_qmp_open(&q, f.path, 2000, &e), 0);
    json_t *ret = NULL;
    assert_int_equal(tb_qmp_exec(&q, "query-cpus-fast", NULL, &ret, &e), 0);
    int tids[4], n;
    assert_int_equal(tb_qmp_cpu_threads(ret, tids, 4, &n, &e), 0);
    assert_int_equal(n, 2);
    assert_int_equal(tids[1], 102);
    json_decref(ret);
    /* an error answer is an error, with QEMU's words */
    assert_int_equal(tb_qmp_exec(&q, "system_powerdown", NULL, NULL, &e), -1);
    assert_string_equal(e.msg, "system_powerdown: GenericError: no ACPI");
    /* silence: bounded by the timeout */
    q.timeout_ms = 200;
    uint64_t t0 = tb_mono_ns();
    assert_int_equal(tb_qmp_exec(&q, "query-status", NULL, NULL, &e), -1);
    assert_non_null(strstr(e.msg, "no answer within 200 ms"));
    assert_true(tb_mono_ns() - t0 < 2000000000ull);
    /* QEMU going away mid-command */
    q.timeout_ms = 2000;
    assert_int_equal(tb_qmp_exec(&q, "quit", NULL, NULL, &e), -1);
    assert_non_null(strstr(e.msg, "closed the connection"));
    tb_qmp_close(&q);
    fake_stop(&f);
    assert_int_equal(f.commands, 5);
}

static void test_client_bad_servers(void **state)
{
    (void)state;
    fake f;
    tb_qmp q;
    tb_err e;
    fake_start(&f, FAKE_GARBAGE);
    assert_int_equal(tb_qmp_open(&q, f.path, 2000, &e), -1);
    assert_non_null(strstr(e.msg, "not JSON"));
    fake_stop(&f);
    fake_start(&f, FAKE_NO_GREETING);
    assert_int_equal(tb_qmp_open(&q, f.path, 2000, &e), -1);
    assert_non_null(strstr(e.msg, "greeting"));
    fake_stop(&f);
    fake_start(&f, FAKE_HANGUP);
    assert_int_equal(tb_qmp_open(&q, f.path, 2000, &e), -1);
    assert_non_null(strstr(e.msg, "closed"));
    fake_stop(&f);
    /* nobody there: the connect retries end at the timeout */
    uint64_t t0 = tb_mono_ns();
    assert_int_equal(tb_qmp_open(&q, "/tmp/tb-qmp-test-nothing-here.sock", 150, &e), -1);
    assert_non_null(strstr(e.msg, "connect"));
    assert_true(tb_mono_ns() - t0 >= 150000000ull);
    char longpath[200];
    memset(longpath, 'x', sizeof longpath);
    longpath[0] = '/';
    longpath[sizeof longpath - 1] = 0;
    assert_int_equal(tb_qmp_open(&q, longpath, 100, &e), -1);
    assert_non_null(strstr(e.msg, "too long"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_take_line),
        cmocka_unit_test(test_cpu_threads),
        cmocka_unit_test(test_client),
        cmocka_unit_test(test_client_bad_servers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
