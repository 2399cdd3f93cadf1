/* vm/host: what the host can run (tb_vm_host), the checks of one kind on it
 * (tb_vm_host_check) and the decision for one spec (tb_vm_plan_make).
 *
 * Every decision is made from probed capabilities, the way the host's own tools
 * read them: the kernel's KVM (/dev/kvm usable, kvm_intel's tdx and kvm_amd's
 * sev_snp parameters, the VM types KVM_CHECK_EXTENSION(KVM_CAP_VM_TYPES) reports,
 * /dev/sev's access), QEMU's own word (vm/qemu: -object help, the TEE objects'
 * properties) and the firmware file's metadata (vm/firmware). Version numbers only
 * appear in messages.
 *
 * The KVM TDX ABI. Upstream KVM (Linux >= 6.16) creates a TD as VM type 5
 * (KVM_X86_TDX_VM in arch/x86/include/uapi/asm/kvm.h, after SEV 2, SEV-ES 3, SNP 4).
 * Intel's TDX patches up to v19 -- the base of Intel's kernel-downstream v6.8-tdx,
 * which Canonical's 24.04 TDX kernel (linux-intel 6.8) and its QEMU 8.2.2+tdx
 * (tdx-qemu-upstream-v5) follow -- numbered TDX 2. Type 2 is upstream's SEV, which
 * only kvm_amd offers, so on an Intel CPU a KVM that offers type 2 speaks the
 * pre-upstream ABI. That is accepted and said; which ABI a QEMU build speaks is
 * compiled into it and shown by nothing short of creating a TD, so the message
 * names the QEMU (its --version line) and that it must be the same stack's. A
 * kernel that reports no VM types at all (before 6.8) but has kvm_intel tdx=Y is
 * an older pre-upstream TDX kernel: accepted, its ABI unknown.
 *
 * The pure parts (checks, choice of firmware, plan) take filled structs, so tests
 * feed them recorded hosts; tb_vm_host_probe_spec gathers the same facts live or
 * from a recording (`teebench env --record DIR`: sys/env's inputs plus DIR/vm/). */
#include "vm/vm.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/file.h"
#include "sys/env.h"

#define VT_TDX_UPSTREAM 5
#define VT_TDX_PRE 2
#define VT_SNP 4

/* ---- the kernel's facts (sys/env) ---- */

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
    snprintf(h->kvm_why, sizeof h->kvm_why, "%s", kvm ? kvm : "unknown");
    snprintf(h->kvm_src, sizeof h->kvm_src, "%s", src);
    v = fact_value(env, "tdx_host", &src);
    h->tdx = tristate(v);
    snprintf(h->tdx_why, sizeof h->tdx_why, "%s", src);
    v = fact_value(env, "sev_snp_host", &src);
    h->snp = tristate(v);
    snprintf(h->snp_why, sizeof h->snp_why, "%s", src);
    v = fact_value(env, "kvm_vm_types", &src);
    h->vm_types = json_is_integer(v) ? (long long)json_integer_value(v) : -1;
    snprintf(h->vm_types_why, sizeof h->vm_types_why, "%s", src);
    v = fact_value(env, "cpu_vendor", &src);
    const char *vendor = json_string_value(v);
    h->intel = vendor && !strcmp(vendor, "GenuineIntel");
    h->amd = vendor && !strcmp(vendor, "AuthenticAMD");
    v = fact_value(env, "sev_device", &src);
    const char *dev = json_string_value(v);
    h->dev_sev = !dev || !strcmp(dev, "unknown") ? -1 : !strcmp(dev, "read-write");
    snprintf(h->dev_sev_why, sizeof h->dev_sev_why, "%s", dev ? dev : "unknown");
    snprintf(h->dev_sev_src, sizeof h->dev_sev_src, "%s", src);
    v = fact_value(env, "sev_cbitpos", &src);
    h->cbitpos = json_is_integer(v) ? (int)json_integer_value(v) : -1;
    snprintf(h->cbitpos_why, sizeof h->cbitpos_why, "%s", src);
}

/* ---- firmware choice (pure) ---- */

static int first_with(const tb_vm_fw *c, int n, int tdx)
{
    for (int i = 0; i < n; i++)
        if (c[i].present && (tdx ? c[i].tdx : c[i].snp))
            return i;
    return -1;
}

