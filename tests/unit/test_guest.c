/* Unit tests for suite/guest (`suite run --guest-setup`): the setup script run "there"
 * through tests/tools/fake_ssh.sh, which runs it here with PATH pointing at a directory
 * of stand-ins made by each test -- id (the login's uid), sudo, apt-get, dnf, systemctl
 * -- that record their arguments and create the nginx binary as the real package
 * would. Nothing is installed on this machine. Covered: nginx already there (nothing
 * run), root with apt-get (update, then a non-interactive install; the new system-wide
 * service stopped and disabled), a user with passwordless sudo and dnf, a user without
 * sudo and one whose sudo wants a password (refused, never prompted), no package
 * manager, a failing install (its last line in the error), an install that leaves no
 * binary, an nginx path that needs quoting, and ssh that cannot connect. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/file.h"
#include "suite/guest.h"
#include "suite/internal.h"

#define fmt(buf, ...) assert_true(snprintf((buf), sizeof(buf), __VA_ARGS__) < (int)sizeof(buf))

typedef struct fixture {
    char root[64];
    char home[PATH_MAX];
    char bin[PATH_MAX]; /* the stand-ins, alone on PATH */
    char log[PATH_MAX]; /* what they were called with, one line each */
    char ssh_log[PATH_MAX];
    char nginx[PATH_MAX]; /* the nginx binary the script looks for */
    char fake_ssh[PATH_MAX];
    char *old_path;
} fixture;

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(chmod(path, mode), 0);
}

/* A stand-in NAME in the fixture's bin: a sh script with body. */
static void tool(const fixture *f, const char *name, const char *body)
{
    char path[PATH_MAX], text[4096];
    fmt(path, "%s/%s", f->bin, name);
    fmt(text, "#!/bin/sh\n%s\n", body);
    write_file(path, text, 0755);
}

/* A package manager stand-in: logs its arguments (and DEBIAN_FRONTEND) and, when asked
   to install, creates the nginx binary unless create is 0, then exits with code. */
static void manager(const fixture *f, const char *name, int create, int code, const char *msg)
{
    char body[3000];
    fmt(body,
        "echo \"%s $* [DEBIAN_FRONTEND=${DEBIAN_FRONTEND:-}]\" >>'%s'\n"
        "case \" $* \" in *\" install \"*)\n"
        "  %s\n"
        "  [ -z '%s' ] || echo '%s' >&2\n"
        "  exit %d ;;\n"
        "esac\n"
        "exit 0",
        name, f->log, create ? "printf '#!/bin/sh\\n' >\"$NGINX\" && chmod 755 \"$NGINX\"" : ":",
        msg, msg, code);
    tool(f, name, body);
}

static int count_in_log(const fixture *f, const char *needle)
{
    tb_buf b = {0};
    tb_err e;
    if (tb_file_read(f->log, 1 << 20, &b, &e) < 0)
        return 0;
    int n = 0;
    for (const char *p = b.p ? (const char *)b.p : ""; (p = strstr(p, needle)); p++)
        n++;
    tb_buf_clear(&b);
    return n;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->root, sizeof f->root, "/tmp/tb-guest.XXXXXX");
    if (!mkdtemp(f->root))
        return -1;
    snprintf(f->home, sizeof f->home, "%s/home", f->root);
    snprintf(f->bin, sizeof f->bin, "%s/bin", f->root);
    snprintf(f->log, sizeof f->log, "%s/calls.log", f->root);
    snprintf(f->ssh_log, sizeof f->ssh_log, "%s/ssh.log", f->root);
    snprintf(f->nginx, sizeof f->nginx, "%s/usr sbin/ngi'nx", f->root); /* needs quoting */
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/usr sbin", f->root);
    if (mkdir(f->home, 0700) < 0 || mkdir(f->bin, 0700) < 0 || mkdir(dir, 0755) < 0)
        return -1;
    const char *src = getenv("TEEBENCH_SOURCE_DIR");
    snprintf(f->fake_ssh, sizeof f->fake_ssh, "%s/tests/tools/fake_ssh.sh",
             src && *src ? src : TEEBENCH_SOURCE_DIR);
    /* what the script and the stand-ins need besides shell built-ins */
    static const char *const real[] = {"sh", "env", "chmod", "true", NULL};
    for (const char *const *r = real; *r; r++) {
        char from[64], to[PATH_MAX + 16];
        snprintf(to, sizeof to, "%s/%s", f->bin, *r);
        snprintf(from, sizeof from, "/bin/%s", *r);
        if (access(from, X_OK) < 0)
            snprintf(from, sizeof from, "/usr/bin/%s", *r);
        if (symlink(from, to) < 0)
            return -1;
    }
    const char *p = getenv("PATH");
    f->old_path = strdup(p ? p : "/usr/bin:/bin");
    setenv("PATH", f->bin, 1);
    setenv("HOME", f->home, 1);
    setenv("NGINX", f->nginx, 1);
    setenv("FAKE_SSH_LOG", f->ssh_log, 1);
    unsetenv("FAKE_SSH_FAIL");
    unsetenv("DEBIAN_FRONTEND"); /* only the script sets it, for apt-get alone */
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    setenv("PATH", f->old_path, 1);
    free(f->old_path);
    nftw(f->root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    free(f);
    return 0;
}

