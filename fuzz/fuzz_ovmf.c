/* libFuzzer target for vm/firmware: an OVMF file's bytes are untrusted (a firmware
 * file a user points --firmware at, or one a distribution ships). The GUIDed-table
 * reader follows lengths and offsets taken from the bytes; nothing may read out of
 * bounds, loop forever or crash, and the facts it returns must survive the JSON
 * round trip `env --record` / `vm check --from` makes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vm/firmware.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* an exact-size copy, so reading past the end is caught */
    uint8_t *p = malloc(size ? size : 1);
    if (!p)
        return 0;
    memcpy(p, data, size);
    tb_vm_fw f, back;
    memset(&f, 0, sizeof f);
    f.present = 1;
    f.size = size;
    tb_vm_fw_parse(p, size, &f);
    char line[600];
    tb_vm_fw_describe(&f, line, sizeof line);
    json_t *j = tb_vm_fw_json(&f);
    tb_err err;
    if (j && tb_vm_fw_from_json(j, &back, &err) == 0 &&
        (back.tdx != f.tdx || back.snp != f.snp || back.ovmf != f.ovmf))
        abort();
    json_decref(j);
    free(p);
    return 0;
}
