/* Unit tests for src/vm/qemu: the readers of QEMU's own answers on the texts real
 * builds print (Debian 12's QEMU 7.2 here: its -object help, -object sev-guest,help
 * and a QMP transcript), the QMP reply matched by id, the binary found per
 * distribution, a whole probe through tests/tools/fake_qemu.sh answering as a
 * recorded Ubuntu 25.10 QEMU 10.1 would, and QEMU's error log as one line (SEV-SNP's
 * CPUID validation, a VM type KVM refuses, /dev/sev, warnings before the error). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "vm/qemu.h"

/* `qemu-system-x86_64 -object help` of Debian 12's QEMU 7.2.22 (abridged to the lines
   that matter plus neighbours). */
static const char OBJECTS_72[] = "List of user creatable objects:\n"
                                 "  authz-list\n"
                                 "  iothread\n"
                                 "  memory-backend-file\n"
                                 "  memory-backend-memfd\n"
                                 "  memory-backend-ram\n"
                                 "  sev-guest\n"
                                 "  thread-context\n";

/* `-object sev-guest,help` of the same build: class properties only (no cbitpos). */
static const char SEV_HELP_72[] =
    "sev-guest options:\n"
    "  dh-cert-file=<string>  - guest owners DH certificate (encoded with base64)\n"
    "  kernel-hashes=<bool>   - add kernel hashes to guest firmware for measured Linux boot\n"
    "  session-file=<string>  - guest owners session parameters (encoded with base64)\n"
    "  sev-device=<string>    - SEV device to use\n";

/* The QMP transcript of the same build asked for sev-guest (with an id) and tdx-guest. */
static const char QMP_72[] =
    "{\"QMP\": {\"version\": {\"qemu\": {\"micro\": 22, \"minor\": 2, \"major\": 7}, "
    "\"package\": \"Debian 1:7.2+dfsg-7+deb12u18+b3\"}, \"capabilities\": [\"oob\"]}}\n"
    "{\"return\": {}}\n"
    "{\"return\": [{\"name\": \"type\", \"type\": \"string\"}, {\"name\": \"dh-cert-file\", "
    "\"type\": \"string\"}, {\"name\": \"sev-device\", \"type\": \"string\"}, {\"name\": "
    "\"policy\", \"type\": \"uint32\"}, {\"name\": \"reduced-phys-bits\", \"type\": "
    "\"uint32\"}, {\"name\": \"cbitpos\", \"type\": \"uint32\"}], \"id\": \"sev-guest\"}\n"
    "{\"error\": {\"class\": \"DeviceNotFound\", \"desc\": \"Class 'tdx-guest' not found\"}, "
    "\"id\": \"tdx-guest\"}\n"
    "{\"timestamp\": {\"seconds\": 1, \"microseconds\": 2}, \"event\": \"SHUTDOWN\"}\n"
    "{\"return\": {}}\n";

static void test_objects_and_help(void **state)
{
    (void)state;
    tb_vm_qemu q;
    memset(&q, 0, sizeof q);
    assert_int_equal(tb_vm_qemu_parse_objects(OBJECTS_72, &q), 0);
    assert_int_equal(q.objects, 1);
    assert_int_equal(q.backend_ram, 1);
    assert_int_equal(q.backend_memfd, 1);
    assert_int_equal(q.sev_guest, 1);
    assert_int_equal(q.tdx_guest, 0);
    assert_int_equal(q.sev_snp_guest, 0);
    /* names must match whole lines: "sev-guest" is no "sev-snp-guest" and back */
    assert_int_equal(tb_vm_qemu_parse_objects("List of user creatable objects:\n"
                                              "  sev-snp-guest\n  x-tdx-guest\n",
                                              &q),
                     0);
    assert_int_equal(q.sev_snp_guest, 1);
    assert_int_equal(q.sev_guest, 0);
    assert_int_equal(q.tdx_guest, 0);
    assert_int_equal(tb_vm_qemu_parse_objects("qemu: -object help: invalid option\n", &q), -1);
    assert_int_equal(q.objects, 0);
    assert_int_equal(tb_vm_qemu_parse_objects(NULL, &q), -1);

    char names[TB_VM_QEMU_NAMES_MAX];
    assert_int_equal(tb_vm_qemu_parse_help(SEV_HELP_72, "sev-guest", names, sizeof names), 0);
    assert_string_equal(names, " dh-cert-file kernel-hashes session-file sev-device ");
    assert_int_equal(tb_vm_qemu_has_prop(names, "sev-device"), 1);
    assert_int_equal(tb_vm_qemu_has_prop(names, "cbitpos"), 0); /* an instance property */
    assert_int_equal(tb_vm_qemu_has_prop(names, "device"), 0);  /* whole names only */
    assert_int_equal(tb_vm_qemu_parse_help("There are no options for tdx-guest.\n", "tdx-guest",
                                           names, sizeof names),
                     0);
    assert_string_equal(names, " ");
    assert_int_equal(tb_vm_qemu_parse_help("qemu-system-x86_64: -object tdx-guest,help: "
                                           "Parameter 'qom-type' does not accept value "
                                           "'tdx-guest'\n",
                                           "tdx-guest", names, sizeof names),
                     -1);
    /* a list longer than the buffer is cut, never overrun, and stays bounded by spaces */
    char small[16];
    assert_int_equal(tb_vm_qemu_parse_help(SEV_HELP_72, "sev-guest", small, sizeof small), 0);
    assert_true(strlen(small) < sizeof small);
    assert_int_equal(small[0], ' ');
    assert_int_equal(small[strlen(small) - 1], ' ');

    int a, b, c;
    assert_int_equal(tb_vm_parse_qemu_version("QEMU emulator version 8.2.2 (Debian "
                                              "1:8.2.2+ds-0ubuntu1.4+tdx1.0)",
                                              &a, &b, &c),
                     0);
    assert_int_equal(a * 10000 + b * 100 + c, 80202);
    assert_int_equal(tb_vm_parse_qemu_version("version x.y", &a, &b, &c), -1);
    assert_int_equal(tb_vm_parse_qemu_version(NULL, &a, &b, &c), -1);
}

