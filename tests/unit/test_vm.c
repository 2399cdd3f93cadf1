/* Unit tests for src/vm: the spec parsers and checks, the host decision on
 * recorded hosts (a nested VM without KVM and Debian 12's QEMU 7.2, a TDX host,
 * an SNP host), the command lines of the three kinds (identical but for the
 * TEE's options, each option's reason, QEMU's documented requirements), the
 * state file, the run-dir list, pid ownership and the preflight refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <sched.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/file.h"
#include "vm/vm.h"

/* ---- helpers ---- */

static void spec_kernel(tb_vm_spec *s, tb_vm_kind kind)
{
    tb_vm_spec_init(s);
    snprintf(s->name, sizeof s->name, "t1");
    s->kind = kind;
    s->kernel = "/boot/vmlinuz";
    s->initrd = "/boot/initrd.img";
    s->append = "quiet";
    s->ssh_port = 40022;
    s->vsock = TB_VM_VSOCK_ON;
}

/* A QEMU build as its probe reads it: which TEE objects -object help lists, and
   their properties (QMP qom-list-properties). */
static void qemu_build(tb_vm_qemu *q, const char *version, int tdx, int snp)
{
    memset(q, 0, sizeof *q);
    snprintf(q->path, sizeof q->path, "/usr/bin/qemu-system-x86_64");
    snprintf(q->how, sizeof q->how, "qemu-system-x86_64 in PATH");
    q->found = 1;
    snprintf(q->version, sizeof q->version, "QEMU emulator version %s (test)", version);
    tb_vm_parse_qemu_version(q->version, &q->major, &q->minor, &q->micro);
    q->objects = q->backend_ram = q->backend_memfd = q->sev_guest = 1;
    q->tdx_guest = tdx;
    q->sev_snp_guest = snp;
    q->tdx_props_known = tdx;
    q->snp_props_known = snp;
    if (tdx)
        snprintf(q->tdx_props, sizeof q->tdx_props,
                 " attributes sept-ve-disable mrconfigid mrowner mrownerconfig "
                 "quote-generation-socket ");
    if (snp)
        snprintf(q->snp_props, sizeof q->snp_props,
                 " sev-device kernel-hashes policy id-block cbitpos reduced-phys-bits ");
}

/* Debian 12's OVMF.fd: TDVF and SNP metadata (as firmware.c reads the real file). */
static void fw_debian(tb_vm_fw *f)
{
    memset(f, 0, sizeof *f);
    snprintf(f->path, sizeof f->path, "/usr/share/ovmf/OVMF.fd");
    f->present = f->ovmf = f->tdx = f->sev = f->snp = f->sev_es = 1;
    f->size = 2097152;
    f->tdx_sections = 6;
    f->sev_descs = 5;
    snprintf(f->sha256, sizeof f->sha256, "%064d", 7);
}

static void host_kinds(tb_vm_host *h, const char *version, int tdx, int snp)
{
    for (int k = 0; k < TB_VM_KINDS; k++) {
        qemu_build(&h->qemu[k], version, tdx, snp);
        fw_debian(&h->fw[k]);
        snprintf(h->fw_how[k], sizeof h->fw_how[k], "test");
    }
}

/* A nested VM like the development machines: no /dev/kvm, QEMU 7.2 (no TEE objects),
   no TDX/SNP in KVM. */
static void host_nested(tb_vm_host *h)
{
    memset(h, 0, sizeof *h);
    host_kinds(h, "7.2.22", 0, 0);
    h->kvm = 0;
    snprintf(h->kvm_why, sizeof h->kvm_why, "absent");
    snprintf(h->kvm_src, sizeof h->kvm_src, "/dev/kvm: No such file or directory");
    h->tdx = 0;
    snprintf(h->tdx_why, sizeof h->tdx_why, "/sys/module/kvm_intel absent");
    h->snp = 0;
    snprintf(h->snp_why, sizeof h->snp_why, "/sys/module/kvm_amd absent");
    h->vm_types = -1;
    h->intel = 1;
    h->dev_sev = 0;
    snprintf(h->dev_sev_why, sizeof h->dev_sev_why, "absent");
    h->cbitpos = -1;
    h->vhost_vsock = 0;
}

/* Ubuntu 25.10: upstream KVM TDX (VM type 5), QEMU 10.1 with both TEE objects. */
static void host_tdx(tb_vm_host *h)
{
    host_nested(h);
    host_kinds(h, "10.1.0", 1, 1);
    h->kvm = 1;
    snprintf(h->kvm_why, sizeof h->kvm_why, "usable (API 12)");
    h->tdx = 1;
    h->vm_types = 0x21;
    h->vhost_vsock = 1;
}

/* An EPYC host: kvm_amd sev_snp=Y, VM types default/SEV/SEV-ES/SNP, /dev/sev rw. */
static void host_snp(tb_vm_host *h)
{
    host_nested(h);
    host_kinds(h, "9.2.1", 0, 1);
    h->kvm = 1;
    h->snp = 1;
    h->intel = 0;
    h->amd = 1;
    h->vm_types = 0x1d;
    h->dev_sev = 1;
    h->cbitpos = 51;
    h->vhost_vsock = 1;
}

static void paths(tb_vm_paths *p)
{
    tb_err e;
    assert_int_equal(tb_vm_paths_make("/run/user/1000/teebench/vm", "t1", p, &e), 0);
}

/* Builds the command line of s on h (not a dry run unless asked). */
static void build(const tb_vm_spec *s, const tb_vm_host *h, int dry, tb_vm_cmd *cmd,
                  tb_vm_plan *plan)
{
    tb_vm_paths p;
    tb_err e;
    paths(&p);
    if (tb_vm_plan_make(s, h, dry, plan, &e) < 0)
        fail_msg("plan: %s", e.msg);
    if (tb_vm_cmdline(s, plan, &p, cmd, &e) < 0)
        fail_msg("cmdline: %s", e.msg);
}

/* The option whose flag is flag and which has a property starting with prefix. */
static const tb_vm_opt *find_opt(const tb_vm_cmd *c, const char *flag, const char *prefix)
{
    for (int i = 0; i < c->nopts; i++) {
        if (strcmp(c->opts[i].flag, flag))
            continue;
        if (!prefix)
            return &c->opts[i];
        for (int j = 0; j < c->opts[i].nprops; j++)
            if (!strncmp(c->opts[i].props[j].text, prefix, strlen(prefix)))
                return &c->opts[i];
    }
    return NULL;
}

static const tb_vm_prop *find_prop(const tb_vm_cmd *c, const char *flag, const char *prefix)
{
    const tb_vm_opt *o = find_opt(c, flag, prefix);
    if (!o)
        return NULL;
    for (int j = 0; j < o->nprops; j++)
        if (!strncmp(o->props[j].text, prefix, strlen(prefix)))
            return &o->props[j];
    return NULL;
}

/* "flag prop" of every option/property that is not the TEE's, one per line. */
static char *shared_part(const tb_vm_cmd *c)
{
    tb_buf b = {0};
    for (int i = 0; i < c->nopts; i++) {
        const tb_vm_opt *o = &c->opts[i];
        if (o->tee)
            continue;
        if (o->nprops == 0)
            tb_buf_printf(&b, "%s\n", o->flag);
        for (int j = 0; j < o->nprops; j++)
            if (!o->props[j].tee)
                tb_buf_printf(&b, "%s %s\n", o->flag, o->props[j].text);
    }
    return (char *)b.p;
}

/* ---- spec ---- */

