/* notary/codec: base64 (declared in internal.h; hex is base/hex). Hand-written because the rules
 * (strict, canonical, no whitespace) are part of the notary's wire format; the
 * OpenSSL EVP_Decode* functions accept whitespace and are lenient on padding. */
#include "notary/internal.h"

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int tb_notary_b64_append(tb_buf *out, const uint8_t *p, size_t n)
{
    size_t need = (n + 2) / 3 * 4;
    if (tb_buf_reserve(out, need) < 0)
        return -1;
    char *o = (char *)out->p + out->len;
    size_t i = 0, j = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        o[j++] = B64[v >> 18];
        o[j++] = B64[(v >> 12) & 63];
        o[j++] = B64[(v >> 6) & 63];
        o[j++] = B64[v & 63];
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)p[i] << 16;
        o[j++] = B64[v >> 18];
        o[j++] = B64[(v >> 12) & 63];
        o[j++] = '=';
        o[j++] = '=';
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
        o[j++] = B64[v >> 18];
        o[j++] = B64[(v >> 12) & 63];
        o[j++] = B64[(v >> 6) & 63];
        o[j++] = '=';
    }
    out->len += j;
    out->p[out->len] = 0;
    return 0;
}

static int b64val(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

int tb_notary_unb64_append(tb_buf *out, const char *s, size_t slen)
{
    if (slen % 4)
        return -1;
    if (tb_buf_reserve(out, slen / 4 * 3) < 0)
        return -1;
    size_t start = out->len;
    for (size_t i = 0; i < slen; i += 4) {
        int last = i + 4 == slen;
        int v[4], pad = 0;
        for (int k = 0; k < 4; k++) {
            char c = s[i + k];
            if (c == '=' && last && k >= 2) {
                v[k] = 0;
                pad++;
                continue;
            }
            if (pad || (v[k] = b64val(c)) < 0)
                goto bad;
        }
        uint32_t w =
            (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        /* canonical: the unused low bits before padding must be zero */
        if ((pad == 1 && (w & 0xff)) || (pad == 2 && (w & 0xffff)))
            goto bad;
        out->p[out->len++] = (uint8_t)(w >> 16);
        if (pad < 2)
            out->p[out->len++] = (uint8_t)(w >> 8);
        if (pad < 1)
            out->p[out->len++] = (uint8_t)w;
    }
    out->p[out->len] = 0;
    return 0;
bad:
    out->len = start;
    out->p[out->len] = 0;
    return -1;
}
