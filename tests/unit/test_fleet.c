/* Unit tests for src/fleet: the environment list (targets in order, with VMs this
 * machine first, then each VM with its final label, then the targets; a name twice
 * refused; a kind this host cannot run kept as a refusal and said at preflight), the
 * pure parts of --http-client local (the port there, the remote's workloads, the
 * http.nginx.* metrics merged into the remote record) and of a remote's arguments,
 * and tb_fleet_run: environments in order, one that fails said while the others run
 * and the result holding the ones that succeeded (compared), an interrupt (the
 * environment running now ends, no further one begins), and the VMs started here
 * stopped on every path -- a run, a suite that fails inside, Ctrl-C during the
 * suite or during the boot, a QEMU that fails to launch.
 *
 * No real VM: tests/tools/fake_qemu.sh answers QEMU's probes from a recorded host
 * (tests/data/vm/hosts/ubuntu-25.10) and hands a launch to this test binary, which
 * then acts as the guest (fake_guest below: it daemonizes with the VM's pid file in
 * its command line, as QEMU does, answers SSH's banner on the forwarded port and QMP
 * on the VM's socket, and powers off on system_powerdown). Every ssh -- the VM's
 * first login (ssh from PATH) and the suite's (ssh_program) -- is
 * tests/tools/fake_ssh.sh, which runs the command here; so the suite "in the VM" is
 * the built teebench run through suite/remote, as it would be in a guest. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/file.h"
#include "compare/compare.h"
#include "fleet/fleet.h"
#include "record/record.h"
#include "suite/suite.h"

#define fmt(buf, ...) assert_true(snprintf((buf), sizeof(buf), __VA_ARGS__) < (int)sizeof(buf))

/* ---------- the fake guest (this binary as QEMU's launch) ---------- */

static int listen_tcp(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 8) < 0)
        return -1;
    return fd;
}

static int listen_unix(const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || strlen(path) >= sizeof sa.sun_path)
        return -1;
    memcpy(sa.sun_path, path, strlen(path) + 1);
    unlink(path);
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 4) < 0)
        return -1;
    return fd;
}

static void put(int fd, const char *s)
{
    if (write(fd, s, strlen(s)) < 0)
        return;
}

/* One QMP command line: a return for each; system_powerdown and quit end the guest. */
static int qmp_line(int fd, const char *line)
{
    json_t *j = json_loads(line, 0, NULL);
    const char *cmd = json_string_value(json_object_get(j, "execute"));
    char reply[128];
    snprintf(reply, sizeof reply, "{\"return\": {}, \"id\": %lld}\r\n",
             (long long)json_integer_value(json_object_get(j, "id")));
    put(fd, reply);
    int end = cmd && (!strcmp(cmd, "system_powerdown") || !strcmp(cmd, "quit"));
    json_decref(j);
    return end;
}

/* The guest's life: SSH banners (none when mute), QMP, at most 120 s. */
static void guest_serve(int ssh, int ctl, const char *qmp, int mute)
{
    uint64_t end = tb_mono_ns() + 120000000000ull;
    int client = -1;
    char buf[4096];
    size_t have = 0;
    while (tb_mono_ns() < end) {
        struct pollfd p[3] = {{.fd = ssh, .events = POLLIN},
                              {.fd = ctl, .events = POLLIN},
                              {.fd = client, .events = POLLIN}};
        if (poll(p, client >= 0 ? 3 : 2, 1000) <= 0)
            continue;
        if (p[0].revents & POLLIN) {
            int c = accept4(ssh, NULL, NULL, SOCK_CLOEXEC);
            if (c >= 0 && !mute)
                put(c, "SSH-2.0-OpenSSH_9.2 fake\r\n");
            if (c >= 0)
                close(c);
        }
        if (p[1].revents & POLLIN) {
            int c = accept4(ctl, NULL, NULL, SOCK_CLOEXEC);
            if (c >= 0) {
                if (client >= 0)
                    close(client);
                client = c;
                have = 0;
                put(c, "{\"QMP\": {\"version\": {\"qemu\": {\"major\": 7, \"minor\": 2, "
                       "\"micro\": 0}}, \"capabilities\": []}}\r\n");
            }
        }
        if (client >= 0 && (p[2].revents & (POLLIN | POLLHUP))) {
            ssize_t n = read(client, buf + have, sizeof buf - 1 - have);
            if (n <= 0) {
                close(client);
                client = -1;
                continue;
            }
            have += (size_t)n;
            buf[have] = 0;
            char *nl;
            while ((nl = strchr(buf, '\n'))) {
                *nl = 0;
                if (qmp_line(client, buf)) {
                    unlink(qmp);
                    _exit(0);
                }
                have -= (size_t)(nl + 1 - buf);
                memmove(buf, nl + 1, have + 1);
            }
        }
    }
    unlink(qmp);
}

/* As QEMU -daemonize: set up, fork the guest (its command line keeps -pidfile PATH,
   which is how vm/ recognises its QEMU), write its pid, exit 0. */
static int fake_guest(int argc, char **argv)
{
    const char *pidfile = NULL;
    char qmp[PATH_MAX] = "";
    int port = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-pidfile") && i + 1 < argc)
            pidfile = argv[i + 1];
        if (!strcmp(argv[i], "-qmp") && i + 1 < argc && !strncmp(argv[i + 1], "unix:", 5))
            snprintf(qmp, sizeof qmp, "%.*s", (int)strcspn(argv[i + 1] + 5, ","), argv[i + 1] + 5);
        const char *fwd = strstr(argv[i], "hostfwd=tcp:127.0.0.1:");
        if (fwd)
            port = atoi(fwd + strlen("hostfwd=tcp:127.0.0.1:"));
    }
    int ssh = port ? listen_tcp(port) : -1, ctl = qmp[0] ? listen_unix(qmp) : -1;
    if (!pidfile || ssh < 0 || ctl < 0) {
        fprintf(stderr, "fake guest: no -pidfile, -qmp unix:PATH or hostfwd (or cannot listen)\n");
        _exit(1);
    }
    const char *mode = getenv("TB_TEST_GUEST");
    int ready[2];
    if (pipe(ready) < 0)
        _exit(1);
    pid_t pid = fork();
    if (pid < 0)
        _exit(1);
    if (pid > 0) {
        /* as QEMU: the parent exits once the guest has left this process group (whoever
           started the launch kills what is left of the group when it exits) */
        char c;
        close(ready[1]);
        if (read(ready[0], &c, 1) != 1)
            _exit(1);
        FILE *f = fopen(pidfile, "w");
        if (!f)
            _exit(1);
        fprintf(f, "%d\n", (int)pid);
        _exit(fclose(f) == 0 ? 0 : 1);
    }
    setsid();
    close(ready[0]);
    if (write(ready[1], "r", 1) != 1)
        _exit(1);
    close(ready[1]);
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(null, 1);
    dup2(null, 2);
    guest_serve(ssh, ctl, qmp, mode && !strcmp(mode, "mute"));
    _exit(0);
}

