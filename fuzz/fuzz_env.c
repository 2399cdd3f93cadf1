/* libFuzzer target for the sys/env text parsers (cpuinfo, kernel log, sysfs values, the
 * swiotlb fact from a command line and a kernel log):
 * arbitrary bytes must never crash them or read out of bounds. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sys/env.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *t = malloc(size + 1);
    if (!t)
        return 0;
    memcpy(t, data, size);
    t[size] = 0;
    tb_cpuinfo c;
    tb_klog k;
    tb_env_parse_cpuinfo(t, &c);
    tb_env_parse_klog(t, &k);
    tb_env_parse_bool(t);
    tb_env_parse_meminfo_total(t);
    /* the swiotlb fact from a guest's command line and kernel log (both untrusted) */
    unsigned long long nslabs;
    tb_env_parse_swiotlb_cmdline(t, &nslabs);
    tb_swiotlb_in in = {.cmdline = t,
                        .debugfs_nslabs = size > 0 ? data[0] : -1,
                        .debugfs_used = -1,
                        .have_klog = 1,
                        .klog = &k,
                        .cvm = size > 1 && (data[1] & 1),
                        .memory_bytes = (long long)size << 20};
    json_t *sw = tb_env_swiotlb_value(&in);
    char line[600];
    tb_env_swiotlb_text(sw, line, sizeof line);
    json_decref(sw);
    if (size >= 12)
        tb_env_hypervisor_name((const char *)data);
    tb_env_evidence ev;
    memset(&ev, 0, sizeof ev);
    ev.sev_msr = -1;
    ev.have_cpuinfo = 1;
    ev.cpu = c;
    ev.have_klog = 1;
    ev.klog = k;
    tb_platform p;
    tb_env_classify(&ev, &p);
    free(t);
    return 0;
}
