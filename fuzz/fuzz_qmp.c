/* libFuzzer target for vm/qmp: bytes as QEMU might send them on the QMP socket
 * (untrusted: a guest-influenced or broken QEMU) go through the line splitter,
 * the message parser and, for returns, the query-cpus-fast reader. Nothing may
 * crash, leak or read out of bounds. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vm/qmp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tb_buf in = {0}, line = {0};
    tb_err err;
    if (tb_buf_append(&in, data, size) < 0)
        return 0;
    /* a final line without its line end counts too */
    if (tb_buf_append(&in, "\n", 1) < 0) {
        tb_buf_clear(&in);
        return 0;
    }
    while (tb_qmp_take_line(&in, &line, &err) == 1) {
        tb_qmp_msg m;
        if (tb_qmp_parse((const char *)line.p, line.len, &m, &err) < 0)
            continue;
        if (m.type == TB_QMP_RETURN) {
            int tids[16], n;
            tb_qmp_cpu_threads(m.value, tids, 16, &n, &err);
        }
        json_decref(m.json);
    }
    tb_buf_clear(&in);
    tb_buf_clear(&line);
    return 0;
}
