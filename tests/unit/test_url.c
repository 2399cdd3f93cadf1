/* Unit tests for src/net/url: parts, defaults, Host header, rejections. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "net/url.h"

static void test_parse_ok(void **state)
{
    (void)state;
    tb_url u;
    tb_err e;
    char h[300];
    assert_int_equal(tb_url_parse("http://localhost:8080/index.html?a=1#frag", &u, &e), 0);
    assert_false(u.tls);
    assert_string_equal(u.host, "localhost");
    assert_string_equal(u.port, "8080");
    assert_int_equal(u.port_num, 8080);
    assert_string_equal(u.path, "/index.html?a=1");
    assert_int_equal(tb_url_host_header(&u, h, sizeof h), 14);
    assert_string_equal(h, "localhost:8080");

    assert_int_equal(tb_url_parse("HTTPS://test-server.io", &u, &e), 0);
    assert_true(u.tls);
    assert_string_equal(u.port, "443");
    assert_false(u.port_explicit);
    assert_string_equal(u.path, "/");
    tb_url_host_header(&u, h, sizeof h);
    assert_string_equal(h, "test-server.io");

    assert_int_equal(tb_url_parse("http://[::1]:81?x", &u, &e), 0);
    assert_true(u.ipv6);
    assert_string_equal(u.host, "::1");
    assert_string_equal(u.path, "/?x");
    tb_url_host_header(&u, h, sizeof h);
    assert_string_equal(h, "[::1]:81");

    assert_int_equal(tb_url_parse("http://127.0.0.1:80/", &u, &e), 0);
    tb_url_host_header(&u, h, sizeof h);
    assert_string_equal(h, "127.0.0.1");
}

static void test_parse_bad(void **state)
{
    (void)state;
    tb_url u;
    tb_err e;
    const char *bad[] = {"",
                         "localhost:8080",
                         "ftp://x/",
                         "http://",
                         "http:///path",
                         "http://host:/",
                         "http://host:0/",
                         "http://host:65536/",
                         "http://host:123456/",
                         "http://user@host/",
                         "http://[::1/",
                         "http://[zz]/",
                         "http://host/a b",
                         "http://host/\x01",
                         "http://ho^st/",
                         "http://host:80x/"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(tb_url_parse(bad[i], &u, &e), -1);
        assert_non_null(strstr(e.msg, "invalid URL"));
    }
    static char longpath[TB_URL_PATH_MAX + 64];
    strcpy(longpath, "http://h/");
    memset(longpath + 9, 'a', TB_URL_PATH_MAX + 10);
    assert_int_equal(tb_url_parse(longpath, &u, &e), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_ok),
        cmocka_unit_test(test_parse_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