int tb_vm_fw_choose(tb_vm_kind k, const tb_vm_fw *c, int n, int host_tee, char *how, size_t len)
{
    int tdx = first_with(c, n, 1), snp = first_with(c, n, 0), i = -1;
    if (k == TB_VM_TDX && tdx >= 0) {
        snprintf(how, len, "the first of the distributions' places with TDVF metadata");
        return tdx;
    }
    if (k == TB_VM_SNP && snp >= 0) {
        snprintf(how, len, "the first of the distributions' places with SEV-SNP metadata");
        return snp;
    }
    if (k == TB_VM_REGULAR) {
        int tee = host_tee == TB_VM_SNP ? snp : host_tee == TB_VM_TDX ? tdx : -1;
        if (tee >= 0) {
            snprintf(how, len,
                     "the file this host's %s would boot, so firmware is no "
                     "difference",
                     host_tee == TB_VM_SNP ? "SEV-SNP guests" : "TDs");
            return tee;
        }
        i = tdx >= 0 ? tdx : snp;
        if (i >= 0) {
            snprintf(how, len, "the file a %s would boot, so firmware is no difference",
                     i == tdx ? "TD" : "SEV-SNP guest");
            return i;
        }
        for (int j = 0; j < n && i < 0; j++)
            if (c[j].present && c[j].ovmf)
                i = j;
        if (i >= 0) {
            snprintf(how, len, "the first OVMF at the distributions' places (it boots no TEE)");
            return i;
        }
    }
    for (int j = 0; j < n; j++)
        if (c[j].present) {
            snprintf(how, len, "the first file at the distributions' places (%s)",
                     k == TB_VM_REGULAR ? "not OVMF"
                     : k == TB_VM_TDX   ? "none has TDVF metadata"
                                        : "none has SEV-SNP metadata");
            return j;
        }
    size_t used = (size_t)snprintf(how, len, "none at the distributions' places:");
    for (int j = 0; tb_vm_fw_places[j].path && used < len; j++)
        used += (size_t)snprintf(how + used, len - used, "%s %s", j ? "," : "",
                                 tb_vm_fw_places[j].path);
    return -1;
}

/* ---- checks (pure) ---- */

__attribute__((format(printf, 6, 7))) static void add(tb_vm_checks *o, const char *name, int ok,
                                                      int blocking, const char *source,
                                                      const char *fmt, ...)
{
    if (o->n >= (int)(sizeof o->c / sizeof o->c[0]))
        return;
    tb_vm_check *c = &o->c[o->n];
    c->name = name;
    c->ok = ok;
    c->blocking = blocking;
    snprintf(c->source, sizeof c->source, "%s", source);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->detail, sizeof c->detail, fmt, ap);
    va_end(ap);
    if (!ok && blocking && o->first_missing < 0)
        o->first_missing = o->n;
    o->n++;
}

static void check_kvm(const tb_vm_spec *s, const tb_vm_host *h, tb_vm_checks *o)
{
    if (h->kvm == 1) {
        add(o, "kvm", 1, 1, h->kvm_src, "/dev/kvm %s", h->kvm_why);
        return;
    }
    if (s->kind == TB_VM_REGULAR && s->accel != TB_VM_ACCEL_KVM) {
        add(o, "kvm", s->accel == TB_VM_ACCEL_TCG, 0, h->kvm_src,
            "/dev/kvm %s; --kind regular runs under TCG emulation then (no performance figure "
            "from it means anything)",
            h->kvm_why);
        return;
    }
    add(o, "kvm", 0, 1, h->kvm_src,
        "a usable /dev/kvm (it is %s): KVM enabled in the BIOS, the kvm_intel or kvm_amd module "
        "loaded, this user in the kvm group",
        h->kvm_why);
}

static void check_qemu(const tb_vm_host *h, tb_vm_kind k, tb_vm_checks *o)
{
    const tb_vm_qemu *q = &h->qemu[k];
    char src[400];
    snprintf(src, sizeof src, "%.200s --version; found as: %.150s", q->path[0] ? q->path : "QEMU",
             q->how[0] ? q->how : "?");
    if (!q->found) {
        add(o, "qemu", 0, 1, src, "QEMU: %s", q->why[0] ? q->why : "not found");
        return;
    }
    add(o, "qemu", 1, 1, src, "%s (%s)", q->path, q->version);
    snprintf(src, sizeof src, "%.380s -object help", q->path);
    if (!q->objects)
        add(o, "qemu-backend", 0, 1, src,
            "QEMU's -object help is not the list of object types QEMU prints");
    else if (!q->backend_ram)
        add(o, "qemu-backend", 0, 1, src, "this QEMU lists no memory-backend-ram object");
    else
        add(o, "qemu-backend", 1, 1, src, "memory-backend-ram listed (guest RAM of every kind)");
}