static void test_sizes(void **state)
{
    (void)state;
    uint64_t v;
    tb_err e;
    assert_int_equal(tb_vm_parse_size("4G", &v, &e), 0);
    assert_true(v == 4ull << 30);
    assert_int_equal(tb_vm_parse_size("512M", &v, &e), 0);
    assert_true(v == 512ull << 20);
    assert_int_equal(tb_vm_parse_size("1024", &v, &e), 0); /* bare: MiB, like -m */
    assert_true(v == 1ull << 30);
    assert_int_equal(tb_vm_parse_size("1t", &v, &e), 0);
    assert_true(v == 1ull << 40);
    const char *bad[] = {"", "0", "G", "-1G", "4GB", "4X", "99999999999999999999", "17179869184T"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(tb_vm_parse_size(bad[i], &v, &e), -1);
    char t[32];
    tb_vm_size_text(4ull << 30, t, sizeof t);
    assert_string_equal(t, "4G");
    tb_vm_size_text(1536ull << 20, t, sizeof t);
    assert_string_equal(t, "1536M");
    tb_vm_size_text(2ull << 40, t, sizeof t);
    assert_string_equal(t, "2T");
}

static void test_cpulist(void **state)
{
    (void)state;
    int cpus[16], n;
    tb_err e;
    assert_int_equal(tb_vm_parse_cpulist("2,3", cpus, 16, &n, &e), 0);
    assert_int_equal(n, 2);
    assert_int_equal(cpus[0], 2);
    assert_int_equal(cpus[1], 3);
    assert_int_equal(tb_vm_parse_cpulist("0,4-6", cpus, 16, &n, &e), 0);
    assert_int_equal(n, 4);
    assert_int_equal(cpus[3], 6);
    const char *bad[] = {"", ",", "1,", "3-1", "1,1", "0-2,2", "a", "1-", "-1", "1024", "1 2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(tb_vm_parse_cpulist(bad[i], cpus, 16, &n, &e), -1);
    assert_int_equal(tb_vm_parse_cpulist("0-16", cpus, 16, &n, &e), -1); /* 17 > max */
}

static void test_spec_check(void **state)
{
    (void)state;
    tb_vm_spec s;
    tb_err e;
    spec_kernel(&s, TB_VM_REGULAR);
    assert_int_equal(tb_vm_spec_check(&s, &e), 0);
    snprintf(s.name, sizeof s.name, "../x");
    assert_int_equal(tb_vm_spec_check(&s, &e), -1);
    assert_non_null(strstr(e.msg, "not a VM name"));
    snprintf(s.name, sizeof s.name, "-x");
    assert_int_equal(tb_vm_spec_check(&s, &e), -1);
    s.name[0] = 0;
    assert_int_equal(tb_vm_spec_check(&s, &e), -1);

    spec_kernel(&s, TB_VM_TDX);
    s.accel = TB_VM_ACCEL_TCG;
    assert_int_equal(tb_vm_spec_check(&s, &e), -1);
    assert_non_null(strstr(e.msg, "cannot run under TCG"));

    spec_kernel(&s, TB_VM_REGULAR);
    s.kernel = NULL;
    assert_int_equal(tb_vm_spec_check(&s, &e), -1);
    assert_non_null(strstr(e.msg, "nothing to boot"));

    spec_kernel(&s, TB_VM_SNP);
    s.firmware = "none";
    assert_int_equal(tb_vm_spec_check(&s, &e), -1);
    assert_non_null(strstr(e.msg, "--firmware none"));

    spec_kernel(&s, TB_VM_REGULAR);
    s.cpus = 2;
    s.npin = 3;
    assert_int_equal(tb_vm_spec_check(&s, &e), -1);
    assert_non_null(strstr(e.msg, "one-to-one"));

    spec_kernel(&s, TB_VM_REGULAR);
    s.memory = (64ull << 20) + 1;
    assert_int_equal(tb_vm_spec_check(&s, &e), -1);

    tb_vm_kind k;
    assert_int_equal(tb_vm_kind_parse("tdx", &k), 0);
    assert_int_equal(k, TB_VM_TDX);
    assert_int_equal(tb_vm_kind_parse("sev", &k), -1);
    assert_string_equal(tb_vm_kind_name(TB_VM_SNP), "snp");
}

/* ---- host ---- */

static void test_qemu_version(void **state)
{
    (void)state;
    int a, b, c;
    assert_int_equal(tb_vm_parse_qemu_version("QEMU emulator version 7.2.22 (Debian "
                                              "1:7.2+dfsg-7+deb12u18+b3)\nCopyright (c) 2003",
                                              &a, &b, &c),
                     0);
    assert_int_equal(a, 7);
    assert_int_equal(b, 2);
    assert_int_equal(c, 22);
    assert_int_equal(tb_vm_parse_qemu_version("QEMU emulator version 10.1.0\n", &a, &b, &c), 0);
    assert_int_equal(a, 10);
    assert_int_equal(b, 1);
    assert_int_equal(tb_vm_parse_qemu_version("QEMU emulator version 9.1\n", &a, &b, &c), 0);
    assert_int_equal(c, 0);
    assert_int_equal(tb_vm_parse_qemu_version("qemu-system-x86_64: not found", &a, &b, &c), -1);
    assert_int_equal(tb_vm_parse_qemu_version("version x.y", &a, &b, &c), -1);
    assert_int_equal(tb_vm_parse_qemu_version(NULL, &a, &b, &c), -1);
}

static void test_host_from_env(void **state)
{
    (void)state;
    json_error_t je;
    json_t *env = json_loads(
        "{\"kvm\":{\"value\":\"usable (API 12)\",\"source\":\"/dev/kvm ioctl\"},"
        "\"tdx_host\":{\"value\":true,\"source\":\"/sys/module/kvm_intel/parameters/tdx\"},"
        "\"sev_snp_host\":{\"value\":false,\"source\":\"/sys/module/kvm_amd absent\"},"
        "\"kvm_vm_types\":{\"value\":33,\"source\":\"KVM_CHECK_EXTENSION\"},"
        "\"cpu_vendor\":{\"value\":\"GenuineIntel\",\"source\":\"/proc/cpuinfo\"},"
        "\"sev_device\":{\"value\":\"absent\",\"source\":\"/dev/sev: No such file\"},"
        "\"sev_cbitpos\":{\"value\":\"none\",\"source\":\"CPUID 0x8000001F: no SEV\"}}",
        0, &je);
    assert_non_null(env);
    tb_vm_host h;
    memset(&h, 0, sizeof h);
    tb_vm_host_from_env(env, &h);
    json_decref(env);
    assert_int_equal(h.kvm, 1);
    assert_int_equal(h.tdx, 1);
    assert_int_equal(h.snp, 0);
    assert_true(h.vm_types == 0x21);
    assert_int_equal(h.intel, 1);
    assert_int_equal(h.amd, 0);
    assert_int_equal(h.dev_sev, 0);
    assert_string_equal(h.dev_sev_src, "/dev/sev: No such file");
    assert_int_equal(h.cbitpos, -1);
    assert_non_null(strstr(h.snp_why, "kvm_amd absent"));

    env = json_loads("{\"kvm\":{\"value\":\"absent\",\"source\":\"/dev/kvm: No such file\"},"
                     "\"tdx_host\":{\"value\":\"unknown\",\"source\":\"unreadable\"},"
                     "\"sev_device\":{\"value\":\"read-write\",\"source\":\"/dev/sev\"},"
                     "\"sev_cbitpos\":{\"value\":51,\"source\":\"CPUID\"}}",
                     0, &je);
    tb_vm_host_from_env(env, &h);
    json_decref(env);
    assert_int_equal(h.kvm, 0);
    assert_string_equal(h.kvm_why, "absent");
    assert_int_equal(h.tdx, -1);
    assert_int_equal(h.snp, -1); /* missing fact: unknown */
    assert_true(h.vm_types == -1);
    assert_int_equal(h.dev_sev, 1);
    assert_int_equal(h.cbitpos, 51);
}

/* The check called name in c, or NULL. */
static const tb_vm_check *check_of(const tb_vm_checks *c, const char *name)
{
    for (int i = 0; i < c->n; i++)
        if (!strcmp(c->c[i].name, name))
            return &c->c[i];
    return NULL;
}

static void test_plan_nested_host(void **state)
{
    (void)state;
    tb_vm_host h;
    host_nested(&h);
    tb_vm_spec s;
    tb_vm_plan p;
    tb_err e;

    /* regular: TCG with a loud note, never silently */
    spec_kernel(&s, TB_VM_REGULAR);
    s.vsock = TB_VM_VSOCK_AUTO;
    assert_int_equal(tb_vm_plan_make(&s, &h, 0, &p, &e), 0);
    assert_int_equal(p.tcg, 1);
    assert_int_equal(p.vsock, 0);
    assert_true(p.nnotes >= 2);
    assert_non_null(strstr(p.notes[0], "TCG EMULATION"));
    assert_non_null(strstr(p.notes[0], "no performance figure"));
    assert_non_null(strstr(p.notes[0], "/dev/kvm"));
    assert_string_equal(p.cpu, "max");

    /* --accel kvm without KVM: refused, except in a dry run */
    s.accel = TB_VM_ACCEL_KVM;
    assert_int_equal(tb_vm_plan_make(&s, &h, 0, &p, &e), -1);
    assert_non_null(strstr(e.msg, "kvm missing"));
    assert_non_null(strstr(e.msg, "/dev/kvm"));
    assert_int_equal(tb_vm_plan_make(&s, &h, 1, &p, &e), 0);
    assert_int_equal(p.tcg, 0);

    /* tdx: refused with the first missing check, one line, naming where it was read */
    spec_kernel(&s, TB_VM_TDX);
    assert_int_equal(tb_vm_plan_make(&s, &h, 0, &p, &e), -1);
    assert_null(strchr(e.msg, '\n'));
    assert_non_null(strstr(e.msg, "--kind tdx cannot start here: kvm missing"));
    assert_non_null(strstr(e.msg, "No such file or directory"));
    assert_non_null(strstr(e.msg, "teebench vm check --kind tdx"));
    /* every check is there: the kernel's, QEMU's (no tdx-guest in 7.2), firmware ok */
    tb_vm_checks c;
    tb_vm_host_check(&s, &h, &c);
    assert_string_equal(c.c[c.first_missing].name, "kvm");
    assert_int_equal(check_of(&c, "kvm-tdx")->ok, 0);
    assert_int_equal(check_of(&c, "qemu-tdx")->ok, 0);
    assert_non_null(strstr(check_of(&c, "qemu-tdx")->detail, "lists no tdx-guest"));
    assert_int_equal(check_of(&c, "firmware")->ok, 1);
    assert_null(check_of(&c, "sev-device"));
    /* never a TCG fallback, even in a dry run; the dry run says the properties are
       assumed (this QEMU lists no tdx-guest) */
    assert_int_equal(tb_vm_plan_make(&s, &h, 1, &p, &e), 0);
    assert_int_equal(p.tcg, 0);
    assert_int_equal(p.props_assumed, 1);
    assert_int_equal(p.tdx_qgs, 1);
    s.accel = TB_VM_ACCEL_TCG;
    assert_int_equal(tb_vm_plan_make(&s, &h, 1, &p, &e), -1);

    /* snp: the same, plus /dev/sev and the missing CPUID leaf */
    spec_kernel(&s, TB_VM_SNP);
    assert_int_equal(tb_vm_plan_make(&s, &h, 0, &p, &e), -1);
    assert_non_null(strstr(e.msg, "--kind snp cannot start here: kvm missing"));
    tb_vm_host_check(&s, &h, &c);
    assert_int_equal(check_of(&c, "kvm-snp")->ok, 0);
    assert_int_equal(check_of(&c, "sev-device")->ok, 0);
    assert_int_equal(check_of(&c, "cbitpos")->ok, 0);
    assert_int_equal(check_of(&c, "qemu-snp")->ok, 0);
    /* a dry run uses a marked placeholder for cbitpos; reduced-phys-bits is the guest's 1 */
    assert_int_equal(tb_vm_plan_make(&s, &h, 1, &p, &e), 0);
    assert_int_equal(p.cbit_placeholder, 1);
    assert_int_equal(p.cbitpos, 51);
    assert_int_equal(p.reduced_phys_bits, 1);
    int placeholder_noted = 0;
    for (int i = 0; i < p.nnotes; i++)
        placeholder_noted |= strstr(p.notes[i], "PLACEHOLDER") != NULL;
    assert_true(placeholder_noted);
    /* explicit values are no placeholders */
    s.cbitpos = 47;
    s.reduced_phys_bits = 5;
    assert_int_equal(tb_vm_plan_make(&s, &h, 1, &p, &e), 0);
    assert_int_equal(p.cbit_placeholder, 0);
    assert_int_equal(p.cbitpos, 47);
    assert_int_equal(p.reduced_phys_bits, 5);

    /* QEMU missing altogether */
    h.qemu[TB_VM_REGULAR].found = 0;
    snprintf(h.qemu[TB_VM_REGULAR].why, sizeof h.qemu[0].why,
             "no qemu-system-x86_64 in PATH, no /usr/libexec/qemu-kvm");
    spec_kernel(&s, TB_VM_REGULAR);
    assert_int_equal(tb_vm_plan_make(&s, &h, 0, &p, &e), -1);
    assert_non_null(strstr(e.msg, "qemu missing"));
    assert_non_null(strstr(e.msg, "no qemu-system-x86_64 in PATH"));
}

static void test_plan_tee_hosts(void **state)
{
    (void)state;
    tb_vm_host h;
    tb_vm_spec s;
    tb_vm_plan p;
    tb_err e;
    host_tdx(&h);
    spec_kernel(&s, TB_VM_TDX);
    assert_int_equal(tb_vm_plan_make(&s, &h, 0, &p, &e), 0);
    assert_int_equal(p.tcg, 0);
    assert_int_equal(p.nnotes, 0);
    assert_int_equal(p.props_assumed, 0);
    assert_int_equal(p.tdx_qgs, 1);
    assert_int_equal(p.tdx_sept, 1);
    assert_string_equal(p.qemu, "/usr/bin/qemu-system-x86_64");
    assert_string_equal(p.firmware, "/usr/share/ovmf/OVMF.fd");
    tb_vm_checks c;
    tb_vm_host_check(&s, &h, &c);
    assert_int_equal(c.first_missing, -1);
    assert_non_null(strstr(c.abi, "upstream KVM TDX ABI: VM type 5"));
    spec_kernel(&s, TB_VM_REGULAR);
    assert_int_equal(tb_vm_plan_make(&s, &h, 0, &p, &e), 0);
    assert_int_equal(p.tcg, 0);
    spec_kernel(&s, TB_VM_SNP); /* an Intel TDX host is no SNP host */
    assert_int_equal(tb_vm_plan_make(&s, &h, 0, &p, &e), -1);
    assert_non_null(strstr(e.msg, "kvm-snp missing"));
    /* --vsock on without the device */
    spec_kernel(&s, TB_VM_TDX);
    h.vhost_vsock = 0;
    assert_int_equal(tb_vm_plan_make(&s, &h, 0, &p, &e), -1);
    assert_non_null(strstr(e.msg, "vsock missing"));
    assert_non_null(strstr(e.msg, "/dev/vhost-vsock"));

    host_snp(&h);
    spec_kernel(&s, TB_VM_SNP);
    assert_int_equal(tb_vm_plan_make(&s, &h, 0, &p, &e), 0);
    assert_int_equal(p.cbitpos, 51);
    assert_int_equal(p.reduced_phys_bits, 1);
    assert_int_equal(p.cbit_placeholder, 0);
    assert_int_equal(p.snp_policy, 1);
    tb_vm_host_check(&s, &h, &c);
    assert_non_null(strstr(c.abi, "VM type 4"));
    /* /dev/sev not writable: refused with that */
    h.dev_sev = 0;
    snprintf(h.dev_sev_why, sizeof h.dev_sev_why, "read-only");
    assert_int_equal(tb_vm_plan_make(&s, &h, 0, &p, &e), -1);
    assert_non_null(strstr(e.msg, "sev-device missing: /dev/sev is read-only"));
    host_snp(&h);
    spec_kernel(&s, TB_VM_TDX);
    assert_int_equal(tb_vm_plan_make(&s, &h, 0, &p, &e), -1);
    assert_non_null(strstr(e.msg, "kvm-tdx missing"));
}

/* The note of a TEE object whose properties QEMU did not show, in its three wordings
   (QEMU not found, the object not listed, its properties not listed), for both TEE
   objects: the properties of upstream QEMU are assumed and the plan says which. */
static void test_plan_props_assumed(void **state)
{
    (void)state;
    static const struct {
        tb_vm_kind kind;
        int found, listed;
        const char *note;
    } cases[] = {
        {TB_VM_TDX, 1, 1,
         "PROPERTIES ASSUMED: /usr/bin/qemu-system-x86_64 did not list tdx-guest's properties: "
         "the tdx-guest object shows the properties of upstream QEMU >= 10.1 "
         "(docs/system/i386/tdx.rst)"},
        {TB_VM_TDX, 1, 0,
         "PROPERTIES ASSUMED: /usr/bin/qemu-system-x86_64 lists no tdx-guest: the tdx-guest "
         "object shows the properties of upstream QEMU >= 10.1 (docs/system/i386/tdx.rst)"},
        {TB_VM_TDX, 0, 0,
         "PROPERTIES ASSUMED: QEMU was not found: the tdx-guest object shows the properties of "
         "upstream QEMU >= 10.1 (docs/system/i386/tdx.rst)"},
        {TB_VM_SNP, 1, 1,
         "PROPERTIES ASSUMED: /usr/bin/qemu-system-x86_64 did not list sev-snp-guest's "
         "properties: the sev-snp-guest object shows the properties of upstream QEMU >= 9.1 "
         "(docs/system/i386/amd-memory-encryption.rst)"},
        {TB_VM_SNP, 1, 0,
         "PROPERTIES ASSUMED: /usr/bin/qemu-system-x86_64 lists no sev-snp-guest: the "
         "sev-snp-guest object shows the properties of upstream QEMU >= 9.1 "
         "(docs/system/i386/amd-memory-encryption.rst)"},
        {TB_VM_SNP, 0, 0,
         "PROPERTIES ASSUMED: QEMU was not found: the sev-snp-guest object shows the properties "
         "of upstream QEMU >= 9.1 (docs/system/i386/amd-memory-encryption.rst)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tb_vm_host h;
        tb_vm_spec s;
        tb_vm_plan p;
        tb_err e;
        int tdx = cases[i].kind == TB_VM_TDX;
        if (tdx)
            host_tdx(&h);
        else
            host_snp(&h);
        tb_vm_qemu *q = &h.qemu[cases[i].kind];
        if (tdx) {
            q->tdx_props_known = 0;
            q->tdx_guest = cases[i].listed;
        } else {
            q->snp_props_known = 0;
            q->sev_snp_guest = cases[i].listed;
        }
        if (!cases[i].found) {
            q->found = 0;
            q->path[0] = 0;
        }
        spec_kernel(&s, cases[i].kind);
        if (tb_vm_plan_make(&s, &h, 1, &p, &e) < 0)
            fail_msg("case %zu: %s", i, e.msg);
        assert_int_equal(p.props_assumed, 1);
        int seen = 0;
        for (int k = 0; k < p.nnotes; k++)
            seen |= !strcmp(p.notes[k], cases[i].note);
        if (!seen)
            fail_msg("case %zu: no note \"%s\" (first: \"%s\")", i, cases[i].note,
                     p.nnotes ? p.notes[0] : "");
        assert_int_equal(tdx ? p.tdx_qgs && p.tdx_sept : p.snp_policy, 1);
    }
}

/* Capabilities decide, never version numbers: a QEMU 10.1 built without TDX is refused,
   a vendor's 8.2.2 with TDX on its pre-upstream KVM accepted (the old rule of "QEMU >=
   10.1" did the opposite of both). */
static void test_capabilities_not_versions(void **state)
{
    (void)state;
    tb_vm_host h;
    tb_vm_spec s;
    tb_vm_plan p;
    tb_err e;
    tb_vm_checks c;
    spec_kernel(&s, TB_VM_TDX);

    host_tdx(&h);
    host_kinds(&h, "10.1.0", 0, 1); /* --disable-tdx */
    assert_int_equal(tb_vm_plan_make(&s, &h, 0, &p, &e), -1);
    assert_non_null(strstr(e.msg, "qemu-tdx missing: this QEMU lists no tdx-guest"));
    assert_non_null(strstr(e.msg, "10.1.0")); /* in the message only */

    /* Canonical's 24.04: linux-intel 6.8 offers TDX as VM type 2, QEMU 8.2.2+tdx */
    host_tdx(&h);
    host_kinds(&h, "8.2.2", 1, 0);
    snprintf(h.qemu[TB_VM_TDX].tdx_props, sizeof h.qemu[0].tdx_props,
             " sept-ve-disable mrconfigid mrowner mrownerconfig quote-generation-socket ");
    h.vm_types = 0x5;
    assert_int_equal(tb_vm_plan_make(&s, &h, 0, &p, &e), 0);
    assert_int_equal(p.tdx_qgs, 1);
    tb_vm_host_check(&s, &h, &c);
    assert_non_null(strstr(c.abi, "pre-upstream KVM TDX ABI: VM type 2 on an Intel CPU"));
    assert_non_null(strstr(check_of(&c, "qemu-tdx")->detail, "must be that stack's"));
    assert_non_null(strstr(check_of(&c, "qemu-tdx")->detail, "8.2.2"));
    /* type 2 on an AMD CPU is upstream's SEV, not TDX */
    h.intel = 0;
    h.amd = 1;
    assert_int_equal(tb_vm_plan_make(&s, &h, 0, &p, &e), -1);
    assert_non_null(strstr(e.msg, "kvm-vm-type missing: KVM offers VM types 0x5: no TDX"));
    /* a kernel that reports no VM types (before 6.8) but kvm_intel tdx=Y: accepted, the
       ABI unknown */
    h.intel = 1;
    h.amd = 0;
    h.vm_types = 0;
    assert_int_equal(tb_vm_plan_make(&s, &h, 0, &p, &e), 0);
    tb_vm_host_check(&s, &h, &c);
    assert_non_null(strstr(c.abi, "ABI unknown"));
    /* a kernel with VM types but no TDX among them */
    h.vm_types = 0x3;
    assert_int_equal(tb_vm_plan_make(&s, &h, 0, &p, &e), -1);
    assert_non_null(strstr(e.msg, "kvm-vm-type missing"));
}

/* Each optional property of the TEE object only when the build lists it. */
static void test_properties_of_the_build(void **state)
{
    (void)state;
    tb_vm_host h;
    tb_vm_spec s;
    tb_vm_cmd c;
    tb_vm_plan p;
    host_tdx(&h);
    spec_kernel(&s, TB_VM_TDX);
    snprintf(h.qemu[TB_VM_TDX].tdx_props, sizeof h.qemu[0].tdx_props, " sept-ve-disable ");
    build(&s, &h, 0, &c, &p);
    assert_int_equal(p.tdx_qgs, 0);
    assert_null(find_prop(&c, "-object", "{"));
    assert_non_null(find_prop(&c, "-object", "tdx-guest"));
    assert_non_null(find_prop(&c, "-object", "id=tdx0"));
    assert_non_null(find_prop(&c, "-object", "sept-ve-disable=on"));
    int noted = 0;
    for (int i = 0; i < p.nnotes; i++)
        noted |= strstr(p.notes[i], "no quote-generation-socket") != NULL;
    assert_true(noted);
    tb_vm_cmd_free(&c);
    h.qemu[TB_VM_TDX].tdx_props[0] = 0; /* neither */
    build(&s, &h, 0, &c, &p);
    assert_null(find_prop(&c, "-object", "sept-ve-disable"));
    tb_vm_cmd_free(&c);
    /* quote-generation-socket without sept-ve-disable: JSON without it */
    snprintf(h.qemu[TB_VM_TDX].tdx_props, sizeof h.qemu[0].tdx_props, " quote-generation-socket ");
    build(&s, &h, 0, &c, &p);
    const tb_vm_prop *j = find_prop(&c, "-object", "{");
    assert_non_null(j);
    assert_null(strstr(j->text, "sept-ve-disable"));
    assert_non_null(strstr(j->text, "quote-generation-socket"));
    tb_vm_cmd_free(&c);

    host_snp(&h);
    spec_kernel(&s, TB_VM_SNP);
    snprintf(h.qemu[TB_VM_SNP].snp_props, sizeof h.qemu[0].snp_props,
             " cbitpos reduced-phys-bits ");
    build(&s, &h, 0, &c, &p);
    assert_null(find_prop(&c, "-object", "policy="));
    assert_non_null(find_prop(&c, "-object", "cbitpos=51"));
    tb_vm_cmd_free(&c);
    /* a build whose list lacks cbitpos cannot make an SNP guest */
    snprintf(h.qemu[TB_VM_SNP].snp_props, sizeof h.qemu[0].snp_props, " policy ");
    tb_err e;
    assert_int_equal(tb_vm_plan_make(&s, &h, 0, &p, &e), -1);
    assert_non_null(strstr(e.msg, "qemu-snp-props missing"));
    /* a build whose list is unknown (QMP failed): the documented set, a note */
    h.qemu[TB_VM_SNP].snp_props_known = 0;
    snprintf(h.qemu[TB_VM_SNP].props_why, sizeof h.qemu[0].props_why, "QEMU gave no answer");
    assert_int_equal(tb_vm_plan_make(&s, &h, 0, &p, &e), 0);
    assert_int_equal(p.props_assumed, 1);
    assert_int_equal(p.snp_policy, 1);
}

/* The firmware each kind boots, chosen by what the files carry. */
static void test_firmware_choice(void **state)
{
    (void)state;
    tb_vm_fw c[4];
    char how[400];
    memset(c, 0, sizeof c);
    /* CentOS Stream: OVMF.inteltdx.fd (TDVF only), OVMF.amdsev.fd (SNP), OVMF_CODE.fd */
    snprintf(c[0].path, sizeof c[0].path, "/usr/share/ovmf/OVMF.fd");
    snprintf(c[0].why, sizeof c[0].why, "No such file");
    snprintf(c[1].path, sizeof c[1].path, "/usr/share/edk2/ovmf/OVMF.inteltdx.fd");
    c[1].present = c[1].ovmf = c[1].tdx = 1;
    snprintf(c[2].path, sizeof c[2].path, "/usr/share/edk2/ovmf/OVMF.amdsev.fd");
    c[2].present = c[2].ovmf = c[2].sev = c[2].snp = 1;
    snprintf(c[3].path, sizeof c[3].path, "/usr/share/edk2/ovmf/OVMF_CODE.fd");
    c[3].present = c[3].ovmf = 1;
    assert_int_equal(tb_vm_fw_choose(TB_VM_TDX, c, 4, 0, how, sizeof how), 1);
    assert_non_null(strstr(how, "TDVF"));
    assert_int_equal(tb_vm_fw_choose(TB_VM_SNP, c, 4, 0, how, sizeof how), 2);
    /* the regular VM boots what this host's TEE kind boots */
    assert_int_equal(tb_vm_fw_choose(TB_VM_REGULAR, c, 4, TB_VM_TDX, how, sizeof how), 1);
    assert_non_null(strstr(how, "no difference"));
    assert_int_equal(tb_vm_fw_choose(TB_VM_REGULAR, c, 4, TB_VM_SNP, how, sizeof how), 2);
    assert_int_equal(tb_vm_fw_choose(TB_VM_REGULAR, c, 4, 0, how, sizeof how), 1);
    /* only a plain OVMF: regular boots it, tdx gets it to report what it lacks */
    c[1].present = c[2].present = 0;
    assert_int_equal(tb_vm_fw_choose(TB_VM_REGULAR, c, 4, 0, how, sizeof how), 3);
    assert_int_equal(tb_vm_fw_choose(TB_VM_TDX, c, 4, 0, how, sizeof how), 3);
    assert_non_null(strstr(how, "none has TDVF metadata"));
    /* nothing at all */
    c[3].present = 0;
    assert_int_equal(tb_vm_fw_choose(TB_VM_SNP, c, 4, 0, how, sizeof how), -1);
    assert_non_null(strstr(how, "/usr/share/edk2/ovmf/OVMF.inteltdx.fd"));

    /* a firmware without TDVF metadata refuses a TD, naming what it lacks */
    tb_vm_host h;
    host_tdx(&h);
    h.fw[TB_VM_TDX].tdx = 0;
    snprintf(h.fw[TB_VM_TDX].tdx_why, sizeof h.fw[0].tdx_why,
             "no TDX metadata entry in the OVMF table");
    tb_vm_spec s;
    tb_vm_plan p;
    tb_err e;
    spec_kernel(&s, TB_VM_TDX);
    assert_int_equal(tb_vm_plan_make(&s, &h, 0, &p, &e), -1);
    assert_non_null(strstr(e.msg, "firmware missing"));
    assert_non_null(strstr(e.msg, "no TDX metadata entry"));
    /* per-kind firmware and QEMU in the spec */
    s.firmware = "/all.fd";
    s.firmware_kind[TB_VM_TDX] = "/td.fd";
    s.qemu_kind[TB_VM_SNP] = "/opt/snp/qemu";
    assert_string_equal(tb_vm_spec_firmware(&s, TB_VM_TDX), "/td.fd");
    assert_string_equal(tb_vm_spec_firmware(&s, TB_VM_REGULAR), "/all.fd");
    assert_string_equal(tb_vm_spec_qemu(&s, TB_VM_SNP), "/opt/snp/qemu");
    assert_null(tb_vm_spec_qemu(&s, TB_VM_TDX));
}

/* ---- command lines ---- */

static void test_kinds_differ_only_in_tee(void **state)
{
    (void)state;
    tb_vm_host tdx_h, snp_h;
    host_tdx(&tdx_h);
    host_snp(&snp_h);
    tb_vm_spec s;
    tb_vm_cmd reg, tdx, snp;
    tb_vm_plan p;
    spec_kernel(&s, TB_VM_REGULAR);
    s.npin = 2;
    s.pin[0] = 2, s.pin[1] = 3;
    s.prealloc = 1;
    build(&s, &tdx_h, 0, &reg, &p);
    s.kind = TB_VM_TDX;
    build(&s, &tdx_h, 0, &tdx, &p);
    s.kind = TB_VM_SNP;
    build(&s, &snp_h, 0, &snp, &p);

    char *a = shared_part(&reg), *b = shared_part(&tdx), *c = shared_part(&snp);
    assert_string_equal(a, b);
    assert_string_equal(a, c);
    free(a);
    free(b);
    free(c);
    /* the regular VM has no TEE part at all */
    for (int i = 0; i < reg.nopts; i++) {
        assert_int_equal(reg.opts[i].tee, 0);
        for (int j = 0; j < reg.opts[i].nprops; j++)
            assert_int_equal(reg.opts[i].props[j].tee, 0);
    }
    /* every option and property says why it is there */
    const tb_vm_cmd *all[] = {&reg, &tdx, &snp};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < all[k]->nopts; i++) {
            const tb_vm_opt *o = &all[k]->opts[i];
            if (o->nprops == 0)
                assert_true(o->reason && strlen(o->reason) > 10);
            for (int j = 0; j < o->nprops; j++)
                assert_true(o->props[j].reason && strlen(o->props[j].reason) > 10);
        }
    /* the shared options the issue names */
    assert_non_null(find_prop(&reg, "-machine", "q35"));
    assert_non_null(find_prop(&reg, "-machine", "kernel-irqchip=split"));
    assert_non_null(find_prop(&reg, "-machine", "hpet=off"));
    assert_non_null(find_prop(&reg, "-cpu", "host"));
    assert_non_null(find_prop(&reg, "-cpu", "pmu=off"));
    assert_non_null(find_prop(&reg, "-object", "memory-backend-ram"));
    assert_null(find_prop(&reg, "-object", "memory-backend-memfd"));
    assert_non_null(
        strstr(find_prop(&reg, "-object", "memory-backend-ram")->reason, "guest_memfd"));
    assert_non_null(find_prop(&reg, "-object", "prealloc=on"));
    /* what --prealloc does is said per kind: a TEE's private memory is not preallocated */
    assert_null(strstr(find_prop(&reg, "-object", "prealloc=on")->reason, "guest_memfd"));
    assert_non_null(strstr(find_prop(&tdx, "-object", "prealloc=on")->reason, "guest_memfd"));
    assert_non_null(find_prop(&reg, "-device", "virtio-net-pci"));
    assert_non_null(find_prop(&reg, "-netdev", "hostfwd=tcp:127.0.0.1:40022-:22"));
    assert_non_null(find_prop(&reg, "-device", "vhost-vsock-pci"));
    assert_non_null(find_prop(&reg, "-device", "guest-cid=40022"));
    assert_non_null(find_opt(&reg, "-S", NULL)); /* --pin: paused until pinned */
    const tb_vm_prop *ap = find_prop(&reg, "-append", "console=ttyS0");
    assert_non_null(ap);
    assert_string_equal(ap->text, "console=ttyS0 quiet");
    tb_vm_cmd_free(&reg);
    tb_vm_cmd_free(&tdx);
    tb_vm_cmd_free(&snp);
}

static void test_tdx_requirements(void **state)
{
    (void)state;
    tb_vm_host h;
    host_tdx(&h);
    tb_vm_spec s;
    tb_vm_cmd c;
    tb_vm_plan p;
    spec_kernel(&s, TB_VM_TDX);
    build(&s, &h, 0, &c, &p);
    /* tdx.rst: -accel kvm, -cpu host, split irqchip, tdx-guest + confidential-guest-support,
       -bios OVMF (TDVF) */
    assert_non_null(find_prop(&c, "-accel", "kvm"));
    assert_non_null(find_prop(&c, "-cpu", "host"));
    const tb_vm_prop *irq = find_prop(&c, "-machine", "kernel-irqchip=split");
    assert_non_null(irq);
    assert_non_null(strstr(irq->reason, "tdx.rst"));
    assert_non_null(strstr(irq->reason, "must be split"));
    const tb_vm_prop *cgs = find_prop(&c, "-machine", "confidential-guest-support=");
    assert_non_null(cgs);
    assert_int_equal(cgs->tee, 1);
    assert_string_equal(cgs->text, "confidential-guest-support=tdx0");
    const tb_vm_prop *obj = find_prop(&c, "-object", "{");
    assert_non_null(obj);
    assert_non_null(strstr(obj->reason, "tdx.rst"));
    json_error_t je;
    json_t *j = json_loads(obj->text, 0, &je);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "qom-type")), "tdx-guest");
    assert_string_equal(json_string_value(json_object_get(j, "id")), "tdx0");
    assert_true(json_is_true(json_object_get(j, "sept-ve-disable")));
    json_t *qgs = json_object_get(j, "quote-generation-socket");
    assert_string_equal(json_string_value(json_object_get(qgs, "type")), "vsock");
    assert_string_equal(json_string_value(json_object_get(qgs, "cid")), "2");
    assert_string_equal(json_string_value(json_object_get(qgs, "port")), "4050");
    json_decref(j);
    const tb_vm_prop *bios = find_prop(&c, "-bios", "/");
    assert_non_null(bios);
    assert_string_equal(bios->text, "/usr/share/ovmf/OVMF.fd");
    assert_non_null(strstr(bios->reason, "TDVF"));
    /* the machine's memory backend is the RAM object */
    assert_non_null(find_prop(&c, "-object", "memory-backend-ram"));
    assert_non_null(find_prop(&c, "-machine", "memory-backend=ram0"));
    assert_non_null(find_prop(&c, "-object", "id=ram0"));
    tb_vm_cmd_free(&c);
}

