/* libFuzzer target: workloads/network's reader of iperf3's --json output (the bytes a
 * client process wrote: untrusted) and of `iperf3 --version`'s line. A parse that
 * succeeds gives finite figures >= 0 (retransmits -1 when absent), never a crash. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/internal.h"
#include "workloads/network.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tb_wl_iperf3 r;
    tb_err err;
    if (tb_wl_iperf3_parse((const char *)data, size, &r, &err) == 0) {
        const double v[] = {r.sent_bps,     r.received_bps, r.sent_bytes, r.received_bytes,
                            r.lost_percent, r.lost_packets, r.packets,    r.jitter_ms,
                            r.cpu_host,     r.cpu_remote,   r.seconds};
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
            if (!isfinite(v[i]) || v[i] < 0)
                __builtin_trap();
        if (!(r.retransmits >= 0 || r.retransmits == -1) ||
            memchr(r.version, 0, sizeof r.version) == NULL)
            __builtin_trap();
    }
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    int major, minor;
    if (tb_wl_iperf3_version_parse(text, &major, &minor) == 0 && (major < 0 || minor < 0))
        __builtin_trap();
    free(text);
    return 0;
}
