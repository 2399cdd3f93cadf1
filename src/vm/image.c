/* vm/image: see image.h. The hook script and mmdebstrap's argv are pure functions
 * of the recipe (unit tests read them); tb_vm_image_build is the only part that
 * touches the host. Every value that reaches the script is single-quoted for sh,
 * and the script runs under `set -eu`, so a failing step fails the build. */
#include "vm/image.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/argv.h"
#include "base/file.h"
#include "base/paths.h"
#include "base/proc.h"
#include "vm/vm.h"

#define ESP_MIB 256 /* systemd-boot, a kernel and an initramfs (Ubuntu's are ~70 MiB) */

static const tb_vm_distro distros[] = {
    {"bookworm", "Debian 12", "debian", "http://deb.debian.org/debian", NULL, "main",
     "linux-image-cloud-amd64", "ifupdown", 1, 1, 1},
    {"trixie", "Debian 13", "debian", "http://deb.debian.org/debian", NULL, "main",
     "linux-image-cloud-amd64", "ifupdown", 1, 1, 0},
    {"sid", "Debian unstable", "debian", "http://deb.debian.org/debian", NULL, "main",
     "linux-image-cloud-amd64", "ifupdown", 0, 0, 0},
    {"noble", "Ubuntu 24.04", "ubuntu", "http://archive.ubuntu.com/ubuntu",
     "/usr/share/keyrings/ubuntu-archive-keyring.gpg", "main universe", "linux-image-virtual",
     "netplan.io", 1, 1, 0},
    {"plucky", "Ubuntu 25.04", "ubuntu", "http://archive.ubuntu.com/ubuntu",
     "/usr/share/keyrings/ubuntu-archive-keyring.gpg", "main universe", "linux-image-virtual",
     "netplan.io", 1, 1, 0},
    {"questing", "Ubuntu 25.10", "ubuntu", "http://archive.ubuntu.com/ubuntu",
     "/usr/share/keyrings/ubuntu-archive-keyring.gpg", "main universe", "linux-image-virtual",
     "netplan.io", 1, 1, 0},
};

const tb_vm_distro *tb_vm_distro_find(const char *suite)
{
    for (size_t i = 0; suite && i < sizeof distros / sizeof distros[0]; i++)
        if (!strcmp(distros[i].suite, suite))
            return &distros[i];
    return NULL;
}

const char *tb_vm_distro_names(void)
{
    return "bookworm, trixie, sid (Debian); noble, plucky, questing (Ubuntu)";
}

/* A package list item: [a-z0-9][a-z0-9+.-]*. */
static int package_ok(const char *p, size_t n)
{
    if (n == 0 || n > 100 || !((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= '0' && p[0] <= '9')))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9') || strchr("+.-", p[i])))
            return 0;
    return 1;
}

int tb_vm_image_packages(const tb_vm_image_recipe *r, const tb_vm_distro *d, tb_buf *out,
                         tb_err *err)
{
    int rc = tb_buf_printf(out,
                           "%s,systemd-sysv,udev,dbus,%s,openssh-server,cloud-init,nginx,"
                           "systemd-boot-efi",
                           d->kernel, d->network);
    /* what teebench links that a cloud image may lack (libssl comes with openssh) */
    if (!r->stock)
        rc |= tb_buf_puts(out, ",libjansson4,libsqlite3-0,liblua5.4-0,zlib1g");
    for (const char *p = r->extra; p && *p && rc == 0;) {
        size_t n = strcspn(p, ",");
        if (!package_ok(p, n))
            return tb_errf(err, "--include: '%.*s' is not a package name", (int)n, p);
        rc |= tb_buf_printf(out, ",%.*s", (int)n, p);
        p += n + (p[n] == ',');
    }
    return rc ? tb_errf(err, "out of memory") : 0;
}

/* A word single-quoted for sh. */
static int sq(tb_buf *b, const char *s)
{
    int rc = tb_buf_puts(b, "'");
    for (const char *p = s; *p && rc == 0; p++)
        rc = *p == '\'' ? tb_buf_puts(b, "'\\''") : tb_buf_append(b, p, 1);
    return rc | tb_buf_puts(b, "'");
}

static int var(tb_buf *b, const char *name, const char *value)
{
    return tb_buf_printf(b, "%s=", name) | sq(b, value ? value : "") | tb_buf_puts(b, "\n");
}