static void test_snp_requirements(void **state)
{
    (void)state;
    tb_vm_host h;
    host_snp(&h);
    h.cbitpos = 51;
    tb_vm_spec s;
    tb_vm_cmd c;
    tb_vm_plan p;
    spec_kernel(&s, TB_VM_SNP);
    build(&s, &h, 0, &c, &p);
    const tb_vm_opt *o = find_opt(&c, "-object", "sev-snp-guest");
    assert_non_null(o);
    assert_int_equal(o->tee, 1);
    assert_non_null(strstr(o->props[0].reason, "amd-memory-encryption.rst"));
    const tb_vm_prop *cb = find_prop(&c, "-object", "cbitpos=");
    assert_string_equal(cb->text, "cbitpos=51");
    assert_non_null(strstr(cb->reason, "CPUID 0x8000001F"));
    assert_null(strstr(cb->reason, "PLACEHOLDER"));
    const tb_vm_prop *rpb = find_prop(&c, "-object", "reduced-phys-bits=");
    assert_string_equal(rpb->text, "reduced-phys-bits=1");
    assert_non_null(strstr(rpb->reason, "kata-containers#5007"));
    assert_string_equal(find_prop(&c, "-object", "policy=")->text, "policy=0x30000");
    assert_string_equal(find_prop(&c, "-machine", "confidential-guest-support=")->text,
                        "confidential-guest-support=sev0");
    assert_non_null(find_prop(&c, "-object", "memory-backend-ram"));
    assert_non_null(find_opt(&c, "-bios", NULL));
    assert_null(find_opt(&c, "-S", NULL));
    tb_vm_cmd_free(&c);

    /* the host's own reduction (5 on this EPYC) never reaches the guest's value */
    s.cpu = "EPYC-v4"; /* and --cpu is that kind's model */
    build(&s, &h, 0, &c, &p);
    assert_string_equal(find_prop(&c, "-object", "reduced-phys-bits=")->text,
                        "reduced-phys-bits=1");
    assert_non_null(find_prop(&c, "-cpu", "EPYC-v4"));
    assert_non_null(strstr(find_prop(&c, "-cpu", "EPYC-v4")->reason, "CPUID"));
    s.cpu = NULL;
    tb_vm_cmd_free(&c);

    /* a dry run on a host without the leaf: placeholders, marked in the reason */
    host_nested(&h);
    build(&s, &h, 1, &c, &p);
    cb = find_prop(&c, "-object", "cbitpos=");
    assert_string_equal(cb->text, "cbitpos=51");
    assert_non_null(strstr(cb->reason, "PLACEHOLDER"));
    tb_vm_cmd_free(&c);
}