/* ---------- fixture ---------- */

#define MAX_SEEN 64

typedef struct fixture {
    char root[64];
    char home[PATH_MAX], bin[PATH_MAX], vms[PATH_MAX], kernel[PATH_MAX], ovmf[PATH_MAX],
        key[PATH_MAX];
    char tb[PATH_MAX], self[PATH_MAX], fake_ssh[PATH_MAX], fake_qemu[PATH_MAX], qemu_dir[PATH_MAX];
    char old_path[8192];
    tb_suite_plan plan;
    tb_fleet_opts opts;
    volatile sig_atomic_t stop;
    /* what the hooks saw */
    char says[MAX_SEEN][1200];
    int say_kind[MAX_SEEN], n_says;
    char begins[MAX_SEEN][64];
    int n_begins;
    char dones[MAX_SEEN][64];
    char done_status[MAX_SEEN][16];
    int n_dones;
    char infos[MAX_SEEN][1100];
    int n_infos;
    /* set stop when an INFO event's text holds this, or when this environment's suite
       sends its first step */
    const char *stop_at_info;
    const char *stop_at_step_of;
} fixture;

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    snprintf(f->root, sizeof f->root, "/tmp/tb-fleet.XXXXXX");
    if (!mkdtemp(f->root))
        return -1;
    snprintf(f->home, sizeof f->home, "%s/home", f->root);
    snprintf(f->bin, sizeof f->bin, "%s/bin", f->root);
    snprintf(f->vms, sizeof f->vms, "%s/vms", f->root);
    snprintf(f->kernel, sizeof f->kernel, "%s/vmlinuz", f->root);
    snprintf(f->ovmf, sizeof f->ovmf, "%s/OVMF.fd", f->root);
    snprintf(f->key, sizeof f->key, "%s/id_ed25519", f->root);
    mkdir(f->home, 0700);
    mkdir(f->bin, 0700);
    ssize_t n = readlink("/proc/self/exe", f->self, sizeof f->self - 1);
    if (n <= 0)
        return -1;
    f->self[n] = 0;
    const char *env = getenv("TEEBENCH");
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", f->self);
    snprintf(f->tb, sizeof f->tb, "%s", env && *env ? env : "");
    if (!f->tb[0])
        snprintf(f->tb, sizeof f->tb, "%s/teebench", dirname(dir));
    if (access(f->tb, X_OK) < 0) {
        fprintf(stderr, "test_fleet: no teebench binary at %s (build it, or set TEEBENCH)\n",
                f->tb);
        return -1;
    }
    const char *src = getenv("TEEBENCH_SOURCE_DIR");
    src = src && *src ? src : TEEBENCH_SOURCE_DIR;
    snprintf(f->fake_ssh, sizeof f->fake_ssh, "%s/tests/tools/fake_ssh.sh", src);
    snprintf(f->fake_qemu, sizeof f->fake_qemu, "%s/tests/tools/fake_qemu.sh", src);
    snprintf(f->qemu_dir, sizeof f->qemu_dir, "%s/tests/data/vm/hosts/ubuntu-25.10/vm/qemu", src);
    /* the VM's first login runs ssh from PATH: the fake one */
    char ssh[PATH_MAX + 8];
    snprintf(ssh, sizeof ssh, "%s/ssh", f->bin);
    if (symlink(f->fake_ssh, ssh) < 0)
        return -1;
    const char *path = getenv("PATH");
    snprintf(f->old_path, sizeof f->old_path, "%s", path ? path : "/usr/bin:/bin");
    char np[sizeof f->old_path + PATH_MAX];
    snprintf(np, sizeof np, "%s:%s", f->bin, f->old_path);
    setenv("PATH", np, 1);
    setenv("HOME", f->home, 1);
    unsetenv("XDG_CACHE_HOME");
    unsetenv("FAKE_SSH_FAIL");
    unsetenv("FAKE_SSH_LOG");
    setenv("FAKE_QEMU_DIR", f->qemu_dir, 1);
    setenv("FAKE_QEMU_LAUNCH", f->self, 1);
    unsetenv("FAKE_QEMU_EXIT");
    unsetenv("TB_TEST_GUEST");
    write_file(f->kernel, "kernel\n");
    write_file(f->ovmf, "ovmf\n");
    write_file(f->key, "not a key: the fake ssh takes any\n");
    char pub[PATH_MAX + 8];
    snprintf(pub, sizeof pub, "%s.pub", f->key);
    write_file(pub, "ssh-ed25519 AAAA test\n");
    tb_err e;
    if (tb_suite_plan_init(&f->plan, "quick", &e) < 0 ||
        tb_suite_plan_select(&f->plan, "env", &e) < 0)
        return -1;
    snprintf(f->plan.self_exe, sizeof f->plan.self_exe, "%s", f->tb);
    f->opts = (tb_fleet_opts){.profile = "quick",
                              .workloads = "env",
                              .vm_dir = f->vms,
                              .ssh_program = f->fake_ssh,
                              .stop_grace_ms = 5000};
    *state = f;
    return 0;
}

/* The pid of a process (not a zombie) whose command line holds the pid file of VM name
   as one argument -- vm/'s own test of its QEMU -- looked for in all of /proc; 0: none. */
static pid_t guest_pid(const fixture *f, const char *name)
{
    char pidfile[PATH_MAX + 64];
    snprintf(pidfile, sizeof pidfile, "%s/%s/qemu.pid", f->vms, name);
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    struct dirent *de;
    pid_t found = 0;
    while (!found && (de = readdir(d))) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        char path[300];
        snprintf(path, sizeof path, "/proc/%s/cmdline", de->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        char buf[16384];
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n > 0)
            buf[n] = 0;
        for (ssize_t i = 0; n > 0 && i < n; i += (ssize_t)strlen(buf + i) + 1)
            if (!strcmp(buf + i, pidfile))
                found = (pid_t)atoi(de->d_name);
    }
    closedir(d);
    return found;
}

