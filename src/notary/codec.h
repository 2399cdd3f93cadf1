/* notary/codec: the base64 text encoding used by the notary's JSON API (its hex
 * fields use base/hex). Pure functions that append to a caller-owned tb_buf. The
 * decoder is strict: it rejects any character outside the alphabet and bad padding. */
#ifndef TB_NOTARY_CODEC_H
#define TB_NOTARY_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/* Appends standard base64 (with padding) of p[0..n) to out. Returns 0 or -1 (memory). */
int tb_notary_b64_append(tb_buf *out, const uint8_t *p, size_t n);
/* Appends the decoding of s[0..slen) (standard alphabet, padding required) to out.
 * Returns 0, or -1 when the text is not canonical base64 or memory runs out. */
int tb_notary_unb64_append(tb_buf *out, const char *s, size_t slen);

#endif
