/* vm/seed: see seed.h. The ISO 9660 writer lays out a fixed set of sectors:
 *
 *   0-15  system area (zeros)        19-20 primary path tables (L, M)
 *   16    primary volume descriptor  21-22 Joliet path tables (L, M)
 *   17    Joliet supplementary one   23    primary root directory
 *   18    descriptor set terminator  24    Joliet root directory
 *                                    25    Rock Ridge continuation area (ER)
 *   26... the files, each from a sector boundary, zero-padded to whole sectors
 *
 * Invariants: every multi-byte number is written in the byte order(s) ECMA-119
 * gives its field (7.2.3 both-endian 16-bit, 7.3.3 both-endian 32-bit, 7.3.1/7.3.2
 * for the path tables); a directory is one sector and no record crosses a sector
 * (checked: at most TB_VM_SEED_MAX_FILES short names); every directory record has
 * an even length (9.1.12, SUSP 5.3); the output is a function of the inputs alone
 * (mtime is a parameter), so tests compare bytes. */
#include "vm/seed.h"

#include <ctype.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/bytes.h"

#define SECTOR 2048u
#define S_PVD 16u
#define S_SVD 17u
#define S_TERM 18u
#define S_LPATH_P 19u
#define S_MPATH_P 20u
#define S_LPATH_J 21u
#define S_MPATH_J 22u
#define S_ROOT_P 23u
#define S_ROOT_J 24u
#define S_CE 25u
#define S_FILES 26u
#define IMAGE_MAX (64u << 20) /* a seed is a few KiB; anything near this is a mistake */

/* RRIP 1.09 (section 4.3): the extension reference of Rock Ridge. */
#define RR_ID "RRIP_1991A"
#define RR_DES                                                                                     \
    "THE ROCK RIDGE INTERCHANGE PROTOCOL PROVIDES SUPPORT FOR POSIX FILE SYSTEM SEMANTICS"
#define RR_SRC                                                                                     \
    "PLEASE CONTACT DISC PUBLISHER FOR SPECIFICATION SOURCE.  SEE PUBLISHER IDENTIFIER IN "        \
    "PRIMARY VOLUME DESCRIPTOR FOR CONTACT INFORMATION."

/* ---------- numbers in ECMA-119's byte orders ---------- */

static void both16(uint8_t *p, uint32_t v) /* 7.2.3 */
{
    tb_wr_le16(p, v);
    tb_wr_be16(p + 2, v);
}
static void both32(uint8_t *p, uint32_t v) /* 7.3.3 */
{
    tb_wr_le32(p, v);
    tb_wr_be32(p + 4, v);
}

/* ---------- names ---------- */

static int name_ok(const char *n)
{
    size_t len = strlen(n);
    if (len == 0 || len > 30 || n[0] == '.')
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!(islower((unsigned char)n[i]) || isdigit((unsigned char)n[i]) || strchr("._-", n[i])))
            return 0;
    return 1;
}

/* The level 1 identifier of a name: "USER_DAT.;1" (8.3 of d-characters). out: 16 bytes. */
static void iso_name(const char *n, char *out)
{
    const char *dot = strrchr(n, '.');
    size_t base = dot ? (size_t)(dot - n) : strlen(n);
    const char *ext = dot ? dot + 1 : "";
    size_t k = 0;
    for (size_t i = 0; i < base && i < 8; i++)
        out[k++] = isalnum((unsigned char)n[i]) ? (char)toupper((unsigned char)n[i]) : '_';
    out[k++] = '.';
    for (size_t i = 0; ext[i] && i < 3; i++)
        out[k++] = isalnum((unsigned char)ext[i]) ? (char)toupper((unsigned char)ext[i]) : '_';
    memcpy(out + k, ";1", 3);
}

