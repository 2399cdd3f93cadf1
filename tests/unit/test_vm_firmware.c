/* Unit tests for src/vm/firmware: the OVMF GUIDed-table reader on images built here
 * in the layout EDK2 writes and QEMU reads (a TDVF, an SEV-SNP OVMF, both, neither),
 * every corruption a hostile file could carry (lengths and offsets pointing out of
 * the file, a zero-length entry, wrong signatures, versions, section types), Debian's
 * real OVMF.fd when it is installed, the JSON facts and the file hash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/bytes.h"
#include "base/file.h"
#include "vm/firmware.h"

static const uint8_t FOOTER[16] = {0xde, 0x82, 0xb5, 0x96, 0xb2, 0x1f, 0xf7, 0x45,
                                   0xba, 0xea, 0xa3, 0x66, 0xc5, 0x5a, 0x08, 0x2d};
static const uint8_t TDX[16] = {0x35, 0x65, 0x7a, 0xe4, 0x4a, 0x98, 0x98, 0x47,
                                0x86, 0x5e, 0x46, 0x85, 0xa7, 0xbf, 0x8e, 0xc2};
static const uint8_t SEV[16] = {0x66, 0x65, 0x88, 0xdc, 0x4a, 0x98, 0x98, 0x47,
                                0xa7, 0x5e, 0x55, 0x85, 0xa7, 0xbf, 0x67, 0xcc};
static const uint8_t SEV_ES[16] = {0xde, 0x71, 0xf7, 0x00, 0x7e, 0x1a, 0xcb, 0x4f,
                                   0x89, 0x0e, 0x68, 0xc7, 0x7e, 0x2f, 0xb4, 0x4e};

#define SIZE 0x10000
#define TDVF_AT 0x1000 /* from the end */
#define ASEV_AT 0x800

/* What an image carries. */
typedef struct spec {
    int tdx, sev, sev_es;
    uint32_t sev_types[5];
    int nsev;
} spec;

/* An entry "data, 2-byte length, GUID" ending at *end (which moves down). */
static void entry(uint8_t *img, size_t *end, const uint8_t guid[16], const void *data, size_t n)
{
    size_t len = n + 18;
    *end -= len;
    memcpy(img + *end, data, n);
    tb_wr_le16(img + *end + n, (uint16_t)len);
    memcpy(img + *end + n + 2, guid, 16);
}

/* A 64 KiB image with the table 48 bytes before the end and metadata as asked. */
static uint8_t *image(const spec *sp)
{
    uint8_t *img = calloc(1, SIZE);
    assert_non_null(img);
    memcpy(img + SIZE - 48, FOOTER, 16);
    size_t end = SIZE - 50, top = end;
    uint8_t off[4];
    if (sp->sev_es) {
        tb_wr_le32(off, 0x80b004);
        entry(img, &end, SEV_ES, off, 4);
    }
    if (sp->sev) {
        tb_wr_le32(off, ASEV_AT);
        entry(img, &end, SEV, off, 4);
        uint8_t *m = img + SIZE - ASEV_AT;
        memcpy(m, "ASEV", 4);
        tb_wr_le32(m + 4, 16 + 12 * (uint32_t)sp->nsev);
        tb_wr_le32(m + 8, 1);
        tb_wr_le32(m + 12, (uint32_t)sp->nsev);
        for (int i = 0; i < sp->nsev; i++) {
            tb_wr_le32(m + 16 + 12 * i, 0x800000 + 0x1000 * (uint32_t)i);
            tb_wr_le32(m + 20 + 12 * i, 0x1000);
            tb_wr_le32(m + 24 + 12 * i, sp->sev_types[i]);
        }
    }
    if (sp->tdx) {
        tb_wr_le32(off, TDVF_AT);
        entry(img, &end, TDX, off, 4);
        uint8_t *m = img + SIZE - TDVF_AT;
        memcpy(m, "TDVF", 4);
        tb_wr_le32(m + 4, 16 + 32 * 2);
        tb_wr_le32(m + 8, 1);
        tb_wr_le32(m + 12, 2);
        uint8_t *bfv = m + 16, *hob = m + 48;
        tb_wr_le32(bfv, 0);          /* data offset */
        tb_wr_le32(bfv + 4, 0x8000); /* raw size */
        tb_wr_le64(bfv + 8, 0xfff00000);
        tb_wr_le64(bfv + 16, 0x8000);
        tb_wr_le32(bfv + 24, 0); /* BFV */
        tb_wr_le32(bfv + 28, 1);
        tb_wr_le64(hob + 8, 0x809000);
        tb_wr_le64(hob + 16, 0x2000);
        tb_wr_le32(hob + 24, 2); /* TD_HOB */
    }
    tb_wr_le16(img + SIZE - 50, (uint16_t)(top - end + 18));
    return img;
}