static void test_tcg_and_escapes(void **state)
{
    (void)state;
    tb_vm_host h;
    host_nested(&h);
    tb_vm_spec s;
    tb_vm_cmd c;
    tb_vm_plan p;
    spec_kernel(&s, TB_VM_REGULAR);
    s.kernel = NULL;
    s.initrd = NULL;
    s.append = NULL;
    s.image = "/img/a,b.qcow2";
    s.firmware = "none";
    s.vsock = TB_VM_VSOCK_OFF;
    build(&s, &h, 0, &c, &p);
    assert_int_equal(p.tcg, 1);
    assert_non_null(find_prop(&c, "-accel", "tcg"));
    assert_non_null(strstr(find_prop(&c, "-accel", "tcg")->reason, "no performance figure"));
    assert_non_null(find_prop(&c, "-cpu", "max"));
    assert_null(find_prop(&c, "-cpu", "host"));
    assert_non_null(find_prop(&c, "-cpu", "pmu=off"));
    assert_null(find_opt(&c, "-bios", NULL));
    assert_null(find_opt(&c, "-kernel", NULL));
    assert_null(find_prop(&c, "-device", "vhost-vsock-pci"));
    assert_non_null(find_prop(&c, "-drive", "file=/img/a,,b.qcow2"));
    /* the format is the caller's (probed from the file), never the name's: none given,
       none stated */
    const tb_vm_prop *f0 = find_prop(&c, "-drive", "format="); /* the first: the seed's */
    assert_non_null(f0);
    assert_string_equal(f0->reason, "an ISO 9660 image, written by teebench");
    assert_non_null(find_prop(&c, "-device", "virtio-blk-pci"));
    /* the seed: a read-only virtio-blk disk, like the image's */
    assert_non_null(find_prop(&c, "-drive", "id=seed0"));
    assert_non_null(find_prop(&c, "-drive", "readonly=on"));
    assert_non_null(find_prop(&c, "-device", "drive=seed0"));
    tb_vm_cmd_free(&c);
    s.image_format = "raw"; /* a raw disk named .qcow2 */
    s.seed = 0;
    build(&s, &h, 0, &c, &p);
    const tb_vm_prop *fp = find_prop(&c, "-drive", "format=raw");
    assert_non_null(fp);
    assert_non_null(strstr(fp->reason, "never from its name"));
    assert_null(find_prop(&c, "-drive", "id=seed0"));
    assert_non_null(find_opt(&c, "-fw_cfg", NULL)); /* the key still goes in through fw_cfg */
    tb_vm_cmd_free(&c);
    s.image_format = "qcow2";
    s.seed = 1;
    build(&s, &h, 0, &c, &p);
    assert_non_null(find_prop(&c, "-drive", "format=qcow2"));
    /* argv: value = properties joined with ',' */
    char **argv = tb_vm_cmd_argv(&c);
    assert_non_null(argv);
    assert_string_equal(argv[0], "/usr/bin/qemu-system-x86_64");
    int found = 0;
    for (int i = 1; argv[i]; i++)
        if (!strcmp(argv[i], "-cpu")) {
            assert_string_equal(argv[i + 1], "max,pmu=off");
            found = 1;
        }
    assert_true(found);
    tb_vm_argv_free(argv);
    tb_vm_cmd_free(&c);
    /* --cpu holds under TCG too */
    s.cpu = "Skylake-Client";
    build(&s, &h, 0, &c, &p);
    assert_non_null(find_prop(&c, "-cpu", "Skylake-Client"));
    assert_null(find_prop(&c, "-cpu", "max"));
    tb_vm_cmd_free(&c);
    s.cpu = "two words";
    tb_err e;
    assert_int_equal(tb_vm_spec_check(&s, &e), -1);
    assert_non_null(strstr(e.msg, "--cpu"));
    s.cpu = NULL;

    tb_vm_paths ps;
    paths(&ps);
    spec_kernel(&s, TB_VM_TDX);
    p.tcg = 1; /* a hand-made plan cannot put a TD under TCG either */
    assert_int_equal(tb_vm_cmdline(&s, &p, &ps, &c, &e), -1);
}

