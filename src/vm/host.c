/* vm/host: what the host can run (tb_vm_host) and the decision for one spec on
 * it (tb_vm_plan_make). The decision is pure, so tests feed it recorded hosts
 * (a TDX host, an SNP host, a nested VM without /dev/kvm, an old QEMU); the
 * live probe gathers the same facts through sys/env, `qemu --version`, CPUID
 * and /dev/vhost-vsock. */
#include "vm/vm.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define TB_HAVE_CPUID 1
#else
#define TB_HAVE_CPUID 0
#endif

#include "base/buf.h"
#include "base/file.h"
#include "base/proc.h"
#include "sys/env.h"

int tb_vm_parse_qemu_version(const char *text, int *major, int *minor, int *micro)
{
    const char *p = text ? strstr(text, "version ") : NULL;
    if (!p)
        return -1;
    int a, b, c = 0;
    if (sscanf(p + 8, "%d.%d.%d", &a, &b, &c) < 2 || a < 0 || b < 0 || c < 0 || a > 1000)
        return -1;
    *major = a;
    *minor = b;
    *micro = c;
    return 0;
}

/* value/source of one sys/env fact. */
static const json_t *fact_value(const json_t *env, const char *key, const char **source)
{
    const json_t *f = json_object_get(env, key);
    *source = json_string_value(json_object_get(f, "source"));
    if (!*source)
        *source = "not in the env document";
    return json_object_get(f, "value");
}

static int tristate(const json_t *v)
{
    if (json_is_true(v))
        return 1;
    if (json_is_false(v))
        return 0;
    return -1;
}

void tb_vm_host_from_env(const json_t *env, tb_vm_host *h)
{
    const char *src;
    const json_t *v = fact_value(env, "kvm", &src);
    const char *kvm = json_string_value(v);
    h->kvm = kvm && !strncmp(kvm, "usable", 6);
    snprintf(h->kvm_why, sizeof h->kvm_why, "%s: %s", kvm ? kvm : "unknown", src);
    v = fact_value(env, "tdx_host", &src);
    h->tdx = tristate(v);
    snprintf(h->tdx_why, sizeof h->tdx_why, "%s", src);
    v = fact_value(env, "sev_snp_host", &src);
    h->snp = tristate(v);
    snprintf(h->snp_why, sizeof h->snp_why, "%s", src);
}

static void probe_qemu(const char *qemu, const char *tmpdir, tb_vm_host *h)
{
    char out[1024];
    snprintf(out, sizeof out, "%s/qemu-version.%ld.txt", tmpdir, (long)getpid());
    char *argv[] = {(char *)qemu, "--version", NULL};
    tb_proc_opts o = {.argv = argv, .stdout_path = out};
    tb_proc_result r;
    tb_err e;
    if (tb_proc_run(&o, 10000, NULL, &r, &e) < 0) {
        snprintf(h->qemu_why, sizeof h->qemu_why, "%.150s", e.msg);
        unlink(out);
        return;
    }
    tb_buf b = {0};
    if (r.exit_code != 0) {
        snprintf(h->qemu_why, sizeof h->qemu_why, "%s --version exited with %d", qemu, r.exit_code);
    } else if (tb_file_read(out, 1 << 16, &b, &e) < 0) {
        snprintf(h->qemu_why, sizeof h->qemu_why, "%.150s", e.msg);
    } else if (tb_vm_parse_qemu_version((const char *)b.p, &h->qemu_major, &h->qemu_minor,
                                        &h->qemu_micro) < 0) {
        snprintf(h->qemu_why, sizeof h->qemu_why, "%s --version: no version number", qemu);
    }
    tb_buf_clear(&b);
    unlink(out);
}

static void probe_cpuid(tb_vm_host *h)
{
    h->cbitpos = h->reduced_phys_bits = -1;
#if TB_HAVE_CPUID
    unsigned a, b, c, d;
    if ((unsigned)__get_cpuid_max(0x80000000, NULL) < 0x8000001Fu)
        return;
    __cpuid(0x8000001F, a, b, c, d);
    if (!(a & (1u << 1))) /* no SEV: EBX is not defined */
        return;
    h->cbitpos = (int)(b & 0x3f);
    h->reduced_phys_bits = (int)((b >> 6) & 0x3f);
#endif
}

void tb_vm_host_probe(const char *qemu, const char *tmpdir, tb_vm_host *h)
{
    memset(h, 0, sizeof *h);
    h->tdx = h->snp = -1;
    snprintf(h->kvm_why, sizeof h->kvm_why, "unknown");
    tb_err e;
    json_t *env = tb_env_json(&e);
    if (env) {
        tb_vm_host_from_env(env, h);
        json_decref(env);
    }
    probe_qemu(qemu ? qemu : TB_VM_DEFAULT_QEMU, tmpdir ? tmpdir : "/tmp", h);
    probe_cpuid(h);
    h->vhost_vsock = access("/dev/vhost-vsock", R_OK | W_OK) == 0;
}

/* Appends "; item" (or "item") to a missing-list. */
static void missing(char *list, size_t len, const char *item)
{
    size_t n = strlen(list);
    snprintf(list + n, len - n, "%s%s", n ? "; " : "", item);
}

static int qemu_older(const tb_vm_host *h, int major, int minor)
{
    return h->qemu_major < major || (h->qemu_major == major && h->qemu_minor < minor);
}

static void check_qemu(const tb_vm_host *h, int major, int minor, const char *what, char *list,
                       size_t len)
{
    char item[320];
    if (h->qemu_major == 0)
        snprintf(item, sizeof item, "QEMU >= %d.%d%s (%s)", major, minor, what,
                 h->qemu_why[0] ? h->qemu_why : "not found");
    else if (qemu_older(h, major, minor))
        snprintf(item, sizeof item, "QEMU >= %d.%d%s (found %d.%d.%d)", major, minor, what,
                 h->qemu_major, h->qemu_minor, h->qemu_micro);
    else
        return;
    missing(list, len, item);
}