static void check_firmware(const tb_vm_spec *s, const tb_vm_host *h, tb_vm_checks *o)
{
    tb_vm_kind k = s->kind;
    const tb_vm_fw *f = &h->fw[k];
    char src[700], what[500];
    snprintf(src, sizeof src, "%.400s: %.250s", f->path[0] ? f->path : "firmware",
             h->fw_how[k][0] ? h->fw_how[k] : "OVMF GUIDed table");
    if (!strcmp(f->path, "none")) {
        add(o, "firmware", k == TB_VM_REGULAR, 1, "--firmware none",
            k == TB_VM_REGULAR ? "QEMU's own BIOS: the firmware differs from a TD's and an SNP "
                                 "guest's (OVMF)"
                               : "a TEE boots OVMF: --firmware none is for --kind regular only");
        return;
    }
    if (!f->present) {
        add(o, "firmware", 0, 1, src,
            "no firmware: %s (install Debian's ovmf or the edk2-ovmf package, or --firmware "
            "FILE%s)",
            f->why[0] ? f->why : h->fw_how[k],
            k == TB_VM_REGULAR ? "; --firmware none boots QEMU's own BIOS" : "");
        return;
    }
    tb_vm_fw_describe(f, what, sizeof what);
    if (k == TB_VM_TDX && f->tdx)
        add(o, "firmware", 1, 1, src, "%s: TDVF (sha256 %.16s...; %s)", f->path, f->sha256, what);
    else if (k == TB_VM_TDX)
        add(o, "firmware", 0, 1, src,
            "%s cannot boot a TD: %s (a TDVF build: Debian/Ubuntu's OVMF.fd, edk2-ovmf's "
            "OVMF.inteltdx.fd)",
            f->path, f->tdx_why);
    else if (k == TB_VM_SNP && f->snp)
        add(o, "firmware", 1, 1, src, "%s: SEV-SNP capable (sha256 %.16s...; %s)", f->path,
            f->sha256, what);
    else if (k == TB_VM_SNP)
        add(o, "firmware", 0, 1, src,
            "%s cannot boot an SEV-SNP guest: %s (an OVMF with SNP support: Debian/Ubuntu's "
            "OVMF.fd, OVMF.amdsev.fd)",
            f->path, f->snp_why);
    else
        add(o, "firmware", 1, 1, src, "%s (sha256 %.16s...; %s)", f->path, f->sha256, what);
}

/* The TDX ABI the kernel's VM types say, into abi; 1 when KVM offers TDX (or cannot
   say and kvm_intel says tdx=Y), 0 when it does not. */
static int tdx_abi(const tb_vm_host *h, char *abi, size_t len)
{
    long long t = h->vm_types;
    if (t > 0 && (t >> VT_TDX_UPSTREAM & 1)) {
        snprintf(abi, len,
                 "upstream KVM TDX ABI: VM type 5 (KVM_X86_TDX_VM, numbered so since Linux 6.16)");
        return 1;
    }
    if (t > 0 && (t >> VT_TDX_PRE & 1) && h->intel) {
        snprintf(abi, len,
                 "pre-upstream KVM TDX ABI: VM type 2 on an Intel CPU (KVM_X86_TDX_VM of "
                 "Intel's TDX patches up to v19 -- kernel-downstream v6.8-tdx, Canonical's 24.04 "
                 "linux-intel 6.8; upstream's type 2 is SEV, which only kvm_amd offers)");
        return 1;
    }
    if (t == 0 || t < 0) {
        snprintf(abi, len,
                 "KVM TDX ABI unknown: KVM %s its VM types (KVM_CAP_VM_TYPES; kernels before "
                 "6.8 do not), a pre-upstream TDX kernel",
                 t == 0 ? "does not report" : "could not be asked");
        return h->tdx == 1;
    }
    snprintf(abi, len, "KVM offers VM types 0x%llx: no TDX (upstream 5, pre-upstream 2)", t);
    return 0;
}

