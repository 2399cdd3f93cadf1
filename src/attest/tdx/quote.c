/* attest/tdx/quote: TDX quote bytes <-> structs.
 *
 * Layout (little-endian integers):
 *   header (48): version u16, att_key_type u16, tee_type u32, qe_svn u16, pce_svn u16,
 *                qe_vendor_id[16], user_data[20]
 *   v4: TD report body (584) | v5: body_type u16, body_size u32, body (584 or 648)
 *   sig_data_len u32, then signature data:
 *     signature[64], attestation key[64], cert type u16 (6), cert size u32,
 *       QE report (384), QE report signature[64], QE auth size u16, auth data,
 *       cert type u16 (5), cert size u32, PEM chain (may end with NUL bytes)
 *   then any number of trailing bytes (real quotes are padded).
 * Invariants: every length is bounds-checked before use; a parsed quote owns a
 * copy of its bytes and all its pointers point into that copy. */
#include "attest/internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/buf.h"
#include "base/file.h"

#define TB_QUOTE_MAX (1u << 20)

typedef struct rd {
    const uint8_t *p;
    size_t n, off;
} rd;

static int need(rd *r, size_t k)
{
    return r->n - r->off >= k;
}

static void take(rd *r, void *dst, size_t k)
{
    memcpy(dst, r->p + r->off, k);
    r->off += k;
}

static void parse_td_report(const uint8_t *b, int v15, tb_tdx_td_report *t)
{
    rd r = {b, v15 ? TB_TDX_TD15_BODY_LEN : TB_TDX_TD10_BODY_LEN, 0};
    take(&r, t->tee_tcb_svn, 16);
    take(&r, t->mrseam, 48);
    take(&r, t->mrsignerseam, 48);
    take(&r, t->seam_attributes, 8);
    take(&r, t->td_attributes, 8);
    take(&r, t->xfam, 8);
    take(&r, t->mrtd, 48);
    take(&r, t->mrconfigid, 48);
    take(&r, t->mrowner, 48);
    take(&r, t->mrownerconfig, 48);
    for (int i = 0; i < 4; i++)
        take(&r, t->rtmr[i], 48);
    take(&r, t->reportdata, 64);
    if (v15) {
        take(&r, t->tee_tcb_svn2, 16);
        take(&r, t->mrservicetd, 48);
    }
}

static void parse_sgx_report(const uint8_t *b, tb_tdx_sgx_report *s)
{
    memcpy(s->cpusvn, b, 16);
    s->miscselect = tb_rd_le32(b + 16);
    memcpy(s->attributes, b + 48, 16);
    memcpy(s->mrenclave, b + 64, 32);
    memcpy(s->mrsigner, b + 128, 32);
    s->isvprodid = tb_rd_le16(b + 256);
    s->isvsvn = tb_rd_le16(b + 258);
    memcpy(s->reportdata, b + 320, 64);
}

static int parse_header_body(rd *r, tb_tdx_quote *q, tb_err *err)
{
    if (!need(r, TB_TDX_HEADER_LEN))
        return tb_errf(err, "truncated: %zu bytes, the header alone is %d", r->n,
                       TB_TDX_HEADER_LEN);
    const uint8_t *h = r->p;
    q->version = tb_rd_le16(h);
    q->att_key_type = tb_rd_le16(h + 2);
    q->tee_type = tb_rd_le32(h + 4);
    q->qe_svn = tb_rd_le16(h + 8);
    q->pce_svn = tb_rd_le16(h + 10);
    memcpy(q->qe_vendor_id, h + 12, 16);
    memcpy(q->user_data, h + 28, 20);
    r->off = TB_TDX_HEADER_LEN;
    if (q->version == 4) {
        q->body_type = 2;
        q->body_len = TB_TDX_TD10_BODY_LEN;
    } else if (q->version == 5) {
        if (!need(r, 6))
            return tb_errf(err, "truncated: v5 body descriptor at offset %zu", r->off);
        q->body_type = tb_rd_le16(r->p + r->off);
        q->body_len = tb_rd_le32(r->p + r->off + 2);
        r->off += 6;
        if (q->body_type == 2 && q->body_len != TB_TDX_TD10_BODY_LEN)
            return tb_errf(err, "body type 2 with size %u (want %d)", q->body_len,
                           TB_TDX_TD10_BODY_LEN);
        if (q->body_type == 3 && q->body_len != TB_TDX_TD15_BODY_LEN)
            return tb_errf(err, "body type 3 with size %u (want %d)", q->body_len,
                           TB_TDX_TD15_BODY_LEN);
        if (q->body_type != 2 && q->body_type != 3)
            return tb_errf(err, "unsupported body type %u (TDX quotes have 2 or 3)", q->body_type);
    } else {
        return tb_errf(err, "unsupported quote version %u (want 4 or 5)", q->version);
    }
    if (!need(r, q->body_len))
        return tb_errf(err, "truncated: TD report body needs %u bytes at offset %zu, %zu left",
                       q->body_len, r->off, r->n - r->off);
    parse_td_report(r->p + r->off, q->body_type == 3, &q->td);
    r->off += q->body_len;
    q->signed_len = r->off;
    return 0;
}

