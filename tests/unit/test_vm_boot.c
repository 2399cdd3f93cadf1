/* Unit tests for src/vm/boot: the probe's output parsed -- a real one from the
 * TCG test guest (Debian's cloud kernel 6.1, busybox initramfs, no systemd:
 * tests/data/vm/boot/tcg-initramfs.txt), systemd-analyze's lines (finished, with
 * and without firmware/loader/initrd, not yet finished), hostile bytes -- the
 * spans systemd prints, and the phases: consecutive, summing to the total, or
 * unknown with the reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/file.h"
#include "vm/boot.h"

#define S 1000000000LL

static void parse_str(const char *t, tb_vm_boot_guest *g, int want)
{
    assert_int_equal(tb_vm_boot_parse(t, strlen(t), g), want);
}

static int64_t sum(const tb_vm_boot_phases *p)
{
    int64_t s = 0;
    for (int i = 0; i < TB_VM_BOOT_NPHASES; i++)
        s += p->ns[i] > 0 ? p->ns[i] : 0;
    return s;
}

static void test_timespan(void **state)
{
    (void)state;
    assert_float_equal(tb_vm_boot_timespan("2.643s", 6), 2.643, 1e-9);
    assert_float_equal(tb_vm_boot_timespan("845ms", 5), 0.845, 1e-9);
    assert_float_equal(tb_vm_boot_timespan("1min13.233s", 11), 73.233, 1e-9);
    assert_float_equal(tb_vm_boot_timespan("1min 2.5s", 9), 62.5, 1e-9);
    assert_float_equal(tb_vm_boot_timespan("1h 2min 3s", 10), 3723, 1e-9);
    assert_float_equal(tb_vm_boot_timespan("120us", 5), 120e-6, 1e-12);
    assert_float_equal(tb_vm_boot_timespan("7\xce\xbcs", 4), 7e-6, 1e-12);
    assert_true(tb_vm_boot_timespan("", 0) < 0);
    assert_true(tb_vm_boot_timespan("s", 1) < 0);
    assert_true(tb_vm_boot_timespan("12", 2) < 0); /* no unit */
    assert_true(tb_vm_boot_timespan("12 years", 8) < 0);
    assert_true(tb_vm_boot_timespan("3.2s x", 6) < 0); /* trailing junk */
}

static void test_real_tcg_guest(void **state)
{
    (void)state;
    tb_buf b = {0};
    tb_err e;
    assert_int_equal(
        tb_file_read(TEEBENCH_SOURCE_DIR "/tests/data/vm/boot/tcg-initramfs.txt", 1 << 16, &b, &e),
        0);
    tb_vm_boot_guest g;
    assert_int_equal(tb_vm_boot_parse((const char *)b.p, b.len, &g), 1);
    tb_buf_clear(&b);
    assert_float_equal(g.uptime_s, 5.79, 1e-9);
    assert_float_equal(g.init_s, 5.300439, 1e-9); /* the Run line, not the Freeing ones */
    assert_string_equal(g.init_line, "Run /init as init process");
    assert_int_equal(g.analyze, 0); /* "sh: systemd-analyze: not found" */
    assert_int_equal(g.analyze_pending, 0);

    tb_vm_boot_phases p;
    tb_vm_boot_phases_make(60 * S, 60 * S, &g, &p); /* login and probe: 60 s after QEMU's start */
    assert_int_equal(p.ns[TB_VM_BOOT_FIRMWARE], 60 * S - 5790000000LL);
    assert_int_equal(p.ns[TB_VM_BOOT_KERNEL], 5300439000LL);
    assert_int_equal(p.ns[TB_VM_BOOT_USERSPACE], 5790000000LL - 5300439000LL);
    assert_int_equal(p.ns[TB_VM_BOOT_SSH], -1); /* no systemd: userspace ends at the login */
    assert_int_equal(sum(&p), 60 * S);
    assert_non_null(strstr(p.note, "no systemd-analyze"));

    /* the probe ran 0.3 s after the first login: the uptime counts back to the login */
    tb_vm_boot_phases_make(60 * S - 300000000LL, 60 * S, &g, &p);
    assert_int_equal(p.ns[TB_VM_BOOT_FIRMWARE], 60 * S - 5790000000LL);
    assert_int_equal(p.ns[TB_VM_BOOT_USERSPACE], 5790000000LL - 300000000LL - 5300439000LL);
    assert_int_equal(sum(&p), 60 * S - 300000000LL);
    /* a probe that claims to end before the login: nothing split */
    tb_vm_boot_phases_make(60 * S, 59 * S, &g, &p);
    assert_int_equal(p.ns[TB_VM_BOOT_FIRMWARE], -1);
}

