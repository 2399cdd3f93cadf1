/* vm/firmware: see firmware.h. Every read of the untrusted bytes goes through
 * in_bounds(): offsets and lengths come from the file, so each one is checked
 * against n before use, in 64-bit arithmetic (no wrap). */
#include "vm/firmware.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/bytes.h"
#include "base/buf.h"
#include "base/file.h"
#include "base/hex.h"

/* GUIDs in their on-disk (little-endian fields) byte order. */
static const uint8_t GUID_FOOTER[16] = {0xde, 0x82, 0xb5, 0x96, 0xb2, 0x1f, 0xf7, 0x45,
                                        0xba, 0xea, 0xa3, 0x66, 0xc5, 0x5a, 0x08, 0x2d};
static const uint8_t GUID_TDX[16] = {0x35, 0x65, 0x7a, 0xe4, 0x4a, 0x98, 0x98, 0x47,
                                     0x86, 0x5e, 0x46, 0x85, 0xa7, 0xbf, 0x8e, 0xc2};
static const uint8_t GUID_SEV_META[16] = {0x66, 0x65, 0x88, 0xdc, 0x4a, 0x98, 0x98, 0x47,
                                          0xa7, 0x5e, 0x55, 0x85, 0xa7, 0xbf, 0x67, 0xcc};
static const uint8_t GUID_SEV_ES[16] = {0xde, 0x71, 0xf7, 0x00, 0x7e, 0x1a, 0xcb, 0x4f,
                                        0x89, 0x0e, 0x68, 0xc7, 0x7e, 0x2f, 0xb4, 0x4e};

#define FOOTER_FROM_END 48 /* 32 bytes after the table + the 16-byte footer GUID */
#define ENTRY_HDR 18       /* 2-byte length + 16-byte GUID */
#define TDVF_HDR 16
#define TDVF_SECTION 32
#define SEV_HDR 16
#define SEV_DESC 12

const tb_vm_fw_place tb_vm_fw_places[] = {
    {"/usr/share/ovmf/OVMF.fd", "Debian/Ubuntu (ovmf; canonical/tdx's run_td boots it)"},
    {"/usr/share/ovmf/OVMF.amdsev.fd", "Ubuntu (ovmf, the AmdSev build)"},
    {"/usr/share/edk2/ovmf/OVMF.inteltdx.fd", "CentOS/RHEL/Fedora (edk2-ovmf, the IntelTdx build)"},
    {"/usr/share/edk2/ovmf/OVMF.amdsev.fd", "CentOS/RHEL/Fedora (edk2-ovmf, the AmdSev build)"},
    {"/usr/share/edk2/ovmf/OVMF_CODE.fd", "CentOS/RHEL/Fedora (edk2-ovmf)"},
    {NULL, NULL}};

static int in_bounds(uint64_t off, uint64_t len, size_t n)
{
    return off <= n && len <= n - off;
}

/* The table: [start, end) of the entries in the file. 0 when there is none. */
typedef struct table {
    size_t start, end;
} table;

static int find_table(const uint8_t *p, size_t n, table *t)
{
    if (n < FOOTER_FROM_END + 2 || memcmp(p + n - FOOTER_FROM_END, GUID_FOOTER, 16))
        return 0;
    size_t lenpos = n - FOOTER_FROM_END - 2;
    uint16_t tot = tb_rd_le16(p + lenpos);
    if (tot < ENTRY_HDR || (size_t)(tot - ENTRY_HDR) > lenpos)
        return 0;
    t->end = lenpos;
    t->start = lenpos - (tot - ENTRY_HDR);
    return 1;
}

/* The data of the entry with guid: its offset and length. 1 when found. */
static int find_entry(const uint8_t *p, const table *t, const uint8_t guid[16], size_t *off,
                      size_t *len)
{
    size_t ptr = t->end;
    while (ptr - t->start >= ENTRY_HDR) {
        uint16_t l = tb_rd_le16(p + ptr - ENTRY_HDR);
        if (l < ENTRY_HDR || l > ptr - t->start)
            return 0; /* corrupt: stop, as QEMU does */
        if (!memcmp(p + ptr - 16, guid, 16)) {
            *off = ptr - l;
            *len = l - ENTRY_HDR;
            return 1;
        }
        ptr -= l;
    }
    return 0;
}