/* 9.3: identifiers ordered by name, then extension, each padded with spaces. */
static int iso_name_cmp(const char *a, const char *b)
{
    size_t an = strcspn(a, "."), bn = strcspn(b, ".");
    for (size_t i = 0; i < an || i < bn; i++) {
        int ca = i < an ? (unsigned char)a[i] : ' ', cb = i < bn ? (unsigned char)b[i] : ' ';
        if (ca != cb)
            return ca - cb;
    }
    return strcmp(a + an, b + bn);
}

/* "user-data" in UCS-2 big-endian, without a version (as genisoimage -joliet writes
   it). out: 2 * strlen bytes; returns that. */
static size_t ucs2_name(const char *n, uint8_t *out)
{
    size_t k = 0;
    for (const char *p = n; *p; p++)
        out[k++] = 0, out[k++] = (uint8_t)*p;
    return k;
}

/* ---------- dates ---------- */

/* 9.1.5: years since 1900, month, day, hour, minute, second, GMT offset (0). */
static void date7(int64_t t, uint8_t *p)
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    p[0] = (uint8_t)tm.tm_year;
    p[1] = (uint8_t)(tm.tm_mon + 1);
    p[2] = (uint8_t)tm.tm_mday;
    p[3] = (uint8_t)tm.tm_hour;
    p[4] = (uint8_t)tm.tm_min;
    p[5] = (uint8_t)tm.tm_sec;
    p[6] = 0;
}

/* 8.4.26.1: "YYYYMMDDHHMMSScc" digits and a GMT offset byte. */
static void date17(int64_t t, uint8_t *p)
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    int v[6] = {(tm.tm_year + 1900) / 100,
                (tm.tm_year + 1900) % 100,
                tm.tm_mon + 1,
                tm.tm_mday,
                tm.tm_hour,
                tm.tm_min};
    for (int i = 0; i < 6; i++) {
        int x = v[i] < 0 ? 0 : v[i] % 100;
        p[2 * i] = (uint8_t)('0' + x / 10);
        p[2 * i + 1] = (uint8_t)('0' + x % 10);
    }
    p[12] = (uint8_t)('0' + tm.tm_sec / 10 % 10);
    p[13] = (uint8_t)('0' + tm.tm_sec % 10);
    p[14] = p[15] = '0'; /* hundredths */
    p[16] = 0;
}

/* ---------- directory records and SUSP entries ---------- */

typedef struct rec {
    uint8_t b[256];
    size_t n;
} rec;

static void su_px(rec *su, uint32_t mode, uint32_t nlink) /* RRIP 4.1.1 (1.09: 36 bytes) */
{
    uint8_t *p = su->b + su->n;
    p[0] = 'P', p[1] = 'X', p[2] = 36, p[3] = 1;
    both32(p + 4, mode);
    both32(p + 12, nlink);
    both32(p + 20, 0); /* uid root */
    both32(p + 28, 0); /* gid root */
    su->n += 36;
}

static void su_nm(rec *su, const char *name) /* RRIP 4.1.4 */
{
    size_t len = strlen(name);
    uint8_t *p = su->b + su->n;
    p[0] = 'N', p[1] = 'M', p[2] = (uint8_t)(5 + len), p[3] = 1, p[4] = 0;
    memcpy(p + 5, name, len);
    su->n += 5 + len;
}

/* One directory record (9.1) with system use entries su; returns its length. */
static size_t dir_rec(uint8_t *out, uint32_t extent, uint32_t len, int is_dir, const uint8_t *id,
                      size_t idlen, const rec *su, const uint8_t date[7])
{
    size_t n = 33 + idlen + !(idlen & 1); /* padding byte after an even-length identifier */
    size_t sun = su ? su->n : 0;
    size_t total = n + sun + ((n + sun) & 1);
    memset(out, 0, total);
    out[0] = (uint8_t)total;
    both32(out + 2, extent);
    both32(out + 10, len);
    memcpy(out + 18, date, 7);
    out[25] = is_dir ? 2 : 0;
    both16(out + 28, 1); /* volume sequence number */
    out[32] = (uint8_t)idlen;
    memcpy(out + 33, id, idlen);
    if (sun)
        memcpy(out + n, su->b, sun);
    return total;
}