static void test_argv_shell(void **state)
{
    (void)state;
    char *argv[] = {"qemu", "-name", "a b",     "-object",        "{\"x\":1}", "-append",
                    "it's", "-S",    "-fw_cfg", "name=x,file=/p", NULL};
    char *t = tb_vm_argv_shell(argv);
    assert_string_equal(t, "qemu \\\n  -name 'a b' \\\n  -object '{\"x\":1}' \\\n  -append "
                           "'it'\\''s' \\\n  -S \\\n  -fw_cfg name=x,file=/p");
    free(t);
    char *empty[] = {NULL};
    t = tb_vm_argv_shell(empty);
    assert_string_equal(t, "");
    free(t);
}

/* ---- state, list, ownership ---- */

static char *tmpdir(void)
{
    char tpl[] = "/tmp/tb-test-vm.XXXXXX";
    char *d = mkdtemp(tpl);
    assert_non_null(d);
    return strdup(d);
}

static void rmtree(const char *d)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    assert_int_equal(system(cmd), 0);
}

static void fill_state(tb_vm_state *st, const char *base, const char *name)
{
    tb_err e;
    memset(st, 0, sizeof *st);
    snprintf(st->name, sizeof st->name, "%s", name);
    st->kind = TB_VM_SNP;
    st->tcg = 0;
    st->pid = 4242;
    st->ssh_port = 40022;
    snprintf(st->ssh_user, sizeof st->ssh_user, "root");
    assert_int_equal(tb_vm_paths_make(base, name, &st->paths, &e), 0);
    snprintf(st->ssh_key, sizeof st->ssh_key, "%s", st->paths.key);
    st->cpus = 4;
    st->memory = 16ull << 30;
    snprintf(st->started_at, sizeof st->started_at, "2025-02-13T03:50:41Z");
    st->boot_ns = 23400000000ull;
    st->argv = calloc(4, sizeof *st->argv);
    st->argv[0] = strdup("qemu-system-x86_64");
    st->argv[1] = strdup("-object");
    st->argv[2] = strdup("{\"qom-type\":\"tdx-guest\"}");
}

