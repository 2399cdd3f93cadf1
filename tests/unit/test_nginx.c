/* Unit tests for serve/nginx: the generated config (every written path inside
 * the run directory, TLS and IPv6 listen lines, rejected inputs), pid-file
 * handling, and a real start/stop when /usr/sbin/nginx is installed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/file.h"
#include "load/logcount.h"
#include "net/sock.h"
#include "serve/internal.h"
#include "serve/nginx.h"

static char *config(const tb_nginx_opts *o, tb_err *err)
{
    tb_buf b = {0};
    if (tb_nginx_config(o, &b, err) < 0) {
        tb_buf_clear(&b);
        return NULL;
    }
    return (char *)b.p;
}

static void test_config(void **state)
{
    (void)state;
    tb_err err;
    tb_nginx_opts o = {.dir = "/run/x y", .port = 8081, .workers = 3};
    char *c = config(&o, &err);
    assert_non_null(c);
    assert_non_null(strstr(c, "worker_processes 3;\n"));
    assert_non_null(strstr(c, "daemon on;\n"));
    /* nginx runs inside the run directory (-p ./): every path it writes is relative */
    assert_non_null(strstr(c, "pid \"nginx.pid\";\n"));
    assert_non_null(strstr(c, "error_log \"error.log\" warn;\n"));
    assert_non_null(strstr(c, "access_log \"access.log\";\n"));
    assert_non_null(strstr(c, "listen 127.0.0.1:8081;\n"));
    assert_non_null(strstr(c, "root \"html\";\n"));
    assert_null(strstr(c, "ssl"));
    /* Every line naming a path (a quoted string) names a relative one, inside the run
     * directory: no absolute path, no "..", except the root when it is given. */
    for (char *line = c; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        char *eol = strchr(line, '\n'), *q = strchr(line, '"');
        if (line[0] == '#' || !q || (eol && q > eol))
            continue;
        char *end = strchr(q + 1, '"'), *dots = strstr(q, "..");
        assert_non_null(end);
        if (q[1] == '/' || (dots && dots < end))
            fail_msg("path outside the run dir: %.40s", q);
    }
    /* As root the workers run as an unprivileged user, never as root by default. */
    if (geteuid() == 0) {
        assert_null(strstr(c, "\nuser root "));
        assert_true(strstr(c, "\nuser www-data ") || strstr(c, "\nuser nobody "));
    } else {
        assert_null(strstr(c, "\nuser "));
    }
    free(c);

    o = (tb_nginx_opts){.dir = "/d",
                        .addr = "::1",
                        .port = 443,
                        .workers = 1,
                        .tls = 1,
                        .cert = "/p/server.pem",
                        .key = "/p/server-key.pem",
                        .root = "/srv"};
    c = config(&o, &err);
    assert_non_null(c);
    assert_non_null(strstr(c, "listen [::1]:443 ssl;\n"));
    assert_non_null(strstr(c, "ssl_certificate \"/p/server.pem\";\n"));
    assert_non_null(strstr(c, "ssl_certificate_key \"/p/server-key.pem\";\n"));
    assert_non_null(strstr(c, "root \"/srv\";\n"));
    free(c);
}

static void test_config_rejects(void **state)
{
    (void)state;
    tb_err err;
    static const tb_nginx_opts bad[] = {
        {.dir = "relative", .port = 80, .workers = 1},
        {.dir = "/d", .port = 0, .workers = 1},
        {.dir = "/d", .port = 70000, .workers = 1},
        {.dir = "/d", .port = 80, .workers = 0},
        {.dir = "/d\";evil", .port = 80, .workers = 1},
        {.dir = "/d", .root = "/r$x", .port = 80, .workers = 1},
        {.dir = "/d", .addr = "1.2.3.4; evil", .port = 80, .workers = 1},
        {.dir = "/d", .port = 80, .workers = 1, .tls = 1},
        {.dir = "/d", .port = 80, .workers = 1, .tls = 1, .cert = "c.pem", .key = "/k"},
        {.dir = NULL, .port = 80, .workers = 1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *c = config(&bad[i], &err);
        if (c)
            fail_msg("case %zu accepted", i);
        assert_true(strlen(err.msg) > 0);
    }
}

static void test_pid_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/tb-nginx-test.XXXXXX", path[256];
    tb_err err;
    assert_non_null(mkdtemp(dir));
    assert_int_equal(tb_nginx_pid(dir, &err), -1);
    assert_non_null(strstr(err.msg, "no nginx runs"));
    /* A pid file naming a live process that is not nginx (this test) is stale. */
    snprintf(path, sizeof path, "%s/nginx.pid", dir);
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    assert_int_equal(tb_file_write_atomic(path, pid, (size_t)n, &err), 0);
    assert_int_equal(tb_nginx_pid(dir, &err), -1);
    assert_non_null(strstr(err.msg, "stale"));
    assert_int_equal(tb_nginx_stop(dir, 1000, &err), -1);
    unlink(path);
    rmdir(dir);
}

