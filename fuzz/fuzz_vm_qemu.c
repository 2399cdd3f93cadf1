/* libFuzzer target for vm/qemu: what a QEMU binary prints is untrusted (the probe
 * runs whatever --qemu names, and a recording can come from anywhere). The -object
 * help reader, the ",help" property reader, the QMP transcript reader and the
 * one-line summary of QEMU's error log get the same bytes; nothing may crash, read
 * out of bounds or leave a property list without its bounding spaces. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vm/qemu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *t = malloc(size + 1);
    if (!t)
        return 0;
    memcpy(t, data, size);
    t[size] = 0;
    tb_vm_qemu q;
    memset(&q, 0, sizeof q);
    tb_vm_qemu_parse_objects(t, &q);
    char names[TB_VM_QEMU_NAMES_MAX], why[300], line[600];
    if (tb_vm_qemu_parse_help(t, "tdx-guest", names, sizeof names) == 0 && names[0] &&
        names[strlen(names) - 1] != ' ')
        abort();
    if (tb_vm_qemu_parse_qmp(t, "sev-snp-guest", names, sizeof names, why, sizeof why) == 1 &&
        (names[0] != ' ' || names[strlen(names) - 1] != ' '))
        abort();
    tb_vm_qemu_has_prop(names, "cbitpos");
    tb_vm_qemu_error_line(t, line, sizeof line);
    int a, b, c;
    tb_vm_parse_qemu_version(t, &a, &b, &c);
    free(t);
    return 0;
}
