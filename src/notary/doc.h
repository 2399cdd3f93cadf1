/* notary/doc: the signed attestation document, format version 1.
 *
 * Encoding (all integers big-endian; documented in docs/NOTARY.md):
 *   "TBND" magic (4 bytes), version u16 = 1, then fields, each
 *   tag u8 | length u32 | value, in this exact order:
 *     0x01 session id        16 bytes
 *     0x02 time              u64, milliseconds since the Unix epoch (UTC)
 *     0x03 server name       1..253 bytes, printable ASCII (SNI and verified name)
 *     0x04 target host       1..253 bytes, printable ASCII (what the notary connected to)
 *     0x05 target port       u16
 *     0x06 tee               "none", "tdx", "snp", "sim" or "sim-snp" (sim, sim-snp =
 *                            SIMULATED TEE); 3..7 bytes (documents from before SNP
 *                            hold only the first three and read unchanged)
 *     0x07 nonce             0..64 bytes (the TEE evidence's nonce; empty without TEE)
 *     0x08 notary key        DER SubjectPublicKeyInfo (P-256), 1..1024 bytes
 *     0x09 certificate       DER X.509, 1..65536 bytes; 1..16 of them, leaf first
 *     0x0A request           the exact bytes sent to the server, 0..16 MiB
 *     0x0B response          the exact bytes received from the server, 0..16 MiB
 *     0x7F signature         DER ECDSA-SHA256 by the notary key over every byte
 *                            before this field (magic .. end of 0x0B); last field
 * Nothing may follow the signature. The decoder accepts only this canonical form,
 * so a document has exactly one encoding and any changed byte is detected.
 *
 * tb_notary_doc holds views (pointer + length) that point into caller-owned memory:
 * the caller's inputs when encoding, the decoded buffer when decoding. It owns
 * nothing and needs no free. */
#ifndef TB_NOTARY_DOC_H
#define TB_NOTARY_DOC_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/x509.h>

#include "base/buf.h"
#include "base/err.h"
#include "notary/key.h"

#define TB_NOTARY_DOC_MAGIC "TBND"
#define TB_NOTARY_DOC_VERSION 1
#define TB_NOTARY_DOC_MAX_CERTS 16
#define TB_NOTARY_DOC_MAX_CERT 65536
#define TB_NOTARY_DOC_MAX_NAME 253
#define TB_NOTARY_DOC_MAX_NONCE 64
#define TB_NOTARY_DOC_MAX_TEE 7 /* "sim-snp" */
#define TB_NOTARY_DOC_MAX_KEY 1024
#define TB_NOTARY_DOC_MAX_DATA (16u << 20)
#define TB_NOTARY_DOC_MAX_SIZE (40u << 20)

typedef struct tb_notary_view {
    const uint8_t *p;
    size_t len;
} tb_notary_view;

typedef struct tb_notary_doc {
    uint16_t version;
    uint8_t session_id[16];
    uint64_t time_ms;
    tb_notary_view server_name;
    tb_notary_view target_host;
    uint16_t target_port;
    tb_notary_view tee;
    tb_notary_view nonce;
    tb_notary_view notary_key;
    size_t n_certs;
    tb_notary_view certs[TB_NOTARY_DOC_MAX_CERTS];
    tb_notary_view request;
    tb_notary_view response;
    /* set by tb_notary_doc_decode only: */
    tb_notary_view signature;
    size_t signed_len; /* bytes [0, signed_len) are covered by the signature */
} tb_notary_doc;

/* Copies a text field to out (NUL-terminated; it is printable ASCII by construction). */
void tb_notary_view_str(tb_notary_view v, char *out, size_t cap);

#endif