static void check_tdx(const tb_vm_spec *s, const tb_vm_host *h, tb_vm_checks *o)
{
    check_kvm(s, h, o);
    if (h->tdx == 1)
        add(o, "kvm-tdx", 1, 1, h->tdx_why, "kvm_intel tdx=Y: this kernel's KVM hosts TDs");
    else
        add(o, "kvm-tdx", 0, 1, h->tdx_why,
            "kvm_intel tdx=%s: this kernel's KVM cannot host TDs (TDX enabled in the BIOS and a "
            "TDX module; Linux >= 6.16, or a vendor's TDX kernel such as canonical/tdx's; "
            "kvm_intel.tdx=1 on its command line)",
            h->tdx == 0 ? "N or absent" : "unknown");
    int vt = tdx_abi(h, o->abi, sizeof o->abi);
    add(o, "kvm-vm-type", vt, 1, h->vm_types_why, "%s", o->abi);
    check_qemu(h, TB_VM_TDX, o);
    const tb_vm_qemu *q = &h->qemu[TB_VM_TDX];
    if (q->found) {
        char src[1200];
        snprintf(src, sizeof src, "%.380s -object help", q->path);
        long long t = h->vm_types;
        int pre = t > 0 && !(t >> VT_TDX_UPSTREAM & 1) && (t >> VT_TDX_PRE & 1) && h->intel;
        if (!q->tdx_guest)
            add(o, "qemu-tdx", 0, 1, src,
                "this QEMU lists no tdx-guest object: a build without TDX (%s); TDX is in "
                "upstream QEMU from 10.1, earlier in vendors' builds (canonical/tdx's)",
                q->version);
        else
            add(o, "qemu-tdx", 1, 1, src,
                pre ? "tdx-guest listed; with the pre-upstream KVM ABI this QEMU must be that "
                      "stack's (it says: %s): an upstream QEMU asks KVM for VM type 5"
                    : "tdx-guest listed (%s)",
                q->version);
        if (q->tdx_guest) {
            snprintf(src, sizeof src, "%s: QMP qom-list-properties tdx-guest", q->path);
            if (q->tdx_props_known)
                add(o, "qemu-tdx-props", 1, 0, src, "tdx-guest properties:%s", q->tdx_props);
            else
                add(o, "qemu-tdx-props", 0, 0, src,
                    "unknown (%s): the documented properties are passed", q->props_why);
        }
    }
    check_firmware(s, h, o);
}

static void check_snp(const tb_vm_spec *s, const tb_vm_host *h, tb_vm_checks *o)
{
    check_kvm(s, h, o);
    if (h->snp == 1)
        add(o, "kvm-snp", 1, 1, h->snp_why,
            "kvm_amd sev_snp=Y: this kernel's KVM hosts SEV-SNP guests");
    else
        add(o, "kvm-snp", 0, 1, h->snp_why,
            "kvm_amd sev_snp=%s: this kernel's KVM cannot host SEV-SNP guests (SNP enabled in "
            "the BIOS, the SEV firmware initialised; Linux >= 6.11)",
            h->snp == 0 ? "N or absent" : "unknown");
    long long t = h->vm_types;
    if (t > 0 && (t >> VT_SNP & 1))
        snprintf(o->abi, sizeof o->abi,
                 "upstream KVM SNP ABI: VM type 4 (KVM_X86_SNP_VM, numbered so since Linux 6.11)");
    else if (t > 0)
        snprintf(o->abi, sizeof o->abi, "KVM offers VM types 0x%llx: no SEV-SNP (type 4)", t);
    else
        snprintf(o->abi, sizeof o->abi,
                 "KVM SNP ABI unknown: KVM %s its VM types (KVM_CAP_VM_TYPES)",
                 t == 0 ? "does not report" : "could not be asked");
    add(o, "kvm-vm-type", t > 0 ? (t >> VT_SNP & 1) : h->snp == 1, 1, h->vm_types_why, "%s",
        o->abi);
    if (h->dev_sev == 1)
        add(o, "sev-device", 1, 1, h->dev_sev_src,
            "/dev/sev is readable and writable (QEMU opens it read-write)");
    else
        add(o, "sev-device", 0, 1, h->dev_sev_src,
            "/dev/sev is %s; QEMU opens it read-write, as this user (the ccp driver creates it "
            "once the SEV firmware is up; its group is kvm on most distributions)",
            h->dev_sev_why);
    if (s->cbitpos >= 0)
        add(o, "cbitpos", 1, 1, "--cbitpos", "C-bit position %d (--cbitpos)", s->cbitpos);
    else if (h->cbitpos >= 0)
        add(o, "cbitpos", 1, 1, h->cbitpos_why, "C-bit position %d (CPUID 0x8000001F EBX[5:0])",
            h->cbitpos);
    else
        add(o, "cbitpos", 0, 1, h->cbitpos_why,
            "no C-bit position: CPUID 0x8000001F reports no SEV (or --cbitpos N)");
    check_qemu(h, TB_VM_SNP, o);
    const tb_vm_qemu *q = &h->qemu[TB_VM_SNP];
    if (q->found) {
        char src[1200];
        snprintf(src, sizeof src, "%.380s -object help", q->path);
        add(o, "qemu-snp", q->sev_snp_guest, 1, src,
            q->sev_snp_guest ? "sev-snp-guest listed (%s)"
                             : "this QEMU lists no sev-snp-guest object: a build without SEV-SNP "
                               "(%s); it is in upstream QEMU from 9.1",
            q->version);
        if (q->sev_snp_guest) {
            snprintf(src, sizeof src, "%s: QMP qom-list-properties sev-snp-guest", q->path);
            int need = tb_vm_qemu_has_prop(q->snp_props, "cbitpos") &&
                       tb_vm_qemu_has_prop(q->snp_props, "reduced-phys-bits");
            if (!q->snp_props_known)
                add(o, "qemu-snp-props", 0, 0, src,
                    "unknown (%s): the documented properties are passed", q->props_why);
            else
                add(o, "qemu-snp-props", need, 1, src,
                    need ? "sev-snp-guest properties:%s"
                         : "sev-snp-guest lacks cbitpos or reduced-phys-bits:%s",
                    q->snp_props);
        }
    }
    check_firmware(s, h, o);
}

