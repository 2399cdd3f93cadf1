/* libFuzzer target for base/text over any bytes (a remote's line, a result's string):
 * - tb_text_escape's output is plain (tb_text_plain says so) and, for plain input, is
 *   the input itself; tb_text_plain is 0 exactly when the escape changes something;
 * - tb_text_has_bidi implies not plain;
 * - tb_text_safe (on the bytes up to the first NUL) fits its buffer for every size,
 *   is plain, and is the full escape or a prefix of it followed by "...". */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "base/text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    tb_buf b = {0};
    if (tb_text_escape(&b, s, size) < 0)
        return 0;
    const char *e = b.p ? (const char *)b.p : "";
    int plain = tb_text_plain(s, size);
    if (!tb_text_plain(e, b.len) || memchr(e, 0, b.len))
        __builtin_trap();
    if (plain != (b.len == size && !memcmp(e, s, size)))
        __builtin_trap();
    if (tb_text_has_bidi(s, size) && plain)
        __builtin_trap();

    char *z = malloc(size + 1);
    if (z) {
        memcpy(z, data, size);
        z[size] = 0;
        tb_buf full = {0};
        if (tb_text_escape_str(&full, z) == 0) {
            const char *f = full.p ? (const char *)full.p : "";
            char out[96];
            for (size_t len = 4; len <= sizeof out; len += 7) {
                const char *r = tb_text_safe(z, out, len);
                size_t rl = strlen(r);
                if (r != z && rl >= len)
                    __builtin_trap();
                if (!tb_text_plain(r, rl))
                    __builtin_trap();
                if (strcmp(r, f) && (rl < 3 || strcmp(r + rl - 3, "...") || strncmp(r, f, rl - 3)))
                    __builtin_trap();
            }
        }
        tb_buf_clear(&full);
        free(z);
    }
    tb_buf_clear(&b);
    return 0;
}
