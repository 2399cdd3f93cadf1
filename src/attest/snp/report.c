/* attest/snp/report: the SEV-SNP ATTESTATION_REPORT, bytes <-> struct (pure).
 *
 * Layout (AMD SEV-SNP firmware ABI, Table "ATTESTATION_REPORT Structure"), 1184 bytes,
 * integers little-endian:
 *   0x000 VERSION u32 (2, 3 or 5)   0x004 GUEST_SVN u32        0x008 POLICY u64
 *   0x010 FAMILY_ID[16]             0x020 IMAGE_ID[16]         0x030 VMPL u32
 *   0x034 SIGNATURE_ALGO u32 (1)    0x038 CURRENT_TCB u64      0x040 PLATFORM_INFO u64
 *   0x048 signer info u32 (AUTHOR_KEY_EN, MASK_CHIP_KEY, SIGNING_KEY bits 2-4)
 *   0x04C reserved u32              0x050 REPORT_DATA[64]      0x090 MEASUREMENT[48]
 *   0x0C0 HOST_DATA[32]             0x0E0 ID_KEY_DIGEST[48]    0x110 AUTHOR_KEY_DIGEST[48]
 *   0x140 REPORT_ID[32]             0x160 REPORT_ID_MA[32]     0x180 REPORTED_TCB u64
 *   0x188 CPUID_FAM_ID, CPUID_MOD_ID, CPUID_STEP (version >= 3; reserved before) .. 0x1A0
 *   0x1A0 CHIP_ID[64]               0x1E0 COMMITTED_TCB u64
 *   0x1E8 CURRENT_BUILD, _MINOR, _MAJOR, reserved   0x1EC COMMITTED_BUILD, _MINOR, _MAJOR, rsvd
 *   0x1F0 LAUNCH_TCB u64            0x1F8 LAUNCH_MIT_VECTOR u64, 0x200 CURRENT_MIT_VECTOR u64
 *                                   (version >= 5; reserved before)    0x208 reserved .. 0x2A0
 *   0x2A0 SIGNATURE: R[72] S[72] little-endian (P-384: the upper 24 bytes zero), reserved
 *         to 0x4A0.
 * Invariants: parse accepts exactly 1184 bytes, known versions, every reserved byte and
 * bit zero (policy bit 17 one), so serialize(parse(b)) == b for every accepted b. */
#include "attest/internal.h"
#include "attest/snp/snp.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "base/bytes.h"

static int zero(const uint8_t *p, size_t a, size_t b)
{
    for (size_t i = a; i < b; i++)
        if (p[i])
            return 0;
    return 1;
}

static const char *const PRODUCTS[] = {"unknown", "Milan", "Genoa", "Turin"};

const char *tb_snp_product_name(tb_snp_product p)
{
    return (unsigned)p < TB_SNP_PRODUCT_COUNT ? PRODUCTS[p] : "unknown";
}

int tb_snp_product_parse(const char *s, tb_snp_product *out)
{
    for (int i = 1; i < TB_SNP_PRODUCT_COUNT; i++) {
        size_t n = strlen(PRODUCTS[i]);
        if (!strncasecmp(s, PRODUCTS[i], n) && (s[n] == '\0' || s[n] == '-')) {
            *out = (tb_snp_product)i;
            return 0;
        }
    }
    return -1;
}

void tb_snp_tcb_decode(uint64_t raw, tb_snp_product p, tb_snp_tcb *t)
{
    uint8_t b[8];
    tb_wr_le64(b, raw);
    memset(t, 0, sizeof *t);
    if (p == TB_SNP_TURIN) {
        t->fmc = b[0];
        t->bl = b[1];
        t->tee = b[2];
        t->snp = b[3];
        t->has_fmc = 1;
    } else {
        t->bl = b[0];
        t->tee = b[1];
        t->snp = b[6];
    }
    t->ucode = b[7];
}

uint64_t tb_snp_tcb_encode(const tb_snp_tcb *t, tb_snp_product p)
{
    uint8_t b[8] = {0};
    if (p == TB_SNP_TURIN) {
        b[0] = t->fmc;
        b[1] = t->bl;
        b[2] = t->tee;
        b[3] = t->snp;
    } else {
        b[0] = t->bl;
        b[1] = t->tee;
        b[6] = t->snp;
    }
    b[7] = t->ucode;
    return tb_rd_le64(b);
}

int tb_snp_sniff(const uint8_t *p, size_t n)
{
    if (n != TB_SNP_REPORT_LEN)
        return 0;
    uint32_t v = tb_rd_le32(p);
    return v >= 2 && v <= 5 && tb_rd_le32(p + 0x34) == 1;
}

