/* attest/common/evidence: one evidence interface for every TEE kind (base/tee) -- configfs-tsm in
 * a TDX or SEV-SNP guest, or the SIMULATED TDX or SEV-SNP provider:
 *   open / get / kind / sim_dir / close  a provider, opened once, asked for evidence bound
 *                        to 64 bytes of report data: a TDX quote, or an SEV-SNP report;
 *   read                 the evidence's report data and SIMULATED marker (parse only);
 *   prepare              what verifying the evidence needs, for its kind: TDX collateral
 *                        (a file or folder, a PCS/PCCS through attest's cache, or the
 *                        SIMULATED PKI's) and root (before a PCCS is asked: no round trip
 *                        for a root that cannot be loaded); SEV-SNP certificates (a folder, the KDS
 *                        through attest's cache, or the SIMULATED PKI's) and ARK;
 *   verify               evidence + prepared collateral + policy -> verdict (the pure
 *                        verifiers, tb_tdx_verify and tb_snp_verify);
 *   keep                 fetched collateral into the cache, once it verified the evidence;
 *   check                prepare, verify, keep -- a cached collateral that fails is fetched
 *                        again once, never served as valid; check_traced also says what it
 *                        did (fetch and verify times, cache, refetch, what failed: the
 *                        evidence, the collateral or the root);
 *   time                 attest/common/timing's loop (from scratch, prepared) on prepared
 * collateral. The notary (notary/tee), the suite's attest workload, `attest quote|bench`,
 * `attest verify` (SEV-SNP: cli/attest_snp) and tb_tdx_verify_quote (`attest verify` for TDX,
 * tlsn/tee) go through it instead of each switching over the kinds: the fetch, cache and
 * refetch policy is here, once.
 *
 * Invariants: a SIMULATED provider's state (its PKI) is read or made once, at open;
 * tb_attest_evidence_get may be called from many threads at once (configfs-tsm requests
 * are serialized by a mutex inside: a report entry is not safe for concurrent use);
 * verify is pure (no clock, network or files); nothing prints. Ownership:
 * tb_attest_evidence_open allocates *out, freed by tb_attest_evidence_close (NULL:
 * nothing); evidence from get is malloc'd (caller frees); prepared collateral is the
 * caller's struct, its contents freed by tb_attest_evidence_collateral_clear. */
#ifndef TB_ATTEST_EVIDENCE_H
#define TB_ATTEST_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>

#include "attest/snp/snp.h"
#include "attest/common/timing.h"
#include "base/err.h"
#include "base/tee.h"

typedef struct tb_attest_evidence tb_attest_evidence;

/* Opens kind's provider (TB_TEE_NONE refused). sim_dir: the SIMULATED state (NULL:
   attest's default, tb_attest_sim_dir); tsm_root: configfs-tsm's report folder (NULL:
   /sys/kernel/config/tsm/report). Opening configfs-tsm checks nothing: a machine that is
   not such a guest fails at the first get. */
int tb_attest_evidence_open(tb_tee kind, const char *sim_dir, const char *tsm_root,
                            tb_attest_evidence **out, tb_err *err);
/* Evidence bound to report_data: *evidence malloc'd (caller frees). debug: a SIMULATED
   provider makes debug evidence (the TD's DEBUG attribute, the guest policy's DEBUG bit);
   configfs-tsm ignores it: its evidence is what the guest is. */
int tb_attest_evidence_get(tb_attest_evidence *ev, const uint8_t report_data[64],
                           uint8_t **evidence, size_t *len, tb_err *err);
int tb_attest_evidence_get_debug(tb_attest_evidence *ev, const uint8_t report_data[64], int debug,
                                 uint8_t **evidence, size_t *len, tb_err *err);
tb_tee tb_attest_evidence_kind(const tb_attest_evidence *ev);
/* The SIMULATED provider's state folder ("" for configfs-tsm). */
const char *tb_attest_evidence_sim_dir(const tb_attest_evidence *ev);
void tb_attest_evidence_close(tb_attest_evidence *ev);

/* kind's evidence (kind: any but TB_TEE_NONE) parsed: its report data into rd and whether
   it says SIMULATED. 0, or -1 with err (the parser's reason). */
int tb_attest_evidence_read(tb_tee kind, const uint8_t *evidence, size_t len, uint8_t rd[64],
                            int *simulated, tb_err *err);