static int guest_alive(const fixture *f, const char *name)
{
    return guest_pid(f, name) != 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    pid_t left = guest_pid(f, "g"); /* a test that failed may leave its guest */
    if (left > 0)
        kill(left, SIGKILL);
    setenv("PATH", f->old_path, 1);
    if (!getenv("TB_TEST_FLEET_KEEP"))
        nftw(f->root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    free(f);
    return 0;
}

static void on_say(tb_fleet_say_kind kind, const char *text, void *ctx)
{
    fixture *f = ctx;
    assert_true(f->n_says < MAX_SEEN);
    f->say_kind[f->n_says] = kind;
    snprintf(f->says[f->n_says++], sizeof f->says[0], "%s", text);
}

static void on_begin(const tb_fleet_env *e, void *ctx)
{
    fixture *f = ctx;
    assert_true(f->n_begins < MAX_SEEN);
    snprintf(f->begins[f->n_begins++], sizeof f->begins[0], "%s", e->t.name);
}

static void on_done(const tb_fleet_env *e, const tb_record *r, void *ctx)
{
    fixture *f = ctx;
    assert_true(f->n_dones < MAX_SEEN);
    assert_string_equal(r->label, e->t.name); /* each record is its environment's */
    snprintf(f->done_status[f->n_dones], sizeof f->done_status[0], "%s", r->status);
    snprintf(f->dones[f->n_dones++], sizeof f->dones[0], "%s", e->t.name);
}

static void on_event(const tb_suite_event *ev, void *ctx)
{
    fixture *f = ctx;
    if (ev->kind == TB_SUITE_EV_INFO && f->n_infos < MAX_SEEN)
        snprintf(f->infos[f->n_infos++], sizeof f->infos[0], "%s", ev->text);
    if (ev->kind == TB_SUITE_EV_INFO && f->stop_at_info && strstr(ev->text, f->stop_at_info))
        f->stop = 1;
    if (ev->kind == TB_SUITE_EV_STEP && f->stop_at_step_of && f->n_begins &&
        !strcmp(f->begins[f->n_begins - 1], f->stop_at_step_of))
        f->stop = 1;
}

static tb_fleet_hooks hooks_of(fixture *f)
{
    return (tb_fleet_hooks){.suite = {.progress = on_event, .ctx = f, .stop = &f->stop},
                            .say = on_say,
                            .begin = on_begin,
                            .done = on_done,
                            .ctx = f};
}

/* tb_fleet_run through the fixture's hooks (it must return 0). */
static void run(fixture *f, tb_fleet *fl, tb_fleet_result *res)
{
    tb_fleet_hooks h = hooks_of(f);
    tb_err e;
    assert_int_equal(tb_fleet_run(fl, &f->plan, &h, res, &e), 0);
}

/* The first say line holding text, or NULL; its kind into *kind (may be NULL). */
static const char *said_as(const fixture *f, const char *text, int *kind)
{
    for (int i = 0; i < f->n_says; i++)
        if (strstr(f->says[i], text)) {
            if (kind)
                *kind = f->say_kind[i];
            return f->says[i];
        }
    return NULL;
}

static const char *said(const fixture *f, const char *text)
{
    return said_as(f, text, NULL);
}

/* The first error line, or NULL. */
static const char *said_error(const fixture *f)
{
    for (int i = 0; i < f->n_says; i++)
        if (f->say_kind[i] == TB_FLEET_ERROR)
            return f->says[i];
    return NULL;
}

static const char *info_with(const fixture *f, const char *text)
{
    for (int i = 0; i < f->n_infos; i++)
        if (strstr(f->infos[i], text))
            return f->infos[i];
    return NULL;
}

/* The VMs' description: a direct kernel boot, no firmware, the test's key, no seed. */
static void vm_spec(fixture *f, tb_fleet *fl)
{
    fl->vm_spec.qemu = f->fake_qemu;
    fl->vm_spec.kernel = f->kernel;
    fl->vm_spec.firmware = "none";
    fl->vm_spec.ssh_key = f->key;
    fl->vm_spec.seed = 0;
    fl->vm_spec.cpus = 1;
    fl->vm_spec.vsock = TB_VM_VSOCK_OFF;
    fl->vm_spec.boot_timeout_s = 30;
}

/* ---------- the environment list ---------- */

static void test_targets_in_order(void **state)
{
    fixture *f = *state;
    tb_fleet *fl = tb_fleet_new(&f->opts);
    assert_non_null(fl);
    tb_err e;
    assert_int_equal(tb_fleet_add_target(fl, "b=ssh://tdx@localhost:10022", &e), 0);
    assert_int_equal(tb_fleet_add_target(fl, "a=local", &e), 0);
    assert_int_equal(tb_fleet_add_target(fl, "TDX VM=vm:td1", &e), 0);
    /* a name twice, a bad target: refused, the list unchanged */
    assert_int_equal(tb_fleet_add_target(fl, "a=ssh://example.org", &e), -1);
    assert_string_equal(e.msg, "a=ssh://example.org: the name a is used twice");
    assert_int_equal(tb_fleet_add_target(fl, "c=ftp://x", &e), -1);
    assert_non_null(strstr(e.msg, "c=ftp://x"));
    assert_int_equal(fl->n_targets, 3);
    assert_int_equal(tb_fleet_plan(fl, &e), 0);
    assert_int_equal(fl->n_envs, 3); /* no VMs: no "host" either */
    assert_string_equal(fl->envs[0].t.name, "b");
    assert_int_equal(fl->envs[0].t.kind, TB_TARGET_SSH);
    assert_string_equal(fl->envs[0].where, "ssh://tdx@localhost:10022");
    assert_string_equal(fl->envs[1].t.name, "a");
    assert_int_equal(fl->envs[1].t.kind, TB_TARGET_LOCAL);
    assert_string_equal(fl->envs[1].where, "local");
    assert_string_equal(fl->envs[2].t.name, "TDX VM");
    assert_string_equal(fl->envs[2].where, "vm:td1");
    for (int i = 0; i < 3; i++)
        assert_int_equal(fl->envs[i].vm, -1);
    tb_fleet_free(fl);

    fl = tb_fleet_new(&f->opts);
    char spec[32];
    for (int i = 0; i < TB_FLEET_MAX_TARGETS; i++) {
        fmt(spec, "t%d=local", i);
        assert_int_equal(tb_fleet_add_target(fl, spec, &e), 0);
    }
    assert_int_equal(tb_fleet_add_target(fl, "one-more=local", &e), -1);
    assert_non_null(strstr(e.msg, "at most 16"));
    tb_fleet_free(fl);
}

static void test_vm_kinds_list(void **state)
{
    fixture *f = *state;
    f->opts.host_label = "bare";
    tb_fleet *fl = tb_fleet_new(&f->opts);
    vm_spec(f, fl);
    fl->vm_spec.firmware = f->ovmf; /* a TD needs OVMF; this one is refused anyway */
    tb_err e;
    assert_int_equal(tb_fleet_add_target(fl, "far=ssh://example.org", &e), 0);
    assert_int_equal(tb_fleet_set_vm_kinds(fl, "regular,td=tdx", &e), 0);
    assert_int_equal(fl->n_vms, 2);
    assert_int_equal(fl->vm_spec.snapshot, 1); /* every kind boots the same disk */
    assert_int_equal(tb_fleet_plan(fl, &e), 0);
    assert_int_equal(fl->n_envs, 4);
    /* this machine first, then the VMs, then the targets */
    assert_string_equal(fl->envs[0].t.name, "bare");
    assert_int_equal(fl->envs[0].t.kind, TB_TARGET_LOCAL);
    assert_string_equal(fl->envs[0].where, "this machine");
    assert_int_equal(fl->envs[0].vm, -1);
    const tb_fleet_vm *reg = &fl->vms[0];
    char want[64];
    fmt(want, "vm-regular%s", reg->plan.tcg ? "-tcg" : ""); /* TCG where KVM is missing */
    assert_int_equal(reg->refused, 0);
    assert_string_equal(fl->envs[1].t.name, want);
    assert_string_equal(fl->envs[1].t.vm, want);
    assert_int_equal(fl->envs[1].t.kind, TB_TARGET_VM);
    assert_int_equal(fl->envs[1].vm, 0);
    char where[128];
    fmt(where, "a regular VM started here (vm:%s)", want);
    assert_string_equal(fl->envs[1].where, where);
    /* a given label stays as it is; a TD this host cannot start is refused, kept */
    assert_string_equal(fl->envs[2].t.name, "td");
    assert_string_equal(fl->envs[2].where, "a tdx VM started here (vm:td)");
    assert_int_equal(fl->envs[2].vm, 1);
    if (fl->vms[1].refused)
        assert_non_null(strstr(fl->vms[1].why, "--kind tdx cannot start here"));
    assert_string_equal(fl->envs[3].t.name, "far");
    assert_int_equal(fl->envs[3].vm, -1);
    /* preflight says each refusal (an error line) and each plan's note */
    tb_fleet_hooks h = hooks_of(f);
    assert_int_equal(tb_fleet_preflight(fl, &h, &e), 0);
    int kind = -1;
    if (fl->vms[1].refused) {
        assert_non_null(said_as(f, "td: refused: --kind tdx cannot start here", &kind));
        assert_int_equal(kind, TB_FLEET_ERROR);
    }
    if (reg->plan.tcg) {
        fmt(where, "%s: NOTE: TCG EMULATION", want);
        assert_non_null(said_as(f, where, &kind));
        assert_int_equal(kind, TB_FLEET_NOTE);
    }
    tb_fleet_free(fl);
}

static void test_names_and_kinds_refused(void **state)
{
    fixture *f = *state;
    tb_err e;
    /* this machine's label, a VM's and a target's must differ */
    static const struct {
        const char *host, *kinds, *target, *twice;
    } cases[] = {{NULL, "host=regular", NULL, "host"},
                 {"vm-regular-x", "vm-regular-x=regular", NULL, "vm-regular-x"},
                 {NULL, "g=regular", "g=ssh://example.org", "g"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        f->opts.host_label = cases[i].host;
        tb_fleet *fl = tb_fleet_new(&f->opts);
        vm_spec(f, fl);
        if (cases[i].target)
            assert_int_equal(tb_fleet_add_target(fl, cases[i].target, &e), 0);
        assert_int_equal(tb_fleet_set_vm_kinds(fl, cases[i].kinds, &e), 0);
        assert_int_equal(tb_fleet_plan(fl, &e), TB_FLEET_USAGE);
        char want[160];
        fmt(want, "%s names two environments (--label, --vm-kinds and --target names must differ)",
            cases[i].twice);
        assert_string_equal(e.msg, want);
        tb_fleet_free(fl);
    }
    f->opts.host_label = NULL;
    tb_fleet *fl = tb_fleet_new(&f->opts);
    vm_spec(f, fl);
    assert_int_equal(tb_fleet_set_vm_kinds(fl, "regular,regular", &e), -1);
    assert_non_null(strstr(e.msg, "--vm-kinds regular,regular: vm-regular twice"));
    assert_int_equal(tb_fleet_set_vm_kinds(fl, "kvm", &e), -1);
    assert_string_equal(
        e.msg,
        "--vm-kinds kvm: kvm: unknown kind 'kvm' (regular, regular-swiotlb[:POOL], tdx or snp)");
    /* a TD without OVMF: its description is refused before any host access */
    assert_int_equal(tb_fleet_set_vm_kinds(fl, "regular,tdx", &e), -1);
    assert_non_null(strstr(e.msg, "--vm-kinds: vm-tdx: --kind tdx needs OVMF firmware"));
    /* a --vm-dir that cannot be made absolute is a usage error */
    fl->vm_spec.firmware = "none";
    char longdir[1100];
    memset(longdir, 'd', sizeof longdir - 1);
    longdir[0] = '/';
    longdir[sizeof longdir - 1] = 0;
    fl->o.vm_dir = longdir;
    assert_int_equal(tb_fleet_set_vm_kinds(fl, "regular", &e), 0);
    assert_int_equal(tb_fleet_plan(fl, &e), TB_FLEET_USAGE);
    assert_non_null(strstr(e.msg, "--vm-dir /ddd")); /* "...: path too long", cut */
    tb_fleet_free(fl);
}

/* ---------- pure parts ---------- */

static void test_remote_args(void **state)
{
    (void)state;
    const char *sets[] = {"http.duration=1s", "probe.probes=getpid"};
    tb_fleet_opts o = {.profile = "quick", .repeat = "3", .sets = sets, .n_sets = 2};
    const char *argv[16];
    assert_int_equal(tb_fleet_remote_args(&o, NULL, NULL, argv, 16), 8);
    const char *want[] = {"--profile",        "quick", "--repeat",           "3", "--set",
                          "http.duration=1s", "--set", "probe.probes=getpid"};
    for (int i = 0; i < 8; i++)
        assert_string_equal(argv[i], want[i]);
    assert_null(argv[8]);
    /* the split: the remote's workloads instead of the flag, and the extra --set last */
    o.workloads = "syscall,http";
    assert_int_equal(tb_fleet_remote_args(&o, "syscall", "http.targets=serve-tls", argv, 16), 12);
    assert_string_equal(argv[2], "--workloads");
    assert_string_equal(argv[3], "syscall");
    assert_string_equal(argv[10], "--set");
    assert_string_equal(argv[11], "http.targets=serve-tls");
    assert_int_equal(tb_fleet_remote_args(&o, NULL, NULL, argv, 10), -1); /* no room */
    assert_int_equal(tb_fleet_remote_args(&(tb_fleet_opts){0}, NULL, NULL, argv, 1), 0);
    assert_null(argv[0]);
}

static void test_split_port_and_workloads(void **state)
{
    (void)state;
    for (unsigned long seed = 0; seed < 200000; seed += 997) {
        int p0 = tb_fleet_split_port(seed, 0), p1 = tb_fleet_split_port(seed, 1),
            p2 = tb_fleet_split_port(seed, 2);
        assert_true(p0 >= 20000 && p0 < 60000 && p1 >= 20000 && p1 < 60000 && p2 >= 20000 &&
                    p2 < 60000);
        assert_true(p0 != p1 && p1 != p2 && p0 != p2); /* each attempt another port */
        assert_int_equal(tb_fleet_split_port(seed, 1), p1);
    }
    assert_int_not_equal(tb_fleet_split_port(1, 0), tb_fleet_split_port(2, 0));
    tb_suite_plan p;
    tb_err e;
    char w[256];
    assert_int_equal(tb_suite_plan_init(&p, "quick", &e), 0);
    tb_fleet_split_workloads(&p, 1, 0, w, sizeof w); /* serve-tls stays there: http too */
    assert_string_equal(w, "syscall,probe,http,attest,notary");
    assert_int_equal(tb_suite_plan_set(&p, "http.targets", "nginx", &e), 0);
    tb_fleet_split_workloads(&p, 1, 0, w, sizeof w);
    assert_string_equal(w, "syscall,probe,attest,notary");
    assert_int_equal(tb_suite_plan_select(&p, "http", &e), 0);
    tb_fleet_split_workloads(&p, 1, 0, w, sizeof w); /* nothing else: env at least */
    assert_string_equal(w, "env");
    /* storage and kv are not in quick unless named; standard runs them there */
    assert_int_equal(tb_suite_plan_init(&p, "standard", &e), 0);
    tb_fleet_split_workloads(&p, 1, 0, w, sizeof w);
    assert_string_equal(w, "syscall,probe,http,attest,notary,storage,kv,memory,network,tlsn");
    assert_int_equal(tb_suite_plan_init(&p, "quick", &e), 0);
    assert_int_equal(tb_suite_plan_select(&p, "kv,http", &e), 0);
    tb_fleet_split_workloads(&p, 1, 0, w, sizeof w);
    assert_string_equal(w, "http,kv");
    /* --net-client local: network's clients here, the rest there (http with it unless
       it is measured from here too) */
    assert_int_equal(tb_suite_plan_init(&p, "standard", &e), 0);
    tb_fleet_split_workloads(&p, 0, 1, w, sizeof w);
    assert_string_equal(w, "syscall,probe,http,attest,notary,storage,kv,memory,tlsn");
    assert_int_equal(tb_suite_plan_set(&p, "http.targets", "nginx", &e), 0);
    tb_fleet_split_workloads(&p, 1, 1, w, sizeof w);
    assert_string_equal(w, "syscall,probe,attest,notary,storage,kv,memory,tlsn");
    tb_fleet_split_workloads(&p, 0, 0, w, sizeof w); /* neither: the plan's */
    assert_string_equal(w, "syscall,probe,http,attest,notary,storage,kv,memory,network,tlsn");
    assert_int_equal(tb_suite_plan_init(&p, "quick", &e), 0);
    assert_int_equal(tb_suite_plan_select(&p, "network", &e), 0);
    tb_fleet_split_workloads(&p, 0, 1, w, sizeof w);
    assert_string_equal(w, "env");
    assert_int_equal(tb_suite_plan_select(&p, "memory,network,http", &e), 0);
    tb_fleet_split_workloads(&p, 0, 1, w, sizeof w);
    assert_string_equal(w, "http,memory");
}

/* --net-client local: only where every environment is an ssh target (with the network
   workload in the plan); without it, or without network, nothing is refused. */
static void test_check_net_client(void **state)
{
    fixture *f = *state;
    tb_suite_plan p;
    tb_err e;
    assert_int_equal(tb_suite_plan_init(&p, "quick", &e), 0);
    assert_int_equal(tb_suite_plan_select(&p, "network,probe", &e), 0);
    static const struct {
        const char *targets[3];
        int net, rc;
        const char *msg;
    } cases[] = {
        {{"a=ssh://a", "b=ssh://root@198.18.0.2:22"}, 1, 0, NULL},
        {{NULL}, 1, TB_FLEET_USAGE, "--net-client local: needs a --target NAME=ssh://..."},
        {{"a=ssh://a", "here=local"},
         1,
         TB_FLEET_USAGE,
         "--net-client local: here is this machine: its clients and servers would both be "
         "here (only ssh:// targets)"},
        {{"here=local", "td=vm:td1"},
         1,
         TB_FLEET_USAGE,
         "--net-client local: td is a VM (vm:td1): only SSH is forwarded into it"},
        {{"here=local", "td=vm:td1"}, 0, 0, NULL}, /* --net-client remote */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        f->opts.net_client_local = cases[i].net;
        tb_fleet *fl = tb_fleet_new(&f->opts);
        for (int k = 0; k < 3 && cases[i].targets[k]; k++)
            assert_int_equal(tb_fleet_add_target(fl, cases[i].targets[k], &e), 0);
        assert_int_equal(tb_fleet_plan(fl, &e), 0);
        assert_int_equal(tb_fleet_check(fl, &p, &e), cases[i].rc);
        if (cases[i].msg)
            assert_non_null(strstr(e.msg, cases[i].msg));
        tb_fleet_free(fl);
    }
    /* a VM of --vm-kinds (and its host) is refused; without network in the plan the flag
       changes nothing and nothing is refused */
    f->opts.net_client_local = 1;
    tb_fleet *fl = tb_fleet_new(&f->opts);
    vm_spec(f, fl);
    assert_int_equal(tb_fleet_set_vm_kinds(fl, "vm=regular", &e), 0);
    assert_int_equal(tb_fleet_plan(fl, &e), 0);
    assert_int_equal(tb_fleet_check(fl, &p, &e), TB_FLEET_USAGE);
    assert_non_null(strstr(e.msg, "--net-client local: vm is a VM (a regular VM started here"));
    assert_int_equal(tb_suite_plan_select(&p, "probe", &e), 0);
    assert_int_equal(tb_fleet_check(fl, &p, &e), 0);
    tb_fleet_free(fl);
    f->opts.net_client_local = 0;
}

static void test_merge_http(void **state)
{
    (void)state;
    tb_err e;
    tb_record *r = tb_record_new(&e), *h = tb_record_new(&e);
    assert_non_null(r);
    assert_non_null(h);
    assert_int_equal(tb_record_set_str(&r->profile, "custom", &e), 0);
    assert_int_equal(tb_record_set_str(&h->profile, "quick", &e), 0);
    tb_metric *m = tb_record_metric(r, "http.serve_tls.rps", "req/s", TB_BETTER_HIGHER, "http", &e);
    assert_int_equal(tb_metric_add(m, 5000, &e), 0);
    json_array_append_new(r->commands, json_string("teebench suite run (there)"));
    m = tb_record_metric(h, "http.nginx.rps", "req/s", TB_BETTER_HIGHER, "http", &e);
    assert_int_equal(tb_metric_set_note(m, "from here", &e), 0);
    assert_int_equal(tb_metric_add(m, 100, &e), 0);
    assert_int_equal(tb_metric_add(m, 110, &e), 0);
    m = tb_record_metric(h, "http.nginx.latency.p99", "ms", TB_BETTER_LOWER, "http", &e);
    assert_int_equal(tb_metric_add(m, 2.5, &e), 0);
    m = tb_record_metric(h, "syscall.c1.lps", "lps", TB_BETTER_HIGHER, "syscall", &e);
    assert_int_equal(tb_metric_add(m, 1, &e), 0); /* not nginx's: not merged */
    m = tb_record_metric(h, "http.nginx.bogus", "s", TB_BETTER_LOWER, "http", &e);
    assert_int_equal(tb_metric_add(m, 1, &e), 0); /* in no workload's table: not merged */
    json_array_append_new(h->commands, json_string("teebench http (here)"));
    json_decref(h->env);
    h->env = json_pack("{s:s}", "kind", "bare-metal");
    assert_int_equal(tb_fleet_merge_http(r, h, "loadgen", &e), 0);
    assert_int_equal(r->n_metrics, 3);
    const tb_metric *rps = tb_record_find(r, "http.nginx.rps");
    assert_non_null(rps);
    assert_int_equal(rps->n, 2);
    assert_true(rps->samples[0] == 100 && rps->samples[1] == 110);
    assert_string_equal(rps->unit, "req/s");
    assert_int_equal(rps->better, TB_BETTER_HIGHER);
    assert_string_equal(rps->note, "from here");
    assert_non_null(tb_record_find(r, "http.nginx.latency.p99"));
    assert_null(tb_record_find(r, "syscall.c1.lps"));
    assert_null(tb_record_find(r, "http.nginx.bogus"));
    assert_non_null(tb_record_find(r, "http.serve_tls.rps")); /* the remote's own kept */
    assert_int_equal(json_array_size(r->commands), 2);
    assert_string_equal(json_string_value(json_array_get(r->commands, 1)), "teebench http (here)");
    json_t *hc = json_object_get(r->extra, "http_client");
    assert_string_equal(json_string_value(json_object_get(hc, "mode")), "local");
    assert_string_equal(json_string_value(json_object_get(hc, "client")), "loadgen");
    assert_string_equal(json_string_value(json_object_get(json_object_get(hc, "env"), "kind")),
                        "bare-metal");
    assert_string_equal(r->profile, "quick"); /* together: the profile's suite */
    /* merged again: the samples add up, nothing is replaced */
    assert_int_equal(tb_fleet_merge_http(r, h, "loadgen", &e), 0);
    assert_int_equal(tb_record_find(r, "http.nginx.rps")->n, 4);
    tb_record_free(r);
    tb_record_free(h);
}

/* The network workload's metrics measured from here: only those its table names, with
   their samples and notes; commands, extra.network_client, the profile. */
static void test_merge_network(void **state)
{
    (void)state;
    tb_err e;
    tb_record *r = tb_record_new(&e), *n = tb_record_new(&e);
    assert_non_null(r);
    assert_non_null(n);
    assert_int_equal(tb_record_set_str(&r->profile, "custom", &e), 0);
    assert_int_equal(tb_record_set_str(&n->profile, "standard", &e), 0);
    tb_metric *m =
        tb_record_metric(r, "memory.copy.t1.bandwidth", "B/s", TB_BETTER_HIGHER, "memory", &e);
    assert_non_null(m);
    assert_int_equal(tb_metric_add(m, 1e10, &e), 0);
    m = tb_record_metric(n, "network.tcp.p4.throughput", "bit/s", TB_BETTER_HIGHER, "network", &e);
    assert_int_equal(tb_metric_set_note(m, "servers in another environment", &e), 0);
    assert_int_equal(tb_metric_add(m, 9e9, &e), 0);
    assert_int_equal(tb_metric_add(m, 8e9, &e), 0);
    m = tb_record_metric(n, "network.udp.1472b.loss", "%", TB_BETTER_LOWER, "network", &e);
    assert_int_equal(tb_metric_add(m, 0.5, &e), 0);
    m = tb_record_metric(n, "network.rtt.tcp.p99", "us", TB_BETTER_LOWER, "network", &e);
    assert_int_equal(tb_metric_add(m, 40, &e), 0);
    m = tb_record_metric(n, "http.nginx.rps", "req/s", TB_BETTER_HIGHER, "http", &e);
    assert_int_equal(tb_metric_add(m, 1, &e), 0); /* not network's: not merged */
    m = tb_record_metric(n, "network.bogus", "s", TB_BETTER_LOWER, "network", &e);
    assert_int_equal(tb_metric_add(m, 1, &e), 0); /* in no table: not merged */
    json_array_append_new(n->commands, json_string("teebench network --server b:20001"));
    json_decref(n->env);
    n->env = json_pack("{s:s}", "kind", "bare-metal");
    json_object_set_new(n->versions, "iperf3", json_string("3.12"));
    /* what was skipped here is kept; the remote's own list too */
    json_object_set_new(r->extra, "skipped", json_pack("[{s:s}]", "workload", "storage"));
    json_object_set_new(n->extra, "skipped",
                        json_pack("[{s:s, s:s}]", "workload", "network", "target", "udp"));
    json_object_set_new(n->extra, "warnings", json_pack("[{s:s}]", "workload", "network"));
    assert_int_equal(tb_fleet_merge_network(r, n, "client-host", &e), 0);
    assert_int_equal(r->n_metrics, 4);
    const tb_metric *tcp = tb_record_find(r, "network.tcp.p4.throughput");
    assert_non_null(tcp);
    assert_int_equal(tcp->n, 2);
    assert_true(tcp->samples[0] == 9e9 && tcp->samples[1] == 8e9);
    assert_string_equal(tcp->unit, "bit/s");
    assert_string_equal(tcp->note, "servers in another environment");
    assert_int_equal(tb_record_find(r, "network.udp.1472b.loss")->better, TB_BETTER_LOWER);
    assert_non_null(tb_record_find(r, "network.rtt.tcp.p99"));
    assert_non_null(tb_record_find(r, "memory.copy.t1.bandwidth")); /* the remote's kept */
    assert_null(tb_record_find(r, "http.nginx.rps"));
    assert_null(tb_record_find(r, "network.bogus"));
    assert_int_equal(json_array_size(r->commands), 1);
    json_t *nc = json_object_get(r->extra, "network_client");
    assert_string_equal(json_string_value(json_object_get(nc, "mode")), "local");
    assert_string_equal(json_string_value(json_object_get(nc, "client")), "client-host");
    assert_string_equal(json_string_value(json_object_get(json_object_get(nc, "env"), "kind")),
                        "bare-metal");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(nc, "versions"), "iperf3")), "3.12");
    assert_null(json_object_get(r->extra, "http_client"));
    json_t *sk = json_object_get(r->extra, "skipped");
    assert_int_equal(json_array_size(sk), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(sk, 1), "target")), "udp");
    assert_int_equal(json_array_size(json_object_get(r->extra, "warnings")), 1);
    assert_string_equal(r->profile, "standard");
    tb_record_free(r);
    tb_record_free(n);
}