int tb_snp_parse(const uint8_t *p, size_t n, tb_snp_report *r, tb_err *err)
{
    memset(r, 0, sizeof *r);
    if (n != TB_SNP_REPORT_LEN)
        return tb_errf(err, "an SNP report is %d bytes, not %zu", TB_SNP_REPORT_LEN, n);
    r->version = tb_rd_le32(p);
    if (r->version != 2 && r->version != 3 && r->version != 5)
        return tb_errf(err, "unknown SNP report version %u (known: 2, 3, 5)", r->version);
    r->guest_svn = tb_rd_le32(p + 0x04);
    r->policy = tb_rd_le64(p + 0x08);
    if (!(r->policy & TB_SNP_POLICY_RESERVED1))
        return tb_errf(err, "guest policy bit 17 (reserved, must be 1) is 0");
    if (r->policy >> 26)
        return tb_errf(err, "guest policy has reserved bits 26-63 set (0x%llx)",
                       (unsigned long long)r->policy);
    memcpy(r->family_id, p + 0x10, 16);
    memcpy(r->image_id, p + 0x20, 16);
    r->vmpl = tb_rd_le32(p + 0x30);
    if (r->vmpl > 3)
        return tb_errf(err, "VMPL %u is not 0..3", r->vmpl);
    r->sig_algo = tb_rd_le32(p + 0x34);
    if (r->sig_algo != 1)
        return tb_errf(err, "signature algorithm %u is not 1 (ECDSA P-384 SHA-384)", r->sig_algo);
    r->current_tcb = tb_rd_le64(p + 0x38);
    r->platform_info = tb_rd_le64(p + 0x40);
    if (r->platform_info >> 8 || r->platform_info & (1u << 6))
        return tb_errf(err, "platform info has reserved bits set (0x%llx)",
                       (unsigned long long)r->platform_info);
    r->signer_info = tb_rd_le32(p + 0x48);
    unsigned key = (r->signer_info >> 2) & 7;
    if (r->signer_info >> 5 || (key != 0 && key != 1 && key != 7))
        return tb_errf(err,
                       "signer info 0x%x: reserved bits or signing key %u (0 VCEK, 1 VLEK, "
                       "7 none)",
                       r->signer_info, key);
    if (!zero(p, 0x4C, 0x50))
        return tb_errf(err, "reserved bytes 0x4C-0x4F are not zero");
    memcpy(r->report_data, p + 0x50, 64);
    memcpy(r->measurement, p + 0x90, 48);
    memcpy(r->host_data, p + 0xC0, 32);
    memcpy(r->id_key_digest, p + 0xE0, 48);
    memcpy(r->author_key_digest, p + 0x110, 48);
    memcpy(r->report_id, p + 0x140, 32);
    memcpy(r->report_id_ma, p + 0x160, 32);
    r->reported_tcb = tb_rd_le64(p + 0x180);
    size_t lo = 0x188;
    if (r->version >= 3) {
        r->cpuid_fam = p[0x188];
        r->cpuid_mod = p[0x189];
        r->cpuid_step = p[0x18A];
        lo = 0x18B;
    }
    if (!zero(p, lo, 0x1A0))
        return tb_errf(err, "reserved bytes 0x%zX-0x19F are not zero", lo);
    memcpy(r->chip_id, p + 0x1A0, 64);
    r->committed_tcb = tb_rd_le64(p + 0x1E0);
    r->current_build = p[0x1E8];
    r->current_minor = p[0x1E9];
    r->current_major = p[0x1EA];
    r->committed_build = p[0x1EC];
    r->committed_minor = p[0x1ED];
    r->committed_major = p[0x1EE];
    if (p[0x1EB] || p[0x1EF])
        return tb_errf(err, "reserved bytes 0x1EB / 0x1EF are not zero");
    r->launch_tcb = tb_rd_le64(p + 0x1F0);
    lo = 0x1F8;
    if (r->version >= 5) {
        r->launch_mit_vector = tb_rd_le64(p + 0x1F8);
        r->current_mit_vector = tb_rd_le64(p + 0x200);
        lo = 0x208;
    }
    if (!zero(p, lo, 0x2A0))
        return tb_errf(err, "reserved bytes 0x%zX-0x29F are not zero", lo);
    memcpy(r->sig_r, p + 0x2A0, 72);
    memcpy(r->sig_s, p + 0x2E8, 72);
    if (!zero(p, 0x330, TB_SNP_REPORT_LEN))
        return tb_errf(err, "reserved signature bytes 0x330-0x49F are not zero");
    return 0;
}

