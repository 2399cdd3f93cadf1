/* cli/vm_flags: see vm_flags.h. */
#include "cli/vm_flags.h"

#include <stddef.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opt.h"

/* "tdx=FILE" -> kind tdx, FILE; anything else is for every kind (*k = -1). */
static const char *per_kind(const char *v, int *k)
{
    static const char *const kinds[] = {"regular=", "tdx=", "snp="};
    for (int i = 0; i < 3; i++)
        if (!strncmp(v, kinds[i], strlen(kinds[i]))) {
            *k = i;
            return v + strlen(kinds[i]);
        }
    *k = -1;
    return v;
}

int cli_vm_flag_kind(void *spec, const char *flag, const char *v, tb_err *err)
{
    tb_vm_spec *s = spec;
    tb_err e;
    if (tb_vm_kind_parse_ext(v, &s->kind, &s->swiotlb, &e) < 0)
        return tb_errf(err, "%s %s: %s", flag, v, e.msg);
    return 0;
}

int cli_vm_flag_memory(void *spec, const char *flag, const char *v, tb_err *err)
{
    tb_vm_spec *s = spec;
    tb_err e;
    if (tb_vm_parse_size(v, &s->memory, &e) < 0)
        return tb_errf(err, "%s %s: %s", flag, v, e.msg);
    return 0;
}

int cli_vm_flag_pin(void *spec, const char *flag, const char *v, tb_err *err)
{
    tb_vm_spec *s = spec;
    tb_err e;
    if (tb_vm_parse_cpulist(v, s->pin, TB_VM_MAX_CPUS, &s->npin, &e) < 0)
        return tb_errf(err, "%s %s: %s", flag, v, e.msg);
    return 0;
}

int cli_vm_flag_firmware(void *spec, const char *flag, const char *v, tb_err *err)
{
    tb_vm_spec *s = spec;
    int k;
    const char *f = per_kind(v, &k);
    if (!*f)
        return tb_errf(err, "%s %s: no file", flag, v);
    if (k == TB_VM_TDX && !strcmp(f, "none"))
        return tb_errf(err, "%s %s: a TD boots OVMF (none is for regular only)", flag, v);
    if (k == TB_VM_SNP && !strcmp(f, "none"))
        return tb_errf(err, "%s %s: an SEV-SNP guest boots OVMF (none is for regular only)", flag,
                       v);
    if (k < 0)
        s->firmware = f;
    else
        s->firmware_kind[k] = f;
    return 0;
}

int cli_vm_flag_accel(void *spec, const char *flag, const char *v, tb_err *err)
{
    tb_vm_spec *s = spec;
    if (tb_vm_accel_parse(v, &s->accel) < 0)
        return tb_errf(err, "%s %s: unknown (auto, kvm, tcg)", flag, v);
    return 0;
}

int cli_vm_flag_vsock(void *spec, const char *flag, const char *v, tb_err *err)
{
    tb_vm_spec *s = spec;
    if (!strcmp(v, "auto"))
        s->vsock = TB_VM_VSOCK_AUTO;
    else if (!strcmp(v, "on"))
        s->vsock = TB_VM_VSOCK_ON;
    else if (!strcmp(v, "off"))
        s->vsock = TB_VM_VSOCK_OFF;
    else
        return tb_errf(err, "%s %s: unknown (auto, on, off)", flag, v);
    return 0;
}

int cli_vm_flag_policy(void *spec, const char *flag, const char *v, tb_err *err)
{
    tb_vm_spec *s = spec;
    char *end;
    errno = 0;
    unsigned long p = strtoul(v, &end, 0);
    if (!*v || *end || errno || p > 0xffffffffUL || v[0] == '-')
        return tb_errf(err, "%s %s: not a 32-bit number", flag, v);
    s->snp_policy = (uint32_t)p;
    return 0;
}

/* A duration (60, 60s, 2m), whole seconds rounded up. */
int cli_vm_flag_boot_timeout(void *spec, const char *flag, const char *v, tb_err *err)
{
    tb_vm_spec *s = spec;
    double sec;
    if (cli_opt_duration(flag, v, 1, 86400, &sec, err) < 0)
        return -1;
    s->boot_timeout_s = (int)ceil(sec);
    return 0;
}

int cli_vm_flag_qemu(void *spec, const char *flag, const char *v, tb_err *err)
{
    tb_vm_spec *s = spec;
    int k;
    const char *q = per_kind(v, &k);
    if (!*q)
        return tb_errf(err, "%s %s: no binary", flag, v);
    if (k < 0)
        s->qemu = q;
    else
        s->qemu_kind[k] = q;
    return 0;
}

int cli_vm_flag_cpu(void *spec, const char *flag, const char *v, tb_err *err)
{
    tb_vm_spec *s = spec;
    if (!*v || strpbrk(v, " \t\n"))
        return tb_errf(err, "%s '%s': not a CPU model (e.g. host, EPYC-v4)", flag, v);
    s->cpu = v;
    return 0;
}

const char *const cli_vm_off_on[] = {"off", "on", NULL};

int cli_vm_flag_no_snapshot(void *spec, const char *flag, const char *v, tb_err *err)
{
    (void)flag, (void)v, (void)err;
    ((tb_vm_spec *)spec)->snapshot = 0;
    return 0;
}