/* ---------- the sequence ---------- */

/* One environment fails (a VM target that does not exist), the others still run --
   here and over ssh -- and the comparison is over those two. */
static void test_run_one_fails(void **state)
{
    fixture *f = *state;
    char log[PATH_MAX + 16];
    fmt(log, "%s/ssh.log", f->root);
    setenv("FAKE_SSH_LOG", log, 1);
    tb_fleet *fl = tb_fleet_new(&f->opts);
    tb_err e;
    assert_int_equal(tb_fleet_add_target(fl, "gone=vm:nothere", &e), 0);
    assert_int_equal(tb_fleet_add_target(fl, "here=local", &e), 0);
    assert_int_equal(tb_fleet_add_target(fl, "there=ssh://tester@fakehost:2222", &e), 0);
    assert_int_equal(tb_fleet_plan(fl, &e), 0);
    tb_fleet_result res;
    run(f, fl, &res);
    assert_int_equal(f->n_begins, 3);
    assert_string_equal(f->begins[0], "gone");
    assert_string_equal(f->begins[1], "here");
    assert_string_equal(f->begins[2], "there");
    const char *s = said(f, "gone: vm:nothere: no VM named nothere");
    assert_non_null(s);
    assert_int_equal(f->say_kind[0], TB_FLEET_ERROR);
    assert_int_equal(res.failed, 1);
    assert_int_equal(res.n, 2);
    assert_int_equal(f->n_dones, 2);
    assert_int_equal(res.env[0], 1);
    assert_int_equal(res.env[1], 2);
    assert_string_equal(res.recs[0]->label, "here");
    assert_string_equal(res.recs[1]->label, "there");
    assert_string_equal(res.recs[0]->status, "complete");
    assert_string_equal(res.recs[1]->status, "complete");
    tb_compare c;
    assert_int_equal(
        tb_compare_build((const tb_record *const *)res.recs, res.n, 0, TB_COMPARE_ALPHA, &c, &e),
        0);
    tb_compare_clear(&c);
    /* the remote got the plan's flags */
    tb_buf b = {0};
    assert_int_equal(tb_file_read(log, 1 << 20, &b, &e), 0);
    assert_non_null(strstr((const char *)b.p,
                           "suite run '--profile' 'quick' '--workloads' 'env' --label 'there'"));
    assert_non_null(strstr((const char *)b.p, "-p 2222"));
    tb_buf_clear(&b);
    tb_fleet_result_clear(&res);
    assert_int_equal(res.n, 0);
    tb_fleet_free(fl);
    unsetenv("FAKE_SSH_LOG");
}