void tb_vm_host_check(const tb_vm_spec *s, const tb_vm_host *h, tb_vm_checks *o)
{
    memset(o, 0, sizeof *o);
    o->first_missing = -1;
    if (s->kind == TB_VM_TDX) {
        check_tdx(s, h, o);
    } else if (s->kind == TB_VM_SNP) {
        check_snp(s, h, o);
    } else {
        check_kvm(s, h, o);
        check_qemu(h, TB_VM_REGULAR, o);
        check_firmware(s, h, o);
    }
    if (s->vsock == TB_VM_VSOCK_ON)
        add(o, "vsock", h->vhost_vsock == 1, 1, "/dev/vhost-vsock",
            h->vhost_vsock == 1 ? "/dev/vhost-vsock usable (--vsock on)"
                                : "--vsock on needs /dev/vhost-vsock (modprobe vhost_vsock)");
}

/* ---- the plan (pure) ---- */

__attribute__((format(printf, 2, 3))) static void note(tb_vm_plan *p, const char *fmt, ...)
{
    if (p->nnotes >= (int)(sizeof p->notes / sizeof p->notes[0]))
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->notes[p->nnotes++], sizeof p->notes[0], fmt, ap);
    va_end(ap);
}

#define TCG_WARNING                                                                                \
    "the guest runs on QEMU's instruction emulator, many times slower than hardware; no "          \
    "performance figure measured in it means anything"

static void plan_accel(const tb_vm_spec *s, const tb_vm_host *h, tb_vm_plan *p)
{
    if (s->kind != TB_VM_REGULAR)
        return;
    if (s->accel == TB_VM_ACCEL_TCG) {
        p->tcg = 1;
        note(p, "TCG EMULATION (--accel tcg): %s", TCG_WARNING);
    } else if (s->accel == TB_VM_ACCEL_AUTO && h->kvm != 1) {
        p->tcg = 1;
        note(p, "TCG EMULATION: KVM is not usable here (%s: %s): %s", h->kvm_why, h->kvm_src,
             TCG_WARNING);
    }
}

/* A TEE object whose properties this QEMU did not show (not found, object not listed,
   or its properties not listed): those of the upstream QEMU that has them (since:
   "10.1 (doc)") are assumed, and the plan says so. */
static void assume_props(tb_vm_plan *p, const tb_vm_qemu *q, int listed, const char *object,
                         const char *since)
{
    char why[64];
    if (!q->found)
        snprintf(why, sizeof why, "was not found");
    else if (!listed)
        snprintf(why, sizeof why, "lists no %s", object);
    else
        snprintf(why, sizeof why, "did not list %s's properties", object);
    p->props_assumed = 1;
    note(p, "PROPERTIES ASSUMED: %s %s: the %s object shows the properties of upstream QEMU >= %s",
         q->path[0] ? q->path : "QEMU", why, object, since);
}

static void plan_tee_props(const tb_vm_spec *s, const tb_vm_host *h, tb_vm_plan *p)
{
    const tb_vm_qemu *q = &h->qemu[s->kind];
    if (s->kind == TB_VM_TDX) {
        if (q->tdx_guest && q->tdx_props_known) {
            p->tdx_qgs = tb_vm_qemu_has_prop(q->tdx_props, "quote-generation-socket");
            p->tdx_sept = tb_vm_qemu_has_prop(q->tdx_props, "sept-ve-disable");
            if (!p->tdx_qgs)
                note(p, "this QEMU's tdx-guest has no quote-generation-socket: the TD cannot "
                        "get quotes through TDVMCALL GetQuote");
        } else {
            p->tdx_qgs = p->tdx_sept = 1;
            assume_props(p, q, q->tdx_guest, "tdx-guest", "10.1 (docs/system/i386/tdx.rst)");
        }
    } else if (s->kind == TB_VM_SNP) {
        if (q->sev_snp_guest && q->snp_props_known) {
            p->snp_policy = tb_vm_qemu_has_prop(q->snp_props, "policy");
        } else {
            p->snp_policy = 1;
            assume_props(p, q, q->sev_snp_guest, "sev-snp-guest",
                         "9.1 (docs/system/i386/amd-memory-encryption.rst)");
        }
    }
}

