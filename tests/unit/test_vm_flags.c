/* Unit tests for cli/vm_flags: the entries `vm start` and `suite run` are made of write
 * the command's tb_vm_spec wherever it lies in the args struct (each flag into its
 * field, the per-kind --firmware/--qemu, --no-snapshot), every entry is tagged
 * CLI_VM_GROUP, and the mistakes are worded by cli/flags ("<flag> <value>: why",
 * the flag as the command spells it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/vm_flags.h"

typedef struct start_args {
    tb_vm_spec spec;
} start_args;

typedef struct suite_args {
    const char *before[5]; /* the spec not first: the entries use its offset */
    tb_vm_spec vm;
} suite_args;

static void usage(FILE *f, const cli_cmd *c)
{
    (void)c;
    fprintf(f, "usage: t\n");
}

/* The VM flags of vm start and of suite run, without their help. */
static const cli_flag start_flags[] = {{CLI_VM_KIND(start_args, spec)},
                                       {CLI_VM_IMAGE(start_args, spec)},
                                       {CLI_VM_KERNEL(start_args, spec)},
                                       {CLI_VM_INITRD(start_args, spec)},
                                       {CLI_VM_APPEND(start_args, spec)},
                                       {CLI_VM_PREALLOC(start_args, spec)},
                                       {CLI_VM_FIRMWARE(start_args, spec)},
                                       {CLI_VM_ACCEL(start_args, spec)},
                                       {CLI_VM_VSOCK(start_args, spec)},
                                       {CLI_VM_CBITPOS(start_args, spec)},
                                       {CLI_VM_REDUCED_PHYS_BITS(start_args, spec)},
                                       {CLI_VM_SNAPSHOT(start_args, spec)},
                                       {CLI_VM_BOOT_TIMEOUT(start_args, spec)},
                                       {CLI_VM_QEMU(start_args, spec)},
                                       {CLI_VM_CPUS("cpus", start_args, spec)},
                                       {CLI_VM_MEMORY("memory", start_args, spec)},
                                       {CLI_VM_PIN("pin", start_args, spec)},
                                       {CLI_VM_SSH_PORT(start_args, spec)},
                                       {CLI_VM_SSH_USER("ssh-user", start_args, spec)},
                                       {CLI_VM_SSH_KEY("ssh-key", start_args, spec)},
                                       {CLI_VM_CID(start_args, spec)},
                                       {CLI_VM_POLICY("policy", start_args, spec)},
                                       {CLI_VM_CPU("cpu", start_args, spec)},
                                       {CLI_VM_SEED("seed", start_args, spec)},
                                       CLI_HELP(),
                                       {0}};
static const cli_flag suite_flags[] = {{CLI_VM_IMAGE(suite_args, vm)},
                                       {CLI_VM_KERNEL(suite_args, vm)},
                                       {CLI_VM_INITRD(suite_args, vm)},
                                       {CLI_VM_APPEND(suite_args, vm)},
                                       {CLI_VM_PREALLOC(suite_args, vm)},
                                       {CLI_VM_FIRMWARE(suite_args, vm)},
                                       {CLI_VM_ACCEL(suite_args, vm)},
                                       {CLI_VM_VSOCK(suite_args, vm)},
                                       {CLI_VM_CBITPOS(suite_args, vm)},
                                       {CLI_VM_REDUCED_PHYS_BITS(suite_args, vm)},
                                       {CLI_VM_SNAPSHOT(suite_args, vm)},
                                       {CLI_VM_BOOT_TIMEOUT(suite_args, vm)},
                                       {CLI_VM_QEMU(suite_args, vm)},
                                       {CLI_VM_CPUS("vm-cpus", suite_args, vm)},
                                       {CLI_VM_MEMORY("vm-memory", suite_args, vm)},
                                       {CLI_VM_PIN("vm-pin", suite_args, vm)},
                                       {CLI_VM_SSH_USER("vm-ssh-user", suite_args, vm)},
                                       {CLI_VM_SSH_KEY("vm-ssh-key", suite_args, vm)},
                                       {CLI_VM_POLICY("vm-snp-policy", suite_args, vm)},
                                       {CLI_VM_NO_SNAPSHOT(suite_args, vm)},
                                       {CLI_VM_CPU("vm-cpu", suite_args, vm)},
                                       {CLI_VM_SEED("vm-seed", suite_args, vm)},
                                       CLI_HELP(),
                                       {0}};