/* The hook's preamble: sh under set -eu, its root tree argument checked, and every
 * value it uses single-quoted (workdir, the binary, the key, the label, the sizes). */
static int script_header(const tb_vm_image_recipe *r, const char *workdir, uint64_t mib,
                         tb_buf *out)
{
    int rc = tb_buf_puts(out, "#!/bin/sh\n"
                              "# teebench vm image: mmdebstrap's customize hook ($1: the root "
                              "tree). Written by teebench.\n"
                              "set -eu\nR=$1\n"
                              "case $R in /?*) ;; *) echo \"teebench-image: not a root tree: "
                              "'$R'\" >&2; exit 1 ;; esac\n");
    rc |= var(out, "W", workdir);
    rc |= var(out, "BIN", r->stock ? NULL : r->teebench);
    rc |= var(out, "KEY", r->stock ? NULL : r->authorized_key);
    rc |= var(out, "LABEL", TB_VM_IMAGE_LABEL);
    rc |= tb_buf_printf(out, "DISK_MIB=%" PRIu64 "\nESP_MIB=%d\n", mib, ESP_MIB);
    return rc;
}

/* The hook's steps, in order; each announces itself with `step`. */

/* The tree: hostname, hosts, fstab, nginx's own service off, a new machine-id on first
 * boot, teebench and the authorized key (when given). */
static const char script_tree[] =
    "step() { echo \"teebench-image: $*\"; }\n"
    "step 'configuring the tree'\n"
    "echo localhost >\"$R/etc/hostname\"\n"
    "[ -s \"$R/etc/hosts\" ] || printf '127.0.0.1 localhost\\n::1 localhost ip6-localhost "
    "ip6-loopback\\n' >\"$R/etc/hosts\"\n"
    "printf 'LABEL=%s / ext4 defaults,errors=remount-ro 0 1\\n' \"$LABEL\" "
    ">\"$R/etc/fstab\"\n"
    "# the suite starts the nginx it measures; the package's own service stays off\n"
    "chroot \"$R\" systemctl disable nginx.service >/dev/null 2>&1 || true\n"
    "rm -f \"$R/etc/machine-id\" && : >\"$R/etc/machine-id\"  # a new one on first boot\n"
    "if [ -n \"$BIN\" ]; then install -m 0755 \"$BIN\" \"$R/usr/local/bin/teebench\"; fi\n"
    "if [ -n \"$KEY\" ]; then\n"
    "  install -d -m 0700 \"$R/root/.ssh\"\n"
    "  install -m 0600 \"$KEY\" \"$R/root/.ssh/authorized_keys\"\n"
    "fi\n";

/* The EFI system partition: systemd-boot as the removable-media loader, the newest
 * kernel and its initramfs, one loader entry booting root=LABEL. */
static const char script_esp[] =
    "step 'the EFI system partition (systemd-boot, kernel, initramfs)'\n"
    "K=$(ls \"$R\"/boot/vmlinuz-* | sort -V | tail -n 1)\n"
    "I=\"$R/boot/initrd.img-${K##*/vmlinuz-}\"\n"
    "EFI=\"$R/usr/lib/systemd/boot/efi/systemd-bootx64.efi\"\n"
    "[ -f \"$K\" ] && [ -f \"$I\" ] && [ -f \"$EFI\" ] || "
    "{ echo \"teebench-image: no kernel, initramfs or systemd-boot in the tree\" >&2; "
    "exit 1; }\n"
    "rm -f \"$W/esp.img\" \"$W/root.img\" \"$W/disk.raw\" \"$W/disk.qcow2\"\n"
    "mkfs.vfat -C -n ESP \"$W/esp.img\" $((ESP_MIB * 1024)) >/dev/null\n"
    "mmd -i \"$W/esp.img\" ::/EFI ::/EFI/BOOT ::/loader ::/loader/entries\n"
    "printf 'timeout 0\\ndefault teebench.conf\\n' >\"$W/loader.conf\"\n"
    "printf 'title Linux (teebench vm image)\\nlinux /vmlinuz\\ninitrd /initrd.img\\n"
    "options root=LABEL=%s ro console=ttyS0,115200n8\\n' \"$LABEL\" >\"$W/entry.conf\"\n"
    "mcopy -i \"$W/esp.img\" \"$EFI\" ::/EFI/BOOT/BOOTX64.EFI\n"
    "mcopy -i \"$W/esp.img\" \"$K\" ::/vmlinuz\n"
    "mcopy -i \"$W/esp.img\" \"$I\" ::/initrd.img\n"
    "mcopy -i \"$W/esp.img\" \"$W/loader.conf\" ::/loader/loader.conf\n"
    "mcopy -i \"$W/esp.img\" \"$W/entry.conf\" ::/loader/entries/teebench.conf\n";

