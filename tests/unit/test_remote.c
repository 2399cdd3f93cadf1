/* Unit tests for suite/remote: target parsing (good and bad specs), the ssh command
 * line (checked against the real `ssh -G` when ssh is installed), shell quoting
 * (round trips through sh), the loader-message -> Debian package map and the
 * binary's remote name. Then tb_remote_run end to end without sshd: ssh is
 * tests/tools/fake_ssh.sh (tb_remote_opts.ssh_program), which runs the remote
 * command here with HOME pointed at a temp dir, and the binary copied "there" is
 * the built teebench (TEEBENCH, or the teebench next to this test). Covered: the
 * first run copies the binary, the second reuses it, --remote-binary (a path with
 * spaces and quotes), a missing library named with its package, a wrong version, a
 * suite that exits without a result, ssh that cannot connect, a copy that fails,
 * progress events in order with non-JSON stderr as INFO, a suite document sent
 * along, and *stop interrupting the remote suite with its partial result back. And a
 * hostile remote: its own label replaced by the target's, a 200 MB stderr line in
 * one pass and bounded memory, an interrupt during such a line taking < 2 s, a
 * result over 256 MiB and one of 40 million values refused in bounded memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/file.h"
#include "base/proc.h"
#include "record/record.h"
#include "suite/internal.h"
#include "suite/remote.h"
#include "suite/suite.h"

/* ---------- helpers ---------- */

/* snprintf into an array that must be large enough (the test fails otherwise). */
#define fmt(buf, ...) assert_true(snprintf((buf), sizeof(buf), __VA_ARGS__) < (int)sizeof(buf))

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void rm_rf(const char *path)
{
    nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(chmod(path, mode), 0);
}

/* Runs argv, returns its stdout (caller frees) and sets *code. */
static char *run_capture(char *const *argv, int *code)
{
    tb_proc_opts po = {.argv = argv, .pipes = TB_PROC_PIPE_OUT};
    tb_proc p;
    tb_err e;
    assert_int_equal(tb_proc_spawn(&po, &p, &e), 0);
    tb_buf out = {0};
    char chunk[4096];
    ssize_t r;
    while ((r = read(p.out, chunk, sizeof chunk)) > 0)
        tb_buf_append(&out, chunk, (size_t)r);
    tb_proc_close_pipes(&p);
    assert_int_equal(tb_proc_wait(&p, 10000, NULL, &e), TB_PROC_EXITED);
    *code = p.code;
    tb_buf_puts(&out, "");
    return (char *)out.p;
}

static int count_lines_with(const char *path, const char *needle)
{
    tb_buf b = {0};
    tb_err e;
    if (tb_file_read(path, 1 << 20, &b, &e) < 0)
        return 0;
    int n = 0;
    for (const char *p = b.p ? (const char *)b.p : ""; (p = strstr(p, needle)); p++)
        n++;
    tb_buf_clear(&b);
    return n;
}

/* ---------- targets ---------- */

static void test_parse_good(void **state)
{
    (void)state;
    tb_remote_target t;
    tb_err e;
    assert_int_equal(tb_remote_target_parse("a=ssh://host", &t, &e), 0);
    assert_int_equal(t.kind, TB_TARGET_SSH);
    assert_string_equal(t.name, "a");
    assert_string_equal(t.host, "host");
    assert_string_equal(t.user, "");
    assert_int_equal(t.port, 0);
    assert_string_equal(t.identity, "");

    assert_int_equal(tb_remote_target_parse("tdx-1.b_C=ssh://root@10.0.0.5:2222", &t, &e), 0);
    assert_string_equal(t.name, "tdx-1.b_C");
    assert_string_equal(t.user, "root");
    assert_string_equal(t.host, "10.0.0.5");
    assert_int_equal(t.port, 2222);

    assert_int_equal(tb_remote_target_parse("v6=ssh://[::1]:22", &t, &e), 0);
    assert_string_equal(t.host, "::1");
    assert_int_equal(t.port, 22);
    assert_int_equal(tb_remote_target_parse("v6=ssh://bob@[fe80::1%eth0]/", &t, &e), 0);
    assert_string_equal(t.user, "bob");
    assert_string_equal(t.host, "fe80::1%eth0");
    assert_int_equal(t.port, 0);

    assert_int_equal(tb_remote_target_parse("b=ssh://u.x-y_z@h.example.org:65535/", &t, &e), 0);
    assert_string_equal(t.user, "u.x-y_z");
    assert_string_equal(t.host, "h.example.org");
    assert_int_equal(t.port, 65535);
    assert_int_equal(tb_remote_target_parse("b=ssh://h:1", &t, &e), 0);
    assert_int_equal(t.port, 1);

    assert_int_equal(tb_remote_target_parse("td=vm:td-1", &t, &e), 0);
    assert_int_equal(t.kind, TB_TARGET_VM);
    assert_string_equal(t.vm, "td-1");
    assert_string_equal(t.host, "");

    /* the source document's columns: upper case and a space */
    assert_int_equal(tb_remote_target_parse("TDX VM=ssh://td", &t, &e), 0);
    assert_string_equal(t.name, "TDX VM");
    assert_string_equal(t.host, "td");
    assert_int_equal(tb_remote_target_parse("Host=local", &t, &e), 0);
    assert_string_equal(t.name, "Host");

    assert_int_equal(tb_remote_target_parse("here=local", &t, &e), 0);
    assert_int_equal(t.kind, TB_TARGET_LOCAL);
    assert_string_equal(t.name, "here");

    char spec[200];
    fmt(spec, "%.63s=local",
        "0123456789012345678901234567890123456789012345678901234567890123456789");
    assert_int_equal(tb_remote_target_parse(spec, &t, &e), 0);
    assert_int_equal(strlen(t.name), 63);
}

static void test_parse_bad(void **state)
{
    (void)state;
    char long_name[100], long_host[400];
    memset(long_name, 'n', 64);
    snprintf(long_name + 64, sizeof long_name - 64, "=local");
    memcpy(long_host, "a=ssh://", 8);
    memset(long_host + 8, 'h', 300);
    long_host[308] = 0;
    const char *bad[] = {"noequals",
                         "=ssh://h",
                         "a/b=ssh://h",
                         "trailing =ssh://h",
                         " lead=ssh://h",
                         "-lead=ssh://h",
                         ".lead=ssh://h",
                         "a:b=ssh://h",
                         "a\x1b[2Jb=ssh://h",
                         "a\tb=ssh://h",
                         "a\xe2\x80\xae"
                         "b=ssh://h",
                         "caf\xc3\xa9=ssh://h",
                         "a=",
                         "a=http://h",
                         "a=ssh:/h",
                         "a=SSH://h",
                         "a=ssh://h/path",
                         "a=ssh://h//",
                         "a=ssh://h?x=1",
                         "a=ssh://h#f",
                         "a=ssh://h:0",
                         "a=ssh://h:65536",
                         "a=ssh://h:+1",
                         "a=ssh://h:08",
                         "a=ssh://h:",
                         "a=ssh://h:-1",
                         "a=ssh://h:22:33",
                         "a=ssh://h:99999999999",
                         "a=ssh://-oProxyCommand=x",
                         "a=ssh://-h",
                         "a=ssh://-u@h",
                         "a=ssh://",
                         "a=ssh://u@",
                         "a=ssh://@h",
                         "a=ssh://[::1",
                         "a=ssh://[]",
                         "a=ssh://[::1]x",
                         "a=ssh://[-1]",
                         "a=ssh://h;rm",
                         "a=ssh://h h",
                         "a=ssh://u;x@h",
                         "a=ssh://u x@h",
                         "a=ssh://::1",
                         "a=vm:",
                         "a=vm:bad/vm",
                         "a=vm:a b",
                         "a=localhost",
                         long_name,
                         long_host,
                         NULL};
    for (int i = 0; bad[i]; i++) {
        tb_remote_target t;
        tb_err e = {{0}};
        int rc = tb_remote_target_parse(bad[i], &t, &e);
        if (rc != -1)
            fail_msg("accepted: %s", bad[i]);
        assert_true(strlen(e.msg) > 0);
    }
    tb_remote_target t;
    tb_err e;
    assert_int_equal(tb_remote_target_parse("a=http://h", &t, &e), -1);
    assert_non_null(strstr(e.msg, "not an ssh:// URL"));
    assert_int_equal(tb_remote_target_parse("a=ssh://h:0", &t, &e), -1);
    assert_non_null(strstr(e.msg, "not a port (1-65535)"));
    assert_int_equal(tb_remote_target_parse("a=ssh://-h", &t, &e), -1);
    assert_non_null(strstr(e.msg, "may not start with '-'"));
    assert_int_equal(tb_remote_target_parse("a=ssh://h/p", &t, &e), -1);
    assert_non_null(strstr(e.msg, "no path or query"));
    assert_int_equal(tb_remote_target_parse("x/y=local", &t, &e), -1);
    assert_non_null(strstr(e.msg, "the name must be a label (1..63 of A-Z a-z 0-9"));
}

