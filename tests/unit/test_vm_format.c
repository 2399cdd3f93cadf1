/* Unit tests for src/vm/format: each QEMU probe's magic (and its near misses) to
 * the format name, the refusals (LUKS, encrypted qcow2), and tb_vm_image_probe on
 * files: a qcow2 header under a .img name, a raw file under a .qcow2 name, an
 * empty file, a directory, a missing file. (tests/e2e/vm_cli.sh checks the same
 * against images QEMU's own qemu-img made.) */
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

#include "base/bytes.h"
#include "base/file.h"
#include "vm/vm.h"

static uint8_t buf[2048];

static const char *fmt_of(void)
{
    tb_err e;
    return tb_vm_image_format(buf, sizeof buf, &e);
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8),
    p[3] = (uint8_t)v;
}
static void test_magics(void **state)
{
    (void)state;
    memset(buf, 0, sizeof buf);
    assert_string_equal(fmt_of(), "raw");
    memcpy(buf, "QFI\xfb", 4);
    for (uint32_t v = 2; v <= 3; v++) {
        put_be32(buf + 4, v);
        assert_string_equal(fmt_of(), "qcow2");
    }
    put_be32(buf + 4, 1);
    assert_string_equal(fmt_of(), "qcow");
    memset(buf, 0, sizeof buf);
    memcpy(buf, "QED", 4);
    assert_string_equal(fmt_of(), "qed");
    memset(buf, 0, sizeof buf);
    memcpy(buf, "KDMV", 4);
    assert_string_equal(fmt_of(), "vmdk");
    memcpy(buf, "COWD", 4);
    assert_string_equal(fmt_of(), "vmdk");
    memset(buf, 0, sizeof buf);
    tb_wr_le32(buf + 64, 0xbeda107f);
    assert_string_equal(fmt_of(), "vdi");
    memset(buf, 0, sizeof buf);
    memcpy(buf, "vhdxfile", 8);
    assert_string_equal(fmt_of(), "vhdx");
    memset(buf, 0, sizeof buf);
    memcpy(buf, "conectix", 8);
    assert_string_equal(fmt_of(), "vpc");
    memset(buf, 0, sizeof buf);
    memcpy(buf, "WithoutFreeSpace", 16);
    tb_wr_le32(buf + 16, 2);
    assert_string_equal(fmt_of(), "parallels");
    memcpy(buf, "WithouFreSpacExt", 16);
    assert_string_equal(fmt_of(), "parallels");
    tb_wr_le32(buf + 16, 3); /* another version: not parallels to QEMU */
    assert_string_equal(fmt_of(), "raw");
    memset(buf, 0, sizeof buf);
    memcpy(buf, "Bochs Virtual HD Image", 23);
    memcpy(buf + 32, "Redolog", 8);
    memcpy(buf + 48, "Growing", 8);
    tb_wr_le32(buf + 64, 0x00020000);
    assert_string_equal(fmt_of(), "bochs");
    memcpy(buf + 48, "Undoable", 9);
    assert_string_equal(fmt_of(), "raw");
    memset(buf, 0, sizeof buf);
    static const char cloop[] = "#!/bin/sh\n#V2.0 Format\n"
                                "modprobe cloop file=$0 && mount -r -t iso9660 /dev/cloop $1\n";
    memcpy(buf, cloop, sizeof cloop - 1);
    assert_string_equal(fmt_of(), "cloop");
}

static void test_vmdk_descriptor(void **state)
{
    (void)state;
    const char *yes[] = {"# Disk DescriptorFile\nversion=1\nCID=fffffffe\n",
                         "# a\n# b\n   \nversion=3\r\n", "version=2\n", NULL};
    const char *no[] = {"# Disk DescriptorFile\nCID=1\nversion=1\n",
                        "version=4\n",
                        "  x\nversion=1\n",
                        "# only a comment\n",
                        "version=1",
                        NULL};
    for (int i = 0; yes[i]; i++) {
        tb_err e;
        assert_string_equal(tb_vm_image_format((const uint8_t *)yes[i], strlen(yes[i]), &e),
                            "vmdk");
    }
    for (int i = 0; no[i]; i++) {
        tb_err e;
        assert_string_equal(tb_vm_image_format((const uint8_t *)no[i], strlen(no[i]), &e), "raw");
    }
}

static void test_refused(void **state)
{
    (void)state;
    tb_err e;
    memset(buf, 0, sizeof buf);
    memcpy(buf, "LUKS\xba\xbe\x00\x01", 8);
    assert_null(tb_vm_image_format(buf, sizeof buf, &e));
    assert_non_null(strstr(e.msg, "LUKS"));
    memset(buf, 0, sizeof buf);
    memcpy(buf, "QFI\xfb", 4);
    put_be32(buf + 4, 3);
    put_be32(buf + 32, 2); /* crypt_method LUKS */
    assert_null(tb_vm_image_format(buf, sizeof buf, &e));
    assert_non_null(strstr(e.msg, "encrypted qcow2"));
    /* a short head: what fits is checked, nothing read beyond len */
    assert_string_equal(tb_vm_image_format((const uint8_t *)"QFI", 3, &e), "raw");
    assert_string_equal(tb_vm_image_format((const uint8_t *)"", 0, &e), "raw");
}

static void test_probe_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/tb-fmt-XXXXXX", p[256], f[16];
    assert_non_null(mkdtemp(dir));
    tb_err e;
    uint8_t disk[4096] = {0};
    memcpy(disk, "QFI\xfb\0\0\0\3", 8);
    snprintf(p, sizeof p, "%s/cloud.img", dir); /* Ubuntu's name for a qcow2 */
    assert_int_equal(tb_file_write_atomic(p, disk, sizeof disk, &e), 0);
    assert_int_equal(tb_vm_image_probe(p, f, sizeof f, &e), 0);
    assert_string_equal(f, "qcow2");
    unlink(p);
    memset(disk, 0, sizeof disk);
    snprintf(p, sizeof p, "%s/disk.qcow2", dir);
    assert_int_equal(tb_file_write_atomic(p, disk, sizeof disk, &e), 0);
    assert_int_equal(tb_vm_image_probe(p, f, sizeof f, &e), 0);
    assert_string_equal(f, "raw");
    unlink(p);
    snprintf(p, sizeof p, "%s/empty", dir);
    assert_int_equal(tb_file_write_atomic(p, "", 0, &e), 0);
    assert_int_equal(tb_vm_image_probe(p, f, sizeof f, &e), -1);
    assert_non_null(strstr(e.msg, "0 bytes, too small"));
    unlink(p);
    assert_int_equal(tb_vm_image_probe(dir, f, sizeof f, &e), -1);
    assert_non_null(strstr(e.msg, "a directory"));
    snprintf(p, sizeof p, "%s/missing", dir);
    assert_int_equal(tb_vm_image_probe(p, f, sizeof f, &e), -1);
    assert_non_null(strstr(e.msg, "No such file"));
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_magics),
        cmocka_unit_test(test_vmdk_descriptor),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_probe_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
