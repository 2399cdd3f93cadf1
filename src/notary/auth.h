/* notary/auth: the API keys a notary accepts (`notary serve --api-keys FILE`).
 *
 * The keys file is text, one key a line: "KEY" or "NAME KEY" (separated by
 * spaces or tabs). A line whose first non-blank character is '#' is a comment;
 * blank lines are ignored. A key is 16..256 visible ASCII characters (no
 * space, not starting with '#'; e.g. `openssl rand -hex 32`); a name is 1..64
 * letters, digits and "-_.@" and is what the log shows for requests made with
 * that key. Keys and names are unique; at most TB_NOTARY_MAX_KEYS keys; a file
 * without a key is an error (it would lock every client out). Errors name the
 * file and line and what is wrong, never the key.
 *
 * A request is authorized by an `Authorization` header whose value is
 * "Bearer KEY" (RFC 6750; the scheme case-insensitive) or the bare KEY (what
 * TLSNotary's notary-server expects from its whitelist's clients).
 *
 * Invariants: only SHA-256 digests of the keys are kept, so nothing can log or
 * leak a key; tb_notary_keys_check hashes the presented value once and compares
 * it with every digest (CRYPTO_memcmp, no early exit), so its time does not
 * depend on which key matched or on how much of one did. A tb_notary_keys is
 * read-only after it is made: safe to check from any thread.
 * Ownership: tb_notary_keys_load/_parse allocate; free with tb_notary_keys_free. */
#ifndef TB_NOTARY_AUTH_H
#define TB_NOTARY_AUTH_H

#include <stddef.h>

#include "base/err.h"

#define TB_NOTARY_MAX_KEYS 4096
#define TB_NOTARY_KEY_MIN 16
#define TB_NOTARY_KEY_MAX 256
#define TB_NOTARY_KEY_NAME_MAX 64

typedef struct tb_notary_keys tb_notary_keys;

/* Reads and parses the keys file at path (at most 1 MiB). */
int tb_notary_keys_load(const char *path, tb_notary_keys **out, tb_err *err);
/* Parses a keys file's text; `what` names it in errors ("FILE:LINE: ..."). */
int tb_notary_keys_parse(const char *text, size_t len, const char *what, tb_notary_keys **out,
                         tb_err *err);
void tb_notary_keys_free(tb_notary_keys *k);
size_t tb_notary_keys_count(const tb_notary_keys *k);

typedef enum tb_notary_auth {
    TB_NOTARY_AUTH_OK = 0,
    TB_NOTARY_AUTH_MISSING, /* no Authorization value */
    TB_NOTARY_AUTH_INVALID, /* a value that is no key of the set */
} tb_notary_auth;

/* Checks the value of an Authorization header (v[0..len), NULL when absent).
 * On TB_NOTARY_AUTH_OK *name (when non-NULL) is the key's name, "" when it has
 * none; it lives as long as k. */
tb_notary_auth tb_notary_keys_check(const tb_notary_keys *k, const char *v, size_t len,
                                    const char **name);

#endif
