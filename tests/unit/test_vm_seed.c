/* Unit tests for src/vm/seed: the ISO 9660 image read back field by field with a
 * small reader written here from ECMA-119 (volume descriptors, path tables, the
 * root directories of both trees, SUSP/Rock Ridge entries, file extents), the
 * names Linux shows (Rock Ridge NM, Joliet UCS-2), bad input, and the cloud-init
 * documents (user-data for root and for another user, meta-data's instance-id). */
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
#include "vm/seed.h"

#define SECTOR 2048u

static uint32_t both32(const uint8_t *p) /* asserts that both halves agree */
{
    assert_int_equal(tb_rd_le32(p), tb_rd_be32(p + 4));
    return tb_rd_le32(p);
}
static uint32_t both16(const uint8_t *p)
{
    uint32_t le = (uint32_t)p[0] | (uint32_t)p[1] << 8, be = (uint32_t)p[3] | (uint32_t)p[2] << 8;
    assert_int_equal(le, be);
    return le;
}

/* One directory record as read. */
typedef struct rd {
    uint32_t extent, len;
    int dir;
    char id[80];      /* as bytes (UCS-2 turned to ASCII for Joliet) */
    char nm[80];      /* the Rock Ridge NM name, "" when none */
    uint32_t px_mode; /* 0 when no PX */
    int has_sp, has_ce;
    uint32_t ce_extent, ce_len;
} rd;

/* Reads the records of the directory at sector s (one sector); returns how many. */
static int read_dir(const tb_buf *img, uint32_t s, int joliet, rd *out, int max)
{
    const uint8_t *d = img->p + (size_t)s * SECTOR;
    int n = 0;
    for (size_t off = 0; off < SECTOR && d[off] && n < max; off += d[off]) {
        const uint8_t *r = d + off;
        size_t len = r[0];
        assert_true(len >= 34);
        assert_int_equal(len % 2, 0); /* 9.1.12 and SUSP: even lengths */
        assert_true(off + len <= SECTOR);
        rd *x = &out[n++];
        memset(x, 0, sizeof *x);
        x->extent = both32(r + 2);
        x->len = both32(r + 10);
        x->dir = (r[25] & 2) != 0;
        assert_int_equal(both16(r + 28), 1);
        size_t idlen = r[32];
        if (joliet && idlen > 1) {
            assert_int_equal(idlen % 2, 0);
            for (size_t i = 0; i < idlen / 2; i++) {
                assert_int_equal(r[33 + 2 * i], 0);
                x->id[i] = (char)r[34 + 2 * i];
            }
        } else {
            memcpy(x->id, r + 33, idlen);
        }
        size_t su = 33 + idlen + !(idlen & 1);
        while (su + 4 <= len) {
            const uint8_t *e = r + su;
            if (e[2] < 4)
                break;
            assert_true(su + e[2] <= len);
            if (!memcmp(e, "SP", 2)) {
                assert_int_equal(su, 34); /* the first entry of the root's "." */
                assert_int_equal(e[4], 0xbe);
                assert_int_equal(e[5], 0xef);
                x->has_sp = 1;
            } else if (!memcmp(e, "PX", 2)) {
                assert_int_equal(e[2], 36);
                x->px_mode = both32(e + 4);
            } else if (!memcmp(e, "NM", 2)) {
                assert_int_equal(e[4], 0);
                memcpy(x->nm, e + 5, e[2] - 5u);
            } else if (!memcmp(e, "CE", 2)) {
                x->has_ce = 1;
                x->ce_extent = both32(e + 4);
                assert_int_equal(both32(e + 12), 0);
                x->ce_len = both32(e + 20);
            }
            su += e[2];
        }
    }
    return n;
}

static void make(tb_buf *img, const tb_vm_seed_file *f, int n)
{
    tb_err e;
    memset(img, 0, sizeof *img);
    assert_int_equal(tb_vm_seed_iso("cidata", f, n, 1700000000, img, &e), 0);
}