static void parse(const uint8_t *img, size_t n, tb_vm_fw *f)
{
    memset(f, 0, sizeof *f);
    tb_vm_fw_parse(img, n, f);
}

static void test_tdvf_and_snp(void **state)
{
    (void)state;
    spec sp = {.tdx = 1, .sev = 1, .sev_es = 1, .sev_types = {1, 1, 2, 3, 1}, .nsev = 5};
    uint8_t *img = image(&sp);
    tb_vm_fw f;
    parse(img, SIZE, &f);
    assert_int_equal(f.ovmf, 1);
    assert_int_equal(f.tdx, 1);
    assert_int_equal(f.tdx_sections, 2);
    assert_int_equal(f.sev, 1);
    assert_int_equal(f.snp, 1);
    assert_int_equal(f.sev_descs, 5);
    assert_int_equal(f.sev_es, 1);
    char d[600];
    f.present = 1;
    tb_vm_fw_describe(&f, d, sizeof d);
    assert_non_null(strstr(d, "TDVF metadata (2 sections)"));
    assert_non_null(strstr(d, "SNP secrets and CPUID pages (5 descriptors)"));
    free(img);

    /* a TDX-only build (edk2's IntelTdx) and an SEV build without the SNP pages */
    spec tdx_only = {.tdx = 1};
    img = image(&tdx_only);
    parse(img, SIZE, &f);
    assert_int_equal(f.tdx, 1);
    assert_int_equal(f.sev, 0);
    assert_int_equal(f.snp, 0);
    assert_non_null(strstr(f.snp_why, "no SEV metadata entry"));
    free(img);
    spec sev_no_cpuid = {.sev = 1, .sev_types = {1, 2}, .nsev = 2};
    img = image(&sev_no_cpuid);
    parse(img, SIZE, &f);
    assert_int_equal(f.sev, 1);
    assert_int_equal(f.snp, 0);
    assert_string_equal(f.snp_why, "SEV metadata without a CPUID page");
    assert_int_equal(f.tdx, 0);
    assert_non_null(strstr(f.tdx_why, "no TDX metadata entry"));
    free(img);
    /* an OVMF with an empty table, and a file that is no OVMF */
    spec none = {0};
    img = image(&none);
    parse(img, SIZE, &f);
    assert_int_equal(f.ovmf, 1);
    assert_int_equal(f.tdx + f.sev, 0);
    memset(img + SIZE - 48, 0, 16);
    parse(img, SIZE, &f);
    assert_int_equal(f.ovmf, 0);
    assert_non_null(strstr(f.tdx_why, "no OVMF GUIDed table"));
    free(img);
    parse(NULL, 0, &f);
    assert_int_equal(f.ovmf, 0);
    uint8_t tiny[10] = {0};
    parse(tiny, sizeof tiny, &f);
    assert_int_equal(f.ovmf, 0);
}