static void test_start_stop(void **state)
{
    (void)state;
    char dir[] = "/tmp/tb-nginx-test.XXXXXX", run[300], log[320];
    tb_err err;
    assert_non_null(mkdtemp(dir));
    /* as root, nginx's workers run as an unprivileged user: they pass through dir */
    assert_int_equal(chmod(dir, 0755), 0);
    snprintf(run, sizeof run, "%s/run", dir);
    /* A free port: bind to 0, read it, close. */
    int lfd;
    assert_int_equal(tb_sock_listen("127.0.0.1", "0", 1, 0, &lfd, &err), 0);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    getsockname(lfd, (struct sockaddr *)&ss, &sl);
    int port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
    close(lfd);

    tb_nginx_opts o = {.dir = run, .port = port, .workers = 1};
    tb_nginx_opts missing = o;
    missing.nginx = "/nonexistent/nginx";
    assert_int_equal(tb_nginx_start(&missing, 2000, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "/nonexistent/nginx"));

    pid_t started = -1;
    assert_int_equal(tb_nginx_start(&o, 10000, &started, &err), 0);
    pid_t pid = tb_nginx_pid(run, &err);
    assert_true(pid > 0);
    assert_int_equal(pid, started);
    assert_int_equal(tb_nginx_start(&o, 10000, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "already runs"));

    tb_addr a;
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    assert_int_equal(tb_addr_resolve("127.0.0.1", ps, &a, &err), 0);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_int_equal(connect(fd, (struct sockaddr *)&a.ss, a.len), 0);
    const char *req = "GET / HTTP/1.0\r\n\r\n";
    assert_int_equal(write(fd, req, strlen(req)), (ssize_t)strlen(req));
    char buf[2048];
    size_t got = 0;
    ssize_t r;
    while ((r = read(fd, buf + got, sizeof buf - 1 - got)) > 0)
        got += (size_t)r;
    buf[got] = 0;
    close(fd);
    assert_non_null(strstr(buf, "HTTP/1.1 200 OK"));
    assert_non_null(strstr(buf, "Content-Length: 615"));

    uint64_t lines = 0;
    snprintf(log, sizeof log, "%s/access.log", run);
    for (int i = 0; i < 100 && lines < 1; i++) {
        assert_int_equal(tb_log_count_lines(log, &lines, &err), 0);
        usleep(10000);
    }
    assert_int_equal(lines, 1);

    assert_int_equal(tb_nginx_stop(run, 10000, &err), 0);
    assert_int_equal(tb_nginx_pid(run, &err), -1);
    assert_int_equal(tb_sock_connect_wait(&a, 200, &err), -1);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config),
        cmocka_unit_test(test_config_rejects),
        cmocka_unit_test(test_pid_file),
    };
    const struct CMUnitTest live[] = {cmocka_unit_test(test_start_stop)};
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    if (failed)
        return failed;
    /* The start/stop test needs a real nginx: without one the program has not
       checked everything, so it says why and exits 77 (ctest: skipped, not passed). */
    if (access(TB_NGINX_BIN, X_OK) < 0) {
        printf("skipped: %s is not installed (scripts/setup.sh installs nginx-light)\n",
               TB_NGINX_BIN);
        return 77;
    }
    return cmocka_run_group_tests(live, NULL, NULL);
}
