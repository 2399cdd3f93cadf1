/* Unit tests for src/stats/hdr: wrk2's percentile spectrum (rows worked out by hand
 * from HdrHistogram's iteration), the V2 encoding (decoded here by an independent
 * reader: base64, zlib, ZigZag LEB128, and compared with the bytes HdrHistogram's
 * Java library 2.1.11 encodes for the same histogram) and the interval log lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "stats/hdr.h"
#include "stats/internal.h"

static void hist(tb_hist *h)
{
    tb_err e;
    assert_int_equal(tb_hist_init(h, TB_HIST_DEFAULT_MAX, &e), 0);
}

/* Values 1..10, value_scale 1: every value has its own counter, so each row can be
 * derived by hand: 5 steps per halving of the distance to 100 % (10 % steps up to
 * 50 %, 5 % to 75 %, 2.5 % to 87.5 %, 1.25 % beyond), each reported at the first
 * counter whose cumulative percentage reaches it, then the 100 % row. */
static void test_spectrum_by_hand(void **state)
{
    (void)state;
    tb_hist h;
    hist(&h);
    for (uint64_t v = 1; v <= 10; v++)
        tb_hist_record(&h, v);
    tb_buf b = {0};
    assert_int_equal(tb_hdr_spectrum(&h, 1.0, 5, &b), 0);
    const char *want = "       Value   Percentile   TotalCount 1/(1-Percentile)\n"
                       "\n"
                       "       1.000     0.000000            1         1.00\n"
                       "       1.000     0.100000            1         1.11\n"
                       "       2.000     0.200000            2         1.25\n"
                       "       3.000     0.300000            3         1.43\n"
                       "       4.000     0.400000            4         1.67\n"
                       "       5.000     0.500000            5         2.00\n"
                       "       6.000     0.550000            6         2.22\n"
                       "       6.000     0.600000            6         2.50\n"
                       "       7.000     0.650000            7         2.86\n"
                       "       7.000     0.700000            7         3.33\n"
                       "       8.000     0.750000            8         4.00\n"
                       "       8.000     0.775000            8         4.44\n"
                       "       8.000     0.800000            8         5.00\n"
                       "       9.000     0.825000            9         5.71\n"
                       "       9.000     0.850000            9         6.67\n"
                       "       9.000     0.875000            9         8.00\n"
                       "       9.000     0.887500            9         8.89\n"
                       "       9.000     0.900000            9        10.00\n"
                       "      10.000     0.912500           10        11.43\n"
                       "      10.000     1.000000           10          inf\n"
                       "#[Mean    =        5.500, StdDeviation   =        2.872]\n"
                       "#[Max     =       10.000, Total count    =           10]\n"
                       "#[Buckets =           35, SubBuckets     =         2048]\n";
    assert_string_equal((char *)b.p, want);
    /* wrk2's 8 rows use HdrHistogram's rank: round(p * count), highest equivalent */
    assert_int_equal(tb_hdr_value_at_percentile(&h, 50), 5);
    assert_int_equal(tb_hdr_value_at_percentile(&h, 75), 8);
    assert_int_equal(tb_hdr_value_at_percentile(&h, 99.999), 10);
    assert_int_equal(tb_hdr_value_at_percentile(&h, 100), 10);
    tb_buf_clear(&b);
    tb_hist_free(&h);
}

/* Larger values are reported as the highest value equivalent to their counter
 * (3 significant digits), and scaled: ns -> ms. */
static void test_spectrum_scaled(void **state)
{
    (void)state;
    tb_hist h;
    hist(&h);
    tb_hist_record_n(&h, 1234567, 99); /* 1.234567 ms: counter [1233920, 1234943] */
    tb_hist_record(&h, 2000000000);    /* 2 s */
    tb_buf b = {0};
    assert_int_equal(tb_hdr_spectrum(&h, 1e6, 5, &b), 0);
    assert_non_null(strstr((char *)b.p, "       1.235     0.000000           99         1.00\n"));
    assert_non_null(strstr((char *)b.p, "    2000.683     1.000000          100          inf\n"));
    assert_non_null(
        strstr((char *)b.p, "#[Max     =     2000.000, Total count    =          100]\n"));
    assert_int_equal(tb_hdr_value_at_percentile(&h, 99), 1234943);
    tb_buf_clear(&b);
    tb_hist_free(&h);
}