/* ---- regular-swiotlb ---- */

static void test_swiotlb_kind_and_pool(void **state)
{
    (void)state;
    tb_vm_kind k;
    uint64_t sw;
    tb_err e;
    assert_int_equal(tb_vm_kind_parse_ext("regular-swiotlb", &k, &sw, &e), 0);
    assert_int_equal(k, TB_VM_REGULAR);
    assert_true(sw == TB_VM_SWIOTLB_AUTO);
    assert_int_equal(tb_vm_kind_parse_ext("regular-swiotlb:256M", &k, &sw, &e), 0);
    assert_true(sw == 256ull << 20);
    assert_int_equal(tb_vm_kind_parse_ext("tdx", &k, &sw, &e), 0);
    assert_int_equal(k, TB_VM_TDX);
    assert_true(sw == 0);
    assert_int_equal(tb_vm_kind_parse_ext("regular-swiotlb:", &k, &sw, &e), -1);
    assert_non_null(strstr(e.msg, "the bounce-buffer pool (regular-swiotlb:SIZE)"));
    assert_int_equal(tb_vm_kind_parse_ext("regular-swiotlbx", &k, &sw, &e), -1);
    assert_non_null(strstr(e.msg, "unknown kind 'regular-swiotlbx'"));
    assert_int_equal(tb_vm_kind_parse_ext("tdx-swiotlb", &k, &sw, &e), -1);

    /* a TD / SEV guest's rule: 6 % of memory in [64 MiB, 1 GiB] */
    assert_true(tb_vm_swiotlb_cvm_pool(1ull << 30) == 64ull << 20);  /* 61 MiB: clamped up */
    assert_true(tb_vm_swiotlb_cvm_pool(64ull << 30) == 1ull << 30);  /* 3.8 GiB: down */
    assert_true(tb_vm_swiotlb_cvm_pool(4ull << 30) == 257698037ull); /* 4 GiB * 6 / 100 */
    /* 2 KiB slabs, rounded up to 128-slab segments */
    assert_true(tb_vm_swiotlb_nslabs(64ull << 20) == 32768);
    assert_true(tb_vm_swiotlb_nslabs(257698037ull) == 125952);
    assert_true(tb_vm_swiotlb_nslabs(1) == 128);
    tb_vm_spec s;
    spec_kernel(&s, TB_VM_REGULAR);
    char param[64];
    tb_vm_swiotlb_param(&s, param, sizeof param);
    assert_string_equal(param, "");
    assert_null(tb_vm_swiotlb_how(&s));
    assert_string_equal(tb_vm_spec_kind_label(&s), "regular");
    s.swiotlb = TB_VM_SWIOTLB_AUTO; /* 4 GiB by default */
    tb_vm_swiotlb_param(&s, param, sizeof param);
    assert_string_equal(param, "swiotlb=125952,force");
    assert_true(tb_vm_swiotlb_pool(&s) == 125952ull * 2048);
    assert_string_equal(tb_vm_swiotlb_how(&s), "append");
    assert_string_equal(tb_vm_spec_kind_label(&s), "regular-swiotlb");
    s.memory = 1ull << 30;
    tb_vm_swiotlb_param(&s, param, sizeof param);
    assert_string_equal(param, "swiotlb=32768,force");
    s.kernel = NULL;
    s.initrd = NULL;
    s.append = NULL;
    s.image = "/img/a.qcow2";
    assert_string_equal(tb_vm_swiotlb_how(&s), "seed-reboot");
}

static void test_swiotlb_spec_check(void **state)
{
    (void)state;
    tb_vm_spec s;
    tb_err e;
    spec_kernel(&s, TB_VM_REGULAR);
    s.swiotlb = 256ull << 20;
    assert_int_equal(tb_vm_spec_check(&s, &e), 0);
    s.swiotlb = 512ull << 10;
    assert_int_equal(tb_vm_spec_check(&s, &e), -1);
    assert_non_null(strstr(e.msg, "regular-swiotlb:524288B: the bounce-buffer pool must be 1M"));
    s.swiotlb = 3ull << 30; /* more than half of 4 GiB */
    assert_int_equal(tb_vm_spec_check(&s, &e), -1);
    assert_non_null(strstr(e.msg, "half the guest's memory"));
    s.swiotlb = TB_VM_SWIOTLB_AUTO;
    s.kind = TB_VM_TDX;
    s.firmware = "/ovmf.fd";
    assert_int_equal(tb_vm_spec_check(&s, &e), -1);
    assert_non_null(strstr(e.msg, "a TD guest's kernel bounces all its I/O already"));
    spec_kernel(&s, TB_VM_REGULAR);
    s.swiotlb = TB_VM_SWIOTLB_AUTO;
    s.kernel = s.initrd = s.append = NULL;
    s.image = "/img/a.qcow2";
    s.seed = 0;
    assert_int_equal(tb_vm_spec_check(&s, &e), -1);
    assert_non_null(strstr(e.msg, "needs the cloud-init seed"));
}