/* ---------- ssh command line ---------- */

static int argv_len(char **v)
{
    int n = 0;
    while (v[n])
        n++;
    return n;
}

/* 1 when the pair (a, b) appears as consecutive words before the "--". */
static int has_pair(char **v, const char *a, const char *b)
{
    for (int i = 0; v[i] && v[i + 1] && strcmp(v[i], "--"); i++)
        if (!strcmp(v[i], a) && !strcmp(v[i + 1], b))
            return 1;
    return 0;
}

static int has_word(char **v, const char *w)
{
    for (int i = 0; v[i]; i++)
        if (!strcmp(v[i], w))
            return 1;
    return 0;
}

static void test_ssh_argv(void **state)
{
    (void)state;
    tb_remote_target t;
    tb_err e;
    assert_int_equal(tb_remote_target_parse("a=ssh://u@h.example:2222", &t, &e), 0);
    tb_remote_opts o = {
        .ssh_config = "/etc/cfg dir/ssh_config", .control_dir = "/tmp/ctl", .connect_timeout_s = 7};
    char **v = tb_remote_ssh_argv(&t, &o, "echo 'hi there'");
    assert_non_null(v);
    int n = argv_len(v);
    assert_string_equal(v[0], "ssh");
    assert_true(has_pair(v, "-F", "/etc/cfg dir/ssh_config"));
    assert_true(has_pair(v, "-o", "BatchMode=yes"));
    assert_true(has_pair(v, "-o", "ConnectTimeout=7"));
    assert_true(has_pair(v, "-o", "ControlMaster=auto"));
    assert_true(has_pair(v, "-o", "ControlPath=/tmp/ctl/%C"));
    assert_true(has_pair(v, "-o", "ControlPersist=60"));
    assert_true(has_pair(v, "-p", "2222"));
    assert_true(has_pair(v, "-l", "u"));
    assert_false(has_word(v, "-i"));
    /* "--" ends the options: the host can never be read as one; the command is last */
    assert_string_equal(v[n - 3], "--");
    assert_string_equal(v[n - 2], "h.example");
    assert_string_equal(v[n - 1], "echo 'hi there'");
    for (int i = 0; i < n - 3; i++)
        assert_string_not_equal(v[i], "--");
    tb_remote_argv_free(v);

    /* defaults: no -F, no control master, ConnectTimeout 10, ssh's own port and user */
    assert_int_equal(tb_remote_target_parse("a=ssh://h", &t, &e), 0);
    tb_remote_opts d = {.ssh_program = "/opt/wrap/ssh"};
    v = tb_remote_ssh_argv(&t, &d, "true");
    n = argv_len(v);
    assert_string_equal(v[0], "/opt/wrap/ssh");
    assert_true(has_pair(v, "-o", "BatchMode=yes"));
    assert_true(has_pair(v, "-o", "ConnectTimeout=10"));
    for (int i = 0; i < n; i++) {
        assert_null(strstr(v[i], "Control"));
        assert_true(strcmp(v[i], "-F") && strcmp(v[i], "-p") && strcmp(v[i], "-l"));
    }
    assert_string_equal(v[n - 2], "h");
    assert_string_equal(v[n - 1], "true");
    tb_remote_argv_free(v);

    /* a VM: its key and known_hosts, new host keys accepted (the VM was just made) */
    assert_int_equal(tb_remote_target_parse("td=vm:td", &t, &e), 0);
    snprintf(t.host, sizeof t.host, "127.0.0.1");
    t.port = 10022;
    snprintf(t.user, sizeof t.user, "root");
    snprintf(t.identity, sizeof t.identity, "/vms/td/id_ed25519");
    snprintf(t.known_hosts, sizeof t.known_hosts, "/vms/td/known_hosts");
    v = tb_remote_ssh_argv(&t, &(tb_remote_opts){0}, "true");
    assert_true(has_pair(v, "-i", "/vms/td/id_ed25519"));
    assert_true(has_pair(v, "-o", "IdentitiesOnly=yes"));
    assert_true(has_pair(v, "-o", "UserKnownHostsFile=/vms/td/known_hosts"));
    assert_true(has_pair(v, "-o", "StrictHostKeyChecking=accept-new"));
    assert_true(has_pair(v, "-p", "10022"));
    tb_remote_argv_free(v);
    tb_remote_argv_free(NULL);
}

/* The real OpenSSH reads the same options: `ssh -G` prints what it would use. */
static void test_ssh_argv_openssh(void **state)
{
    (void)state;
    if (access("/usr/bin/ssh", X_OK) != 0) {
        print_message("ssh not installed: the options are not checked against OpenSSH\n");
        skip();
    }
    char dir[] = "/tmp/tb-remote-G.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cfg[PATH_MAX];
    fmt(cfg, "%s/config", dir);
    write_file(cfg, "Host *\n  ServerAliveCountMax 7\n", 0644);
    tb_remote_target t;
    tb_err e;
    assert_int_equal(tb_remote_target_parse("a=ssh://bench@198.18.7.2:2200", &t, &e), 0);
    tb_remote_opts o = {.ssh_config = cfg, .control_dir = dir, .connect_timeout_s = 4};
    char **v = tb_remote_ssh_argv(&t, &o, "true");
    int n = argv_len(v);
    /* ssh -G <options> -- host: the command dropped, -G added */
    char *g[80];
    assert_true(n + 1 < 80);
    g[0] = v[0];
    g[1] = "-G";
    for (int i = 1; i < n - 1; i++)
        g[i + 1] = v[i];
    g[n] = NULL;
    int code;
    char *out = run_capture(g, &code);
    assert_int_equal(code, 0);
    assert_non_null(strstr(out, "\nuser bench\n"));
    assert_non_null(strstr(out, "\nhostname 198.18.7.2\n"));
    assert_non_null(strstr(out, "\nport 2200\n"));
    assert_non_null(strstr(out, "\nbatchmode yes\n"));
    assert_non_null(strstr(out, "\nconnecttimeout 4\n"));
    assert_non_null(strstr(out, "\ncontrolmaster auto\n"));
    assert_non_null(strstr(out, "\ncontrolpersist 60\n"));
    assert_non_null(strstr(out, "\nserveraliveinterval 15\n"));
    assert_non_null(strstr(out, "\nserveralivecountmax 7\n")); /* -F was read */
    char want[PATH_MAX + 20];
    fmt(want, "\ncontrolpath %s/", dir);
    assert_non_null(strstr(out, want));
    free(out);
    tb_remote_argv_free(v);
    rm_rf(dir);
}

/* ---------- quoting, packages, names ---------- */

static void test_shell_quote(void **state)
{
    (void)state;
    char dir[] = "/tmp/tb-remote-q.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char pwned[PATH_MAX], inject[PATH_MAX + 40];
    fmt(pwned, "%s/pwned", dir);
    fmt(inject, "$(touch %s)`touch %s`", pwned, pwned);
    const char *words[] = {"",          "plain",   "it's",         "'",
                           "''",        "'\\''",   inject,         "a\nb\n",
                           "back\\sl",  "\\",      "\"dq\" $HOME", "* ? [a]",
                           "-n",        "%s %d",   "\t sp  ",      "semi;colon|pipe&amp",
                           "ü ✓ bytes", "\\'\\\"", "!x !! ~ #c",   NULL};
    for (int i = 0; words[i]; i++) {
        tb_buf cmd = {0};
        assert_int_equal(tb_buf_puts(&cmd, "printf %s "), 0);
        assert_int_equal(tb_remote_shell_quote(words[i], &cmd), 0);
        char *argv[] = {"sh", "-c", (char *)cmd.p, NULL};
        int code;
        char *out = run_capture(argv, &code);
        assert_int_equal(code, 0);
        assert_string_equal(out, words[i]);
        free(out);
        tb_buf_clear(&cmd);
    }
    assert_int_equal(access(pwned, F_OK), -1);

    /* words stay words: two quoted words are two arguments */
    tb_buf cmd = {0};
    tb_buf_puts(&cmd, "printf '[%s]' ");
    tb_remote_shell_quote("a b", &cmd);
    tb_buf_puts(&cmd, " ");
    tb_remote_shell_quote("", &cmd);
    tb_buf_puts(&cmd, " ");
    tb_remote_shell_quote("c'd", &cmd);
    char *argv[] = {"sh", "-c", (char *)cmd.p, NULL};
    int code;
    char *out = run_capture(argv, &code);
    assert_string_equal(out, "[a b][][c'd]");
    free(out);
    tb_buf_clear(&cmd);
    rm_rf(dir);
}

