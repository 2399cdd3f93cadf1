/* Unit tests for src/base: err, buf, file, clock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/err.h"
#include "base/file.h"

static void test_err_format_and_wrap(void **state)
{
    (void)state;
    tb_err e;
    assert_int_equal(tb_errf(&e, "bad %s\nline", "thing"), -1);
    assert_string_equal(e.msg, "bad thing line");
    tb_err_wrap(&e, "reading %d", 3);
    assert_string_equal(e.msg, "reading 3: bad thing line");
    assert_int_equal(tb_errf(NULL, "ignored"), -1);
}

static void test_buf_append_printf_consume(void **state)
{
    (void)state;
    tb_buf b = {0};
    for (int i = 0; i < 1000; i++)
        assert_int_equal(tb_buf_printf(&b, "%d,", i), 0);
    assert_true(b.len > 1000);
    assert_memory_equal(b.p, "0,1,2,", 6);
    assert_int_equal(b.p[b.len], 0);
    size_t before = b.len;
    tb_buf_consume(&b, 2);
    assert_int_equal(b.len, before - 2);
    assert_memory_equal(b.p, "1,2,", 4);
    tb_buf_consume(&b, b.len + 10);
    assert_int_equal(b.len, 0);
    tb_buf_clear(&b);
    assert_null(b.p);
}

static void test_path_join(void **state)
{
    (void)state;
    char out[16];
    tb_err e;
    assert_int_equal(tb_path_join(out, sizeof out, "/a/b", "c", &e), 0);
    assert_string_equal(out, "/a/b/c");
    assert_int_equal(tb_path_join(out, sizeof out, "/a/b/", "/c", &e), 0);
    assert_string_equal(out, "/a/b/c");
    assert_int_equal(tb_path_join(out, sizeof out, "/", "proc", &e), 0);
    assert_string_equal(out, "/proc");
    assert_int_equal(tb_path_join(out, sizeof out, "rel", NULL, &e), 0);
    assert_string_equal(out, "rel");
    /* exactly 15 characters fit in 16 bytes; 16 do not, and nothing truncated is left */
    assert_int_equal(tb_path_join(out, sizeof out, "/0123456789", "abc", &e), 0);
    assert_string_equal(out, "/0123456789/abc");
    assert_int_equal(tb_path_join(out, sizeof out, "/0123456789", "abcd", &e), -1);
    assert_string_equal(out, "");
    assert_non_null(strstr(e.msg, "path too long"));
}

static void test_file_atomic_roundtrip(void **state)
{
    (void)state;
    char dir[] = "/tmp/tb-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sub[256], path[300];
    snprintf(sub, sizeof sub, "%s/a/b/c", dir);
    tb_err e;
    assert_int_equal(tb_mkdirs(sub, &e), 0);
    snprintf(path, sizeof path, "%s/x.txt", sub);
    assert_int_equal(tb_file_write_atomic(path, "hello", 5, &e), 0);
    tb_buf b = {0};
    assert_int_equal(tb_file_read(path, 100, &b, &e), 0);
    assert_int_equal(b.len, 5);
    assert_string_equal((char *)b.p, "hello");
    tb_buf_reset(&b);
    assert_int_equal(tb_file_read(path, 3, &b, &e), -1);
    assert_non_null(strstr(e.msg, "larger than 3 bytes"));
    assert_int_equal(b.len, 0); /* failure leaves out as it was */
    tb_buf_clear(&b);
    assert_int_equal(tb_file_read(path, 3, &b, &e), -1);
    assert_null(b.p); /* a fresh buffer needs no cleanup after a failure */
    assert_int_equal(tb_buf_append(&b, "ab", 2), 0);
    assert_int_equal(tb_file_read(path, 3, &b, &e), -1);
    assert_int_equal(b.len, 2);
    assert_string_equal((char *)b.p, "ab");
    tb_buf_reset(&b);
    assert_int_equal(tb_file_read(sub, 3, &b, &e), -1);
    assert_non_null(strstr(e.msg, "is a directory"));
    snprintf(path, sizeof path, "%s/missing", dir);
    assert_int_equal(tb_file_read(path, 3, &b, &e), -1);
    assert_non_null(strstr(e.msg, "No such file"));
    tb_buf_clear(&b);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* Entries of dir besides . and .. */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *de; (de = readdir(d));)
        n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
    closedir(d);
    return n;
}

/* A shared directory where another user planted symlinks: at the temporary name
 * the old code used (<path>.tmp.<pid>) and at the final path. Neither is followed:
 * the victim file keeps its bytes, the key lands in a new file of mode 0600 that
 * we own, and the planted link at the temporary name is left alone. */
