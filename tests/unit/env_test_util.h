/* Helper of the tests that read the recorded machines (tests/data/env/<name>: a TD, an
 * SEV-SNP guest, a KVM VM, a TDX host, bare metal): a machine's env document through the
 * env module's own reader. Header-only; include after cmocka.h. The caller json_decref()s. */
#ifndef TB_TEST_ENV_UTIL_H
#define TB_TEST_ENV_UTIL_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "sys/env.h"

static inline json_t *recorded_env(const char *name)
{
    const char *root = getenv("TEEBENCH_SOURCE_DIR");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/tests/data/env/%s", root ? root : TEEBENCH_SOURCE_DIR, name);
    tb_err e;
    json_t *d = tb_env_json_recorded(dir, &e);
    if (!d)
        fail_msg("recorded machine %s: %s", name, e.msg);
    return d;
}

#endif