void tb_snp_serialize(const tb_snp_report *r, uint8_t p[TB_SNP_REPORT_LEN])
{
    memset(p, 0, TB_SNP_REPORT_LEN);
    tb_wr_le32(p, r->version);
    tb_wr_le32(p + 0x04, r->guest_svn);
    tb_wr_le64(p + 0x08, r->policy);
    memcpy(p + 0x10, r->family_id, 16);
    memcpy(p + 0x20, r->image_id, 16);
    tb_wr_le32(p + 0x30, r->vmpl);
    tb_wr_le32(p + 0x34, r->sig_algo);
    tb_wr_le64(p + 0x38, r->current_tcb);
    tb_wr_le64(p + 0x40, r->platform_info);
    tb_wr_le32(p + 0x48, r->signer_info);
    memcpy(p + 0x50, r->report_data, 64);
    memcpy(p + 0x90, r->measurement, 48);
    memcpy(p + 0xC0, r->host_data, 32);
    memcpy(p + 0xE0, r->id_key_digest, 48);
    memcpy(p + 0x110, r->author_key_digest, 48);
    memcpy(p + 0x140, r->report_id, 32);
    memcpy(p + 0x160, r->report_id_ma, 32);
    tb_wr_le64(p + 0x180, r->reported_tcb);
    if (r->version >= 3) {
        p[0x188] = r->cpuid_fam;
        p[0x189] = r->cpuid_mod;
        p[0x18A] = r->cpuid_step;
    }
    memcpy(p + 0x1A0, r->chip_id, 64);
    tb_wr_le64(p + 0x1E0, r->committed_tcb);
    p[0x1E8] = r->current_build;
    p[0x1E9] = r->current_minor;
    p[0x1EA] = r->current_major;
    p[0x1EC] = r->committed_build;
    p[0x1ED] = r->committed_minor;
    p[0x1EE] = r->committed_major;
    tb_wr_le64(p + 0x1F0, r->launch_tcb);
    if (r->version >= 5) {
        tb_wr_le64(p + 0x1F8, r->launch_mit_vector);
        tb_wr_le64(p + 0x200, r->current_mit_vector);
    }
    memcpy(p + 0x2A0, r->sig_r, 72);
    memcpy(p + 0x2E8, r->sig_s, 72);
}

/* AMD's KDS specification, "Determining the Product Name": family 19h models 0h-Fh are
 * Milan, 10h-1Fh and A0h-AFh Genoa (and its Bergamo/Siena siblings); family 1Ah is Turin. */
tb_snp_product tb_snp_report_product(const tb_snp_report *r)
{
    if (r->version < 3)
        return TB_SNP_UNKNOWN;
    if (r->cpuid_fam == 0x19 && r->cpuid_mod <= 0x0f)
        return TB_SNP_MILAN;
    if (r->cpuid_fam == 0x19 && ((r->cpuid_mod >= 0x10 && r->cpuid_mod <= 0x1f) ||
                                 (r->cpuid_mod >= 0xa0 && r->cpuid_mod <= 0xaf)))
        return TB_SNP_GENOA;
    if (r->cpuid_fam == 0x1a && r->cpuid_mod <= 0x1f)
        return TB_SNP_TURIN;
    return TB_SNP_UNKNOWN;
}

unsigned tb_snp_signing_key(const tb_snp_report *r)
{
    return (r->signer_info >> 2) & 7;
}

int tb_snp_is_simulated(const tb_snp_report *r)
{
    return !memcmp(r->family_id, TB_SNP_SIM_MARKER, 16);
}

int tb_snp_policy_bits(uint64_t policy, tb_snp_bit *out, int max)
{
    static const char *const names[] = {
        "smt_allowed",       "reserved_must_be_1", "migrate_ma",      "debug",
        "single_socket",     "cxl_allowed",        "mem_aes_256_xts", "rapl_disabled",
        "ciphertext_hiding", "page_swap_disabled"};
    int n = 0;
    for (int i = 0; i < 10 && n < max; i++)
        if (i != 1)
            out[n++] = (tb_snp_bit){names[i], (int)((policy >> (16 + i)) & 1)};
    return n;
}

int tb_snp_platform_bits(uint64_t info, tb_snp_bit *out, int max)
{
    static const char *const names[] = {"smt_enabled",
                                        "tsme_enabled",
                                        "ecc_enabled",
                                        "rapl_disabled",
                                        "ciphertext_hiding_enabled",
                                        "alias_check_complete",
                                        NULL,
                                        "tio_enabled"};
    int n = 0;
    for (int i = 0; i < 8 && n < max; i++)
        if (names[i])
            out[n++] = (tb_snp_bit){names[i], (int)((info >> i) & 1)};
    return n;
}
