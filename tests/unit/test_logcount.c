/* Unit tests for src/load/logcount: counts across block boundaries, growth,
 * an unterminated last line, a missing file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "load/logcount.h"

static void test_count(void **state)
{
    (void)state;
    char path[] = "/tmp/tb-logcount-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    for (int i = 0; i < 5000; i++) /* ~ 400 KB: several 64 KiB blocks */
        fprintf(f, "127.0.0.1 - - [x] \"GET / HTTP/1.1\" 200 615 line %d\n", i);
    fflush(f);
    uint64_t n;
    tb_err e;
    assert_int_equal(tb_log_count_lines(path, &n, &e), 0);
    assert_int_equal(n, 5000);
    fprintf(f, "partial");
    fflush(f);
    assert_int_equal(tb_log_count_lines(path, &n, &e), 0);
    assert_int_equal(n, 5000);
    fprintf(f, "\n\n");
    fclose(f);
    assert_int_equal(tb_log_count_lines(path, &n, &e), 0);
    assert_int_equal(n, 5002);
    unlink(path);
    assert_int_equal(tb_log_count_lines(path, &n, &e), -1);
    assert_non_null(strstr(e.msg, path));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_count)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