/* A plan with a step to interrupt: workload w with the settings sets (n of them). */
static void step_plan(fixture *f, const char *w, const char *const *sets, int n)
{
    tb_err e;
    assert_int_equal(tb_suite_plan_select(&f->plan, w, &e), 0);
    for (int i = 0; i < n; i++) {
        char key[32];
        fmt(key, "%.*s", (int)strcspn(sets[i], "="), sets[i]);
        assert_int_equal(tb_suite_plan_set(&f->plan, key, strchr(sets[i], '=') + 1, &e), 0);
    }
    f->opts.workloads = w;
    f->opts.sets = sets;
    f->opts.n_sets = n;
}

/* The getpid probe, briefly (in process: an interrupt is seen within the step). */
static void probe_plan(fixture *f)
{
    static const char *const sets[] = {"probe.probes=getpid", "probe.max_reps=200"};
    step_plan(f, "probe", sets, 2);
}

/* A pass of a second (a remote suite is still in it when the interrupt gets there). */
static void syscall_plan(fixture *f)
{
    static const char *const sets[] = {"syscall.mode=getpid", "syscall.duration=1",
                                       "syscall.passes=1", "syscall.copies=1"};
    step_plan(f, "syscall", sets, 4);
}

/* Ctrl-C: the environment running now ends with what it finished, no further one
   begins; set before the run, none begins. */
