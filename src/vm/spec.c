/* vm/spec: the description of a VM (tb_vm_spec) -- defaults, the checks that
 * need no host, and the parsers of its command-line values (kinds, sizes, CPU
 * lists). Pure functions. */
#include "vm/vm.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/num.h"

void tb_vm_spec_init(tb_vm_spec *s)
{
    memset(s, 0, sizeof *s);
    s->kind = TB_VM_REGULAR;
    s->accel = TB_VM_ACCEL_AUTO;
    s->cpus = 2;
    s->memory = 4ull << 30;
    s->ssh_user = "root";
    s->vsock = TB_VM_VSOCK_AUTO;
    s->cbitpos = -1;
    s->reduced_phys_bits = -1;
    s->snp_policy = TB_VM_SNP_DEFAULT_POLICY;
    s->boot_timeout_s = 300;
    s->auth_grace_s = 60;
    s->seed = 1;
}

static const char *const kind_names[] = {"regular", "tdx", "snp"};

const char *tb_vm_spec_qemu(const tb_vm_spec *s, tb_vm_kind k)
{
    return (unsigned)k < TB_VM_KINDS && s->qemu_kind[k] ? s->qemu_kind[k] : s->qemu;
}

const char *tb_vm_spec_firmware(const tb_vm_spec *s, tb_vm_kind k)
{
    return (unsigned)k < TB_VM_KINDS && s->firmware_kind[k] ? s->firmware_kind[k] : s->firmware;
}

const char *tb_vm_kind_name(tb_vm_kind k)
{
    return (unsigned)k < 3 ? kind_names[k] : "?";
}

int tb_vm_kind_parse(const char *s, tb_vm_kind *out)
{
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, kind_names[i])) {
            *out = (tb_vm_kind)i;
            return 0;
        }
    return -1;
}

uint64_t tb_vm_swiotlb_cvm_pool(uint64_t memory)
{
    uint64_t size = memory / 100 * 6 + memory % 100 * 6 / 100; /* memory * 6 / 100 */
    if (size < (64ull << 20))
        size = 64ull << 20; /* IO_TLB_DEFAULT_SIZE */
    if (size > (1ull << 30))
        size = 1ull << 30; /* SZ_1G */
    return size;
}

uint64_t tb_vm_swiotlb_nslabs(uint64_t bytes)
{
    uint64_t slabs = bytes / TB_VM_SWIOTLB_SLAB + (bytes % TB_VM_SWIOTLB_SLAB != 0);
    return (slabs + TB_VM_SWIOTLB_SEGSIZE - 1) / TB_VM_SWIOTLB_SEGSIZE * TB_VM_SWIOTLB_SEGSIZE;
}

uint64_t tb_vm_swiotlb_pool(const tb_vm_spec *s)
{
    if (!s->swiotlb)
        return 0;
    uint64_t want =
        s->swiotlb == TB_VM_SWIOTLB_AUTO ? tb_vm_swiotlb_cvm_pool(s->memory) : s->swiotlb;
    return tb_vm_swiotlb_nslabs(want) * TB_VM_SWIOTLB_SLAB;
}

void tb_vm_swiotlb_param(const tb_vm_spec *s, char *out, size_t len)
{
    uint64_t pool = tb_vm_swiotlb_pool(s);
    if (!pool)
        snprintf(out, len, "%s", "");
    else
        snprintf(out, len, "swiotlb=%" PRIu64 ",force", pool / TB_VM_SWIOTLB_SLAB);
}

const char *tb_vm_swiotlb_how(const tb_vm_spec *s)
{
    if (!s->swiotlb)
        return NULL;
    return s->kernel ? "append" : "seed-reboot";
}

const char *tb_vm_spec_kind_label(const tb_vm_spec *s)
{
    return s->swiotlb && s->kind == TB_VM_REGULAR ? "regular-swiotlb" : tb_vm_kind_name(s->kind);
}

int tb_vm_kind_parse_ext(const char *s, tb_vm_kind *kind, uint64_t *swiotlb, tb_err *err)
{
    static const char rs[] = "regular-swiotlb";
    size_t n = strlen(rs);
    *swiotlb = 0;
    if (!strncmp(s, rs, n) && (s[n] == 0 || s[n] == ':')) {
        *kind = TB_VM_REGULAR;
        *swiotlb = TB_VM_SWIOTLB_AUTO;
        if (s[n] == ':' && tb_vm_parse_size(s + n + 1, swiotlb, err) < 0)
            return tb_err_wrap(err, "the bounce-buffer pool (regular-swiotlb:SIZE)");
        return 0;
    }
    if (tb_vm_kind_parse(s, kind) == 0)
        return 0;
    return tb_errf(err, "unknown kind '%s' (regular, regular-swiotlb[:POOL], tdx or snp)", s);
}