/* An entry holding a 32-bit offset from the end of the file: the position it names. */
static int metadata_at(const uint8_t *p, size_t n, const table *t, const uint8_t guid[16],
                       uint64_t *pos)
{
    size_t off, len;
    if (!find_entry(p, t, guid, &off, &len) || len < 4)
        return 0;
    uint32_t back = tb_rd_le32(p + off);
    if (back > n)
        return -1;
    *pos = n - back;
    return 1;
}

static void parse_tdx(const uint8_t *p, size_t n, const table *t, tb_vm_fw *f)
{
    uint64_t pos;
    int r = metadata_at(p, n, t, GUID_TDX, &pos);
    if (r == 0) {
        snprintf(f->tdx_why, sizeof f->tdx_why, "no TDX metadata entry in the OVMF table");
        return;
    }
    if (r < 0 || !in_bounds(pos, TDVF_HDR, n)) {
        snprintf(f->tdx_why, sizeof f->tdx_why, "the TDX metadata offset points outside the file");
        return;
    }
    const uint8_t *m = p + pos;
    uint32_t length = tb_rd_le32(m + 4), version = tb_rd_le32(m + 8), count = tb_rd_le32(m + 12);
    if (memcmp(m, "TDVF", 4)) {
        snprintf(f->tdx_why, sizeof f->tdx_why, "no TDVF signature at the TDX metadata offset");
        return;
    }
    if (version != 1) {
        snprintf(f->tdx_why, sizeof f->tdx_why, "TDVF metadata version %" PRIu32 ", not 1",
                 version);
        return;
    }
    if (count < 2 || (uint64_t)length != TDVF_HDR + (uint64_t)count * TDVF_SECTION ||
        !in_bounds(pos, length, n)) {
        snprintf(f->tdx_why, sizeof f->tdx_why,
                 "TDVF metadata length %" PRIu32 " does not match its %" PRIu32 " sections", length,
                 count);
        return;
    }
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *s = m + TDVF_HDR + (size_t)i * TDVF_SECTION;
        uint32_t data_off = tb_rd_le32(s), raw = tb_rd_le32(s + 4), type = tb_rd_le32(s + 24);
        uint64_t addr = tb_rd_le64(s + 8), size = tb_rd_le64(s + 16);
        const char *bad = NULL;
        if (size < raw)
            bad = "memory size below its raw size";
        else if (addr % 4096 || size % 4096)
            bad = "not page aligned";
        else if (type > 3)
            bad = "of an unknown type";
        else if (type <= 1 && (raw == 0 || !in_bounds(data_off, raw, n)))
            bad = "a firmware volume whose data is not in the file";
        else if (type >= 2 && raw != 0)
            bad = "a memory section with data";
        if (bad) {
            snprintf(f->tdx_why, sizeof f->tdx_why, "TDVF section %" PRIu32 " is %s", i, bad);
            return;
        }
    }
    f->tdx = 1;
    f->tdx_sections = (int)count;
}