static void test_run_interrupted(void **state)
{
    fixture *f = *state;
    probe_plan(f);
    tb_fleet *fl = tb_fleet_new(&f->opts);
    tb_err e;
    assert_int_equal(tb_fleet_add_target(fl, "a=local", &e), 0);
    assert_int_equal(tb_fleet_add_target(fl, "b=local", &e), 0);
    assert_int_equal(tb_fleet_plan(fl, &e), 0);
    tb_fleet_result res;
    f->stop_at_step_of = "a";
    run(f, fl, &res);
    assert_int_equal(f->n_begins, 1);
    assert_int_equal(res.n, 1);
    assert_string_equal(res.recs[0]->status, "interrupted");
    assert_string_equal(f->done_status[0], "interrupted");
    tb_fleet_result_clear(&res);
    f->n_begins = f->n_dones = 0;
    run(f, fl, &res); /* stop still set */
    assert_int_equal(f->n_begins, 0);
    assert_int_equal(res.n, 0);
    tb_fleet_free(fl);
}

/* --ssh-copy-id needs a terminal and an ssh target (stdin here: /dev/null). */
static void test_copy_ids_refused(void **state)
{
    fixture *f = *state;
    int saved = dup(0), null = open("/dev/null", O_RDONLY);
    assert_true(saved >= 0 && null >= 0);
    assert_int_equal(dup2(null, 0), 0);
    tb_fleet *fl = tb_fleet_new(&f->opts);
    tb_err e;
    tb_fleet_hooks h = hooks_of(f);
    assert_int_equal(tb_fleet_add_target(fl, "a=local", &e), 0);
    assert_int_equal(tb_fleet_copy_ids(fl, &h, &e), TB_FLEET_USAGE);
    assert_string_equal(e.msg, "--ssh-copy-id: no ssh:// target to copy a key to");
    assert_int_equal(tb_fleet_add_target(fl, "td=ssh://tdx@localhost:10022", &e), 0);
    assert_int_equal(tb_fleet_copy_ids(fl, &h, &e), TB_FLEET_USAGE);
    assert_string_equal(
        e.msg, "--ssh-copy-id: needs a terminal (ssh-copy-id asks for the password of localhost)");
    assert_int_equal(f->n_says, 0); /* nothing was run */
    tb_fleet_free(fl);
    dup2(saved, 0);
    close(saved);
    close(null);
}