static int parse_qe_cert_data(rd *r, size_t end, tb_tdx_quote *q, tb_err *err)
{
    if (end - r->off < TB_TDX_SGX_REPORT_LEN + 64 + 2)
        return tb_errf(err, "truncated: QE report certification data at offset %zu", r->off);
    q->qe_report_raw = r->p + r->off;
    parse_sgx_report(q->qe_report_raw, &q->qe_report);
    r->off += TB_TDX_SGX_REPORT_LEN;
    take(r, q->qe_report_sig, 64);
    q->qe_auth_len = tb_rd_le16(r->p + r->off);
    r->off += 2;
    if (end - r->off < q->qe_auth_len)
        return tb_errf(err, "truncated: QE auth data of %u bytes at offset %zu", q->qe_auth_len,
                       r->off);
    q->qe_auth = r->p + r->off;
    r->off += q->qe_auth_len;
    if (end - r->off < 6)
        return tb_errf(err, "truncated: PCK certification data header at offset %zu", r->off);
    q->pck_cert_type = tb_rd_le16(r->p + r->off);
    uint32_t size = tb_rd_le32(r->p + r->off + 2);
    r->off += 6;
    if (q->pck_cert_type != 5)
        return tb_errf(err,
                       "certification data type %u inside the QE report data (want 5, "
                       "a PEM PCK chain)",
                       q->pck_cert_type);
    if (end - r->off < size)
        return tb_errf(err, "truncated: PCK chain of %u bytes at offset %zu, %zu left", size,
                       r->off, end - r->off);
    q->pck_chain = (const char *)(r->p + r->off);
    q->pck_chain_len = size;
    while (q->pck_chain_len > 0 && q->pck_chain[q->pck_chain_len - 1] == '\0')
        q->pck_chain_len--; /* a trailing NUL is common */
    r->off += size;
    return 0;
}

static int parse_sig_data(rd *r, tb_tdx_quote *q, tb_err *err)
{
    if (!need(r, 4))
        return tb_errf(err, "truncated: no signature data length at offset %zu", r->off);
    q->sig_data_len = tb_rd_le32(r->p + r->off);
    r->off += 4;
    if (!need(r, q->sig_data_len))
        return tb_errf(err, "truncated: signature data of %u bytes at offset %zu, %zu left",
                       q->sig_data_len, r->off, r->n - r->off);
    size_t end = r->off + q->sig_data_len;
    if (q->sig_data_len < 64 + 64 + 6)
        return tb_errf(err, "signature data too short (%u bytes)", q->sig_data_len);
    take(r, q->signature, 64);
    take(r, q->att_key, 64);
    q->cert_type = tb_rd_le16(r->p + r->off);
    uint32_t size = tb_rd_le32(r->p + r->off + 2);
    r->off += 6;
    if (q->cert_type != 6)
        return tb_errf(err, "certification data type %u (want 6, QE report certification data)",
                       q->cert_type);
    if (end - r->off < size)
        return tb_errf(err, "truncated: certification data of %u bytes at offset %zu", size,
                       r->off);
    size_t cend = r->off + size;
    if (parse_qe_cert_data(r, cend, q, err) < 0)
        return -1;
    if (r->off != cend)
        return tb_errf(err, "certification data has %zu unexplained bytes", cend - r->off);
    r->off = end;
    q->trailing = r->n - end;
    return 0;
}

int tb_tdx_quote_parse(const uint8_t *p, size_t n, tb_tdx_quote **out, tb_err *err)
{
    *out = NULL;
    if (n > TB_QUOTE_MAX)
        return tb_errf(err, "quote too large (%zu bytes)", n);
    tb_tdx_quote *q = calloc(1, sizeof *q);
    if (!q)
        return tb_errf(err, "out of memory");
    q->raw = malloc(n ? n : 1);
    if (!q->raw) {
        free(q);
        return tb_errf(err, "out of memory");
    }
    if (n)
        memcpy(q->raw, p, n);
    q->raw_len = n;
    rd r = {q->raw, n, 0};
    if (parse_header_body(&r, q, err) < 0 || parse_sig_data(&r, q, err) < 0) {
        tb_tdx_quote_free(q);
        return -1;
    }
    *out = q;
    return 0;
}

void tb_tdx_quote_free(tb_tdx_quote *q)
{
    if (!q)
        return;
    free(q->raw);
    free(q);
}

const uint8_t *tb_tdx_quote_report_data(const tb_tdx_quote *q)
{
    return q->td.reportdata;
}

int tb_tdx_quote_is_debug(const tb_tdx_quote *q)
{
    return q->td.td_attributes[0] & 1;
}

int tb_tdx_quote_is_simulated(const tb_tdx_quote *q)
{
    return !memcmp(q->user_data, TB_TDX_SIM_MARKER, TB_TDX_SIM_MARKER_LEN);
}

int tb_tdx_quote_load(const char *path, tb_tdx_quote **out, tb_err *err)
{
    uint8_t *b;
    size_t n;
    *out = NULL;
    if (tb_attest_evidence_file_read(path, &b, &n, err) < 0)
        return -1;
    int rc = tb_tdx_quote_parse(b, n, out, err);
    free(b);
    if (rc < 0)
        tb_err_wrap(err, "%s", path);
    return rc;
}