static void test_swiotlb_cmdline(void **state)
{
    (void)state;
    tb_vm_host h;
    host_nested(&h);
    tb_vm_spec s;
    tb_vm_cmd c, r;
    tb_vm_plan p;
    spec_kernel(&s, TB_VM_REGULAR);
    s.vsock = TB_VM_VSOCK_OFF;
    build(&s, &h, 0, &r, &p);
    s.swiotlb = 64ull << 20;
    build(&s, &h, 0, &c, &p);
    /* one kernel command line: the parameter is a word of -append, with its reason */
    const tb_vm_prop *sw = find_prop(&c, "-append", "swiotlb=");
    assert_non_null(sw);
    assert_string_equal(sw->text, "swiotlb=32768,force");
    assert_non_null(strstr(sw->reason, "mem_encrypt.c"));
    assert_non_null(strstr(sw->reason, "iommu_platform=on"));
    assert_false(sw->tee);
    char **argv = tb_vm_cmd_argv(&c);
    int found = 0;
    for (int i = 0; argv[i]; i++)
        if (!strcmp(argv[i], "-append")) {
            assert_string_equal(argv[i + 1], "console=ttyS0 quiet swiotlb=32768,force");
            found = 1;
        }
    assert_true(found);
    tb_vm_argv_free(argv);
    /* everything else is the regular VM's: the same options, -no-reboot included */
    char *a = shared_part(&r), *b = shared_part(&c);
    const char *extra = strstr(b, "-append swiotlb=32768,force\n");
    assert_non_null(extra);
    size_t at = (size_t)(extra - b), len = strlen("-append swiotlb=32768,force\n");
    assert_int_equal(strlen(a) + len, strlen(b));
    assert_memory_equal(a, b, at);
    assert_string_equal(a + at, b + at + len);
    free(a);
    free(b);
    assert_non_null(find_opt(&c, "-no-reboot", NULL));
    tb_vm_cmd_free(&c);
    tb_vm_cmd_free(&r);

    /* from an image: no -append, the seed's reason says it reboots once, no -no-reboot */
    s.kernel = s.initrd = s.append = NULL;
    s.image = "/img/a.qcow2";
    s.firmware = "none";
    build(&s, &h, 0, &c, &p);
    assert_null(find_opt(&c, "-append", NULL));
    assert_null(find_opt(&c, "-no-reboot", NULL));
    const tb_vm_prop *seed = find_prop(&c, "-drive", "file=/run/user/1000/teebench/vm/t1/seed.iso");
    assert_non_null(seed);
    assert_non_null(strstr(seed->reason, "reboots once"));
    tb_vm_cmd_free(&c);
    s.swiotlb = 0;
    build(&s, &h, 0, &c, &p);
    assert_non_null(find_opt(&c, "-no-reboot", NULL));
    tb_vm_cmd_free(&c);
}

static void test_state_roundtrip(void **state)
{
    (void)state;
    char *base = tmpdir();
    tb_vm_state st, back;
    tb_err e;
    fill_state(&st, base, "snp1");
    snprintf(st.qemu_path, sizeof st.qemu_path, "/usr/libexec/qemu-kvm");
    snprintf(st.qemu_version, sizeof st.qemu_version, "QEMU emulator version 10.0.0");
    snprintf(st.qemu_sha256, sizeof st.qemu_sha256, "%064d", 1);
    snprintf(st.firmware, sizeof st.firmware, "/usr/share/edk2/ovmf/OVMF.inteltdx.fd");
    snprintf(st.firmware_sha256, sizeof st.firmware_sha256, "%064d", 2);
    char dir[600];
    snprintf(dir, sizeof dir, "%s/snp1", base);
    assert_int_equal(mkdir(dir, 0700), 0);
    assert_int_equal(tb_vm_state_save(&st, &e), 0);
    struct stat sb;
    assert_int_equal(stat(st.paths.state, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    assert_int_equal(tb_vm_load(base, "snp1", &back, &e), 0);
    assert_string_equal(back.name, "snp1");
    assert_int_equal(back.kind, TB_VM_SNP);
    assert_int_equal(back.pid, 4242);
    assert_int_equal(back.ssh_port, 40022);
    assert_true(back.boot_ns == 23400000000ull);
    assert_true(back.memory == 16ull << 30);
    assert_string_equal(back.paths.qmp, st.paths.qmp);
    assert_string_equal(back.paths.known_hosts, st.paths.known_hosts);
    assert_string_equal(back.argv[2], "{\"qom-type\":\"tdx-guest\"}");
    assert_null(back.argv[3]);
    assert_string_equal(back.qemu_path, "/usr/libexec/qemu-kvm");
    assert_string_equal(back.qemu_version, "QEMU emulator version 10.0.0");
    assert_string_equal(back.firmware, "/usr/share/edk2/ovmf/OVMF.inteltdx.fd");
    assert_string_equal(back.firmware_sha256, st.firmware_sha256);
    char url[128];
    assert_int_equal(tb_vm_ssh_url(&back, url, sizeof url), 0);
    assert_string_equal(url, "ssh://root@127.0.0.1:40022");
    /* the document has the boot time as a number */
    json_t *j = tb_vm_state_json(&back);
    assert_true(json_integer_value(json_object_get(j, "boot_ns")) == 23400000000ll);
    assert_true(json_real_value(json_object_get(j, "boot_s")) > 23.39);
    json_decref(j);
    tb_vm_state_free(&st);

    /* regular-swiotlb's facts survive (optional: absent above) */
    assert_string_equal(back.swiotlb_param, "");
    snprintf(back.swiotlb_param, sizeof back.swiotlb_param, "swiotlb=32768,force");
    snprintf(back.swiotlb_how, sizeof back.swiotlb_how, "seed-reboot");
    back.swiotlb_pool = 64ull << 20;
    snprintf(back.guest_cmdline, sizeof back.guest_cmdline, "root=LABEL=r swiotlb=32768,force");
    assert_int_equal(tb_vm_state_save(&back, &e), 0);
    tb_vm_state sw;
    assert_int_equal(tb_vm_load(base, "snp1", &sw, &e), 0);
    assert_string_equal(sw.swiotlb_param, "swiotlb=32768,force");
    assert_string_equal(sw.swiotlb_how, "seed-reboot");
    assert_true(sw.swiotlb_pool == 64ull << 20);
    assert_string_equal(sw.guest_cmdline, "root=LABEL=r swiotlb=32768,force");
    tb_vm_state_free(&sw);
    tb_vm_state_free(&back);

    assert_int_equal(tb_vm_load(base, "nope", &back, &e), -1);
    assert_non_null(strstr(e.msg, "no VM named nope"));
    assert_int_equal(tb_vm_load(base, "../etc", &back, &e), -1);
    rmtree(base);
    free(base);
}

static void test_state_malformed(void **state)
{
    (void)state;
    tb_vm_state st;
    tb_err e;
    const char *bad[] = {
        "",
        "[]",
        "{\"schema\":\"other\",\"version\":1}",
        "{\"schema\":\"teebench-vm\",\"version\":2}",
        "{\"schema\":\"teebench-vm\",\"version\":1,\"name\":\"a\",\"kind\":\"sgx\"}",
        "{\"schema\":\"teebench-vm\",\"version\":1,\"name\":\"a\",\"kind\":\"tdx\",\"tcg\":0}",
        ("{\"schema\":\"teebench-vm\",\"version\":1,\"name\":\"a\",\"kind\":\"tdx\",\"tcg\":false,"
         "\"pid\":-5}"),
        ("{\"schema\":\"teebench-vm\",\"version\":1,\"name\":\"a\",\"kind\":\"tdx\",\"tcg\":false,"
         "\"pid\":5,\"ssh\":[],\"paths\":{}}"),
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(tb_vm_state_parse(bad[i], strlen(bad[i]), &st, &e), -1);
        assert_null(st.argv);
    }
    /* a good document with one argv entry of the wrong type frees what it built */
    tb_vm_state good;
    fill_state(&good, "/tmp/x", "a");
    json_t *j = tb_vm_state_json(&good);
    tb_vm_state_free(&good);
    json_array_append_new(json_object_get(j, "argv"), json_integer(3));
    char *t = json_dumps(j, 0);
    json_decref(j);
    assert_int_equal(tb_vm_state_parse(t, strlen(t), &st, &e), -1);
    assert_non_null(strstr(e.msg, "argv"));
    free(t);
    /* "qemu"/"firmware": optional (a state from before them reads as ""), strict if there */
    fill_state(&good, "/tmp/x", "a");
    j = tb_vm_state_json(&good);
    tb_vm_state_free(&good);
    json_object_del(j, "qemu");
    json_object_del(j, "firmware");
    t = json_dumps(j, 0);
    assert_int_equal(tb_vm_state_parse(t, strlen(t), &st, &e), 0);
    assert_string_equal(st.qemu_path, "");
    assert_string_equal(st.firmware, "");
    tb_vm_state_free(&st);
    free(t);
    json_object_set_new(j, "qemu", json_pack("{s:s}", "path", "/q"));
    t = json_dumps(j, 0);
    json_decref(j);
    assert_int_equal(tb_vm_state_parse(t, strlen(t), &st, &e), -1);
    assert_non_null(strstr(e.msg, "version"));
    free(t);
}

static void test_list(void **state)
{
    (void)state;
    char *base = tmpdir();
    const char *names[] = {"zeta", "alpha", "mid"};
    for (int i = 0; i < 3; i++) {
        tb_vm_state st;
        tb_err e;
        fill_state(&st, base, names[i]);
        assert_int_equal(mkdir(st.paths.dir, 0700), 0);
        assert_int_equal(tb_vm_state_save(&st, &e), 0);
        tb_vm_state_free(&st);
    }
    char other[600];
    snprintf(other, sizeof other, "%s/not-a-vm", base);
    assert_int_equal(mkdir(other, 0700), 0);
    char **list;
    tb_err e;
    assert_int_equal(tb_vm_list(base, &list, &e), 0);
    assert_string_equal(list[0], "alpha");
    assert_string_equal(list[1], "mid");
    assert_string_equal(list[2], "zeta");
    assert_null(list[3]);
    tb_vm_argv_free(list);
    char missing[700];
    snprintf(missing, sizeof missing, "%s/none", base);
    assert_int_equal(tb_vm_list(missing, &list, &e), 0);
    assert_null(list[0]);
    tb_vm_argv_free(list);
    rmtree(base);
    free(base);
}

/* A child whose /proc cmdline holds path (as QEMU's holds its -pidfile): a shell
   blocked in its builtin read on a pipe nobody writes to (no grandchild that
   would outlive it). */
static int child_stdin = -1;

static pid_t child_with_arg(const char *path)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(p[0], 0);
        close(p[0]);
        close(p[1]);
        execl("/bin/sh", "sh", "-c", "read x", "-pidfile", path, (char *)NULL);
        _exit(127);
    }
    close(p[0]);
    child_stdin = p[1];
    return pid;
}

