/* Unit tests for src/vm/image's pure parts: the suites it knows, the package list
 * (stock or with teebench's libraries, extra packages checked), mmdebstrap's argv
 * (mirrors with updates and security, the keyring of Ubuntu's archive, the apt
 * cache hooks, bad mirrors refused), the hook script (quoted values, the steps of
 * the disk), the default path, and the build's refusals that need no network. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vm/image.h"
#include "vm/vm.h"

static int has_arg(char **argv, const char *want)
{
    for (char **a = argv; *a; a++)
        if (!strcmp(*a, want))
            return 1;
    return 0;
}

static void test_distros(void **state)
{
    (void)state;
    const tb_vm_distro *d = tb_vm_distro_find("bookworm");
    assert_non_null(d);
    assert_string_equal(d->vendor, "debian");
    assert_string_equal(d->kernel, "linux-image-cloud-amd64");
    assert_true(d->merged_usr_hook);
    d = tb_vm_distro_find("noble");
    assert_non_null(d);
    assert_string_equal(d->vendor, "ubuntu");
    assert_non_null(d->keyring);
    assert_null(tb_vm_distro_find("jammy"));
    assert_null(tb_vm_distro_find(NULL));
    assert_non_null(strstr(tb_vm_distro_names(), "questing"));
}

static void test_packages(void **state)
{
    (void)state;
    const tb_vm_distro *d = tb_vm_distro_find("bookworm");
    tb_vm_image_recipe r = {.suite = "bookworm"};
    tb_buf b = {0};
    tb_err e;
    assert_int_equal(tb_vm_image_packages(&r, d, &b, &e), 0);
    assert_string_equal((const char *)b.p,
                        "linux-image-cloud-amd64,systemd-sysv,udev,dbus,ifupdown,openssh-server,"
                        "cloud-init,nginx,systemd-boot-efi,libjansson4,libsqlite3-0,"
                        "liblua5.4-0,zlib1g");
    b.len = 0;
    r.stock = 1;
    r.extra = "libjansson4,liblua5.4-0";
    assert_int_equal(tb_vm_image_packages(&r, d, &b, &e), 0);
    assert_string_equal((const char *)b.p,
                        "linux-image-cloud-amd64,systemd-sysv,udev,dbus,ifupdown,openssh-server,"
                        "cloud-init,nginx,systemd-boot-efi,libjansson4,liblua5.4-0");
    const char *bad[] = {"a b", "x,,y", "-x", "x;rm", "X", NULL};
    for (int i = 0; bad[i]; i++) {
        r.extra = bad[i];
        b.len = 0;
        assert_int_equal(tb_vm_image_packages(&r, d, &b, &e), -1);
    }
    tb_buf_clear(&b);
}

static void test_argv(void **state)
{
    (void)state;
    tb_err e;
    tb_vm_image_recipe r = {.suite = "bookworm", .output = "/x/o.qcow2"};
    char **a = tb_vm_image_argv(&r, "/w/hook.sh", &e);
    assert_non_null(a);
    assert_string_equal(a[0], "mmdebstrap");
    assert_true(has_arg(a, "--mode=root") && has_arg(a, "--format=null"));
    assert_true(has_arg(a, "--variant=apt"));
    assert_true(has_arg(a, "--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr"));
    assert_true(has_arg(a, "--customize-hook=sh /w/hook.sh \"$1\""));
    assert_true(has_arg(a, "bookworm") && has_arg(a, "/dev/null"));
    assert_true(has_arg(a, "deb http://deb.debian.org/debian bookworm main"));
    assert_true(has_arg(a, "deb http://deb.debian.org/debian bookworm-updates main"));
    assert_true(has_arg(a, "deb http://deb.debian.org/debian-security bookworm-security main"));
    assert_false(has_arg(a, "--skip=download/empty"));
    tb_vm_argv_free(a);
    /* another mirror: no guess at its security archive */
    r.mirror = "http://mirror.example/debian/";
    r.apt_cache = "/c a'che";
    a = tb_vm_image_argv(&r, "/w/hook.sh", &e);
    assert_non_null(a);
    assert_true(has_arg(a, "deb http://mirror.example/debian/ bookworm main"));
    for (char **p = a; *p; p++)
        assert_null(strstr(*p, "-security"));
    assert_true(has_arg(a, "--skip=download/empty"));
    int cache_hooks = 0;
    for (char **p = a; *p; p++)
        cache_hooks += strstr(*p, "'/c a'\\''che'") != NULL;
    assert_int_equal(cache_hooks, 2); /* the setup hook fills, a customize hook keeps */
    tb_vm_argv_free(a);
    /* Ubuntu: its keyring, universe, security on the same archive */
    tb_vm_image_recipe u = {.suite = "noble"};
    a = tb_vm_image_argv(&u, "/w/hook.sh", &e);
    assert_non_null(a);
    assert_true(has_arg(a, "deb [signed-by=/usr/share/keyrings/ubuntu-archive-keyring.gpg] "
                           "http://archive.ubuntu.com/ubuntu noble-security main universe"));
    assert_false(has_arg(a, "--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr"));
    tb_vm_argv_free(a);
    /* refused */
    tb_vm_image_recipe bad = {.suite = "hamm"};
    assert_null(tb_vm_image_argv(&bad, "/w/h", &e));
    assert_non_null(strstr(e.msg, "not a suite"));
    const char *mirrors[] = {"ftp://x/debian", "http://x/a b", "http://x/'", "deb.debian.org",
                             NULL};
    for (int i = 0; mirrors[i]; i++) {
        tb_vm_image_recipe m = {.suite = "bookworm", .mirror = mirrors[i]};
        assert_null(tb_vm_image_argv(&m, "/w/h", &e));
    }
}

