/* attest/evidence: the provider of every TEE kind behind one handle (see evidence.h).
 * Invariants: exactly the member of kind's provider is set (sim, snp_sim, or neither for
 * configfs-tsm); the mutex exists from open to close. */
#include "attest/evidence.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "attest/attest.h"
#include "attest/snp.h"

struct tb_attest_evidence {
    tb_tee kind;
    tb_attest_sim *sim;         /* sim: opened once (thread-safe) */
    tb_attest_snp_sim *snp_sim; /* sim-snp: the same */
    char dir[4096];             /* sim, sim-snp: the state folder */
    char tsm_root[4096];        /* tdx, snp: "" = configfs-tsm's default */
    pthread_mutex_t mu;         /* tdx, snp: one configfs-tsm report at a time */
};

int tb_attest_evidence_open(tb_tee kind, const char *sim_dir, const char *tsm_root,
                            tb_attest_evidence **out, tb_err *err)
{
    *out = NULL;
    if (kind == TB_TEE_NONE || tb_tee_family_of(kind) == TB_TEE_FAMILY_NONE)
        return tb_errf(err, "unknown TEE '%s' (want tdx, snp, sim or sim-snp)", tb_tee_name(kind));
    tb_attest_evidence *ev = calloc(1, sizeof *ev);
    if (!ev)
        return tb_errf(err, "out of memory");
    ev->kind = kind;
    if (tsm_root)
        snprintf(ev->tsm_root, sizeof ev->tsm_root, "%s", tsm_root);
    int rc = 0;
    if (tb_tee_simulated(kind)) {
        rc = tb_attest_sim_dir(sim_dir, ev->dir, sizeof ev->dir, err);
        if (rc == 0)
            rc = kind == TB_TEE_SIM_SNP ? tb_attest_snp_sim_open(ev->dir, &ev->snp_sim, err)
                                        : tb_attest_sim_open(ev->dir, &ev->sim, err);
    }
    if (rc < 0) {
        free(ev);
        return -1;
    }
    pthread_mutex_init(&ev->mu, NULL);
    *out = ev;
    return 0;
}

int tb_attest_evidence_get(tb_attest_evidence *ev, const uint8_t rd[64], uint8_t **evidence,
                           size_t *len, tb_err *err)
{
    if (ev->kind == TB_TEE_SIM)
        return tb_attest_sim_quote(ev->sim, rd, 0, evidence, len, err);
    if (ev->kind == TB_TEE_SIM_SNP)
        return tb_attest_snp_sim_quote(ev->snp_sim, rd, 0, evidence, len, err);
    const char *root = ev->tsm_root[0] ? ev->tsm_root : NULL;
    pthread_mutex_lock(&ev->mu);
    int rc = ev->kind == TB_TEE_SNP ? tb_attest_snp_tsm_report(root, rd, evidence, len, err)
                                    : tb_attest_tsm_get_quote(root, rd, evidence, len, err);
    pthread_mutex_unlock(&ev->mu);
    return rc;
}

tb_tee tb_attest_evidence_kind(const tb_attest_evidence *ev)
{
    return ev->kind;
}

const char *tb_attest_evidence_sim_dir(const tb_attest_evidence *ev)
{
    return ev->dir;
}

void tb_attest_evidence_close(tb_attest_evidence *ev)
{
    if (!ev)
        return;
    tb_attest_sim_close(ev->sim);
    tb_attest_snp_sim_close(ev->snp_sim);
    pthread_mutex_destroy(&ev->mu);
    free(ev);
}
