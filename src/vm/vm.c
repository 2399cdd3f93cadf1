/* vm/vm: the lifecycle of one VM -- preflight checks, start (run dir, SSH key,
 * the cloud-init seed, QEMU -daemonize, pinning through QMP, waiting until a
 * command runs over SSH), stop (system_powerdown, then quit, then SIGKILL) and
 * the ssh argv that reaches it. QEMU is not our child once it daemonized: it is
 * watched through its pid file and /proc (tb_vm_alive), never waited for with
 * waitpid. The image's format is read here from its content (vm/format) and
 * handed to the pure command line in the spec. */
#include "vm/vm.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/file.h"
#include "base/proc.h"
#include "net/sock.h"
#include "sys/env.h"
#include "vm/qmp.h"
#include "vm/seed.h"

#define MS 1000000ull

/* 0 when 127.0.0.1:port can be bound now (nothing listens), else -1. */
static int port_free(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int rc = bind(fd, (struct sockaddr *)&sa, sizeof sa);
    close(fd);
    return rc;
}

static int readable(const char *what, const char *path, const char *hint, tb_err *err)
{
    if (access(path, R_OK) == 0)
        return 0;
    return tb_errno(err, "%s %s%s", what, path, hint);
}

int tb_vm_preflight(const tb_vm_spec *s, const char *base, tb_err *err)
{
    if (tb_vm_spec_check(s, err) < 0)
        return -1;
    tb_vm_paths p;
    if (tb_vm_paths_make(base, s->name, &p, err) < 0)
        return -1;
    tb_vm_state st;
    tb_err ignored;
    if (tb_vm_load(base, s->name, &st, &ignored) == 0) {
        int alive = tb_vm_alive(&st);
        pid_t pid = st.pid;
        tb_vm_state_free(&st);
        if (alive)
            return tb_errf(err, "VM %s is already running (QEMU pid %d; teebench vm stop %s)",
                           s->name, (int)pid, s->name);
    }
    if (s->npin) {
        cpu_set_t allowed;
        if (sched_getaffinity(0, sizeof allowed, &allowed) < 0)
            return tb_errno(err, "--pin: sched_getaffinity");
        for (int i = 0; i < s->npin; i++)
            if (!CPU_ISSET(s->pin[i], &allowed))
                return tb_errf(err, "--pin: CPU %d is not online or not allowed to this process",
                               s->pin[i]);
    }
    if (s->ssh_port && port_free(s->ssh_port) < 0)
        return tb_errf(err, "--ssh-port %d: 127.0.0.1:%d is in use", s->ssh_port, s->ssh_port);
    if (s->image) {
        char fmt[16];
        if (readable("--image", s->image, "", err) < 0 ||
            tb_vm_image_probe(s->image, fmt, sizeof fmt, err) < 0)
            return tb_err_wrap(err, "--image");
    }
    if (s->kernel && readable("--kernel", s->kernel, "", err) < 0)
        return -1;
    if (s->initrd && readable("--initrd", s->initrd, "", err) < 0)
        return -1;
    const char *fw = tb_vm_spec_firmware(s, s->kind);
    if (fw && strcmp(fw, "none") &&
        readable("firmware", fw,
                 " (install Debian's ovmf or edk2-ovmf, or --firmware FILE; --firmware none "
                 "boots QEMU's own BIOS, --kind regular only)",
                 err) < 0)
        return -1;
    if (s->ssh_key) {
        char pub[1200];
        snprintf(pub, sizeof pub, "%s.pub", s->ssh_key);
        if (readable("--ssh-key", s->ssh_key, "", err) < 0 ||
            readable("--ssh-key: public key", pub, " (ssh-keygen -y -f KEY > KEY.pub)", err) < 0)
            return -1;
    }
    return 0;
}

