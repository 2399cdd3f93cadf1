/* bytes: fixed-width integers in byte order -- the one reader and writer of little- and
 * big-endian fields for the formats teebench reads and writes byte by byte (TDX quotes,
 * SEV-SNP reports, OVMF's GUIDed table, disk image headers, the ISO 9660 seed, the
 * notary's document).
 *
 * Invariants: p points at (at least) the field's width of bytes -- bounds are the
 * caller's; no alignment is assumed; nothing else is touched. */
#ifndef TB_BASE_BYTES_H
#define TB_BASE_BYTES_H

#include <stdint.h>

static inline uint16_t tb_rd_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t tb_rd_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t tb_rd_le64(const uint8_t *p)
{
    return (uint64_t)tb_rd_le32(p) | (uint64_t)tb_rd_le32(p + 4) << 32;
}

static inline uint32_t tb_rd_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Writes the low 8 * n bits of v, least significant byte first. */
static inline void tb_wr_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Writes the low 8 * n bits of v, most significant byte first. */
static inline void tb_wr_be(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

static inline void tb_wr_le16(uint8_t *p, uint16_t v)
{
    tb_wr_le(p, v, 2);
}
static inline void tb_wr_le32(uint8_t *p, uint32_t v)
{
    tb_wr_le(p, v, 4);
}
static inline void tb_wr_le64(uint8_t *p, uint64_t v)
{
    tb_wr_le(p, v, 8);
}
static inline void tb_wr_be16(uint8_t *p, uint16_t v)
{
    tb_wr_be(p, v, 2);
}
static inline void tb_wr_be32(uint8_t *p, uint32_t v)
{
    tb_wr_be(p, v, 4);
}
static inline void tb_wr_be64(uint8_t *p, uint64_t v)
{
    tb_wr_be(p, v, 8);
}

#endif
