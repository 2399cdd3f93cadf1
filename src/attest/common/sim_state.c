/* attest/common/sim_state: what the SIMULATED TDX (attest/tdx/provider_sim) and SEV-SNP
 * (attest/snp/sim) providers share -- where their state lives (tb_attest_sim_dir:
 * --sim-dir, else $TEEBENCH_SIM_DIR, else the cache folder's teebench/sim), the one
 * atomic creation of a state folder (written in a temporary folder that is renamed into
 * place, so two processes starting at once agree on one PKI; SIMULATED.txt says what it
 * is), and the validity of their certificates and CRLs.
 *
 * Invariants: a state folder is complete or absent (a failed write removes its temporary
 * folder); nothing prints; no state of its own. */
#include "attest/internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/file.h"
#include "base/paths.h"
#include "base/x509.h"

int tb_attest_sim_dir(const char *override, char *out, size_t outlen, tb_err *err)
{
    const char *env = getenv("TEEBENCH_SIM_DIR");
    const char *given = override && *override ? override : env && *env ? env : NULL;
    if (!given) {
        if (tb_path_dir(TB_PATH_CACHE, "teebench/sim", out, outlen, err) < 0)
            return tb_err_wrap(err, "no simulated-TDX state directory (set TEEBENCH_SIM_DIR)");
        return 0;
    }
    int n = snprintf(out, outlen, "%s", given);
    if (n < 0 || (size_t)n >= outlen)
        return tb_errf(err, "simulated-TDX state directory path too long");
    return 0;
}

tb_x509_spec tb_attest_sim_cert_spec(const char *const *name, EVP_PKEY *key, X509 *issuer,
                                     EVP_PKEY *issuer_key, int64_t now)
{
    return (tb_x509_spec){.name = name,
                          .key = key,
                          .issuer = issuer,
                          .issuer_key = issuer_key,
                          .not_before = now - 86400,
                          .not_after = now + 20LL * 365 * 86400};
}

/* Every entry of the flat folder dir, then dir (a state folder being given up). */
void tb_attest_sim_dir_remove(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            unlinkat(dirfd(d), e->d_name, 0);
    if (d)
        closedir(d);
    rmdir(dir);
}

int tb_attest_sim_state_make(const char *dir, const char *probe, const char *note,
                             int (*write)(int dfd, const char *tmp, void *ctx, tb_err *err),
                             void *ctx, tb_err *err)
{
    char path[4200], tmp[4200];
    struct stat st;
    if (tb_path_join(path, sizeof path, dir, probe, err) < 0)
        return -1;
    if (stat(path, &st) == 0)
        return 0;
    snprintf(path, sizeof path, "%s", dir);
    char *slash = strrchr(path, '/');
    if (slash && slash != path) {
        *slash = '\0';
        if (tb_mkdirs(path, err) < 0)
            return -1;
    }
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%llu", dir, (long)getpid(),
             (unsigned long long)tb_mono_ns());
    if (mkdir(tmp, 0700) < 0)
        return tb_errno(err, "%s", tmp);
    int dfd = tb_dir_open_private(tmp, 0700, err);
    int rc = dfd < 0 || write(dfd, tmp, ctx, err) < 0 ||
                     tb_file_write_at(dfd, tmp, "SIMULATED.txt", note, strlen(note), 0644, err) < 0
                 ? -1
                 : 0;
    if (dfd >= 0)
        close(dfd);
    if (rc < 0) {
        tb_attest_sim_dir_remove(tmp);
        return -1;
    }
    if (rename(tmp, dir) < 0) {
        int e = errno;
        tb_attest_sim_dir_remove(tmp);
        if (e != EEXIST && e != ENOTEMPTY) {
            errno = e;
            return tb_errno(err, "creating %s", dir);
        }
        /* Another process won the race: use its state. */
    }
    return 0;
}

tb_x509_crl_spec tb_attest_sim_crl_spec(X509 *issuer, EVP_PKEY *issuer_key, int64_t now,
                                        X509 *revoked)
{
    return (tb_x509_crl_spec){.issuer = issuer,
                              .issuer_key = issuer_key,
                              .this_update = now - 3600,
                              .next_update = now + 30LL * 86400,
                              .revoked = revoked};
}
