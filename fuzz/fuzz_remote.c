/* libFuzzer target for src/suite/remote's pure parts, on any NUL-terminated string:
 * - tb_remote_target_parse either fails with a message or gives a target whose name is
 *   a label (tb_record_label_valid), whose host (ssh) is non-empty and never starts with '-', whose
 * user never starts with '-' and whose port is 0 (ssh's default) or 1..65535;
 * - tb_remote_shell_quote's output, read back as POSIX single-quoted words, is the
 *   input exactly (what the remote shell will see);
 * - tb_remote_package_of (text that a remote host sends back) never overruns lib;
 * - tb_remote_glibc_needed (the same text) gives "MAJOR.MINOR" in digits, within ver. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "suite/internal.h"
#include "suite/remote.h"

/* a VM name of vm:VM */
static int vm_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 63)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-'))
            return 0;
    }
    return 1;
}

/* Reads back 'a'\''b' ... words; 0 and out (malloc'd) on success. */
static int unquote(const char *q, size_t qlen, char **out)
{
    char *o = malloc(qlen + 1);
    size_t n = 0, i = 0;
    if (!o)
        return -1;
    while (i < qlen) {
        if (q[i] == '\'') {
            i++;
            while (i < qlen && q[i] != '\'')
                o[n++] = q[i++];
            if (i == qlen)
                return free(o), -1; /* unclosed */
            i++;
        } else if (q[i] == '\\' && i + 1 < qlen) {
            o[n++] = q[i + 1];
            i += 2;
        } else {
            return free(o), -1; /* anything else would be shell syntax */
        }
    }
    o[n] = 0;
    *out = o;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = 0;

    tb_remote_target t;
    tb_err e = {{0}};
    if (tb_remote_target_parse(s, &t, &e) == 0) {
        if (!tb_record_label_valid(t.name) || t.port < 0 || t.port > 65535 || t.user[0] == '-')
            abort();
        if (t.kind == TB_TARGET_SSH && (!t.host[0] || t.host[0] == '-'))
            abort();
        if (t.kind == TB_TARGET_VM && !vm_ok(t.vm))
            abort();
    } else if (!e.msg[0]) {
        abort();
    }

    tb_buf q = {0};
    if (tb_remote_shell_quote(s, &q) == 0) {
        char *back = NULL;
        if (unquote((const char *)q.p, q.len, &back) < 0 || strcmp(back, s))
            abort();
        free(back);
    }
    tb_buf_clear(&q);

    char lib[16];
    memset(lib, 'x', sizeof lib);
    if (tb_remote_package_of(s, lib, sizeof lib) && !memchr(lib, 0, sizeof lib))
        abort();

    char ver[8];
    memset(ver, 'x', sizeof ver);
    if (tb_remote_glibc_needed(s, ver, sizeof ver)) {
        if (!memchr(ver, 0, sizeof ver))
            abort();
        const char *dot = strchr(ver, '.');
        if (!dot || dot == ver || !dot[1] || strspn(ver, "0123456789.") != strlen(ver) ||
            strchr(dot + 1, '.'))
            abort();
    }
    free(s);
    return 0;
}