static void test_qmp_transcript(void **state)
{
    (void)state;
    char names[TB_VM_QEMU_NAMES_MAX], why[300];
    assert_int_equal(
        tb_vm_qemu_parse_qmp(QMP_72, "sev-guest", names, sizeof names, why, sizeof why), 1);
    /* "type" is every object's and left out */
    assert_string_equal(names, " dh-cert-file sev-device policy reduced-phys-bits cbitpos ");
    assert_string_equal(why, "");
    assert_int_equal(
        tb_vm_qemu_parse_qmp(QMP_72, "tdx-guest", names, sizeof names, why, sizeof why), 0);
    assert_string_equal(why, "Class 'tdx-guest' not found");
    assert_string_equal(names, "");
    assert_int_equal(
        tb_vm_qemu_parse_qmp(QMP_72, "sev-snp-guest", names, sizeof names, why, sizeof why), -1);
    assert_non_null(strstr(why, "no answer"));
    assert_int_equal(tb_vm_qemu_parse_qmp("not json\n{\"id\":\"x\",\"return\":7}\n", "x", names,
                                          sizeof names, why, sizeof why),
                     -1);
    assert_non_null(strstr(why, "neither a list nor an error"));
    assert_int_equal(tb_vm_qemu_parse_qmp("", "x", names, sizeof names, why, sizeof why), -1);
}

static void test_find(void **state)
{
    (void)state;
    char dir[] = "/tmp/tb-test-qemu.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char bin[128];
    snprintf(bin, sizeof bin, "%s/qemu-system-x86_64", dir);
    tb_err e;
    assert_int_equal(tb_file_write_atomic(bin, "#!/bin/sh\n", 10, &e), 0);
    assert_int_equal(chmod(bin, 0755), 0);
    char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    setenv("PATH", dir, 1);
    char path[1024], how[200];
    assert_int_equal(tb_vm_qemu_find(NULL, path, sizeof path, how, sizeof how), 0);
    assert_string_equal(path, bin);
    assert_non_null(strstr(how, "PATH"));
    assert_int_equal(tb_vm_qemu_find("qemu-system-x86_64", path, sizeof path, how, sizeof how), 0);
    assert_string_equal(path, bin);
    assert_int_equal(tb_vm_qemu_find("qemu-kvm", path, sizeof path, how, sizeof how), -1);
    assert_non_null(strstr(how, "not found in PATH"));
    assert_int_equal(tb_vm_qemu_find("/nonexistent/qemu", path, sizeof path, how, sizeof how), -1);
    assert_non_null(strstr(how, "No such file"));
    unlink(bin);
    /* nothing in PATH: the distributions' other places are tried, then a clear word */
    if (access("/usr/libexec/qemu-kvm", X_OK) != 0 && access("/usr/bin/qemu-kvm", X_OK) != 0) {
        assert_int_equal(tb_vm_qemu_find(NULL, path, sizeof path, how, sizeof how), -1);
        assert_non_null(strstr(how, "/usr/libexec/qemu-kvm"));
    }
    if (old) {
        setenv("PATH", old, 1);
        free(old);
    }
    rmdir(dir);
}