static void test_package_of(void **state)
{
    (void)state;
    char lib[64];
    const char *p = tb_remote_package_of(
        "/root/.cache/teebench/teebench-0.1.0-abc: error while loading shared libraries: "
        "libjansson.so.4: cannot open shared object file: No such file or directory\n",
        lib, sizeof lib);
    assert_string_equal(p, "libjansson4");
    assert_string_equal(lib, "libjansson.so.4");
    assert_string_equal(tb_remote_package_of("x: error while loading shared libraries: "
                                             "libcrypto.so.3: cannot open",
                                             lib, sizeof lib),
                        "libssl3");
    assert_string_equal(tb_remote_package_of("error while loading shared libraries: "
                                             "libsqlite3.so.0: x",
                                             lib, sizeof lib),
                        "libsqlite3-0");
    assert_string_equal(tb_remote_package_of("error while loading shared libraries: "
                                             "libcurl.so.4: x",
                                             lib, sizeof lib),
                        "libcurl4");
    /* a library teebench does not know: named, package "" */
    p = tb_remote_package_of("error while loading shared libraries: libfoo.so.9: cannot", lib,
                             sizeof lib);
    assert_non_null(p);
    assert_string_equal(p, "");
    assert_string_equal(lib, "libfoo.so.9");
    /* a prefix of a known name is not that name */
    assert_string_equal(
        tb_remote_package_of("error while loading shared libraries: libssl.so: x", lib, sizeof lib),
        "");
    /* no loader message */
    assert_null(tb_remote_package_of("bash: teebench: command not found", lib, sizeof lib));
    assert_null(tb_remote_package_of("", lib, sizeof lib));
    /* a small out buffer truncates, never overflows */
    char small[5];
    assert_string_equal(tb_remote_package_of("error while loading shared libraries: "
                                             "libjansson.so.4: x",
                                             small, sizeof small),
                        "libjansson4");
    assert_string_equal(small, "libj");
}

/* Every shared library the ordinary build needs (readelf -d of the built teebench) has
   its package in the hint; the self-contained build's loader messages need none. */