/* ---------- VMs started here: stopped on every path ---------- */

/* A fleet of this machine and one regular VM, planned and preflighted. */
static tb_fleet *vm_fleet(fixture *f)
{
    tb_fleet *fl = tb_fleet_new(&f->opts);
    vm_spec(f, fl);
    tb_err e;
    assert_int_equal(tb_fleet_set_vm_kinds(fl, "g=regular", &e), 0);
    assert_int_equal(tb_fleet_plan(fl, &e), 0);
    assert_int_equal(fl->vms[0].refused, 0);
    tb_fleet_hooks h = hooks_of(f);
    assert_int_equal(tb_fleet_preflight(fl, &h, &e), 0);
    return fl;
}

static void test_vm_run_and_stop(void **state)
{
    fixture *f = *state;
    tb_fleet *fl = vm_fleet(f);
    tb_fleet_result res;
    run(f, fl, &res);
    assert_int_equal(res.failed, 0);
    assert_int_equal(res.n, 2);
    assert_string_equal(f->begins[0], "host");
    assert_string_equal(f->begins[1], "g");
    assert_non_null(info_with(f, "starting VM g (regular, "));
    assert_non_null(info_with(f, "booted in "));
    assert_non_null(info_with(f, ") powered off"));
    /* the VM's record carries its facts */
    const tb_record *g = res.recs[1];
    assert_string_equal(g->label, "g");
    assert_string_equal(g->status, "complete");
    assert_non_null(tb_record_find(g, TB_FLEET_VM_BOOT_METRIC));
    json_t *vm = json_object_get(g->extra, "vm");
    assert_string_equal(json_string_value(json_object_get(vm, "kind")), "regular");
    assert_null(json_object_get(res.recs[0]->extra, "vm"));
    /* nothing left running */
    assert_int_equal(fl->running, -1);
    assert_false(guest_alive(f, "g"));
    tb_fleet_result_clear(&res);
    tb_fleet_free(fl);
}

