/* libFuzzer target for src/net/url: any NUL-terminated string either parses into
 * parts that respect the documented invariants (host non-empty, path starts with
 * '/', port in 1..65535, Host header fits) or fails with a message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/url.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = 0;
    tb_url u;
    tb_err e;
    if (tb_url_parse(s, &u, &e) == 0) {
        char host[TB_URL_HOST_MAX + 16];
        if (!u.host[0] || u.path[0] != '/' || u.port_num == 0 ||
            tb_url_host_header(&u, host, sizeof host) < 0)
            abort();
        for (const char *p = u.path; *p; p++)
            if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f || *p == '#')
                abort();
    } else if (!e.msg[0]) {
        abort();
    }
    free(s);
    return 0;
}