static const cli_cmd start_cmd = {
    .name = "vm", .flags = start_flags, .usage = usage, .max_operands = -1};
static const cli_cmd suite_cmd = {
    .name = "suite", .flags = suite_flags, .usage = usage, .max_operands = 0};

/* Parses the NULL-terminated words with stderr captured into err. Returns the parse's
 * return value. */
static int run(const cli_cmd *c, void *a, char *err, size_t size, ...)
{
    char *argv[48];
    int argc = 0, first;
    va_list ap;
    va_start(ap, size);
    argv[argc++] = "t";
    for (char *w; argc < 47 && (w = va_arg(ap, char *));)
        argv[argc++] = w;
    va_end(ap);
    argv[argc] = NULL;
    fflush(stderr);
    FILE *fe = tmpfile();
    assert_non_null(fe);
    int se = dup(2);
    dup2(fileno(fe), 2);
    int rc = cli_flags_parse(c, argc, argv, a, &first);
    fflush(stderr);
    dup2(se, 2);
    close(se);
    rewind(fe);
    size_t n = fread(err, 1, size - 1, fe);
    err[n] = 0;
    fclose(fe);
    return rc;
}

#define START(...) run(&start_cmd, &a, err, sizeof err, __VA_ARGS__, (char *)NULL)
#define SUITE(...) run(&suite_cmd, &s, err, sizeof err, __VA_ARGS__, (char *)NULL)

static void test_start_fields(void **state)
{
    (void)state;
    start_args a;
    char err[512];
    tb_vm_spec_init(&a.spec);
    assert_int_equal(START("--kind", "tdx", "--image", "d.qcow2", "--cpus", "4", "--memory", "8G",
                           "--pin", "2,3", "--prealloc", "--ssh-port", "2222", "--ssh-user", "u",
                           "--ssh-key", "k", "--firmware", "tdx=/fw", "--firmware", "/all",
                           "--accel", "tcg", "--vsock", "on", "--cid", "7", "--cbitpos", "51",
                           "--reduced-phys-bits", "1", "--policy", "0x30000", "--snapshot",
                           "--boot-timeout", "2.5", "--qemu", "snp=/q", "--cpu", "EPYC-v4",
                           "--seed", "off"),
                     CLI_FLAGS_GO);
    tb_vm_spec *s = &a.spec;
    assert_int_equal(s->kind, TB_VM_TDX);
    assert_string_equal(s->image, "d.qcow2");
    assert_int_equal(s->cpus, 4);
    assert_true(s->memory == 8ull << 30);
    assert_int_equal(s->npin, 2);
    assert_int_equal(s->pin[1], 3);
    assert_int_equal(s->prealloc, 1);
    assert_int_equal(s->ssh_port, 2222);
    assert_string_equal(s->ssh_user, "u");
    assert_string_equal(s->ssh_key, "k");
    assert_string_equal(s->firmware_kind[TB_VM_TDX], "/fw");
    assert_string_equal(s->firmware, "/all");
    assert_int_equal(s->accel, TB_VM_ACCEL_TCG);
    assert_int_equal(s->vsock, TB_VM_VSOCK_ON);
    assert_int_equal(s->vsock_cid, 7);
    assert_int_equal(s->cbitpos, 51);
    assert_int_equal(s->reduced_phys_bits, 1);
    assert_int_equal(s->snp_policy, 0x30000);
    assert_int_equal(s->snapshot, 1);
    assert_int_equal(s->boot_timeout_s, 3); /* rounded up */
    assert_string_equal(s->qemu_kind[TB_VM_SNP], "/q");
    assert_string_equal(s->cpu, "EPYC-v4");
    assert_int_equal(s->seed, 0);
    for (const cli_flag *f = start_flags; f->type != CLI_F_HELP; f++)
        assert_int_equal(f->group, CLI_VM_GROUP);
}