/* Creates base (0700 when new) and base/name (0700). */
static int make_dirs(const char *base, const tb_vm_paths *p, tb_err *err)
{
    struct stat sb;
    if (stat(base, &sb) < 0) {
        if (tb_mkdirs(base, err) < 0)
            return -1;
        if (chmod(base, 0700) < 0)
            return tb_errno(err, "chmod %s", base);
    } else if (!S_ISDIR(sb.st_mode)) {
        return tb_errf(err, "%s: not a directory", base);
    }
    if (mkdir(p->dir, 0700) < 0 && errno != EEXIST)
        return tb_errno(err, "mkdir %s", p->dir);
    return 0;
}

static int make_key(const char *name, const char *key, const char *dir, tb_err *err)
{
    char pub[1200], comment[64], log[1100];
    snprintf(pub, sizeof pub, "%s.pub", key);
    snprintf(comment, sizeof comment, "teebench-vm-%s", name);
    snprintf(log, sizeof log, "%s/ssh-keygen.log", dir);
    unlink(key);
    unlink(pub);
    char *argv[] = {"ssh-keygen", "-q",    "-t", "ed25519",   "-N", "",
                    "-C",         comment, "-f", (char *)key, NULL};
    tb_proc_opts o = {.argv = argv, .stderr_path = log};
    tb_proc_result r;
    if (tb_proc_run(&o, 30000, NULL, &r, err) < 0)
        return tb_err_wrap(err, "making the VM's SSH key (install openssh-client)");
    if (r.exit_code != 0)
        return tb_errf(err, "ssh-keygen exited with %d (see %s)", r.exit_code, log);
    unlink(log);
    return 0;
}

/* The cloud-init seed for the key whose public half is pub, for user: written to
   paths->seed (0600, atomically) before QEMU starts. */
static int write_seed(const tb_vm_spec *s, const char *pub, const tb_vm_paths *paths, tb_err *err)
{
    tb_buf key = {0}, img = {0};
    if (tb_file_read(pub, 64 << 10, &key, err) < 0)
        return tb_err_wrap(err, "the cloud-init seed needs the public key");
    char host[64], comment[1400];
    tb_vm_seed_hostname(s->name, host, sizeof host);
    snprintf(comment, sizeof comment, "teebench vm %s: SSH access for %s with the key %s", s->name,
             s->ssh_user, pub);
    tb_vm_seed_cfg c = {.user = s->ssh_user,
                        .pubkey = (const char *)key.p,
                        .hostname = host,
                        .comment = strpbrk(comment, "\r\n") ? NULL : comment};
    char param[64];
    tb_vm_swiotlb_param(s, param, sizeof param);
    const char *how = tb_vm_swiotlb_how(s);
    if (how && !strcmp(how, "seed-reboot"))
        c.kernel_param = param;
    int rc = tb_vm_seed_image(&c, (int64_t)(tb_wall_ns() / 1000000000ull), &img, err);
    if (rc < 0)
        tb_err_wrap(err, "the cloud-init seed (%s)", pub);
    else if ((rc = tb_file_write_atomic_mode(paths->seed, img.p, img.len, 0600, err)) < 0)
        tb_err_wrap(err, "writing the cloud-init seed");
    tb_buf_clear(&key);
    tb_buf_clear(&img);
    return rc;
}

/* QEMU's log as one line for an error message (vm/qemu: its first error, or what a
   TEE start's known failures mean). */
static void qemu_error(const char *path, char *out, size_t len)
{
    tb_buf b = {0};
    tb_err e;
    if (tb_file_read(path, 1 << 16, &b, &e) < 0 || !b.p) {
        tb_buf_clear(&b);
        snprintf(out, len, "(no message; see qemu.log)");
        return;
    }
    tb_vm_qemu_error_line((const char *)b.p, out, len);
    tb_buf_clear(&b);
}

static pid_t read_pidfile(const char *path)
{
    char buf[32];
    tb_buf b = {0};
    tb_err e;
    if (tb_file_read(path, 64, &b, &e) < 0)
        return -1;
    snprintf(buf, sizeof buf, "%s", (const char *)b.p);
    tb_buf_clear(&b);
    char *end;
    long v = strtol(buf, &end, 10);
    if (end == buf || v <= 1 || v > 0x3fffffff)
        return -1;
    return (pid_t)v;
}