/* ---------- descriptors ---------- */

static void pad_field(uint8_t *p, size_t len, const char *text, int ucs2)
{
    size_t k = 0;
    for (const char *c = text; *c && k + (ucs2 ? 2 : 1) <= len; c++) {
        if (ucs2)
            p[k++] = 0;
        p[k++] = (uint8_t)*c;
    }
    while (k < len) {
        if (ucs2 && k + 1 < len)
            p[k++] = 0;
        p[k++] = ' ';
    }
}

static void descriptor(uint8_t *p, int joliet, const char *volume, uint32_t sectors, uint32_t lpath,
                       uint32_t mpath, uint32_t root, int64_t mtime, const uint8_t date[7])
{
    p[0] = joliet ? 2 : 1;
    memcpy(p + 1, "CD001", 5);
    p[6] = 1;
    pad_field(p + 8, 32, "LINUX", joliet);
    pad_field(p + 40, 32, volume, joliet);
    both32(p + 80, sectors);
    if (joliet)
        memcpy(p + 88, "%/E", 3); /* Joliet level 3 (UCS-2) */
    both16(p + 120, 1);           /* volume set size */
    both16(p + 124, 1);           /* volume sequence number */
    both16(p + 128, SECTOR);      /* logical block size */
    both32(p + 132, 10);          /* path table size: the root's entry */
    tb_wr_le32(p + 140, lpath);
    tb_wr_be32(p + 148, mpath);
    static const uint8_t root_id = 0;
    dir_rec(p + 156, root, SECTOR, 1, &root_id, 1, NULL, date);
    pad_field(p + 190, 128, "", joliet); /* volume set */
    pad_field(p + 318, 128, "", joliet); /* publisher */
    pad_field(p + 446, 128, "", joliet); /* data preparer */
    pad_field(p + 574, 128, "TEEBENCH CLOUD-INIT SEED", joliet);
    pad_field(p + 702, 37, "", joliet); /* copyright file */
    pad_field(p + 739, 37, "", joliet); /* abstract file */
    pad_field(p + 776, 37, "", joliet); /* bibliographic file */
    date17(mtime, p + 813);             /* creation */
    date17(mtime, p + 830);             /* modification */
    memset(p + 847, '0', 16);           /* expiration: none */
    memset(p + 864, '0', 16);           /* effective: now */
    p[881] = 1;                         /* file structure version */
}

static void path_table(uint8_t *lp, uint8_t *mp, uint32_t root)
{
    lp[0] = mp[0] = 1; /* identifier length */
    tb_wr_le32(lp + 2, root);
    tb_wr_be32(mp + 2, root);
    tb_wr_le16(lp + 6, 1); /* parent: the root itself */
    tb_wr_be16(mp + 6, 1);
}

/* ---------- the image ---------- */

typedef struct entry {
    const tb_vm_seed_file *f;
    char iso[16];
    uint32_t extent;
} entry;

static int cmp_iso(const void *a, const void *b)
{
    return iso_name_cmp(((const entry *)a)->iso, ((const entry *)b)->iso);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp((*(const entry *const *)a)->f->name, (*(const entry *const *)b)->f->name);
}

