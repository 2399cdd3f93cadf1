/* tee: the one table of TEE kinds and its edge parsers (see tee.h).
 * Invariants: rows are indexed by tb_tee, so ROWS[t].name is t's name; the
 * parsers compare only against the table, and the names are pairwise distinct. */
#include "base/tee.h"

#include <stddef.h>
#include <string.h>

static const tb_tee_traits ROWS[TB_TEE_COUNT] = {
    [TB_TEE_NONE] = {.name = "none",
                     .family = TB_TEE_FAMILY_NONE,
                     .family_name = "none",
                     .real = TB_TEE_NONE},
    [TB_TEE_TDX] = {.name = "tdx",
                    .provider = "tsm",
                    .family = TB_TEE_FAMILY_TDX,
                    .family_name = "TDX",
                    .evidence = "TDX quote",
                    .evidence_words = "TDX quotes",
                    .real = TB_TEE_TDX},
    [TB_TEE_SNP] = {.name = "snp",
                    .provider = "snp",
                    .family = TB_TEE_FAMILY_SNP,
                    .family_name = "SEV-SNP",
                    .evidence = "SEV-SNP report",
                    .evidence_words = "SEV-SNP reports",
                    .real = TB_TEE_SNP},
    [TB_TEE_SIM] = {.name = "sim",
                    .provider = "sim",
                    .family = TB_TEE_FAMILY_TDX,
                    .simulated = 1,
                    .family_name = "TDX",
                    .evidence = "TDX quote",
                    .evidence_words = "SIMULATED TDX quotes",
                    .real = TB_TEE_TDX},
    [TB_TEE_SIM_SNP] = {.name = "sim-snp",
                        .provider = "sim-snp",
                        .family = TB_TEE_FAMILY_SNP,
                        .simulated = 1,
                        .family_name = "SEV-SNP",
                        .evidence = "SEV-SNP report",
                        .evidence_words = "SIMULATED SEV-SNP reports",
                        .real = TB_TEE_SNP},
};

const tb_tee_traits *tb_tee_traits_of(tb_tee t)
{
    return (unsigned)t < TB_TEE_COUNT ? &ROWS[t] : &ROWS[TB_TEE_NONE];
}

const char *tb_tee_name(tb_tee t)
{
    return tb_tee_traits_of(t)->name;
}

tb_tee_family tb_tee_family_of(tb_tee t)
{
    return tb_tee_traits_of(t)->family;
}

int tb_tee_simulated(tb_tee t)
{
    return tb_tee_traits_of(t)->simulated;
}

int tb_tee_parse(const char *name, tb_tee *out)
{
    for (int t = 0; name && t < TB_TEE_COUNT; t++)
        if (!strcmp(name, ROWS[t].name)) {
            *out = (tb_tee)t;
            return 0;
        }
    return -1;
}

int tb_tee_provider(const char *name, tb_tee *out)
{
    for (int t = 0; name && t < TB_TEE_COUNT; t++)
        if (ROWS[t].provider && !strcmp(name, ROWS[t].provider)) {
            *out = (tb_tee)t;
            return 0;
        }
    return -1;
}

tb_tee tb_tee_guest(const char *env_tee)
{
    tb_tee t;
    if (tb_tee_parse(env_tee, &t) < 0 || tb_tee_simulated(t))
        return TB_TEE_NONE;
    return t;
}