static int run(const fixture *f, tb_guest_setup_result *res, tb_err *e)
{
    tb_remote_target t;
    tb_err pe;
    assert_int_equal(tb_remote_target_parse("g=ssh://fakehost", &t, &pe), 0);
    tb_remote_opts o = {.ssh_program = f->fake_ssh, .connect_timeout_s = 5};
    return tb_guest_setup(&t, &o, f->nginx, NULL, res, e);
}

/* nginx there already: nothing else runs. */
static void test_present(void **state)
{
    fixture *f = *state;
    write_file(f->nginx, "#!/bin/sh\n", 0755);
    tool(f, "id", "echo 0");
    manager(f, "apt-get", 1, 0, "");
    tb_guest_setup_result r;
    tb_err e = {{0}};
    if (run(f, &r, &e) < 0)
        fail_msg("guest setup: %s", e.msg);
    assert_int_equal(r.installed, 0);
    assert_int_equal(count_in_log(f, "apt-get"), 0);
}

/* root with apt-get: update, a non-interactive install, the service stopped. */
static void test_root_apt(void **state)
{
    fixture *f = *state;
    tool(f, "id", "echo 0");
    manager(f, "apt-get", 1, 0, "");
    char body[600];
    fmt(body, "echo \"systemctl $*\" >>'%s'", f->log);
    tool(f, "systemctl", body);
    tb_guest_setup_result r;
    tb_err e = {{0}};
    if (run(f, &r, &e) < 0)
        fail_msg("guest setup: %s", e.msg);
    assert_int_equal(r.installed, 1);
    assert_string_equal(r.manager, "apt-get");
    assert_string_equal(r.as, "root");
    assert_int_equal(count_in_log(f, "apt-get update -qq [DEBIAN_FRONTEND=noninteractive]"), 1);
    assert_int_equal(count_in_log(f, "apt-get install -y -qq --no-install-recommends nginx "
                                     "[DEBIAN_FRONTEND=noninteractive]"),
                     1);
    assert_int_equal(count_in_log(f, "systemctl disable --now nginx"), 1);
    assert_int_equal(access(f->nginx, X_OK), 0);
    /* a second setup finds it and does nothing */
    assert_int_equal(run(f, &r, &e), 0);
    assert_int_equal(r.installed, 0);
    assert_int_equal(count_in_log(f, "apt-get install"), 1);
}