static int check_inputs(const char *volume, const tb_vm_seed_file *files, int n, entry *e,
                        tb_err *err)
{
    size_t vl = volume ? strlen(volume) : 0;
    if (vl == 0 || vl > 32 ||
        strspn(volume, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                       "0123456789_-") != vl)
        return tb_errf(err, "volume identifier '%s': 1..32 of A-Z a-z 0-9 _ -",
                       volume ? volume : "");
    if (n < 1 || n > TB_VM_SEED_MAX_FILES)
        return tb_errf(err, "%d files: a seed image holds 1..%d", n, TB_VM_SEED_MAX_FILES);
    uint64_t total = S_FILES;
    for (int i = 0; i < n; i++) {
        if (!files[i].name || !name_ok(files[i].name))
            return tb_errf(err, "file name '%s': 1..30 of a-z 0-9 . _ -, not starting with '.'",
                           files[i].name ? files[i].name : "");
        if (files[i].len && !files[i].data)
            return tb_errf(err, "file %s: no data", files[i].name);
        e[i].f = &files[i];
        iso_name(files[i].name, e[i].iso);
        for (int j = 0; j < i; j++)
            if (!strcmp(e[i].iso, e[j].iso))
                return tb_errf(err, "files %s and %s have the same ISO 9660 name %s", files[j].name,
                               files[i].name, e[i].iso);
        total += (files[i].len + SECTOR - 1) / SECTOR;
        if (total * SECTOR > IMAGE_MAX)
            return tb_errf(err, "the files are larger than a seed image may be (%u MiB)",
                           IMAGE_MAX >> 20);
    }
    return 0;
}

/* The primary root directory: ".", "..", the files; Rock Ridge on every record. */
static void root_primary(uint8_t *d, const entry *e, int n, const uint8_t date[7])
{
    static const uint8_t dot = 0, dotdot = 1;
    const uint32_t er_len = 8 + sizeof RR_ID - 1 + sizeof RR_DES - 1 + sizeof RR_SRC - 1;
    rec su = {.n = 0};
    uint8_t *p = su.b;
    p[0] = 'S', p[1] = 'P', p[2] = 7, p[3] = 1, p[4] = 0xbe, p[5] = 0xef, p[6] = 0; /* SUSP 5.3 */
    su.n = 7;
    su_px(&su, 040555, 2);
    p = su.b + su.n; /* CE (SUSP 5.1): the ER entry lives in the continuation area */
    p[0] = 'C', p[1] = 'E', p[2] = 28, p[3] = 1;
    both32(p + 4, S_CE);
    both32(p + 12, 0);
    both32(p + 20, er_len);
    su.n += 28;
    size_t off = dir_rec(d, S_ROOT_P, SECTOR, 1, &dot, 1, &su, date);
    su.n = 0;
    su_px(&su, 040555, 2);
    off += dir_rec(d + off, S_ROOT_P, SECTOR, 1, &dotdot, 1, &su, date);
    for (int i = 0; i < n; i++) {
        su.n = 0;
        su_px(&su, 0100444, 1);
        su_nm(&su, e[i].f->name);
        off += dir_rec(d + off, e[i].extent, (uint32_t)e[i].f->len, 0, (const uint8_t *)e[i].iso,
                       strlen(e[i].iso), &su, date);
    }
}

static void er_area(uint8_t *p)
{
    p[0] = 'E', p[1] = 'R';
    p[2] = (uint8_t)(8 + sizeof RR_ID - 1 + sizeof RR_DES - 1 + sizeof RR_SRC - 1);
    p[3] = 1;
    p[4] = sizeof RR_ID - 1, p[5] = sizeof RR_DES - 1, p[6] = sizeof RR_SRC - 1;
    p[7] = 1; /* extension version */
    memcpy(p + 8, RR_ID, sizeof RR_ID - 1);
    memcpy(p + 8 + sizeof RR_ID - 1, RR_DES, sizeof RR_DES - 1);
    memcpy(p + 8 + sizeof RR_ID - 1 + sizeof RR_DES - 1, RR_SRC, sizeof RR_SRC - 1);
}

