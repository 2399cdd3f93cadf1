/* hex: lowercase hex encoding and strict hex decoding of bytes.
 * Pure functions over caller-owned memory; nothing allocates. Decoders accept
 * upper- and lowercase digits and nothing else (no whitespace, no "0x", no odd
 * lengths). tb_hex_val is inline because byte-at-a-time parsers (HTTP chunk
 * sizes) call it on their hot path. */
#ifndef TB_BASE_HEX_H
#define TB_BASE_HEX_H

#include <stddef.h>
#include <stdint.h>

/* The value 0..15 of the hex digit c (a character as an unsigned char or int),
 * or -1 when c is not one. */
static inline int tb_hex_val(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Lowercase hex of p[0..n) into out (2n+1 bytes, NUL-terminated). */
void tb_hex_encode(const uint8_t *p, size_t n, char *out);
/* Decodes s[0..slen) into exactly outlen bytes. Returns 0, or -1 when slen is not
 * 2*outlen or a character is not a hex digit (out may then be partly written). */
int tb_hex_decode(const char *s, size_t slen, uint8_t *out, size_t outlen);
/* Decodes s[0..slen) into out (capacity cap). Returns the byte count (slen/2), or
 * -1 on a bad character, an odd length or a too small out. */
long tb_hex_decode_upto(const char *s, size_t slen, uint8_t *out, size_t cap);

#endif