/* The root filesystem: mkfs.ext4 -d from a non-recursive bind mount of the tree, with
 * what mmdebstrap cleans after the hooks moved aside and put back (see the comment in
 * the script). */
static const char script_root[] =
    "step 'the root filesystem (mkfs.ext4 -d)'\n"
    "ROOT_MIB=$((DISK_MIB - ESP_MIB - 2))\n"
    "# The image is made while mmdebstrap still runs: what it cleans after the hooks (apt's\n"
    "# lists and cache, resolv.conf, its files in /tmp -- its apt configuration among them:\n"
    "# deleting that made its last `apt-get update` empty the HOST's lists) is moved aside\n"
    "# for mkfs and put back, never deleted; /proc, /sys and /dev, which it mounts for the\n"
    "# hooks, are left out through a non-recursive bind mount of the tree.\n"
    "H=\"$W/hidden\"\n"
    "HIDE='tmp var/lib/apt/lists var/cache/apt etc/resolv.conf'\n"
    "restore() {\n"
    "  umount \"$W/tree\" 2>/dev/null || true\n"
    "  for p in $HIDE; do\n"
    "    if [ -e \"$H/$p\" ] || [ -L \"$H/$p\" ]; then\n"
    "      rm -rf \"${R:?}/$p\" && mv \"$H/$p\" \"$R/$p\"\n"
    "    fi\n"
    "  done\n"
    "}\n"
    "trap restore EXIT\n"
    "mkdir -p \"$H/var/lib/apt\" \"$H/var/cache\" \"$H/etc\" \"$W/tree\"\n"
    "for p in $HIDE; do\n"
    "  if [ -e \"$R/$p\" ] || [ -L \"$R/$p\" ]; then mv \"$R/$p\" \"$H/$p\"; fi\n"
    "done\n"
    "mkdir -m 1777 \"$R/tmp\"\n"
    "mkdir -p \"$R/var/lib/apt/lists/partial\" \"$R/var/cache/apt/archives/partial\"\n"
    "mount --bind \"$R\" \"$W/tree\"\n"
    "mkfs.ext4 -q -L \"$LABEL\" -d \"$W/tree\" \"$W/root.img\" \"${ROOT_MIB}M\"\n"
    "restore\n"
    "trap - EXIT\n"
    "rmdir \"$W/tree\"\n"
    "rm -rf \"$H\"\n";

/* The GPT disk of both partitions, converted to qcow2. */
static const char script_disk[] =
    "step \"the GPT disk ($DISK_MIB MiB) and its qcow2\"\n"
    "truncate -s \"${DISK_MIB}M\" \"$W/disk.raw\"\n"
    "sfdisk -q \"$W/disk.raw\" <<EOF\n"
    "label: gpt\n"
    "start=1MiB, size=${ESP_MIB}MiB, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, "
    "name=\"EFI System\"\n"
    "start=$((1 + ESP_MIB))MiB, size=${ROOT_MIB}MiB, "
    "type=4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709, name=root\n"
    "EOF\n"
    "dd if=\"$W/esp.img\" of=\"$W/disk.raw\" bs=1M seek=1 conv=notrunc,sparse status=none\n"
    "dd if=\"$W/root.img\" of=\"$W/disk.raw\" bs=1M seek=$((1 + ESP_MIB)) "
    "conv=notrunc,sparse status=none\n"
    "rm -f \"$W/esp.img\" \"$W/root.img\"\n"
    "qemu-img convert -f raw -O qcow2 \"$W/disk.raw\" \"$W/disk.qcow2\"\n"
    "rm -f \"$W/disk.raw\"\n"
    "step done\n";

