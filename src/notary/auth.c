/* notary/auth: parsing the keys file and checking Authorization values (see
 * auth.h). Invariants: a parsed set holds 1..TB_NOTARY_MAX_KEYS entries, each
 * the SHA-256 of a valid key and a valid (maybe empty) name, no two keys or
 * two non-empty names equal; the text read from disk is wiped before it is
 * freed, so the keys live in memory only as digests. */
#include "notary/auth.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include "base/buf.h"
#include "base/file.h"

typedef struct key_entry {
    uint8_t sha[SHA256_DIGEST_LENGTH];
    char name[TB_NOTARY_KEY_NAME_MAX + 1];
} key_entry;

struct tb_notary_keys {
    size_t n;
    key_entry e[]; /* n entries */
};

static int is_space(char c)
{
    return c == ' ' || c == '\t';
}

static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("-_.@", c));
}

/* Checks one key's characters and length; says what is wrong without showing it. */
static int key_valid(const char *k, size_t n, const char *what, size_t line, tb_err *err)
{
    if (n < TB_NOTARY_KEY_MIN || n > TB_NOTARY_KEY_MAX)
        return tb_errf(err,
                       "%s:%zu: the key has %zu characters: want %d..%d (e.g. openssl rand "
                       "-hex 32)",
                       what, line, n, TB_NOTARY_KEY_MIN, TB_NOTARY_KEY_MAX);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)k[i] <= 0x20 || (unsigned char)k[i] >= 0x7f)
            return tb_errf(err, "%s:%zu: the key has a character that is not visible ASCII", what,
                           line);
    return 0;
}

/* Parses one non-blank, non-comment line [p, p+n) into e. */
static int parse_line(const char *p, size_t n, const char *what, size_t line, key_entry *e,
                      tb_err *err)
{
    const char *f[3];
    size_t fl[3], nf = 0;
    for (size_t i = 0; i < n;) {
        while (i < n && is_space(p[i]))
            i++;
        if (i == n)
            break;
        if (nf == 2)
            return tb_errf(err, "%s:%zu: want KEY or NAME KEY (more than two fields)", what, line);
        f[nf] = p + i;
        while (i < n && !is_space(p[i]))
            i++;
        fl[nf] = (size_t)(p + i - f[nf]);
        nf++;
    }
    const char *key = f[nf - 1];
    size_t klen = fl[nf - 1];
    memset(e, 0, sizeof *e);
    if (nf == 2) {
        if (fl[0] > TB_NOTARY_KEY_NAME_MAX)
            return tb_errf(err, "%s:%zu: the name is longer than %d characters", what, line,
                           TB_NOTARY_KEY_NAME_MAX);
        for (size_t i = 0; i < fl[0]; i++)
            if (!name_char(f[0][i]))
                return tb_errf(err,
                               "%s:%zu: the name '%.*s' may have only letters, digits "
                               "and -_.@",
                               what, line, (int)fl[0], f[0]);
        memcpy(e->name, f[0], fl[0]);
    }
    if (key_valid(key, klen, what, line, err) < 0)
        return -1;
    SHA256((const unsigned char *)key, klen, e->sha);
    return 0;
}

/* Refuses a key or a name that an earlier line has already. */
static int check_unique(const tb_notary_keys *k, const key_entry *e, const char *what, size_t line,
                        tb_err *err)
{
    for (size_t i = 0; i < k->n; i++) {
        if (!memcmp(k->e[i].sha, e->sha, sizeof e->sha))
            return tb_errf(err, "%s:%zu: the same key as an earlier line", what, line);
        if (e->name[0] && !strcmp(k->e[i].name, e->name))
            return tb_errf(err, "%s:%zu: the name '%s' is used by an earlier line", what, line,
                           e->name);
    }
    return 0;
}

int tb_notary_keys_parse(const char *text, size_t len, const char *what, tb_notary_keys **out,
                         tb_err *err)
{
    *out = NULL;
    size_t lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    size_t most = lines < TB_NOTARY_MAX_KEYS ? lines : TB_NOTARY_MAX_KEYS;
    tb_notary_keys *k = calloc(1, sizeof *k + most * sizeof k->e[0]);
    if (!k)
        return tb_errf(err, "%s: out of memory", what);
    size_t line = 0;
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t e = nl ? (size_t)(nl - text) : len, le = e, s = i;
        line++;
        i = e + 1;
        if (le > s && text[le - 1] == '\r')
            le--;
        while (s < le && is_space(text[s]))
            s++;
        if (s == le || text[s] == '#')
            continue;
        if (memchr(text + s, '\0', le - s)) {
            tb_errf(err, "%s:%zu: a NUL byte (not a text file?)", what, line);
            goto fail;
        }
        if (k->n == TB_NOTARY_MAX_KEYS) {
            tb_errf(err, "%s:%zu: more than %d keys", what, line, TB_NOTARY_MAX_KEYS);
            goto fail;
        }
        key_entry ent;
        if (parse_line(text + s, le - s, what, line, &ent, err) < 0 ||
            check_unique(k, &ent, what, line, err) < 0)
            goto fail;
        k->e[k->n++] = ent;
    }
    if (!k->n) {
        tb_errf(err, "%s: no key in the file (one KEY or NAME KEY a line)", what);
        goto fail;
    }
    *out = k;
    return 0;
fail:
    tb_notary_keys_free(k);
    return -1;
}

int tb_notary_keys_load(const char *path, tb_notary_keys **out, tb_err *err)
{
    tb_buf b = {0};
    *out = NULL;
    if (tb_file_read(path, 1u << 20, &b, err) < 0)
        return -1;
    int rc = tb_notary_keys_parse((const char *)b.p, b.len, path, out, err);
    if (b.p)
        OPENSSL_cleanse(b.p, b.len);
    tb_buf_clear(&b);
    return rc;
}

void tb_notary_keys_free(tb_notary_keys *k)
{
    if (!k)
        return;
    OPENSSL_cleanse(k, sizeof *k + k->n * sizeof k->e[0]);
    free(k);
}

size_t tb_notary_keys_count(const tb_notary_keys *k)
{
    return k ? k->n : 0;
}

tb_notary_auth tb_notary_keys_check(const tb_notary_keys *k, const char *v, size_t len,
                                    const char **name)
{
    if (!v || !len)
        return TB_NOTARY_AUTH_MISSING;
    /* "Bearer KEY" (a key has no space), else the bare key */
    if (len > 7 && !strncasecmp(v, "Bearer", 6) && is_space(v[6])) {
        v += 7;
        len -= 7;
        while (len && is_space(*v))
            v++, len--;
    }
    uint8_t sha[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)v, len, sha);
    size_t hit = k->n;
    for (size_t i = 0; i < k->n; i++) {
        /* branch-free select: the loop always visits every key */
        size_t same = (size_t)(CRYPTO_memcmp(k->e[i].sha, sha, sizeof sha) == 0);
        hit = same ? i : hit;
    }
    OPENSSL_cleanse(sha, sizeof sha);
    if (hit == k->n)
        return TB_NOTARY_AUTH_INVALID;
    if (name)
        *name = k->e[hit].name;
    return TB_NOTARY_AUTH_OK;
}
