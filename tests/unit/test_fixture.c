/* Unit tests for serve/fixture: embedded documents equal testdata/fixture,
 * the compact re-encoding (size, key order, numbers, UTF-8), the welcome page. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "base/file.h"
#include "serve/fixture.h"

static void read_testdata(const char *name, tb_buf *out)
{
    const char *dir = getenv("TEEBENCH_TESTDATA");
    char path[1024];
    snprintf(path, sizeof path, "%s/fixture/%s", dir ? dir : TEEBENCH_SOURCE_DIR "/testdata", name);
    tb_err err;
    if (tb_file_read(path, 1 << 20, out, &err) < 0)
        fail_msg("%s", err.msg);
}

static void test_embedded_equal_files(void **state)
{
    (void)state;
    static const char *names[] = {"1kb.json", "4kb.json", "8kb.json", "4kb.html"};
    for (size_t i = 0; i < 4; i++) {
        tb_blob b;
        tb_err err;
        tb_buf want = {0};
        assert_int_equal(tb_fixture_doc(names[i], &b, &err), 0);
        read_testdata(names[i], &want);
        assert_int_equal(b.len, want.len);
        assert_memory_equal(b.p, want.p, want.len);
        tb_buf_clear(&want);
    }
    tb_blob b;
    tb_err err;
    assert_int_equal(tb_fixture_doc("2kb.json", &b, &err), -1);
    assert_non_null(strstr(err.msg, "2kb.json"));
}

static void test_compact_sizes(void **state)
{
    (void)state;
    /* Sizes computed independently with python3:
     * json.dumps(json.load(f), separators=(',', ':'), ensure_ascii=False) */
    static const struct {
        const char *name;
        size_t len;
    } want[] = {{"1kb.json", 722}, {"4kb.json", 3111}, {"8kb.json", 6962}};
    for (size_t i = 0; i < 3; i++) {
        tb_blob raw;
        tb_err err;
        tb_buf out = {0};
        assert_int_equal(tb_fixture_doc(want[i].name, &raw, &err), 0);
        assert_int_equal(tb_fixture_compact_json(raw.p, raw.len, &out, &err), 0);
        assert_int_equal(out.len, want[i].len);
        /* No whitespace outside strings: re-parse and compare to the original. */
        json_t *a = json_loadb((const char *)raw.p, raw.len, 0, NULL);
        json_t *b = json_loadb((const char *)out.p, out.len, 0, NULL);
        assert_non_null(a);
        assert_non_null(b);
        assert_true(json_equal(a, b));
        json_decref(a);
        json_decref(b);
        tb_buf_clear(&out);
    }
}

static void compact_is(const char *in, const char *want)
{
    tb_buf out = {0};
    tb_err err;
    assert_int_equal(tb_fixture_compact_json((const uint8_t *)in, strlen(in), &out, &err), 0);
    assert_string_equal((const char *)out.p, want);
    tb_buf_clear(&out);
}

static void test_compact_details(void **state)
{
    (void)state;
    compact_is("{ \"z\" : 1,\n \"a\" : [ 1.2 , 2.4, 2.0, 0.1 ] }",
               "{\"z\":1,\"a\":[1.2,2.4,2.0,0.1]}");
    compact_is("{\"b\": \"caf\\u00e9 \\/ \\\"q\\\"\", \"a\": null}",
               "{\"b\":\"caf\xc3\xa9 / \\\"q\\\"\",\"a\":null}");
    compact_is("[9876543210, -5, true, false, 1e300]", "[9876543210,-5,true,false,1e300]");
    compact_is("[0.30000000000000004]", "[0.30000000000000004]");
    tb_buf out = {0};
    tb_err err;
    assert_int_equal(tb_fixture_compact_json((const uint8_t *)"{\"a\":", 5, &out, &err), -1);
    assert_non_null(strstr(err.msg, "JSON document"));
    tb_buf_clear(&out);
}

static void test_welcome(void **state)
{
    (void)state;
    tb_blob w = tb_fixture_welcome();
    assert_int_equal(w.len, 615);
    assert_int_equal(strlen((const char *)w.p), 615);
    assert_memory_equal(w.p, "<!DOCTYPE html>", 15);
    assert_memory_equal(w.p + w.len - 8, "</html>\n", 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_embedded_equal_files),
        cmocka_unit_test(test_compact_sizes),
        cmocka_unit_test(test_compact_details),
        cmocka_unit_test(test_welcome),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
