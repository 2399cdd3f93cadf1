/* hdr: HdrHistogram formats for a tb_hist. See hdr.h; the layout equivalence is
 * what makes every function here a plain walk over h->counts. */
#include "stats/hdr.h"
#include "stats/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#define V2_ENCODING_COOKIE 0x1c849313u   /* V2 encoding, word-size nibble 1 (LEB128) */
#define V2_COMPRESSED_COOKIE 0x1c849314u /* V2 compressed encoding, same nibble */
#define ENCODING_HEADER 40u
#define SIG_DIGITS 3

/* The equivalence range of counter i, as HdrHistogram sees it. */
static uint64_t median_equiv(uint32_t i)
{
    uint64_t lo = tb_hist_lowest_equiv(i), hi = tb_hist_highest_equiv(i);
    return lo + (hi - lo + 1) / 2;
}

uint64_t tb_hdr_value_at_percentile(const tb_hist *h, double p)
{
    if (h->count == 0)
        return 0;
    double want = p < 100.0 ? p : 100.0;
    uint64_t rank = (uint64_t)(want / 100.0 * (double)h->count + 0.5);
    if (rank < 1)
        rank = 1;
    uint64_t seen = 0;
    for (uint32_t i = 0; i < h->ncounts; i++) {
        seen += h->counts[i];
        if (seen >= rank)
            return tb_hist_highest_equiv(i);
    }
    return 0;
}

double tb_hdr_mean(const tb_hist *h)
{
    if (h->count == 0)
        return 0.0;
    long double total = 0;
    for (uint32_t i = 0; i < h->ncounts; i++)
        if (h->counts[i])
            total += (long double)h->counts[i] * (long double)median_equiv(i);
    return (double)(total / (long double)h->count);
}

double tb_hdr_stddev(const tb_hist *h)
{
    if (h->count == 0)
        return 0.0;
    double mean = tb_hdr_mean(h);
    long double acc = 0;
    for (uint32_t i = 0; i < h->ncounts; i++) {
        if (!h->counts[i])
            continue;
        long double d = (long double)median_equiv(i) - mean;
        acc += d * d * (long double)h->counts[i];
    }
    return (double)sqrtl(acc / (long double)h->count);
}

int tb_hdr_bucket_count(const tb_hist *h)
{
    uint64_t trackable = (UINT64_C(1) << TB_HIST_SUB_BITS) - 1;
    int buckets = 1;
    while (trackable < h->highest) {
        trackable <<= 1;
        buckets++;
    }
    return buckets;
}

/* HdrHistogram's percentile iterator over the counters. */
struct pct_iter {
    const tb_hist *h;
    int64_t idx; /* current counter, -1 before the first */
    uint64_t cum;
    double next_pct; /* the percentile to report next */
    double pct;      /* the percentile reported by the last step */
    int ticks_per_half;
    int last_done;
};

/* Moves to the next counter while values remain beyond it. */
static int iter_advance(struct pct_iter *it)
{
    if (it->cum >= it->h->count || it->idx + 1 >= (int64_t)it->h->ncounts)
        return 0;
    it->idx++;
    it->cum += it->h->counts[it->idx];
    return 1;
}

static int pct_next(struct pct_iter *it)
{
    const tb_hist *h = it->h;
    if (it->idx >= 0 ? it->cum >= h->count : h->count == 0) {
        if (it->last_done)
            return 0;
        it->last_done = 1; /* the final 100 % row, at the last counter reached */
        it->pct = 100.0;
        return 1;
    }
    if (it->idx < 0 && !iter_advance(it))
        return 0;
    do {
        double current = 100.0 * (double)it->cum / (double)h->count;
        if (h->counts[it->idx] != 0 && it->next_pct <= current) {
            it->pct = it->next_pct;
            /* ticks_per_half rows per halving of the distance to 100 % */
            int64_t halvings = (int64_t)(log(100.0 / (100.0 - it->next_pct)) / log(2.0));
            double half_distance = pow(2.0, (double)(halvings + 1));
            it->next_pct += 100.0 / ((double)it->ticks_per_half * half_distance);
            return 1;
        }
    } while (iter_advance(it));
    return 1;
}

int tb_hdr_spectrum(const tb_hist *h, double value_scale, int ticks_per_half, tb_buf *out)
{
    if (tb_buf_printf(out, "%12s %12s %12s %12s\n\n", "Value", "Percentile", "TotalCount",
                      "1/(1-Percentile)") < 0)
        return -1;
    struct pct_iter it = {.h = h, .idx = -1, .ticks_per_half = ticks_per_half};
    while (pct_next(&it)) {
        uint32_t i = it.idx < 0 ? 0 : (uint32_t)it.idx;
        double value = it.idx < 0 ? 0.0 : (double)tb_hist_highest_equiv(i) / value_scale;
        double p = it.pct / 100.0;
        if (tb_buf_printf(out, "%12.*f %12f %12llu %12.2f\n", SIG_DIGITS, value, p,
                          (unsigned long long)it.cum, 1.0 / (1.0 - p)) < 0)
            return -1;
    }
    double max = h->count ? (double)h->max / value_scale : 0.0;
    return tb_buf_printf(out,
                         "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n"
                         "#[Max     = %12.3f, Total count    = %12llu]\n"
                         "#[Buckets = %12d, SubBuckets     = %12d]\n",
                         tb_hdr_mean(h) / value_scale, tb_hdr_stddev(h) / value_scale, max,
                         (unsigned long long)h->count, tb_hdr_bucket_count(h),
                         1 << TB_HIST_SUB_BITS);
}