static void test_package_of_needed(void **state)
{
    (void)state;
    char lib[64];
    assert_string_equal(tb_remote_package_of("error while loading shared libraries: "
                                             "liblua5.4.so.0: cannot open",
                                             lib, sizeof lib),
                        "liblua5.4-0");
    assert_string_equal(tb_remote_package_of("error while loading shared libraries: "
                                             "libz.so.1: cannot open",
                                             lib, sizeof lib),
                        "zlib1g");
    const char *env = getenv("TEEBENCH");
    char self[PATH_MAX], tb[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(len > 0);
    self[len] = 0;
    fmt(tb, "%s", env && *env ? env : self);
    if (!env || !*env)
        fmt(tb, "%s/teebench", dirname(self));
    if (access("/usr/bin/readelf", X_OK) < 0 || access(tb, R_OK) < 0)
        skip(); /* binutils' readelf, and the built teebench */
    char *argv[] = {"/usr/bin/readelf", "-d", tb, NULL};
    int code = -1;
    char *out = run_capture(argv, &code);
    assert_int_equal(code, 0);
    int n = 0;
    char unknown[64] = "";
    for (const char *p = out; (p = strstr(p, "Shared library: [")); n++) {
        p += strlen("Shared library: [");
        char msg[200];
        fmt(msg, "error while loading shared libraries: %.*s: cannot open", (int)strcspn(p, "]"),
            p);
        const char *pkg = tb_remote_package_of(msg, lib, sizeof lib);
        assert_non_null(pkg);
        /* a sanitizer build's runtime (gcc's libtsan.so.2, libasan.so.8): not a build
           anyone copies to a guest */
        int runtime = strstr(lib, "san.so.") != NULL;
        if (!pkg[0] && !runtime && !unknown[0])
            fmt(unknown, "%s", lib);
    }
    free(out);
    if (unknown[0])
        fail_msg("%s (needed by %s) has no package in the missing-library hint", unknown, tb);
    assert_true(n >= 6); /* libssl, libcrypto, jansson, sqlite, zlib, lua, libc ... */
}

static void test_glibc_needed(void **state)
{
    (void)state;
    char v[16] = "";
    assert_int_equal(
        tb_remote_glibc_needed("/root/.cache/teebench/teebench-0.1.0-abc: /lib/x86_64-linux-gnu/"
                               "libc.so.6: version `GLIBC_2.34' not found (required by x)\n"
                               "x: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.38' not "
                               "found (required by x)\n"
                               "x: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.4' not "
                               "found (required by x)\n",
                               v, sizeof v),
        1);
    assert_string_equal(v, "2.38"); /* the highest, compared as numbers (2.4 < 2.38) */
    assert_int_equal(tb_remote_glibc_needed("version `GLIBC_2.36' not found", v, sizeof v), 1);
    assert_string_equal(v, "2.36");
    v[0] = 0;
    assert_int_equal(tb_remote_glibc_needed("version `GLIBC_PRIVATE' not found", v, sizeof v), 0);
    assert_int_equal(tb_remote_glibc_needed("version `GLIBC_2.3x' not found", v, sizeof v), 0);
    /* digits only (fuzz_remote: a sign made sscanf's %u wrap to 4294967284) */
    assert_int_equal(tb_remote_glibc_needed("version `GLIBC_-12.35' not found", v, sizeof v), 0);
    assert_int_equal(tb_remote_glibc_needed("version `GLIBC_ 2.34' not found", v, sizeof v), 0);
    assert_int_equal(tb_remote_glibc_needed("version `GLIBC_2.+4' not found", v, sizeof v), 0);
    assert_int_equal(tb_remote_glibc_needed("version `GLIBC_2.3456' not found", v, sizeof v), 0);
    assert_int_equal(tb_remote_glibc_needed("bash: teebench: command not found", v, sizeof v), 0);
    assert_int_equal(tb_remote_glibc_needed("", v, sizeof v), 0);
    assert_string_equal(v, "");
}

static void test_binary_name(void **state)
{
    (void)state;
    char dir[] = "/tmp/tb-remote-n.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[PATH_MAX];
    fmt(path, "%s/bin", dir);
    write_file(path, "abc", 0755);
    char name[96];
    tb_err e;
    assert_int_equal(tb_remote_binary_name(path, name, sizeof name, &e), 0);
    /* sha256("abc") = ba7816bf8f01cfea... */
    assert_string_equal(name, "teebench-" TEEBENCH_VERSION "-ba7816bf8f01");
    write_file(path, "abd", 0755);
    assert_int_equal(tb_remote_binary_name(path, name, sizeof name, &e), 0);
    assert_string_not_equal(name, "teebench-" TEEBENCH_VERSION "-ba7816bf8f01");
    char tiny[10];
    assert_int_equal(tb_remote_binary_name(path, tiny, sizeof tiny, &e), -1);
    fmt(path, "%s/absent", dir);
    assert_int_equal(tb_remote_binary_name(path, name, sizeof name, &e), -1);
    assert_non_null(strstr(e.msg, "reading this teebench to copy it"));
    rm_rf(dir);
}

/* ---------- tb_remote_run through a fake ssh ---------- */

typedef struct fixture {
    char root[64];
    char home[PATH_MAX];
    char ctl[PATH_MAX];
    char log[PATH_MAX];
    char tb[PATH_MAX];
    char fake_ssh[PATH_MAX];
    char cached[PATH_MAX]; /* where the copy lands "there" */
    char name[96];
} fixture;

/* The teebench to copy: $TEEBENCH, or the one built next to this test. */
static int find_teebench(char *out, size_t n)
{
    const char *env = getenv("TEEBENCH");
    if (env && *env) {
        snprintf(out, n, "%s", env);
        return access(out, X_OK);
    }
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return -1;
    self[len] = 0;
    snprintf(out, n, "%s/teebench", dirname(self));
    return access(out, X_OK);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    fmt(f->root, "/tmp/tb-remote.XXXXXX");
    if (!mkdtemp(f->root))
        return -1;
    fmt(f->home, "%s/home", f->root);
    fmt(f->ctl, "%s/ctl", f->root);
    fmt(f->log, "%s/ssh.log", f->root);
    mkdir(f->home, 0700);
    mkdir(f->ctl, 0700);
    if (find_teebench(f->tb, sizeof f->tb) < 0) {
        fprintf(stderr, "test_remote: no teebench binary at %s (build it, or set TEEBENCH)\n",
                f->tb);
        return -1;
    }
    const char *src = getenv("TEEBENCH_SOURCE_DIR");
    fmt(f->fake_ssh, "%s/tests/tools/fake_ssh.sh", src && *src ? src : TEEBENCH_SOURCE_DIR);
    tb_err e;
    if (tb_remote_binary_name(f->tb, f->name, sizeof f->name, &e) < 0)
        return -1;
    fmt(f->cached, "%s/.cache/teebench/%s", f->home, f->name);
    setenv("HOME", f->home, 1);
    unsetenv("XDG_CACHE_HOME");
    setenv("FAKE_SSH_LOG", f->log, 1);
    unsetenv("FAKE_SSH_FAIL");
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    rm_rf(f->root);
    free(f);
    return 0;
}

#define MAX_EV 512

/* What the hooks saw. */
typedef struct seen {
    int n;
    tb_suite_event_kind kind[MAX_EV];
    int step[MAX_EV];
    char status[MAX_EV][16];
    char text[MAX_EV][400];
    int stop_after_done; /* set *stop after this STEP_DONE (0: never) */
    volatile sig_atomic_t stop;
    uint64_t stop_ns;
} seen;

static void on_progress(const tb_suite_event *ev, void *ctx)
{
    seen *s = ctx;
    if (s->n < MAX_EV) {
        s->kind[s->n] = ev->kind;
        s->step[s->n] = ev->step;
        snprintf(s->status[s->n], sizeof s->status[0], "%s", ev->status);
        snprintf(s->text[s->n], sizeof s->text[0], "%s", ev->text);
        s->n++;
    }
    if (s->stop_after_done && ev->kind == TB_SUITE_EV_STEP_DONE && ev->step == s->stop_after_done &&
        !s->stop) {
        s->stop = 1;
        s->stop_ns = tb_mono_ns();
    }
}

static int find_text(const seen *s, tb_suite_event_kind k, const char *text)
{
    for (int i = 0; i < s->n; i++)
        if (s->kind[i] == k && !strcmp(s->text[i], text))
            return i;
    return -1;
}

static char *small_suite[] = {
    "--profile",           "quick", "--workloads",        "probe", "--set",
    "probe.probes=getpid", "--set", "probe.max_reps=200", NULL};

static tb_remote_opts opts_for(const fixture *f)
{
    return (tb_remote_opts){.local_binary = f->tb,
                            .ssh_program = f->fake_ssh,
                            .control_dir = f->ctl,
                            .suite_args = small_suite,
                            .connect_timeout_s = 5};
}

static tb_remote_target target(const char *spec)
{
    tb_remote_target t;
    tb_err e;
    assert_int_equal(tb_remote_target_parse(spec, &t, &e), 0);
    return t;
}

static int same_file(const char *a, const char *b)
{
    tb_buf x = {0}, y = {0};
    tb_err e;
    int same = tb_file_read(a, 1u << 30, &x, &e) == 0 && tb_file_read(b, 1u << 30, &y, &e) == 0 &&
               x.len == y.len && !memcmp(x.p, y.p, x.len);
    tb_buf_clear(&x);
    tb_buf_clear(&y);
    return same;
}

/* BEGIN first, END (with end_status) last but for INFO lines after it (the remote
   cli's own closing message), and every STEP closed by its STEP_DONE in order. */
static void assert_ordered(const seen *s, const char *end_status)
{
    int end = s->n - 1;
    while (end > 0 && s->kind[end] == TB_SUITE_EV_INFO)
        end--;
    assert_true(end >= 2);
    assert_int_equal(s->kind[0], TB_SUITE_EV_BEGIN);
    assert_int_equal(s->kind[end], TB_SUITE_EV_END);
    assert_string_equal(s->status[end], end_status);
    int last_step = 0, open = 0;
    for (int i = 1; i < end; i++) {
        if (s->kind[i] == TB_SUITE_EV_STEP) {
            assert_false(open);
            assert_int_equal(s->step[i], last_step + 1);
            last_step = s->step[i];
            open = 1;
        } else if (s->kind[i] == TB_SUITE_EV_STEP_DONE) {
            assert_true(open);
            assert_int_equal(s->step[i], last_step);
            open = 0;
        } else {
            assert_int_not_equal(s->kind[i], TB_SUITE_EV_BEGIN);
            assert_int_not_equal(s->kind[i], TB_SUITE_EV_END);
        }
    }
    assert_true(last_step >= 1);
}

static void test_run_copy_then_reuse(void **state)
{
    fixture *f = *state;
    tb_remote_target t = target("alpha=ssh://fakehost");
    tb_remote_opts o = opts_for(f);
    seen *s = calloc(1, sizeof *s);
    tb_suite_hooks h = {.progress = on_progress, .ctx = s, .stop = &s->stop};
    tb_record *r = NULL;
    tb_err e = {{0}};
    assert_int_equal(access(f->cached, F_OK), -1);
    int rc = tb_remote_run(&t, &o, &h, &r, &e);
    if (rc < 0)
        fail_msg("tb_remote_run: %s", e.msg);
    assert_non_null(r);
    assert_string_equal(r->label, "alpha");
    assert_string_equal(r->status, "complete");
    int found = 0;
    for (size_t i = 0; i < r->n_metrics; i++)
        if (!strcmp(r->metrics[i].name, "probe.getpid.ns")) {
            found = 1;
            assert_int_equal(r->metrics[i].n, 3); /* quick: 3 rounds */
        }
    assert_true(found);
    tb_record_free(r);
    /* the copy: this build, executable, under its versioned name */
    struct stat st1;
    assert_int_equal(stat(f->cached, &st1), 0);
    assert_int_equal(st1.st_mode & 0777, 0755);
    assert_true(same_file(f->cached, f->tb));
    assert_int_equal(count_lines_with(f->log, ".upload."), 1);
    /* no upload left behind */
    char up[PATH_MAX];
    fmt(up, "%s/.cache/teebench", f->home);
    int entries = 0;
    DIR *d = opendir(up);
    assert_non_null(d);
    for (struct dirent *de; (de = readdir(d));)
        entries += de->d_name[0] != '.';
    closedir(d);
    assert_int_equal(entries, 1);
    /* progress in order; the control master closed last */
    assert_ordered(s, "complete");
    assert_int_equal(count_lines_with(f->log, "-O exit"), 1);
    /* probe, copy, probe, run, -O exit */
    assert_int_equal(count_lines_with(f->log, "BatchMode=yes"), 5);

    /* a second run: the copy is there, nothing is sent again */
    unlink(f->log);
    memset(s, 0, sizeof *s);
    rc = tb_remote_run(&t, &o, &h, &r, &e);
    if (rc < 0)
        fail_msg("second tb_remote_run: %s", e.msg);
    tb_record_free(r);
    struct stat st2;
    assert_int_equal(stat(f->cached, &st2), 0);
    assert_int_equal(st1.st_mtim.tv_sec, st2.st_mtim.tv_sec);
    assert_int_equal(st1.st_mtim.tv_nsec, st2.st_mtim.tv_nsec);
    assert_int_equal(st1.st_ino, st2.st_ino);
    assert_int_equal(count_lines_with(f->log, ".upload."), 0);
    assert_int_equal(count_lines_with(f->log, "BatchMode=yes"), 3); /* probe, run, -O exit */
    assert_ordered(s, "complete");
    free(s);
}

/* --remote-binary: that path runs there (quoted through the remote shell); no copy. */
static void test_run_remote_binary(void **state)
{
    fixture *f = *state;
    char dir[PATH_MAX], bin[PATH_MAX + 8];
    fmt(dir, "%s/opt dir 'q' $(x)", f->home);
    assert_int_equal(mkdir(dir, 0755), 0);
    fmt(bin, "%s/tb", dir);
    assert_int_equal(symlink(f->tb, bin), 0);
    tb_remote_target t = target("b=ssh://fakehost");
    tb_remote_opts o = opts_for(f);
    o.remote_binary = bin;
    tb_record *r = NULL;
    tb_err e = {{0}};
    if (tb_remote_run(&t, &o, NULL, &r, &e) < 0)
        fail_msg("tb_remote_run --remote-binary: %s", e.msg);
    assert_string_equal(r->label, "b");
    tb_record_free(r);
    assert_int_equal(access(f->cached, F_OK), -1);
    assert_int_equal(count_lines_with(f->log, ".upload."), 0);

    /* a leading ~/ is the home there */
    fmt(dir, "%s/tbhome", f->home);
    assert_int_equal(mkdir(dir, 0755), 0);
    fmt(bin, "%s/tb", dir);
    assert_int_equal(symlink(f->tb, bin), 0);
    o.remote_binary = "~/tbhome/tb";
    if (tb_remote_run(&t, &o, NULL, &r, &e) < 0)
        fail_msg("tb_remote_run --remote-binary ~/...: %s", e.msg);
    tb_record_free(r);
    o.remote_binary = bin;

    /* an absent --remote-binary is an error, not a copy */
    fmt(dir, "%s/opt dir 'q' $(x)", f->home);
    fmt(bin, "%s/absent", dir);
    assert_int_equal(tb_remote_run(&t, &o, NULL, &r, &e), -1);
    assert_null(r);
    assert_non_null(strstr(e.msg, "teebench on fakehost does not run (exit 201)"));
    assert_int_equal(access(f->cached, F_OK), -1);
}

/* A binary there that the loader cannot start: the library and its package named. */
static void test_run_missing_library(void **state)
{
    fixture *f = *state;
    char bin[PATH_MAX];
    fmt(bin, "%s/nolib", f->home);
    write_file(bin,
               "#!/bin/sh\n"
               "echo \"$0: error while loading shared libraries: libjansson.so.4: cannot open "
               "shared object file: No such file or directory\" >&2\n"
               "exit 127\n",
               0755);
    tb_remote_target t = target("a=ssh://fakehost");
    tb_remote_opts o = opts_for(f);
    o.remote_binary = bin;
    tb_record *r = NULL;
    tb_err e = {{0}};
    assert_int_equal(tb_remote_run(&t, &o, NULL, &r, &e), -1);
    assert_null(r);
    assert_string_equal(e.msg, "teebench cannot run on fakehost: libjansson.so.4 is missing "
                               "(Debian package libjansson4)");
    write_file(bin,
               "#!/bin/sh\n"
               "echo \"$0: error while loading shared libraries: libzz.so.1: cannot open\" >&2\n"
               "exit 127\n",
               0755);
    assert_int_equal(tb_remote_run(&t, &o, NULL, &r, &e), -1);
    assert_non_null(strstr(e.msg, "libzz.so.1 is missing (Debian package unknown)"));
}

/* A build that cannot run there (a missing library, an older glibc): the fallback (the
   self-contained build) is copied under its own name and runs; an INFO event says why.
   Without a fallback the error says what is missing and that `make static` helps. */
static void test_run_fallback(void **state)
{
    fixture *f = *state;
    char nolib[PATH_MAX], oldc[PATH_MAX];
    fmt(nolib, "%s/../nolib", f->home);
    write_file(nolib,
               "#!/bin/sh\n"
               "echo \"$0: error while loading shared libraries: liblua5.4.so.0: cannot open "
               "shared object file: No such file or directory\" >&2\n"
               "exit 127\n",
               0755);
    tb_remote_target t = target("old=ssh://fakehost");
    tb_remote_opts o = opts_for(f);
    o.local_binary = nolib;
    o.fallback_binary = f->tb;
    seen *s = calloc(1, sizeof *s);
    tb_suite_hooks h = {.progress = on_progress, .ctx = s, .stop = &s->stop};
    tb_record *r = NULL;
    tb_err e = {{0}};
    if (tb_remote_run(&t, &o, &h, &r, &e) < 0)
        fail_msg("tb_remote_run with a fallback: %s", e.msg);
    assert_string_equal(r->status, "complete");
    tb_record_free(r);
    char text[128];
    fmt(text, "this teebench cannot run on fakehost (liblua5.4.so.0 is missing (Debian package "
              "liblua5.4-0)): running the self-");
    int info = -1;
    for (int i = 0; i < s->n && info < 0; i++)
        if (s->kind[i] == TB_SUITE_EV_INFO && !strncmp(s->text[i], text, strlen(text)))
            info = i;
    assert_true(info >= 0);
    assert_true(same_file(f->cached, f->tb)); /* the fallback, under its own hash's name */
    /* both copies are there: the one that does not run tells the next run at once */
    assert_int_equal(count_lines_with(f->log, ".upload."), 2);
    unlink(f->log);
    memset(s, 0, sizeof *s);
    if (tb_remote_run(&t, &o, &h, &r, &e) < 0)
        fail_msg("second tb_remote_run with a fallback: %s", e.msg);
    tb_record_free(r);
    assert_int_equal(count_lines_with(f->log, ".upload."), 0);
    free(s);

    /* an older glibc there, no fallback: named, with the way out */
    fmt(oldc, "%s/../oldc", f->home);
    write_file(oldc,
               "#!/bin/sh\n"
               "echo \"$0: /lib/x86_64-linux-gnu/libc.so.6: version \\`GLIBC_2.34' not found "
               "(required by $0)\" >&2\n"
               "exit 1\n",
               0755);
    o.local_binary = oldc;
    o.fallback_binary = NULL;
    assert_int_equal(tb_remote_run(&t, &o, NULL, &r, &e), -1);
    assert_null(r);
    assert_string_equal(e.msg, "teebench cannot run on fakehost: it needs glibc 2.34 or later, "
                               "which is not there; `make static` builds "
                               "build/teebench-static, which needs no library there");
    /* a fallback that cannot run either: its own reason, no loop */
    o.local_binary = oldc;
    o.fallback_binary = nolib;
    assert_int_equal(tb_remote_run(&t, &o, NULL, &r, &e), -1);
    assert_string_equal(e.msg, "teebench cannot run on fakehost: liblua5.4.so.0 is missing "
                               "(Debian package liblua5.4-0)");
    /* --remote-binary: no fallback is copied in its place */
    o.remote_binary = oldc;
    o.fallback_binary = f->tb;
    assert_int_equal(tb_remote_run(&t, &o, NULL, &r, &e), -1);
    assert_string_equal(e.msg, "teebench cannot run on fakehost: it needs glibc 2.34 or later, "
                               "which is not there");
}

/* A teebench of another version there (--remote-binary): refused, both named. */
static void test_run_wrong_version(void **state)
{
    fixture *f = *state;
    char bin[PATH_MAX];
    fmt(bin, "%s/old", f->home);
    const char *versions[] = {"teebench 0.0.9", "teebench " TEEBENCH_VERSION "1",
                              "teebench " TEEBENCH_VERSION "-rc1", "something else", NULL};
    for (int i = 0; versions[i]; i++) {
        char script[256];
        fmt(script, "#!/bin/sh\necho '%s'\n", versions[i]);
        write_file(bin, script, 0755);
        tb_remote_target t = target("a=ssh://fakehost");
        tb_remote_opts o = opts_for(f);
        o.remote_binary = bin;
        tb_record *r = NULL;
        tb_err e = {{0}};
        if (tb_remote_run(&t, &o, NULL, &r, &e) != -1)
            fail_msg("accepted '%s' as teebench %s", versions[i], TEEBENCH_VERSION);
        char want[300];
        fmt(want, "%s on fakehost says '%s', this is %s", bin, versions[i], TEEBENCH_VERSION);
        assert_string_equal(e.msg, want);
    }
}

/* A remote suite that ends without a result: its exit code and last stderr line; its
   stderr lines on the way are progress (JSON) or INFO (anything else). */
static void test_run_no_result(void **state)
{
    fixture *f = *state;
    tb_suite_event ev = {.kind = TB_SUITE_EV_STEP,
                         .workload = "probe",
                         .target = "getpid",
                         .round = 1,
                         .rounds = 1,
                         .step = 1,
                         .steps = 1,
                         .status = "",
                         .text = "",
                         .eta_s = 2};
    json_t *j = tb_suite_event_to_json(&ev);
    char *line = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    char script[2048], bin[PATH_MAX];
    fmt(script,
        "#!/bin/sh\n"
        "[ \"$1\" = --version ] && { echo 'teebench %s'; exit 0; }\n"
        "echo 'plain text from the remote' >&2\n"
        "echo '%s' >&2\n"
        "echo '{\"event\":\"nope\"}' >&2\n"
        "echo 'teebench: suite: boom' >&2\n"
        "exit 3\n",
        TEEBENCH_VERSION, line);
    free(line);
    fmt(bin, "%s/noresult", f->home);
    write_file(bin, script, 0755);
    tb_remote_target t = target("a=ssh://fakehost");
    tb_remote_opts o = opts_for(f);
    o.remote_binary = bin;
    seen *s = calloc(1, sizeof *s);
    tb_suite_hooks h = {.progress = on_progress, .ctx = s, .stop = &s->stop};
    tb_record *r = NULL;
    tb_err e = {{0}};
    assert_int_equal(tb_remote_run(&t, &o, &h, &r, &e), -1);
    assert_null(r);
    assert_string_equal(e.msg,
                        "the suite on fakehost exited 3 without a result: teebench: suite: boom");
    assert_int_equal(s->n, 4);
    assert_int_equal(s->kind[0], TB_SUITE_EV_INFO);
    assert_string_equal(s->text[0], "plain text from the remote");
    assert_int_equal(s->kind[1], TB_SUITE_EV_STEP);
    assert_int_equal(s->step[1], 1);
    assert_int_equal(find_text(s, TB_SUITE_EV_INFO, "{\"event\":\"nope\"}"), 2);
    assert_int_equal(find_text(s, TB_SUITE_EV_INFO, "teebench: suite: boom"), 3);
    free(s);

    /* a result that is not a record */
    write_file(bin,
               "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'teebench " TEEBENCH_VERSION
               "'; exit 0; }\necho '{\"schema\": \"other\"}'\n",
               0755);
    assert_int_equal(tb_remote_run(&t, &o, NULL, &r, &e), -1);
    assert_null(r);
    assert_non_null(strstr(e.msg, "the result from fakehost"));
}

static void test_run_unreachable(void **state)
{
    fixture *f = *state;
    setenv("FAKE_SSH_FAIL", "1", 1);
    tb_remote_target t = target("a=ssh://fakehost");
    tb_remote_opts o = opts_for(f);
    tb_record *r = NULL;
    tb_err e = {{0}};
    assert_int_equal(tb_remote_run(&t, &o, NULL, &r, &e), -1);
    unsetenv("FAKE_SSH_FAIL");
    assert_null(r);
    assert_string_equal(
        e.msg, "ssh to fakehost failed: ssh: connect to host fake port 22: Connection refused");
    assert_int_equal(count_lines_with(f->log, ".upload."), 0);

    /* an ssh program that does not exist */
    o.ssh_program = "/nonexistent/ssh";
    assert_int_equal(tb_remote_run(&t, &o, NULL, &r, &e), -1);
    assert_non_null(strstr(e.msg, "fakehost"));

    /* a local target is not run over ssh */
    t = target("a=local");
    o = opts_for(f);
    assert_int_equal(tb_remote_run(&t, &o, NULL, &r, &e), -1);
    assert_non_null(strstr(e.msg, "runs here, not over ssh"));
}

/* A server that takes only a password (a TD started by hand) or refuses every key:
   one line saying so, with the exact ssh-copy-id command. */
static void test_run_refused_login(void **state)
{
    fixture *f = *state;
    setenv("FAKE_SSH_DENY", "publickey,password", 1);
    tb_remote_target t = target("td=ssh://tdx@localhost:10022");
    tb_remote_opts o = opts_for(f);
    tb_record *r = NULL;
    tb_err e = {{0}};
    assert_int_equal(tb_remote_run(&t, &o, NULL, &r, &e), -1);
    assert_null(r);
    assert_string_equal(e.msg, "tdx@localhost accepts no key of yours, only a password "
                               "(publickey,password), and teebench's ssh runs in BatchMode, which "
                               "never types one: install your key there once with `ssh-copy-id "
                               "-p 10022 tdx@localhost` (or add --ssh-copy-id to run it here on "
                               "this terminal), then run this again");
    setenv("FAKE_SSH_DENY", "publickey", 1);
    t = target("a=ssh://fakehost");
    assert_int_equal(tb_remote_run(&t, &o, NULL, &r, &e), -1);
    unsetenv("FAKE_SSH_DENY");
    assert_non_null(strstr(e.msg, "fakehost refuses every key of yours (it accepts: publickey)"));
    assert_int_equal(count_lines_with(f->log, ".upload."), 0);
}

static void test_auth_hint(void **state)
{
    (void)state;
    char out[700] = "x";
    tb_remote_target t = target("td=ssh://tdx@localhost:10022");
    assert_int_equal(
        tb_remote_auth_hint(&t, NULL, "ssh: connect to host: refused", out, sizeof out), 0);
    assert_string_equal(out, "x");
    assert_int_equal(tb_remote_auth_hint(&t, NULL, NULL, out, sizeof out), 0);
    /* keyboard-interactive counts as a password; -F and odd words are quoted */
    assert_int_equal(tb_remote_auth_hint(&t, "/my dir/cfg",
                                         "tdx@localhost: Permission denied "
                                         "(publickey,keyboard-interactive).",
                                         out, sizeof out),
                     1);
    assert_non_null(strstr(out, "`ssh-copy-id -F '/my dir/cfg' -p 10022 tdx@localhost`"));
    t = target("h=ssh://example.org");
    assert_int_equal(
        tb_remote_auth_hint(&t, NULL, "Permission denied (password).", out, sizeof out), 1);
    assert_non_null(strstr(out, "example.org accepts no key of yours"));
    assert_non_null(strstr(out, "`ssh-copy-id example.org`"));
    char **argv = tb_remote_copy_id_argv(&t, NULL);
    assert_non_null(argv);
    assert_string_equal(argv[0], "ssh-copy-id");
    assert_string_equal(argv[1], "example.org");
    assert_null(argv[2]);
    tb_remote_argv_free(argv);
}

/* The copy fails there (no cache directory can be made): reported, nothing left. */
static void test_run_copy_fails(void **state)
{
    fixture *f = *state;
    char cache[PATH_MAX];
    fmt(cache, "%s/.cache", f->home);
    write_file(cache, "a file where the cache directory would go\n", 0644);
    tb_remote_target t = target("a=ssh://fakehost");
    tb_remote_opts o = opts_for(f);
    tb_record *r = NULL;
    tb_err e = {{0}};
    assert_int_equal(tb_remote_run(&t, &o, NULL, &r, &e), -1);
    assert_null(r);
    assert_non_null(strstr(e.msg, "copying teebench to fakehost failed (exit 1): "));
    assert_non_null(strstr(e.msg, "mkdir"));
    struct stat st;
    assert_int_equal(stat(cache, &st), 0);
    assert_true(S_ISREG(st.st_mode));
}

/* The connection drops mid-copy (the remote cat sees an early EOF): the short file
   never gets the binary's name, and nothing is left behind. */
static void test_run_short_copy(void **state)
{
    fixture *f = *state;
    setenv("FAKE_SSH_STDIN_BYTES", "1000", 1);
    tb_remote_target t = target("a=ssh://fakehost");
    tb_remote_opts o = opts_for(f);
    tb_record *r = NULL;
    tb_err e = {{0}};
    int rc = tb_remote_run(&t, &o, NULL, &r, &e);
    unsetenv("FAKE_SSH_STDIN_BYTES");
    assert_int_equal(rc, -1);
    assert_null(r);
    struct stat st;
    assert_int_equal(stat(f->tb, &st), 0);
    char want[160];
    fmt(want, "copying teebench to fakehost failed (exit 1): short copy: 1000 of %lld bytes",
        (long long)st.st_size);
    if (!strstr(e.msg, want))
        fail_msg("got: %s", e.msg);
    assert_int_equal(access(f->cached, F_OK), -1);
    char dir[PATH_MAX];
    fmt(dir, "%s/.cache/teebench", f->home);
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *de; (de = readdir(d));)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            fail_msg("left there: %s", de->d_name);
    closedir(d);
}

