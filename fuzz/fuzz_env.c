/* libFuzzer target for the sys/env text parsers (cpuinfo, kernel log, sysfs values):
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