/* Waits up to timeout_ms for this VM's QEMU to be gone. 1: gone. */
static int wait_gone(const tb_vm_state *st, int timeout_ms)
{
    uint64_t deadline = tb_mono_ns() + (uint64_t)timeout_ms * MS;
    while (tb_vm_alive(st)) {
        if (tb_mono_ns() >= deadline)
            return 0;
        tb_sleep_ns(20 * MS);
    }
    return 1;
}

static void remove_runtime_files(const tb_vm_paths *p)
{
    unlink(p->qmp);
    unlink(p->pidfile);
}

/* SIGKILL for a start that failed: nothing stays running, no vm.json. */
static void abort_start(tb_vm_state *st)
{
    if (st->pid <= 0) /* QEMU may have written its pid file before failing */
        st->pid = read_pidfile(st->paths.pidfile);
    if (tb_vm_alive(st)) {
        kill(st->pid, SIGKILL);
        wait_gone(st, 5000);
    }
    remove_runtime_files(&st->paths);
    unlink(st->paths.state);
}

/* One try: connect to 127.0.0.1:port and read an "SSH-" banner within ms. */
static int ssh_answers(int port, int ms)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return 0;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int ok = 0;
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0 && errno != EINPROGRESS)
        goto out;
    uint64_t deadline = tb_mono_ns() + (uint64_t)ms * MS;
    char buf[8];
    size_t got = 0;
    while (got < 4) {
        uint64_t now = tb_mono_ns();
        if (now >= deadline)
            goto out;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int r = poll(&pfd, 1, (int)((deadline - now) / MS) + 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            goto out;
        ssize_t n = read(fd, buf + got, 4 - got);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0)
            goto out;
        got += (size_t)n;
    }
    ok = !memcmp(buf, "SSH-", 4);
out:
    close(fd);
    return ok;
}

static int pin_others(pid_t pid, const int *tids, int n, const cpu_set_t *pinned, tb_err *err)
{
    cpu_set_t others;
    if (sched_getaffinity(pid, sizeof others, &others) < 0)
        return tb_errno(err, "sched_getaffinity of QEMU (pid %d)", (int)pid);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, pinned))
            CPU_CLR(c, &others);
    if (CPU_COUNT(&others) == 0)
        return 0; /* every CPU QEMU may use is pinned: its other threads share them */
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
    DIR *d = opendir(dir);
    if (!d)
        return tb_errno(err, "%s", dir);
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) != NULL && rc == 0) {
        int tid = atoi(e->d_name);
        if (tid <= 0)
            continue;
        int vcpu = 0;
        for (int i = 0; i < n; i++)
            vcpu |= tids[i] == tid;
        if (!vcpu && sched_setaffinity(tid, sizeof others, &others) < 0 && errno != ESRCH)
            rc = tb_errno(err, "moving QEMU thread %d off the pinned CPUs", tid);
    }
    closedir(d);
    return rc;
}

/* vCPU i's thread to CPU pin[i], the other threads off those CPUs, then cont. */
static int pin_vcpus(const tb_vm_spec *s, const tb_vm_state *st, tb_err *err)
{
    tb_qmp q;
    if (tb_qmp_open(&q, st->paths.qmp, 10000, err) < 0)
        return -1;
    json_t *ret = NULL;
    int tids[TB_VM_MAX_CPUS], n = 0, rc = -1;
    if (tb_qmp_exec(&q, "query-cpus-fast", NULL, &ret, err) < 0 ||
        tb_qmp_cpu_threads(ret, tids, TB_VM_MAX_CPUS, &n, err) < 0)
        goto out;
    if (n != s->cpus) {
        tb_errf(err, "query-cpus-fast lists %d vCPUs, expected %d", n, s->cpus);
        goto out;
    }
    cpu_set_t pinned;
    CPU_ZERO(&pinned);
    for (int i = 0; i < n; i++) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(s->pin[i], &one);
        CPU_SET(s->pin[i], &pinned);
        if (sched_setaffinity(tids[i], sizeof one, &one) < 0) {
            tb_errno(err, "pinning vCPU %d (thread %d) to CPU %d", i, tids[i], s->pin[i]);
            goto out;
        }
    }
    if (pin_others(st->pid, tids, n, &pinned, err) < 0)
        goto out;
    rc = tb_qmp_exec(&q, "cont", NULL, NULL, err);
