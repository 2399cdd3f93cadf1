/* Shared helpers for the attest unit tests (header-only; not a test itself). */
#ifndef TB_ATTEST_TEST_UTIL_H
#define TB_ATTEST_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "attest/attest.h"
#include "base/buf.h"
#include "base/file.h"

static inline const char *testdata(void)
{
    const char *t = getenv("TEEBENCH_TESTDATA");
    return t ? t : TEEBENCH_SOURCE_DIR "/testdata";
}

static inline void case_path(const char *name, const char *file, char *out, size_t n)
{
    snprintf(out, n, "%s/tdx/%s/%s", testdata(), name, file);
}

/* Reads a whole file; aborts the test on failure. */
static inline tb_buf read_all(const char *path)
{
    tb_buf b = {0};
    tb_err e;
    if (tb_file_read(path, 1 << 24, &b, &e) < 0) {
        fprintf(stderr, "%s\n", e.msg);
        abort();
    }
    return b;
}

static inline long long case_now(const char *name)
{
    char p[1024];
    case_path(name, "case.json", p, sizeof p);
    json_t *o = json_load_file(p, 0, NULL);
    long long now = json_integer_value(json_object_get(o, "now"));
    json_decref(o);
    return now;
}

/* A fresh temporary directory (removed by the caller with rm_rf). */
static inline void make_tmpdir(char *out, size_t n)
{
    snprintf(out, n, "/tmp/tb-attest-test.XXXXXX");
    if (!mkdtemp(out))
        abort();
}

static inline void rm_rf(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

#endif
