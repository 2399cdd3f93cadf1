/* hex: lowercase hex encoding, strict decoding (see hex.h). The one hex codec of
 * the tree: attest (quotes, collateral, TCB info), notary (wire format) and the
 * cli use it; http_resp classifies chunk-size digits with tb_hex_val. */
#include "base/hex.h"

void tb_hex_encode(const uint8_t *p, size_t n, char *out)
{
    static const char d[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = d[p[i] >> 4];
        out[2 * i + 1] = d[p[i] & 15];
    }
    out[2 * n] = '\0';
}

long tb_hex_decode_upto(const char *s, size_t slen, uint8_t *out, size_t cap)
{
    if (slen % 2 || slen / 2 > cap)
        return -1;
    for (size_t i = 0; i < slen / 2; i++) {
        int hi = tb_hex_val((unsigned char)s[2 * i]), lo = tb_hex_val((unsigned char)s[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return (long)(slen / 2);
}

int tb_hex_decode(const char *s, size_t slen, uint8_t *out, size_t outlen)
{
    if (slen != 2 * outlen)
        return -1;
    return tb_hex_decode_upto(s, slen, out, outlen) < 0 ? -1 : 0;
}