out:
    json_decref(ret);
    tb_qmp_close(&q);
    return rc;
}

static int spawn_qemu(char **argv, const tb_vm_paths *paths, int timeout_s,
                      const volatile sig_atomic_t *stop, tb_err *err)
{
    tb_proc_opts o = {.argv = argv, .stderr_path = paths->qemu_log};
    tb_proc_result r;
    if (tb_proc_run(&o, (int64_t)timeout_s * 1000, stop, &r, err) < 0)
        return -1;
    if (r.cancelled)
        return tb_errf(err, "interrupted while QEMU was starting");
    if (r.exit_code != 0) {
        char line[600];
        qemu_error(paths->qemu_log, line, sizeof line);
        if (r.timed_out)
            return tb_errf(err, "QEMU did not finish setting up within %d s (%s)", timeout_s,
                           paths->qemu_log);
        return tb_errf(err, "QEMU exited with %d: %s", r.exit_code, line);
    }
    return 0;
}

/* What one `ssh ... true` said. */
typedef enum { LOGIN_OK, LOGIN_NOT_YET, LOGIN_REFUSED } login_res;

/* The last non-empty line of ssh's stderr ("" when none). */
static void last_line_of(const char *path, char *out, size_t len)
{
    out[0] = 0;
    tb_buf b = {0};
    tb_err e;
    if (tb_file_read(path, 1 << 16, &b, &e) < 0)
        return;
    tb_buf_last_line(&b, out, len);
    tb_buf_clear(&b);
}

/* One login: `ssh ... true` as the VM's user with its key. The guest's host key is
   pinned by the first login that works, so known_hosts is emptied before each try
   (a first boot may replace the host keys while sshd already answers). line gets
   ssh's last stderr line. */
static login_res try_login(const tb_vm_spec *s, const tb_vm_state *st, char *line, size_t len,
                           tb_err *err)
{
    char log[1200];
    snprintf(log, sizeof log, "%s/ssh-boot.log", st->paths.dir);
    line[0] = 0;
    if (tb_file_write_atomic_mode(st->paths.known_hosts, "", 0, 0600, err) < 0)
        return LOGIN_NOT_YET;
    char *cmd[] = {"true", NULL};
    char **argv = tb_vm_ssh_argv(st, cmd);
    if (!argv)
        return LOGIN_NOT_YET;
    tb_proc_opts o = {.argv = argv, .stderr_path = log};
    tb_proc_result r;
    int rc = tb_proc_run(&o, 60000, s->stop, &r, err);
    tb_vm_argv_free(argv);
    if (rc < 0)
        return LOGIN_NOT_YET;
    last_line_of(log, line, len);
    if (r.exit_code == 0 && !r.timed_out && !r.cancelled) {
        unlink(log);
        return LOGIN_OK;
    }
    /* "root@127.0.0.1: Permission denied (publickey)." (OpenSSH's client, whatever the
       server: OpenSSH, dropbear) -- the server answered and refused the key */
    return strstr(line, "Permission denied") ? LOGIN_REFUSED : LOGIN_NOT_YET;
}

static int refused(const tb_vm_spec *s, const tb_vm_state *st, const char *line, int waited_s,
                   tb_err *err)
{
    int password = strstr(line, "password") || strstr(line, "keyboard-interactive");
    return tb_errf(err,
                   "the guest's sshd on 127.0.0.1:%d refused the VM's key for %s for %d s "
                   "(ssh: %s)%s: give the guest a key one of three ways -- an image with "
                   "cloud-init (it reads the seed teebench attaches%s), a guest that reads the "
                   "fw_cfg file opt/teebench/authorized_keys, or --ssh-key KEY (and --ssh-user) "
                   "of a key the image already accepts",
                   st->ssh_port, st->ssh_user, waited_s, line,
                   password ? "; it offers password logins, which teebench's ssh (BatchMode) "
                              "never uses"
                            : "",
                   s->seed ? "" : "; --seed on");
}