static void test_systemd_guest(void **state)
{
    (void)state;
    tb_vm_boot_guest g;
    parse_str("teebench-boot: uptime\n"
              "21.50 30.01\n"
              "teebench-boot: klog\n"
              "[    1.902110] Freeing unused kernel image (initmem) memory: 3752K\n"
              "[    1.950001] Run /init as init process\n"
              "[    4.101000] Run /sbin/init as init process\n"
              "teebench-boot: analyze\n"
              "Startup finished in 53.921s (firmware) + 2.643s (loader) + 2.236s (kernel) + "
              "4.348s (initrd) + 10.082s (userspace) = 1min13.233s\n"
              "graphical.target reached after 10.071s in userspace\n",
              &g, 1);
    assert_float_equal(g.init_s, 1.950001, 1e-9); /* the initramfs's /init came first */
    assert_int_equal(g.analyze, 1);
    assert_float_equal(g.an_firmware, 53.921, 1e-9);
    assert_float_equal(g.an_loader, 2.643, 1e-9);
    assert_float_equal(g.an_kernel, 2.236, 1e-9);
    assert_float_equal(g.an_initrd, 4.348, 1e-9);
    assert_float_equal(g.an_userspace, 10.082, 1e-9);
    tb_vm_boot_phases p;
    tb_vm_boot_phases_make(30 * S, 30 * S, &g, &p);
    assert_int_equal(p.ns[TB_VM_BOOT_FIRMWARE], 30 * S - 21500000000LL);
    assert_int_equal(p.ns[TB_VM_BOOT_KERNEL], 1950001000LL);
    assert_int_equal(p.ns[TB_VM_BOOT_USERSPACE], 14430000000LL); /* initrd + userspace */
    assert_int_equal(p.ns[TB_VM_BOOT_SSH], 21500000000LL - 1950001000LL - 14430000000LL);
    assert_int_equal(sum(&p), 30 * S);
    assert_non_null(strstr(p.note, "systemd-analyze"));
}

static void test_not_finished_and_late_target(void **state)
{
    (void)state;
    tb_vm_boot_guest g;
    parse_str("teebench-boot: uptime\n9.00 1.0\nteebench-boot: klog\n"
              "[    0.800000] Run /sbin/init as init process\n"
              "teebench-boot: analyze\n"
              "Bootup is not yet finished (org.freedesktop.systemd1.Manager."
              "FinishTimestampMonotonic=0).\nPlease try again later.\n",
              &g, 1);
    assert_int_equal(g.analyze, 0);
    assert_int_equal(g.analyze_pending, 1);
    tb_vm_boot_phases p;
    tb_vm_boot_phases_make(12 * S, 12 * S, &g, &p);
    assert_int_equal(p.ns[TB_VM_BOOT_USERSPACE], 8200000000LL);
    assert_int_equal(p.ns[TB_VM_BOOT_SSH], -1);
    assert_int_equal(sum(&p), 12 * S);
    assert_non_null(strstr(p.note, "not reached at the login"));

    /* the target reached after the login (finished by the time the probe ran is
       impossible, but a guest's clock may say so): userspace ends at the login */
    parse_str("teebench-boot: uptime\n9.00\nteebench-boot: klog\n"
              "[    0.800000] Run /sbin/init as init process\n"
              "teebench-boot: analyze\n"
              "Startup finished in 0.700s (kernel) + 20.0s (userspace) = 20.7s\n",
              &g, 1);
    tb_vm_boot_phases_make(12 * S, 12 * S, &g, &p);
    assert_int_equal(p.ns[TB_VM_BOOT_USERSPACE], 8200000000LL);
    assert_int_equal(sum(&p), 12 * S);
    assert_non_null(strstr(p.note, "came after the login"));
}