int tb_vm_accel_parse(const char *s, tb_vm_accel *out)
{
    if (!strcmp(s, "auto"))
        *out = TB_VM_ACCEL_AUTO;
    else if (!strcmp(s, "kvm"))
        *out = TB_VM_ACCEL_KVM;
    else if (!strcmp(s, "tcg"))
        *out = TB_VM_ACCEL_TCG;
    else
        return -1;
    return 0;
}

int tb_vm_parse_size(const char *s, uint64_t *out, tb_err *err)
{
    static const tb_num_size_unit units[] = {
        {"", 1ull << 20},  {"M", 1ull << 20}, {"m", 1ull << 20}, {"G", 1ull << 30},
        {"g", 1ull << 30}, {"T", 1ull << 40}, {"t", 1ull << 40}, {"K", 1ull << 10},
        {"k", 1ull << 10}, {"B", 1},          {"b", 1}};
    switch (s ? tb_num_size(s, units, sizeof units / sizeof units[0], 1, UINT64_MAX, out)
              : TB_NUM_SYNTAX) {
    case TB_NUM_OK:
        return 0;
    case TB_NUM_RANGE:
        return tb_errf(err, "%s: size out of range", s);
    default:
        return tb_errf(err, "%s: not a size (e.g. 4G, 512M)", s ? s : "");
    }
}

void tb_vm_size_text(uint64_t bytes, char *out, size_t len)
{
    if (bytes && bytes % (1ull << 40) == 0)
        snprintf(out, len, "%" PRIu64 "T", bytes >> 40);
    else if (bytes && bytes % (1ull << 30) == 0)
        snprintf(out, len, "%" PRIu64 "G", bytes >> 30);
    else if (bytes % (1ull << 20) == 0)
        snprintf(out, len, "%" PRIu64 "M", bytes >> 20);
    else
        snprintf(out, len, "%" PRIu64 "B", bytes);
}

/* A CPU number: digits only, below TB_VM_MAX_CPUS * 64 (CPU_SETSIZE is 1024). */
static int cpu_num(const char **p, int *out)
{
    if (!isdigit((unsigned char)**p))
        return -1;
    long v = 0;
    while (isdigit((unsigned char)**p)) {
        v = v * 10 + (**p - '0');
        if (v >= 1024)
            return -1;
        (*p)++;
    }
    *out = (int)v;
    return 0;
}

int tb_vm_parse_cpulist(const char *s, int *cpus, int max, int *n, tb_err *err)
{
    unsigned char seen[1024] = {0};
    int count = 0;
    const char *p = s;
    if (!*p)
        return tb_errf(err, "empty CPU list");
    for (;;) {
        int a, b;
        if (cpu_num(&p, &a) < 0)
            return tb_errf(err, "%s: not a CPU list (e.g. 2,3 or 4-7; CPUs below 1024)", s);
        b = a;
        if (*p == '-') {
            p++;
            if (cpu_num(&p, &b) < 0 || b < a)
                return tb_errf(err, "%s: not a CPU list (e.g. 2,3 or 4-7; CPUs below 1024)", s);
        }
        for (int c = a; c <= b; c++) {
            if (seen[c])
                return tb_errf(err, "%s: CPU %d listed twice", s, c);
            if (count >= max)
                return tb_errf(err, "%s: more than %d CPUs", s, max);
            seen[c] = 1;
            cpus[count++] = c;
        }
        if (*p == 0)
            break;
        if (*p != ',')
            return tb_errf(err, "%s: not a CPU list (e.g. 2,3 or 4-7; CPUs below 1024)", s);
        p++;
    }
    *n = count;
    return 0;
}

int tb_vm_name_ok(const char *n)
{
    size_t len = strlen(n);
    if (len == 0 || len > TB_VM_NAME_MAX || n[0] == '.' || n[0] == '-')
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)n[i]) && !strchr("_.-", n[i]))
            return 0;
    return 1;
}