int tb_vm_image_script(const tb_vm_image_recipe *r, const char *workdir, tb_buf *out, tb_err *err)
{
    uint64_t size = r->size ? r->size : TB_VM_IMAGE_DEFAULT_SIZE;
    uint64_t mib = size >> 20;
    if (size % (1ull << 20) || mib < ESP_MIB + 512)
        return tb_errf(err, "--size: a whole number of MiB, at least %d MiB", ESP_MIB + 512);
    int rc = script_header(r, workdir, mib, out);
    rc |= tb_buf_puts(out, script_tree);
    rc |= tb_buf_puts(out, script_esp);
    rc |= tb_buf_puts(out, script_root);
    rc |= tb_buf_puts(out, script_disk);
    return rc ? tb_errf(err, "out of memory") : 0;
}

/* "http://deb.debian.org/debian" -> "http://deb.debian.org/debian-security". */
static void security_mirror(const char *mirror, char *out, size_t len)
{
    size_t n = strlen(mirror);
    while (n && mirror[n - 1] == '/')
        n--;
    snprintf(out, len, "%.*s-security", (int)n, mirror);
}

char **tb_vm_image_argv(const tb_vm_image_recipe *r, const char *hook_path, tb_err *err)
{
    const char *suite = r->suite ? r->suite : TB_VM_IMAGE_DEFAULT_SUITE;
    const tb_vm_distro *d = tb_vm_distro_find(suite);
    if (!d) {
        tb_errf(err, "--suite %s: not a suite teebench knows (%s)", suite, tb_vm_distro_names());
        return NULL;
    }
    const char *mirror = r->mirror ? r->mirror : d->mirror;
    if (strncmp(mirror, "http://", 7) && strncmp(mirror, "https://", 8) &&
        strncmp(mirror, "file:/", 6)) {
        tb_errf(err, "--mirror %s: not an http://, https:// or file:/ URL", mirror);
        return NULL;
    }
    if (strpbrk(mirror, " \t\n'\"[]")) {
        tb_errf(err, "--mirror %s: spaces, quotes and brackets are not allowed", mirror);
        return NULL;
    }
    tb_buf pk = {0};
    if (tb_vm_image_packages(r, d, &pk, err) < 0)
        return NULL;
    tb_argv b = {0};
    tb_argv_add(&b, "mmdebstrap");
    tb_argv_add(&b, "--mode=root");
    tb_argv_add(&b, "--format=null");
    tb_argv_add(&b, "--variant=apt");
    tb_argv_add(&b, "--include=%s", (const char *)pk.p);
    tb_buf_clear(&pk);
    if (d->merged_usr_hook)
        tb_argv_add(&b, "--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr");
    tb_argv_add(&b, "--hook-dir=/usr/share/mmdebstrap/hooks/eatmydata"); /* dpkg without fsync */
    /* an image for benchmarks: no manuals, documentation or translations */
    tb_argv_add(&b, "--dpkgopt=path-exclude=/usr/share/man/*");
    tb_argv_add(&b, "--dpkgopt=path-exclude=/usr/share/doc/*");
    tb_argv_add(&b, "--dpkgopt=path-exclude=/usr/share/info/*");
    tb_argv_add(&b, "--dpkgopt=path-exclude=/usr/share/locale/*");
    tb_argv_add(&b, "--dpkgopt=path-include=/usr/share/locale/locale.alias");
    if (r->apt_cache) {
        /* reuse and refill a directory of downloaded packages */
        tb_buf q = {0};
        if (sq(&q, r->apt_cache) < 0) {
            b.oom = 1;
        } else {
            tb_argv_add(&b,
                        "--setup-hook=mkdir -p \"$1/var/cache/apt/archives\" && "
                        "for f in %s/*.deb; do [ ! -e \"$f\" ] || cp \"$f\" "
                        "\"$1/var/cache/apt/archives/\"; done",
                        (const char *)q.p);
            tb_argv_add(&b, "--skip=download/empty");
            tb_argv_add(
                &b,
                "--customize-hook=mkdir -p %s && for f in \"$1\"/var/cache/apt/archives/*.deb; "
                "do [ ! -e \"$f\" ] || cp \"$f\" %s/; done; rm -f "
                "\"$1\"/var/cache/apt/archives/*.deb",
                (const char *)q.p, (const char *)q.p);
        }
        tb_buf_clear(&q);
    }
    tb_argv_add(&b, "--customize-hook=sh %s \"$1\"", hook_path);
    tb_argv_add(&b, "%s", suite);
    tb_argv_add(&b, "/dev/null");
    const char *kr = d->keyring;
    char signed_by[256] = "";
    if (kr)
        snprintf(signed_by, sizeof signed_by, "[signed-by=%s] ", kr);
    tb_argv_add(&b, "deb %s%s %s %s", signed_by, mirror, suite, d->components);
    if (d->updates)
        tb_argv_add(&b, "deb %s%s %s-updates %s", signed_by, mirror, suite, d->components);
    if (d->security && !strcmp(d->vendor, "debian") && !r->mirror) {
        char sec[600];
        security_mirror(mirror, sec, sizeof sec);
        tb_argv_add(&b, "deb %s%s %s-security %s", signed_by, sec, suite, d->components);
    } else if (d->security && !strcmp(d->vendor, "ubuntu")) {
        tb_argv_add(&b, "deb %s%s %s-security %s", signed_by, mirror, suite, d->components);
    }
    char **argv = tb_argv_take(&b);
    if (!argv)
        tb_errf(err, "out of memory");
    return argv;
}