static void parse_sev(const uint8_t *p, size_t n, const table *t, tb_vm_fw *f)
{
    size_t off, len;
    f->sev_es = find_entry(p, t, GUID_SEV_ES, &off, &len);
    uint64_t pos;
    int r = metadata_at(p, n, t, GUID_SEV_META, &pos);
    if (r == 0) {
        snprintf(f->snp_why, sizeof f->snp_why, "no SEV metadata entry in the OVMF table");
        return;
    }
    if (r < 0 || !in_bounds(pos, SEV_HDR, n) || memcmp(p + pos, "ASEV", 4)) {
        snprintf(f->snp_why, sizeof f->snp_why, "no ASEV signature at the SEV metadata offset");
        return;
    }
    const uint8_t *m = p + pos;
    uint32_t length = tb_rd_le32(m + 4), count = tb_rd_le32(m + 12);
    if ((uint64_t)length < SEV_HDR + (uint64_t)count * SEV_DESC || !in_bounds(pos, length, n)) {
        snprintf(f->snp_why, sizeof f->snp_why,
                 "SEV metadata length %" PRIu32 " does not hold its %" PRIu32 " descriptors",
                 length, count);
        return;
    }
    f->sev = 1;
    f->sev_descs = (int)count;
    int secrets = 0, cpuid = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t type = tb_rd_le32(m + SEV_HDR + (size_t)i * SEV_DESC + 8);
        secrets |= type == 2;
        cpuid |= type == 3;
    }
    if (secrets && cpuid)
        f->snp = 1;
    else
        snprintf(f->snp_why, sizeof f->snp_why, "SEV metadata without %s",
                 !secrets && !cpuid ? "an SNP secrets page and a CPUID page"
                 : !secrets         ? "an SNP secrets page"
                                    : "a CPUID page");
}

void tb_vm_fw_parse(const uint8_t *p, size_t n, tb_vm_fw *f)
{
    f->ovmf = f->tdx = f->sev = f->snp = f->sev_es = 0;
    f->tdx_sections = f->sev_descs = 0;
    f->tdx_why[0] = f->snp_why[0] = 0;
    table t;
    if (!p || !find_table(p, n, &t)) {
        snprintf(f->tdx_why, sizeof f->tdx_why, "no OVMF GUIDed table (not an OVMF image?)");
        snprintf(f->snp_why, sizeof f->snp_why, "no OVMF GUIDed table (not an OVMF image?)");
        return;
    }
    f->ovmf = 1;
    parse_tdx(p, n, &t, f);
    parse_sev(p, n, &t, f);
}

void tb_vm_fw_read(const char *path, tb_vm_fw *f)
{
    memset(f, 0, sizeof *f);
    snprintf(f->path, sizeof f->path, "%s", path);
    tb_buf b = {0};
    tb_err e;
    if (tb_file_read(path, 64u << 20, &b, &e) < 0) {
        snprintf(f->why, sizeof f->why, "%.290s", e.msg);
        return;
    }
    f->present = 1;
    f->size = b.len;
    unsigned char md[32];
    unsigned mdlen = 0;
    if (EVP_Digest(b.p ? b.p : (const uint8_t *)"", b.len, md, &mdlen, EVP_sha256(), NULL) &&
        mdlen == 32)
        tb_hex_encode(md, 32, f->sha256);
    tb_vm_fw_parse(b.p, b.len, f);
    tb_buf_clear(&b);
}

void tb_vm_fw_describe(const tb_vm_fw *f, char *out, size_t len)
{
    if (!f->present) {
        snprintf(out, len, "%s", f->why[0] ? f->why : "not read");
        return;
    }
    if (!f->ovmf) {
        snprintf(out, len, "no OVMF GUIDed table (not an OVMF image?)");
        return;
    }
    char tdx[240], sev[240];
    if (f->tdx)
        snprintf(tdx, sizeof tdx, "TDVF metadata (%d sections)", f->tdx_sections);
    else
        snprintf(tdx, sizeof tdx, "%s", f->tdx_why);
    if (f->snp)
        snprintf(sev, sizeof sev, "SEV metadata with SNP secrets and CPUID pages (%d descriptors)",
                 f->sev_descs);
    else
        snprintf(sev, sizeof sev, "%s", f->snp_why);
    snprintf(out, len, "%s; %s", tdx, sev);
}

json_t *tb_vm_fw_json(const tb_vm_fw *f)
{
    json_t *o = json_pack("{s:s, s:b}", "path", f->path, "present", f->present);
    if (!o)
        return NULL;
    if (!f->present) {
        json_object_set_new(o, "why", json_string(f->why));
        return o;
    }
    json_object_set_new(o, "size", json_integer((json_int_t)f->size));
    json_object_set_new(o, "sha256", json_string(f->sha256));
    json_object_set_new(o, "ovmf_table", json_boolean(f->ovmf));
    json_object_set_new(
        o, "tdx",
        json_pack("{s:b, s:i, s:s}", "ok", f->tdx, "sections", f->tdx_sections, "why", f->tdx_why));
    json_object_set_new(o, "sev",
                        json_pack("{s:b, s:b, s:i, s:b, s:s}", "metadata", f->sev, "snp", f->snp,
                                  "descriptors", f->sev_descs, "sev_es_reset_block", f->sev_es,
                                  "why", f->snp_why));
    return o;
}

