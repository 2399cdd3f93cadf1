/* vm/cmdline: the QEMU command line of a spec, every option with the reason it
 * is there. Pure (no file or host access), so tests compare the three kinds
 * option by option and golden files pin the text.
 *
 * One builder for all kinds: the TEE's options are added by one branch per
 * kind and marked tee = 1; nothing else looks at the kind. Under TCG (regular
 * only) the CPU model is "max" instead of "host" and the accelerator "tcg";
 * everything else stays. Paths inside QemuOpts values (-drive, -chardev,
 * -fw_cfg, -qmp) have ',' doubled, QEMU's escape. */
#include "vm/vm.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/argv.h"
#include "base/buf.h"

#define REASON_TDX_DOC "QEMU docs/system/i386/tdx.rst"
#define REASON_SEV_DOC "QEMU docs/system/i386/amd-memory-encryption.rst"

static tb_vm_opt *add_opt(tb_vm_cmd *c, const char *flag, const char *reason, int tee)
{
    if (c->nopts == c->cap) {
        int cap = c->cap ? c->cap * 2 : 32;
        tb_vm_opt *o = realloc(c->opts, (size_t)cap * sizeof *o);
        if (!o)
            return NULL;
        c->opts = o;
        c->cap = cap;
    }
    tb_vm_opt *o = &c->opts[c->nopts++];
    memset(o, 0, sizeof *o);
    o->flag = flag;
    o->reason = reason;
    o->tee = tee;
    return o;
}

/* Adds a property (printf-formatted text). Returns -1 when out of memory or
   when an option has more than 8 properties (a bug here, not bad input). */