/* Waits until `ssh true` runs: a banner first (cheap, no ssh process while nothing
   listens), then logins until one works, the key is refused for auth_grace_s, or
   the boot timeout passes. */
static int wait_ssh(const tb_vm_spec *s, tb_vm_state *st, uint64_t t0, tb_err *err)
{
    uint64_t deadline = t0 + (uint64_t)s->boot_timeout_s * 1000 * MS, first_refusal = 0;
    char line[300] = "";
    int answered = 0;
    for (;;) {
        if (s->stop && *s->stop)
            return tb_errf(err, "interrupted while waiting for the first SSH login");
        if (!tb_vm_alive(st)) {
            char why[600];
            qemu_error(st->paths.qemu_log, why, sizeof why);
            return tb_errf(err, "QEMU exited during boot: %s (serial log: %s)", why,
                           st->paths.serial);
        }
        if (ssh_answers(st->ssh_port, 1500)) {
            answered = 1;
            tb_err e;
            login_res r = try_login(s, st, line, sizeof line, &e);
            if (r == LOGIN_OK) {
                st->boot_ns = tb_mono_ns() - t0;
                return 0;
            }
            if (s->stop && *s->stop)
                continue;
            if (r == LOGIN_REFUSED && !first_refusal)
                first_refusal = tb_mono_ns();
            if (r != LOGIN_REFUSED)
                first_refusal = 0;
            if (first_refusal &&
                tb_mono_ns() - first_refusal >= (uint64_t)s->auth_grace_s * 1000 * MS)
                return refused(s, st, line, s->auth_grace_s, err);
        }
        if (tb_mono_ns() >= deadline) {
            if (first_refusal)
                return refused(s, st, line,
                               (int)((tb_mono_ns() - first_refusal + 500 * MS) / (1000 * MS)), err);
            if (answered)
                return tb_errf(err,
                               "sshd on 127.0.0.1:%d answered but no login as %s worked within "
                               "%d s (ssh: %s; serial log: %s)",
                               st->ssh_port, st->ssh_user, s->boot_timeout_s,
                               line[0] ? line : "no message", st->paths.serial);
            return tb_errf(err, "no SSH answer on 127.0.0.1:%d within %d s (serial log: %s)",
                           st->ssh_port, s->boot_timeout_s, st->paths.serial);
        }
        tb_sleep_ns(500 * MS);
    }
}

/* Runs cmd in the guest over SSH (60 s at most); its stdout (up to len - 1 bytes,
   trailing newlines cut) into out. 0 when it ran and exited 0, else -1. */
static int guest_read(const tb_vm_spec *s, const tb_vm_state *st, const char *cmd, char *out,
                      size_t len)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/ssh-read.out", st->paths.dir);
    char *words[] = {(char *)cmd, NULL};
    char **argv = tb_vm_ssh_argv(st, words);
    out[0] = 0;
    if (!argv)
        return -1;
    tb_proc_opts o = {.argv = argv, .stdout_path = path};
    tb_proc_result r;
    tb_err e;
    int rc = tb_proc_run(&o, 60000, s->stop, &r, &e);
    tb_vm_argv_free(argv);
    tb_buf b = {0};
    if (rc == 0 && tb_file_read(path, len, &b, &e) == 0 && b.p) {
        size_t n = b.len < len ? b.len : len - 1;
        while (n && (b.p[n - 1] == '\n' || b.p[n - 1] == '\r'))
            n--;
        memcpy(out, b.p, n);
        out[n] = 0;
    }
    tb_buf_clear(&b);
    unlink(path);
    return rc == 0 && r.exit_code == 0 && !r.timed_out && !r.cancelled ? 0 : -1;
}