static int get_bool(const json_t *o, const char *k, int *out, tb_err *err)
{
    const json_t *v = json_object_get(o, k);
    if (!json_is_boolean(v))
        return tb_errf(err, "firmware fact \"%s\" is missing or not a boolean", k);
    *out = json_is_true(v);
    return 0;
}

static int get_text(const json_t *o, const char *k, char *out, size_t len, tb_err *err)
{
    const char *v = json_string_value(json_object_get(o, k));
    if (!v || strlen(v) >= len)
        return tb_errf(err, "firmware fact \"%s\" is missing, not a string or too long", k);
    memcpy(out, v, strlen(v) + 1);
    return 0;
}

static int get_count(const json_t *o, const char *k, int *out, tb_err *err)
{
    const json_t *v = json_object_get(o, k);
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 1000000)
        return tb_errf(err, "firmware fact \"%s\" is missing or not a count", k);
    *out = (int)json_integer_value(v);
    return 0;
}

int tb_vm_fw_from_json(const json_t *j, tb_vm_fw *f, tb_err *err)
{
    memset(f, 0, sizeof *f);
    if (!json_is_object(j))
        return tb_errf(err, "a firmware entry is not an object");
    if (get_text(j, "path", f->path, sizeof f->path, err) < 0 ||
        get_bool(j, "present", &f->present, err) < 0)
        return -1;
    if (!f->present)
        return get_text(j, "why", f->why, sizeof f->why, err);
    const json_t *size = json_object_get(j, "size");
    if (!json_is_integer(size) || json_integer_value(size) < 0)
        return tb_errf(err, "firmware fact \"size\" is missing or not a size");
    f->size = (uint64_t)json_integer_value(size);
    const json_t *tdx = json_object_get(j, "tdx"), *sev = json_object_get(j, "sev");
    if (get_text(j, "sha256", f->sha256, sizeof f->sha256, err) < 0 ||
        get_bool(j, "ovmf_table", &f->ovmf, err) < 0 || get_bool(tdx, "ok", &f->tdx, err) < 0 ||
        get_count(tdx, "sections", &f->tdx_sections, err) < 0 ||
        get_text(tdx, "why", f->tdx_why, sizeof f->tdx_why, err) < 0 ||
        get_bool(sev, "metadata", &f->sev, err) < 0 || get_bool(sev, "snp", &f->snp, err) < 0 ||
        get_count(sev, "descriptors", &f->sev_descs, err) < 0 ||
        get_bool(sev, "sev_es_reset_block", &f->sev_es, err) < 0 ||
        get_text(sev, "why", f->snp_why, sizeof f->snp_why, err) < 0)
        return -1;
    return 0;
}

int tb_vm_file_sha256(const char *path, char out[65], tb_err *err)
{
    out[0] = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return tb_errno(err, "%s", path);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int rc = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) ? 0 : -1;
    int failed_io = 0;
    unsigned char buf[16384];
    while (rc == 0) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = tb_errno(err, "reading %s", path);
            failed_io = 1;
            break;
        }
        if (n == 0)
            break;
        if (!EVP_DigestUpdate(ctx, buf, (size_t)n))
            rc = -1;
    }
    unsigned char md[32];
    unsigned mdlen = 0;
    if (rc == 0 && (!EVP_DigestFinal_ex(ctx, md, &mdlen) || mdlen != 32))
        rc = -1;
    if (rc == 0)
        tb_hex_encode(md, 32, out);
    else if (!failed_io)
        tb_errf(err, "sha256 of %s failed", path);
    EVP_MD_CTX_free(ctx);
    close(fd);
    return rc;
}