/* The suite in the VM fails (its ssh cannot connect): said, the VM stopped, the host's
   record kept. */
static void test_vm_suite_fails(void **state)
{
    fixture *f = *state;
    char fail[PATH_MAX + 16];
    fmt(fail, "%s/ssh-down", f->root);
    write_file(fail, "#!/bin/sh\necho 'ssh: connect to host 127.0.0.1: Connection refused' >&2\n"
                     "exit 255\n");
    chmod(fail, 0755);
    f->opts.ssh_program = fail;
    tb_fleet *fl = vm_fleet(f);
    tb_fleet_result res;
    run(f, fl, &res);
    assert_int_equal(res.failed, 1);
    assert_int_equal(res.n, 1);
    assert_string_equal(res.recs[0]->label, "host");
    const char *s = said_error(f);
    assert_non_null(s);
    assert_non_null(strstr(s, "Connection refused"));
    assert_non_null(info_with(f, ") powered off"));
    assert_int_equal(fl->running, -1);
    assert_false(guest_alive(f, "g"));
    tb_fleet_result_clear(&res);
    tb_fleet_free(fl);
}

/* Ctrl-C while the suite runs in the VM: its record says interrupted, the VM is
   stopped, nothing further begins. */
static void test_vm_interrupted_in_suite(void **state)
{
    fixture *f = *state;
    syscall_plan(f);
    tb_fleet *fl = vm_fleet(f);
    tb_err e;
    assert_int_equal(tb_fleet_add_target(fl, "after=local", &e), 0);
    assert_int_equal(tb_fleet_plan(fl, &e), 0);
    tb_fleet_result res;
    f->stop_at_step_of = "g";
    run(f, fl, &res);
    assert_int_equal(f->n_begins, 2); /* "after" never began */
    assert_int_equal(res.n, 2);
    assert_string_equal(res.recs[1]->label, "g");
    assert_string_equal(res.recs[1]->status, "interrupted");
    assert_non_null(info_with(f, "VM g (QEMU pid "));
    assert_int_equal(fl->running, -1);
    assert_false(guest_alive(f, "g"));
    tb_fleet_result_clear(&res);
    tb_fleet_free(fl);
}

/* Ctrl-C while the VM boots (a guest whose sshd never answers): the start gives up,
   QEMU is killed, no state is left; no record for it. */
static void test_vm_interrupted_in_boot(void **state)
{
    fixture *f = *state;
    setenv("TB_TEST_GUEST", "mute", 1);
    tb_fleet *fl = vm_fleet(f);
    tb_fleet_result res;
    f->stop_at_info = "starting VM g";
    uint64_t t0 = tb_mono_ns();
    run(f, fl, &res);
    assert_true(tb_mono_ns() - t0 < 20000000000ull); /* not the 30 s boot timeout */
    assert_int_equal(res.n, 1);
    assert_int_equal(res.failed, 1);
    const char *s = said(f, "g: starting VM g: ");
    assert_non_null(s);
    assert_non_null(strstr(s, "interrupted"));
    assert_int_equal(fl->running, -1);
    char state_file[PATH_MAX + 32];
    fmt(state_file, "%s/g/vm.json", f->vms);
    assert_int_equal(access(state_file, F_OK), -1);
    assert_false(guest_alive(f, "g"));
    tb_fleet_result_clear(&res);
    tb_fleet_free(fl);
    unsetenv("TB_TEST_GUEST");
}

/* QEMU exits at launch: its line, the host's record kept, nothing left. */
static void test_vm_launch_fails(void **state)
{
    fixture *f = *state;
    unsetenv("FAKE_QEMU_LAUNCH");
    tb_fleet *fl = vm_fleet(f);
    tb_fleet_result res;
    run(f, fl, &res);
    assert_int_equal(res.n, 1);
    assert_int_equal(res.failed, 1);
    assert_non_null(said(f, "g: starting VM g: QEMU exited with 1"));
    assert_null(info_with(f, "booted in"));
    assert_int_equal(fl->running, -1);
    tb_fleet_result_clear(&res);
    tb_fleet_free(fl);
}

/* tb_suite_info: one INFO event with the text, nothing without a progress hook. */
static void test_suite_info(void **state)
{
    fixture *f = *state;
    tb_suite_hooks sh = {.progress = on_event, .ctx = f};
    tb_suite_info(&sh, "nginx at %s, %d", "http://h:1/", 7);
    assert_int_equal(f->n_infos, 1);
    assert_string_equal(f->infos[0], "nginx at http://h:1/, 7");
    tb_suite_info(NULL, "nothing");
    tb_suite_info(&(tb_suite_hooks){0}, "nothing");
    assert_int_equal(f->n_infos, 1);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-daemonize")) /* launched as QEMU by fake_qemu.sh */
            return fake_guest(argc, argv);
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_targets_in_order),
        T(test_vm_kinds_list),
        T(test_names_and_kinds_refused),
        T(test_check_net_client),
        cmocka_unit_test(test_remote_args),
        cmocka_unit_test(test_split_port_and_workloads),
        cmocka_unit_test(test_merge_http),
        cmocka_unit_test(test_merge_network),
        T(test_run_one_fails),
        T(test_run_interrupted),
        T(test_copy_ids_refused),
        T(test_vm_run_and_stop),
        T(test_vm_suite_fails),
        T(test_vm_interrupted_in_suite),
        T(test_vm_interrupted_in_boot),
        T(test_vm_launch_fails),
        T(test_suite_info),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