/* Every length and offset in the file is untrusted. */
static void test_corrupt_images(void **state)
{
    (void)state;
    spec sp = {.tdx = 1, .sev = 1, .sev_types = {2, 3}, .nsev = 2};
    tb_vm_fw f;
    uint8_t *img = image(&sp);
    uint8_t *m = img + SIZE - TDVF_AT;

    /* the table's length larger than what precedes it */
    uint8_t *img2 = image(&sp);
    tb_wr_le16(img2 + SIZE - 50, 0xffff); /* more than the 64 KiB file holds before it */
    parse(img2, SIZE, &f);
    assert_int_equal(f.ovmf, 0);
    tb_wr_le16(img2 + SIZE - 50, 0x8000); /* fits, but reaches over zeros: entries still found */
    parse(img2, SIZE, &f);
    assert_int_equal(f.ovmf, 1);
    assert_int_equal(f.tdx, 1);
    parse(img2 + SIZE - 0x100, 0x100, &f); /* the last 256 bytes cannot hold 0x8000 */
    assert_int_equal(f.ovmf, 0);
    free(img2);

    /* a zero-length entry: the walk stops instead of spinning */
    img2 = image(&sp);
    tb_wr_le16(img2 + SIZE - 50 - 18, 0);
    parse(img2, SIZE, &f);
    assert_int_equal(f.tdx, 0);
    assert_int_equal(f.sev, 0);
    free(img2);

    /* the TDVF offset pointing beyond the start of the file */
    img2 = image(&sp);
    size_t tdx_entry = SIZE - 50 - 44; /* below the SEV entry: 22 bytes each */
    tb_wr_le32(img2 + tdx_entry, SIZE + 1);
    parse(img2, SIZE, &f);
    assert_int_equal(f.tdx, 0);
    assert_non_null(strstr(f.tdx_why, "outside the file"));
    tb_wr_le32(img2 + tdx_entry, 4); /* 4 bytes before the end: no room for the header */
    parse(img2, SIZE, &f);
    assert_int_equal(f.tdx, 0);
    free(img2);

    /* wrong signature, version, section count, lengths, section types */
    memcpy(m, "TDVX", 4);
    parse(img, SIZE, &f);
    assert_non_null(strstr(f.tdx_why, "no TDVF signature"));
    memcpy(m, "TDVF", 4);
    tb_wr_le32(m + 8, 2);
    parse(img, SIZE, &f);
    assert_non_null(strstr(f.tdx_why, "version 2"));
    tb_wr_le32(m + 8, 1);
    tb_wr_le32(m + 12, 1);
    parse(img, SIZE, &f);
    assert_int_equal(f.tdx, 0);
    tb_wr_le32(m + 12, 0x10000000); /* a count whose sections would wrap 32 bits */
    parse(img, SIZE, &f);
    assert_int_equal(f.tdx, 0);
    tb_wr_le32(m + 12, 2);
    tb_wr_le32(m + 16 + 24, 9); /* BFV -> unknown type */
    parse(img, SIZE, &f);
    assert_non_null(strstr(f.tdx_why, "unknown type"));
    tb_wr_le32(m + 16 + 24, 0);
    tb_wr_le64(m + 16 + 8, 0xfff00010); /* not page aligned */
    parse(img, SIZE, &f);
    assert_non_null(strstr(f.tdx_why, "not page aligned"));
    tb_wr_le64(m + 16 + 8, 0xfff00000);
    tb_wr_le32(m + 16, SIZE - 0x100); /* the BFV's data runs out of the file */
    parse(img, SIZE, &f);
    assert_non_null(strstr(f.tdx_why, "not in the file"));
    tb_wr_le32(m + 16, 0);
    tb_wr_le32(m + 48 + 4, 0x1000); /* a TD_HOB with data */
    parse(img, SIZE, &f);
    assert_non_null(strstr(f.tdx_why, "memory section with data"));
    tb_wr_le32(m + 48 + 4, 0);
    parse(img, SIZE, &f);
    assert_int_equal(f.tdx, 1); /* restored */

    /* ASEV with a descriptor count its length cannot hold */
    uint8_t *a = img + SIZE - ASEV_AT;
    tb_wr_le32(a + 12, 0xffffffffu);
    parse(img, SIZE, &f);
    assert_int_equal(f.sev, 0);
    assert_non_null(strstr(f.snp_why, "does not hold"));
    tb_wr_le32(a + 12, 2);
    tb_wr_le32(a + 4, ASEV_AT + 1); /* runs past the end of the file */
    parse(img, SIZE, &f);
    assert_int_equal(f.sev, 0);
    free(img);
}