/* ---- an independent decoder ---- */

static int b64val(char c)
{
    const char *tab = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *p = strchr(tab, c);
    return c && p ? (int)(p - tab) : -1;
}

static size_t b64decode(const char *s, size_t n, uint8_t *out)
{
    size_t k = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n && s[i] != '='; i++) {
        int v = b64val(s[i]);
        assert_true(v >= 0);
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[k++] = (uint8_t)(acc >> bits);
        }
    }
    return k;
}

static uint64_t be(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* The inflated V2 encoding of the base64 text; returns its length. */
static size_t inflate_b64(const char *s, size_t n, uint8_t *out, size_t cap)
{
    uint8_t *raw = malloc(n);
    size_t rn = b64decode(s, n, raw);
    assert_true(rn > 8);
    assert_int_equal(be(raw, 4), 0x1c849314u);
    assert_int_equal(be(raw + 4, 4), rn - 8);
    uLongf len = cap;
    assert_int_equal(uncompress(out, &len, raw + 8, rn - 8), Z_OK);
    free(raw);
    return len;
}

/* Decodes a V2 encoding into counts (ncounts of them). */
static void decode_counts(const uint8_t *enc, size_t n, uint64_t *counts, uint32_t ncounts)
{
    assert_true(n >= 40);
    assert_int_equal(be(enc, 4), 0x1c849313u);
    assert_int_equal(be(enc + 4, 4), n - 40);
    assert_int_equal(be(enc + 8, 4), 0);
    assert_int_equal(be(enc + 12, 4), 3);
    assert_int_equal(be(enc + 16, 8), 1);
    assert_int_equal(be(enc + 24, 8), TB_HIST_DEFAULT_MAX);
    assert_int_equal(be(enc + 32, 8), 0x3ff0000000000000ULL); /* 1.0 */
    memset(counts, 0, ncounts * sizeof *counts);
    uint32_t idx = 0;
    for (size_t i = 40; i < n;) {
        uint64_t u = 0;
        int shift = 0, k = 0;
        for (;;) {
            uint8_t byte = enc[i++];
            if (k == 8) {
                u |= (uint64_t)byte << 56;
                break;
            }
            u |= (uint64_t)(byte & 0x7f) << shift;
            shift += 7;
            k++;
            if (!(byte & 0x80))
                break;
        }
        int64_t v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
        if (v < 0) {
            idx += (uint32_t)-v;
        } else {
            assert_true(idx < ncounts);
            counts[idx++] = (uint64_t)v;
        }
    }
}

/* The bytes HdrHistogram's Java Histogram(1, 2^44, 3).encodeIntoByteBuffer writes
 * for 0 x2, 1000 x3, 123456789 x1, 5000000000 x300 (HdrHistogram 2.1.11). */
static const char JAVA_V2[] =
    "1c8493130000000c0000000000000003000000000000000100001000000000003ff00"
    "0000000000004cd0f06e38d02029755d804";

static void test_encode_matches_java(void **state)
{
    (void)state;
    tb_hist h;
    hist(&h);
    tb_hist_record_n(&h, 0, 2);
    tb_hist_record_n(&h, 1000, 3);
    tb_hist_record(&h, 123456789);
    tb_hist_record_n(&h, 5000000000ULL, 300);
    tb_buf b = {0};
    tb_err e;
    assert_int_equal(tb_hdr_encode(&h, &b, &e), 0);
    assert_int_equal(strncmp((char *)b.p, "HISTFAAAA", 9), 0); /* what HdrHistogram logs show */
    uint8_t enc[4096];
    size_t n = inflate_b64((char *)b.p, b.len, enc, sizeof enc);
    char hex[2 * sizeof enc + 1];
    for (size_t i = 0; i < n; i++)
        snprintf(hex + 2 * i, 3, "%02x", enc[i]);
    assert_string_equal(hex, JAVA_V2);
    tb_buf_clear(&b);
    tb_hist_free(&h);
}

/* Round trip of a wide histogram: latencies from ns to an hour, counts above 2^32
 * (multi-byte LEB128, up to the 9-byte form) and long zero runs. */
static void test_encode_round_trip(void **state)
{
    (void)state;
    tb_hist h;
    hist(&h);
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint64_t v = (x % 1000000) * (1 + (x >> 40) % 3600000);
        tb_hist_record(&h, v);
    }
    tb_hist_record_n(&h, 777, UINT64_C(1) << 40);
    tb_hist_record_n(&h, 778, (UINT64_C(1) << 62) + 5); /* the 9-byte ZigZag form */
    tb_buf b = {0};
    tb_err e;
    assert_int_equal(tb_hdr_encode(&h, &b, &e), 0);
    size_t cap = 40 + (size_t)h.ncounts * 9;
    uint8_t *enc = malloc(cap);
    size_t n = inflate_b64((char *)b.p, b.len, enc, cap);
    uint64_t *counts = malloc(h.ncounts * sizeof *counts);
    decode_counts(enc, n, counts, h.ncounts);
    assert_memory_equal(counts, h.counts, h.ncounts * sizeof *counts);
    free(counts);
    free(enc);
    tb_buf_clear(&b);

    /* empty: a header and no counts */
    tb_hist_reset(&h);
    assert_int_equal(tb_hdr_encode(&h, &b, &e), 0);
    uint8_t small[256];
    assert_int_equal(inflate_b64((char *)b.p, b.len, small, sizeof small), 40);
    tb_buf_clear(&b);
    tb_hist_free(&h);
}