static void test_descriptors(void **state)
{
    (void)state;
    tb_vm_seed_file f[] = {{"user-data", "#cloud-config\n", 14}, {"meta-data", "a: b\n", 5}};
    tb_buf img;
    make(&img, f, 2);
    assert_int_equal(img.len % SECTOR, 0);
    uint32_t sectors = (uint32_t)(img.len / SECTOR);
    assert_int_equal(sectors, 28); /* 26 fixed + one sector per file */
    for (size_t i = 0; i < 16 * SECTOR; i++)
        assert_int_equal(img.p[i], 0); /* system area */
    const uint8_t *pvd = img.p + 16 * SECTOR, *svd = img.p + 17 * SECTOR,
                  *term = img.p + 18 * SECTOR;
    assert_int_equal(pvd[0], 1);
    assert_memory_equal(pvd + 1, "CD001", 5);
    assert_int_equal(pvd[6], 1);
    assert_memory_equal(pvd + 40, "cidata                          ", 32);
    assert_int_equal(both32(pvd + 80), sectors);
    assert_int_equal(both16(pvd + 120), 1);
    assert_int_equal(both16(pvd + 124), 1);
    assert_int_equal(both16(pvd + 128), SECTOR);
    assert_int_equal(both32(pvd + 132), 10);
    assert_int_equal(tb_rd_le32(pvd + 140), 19);
    assert_int_equal(tb_rd_be32(pvd + 148), 20);
    assert_int_equal(pvd[156], 34); /* the root's record */
    assert_int_equal(both32(pvd + 158), 23);
    assert_memory_equal(pvd + 813, "2023111422132000", 16); /* 1700000000 in UTC */
    assert_int_equal(pvd[881], 1);
    /* Joliet: level 3 escape, the label in UCS-2 */
    assert_int_equal(svd[0], 2);
    assert_memory_equal(svd + 88, "%/E", 3);
    static const uint8_t label[] = {0, 'c', 0, 'i', 0, 'd', 0, 'a', 0, 't', 0, 'a', 0, ' '};
    assert_memory_equal(svd + 40, label, sizeof label);
    assert_int_equal(both32(svd + 158), 24);
    assert_int_equal(term[0], 255);
    assert_memory_equal(term + 1, "CD001", 5);
    /* path tables: one entry, the root, in each byte order */
    assert_int_equal(img.p[19 * SECTOR], 1);
    assert_int_equal(tb_rd_le32(img.p + 19 * SECTOR + 2), 23);
    assert_int_equal(tb_rd_be32(img.p + 20 * SECTOR + 2), 23);
    assert_int_equal(tb_rd_le32(img.p + 21 * SECTOR + 2), 24);
    assert_int_equal(tb_rd_be32(img.p + 22 * SECTOR + 2), 24);
    tb_buf_clear(&img);
}

static void test_trees(void **state)
{
    (void)state;
    tb_vm_seed_file f[] = {{"user-data", "#cloud-config\nusers: []\n", 24},
                           {"meta-data", "instance-id: x\n", 15},
                           {"vendor-data", "", 0}};
    tb_buf img;
    make(&img, f, 3);
    rd p[8], j[8];
    int np = read_dir(&img, 23, 0, p, 8), nj = read_dir(&img, 24, 1, j, 8);
    assert_int_equal(np, 5);
    assert_int_equal(nj, 5);
    /* "." of the primary root: SP first, PX, a CE to the ER entry */
    assert_true(p[0].dir && p[0].has_sp && p[0].has_ce);
    assert_int_equal(p[0].px_mode, 040555);
    assert_int_equal(p[0].extent, 23);
    assert_int_equal(p[0].ce_extent, 25);
    const uint8_t *er = img.p + 25 * SECTOR;
    assert_memory_equal(er, "ER", 2);
    assert_int_equal(er[2], p[0].ce_len);
    assert_int_equal(er[4], 10);
    assert_memory_equal(er + 8, "RRIP_1991A", 10);
    assert_true(p[1].dir && p[1].px_mode == 040555 && p[1].id[0] == 1);
    /* the files: level 1 names in 9.3's order, Rock Ridge names, 0444 */
    assert_string_equal(p[2].id, "META_DAT.;1");
    assert_string_equal(p[2].nm, "meta-data");
    assert_string_equal(p[3].id, "USER_DAT.;1");
    assert_string_equal(p[3].nm, "user-data");
    assert_string_equal(p[4].id, "VENDOR_D.;1");
    assert_string_equal(p[4].nm, "vendor-data");
    for (int i = 2; i < 5; i++) {
        assert_false(p[i].dir);
        assert_int_equal(p[i].px_mode, 0100444);
    }
    /* Joliet: the same files under their own names, the same extents */
    assert_string_equal(j[2].id, "meta-data");
    assert_string_equal(j[3].id, "user-data");
    assert_string_equal(j[4].id, "vendor-data");
    assert_int_equal(j[0].extent, 24);
    for (int i = 2; i < 5; i++) {
        assert_int_equal(j[i].extent, p[i].extent);
        assert_int_equal(j[i].len, p[i].len);
        assert_int_equal(j[i].nm[0], 0); /* no Rock Ridge on the Joliet tree */
    }
    /* contents where the records say, zero-padded to the sector */
    assert_int_equal(p[3].len, 24);
    assert_memory_equal(img.p + (size_t)p[3].extent * SECTOR, f[0].data, 24);
    assert_int_equal(img.p[(size_t)p[3].extent * SECTOR + 24], 0);
    assert_memory_equal(img.p + (size_t)p[2].extent * SECTOR, f[1].data, 15);
    assert_int_equal(p[4].len, 0);
    assert_int_equal(p[4].extent, 0);
    assert_true(p[2].extent >= 26 && p[3].extent >= 26 && p[2].extent != p[3].extent);
    tb_buf_clear(&img);
}

