/* cli/vm_flags: see vm_flags.h. */
#include "cli/vm_flags.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opt.h"

#define R required_argument
#define N no_argument

const struct option cli_vm_flags_start[] = {{"kind", R, NULL, CLI_VM_KIND},
                                            {"image", R, NULL, CLI_VM_IMAGE},
                                            {"kernel", R, NULL, CLI_VM_KERNEL},
                                            {"initrd", R, NULL, CLI_VM_INITRD},
                                            {"append", R, NULL, CLI_VM_APPEND},
                                            {"cpus", R, NULL, CLI_VM_CPUS},
                                            {"memory", R, NULL, CLI_VM_MEMORY},
                                            {"pin", R, NULL, CLI_VM_PIN},
                                            {"prealloc", N, NULL, CLI_VM_PREALLOC},
                                            {"ssh-port", R, NULL, CLI_VM_SSH_PORT},
                                            {"ssh-user", R, NULL, CLI_VM_SSH_USER},
                                            {"ssh-key", R, NULL, CLI_VM_SSH_KEY},
                                            {"firmware", R, NULL, CLI_VM_FIRMWARE},
                                            {"accel", R, NULL, CLI_VM_ACCEL},
                                            {"vsock", R, NULL, CLI_VM_VSOCK},
                                            {"cid", R, NULL, CLI_VM_CID},
                                            {"cbitpos", R, NULL, CLI_VM_CBITPOS},
                                            {"reduced-phys-bits", R, NULL, CLI_VM_RPB},
                                            {"policy", R, NULL, CLI_VM_POLICY},
                                            {"snapshot", N, NULL, CLI_VM_SNAPSHOT},
                                            {"boot-timeout", R, NULL, CLI_VM_BOOT_TIMEOUT},
                                            {"qemu", R, NULL, CLI_VM_QEMU},
                                            {"cpu", R, NULL, CLI_VM_CPU},
                                            {"seed", R, NULL, CLI_VM_SEED},
                                            {NULL, 0, NULL, 0}};

const struct option cli_vm_flags_suite[] = {{"image", R, NULL, CLI_VM_IMAGE},
                                            {"kernel", R, NULL, CLI_VM_KERNEL},
                                            {"initrd", R, NULL, CLI_VM_INITRD},
                                            {"append", R, NULL, CLI_VM_APPEND},
                                            {"vm-cpus", R, NULL, CLI_VM_CPUS},
                                            {"vm-memory", R, NULL, CLI_VM_MEMORY},
                                            {"vm-pin", R, NULL, CLI_VM_PIN},
                                            {"prealloc", N, NULL, CLI_VM_PREALLOC},
                                            {"vm-ssh-user", R, NULL, CLI_VM_SSH_USER},
                                            {"vm-ssh-key", R, NULL, CLI_VM_SSH_KEY},
                                            {"firmware", R, NULL, CLI_VM_FIRMWARE},
                                            {"accel", R, NULL, CLI_VM_ACCEL},
                                            {"vsock", R, NULL, CLI_VM_VSOCK},
                                            {"cbitpos", R, NULL, CLI_VM_CBITPOS},
                                            {"reduced-phys-bits", R, NULL, CLI_VM_RPB},
                                            {"vm-snp-policy", R, NULL, CLI_VM_POLICY},
                                            {"snapshot", N, NULL, CLI_VM_SNAPSHOT},
                                            {"no-snapshot", N, NULL, CLI_VM_NO_SNAPSHOT},
                                            {"boot-timeout", R, NULL, CLI_VM_BOOT_TIMEOUT},
                                            {"qemu", R, NULL, CLI_VM_QEMU},
                                            {"vm-cpu", R, NULL, CLI_VM_CPU},
                                            {"vm-seed", R, NULL, CLI_VM_SEED},
                                            {NULL, 0, NULL, 0}};

#undef R
#undef N

int cli_vm_flag_is(int c)
{
    return c >= CLI_VM_FIRST && c <= CLI_VM_LAST;
}

/* "--name" of code c in table (for messages). */
static void flag_name(const struct option *table, int c, char *out, size_t len)
{
    for (const struct option *o = table; o->name; o++)
        if (o->val == c) {
            snprintf(out, len, "--%s", o->name);
            return;
        }
    snprintf(out, len, "--?");
}

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

static int number(const char *cmd, const char *flag, const char *v, long lo, long hi, int *out)
{
    tb_err e;
    long n;
    if (cli_opt_long(flag, v, lo, hi, &n, &e) < 0)
        return cli_fail_code(2, cmd, "%s", e.msg);
    *out = (int)n;
    return 0;
}