__attribute__((format(printf, 4, 5))) static int prop(tb_vm_opt *o, int tee, const char *reason,
                                                      const char *fmt, ...)
{
    if (!o || o->nprops >= (int)(sizeof o->props / sizeof o->props[0]))
        return -1;
    va_list ap;
    va_start(ap, fmt);
    char *t = NULL;
    int n = vasprintf(&t, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    o->props[o->nprops].text = t;
    o->props[o->nprops].reason = reason;
    o->props[o->nprops].tee = tee;
    o->nprops++;
    return 0;
}

/* The two properties of every virtio device, for every kind: modern virtio only and
   VIRTIO_F_ACCESS_PLATFORM, which QEMU forces on confidential guests -- set for every
   kind so that the devices match. explain: the full reasons (the disk and the NIC);
   else the reasons refer to those. */
static int virtio_platform(tb_vm_opt *o, int explain)
{
    int rc = prop(o, 0,
                  explain ? "modern virtio only: QEMU forces it on confidential guests "
                            "(hw/core/machine.c); set for every kind so the devices match"
                          : "modern virtio only, as the other devices",
                  "disable-legacy=on");
    rc |= prop(o, 0,
               explain ? "VIRTIO_F_ACCESS_PLATFORM: the guest driver uses the DMA API (bounce "
                         "buffers in shared memory in a TD or SNP guest); QEMU forces it on "
                         "confidential guests, set for every kind"
                       : "DMA API in the guest, as the other devices",
               "iommu_platform=on");
    return rc;
}

/* QEMU's QemuOpts escape: ',' inside a value is written ",,". Caller frees. */
static char *qemu_escape(const char *s)
{
    size_t n = strlen(s), commas = 0;
    for (size_t i = 0; i < n; i++)
        commas += s[i] == ',';
    char *o = malloc(n + commas + 1);
    if (!o)
        return NULL;
    char *w = o;
    for (size_t i = 0; i < n; i++) {
        *w++ = s[i];
        if (s[i] == ',')
            *w++ = ',';
    }
    *w = 0;
    return o;
}

/* A prop whose text is "<key>=<escaped path>". */
static int prop_path(tb_vm_opt *o, const char *reason, const char *key, const char *path)
{
    char *e = qemu_escape(path);
    if (!e)
        return -1;
    int rc = prop(o, 0, reason, "%s=%s", key, e);
    free(e);
    return rc;
}

void tb_vm_cmd_free(tb_vm_cmd *c)
{
    for (int i = 0; i < c->nopts; i++)
        for (int j = 0; j < c->opts[i].nprops; j++)
            free(c->opts[i].props[j].text);
    free(c->opts);
    free(c->qemu);
    memset(c, 0, sizeof *c);
}

static int add_basics(tb_vm_cmd *c, const tb_vm_spec *s, const tb_vm_plan *p)
{
    tb_vm_opt *o = add_opt(c, "-name", NULL, 0);
    int rc = prop(o, 0, "the VM's name in ps, QMP and logs", "%s", s->name);
    rc |= prop(o, 0,
               "names QEMU's threads ('CPU 0/KVM', 'CPU 0/TCG'), so pinning and profiles tell "
               "vCPU threads from I/O threads",
               "debug-threads=on");
    rc |= !add_opt(c, "-nodefaults",
                   "no default devices (VGA, NIC, CD-ROM, ...): every device is on this line", 0);
    rc |=
        !add_opt(c, "-no-user-config",
                 "no configuration files from /etc/qemu: this line is the whole configuration", 0);
    o = add_opt(c, "-display", NULL, 0);
    rc |= prop(o, 0, "no display: the console is the serial log", "none");
    o = add_opt(c, "-accel", NULL, 0);
    if (p->tcg)
        rc |= prop(o, 0,
                   "FALLBACK: KVM is not usable here, so QEMU emulates every instruction (TCG); "
                   "no performance figure from this guest means anything",
                   "tcg");
    else
        rc |= prop(o, 0,
                   "hardware virtualization; TDs and SNP guests exist only under KVM "
                   "(" REASON_TDX_DOC ": -accel kvm), so every kind uses it",
                   "kvm");
    return rc;
}

static int add_machine(tb_vm_cmd *c, const tb_vm_spec *s, const tb_vm_plan *p)
{
    tb_vm_opt *o = add_opt(c, "-machine", NULL, 0);
    int rc = prop(o, 0,
                  "the same PCIe machine for every kind; TDX and SNP guests run on q35 (the "
                  "machine of QEMU's TDX and SNP examples)",
                  "q35");
    rc |= prop(o, 0,
               p->tcg ? "ignored under TCG; kept so the line stays that of the KVM kinds"
                      : "a TD requires it (" REASON_TDX_DOC
                        ", Restrictions: 'kernel-irqchip must be split'); the regular VM and "
                        "the SNP guest use it too, so interrupts take the same path (local "
                        "APIC in KVM, IOAPIC and PIC in QEMU)",
               "kernel-irqchip=split");
    rc |= prop(o, 0,
               "no HPET, as in the TD launch scripts (canonical/tdx's run_td and others); off "
               "for every kind, so no guest has a timer device the others lack",
               "hpet=off");
    rc |= prop(o, 0,
               "TDX and SEV-ES/SNP have no SMM (" REASON_TDX_DOC " and " REASON_SEV_DOC
               ", Restrictions); off for every kind",
               "smm=off");
    rc |=
        prop(o, 0, "guest RAM comes from the memory-backend object ram0 (the same for every kind)",
             "memory-backend=ram0");
    if (s->kind == TB_VM_TDX)
        rc |= prop(o, 1,
                   "binds the tdx-guest object tdx0: this is what makes the VM a TD "
                   "(" REASON_TDX_DOC ")",
                   "confidential-guest-support=tdx0");
    else if (s->kind == TB_VM_SNP)
        rc |= prop(o, 1,
                   "binds the sev-snp-guest object sev0: this is what makes the VM an SNP guest "
                   "(" REASON_SEV_DOC ")",
                   "confidential-guest-support=sev0");
    return rc;
}

static const char *cpu_reason(const tb_vm_spec *s, const tb_vm_plan *p)
{
    if (s->cpu)
        return "--cpu: the CPU model, the same for every kind (an SEV-SNP guest's firmware "
               "validates the CPUID page QEMU builds from it: a model it accepts, e.g. EPYC-v4, "
               "where 'host' offers values it refuses)";
    if (p->tcg)
        return "'host' needs KVM; 'max' is TCG's nearest: every CPU feature TCG emulates";
    return "the host's CPU model: a TD uses -cpu host (" REASON_TDX_DOC
           "), so every kind does and all see the same CPUID features (--cpu to choose another)";
}

static const char *prealloc_reason(const tb_vm_spec *s)
{
    if (s->kind == TB_VM_REGULAR)
        return "--prealloc: every page of guest RAM is allocated before the guest starts, so "
               "first touches in a benchmark do not fault on the host";
    return "--prealloc: the backend's pages are allocated before the guest starts; a TD or an "
           "SEV-SNP guest uses them for shared memory only (its private pages come from KVM's "
           "guest_memfd as the guest accepts them, and QEMU discards a shared page once the "
           "guest converts it to private)";
}

static int add_cpu_mem(tb_vm_cmd *c, const tb_vm_spec *s, const tb_vm_plan *p)
{
    tb_vm_opt *o = add_opt(c, "-cpu", NULL, 0);
    int rc = prop(o, 0, cpu_reason(s, p), "%s", p->cpu ? p->cpu : p->tcg ? "max" : "host");
    rc |= prop(o, 0,
               "no virtual PMU: a TD has none unless its PERFMON attribute is set (" REASON_TDX_DOC
               ", TD attributes: bit 63, taken from pmu=) and KVM gives SEV-ES/SNP guests "
               "none; off for every kind, so perf counters are absent everywhere",
               "pmu=off");
    o = add_opt(c, "-smp", NULL, 0);
    rc |= prop(o, 0, "vCPUs (--cpus), the same for every kind", "%d", s->cpus);
    char size[32];
    tb_vm_size_text(s->memory, size, sizeof size);
    o = add_opt(c, "-m", NULL, 0);
    rc |= prop(o, 0, "guest memory (--memory), the same for every kind; equals the backend's size",
               "%s", size);
    o = add_opt(c, "-object", NULL, 0);
    rc |= prop(o, 0,
               "anonymous host memory for guest RAM, the backend of canonical/tdx's run_td and "
               "libvirt's TD template, and QEMU's default; every kind uses it. A TD's and an "
               "SEV-SNP guest's private memory comes from KVM's guest_memfd whatever the backend "
               "(QEMU makes one when confidential-guest-support requires it), their shared "
               "memory from here; the regular VM's RAM gets transparent huge pages as the "
               "host's THP setting gives anonymous memory (memory-backend-memfd would be shmem, "
               "which gets none by default)",
               "memory-backend-ram");
    rc |= prop(o, 0, "referenced by -machine memory-backend", "id=ram0");
    rc |= prop(o, 0, "the same size as -m", "size=%s", size);
    if (s->prealloc)
        rc |= prop(o, 0, prealloc_reason(s), "prealloc=on");
    return rc;
}

static int add_tdx(tb_vm_cmd *c, const tb_vm_plan *p)
{
    tb_vm_opt *o = add_opt(c, "-object", NULL, 1);
    if (p->tdx_qgs)
        return prop(o, 1,
                    "the TD (" REASON_TDX_DOC ": -object tdx-guest). JSON because "
                    "quote-generation-socket is a nested address: TDVMCALL GetQuote requests go "
                    "to the host's Quote Generation Service on vsock CID 2 (the host) port 4050, "
                    "its default. sept-ve-disable: Linux TD guests refuse to run without it "
                    "(QEMU's default, stated so it shows). Each property only when this QEMU's "
                    "tdx-guest lists it (QMP qom-list-properties)",
                    "{\"qom-type\":\"tdx-guest\",\"id\":\"tdx0\"%s,"
                    "\"quote-generation-socket\":{\"type\":\"vsock\",\"cid\":\"2\","
                    "\"port\":\"4050\"}}",
                    p->tdx_sept ? ",\"sept-ve-disable\":true" : "");
    int rc = prop(o, 1,
                  "the TD (" REASON_TDX_DOC ": -object tdx-guest); this QEMU's tdx-guest lists "
                  "no quote-generation-socket, so there is none",
                  "tdx-guest");
    rc |= prop(o, 1, "referenced by -machine confidential-guest-support", "id=tdx0");
    if (p->tdx_sept)
        rc |= prop(o, 1,
                   "Linux TD guests refuse to run without it (QEMU's default, stated so it shows)",
                   "sept-ve-disable=on");
    return rc;
}

static int add_tee(tb_vm_cmd *c, const tb_vm_spec *s, const tb_vm_plan *p)
{
    if (s->kind == TB_VM_TDX)
        return add_tdx(c, p);
    if (s->kind != TB_VM_SNP)
        return 0;
    tb_vm_opt *o = add_opt(c, "-object", NULL, 1);
    int rc = prop(o, 1, "the SEV-SNP guest (" REASON_SEV_DOC ": -object sev-snp-guest)",
                  "sev-snp-guest");
    rc |= prop(o, 1, "referenced by -machine confidential-guest-support", "id=sev0");
    const char *cb;
    if (p->cbit_placeholder)
        cb = "PLACEHOLDER (no CPUID 0x8000001F on the host making this line, no --cbitpos): "
             "the C-bit's position in page-table entries, EBX[5:0] of CPUID 0x8000001F";
    else if (s->cbitpos >= 0)
        cb = "the C-bit's position in page-table entries (--cbitpos); QEMU refuses a value "
             "other than the host's CPUID 0x8000001F EBX[5:0]";
    else
        cb = "the C-bit's position in page-table entries: the host's CPUID 0x8000001F EBX[5:0], "
             "the value QEMU checks it against";
    rc |= prop(o, 1, cb, "cbitpos=%d", p->cbitpos);
    rc |= prop(o, 1,
               s->reduced_phys_bits >= 0
                   ? "--reduced-phys-bits: the guest's physical address bits lost to encryption"
                   : "the guest's physical address bits lost to encryption: 1, whatever the "
                     "host's CPUID 0x8000001F EBX[11:6] says (5 or 6 on EPYC hosts: that is the "
                     "host's reduction); AMD APM vol. 2 15.34.6, QEMU's SNP examples, "
                     "kata-containers#5007",
               "reduced-phys-bits=%d", p->reduced_phys_bits);
    if (p->snp_policy)
        rc |= prop(o, 1,
                   "guest policy: bit 17 is reserved and must be 1, bit 16 allows SMT (QEMU's "
                   "default, stated so it shows; only when this QEMU's sev-snp-guest lists it)",
                   "policy=0x%x", (unsigned)s->snp_policy);
    return rc;
}

static int add_boot(tb_vm_cmd *c, const tb_vm_spec *s, const tb_vm_plan *p)
{
    int rc = 0;
    if (p->firmware[0]) {
        tb_vm_opt *o = add_opt(c, "-bios", NULL, 0);
        rc |= prop(o, 0,
                   "OVMF (UEFI) firmware, chosen by what the file carries (its GUIDed table: "
                   "TDVF metadata for a TD, SEV metadata for an SEV-SNP guest), among the "
                   "distributions' places unless --firmware. For a TD it is TDVF, loaded with "
                   "-bios because TDX has no read-only memory for a pflash device (" REASON_TDX_DOC
                   "); SNP guests boot OVMF with -bios too; the regular VM boots the same file, "
                   "so firmware is not a difference",
                   "%s", p->firmware);
    }
    if (s->kernel) {
        tb_vm_opt *o = add_opt(c, "-kernel", NULL, 0);
        rc |= prop(o, 0, "direct kernel boot (--kernel)", "%s", s->kernel);
        if (s->initrd) {
            o = add_opt(c, "-initrd", NULL, 0);
            rc |= prop(o, 0, "its initramfs (--initrd)", "%s", s->initrd);
        }
        o = add_opt(c, "-append", NULL, 0);
        if (o)
            o->sep = ' '; /* one kernel command line: its parameters are words */
        rc |= prop(o, 0,
                   "console=ttyS0 sends the kernel's console to the serial log; the rest is "
                   "--append",
                   "console=ttyS0%s%s", s->append && *s->append ? " " : "",
                   s->append ? s->append : "");
        char sw[64];
        tb_vm_swiotlb_param(s, sw, sizeof sw);
        if (sw[0])
            rc |= prop(
                o, 0,
                "regular-swiotlb: every DMA of the guest's drivers goes through a "
                "bounce buffer (swiotlb=<slabs of 2 KiB>,force; kernel/dma/swiotlb.c), as in a "
                "TD or SNP guest, whose pool is 6 % of its memory in [64 MiB, 1 GiB] "
                "(arch/x86/mm/mem_encrypt.c) -- the default here. The virtio devices "
                "already use the DMA API (iommu_platform=on, every kind), so this is "
                "the one difference from the regular VM",
                "%s", sw);
    }
    if (s->image) {
        tb_vm_opt *o = add_opt(c, "-drive", NULL, 0);
        rc |= prop_path(o, "the disk image (--image)", "file", s->image);
        rc |=
            prop(o, 0, "no default controller: the virtio-blk device below attaches it", "if=none");
        rc |= prop(o, 0, "referenced by the virtio-blk device", "id=disk0");
        if (s->image_format)
            rc |= prop(o, 0,
                       "the image's format, read from its first bytes (QEMU's own magics: "
                       "qcow2's QFI\\xfb, vmdk, vdi, vhdx, ...; raw otherwise), never from its "
                       "name: stated, so QEMU does not probe and restrict a raw image's block 0",
                       "format=%s", s->image_format);
        if (s->snapshot)
            rc |= prop(o, 0, "--snapshot: writes go to a temporary overlay, the image is kept",
                       "snapshot=on");
        o = add_opt(c, "-device", NULL, 0);
        rc |= prop(o, 0, "the same paravirtual disk for every kind", "virtio-blk-pci");
        rc |= prop(o, 0, "the -drive above", "drive=disk0");
        rc |= virtio_platform(o, 1);
    }
    return rc;
}

static int add_devices(tb_vm_cmd *c, const tb_vm_spec *s, const tb_vm_plan *p,
                       const tb_vm_paths *paths)
{
    tb_vm_opt *o = add_opt(c, "-netdev", NULL, 0);
    int rc =
        prop(o, 0, "user-mode networking: no root, no bridge; the same for every kind", "user");
    rc |= prop(o, 0, "referenced by the virtio-net device", "id=net0");
    rc |= prop(o, 0, "SSH: host 127.0.0.1:PORT (loopback only) to the guest's port 22",
               "hostfwd=tcp:127.0.0.1:%d-:22", s->ssh_port);
    o = add_opt(c, "-device", NULL, 0);
    rc |= prop(o, 0, "the same paravirtual NIC for every kind", "virtio-net-pci");
    rc |= prop(o, 0, "the -netdev above", "netdev=net0");
    rc |= virtio_platform(o, 1);
    rc |= prop(o, 0, "no network boot ROM: nothing boots from the network", "romfile=");
    if (p->vsock) {
        o = add_opt(c, "-device", NULL, 0);
        rc |= prop(o, 0, "host-guest sockets (vsock) for every kind, e.g. for an attestation agent",
                   "vhost-vsock-pci");
        unsigned cid = s->vsock_cid ? s->vsock_cid : (unsigned)s->ssh_port;
        rc |= prop(o, 0,
                   s->vsock_cid ? "the guest's vsock address (--cid)"
                                : "the guest's vsock address: the SSH port, unique on this host "
                                  "as the port is (--cid to choose)",
                   "guest-cid=%u", cid);
        rc |= virtio_platform(o, 0);
    }
    if (s->seed) {
        o = add_opt(c, "-drive", NULL, 0);
        int reboot = tb_vm_swiotlb_how(s) && !strcmp(tb_vm_swiotlb_how(s), "seed-reboot");
        rc |= prop_path(o,
                        reboot ? "the cloud-init NoCloud seed teebench wrote (an ISO 9660 volume "
                                 "labelled cidata: user-data authorizes the VM's public key for "
                                 "the SSH user, meta-data names the instance). regular-swiotlb "
                                 "from an image: its bootcmd adds the swiotlb=...,force "
                                 "parameter to the image's boot loader (update-grub, grubby or "
                                 "a systemd-boot entry, whichever the guest has) and reboots "
                                 "once, so this line has no -no-reboot (the reboot stays in "
                                 "this QEMU, whose snapshot overlay keeps the change)"
                               : "the cloud-init NoCloud seed teebench wrote (an ISO 9660 "
                                 "volume labelled cidata: user-data authorizes the VM's public "
                                 "key for the SSH user, meta-data names the instance): a stock "
                                 "cloud image's cloud-init reads it, other guests ignore it "
                                 "(--seed off leaves it out)",
                        "file", paths->seed);
        rc |=
            prop(o, 0, "no default controller: the virtio-blk device below attaches it", "if=none");
        rc |= prop(o, 0, "referenced by its virtio-blk device", "id=seed0");
        rc |= prop(o, 0, "an ISO 9660 image, written by teebench", "format=raw");
        rc |= prop(o, 0, "the guest only reads it", "readonly=on");
        o = add_opt(c, "-device", NULL, 0);
        rc |= prop(o, 0, "a paravirtual disk like the image's, for every kind", "virtio-blk-pci");
        rc |= prop(o, 0, "the seed's -drive above", "drive=seed0");
        rc |= virtio_platform(o, 0);
    }
    const char *key = s->ssh_key ? s->ssh_key : paths->key;
    char pub[1200];
    snprintf(pub, sizeof pub, "%s.pub", key);
    o = add_opt(c, "-fw_cfg", NULL, 0);
    rc |= prop(o, 0,
               "hands the guest the public half of the VM's SSH key: a guest that wants it reads "
               "/sys/firmware/qemu_fw_cfg/by_name/opt/teebench/authorized_keys/raw (teebench's "
               "test initramfs does); other guests ignore it (cloud-init reads the seed instead)",
               "name=opt/teebench/authorized_keys");
    rc |= prop_path(o, "the key's .pub file", "file", pub);
    o = add_opt(c, "-chardev", NULL, 0);
    rc |= prop(o, 0, "the guest's serial console goes to a file", "file");
    rc |= prop(o, 0, "referenced by -serial", "id=serial0");
    rc |= prop_path(o, "serial.log in the run dir (vm show prints it)", "path", paths->serial);
    o = add_opt(c, "-serial", NULL, 0);
    rc |= prop(o, 0, "the first serial port (ttyS0) is that file", "chardev:serial0");
    o = add_opt(c, "-qmp", NULL, 0);
    char *q = qemu_escape(paths->qmp);
    if (!q)
        return -1;
    rc |= prop(o, 0,
               "QMP control socket in the run dir: vCPU thread ids for pinning "
               "(query-cpus-fast), system_powerdown for a clean stop",
               "unix:%s", q);
    free(q);
    rc |= prop(o, 0, "QEMU is the listening end of the socket", "server=on");
    rc |= prop(o, 0, "QEMU starts without waiting for a QMP client", "wait=off");
    return rc;
}

static int add_process(tb_vm_cmd *c, const tb_vm_spec *s, const tb_vm_paths *paths)
{
    const char *how = tb_vm_swiotlb_how(s);
    int rc = 0;
    if (!how || strcmp(how, "seed-reboot") != 0) /* the seed's reboot must stay in QEMU */
        rc |= !add_opt(c, "-no-reboot",
                       "a reboot or triple fault ends QEMU instead of looping (TDs and "
                       "SEV-ES/SNP guests cannot be reset anyway)",
                       0);
    tb_vm_opt *o = add_opt(c, "-pidfile", NULL, 0);
    rc |= prop(o, 0, "QEMU's pid in the run dir (vm stop, vm list)", "%s", paths->pidfile);
    rc |= !add_opt(c, "-daemonize",
                   "QEMU detaches once the machine is set up; errors before that reach "
                   "qemu.log",
                   0);
    if (s->npin)
        rc |= !add_opt(c, "-S",
                       "--pin: start paused; the vCPU threads are pinned through QMP before "
                       "the guest's first instruction, then 'cont'",
                       0);
    return rc;
}

int tb_vm_cmdline(const tb_vm_spec *s, const tb_vm_plan *p, const tb_vm_paths *paths, tb_vm_cmd *c,
                  tb_err *err)
{
    memset(c, 0, sizeof *c);
    if (tb_vm_spec_check(s, err) < 0)
        return -1;
    if (s->kind != TB_VM_REGULAR && p->tcg)
        return tb_errf(err, "--kind %s cannot run under TCG", tb_vm_kind_name(s->kind));
    const char *q = tb_vm_spec_qemu(s, s->kind);
    c->qemu = strdup(p->qemu[0] ? p->qemu : q ? q : "qemu-system-x86_64");
    int rc = c->qemu ? 0 : -1;
    if (rc == 0)
        rc |= add_basics(c, s, p);
    if (rc == 0)
        rc |= add_machine(c, s, p);
    if (rc == 0)
        rc |= add_cpu_mem(c, s, p);
    if (rc == 0)
        rc |= add_tee(c, s, p);
    if (rc == 0)
        rc |= add_boot(c, s, p);
    if (rc == 0)
        rc |= add_devices(c, s, p, paths);
    if (rc == 0)
        rc |= add_process(c, s, paths);
    if (rc != 0) {
        tb_vm_cmd_free(c);
        return tb_errf(err, "out of memory");
    }
    return 0;
}

char **tb_vm_cmd_argv(const tb_vm_cmd *c)
{
    size_t n = 1 + 2 * (size_t)c->nopts + 1;
    char **argv = calloc(n, sizeof *argv);
    if (!argv)
        return NULL;
    size_t k = 0;
    if (!(argv[k++] = strdup(c->qemu)))
        goto fail;
    for (int i = 0; i < c->nopts; i++) {
        const tb_vm_opt *o = &c->opts[i];
        if (!(argv[k++] = strdup(o->flag)))
            goto fail;
        if (o->nprops == 0)
            continue;
        size_t len = 0;
        for (int j = 0; j < o->nprops; j++)
            len += strlen(o->props[j].text) + 1;
        char *v = malloc(len);
        if (!v)
            goto fail;
        v[0] = 0;
        char *w = v;
        for (int j = 0; j < o->nprops; j++) {
            size_t t = strlen(o->props[j].text);
            if (j)
                *w++ = o->sep ? o->sep : ',';
            memcpy(w, o->props[j].text, t + 1);
            w += t;
        }
        argv[k++] = v;
    }
    return argv;
fail:
    tb_vm_argv_free(argv);
    return NULL;
}

void tb_vm_argv_free(char **argv)
{
    tb_argv_free(argv);
}

static int shell_safe(const char *w)
{
    if (!*w)
        return 0;
    for (const char *p = w; *p; p++)
        if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-", *p))
            return 0;
    return 1;
}

static int append_word(tb_buf *b, const char *w)
{
    if (shell_safe(w))
        return tb_buf_puts(b, w);
    int rc = tb_buf_puts(b, "'");
    for (const char *q = w; *q && rc == 0; q++)
        rc = *q == '\'' ? tb_buf_puts(b, "'\\''") : tb_buf_append(b, q, 1);
    return rc | tb_buf_puts(b, "'");
}

char *tb_vm_argv_shell(char *const *argv)
{
    tb_buf b = {0};
    int rc = tb_buf_puts(&b, ""); /* "" for an empty argv, not NULL */
    for (size_t i = 0; argv[i] && rc == 0; i++) {
        if (i)
            rc |= tb_buf_puts(&b, argv[i][0] == '-' ? " \\\n  " : " ");
        rc |= append_word(&b, argv[i]);
    }
    if (rc != 0) {
        tb_buf_clear(&b);
        return NULL;
    }
    return (char *)b.p;
}