static void test_deterministic(void **state)
{
    (void)state;
    tb_vm_seed_file f[] = {{"a", "x", 1}};
    tb_buf a = {0}, b = {0}, c = {0};
    tb_err e;
    assert_int_equal(tb_vm_seed_iso("V", f, 1, 1, &a, &e), 0);
    assert_int_equal(tb_vm_seed_iso("V", f, 1, 1, &b, &e), 0);
    assert_int_equal(tb_vm_seed_iso("V", f, 1, 2, &c, &e), 0);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.p, b.p, a.len);
    assert_true(a.len == c.len && memcmp(a.p, c.p, a.len) != 0);
    /* appended, not replaced */
    tb_buf d = {0};
    tb_buf_puts(&d, "head");
    assert_int_equal(tb_vm_seed_iso("V", f, 1, 1, &d, &e), 0);
    assert_int_equal(d.len, 4 + a.len);
    assert_memory_equal(d.p + 4, a.p, a.len);
    tb_buf_clear(&a);
    tb_buf_clear(&b);
    tb_buf_clear(&c);
    tb_buf_clear(&d);
}

static void test_bad_input(void **state)
{
    (void)state;
    tb_buf img = {0};
    tb_err e;
    tb_vm_seed_file ok[] = {{"user-data", "x", 1}};
    assert_int_equal(tb_vm_seed_iso("", ok, 1, 0, &img, &e), -1);
    assert_int_equal(tb_vm_seed_iso("ci data", ok, 1, 0, &img, &e), -1);
    assert_int_equal(tb_vm_seed_iso("a23456789012345678901234567890123", ok, 1, 0, &img, &e), -1);
    assert_int_equal(tb_vm_seed_iso("cidata", ok, 0, 0, &img, &e), -1);
    tb_vm_seed_file bad[][1] = {{{"User-data", "x", 1}},
                                {{".hidden", "x", 1}},
                                {{"a/b", "x", 1}},
                                {{"", "x", 1}},
                                {{"x", NULL, 1}}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(tb_vm_seed_iso("cidata", bad[i], 1, 0, &img, &e), -1);
    /* two names with one level 1 identifier */
    tb_vm_seed_file dup[] = {{"user-data", "x", 1}, {"user-dat", "y", 1}};
    assert_int_equal(tb_vm_seed_iso("cidata", dup, 2, 0, &img, &e), -1);
    assert_non_null(strstr(e.msg, "USER_DAT.;1"));
    tb_vm_seed_file many[9];
    char names[9][4];
    for (int i = 0; i < 9; i++) {
        snprintf(names[i], sizeof names[i], "f%d", i);
        many[i] = (tb_vm_seed_file){names[i], "x", 1};
    }
    assert_int_equal(tb_vm_seed_iso("cidata", many, 9, 0, &img, &e), -1);
    assert_int_equal(tb_vm_seed_iso("cidata", many, 8, 0, &img, &e), 0); /* eight fit */
    img.len = 0;
    tb_vm_seed_file big[] = {{"big", "x", 65u << 20}};
    assert_int_equal(tb_vm_seed_iso("cidata", big, 1, 0, &img, &e), -1);
    assert_int_equal(img.len, 0);
    tb_buf_clear(&img);
}

static const char *KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIC it's teebench-vm-g1\n";

static void test_user_data(void **state)
{
    (void)state;
    tb_buf b = {0};
    tb_err e;
    tb_vm_seed_cfg c = {.user = "root", .pubkey = KEY, .hostname = "g1", .comment = "hello"};
    assert_int_equal(tb_vm_seed_user_data(&c, &b, &e), 0);
    assert_string_equal((const char *)b.p,
                        "#cloud-config\n"
                        "# hello\n"
                        "disable_root: false\n"
                        "ssh_authorized_keys:\n"
                        "  - 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIC it''s teebench-vm-g1'\n");
    b.len = 0;
    c.user = "tdx";
    c.comment = NULL;
    assert_int_equal(tb_vm_seed_user_data(&c, &b, &e), 0);
    assert_string_equal((const char *)b.p,
                        "#cloud-config\n"
                        "users:\n"
                        "  - name: 'tdx'\n"
                        "    lock_passwd: true\n"
                        "    sudo: 'ALL=(ALL) NOPASSWD:ALL'\n"
                        "    ssh_authorized_keys:\n"
                        "      - 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIC it''s teebench-vm-g1'\n");
    /* refused: not one line of a .pub file, a user cloud-init cannot create */
    const char *bad_keys[] = {"", "AAAA", "ssh-ed25519 AAAA\nssh-rsa BBBB", "ssh-ed25519 A\001",
                              NULL};
    for (int i = 0; i < 5; i++) {
        tb_vm_seed_cfg k = {.user = "root", .pubkey = bad_keys[i], .hostname = "g1"};
        b.len = 0;
        assert_int_equal(tb_vm_seed_user_data(&k, &b, &e), -1);
        assert_int_equal(b.len, 0);
    }
    const char *bad_users[] = {"", "-x", ".x", "a b", "a:b", "a@b", NULL};
    for (int i = 0; i < 7; i++) {
        tb_vm_seed_cfg k = {.user = bad_users[i], .pubkey = KEY, .hostname = "g1"};
        assert_int_equal(tb_vm_seed_user_data(&k, &b, &e), -1);
    }
    tb_vm_seed_cfg k = {.user = "root", .pubkey = KEY, .hostname = "g1", .comment = "a\nb"};
    assert_int_equal(tb_vm_seed_user_data(&k, &b, &e), -1);
    tb_buf_clear(&b);
}

/* regular-swiotlb from an image: a bootcmd that sets the parameter in whichever boot
   loader the guest has and reboots once; the script is valid shell (sh -n). */
static void test_user_data_kernel_param(void **state)
{
    (void)state;
    tb_buf b = {0};
    tb_err e;
    tb_vm_seed_cfg c = {
        .user = "root", .pubkey = KEY, .hostname = "g1", .kernel_param = "swiotlb=32768,force"};
    assert_int_equal(tb_vm_seed_user_data(&c, &b, &e), 0);
    const char *ud = (const char *)b.p;
    assert_non_null(strstr(ud, "\nbootcmd:\n  - |\n    P='swiotlb=32768,force'\n"));
    assert_non_null(strstr(ud, "    S=" TB_VM_SEED_PARAM_STATUS "\n"));
    assert_non_null(strstr(ud, "grubby --update-kernel=ALL --args=\"$P\""));
    assert_non_null(strstr(ud, ">/etc/default/grub.d/99-teebench.cfg"));
    assert_non_null(strstr(ud, "update-grub && how=update-grub"));
    assert_non_null(strstr(ud, "loader/entries/*.conf && how=systemd-boot"));
    assert_non_null(strstr(ud, "[ -e \"$S.rebooted.$P\" ]")); /* never a second reboot */
    assert_non_null(strstr(ud, "systemctl reboot || reboot"));
    /* the keys stay before it, the document ends with it */
    assert_true(strstr(ud, "ssh_authorized_keys") < strstr(ud, "bootcmd"));
    char path[] = "/tmp/tb-seed-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    for (const char *l = strstr(ud, "    P="); l && *l;) { /* the block, unindented */
        const char *nl = strchr(l, '\n');
        size_t n = nl ? (size_t)(nl - l) + 1 : strlen(l);
        assert_true(n >= 4 && !memcmp(l, "    ", 4));
        assert_int_equal(write(fd, l + 4, n - 4), (ssize_t)(n - 4));
        l += n;
    }
    close(fd);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "sh -n %s", path);
    assert_int_equal(system(cmd), 0);
    unlink(path);
    /* the same seed without the parameter has no bootcmd */
    b.len = 0;
    c.kernel_param = NULL;
    assert_int_equal(tb_vm_seed_user_data(&c, &b, &e), 0);
    assert_null(strstr((const char *)b.p, "bootcmd"));
    /* a parameter that would need quoting is refused */
    const char *bad[] = {"", "a b", "x'y", "a;reboot", "$(id)", "a\nb"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        c.kernel_param = bad[i];
        b.len = 0;
        assert_int_equal(tb_vm_seed_user_data(&c, &b, &e), -1);
        assert_non_null(strstr(e.msg, "not a kernel parameter"));
        assert_int_equal(b.len, 0);
    }
    tb_buf_clear(&b);
}