/* A damaged copy under the binary's name (it does not run as this build): copied
   again once, then used. */
static void test_run_damaged_copy(void **state)
{
    fixture *f = *state;
    char dir[PATH_MAX];
    fmt(dir, "%s/.cache", f->home);
    assert_int_equal(mkdir(dir, 0700), 0);
    fmt(dir, "%s/.cache/teebench", f->home);
    assert_int_equal(mkdir(dir, 0700), 0);
    write_file(f->cached,
               "\x7f"
               "ELF\x02\x01 truncated",
               0755);
    tb_remote_target t = target("a=ssh://fakehost");
    tb_remote_opts o = opts_for(f);
    tb_record *r = NULL;
    tb_err e = {{0}};
    if (tb_remote_run(&t, &o, NULL, &r, &e) < 0)
        fail_msg("tb_remote_run over a damaged copy: %s", e.msg);
    tb_record_free(r);
    assert_true(same_file(f->cached, f->tb));
    assert_int_equal(count_lines_with(f->log, ".upload."), 1);
}

/* A suite document goes along (a temp file there, removed after); the suite's
   arguments arrive as words. */
static void test_run_suite_doc(void **state)
{
    fixture *f = *state;
    char bin[PATH_MAX], script[4096];
    /* a wrapper there: records its arguments and the suite file, then runs teebench */
    fmt(script,
        "#!/bin/sh\n"
        "[ \"$1\" = --version ] && exec '%s' --version\n"
        "for a; do printf '<%%s>\\n' \"$a\"; done >\"$HOME/args\"\n"
        "prev=; for a; do [ \"$prev\" = --suite ] && { cp \"$a\" \"$HOME/doc\"; "
        "echo \"$a\" >\"$HOME/docpath\"; }; prev=$a; done\n"
        "exec '%s' \"$@\"\n",
        f->tb, f->tb);
    fmt(bin, "%s/wrap", f->home);
    write_file(bin, script, 0755);
    const char *doc = "{\n  \"repeat\": 2,\n  \"workloads\": {\"probe\": {\"probes\": \"getpid\","
                      " \"max_reps\": 100}}\n}\n";
    char *args[] = {"--profile", "quick", "--set", "probe.max_reps=150", NULL};
    tb_remote_target t = target("with.doc=ssh://fakehost");
    tb_remote_opts o = opts_for(f);
    o.remote_binary = bin;
    o.suite_doc = doc;
    o.suite_args = args;
    tb_record *r = NULL;
    tb_err e = {{0}};
    if (tb_remote_run(&t, &o, NULL, &r, &e) < 0)
        fail_msg("tb_remote_run with a suite document: %s", e.msg);
    assert_string_equal(r->label, "with.doc");
    size_t nm = 0;
    for (size_t i = 0; i < r->n_metrics; i++)
        if (!strcmp(r->metrics[i].name, "probe.getpid.ns"))
            nm = r->metrics[i].n;
    assert_int_equal(nm, 2); /* the document's repeat */
    tb_record_free(r);
    char p[PATH_MAX];
    tb_buf b = {0};
    fmt(p, "%s/doc", f->home);
    assert_int_equal(tb_file_read(p, 1 << 20, &b, &e), 0);
    assert_string_equal((char *)b.p, doc);
    tb_buf_clear(&b);
    fmt(p, "%s/args", f->home);
    assert_int_equal(tb_file_read(p, 1 << 20, &b, &e), 0);
    assert_non_null(strstr((char *)b.p, "<suite>\n<run>\n<--suite>\n"));
    assert_non_null(strstr((char *)b.p, "<--profile>\n<quick>\n<--set>\n<probe.max_reps=150>\n"
                                        "<--label>\n<with.doc>\n<--no-store>\n<-o>\n<->\n"));
    tb_buf_clear(&b);
    /* too large to send as one command: said before the suite starts there */
    tb_buf big = {0};
    tb_buf_puts(&big, "{\"repeat\": 2, \"x\": \"");
    for (int i = 0; i < 130 * 1024; i++)
        tb_buf_puts(&big, "'");
    tb_buf_puts(&big, "\"}");
    o.suite_doc = (const char *)big.p;
    unlink(f->log);
    assert_int_equal(tb_remote_run(&t, &o, NULL, &r, &e), -1);
    assert_non_null(strstr(e.msg, "more than ssh can send"));
    assert_int_equal(count_lines_with(f->log, "suite run"), 0);
    tb_buf_clear(&big);
    /* the temp file there is gone */
    fmt(p, "%s/docpath", f->home);
    assert_int_equal(tb_file_read(p, 1 << 20, &b, &e), 0);
    b.p[strcspn((char *)b.p, "\n")] = 0;
    assert_true(b.len > 1);
    assert_int_equal(access((char *)b.p, F_OK), -1);
    tb_buf_clear(&b);
}