int tb_vm_spec_check(const tb_vm_spec *s, tb_err *err)
{
    if (!tb_vm_name_ok(s->name))
        return tb_errf(err,
                       "'%s': not a VM name (1..%d of A-Z a-z 0-9 _ . -, not starting "
                       "with . or -)",
                       s->name, TB_VM_NAME_MAX);
    if ((unsigned)s->kind > TB_VM_SNP)
        return tb_errf(err, "unknown kind");
    if (s->kind != TB_VM_REGULAR && s->accel == TB_VM_ACCEL_TCG)
        return tb_errf(err,
                       "--kind %s cannot run under TCG: a TEE needs KVM and the CPU's "
                       "support (only --kind regular falls back to TCG)",
                       tb_vm_kind_name(s->kind));
    if (!s->image && !s->kernel)
        return tb_errf(err, "nothing to boot: give --image DISK or --kernel K [--initrd I]");
    if (s->initrd && !s->kernel)
        return tb_errf(err, "--initrd needs --kernel");
    if (s->append && !s->kernel)
        return tb_errf(err, "--append needs --kernel");
    const char *fw = tb_vm_spec_firmware(s, s->kind);
    if (s->kind != TB_VM_REGULAR && fw && !strcmp(fw, "none"))
        return tb_errf(err,
                       "--kind %s needs OVMF firmware (%s): --firmware none is for "
                       "--kind regular only",
                       tb_vm_kind_name(s->kind), s->kind == TB_VM_TDX ? "TDVF" : "with SEV-SNP");
    if (s->cpus < 1 || s->cpus > TB_VM_MAX_CPUS)
        return tb_errf(err, "--cpus %d: out of range 1..%d", s->cpus, TB_VM_MAX_CPUS);
    if (s->memory < (64ull << 20) || s->memory % (1ull << 20))
        return tb_errf(err, "--memory: %" PRIu64 " bytes is not a whole number of MiB >= 64M",
                       s->memory);
    if (s->npin && s->npin != s->cpus)
        return tb_errf(err, "--pin lists %d CPU%s for %d vCPU%s: pinning is one-to-one", s->npin,
                       s->npin == 1 ? "" : "s", s->cpus, s->cpus == 1 ? "" : "s");
    if (s->ssh_port < 0 || s->ssh_port > 65535)
        return tb_errf(err, "--ssh-port %d: not a port number", s->ssh_port);
    if (s->vsock_cid != 0 && s->vsock_cid < 3)
        return tb_errf(err, "--cid %u: guest CIDs start at 3 (0-2 are reserved)", s->vsock_cid);
    if (s->cbitpos != -1 && (s->cbitpos < 32 || s->cbitpos > 63))
        return tb_errf(err, "--cbitpos %d: out of range 32..63", s->cbitpos);
    if (s->reduced_phys_bits != -1 && (s->reduced_phys_bits < 0 || s->reduced_phys_bits > 63))
        return tb_errf(err, "--reduced-phys-bits %d: out of range 0..63", s->reduced_phys_bits);
    if (s->swiotlb && s->kind != TB_VM_REGULAR)
        return tb_errf(err,
                       "forced swiotlb is for the regular kind (regular-swiotlb): a %s "
                       "guest's kernel bounces all its I/O already",
                       s->kind == TB_VM_TDX ? "TD" : "SEV-SNP");
    if (s->swiotlb && s->swiotlb != TB_VM_SWIOTLB_AUTO &&
        (s->swiotlb < (1ull << 20) || s->swiotlb > s->memory / 2)) {
        char size[32];
        tb_vm_size_text(s->swiotlb, size, sizeof size);
        return tb_errf(err,
                       "regular-swiotlb:%s: the bounce-buffer pool must be 1M .. half the "
                       "guest's memory",
                       size);
    }
    if (s->swiotlb && !s->kernel && !s->seed)
        return tb_errf(err, "regular-swiotlb with an --image needs the cloud-init seed (it sets "
                            "swiotlb=force in the image's boot loader): no --seed off, or boot "
                            "with --kernel");
    if (s->boot_timeout_s < 1)
        return tb_errf(err, "--boot-timeout must be at least 1 s");
    if (s->auth_grace_s < 1)
        return tb_errf(err, "the key-refusal grace must be at least 1 s");
    if (!s->ssh_user || !*s->ssh_user || strpbrk(s->ssh_user, "@: /"))
        return tb_errf(err, "--ssh-user: not a user name");
    if (s->cpu && (!*s->cpu || strpbrk(s->cpu, " \t\n")))
        return tb_errf(err,
                       "--cpu '%s': not a CPU model (e.g. host, EPYC-v4, "
                       "Skylake-Server,-avx512f)",
                       s->cpu);
    return 0;
}
