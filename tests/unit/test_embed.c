/* Unit tests for base/embed: TB_EMBED includes a file byte for byte, a NUL after
 * it, its length without the NUL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "base/embed.h"
#include "base/file.h"

TB_EMBED(test_embed_doc, "testdata/fixture/1kb.json");
TB_EMBED(test_embed_der, "testdata/tdx/intel-sgx-root-ca.der");

static void expect_file(const uint8_t *p, size_t n, const char *rel)
{
    char path[1024];
    tb_buf b = {0};
    tb_err e;
    snprintf(path, sizeof path, "%s/%s", TEEBENCH_SOURCE_DIR, rel);
    if (tb_file_read(path, 1 << 20, &b, &e) < 0)
        fail_msg("%s", e.msg);
    assert_int_equal(n, b.len);
    assert_memory_equal(p, b.p, n);
    assert_int_equal(p[n], 0);
    tb_buf_clear(&b);
}

static void test_embedded_bytes(void **state)
{
    (void)state;
    expect_file(test_embed_doc_start, TB_EMBED_LEN(test_embed_doc), "testdata/fixture/1kb.json");
    /* binary, with NUL bytes of its own inside */
    assert_non_null(memchr(test_embed_der_start, 0, TB_EMBED_LEN(test_embed_der)));
    expect_file(test_embed_der_start, TB_EMBED_LEN(test_embed_der),
                "testdata/tdx/intel-sgx-root-ca.der");
    assert_int_equal((uintptr_t)test_embed_der_start % 16, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_embedded_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