int cli_vm_flag_take(const char *cmd, const struct option *table, int c, const char *v,
                     tb_vm_spec *s)
{
    char f[40];
    tb_err e;
    int rc = 0;
    flag_name(table, c, f, sizeof f);
    switch (c) {
    case CLI_VM_KIND:
        if (tb_vm_kind_parse_ext(v, &s->kind, &s->swiotlb, &e) < 0)
            return cli_fail_code(2, cmd, "%s %s: %s", f, v, e.msg);
        break;
    case CLI_VM_IMAGE:
        s->image = v;
        break;
    case CLI_VM_KERNEL:
        s->kernel = v;
        break;
    case CLI_VM_INITRD:
        s->initrd = v;
        break;
    case CLI_VM_APPEND:
        s->append = v;
        break;
    case CLI_VM_CPUS:
        rc = number(cmd, f, v, 1, TB_VM_MAX_CPUS, &s->cpus);
        break;
    case CLI_VM_MEMORY:
        if (tb_vm_parse_size(v, &s->memory, &e) < 0)
            return cli_fail_code(2, cmd, "%s %s: %s", f, v, e.msg);
        break;
    case CLI_VM_PIN:
        if (tb_vm_parse_cpulist(v, s->pin, TB_VM_MAX_CPUS, &s->npin, &e) < 0)
            return cli_fail_code(2, cmd, "%s %s: %s", f, v, e.msg);
        break;
    case CLI_VM_PREALLOC:
        s->prealloc = 1;
        break;
    case CLI_VM_SSH_PORT:
        rc = number(cmd, f, v, 1, 65535, &s->ssh_port);
        break;
    case CLI_VM_SSH_USER:
        s->ssh_user = v;
        break;
    case CLI_VM_SSH_KEY:
        s->ssh_key = v;
        break;
    case CLI_VM_FIRMWARE: {
        int k;
        const char *f2 = per_kind(v, &k);
        if (!*f2)
            return cli_fail_code(2, cmd, "%s %s: no file", f, v);
        if (k == TB_VM_TDX && !strcmp(f2, "none"))
            return cli_fail_code(2, cmd, "%s %s: a TD boots OVMF (none is for regular only)", f, v);
        if (k == TB_VM_SNP && !strcmp(f2, "none"))
            return cli_fail_code(
                2, cmd, "%s %s: an SEV-SNP guest boots OVMF (none is for regular only)", f, v);
        if (k < 0)
            s->firmware = f2;
        else
            s->firmware_kind[k] = f2;
        break;
    }
    case CLI_VM_ACCEL:
        if (tb_vm_accel_parse(v, &s->accel) < 0)
            return cli_fail_code(2, cmd, "%s %s: not auto, kvm or tcg", f, v);
        break;
    case CLI_VM_VSOCK:
        if (!strcmp(v, "auto"))
            s->vsock = TB_VM_VSOCK_AUTO;
        else if (!strcmp(v, "on"))
            s->vsock = TB_VM_VSOCK_ON;
        else if (!strcmp(v, "off"))
            s->vsock = TB_VM_VSOCK_OFF;
        else
            return cli_fail_code(2, cmd, "%s %s: not auto, on or off", f, v);
        break;
    case CLI_VM_CID: {
        long cid;
        if (cli_opt_long(f, v, 3, 0xfffffffe, &cid, &e) < 0)
            return cli_fail_code(2, cmd, "%s", e.msg);
        s->vsock_cid = (unsigned)cid;
        break;
    }
    case CLI_VM_CBITPOS:
        rc = number(cmd, f, v, 32, 63, &s->cbitpos);
        break;
    case CLI_VM_RPB:
        rc = number(cmd, f, v, 0, 63, &s->reduced_phys_bits);
        break;
    case CLI_VM_POLICY: {
        char *end;
        errno = 0;
        unsigned long p = strtoul(v, &end, 0);
        if (!*v || *end || errno || p > 0xffffffffUL || v[0] == '-')
            return cli_fail_code(2, cmd, "%s %s: not a 32-bit number", f, v);
        s->snp_policy = (uint32_t)p;
        break;
    }
    case CLI_VM_SNAPSHOT:
        s->snapshot = 1;
        break;
    case CLI_VM_BOOT_TIMEOUT: { /* a duration (60, 60s, 2m), whole seconds rounded up */
        double sec;
        if (cli_opt_duration(f, v, 1, 86400, &sec, &e) < 0)
            return cli_fail_code(2, cmd, "%s", e.msg);
        s->boot_timeout_s = (int)ceil(sec);
        break;
    }
    case CLI_VM_QEMU: {
        int k;
        const char *q = per_kind(v, &k);
        if (!*q)
            return cli_fail_code(2, cmd, "%s %s: no binary", f, v);
        if (k < 0)
            s->qemu = q;
        else
            s->qemu_kind[k] = q;
        break;
    }
    case CLI_VM_CPU:
        if (!*v || strpbrk(v, " \t\n"))
            return cli_fail_code(2, cmd, "%s '%s': not a CPU model (e.g. host, EPYC-v4)", f, v);
        s->cpu = v;
        break;
    case CLI_VM_SEED:
        if (!strcmp(v, "on"))
            s->seed = 1;
        else if (!strcmp(v, "off"))
            s->seed = 0;
        else
            return cli_fail_code(2, cmd, "%s %s: not on or off", f, v);
        break;
    case CLI_VM_NO_SNAPSHOT:
        s->snapshot = 0;
        break;
    default:
        return cli_fail_code(2, cmd, "%s: not a VM flag", f);
    }
    return rc;
}

int cli_opt_append(struct option *out, int *n, int cap, const struct option *add)
{
    for (const struct option *o = add; o->name; o++) {
        if (*n + 1 >= cap)
            return -1;
        out[(*n)++] = *o;
    }
    out[*n] = (struct option){NULL, 0, NULL, 0};
    return 0;
}
