/* attest/common/cache: an on-disk cache of verified collateral.
 *
 * <dir>/collateral/<FMSPC>-<ca>-<source>.json in the dcap-qvl format, where dir is
 * $XDG_CACHE_HOME/teebench (else ~/.cache/teebench) unless overridden, and <source> is
 * the first 16 hex digits of SHA-256 of where the collateral came from (a PCCS base URL
 * without trailing '/'s): two PCCSs never share an entry, so one server's answer is
 * never served as another's. An entry is used while `now` is before the earliest
 * nextUpdate of its TCB info, QE identity and both CRLs; after that it is fetched again.
 * Writes are atomic (a reader sees the old entry or the new one).
 * Invariants: the cache stores only what its caller verified (attest/common/evidence
 * puts collateral after it verified a quote, never before), and a hit is never trusted
 * more than a fetch: the verifier checks cached collateral exactly as fetched
 * collateral, and a hit that fails is fetched again. */
#include "attest/internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/sha.h>

#include "base/file.h"
#include "base/paths.h"
#include "base/hex.h"

int tb_attest_cache_dir(const char *override, char *out, size_t outlen, tb_err *err)
{
    if (!override || !*override) {
        if (tb_path_dir(TB_PATH_CACHE, "teebench", out, outlen, err) < 0)
            return tb_err_wrap(err, "no cache directory");
        return 0;
    }
    int n = snprintf(out, outlen, "%s", override);
    if (n < 0 || (size_t)n >= outlen)
        return tb_errf(err, "cache directory path too long");
    return 0;
}

static int entry_path(const char *dir, const char *source, const char *fmspc, const char *ca,
                      char *out, size_t n, tb_err *err)
{
    char f[13], h[17];
    uint8_t b[6], md[SHA256_DIGEST_LENGTH];
    if (!fmspc || strlen(fmspc) != 12 || tb_hex_decode(fmspc, 12, b, 6) < 0)
        return tb_errf(err, "bad FMSPC for the cache");
    if (!ca || (strcmp(ca, "processor") && strcmp(ca, "platform")))
        return tb_errf(err, "bad CA for the cache");
    if (!source)
        return tb_errf(err, "no collateral source for the cache");
    for (int i = 0; i < 12; i++)
        f[i] = (char)toupper((unsigned char)fmspc[i]);
    f[12] = '\0';
    size_t sl = strlen(source);
    while (sl && source[sl - 1] == '/')
        sl--;
    SHA256((const unsigned char *)source, sl, md);
    tb_hex_encode(md, 8, h);
    if ((size_t)snprintf(out, n, "%s/collateral/%s-%s-%s.json", dir, f, ca, h) >= n)
        return tb_errf(err, "cache path too long");
    return 0;
}

int tb_attest_cache_get(const char *dir, const char *source, const char *fmspc, const char *ca,
                        int64_t now, tb_tdx_collateral *out, tb_err *err)
{
    char path[4096];
    memset(out, 0, sizeof *out);
    if (entry_path(dir, source, fmspc, ca, path, sizeof path, err) < 0)
        return -1;
    struct stat st;
    if (stat(path, &st) < 0)
        return 0;
    tb_err ignored;
    int64_t next;
    if (tb_tdx_collateral_load(path, out, &ignored) < 0) /* a corrupt entry is a miss */
        return 0;
    if (tb_tdx_collateral_next_update(out, &next, &ignored) < 0 || now >= next) {
        tb_tdx_collateral_clear(out);
        return 0;
    }
    return 1;
}

int tb_attest_cache_put(const char *dir, const char *source, const char *fmspc, const char *ca,
                        const tb_tdx_collateral *c, tb_err *err)
{
    char path[4096], sub[4096];
    if (entry_path(dir, source, fmspc, ca, path, sizeof path, err) < 0)
        return -1;
    if (tb_path_join(sub, sizeof sub, dir, "collateral", err) < 0 || tb_mkdirs(sub, err) < 0)
        return -1;
    char *json = NULL;
    if (tb_tdx_collateral_to_json(c, &json, err) < 0)
        return -1;
    int rc = tb_file_write_atomic(path, json, strlen(json), err);
    free(json);
    return rc;
}
