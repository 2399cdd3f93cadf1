/* tlsn/tee: the TEE message of a TLSNotary session -- a TDX quote from the
 * verifier's side that binds this session, and its check on the prover's side.
 *
 * What the quote binds (REPORTDATA, 64 bytes):
 *   SHA-512("teebench-tlsn-tee/1" || 0x00 || session id (16 bytes) || prover nonce
 *           (32 bytes) || u32be(len(server name)) || server name
 *           || SHA-256(sent transcript) || SHA-256(received transcript))
 * The session id is the harness's, fresh per session; the nonce is the prover
 * page's, fresh per session and sent to the verifier over the relay's "tee"
 * channel; the server name and the transcripts are what the verifier's verify()
 * returned (the prover computes them from its own transcript). A quote made for
 * another session, another nonce or another transcript does not verify.
 *
 * Quotes come from the attest module through notary/tee's quote source: configfs-
 * tsm in a TD (kind "tdx"), or the SIMULATED provider elsewhere (kind "sim",
 * labelled SIMULATED). Checking is one call to attest's tb_tdx_verify_quote
 * whose policy requires that REPORTDATA (SIMULATED quotes against the simulated
 * PKI only; real ones with collateral from a file or a PCCS).
 * This is the one place a later evidence interface replaces.
 *
 * Ownership: tb_tlsn_tee_open fills a caller-owned struct; tb_tlsn_tee_close frees
 * what it holds. Nothing here prints. */
#ifndef TB_TLSN_TEE_H
#define TB_TLSN_TEE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "notary/evidence.h"

#define TB_TLSN_SESSION_ID_LEN 16
#define TB_TLSN_NONCE_LEN 32

typedef struct tb_tlsn_tee {
    tb_notary_quote_source src;
    int open;
    tb_tee kind;           /* TB_TEE_TDX | TB_TEE_SIM (tb_tee_simulated: SIMULATED) */
    char sim_dir[4096];    /* sim: the provider's state ("": its default) */
    char collateral[4096]; /* tdx: collateral file, or */
    char pccs[1024];       /* tdx: PCCS base URL */
} tb_tlsn_tee;

void tb_tlsn_tee_report_data(const uint8_t session[TB_TLSN_SESSION_ID_LEN],
                             const uint8_t nonce[TB_TLSN_NONCE_LEN], const char *server_name,
                             const uint8_t *sent, size_t sent_len, const uint8_t *recv,
                             size_t recv_len, uint8_t out[64]);

/* kind TB_TEE_TDX or TB_TEE_SIM (others refused); sim_dir may be NULL or "" (the
   provider's default). */
int tb_tlsn_tee_open(tb_tee kind, const char *sim_dir, tb_tlsn_tee *t, tb_err *err);
void tb_tlsn_tee_close(tb_tlsn_tee *t);

/* A quote over report_data: *quote malloc'd (caller frees). */
int tb_tlsn_tee_quote(tb_tlsn_tee *t, const uint8_t report_data[64], uint8_t **quote, size_t *len,
                      tb_err *err);

/* 0 when the quote verifies and binds report_data; -1 with why. */
int tb_tlsn_tee_verify(const tb_tlsn_tee *t, const uint8_t *quote, size_t len,
                       const uint8_t report_data[64], tb_err *err);

#endif
