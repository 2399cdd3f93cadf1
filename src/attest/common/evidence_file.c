/* attest/common/evidence_file: a file of evidence -- a TDX quote or an SEV-SNP report --
 * read as binary, or as hex or base64 text (whitespace allowed), decoded. What `attest
 * show|verify` and the tests read evidence files with, for both TEEs.
 *
 * Invariants: a file is read whole up to TB_EVIDENCE_FILE_MAX (4 MiB: four times the largest
 * quote the TDX parser takes, room for its hex form); reading fails only when the file
 * cannot be read, never on what it holds (the parsers judge that); nothing prints. */
#include "attest/internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "base/buf.h"
#include "base/file.h"
#include "base/hex.h"

#define TB_EVIDENCE_FILE_MAX (4u << 20)

int tb_attest_evidence_decode_text(const uint8_t *in, size_t n, uint8_t **out, size_t *outlen,
                                   tb_err *err)
{
    *out = NULL;
    *outlen = 0;
    /* Collect the non-space characters; any other byte outside base64 = binary. */
    char *t = malloc(n + 4); /* room for base64 padding and a NUL */
    if (!t)
        return tb_errf(err, "out of memory");
    size_t k = 0;
    int all_hex = 1;
    for (size_t i = 0; i < n; i++) {
        int c = in[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
            continue;
        if (!(isalnum(c) || c == '+' || c == '/' || c == '=' || c == '-' || c == '_')) {
            free(t);
            return 0;
        }
        if (tb_hex_val(c) < 0)
            all_hex = 0;
        t[k++] = (char)c;
    }
    if (k == 0) {
        free(t);
        return 0;
    }
    /* Hex: also accept a "0x" prefix. */
    size_t hs = (k >= 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) ? 2 : 0;
    int hex = all_hex;
    if (hs) {
        hex = 1;
        for (size_t i = 2; i < k; i++)
            if (tb_hex_val((unsigned char)t[i]) < 0)
                hex = 0;
    }
    if (hex && (k - hs) % 2 == 0) {
        size_t m = (k - hs) / 2;
        uint8_t *b = malloc(m ? m : 1);
        if (!b) {
            free(t);
            return tb_errf(err, "out of memory");
        }
        tb_hex_decode(t + hs, k - hs, b, m);
        free(t);
        *out = b;
        *outlen = m;
        return 1;
    }
    /* Base64 (standard or URL-safe alphabet, padding optional). */
    for (size_t i = 0; i < k; i++) {
        if (t[i] == '-')
            t[i] = '+';
        else if (t[i] == '_')
            t[i] = '/';
    }
    while (k % 4)
        t[k++] = '=';
    t[k] = '\0';
    uint8_t *b = malloc(k / 4 * 3 + 1);
    if (!b) {
        free(t);
        return tb_errf(err, "out of memory");
    }
    int m = EVP_DecodeBlock(b, (const unsigned char *)t, (int)k);
    if (m < 0) {
        free(t);
        free(b);
        return 0;
    }
    /* EVP_DecodeBlock counts padding as zero bytes: drop them. */
    size_t pad = 0;
    while (pad < 2 && k > pad && t[k - 1 - pad] == '=')
        pad++;
    free(t);
    *out = b;
    *outlen = (size_t)m - pad;
    return 1;
}

int tb_attest_evidence_file_read(const char *path, uint8_t **out, size_t *len, tb_err *err)
{
    tb_buf b = {0};
    *out = NULL;
    *len = 0;
    if (tb_file_read(path, TB_EVIDENCE_FILE_MAX, &b, err) < 0)
        return -1;
    uint8_t *dec = NULL;
    size_t declen = 0;
    int rc = tb_attest_evidence_decode_text(b.p, b.len, &dec, &declen, err);
    if (rc < 0) {
        tb_buf_clear(&b);
        return -1;
    }
    if (rc == 1) {
        tb_buf_clear(&b);
        *out = dec;
        *len = declen;
    } else {
        *out = b.p ? b.p : malloc(1); /* an empty file: a (zero-length) quote all the same */
        *len = b.len;
        if (!*out)
            return tb_errf(err, "out of memory");
    }
    return 0;
}