static void plan_paths(const tb_vm_spec *s, const tb_vm_host *h, tb_vm_plan *p)
{
    const tb_vm_qemu *q = &h->qemu[s->kind];
    const char *given = tb_vm_spec_qemu(s, s->kind);
    snprintf(p->qemu, sizeof p->qemu, "%s",
             q->path[0] ? q->path
             : given    ? given
                        : "qemu-system-x86_64");
    snprintf(p->qemu_version, sizeof p->qemu_version, "%s", q->version);
    snprintf(p->qemu_sha256, sizeof p->qemu_sha256, "%s", q->sha256);
    const tb_vm_fw *f = &h->fw[s->kind];
    const char *fw = tb_vm_spec_firmware(s, s->kind);
    if (fw && !strcmp(fw, "none")) {
        p->firmware[0] = 0;
    } else {
        snprintf(p->firmware, sizeof p->firmware, "%s", f->path[0] ? f->path : fw ? fw : "");
        snprintf(p->firmware_sha256, sizeof p->firmware_sha256, "%s", f->sha256);
    }
    snprintf(p->firmware_how, sizeof p->firmware_how, "%s", h->fw_how[s->kind]);
}

int tb_vm_plan_make(const tb_vm_spec *s, const tb_vm_host *h, int dry_run, tb_vm_plan *p,
                    tb_err *err)
{
    memset(p, 0, sizeof *p);
    if (tb_vm_spec_check(s, err) < 0)
        return -1;
    tb_vm_checks c;
    tb_vm_host_check(s, h, &c);
    if (!dry_run && c.first_missing >= 0) {
        const tb_vm_check *m = &c.c[c.first_missing];
        return tb_errf(err,
                       "--kind %s cannot start here: %s missing: %s [%s] (all checks: "
                       "teebench vm check --kind %s)",
                       tb_vm_kind_name(s->kind), m->name, m->detail, m->source,
                       tb_vm_kind_name(s->kind));
    }
    plan_accel(s, h, p);
    plan_paths(s, h, p);
    if (!p->firmware[0])
        note(p, "firmware: QEMU's default BIOS (--firmware none), while TDs and SNP guests boot "
                "OVMF: the firmware differs from theirs");
    p->cpu = s->cpu ? s->cpu : p->tcg ? "max" : "host";
    plan_tee_props(s, h, p);
    if (s->prealloc && s->kind != TB_VM_REGULAR)
        note(p,
             "--prealloc preallocates the backend's pages, which %s uses only for its "
             "shared memory: its private memory comes from KVM's guest_memfd, allocated as "
             "the guest accepts it, and QEMU discards a shared page once the guest makes it "
             "private",
             s->kind == TB_VM_TDX ? "a TD" : "an SEV-SNP guest");

    if (s->vsock == TB_VM_VSOCK_ON) {
        p->vsock = 1;
    } else if (s->vsock == TB_VM_VSOCK_AUTO) {
        p->vsock = h->vhost_vsock == 1;
        if (!p->vsock)
            note(p, "no /dev/vhost-vsock on this host: the vhost-vsock-pci device is left out "
                    "(modprobe vhost_vsock to have it, or --vsock off to say so)");
    }

    p->cbitpos = s->cbitpos >= 0 ? s->cbitpos : h->cbitpos;
    p->reduced_phys_bits =
        s->reduced_phys_bits >= 0 ? s->reduced_phys_bits : TB_VM_SNP_REDUCED_PHYS_BITS;
    if (s->kind == TB_VM_SNP && p->cbitpos < 0) {
        /* Only reachable in a dry run: a real start was refused above. */
        p->cbit_placeholder = 1;
        p->cbitpos = 51;
        note(p, "PLACEHOLDER: this host has no CPUID 0x8000001F, so cbitpos=51 (the value of "
                "EPYC 7003/9004 CPUs) stands in; pass --cbitpos for another host");
    }
    return 0;
}

/* ---- gathering: live or recorded ---- */

static void reset(tb_vm_host *h)
{
    memset(h, 0, sizeof *h);
    h->tdx = h->snp = h->dev_sev = -1;
    h->vm_types = -1;
    h->cbitpos = -1;
    snprintf(h->kvm_why, sizeof h->kvm_why, "unknown");
    snprintf(h->kvm_src, sizeof h->kvm_src, "sys/env could not be read");
}

