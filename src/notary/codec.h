/* notary/codec: hex and base64 text encodings used by the notary's JSON API.
 * Pure functions over caller-owned memory; nothing allocates except the tb_buf
 * variants, which append to a caller-owned tb_buf. Decoders are strict: they
 * reject any character outside the alphabet, odd hex lengths and bad padding. */
#ifndef TB_NOTARY_CODEC_H
#define TB_NOTARY_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/* Lowercase hex of p[0..n) into out (2n+1 bytes, NUL-terminated). */
void tb_notary_hex(const uint8_t *p, size_t n, char *out);
/* Decodes exactly slen hex chars into out (capacity cap). Returns the byte count
 * (slen/2), or -1 on a bad character, odd length or too small out. */
long tb_notary_unhex(const char *s, size_t slen, uint8_t *out, size_t cap);
/* Appends standard base64 (with padding) of p[0..n) to out. Returns 0 or -1 (memory). */
int tb_notary_b64_append(tb_buf *out, const uint8_t *p, size_t n);
/* Appends the decoding of s[0..slen) (standard alphabet, padding required) to out.
 * Returns 0, or -1 when the text is not canonical base64 or memory runs out. */
int tb_notary_unb64_append(tb_buf *out, const char *s, size_t slen);

#endif