static void test_suite_offset(void **state)
{
    (void)state;
    suite_args s = {.before = {0}};
    char err[512];
    tb_vm_spec_init(&s.vm);
    s.vm.snapshot = 1;
    assert_int_equal(SUITE("--vm-cpus", "3", "--vm-memory", "1G", "--vm-snp-policy", "1",
                           "--no-snapshot", "--vm-seed", "on", "--vm-ssh-user", "x", "--qemu",
                           "/q"),
                     CLI_FLAGS_GO);
    for (int i = 0; i < 5; i++)
        assert_null(s.before[i]);
    assert_int_equal(s.vm.cpus, 3);
    assert_true(s.vm.memory == 1ull << 30);
    assert_int_equal(s.vm.snp_policy, 1);
    assert_int_equal(s.vm.snapshot, 0);
    assert_int_equal(s.vm.seed, 1);
    assert_string_equal(s.vm.ssh_user, "x");
    assert_string_equal(s.vm.qemu, "/q");
    /* names of one VM are vm start's only */
    assert_int_equal(SUITE("--kind", "tdx"), 2);
    assert_string_equal(err, "teebench: suite: --kind: unknown option (teebench suite --help)\n");
    assert_int_equal(SUITE("--ssh-port", "1"), 2);
    assert_int_equal(SUITE("--cid", "9"), 2);
}

static void test_mistakes(void **state)
{
    (void)state;
    start_args a;
    suite_args s = {.before = {0}};
    char err[512];
    tb_vm_spec_init(&a.spec);
    tb_vm_spec_init(&s.vm);
    assert_int_equal(START("--cpus", "0"), 2);
    assert_non_null(strstr(err, "teebench: vm: --cpus 0: must be between 1 and "));
    assert_int_equal(SUITE("--vm-cpus", "x"), 2);
    assert_string_equal(err, "teebench: suite: --vm-cpus x: not an integer\n");
    assert_int_equal(START("--firmware", "tdx=none"), 2);
    assert_string_equal(err,
                        "teebench: vm: --firmware tdx=none: a TD boots OVMF (none is for regular "
                        "only)\n");
    assert_int_equal(START("--firmware", "snp="), 2);
    assert_string_equal(err, "teebench: vm: --firmware snp=: no file\n");
    assert_int_equal(START("--vsock", "maybe"), 2);
    assert_string_equal(err, "teebench: vm: --vsock maybe: unknown (auto, on, off)\n");
    assert_int_equal(SUITE("--vm-snp-policy", "-1"), 2);
    assert_string_equal(err, "teebench: suite: --vm-snp-policy -1: not a 32-bit number\n");
    assert_int_equal(SUITE("--vm-cpu", "a b"), 2);
    assert_string_equal(err,
                        "teebench: suite: --vm-cpu 'a b': not a CPU model (e.g. host, EPYC-v4)\n");
    assert_int_equal(START("--seed", "yes"), 2);
    assert_string_equal(err, "teebench: vm: --seed yes: unknown (off, on)\n");
    assert_int_equal(START("--boot-timeout", "0"), 2);
    assert_non_null(strstr(err, "teebench: vm: --boot-timeout 0: "));
    assert_int_equal(START("--cid", "2"), 2);
    assert_non_null(strstr(err, "teebench: vm: --cid 2: must be between 3 and "));
    assert_int_equal(START("--accel", "hvf"), 2);
    assert_string_equal(err, "teebench: vm: --accel hvf: unknown (auto, kvm, tcg)\n");
    assert_int_equal(START("--memory", "lots"), 2);
    assert_non_null(strstr(err, "teebench: vm: --memory lots: "));
    assert_int_equal(START("--qemu", "tdx="), 2);
    assert_string_equal(err, "teebench: vm: --qemu tdx=: no binary\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start_fields),
        cmocka_unit_test(test_suite_offset),
        cmocka_unit_test(test_mistakes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