/* ---- V2 encoding ---- */

static void put_be32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        p[k] = (uint8_t)(v >> (24 - 8 * k));
}

static void put_be64(uint8_t *p, uint64_t v)
{
    for (int k = 0; k < 8; k++)
        p[k] = (uint8_t)(v >> (56 - 8 * k));
}

/* ZigZag, then LEB128 with at most 9 bytes (the 9th holds 8 bits). Returns bytes. */
static size_t put_zigzag(uint8_t *p, int64_t v)
{
    uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    size_t n = 0;
    while (n < 8) {
        if (u < 0x80) {
            p[n++] = (uint8_t)u;
            return n;
        }
        p[n++] = (uint8_t)((u & 0x7f) | 0x80);
        u >>= 7;
    }
    p[n++] = (uint8_t)u;
    return n;
}

static int base64_append(tb_buf *out, const uint8_t *in, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    if (tb_buf_reserve(out, (n + 2) / 3 * 4) < 0)
        return -1;
    char *o = (char *)out->p + out->len;
    size_t i = 0, k = 0;
    for (; i + 2 < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        o[k++] = tab[v >> 18];
        o[k++] = tab[(v >> 12) & 63];
        o[k++] = tab[(v >> 6) & 63];
        o[k++] = tab[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0);
        o[k++] = tab[v >> 18];
        o[k++] = tab[(v >> 12) & 63];
        o[k++] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
        o[k++] = '=';
    }
    out->len += k;
    out->p[out->len] = 0;
    return 0;
}

int tb_hdr_encode(const tb_hist *h, tb_buf *out, tb_err *err)
{
    uint32_t limit = h->count ? tb_hist_index(h->max) + 1 : 0;
    size_t cap = ENCODING_HEADER + (size_t)limit * 9 + 9;
    uint8_t *enc = malloc(cap);
    if (!enc)
        return tb_errf(err, "histogram encoding: out of memory");
    size_t n = ENCODING_HEADER;
    for (uint32_t i = 0; i < limit;) {
        uint64_t c = h->counts[i++];
        if (c) {
            n += put_zigzag(enc + n, (int64_t)c);
            continue;
        }
        int64_t zeros = 1;
        while (i < limit && h->counts[i] == 0) {
            zeros++;
            i++;
        }
        n += put_zigzag(enc + n, -zeros);
    }
    double ratio = 1.0;
    uint64_t ratio_bits;
    memcpy(&ratio_bits, &ratio, sizeof ratio_bits);
    put_be32(enc, V2_ENCODING_COOKIE);
    put_be32(enc + 4, (uint32_t)(n - ENCODING_HEADER)); /* payload length */
    put_be32(enc + 8, 0);                               /* normalizing index offset */
    put_be32(enc + 12, SIG_DIGITS);
    put_be64(enc + 16, 1); /* lowest discernible value */
    put_be64(enc + 24, h->highest);
    put_be64(enc + 32, ratio_bits); /* integer to double conversion ratio */

    uLongf zlen = compressBound((uLong)n);
    uint8_t *z = malloc(8 + zlen);
    if (!z) {
        free(enc);
        return tb_errf(err, "histogram encoding: out of memory");
    }
    int zrc = compress2(z + 8, &zlen, enc, (uLong)n, Z_BEST_COMPRESSION);
    free(enc);
    if (zrc != Z_OK) {
        free(z);
        return tb_errf(err, "histogram encoding: zlib error %d", zrc);
    }
    put_be32(z, V2_COMPRESSED_COOKIE);
    put_be32(z + 4, (uint32_t)zlen);
    int rc = base64_append(out, z, 8 + zlen);
    free(z);
    return rc < 0 ? tb_errf(err, "histogram encoding: out of memory") : 0;
}

/* ---- interval log ---- */

int tb_hdr_log_header(tb_buf *out, const char *comment, double start_epoch_s)
{
    char when[64] = "";
    time_t t = (time_t)start_epoch_s;
    struct tm tm;
    if (gmtime_r(&t, &tm))
        strftime(when, sizeof when, "%a %b %d %H:%M:%S UTC %Y", &tm);
    if (comment && tb_buf_printf(out, "#[%s]\n", comment) < 0)
        return -1;
    return tb_buf_printf(out,
                         "#[Histogram log format version 1.3]\n"
                         "#[StartTime: %.3f (seconds since epoch), %s]\n"
                         "#[BaseTime: %.3f (seconds since epoch)]\n"
                         "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
                         "\"Interval_Compressed_Histogram\"\n",
                         start_epoch_s, when, start_epoch_s);
}

int tb_hdr_log_interval(tb_buf *out, const char *tag, double start_s, double length_s,
                        const tb_hist *h, double max_scale, tb_err *err)
{
    if (tag && (!*tag || strspn(tag, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                     "0123456789-_.") != strlen(tag)))
        return tb_errf(err, "histogram log: bad tag");
    double max = h->count ? (double)h->max / max_scale : 0.0;
    if ((tag && tb_buf_printf(out, "Tag=%s,", tag) < 0) ||
        tb_buf_printf(out, "%.3f,%.3f,%.3f,", start_s, length_s, max) < 0)
        return tb_errf(err, "histogram log: out of memory");
    if (tb_hdr_encode(h, out, err) < 0)
        return -1;
    return tb_buf_puts(out, "\n") < 0 ? tb_errf(err, "histogram log: out of memory") : 0;
}