/* regular-swiotlb: the guest's /proc/cmdline must carry the parameter asked for (the
   same slab count, force). With "seed-reboot" the first login may come before the
   seed's reboot: logins are retried until the second boot's proves it, the seed says
   it failed, or the boot timeout passes; boot_ns is then the time to that login. */
static int check_swiotlb(const tb_vm_spec *s, tb_vm_state *st, uint64_t t0, tb_err *err)
{
    if (!s->swiotlb)
        return 0;
    uint64_t want = tb_vm_swiotlb_pool(s) / TB_VM_SWIOTLB_SLAB,
             deadline = t0 + (uint64_t)s->boot_timeout_s * 1000 * MS;
    int reboot = !strcmp(st->swiotlb_how, "seed-reboot");
    char status[400] = "";
    for (;;) {
        if (s->stop && *s->stop)
            return tb_errf(err, "interrupted while waiting for the guest to boot with %s",
                           st->swiotlb_param);
        unsigned long long nslabs = 0;
        tb_err ke;
        /* across the seed's reboot, as during a first boot (try_login): the host key is
           pinned again by the login that proves the parameter */
        if (reboot && tb_file_write_atomic_mode(st->paths.known_hosts, "", 0, 0600, &ke) < 0)
            return tb_errf(err, "%s", ke.msg);
        if (guest_read(s, st, "cat /proc/cmdline", st->guest_cmdline, sizeof st->guest_cmdline) ==
                0 &&
            tb_env_parse_swiotlb_cmdline(st->guest_cmdline, &nslabs) && nslabs == want) {
            if (reboot)
                st->boot_ns = tb_mono_ns() - t0;
            return 0;
        }
        if (reboot && st->guest_cmdline[0])
            guest_read(s, st, "cat " TB_VM_SEED_PARAM_STATUS, status, sizeof status);
        if (!reboot || !strncmp(status, "failed:", 7) || tb_mono_ns() >= deadline ||
            !tb_vm_alive(st))
            return tb_errf(err,
                           "regular-swiotlb: the guest runs without %s (its /proc/cmdline: "
                           "'%s'%s%s): its I/O would not take the bounce path, so it is not "
                           "measured as if it did",
                           st->swiotlb_param,
                           st->guest_cmdline[0] ? st->guest_cmdline : "unreadable",
                           status[0] ? "; the seed's boot-loader step: " : "", status);
        tb_sleep_ns(2000 * MS);
    }
}

/* The boot's phases (vm/boot.h): the probe over a second login, its output kept as
   boot-probe.txt in the run dir. A probe that fails leaves the phases unknown, with
   the reason; the VM has booted either way. */
static void probe_boot(const tb_vm_spec *s, tb_vm_state *st, uint64_t t0)
{
    char out[1200], log[1200];
    snprintf(out, sizeof out, "%s/boot-probe.txt", st->paths.dir);
    snprintf(log, sizeof log, "%s/ssh-probe.log", st->paths.dir);
    char *cmd[] = {(char *)tb_vm_boot_probe_cmd(), NULL};
    char **argv = tb_vm_ssh_argv(st, cmd);
    tb_proc_result r;
    tb_err e;
    tb_proc_opts o = {.argv = argv, .stdout_path = out, .stderr_path = log};
    int rc = argv ? tb_proc_run(&o, 60000, s->stop, &r, &e) : -1;
    uint64_t end = tb_mono_ns() - t0;
    tb_vm_argv_free(argv);
    tb_buf b = {0};
    tb_vm_boot_guest g;
    if (rc < 0 || r.exit_code != 0 || r.timed_out || r.cancelled ||
        tb_file_read(out, 1 << 16, &b, &e) < 0) {
        snprintf(st->boot_note, sizeof st->boot_note,
                 "the boot probe's login failed (ssh-probe.log in the run dir): no phases");
        tb_buf_clear(&b);
        return;
    }
    unlink(log);
    tb_vm_boot_parse(b.p ? (const char *)b.p : "", b.len, &g);
    tb_buf_clear(&b);
    tb_vm_boot_phases ph;
    tb_vm_boot_phases_make(st->boot_ns, end, &g, &ph);
    memcpy(st->boot_phase_ns, ph.ns, sizeof ph.ns);
    snprintf(st->boot_note, sizeof st->boot_note, "%s%s", ph.note,
             strcmp(st->swiotlb_how, "seed-reboot") || ph.ns[TB_VM_BOOT_FIRMWARE] < 0
                 ? ""
                 : "; two boots (the seed's reboot for swiotlb): the firmware phase holds the "
                   "first boot and the reboot");
}