/* The Joliet root directory: UCS-2 names, in the order of those names. */
static void root_joliet(uint8_t *d, const entry *e, int n, const uint8_t date[7])
{
    static const uint8_t dot = 0, dotdot = 1;
    const entry *order[TB_VM_SEED_MAX_FILES];
    for (int i = 0; i < n; i++)
        order[i] = &e[i];
    qsort(order, (size_t)n, sizeof order[0], cmp_name);
    size_t off = dir_rec(d, S_ROOT_J, SECTOR, 1, &dot, 1, NULL, date);
    off += dir_rec(d + off, S_ROOT_J, SECTOR, 1, &dotdot, 1, NULL, date);
    for (int i = 0; i < n; i++) {
        uint8_t id[2 * 34];
        size_t idlen = ucs2_name(order[i]->f->name, id);
        off += dir_rec(d + off, order[i]->extent, (uint32_t)order[i]->f->len, 0, id, idlen, NULL,
                       date);
    }
}

int tb_vm_seed_iso(const char *volume, const tb_vm_seed_file *files, int n, int64_t mtime,
                   tb_buf *out, tb_err *err)
{
    entry e[TB_VM_SEED_MAX_FILES];
    if (check_inputs(volume, files, n, e, err) < 0)
        return -1;
    qsort(e, (size_t)n, sizeof e[0], cmp_iso);
    uint32_t next = S_FILES;
    for (int i = 0; i < n; i++) {
        e[i].extent = e[i].f->len ? next : 0; /* an empty file has no extent */
        next += (uint32_t)((e[i].f->len + SECTOR - 1) / SECTOR);
    }
    size_t size = (size_t)next * SECTOR, base = out->len;
    if (tb_buf_reserve(out, size) < 0)
        return tb_errf(err, "out of memory");
    uint8_t *img = out->p + base;
    memset(img, 0, size);
    uint8_t date[7];
    date7(mtime, date);
    descriptor(img + S_PVD * SECTOR, 0, volume, next, S_LPATH_P, S_MPATH_P, S_ROOT_P, mtime, date);
    descriptor(img + S_SVD * SECTOR, 1, volume, next, S_LPATH_J, S_MPATH_J, S_ROOT_J, mtime, date);
    uint8_t *t = img + S_TERM * SECTOR;
    t[0] = 255;
    memcpy(t + 1, "CD001", 5);
    t[6] = 1;
    path_table(img + S_LPATH_P * SECTOR, img + S_MPATH_P * SECTOR, S_ROOT_P);
    path_table(img + S_LPATH_J * SECTOR, img + S_MPATH_J * SECTOR, S_ROOT_J);
    root_primary(img + S_ROOT_P * SECTOR, e, n, date);
    root_joliet(img + S_ROOT_J * SECTOR, e, n, date);
    er_area(img + S_CE * SECTOR);
    for (int i = 0; i < n; i++)
        if (e[i].f->len)
            memcpy(img + (size_t)e[i].extent * SECTOR, e[i].f->data, e[i].f->len);
    out->len += size;
    out->p[out->len] = 0; /* tb_buf's invariant: reserved above */
    return 0;
}

/* ---------- the documents ---------- */

static int user_ok(const char *u)
{
    size_t n = u ? strlen(u) : 0;
    if (n == 0 || n > 32 || u[0] == '-' || u[0] == '.')
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)u[i]) && !strchr("._-", u[i]))
            return 0;
    return 1;
}

/* The key's one line (a trailing newline dropped) into line; 0 when it is one. */
static int key_line(const char *key, char *line, size_t len)
{
    size_t n = key ? strlen(key) : 0;
    while (n && (key[n - 1] == '\n' || key[n - 1] == '\r'))
        n--;
    if (n == 0 || n >= len)
        return -1;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)key[i] < 0x20 || (unsigned char)key[i] > 0x7e)
            return -1;
    if (strncmp(key, "ssh-", 4) && strncmp(key, "ecdsa-sha2-", 11) && strncmp(key, "sk-", 3))
        return -1;
    memcpy(line, key, n);
    line[n] = 0;
    return 0;
}

