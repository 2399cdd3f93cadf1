/* attest/evidence: one evidence provider for every TEE kind (base/tee) -- configfs-tsm in
 * a TDX or SEV-SNP guest, or the SIMULATED TDX or SEV-SNP provider -- opened once and
 * asked for evidence bound to 64 bytes of report data: a TDX quote, or an SEV-SNP report.
 * The notary's quote source (notary/tee) and the suite's attest workload get their
 * evidence through it instead of each switching over the kinds.
 *
 * Invariants: a SIMULATED provider's state (its PKI) is read or made once, at open;
 * tb_attest_evidence_get may be called from many threads at once (configfs-tsm requests
 * are serialized by a mutex inside: a report entry is not safe for concurrent use);
 * nothing prints. Ownership: tb_attest_evidence_open allocates *out, freed by
 * tb_attest_evidence_close (NULL: nothing); evidence from get is malloc'd (caller frees). */
#ifndef TB_ATTEST_EVIDENCE_H
#define TB_ATTEST_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/tee.h"

typedef struct tb_attest_evidence tb_attest_evidence;

/* Opens kind's provider (TB_TEE_NONE refused). sim_dir: the SIMULATED state (NULL:
   attest's default, tb_attest_sim_dir); tsm_root: configfs-tsm's report folder (NULL:
   /sys/kernel/config/tsm/report). Opening configfs-tsm checks nothing: a machine that is
   not such a guest fails at the first get. */
int tb_attest_evidence_open(tb_tee kind, const char *sim_dir, const char *tsm_root,
                            tb_attest_evidence **out, tb_err *err);
/* Evidence bound to report_data: *evidence malloc'd (caller frees). */
int tb_attest_evidence_get(tb_attest_evidence *ev, const uint8_t report_data[64],
                           uint8_t **evidence, size_t *len, tb_err *err);
tb_tee tb_attest_evidence_kind(const tb_attest_evidence *ev);
/* The SIMULATED provider's state folder ("" for configfs-tsm). */
const char *tb_attest_evidence_sim_dir(const tb_attest_evidence *ev);
void tb_attest_evidence_close(tb_attest_evidence *ev);

#endif
