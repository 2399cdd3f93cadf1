/* tlsn/wasm: the tlsn-wasm package teebench runs -- where it is installed, that it
 * is the pinned one, its files in memory, and the fixture-root substitution.
 *
 * The pin: TB_TLSN_WASM_VERSION from the npm registry, whose tarball's integrity
 * (sha512, in scripts/setup.sh) is checked when it is installed; here, at every
 * load, the SHA-256 of each file teebench serves (tb_tlsn_wasm_load refuses a
 * package with a missing file or any other byte). Installed by
 * `scripts/setup.sh --tlsn` (or --test: scripts/tlsn-wasm.sh) into
 * $TEEBENCH_TLSN_WASM, or as root /var/cache/teebench/tlsn-wasm/<version>/package,
 * else ${XDG_CACHE_HOME:-~/.cache}/teebench/tlsn-wasm/<version>/package; teebench
 * looks there in that order (tb_tlsn_wasm_default_dir: TEEBENCH_TLSN_WASM alone
 * when set, else the user's cache, then the system's). Nothing is downloaded at
 * run time.
 *
 * The substitution: the wasm trusts only the Mozilla roots compiled into it (no
 * root-store option). A trust anchor there is its subject's DER (the Name's
 * contents) directly followed by its SubjectPublicKeyInfo's contents. For a local
 * target that only the fixture CA vouches for, tb_tlsn_wasm_substitute_root
 * replaces, in the in-memory copy, the anchor "GlobalSign ECC Root CA - R4" (a P-256
 * key; it occurs once) with the fixture CA's subject and key (both exactly as long:
 * serve/pki's CA name is chosen for it). That changes trust data, not protocol
 * code; every output of a session that used it says "fixture root substituted in
 * the wasm's trust store". Any other target runs the package as installed.
 *
 * Ownership: tb_tlsn_wasm_load fills a caller-owned struct; tb_tlsn_wasm_clear frees
 * what it holds. Nothing here prints. */
#ifndef TB_TLSN_WASM_H
#define TB_TLSN_WASM_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

#define TB_TLSN_WASM_VERSION "0.1.0-alpha.12"
#define TB_TLSN_WASM_NPM "tlsn-wasm@" TB_TLSN_WASM_VERSION
#define TB_TLSN_SUBSTITUTED_NOTE "fixture root substituted in the wasm's trust store"
#define TB_TLSN_WASM_FILES 4

typedef struct tb_tlsn_wasm_file {
    const char *path;   /* in the package: "tlsn_wasm_bg.wasm" */
    const char *sha256; /* the pin, hex */
    tb_buf data;
} tb_tlsn_wasm_file;

typedef struct tb_tlsn_wasm {
    char dir[4096];
    tb_tlsn_wasm_file files[TB_TLSN_WASM_FILES];
    int substituted; /* the fixture root replaced an anchor in files' wasm */
} tb_tlsn_wasm;

/* The first of those directories that exists into out (none: the first of them, so
   that loading it says what to install). */
int tb_tlsn_wasm_default_dir(char *out, size_t n, tb_err *err);

/* Reads the package in dir and checks every pin. A missing directory or file says
 * how to install it ("scripts/setup.sh --tlsn installs tlsn-wasm@..."); a file
 * whose hash differs names it and both hashes. */
int tb_tlsn_wasm_load(const char *dir, tb_tlsn_wasm *w, tb_err *err);
void tb_tlsn_wasm_clear(tb_tlsn_wasm *w);
/* The module's bytes (tlsn_wasm_bg.wasm). */
tb_buf *tb_tlsn_wasm_module(tb_tlsn_wasm *w);

/* Replaces the anchor (see above) in wasm[0..len) with the CA certificate in the PEM
 * file ca_pem: its subject and its P-256 key. Fails when the anchor does not occur
 * exactly once, or the CA's subject or key differ in length from the anchor's. */
int tb_tlsn_wasm_substitute_root(uint8_t *wasm, size_t len, const char *ca_pem, tb_err *err);

#endif