int tb_vm_image_default_path(const char *suite, int stock, char *out, size_t len, tb_err *err)
{
    const char *s = suite ? suite : TB_VM_IMAGE_DEFAULT_SUITE;
    char sub[256];
    int n = snprintf(sub, sizeof sub, "teebench/images/%s%s.qcow2", s, stock ? "-stock" : "");
    if (n < 0 || (size_t)n >= sizeof sub)
        return tb_errf(err, "the image path is too long");
    if (tb_path_dir(TB_PATH_DATA, sub, out, len, err) < 0)
        return tb_err_wrap(err, "no default image path");
    return 0;
}

/* ---------- the build ---------- */

static int in_path(const char *tool)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/bin:/bin";
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, ":");
        char f[1024];
        if (n && (size_t)snprintf(f, sizeof f, "%.*s/%s", (int)n, p, tool) < sizeof f &&
            access(f, X_OK) == 0)
            return 1;
        p += n + (p[n] == ':');
    }
    return 0;
}

static int check_tools(tb_err *err)
{
    static const struct {
        const char *tool, *package;
    } need[] = {
        {"mmdebstrap", "mmdebstrap"}, {"mkfs.ext4", "e2fsprogs"}, {"mkfs.vfat", "dosfstools"},
        {"mcopy", "mtools"},          {"mmd", "mtools"},          {"sfdisk", "fdisk"},
        {"qemu-img", "qemu-utils"},   {"truncate", "coreutils"}};
    char missing[512] = "";
    size_t k = 0;
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (!in_path(need[i].tool) && !strstr(missing, need[i].package))
            k += (size_t)snprintf(missing + k, sizeof missing - k, "%s%s (%s)", k ? ", " : "",
                                  need[i].tool, need[i].package);
    if (k)
        return tb_errf(err,
                       "building an image needs tools this host lacks: %s (apt-get install "
                       "them: the Debian package in brackets)",
                       missing);
    return 0;
}

static void last_log_line(const char *path, char *out, size_t len)
{
    out[0] = 0;
    tb_buf b = {0};
    tb_err e;
    if (tb_file_read(path, 4u << 20, &b, &e) < 0)
        return;
    const char *s = b.p ? (const char *)b.p : "";
    size_t end = b.len;
    /* the last line that says what failed: mmdebstrap's "E:" or the hook's own */
    for (;;) {
        while (end && (s[end - 1] == '\n' || s[end - 1] == '\r'))
            end--;
        size_t start = end;
        while (start && s[start - 1] != '\n')
            start--;
        if (end == 0)
            break;
        if (!out[0])
            snprintf(out, len, "%.*s", (int)(end - start), s + start);
        if (!strncmp(s + start, "E: ", 3) && strncmp(s + start, "E: mmdebstrap failed", 20)) {
            snprintf(out, len, "%.*s", (int)(end - start), s + start);
            break;
        }
        if (start == 0)
            break;
        end = start;
    }
    tb_buf_clear(&b);
}

