/* Unit tests for src/base/proc: exit codes, output files, environment, timeouts
 * that kill the whole process group (124), cancellation, graceful stop. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/prctl.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/file.h"
#include "base/proc.h"

static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/tb-proc-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void path(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", dir, name);
}

static char *slurp(const char *p, tb_buf *b)
{
    tb_err e;
    tb_buf_reset(b);
    assert_int_equal(tb_file_read(p, 1 << 20, b, &e), 0);
    return b->len ? (char *)b->p : "";
}

static void test_exit_code_and_outputs(void **state)
{
    (void)state;
    char out[128], err[128];
    path(out, sizeof out, "o.log");
    path(err, sizeof err, "e.log");
    char *argv[] = {"sh", "-c", "echo out-$FOO; echo err >&2; exit 3", NULL};
    char *env[] = {"FOO=bar", NULL};
    tb_proc_opts o = {.argv = argv, .env_set = env, .stdout_path = out, .stderr_path = err};
    tb_proc_result r;
    tb_err e;
    assert_int_equal(tb_proc_run(&o, 5000, NULL, &r, &e), 0);
    assert_int_equal(r.exit_code, 3);
    assert_false(r.timed_out);
    assert_false(r.cancelled);
    assert_true(r.wall_ns > 0);
    tb_buf b = {0};
    assert_string_equal(slurp(out, &b), "out-bar\n");
    assert_string_equal(slurp(err, &b), "err\n");
    tb_buf_clear(&b);
}

static void test_signal_exit_code(void **state)
{
    (void)state;
    char *argv[] = {"sh", "-c", "kill -9 $$", NULL};
    tb_proc_opts o = {.argv = argv};
    tb_proc_result r;
    tb_err e;
    assert_int_equal(tb_proc_run(&o, 5000, NULL, &r, &e), 0);
    assert_int_equal(r.exit_code, 128 + 9);
}

static void test_exec_failure(void **state)
{
    (void)state;
    char *argv[] = {"/nonexistent/teebench-client", NULL};
    tb_proc_opts o = {.argv = argv};
    tb_proc_result r;
    tb_err e;
    assert_int_equal(tb_proc_run(&o, 5000, NULL, &r, &e), -1);
    assert_non_null(strstr(e.msg, "cannot run /nonexistent/teebench-client"));
    assert_non_null(strstr(e.msg, "No such file"));
    char bad[128];
    path(bad, sizeof bad, "no/such/dir/o.log");
    char *ok[] = {"true", NULL};
    tb_proc_opts o2 = {.argv = ok, .stdout_path = bad};
    assert_int_equal(tb_proc_run(&o2, 5000, NULL, &r, &e), -1);
    assert_non_null(strstr(e.msg, "o.log"));
}

static int gone(pid_t pid)
{
    for (int i = 0; i < 200; i++) {
        if (kill(pid, 0) < 0 && errno == ESRCH)
            return 1;
        tb_sleep_ns(10000000);
    }
    return 0;
}

static void test_timeout_kills_group(void **state)
{
    (void)state;
    char pidfile[128], cmd[256];
    path(pidfile, sizeof pidfile, "grandchild.pid");
    snprintf(cmd, sizeof cmd, "sleep 30 & echo $! > %s; wait", pidfile);
    char *argv[] = {"sh", "-c", cmd, NULL};
    tb_proc_opts o = {.argv = argv};
    tb_proc_result r;
    tb_err e;
    uint64_t t0 = tb_mono_ns();
    assert_int_equal(tb_proc_run(&o, 300, NULL, &r, &e), 0);
    uint64_t took = tb_mono_ns() - t0;
    assert_int_equal(r.exit_code, TB_PROC_TIMEOUT_CODE);
    assert_true(r.timed_out);
    assert_true(took >= 300000000ull);
    assert_true(took < 5000000000ull);
    tb_buf b = {0};
    long gpid = atol(slurp(pidfile, &b));
    tb_buf_clear(&b);
    assert_true(gpid > 0);
    assert_true(gone((pid_t)gpid)); /* the background sleep died with its group */
}

static void test_normal_exit_kills_leftovers(void **state)
{
    (void)state;
    char pidfile[128], cmd[256];
    path(pidfile, sizeof pidfile, "leftover.pid");
    snprintf(cmd, sizeof cmd, "sleep 30 >/dev/null 2>&1 & echo $! > %s; exit 0", pidfile);
    char *argv[] = {"sh", "-c", cmd, NULL};
    tb_proc_opts o = {.argv = argv};
    tb_proc_result r;
    tb_err e;
    assert_int_equal(tb_proc_run(&o, 5000, NULL, &r, &e), 0);
    assert_int_equal(r.exit_code, 0);
    tb_buf b = {0};
    long gpid = atol(slurp(pidfile, &b));
    tb_buf_clear(&b);
    assert_true(gpid > 0 && gone((pid_t)gpid));
}

static void test_cancel(void **state)
{
    (void)state;
    char *argv[] = {"sleep", "30", NULL};
    tb_proc_opts o = {.argv = argv};
    tb_proc_result r;
    tb_err e;
    volatile sig_atomic_t cancel = 1;
    uint64_t t0 = tb_mono_ns();
    assert_int_equal(tb_proc_run(&o, 10000, &cancel, &r, &e), 0);
    assert_true(r.cancelled);
    assert_false(r.timed_out);
    assert_true(tb_mono_ns() - t0 < 2000000000ull);
}