/* *stop set while the remote suite runs: stdin closes, the suite there gets SIGINT
   and its finished rounds come back as an "interrupted" record. */
static void test_run_interrupt(void **state)
{
    fixture *f = *state;
    char *args[] = {"--profile",   "quick",
                    "--workloads", "probe",
                    "--set",       "probe.probes=getpid",
                    "--set",       "probe.max_reps=200",
                    "--repeat",    "100",
                    NULL};
    tb_remote_target t = target("a=ssh://fakehost");
    tb_remote_opts o = opts_for(f);
    o.suite_args = args;
    seen *s = calloc(1, sizeof *s);
    s->stop_after_done = 2;
    tb_suite_hooks h = {.progress = on_progress, .ctx = s, .stop = &s->stop};
    tb_record *r = NULL;
    tb_err e = {{0}};
    int rc = tb_remote_run(&t, &o, &h, &r, &e);
    uint64_t done = tb_mono_ns();
    if (rc < 0)
        fail_msg("interrupted tb_remote_run: %s", e.msg);
    assert_true(s->stop);
    assert_string_equal(r->status, "interrupted");
    size_t n = 0;
    for (size_t i = 0; i < r->n_metrics; i++)
        if (!strcmp(r->metrics[i].name, "probe.getpid.ns"))
            n = r->metrics[i].n;
    assert_true(n >= 2 && n < 100);
    assert_ordered(s, "interrupted");
    /* it stopped soon after *stop, not after 100 rounds */
    assert_true(done - s->stop_ns < 5000000000ull);
    tb_record_free(r);
    free(s);
}

