/* Unit tests for src/notary/key: generation, save/load, sign/verify. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "notary/internal.h"
#include "notary/key.h"

static void test_sign_verify(void **state)
{
    (void)state;
    tb_err err;
    tb_notary_key k, other;
    assert_int_equal(tb_notary_key_generate(&k, &err), 0);
    assert_int_equal(tb_notary_key_generate(&other, &err), 0);
    assert_true(k.spki.len > 60 && k.spki.len < 120);
    assert_non_null(strstr((char *)k.pem.p, "BEGIN PUBLIC KEY"));
    const uint8_t msg[] = "what the server sent";
    tb_buf sig = {0};
    assert_int_equal(tb_notary_sign(&k, msg, sizeof msg, &sig, &err), 0);
    assert_int_equal(
        tb_notary_verify_sig(k.spki.p, k.spki.len, msg, sizeof msg, sig.p, sig.len, &err), 0);
    /* another key, another message, a damaged signature: all refused */
    assert_int_equal(
        tb_notary_verify_sig(other.spki.p, other.spki.len, msg, sizeof msg, sig.p, sig.len, &err),
        -1);
    assert_int_equal(
        tb_notary_verify_sig(k.spki.p, k.spki.len, msg, sizeof msg - 1, sig.p, sig.len, &err), -1);
    sig.p[sig.len - 1] ^= 1;
    assert_int_equal(
        tb_notary_verify_sig(k.spki.p, k.spki.len, msg, sizeof msg, sig.p, sig.len, &err), -1);
    assert_int_equal(
        tb_notary_verify_sig((const uint8_t *)"junk", 4, msg, sizeof msg, sig.p, sig.len, &err),
        -1);
    assert_non_null(strstr(err.msg, "SubjectPublicKeyInfo"));
    tb_buf_clear(&sig);
    tb_notary_key_clear(&k);
    tb_notary_key_clear(&other);
}

static void test_save_load(void **state)
{
    (void)state;
    tb_err err;
    char dir[] = "/tmp/tb-key-XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/key.pem", dir);
    tb_notary_key k, l;
    assert_int_equal(tb_notary_key_generate(&k, &err), 0);
    assert_int_equal(tb_notary_key_save(&k, path, &err), 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(tb_notary_key_load(&l, path, &err), 0);
    assert_int_equal(l.spki.len, k.spki.len);
    assert_memory_equal(l.spki.p, k.spki.p, k.spki.len);
    assert_memory_equal(l.spki_sha256, k.spki_sha256, 32);
    tb_notary_key_clear(&l);
    /* a non-key file and a missing file fail with a message naming the path */
    FILE *f = fopen(path, "w");
    fputs("not a key\n", f);
    fclose(f);
    assert_int_equal(tb_notary_key_load(&l, path, &err), -1);
    assert_non_null(strstr(err.msg, path));
    unlink(path);
    assert_int_equal(tb_notary_key_load(&l, path, &err), -1);
    rmdir(dir);
    tb_notary_key_clear(&k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sign_verify),
        cmocka_unit_test(test_save_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
