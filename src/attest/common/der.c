/* attest/common/der: the one DER walker of the attest module (cert.c reads certificates and
 * CRLs with it, pck.c the SGX extension of a PCK certificate).
 *
 * Strict X.690 DER, as the signatures over these bytes require (a BER variant of signed
 * bytes is a different message, so nothing is ever "repaired"):
 *   - one-byte tags only (the high-tag-number form never occurs in DCAP certificates);
 *   - definite lengths in the fewest bytes: the short form below 128, else the long form
 *     with 1..4 length bytes, no leading zero byte and a value of at least 128;
 *     the indefinite form (0x80) is refused;
 *   - a content never reaches past its container; callers check that every container
 *     is consumed exactly (no trailing bytes: the walker's n is 0 at its end);
 *   - INTEGERs in minimal two's complement (tb_attest_der_int), BOOLEANs 0x00 or 0xff.
 * Invariant: every span handed out lies inside the caller's input. Nothing allocates. */
#include "attest/internal.h"

#include <string.h>

int tb_attest_der_next(tb_attest_der *d, int *tag, tb_attest_der *content, tb_attest_der *whole)
{
    if (d->n < 2)
        return -1;
    int t = d->p[0];
    if ((t & 0x1f) == 0x1f)
        return -1; /* high-tag-number form */
    size_t len = d->p[1], hl = 2;
    if (len & 0x80) {
        size_t k = len & 0x7f;
        if (k == 0 || k > 4 || d->n < 2 + k || d->p[2] == 0)
            return -1; /* indefinite, too long, truncated, or a leading zero byte */
        len = 0;
        for (size_t i = 0; i < k; i++)
            len = len << 8 | d->p[2 + i];
        if (len < 128)
            return -1; /* the short form was required */
        hl += k;
    }
    if (d->n - hl < len)
        return -1;
    if (tag)
        *tag = t;
    if (content)
        *content = (tb_attest_der){d->p + hl, len};
    if (whole)
        *whole = (tb_attest_der){d->p, hl + len};
    d->p += hl + len;
    d->n -= hl + len;
    return 0;
}

int tb_attest_der_expect(tb_attest_der *d, int tag, tb_attest_der *content)
{
    int t;
    return tb_attest_der_next(d, &t, content, NULL) < 0 || t != tag ? -1 : 0;
}

int tb_attest_der_int(tb_attest_der v)
{
    if (v.n == 0)
        return -1;
    if (v.n > 1 && ((v.p[0] == 0x00 && !(v.p[1] & 0x80)) || (v.p[0] == 0xff && (v.p[1] & 0x80))))
        return -1; /* a redundant leading byte */
    return 0;
}

int tb_attest_der_uint(tb_attest_der v, unsigned max, unsigned *out)
{
    if (tb_attest_der_int(v) < 0 || v.p[0] & 0x80 || v.n > 4)
        return -1;
    unsigned long x = 0;
    for (size_t i = 0; i < v.n; i++)
        x = x << 8 | v.p[i];
    if (x > max)
        return -1;
    *out = (unsigned)x;
    return 0;
}

int tb_attest_der_bool(tb_attest_der v, int *out)
{
    if (v.n != 1 || (v.p[0] != 0x00 && v.p[0] != 0xff))
        return -1;
    *out = v.p[0] != 0;
    return 0;
}
