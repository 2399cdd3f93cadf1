/* tee: the kinds of TEE teebench makes or checks evidence for, as one type.
 *
 * A tb_tee names the evidence source: no TEE, a real TDX or SEV-SNP guest
 * (configfs-tsm), or teebench's SIMULATED TDX or SEV-SNP provider. Its traits
 * (family, simulated or not, name, the evidence's words) live in one table in
 * tee.c; every module below the cli uses the type and its traits, never the
 * names. Names are parsed only at the edges -- flags, JSON documents, recorded
 * files -- by the functions here:
 *   tb_tee_parse     "none" "tdx" "snp" "sim" "sim-snp" (flags, documents)
 *   tb_tee_provider  `attest quote --provider`: "tsm" (TDX) "snp" "sim" "sim-snp"
 *   tb_tee_guest     sys/env's tee of a machine: "tdx", "snp"; anything else is
 *                    no TEE teebench can get evidence from
 * and printed only by tb_tee_name (the same names, round trip) and the table's
 * words. Invariants: pure (no I/O, no allocation, no state); every tb_tee value
 * below TB_TEE_COUNT has one table row; a simulated kind's words say SIMULATED. */
#ifndef TB_BASE_TEE_H
#define TB_BASE_TEE_H

typedef enum tb_tee {
    TB_TEE_NONE = 0, /* no TEE (the notary's --tee none) */
    TB_TEE_TDX,      /* Intel TDX quotes from configfs-tsm (tdx_guest) */
    TB_TEE_SNP,      /* AMD SEV-SNP reports from configfs-tsm (sev_guest) */
    TB_TEE_SIM,      /* SIMULATED TDX quotes (attest's sim provider, a local PKI) */
    TB_TEE_SIM_SNP,  /* SIMULATED SEV-SNP reports (attest's sim-snp provider) */
    TB_TEE_COUNT
} tb_tee;

typedef enum tb_tee_family {
    TB_TEE_FAMILY_NONE = 0,
    TB_TEE_FAMILY_TDX, /* the evidence is a TDX quote (attest/tdx/quote, attest/tdx/verify) */
    TB_TEE_FAMILY_SNP  /* the evidence is an SEV-SNP report (attest/snp/snp.h) */
} tb_tee_family;

typedef struct tb_tee_traits {
    const char *name;     /* "sim-snp": flags, JSON, recorded files */
    const char *provider; /* `attest quote --provider` name ("tsm" for TDX); NULL: none */
    tb_tee_family family;
    int simulated;              /* evidence from a software provider, labelled SIMULATED */
    const char *family_name;    /* "TDX", "SEV-SNP"; "none" */
    const char *evidence;       /* one piece: "TDX quote", "SEV-SNP report"; NULL for none */
    const char *evidence_words; /* records: "SIMULATED TDX quotes"; NULL for none */
    tb_tee real;                /* the real kind of this family (sim -> tdx); none -> none */
} tb_tee_traits;

/* The traits of t (a value outside the enum: NONE's). Never NULL. */
const tb_tee_traits *tb_tee_traits_of(tb_tee t);
/* t's name ("none", "tdx", "snp", "sim", "sim-snp"); tb_tee_parse reads it back. */
const char *tb_tee_name(tb_tee t);
tb_tee_family tb_tee_family_of(tb_tee t);
int tb_tee_simulated(tb_tee t);

/* Parses a name tb_tee_name gives. Returns 0, or -1 for NULL or any other string
   (case matters: "TDX" is not a name). */
int tb_tee_parse(const char *name, tb_tee *out);
/* Parses an attest provider name ("tsm", "snp", "sim", "sim-snp"). 0 or -1. */
int tb_tee_provider(const char *name, tb_tee *out);
/* The real TEE of a machine whose sys/env tee is env_tee ("tdx", "snp"), else
   TB_TEE_NONE (none, sev, sev-es, unknown, NULL). */
tb_tee tb_tee_guest(const char *env_tee);

#endif
