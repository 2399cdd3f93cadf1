/* pki: the fixture PKI -- a CA and a server certificate for test-server.io
 * signed by it, the way the "TEE vs No TEE" benchmark's fixture server has one.
 *
 * tb_pki_generate(dir) writes four PEM files into dir, a private directory
 * (tb_dir_open_private: created 0700 if missing; an existing one must be the
 * caller's and writable by no one else), each relative to its descriptor:
 *   ca.pem          the CA certificate (O teebench, CN TB_PKI_CA_NAME, CA:TRUE, pathlen 0)
 *   ca-key.pem      its private key (mode 0600)
 *   server.pem      the server certificate: CN test-server.io, SANs
 *                   DNS:test-server.io, DNS:localhost, IP:127.0.0.1, serverAuth
 *   server-key.pem  its private key (mode 0600)
 * Keys are EC P-256, signatures ECDSA-SHA256, validity from one hour ago for
 * ten years, random 128-bit serials. Everything is generated in memory first and
 * each file is written atomically (temporary file, fsync, rename), so a reader
 * sees a complete file or none. A client that trusts only ca.pem can connect
 * with SNI test-server.io to 127.0.0.1.
 *
 * Nothing here prints; errors fill tb_err. */
#ifndef TB_SERVE_PKI_H
#define TB_SERVE_PKI_H

#include <stddef.h>

#include "base/err.h"

#define TB_PKI_CA_CERT "ca.pem"
#define TB_PKI_CA_KEY "ca-key.pem"
#define TB_PKI_SERVER_CERT "server.pem"
#define TB_PKI_SERVER_KEY "server-key.pem"
#define TB_PKI_SERVER_NAME "test-server.io"
/* The CA's common name. Its length is not free: the CA's subject (O=teebench plus this
 * CN) is 80 bytes of DER, as long as the subject of the root that tlsn/wasm replaces
 * with it in a copy of tlsn-wasm's compiled-in trust store (a name must match its
 * anchor's byte for byte, and the wasm's bytes cannot grow). */
#define TB_PKI_CA_NAME "teebench fixture CA (also the tlsn-wasm test root)"

int tb_pki_generate(const char *dir, tb_err *err);
/* The same into the subdirectory name of the private directory parent_fd (parent:
 * its path, for messages), by tb_dir_open_at's rule. */
int tb_pki_generate_at(int parent_fd, const char *parent, const char *name, tb_err *err);

/* Writes "<dir>/<file>" into out; -1 with err if it does not fit. */
int tb_pki_path(const char *dir, const char *file, char *out, size_t size, tb_err *err);

#endif