static void test_log_lines(void **state)
{
    (void)state;
    tb_hist h;
    hist(&h);
    tb_hist_record(&h, 2500000); /* 2.5 ms */
    tb_buf b = {0};
    tb_err e;
    assert_int_equal(tb_hdr_log_header(&b, "made by a test", 1700000000.25), 0);
    assert_string_equal((char *)b.p, "#[made by a test]\n"
                                     "#[Histogram log format version 1.3]\n"
                                     "#[StartTime: 1700000000.250 (seconds since epoch), Tue Nov "
                                     "14 22:13:20 UTC 2023]\n"
                                     "#[BaseTime: 1700000000.250 (seconds since epoch)]\n"
                                     "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
                                     "\"Interval_Compressed_Histogram\"\n");
    tb_buf_reset(&b);
    assert_int_equal(tb_hdr_log_interval(&b, "uncorrected", 0.0, 10.0042, &h, 1e6, &e), 0);
    assert_int_equal(strncmp((char *)b.p, "Tag=uncorrected,0.000,10.004,2.500,HISTFAAAA", 44), 0);
    assert_int_equal(b.p[b.len - 1], '\n');
    tb_buf_reset(&b);
    assert_int_equal(tb_hdr_log_interval(&b, NULL, 1.5, 2.0, &h, 1e6, &e), 0);
    assert_int_equal(strncmp((char *)b.p, "1.500,2.000,2.500,HISTFAAAA", 27), 0);
    assert_int_equal(tb_hdr_log_interval(&b, "a,b", 0, 1, &h, 1e6, &e), -1);
    tb_buf_clear(&b);
    tb_hist_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spectrum_by_hand),    cmocka_unit_test(test_spectrum_scaled),
        cmocka_unit_test(test_encode_matches_java), cmocka_unit_test(test_encode_round_trip),
        cmocka_unit_test(test_log_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
