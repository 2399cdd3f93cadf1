/* vm/boot: a VM's boot time split into its phases -- what the guest says of its
 * own start, read once at the first SSH login, laid against the host's clock.
 *
 * Right after the first login (`ssh true`, which decides that the VM has booted)
 * teebench runs tb_vm_boot_probe_cmd() over a second login: the guest's /proc/uptime, the kernel
 * log's lines about the first userspace process
 * ("Run /init as init process", Linux >= 5.7; "Freeing unused kernel image" just
 * before it on older kernels) and `systemd-analyze time` where systemd runs. From
 * that and the host's times of the first login's end and the probe's end (both from
 * QEMU's start):
 *   firmware  = probe end - uptime: QEMU's start, firmware, boot loader and the
 *               kernel's decompression, up to the kernel's clock starting. An upper
 *               bound: the guest read its uptime a little before the probe's ssh
 *               returned (milliseconds under KVM);
 *   kernel    = the kernel's timestamp of the first userspace process (the
 *               initramfs's /init, or /sbin/init), else systemd-analyze's kernel;
 *   userspace = systemd-analyze's initrd + userspace (to the boot target), when it
 *               finished before the login; else from the first process to the
 *               login (the phase then ends at the login and ssh is absent);
 *   ssh       = what remains to the first SSH login (sshd's start, the key,
 *               the login itself).
 * The phases are consecutive and sum to the total exactly; one the guest did not
 * tell is absent (-1), never guessed, and then so are those after it, except
 * that userspace absorbs ssh as said. Everything here is pure. */
#ifndef TB_VM_BOOT_H
#define TB_VM_BOOT_H

#include <stddef.h>
#include <stdint.h>

/* What the guest said (values in seconds; < 0: not said). */
typedef struct tb_vm_boot_guest {
    double uptime_s;     /* /proc/uptime's first field */
    double init_s;       /* the kernel's timestamp of its first userspace process */
    char init_line[120]; /* the line it came from ("Run /init as init process") */
    int analyze;         /* 1: systemd-analyze said "Startup finished in ..." */
    int analyze_pending; /* 1: it said the boot is not yet finished */
    double an_firmware, an_loader, an_kernel, an_initrd, an_userspace;
} tb_vm_boot_guest;

/* The shell command the first login runs (POSIX sh; busybox will do). Its output:
   sections headed "teebench-boot: uptime", ": klog" and ": analyze"; it always
   exits 0. */
const char *tb_vm_boot_probe_cmd(void);

/* Parses the probe's output (untrusted bytes: fuzz_vm_boot). Fields it does not
   find stay < 0 / 0. Returns 1 when the uptime was found, else 0. */
int tb_vm_boot_parse(const char *text, size_t len, tb_vm_boot_guest *g);

/* "1min 13.233s", "845ms", "2.643s", "120us", "1h 2min 3.5s": seconds, or < 0. */
double tb_vm_boot_timespan(const char *text, size_t len);

enum {
    TB_VM_BOOT_FIRMWARE,
    TB_VM_BOOT_KERNEL,
    TB_VM_BOOT_USERSPACE,
    TB_VM_BOOT_SSH,
    TB_VM_BOOT_NPHASES
};

typedef struct tb_vm_boot_phases {
    int64_t ns[TB_VM_BOOT_NPHASES]; /* -1: not known */
    char note[240];                 /* how they were split, or why not */
} tb_vm_boot_phases;

/* The phases of a boot whose first login ended total_ns after QEMU's start, and
   whose probe (g) ended probe_end_ns after it (>= total_ns). */
void tb_vm_boot_phases_make(uint64_t total_ns, uint64_t probe_end_ns, const tb_vm_boot_guest *g,
                            tb_vm_boot_phases *out);

/* "firmware", "kernel", "userspace", "ssh". */
const char *tb_vm_boot_phase_name(int phase);

#endif