/* A remote suite that ignores the interrupt: cut off stop_grace_ms after *stop. */
static void test_run_stuck_interrupt(void **state)
{
    fixture *f = *state;
    tb_suite_event ev = {.kind = TB_SUITE_EV_STEP_DONE,
                         .workload = "probe",
                         .target = "",
                         .round = 1,
                         .rounds = 9,
                         .step = 1,
                         .steps = 9,
                         .status = "ok",
                         .text = "",
                         .eta_s = 2};
    json_t *j = tb_suite_event_to_json(&ev);
    char *line = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    char script[2048], bin[PATH_MAX];
    fmt(script,
        "#!/bin/sh\n"
        "[ \"$1\" = --version ] && { echo 'teebench %s'; exit 0; }\n"
        "trap '' INT\n"
        "echo '%s' >&2\n"
        "sleep 30\n",
        TEEBENCH_VERSION, line);
    free(line);
    fmt(bin, "%s/stuck", f->home);
    write_file(bin, script, 0755);
    tb_remote_target t = target("a=ssh://fakehost");
    tb_remote_opts o = opts_for(f);
    o.remote_binary = bin;
    o.stop_grace_ms = 500;
    seen *s = calloc(1, sizeof *s);
    s->stop_after_done = 1;
    tb_suite_hooks h = {.progress = on_progress, .ctx = s, .stop = &s->stop};
    tb_record *r = NULL;
    tb_err e = {{0}};
    assert_int_equal(tb_remote_run(&t, &o, &h, &r, &e), -1);
    uint64_t done = tb_mono_ns();
    assert_null(r);
    assert_true(s->stop);
    assert_string_equal(e.msg,
                        "the suite on fakehost: interrupted, and it did not stop within 0.5 s");
    assert_true(done - s->stop_ns < 5000000000ull);
    free(s);
}

/* *stop set before the copy: nothing is copied, the run ends at once. */
static void test_run_stop_before(void **state)
{
    fixture *f = *state;
    tb_remote_target t = target("a=ssh://fakehost");
    tb_remote_opts o = opts_for(f);
    seen *s = calloc(1, sizeof *s);
    s->stop = 1;
    tb_suite_hooks h = {.progress = on_progress, .ctx = s, .stop = &s->stop};
    tb_record *r = NULL;
    tb_err e = {{0}};
    assert_int_equal(tb_remote_run(&t, &o, &h, &r, &e), -1);
    assert_null(r);
    assert_non_null(strstr(e.msg, "interrupted"));
    assert_int_equal(access(f->cached, F_OK), -1);
    free(s);
}

/* ---------- a hostile remote ---------- */

/* A result document labelled label at path (what a remote script prints). */
static void write_result(const char *path, const char *label)
{
    tb_err e;
    tb_record *r = tb_record_new(&e);
    assert_non_null(r);
    assert_int_equal(tb_record_set_str(&r->label, label, &e), 0);
    tb_metric *m = tb_record_metric(r, "probe.getpid.ns", "ns", TB_BETTER_LOWER, "probe", &e);
    assert_non_null(m);
    assert_int_equal(tb_metric_add(m, 42, &e), 0);
    char *text = tb_record_dumps(r, 0, NULL);
    assert_non_null(text);
    write_file(path, text, 0644);
    free(text);
    tb_record_free(r);
}