static void reap(pid_t pid)
{
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    close(child_stdin);
    child_stdin = -1;
}

static void test_alive_is_ownership(void **state)
{
    (void)state;
    tb_vm_state st;
    fill_state(&st, "/tmp/tb-vm-alive", "a");
    st.pid = getpid(); /* alive, but not this VM's QEMU */
    assert_int_equal(tb_vm_alive(&st), 0);
    pid_t pid = child_with_arg(st.paths.pidfile);
    st.pid = pid;
    int alive = 0;
    for (int i = 0; i < 200 && !alive; i++) { /* until the child has exec'd */
        alive = tb_vm_alive(&st);
        if (!alive)
            usleep(10000);
    }
    assert_int_equal(alive, 1);
    reap(pid);
    assert_int_equal(tb_vm_alive(&st), 0);
    st.pid = 0;
    assert_int_equal(tb_vm_alive(&st), 0);
    tb_vm_state_free(&st);
}

static void test_preflight(void **state)
{
    (void)state;
    char *base = tmpdir();
    tb_vm_spec s;
    tb_err e;
    char kernel[600];
    snprintf(kernel, sizeof kernel, "%s/vmlinuz", base);
    assert_int_equal(tb_file_write_atomic(kernel, "k", 1, &e), 0);
    spec_kernel(&s, TB_VM_REGULAR);
    s.kernel = kernel;
    s.initrd = NULL;
    s.firmware = "none";
    s.ssh_port = 0;
    assert_int_equal(tb_vm_preflight(&s, base, &e), 0);

    s.initrd = "/nonexistent/initrd";
    assert_int_equal(tb_vm_preflight(&s, base, &e), -1);
    assert_non_null(strstr(e.msg, "--initrd /nonexistent/initrd"));
    s.initrd = NULL;
    s.firmware = "/nonexistent/OVMF.fd";
    assert_int_equal(tb_vm_preflight(&s, base, &e), -1);
    assert_non_null(strstr(e.msg, "firmware /nonexistent/OVMF.fd"));
    s.firmware = "none";

    /* a CPU this process may not use */
    s.npin = 2;
    s.cpus = 2;
    cpu_set_t mine;
    assert_int_equal(sched_getaffinity(0, sizeof mine, &mine), 0);
    s.pin[0] = 0;
    while (!CPU_ISSET(s.pin[0], &mine)) /* the first CPU this test may use */
        s.pin[0]++;
    s.pin[1] = 1023;
    assert_int_equal(tb_vm_preflight(&s, base, &e), -1);
    assert_non_null(strstr(e.msg, "CPU 1023 is not online"));
    s.npin = 0;

    /* a port something listens on */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof sa;
    assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(listen(fd, 1), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
    s.ssh_port = ntohs(sa.sin_port);
    assert_int_equal(tb_vm_preflight(&s, base, &e), -1);
    assert_non_null(strstr(e.msg, "is in use"));
    close(fd);
    s.ssh_port = 0;

    /* a VM of that name that runs */
    tb_vm_state st;
    fill_state(&st, base, "t1");
    assert_int_equal(mkdir(st.paths.dir, 0700), 0);
    pid_t pid = child_with_arg(st.paths.pidfile);
    st.pid = pid;
    assert_int_equal(tb_vm_state_save(&st, &e), 0);
    for (int i = 0; i < 200 && !tb_vm_alive(&st); i++)
        usleep(10000);
    assert_int_equal(tb_vm_preflight(&s, base, &e), -1);
    assert_non_null(strstr(e.msg, "already running"));
    reap(pid);
    assert_int_equal(tb_vm_preflight(&s, base, &e), 0); /* a stale state is no obstacle */
    tb_vm_state_free(&st);

    /* a run dir too deep for the QMP socket path */
    char deep[300];
    memset(deep, 'd', sizeof deep);
    deep[0] = '/';
    deep[sizeof deep - 1] = 0;
    assert_int_equal(tb_vm_preflight(&s, deep, &e), -1);
    assert_non_null(strstr(e.msg, "107"));
    rmtree(base);
    free(base);
}

static void test_ssh_argv(void **state)
{
    (void)state;
    tb_vm_state st;
    fill_state(&st, "/run/vm", "g1");
    char *cmd[] = {"teebench", "env", "--json", NULL};
    char **a = tb_vm_ssh_argv(&st, cmd);
    assert_non_null(a);
    assert_string_equal(a[0], "ssh");
    tb_buf b = {0};
    for (char **p = a; *p; p++)
        tb_buf_printf(&b, "%s|", *p);
    const char *t = (const char *)b.p;
    assert_non_null(strstr(t, "|-p|40022|"));
    assert_non_null(strstr(t, "|-i|/run/vm/g1/id_ed25519|"));
    assert_non_null(strstr(t, "|BatchMode=yes|"));
    assert_non_null(strstr(t, "|StrictHostKeyChecking=accept-new|"));
    assert_non_null(strstr(t, "|UserKnownHostsFile=/run/vm/g1/known_hosts|"));
    assert_non_null(strstr(t, "|IdentitiesOnly=yes|"));
    assert_non_null(strstr(t, "|--|root@127.0.0.1|teebench|env|--json|"));
    tb_buf_clear(&b);
    tb_vm_argv_free(a);
    a = tb_vm_ssh_argv(&st, NULL);
    int n = 0;
    while (a[n])
        n++;
    assert_string_equal(a[n - 1], "root@127.0.0.1");
    tb_vm_argv_free(a);
    tb_vm_state_free(&st);
}

static void test_default_dir(void **state)
{
    (void)state;
    char d[512];
    tb_err e;
    char *xdg = getenv("XDG_RUNTIME_DIR") ? strdup(getenv("XDG_RUNTIME_DIR")) : NULL;
    setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1);
    assert_int_equal(tb_vm_default_dir(d, sizeof d, &e), 0);
    assert_string_equal(d, "/run/user/1000/teebench/vm");
    unsetenv("XDG_RUNTIME_DIR");
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    setenv("HOME", "/home/u", 1);
    assert_int_equal(tb_vm_default_dir(d, sizeof d, &e), 0);
    assert_string_equal(d, "/home/u/.local/state/teebench/vm");
    unsetenv("HOME");
    assert_int_equal(tb_vm_default_dir(d, sizeof d, &e), -1);
    if (home)
        setenv("HOME", home, 1);
    if (xdg)
        setenv("XDG_RUNTIME_DIR", xdg, 1);
    free(home);
    free(xdg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_cpulist),
        cmocka_unit_test(test_spec_check),
        cmocka_unit_test(test_qemu_version),
        cmocka_unit_test(test_host_from_env),
        cmocka_unit_test(test_plan_nested_host),
        cmocka_unit_test(test_plan_tee_hosts),
        cmocka_unit_test(test_plan_props_assumed),
        cmocka_unit_test(test_capabilities_not_versions),
        cmocka_unit_test(test_properties_of_the_build),
        cmocka_unit_test(test_firmware_choice),
        cmocka_unit_test(test_kinds_differ_only_in_tee),
        cmocka_unit_test(test_tdx_requirements),
        cmocka_unit_test(test_snp_requirements),
        cmocka_unit_test(test_tcg_and_escapes),
        cmocka_unit_test(test_argv_shell),
        cmocka_unit_test(test_swiotlb_kind_and_pool),
        cmocka_unit_test(test_swiotlb_spec_check),
        cmocka_unit_test(test_swiotlb_cmdline),
        cmocka_unit_test(test_state_roundtrip),
        cmocka_unit_test(test_state_malformed),
        cmocka_unit_test(test_list),
        cmocka_unit_test(test_alive_is_ownership),
        cmocka_unit_test(test_preflight),
        cmocka_unit_test(test_ssh_argv),
        cmocka_unit_test(test_default_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