int tb_vm_image_check(const tb_vm_image_recipe *r, tb_err *err)
{
    if (geteuid() != 0)
        return tb_errf(err, "building an image needs root (mmdebstrap's root mode chroots, and "
                            "mkfs.ext4 -d keeps the files' owners): run it as root, e.g. sudo "
                            "teebench vm image -o FILE");
    if (check_tools(err) < 0)
        return -1;
    const tb_vm_distro *d = tb_vm_distro_find(r->suite ? r->suite : TB_VM_IMAGE_DEFAULT_SUITE);
    if (d && d->keyring && access(d->keyring, R_OK) != 0)
        return tb_errno(err, "%s (the %s archive's keyring: apt-get install ubuntu-keyring)",
                        d->keyring, d->name);
    if (r->teebench && !r->stock && access(r->teebench, R_OK) != 0)
        return tb_errno(err, "%s", r->teebench);
    if (r->authorized_key && access(r->authorized_key, R_OK) != 0)
        return tb_errno(err, "--authorized-key %s", r->authorized_key);
    return 0;
}

int tb_vm_image_build(const tb_vm_image_recipe *r, const volatile sig_atomic_t *stop,
                      char *log_path, size_t log_len, tb_err *err)
{
    if (log_len)
        log_path[0] = 0;
    if (tb_vm_image_check(r, err) < 0)
        return -1;
    char dir[1024], work[1100], hook[1200], log[1200], img[1200], tmp[1200];
    const char *slash = strrchr(r->output, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - r->output) : 1,
             slash ? r->output : ".");
    if (!dir[0])
        snprintf(dir, sizeof dir, "/");
    if (tb_mkdirs(dir, err) < 0)
        return -1;
    snprintf(work, sizeof work, "%s/.teebench-image.XXXXXX", dir);
    if (!mkdtemp(work))
        return tb_errno(err, "making a work directory in %s", dir);
    snprintf(hook, sizeof hook, "%s/hook.sh", work);
    snprintf(log, sizeof log, "%s/build.log", work);
    snprintf(img, sizeof img, "%s/disk.qcow2", work);
    snprintf(tmp, sizeof tmp, "TMPDIR=%s", work); /* the tree lives in the work dir */
    tb_buf script = {0};
    char **argv = NULL;
    int rc = tb_vm_image_script(r, work, &script, err);
    if (rc == 0)
        rc = tb_file_write_atomic_mode(hook, script.p, script.len, 0700, err);
    tb_buf_clear(&script);
    if (rc == 0 && !(argv = tb_vm_image_argv(r, hook, err)))
        rc = -1;
    if (rc == 0) {
        char *env[] = {tmp, NULL};
        tb_proc_opts o = {.argv = argv, .env_set = env, .stdout_path = log, .stderr_path = NULL};
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0) {
            rc = tb_errno(err, "%s", log);
        } else {
            o.stdout_fd = o.stderr_fd = fd;
            tb_proc_result pr;
            rc = tb_proc_run(&o, 3600 * 1000, stop, &pr, err);
            close(fd);
            char line[300];
            last_log_line(log, line, sizeof line);
            if (rc == 0 && pr.cancelled)
                rc = tb_errf(err, "interrupted");
            else if (rc == 0 && pr.exit_code != 0)
                rc = tb_errf(err, "mmdebstrap exited with %d%s (log: %s): %s", pr.exit_code,
                             pr.timed_out ? " after an hour" : "", log, line);
            else if (rc == 0 && access(img, R_OK) != 0)
                rc = tb_errf(err, "mmdebstrap succeeded but made no disk (log: %s): %s", log, line);
        }
    }
    tb_vm_argv_free(argv);
    if (rc == 0 && rename(img, r->output) < 0)
        rc = tb_errno(err, "renaming the image to %s", r->output);
    /* what the hook may have left: the images, the script, the tree's temporary files */
    static const char *const junk[] = {"esp.img", "root.img",    "disk.raw",   "disk.qcow2",
                                       "hook.sh", "loader.conf", "entry.conf", NULL};
    for (int i = 0; junk[i]; i++) {
        char f[1300];
        snprintf(f, sizeof f, "%s/%s", work, junk[i]);
        unlink(f);
    }
    if (rc == 0) {
        unlink(log);
        rmdir(work);
    } else if (log_len) {
        snprintf(log_path, log_len, "%s", log);
    }
    return rc;
}