static void test_script(void **state)
{
    (void)state;
    tb_err e;
    tb_buf s = {0};
    tb_vm_image_recipe r = {.suite = "bookworm",
                            .teebench = "/opt/tee'bench",
                            .authorized_key = "/k.pub",
                            .size = 2ull << 30};
    assert_int_equal(tb_vm_image_script(&r, "/w/it's", &s, &e), 0);
    const char *t = (const char *)s.p;
    assert_true(!strncmp(t, "#!/bin/sh\n", 10));
    assert_non_null(strstr(t, "\nset -eu\n"));
    assert_non_null(strstr(t, "\nW='/w/it'\\''s'\n"));
    assert_non_null(strstr(t, "\nBIN='/opt/tee'\\''bench'\n"));
    assert_non_null(strstr(t, "\nKEY='/k.pub'\n"));
    assert_non_null(strstr(t, "\nDISK_MIB=2048\nESP_MIB=256\n"));
    assert_non_null(strstr(t, "systemctl disable nginx.service"));
    assert_non_null(strstr(t, "mkfs.ext4 -q -L \"$LABEL\" -d \"$W/tree\""));
    assert_non_null(strstr(t, "mount --bind \"$R\" \"$W/tree\""));
    assert_non_null(strstr(t, "::/EFI/BOOT/BOOTX64.EFI"));
    assert_non_null(strstr(t, "root=LABEL=%s ro console=ttyS0"));
    assert_non_null(strstr(t, "label: gpt"));
    assert_non_null(strstr(t, "qemu-img convert -f raw -O qcow2"));
    /* stock: no teebench, no key, whatever the recipe says */
    s.len = 0;
    r.stock = 1;
    assert_int_equal(tb_vm_image_script(&r, "/w", &s, &e), 0);
    assert_non_null(strstr((const char *)s.p, "\nBIN=''\nKEY=''\n"));
    /* a disk too small for the ESP and a root, or not whole MiB */
    r.size = 512ull << 20;
    assert_int_equal(tb_vm_image_script(&r, "/w", &s, &e), -1);
    r.size = (4ull << 30) + 1;
    assert_int_equal(tb_vm_image_script(&r, "/w", &s, &e), -1);
    tb_buf_clear(&s);
}

static void test_default_path(void **state)
{
    (void)state;
    char p[512];
    tb_err e;
    setenv("XDG_DATA_HOME", "/d", 1);
    assert_int_equal(tb_vm_image_default_path("bookworm", 0, p, sizeof p, &e), 0);
    assert_string_equal(p, "/d/teebench/images/bookworm.qcow2");
    assert_int_equal(tb_vm_image_default_path("noble", 1, p, sizeof p, &e), 0);
    assert_string_equal(p, "/d/teebench/images/noble-stock.qcow2");
    setenv("XDG_DATA_HOME", "relative", 1);
    setenv("HOME", "/h", 1);
    assert_int_equal(tb_vm_image_default_path(NULL, 0, p, sizeof p, &e), 0);
    assert_string_equal(p, "/h/.local/share/teebench/images/bookworm.qcow2");
    unsetenv("XDG_DATA_HOME");
    unsetenv("HOME");
    assert_int_equal(tb_vm_image_default_path(NULL, 0, p, sizeof p, &e), -1);
}

static void test_build_refusals(void **state)
{
    (void)state;
    tb_err e;
    char log[256];
    tb_vm_image_recipe r = {.suite = "bookworm", .output = "/nonexistent/x.qcow2"};
    if (geteuid() != 0) {
        assert_int_equal(tb_vm_image_build(&r, NULL, log, sizeof log, &e), -1);
        assert_non_null(strstr(e.msg, "needs root"));
        return;
    }
    /* as root: tools missing from PATH are named with their packages */
    const char *path = getenv("PATH");
    char *saved = path ? strdup(path) : NULL;
    setenv("PATH", "/nonexistent", 1);
    assert_int_equal(tb_vm_image_build(&r, NULL, log, sizeof log, &e), -1);
    assert_non_null(strstr(e.msg, "mmdebstrap (mmdebstrap)"));
    assert_non_null(strstr(e.msg, "mkfs.vfat (dosfstools)"));
    assert_non_null(strstr(e.msg, "qemu-img (qemu-utils)"));
    if (saved)
        setenv("PATH", saved, 1);
    free(saved);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distros),      cmocka_unit_test(test_packages),
        cmocka_unit_test(test_argv),         cmocka_unit_test(test_script),
        cmocka_unit_test(test_default_path), cmocka_unit_test(test_build_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