/* A YAML single-quoted scalar ('' for '). */
static int yaml_quote(tb_buf *b, const char *s)
{
    int rc = tb_buf_puts(b, "'");
    for (const char *p = s; *p && rc == 0; p++)
        rc = *p == '\'' ? tb_buf_puts(b, "''") : tb_buf_append(b, p, 1);
    return rc | tb_buf_puts(b, "'");
}

static int param_ok(const char *p)
{
    size_t n = strlen(p);
    if (n == 0 || n > 200)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)p[i]) && !strchr("_.,=-", p[i]))
            return 0;
    return 1;
}

/* The bootcmd of kernel_param p (checked by param_ok: no quoting needed): one shell
   script, a YAML block scalar (cloud-init runs bootcmd on every boot, early, as root). */
static int boot_param(tb_buf *out, const char *p)
{
    int rc = tb_buf_puts(out, "bootcmd:\n  - |\n");
    rc |= tb_buf_printf(out, "    P='%s'\n    S=" TB_VM_SEED_PARAM_STATUS "\n", p);
    static const char *const lines[] = {
        "# teebench: this guest must boot with $P (regular-swiotlb: forced bounce buffers)",
        "case \" $(cat /proc/cmdline) \" in *\" $P \"*)",
        "  echo \"ok: $P is on the kernel command line\" >$S; exit 0 ;;",
        "esac",
        "if [ -e \"$S.rebooted.$P\" ]; then",
        "  echo \"failed: rebooted once and /proc/cmdline still lacks $P: $(cat /proc/cmdline)\" "
        ">$S",
        "  exit 0",
        "fi",
        "how=",
        "if command -v grubby >/dev/null 2>&1; then",
        "  grubby --update-kernel=ALL --args=\"$P\" && how=grubby",
        "elif command -v update-grub >/dev/null 2>&1; then",
        "  mkdir -p /etc/default/grub.d &&",
        "  printf 'GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX %s\"\\n' \"$P\" "
        ">/etc/default/grub.d/99-teebench.cfg &&",
        "  update-grub && how=update-grub",
        "else",
        "  E=",
        "  for d in /boot/efi /efi /boot; do [ -d $d/loader/entries ] && E=$d; done",
        "  if [ -z \"$E\" ]; then",
        "    dev=$(blkid -L ESP 2>/dev/null || blkid -t TYPE=vfat -o device 2>/dev/null | head "
        "-n 1)",
        "    mkdir -p /run/teebench-esp",
        "    [ -n \"$dev\" ] && mount \"$dev\" /run/teebench-esp && E=/run/teebench-esp",
        "  fi",
        "  if [ -n \"$E\" ] && ls $E/loader/entries/*.conf >/dev/null 2>&1; then",
        "    sed -i \"s/^options .*/& $P/\" $E/loader/entries/*.conf && how=systemd-boot",
        "  fi",
        "fi",
        "if [ -z \"$how\" ]; then",
        "  echo \"failed: no boot loader to set $P in (grubby, update-grub, systemd-boot "
        "entries)\" >$S",
        "  exit 0",
        "fi",
        "echo \"rebooting: $P set through $how\" >$S",
        ": >\"$S.rebooted.$P\"",
        "sync",
        "systemctl reboot || reboot",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        rc |= tb_buf_printf(out, "    %s\n", lines[i]);
    return rc;
}

int tb_vm_seed_user_data(const tb_vm_seed_cfg *c, tb_buf *out, tb_err *err)
{
    if (c->kernel_param && !param_ok(c->kernel_param))
        return tb_errf(err,
                       "'%s': not a kernel parameter the seed sets (1..200 of A-Z a-z 0-9 "
                       "_ . , = -)",
                       c->kernel_param);
    char key[16384];
    if (!user_ok(c->user))
        return tb_errf(err,
                       "'%s': not a user name cloud-init can create (1..32 of A-Z a-z "
                       "0-9 . _ -, not starting with - or .)",
                       c->user ? c->user : "");
    if (key_line(c->pubkey, key, sizeof key) < 0)
        return tb_errf(err, "the public key is not one line of an OpenSSH .pub file "
                            "(ssh-ed25519 AAAA... comment)");
    if (c->comment && strpbrk(c->comment, "\r\n"))
        return tb_errf(err, "the seed's comment has a line break");
    size_t base = out->len;
    int rc = tb_buf_puts(out, "#cloud-config\n");
    if (c->comment)
        rc |= tb_buf_printf(out, "# %s\n", c->comment);
    if (!strcmp(c->user, "root")) {
        /* cloud-init installs these for root too when disable_root is false (for the
           image's default user as well, where it has one) */
        rc |= tb_buf_puts(out, "disable_root: false\nssh_authorized_keys:\n  - ");
        rc |= yaml_quote(out, key) | tb_buf_puts(out, "\n");
    } else {
        rc |= tb_buf_puts(out, "users:\n  - name: ");
        rc |= yaml_quote(out, c->user);
        rc |= tb_buf_puts(out, "\n    lock_passwd: true\n    sudo: 'ALL=(ALL) NOPASSWD:ALL'\n"
                               "    ssh_authorized_keys:\n      - ");
        rc |= yaml_quote(out, key) | tb_buf_puts(out, "\n");
    }
    if (c->kernel_param)
        rc |= boot_param(out, c->kernel_param);
    if (rc) {
        out->len = base;
        return tb_errf(err, "out of memory");
    }
    return 0;
}

static int hostname_ok(const char *h)
{
    size_t n = h ? strlen(h) : 0;
    if (n == 0 || n > 63 || h[0] == '-' || h[n - 1] == '-')
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)h[i]) && h[i] != '-')
            return 0;
    return 1;
}