static void test_meta_data(void **state)
{
    (void)state;
    tb_vm_seed_cfg c = {.user = "root", .pubkey = KEY, .hostname = "g1"};
    tb_buf u1 = {0}, u2 = {0}, m1 = {0}, m2 = {0};
    tb_err e;
    assert_int_equal(tb_vm_seed_user_data(&c, &u1, &e), 0);
    assert_int_equal(tb_vm_seed_meta_data(&c, &u1, &m1, &e), 0);
    char hex[17];
    assert_int_equal(sscanf((const char *)m1.p, "instance-id: teebench-g1-%16[0-9a-f]\n", hex), 1);
    assert_non_null(strstr((const char *)m1.p, "\nlocal-hostname: g1\n"));
    /* another key: another instance, so cloud-init applies the new seed */
    c.pubkey = "ssh-ed25519 AAAAother\n";
    assert_int_equal(tb_vm_seed_user_data(&c, &u2, &e), 0);
    assert_int_equal(tb_vm_seed_meta_data(&c, &u2, &m2, &e), 0);
    assert_string_not_equal((const char *)m1.p, (const char *)m2.p);
    const char *bad[] = {"", "-a", "a-", "a_b", "a.b", NULL};
    for (int i = 0; i < 6; i++) {
        c.hostname = bad[i];
        assert_int_equal(tb_vm_seed_meta_data(&c, &u1, &m2, &e), -1);
    }
    tb_buf_clear(&u1);
    tb_buf_clear(&u2);
    tb_buf_clear(&m1);
    tb_buf_clear(&m2);
}