/* Where prepare gets the collateral (borrowed). TDX: collateral (a dcap-qvl JSON file or a
   folder of PCS responses) or pccs (a PCS/PCCS base URL); SEV-SNP: certs (a folder: ark.pem,
   ask.pem, vcek.der, crl.der) or kds (AMD's KDS base URL); SIMULATED: a file or folder
   given, else the simulated PKI's in sim_dir (NULL: attest's default) -- never Intel's or
   AMD's servers (pccs and kds are not asked for SIMULATED evidence). root: the trusted
   root (TDX: a CA file; SEV-SNP: an ARK file); NULL: Intel's, AMD's built-in, or the
   simulated PKI's. */
typedef struct tb_attest_collateral_source {
    const char *collateral, *pccs, *certs, *kds, *root, *sim_dir;
    tb_snp_product product;  /* kds: for a report that does not name it (0: none) */
    tb_tdx_fetch_opts fetch; /* pccs, kds: timeout, cache folder, no_cache (SIMULATED
                                   TDX: no_cache makes the collateral fresh, kept nowhere) */
} tb_attest_collateral_source;

/* What preparing collateral failed at. */
typedef enum tb_attest_prep_fail {
    TB_ATTEST_PREP_OK = 0,
    TB_ATTEST_PREP_PARSE,      /* the evidence, read for a PCCS's or the KDS's key: no quote
                                  or report */
    TB_ATTEST_PREP_KEY,        /* the evidence gives no key: a TDX quote's PCK chain no FMSPC
                                  and CA, an SEV-SNP report no product */
    TB_ATTEST_PREP_COLLATERAL, /* the collateral could not be loaded, made or fetched */
    TB_ATTEST_PREP_ROOT,       /* the trusted root (TDX's CA, SEV-SNP's ARK) could not be
                                  loaded */
} tb_attest_prep_fail;

/* What verifying one piece of evidence needs, prepared (the caller's struct). */
typedef struct tb_attest_evidence_collateral {
    tb_tee kind;
    char *json; /* TDX from a file: its dcap-qvl JSON as it is (what from-scratch timing
                   parses; NULL: tb_attest_evidence_time makes it from tdx, untimed) */
    size_t json_len;
    tb_tdx_collateral tdx; /* TDX: the same, parsed */
    tb_attest_root *root;  /* TDX: the trusted root */
    tb_snp_certs certs;    /* SEV-SNP: ARK, ASK, VCEK, CRL */
    uint8_t *ark;          /* SEV-SNP: the trusted ARK (DER); NULL: AMD's built-in */
    size_t ark_len;
    int fetched;                /* pccs, kds: from the network (else the cache) */
    int from_cache;             /* pccs, kds: from attest's cache */
    char fmspc[13];             /* pccs: the cache's key */
    const char *ca;             /* pccs: "processor" or "platform" */
    tb_snp_report report;       /* kds: the report the certificates are for */
    tb_snp_product product;     /* kds: its product */
    uint64_t fetch_ns;          /* getting the collateral (loading, making or fetching it; not
                                   the root), also when that failed */
    tb_attest_prep_fail failed; /* preparing failed: at what (kept when out is cleared) */
} tb_attest_evidence_collateral;

/* The collateral of kind's evidence from src at now. The evidence is read only for a PCCS
   (its FMSPC and CA) or the KDS (its chip and TCB): NULL otherwise is fine (a SIMULATED
   verifier's collateral made ahead). 0, or -1 with err (out cleared). */
int tb_attest_evidence_prepare(tb_tee kind, const uint8_t *evidence, size_t len,
                               const tb_attest_collateral_source *src, int64_t now,
                               tb_attest_evidence_collateral *out, tb_err *err);
void tb_attest_evidence_collateral_clear(tb_attest_evidence_collateral *c);
/* The source prepare takes kind's collateral from (src's URL, folder or file, or "the
   simulated PKI"), for messages. */
const char *tb_attest_evidence_source_name(tb_tee kind, const tb_attest_collateral_source *src);

/* A verdict of either family: result and simulated (verified against a SIMULATED root)
   of the family's verdict, which is kept whole. */
typedef struct tb_attest_evidence_verdict {
    tb_tee_family family;
    tb_attest_result result;
    int simulated;
    tb_tdx_verdict tdx;
    tb_snp_verdict snp;
} tb_attest_evidence_verdict;
/* The verdict of kind's family in a timing result (attest/common/timing keeps both families'). */
void tb_attest_evidence_timed_verdict(tb_tee kind, const tb_attest_timed *t,
                                      tb_attest_evidence_verdict *v);