int tb_vm_seed_meta_data(const tb_vm_seed_cfg *c, const tb_buf *user_data, tb_buf *out, tb_err *err)
{
    if (!hostname_ok(c->hostname))
        return tb_errf(err, "'%s': not a host name (1..63 of A-Z a-z 0-9 -, no - at either end)",
                       c->hostname ? c->hostname : "");
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned mdlen = 0;
    static const unsigned char none[1];
    if (!EVP_Digest(user_data->len ? user_data->p : none, user_data->len, md, &mdlen, EVP_sha256(),
                    NULL))
        return tb_errf(err, "sha256 failed");
    char hex[17];
    for (int i = 0; i < 8; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
    if (tb_buf_printf(out, "instance-id: teebench-%s-%s\nlocal-hostname: %s\n", c->hostname, hex,
                      c->hostname) < 0)
        return tb_errf(err, "out of memory");
    return 0;
}

int tb_vm_seed_image(const tb_vm_seed_cfg *c, int64_t mtime, tb_buf *out, tb_err *err)
{
    tb_buf ud = {0}, md = {0};
    int rc = tb_vm_seed_user_data(c, &ud, err);
    if (rc == 0)
        rc = tb_vm_seed_meta_data(c, &ud, &md, err);
    if (rc == 0) {
        tb_vm_seed_file f[2] = {{"meta-data", md.p, md.len}, {"user-data", ud.p, ud.len}};
        rc = tb_vm_seed_iso(TB_VM_SEED_LABEL, f, 2, mtime, out, err);
    }
    tb_buf_clear(&ud);
    tb_buf_clear(&md);
    return rc;
}

void tb_vm_seed_hostname(const char *vm_name, char *out, size_t len)
{
    size_t k = 0;
    if (len == 0)
        return;
    for (const char *p = vm_name; *p && k + 1 < len && k < 63; p++) {
        char ch = isalnum((unsigned char)*p) ? *p : '-';
        if (ch == '-' && (k == 0 || out[k - 1] == '-'))
            continue; /* no leading or doubled '-' */
        out[k++] = ch;
    }
    while (k && out[k - 1] == '-')
        k--;
    if (k == 0)
        snprintf(out, len, "vm");
    else
        out[k] = 0;
}