/* Piped streams: what the parent writes reaches stdin; stdout and stderr come back
   apart; closing stdin ends a child that reads to EOF. */
static void test_pipes(void **state)
{
    (void)state;
    char *argv[] = {"sh", "-c", "read x; echo \"out:$x\"; echo err >&2; cat >/dev/null; exit 3",
                    NULL};
    tb_proc_opts o = {.argv = argv, .pipes = TB_PROC_PIPE_IN | TB_PROC_PIPE_OUT | TB_PROC_PIPE_ERR};
    tb_proc p;
    tb_err e;
    assert_int_equal(tb_proc_spawn(&o, &p, &e), 0);
    assert_true(p.in >= 0 && p.out >= 0 && p.err >= 0);
    assert_int_equal(write(p.in, "hello\n", 6), 6);
    char buf[64];
    ssize_t n = read(p.out, buf, sizeof buf - 1);
    assert_true(n > 0);
    buf[n] = 0;
    assert_string_equal(buf, "out:hello\n");
    n = read(p.err, buf, sizeof buf - 1);
    assert_true(n > 0);
    buf[n] = 0;
    assert_string_equal(buf, "err\n");
    close(p.in); /* EOF: cat ends, the child exits */
    p.in = -1;
    assert_int_equal(tb_proc_wait(&p, 5000, NULL, &e), TB_PROC_EXITED);
    assert_int_equal(p.code, 3);
    tb_proc_close_pipes(&p);
    assert_int_equal(p.out, -1);
    /* without pipes the fields stay -1 */
    char *t[] = {"true", NULL};
    tb_proc_opts o2 = {.argv = t};
    assert_int_equal(tb_proc_spawn(&o2, &p, &e), 0);
    assert_true(p.in == -1 && p.out == -1 && p.err == -1);
    assert_int_equal(tb_proc_wait(&p, 5000, NULL, &e), TB_PROC_EXITED);
}

static void test_stop_graceful_and_forced(void **state)
{
    (void)state;
    tb_err e;
    tb_proc p;
    char *argv[] = {"sleep", "30", NULL};
    tb_proc_opts o = {.argv = argv};
    assert_int_equal(tb_proc_spawn(&o, &p, &e), 0);
    assert_int_equal(tb_proc_alive(&p), 1);
    assert_int_equal(tb_proc_wait(&p, 50, NULL, &e), TB_PROC_TIMEDOUT);
    assert_int_equal(tb_proc_stop(&p, 2000), 128 + SIGTERM);
    assert_int_equal(tb_proc_alive(&p), 0);

    char *stubborn[] = {"sh", "-c", "trap '' TERM; while :; do sleep 0.05; done", NULL};
    tb_proc_opts o2 = {.argv = stubborn};
    assert_int_equal(tb_proc_spawn(&o2, &p, &e), 0);
    tb_sleep_ns(100000000);
    uint64_t t0 = tb_mono_ns();
    assert_int_equal(tb_proc_stop(&p, 200), 128 + SIGKILL);
    assert_true(tb_mono_ns() - t0 < 3000000000ull);

    char *quick[] = {"true", NULL};
    tb_proc_opts o3 = {.argv = quick};
    assert_int_equal(tb_proc_spawn(&o3, &p, &e), 0);
    assert_int_equal(tb_proc_wait(&p, 5000, NULL, &e), TB_PROC_EXITED);
    assert_int_equal(p.code, 0);
    assert_int_equal(tb_proc_alive(&p), 0);
}

/* kill -9 of the parent: the child it spawned dies too (PR_SET_PDEATHSIG). The
 * test process is a subreaper, so the orphan is reparented to it and can be
 * waited for: it must end by SIGKILL within seconds, not sleep its 30 s. */
static void test_child_dies_with_parent(void **state)
{
    (void)state;
    assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t mid = fork();
    assert_true(mid >= 0);
    if (mid == 0) {
        close(fds[0]);
        char *argv[] = {"sleep", "30", NULL};
        tb_proc_opts o = {.argv = argv};
        tb_proc p;
        tb_err e;
        if (tb_proc_spawn(&o, &p, &e) < 0)
            _exit(1);
        ssize_t n = write(fds[1], &p.pid, sizeof p.pid);
        (void)n;
        kill(getpid(), SIGKILL); /* the harness killed with kill -9 */
        _exit(2);
    }
    close(fds[1]);
    pid_t child = -1;
    assert_int_equal(read(fds[0], &child, sizeof child), (ssize_t)sizeof child);
    close(fds[0]);
    int st = 0;
    assert_int_equal(waitpid(mid, &st, 0), mid);
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    pid_t w = 0;
    for (int i = 0; i < 500 && w == 0; i++) {
        w = waitpid(child, &st, WNOHANG);
        if (w == 0)
            tb_sleep_ns(10000000);
    }
    if (w == 0) {
        kill(child, SIGKILL);
        waitpid(child, &st, 0);
        fail_msg("the child outlived its parent by 5 s");
    }
    assert_int_equal(w, child);
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_code_and_outputs),
        cmocka_unit_test(test_signal_exit_code),
        cmocka_unit_test(test_exec_failure),
        cmocka_unit_test(test_timeout_kills_group),
        cmocka_unit_test(test_normal_exit_kills_leftovers),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_stop_graceful_and_forced),
        cmocka_unit_test(test_pipes),
        cmocka_unit_test(test_child_dies_with_parent),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
