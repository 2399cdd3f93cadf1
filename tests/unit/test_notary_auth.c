/* Unit tests for src/notary/auth: the keys file (keys alone and with names,
 * comments, blank lines, CRLF, every kind of bad line -- with errors that name
 * the file and line and never show the key), loading from disk, and checking
 * Authorization values: "Bearer KEY" in any case and the bare key accepted; a
 * missing, empty, truncated, extended or case-changed key, another scheme and
 * a key of another set refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "notary/auth.h"

#define K1 "k1-0123456789abcdef"
#define K2 "K2/+=!~0123456789abcdefXYZ"

static tb_notary_keys *parse(const char *text, tb_err *err)
{
    tb_notary_keys *k = NULL;
    if (tb_notary_keys_parse(text, strlen(text), "keys.txt", &k, err) < 0) {
        assert_null(k);
        return NULL;
    }
    return k;
}

static tb_notary_auth check(const tb_notary_keys *k, const char *v, const char **name)
{
    return tb_notary_keys_check(k, v, v ? strlen(v) : 0, name);
}

static void test_parse(void **state)
{
    (void)state;
    tb_err err;
    tb_notary_keys *k = parse("# teebench notary keys\n\n" K1 "\r\n"
                              "  alice\t" K2 "  \n"
                              "   # indented comment\n",
                              &err);
    assert_non_null(k);
    assert_int_equal(tb_notary_keys_count(k), 2);
    const char *name = NULL;
    assert_int_equal(check(k, K1, &name), TB_NOTARY_AUTH_OK);
    assert_string_equal(name, "");
    assert_int_equal(check(k, "Bearer " K2, &name), TB_NOTARY_AUTH_OK);
    assert_string_equal(name, "alice");
    assert_int_equal(check(k, "bearer  " K1, NULL), TB_NOTARY_AUTH_OK);
    assert_int_equal(check(k, "BEARER\t" K2, NULL), TB_NOTARY_AUTH_OK);
    assert_int_equal(check(k, NULL, NULL), TB_NOTARY_AUTH_MISSING);
    assert_int_equal(check(k, "", NULL), TB_NOTARY_AUTH_MISSING);
    assert_int_equal(check(k, "Bearer ", NULL), TB_NOTARY_AUTH_INVALID);
    assert_int_equal(check(k, "Bearer", NULL), TB_NOTARY_AUTH_INVALID);
    assert_int_equal(check(k, "k1-0123456789abcde", NULL), TB_NOTARY_AUTH_INVALID);  /* short */
    assert_int_equal(check(k, K1 "0", NULL), TB_NOTARY_AUTH_INVALID);                /* longer */
    assert_int_equal(check(k, "K1-0123456789abcdef", NULL), TB_NOTARY_AUTH_INVALID); /* case */
    assert_int_equal(check(k, "Basic " K1, NULL), TB_NOTARY_AUTH_INVALID);
    assert_int_equal(check(k, "alice", NULL), TB_NOTARY_AUTH_INVALID); /* a name is no key */
    tb_notary_keys *other = parse("zzzzzzzzzzzzzzzzzzzz\n", &err);
    assert_non_null(other);
    assert_int_equal(check(other, K1, NULL), TB_NOTARY_AUTH_INVALID);
    assert_int_equal(check(other, "zzzzzzzzzzzzzzzzzzzz", NULL), TB_NOTARY_AUTH_OK);
    tb_notary_keys_free(other);
    tb_notary_keys_free(k);
    tb_notary_keys_free(NULL);
}

/* Each bad file: the error names the line, says what is wrong, and does not
 * contain the key. */
static void test_bad_files(void **state)
{
    (void)state;
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"", "keys.txt: no key in the file"},
        {"# only comments\n\n", "keys.txt: no key in the file"},
        {"short-key-12345\n", "keys.txt:1: the key has 15 characters: want 16..256"},
        {K1 "\n" K1 "\n", "keys.txt:2: the same key as an earlier line"},
        {"a " K1 "\na " K2 "\n", "keys.txt:2: the name 'a' is used by an earlier line"},
        {"a b " K1 "\n", "keys.txt:1: want KEY or NAME KEY"},
        {"al/ce " K1 "\n", "keys.txt:1: the name 'al/ce' may have only letters"},
        {"\n\nk1-0123456789\x01"
         "abcdef\n",
         "keys.txt:3: the key has a character that is not"},
        {"k1-0123456789\xc3\xa9"
         "abcdef\n",
         "keys.txt:1: the key has a character that is not"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tb_err err;
        memset(&err, 0, sizeof err);
        assert_null(parse(bad[i].text, &err));
        if (!strstr(err.msg, bad[i].want))
            fail_msg("case %zu: '%s' does not say '%s'", i, err.msg, bad[i].want);
        assert_null(strstr(err.msg, "0123456789"));
    }
    char long_key[300];
    memset(long_key, 'x', sizeof long_key - 2);
    long_key[sizeof long_key - 2] = '\n';
    long_key[sizeof long_key - 1] = 0;
    tb_err err;
    assert_null(parse(long_key, &err));
    assert_non_null(strstr(err.msg, "298 characters"));
    const char nul[] = K1 "\n\0\n";
    tb_notary_keys *k = NULL;
    assert_int_equal(tb_notary_keys_parse(nul, sizeof nul - 1, "f", &k, &err), -1);
    assert_non_null(strstr(err.msg, "f:2: a NUL byte"));
}

static void test_load(void **state)
{
    (void)state;
    char path[] = "/tmp/tb-keys-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char text[] = "bob " K1 "\n";
    assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    tb_err err;
    tb_notary_keys *k = NULL;
    assert_int_equal(tb_notary_keys_load(path, &k, &err), 0);
    const char *name = NULL;
    assert_int_equal(check(k, "Bearer " K1, &name), TB_NOTARY_AUTH_OK);
    assert_string_equal(name, "bob");
    tb_notary_keys_free(k);
    unlink(path);
    assert_int_equal(tb_notary_keys_load(path, &k, &err), -1);
    assert_null(k);
    assert_non_null(strstr(err.msg, path));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