static void test_image_and_hostname(void **state)
{
    (void)state;
    tb_vm_seed_cfg c = {.user = "root", .pubkey = KEY, .hostname = "g1"};
    tb_buf img = {0};
    tb_err e;
    assert_int_equal(tb_vm_seed_image(&c, 0, &img, &e), 0);
    rd p[8];
    assert_int_equal(read_dir(&img, 23, 0, p, 8), 4);
    assert_string_equal(p[2].nm, "meta-data");
    assert_string_equal(p[3].nm, "user-data");
    assert_memory_equal(img.p + (size_t)p[3].extent * SECTOR, "#cloud-config\n", 14);
    assert_memory_equal(img.p + 16 * SECTOR + 40, TB_VM_SEED_LABEL, strlen(TB_VM_SEED_LABEL));
    tb_buf_clear(&img);
    c.pubkey = "nope";
    assert_int_equal(tb_vm_seed_image(&c, 0, &img, &e), -1);
    assert_int_equal(img.len, 0);
    tb_buf_clear(&img);
    char h[64];
    tb_vm_seed_hostname("vm-regular-tcg", h, sizeof h);
    assert_string_equal(h, "vm-regular-tcg");
    tb_vm_seed_hostname("my_vm.1", h, sizeof h);
    assert_string_equal(h, "my-vm-1");
    tb_vm_seed_hostname("_.-", h, sizeof h);
    assert_string_equal(h, "vm");
    tb_vm_seed_hostname("__a__b__", h, sizeof h);
    assert_string_equal(h, "a-b");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_descriptors),
        cmocka_unit_test(test_trees),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_user_data),
        cmocka_unit_test(test_meta_data),
        cmocka_unit_test(test_user_data_kernel_param),
        cmocka_unit_test(test_image_and_hostname),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
