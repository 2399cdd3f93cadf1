/* Unit tests for tlsn/wasm: the pins (a missing package says how to install it, a
 * changed byte names the file and both hashes), and the fixture-root substitution
 * (the fixture CA's subject and key replace the anchor's, once; no anchor, two of
 * them, or a CA of another subject length are refused). With the real package
 * installed (TEEBENCH_TLSN_WASM or the default directory) it is loaded and
 * substituted too; without it that part says so and is left out. */
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

#include <openssl/pem.h>
#include <openssl/x509.h>

#include "base/file.h"
#include "serve/pki.h"
#include "tlsn/wasm.h"

static char tmp[256];

static int setup(void **state)
{
    (void)state;
    snprintf(tmp, sizeof tmp, "/tmp/test_tlsn_wasm.XXXXXX");
    return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    return system(cmd) == 0 ? 0 : -1;
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *slash = strrchr(path, '/');
    *slash = 0;
    tb_err e;
    assert_int_equal(tb_mkdirs(path, &e), 0);
    *slash = '/';
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_missing_and_changed(void **state)
{
    (void)state;
    tb_tlsn_wasm w;
    tb_err e;
    char dir[300];
    snprintf(dir, sizeof dir, "%s/none", tmp);
    assert_int_equal(tb_tlsn_wasm_load(dir, &w, &e), -1);
    assert_non_null(strstr(e.msg, "tlsn-wasm is not installed"));
    assert_non_null(strstr(e.msg, "scripts/setup.sh --tlsn"));
    assert_non_null(strstr(e.msg, "tlsn-wasm@" TB_TLSN_WASM_VERSION));
    /* a package whose first file differs from its pin */
    snprintf(dir, sizeof dir, "%s/pkg", tmp);
    write_file(dir, "tlsn_wasm.js", "export default 0;\n");
    assert_int_equal(tb_tlsn_wasm_load(dir, &w, &e), -1);
    assert_non_null(strstr(e.msg, "tlsn_wasm.js: SHA-256 "));
    assert_non_null(strstr(e.msg,
                           "not the pinned "
                           "f497754ba69a960196f8c43a751b9d04eb8d29849e5e161e8bf09cb18cbccb21"));
}

/* GlobalSign ECC Root CA - R4's subject contents, then a P-256 SPKI's contents. */
static const uint8_t subject[] = {
    0x31, 0x24, 0x30, 0x22, 0x06, 0x03, 0x55, 0x04, 0x0b, 0x13, 0x1b, 'G',  'l',  'o',  'b',  'a',
    'l',  'S',  'i',  'g',  'n',  ' ',  'E',  'C',  'C',  ' ',  'R',  'o',  'o',  't',  ' ',  'C',
    'A',  ' ',  '-',  ' ',  'R',  '4',  0x31, 0x13, 0x30, 0x11, 0x06, 0x03, 0x55, 0x04, 0x0a, 0x13,
    0x0a, 'G',  'l',  'o',  'b',  'a',  'l',  'S',  'i',  'g',  'n',  0x31, 0x13, 0x30, 0x11, 0x06,
    0x03, 0x55, 0x04, 0x03, 0x13, 0x0a, 'G',  'l',  'o',  'b',  'a',  'l',  'S',  'i',  'g',  'n'};
static const uint8_t spki_prefix[] = {0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d,
                                      0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d,
                                      0x03, 0x01, 0x07, 0x03, 0x42, 0x00, 0x04};

/* junk, the anchor (subject + key), junk: copies anchors */
static size_t fake_wasm(uint8_t *out, int copies)
{
    size_t n = 0;
    memset(out, 0xAB, 100);
    n += 100;
    for (int i = 0; i < copies; i++) {
        memcpy(out + n, subject, sizeof subject);
        n += sizeof subject;
        memcpy(out + n, spki_prefix, sizeof spki_prefix);
        n += sizeof spki_prefix;
        memset(out + n, 0x11, 64);
        n += 64;
        memset(out + n, 0xCD, 10);
        n += 10;
    }
    return n;
}

static int contains(const uint8_t *h, size_t n, const uint8_t *x, size_t m)
{
    for (size_t i = 0; i + m <= n; i++)
        if (!memcmp(h + i, x, m))
            return 1;
    return 0;
}

static void test_substitute(void **state)
{
    (void)state;
    char pki[300], ca[400];
    snprintf(pki, sizeof pki, "%s/pki", tmp);
    tb_err e;
    assert_int_equal(tb_pki_generate(pki, &e), 0);
    snprintf(ca, sizeof ca, "%s/ca.pem", pki);
    uint8_t w[1000];
    size_t n = fake_wasm(w, 1);
    assert_int_equal(tb_tlsn_wasm_substitute_root(w, n, ca, &e), 0);
    /* the CA's subject and key are there, the anchor's are not */
    FILE *f = fopen(ca, "r");
    X509 *x = PEM_read_X509(f, NULL, NULL, NULL);
    fclose(f);
    uint8_t *name = NULL, *key = NULL;
    int nl = i2d_X509_NAME(X509_get_subject_name(x), &name);
    int kl = i2d_PUBKEY(X509_get0_pubkey(x), &key);
    assert_int_equal(nl, 2 + (int)sizeof subject); /* TB_PKI_CA_NAME is chosen for this */
    assert_true(contains(w, n, name + 2, (size_t)nl - 2));
    assert_true(contains(w, n, key + 2, (size_t)kl - 2));
    assert_false(contains(w, n, subject, sizeof subject));
    assert_int_equal(w[0], 0xAB);
    assert_int_equal(w[n - 1], 0xCD);
    OPENSSL_free(name);
    OPENSSL_free(key);
    X509_free(x);
    /* a second time: the anchor is gone */
    assert_int_equal(tb_tlsn_wasm_substitute_root(w, n, ca, &e), -1);
    assert_non_null(strstr(e.msg, "0 copies"));
    /* two anchors: refused */
    uint8_t w2[1000];
    n = fake_wasm(w2, 2);
    assert_int_equal(tb_tlsn_wasm_substitute_root(w2, n, ca, &e), -1);
    assert_non_null(strstr(e.msg, "2 copies"));
    /* not a certificate */
    char bad[400];
    snprintf(bad, sizeof bad, "%s/ca-key.pem", pki);
    n = fake_wasm(w2, 1);
    assert_int_equal(tb_tlsn_wasm_substitute_root(w2, n, bad, &e), -1);
    assert_true(contains(w2, n, subject, sizeof subject)); /* unchanged */
}

static void test_real_package(void **state)
{
    (void)state;
    char dir[4096];
    tb_err e;
    const char *env = getenv("TEEBENCH_TLSN_WASM");
    if (env && env[0])
        snprintf(dir, sizeof dir, "%s", env);
    else if (tb_tlsn_wasm_default_dir(dir, sizeof dir, &e) < 0)
        skip();
    struct stat st;
    if (stat(dir, &st) < 0) {
        print_message("skipped: no tlsn-wasm in %s (scripts/setup.sh --tlsn)\n", dir);
        skip();
    }
    tb_tlsn_wasm w;
    assert_int_equal(tb_tlsn_wasm_load(dir, &w, &e), 0);
    char pki[300], ca[400];
    snprintf(pki, sizeof pki, "%s/pki2", tmp);
    assert_int_equal(tb_pki_generate(pki, &e), 0);
    snprintf(ca, sizeof ca, "%s/ca.pem", pki);
    tb_buf *m = tb_tlsn_wasm_module(&w);
    assert_true(m->len > 9000000);
    assert_int_equal(tb_tlsn_wasm_substitute_root(m->p, m->len, ca, &e), 0);
    tb_tlsn_wasm_clear(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_and_changed),
        cmocka_unit_test(test_substitute),
        cmocka_unit_test(test_real_package),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
