/* attest/snp/roots: the built-in AMD SEV-SNP roots -- the ARK (AMD Root Key) and ASK (AMD
 * SEV Key; for VLEKs the ASVK) of Milan, Genoa and Turin, as AMD's KDS serves them at
 * /vcek/v1/{product}/cert_chain and /vlek/v1/{product}/cert_chain (public certificates,
 * DER): the files data/roots/amd-<product>-{ark,ask,asvk}.der, embedded at build time
 * (base/embed). Each ARK is self-signed and each ASK signed by its ARK (RSA-4096,
 * RSA-PSS SHA-384; checked by tests/unit/test_attest_snp.c, which also pins their
 * SHA-256). Invariant: read-only data. */
#include "attest/internal.h"
#include "attest/snp/snp.h"

#include <stddef.h>

#include "base/embed.h"

TB_EMBED(tb_snp_milan_ark, "data/roots/amd-milan-ark.der");
TB_EMBED(tb_snp_milan_ask, "data/roots/amd-milan-ask.der");
TB_EMBED(tb_snp_milan_asvk, "data/roots/amd-milan-asvk.der");
TB_EMBED(tb_snp_genoa_ark, "data/roots/amd-genoa-ark.der");
TB_EMBED(tb_snp_genoa_ask, "data/roots/amd-genoa-ask.der");
TB_EMBED(tb_snp_genoa_asvk, "data/roots/amd-genoa-asvk.der");
TB_EMBED(tb_snp_turin_ark, "data/roots/amd-turin-ark.der");
TB_EMBED(tb_snp_turin_ask, "data/roots/amd-turin-ask.der");
TB_EMBED(tb_snp_turin_asvk, "data/roots/amd-turin-asvk.der");

/* [0] ARK, [1] ASK, [2] ASVK: start and end of each */
typedef struct root {
    const uint8_t *start[3], *end[3];
} root;

#define ROOT(P)                                                                                    \
    {                                                                                              \
        {tb_snp_##P##_ark_start, tb_snp_##P##_ask_start, tb_snp_##P##_asvk_start},                 \
            {tb_snp_##P##_ark_end, tb_snp_##P##_ask_end, tb_snp_##P##_asvk_end},                   \
    }
static const root ROOTS[TB_SNP_PRODUCT_COUNT] = {
    [TB_SNP_MILAN] = ROOT(milan),
    [TB_SNP_GENOA] = ROOT(genoa),
    [TB_SNP_TURIN] = ROOT(turin),
};

int tb_snp_builtin(tb_snp_product p, int vlek, const uint8_t **ark, size_t *ark_len,
                   const uint8_t **ask, size_t *ask_len)
{
    if (p <= TB_SNP_UNKNOWN || p >= TB_SNP_PRODUCT_COUNT)
        return -1;
    const root *r = &ROOTS[p];
    int k = vlek ? 2 : 1;
    *ark = r->start[0];
    *ark_len = (size_t)(r->end[0] - r->start[0]);
    *ask = r->start[k];
    *ask_len = (size_t)(r->end[k] - r->start[k]);
    return 0;
}