static void test_real_ovmf(void **state)
{
    (void)state;
    const char *path = "/usr/share/ovmf/OVMF.fd";
    if (access(path, R_OK) != 0) {
        printf("skipped: %s not installed (Debian's ovmf; scripts/setup.sh --test)\n", path);
        return;
    }
    tb_vm_fw f;
    tb_vm_fw_read(path, &f);
    assert_int_equal(f.present, 1);
    assert_int_equal(f.ovmf, 1);
    /* Debian 12's 2022.11 build carries both (checked against the file by hand: TDVF
       with 6 sections, ASEV with 5 descriptors) */
    assert_int_equal(f.tdx, 1);
    assert_int_equal(f.snp, 1);
    assert_int_equal(strlen(f.sha256), 64);
    char sum[65];
    tb_err e;
    assert_int_equal(tb_vm_file_sha256(path, sum, &e), 0);
    assert_string_equal(sum, f.sha256);
}

static void test_read_json_hash(void **state)
{
    (void)state;
    tb_vm_fw f, back;
    tb_vm_fw_read("/nonexistent/OVMF.fd", &f);
    assert_int_equal(f.present, 0);
    assert_non_null(strstr(f.why, "No such file"));
    tb_err e;
    json_t *j = tb_vm_fw_json(&f);
    assert_int_equal(tb_vm_fw_from_json(j, &back, &e), 0);
    assert_int_equal(back.present, 0);
    assert_string_equal(back.why, f.why);
    json_decref(j);

    char dir[] = "/tmp/tb-test-fw.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/OVMF.fd", dir);
    spec sp = {.tdx = 1, .sev = 1, .sev_types = {2, 3}, .nsev = 2};
    uint8_t *img = image(&sp);
    assert_int_equal(tb_file_write_atomic(path, img, SIZE, &e), 0);
    free(img);
    tb_vm_fw_read(path, &f);
    assert_int_equal(f.present, 1);
    assert_true(f.size == SIZE);
    assert_int_equal(f.tdx, 1);
    assert_int_equal(f.snp, 1);
    j = tb_vm_fw_json(&f);
    assert_int_equal(tb_vm_fw_from_json(j, &back, &e), 0);
    assert_int_equal(memcmp(&f, &back, sizeof f), 0);
    /* strict: a wrong type is an error */
    json_object_set_new(json_object_get(j, "tdx"), "ok", json_string("yes"));
    assert_int_equal(tb_vm_fw_from_json(j, &back, &e), -1);
    assert_non_null(strstr(e.msg, "\"ok\""));
    json_decref(j);
    assert_int_equal(tb_vm_fw_from_json(NULL, &back, &e), -1);

    /* the file hash: SHA-256 of "abc" */
    assert_int_equal(tb_file_write_atomic(path, "abc", 3, &e), 0);
    char sum[65];
    assert_int_equal(tb_vm_file_sha256(path, sum, &e), 0);
    assert_string_equal(sum, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    unlink(path);
    rmdir(dir);
    assert_int_equal(tb_vm_file_sha256(path, sum, &e), -1);
    assert_non_null(strstr(e.msg, "OVMF.fd"));
    /* the places name both distributions' directories */
    int debian = 0, rhel = 0;
    for (int i = 0; tb_vm_fw_places[i].path; i++) {
        debian |= !strncmp(tb_vm_fw_places[i].path, "/usr/share/ovmf/", 16);
        rhel |= !strncmp(tb_vm_fw_places[i].path, "/usr/share/edk2/ovmf/", 21);
    }
    assert_true(debian && rhel);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tdvf_and_snp),
        cmocka_unit_test(test_corrupt_images),
        cmocka_unit_test(test_real_ovmf),
        cmocka_unit_test(test_read_json_hash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