int tb_vm_start(const tb_vm_spec *spec, const tb_vm_plan *plan, const char *base, tb_vm_state *st,
                tb_err *err)
{
    uint64_t t0 = tb_mono_ns();
    memset(st, 0, sizeof *st);
    for (int i = 0; i < TB_VM_BOOT_NPHASES; i++)
        st->boot_phase_ns[i] = -1;
    if (tb_vm_preflight(spec, base, err) < 0)
        return -1;
    tb_vm_spec s = *spec;
    tb_vm_paths *paths = &st->paths;
    char fmt[16];
    if (s.image && !s.image_format) {
        if (tb_vm_image_probe(s.image, fmt, sizeof fmt, err) < 0)
            return tb_err_wrap(err, "--image");
        s.image_format = fmt;
    }
    if (tb_vm_paths_make(base, s.name, paths, err) < 0 || make_dirs(base, paths, err) < 0)
        return -1;
    if (!s.ssh_port && (s.ssh_port = tb_sock_free_port(err)) < 0)
        return -1;
    if (!s.ssh_key && make_key(s.name, paths->key, paths->dir, err) < 0)
        return -1;
    char pub[1200];
    snprintf(pub, sizeof pub, "%s.pub", s.ssh_key ? s.ssh_key : paths->key);
    unlink(paths->seed);
    if (s.seed && write_seed(&s, pub, paths, err) < 0)
        return -1;
    if (tb_file_write_atomic_mode(paths->known_hosts, "", 0, 0600, err) < 0)
        return -1;
    remove_runtime_files(paths);
    unlink(paths->state);

    tb_vm_cmd cmd;
    if (tb_vm_cmdline(&s, plan, paths, &cmd, err) < 0)
        return -1;
    st->argv = tb_vm_cmd_argv(&cmd);
    tb_vm_cmd_free(&cmd);
    if (!st->argv)
        return tb_errf(err, "out of memory");
    snprintf(st->name, sizeof st->name, "%s", s.name);
    st->kind = s.kind;
    st->tcg = plan->tcg;
    st->ssh_port = s.ssh_port;
    snprintf(st->ssh_user, sizeof st->ssh_user, "%s", s.ssh_user);
    snprintf(st->ssh_key, sizeof st->ssh_key, "%s", s.ssh_key ? s.ssh_key : paths->key);
    st->cpus = s.cpus;
    st->memory = s.memory;
    snprintf(st->qemu_path, sizeof st->qemu_path, "%s", plan->qemu);
    snprintf(st->qemu_version, sizeof st->qemu_version, "%s", plan->qemu_version);
    snprintf(st->qemu_sha256, sizeof st->qemu_sha256, "%s", plan->qemu_sha256);
    snprintf(st->firmware, sizeof st->firmware, "%s", plan->firmware);
    snprintf(st->firmware_sha256, sizeof st->firmware_sha256, "%s", plan->firmware_sha256);
    tb_vm_swiotlb_param(&s, st->swiotlb_param, sizeof st->swiotlb_param);
    snprintf(st->swiotlb_how, sizeof st->swiotlb_how, "%s",
             tb_vm_swiotlb_how(&s) ? tb_vm_swiotlb_how(&s) : "");
    st->swiotlb_pool = tb_vm_swiotlb_pool(&s);
    tb_utc_iso8601((int64_t)(tb_wall_ns() / 1000000000ull), st->started_at, sizeof st->started_at);

    int setup_s = s.boot_timeout_s > 120 ? s.boot_timeout_s : 120;
    if (spawn_qemu(st->argv, paths, setup_s, s.stop, err) < 0)
        goto fail;
    st->pid = read_pidfile(paths->pidfile);
    if (st->pid < 0 || !tb_vm_alive(st)) {
        tb_errf(err, "QEMU reported success but %s names no running QEMU", paths->pidfile);
        goto fail;
    }
    if (tb_vm_state_save(st, err) < 0)
        goto fail;
    if (s.npin && pin_vcpus(&s, st, err) < 0)
        goto fail;
    if (wait_ssh(&s, st, t0, err) < 0 || check_swiotlb(&s, st, t0, err) < 0)
        goto fail;
    probe_boot(&s, st, t0); /* after the seed's reboot, of the boot that is measured */
    if (tb_vm_state_save(st, err) < 0)
        goto fail;
    return 0;
fail:
    abort_start(st);
    tb_vm_state_free(st);
    return -1;
}