__attribute__((format(printf, 2, 3))) static void note(tb_vm_plan *p, const char *fmt, ...)
{
    if (p->nnotes >= 4)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->notes[p->nnotes++], sizeof p->notes[0], fmt, ap);
    va_end(ap);
}

#define TCG_WARNING                                                                                \
    "the guest runs on QEMU's instruction emulator, many times slower than hardware; no "          \
    "performance figure measured in it means anything"

static int plan_regular(const tb_vm_spec *s, const tb_vm_host *h, int dry_run, tb_vm_plan *p,
                        char *list, size_t len)
{
    if (s->accel == TB_VM_ACCEL_TCG) {
        p->tcg = 1;
        note(p, "TCG EMULATION (--accel tcg): %s", TCG_WARNING);
    } else if (s->accel == TB_VM_ACCEL_KVM) {
        if (!dry_run && h->kvm != 1) {
            char item[200];
            snprintf(item, sizeof item, "a usable /dev/kvm for --accel kvm (%s)", h->kvm_why);
            missing(list, len, item);
        }
    } else if (h->kvm != 1) {
        p->tcg = 1;
        note(p, "TCG EMULATION: KVM is not usable here (%s): %s", h->kvm_why, TCG_WARNING);
    }
    if (!dry_run)
        check_qemu(h, TB_VM_QEMU_MIN_REGULAR, "", list, len);
    if (!s->firmware || !strcmp(s->firmware, "none"))
        note(p, "firmware: QEMU's default BIOS (--firmware none), while TDs and SNP guests boot "
                "OVMF: the firmware differs from theirs");
    return 0;
}

static void plan_tee(const tb_vm_spec *s, const tb_vm_host *h, int dry_run, tb_vm_plan *p,
                     char *list, size_t len)
{
    int tdx = s->kind == TB_VM_TDX;
    if (tdx)
        check_qemu(h, TB_VM_QEMU_MIN_TDX, " with upstream TDX", list, len);
    else
        check_qemu(h, TB_VM_QEMU_MIN_SNP, " with SEV-SNP", list, len);
    char item[320];
    if (h->kvm != 1) {
        snprintf(item, sizeof item, "a usable /dev/kvm (%s)", h->kvm_why);
        missing(list, len, item);
    }
    if (tdx && h->tdx != 1) {
        snprintf(item, sizeof item,
                 "KVM TDX host support (kvm_intel tdx=Y: TDX enabled in the BIOS, Linux >= 6.16; "
                 "%s)",
                 h->tdx_why);
        missing(list, len, item);
    }
    if (!tdx && h->snp != 1) {
        snprintf(item, sizeof item,
                 "KVM SEV-SNP host support (kvm_amd sev_snp=Y: SNP enabled in the BIOS, Linux >= "
                 "6.11; %s)",
                 h->snp_why);
        missing(list, len, item);
    }
    if (!tdx && (s->cbitpos < 0 || s->reduced_phys_bits < 0) && h->cbitpos < 0)
        missing(list, len,
                "CPUID 0x8000001F (the C-bit position; or --cbitpos and "
                "--reduced-phys-bits)");
    (void)dry_run;
}

int tb_vm_plan_make(const tb_vm_spec *s, const tb_vm_host *h, int dry_run, tb_vm_plan *p,
                    tb_err *err)
{
    memset(p, 0, sizeof *p);
    if (tb_vm_spec_check(s, err) < 0)
        return -1;
    char list[TB_ERR_MAX] = "";
    if (s->kind == TB_VM_REGULAR)
        plan_regular(s, h, dry_run, p, list, sizeof list);
    else
        plan_tee(s, h, dry_run, p, list, sizeof list);
    if (dry_run)
        list[0] = 0; /* a dry run shows the command line whatever the host lacks */

    if (s->vsock == TB_VM_VSOCK_ON) {
        p->vsock = 1;
        if (!dry_run && h->vhost_vsock != 1)
            missing(list, sizeof list, "/dev/vhost-vsock for --vsock on (modprobe vhost_vsock)");
    } else if (s->vsock == TB_VM_VSOCK_AUTO) {
        p->vsock = h->vhost_vsock == 1;
        if (!p->vsock)
            note(p, "no /dev/vhost-vsock on this host: the vhost-vsock-pci device is left out "
                    "(modprobe vhost_vsock to have it, or --vsock off to say so)");
    }

    p->cbitpos = s->cbitpos >= 0 ? s->cbitpos : h->cbitpos;
    p->reduced_phys_bits = s->reduced_phys_bits >= 0 ? s->reduced_phys_bits : h->reduced_phys_bits;
    if (s->kind == TB_VM_SNP && (p->cbitpos < 0 || p->reduced_phys_bits < 0)) {
        /* Only reachable in a dry run: a real start was refused above. */
        p->cbit_placeholder = 1;
        if (p->cbitpos < 0)
            p->cbitpos = 51;
        if (p->reduced_phys_bits < 0)
            p->reduced_phys_bits = 1;
        note(p, "PLACEHOLDER: this host has no CPUID 0x8000001F, so cbitpos=51 and "
                "reduced-phys-bits=1 (the values of EPYC 7003/9004 CPUs) stand in; pass "
                "--cbitpos and --reduced-phys-bits for another host");
    }
    if (list[0])
        return tb_errf(err, "--kind %s: this host lacks %s", tb_vm_kind_name(s->kind), list);
    return 0;
}