/* A --remote-binary that answers --version as this build, then runs body. */
static void hostile(const fixture *f, const char *body, char *bin, size_t len)
{
    char script[4096];
    fmt(script, "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'teebench %s'; exit 0; }\n%s\n",
        TEEBENCH_VERSION, body);
    assert_true(snprintf(bin, len, "%s/hostile", f->home) < (int)len);
    write_file(bin, script, 0755);
}

/* The peak resident memory of this process so far, in MiB. */
static long peak_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024;
}

/* A remote that calls itself "host" (the label its own --label default gives) and
   writes escape sequences among its progress: the record is the target's, and the
   lines reach the hooks as they came (the cli's printer escapes them). */
static void test_run_hostile_label(void **state)
{
    fixture *f = *state;
    char res[PATH_MAX], body[2048], bin[PATH_MAX];
    fmt(res, "%s/res.json", f->home);
    write_result(res, "host");
    fmt(body, "printf '\\033]0;owned\\007\\033[2Jhello\\n' >&2\ncat '%s'\n", res);
    hostile(f, body, bin, sizeof bin);
    tb_remote_target t = target("TDX VM=ssh://fakehost");
    tb_remote_opts o = opts_for(f);
    o.remote_binary = bin;
    seen *s = calloc(1, sizeof *s);
    tb_suite_hooks h = {.progress = on_progress, .ctx = s, .stop = &s->stop};
    tb_record *r = NULL;
    tb_err e = {{0}};
    if (tb_remote_run(&t, &o, &h, &r, &e) < 0)
        fail_msg("tb_remote_run: %s", e.msg);
    assert_string_equal(r->label, "TDX VM");
    assert_non_null(tb_record_find(r, "probe.getpid.ns"));
    assert_int_equal(find_text(s, TB_SUITE_EV_INFO, "\033]0;owned\007\033[2Jhello"), 0);
    tb_record_free(r);
    free(s);
}

/* 200 MB of stderr without a newline, then a result: one pass over the bytes (the
   old splitter rescanned its whole buffer for every 16 KiB read: minutes), 64 KiB of
   the line kept, and the line is one INFO event saying how long it was. */
static void test_run_giant_line(void **state)
{
    fixture *f = *state;
    char res[PATH_MAX], body[2048], bin[PATH_MAX];
    fmt(res, "%s/res.json", f->home);
    write_result(res, "host");
    fmt(body, "head -c 200000000 /dev/zero | tr '\\0' x >&2\necho >&2\ncat '%s'\n", res);
    hostile(f, body, bin, sizeof bin);
    tb_remote_target t = target("a=ssh://fakehost");
    tb_remote_opts o = opts_for(f);
    o.remote_binary = bin;
    seen *s = calloc(1, sizeof *s);
    tb_suite_hooks h = {.progress = on_progress, .ctx = s, .stop = &s->stop};
    tb_record *r = NULL;
    tb_err e = {{0}};
    long peak0 = peak_mib();
    uint64_t t0 = tb_mono_ns();
    if (tb_remote_run(&t, &o, &h, &r, &e) < 0)
        fail_msg("tb_remote_run: %s", e.msg);
    double secs = (double)(tb_mono_ns() - t0) / 1e9;
    long grown = peak_mib() - peak0;
    print_message("giant line: %.2f s, peak memory +%ld MiB\n", secs, grown);
    assert_true(secs < 20); /* generous for ASan; ~1 s in a release build */
    assert_true(grown < 64);
    assert_string_equal(r->label, "a");
    assert_int_equal(s->n, 1);
    assert_int_equal(s->kind[0], TB_SUITE_EV_INFO);
    assert_int_equal(strncmp(s->text[0], "xxxxxxxxxx", 10), 0);
    assert_non_null(strstr(s->text[0], "... (a line of 200000000 bytes, cut)"));
    tb_record_free(r);
    free(s);
}

/* Interrupted while it floods stderr with a line that never ends (and ignores
   SIGINT): killed at once, not after the 60 s a stopping suite gets. */
static void test_run_giant_line_interrupt(void **state)
{
    fixture *f = *state;
    tb_suite_event ev = {.kind = TB_SUITE_EV_STEP_DONE,
                         .workload = "probe",
                         .target = "",
                         .round = 1,
                         .rounds = 9,
                         .step = 1,
                         .steps = 9,
                         .status = "ok",
                         .text = "",
                         .eta_s = 2};
    json_t *j = tb_suite_event_to_json(&ev);
    char *line = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    char body[2048], bin[PATH_MAX];
    fmt(body, "trap '' INT\necho '%s' >&2\ncat /dev/zero | tr '\\0' x >&2\n", line);
    free(line);
    hostile(f, body, bin, sizeof bin);
    tb_remote_target t = target("a=ssh://fakehost");
    tb_remote_opts o = opts_for(f);
    o.remote_binary = bin; /* stop_grace_ms: the default 60 s */
    seen *s = calloc(1, sizeof *s);
    s->stop_after_done = 1;
    tb_suite_hooks h = {.progress = on_progress, .ctx = s, .stop = &s->stop};
    tb_record *r = NULL;
    tb_err e = {{0}};
    long peak0 = peak_mib();
    assert_int_equal(tb_remote_run(&t, &o, &h, &r, &e), -1);
    uint64_t done = tb_mono_ns();
    assert_null(r);
    assert_true(s->stop);
    assert_string_equal(e.msg, "the suite on fakehost: interrupted, and it went on writing to "
                               "stderr instead of stopping");
    print_message("interrupt in a giant line: %.2f s\n", (double)(done - s->stop_ns) / 1e9);
    assert_true(done - s->stop_ns < 2000000000ull);
    assert_true(peak_mib() - peak0 < 64);
    free(s);
}

/* A result over 256 MiB: refused with one line while it arrives, the ssh killed; what
   arrived was in a temporary file, not in memory. */
static void test_run_result_over_limit(void **state)
{
    fixture *f = *state;
    char bin[PATH_MAX];
    hostile(f, "head -c 300000000 /dev/zero\n", bin, sizeof bin);
    tb_remote_target t = target("a=ssh://fakehost");
    tb_remote_opts o = opts_for(f);
    o.remote_binary = bin;
    tb_record *r = NULL;
    tb_err e = {{0}};
    long peak0 = peak_mib();
    assert_int_equal(tb_remote_run(&t, &o, NULL, &r, &e), -1);
    assert_null(r);
    assert_string_equal(e.msg, "the suite on fakehost: the remote sent more than 256 MiB");
    assert_true(peak_mib() - peak0 < 64);
}

/* A 120 MB result of 40 million samples (the old reader built all of it: 3.3 GB):
   refused as soon as it passes a million values, memory bounded (~32 MiB built
   before the refusal; under 256 MiB with a sanitizer's shadow memory too). */
static void test_run_result_too_many_values(void **state)
{
    fixture *f = *state;
    char bin[PATH_MAX];
    hostile(f,
            "printf '{\"schema\": \"teebench-result\", \"schema_version\": 1, \"metrics\": "
            "[{\"name\": \"probe.x.ns\", \"samples\": ['\n"
            "yes 1, | head -n 40000000 | tr -d '\\n'\nprintf '1]}]}\\n'\n",
            bin, sizeof bin);
    tb_remote_target t = target("a=ssh://fakehost");
    tb_remote_opts o = opts_for(f);
    o.remote_binary = bin;
    tb_record *r = NULL;
    tb_err e = {{0}};
    long peak0 = peak_mib();
    assert_int_equal(tb_remote_run(&t, &o, NULL, &r, &e), -1);
    long grown = peak_mib() - peak0;
    print_message("120 MB result: peak memory +%ld MiB\n", grown);
    assert_null(r);
    assert_string_equal(
        e.msg, "the result from fakehost: too large for a result: more than 1000000 values");
    assert_true(grown < 256);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN); /* as main() does: a closed pipe is an error, not a death */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_good),
        cmocka_unit_test(test_parse_bad),
        cmocka_unit_test(test_ssh_argv),
        cmocka_unit_test(test_ssh_argv_openssh),
        cmocka_unit_test(test_shell_quote),
        cmocka_unit_test(test_package_of),
        cmocka_unit_test(test_package_of_needed),
        cmocka_unit_test(test_glibc_needed),
        cmocka_unit_test(test_binary_name),
        cmocka_unit_test(test_auth_hint),
        cmocka_unit_test_setup_teardown(test_run_refused_login, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_copy_then_reuse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_remote_binary, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_missing_library, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_fallback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_wrong_version, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_no_result, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_unreachable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_copy_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_short_copy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_damaged_copy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_suite_doc, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_interrupt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_stuck_interrupt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_stop_before, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_hostile_label, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_giant_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_giant_line_interrupt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_result_over_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_result_too_many_values, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