int tb_vm_stop(tb_vm_state *st, int timeout_ms, tb_vm_stop_how *how, tb_err *err)
{
    *how = TB_VM_STOP_NOT_RUNNING;
    if (tb_vm_alive(st)) {
        tb_qmp q;
        int have_qmp = tb_qmp_open(&q, st->paths.qmp, 5000, err) == 0;
        if (have_qmp && tb_qmp_exec(&q, "system_powerdown", NULL, NULL, err) == 0 &&
            wait_gone(st, timeout_ms)) {
            *how = TB_VM_STOP_POWERDOWN;
        } else if (have_qmp && tb_vm_alive(st) && tb_qmp_exec(&q, "quit", NULL, NULL, err) == 0 &&
                   wait_gone(st, 5000)) {
            *how = TB_VM_STOP_QUIT;
        } else if (tb_vm_alive(st)) {
            kill(st->pid, SIGKILL);
            *how = TB_VM_STOP_KILLED;
            if (!wait_gone(st, 5000)) {
                if (have_qmp)
                    tb_qmp_close(&q);
                return tb_errf(err, "QEMU (pid %d) is still there after SIGKILL", (int)st->pid);
            }
        } else {
            *how = TB_VM_STOP_POWERDOWN; /* gone while we asked */
        }
        if (have_qmp)
            tb_qmp_close(&q);
    }
    remove_runtime_files(&st->paths);
    st->pid = 0;
    return tb_vm_state_save(st, err);
}

char **tb_vm_ssh_argv(const tb_vm_state *st, char *const *cmd)
{
    char port[16], id[1200], kh[1200], dest[128];
    snprintf(port, sizeof port, "%d", st->ssh_port);
    snprintf(id, sizeof id, "%s", st->ssh_key);
    snprintf(kh, sizeof kh, "UserKnownHostsFile=%s", st->paths.known_hosts);
    snprintf(dest, sizeof dest, "%s@127.0.0.1", st->ssh_user);
    const char *head[] = {"ssh",
                          "-F",
                          "none",
                          "-p",
                          port,
                          "-i",
                          id,
                          "-o",
                          "IdentitiesOnly=yes",
                          "-o",
                          "BatchMode=yes",
                          "-o",
                          "StrictHostKeyChecking=accept-new",
                          "-o",
                          kh,
                          "-o",
                          "GlobalKnownHostsFile=/dev/null",
                          "-o",
                          "ConnectTimeout=20",
                          "-o",
                          "LogLevel=ERROR",
                          "--",
                          dest};
    size_t nh = sizeof head / sizeof head[0], nc = 0;
    while (cmd && cmd[nc])
        nc++;
    char **argv = calloc(nh + nc + 1, sizeof *argv);
    if (!argv)
        return NULL;
    for (size_t i = 0; i < nh + nc; i++) {
        argv[i] = strdup(i < nh ? head[i] : cmd[i - nh]);
        if (!argv[i]) {
            tb_vm_argv_free(argv);
            return NULL;
        }
    }
    return argv;
}
