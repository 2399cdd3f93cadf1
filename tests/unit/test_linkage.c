/* Unit tests for base/linkage in an ordinary (dynamically linked) program, this one:
 * tb_linkage_static agrees with the ELF program headers of /proc/self/exe read
 * independently here (a PT_INTERP entry), and tb_linkage_nss_builtin changes nothing
 * (passwd lookups still answer). The self-contained side -- `make static`'s
 * build/teebench-static loading no NSS module and no libcurl -- is checked in a Debian 11
 * root by tests/e2e/slow_static.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <elf.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/linkage.h"

/* 1 when the executable's program headers name an interpreter, read from the file. */
static int file_has_interp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    Elf64_Ehdr eh;
    assert_int_equal(fread(&eh, sizeof eh, 1, f), 1);
    assert_memory_equal(eh.e_ident, ELFMAG, SELFMAG);
    assert_int_equal(eh.e_ident[EI_CLASS], ELFCLASS64);
    int interp = 0;
    for (int i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        assert_int_equal(fseek(f, (long)(eh.e_phoff + (uint64_t)i * eh.e_phentsize), SEEK_SET), 0);
        assert_int_equal(fread(&ph, sizeof ph, 1, f), 1);
        interp |= ph.p_type == PT_INTERP;
    }
    fclose(f);
    return interp;
}

static void test_dynamic(void **state)
{
    (void)state;
    assert_int_equal(file_has_interp("/proc/self/exe"), 1); /* cmocka: a shared library */
    assert_int_equal(tb_linkage_static(), 0);
}

static void test_nss_untouched(void **state)
{
    (void)state;
    tb_err e = {{0}};
    assert_int_equal(tb_linkage_nss_builtin(&e), 0);
    assert_string_equal(e.msg, "");
    struct passwd *pw = getpwuid(getuid());
    assert_non_null(pw);
    assert_non_null(getpwnam(pw->pw_name));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dynamic),
        cmocka_unit_test(test_nss_untouched),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
