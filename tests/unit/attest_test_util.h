/* Shared helpers for the attest unit tests (header-only; not a test itself). */
#ifndef TB_ATTEST_TEST_UTIL_H
#define TB_ATTEST_TEST_UTIL_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>

#include "attest/internal.h" /* tests may use the module-internal entry points */
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

/* A port on 127.0.0.1 where nothing listens (bound, then closed). Aborts (fails
 * the test) when the socket calls fail. */
static inline int dead_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t l = sizeof a;
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(s, (struct sockaddr *)&a, &l) != 0)
        abort();
    close(s);
    return ntohs(a.sin_port);
}

#endif