/* A whole probe through the fake QEMU of tests/tools, answering as Ubuntu 25.10's. */
static void test_probe_through_fake(void **state)
{
    (void)state;
    const char *src = getenv("TEEBENCH_SOURCE_DIR");
    char fake[1024], data[1024];
    snprintf(fake, sizeof fake, "%s/tests/tools/fake_qemu.sh", src ? src : ".");
    snprintf(data, sizeof data, "%s/tests/data/vm/hosts/ubuntu-25.10/vm/qemu", src ? src : ".");
    if (access(fake, X_OK) != 0 || access(data, R_OK) != 0) {
        printf("skipped: %s or %s missing (TEEBENCH_SOURCE_DIR)\n", fake, data);
        return;
    }
    setenv("FAKE_QEMU_DIR", data, 1);
    tb_vm_qemu q;
    tb_vm_qemu_probe(fake, "/tmp", &q);
    assert_int_equal(q.found, 1);
    assert_string_equal(q.path, fake);
    assert_string_equal(q.how, "--qemu");
    assert_non_null(strstr(q.version, "10.1.0"));
    assert_int_equal(q.major * 100 + q.minor, 1001);
    assert_int_equal(strlen(q.sha256), 64); /* of the script: the binary that ran */
    assert_int_equal(q.tdx_guest, 1);
    assert_int_equal(q.sev_snp_guest, 1);
    assert_int_equal(q.tdx_props_known, 1);
    assert_int_equal(tb_vm_qemu_has_prop(q.tdx_props, "quote-generation-socket"), 1);
    assert_int_equal(tb_vm_qemu_has_prop(q.tdx_props, "sept-ve-disable"), 1);
    assert_int_equal(q.snp_props_known, 1);
    assert_int_equal(tb_vm_qemu_has_prop(q.snp_props, "cbitpos"), 1);
    assert_string_equal(q.tdx_help, " "); /* ",help": no class properties */
    assert_int_equal(tb_vm_qemu_has_prop(q.snp_help, "policy"), 1);

    /* a binary that is no QEMU: found, but says nothing a QEMU says */
    tb_vm_qemu_probe("/bin/false", "/tmp", &q);
    assert_int_equal(q.found, 0);
    assert_non_null(strstr(q.why, "--version exited with 1"));
    tb_vm_qemu_probe("/nonexistent/qemu", "/tmp", &q);
    assert_int_equal(q.found, 0);
    assert_non_null(strstr(q.why, "/nonexistent/qemu"));
    unsetenv("FAKE_QEMU_DIR");
}

static void test_error_line(void **state)
{
    (void)state;
    char line[600];
    /* QEMU >= 9.1's SEV-SNP launch with a CPU model the firmware refuses */
    tb_vm_qemu_error_line(
        "qemu-system-x86_64: SEV-SNP: CPUID validation failed for function 0x7, index: 0x0.\n"
        "provided: eax:0x00000000, ebx: 0x219c07ab, ecx: 0x00000000, edx: 0x00000000\n"
        "expected: eax:0x00000000, ebx: 0x219c05a9, ecx: 0x00000000, edx: 0x00000000\n"
        "qemu-system-x86_64: SEV-SNP: CPUID validation failed for function 0x80000021, index: "
        "0x0.\n"
        "qemu-system-x86_64: SEV-SNP: failed update CPUID page\n",
        line, sizeof line);
    assert_null(strchr(line, '\n'));
    assert_non_null(strstr(line, "refused the guest's CPUID page"));
    assert_non_null(strstr(line, "function 0x7 index 0x0 and more"));
    assert_non_null(strstr(line, "--cpu"));
    assert_non_null(strstr(line, "EPYC-v4"));
    tb_vm_qemu_error_line("qemu: SEV-SNP: CPUID validation failed due to count mismatch, "
                          "provided: 40, expected: 41\n",
                          line, sizeof line);
    assert_non_null(strstr(line, "number of CPUID entries"));
    /* a QEMU asking KVM for a VM type the kernel's TDX ABI does not have */
    tb_vm_qemu_error_line("ioctl(KVM_CREATE_VM) failed: Invalid argument\n"
                          "qemu-system-x86_64: failed to initialize kvm: Invalid argument\n",
                          line, sizeof line);
    assert_non_null(strstr(line, "different TDX/SEV-SNP ABIs"));
    tb_vm_qemu_error_line("qemu-system-x86_64: vm-type TDX not supported by KVM\n", line,
                          sizeof line);
    assert_non_null(strstr(line, "vm-type not supported by KVM"));
    tb_vm_qemu_error_line("qemu-system-x86_64: sev_common_kvm_init: Failed to open /dev/sev "
                          "'Permission denied'\n",
                          line, sizeof line);
    assert_non_null(strstr(line, "could not open /dev/sev"));
    assert_non_null(strstr(line, "Permission denied"));
    /* warnings before the error (canonical/tdx's run_td meets them): the error wins */
    tb_vm_qemu_error_line("qemu-system-x86_64: warning: TDX doesn't support requested "
                          "feature: CPUID.07H_01H:EDX.avx10 [bit 19]\n\n"
                          "qemu-system-x86_64: -drive file=x: Could not open 'x'\n",
                          line, sizeof line);
    assert_string_equal(line, "qemu-system-x86_64: -drive file=x: Could not open 'x'");
    tb_vm_qemu_error_line("qemu: warning: only this\n", line, sizeof line);
    assert_string_equal(line, "qemu: warning: only this");
    tb_vm_qemu_error_line("\n\n", line, sizeof line);
    assert_string_equal(line, "(no message; see qemu.log)");
    tb_vm_qemu_error_line(NULL, line, sizeof line);
    assert_string_equal(line, "(no message; see qemu.log)");
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN); /* as main() does: the probe writes QMP down a pipe */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_objects_and_help),
        cmocka_unit_test(test_qmp_transcript),
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_probe_through_fake),
        cmocka_unit_test(test_error_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