static void test_file_atomic_planted_symlinks(void **state)
{
    (void)state;
    char dir[] = "/tmp/tb-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char victim[300], path[300], planted[400];
    snprintf(victim, sizeof victim, "%s/victim", dir);
    snprintf(path, sizeof path, "%s/notary-key.pem", dir);
    tb_err e;
    assert_int_equal(tb_file_write_atomic(victim, "precious", 8, &e), 0);
    snprintf(planted, sizeof planted, "%s.tmp.%ld", path, (long)getpid());
    assert_int_equal(symlink(victim, planted), 0);
    assert_int_equal(tb_file_write_atomic_mode(path, "KEY", 3, 0600, &e), 0);
    tb_buf b = {0};
    assert_int_equal(tb_file_read(victim, 100, &b, &e), 0);
    assert_string_equal((char *)b.p, "precious");
    tb_buf_reset(&b);
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(st.st_uid, geteuid());
    assert_int_equal(lstat(planted, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    /* A symlink at the final path is replaced, not written through. */
    assert_int_equal(unlink(path), 0);
    assert_int_equal(symlink(victim, path), 0);
    assert_int_equal(tb_file_write_atomic_mode(path, "KEY2", 4, 0600, &e), 0);
    assert_int_equal(tb_file_read(victim, 100, &b, &e), 0);
    assert_string_equal((char *)b.p, "precious");
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(count_entries(dir), 3); /* victim, key, the planted link: no temp file */
    tb_buf_clear(&b);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* A private directory: created 0700 (parents too), an existing one of ours taken;
 * a symlink, a world- or group-writable one and (as root) another user's refused. */
static void test_dir_open_private(void **state)
{
    (void)state;
    char dir[] = "/tmp/tb-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char p[300], q[300];
    tb_err e;
    mode_t old = umask(022);
    snprintf(p, sizeof p, "%s/a/b/run", dir);
    int fd = tb_dir_open_private(p, 0700, &e);
    assert_true(fd >= 0);
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0700);
    close(fd);
    fd = tb_dir_open_private(p, 0700, &e); /* again: it exists, it is ours */
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(chmod(p, 0777), 0);
    assert_int_equal(tb_dir_open_private(p, 0700, &e), -1);
    assert_non_null(strstr(e.msg, "writable by others (mode 0777): refusing it"));
    assert_int_equal(chmod(p, 0770), 0);
    assert_int_equal(tb_dir_open_private(p, 0700, &e), -1);
    assert_non_null(strstr(e.msg, "writable by its group"));
    assert_int_equal(chmod(p, 0755), 0);
    snprintf(q, sizeof q, "%s/link", dir);
    assert_int_equal(symlink(p, q), 0);
    assert_int_equal(tb_dir_open_private(q, 0700, &e), -1);
    assert_non_null(strstr(e.msg, "a symbolic link, not a directory: refusing it"));
    if (geteuid() == 0) {
        assert_int_equal(chown(p, 65534, (gid_t)-1), 0);
        assert_int_equal(tb_dir_open_private(p, 0700, &e), -1);
        assert_non_null(strstr(e.msg, "owned by uid 65534, not by this user"));
    }
    umask(old);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_file_atomic_mode(void **state)
{
    (void)state;
    char dir[] = "/tmp/tb-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[300];
    snprintf(path, sizeof path, "%s/key.pem", dir);
    tb_err e;
    mode_t old = umask(022);
    assert_int_equal(tb_file_write_atomic_mode(path, "secret", 6, 0600, &e), 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(st.st_size, 6);
    /* Over an existing file: replaced, with the new mode. */
    assert_int_equal(tb_file_write_atomic_mode(path, "public", 6, 0644, &e), 0);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);
    umask(old);
    /* No temporary file is left behind. */
    assert_int_equal(count_entries(dir), 1);
    /* A missing directory: an error naming the path, nothing created. */
    snprintf(path, sizeof path, "%s/no/key.pem", dir);
    assert_int_equal(tb_file_write_atomic_mode(path, "x", 1, 0600, &e), -1);
    assert_non_null(strstr(e.msg, "no/key.pem"));
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_clock(void **state)
{
    (void)state;
    uint64_t a = tb_mono_ns();
    tb_sleep_ns(2000000);
    uint64_t b = tb_mono_ns();
    assert_true(b - a >= 2000000);
    /* thread CPU time advances with work (1 ms of it here) */
    uint64_t c0 = tb_thread_cpu_ns();
    volatile uint64_t x = 0;
    while (tb_thread_cpu_ns() - c0 < 1000000)
        x++;
    assert_true(x > 0 && tb_thread_cpu_ns() > c0);
    char s[17];
    tb_utc_stamp(0, s);
    assert_string_equal(s, "19700101T000000Z");
    tb_utc_stamp(1739419232, s);
    assert_string_equal(s, "20250213T040032Z");
    char iso[21];
    tb_utc_iso8601(0, iso, sizeof iso);
    assert_string_equal(iso, "1970-01-01T00:00:00Z");
    tb_utc_iso8601(1739419232, iso, sizeof iso);
    assert_string_equal(iso, "2025-02-13T04:00:32Z");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_err_format_and_wrap),
        cmocka_unit_test(test_buf_append_printf_consume),
        cmocka_unit_test(test_file_atomic_roundtrip),
        cmocka_unit_test(test_path_join),
        cmocka_unit_test(test_file_atomic_mode),
        cmocka_unit_test(test_file_atomic_planted_symlinks),
        cmocka_unit_test(test_dir_open_private),
        cmocka_unit_test(test_clock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