static void test_unknown_phases(void **state)
{
    (void)state;
    tb_vm_boot_guest g;
    tb_vm_boot_phases p;
    /* no uptime at all: nothing split */
    parse_str("sh: cat: not found\n", &g, 0);
    tb_vm_boot_phases_make(10 * S, 10 * S, &g, &p);
    for (int i = 0; i < TB_VM_BOOT_NPHASES; i++)
        assert_int_equal(p.ns[i], -1);
    assert_non_null(strstr(p.note, "no /proc/uptime"));
    /* an uptime longer than the boot (a guest that was not just started) */
    parse_str("teebench-boot: uptime\n500.0 1\n", &g, 1);
    tb_vm_boot_phases_make(10 * S, 10 * S, &g, &p);
    assert_int_equal(p.ns[TB_VM_BOOT_FIRMWARE], -1);
    assert_non_null(strstr(p.note, "does not fit"));
    /* an uptime of 15 digits (fuzz_vm_boot: the subtraction overflowed): does not fit */
    parse_str("teebench-boot: uptime\n999999999999999.9 0\n", &g, 1);
    tb_vm_boot_phases_make(10 * S, 12 * S, &g, &p);
    assert_int_equal(p.ns[TB_VM_BOOT_FIRMWARE], -1);
    assert_non_null(strstr(p.note, "does not fit"));
    /* a first-process time and a systemd userspace just as large: unknown, no overflow */
    parse_str("teebench-boot: uptime\n4.0 1\nteebench-boot: klog\n"
              "[999999999999999.9] Run /init as init process\n",
              &g, 1);
    tb_vm_boot_phases_make(10 * S, 10 * S, &g, &p);
    assert_int_equal(p.ns[TB_VM_BOOT_KERNEL], -1);
    /* dmesg refused (no root, no sudo) and no systemd: the firmware phase only */
    parse_str("teebench-boot: uptime\n4.0 1\nteebench-boot: klog\nteebench-boot: analyze\n", &g, 1);
    tb_vm_boot_phases_make(10 * S, 10 * S, &g, &p);
    assert_int_equal(p.ns[TB_VM_BOOT_FIRMWARE], 6 * S);
    assert_int_equal(p.ns[TB_VM_BOOT_KERNEL], -1);
    assert_int_equal(p.ns[TB_VM_BOOT_USERSPACE], -1);
    assert_non_null(strstr(p.note, "unknown"));
    /* an old kernel: the last "Freeing unused kernel" line stands in for the Run line */
    parse_str("teebench-boot: uptime\n4.0 1\nteebench-boot: klog\n"
              "[    1.000000] Freeing unused kernel memory: 1000K\n"
              "[    1.200000] Freeing unused kernel image (text/rodata gap) memory: 2040K\n",
              &g, 1);
    assert_float_equal(g.init_s, 1.2, 1e-9);
}

static void test_hostile(void **state)
{
    (void)state;
    tb_vm_boot_guest g;
    /* sections repeated, lines without stamps, a stamp without its bracket, numbers
       too long, a label with no close, control bytes in the init line */
    parse_str("teebench-boot: uptime\nabc\n99999999999999999999.5\n"
              "teebench-boot: klog\n[ 1.5 Run /x as init process\n[  x] Run /y as init process\n"
              "[    2.0] Run /\x01\x7f as init process\n"
              "teebench-boot: analyze\nStartup finished in 1.0s (kernel + 2s (userspace\n"
              "teebench-boot: uptime\n3.25 0\n",
              &g, 1);
    assert_float_equal(g.uptime_s, 3.25, 1e-9); /* the only whole number */
    assert_float_equal(g.init_s, 2.0, 1e-9);
    assert_string_equal(g.init_line, "Run /?? as init process");
    assert_int_equal(g.analyze, 0);
    /* not NUL-terminated: the parser stays within len */
    char raw[] = {'t', 'e', 'e', 'b', 'e', 'n', 'c', 'h', '-',  'b', 'o', 'o', 't',
                  ':', ' ', 'u', 'p', 't', 'i', 'm', 'e', '\n', '7', '.', '5'};
    assert_int_equal(tb_vm_boot_parse(raw, sizeof raw, &g), 1);
    assert_float_equal(g.uptime_s, 7.5, 1e-9);
    assert_int_equal(tb_vm_boot_parse(raw, 0, &g), 0);
}

static void test_probe_cmd(void **state)
{
    (void)state;
    const char *c = tb_vm_boot_probe_cmd();
    assert_non_null(strstr(c, "cat /proc/uptime"));
    assert_non_null(strstr(c, "sudo -n dmesg"));
    assert_non_null(strstr(c, "systemd-analyze time"));
    assert_non_null(strstr(c, "exit 0")); /* a login that works always succeeds */
    assert_string_equal(tb_vm_boot_phase_name(TB_VM_BOOT_SSH), "ssh");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timespan),       cmocka_unit_test(test_real_tcg_guest),
        cmocka_unit_test(test_systemd_guest),  cmocka_unit_test(test_not_finished_and_late_target),
        cmocka_unit_test(test_unknown_phases), cmocka_unit_test(test_hostile),
        cmocka_unit_test(test_probe_cmd),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