/* The failed step's name and the reason ("" when ACCEPTED). */
const char *tb_attest_evidence_step(const tb_attest_evidence_verdict *v);
const char *tb_attest_evidence_reason(const tb_attest_evidence_verdict *v);

/* Verifies evidence with prepared collateral c at now under policy (NULL: the default).
   Always fills *v; 0 when ACCEPTED, -1 otherwise. Pure. */
int tb_attest_evidence_verify(const tb_attest_evidence_collateral *c, const uint8_t *evidence,
                              size_t len, int64_t now, const tb_attest_policy *policy,
                              tb_attest_evidence_verdict *v);
/* Fetched collateral (c->fetched) into attest's cache for src when v says it verified the
   evidence (TDX: ACCEPTED or REFUSED; SEV-SNP: not INVALID); a cache that cannot be
   written only costs the next verifier a fetch (check_traced says so, in not_kept). */
void tb_attest_evidence_keep(const tb_attest_evidence_collateral *c,
                             const tb_attest_collateral_source *src,
                             const tb_attest_evidence_verdict *v);
/* prepare + verify + keep; collateral from the cache that gives INVALID or EXPIRED is
   fetched again once (no_cache) and verified again (if that fetch fails, the cached
   verdict stands, its reason saying so). *prepared: 1 when the collateral was prepared;
   then 0 when ACCEPTED, else -1 with *v. 0 when preparing failed: -1 with err (and v
   INVALID, empty). */
int tb_attest_evidence_check(tb_tee kind, const uint8_t *evidence, size_t len,
                             const tb_attest_collateral_source *src, int64_t now,
                             const tb_attest_policy *policy, tb_attest_evidence_verdict *v,
                             int *prepared, tb_err *err);

/* What a check did (tb_attest_evidence_check_traced). */
typedef struct tb_attest_check_trace {
    uint64_t fetch_ns;          /* getting the collateral, every try (not the root) */
    uint64_t verify_ns;         /* the verification(s) */
    int from_cache;             /* the verdict came from cached collateral */
    int refetched;              /* cached collateral failed; fetched again, verified again */
    tb_attest_prep_fail failed; /* preparing failed at (OK: prepared) */
    int refetch_failed;         /* fetching it again failed: refetch_err says why */
    tb_err refetch_err;
    int not_kept; /* fetched, verified, not cached: not_kept_err says why */
    tb_err not_kept_err;
} tb_attest_check_trace;
/* tb_attest_evidence_check, and what it did into *trace (NULL: nothing); when preparing
   failed, err has the reason unwrapped and trace->failed what failed. */
int tb_attest_evidence_check_traced(tb_tee kind, const uint8_t *evidence, size_t len,
                                    const tb_attest_collateral_source *src, int64_t now,
                                    const tb_attest_policy *policy, tb_attest_evidence_verdict *v,
                                    tb_attest_check_trace *trace, tb_err *err);

/* attest/common/timing's loop (tb_attest_time_verify) over evidence with prepared collateral c
   (TDX from scratch parses c's JSON, made once before the loop when c has none). */
int tb_attest_evidence_time(const tb_attest_evidence_collateral *c, const uint8_t *evidence,
                            size_t len, int64_t now, tb_attest_way way,
                            const tb_attest_timing_opts *o, tb_attest_timed *out, tb_err *err);

/* Options for getting one piece of evidence; a NULL pointer means all defaults. */
typedef struct tb_attest_get_opts {
    const char *sim_dir;  /* sim state; NULL: $TEEBENCH_SIM_DIR, else
                             $XDG_CACHE_HOME/teebench/sim, else ~/.cache/teebench/sim */
    int sim_debug;        /* sim: set the DEBUG attribute in the TD report */
    const char *tsm_root; /* tsm: NULL = /sys/kernel/config/tsm/report */
} tb_attest_get_opts;

/* Gets one piece of evidence -- a TDX quote, or an SEV-SNP report for the SEV-SNP kinds --
 * binding 64 bytes of report data, from the provider of kind opened for it (base/tee.h: tdx and snp
 * from configfs-tsm, sim and sim-snp SIMULATED; `--provider` names: tb_tee_provider). TB_TEE_NONE
 * is refused. *quote is malloc'd (caller frees). */
int tb_attest_get_evidence(tb_tee kind, const uint8_t report_data[64],
                           const tb_attest_get_opts *opts, uint8_t **quote, size_t *len,
                           tb_err *err);

#endif