/* The places' facts: live (read now) or from the recording's firmware.json. */
static int places_live(tb_vm_fw *c, int max)
{
    int n = 0;
    for (int i = 0; tb_vm_fw_places[i].path && n < max; i++)
        tb_vm_fw_read(tb_vm_fw_places[i].path, &c[n++]);
    return n;
}

static int places_recorded(const char *vmdir, tb_vm_fw *c, int max, tb_err *err)
{
    char path[PATH_MAX];
    if (tb_path_join(path, sizeof path, vmdir, "firmware.json", err) < 0)
        return -1;
    json_error_t je;
    json_t *a = json_load_file(path, 0, &je);
    if (!json_is_array(a)) {
        json_decref(a);
        return tb_errf(err, "%s: %s", path, a ? "not a JSON array" : je.text);
    }
    int n = 0;
    size_t i;
    json_t *e;
    json_array_foreach(a, i, e)
    {
        if (n >= max)
            break;
        if (tb_vm_fw_from_json(e, &c[n], err) < 0) {
            json_decref(a);
            return tb_err_wrap(err, "%s: entry %zu", path, i);
        }
        n++;
    }
    json_decref(a);
    return n;
}

static int host_tee_of(const tb_vm_host *h)
{
    return h->snp == 1 ? TB_VM_SNP : h->tdx == 1 ? TB_VM_TDX : 0;
}

/* Kind k's firmware: the one given (read now, or looked up in the recording), or
   the places' choice. */
static void firmware_for(const tb_vm_spec *s, tb_vm_kind k, const tb_vm_fw *c, int n, int recorded,
                         tb_vm_host *h)
{
    const char *given = tb_vm_spec_firmware(s, k);
    tb_vm_fw *f = &h->fw[k];
    if (given && !strcmp(given, "none")) {
        memset(f, 0, sizeof *f);
        snprintf(f->path, sizeof f->path, "none");
        snprintf(h->fw_how[k], sizeof h->fw_how[k], "--firmware none");
        return;
    }
    if (given) {
        snprintf(h->fw_how[k], sizeof h->fw_how[k], "--firmware");
        for (int i = 0; i < n; i++)
            if (!strcmp(c[i].path, given)) {
                *f = c[i];
                return;
            }
        if (recorded) {
            memset(f, 0, sizeof *f);
            snprintf(f->path, sizeof f->path, "%s", given);
            snprintf(f->why, sizeof f->why, "%s: not recorded on that host", given);
        } else {
            tb_vm_fw_read(given, f);
        }
        return;
    }
    int i = tb_vm_fw_choose(k, c, n, host_tee_of(h), h->fw_how[k], sizeof h->fw_how[k]);
    if (i >= 0) {
        *f = c[i];
        size_t used = strlen(h->fw_how[k]);
        for (int j = 0; tb_vm_fw_places[j].path; j++)
            if (!strcmp(tb_vm_fw_places[j].path, c[i].path))
                snprintf(h->fw_how[k] + used, sizeof h->fw_how[k] - used, ": %s",
                         tb_vm_fw_places[j].who);
        return;
    }
    memset(f, 0, sizeof *f);
    snprintf(f->why, sizeof f->why, "%.290s", h->fw_how[k]);
}

static int read_recorded_line(const char *vmdir, const char *name, char *out, size_t len)
{
    char path[PATH_MAX];
    tb_err e;
    tb_buf b = {0};
    out[0] = 0;
    if (tb_path_join(path, sizeof path, vmdir, name, &e) < 0 ||
        tb_file_read(path, 1 << 16, &b, &e) < 0)
        return -1;
    const char *t = b.p ? (const char *)b.p : "";
    size_t n = strcspn(t, "\n");
    snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), t);
    tb_buf_clear(&b);
    return 0;
}

static int recorded_vm_dir(const char *from, char *vmdir, size_t len, tb_err *err)
{
    if (tb_path_join(vmdir, len, from, "vm", err) < 0)
        return -1;
    char schema[128];
    if (read_recorded_line(vmdir, "schema", schema, sizeof schema) < 0)
        return tb_errf(err,
                       "%s holds no VM host recording (%s/schema missing; `teebench env --record "
                       "DIR` writes one)",
                       from, vmdir);
    if (strcmp(schema, TB_VM_HOST_SCHEMA))
        return tb_errf(err,
                       "%s: a VM host recording of schema \"%.60s\"; this teebench reads \"%s\" "
                       "(record the host again with this teebench)",
                       from, schema, TB_VM_HOST_SCHEMA);
    return 0;
}