/* A user with passwordless sudo on a dnf system. */
static void test_sudo_dnf(void **state)
{
    fixture *f = *state;
    tool(f, "id", "echo 1000");
    char body[600];
    fmt(body,
        "echo \"sudo $*\" >>'%s'\n"
        "[ \"$1\" = -n ] || { echo 'sudo: a password is required' >&2; exit 1; }\n"
        "shift; exec \"$@\"",
        f->log);
    tool(f, "sudo", body);
    manager(f, "dnf", 1, 0, "");
    tb_guest_setup_result r;
    tb_err e = {{0}};
    if (run(f, &r, &e) < 0)
        fail_msg("guest setup: %s", e.msg);
    assert_int_equal(r.installed, 1);
    assert_string_equal(r.manager, "dnf");
    assert_string_equal(r.as, "sudo -n");
    assert_int_equal(count_in_log(f, "sudo -n dnf install -y -q nginx"), 1);
    assert_int_equal(count_in_log(f, "dnf install -y -q nginx [DEBIAN_FRONTEND=]"), 1);
    assert_int_equal(count_in_log(f, "sudo -n true"), 1);
    assert_int_equal(count_in_log(f, "sudo true"), 0); /* never without -n */
}

/* Neither root nor sudo (absent, or wanting a password): refused, nothing installed. */
static void test_no_privilege(void **state)
{
    fixture *f = *state;
    tool(f, "id", "echo 1000");
    manager(f, "apt-get", 1, 0, "");
    tb_guest_setup_result r;
    tb_err e = {{0}};
    assert_int_equal(run(f, &r, &e), -1);
    assert_non_null(strstr(e.msg, "nginx is not installed on fakehost and this login can "
                                  "neither install it (not root) nor use sudo without a "
                                  "password (sudo -n)"));
    char body[600];
    fmt(body, "echo \"sudo $*\" >>'%s'; echo 'sudo: a password is required' >&2; exit 1", f->log);
    tool(f, "sudo", body);
    assert_int_equal(run(f, &r, &e), -1);
    assert_non_null(strstr(e.msg, "use sudo without a password (sudo -n)"));
    assert_int_equal(count_in_log(f, "sudo -n true"), 1);
    assert_int_equal(count_in_log(f, "apt-get"), 0);
    assert_int_equal(access(f->nginx, F_OK), -1);
}

static void test_no_manager(void **state)
{
    fixture *f = *state;
    tool(f, "id", "echo 0");
    tb_guest_setup_result r;
    tb_err e = {{0}};
    assert_int_equal(run(f, &r, &e), -1);
    assert_string_equal(e.msg, "nginx is not installed on fakehost, which has neither apt-get "
                               "nor dnf: install the package nginx there with its package "
                               "manager");
}

/* A failing install names the manager and its last line; one that leaves no binary
   says so. */
static void test_install_fails(void **state)
{
    fixture *f = *state;
    tool(f, "id", "echo 0");
    manager(f, "apt-get", 0, 100, "E: Unable to locate package nginx");
    tb_guest_setup_result r;
    tb_err e = {{0}};
    assert_int_equal(run(f, &r, &e), -1);
    assert_string_equal(
        e.msg, "apt-get install nginx failed on fakehost: E: Unable to locate package nginx");
    manager(f, "apt-get", 0, 0, "");
    assert_int_equal(run(f, &r, &e), -1);
    assert_non_null(strstr(e.msg, "apt-get installed nginx on fakehost, but "));
    assert_non_null(strstr(e.msg, "/usr sbin/ngi'nx is not there"));
}

static void test_ssh_fails(void **state)
{
    fixture *f = *state;
    setenv("FAKE_SSH_FAIL", "1", 1);
    tb_guest_setup_result r;
    tb_err e = {{0}};
    assert_int_equal(run(f, &r, &e), -1);
    unsetenv("FAKE_SSH_FAIL");
    assert_non_null(strstr(e.msg, "ssh to fakehost failed: ssh: connect to host"));
}

/* The script quotes the path: a $(...) in it is text, not a command. */
static void test_script_quotes(void **state)
{
    (void)state;
    tb_buf b = {0};
    assert_int_equal(tb_guest_setup_script("/opt/a b/$(touch x)'q", &b), 0);
    assert_non_null(strstr((const char *)b.p, "n='/opt/a b/$(touch x)'\\''q';"));
    tb_buf_clear(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_present, setup, teardown),
        cmocka_unit_test_setup_teardown(test_root_apt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sudo_dnf, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_privilege, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_manager, setup, teardown),
        cmocka_unit_test_setup_teardown(test_install_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ssh_fails, setup, teardown),
        cmocka_unit_test(test_script_quotes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
