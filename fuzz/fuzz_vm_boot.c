/* libFuzzer target for vm/boot: a guest's answer to the first login's probe
 * (untrusted: whatever the guest prints) through the parser and the phases. Nothing
 * may crash or read out of bounds, and the phases either sum to the total or are
 * unknown. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vm/boot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* a private copy without a NUL after it: the parser must keep within size */
    char *text = malloc(size ? size : 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    tb_vm_boot_guest g;
    tb_vm_boot_parse(text, size, &g);
    tb_vm_boot_timespan(text, size);
    free(text);
    const uint64_t total = 120000000000ull;
    tb_vm_boot_phases p;
    tb_vm_boot_phases_make(total, total + 2000000000ull, &g, &p);
    int64_t sum = 0;
    int known = 0;
    for (int i = 0; i < TB_VM_BOOT_NPHASES; i++)
        if (p.ns[i] >= 0) {
            sum += p.ns[i];
            known++;
        } else if (p.ns[i] != -1) {
            abort();
        }
    /* all of firmware, kernel and userspace known: they (and ssh) end at the login */
    if (p.ns[0] >= 0 && p.ns[1] >= 0 && p.ns[2] >= 0 && sum != (int64_t)total)
        abort();
    (void)known;
    return 0;
}