int tb_vm_host_probe_spec(const tb_vm_spec *s, const char *tmpdir, const char *from, tb_vm_host *h,
                          tb_err *err)
{
    reset(h);
    char vmdir[PATH_MAX] = "";
    json_t *env;
    if (from) {
        if (recorded_vm_dir(from, vmdir, sizeof vmdir, err) < 0)
            return -1;
        env = tb_env_json_recorded(from, err);
        if (!env)
            return -1;
        snprintf(h->recorded, sizeof h->recorded, "%s", from);
    } else {
        tb_err e;
        env = tb_env_json(&e);
    }
    if (env) {
        tb_vm_host_from_env(env, h);
        json_decref(env);
    }
    const char *tmp = tmpdir ? tmpdir : "/tmp";
    for (int k = 0; k < TB_VM_KINDS; k++) {
        const char *given = from ? NULL : tb_vm_spec_qemu(s, (tb_vm_kind)k);
        int same = -1;
        for (int j = 0; j < k && same < 0; j++) {
            const char *gj = from ? NULL : tb_vm_spec_qemu(s, (tb_vm_kind)j);
            if ((!gj && !given) || (gj && given && !strcmp(gj, given)))
                same = j;
        }
        if (same >= 0) {
            h->qemu[k] = h->qemu[same];
        } else if (from) {
            char qdir[PATH_MAX];
            if (tb_path_join(qdir, sizeof qdir, vmdir, "qemu", err) < 0)
                return -1;
            tb_vm_qemu_read_probe(qdir, &h->qemu[k]);
        } else {
            tb_vm_qemu_probe(given, tmp, &h->qemu[k]);
        }
    }
    tb_vm_fw places[8];
    int n = from ? places_recorded(vmdir, places, 8, err) : places_live(places, 8);
    if (n < 0)
        return -1;
    for (int k = 0; k < TB_VM_KINDS; k++)
        firmware_for(s, (tb_vm_kind)k, places, n, from != NULL, h);
    if (from) {
        char v[64];
        h->vhost_vsock =
            read_recorded_line(vmdir, "vhost_vsock", v, sizeof v) == 0 && !strncmp(v, "yes", 3);
    } else {
        h->vhost_vsock = access("/dev/vhost-vsock", R_OK | W_OK) == 0;
    }
    return 0;
}

int tb_vm_host_record(const char *dir, tb_err *err)
{
    char vmdir[PATH_MAX], qdir[PATH_MAX], path[PATH_MAX];
    if (tb_path_join(vmdir, sizeof vmdir, dir, "vm", err) < 0 ||
        tb_path_join(qdir, sizeof qdir, vmdir, "qemu", err) < 0 || tb_mkdirs(qdir, err) < 0)
        return -1;
    char bin[1024], how[200];
    if (tb_vm_qemu_find(NULL, bin, sizeof bin, how, sizeof how) == 0) {
        if (tb_vm_qemu_run_probe(bin, how, qdir, err) < 0)
            return -1;
    } else {
        char line[300];
        snprintf(line, sizeof line, "%s\n", how);
        if (tb_path_join(path, sizeof path, qdir, "why", err) < 0 ||
            tb_file_write_atomic(path, line, strlen(line), err) < 0)
            return -1;
    }
    tb_vm_fw places[8];
    int n = places_live(places, 8);
    json_t *a = json_array();
    for (int i = 0; i < n && a; i++)
        if (json_array_append_new(a, tb_vm_fw_json(&places[i])) < 0) {
            json_decref(a);
            a = NULL;
        }
    char *text = a ? json_dumps(a, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(a);
    if (!text)
        return tb_errf(err, "out of memory");
    int rc = tb_path_join(path, sizeof path, vmdir, "firmware.json", err) < 0 ||
             tb_file_write_atomic(path, text, strlen(text), err) < 0;
    free(text);
    if (rc)
        return -1;
    int vs = access("/dev/vhost-vsock", R_OK | W_OK) == 0;
    char line[300];
    snprintf(line, sizeof line, "%s /dev/vhost-vsock%s%s\n", vs ? "yes" : "no", vs ? "" : ": ",
             vs ? "" : strerror(errno));
    if (tb_path_join(path, sizeof path, vmdir, "vhost_vsock", err) < 0 ||
        tb_file_write_atomic(path, line, strlen(line), err) < 0)
        return -1;
    snprintf(line, sizeof line, "%s\n", TB_VM_HOST_SCHEMA);
    if (tb_path_join(path, sizeof path, vmdir, "schema", err) < 0 ||
        tb_file_write_atomic(path, line, strlen(line), err) < 0)
        return -1;
    return 0;
}
